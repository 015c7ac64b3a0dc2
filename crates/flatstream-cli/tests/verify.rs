//! `flatstream verify` on real streams: intact, damaged by a flipped byte, cut short, read
//! with the wrong checksum, against a schema, from stdin, mapped or not.

mod common;
use common::*;
use flatstream::checksum::ChecksumKind;

#[test]
fn an_intact_stream_verifies_with_every_framing_mapped_or_streamed() {
    let dir = Dir::new();
    for kind in ChecksumKind::ALL {
        let bytes = telemetry(1000, kind);
        let path = dir.file("t.fstream", &bytes);
        // A stream without a checksum has nothing to verify but its chain of lengths.
        let checked = match kind {
            ChecksumKind::None => "no checksum: frames parse".to_owned(),
            kind => format!("{kind} checksums verify"),
        };
        for extra in [&[][..], &["--no-mmap"]] {
            assert_eq!(
                run(&[&["verify", &path][..], extra].concat()).ok().stdout,
                format!("ok: 1000 frames, {} bytes, {checked}\n", bytes.len())
            );
        }
        let r = run_stdin(&["verify", "-", "--json"], &bytes).ok().json();
        assert_eq!(
            (&r["ok"], &r["frames"], &r["framing"]),
            (&true.into(), &1000.into(), &kind.name().into())
        );
    }
}

#[test]
fn a_flipped_byte_is_reported_with_its_frame_index_and_offset() {
    let Capture { dir, bytes, at } = Capture::new(1000, ChecksumKind::XxHash64);
    let (damaged, path) = dir.file_of("flipped", flipped(&bytes, at[613] + 30, 0x01));
    let expected = format!(
        "flatstream: frame 613 at byte offset {}: corrupt frame: checksum mismatch: stored",
        at[613]
    );
    for args in [vec!["verify", &path], vec!["verify", &path, "--no-mmap"]] {
        assert_starts_with(&run(&args).one_line_error(1), &expected);
    }
    let out = run_stdin(&["verify", "-"], &damaged);
    assert_starts_with(&out.one_line_error(1), &expected);

    let r = run(&["verify", &path, "--json"]).exits(1).json();
    assert_eq!(r["ok"], false);
    assert_eq!(r["first_error"]["index"], 613);
    assert_eq!(r["first_error"]["offset"], at[613]);
    assert_eq!(r["first_error"]["kind"], "checksum");
}

#[test]
fn a_cut_tail_is_a_torn_frame_at_its_offset() {
    let Capture { dir, bytes, at } = Capture::new(200, ChecksumKind::Crc32);
    let path = dir.file("cut", &bytes[..bytes.len() - 10]);
    run(&["verify", &path]).stops_at(199, at[199], "torn tail: the stream ends inside it");
    let r = run(&["verify", &path, "--json"]).json();
    assert_eq!(r["first_error"]["kind"], "torn_tail");
}

#[test]
fn all_goes_on_past_every_error_and_counts_them() {
    let Capture { dir, bytes, at } = Capture::new(1000, ChecksumKind::Crc32c);
    let mut damaged = bytes.clone();
    for frame in [100, 500, 900] {
        damaged[at[frame] as usize + 12] ^= 0xFF;
    }
    damaged.truncate(damaged.len() - 3);
    let path = dir.file("damaged", &damaged);
    let r = run(&["verify", &path, "--all", "--json"]).exits(1).json();
    // Three corrupt frames and the torn last one; every other frame verified.
    assert_eq!(
        (&r["errors"], &r["frames"]),
        (&4.into(), &996.into()),
        "{r}"
    );
    assert_eq!(r["first_error"]["index"], 100);
    let line = run(&["verify", &path, "--all"]).one_line_error(1);
    assert_contains(&line, "flatstream: 4 errors in 996 frames, ");
    // From a pipe it cannot resynchronise, and says so.
    let line = run_stdin(&["verify", "-", "--all"], &damaged).one_line_error(1);
    assert_contains(
        &line,
        "flatstream: 1 error in 100 frames, 0 bytes skipped (",
    );
    assert_contains(&line, "cannot be resynchronised");
}

#[test]
fn the_wrong_checksum_gets_a_did_you_mean() {
    let dir = Dir::new();
    let path = dir.file("crc32", &telemetry(50, ChecksumKind::Crc32));
    let line = run(&["verify", &path, "--checksum", "xxhash64"]).one_line_error(1);
    assert_starts_with(&line, "flatstream: frame 0 at byte offset 0: ");
    assert_ends_with(&line, "; did you mean --checksum crc32?");
    let line = run(&["verify", &path, "-c", "crc32c"]).one_line_error(1);
    assert_ends_with(&line, "; did you mean --checksum crc32?");
}

#[test]
fn a_schema_verifies_every_payload() {
    let Capture { dir, bytes, at } = Capture::new(300, ChecksumKind::XxHash64);
    let path = dir.file("t", &bytes);
    let out = run(&["verify", &path, "--schema", &telemetry_bfbs()]);
    assert_ends_with(
        &out.ok().stdout,
        "every payload a valid telemetry.Telemetry\n",
    );

    // Frames whose checksums verify but whose payloads are not telemetry tables.
    let mut payloads = payloads(&bytes, ChecksumKind::XxHash64);
    payloads[7] = vec![0xFF; 16]; // root offset far out of the buffer
    payloads[9] = vec![1, 2, 3];
    let path = dir.file("bad", &framed(ChecksumKind::XxHash64, &payloads));
    run(&["verify", &path, "-s", &telemetry_bfbs()]).stops_at(
        7,
        at[7],
        "not a valid telemetry.Telemetry",
    );
    let r = run(&["verify", &path, "-s", &telemetry_bfbs(), "--all", "--json"]).json();
    assert_eq!(
        (&r["errors"], &r["frames"]),
        (&2.into(), &300.into()),
        "{r}"
    );
    assert_eq!(r["first_error"]["kind"], "schema");
}

#[cfg(unix)]
#[test]
fn a_file_that_cannot_be_mapped_is_read_as_a_stream() {
    // /dev/stdin is a pipe here: opened as a file, it cannot be mapped.
    let bytes = telemetry(5000, ChecksumKind::XxHash64);
    let out = run_stdin(&["verify", "/dev/stdin"], &bytes);
    out.ok();
    assert_eq!(
        out.stdout,
        format!(
            "ok: 5000 frames, {} bytes, xxhash64 checksums verify\n",
            bytes.len()
        )
    );
}

#[test]
fn a_bound_under_the_frames_is_a_corrupt_length() {
    let dir = Dir::new();
    let path = dir.file("t", &telemetry(10, ChecksumKind::Crc16));
    let line = run(&["verify", &path, "--max-frame-len", "16", "-c", "crc16"]).stops_at(
        0,
        0,
        "corrupt frame: its length declares a payload of",
    );
    assert_contains(&line, "over the bound of 16");
}

#[test]
fn an_empty_stream_verifies() {
    let dir = Dir::new();
    let out = run(&["verify", &dir.file("empty", &[])]);
    out.ok();
    assert_eq!(out.stdout, "ok: 0 frames, 0 bytes: an empty stream\n");
}

#[test]
fn all_zero_bytes_cannot_be_verified_without_a_framing() {
    let dir = Dir::new();
    let path = dir.file("zeros", &[0; 100]);
    let line = run(&["verify", &path]).one_line_error(2);
    assert_contains(
        &line,
        "cannot tell the stream's framing: ambiguous: the input is all zero bytes",
    );
    assert_ends_with(&line, "pass --checksum KIND");
}

#[test]
fn all_counts_in_words_one_error_one_frame() {
    let Capture { dir, bytes, at } = Capture::new(2, ChecksumKind::Crc32);
    // The second frame's payload damaged: one frame verifies, one error, its bytes skipped.
    let path = dir.file("d", &flipped(&bytes, at[1] + 12, 1));
    let line = run(&["verify", &path, "--all"]).one_line_error(1);
    let skipped = bytes.len() as u64 - at[1];
    assert_starts_with(
        &line,
        &format!("flatstream: 1 error in 1 frame, {skipped} bytes skipped; first: frame 1 at "),
    );
    let one = dir.file("one", &bytes[..at[1] as usize]);
    assert_eq!(
        run(&["verify", &one]).ok().stdout,
        format!("ok: 1 frame, {} bytes, crc32 checksums verify\n", at[1])
    );
}

#[test]
fn all_calls_a_bad_length_with_frames_after_it_damage_not_a_torn_tail() {
    let Capture { dir, bytes, at } = Capture::new(300, ChecksumKind::XxHash64);
    // Frame 100's length made to run past the end of the stream (its high byte set).
    let path = dir.file("d", &long_length(&bytes, at[100]));
    let r = run(&["verify", &path, "--all", "--json"]).exits(1).json();
    let damage = r["damage"].as_array().unwrap();
    assert_eq!(damage.len(), 1, "{r}");
    assert_eq!(
        (&damage[0]["kind"], &damage[0]["offset"], &damage[0]["end"]),
        (&"damaged".into(), &at[100].into(), &at[101].into()),
        "{r}"
    );
    let message = damage[0]["message"].as_str().unwrap();
    let said = format!(
        "damaged length: it declares {} bytes, past the end of the input, but intact frames \
         resume at byte offset {}",
        0x7f00_0000 + (at[101] - at[100]),
        at[101]
    );
    assert_eq!(message, said);
    assert_eq!(r["frames"], 299);
    // Without --all, the first error is the same (mapped, on one thread or several), as
    // recover calls it.
    for extra in [&["-j", "1"][..], &["-j", "2"]] {
        let args = [&["verify", &path, "--json"][..], extra].concat();
        let out = run_with(&args, None, &[("FLATSTREAM_SPLIT_LEN", "2000")]);
        let first = out.exits(1).json()["first_error"].clone();
        assert_eq!(
            (&first["kind"], &first["offset"], &first["end"]),
            (&"damaged".into(), &at[100].into(), &at[101].into()),
            "{extra:?}"
        );
        assert_eq!(first["message"], said.as_str());
    }
    assert_eq!(
        run(&["verify", &path]).one_line_error(1),
        format!(
            "flatstream: frame 100 at byte offset {}: {said}; run `flatstream salvage` to keep \
             the intact frames after it",
            at[100]
        )
    );
    // On every core, the same.
    let parallel = run_with(
        &["verify", &path, "--all", "--json", "-j", "2"],
        None,
        &[("FLATSTREAM_SPLIT_LEN", "2000")],
    );
    assert_eq!(parallel.exits(1).json()["damage"], r["damage"]);

    // A real torn tail, nothing after it, stays one.
    let torn = dir.file("torn", &bytes[..bytes.len() - 5]);
    let r = run(&["verify", &torn, "--all", "--json"]).exits(1).json();
    assert_eq!(r["damage"][0]["kind"], "torn_tail", "{r}");
    assert_eq!(r["damage"][0]["offset"], at[299]);
}

#[test]
fn all_stops_at_the_first_corrupt_frame_of_a_stream_without_a_checksum() {
    let Capture { dir, bytes, at } = Capture::new(300, ChecksumKind::None);
    // Frame 100's length made to run past the end: with no checksum, nothing tells where the
    // next frame starts, and the bytes after it must not be read as frames.
    let path = dir.file("d", &long_length(&bytes, at[100]));
    for extra in [
        &[][..],
        &["--no-mmap"],
        &["-j", "2", "-s", &telemetry_bfbs()],
    ] {
        let args = [
            &["verify", &path, "--all", "--json", "-c", "none"][..],
            extra,
        ]
        .concat();
        let r = run_with(&args, None, &[("FLATSTREAM_SPLIT_LEN", "2000")])
            .exits(1)
            .json();
        assert_eq!(
            (&r["frames"], &r["errors"]),
            (&100.into(), &1.into()),
            "{r}"
        );
        assert_eq!(r["damage"][0]["offset"], at[100], "{r}");
        assert_eq!(r["skipped_bytes"], 0, "{r}");
    }
    let line = run(&["verify", &path, "--all", "-c", "none"]).one_line_error(1);
    assert_starts_with(
        &line,
        "flatstream: 1 error in 100 frames, 0 bytes skipped (stopped at a corrupt frame: a \
         stream without a checksum cannot be resynchronised",
    );
    // The bytes after its header parse as frames to the end: a torn tail or a damaged length,
    // and verify says it cannot tell, as recover does.
    let line = run(&["verify", &path, "-c", "none"]).one_line_error(1);
    assert_contains(
        &line,
        &format!(
            "frame 100 at byte offset {}: ambiguous end: it declares {} bytes, past the end of \
             the input, and the bytes from byte offset ",
            at[100],
            0x7f00_0000 + (at[101] - at[100])
        ),
    );
    assert_ends_with(
        &line,
        "parse as frames up to the end: a torn tail, or a damaged length followed by intact \
         frames, which a stream without a checksum cannot tell apart",
    );
}

#[test]
fn a_framing_no_trial_reads_names_each_trial_s_frame_and_offset_once() {
    let dir = Dir::new();
    // Frame 0 declares 0x7f000000 bytes, over a bound of 1000, whatever the framing.
    let path = dir.file(
        "big",
        &[0, 0, 0, 0x7f, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
    );
    let line = run(&["verify", &path, "--max-frame-len", "1000"]).one_line_error(2);
    assert_contains(
        &line,
        "(none: frame 0 at byte offset 0: corrupt frame: its length declares a payload of \
         2130706432 bytes, over the bound of 1000; xxhash64: frame 0 at byte offset 0: ",
    );
    assert!(!line.contains("frame 0 frame"), "{line}");
}
