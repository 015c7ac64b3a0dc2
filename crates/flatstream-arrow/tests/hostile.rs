//! The converter (what Python reads through) on hostile schemas and payloads: a refused
//! schema is an error, a payload is converted exactly when the one verifier passes it, and
//! converting stays within the payload's budget of memory.

use flatstream_arrow::{BinarySchema, Options, Plan};
use flatstream_test_support::alloc::{CountingAlloc, measure};
use flatstream_test_support::hostile::{self, Expect};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

const FLEET: &[u8] = include_bytes!("../../../examples/fleet.bfbs");

fn verdict(bfbs: &[u8], payload: &[u8]) -> bool {
    let schema = flatstream_reflect::parse(bfbs).unwrap();
    let root = flatstream_reflect::root_table(&schema, None).unwrap();
    let verifier = flatstream_reflect::Verifier::new(&schema, root).unwrap();
    verifier.verify(payload).is_ok()
}

#[test]
fn hostile_cases_convert_as_the_verifier_says_within_the_budget() {
    for case in hostile::cases() {
        let name = &case.name;
        let schema = BinarySchema::from_bytes(case.bfbs.clone());
        if case.schema == Expect::Refused {
            let e = schema.err().unwrap_or_else(|| panic!("{name}: loaded"));
            assert!(!e.to_string().contains('\n'), "{e}");
            continue;
        }
        let schema = schema.unwrap_or_else(|e| panic!("{name}: {e}"));
        for verify_unread in [false, true] {
            let mut options = Options::new();
            options.skip_invalid(true).verify_unread(verify_unread);
            let plan = Plan::new(&schema, &options).unwrap_or_else(|e| panic!("{name}: {e}"));
            for (i, (payload, expect)) in case.payloads.iter().enumerate() {
                let mut converter = plan.converter();
                let (appended, used) = measure(|| {
                    let appended = converter.append(0, payload);
                    converter.finish().map(|batch| (appended, batch))
                });
                let (appended, batch) = used_ok(appended, name, i);
                let appended = appended.unwrap_or_else(|e| panic!("{name} #{i}: {e}"));
                assert_eq!(appended, verdict(&case.bfbs, payload), "{name} #{i}");
                assert_eq!(batch.num_rows(), usize::from(appended), "{name} #{i}");
                match expect {
                    Expect::Valid => assert!(appended, "{name} #{i}"),
                    Expect::Invalid => assert!(!appended, "{name} #{i}"),
                    _ => {}
                }
                let bound = 4 * flatstream_reflect::budget(payload.len()) as u64;
                assert!(
                    used.bytes < bound,
                    "{name} #{i}: {} bytes allocated, over {bound}",
                    used.bytes
                );
            }
        }
    }
}

#[test]
fn a_type_that_unfolds_into_2_to_the_40_fields_is_refused() {
    let schema = BinarySchema::from_bytes(hostile::doubling_types()).unwrap();
    let e = Plan::new(&schema, &Options::new()).unwrap_err();
    assert!(
        matches!(e, flatstream_arrow::Error::Unsupported { .. }),
        "{e}"
    );
    assert!(e.to_string().contains("more than 10000"), "{e}");
}

fn used_ok<T>(result: Result<T, flatstream_arrow::Error>, name: &str, i: usize) -> T {
    result.unwrap_or_else(|e| panic!("{name} #{i}: {e}"))
}

#[test]
fn a_schema_with_a_bit_flipped_compiles_or_fails_without_panic() {
    let payload = {
        let mut b = flatbuffers::FlatBufferBuilder::new();
        let name = b.create_string("r2");
        let table = b.start_table();
        b.push_slot_always(6, name);
        let table = b.end_table(table);
        b.finish_minimal(table);
        b.finished_data().to_vec()
    };
    for at in 0..FLEET.len() {
        for bit in [0, 3, 6] {
            let mut bad = FLEET.to_vec();
            bad[at] ^= 1 << bit;
            let Ok(schema) = BinarySchema::from_bytes(bad) else {
                continue;
            };
            let Ok(plan) = Plan::new(&schema, Options::new().skip_invalid(true)) else {
                continue;
            };
            let mut converter = plan.converter();
            let _ = converter.append(0, &payload);
            let _ = converter.finish();
        }
    }
}
