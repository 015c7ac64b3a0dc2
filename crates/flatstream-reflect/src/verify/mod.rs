//! The verifier: a schema's checks compiled once per root table, run on every payload.
//!
//! It makes the checks of `flatbuffers-reflection`'s verifier, each of `flatbuffers::Verifier`'s
//! checks in the same order and failing with the same error (so offsets, alignment, vtables,
//! UTF-8, required fields and flatbuffers' limits count the same way), made inline here
//! rather than through `flatbuffers::Verifier`, and with the schema already read: the reflection
//! verifier reads the schema (itself a FlatBuffer) for every field of every payload, copies
//! each field's name into a `String` and fills a `HashMap` of the tables it met. Unlike it:
//!
//! - a union's type is checked against the union's members (the reflection verifier indexes
//!   them with it unchecked, and panics past the last);
//! - a table is verified as the type of every reference to it, each time (the reflection
//!   verifier skips a table it has seen, so one table referenced as two types passes, and
//!   is then read as the second);
//! - and so a payload is bounded by what reading it costs: its *budget*.
//!
//! # The budget of a payload
//!
//! A payload is as large as its bytes, but what a reader makes of it is not: a vector of
//! 200 000 references to one table with a 20 KB string is 820 KB of payload and 4 GB of rows.
//! The verifier counts what a reader reads, each reference as often as it is followed: 4
//! bytes per table and per offset, a scalar's size, a struct's size, a string's or vector's
//! length and elements. A payload whose count passes [`budget`] fails, as any invalid payload
//! does. The budget is 64 MiB, or 8 times the payload's length if that is more: a payload
//! without shared references costs about its own length, and one that shares strings and
//! tables (as flatbuffers' builders do for equal strings) passes as long as reading it does
//! not amplify it eightfold past 64 MiB.
//!
//! Tables nest at most [`MAX_DEPTH`] deep, and a payload holds at most [`MAX_TABLES`] tables
//! (counted per reference), flatbuffers' default limits.
//!
//! [`budget`]: crate::budget
//! [`MAX_DEPTH`]: crate::MAX_DEPTH
//! [`MAX_TABLES`]: crate::MAX_TABLES

mod walk;

use crate::error::{Error, Result};
use crate::scalar::ScalarType;
use flatbuffers_reflection::reflection::{self, BaseType, Type};

/// What one field of a table needs checked.
#[derive(Debug, Clone, Copy)]
enum Check {
    Scalar(ScalarType),
    String,
    ScalarVector(ScalarType),
    StringVector,
    /// A vector of structs of this object.
    StructVector(usize),
    /// A vector of tables of this object.
    TableVector(usize),
    Struct(usize),
    Table(usize),
    /// A union of this enum (its members in `Verifier::unions`).
    Union(usize),
    /// A type no reader here reads (a vector of unions, a 64-bit vector): present, refused.
    Unsupported(BaseType),
}

#[derive(Debug, Clone)]
struct FieldCheck {
    slot: u16,
    required: bool,
    check: Check,
    name: Box<str>,
}

/// What a union's value is, per type number.
#[derive(Debug, Clone, Copy)]
enum Member {
    String,
    Struct(usize),
    Table(usize),
    /// `NONE`, or a number the union does not have.
    Refused,
}

#[derive(Debug, Default, Clone)]
struct Object {
    /// A table's fields, in the schema's order (the reflection verifier's).
    fields: Vec<FieldCheck>,
    /// What a table costs to read before its fields that are not scalars: 4 bytes for its
    /// vtable offset, and each scalar field's size (an absent one reads as its default).
    fixed: usize,
    /// A struct's size, and its struct fields (offset, object), each checked again.
    size: usize,
    nested: Vec<(usize, usize)>,
}

/// A union's members by type number, and their names.
#[derive(Debug, Default, Clone)]
struct Union {
    name: Box<str>,
    members: Vec<Member>,
    names: Vec<Box<str>>,
}

/// Verifies payloads of one table of a schema: compiled once, cheap to clone, `Send` and
/// `Sync`.
///
/// It makes the checks of `flatbuffers-reflection`'s verifier with flatbuffers' limits
/// (tables nest at most [`MAX_DEPTH`] deep, at most [`MAX_TABLES`] tables), checks a union's
/// type against the union's members, verifies a table as the type of every reference to it,
/// and bounds what reading a payload costs: 4 bytes per table and per offset, a scalar's or
/// struct's size, a string's or vector's length, each reference counted as often as it is
/// followed, at most the payload's [`budget`] (64 MiB, or 8 times its length if that is
/// more). A vector of 200 000 references to one table with a 20 KB string, 820 KB of payload
/// and 4 GB to read, fails as any invalid payload does.
///
/// ```
/// # fn main() -> Result<(), flatstream_reflect::Error> {
/// let bytes = include_bytes!("../../../../examples/fleet.bfbs");
/// let schema = flatstream_reflect::parse(bytes)?;
/// let sensor = flatstream_reflect::root_table(&schema, Some("Sensor"))?;
/// let verifier = flatstream_reflect::Verifier::new(&schema, sensor)?;
///
/// let mut b = flatbuffers::FlatBufferBuilder::new();
/// let name = b.create_string("lidar");
/// let table = b.start_table();
/// b.push_slot_always(4, name);
/// let table = b.end_table(table);
/// b.finish_minimal(table);
/// verifier.verify(b.finished_data())?;
///
/// let short = verifier.verify(&[1, 2, 3]).unwrap_err();
/// assert!(short.to_string().starts_with("its 3 bytes are too few for a FlatBuffer"));
/// # Ok(()) }
/// ```
///
/// [`budget`]: crate::budget
/// [`MAX_DEPTH`]: crate::MAX_DEPTH
/// [`MAX_TABLES`]: crate::MAX_TABLES
#[derive(Debug, Clone)]
pub struct Verifier {
    root: usize,
    objects: Vec<Object>,
    /// Per enum: a union's members (empty for other enums).
    unions: Vec<Union>,
    /// Per object: whether a reader copies the whole payload for each reference to this table
    /// from a table that is not one of these (see [`Verifier::copying`]).
    copied: Vec<bool>,
}

impl Verifier {
    /// Compiles the checks of payloads of object `root` (a table's index in
    /// `schema.objects()`, from [`root_table`](crate::root_table)).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidSchema`] if the schema fails [`check`](crate::check) or `root` is not
    /// one of its tables.
    pub fn new(schema: &reflection::Schema<'_>, root: usize) -> Result<Verifier> {
        crate::check(schema)?;
        let objects = schema.objects();
        if root >= objects.len() || objects.get(root).is_struct() {
            return Err(Error::InvalidSchema {
                reason: format!("object {root} is not one of its tables"),
            });
        }
        let mut compiled = Vec::with_capacity(objects.len());
        for object in objects {
            let mut out = Object::default();
            if object.is_struct() {
                // Checked: a struct has a size, and its fields lie in it.
                out.size = usize::try_from(object.bytesize()).unwrap_or(0);
                for field in object.fields() {
                    if field.type_().base_type() == BaseType::Obj {
                        if let Some(child) = index(field.type_()) {
                            out.nested.push((usize::from(field.offset()), child));
                        }
                    }
                }
                compiled.push(out);
                continue;
            }
            out.fixed = 4;
            for field in object.fields() {
                let ty = field.type_();
                let check = compile_field(schema, ty);
                if let Check::Scalar(s) = check {
                    out.fixed += s.size();
                }
                out.fields.push(FieldCheck {
                    slot: field.offset(),
                    required: field.required(),
                    check,
                    name: field.name().into(),
                });
            }
            compiled.push(out);
        }
        let unions = schema
            .enums()
            .iter()
            .map(|e| {
                let mut union = Union {
                    name: e.name().into(),
                    ..Union::default()
                };
                if !e.is_union() {
                    return union;
                }
                for value in e.values() {
                    // Checked: members are numbered 0 to 255.
                    let Ok(tag) = usize::try_from(value.value()) else {
                        continue;
                    };
                    if union.members.len() <= tag {
                        union.members.resize(tag + 1, Member::Refused);
                        union.names.resize(tag + 1, "".into());
                    }
                    union.names[tag] = value.name().into();
                    union.members[tag] = match value.union_type() {
                        Some(ty) if ty.base_type() == BaseType::String => Member::String,
                        Some(ty) if ty.base_type() == BaseType::Obj => match index(ty) {
                            Some(m) if objects.get(m).is_struct() => Member::Struct(m),
                            Some(m) => Member::Table(m),
                            None => Member::Refused,
                        },
                        _ => Member::Refused,
                    };
                }
                union
            })
            .collect();
        Ok(Verifier {
            root,
            copied: vec![false; compiled.len()],
            objects: compiled,
            unions,
        })
    }

    /// The index of the table this verifier verifies payloads of.
    pub fn root(&self) -> usize {
        self.root
    }

    /// This verifier checking, of the root table, only the fields in the vtable slots `slots`
    /// (the fields a reader reads), each whole with everything under it. The root's layout
    /// (its offset, its vtable) is checked whatever `slots` holds. What it passes, a reader of
    /// those fields reads within the budget; a fault in another field passes.
    pub fn reading(&self, slots: &[u16]) -> Verifier {
        let mut verifier = self.clone();
        let mut root = self.objects[self.root].clone();
        root.fields.retain(|field| slots.contains(&field.slot));
        root.fixed = 4 + root
            .fields
            .iter()
            .map(|f| match f.check {
                Check::Scalar(s) => s.size(),
                _ => 0,
            })
            .sum::<usize>();
        // A table of the root's type met below the root is checked whole: the reduced root
        // is an object of its own.
        verifier.root = verifier.objects.len();
        verifier.objects.push(root);
        verifier.copied.push(self.copied[self.root]);
        verifier
    }

    /// This verifier counting, against the budget, the whole payload for each reference to
    /// one of the tables `tables` (per object index, as [`recursive_tables`] gives them) from
    /// a table that is not one of them: what a reader costs that copies the payload for such
    /// a table (`flatstream-arrow` does for a table reachable from itself).
    ///
    /// [`recursive_tables`]: crate::recursive_tables
    pub fn copying(mut self, tables: &[bool]) -> Verifier {
        for (copied, &table) in self.copied.iter_mut().zip(tables) {
            *copied = table;
        }
        self
    }

    /// Verifies that `payload` is a FlatBuffer of the root table whose reading stays within
    /// its [`budget`](crate::budget).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidBuffer`], whose message is one clause: where (the field's path from
    /// the root table, `readings[2].name`, and its byte in the payload) and what.
    pub fn verify(&self, payload: &[u8]) -> Result<()> {
        walk::verify(self, payload).map_err(|reason| Error::InvalidBuffer { reason })
    }
}

/// The object `ty` names, if any.
fn index(ty: Type<'_>) -> Option<usize> {
    usize::try_from(ty.index()).ok()
}

fn compile_field(schema: &reflection::Schema<'_>, ty: Type<'_>) -> Check {
    let object =
        |ty: Type<'_>, structure: fn(usize) -> Check, table: fn(usize) -> Check| match index(ty) {
            Some(i) if i < schema.objects().len() => {
                if schema.objects().get(i).is_struct() {
                    structure(i)
                } else {
                    table(i)
                }
            }
            _ => Check::Unsupported(ty.base_type()),
        };
    match ty.base_type() {
        BaseType::String => Check::String,
        BaseType::Vector => match ty.element() {
            BaseType::String => Check::StringVector,
            BaseType::Obj => object(ty, Check::StructVector, Check::TableVector),
            element => ScalarType::of(element)
                .map_or(Check::Unsupported(BaseType::Vector), Check::ScalarVector),
        },
        BaseType::Obj => object(ty, Check::Struct, Check::Table),
        // Checked: a union has its type field in the slot before its own.
        BaseType::Union => index(ty).map_or(Check::Unsupported(BaseType::Union), Check::Union),
        base => ScalarType::of(base).map_or(Check::Unsupported(base), Check::Scalar),
    }
}

#[cfg(test)]
mod tests;
