//! The scalars of FlatBuffers: [`ScalarType`], what a schema's `BaseType` names, and
//! [`Scalar`], a value of one, read from a payload or written into a builder.

use crate::read::{Le, ReadResult};
use flatbuffers::{FlatBufferBuilder, VOffsetT};
use flatbuffers_reflection::reflection::{BaseType, Field};

/// The type of a scalar: a bool, an integer of 1, 2, 4 or 8 bytes (signed or not), or a float
/// of 4 or 8. A union's type field (`UType`) is a `U8`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum ScalarType {
    Bool,
    I8,
    U8,
    I16,
    U16,
    I32,
    U32,
    I64,
    U64,
    F32,
    F64,
}

impl ScalarType {
    /// The scalar type `base` names, or `None` if it is not a scalar.
    pub fn of(base: BaseType) -> Option<ScalarType> {
        Some(match base {
            BaseType::Bool => ScalarType::Bool,
            BaseType::Byte => ScalarType::I8,
            BaseType::UByte | BaseType::UType => ScalarType::U8,
            BaseType::Short => ScalarType::I16,
            BaseType::UShort => ScalarType::U16,
            BaseType::Int => ScalarType::I32,
            BaseType::UInt => ScalarType::U32,
            BaseType::Long => ScalarType::I64,
            BaseType::ULong => ScalarType::U64,
            BaseType::Float => ScalarType::F32,
            BaseType::Double => ScalarType::F64,
            _ => return None,
        })
    }

    /// The integer type `base` names (an enum's storage), or `None`.
    pub fn integer(base: BaseType) -> Option<ScalarType> {
        Self::of(base).filter(|t| t.is_integer())
    }

    /// Whether it is an integer type (not a bool, not a float).
    pub fn is_integer(self) -> bool {
        !matches!(self, ScalarType::Bool | ScalarType::F32 | ScalarType::F64)
    }

    /// Its size in bytes, which is also its alignment.
    pub fn size(self) -> usize {
        match self {
            ScalarType::Bool | ScalarType::I8 | ScalarType::U8 => 1,
            ScalarType::I16 | ScalarType::U16 => 2,
            ScalarType::I32 | ScalarType::U32 | ScalarType::F32 => 4,
            ScalarType::I64 | ScalarType::U64 | ScalarType::F64 => 8,
        }
    }

    /// The schema language's name of the type (`ubyte`, `double`).
    pub fn name(self) -> &'static str {
        match self {
            ScalarType::Bool => "bool",
            ScalarType::I8 => "byte",
            ScalarType::U8 => "ubyte",
            ScalarType::I16 => "short",
            ScalarType::U16 => "ushort",
            ScalarType::I32 => "int",
            ScalarType::U32 => "uint",
            ScalarType::I64 => "long",
            ScalarType::U64 => "ulong",
            ScalarType::F32 => "float",
            ScalarType::F64 => "double",
        }
    }

    /// Reads the scalar of this type at `at`.
    #[inline]
    pub fn read(self, buf: &[u8], at: usize) -> ReadResult<Scalar> {
        Ok(match self {
            ScalarType::Bool => Scalar::Bool(bool::read(buf, at)?),
            ScalarType::I8 => Scalar::I8(i8::read(buf, at)?),
            ScalarType::U8 => Scalar::U8(u8::read(buf, at)?),
            ScalarType::I16 => Scalar::I16(i16::read(buf, at)?),
            ScalarType::U16 => Scalar::U16(u16::read(buf, at)?),
            ScalarType::I32 => Scalar::I32(i32::read(buf, at)?),
            ScalarType::U32 => Scalar::U32(u32::read(buf, at)?),
            ScalarType::I64 => Scalar::I64(i64::read(buf, at)?),
            ScalarType::U64 => Scalar::U64(u64::read(buf, at)?),
            ScalarType::F32 => Scalar::F32(f32::read(buf, at)?),
            ScalarType::F64 => Scalar::F64(f64::read(buf, at)?),
        })
    }

    /// Reads the integer of this type at `at` (a bool as 0 or 1, a float truncated).
    #[inline]
    pub fn read_integer(self, buf: &[u8], at: usize) -> ReadResult<i128> {
        Ok(match self {
            ScalarType::I8 => i8::read(buf, at)?.into(),
            ScalarType::U8 => u8::read(buf, at)?.into(),
            ScalarType::I16 => i16::read(buf, at)?.into(),
            ScalarType::U16 => u16::read(buf, at)?.into(),
            ScalarType::I32 => i32::read(buf, at)?.into(),
            ScalarType::U32 => u32::read(buf, at)?.into(),
            ScalarType::I64 => i64::read(buf, at)?.into(),
            ScalarType::U64 => u64::read(buf, at)?.into(),
            other => other.read(buf, at)?.as_i128(),
        })
    }

    /// The value of an absent field of this type: the field's default (`default_integer`, or
    /// `default_real` for a float), as flatc stores it.
    pub fn default_of(self, field: &Field<'_>) -> Scalar {
        let i = field.default_integer();
        match self {
            ScalarType::Bool => Scalar::Bool(i != 0),
            ScalarType::I8 => Scalar::I8(i as i8),
            ScalarType::U8 => Scalar::U8(i as u8),
            ScalarType::I16 => Scalar::I16(i as i16),
            ScalarType::U16 => Scalar::U16(i as u16),
            ScalarType::I32 => Scalar::I32(i as i32),
            ScalarType::U32 => Scalar::U32(i as u32),
            ScalarType::I64 => Scalar::I64(i),
            // flatc stores a ulong default as the i64 of the same bits.
            ScalarType::U64 => Scalar::U64(i as u64),
            ScalarType::F32 => Scalar::F32(field.default_real() as f32),
            ScalarType::F64 => Scalar::F64(field.default_real()),
        }
    }
}

/// A scalar value of one of FlatBuffers' types.
#[derive(Debug, Clone, Copy, PartialEq)]
#[allow(missing_docs)]
pub enum Scalar {
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
    /// Its type.
    pub fn ty(self) -> ScalarType {
        match self {
            Scalar::Bool(_) => ScalarType::Bool,
            Scalar::I8(_) => ScalarType::I8,
            Scalar::U8(_) => ScalarType::U8,
            Scalar::I16(_) => ScalarType::I16,
            Scalar::U16(_) => ScalarType::U16,
            Scalar::I32(_) => ScalarType::I32,
            Scalar::U32(_) => ScalarType::U32,
            Scalar::I64(_) => ScalarType::I64,
            Scalar::U64(_) => ScalarType::U64,
            Scalar::F32(_) => ScalarType::F32,
            Scalar::F64(_) => ScalarType::F64,
        }
    }

    /// Its size in bytes, which is also its alignment.
    pub fn size(self) -> usize {
        self.ty().size()
    }

    /// The value as an integer: a bool as 0 or 1, a float truncated toward zero (saturating).
    pub fn as_i128(self) -> i128 {
        match self {
            Scalar::Bool(v) => v.into(),
            Scalar::I8(v) => v.into(),
            Scalar::U8(v) => v.into(),
            Scalar::I16(v) => v.into(),
            Scalar::U16(v) => v.into(),
            Scalar::I32(v) => v.into(),
            Scalar::U32(v) => v.into(),
            Scalar::I64(v) => v.into(),
            Scalar::U64(v) => v.into(),
            Scalar::F32(v) => v as i128,
            Scalar::F64(v) => v as i128,
        }
    }

    /// Whether it is `field`'s default, bit for bit (so `-0.0` is not a default of `0.0`:
    /// left out, it would read back as `0.0`).
    pub fn is_default_of(self, field: &Field<'_>) -> bool {
        let default = self.ty().default_of(field);
        match (self, default) {
            (Scalar::F32(a), Scalar::F32(b)) => a.to_bits() == b.to_bits(),
            (Scalar::F64(a), Scalar::F64(b)) => a.to_bits() == b.to_bits(),
            (a, b) => a == b,
        }
    }

    /// Writes it little-endian at the start of `out`, which holds at least
    /// [`size`](Self::size) bytes.
    ///
    /// # Panics
    ///
    /// If `out` is shorter than that.
    pub fn write_le(self, out: &mut [u8]) {
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
    pub fn push_slot(self, b: &mut FlatBufferBuilder<'_>, voffset: VOffsetT) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_scalar_reads_back_what_it_writes() {
        let values = [
            Scalar::Bool(true),
            Scalar::I8(-3),
            Scalar::U8(250),
            Scalar::I16(-30_000),
            Scalar::U16(60_000),
            Scalar::I32(-7),
            Scalar::U32(4_000_000_000),
            Scalar::I64(i64::MIN),
            Scalar::U64(u64::MAX),
            Scalar::F32(-2.5),
            Scalar::F64(1e300),
        ];
        for v in values {
            let mut buf = [0u8; 9];
            v.write_le(&mut buf[1..]);
            assert_eq!(v.ty().read(&buf, 1), Ok(v));
            assert!(v.ty().read(&buf, 9 - v.size()).is_ok());
            assert!(v.ty().read(&buf, 10 - v.size()).is_err(), "{v:?}");
        }
        assert_eq!(
            ScalarType::U64.read_integer(&[0xff; 8], 0),
            Ok(u64::MAX.into())
        );
        assert_eq!(ScalarType::I8.read_integer(&[0xff], 0), Ok(-1));
    }

    #[test]
    fn types_of_base_types() {
        assert_eq!(ScalarType::of(BaseType::UType), Some(ScalarType::U8));
        assert_eq!(ScalarType::of(BaseType::String), None);
        assert_eq!(ScalarType::integer(BaseType::Double), None);
        assert_eq!(ScalarType::integer(BaseType::Short), Some(ScalarType::I16));
        assert_eq!(ScalarType::F64.size(), 8);
    }
}
