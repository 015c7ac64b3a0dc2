//! `flatstream export --to mcap`, `flatstream import` and `inspect` of an MCAP file: the demo
//! and fleet streams through MCAP and back, byte-identical in payloads; channels of other
//! encodings skipped; every bad input a one-line error, and no OUT from a failed export.
#![cfg(feature = "mcap")]

mod common;
mod fleet;
use common::*;
use flatstream::checksum::ChecksumKind;
use fleet::{fleet_stream, robots};
use std::collections::BTreeMap;
use std::io::Cursor;

/// The frames of `dir/name`, read with `kind`.
fn frames_of(path: &str, kind: ChecksumKind) -> Vec<Vec<u8>> {
    payloads(&std::fs::read(path).unwrap(), kind)
}

/// `flatstream export FILES -s SCHEMA --to mcap -o OUT EXTRA`.
fn to_mcap(files: &[&str], schema: &str, out: &str, extra: &[&str]) -> Out {
    let mut args = vec!["export"];
    args.extend(files);
    args.extend(["-s", schema, "--to", "mcap", "-o", out]);
    args.extend(extra);
    run(&args)
}

#[test]
fn the_demo_stream_goes_to_mcap_and_back_with_its_times_and_schema() {
    let dir = Dir::new();
    let capture = dir.file("demo.fstream", &telemetry(500, ChecksumKind::XxHash64));
    let mcap = dir.path("demo.mcap");
    let schema = telemetry_bfbs();
    to_mcap(
        &[&capture],
        &schema,
        &mcap,
        &["--time-field", "timestamp", "--time-unit", "ms"],
    )
    .ok();
    // The mcap crate's own reader: the schema record, the channel, every message.
    let bytes = std::fs::read(&mcap).unwrap();
    let sent = frames_of(&capture, ChecksumKind::XxHash64);
    let messages: Vec<_> = mcap::MessageStream::new(&bytes)
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(messages.len(), 500);
    for (m, payload) in messages.iter().zip(&sent) {
        assert_eq!(m.channel.topic, "/demo");
        assert_eq!(m.channel.message_encoding, "flatbuffer");
        let s = m.channel.schema.as_ref().unwrap();
        assert_eq!(
            (s.name.as_str(), s.encoding.as_str()),
            ("telemetry.Telemetry", "flatbuffer")
        );
        assert_eq!(&*s.data, std::fs::read(&schema).unwrap().as_slice());
        assert_eq!(&*m.data, payload.as_slice());
    }
    let times: Vec<u64> = messages.iter().map(|m| m.log_time).collect();
    let cat = run(&["cat", &capture, "-s", &schema]);
    let expected: Vec<u64> = cat
        .ok()
        .json_lines()
        .iter()
        .map(|v| v["timestamp"].as_u64().unwrap() * 1_000_000)
        .collect();
    assert_eq!(times, expected);

    // inspect says what the file holds and what import takes.
    let out = run(&["inspect", &mcap]);
    out.ok();
    assert_contains(&out.stdout, "an MCAP file");
    assert_contains(
        &out.stdout,
        "channel 1    /demo (flatbuffer, telemetry.Telemetry): 500 messages",
    );
    assert_contains(&out.stdout, "import takes  500 messages of 1 channel");
    let json = run(&["inspect", &mcap, "--json"]).json();
    assert_eq!(json["format"], "mcap");
    assert_eq!(json["channels"][0]["messages"], 500);
    assert_eq!(json["channels"][0]["imported"], true);

    // import gives the payloads back, framed as asked, and the schema to read them with.
    let back = dir.path("back.fstream");
    let schemas = dir.path("schemas");
    let out = run(&[
        "import",
        &mcap,
        "-o",
        &back,
        "--checksum",
        "crc32c",
        "--schema-out",
        &schemas,
    ]);
    out.exits(0);
    assert_eq!(
        out.stderr,
        "flatstream: imported 500 messages of /demo (flatbuffer, telemetry.Telemetry)\n"
    );
    assert_eq!(frames_of(&back, ChecksumKind::Crc32c), sent);
    let written = format!("{schemas}/telemetry.Telemetry.bfbs");
    let cat_back = run(&["cat", &back, "-s", &written]);
    assert_eq!(cat_back.ok().stdout, cat.stdout);
}

#[test]
fn the_fleet_stream_with_unions_and_nested_tables_round_trips() {
    let dir = Dir::new();
    let stream = fleet_stream(&robots(), ChecksumKind::None);
    let a = dir.file("a.fstream", &stream);
    let b = dir.file("b.fstream", &stream);
    let mcap = dir.path("fleet.mcap");
    for compression in ["zstd", "lz4", "none"] {
        to_mcap(
            &[&a, &b],
            &fleet_bfbs(),
            &mcap,
            &["--compression", compression],
        )
        .ok();
        let out = run(&["inspect", &mcap]);
        assert_contains(&out.ok().stdout, "/a (flatbuffer, fleet.Robot)");
        assert_contains(&out.stdout, "/b (flatbuffer, fleet.Robot)");
        let back = dir.path("back.fstream");
        run(&["import", "-q", &mcap, "-o", &back, "--checksum", "none"]).ok();
        let sent = payloads(&stream, ChecksumKind::None);
        let twice: Vec<Vec<u8>> = sent.iter().chain(&sent).cloned().collect();
        assert_eq!(frames_of(&back, ChecksumKind::None), twice, "{compression}");
        // One topic of the two.
        run(&[
            "import", "-q", &mcap, "-o", &back, "-c", "none", "--topic", "/b",
        ])
        .ok();
        assert_eq!(frames_of(&back, ChecksumKind::None), sent);
    }
    // --topic puts every FILE on one channel, its index continuing.
    to_mcap(&[&a, &b], &fleet_bfbs(), &mcap, &["--topic", "/fleet"]).ok();
    let bytes = std::fs::read(&mcap).unwrap();
    let times: Vec<(String, u64)> = mcap::MessageStream::new(&bytes)
        .unwrap()
        .map(|m| {
            let m = m.unwrap();
            (m.channel.topic.clone(), m.log_time)
        })
        .collect();
    let n = payloads(&stream, ChecksumKind::None).len() as u64;
    let want: Vec<(String, u64)> = (0..2 * n).map(|i| ("/fleet".to_owned(), i)).collect();
    assert_eq!(times, want);
}

#[test]
fn an_mcap_file_with_another_encoding_imports_the_flatbuffer_channel_and_reports_the_other() {
    let dir = Dir::new();
    let sent = payloads(&telemetry(20, ChecksumKind::None), ChecksumKind::None);
    let mut w = mcap::Writer::new(Cursor::new(Vec::new())).unwrap();
    let json = w.add_channel(0, "/json", "json", &BTreeMap::new()).unwrap();
    let bfbs = std::fs::read(telemetry_bfbs()).unwrap();
    let schema = w
        .add_schema("telemetry.Telemetry", "flatbuffer", &bfbs)
        .unwrap();
    let flat = w
        .add_channel(schema, "/flat", "flatbuffer", &BTreeMap::new())
        .unwrap();
    for (i, p) in sent.iter().enumerate() {
        let header = |channel_id| mcap::records::MessageHeader {
            channel_id,
            sequence: i as u32,
            log_time: i as u64,
            publish_time: i as u64,
        };
        w.write_to_known_channel(&header(json), b"{}").unwrap();
        w.write_to_known_channel(&header(flat), p).unwrap();
    }
    w.finish().unwrap();
    let mcap = dir.file("mixed.mcap", &w.into_inner().into_inner());

    let out = run(&["inspect", &mcap]);
    assert_contains(&out.ok().stdout, "/json (json): 20 messages");
    assert_contains(
        &out.stdout,
        "import takes  20 messages of 1 channel (flatbuffer); skips 20 messages of 1 channel",
    );
    let back = dir.path("back.fstream");
    let out = run(&["import", &mcap, "-o", &back, "-c", "none"]);
    out.exits(0);
    assert_contains(
        &out.stderr,
        "flatstream: skipped 20 messages of /json (json)\n",
    );
    assert_contains(
        &out.stderr,
        "flatstream: imported 20 messages of /flat (flatbuffer, telemetry.Telemetry)\n",
    );
    assert_eq!(frames_of(&back, ChecksumKind::None), sent);
    // Asking for the JSON channel is an error that names what there is.
    let line = run(&["import", &mcap, "-o", &back, "--topic", "/json"]).one_line_error(2);
    assert_contains(
        &line,
        "no FlatBuffers channel has the topic /json (its channels: ",
    );
}

#[test]
fn a_damaged_frame_stops_the_export_and_leaves_no_file() {
    let dir = Dir::new();
    let (bytes, offsets) = telemetry_at(50, ChecksumKind::XxHash64);
    let damaged = dir.file("bad.fstream", &flipped(&bytes, offsets[7] + 20, 0x40));
    let mcap = dir.path("bad.mcap");
    let out = to_mcap(&[&damaged], &telemetry_bfbs(), &mcap, &[]);
    let line = out.one_line_error(1);
    assert_starts_with(
        &line,
        &format!(
            "flatstream: {damaged}: frame 7 at byte offset {}",
            offsets[7]
        ),
    );
    assert_ends_with(&line, &format!("; {mcap} is not written"));
    assert!(!std::path::Path::new(&mcap).exists());
    assert_eq!(
        std::fs::read_dir(dir.path(".")).unwrap().count(),
        1,
        "no temporary file left"
    );

    // A payload that is not a Telemetry: exit 1, named; with --skip-invalid, skipped.
    let mixed = framed(ChecksumKind::XxHash64, &[&bytes[12..60], &[1u8, 2, 3][..]]);
    let mixed = dir.file("mixed.fstream", &mixed);
    let line = to_mcap(&[&mixed], &telemetry_bfbs(), &mcap, &[]).one_line_error(1);
    assert_contains(
        &line,
        "frame 1 at byte offset 60: not a valid telemetry.Telemetry: ",
    );
    let out = to_mcap(&[&mixed], &telemetry_bfbs(), &mcap, &["--skip-invalid"]);
    out.exits(0);
    assert_eq!(
        out.stderr,
        "flatstream: skipped 1 message that is not valid\n"
    );
}

#[test]
fn bad_options_and_inputs_are_one_line_errors() {
    let dir = Dir::new();
    let capture = dir.file("demo.fstream", &telemetry(10, ChecksumKind::None));
    let schema = telemetry_bfbs();
    let mcap = dir.path("x.mcap");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["--to", "mcap"],
            "--to mcap writes a file, whole or not at all",
        ),
        (vec!["--to", "mcap", "-o", "-"], "pass -o OUT, a file"),
        (
            vec!["--to", "mcap", "-o", &mcap, "--columns", "value"],
            "--columns and --offset-column go",
        ),
        (
            vec!["--to", "csv", "--topic", "/t"],
            "--topic goes with --to mcap",
        ),
        (
            vec!["--to", "mcap", "-o", &mcap, "--time-unit", "ms"],
            "--time-unit goes with --time-field",
        ),
        (
            vec!["--to", "mcap", "-o", &mcap, "--time-field", "value"],
            "--time-field: the time field `value`: `value` is not an integer",
        ),
        (
            vec!["--to", "mcap", "-o", &mcap, "--root-type", "Nope"],
            "root type `Nope`",
        ),
    ];
    for (extra, said) in cases {
        let mut args = vec!["export", &capture, "-s", &schema];
        args.extend(extra);
        let line = run(&args).one_line_error(2);
        assert_contains(&line, said);
        assert!(!std::path::Path::new(&mcap).exists(), "{args:?}");
    }
    // import: not an MCAP file, a missing one, one cut short.
    let line = run(&["import", &capture, "-o", &dir.path("o")]).one_line_error(2);
    assert_contains(
        &line,
        "not an MCAP file (it does not start with MCAP's magic bytes)",
    );
    let line = run(&["import", &dir.path("missing.mcap"), "-o", &dir.path("o")]).one_line_error(2);
    assert_contains(&line, "missing.mcap");
    to_mcap(&[&capture], &schema, &mcap, &["--compression", "none"]).ok();
    let whole = std::fs::read(&mcap).unwrap();
    let cut = dir.file("cut.mcap", &whole[..whole.len() / 2]);
    let out = dir.path("cut.fstream");
    let line = run(&["import", &cut, "-o", &out, "-c", "none"]).one_line_error(1);
    assert_contains(&line, &format!("{cut}: not a readable MCAP file: "));
    let kept = frames_of(&out, ChecksumKind::None).len();
    let noun = if kept == 1 { "message" } else { "messages" };
    assert_ends_with(&line, &format!("; {out} holds the {kept} {noun} before it"));
    assert!(kept < 10);
    let line = run(&["inspect", &cut]).one_line_error(1);
    assert_contains(&line, "not a readable MCAP file");
}
