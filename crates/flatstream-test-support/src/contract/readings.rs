//! The contract over every reader a user can construct, each read as its kind is read: the
//! readers with a method that returns the next payload, the iterators, the follower, the call
//! that reads it all (`ParallelFrames`), salvage and recovery. [`Reading`] opens one of them
//! over an [`Input`], framed with [`Checked`]; each function here runs one point of the
//! contract against a list of them, and states how each kind keeps it:
//!
//! | kind | after a framing error | a rejected frame |
//! |---|---|---|
//! | [`Opened::Method`] | returned again; the reader stays at the frame | skipped |
//! | [`Opened::Waits`] (`Follower`) | as a method; a frame cut short is waited for | skipped |
//! | [`Opened::Loop`] (iterators) | yielded once, then the end | skipped |
//! | [`Opened::Framed`] (tokio-util's `FramedRead`) | yielded once, then the end | yielded once, then the end |
//! | [`Opened::Call`] (`ParallelFrames`) | the first in stream order, each call | the first error in stream order |
//! | [`Opened::Salvage`] | skipped: every intact frame after it is kept | reported, skipped |
//! | [`Opened::Recover`] | the end of the intact prefix, and why | counted |

use super::{Input, Subject, read_to_end, starts};
use crate::checksums::Fletcher32;
use crate::stream_with;
use flatstream_core::{
    ChecksumDeframer, ChecksumFramer, Deframer, Error, Frames, Recovery, Result, Salvaged,
    StreamEnd,
};

/// How many items a loop over an iterator takes at most: an iterator that spins on an error
/// is caught there.
pub const LOOP_LIMIT: usize = 1000;

/// The framing of the streams read here: a Fletcher-32 checksum, and payloads that start with
/// 0xFF rejected for their content, as a validating deframer rejects them.
#[derive(Debug, Clone, Copy)]
pub struct Checked;

impl Deframer for Checked {
    fn checksum_size(&self) -> usize {
        4
    }
    fn verify(&self, checksum: &[u8], payload: &[u8], offset: u64) -> Result<()> {
        ChecksumDeframer::new(Fletcher32).verify(checksum, payload, offset)?;
        match payload.first() {
            Some(0xFF) => Err(Error::validation("reject-ff", "starts with 0xFF", offset)),
            _ => Ok(()),
        }
    }
}

/// What one call that reads everything gave: the payloads it handed out, sorted, and its
/// result.
pub type Called = (Vec<Vec<u8>>, Result<()>);

/// A reader opened over an input, as its kind is read.
pub enum Opened<'a> {
    /// A method that returns the next payload (`read_message`, `FrameAt` at the next offset).
    Method(Box<dyn Subject + 'a>),
    /// A method that waits for the rest of a frame cut short (`Follower::next`): its read ends
    /// there, as at a frame boundary.
    Waits(Box<dyn Subject + 'a>),
    /// An iterator, lending or not: what a loop that logs each error and goes on saw, at most
    /// [`LOOP_LIMIT`] items ([`looped`]).
    Loop(Vec<Result<Vec<u8>>>),
    /// tokio-util's `FramedRead` over `FrameCodec`, read as [`Loop`](Self::Loop): an iterator,
    /// except that any error of its decoder ends it, a content rejection too (tokio-util's
    /// rule for every codec).
    Framed(Vec<Result<Vec<u8>>>),
    /// A call that reads everything (`ParallelFrames`): the payloads it handed out, sorted, and
    /// its result. Called once per reading, and again to see it answers the same.
    Call(Box<dyn FnMut() -> Called + 'a>),
    /// What `Salvage` yielded.
    Salvage(Vec<Salvaged<'a>>),
    /// What a `Recover` scan found.
    Recover(Recovery),
}

/// One reader a user can construct: its name, and how to open it over an [`Input`] (its
/// bytes and bound; framed with [`Checked`]).
#[derive(Clone, Copy)]
pub struct Reading {
    /// Names the reader in failure messages.
    pub name: &'static str,
    /// Opens the reader.
    pub open: for<'a> fn(&'a Input) -> Opened<'a>,
}

impl Reading {
    /// The reader a contract [`Driver`](super::Driver) opens, read with `read_message`.
    pub fn driver<T: super::Driver>() -> Reading {
        fn open<T: super::Driver>(input: &Input) -> Opened<'_> {
            let reader = T::open(input, Checked);
            if T::CUT_FRAME_WAITS {
                Opened::Waits(reader)
            } else {
                Opened::Method(reader)
            }
        }
        Reading {
            name: T::NAME,
            open: open::<T>,
        }
    }
}

/// What a loop that logs each error and goes on sees of `items`: at most [`LOOP_LIMIT`].
pub fn looped<P: AsRef<[u8]>>(items: impl IntoIterator<Item = Result<P>>) -> Vec<Result<Vec<u8>>> {
    items
        .into_iter()
        .take(LOOP_LIMIT)
        .map(|item| item.map(|p| p.as_ref().to_vec()))
        .collect()
}

/// The payloads these readings read, and their framing.
fn written() -> Vec<Vec<u8>> {
    [&b"one"[..], b"three", b"", &[7; 40], b"five"]
        .map(<[u8]>::to_vec)
        .to_vec()
}

/// The bound the readings are given.
const MAX: usize = 64;

/// What the slice iterator `Frames` reads of `bytes`, with the bound [`MAX`]: the payloads
/// before the first error, and that error.
fn reference(bytes: &[u8]) -> (Vec<Vec<u8>>, Option<Error>) {
    let mut payloads = Vec::new();
    for item in Frames::new(bytes, Checked).with_max_frame_len(MAX) {
        match item {
            Ok(p) => payloads.push(p.to_vec()),
            Err(e) => return (payloads, Some(e)),
        }
    }
    (payloads, None)
}

/// The payloads of salvaged items.
fn salvaged_payloads(items: &[Salvaged<'_>]) -> Vec<Vec<u8>> {
    items
        .iter()
        .filter_map(|item| match item {
            Salvaged::Frame { payload, .. } => Some(payload.to_vec()),
            _ => None,
        })
        .collect()
}

fn sorted(mut payloads: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
    payloads.sort();
    payloads
}

/// After a framing error (a checksum that does not match, a length over the bound, a frame cut
/// short by the end of the data, at every offset of the second frame), each reader does what
/// its kind does, the one behaviour for all readers of a kind:
///
/// * a method returns the same error again, and again, and stays at the frame;
/// * a method that waits (`Follower`) does so too, except for a frame cut short: its read
///   ends there, at the frame's start, and ends there again;
/// * an iterator yields the error once, then ends (a loop that logs and goes on cannot spin);
/// * a call that reads everything returns the first error in stream order, each time, after
///   handing out the frames before it;
/// * salvage yields no error: it skips the damage and keeps every intact frame after it;
/// * recovery reports the intact prefix, where it ends, and why (a torn tail for a frame cut
///   short, else the error).
///
/// Every reading hands out the frames before the damage first, as `Frames` does.
pub fn after_a_framing_error(readings: &[Reading]) {
    let msgs = written();
    let bytes = stream_with(ChecksumFramer::new(Fletcher32), &msgs);
    let starts = starts(&msgs, 8);
    let (second, third) = (starts[1] as usize, starts[2] as usize);
    let mut damaged = Vec::new();
    // A bit flipped in the checksum field, and in the payload.
    for at in [second + 4, second + 9] {
        let mut b = bytes.clone();
        b[at] ^= 0x10;
        damaged.push((format!("byte {at} flipped"), b, true));
    }
    let mut b = bytes.clone();
    b[second..second + 4].copy_from_slice(&(MAX as u32 + 1).to_le_bytes());
    damaged.push(("a length over the bound".to_owned(), b, true));
    for cut in second + 1..third {
        damaged.push((format!("cut at {cut}"), bytes[..cut].to_vec(), false));
    }

    for (damage, bytes, frames_follow) in &damaged {
        let (prefix, error) = reference(bytes);
        let error = error.expect("the damage is a framing error");
        assert!(error.is_framing_error(), "{damage}: {error}");
        let cut_short = matches!(error, Error::UnexpectedEof { .. });
        let shown = error.to_string();
        let at = error.offset();
        let input = Input::new(bytes.clone()).with_max_frame_len(Some(MAX));
        for reading in readings {
            let what = format!("{}: {damage}", reading.name);
            match (reading.open)(&input) {
                Opened::Method(mut r) => repeats(&mut *r, &prefix, &shown, at, &what),
                Opened::Waits(mut r) if cut_short => {
                    let (got, e) = read_to_end(&mut *r);
                    assert_eq!(
                        (got, e.map(|e| e.to_string())),
                        (prefix.clone(), None),
                        "{what}"
                    );
                    assert_eq!(r.read_message().unwrap(), None, "{what}: waits again");
                    assert_eq!(r.position(), at, "{what}");
                }
                Opened::Waits(mut r) => repeats(&mut *r, &prefix, &shown, at, &what),
                Opened::Loop(items) | Opened::Framed(items) => {
                    assert!(
                        items.len() < LOOP_LIMIT,
                        "{what}: the loop spins on the error"
                    );
                    let (last, before) = items.split_last().expect("an item");
                    let before: Vec<_> = before.iter().map(|i| i.as_ref().ok().cloned()).collect();
                    let prefix_items: Vec<_> = prefix.iter().cloned().map(Some).collect();
                    assert_eq!(before, prefix_items, "{what}: the frames before it");
                    let last = last.as_ref().map_err(Error::to_string);
                    assert_eq!(
                        last.err().as_deref(),
                        Some(&*shown),
                        "{what}: once, then the end"
                    );
                }
                Opened::Call(mut call) => {
                    for time in ["first", "second"] {
                        let (got, result) = call();
                        assert_eq!(got, sorted(prefix.clone()), "{what}: {time} call");
                        let e = result.expect_err(&what).to_string();
                        assert_eq!(e, shown, "{what}: {time} call");
                    }
                }
                Opened::Salvage(items) => {
                    let mut expected = prefix.clone();
                    if *frames_follow {
                        expected.extend(msgs[prefix.len() + 1..].iter().cloned());
                    }
                    assert_eq!(salvaged_payloads(&items), expected, "{what}");
                    let skipped = items.iter().find_map(|item| match item {
                        Salvaged::Skipped { start, .. } => Some(*start),
                        _ => None,
                    });
                    assert_eq!(skipped, Some(at), "{what}: the damage is skipped");
                }
                Opened::Recover(recovery) => {
                    assert_eq!(recovery.frames, prefix.len() as u64, "{what}");
                    assert_eq!(recovery.valid_len, at, "{what}");
                    match (&recovery.end, &error) {
                        (
                            StreamEnd::TornTail { needed, present },
                            Error::UnexpectedEof {
                                needed: n,
                                present: p,
                                ..
                            },
                        ) => assert_eq!((needed, present), (n, p), "{what}"),
                        (StreamEnd::Corrupt(e), _) => assert_eq!(e.to_string(), shown, "{what}"),
                        (end, _) => panic!("{what}: {end:?}, expected {shown}"),
                    }
                }
            }
        }
    }
}

/// A method after a framing error: the frames before it, then the error, again and again, the
/// reader at the frame.
fn repeats(r: &mut dyn Subject, prefix: &[Vec<u8>], shown: &str, at: u64, what: &str) {
    let (got, e) = read_to_end(r);
    assert_eq!(got, prefix, "{what}");
    assert_eq!(e.map(|e| e.to_string()).as_deref(), Some(shown), "{what}");
    for again in 0..2 {
        let e = r.read_message().err().map(|e| e.to_string());
        assert_eq!(e.as_deref(), Some(shown), "{what}: asked again ({again})");
        assert_eq!(r.position(), at, "{what}: stays at the frame");
    }
}

/// Every payload comes back as written, empty ones too, and the read ends cleanly: salvage
/// skips nothing, recovery finds the stream clean.
pub fn payloads_equal_what_was_written(readings: &[Reading]) {
    let msgs = written();
    let bytes = stream_with(ChecksumFramer::new(Fletcher32), &msgs);
    let input = Input::new(bytes.clone()).with_max_frame_len(Some(MAX));
    for reading in readings {
        let what = reading.name;
        match (reading.open)(&input) {
            Opened::Method(mut r) | Opened::Waits(mut r) => {
                let (got, e) = read_to_end(&mut *r);
                assert_eq!(
                    (got, e.map(|e| e.to_string())),
                    (msgs.clone(), None),
                    "{what}"
                );
                assert_eq!(
                    r.read_message().unwrap(),
                    None,
                    "{what}: the end stays the end"
                );
                assert_eq!(r.position(), bytes.len() as u64, "{what}");
            }
            Opened::Loop(items) | Opened::Framed(items) => {
                let got: Result<Vec<_>> = items.into_iter().collect();
                assert_eq!(got.unwrap(), msgs, "{what}");
            }
            Opened::Call(mut call) => {
                let (got, result) = call();
                result.unwrap();
                assert_eq!(got, sorted(msgs.clone()), "{what}");
            }
            Opened::Salvage(items) => {
                assert_eq!(salvaged_payloads(&items), msgs, "{what}");
                assert_eq!(items.len(), msgs.len(), "{what}: nothing skipped");
            }
            Opened::Recover(recovery) => {
                assert!(recovery.is_clean(), "{what}: {recovery:?}");
                assert_eq!(recovery.frames, msgs.len() as u64, "{what}");
                assert_eq!(recovery.valid_len, bytes.len() as u64, "{what}");
            }
        }
    }
}

/// A frame rejected for its content (a payload starting with 0xFF) is reported with its offset
/// and skipped: the next frame follows. A call that reads everything stops at it, as at any
/// error (the first in stream order); so does `FramedRead`, which ends at any error; salvage
/// reports it and goes on; recovery counts it among the intact frames.
pub fn a_rejected_frame_is_skipped(readings: &[Reading]) {
    let mut msgs = written();
    msgs[1] = vec![0xFF, 1, 2];
    let bytes = stream_with(ChecksumFramer::new(Fletcher32), &msgs);
    let starts = starts(&msgs, 8);
    let input = Input::new(bytes.clone()).with_max_frame_len(Some(MAX));
    let rejected =
        |e: &Error| matches!(e, Error::Validation { offset, .. } if *offset == starts[1]);
    let mut others = msgs.clone();
    others.remove(1);
    for reading in readings {
        let what = reading.name;
        match (reading.open)(&input) {
            Opened::Method(mut r) | Opened::Waits(mut r) => {
                let (got, e) = read_to_end(&mut *r);
                assert_eq!(got, msgs[..1], "{what}");
                assert!(e.as_ref().is_some_and(rejected), "{what}: {e:?}");
                assert_eq!(r.position(), starts[2], "{what}: past the frame");
                let (got, e) = read_to_end(&mut *r);
                assert_eq!(
                    (got, e.map(|e| e.to_string())),
                    (msgs[2..].to_vec(), None),
                    "{what}"
                );
            }
            Opened::Loop(items) => {
                assert_eq!(items.len(), msgs.len(), "{what}");
                for (i, item) in items.into_iter().enumerate() {
                    match item {
                        Err(e) => assert!(i == 1 && rejected(&e), "{what}: {e}"),
                        Ok(p) => assert_eq!(p, msgs[i], "{what}"),
                    }
                }
            }
            Opened::Framed(items) => {
                let (last, before) = items.split_last().expect("an item");
                assert_eq!(before.len(), 1, "{what}: {items:?}");
                assert_eq!(before[0].as_ref().ok(), Some(&msgs[0]), "{what}");
                assert!(last.as_ref().is_err_and(rejected), "{what}: then the end");
            }
            Opened::Call(mut call) => {
                let (got, result) = call();
                assert_eq!(got, msgs[..1], "{what}");
                assert!(result.as_ref().is_err_and(rejected), "{what}: {result:?}");
            }
            Opened::Salvage(items) => {
                assert_eq!(salvaged_payloads(&items), others, "{what}");
                let reported = items.iter().any(|item| {
                    matches!(item, Salvaged::Rejected { offset, error, .. }
                        if *offset == starts[1] && rejected(error))
                });
                assert!(reported, "{what}: {items:?}");
            }
            Opened::Recover(recovery) => {
                assert!(recovery.is_clean(), "{what}: {recovery:?}");
                assert_eq!(
                    (recovery.frames, recovery.rejected),
                    (msgs.len() as u64, 1),
                    "{what}"
                );
            }
        }
    }
}

/// A header that claims 4 GiB is rejected from its length alone, before anything is allocated
/// for it (nothing near the claim is: the test binary must install
/// [`CountingAlloc`](crate::alloc::CountingAlloc)): `FrameTooLarge` at offset 0 for the readers
/// of every kind but salvage, which skips it, and recovery, which ends there with that error.
pub fn a_hostile_length_is_rejected_before_allocating(readings: &[Reading]) {
    crate::alloc::assert_installed();
    let mut bytes = u32::MAX.to_le_bytes().to_vec();
    bytes.extend(std::iter::repeat_n(0x5A, 1000));
    let input = Input::new(bytes).with_max_frame_len(Some(MAX));
    let too_large = |e: &Error| matches!(e, Error::FrameTooLarge { offset: 0, len: 0xFFFF_FFFF, max } if *max == MAX as u64);
    for reading in readings {
        let what = reading.name;
        let (opened, stats) = crate::alloc::measure(|| match (reading.open)(&input) {
            Opened::Method(mut r) | Opened::Waits(mut r) => {
                let e = r.read_message().err();
                assert!(e.as_ref().is_some_and(too_large), "{what}: {e:?}");
                None
            }
            Opened::Call(mut call) => {
                let (got, result) = call();
                assert!(got.is_empty(), "{what}");
                assert!(result.as_ref().is_err_and(too_large), "{what}: {result:?}");
                None
            }
            other => Some(other),
        });
        // Opening copies the input at most (1 KiB); the claim is 4 GiB.
        assert!(stats.largest < 1 << 20, "{what}: {stats:?}");
        match opened {
            Some(Opened::Loop(items) | Opened::Framed(items)) => {
                assert_eq!(items.len(), 1, "{what}");
                assert!(items[0].as_ref().is_err_and(too_large), "{what}: {items:?}");
            }
            Some(Opened::Salvage(items)) => {
                assert!(salvaged_payloads(&items).is_empty(), "{what}: {items:?}");
            }
            Some(Opened::Recover(recovery)) => {
                assert_eq!((recovery.frames, recovery.valid_len), (0, 0), "{what}");
                assert!(
                    matches!(&recovery.end, StreamEnd::Corrupt(e) if too_large(e)),
                    "{what}: {recovery:?}"
                );
            }
            _ => {}
        }
    }
}
