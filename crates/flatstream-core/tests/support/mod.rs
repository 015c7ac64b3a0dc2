//! Test sources and helpers shared by the core's integration tests.

#![allow(dead_code, unreachable_pub)]

use flatstream_core::{Checksum, DefaultFramer, Framer, StreamWriter};
use std::collections::VecDeque;
use std::io::{self, Read};

/// A weak 4-byte checksum, enough to exercise the checksummed paths of the core (the real
/// algorithms live in flatstream-checksum and are tested there).
#[derive(Debug, Clone, Copy, Default)]
pub struct Fletcher32;

impl Checksum for Fletcher32 {
    fn size(&self) -> usize {
        4
    }
    fn calculate(&self, payload: &[u8]) -> u64 {
        let (mut a, mut b) = (1u64, 0u64);
        for &byte in payload {
            a = (a + u64::from(byte)) % 65_521;
            b = (b + a) % 65_521;
        }
        (b << 16) | a
    }
}

/// Writes `payloads` with `framer` and returns the stream.
pub fn stream_with<F: Framer>(framer: F, payloads: &[Vec<u8>]) -> Vec<u8> {
    let mut w = StreamWriter::new(Vec::new(), framer);
    for p in payloads {
        w.write_payload(p).unwrap();
    }
    w.into_inner()
}

/// Writes `payloads` with the default framer and returns the stream.
pub fn stream(payloads: &[Vec<u8>]) -> Vec<u8> {
    stream_with(DefaultFramer, payloads)
}

/// What a scripted source does on one call to `read`.
#[derive(Debug, Clone)]
pub enum Step {
    /// Return up to this many bytes of the data.
    Bytes(usize),
    /// Fail with this kind.
    Fail(io::ErrorKind),
}

/// A source that follows a script of reads and failures, then returns the rest of its data in
/// chunks of `tail_chunk` bytes.
pub struct Scripted {
    data: Vec<u8>,
    pos: usize,
    script: VecDeque<Step>,
    tail_chunk: usize,
}

impl Scripted {
    pub fn new(data: Vec<u8>, script: impl IntoIterator<Item = Step>, tail_chunk: usize) -> Self {
        Scripted {
            data,
            pos: 0,
            script: script.into_iter().collect(),
            tail_chunk,
        }
    }

    /// A source that returns at most `chunk` bytes per read.
    pub fn chunked(data: Vec<u8>, chunk: usize) -> Self {
        Self::new(data, [], chunk)
    }
}

impl Read for Scripted {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = match self.script.pop_front() {
            Some(Step::Fail(kind)) => return Err(io::Error::new(kind, "scripted failure")),
            Some(Step::Bytes(n)) => n,
            None => self.tail_chunk,
        };
        let n = n.min(buf.len()).min(self.data.len() - self.pos);
        buf[..n].copy_from_slice(&self.data[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

/// Bytes in memory behind a `Read` that `StreamReader` does not recognize as in memory, so
/// that it copies them through its own buffer: the path every other source (a file, a socket)
/// takes. `&[u8]` and `Cursor` themselves are parsed in place.
pub struct Opaque<R>(pub R);

impl<R: Read> Read for Opaque<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.read(buf)
    }
}
