//! Properties over random streams: whatever the batch size and wherever frames are damaged,
//! the rows are exactly the intact frames', in order, with their offsets, and the damaged
//! ones are counted (skipping) or the first of them is the error, after the rows before it.

mod common;

use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, UInt64Type};
use common::{frames, schema, stream};
use flatbuffers::FlatBufferBuilder;
use flatstream_arrow::{Error, Options, Plan};
use proptest::prelude::*;

/// A telemetry payload, built field by field (slots 4, 6, 8), fields absent when `None`.
fn telemetry(device: Option<u64>, time: Option<u64>, value: Option<f64>) -> Vec<u8> {
    let mut b = FlatBufferBuilder::new();
    let t = b.start_table();
    if let Some(v) = device {
        b.push_slot_always::<u64>(4, v);
    }
    if let Some(v) = time {
        b.push_slot_always::<u64>(6, v);
    }
    if let Some(v) = value {
        b.push_slot_always::<f64>(8, v);
    }
    let t = b.end_table(t);
    b.finish_minimal(t);
    b.finished_data().to_vec()
}

type Row = (Option<u64>, Option<u64>, Option<f64>);

fn rows() -> impl Strategy<Value = Vec<(Row, bool)>> {
    prop::collection::vec(
        (
            (
                any::<Option<u64>>(),
                any::<Option<u64>>(),
                any::<Option<f64>>(),
            ),
            prop::bool::weighted(0.2),
        ),
        0..60,
    )
}

proptest! {
    #[test]
    fn rows_are_the_intact_frames_in_order(rows in rows(), batch in 1usize..9, skip: bool) {
        let mut payloads = Vec::new();
        for (row, damaged) in &rows {
            let mut p = telemetry(row.0, row.1, row.2);
            if *damaged {
                // The root offset past the end: never a valid FlatBuffer.
                p[..4].copy_from_slice(&u32::MAX.to_le_bytes());
            }
            payloads.push(p);
        }
        let bytes = stream(&payloads);
        let mut offsets = Vec::new();
        let mut at = 0u64;
        for p in &payloads {
            offsets.push(at);
            at += 4 + p.len() as u64;
        }
        let mut options = Options::new();
        options.offset_column(true).batch_size(batch).skip_invalid(skip);
        let plan = Plan::new(&schema("telemetry.bfbs"), &options).unwrap();
        let mut batches = plan.convert(frames(&bytes));
        let mut got = Vec::new();
        let mut error = None;
        for b in batches.by_ref() {
            match b {
                Ok(b) => {
                    prop_assert!(b.num_rows() <= batch && b.num_rows() > 0);
                    let d = b.column(0).as_primitive::<UInt64Type>();
                    let t = b.column(1).as_primitive::<UInt64Type>();
                    let v = b.column(2).as_primitive::<Float64Type>();
                    let o = b.column(3).as_primitive::<UInt64Type>();
                    for i in 0..b.num_rows() {
                        got.push((o.value(i), d.value(i), t.value(i), v.value(i).to_bits()));
                    }
                }
                Err(e) => error = Some(e),
            }
        }
        let first_damaged = rows.iter().position(|r| r.1);
        let expected: Vec<(u64, u64, u64, u64)> = rows
            .iter()
            .zip(&offsets)
            .take(if skip { rows.len() } else { first_damaged.unwrap_or(rows.len()) })
            .filter(|(r, _)| !r.1)
            .map(|((r, _), &o)| (o, r.0.unwrap_or(0), r.1.unwrap_or(0), r.2.unwrap_or(0.0).to_bits()))
            .collect();
        prop_assert_eq!(got, expected);
        if skip {
            prop_assert!(error.is_none());
            prop_assert_eq!(batches.skipped(), rows.iter().filter(|r| r.1).count() as u64);
        } else {
            match (error, first_damaged) {
                (None, None) => {}
                (Some(Error::InvalidFrame { offset, .. }), Some(i)) => {
                    prop_assert_eq!(offset, offsets[i]);
                }
                (e, i) => prop_assert!(false, "error {:?} for damaged frame {:?}", e, i),
            }
        }
    }
}
