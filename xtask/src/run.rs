//! Running the benchmark suites with `cargo bench` and collecting what they wrote (criterion's
//! results, the allocation counts, the paired ratios) into a snapshot.

use crate::snapshot::{Snapshot, parse_allocs, parse_json, parse_memory, parse_ratios};
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
    if snap.benches.is_empty() {
        return Err(format!(
            "`{command}`: no criterion results under {}",
            target.join("criterion").display()
        ));
    }
    snap.load = format!(
        "{load_before} at the start, {} at the end",
        machine::load_average()
    );
    Ok(snap)
}

/// Runs the suite `suite` alone (a bench target of `benches/`, such as `scaling`) and merges
/// its figures into `base`, the committed snapshot (see [`merge`]); the snapshot's command says
/// what was run again, when, at which commit and under which load.
pub(crate) fn measure_only(
    root: &Path,
    quick: bool,
    suite: &str,
    base: Snapshot,
) -> Result<Snapshot> {
    let suites = suites(root)?;
    if !suites.iter().any(|s| s == suite) {
        return Err(format!(
            "no suite `{suite}` in benches/benches/; the suites are: {}",
            suites.join(", ")
        ));
    }
    let target = target_dir(root);
    let load_before = machine::load_average();
    let command = run(root, &target, quick, Some(suite))?;
    let new = collect(
        root,
        &target,
        if quick { "quick" } else { "full" },
        &command,
    )?;
    let mut merged = merge(base, &new).map_err(|e| format!("`{command}`: {e}"))?;
    merged.command = format!(
        "{}; then `{command}` ({} run) at commit `{}`, {}, load {load_before} at its start, {} at its end",
        merged.command,
        new.mode,
        new.commit,
        new.date,
        machine::load_average()
    );
    Ok(merged)
}

/// The figures of one suite's run, `new`, merged into `base`: the criterion results of the
/// groups `new` measured replace those of the same groups, and each kind of paired or counted
/// figure it holds (allocations, ratios, scaling, the journal's file system, each written by one
/// suite) replaces that kind; everything else of `base` stays. Fails if `new` holds nothing.
pub(crate) fn merge(mut base: Snapshot, new: &Snapshot) -> Result<Snapshot> {
    if new.benches.is_empty()
        && new.allocs.is_empty()
        && new.ratios.is_empty()
        && new.scaling.is_empty()
        && new.filesystem.is_empty()
        && new.memory.is_empty()
    {
        return Err(
            "the suite wrote no figures (no criterion results, allocations, ratios or scaling)"
                .to_owned(),
        );
    }
    let groups: Vec<&str> = new.benches.iter().map(|b| b.group.as_str()).collect();
    base.benches.retain(|b| !groups.contains(&b.group.as_str()));
    base.benches.extend(new.benches.iter().cloned());
    base.benches.sort_by(|a, b| a.id.cmp(&b.id));
    if !new.allocs.is_empty() {
        base.allocs.clone_from(&new.allocs);
    }
    if !new.ratios.is_empty() {
        base.ratios.clone_from(&new.ratios);
    }
    if !new.memory.is_empty() {
        base.memory.clone_from(&new.memory);
    }
    if !new.scaling.is_empty() {
        base.scaling.clone_from(&new.scaling);
    }
    if !new.filesystem.is_empty() {
        base.filesystem.clone_from(&new.filesystem);
    }
    Ok(base)
}

/// The suites `--only` takes: the files of `benches/benches/`, without `.rs`, sorted.
fn suites(root: &Path) -> Result<Vec<String>> {
    let dir = root.join("benches").join("benches");
    let entries = std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut suites: Vec<String> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            name.strip_suffix(".rs").map(str::to_owned)
        })
        .collect();
    suites.sort();
    Ok(suites)
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
    let _ = std::fs::remove_file(memory_path(target));
    let mut args = vec!["bench", "-p", "flatstream-bench"];
    // The SQL suite needs DataFusion, which the bench crate builds only with `sql` (so that
    // CI's `cargo bench --benches -- --test` does not build it in release).
    if matches!(suite, None | Some("sql")) {
        args.extend(["--features", "sql"]);
    }
    // The cluster suite runs the CLI users install, a binary: built here as `cargo install`
    // builds it (unless `FLATSTREAM_BIN` already names one), and named to the suite by
    // `FLATSTREAM_BIN`.
    let mut env = Vec::new();
    if matches!(suite, None | Some("cluster")) {
        args.extend(["--features", "cluster"]);
        let bin = match std::env::var_os("FLATSTREAM_BIN") {
            Some(bin) => PathBuf::from(bin),
            None => release_cli(root, target)?,
        };
        println!("the cluster suite runs {}", bin.display());
        env.push(("FLATSTREAM_BIN", bin));
    }
    // The Python suite runs the package in an interpreter that has it installed
    // (`FLATSTREAM_PYTHON`, default `python3`): only when named, since it needs one.
    if suite == Some("python") {
        args.extend(["--features", "python"]);
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
        .envs(env)
        .status()
        .map_err(|e| format!("cargo bench: {e}"))?;
    if !status.success() {
        return Err(format!("`{command}` failed ({status})"));
    }
    Ok(command)
}

/// Builds the `flatstream` binary as `cargo install --locked --path crates/flatstream-cli`
/// does (the release profile, default features) into `target`; its path.
fn release_cli(root: &Path, target: &Path) -> Result<PathBuf> {
    let args = ["build", "--release", "--locked", "-p", "flatstream-cli"];
    println!("running `cargo {}`", args.join(" "));
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let status = Command::new(cargo)
        .current_dir(root)
        .args(args)
        .env("CARGO_TARGET_DIR", target)
        .status()
        .map_err(|e| format!("cargo build: {e}"))?;
    if !status.success() {
        return Err(format!("`cargo {}` failed ({status})", args.join(" ")));
    }
    Ok(target.join("release").join("flatstream"))
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

/// Where the `python` bench writes its peak memory figures (`FLATSTREAM_BENCH_OUT`).
fn memory_path(target: &Path) -> PathBuf {
    target.join("flatstream-bench").join("python-memory.json")
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

    let memory_path = memory_path(target);
    let memory = match std::fs::read_to_string(&memory_path) {
        Ok(text) => parse_memory(&parse_json(&text, &memory_path)?),
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
        memory,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::sample;
    use crate::render::{DOC_PATH, documents};

    /// The fixture as a run stores it: benchmarks sorted by id.
    fn committed() -> Snapshot {
        let mut snap = sample();
        snap.benches.sort_by(|a, b| a.id.cmp(&b.id));
        snap
    }

    /// What one suite's run wrote: nothing but what `fill` puts in.
    fn run_of(fill: impl FnOnce(&mut Snapshot)) -> Snapshot {
        let mut new = committed();
        new.benches.clear();
        new.allocs.clear();
        new.ratios.clear();
        new.scaling.clear();
        new.filesystem.clear();
        fill(&mut new);
        new
    }

    /// The rendered files of `snap`, the report split into its `## ` sections.
    fn rendered(snap: &Snapshot) -> (Vec<String>, Vec<(String, String)>) {
        let readme = "# project\n\n<!-- bench-summary:start -->\n<!-- bench-summary:end -->\n";
        let files = documents(snap, readme).unwrap();
        let doc = &files.iter().find(|(path, _)| path == DOC_PATH).unwrap().1;
        let sections = doc.split("\n## ").map(str::to_owned).collect();
        let others = files.into_iter().filter(|(p, _)| p != DOC_PATH).collect();
        (sections, others)
    }

    #[test]
    fn only_ratios_rerenders_the_targets_section_and_keeps_the_others() {
        let base = committed();
        let new = run_of(|new| {
            new.ratios = base.ratios.clone();
            new.ratios[0].median = 1.5;
            new.ratios[1].median = 0.9;
        });
        let merged = merge(base.clone(), &new).unwrap();
        assert_eq!(merged.ratios, new.ratios);
        assert_eq!(merged.benches, base.benches);
        assert_eq!(merged.allocs, base.allocs);

        let (before, before_others) = rendered(&base);
        let (after, after_others) = rendered(&merged);
        assert_eq!(before_others, after_others, "README block and chart");
        assert_eq!(before.len(), after.len());
        let changed: Vec<&str> = before
            .iter()
            .zip(&after)
            .filter(|(b, a)| b != a)
            .map(|(_, a)| a.lines().next().unwrap())
            .collect();
        assert_eq!(changed, ["Core targets: paired timing"]);
        assert!(after.iter().any(|s| s.contains("1.50")), "the new median");
    }

    #[test]
    fn a_criterion_suite_replaces_its_groups_and_keeps_the_rest() {
        let base = committed();
        let kept = base
            .find("read_path", "frames-slice", "100")
            .unwrap()
            .clone();
        let new = run_of(|new| {
            new.benches = vec![crate::snapshot::Bench {
                ns: kept.ns * 2.0,
                ..kept.clone()
            }];
            new.filesystem = "ext4 on /dev/vda".to_owned();
        });
        let merged = merge(base.clone(), &new).unwrap();
        let read_path: Vec<_> = merged
            .benches
            .iter()
            .filter(|b| b.group == "read_path")
            .collect();
        assert_eq!(read_path, [&new.benches[0]], "the group is the new run's");
        let others = |s: &Snapshot| {
            s.benches
                .iter()
                .filter(|b| b.group != "read_path")
                .cloned()
                .collect::<Vec<_>>()
        };
        assert_eq!(others(&merged), others(&base));
        assert_eq!(merged.ratios, base.ratios);
        assert_eq!(merged.allocs, base.allocs);
        assert_eq!(merged.filesystem, "ext4 on /dev/vda");
    }

    #[test]
    fn allocations_and_scaling_replace_their_own_figures() {
        let base = committed();
        let new = run_of(|new| {
            new.allocs = base.allocs[..1].to_vec();
            new.allocs[0].allocations = 7;
            new.scaling = base.ratios[..1].to_vec();
        });
        let merged = merge(base.clone(), &new).unwrap();
        assert_eq!(merged.allocs, new.allocs);
        assert_eq!(merged.scaling, new.scaling);
        assert_eq!((merged.benches, merged.ratios), (base.benches, base.ratios));
    }

    #[test]
    fn a_run_that_wrote_nothing_is_an_error() {
        let err = merge(committed(), &run_of(|_| {})).unwrap_err();
        assert!(err.contains("no figures"), "{err}");
    }

    #[test]
    fn every_suite_of_the_bench_crate_can_be_named() {
        let suites = suites(&crate::workspace_root()).unwrap();
        for suite in [
            "allocations",
            "ratios",
            "scaling",
            "journal",
            "core",
            "schema_verify",
            "cluster",
            "mcap",
            "python",
        ] {
            assert!(suites.iter().any(|s| s == suite), "{suite}: {suites:?}");
        }
    }
}
