//! `StreamReader` over `&[u8]` and a `Cursor` over `&[u8]`, `Vec<u8>` or `&Vec<u8>` parses the
//! bytes where they are: the payloads are borrowed from the source, the reader allocates
//! nothing, and the source is left exactly after the last frame handed out. Everything else
//! about the reader (its results, errors and offsets) is the contract every reader keeps
//! (`readers.rs`); the cheaper cases of it run here as well, so that Miri, which runs this
//! file (`.ci/run`), checks the in-place reads through every path.

use flatstream_core::{DefaultDeframer, StreamReader};
use flatstream_test_support::contract;
use flatstream_test_support::drivers::{
    InPlaceCursor, InPlaceCursorVec, InPlaceCursorVecRef, InPlaceSlice,
};
use flatstream_test_support::stream;
use std::io::Cursor;

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

/// The contract's cases that read few frames, over each in-place source.
macro_rules! cheap_cases {
    ($($driver:ident),*) => {
        #[test]
        fn errors_stops_and_ends_in_place() {
            $(
                contract::content_errors_skip_the_frame::<$driver>();
                contract::checksum_mismatch_stays_at_the_frame::<$driver>();
                contract::callback_errors_carry_the_frame_offset::<$driver>();
                contract::stops_and_resumes::<$driver>();
            )*
            contract::truncation_at_every_offset::<InPlaceSlice>();
        }
    };
}

cheap_cases!(
    InPlaceSlice,
    InPlaceCursor,
    InPlaceCursorVec,
    InPlaceCursorVecRef
);
