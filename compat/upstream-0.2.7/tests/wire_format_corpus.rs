//! FlatStream 0.2.7's `tests/wire_format_corpus.rs`, compiled and run against flatstream **unmodified**:
//! the point of it is that code written for 0.2.7 compiles against flatstream (see `docs/migrating.md`).
//!
//! Source: <https://github.com/dallasmarlow/flatstream-rs>, commit
//! 23c54db418d5c594c13d36d58ba97c61a65e6d25 (0.2.7, upstream's latest), licensed MIT OR
//! Apache-2.0 as this repository is. `upstream/wire_format_corpus.rs` is that file byte for byte; the
//! golden wire files it reads (`tests/corpus/*.hex`, a path relative to the package root, the
//! working directory of `cargo test`) are upstream's too. Do not edit them: a change needed to
//! make them pass is a change to flatstream's surface. This wrapper only holds the notice and
//! allows two lints upstream's code meets here: `usize::is_multiple_of` is Rust 1.87, newer
//! than our `rust-version`, and `ErrorKind`'s variants carry no fields, so the
//! `ErrorKind::ChecksumMismatch { .. }` pattern 0.2.7 needed is more than ours needs.

#[allow(clippy::incompatible_msrv, clippy::unneeded_struct_pattern)]
#[path = "upstream/wire_format_corpus.rs"]
mod upstream;
