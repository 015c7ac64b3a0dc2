//! The rendered files on disk: written only when their content changes, and compared with what
//! the snapshot renders to for `--check`.

use crate::Result;
use crate::render::{self, README_PATH};
use crate::snapshot::Snapshot;
use std::path::Path;

/// Every file `snap` renders to under `root`, `(path relative to root, content)`; reads the
/// README whose summary block it replaces.
pub(crate) fn render_all(root: &Path, snap: &Snapshot) -> Result<Vec<(String, String)>> {
    let readme_path = root.join(README_PATH);
    let readme = std::fs::read_to_string(&readme_path)
        .map_err(|e| format!("{}: {e}", readme_path.display()))?;
    render::documents(snap, &readme)
}

/// The rendered files whose content on disk differs from what `snap` renders to.
pub(crate) fn check(root: &Path, snap: &Snapshot) -> Result<Vec<String>> {
    let mut stale = Vec::new();
    for (rel, text) in render_all(root, snap)? {
        if std::fs::read_to_string(root.join(&rel)).ok().as_deref() != Some(text.as_str()) {
            stale.push(rel);
        }
    }
    Ok(stale)
}

/// Writes `text` to `rel` under `root` if it changed, and says which it did.
pub(crate) fn write(root: &Path, rel: &str, text: &str) -> Result<()> {
    let changed = write_if_changed(&root.join(rel), text)?;
    println!("{} {rel}", if changed { "wrote    " } else { "unchanged" });
    Ok(())
}

/// Writes `text` to `path` unless the file already holds exactly that; returns whether it wrote.
fn write_if_changed(path: &Path, text: &str) -> Result<bool> {
    if std::fs::read_to_string(path).is_ok_and(|old| old == text) {
        return Ok(false);
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::sample;
    use crate::render::DOC_PATH;
    use std::path::PathBuf;

    fn temp_root(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("xtask-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join(README_PATH),
            "# project\n\n## Performance\n\n<!-- bench-summary:start -->\n\
             <!-- bench-summary:end -->\n\n## More\n",
        )
        .unwrap();
        dir
    }

    fn write_all(root: &Path, snap: &Snapshot) {
        for (rel, text) in render_all(root, snap).unwrap() {
            write_if_changed(&root.join(rel), &text).unwrap();
        }
    }

    #[test]
    fn check_passes_after_render_and_fails_after_a_hand_edit() {
        let root = temp_root("check");
        let snap = sample();
        assert_eq!(
            check(&root, &snap).unwrap().len(),
            3,
            "nothing rendered yet"
        );
        write_all(&root, &snap);
        assert!(check(&root, &snap).unwrap().is_empty());

        // Edit one figure of a committed table by hand.
        let doc_path = root.join(DOC_PATH);
        let doc = std::fs::read_to_string(&doc_path).unwrap();
        let line = doc
            .lines()
            .find(|l| l.starts_with("| `bincode` |"))
            .unwrap();
        let edited = doc.replacen(line, &line.replacen("20.0 ns", "2.00 ns", 1), 1);
        assert_ne!(doc, edited, "the edit changed the table");
        std::fs::write(&doc_path, edited).unwrap();
        assert_eq!(check(&root, &snap).unwrap(), [DOC_PATH]);

        // Edit the README summary too; re-rendering repairs both.
        let readme_path = root.join(README_PATH);
        let readme = std::fs::read_to_string(&readme_path).unwrap();
        std::fs::write(
            &readme_path,
            readme.replace("| `bincode` |", "| `bincode!` |"),
        )
        .unwrap();
        assert_eq!(check(&root, &snap).unwrap(), [DOC_PATH, README_PATH]);
        write_all(&root, &snap);
        assert!(check(&root, &snap).unwrap().is_empty());
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn check_fails_naming_an_id_the_snapshot_lacks() {
        let root = temp_root("missing-id");
        let mut snap = sample();
        write_all(&root, &snap);
        snap.benches
            .retain(|b| b.id != "size_sweep/read-none/65536");
        let err = check(&root, &snap).unwrap_err();
        assert!(err.contains("`size_sweep/read-none/65536`"), "{err}");
        assert!(render_all(&root, &snap).is_err(), "--render fails too");
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn rendering_twice_writes_nothing_the_second_time() {
        let root = temp_root("idempotent");
        let snap = sample();
        write_all(&root, &snap);
        for (rel, text) in render_all(&root, &snap).unwrap() {
            assert!(!write_if_changed(&root.join(&rel), &text).unwrap(), "{rel}");
        }
        std::fs::remove_dir_all(&root).unwrap();
    }
}
