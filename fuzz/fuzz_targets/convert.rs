//! flatstream-arrow's converter over hostile payloads of the fleet and shapes schemas
//! (examples/): the compiled verifier agrees with the reflection verifier, and what it passes
//! converts without an error or a panic.
//!
//! - A converter that verifies every field (all columns projected, or `verify_unread`) accepts
//!   exactly the payloads that both reflection's verifier (`flatbuffers_reflection::SafeBuffer`)
//!   and flatc's generated verifier (`flatbuffers::root`) accept; one of a projection accepts
//!   at least those. Each oracle alone passes payloads the converter rightly refuses:
//!   reflection's verifies a table once however many references lead to it (so a table
//!   referenced as two types, or again deeper than the depth limit, passes), and flatc's
//!   accepts a union type the union does not have. A payload on which the reflection verifier
//!   panics (a bad union type) is rejected by a converter that verifies every field.
//! - A payload the converter accepts is read into its row: never `Error::Read`, and every
//!   batch finishes.
//! - `Plan::convert` over the same frames yields the rows before the first rejected frame, in
//!   batches, then that frame's error, then nothing.
//!
//! The payloads are the input's frames (plain framing), or, to reach deep into valid
//! FlatBuffers quickly, a built sample with input-chosen bytes changed and its end cut.
#![no_main]

use flatbuffers::{FlatBufferBuilder, VerifierOptions};
use flatbuffers_reflection::SafeBuffer;
use flatstream_arrow::arrow_array::RecordBatch;
use flatstream_arrow::{BinarySchema, Enums, Error, Options, Plan};
use flatstream_core::{DefaultDeframer, Frames};
use flatstream_test_support::fleet::*;
use flatstream_test_support::fleet_build::{camera, motor, sensor};
use flatstream_test_support::shapes;
use libfuzzer_sys::fuzz_target;
use std::panic::{self, AssertUnwindSafe};
use std::sync::OnceLock;

const FLEET: &[u8] = include_bytes!("../../examples/fleet.bfbs");
const SHAPES: &[u8] = include_bytes!("../../examples/shapes.bfbs");

/// The tables frames are read as: a schema and a root type.
const TABLES: [(&[u8], &str); 4] = [
    (FLEET, "fleet.Robot"),
    (FLEET, "fleet.Sensor"),
    (SHAPES, "shapes.Shapes"),
    (SHAPES, "shapes.Node"),
];

/// A schema rooted at one of its tables: a plan compiled for each combination of the settings
/// (enums, `verify_unread`, the offset column), the same schema for the reflection verifier,
/// and valid payloads to change.
struct Table {
    root: &'static str,
    plans: Vec<Plan>,
    rooted: Vec<u8>,
    samples: Vec<Vec<u8>>,
}

fn tables() -> &'static [Table] {
    static TABLES_: OnceLock<Vec<Table>> = OnceLock::new();
    TABLES_.get_or_init(|| {
        TABLES
            .iter()
            .map(|&(bytes, root)| {
                let schema = BinarySchema::from_bytes(bytes.to_vec()).unwrap();
                let plans = (0..8u8)
                    .map(|settings| {
                        let mut options = Options::new();
                        options
                            .root_type(root)
                            .enums(if settings & 1 != 0 {
                                Enums::Integers
                            } else {
                                Enums::Names
                            })
                            .verify_unread(settings & 2 != 0)
                            .offset_column(settings & 4 != 0)
                            .batch_size(2);
                        Plan::new(&schema, &options).unwrap()
                    })
                    .collect();
                let reflection = flatstream_reflect::parse(bytes).unwrap();
                let index = flatstream_reflect::root_table(&reflection, Some(root)).unwrap();
                Table {
                    root,
                    plans,
                    rooted: flatstream_reflect::reroot(&reflection, index),
                    samples: samples(root),
                }
            })
            .collect()
    })
}

/// Valid payloads of `root`, every field set in one of them.
fn samples(root: &str) -> Vec<Vec<u8>> {
    let mut b = FlatBufferBuilder::new();
    let mut out = Vec::new();
    let mut done = |b: &mut FlatBufferBuilder| {
        out.push(b.finished_data().to_vec());
        b.reset();
    };
    match root {
        "fleet.Robot" => {
            for kind in 0..3 {
                let name = b.create_string("mother");
                let parent = Robot::create(
                    &mut b,
                    &RobotArgs {
                        name: Some(name),
                        ..Default::default()
                    },
                );
                let name = b.create_string("robot");
                let t: Vec<_> = ["a", "bé"].iter().map(|s| b.create_string(s)).collect();
                let tags = Some(b.create_vector(&t));
                let colors = Some(b.create_vector(&[Color::Blue, Color(7)]));
                let s1 = sensor(&mut b, Some("lidar"), Some(&[1.5, -2.25]));
                let s2 = sensor(&mut b, None, None);
                let sensors = Some(b.create_vector(&[s1, s2]));
                let waypoints = Some(b.create_vector(&[Vec3::new(1.0, 2.0, 3.0)]));
                let (device_type, device) = match kind {
                    0 => (
                        Device::Sensor,
                        sensor(&mut b, Some("sonar"), None).as_union_value(),
                    ),
                    1 => (Device::Motor, motor(&mut b, 1200, 20.5).as_union_value()),
                    _ => (
                        Device::Camera,
                        camera(&mut b, &[640, 480], "wide").as_union_value(),
                    ),
                };
                let firmware = Some(b.create_vector(&[0u8, 1, 255]));
                let pose = Pose::new(&Vec3::new(4.0, 5.0, 6.0), -7, Color::Blue);
                let robot = Robot::create(
                    &mut b,
                    &RobotArgs {
                        id: 7,
                        name: Some(name),
                        color: Color::Red,
                        status: Status::Running,
                        pose: Some(&pose),
                        tags,
                        colors,
                        sensors,
                        waypoints,
                        device_type,
                        device: Some(device),
                        parent: Some(parent),
                        firmware,
                        active: false,
                        battery: 0.5,
                        limit: Some(-5),
                        offset: -1,
                        trim: 3,
                    },
                );
                b.finish(robot, None);
                done(&mut b);
            }
        }
        "fleet.Sensor" => {
            let s = sensor(&mut b, Some("lidar"), Some(&[1.5, -2.25]));
            b.finish(s, None);
            done(&mut b);
        }
        _ => {
            let leaf = shapes::Node::create(
                &mut b,
                &shapes::NodeArgs {
                    value: 1,
                    children: None,
                },
            );
            let children = Some(b.create_vector(&[leaf]));
            let node = shapes::Node::create(&mut b, &shapes::NodeArgs { value: 2, children });
            if root == "shapes.Node" {
                b.finish(node, None);
            } else {
                let nodes = Some(b.create_vector(&[node, leaf]));
                let grid = shapes::Grid::new(
                    &[1, 2, 3, 4],
                    &[shapes::Point::new(1, 2), shapes::Point::new(-3, 4)],
                    0.5,
                );
                let s = shapes::Shapes::create(
                    &mut b,
                    &shapes::ShapesArgs {
                        grid: Some(&grid),
                        node: Some(node),
                        nodes,
                        ..Default::default()
                    },
                );
                b.finish(s, None);
            }
            done(&mut b);
        }
    }
    out
}

/// The reflection verifier's verdict; `None` if it panicked (it indexes a union's members
/// with the type it reads).
fn reflection_accepts(rooted: &[u8], payload: &[u8]) -> Option<bool> {
    let schema = flatstream_reflect::parse(rooted).unwrap();
    // libFuzzer's hook aborts on any panic: this one is expected, and caught.
    let hook = panic::take_hook();
    panic::set_hook(Box::new(|_| {}));
    let verdict = panic::catch_unwind(AssertUnwindSafe(|| {
        payload.len() >= 4
            && SafeBuffer::new_with_options(payload, &schema, &VerifierOptions::default()).is_ok()
    }));
    panic::set_hook(hook);
    verdict.ok()
}

/// The verdict of flatc's generated verifier for `root`, which verifies a table again for every
/// reference to it, as the converter does. A union whose type and value are not both present or
/// both absent passes: flatc's verifier refuses it, reflection's (and the converter) read the
/// union as absent or its type alone.
fn generated_accepts(root: &str, payload: &[u8]) -> bool {
    matches!(
        generated(root, payload),
        Ok(()) | Err(flatbuffers::InvalidFlatbuffer::InconsistentUnion { .. })
    )
}

fn generated(root: &str, payload: &[u8]) -> Result<(), flatbuffers::InvalidFlatbuffer> {
    let options = VerifierOptions::default();
    match root {
        "fleet.Robot" => flatbuffers::root_with_opts::<Robot>(&options, payload).map(drop),
        "fleet.Sensor" => flatbuffers::root_with_opts::<Sensor>(&options, payload).map(drop),
        "shapes.Shapes" => {
            flatbuffers::root_with_opts::<shapes::Shapes>(&options, payload).map(drop)
        }
        "shapes.Node" => flatbuffers::root_with_opts::<shapes::Node>(&options, payload).map(drop),
        _ => unreachable!("a table of TABLES"),
    }
}

/// The payloads of the input: its frames, or a sample with bytes changed and its end cut.
fn payloads<'a>(table: &'a Table, data: &'a [u8], mode: u8) -> Vec<Vec<u8>> {
    if mode & 1 == 0 {
        return Frames::new(data, DefaultDeframer)
            .with_max_frame_len(1 << 16)
            .map_while(Result::ok)
            .map(<[u8]>::to_vec)
            .take(16)
            .collect();
    }
    let [pick, cut, edits @ ..] = data else {
        return Vec::new();
    };
    let mut payload = table.samples[usize::from(*pick) % table.samples.len()].clone();
    for edit in edits.chunks_exact(3) {
        let at = usize::from(u16::from_le_bytes([edit[0], edit[1]]));
        if let Some(byte) = payload
            .len()
            .checked_sub(1)
            .and_then(|last| payload.get_mut(at % (last + 1)))
        {
            *byte ^= edit[2];
        }
    }
    if mode & 2 != 0 {
        payload.truncate(usize::from(*cut) % (payload.len() + 1));
    }
    vec![payload]
}

fuzz_target!(|input: &[u8]| {
    let [which, settings, mode, data @ ..] = input else {
        return;
    };
    let table = &tables()[usize::from(*which) % TABLES.len()];
    let plan = table.plans[usize::from(settings & 7)].clone();
    let (verify_unread, offset_column) = (settings & 2 != 0, settings & 4 != 0);
    // A projection from the other bits: every column, or those the bits pick, in order.
    let columns = plan.file_schema().fields().len();
    let fields = columns - usize::from(offset_column);
    let plan = if settings & 8 == 0 {
        plan
    } else {
        let picked: Vec<usize> = (0..columns)
            .filter(|c| settings >> (4 + c % 4) & 1 != 0)
            .collect();
        plan.with_projection(&picked).unwrap()
    };
    let whole = verify_unread || (0..fields).all(|c| plan.projection().contains(&c));

    let payloads = payloads(table, data, *mode);
    let mut converter = plan.converter();
    let mut accepted = Vec::new();
    for (i, payload) in payloads.iter().enumerate() {
        let offset = i as u64 * 100;
        let reflection = reflection_accepts(&table.rooted, payload)
            .map(|accepted| accepted && generated_accepts(table.root, payload));
        let ok = match converter.append(offset, payload) {
            Ok(true) => true,
            Ok(false) => panic!("skipped, with skip_invalid off"),
            Err(Error::InvalidFrame { offset: at, .. }) => {
                assert_eq!(at, offset);
                false
            }
            Err(e) => panic!("a payload that passed verification did not convert: {e}"),
        };
        if whole {
            assert_eq!(
                ok,
                reflection == Some(true),
                "verdicts differ: the oracles' {reflection:?}, flatc's {:?}",
                generated(table.root, payload)
            );
        } else if reflection == Some(true) {
            assert!(ok, "a projection rejected a payload the oracles accept");
        }
        accepted.push(ok);
        if converter.len() == 2 {
            converter.finish().unwrap();
        }
    }
    converter.finish().unwrap();

    // The same frames through `Plan::convert`: the rows before the first rejected frame, then
    // its error, then nothing.
    let frames = payloads
        .iter()
        .enumerate()
        .map(|(i, p)| Ok::<_, Error>((i as u64 * 100, p.as_slice())));
    let items: Vec<Result<RecordBatch, Error>> = plan.convert(frames).collect();
    let first_rejected = accepted.iter().position(|ok| !ok);
    let rows_before = first_rejected.unwrap_or(accepted.len());
    let rows: usize = items
        .iter()
        .filter_map(|i| i.as_ref().ok())
        .map(RecordBatch::num_rows)
        .sum();
    assert_eq!(rows, rows_before);
    let errors: Vec<&Error> = items.iter().filter_map(|i| i.as_ref().err()).collect();
    match first_rejected {
        Some(i) => {
            assert_eq!(errors.len(), 1);
            assert!(items.last().unwrap().is_err(), "the error comes last");
            assert!(
                matches!(errors[0], Error::InvalidFrame { offset, .. } if *offset == i as u64 * 100)
            );
        }
        None => assert!(errors.is_empty()),
    }
    assert!(
        items
            .iter()
            .filter_map(|i| i.as_ref().ok())
            .all(|b| b.num_rows() <= 2 && b.num_rows() > 0)
    );
});
