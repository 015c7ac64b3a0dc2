//! Fault injection for tests: a `Read` source and a `Write` sink that misbehave on purpose.
//!
//! * [`FaultySource`] hands its bytes over at most `chunk` at a time, can answer every `n`-th
//!   call with an error of a chosen kind (`Interrupted`, `WouldBlock`, ...), and can fail once
//!   when it reaches a chosen byte offset: mid-header or mid-payload, as the test picks.
//! * [`FaultySink`] accepts at most `chunk` bytes per call (short writes), can answer every
//!   `n`-th call with an error, can fail once at a chosen offset, and can fill up for good at a
//!   chosen length ("disk full").
//!
//! A read or write never crosses a pending fault's offset, so a fault fires exactly at the byte
//! the test named. Both are deterministic: the same settings give the same calls.
//!
//! ```
//! use flatstream_bench::faults::FaultySource;
//! use std::io::{ErrorKind, Read};
//!
//! let mut source = FaultySource::new(b"abcdef".to_vec()).chunk(2).fail_at(3, ErrorKind::ConnectionReset);
//! let mut buf = [0; 8];
//! assert_eq!(source.read(&mut buf).unwrap(), 2);
//! assert_eq!(source.read(&mut buf).unwrap(), 1); // stops short of the fault at offset 3
//! assert_eq!(source.read(&mut buf).unwrap_err().kind(), ErrorKind::ConnectionReset);
//! assert_eq!(source.read(&mut buf).unwrap(), 2); // the fault fired once; reading goes on
//! ```

use std::io::{self, ErrorKind, Read, Write};

/// Faults shared by source and sink: periodic errors and one-shot errors at offsets.
#[derive(Debug, Clone, Default)]
struct Plan {
    chunk: usize,
    /// `(n, kind)`: every `n`-th call fails with `kind`.
    every: Vec<(usize, ErrorKind)>,
    /// One-shot errors at byte offsets, not yet fired, in no particular order.
    at: Vec<(u64, ErrorKind)>,
    calls: usize,
    /// Calls that returned an error of each periodic rule, for [`FaultySource::faults`].
    fired: usize,
}

impl Plan {
    fn new() -> Self {
        Plan {
            chunk: usize::MAX,
            ..Plan::default()
        }
    }

    /// Decides the next call at stream position `pos`: an error, or how many bytes at most.
    fn next(&mut self, pos: u64) -> Result<usize, ErrorKind> {
        self.calls += 1;
        for &(n, kind) in &self.every {
            if self.calls % n == 0 {
                self.fired += 1;
                return Err(kind);
            }
        }
        if let Some(i) = self.at.iter().position(|&(at, _)| at == pos) {
            self.fired += 1;
            return Err(self.at.swap_remove(i).1);
        }
        // Stop short of the next pending fault.
        let until = self
            .at
            .iter()
            .filter(|&&(at, _)| at > pos)
            .map(|&(at, _)| at - pos)
            .min()
            .map_or(usize::MAX, |d| usize::try_from(d).unwrap_or(usize::MAX));
        Ok(self.chunk.min(until))
    }
}

/// A `Read` source over a byte vector that delivers it in small pieces and fails on purpose.
/// See the [module docs](self).
#[derive(Debug, Clone)]
pub struct FaultySource {
    data: Vec<u8>,
    pos: usize,
    plan: Plan,
}

impl FaultySource {
    /// A source of `data`, with no fault yet.
    pub fn new(data: Vec<u8>) -> Self {
        FaultySource {
            data,
            pos: 0,
            plan: Plan::new(),
        }
    }

    /// Delivers at most `n` bytes per read (at least 1).
    pub fn chunk(mut self, n: usize) -> Self {
        self.plan.chunk = n.max(1);
        self
    }

    /// Fails every `n`-th read (counting all reads, from 1) with `kind`.
    pub fn every(mut self, n: usize, kind: ErrorKind) -> Self {
        self.plan.every.push((n.max(1), kind));
        self
    }

    /// Fails once with `kind` when the next byte to deliver is at `offset`.
    pub fn fail_at(mut self, offset: u64, kind: ErrorKind) -> Self {
        self.plan.at.push((offset, kind));
        self
    }

    /// Bytes delivered so far.
    pub fn position(&self) -> u64 {
        self.pos as u64
    }

    /// Errors returned so far.
    pub fn faults(&self) -> usize {
        self.plan.fired
    }
}

impl Read for FaultySource {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.plan.next(self.pos as u64).map_err(io::Error::from)?;
        let n = n.min(buf.len()).min(self.data.len() - self.pos);
        buf[..n].copy_from_slice(&self.data[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

/// A `Write` sink that accepts short pieces and fails on purpose. See the [module docs](self).
#[derive(Debug, Clone)]
pub struct FaultySink {
    data: Vec<u8>,
    full_at: Option<usize>,
    plan: Plan,
}

impl Default for FaultySink {
    fn default() -> Self {
        Self::new()
    }
}

impl FaultySink {
    /// An empty sink with no fault yet.
    pub fn new() -> Self {
        FaultySink {
            data: Vec::new(),
            full_at: None,
            plan: Plan::new(),
        }
    }

    /// Accepts at most `n` bytes per write (at least 1).
    pub fn chunk(mut self, n: usize) -> Self {
        self.plan.chunk = n.max(1);
        self
    }

    /// Fails every `n`-th write (counting all writes, from 1) with `kind`.
    pub fn every(mut self, n: usize, kind: ErrorKind) -> Self {
        self.plan.every.push((n.max(1), kind));
        self
    }

    /// Fails once with `kind` when the next byte to accept is at `offset`.
    pub fn fail_at(mut self, offset: u64, kind: ErrorKind) -> Self {
        self.plan.at.push((offset, kind));
        self
    }

    /// Holds at most `len` bytes; past that every write fails with `StorageFull`.
    pub fn full_at(mut self, len: usize) -> Self {
        self.full_at = Some(len);
        self
    }

    /// The bytes accepted so far.
    pub fn data(&self) -> &[u8] {
        &self.data
    }

    /// Errors returned so far (periodic and one-shot; not the ones of a full sink).
    pub fn faults(&self) -> usize {
        self.plan.fired
    }

    /// The bytes accepted.
    pub fn into_data(self) -> Vec<u8> {
        self.data
    }
}

impl Write for FaultySink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self
            .plan
            .next(self.data.len() as u64)
            .map_err(io::Error::from)?;
        let room = self
            .full_at
            .map_or(usize::MAX, |f| f.saturating_sub(self.data.len()));
        if room == 0 && !buf.is_empty() {
            return Err(io::Error::new(ErrorKind::StorageFull, "sink is full"));
        }
        let n = n.min(buf.len()).min(room);
        self.data.extend_from_slice(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_delivers_everything_around_its_faults() {
        let data: Vec<u8> = (0..50).collect();
        let mut s = FaultySource::new(data.clone())
            .chunk(3)
            .every(4, ErrorKind::Interrupted)
            .fail_at(10, ErrorKind::WouldBlock)
            .fail_at(11, ErrorKind::Other);
        let mut out = Vec::new();
        let mut kinds = Vec::new();
        let mut buf = [0u8; 16];
        loop {
            match s.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    assert!(n <= 3);
                    out.extend_from_slice(&buf[..n]);
                }
                Err(e) => kinds.push((out.len(), e.kind())),
            }
        }
        assert_eq!(out, data);
        assert!(kinds.contains(&(10, ErrorKind::WouldBlock)));
        assert!(kinds.contains(&(11, ErrorKind::Other)));
        assert_eq!(s.faults(), kinds.len());
    }

    #[test]
    fn sink_short_writes_faults_and_fill() {
        let mut s = FaultySink::new()
            .chunk(2)
            .fail_at(3, ErrorKind::BrokenPipe)
            .full_at(5);
        assert_eq!(s.write(b"abcdef").unwrap(), 2);
        assert_eq!(s.write(b"cdef").unwrap(), 1);
        assert_eq!(s.write(b"def").unwrap_err().kind(), ErrorKind::BrokenPipe);
        assert_eq!(s.write(b"def").unwrap(), 2);
        assert_eq!(s.write(b"f").unwrap_err().kind(), ErrorKind::StorageFull);
        assert_eq!(s.data(), b"abcde");
    }
}
