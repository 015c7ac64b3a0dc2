//! The columns a [`Converter`](crate::Converter) fills: each knows where its values lie in a
//! FlatBuffer and holds the Arrow builder they go to.
//!
//! A column's `append` takes the position of its value in the payload, or `None` for a value
//! that is absent (an absent table field, or any field under an absent table or union):
//! - scalars and enums: the position of the scalar;
//! - strings, `[ubyte]`, vectors, tables and recursive tables: the position of the offset
//!   (uoffset) that points to them;
//! - structs and fixed arrays: the position of the struct, inline.

use arrow_array::builder::{BinaryBuilder, BooleanBuilder, PrimitiveBuilder, StringBuilder};
use arrow_array::types::{
    Float32Type, Float64Type, Int8Type, Int16Type, Int32Type, Int64Type, UInt8Type, UInt16Type,
    UInt32Type, UInt64Type,
};
use arrow_array::{
    ArrayRef, ArrowPrimitiveType, DictionaryArray, FixedSizeListArray, ListArray, StringArray,
    StructArray,
};
use arrow_buffer::{NullBufferBuilder, OffsetBuffer, ScalarBuffer};
use arrow_schema::{ArrowError, DataType, FieldRef, Fields};
use flatstream_reflect::ScalarType;
use flatstream_reflect::read::{self, Le, ReadResult};
use std::collections::HashMap;
use std::sync::Arc;

/// A scalar column of Arrow type `T`, read as `T::Native`.
#[derive(Debug)]
pub(crate) struct Prim<T: ArrowPrimitiveType> {
    pub(crate) b: PrimitiveBuilder<T>,
    /// The value of an absent field; `None` for an optional scalar (`= null`): null.
    pub(crate) default: Option<T::Native>,
}

impl<T: ArrowPrimitiveType> Prim<T>
where
    T::Native: Le,
{
    pub(crate) fn new(default: Option<T::Native>) -> Self {
        Prim {
            b: PrimitiveBuilder::new(),
            default,
        }
    }

    #[inline]
    fn append(&mut self, buf: &[u8], at: Option<usize>) -> ReadResult {
        match at {
            Some(at) => self.b.append_value(T::Native::read(buf, at)?),
            None => self.b.append_option(self.default),
        }
        Ok(())
    }
}

/// The names of an enum's values, sorted by value.
#[derive(Debug)]
pub(crate) struct EnumNames {
    pub(crate) values: Vec<i128>,
    pub(crate) names: Vec<String>,
}

/// An enum as `Dictionary<Int32, Utf8>`: keys below `names.values.len()` index the enum's
/// names, the others the numbers without a name met in this batch.
#[derive(Debug)]
pub(crate) struct EnumCol {
    /// How the value is stored: an integer of 1, 2, 4 or 8 bytes, signed or not.
    pub(crate) width: ScalarType,
    pub(crate) default: Option<i128>,
    pub(crate) names: Arc<EnumNames>,
    pub(crate) keys: PrimitiveBuilder<Int32Type>,
    pub(crate) unnamed: HashMap<i128, i32>,
    pub(crate) unnamed_text: Vec<String>,
}

impl EnumCol {
    #[inline]
    fn append(&mut self, buf: &[u8], at: Option<usize>) -> ReadResult {
        let value = match at {
            Some(at) => self.width.read_integer(buf, at)?,
            None => match self.default {
                Some(v) => v,
                None => {
                    self.keys.append_null();
                    return Ok(());
                }
            },
        };
        self.append_value(value)
    }

    #[inline]
    fn append_value(&mut self, value: i128) -> ReadResult {
        let key = match self.names.values.binary_search(&value) {
            Ok(i) => i,
            Err(_) => return self.append_unnamed(value),
        };
        self.keys.append_value(key as i32);
        Ok(())
    }

    #[cold]
    fn append_unnamed(&mut self, value: i128) -> ReadResult {
        let next = self.names.values.len() + self.unnamed_text.len();
        let key = match self.unnamed.get(&value) {
            Some(&key) => key,
            None => {
                let key = i32::try_from(next).map_err(|_| "too many enum values".to_owned())?;
                self.unnamed.insert(value, key);
                self.unnamed_text.push(value.to_string());
                key
            }
        };
        self.keys.append_value(key);
        Ok(())
    }

    fn finish(&mut self) -> Result<ArrayRef, ArrowError> {
        let values =
            StringArray::from_iter_values(self.names.names.iter().chain(self.unnamed_text.iter()));
        self.unnamed.clear();
        self.unnamed_text.clear();
        let keys = self.keys.finish();
        Ok(Arc::new(DictionaryArray::try_new(keys, Arc::new(values))?))
    }
}

/// A vector other than `[ubyte]`, as a `List`.
#[derive(Debug)]
pub(crate) struct ListCol {
    pub(crate) item: Col,
    pub(crate) field: FieldRef,
    /// The size of one element in the vector: a scalar's, a struct's, or 4 for an offset.
    pub(crate) stride: usize,
    pub(crate) offsets: Vec<i32>,
    pub(crate) nulls: NullBufferBuilder,
    pub(crate) nullable: bool,
}

/// A fixed-length array in a struct, as a `FixedSizeList`.
#[derive(Debug)]
pub(crate) struct FixedListCol {
    pub(crate) item: Col,
    pub(crate) field: FieldRef,
    pub(crate) stride: usize,
    pub(crate) len: usize,
    pub(crate) rows: usize,
}

/// A struct or a table, as an Arrow struct: its (projected) fields, where each is read (`L`:
/// [`StructCol`], [`TableCol`]) and the column of each.
#[derive(Debug)]
pub(crate) struct Composite<L> {
    pub(crate) fields: Fields,
    pub(crate) places: Vec<L>,
    pub(crate) children: Vec<Col>,
    pub(crate) nulls: NullBufferBuilder,
    pub(crate) nullable: bool,
    pub(crate) rows: usize,
}

/// A struct, inline: its fields at their offsets in it.
pub(crate) type StructCol = Composite<usize>;

/// Where a table keeps a field's value.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Slot {
    /// The field's vtable slot (`Field::offset` in the reflection schema).
    Field(u16),
    /// A union: the slot of its type (discriminant) and the slot of its value.
    Union { tag: u16, value: u16 },
}

/// A table: its (projected) fields, each read from its vtable slot.
pub(crate) type TableCol = Composite<Slot>;

/// A union, as a struct of its tag and one nullable member per variant.
#[derive(Debug)]
pub(crate) struct UnionCol {
    pub(crate) fields: Fields,
    /// The union's type: an [`EnumCol`] of the union's enum, or a `UInt8` column.
    pub(crate) tag: Col,
    /// Each member's discriminant, in the order of `members`.
    pub(crate) discriminants: Vec<u8>,
    pub(crate) members: Vec<Col>,
    pub(crate) nulls: NullBufferBuilder,
    pub(crate) rows: usize,
}

/// One column of a batch, or one child of a nested column.
#[derive(Debug)]
pub(crate) enum Col {
    Bool {
        b: BooleanBuilder,
        default: Option<bool>,
    },
    I8(Prim<Int8Type>),
    U8(Prim<UInt8Type>),
    I16(Prim<Int16Type>),
    U16(Prim<UInt16Type>),
    I32(Prim<Int32Type>),
    U32(Prim<UInt32Type>),
    I64(Prim<Int64Type>),
    U64(Prim<UInt64Type>),
    F32(Prim<Float32Type>),
    F64(Prim<Float64Type>),
    Enum(Box<EnumCol>),
    Utf8 {
        b: StringBuilder,
        nullable: bool,
    },
    /// `[ubyte]`.
    Bytes {
        b: BinaryBuilder,
        nullable: bool,
    },
    /// A table reachable from itself: the payload with its root offset pointing at the
    /// sub-table.
    Recursive {
        b: BinaryBuilder,
        nullable: bool,
    },
    List(Box<ListCol>),
    FixedList(Box<FixedListCol>),
    Struct(StructCol),
    Table(TableCol),
    Union(Box<UnionCol>),
}

impl Col {
    /// Appends the value at `at`, or an absent one.
    pub(crate) fn append(&mut self, buf: &[u8], at: Option<usize>) -> ReadResult {
        match self {
            Col::Bool { b, default } => match at {
                Some(at) => b.append_value(bool::read(buf, at)?),
                None => b.append_option(*default),
            },
            Col::I8(c) => c.append(buf, at)?,
            Col::U8(c) => c.append(buf, at)?,
            Col::I16(c) => c.append(buf, at)?,
            Col::U16(c) => c.append(buf, at)?,
            Col::I32(c) => c.append(buf, at)?,
            Col::U32(c) => c.append(buf, at)?,
            Col::I64(c) => c.append(buf, at)?,
            Col::U64(c) => c.append(buf, at)?,
            Col::F32(c) => c.append(buf, at)?,
            Col::F64(c) => c.append(buf, at)?,
            Col::Enum(c) => c.append(buf, at)?,
            Col::Utf8 { b, nullable } => match at {
                Some(at) => b.append_value(read::string(buf, at)?),
                None if *nullable => b.append_null(),
                None => b.append_value(""),
            },
            Col::Bytes { b, nullable } => match at {
                Some(at) => {
                    let (start, len) = read::vector(buf, at, 1)?;
                    b.append_value(&buf[start..start + len]);
                }
                None if *nullable => b.append_null(),
                None => b.append_value([]),
            },
            Col::Recursive { b, nullable } => match at {
                Some(at) => {
                    let loc = read::follow(buf, at)?;
                    let root = u32::try_from(loc)
                        .map_err(|_| "a table past 4 GiB".to_owned())?
                        .to_le_bytes();
                    let head = buf.get(..4).ok_or("a payload under 4 bytes")?;
                    // The payload, its root offset (bytes 0..4) pointing at the sub-table.
                    b.append_value([&root[..], &buf[head.len()..]].concat());
                }
                None if *nullable => b.append_null(),
                None => b.append_value([]),
            },
            Col::List(c) => match at {
                Some(at) => {
                    let (start, len) = read::vector(buf, at, c.stride)?;
                    for i in 0..len {
                        c.item.append(buf, Some(start + i * c.stride))?;
                    }
                    let last = *c.offsets.last().unwrap_or(&0);
                    let next = i32::try_from(len)
                        .ok()
                        .and_then(|len| last.checked_add(len))
                        .ok_or("a batch's list holds more than 2^31 elements")?;
                    c.offsets.push(next);
                    c.nulls.append_non_null();
                }
                None => {
                    let last = *c.offsets.last().unwrap_or(&0);
                    c.offsets.push(last);
                    c.nulls.append(!c.nullable);
                }
            },
            Col::FixedList(c) => {
                for i in 0..c.len {
                    c.item.append(buf, at.map(|at| at + i * c.stride))?;
                }
                c.rows += 1;
            }
            Col::Struct(c) => {
                for (child, offset) in c.children.iter_mut().zip(&c.places) {
                    child.append(buf, at.map(|at| at + offset))?;
                }
                c.nulls.append(at.is_some() || !c.nullable);
                c.rows += 1;
            }
            Col::Table(c) => match at {
                Some(at) => c.append_at(buf, read::follow(buf, at)?)?,
                None => c.append_absent(buf)?,
            },
            Col::Union(c) => c.append(buf, None)?,
        }
        Ok(())
    }

    /// The finished array of the values appended since the last `finish`.
    pub(crate) fn finish(&mut self) -> Result<ArrayRef, ArrowError> {
        Ok(match self {
            Col::Bool { b, .. } => Arc::new(b.finish()),
            Col::I8(c) => Arc::new(c.b.finish()),
            Col::U8(c) => Arc::new(c.b.finish()),
            Col::I16(c) => Arc::new(c.b.finish()),
            Col::U16(c) => Arc::new(c.b.finish()),
            Col::I32(c) => Arc::new(c.b.finish()),
            Col::U32(c) => Arc::new(c.b.finish()),
            Col::I64(c) => Arc::new(c.b.finish()),
            Col::U64(c) => Arc::new(c.b.finish()),
            Col::F32(c) => Arc::new(c.b.finish()),
            Col::F64(c) => Arc::new(c.b.finish()),
            Col::Enum(c) => c.finish()?,
            Col::Utf8 { b, .. } => Arc::new(b.finish()),
            Col::Bytes { b, .. } | Col::Recursive { b, .. } => Arc::new(b.finish()),
            Col::List(c) => {
                let values = c.item.finish()?;
                let offsets = std::mem::replace(&mut c.offsets, vec![0]);
                Arc::new(ListArray::try_new(
                    c.field.clone(),
                    OffsetBuffer::new(ScalarBuffer::from(offsets)),
                    values,
                    c.nulls.finish(),
                )?)
            }
            Col::FixedList(c) => {
                let values = c.item.finish()?;
                c.rows = 0;
                Arc::new(FixedSizeListArray::try_new(
                    c.field.clone(),
                    c.len as i32,
                    values,
                    None,
                )?)
            }
            Col::Struct(c) => Arc::new(c.finish()?),
            Col::Table(c) => Arc::new(c.finish()?),
            Col::Union(c) => {
                let mut children = vec![c.tag.finish()?];
                children.extend(finish_all(&mut c.members)?);
                let rows = std::mem::take(&mut c.rows);
                Arc::new(StructArray::try_new_with_length(
                    c.fields.clone(),
                    children,
                    c.nulls.finish(),
                    rows,
                )?)
            }
        })
    }

    /// The Arrow type of the column.
    pub(crate) fn data_type(&self) -> DataType {
        match self {
            Col::Bool { .. } => DataType::Boolean,
            Col::I8(_) => DataType::Int8,
            Col::U8(_) => DataType::UInt8,
            Col::I16(_) => DataType::Int16,
            Col::U16(_) => DataType::UInt16,
            Col::I32(_) => DataType::Int32,
            Col::U32(_) => DataType::UInt32,
            Col::I64(_) => DataType::Int64,
            Col::U64(_) => DataType::UInt64,
            Col::F32(_) => DataType::Float32,
            Col::F64(_) => DataType::Float64,
            Col::Enum(_) => {
                DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8))
            }
            Col::Utf8 { .. } => DataType::Utf8,
            Col::Bytes { .. } | Col::Recursive { .. } => DataType::Binary,
            Col::List(c) => DataType::List(c.field.clone()),
            Col::FixedList(c) => DataType::FixedSizeList(c.field.clone(), c.len as i32),
            Col::Struct(c) => DataType::Struct(c.fields.clone()),
            Col::Table(c) => DataType::Struct(c.fields.clone()),
            Col::Union(c) => DataType::Struct(c.fields.clone()),
        }
    }

    /// Whether the column can hold nulls.
    pub(crate) fn nullable(&self) -> bool {
        match self {
            Col::Bool { default, .. } => default.is_none(),
            Col::I8(c) => c.default.is_none(),
            Col::U8(c) => c.default.is_none(),
            Col::I16(c) => c.default.is_none(),
            Col::U16(c) => c.default.is_none(),
            Col::I32(c) => c.default.is_none(),
            Col::U32(c) => c.default.is_none(),
            Col::I64(c) => c.default.is_none(),
            Col::U64(c) => c.default.is_none(),
            Col::F32(c) => c.default.is_none(),
            Col::F64(c) => c.default.is_none(),
            Col::Enum(c) => c.default.is_none(),
            Col::Utf8 { nullable, .. }
            | Col::Bytes { nullable, .. }
            | Col::Recursive { nullable, .. } => *nullable,
            Col::List(c) => c.nullable,
            Col::FixedList(_) => false,
            Col::Struct(c) => c.nullable,
            Col::Table(c) => c.nullable,
            Col::Union(_) => true,
        }
    }
}

fn finish_all(cols: &mut [Col]) -> Result<Vec<ArrayRef>, ArrowError> {
    cols.iter_mut().map(Col::finish).collect()
}

impl<L> Composite<L> {
    /// Fields read at `places` into `children`, no rows yet; `nullable`: whether an absent one
    /// is null (or its fields at their defaults).
    pub(crate) fn new(fields: Fields, places: Vec<L>, children: Vec<Col>, nullable: bool) -> Self {
        Composite {
            fields,
            places,
            children,
            nulls: NullBufferBuilder::new(0),
            nullable,
            rows: 0,
        }
    }

    /// The struct of the rows appended since the last `finish`.
    fn finish(&mut self) -> Result<StructArray, ArrowError> {
        let children = finish_all(&mut self.children)?;
        let rows = std::mem::take(&mut self.rows);
        StructArray::try_new_with_length(self.fields.clone(), children, self.nulls.finish(), rows)
    }
}

impl TableCol {
    /// Appends the table at `loc` (where its vtable offset is).
    pub(crate) fn append_at(&mut self, buf: &[u8], loc: usize) -> ReadResult {
        let vtable = read::vtable(buf, loc)?;
        for (child, slot) in self.children.iter_mut().zip(&self.places) {
            match (child, *slot) {
                (Col::Union(u), Slot::Union { tag, value }) => {
                    let tag = match read::field(buf, loc, vtable, tag)? {
                        Some(at) => u8::read(buf, at)?,
                        None => 0,
                    };
                    let value = read::field(buf, loc, vtable, value)?;
                    u.append(buf, value.filter(|_| tag != 0).map(|at| (tag, at)))?;
                }
                (child, Slot::Field(slot)) => {
                    child.append(buf, read::field(buf, loc, vtable, slot)?)?
                }
                (_, Slot::Union { .. }) => return Err("a union slot for a non-union".to_owned()),
            }
        }
        self.nulls.append_non_null();
        self.rows += 1;
        Ok(())
    }

    /// Appends an absent table: null, its fields at their defaults.
    fn append_absent(&mut self, buf: &[u8]) -> ReadResult {
        for child in &mut self.children {
            child.append(buf, None)?;
        }
        self.nulls.append(!self.nullable);
        self.rows += 1;
        Ok(())
    }

    /// The fields' arrays, for the root table's columns.
    pub(crate) fn finish_columns(&mut self) -> Result<Vec<ArrayRef>, ArrowError> {
        self.rows = 0;
        self.nulls.finish();
        finish_all(&mut self.children)
    }
}

impl UnionCol {
    fn append_tag(&mut self, tag: u8) -> ReadResult {
        match &mut self.tag {
            Col::Enum(e) => e.append_value(i128::from(tag)),
            Col::U8(c) => {
                c.b.append_value(tag);
                Ok(())
            }
            _ => Err("a union tag that is neither an enum nor a UInt8".to_owned()),
        }
    }

    /// Appends the member with discriminant `tag` whose offset is at `at`, or null.
    fn append(&mut self, buf: &[u8], value: Option<(u8, usize)>) -> ReadResult {
        match value {
            Some((tag, at)) => {
                if !self.discriminants.contains(&tag) {
                    return Err(format!("union type {tag} is not a member of the union"));
                }
                self.append_tag(tag)?;
                for (member, &d) in self.members.iter_mut().zip(&self.discriminants) {
                    member.append(buf, (d == tag).then_some(at))?;
                }
                self.nulls.append_non_null();
            }
            None => {
                self.append_tag(0)?;
                for member in &mut self.members {
                    member.append(buf, None)?;
                }
                self.nulls.append_null();
            }
        }
        self.rows += 1;
        Ok(())
    }
}
