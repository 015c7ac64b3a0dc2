//! Reading a binary schema: checking it, finding a table in it, and copying it with another
//! root table.

use crate::error::{Error, Result};
use crate::explain::sentence;
use flatbuffers::{FlatBufferBuilder, WIPOffset};
use flatbuffers_reflection::reflection::{
    self, BaseType, Enum, EnumArgs, EnumVal, EnumValArgs, Field, FieldArgs, KeyValue, KeyValueArgs,
    Object, ObjectArgs, SchemaArgs, Type, TypeArgs,
};

/// Reads and checks a binary schema (`flatc -b --schema x.fbs` writes `x.bfbs`): its
/// identifier, its structure (FlatBuffers verification of the schema itself), and its type
/// indices ([`check`]).
///
/// ```
/// # fn main() -> Result<(), flatstream_reflect::Error> {
/// let bytes = include_bytes!("../../../examples/telemetry.bfbs");
/// let schema = flatstream_reflect::parse(bytes)?;
/// assert_eq!(schema.root_table().map(|t| t.name()), Some("telemetry.Telemetry"));
/// assert!(matches!(
///     flatstream_reflect::parse(b"table T {}"),
///     Err(flatstream_reflect::Error::NotBinarySchema)
/// ));
/// # Ok(()) }
/// ```
pub fn parse(bytes: &[u8]) -> Result<reflection::Schema<'_>> {
    // A root offset and an identifier: flatbuffers' identifier check indexes them unchecked.
    if bytes.len() < 8 {
        return Err(Error::InvalidSchema {
            reason: format!(
                "its {} bytes are too few (8 at least: a root offset and `BFBS`)",
                bytes.len()
            ),
        });
    }
    if !reflection::schema_buffer_has_identifier(bytes) {
        return Err(Error::NotBinarySchema);
    }
    let schema = reflection::root_as_schema(bytes).map_err(|e| Error::InvalidSchema {
        reason: sentence(&e.to_string()),
    })?;
    check(&schema)?;
    Ok(schema)
}

/// Checks what FlatBuffers verification of a schema does not, so that every walk over it and
/// over payloads of it is bounded:
///
/// - every type index names an object or enum the schema has (the reflection crate indexes
///   with them unchecked);
/// - a struct has a size, and each of its fields (scalars, structs, fixed arrays) lies in it;
///   a table's fields are in vtable slots, a union's type field in the slot before it;
/// - no struct contains itself, and types nest at most [`MAX_NESTING`] deep;
/// - its `root_type`, if it declares one, is a table among its objects.
///
/// [`MAX_NESTING`]: crate::MAX_NESTING
pub fn check(schema: &reflection::Schema<'_>) -> Result<()> {
    let invalid = |reason: String| Error::InvalidSchema { reason };
    let (objects, enums) = (schema.objects().len(), schema.enums().len());
    let check = |ty: Type<'_>, what: &str| -> Result<()> {
        let Ok(index) = usize::try_from(ty.index()) else {
            return if matches!(ty.base_type(), BaseType::Obj | BaseType::Union)
                || (matches!(ty.base_type(), BaseType::Vector | BaseType::Array)
                    && matches!(ty.element(), BaseType::Obj | BaseType::Union))
            {
                Err(invalid(format!("{what} has no type index")))
            } else {
                Ok(())
            };
        };
        let is_object = ty.base_type() == BaseType::Obj
            || (matches!(ty.base_type(), BaseType::Vector | BaseType::Array)
                && ty.element() == BaseType::Obj);
        if (is_object && index >= objects) || (!is_object && index >= enums) {
            return Err(invalid(format!(
                "{what} names a type the schema does not have"
            )));
        }
        Ok(())
    };
    for object in schema.objects() {
        for field in object.fields() {
            check(
                field.type_(),
                &format!("field {}.{}", object.name(), field.name()),
            )?;
        }
    }
    for e in schema.enums() {
        for value in e.values() {
            if let Some(ty) = value.union_type() {
                check(ty, &format!("union {} member {}", e.name(), value.name()))?;
            }
        }
    }
    if let Some(root) = schema.root_table() {
        if index_of(schema, root.name()).is_none() {
            return Err(invalid("its root_type is not among its objects".to_owned()));
        }
    }
    crate::check::layouts(schema)?;
    crate::check::nesting(schema)
}

/// The full names of the schema's tables (not its structs), in the schema's order.
pub fn tables<'a>(schema: &reflection::Schema<'a>) -> Vec<&'a str> {
    schema
        .objects()
        .iter()
        .filter(|o| !o.is_struct())
        .map(|o| o.name())
        .collect()
}

/// The index in `schema.objects()` of the object whose full name is `name`.
pub fn index_of(schema: &reflection::Schema<'_>, name: &str) -> Option<usize> {
    schema.objects().iter().position(|o| o.name() == name)
}

/// The index in `schema.objects()` of the table named `name`: a full name (`fleet.Sensor`),
/// or a name without namespace (`Sensor`) that only one table has. Structs are not tables.
pub fn find_table(schema: &reflection::Schema<'_>, name: &str) -> Option<usize> {
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

/// The index in `schema.objects()` of the table buffers hold: `name` as [`find_table`] reads
/// it, or, without one, the schema's own `root_type`.
///
/// # Errors
///
/// [`Error::UnknownRootType`] if no table has that name, [`Error::NoRootType`] if none was
/// given and the schema declares none; both list the schema's tables.
pub fn root_table(schema: &reflection::Schema<'_>, name: Option<&str>) -> Result<usize> {
    let tables = || tables(schema).join(", ");
    match name {
        Some(name) => find_table(schema, name).ok_or_else(|| Error::UnknownRootType {
            name: name.to_owned(),
            tables: tables(),
        }),
        None => {
            let root = schema
                .root_table()
                .ok_or_else(|| Error::NoRootType { tables: tables() })?;
            index_of(schema, root.name()).ok_or_else(|| Error::InvalidSchema {
                reason: "its root_type is not among its objects".to_owned(),
            })
        }
    }
}

/// The file identifier buffers of object `root` carry: the schema's `file_identifier`, if
/// `root` is the schema's own `root_type` (flatc writes it for that table only) and it is 4
/// bytes (flatc writes "" for a schema without one).
pub fn file_identifier<'a>(schema: &reflection::Schema<'a>, root: usize) -> Option<&'a str> {
    let objects = schema.objects();
    let is_root = root < objects.len()
        && schema.root_table().map(|r| r.name()) == Some(objects.get(root).name());
    schema.file_ident().filter(|i| is_root && i.len() == 4)
}

/// Whether a field of this type is a scalar: a number, a bool, or a union's type.
pub fn is_scalar(base: BaseType) -> bool {
    matches!(
        base,
        BaseType::UType
            | BaseType::Bool
            | BaseType::Byte
            | BaseType::UByte
            | BaseType::Short
            | BaseType::UShort
            | BaseType::Int
            | BaseType::UInt
            | BaseType::Long
            | BaseType::ULong
            | BaseType::Float
            | BaseType::Double
    )
}

/// The size in bytes of a scalar of this type (1 for a type that is not a scalar of 2, 4 or
/// 8 bytes).
pub fn scalar_size(base: BaseType) -> usize {
    match base {
        BaseType::Short | BaseType::UShort => 2,
        BaseType::Int | BaseType::UInt | BaseType::Float => 4,
        BaseType::Long | BaseType::ULong | BaseType::Double => 8,
        _ => 1,
    }
}

/// A copy of `schema` whose root table is object `root`: the objects and enums as they are
/// (names, fields, types, offsets, defaults, enum values and attributes), documentation and
/// services left out. The verifier of `flatbuffers-reflection` checks a buffer against a
/// schema's `root_type` only: give it this copy to verify buffers of another table.
///
/// # Panics
///
/// If `root` is not an index of `schema.objects()` (take it from [`root_table`]).
pub fn reroot(schema: &reflection::Schema<'_>, root: usize) -> Vec<u8> {
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

#[cfg(test)]
mod tests {
    use super::*;

    const FLEET: &[u8] = include_bytes!("../../../examples/fleet.bfbs");

    /// A binary schema of one table `t.T` with one field of type `ty`, its root if `root`.
    fn one_table(ty: TypeArgs, field_offset: u16, root: bool) -> Vec<u8> {
        let mut b = FlatBufferBuilder::new();
        let field = FieldArgs {
            name: Some(b.create_string("f")),
            type_: Some(Type::create(&mut b, &ty)),
            offset: field_offset,
            ..FieldArgs::default()
        };
        let field = Field::create(&mut b, &field);
        let object = ObjectArgs {
            name: Some(b.create_string("t.T")),
            fields: Some(b.create_vector(&[field])),
            ..ObjectArgs::default()
        };
        let object = Object::create(&mut b, &object);
        let schema = SchemaArgs {
            objects: Some(b.create_vector(&[object])),
            enums: Some(b.create_vector::<WIPOffset<Enum<'_>>>(&[])),
            root_table: root.then_some(object),
            ..SchemaArgs::default()
        };
        let schema = reflection::Schema::create(&mut b, &schema);
        b.finish(schema, Some("BFBS"));
        b.finished_data().to_vec()
    }

    fn int() -> TypeArgs {
        TypeArgs {
            base_type: BaseType::Int,
            index: -1,
            ..TypeArgs::default()
        }
    }

    fn invalid(bytes: &[u8]) -> String {
        match parse(bytes) {
            Err(Error::InvalidSchema { reason }) => reason,
            other => panic!("expected an invalid schema, got {:?}", other.map(|_| ())),
        }
    }

    #[test]
    fn parse_tells_a_text_schema_from_a_damaged_binary_one() {
        assert_eq!(
            parse(b"table T { x: int; }").map(|_| ()),
            Err(Error::NotBinarySchema)
        );
        let why = invalid(b"\x08\0\0\0BFBS\xff\xff\xff\xff");
        assert!(!why.is_empty() && !why.contains('\n'), "{why}");
        assert!(parse(FLEET).is_ok());
        assert!(parse(&one_table(int(), 4, true)).is_ok());
    }

    #[test]
    fn parse_refuses_type_indices_the_schema_does_not_have() {
        let cases = [
            (
                TypeArgs {
                    base_type: BaseType::Obj,
                    index: 7,
                    ..int()
                },
                4,
                "field t.T.f names a type the schema does not have",
            ),
            (
                TypeArgs {
                    base_type: BaseType::Obj,
                    index: -1,
                    ..int()
                },
                4,
                "field t.T.f has no type index",
            ),
            (
                TypeArgs {
                    base_type: BaseType::Vector,
                    element: BaseType::Obj,
                    index: -1,
                    ..int()
                },
                4,
                "field t.T.f has no type index",
            ),
            (
                TypeArgs {
                    base_type: BaseType::Array,
                    element: BaseType::Union,
                    index: -1,
                    ..int()
                },
                4,
                "field t.T.f has no type index",
            ),
            (
                TypeArgs {
                    base_type: BaseType::Int,
                    index: 0,
                    ..int()
                },
                4,
                "field t.T.f names a type the schema does not have",
            ),
            (
                TypeArgs {
                    base_type: BaseType::Union,
                    index: 0,
                    ..int()
                },
                4,
                "field t.T.f names a type the schema does not have",
            ),
        ];
        for (ty, offset, reason) in cases {
            assert_eq!(invalid(&one_table(ty, offset, true)), reason);
        }
    }

    #[test]
    fn tables_and_names_resolve_to_object_indices() {
        let schema = parse(FLEET).unwrap();
        let name = |i: usize| schema.objects().get(i).name();
        let tables = tables(&schema);
        assert!(tables.contains(&"fleet.Robot") && tables.contains(&"fleet.Sensor"));
        assert!(!tables.contains(&"fleet.Vec3"), "a struct is not a table");

        assert_eq!(
            find_table(&schema, "fleet.Sensor").map(name),
            Some("fleet.Sensor")
        );
        assert_eq!(
            find_table(&schema, "Sensor").map(name),
            Some("fleet.Sensor")
        );
        assert_eq!(find_table(&schema, "Vec3"), None);
        assert_eq!(find_table(&schema, "sensor"), None);
        assert_eq!(
            index_of(&schema, "fleet.Vec3").map(name),
            Some("fleet.Vec3")
        );
        assert_eq!(index_of(&schema, "Vec3"), None);

        assert_eq!(root_table(&schema, None).map(name), Ok("fleet.Robot"));
        assert_eq!(
            root_table(&schema, Some("Motor")).map(name),
            Ok("fleet.Motor")
        );
        assert_eq!(
            root_table(&schema, Some("Nope")),
            Err(Error::UnknownRootType {
                name: "Nope".to_owned(),
                tables: tables.join(", "),
            })
        );
    }

    #[test]
    fn a_schema_without_root_type_needs_a_name() {
        let bytes = one_table(int(), 4, false);
        let schema = parse(&bytes).unwrap();
        assert_eq!(
            root_table(&schema, None),
            Err(Error::NoRootType {
                tables: "t.T".to_owned()
            })
        );
        assert_eq!(root_table(&schema, Some("T")), Ok(0));
    }

    #[test]
    fn a_rerooted_copy_keeps_every_object_and_enum() {
        let schema = parse(FLEET).unwrap();
        let sensor = root_table(&schema, Some("fleet.Sensor")).unwrap();
        let bytes = reroot(&schema, sensor);
        let copy = parse(&bytes).unwrap();
        assert_eq!(copy.root_table().map(|t| t.name()), Some("fleet.Sensor"));
        assert_eq!(copy.file_ident(), schema.file_ident());
        let objects = |s: &reflection::Schema<'_>| {
            s.objects()
                .iter()
                .map(|o| {
                    let fields: Vec<_> = o
                        .fields()
                        .iter()
                        .map(|f| {
                            (
                                f.name().to_owned(),
                                f.offset(),
                                f.type_().base_type(),
                                f.type_().index(),
                            )
                        })
                        .collect();
                    (o.name().to_owned(), o.is_struct(), o.bytesize(), fields)
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(objects(&copy), objects(&schema));
        let enums = |s: &reflection::Schema<'_>| {
            s.enums()
                .iter()
                .map(|e| {
                    let values: Vec<_> = e
                        .values()
                        .iter()
                        .map(|v| (v.name().to_owned(), v.value()))
                        .collect();
                    (e.name().to_owned(), e.is_union(), values)
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(enums(&copy), enums(&schema));
    }

    #[test]
    fn scalars_and_their_sizes() {
        for (base, size) in [
            (BaseType::Bool, 1),
            (BaseType::UType, 1),
            (BaseType::Byte, 1),
            (BaseType::UByte, 1),
            (BaseType::Short, 2),
            (BaseType::UShort, 2),
            (BaseType::Int, 4),
            (BaseType::UInt, 4),
            (BaseType::Float, 4),
            (BaseType::Long, 8),
            (BaseType::ULong, 8),
            (BaseType::Double, 8),
        ] {
            assert!(is_scalar(base), "{base:?}");
            assert_eq!(scalar_size(base), size, "{base:?}");
        }
        for base in [
            BaseType::None,
            BaseType::String,
            BaseType::Vector,
            BaseType::Obj,
            BaseType::Union,
            BaseType::Array,
        ] {
            assert!(!is_scalar(base), "{base:?}");
        }
    }
}
