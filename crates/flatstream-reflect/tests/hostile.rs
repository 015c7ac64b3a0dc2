//! Hostile schemas and payloads through the one verifier: a damaged or hostile schema is a
//! typed error when it is loaded, never a panic; a payload that would be large to read is
//! rejected; and what the verifier passes, `flatbuffers-reflection`'s verifier (the oracle)
//! passes too.

use flatstream_reflect::{Error, Verifier, parse, reroot, root_table};
use flatstream_test_support::hostile::{self, Expect};

const SCHEMAS: [&[u8]; 3] = [
    include_bytes!("../../../examples/fleet.bfbs"),
    include_bytes!("../../../examples/telemetry.bfbs"),
    include_bytes!("../../../examples/shapes.bfbs"),
];

/// The oracle: `flatbuffers-reflection`'s verdict on `payload` as object `root` of `schema`,
/// or `None` if it panics (it indexes a union's members with the type it reads).
fn reflection_accepts(schema: &[u8], root: usize, payload: &[u8]) -> Option<bool> {
    let parsed = parse(schema).ok()?;
    let copy = reroot(&parsed, root);
    let rooted = flatbuffers_reflection::reflection::root_as_schema(&copy).ok()?;
    std::panic::catch_unwind(|| flatbuffers_reflection::SafeBuffer::new(payload, &rooted).is_ok())
        .ok()
}

fn one_line(e: &Error) -> String {
    let text = e.to_string();
    assert!(!text.contains('\n') && !text.is_empty(), "{text:?}");
    assert!(
        !text.contains("panicked") && !text.contains("assertion"),
        "{text}"
    );
    text
}

#[test]
fn every_hostile_case_is_refused_or_verified_as_expected() {
    for case in hostile::cases() {
        let name = &case.name;
        let parsed = parse(&case.bfbs);
        if case.schema == Expect::Refused {
            let e = parsed.err().unwrap_or_else(|| panic!("{name}: loaded"));
            one_line(&e);
            continue;
        }
        let schema = parsed.unwrap_or_else(|e| panic!("{name}: {e}"));
        let root = root_table(&schema, None).unwrap();
        let verifier = Verifier::new(&schema, root).unwrap();
        for (i, (payload, expect)) in case.payloads.iter().enumerate() {
            let verdict = verifier.verify(payload);
            if let Err(e) = &verdict {
                one_line(e);
            }
            match expect {
                Expect::Valid => assert!(verdict.is_ok(), "{name} #{i}: {verdict:?}"),
                Expect::Invalid => assert!(verdict.is_err(), "{name} #{i}: passed"),
                _ => {}
            }
            if verdict.is_ok() {
                assert_eq!(
                    reflection_accepts(&case.bfbs, root, payload),
                    Some(true),
                    "{name} #{i}: the verifier passes what reflection's rejects"
                );
            }
        }
    }
}

#[test]
fn an_amplifying_payload_fails_on_its_budget_and_says_so() {
    let bfbs = hostile::Spec::rooted(vec![
        hostile::table(
            "h.Root",
            vec![hostile::vector(
                "items",
                flatbuffers_reflection::reflection::BaseType::Obj,
                1,
                4,
            )],
        ),
        hostile::table(
            "h.Item",
            vec![hostile::field(
                "name",
                flatbuffers_reflection::reflection::BaseType::String,
                4,
            )],
        ),
    ])
    .bfbs();
    let schema = parse(&bfbs).unwrap();
    let verifier = Verifier::new(&schema, 0).unwrap();
    let payload = hostile::shared_items(200_000, 20_000);
    // flatbuffers-reflection's verifier visits the shared table once: it passes.
    assert_eq!(reflection_accepts(&bfbs, 0, &payload), Some(true));
    let why = verifier.verify(&payload).unwrap_err().to_string();
    assert!(why.contains("budget"), "{why}");
    assert!(why.starts_with("field `items["), "{why}");
    // Within the budget, shared references are fine.
    let small = hostile::shared_items(1_000, 1_000);
    assert_eq!(verifier.verify(&small), Ok(()));
    assert_eq!(
        flatstream_reflect::budget(10),
        flatstream_reflect::BUDGET_FLOOR
    );
    assert_eq!(flatstream_reflect::budget(100 << 20), 800 << 20);
}

#[test]
fn a_bad_union_type_is_an_error_naming_the_union() {
    let case = hostile::cases()
        .into_iter()
        .find(|c| c.name.starts_with("a union type"))
        .unwrap();
    let schema = parse(&case.bfbs).unwrap();
    let verifier = Verifier::new(&schema, 0).unwrap();
    let why = verifier
        .verify(&hostile::union_tagged(200))
        .unwrap_err()
        .to_string();
    assert!(why.starts_with("field `u` at payload byte "), "{why}");
    assert!(
        why.ends_with("200 is not a type of the union `h.U`"),
        "{why}"
    );
    // The oracle panics on it.
    assert_eq!(
        reflection_accepts(&case.bfbs, 0, &hostile::union_tagged(200)),
        None
    );
}

#[test]
fn schemas_cut_short_or_with_a_bit_flipped_load_or_fail_without_panic() {
    let mut loaded = 0;
    for bytes in SCHEMAS {
        for len in 0..bytes.len() {
            if let Err(e) = parse(&bytes[..len]) {
                one_line(&e);
            }
        }
        for at in 0..bytes.len() {
            for bit in [0, 3, 6] {
                let mut bad = bytes.to_vec();
                bad[at] ^= 1 << bit;
                let Ok(schema) = parse(&bad) else { continue };
                loaded += 1;
                let Ok(root) = root_table(&schema, None) else {
                    continue;
                };
                let Ok(verifier) = Verifier::new(&schema, root) else {
                    continue;
                };
                for payload in [&[][..], &[4, 0, 0, 0, 0, 0, 0, 0][..], &bytes[..64]] {
                    let _ = verifier.verify(payload);
                }
            }
        }
    }
    assert!(
        loaded > 0,
        "some flips (in names, say) leave a valid schema"
    );
}
