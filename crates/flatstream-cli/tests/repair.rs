//! `flatstream recover`, `salvage` and `convert` on damaged and intact streams: the README's
//! story (a demo stream damaged by hand, diagnosed, repaired and salvaged with the commands
//! alone), byte-exact cuts, and conversions between every pair of framings.

mod common;
use common::*;
use flatstream::checksum::ChecksumKind;

#[test]
fn a_torn_tail_is_reported_then_cut_byte_exact() {
    let Capture { dir, bytes, at } = Capture::new(500, ChecksumKind::XxHash64);
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
    let Capture { dir, bytes, at } = Capture::new(300, ChecksumKind::Crc32);
    let (damaged, path) = dir.file_of("j", flipped(&bytes, at[150] + 9, 0x40));
    let line = run(&["recover", &path, "--truncate"]).one_line_error(1);
    assert_contains(
        &line,
        &format!(
            "the frame at byte offset {}: corrupt frame: checksum mismatch",
            at[150]
        ),
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
    let Capture { dir, bytes, at } = Capture::new(10_000, ChecksumKind::XxHash64);
    let mut damaged = flipped(&bytes, at[4321] + 17, 0xFF); // a flipped byte in frame 4321
    damaged.truncate(damaged.len() - 7); // a cut tail
    let path = dir.file("demo.fstream", &damaged);

    // Diagnosed: verify names the first damage, --all counts both.
    run(&["verify", &path]).stops_at(4321, at[4321], "corrupt frame: checksum mismatch");
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
    let Capture { dir, bytes, at } = Capture::new(100, ChecksumKind::Crc16);
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

/// Each damaged-length case of a small stream, for every checksummed framing: the high byte
/// set to 0x7f, and a high or a low bit flipped, in each byte of each frame's length field.
fn damaged_lengths(bytes: &[u8], at: &[u64]) -> Vec<(usize, Vec<u8>)> {
    let mut cases = Vec::new();
    for (frame, &start) in at.iter().enumerate() {
        for byte in start..start + 4 {
            for damage in [0x80, 0x01] {
                cases.push((frame, flipped(bytes, byte, damage)));
            }
        }
        let mut high = bytes.to_vec();
        high[start as usize + 3] = 0x7f;
        cases.push((frame, high));
    }
    cases
}

/// `recover --truncate` on every damaged length of a test stream: it cuts nothing but a
/// damaged last frame; anywhere else it exits 1, leaves the file byte for byte as it was, and
/// points to salvage.
#[test]
fn truncate_refuses_every_damaged_length_that_intact_frames_follow() {
    let dir = Dir::new();
    for kind in [
        ChecksumKind::XxHash64,
        ChecksumKind::Crc32,
        ChecksumKind::Crc16,
        ChecksumKind::Crc32c,
    ] {
        let (bytes, at) = telemetry_at(6, kind);
        let last = at.len() - 1;
        for (frame, damaged) in damaged_lengths(&bytes, &at) {
            let path = dir.file("damaged", &damaged);
            let out = run(&["recover", &path, "--truncate", "--checksum", kind.name()]);
            let case = format!("{kind}, frame {frame}: {out:?}");
            if frame == last && out.status == 0 {
                // A damaged last frame is a torn tail to any reader: only it is cut.
                assert_eq!(
                    std::fs::read(&path).unwrap(),
                    &bytes[..at[last] as usize],
                    "{case}"
                );
                continue;
            }
            let line = out.one_line_error(1);
            assert_contains(&line, "flatstream salvage");
            assert_contains(&line, &format!("byte offset {}", at[frame]));
            assert_eq!(
                std::fs::read(&path).unwrap(),
                damaged,
                "{case}: left as it is"
            );
        }
    }
}

#[test]
fn a_damaged_length_is_reported_as_damage_with_where_the_frames_resume() {
    let Capture { dir, bytes, at } = Capture::new(1000, ChecksumKind::XxHash64);
    let path = dir.file("damaged", &long_length(&bytes, at[100]));
    let r = run(&["recover", &path, "--json"]).exits(1).json();
    assert_eq!(
        (
            &r["end"],
            &r["valid_len"],
            &r["resumes_at"],
            &r["truncated"]
        ),
        (
            &"damaged".into(),
            &at[100].into(),
            &at[101].into(),
            &false.into()
        )
    );
    let text = run(&["recover", &path]).exits(1).stdout.clone();
    assert_contains(&text, "damaged length: it declares");
    assert_contains(&text, "`flatstream salvage` keeps the intact frames");
    // Salvage keeps every other frame; --cut-corrupt, asked, cuts from the damage on.
    let clean = dir.path("clean");
    let r = run(&["salvage", &path, "-o", &clean, "--json"])
        .exits(1)
        .json();
    assert_eq!(r["frames"], 999);
    run(&["recover", &path, "--truncate", "--cut-corrupt"]).ok();
    assert_eq!(std::fs::read(&path).unwrap(), &bytes[..at[100] as usize]);
}

#[test]
fn genuine_torn_tails_are_still_cut_exactly() {
    let dir = Dir::new();
    for kind in ChecksumKind::ALL {
        let (bytes, at) = telemetry_at(40, kind);
        let last = *at.last().unwrap() as usize;
        for cut in last + 1..bytes.len() {
            let path = dir.file("torn", &bytes[..cut]);
            let out = run(&["recover", &path, "--truncate", "--checksum", kind.name()]);
            assert_eq!(out.status, 0, "{kind}, cut at {cut}: {out:?}");
            assert_eq!(
                std::fs::read(&path).unwrap(),
                &bytes[..last],
                "{kind}, cut at {cut}"
            );
        }
    }
}

/// Without a checksum: a damaged length followed by three or more frames that parse to the end
/// is in doubt, and --truncate cuts it only with --force.
#[test]
fn without_a_checksum_an_end_in_doubt_is_cut_only_with_force() {
    let Capture { dir, bytes, at } = Capture::new(20, ChecksumKind::None);
    let (damaged, path) = dir.file_of("doubt", long_length(&bytes, at[10]));
    let r = run(&["recover", &path, "--json", "--checksum", "none"])
        .exits(1)
        .json();
    assert_eq!(
        (&r["end"], &r["resumes_at"]),
        (&"ambiguous".into(), &at[11].into())
    );
    let line = run(&["recover", &path, "--truncate", "--checksum", "none"]).one_line_error(1);
    assert_contains(&line, "cannot tell apart");
    assert_contains(&line, "--force");
    assert_eq!(std::fs::read(&path).unwrap(), damaged, "left as it is");

    run(&[
        "recover",
        &path,
        "--truncate",
        "--force",
        "--checksum",
        "none",
    ])
    .ok();
    assert_eq!(std::fs::read(&path).unwrap(), &bytes[..at[10] as usize]);
    // --force needs --truncate.
    run(&["recover", &path, "--force"]).exits(2);
}

/// inspect and verify read a stream to its first damage; a length that runs past the end with
/// intact frames after it is damage, said as the library tells it, not a torn tail, and what
/// they advise is salvage, never `recover --truncate`.
#[test]
fn inspect_and_verify_tell_a_damaged_length_from_a_torn_tail() {
    let Capture { dir, bytes, at } = Capture::new(300, ChecksumKind::XxHash64);
    let path = dir.file("damaged", &long_length(&bytes, at[100]));
    let resumes = format!("resume at byte offset {}", at[101]);

    let r = run(&["inspect", &path, "--json"]).exits(1).json();
    assert_eq!(
        (&r["end"], &r["end_offset"], &r["frames"]),
        (&"damaged".into(), &at[100].into(), &100.into())
    );
    let text = run(&["inspect", &path]).exits(1).stdout.clone();
    for words in [
        &resumes[..],
        "damaged length: it declares",
        "flatstream salvage",
    ] {
        assert_contains(&text, words);
    }
    assert!(
        !text.contains("a torn tail)") && !text.contains("--truncate"),
        "{text}"
    );

    for mmap in [&[][..], &["--no-mmap"]] {
        let mut args = vec!["verify", &path[..]];
        args.extend(mmap);
        let line = run(&args).one_line_error(1);
        assert_starts_with(
            &line,
            &format!(
                "flatstream: frame 100 at byte offset {}: damaged length: it declares",
                at[100]
            ),
        );
        assert_contains(&line, &resumes);
        assert_contains(&line, "flatstream salvage");
        assert!(!line.contains("--truncate"), "{line}");
        args.push("--json");
        let r = run(&args).json();
        assert_eq!(r["first_error"]["kind"], "damaged", "{r}");
    }

    // A genuine torn tail is still one.
    let torn = dir.file("torn", &bytes[..bytes.len() - 5]);
    let r = run(&["inspect", &torn, "--json"]).exits(1).json();
    assert_eq!(r["end"], "torn_tail");
    let r = run(&["verify", &torn, "--json"]).json();
    assert_eq!(r["first_error"]["kind"], "torn_tail");

    // Without a checksum, the same damage is in doubt, and said so.
    let (plain, at) = telemetry_at(20, ChecksumKind::None);
    let doubt = long_length(&plain, at[10]);
    let doubt = dir.file("doubt", &doubt);
    let r = run(&["inspect", &doubt, "--json", "-c", "none"])
        .exits(1)
        .json();
    assert_eq!(r["end"], "ambiguous", "{r}");
    assert_contains(r["end_detail"].as_str().unwrap(), "cannot tell apart");
    let r = run(&["verify", &doubt, "--json", "-c", "none"]).json();
    assert_eq!(r["first_error"]["kind"], "ambiguous", "{r}");
}
