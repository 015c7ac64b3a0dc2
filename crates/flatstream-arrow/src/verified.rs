//! The one module of this crate with `unsafe`: reading a binary schema that was verified when
//! it was loaded, without verifying it again.
//!
//! A [`Plan`](crate::Plan) keeps its schema as bytes (an `Arc<[u8]>`, so that plans are `'static`
//! and cheap to clone) and needs the reflection view of them for every frame it verifies.
//! `flatbuffers_reflection::reflection::root_as_schema` verifies the whole schema on each call,
//! which would cost more than the frame; [`SchemaBytes`] verifies once and then uses
//! `root_as_schema_unchecked`.
#![allow(unsafe_code)]

use crate::error::Error;
use flatbuffers_reflection::reflection;
use std::sync::Arc;

/// The bytes of a binary schema that passed verification, immutable from then on.
#[derive(Clone, Debug)]
pub(crate) struct SchemaBytes(Arc<[u8]>);

impl SchemaBytes {
    /// Verifies `bytes` as a binary schema ([`flatstream_reflect::parse`]: its identifier, its
    /// structure, and that every type index in it names an object or enum it has).
    pub(crate) fn new(bytes: Arc<[u8]>) -> Result<Self, Error> {
        flatstream_reflect::parse(&bytes)?;
        Ok(SchemaBytes(bytes))
    }

    /// The reflection view of the schema.
    pub(crate) fn schema(&self) -> reflection::Schema<'_> {
        // SAFETY: `self.0` passed `root_as_schema`'s verification in `new`, the only way to
        // make a `SchemaBytes`, and an `Arc<[u8]>` cannot change afterwards.
        unsafe { reflection::root_as_schema_unchecked(&self.0) }
    }
}
