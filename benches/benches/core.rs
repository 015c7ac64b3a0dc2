//! The core suite: flatstream's reader and writer against the **limit**, a hand-written loop
//! over the same bytes that does the least any framing code must do.
//!
//! Messages: a FlatBuffer table of three `u64` fields ("numeric") and a FlatBuffer string of 16
//! ASCII bytes ("string16"), 100 and 100 000 of them. Every benchmark of a group works on the
//! same prewritten bytes (or writes the same payloads), and every reader touches the last byte
//! of each payload, so that no side can skip the payload.
//!
//! Ids (stable; they key the generated tables), per group `core/<message>/<count>`:
//! - `write/limit`: append `len.to_le_bytes()` and the payload to a `Vec`, per message.
//! - `write/flatstream`: `StreamWriter::write_payload` of the same payloads into a `Vec`.
//! - `cycle/flatstream`: simple-mode `write` (serialize into the reused builder, frame) of every
//!   message, then `StreamReader` over the bytes.
//! - `read/limit`: walk the bytes: read each length, slice the payload, touch its last byte.
//! - `read/limit_copy`: `read/limit` plus copying the bytes in 64 KiB blocks: the least a reader
//!   of an arbitrary `Read` source can do, since `Read` hands bytes over by copying them.
//! - `read/slice`: the `Frames` iterator over the bytes.
//! - `read/reader_slice`: a long-lived `StreamReader` over `&[u8]` (a `Read` source in memory,
//!   which it recognizes and parses in place), pointed at the stream again each iteration.
//! - `read/reader_cursor`: the same over `Cursor<&[u8]>`, rewound each iteration.
//! - `read/reader_new`: a new `StreamReader` over `&[u8]` each iteration.
//! - `read/reader_copy`: a long-lived `StreamReader` over the same bytes behind a `Read` it does
//!   not recognize (`Opaque`), so that it copies them through its buffer as it does from a file
//!   or a socket; compare with `read/limit_copy`.
//! - `read/bufreader_slice`: a `BufReadStreamReader` over `&[u8]` (the same `Read` source, taken as
//!   the `BufRead` it also is): frames are parsed in place, with no copy.
//! - `read/bufreader_cursor`: the same over `Cursor<&[u8]>`, rewound each iteration.
//! - `read_xxh3/limit`: the limit loop, plus XXH3-64 of each payload compared with the header.
//! - `read_xxh3/slice`, `read_xxh3/reader_slice`, `read_xxh3/reader_copy` and
//!   `read_xxh3/bufreader_slice`: the same with `ChecksumDeframer<XxHash64>`.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use flatstream::read::BufReadStreamReader;
use flatstream::{
    ChecksumDeframer, DefaultDeframer, DefaultFramer, StreamReader, StreamSerialize, StreamWriter,
    XxHash64,
};
use flatstream_bench::core_loops::{
    Numeric, flatstream_write, framed, limit_read, limit_read_copy, limit_read_xxh3, limit_write,
    numeric, payloads, read_buf_reader, read_reader, read_slice, string16,
};
use flatstream_test_support::Opaque;
use std::fs::File;
use std::hint::black_box;
use std::io::{BufWriter, Cursor, IoSlice, Seek, SeekFrom, Write};
use std::time::Duration;

fn suite<T: StreamSerialize>(c: &mut Criterion, name: &str, messages: &[T]) {
    let payloads = payloads(messages);
    let plain = framed(&payloads, false);
    let xxh3 = framed(&payloads, true);
    let expected = limit_read(&plain);
    assert_eq!(read_slice(&plain, DefaultDeframer), expected);
    assert_eq!(limit_read_xxh3(&xxh3), expected);

    let n = messages.len();
    let mut g = c.benchmark_group(format!("core/{name}/{n}"));
    g.throughput(Throughput::Elements(n as u64));

    let mut out = Vec::with_capacity(plain.len());
    g.bench_function("write/limit", |b| {
        b.iter(|| {
            out.clear();
            limit_write(&mut out, black_box(&payloads));
            black_box(out.len())
        })
    });
    // The same allocation as the limit's: with 100 000 messages these are megabytes, and two
    // allocations need not be backed alike (huge pages or not).
    let mut writer = StreamWriter::new(out, DefaultFramer);
    g.bench_function("write/flatstream", |b| {
        b.iter(|| {
            writer.get_mut().clear();
            flatstream_write(&mut writer, black_box(&payloads));
            black_box(writer.get_ref().len())
        })
    });
    // Reusing the writer (its builder stays warm) and the output buffer across iterations.
    let mut writer = StreamWriter::new(Vec::with_capacity(plain.len()), DefaultFramer);
    g.bench_function("cycle/flatstream", |b| {
        b.iter(|| {
            writer.get_mut().clear();
            for m in black_box(messages) {
                writer.write(m).unwrap();
            }
            let mut reader = StreamReader::new(&writer.get_ref()[..], DefaultDeframer);
            black_box(read_reader(&mut reader))
        })
    });

    g.bench_function("read/limit", |b| b.iter(|| limit_read(black_box(&plain))));
    let mut scratch = vec![0u8; 64 * 1024];
    g.bench_function("read/limit_copy", |b| {
        b.iter(|| limit_read_copy(black_box(&plain), &mut scratch))
    });
    g.bench_function("read/slice", |b| {
        b.iter(|| read_slice(black_box(&plain), DefaultDeframer))
    });
    // A long-lived reader: each iteration points it at the stream again and reads it all, so
    // its buffer is allocated once, as in a reader that runs for hours.
    let mut reader = StreamReader::new(&plain[..], DefaultDeframer);
    g.bench_function("read/reader_slice", |b| {
        b.iter(|| {
            *reader.get_mut() = black_box(&plain[..]);
            black_box(read_reader(&mut reader))
        })
    });
    let mut reader = StreamReader::new(Cursor::new(&plain[..]), DefaultDeframer);
    g.bench_function("read/reader_cursor", |b| {
        b.iter(|| {
            reader.get_mut().set_position(0);
            black_box(read_reader(&mut reader))
        })
    });
    // A reader made for this stream alone.
    g.bench_function("read/reader_new", |b| {
        b.iter(|| {
            let mut r = StreamReader::new(black_box(&plain[..]), DefaultDeframer);
            black_box(read_reader(&mut r))
        })
    });
    let mut reader = StreamReader::new(Opaque(&plain[..]), DefaultDeframer);
    g.bench_function("read/reader_copy", |b| {
        b.iter(|| {
            reader.get_mut().0 = black_box(&plain[..]);
            black_box(read_reader(&mut reader))
        })
    });
    let mut reader = BufReadStreamReader::new(&plain[..], DefaultDeframer);
    g.bench_function("read/bufreader_slice", |b| {
        b.iter(|| {
            *reader.get_mut() = black_box(&plain[..]);
            black_box(read_buf_reader(&mut reader))
        })
    });
    let mut reader = BufReadStreamReader::new(Cursor::new(&plain[..]), DefaultDeframer);
    g.bench_function("read/bufreader_cursor", |b| {
        b.iter(|| {
            reader.get_mut().set_position(0);
            black_box(read_buf_reader(&mut reader))
        })
    });

    g.bench_function("read_xxh3/limit", |b| {
        b.iter(|| limit_read_xxh3(black_box(&xxh3)))
    });
    let deframer = ChecksumDeframer::new(XxHash64::new());
    g.bench_function("read_xxh3/slice", |b| {
        b.iter(|| read_slice(black_box(&xxh3), deframer))
    });
    let mut reader = StreamReader::new(&xxh3[..], deframer);
    g.bench_function("read_xxh3/reader_slice", |b| {
        b.iter(|| {
            *reader.get_mut() = black_box(&xxh3[..]);
            black_box(read_reader(&mut reader))
        })
    });
    let mut reader = StreamReader::new(Opaque(&xxh3[..]), deframer);
    g.bench_function("read_xxh3/reader_copy", |b| {
        b.iter(|| {
            reader.get_mut().0 = black_box(&xxh3[..]);
            black_box(read_reader(&mut reader))
        })
    });
    let mut reader = BufReadStreamReader::new(&xxh3[..], deframer);
    g.bench_function("read_xxh3/bufreader_slice", |b| {
        b.iter(|| {
            *reader.get_mut() = black_box(&xxh3[..]);
            black_box(read_buf_reader(&mut reader))
        })
    });
    g.finish();
}

/// Writes header and payload with one vectored write per call, until all is written.
fn write_vectored_all<W: Write>(w: &mut W, header: &[u8], payload: &[u8]) {
    let mut slices = [IoSlice::new(header), IoSlice::new(payload)];
    let mut bufs = &mut slices[..];
    while !bufs.is_empty() {
        let n = w.write_vectored(bufs).unwrap();
        IoSlice::advance_slices(&mut bufs, n);
    }
}

/// Writes one frame per iteration to `sink`, as two `write_all` calls (`two_writes/<sink>`) and
/// as vectored writes (`vectored/<sink>`); `reset` runs every 64 MiB to bound the sink's size.
fn bench_sink<W: Write>(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    sink_name: &str,
    sink: &mut W,
    payload: &[u8],
    mut reset: impl FnMut(&mut W),
) {
    let header = (payload.len() as u32).to_le_bytes();
    for vectored in [false, true] {
        let id = format!(
            "{}/{sink_name}",
            if vectored { "vectored" } else { "two_writes" }
        );
        let mut written = 0usize;
        g.bench_function(id, |b| {
            b.iter(|| {
                if vectored {
                    write_vectored_all(sink, &header, black_box(payload));
                } else {
                    sink.write_all(&header).unwrap();
                    sink.write_all(black_box(payload)).unwrap();
                }
                written += payload.len() + 4;
                if written > 64 << 20 {
                    reset(sink);
                    written = 0;
                }
            })
        });
    }
}

/// Does `write_vectored` pay? One frame (4-byte header + payload) per call, to a `Vec`, to a
/// `BufWriter<File>` (64 KiB) and to a raw `File`, written as two `write_all` calls or as
/// vectored writes. Files are rewound every 64 MiB so they stay in the page cache.
fn vectored(c: &mut Criterion) {
    let path =
        std::env::temp_dir().join(format!("flatstream-bench-vectored-{}", std::process::id()));
    for size in [256usize, 4096, 65536, 1 << 20] {
        let payload = vec![0x5Au8; size];
        let mut g = c.benchmark_group(format!("core/vectored/{size}"));
        g.throughput(Throughput::Bytes((size + 4) as u64));

        let mut vec = Vec::with_capacity(65 << 20);
        bench_sink(&mut g, "vec", &mut vec, &payload, Vec::clear);

        let file = File::create(&path).unwrap();
        let rewind = |f: &File| {
            f.set_len(0).unwrap();
            let mut f = f;
            f.seek(SeekFrom::Start(0)).unwrap();
        };
        let mut buffered = BufWriter::with_capacity(64 * 1024, file.try_clone().unwrap());
        bench_sink(&mut g, "bufwriter", &mut buffered, &payload, |w| {
            w.flush().unwrap();
            rewind(w.get_ref());
        });
        drop(buffered);
        let mut raw = file.try_clone().unwrap();
        rewind(&raw);
        bench_sink(&mut g, "file", &mut raw, &payload, |f| rewind(f));
        g.finish();
    }
    let _ = std::fs::remove_file(&path);
}

fn benches(c: &mut Criterion) {
    for n in [100u64, 100_000] {
        let numerics: Vec<Numeric> = (0..n).map(numeric).collect();
        suite(c, "numeric", &numerics);
        let strings: Vec<String> = (0..n).map(string16).collect();
        suite(c, "string16", &strings);
    }
}

criterion_group! {
    name = core;
    config = Criterion::default().warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    targets = benches, vectored
}
criterion_main!(core);
