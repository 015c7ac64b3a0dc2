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
//! the test named. Both are deterministic: the same settings give the same calls. The settings
//! are a [`Faults`] value of their own, so that a driver of another kind of source (an async
//! one, say) can be handed the same plan.
//!
//! ```
//! use flatstream_test_support::faults::FaultySource;
//! use std::io::{ErrorKind, Read};
//!
//! let mut source = FaultySource::new(b"abcdef").chunk(2).fail_at(3, ErrorKind::ConnectionReset);
//! let mut buf = [0; 8];
//! assert_eq!(source.read(&mut buf).unwrap(), 2);
//! assert_eq!(source.read(&mut buf).unwrap(), 1); // stops short of the fault at offset 3
//! assert_eq!(source.read(&mut buf).unwrap_err().kind(), ErrorKind::ConnectionReset);
//! assert_eq!(source.read(&mut buf).unwrap(), 2); // the fault fired once; reading goes on
//! ```

use std::io::{self, ErrorKind, Read, Write};

/// What a faulty source or sink does: how many bytes a call moves at most, periodic errors,
/// and one-shot errors at byte offsets.
#[derive(Debug, Clone)]
pub struct Faults {
    chunk: usize,
    /// `(n, kind)`: every `n`-th call fails with `kind`.
    every: Vec<(usize, ErrorKind)>,
    /// One-shot errors at byte offsets, not yet fired, in no particular order.
    at: Vec<(u64, ErrorKind)>,
    calls: usize,
    /// Calls that returned an error.
    fired: usize,
}

impl Default for Faults {
    fn default() -> Self {
        Self::new()
    }
}

impl Faults {
    /// No fault, and calls as large as the caller's buffer.
    pub fn new() -> Self {
        Faults {
            chunk: usize::MAX,
            every: Vec::new(),
            at: Vec::new(),
            calls: 0,
            fired: 0,
        }
    }

    /// Moves at most `n` bytes per call (at least 1).
    pub fn chunk(mut self, n: usize) -> Self {
        self.chunk = n.max(1);
        self
    }

    /// Fails every `n`-th call (counting all calls, from 1) with `kind`.
    pub fn every(mut self, n: usize, kind: ErrorKind) -> Self {
        self.every.push((n.max(1), kind));
        self
    }

    /// Fails once with `kind` when the next byte to move is at `offset`.
    pub fn fail_at(mut self, offset: u64, kind: ErrorKind) -> Self {
        self.at.push((offset, kind));
        self
    }

    /// The most bytes one call moves.
    pub fn max_chunk(&self) -> usize {
        self.chunk
    }

    /// Decides the next call at stream position `pos`: an error, or how many bytes at most.
    pub fn next_call(&mut self, pos: u64) -> Result<usize, ErrorKind> {
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

    /// Errors returned so far.
    pub fn fired(&self) -> usize {
        self.fired
    }
}

/// A source or a sink that follows a plan of [`Faults`]: a [`FaultySource`] or a
/// [`FaultySink`]. The plan's settings are set on either the same way.
#[derive(Debug, Clone)]
pub struct Faulty<S> {
    inner: S,
    plan: Faults,
}

/// A `Read` source over bytes (a `Vec<u8>`, a `&[u8]`, ...) that delivers them in small
/// pieces and fails on purpose. See the [module docs](self).
pub type FaultySource<B = Vec<u8>> = Faulty<Source<B>>;

/// A `Write` sink that accepts short pieces and fails on purpose. See the [module docs](self).
pub type FaultySink = Faulty<Sink>;

/// What a [`FaultySource`] has to deliver, and how far it got.
#[derive(Debug, Clone)]
pub struct Source<B> {
    data: B,
    pos: usize,
}

/// What a [`FaultySink`] holds, and how much it can.
#[derive(Debug, Clone, Default)]
pub struct Sink {
    data: Vec<u8>,
    full_at: Option<usize>,
}

impl<S> Faulty<S> {
    /// Moves at most `n` bytes per call (at least 1).
    pub fn chunk(mut self, n: usize) -> Self {
        self.plan = self.plan.chunk(n);
        self
    }

    /// Fails every `n`-th call (counting all calls, from 1) with `kind`.
    pub fn every(mut self, n: usize, kind: ErrorKind) -> Self {
        self.plan = self.plan.every(n, kind);
        self
    }

    /// Fails once with `kind` when the next byte to move is at `offset`.
    pub fn fail_at(mut self, offset: u64, kind: ErrorKind) -> Self {
        self.plan = self.plan.fail_at(offset, kind);
        self
    }

    /// Errors returned so far (periodic and one-shot; not those of a full sink).
    pub fn faults(&self) -> usize {
        self.plan.fired
    }
}

impl<B: AsRef<[u8]>> Faulty<Source<B>> {
    /// A source of `data`, with no fault yet.
    pub fn new(data: B) -> Self {
        Self::with_faults(data, Faults::new())
    }

    /// A source of `data` that follows `faults`.
    pub fn with_faults(data: B, faults: Faults) -> Self {
        Faulty {
            inner: Source { data, pos: 0 },
            plan: faults,
        }
    }

    /// Bytes delivered so far.
    pub fn position(&self) -> u64 {
        self.inner.pos as u64
    }
}

impl<B: AsRef<[u8]>> Read for Faulty<Source<B>> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let Source { data, pos } = &mut self.inner;
        let n = self.plan.next_call(*pos as u64).map_err(io::Error::from)?;
        let data = data.as_ref();
        let n = n.min(buf.len()).min(data.len() - *pos);
        buf[..n].copy_from_slice(&data[*pos..*pos + n]);
        *pos += n;
        Ok(n)
    }
}

impl Default for Faulty<Sink> {
    fn default() -> Self {
        Self::new()
    }
}

impl Faulty<Sink> {
    /// An empty sink with no fault yet.
    pub fn new() -> Self {
        Faulty {
            inner: Sink::default(),
            plan: Faults::new(),
        }
    }

    /// Holds at most `len` bytes; past that every write fails with `StorageFull`.
    pub fn full_at(mut self, len: usize) -> Self {
        self.inner.full_at = Some(len);
        self
    }

    /// The bytes accepted so far.
    pub fn data(&self) -> &[u8] {
        &self.inner.data
    }

    /// The bytes accepted.
    pub fn into_data(self) -> Vec<u8> {
        self.inner.data
    }
}

impl Write for Faulty<Sink> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let Sink { data, full_at } = &mut self.inner;
        let n = self
            .plan
            .next_call(data.len() as u64)
            .map_err(io::Error::from)?;
        let room = full_at.map_or(usize::MAX, |f| f.saturating_sub(data.len()));
        if room == 0 && !buf.is_empty() {
            return Err(io::Error::new(ErrorKind::StorageFull, "sink is full"));
        }
        let n = n.min(buf.len()).min(room);
        data.extend_from_slice(&buf[..n]);
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
