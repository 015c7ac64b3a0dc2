//! The reader contract: what every reader of flatstream does, written once as cases generic
//! over a [`Driver`], the thing that opens one kind of reader over bytes.
//!
//! ```text
//!   a case: round trips, truncation, hostile lengths, faults, errors, stop and resume
//!      |  builds an Input: the bytes, a buffer capacity, a bound, the source's faults
//!      v
//!   Driver::open(&input, deframer) -> Box<dyn Subject>    StreamReader (copying, in place),
//!      |                                                   BufReadStreamReader, Frames, ...
//!      v
//!   Subject: read_message, process_all, position          any MessageReader is one
//! ```
//!
//! A case sees only a [`Subject`]: the next message, every message through a callback that
//! may stop, and the position. It never builds a `Read` or a `BufRead`; the driver turns the
//! [`Input`] into a source of its kind. A driver whose reader does no I/O (`Frames`, a reader
//! in place over a slice) says so with [`Driver::HAS_IO`], and the cases of pieces and faults
//! pass it by. An async reader fits the same mould: its driver builds an async source that
//! follows the input's [`Faults`], and returns a `Subject` that blocks on it.
//!
//! [`reader_contract!`](crate::reader_contract) writes one test per case for each driver:
//!
//! ```
//! use flatstream_test_support::drivers::{Copying, SliceFrames};
//!
//! flatstream_test_support::reader_contract! {
//!     copying: Copying,
//!     frames: SliceFrames,
//! }
//! ```
//!
//! The hostile-length case measures allocations: the test binary must install
//! [`CountingAlloc`](crate::alloc::CountingAlloc) as its global allocator.
//!
//! Not every reader is a `MessageReader`: iterators are read by a loop, `ParallelFrames` in one
//! call, `Salvage` and `Recover` report what they found. The points of the contract that every
//! reader keeps, each kind in its own way, are functions over a list of [`Reading`]s, one
//! function per point and one test each: [`after_a_framing_error`] (the one test of what follows
//! a framing error, for all readers), [`payloads_equal_what_was_written`],
//! [`a_rejected_frame_is_skipped`] and [`a_hostile_length_is_rejected_before_allocating`]. A
//! driver is one [`Reading`] ([`Reading::driver`]).

mod cases;
mod io;
mod readings;

pub use cases::*;
pub use io::*;
pub use readings::*;

use crate::checksums::Fletcher32;
use crate::faults::Faults;
use flatstream_core::{ChecksumDeframer, ChecksumFramer, Deframer, MessageReader, Result};
use std::ops::ControlFlow;

/// The callback a case hands to [`Subject::process_all`].
pub type Callback<'f> = &'f mut dyn FnMut(&[u8]) -> Result<ControlFlow<()>>;

/// The reader under test, as the cases see it: [`MessageReader`]'s surface, object-safe, with
/// the reader's own `process_all` (not the provided loop).
pub trait Subject {
    /// The next payload, or `None` at a clean end of the stream.
    fn read_message(&mut self) -> Result<Option<&[u8]>>;
    /// Calls `f` with each payload until the end, an error, or `f` asks to stop.
    fn process_all(&mut self, f: Callback<'_>) -> Result<()>;
    /// Stream offset of the next frame.
    fn position(&self) -> u64;
}

impl<M: MessageReader> Subject for M {
    fn read_message(&mut self) -> Result<Option<&[u8]>> {
        MessageReader::read_message(self)
    }
    fn process_all(&mut self, f: Callback<'_>) -> Result<()> {
        MessageReader::process_all(self, f)
    }
    fn position(&self) -> u64 {
        MessageReader::position(self)
    }
}

/// `process_all` as [`MessageReader`]'s provided loop runs it, for a subject without a loop
/// of its own: `read_message` per frame, a callback error stamped with the frame's offset.
pub fn process_each<S: Subject + ?Sized>(subject: &mut S, f: Callback<'_>) -> Result<()> {
    loop {
        let at = subject.position();
        let Some(payload) = subject.read_message()? else {
            return Ok(());
        };
        match f(payload) {
            Ok(flow) if flow.is_break() => return Ok(()),
            Ok(_) => {}
            Err(e) => return Err(e.at_frame(at)),
        }
    }
}

/// What a case asks a driver to read.
#[derive(Debug, Clone, Default)]
pub struct Input {
    /// The stream.
    pub bytes: Vec<u8>,
    /// The buffer capacity to set: the reader's own buffer, or its source's (a `BufReader`).
    /// `None`: the reader's default. Only given to drivers with a [`Driver::MIN_CAPACITY`].
    pub capacity: Option<usize>,
    /// The largest payload to accept. `None`: the reader's default (2 GiB).
    pub max_frame_len: Option<usize>,
    /// How the source hands the bytes over: in pieces, and failing on purpose. `None`: all at
    /// once, without fail. Only given to drivers with [`Driver::HAS_IO`].
    pub faults: Option<Faults>,
}

impl Input {
    /// `bytes`, with every setting at its default.
    pub fn new(bytes: Vec<u8>) -> Self {
        Input {
            bytes,
            ..Input::default()
        }
    }

    /// Sets [`capacity`](Self::capacity).
    pub fn with_capacity(mut self, capacity: Option<usize>) -> Self {
        self.capacity = capacity;
        self
    }

    /// Sets [`max_frame_len`](Self::max_frame_len).
    pub fn with_max_frame_len(mut self, max: Option<usize>) -> Self {
        self.max_frame_len = max;
        self
    }

    /// Sets [`faults`](Self::faults).
    pub fn with_faults(mut self, faults: Option<Faults>) -> Self {
        self.faults = faults;
        self
    }
}

/// Opens one kind of reader over an [`Input`].
pub trait Driver {
    /// Names the reader in failure messages.
    const NAME: &'static str;
    /// Whether the reader pulls its bytes from a source that does I/O: one that can hand them
    /// over in pieces and fail ([`Input::faults`]).
    const HAS_IO: bool;
    /// The smallest buffer capacity the reader (or its source) takes, if it has one to set
    /// ([`Input::capacity`]).
    const MIN_CAPACITY: Option<usize>;
    /// Whether the reader waits for the rest of a frame cut short by the end of the data (the
    /// `Follower`: the writer may not have written it all yet) instead of reporting
    /// [`Error::UnexpectedEof`](flatstream_core::Error::UnexpectedEof): its read ends there as
    /// at a frame boundary, at the frame's start. The cases of truncation and hostile lengths
    /// assert that instead.
    const CUT_FRAME_WAITS: bool = false;

    /// A reader of `input` with `deframer`, its bound, capacity and faults as `input` says.
    fn open<'a, D: Deframer + 'a>(input: &'a Input, deframer: D) -> Box<dyn Subject + 'a>;
}

/// Writes one `#[test]` per case of the [contract](crate::contract) for each driver, in a
/// module of its own: `reader_contract! { module: DriverType, ... }`. The driver types are
/// those of the calling module.
///
/// The cases of pieces and faults return at once for a driver without I/O.
#[macro_export]
macro_rules! reader_contract {
    ($($module:ident: $driver:ty),* $(,)?) => {$(
        mod $module {
            #[allow(unused_imports)]
            use super::*;
            $crate::reader_contract!(@cases $driver;
                round_trips,
                round_trips_random,
                positions_follow_the_frames,
                truncation_at_every_offset,
                hostile_lengths,
                interrupted_is_retried,
                io_errors_keep_the_bytes_received,
                content_errors_skip_the_frame,
                checksum_mismatch_stays_at_the_frame,
                stops_and_resumes,
                callback_errors_carry_the_frame_offset,
                agrees_with_frames,
            );
        }
    )*};
    (@cases $driver:ty; $($case:ident,)*) => {$(
        #[test]
        fn $case() {
            $crate::contract::$case::<$driver>();
        }
    )*};
}

/// Writes one `#[test]` per point of the contract that every reader keeps
/// ([`after_a_framing_error`] and the others over a list of [`Reading`]s), each over the list
/// `$readings` evaluates to: `readings_contract!(readings())`.
#[macro_export]
macro_rules! readings_contract {
    ($readings:expr) => {
        $crate::readings_contract!(@tests $readings;
            after_a_framing_error,
            payloads_equal_what_was_written,
            a_rejected_frame_is_skipped,
            a_hostile_length_is_rejected_before_allocating,
        );
    };
    (@tests $readings:expr; $($point:ident,)*) => {$(
        #[test]
        fn $point() {
            $crate::contract::$point(&$readings);
        }
    )*};
}

/// Payloads of awkward sizes: short, empty, longer than small buffers.
fn sample() -> Vec<Vec<u8>> {
    vec![b"first".to_vec(), vec![], vec![0xAB; 70], b"last!".to_vec()]
}

/// 40 payloads of 0 to 96 bytes.
fn varied() -> Vec<Vec<u8>> {
    (0..40u8)
        .map(|i| vec![i; usize::from(i) * 7 % 97])
        .collect()
}

/// The checksummed framing the cases use besides the plain one.
fn summed() -> (ChecksumFramer<Fletcher32>, ChecksumDeframer<Fletcher32>) {
    (
        ChecksumFramer::new(Fletcher32),
        ChecksumDeframer::new(Fletcher32),
    )
}

/// Every capacity the driver takes from its smallest to `up_to`, then a large one; a single
/// run with the default for a driver without one.
fn every_capacity<T: Driver>(up_to: usize) -> Vec<Option<usize>> {
    match T::MIN_CAPACITY {
        None => vec![None],
        Some(min) => (min..=up_to).chain([4096]).map(Some).collect(),
    }
}

/// A few capacities: the smallest the driver takes, small ones that split frames, a large one.
fn some_capacities<T: Driver>() -> Vec<Option<usize>> {
    match T::MIN_CAPACITY {
        None => vec![None],
        Some(min) => {
            let mut all: Vec<usize> = [min, 5, 16, 64, 4096]
                .into_iter()
                .filter(|&c| c >= min)
                .collect();
            all.sort_unstable();
            all.dedup();
            all.into_iter().map(Some).collect()
        }
    }
}

/// How the source hands the bytes over: all at once, and, for a driver with I/O, `chunk`
/// bytes at a time for each of `chunks`.
fn pieces<T: Driver>(chunks: &[usize]) -> Vec<Option<Faults>> {
    let mut all = vec![None];
    if T::HAS_IO {
        all.extend(chunks.iter().map(|&c| Some(Faults::new().chunk(c))));
    }
    all
}

/// Where each frame of `payloads` starts, with a header of `header` bytes, and where the last
/// one ends.
fn starts(payloads: &[Vec<u8>], header: usize) -> Vec<u64> {
    let mut at = 0;
    let mut starts = vec![0];
    for p in payloads {
        at += (header + p.len()) as u64;
        starts.push(at);
    }
    starts
}

/// What a reading gave: the payloads, and the error that ended it, if any.
type Read = (Vec<Vec<u8>>, Option<flatstream_core::Error>);

/// Reads with `read_message` until the end of the stream or the first error.
fn read_to_end(r: &mut dyn Subject) -> Read {
    let mut got = Vec::new();
    loop {
        match r.read_message() {
            Ok(Some(p)) => got.push(p.to_vec()),
            Ok(None) => return (got, None),
            Err(e) => return (got, Some(e)),
        }
    }
}

/// The payloads of a reading that must have ended cleanly.
fn clean((payloads, error): Read, what: &str) -> Vec<Vec<u8>> {
    if let Some(e) = error {
        panic!("{what}: {e}");
    }
    payloads
}

/// Reads with one call to `process_all`, to the end of the stream or the first error.
fn process_to_end(r: &mut dyn Subject) -> Read {
    let mut got = Vec::new();
    let result = r.process_all(&mut |p| {
        got.push(p.to_vec());
        Ok(ControlFlow::Continue(()))
    });
    (got, result.err())
}

/// Reads `first` payloads with `read_message`, then the rest with `process_all`, stopping
/// after every `stride` payloads and starting again.
fn read_in_turns(r: &mut dyn Subject, first: usize, stride: usize) -> Result<Vec<Vec<u8>>> {
    let mut out = Vec::new();
    for _ in 0..first {
        match r.read_message()? {
            Some(p) => out.push(p.to_vec()),
            None => return Ok(out),
        }
    }
    loop {
        let before = out.len();
        r.process_all(&mut |p| {
            out.push(p.to_vec());
            Ok(crate::stop_if(out.len() - before == stride))
        })?;
        if out.len() - before < stride {
            return Ok(out);
        }
    }
}
