//! The errors of flatbuffers' verifier, and other libraries' messages, as clauses of ours.

use crate::limits::{MAX_DEPTH, MAX_TABLES};
use flatbuffers::{ErrorTraceDetail, InvalidFlatbuffer};

/// What a verifier's error says, one clause, and the byte of the innermost field it names.
pub(crate) fn describe(e: &InvalidFlatbuffer) -> (String, Option<usize>) {
    let (what, trace) = what(e);
    let at = trace.and_then(|t| {
        t.iter()
            .map(|step| match *step {
                ErrorTraceDetail::TableField { position, .. }
                | ErrorTraceDetail::VectorElement { position, .. }
                | ErrorTraceDetail::UnionVariant { position, .. } => position,
            })
            .next()
    });
    (what, at)
}

/// What an error says, and its trace if it has one.
fn what(e: &InvalidFlatbuffer) -> (String, Option<&[ErrorTraceDetail]>) {
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
        I::TooManyTables => {
            return (
                format!("it holds more than {MAX_TABLES} tables (each counted per reference)"),
                None,
            );
        }
        I::ApparentSizeTooLarge => {
            return (
                "its parts add up to more than 2 GiB (each counted per reference)".to_owned(),
                None,
            );
        }
        I::DepthLimitReached => {
            return (format!("its tables nest deeper than {MAX_DEPTH}"), None);
        }
        // `InvalidFlatbuffer` is not exhaustive in spirit: its own words, as one clause.
        #[allow(unreachable_patterns)]
        other => return (sentence(&other.to_string()), None),
    };
    (what, Some(trace.as_ref()))
}

/// A FlatBuffer verifier's error as one clause: where (the field's path from the root table,
/// `readings[2].name`, and its position in the payload) and what. The verifier's own Display
/// ends in a tab-indented trace, innermost field first, with a period after the message.
pub fn explain(e: &InvalidFlatbuffer) -> String {
    let (what, Some(trace)) = what(e) else {
        return what(e).0;
    };
    // The trace lists the innermost step first; a path reads from the root.
    let mut path = String::new();
    let mut at = None;
    for step in trace.iter().rev() {
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
