//! The claims of `docs/migrating.md` about flatstream's side, checked: the names it maps 0.2.7's
//! to compile as shown, and the behaviour it says changed is the behaviour.

#![cfg(feature = "xxhash")]

use flatstream::adapters::{DeframerExt, SizeValidator, StructuralValidator, Validator};
use flatstream::read::TypedReaderExt;
use flatstream::repair::{Recover, StreamEnd};
use flatstream::{
    ChecksumDeframer, ChecksumFramer, DefaultDeframer, DefaultFramer, Error, ErrorKind,
    StreamReader, StreamWriter, XxHash64,
};
use std::io::{Cursor, Read};

fn stream(payloads: &[&[u8]]) -> Vec<u8> {
    let mut w = StreamWriter::new(Vec::new(), ChecksumFramer::new(XxHash64::new()));
    for p in payloads {
        w.write_payload(p).unwrap();
    }
    w.into_inner()
}

#[test]
fn the_0_2_paths_name_the_root_items() {
    let _: flatstream::framing::DefaultFramer = DefaultFramer::new();
    let _: flatstream::framing::ChecksumDeframer<flatstream::checksum::XxHash64> =
        ChecksumDeframer::new(XxHash64::new());
    assert_eq!(
        <flatstream::checksum::XxHash64 as flatstream::checksum::Checksum>::SIZE,
        8
    );
    assert_eq!(
        flatstream::framing::DEFAULT_MAX_FRAME_LEN,
        flatstream::framing::DEFAULT_MAX_FRAME_LEN
    );
}

#[test]
fn with_capacity_takes_the_capacity_first_and_allocates_nothing_up_front() {
    let bytes = stream(&[b"one"]);
    let source = (&bytes[..]).chain(std::io::empty()); // not read in place
    let mut r = StreamReader::with_capacity(1 << 20, source, ChecksumDeframer::new(XxHash64));
    assert_eq!(r.capacity(), 0);
    assert_eq!(r.read_message().unwrap(), Some(&b"one"[..]));
    assert!(r.capacity() <= 8 * 1024, "{}", r.capacity());
}

#[test]
fn into_inner_drops_the_bytes_read_ahead_and_into_parts_returns_them() {
    let bytes = stream(&[b"one", b"two", b"three"]);
    let d = ChecksumDeframer::new(XxHash64);
    let mut r = StreamReader::new((&bytes[..]).chain(std::io::empty()), d);
    assert_eq!(r.read_message().unwrap(), Some(&b"one"[..]));
    let mut source = r.into_inner();
    let mut rest = Vec::new();
    source.read_to_end(&mut rest).unwrap();
    assert!(
        rest.is_empty(),
        "the source was read ahead, past the first frame"
    );

    let mut r = StreamReader::new((&bytes[..]).chain(std::io::empty()), d);
    assert_eq!(r.read_message().unwrap(), Some(&b"one"[..]));
    let (source, ahead) = r.into_parts();
    let mut again = StreamReader::new(Cursor::new(ahead).chain(source), d);
    assert_eq!(again.read_message().unwrap(), Some(&b"two"[..]));
    assert_eq!(again.read_message().unwrap(), Some(&b"three"[..]));
    assert_eq!(again.read_message().unwrap(), None);

    // A source in memory is moved exactly past the frames handed out.
    let mut r = StreamReader::new(Cursor::new(&bytes[..]), d);
    r.read_message().unwrap();
    let cursor = r.into_inner();
    assert_eq!(cursor.position(), 3 + 12);
}

#[test]
fn recovery_returns_ok_with_rejected_frames_counted_and_corruption_in_end() {
    let bytes = stream(&[b"ok", b"far too long", b"ok"]);
    let validating = ChecksumDeframer::new(XxHash64).validated(SizeValidator::max(4));
    let r = Recover::new(validating).scan_reader(&bytes[..]).unwrap();
    assert_eq!(
        (r.frames, r.rejected, r.valid_len),
        (3, 1, bytes.len() as u64)
    );
    assert!(r.is_clean());

    let mut corrupt = bytes.clone();
    let last = corrupt.len() - 1;
    corrupt[last] ^= 1;
    let r = Recover::new(ChecksumDeframer::new(XxHash64))
        .scan_reader(&corrupt[..])
        .unwrap();
    assert_eq!(r.frames, 2);
    let StreamEnd::Corrupt(e) = &r.end else {
        panic!("{:?}", r.end)
    };
    assert_eq!(e.kind(), ErrorKind::ChecksumMismatch);
    assert_eq!(e.offset(), r.valid_len);
}

#[test]
fn validators_name_what_they_check() {
    let name = |e: Error| match e {
        Error::Validation { details, .. } => details.validator.into_owned(),
        other => panic!("{other}"),
    };
    assert_eq!(
        name(SizeValidator::new(1, 2).validate(b"abc", 0).unwrap_err()),
        "size"
    );
    assert_eq!(
        name(
            StructuralValidator::new()
                .root_only()
                .validate(b"ab", 0)
                .unwrap_err()
        ),
        "structure"
    );
}

#[test]
fn process_typed_takes_three_type_parameters() {
    let mut w = StreamWriter::new(Vec::new(), DefaultFramer);
    w.write(&"hello").unwrap();
    let bytes = w.into_inner();
    let mut r = StreamReader::new(&bytes[..], DefaultDeframer::new());
    let mut seen = Vec::new();
    r.process_typed::<&str, _, _>(|root| {
        seen.push(root.to_owned());
        Ok(())
    })
    .unwrap();
    assert_eq!(seen, ["hello"]);
}
