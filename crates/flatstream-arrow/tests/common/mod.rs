//! What the conversion tests share: the example schemas, streams of payloads, and reading
//! an enum column back as names.
#![allow(dead_code, unreachable_pub)]

use arrow_array::cast::AsArray;
use arrow_array::types::{ArrowPrimitiveType, Int32Type};
use arrow_array::{Array, ArrayRef, PrimitiveArray, StructArray};
use flatstream::{DefaultDeframer, Frames};
use flatstream_arrow::BinarySchema;

/// A schema of examples/.
pub fn schema(name: &str) -> BinarySchema {
    BinarySchema::load(format!(
        "{}/../../examples/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

/// Frames without checksums around `payloads`.
pub fn stream(payloads: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::new();
    for p in payloads {
        out.extend_from_slice(&(p.len() as u32).to_le_bytes());
        out.extend_from_slice(p);
    }
    out
}

/// The frames of `bytes` as `(offset, payload)`.
pub fn frames(bytes: &[u8]) -> impl Iterator<Item = Result<(u64, &[u8]), flatstream::Error>> + '_ {
    let mut frames = Frames::new(bytes, DefaultDeframer);
    std::iter::from_fn(move || {
        let offset = frames.position();
        frames.next().map(|p| p.map(|p| (offset, p)))
    })
}

/// The name a dictionary-encoded enum column holds at `row`.
pub fn enum_name(column: &ArrayRef, row: usize) -> Option<String> {
    let dict = column.as_dictionary::<Int32Type>();
    if dict.is_null(row) {
        return None;
    }
    let key = dict.keys().value(row) as usize;
    Some(dict.values().as_string::<i32>().value(key).to_owned())
}

/// The member `name` of a struct column, as numbers of type `T`.
pub fn primitive<'a, T: ArrowPrimitiveType>(
    column: &'a StructArray,
    name: &str,
) -> &'a PrimitiveArray<T> {
    column
        .column_by_name(name)
        .unwrap_or_else(|| panic!("no member `{name}`"))
        .as_primitive::<T>()
}
