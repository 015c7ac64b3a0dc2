//! The scalar types of FlatBuffers, as a schema's `BaseType` names them: one definition for the
//! columns that read them and for the plan that verifies them.

use crate::read::{Le, ReadResult};
use flatbuffers_reflection::reflection::BaseType;

/// The storage of an integer: 1, 2, 4 or 8 bytes, signed or not.
#[derive(Debug, Clone, Copy)]
pub(crate) enum IntWidth {
    I8,
    U8,
    I16,
    U16,
    I32,
    U32,
    I64,
    U64,
}

impl IntWidth {
    /// The integer type `base` names (`UType`, a union's type, is a `ubyte`), or `None`.
    pub(crate) fn of(base: BaseType) -> Option<IntWidth> {
        Some(match base {
            BaseType::Byte => IntWidth::I8,
            BaseType::UByte | BaseType::UType => IntWidth::U8,
            BaseType::Short => IntWidth::I16,
            BaseType::UShort => IntWidth::U16,
            BaseType::Int => IntWidth::I32,
            BaseType::UInt => IntWidth::U32,
            BaseType::Long => IntWidth::I64,
            BaseType::ULong => IntWidth::U64,
            _ => return None,
        })
    }

    /// Reads the integer at `at`.
    #[inline]
    pub(crate) fn read(self, buf: &[u8], at: usize) -> ReadResult<i128> {
        Ok(match self {
            IntWidth::I8 => i8::read(buf, at)?.into(),
            IntWidth::U8 => u8::read(buf, at)?.into(),
            IntWidth::I16 => i16::read(buf, at)?.into(),
            IntWidth::U16 => u16::read(buf, at)?.into(),
            IntWidth::I32 => i32::read(buf, at)?.into(),
            IntWidth::U32 => u32::read(buf, at)?.into(),
            IntWidth::I64 => i64::read(buf, at)?.into(),
            IntWidth::U64 => u64::read(buf, at)?.into(),
        })
    }
}

/// The scalar types a table field, struct field or vector element can have.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Scalar {
    Bool,
    Int(IntWidth),
    F32,
    F64,
}

impl Scalar {
    /// The scalar type `base` names, or `None` if it is not a scalar.
    pub(crate) fn of(base: BaseType) -> Option<Scalar> {
        Some(match base {
            BaseType::Bool => Scalar::Bool,
            BaseType::Float => Scalar::F32,
            BaseType::Double => Scalar::F64,
            _ => Scalar::Int(IntWidth::of(base)?),
        })
    }
}
