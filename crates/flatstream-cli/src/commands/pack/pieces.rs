//! Bytes laid out by hand and pushed into a FlatBuffer: a struct (its fields at the schema's
//! offsets) and a vector of scalars or structs go in as pieces of their alignment, pushed
//! last first, so that each piece lands aligned and none is padded from the next. The
//! builder's own `push` aligns each piece; its `Push` trait has a fixed size per Rust type,
//! which a struct known only from the schema does not have.

use flatbuffers::{FlatBufferBuilder, VOffsetT};

/// A piece of a struct or a vector of scalars, pushed as a scalar of its size so that the
/// builder aligns it.
#[derive(Clone, Copy)]
enum Piece {
    B1(u8),
    B2(u16),
    B4(u32),
    B8(u64),
}

impl Piece {
    /// `bytes` (1, 2, 4 or 8 of them) as one piece.
    fn of(bytes: &[u8]) -> Piece {
        match *bytes {
            [a, b] => Piece::B2(u16::from_le_bytes([a, b])),
            [a, b, c, d] => Piece::B4(u32::from_le_bytes([a, b, c, d])),
            [a, b, c, d, e, f, g, h] => Piece::B8(u64::from_le_bytes([a, b, c, d, e, f, g, h])),
            [a, ..] => Piece::B1(a),
            [] => Piece::B1(0),
        }
    }

    fn push(self, b: &mut FlatBufferBuilder<'static>) -> u32 {
        match self {
            Piece::B1(v) => b.push(v).value(),
            Piece::B2(v) => b.push(v).value(),
            Piece::B4(v) => b.push(v).value(),
            Piece::B8(v) => b.push(v).value(),
        }
    }

    fn push_slot(self, b: &mut FlatBufferBuilder<'static>, voffset: VOffsetT) {
        match self {
            Piece::B1(v) => b.push_slot_always(voffset, v),
            Piece::B2(v) => b.push_slot_always(voffset, v),
            Piece::B4(v) => b.push_slot_always(voffset, v),
            Piece::B8(v) => b.push_slot_always(voffset, v),
        }
    }
}

/// Pushes a struct's `bytes` (a multiple of `align`, 1, 2, 4 or 8) as pieces of `align`
/// bytes, last first: each piece lands aligned, so no padding comes between them and the
/// struct starts aligned. With `slot`, the first piece (the struct's start) goes into that
/// slot of the table under construction. Returns the struct's offset (outside a table).
pub(super) fn push_struct(
    b: &mut FlatBufferBuilder<'static>,
    bytes: &[u8],
    align: usize,
    slot: Option<VOffsetT>,
) -> u32 {
    let mut pieces = bytes.chunks_exact(align).rev().map(Piece::of).peekable();
    let mut at = 0;
    while let Some(piece) = pieces.next() {
        match slot {
            Some(voffset) if pieces.peek().is_none() => piece.push_slot(b, voffset),
            _ => at = piece.push(b),
        }
    }
    at
}

/// Writes a vector of `count` elements whose bytes are `bytes`, aligned to `align` (1, 2, 4
/// or 8); returns its offset.
pub(super) fn raw_vector(
    b: &mut FlatBufferBuilder<'static>,
    bytes: &[u8],
    count: usize,
    align: usize,
) -> u32 {
    if bytes.len() == count {
        // One byte per element: the bytes as they are.
        return b.create_vector(bytes).value();
    }
    let pieces = bytes.len() / align;
    match align {
        2 => b.start_vector::<u16>(pieces),
        4 => b.start_vector::<u32>(pieces),
        8 => b.start_vector::<u64>(pieces),
        _ => b.start_vector::<u8>(pieces),
    }
    for piece in bytes.chunks_exact(align).rev() {
        Piece::of(piece).push(b);
    }
    b.end_vector::<u8>(count).value()
}
