//! Allocations per message of every timed path, measured with a counting global allocator.
//!
//! For each benchmark id of the other suites this runs the same code three times to warm it up,
//! then once more while counting, and divides by the messages (frames) in that run. Timed code that
//! builds its reader or writer on every iteration (`read_path/reader-slice-new`, `file_io/*`)
//! is counted the same way, setup included. The results go to
//! `<target>/flatstream-bench/allocations.json`, where `cargo xtask bench-report` reads them.
//!
//! Not a criterion suite: it takes no time measurements. In test mode (`--test`, or run by
//! `cargo test` without `--bench`, as criterion does) the file I/O paths use a 4 MiB file
//! instead of 256 MiB, and nothing is written.

use flatstream::read::BufReadStreamReader;
use flatstream::{DefaultDeframer, DefaultFramer, Deframer, Framer, StreamReader, StreamWriter};
use flatstream_bench::checksums::{ChecksumVisitor, for_each_checksum};
use flatstream_bench::cycle::{
    BincodeCycle, CodecCycle, Cycle, FlatstreamCycle, FlatstreamSliceCycle, JsonCycle, ProstCycle,
    Totals, readings,
};
use flatstream_bench::paths::{
    Sink, buf_read_all, frames_all, out_dir, payload, read_all, read_all_touched, read_file,
    scratch_file, scratch_with, telemetry_stream, write_file,
};
use flatstream_bench::wide::{Best, MESSAGES, Messages, Whole, read_sides, write_sides};
use flatstream_test_support::alloc::{AllocStats, CountingAlloc, measure};
use flatstream_test_support::telemetry::Reading;
use serde_json::json;
use std::hint::black_box;
use std::io::Cursor;

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

/// One measured path.
struct Row {
    id: String,
    messages: u64,
    stats: AllocStats,
    /// Bytes on the wire for the run, for the telemetry and wide writing sides.
    wire_bytes: Option<usize>,
}

#[derive(Default)]
struct Report {
    rows: Vec<Row>,
}

impl Report {
    /// Runs `f` three times to warm up (buffers that alternate between two owners reach their
    /// steady size), then once counting; `f` returns the messages it handled.
    fn measure(&mut self, id: impl Into<String>, mut f: impl FnMut() -> u64) {
        for _ in 0..3 {
            black_box(f());
        }
        let (messages, stats) = measure(&mut f);
        self.rows.push(Row {
            id: id.into(),
            messages,
            stats,
            wire_bytes: None,
        });
    }
}

struct TelemetrySides<'a> {
    report: &'a mut Report,
    readings: &'a [Reading],
}

fn cycle(report: &mut Report, id: String, side: &mut dyn Cycle, rs: &[Reading]) {
    let expected = Totals::of(rs);
    report.measure(id, || {
        let got = side.cycle(rs);
        assert!(got.matches(&expected));
        got.count
    });
    if let Some(row) = report.rows.last_mut() {
        row.wire_bytes = Some(side.wire_len());
    }
}

impl ChecksumVisitor for TelemetrySides<'_> {
    fn visit<F: Framer + Copy, D: Deframer + Copy>(&mut self, name: &'static str, f: F, d: D) {
        let n = self.readings.len();
        let id = format!("telemetry_cycle/flatstream-{name}/{n}");
        cycle(
            self.report,
            id,
            &mut FlatstreamCycle::new(f, d),
            self.readings,
        );
        if name == "none" {
            let id = format!("telemetry_cycle/flatstream-frames-none/{n}");
            cycle(
                self.report,
                id,
                &mut FlatstreamSliceCycle::new(f, d),
                self.readings,
            );
        }
    }
}

/// A cycle whose side is created inside the counted run.
fn cold<C: Cycle>(report: &mut Report, id: &str, make: impl Fn() -> C, rs: &[Reading]) {
    let expected = Totals::of(rs);
    report.measure(format!("telemetry_cold/{id}/{}", rs.len()), || {
        let got = make().cycle(rs);
        assert!(got.matches(&expected));
        got.count
    });
}

struct SweepSides<'a> {
    report: &'a mut Report,
    payload: &'a [u8],
}

impl ChecksumVisitor for SweepSides<'_> {
    fn visit<F: Framer + Copy, D: Deframer + Copy>(&mut self, name: &'static str, f: F, d: D) {
        let len = self.payload.len();
        let mut writer = StreamWriter::new(Vec::with_capacity(len + 16), f);
        self.report
            .measure(format!("size_sweep/write-{name}/{len}"), || {
                writer.get_mut().clear();
                writer.write_payload(self.payload).unwrap();
                1
            });
        let mut reader = StreamReader::new(Cursor::new(writer.into_inner()), d);
        self.report
            .measure(format!("size_sweep/read-{name}/{len}"), || {
                reader.get_mut().set_position(0);
                read_all_touched(&mut reader).unwrap().frames
            });
    }
}

/// The tokio suite's ids. The codecs' buffers are filled before counting, as criterion's
/// untimed setup fills them. The loopback transfer counts what the reading and writing futures
/// allocate (they are polled on this thread); the runtime's worker thread is not counted.
fn tokio_suite(report: &mut Report) {
    use bytes::BytesMut;
    use flatstream::tokio::FrameCodec;
    use flatstream_bench::async_framing::{
        Loopback, async_decode, async_read_message_decode, bytes_limit, codec_decode, codec_encode,
        in_memory_runtime, length_delimited, length_delimited_decode, length_delimited_encode,
        length_delimited_encode_slice, sync_bytes_decode, sync_decode, sync_encode,
    };
    let n = 100_000;
    let rs = readings(n);
    let bytes = telemetry_stream(n as u64, DefaultFramer);
    let filled = || -> Vec<BytesMut> { (0..4).map(|_| BytesMut::from(&bytes[..])).collect() };
    report.measure(format!("tokio_codec/decode/sync/{n}"), || {
        sync_decode(&bytes).count
    });
    let shared = bytes::Bytes::copy_from_slice(&bytes);
    report.measure(format!("tokio_codec/decode/sync-bytes/{n}"), || {
        sync_bytes_decode(&shared).count
    });
    let (mut codec, mut bufs) = (FrameCodec::default(), filled());
    report.measure(format!("tokio_codec/decode/flatstream-codec/{n}"), || {
        codec_decode(&mut codec, &mut bufs.pop().expect("a buffer")).count
    });
    let (mut ldc, mut bufs) = (length_delimited(), filled());
    report.measure(format!("tokio_codec/decode/length-delimited/{n}"), || {
        length_delimited_decode(&mut ldc, &mut bufs.pop().expect("a buffer")).count
    });
    let mut bufs = filled();
    report.measure(format!("tokio_codec/decode/bytes-limit/{n}"), || {
        bytes_limit(&mut bufs.pop().expect("a buffer")).count
    });
    let rt = in_memory_runtime();
    report.measure(format!("tokio_codec/decode/async-process-all/{n}"), || {
        async_decode(&rt, &bytes).count
    });
    report.measure(format!("tokio_codec/decode/async-read-message/{n}"), || {
        async_read_message_decode(&rt, &bytes).count
    });
    let mut writer = StreamWriter::new(Vec::new(), DefaultFramer);
    report.measure(format!("tokio_codec/encode/sync/{n}"), || {
        sync_encode(&mut writer, &rs);
        n as u64
    });
    let mut builder = flatbuffers::FlatBufferBuilder::new();
    let mut dst = BytesMut::new();
    report.measure(format!("tokio_codec/encode/flatstream-codec/{n}"), || {
        codec_encode(&mut codec, &mut builder, &mut dst, &rs);
        n as u64
    });
    report.measure(format!("tokio_codec/encode/length-delimited/{n}"), || {
        length_delimited_encode(&mut ldc, &mut builder, &mut dst, &rs);
        n as u64
    });
    report.measure(
        format!("tokio_codec/encode/length-delimited-slice/{n}"),
        || {
            length_delimited_encode_slice(&mut ldc, &mut builder, &mut dst, &rs);
            n as u64
        },
    );
    let mut lo = Loopback::new().expect("a loopback connection");
    for (size, count) in [(24usize, 100_000u64), (4096, 10_000)] {
        let p = payload(size);
        report.measure(format!("tokio_tcp/async/{size}"), || {
            lo.transfer(&p, count);
            count
        });
    }
}

fn main() -> std::io::Result<()> {
    // `cargo bench` passes `--bench`; `cargo test --benches` does not (criterion then tests).
    let args: Vec<String> = std::env::args().collect();
    let test_mode = args.iter().any(|a| a == "--test") || !args.iter().any(|a| a == "--bench");
    let mut report = Report::default();

    // telemetry_cycle
    for n in [100usize, 100_000] {
        let rs = readings(n);
        for_each_checksum(&mut TelemetrySides {
            report: &mut report,
            readings: &rs,
        });
        cycle(
            &mut report,
            format!("telemetry_cycle/bincode/{n}"),
            &mut BincodeCycle::default(),
            &rs,
        );
        cycle(
            &mut report,
            format!("telemetry_cycle/serde_json/{n}"),
            &mut JsonCycle::default(),
            &rs,
        );
        cycle(
            &mut report,
            format!("telemetry_cycle/prost/{n}"),
            &mut ProstCycle::default(),
            &rs,
        );
        cycle(
            &mut report,
            format!("telemetry_cycle/tokio-codec/{n}"),
            &mut CodecCycle::default(),
            &rs,
        );
    }

    // telemetry_cold: the state is created inside the counted run.
    let rs = readings(100);
    cold(
        &mut report,
        "flatstream-none",
        || FlatstreamCycle::new(DefaultFramer, DefaultDeframer),
        &rs,
    );
    cold(
        &mut report,
        "flatstream-frames-none",
        || FlatstreamSliceCycle::new(DefaultFramer, DefaultDeframer),
        &rs,
    );
    cold(&mut report, "bincode", BincodeCycle::default, &rs);
    cold(&mut report, "serde_json", JsonCycle::default, &rs);
    cold(&mut report, "prost", ProstCycle::default, &rs);
    cold(&mut report, "tokio-codec", CodecCycle::default, &rs);

    tokio_suite(&mut report);

    // read_path
    let bytes = telemetry_stream(100, DefaultFramer);
    report.measure("read_path/reader-slice-new/100", || {
        read_all(&mut StreamReader::new(&bytes[..], DefaultDeframer))
            .unwrap()
            .frames
    });
    let mut reader = StreamReader::new(Cursor::new(bytes.clone()), DefaultDeframer);
    report.measure("read_path/reader-cursor/100", || {
        reader.get_mut().set_position(0);
        read_all(&mut reader).unwrap().frames
    });
    let mut reader = BufReadStreamReader::new(Cursor::new(bytes.clone()), DefaultDeframer);
    report.measure("read_path/bufreader-cursor/100", || {
        reader.get_mut().set_position(0);
        buf_read_all(&mut reader).unwrap().frames
    });
    report.measure("read_path/frames-slice/100", || {
        frames_all(&bytes, DefaultDeframer).unwrap().frames
    });
    let path = scratch_with("allocations_read_path.fstream", &bytes)?;
    let map = flatstream::read::MappedFile::map(&std::fs::File::open(&path)?)?;
    report.measure("read_path/frames-mmap/100", || {
        frames_all(&map, DefaultDeframer).unwrap().frames
    });
    drop(map);
    std::fs::remove_file(&path)?;

    // size_sweep
    for len in [16usize, 256, 4 << 10, 64 << 10, 1 << 20] {
        let p = payload(len);
        for_each_checksum(&mut SweepSides {
            report: &mut report,
            payload: &p,
        });
    }

    // wide_selective, wide_whole and wide_write, with the bytes on the wire of each writer
    let m = Messages::new(MESSAGES);
    let (best, whole) = (Best::of(&m.books), Whole::of(&m.books));
    for (name, mut side) in read_sides() {
        side.write(&m);
        report.measure(format!("wide_selective/{name}/{MESSAGES}"), || {
            let got = side.selective();
            assert_eq!(got, best, "{name}");
            got.count
        });
        report.measure(format!("wide_whole/{name}/{MESSAGES}"), || {
            let got = side.whole();
            assert_eq!(got, whole, "{name}");
            got.count
        });
    }
    for (name, mut side) in write_sides() {
        report.measure(format!("wide_write/{name}/{MESSAGES}"), || {
            side.write(&m);
            m.len() as u64
        });
        if let Some(row) = report.rows.last_mut() {
            row.wire_bytes = Some(side.wire_len());
        }
    }

    // file_io
    let file_bytes: u64 = if test_mode { 4 << 20 } else { 256 << 20 };
    for (len, sinks) in [
        (24usize, &[Sink::BufWriter][..]),
        (4096, &[Sink::BufWriter, Sink::File][..]),
    ] {
        let p = payload(len);
        let count = file_bytes.div_ceil((len + 4) as u64);
        let path = scratch_file(&format!("allocations_file_io_{len}.fstream"))?;
        for &sink in sinks {
            let name = match sink {
                Sink::BufWriter => "write-bufwriter",
                Sink::File => "write-file",
            };
            report.measure(format!("file_io/{name}/{len}"), || {
                write_file(&path, sink, DefaultFramer, &p, count).unwrap();
                count
            });
        }
        report.measure(format!("file_io/read-file/{len}"), || {
            read_file(&path, DefaultDeframer).unwrap().frames
        });
        std::fs::remove_file(&path)?;
    }

    let rows: Vec<_> = report
        .rows
        .iter()
        .map(|r| {
            let per = |x: u64| x as f64 / r.messages.max(1) as f64;
            let mut v = json!({
                "id": r.id,
                "messages": r.messages,
                "allocations": r.stats.allocations,
                "bytes": r.stats.bytes,
                "allocations_per_message": per(r.stats.allocations),
                "bytes_per_message": per(r.stats.bytes),
            });
            if let Some(w) = r.wire_bytes {
                v["wire_bytes"] = json!(w);
            }
            v
        })
        .collect();
    for r in &report.rows {
        println!(
            "{:<48} {:>10.3} allocs/msg {:>12.1} B/msg",
            r.id,
            r.stats.allocations as f64 / r.messages.max(1) as f64,
            r.stats.bytes as f64 / r.messages.max(1) as f64
        );
    }
    if test_mode {
        return Ok(());
    }
    let doc = json!({ "allocations": rows });
    let dir = out_dir();
    std::fs::create_dir_all(&dir)?;
    let out = dir.join("allocations.json");
    std::fs::write(&out, serde_json::to_string_pretty(&doc)? + "\n")?;
    println!("wrote {}", out.display());
    Ok(())
}
