//! The structural validator on nested payloads: what a root-only check misses, and random
//! well-formed trees it must accept.

use flatbuffers::{FlatBufferBuilder, WIPOffset};
use flatstream_adapters::{StructuralValidator, Validator};
use flatstream_core::Error;
use proptest::prelude::*;

/// root { child: { name: string, tags: [u8], count: ulong } }
fn nested() -> Vec<u8> {
    let mut b = FlatBufferBuilder::new();
    let name = b.create_string("grandchild-string");
    let tags = b.create_vector(&[1u8, 2, 3, 4, 5]);
    let start = b.start_table();
    b.push_slot::<u64>(8, 99, 0);
    b.push_slot_always(4, name);
    b.push_slot_always(6, tags);
    let child = b.end_table(start);
    let start = b.start_table();
    b.push_slot::<f64>(6, 1.5, 0.0);
    b.push_slot_always(4, child);
    let root = b.end_table(start);
    b.finish(root, None);
    b.finished_data().to_vec()
}

fn position(hay: &[u8], needle: &[u8]) -> usize {
    hay.windows(needle.len()).position(|w| w == needle).unwrap()
}

fn structure_error(payload: &[u8]) -> String {
    match StructuralValidator::new()
        .validate(payload, 64)
        .unwrap_err()
    {
        Error::Validation { details, offset } => {
            assert_eq!((details.validator.as_ref(), offset), ("structure", 64));
            details.reason.into_owned()
        }
        e => panic!("{e}"),
    }
}

/// A root-only check accepts `payload`; the full check finds the damage below the root.
fn assert_caught_below_the_root(payload: &[u8]) {
    StructuralValidator::new()
        .root_only()
        .validate(payload, 0)
        .unwrap();
    assert!(structure_error(payload).contains("neither a table nor a vector"));
}

#[test]
fn a_nested_string_running_past_the_end_is_caught_below_the_root() {
    let mut payload = nested();
    StructuralValidator::new().validate(&payload, 0).unwrap();
    let at = position(&payload, b"grandchild") - 4;
    payload[at..at + 4].copy_from_slice(&10_000u32.to_le_bytes());
    assert_caught_below_the_root(&payload);
}

#[test]
fn a_nested_vector_running_past_the_end_is_caught_below_the_root() {
    let mut payload = nested();
    let at = position(&payload, &[5, 0, 0, 0, 1, 2, 3, 4, 5]);
    let len = u32::try_from(payload.len()).unwrap();
    payload[at..at + 4].copy_from_slice(&len.to_le_bytes());
    assert_caught_below_the_root(&payload);
}

#[test]
fn a_nested_table_with_a_field_outside_it_reads_as_the_vector_it_could_be() {
    let clean = nested();
    let root = u32::from_le_bytes(clean[..4].try_into().unwrap()) as usize;
    let child_slot = (root + 4..).step_by(4).find(|&slot| {
        // The root's reference: the one 4-byte value leading to a table past the root.
        let v = u32::from_le_bytes(clean[slot..slot + 4].try_into().unwrap()) as usize;
        v > 0 && v < 64 && slot + v < clean.len() && (slot + v) % 4 == 0
    });
    let child =
        child_slot.map(|s| s + u32::from_le_bytes(clean[s..s + 4].try_into().unwrap()) as usize);
    let child = child.unwrap();
    let soffset = i32::from_le_bytes(clean[child..child + 4].try_into().unwrap());
    let vtable = usize::try_from(child as i64 - i64::from(soffset)).unwrap();
    // The child's first field entry now points far outside the child.
    let mut payload = clean.clone();
    payload[vtable + 4..vtable + 6].copy_from_slice(&500u16.to_le_bytes());
    // Without a schema this is also a vector whose count is the child's header (the bytes
    // just before a vector may look like a vtable, as random valid messages showed): it is
    // accepted as such, as documented.
    StructuralValidator::new().validate(&payload, 0).unwrap();
}

#[derive(Debug, Clone)]
enum Field {
    Byte(u8),
    Short(u16),
    Long(u64),
    Double(f64),
    Text(String),
    Bytes(Vec<u8>),
    Longs(Vec<u64>),
    Table(Box<Tree>),
}

#[derive(Debug, Clone)]
struct Tree(Vec<Field>);

fn tree() -> impl Strategy<Value = Tree> {
    let leaf = prop_oneof![
        any::<u8>().prop_map(Field::Byte),
        any::<u16>().prop_map(Field::Short),
        any::<u64>().prop_map(Field::Long),
        any::<f64>().prop_map(Field::Double),
        ".{0,40}".prop_map(Field::Text),
        proptest::collection::vec(any::<u8>(), 0..40).prop_map(Field::Bytes),
        proptest::collection::vec(any::<u64>(), 0..8).prop_map(Field::Longs),
    ];
    let fields = proptest::collection::vec(leaf.clone(), 0..8).prop_map(Tree);
    fields.prop_recursive(5, 64, 8, move |inner| {
        proptest::collection::vec(
            prop_oneof![leaf.clone(), inner.prop_map(|t| Field::Table(Box::new(t)))],
            0..8,
        )
        .prop_map(Tree)
    })
}

/// Builds `tree` the way flatc's generated code does: children first, then the table's fields
/// from the widest to the narrowest.
fn build(
    b: &mut FlatBufferBuilder<'_>,
    tree: &Tree,
) -> WIPOffset<flatbuffers::TableFinishedWIPOffset> {
    enum Slot {
        Offset(WIPOffset<flatbuffers::UnionWIPOffset>),
        Scalar,
    }
    let children: Vec<Slot> = tree
        .0
        .iter()
        .map(|f| match f {
            Field::Text(s) => Slot::Offset(b.create_string(s).as_union_value()),
            Field::Bytes(v) => Slot::Offset(b.create_vector(v).as_union_value()),
            Field::Longs(v) => Slot::Offset(b.create_vector(v).as_union_value()),
            Field::Table(t) => Slot::Offset(build(b, t).as_union_value()),
            _ => Slot::Scalar,
        })
        .collect();
    let start = b.start_table();
    let slot = |i: usize| u16::try_from(4 + 2 * i).unwrap();
    for width in [8, 4, 2, 1] {
        for (i, (field, child)) in tree.0.iter().zip(&children).enumerate() {
            match (width, field, child) {
                (8, Field::Long(v), _) => b.push_slot_always(slot(i), *v),
                (8, Field::Double(v), _) => b.push_slot_always(slot(i), *v),
                (4, _, Slot::Offset(o)) => b.push_slot_always(slot(i), *o),
                (2, Field::Short(v), _) => b.push_slot_always(slot(i), *v),
                (1, Field::Byte(v), _) => b.push_slot_always(slot(i), *v),
                _ => {}
            }
        }
    }
    b.end_table(start)
}

proptest! {
    #[test]
    fn accepts_every_tree_without_4_byte_scalars(tree in tree()) {
        let mut b = FlatBufferBuilder::new();
        let root = build(&mut b, &tree);
        b.finish(root, None);
        let deep = flatbuffers::VerifierOptions { max_depth: 16, ..Default::default() };
        let verdict = StructuralValidator::with_options(deep).validate(b.finished_data(), 0);
        prop_assert!(verdict.is_ok(), "{:?}", verdict);
    }

    #[test]
    fn never_panics_on_corrupted_trees(tree in tree(), at in any::<prop::sample::Index>(), byte in any::<u8>()) {
        let mut b = FlatBufferBuilder::new();
        let root = build(&mut b, &tree);
        b.finish(root, None);
        let mut payload = b.finished_data().to_vec();
        let i = at.index(payload.len());
        payload[i] = byte;
        let _ = StructuralValidator::new().validate(&payload, 0);
        let _ = StructuralValidator::new().validate(&payload[..i], 0);
    }
}
