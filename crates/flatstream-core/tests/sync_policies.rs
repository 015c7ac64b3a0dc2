//! The sync policies (`SyncEveryFrames`, `SyncEveryBytes`, `SyncInterval`, `NeverSync`) and the
//! durable watermark, through a `StreamWriter` over a disk in memory that records its syncs and
//! can fail them, and over a real file.

use flatstream_core::{
    DefaultFramer, Error, NeverSync, StreamWriter, SyncEveryBytes, SyncEveryFrames, SyncInterval,
    SyncPolicy, SyncSink, WatermarkFile, read_watermark,
};
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::time::Duration;

/// A sink in memory that records where each sync happened, and fails the syncs it is told
/// to, and the writes past `full` bytes (taking what fits first, as a full disk does).
#[derive(Default)]
struct Disk {
    data: Vec<u8>,
    syncs: Vec<usize>,
    fail_syncs: bool,
    full: Option<usize>,
}

impl Write for Disk {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let room = self.full.map_or(buf.len(), |full| full - self.data.len());
        if room == 0 && !buf.is_empty() {
            return Err(io::Error::other("no space left"));
        }
        let n = buf.len().min(room);
        self.data.extend_from_slice(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl SyncSink for Disk {
    fn sync(&mut self) -> io::Result<()> {
        if self.fail_syncs {
            return Err(io::Error::other("the disk is gone"));
        }
        self.syncs.push(self.data.len());
        Ok(())
    }
}

/// Writes payloads of 0, 1, 2, ... bytes (frames of 4, 5, 6, ... bytes); returns the
/// durable watermark after each frame, and where the sink was synced.
fn run<P: SyncPolicy<Disk>>(policy: P, n: usize) -> (Vec<u64>, Vec<usize>) {
    let mut w = StreamWriter::new(Disk::default(), DefaultFramer).with_sync(policy);
    let marks = (0..n)
        .map(|i| {
            w.write_payload(&vec![7; i]).unwrap();
            w.durable()
        })
        .collect();
    (marks, w.into_inner().syncs)
}

#[test]
fn never_syncs_on_its_own() {
    let (marks, syncs) = run(NeverSync, 5);
    assert_eq!(marks, [0; 5]);
    assert!(syncs.is_empty());
}

#[test]
fn every_frames_syncs_after_every_nth_frame() {
    // Frame ends: 4, 9, 15, 22, 30, 39, 49.
    let (marks, syncs) = run(SyncEveryFrames::new(3), 7);
    assert_eq!(marks, [0, 0, 15, 15, 15, 39, 39]);
    assert_eq!(syncs, [15, 39]);
    let (marks, _) = run(SyncEveryFrames::new(0), 3);
    assert_eq!(marks, [4, 9, 15], "0 acts as 1");
}

#[test]
fn every_bytes_syncs_once_that_many_bytes_are_unsynced() {
    let (marks, syncs) = run(SyncEveryBytes::new(12), 7);
    assert_eq!(syncs, [15, 30, 49]);
    assert_eq!(marks, [0, 0, 15, 15, 30, 30, 49]);
}

#[test]
fn an_interval_of_zero_syncs_after_every_frame_and_a_long_one_never() {
    let (_, syncs) = run(SyncInterval::new(Duration::ZERO), 3);
    assert_eq!(syncs, [4, 9, 15]);
    let (marks, syncs) = run(SyncInterval::new(Duration::from_secs(3600)), 3);
    assert_eq!((marks, syncs), (vec![0; 3], vec![]));
}

#[test]
fn an_explicit_sync_moves_the_watermark_and_restarts_the_count() {
    let mut w =
        StreamWriter::new(Disk::default(), DefaultFramer).with_sync(SyncEveryFrames::new(2));
    w.write_payload(b"").unwrap();
    assert_eq!(w.sync().unwrap(), 4);
    w.write_payload(b"").unwrap();
    assert_eq!(w.durable(), 4, "one frame since the explicit sync");
    w.write_payload(b"").unwrap();
    assert_eq!(w.durable(), 12);
    assert_eq!(w.get_ref().syncs, [4, 12]);
    // The default policy syncs when asked, too.
    let mut w = StreamWriter::new(Disk::default(), DefaultFramer).with_offset(100);
    assert_eq!(w.write_payload_with_receipt(b"ab").unwrap().offset, 100);
    assert_eq!(w.durable(), 100);
    assert_eq!(w.sync().unwrap(), 106);
}

#[test]
fn a_failed_sync_is_reported_the_frame_counted_and_the_watermark_kept_for_good() {
    let mut w =
        StreamWriter::new(Disk::default(), DefaultFramer).with_sync(SyncEveryFrames::new(1));
    w.write_payload(b"ab").unwrap();
    assert_eq!(w.durable(), 6);
    w.get_mut().fail_syncs = true;
    let err = w.write_payload(b"cd").unwrap_err();
    assert!(matches!(err, Error::Sync { offset: 6, .. }), "{err}");
    assert_eq!(w.bytes_written(), 12, "the frame was written");
    assert_eq!(w.get_ref().data.len(), 12);
    assert_eq!(w.durable(), 6);
    // The disk comes back, but the pages a failed sync dropped are not proven written.
    w.get_mut().fail_syncs = false;
    assert!(matches!(
        w.write_payload(b"e"),
        Err(Error::Sync { offset: 6, .. })
    ));
    assert!(matches!(w.sync(), Err(Error::Sync { offset: 6, .. })));
    assert_eq!((w.durable(), w.bytes_written()), (6, 17));
    let io: io::Error = w.sync().unwrap_err().into();
    assert_eq!(io.kind(), io::ErrorKind::Other);
}

#[test]
fn the_watermark_never_passes_the_start_of_a_frame_the_sink_took_only_part_of() {
    // Frames of 6 bytes; the disk is full 3 bytes into the second one.
    let mut w = StreamWriter::new(Disk::default(), DefaultFramer);
    w.write_payload(b"ab").unwrap();
    w.get_mut().full = Some(9);
    assert!(matches!(
        w.write_payload(b"cd"),
        Err(Error::Io { offset: 6, .. })
    ));
    assert_eq!(w.bytes_written(), 9, "the torn bytes are counted");
    assert_eq!(w.sync().unwrap(), 6, "not the middle of the torn frame");
    assert_eq!(w.durable(), 6);
    // Space comes back: the frames after the torn one are written and synced, but a reader
    // stops at the torn frame, so they are not readable frames on disk.
    w.get_mut().full = None;
    w.write_payload(b"ef").unwrap();
    assert_eq!(w.sync().unwrap(), 6);
    let mut w = w.with_sync(SyncEveryFrames::new(1));
    w.write_payload(b"gh").unwrap();
    assert_eq!(w.durable(), 6);
    // A write the sink refused whole tears nothing.
    let mut w = StreamWriter::new(Disk::default(), DefaultFramer);
    w.write_payload(b"ab").unwrap();
    w.get_mut().full = Some(6);
    assert!(w.write_payload(b"cd").is_err());
    w.get_mut().full = None;
    w.write_payload(b"ef").unwrap();
    assert_eq!(w.sync().unwrap(), 12);
}

#[test]
fn the_watermark_file_follows_every_sync() {
    let path = std::env::temp_dir().join(format!("flatstream-publish-{}", std::process::id()));
    let file = WatermarkFile::create(&path).unwrap();
    let mut w = StreamWriter::new(Disk::default(), DefaultFramer)
        .with_offset(10)
        .with_sync(SyncEveryFrames::new(2))
        .with_watermark_file(file)
        .unwrap();
    assert_eq!(read_watermark(&path).unwrap(), 10, "published at once");
    w.write_payload(b"a").unwrap();
    assert_eq!(read_watermark(&path).unwrap(), 10);
    w.write_payload(b"b").unwrap();
    assert_eq!(read_watermark(&path).unwrap(), 20);
    w.write_payload(b"c").unwrap();
    assert_eq!(w.sync().unwrap(), 25);
    assert_eq!(read_watermark(&path).unwrap(), 25);
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn a_bufwriter_over_a_file_is_flushed_then_synced() {
    let dir = std::env::temp_dir().join(format!("flatstream-sync-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("journal.fstream");
    let file = BufWriter::with_capacity(1 << 16, File::create(&path).unwrap());
    let mut w = StreamWriter::new(file, DefaultFramer).with_sync(SyncEveryFrames::new(3));
    for _ in 0..4 {
        w.write_payload(&[1; 100]).unwrap();
    }
    assert_eq!(w.durable(), 312);
    assert_eq!(
        std::fs::metadata(&path).unwrap().len(),
        312,
        "flushed at the sync"
    );
    assert_eq!(w.sync().unwrap(), 416);
    assert_eq!(std::fs::metadata(&path).unwrap().len(), 416);
    drop(w);
    std::fs::remove_dir_all(&dir).unwrap();
}
