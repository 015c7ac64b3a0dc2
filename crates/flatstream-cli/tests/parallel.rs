//! `flatstream verify` on several threads gives exactly what it gives on one: the same exit
//! status, stdout and stderr (so the same first error, frame index and byte offset, the same
//! `--all` counts and `--json` report), on intact and damaged files, whatever the splits.
//!
//! The real binary runs each file both ways: `--threads 1` (the serial path) and `--threads
//! 2` with `FLATSTREAM_SPLIT_LEN` set to splits of a few dozen bytes to 64 KiB, so that the
//! cuts fall inside frames, inside damage and inside payloads that hold frames of their own.

mod common;
use common::*;
use flatstream::checksum::ChecksumKind;

/// Split lengths: every frame cut (64), a few frames per split, the smallest default.
const SPLITS: [&str; 3] = ["64", "1000", "65536"];

/// Runs `verify FILE EXTRA` serially and on two threads with every split length, asserts the
/// outputs are the same, and returns the serial one.
fn same_both_ways(path: &str, extra: &[&str]) -> Out {
    let args = |threads| [&["verify", path, "--threads", threads][..], extra].concat();
    let serial = run(&args("1"));
    for split in SPLITS {
        let parallel = run_with(&args("2"), None, &[("FLATSTREAM_SPLIT_LEN", split)]);
        assert_eq!(
            (parallel.status, &parallel.stdout, &parallel.stderr),
            (serial.status, &serial.stdout, &serial.stderr),
            "verify {path} {extra:?}, splits of {split} bytes: parallel (left) != serial (right)"
        );
    }
    serial
}

/// [`same_both_ways`] with each of: nothing, `--all`, `--json`, `--all --json` after `extra`;
/// returns the serial `--all --json` report.
fn same_every_way(path: &str, extra: &[&str]) -> serde_json::Value {
    let mut report = serde_json::Value::Null;
    for more in [&[][..], &["--all"], &["--json"], &["--all", "--json"]] {
        let out = same_both_ways(path, &[extra, more].concat());
        if more.len() == 2 {
            report = out.json();
        }
    }
    report
}

/// Deterministic bytes that look like nothing (xorshift).
fn noise(n: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

#[test]
fn intact_streams_of_every_framing() {
    let dir = Dir::new();
    for kind in ChecksumKind::ALL {
        let bytes = telemetry(2000, kind);
        let path = dir.file(kind.name(), &bytes);
        let r = same_every_way(&path, &[]);
        assert_eq!((&r["ok"], &r["frames"]), (&true.into(), &2000.into()));
    }
}

#[test]
fn a_flipped_payload_byte() {
    let Capture { dir, bytes, at } = Capture::new(2000, ChecksumKind::XxHash64);
    let path = dir.file("flipped", &flipped(&bytes, at[1313] + 30, 0x01));
    let r = same_every_way(&path, &[]);
    assert_eq!(r["first_error"]["index"], 1313);
    assert_eq!(r["first_error"]["offset"], at[1313]);
    assert_eq!((&r["errors"], &r["frames"]), (&1.into(), &1999.into()));
}

#[test]
fn a_flipped_length_byte() {
    let dir = Dir::new();
    for (kind, flip) in [
        (ChecksumKind::Crc32c, 0x01), // a length 1 byte off: the frames after it misalign
        (ChecksumKind::Crc32, 0x40),  // a length of 16 MiB more: over what is left
        (ChecksumKind::Crc16, 0x80),
    ] {
        let (bytes, at) = telemetry_at(2000, kind);
        let byte = if flip == 0x01 { 0 } else { 3 };
        let path = dir.file("length", &flipped(&bytes, at[700] + byte, flip));
        let r = same_every_way(&path, &[]);
        assert_eq!(r["first_error"]["index"], 700, "{kind}: {r}");
        assert_eq!(r["first_error"]["offset"], at[700], "{kind}: {r}");
    }
}

#[test]
fn a_cut_tail_and_damage_all_along() {
    let Capture { dir, bytes, at } = Capture::new(3000, ChecksumKind::Crc32c);
    let path = dir.file("cut", &bytes[..bytes.len() - 10]);
    let r = same_every_way(&path, &[]);
    assert_eq!(r["first_error"]["kind"], "torn_tail");
    assert_eq!(r["first_error"]["index"], 2999);

    let mut damaged = bytes.clone();
    for frame in [100, 500, 501, 900, 2500] {
        damaged[at[frame] as usize + 12] ^= 0xFF;
    }
    // A run of zeros (a crash on a file system that zero-fills) and some noise.
    damaged[at[1200] as usize + 5..at[1260] as usize + 7].fill(0);
    let noise_at = at[2000] as usize + 9;
    damaged.splice(noise_at..noise_at, noise(3000, 7));
    damaged.truncate(damaged.len() - 3);
    let path = dir.file("damaged", &damaged);
    let r = same_every_way(&path, &[]);
    assert_eq!(r["first_error"]["index"], 100, "{r}");
    assert!(r["errors"].as_u64().unwrap() >= 7, "{r}");
}

#[test]
fn payloads_that_hold_frames_of_their_own() {
    // Every other payload is itself a stream with the same framing, whose inner frames
    // verify: resynchronization inside such a payload starts on an inner frame, and only
    // the join check tells.
    let dir = Dir::new();
    for kind in [ChecksumKind::XxHash64, ChecksumKind::Crc16] {
        let payloads: Vec<Vec<u8>> = (0..300u32)
            .map(|i| {
                if i % 2 == 0 {
                    let inner: Vec<Vec<u8>> = (0..1 + i % 25)
                        .map(|j| noise(8 + (j as usize * 7) % 90, u64::from(i * 100 + j)))
                        .collect();
                    framed(kind, &inner)
                } else {
                    noise(20 + i as usize % 50, u64::from(i))
                }
            })
            .collect();
        let bytes = framed(kind, &payloads);
        let path = dir.file("nested", &bytes);
        let r = same_every_way(&path, &[]);
        assert_eq!((&r["ok"], &r["frames"]), (&true.into(), &300.into()), "{r}");

        // Damage an outer header whose payload is full of frames: with --all, resynchronising
        // finds the inner frames, as the serial path does.
        let at = offsets(&bytes, kind);
        for frame in [100, 250] {
            let damaged = flipped(&bytes, at[frame] + 4, 0x10); // its checksum
            let path = dir.file("nested-damaged", &damaged);
            let r = same_every_way(&path, &[]);
            assert_eq!(r["first_error"]["index"], frame, "{kind}: {r}");
            assert!(
                r["frames"].as_u64().unwrap() > 299,
                "inner frames count: {r}"
            );
        }
    }
}

#[test]
fn frames_larger_than_the_bound_splits_are_found_with() {
    // Splits are found with frames of at most 1 MiB (more if the leading frames are larger):
    // a 3 MiB frame in the middle is never a split's first frame, and a split inside it
    // starts on the frame after it, or joins from the serial walk.
    let dir = Dir::new();
    let mut payloads: Vec<Vec<u8>> = (0..400).map(|i| noise(40 + i % 30, i as u64)).collect();
    // Bytes that read as lengths over any bound: a split inside it examines every offset
    // cheaply (noise would cost a checksum over up to 1 MiB at one offset in 4096).
    payloads.insert(200, vec![0xAB; 3 << 20]);
    let bytes = framed(ChecksumKind::XxHash64, &payloads);
    let path = dir.file("large", &bytes);
    let r = same_every_way(&path, &[]);
    assert_eq!((&r["ok"], &r["frames"]), (&true.into(), &401.into()), "{r}");
    // Under a bound the large frame is over: a corrupt length at its offset.
    let r = same_every_way(&path, &["--max-frame-len", "100000"]);
    assert_eq!(r["first_error"]["kind"], "too_large", "{r}");
    assert_eq!(r["first_error"]["index"], 200, "{r}");
}

#[test]
fn a_schema_with_and_without_a_checksum() {
    let dir = Dir::new();
    let schema = telemetry_bfbs();
    for kind in [ChecksumKind::XxHash64, ChecksumKind::None] {
        let bytes = telemetry(1500, kind);
        let mut payloads = payloads(&bytes, kind);
        let path = dir.file("good", &bytes);
        let r = same_every_way(&path, &["--schema", &schema]);
        assert_eq!((&r["ok"], &r["frames"]), (&true.into(), &1500.into()));

        for i in [7, 800, 801, 1499] {
            payloads[i] = vec![0xFF; 16]; // not a telemetry table
        }
        let path = dir.file("bad", &framed(kind, &payloads));
        let r = same_every_way(&path, &["--schema", &schema]);
        assert_eq!(r["first_error"]["index"], 7, "{kind}: {r}");
        assert_eq!((&r["errors"], &r["frames"]), (&4.into(), &1500.into()));
    }
}

#[test]
fn the_default_is_the_serial_path_below_the_threshold() {
    // Nothing to compare but the output: a small file verified by default, and on one thread.
    let dir = Dir::new();
    let path = dir.file("t", &telemetry(500, ChecksumKind::XxHash64));
    let by_default = run(&["verify", &path]);
    assert_eq!(
        by_default.ok().stdout,
        run(&["verify", &path, "-j", "1"]).stdout
    );
    let line = run(&["verify", &path, "--threads", "0"])
        .stderr
        .lines()
        .next()
        .unwrap_or_default()
        .to_owned();
    assert_contains(&line, "--threads");
}
