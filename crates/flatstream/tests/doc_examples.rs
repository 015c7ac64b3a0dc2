//! The examples a user reads on this crate's pages can be pasted into a project that depends on
//! `flatstream` alone.
//!
//! Items re-exported from the inner crates (flatstream-core, -adapters, -checksum, -tokio, -arrow,
//! -datafusion) show
//! those crates' doc examples on the facade's pages. Those examples are written against the
//! facade's paths and compiled against the facade: each inner crate has `flatstream` as a
//! (path-only) dev-dependency, so `cargo test --doc -p flatstream-core` fails if an example names
//! a path the facade does not have. What that cannot catch is an example that names the inner
//! crate itself (`use flatstream_core::…` compiles in the inner crate's own doctests); these
//! tests catch it, in every visible line of every Rust code block of the sources the facade's
//! pages show, and of README.md and docs/*.md.
//!
//! Nor can the compiler see what a reader cannot: a hidden line (`# …`) that defines what the
//! example needs (a checksum type, a file, a variable) compiles in the doctest and is missing
//! from the page. Hidden lines may hold only what a pasted example does without: `fn main`,
//! the `?` plumbing around it (`Ok(())`, closing braces, a runtime's `block_on`), imports of
//! `flatstream` and `std`, and `#[cfg]` or `#[tokio::main]` attributes.

use std::fs;
use std::path::{Path, PathBuf};

const INNER: [&str; 7] = [
    "flatstream_core::",
    "flatstream_adapters::",
    "flatstream_checksum::",
    "flatstream_tokio::",
    "flatstream_arrow::",
    "flatstream_datafusion::",
    "flatstream_reflect::",
];

/// The crates whose doc comments the facade's pages show.
const SHOWN: [&str; 7] = [
    "flatstream",
    "flatstream-core",
    "flatstream-adapters",
    "flatstream-checksum",
    "flatstream-tokio",
    "flatstream-arrow",
    "flatstream-datafusion",
];

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The source files of the crates in [`SHOWN`].
fn shown_sources() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for krate in SHOWN {
        rust_files(
            &workspace().join("crates").join(krate).join("src"),
            &mut files,
        );
    }
    files
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("a source folder") {
        let path = entry.expect("a folder entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Whether a code fence's info string opens a Rust block (rustdoc's default in doc comments).
fn is_rust(info: &str, in_doc_comment: bool) -> bool {
    let first = info.split(',').next().unwrap_or("").trim();
    match first {
        "" => in_doc_comment,
        "rust" | "no_run" | "ignore" | "should_panic" | "compile_fail" => true,
        other => other.starts_with("edition"),
    }
}

/// The lines of Rust code blocks in `text`, each as `(line number, source line, doc text)`.
/// `strip` turns a source line into its doc text (`None`: not documentation); a fence opens or
/// closes a block, and a block is Rust by its info string ([`is_rust`]).
fn rust_block_lines<'t>(
    path: &Path,
    text: &'t str,
    strip: impl Fn(&'t str) -> Option<&'t str>,
) -> Vec<(usize, &'t str, &'t str)> {
    let in_doc_comment = path.extension().is_some_and(|e| e == "rs");
    let mut lines = Vec::new();
    let mut in_rust: Option<bool> = None;
    for (number, line) in text.lines().enumerate() {
        let Some(doc) = strip(line) else { continue };
        if let Some(info) = doc.trim_start().strip_prefix("```") {
            in_rust = match in_rust {
                Some(_) => None,
                None => Some(is_rust(info, in_doc_comment)),
            };
            continue;
        }
        if in_rust == Some(true) {
            lines.push((number + 1, line, doc));
        }
    }
    lines
}

/// A line found, as `file:line: text`.
fn place(path: &Path, number: usize, line: &str) -> String {
    format!("{}:{}: {}", path.display(), number, line.trim())
}

/// The visible lines of Rust code blocks that name an inner crate, as `file:line: text`.
/// `strip` turns a source line into its doc text (`None`: not documentation).
fn offenders<'t>(
    path: &Path,
    text: &'t str,
    strip: impl Fn(&'t str) -> Option<&'t str>,
) -> Vec<String> {
    rust_block_lines(path, text, strip)
        .into_iter()
        .filter(|(_, _, doc)| {
            let trimmed = doc.trim_start();
            let hidden = trimmed == "#" || trimmed.starts_with("# ");
            !hidden && INNER.iter().any(|c| doc.contains(c))
        })
        .map(|(number, line, _)| place(path, number, line))
        .collect()
}

/// Whether the hidden code `code` (a doc line after its `#`) is one a pasted example does
/// without: `fn main`, `?` plumbing, an import of `flatstream` or `std`, a `cfg` or
/// `tokio::main` attribute. Anything else (a `let`, an item, a statement) is a definition the
/// reader does not see.
fn hidden_plumbing(code: &str) -> bool {
    let code = code.trim();
    let closing = |s: &str| {
        s.chars()
            .all(|c| matches!(c, '}' | ')' | ']' | ';' | '?' | ' '))
    };
    let ok = code
        .strip_prefix("Ok(())")
        .or_else(|| {
            code.strip_prefix("Ok::<")
                .and_then(|rest| rest.find(">(())").map(|at| &rest[at + 5..]))
        })
        .is_some_and(closing);
    let import = ["use flatstream::", "use flatstream;", "use std::"]
        .iter()
        .any(|p| code.starts_with(p))
        && code.ends_with(';');
    let main = ["fn main()", "async fn main()"]
        .iter()
        .any(|p| code.starts_with(p))
        && (code.ends_with('{') || code.ends_with("{}"));
    let runtime =
        code.starts_with("tokio::runtime::Builder::") && code.ends_with(".block_on(async {");
    let attribute = code.starts_with("#[cfg(") || code.starts_with("#[tokio::main");
    closing(code) || ok || import || main || runtime || attribute
}

/// The hidden lines of Rust code blocks that are more than plumbing ([`hidden_plumbing`]), as
/// `file:line: text`.
fn hidden_definitions(path: &Path, text: &str) -> Vec<String> {
    rust_block_lines(path, text, doc_text)
        .into_iter()
        .filter(|(_, _, doc)| {
            let trimmed = doc.trim_start();
            let hidden = if trimmed == "#" {
                Some("")
            } else {
                trimmed.strip_prefix("# ")
            };
            hidden.is_some_and(|code| !hidden_plumbing(code))
        })
        .map(|(number, line, _)| place(path, number, line))
        .collect()
}

fn doc_text(line: &str) -> Option<&str> {
    let t = line.trim_start();
    t.strip_prefix("///")
        .or_else(|| t.strip_prefix("//!"))
        .map(|d| d.strip_prefix(' ').unwrap_or(d))
}

#[test]
fn no_doc_example_of_a_shown_crate_names_an_inner_crate() {
    let files = shown_sources();
    assert!(files.len() > 40, "found only {} source files", files.len());
    let found: Vec<String> = files
        .iter()
        .flat_map(|path| {
            let text = fs::read_to_string(path).expect("a source file");
            offenders(path, &text, doc_text)
        })
        .collect();
    assert!(
        found.is_empty(),
        "doc examples naming an inner crate (write them against `flatstream::`):\n{}",
        found.join("\n")
    );
}

/// Every example on the facade's pages pastes into a project that depends on `flatstream`:
/// nothing it needs is defined in hidden lines (issue 35).
#[test]
fn no_doc_example_of_a_shown_crate_hides_a_definition() {
    let files = shown_sources();
    let found: Vec<String> = files
        .iter()
        .flat_map(|path| {
            let text = fs::read_to_string(path).expect("a source file");
            hidden_definitions(path, &text)
        })
        .collect();
    assert!(
        found.is_empty(),
        "doc examples that hide what they need (show it; hide only `fn main`, `?` plumbing \
         and imports of flatstream or std):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_hidden_line_check_passes_plumbing_and_finds_definitions() {
    let plumbing = [
        "# fn main() -> Result<(), Box<dyn std::error::Error>> {",
        "# async fn main() -> flatstream::Result<()> {",
        "# fn main() {}",
        "# #[tokio::main(flavor = \"current_thread\")]",
        "# tokio::runtime::Builder::new_current_thread().build()?.block_on(async {",
        "# use flatstream::checksum::XxHash64;",
        "# use std::io::Write;",
        "# #[cfg(feature = \"xxhash\")]",
        "# Ok::<(), flatstream::Error>(())",
        "# Ok(()) }",
        "# })?;",
        "# }",
        "#",
    ];
    for line in plumbing {
        let src = format!("/// ```\n/// {line}\n/// let x = 1;\n/// ```\n");
        assert!(
            hidden_definitions(Path::new("x.rs"), &src).is_empty(),
            "{line}"
        );
    }
    let definitions = [
        "# struct Fnv32;",
        "# impl Checksum for Fnv32 {",
        "# let path = std::env::temp_dir().join(\"x\");",
        "# let _ = codec;",
        "# std::fs::write(&path, bytes)?;",
        "# use flatstream_test_support::telemetry::Reading;",
        "# use tempfile::tempdir;",
        "# fn helper() {}",
        "# #[derive(Clone, Copy)]",
        "# writer.flush()?;",
    ];
    for line in definitions {
        let src = format!("/// ```\n/// {line}\n/// ```\n/// # Errors\n");
        assert_eq!(
            hidden_definitions(Path::new("x.rs"), &src),
            [format!("x.rs:2: /// {line}")],
            "{line}"
        );
    }
    // Headings and text blocks are not code.
    let prose = "/// # Errors\n/// ```text\n/// # let x = 1;\n/// ```\n";
    assert!(hidden_definitions(Path::new("x.rs"), prose).is_empty());
}

#[test]
fn no_rust_block_of_the_readme_or_docs_names_an_inner_crate() {
    let mut files = vec![workspace().join("README.md")];
    for entry in fs::read_dir(workspace().join("docs")).expect("docs/") {
        let path = entry.expect("a docs entry").path();
        if path.extension().is_some_and(|e| e == "md") {
            files.push(path);
        }
    }
    let found: Vec<String> = files
        .iter()
        .flat_map(|path| {
            let text = fs::read_to_string(path).expect("a markdown file");
            offenders(path, &text, |l: &str| Some(l))
        })
        .collect();
    assert!(
        found.is_empty(),
        "Rust blocks naming an inner crate:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_check_finds_a_visible_inner_path_and_passes_a_hidden_one() {
    let src = "/// ```\n/// # use flatstream_core as hidden;\n/// use flatstream_core::Frames;\n/// ```\n/// Prose about flatstream_core::Frames.\n";
    let found = offenders(Path::new("x.rs"), src, doc_text);
    assert_eq!(found, ["x.rs:3: /// use flatstream_core::Frames;"]);
    let text_block = "/// ```text\n/// flatstream_core::Frames\n/// ```\n";
    assert!(offenders(Path::new("x.rs"), text_block, doc_text).is_empty());
}

/// The doc examples of the inner crates compile against the facade only while the facade is a
/// dev-dependency of each: without it, `use flatstream::…` in their doctests would not resolve,
/// and someone would be tempted to write `flatstream_core::` again.
#[test]
fn every_inner_crate_compiles_its_doc_examples_against_the_facade() {
    for krate in &SHOWN[1..] {
        let manifest =
            fs::read_to_string(workspace().join("crates").join(krate).join("Cargo.toml"))
                .expect("a manifest");
        let dev = manifest
            .split("[dev-dependencies]")
            .nth(1)
            .expect("a [dev-dependencies] table");
        let dev = dev.split("\n[").next().unwrap_or(dev);
        assert!(
            dev.lines()
                .any(|l| l.starts_with("flatstream = ") && l.contains("path = \"../flatstream\"")),
            "{krate} has no `flatstream = {{ path = \"../flatstream\" … }}` dev-dependency"
        );
    }
}

/// At most 31 names at the root: issue 26's 30, and the `mcap` module issue 34 asks for behind
/// a feature of its own. Counted from the root's `pub use` and `pub mod` items, every feature
/// on (`cargo doc --all-features` shows the same set).
#[test]
fn the_root_has_at_most_31_names() {
    let lib = fs::read_to_string(workspace().join("crates/flatstream/src/lib.rs")).expect("lib.rs");
    let mut names = Vec::new();
    let mut statement = String::new();
    for line in lib.lines() {
        if statement.is_empty() && !(line.starts_with("pub use ") || line.starts_with("pub mod ")) {
            continue;
        }
        statement.push_str(line);
        let module = statement.starts_with("pub mod ");
        if line.ends_with(';') || (module && line.ends_with('{')) {
            let body = statement
                .trim_start_matches("pub use ")
                .trim_start_matches("pub mod ")
                .trim_end_matches(['{', ';', ' ']);
            match body.split_once('{') {
                Some((_, list)) => names.extend(
                    list.trim_end_matches('}')
                        .split(',')
                        .map(str::trim)
                        .filter(|n| !n.is_empty())
                        .map(str::to_owned),
                ),
                None => names.push(body.rsplit("::").next().unwrap_or(body).trim().to_owned()),
            }
            statement.clear();
        }
    }
    names.sort();
    names.dedup();
    assert!(names.len() >= 20, "parsed only {names:?}");
    assert!(
        names.len() <= 31,
        "{} names at the root: {names:?}",
        names.len()
    );
}
