//! A counting global allocator for allocation tests and the allocation benchmark suite.
//!
//! Counts are kept per thread, so tests running in parallel do not see each other's
//! allocations. Install it in a test or bench binary of its own with
//!
//! ```ignore
//! #[global_allocator]
//! static ALLOC: flatstream_test_support::alloc::CountingAlloc =
//!     flatstream_test_support::alloc::CountingAlloc;
//! ```
//!
//! This is the crate's one module with `unsafe` code: implementing `GlobalAlloc` requires it.
//! Every block forwards to the system allocator unchanged.

#![allow(unsafe_code)]

use flatstream_core::MessageReader;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// Wraps the system allocator and counts, per thread, the allocations made.
#[derive(Debug, Clone, Copy, Default)]
pub struct CountingAlloc;

/// What a thread allocated while a closure ran.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AllocStats {
    /// Calls to `alloc`, `alloc_zeroed` and `realloc`.
    pub allocations: u64,
    /// Bytes requested by those calls (for `realloc`, the new size).
    pub bytes: u64,
    /// The largest single request, in bytes.
    pub largest: u64,
}

thread_local! {
    static STATS: Cell<AllocStats> = const {
        Cell::new(AllocStats { allocations: 0, bytes: 0, largest: 0 })
    };
}

fn record(size: usize) {
    // `try_with`: allocations can happen while the thread's locals are being torn down.
    let _ = STATS.try_with(|s| {
        let mut v = s.get();
        v.allocations += 1;
        v.bytes += size as u64;
        v.largest = v.largest.max(size as u64);
        s.set(v);
    });
}

fn snapshot() -> AllocStats {
    STATS.with(Cell::get)
}

/// Runs `f` and returns what the current thread allocated meanwhile.
pub fn measure<R>(f: impl FnOnce() -> R) -> (R, AllocStats) {
    let before = snapshot();
    let result = f();
    let after = snapshot();
    let largest = if after.largest > before.largest {
        after.largest
    } else {
        0
    };
    (
        result,
        AllocStats {
            allocations: after.allocations - before.allocations,
            bytes: after.bytes - before.bytes,
            largest,
        },
    )
}

/// Runs `f` and returns what the current thread allocated meanwhile, with `largest` exact: it is
/// reset for the duration of `f` and restored after.
pub fn measure_exact<R>(f: impl FnOnce() -> R) -> (R, AllocStats) {
    let saved = snapshot();
    STATS.with(|s| s.set(AllocStats::default()));
    let result = f();
    let during = snapshot();
    STATS.with(|s| {
        s.set(AllocStats {
            allocations: saved.allocations + during.allocations,
            bytes: saved.bytes + during.bytes,
            largest: saved.largest.max(during.largest),
        })
    });
    (result, during)
}

/// What `write(i)` allocates in steady state: called for `i` in `0..100` to warm up, then
/// measured (as [`measure_exact`]) over `100..10_100`.
pub fn steady_state(mut write: impl FnMut(u64)) -> AllocStats {
    for i in 0..100 {
        write(i);
    }
    measure_exact(|| (100..10_100).for_each(&mut write)).1
}

/// Reads `reader` to its end with `read_message`, measured as [`measure_exact`]: the number of
/// messages read and what reading them allocated.
pub fn measure_reading<M: MessageReader + ?Sized>(reader: &mut M) -> (u64, AllocStats) {
    measure_exact(|| {
        let mut n = 0;
        while reader.read_message().expect("a valid stream").is_some() {
            n += 1;
        }
        n
    })
}

/// The messages of `reader` to its end, counted in one `process_all` pass (no other work, so
/// that what a measurement around it sees is the reader's own).
pub fn count_all<M: MessageReader>(reader: &mut M) -> flatstream_core::Result<u64> {
    let mut n = 0;
    reader.process_all(|_| {
        n += 1;
        Ok(())
    })?;
    Ok(n)
}

/// Panics unless [`CountingAlloc`] is the global allocator of this binary: without it every
/// measurement reads 0, and a test that expects few allocations would pass for nothing.
pub fn assert_installed() {
    let (v, stats) = measure_exact(|| std::hint::black_box(Vec::<u8>::with_capacity(1)));
    drop(v);
    assert_eq!(
        stats.allocations, 1,
        "install `CountingAlloc` as the `#[global_allocator]` of this test binary"
    );
}

// SAFETY: every method forwards its arguments unchanged to `System`,
// which upholds the `GlobalAlloc` contract; counting touches only a thread-local `Cell` and
// never allocates.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        record(layout.size());
        // SAFETY: the caller upholds `alloc`'s contract (non-zero size); forwarded as is.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        record(layout.size());
        // SAFETY: as for `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by `System` through this allocator with `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        record(new_size);
        // SAFETY: `ptr` was allocated by `System` through this allocator with `layout`; the
        // caller upholds `realloc`'s contract for `new_size`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}
