//! Crash and reopen: a journal whose writer died mid-frame (simulated by cutting the file at
//! every byte offset) is repaired, appended to, and read back whole, for every framing.

use flatstream::checksum::{AnyChecksum, ChecksumKind};
use flatstream::repair::{Recover, RepairPolicy, StreamEnd};
use flatstream::{
    ChecksumDeframer, ChecksumFramer, DefaultDeframer, DefaultFramer, Deframer, Framer,
    StreamReader, StreamWriter,
};
use flatstream_test_support::telemetry::Reading;
use std::fs::{self, File, OpenOptions};
use std::io::Read;
use std::path::{Path, PathBuf};

/// A directory of its own under the system's temporary directory, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("flatstream-{name}-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn journal<F: Framer>(framer: F) -> (Vec<u8>, Vec<Vec<u8>>, Vec<u64>) {
    let mut w = StreamWriter::new(Vec::new(), framer);
    let mut bounds = vec![0];
    for i in 0..4 {
        w.write(&Reading::nth(i)).unwrap();
        bounds.push(w.bytes_written());
    }
    for raw in [&b""[..], &[0x11; 40][..]] {
        w.write_payload(raw).unwrap();
        bounds.push(w.bytes_written());
    }
    let bytes = w.into_inner();
    let payloads = bounds
        .windows(2)
        .map(|b| {
            let frame = &bytes[b[0] as usize..b[1] as usize];
            let len = u32::from_le_bytes(frame[..4].try_into().unwrap()) as usize;
            frame[frame.len() - len..].to_vec()
        })
        .collect();
    (bytes, payloads, bounds)
}

fn read_file<D: Deframer>(path: &Path, deframer: D) -> Vec<Vec<u8>> {
    let mut reader = StreamReader::new(File::open(path).unwrap(), deframer);
    let mut out = Vec::new();
    while let Some(p) = reader.read_message().unwrap() {
        out.push(p.to_vec());
    }
    out
}

fn crash_and_reopen<F: Framer + Copy, D: Deframer + Copy>(name: &str, framer: F, deframer: D) {
    let dir = TempDir::new(&format!("journal-{name}"));
    let path = dir.0.join("journal.fstream");
    let (bytes, payloads, bounds) = journal(framer);
    let appended = [
        b"after the crash".to_vec(),
        Vec::new(),
        b"and again".to_vec(),
    ];
    for cut in 0..=bytes.len() {
        // The writer died after `cut` bytes reached the file.
        fs::write(&path, &bytes[..cut]).unwrap();

        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(&path)
            .unwrap();
        let recovery = Recover::new(deframer)
            .repair_file(&mut file, RepairPolicy::TornTail)
            .unwrap_or_else(|e| panic!("{name}, cut at {cut}: {e}"));
        let whole = bounds.iter().filter(|&&b| b <= cut as u64).count() - 1;
        assert_eq!(recovery.frames, whole as u64, "{name}, cut at {cut}");
        assert_eq!(recovery.valid_len, bounds[whole], "{name}, cut at {cut}");
        assert_eq!(
            matches!(recovery.end, StreamEnd::TornTail { .. }),
            bounds[whole] != cut as u64,
            "{name}, cut at {cut}"
        );
        assert_eq!(
            file.metadata().unwrap().len(),
            bounds[whole],
            "{name}, cut at {cut}"
        );

        // Reopened for appending: the new frames follow the last intact one, byte-exact.
        let mut w = StreamWriter::new(file, framer);
        for p in &appended {
            w.write_payload(p).unwrap();
        }
        w.flush().unwrap();
        drop(w);
        let mut on_disk = Vec::new();
        File::open(&path)
            .unwrap()
            .read_to_end(&mut on_disk)
            .unwrap();
        assert_eq!(
            on_disk[..bounds[whole] as usize],
            bytes[..bounds[whole] as usize]
        );

        let mut expected = payloads[..whole].to_vec();
        expected.extend_from_slice(&appended);
        assert_eq!(read_file(&path, deframer), expected, "{name}, cut at {cut}");
    }
}

#[test]
fn a_journal_cut_at_every_offset_is_repaired_and_appended_to() {
    crash_and_reopen("none", DefaultFramer, DefaultDeframer);
    for kind in [
        ChecksumKind::XxHash64,
        ChecksumKind::Crc32,
        ChecksumKind::Crc16,
        ChecksumKind::Crc32c,
    ] {
        let sum = AnyChecksum::new(kind).unwrap();
        crash_and_reopen(
            kind.name(),
            ChecksumFramer::new(sum),
            ChecksumDeframer::new(sum),
        );
    }
}

#[test]
fn a_corrupt_frame_is_not_truncated_unless_asked() {
    let sum = AnyChecksum::new(ChecksumKind::Crc32).unwrap();
    let (mut bytes, payloads, bounds) = journal(ChecksumFramer::new(sum));
    let at = bounds[2] as usize + 20; // inside the third frame's payload
    bytes[at] ^= 0x08;
    let dir = TempDir::new("journal-corrupt");
    let path = dir.0.join("journal.fstream");
    fs::write(&path, &bytes).unwrap();

    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .open(&path)
        .unwrap();
    let recover = Recover::new(ChecksumDeframer::new(sum));
    let err = recover
        .repair_file(&mut file, RepairPolicy::TornTail)
        .unwrap_err();
    assert!(
        matches!(err, flatstream::Error::ChecksumMismatch { offset, .. } if offset == bounds[2]),
        "{err}"
    );
    assert_eq!(
        fs::read(&path).unwrap(),
        bytes,
        "the file is left as it was"
    );

    let recovery = recover
        .repair_file(&mut file, RepairPolicy::AfterLastGoodFrame)
        .unwrap();
    assert_eq!(recovery.frames, 2);
    assert_eq!(recovery.discarded(), bytes.len() as u64 - bounds[2]);
    let mut w = StreamWriter::new(file, ChecksumFramer::new(sum));
    w.write_payload(b"new").unwrap();
    drop(w);
    let mut expected = payloads[..2].to_vec();
    expected.push(b"new".to_vec());
    assert_eq!(read_file(&path, ChecksumDeframer::new(sum)), expected);
    assert_eq!(
        fs::read(&path).unwrap()[..bounds[2] as usize],
        bytes[..bounds[2] as usize]
    );
}
