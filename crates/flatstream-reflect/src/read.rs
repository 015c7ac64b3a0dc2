//! The one way to read a field: bounds-checked little-endian reads from a payload, for the
//! readers that walk a payload the [`Verifier`](crate::Verifier) passed (`flatstream cat`'s JSON,
//! `flatstream-arrow`'s columns). After verification none of them fails; they are checked
//! anyway, so that a reader that misunderstood a buffer gives an error, never a panic.

/// Why a verified buffer could not be read: a bug, reported as an error.
pub type ReadResult<T = ()> = Result<T, String>;

/// A scalar read from its little-endian bytes.
pub trait Le: Copy {
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

/// The offset of the root table: where the uoffset at byte 0 points.
#[inline]
pub fn root(buf: &[u8]) -> ReadResult<usize> {
    follow(buf, 0)
}

/// Where the offset (uoffset) at `pos` points.
#[inline]
pub fn follow(buf: &[u8], pos: usize) -> ReadResult<usize> {
    pos.checked_add(u32::read(buf, pos)? as usize)
        .ok_or_else(|| past_end(pos))
}

/// The vtable of the table at `loc`: its position and length in bytes.
#[inline]
pub fn vtable(buf: &[u8], loc: usize) -> ReadResult<(usize, usize)> {
    let at = i64::try_from(loc).map_err(|_| past_end(loc))? - i64::from(i32::read(buf, loc)?);
    let at = usize::try_from(at).map_err(|_| "a vtable before the payload".to_owned())?;
    Ok((at, usize::from(u16::read(buf, at)?)))
}

/// The position of the field whose vtable slot is `slot` in the table at `loc`, if present.
#[inline]
pub fn field(
    buf: &[u8],
    loc: usize,
    (vtable, vtable_len): (usize, usize),
    slot: u16,
) -> ReadResult<Option<usize>> {
    let slot = usize::from(slot);
    if slot.saturating_add(2) > vtable_len {
        return Ok(None);
    }
    let voffset = u16::read(buf, vtable.saturating_add(slot))?;
    Ok((voffset != 0).then(|| loc.saturating_add(usize::from(voffset))))
}

/// The bytes of the vector or string whose offset is at `pos`, `size` bytes per element, and
/// its length in elements.
#[inline]
pub fn vector(buf: &[u8], pos: usize, size: usize) -> ReadResult<(usize, usize)> {
    let at = follow(buf, pos)?;
    let len = u32::read(buf, at)? as usize;
    let start = at.saturating_add(4);
    len.checked_mul(size)
        .and_then(|n| start.checked_add(n))
        .filter(|&end| end <= buf.len())
        .ok_or_else(|| format!("the vector at byte {at} runs past the end of the payload"))?;
    Ok((start, len))
}

/// The string whose offset is at `pos`.
#[inline]
pub fn string(buf: &[u8], pos: usize) -> ReadResult<&str> {
    string_at(buf, follow(buf, pos)?)
}

/// The string at `at` (its length, then its bytes: a union's string member is there).
#[inline]
pub fn string_at(buf: &[u8], at: usize) -> ReadResult<&str> {
    let len = u32::read(buf, at)? as usize;
    let start = at.saturating_add(4);
    let bytes = start
        .checked_add(len)
        .and_then(|end| buf.get(start..end))
        .ok_or_else(|| format!("the string at byte {at} runs past the end of the payload"))?;
    std::str::from_utf8(bytes).map_err(|e| format!("the string at byte {start} is not UTF-8: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_past_the_end_are_errors() {
        assert!(u32::read(&[1, 2, 3], 0).is_err());
        assert!(u32::read(&[1, 2, 3, 4], usize::MAX).is_err());
        assert_eq!(u16::read(&[1, 2, 3], 1), Ok(0x0302));
        assert!(follow(&[0xff, 0xff, 0xff, 0xff], 0).is_ok());
        assert!(vector(&[4, 0, 0, 0, 0xff, 0xff, 0xff, 0xff], 0, 1).is_err());
        assert!(string(&[4, 0, 0, 0, 2, 0, 0, 0, b'h', b'i'], 0).is_ok_and(|s| s == "hi"));
        assert!(string(&[4, 0, 0, 0, 2, 0, 0, 0, 0xff, b'i'], 0).is_err());
        assert!(field(&[], 0, (usize::MAX, 8), 4).is_err());
    }
}
