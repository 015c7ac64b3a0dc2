//! A binary schema (`.bfbs`, from `flatc -b --schema`) loaded for the process's lifetime, and
//! the verification of payloads against it: `flatstream_reflect` checks the schema, roots it
//! and verifies payloads; this module holds them for every command that takes `--schema`.

use crate::failure::{Failure, io_message};
use flatstream_reflect::reflection::{self, Field};
use std::path::Path;

/// A schema loaded for the process's lifetime, with the table messages are read as.
pub(crate) struct Schema {
    pub(crate) schema: reflection::Schema<'static>,
    /// The index of the message table in `schema.objects()`.
    pub(crate) root: usize,
    /// Its full name (`fleet.Robot`).
    pub(crate) root_name: &'static str,
    /// The file identifier its buffers carry: the schema's `file_identifier`, if the message
    /// table is the schema's own `root_type` (flatc writes it for that table only).
    pub(crate) file_ident: Option<&'static str>,
    /// Each object's fields in declaration order, deprecated ones left out.
    fields: Vec<Vec<Field<'static>>>,
    verifier: flatstream_reflect::Verifier,
}

impl Schema {
    /// Reads the binary schema at `path`, with `root_type` (or the schema's own root) as the
    /// message table.
    pub(crate) fn load(path: &Path, root_type: Option<&str>) -> Result<Schema, Failure> {
        let shown = path.display();
        let bytes = std::fs::read(path).map_err(|e| {
            Failure::error(format_args!(
                "{shown}: cannot read the schema: {}",
                io_message(&e)
            ))
        })?;
        // Loaded once and read until the process ends.
        let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
        let schema = flatstream_reflect::parse(bytes)
            .map_err(|why| Failure::error(format_args!("{shown}: {why}")))?;
        let root = flatstream_reflect::root_table(&schema, root_type).map_err(|e| match e {
            flatstream_reflect::Error::NoRootType { tables } => Failure::error(format_args!(
                "{shown}: the schema has no root_type: pass --root-type (its tables: {tables})"
            )),
            e => Failure::error(format_args!("{shown}: {e}")),
        })?;
        let file_ident = flatstream_reflect::file_identifier(&schema, root);
        let verifier = flatstream_reflect::Verifier::new(&schema, root)
            .map_err(|why| Failure::error(format_args!("{shown}: {why}")))?;
        let fields = schema
            .objects()
            .iter()
            .map(|o| {
                let mut fields: Vec<Field<'static>> =
                    o.fields().iter().filter(|f| !f.deprecated()).collect();
                fields.sort_by_key(|f| (f.id(), f.offset()));
                fields
            })
            .collect();
        let root_name = schema.objects().get(root).name();
        Ok(Schema {
            schema,
            root,
            root_name,
            file_ident,
            fields,
            verifier,
        })
    }

    /// The fields of object `index`, in declaration order.
    pub(crate) fn fields(&self, index: usize) -> &[Field<'static>] {
        &self.fields[index]
    }

    /// A verifier of payloads against the message table.
    pub(crate) fn verifier(&self) -> Verifier<'_> {
        Verifier { schema: self }
    }
}

/// Verifies payloads against a schema.
pub(crate) struct Verifier<'s> {
    schema: &'s Schema,
}

impl Verifier<'_> {
    /// Whether `payload` is a valid FlatBuffer of the message table, within its budget; the
    /// reason if not.
    pub(crate) fn verify(&mut self, payload: &[u8]) -> Result<(), String> {
        self.schema
            .verifier
            .verify(payload)
            .map_err(|why| format!("not a valid {}: {why}", self.schema.root_name))
    }
}
