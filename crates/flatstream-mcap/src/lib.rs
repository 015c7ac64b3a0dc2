//! flatstream captures as MCAP files of FlatBuffers channels, for Foxglove; and MCAP files
//! recorded elsewhere read back as FlatBuffers payloads, for flatstream streams.
//!
//! A flatstream frame on the wire:
//!
//! ```text
//! [u32 LE payload length][0, 2, 4 or 8-byte LE checksum of the payload][payload: a plain FlatBuffer]
//! ```
//!
//! An MCAP file holds the same payloads as messages: [`Exporter`] writes one Schema record
//! (encoding `flatbuffer`, named after the root table, holding the `.bfbs`), a Channel per
//! topic (message encoding `flatbuffer`) and a Message per payload, each verified against the
//! schema first, with its time from a field of the payload or its index; chunked (zstd by
//! default) with the indexes and summary a viewer needs to seek. [`Messages`] reads the
//! messages of an MCAP file's `flatbuffer` channels back, and [`channels`] says what every
//! channel of a file holds.
//!
//! ```
//! use flatstream::mcap::{ExportOptions, Exporter, Messages, Time, TimeUnit};
//! use std::io::Cursor;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let bfbs = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/telemetry.bfbs"))?;
//! // Two telemetry readings (`device_id`, `timestamp` in ms, `value`), built with flatc's builder.
//! let mut payloads = Vec::new();
//! for (device, ms) in [(1u64, 1_700_000_000_000u64), (2, 1_700_000_000_500)] {
//!     let mut b = flatstream::flatbuffers::FlatBufferBuilder::new();
//!     let t = b.start_table();
//!     b.push_slot::<u64>(4, device, 0);
//!     b.push_slot::<u64>(6, ms, 0);
//!     b.push_slot::<f64>(8, 21.5, 0.0);
//!     let t = b.end_table(t);
//!     b.finish_minimal(t);
//!     payloads.push(b.finished_data().to_vec());
//! }
//!
//! let time = Time::Field { path: "timestamp".into(), unit: TimeUnit::Milliseconds };
//! let mut exporter = Exporter::new(Cursor::new(Vec::new()), &bfbs, &ExportOptions::new().time(time))?;
//! let channel = exporter.channel("/telemetry")?;
//! for payload in &payloads {
//!     exporter.write(channel, payload)?;
//! }
//! let file = exporter.finish()?.into_inner();
//!
//! let mut messages = Messages::new(&file[..], None);
//! let first = messages.next().unwrap()?;
//! assert_eq!(first.data, payloads[0]);
//! assert_eq!(first.log_time, 1_700_000_000_000_000_000);
//! assert_eq!(messages.count(), 1);
//! # Ok(()) }
//! ```
#![forbid(unsafe_code)]

mod error;
mod export;
mod import;
mod time;

pub use error::{Error, Result};
pub use export::{ChannelId, Compression, ExportOptions, Exporter, FLATBUFFER, Time};
pub use import::{Channel, MAX_RECORD_LEN, Message, Messages, channels};
pub use time::TimeUnit;
