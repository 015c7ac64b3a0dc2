//! Framing detection for the commands: the library's [`detect`] (one rule for the command
//! line and SQL, run on an input's head by [`Input::open`](crate::input::Input::open)), its
//! results in the command's words, the framing a command reads with, and the hint after a
//! wrong `--checksum`.

use crate::damage::describe;
use crate::failure::Failure;
use flatstream::checksum::{AnyChecksum, ChecksumKind, Trial, TrialEnd};
pub(crate) use flatstream::checksum::{Detection, detect};

/// One line on what detection found, for reports: the library's words, but each framing's
/// failure in the command's words (see [`describe`]).
pub(crate) fn describe_detection(detection: &Detection) -> String {
    match detection {
        Detection::Found { kind, frames } => {
            format!("{kind} (detected: {frames} leading frames verify)")
        }
        Detection::Empty => "none needed: the input is empty (a stream of zero frames)".to_owned(),
        Detection::Ambiguous { .. } => format!("ambiguous: {detection}"),
        Detection::Unknown { trials } => {
            let failures: Vec<String> = trials
                .iter()
                .map(|t| format!("{}: {}", t.kind, failure(t)))
                .collect();
            format!(
                "unknown: no framing reads the leading frames ({})",
                failures.join("; ")
            )
        }
        other => format!("unknown: {other}"),
    }
}

/// What stopped a trial, in words: a frame's failure in the command's words (see
/// [`describe`]), anything else in the library's.
fn failure(t: &Trial) -> String {
    match &t.end {
        TrialEnd::Failed(e) => format!(
            "frame {} at byte offset {}: {}",
            t.frames,
            e.offset(),
            describe(e)
        ),
        _ => t.to_string(),
    }
}

/// The framing a command reads with, and how it was chosen.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Framing {
    pub(crate) kind: ChecksumKind,
    pub(crate) checksum: AnyChecksum,
    /// Whether it was detected (rather than given with `--checksum`).
    pub(crate) detected: bool,
    /// For a framing given: another one under which the leading frames verify, if any.
    other: Option<ChecksumKind>,
}

/// The framing to read with: `given`, or the one `detection` (of the input's head) found.
/// Fails (exit status 2) when it cannot be told; an empty input reads as no checksum.
pub(crate) fn resolve(
    given: Option<ChecksumKind>,
    detection: &Detection,
    option: &str,
) -> Result<Framing, Failure> {
    let (kind, detected, other) = match given {
        Some(kind) => {
            let other = match detection {
                Detection::Found { kind: found, .. } if *found != kind => Some(*found),
                _ => None,
            };
            (kind, false, other)
        }
        None => {
            let Some(kind) = detection.kind() else {
                return Err(Failure::error(format_args!(
                    "cannot tell the stream's framing: {}; pass {option} KIND",
                    describe_detection(detection)
                )));
            };
            (kind, true, None)
        }
    };
    let checksum = AnyChecksum::new(kind).map_err(Failure::error)?;
    Ok(Framing {
        kind,
        checksum,
        detected,
        other,
    })
}

/// For an error in the first frame read with a framing the user gave: "; did you mean
/// --checksum K?" if the leading frames verify under another framing, else nothing.
pub(crate) fn hint(framing: &Framing, offset: u64, option: &str) -> String {
    match framing.other {
        Some(kind) if !framing.detected && offset == 0 => {
            format!("; did you mean {option} {kind}?")
        }
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flatstream::checksum::Crc32;
    use flatstream::{ChecksumFramer, StreamWriter};

    const MAX: usize = 1 << 31;

    #[test]
    fn a_wrong_framing_given_gets_a_hint() {
        let mut writer = StreamWriter::new(Vec::new(), ChecksumFramer::new(Crc32));
        writer.write_payload(b"payload").unwrap();
        let bytes = writer.into_inner();
        let detection = detect(&bytes, true, MAX);
        let given = resolve(Some(ChecksumKind::XxHash64), &detection, "--checksum").unwrap();
        assert_eq!(
            hint(&given, 0, "--checksum"),
            "; did you mean --checksum crc32?"
        );
        assert_eq!(hint(&given, 9, "--checksum"), "");
        // Detected, or given as found: no hint.
        let detected = resolve(None, &detection, "--checksum").unwrap();
        assert_eq!(hint(&detected, 0, "--checksum"), "");
        let right = resolve(Some(ChecksumKind::Crc32), &detection, "--checksum").unwrap();
        assert_eq!(hint(&right, 0, "--checksum"), "");
    }

    #[test]
    fn an_unknown_framing_names_each_failure_in_the_commands_words() {
        let garbage: Vec<u8> = (0..64u8).map(|i| i.wrapping_mul(97) | 0x80).collect();
        let why = describe_detection(&detect(&garbage, true, 1024));
        assert!(
            why.starts_with("unknown: no framing reads the leading frames (none: frame 0 at byte offset 0: corrupt frame: its length declares a payload of"),
            "{why}"
        );
        for kind in ChecksumKind::ALL {
            assert!(why.contains(&format!("{kind}: ")), "{why}");
        }
    }
}
