//! Typed reading and typed validation with the committed flatc-generated telemetry schema.

use flatbuffers::{FlatBufferBuilder, VerifierOptions};
use flatstream_adapters::{
    DeframerExt, FramerExt, StructuralValidator, TypedReaderExt, TypedValidator, Validator,
};
use flatstream_core::{
    BufReadStreamReader, DefaultDeframer, DefaultFramer, Error, ErrorKind, ShrinkAfter,
    StreamReader, StreamWriter,
};

use flatstream_test_support::telemetry::{Telemetry, TelemetryArgs};

fn reading(i: u64) -> Vec<u8> {
    let mut b = FlatBufferBuilder::new();
    let args = TelemetryArgs {
        device_id: i % 64 + 1,
        timestamp: 1_700_000_000_000 + i,
        value: 20.0 + i as f64 / 8.0,
    };
    let root = Telemetry::create(&mut b, &args);
    b.finish(root, None);
    b.finished_data().to_vec()
}

fn stream(n: u64) -> Vec<u8> {
    let mut w = StreamWriter::new(Vec::new(), DefaultFramer);
    for i in 0..n {
        w.write_payload(&reading(i)).unwrap();
    }
    w.into_inner()
}

/// The timestamps of `stream(n)`.
fn timestamps_of(n: u64) -> Vec<u64> {
    (0..n).map(|i| 1_700_000_000_000 + i).collect()
}

#[test]
fn process_typed_hands_out_verified_generated_types() {
    let bytes = stream(100);
    let mut r = StreamReader::new(&bytes[..], DefaultDeframer);
    let mut timestamps = vec![];
    r.process_typed::<Telemetry<'_>, _, _>(|t| {
        timestamps.push(t.timestamp());
        Ok(())
    })
    .unwrap();
    assert_eq!(timestamps, timestamps_of(100));
}

#[test]
fn typed_reading_works_in_place_over_a_buf_read() {
    let bytes = stream(100);
    // A small `BufReader`, so that frames straddle its refills too.
    let source = std::io::BufReader::with_capacity(50, &bytes[..]);
    let mut r = BufReadStreamReader::new(source, DefaultDeframer);
    let mut timestamps = vec![];
    let mut m = r.typed_messages::<Telemetry<'_>>();
    while let Some(t) = m.next().unwrap() {
        timestamps.push(t.timestamp());
    }
    assert_eq!(timestamps, timestamps_of(100));
}

#[test]
fn process_typed_stops_early_and_resumes() {
    let bytes = stream(10);
    let mut r = StreamReader::new(&bytes[..], DefaultDeframer);
    let mut n = 0;
    r.process_typed::<Telemetry<'_>, _, _>(|_| {
        n += 1;
        Ok(flatstream_test_support::stop_if(n == 3))
    })
    .unwrap();
    assert_eq!(n, 3);
    let mut messages = r.typed_messages::<Telemetry<'_>>();
    assert_eq!(messages.next().unwrap().unwrap().device_id(), 4);
}

#[test]
fn typed_messages_report_invalid_frames_at_their_offset_and_continue() {
    let mut w = StreamWriter::new(Vec::new(), DefaultFramer);
    w.write_payload(&reading(1)).unwrap();
    let bad_at = w.bytes_written();
    w.write_payload(&[0xFF; 24]).unwrap();
    w.write_payload(&reading(2)).unwrap();
    let bytes = w.into_inner();

    let mut r = StreamReader::new(&bytes[..], DefaultDeframer);
    let mut messages = r.typed_messages::<Telemetry<'_>>();
    assert_eq!(messages.next().unwrap().unwrap().device_id(), 2);
    let err = messages.next().unwrap_err();
    assert!(
        matches!(err, Error::InvalidFlatbuffer { offset, .. } if offset == bad_at),
        "{err}"
    );
    assert_eq!(messages.next().unwrap().unwrap().device_id(), 3);
    assert!(messages.next().unwrap().is_none());

    let mut r = StreamReader::new(&bytes[..], DefaultDeframer);
    let err = r
        .process_typed::<Telemetry<'_>, _, _>(|_| Ok(()))
        .unwrap_err();
    assert_eq!(err.offset(), bad_at);
}

#[test]
fn verifier_options_are_applied() {
    let bytes = stream(1);
    let mut r = StreamReader::new(&bytes[..], DefaultDeframer);
    let strict = VerifierOptions {
        max_tables: 0,
        ..Default::default()
    };
    assert!(
        r.typed_messages_with::<Telemetry<'_>>(strict.clone())
            .next()
            .is_err()
    );
    let mut r = StreamReader::new(&bytes[..], DefaultDeframer);
    assert!(
        r.process_typed_with::<Telemetry<'_>, _, _>(&strict, |_| Ok(()))
            .is_err()
    );
    let mut r = StreamReader::new(&bytes[..], DefaultDeframer);
    assert!(
        r.typed_messages_with::<Telemetry<'_>>(VerifierOptions::default())
            .next()
            .unwrap()
            .is_some()
    );
}

#[test]
fn typed_reading_works_through_a_reclaiming_reader() {
    let bytes = stream(20);
    let mut r =
        StreamReader::new(&bytes[..], DefaultDeframer).with_reclaim(ShrinkAfter::new(1024, 4));
    let mut n = 0;
    r.process_typed::<Telemetry<'_>, _, _>(|t| {
        assert_eq!(t.device_id(), n % 64 + 1);
        n += 1;
        Ok(())
    })
    .unwrap();
    assert_eq!(n, 20);
}

#[test]
fn typed_validator_names_the_type_and_carries_the_offset() {
    let v = TypedValidator::<Telemetry<'_>>::new();
    v.validate(&reading(5), 0).unwrap();
    let truncated = &reading(5)[..20];
    let Error::Validation { details, offset } = v.validate(truncated, 99).unwrap_err() else {
        panic!("expected a validation error")
    };
    assert_eq!((details.validator.as_ref(), offset), ("typed", 99));
    assert!(details.reason.contains("Telemetry"), "{}", details.reason);
}

#[test]
fn typed_validation_on_both_sides_of_a_stream() {
    let mut w = StreamWriter::new(
        Vec::new(),
        DefaultFramer.validated(TypedValidator::<Telemetry<'_>>::new()),
    )
    .with_max_frame_len(1024);
    w.write_payload(&reading(1)).unwrap();
    assert!(w.write_payload(&[0xFF; 24]).is_err());
    assert_eq!(w.bytes_written(), 4 + reading(1).len() as u64);

    let mut bytes = w.into_inner();
    let mut w = StreamWriter::new(Vec::new(), DefaultFramer);
    w.write_payload(&[0xFF; 24]).unwrap();
    bytes.extend_from_slice(&w.into_inner());
    let mut r = StreamReader::new(
        &bytes[..],
        DefaultDeframer.validated(TypedValidator::<Telemetry<'_>>::new()),
    )
    .with_max_frame_len(1024);
    assert!(r.read_message().unwrap().is_some());
    assert!(matches!(r.read_message(), Err(Error::Validation { .. })));
    assert!(r.read_message().unwrap().is_none());
}

#[test]
fn structural_validation_accepts_every_telemetry_reading() {
    let v = StructuralValidator::new();
    for i in 0..20_000 {
        v.validate(&reading(i * 7919), 0).unwrap();
    }
}

/// As every iterator over frames, `typed_messages` yields a framing error once and then ends;
/// the reader stays at the frame, and its `read_message` returns the error again.
#[test]
fn typed_messages_yield_a_framing_error_once_then_end() {
    let mut bytes = stream(2);
    bytes.truncate(bytes.len() - 3);
    let torn_at = 4 + reading(0).len() as u64;

    let mut r = StreamReader::new(&bytes[..], DefaultDeframer);
    // A loop that logs each error and goes on: it sees the error once, then the end.
    let mut seen = Vec::new();
    let mut messages = r.typed_messages::<Telemetry<'_>>();
    while seen.len() < 10 {
        match messages.next() {
            Ok(Some(t)) => seen.push(Ok(t.device_id())),
            Ok(None) => break,
            Err(e) => seen.push(Err((e.kind(), e.offset()))),
        }
    }
    assert_eq!(seen, [Ok(1), Err((ErrorKind::UnexpectedEof, torn_at))]);
    assert_eq!(r.read_message().unwrap_err().offset(), torn_at);
}
