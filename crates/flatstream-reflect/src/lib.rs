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
//! whether those bytes are a FlatBuffer of the schema's table, and reads them. It is the one
//! place that decides, for `flatstream` (cat, tail, verify, pack, query, export),
//! `flatstream-arrow` and the SQL format:
//!
//! - [`parse`] loads a schema and checks it ([`check`]): its identifier and structure, every
//!   type index, struct layouts, union type fields, no struct containing itself, nesting at
//!   most [`MAX_NESTING`] deep. A schema is input like any other: a damaged or hostile one
//!   is an [`Error::InvalidSchema`], never a panic or a walk without end;
//! - [`root_table`] finds the table frames hold (a full name, a name without namespace, or
//!   the schema's own root);
//! - [`Verifier`] is the one verifier: compiled once per root table, it checks a payload as
//!   `flatbuffers-reflection`'s verifier would, checks union types before using them, and
//!   bounds what reading the payload costs ([`budget`]), so that a small frame of shared
//!   references cannot become gigabytes of output. Its error is one clause naming the
//!   field's path from the root table and its byte in the payload;
//! - [`Scalar`] and [`ScalarType`] are the scalars of FlatBuffers, and [`read`] the one way
//!   to read a field of a payload the verifier passed.
//!
//! ```
//! use flatstream::{DefaultDeframer, Frames};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/fleet.bfbs"))?;
//! let schema = flatstream_reflect::parse(&bytes)?;
//! // Frames hold `fleet.Sensor`, which is not the schema's root_type.
//! let sensor = flatstream_reflect::root_table(&schema, Some("Sensor"))?;
//! let verifier = flatstream_reflect::Verifier::new(&schema, sensor)?;
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
//! for payload in Frames::new(&stream, DefaultDeframer) {
//!     let payload = payload?;
//!     verifier.verify(payload)?;
//!     // Verified: its fields read without a fault.
//!     let root = flatstream_reflect::read::root(payload)?;
//!     let vtable = flatstream_reflect::read::vtable(payload, root)?;
//!     let name = flatstream_reflect::read::field(payload, root, vtable, 4)?;
//!     assert_eq!(flatstream_reflect::read::string(payload, name.unwrap())?, "lidar");
//! }
//! // Three bytes cannot even hold the offset of the root table.
//! let short = verifier.verify(&[1, 2, 3]).unwrap_err();
//! assert!(short.to_string().starts_with("its 3 bytes are too few for a FlatBuffer"));
//! # Ok(()) }
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod check;
mod error;
mod explain;
mod limits;
pub mod read;
mod reroot;
mod scalar;
mod schema;
mod verify;

pub use check::{MAX_NESTING, recursive_tables, unfolded_size};
pub use error::{Error, Result};
pub use explain::{explain, sentence};
pub use limits::{BUDGET_FLOOR, BUDGET_PER_BYTE, MAX_DEPTH, MAX_TABLES, budget};
pub use reroot::reroot;
pub use scalar::{Scalar, ScalarType};
pub use schema::{
    check, file_identifier, find_table, index_of, is_scalar, parse, root_table, scalar_size, tables,
};
pub use verify::Verifier;

/// The `flatbuffers-reflection` schema types this crate reads, re-exported so that callers
/// name the same version.
pub use flatbuffers_reflection::reflection;
