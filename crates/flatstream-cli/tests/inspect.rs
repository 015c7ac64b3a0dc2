//! `flatstream inspect` on real streams: framing detection on every framing, the golden
//! streams, ambiguous inputs, the report's figures and how a stream ends.

mod common;
use common::*;
use flatstream::checksum::ChecksumKind;

#[test]
fn detects_every_framing_of_the_telemetry_stream() {
    let dir = Dir::new();
    for kind in ChecksumKind::ALL {
        let bytes = telemetry(500, kind);
        let path = dir.file(&format!("{kind}.fstream"), &bytes);
        let r = run(&["inspect", &path, "--json"]).ok().json();
        assert_eq!(r["framing"], kind.name(), "{r}");
        assert!(r["detection"].as_str().unwrap().contains("detected"), "{r}");
        assert_eq!(r["frames"], 500);
        assert_eq!(r["bytes"], bytes.len());
        assert_eq!(r["end"], "clean");
        let header = 4 + kind.size() as u64;
        assert_eq!(r["header_bytes"], 500 * header);
        assert_eq!(r["payload_bytes"], bytes.len() as u64 - 500 * header);
    }
}

#[test]
fn detects_the_framing_of_every_golden_stream() {
    let dir = Dir::new();
    for kind in ChecksumKind::ALL {
        for case in ["small", "multi"] {
            let path = dir.file(&format!("{kind}-{case}"), &golden(kind, case));
            let r = run(&["inspect", &path, "--json"]).json();
            assert_eq!(r["framing"], kind.name(), "{kind}-{case}: {r}");
            assert_eq!(r["end"], "clean", "{kind}-{case}: {r}");
        }
        // One empty payload: XXH3 of nothing is not 0, so it tells; the CRCs' and no
        // checksum's frames of nothing are zero bytes, which every one of them reads.
        let path = dir.file(&format!("{kind}-empty"), &golden(kind, "empty"));
        let out = run(&["inspect", &path, "--json"]);
        let r = out.json();
        if kind == ChecksumKind::XxHash64 {
            assert_eq!((out.status, &r["framing"]), (0, &"xxhash64".into()), "{r}");
        } else {
            assert_eq!(out.status, 1, "{r}");
            assert!(r["framing"].is_null(), "{r}");
            assert_contains(r["detection"].as_str().unwrap(), "all zero bytes");
        }
    }
}

#[test]
fn the_payload_sizes_are_counted_exactly() {
    let dir = Dir::new();
    let payloads: Vec<Vec<u8>> = (1..=100u8).map(|n| vec![n; usize::from(n)]).collect();
    let path = dir.file("sizes", &framed(ChecksumKind::Crc32c, &payloads));
    let r = run(&["inspect", &path, "--json"]).json();
    assert_eq!(r["framing"], "crc32c");
    assert_eq!(
        (
            &r["payload_min"],
            &r["payload_median"],
            &r["payload_p99"],
            &r["payload_max"]
        ),
        (&1.into(), &50.into(), &99.into(), &100.into())
    );
    assert_eq!(r["payload_bytes"], 5050);
    // The text report says the same.
    let out = run(&["inspect", &path]);
    assert_contains(&out.ok().stdout, "min 1, median 50, p99 99, max 100");
    assert_contains(&out.stdout, "crc32c (detected");
}

#[test]
fn an_empty_input_is_clean_and_says_its_framing_is_unknown() {
    let dir = Dir::new();
    let path = dir.file("empty", &[]);
    for r in [
        run(&["inspect", &path, "--json"]),
        run_stdin(&["inspect", "-", "--json"], &[]),
    ] {
        let r = r.ok().json();
        assert_eq!(
            (&r["frames"], &r["bytes"], &r["end"]),
            (&0.into(), &0.into(), &"clean".into())
        );
        assert_contains(r["detection"].as_str().unwrap(), "empty");
    }
}

#[test]
fn all_zero_bytes_are_ambiguous_and_the_report_says_why() {
    let dir = Dir::new();
    let path = dir.file("zeros", &[0; 4096]);
    let r = run(&["inspect", &path, "--json"]).exits(1).json();
    assert!(r["framing"].is_null());
    assert_eq!(
        r["candidates"],
        serde_json::json!(["none", "crc32", "crc16", "crc32c"])
    );
    assert_starts_with(
        r["detection"].as_str().unwrap(),
        "ambiguous: the input is all zero bytes",
    );
    // Told the framing, it reads them as what they are under it.
    let r = run(&["inspect", &path, "--json", "--checksum", "crc16"]).json();
    assert_eq!(
        (&r["frames"], &r["end"]),
        (&(4096 / 6).into(), &"torn_tail".into())
    );
}

#[test]
fn garbage_is_unknown_with_what_each_framing_read() {
    let dir = Dir::new();
    let garbage: Vec<u8> = (0..4096u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 24) as u8 | 0x80)
        .collect();
    let path = dir.file("garbage", &garbage);
    let out = run(&["inspect", &path]);
    assert_contains(
        &out.exits(1).stdout,
        "unknown: no framing reads the leading frames",
    );
    assert_contains(&out.stdout, "xxhash64: frame 0");
}

#[test]
fn a_torn_tail_and_a_corrupt_frame_are_reported_with_their_offsets() {
    let Capture { dir, bytes, at } = Capture::new(100, ChecksumKind::XxHash64);

    let torn = dir.file("torn", &bytes[..bytes.len() - 5]);
    let r = run(&["inspect", &torn, "--json"]).exits(1).json();
    assert_eq!(
        (&r["frames"], &r["end"], &r["end_offset"]),
        (&99.into(), &"torn_tail".into(), &at[99].into())
    );

    let corrupt = dir.file("corrupt", &flipped(&bytes, at[40] + 20, 0x10));
    assert_contains(
        &run(&["inspect", &corrupt]).exits(1).stdout,
        &format!(
            "frame 40 at byte offset {}: corrupt frame: checksum mismatch",
            at[40]
        ),
    );
}

#[test]
fn reads_standard_input() {
    let bytes = telemetry(300, ChecksumKind::Crc32);
    let r = run_stdin(&["inspect", "-", "--json"], &bytes).ok().json();
    assert_eq!(
        (&r["framing"], &r["frames"], &r["file"]),
        (&"crc32".into(), &300.into(), &"stdin".into())
    );
    assert_eq!(r["bytes"], bytes.len());
}

#[test]
fn a_stream_longer_than_the_detection_window_is_read_whole() {
    // More than the 1 MiB detection reads, through stdin (head and rest chained).
    let bytes = telemetry(40_000, ChecksumKind::Crc16);
    assert!(bytes.len() > 1 << 20);
    let r = run_stdin(&["inspect", "-", "--json"], &bytes).json();
    assert_eq!(
        (&r["framing"], &r["frames"], &r["bytes"]),
        (&"crc16".into(), &40_000.into(), &bytes.len().into())
    );
}
