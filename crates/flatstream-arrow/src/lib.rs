//! Streams of FlatBuffers as Apache Arrow record batches.
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
//!         ^ the frame's offset: the `_offset` column
//! ```
//!
//! This crate turns the payloads into rows. A binary schema (`.bfbs`, from
//! `flatc -b --schema`) and a root table are compiled once into a [`Plan`]; a [`Converter`]
//! made from it verifies each payload against the schema (as `flatstream verify --schema`
//! does) and appends its row to Arrow builders, reading only the projected columns. The
//! frames come from any reader, as `(offset, payload)` pairs: the crate does no I/O.
//!
//! ```
//! use flatstream::{DefaultDeframer, Frames};
//! use flatstream::arrow::arrow_array::{cast::AsArray, types::UInt64Type};
//! use flatstream::arrow::{BinarySchema, Options, Plan};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // Two frames of `telemetry.Telemetry { device_id, timestamp, value }`, without checksums.
//! let (mut stream, mut starts) = (Vec::new(), Vec::new());
//! for (device, value) in [(7u64, 21.5f64), (9, -3.0)] {
//!     let mut b = flatbuffers::FlatBufferBuilder::new();
//!     let table = b.start_table();
//!     b.push_slot::<u64>(4, device, 0);
//!     b.push_slot::<u64>(6, 1_700_000_000, 0);
//!     b.push_slot::<f64>(8, value, 0.0);
//!     let table = b.end_table(table);
//!     b.finish_minimal(table);
//!     starts.push(stream.len() as u64);
//!     stream.extend_from_slice(&(b.finished_data().len() as u32).to_le_bytes());
//!     stream.extend_from_slice(b.finished_data());
//! }
//!
//! let schema = BinarySchema::load(concat!(
//!     env!("CARGO_MANIFEST_DIR"),
//!     "/../../examples/telemetry.bfbs"
//! ))?;
//! let plan = Plan::new(&schema, Options::new().offset_column(true))?
//!     .with_projection_names(&["device_id", "value", "_offset"])?;
//!
//! // `Frames` yields payloads; its `position()` before each is the frame's offset.
//! let mut frames = Frames::new(&stream, DefaultDeframer);
//! let frames = std::iter::from_fn(|| {
//!     let offset = frames.position();
//!     frames.next().map(|payload| payload.map(|p| (offset, p)))
//! });
//! let batches = plan.convert(frames).collect::<Result<Vec<_>, _>>()?;
//! let batch = &batches[0];
//! assert_eq!(batch.num_rows(), 2);
//! assert_eq!(batch.column(0).as_primitive::<UInt64Type>().values(), &[7, 9]);
//! assert_eq!(batch.column(2).as_primitive::<UInt64Type>().values(), &starts[..]);
//! # Ok(()) }
//! ```
//!
//! # From FlatBuffers types to Arrow types
//!
//! | FlatBuffers | Arrow |
//! |---|---|
//! | `bool`, `byte` … `ulong`, `float`, `double` | `Boolean`, `Int8` … `UInt64`, `Float32`, `Float64` |
//! | enum | `Dictionary<Int32, Utf8>` of the value names (a value without a name: its number as text), or the raw integer with [`Enums::Integers`] |
//! | `string` | `Utf8` |
//! | `[ubyte]` | `Binary` |
//! | other vectors | `List` of the element's type, elements not null |
//! | struct | `Struct`, fields not null; a fixed array in it: `FixedSizeList` |
//! | table | `Struct`; the table absent: null |
//! | union `u` | `Struct` of `type` (the union's enum; `NONE` when absent) and one nullable member per variant, the present one set; absent: null. The `u_type` field has no column of its own |
//! | a table reachable from itself (`parent: Robot` in `Robot`) | `Binary`: the whole payload with its first 4 bytes (the root offset) pointing at the sub-table, a FlatBuffer of that table that `flatbuffers::root` reads |
//!
//! An absent table field reads as FlatBuffers defines it: a scalar at its default (not null),
//! an optional scalar (`= null` in the schema) as null, an absent string, vector, table or
//! union as null. Required fields are not nullable.
//!
//! # Verification
//!
//! Every frame is verified before it is read, by `flatstream_reflect::Verifier`, the verifier
//! `flatstream verify --schema` runs: the checks of `flatbuffers-reflection`'s verifier with
//! flatbuffers' default limits (tables nest 64 deep, a million tables), union types checked
//! against their unions, every table verified as the type of each reference to it, and a
//! budget on what reading a frame may cost (64 MiB, or 8 times the frame's payload if that is
//! more, each shared reference counted as often as it is followed; a table reachable from
//! itself costs a copy of the payload per column value). A frame that fails is an
//! [`Error::InvalidFrame`] naming its offset, or, with [`Options::skip_invalid`], skipped and
//! counted ([`Converter::skipped`]).
//!
//! A projection verifies what it reads: each frame's root table (its offset and vtable) and,
//! of its fields, those the projection reads, each whole. A fault in a field it never reads
//! cannot reach a column, and costs nothing to skip; [`Options::verify_unread`] verifies every
//! field of every frame whatever the projection, so that the frames skipped do not depend on
//! the columns read.
//!
//! # For a query engine
//!
//! A scan of a byte range compiles nothing: it clones the [`Plan`] (projected with
//! [`Plan::with_projection`]), makes a [`Converter`] (empty builders for the projected
//! columns), appends the frames that start in its range, and calls [`Converter::finish`] every
//! batch size; a [`Batcher`] puts an error after the batch of the rows before it.
//! [`Plan::file_schema`] is the table schema, known from the `.bfbs` alone.

#![deny(unsafe_code)]
#![warn(missing_docs)]

mod batcher;
mod column;
mod compile;
mod error;
mod options;
mod plan;
mod schema;
mod verified;

pub use batcher::{Batcher, Batches};
pub use error::{Error, Result};
pub use options::{Enums, Options};
pub use plan::{Converter, MAX_TYPES, OFFSET_COLUMN, Plan};
pub use schema::BinarySchema;

/// The arrow-array crate (arrow 59, the version DataFusion 55 uses): [`RecordBatch`](arrow_array::RecordBatch)
/// and the arrays a batch holds.
pub use arrow_array;
/// The arrow-schema crate (arrow 59): the [`Schema`](arrow_schema::Schema) and
/// [`DataType`](arrow_schema::DataType)s of the batches.
pub use arrow_schema;
