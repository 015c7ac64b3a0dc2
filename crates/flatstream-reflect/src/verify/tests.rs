//! The verifier's reasons, on the fleet schema.

use crate::{Error, Verifier, parse, root_table};
use flatbuffers::FlatBufferBuilder;

const FLEET: &[u8] = include_bytes!("../../../../examples/fleet.bfbs");

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

fn verifier(table: Option<&str>) -> Verifier {
    let schema = parse(FLEET).unwrap();
    let root = root_table(&schema, table).unwrap();
    Verifier::new(&schema, root).unwrap()
}

fn reason(verifier: &Verifier, payload: &[u8]) -> String {
    match verifier.verify(payload) {
        Err(Error::InvalidBuffer { reason }) => reason,
        other => panic!("expected an invalid buffer, got {other:?}"),
    }
}

#[test]
fn a_buffer_of_the_root_table_verifies() {
    let payload = robot(Some("r2"), &["a", "bb"]);
    assert_eq!(verifier(None).verify(&payload), Ok(()));
}

#[test]
fn a_payload_shorter_than_a_root_offset_is_counted_in_bytes() {
    let schema = verifier(None);
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
    let schema = verifier(None);
    let why = reason(&schema, &spoil(robot(Some("r2"), &["a", "bb"]), "bb"));
    assert!(why.starts_with("field `tags[1]` at payload byte "), "{why}");
    assert!(why.contains("is not UTF-8"), "{why}");
    assert!(!why.contains('\n'), "{why}");

    let why = reason(&schema, &spoil(robot(Some("r2d2"), &[]), "r2d2"));
    assert!(why.starts_with("field `name` at payload byte "), "{why}");
}

#[test]
fn a_missing_required_field_is_named() {
    let schema = verifier(None);
    let why = reason(&schema, &robot(None, &["a"]));
    assert!(
        why.ends_with("the required field `name` is missing"),
        "{why}"
    );
}

#[test]
fn a_verifier_of_another_table_verifies_buffers_of_it() {
    let sensor = verifier(Some("Sensor"));
    let mut b = FlatBufferBuilder::new();
    let name = b.create_string("lidar");
    let table = b.start_table();
    b.push_slot_always(4, name);
    let table = b.end_table(table);
    b.finish_minimal(table);
    let payload = b.finished_data().to_vec();
    assert_eq!(sensor.verify(&payload), Ok(()));
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
        assert_eq!(crate::sentence(text), clause, "{text:?}");
    }
}
