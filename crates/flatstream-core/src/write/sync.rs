//! Durability: when a [`StreamWriter`](crate::StreamWriter) makes its frames durable, and the
//! sinks that can be made durable.
//!
//! ```text
//!  frames handed to the sink                          durable()      bytes_written()
//!  +-----------+-----------+-----------+-----------+-----------+
//!  | frame 0   | frame 1   | frame 2   | frame 3   | frame 4   |
//!  +-----------+-----------+-----------+-----------+-----------+
//!  |<--------- known to be on disk -------------->|<- the OS ->|
//!                                                 ^            ^
//!                                   the durable watermark      the next frame starts here
//! ```
//!
//! A write hands a frame to the sink; for a file, that means to the operating system, which
//! keeps it in memory and writes it to the disk later. A **sync** (`fdatasync`) waits until what
//! the file holds is on the disk. The writer counts both: [`bytes_written`] is where the next
//! frame starts, [`durable`] (the *durable watermark*) is the offset up to which every frame is
//! known to be on the disk. It only ever moves to the end of a frame.
//!
//! The policy is chosen in the writer's type, with [`with_sync`], so a writer that never syncs
//! (the default, [`NeverSync`]) carries no code for it:
//!
//! | policy | syncs | what a power loss can take |
//! |---|---|---|
//! | [`NeverSync`] (default) | only when you call [`sync`] | everything after the last `sync` |
//! | [`SyncEveryFrames`]`::new(n)` | after every `n`-th frame | at most the last `n - 1` frames (and a torn one) |
//! | [`SyncEveryBytes`]`::new(n)` | after the frame that brings the unsynced bytes to `n` or more | frames totalling less than `n` bytes |
//! | [`SyncInterval`]`::new(d)` | after a frame written at least `d` after the last sync | what was written since the last sync, however long ago if nothing was written after it |
//!
//! A process crash takes nothing a write returned to a `File`: the OS has it (bytes still in a
//! `BufWriter`'s buffer are lost with the process; a sync flushes them). What the policies
//! differ in is a power loss or an OS crash. `docs/robustness.md` says what each guarantees.
//!
//! [`bytes_written`]: crate::StreamWriter::bytes_written
//! [`durable`]: crate::StreamWriter::durable
//! [`with_sync`]: crate::StreamWriter::with_sync
//! [`sync`]: crate::StreamWriter::sync

use crate::journal::watermark::WatermarkFile;
use crate::write::core::Receipt;
use std::boxed::Box;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::time::{Duration, Instant};

/// A sink whose accepted bytes can be made durable: a [`File`], or a [`BufWriter`] in front
/// of one (it flushes its buffer first).
///
/// ```
/// use flatstream::{DefaultFramer, StreamWriter};
/// use flatstream::journal::SyncEveryFrames;
/// use std::io::BufWriter;
///
/// let dir = std::env::temp_dir().join(format!("flatstream-doc-sync-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let file = BufWriter::new(std::fs::File::create(dir.join("journal.fstream"))?);
/// let mut writer = StreamWriter::new(file, DefaultFramer).with_sync(SyncEveryFrames::new(2));
/// writer.write(&"one")?;
/// assert_eq!(writer.durable(), 0); // handed to the OS, not synced yet
/// let second = writer.write_with_receipt(&"two")?; // the second frame: flushed and synced
/// assert_eq!(writer.durable(), second.end());
/// std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait SyncSink: Write {
    /// Hands every byte accepted so far to the file, then waits until the file's data is on
    /// the storage device (`File::sync_data`).
    fn sync(&mut self) -> io::Result<()>;
}

impl SyncSink for File {
    fn sync(&mut self) -> io::Result<()> {
        self.sync_data()
    }
}

impl SyncSink for &File {
    fn sync(&mut self) -> io::Result<()> {
        self.sync_data()
    }
}

/// Flushes the buffer, then syncs the file behind it.
impl<W: SyncSink> SyncSink for BufWriter<W> {
    fn sync(&mut self) -> io::Result<()> {
        self.flush()?;
        self.get_mut().sync()
    }
}

impl<S: SyncSink + ?Sized> SyncSink for &mut S {
    fn sync(&mut self) -> io::Result<()> {
        (**self).sync()
    }
}

impl<S: SyncSink + ?Sized> SyncSink for Box<S> {
    fn sync(&mut self) -> io::Result<()> {
        (**self).sync()
    }
}

/// When a [`StreamWriter`](crate::StreamWriter) syncs its sink: after which frames.
///
/// Chosen in the writer's type with [`with_sync`](crate::StreamWriter::with_sync). The policies
/// here are [`NeverSync`] (the default: its `after_frame` does nothing and compiles to
/// nothing), [`SyncEveryFrames`], [`SyncEveryBytes`] and [`SyncInterval`]; a policy of your own
/// implements this trait. It is generic over the sink so that the policies that do sync can
/// require a [`SyncSink`], while `NeverSync` works on any `Write`.
pub trait SyncPolicy<W: ?Sized> {
    /// Whether the policy may sync at all: `false` only for [`NeverSync`], whose writer then
    /// leaves the call to [`after_frame`](Self::after_frame) out of its code.
    const SYNCS: bool = true;

    /// Called after each frame the sink accepted whole, with where it lies. Syncs `sink` if
    /// the policy says it is due, and returns whether it did: the writer then moves its durable
    /// watermark to the end of this frame. A sync that fails returns its error, and the
    /// watermark stays where it was.
    fn after_frame(&mut self, sink: &mut W, frame: Receipt) -> io::Result<bool>;

    /// Called after each sync that moved the durable watermark to `durable`, the policy's own
    /// or an explicit [`StreamWriter::sync`](crate::StreamWriter::sync): count from here. An
    /// error is returned by the write or `sync` as [`Error::Io`](crate::Error::Io); the
    /// watermark has moved.
    fn synced(&mut self, durable: u64) -> io::Result<()> {
        let _ = durable;
        Ok(())
    }
}

/// The default policy: never sync on its own. [`StreamWriter::sync`](crate::StreamWriter::sync)
/// still syncs when you call it, on a sink that can.
#[derive(Debug, Clone, Copy, Default)]
pub struct NeverSync;

impl<W: ?Sized> SyncPolicy<W> for NeverSync {
    const SYNCS: bool = false;

    #[inline(always)]
    fn after_frame(&mut self, _sink: &mut W, _frame: Receipt) -> io::Result<bool> {
        Ok(false)
    }
}

/// Syncs after every `n`-th frame (counted from the last sync, explicit ones included).
#[derive(Debug, Clone, Copy)]
pub struct SyncEveryFrames(Threshold);

impl SyncEveryFrames {
    /// Syncs after every `n`-th frame; `n` of 0 acts as 1 (every frame).
    pub fn new(n: u64) -> Self {
        SyncEveryFrames(Threshold::new(n.max(1)))
    }
}

impl<W: SyncSink + ?Sized> SyncPolicy<W> for SyncEveryFrames {
    #[inline]
    fn after_frame(&mut self, sink: &mut W, _frame: Receipt) -> io::Result<bool> {
        self.0.add(1, sink)
    }

    fn synced(&mut self, _durable: u64) -> io::Result<()> {
        self.0.unsynced = 0;
        Ok(())
    }
}

/// Syncs after the frame that brings the bytes written since the last sync to `n` or more.
#[derive(Debug, Clone, Copy)]
pub struct SyncEveryBytes(Threshold);

impl SyncEveryBytes {
    /// Syncs once `n` bytes or more were written since the last sync; `n` of 0 syncs after
    /// every frame.
    pub fn new(n: u64) -> Self {
        SyncEveryBytes(Threshold::new(n))
    }
}

impl<W: SyncSink + ?Sized> SyncPolicy<W> for SyncEveryBytes {
    #[inline]
    fn after_frame(&mut self, sink: &mut W, frame: Receipt) -> io::Result<bool> {
        self.0.add(frame.len, sink)
    }

    fn synced(&mut self, _durable: u64) -> io::Result<()> {
        self.0.unsynced = 0;
        Ok(())
    }
}

/// A count (of frames, of bytes) since the last sync, and the count at which to sync: the
/// rule of [`SyncEveryFrames`] and [`SyncEveryBytes`].
#[derive(Debug, Clone, Copy)]
struct Threshold {
    every: u64,
    unsynced: u64,
}

impl Threshold {
    fn new(every: u64) -> Self {
        Threshold { every, unsynced: 0 }
    }

    /// Counts `n` more; syncs `sink` (and starts again from 0) once the count reaches `every`.
    #[inline(always)]
    fn add<W: SyncSink + ?Sized>(&mut self, n: u64, sink: &mut W) -> io::Result<bool> {
        self.unsynced = self.unsynced.saturating_add(n);
        if self.unsynced < self.every {
            return Ok(false);
        }
        self.unsynced = 0;
        sink.sync().map(|()| true)
    }
}

/// Syncs after a frame written at least `d` after the last sync: at most one sync per `d`.
///
/// The time is checked when a frame is written; no thread runs in the background. So frames
/// written just before a pause stay unsynced until the next write, or until you call
/// [`StreamWriter::sync`](crate::StreamWriter::sync): call it when the writer goes idle.
#[derive(Debug, Clone, Copy)]
pub struct SyncInterval {
    every: Duration,
    last: Instant,
}

impl SyncInterval {
    /// Syncs after a frame written at least `every` after the last sync (or after the policy
    /// was created).
    pub fn new(every: Duration) -> Self {
        SyncInterval {
            every,
            last: Instant::now(),
        }
    }
}

impl<W: SyncSink + ?Sized> SyncPolicy<W> for SyncInterval {
    #[inline]
    fn after_frame(&mut self, sink: &mut W, _frame: Receipt) -> io::Result<bool> {
        let now = Instant::now();
        if now.duration_since(self.last) < self.every {
            return Ok(false);
        }
        self.last = now;
        sink.sync().map(|()| true)
    }

    fn synced(&mut self, _durable: u64) -> io::Result<()> {
        self.last = Instant::now();
        Ok(())
    }
}

/// A policy that also publishes the durable watermark in a [`WatermarkFile`] each time it
/// moves, for followers in other processes. Made by
/// [`StreamWriter::with_watermark_file`](crate::StreamWriter::with_watermark_file).
#[derive(Debug)]
pub struct PublishWatermark<P> {
    policy: P,
    file: WatermarkFile,
}

impl<P> PublishWatermark<P> {
    /// `policy`, publishing in `file`.
    pub fn new(policy: P, file: WatermarkFile) -> Self {
        PublishWatermark { policy, file }
    }

    /// The policy it wraps.
    pub fn policy(&self) -> &P {
        &self.policy
    }
}

impl<W: ?Sized, P: SyncPolicy<W>> SyncPolicy<W> for PublishWatermark<P> {
    const SYNCS: bool = P::SYNCS;

    #[inline]
    fn after_frame(&mut self, sink: &mut W, frame: Receipt) -> io::Result<bool> {
        self.policy.after_frame(sink, frame)
    }

    fn synced(&mut self, durable: u64) -> io::Result<()> {
        self.policy.synced(durable)?;
        self.file.publish(durable)
    }
}
