//! The cases of a source that does I/O: bytes handed over in pieces, `Interrupted`,
//! `WouldBlock` and other errors at every offset. A driver without I/O passes them by.

use super::{
    Driver, Input, Read, Subject, clean, process_to_end, read_to_end, sample, starts, summed,
};
use crate::faults::Faults;
use crate::{stream, stream_with};
use flatstream_core::{DefaultDeframer, Deframer, Error};
use std::io::ErrorKind;

/// `Interrupted` is retried inside the reader, wherever it falls: the caller never sees it.
pub fn interrupted_is_retried<T: Driver>() {
    if !T::HAS_IO {
        return;
    }
    let msgs = sample();
    let (framer, deframer) = summed();
    for chunk in [1, 5, usize::MAX] {
        for n in [2, 3] {
            let faults = Faults::new().chunk(chunk).every(n, ErrorKind::Interrupted);
            let what = format!("{}: {faults:?}", T::NAME);
            let input = |bytes| {
                Input::new(bytes)
                    .with_capacity(T::MIN_CAPACITY)
                    .with_faults(Some(faults.clone()))
            };
            let plain = input(stream(&msgs));
            let checked = input(stream_with(framer, &msgs));
            for method in [read_to_end, process_to_end] {
                let read = method(&mut *T::open(&plain, DefaultDeframer));
                assert_eq!(clean(read, &what), msgs, "{what}");
                let read = method(&mut *T::open(&checked, deframer));
                assert_eq!(clean(read, &what), msgs, "{what}");
            }
        }
    }
}

/// An I/O error (`WouldBlock` or any other) at any byte offset, mid-header or mid-payload, is
/// returned once as `Error::Io`, at the offset of the frame whose bytes were due, which is the
/// reader's position; every byte received is kept, and the next call carries on.
pub fn io_errors_keep_the_bytes_received<T: Driver>() {
    if !T::HAS_IO {
        return;
    }
    let msgs = sample();
    let (framer, deframer) = summed();
    fail_everywhere::<T, _>(&stream(&msgs), &msgs, DefaultDeframer, 4);
    fail_everywhere::<T, _>(&stream_with(framer, &msgs), &msgs, deframer, 8);
}

/// Reads everything, retrying after each I/O error, which must be of `kind` and name the
/// reader's position; returns the payloads and the offsets the errors named.
fn read_through(
    r: &mut dyn Subject,
    method: fn(&mut dyn Subject) -> Read,
    kind: ErrorKind,
    what: &str,
) -> (Vec<Vec<u8>>, Vec<u64>) {
    let mut got = Vec::new();
    let mut errors = Vec::new();
    loop {
        let (more, error) = method(r);
        got.extend(more);
        match error {
            None => return (got, errors),
            Some(Error::Io { source, offset }) => {
                assert_eq!(source.kind(), kind, "{what}");
                assert_eq!(offset, r.position(), "{what}");
                errors.push(offset);
                assert!(errors.len() < 10_000, "{what}: no progress");
            }
            Some(e) => panic!("{what}: {e}"),
        }
    }
}

/// Fails the source of `bytes` once at each offset, then often in one run.
fn fail_everywhere<T: Driver, D: Deframer + Copy>(
    bytes: &[u8],
    msgs: &[Vec<u8>],
    deframer: D,
    header: usize,
) {
    let starts = starts(msgs, header);
    for at in 0..bytes.len() as u64 {
        let frame_start = *starts.iter().rfind(|&&s| s <= at).unwrap();
        for kind in [ErrorKind::WouldBlock, ErrorKind::ConnectionReset] {
            for chunk in [5, usize::MAX] {
                let faults = Faults::new().chunk(chunk).fail_at(at, kind);
                let what = format!("{}: {kind:?} at {at}, chunk {chunk}", T::NAME);
                let input = Input::new(bytes.to_vec())
                    .with_capacity(T::MIN_CAPACITY)
                    .with_faults(Some(faults));
                for method in [read_to_end, process_to_end] {
                    let r = &mut *T::open(&input, deframer);
                    let (got, errors) = read_through(r, method, kind, &what);
                    assert_eq!(got, msgs, "{what}");
                    // Once, against the frame whose bytes were due.
                    assert_eq!(errors, [frame_start], "{what}");
                }
            }
        }
    }
    // One byte at a time, `Interrupted` every other read and `WouldBlock` every third.
    let faults = Faults::new()
        .chunk(1)
        .every(2, ErrorKind::Interrupted)
        .every(3, ErrorKind::WouldBlock);
    let input = Input::new(bytes.to_vec())
        .with_capacity(T::MIN_CAPACITY)
        .with_faults(Some(faults));
    let what = format!("{}: one byte at a time, blocking every third read", T::NAME);
    for method in [read_to_end, process_to_end] {
        let r = &mut *T::open(&input, deframer);
        let (got, errors) = read_through(r, method, ErrorKind::WouldBlock, &what);
        assert_eq!(got, msgs, "{what}");
        assert!(
            errors.len() >= bytes.len() / 6,
            "{what}: {} blocks",
            errors.len()
        );
    }
}
