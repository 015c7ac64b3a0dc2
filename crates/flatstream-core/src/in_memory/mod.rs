//! Recognizing the sources whose bytes are already in memory, so that
//! [`StreamReader`](crate::StreamReader) can decode them in place instead of copying them out.
//! This is the crate's one module with `unsafe` code: the casts below, and, with the feature
//! `mmap`, the mapping of a file in [`mapped`] ([`MappedFile`](crate::MappedFile)), bytes in
//! memory too.
//!
//! Stable Rust has no specialization, so `StreamReader<R: Read>` cannot have a second
//! implementation for `&[u8]`. It asks instead, once per call, whether `R` is one of the four
//! types below, by comparing type ids that ignore lifetimes (`typeid::of`), then casts `R` to
//! the type found. The answer is the same for every call of a monomorphized reader, and the
//! optimiser folds it (checked in the generated code; `typeid::of` is not a `const fn`).
//! No safe alternative keeps the speed: `Any` needs `R: 'static`, which slices borrowed from the
//! caller are not, and copying the bytes out is what `read/reader_copy` measures against the
//! in-place rows in docs/benchmarks.md.
//!
//! # Why the casts are sound
//!
//! `typeid::of::<T>()` is the `TypeId` of `T` with every lifetime made `'static`, so two ids are
//! equal exactly when the types are equal up to lifetimes. When `R`'s id is that of `&[u8]`,
//! `R` is `&'b [u8]` for some lifetime `'b` we cannot name. The casts rely on nothing else:
//!
//! * **Reading** (`unread`) turns `&R` into `&&'x [u8]` for the lifetime `'x` of that borrow of
//!   the source. `'b` outlives the borrow (the source holds a `&'b [u8]` for as long as it is
//!   borrowed), so this only shortens a lifetime in a covariant position, which a safe coercion
//!   could do if the type were known.
//! * **Writing** (`take` on `&[u8]`) stores back into the source a subslice of the slice read
//!   from that very source: memory borrowed for `'b`, whatever lifetime the cast names. Nothing
//!   borrowed for a shorter lifetime is ever written through the cast reference. The cursors'
//!   writes change only their position, a `u64`.
//! * **The bytes handed out** are borrowed for the borrow of the source, never longer.
//!
//! The technique is not borrowed from elsewhere as a whole: libraries that compare lifetime-erased
//! type ids usually cast to `'static` types only and never write through the erased reference,
//! which is why each cast here carries its own argument. Miri checks the module's tests and the
//! in-place reader's (`.ci/run`).

#![allow(unsafe_code)]

#[cfg(feature = "mmap")]
pub(crate) mod mapped;

use std::io::Cursor;
use std::vec::Vec;

/// The in-memory sources `StreamReader` reads in place.
#[derive(Clone, Copy)]
enum Kind {
    Slice,
    SliceCursor,
    VecCursor,
    VecRefCursor,
}

/// Which in-memory source `R` is, if any. A constant once `R` is known.
#[inline(always)]
fn kind<R>() -> Option<Kind> {
    let id = typeid::of::<R>();
    if id == typeid::of::<&[u8]>() {
        Some(Kind::Slice)
    } else if id == typeid::of::<Cursor<&[u8]>>() {
        Some(Kind::SliceCursor)
    } else if id == typeid::of::<Cursor<Vec<u8>>>() {
        Some(Kind::VecCursor)
    } else if id == typeid::of::<Cursor<&Vec<u8>>>() {
        Some(Kind::VecRefCursor)
    } else {
        None
    }
}

/// Whether `R` is a source whose bytes are already in memory.
#[inline(always)]
pub(crate) fn is_in_memory<R>() -> bool {
    kind::<R>().is_some()
}

/// The bytes of `source` not read yet, if it is an in-memory source: `&[u8]`, or a `Cursor`
/// over `&[u8]`, `Vec<u8>` or `&Vec<u8>`.
#[inline(always)]
pub(crate) fn unread<R>(source: &R) -> Option<&[u8]> {
    let source: *const R = source;
    match kind::<R>()? {
        Kind::Slice => {
            // SAFETY: `R` has the type id of `&[u8]`, and type ids that ignore lifetimes are
            // equal only for the same type up to lifetimes: `R` is `&'b [u8]` for some `'b`
            // that outlives this borrow of `source`. Reading a `&&'b [u8]` as a `&&[u8]` of the
            // borrow's lifetime only shortens a lifetime, as a covariant coercion would.
            let slice = unsafe { &*source.cast::<&[u8]>() };
            Some(slice)
        }
        Kind::SliceCursor => {
            // SAFETY: as above, `R` is `Cursor<&'b [u8]>`; the cursor is only read.
            let cursor = unsafe { &*source.cast::<Cursor<&[u8]>>() };
            Some(rest(cursor.get_ref(), cursor.position()))
        }
        Kind::VecCursor => {
            // SAFETY: `R` is `Cursor<Vec<u8>>` (no lifetime at all); the cursor is only read.
            let cursor = unsafe { &*source.cast::<Cursor<Vec<u8>>>() };
            Some(rest(cursor.get_ref(), cursor.position()))
        }
        Kind::VecRefCursor => {
            // SAFETY: as for `Slice`, `R` is `Cursor<&'b Vec<u8>>`; the cursor is only read.
            let cursor = unsafe { &*source.cast::<Cursor<&Vec<u8>>>() };
            Some(rest(cursor.get_ref(), cursor.position()))
        }
    }
}

/// Marks the next `n` bytes of an in-memory source as read, and returns them, borrowed for as
/// long as `source` is. `n` must be at most the length of [`unread`]; for any other source,
/// returns an empty slice and changes nothing.
#[inline(always)]
pub(crate) fn take<R>(source: &mut R, n: usize) -> &[u8] {
    let source: *mut R = source;
    match kind::<R>() {
        Some(Kind::Slice) => {
            // SAFETY: `R` is `&'b [u8]` (see `unread`). The cast reference is used only to
            // split the slice it points to and to store back the second part: a slice of the
            // same `'b` memory, so the source stays a valid `&'b [u8]` whatever lifetime the
            // cast names. The first part is returned for the borrow of `source` only.
            let slice = unsafe { &mut *source.cast::<&[u8]>() };
            let (taken, rest) = slice.split_at(n);
            *slice = rest;
            taken
        }
        Some(Kind::SliceCursor) => {
            // SAFETY: `R` is `Cursor<&'b [u8]>`; only its position is written.
            let cursor = unsafe { &mut *source.cast::<Cursor<&[u8]>>() };
            advance(cursor, n)
        }
        Some(Kind::VecCursor) => {
            // SAFETY: `R` is `Cursor<Vec<u8>>`; only its position is written.
            let cursor = unsafe { &mut *source.cast::<Cursor<Vec<u8>>>() };
            advance(cursor, n)
        }
        Some(Kind::VecRefCursor) => {
            // SAFETY: `R` is `Cursor<&'b Vec<u8>>`; only its position is written.
            let cursor = unsafe { &mut *source.cast::<Cursor<&Vec<u8>>>() };
            advance(cursor, n)
        }
        None => &[],
    }
}

/// The bytes of a cursor's buffer from `position` on (none past the end, as `Read` does).
#[inline(always)]
fn rest(bytes: &[u8], position: u64) -> &[u8] {
    let start = usize::try_from(position).map_or(bytes.len(), |p| p.min(bytes.len()));
    &bytes[start..]
}

/// Moves a cursor `n` bytes on and returns the bytes it passed. `n` must be at most the bytes
/// left (the reader's calls take it from those); if not, this panics and the cursor stays.
#[inline(always)]
fn advance<T: AsRef<[u8]>>(cursor: &mut Cursor<T>, n: usize) -> &[u8] {
    let position = cursor.position();
    let left = rest(cursor.get_ref().as_ref(), position).len();
    assert!(n <= left, "taking {n} of {left} bytes");
    // No overflow: `position + n` is at most the buffer's length, or `n` is 0.
    cursor.set_position(position + n as u64);
    let cursor = &*cursor;
    &rest(cursor.get_ref().as_ref(), position)[..n]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognizes_the_in_memory_sources_and_nothing_else() {
        assert!(is_in_memory::<&[u8]>());
        assert!(is_in_memory::<Cursor<&[u8]>>());
        assert!(is_in_memory::<Cursor<Vec<u8>>>());
        assert!(is_in_memory::<Cursor<&Vec<u8>>>());
        assert!(!is_in_memory::<&mut [u8]>());
        assert!(!is_in_memory::<&&[u8]>());
        assert!(!is_in_memory::<Cursor<&mut [u8]>>());
        assert!(!is_in_memory::<std::io::BufReader<&[u8]>>());
        assert!(!is_in_memory::<std::io::Empty>());
    }

    #[test]
    fn takes_bytes_from_each_in_memory_source() {
        let bytes = [1u8, 2, 3, 4, 5];
        let mut slice = &bytes[..];
        assert_eq!(unread(&slice), Some(&bytes[..]));
        assert_eq!(take(&mut slice, 2), [1, 2]);
        assert_eq!(slice, [3, 4, 5]);

        let mut cursor = Cursor::new(&bytes[..]);
        cursor.set_position(1);
        assert_eq!(unread(&cursor), Some(&bytes[1..]));
        assert_eq!(take(&mut cursor, 3), [2, 3, 4]);
        assert_eq!(cursor.position(), 4);
        cursor.set_position(99);
        assert_eq!(unread(&cursor), Some(&[][..]));

        let mut cursor = Cursor::new(bytes.to_vec());
        assert_eq!(take(&mut cursor, 5), bytes);
        assert_eq!(unread(&cursor), Some(&[][..]));

        let vec = bytes.to_vec();
        let mut cursor = Cursor::new(&vec);
        assert_eq!(take(&mut cursor, 1), [1]);
        assert_eq!(unread(&cursor), Some(&bytes[1..]));

        let mut other = std::io::empty();
        assert_eq!(unread(&other), None);
        assert_eq!(take(&mut other, 0), [] as [u8; 0]);
    }
}
