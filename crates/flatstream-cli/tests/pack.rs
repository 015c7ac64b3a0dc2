//! `flatstream pack`: JSON lines through a schema into a stream, the inverse of `cat
//! --schema`. Round trips over the telemetry and fleet schemas with every checksum (the
//! fleet robots have a union, nested tables, structs, enums, bytes); what flatc's generated
//! code reads from the packed payloads; and bad lines, which stop the command with their line
//! and field named and leave only whole frames behind.

mod common;
mod fleet;
use common::*;
use flatstream::checksum::ChecksumKind;
use flatstream_test_support::telemetry::Reading;
use fleet::*;
use serde_json::{Value, json};

/// `flatstream pack ARGS` with `jsonl` on stdin, its frames on stdout.
fn pack(args: &[&str], jsonl: &str) -> Out {
    let mut all = vec!["pack"];
    all.extend_from_slice(args);
    run_stdin(&all, jsonl.as_bytes())
}

/// What `cat --schema` prints for `stream` (framed with `kind`).
fn cat(stream: &[u8], kind: ChecksumKind, args: &[&str]) -> String {
    let mut all = vec!["cat", "-", "--checksum", kind.name()];
    all.extend_from_slice(args);
    run_stdin(&all, stream).ok().stdout.clone()
}

#[test]
fn telemetry_round_trips_through_cat_and_pack_with_every_checksum() {
    let schema = telemetry_bfbs();
    let original = telemetry(500, ChecksumKind::XxHash64);
    let printed = cat(&original, ChecksumKind::XxHash64, &["-s", &schema]);
    assert_eq!(printed.lines().count(), 500);
    for kind in ChecksumKind::ALL {
        let out = pack(&["-s", &schema, "--checksum", kind.name()], &printed);
        out.ok();
        let packed = &out.stdout_bytes;
        // Whole frames of that checksum, one per line.
        assert_eq!(payloads(packed, kind).len(), 500, "{kind}");
        assert_eq!(
            cat(packed, kind, &["-s", &schema]),
            printed,
            "{kind}: the same JSON on a second cat"
        );
        let again = cat(packed, kind, &["-s", &schema]);
        for (i, line) in again.lines().enumerate() {
            assert_reading(&json(line), i as u64);
        }
        // The framing is told from the frames alone, as for any stream.
        run_stdin(&["verify", "-", "-s", &schema], packed).ok();
    }
}

#[test]
fn the_default_checksum_is_xxhash64() {
    let schema = telemetry_bfbs();
    let out = pack(
        &["-s", &schema],
        "{\"device_id\":1,\"timestamp\":2,\"value\":3.5}\n",
    );
    let payload = &payloads(&out.ok().stdout_bytes, ChecksumKind::XxHash64)[0];
    assert_eq!(out.stdout_bytes.len(), 4 + 8 + payload.len());
}

#[test]
fn fleet_round_trips_including_a_union_and_nested_tables() {
    let schema = fleet_bfbs();
    let robots = robots();
    let original = fleet_stream(&robots, ChecksumKind::Crc32c);
    for bytes in ["base64", "hex"] {
        let printed = cat(
            &original,
            ChecksumKind::Crc32c,
            &["-s", &schema, "--bytes", bytes],
        );
        // The lines hold what this test is about: a union with a member, nested tables.
        assert_contains(
            &printed,
            "\"device_type\":\"Motor\",\"device\":{\"rpm\":-1200",
        );
        assert_contains(&printed, "\"parent\":{\"id\":0,\"name\":\"parent\"");
        assert_contains(&printed, "\"parent\":{\"id\":0,\"name\":\"grandparent\"");
        assert_contains(&printed, "\"sensors\":[{\"name\":\"lidar\"");
        for kind in ChecksumKind::ALL {
            let out = pack(
                &["-s", &schema, "-c", kind.name(), "--bytes", bytes],
                &printed,
            );
            let packed = &out.ok().stdout_bytes;
            assert_eq!(
                cat(packed, kind, &["-s", &schema, "--bytes", bytes]),
                printed,
                "{kind}, {bytes}"
            );
            // What flatc's generated code reads from the packed payloads is what was
            // written in the first place.
            for (r, payload) in robots.iter().zip(payloads(packed, kind)) {
                let robot = root_as_robot(&payload).expect("flatc's code reads it");
                assert_robot(&robot, r);
            }
        }
    }
}

/// Asserts that `got`, read with flatc's code, is `r`, field by field.
fn assert_robot(got: &Robot<'_>, r: &RobotSpec) {
    assert_eq!(got.id(), r.id);
    assert_eq!(got.name(), r.name);
    assert_eq!(got.color().0, r.color.unwrap_or(1));
    assert_eq!(got.status().0, r.status);
    assert_eq!(
        got.pose().map(|p| (
            [p.position().x(), p.position().y(), p.position().z()],
            p.heading(),
            p.color().0
        )),
        r.pose
    );
    assert_eq!(
        got.tags().map(|t| t.iter().collect::<Vec<_>>()),
        r.tags.clone()
    );
    assert_eq!(
        got.colors()
            .map(|c| c.iter().map(|c| c.0).collect::<Vec<_>>()),
        r.colors
    );
    let sensors = got.sensors().map(|s| {
        s.iter()
            .map(|s| (s.name(), s.readings().map(|r| r.iter().collect::<Vec<_>>())))
            .collect::<Vec<_>>()
    });
    let expected = r.sensors.as_ref().map(|s| {
        s.iter()
            .map(|s| (s.name, s.readings.clone()))
            .collect::<Vec<_>>()
    });
    assert_eq!(sensors, expected);
    assert_eq!(
        got.waypoints()
            .map(|w| w.iter().map(|p| [p.x(), p.y(), p.z()]).collect::<Vec<_>>()),
        r.waypoints
    );
    match &r.device {
        DeviceSpec::None => assert_eq!(got.device_type(), Device::NONE),
        DeviceSpec::Sensor(s) => {
            let sensor = got.device_as_sensor().unwrap();
            assert_eq!(sensor.name(), s.name);
        }
        DeviceSpec::Motor { rpm, temperature } => {
            let motor = got.device_as_motor().unwrap();
            assert_eq!(motor.rpm(), *rpm);
            assert_eq!(motor.temperature(), temperature.unwrap_or(20.5));
        }
        DeviceSpec::Camera { resolution, lens } => {
            let camera = got.device_as_camera().unwrap();
            assert_eq!(
                camera.resolution().map(|v| v.iter().collect::<Vec<_>>()),
                Some(resolution.clone())
            );
            assert_eq!(camera.lens(), Some(*lens));
        }
    }
    match (got.parent(), &r.parent) {
        (Some(got), Some(r)) => assert_robot(&got, r),
        (None, None) => {}
        (got, r) => panic!(
            "parent: {:?} against {}",
            got.map(|p| p.name()),
            r.is_some()
        ),
    }
    assert_eq!(got.firmware().map(|f| f.bytes().to_vec()), r.firmware);
    assert_eq!(got.active(), r.active);
    assert_eq!(got.battery().to_bits(), r.battery.to_bits());
    assert_eq!(got.limit(), r.limit);
    assert_eq!(got.offset(), r.offset);
    assert_eq!(got.trim(), r.trim);
}

/// Packs `lines` as robots and reads them back with flatc's code.
fn robots_of(lines: &str) -> Vec<Vec<u8>> {
    let out = pack(&["-s", &fleet_bfbs(), "-c", "crc32"], lines);
    payloads(&out.ok().stdout_bytes, ChecksumKind::Crc32)
}

#[test]
fn enums_are_read_by_name_or_by_number() {
    let lines = "\
{\"name\":\"names\",\"color\":\"Blue\",\"status\":\"Failed\",\"colors\":[\"Red\",\"Blue\"],\"device_type\":\"Motor\",\"device\":{\"rpm\":1},\"pose\":{\"position\":{\"x\":0,\"y\":0,\"z\":0},\"heading\":0,\"color\":\"Blue\"}}
{\"name\":\"numbers\",\"color\":2,\"status\":9,\"colors\":[0,2],\"device_type\":2,\"device\":{\"rpm\":1},\"pose\":{\"position\":{\"x\":0,\"y\":0,\"z\":0},\"heading\":0,\"color\":2}}
{\"name\":\"unnamed\",\"color\":-7,\"status\":65535,\"colors\":[100]}
";
    let payloads = robots_of(lines);
    for p in &payloads[..2] {
        let r = root_as_robot(p).unwrap();
        assert_eq!(r.color(), Color::Blue);
        assert_eq!(r.status(), Status::Failed);
        assert_eq!(
            r.colors().unwrap().iter().collect::<Vec<_>>(),
            [Color::Red, Color::Blue]
        );
        assert_eq!(r.device_type(), Device::Motor);
        assert_eq!(r.pose().unwrap().color(), Color::Blue);
    }
    let r = root_as_robot(&payloads[2]).unwrap();
    assert_eq!((r.color().0, r.status().0), (-7, 65535));
    assert_eq!(r.colors().unwrap().get(0).0, 100);
    // cat prints names where the enum has them, numbers where it has none.
    let printed = cat(
        &framed(ChecksumKind::Crc32, &payloads),
        ChecksumKind::Crc32,
        &["-s", &fleet_bfbs()],
    );
    let printed: Vec<Value> = printed.lines().map(json).collect();
    assert_eq!(printed[1]["color"], "Blue");
    assert_eq!(printed[1]["device_type"], "Motor");
    assert_eq!(printed[2]["color"], -7);
    assert_eq!(printed[2]["colors"], json!([100]));
}

#[test]
fn absent_scalars_read_as_defaults_and_floats_keep_their_bits() {
    let lines = "\
{\"name\":\"a\"}
{\"name\":\"b\",\"color\":\"Green\",\"active\":true,\"battery\":0.0,\"limit\":null,\"device_type\":\"NONE\",\"device\":null,\"tags\":null}
{\"name\":\"c\",\"battery\":-0.0,\"limit\":0,\"active\":false}
{\"name\":\"d\",\"battery\":\"nan\",\"offset\":-1}
{\"name\":\"e\",\"battery\":\"-inf\"}
{\"name\":\"f\",\"battery\":1e-45}
{\"name\":\"g\",\"battery\":16777217}
{\"name\":\"h\",\"battery\":0.1,\"firmware\":[0,255,7]}
";
    let payloads = robots_of(lines);
    let robots: Vec<Robot<'_>> = payloads.iter().map(|p| root_as_robot(p).unwrap()).collect();
    // Left out, or given at the default: the same message.
    let differ = payloads[0]
        .iter()
        .zip(&payloads[1])
        .filter(|(a, b)| a != b)
        .count();
    assert_eq!(payloads[0].len(), payloads[1].len());
    assert_eq!(differ, 1, "only the name's one letter differs");
    for r in &robots[..2] {
        assert_eq!(r.color(), Color::Green);
        assert!(r.active());
        assert_eq!(r.battery().to_bits(), 0);
        assert_eq!((r.limit(), r.device_type()), (None, Device::NONE));
        assert!(r.tags().is_none());
    }
    // -0.0 is not the default 0.0, and an optional scalar given 0 is present.
    assert_eq!(robots[2].battery().to_bits(), (-0.0f32).to_bits());
    assert_eq!(robots[2].limit(), Some(0));
    assert!(!robots[2].active());
    assert!(robots[3].battery().is_nan());
    assert_eq!(robots[3].offset(), -1);
    assert_eq!(robots[4].battery(), f32::NEG_INFINITY);
    // Floats are read at their own width: the nearest f32 to what is written.
    assert_eq!(robots[5].battery().to_bits(), 1, "the least subnormal");
    assert_eq!(robots[6].battery(), 16777216.0);
    assert_eq!(robots[7].battery(), 0.1f32);
    assert_eq!(robots[7].firmware().unwrap().bytes(), [0, 255, 7]);
}

#[test]
fn another_table_of_the_schema_is_packed_with_root_type() {
    let lines = "{\"name\":\"a\",\"readings\":[1.0,2.5]}\n{}\n";
    let out = pack(&["-s", &fleet_bfbs(), "--root-type", "Sensor"], lines);
    let packed = &out.ok().stdout_bytes;
    assert_eq!(
        cat(
            packed,
            ChecksumKind::XxHash64,
            &["-s", &fleet_bfbs(), "--root-type", "Sensor"]
        ),
        lines
    );
    // Robots need a name.
    let line = pack(&["-s", &fleet_bfbs()], "{}\n").one_line_error(1);
    assert_contains(
        &line,
        "stdin: line 1: field `name`: missing, and the field is required",
    );
}

#[test]
fn input_comes_from_files_in_order_or_from_stdin() {
    let dir = Dir::new();
    let line = |i: u64| {
        let r = Reading::nth(i);
        format!(
            "{{\"device_id\":{},\"timestamp\":{},\"value\":{}}}\n",
            r.device_id, r.timestamp, r.value
        )
    };
    let a = dir.file("a.jsonl", (0..3).map(line).collect::<String>().as_bytes());
    let b = dir.file("b.jsonl", (3..5).map(line).collect::<String>().as_bytes());
    let out = dir.path("out.fs");
    run(&["pack", "-s", &telemetry_bfbs(), &a, &b, "-o", &out]).ok();
    let packed = std::fs::read(&out).unwrap();
    let printed = cat(&packed, ChecksumKind::XxHash64, &["-s", &telemetry_bfbs()]);
    for (i, l) in printed.lines().enumerate() {
        assert_reading(&json(l), i as u64);
    }
    assert_eq!(printed.lines().count(), 5);

    // Standard input: with no FILE, or `-` among them.
    let all: String = (0..5).map(line).collect();
    let c = dir.file("c.jsonl", line(5).as_bytes());
    assert_eq!(
        pack(&["-s", &telemetry_bfbs()], &all).ok().stdout_bytes,
        packed
    );
    let out = pack(&["-s", &telemetry_bfbs(), "-", &c], &all);
    let printed = cat(
        &out.ok().stdout_bytes,
        ChecksumKind::XxHash64,
        &["-s", &telemetry_bfbs()],
    );
    assert_eq!(printed.lines().count(), 6);
    assert_reading(&json(printed.lines().last().unwrap()), 5);
}

/// A line naming a sensor reading that is not a number, after `good` good lines (and a blank
/// one, which counts as a line).
fn with_bad_line(good: usize) -> String {
    let mut lines = String::new();
    for i in 0..good {
        lines.push_str(&format!("{{\"name\":\"r{i}\",\"tags\":[\"x\"]}}\n"));
    }
    lines.push('\n');
    lines.push_str(
        "{\"name\":\"bad\",\"sensors\":[{\"readings\":[]},{\"readings\":[1.5,2,\"abc\"]}]}\n",
    );
    lines.push_str("{\"name\":\"after\"}\n");
    lines
}

#[test]
fn a_bad_line_stops_pack_naming_its_line_and_field_with_the_frames_before_it_whole() {
    let dir = Dir::new();
    let input = dir.file("in.jsonl", with_bad_line(3).as_bytes());
    let out = dir.path("out.fs");
    let run = run(&[
        "pack",
        "-s",
        &fleet_bfbs(),
        &input,
        "-o",
        &out,
        "-c",
        "crc16",
    ]);
    assert_eq!(
        run.one_line_error(1),
        format!(
            "flatstream: {input}: line 5: field `sensors[1].readings[2]`: expected a number, \
             got \"abc\"; {out} holds the 3 frames before it"
        )
    );
    let packed = std::fs::read(&out).unwrap();
    // Whole frames, exactly those of the lines before: the stream ends clean after them.
    let names: Vec<String> = payloads(&packed, ChecksumKind::Crc16)
        .iter()
        .map(|p| root_as_robot(p).unwrap().name().to_owned())
        .collect();
    assert_eq!(names, ["r0", "r1", "r2"]);
    assert_eq!(
        offsets(&packed, ChecksumKind::Crc16).len(),
        3,
        "no partial frame"
    );
    run_stdin(
        &["verify", "-", "-c", "crc16", "-s", &fleet_bfbs()],
        &packed,
    )
    .ok();

    // On stdout too: the frames before it, and nothing of it.
    let piped = pack(&["-s", &fleet_bfbs(), "-c", "crc16"], &with_bad_line(1));
    assert_contains(
        &piped.one_line_error(1),
        "stdin: line 3: field `sensors[1].readings[2]`: expected a number, got \"abc\"; \
         stdout holds the 1 frame before it",
    );
    assert_eq!(payloads(&piped.stdout_bytes, ChecksumKind::Crc16).len(), 1);
}

#[test]
fn every_kind_of_bad_line_is_one_line_naming_the_field() {
    for (line, error) in [
        (
            "{\"name\":\"a\",\"nmae\":1}",
            "field `nmae`: not a field of fleet.Robot",
        ),
        (
            "{\"name\":\"a\",\"name\":\"b\"}",
            "field `name`: given twice",
        ),
        (
            "{\"name\":\"a\",\"trim\":300}",
            "field `trim`: 300 is out of range for a byte (-128 to 127)",
        ),
        (
            "{\"name\":\"a\",\"id\":-1}",
            "field `id`: -1 is out of range for a ulong (0 to 18446744073709551615)",
        ),
        (
            "{\"name\":\"a\",\"id\":1.5}",
            "field `id`: expected an integer, got 1.5",
        ),
        (
            "{\"name\":\"a\",\"battery\":1e39}",
            "field `battery`: 1e39 is out of range for a float",
        ),
        (
            "{\"name\":\"a\",\"active\":\"yes\"}",
            "field `active`: expected true or false, got \"yes\"",
        ),
        ("{\"name\":7}", "field `name`: expected a string, got 7"),
        (
            "{\"name\":\"a\",\"tags\":\"x\"}",
            "field `tags`: expected an array, got \"x\"",
        ),
        (
            "{\"name\":\"a\",\"tags\":[\"x\",null]}",
            "field `tags[1]`: expected a string, got null",
        ),
        (
            "{\"name\":\"a\",\"limit\":\"7\"}",
            "field `limit`: expected an integer, got \"7\"",
        ),
        (
            "{\"name\":\"a\",\"color\":\"Purple\"}",
            "field `color`: \"Purple\" is not a value of fleet.Color (Red, Green, Blue)",
        ),
        (
            "{\"name\":\"a\",\"color\":true}",
            "field `color`: expected a value of fleet.Color (a name or an integer), got true",
        ),
        (
            "{\"name\":\"a\",\"device_type\":\"Motor\"}",
            "field `device`: missing, and `device_type` says it is a Motor",
        ),
        (
            "{\"name\":\"a\",\"device\":{\"rpm\":1}}",
            "field `device`: a value, but `device_type` does not say which member of fleet.Device it is",
        ),
        (
            "{\"name\":\"a\",\"device_type\":9,\"device\":{}}",
            "field `device_type`: 9 is not a member of fleet.Device (NONE, Sensor, Motor, Camera)",
        ),
        (
            "{\"name\":\"a\",\"device_type\":\"Camera\",\"device\":{\"rpm\":1}}",
            "field `device.rpm`: not a field of fleet.Camera",
        ),
        (
            "{\"name\":\"a\",\"pose\":{\"position\":{\"x\":1,\"y\":2},\"heading\":0,\"color\":0}}",
            "field `pose.position.z`: missing: every field of a struct must be given",
        ),
        (
            "{\"name\":\"a\",\"waypoints\":[{\"x\":1,\"y\":2,\"z\":3},{\"x\":1,\"y\":2,\"z\":\"q\"}]}",
            "field `waypoints[1].z`: expected a number, got \"q\"",
        ),
        (
            "{\"name\":\"a\",\"pose\":[1]}",
            "field `pose`: expected an object (a fleet.Pose struct), got an array",
        ),
        (
            "{\"name\":\"a\",\"parent\":{\"name\":\"b\",\"parent\":{}}}",
            "field `parent.parent.name`: missing, and the field is required",
        ),
        (
            "{\"name\":\"a\",\"firmware\":\"!!\"}",
            "field `firmware`: not base64: \"!!\"",
        ),
        (
            "{\"name\":\"a\",\"firmware\":[256]}",
            "field `firmware[0]`: 256 is out of range for a ubyte (0 to 255)",
        ),
        (
            "[1]",
            "expected an object (a fleet.Robot table), got an array",
        ),
        (
            "{\"name\":\"a\",}",
            "not JSON: expected a key (a string) at column 13",
        ),
        (
            "{\"name\":\"a\"} x",
            "not JSON: more after the value at column 14",
        ),
    ] {
        let out = pack(&["-s", &fleet_bfbs()], &format!("{line}\n"));
        assert_eq!(
            out.one_line_error(1),
            format!("flatstream: stdin: line 1: {error}; stdout holds the 0 frames before it"),
            "{line}"
        );
        assert!(out.stdout_bytes.is_empty(), "{line}");
    }
    let out = run_stdin(&["pack", "-s", &fleet_bfbs()], b"{\"name\":\"\xff\"}\n");
    assert_contains(
        &out.one_line_error(1),
        "stdin: line 1: not UTF-8 at column 10",
    );
}

#[test]
fn what_stops_pack_before_it_starts_is_exit_status_2_and_creates_nothing() {
    let dir = Dir::new();
    let out = dir.path("out.fs");
    let missing = dir.path("missing.jsonl");
    let line = run(&["pack", "-s", &fleet_bfbs(), &missing, "-o", &out]).one_line_error(2);
    assert_eq!(
        line,
        format!("flatstream: {missing}: no such file or directory")
    );
    assert!(!std::path::Path::new(&out).exists());

    let input = dir.file("in.jsonl", b"{\"name\":\"a\"}\n");
    let line = run(&["pack", "-s", &fleet_bfbs(), &input, "-o", &input]).one_line_error(2);
    assert_contains(&line, "is an input file: write to another file");
    assert_eq!(std::fs::read(&input).unwrap(), b"{\"name\":\"a\"}\n");

    let line = run(&["pack", "-s", &fleet_bfbs(), "--root-type", "Vec3", &input]).one_line_error(2);
    assert_contains(&line, "root type `Vec3` is not a table of the schema");
    let line = run(&["pack", "-s", &input, &input, "-o", &out]).one_line_error(2);
    assert_contains(&line, "not a binary schema");
    let line = run(&["pack", "-s", &fleet_bfbs(), "-", "-"]).one_line_error(2);
    assert_contains(&line, "standard input (-) can be read only once");
    assert!(!std::path::Path::new(&out).exists());
    // No schema at all is a usage error.
    run(&["pack", &input]).exits(2);
}

#[test]
fn an_empty_input_is_an_empty_stream() {
    let out = pack(&["-s", &telemetry_bfbs()], "");
    assert!(out.ok().stdout_bytes.is_empty());
    let out = pack(&["-s", &telemetry_bfbs()], "\n  \n\r\n");
    assert!(out.ok().stdout_bytes.is_empty());
}

#[test]
fn floats_are_read_at_their_own_width_bit_for_bit() {
    // Finite f32s of every magnitude, printed as cat prints them (the shortest decimal that
    // reads back to the same f32), must come back with the same bits.
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut values = vec![
        f32::MIN_POSITIVE,
        f32::MAX,
        f32::MIN,
        1e-45,
        -0.0,
        0.1,
        1.0 / 3.0,
    ];
    while values.len() < 3000 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let v = f32::from_bits((state >> 32) as u32);
        if v.is_finite() {
            values.push(v);
        }
    }
    let lines: String = values
        .iter()
        .map(|v| {
            format!(
                "{{\"name\":\"f\",\"battery\":{}}}\n",
                serde_json::to_string(v).unwrap()
            )
        })
        .collect();
    for (v, payload) in values.iter().zip(robots_of(&lines)) {
        let got = root_as_robot(&payload).unwrap().battery();
        assert_eq!(got.to_bits(), v.to_bits(), "{v:e}");
    }
}

#[test]
fn binary_output_to_a_terminal_is_refused() {
    use std::process::{Command, Stdio};
    // A pseudo-terminal from `script` (util-linux), as in terminal.rs; without it, untested.
    if !terminal_available() {
        return;
    }
    let line = format!(
        "{} pack -s '{}'",
        env!("CARGO_BIN_EXE_flatstream"),
        telemetry_bfbs()
    );
    let mut cmd = Command::new("script");
    cmd.args(["-q", "-e", "-c", &line, "/dev/null"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let out = bounded(cmd, None);
    assert_eq!(out.status, 2, "{out:?}");
    assert_contains(
        &out.stdout,
        "flatstream: refusing to write binary frames to a terminal: redirect stdout or pass a file",
    );
}
