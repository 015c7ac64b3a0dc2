//! Durable journals: the cost of each sync policy, per frame written to a file on this
//! machine's disk (under the target directory, not a tmpfs) through a `BufWriter`.
//!
//! Ids: `journal/write/<policy>/<payload bytes>`, policies `never`, `every-1`, `every-100`,
//! `every-1000` (frames) and `every-1ms`; one frame per iteration, so the time is the mean
//! latency of a frame, syncs included. The writer lives across samples, and the file is
//! started afresh (outside the timing) once it passes 64 MiB.
//!
//! Outside test mode it writes `<target>/flatstream-bench/journal.json`, naming the file system
//! the file is on, where `cargo xtask bench-report` reads it.

use criterion::{BenchmarkId, Criterion, SamplingMode, Throughput};
use flatstream::journal::{NeverSync, SyncEveryFrames, SyncInterval, SyncPolicy};
use flatstream::write::PlainWrites;
use flatstream::{DefaultFramer, StreamWriter};
use flatstream_bench::paths::{out_dir, payload, scratch_file};
use serde_json::json;
use std::fs::File;
use std::io::BufWriter;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// The file is started afresh once it is this long.
const FILE_LIMIT: u64 = 64 << 20;

type Journal<P> = StreamWriter<BufWriter<File>, DefaultFramer, PlainWrites, P>;

fn open<P: SyncPolicy<BufWriter<File>>>(path: &Path, policy: P) -> Journal<P> {
    let file = BufWriter::with_capacity(64 * 1024, File::create(path).expect("journal file"));
    StreamWriter::new(file, DefaultFramer).with_sync(policy)
}

fn bench_policy<P, M>(c: &mut Criterion, name: &str, len: usize, policy: M)
where
    P: SyncPolicy<BufWriter<File>>,
    M: Fn() -> P,
{
    let path = scratch_file(&format!("journal_{name}_{len}.fstream")).expect("scratch dir");
    let p = payload(len);
    let mut group = c.benchmark_group("journal/write");
    group.throughput(Throughput::Elements(1));
    group.sampling_mode(SamplingMode::Flat);
    group.sample_size(20);
    let mut writer = open(&path, policy());
    group.bench_function(BenchmarkId::new(name, len), |b| {
        b.iter_custom(|iters| {
            if writer.bytes_written() > FILE_LIMIT {
                writer = open(&path, policy());
            }
            let start = Instant::now();
            for _ in 0..iters {
                writer.write_payload(&p).expect("write");
            }
            start.elapsed()
        });
    });
    group.finish();
    drop(writer);
    let _ = std::fs::remove_file(&path);
}

fn journal(c: &mut Criterion) {
    for len in [64, 4096] {
        bench_policy(c, "never", len, || NeverSync);
        for n in [1, 100, 1000] {
            bench_policy(c, &format!("every-{n}"), len, || SyncEveryFrames::new(n));
        }
        bench_policy(c, "every-1ms", len, || {
            SyncInterval::new(Duration::from_millis(1))
        });
    }
}

/// The file system the journal files are on, as `findmnt` names it (`ext4`, `xfs`, ...).
fn file_system(path: &Path) -> String {
    Command::new("findmnt")
        .args(["-n", "-o", "FSTYPE,SOURCE", "-T"])
        .arg(path)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| {
            let text = String::from_utf8_lossy(&o.stdout);
            text.split_whitespace().collect::<Vec<_>>().join(" on ")
        })
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "unknown".to_owned())
}

fn main() {
    let test_mode = std::env::args().any(|a| a == "--test");
    let mut c = Criterion::default().configure_from_args();
    journal(&mut c);
    c.final_summary();
    if !test_mode {
        let dir = out_dir();
        let fs = file_system(&dir);
        let text = serde_json::to_string_pretty(&json!({ "filesystem": fs })).unwrap();
        std::fs::write(dir.join("journal.json"), text + "\n").expect("journal.json");
    }
}
