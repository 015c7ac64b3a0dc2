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
use flatbuffers_reflection::reflection::{self, BaseType, Type};
use std::sync::Arc;

/// The bytes of a binary schema that passed verification, immutable from then on.
#[derive(Clone, Debug)]
pub(crate) struct SchemaBytes(Arc<[u8]>);

impl SchemaBytes {
    /// Verifies `bytes` as a binary schema (its identifier, its structure, and that every type
    /// index in it names an object or enum it has: the reflection crate indexes with them
    /// unchecked).
    pub(crate) fn new(bytes: Arc<[u8]>) -> Result<Self, Error> {
        if !reflection::schema_buffer_has_identifier(&bytes) {
            return Err(Error::NotBinarySchema);
        }
        let schema = reflection::root_as_schema(&bytes).map_err(|e| Error::InvalidSchema {
            reason: crate::error::sentence(&e.to_string()),
        })?;
        check_indices(&schema).map_err(|reason| Error::InvalidSchema { reason })?;
        Ok(SchemaBytes(bytes))
    }

    /// The reflection view of the schema.
    pub(crate) fn schema(&self) -> reflection::Schema<'_> {
        // SAFETY: `self.0` passed `root_as_schema`'s verification in `new`, the only way to
        // make a `SchemaBytes`, and an `Arc<[u8]>` cannot change afterwards.
        unsafe { reflection::root_as_schema_unchecked(&self.0) }
    }
}

fn check_indices(schema: &reflection::Schema<'_>) -> Result<(), String> {
    let (objects, enums) = (schema.objects().len(), schema.enums().len());
    let check = |ty: Type<'_>, what: &str| -> Result<(), String> {
        let Ok(index) = usize::try_from(ty.index()) else {
            return if matches!(ty.base_type(), BaseType::Obj | BaseType::Union)
                || (matches!(ty.base_type(), BaseType::Vector | BaseType::Array)
                    && matches!(ty.element(), BaseType::Obj | BaseType::Union))
            {
                Err(format!("{what} has no type index"))
            } else {
                Ok(())
            };
        };
        let is_object = ty.base_type() == BaseType::Obj
            || (matches!(ty.base_type(), BaseType::Vector | BaseType::Array)
                && ty.element() == BaseType::Obj);
        if (is_object && index >= objects) || (!is_object && index >= enums) {
            return Err(format!("{what} names a type the schema does not have"));
        }
        Ok(())
    };
    for object in schema.objects() {
        for field in object.fields() {
            check(
                field.type_(),
                &format!("field {}.{}", object.name(), field.name()),
            )?;
            if field.type_().base_type() == BaseType::Union && field.offset() < 6 {
                return Err(format!(
                    "union field {}.{} has no type field",
                    object.name(),
                    field.name()
                ));
            }
        }
    }
    for e in schema.enums() {
        for value in e.values() {
            if let Some(ty) = value.union_type() {
                check(ty, &format!("union {} member {}", e.name(), value.name()))?;
            }
        }
    }
    if schema
        .root_table()
        .is_some_and(|r| !schema.objects().iter().any(|o| o.name() == r.name()))
    {
        return Err("its root_type is not among its objects".to_owned());
    }
    Ok(())
}
