//! [`BinarySchema`]: a `.bfbs` file, read with `flatbuffers-reflection`.

use crate::error::{Error, Result};
use crate::verified::SchemaBytes;
use flatbuffers::{FlatBufferBuilder, WIPOffset};
use flatbuffers_reflection::reflection::{
    self, Enum, EnumArgs, EnumVal, EnumValArgs, Field, FieldArgs, KeyValue, KeyValueArgs, Object,
    ObjectArgs, SchemaArgs, Type, TypeArgs,
};
use std::path::Path;
use std::sync::Arc;

/// A binary FlatBuffers schema (`flatc -b --schema x.fbs` writes `x.bfbs`), checked once when
/// it is loaded. Cheap to clone.
///
/// ```
/// # fn main() -> Result<(), flatstream_arrow::Error> {
/// let schema = flatstream_arrow::BinarySchema::load(concat!(
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
        self.bytes
            .schema()
            .objects()
            .iter()
            .filter(|o| !o.is_struct())
            .map(|o| o.name())
            .collect()
    }

    /// The index in `objects()` of the table frames hold (`name`, or the schema's root), and
    /// the schema bytes to verify frames with: these bytes, or a copy whose root is that table
    /// (the reflection verifier only verifies a schema's root type).
    pub(crate) fn rooted(&self, name: Option<&str>) -> Result<(usize, SchemaBytes)> {
        let schema = self.bytes.schema();
        let tables = || self.tables().join(", ");
        let root = match name {
            Some(name) => find_table(&schema, name).ok_or_else(|| Error::UnknownRootType {
                name: name.to_owned(),
                tables: tables(),
            })?,
            None => {
                let root = schema
                    .root_table()
                    .ok_or_else(|| Error::NoRootType { tables: tables() })?;
                index_of(&schema, root.name()).ok_or_else(|| Error::InvalidSchema {
                    reason: "its root_type is not among its objects".to_owned(),
                })?
            }
        };
        let is_root =
            schema.root_table().map(|r| r.name()) == Some(schema.objects().get(root).name());
        if is_root {
            return Ok((root, self.bytes.clone()));
        }
        let copy = reroot(&schema, root);
        Ok((root, SchemaBytes::new(copy.into())?))
    }
}

fn index_of(schema: &reflection::Schema<'_>, name: &str) -> Option<usize> {
    schema.objects().iter().position(|o| o.name() == name)
}

/// The table named `name`: a full name, or a name without namespace that only one table has.
fn find_table(schema: &reflection::Schema<'_>, name: &str) -> Option<usize> {
    let tables = || {
        schema
            .objects()
            .iter()
            .enumerate()
            .filter(|(_, o)| !o.is_struct())
    };
    if let Some((i, _)) = tables().find(|(_, o)| o.name() == name) {
        return Some(i);
    }
    let mut short = tables().filter(|(_, o)| o.name().rsplit('.').next() == Some(name));
    match (short.next(), short.next()) {
        (Some((i, _)), None) => Some(i),
        _ => None,
    }
}

/// A copy of `schema` whose root table is object `root`: the objects and enums as they are
/// (names, fields, types, offsets, defaults, enum values and attributes), documentation and
/// services left out.
fn reroot(schema: &reflection::Schema<'_>, root: usize) -> Vec<u8> {
    let mut b = FlatBufferBuilder::new();
    let ty = |b: &mut FlatBufferBuilder<'static>, t: Type<'_>| {
        Type::create(
            b,
            &TypeArgs {
                base_type: t.base_type(),
                element: t.element(),
                index: t.index(),
                fixed_length: t.fixed_length(),
                base_size: t.base_size(),
                element_size: t.element_size(),
            },
        )
    };
    let attributes =
        |b: &mut FlatBufferBuilder<'static>,
         kv: Option<flatbuffers::Vector<'_, flatbuffers::ForwardsUOffset<KeyValue<'_>>>>| {
            let kv = kv?;
            let items: Vec<WIPOffset<KeyValue<'_>>> = kv
                .iter()
                .map(|kv| {
                    let key = b.create_string(kv.key());
                    let value = kv.value().map(|v| b.create_string(v));
                    KeyValue::create(
                        b,
                        &KeyValueArgs {
                            key: Some(key),
                            value,
                        },
                    )
                })
                .collect();
            Some(b.create_vector(&items))
        };
    let mut objects: Vec<WIPOffset<Object<'_>>> = Vec::new();
    for object in schema.objects() {
        let mut fields = Vec::new();
        for f in object.fields() {
            let name = b.create_string(f.name());
            let type_ = ty(&mut b, f.type_());
            let attributes = attributes(&mut b, f.attributes());
            fields.push(Field::create(
                &mut b,
                &FieldArgs {
                    name: Some(name),
                    type_: Some(type_),
                    id: f.id(),
                    offset: f.offset(),
                    default_integer: f.default_integer(),
                    default_real: f.default_real(),
                    deprecated: f.deprecated(),
                    required: f.required(),
                    key: f.key(),
                    attributes,
                    documentation: None,
                    optional: f.optional(),
                    padding: f.padding(),
                    offset64: f.offset64(),
                },
            ));
        }
        let fields = b.create_vector(&fields);
        let name = b.create_string(object.name());
        let attributes = attributes(&mut b, object.attributes());
        objects.push(Object::create(
            &mut b,
            &ObjectArgs {
                name: Some(name),
                fields: Some(fields),
                is_struct: object.is_struct(),
                minalign: object.minalign(),
                bytesize: object.bytesize(),
                attributes,
                documentation: None,
                declaration_file: None,
            },
        ));
    }
    let mut enums: Vec<WIPOffset<Enum<'_>>> = Vec::new();
    for e in schema.enums() {
        let mut values = Vec::new();
        for v in e.values() {
            let name = b.create_string(v.name());
            let union_type = v.union_type().map(|t| ty(&mut b, t));
            values.push(EnumVal::create(
                &mut b,
                &EnumValArgs {
                    name: Some(name),
                    value: v.value(),
                    union_type,
                    documentation: None,
                    attributes: None,
                },
            ));
        }
        let values = b.create_vector(&values);
        let name = b.create_string(e.name());
        let underlying_type = ty(&mut b, e.underlying_type());
        let attributes = attributes(&mut b, e.attributes());
        enums.push(Enum::create(
            &mut b,
            &EnumArgs {
                name: Some(name),
                values: Some(values),
                is_union: e.is_union(),
                underlying_type: Some(underlying_type),
                attributes,
                documentation: None,
                declaration_file: None,
            },
        ));
    }
    let root_table = objects[root];
    let objects = b.create_vector(&objects);
    let enums = b.create_vector(&enums);
    let file_ident = schema.file_ident().map(|s| b.create_string(s));
    let file_ext = schema.file_ext().map(|s| b.create_string(s));
    let copy = reflection::Schema::create(
        &mut b,
        &SchemaArgs {
            objects: Some(objects),
            enums: Some(enums),
            file_ident,
            file_ext,
            root_table: Some(root_table),
            services: None,
            advanced_features: schema.advanced_features(),
            fbs_files: None,
        },
    );
    b.finish(copy, Some("BFBS"));
    b.finished_data().to_vec()
}
