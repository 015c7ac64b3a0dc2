//! [`BinarySchema`]: a `.bfbs` file, read with `flatbuffers-reflection`.

use crate::error::{Error, Result};
use crate::verified::SchemaBytes;
use std::path::Path;
use std::sync::Arc;

/// A binary FlatBuffers schema (`flatc -b --schema x.fbs` writes `x.bfbs`), checked once when
/// it is loaded. Cheap to clone.
///
/// ```
/// # fn main() -> Result<(), flatstream::arrow::Error> {
/// let schema = flatstream::arrow::BinarySchema::load(concat!(
///     env!("CARGO_MANIFEST_DIR"),
///     "/../../examples/fleet.bfbs"
/// ))?;
/// assert_eq!(schema.root_type(), Some("fleet.Robot"));
/// assert!(schema.tables().contains(&"fleet.Sensor"));
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct BinarySchema {
    pub(crate) bytes: SchemaBytes,
}

impl BinarySchema {
    /// Reads and checks the binary schema at `path`.
    pub fn load(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|source| Error::ReadSchema {
            path: path.to_owned(),
            source,
        })?;
        Self::from_bytes(bytes)
    }

    /// Checks `bytes` as a binary schema.
    pub fn from_bytes(bytes: impl Into<Arc<[u8]>>) -> Result<Self> {
        Ok(BinarySchema {
            bytes: SchemaBytes::new(bytes.into())?,
        })
    }

    /// The schema's `root_type`, a full name (`fleet.Robot`), if it declares one.
    pub fn root_type(&self) -> Option<&str> {
        self.bytes.schema().root_table().map(|t| t.name())
    }

    /// The full names of the schema's tables (not its structs).
    pub fn tables(&self) -> Vec<&str> {
        flatstream_reflect::tables(&self.bytes.schema())
    }

    /// The index in `objects()` of the table frames hold (`name`, or the schema's root), and
    /// the schema bytes.
    pub(crate) fn rooted(&self, name: Option<&str>) -> Result<(usize, SchemaBytes)> {
        let root = flatstream_reflect::root_table(&self.bytes.schema(), name)?;
        Ok((root, self.bytes.clone()))
    }
}
