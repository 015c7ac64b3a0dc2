//! A binary schema (`.bfbs`, from `flatc -b --schema`), read with `flatbuffers-reflection`,
//! and the verification of payloads against it.
//!
//! The reflection crate verifies a buffer against the schema's `root_type` only. For
//! `--root-type T`, the schema is copied with `T` as its root (objects and enums as they are),
//! and that copy is what the verifier reads.

use crate::failure::{Failure, catch_quietly, io_message};
use flatbuffers::{ErrorTraceDetail, InvalidFlatbuffer};
use flatbuffers::{FlatBufferBuilder, VerifierOptions, WIPOffset};
use flatbuffers_reflection::reflection::{
    self, BaseType, Enum, EnumArgs, EnumVal, EnumValArgs, Field, FieldArgs, KeyValue, KeyValueArgs,
    Object, ObjectArgs, SchemaArgs, Type, TypeArgs,
};
use flatbuffers_reflection::{FlatbufferError, SafeBuffer};
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
        let schema = parse(bytes).map_err(|why| Failure::error(format_args!("{shown}: {why}")))?;
        let tables = || {
            let names: Vec<&str> = schema
                .objects()
                .iter()
                .filter(|o| !o.is_struct())
                .map(|o| o.name())
                .collect();
            names.join(", ")
        };
        let root = match root_type {
            Some(name) => find_table(&schema, name).ok_or_else(|| {
                Failure::error(format_args!(
                    "{shown}: root type `{name}` is not a table of the schema (its tables: {})",
                    tables()
                ))
            })?,
            None => match schema.root_table() {
                Some(root) => index_of(&schema, root.name()).ok_or_else(|| {
                    Failure::error(format_args!(
                        "{shown}: its root_type is not among its objects"
                    ))
                })?,
                None => {
                    return Err(Failure::error(format_args!(
                        "{shown}: the schema has no root_type: pass --root-type (its tables: {})",
                        tables()
                    )));
                }
            },
        };
        let is_root =
            schema.root_table().map(|r| r.name()) == Some(schema.objects().get(root).name());
        // flatc writes "" for a schema without one; an identifier is 4 bytes.
        let file_ident = schema.file_ident().filter(|i| is_root && i.len() == 4);
        let schema = if is_root {
            schema
        } else {
            let copy: &'static [u8] = Box::leak(reroot(&schema, root).into_boxed_slice());
            parse(copy).map_err(|why| Failure::error(format_args!("{shown}: {why}")))?
        };
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
        })
    }

    /// The fields of object `index`, in declaration order.
    pub(crate) fn fields(&self, index: usize) -> &[Field<'static>] {
        &self.fields[index]
    }

    /// A verifier of payloads against the message table.
    pub(crate) fn verifier(&self) -> Verifier<'_> {
        Verifier {
            schema: self,
            options: VerifierOptions::default(),
        }
    }
}

/// Verifies payloads against a schema.
pub(crate) struct Verifier<'s> {
    schema: &'s Schema,
    options: VerifierOptions,
}

impl Verifier<'_> {
    /// Whether `payload` is a valid FlatBuffer of the message table; the reason if not.
    pub(crate) fn verify(&mut self, payload: &[u8]) -> Result<(), String> {
        let (schema, options) = (&self.schema.schema, &self.options);
        // `SafeBuffer` is the crate's public entry to its verifier.
        let outcome =
            catch_quietly(|| SafeBuffer::new_with_options(payload, schema, options).map(drop));
        let why = match outcome {
            Ok(Ok(())) => return Ok(()),
            Ok(Err(FlatbufferError::VerificationError(e))) => explain(&e),
            // What the reflection verifier says ("invalid schema: polluted buffer…") when it
            // cannot read the root offset: the schema was checked when it was loaded.
            Ok(Err(FlatbufferError::InvalidSchema)) if payload.len() < 4 => format!(
                "its {} bytes are too few for a FlatBuffer (4 at least, the offset of its root \
                 table)",
                payload.len()
            ),
            Ok(Err(e)) => sentence(&e.to_string()),
            // The verifier indexes a union's values with the type it reads from the buffer.
            Err(panic) => format!("the reflection verifier failed on it ({panic})"),
        };
        Err(format!("not a valid {}: {why}", self.schema.root_name))
    }
}

/// A FlatBuffer verifier's error as one clause: where (the field's path from the root table,
/// `readings[2].name`, and its position in the payload) and what. The verifier's own Display
/// ends in a tab-indented trace, innermost field first, with a period after the message.
pub(crate) fn explain(e: &InvalidFlatbuffer) -> String {
    use InvalidFlatbuffer as I;
    let (what, trace) = match e {
        I::MissingRequiredField {
            required,
            error_trace,
        } => (
            format!("the required field `{required}` is missing"),
            error_trace,
        ),
        I::InconsistentUnion {
            field,
            field_type,
            error_trace,
        } => (
            format!("the union `{field}` and its type `{field_type}` are not both present"),
            error_trace,
        ),
        I::Utf8Error {
            error,
            range,
            error_trace,
        } => (
            format!(
                "the string at bytes {}..{} is not UTF-8 ({error})",
                range.start, range.end
            ),
            error_trace,
        ),
        I::MissingNullTerminator { range, error_trace } => (
            format!(
                "the string at bytes {}..{} has no terminating zero",
                range.start, range.end
            ),
            error_trace,
        ),
        I::Unaligned {
            position,
            unaligned_type,
            error_trace,
        } => (
            format!("the {unaligned_type} at byte {position} is not aligned for its type"),
            error_trace,
        ),
        I::RangeOutOfBounds { range, error_trace } => (
            format!(
                "bytes {}..{} are outside the payload",
                range.start, range.end
            ),
            error_trace,
        ),
        I::SignedOffsetOutOfBounds {
            soffset,
            position,
            error_trace,
        } => (
            format!("the offset {soffset} at byte {position} points outside the payload"),
            error_trace,
        ),
        I::TooManyTables => return "it holds more tables than the verifier allows".to_owned(),
        I::ApparentSizeTooLarge => {
            return "it is larger than the verifier allows".to_owned();
        }
        I::DepthLimitReached => {
            return "its tables nest deeper than the verifier allows".to_owned();
        }
        // `InvalidFlatbuffer` is not exhaustive in spirit: its own words, as one clause.
        #[allow(unreachable_patterns)]
        other => return sentence(&other.to_string()),
    };
    // The trace lists the innermost step first; a path reads from the root.
    let mut path = String::new();
    let mut at = None;
    for step in trace.as_ref().iter().rev() {
        match step {
            ErrorTraceDetail::TableField {
                field_name,
                position,
            } => {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(field_name);
                at = Some(*position);
            }
            ErrorTraceDetail::VectorElement { index, position } => {
                path.push_str(&format!("[{index}]"));
                at = Some(*position);
            }
            ErrorTraceDetail::UnionVariant { variant, position } => {
                path.push_str(&format!(" (as {variant})"));
                at = Some(*position);
            }
        }
    }
    match at {
        Some(at) => format!("field `{path}` at payload byte {at}: {what}"),
        None => what,
    }
}

/// A library's message as a clause: lowercase first letter, no trailing period, one line.
fn sentence(text: &str) -> String {
    let text = text
        .lines()
        .next()
        .unwrap_or("")
        .trim()
        .trim_end_matches('.');
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Reads and checks a binary schema: its identifier, its structure, and that every type index
/// in it names an object or enum it has (the reflection crate indexes with them unchecked).
fn parse(bytes: &'static [u8]) -> Result<reflection::Schema<'static>, String> {
    if !reflection::schema_buffer_has_identifier(bytes) {
        return Err("not a binary schema (flatc -b --schema x.fbs writes x.bfbs)".to_owned());
    }
    let schema =
        reflection::root_as_schema(bytes).map_err(|e| format!("not a valid binary schema: {e}"))?;
    let (objects, enums) = (schema.objects().len(), schema.enums().len());
    let check = |ty: Type<'_>, what: &str| -> Result<(), String> {
        let Ok(index) = usize::try_from(ty.index()) else {
            return if matches!(ty.base_type(), BaseType::Obj | BaseType::Union)
                || (ty.base_type() == BaseType::Vector
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
    Ok(schema)
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
