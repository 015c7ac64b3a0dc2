//! A JSON object built into a FlatBuffer, field by field as the reflection schema says: the
//! inverse of `cat`'s printer (`json.rs`), accepting everything it prints.
//!
//! Children come first, as FlatBuffers are built: strings, vectors, tables and union values
//! are written before the table that points to them; then the table's scalars, structs and
//! offsets go into its slots (`start_table`, `push_slot_always` at each field's vtable
//! offset, `end_table`). Structs are their bytes laid out as the schema says (each field at
//! its offset, padding zero) and are pushed inline in pieces of their alignment, so that they
//! land aligned and contiguous.

use super::bytes::{from_base64, from_hex};
use super::pieces::{push_struct, raw_vector};
use super::scalar::{self, Scalar, expected};
use super::value::Value;
use crate::options::BytesFormat;
use crate::schema::Schema;
use flatbuffers::{FlatBufferBuilder, VOffsetT, WIPOffset};
use flatstream_reflect::reflection::{BaseType, Field, Object, Type};
use flatstream_reflect::{is_scalar, scalar_size};
use std::fmt;

/// Tables nested deeper than this are refused (the verifier's own default depth is 64).
const MAX_DEPTH: usize = 64;

/// The largest message a line may build, in bytes. FlatBuffers' builder cannot hold 2 GiB
/// (it panics past that, and its buffer doubles as it grows): every write is checked against
/// this bound before it is made, so a line too large is an error of that line.
const MAX_MESSAGE: usize = 1 << 30;

/// What a write may add beyond its bytes: alignment padding and a length prefix.
const SLACK: usize = 16;

/// Why a JSON value is not a message of the schema, and at which field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Bad {
    /// The steps from the message to the field, innermost first (built as the error
    /// returns outwards).
    path: Vec<Step>,
    why: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    Field(String),
    Index(usize),
}

impl Bad {
    fn new(why: impl Into<String>) -> Self {
        Bad {
            path: Vec::new(),
            why: why.into(),
        }
    }

    fn field(mut self, name: &str) -> Self {
        self.path.push(Step::Field(name.to_owned()));
        self
    }

    fn index(mut self, i: usize) -> Self {
        self.path.push(Step::Index(i));
        self
    }
}

impl From<String> for Bad {
    fn from(why: String) -> Self {
        Bad::new(why)
    }
}

impl fmt::Display for Bad {
    /// "field `readings[2].value`: why", or the reason alone for the message itself.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            return f.write_str(&self.why);
        }
        f.write_str("field `")?;
        for (i, step) in self.path.iter().rev().enumerate() {
            match step {
                Step::Field(name) if i == 0 => f.write_str(name)?,
                Step::Field(name) => write!(f, ".{name}")?,
                Step::Index(at) => write!(f, "[{at}]")?,
            }
        }
        write!(f, "`: {}", self.why)
    }
}

type Built<T = ()> = Result<T, Bad>;

/// The builder every message is built into.
type Builder = FlatBufferBuilder<'static>;

/// A table being built: the fields of its object, the value given for each (by position),
/// and how deeply it is nested.
struct Draft<'a, 'v> {
    fields: &'a [Field<'static>],
    given: Vec<Option<&'v Value<'v>>>,
    depth: usize,
}

/// What goes into one slot of a table under construction.
enum Slot {
    Scalar(Scalar),
    /// An offset to a string, vector, table or union value already written.
    Offset(u32),
    /// A struct's bytes, pushed inline, and its alignment.
    Struct(Vec<u8>, usize),
}

impl Slot {
    /// Its bytes in the table.
    fn size(&self) -> usize {
        match self {
            Slot::Scalar(s) => s.size(),
            Slot::Offset(_) => 4,
            Slot::Struct(bytes, _) => bytes.len(),
        }
    }

    fn alignment(&self) -> usize {
        match self {
            Slot::Scalar(s) => s.size(),
            Slot::Offset(_) => 4,
            Slot::Struct(_, align) => *align,
        }
    }
}

/// Builds messages of one schema from JSON.
pub(crate) struct Packer<'s> {
    schema: &'s Schema,
    bytes: BytesFormat,
    /// The largest message it builds ([`MAX_MESSAGE`]; smaller in tests).
    limit: usize,
}

impl<'s> Packer<'s> {
    /// A packer for messages of `schema`'s message table, reading `[ubyte]`/`[byte]` vectors
    /// given as strings in `bytes` encoding.
    pub(crate) fn new(schema: &'s Schema, bytes: BytesFormat) -> Self {
        Packer {
            schema,
            bytes,
            limit: MAX_MESSAGE,
        }
    }

    /// The same packer, building messages of at most `limit` bytes.
    #[cfg(test)]
    pub(crate) fn with_limit(self, limit: usize) -> Self {
        Packer { limit, ..self }
    }

    /// Fails unless `bytes` more (and their padding) fit in the message under construction.
    fn room(&self, b: &Builder, bytes: usize) -> Built {
        let after = b
            .unfinished_data()
            .len()
            .saturating_add(bytes)
            .saturating_add(SLACK);
        if after > self.limit {
            return Err(Bad::new(format!(
                "the message built from it would be larger than {} bytes",
                self.limit
            )));
        }
        Ok(())
    }

    /// Builds `value` as a message into `b` (reset) and finishes it, with the schema's
    /// file identifier if the message table is its root type.
    pub(crate) fn message(&self, value: &Value<'_>, b: &mut Builder) -> Built {
        let root = self.table(b, self.schema.root, value, 0)?;
        // The root offset and the file identifier.
        self.room(b, 8)?;
        b.finish(WIPOffset::<()>::new(root), self.schema.file_ident);
        Ok(())
    }

    fn object(&self, index: i32) -> Built<(usize, Object<'static>)> {
        let objects = self.schema.schema.objects();
        match usize::try_from(index) {
            Ok(i) if i < objects.len() => Ok((i, objects.get(i))),
            _ => Err(Bad::new(format!(
                "type index {index} is not an object of the schema"
            ))),
        }
    }

    /// The table of object `index` that `value` describes; returns its offset.
    fn table(&self, b: &mut Builder, index: usize, value: &Value<'_>, depth: usize) -> Built<u32> {
        let object = self.schema.schema.objects().get(index);
        if depth > MAX_DEPTH {
            return Err(Bad::new(format!("tables nested deeper than {MAX_DEPTH}")));
        }
        let fields = self.schema.fields(index);
        let table = Draft {
            fields,
            given: self.members(object, fields, value)?,
            depth,
        };
        let mut slots: Vec<(VOffsetT, Slot)> = Vec::with_capacity(fields.len());
        // The table's offset to its vtable, the vtable (two bytes a field, and two sizes), and
        // its slots, each padded to its alignment: counted as the slots are made, so that the
        // structs laid out for them never hold more than a message.
        let mut inline = 4 + 2 * fields.len() + 4;
        for (i, field) in fields.iter().enumerate() {
            let slot = self.slot(b, &table, i).map_err(|e| e.field(field.name()))?;
            if let Some(slot) = slot {
                inline += slot.size() + 8;
                self.room(b, inline)?;
                slots.push((field.offset(), slot));
            }
        }
        self.room(b, inline)?;
        // Largest first, as flatc does: the least padding between them.
        slots.sort_by_key(|(_, slot)| std::cmp::Reverse(slot.alignment()));
        let start = b.start_table();
        for (voffset, slot) in slots {
            match slot {
                Slot::Scalar(s) => s.push_slot(b, voffset),
                Slot::Offset(at) => b.push_slot_always(voffset, WIPOffset::<()>::new(at)),
                Slot::Struct(bytes, align) => {
                    push_struct(b, &bytes, align, Some(voffset));
                }
            }
        }
        Ok(b.end_table(start).value())
    }

    /// The value given for each of `fields` (by position), from the object `value`: an
    /// error for a key that is not a field, or that comes twice.
    fn members<'v>(
        &self,
        object: Object<'_>,
        fields: &[Field<'static>],
        value: &'v Value<'v>,
    ) -> Built<Vec<Option<&'v Value<'v>>>> {
        let Value::Object(members) = value else {
            let kind = if object.is_struct() {
                "struct"
            } else {
                "table"
            };
            return Err(Bad::new(expected(
                &format!("an object (a {} {kind})", object.name()),
                value,
            )));
        };
        let mut given = vec![None; fields.len()];
        for (key, v) in members {
            let Some(i) = fields.iter().position(|f| f.name() == key) else {
                let deprecated = object
                    .fields()
                    .iter()
                    .any(|f| f.deprecated() && f.name() == key);
                let why = if deprecated {
                    format!("deprecated in {}: it cannot be written", object.name())
                } else {
                    format!("not a field of {}", object.name())
                };
                return Err(Bad::new(why).field(key));
            };
            if given[i].replace(v).is_some() {
                return Err(Bad::new("given twice").field(key));
            }
        }
        Ok(given)
    }

    /// What field `i` of `table` puts in its slot, if anything.
    fn slot(&self, b: &mut Builder, table: &Draft<'_, '_>, i: usize) -> Built<Option<Slot>> {
        let field = &table.fields[i];
        let ty = field.type_();
        let base = ty.base_type();
        let value = table.given[i];
        if is_scalar(base) {
            return match value {
                None => Ok(None),
                Some(Value::Null) if field.optional() => Ok(None),
                Some(v) => {
                    let s = scalar::read(self.schema, base, ty.index(), v)?;
                    if base == BaseType::UType {
                        self.union_member(ty.index(), s)?;
                    }
                    let keep = field.optional() || !s.is_default_of(field);
                    Ok(keep.then_some(Slot::Scalar(s)))
                }
            };
        }
        if base == BaseType::Union {
            return self.union(b, table, i);
        }
        let Some(value) = value.filter(|v| **v != Value::Null) else {
            return if field.required() {
                Err(Bad::new("missing, and the field is required"))
            } else {
                Ok(None)
            };
        };
        Ok(Some(match base {
            BaseType::String => Slot::Offset(self.string(b, value)?),
            BaseType::Vector => Slot::Offset(self.vector(b, ty, value, table.depth)?),
            BaseType::Obj => {
                let (child, object) = self.object(ty.index())?;
                if object.is_struct() {
                    let (bytes, align) = self.struct_bytes(child, object, value)?;
                    Slot::Struct(bytes, align)
                } else {
                    Slot::Offset(self.table(b, child, value, table.depth + 1)?)
                }
            }
            other => {
                return Err(Bad::new(format!(
                    "fields of type {other:?} are not supported"
                )));
            }
        }))
    }

    /// A union field (`i` of `table`): its member is named by its type field, the field before
    /// it (`<name>_type`, written as `cat` writes it: the member's name, or its number).
    fn union(&self, b: &mut Builder, table: &Draft<'_, '_>, i: usize) -> Built<Option<Slot>> {
        let Draft { fields, given, .. } = table;
        let field = &fields[i];
        let union_index = field.type_().index();
        let type_at = field.offset().checked_sub(2);
        let type_field = fields
            .iter()
            .position(|f| Some(f.offset()) == type_at && f.type_().base_type() == BaseType::UType)
            .ok_or_else(|| Bad::new("a union without a type field before it"))?;
        let type_name = fields[type_field].name();
        // Read again here (the type field's own slot reports its errors).
        let discriminant = match given[type_field] {
            Some(v) => match scalar::read(self.schema, BaseType::UType, union_index, v) {
                Ok(Scalar::U8(d)) => d,
                _ => 0,
            },
            None => 0,
        };
        let value = given[i].filter(|v| **v != Value::Null);
        let union = self.schema.schema.enums().get(
            usize::try_from(union_index).map_err(|_| Bad::new("a union without a type index"))?,
        );
        let Some(value) = value else {
            return if discriminant != 0 {
                Err(Bad::new(format!(
                    "missing, and `{type_name}` says it is a {}",
                    union
                        .values()
                        .iter()
                        .find(|v| v.value() == i64::from(discriminant))
                        .map_or("member", |v| v.name())
                )))
            } else if field.required() {
                Err(Bad::new("missing, and the field is required"))
            } else {
                Ok(None)
            };
        };
        if discriminant == 0 {
            return Err(Bad::new(format!(
                "a value, but `{type_name}` does not say which member of {} it is",
                union.name()
            )));
        }
        let member = union
            .values()
            .iter()
            .find(|v| v.value() == i64::from(discriminant))
            .and_then(|v| v.union_type().map(|t| (v.name(), t)));
        let Some((_, member_type)) = member else {
            // The type field's own check refuses a number that names no member.
            return Err(Bad::new(format!(
                "`{type_name}` is {discriminant}, which is not a member of {}",
                union.name()
            )));
        };
        let at = match member_type.base_type() {
            BaseType::Obj => {
                let (child, object) = self.object(member_type.index())?;
                if object.is_struct() {
                    let (bytes, align) = self.struct_bytes(child, object, value)?;
                    self.room(b, bytes.len())?;
                    push_struct(b, &bytes, align, None)
                } else {
                    self.table(b, child, value, table.depth + 1)?
                }
            }
            BaseType::String => self.string(b, value)?,
            other => {
                return Err(Bad::new(format!(
                    "union members of type {other:?} are not supported"
                )));
            }
        };
        Ok(Some(Slot::Offset(at)))
    }

    /// Fails unless `discriminant` (a union type field's value) is NONE or a member of union
    /// `union_index`.
    fn union_member(&self, union_index: i32, discriminant: Scalar) -> Built {
        let Ok(index) = usize::try_from(union_index) else {
            return Err(Bad::new("a union type field without its union"));
        };
        let union = self.schema.schema.enums().get(index);
        let Scalar::U8(d) = discriminant else {
            return Err(Bad::new("a union type field that is not a ubyte"));
        };
        if union.values().iter().any(|v| v.value() == i64::from(d)) {
            return Ok(());
        }
        let names: Vec<&str> = union.values().iter().map(|v| v.name()).collect();
        Err(Bad::new(format!(
            "{d} is not a member of {} ({})",
            union.name(),
            names.join(", ")
        )))
    }

    /// The vector of type `ty` that `value` describes; returns its offset.
    fn vector(&self, b: &mut Builder, ty: Type<'_>, value: &Value<'_>, depth: usize) -> Built<u32> {
        let element = ty.element();
        let bytes_like = matches!(element, BaseType::UByte | BaseType::Byte) && ty.index() < 0;
        if let (true, Value::String(text)) = (bytes_like, value) {
            let bytes = match self.bytes {
                BytesFormat::Base64 => from_base64(text),
                BytesFormat::Hex => from_hex(text),
            }?;
            self.room(b, bytes.len())?;
            return Ok(b.create_vector(&bytes).value());
        }
        let Value::Array(items) = value else {
            let what = match (bytes_like, self.bytes) {
                (true, BytesFormat::Base64) => "a base64 string or an array",
                (true, BytesFormat::Hex) => "a hex string or an array",
                (false, _) => "an array",
            };
            return Err(Bad::new(expected(what, value)));
        };
        match element {
            _ if is_scalar(element) => {
                let size = scalar_size(element);
                self.room(b, items.len().saturating_mul(size))?;
                let mut bytes = vec![0; items.len() * size];
                for (i, (item, out)) in items.iter().zip(bytes.chunks_exact_mut(size)).enumerate() {
                    scalar::read(self.schema, element, ty.index(), item)
                        .map_err(|e| Bad::new(e).index(i))?
                        .write_le(out);
                }
                Ok(raw_vector(b, &bytes, items.len(), size))
            }
            BaseType::String => {
                let mut offsets = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    offsets.push(WIPOffset::<()>::new(
                        self.string(b, item).map_err(|e| e.index(i))?,
                    ));
                }
                self.room(b, 4 * offsets.len())?;
                Ok(b.create_vector(&offsets).value())
            }
            BaseType::Obj => {
                let (child, object) = self.object(ty.index())?;
                if object.is_struct() {
                    let size = usize::try_from(object.bytesize())
                        .map_err(|_| Bad::new("a struct of negative size"))?;
                    self.room(b, items.len().saturating_mul(size))?;
                    let mut bytes = Vec::with_capacity(items.len() * size);
                    let mut align = 1;
                    for (i, item) in items.iter().enumerate() {
                        let (one, a) = self
                            .struct_bytes(child, object, item)
                            .map_err(|e| e.index(i))?;
                        bytes.extend_from_slice(&one);
                        align = a;
                    }
                    Ok(raw_vector(b, &bytes, items.len(), align))
                } else {
                    let mut offsets = Vec::with_capacity(items.len());
                    for (i, item) in items.iter().enumerate() {
                        let at = self
                            .table(b, child, item, depth + 1)
                            .map_err(|e| e.index(i))?;
                        offsets.push(WIPOffset::<()>::new(at));
                    }
                    self.room(b, 4 * offsets.len())?;
                    Ok(b.create_vector(&offsets).value())
                }
            }
            other => Err(Bad::new(format!("vectors of {other:?} are not supported"))),
        }
    }

    /// The bytes of struct `index` that `value` describes (every field given, as `cat`
    /// prints them all), and the struct's alignment.
    fn struct_bytes(
        &self,
        index: usize,
        object: Object<'_>,
        value: &Value<'_>,
    ) -> Built<(Vec<u8>, usize)> {
        let size = usize::try_from(object.bytesize())
            .map_err(|_| Bad::new("a struct of negative size"))?;
        if size > self.limit {
            // Its bytes are laid out here before they are written: never more than a message.
            return Err(Bad::new(format!(
                "{} is {size} bytes, larger than a message may be ({} bytes)",
                object.name(),
                self.limit
            )));
        }
        let align = match object.minalign() {
            a @ (1 | 2 | 4 | 8) => a as usize,
            a => {
                return Err(Bad::new(format!(
                    "{} is aligned to {a} bytes: only 1, 2, 4 and 8 are supported",
                    object.name()
                )));
            }
        };
        if size % align != 0 {
            return Err(Bad::new(format!(
                "{} is {size} bytes, not a multiple of its alignment",
                object.name()
            )));
        }
        let mut bytes = vec![0; size];
        self.struct_into(index, object, value, &mut bytes)?;
        Ok((bytes, align))
    }

    fn struct_into(
        &self,
        index: usize,
        object: Object<'_>,
        value: &Value<'_>,
        out: &mut [u8],
    ) -> Built {
        let fields = self.schema.fields(index);
        let given = self.members(object, fields, value)?;
        for (field, v) in fields.iter().zip(given) {
            let v = v.ok_or_else(|| {
                Bad::new("missing: every field of a struct must be given").field(field.name())
            })?;
            self.struct_field(field, v, out)
                .map_err(|e| e.field(field.name()))?;
        }
        Ok(())
    }

    fn struct_field(&self, field: &Field<'_>, value: &Value<'_>, out: &mut [u8]) -> Built {
        let ty = field.type_();
        let at = usize::from(field.offset());
        match ty.base_type() {
            base if is_scalar(base) => {
                let s = scalar::read(self.schema, base, ty.index(), value)?;
                s.write_le(place(out, at, s.size())?);
            }
            BaseType::Obj => self.inner_struct(ty.index(), value, out, at)?,
            BaseType::Array => {
                let len = usize::from(ty.fixed_length());
                let Value::Array(items) = value else {
                    return Err(Bad::new(expected(&format!("an array of {len}"), value)));
                };
                if items.len() != len {
                    return Err(Bad::new(format!(
                        "expected an array of {len}, got one of {}",
                        items.len()
                    )));
                }
                let size = ty.element_size() as usize;
                for (i, item) in items.iter().enumerate() {
                    let at = at + i * size;
                    let element = ty.element();
                    if element == BaseType::Obj {
                        self.inner_struct(ty.index(), item, out, at)
                    } else {
                        scalar::read(self.schema, element, ty.index(), item)
                            .map_err(Bad::new)
                            .and_then(|s| {
                                s.write_le(place(out, at, s.size())?);
                                Ok(())
                            })
                    }
                    .map_err(|e| e.index(i))?;
                }
            }
            other => {
                return Err(Bad::new(format!(
                    "struct fields of type {other:?} are not supported"
                )));
            }
        }
        Ok(())
    }

    /// Writes the string `value`; returns its offset.
    fn string(&self, b: &mut Builder, value: &Value<'_>) -> Built<u32> {
        match value {
            Value::String(s) => {
                // Its length and the NUL after it.
                self.room(b, s.len() + 5)?;
                Ok(b.create_string(s).value())
            }
            other => Err(Bad::new(expected("a string", other))),
        }
    }

    /// A struct (of object `index`) inside another, at byte `at` of `out`.
    fn inner_struct(&self, index: i32, value: &Value<'_>, out: &mut [u8], at: usize) -> Built {
        let (child, object) = self.object(index)?;
        let size = usize::try_from(object.bytesize())
            .map_err(|_| Bad::new("a struct of negative size"))?;
        self.struct_into(child, object, value, place(out, at, size)?)
    }
}

/// `len` bytes of `out` from `at`, or an error if the schema's layout runs past the struct.
fn place(out: &mut [u8], at: usize, len: usize) -> Built<&mut [u8]> {
    out.get_mut(at..at.saturating_add(len))
        .ok_or_else(|| Bad::new("the schema puts this field past the end of its struct"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_name_the_field_from_the_message_down() {
        let bad = Bad::new("why").field("value").index(2).field("readings");
        assert_eq!(bad.to_string(), "field `readings[2].value`: why");
        assert_eq!(Bad::new("why").to_string(), "why");
    }
}
