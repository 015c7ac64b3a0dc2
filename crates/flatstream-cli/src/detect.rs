//! Framing detection: which checksum (if any) a stream was written with, told from its
//! leading frames.
//!
//! Each framing reads the leading bytes with [`Frames`]: the framing whose checksums verify
//! non-empty payloads is the stream's. A wrong framing fails fast: another checksum width
//! takes the wrong bytes for the checksum and the payload, the same width computes another
//! value, and reading a checksummed stream with no checksum puts the next frame in the middle
//! of a payload. Some inputs cannot be told apart, and detection says why rather than guess:
//! an empty input; frames whose payloads are all empty (all-zero bytes read as such), whose
//! checksum is 0 under CRC-32, CRC-32C and CRC-16 and nothing without a checksum.

use crate::failure::{Failure, count};
use crate::walk::describe;
use flatstream::checksum::{AnyChecksum, Checksum, ChecksumKind};
use flatstream::{ChecksumDeframer, Error, Frames};
use std::fmt::Write as _;

/// How many leading frames a trial reads at most.
const FRAMES: usize = 64;

/// What one framing made of the leading bytes.
#[derive(Debug)]
struct Trial {
    kind: ChecksumKind,
    /// Frames read and verified.
    frames: u64,
    /// Of those, frames with a non-empty payload: only they tell checksums apart.
    non_empty: u64,
    end: TrialEnd,
}

#[derive(Debug)]
enum TrialEnd {
    /// The trial stopped at its frame limit, or at the end of the leading bytes when they are
    /// not the whole input: no error.
    Enough,
    /// The input ended exactly after a frame.
    Clean,
    /// The input ends inside a frame.
    Torn,
    /// A frame failed: a checksum mismatch or a length over the bound.
    Failed(Error),
}

/// The outcome of detection.
#[derive(Debug)]
pub(crate) enum Detection {
    /// One framing verifies the leading frames.
    Found {
        kind: ChecksumKind,
        /// How many leading frames it verified.
        frames: u64,
    },
    /// The input is empty: any framing reads it.
    Empty,
    /// Several framings read the leading frames alike.
    Ambiguous {
        candidates: Vec<ChecksumKind>,
        why: String,
    },
    /// No framing reads the leading frames.
    Unknown { why: String },
}

impl Detection {
    /// One line on what was found, for reports.
    pub(crate) fn describe(&self) -> String {
        match self {
            Detection::Found { kind, frames } => {
                format!("{kind} (detected: {frames} leading frames verify)")
            }
            Detection::Empty => {
                "none needed: the input is empty (a stream of zero frames)".to_owned()
            }
            Detection::Ambiguous { why, .. } => format!("ambiguous: {why}"),
            Detection::Unknown { why } => format!("unknown: {why}"),
        }
    }
}

/// Tries every framing on `head`, the leading bytes of the input (`complete` if they are all
/// of it), with payloads bounded by `max`.
pub(crate) fn detect(head: &[u8], complete: bool, max: usize) -> Detection {
    if head.is_empty() && complete {
        return Detection::Empty;
    }
    let trials: Vec<Trial> = ChecksumKind::ALL
        .into_iter()
        .filter(|kind| kind.is_enabled())
        .map(|kind| trial(kind, head, complete, max))
        .collect();

    // Checksums that verified frames that tell them apart: a non-empty payload, or any
    // payload if the checksum of nothing is not 0 (as with XXH3). A wrong checksum verifies
    // such a frame only by chance (2^-16 for CRC-16, far less for the others), so a failure
    // after such frames is damage in the stream, not a sign of the wrong framing. The one
    // that verified the most frames wins; a tie is ambiguous.
    let mut verified: Vec<&Trial> = trials
        .iter()
        .filter(|t| t.kind != ChecksumKind::None && t.is_evidence())
        .collect();
    verified.sort_by_key(|t| std::cmp::Reverse(t.frames));
    match verified.as_slice() {
        [one] => {
            return Detection::Found {
                kind: one.kind,
                frames: one.frames,
            };
        }
        [best, next, ..] if best.frames > next.frames => {
            return Detection::Found {
                kind: best.kind,
                frames: best.frames,
            };
        }
        [best, ..] => {
            let tied: Vec<ChecksumKind> = verified
                .iter()
                .filter(|t| t.frames == best.frames)
                .map(|t| t.kind)
                .collect();
            return Detection::Ambiguous {
                why: format!(
                    "the leading frames verify under {} alike",
                    names(tied.iter().copied())
                ),
                candidates: tied,
            };
        }
        [] => {}
    }

    // No checksum verifies a non-empty payload. Without a checksum, accept frames that chain
    // to the end of the input or of the leading bytes, or a few frames before a torn tail
    // (one frame, then garbage, is what a checksummed stream read without its checksum looks
    // like).
    let none = trials.iter().find(|t| t.kind == ChecksumKind::None);
    if let Some(none) = none {
        let chains = match none.end {
            TrialEnd::Enough | TrialEnd::Clean => none.frames > 0,
            TrialEnd::Torn => none.frames >= 4,
            TrialEnd::Failed(_) => false,
        };
        if chains && none.non_empty > 0 {
            return Detection::Found {
                kind: ChecksumKind::None,
                frames: none.frames,
            };
        }
    }

    // Only empty payloads: every framing whose checksum of nothing is 0 reads them alike.
    let empty_only: Vec<&Trial> = trials
        .iter()
        .filter(|t| t.frames > 0 && t.non_empty == 0 && t.is_consistent())
        .collect();
    if !empty_only.is_empty() {
        let candidates: Vec<ChecksumKind> = empty_only.iter().map(|t| t.kind).collect();
        let what = if head.iter().all(|&b| b == 0) {
            "the input is all zero bytes".to_owned()
        } else {
            let frames = empty_only.iter().map(|t| t.frames).max().unwrap_or(0);
            format!("the {frames} leading frames all have empty payloads")
        };
        return Detection::Ambiguous {
            why: format!(
                "{what}, which read as empty frames under {} alike (the checksum of an empty \
                 payload is 0 for the CRCs): no payload tells them apart",
                names(candidates.iter().copied())
            ),
            candidates,
        };
    }

    let mut why = String::from("no framing reads the leading frames (");
    for (i, t) in trials.iter().enumerate() {
        let sep = if i == 0 { "" } else { "; " };
        let _ = write!(why, "{sep}{}: {}", t.kind, t.failure());
    }
    why.push(')');
    Detection::Unknown { why }
}

impl Trial {
    /// Whether nothing the trial read contradicts the framing.
    fn is_consistent(&self) -> bool {
        !matches!(self.end, TrialEnd::Failed(_))
    }

    /// Whether the frames it verified tell its checksum from the others: a non-empty
    /// payload does; an empty one only if the checksum of nothing is not 0.
    fn is_evidence(&self) -> bool {
        let empty_checksum = AnyChecksum::new(self.kind).map_or(0, |c| c.calculate(&[]));
        self.non_empty > 0 || (self.frames > 0 && empty_checksum != 0)
    }

    /// What stopped the trial, in words.
    fn failure(&self) -> String {
        match &self.end {
            TrialEnd::Failed(e) => format!(
                "frame {} at byte offset {}: {}",
                self.frames,
                e.offset(),
                describe(e)
            ),
            TrialEnd::Torn if self.frames == 0 => {
                "the first frame runs past the end of the input".to_owned()
            }
            TrialEnd::Torn => format!(
                "{}, then one that runs past the end of the input",
                count(self.frames, "frame")
            ),
            TrialEnd::Clean | TrialEnd::Enough => count(self.frames, "frame"),
        }
    }
}

fn trial(kind: ChecksumKind, head: &[u8], complete: bool, max: usize) -> Trial {
    let checksum = AnyChecksum::new(kind).expect("only enabled kinds are tried");
    let mut frames = Frames::new(head, ChecksumDeframer::new(checksum)).with_max_frame_len(max);
    let mut t = Trial {
        kind,
        frames: 0,
        non_empty: 0,
        end: TrialEnd::Enough,
    };
    while t.frames < FRAMES as u64 {
        t.end = match frames.next() {
            Some(Ok(payload)) => {
                t.frames += 1;
                t.non_empty += u64::from(!payload.is_empty());
                continue;
            }
            // Where the head ends, the input ends only if the head is all of it.
            None if complete => TrialEnd::Clean,
            Some(Err(Error::UnexpectedEof { .. })) if complete => TrialEnd::Torn,
            None | Some(Err(Error::UnexpectedEof { .. })) => TrialEnd::Enough,
            Some(Err(e)) => TrialEnd::Failed(e),
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

/// The framing a command reads with, and how it was chosen.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Framing {
    pub(crate) kind: ChecksumKind,
    pub(crate) checksum: AnyChecksum,
    /// Whether it was detected (rather than given with `--checksum`).
    pub(crate) detected: bool,
}

/// The framing to read with: `given`, or detected from `head`. Fails (exit status 2) when it
/// cannot be told; an empty input reads as no checksum.
pub(crate) fn resolve(
    given: Option<ChecksumKind>,
    head: &[u8],
    complete: bool,
    max: usize,
    option: &str,
) -> Result<Framing, Failure> {
    let (kind, detected) = match given {
        Some(kind) => (kind, false),
        None => match detect(head, complete, max) {
            Detection::Found { kind, .. } => (kind, true),
            Detection::Empty => (ChecksumKind::None, true),
            other => {
                return Err(Failure::error(format_args!(
                    "cannot tell the stream's framing: {}; pass {option} KIND",
                    other.describe()
                )));
            }
        },
    };
    let checksum = AnyChecksum::new(kind).map_err(Failure::error)?;
    Ok(Framing {
        kind,
        checksum,
        detected,
    })
}

/// For an error in the first frame read with a framing the user gave: "; did you mean
/// --checksum K?" if the leading frames verify under another framing, else nothing.
pub(crate) fn hint(
    framing: &Framing,
    offset: u64,
    head: &[u8],
    complete: bool,
    max: usize,
    option: &str,
) -> String {
    if framing.detected || offset != 0 {
        return String::new();
    }
    match detect(head, complete, max) {
        Detection::Found { kind, .. } if kind != framing.kind => {
            format!("; did you mean {option} {kind}?")
        }
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flatstream::{ChecksumFramer, StreamWriter};

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

    const MAX: usize = 1 << 31;

    #[test]
    fn every_framing_is_detected_from_its_frames() {
        let payloads: [&[u8]; 3] = [b"first payload", b"", b"the third one, longer"];
        for kind in ChecksumKind::ALL {
            let bytes = stream(kind, &payloads);
            match detect(&bytes, true, MAX) {
                Detection::Found {
                    kind: found,
                    frames,
                } => {
                    assert_eq!((found, frames), (kind, 3), "{kind}");
                }
                other => panic!("{kind}: {other:?}"),
            }
            // The leading bytes of a longer input, cut inside a frame: still found.
            match detect(&bytes[..bytes.len() - 3], false, MAX) {
                Detection::Found { kind: found, .. } => assert_eq!(found, kind, "{kind}"),
                other => panic!("{kind} (cut): {other:?}"),
            }
        }
    }

    #[test]
    fn empty_and_all_zero_inputs_are_ambiguous_and_say_why() {
        assert!(matches!(detect(&[], true, MAX), Detection::Empty));
        match detect(&[0; 48], true, MAX) {
            Detection::Ambiguous { candidates, why } => {
                use ChecksumKind::*;
                assert_eq!(candidates, [None, Crc32, Crc16, Crc32c]);
                assert!(why.contains("all zero bytes"), "{why}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn empty_payloads_tell_xxhash_apart_but_not_the_crcs() {
        // XXH3 of nothing is not 0: its empty frames verify under it alone.
        let bytes = stream(ChecksumKind::XxHash64, &[b"", b""]);
        assert!(matches!(
            detect(&bytes, true, MAX),
            Detection::Found {
                kind: ChecksumKind::XxHash64,
                frames: 2
            }
        ));
        // A CRC of nothing is 0: empty frames are zero bytes, read alike by every CRC and none.
        let bytes = stream(ChecksumKind::Crc32c, &[b"", b""]);
        assert!(bytes.iter().all(|&b| b == 0));
        assert!(matches!(
            detect(&bytes, true, MAX),
            Detection::Ambiguous { .. }
        ));
    }

    #[test]
    fn damage_after_the_first_frame_does_not_hide_the_framing() {
        let mut bytes = stream(ChecksumKind::Crc32, &[b"one", b"two", b"three"]);
        bytes[4 + 4 + 3 + 4 + 4] ^= 1; // the second payload
        assert!(matches!(
            detect(&bytes, true, MAX),
            Detection::Found {
                kind: ChecksumKind::Crc32,
                frames: 1
            }
        ));
    }

    #[test]
    fn garbage_is_unknown_with_each_framings_failure() {
        let garbage: Vec<u8> = (0..64u8).map(|i| i.wrapping_mul(97) | 0x80).collect();
        match detect(&garbage, true, 1024) {
            Detection::Unknown { why } => {
                for kind in ChecksumKind::ALL {
                    assert!(why.contains(&format!("{kind}: ")), "{why}");
                }
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_wrong_framing_given_gets_a_hint() {
        let bytes = stream(ChecksumKind::Crc32, &[b"payload"]);
        let given = resolve(
            Some(ChecksumKind::XxHash64),
            &bytes,
            true,
            MAX,
            "--checksum",
        )
        .unwrap();
        assert_eq!(
            hint(&given, 0, &bytes, true, MAX, "--checksum"),
            "; did you mean --checksum crc32?"
        );
        assert_eq!(hint(&given, 9, &bytes, true, MAX, "--checksum"), "");
    }
}
