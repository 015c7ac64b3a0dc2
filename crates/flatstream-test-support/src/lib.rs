//! What flatstream's tests (and benchmarks) share, in one place: unpublished.
//!
//! | module | what |
//! |---|---|
//! | [`contract`] | the one reader contract, generic over a [`contract::Driver`] |
//! | [`drivers`] | a driver of the contract for each reader of the core and kind of source |
//! | [`faults`] | a `Read` source and a `Write` sink that misbehave on purpose |
//! | [`checksums`] | toy checksums for the checksummed paths |
//! | [`alloc`] | a counting global allocator (the crate's one module of its own with `unsafe`; flatc's generated code has its accessors') |
//! | [`telemetry`] | the telemetry FlatBuffer of the examples, and `Reading` |
//! | [`fleet`], [`shapes`] | flatc's code for the other schemas of the examples (`fleet.fbs`, `shapes.fbs`) |
//! | [`fleet_build`] | the fleet schema's small tables, each built in one call |
//! | [`child`] | the test binary run again as a second process (a writer to kill or follow) |
//! | [`hostile`] | hostile binary schemas and payloads, built byte by byte where flatc would refuse |
//!
//! and, at the root, [`Opaque`] (bytes the reader copies) and the stream builders
//! [`stream`] and [`stream_with`].
//!
//! The crates of the workspace use it from their integration tests (`tests/*.rs`) only: it
//! depends on `flatstream-core`, and Cargo accepts that cycle for integration tests, which link
//! the library as built for everyone, but not for the unit tests in `src/`.

pub mod alloc;
pub mod checksums;
pub mod child;
pub mod contract;
pub mod drivers;
pub mod faults;
pub mod fleet_build;
mod generated;
pub mod hostile;
pub mod telemetry;

pub use generated::{fleet, shapes};

use flatstream_core::{DefaultFramer, Framer, StreamWriter};
use std::io::{self, Read};
use std::ops::ControlFlow;

/// Bytes in memory behind a `Read` that `StreamReader` does not recognize as in memory (it
/// parses `&[u8]` and `Cursor`s in place), so that it copies them through its own buffer: the
/// path every other source (a file, a socket) takes.
#[derive(Debug, Clone)]
pub struct Opaque<R>(pub R);

impl<R: Read> Read for Opaque<R> {
    #[inline]
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.read(buf)
    }
}

/// What a `process_all` callback returns to stop once `done`, and to go on before:
/// `ControlFlow::Break(())` or `ControlFlow::Continue(())`.
pub fn stop_if(done: bool) -> ControlFlow<()> {
    if done {
        ControlFlow::Break(())
    } else {
        ControlFlow::Continue(())
    }
}

/// Writes `payloads` with `framer` and returns the stream.
pub fn stream_with<F: Framer, P: AsRef<[u8]>>(framer: F, payloads: &[P]) -> Vec<u8> {
    let mut w = StreamWriter::new(Vec::new(), framer);
    for p in payloads {
        w.write_payload(p.as_ref()).expect("write to a Vec");
    }
    w.into_inner()
}

/// Writes `payloads` with the default framer and returns the stream.
pub fn stream<P: AsRef<[u8]>>(payloads: &[P]) -> Vec<u8> {
    stream_with(DefaultFramer, payloads)
}
