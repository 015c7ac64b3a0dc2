//! `BytesFrames`: the frames of a `bytes::Bytes`, each payload a `Bytes` sharing its buffer.
//! Works without `std` (feature `bytes`).

use crate::error::Result;
use crate::read::MessageReader;
use crate::read::slice::Frames;
use crate::wire::framing::Deframer;
use bytes::Bytes;

/// Iterates over the payloads of the frames in a [`Bytes`], each yielded as a `Bytes` that
/// shares the input's buffer: no copy, cheap to clone, `Send + 'static`, so a payload can go to
/// another thread or task and outlive the iterator.
///
/// It is [`Frames`](crate::Frames) over a `Bytes`: the same decoder, so the same bound
/// ([`with_max_frame_len`](Self::with_max_frame_len), 2 GiB by default), the same errors and the
/// same offsets (counted from the first byte of the input). The iterator ends (`None`) exactly
/// at the end of the input; a framing error (a length over the bound, a checksum mismatch, a
/// frame cut short) is yielded once, after which the iterator is fused; a content error from a
/// validating deframer is yielded, and iteration goes on with the next frame.
///
/// It is also a [`MessageReader`] handing out payloads borrowed from the input.
///
/// ```
/// use bytes::Bytes;
/// use flatstream::DefaultDeframer;
/// use flatstream::read::BytesFrames;
///
/// let stream = Bytes::from_static(&[2, 0, 0, 0, b'h', b'i', 1, 0, 0, 0, b'!']);
/// let payloads: Vec<Bytes> = BytesFrames::new(stream, DefaultDeframer).collect::<Result<_, _>>()?;
/// assert_eq!(payloads, [&b"hi"[..], &b"!"[..]]);
/// // Each payload can be moved to another thread: it keeps the buffer alive by itself.
/// let first = payloads[0].clone();
/// std::thread::spawn(move || assert_eq!(first, &b"hi"[..])).join().unwrap();
/// # Ok::<(), flatstream::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct BytesFrames<D> {
    bytes: Bytes,
    /// Start of the next frame (or of the frame that failed) in `bytes`.
    pos: usize,
    /// Whether a framing error stopped the iteration at `pos`.
    failed: bool,
    /// The slice loop, with no input of its own: each step is handed `bytes` and `pos`.
    frames: Frames<'static, D>,
}

impl<D: Deframer> BytesFrames<D> {
    /// Iterates over the frames in `bytes`, read with `deframer`.
    pub fn new(bytes: Bytes, deframer: D) -> Self {
        BytesFrames {
            bytes,
            pos: 0,
            failed: false,
            frames: Frames::new(&[], deframer),
        }
    }

    crate::read::decoder_accessors!(D, frames);

    /// Bytes consumed so far: the offset of the next frame, or of the frame that failed.
    #[inline]
    pub fn position(&self) -> u64 {
        self.pos as u64
    }

    /// The bytes not yet consumed, starting with the next frame (or the frame that failed),
    /// sharing the input's buffer.
    pub fn remainder(&self) -> Bytes {
        self.bytes.slice(self.pos..)
    }

    /// The next frame's payload range in `bytes`, stepping past the frame; `None` at the end
    /// (or after a framing error, until `retry`).
    #[inline]
    fn next_range(&mut self) -> Option<Result<core::ops::Range<usize>>> {
        self.frames
            .step_in(&self.bytes, &mut self.pos, &mut self.failed)
    }
}

impl<D: Deframer> Iterator for BytesFrames<D> {
    type Item = Result<Bytes>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        Some(self.next_range()?.map(|payload| self.bytes.slice(payload)))
    }
}

impl<D: Deframer> core::iter::FusedIterator for BytesFrames<D> {}

impl<D: Deframer> MessageReader for BytesFrames<D> {
    /// As [`Iterator::next`], with the payload borrowed from the input, except after a framing
    /// error: where the iterator is fused, this stays at the frame that failed and returns its
    /// error again, as the other readers do.
    #[inline]
    fn read_message(&mut self) -> Result<Option<&[u8]>> {
        self.failed = false;
        match self.next_range() {
            None => Ok(None),
            Some(Ok(payload)) => Ok(Some(&self.bytes[payload])),
            Some(Err(e)) => Err(e),
        }
    }

    #[inline]
    fn position(&self) -> u64 {
        BytesFrames::position(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Error;
    use crate::read::slice::Frames;
    use crate::testing::Sum16;
    use crate::wire::framing::{ChecksumDeframer, DefaultDeframer};
    use alloc::string::ToString;
    use alloc::vec::Vec;

    /// What an iteration yielded, errors as text, and where it stopped.
    type Yielded = (Vec<Result<Vec<u8>, alloc::string::String>>, u64);

    /// What `Frames` and `BytesFrames` yield over the same bytes.
    fn both<D: Deframer + Clone>(bytes: &[u8], deframer: D, max: usize) -> [Yielded; 2] {
        let mut frames = Frames::new(bytes, deframer.clone()).with_max_frame_len(max);
        let a: Vec<_> = frames
            .by_ref()
            .map(|r| r.map(<[u8]>::to_vec).map_err(|e| e.to_string()))
            .collect();
        let mut ours =
            BytesFrames::new(Bytes::copy_from_slice(bytes), deframer).with_max_frame_len(max);
        let b: Vec<_> = ours
            .by_ref()
            .map(|r| r.map(|p| p.to_vec()).map_err(|e| e.to_string()))
            .collect();
        [(a, frames.position()), (b, ours.position())]
    }

    #[test]
    fn agrees_with_frames_on_every_cut_and_every_flipped_bit() {
        // Three frames with a 2-byte checksum, the last claiming more than the bound of 8.
        let mut stream = alloc::vec![3, 0, 0, 0, 6, 0, 1, 2, 3, 0, 0, 0, 0, 0, 0];
        stream.extend_from_slice(&[9, 0, 0, 0, 0, 0, 1, 1, 1]);
        let deframer = ChecksumDeframer::new(Sum16);
        for cut in 0..=stream.len() {
            let [frames, ours] = both(&stream[..cut], deframer, 8);
            assert_eq!(ours, frames, "cut at {cut}");
        }
        for at in 0..stream.len() {
            let mut flipped = stream.clone();
            flipped[at] ^= 1;
            let [frames, ours] = both(&flipped, deframer, 8);
            assert_eq!(ours, frames, "bit flipped at {at}");
        }
    }

    #[test]
    fn payloads_share_the_input_buffer() {
        let input = Bytes::from(alloc::vec![2, 0, 0, 0, 7, 8, 1, 0, 0, 0, 9]);
        let payloads: Vec<Bytes> = BytesFrames::new(input.clone(), DefaultDeframer)
            .collect::<Result<_>>()
            .unwrap();
        assert_eq!(payloads, [&[7u8, 8][..], &[9][..]]);
        assert_eq!(payloads[0].as_ptr(), input[4..].as_ptr(), "no copy");
        assert_eq!(payloads[1].as_ptr(), input[10..].as_ptr(), "no copy");
    }

    #[test]
    fn read_message_retries_the_failed_frame_where_the_iterator_is_fused() {
        let bytes = Bytes::from_static(&[1, 0, 0, 0, 7, 9, 0, 0, 0, 1]);
        let mut it = BytesFrames::new(bytes, DefaultDeframer);
        assert_eq!(it.read_message().unwrap(), Some(&[7u8][..]));
        for _ in 0..2 {
            let err = it.read_message().unwrap_err();
            assert!(
                matches!(err, Error::UnexpectedEof { offset: 5, .. }),
                "{err}"
            );
            assert_eq!(it.position(), 5);
        }
        assert!(
            it.next().is_none(),
            "fused, as after the iterator's own error"
        );
        assert_eq!(it.remainder(), &[9u8, 0, 0, 0, 1][..]);
    }
}
