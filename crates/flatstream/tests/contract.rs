//! The reader contract over every reader a user of the facade can construct, each as its kind
//! is read (`flatstream_test_support::contract::Reading`): the readers of `std::io` and of
//! slices, those a `FrameConfig` builds, the async ones, the iterators, `Follower`, `FrameAt`,
//! `SplitFrames`, `ParallelFrames`, `Salvage` and `Recover`. One test per point of the
//! contract, each over all of them; the per-case contract of the readers that are
//! `MessageReader`s runs in the crates that define them (`flatstream-core/tests/readers.rs`,
//! `flatstream-tokio/tests/contract.rs`).

use flatstream::read::{BufReadStreamReader, MessageReader, ShrinkAbove};
use flatstream::repair::{Recover, Salvage};
use flatstream::{FrameConfig, Frames, Result, StreamReader};
use flatstream::{journal::FrameAt, split::SplitFrames};
use flatstream_test_support::Opaque;
use flatstream_test_support::alloc::CountingAlloc;
use flatstream_test_support::contract::{
    self, Callback, Checked, Input, LOOP_LIMIT, Opened, Reading, Subject, looped,
};
use flatstream_test_support::drivers::{
    BufReadSlice, BufReaderSource, ConfigFrames, ConfigReader, Copying, FollowerDriver,
    InPlaceCursor, InPlaceCursorVec, InPlaceCursorVecRef, InPlaceSlice, ReadBufferLoop,
    SliceFrames, SplitWhole,
};
use std::io::Cursor;

// The hostile-length point measures what the readers allocate.
#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

/// The bound every reading is given.
fn max(input: &Input) -> usize {
    input.max_frame_len.expect("the readings set a bound")
}

/// The readings of the drivers named (`flatstream_test_support::drivers`).
macro_rules! drivers {
    ($($driver:ty),* $(,)?) => {
        [$(Reading::driver::<$driver>()),*]
    };
}

/// Every reader of the facade, with the features it needs.
fn readings() -> Vec<Reading> {
    let mut all = Vec::new();
    all.extend(drivers![
        Copying,
        InPlaceSlice,
        InPlaceCursor,
        InPlaceCursorVec,
        InPlaceCursorVecRef,
        BufReaderSource,
        BufReadSlice,
        SliceFrames,
        ConfigReader,
        ConfigFrames,
        ReadBufferLoop,
        SplitWhole,
        FollowerDriver,
    ]);
    all.extend([
        reading("StreamReader::with_reclaim", reclaiming),
        reading("FrameAt::slice at each frame", frame_at_slice),
        reading("FrameAt::read at each frame", frame_at_read),
        reading("Frames, iterated", frames_iterated),
        reading("FrameConfig::frames, iterated", config_frames_iterated),
        reading("SplitFrames over 0..len, iterated", split_iterated),
        reading("StreamReader::messages", stream_messages),
        reading("BufReadStreamReader::messages", buf_read_messages),
        reading("Salvage", salvage),
        reading("Recover::scan", recover_scan),
        reading("Recover::scan_reader", recover_scan_reader),
    ]);
    #[cfg(feature = "bytes")]
    all.extend([
        Reading::driver::<flatstream_test_support::drivers::BytesFramesDriver>(),
        reading("BytesFrames, iterated", bytes_frames_iterated),
    ]);
    #[cfg(feature = "mmap")]
    all.extend([
        Reading::driver::<flatstream_test_support::drivers::MappedFrames>(),
        reading("Frames over a MappedFile, iterated", mapped_iterated),
    ]);
    #[cfg(feature = "rayon")]
    all.extend([
        reading("ParallelFrames::process_all", parallel::unordered),
        reading("ParallelFrames::process_all_ordered", parallel::ordered),
        reading("ParallelFrames::fold", parallel::fold),
    ]);
    #[cfg(feature = "tokio")]
    {
        use flatstream_test_support::drivers::tokio::{
            AsyncConfigReader, AsyncReader, CodecDriver,
        };
        all.extend([
            Reading::driver::<AsyncReader>(),
            Reading::driver::<AsyncConfigReader>(),
            Reading::driver::<CodecDriver>(),
            reading("FramedRead with FrameCodec", framed_read),
        ]);
    }
    all
}

fn reading(name: &'static str, open: for<'a> fn(&'a Input) -> Opened<'a>) -> Reading {
    Reading { name, open }
}

flatstream_test_support::readings_contract!(readings());

fn reclaiming(input: &Input) -> Opened<'_> {
    let reader = StreamReader::with_capacity(16, Opaque(&input.bytes[..]), Checked);
    let reader = reader.with_max_frame_len(max(input));
    Opened::Method(Box::new(reader.with_reclaim(ShrinkAbove::new(16, 32))))
}

/// A caller of `FrameAt` walking the frames of a stream it has: each frame at the offset after
/// the one before, past a frame rejected for its content too (its length is in its header).
struct Walk<'a> {
    fetch: Box<dyn FnMut(u64) -> Result<Vec<u8>> + 'a>,
    bytes: &'a [u8],
    at: u64,
    last: Vec<u8>,
}

impl<'a> Walk<'a> {
    fn new(bytes: &'a [u8], fetch: impl FnMut(u64) -> Result<Vec<u8>> + 'a) -> Self {
        Walk {
            fetch: Box::new(fetch),
            bytes,
            at: 0,
            last: Vec::new(),
        }
    }
}

impl Subject for Walk<'_> {
    fn read_message(&mut self) -> Result<Option<&[u8]>> {
        if self.at == self.bytes.len() as u64 {
            return Ok(None);
        }
        match (self.fetch)(self.at) {
            Ok(payload) => {
                self.last = payload;
                self.at += 8 + self.last.len() as u64;
                Ok(Some(&self.last))
            }
            Err(e) => {
                if e.is_content_error() {
                    let at = self.at as usize;
                    let len = u32::from_le_bytes(self.bytes[at..at + 4].try_into().unwrap());
                    self.at += 8 + u64::from(len);
                }
                Err(e)
            }
        }
    }
    fn process_all(&mut self, f: Callback<'_>) -> Result<()> {
        contract::process_each(self, f)
    }
    fn position(&self) -> u64 {
        self.at
    }
}

fn frame_at_slice(input: &Input) -> Opened<'_> {
    let at = FrameAt::new(Checked).with_max_frame_len(max(input));
    let bytes = &input.bytes[..];
    Opened::Method(Box::new(Walk::new(bytes, move |offset| {
        at.slice(bytes, offset).map(<[u8]>::to_vec)
    })))
}

fn frame_at_read(input: &Input) -> Opened<'_> {
    let at = FrameAt::new(Checked).with_max_frame_len(max(input));
    let mut source = Cursor::new(&input.bytes[..]);
    let mut buf = Vec::new();
    Opened::Method(Box::new(Walk::new(&input.bytes, move |offset| {
        at.read(&mut source, offset, &mut buf).map(<[u8]>::to_vec)
    })))
}

fn frames_iterated(input: &Input) -> Opened<'_> {
    Opened::Loop(looped(
        Frames::new(&input.bytes, Checked).with_max_frame_len(max(input)),
    ))
}

fn config_frames_iterated(input: &Input) -> Opened<'_> {
    let config = FrameConfig::new()
        .with_deframer(Checked)
        .with_max_frame_len(max(input));
    Opened::Loop(looped(config.frames(&input.bytes)))
}

fn split_iterated(input: &Input) -> Opened<'_> {
    let split = SplitFrames::new(&input.bytes, 0..input.bytes.len(), Checked).unwrap();
    Opened::Loop(looped(split.with_max_frame_len(max(input))))
}

/// What a loop over `reader.messages()` that logs each error and goes on sees.
fn messages_of(mut reader: impl MessageReader) -> Vec<Result<Vec<u8>>> {
    let mut messages = reader.messages();
    let mut items = Vec::new();
    while items.len() < LOOP_LIMIT {
        match messages.next() {
            Ok(Some(payload)) => items.push(Ok(payload.to_vec())),
            Ok(None) => break,
            Err(e) => items.push(Err(e)),
        }
    }
    items
}

fn stream_messages(input: &Input) -> Opened<'_> {
    let reader = StreamReader::new(Opaque(&input.bytes[..]), Checked);
    Opened::Loop(messages_of(reader.with_max_frame_len(max(input))))
}

fn buf_read_messages(input: &Input) -> Opened<'_> {
    let reader = BufReadStreamReader::new(&input.bytes[..], Checked);
    Opened::Loop(messages_of(reader.with_max_frame_len(max(input))))
}

fn salvage(input: &Input) -> Opened<'_> {
    let salvage = Salvage::new(&input.bytes, Checked).with_max_frame_len(max(input));
    Opened::Salvage(salvage.collect())
}

fn recover_scan(input: &Input) -> Opened<'_> {
    Opened::Recover(
        Recover::new(Checked)
            .with_max_frame_len(max(input))
            .scan(&input.bytes),
    )
}

fn recover_scan_reader(input: &Input) -> Opened<'_> {
    let recover = Recover::new(Checked).with_max_frame_len(max(input));
    Opened::Recover(recover.scan_reader(Opaque(&input.bytes[..])).unwrap())
}

#[cfg(feature = "bytes")]
fn bytes_frames_iterated(input: &Input) -> Opened<'_> {
    let bytes = bytes::Bytes::copy_from_slice(&input.bytes);
    let frames = flatstream::read::BytesFrames::new(bytes, Checked);
    Opened::Loop(looped(frames.with_max_frame_len(max(input))))
}

#[cfg(feature = "mmap")]
fn mapped_iterated(input: &Input) -> Opened<'_> {
    let file = flatstream_test_support::drivers::mapped(&input.bytes);
    Opened::Loop(looped(
        Frames::new(file, Checked).with_max_frame_len(max(input)),
    ))
}

/// `ParallelFrames`, each way of reading: the payloads handed out, sorted, and the result.
#[cfg(feature = "rayon")]
mod parallel {
    use super::*;
    use flatstream::split::ParallelFrames;
    use std::ops::ControlFlow;
    use std::sync::Mutex;

    fn frames(input: &Input) -> ParallelFrames<'_, Checked> {
        ParallelFrames::new(&input.bytes, Checked).with_max_frame_len(max(input))
    }

    fn sorted(seen: Mutex<Vec<Vec<u8>>>) -> Vec<Vec<u8>> {
        let mut seen = seen.into_inner().unwrap();
        seen.sort();
        seen
    }

    pub(super) fn unordered(input: &Input) -> Opened<'_> {
        let frames = frames(input);
        Opened::Call(Box::new(move || {
            let seen = Mutex::new(Vec::new());
            let result = frames.process_all(|p| {
                seen.lock().unwrap().push(p.to_vec());
                Ok(ControlFlow::Continue(()))
            });
            (sorted(seen), result)
        }))
    }

    pub(super) fn ordered(input: &Input) -> Opened<'_> {
        let frames = frames(input);
        Opened::Call(Box::new(move || {
            let mut seen = Vec::new();
            let result = frames.process_all_ordered(
                |p| Ok(p.to_vec()),
                |p| {
                    seen.push(p);
                    Ok(ControlFlow::Continue(()))
                },
            );
            (sorted(Mutex::new(seen)), result)
        }))
    }

    pub(super) fn fold(input: &Input) -> Opened<'_> {
        let frames = frames(input);
        Opened::Call(Box::new(move || {
            let seen = Mutex::new(Vec::new());
            let result = frames.fold(
                || 0usize,
                |n, p| {
                    *n += 1;
                    seen.lock().unwrap().push(p.to_vec());
                    Ok(())
                },
                |a, b| a + b,
            );
            let seen = sorted(seen);
            if let Ok(n) = &result {
                assert_eq!(*n, seen.len(), "ParallelFrames::fold: the count folded");
            }
            (seen, result.map(drop))
        }))
    }
}

#[cfg(feature = "tokio")]
fn framed_read(input: &Input) -> Opened<'_> {
    use futures_util::StreamExt;
    let codec = flatstream::tokio::FrameCodec::new(flatstream::DefaultFramer, Checked)
        .with_max_frame_len(max(input));
    let mut framed = tokio_util::codec::FramedRead::new(&input.bytes[..], codec);
    let rt = flatstream_test_support::drivers::tokio::runtime();
    let items: Vec<Result<bytes::Bytes>> = rt.block_on(async {
        let mut items = Vec::new();
        while items.len() < LOOP_LIMIT {
            match framed.next().await {
                Some(item) => items.push(item),
                None => break,
            }
        }
        items
    });
    Opened::Framed(looped(items))
}
