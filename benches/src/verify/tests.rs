use super::*;
use crate::paths::scratch_with;
use flatstream::{ChecksumFramer, StreamWriter, XxHash64};

fn bfbs(relative: &str) -> Vec<u8> {
    std::fs::read(format!("{}/../{relative}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// Plain, compiled and reflection: the tallies of the three sides over the file `name` holding
/// `bytes`, verified against the schema at `schema`.
fn three_sides(name: &str, bytes: &[u8], schema: &str) -> [Tally; 3] {
    let path = scratch_with(name, bytes).unwrap();
    let bfbs = bfbs(schema);
    let compiled = Compiled::load(&bfbs).unwrap();
    let reflection = Reflection::load(&bfbs).unwrap();
    let tallies = [
        verify_file(&path, None::<&Compiled>).unwrap(),
        verify_file(&path, Some(&compiled)).unwrap(),
        verify_file(&path, Some(&reflection)).unwrap(),
    ];
    std::fs::remove_file(path).unwrap();
    tallies
}

#[test]
fn every_side_verifies_every_frame_of_both_captures() {
    for (name, bytes, n, schema) in [
        (
            "verify-test-telemetry.fstream",
            telemetry_capture(2_000),
            2_000,
            "examples/telemetry.bfbs",
        ),
        (
            "verify-test-log.fstream",
            log_capture(2_000),
            2_000,
            "benches/schemas/log.bfbs",
        ),
    ] {
        let [plain, compiled, reflection] = three_sides(name, &bytes, schema);
        assert_eq!(plain.frames, n, "{name}");
        assert_eq!(plain.errors, 0, "{name}: {:?}", plain.first_error);
        assert_eq!(compiled, plain, "{name}");
        assert_eq!(reflection, plain, "{name}");
    }
}

#[test]
fn a_payload_the_schema_rejects_fails_both_schema_sides_and_not_plain_verify() {
    let mut writer = StreamWriter::new(Vec::new(), ChecksumFramer::new(XxHash64));
    for i in 0..100 {
        if i == 40 {
            // A root offset far past the payload's end, under a checksum that verifies.
            writer.write_payload(&[0, 0, 0, 1, 0, 0, 0, 0]).unwrap();
        } else {
            writer.write(&log_line(i)).unwrap();
        }
    }
    let bytes = writer.into_inner();
    let [plain, compiled, reflection] = three_sides(
        "verify-test-rejected.fstream",
        &bytes,
        "benches/schemas/log.bfbs",
    );
    assert_eq!((plain.frames, plain.errors), (100, 0));
    for (side, tally) in [("compiled", compiled), ("reflection", reflection)] {
        assert_eq!((tally.frames, tally.errors), (41, 1), "{side}");
        let (offset, why) = tally.first_error.unwrap();
        assert!(why.starts_with("not a valid logs.Log: "), "{side}: {why}");
        assert!(offset > 0, "{side}");
    }
}

#[test]
fn the_parallel_path_reads_what_the_serial_path_reads() {
    let bytes = log_capture(20_000);
    let bfbs = bfbs("benches/schemas/log.bfbs");
    let compiled = Compiled::load(&bfbs).unwrap();
    let deframer = ChecksumDeframer::new(XxHash64);
    let job = Job {
        bytes: &bytes,
        schema: Some(&compiled),
        max: DEFAULT_MAX_FRAME_LEN,
        threads: Threads {
            count: 2,
            resync_bound: 1 << 20,
        },
    };
    let serial = verify_frames(&mut Frames::new(&bytes[..], &deframer), 0, Some(&compiled));
    assert_eq!((serial.frames, serial.errors), (20_000, 0));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let split_len = pool.install(|| ParallelFrames::new(&bytes[..], &deframer).split_len());
    assert!(
        split_len * 8 < bytes.len(),
        "{split_len} of {} bytes",
        bytes.len()
    );
    let parallel = pool.install(|| verify_parallel(&bytes, &deframer, &job, job.threads));
    assert_eq!(parallel, serial);

    // A payload the schema rejects, in a split after the first: the same first error.
    let mut writer = StreamWriter::new(Vec::new(), ChecksumFramer::new(XxHash64));
    for i in 0..20_000 {
        if i == 12_345 {
            writer.write_payload(&[0, 0, 0, 1, 0, 0, 0, 0]).unwrap();
        } else {
            writer.write(&log_line(i)).unwrap();
        }
    }
    let bytes = writer.into_inner();
    let job = Job {
        bytes: &bytes,
        ..job
    };
    let serial = verify_frames(&mut Frames::new(&bytes[..], &deframer), 0, Some(&compiled));
    assert_eq!((serial.frames, serial.errors), (12_346, 1));
    let parallel = pool.install(|| verify_parallel(&bytes, &deframer, &job, job.threads));
    assert_eq!(parallel, serial);
}

#[test]
fn log_lines_read_back_as_written() {
    let bytes = log_capture(1_000);
    let mut levels = [0u32; 6];
    for (i, payload) in Frames::new(&bytes, ChecksumDeframer::new(XxHash64)).enumerate() {
        let log = fb::logs::root_as_log(payload.unwrap()).unwrap();
        let line = log_line(i as u64);
        assert_eq!(log.message(), Some(line.message.as_str()));
        assert_eq!((log.name(), log.file()), (Some(line.name), Some(line.file)));
        assert_eq!((log.line(), log.level().0), (line.line, line.level));
        let t = log.timestamp().unwrap();
        assert_eq!((t.sec(), t.nsec()), (line.sec, line.nsec));
        assert!((40..=80).contains(&line.message.len()), "{}", line.message);
        levels[line.level as usize] += 1;
    }
    // Mostly info and debug, some warnings and errors.
    assert!(levels[2] > levels[1] && levels[1] > levels[3] && levels[3] > levels[4]);
    assert!(levels[4] > 0, "{levels:?}");
}

#[test]
fn the_demo_reading_is_the_demos() {
    // examples/telemetry.rs: device i % 64, a millisecond per 64 readings, 100 sin(i / 1000).
    let r = demo_reading(130);
    assert_eq!((r.device_id, r.timestamp), (2, 1_700_000_000_002));
    assert_eq!(r.value, (130.0f64 * 0.001).sin() * 100.0);
}
