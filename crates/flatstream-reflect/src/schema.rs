//! Reading a binary schema: checking it and finding a table in it. A copy with another root
//! table is [`reroot`](crate::reroot())'s, in `reroot.rs`.

use crate::error::{Error, Result};
use crate::explain::sentence;
use flatbuffers_reflection::reflection::{self, BaseType, Type};

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

#[cfg(test)]
mod tests {
    use super::*;
    use flatbuffers::{FlatBufferBuilder, WIPOffset};
    use flatbuffers_reflection::reflection::{
        Enum, Field, FieldArgs, Object, ObjectArgs, SchemaArgs, TypeArgs,
    };

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
    fn scalars_and_their_sizes() {
        use BaseType as B;
        for (size, bases) in [
            (1, &[B::Bool, B::UType, B::Byte, B::UByte][..]),
            (2, &[B::Short, B::UShort]),
            (4, &[B::Int, B::UInt, B::Float]),
            (8, &[B::Long, B::ULong, B::Double]),
        ] {
            for &base in bases {
                assert!(is_scalar(base), "{base:?}");
                assert_eq!(scalar_size(base), size, "{base:?}");
            }
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
