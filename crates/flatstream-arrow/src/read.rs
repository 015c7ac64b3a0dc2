//! Bounds-checked little-endian reads from a payload. After verification none of them fails;
//! they are checked anyway, so that a reader that misunderstood a buffer gives an error, never
//! a panic.

/// Why a verified buffer could not be read: a bug, reported as an error.
pub(crate) type ReadResult<T = ()> = Result<T, String>;

/// A scalar read from its little-endian bytes.
pub(crate) trait Le: Copy {
    /// Reads the value at `pos`.
    fn read(buf: &[u8], pos: usize) -> ReadResult<Self>;
}

macro_rules! le {
    ($($t:ty),*) => {$(
        impl Le for $t {
            #[inline]
            fn read(buf: &[u8], pos: usize) -> ReadResult<Self> {
                buf.get(pos..)
                    .and_then(|rest| rest.first_chunk())
                    .map(|bytes| <$t>::from_le_bytes(*bytes))
                    .ok_or_else(|| past_end(pos))
            }
        }
    )*};
}
le!(i8, u8, i16, u16, i32, u32, i64, u64, f32, f64);

impl Le for bool {
    #[inline]
    fn read(buf: &[u8], pos: usize) -> ReadResult<Self> {
        Ok(u8::read(buf, pos)? != 0)
    }
}

#[cold]
fn past_end(pos: usize) -> String {
    format!("read past the end of the payload at byte {pos}")
}

/// Where the offset (uoffset) at `pos` points.
#[inline]
pub(crate) fn follow(buf: &[u8], pos: usize) -> ReadResult<usize> {
    pos.checked_add(u32::read(buf, pos)? as usize)
        .ok_or_else(|| past_end(pos))
}

/// The vtable of the table at `loc`: its position and length in bytes.
#[inline]
pub(crate) fn vtable(buf: &[u8], loc: usize) -> ReadResult<(usize, usize)> {
    let at = i64::try_from(loc).map_err(|_| past_end(loc))? - i64::from(i32::read(buf, loc)?);
    let at = usize::try_from(at).map_err(|_| "a vtable before the payload".to_owned())?;
    Ok((at, usize::from(u16::read(buf, at)?)))
}

/// The position of the field whose vtable slot is `slot` in the table at `loc`, if present.
#[inline]
pub(crate) fn field(
    buf: &[u8],
    loc: usize,
    (vtable, vtable_len): (usize, usize),
    slot: u16,
) -> ReadResult<Option<usize>> {
    let slot = usize::from(slot);
    if slot + 2 > vtable_len {
        return Ok(None);
    }
    let voffset = u16::read(buf, vtable + slot)?;
    Ok((voffset != 0).then(|| loc + usize::from(voffset)))
}

/// The bytes of the vector or string whose offset is at `pos`, `size` bytes per element, and
/// its length in elements.
#[inline]
pub(crate) fn vector(buf: &[u8], pos: usize, size: usize) -> ReadResult<(usize, usize)> {
    let at = follow(buf, pos)?;
    let len = u32::read(buf, at)? as usize;
    let start = at + 4;
    len.checked_mul(size)
        .and_then(|n| start.checked_add(n))
        .filter(|&end| end <= buf.len())
        .ok_or_else(|| format!("the vector at byte {at} runs past the end of the payload"))?;
    Ok((start, len))
}
