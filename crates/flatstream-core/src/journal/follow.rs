//! `Follower`: reads a file that another process is still appending to.

use crate::error::{Error, Result};
use crate::journal::watermark::read_watermark;
use crate::read::stream::StreamReader;
use crate::wire::framing::Deframer;
use core::ops::Range;
use std::io::{self, Read};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// What [`Follower::next`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Followed<'a> {
    /// A verified frame.
    Frame {
        /// Stream offset of the frame.
        offset: u64,
        /// Its payload, borrowed from the follower until the next call.
        payload: &'a [u8],
    },
    /// No whole frame is there yet: the data ends between two frames, or inside one that is
    /// still being written (see [`Follower::pending`]), or at the watermark the follower stops
    /// at. Not an error: call again later, and the follower resumes where it stopped.
    CaughtUp,
}

/// Reads frames from a file another process is appending to, as they arrive.
///
/// Where a [`StreamReader`] reports the end of the data inside a frame as
/// [`Error::UnexpectedEof`], a follower says [`Followed::CaughtUp`], and so it does at the end
/// between two frames. It keeps every byte it has read, and each call carries on exactly where
/// the last one stopped: no byte is read twice, none is skipped, and frames come out whole,
/// verified and in order, however the writer split them into writes.
///
/// ```text
///   frames handed out        pending()         what the writer has not written yet
/// +-------+-------+-------+-----------+- - - - - - - - -+
/// |   0   |   1   |   2   | 3 (part)  |                 |
/// +-------+-------+-------+-----------+- - - - - - - - -+
///                         ^           ^
///                  position()         end of the file now: next() says CaughtUp
/// ```
///
/// # Stopping at the durable watermark
///
/// A frame a writer has written may not be on disk yet, and a power loss would take it back.
/// A follower that must only see frames known to be on disk (a replica, say) stops at the
/// writer's durable watermark: a value you pass ([`stop_at`](Self::stop_at)), or the
/// [`WatermarkFile`](crate::WatermarkFile) the writer publishes
/// ([`with_watermark_file`](Self::with_watermark_file)), which the follower reads again each
/// time it has caught up with the last value. It never reads a byte past the watermark.
///
/// # Waiting
///
/// [`next`](Self::next) never blocks beyond a read of the source. [`wait`](Self::wait) waits
/// for the next frame up to a timeout, trying again every poll interval (10 ms by default,
/// [`with_poll_interval`](Self::with_poll_interval)) and sleeping in between.
///
/// # What it cannot tell
///
/// A frame cut short by a writer that crashed looks exactly like a frame still being written:
/// the follower waits for it. After a crash, [`repair`](crate::Recover::repair_file) the
/// journal before appending again, and start followers afresh: a follower holding the bytes
/// of a torn frame that the repair cut off would take the new frames for the rest of it (its
/// checksum, if the stream has one, then fails). A framing error (a checksum mismatch, a
/// length over the bound) is returned as by the readers, and repeats on the next call.
///
/// ```
/// use flatstream::{DefaultDeframer, DefaultFramer, StreamWriter};
/// use flatstream::journal::{Followed, Follower};
/// use std::io::Write;
///
/// let dir = std::env::temp_dir().join(format!("flatstream-doc-follow-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let path = dir.join("journal.fstream");
/// let mut writer = StreamWriter::new(std::fs::File::create(&path)?, DefaultFramer);
/// let mut follower = Follower::new(std::fs::File::open(&path)?, DefaultDeframer);
/// assert_eq!(follower.next()?, Followed::CaughtUp);
///
/// writer.write(&"one")?;
/// writer.get_mut().write_all(&[16, 0, 0, 0, 12])?; // the first bytes of a frame
/// let Followed::Frame { payload, .. } = follower.next()? else { panic!() };
/// assert_eq!(flatbuffers::root::<&str>(payload)?, "one");
/// assert_eq!(follower.next()?, Followed::CaughtUp);
/// assert_eq!(follower.pending(), 5); // inside a frame: not an error
/// std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Follower<R, D> {
    reader: StreamReader<UpTo<R>, D>,
    watermark_file: Option<PathBuf>,
    poll: Duration,
}

impl<R: Read, D: Deframer> Follower<R, D> {
    /// Follows `source` from its current position, which is the start of the stream (offset 0).
    pub fn new(source: R, deframer: D) -> Self {
        Follower {
            reader: StreamReader::new(
                UpTo {
                    inner: source,
                    read: 0,
                    limit: None,
                },
                deframer,
            ),
            watermark_file: None,
            poll: Duration::from_millis(10),
        }
    }

    /// Says that the source is positioned at stream offset `offset`, the start of a frame: to
    /// resume following at a [`position`](Self::position) saved earlier, seek the file there
    /// and create the follower with it.
    pub fn with_position(mut self, offset: u64) -> Self {
        self.reader.set_position(offset);
        self.reader.get_mut().read = offset;
        self
    }

    /// Sets the largest payload accepted (default
    /// [`DEFAULT_MAX_FRAME_LEN`](crate::wire::frame::DEFAULT_MAX_FRAME_LEN), 2 GiB).
    ///
    /// The same setting as [`FrameConfig::with_max_frame_len`](crate::FrameConfig::with_max_frame_len).
    pub fn with_max_frame_len(mut self, max: usize) -> Self {
        self.reader = self.reader.with_max_frame_len(max);
        self
    }

    /// Sets how long [`wait`](Self::wait) sleeps between two tries (default 10 ms).
    pub fn with_poll_interval(mut self, poll: Duration) -> Self {
        self.poll = poll;
        self
    }

    /// Stops at the durable watermark the writer publishes in the
    /// [`WatermarkFile`](crate::WatermarkFile) at `path`. The file is read again each time the
    /// follower catches up with the last value read; until it exists, the watermark is 0.
    pub fn with_watermark_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.watermark_file = Some(path.into());
        self.reader.get_mut().limit.get_or_insert(0);
        self
    }

    /// Hands out frames only up to stream offset `watermark` (a frame's end): the writer's
    /// [`durable`](crate::StreamWriter::durable) watermark, passed on by you. Watermarks only
    /// grow: a value below the current one is ignored.
    pub fn stop_at(&mut self, watermark: u64) {
        let limit = &mut self.reader.get_mut().limit;
        *limit = Some(limit.map_or(watermark, |l| l.max(watermark)));
    }

    /// The watermark the follower stops at, if it stops at one.
    pub fn watermark(&self) -> Option<u64> {
        self.reader.get_ref().limit
    }

    /// The next frame, or [`Followed::CaughtUp`] if none is whole yet.
    ///
    /// # Errors
    ///
    /// As [`StreamReader::read_message`], except that the end of the data is never an error:
    /// framing errors (the follower stays at the frame, and says so again), content errors
    /// (it moves past the frame), [`Error::Io`] (it keeps what it read), and the errors of
    /// reading the watermark file, other than its absence.
    #[allow(clippy::should_implement_trait)] // it lends its payload: not an `Iterator`
    pub fn next(&mut self) -> Result<Followed<'_>> {
        let offset = self.reader.position();
        Ok(match self.advance()? {
            Some(payload) => Followed::Frame {
                offset,
                payload: self.reader.buffered_range(payload),
            },
            None => Followed::CaughtUp,
        })
    }

    /// The next frame, waiting for it up to `timeout`: tries, and while caught up sleeps for
    /// the poll interval and tries again. Returns [`Followed::CaughtUp`] if no frame came in
    /// time.
    ///
    /// # Errors
    ///
    /// As [`next`](Self::next).
    pub fn wait(&mut self, timeout: Duration) -> Result<Followed<'_>> {
        let deadline = Instant::now().checked_add(timeout);
        loop {
            let offset = self.reader.position();
            if let Some(payload) = self.advance()? {
                return Ok(Followed::Frame {
                    offset,
                    payload: self.reader.buffered_range(payload),
                });
            }
            let now = Instant::now();
            let left = deadline.map_or(self.poll, |d| d.saturating_duration_since(now));
            if left.is_zero() {
                return Ok(Followed::CaughtUp);
            }
            std::thread::sleep(self.poll.min(left));
        }
    }

    /// Stream offset of the next frame.
    pub fn position(&self) -> u64 {
        self.reader.position()
    }

    /// Bytes read past [`position`](Self::position) and not handed out: once caught up, the
    /// part of a frame that is not all written yet. 0 when caught up at a frame boundary.
    pub fn pending(&self) -> usize {
        self.reader.buffer().len()
    }

    /// The deframer.
    pub fn deframer(&self) -> &D {
        self.reader.deframer()
    }

    /// The source.
    pub fn get_ref(&self) -> &R {
        &self.reader.get_ref().inner
    }

    /// Returns the source. The bytes of [`pending`](Self::pending) are dropped.
    pub fn into_inner(self) -> R {
        self.reader.into_inner().inner
    }

    /// The next frame's payload range in the reader's buffer, or `None` when caught up.
    fn advance(&mut self) -> Result<Option<Range<usize>>> {
        loop {
            match self.reader.next_copied() {
                Ok(Some(payload)) => return Ok(Some(payload)),
                // The end of the data, between frames or inside one: caught up, unless the
                // watermark moved.
                Ok(None) | Err(Error::UnexpectedEof { .. }) => {}
                Err(e) => return Err(e),
            }
            if !self.raise_watermark()? {
                return Ok(None);
            }
        }
    }

    /// Reads the watermark file, if there is one; returns whether the watermark moved.
    fn raise_watermark(&mut self) -> Result<bool> {
        let Some(path) = &self.watermark_file else {
            return Ok(false);
        };
        let read = match read_watermark(path) {
            Ok(read) => read,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
            Err(e) => return Err(Error::io(e, self.reader.position())),
        };
        let limit = &mut self.reader.get_mut().limit;
        if limit.is_some_and(|l| read <= l) {
            return Ok(false);
        }
        *limit = Some(read);
        Ok(true)
    }
}

/// The source, read no further than the watermark.
#[derive(Debug)]
struct UpTo<R> {
    inner: R,
    /// Stream offset of the next byte `inner` gives.
    read: u64,
    limit: Option<u64>,
}

impl<R: Read> Read for UpTo<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let room = match self.limit {
            Some(limit) => usize::try_from(limit.saturating_sub(self.read)).unwrap_or(usize::MAX),
            None => usize::MAX,
        };
        let len = buf.len().min(room);
        if len == 0 {
            return Ok(0);
        }
        let n = self.inner.read(&mut buf[..len])?;
        self.read += n as u64;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Sum32;
    use crate::wire::framing::{ChecksumDeframer, ChecksumFramer, Framer};
    use std::sync::{Arc, Mutex};

    /// A file being appended to, in memory: reads return what has been appended so far.
    #[derive(Clone, Default)]
    struct Growing {
        data: Arc<Mutex<Vec<u8>>>,
        pos: usize,
    }

    impl Growing {
        fn append(&self, bytes: &[u8]) {
            self.data.lock().unwrap().extend_from_slice(bytes);
        }
    }

    impl Read for Growing {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let data = self.data.lock().unwrap();
            let n = buf.len().min(data.len() - self.pos);
            buf[..n].copy_from_slice(&data[self.pos..self.pos + n]);
            self.pos += n;
            Ok(n)
        }
    }

    fn frame(payload: &[u8]) -> Vec<u8> {
        let mut out = ChecksumFramer::new(Sum32)
            .header(payload, 0)
            .unwrap()
            .as_bytes()
            .to_vec();
        out.extend_from_slice(payload);
        out
    }

    fn next_payload<R: Read>(f: &mut Follower<R, ChecksumDeframer<Sum32>>) -> Option<Vec<u8>> {
        match f.next().unwrap() {
            Followed::Frame { payload, .. } => Some(payload.to_vec()),
            Followed::CaughtUp => None,
        }
    }

    #[test]
    fn every_byte_boundary_is_caught_up_then_resumed_exactly() {
        let payloads: Vec<Vec<u8>> = (0..8u8).map(|i| vec![i; usize::from(i) * 11]).collect();
        let stream: Vec<u8> = payloads.iter().flat_map(|p| frame(p)).collect();
        let file = Growing::default();
        let mut f = Follower::new(file.clone(), ChecksumDeframer::new(Sum32));
        let mut got = Vec::new();
        let mut ends = vec![0];
        for p in &payloads {
            ends.push(ends.last().unwrap() + frame(p).len());
        }
        for (i, &b) in stream.iter().enumerate() {
            file.append(&[b]);
            while let Some(p) = next_payload(&mut f) {
                got.push(p);
            }
            // Caught up: at the last frame boundary, holding the bytes after it.
            let boundary = *ends.iter().rev().find(|&&e| e <= i + 1).unwrap();
            assert_eq!(f.position(), boundary as u64);
            assert_eq!(f.pending(), i + 1 - boundary);
        }
        assert_eq!(got, payloads);
    }

    #[test]
    fn stops_at_the_watermark_and_goes_on_when_it_moves() {
        let stream: Vec<u8> = [&b"ab"[..], b"cde", b"f"]
            .iter()
            .flat_map(|p| frame(p))
            .collect();
        let file = Growing::default();
        file.append(&stream);
        let mut f = Follower::new(file, ChecksumDeframer::new(Sum32));
        f.stop_at(10); // the end of the first frame
        assert_eq!(next_payload(&mut f).unwrap(), b"ab");
        assert_eq!(next_payload(&mut f), None);
        assert_eq!(f.pending(), 0, "nothing read past the watermark");
        f.stop_at(3); // lower: ignored
        assert_eq!(f.watermark(), Some(10));
        f.stop_at(stream.len() as u64);
        assert_eq!(next_payload(&mut f).unwrap(), b"cde");
        assert_eq!(next_payload(&mut f).unwrap(), b"f");
        assert_eq!(next_payload(&mut f), None);
    }

    #[test]
    fn a_corrupt_frame_is_an_error_that_repeats() {
        let mut stream = frame(b"abc");
        stream[9] ^= 1;
        let file = Growing::default();
        file.append(&stream);
        let mut f = Follower::new(file, ChecksumDeframer::new(Sum32));
        for _ in 0..2 {
            assert!(matches!(
                f.next(),
                Err(Error::ChecksumMismatch { offset: 0, .. })
            ));
        }
    }
}
