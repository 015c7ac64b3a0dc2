//! The benchmark ids the report reads by name, in one table. A renamed or removed bench would
//! otherwise drop its sentence or its row of "Which to choose" without a word, so rendering
//! fails when the snapshot lacks one of them.
//!
//! Rows found by pattern are not listed: every side of the headline group, the peer the verdict
//! names (its `telemetry_write` and `telemetry_read` halves), the checksums of the size sweep,
//! and the group tables, which show whatever the snapshot holds.

use crate::Result;
use crate::snapshot::{Bench, SNAPSHOT_PATH, Snapshot};
use std::fmt;

/// A benchmark id, `group/function/parameter`, in its three parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Id {
    /// Criterion's group id.
    pub group: &'static str,
    /// The function id within the group.
    pub function: &'static str,
    /// The parameter (a count or a size), as criterion writes it.
    pub parameter: &'static str,
}

impl Id {
    const fn new(group: &'static str, function: &'static str, parameter: &'static str) -> Self {
        Self {
            group,
            function,
            parameter,
        }
    }

    /// This benchmark's figures in `snap`.
    pub(crate) fn find(self, snap: &Snapshot) -> Option<&Bench> {
        snap.find(self.group, self.function, self.parameter)
    }
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}/{}", self.group, self.function, self.parameter)
    }
}

/// flatstream's side of the headline, the telemetry cycle of 100 000 messages. The headline
/// table, the chart and the verdict show every side of its group at its parameter against it.
pub(crate) const HEADLINE: Id = Id::new("telemetry_cycle", "flatstream-none", "100000");
/// The write half of the headline, for the verdict's account of where the time goes.
pub(crate) const HEADLINE_WRITE: Id = Id::new("telemetry_write", "flatstream-none", "100000");
/// The read half of the headline.
pub(crate) const HEADLINE_READ: Id = Id::new("telemetry_read", "flatstream-none", "100000");
/// Framing alone: how much of the read half is flatstream's own.
pub(crate) const FRAMING: Id = Id::new("read_path", "reader-cursor", "100");
/// "Which to choose", frames in memory: the zero-copy iterator over a slice.
pub(crate) const FRAMES_SLICE: Id = Id::new("read_path", "frames-slice", "100");
/// The same over a memory-mapped file.
pub(crate) const FRAMES_MMAP: Id = Id::new("read_path", "frames-mmap", "100");
/// A `StreamReader` created for each batch on the same slice.
pub(crate) const READER_NEW: Id = Id::new("read_path", "reader-slice-new", "100");
/// "Which to choose", a file: writing through a `BufWriter`.
pub(crate) const FILE_WRITE_BUFFERED: Id = Id::new("file_io", "write-bufwriter", "4096");
/// Writing on the raw `File`.
pub(crate) const FILE_WRITE_RAW: Id = Id::new("file_io", "write-file", "4096");
/// Reading the file back.
pub(crate) const FILE_READ: Id = Id::new("file_io", "read-file", "4096");
/// "Which to choose", checksums: reading small payloads with none, which each checksum of the
/// same group and parameter is compared with.
pub(crate) const SWEEP_SMALL: Id = Id::new("size_sweep", "read-none", "256");
/// The same for large payloads.
pub(crate) const SWEEP_LARGE: Id = Id::new("size_sweep", "read-none", "65536");

/// Every id above.
pub(crate) const ALL: &[Id] = &[
    HEADLINE,
    HEADLINE_WRITE,
    HEADLINE_READ,
    FRAMING,
    FRAMES_SLICE,
    FRAMES_MMAP,
    READER_NEW,
    FILE_WRITE_BUFFERED,
    FILE_WRITE_RAW,
    FILE_READ,
    SWEEP_SMALL,
    SWEEP_LARGE,
];

/// Fails, naming them, if `snap` lacks any of [`ALL`].
pub(crate) fn require(snap: &Snapshot) -> Result<()> {
    let missing: Vec<String> = ALL
        .iter()
        .filter(|id| id.find(snap).is_none())
        .map(|id| format!("`{id}`"))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(format!(
        "{SNAPSHOT_PATH} has no benchmark {}, which the report reads by name\n\
         if a bench was renamed, rename it in xtask/src/ids.rs too; if it did not run, measure \
         again with `cargo xtask bench-report`",
        missing.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::sample;

    #[test]
    fn a_snapshot_with_every_id_passes() {
        require(&sample()).unwrap();
    }

    #[test]
    fn a_missing_id_is_named() {
        let mut snap = sample();
        snap.benches
            .retain(|b| b.id != "read_path/frames-slice/100");
        let err = require(&snap).unwrap_err();
        assert!(
            err.starts_with(
                "benches/snapshot.json has no benchmark `read_path/frames-slice/100`, which"
            ),
            "{err}"
        );

        snap.benches.retain(|b| b.group != "file_io");
        let err = require(&snap).unwrap_err();
        assert!(
            err.contains(
                "`read_path/frames-slice/100`, `file_io/write-bufwriter/4096`, \
                 `file_io/write-file/4096`, `file_io/read-file/4096`, which"
            ),
            "{err}"
        );
    }

    #[test]
    fn every_id_is_listed_once() {
        for (i, id) in ALL.iter().enumerate() {
            assert!(!ALL[..i].contains(id), "{id} twice");
        }
    }
}
