//! A verified FlatBuffer as one line of JSON, walked with its schema.
//!
//! Payloads are verified against the schema (with `flatbuffers-reflection`) before they get
//! here. The walk itself reads the buffer with bounds-checked reads, so that even a buffer it
//! misunderstood gives an error, never a panic: the reflection crate's accessors for tables
//! inside vectors and unions are `unsafe fn`s, which this workspace does not call.
//!
//! The output follows flatc's JSON where JSON allows: fields in declaration order, enums by
//! name, a union as its `<name>_type` field (the member's name) and its `<name>` field (the
//! member's value). Scalars that are absent print at their default, optional scalars as
//! `null`; absent strings, vectors, tables and unions are left out. `[ubyte]`/`[byte]` vectors
//! print as one base64 or hex string. NaN and infinities, which JSON lacks, print as the
//! strings "nan", "inf" and "-inf".

use crate::options::BytesFormat;
use crate::schema::Schema;
use flatstream_reflect::read::{self, Le};
use flatstream_reflect::reflection::{BaseType, Field, Object, Type};
use flatstream_reflect::{Scalar, ScalarType, is_scalar, scalar_size};
use std::io::Write;

/// Nesting deeper than this is refused (the verifier's own default depth is 64).
const MAX_DEPTH: usize = 64;

/// Why a buffer could not be printed.
pub(crate) type WalkResult<T = ()> = Result<T, String>;

/// Prints messages of one schema.
pub(crate) struct Printer<'s> {
    schema: &'s Schema,
    bytes: BytesFormat,
}

impl<'s> Printer<'s> {
    pub(crate) fn new(schema: &'s Schema, bytes: BytesFormat) -> Self {
        Printer { schema, bytes }
    }

    /// Appends `payload`, a verified FlatBuffer of the schema's message table, to `out` as
    /// one JSON object (no newline).
    pub(crate) fn message(&self, payload: &[u8], out: &mut Vec<u8>) -> WalkResult {
        let root = read::root(payload)?;
        self.table(payload, root, self.schema.root, out, 0)
    }

    fn object(&self, index: usize) -> WalkResult<Object<'static>> {
        let objects = self.schema.schema.objects();
        if index < objects.len() {
            Ok(objects.get(index))
        } else {
            Err(format!("type index {index} is not an object of the schema"))
        }
    }

    fn table(
        &self,
        buf: &[u8],
        loc: usize,
        index: usize,
        out: &mut Vec<u8>,
        depth: usize,
    ) -> WalkResult {
        if depth > MAX_DEPTH {
            return Err(format!("tables nested deeper than {MAX_DEPTH}"));
        }
        let vtable = read::vtable(buf, loc)?;
        let slot = |field: &Field<'_>| read::field(buf, loc, vtable, field.offset());
        out.push(b'{');
        let mut first = true;
        for field in self.schema.fields(index) {
            let ty = field.type_();
            let pos = slot(field)?;
            let base = ty.base_type();
            if is_scalar(base) {
                key(out, &mut first, field.name());
                match pos {
                    Some(pos) => self.scalar(buf, pos, base, ty.index(), out)?,
                    None if field.optional() => out.extend_from_slice(b"null"),
                    None => self.default(field, out)?,
                }
                continue;
            }
            let Some(pos) = pos else { continue };
            key(out, &mut first, field.name());
            match base {
                BaseType::String => string(buf, pos, out)?,
                BaseType::Vector => self.vector(buf, pos, ty, out, depth)?,
                BaseType::Obj => self.object_at(buf, pos, ty.index(), out, depth)?,
                BaseType::Union => {
                    // The union's type is the field just before it in the vtable.
                    // A schema that puts the union first in the vtable is not one flatc
                    // writes: an error, not an underflow.
                    let type_field = field
                        .offset()
                        .checked_sub(2)
                        .ok_or("a union field without a type field before it")?;
                    let discriminant = match read::field(buf, loc, vtable, type_field)? {
                        Some(tag) => u8::read(buf, tag)?,
                        None => 0,
                    };
                    let at = read::follow(buf, pos)?;
                    self.union_value(buf, at, ty.index(), discriminant, out, depth)?;
                }
                other => return Err(format!("field type {other:?} is not supported")),
            }
        }
        out.push(b'}');
        Ok(())
    }

    /// The object of type `index` that a field or vector element holds at `pos`: a struct
    /// there (inline), a table where the offset there points.
    fn object_at(
        &self,
        buf: &[u8],
        pos: usize,
        index: i32,
        out: &mut Vec<u8>,
        depth: usize,
    ) -> WalkResult {
        let child = type_index(index)?;
        let at = if self.object(child)?.is_struct() {
            pos
        } else {
            read::follow(buf, pos)?
        };
        self.struct_or_table(buf, at, child, out, depth)
    }

    /// The struct or table of object `child` that starts at `at`.
    fn struct_or_table(
        &self,
        buf: &[u8],
        at: usize,
        child: usize,
        out: &mut Vec<u8>,
        depth: usize,
    ) -> WalkResult {
        if self.object(child)?.is_struct() {
            self.strukt(buf, at, child, out)
        } else {
            self.table(buf, at, child, out, depth + 1)
        }
    }

    /// The value of a union whose type (discriminant) is `discriminant`, at `at`.
    fn union_value(
        &self,
        buf: &[u8],
        at: usize,
        union: i32,
        discriminant: u8,
        out: &mut Vec<u8>,
        depth: usize,
    ) -> WalkResult {
        let member = self
            .enum_value(union, i64::from(discriminant))
            .and_then(|v| v.union_type())
            .ok_or_else(|| format!("union type {discriminant} is not a member of the union"))?;
        match member.base_type() {
            BaseType::Obj => self.struct_or_table(buf, at, type_index(member.index())?, out, depth),
            BaseType::String => {
                json_string(read::string_at(buf, at)?, out);
                Ok(())
            }
            BaseType::None => {
                out.extend_from_slice(b"null");
                Ok(())
            }
            other => Err(format!("union member type {other:?} is not supported")),
        }
    }

    /// A struct (inline, fixed size) of object `index` at `pos`.
    fn strukt(&self, buf: &[u8], pos: usize, index: usize, out: &mut Vec<u8>) -> WalkResult {
        out.push(b'{');
        let mut first = true;
        for field in self.schema.fields(index) {
            let ty = field.type_();
            let at = pos + usize::from(field.offset());
            key(out, &mut first, field.name());
            match ty.base_type() {
                base if is_scalar(base) => self.scalar(buf, at, base, ty.index(), out)?,
                BaseType::Obj => {
                    let child = type_index(ty.index())?;
                    self.strukt(buf, at, child, out)?;
                }
                BaseType::Array => {
                    // `Type::element_size` is not a struct's size in flatc's schemas: the
                    // struct's own `bytesize` is.
                    let size = if ty.element() == BaseType::Obj {
                        let child = self.object(type_index(ty.index())?)?;
                        usize::try_from(child.bytesize()).map_err(|_| "bad struct size")?
                    } else {
                        scalar_size(ty.element())
                    };
                    out.push(b'[');
                    for i in 0..usize::from(ty.fixed_length()) {
                        if i > 0 {
                            out.push(b',');
                        }
                        let at = at + i * size;
                        if ty.element() == BaseType::Obj {
                            let child = type_index(ty.index())?;
                            self.strukt(buf, at, child, out)?;
                        } else {
                            self.scalar(buf, at, ty.element(), ty.index(), out)?;
                        }
                    }
                    out.push(b']');
                }
                other => return Err(format!("struct field type {other:?} is not supported")),
            }
        }
        out.push(b'}');
        Ok(())
    }

    /// The vector whose offset is at `pos`.
    fn vector(
        &self,
        buf: &[u8],
        pos: usize,
        ty: Type<'_>,
        out: &mut Vec<u8>,
        depth: usize,
    ) -> WalkResult {
        let element = ty.element();
        let size = match element {
            _ if is_scalar(element) => scalar_size(element),
            BaseType::String | BaseType::Union => 4,
            BaseType::Obj => {
                let child = type_index(ty.index())?;
                let object = self.object(child)?;
                if object.is_struct() {
                    usize::try_from(object.bytesize()).map_err(|_| "bad struct size")?
                } else {
                    4
                }
            }
            other => return Err(format!("vectors of {other:?} are not supported")),
        };
        // The whole vector lies in the buffer: a hostile length cannot make the loop long.
        let (start, len) = read::vector(buf, pos, size)?;
        let bytes = &buf[start..start + len * size];
        if matches!(element, BaseType::UByte | BaseType::Byte) && ty.index() < 0 {
            out.push(b'"');
            match self.bytes {
                BytesFormat::Base64 => base64(bytes, out),
                BytesFormat::Hex => hex(bytes, out),
            }
            out.push(b'"');
            return Ok(());
        }
        out.push(b'[');
        for i in 0..len {
            if i > 0 {
                out.push(b',');
            }
            let at = start + i * size;
            match element {
                _ if is_scalar(element) => self.scalar(buf, at, element, ty.index(), out)?,
                BaseType::String => string(buf, at, out)?,
                BaseType::Obj => self.object_at(buf, at, ty.index(), out, depth)?,
                _ => return Err("vectors of unions are not supported".to_owned()),
            }
        }
        out.push(b']');
        Ok(())
    }

    /// A scalar of type `base` at `pos`; an integer of an enum type (`index` >= 0) by name.
    fn scalar(
        &self,
        buf: &[u8],
        pos: usize,
        base: BaseType,
        index: i32,
        out: &mut Vec<u8>,
    ) -> WalkResult {
        let ty = ScalarType::of(base).ok_or_else(|| format!("{base:?} is not a scalar"))?;
        self.write_scalar(ty.read(buf, pos)?, index, out);
        Ok(())
    }

    /// The default of an absent scalar field.
    fn default(&self, field: &Field<'_>, out: &mut Vec<u8>) -> WalkResult {
        let ty = field.type_();
        let scalar = ScalarType::of(ty.base_type())
            .ok_or_else(|| format!("{:?} is not a scalar", ty.base_type()))?;
        self.write_scalar(scalar.default_of(field), ty.index(), out);
        Ok(())
    }

    fn write_scalar(&self, value: Scalar, index: i32, out: &mut Vec<u8>) {
        let name = (index >= 0 && value.ty().is_integer())
            .then(|| i64::try_from(value.as_i128()).ok())
            .flatten()
            .and_then(|v| self.enum_value(index, v))
            .map(|v| v.name());
        if let Some(name) = name {
            json_string(name, out);
            return;
        }
        let _ = match value {
            Scalar::Bool(v) => write!(out, "{v}"),
            Scalar::F32(v) if v.is_finite() => {
                serde_json::to_writer(&mut *out, &v).map_err(std::io::Error::from)
            }
            Scalar::F64(v) if v.is_finite() => {
                serde_json::to_writer(&mut *out, &v).map_err(std::io::Error::from)
            }
            Scalar::F32(v) => write!(out, "\"{}\"", non_finite(f64::from(v))),
            Scalar::F64(v) => write!(out, "\"{}\"", non_finite(v)),
            integer => write!(out, "{}", integer.as_i128()),
        };
    }

    /// The value of enum `index` equal to `value`.
    fn enum_value(
        &self,
        index: i32,
        value: i64,
    ) -> Option<flatstream_reflect::reflection::EnumVal<'static>> {
        let enums = self.schema.schema.enums();
        let e = enums.get(usize::try_from(index).ok().filter(|&i| i < enums.len())?);
        e.values().iter().find(|v| v.value() == value)
    }
}

fn non_finite(v: f64) -> &'static str {
    if v.is_nan() {
        "nan"
    } else if v > 0.0 {
        "inf"
    } else {
        "-inf"
    }
}

/// `"name":`, after a comma unless it is the first key.
fn key(out: &mut Vec<u8>, first: &mut bool, name: &str) {
    if !std::mem::take(first) {
        out.push(b',');
    }
    json_string(name, out);
    out.push(b':');
}

/// `s` as a JSON string.
fn json_string(s: &str, out: &mut Vec<u8>) {
    // Writing to a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *out, s);
}

/// The string whose offset is at `pos`.
fn string(buf: &[u8], pos: usize, out: &mut Vec<u8>) -> WalkResult {
    json_string(read::string(buf, pos)?, out);
    Ok(())
}

/// The object index of a type (`Type::index`), which is -1 when the type has none.
fn type_index(index: i32) -> WalkResult<usize> {
    usize::try_from(index).map_err(|_| "no type index".to_owned())
}

/// Standard base64 (RFC 4648), with padding.
pub(crate) fn base64(bytes: &[u8], out: &mut Vec<u8>) {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]);
            } else {
                out.push(b'=');
            }
        }
    }
}

/// Lowercase hexadecimal, two digits per byte.
pub(crate) fn hex(bytes: &[u8], out: &mut Vec<u8>) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    for &b in bytes {
        out.push(DIGITS[usize::from(b >> 4)]);
        out.push(DIGITS[usize::from(b & 15)]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc_4648_test_vectors() {
        for (input, expected) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            let mut out = Vec::new();
            base64(input.as_bytes(), &mut out);
            assert_eq!(String::from_utf8(out).unwrap(), expected, "{input}");
        }
    }

    #[test]
    fn hex_is_two_lowercase_digits_per_byte() {
        let mut out = Vec::new();
        hex(&[0, 0x0f, 0xa0, 0xff], &mut out);
        assert_eq!(out, b"000fa0ff");
    }
}
