//! Scalars: a JSON value read as a field's type (an integer of its width, a float, a bool, an
//! enum by name or number), and written into a table or a struct.

use super::value::Value;
use crate::schema::Schema;
use flatbuffers::{FlatBufferBuilder, VOffsetT};
use flatbuffers_reflection::reflection::{BaseType, Field};

/// A scalar of one of FlatBuffers' types.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Scalar {
    Bool(bool),
    I8(i8),
    U8(u8),
    I16(i16),
    U16(u16),
    I32(i32),
    U32(u32),
    I64(i64),
    U64(u64),
    F32(f32),
    F64(f64),
}

impl Scalar {
    /// Its size in bytes, which is also its alignment.
    pub(super) fn size(self) -> usize {
        match self {
            Scalar::Bool(_) | Scalar::I8(_) | Scalar::U8(_) => 1,
            Scalar::I16(_) | Scalar::U16(_) => 2,
            Scalar::I32(_) | Scalar::U32(_) | Scalar::F32(_) => 4,
            Scalar::I64(_) | Scalar::U64(_) | Scalar::F64(_) => 8,
        }
    }

    /// Whether it is `field`'s default, bit for bit (so `-0.0` is not a default of `0.0`:
    /// left out, it would read back as `0.0`).
    pub(super) fn is_default_of(self, field: &Field<'_>) -> bool {
        let default = field.default_integer();
        match self {
            Scalar::Bool(v) => i64::from(v) == default,
            Scalar::I8(v) => i64::from(v) == default,
            Scalar::U8(v) => i64::from(v) == default,
            Scalar::I16(v) => i64::from(v) == default,
            Scalar::U16(v) => i64::from(v) == default,
            Scalar::I32(v) => i64::from(v) == default,
            Scalar::U32(v) => i64::from(v) == default,
            Scalar::I64(v) => v == default,
            // flatc stores a ulong default as the i64 of the same bits.
            Scalar::U64(v) => v == default as u64,
            Scalar::F32(v) => v.to_bits() == (field.default_real() as f32).to_bits(),
            Scalar::F64(v) => v.to_bits() == field.default_real().to_bits(),
        }
    }

    /// Writes it little-endian at the start of `out`, which holds at least [`size`](Self::size)
    /// bytes.
    pub(super) fn write_le(self, out: &mut [u8]) {
        let bytes: &[u8] = match self {
            Scalar::Bool(v) => &[u8::from(v)],
            Scalar::I8(v) => &v.to_le_bytes(),
            Scalar::U8(v) => &[v],
            Scalar::I16(v) => &v.to_le_bytes(),
            Scalar::U16(v) => &v.to_le_bytes(),
            Scalar::I32(v) => &v.to_le_bytes(),
            Scalar::U32(v) => &v.to_le_bytes(),
            Scalar::I64(v) => &v.to_le_bytes(),
            Scalar::U64(v) => &v.to_le_bytes(),
            Scalar::F32(v) => &v.to_le_bytes(),
            Scalar::F64(v) => &v.to_le_bytes(),
        };
        out[..bytes.len()].copy_from_slice(bytes);
    }

    /// Pushes it into the table under construction, in the slot at `voffset`.
    pub(super) fn push_slot(self, b: &mut FlatBufferBuilder<'static>, voffset: VOffsetT) {
        match self {
            Scalar::Bool(v) => b.push_slot_always(voffset, v),
            Scalar::I8(v) => b.push_slot_always(voffset, v),
            Scalar::U8(v) => b.push_slot_always(voffset, v),
            Scalar::I16(v) => b.push_slot_always(voffset, v),
            Scalar::U16(v) => b.push_slot_always(voffset, v),
            Scalar::I32(v) => b.push_slot_always(voffset, v),
            Scalar::U32(v) => b.push_slot_always(voffset, v),
            Scalar::I64(v) => b.push_slot_always(voffset, v),
            Scalar::U64(v) => b.push_slot_always(voffset, v),
            Scalar::F32(v) => b.push_slot_always(voffset, v),
            Scalar::F64(v) => b.push_slot_always(voffset, v),
        }
    }
}

/// The schema's name of a scalar type.
pub(super) fn type_name(base: BaseType) -> &'static str {
    match base {
        BaseType::Bool => "bool",
        BaseType::Byte => "byte",
        BaseType::UByte => "ubyte",
        BaseType::UType => "union type",
        BaseType::Short => "short",
        BaseType::UShort => "ushort",
        BaseType::Int => "int",
        BaseType::UInt => "uint",
        BaseType::Long => "long",
        BaseType::ULong => "ulong",
        BaseType::Float => "float",
        BaseType::Double => "double",
        _ => "non-scalar",
    }
}

/// `value` read as a scalar of type `base`; an integer type with `enum_index` >= 0 is that
/// enum's, and takes a value's name as well as a number (any number of the type: `cat`
/// prints a value the enum does not name as its number).
pub(super) fn read(
    schema: &Schema,
    base: BaseType,
    enum_index: i32,
    value: &Value<'_>,
) -> Result<Scalar, String> {
    match base {
        BaseType::Bool => match value {
            Value::Bool(b) => Ok(Scalar::Bool(*b)),
            Value::Number("0") => Ok(Scalar::Bool(false)),
            Value::Number("1") => Ok(Scalar::Bool(true)),
            other => Err(expected("true or false", other)),
        },
        BaseType::Float => {
            let v = float::<f32>(value, "a float")?;
            Ok(Scalar::F32(v))
        }
        BaseType::Double => Ok(Scalar::F64(float::<f64>(value, "a double")?)),
        _ => {
            let n = integer(schema, enum_index, value)?;
            let out_of_range = || {
                let (min, max) = range(base);
                format!(
                    "{} is out of range for a {} ({min} to {max})",
                    value.describe(),
                    type_name(base)
                )
            };
            macro_rules! fit {
                ($variant:ident) => {
                    Scalar::$variant(n.try_into().map_err(|_| out_of_range())?)
                };
            }
            Ok(match base {
                BaseType::Byte => fit!(I8),
                BaseType::UByte | BaseType::UType => fit!(U8),
                BaseType::Short => fit!(I16),
                BaseType::UShort => fit!(U16),
                BaseType::Int => fit!(I32),
                BaseType::UInt => fit!(U32),
                BaseType::Long => fit!(I64),
                BaseType::ULong => fit!(U64),
                other => return Err(format!("{other:?} is not a scalar type")),
            })
        }
    }
}

/// The smallest and largest values of integer type `base`.
fn range(base: BaseType) -> (i128, i128) {
    match base {
        BaseType::Byte => (i8::MIN.into(), i8::MAX.into()),
        BaseType::UByte | BaseType::UType => (0, u8::MAX.into()),
        BaseType::Short => (i16::MIN.into(), i16::MAX.into()),
        BaseType::UShort => (0, u16::MAX.into()),
        BaseType::Int => (i32::MIN.into(), i32::MAX.into()),
        BaseType::UInt => (0, u32::MAX.into()),
        BaseType::Long => (i64::MIN.into(), i64::MAX.into()),
        _ => (0, u64::MAX.into()),
    }
}

/// An integer: a JSON integer, or the name of a value of enum `enum_index` (if >= 0).
fn integer(schema: &Schema, enum_index: i32, value: &Value<'_>) -> Result<i128, String> {
    let e = usize::try_from(enum_index)
        .ok()
        .map(|i| schema.schema.enums().get(i));
    match (value, e) {
        (Value::Number(text), _) => {
            if text.contains(['.', 'e', 'E']) {
                return Err(expected(
                    if e.is_some() {
                        "an integer or a name"
                    } else {
                        "an integer"
                    },
                    value,
                ));
            }
            // JSON's grammar is checked: only too many digits can fail here.
            text.parse::<i128>()
                .map_err(|_| format!("{text} is out of range"))
        }
        (Value::String(name), Some(e)) => e
            .values()
            .iter()
            .find(|v| v.name() == name)
            .map(|v| i128::from(v.value()))
            .ok_or_else(|| {
                let names: Vec<&str> = e.values().iter().map(|v| v.name()).take(12).collect();
                let more = if e.values().len() > names.len() {
                    ", \u{2026}"
                } else {
                    ""
                };
                format!(
                    "{} is not a value of {} ({}{more})",
                    value.describe(),
                    e.name(),
                    names.join(", ")
                )
            }),
        (other, Some(e)) => Err(expected(
            &format!("a value of {} (a name or an integer)", e.name()),
            other,
        )),
        (other, None) => Err(expected("an integer", other)),
    }
}

fn float<F: std::str::FromStr + Into<f64> + Copy>(
    value: &Value<'_>,
    what: &str,
) -> Result<F, String> {
    match value {
        Value::Number(text) => match text.parse::<F>() {
            Ok(v) if v.into().is_finite() => Ok(v),
            _ => Err(format!("{text} is out of range for {what}")),
        },
        // The words Rust's float parser reads too (`nan` as the canonical NaN), and no others.
        Value::String(s) => match s.to_ascii_lowercase().as_str() {
            word @ ("nan" | "inf" | "+inf" | "infinity" | "+infinity" | "-inf" | "-infinity") => {
                word.parse::<F>().map_err(|_| expected("a number", value))
            }
            _ => Err(expected("a number", value)),
        },
        other => Err(expected("a number", other)),
    }
}

/// "expected WHAT, got VALUE".
pub(super) fn expected(what: &str, got: &Value<'_>) -> String {
    format!("expected {what}, got {}", got.describe())
}

#[cfg(test)]
mod tests {
    use super::{Value, float};

    #[test]
    fn floats_read_numbers_and_the_words_for_non_finite_values() {
        let text = |s: &'static str| Value::String(s.into());
        assert_eq!(float::<f32>(&Value::Number("-2.5"), "float"), Ok(-2.5));
        assert_eq!(float::<f64>(&text("INF"), "double"), Ok(f64::INFINITY));
        assert_eq!(float::<f32>(&text("+Infinity"), "float"), Ok(f32::INFINITY));
        assert_eq!(float::<f64>(&text("-inf"), "double"), Ok(f64::NEG_INFINITY));
        assert_eq!(
            float::<f32>(&text("nan"), "float").map(f32::to_bits),
            Ok(f32::NAN.to_bits())
        );
        assert_eq!(
            float::<f64>(&text("NaN"), "double").map(f64::to_bits),
            Ok(f64::NAN.to_bits())
        );
        assert_eq!(
            float::<f32>(&Value::Number("1e39"), "float"),
            Err("1e39 is out of range for float".to_owned())
        );
        for word in ["-nan", "infinite", "1.5", ""] {
            assert!(float::<f64>(&text(word), "double").is_err(), "{word:?}");
        }
    }
}
