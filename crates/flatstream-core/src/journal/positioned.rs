//! Positioned reads: the frame at a known offset, from a byte slice or a `Read + Seek` source.

use crate::error::{Error, Result};
use crate::read::slice::Frames;
use crate::wire::decode::Decoded;
use crate::wire::framing::Deframer;
use core::ops::Range;
use std::io::{self, Read, Seek, SeekFrom};
use std::vec::Vec;

/// Reads the frame at a given offset: from a journal's index of [`Receipt`](crate::Receipt)s,
/// say, without reading the frames before it.
///
/// The frame is decoded by the same decoder as every reader's, so it is verified the same
/// way (bound, checksum, validating deframer) and fails with the same errors, at `offset`.
/// [`read`](Self::read) takes a buffer of yours and reuses it: once it has grown to the largest
/// frame read, it allocates nothing. Like the readers, it grows the buffer only as bytes
/// arrive, so a wrong offset that reads as a header claiming 2 GiB costs no more than the bytes
/// that are there.
///
/// # A wrong offset
///
/// An offset that is not the start of a frame is read as one, and gives a typed error, never a
/// panic: [`Error::UnexpectedEof`] past the end of the data or for a "frame" that runs past it,
/// [`Error::FrameTooLarge`] for a length over the bound, [`Error::ChecksumMismatch`] when the
/// stream has a checksum. **Without a checksum, the bytes at a wrong offset may well read as a
/// frame**: only a checksum (and a tight bound) tells a frame from bytes that look like one.
///
/// ```
/// use flatstream::{ChecksumDeframer, ChecksumFramer, Error, StreamWriter};
/// use flatstream::checksum::NoChecksum;
/// use flatstream::journal::FrameAt;
/// use std::io::Cursor;
///
/// let mut writer = StreamWriter::new(Vec::new(), ChecksumFramer::new(NoChecksum));
/// let first = writer.write_with_receipt(&"first")?;
/// let second = writer.write_with_receipt(&"second")?;
/// let bytes = writer.into_inner();
///
/// let at = FrameAt::new(ChecksumDeframer::new(NoChecksum));
/// let payload = at.slice(&bytes, second.offset)?;
/// assert_eq!(flatbuffers::root::<&str>(payload)?, "second");
///
/// let mut file = Cursor::new(&bytes); // a `File` in real use
/// let mut buf = Vec::new();
/// let payload = at.read(&mut file, first.offset, &mut buf)?;
/// assert_eq!(flatbuffers::root::<&str>(payload)?, "first");
///
/// let past_the_end = at.slice(&bytes, second.end());
/// assert!(matches!(past_the_end, Err(Error::UnexpectedEof { .. })));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct FrameAt<D> {
    /// A slice reader with no input of its own: each call hands it the bytes of one frame, so
    /// that frame is judged by the rules (deframer, bound) of every slice reader.
    frames: Frames<'static, D>,
}

impl<D: Deframer> FrameAt<D> {
    /// Reads frames framed as `deframer` expects, with the default bound
    /// ([`DEFAULT_MAX_FRAME_LEN`](crate::wire::frame::DEFAULT_MAX_FRAME_LEN), 2 GiB).
    pub fn new(deframer: D) -> Self {
        FrameAt {
            frames: Frames::new(&[], deframer),
        }
    }

    crate::read::decoder_accessors!(D, frames);

    /// The payload of the frame at `offset` in `bytes`, borrowed from them.
    ///
    /// # Errors
    ///
    /// As the readers' for the frame at `offset` (see [above](Self#a-wrong-offset)); past
    /// the end of `bytes`, [`Error::UnexpectedEof`] with nothing present.
    pub fn slice<'a>(&self, bytes: &'a [u8], offset: u64) -> Result<&'a [u8]> {
        let rest = usize::try_from(offset)
            .ok()
            .and_then(|at| bytes.get(at..))
            .unwrap_or_default();
        match self.frames.decode(rest, offset)? {
            Decoded::Frame(frame) => Ok(frame.payload()),
            Decoded::Rejected { error, .. } => Err(error),
            Decoded::Incomplete(need) => Err(need.into_error(offset)),
        }
    }

    /// Seeks `source` to `offset`, reads the frame there into `buf` (whatever it held is
    /// replaced), and returns its payload, borrowed from `buf`. The source is left just past
    /// the bytes read.
    ///
    /// # Errors
    ///
    /// As [`slice`](Self::slice), and [`Error::Io`] if seeking or reading fails
    /// (`Interrupted` is retried).
    pub fn read<'b, R: Read + Seek + ?Sized>(
        &self,
        source: &mut R,
        offset: u64,
        buf: &'b mut Vec<u8>,
    ) -> Result<&'b [u8]> {
        let payload = self.read_range(source, offset, buf)?;
        Ok(&buf[payload])
    }

    /// [`read`](Self::read), returning the payload's range in `buf`.
    fn read_range<R: Read + Seek + ?Sized>(
        &self,
        source: &mut R,
        offset: u64,
        buf: &mut Vec<u8>,
    ) -> Result<Range<usize>> {
        source
            .seek(SeekFrom::Start(offset))
            .map_err(|e| Error::io(e, offset))?;
        buf.clear();
        // The header first, then what the decoder says is worth reading: at most doubling.
        let mut want = self.frames.header_len();
        loop {
            let have = buf.len();
            buf.resize(want, 0);
            let got = read_up_to(source, &mut buf[have..]).map_err(|e| Error::io(e, offset))?;
            buf.truncate(have + got);
            match self.frames.decode(buf, offset)? {
                Decoded::Frame(frame) => return Ok(frame.span().payload_range()),
                Decoded::Rejected { error, .. } => return Err(error),
                Decoded::Incomplete(need) if have + got < want => {
                    return Err(need.into_error(offset));
                }
                // The readers' one growth rule, with no capacity: double, up to what the frame needs.
                Decoded::Incomplete(need) => want = need.grown_len(buf.len(), 0),
            }
        }
    }
}

/// Reads into `buf` until it is full or the source is at its end; returns the bytes read.
fn read_up_to<R: Read + ?Sized>(source: &mut R, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match source.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n.min(buf.len() - filled),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Sum32;
    use crate::wire::framing::{ChecksumDeframer, ChecksumFramer, DefaultDeframer};
    use crate::write::writer::StreamWriter;
    use std::io::Cursor;

    #[test]
    fn reads_every_frame_at_its_receipt_from_a_slice_and_a_seekable_source() {
        let mut w = StreamWriter::new(Vec::new(), ChecksumFramer::new(Sum32));
        let payloads: Vec<Vec<u8>> = (0..40u8)
            .map(|i| vec![i; usize::from(i) * 37 % 300])
            .collect();
        let receipts: Vec<_> = payloads
            .iter()
            .map(|p| w.write_payload_with_receipt(p).unwrap())
            .collect();
        let bytes = w.into_inner();
        let at = FrameAt::new(ChecksumDeframer::new(Sum32));
        let mut source = Cursor::new(&bytes);
        let mut buf = Vec::new();
        for (p, r) in payloads.iter().zip(&receipts).rev() {
            assert_eq!(at.slice(&bytes, r.offset).unwrap(), &p[..]);
            assert_eq!(at.read(&mut source, r.offset, &mut buf).unwrap(), &p[..]);
            assert_eq!(source.position(), r.end(), "left just past the frame");
        }
    }

    #[test]
    fn a_wrong_offset_is_a_typed_error_at_that_offset() {
        let mut w = StreamWriter::new(Vec::new(), ChecksumFramer::new(Sum32));
        let starts: Vec<u64> = (0..6)
            .map(|i| w.write_payload_with_receipt(&[i; 20]).unwrap().offset)
            .collect();
        let bytes = w.into_inner();
        let at = FrameAt::new(ChecksumDeframer::new(Sum32)).with_max_frame_len(64);
        let mut buf = Vec::new();
        for offset in (0..bytes.len() as u64 + 3).chain([u64::MAX]) {
            if starts.contains(&offset) {
                continue;
            }
            let a = at.slice(&bytes, offset).unwrap_err();
            let b = at
                .read(&mut Cursor::new(&bytes), offset, &mut buf)
                .unwrap_err();
            assert_eq!(a.to_string(), b.to_string());
            assert_eq!(a.offset(), offset);
            assert!(a.is_framing_error(), "{a}");
        }
    }

    #[test]
    fn a_claimed_length_grows_the_buffer_only_with_the_bytes_present() {
        let mut bytes = u32::MAX.to_le_bytes().to_vec();
        bytes.extend_from_slice(&[0; 100]);
        let at = FrameAt::new(DefaultDeframer).with_max_frame_len(usize::MAX);
        let mut buf = Vec::new();
        let err = at.read(&mut Cursor::new(&bytes), 0, &mut buf).unwrap_err();
        assert!(
            matches!(err, Error::UnexpectedEof { present: 104, .. }),
            "{err}"
        );
        assert!(buf.capacity() <= 2 * bytes.len(), "{}", buf.capacity());
    }
}
