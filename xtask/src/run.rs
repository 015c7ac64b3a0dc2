//! Running the benchmark suites with `cargo bench` and collecting what they wrote (criterion's
//! results, the allocation counts, the paired ratios) into a snapshot.

use crate::snapshot::{Snapshot, parse_allocs, parse_json, parse_ratios};
use crate::{Result, criterion, machine};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs every suite (shorter with `quick`) and returns its figures with the machine they were
/// measured on.
pub(crate) fn measure(root: &Path, quick: bool) -> Result<Snapshot> {
    let target = target_dir(root);
    let mode = if quick { "quick" } else { "full" };
    let load_before = machine::load_average();
    let command = run_suites(root, &target, quick)?;
    let mut snap = collect(root, &target, mode, &command)?;
    snap.load = format!(
        "{load_before} at the start, {} at the end",
        machine::load_average()
    );
    Ok(snap)
}

/// Runs the suite `suite` alone (a bench target of `benches/`, such as `scaling`) and merges
/// its figures into `base`, the committed snapshot: the benchmarks of the groups it measured
/// replace those of the same groups, the rest stays, and the snapshot's command says what was
/// run again, when, at which commit and under which load.
pub(crate) fn measure_only(
    root: &Path,
    quick: bool,
    suite: &str,
    mut base: Snapshot,
) -> Result<Snapshot> {
    let target = target_dir(root);
    let load_before = machine::load_average();
    let command = run(root, &target, quick, Some(suite))?;
    let new = collect(
        root,
        &target,
        if quick { "quick" } else { "full" },
        &command,
    )?;
    let groups: Vec<&str> = new.benches.iter().map(|b| b.group.as_str()).collect();
    base.benches.retain(|b| !groups.contains(&b.group.as_str()));
    base.benches.extend(new.benches.iter().cloned());
    base.benches.sort_by(|a, b| a.id.cmp(&b.id));
    if !new.allocs.is_empty() {
        base.allocs = new.allocs;
    }
    if !new.ratios.is_empty() {
        base.ratios = new.ratios;
    }
    if !new.scaling.is_empty() {
        base.scaling = new.scaling;
    }
    if !new.filesystem.is_empty() {
        base.filesystem = new.filesystem;
    }
    base.command = format!(
        "{}; then `{command}` ({} run) at commit `{}`, {}, load {load_before} at its start, {} at its end",
        base.command,
        new.mode,
        new.commit,
        new.date,
        machine::load_average()
    );
    Ok(base)
}

/// Runs every suite of the bench crate; returns the command line it ran.
fn run_suites(root: &Path, target: &Path, quick: bool) -> Result<String> {
    run(root, target, quick, None)
}

/// Runs every suite of the bench crate, or only `suite`; returns the command line it ran.
fn run(root: &Path, target: &Path, quick: bool, suite: Option<&str>) -> Result<String> {
    // Start clean so the snapshot holds exactly this run, not ids left over from older ones.
    let criterion = target.join("criterion");
    if criterion.exists() {
        std::fs::remove_dir_all(&criterion).map_err(|e| format!("{}: {e}", criterion.display()))?;
    }
    let _ = std::fs::remove_file(allocations_path(target));
    let _ = std::fs::remove_file(ratios_path(target));
    let _ = std::fs::remove_file(journal_path(target));
    let _ = std::fs::remove_file(scaling_path(target));
    let mut args = vec!["bench", "-p", "flatstream-bench"];
    // The SQL suite needs DataFusion, which the bench crate builds only with `sql` (so that
    // CI's `cargo bench --benches -- --test` does not build it in release).
    if matches!(suite, None | Some("sql")) {
        args.extend(["--features", "sql"]);
    }
    match suite {
        Some(suite) => args.extend(["--bench", suite, "--"]),
        None => args.extend(["--benches", "--"]),
    }
    if quick {
        args.extend(["--warm-up-time", "0.5", "--measurement-time", "1"]);
    }
    let command = format!("cargo {}", args.join(" "));
    println!("running `{command}`");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let status = Command::new(cargo)
        .current_dir(root)
        .args(&args)
        .env("FLATSTREAM_BENCH_OUT", target.join("flatstream-bench"))
        .status()
        .map_err(|e| format!("cargo bench: {e}"))?;
    if !status.success() {
        return Err(format!("`{command}` failed ({status})"));
    }
    Ok(command)
}

/// Where the allocations suite writes its counts (`FLATSTREAM_BENCH_OUT`).
fn allocations_path(target: &Path) -> PathBuf {
    target.join("flatstream-bench").join("allocations.json")
}

/// Where the `ratios` bench writes its paired timings (`FLATSTREAM_BENCH_OUT`).
fn ratios_path(target: &Path) -> PathBuf {
    target.join("flatstream-bench").join("ratios.json")
}

/// Where the `scaling` bench writes its paired timings (`FLATSTREAM_BENCH_OUT`).
fn scaling_path(target: &Path) -> PathBuf {
    target.join("flatstream-bench").join("scaling.json")
}

/// Where the `journal` bench names the file system of its files (`FLATSTREAM_BENCH_OUT`).
fn journal_path(target: &Path) -> PathBuf {
    target.join("flatstream-bench").join("journal.json")
}

/// Reads what the suites wrote under `target` and describes the machine.
fn collect(root: &Path, target: &Path, mode: &str, command: &str) -> Result<Snapshot> {
    let benches = criterion::read_all(&target.join("criterion"))?;
    let alloc_path = allocations_path(target);
    let allocs = match std::fs::read_to_string(&alloc_path) {
        Ok(text) => parse_allocs(&parse_json(&text, &alloc_path)?["allocations"]),
        Err(_) => Vec::new(),
    };
    let ratio_path = ratios_path(target);
    let ratios = match std::fs::read_to_string(&ratio_path) {
        Ok(text) => parse_ratios(&parse_json(&text, &ratio_path)?["ratios"]),
        Err(_) => Vec::new(),
    };

    let scaling_path = scaling_path(target);
    let scaling = match std::fs::read_to_string(&scaling_path) {
        Ok(text) => parse_ratios(&parse_json(&text, &scaling_path)?["scaling"]),
        Err(_) => Vec::new(),
    };

    let journal_path = journal_path(target);
    let filesystem = match std::fs::read_to_string(&journal_path) {
        Ok(text) => parse_json(&text, &journal_path)?["filesystem"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
        Err(_) => String::new(),
    };

    Ok(Snapshot {
        cpu: machine::cpu(),
        cores: machine::cores(),
        os: machine::os(),
        rustc: machine::rustc(root),
        load: String::new(),
        filesystem,
        commit: machine::commit(root),
        date: machine::utc_now(),
        mode: mode.to_owned(),
        command: command.to_owned(),
        benches,
        allocs,
        ratios,
        scaling,
    })
}

/// Cargo's target directory: `$CARGO_TARGET_DIR`, else `target/` in the workspace.
fn target_dir(root: &Path) -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            if dir.is_absolute() {
                dir
            } else {
                root.join(dir)
            }
        }
        None => root.join("target"),
    }
}
