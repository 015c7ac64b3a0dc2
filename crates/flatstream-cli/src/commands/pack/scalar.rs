//! Scalars: a JSON value read as a field's type (an integer of its width, a float, a bool, an
//! enum by name or number), and written into a table or a struct.

use super::value::Value;
use crate::schema::Schema;
use flatstream_reflect::reflection::BaseType;

/// A scalar of one of FlatBuffers' types: flatstream-reflect's, which reads them too.
pub(super) use flatstream_reflect::Scalar;

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
