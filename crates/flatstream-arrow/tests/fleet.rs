//! Every column of the fleet schema (examples/fleet.fbs: nested tables, vectors of every kind,
//! enums, a union, structs in structs, an optional scalar, bytes, a recursive table) compared,
//! row by row, with the values flatc's generated code reads from the same payloads: the values
//! `flatstream cat --schema` prints for them.

mod common;

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{Array, ArrayRef, RecordBatch, StructArray};
use common::{enum_name, frames, primitive, schema, stream};
use flatbuffers::FlatBufferBuilder;
use flatstream_arrow::{Enums, Error, Options, Plan};

use flatstream_test_support::fleet::*;
use flatstream_test_support::fleet_build::{camera, motor, sensor};

/// Robots covering each shape: every field set (with a Sensor), nothing but the required name
/// (defaults), a Motor with a parent, a Camera with an enum value the enum does not name.
fn robots() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for kind in 0..4 {
        let mut b = FlatBufferBuilder::new();
        let parent = (kind == 2).then(|| {
            let name = b.create_string("mother");
            Robot::create(
                &mut b,
                &RobotArgs {
                    id: 99,
                    name: Some(name),
                    ..Default::default()
                },
            )
        });
        let name = b.create_string(&format!("robot-{kind}"));
        let mut args = RobotArgs {
            name: Some(name),
            parent,
            ..Default::default()
        };
        if kind == 0 {
            let t: Vec<_> = ["a", "bé"].iter().map(|s| b.create_string(s)).collect();
            args.tags = Some(b.create_vector(&t));
            args.colors = Some(b.create_vector(&[Color::Blue, Color::Red]));
            let s1 = sensor(&mut b, Some("lidar"), Some(&[1.5, -2.25]));
            let s2 = sensor(&mut b, None, None);
            args.sensors = Some(b.create_vector(&[s1, s2]));
            args.waypoints =
                Some(b.create_vector(&[Vec3::new(1.0, 2.0, 3.0), Vec3::new(-1.0, 0.5, 0.25)]));
            let device = sensor(&mut b, Some("sonar"), None);
            args.device_type = Device::Sensor;
            args.device = Some(device.as_union_value());
            args.firmware = Some(b.create_vector(&[0u8, 1, 255]));
            args.id = u64::MAX;
            args.color = Color::Red;
            args.status = Status::Running;
            args.active = false;
            args.battery = 0.75;
            args.limit = Some(-5);
            args.offset = i64::MIN;
            args.trim = -128;
        }
        let pose = Pose::new(&Vec3::new(4.0, 5.0, 6.0), -7, Color::Blue);
        if kind == 0 || kind == 3 {
            args.pose = Some(&pose);
        }
        if kind == 2 {
            let m = motor(&mut b, 1200, 20.5);
            args.device_type = Device::Motor;
            args.device = Some(m.as_union_value());
        }
        if kind == 3 {
            let c = camera(&mut b, &[640, 480], "wide");
            args.device_type = Device::Camera;
            args.device = Some(c.as_union_value());
            args.color = Color(7);
            args.status = Status(3);
        }
        let robot = Robot::create(&mut b, &args);
        b.finish(robot, None);
        out.push(b.finished_data().to_vec());
    }
    out
}

fn convert(options: &Options) -> (Vec<Vec<u8>>, RecordBatch) {
    let payloads = robots();
    let bytes = stream(&payloads);
    let plan = Plan::new(&schema("fleet.bfbs"), options).unwrap();
    let batches: Vec<RecordBatch> = plan
        .convert(frames(&bytes))
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(batches.len(), 1);
    (payloads, batches.into_iter().next().unwrap())
}

fn col<'b>(batch: &'b RecordBatch, name: &str) -> &'b ArrayRef {
    batch
        .column_by_name(name)
        .unwrap_or_else(|| panic!("no column {name}"))
}

fn color_name(c: Color) -> String {
    c.variant_name()
        .map_or_else(|| c.0.to_string(), str::to_owned)
}

fn status_name(s: Status) -> String {
    s.variant_name()
        .map_or_else(|| s.0.to_string(), str::to_owned)
}

#[test]
fn every_column_equals_what_the_generated_code_reads() {
    let (payloads, batch) = convert(&Options::new());
    assert_eq!(batch.num_rows(), payloads.len());
    let schema = batch.schema();
    let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
    assert_eq!(
        names,
        [
            "id",
            "name",
            "color",
            "status",
            "pose",
            "tags",
            "colors",
            "sensors",
            "waypoints",
            "device",
            "parent",
            "firmware",
            "active",
            "battery",
            "limit",
            "offset",
            "trim"
        ]
    );
    for (row, payload) in payloads.iter().enumerate() {
        let r = flatbuffers::root::<Robot<'_>>(payload).unwrap();
        assert_eq!(
            col(&batch, "id").as_primitive::<UInt64Type>().value(row),
            r.id()
        );
        assert_eq!(col(&batch, "name").as_string::<i32>().value(row), r.name());
        assert_eq!(
            enum_name(col(&batch, "color"), row).unwrap(),
            color_name(r.color())
        );
        assert_eq!(
            enum_name(col(&batch, "status"), row).unwrap(),
            status_name(r.status())
        );

        let pose = col(&batch, "pose").as_struct();
        assert_eq!(pose.is_valid(row), r.pose().is_some());
        if let Some(p) = r.pose() {
            let position = pose.column_by_name("position").unwrap().as_struct();
            for (axis, v) in [
                ("x", p.position().x()),
                ("y", p.position().y()),
                ("z", p.position().z()),
            ] {
                let a = position
                    .column_by_name(axis)
                    .unwrap()
                    .as_primitive::<Float32Type>();
                assert_eq!(a.value(row), v);
            }
            let heading = primitive::<Int16Type>(pose, "heading");
            assert_eq!(heading.value(row), p.heading());
            assert_eq!(
                enum_name(pose.column_by_name("color").unwrap(), row).unwrap(),
                color_name(p.color())
            );
        }

        let tags = col(&batch, "tags").as_list::<i32>();
        assert_eq!(tags.is_valid(row), r.tags().is_some());
        if let Some(t) = r.tags() {
            let got = tags.value(row);
            let got = got.as_string::<i32>();
            assert_eq!(
                got.iter().flatten().collect::<Vec<_>>(),
                t.iter().collect::<Vec<_>>()
            );
        }

        let colors = col(&batch, "colors").as_list::<i32>();
        assert_eq!(colors.is_valid(row), r.colors().is_some());
        if let Some(c) = r.colors() {
            let got = colors.value(row);
            let got: Vec<String> = (0..got.len())
                .map(|i| enum_name(&got, i).unwrap())
                .collect();
            assert_eq!(got, c.iter().map(color_name).collect::<Vec<_>>());
        }

        let sensors = col(&batch, "sensors").as_list::<i32>();
        assert_eq!(sensors.is_valid(row), r.sensors().is_some());
        if let Some(s) = r.sensors() {
            let got = sensors.value(row);
            let got = got.as_struct();
            assert_eq!(got.len(), s.len());
            for (i, sensor) in s.iter().enumerate() {
                check_sensor(got, i, sensor);
            }
        }

        let waypoints = col(&batch, "waypoints").as_list::<i32>();
        assert_eq!(waypoints.is_valid(row), r.waypoints().is_some());
        if let Some(w) = r.waypoints() {
            let got = waypoints.value(row);
            let got = got.as_struct();
            let x = primitive::<Float32Type>(got, "x");
            let z = primitive::<Float32Type>(got, "z");
            let want: Vec<(f32, f32)> = w.iter().map(|p| (p.x(), p.z())).collect();
            let have: Vec<(f32, f32)> = (0..got.len()).map(|i| (x.value(i), z.value(i))).collect();
            assert_eq!(have, want);
        }

        let device = col(&batch, "device").as_struct();
        assert_eq!(device.is_valid(row), r.device_type() != Device::NONE);
        assert_eq!(
            enum_name(device.column_by_name("type").unwrap(), row).unwrap(),
            r.device_type().variant_name().unwrap()
        );
        let member = |name: &str| device.column_by_name(name).unwrap().as_struct().clone();
        assert_eq!(
            member("Sensor").is_valid(row),
            r.device_as_sensor().is_some()
        );
        assert_eq!(member("Motor").is_valid(row), r.device_as_motor().is_some());
        assert_eq!(
            member("Camera").is_valid(row),
            r.device_as_camera().is_some()
        );
        if let Some(s) = r.device_as_sensor() {
            check_sensor(&member("Sensor"), row, s);
        }
        if let Some(m) = r.device_as_motor() {
            let motor = member("Motor");
            let rpm = primitive::<Int32Type>(&motor, "rpm");
            let t = primitive::<Float32Type>(&motor, "temperature");
            assert_eq!((rpm.value(row), t.value(row)), (m.rpm(), m.temperature()));
        }
        if let Some(c) = r.device_as_camera() {
            let camera = member("Camera");
            let lens = camera.column_by_name("lens").unwrap().as_string::<i32>();
            assert_eq!(Some(lens.value(row)), c.lens());
            let res = camera
                .column_by_name("resolution")
                .unwrap()
                .as_list::<i32>()
                .value(row);
            let res: Vec<u16> = res.as_primitive::<UInt16Type>().values().to_vec();
            assert_eq!(res, c.resolution().unwrap().iter().collect::<Vec<_>>());
        }

        // A recursive table: the payload with its root offset pointing at the parent.
        let parent = col(&batch, "parent").as_binary::<i32>();
        assert_eq!(parent.is_valid(row), r.parent().is_some());
        if let Some(p) = r.parent() {
            let bytes = parent.value(row);
            let read = flatbuffers::root::<Robot<'_>>(bytes).unwrap();
            assert_eq!((read.id(), read.name()), (p.id(), p.name()));
        }

        let firmware = col(&batch, "firmware").as_binary::<i32>();
        assert_eq!(firmware.is_valid(row), r.firmware().is_some());
        if let Some(f) = r.firmware() {
            assert_eq!(firmware.value(row), f.bytes());
        }
        assert_eq!(col(&batch, "active").as_boolean().value(row), r.active());
        assert_eq!(
            col(&batch, "battery")
                .as_primitive::<Float32Type>()
                .value(row),
            r.battery()
        );
        let limit = col(&batch, "limit").as_primitive::<Int32Type>();
        assert_eq!(limit.is_valid(row).then(|| limit.value(row)), r.limit());
        assert_eq!(
            col(&batch, "offset").as_primitive::<Int64Type>().value(row),
            r.offset()
        );
        assert_eq!(
            col(&batch, "trim").as_primitive::<Int8Type>().value(row),
            r.trim()
        );
    }
}

fn check_sensor(got: &StructArray, i: usize, sensor: Sensor<'_>) {
    let name = got.column_by_name("name").unwrap().as_string::<i32>();
    assert_eq!(name.is_valid(i).then(|| name.value(i)), sensor.name());
    let readings = got.column_by_name("readings").unwrap().as_list::<i32>();
    assert_eq!(readings.is_valid(i), sensor.readings().is_some());
    if let Some(want) = sensor.readings() {
        let have = readings.value(i);
        assert_eq!(
            have.as_primitive::<Float64Type>().values().to_vec(),
            want.iter().collect::<Vec<_>>()
        );
    }
}

#[test]
fn absent_fields_read_as_their_defaults_and_nulls() {
    let (_, batch) = convert(&Options::new());
    // Row 1 holds only its name.
    let row = 1;
    assert_eq!(enum_name(col(&batch, "color"), row).unwrap(), "Green"); // `= Green`
    assert!(col(&batch, "active").as_boolean().value(row)); // `= true`
    assert_eq!(col(&batch, "id").as_primitive::<UInt64Type>().value(row), 0);
    assert!(col(&batch, "limit").is_null(row)); // `= null`
    for name in ["pose", "tags", "sensors", "device", "parent", "firmware"] {
        assert!(col(&batch, name).is_null(row), "{name}");
    }
    let schema = batch.schema();
    assert!(!schema.field_with_name("active").unwrap().is_nullable());
    assert!(!schema.field_with_name("name").unwrap().is_nullable()); // required
    assert!(schema.field_with_name("limit").unwrap().is_nullable());
}

#[test]
fn an_enum_value_without_a_name_is_its_number_as_text() {
    let (_, batch) = convert(&Options::new());
    assert_eq!(enum_name(col(&batch, "color"), 3).unwrap(), "7");
    assert_eq!(enum_name(col(&batch, "status"), 3).unwrap(), "3");
}

#[test]
fn enums_as_integers_keep_the_underlying_width() {
    let (payloads, batch) = convert(Options::new().enums(Enums::Integers));
    let color = col(&batch, "color").as_primitive::<Int8Type>();
    let status = col(&batch, "status").as_primitive::<UInt16Type>();
    for (row, payload) in payloads.iter().enumerate() {
        let r = flatbuffers::root::<Robot<'_>>(payload).unwrap();
        assert_eq!(color.value(row), r.color().0);
        assert_eq!(status.value(row), r.status().0);
    }
    let tag = col(&batch, "device")
        .as_struct()
        .column_by_name("type")
        .unwrap();
    assert_eq!(
        tag.as_primitive::<UInt8Type>().values().to_vec(),
        [1, 0, 2, 3]
    );
}

#[test]
fn a_projection_reads_only_its_columns_in_its_order() {
    let payloads = robots();
    let bytes = stream(&payloads);
    let plan = Plan::new(&schema("fleet.bfbs"), Options::new().offset_column(true)).unwrap();
    assert_eq!(plan.file_schema().fields().len(), 18);
    let projected = plan
        .with_projection_names(&["_offset", "trim", "name"])
        .unwrap();
    let names: Vec<&str> = projected
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().as_str())
        .collect();
    assert_eq!(names, ["_offset", "trim", "name"]);
    let batch = projected.convert(frames(&bytes)).next().unwrap().unwrap();
    assert_eq!(batch.schema(), *projected.schema());
    assert_eq!(batch.column(2).as_string::<i32>().value(1), "robot-1");
    // A column not projected has no builder: the batch holds the three arrays only.
    assert_eq!(batch.num_columns(), 3);
    let empty = plan.with_projection(&[]).unwrap();
    let batch = empty.convert(frames(&bytes)).next().unwrap().unwrap();
    assert_eq!((batch.num_rows(), batch.num_columns()), (4, 0));
    assert!(matches!(
        plan.with_projection(&[18]),
        Err(Error::ColumnOutOfRange {
            index: 18,
            columns: 18
        })
    ));
    assert!(matches!(
        plan.with_projection_names(&["nope"]),
        Err(Error::UnknownColumn { .. })
    ));
}

#[test]
fn another_root_type_converts_that_table() {
    let mut b = FlatBufferBuilder::new();
    let s = sensor(&mut b, Some("imu"), None);
    b.finish(s, None);
    let bytes = stream(&[b.finished_data().to_vec()]);
    let plan = Plan::new(&schema("fleet.bfbs"), Options::new().root_type("Sensor")).unwrap();
    assert_eq!(plan.root_type(), "fleet.Sensor");
    let batch = plan.convert(frames(&bytes)).next().unwrap().unwrap();
    assert_eq!(batch.column(0).as_string::<i32>().value(0), "imu");
    assert!(matches!(
        Plan::new(&schema("fleet.bfbs"), Options::new().root_type("Vec3")),
        Err(Error::Schema(
            flatstream_reflect::Error::UnknownRootType { .. }
        ))
    ));
}

#[test]
fn a_union_type_the_union_does_not_have_is_an_invalid_frame() {
    let mut b = FlatBufferBuilder::new();
    let name = b.create_string("odd");
    let m = motor(&mut b, 1, 2.0);
    let r = Robot::create(
        &mut b,
        &RobotArgs {
            name: Some(name),
            device_type: Device(9),
            device: Some(m.as_union_value()),
            ..Default::default()
        },
    );
    b.finish(r, None);
    let bytes = stream(&[b.finished_data().to_vec()]);
    let plan = Plan::new(&schema("fleet.bfbs"), &Options::new()).unwrap();
    match plan.convert(frames(&bytes)).next() {
        // Found before the reflection verifier, which would panic on it (caught, but printed).
        Some(Err(Error::InvalidFrame {
            offset: 0, reason, ..
        })) => assert!(
            reason.ends_with("9 is not a type of the union `fleet.Device`"),
            "{reason}"
        ),
        other => panic!("expected an invalid frame, got {other:?}"),
    }
}

/// The verdict of `flatbuffers-reflection`'s verifier, with flatbuffers' default limits (what
/// `flatstream verify --schema` runs): whether `payload` is a valid `fleet.Robot`. It panics
/// on a union type past the union's last member: that is a rejection.
fn reflection_accepts(payload: &[u8]) -> bool {
    let bytes = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/fleet.bfbs"
    ))
    .unwrap();
    let schema = flatbuffers_reflection::reflection::root_as_schema(&bytes).unwrap();
    std::panic::catch_unwind(|| flatbuffers_reflection::SafeBuffer::new(payload, &schema).is_ok())
        .unwrap_or(false)
}

/// The converter's verdict on `payload`: accepted (and read), or rejected as invalid. A
/// converter made in a debug build also asserts that its compiled verifier rejects nothing
/// the reflection verifier accepts.
fn converter_accepts(plan: &Plan, payload: &[u8]) -> bool {
    match plan.converter().append(0, payload) {
        Ok(accepted) => accepted,
        Err(e) => panic!("a frame the verifier passed could not be read: {e}"),
    }
}

fn skipping_plan() -> Plan {
    Plan::new(&schema("fleet.bfbs"), Options::new().skip_invalid(true)).unwrap()
}

#[test]
fn verification_agrees_with_flatbuffers_reflection_on_every_one_byte_corruption() {
    let plan = skipping_plan();
    let (mut accepted, mut rejected) = (0, 0);
    for payload in robots() {
        assert!(converter_accepts(&plan, &payload));
        for at in 0..payload.len() {
            for change in [|b: u8| b ^ 0xFF, |_| 0, |b: u8| b.wrapping_add(1), |_| 0x7F] {
                let mut bad = payload.clone();
                bad[at] = change(bad[at]);
                let verdict = reflection_accepts(&bad);
                assert_eq!(
                    converter_accepts(&plan, &bad),
                    verdict,
                    "byte {at} of a {}-byte payload changed to {:#04x}",
                    bad.len(),
                    bad[at]
                );
                if verdict {
                    accepted += 1;
                } else {
                    rejected += 1;
                }
            }
        }
        for len in 0..payload.len() {
            let verdict = reflection_accepts(&payload[..len]);
            assert_eq!(
                converter_accepts(&plan, &payload[..len]),
                verdict,
                "cut at {len}"
            );
        }
    }
    // The sweep exercises both verdicts.
    assert!(
        accepted > 100 && rejected > 100,
        "{accepted} accepted, {rejected} rejected"
    );
}

/// One-byte corruptions of every robot: for each payload, whether the converter of `plan`
/// accepts it and whether the reflection verifier does.
fn verdicts(plan: &Plan) -> Vec<(bool, bool)> {
    let mut out = Vec::new();
    for payload in robots() {
        for at in 0..payload.len() {
            for change in [|b: u8| b ^ 0xFF, |_| 0, |b: u8| b.wrapping_add(1), |_| 0x7F] {
                let mut bad = payload.clone();
                bad[at] = change(bad[at]);
                out.push((converter_accepts(plan, &bad), reflection_accepts(&bad)));
            }
        }
    }
    out
}

#[test]
fn a_projection_verifies_the_fields_it_reads_and_verify_unread_every_field() {
    for column in ["id", "name", "tags", "device", "parent"] {
        let reading = skipping_plan().with_projection_names(&[column]).unwrap();
        let seen = verdicts(&reading);
        // Whatever the whole payload passes, a projection passes; what a projection rejects,
        // the whole payload fails (`converter_accepts` also reads every accepted payload).
        for &(projected, whole) in &seen {
            assert!(projected || !whole, "`{column}` rejected a valid payload");
        }
        // And faults in the fields it does not read do not reject a frame.
        let passed_unread_faults = seen.iter().filter(|(p, w)| *p && !*w).count();
        assert!(passed_unread_faults > 0, "`{column}`");

        let mut options = Options::new();
        options.skip_invalid(true).verify_unread(true);
        let whole = Plan::new(&schema("fleet.bfbs"), &options)
            .unwrap()
            .with_projection_names(&[column])
            .unwrap();
        for (projected, whole) in verdicts(&whole) {
            assert_eq!(projected, whole, "`{column}` with verify_unread");
        }
    }
}

#[test]
fn a_fault_outside_the_projection_passes_and_the_read_column_is_intact() {
    // Robot 0 with the length of its first tag ("a") made 1000: past the payload's end.
    let payload = robots().swap_remove(0);
    let mut bad = payload.clone();
    let tag = payload
        .windows(5)
        .position(|w| w == [1, 0, 0, 0, b'a'])
        .expect("the tag \"a\" with its length");
    bad[tag..tag + 4].copy_from_slice(&1000u32.to_le_bytes());
    assert!(!reflection_accepts(&bad));
    let bytes = stream(&[bad]);

    let ids = Plan::new(&schema("fleet.bfbs"), &Options::new())
        .unwrap()
        .with_projection_names(&["id", "name"])
        .unwrap();
    let batch = ids.convert(frames(&bytes)).next().unwrap().unwrap();
    assert_eq!(batch.column(1).as_string::<i32>().value(0), "robot-0");

    let tags = ids.with_projection_names(&["tags"]).unwrap();
    assert!(matches!(
        tags.convert(frames(&bytes)).next(),
        Some(Err(Error::InvalidFrame { offset: 0, .. }))
    ));
    let mut options = Options::new();
    options.verify_unread(true);
    let strict = Plan::new(&schema("fleet.bfbs"), &options)
        .unwrap()
        .with_projection_names(&["id"])
        .unwrap();
    assert!(matches!(
        strict.convert(frames(&bytes)).next(),
        Some(Err(Error::InvalidFrame { offset: 0, .. }))
    ));
}

proptest::proptest! {
    #[test]
    fn verification_agrees_with_flatbuffers_reflection_on_random_corruptions(
        robot in 0usize..4,
        changes in proptest::collection::vec((proptest::num::usize::ANY, proptest::num::u8::ANY), 1..6),
        cut in proptest::option::of(proptest::num::usize::ANY),
    ) {
        let mut payload = robots().swap_remove(robot);
        for (at, byte) in changes {
            let at = at % payload.len();
            payload[at] = byte;
        }
        if let Some(cut) = cut {
            payload.truncate(cut % (payload.len() + 1));
        }
        let plan = skipping_plan();
        proptest::prop_assert_eq!(converter_accepts(&plan, &payload), reflection_accepts(&payload));
    }
}
