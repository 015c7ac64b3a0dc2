//! A binary FlatBuffers schema (`.bfbs`) loaded, checked and re-rooted, and FlatBuffers
//! verification through it: what `flatstream verify --schema`, `flatstream cat --schema` and
//! `flatstream-arrow` share.
//!
//! flatstream frames each FlatBuffer with its length and an optional checksum:
//!
//! ```text
//! offset: 0            4                4 + c             4 + c + len
//!         +------------+----------------+-----------------+
//!         | len: u32 LE| checksum (c =  | payload:        |  next frame…
//!         |            | 0/2/4/8 bytes) | len bytes, one  |
//!         |            |                | FlatBuffer      |
//!         +------------+----------------+-----------------+
//! ```
//!
//! The framing says where a payload is and that its bytes arrived as written; this crate says
//! whether those bytes are a FlatBuffer of the schema's table. It reads the schema with
//! `flatbuffers-reflection`, whose verifier checks a buffer against the schema's `root_type`
//! only and indexes with the schema's type indices unchecked. So:
//!
//! - [`parse`] checks a schema once: its identifier, its structure, and every type index in
//!   it ([`check`]);
//! - [`root_table`] finds the table frames hold (a full name, a name without namespace, or
//!   the schema's own root) and [`reroot`] writes a copy of the schema with that table as
//!   its root, which is what the verifier is then given;
//! - [`verify`] verifies a payload, and its error ([`explain`]) is one clause naming the
//!   field's path from the root table and its byte in the payload.
//!
//! ```
//! use flatstream::{DefaultDeframer, Frames};
//! use flatbuffers::VerifierOptions;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/fleet.bfbs"))?;
//! let schema = flatstream_reflect::parse(&bytes)?;
//! // `fleet.Sensor` is not the schema's root_type: verify against a copy rooted there.
//! let sensor = flatstream_reflect::root_table(&schema, Some("Sensor"))?;
//! let copy = flatstream_reflect::reroot(&schema, sensor);
//! let rooted = flatstream_reflect::parse(&copy)?;
//!
//! // One frame holding a `fleet.Sensor { name: "lidar" }`, without a checksum.
//! let mut b = flatbuffers::FlatBufferBuilder::new();
//! let name = b.create_string("lidar");
//! let table = b.start_table();
//! b.push_slot_always(4, name);
//! let table = b.end_table(table);
//! b.finish_minimal(table);
//! let mut stream = (b.finished_data().len() as u32).to_le_bytes().to_vec();
//! stream.extend_from_slice(b.finished_data());
//!
//! let options = VerifierOptions::default();
//! for payload in Frames::new(&stream, DefaultDeframer) {
//!     flatstream_reflect::verify(&rooted, payload?, &options)?;
//! }
//! // Three bytes cannot even hold the offset of the root table.
//! let short = flatstream_reflect::verify(&rooted, &[1, 2, 3], &options).unwrap_err();
//! assert!(short.to_string().starts_with("its 3 bytes are too few for a FlatBuffer"));
//! # Ok(()) }
//! ```
//!
//! The verifier of `flatbuffers-reflection` can panic on a hostile buffer (it indexes a
//! union's members with the type it reads from the buffer); [`verify`] does not catch that,
//! so that a caller decides how (the `flatstream` command catches it quietly,
//! `flatstream-arrow` walks the unions first).

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod error;
mod schema;
mod verify;

pub use error::{Error, Result};
pub use schema::{
    check, find_table, index_of, is_scalar, parse, reroot, root_table, scalar_size, tables,
};
pub use verify::{explain, sentence, verify};

/// The `flatbuffers-reflection` schema types this crate reads, re-exported so that callers
/// name the same version.
pub use flatbuffers_reflection::reflection;
