//! `flatstream cat`: with a schema, every message as JSON, parsed back and compared field by
//! field with what was written (the telemetry schema, and the fleet test schema with nested
//! tables, vectors of every kind, enums, a union, structs and bytes); without, frames in hex.

mod common;
use common::*;
use flatbuffers::{FlatBufferBuilder, WIPOffset};
use flatstream::ChecksumKind;
use flatstream_test_support::telemetry::Reading;
use serde_json::{Value, json};

#[allow(
    unsafe_code,
    unused_imports,
    dead_code,
    non_camel_case_types,
    non_snake_case,
    rust_2018_idioms,
    clippy::all,
    clippy::undocumented_unsafe_blocks,
    missing_docs,
    unreachable_pub
)]
#[path = "../../../examples/generated/fleet_generated.rs"]
mod fleet_generated;
use fleet_generated::fleet::*;

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
    let dir = Dir::new();
    let (bytes, at) = telemetry_at(20, ChecksumKind::XxHash64);
    let damaged = flipped(&bytes, at[12] + 14, 4);
    let out = run(&["cat", &dir.file("d", &damaged), "-s", &telemetry_bfbs()]);
    assert_starts_with(
        &out.one_line_error(1),
        &format!(
            "flatstream: frame 12 at byte offset {}: checksum mismatch",
            at[12]
        ),
    );
    assert_eq!(out.json_lines().len(), 12);
}

// ---- the fleet schema ----------------------------------------------------------------

#[derive(Clone)]
struct SensorSpec {
    name: Option<&'static str>,
    readings: Option<Vec<f64>>,
}

#[derive(Clone)]
enum DeviceSpec {
    None,
    Sensor(SensorSpec),
    Motor {
        rpm: i32,
        temperature: Option<f32>,
    },
    Camera {
        resolution: Vec<u16>,
        lens: &'static str,
    },
}

#[derive(Clone)]
struct RobotSpec {
    id: u64,
    name: String,
    color: Option<i8>,
    status: u16,
    pose: Option<([f32; 3], i16, i8)>,
    tags: Option<Vec<&'static str>>,
    colors: Option<Vec<i8>>,
    sensors: Option<Vec<SensorSpec>>,
    waypoints: Option<Vec<[f32; 3]>>,
    device: DeviceSpec,
    parent: Option<Box<RobotSpec>>,
    firmware: Option<Vec<u8>>,
    active: bool,
    battery: f32,
    limit: Option<i32>,
    offset: i64,
    trim: i8,
}

fn sensor<'a>(b: &mut FlatBufferBuilder<'a>, s: &SensorSpec) -> WIPOffset<Sensor<'a>> {
    let name = s.name.map(|n| b.create_string(n));
    let readings = s.readings.as_ref().map(|r| b.create_vector(r));
    Sensor::create(b, &SensorArgs { name, readings })
}

fn robot<'a>(b: &mut FlatBufferBuilder<'a>, r: &RobotSpec) -> WIPOffset<Robot<'a>> {
    let parent = r.parent.as_ref().map(|p| robot(b, p));
    let name = b.create_string(&r.name);
    let tags = r.tags.as_ref().map(|t| {
        let t: Vec<_> = t.iter().map(|s| b.create_string(s)).collect();
        b.create_vector(&t)
    });
    let colors = r.colors.as_ref().map(|c| {
        let c: Vec<Color> = c.iter().map(|&c| Color(c)).collect();
        b.create_vector(&c)
    });
    let sensors = r.sensors.as_ref().map(|s| {
        let s: Vec<_> = s.iter().map(|s| sensor(b, s)).collect();
        b.create_vector(&s)
    });
    let waypoints = r.waypoints.as_ref().map(|w| {
        let w: Vec<Vec3> = w.iter().map(|p| Vec3::new(p[0], p[1], p[2])).collect();
        b.create_vector(&w)
    });
    let firmware = r.firmware.as_ref().map(|f| b.create_vector(f));
    let (device_type, device) = match &r.device {
        DeviceSpec::None => (Device::NONE, None),
        DeviceSpec::Sensor(s) => (Device::Sensor, Some(sensor(b, s).as_union_value())),
        DeviceSpec::Motor { rpm, temperature } => {
            let m = Motor::create(
                b,
                &MotorArgs {
                    rpm: *rpm,
                    temperature: temperature.unwrap_or(20.5),
                },
            );
            (Device::Motor, Some(m.as_union_value()))
        }
        DeviceSpec::Camera { resolution, lens } => {
            let resolution = Some(b.create_vector(resolution));
            let lens = Some(b.create_string(lens));
            let c = Camera::create(b, &CameraArgs { resolution, lens });
            (Device::Camera, Some(c.as_union_value()))
        }
    };
    let pose = r
        .pose
        .map(|(p, heading, color)| Pose::new(&Vec3::new(p[0], p[1], p[2]), heading, Color(color)));
    Robot::create(
        b,
        &RobotArgs {
            id: r.id,
            name: Some(name),
            color: Color(r.color.unwrap_or(1)),
            status: Status(r.status),
            pose: pose.as_ref(),
            tags,
            colors,
            sensors,
            waypoints,
            device_type,
            device,
            parent,
            firmware,
            active: r.active,
            battery: r.battery,
            limit: r.limit,
            offset: r.offset,
            trim: r.trim,
        },
    )
}

fn color(c: i8) -> Value {
    match c {
        0 => json!("Red"),
        1 => json!("Green"),
        2 => json!("Blue"),
        other => json!(other),
    }
}

fn sensor_json(s: &SensorSpec) -> Value {
    let mut m = serde_json::Map::new();
    if let Some(n) = s.name {
        m.insert("name".into(), json!(n));
    }
    if let Some(r) = &s.readings {
        m.insert("readings".into(), json!(r));
    }
    Value::Object(m)
}

fn vec3(p: &[f32; 3]) -> Value {
    json!({"x": p[0], "y": p[1], "z": p[2]})
}

/// What `cat` must print for `r`: every scalar (at its default when absent, `null` for the
/// optional one), the other fields only when present. The f32 values of the specs are
/// exact in binary, so that their JSON reads back to the same f64.
fn robot_json(r: &RobotSpec) -> Value {
    let mut m = serde_json::Map::new();
    m.insert("id".into(), json!(r.id));
    m.insert("name".into(), json!(r.name));
    m.insert("color".into(), color(r.color.unwrap_or(1)));
    let status = match r.status {
        0 => json!("Idle"),
        5 => json!("Running"),
        9 => json!("Failed"),
        other => json!(other),
    };
    m.insert("status".into(), status);
    if let Some((p, heading, c)) = &r.pose {
        m.insert(
            "pose".into(),
            json!({"position": vec3(p), "heading": heading, "color": color(*c)}),
        );
    }
    if let Some(t) = &r.tags {
        m.insert("tags".into(), json!(t));
    }
    if let Some(c) = &r.colors {
        m.insert(
            "colors".into(),
            Value::Array(c.iter().map(|&c| color(c)).collect()),
        );
    }
    if let Some(s) = &r.sensors {
        m.insert(
            "sensors".into(),
            Value::Array(s.iter().map(sensor_json).collect()),
        );
    }
    if let Some(w) = &r.waypoints {
        m.insert(
            "waypoints".into(),
            Value::Array(w.iter().map(vec3).collect()),
        );
    }
    let (type_name, value) = match &r.device {
        DeviceSpec::None => ("NONE", None),
        DeviceSpec::Sensor(s) => ("Sensor", Some(sensor_json(s))),
        DeviceSpec::Motor { rpm, temperature } => (
            "Motor",
            Some(json!({"rpm": rpm, "temperature": temperature.unwrap_or(20.5)})),
        ),
        DeviceSpec::Camera { resolution, lens } => (
            "Camera",
            Some(json!({"resolution": resolution, "lens": lens})),
        ),
    };
    m.insert("device_type".into(), json!(type_name));
    if let Some(v) = value {
        m.insert("device".into(), v);
    }
    if let Some(p) = &r.parent {
        m.insert("parent".into(), robot_json(p));
    }
    if let Some(f) = &r.firmware {
        m.insert("firmware".into(), json!(base64(f)));
    }
    m.insert("active".into(), json!(r.active));
    let battery = if r.battery.is_nan() {
        json!("nan")
    } else {
        json!(r.battery)
    };
    m.insert("battery".into(), battery);
    m.insert("limit".into(), r.limit.map_or(Value::Null, |l| json!(l)));
    m.insert("offset".into(), json!(r.offset));
    m.insert("trim".into(), json!(r.trim));
    Value::Object(m)
}

/// Base64 the slow, obvious way, to check the command's.
fn base64(bytes: &[u8]) -> String {
    let alphabet: Vec<char> = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
        .chars()
        .collect();
    let bits: String = bytes.iter().map(|b| format!("{b:08b}")).collect();
    let mut out: String = bits
        .as_bytes()
        .chunks(6)
        .map(|c| {
            let s = format!("{:0<6}", std::str::from_utf8(c).unwrap());
            alphabet[usize::from_str_radix(&s, 2).unwrap()]
        })
        .collect();
    while out.len() % 4 != 0 {
        out.push('=');
    }
    out
}

fn robots() -> Vec<RobotSpec> {
    let plain = RobotSpec {
        id: 0,
        name: "plain".into(),
        color: None,
        status: 0,
        pose: None,
        tags: None,
        colors: None,
        sensors: None,
        waypoints: None,
        device: DeviceSpec::None,
        parent: None,
        firmware: None,
        active: true,
        battery: 0.0,
        limit: None,
        offset: 0,
        trim: 0,
    };
    let full = RobotSpec {
        id: u64::MAX - 7, // past 2^53: must print exactly
        name: "rover \"7\"\n\u{e9}".into(),
        color: Some(2),
        status: 5,
        pose: Some(([1.5, -2.25, 1048576.0], -300, 0)),
        tags: Some(vec!["alpha", "", "\u{1F916}"]),
        colors: Some(vec![0, 1, 2, 1, 7]),
        sensors: Some(vec![
            SensorSpec {
                name: Some("lidar"),
                readings: Some(vec![0.1, -1e-300, 12345.678]),
            },
            SensorSpec {
                name: None,
                readings: Some(vec![]),
            },
            SensorSpec {
                name: Some("empty"),
                readings: None,
            },
        ]),
        waypoints: Some(vec![[0.0, 0.5, 1.0], [-4.0, 8.0, 0.125]]),
        device: DeviceSpec::Motor {
            rpm: -1200,
            temperature: Some(88.75),
        },
        parent: Some(Box::new(RobotSpec {
            name: "parent".into(),
            device: DeviceSpec::Camera {
                resolution: vec![1920, 1080, 65535],
                lens: "wide",
            },
            parent: Some(Box::new(RobotSpec {
                name: "grandparent".into(),
                ..plain.clone()
            })),
            ..plain.clone()
        })),
        firmware: Some((0..=255u8).collect()),
        active: false,
        battery: 0.75,
        limit: Some(-5),
        offset: i64::MIN,
        trim: -128,
    };
    vec![
        plain.clone(),
        full,
        RobotSpec {
            name: "sensor".into(),
            status: 7, // a value the enum does not name
            device: DeviceSpec::Sensor(SensorSpec {
                name: Some("probe"),
                readings: Some(vec![2.5]),
            }),
            limit: Some(0),
            battery: f32::NAN,
            firmware: Some(vec![1, 2]),
            ..plain.clone()
        },
        RobotSpec {
            name: "motor-default".into(),
            device: DeviceSpec::Motor {
                rpm: 0,
                temperature: None,
            },
            tags: Some(vec![]),
            firmware: Some(vec![]),
            ..plain
        },
    ]
}

/// The FlatBuffer whose root `build` builds.
fn finished<T>(build: impl FnOnce(&mut FlatBufferBuilder<'static>) -> WIPOffset<T>) -> Vec<u8> {
    let mut b = FlatBufferBuilder::new();
    let root = build(&mut b);
    b.finish(root, None);
    b.finished_data().to_vec()
}

fn fleet_stream(robots: &[RobotSpec], kind: ChecksumKind) -> Vec<u8> {
    let payloads: Vec<Vec<u8>> = robots.iter().map(|r| finished(|b| robot(b, r))).collect();
    for p in &payloads {
        root_as_robot(p).expect("the generated code reads what it wrote");
    }
    framed(kind, &payloads)
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
