//! From a reflection schema to the columns that read it.

use crate::column::{
    Col, Composite, EnumCol, EnumNames, FixedListCol, ListCol, Prim, Slot, StructCol, TableCol,
    UnionCol,
};
use crate::error::{Error, Result};
use crate::options::Enums;
use arrow_array::builder::{BinaryBuilder, BooleanBuilder, PrimitiveBuilder, StringBuilder};
use arrow_buffer::NullBufferBuilder;
use arrow_schema::{Field as ArrowField, Fields};
use flatbuffers_reflection::reflection::{self, BaseType, Field, Type};
use flatstream_reflect::{ScalarType, is_scalar, scalar_size};
use std::collections::HashMap;
use std::sync::Arc;

/// Builds columns for one schema: [`Plan::new`](crate::Plan::new) makes one, and compiles
/// every column with it.
pub(crate) struct Compiler<'s> {
    schema: reflection::Schema<'s>,
    enums: Enums,
    /// Per object: whether it is a table reachable from itself.
    recursive: &'s [bool],
    names: HashMap<usize, Arc<EnumNames>>,
}

/// An object's fields in declaration order, deprecated ones left out.
pub(crate) fn fields<'s>(schema: &reflection::Schema<'s>, object: usize) -> Vec<Field<'s>> {
    let mut fields: Vec<Field<'s>> = schema
        .objects()
        .get(object)
        .fields()
        .iter()
        .filter(|f| !f.deprecated())
        .collect();
    fields.sort_by_key(|f| (f.id(), f.offset()));
    fields
}

/// The fields of a table that become columns: all but a union's type field (its tag is in
/// the union's column).
pub(crate) fn columns<'s>(schema: &reflection::Schema<'s>, table: usize) -> Vec<Field<'s>> {
    fields(schema, table)
        .into_iter()
        .filter(|f| f.type_().base_type() != BaseType::UType)
        .collect()
}

/// For each object of the schema: whether it is a table reachable from itself (through table
/// fields, vectors of tables and union members).
pub(crate) fn recursive_tables(schema: &reflection::Schema<'_>) -> Vec<bool> {
    flatstream_reflect::recursive_tables(schema)
}

impl<'s> Compiler<'s> {
    pub(crate) fn new(schema: reflection::Schema<'s>, enums: Enums, recursive: &'s [bool]) -> Self {
        Compiler {
            schema,
            enums,
            recursive,
            names: HashMap::new(),
        }
    }

    /// The column of field `field` of a table, and where the table keeps it.
    pub(crate) fn table_field(&mut self, field: &Field<'_>, path: &str) -> Result<(Slot, Col)> {
        let ty = field.type_();
        if field.offset64() {
            return Err(unsupported(path, "a 64-bit offset"));
        }
        if ty.base_type() == BaseType::Union {
            let tag = field.offset() - 2;
            let col = self.union(ty, path)?;
            return Ok((
                Slot::Union {
                    tag,
                    value: field.offset(),
                },
                col,
            ));
        }
        let col = if is_scalar(ty.base_type()) {
            let default = (!field.optional()).then(|| Default {
                integer: field.default_integer(),
                real: field.default_real(),
            });
            self.scalar(ty.base_type(), ty.index(), default)
        } else {
            self.non_scalar(ty, !field.required(), path)?
        };
        Ok((Slot::Field(field.offset()), col))
    }

    /// A table's column: its fields, as a nullable (or, required, non-null) struct.
    pub(crate) fn table(&mut self, index: usize, nullable: bool, path: &str) -> Result<TableCol> {
        let mut arrow = Vec::new();
        let mut slots = Vec::new();
        let mut children = Vec::new();
        for field in columns(&self.schema, index) {
            let path = join(path, field.name());
            let (slot, col) = self.table_field(&field, &path)?;
            arrow.push(ArrowField::new(
                field.name(),
                col.data_type(),
                col.nullable(),
            ));
            slots.push(slot);
            children.push(col);
        }
        Ok(TableCol::new(
            Fields::from(arrow),
            slots,
            children,
            nullable,
        ))
    }

    /// Strings, vectors, tables and structs (their values are never defaults).
    fn non_scalar(&mut self, ty: Type<'_>, nullable: bool, path: &str) -> Result<Col> {
        Ok(match ty.base_type() {
            BaseType::String => Col::Utf8 {
                b: StringBuilder::new(),
                nullable,
            },
            BaseType::Vector => {
                let element = ty.element();
                if element == BaseType::UByte && ty.index() < 0 {
                    return Ok(Col::Bytes {
                        b: BinaryBuilder::new(),
                        nullable,
                    });
                }
                let (item, stride) = match element {
                    e if is_scalar(e) => (
                        self.scalar(e, ty.index(), Some(Default::ZERO)),
                        scalar_size(e),
                    ),
                    BaseType::String => (self.non_scalar_element(BaseType::String, -1, path)?, 4),
                    BaseType::Obj => {
                        let index = object_index(ty.index(), path)?;
                        let object = self.schema.objects().get(index);
                        let stride = if object.is_struct() {
                            usize::try_from(object.bytesize()).unwrap_or(0)
                        } else {
                            4
                        };
                        (
                            self.non_scalar_element(BaseType::Obj, ty.index(), path)?,
                            stride,
                        )
                    }
                    other => {
                        return Err(unsupported(path, &format!("a vector of {other:?}")));
                    }
                };
                let field = Arc::new(ArrowField::new("item", item.data_type(), item.nullable()));
                Col::List(Box::new(ListCol {
                    item,
                    field,
                    stride,
                    offsets: vec![0],
                    nulls: NullBufferBuilder::new(0),
                    nullable,
                }))
            }
            BaseType::Obj => {
                let index = object_index(ty.index(), path)?;
                if self.schema.objects().get(index).is_struct() {
                    Col::Struct(self.strukt(index, nullable, path)?)
                } else if self.recursive[index] {
                    Col::Recursive {
                        b: BinaryBuilder::new(),
                        nullable,
                    }
                } else {
                    Col::Table(self.table(index, nullable, path)?)
                }
            }
            other => return Err(unsupported(path, &format!("a field of type {other:?}"))),
        })
    }

    /// A vector's element that is not a scalar: never null.
    fn non_scalar_element(&mut self, base: BaseType, index: i32, path: &str) -> Result<Col> {
        let ty = TypeDesc { base, index };
        match ty.base {
            BaseType::String => Ok(Col::Utf8 {
                b: StringBuilder::new(),
                nullable: false,
            }),
            _ => {
                let index = object_index(ty.index, path)?;
                Ok(if self.schema.objects().get(index).is_struct() {
                    Col::Struct(self.strukt(index, false, path)?)
                } else if self.recursive[index] {
                    Col::Recursive {
                        b: BinaryBuilder::new(),
                        nullable: false,
                    }
                } else {
                    Col::Table(self.table(index, false, path)?)
                })
            }
        }
    }

    fn strukt(&mut self, index: usize, nullable: bool, path: &str) -> Result<StructCol> {
        let mut arrow = Vec::new();
        let mut offsets = Vec::new();
        let mut children = Vec::new();
        for field in fields(&self.schema, index) {
            let path = join(path, field.name());
            let ty = field.type_();
            let col = match ty.base_type() {
                base if is_scalar(base) => self.scalar(base, ty.index(), Some(Default::ZERO)),
                BaseType::Obj => {
                    Col::Struct(self.strukt(object_index(ty.index(), &path)?, false, &path)?)
                }
                BaseType::Array => {
                    let element = ty.element();
                    // `Type::element_size` is not a struct's size in flatc's schemas: the
                    // struct's own `bytesize` is.
                    let (item, stride) = if element == BaseType::Obj {
                        let index = object_index(ty.index(), &path)?;
                        let stride = self.schema.objects().get(index).bytesize();
                        let item = Col::Struct(self.strukt(index, false, &path)?);
                        (item, usize::try_from(stride).unwrap_or(0))
                    } else if is_scalar(element) {
                        let item = self.scalar(element, ty.index(), Some(Default::ZERO));
                        (item, scalar_size(element))
                    } else {
                        return Err(unsupported(&path, &format!("an array of {element:?}")));
                    };
                    let field = Arc::new(ArrowField::new("item", item.data_type(), false));
                    Col::FixedList(Box::new(FixedListCol {
                        item,
                        field,
                        stride,
                        len: usize::from(ty.fixed_length()),
                        rows: 0,
                    }))
                }
                other => {
                    return Err(unsupported(
                        &path,
                        &format!("a struct field of type {other:?}"),
                    ));
                }
            };
            arrow.push(ArrowField::new(field.name(), col.data_type(), false));
            offsets.push(usize::from(field.offset()));
            children.push(col);
        }
        Ok(StructCol::new(
            Fields::from(arrow),
            offsets,
            children,
            nullable,
        ))
    }

    fn union(&mut self, ty: Type<'_>, path: &str) -> Result<Col> {
        let e =
            usize::try_from(ty.index()).map_err(|_| unsupported(path, "a union without type"))?;
        let tag = match self.enums {
            Enums::Names => self.enumeration(e, ScalarType::U8, Some(0)),
            _ => Col::U8(Prim::new(Some(0))),
        };
        let mut arrow = vec![ArrowField::new("type", tag.data_type(), false)];
        let mut discriminants = Vec::new();
        let mut members = Vec::new();
        let values: Vec<_> = self.schema.enums().get(e).values().iter().collect();
        for v in values {
            let Some(member) = v.union_type() else {
                continue;
            };
            let Ok(d) = u8::try_from(v.value()) else {
                continue;
            };
            if member.base_type() == BaseType::None {
                continue;
            }
            let path = format!("{path} (as {})", v.name());
            let col = match member.base_type() {
                BaseType::String => Col::Utf8 {
                    b: StringBuilder::new(),
                    nullable: true,
                },
                BaseType::Obj => {
                    let index = object_index(member.index(), &path)?;
                    if self.schema.objects().get(index).is_struct() {
                        return Err(unsupported(&path, "a struct in a union"));
                    }
                    self.non_scalar(member, true, &path)?
                }
                other => return Err(unsupported(&path, &format!("a union member {other:?}"))),
            };
            arrow.push(ArrowField::new(v.name(), col.data_type(), true));
            discriminants.push(d);
            members.push(col);
        }
        Ok(Col::Union(Box::new(UnionCol {
            fields: Fields::from(arrow),
            tag,
            discriminants,
            members,
            nulls: NullBufferBuilder::new(0),
            rows: 0,
        })))
    }

    /// A scalar of type `base`; an enum's if `index` names one. `default` is the value of an
    /// absent field, `None` for null.
    fn scalar(&mut self, base: BaseType, index: i32, default: Option<Default>) -> Col {
        if let (Enums::Names, Ok(e)) = (self.enums, usize::try_from(index)) {
            if let Some(width) = ScalarType::integer(base) {
                let default = default.map(|d| i128::from(d.integer));
                return self.enumeration(e, width, default);
            }
        }
        let int = default.map(|d| d.integer);
        let real = default.map(|d| d.real);
        match base {
            BaseType::Bool => Col::Bool {
                b: BooleanBuilder::new(),
                default: int.map(|v| v != 0),
            },
            BaseType::Byte => Col::I8(Prim::new(int.map(|v| v as i8))),
            BaseType::UByte | BaseType::UType => Col::U8(Prim::new(int.map(|v| v as u8))),
            BaseType::Short => Col::I16(Prim::new(int.map(|v| v as i16))),
            BaseType::UShort => Col::U16(Prim::new(int.map(|v| v as u16))),
            BaseType::Int => Col::I32(Prim::new(int.map(|v| v as i32))),
            BaseType::UInt => Col::U32(Prim::new(int.map(|v| v as u32))),
            BaseType::Long => Col::I64(Prim::new(int)),
            BaseType::ULong => Col::U64(Prim::new(int.map(|v| v as u64))),
            BaseType::Float => Col::F32(Prim::new(real.map(|v| v as f32))),
            _ => Col::F64(Prim::new(real)),
        }
    }

    fn enumeration(&mut self, e: usize, width: ScalarType, default: Option<i128>) -> Col {
        let schema = &self.schema;
        let names = self
            .names
            .entry(e)
            .or_insert_with(|| {
                let mut pairs: Vec<(i128, String)> = schema
                    .enums()
                    .get(e)
                    .values()
                    .iter()
                    .map(|v| (i128::from(v.value()), v.name().to_owned()))
                    .collect();
                pairs.sort();
                pairs.dedup_by_key(|p| p.0);
                let (values, names) = pairs.into_iter().unzip();
                Arc::new(EnumNames { values, names })
            })
            .clone();
        Col::Enum(Box::new(EnumCol {
            width,
            default,
            names,
            keys: PrimitiveBuilder::new(),
            unnamed: HashMap::new(),
            unnamed_text: Vec::new(),
        }))
    }
}

/// A scalar field's default, as the schema stores it.
#[derive(Clone, Copy)]
pub(crate) struct Default {
    integer: i64,
    real: f64,
}

impl Default {
    /// Struct fields and vector elements are never absent; under an absent parent they are 0.
    const ZERO: Default = Default {
        integer: 0,
        real: 0.0,
    };
}

struct TypeDesc {
    base: BaseType,
    index: i32,
}

fn object_index(index: i32, path: &str) -> Result<usize> {
    usize::try_from(index).map_err(|_| unsupported(path, "an object without type index"))
}

fn unsupported(path: &str, what: &str) -> Error {
    Error::Unsupported {
        path: path.to_owned(),
        what: what.to_owned(),
    }
}

pub(crate) fn join(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_owned()
    } else {
        format!("{path}.{name}")
    }
}

/// A column of the same shape as `col`, with empty builders: what a converter makes of the
/// columns [`Plan::new`](crate::Plan::new) compiled, without reading the schema again.
pub(crate) fn fresh(col: &Col) -> Col {
    match col {
        Col::Bool { default, .. } => Col::Bool {
            b: BooleanBuilder::new(),
            default: *default,
        },
        Col::I8(c) => Col::I8(Prim::new(c.default)),
        Col::U8(c) => Col::U8(Prim::new(c.default)),
        Col::I16(c) => Col::I16(Prim::new(c.default)),
        Col::U16(c) => Col::U16(Prim::new(c.default)),
        Col::I32(c) => Col::I32(Prim::new(c.default)),
        Col::U32(c) => Col::U32(Prim::new(c.default)),
        Col::I64(c) => Col::I64(Prim::new(c.default)),
        Col::U64(c) => Col::U64(Prim::new(c.default)),
        Col::F32(c) => Col::F32(Prim::new(c.default)),
        Col::F64(c) => Col::F64(Prim::new(c.default)),
        Col::Enum(c) => Col::Enum(Box::new(EnumCol {
            width: c.width,
            default: c.default,
            names: c.names.clone(),
            keys: PrimitiveBuilder::new(),
            unnamed: HashMap::new(),
            unnamed_text: Vec::new(),
        })),
        Col::Utf8 { nullable, .. } => Col::Utf8 {
            b: StringBuilder::new(),
            nullable: *nullable,
        },
        Col::Bytes { nullable, .. } => Col::Bytes {
            b: BinaryBuilder::new(),
            nullable: *nullable,
        },
        Col::Recursive { nullable, .. } => Col::Recursive {
            b: BinaryBuilder::new(),
            nullable: *nullable,
        },
        Col::List(c) => Col::List(Box::new(ListCol {
            item: fresh(&c.item),
            field: c.field.clone(),
            stride: c.stride,
            offsets: vec![0],
            nulls: NullBufferBuilder::new(0),
            nullable: c.nullable,
        })),
        Col::FixedList(c) => Col::FixedList(Box::new(FixedListCol {
            item: fresh(&c.item),
            field: c.field.clone(),
            stride: c.stride,
            len: c.len,
            rows: 0,
        })),
        Col::Struct(c) => Col::Struct(fresh_composite(c)),
        Col::Table(c) => Col::Table(fresh_composite(c)),
        Col::Union(c) => Col::Union(Box::new(UnionCol {
            fields: c.fields.clone(),
            tag: fresh(&c.tag),
            discriminants: c.discriminants.clone(),
            members: c.members.iter().map(fresh).collect(),
            nulls: NullBufferBuilder::new(0),
            rows: 0,
        })),
    }
}

/// A struct or table column of the same shape as `c`, with empty builders.
pub(crate) fn fresh_composite<L: Clone>(c: &Composite<L>) -> Composite<L> {
    Composite::new(
        c.fields.clone(),
        c.places.clone(),
        c.children.iter().map(fresh).collect(),
        c.nullable,
    )
}
