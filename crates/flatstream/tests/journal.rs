//! Journals across processes: a writer that syncs every few frames, killed with SIGKILL at
//! random moments, keeps every frame up to the durable watermark it published; a follower
//! reads a file another process appends to in small pieces, frame for frame; positioned reads
//! find every frame a writer reported.
//!
//! The other process is this test binary itself, run again as a child process
//! (`flatstream_test_support::child`).

use flatstream::checksum::{AnyChecksum, ChecksumKind};
use flatstream::journal::{
    Followed, Follower, FrameAt, SyncEveryFrames, WatermarkFile, read_watermark,
};
use flatstream::repair::{Recover, RepairPolicy};
use flatstream::{ChecksumDeframer, ChecksumFramer, StreamWriter};
use flatstream_test_support::child;
use std::fs::{self, File, OpenOptions};
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How long any one wait of these tests may take before it fails.
const PATIENCE: Duration = Duration::from_secs(30);

fn checksum() -> AnyChecksum {
    AnyChecksum::new(ChecksumKind::XxHash64).unwrap()
}

/// The payload of frame `i`: 0 to about 3 KiB, its bytes derived from `i`.
fn payload(i: u64) -> Vec<u8> {
    let len = (i * 7919 % 3001) as usize;
    (0..len).map(|j| (i as usize * 31 + j) as u8).collect()
}

/// A directory of its own, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("flatstream-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn sidecar(path: &Path) -> PathBuf {
    path.with_extension("durable")
}

/// Starts this test binary as the child process `role`, on the journal at `path`.
fn spawn(role: &str, path: &Path, piped: bool) -> Child {
    let mut command = child::command(role, path);
    if piped {
        command.stdin(Stdio::piped()).stdout(Stdio::piped());
    } else {
        command.stdout(Stdio::null());
    }
    command.spawn().unwrap()
}

/// The entry point of the child processes ([`child::ENTRY`]); does nothing in a normal test
/// run.
#[test]
fn child_process() {
    child::run(&[("sync-writer", sync_writer), ("appender", appender)]);
}

/// Writes frames through a `BufWriter`, syncing every 8 and publishing the watermark, until it
/// is killed (or, should the parent be gone, for 20 s).
fn sync_writer(path: &Path) {
    let file = BufWriter::new(File::create(path).unwrap());
    let mut writer = StreamWriter::new(file, ChecksumFramer::new(checksum()))
        .with_sync(SyncEveryFrames::new(8))
        .with_watermark_file(WatermarkFile::create(sidecar(path)).unwrap())
        .unwrap();
    let start = Instant::now();
    let mut i = 0;
    while start.elapsed() < Duration::from_secs(20) {
        writer.write_payload(&payload(i)).unwrap();
        i += 1;
    }
}

/// Writes the frames of `appended_stream` in pieces of 1 to 7 bytes, sleeping now and then
/// inside frames; after every 40 frames it says `pause <offset> <frames>` and waits for a line
/// on stdin; at the end it says `done <offset> <frames>`.
fn appender(path: &Path) {
    let (bytes, ends) = appended_stream();
    let mut file = OpenOptions::new().append(true).open(path).unwrap();
    let mut stdin = BufReader::new(std::io::stdin());
    let mut at = 0;
    for (n, &end) in ends.iter().enumerate() {
        child::write_in_pieces(&mut file, &bytes, at..end, 97);
        at = end;
        let frames = n + 1;
        if frames % 40 == 0 && frames < ends.len() {
            child::say(&format!("pause {at} {frames}"));
            let mut line = String::new();
            stdin.read_line(&mut line).unwrap();
        }
    }
    child::say(&format!("done {at} {}", ends.len()));
}

/// The appender's stream: 200 frames; and where each ends.
fn appended_stream() -> (Vec<u8>, Vec<usize>) {
    let mut w = StreamWriter::new(Vec::new(), ChecksumFramer::new(checksum()));
    let ends = (0..200)
        .map(|i| w.write_payload_with_receipt(&payload(i)).unwrap().end() as usize)
        .collect();
    (w.into_inner(), ends)
}

/// A small deterministic generator for the kill delays.
fn next_random(state: &mut u64) -> u64 {
    *state = state
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    *state >> 33
}

#[test]
fn a_writer_killed_at_random_keeps_every_frame_up_to_its_published_watermark() {
    let dir = TempDir::new("journal-kill");
    let path = dir.0.join("journal.fstream");
    let mut random = 0x5eed;
    for run in 0..20 {
        let _ = fs::remove_file(&path);
        let _ = fs::remove_file(sidecar(&path));
        let mut child = spawn("sync-writer", &path, false);
        // Once it has synced at least once, let it run 0 to 40 ms more, then kill it.
        let deadline = Instant::now() + PATIENCE;
        while read_watermark(sidecar(&path)).unwrap_or(0) == 0 {
            assert!(
                Instant::now() < deadline,
                "run {run}: the writer never synced"
            );
            std::thread::sleep(Duration::from_millis(1));
        }
        std::thread::sleep(Duration::from_millis(next_random(&mut random) % 40));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        let watermark = read_watermark(sidecar(&path)).unwrap();

        // A follower stopping at the watermark reads exactly the frames up to it.
        let mut follower = Follower::new(
            File::open(&path).unwrap(),
            ChecksumDeframer::new(checksum()),
        )
        .with_watermark_file(sidecar(&path));
        let mut followed = 0;
        while let Followed::Frame { payload: p, .. } = follower.next().unwrap() {
            assert_eq!(p, payload(followed), "run {run}, frame {followed}");
            followed += 1;
        }
        assert_eq!(follower.position(), watermark, "run {run}");
        assert_eq!(follower.pending(), 0, "run {run}");

        // After repair, every frame up to the watermark is there, intact, in order.
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(&path)
            .unwrap();
        let recovery = Recover::new(ChecksumDeframer::new(checksum()))
            .repair_file(&mut file, RepairPolicy::TornTail)
            .unwrap_or_else(|e| panic!("run {run}: {e}"));
        assert!(
            recovery.valid_len >= watermark,
            "run {run}: {recovery:?} < {watermark}"
        );
        let bytes = fs::read(&path).unwrap();
        let mut frames = 0;
        for p in flatstream::Frames::new(&bytes, ChecksumDeframer::new(checksum())) {
            assert_eq!(p.unwrap(), payload(frames), "run {run}, frame {frames}");
            frames += 1;
        }
        assert_eq!(frames, recovery.frames);
        assert!(frames >= followed, "run {run}");
    }
}

#[test]
fn a_follower_yields_exactly_what_another_process_appends_in_small_pieces() {
    let dir = TempDir::new("journal-follow");
    let path = dir.0.join("journal.fstream");
    File::create(&path).unwrap();
    let mut child = spawn("appender", &path, true);
    let mut to_child = child.stdin.take().unwrap();
    let (said, hear) = mpsc::channel();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    std::thread::spawn(move || {
        for line in stdout.lines().map_while(Result::ok) {
            if let Some(news) = child::heard(&line) {
                let _ = said.send(news.to_owned());
            }
        }
    });

    let (_, ends) = appended_stream();
    let mut follower = Follower::new(
        File::open(&path).unwrap(),
        ChecksumDeframer::new(checksum()),
    )
    .with_poll_interval(Duration::from_millis(1));
    let mut got = 0u64;
    let deadline = Instant::now() + PATIENCE;
    loop {
        assert!(Instant::now() < deadline, "the follower fell behind");
        take(&mut follower, &mut got, &ends);
        let Ok(news) = hear.try_recv() else {
            continue;
        };
        // The writer has paused, or is done, after a whole frame: the follower catches up
        // exactly there.
        let mut words = news.split(' ');
        let (what, offset, frames) = (
            words.next().unwrap(),
            words.next().unwrap().parse::<u64>().unwrap(),
            words.next().unwrap().parse::<u64>().unwrap(),
        );
        while take(&mut follower, &mut got, &ends) {}
        assert_eq!(follower.next().unwrap(), Followed::CaughtUp);
        assert_eq!(
            (follower.position(), follower.pending()),
            (offset, 0),
            "{news}"
        );
        assert_eq!(got, frames, "{news}");
        if what == "done" {
            break;
        }
        writeln!(to_child, "go").unwrap();
    }
    assert_eq!(got, 200);
    assert!(child.wait().unwrap().success());
}

/// Waits a little for the next frame and checks it is frame `got`; returns whether one came.
fn take(
    follower: &mut Follower<File, ChecksumDeframer<AnyChecksum>>,
    got: &mut u64,
    ends: &[usize],
) -> bool {
    match follower.wait(Duration::from_millis(5)).unwrap() {
        Followed::Frame { offset, payload: p } => {
            let start = if *got == 0 {
                0
            } else {
                ends[*got as usize - 1]
            };
            assert_eq!(offset, start as u64, "frame {got}");
            assert_eq!(p, payload(*got), "frame {got}");
            *got += 1;
            true
        }
        Followed::CaughtUp => false,
    }
}

#[test]
fn positioned_reads_find_every_frame_a_file_writer_reported() {
    let dir = TempDir::new("journal-at");
    let path = dir.0.join("journal.fstream");
    let file = BufWriter::new(File::create(&path).unwrap());
    let mut writer = StreamWriter::new(file, ChecksumFramer::new(checksum()));
    let receipts: Vec<_> = (0..60)
        .map(|i| writer.write_payload_with_receipt(&payload(i)).unwrap())
        .collect();
    assert_eq!(writer.sync().unwrap(), receipts.last().unwrap().end());
    drop(writer);

    let at = FrameAt::new(ChecksumDeframer::new(checksum())).with_max_frame_len(4096);
    let mut file = File::open(&path).unwrap();
    let mut buf = Vec::new();
    for (i, r) in receipts.iter().enumerate().rev() {
        let p = at.read(&mut file, r.offset, &mut buf).unwrap();
        assert_eq!(p, payload(i as u64));
    }
    let len = receipts.last().unwrap().end();
    for offset in (0..len + 16).filter(|o| receipts.iter().all(|r| r.offset != *o)) {
        let err = at.read(&mut file, offset, &mut buf).unwrap_err();
        assert!(err.is_framing_error(), "offset {offset}: {err}");
        assert_eq!(err.offset(), offset);
    }
    // Warm: reading every frame again allocates nothing.
    let capacity = buf.capacity();
    for r in &receipts {
        at.read(&mut file, r.offset, &mut buf).unwrap();
    }
    assert_eq!(buf.capacity(), capacity);
}
