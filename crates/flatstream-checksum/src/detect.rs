//! Framing detection: which checksum (if any) a stream was written with, told from its leading
//! frames.

use alloc::vec::Vec;
use core::fmt;
use flatstream_core::{Checksum, ChecksumDeframer, Error, Frames};

use crate::{AnyChecksum, ChecksumKind};

/// How many leading frames [`detect`] reads under each framing at most.
pub const DETECT_FRAMES: u64 = 64;

/// The fewest leading bytes [`detect`] asks for ([`Detection::NeedMore`]): 64 KiB, the
/// [`DETECT_FRAMES`] leading frames in one read when their payloads are under 1 KiB.
pub const DETECT_HEAD_LEN: usize = 64 << 10;

/// Tells which checksum a stream was written with from `head`, its leading bytes (`complete`
/// if they are all of it), reading payloads bounded by `max_frame_len`.
///
/// The format does not record its checksum, so each framing this build includes reads up to
/// [`DETECT_FRAMES`] leading frames with [`Frames`]. A wrong framing fails fast: another
/// checksum width takes the wrong bytes for the checksum and the payload, the same width
/// computes another value, and reading a checksummed stream with no checksum puts the next
/// frame in the middle of a payload. So:
///
/// * the checksum that verifies frames that tell the framings apart (a non-empty payload, or
///   any payload for XXH3, whose checksum of nothing is not 0) is the stream's, even if damage
///   follows; if several do, the one that verified the most frames; a tie is
///   [`Ambiguity::Tie`];
/// * otherwise, frames that chain without a checksum to the end of `head` (or a few frames
///   before a torn tail) mean no checksum;
/// * frames whose payloads are all empty (zero bytes read as such) read alike under no
///   checksum and the CRCs, whose checksum of an empty payload is 0:
///   [`Ambiguity::EmptyPayloads`];
/// * an empty, complete input is [`Detection::Empty`]: any framing reads it.
///
/// Anything else is [`Detection::Unknown`], with what stopped each framing. Detection never
/// guesses: [`Display`](fmt::Display) on an ambiguous or unknown result says why.
///
/// # How many bytes
///
/// Detection does not depend on the leading frames fitting a fixed number of bytes. When the
/// framing cannot be told yet and `head` is not the whole input but ends inside a frame some
/// framing still reads (a first frame of 5 MiB in a 64 KiB head, say), the result is
/// [`Detection::NeedMore`] with the number of leading bytes to detect from: at least
/// [`DETECT_HEAD_LEN`], and enough for the frame each such framing is waiting for (bounded by
/// `max_frame_len`: a frame declaring more fails that framing). Read that many (or all of a
/// shorter input) and call `detect` again, from an empty `head` at first; each answer asks for
/// more than `head` holds, and a complete `head` never gets `NeedMore`. So every caller, the
/// command line and SQL alike, detects a file from the same leading bytes and finds the same
/// framing:
///
/// ```
/// use flatstream::checksum::{detect, Detection};
///
/// // The leading `len` bytes of the input, and whether they are all of it.
/// fn leading(input: &[u8], len: usize) -> (&[u8], bool) {
///     (&input[..len.min(input.len())], input.len() <= len)
/// }
///
/// let input = [5, 0, 0, 0, b'h', b'e', b'l', b'l', b'o'];
/// let mut len = 0;
/// let detection = loop {
///     let (head, complete) = leading(&input, len);
///     match detect(head, complete, 1 << 20) {
///         Detection::NeedMore { len: more } => len = more,
///         done => break done,
///     }
/// };
/// assert!(matches!(detection, Detection::Found { frames: 1, .. }));
/// ```
///
/// A whole input in memory needs no loop: `detect(&bytes, true, max)`.
///
/// ```
/// # #[cfg(feature = "crc32")]
/// # fn main() -> Result<(), flatstream::Error> {
/// use flatstream::checksum::{detect, AnyChecksum, ChecksumKind, Detection};
/// use flatstream::{ChecksumFramer, StreamWriter};
///
/// let checksum = AnyChecksum::new(ChecksumKind::Crc32).expect("crc32 is enabled");
/// let mut writer = StreamWriter::new(Vec::new(), ChecksumFramer::new(checksum));
/// writer.write_payload(b"first")?;
/// writer.write_payload(b"second")?;
/// let bytes = writer.into_inner();
///
/// let detection = detect(&bytes, true, 1 << 20);
/// assert!(matches!(detection, Detection::Found { kind: ChecksumKind::Crc32, frames: 2 }));
/// assert_eq!(detection.kind(), Some(ChecksumKind::Crc32));
///
/// // All zero bytes: empty frames under no checksum and every CRC alike.
/// let zeros = detect(&[0; 16], true, 1 << 20);
/// assert_eq!(zeros.kind(), None);
/// assert!(zeros.to_string().contains("all zero bytes"));
/// # Ok(())
/// # }
/// # #[cfg(not(feature = "crc32"))]
/// # fn main() {}
/// ```
pub fn detect(head: &[u8], complete: bool, max_frame_len: usize) -> Detection {
    if head.is_empty() && complete {
        return Detection::Empty;
    }
    // Each trial, and the leading bytes it waits for if the end of `head` stopped it.
    let (trials, waits): (Vec<Trial>, Vec<Option<usize>>) = ChecksumKind::ALL
        .into_iter()
        .filter(|kind| kind.is_enabled())
        .map(|kind| Trial::run(kind, head, complete, max_frame_len))
        .unzip();
    let detection = decide(head, trials);
    if detection.kind().is_some() {
        return detection;
    }
    // Undecided: if a framing stopped only because `head` ends inside its next frame, the
    // bytes after it may settle the question. Ask for that frame under every such framing.
    match waits.into_iter().flatten().max() {
        Some(wait) => Detection::NeedMore {
            len: wait.max(DETECT_HEAD_LEN),
        },
        None => detection,
    }
}

/// The rule of [`detect`] over the trials of `head`.
fn decide(head: &[u8], trials: Vec<Trial>) -> Detection {
    // A wrong checksum verifies a frame that tells the checksums apart only by chance (2^-16
    // for CRC-16, far less for the others), so a failure after such frames is damage in the
    // stream, not a sign of the wrong framing.
    let mut verified: Vec<&Trial> = trials
        .iter()
        .filter(|t| t.kind != ChecksumKind::None && t.is_evidence())
        .collect();
    verified.sort_by_key(|t| core::cmp::Reverse(t.frames));
    match verified.as_slice() {
        [one] => return Detection::found(one),
        [best, next, ..] if best.frames > next.frames => return Detection::found(best),
        [best, ..] => {
            return Detection::Ambiguous {
                candidates: verified
                    .iter()
                    .filter(|t| t.frames == best.frames)
                    .map(|t| t.kind)
                    .collect(),
                reason: Ambiguity::Tie {
                    frames: best.frames,
                },
            };
        }
        [] => {}
    }

    // No checksum verifies a telling payload. Without a checksum, accept frames that chain to
    // the end of the input or of the leading bytes, or a few frames before a torn tail (one
    // frame, then garbage, is what a checksummed stream read without its checksum looks like).
    if let Some(none) = trials.iter().find(|t| t.kind == ChecksumKind::None) {
        let chains = match none.end {
            TrialEnd::Enough | TrialEnd::Clean => none.frames > 0,
            TrialEnd::Torn => none.frames >= 4,
            TrialEnd::Failed(_) => false,
        };
        if chains && none.non_empty > 0 {
            return Detection::found(none);
        }
    }

    // Only empty payloads: every framing whose checksum of nothing is 0 reads them alike.
    let empty_only: Vec<&Trial> = trials
        .iter()
        .filter(|t| t.frames > 0 && t.non_empty == 0 && !matches!(t.end, TrialEnd::Failed(_)))
        .collect();
    if !empty_only.is_empty() {
        return Detection::Ambiguous {
            candidates: empty_only.iter().map(|t| t.kind).collect(),
            reason: Ambiguity::EmptyPayloads {
                frames: empty_only.iter().map(|t| t.frames).max().unwrap_or(0),
                all_zero: head.iter().all(|&b| b == 0),
            },
        };
    }
    Detection::Unknown { trials }
}

/// What [`detect`] made of a stream's leading bytes.
///
/// [`Display`](fmt::Display) writes one line on it, without the input's name: for an
/// ambiguous or unknown result, why the framing cannot be told.
#[derive(Debug)]
#[non_exhaustive]
pub enum Detection {
    /// One framing verifies the leading frames.
    Found {
        /// The stream's checksum.
        kind: ChecksumKind,
        /// How many leading frames it verified.
        frames: u64,
    },
    /// The input is empty: any framing reads it (as no frames).
    Empty,
    /// Several framings read the leading frames alike.
    Ambiguous {
        /// The framings that read them, in the order of [`ChecksumKind::ALL`].
        candidates: Vec<ChecksumKind>,
        /// Why they cannot be told apart.
        reason: Ambiguity,
    },
    /// No framing reads the leading frames.
    Unknown {
        /// What each framing this build includes made of them, in the order of
        /// [`ChecksumKind::ALL`].
        trials: Vec<Trial>,
    },
    /// The leading bytes given end inside a frame before the framing can be told: call
    /// [`detect`] again with the first `len` bytes of the input (or all of a shorter one).
    NeedMore {
        /// How many leading bytes to detect from: more than were given.
        len: usize,
    },
}

impl Detection {
    fn found(trial: &Trial) -> Self {
        Detection::Found {
            kind: trial.kind,
            frames: trial.frames,
        }
    }

    /// The framing to read with: the one found, or [`ChecksumKind::None`] for an empty input;
    /// `None` if it cannot be told.
    pub fn kind(&self) -> Option<ChecksumKind> {
        match self {
            Detection::Found { kind, .. } => Some(*kind),
            Detection::Empty => Some(ChecksumKind::None),
            Detection::Ambiguous { .. }
            | Detection::Unknown { .. }
            | Detection::NeedMore { .. } => None,
        }
    }
}

impl fmt::Display for Detection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Detection::Found { kind, frames } => {
                write!(f, "{kind}: {} verify", Plural(*frames, "leading frame"))
            }
            Detection::Empty => f.write_str("the input is empty (a stream of zero frames)"),
            Detection::Ambiguous {
                candidates,
                reason: Ambiguity::Tie { .. },
            } => write!(
                f,
                "the leading frames verify under {} alike",
                Names(candidates)
            ),
            Detection::Ambiguous {
                candidates,
                reason: Ambiguity::EmptyPayloads { frames, all_zero },
            } => {
                if *all_zero {
                    f.write_str("the input is all zero bytes")?;
                } else {
                    write!(f, "the {frames} leading frames all have empty payloads")?;
                }
                write!(
                    f,
                    ", which read as empty frames under {} alike (the checksum of an empty \
                     payload is 0 for the CRCs): no payload tells them apart",
                    Names(candidates)
                )
            }
            Detection::Unknown { trials } => {
                f.write_str("no framing reads the leading frames (")?;
                for (i, t) in trials.iter().enumerate() {
                    let sep = if i == 0 { "" } else { "; " };
                    write!(f, "{sep}{}: {t}", t.kind)?;
                }
                f.write_str(")")
            }
            Detection::NeedMore { len } => write!(
                f,
                "the leading frames run past the bytes read: detection needs the first {len} bytes"
            ),
        }
    }
}

/// Why [`detect`] cannot tell the framings in [`Detection::Ambiguous`] apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Ambiguity {
    /// Several checksums verify the same number of leading frames, some of them telling (a
    /// non-empty payload): a chance that damage after those frames did not settle.
    Tie {
        /// How many leading frames each verified.
        frames: u64,
    },
    /// The leading frames all have empty payloads, whose checksum is 0 under each CRC and
    /// nothing without a checksum.
    EmptyPayloads {
        /// How many leading frames were read.
        frames: u64,
        /// Whether the leading bytes are all zero.
        all_zero: bool,
    },
}

/// What one framing made of the leading bytes, in [`Detection::Unknown`].
///
/// [`Display`](fmt::Display) says what stopped it, in words.
#[derive(Debug)]
#[non_exhaustive]
pub struct Trial {
    /// The framing tried.
    pub kind: ChecksumKind,
    /// Frames read and verified.
    pub frames: u64,
    /// Of those, frames with a non-empty payload.
    pub non_empty: u64,
    /// What stopped it.
    pub end: TrialEnd,
}

/// What stopped a [`Trial`].
#[derive(Debug)]
#[non_exhaustive]
pub enum TrialEnd {
    /// The frame limit ([`DETECT_FRAMES`]), or the end of leading bytes that are not the whole
    /// input: no error.
    Enough,
    /// The input ended exactly after a frame.
    Clean,
    /// The input ends inside a frame.
    Torn,
    /// A frame failed: a checksum mismatch or a length over the bound. Its offset is the
    /// error's.
    Failed(Error),
}

impl Trial {
    /// Reads the leading frames of `head` under `kind`. With the trial, the number of leading
    /// bytes it waits for when the end of an incomplete `head` stopped it: the end of the frame
    /// that `head` cuts (or of the next header, if `head` ends between two frames).
    fn run(kind: ChecksumKind, head: &[u8], complete: bool, max: usize) -> (Trial, Option<usize>) {
        let mut t = Trial {
            kind,
            frames: 0,
            non_empty: 0,
            end: TrialEnd::Enough,
        };
        let Ok(checksum) = AnyChecksum::new(kind) else {
            return (t, None);
        };
        let header_len = flatstream_core::frame::header_len(checksum.size());
        let mut frames = Frames::new(head, ChecksumDeframer::new(checksum)).with_max_frame_len(max);
        while t.frames < DETECT_FRAMES {
            let mut wait = None;
            t.end = match frames.next() {
                Some(Ok(payload)) => {
                    t.frames += 1;
                    t.non_empty += u64::from(!payload.is_empty());
                    continue;
                }
                // Where the head ends, the input ends only if the head is all of it.
                None if complete => TrialEnd::Clean,
                Some(Err(Error::UnexpectedEof { .. })) if complete => TrialEnd::Torn,
                None => {
                    wait = Some(head.len().saturating_add(header_len));
                    TrialEnd::Enough
                }
                Some(Err(Error::UnexpectedEof { offset, needed, .. })) => {
                    let end = offset.saturating_add(needed);
                    wait = Some(usize::try_from(end).unwrap_or(usize::MAX));
                    TrialEnd::Enough
                }
                Some(Err(e)) => TrialEnd::Failed(e),
            };
            return (t, wait);
        }
        (t, None)
    }

    /// Whether the frames it verified tell its checksum from the others: a non-empty payload
    /// does; an empty one only if the checksum of nothing is not 0.
    fn is_evidence(&self) -> bool {
        let empty_checksum = AnyChecksum::new(self.kind).map_or(0, |c| c.calculate(&[]));
        self.non_empty > 0 || (self.frames > 0 && empty_checksum != 0)
    }
}

impl fmt::Display for Trial {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.end {
            TrialEnd::Failed(e) => write!(f, "frame {}: {e}", self.frames),
            TrialEnd::Torn if self.frames == 0 => {
                f.write_str("the first frame runs past the end of the input")
            }
            TrialEnd::Torn => write!(
                f,
                "{}, then one that runs past the end of the input",
                Plural(self.frames, "frame")
            ),
            TrialEnd::Clean | TrialEnd::Enough => write!(f, "{}", Plural(self.frames, "frame")),
        }
    }
}

/// "1 frame", "2 frames".
struct Plural(u64, &'static str);

impl fmt::Display for Plural {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = if self.0 == 1 { "" } else { "s" };
        write!(f, "{} {}{s}", self.0, self.1)
    }
}

/// "a, b and c".
struct Names<'a>(&'a [ChecksumKind]);

impl fmt::Display for Names<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some((last, rest)) = self.0.split_last() else {
            return Ok(());
        };
        for (i, kind) in rest.iter().enumerate() {
            let sep = if i == 0 { "" } else { ", " };
            write!(f, "{sep}{kind}")?;
        }
        let and = if rest.is_empty() { "" } else { " and " };
        write!(f, "{and}{last}")
    }
}

#[cfg(all(test, feature = "all"))]
mod tests {
    use super::*;
    use alloc::format;
    use alloc::string::ToString;
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

    const MAX: usize = 1 << 31;

    #[test]
    fn every_framing_is_detected_from_its_frames_whole_or_cut() {
        let payloads: [&[u8]; 3] = [b"first payload", b"", b"the third one, longer"];
        for kind in ChecksumKind::ALL {
            let bytes = stream(kind, &payloads);
            match detect(&bytes, true, MAX) {
                Detection::Found {
                    kind: found,
                    frames,
                } => assert_eq!((found, frames), (kind, 3), "{kind}"),
                other => panic!("{kind}: {other:?}"),
            }
            // The leading bytes of a longer input, cut inside a frame: still found.
            let cut = detect(&bytes[..bytes.len() - 3], false, MAX);
            assert_eq!(cut.kind(), Some(kind), "{kind} (cut): {cut:?}");
        }
    }

    #[test]
    fn empty_and_all_zero_inputs_are_ambiguous_and_say_why() {
        let empty = detect(&[], true, MAX);
        assert!(matches!(empty, Detection::Empty));
        assert_eq!(empty.kind(), Some(ChecksumKind::None));
        let zeros = detect(&[0; 48], true, MAX);
        match &zeros {
            Detection::Ambiguous { candidates, reason } => {
                use ChecksumKind::*;
                assert_eq!(candidates, &[None, Crc32, Crc16, Crc32c]);
                assert_eq!(
                    *reason,
                    Ambiguity::EmptyPayloads {
                        frames: 12,
                        all_zero: true
                    }
                );
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(zeros.kind(), Option::None);
        assert_eq!(
            zeros.to_string(),
            "the input is all zero bytes, which read as empty frames under none, crc32, crc16 \
             and crc32c alike (the checksum of an empty payload is 0 for the CRCs): no payload \
             tells them apart"
        );
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
            Detection::Ambiguous {
                reason: Ambiguity::EmptyPayloads { all_zero: true, .. },
                ..
            }
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
        let detection = detect(&garbage, true, 1024);
        let Detection::Unknown { trials } = &detection else {
            panic!("{detection:?}");
        };
        let kinds: Vec<ChecksumKind> = trials.iter().map(|t| t.kind).collect();
        assert_eq!(kinds, ChecksumKind::ALL);
        let why = detection.to_string();
        assert!(
            why.starts_with("no framing reads the leading frames ("),
            "{why}"
        );
        for kind in ChecksumKind::ALL {
            assert!(why.contains(&format!("{kind}: ")), "{why}");
        }
    }

    /// Detects `input` as a caller that reads leading bytes on demand does; also returns
    /// the leading bytes it read.
    fn detect_leading(input: &[u8], max: usize) -> (Detection, usize) {
        let mut len = 0;
        loop {
            let (head, complete) = (&input[..len.min(input.len())], input.len() <= len);
            match detect(head, complete, max) {
                Detection::NeedMore { len: more } => {
                    assert!(
                        more > head.len() && !complete,
                        "{more} after {}",
                        head.len()
                    );
                    len = more;
                }
                done => return (done, head.len()),
            }
        }
    }

    #[test]
    fn a_first_frame_larger_than_any_fixed_head_is_detected() {
        // 3 MiB of text, then small frames: a fixed head of 64 KiB or 1 MiB cuts the first.
        let large: Vec<u8> = b"abcdefghijklmnopqrstuvwxyz"
            .iter()
            .cycle()
            .take(3 << 20)
            .copied()
            .collect();
        for kind in ChecksumKind::ALL {
            let bytes = stream(kind, &[&large[..], b"second", b"third"]);
            // What a fixed head used to make of it: no framing reads a frame.
            let cut = detect(&bytes[..1 << 20], false, MAX);
            assert!(matches!(cut, Detection::NeedMore { .. }), "{kind}: {cut:?}");
            let (detection, read) = detect_leading(&bytes, MAX);
            assert_eq!(detection.kind(), Some(kind), "{kind}: {detection:?}");
            // The first frame, and no more than the widest header past it.
            assert!(read <= large.len() + 2 * 12, "{kind}: read {read}");
            // The first frame alone, the whole input: found too.
            let one = stream(kind, &[&large[..]]);
            assert_eq!(detect_leading(&one, MAX).0.kind(), Some(kind), "{kind}");
        }
    }

    #[test]
    fn more_bytes_are_asked_for_only_when_they_can_settle_it() {
        let bytes = stream(ChecksumKind::Crc32, &[b"one", b"two", b"three"]);
        // Decided from a head cut inside the third frame: no more asked for.
        assert!(matches!(
            detect(&bytes[..bytes.len() - 2], false, MAX),
            Detection::Found {
                kind: ChecksumKind::Crc32,
                frames: 2
            }
        ));
        // Nothing yet: at least DETECT_HEAD_LEN asked for.
        assert!(matches!(
            detect(&[], false, MAX),
            Detection::NeedMore {
                len: DETECT_HEAD_LEN
            }
        ));
        // A length over the bound fails every framing: unknown, whatever follows.
        let over = [
            0xff, 0xff, 0xff, 0x00, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
        ];
        assert!(matches!(
            detect(&over, false, 1 << 20),
            Detection::Unknown { .. }
        ));
        // Within the bound, the frame it declares is waited for, under every framing.
        let wait = detect(&over, false, 1 << 30);
        assert!(
            matches!(wait, Detection::NeedMore { len } if len == 0x00ff_ffff + 12),
            "{wait:?}"
        );
        assert_eq!(wait.kind(), Option::None);
        assert!(
            wait.to_string().contains("needs the first 16777227 bytes"),
            "{wait}"
        );
        // Empty frames up to the frame limit: ambiguous, no more asked for.
        let empties = stream(ChecksumKind::Crc32, &[&b""[..]; 80]);
        assert!(matches!(
            detect(&empties[..70 * 8], false, MAX),
            Detection::Ambiguous { .. }
        ));
    }

    #[test]
    fn trials_and_counts_read_as_words() {
        assert_eq!(Plural(1, "frame").to_string(), "1 frame");
        assert_eq!(Plural(0, "frame").to_string(), "0 frames");
        use ChecksumKind::*;
        assert_eq!(Names(&[Crc32]).to_string(), "crc32");
        assert_eq!(
            Names(&[None, Crc32, Crc16]).to_string(),
            "none, crc32 and crc16"
        );
        // A torn first frame: no checksum reads a length of 0x10 past the end of 6 bytes.
        let (torn, _) = Trial::run(None, &[0x10, 0, 0, 0, 1, 2], true, MAX);
        assert_eq!(
            torn.to_string(),
            "the first frame runs past the end of the input"
        );
    }
}
