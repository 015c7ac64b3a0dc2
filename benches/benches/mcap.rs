//! `flatstream export --to mcap` against `flatstream convert` of the same capture, as the two
//! commands do their work after reading the file: the demo's million telemetry readings
//! (XXH3-64-framed, in memory), every frame's checksum verified, then re-framed with XXH3-64
//! into a `Vec` (`convert`), or verified against the schema and written as an MCAP message, in
//! zstd chunks (the default), lz4 chunks or stored ones (`export-zstd`, `export-lz4`,
//! `export-none`, through `flatstream::mcap::Exporter` into a `Cursor<Vec<u8>>`), times from
//! the frame's index.
//!
//! Ids: `mcap/<side>/<frames>`. Throughput: the capture's bytes for `convert`, the MCAP file's
//! bytes for the export sides (so the report gives both sizes). Each side's output is checked
//! once before timing: the same frames back from the stream, the same payloads back from the
//! MCAP file.

use criterion::{BenchmarkId, Criterion, SamplingMode, Throughput};
use flatstream::mcap::{Compression, ExportOptions, Exporter, Messages};
use flatstream::{ChecksumDeframer, ChecksumFramer, Frames, StreamWriter, XxHash64};
use flatstream_bench::verify::{TELEMETRY_FRAMES, telemetry_capture};
use std::io::Cursor;

const BFBS: &[u8] = include_bytes!("../../examples/telemetry.bfbs");

/// What `flatstream convert --to-checksum xxhash64` does with the capture.
fn convert(capture: &[u8]) -> Vec<u8> {
    let mut writer = StreamWriter::new(
        Vec::with_capacity(capture.len()),
        ChecksumFramer::new(XxHash64),
    );
    for payload in Frames::new(capture, ChecksumDeframer::new(XxHash64)) {
        writer
            .write_payload(payload.expect("an intact capture"))
            .expect("write to a Vec");
    }
    writer.into_inner()
}

/// What `flatstream export --to mcap` does with the capture.
fn export(capture: &[u8], compression: Compression) -> Vec<u8> {
    let options = ExportOptions::new().compression(compression);
    let out = Cursor::new(Vec::with_capacity(capture.len()));
    let mut exporter = Exporter::new(out, BFBS, &options).expect("the schema");
    let channel = exporter.channel("/demo").expect("a channel");
    for payload in Frames::new(capture, ChecksumDeframer::new(XxHash64)) {
        exporter
            .write(channel, payload.expect("an intact capture"))
            .expect("a valid message");
    }
    exporter.finish().expect("the summary").into_inner()
}

fn mcap(c: &mut Criterion, frames: u64) {
    let capture = telemetry_capture(frames);
    let payloads: Vec<&[u8]> = Frames::new(&capture[..], ChecksumDeframer::new(XxHash64))
        .map(|p| p.expect("an intact capture"))
        .collect();
    assert_eq!(convert(&capture), capture, "convert to the same checksum");

    let mut group = c.benchmark_group("mcap");
    group.sample_size(10);
    group.sampling_mode(SamplingMode::Flat);
    group.throughput(Throughput::Bytes(capture.len() as u64));
    group.bench_function(BenchmarkId::new("convert", frames), |b| {
        b.iter(|| convert(&capture));
    });
    for (name, compression) in [
        ("export-zstd", Compression::Zstd),
        ("export-lz4", Compression::Lz4),
        ("export-none", Compression::None),
    ] {
        let file = export(&capture, compression);
        let back: Vec<Vec<u8>> = Messages::new(&file[..], None)
            .map(|m| m.expect("a readable file").data)
            .collect();
        assert!(
            back.iter().map(Vec::as_slice).eq(payloads.iter().copied()),
            "{name}"
        );
        group.throughput(Throughput::Bytes(file.len() as u64));
        group.bench_function(BenchmarkId::new(name, frames), |b| {
            b.iter(|| export(&capture, compression));
        });
    }
    group.finish();
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let test_mode = args.iter().any(|a| a == "--test") || !args.iter().any(|a| a == "--bench");
    let mut criterion = Criterion::default().configure_from_args();
    mcap(
        &mut criterion,
        if test_mode { 10_000 } else { TELEMETRY_FRAMES },
    );
    criterion.final_summary();
}
