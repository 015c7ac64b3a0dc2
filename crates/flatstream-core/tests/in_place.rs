//! `StreamReader` over `&[u8]` and a `Cursor` over `&[u8]`, `Vec<u8>` or `&Vec<u8>` parses the
//! bytes where they are: the payloads are borrowed from the source, the reader allocates nothing, and the
//! source is left exactly after the last frame handed out. Everything else about the reader
//! (its results, errors and offsets) is the same as when it copies.

mod support;

use flatstream_core::{
    ChecksumDeframer, ChecksumFramer, DefaultDeframer, Deframer, Error, Frames, Result,
    StreamReader,
};
use proptest::prelude::*;
use std::io::{Cursor, Read};
use std::ops::ControlFlow;
use support::{Fletcher32, Opaque, stream, stream_with};

fn sample() -> Vec<Vec<u8>> {
    vec![b"one".to_vec(), vec![], vec![7; 300], b"four".to_vec()]
}

/// Whether `inner` lies within `outer`.
fn within(inner: &[u8], outer: &[u8]) -> bool {
    let outer = outer.as_ptr_range();
    let inner = inner.as_ptr_range();
    outer.start <= inner.start && inner.end <= outer.end
}

#[test]
fn payloads_are_borrowed_from_a_slice_and_the_slice_moves_past_them() {
    let msgs = sample();
    let bytes = stream(&msgs);
    let mut reader = StreamReader::new(&bytes[..], DefaultDeframer);
    let mut consumed = 0;
    for m in &msgs {
        let p = reader.read_message().unwrap().unwrap();
        assert_eq!(p, &m[..]);
        assert!(within(p, &bytes));
        consumed += 4 + m.len();
        assert_eq!(*reader.get_ref(), &bytes[consumed..]);
        assert_eq!(reader.position(), consumed as u64);
    }
    assert_eq!(reader.read_message().unwrap(), None);
    assert_eq!(reader.capacity(), 0, "nothing allocated");
    assert!(reader.buffer().is_empty());
}

#[test]
fn payloads_are_borrowed_from_a_cursor_and_its_position_follows() {
    let msgs = sample();
    let bytes = stream(&msgs);

    let mut reader = StreamReader::new(Cursor::new(&bytes[..]), DefaultDeframer);
    reader.get_mut().set_position(7); // after the first frame
    let mut seen = vec![];
    reader
        .process_all(|p| {
            assert!(within(p, &bytes));
            seen.push(p.to_vec());
            Ok(())
        })
        .unwrap();
    assert_eq!(seen, &msgs[1..]);
    assert_eq!(reader.get_ref().position(), bytes.len() as u64);
    assert_eq!(reader.capacity(), 0, "nothing allocated");

    let mut reader = StreamReader::new(Cursor::new(bytes.clone()), DefaultDeframer);
    let p = reader.read_message().unwrap().unwrap();
    assert_eq!(p, b"one");
    assert_eq!(reader.get_ref().position(), 7);
    let inner = reader.get_ref().get_ref().as_ptr_range();
    let p = reader.read_message().unwrap().unwrap().as_ptr_range();
    assert!(inner.start <= p.start && p.end <= inner.end);
    // A cursor past its end reads as empty, as `Read` does.
    reader.get_mut().set_position(u64::MAX);
    assert_eq!(reader.read_message().unwrap(), None);

    let mut reader = StreamReader::new(Cursor::new(&bytes), DefaultDeframer);
    let mut m = reader.messages();
    let mut n = 0;
    while let Some(p) = m.next().unwrap() {
        assert!(within(p, &bytes));
        n += 1;
    }
    assert_eq!(n, msgs.len());
    assert_eq!(reader.get_ref().position(), bytes.len() as u64);
}

/// What `process_all` saw: the payloads, the error that ended it, and the position after.
fn process_to_end<R: Read, D: Deframer>(
    mut reader: StreamReader<R, D>,
) -> (Vec<Vec<u8>>, Option<String>, u64) {
    let mut got = vec![];
    let result = reader.process_all(|p| {
        got.push(p.to_vec());
        Ok(())
    });
    (got, result.err().map(|e| e.to_string()), reader.position())
}

#[test]
fn process_all_stops_at_a_cut_or_oversized_frame_as_the_slice_iterator_does() {
    let msgs = sample();
    let mut bytes = stream(&msgs);
    // A last frame that claims more than the bound.
    bytes.extend_from_slice(&1000u32.to_le_bytes());
    bytes.extend_from_slice(&[1; 20]);
    for cut in 0..=bytes.len() {
        let data = &bytes[..cut];
        let mut it = Frames::new(data, DefaultDeframer).with_max_frame_len(500);
        let mut expected = vec![];
        let mut error = None;
        for item in it.by_ref() {
            match item {
                Ok(p) => expected.push(p.to_vec()),
                Err(e) => error = Some(e.to_string()),
            }
        }
        let end = (expected, error, it.position());
        let d = DefaultDeframer;
        let in_place = StreamReader::new(data, d).with_max_frame_len(500);
        assert_eq!(process_to_end(in_place), end, "in place, cut {cut}");
        let vec = data.to_vec();
        let cursor = StreamReader::new(Cursor::new(&vec), d).with_max_frame_len(500);
        assert_eq!(process_to_end(cursor), end, "cursor, cut {cut}");
        let copying = StreamReader::with_capacity(16, Opaque(data), d).with_max_frame_len(500);
        assert_eq!(process_to_end(copying), end, "copying, cut {cut}");
    }
}

/// Reads with a callback that panics once, on the payload `b"boom"`, and goes on after
/// catching it; returns every payload the callback was given.
fn read_through_a_panic<R: Read + std::panic::UnwindSafe>(
    reader: StreamReader<R, DefaultDeframer>,
) -> Vec<Vec<u8>> {
    let mut seen = vec![];
    let mut reader = std::panic::AssertUnwindSafe(reader);
    let mut panicked = false;
    loop {
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            reader.process_all(|p| {
                if p == b"boom" && !panicked {
                    panicked = true;
                    panic!("callback panics");
                }
                seen.push(p.to_vec());
                Ok(())
            })
        }));
        if let Ok(result) = outcome {
            result.unwrap();
            return seen;
        }
    }
}

#[test]
fn after_a_panicking_callback_no_frame_is_lost() {
    let msgs: Vec<Vec<u8>> = ["a", "b", "boom", "c", "d"]
        .iter()
        .map(|s| s.as_bytes().to_vec())
        .collect();
    let bytes = stream(&msgs);
    for seen in [
        read_through_a_panic(StreamReader::new(&bytes[..], DefaultDeframer)),
        read_through_a_panic(StreamReader::new(Opaque(&bytes[..]), DefaultDeframer)),
    ] {
        // Frames handed out before the panic may come again (see `process_all`), but every
        // frame from the one that panicked on is delivered, in order.
        let tail = &seen[seen.len() - 3..];
        assert_eq!(tail, &msgs[2..], "{seen:?}");
        assert!(seen.starts_with(&msgs[..2]), "{seen:?}");
    }
}

#[test]
fn a_slice_reader_can_be_pointed_at_more_bytes() {
    let first = stream(&sample()[..2]);
    let second = stream(&sample()[2..]);
    let mut reader = StreamReader::new(&first[..], DefaultDeframer);
    let mut seen = vec![];
    while let Some(p) = reader.read_message().unwrap() {
        seen.push(p.to_vec());
    }
    *reader.get_mut() = &second[..];
    while let Some(p) = reader.read_message().unwrap() {
        seen.push(p.to_vec());
    }
    assert_eq!(seen, sample());
    assert_eq!(reader.position(), (first.len() + second.len()) as u64);
}

/// Rejects the payload `b"bad"` as content, the way a validating deframer does.
#[derive(Clone, Copy)]
struct RejectBad;

impl Deframer for RejectBad {
    fn checksum_size(&self) -> usize {
        0
    }
    fn verify(&self, _: &[u8], payload: &[u8], offset: u64) -> Result<()> {
        if payload == b"bad" {
            return Err(Error::validation("test", "bad payload", offset));
        }
        Ok(())
    }
}

fn expect_content_error_is_stepped_over<R: Read>(mut reader: StreamReader<R, RejectBad>) {
    assert_eq!(reader.read_message().unwrap(), Some(&b"ok"[..]));
    let err = reader.read_message().unwrap_err();
    assert!(matches!(err, Error::Validation { .. }), "{err}");
    assert_eq!(err.offset(), 6);
    // The frame was whole: the reader moves past it.
    let mut rest = vec![];
    let err = reader
        .process_all(|p| {
            rest.push(p.to_vec());
            Ok(())
        })
        .unwrap_err();
    assert_eq!(err.offset(), 21, "the second bad frame");
    reader
        .process_all(|p| {
            rest.push(p.to_vec());
            Ok(())
        })
        .unwrap();
    assert_eq!(rest, [b"fine".to_vec(), b"end".to_vec()]);
}

#[test]
fn a_content_error_is_reported_and_the_next_frame_follows() {
    let msgs: Vec<Vec<u8>> = ["ok", "bad", "fine", "bad", "end"]
        .iter()
        .map(|s| s.as_bytes().to_vec())
        .collect();
    let bytes = stream(&msgs);
    expect_content_error_is_stepped_over(StreamReader::new(&bytes[..], RejectBad));
    expect_content_error_is_stepped_over(StreamReader::new(Opaque(&bytes[..]), RejectBad));
}

/// Reads the stream with `read_message` for `first` frames, then with `process_all`,
/// stopping after every `stride` frames and starting again.
fn read_in_turns<R: Read, D: Deframer>(
    mut reader: StreamReader<R, D>,
    first: usize,
    stride: usize,
) -> Vec<Vec<u8>> {
    let mut out = vec![];
    for _ in 0..first {
        match reader.read_message().unwrap() {
            Some(p) => out.push(p.to_vec()),
            None => return out,
        }
    }
    loop {
        let before = out.len();
        let mut n = 0;
        reader
            .process_all(|p| {
                out.push(p.to_vec());
                n += 1;
                Ok(if n == stride {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                })
            })
            .unwrap();
        if out.len() == before {
            return out;
        }
    }
}

fn messages() -> impl Strategy<Value = Vec<Vec<u8>>> {
    prop::collection::vec(prop::collection::vec(any::<u8>(), 0..200), 0..24)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn in_place_and_copying_readers_agree_with_the_slice_iterator(
        msgs in messages(), first in 0usize..6, stride in 1usize..6,
    ) {
        let bytes = stream(&msgs);
        let sliced: Vec<Vec<u8>> =
            Frames::new(&bytes, DefaultDeframer).map(|p| p.unwrap().to_vec()).collect();
        prop_assert_eq!(&sliced, &msgs);
        let d = DefaultDeframer;
        prop_assert_eq!(&read_in_turns(StreamReader::new(&bytes[..], d), first, stride), &msgs);
        prop_assert_eq!(&read_in_turns(StreamReader::new(Cursor::new(&bytes[..]), d), first, stride), &msgs);
        prop_assert_eq!(&read_in_turns(StreamReader::new(Cursor::new(bytes.clone()), d), first, stride), &msgs);
        let copying = StreamReader::with_capacity(64, Opaque(&bytes[..]), d);
        prop_assert_eq!(&read_in_turns(copying, first, stride), &msgs);

        let bytes = stream_with(ChecksumFramer::new(Fletcher32), &msgs);
        let d = ChecksumDeframer::new(Fletcher32);
        prop_assert_eq!(&read_in_turns(StreamReader::new(&bytes[..], d), first, stride), &msgs);
        let copying = StreamReader::with_capacity(64, Opaque(&bytes[..]), d);
        prop_assert_eq!(&read_in_turns(copying, first, stride), &msgs);
    }
}
