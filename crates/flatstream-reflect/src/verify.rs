//! Verification of a buffer against a schema, and its errors as one clause.

use crate::error::{Error, Result};
use flatbuffers::{ErrorTraceDetail, InvalidFlatbuffer, VerifierOptions};
use flatbuffers_reflection::reflection;
use flatbuffers_reflection::{FlatbufferError, SafeBuffer};

/// Verifies that `payload` is a FlatBuffer of the schema's root table (see
/// [`reroot`](crate::reroot) for another table), within `options`' limits.
///
/// # Errors
///
/// [`Error::InvalidBuffer`], whose message is one clause: [`explain`]'s for a verification
/// error, a count of bytes for a payload too short to hold a root offset.
///
/// # Panics
///
/// Where `flatbuffers-reflection`'s verifier panics: it indexes a union's members with the
/// type it reads from the buffer, unchecked. A caller that verifies untrusted buffers of a
/// schema with unions catches the panic or checks the union types first.
pub fn verify(
    schema: &reflection::Schema<'_>,
    payload: &[u8],
    options: &VerifierOptions,
) -> Result<()> {
    let reason = if payload.len() < 4 {
        format!(
            "its {} bytes are too few for a FlatBuffer (4 at least, the offset of its root \
             table)",
            payload.len()
        )
    } else {
        match SafeBuffer::new_with_options(payload, schema, options) {
            Ok(_) => return Ok(()),
            Err(FlatbufferError::VerificationError(e)) => explain(&e),
            Err(e) => sentence(&e.to_string()),
        }
    };
    Err(Error::InvalidBuffer { reason })
}

/// A FlatBuffer verifier's error as one clause: where (the field's path from the root table,
/// `readings[2].name`, and its position in the payload) and what. The verifier's own Display
/// ends in a tab-indented trace, innermost field first, with a period after the message.
pub fn explain(e: &InvalidFlatbuffer) -> String {
    use InvalidFlatbuffer as I;
    let (what, trace) = match e {
        I::MissingRequiredField {
            required,
            error_trace,
        } => (
            format!("the required field `{required}` is missing"),
            error_trace,
        ),
        I::InconsistentUnion {
            field,
            field_type,
            error_trace,
        } => (
            format!("the union `{field}` and its type `{field_type}` are not both present"),
            error_trace,
        ),
        I::Utf8Error {
            error,
            range,
            error_trace,
        } => (
            format!(
                "the string at bytes {}..{} is not UTF-8 ({error})",
                range.start, range.end
            ),
            error_trace,
        ),
        I::MissingNullTerminator { range, error_trace } => (
            format!(
                "the string at bytes {}..{} has no terminating zero",
                range.start, range.end
            ),
            error_trace,
        ),
        I::Unaligned {
            position,
            unaligned_type,
            error_trace,
        } => (
            format!("the {unaligned_type} at byte {position} is not aligned for its type"),
            error_trace,
        ),
        I::RangeOutOfBounds { range, error_trace } => (
            format!(
                "bytes {}..{} are outside the payload",
                range.start, range.end
            ),
            error_trace,
        ),
        I::SignedOffsetOutOfBounds {
            soffset,
            position,
            error_trace,
        } => (
            format!("the offset {soffset} at byte {position} points outside the payload"),
            error_trace,
        ),
        I::TooManyTables => return "it holds more tables than the verifier allows".to_owned(),
        I::ApparentSizeTooLarge => {
            return "it is larger than the verifier allows".to_owned();
        }
        I::DepthLimitReached => {
            return "its tables nest deeper than the verifier allows".to_owned();
        }
        // `InvalidFlatbuffer` is not exhaustive in spirit: its own words, as one clause.
        #[allow(unreachable_patterns)]
        other => return sentence(&other.to_string()),
    };
    // The trace lists the innermost step first; a path reads from the root.
    let mut path = String::new();
    let mut at = None;
    for step in trace.as_ref().iter().rev() {
        match step {
            ErrorTraceDetail::TableField {
                field_name,
                position,
            } => {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(field_name);
                at = Some(*position);
            }
            ErrorTraceDetail::VectorElement { index, position } => {
                path.push_str(&format!("[{index}]"));
                at = Some(*position);
            }
            ErrorTraceDetail::UnionVariant { variant, position } => {
                path.push_str(&format!(" (as {variant})"));
                at = Some(*position);
            }
        }
    }
    match at {
        Some(at) => format!("field `{path}` at payload byte {at}: {what}"),
        None => what,
    }
}

/// A library's message as a clause: its first line, with a lowercase first letter and no
/// trailing period (`Range [0, 4) is out of bounds.` becomes `range [0, 4) is out of bounds`).
pub fn sentence(text: &str) -> String {
    let text = text
        .lines()
        .next()
        .unwrap_or("")
        .trim()
        .trim_end_matches('.');
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{parse, reroot, root_table};
    use flatbuffers::FlatBufferBuilder;

    const FLEET: &[u8] = include_bytes!("../../../examples/fleet.bfbs");

    /// A `fleet.Robot` named `name` with `tags`; `tags: [string]` is its field 5 (the union
    /// before it takes two slots, after it).
    fn robot(name: Option<&str>, tags: &[&str]) -> Vec<u8> {
        let mut b = FlatBufferBuilder::new();
        let name = name.map(|n| b.create_string(n));
        let tags: Vec<_> = tags.iter().map(|t| b.create_string(t)).collect();
        let tags = b.create_vector(&tags);
        let table = b.start_table();
        if let Some(name) = name {
            b.push_slot_always(6, name);
        }
        b.push_slot_always(14, tags);
        let table = b.end_table(table);
        b.finish_minimal(table);
        b.finished_data().to_vec()
    }

    /// `buf` with the first occurrence of `text` overwritten with bytes that are not UTF-8.
    fn spoil(mut buf: Vec<u8>, text: &str) -> Vec<u8> {
        let at = buf
            .windows(text.len())
            .position(|w| w == text.as_bytes())
            .expect("the text is in the buffer");
        buf[at..at + text.len()].fill(0xff);
        buf
    }

    fn reason(schema: &reflection::Schema<'_>, payload: &[u8]) -> String {
        match verify(schema, payload, &VerifierOptions::default()) {
            Err(Error::InvalidBuffer { reason }) => reason,
            other => panic!("expected an invalid buffer, got {other:?}"),
        }
    }

    #[test]
    fn a_buffer_of_the_root_table_verifies() {
        let schema = parse(FLEET).unwrap();
        let payload = robot(Some("r2"), &["a", "bb"]);
        assert_eq!(
            verify(&schema, &payload, &VerifierOptions::default()),
            Ok(())
        );
    }

    #[test]
    fn a_payload_shorter_than_a_root_offset_is_counted_in_bytes() {
        let schema = parse(FLEET).unwrap();
        for len in 0..4 {
            assert_eq!(
                reason(&schema, &vec![0; len]),
                format!(
                    "its {len} bytes are too few for a FlatBuffer (4 at least, the offset of \
                     its root table)"
                )
            );
        }
    }

    #[test]
    fn errors_name_the_path_from_the_root_and_the_payload_byte() {
        let schema = parse(FLEET).unwrap();
        let why = reason(&schema, &spoil(robot(Some("r2"), &["a", "bb"]), "bb"));
        assert!(why.starts_with("field `tags[1]` at payload byte "), "{why}");
        assert!(why.contains("is not UTF-8"), "{why}");
        assert!(!why.contains('\n'), "{why}");

        let why = reason(&schema, &spoil(robot(Some("r2d2"), &[]), "r2d2"));
        assert!(why.starts_with("field `name` at payload byte "), "{why}");
    }

    #[test]
    fn a_missing_required_field_is_named() {
        let schema = parse(FLEET).unwrap();
        let why = reason(&schema, &robot(None, &["a"]));
        assert!(
            why.ends_with("the required field `name` is missing"),
            "{why}"
        );
    }

    #[test]
    fn a_rerooted_copy_verifies_buffers_of_its_root() {
        let schema = parse(FLEET).unwrap();
        let copy = reroot(&schema, root_table(&schema, Some("Sensor")).unwrap());
        let sensor = parse(&copy).unwrap();
        let mut b = FlatBufferBuilder::new();
        let name = b.create_string("lidar");
        let table = b.start_table();
        b.push_slot_always(4, name);
        let table = b.end_table(table);
        b.finish_minimal(table);
        let payload = b.finished_data().to_vec();
        assert_eq!(
            verify(&sensor, &payload, &VerifierOptions::default()),
            Ok(())
        );
        let why = reason(&sensor, &spoil(payload, "lidar"));
        assert!(why.starts_with("field `name` at payload byte "), "{why}");
    }

    #[test]
    fn a_message_becomes_one_lowercase_clause() {
        for (text, clause) in [
            (
                "Range [0, 4) is out of bounds.\n\twhile verifying",
                "range [0, 4) is out of bounds",
            ),
            ("  Already a clause  ", "already a clause"),
            ("", ""),
            ("\nsecond line only", ""),
        ] {
            assert_eq!(sentence(text), clause, "{text:?}");
        }
    }
}
