//! Every framer and deframer adapter on both sides of a stream, alone and in stacks of three
//! or more, in the orders where order matters.

use flatstream_adapters::{
    DeframerExt, FramerExt, NoValidator, ObserverDeframer, ObserverFramer, SizeValidator,
    StructuralValidator, ValidatingDeframer, ValidatingFramer, Validator,
};
use flatstream_core::{
    ChecksumDeframer, ChecksumFramer, DefaultDeframer, DefaultFramer, Deframer, Error, Framer,
    Result, StreamReader, StreamWriter,
};
use flatstream_test_support::checksums::ByteSum;
use std::cell::RefCell;

fn write_all<F: Framer>(framer: F, payloads: &[&[u8]]) -> (Vec<u8>, Vec<Result<()>>) {
    write_within(framer, usize::MAX, payloads)
}

/// [`write_all`] through a writer that accepts payloads of at most `max` bytes.
fn write_within<F: Framer>(
    framer: F,
    max: usize,
    payloads: &[&[u8]],
) -> (Vec<u8>, Vec<Result<()>>) {
    let mut w = StreamWriter::new(Vec::new(), framer).with_max_frame_len(max);
    let results = payloads.iter().map(|p| w.write_payload(p)).collect();
    (w.into_inner(), results)
}

fn bare(payloads: &[&[u8]]) -> Vec<u8> {
    write_all(ChecksumFramer::new(ByteSum), payloads).0
}

/// Reads every frame, skipping content errors, until the end or a framing error.
fn read_all<D: Deframer>(bytes: &[u8], deframer: D) -> (Vec<Vec<u8>>, Vec<Error>) {
    read_within(bytes, deframer, usize::MAX)
}

/// [`read_all`] through a reader that accepts payloads of at most `max` bytes.
fn read_within<D: Deframer>(bytes: &[u8], deframer: D, max: usize) -> (Vec<Vec<u8>>, Vec<Error>) {
    let mut r = StreamReader::new(bytes, deframer).with_max_frame_len(max);
    let (mut ok, mut errors) = (vec![], vec![]);
    loop {
        match r.read_message() {
            Ok(Some(p)) => ok.push(p.to_vec()),
            Ok(None) => break,
            Err(e) => {
                let content = e.is_content_error();
                errors.push(e);
                if !content {
                    break;
                }
            }
        }
    }
    (ok, errors)
}

/// The `(offset, len, max)` of a `FrameTooLarge` error.
fn too_large(e: &Error) -> (u64, u64, u64) {
    match e {
        Error::FrameTooLarge { offset, len, max } => (*offset, *len, *max),
        other => panic!("expected a frame too large, got {other}"),
    }
}

fn validation(e: &Error) -> (&str, &str, u64) {
    match e {
        Error::Validation { details, offset } => {
            (details.validator.as_ref(), details.reason.as_ref(), *offset)
        }
        other => panic!("expected a validation error, got {other}"),
    }
}

/// Rejects payloads starting with `b'!'`.
struct NoBang;

impl Validator for NoBang {
    fn validate(&self, payload: &[u8], offset: u64) -> Result<()> {
        if payload.first() == Some(&b'!') {
            return Err(Error::validation(
                "no-bang",
                "payload starts with '!'",
                offset,
            ));
        }
        Ok(())
    }
}

#[test]
fn adapters_do_not_change_the_bytes_on_the_wire() {
    let payloads: &[&[u8]] = &[b"alpha", b"", b"gamma-gamma"];
    let seen = RefCell::new(0);
    let framer = ChecksumFramer::new(ByteSum)
        .validated(NoValidator)
        .observed(|_: &[u8]| *seen.borrow_mut() += 1);
    let (bytes, results) = write_all(framer, payloads);
    assert!(results.iter().all(Result::is_ok));
    assert_eq!(bytes, bare(payloads));
    assert_eq!(*seen.borrow(), 3);
    let (read, errors) = read_within(
        &bytes,
        ChecksumDeframer::new(ByteSum).validated(NoValidator),
        1024,
    );
    assert!(errors.is_empty());
    assert_eq!(read, payloads);
}

#[test]
fn extension_methods_build_the_same_types_as_manual_nesting() {
    fn same<T>(_: &T, _: &T) {}
    let f = |_: &[u8]| {};
    let fluent = DefaultFramer.observed(f).validated(NoValidator);
    let manual = ValidatingFramer::new(ObserverFramer::new(DefaultFramer, f), NoValidator);
    same(&fluent, &manual);
    let fluent = DefaultDeframer.validated(NoValidator).observed(f);
    let manual = ObserverDeframer::new(ValidatingDeframer::new(DefaultDeframer, NoValidator), f);
    same(&fluent, &manual);
    // Zero-sized adapters stay zero-sized.
    assert_eq!(
        std::mem::size_of_val(&DefaultDeframer.validated(NoValidator)),
        0
    );
}

#[test]
fn the_writers_bound_refuses_before_any_byte_is_written() {
    let mut w = StreamWriter::new(
        Vec::new(),
        ChecksumFramer::new(ByteSum).validated(NoValidator),
    )
    .with_max_frame_len(4);
    w.write_payload(b"1234").unwrap();
    let err = w.write_payload(b"12345").unwrap_err();
    assert_eq!(too_large(&err), (10, 5, 4));
    assert_eq!(w.bytes_written(), 10);
    w.write_payload(b"").unwrap();
    assert_eq!(w.into_inner(), bare(&[b"1234", b""]));
}

#[test]
fn the_readers_bound_rejects_from_the_length_prefix_before_allocating() {
    // A frame claiming 100 MB, then only 10 bytes: the reader must not grow for it.
    let mut bytes = bare(&[b"ok"]);
    bytes.extend_from_slice(&100_000_000u32.to_le_bytes());
    bytes.extend_from_slice(&[0; 12]);
    // Through a `Read` the reader copies from (it reads `&[u8]` in place, allocating nothing).
    let source = std::io::Read::chain(&bytes[..], std::io::empty());
    let deframer = ChecksumDeframer::new(ByteSum).validated(NoValidator);
    let mut r = StreamReader::with_capacity(64, source, deframer).with_max_frame_len(1000);
    assert_eq!(r.read_message().unwrap(), Some(&b"ok"[..]));
    let err = r.read_message().unwrap_err();
    assert_eq!(too_large(&err), (8, 100_000_000, 1000));
    assert!(r.capacity() <= 64, "capacity {}", r.capacity());
}

#[test]
fn observers_see_payloads_before_framing_and_after_the_checksum() {
    let written = RefCell::new(Vec::new());
    let (bytes, _) = write_all(
        ChecksumFramer::new(ByteSum).observed(|p: &[u8]| written.borrow_mut().push(p.to_vec())),
        &[b"one", b"two"],
    );
    assert_eq!(*written.borrow(), [b"one", b"two"]);

    let mut corrupt = bytes.clone();
    let last = corrupt.len() - 1;
    corrupt[last] ^= 1; // the second payload no longer matches its checksum
    let read = RefCell::new(Vec::new());
    let (ok, errors) = read_all(
        &corrupt,
        ChecksumDeframer::new(ByteSum).observed(|p: &[u8]| read.borrow_mut().push(p.to_vec())),
    );
    assert_eq!(ok, [b"one"]);
    assert!(matches!(
        errors[..],
        [Error::ChecksumMismatch { offset: 9, .. }]
    ));
    assert_eq!(
        *read.borrow(),
        [b"one"],
        "a corrupt payload is never observed"
    );
}

#[test]
fn validating_framer_keeps_invalid_payloads_off_the_sink() {
    let mut w = StreamWriter::new(Vec::new(), ChecksumFramer::new(ByteSum).validated(NoBang));
    w.write_payload(b"fine").unwrap();
    let err = w.write_payload(b"!bad").unwrap_err();
    assert_eq!(validation(&err), ("no-bang", "payload starts with '!'", 10));
    assert_eq!(w.bytes_written(), 10);
    w.write_payload(b"also fine").unwrap();
    assert_eq!(w.into_inner(), bare(&[b"fine", b"also fine"]));
}

#[test]
fn validating_deframer_checks_after_the_checksum_and_moves_past_rejected_frames() {
    let bytes = bare(&[b"a", b"!b", b"c"]);
    let (ok, errors) = read_all(&bytes, ChecksumDeframer::new(ByteSum).validated(NoBang));
    assert_eq!(ok, [b"a", b"c"]);
    assert_eq!(errors.len(), 1);
    assert_eq!(
        validation(&errors[0]),
        ("no-bang", "payload starts with '!'", 7)
    );

    // A corrupted frame is a checksum error, never reaching the validator.
    let mut corrupt = bare(&[b"!x"]);
    corrupt[7] = b'y';
    let (_, errors) = read_all(&corrupt, ChecksumDeframer::new(ByteSum).validated(NoBang));
    assert!(matches!(errors[..], [Error::ChecksumMismatch { .. }]));
}

#[test]
fn size_validator_on_both_sides() {
    let mut w = StreamWriter::new(
        Vec::new(),
        DefaultFramer.validated(SizeValidator::new(2, 3)),
    );
    for p in [&b"a"[..], b"ab", b"abcd", b"abc"] {
        let _ = w.write_payload(p);
    }
    let bytes = w.into_inner();
    let (ok, errors) = read_all(&bytes, DefaultDeframer);
    assert_eq!(ok, [&b"ab"[..], b"abc"]);
    assert!(errors.is_empty());

    let bytes = write_all(DefaultFramer, &[b"a", b"ab", b"abcd"]).0;
    let (ok, errors) = read_all(&bytes, DefaultDeframer.validated(SizeValidator::new(2, 3)));
    assert_eq!(ok, [b"ab"]);
    let details: Vec<_> = errors.iter().map(validation).collect();
    assert_eq!(
        details,
        [
            ("size", "payload of 1 bytes is under the minimum of 2", 0),
            ("size", "payload of 4 bytes is over the maximum of 3", 11),
        ]
    );
}

#[test]
fn composite_validators_run_in_order_and_the_first_rejection_wins() {
    let both = (SizeValidator::max(3), NoBang);
    assert_eq!(
        validation(&both.validate(b"!abcd", 5).unwrap_err()).0,
        "size"
    );
    assert_eq!(
        validation(&both.validate(b"!a", 5).unwrap_err()).0,
        "no-bang"
    );
    let reversed = (NoBang, SizeValidator::max(3));
    assert_eq!(
        validation(&reversed.validate(b"!abcd", 5).unwrap_err()).0,
        "no-bang"
    );
    let dynamic: Vec<Box<dyn Validator>> = vec![Box::new(NoValidator), Box::new(NoBang)];
    assert!(dynamic.validate(b"ok", 0).is_ok());
    assert_eq!(
        validation(&dynamic.validate(b"!", 3).unwrap_err()),
        ("no-bang", "payload starts with '!'", 3)
    );
    let three = (
        NoValidator,
        SizeValidator::min(1),
        StructuralValidator::new(),
    );
    assert_eq!(validation(&three.validate(b"", 0).unwrap_err()).0, "size");
    assert_eq!(
        validation(&three.validate(b"x", 0).unwrap_err()).0,
        "structure"
    );
}

fn checksummed() -> ChecksumFramer<ByteSum> {
    ChecksumFramer::new(ByteSum)
}

/// Offers four payloads to a stack that refuses `'!'`, through a writer bound at 5 bytes;
/// asserts that only the two valid ones reached the sink.
fn offer<F: Framer>(framer: F) {
    let payloads: &[&[u8]] = &[b"ok", b"!bang", b"way too long", b"fine"];
    let (bytes, _) = write_within(framer, 5, payloads);
    let (on_wire, errors) = read_all(&bytes, ChecksumDeframer::new(ByteSum));
    assert!(errors.is_empty());
    assert_eq!(on_wire, [b"ok".to_vec(), b"fine".to_vec()]);
}

#[test]
fn write_stacks_of_three_in_both_orders() {
    let seen = RefCell::new(Vec::new());
    let record = |p: &[u8]| seen.borrow_mut().push(p.to_vec());

    // The writer's bound is checked before the stack runs: nothing in it sees the oversized
    // payload. Observer outermost: sees every other payload offered.
    offer(checksummed().validated(NoBang).observed(record));
    assert_eq!(
        seen.take(),
        [b"ok".to_vec(), b"!bang".to_vec(), b"fine".to_vec()]
    );

    // Observer inside the validator: sees only what goes on the wire.
    offer(checksummed().observed(record).validated(NoBang));
    assert_eq!(seen.take(), [b"ok".to_vec(), b"fine".to_vec()]);
}

#[test]
fn read_stacks_of_three_in_both_orders() {
    let bytes = bare(&[b"ok", b"!bang", b"fine"]);
    let mut too_long = bytes.clone();
    too_long.extend_from_slice(&bare(&[b"way too long"]));

    // Observer inside the validator: sees every intact payload, including the rejected one.
    let seen = RefCell::new(Vec::new());
    let (ok, errors) = read_within(
        &too_long,
        ChecksumDeframer::new(ByteSum)
            .observed(|p: &[u8]| seen.borrow_mut().push(p.to_vec()))
            .validated(NoBang),
        5,
    );
    assert_eq!(ok, [b"ok".to_vec(), b"fine".to_vec()]);
    assert_eq!(seen.borrow().len(), 3);
    assert!(matches!(
        errors[..],
        [
            Error::Validation { offset: 8, .. },
            Error::FrameTooLarge {
                len: 12,
                max: 5,
                ..
            }
        ]
    ));

    // Observer outside the validator: sees exactly what the user sees.
    let seen = RefCell::new(Vec::new());
    let (ok, errors) = read_within(
        &too_long,
        ChecksumDeframer::new(ByteSum)
            .validated(NoBang)
            .observed(|p: &[u8]| seen.borrow_mut().push(p.to_vec())),
        5,
    );
    assert_eq!(ok, *seen.borrow());
    assert_eq!(errors.len(), 2);
    // The reader's bound is enforced from the length prefix, before the stack: the oversized
    // frame is never observed in either order.
    assert!(seen.borrow().iter().all(|p| p.len() <= 5));
}

#[test]
fn a_stack_of_four_with_structural_validation_reads_flatbuffers() {
    let mut w = StreamWriter::new(
        Vec::new(),
        ChecksumFramer::new(ByteSum).validated(StructuralValidator::new()),
    )
    .with_max_frame_len(256);
    let mut b = flatbuffers::FlatBufferBuilder::new();
    let name = b.create_string("sensor");
    let start = b.start_table();
    b.push_slot_always(4, name);
    b.push_slot::<u64>(6, 42, 0);
    let root = b.end_table(start);
    b.finish(root, None);
    w.write_finished(&mut b).unwrap();
    let err = w.write(&"a string root is not a table").unwrap_err();
    assert_eq!(validation(&err).0, "structure");
    let bytes = w.into_inner();

    let count = RefCell::new(0);
    let (ok, errors) = read_within(
        &bytes,
        ChecksumDeframer::new(ByteSum)
            .validated((SizeValidator::min(8), StructuralValidator::new()))
            .observed(|_: &[u8]| *count.borrow_mut() += 1),
        256,
    );
    assert_eq!(ok.len(), 1);
    assert!(errors.is_empty());
    assert_eq!(*count.borrow(), 1);
}

#[test]
fn public_types_are_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<ObserverFramer<DefaultFramer, fn(&[u8])>>();
    assert_send_sync::<ObserverDeframer<DefaultDeframer, fn(&[u8])>>();
    assert_send_sync::<ValidatingFramer<DefaultFramer, SizeValidator>>();
    assert_send_sync::<ValidatingDeframer<DefaultDeframer, StructuralValidator>>();
    assert_send_sync::<flatstream_adapters::TypedValidator<&'static str>>();
    assert_send_sync::<flatstream_adapters::Reclaiming<Vec<u8>, flatstream_core::ShrinkAfter>>();
}
