//! The fleet test schema (examples/fleet.fbs) as the tests of the `flatstream` command use
//! it: robots written with flatc's generated code, covering every shape a FlatBuffer can
//! take, and the JSON `cat --schema` must print for each.
#![allow(dead_code, unreachable_pub)]

use crate::common::{fleet_bfbs, framed, offsets};
use flatbuffers::{FlatBufferBuilder, WIPOffset};
use flatstream::checksum::ChecksumKind;
use flatstream_arrow::arrow_array::RecordBatch;
use flatstream_arrow::{BinarySchema, Options, Plan};
use serde_json::{Value, json};

pub use flatstream_test_support::fleet::*;

#[derive(Clone)]
pub struct SensorSpec {
    pub name: Option<&'static str>,
    pub readings: Option<Vec<f64>>,
}

#[derive(Clone)]
pub enum DeviceSpec {
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
pub struct RobotSpec {
    pub id: u64,
    pub name: String,
    pub color: Option<i8>,
    pub status: u16,
    pub pose: Option<([f32; 3], i16, i8)>,
    pub tags: Option<Vec<&'static str>>,
    pub colors: Option<Vec<i8>>,
    pub sensors: Option<Vec<SensorSpec>>,
    pub waypoints: Option<Vec<[f32; 3]>>,
    pub device: DeviceSpec,
    pub parent: Option<Box<RobotSpec>>,
    pub firmware: Option<Vec<u8>>,
    pub active: bool,
    pub battery: f32,
    pub limit: Option<i32>,
    pub offset: i64,
    pub trim: i8,
}

pub fn sensor<'a>(b: &mut FlatBufferBuilder<'a>, s: &SensorSpec) -> WIPOffset<Sensor<'a>> {
    let name = s.name.map(|n| b.create_string(n));
    let readings = s.readings.as_ref().map(|r| b.create_vector(r));
    Sensor::create(b, &SensorArgs { name, readings })
}

pub fn robot<'a>(b: &mut FlatBufferBuilder<'a>, r: &RobotSpec) -> WIPOffset<Robot<'a>> {
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

pub fn color(c: i8) -> Value {
    match c {
        0 => json!("Red"),
        1 => json!("Green"),
        2 => json!("Blue"),
        other => json!(other),
    }
}

pub fn sensor_json(s: &SensorSpec) -> Value {
    let mut m = serde_json::Map::new();
    if let Some(n) = s.name {
        m.insert("name".into(), json!(n));
    }
    if let Some(r) = &s.readings {
        m.insert("readings".into(), json!(r));
    }
    Value::Object(m)
}

pub fn vec3(p: &[f32; 3]) -> Value {
    json!({"x": p[0], "y": p[1], "z": p[2]})
}

/// What `cat` must print for `r`: every scalar (at its default when absent, `null` for the
/// optional one), the other fields only when present. The f32 values of the specs are
/// exact in binary, so that their JSON reads back to the same f64.
pub fn robot_json(r: &RobotSpec) -> Value {
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
pub fn base64(bytes: &[u8]) -> String {
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
    while !out.len().is_multiple_of(4) {
        out.push('=');
    }
    out
}

pub fn robots() -> Vec<RobotSpec> {
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
pub fn finished<T>(build: impl FnOnce(&mut FlatBufferBuilder<'static>) -> WIPOffset<T>) -> Vec<u8> {
    let mut b = FlatBufferBuilder::new();
    let root = build(&mut b);
    b.finish(root, None);
    b.finished_data().to_vec()
}

pub fn fleet_stream(robots: &[RobotSpec], kind: ChecksumKind) -> Vec<u8> {
    let payloads: Vec<Vec<u8>> = robots.iter().map(|r| finished(|b| robot(b, r))).collect();
    for p in &payloads {
        root_as_robot(p).expect("the generated code reads what it wrote");
    }
    framed(kind, &payloads)
}

/// [`robots`] framed with `kind` ([`fleet_stream`]), and what flatstream-arrow converts their
/// frames to: the fleet schema's plan (default options) and its batches, each message with its
/// frame's offset.
pub fn fleet_batches(kind: ChecksumKind) -> (Vec<u8>, Plan, Vec<RecordBatch>) {
    let robots = robots();
    let bytes = fleet_stream(&robots, kind);
    let plan = Plan::new(&BinarySchema::load(fleet_bfbs()).unwrap(), &Options::new()).unwrap();
    let payloads: Vec<Vec<u8>> = robots.iter().map(|r| finished(|b| robot(b, r))).collect();
    let frames = offsets(&bytes, kind)
        .into_iter()
        .zip(&payloads)
        .map(|(o, p)| Ok::<_, flatstream_arrow::Error>((o, p.as_slice())));
    let batches = plan.convert(frames).collect::<Result<_, _>>().unwrap();
    (bytes, plan, batches)
}
