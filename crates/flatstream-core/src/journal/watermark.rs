//! The watermark file: a writer's durable watermark, published for readers in other processes.
//!
//! ```text
//! offset 0                8                16               24               32
//!        +----------------+----------------+----------------+----------------+
//!        | watermark A    | check of A     | watermark B    | check of B     |
//!        | u64 LE         | u64 LE         | u64 LE         | u64 LE         |
//!        +----------------+----------------+----------------+----------------+
//! ```
//!
//! The writer updates the two slots in turn, in place, and each slot carries a check of its
//! value. A reader takes the larger of the valid slots. So a reader never sees a torn value:
//! while one slot is being rewritten, the other holds the previous watermark, and a writer that
//! dies mid-update leaves that previous watermark readable. The file is a hint for followers,
//! and is not synced itself: after a crash, repair the journal and read what it holds.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::Path;

/// Length of the file: two slots.
const FILE_LEN: usize = 32;

/// Published by a [`StreamWriter`](crate::StreamWriter) (see
/// [`with_watermark_file`](crate::StreamWriter::with_watermark_file)), read with
/// [`read_watermark`] or by a [`Follower`](crate::Follower): the durable watermark of a
/// journal, in a small file beside it.
///
/// ```
/// use flatstream::journal::{WatermarkFile, read_watermark};
///
/// let dir = std::env::temp_dir().join(format!("flatstream-doc-wm-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let path = dir.join("journal.fstream.durable");
/// let mut file = WatermarkFile::create(&path)?;
/// assert_eq!(read_watermark(&path)?, 0);
/// file.publish(4096)?;
/// assert_eq!(read_watermark(&path)?, 4096);
/// std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug)]
pub struct WatermarkFile {
    file: File,
    /// The slot the next publication overwrites.
    next: u8,
}

impl WatermarkFile {
    /// Creates the file at `path` (or truncates it) with a watermark of 0.
    pub fn create(path: impl AsRef<Path>) -> io::Result<Self> {
        let mut file = File::create(path)?;
        let mut bytes = [0; FILE_LEN];
        bytes[..16].copy_from_slice(&slot(0, 0));
        bytes[16..].copy_from_slice(&slot(1, 0));
        file.write_all(&bytes)?;
        Ok(WatermarkFile { file, next: 0 })
    }

    /// Publishes `watermark`: readers see it from now on. Watermarks only grow; a reader takes
    /// the larger of the two slots.
    pub fn publish(&mut self, watermark: u64) -> io::Result<()> {
        let at = u64::from(self.next) * 16;
        self.file.seek(SeekFrom::Start(at))?;
        self.file.write_all(&slot(self.next, watermark))?;
        self.next ^= 1;
        Ok(())
    }
}

/// Reads the watermark a [`WatermarkFile`] at `path` holds. A file being created (shorter than
/// its 32 bytes, with no complete slot yet) reads as 0.
///
/// # Errors
///
/// The error of opening or reading the file; `InvalidData` if it is not a watermark file.
pub fn read_watermark(path: impl AsRef<Path>) -> io::Result<u64> {
    let mut bytes = [0; FILE_LEN];
    let mut len = 0;
    let mut file = File::open(path)?;
    while len < FILE_LEN {
        match file.read(&mut bytes[len..]) {
            Ok(0) => break,
            Ok(n) => len += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    let valid = (0..2u8).filter_map(|i| {
        let at = usize::from(i) * 16;
        let s: [u8; 16] = bytes.get(at..at + 16)?.try_into().ok()?;
        let value = u64::from_le_bytes(s[..8].try_into().ok()?);
        (at + 16 <= len && slot(i, value) == s).then_some(value)
    });
    match valid.max() {
        Some(value) => Ok(value),
        None if len < FILE_LEN => Ok(0),
        None => Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "not a flatstream watermark file",
        )),
    }
}

/// The 16 bytes of slot `index` holding `value`: the value, then its check (a 64-bit mix of
/// value and slot, so that bytes from two different updates do not pass for a slot).
fn slot(index: u8, value: u64) -> [u8; 16] {
    let mut z = value ^ 0x6673_7472_6d77_6d00 ^ u64::from(index);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    let mut out = [0; 16];
    out[..8].copy_from_slice(&value.to_le_bytes());
    out[8..].copy_from_slice(&z.to_le_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> std::path::PathBuf {
        std::env::temp_dir().join(format!("flatstream-wm-{name}-{}", std::process::id()))
    }

    #[test]
    fn publications_alternate_slots_and_the_larger_valid_one_wins() {
        let path = temp("alternate");
        let mut file = WatermarkFile::create(&path).unwrap();
        for w in [10, 20, 30, 40, 50] {
            file.publish(w).unwrap();
            assert_eq!(read_watermark(&path).unwrap(), w);
        }
        // A torn update of the slot being written (B, holding 40): A still says 50.
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[16..20].copy_from_slice(&[0xAA; 4]);
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(read_watermark(&path).unwrap(), 50);
        // Bytes of two updates in one slot do not pass its check.
        let mut mixed = slot(0, 50);
        mixed[..4].copy_from_slice(&slot(0, 60)[..4]);
        bytes[..16].copy_from_slice(&mixed);
        std::fs::write(&path, &bytes).unwrap();
        let err = read_watermark(&path).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn a_file_being_created_reads_as_zero() {
        let path = temp("short");
        std::fs::write(&path, []).unwrap();
        assert_eq!(read_watermark(&path).unwrap(), 0);
        std::fs::write(&path, &slot(0, 7)[..10]).unwrap();
        assert_eq!(read_watermark(&path).unwrap(), 0);
        std::fs::write(&path, slot(0, 7)).unwrap();
        assert_eq!(read_watermark(&path).unwrap(), 7);
        std::fs::remove_file(&path).unwrap();
    }
}
