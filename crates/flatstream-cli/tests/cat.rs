//! `flatstream cat`: with a schema, every message as JSON, parsed back and compared field by
//! field with what was written (the telemetry schema, and the fleet test schema with nested
//! tables, vectors of every kind, enums, a union, structs and bytes); without, frames in hex.

mod common;
mod fleet;
use common::*;
use flatstream::checksum::ChecksumKind;
use flatstream_test_support::telemetry::Reading;
use fleet::*;
use serde_json::json;

#[test]
fn telemetry_messages_print_as_what_was_written() {
    let dir = Dir::new();
    let path = dir.file("t", &telemetry(2000, ChecksumKind::XxHash64));
    let messages = run(&["cat", &path, "--schema", &telemetry_bfbs()])
        .ok()
        .json_lines();
    assert_eq!(messages.len(), 2000);
    for (i, m) in messages.iter().enumerate() {
        assert_reading(m, i as u64);
        assert_eq!(m.as_object().unwrap().len(), 3, "{m}");
    }
}

#[test]
fn skip_and_limit_select_frames_and_stdin_works() {
    let bytes = telemetry(100, ChecksumKind::Crc32);
    let out = run_stdin(
        &[
            "cat",
            "-",
            "--schema",
            &telemetry_bfbs(),
            "--skip",
            "10",
            "--limit",
            "5",
        ],
        &bytes,
    );
    let got: Vec<u64> = out
        .ok()
        .json_lines()
        .iter()
        .map(|m| m["timestamp"].as_u64().unwrap())
        .collect();
    let device: Vec<u64> = out
        .json_lines()
        .iter()
        .map(|m| m["device_id"].as_u64().unwrap())
        .collect();
    assert_eq!(
        device,
        (10..15)
            .map(|i| Reading::nth(i).device_id)
            .collect::<Vec<_>>()
    );
    assert_eq!(got.len(), 5);
}

#[test]
fn without_a_schema_frames_print_as_hex_or_json() {
    let dir = Dir::new();
    let payloads: [&[u8]; 3] = [b"\x01\x02\xff", b"", &[7; 40]];
    let path = dir.file("raw", &framed(ChecksumKind::Crc16, &payloads));
    let out = run(&["cat", &path]);
    let expected = format!(
        "frame 0 offset 0 size 3: 01 02 ff\n\
         frame 1 offset 9 size 0: \n\
         frame 2 offset 15 size 40: {} \u{2026}\n",
        vec!["07"; 32].join(" ")
    );
    assert_eq!(out.ok().stdout, expected);

    let m = run(&["cat", &path, "--format", "json", "--bytes", "hex"])
        .ok()
        .json_lines();
    assert_eq!(
        m[0],
        json!({"index": 0, "offset": 0, "size": 3, "payload": "0102ff"})
    );
    assert_eq!(
        m[1],
        json!({"index": 1, "offset": 9, "size": 0, "payload": ""})
    );
    assert_eq!(m[2]["payload"], "07".repeat(40));
    let out = run(&["cat", &path, "--format", "json", "--limit", "1"]);
    assert_eq!(out.json_lines()[0]["payload"], "AQL/", "base64 by default");
}

#[test]
fn damage_stops_cat_after_the_messages_before_it() {
    let Capture { dir, bytes, at } = Capture::new(20, ChecksumKind::XxHash64);
    let damaged = flipped(&bytes, at[12] + 14, 4);
    let out = run(&["cat", &dir.file("d", &damaged), "-s", &telemetry_bfbs()]);
    out.stops_at(12, at[12], "corrupt frame: checksum mismatch");
    assert_eq!(out.json_lines().len(), 12);
}

#[test]
fn fleet_messages_print_field_by_field_as_written() {
    let dir = Dir::new();
    let robots = robots();
    let path = dir.file("fleet", &fleet_stream(&robots, ChecksumKind::Crc32c));
    let out = run(&["cat", &path, "--schema", &fleet_bfbs()]);
    let got = out.ok().json_lines();
    assert_eq!(got.len(), robots.len());
    for (r, m) in robots.iter().zip(&got) {
        let expected = robot_json(r);
        for (field, value) in expected.as_object().unwrap() {
            assert_eq!(m.get(field), Some(value), "{}.{field}: {m}", r.name);
        }
        assert_eq!(
            m.as_object().unwrap().len(),
            expected.as_object().unwrap().len(),
            "{m}"
        );
    }
    // Fields come in declaration order, as flatc writes them.
    let first = out.stdout.lines().next().unwrap();
    assert_starts_with(
        first,
        "{\"id\":0,\"name\":\"plain\",\"color\":\"Green\",\"status\":\"Idle\",",
    );
    assert_ends_with(first, "\"limit\":null,\"offset\":0,\"trim\":0}");
    // 64-bit integers exactly, not through a double.
    assert!(out.stdout.contains(&format!("\"id\":{}", u64::MAX - 7)));
    assert!(out.stdout.contains(&format!("\"offset\":{}", i64::MIN)));
}

#[test]
fn bytes_can_be_printed_as_hex() {
    let dir = Dir::new();
    let robots = robots();
    let path = dir.file(
        "fleet",
        &fleet_stream(&robots[2..3], ChecksumKind::XxHash64),
    );
    let out = run(&["cat", &path, "-s", &fleet_bfbs(), "--bytes", "hex"]);
    assert_eq!(out.ok().json_lines()[0]["firmware"], "0102");
}

#[test]
fn another_table_of_the_schema_is_read_with_root_type() {
    let dir = Dir::new();
    let specs = [
        SensorSpec {
            name: Some("a"),
            readings: Some(vec![1.0, 2.0]),
        },
        SensorSpec {
            name: None,
            readings: None,
        },
    ];
    let payloads: Vec<Vec<u8>> = specs.iter().map(|s| finished(|b| sensor(b, s))).collect();
    let path = dir.file("sensors", &framed(ChecksumKind::Crc32, &payloads));
    for root in ["fleet.Sensor", "Sensor"] {
        let out = run(&["cat", &path, "-s", &fleet_bfbs(), "--root-type", root]);
        let got = out.ok().json_lines();
        assert_eq!(got, specs.iter().map(sensor_json).collect::<Vec<_>>());
        run(&["verify", &path, "-s", &fleet_bfbs(), "--root-type", root]).ok();
    }
    // The same bytes are not valid robots: a robot's required name is missing.
    assert_contains(
        &run(&["verify", &path, "-s", &fleet_bfbs()]).one_line_error(1),
        "frame 0 at byte offset 0: not a valid fleet.Robot",
    );
}

#[test]
fn an_unknown_root_type_is_one_line_naming_the_tables() {
    let dir = Dir::new();
    let path = dir.file("f", &fleet_stream(&robots()[..1], ChecksumKind::Crc32));
    for root in ["Nope", "Vec3"] {
        let line = run(&["cat", &path, "-s", &fleet_bfbs(), "--root-type", root]).one_line_error(2);
        assert_contains(
            &line,
            &format!("root type `{root}` is not a table of the schema"),
        );
        assert_contains(
            &line,
            "fleet.Camera, fleet.Motor, fleet.Robot, fleet.Sensor",
        );
    }
}

#[test]
fn a_hostile_union_type_is_an_error_of_its_frame_not_a_panic() {
    let dir = Dir::new();
    let evil = finished(|b| {
        let name = b.create_string("evil");
        let m = Motor::create(
            b,
            &MotorArgs {
                rpm: 1,
                temperature: 1.0,
            },
        );
        Robot::create(
            b,
            &RobotArgs {
                name: Some(name),
                device_type: Device(200),
                device: Some(m.as_union_value()),
                ..Default::default()
            },
        )
    });
    let good = finished(|b| robot(b, &robots()[0]));
    let path = dir.file("evil", &framed(ChecksumKind::XxHash64, &[good, evil]));
    for command in ["cat", "verify"] {
        let line = run(&[command, &path, "-s", &fleet_bfbs()]).one_line_error(1);
        assert_starts_with(&line, "flatstream: frame 1 at byte offset ");
        assert_contains(&line, "not a valid fleet.Robot");
    }
}

#[test]
fn a_schema_error_is_one_sentence_naming_the_field_and_the_frame() {
    let dir = Dir::new();
    let good = finished(|b| robot(b, &robots()[0]));
    // The name string's length (the 4 bytes before "plain") made to run past the payload.
    let mut bad = good.clone();
    let at = bad.windows(5).position(|w| w == b"plain").unwrap();
    bad[at - 4..at].copy_from_slice(&1000u32.to_le_bytes());
    // The table's `name` field: the offset that leads to the string's length (the last such
    // word: the vtable before the table may hold two u16 that read as one).
    let field = (0..at - 4)
        .step_by(4)
        .rfind(|&p| p + u32::from_le_bytes(bad[p..p + 4].try_into().unwrap()) as usize == at - 4)
        .unwrap();
    let bytes = framed(ChecksumKind::Crc32, &[good.clone(), bad.clone()]);
    let frame = 4 + 4 + good.len();
    let path = dir.file("bad-name", &bytes);
    for command in ["cat", "verify"] {
        let line = run(&[command, &path, "-s", &fleet_bfbs()]).one_line_error(1);
        assert_eq!(
            line,
            format!(
                "flatstream: frame 1 at byte offset {frame}: not a valid fleet.Robot: field \
                 `name` at payload byte {field}: bytes {}..{} are outside the payload",
                at,
                at + 1000
            ),
            "{command}"
        );
    }
}

#[test]
fn limit_stops_before_the_frames_it_was_not_asked_for() {
    let Capture { dir, bytes, at } = Capture::new(20, ChecksumKind::Crc32);
    // Frame 9 corrupt: the 9 frames before it are all that --limit 9 reads.
    let path = dir.file("d", &flipped(&bytes, at[9] + 10, 1));
    for args in [&["--limit", "9"][..], &["--skip", "4", "--limit", "5"]] {
        let out = run(&[&["cat", &path, "-s", &telemetry_bfbs()][..], args].concat());
        let messages = out.ok().json_lines();
        assert_eq!(
            messages.len(),
            if args.len() == 2 { 9 } else { 5 },
            "{args:?}"
        );
        assert_eq!(out.stderr, "", "{args:?}");
    }
    // One more, and the corrupt frame is among those asked for.
    let out = run(&["cat", &path, "--limit", "10"]);
    assert_eq!(out.stdout.lines().count(), 9);
    out.stops_at(9, at[9], "corrupt frame: checksum mismatch");
    // Cut short: --limit covers the frames that are whole.
    let torn = dir.file("t", &bytes[..bytes.len() - 3]);
    assert_eq!(
        run(&["cat", &torn, "--limit", "19"])
            .ok()
            .stdout
            .lines()
            .count(),
        19
    );
}

#[test]
fn a_payload_too_short_for_a_flatbuffer_is_said_so() {
    let dir = Dir::new();
    let good = telemetry(1, ChecksumKind::Crc32);
    let short = framed(ChecksumKind::Crc32, &[&[1u8, 2, 3][..]]);
    let path = dir.file("short", &[good.clone(), short].concat());
    for command in ["cat", "verify"] {
        let line = run(&[command, &path, "-s", &telemetry_bfbs()]).one_line_error(1);
        assert_eq!(
            line,
            format!(
                "flatstream: frame 1 at byte offset {}: not a valid telemetry.Telemetry: its 3 \
                 bytes are too few for a FlatBuffer (4 at least, the offset of its root table)",
                good.len()
            ),
            "{command}"
        );
    }
}
