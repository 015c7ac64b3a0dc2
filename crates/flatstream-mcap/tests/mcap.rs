//! Exports read back by the `mcap` crate's own reader (schema record, channel, every message's
//! bytes and times), imports of those files giving the payloads back, a file with a channel of
//! another encoding, the time fields, and hostile MCAP bytes.

use flatbuffers::FlatBufferBuilder;
use flatstream::mcap::{
    ChannelId, Compression, Error, ExportOptions, Exporter, FLATBUFFER, Message, Messages, Time,
    TimeUnit, channels,
};
use flatstream_test_support::fleet::*;
use flatstream_test_support::fleet_build::{camera, motor, sensor};
use flatstream_test_support::telemetry;
use std::collections::BTreeMap;
use std::io::Cursor;

const TELEMETRY: &[u8] = include_bytes!("../../../examples/telemetry.bfbs");
const FLEET: &[u8] = include_bytes!("../../../examples/fleet.bfbs");
const LOG: &[u8] = include_bytes!("../../../benches/schemas/log.bfbs");

/// Robots, each with a union of another member, nested tables and vectors.
fn fleet() -> Vec<Vec<u8>> {
    (0..3)
        .map(|kind| {
            let mut b = FlatBufferBuilder::new();
            let name = b.create_string("mother");
            let parent = Robot::create(
                &mut b,
                &RobotArgs {
                    name: Some(name),
                    ..Default::default()
                },
            );
            let name = b.create_string("robot");
            let s1 = sensor(&mut b, Some("lidar"), Some(&[1.5, -2.25]));
            let sensors = Some(b.create_vector(&[s1]));
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
            let robot = Robot::create(
                &mut b,
                &RobotArgs {
                    id: 7 + kind,
                    name: Some(name),
                    sensors,
                    device_type,
                    device: Some(device),
                    parent: Some(parent),
                    ..Default::default()
                },
            );
            b.finish(robot, None);
            b.finished_data().to_vec()
        })
        .collect()
}

/// `payloads` exported on one channel `topic`, as `options` say.
fn export(bfbs: &[u8], options: &ExportOptions, topic: &str, payloads: &[Vec<u8>]) -> Vec<u8> {
    let mut exporter = Exporter::new(Cursor::new(Vec::new()), bfbs, options).unwrap();
    let channel = exporter.channel(topic).unwrap();
    for p in payloads {
        exporter.write(channel, p).unwrap();
    }
    exporter.finish().unwrap().into_inner()
}

/// Every message of `file`, as the `mcap` crate reads it: topic, schema name, encoding and
/// bytes, message encoding, log and publish time, data.
type Read = (String, String, String, Vec<u8>, String, u64, u64, Vec<u8>);

fn read_back(file: &[u8]) -> Vec<Read> {
    mcap::MessageStream::new(file)
        .unwrap()
        .map(|m| {
            let m = m.unwrap();
            let schema = m.channel.schema.clone().unwrap();
            (
                m.channel.topic.clone(),
                schema.name.clone(),
                schema.encoding.clone(),
                schema.data.to_vec(),
                m.channel.message_encoding.clone(),
                m.log_time,
                m.publish_time,
                m.data.to_vec(),
            )
        })
        .collect()
}

#[test]
fn the_fleet_stream_exports_with_its_schema_and_every_payload_as_a_message() {
    let payloads = fleet();
    let file = export(FLEET, &ExportOptions::new(), "/robots", &payloads);
    let read = read_back(&file);
    assert_eq!(read.len(), payloads.len());
    for (i, (topic, name, encoding, data, message_encoding, log, publish, bytes)) in
        read.into_iter().enumerate()
    {
        assert_eq!(topic, "/robots");
        assert_eq!(name, "fleet.Robot");
        assert_eq!(encoding, FLATBUFFER);
        assert_eq!(data, FLEET, "the .bfbs as it is: Robot is its root_type");
        assert_eq!(message_encoding, FLATBUFFER);
        assert_eq!(
            (log, publish),
            (i as u64, i as u64),
            "the index, by default"
        );
        assert_eq!(bytes, payloads[i]);
    }
    // The summary a viewer seeks with: statistics, one chunk index at least, the channel.
    let summary = mcap::Summary::read(&file).unwrap().expect("a summary");
    let stats = summary.stats.expect("statistics");
    assert_eq!(stats.message_count, 3);
    assert!(!summary.chunk_indexes.is_empty());
    assert_eq!(summary.chunk_indexes[0].compression, "zstd");
    assert_eq!(summary.channels.len(), 1);
}

#[test]
fn the_demo_stream_exports_with_log_times_from_its_timestamp_field() {
    let payloads = telemetry::payloads(1000);
    let time = Time::Field {
        path: "timestamp".into(),
        unit: TimeUnit::Milliseconds,
    };
    for compression in [Compression::Zstd, Compression::Lz4, Compression::None] {
        let options = ExportOptions::new()
            .time(time.clone())
            .compression(compression);
        let file = export(TELEMETRY, &options, "/telemetry", &payloads);
        let read = read_back(&file);
        assert_eq!(read.len(), 1000);
        for (i, r) in read.iter().enumerate() {
            let want = telemetry::Reading::nth(i as u64).timestamp * 1_000_000;
            assert_eq!((r.5, r.6), (want, want), "{compression:?} message {i}");
            assert_eq!(r.7, payloads[i]);
        }
    }
}

#[test]
fn an_export_imports_back_to_the_same_payloads_and_another_root_type_is_rerooted() {
    let payloads = telemetry::payloads(300);
    let file = export(TELEMETRY, &ExportOptions::new(), "/t", &payloads);
    let back: Vec<Vec<u8>> = Messages::new(&file[..], None)
        .map(|m| m.unwrap().data)
        .collect();
    assert_eq!(back, payloads);

    // Sensor is not fleet's root_type: the schema record is the schema rooted at it.
    let mut b = FlatBufferBuilder::new();
    let s = sensor(&mut b, Some("lidar"), Some(&[1.0]));
    b.finish(s, None);
    let sensor_payload = b.finished_data().to_vec();
    let options = ExportOptions::new().root_type("Sensor");
    let file = export(
        FLEET,
        &options,
        "/sensors",
        std::slice::from_ref(&sensor_payload),
    );
    let read = read_back(&file);
    assert_eq!(read[0].1, "fleet.Sensor");
    let schema = flatstream_reflect::parse(&read[0].3).unwrap();
    assert_eq!(schema.root_table().unwrap().name(), "fleet.Sensor");
    let imported = channels(&file[..]).unwrap();
    assert_eq!(imported[0].schema_data.as_ref(), read[0].3.as_slice());
}

/// Adds the telemetry schema and a FlatBuffers channel `/flat` of it to `w`; its id.
fn telemetry_channel(w: &mut mcap::Writer<Cursor<Vec<u8>>>) -> u16 {
    let schema = w
        .add_schema("telemetry.Telemetry", FLATBUFFER, TELEMETRY)
        .unwrap();
    w.add_channel(schema, "/flat", FLATBUFFER, &BTreeMap::new())
        .unwrap()
}

#[test]
fn a_message_in_a_compressed_chunk_may_be_longer_than_its_file() {
    // 4 MiB of zeros compress to a few hundred bytes: the bound of a file's records (its
    // length) does not apply to the records its chunks decompress to.
    let payload = vec![0u8; 4 << 20];
    let mut w = mcap::WriteOptions::new()
        .compression(Some(mcap::Compression::Zstd))
        .create(Cursor::new(Vec::new()))
        .unwrap();
    let flat = telemetry_channel(&mut w);
    let header = mcap::records::MessageHeader {
        channel_id: flat,
        sequence: 0,
        log_time: 7,
        publish_time: 7,
    };
    w.write_to_known_channel(&header, &payload).unwrap();
    w.finish().unwrap();
    let file = w.into_inner().into_inner();
    assert!(file.len() < payload.len() / 100, "{}", file.len());

    let read: Vec<Message> = Messages::new(&file[..], None)
        .max_record_len(file.len() as u64)
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(read.len(), 1);
    assert_eq!((read[0].log_time, read[0].data.len()), (7, payload.len()));
    assert!(read[0].data == payload);
}

#[test]
fn channels_of_other_encodings_are_listed_and_skipped() {
    let payloads = telemetry::payloads(5);
    let mut w = mcap::Writer::new(Cursor::new(Vec::new())).unwrap();
    let json = w.add_channel(0, "/json", "json", &BTreeMap::new()).unwrap();
    let flat = telemetry_channel(&mut w);
    for (i, p) in payloads.iter().enumerate() {
        let header = |channel_id| mcap::records::MessageHeader {
            channel_id,
            sequence: i as u32,
            log_time: 10 + i as u64,
            publish_time: 10 + i as u64,
        };
        w.write_to_known_channel(&header(json), b"{\"a\":1}")
            .unwrap();
        w.write_to_known_channel(&header(flat), p).unwrap();
    }
    w.finish().unwrap();
    let file = w.into_inner().into_inner();

    let mut messages = Messages::new(&file[..], None);
    let data: Vec<Vec<u8>> = messages.by_ref().map(|m| m.unwrap().data).collect();
    assert_eq!(data, payloads);
    let seen = messages.channels();
    assert_eq!(seen.len(), 2);
    let json = seen.iter().find(|c| c.topic == "/json").unwrap();
    assert!(!json.is_flatbuffer());
    assert_eq!((json.messages, json.log_times), (5, Some((10, 14))));
    let flat = seen.iter().find(|c| c.topic == "/flat").unwrap();
    assert!(flat.is_flatbuffer());
    assert_eq!(flat.schema_name.as_deref(), Some("telemetry.Telemetry"));
    // A topic filter takes only that topic.
    let none = Messages::new(&file[..], Some(vec!["/json".into()])).count();
    assert_eq!(none, 0, "a JSON channel is never imported");
}

#[test]
fn a_payload_that_fails_verification_is_an_error_and_is_not_written() {
    let mut exporter =
        Exporter::new(Cursor::new(Vec::new()), TELEMETRY, &ExportOptions::new()).unwrap();
    let channel = exporter.channel("/t").unwrap();
    let good = telemetry::payloads(1).remove(0);
    exporter.write(channel, &good).unwrap();
    let e = exporter.write(channel, &[1, 2, 3]).unwrap_err();
    assert!(matches!(e, Error::InvalidPayload { .. }), "{e}");
    assert!(
        e.to_string()
            .starts_with("not a valid telemetry.Telemetry: its 3 bytes are too few"),
        "{e}"
    );
    exporter.write(channel, &good).unwrap();
    let file = exporter.finish().unwrap().into_inner();
    let read = read_back(&file);
    assert_eq!(read.len(), 2);
    assert_eq!(
        (read[0].5, read[1].5),
        (0, 1),
        "the index counts messages written"
    );
}

/// A `logs.Log` with only its `timestamp` (a struct of `sec` and `nsec`), laid out by hand.
fn log_line(sec: u32, nsec: u32) -> Vec<u8> {
    let mut b = Vec::new();
    b.extend(12u32.to_le_bytes()); // the root table at 12
    b.extend([6u16, 12, 4].iter().flat_map(|v| v.to_le_bytes())); // vtable at 4
    b.extend([0, 0]);
    b.extend(8i32.to_le_bytes()); // the table: its vtable 8 bytes back
    b.extend(sec.to_le_bytes());
    b.extend(nsec.to_le_bytes());
    b
}

#[test]
fn a_foxglove_time_struct_and_integer_units_give_nanoseconds() {
    let time = Time::Field {
        path: "timestamp".into(),
        unit: TimeUnit::Seconds,
    };
    let lines = vec![
        log_line(1_700_000_000, 5),
        log_line(1_700_000_001, 999_999_999),
    ];
    let file = export(LOG, &ExportOptions::new().time(time), "/log", &lines);
    let times: Vec<u64> = read_back(&file).iter().map(|r| r.5).collect();
    assert_eq!(
        times,
        [1_700_000_000_000_000_005, 1_700_000_001_999_999_999],
        "sec and nsec; the unit is not used"
    );

    for (unit, factor) in [
        (TimeUnit::Nanoseconds, 1),
        (TimeUnit::Microseconds, 1_000),
        (TimeUnit::Seconds, 1_000_000_000),
    ] {
        let time = Time::Field {
            path: "device_id".into(),
            unit,
        };
        let file = export(
            TELEMETRY,
            &ExportOptions::new().time(time),
            "/t",
            &telemetry::payloads(3),
        );
        let first = read_back(&file)[0].5;
        assert_eq!(first, factor, "device 1 in {unit:?}");
    }
}

#[test]
fn a_time_field_that_is_not_one_is_refused_when_the_exporter_is_made() {
    let cases = [
        (
            TELEMETRY,
            "missing",
            "`telemetry.Telemetry` has no field `missing`",
        ),
        (
            TELEMETRY,
            "value",
            "`value` is not an integer or a struct of `sec` and `nsec`",
        ),
        (
            TELEMETRY,
            "timestamp.x",
            "`timestamp` is not a table or a struct",
        ),
        (FLEET, "name", "`name` is not an integer"),
        (
            FLEET,
            "pose",
            "`pose` is the struct `fleet.Pose`, not one of two integers",
        ),
    ];
    for (bfbs, path, said) in cases {
        let time = Time::Field {
            path: path.into(),
            unit: TimeUnit::Nanoseconds,
        };
        let e = Exporter::new(
            Cursor::new(Vec::new()),
            bfbs,
            &ExportOptions::new().time(time),
        )
        .unwrap_err();
        assert!(matches!(e, Error::TimeField { .. }), "{path}: {e}");
        assert!(e.to_string().contains(said), "{path}: {e}");
    }
    // A path through a nested table: absent in a payload, an error of that payload.
    let (mut exporter, channel) = fleet_timed_by("parent.id");
    exporter.write(channel, &fleet()[0]).unwrap();
    let e = exporter.write(channel, &lone_robot(0)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "the time field `parent.id` is absent (a table on its path is missing)"
    );
    // A negative time.
    let (mut exporter, channel) = fleet_timed_by("offset");
    let e = exporter.write(channel, &lone_robot(-1)).unwrap_err();
    assert!(
        e.to_string().contains("holds -1, which is not a time"),
        "{e}"
    );
}

/// An exporter of fleet robots timed by the field `path` (in nanoseconds), and its channel.
fn fleet_timed_by(path: &str) -> (Exporter<Cursor<Vec<u8>>>, ChannelId) {
    let time = Time::Field {
        path: path.into(),
        unit: TimeUnit::Nanoseconds,
    };
    let options = ExportOptions::new().time(time);
    let mut exporter = Exporter::new(Cursor::new(Vec::new()), FLEET, &options).unwrap();
    let channel = exporter.channel("/r").unwrap();
    (exporter, channel)
}

/// A robot with its required name, no parent, and `offset`.
fn lone_robot(offset: i64) -> Vec<u8> {
    let mut b = FlatBufferBuilder::new();
    let name = Some(b.create_string("lone"));
    let r = Robot::create(
        &mut b,
        &RobotArgs {
            name,
            offset,
            ..Default::default()
        },
    );
    b.finish(r, None);
    b.finished_data().to_vec()
}

#[test]
fn hostile_mcap_bytes_are_errors_never_panics() {
    let file = export(
        TELEMETRY,
        &ExportOptions::new(),
        "/t",
        &telemetry::payloads(50),
    );
    let read_all = |bytes: &[u8]| -> Result<usize, Error> {
        let mut n = 0;
        for m in Messages::new(bytes, None) {
            m?;
            n += 1;
        }
        channels(bytes)?;
        Ok(n)
    };
    assert_eq!(read_all(&file).unwrap(), 50);
    // Every cut: an error or fewer messages, never a panic or more.
    for cut in 0..file.len() {
        if let Ok(n) = read_all(&file[..cut]) {
            assert!(n <= 50, "cut at {cut}");
        }
    }
    // Every byte flipped, and every length field set huge.
    for at in 0..file.len() {
        let mut bytes = file.clone();
        bytes[at] ^= 0xff;
        let _ = read_all(&bytes);
        let mut bytes = file.clone();
        if at + 8 <= bytes.len() {
            bytes[at..at + 8].copy_from_slice(&u64::MAX.to_le_bytes());
            let _ = read_all(&bytes);
        }
    }
    // A record that declares 900 MB in a file of 130 bytes: refused by the file's length
    // before it is allocated.
    let mut short = b"\x89MCAP0\r\n".to_vec();
    short.extend([1u8]); // a header record: profile "", library "x"
    short.extend(9u64.to_le_bytes());
    short.extend(0u32.to_le_bytes());
    short.extend(1u32.to_le_bytes());
    short.push(b'x');
    short.push(5); // a message record
    short.extend(900_000_000u64.to_le_bytes());
    short.extend([0u8; 100]);
    let len = short.len() as u64;
    let e = Messages::new(&short[..], None)
        .max_record_len(len)
        .next()
        .unwrap()
        .unwrap_err();
    assert!(e.to_string().contains("exceeds limit"), "{e}");
    let e = read_all(b"not an mcap file at all").unwrap_err();
    assert!(
        e.to_string().starts_with("not a readable MCAP file: "),
        "{e}"
    );
}
