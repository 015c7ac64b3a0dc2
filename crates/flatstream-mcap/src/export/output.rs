//! The bytes under every record: a record laid out by the `mcap` crate's types with its opcode
//! and length, a channel's id, and the output, whose bytes are counted (the file's offsets)
//! and hashed (the data section's CRC). What the chunks (`chunk.rs`) and the file around them
//! (`file.rs`) both write with.

use binrw::BinWrite;
use std::io::{self, Cursor, Write};

pub(crate) use mcap::records::op;

/// The id of the `index`-th channel (`index` is below 65 535).
pub(crate) fn channel_id(index: usize) -> u16 {
    index as u16 + 1
}

/// Appends to `buf` the record `op` holding `body`, laid out by the `mcap` crate, its length
/// counting `more` bytes that the caller writes right after it.
pub(crate) fn record<T>(buf: &mut Vec<u8>, op: u8, body: &T, more: usize) -> io::Result<()>
where
    T: for<'a> BinWrite<Args<'a> = ()>,
{
    let start = buf.len();
    buf.push(op);
    buf.extend_from_slice(&[0; 8]);
    let mut cursor = Cursor::new(&mut *buf);
    cursor.set_position(start as u64 + 9);
    body.write_le(&mut cursor).map_err(io::Error::other)?;
    let len = (buf.len() - start - 9 + more) as u64;
    buf[start + 1..start + 9].copy_from_slice(&len.to_le_bytes());
    Ok(())
}

/// The output: its bytes counted (the file's offsets) and hashed (the data section's CRC).
/// After a failed write every write fails: what was written is no longer an MCAP file.
pub(crate) struct Output<W> {
    inner: W,
    written: u64,
    crc: crc32fast::Hasher,
    failed: bool,
}

impl<W: Write> Output<W> {
    /// `inner`, nothing written yet.
    pub(crate) fn new(inner: W) -> Self {
        Output {
            inner,
            written: 0,
            crc: crc32fast::Hasher::new(),
            failed: false,
        }
    }

    /// The CRC-32 of every byte written so far (the Data End record's).
    pub(crate) fn crc(&self) -> u32 {
        self.crc.clone().finalize()
    }

    /// Flushes the output and gives it back.
    pub(crate) fn into_inner(mut self) -> io::Result<W> {
        self.inner.flush()?;
        Ok(self.inner)
    }

    /// Writes `bytes` whole.
    pub(crate) fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.write_through(bytes)?;
        self.crc.update(bytes);
        Ok(())
    }

    /// Writes `bytes` whole, `crc` their CRC-32 already computed.
    pub(crate) fn write_hashed(&mut self, bytes: &[u8], crc: &crc32fast::Hasher) -> io::Result<()> {
        self.write_through(bytes)?;
        self.crc.combine(crc);
        Ok(())
    }

    fn write_through(&mut self, bytes: &[u8]) -> io::Result<()> {
        if self.failed {
            return Err(failed());
        }
        if let Err(e) = self.inner.write_all(bytes) {
            self.failed = true;
            return Err(e);
        }
        self.written += bytes.len() as u64;
        Ok(())
    }

    /// The bytes written so far: the offset of the next.
    pub(crate) fn written(&self) -> u64 {
        self.written
    }
}

/// The error of every write after one failed.
#[cold]
pub(crate) fn failed() -> io::Error {
    io::Error::other("an earlier write to the MCAP file failed")
}
