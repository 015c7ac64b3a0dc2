//! Drivers of the core's readers for the [contract](crate::contract): one per reader and kind
//! of source.
//!
//! | driver | reader | source | I/O | capacity set |
//! |---|---|---|---|---|
//! | [`Copying`] | `StreamReader` | [`Opaque`] bytes or a [`FaultySource`] | yes | from 16 |
//! | [`InPlaceSlice`] | `StreamReader` | `&[u8]` | no | |
//! | [`InPlaceCursor`] | `StreamReader` | `Cursor<&[u8]>` | no | |
//! | [`InPlaceCursorVec`] | `StreamReader` | `Cursor<Vec<u8>>` | no | |
//! | [`InPlaceCursorVecRef`] | `StreamReader` | `Cursor<&Vec<u8>>` | no | |
//! | [`BufReaderSource`] | `BufReadStreamReader` | `BufReader` of either | yes | from 1 |
//! | [`BufReadSlice`] | `BufReadStreamReader` | `&[u8]` | no | |
//! | [`SliceFrames`] | `Frames` | `&[u8]` | no | |
//! | [`ConfigReader`] | `StreamReader` from a `FrameConfig` | as [`Copying`] | yes | from 16 |
//! | [`ConfigFrames`] | `Frames` from a `FrameConfig` | `&[u8]` | no | |
//! | [`ReadBufferLoop`] | `ReadBuffer` driven by hand | as [`Copying`] | yes | from 16 |
//! | [`SplitWhole`] | `SplitFrames` over `0..len` | `&[u8]` | no | |
//! | [`MappedFrames`] | `Frames` | a `MappedFile` | no | |
//! | [`BytesFramesDriver`] | `BytesFrames` | `bytes::Bytes` | no | |
//! | [`FollowerDriver`] | `Follower` (waits for a frame cut short) | as [`Copying`] | yes | |
//!
//! With the feature `tokio`, [`tokio`](mod@tokio) drives the async reader and the codec.

use crate::Opaque;
use crate::contract::{Driver, Input, Subject};
use crate::faults::FaultySource;
use flatstream_core::{
    BufReadStreamReader, DefaultFramer, Deframer, FrameConfig, Frames, Next, ReadBuffer,
    StreamReader,
};
use std::io::{BufReader, Cursor, Read};

/// `$reader` with the bound the [`Input`] `$input` asks for, if any: for the drivers here and
/// those of other crates (the async reader, the codec).
#[macro_export]
macro_rules! bounded {
    ($reader:expr, $input:expr) => {
        match $input.max_frame_len {
            Some(max) => $reader.with_max_frame_len(max),
            None => $reader,
        }
    };
}

/// The input's bytes behind a `Read` that the readers copy from: as they are, or through the
/// input's faults.
pub fn source(input: &Input) -> Box<dyn Read + Send + '_> {
    let bytes = &input.bytes[..];
    match &input.faults {
        None => Box::new(Opaque(bytes)),
        Some(faults) => Box::new(FaultySource::with_faults(bytes, faults.clone())),
    }
}

/// A driver: its name, whether it does I/O, the smallest capacity it takes, and the reader
/// `$reader` it makes from `$input` and `$deframer`, given the input's bound; or, after
/// `subject`, the [`Subject`] it opens as it is (it applies the bound itself).
macro_rules! driver {
    (
        $(#[$doc:meta])*
        $name:ident: $what:literal, io: $io:literal, min_capacity: $min:expr
        $(, cut_frame_waits: $waits:literal)?,
        |$input:ident, $deframer:ident| subject $subject:expr
    ) => {
        $(#[$doc])*
        pub struct $name;

        impl Driver for $name {
            const NAME: &'static str = $what;
            const HAS_IO: bool = $io;
            const MIN_CAPACITY: Option<usize> = $min;
            $(const CUT_FRAME_WAITS: bool = $waits;)?

            fn open<'a, D>($input: &'a Input, $deframer: D) -> Box<dyn Subject + 'a>
            where
                D: Deframer + 'a,
            {
                Box::new($subject)
            }
        }
    };
    (
        $(#[$doc:meta])*
        $name:ident: $what:literal, io: $io:literal, min_capacity: $min:expr,
        |$input:ident, $deframer:ident| $reader:expr
    ) => {
        driver! {
            $(#[$doc])*
            $name: $what, io: $io, min_capacity: $min,
            |$input, $deframer| subject bounded!($reader, $input)
        }
    };
}

// After the macro, which they use.
mod situational;
#[cfg(feature = "tokio")]
pub mod tokio;

pub use situational::{
    BytesFramesDriver, FollowerDriver, FollowerSubject, MappedFrames, SplitWhole, mapped,
};

driver! {
    /// `StreamReader` copying through its buffer, from [`Opaque`] bytes or a [`FaultySource`].
    Copying: "StreamReader, copying", io: true, min_capacity: Some(16),
    |input, d| match input.capacity {
        Some(capacity) => StreamReader::with_capacity(capacity, source(input), d),
        None => StreamReader::new(source(input), d),
    }
}

driver! {
    /// `BufReadStreamReader` over a `BufReader` of [`Opaque`] bytes or a [`FaultySource`].
    BufReaderSource: "BufReadStreamReader over a BufReader", io: true, min_capacity: Some(1),
    |input, d| {
        let source = match input.capacity {
            Some(capacity) => BufReader::with_capacity(capacity, source(input)),
            None => BufReader::new(source(input)),
        };
        BufReadStreamReader::new(source, d)
    }
}

driver! {
    /// `StreamReader`, in place over `&[u8]`.
    InPlaceSlice: "StreamReader, in place over &[u8]", io: false, min_capacity: None,
    |input, d| StreamReader::new(&input.bytes[..], d)
}

driver! {
    /// `StreamReader`, in place over `Cursor<&[u8]>`.
    InPlaceCursor: "StreamReader, in place over Cursor<&[u8]>",
    io: false, min_capacity: None,
    |input, d| StreamReader::new(Cursor::new(&input.bytes[..]), d)
}

driver! {
    /// `StreamReader`, in place over `Cursor<Vec<u8>>` (a copy of the input).
    InPlaceCursorVec: "StreamReader, in place over Cursor<Vec<u8>>",
    io: false, min_capacity: None,
    |input, d| StreamReader::new(Cursor::new(input.bytes.clone()), d)
}

driver! {
    /// `StreamReader`, in place over `Cursor<&Vec<u8>>`.
    InPlaceCursorVecRef: "StreamReader, in place over Cursor<&Vec<u8>>",
    io: false, min_capacity: None,
    |input, d| StreamReader::new(Cursor::new(&input.bytes), d)
}

driver! {
    /// `BufReadStreamReader` over `&[u8]`, whose buffer is all of it.
    BufReadSlice: "BufReadStreamReader over &[u8]", io: false, min_capacity: None,
    |input, d| BufReadStreamReader::new(&input.bytes[..], d)
}

driver! {
    /// `Frames`, the slice iterator, read through `MessageReader`.
    SliceFrames: "Frames", io: false, min_capacity: None,
    |input, d| Frames::new(&input.bytes, d)
}

/// A deframer shared by reference count, so that a [`FrameConfig`] (which clones its deframer
/// into each reader it builds) can hold any deframer a case gives.
#[derive(Debug)]
pub struct Shared<D>(pub std::rc::Rc<D>);

impl<D> Clone for Shared<D> {
    fn clone(&self) -> Self {
        Shared(self.0.clone())
    }
}

impl<D: Deframer> Deframer for Shared<D> {
    fn checksum_size(&self) -> usize {
        self.0.checksum_size()
    }
    fn max_payload_len(&self) -> usize {
        self.0.max_payload_len()
    }
    fn verify(&self, checksum: &[u8], payload: &[u8], offset: u64) -> flatstream_core::Result<()> {
        self.0.verify(checksum, payload, offset)
    }
}

/// The [`FrameConfig`] an [`Input`] asks for: its deframer, bound and capacity.
pub fn config<D: Deframer>(input: &Input, deframer: D) -> FrameConfig<DefaultFramer, Shared<D>> {
    let mut config = FrameConfig::new().with_deframer(Shared(std::rc::Rc::new(deframer)));
    if let Some(max) = input.max_frame_len {
        config = config.with_max_frame_len(max);
    }
    if let Some(capacity) = input.capacity {
        config = config.with_capacity(capacity);
    }
    config
}

driver! {
    /// `StreamReader` built by [`FrameConfig::reader`], copying from [`Opaque`] bytes or a
    /// [`FaultySource`].
    ConfigReader: "FrameConfig::reader, copying", io: true, min_capacity: Some(16),
    |input, d| subject config(input, d).reader(source(input))
}

driver! {
    /// `Frames` built by [`FrameConfig::frames`].
    ConfigFrames: "FrameConfig::frames", io: false, min_capacity: None,
    |input, d| subject config(input, d).frames(&input.bytes)
}

driver! {
    /// [`ReadBuffer`] driven by hand as its documentation shows, over [`Opaque`] bytes or a
    /// [`FaultySource`]: the sans-I/O buffer itself under the contract.
    ReadBufferLoop: "ReadBuffer, driven by hand", io: true, min_capacity: Some(16),
    |input, d| subject BufferLoop::new(input, d)
}

/// The reader [`ReadBufferLoop`] opens.
struct BufferLoop<'a, D> {
    source: Box<dyn Read + 'a>,
    buffer: ReadBuffer<D>,
}

impl<'a, D: Deframer> BufferLoop<'a, D> {
    /// A buffer of the input's capacity and bound, fed from its source.
    fn new(input: &'a Input, deframer: D) -> Self {
        let mut buffer = ReadBuffer::new(deframer);
        if let Some(max) = input.max_frame_len {
            buffer.set_max_frame_len(max);
        }
        if let Some(capacity) = input.capacity {
            buffer = buffer.with_capacity(capacity);
        }
        BufferLoop {
            source: source(input),
            buffer,
        }
    }

    fn next(&mut self) -> flatstream_core::Result<Option<std::ops::Range<usize>>> {
        loop {
            if let Next::Frame(payload) = self.buffer.next_frame()? {
                return Ok(Some(payload));
            }
            let space = self.buffer.read_space();
            match self.source.read(space) {
                Ok(0) => return self.buffer.finish().map(|()| None),
                Ok(n) => self.buffer.commit(n),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.buffer.io_error(e)),
            }
        }
    }
}

impl<D: Deframer> Subject for BufferLoop<'_, D> {
    fn read_message(&mut self) -> flatstream_core::Result<Option<&[u8]>> {
        Ok(self.next()?.map(|payload| self.buffer.payload(payload)))
    }
    fn process_all(&mut self, f: crate::contract::Callback<'_>) -> flatstream_core::Result<()> {
        loop {
            if self.buffer.process_buffered(f)?.is_break() {
                return Ok(());
            }
            let space = self.buffer.read_space();
            match self.source.read(space) {
                Ok(0) => return self.buffer.finish(),
                Ok(n) => self.buffer.commit(n),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.buffer.io_error(e)),
            }
        }
    }
    fn position(&self) -> u64 {
        self.buffer.position()
    }
}
