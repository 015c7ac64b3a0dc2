//! Verification compiled once from the schema: the walk of `flatbuffers-reflection`'s verifier,
//! step for step, with `flatbuffers::Verifier`'s own checks, but with the schema already read.
//!
//! The reflection verifier reads the schema (itself a FlatBuffer) for every field of every
//! frame, copies each field's name into a `String`, fills a `HashMap` of the tables it met and
//! allocates a flag per payload byte: for a small table that is most of a conversion's time. A
//! [`VerifyPlan`] holds, per object, the list of checks its fields need, and runs them with
//! the same `Verifier` calls in the same order (so the same limits count the same way: depth,
//! tables, apparent size), skipping a table it verified already as the reflection verifier
//! does.
//!
//! A conversion that reads some of the root table's fields verifies only those:
//! [`VerifyPlan::reading`] keeps the root's checks of the fields it reads (each whole, with
//! everything under it) and drops the others. What is never read cannot mislead the reader,
//! and that is what a projection saves; [`Options::verify_unread`](crate::Options) turns it
//! off.
//!
//! It gives a verdict only. A frame it rejects is verified again by [`FrameVerifier`], which
//! says why, and whose verdict stands: the two are meant to agree on every payload (the tests
//! compare them on corrupted frames, and a debug build asserts it), and where they would not,
//! the reflection verifier decides. A schema the plan cannot represent exactly (a struct that
//! contains itself, an object without a size) has no plan: every frame goes to the reflection
//! verifier.
//!
//! [`FrameVerifier`]: crate::verify::FrameVerifier

use crate::scalar::{IntWidth, Scalar};
use flatbuffers::{
    ForwardsUOffset, InvalidFlatbuffer, SimpleToVerifyInSlice, TableVerifier, UOffsetT, Vector,
    Verifiable, Verifier, VerifierOptions,
};
use flatbuffers_reflection::reflection::{self, BaseType, Type};

/// A payload failed verification (why is [`FrameVerifier`](crate::verify::FrameVerifier)'s to
/// say).
#[derive(Debug)]
pub(crate) struct Rejected;

impl From<InvalidFlatbuffer> for Rejected {
    fn from(_: InvalidFlatbuffer) -> Self {
        Rejected
    }
}

type Verdict<T = ()> = Result<T, Rejected>;

/// What one field of a table needs checked.
#[derive(Debug, Clone, Copy)]
enum Check {
    Scalar(Scalar),
    String,
    ScalarVector(Scalar),
    StringVector,
    /// A vector of structs of this object.
    StructVector(usize),
    /// A vector of tables of this object.
    TableVector(usize),
    Struct(usize),
    Table(usize),
    /// A union of this enum (its members in `VerifyPlan::unions`).
    Union(usize),
    /// A type the reflection verifier refuses wherever it occurs.
    Unsupported,
}

#[derive(Debug, Clone, Copy)]
struct FieldCheck {
    slot: u16,
    required: bool,
    check: Check,
}

/// What a union's value is, per type number.
#[derive(Debug, Clone, Copy)]
enum Member {
    String,
    Struct(usize),
    Table(usize),
    /// `NONE`, or a type the reflection verifier refuses.
    Refused,
}

#[derive(Debug, Default, Clone)]
struct Object {
    /// A table's fields, in the schema's order (the verifier's).
    fields: Vec<FieldCheck>,
    /// A struct's size, and its struct fields (offset, object), each checked again.
    size: usize,
    nested: Vec<(usize, usize)>,
}

/// The checks of every object of a schema, rooted at one table.
#[derive(Debug, Clone)]
pub(crate) struct VerifyPlan {
    root: usize,
    objects: Vec<Object>,
    /// Per enum: the members of a union, by type number (empty for other enums).
    unions: Vec<Vec<Member>>,
    /// Whether a table other than the root can be met, so that the tables already verified
    /// must be remembered (as the reflection verifier does, by position).
    remember: bool,
    options: VerifierOptions,
}

impl VerifyPlan {
    /// The plan for frames of object `root`, or `None` if the schema has something the plan
    /// does not reproduce exactly (then the reflection verifier does all the work).
    pub(crate) fn compile(schema: &reflection::Schema<'_>, root: usize) -> Option<VerifyPlan> {
        // The reflection verifier verifies frames against the schema's root table.
        let root_name = schema.root_table()?.name();
        if schema.objects().get(root).name() != root_name {
            return None;
        }
        let mut objects = Vec::with_capacity(schema.objects().len());
        for object in schema.objects() {
            let mut compiled = Object::default();
            if object.is_struct() {
                compiled.size = usize::try_from(object.bytesize()).ok().filter(|&s| s > 0)?;
                for field in object.fields() {
                    if field.type_().base_type() == BaseType::Obj {
                        if let Some(child) = object_of(schema, field.type_(), Some, |_| None)? {
                            compiled.nested.push((usize::from(field.offset()), child));
                        }
                    }
                }
                objects.push(compiled);
                continue;
            }
            for field in object.fields() {
                let ty = field.type_();
                let check = match ty.base_type() {
                    BaseType::String => Check::String,
                    BaseType::Vector => match ty.element() {
                        BaseType::String => Check::StringVector,
                        BaseType::Obj => {
                            object_of(schema, ty, Check::StructVector, Check::TableVector)?
                        }
                        element => {
                            Scalar::of(element).map_or(Check::Unsupported, Check::ScalarVector)
                        }
                    },
                    BaseType::Obj => object_of(schema, ty, Check::Struct, Check::Table)?,
                    BaseType::Union => {
                        // The type field sits in the slot before the value's.
                        field.offset().checked_sub(2)?;
                        Check::Union(usize::try_from(ty.index()).ok()?)
                    }
                    base => Scalar::of(base).map_or(Check::Unsupported, Check::Scalar),
                };
                compiled.fields.push(FieldCheck {
                    slot: field.offset(),
                    required: field.required(),
                    check,
                });
            }
            objects.push(compiled);
        }
        if has_struct_cycle(&objects) {
            return None;
        }
        // Tables other than the root are met through tables, vectors of tables and unions.
        let remember = objects.iter().flat_map(|o| &o.fields).any(|f| {
            matches!(
                f.check,
                Check::Table(_) | Check::TableVector(_) | Check::Union(_)
            )
        });
        let mut unions = Vec::with_capacity(schema.enums().len());
        for e in schema.enums() {
            let mut members = Vec::new();
            if e.is_union() {
                for value in e.values() {
                    let member = match value.union_type() {
                        Some(ty) if ty.base_type() == BaseType::String => Member::String,
                        Some(ty) if ty.base_type() == BaseType::Obj => {
                            object_of(schema, ty, Member::Struct, Member::Table)?
                        }
                        _ => Member::Refused,
                    };
                    members.push(member);
                }
            }
            unions.push(members);
        }
        Some(VerifyPlan {
            root,
            objects,
            unions,
            remember,
            options: VerifierOptions::default(),
        })
    }

    /// This plan checking, of the root table, only the fields in the vtable slots `slots` (the
    /// fields a conversion reads); everything under those fields is checked as before. The
    /// root's layout (its offset, its vtable) is checked whatever `slots` holds.
    ///
    /// Its verdict is weaker, never stronger: a payload it rejects, the whole plan rejects too
    /// (it makes a subset of the same checks, in the same order, so it meets the same limits
    /// later if at all), except in one corner that the caller's fallback settles: a table
    /// reached both from a dropped field and from a kept one is checked at the depth of the
    /// kept one, which may be deeper.
    pub(crate) fn reading(&self, slots: &[u16]) -> VerifyPlan {
        let mut plan = self.clone();
        let mut root = self.objects[self.root].clone();
        root.fields.retain(|field| slots.contains(&field.slot));
        // A table of the root's type met below the root is checked whole: the reduced root is
        // an object of its own.
        plan.root = plan.objects.len();
        plan.objects.push(root);
        plan
    }

    /// Whether `payload` is a valid FlatBuffer of the root table. `seen` is scratch space
    /// (kept by the caller so that it is allocated once, not per frame).
    pub(crate) fn accepts(&self, payload: &[u8], seen: &mut Vec<bool>) -> bool {
        if self.remember {
            seen.clear();
            seen.resize(payload.len(), false);
        }
        let mut walk = Walk {
            plan: self,
            seen: if self.remember {
                &mut seen[..]
            } else {
                &mut []
            },
        };
        let mut verifier = Verifier::new(&self.options, payload);
        let Ok(root) = verifier.get_uoffset(0) else {
            return false;
        };
        walk.table(&mut verifier, self.root, root as usize).is_ok()
    }
}

/// One payload's walk: the plan and the tables verified so far (by position).
struct Walk<'p, 's> {
    plan: &'p VerifyPlan,
    seen: &'s mut [bool],
}

impl Walk<'_, '_> {
    fn table(&mut self, v: &mut Verifier<'_, '_>, object: usize, pos: usize) -> Verdict {
        if self.seen.get(pos).copied().unwrap_or(false) {
            return Ok(());
        }
        let plan = self.plan;
        let mut table = v.visit_table(pos)?;
        for field in &plan.objects[object].fields {
            table = self.field(table, field)?;
        }
        table.finish();
        self.mark(pos);
        Ok(())
    }

    fn mark(&mut self, pos: usize) {
        if let Some(seen) = self.seen.get_mut(pos) {
            *seen = true;
        }
    }

    fn field<'a, 'o, 'b>(
        &mut self,
        mut table: TableVerifier<'a, 'o, 'b>,
        field: &FieldCheck,
    ) -> Verdict<TableVerifier<'a, 'o, 'b>> {
        let FieldCheck {
            slot,
            required,
            check,
        } = *field;
        match check {
            Check::Scalar(s) => scalar::<false>(table, slot, required, s),
            Check::String => Ok(table.visit_field::<ForwardsUOffset<&str>>("", slot, required)?),
            Check::ScalarVector(s) => scalar::<true>(table, slot, required, s),
            Check::StringVector => Ok(table
                .visit_field::<ForwardsUOffset<Vector<'_, ForwardsUOffset<&str>>>>(
                    "", slot, required,
                )?),
            Check::Struct(object) | Check::Table(object) => {
                let Some(at) = table.deref(slot)? else {
                    return if required { Err(Rejected) } else { Ok(table) };
                };
                let v = table.verifier();
                if matches!(check, Check::Struct(_)) {
                    self.structure(v, object, at)?;
                } else {
                    let offset = v.get_uoffset(at)?;
                    self.table(v, object, at.saturating_add(offset as usize))?;
                }
                Ok(table)
            }
            Check::StructVector(object) | Check::TableVector(object) => {
                let Some(at) = table.deref(slot)? else {
                    return if required { Err(Rejected) } else { Ok(table) };
                };
                let v = table.verifier();
                let offset = v.get_uoffset(at)?;
                let vector = at.saturating_add(offset as usize);
                let len = v.get_uoffset(vector)?;
                let start = vector.saturating_add(4);
                if let Check::StructVector(_) = check {
                    let size = self.plan.objects[object].size;
                    let bytes = len.saturating_mul(UOffsetT::try_from(size).map_err(|_| Rejected)?);
                    v.range_in_buffer(start, bytes as usize)?;
                    let end = start.saturating_add(bytes as usize);
                    for at in (start..end).step_by(size) {
                        self.structure(v, object, at)?;
                    }
                } else {
                    v.is_aligned::<UOffsetT>(start)?;
                    let bytes = len.saturating_mul(4) as usize;
                    v.range_in_buffer(start, bytes)?;
                    let end = start.saturating_add(bytes);
                    for at in (start..end).step_by(4) {
                        let offset = v.get_uoffset(at)?;
                        self.table(v, object, at.saturating_add(offset as usize))?;
                    }
                }
                Ok(table)
            }
            Check::Union(e) => {
                let Some(at) = table.deref(slot)? else {
                    return if required { Err(Rejected) } else { Ok(table) };
                };
                let offset = table.verifier().get_uoffset(at)?;
                let value = at.saturating_add(offset as usize);
                let members = &self.plan.unions[e];
                if members.is_empty() {
                    return Err(Rejected);
                }
                // Checked in `compile`: a union's slot is at least 2.
                let Some(type_at) = table.deref(slot - 2)? else {
                    return Err(Rejected);
                };
                let v = table.verifier();
                let tag = v.get_u8(type_at)?;
                match members.get(usize::from(tag)) {
                    Some(Member::String) => <&str>::run_verifier(v, value)?,
                    Some(&Member::Struct(object)) => self.structure(v, object, value)?,
                    Some(&Member::Table(object)) => self.table(v, object, value)?,
                    Some(Member::Refused) | None => return Err(Rejected),
                }
                self.mark(value);
                Ok(table)
            }
            Check::Unsupported => Err(Rejected),
        }
    }

    fn structure(&mut self, v: &mut Verifier<'_, '_>, object: usize, pos: usize) -> Verdict {
        let object = &self.plan.objects[object];
        v.range_in_buffer(pos, object.size)?;
        for &(offset, child) in &object.nested {
            self.structure(v, child, pos.saturating_add(offset))?;
        }
        Ok(())
    }
}

/// The object of `schema` that `ty` names (an `Obj`, or a vector's element): `structure` of
/// its index if it is a struct, `table` of it if a table; `None` if `ty` names no object.
fn object_of<T>(
    schema: &reflection::Schema<'_>,
    ty: Type<'_>,
    structure: fn(usize) -> T,
    table: fn(usize) -> T,
) -> Option<T> {
    let index = usize::try_from(ty.index())
        .ok()
        .filter(|&i| i < schema.objects().len())?;
    Some(if schema.objects().get(index).is_struct() {
        structure(index)
    } else {
        table(index)
    })
}

/// Visits the field in `slot` as a scalar of type `s`, or with `VECTOR` as a vector of them.
fn scalar<'a, 'o, 'b, const VECTOR: bool>(
    t: TableVerifier<'a, 'o, 'b>,
    slot: u16,
    required: bool,
    s: Scalar,
) -> Verdict<TableVerifier<'a, 'o, 'b>> {
    match s {
        Scalar::Bool => visit::<bool, VECTOR>(t, slot, required),
        Scalar::Int(IntWidth::I8) => visit::<i8, VECTOR>(t, slot, required),
        Scalar::Int(IntWidth::U8) => visit::<u8, VECTOR>(t, slot, required),
        Scalar::Int(IntWidth::I16) => visit::<i16, VECTOR>(t, slot, required),
        Scalar::Int(IntWidth::U16) => visit::<u16, VECTOR>(t, slot, required),
        Scalar::Int(IntWidth::I32) => visit::<i32, VECTOR>(t, slot, required),
        Scalar::Int(IntWidth::U32) => visit::<u32, VECTOR>(t, slot, required),
        Scalar::Int(IntWidth::I64) => visit::<i64, VECTOR>(t, slot, required),
        Scalar::Int(IntWidth::U64) => visit::<u64, VECTOR>(t, slot, required),
        Scalar::F32 => visit::<f32, VECTOR>(t, slot, required),
        Scalar::F64 => visit::<f64, VECTOR>(t, slot, required),
    }
}

/// Visits the field in `slot` as a `T`, or with `VECTOR` as a vector of `T`.
///
/// A scalar takes the checks of `visit_field::<T>` (`T::run_verifier` is `in_buffer::<T>`)
/// without its error trace: `visit_field` passes every field's result through a function that
/// would record the field's name on an error, which cost more than the checks themselves for a
/// table of scalars, and a `Rejected` says nothing of why anyway.
#[inline]
fn visit<'a, 'o, 'b, T: Verifiable + SimpleToVerifyInSlice, const VECTOR: bool>(
    mut t: TableVerifier<'a, 'o, 'b>,
    slot: u16,
    required: bool,
) -> Verdict<TableVerifier<'a, 'o, 'b>> {
    if VECTOR {
        return Ok(t.visit_field::<ForwardsUOffset<Vector<'_, T>>>("", slot, required)?);
    }
    match t.deref(slot)? {
        Some(pos) => t.verifier().in_buffer::<T>(pos)?,
        None if required => return Err(Rejected),
        None => {}
    }
    Ok(t)
}

/// Whether a struct contains itself (through struct fields): the reflection verifier would
/// recurse without end on it.
fn has_struct_cycle(objects: &[Object]) -> bool {
    // Depth-first, colouring: 0 unvisited, 1 on the stack, 2 done.
    fn visit(objects: &[Object], i: usize, colour: &mut [u8]) -> bool {
        match colour[i] {
            1 => return true,
            2 => return false,
            _ => {}
        }
        colour[i] = 1;
        for &(_, child) in &objects[i].nested {
            if visit(objects, child, colour) {
                return true;
            }
        }
        colour[i] = 2;
        false
    }
    let mut colour = vec![0u8; objects.len()];
    (0..objects.len()).any(|i| visit(objects, i, &mut colour))
}
