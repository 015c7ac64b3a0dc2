//! Memory-mapping a stream file for the read-path benchmark: the one place in the bench crate
//! that maps memory, so the one place that needs `unsafe` for it.

#![allow(unsafe_code)]

use memmap2::Mmap;
use std::fs::File;
use std::io;

/// Maps `file` read-only.
///
/// The benchmarks map files they wrote themselves, in their own target directory, and do not
/// modify or truncate them while the map is alive.
pub fn map(file: &File) -> io::Result<Mmap> {
    // SAFETY: `Mmap::map` is unsafe because another process (or this one) could change or
    // truncate the file while it is mapped, which would change or invalidate memory we hold as
    // `&[u8]`. The files mapped here are written by the benchmark before mapping and left alone
    // until the map is dropped.
    unsafe { Mmap::map(file) }
}
