//! The telemetry schema (examples/telemetry.fbs), frames written with flatc's generated code:
//! every column against the generated readers, the offset column, batching, and what happens
//! to a frame that fails verification.

mod common;

use arrow_array::RecordBatch;
use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, UInt64Type};
use common::{frames, schema, stream};
use flatbuffers::FlatBufferBuilder;
use flatstream_arrow::{Error, Options, Plan};

use flatstream_test_support::telemetry::*;

fn payloads(n: u64) -> Vec<Vec<u8>> {
    (0..n)
        .map(|i| {
            let mut b = FlatBufferBuilder::new();
            let t = Telemetry::create(
                &mut b,
                &TelemetryArgs {
                    device_id: i % 7,
                    timestamp: 1_700_000_000 + i,
                    value: i as f64 * 0.25 - 3.0,
                },
            );
            b.finish(t, None);
            b.finished_data().to_vec()
        })
        .collect()
}

/// The offsets of the frames of `stream(payloads)`.
fn offsets(payloads: &[Vec<u8>]) -> Vec<u64> {
    let mut at = 0;
    payloads
        .iter()
        .map(|p| {
            let here = at;
            at += 4 + p.len() as u64;
            here
        })
        .collect()
}

#[test]
fn every_column_equals_the_generated_readers_in_batches_of_the_size_asked() {
    let payloads = payloads(10);
    let bytes = stream(&payloads);
    let plan = Plan::new(
        &schema("telemetry.bfbs"),
        Options::new().offset_column(true).batch_size(4),
    )
    .unwrap();
    let batches: Vec<RecordBatch> = plan
        .convert(frames(&bytes))
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(
        batches
            .iter()
            .map(RecordBatch::num_rows)
            .collect::<Vec<_>>(),
        [4, 4, 2]
    );
    let sizes: Vec<usize> = plan
        .with_batch_size(3)
        .convert(frames(&bytes))
        .map(|b| b.unwrap().num_rows())
        .collect();
    assert_eq!(sizes, [3, 3, 3, 1]);
    let batch = arrow_select_concat(&batches);
    for (row, payload) in payloads.iter().enumerate() {
        let t = flatbuffers::root::<Telemetry<'_>>(payload).unwrap();
        assert_eq!(
            batch.0[row],
            (t.device_id(), t.timestamp(), t.value().to_bits())
        );
    }
    assert_eq!(batch.1, offsets(&payloads));
}

/// The rows of `batches` as `(device_id, timestamp, value bits)`, and the offsets.
fn arrow_select_concat(batches: &[RecordBatch]) -> (Vec<(u64, u64, u64)>, Vec<u64>) {
    let mut rows = Vec::new();
    let mut offsets = Vec::new();
    for b in batches {
        let d = b.column(0).as_primitive::<UInt64Type>();
        let t = b.column(1).as_primitive::<UInt64Type>();
        let v = b.column(2).as_primitive::<Float64Type>();
        let o = b.column(3).as_primitive::<UInt64Type>();
        for i in 0..b.num_rows() {
            rows.push((d.value(i), t.value(i), v.value(i).to_bits()));
            offsets.push(o.value(i));
        }
    }
    (rows, offsets)
}

/// Payloads 0..6 with payload 3 damaged: its root offset points past its end.
fn damaged() -> (Vec<Vec<u8>>, u64) {
    let mut payloads = payloads(6);
    payloads[3][0] = 0xff;
    let offset = offsets(&payloads)[3];
    (payloads, offset)
}

#[test]
fn an_invalid_frame_is_an_error_naming_its_offset_after_the_rows_before_it() {
    let (payloads, offset) = damaged();
    let bytes = stream(&payloads);
    let plan = Plan::new(&schema("telemetry.bfbs"), &Options::new()).unwrap();
    let mut batches = plan.convert(frames(&bytes));
    assert_eq!(batches.next().unwrap().unwrap().num_rows(), 3);
    match batches.next() {
        Some(Err(Error::InvalidFrame {
            offset: at, table, ..
        })) => {
            assert_eq!((at, table.as_str()), (offset, "telemetry.Telemetry"));
        }
        other => panic!("expected an invalid frame, got {other:?}"),
    }
    assert!(batches.next().is_none());

    let mut converter = plan.converter();
    let e = converter.append(offset, &payloads[3]).unwrap_err();
    assert!(
        e.to_string().starts_with(&format!(
            "frame at byte {offset}: not a valid telemetry.Telemetry: "
        )),
        "{e}"
    );
    assert!(converter.is_empty());
}

#[test]
fn an_invalid_frame_is_skipped_and_counted_when_asked() {
    let (payloads, _) = damaged();
    let bytes = stream(&payloads);
    let plan = Plan::new(&schema("telemetry.bfbs"), Options::new().skip_invalid(true)).unwrap();
    let mut batches = plan.convert(frames(&bytes));
    let batch = batches.next().unwrap().unwrap();
    assert!(batches.next().is_none());
    assert_eq!(batches.skipped(), 1);
    let timestamps = batch
        .column(1)
        .as_primitive::<UInt64Type>()
        .values()
        .to_vec();
    let base = 1_700_000_000;
    assert_eq!(timestamps, [base, base + 1, base + 2, base + 4, base + 5]);
}

#[test]
fn payloads_too_short_or_garbage_are_invalid_not_panics() {
    let plan = Plan::new(&schema("fleet.bfbs"), Options::new().skip_invalid(true)).unwrap();
    let mut converter = plan.converter();
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for len in 0..200usize {
        let payload: Vec<u8> = (0..len)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                seed as u8
            })
            .collect();
        converter.append(len as u64, &payload).unwrap();
    }
    // Whatever was accepted converts into a well-formed batch.
    let accepted = converter.len();
    assert_eq!(converter.skipped() + accepted as u64, 200);
    assert_eq!(converter.finish().unwrap().num_rows(), accepted);
}

#[test]
fn a_framing_error_comes_after_the_rows_before_it() {
    let payloads = payloads(3);
    let mut bytes = stream(&payloads);
    bytes.truncate(bytes.len() - 1);
    let plan = Plan::new(&schema("telemetry.bfbs"), &Options::new()).unwrap();
    let mut batches = plan.convert(frames(&bytes));
    assert_eq!(batches.next().unwrap().unwrap().num_rows(), 2);
    assert!(matches!(batches.next(), Some(Err(Error::Stream(_)))));
    assert!(batches.next().is_none());
}

#[test]
fn public_types_are_send_and_sync() {
    fn both<T: Send + Sync>() {}
    both::<Plan>();
    both::<flatstream_arrow::Converter>();
    both::<flatstream_arrow::BinarySchema>();
    both::<Error>();
}
