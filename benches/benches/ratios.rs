//! Paired timing of the core suite's ratio targets: each flatstream side against its baseline
//! (the hand-written limit loop), over the messages of the `core/*` groups.
//!
//! The two sides of a pair run back to back, the order alternating from round to round, for
//! many rounds. Two criterion benchmarks are measured seconds apart, and on a shared machine
//! whose speed drifts (other tenants on the same cache) their ratio moves with the drift; the
//! two sides of a round are a fraction of a millisecond apart and see the same machine.
//!
//! The rounds run in several processes, one after the other, because the ratio also depends on
//! where a process's stack and heap happen to lie (address randomization): within one process
//! the rounds agree closely, across processes the writer's ratio was seen to move by 15 %. The
//! figures reported are the median and quartiles of the per-round ratios of all processes, and
//! the lowest and highest per-process median. The functions timed are the ones the criterion
//! rows of `core/*` time (`flatstream_bench::core_loops`).
//!
//! Prints a table, and writes `<target>/flatstream-bench/ratios.json`, where
//! `cargo xtask bench-report` reads it. In test mode (`--test`, or run by `cargo test` without
//! `--bench`) it runs three rounds of each pair in its own process, checks that both sides saw
//! the same payloads, and writes nothing.

use flatstream::read::BufReadStreamReader;
use flatstream::{
    ChecksumDeframer, DefaultDeframer, DefaultFramer, StreamReader, StreamSerialize, StreamWriter,
    XxHash64,
};
use flatstream_bench::core_loops::{
    finished_builders, flatstream_write, framed, fresh_limit, fresh_writer, limit_read,
    limit_read_copy, limit_read_xxh3, limit_write, numeric, payloads, read_buf_reader, read_reader,
    read_slice, string16,
};
use flatstream_bench::paths::out_dir;
use flatstream_test_support::Opaque;
use serde_json::json;
use std::cell::RefCell;
use std::hint::black_box;
use std::io::Cursor;
use std::time::Instant;

/// Processes outside test mode, and rounds per pair in each. `FLATSTREAM_RATIOS_PROCESSES` and
/// `FLATSTREAM_RATIOS_ROUNDS` override them for a quick look while working on the code; the
/// report's figures come from the defaults.
const PROCESSES: usize = 5;
const ROUNDS: usize = 101;

/// `default`, or the number in the environment variable `name`.
fn setting(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Set in the processes the bench starts: measure and print the rounds as JSON.
const CHILD_ENV: &str = "FLATSTREAM_RATIOS_CHILD";

/// One side of a pair: runs the work once and returns what it folded from the payloads.
type Side<'a> = Box<dyn FnMut() -> u64 + 'a>;

/// A flatstream side, the baseline it is compared with, and the target ratio, if the core
/// suite has one for it.
struct Pair<'a> {
    side: &'static str,
    baseline: &'static str,
    target: Option<f64>,
    run_side: Side<'a>,
    run_baseline: Side<'a>,
}

/// What the rounds of one pair gave.
struct Outcome {
    group: String,
    side: String,
    baseline: String,
    target: Option<f64>,
    /// Per-round ratios, sorted.
    ratios: Vec<f64>,
    /// The median of each process's rounds.
    process_medians: Vec<f64>,
}

/// The `q`-quantile of sorted values (nearest rank).
fn quantile(sorted: &[f64], q: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

impl Outcome {
    fn quantile(&self, q: f64) -> f64 {
        quantile(&self.ratios, q)
    }

    fn to_json(&self) -> serde_json::Value {
        json!({
            "group": self.group,
            "side": self.side,
            "baseline": self.baseline,
            "target": self.target,
            "ratios": self.ratios,
        })
    }

    fn from_json(v: &serde_json::Value) -> Option<Outcome> {
        let mut ratios: Vec<f64> = v["ratios"]
            .as_array()?
            .iter()
            .map(|r| r.as_f64())
            .collect::<Option<_>>()?;
        ratios.sort_by(f64::total_cmp);
        Some(Outcome {
            group: v["group"].as_str()?.to_owned(),
            side: v["side"].as_str()?.to_owned(),
            baseline: v["baseline"].as_str()?.to_owned(),
            target: v["target"].as_f64(),
            process_medians: vec![quantile(&ratios, 0.5)],
            ratios,
        })
    }

    /// Adds the rounds of another process.
    fn merge(&mut self, other: Outcome) {
        self.ratios.extend(other.ratios);
        self.ratios.sort_by(f64::total_cmp);
        self.process_medians.extend(other.process_medians);
    }
}

/// Mean time of `repeat` runs of `side`, in ns; checks what it returns.
fn time(side: &mut Side<'_>, repeat: usize, expected: u64, name: &str) -> f64 {
    let start = Instant::now();
    for _ in 0..repeat {
        let got = black_box(side());
        assert_eq!(got, expected, "{name} read other payloads than the limit");
    }
    start.elapsed().as_nanos() as f64 / repeat as f64
}

fn run_pair(
    group: &str,
    mut pair: Pair<'_>,
    expected: u64,
    repeat: usize,
    rounds: usize,
) -> Outcome {
    // Warm both sides up: caches, branch predictors, the readers' and writers' buffers.
    for _ in 0..3 {
        time(&mut pair.run_baseline, repeat, expected, pair.baseline);
        time(&mut pair.run_side, repeat, expected, pair.side);
    }
    let mut ratios = Vec::with_capacity(rounds);
    for round in 0..rounds {
        let (side, baseline) = if round % 2 == 0 {
            let b = time(&mut pair.run_baseline, repeat, expected, pair.baseline);
            (time(&mut pair.run_side, repeat, expected, pair.side), b)
        } else {
            let s = time(&mut pair.run_side, repeat, expected, pair.side);
            (
                s,
                time(&mut pair.run_baseline, repeat, expected, pair.baseline),
            )
        };
        ratios.push(side / baseline);
    }
    ratios.sort_by(f64::total_cmp);
    Outcome {
        group: group.to_owned(),
        side: pair.side.to_owned(),
        baseline: pair.baseline.to_owned(),
        target: pair.target,
        process_medians: vec![quantile(&ratios, 0.5)],
        ratios,
    }
}

/// Every pair of one group, `core/<name>/<n>`.
fn group<T: StreamSerialize>(name: &str, messages: &[T], rounds: usize) -> Vec<Outcome> {
    let group = format!("core/{name}/{}", messages.len());
    let payloads = payloads(messages);
    let plain = framed(&payloads, false);
    let xxh3 = framed(&payloads, true);
    let expected = limit_read(&plain);
    // Runs long enough (tens of microseconds at least) for the clock's resolution not to matter.
    let repeat = (100_000 / messages.len()).max(1);

    let mut scratch = vec![0u8; 64 * 1024];
    let mut slice_reader = StreamReader::new(&plain[..], DefaultDeframer);
    let mut cursor_reader = StreamReader::new(Cursor::new(&plain[..]), DefaultDeframer);
    let mut copying_reader = StreamReader::new(Opaque(&plain[..]), DefaultDeframer);
    let mut buf_reader = BufReadStreamReader::new(&plain[..], DefaultDeframer);
    let deframer = ChecksumDeframer::new(XxHash64::new());
    let mut xxh3_reader = StreamReader::new(&xxh3[..], deframer);
    let mut xxh3_copying = StreamReader::new(Opaque(&xxh3[..]), deframer);
    let mut xxh3_buf_reader = BufReadStreamReader::new(&xxh3[..], deframer);
    let limit = || limit_read(black_box(&plain));
    let limit_xxh3 = || limit_read_xxh3(black_box(&xxh3));
    let pairs = vec![
        Pair {
            side: "read/slice",
            baseline: "read/limit",
            target: Some(1.2),
            run_side: Box::new(|| read_slice(black_box(&plain), DefaultDeframer)),
            run_baseline: Box::new(limit),
        },
        Pair {
            side: "read/reader_slice",
            baseline: "read/limit",
            target: Some(1.5),
            run_side: Box::new(|| {
                *slice_reader.get_mut() = black_box(&plain[..]);
                read_reader(&mut slice_reader)
            }),
            run_baseline: Box::new(limit),
        },
        Pair {
            side: "read/reader_cursor",
            baseline: "read/limit",
            target: Some(1.5),
            run_side: Box::new(|| {
                cursor_reader.get_mut().set_position(0);
                read_reader(&mut cursor_reader)
            }),
            run_baseline: Box::new(limit),
        },
        Pair {
            side: "read/bufreader_slice",
            baseline: "read/limit",
            target: None,
            run_side: Box::new(|| {
                *buf_reader.get_mut() = black_box(&plain[..]);
                read_buf_reader(&mut buf_reader)
            }),
            run_baseline: Box::new(limit),
        },
        Pair {
            side: "read/reader_copy",
            baseline: "read/limit",
            target: None,
            run_side: Box::new(|| {
                copying_reader.get_mut().0 = black_box(&plain[..]);
                read_reader(&mut copying_reader)
            }),
            run_baseline: Box::new(limit),
        },
        Pair {
            side: "read/limit_copy",
            baseline: "read/limit",
            target: None,
            run_side: Box::new(|| limit_read_copy(black_box(&plain), &mut scratch)),
            run_baseline: Box::new(limit),
        },
        Pair {
            side: "read_xxh3/slice",
            baseline: "read_xxh3/limit",
            target: None,
            run_side: Box::new(|| read_slice(black_box(&xxh3), deframer)),
            run_baseline: Box::new(limit_xxh3),
        },
        Pair {
            side: "read_xxh3/reader_slice",
            baseline: "read_xxh3/limit",
            target: Some(1.3),
            run_side: Box::new(|| {
                *xxh3_reader.get_mut() = black_box(&xxh3[..]);
                read_reader(&mut xxh3_reader)
            }),
            run_baseline: Box::new(limit_xxh3),
        },
        Pair {
            side: "read_xxh3/bufreader_slice",
            baseline: "read_xxh3/limit",
            target: None,
            run_side: Box::new(|| {
                *xxh3_buf_reader.get_mut() = black_box(&xxh3[..]);
                read_buf_reader(&mut xxh3_buf_reader)
            }),
            run_baseline: Box::new(limit_xxh3),
        },
        Pair {
            side: "read_xxh3/reader_copy",
            baseline: "read_xxh3/limit",
            target: None,
            run_side: Box::new(|| {
                xxh3_copying.get_mut().0 = black_box(&xxh3[..]);
                read_reader(&mut xxh3_copying)
            }),
            run_baseline: Box::new(limit_xxh3),
        },
    ];
    let mut outcomes: Vec<Outcome> = pairs
        .into_iter()
        .map(|pair| run_pair(&group, pair, expected, repeat, rounds))
        .collect();

    // Both writers append to the same allocation: with 100 000 messages these are megabytes,
    // and two allocations need not be backed alike (huge pages or not).
    let writer = RefCell::new(StreamWriter::new(
        Vec::with_capacity(plain.len()),
        DefaultFramer,
    ));
    let written = plain.len() as u64;
    let write = Pair {
        side: "write/flatstream",
        baseline: "write/limit",
        target: Some(1.1),
        run_side: Box::new(|| {
            let mut writer = writer.borrow_mut();
            writer.get_mut().clear();
            flatstream_write(&mut writer, black_box(&payloads));
            writer.get_ref().len() as u64
        }),
        run_baseline: Box::new(|| {
            let mut writer = writer.borrow_mut();
            let out = writer.get_mut();
            out.clear();
            limit_write(out, black_box(&payloads));
            out.len() as u64
        }),
    };
    outcomes.push(run_pair(&group, write, written, repeat, rounds));

    // The write half of FlatStream 0.2.x's cycle benchmark: a fresh writer each time, over a
    // `Cursor` of a new `Vec` as 0.2.x's benchmark writes, so that constructing and dropping
    // the writer counts and the sink is not the `Vec` the compiler knows best.
    let builders = RefCell::new(finished_builders(messages));
    let fresh = Pair {
        side: "write/fresh_writer",
        baseline: "write/fresh_limit",
        target: None,
        run_side: Box::new(|| fresh_writer(&mut builders.borrow_mut()).len() as u64),
        run_baseline: Box::new(|| fresh_limit(&builders.borrow()).len() as u64),
    };
    outcomes.push(run_pair(&group, fresh, written, repeat, rounds));
    assert_eq!(
        writer.borrow().get_ref(),
        &plain,
        "the writers wrote other bytes"
    );
    outcomes
}

/// Every pair of every group, `rounds` rounds each, in this process.
fn measure(rounds: usize) -> Vec<Outcome> {
    let mut outcomes = Vec::new();
    for n in [100u64, 100_000] {
        let numerics: Vec<_> = (0..n).map(numeric).collect();
        outcomes.extend(group("numeric", &numerics, rounds));
        let strings: Vec<_> = (0..n).map(string16).collect();
        outcomes.extend(group("string16", &strings, rounds));
    }
    outcomes
}

/// Runs `measure` in `PROCESSES` fresh processes, one after the other, and pools their rounds.
fn measure_in_processes() -> std::io::Result<Vec<Outcome>> {
    let exe = std::env::current_exe()?;
    let mut pooled: Vec<Outcome> = Vec::new();
    for _ in 0..setting("FLATSTREAM_RATIOS_PROCESSES", PROCESSES) {
        let out = std::process::Command::new(&exe)
            .args(std::env::args().skip(1))
            .env(CHILD_ENV, "1")
            .output()?;
        if !out.status.success() {
            return Err(std::io::Error::other(format!(
                "measuring process failed ({}): {}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
            )));
        }
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout)?;
        let outcomes = doc["ratios"]
            .as_array()
            .and_then(|rows| {
                rows.iter()
                    .map(Outcome::from_json)
                    .collect::<Option<Vec<_>>>()
            })
            .ok_or_else(|| std::io::Error::other("unreadable output of a measuring process"))?;
        if pooled.is_empty() {
            pooled = outcomes;
        } else {
            for (p, o) in pooled.iter_mut().zip(outcomes) {
                assert_eq!((&p.group, &p.side), (&o.group, &o.side));
                p.merge(o);
            }
        }
    }
    Ok(pooled)
}

fn main() -> std::io::Result<()> {
    // `cargo bench` passes `--bench`; `cargo test --benches` does not (criterion then tests).
    let args: Vec<String> = std::env::args().collect();
    let test_mode = args.iter().any(|a| a == "--test") || !args.iter().any(|a| a == "--bench");
    if std::env::var_os(CHILD_ENV).is_some() {
        let rounds = setting("FLATSTREAM_RATIOS_ROUNDS", ROUNDS);
        let rows: Vec<_> = measure(rounds).iter().map(Outcome::to_json).collect();
        println!("{}", json!({ "ratios": rows }));
        return Ok(());
    }
    let outcomes = if test_mode {
        measure(3)
    } else {
        measure_in_processes()?
    };

    println!(
        "{:<22} {:<26} {:>7} {:>15} {:>15} {:>6}",
        "group", "side / baseline", "median", "quartiles", "processes", "target"
    );
    for o in &outcomes {
        let lowest = o.process_medians.iter().copied().fold(f64::MAX, f64::min);
        let highest = o.process_medians.iter().copied().fold(f64::MIN, f64::max);
        println!(
            "{:<22} {:<26} {:>7.3} {:>7.3}-{:<7.3} {:>7.3}-{:<7.3} {:>6}",
            o.group,
            o.side,
            o.quantile(0.5),
            o.quantile(0.25),
            o.quantile(0.75),
            lowest,
            highest,
            o.target.map_or("-".to_owned(), |t| format!("{t:.1}")),
        );
    }
    if test_mode {
        return Ok(());
    }
    let rows: Vec<_> = outcomes
        .iter()
        .map(|o| {
            let lowest = o.process_medians.iter().copied().fold(f64::MAX, f64::min);
            let highest = o.process_medians.iter().copied().fold(f64::MIN, f64::max);
            json!({
                "group": o.group,
                "side": o.side,
                "baseline": o.baseline,
                "target": o.target,
                "processes": o.process_medians.len(),
                "rounds": o.ratios.len(),
                "median": o.quantile(0.5),
                "q1": o.quantile(0.25),
                "q3": o.quantile(0.75),
                "lowest_process_median": lowest,
                "highest_process_median": highest,
            })
        })
        .collect();
    let dir = out_dir();
    std::fs::create_dir_all(&dir)?;
    let out = dir.join("ratios.json");
    let doc = json!({ "ratios": rows });
    std::fs::write(&out, serde_json::to_string_pretty(&doc)? + "\n")?;
    println!("wrote {}", out.display());
    Ok(())
}
