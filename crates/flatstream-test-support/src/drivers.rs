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

use crate::Opaque;
use crate::contract::{Driver, Input, Subject};
use crate::faults::FaultySource;
use flatstream_core::{BufReadStreamReader, Deframer, Frames, StreamReader};
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
fn source(input: &Input) -> Box<dyn Read + '_> {
    let bytes = &input.bytes[..];
    match &input.faults {
        None => Box::new(Opaque(bytes)),
        Some(faults) => Box::new(FaultySource::with_faults(bytes, faults.clone())),
    }
}

/// A driver: its name, whether it does I/O, the smallest capacity it takes, and the reader
/// `$reader` it makes from `$input` and `$deframer`.
macro_rules! driver {
    (
        $(#[$doc:meta])*
        $name:ident: $what:literal, io: $io:literal, min_capacity: $min:expr,
        |$input:ident, $deframer:ident| $reader:expr
    ) => {
        $(#[$doc])*
        pub struct $name;

        impl Driver for $name {
            const NAME: &'static str = $what;
            const HAS_IO: bool = $io;
            const MIN_CAPACITY: Option<usize> = $min;

            fn open<'a, D>($input: &'a Input, $deframer: D) -> Box<dyn Subject + 'a>
            where
                D: Deframer + 'a,
            {
                Box::new(bounded!($reader, $input))
            }
        }
    };
}

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
