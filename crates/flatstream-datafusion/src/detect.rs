//! Which checksum a file was written with, told from its leading bytes: the rule of
//! `flatstream inspect` (crates/flatstream-cli/src/detect.rs), so that the command line and
//! SQL agree on every file.
//!
//! Each framing reads up to [`FRAMES`] leading frames with [`Frames`]; the one whose
//! checksums verify non-empty payloads (or, for XXH3, any payload: its checksum of nothing is
//! not 0) is the file's, the one that verified the most frames if several did. Without such
//! a frame, frames that chain without a checksum mean no checksum. Otherwise detection says
//! why it cannot tell rather than guess. Every partition of a file runs it on the same
//! leading bytes, so every partition reads with the same framing.

use flatstream_checksum::{AnyChecksum, ChecksumKind};
use flatstream_core::{Checksum, ChecksumDeframer, Error, Frames};

/// How many leading frames a trial reads at most.
const FRAMES: u64 = 64;

/// The leading bytes detection reads: enough for [`FRAMES`] frames of up to 1 KiB.
pub(crate) const HEAD: u64 = 64 << 10;

/// What one framing made of the leading bytes.
struct Trial {
    kind: ChecksumKind,
    frames: u64,
    non_empty: u64,
    end: End,
}

enum End {
    /// The frame limit, or the end of leading bytes that are not the whole file.
    Enough,
    /// The file ended exactly after a frame.
    Clean,
    /// The file ends inside a frame.
    Torn,
    /// A frame failed.
    Failed(Error),
}

/// The framing of a file whose leading bytes are `head` (`complete` if they are the whole
/// file), payloads bounded by `max`; `Err` says why it cannot be told. An empty file reads as
/// no checksum.
pub(crate) fn detect(head: &[u8], complete: bool, max: usize) -> Result<ChecksumKind, String> {
    if head.is_empty() && complete {
        return Ok(ChecksumKind::None);
    }
    let trials: Vec<Trial> = ChecksumKind::ALL
        .into_iter()
        .filter(|kind| kind.is_enabled())
        .map(|kind| trial(kind, head, complete, max))
        .collect();

    let mut verified: Vec<&Trial> = trials
        .iter()
        .filter(|t| t.kind != ChecksumKind::None && t.is_evidence())
        .collect();
    verified.sort_by_key(|t| std::cmp::Reverse(t.frames));
    match verified.as_slice() {
        [one] => return Ok(one.kind),
        [best, next, ..] if best.frames > next.frames => return Ok(best.kind),
        [best, ..] => {
            let tied = verified
                .iter()
                .filter(|t| t.frames == best.frames)
                .map(|t| t.kind);
            return Err(format!(
                "the leading frames verify under {} alike",
                names(tied)
            ));
        }
        [] => {}
    }

    if let Some(none) = trials.iter().find(|t| t.kind == ChecksumKind::None) {
        let chains = match none.end {
            End::Enough | End::Clean => none.frames > 0,
            End::Torn => none.frames >= 4,
            End::Failed(_) => false,
        };
        if chains && none.non_empty > 0 {
            return Ok(ChecksumKind::None);
        }
    }

    let empty_only: Vec<&Trial> = trials
        .iter()
        .filter(|t| t.frames > 0 && t.non_empty == 0 && !matches!(t.end, End::Failed(_)))
        .collect();
    if !empty_only.is_empty() {
        return Err(format!(
            "the leading frames all have empty payloads, which read alike under {} (the \
             checksum of an empty payload is 0 for the CRCs)",
            names(empty_only.iter().map(|t| t.kind))
        ));
    }

    let failures: Vec<String> = trials
        .iter()
        .map(|t| format!("{}: {}", t.kind, t.failure()))
        .collect();
    Err(format!(
        "no framing reads the leading frames ({})",
        failures.join("; ")
    ))
}

impl Trial {
    fn is_evidence(&self) -> bool {
        let empty = AnyChecksum::new(self.kind).map_or(0, |c| c.calculate(&[]));
        self.non_empty > 0 || (self.frames > 0 && empty != 0)
    }

    fn failure(&self) -> String {
        match &self.end {
            End::Failed(e) => format!("frame {}: {e}", self.frames),
            End::Torn => format!(
                "{} frames, then one that runs past the end of the file",
                self.frames
            ),
            End::Clean | End::Enough => format!("{} frames", self.frames),
        }
    }
}

fn trial(kind: ChecksumKind, head: &[u8], complete: bool, max: usize) -> Trial {
    let mut t = Trial {
        kind,
        frames: 0,
        non_empty: 0,
        end: End::Enough,
    };
    let Ok(checksum) = AnyChecksum::new(kind) else {
        return t;
    };
    let mut frames = Frames::new(head, ChecksumDeframer::new(checksum)).with_max_frame_len(max);
    while t.frames < FRAMES {
        t.end = match frames.next() {
            Some(Ok(payload)) => {
                t.frames += 1;
                t.non_empty += u64::from(!payload.is_empty());
                continue;
            }
            None if complete => End::Clean,
            Some(Err(Error::UnexpectedEof { .. })) if complete => End::Torn,
            None | Some(Err(Error::UnexpectedEof { .. })) => End::Enough,
            Some(Err(e)) => End::Failed(e),
        };
        return t;
    }
    t
}

/// "a, b and c".
fn names(kinds: impl Iterator<Item = ChecksumKind>) -> String {
    let names: Vec<&str> = kinds.map(ChecksumKind::name).collect();
    match names.split_last() {
        Some((last, [])) => (*last).to_owned(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flatstream_core::{ChecksumFramer, StreamWriter};

    fn stream(kind: ChecksumKind, payloads: &[&[u8]]) -> Vec<u8> {
        let mut w = StreamWriter::new(
            Vec::new(),
            ChecksumFramer::new(AnyChecksum::new(kind).unwrap()),
        );
        for p in payloads {
            w.write_payload(p).unwrap();
        }
        w.into_inner()
    }

    #[test]
    fn every_framing_is_detected_from_its_frames_whole_or_cut() {
        let payloads: [&[u8]; 3] = [b"first payload", b"", b"the third one, longer"];
        for kind in ChecksumKind::ALL {
            let bytes = stream(kind, &payloads);
            assert_eq!(detect(&bytes, true, 1 << 31), Ok(kind));
            assert_eq!(detect(&bytes[..bytes.len() - 3], false, 1 << 31), Ok(kind));
        }
    }

    #[test]
    fn empty_payloads_and_garbage_say_why() {
        let zeros = stream(ChecksumKind::Crc32, &[b"", b""]);
        let why = detect(&zeros, true, 1 << 31).unwrap_err();
        assert!(why.contains("empty payloads"), "{why}");
        let garbage: Vec<u8> = (0..64u8).map(|i| i.wrapping_mul(97) | 0x80).collect();
        let why = detect(&garbage, true, 1024).unwrap_err();
        assert!(why.starts_with("no framing reads"), "{why}");
        assert_eq!(detect(&[], true, 1024), Ok(ChecksumKind::None));
    }
}
