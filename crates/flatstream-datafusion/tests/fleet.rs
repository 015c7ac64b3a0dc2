//! SQL over nested tables, structs and a union (examples/fleet.fbs), compared with the values
//! the generated code wrote.

mod common;

use common::*;
use datafusion::arrow::array::AsArray;
use datafusion::arrow::datatypes::{Float64Type, Int32Type, Int64Type, UInt64Type};
use flatbuffers::FlatBufferBuilder;
use flatstream::checksum::{AnyChecksum, ChecksumKind};
use flatstream::{ChecksumFramer, StreamWriter};
use flatstream_datafusion::{FlatstreamOptions, SessionContextExt};

use flatstream_test_support::fleet::*;
use flatstream_test_support::fleet_build::{motor, sensor};

const ROBOTS: u64 = 600;

/// Robot `i`: id `i`; device a Motor of `rpm = i` when `i % 3 == 0`, a Sensor when
/// `i % 3 == 1`, none otherwise; a pose at `x = i` when `i` is even.
fn robot(i: u64) -> Vec<u8> {
    let mut b = FlatBufferBuilder::new();
    let name = b.create_string(&format!("robot-{i}"));
    let mut args = RobotArgs {
        id: i,
        name: Some(name),
        ..Default::default()
    };
    match i % 3 {
        0 => {
            let m = motor(&mut b, i as i32, 20.5);
            args.device_type = Device::Motor;
            args.device = Some(m.as_union_value());
        }
        1 => {
            let s = sensor(&mut b, Some("lidar"), None);
            args.device_type = Device::Sensor;
            args.device = Some(s.as_union_value());
        }
        _ => {}
    }
    let pose = Pose::new(&Vec3::new(i as f32, 0.0, 0.0), 0, Color::Red);
    if i.is_multiple_of(2) {
        args.pose = Some(&pose);
    }
    let root = Robot::create(&mut b, &args);
    b.finish(root, None);
    b.finished_data().to_vec()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nested_tables_and_unions_read_through_sql_in_byte_ranges() {
    let mut w = StreamWriter::new(
        Vec::new(),
        ChecksumFramer::new(AnyChecksum::new(ChecksumKind::Crc32c).unwrap()),
    );
    for i in 0..ROBOTS {
        w.write_payload(&robot(i)).unwrap();
    }
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "fleet.fstream", &w.into_inner());
    let schema = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/fleet.bfbs");
    for partitions in [1, 6] {
        let ctx = session(partitions, 1);
        ctx.register_flatstream(
            "fleet",
            &path,
            FlatstreamOptions::with_schema(schema).root_type("fleet.Robot"),
        )
        .await
        .unwrap();

        let batches = query(
            &ctx,
            "SELECT id, device['Motor']['rpm'] FROM fleet WHERE device['type'] = 'Motor' \
                 ORDER BY id",
        )
        .await;
        let mut got = Vec::new();
        for b in &batches {
            let ids = b.column(0).as_primitive::<UInt64Type>();
            let rpm = b.column(1).as_primitive::<Int32Type>();
            for r in 0..b.num_rows() {
                got.push((ids.value(r), rpm.value(r)));
            }
        }
        let expected: Vec<(u64, i32)> = (0..ROBOTS)
            .filter(|i| i.is_multiple_of(3))
            .map(|i| (i, i as i32))
            .collect();
        assert_eq!(got, expected);

        let batches = query(
            &ctx,
            "SELECT count(pose), sum(CAST(pose['position']['x'] AS DOUBLE)), \
                 count(*) FILTER (WHERE device IS NULL) FROM fleet",
        )
        .await;
        let b = &batches[0];
        let poses = b.column(0).as_primitive::<Int64Type>().value(0);
        let sum_x = b.column(1).as_primitive::<Float64Type>().value(0);
        let no_device = b.column(2).as_primitive::<Int64Type>().value(0);
        let even: Vec<u64> = (0..ROBOTS).filter(|i| i.is_multiple_of(2)).collect();
        assert_eq!(poses, even.len() as i64);
        assert_eq!(sum_x, even.iter().sum::<u64>() as f64);
        assert_eq!(no_device, (0..ROBOTS).filter(|i| i % 3 == 2).count() as i64);
    }
}
