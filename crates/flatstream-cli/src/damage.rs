//! The words for damage: one set for every command that meets it (`inspect`, `verify`,
//! `recover`, `salvage`, `tail`, `cat`), so that the same damage reads the same wherever it
//! is reported. Each comes after the frame's index and offset (`frame N at byte offset O: `)
//! and starts with the name of its kind:
//!
//! | kind | what it is |
//! |---|---|
//! | corrupt frame | a frame whose bytes are all there but fail its checksum, or whose length is over the bound |
//! | damaged length | a length that runs past the end of the input while intact frames follow it |
//! | torn tail | the input ends inside its last frame, with no intact frame after it: what a writer that died mid-frame leaves |
//! | ambiguous end | without a checksum, a length past the end after which the bytes parse as frames: a torn tail or a damaged length, which cannot be told apart |
//!
//! A range of bytes that a resynchronising reader (`verify --all`, `salvage`, `tail`) steps
//! over is named by the frame that starts it ([`range`]). Where a command stops at the first
//! damage, [`next`] says what lists the rest and what keeps the intact frames.

use flatstream::repair::StreamEnd;
use flatstream::{Deframer, Error, Frames};

/// What a command that reports only the first damage says next: what lists the rest, and
/// what keeps the intact frames (of a `checksummed` stream: without a checksum, nothing after
/// the damage can be told intact).
pub(crate) fn next(checksummed: bool) -> String {
    if checksummed {
        "`flatstream verify --all` lists every damaged range, `flatstream salvage` keeps every \
         intact frame"
            .to_owned()
    } else {
        "`flatstream recover` finds the intact frames before the damage (without a checksum, \
         none after it can be told intact)"
            .to_owned()
    }
}

/// A frame whose bytes are there but do not verify: `detail` says how (a checksum
/// mismatch, a length over the bound).
pub(crate) fn corrupt(detail: impl std::fmt::Display) -> String {
    format!("corrupt frame: {detail}")
}

/// The input ends inside the frame: `present` of its `needed` bytes (header included) are
/// there, and no intact frame after them.
pub(crate) fn torn_tail(needed: u64, present: u64) -> String {
    format!("torn tail: the stream ends inside it ({present} of its {needed} bytes present)")
}

/// The frame's length runs past the end of the input (`needed` bytes, header included), but
/// intact frames follow from `resumes_at`.
pub(crate) fn damaged_length(needed: u64, resumes_at: u64) -> String {
    format!(
        "damaged length: it declares {needed} bytes, past the end of the input, but intact \
         frames resume at byte offset {resumes_at}"
    )
}

/// Without a checksum: the frame's length runs past the end of the input, and the bytes from
/// `resumes_at` parse as frames up to the end.
pub(crate) fn ambiguous_end(needed: u64, resumes_at: u64) -> String {
    format!(
        "ambiguous end: it declares {needed} bytes, past the end of the input, and the bytes \
         from byte offset {resumes_at} parse as frames up to the end: a torn tail, or a \
         damaged length followed by intact frames, which a stream without a checksum cannot \
         tell apart"
    )
}

/// How a stream that [`Recover`] scanned ends, in words, with the JSON name of its kind
/// (`"clean"`, `"torn_tail"`, `"damaged"`, `"ambiguous"`, `"corrupt"`) and, for a damaged
/// length or an ambiguous end, where the frames after it start. `base` is the stream offset
/// of the bytes scanned; `None` words for a clean end.
pub(crate) fn end(end: &StreamEnd, base: u64) -> (&'static str, Option<String>, Option<u64>) {
    match end {
        StreamEnd::Clean => ("clean", None, None),
        StreamEnd::TornTail { needed, present } => {
            ("torn_tail", Some(torn_tail(*needed, *present)), None)
        }
        StreamEnd::Damaged {
            needed, resumes_at, ..
        } => {
            let at = base + resumes_at;
            ("damaged", Some(damaged_length(*needed, at)), Some(at))
        }
        StreamEnd::Ambiguous {
            needed, resumes_at, ..
        } => {
            let at = base + resumes_at;
            ("ambiguous", Some(ambiguous_end(*needed, at)), Some(at))
        }
        StreamEnd::Corrupt(e) => ("corrupt", Some(describe(e)), None),
        // `StreamEnd` may grow; a kind this command does not know is damage all the same.
        _ => (
            "corrupt",
            Some(corrupt("the stream's end is damaged")),
            None,
        ),
    }
}

/// A range of bytes that a resynchronising reader ([`Salvage`](flatstream::repair::Salvage))
/// stepped over, named by the frame that starts it, as a reader of the stream with the bound
/// `max` names it: `rest` runs from the range's first byte (where the intact frame before it
/// ends) to the end of the input, and intact frames resume `len` bytes on (at `resumes_at`),
/// unless the range runs to the end. A frame there that fails its checksum or `max` is a
/// corrupt frame; one whose length runs past the end is a torn tail if the range runs to the
/// end, else a damaged length. Bytes that start with none of them (a frame that verifies but
/// that the resynchronisation did not trust) are "damaged bytes".
///
/// No search, and no checksum over more than `bound` bytes, the bound the resynchronisation
/// trusted lengths within (so that hostile lengths cannot make each range cost the rest of the
/// input): a whole frame with a longer payload is named by its length.
pub(crate) fn range<D: Deframer>(
    rest: &[u8],
    len: u64,
    resumes_at: u64,
    deframer: D,
    max: usize,
    bound: usize,
) -> String {
    let to_end = len >= rest.len() as u64;
    let header = flatstream::framing::header_len(deframer.checksum_size());
    if let Some(&[a, b, c, d]) = rest.get(..4) {
        let claimed = u32::from_le_bytes([a, b, c, d]) as usize;
        let whole = header.saturating_add(claimed) <= rest.len();
        if whole && claimed > bound && claimed <= max {
            return corrupt(format_args!(
                "its length declares a payload of {claimed} bytes, over the bound of {bound}"
            ));
        }
    }
    match Frames::new(rest, deframer).with_max_frame_len(max).next() {
        Some(Err(Error::UnexpectedEof {
            needed, present, ..
        })) => {
            if to_end {
                torn_tail(needed, present)
            } else {
                damaged_length(needed, resumes_at)
            }
        }
        Some(Err(e)) if !e.is_content_error() => describe(&e),
        _ => "damaged bytes: no frame verifies in them".to_owned(),
    }
}

/// A frame's error in words, without the offset (the caller puts the frame's index and offset
/// first); damage in the words of this module.
pub(crate) fn describe(error: &Error) -> String {
    match error {
        Error::ChecksumMismatch {
            expected, actual, ..
        } => corrupt(format_args!(
            "checksum mismatch: stored {expected:#x}, computed {actual:#x}"
        )),
        Error::FrameTooLarge { len, max, .. } => corrupt(format_args!(
            "its length declares a payload of {len} bytes, over the bound of {max}"
        )),
        Error::UnexpectedEof {
            needed, present, ..
        } => torn_tail(*needed, *present),
        Error::InvalidFlatbuffer { error, .. } => {
            format!("invalid FlatBuffer: {}", flatstream_reflect::explain(error))
        }
        Error::Validation { details, .. } => format!("rejected: {details}"),
        Error::Io { source, .. } => format!("read error: {}", crate::failure::io_message(source)),
        other => other.to_string(),
    }
}
