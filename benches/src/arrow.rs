//! The Arrow conversion workload: frames of telemetry tables (`examples/telemetry.fbs`) turned
//! into Arrow record batches of `device_id: UInt64, timestamp: UInt64, value: Float64`, three
//! ways, each producing the same batches from the same frames:
//!
//! | side | per frame | into the batch |
//! |---|---|---|
//! | [`convert_flatstream`] | flatstream-arrow's [`Converter`](flatstream_arrow::Converter): FlatBuffers verification against the `.bfbs`, then the three fields | its own builders |
//! | [`convert_hand`] | `flatbuffers::root::<Telemetry>` (flatc's generated verifier, default limits), then the generated accessors | `UInt64Builder`, `UInt64Builder`, `Float64Builder` |
//! | [`JsonRoute`] | what `flatstream cat --schema` does: `flatbuffers-reflection`'s verifier, the fields read through the schema by name (its `SafeTable` accessors), then the line of JSON the CLI prints (fields in declaration order, integers in decimal, doubles as serde_json writes them) | arrow-json's `Decoder` with the batch's schema, fed the lines of a batch |
//!
//! The hand-written side is the limit a generic converter can approach: it knows the schema at
//! compile time. The JSON side is the route a user has without flatstream-arrow: pipe `cat
//! --schema` into an NDJSON reader. The CLI's renderer is not a library (the CLI is a binary
//! crate), so [`render_json`] writes the same text for this table; a test checks it against
//! serde_json's rendering of the same object.
//!
//! The projection workload: 10 000 frames of a 10-field table (`benches/schemas/wide.bfbs`:
//! `device_id`, `timestamp` (u64), `sequence` (u32), `value`, `low`, `high` (f64), `battery`
//! (f32), `status` (i16), `online` (bool), `label` (a string of 8 to 23 bytes)), every field
//! present, converted with all ten columns and with `value` alone. Every frame is verified
//! whole either way.

use crate::scaling::arbitrary_readings;
use arrow_array::RecordBatch;
use arrow_array::builder::{Float64Builder, UInt64Builder};
use arrow_schema::SchemaRef;
use flatstream::{DefaultDeframer, DefaultFramer, Frames, StreamWriter};
use flatstream_arrow::{BinarySchema, Options, Plan};
use flatstream_test_support::telemetry::{Reading, Telemetry};
use std::io::Write;
use std::sync::Arc;

/// Frames of the conversion workload (about 4 MB, no checksum).
pub const TELEMETRY_FRAMES: u64 = 100_000;

/// The rows of every batch, on every side (flatstream-arrow's default).
pub const BATCH_ROWS: usize = 8192;

fn schema_path(relative: &str) -> String {
    format!("{}/../{relative}", env!("CARGO_MANIFEST_DIR"))
}

/// `n` telemetry frames with arbitrary field values, without checksums.
pub fn telemetry_frames(n: u64) -> Vec<u8> {
    let mut writer = StreamWriter::new(Vec::new(), DefaultFramer);
    for reading in arbitrary_readings(n) {
        writer.write(&reading).expect("write to a Vec");
    }
    writer.into_inner()
}

/// The telemetry schema (`examples/telemetry.bfbs`) compiled for conversion.
pub fn telemetry_plan() -> Plan {
    let schema =
        BinarySchema::load(schema_path("examples/telemetry.bfbs")).expect("telemetry.bfbs");
    Plan::new(&schema, Options::new().batch_size(BATCH_ROWS)).expect("compile telemetry.bfbs")
}

/// Frames of the projection workload.
pub const WIDE_FRAMES: usize = 10_000;

/// The 10-field schema (`benches/schemas/wide.bfbs`) compiled for conversion.
pub fn wide_plan() -> Plan {
    let schema = BinarySchema::load(schema_path("benches/schemas/wide.bfbs")).expect("wide.bfbs");
    Plan::new(&schema, Options::new().batch_size(BATCH_ROWS)).expect("compile wide.bfbs")
}

/// `n` frames of `wide.Sample`, every field set (none at its default), without checksums.
pub fn wide_frames(n: usize) -> Vec<u8> {
    let mut writer = StreamWriter::new(Vec::new(), DefaultFramer);
    let mut b = flatbuffers::FlatBufferBuilder::new();
    for i in 0..n as u64 {
        b.reset();
        // A cheap pseudo-random walk, so no two rows are alike.
        let x = i.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let label = b.create_string(&format!(
            "sensor-{:0w$}",
            x % 1_000_000,
            w = 2 + (i % 16) as usize
        ));
        let table = b.start_table();
        b.push_slot_always::<u64>(4, x % 4096 + 1);
        b.push_slot_always::<u64>(6, 1_700_000_000_000 + i);
        b.push_slot_always::<u32>(8, i as u32 + 1);
        b.push_slot_always::<f64>(10, (x >> 11) as f64 / (1u64 << 53) as f64 * 200.0 - 100.0);
        b.push_slot_always::<f64>(12, -((x >> 20) as f64));
        b.push_slot_always::<f64>(14, (x >> 22) as f64);
        b.push_slot_always::<f32>(16, (x % 100) as f32 / 100.0 + 0.5);
        b.push_slot_always::<i16>(18, (x % 7) as i16 + 1);
        b.push_slot_always::<bool>(20, true);
        b.push_slot_always(22, label);
        let table = b.end_table(table);
        b.finish_minimal(table);
        writer.write_finished(&b).expect("write to a Vec");
    }
    writer.into_inner()
}

/// The frames of `bytes` as flatstream-arrow takes them: `(offset, payload)`.
fn frames(bytes: &[u8]) -> impl Iterator<Item = flatstream::Result<(u64, &[u8])>> + '_ {
    let mut frames = Frames::new(bytes, DefaultDeframer);
    std::iter::from_fn(move || {
        let offset = frames.position();
        frames.next().map(|payload| payload.map(|p| (offset, p)))
    })
}

/// flatstream-arrow: every frame through `plan`'s converter.
pub fn convert_flatstream(plan: &Plan, bytes: &[u8]) -> Vec<RecordBatch> {
    plan.convert(frames(bytes))
        .collect::<Result<_, _>>()
        .expect("convert valid frames")
}

/// The hand-written loop: flatc's generated verifier and accessors into three builders.
pub fn convert_hand(schema: &SchemaRef, bytes: &[u8]) -> Vec<RecordBatch> {
    let mut batches = Vec::new();
    let mut builders = HandBuilders::default();
    let mut rows = 0;
    for payload in Frames::new(bytes, DefaultDeframer) {
        let payload = payload.expect("valid frames");
        let t = flatbuffers::root::<Telemetry<'_>>(payload).expect("a valid Telemetry");
        builders.device_id.append_value(t.device_id());
        builders.timestamp.append_value(t.timestamp());
        builders.value.append_value(t.value());
        rows += 1;
        if rows == BATCH_ROWS {
            batches.push(builders.finish(schema));
            rows = 0;
        }
    }
    if rows > 0 {
        batches.push(builders.finish(schema));
    }
    batches
}

#[derive(Default)]
struct HandBuilders {
    device_id: UInt64Builder,
    timestamp: UInt64Builder,
    value: Float64Builder,
}

impl HandBuilders {
    fn finish(&mut self, schema: &SchemaRef) -> RecordBatch {
        RecordBatch::try_new(
            schema.clone(),
            vec![
                Arc::new(self.device_id.finish()),
                Arc::new(self.timestamp.finish()),
                Arc::new(self.value.finish()),
            ],
        )
        .expect("columns of the schema")
    }
}

/// The JSON route: each payload verified with `flatbuffers-reflection` against
/// `telemetry.bfbs` and rendered as the CLI's line, the lines of each batch decoded by
/// arrow-json into a batch of `schema`.
pub struct JsonRoute {
    bfbs: Vec<u8>,
    schema: SchemaRef,
    lines: Vec<u8>,
}

impl JsonRoute {
    /// The route for batches of `schema` (the telemetry plan's).
    pub fn new(schema: SchemaRef) -> Self {
        JsonRoute {
            bfbs: std::fs::read(schema_path("examples/telemetry.bfbs")).expect("telemetry.bfbs"),
            schema,
            lines: Vec::new(),
        }
    }

    /// Every frame of `bytes` through the route.
    pub fn convert(&mut self, bytes: &[u8]) -> Vec<RecordBatch> {
        let reflection =
            flatbuffers_reflection::reflection::root_as_schema(&self.bfbs).expect("a .bfbs");
        let mut decoder = arrow_json::ReaderBuilder::new(self.schema.clone())
            .with_batch_size(BATCH_ROWS)
            .build_decoder()
            .expect("a decoder");
        let mut batches = Vec::new();
        let mut rows = 0;
        self.lines.clear();
        for payload in Frames::new(bytes, DefaultDeframer) {
            let payload = payload.expect("valid frames");
            let safe = flatbuffers_reflection::SafeBuffer::new(payload, &reflection)
                .expect("a valid Telemetry");
            // Read through the schema, field by field, as the CLI's walk does.
            let root = safe.get_root();
            let reading = Reading {
                device_id: root
                    .get_field_integer::<u64>("device_id")
                    .ok()
                    .flatten()
                    .unwrap_or(0),
                timestamp: root
                    .get_field_integer::<u64>("timestamp")
                    .ok()
                    .flatten()
                    .unwrap_or(0),
                value: root
                    .get_field_float::<f64>("value")
                    .ok()
                    .flatten()
                    .unwrap_or(0.0),
            };
            render_json(&reading, &mut self.lines);
            self.lines.push(b'\n');
            rows += 1;
            if rows == BATCH_ROWS {
                batches.push(decode(&mut decoder, &mut self.lines));
                rows = 0;
            }
        }
        if rows > 0 {
            batches.push(decode(&mut decoder, &mut self.lines));
        }
        batches
    }
}

/// The batch of the lines in `lines` (emptied).
fn decode(decoder: &mut arrow_json::reader::Decoder, lines: &mut Vec<u8>) -> RecordBatch {
    let read = decoder.decode(lines).expect("lines of JSON");
    assert_eq!(read, lines.len(), "a batch's lines decode at once");
    lines.clear();
    decoder
        .flush()
        .expect("rows of the schema")
        .expect("a batch")
}

/// The line `flatstream cat --schema telemetry.bfbs` prints for `r` (without the newline):
/// fields in declaration order, integers in decimal, a finite double as serde_json writes it
/// (the CLI's `json.rs` uses serde_json for floats).
pub fn render_json(r: &Reading, out: &mut Vec<u8>) {
    let value = r.value;
    let _ = write!(
        out,
        "{{\"device_id\":{},\"timestamp\":{},\"value\":",
        r.device_id, r.timestamp
    );
    if value.is_finite() {
        serde_json::to_writer(&mut *out, &value).expect("write to a Vec");
    } else {
        let _ = write!(
            out,
            "\"{}\"",
            if value.is_nan() {
                "nan"
            } else if value > 0.0 {
                "inf"
            } else {
                "-inf"
            }
        );
    }
    out.push(b'}');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_side_makes_the_same_batches() {
        let bytes = telemetry_frames(BATCH_ROWS as u64 + 10);
        let plan = telemetry_plan();
        let ours = convert_flatstream(&plan, &bytes);
        assert_eq!(ours.len(), 2);
        assert_eq!(ours[0].num_rows(), BATCH_ROWS);
        assert_eq!(convert_hand(plan.schema(), &bytes), ours);
        assert_eq!(JsonRoute::new(plan.schema().clone()).convert(&bytes), ours);
    }

    #[test]
    fn the_wide_table_has_ten_columns_none_null() {
        let bytes = wide_frames(100);
        let batches = convert_flatstream(&wide_plan(), &bytes);
        let batch = &batches[0];
        assert_eq!((batch.num_rows(), batch.num_columns()), (100, 10));
        assert!(batch.columns().iter().all(|c| c.null_count() == 0));
    }

    #[test]
    fn the_json_line_is_what_serde_json_writes_for_the_object() {
        for r in arbitrary_readings(100).into_iter().chain([Reading {
            device_id: 0,
            timestamp: u64::MAX,
            value: -0.5,
        }]) {
            let mut line = Vec::new();
            render_json(&r, &mut line);
            let expected = serde_json::json!({
                "device_id": r.device_id, "timestamp": r.timestamp, "value": r.value,
            });
            assert_eq!(String::from_utf8(line).unwrap(), expected.to_string());
        }
    }

    #[test]
    fn one_column_of_the_wide_table_is_the_same_column_of_all() {
        let bytes = wide_frames(100);
        let plan = wide_plan();
        let all = convert_flatstream(&plan, &bytes);
        let one = convert_flatstream(&plan.with_projection_names(&["value"]).unwrap(), &bytes);
        assert_eq!(all[0].num_columns(), 10);
        assert_eq!(one[0].column(0), all[0].column(3));
    }
}
