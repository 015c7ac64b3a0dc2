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

/// The visible lines of Rust code blocks that name an inner crate, as `file:line: text`.
/// `strip` turns a source line into its doc text (`None`: not documentation).
fn offenders(path: &Path, text: &str, strip: impl Fn(&str) -> Option<&str>) -> Vec<String> {
    let in_doc_comment = path.extension().is_some_and(|e| e == "rs");
    let mut found = Vec::new();
    let mut in_rust: Option<bool> = None;
    for (number, line) in text.lines().enumerate() {
        let Some(doc) = strip(line) else { continue };
        let trimmed = doc.trim_start();
        if let Some(info) = trimmed.strip_prefix("```") {
            in_rust = match in_rust {
                Some(_) => None,
                None => Some(is_rust(info, in_doc_comment)),
            };
            continue;
        }
        let hidden = trimmed == "#" || trimmed.starts_with("# ");
        if in_rust == Some(true) && !hidden && INNER.iter().any(|c| doc.contains(c)) {
            found.push(format!(
                "{}:{}: {}",
                path.display(),
                number + 1,
                line.trim()
            ));
        }
    }
    found
}

fn doc_text(line: &str) -> Option<&str> {
    let t = line.trim_start();
    t.strip_prefix("///")
        .or_else(|| t.strip_prefix("//!"))
        .map(|d| d.strip_prefix(' ').unwrap_or(d))
}

#[test]
fn no_doc_example_of_a_shown_crate_names_an_inner_crate() {
    let mut files = Vec::new();
    for krate in SHOWN {
        rust_files(
            &workspace().join("crates").join(krate).join("src"),
            &mut files,
        );
    }
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

/// At most 30 names at the root (issue 26): counted from the root's `pub use` and `pub mod`
/// items, every feature on (`cargo doc --all-features` shows the same set).
#[test]
fn the_root_has_at_most_30_names() {
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
        names.len() <= 30,
        "{} names at the root: {names:?}",
        names.len()
    );
}
