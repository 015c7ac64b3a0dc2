//! `flatstream recover`, `salvage` and `convert` on damaged and intact streams: the README's
//! story (a demo stream damaged by hand, diagnosed, repaired and salvaged with the commands
//! alone), byte-exact cuts, and conversions between every pair of framings.

mod common;
use common::*;
use flatstream::ChecksumKind;

#[test]
fn a_torn_tail_is_reported_then_cut_byte_exact() {
    let dir = Dir::new();
    let (bytes, at) = telemetry_at(500, ChecksumKind::XxHash64);
    let cut = bytes.len() - 25;
    let path = dir.file("journal", &bytes[..cut]);

    // Damage found, nothing changed.
    let r = run(&["recover", &path, "--json"]).exits(1).json();
    assert_eq!(
        (&r["frames"], &r["valid_len"], &r["end"]),
        (&499.into(), &at[499].into(), &"torn_tail".into())
    );
    assert_eq!(
        (&r["discarded"], &r["truncated"]),
        (&(cut as u64 - at[499]).into(), &false.into())
    );
    assert_eq!(
        std::fs::read(&path).unwrap().len(),
        cut,
        "a dry run changes nothing"
    );

    let out = run(&["recover", &path, "--truncate"]);
    assert_contains(
        &out.ok().stdout,
        &format!("the file now ends at {}", at[499]),
    );
    assert_eq!(std::fs::read(&path).unwrap(), &bytes[..at[499] as usize]);
    run(&["verify", &path]).ok();
    // Clean now: nothing to do, exit 0.
    assert_contains(&run(&["recover", &path]).ok().stdout, "nothing to cut");
}

#[test]
fn a_corrupt_frame_is_not_cut_unless_asked() {
    let dir = Dir::new();
    let (bytes, at) = telemetry_at(300, ChecksumKind::Crc32);
    let damaged = flipped(&bytes, at[150] + 9, 0x40);
    let path = dir.file("j", &damaged);
    let line = run(&["recover", &path, "--truncate"]).one_line_error(1);
    assert_contains(
        &line,
        &format!("the frame at byte offset {} is corrupt", at[150]),
    );
    assert_contains(&line, "flatstream salvage");
    assert_eq!(std::fs::read(&path).unwrap(), damaged, "left as it is");

    run(&["recover", &path, "--truncate", "--cut-corrupt"]).ok();
    assert_eq!(std::fs::read(&path).unwrap(), &bytes[..at[150] as usize]);
}

#[test]
fn truncate_needs_a_file() {
    let line = run_stdin(&["recover", "-", "--truncate"], &[1, 2, 3]).one_line_error(2);
    assert_contains(&line, "--truncate needs a file");
}

/// The README's session: the demo's stream, a byte flipped and the tail cut by hand; the
/// commands alone find the damage, keep every intact frame, and leave a clean stream.
#[test]
fn a_damaged_demo_stream_is_diagnosed_repaired_and_salvaged() {
    let dir = Dir::new();
    let (bytes, at) = telemetry_at(10_000, ChecksumKind::XxHash64);
    let mut damaged = flipped(&bytes, at[4321] + 17, 0xFF); // a flipped byte in frame 4321
    damaged.truncate(damaged.len() - 7); // a cut tail
    let path = dir.file("demo.fstream", &damaged);

    // Diagnosed: verify names the first damage, --all counts both.
    assert_starts_with(
        &run(&["verify", &path]).one_line_error(1),
        &format!(
            "flatstream: frame 4321 at byte offset {}: checksum mismatch",
            at[4321]
        ),
    );
    let r = run(&["verify", &path, "--all", "--json"]).json();
    assert_eq!(
        (&r["errors"], &r["frames"]),
        (&2.into(), &9998.into()),
        "{r}"
    );

    // Salvaged: every intact frame, the two damaged ranges reported.
    let clean = dir.path("clean.fstream");
    let r = run(&["salvage", &path, "-o", &clean, "--json"])
        .exits(1)
        .json();
    assert_eq!(r["frames"], 9998);
    assert_eq!(r["skipped"][0], serde_json::json!([at[4321], at[4322]]));
    assert_eq!(
        r["skipped"][1],
        serde_json::json!([at[9999], damaged.len()])
    );
    let out = run(&["verify", &clean, "--schema", &telemetry_bfbs()]);
    assert_starts_with(&out.ok().stdout, "ok: 9998 frames");
    let mut expected = bytes[..at[4321] as usize].to_vec();
    expected.extend_from_slice(&bytes[at[4322] as usize..at[9999] as usize]);
    assert_eq!(std::fs::read(&clean).unwrap(), expected);

    // Repaired in place: only the intact prefix can stay (the corruption needs --cut-corrupt).
    run(&["recover", &path, "--truncate", "--cut-corrupt"]).ok();
    assert_eq!(std::fs::read(&path).unwrap(), &bytes[..at[4321] as usize]);
    run(&["verify", &path]).ok();
}

#[test]
fn salvage_writes_to_stdout_and_reports_on_stderr() {
    let (bytes, at) = telemetry_at(100, ChecksumKind::Crc32c);
    let damaged = flipped(&bytes, at[50] + 10, 1);
    let out = run_stdin(&["salvage", "-", "-o", "-"], &damaged);
    out.exits(1);
    let mut expected = bytes[..at[50] as usize].to_vec();
    expected.extend_from_slice(&bytes[at[51] as usize..]);
    assert_eq!(out.stdout_bytes, expected);
    assert_starts_with(&out.stderr, "kept 99 frames (crc32c) into stdout; skipped");
}

#[test]
fn salvage_refuses_a_stream_without_a_checksum_and_its_own_input() {
    let dir = Dir::new();
    let path = dir.file("plain", &telemetry(10, ChecksumKind::None));
    let out = dir.path("out");
    let line = run(&["salvage", &path, "-o", &out]).one_line_error(2);
    assert_contains(&line, "salvage needs a checksummed stream");
    let path = dir.file("x", &telemetry(10, ChecksumKind::XxHash64));
    let line = run(&["salvage", &path, "-o", &path]).one_line_error(2);
    assert_contains(&line, "is the input file");
    assert_eq!(
        std::fs::read(&path).unwrap(),
        telemetry(10, ChecksumKind::XxHash64)
    );
}

#[test]
fn convert_reframes_between_every_pair_of_framings() {
    let dir = Dir::new();
    for from in ChecksumKind::ALL {
        let input = dir.file("in", &telemetry(200, from));
        for to in ChecksumKind::ALL {
            let output = dir.path("out");
            run(&["convert", &input, "-o", &output, "--to-checksum", to.name()]).ok();
            assert_eq!(
                std::fs::read(&output).unwrap(),
                telemetry(200, to),
                "{from} -> {to}"
            );
        }
    }
    // Through pipes, the framing given.
    let out = run_stdin(
        &[
            "convert",
            "-",
            "-o",
            "-",
            "--checksum",
            "none",
            "--to-checksum",
            "xxhash64",
        ],
        &telemetry(50, ChecksumKind::None),
    );
    out.ok();
    assert_eq!(out.stdout_bytes, telemetry(50, ChecksumKind::XxHash64));
}

#[test]
fn convert_stops_at_damage_and_keeps_what_it_wrote() {
    let dir = Dir::new();
    let (bytes, at) = telemetry_at(100, ChecksumKind::Crc16);
    let input = dir.file("in", &flipped(&bytes, at[60] + 8, 2));
    let output = dir.path("out");
    let line = run(&["convert", &input, "-o", &output, "--to-checksum", "none"]).one_line_error(1);
    assert_contains(&line, &format!("frame 60 at byte offset {}", at[60]));
    assert_ends_with(&line, &format!("{output} holds the 60 frames before it"));
    let written = std::fs::read(&output).unwrap();
    assert_eq!(offsets(&written, ChecksumKind::None).len(), 60);
    let line = run(&["convert", &input, "-o", &input, "--to-checksum", "none"]).one_line_error(2);
    assert_contains(&line, "is the input file");
}
