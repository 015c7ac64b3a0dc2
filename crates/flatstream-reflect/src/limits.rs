//! The bounds of a payload: how deep its tables nest, how many it holds, and what reading it
//! may cost. The verifier enforces them and [`explain`](crate::explain()) names them in its
//! messages; both take them from here.

/// How deep tables may nest in a payload (flatbuffers' default `max_depth`).
pub const MAX_DEPTH: usize = 64;

/// How many tables a payload may hold, each counted as often as it is referenced
/// (flatbuffers' default `max_tables`).
pub const MAX_TABLES: usize = 1_000_000;

/// The least budget of a payload, in bytes read: 64 MiB.
pub const BUDGET_FLOOR: usize = 64 << 20;

/// The budget of a payload per byte of it: reading may cost 8 times its length.
pub const BUDGET_PER_BYTE: usize = 8;

/// The budget of a payload of `len` bytes: how many bytes reading it may cost, each shared
/// reference counted as often as it is followed (see [`Verifier`](crate::Verifier)).
pub fn budget(len: usize) -> usize {
    BUDGET_FLOOR.max(len.saturating_mul(BUDGET_PER_BYTE))
}
