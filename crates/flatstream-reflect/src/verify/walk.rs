//! One payload's walk through a [`Verifier`]'s checks, and its reason when it fails.

use super::{Check, FieldCheck, Member, Verifier};
use crate::explain::describe;
use crate::limits::{MAX_DEPTH, MAX_TABLES, budget};
use crate::scalar::ScalarType;
use flatbuffers::InvalidFlatbuffer;
use std::borrow::Cow;

/// Where a fault is, from the root: the steps a reader takes to it.
#[derive(Debug)]
enum Step {
    /// Field `field` of object `object`.
    Field { object: usize, field: usize },
    /// Element `index` of a vector.
    Element(usize),
    /// The member numbered `tag` of union `union`.
    Member { union: usize, tag: u8 },
}

/// Why a payload failed: what, at which byte, and the path to it (innermost step first).
#[derive(Debug)]
struct Why {
    what: String,
    at: Option<usize>,
    path: Vec<Step>,
    /// A required field is missing: its table names it, in `what`, instead of a step.
    missing: bool,
}

/// A failed check, boxed so that a verdict is a word wide.
#[derive(Debug)]
pub(super) struct Rejected(Box<Why>);

impl Rejected {
    #[cold]
    fn new(what: String, at: Option<usize>) -> Self {
        Rejected(Box::new(Why {
            what,
            at,
            path: Vec::new(),
            missing: false,
        }))
    }

    /// A required field missing (named by [`step`](Self::step)).
    #[cold]
    fn missing() -> Self {
        let mut rejected = Rejected::new(String::new(), None);
        rejected.0.missing = true;
        rejected
    }

    #[cold]
    fn step(mut self, plan: &Verifier, step: Step) -> Self {
        if let (true, Step::Field { object, field }) = (self.0.missing, &step) {
            let name = &plan.objects[*object].fields[*field].name;
            self.0.what = format!("the required field `{name}` is missing");
            self.0.missing = false;
            return self;
        }
        self.0.path.push(step);
        self
    }
}

impl From<InvalidFlatbuffer> for Rejected {
    #[cold]
    fn from(e: InvalidFlatbuffer) -> Self {
        let (what, at) = describe(&e);
        Rejected::new(what, at)
    }
}

type Verdict<T = ()> = Result<T, Rejected>;

/// Verifies `payload`; the reason, one clause, if it fails.
pub(super) fn verify(plan: &Verifier, payload: &[u8]) -> Result<(), String> {
    if payload.len() < 4 {
        return Err(format!(
            "its {} bytes are too few for a FlatBuffer (4 at least, the offset of its root \
             table)",
            payload.len()
        ));
    }
    let mut walk = Walk {
        plan,
        spent: 0,
        budget: budget(payload.len()),
        len: payload.len(),
    };
    let mut checker = Checker::new(payload);
    let verdict = checker
        .uoffset(0)
        .and_then(|root| walk.table(&mut checker, plan.root, plan.root, root as usize));
    verdict.map_err(|rejected| explain(plan, *rejected.0))
}

/// The reason as a clause: `field `readings[2].name` at payload byte 40: what`.
#[cold]
fn explain(plan: &Verifier, why: Why) -> String {
    let mut path = String::new();
    for step in why.path.iter().rev() {
        match *step {
            Step::Field { object, field } => {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(&plan.objects[object].fields[field].name);
            }
            Step::Element(index) => path.push_str(&format!("[{index}]")),
            Step::Member { union, tag } => {
                let name = plan.unions[union]
                    .names
                    .get(usize::from(tag))
                    .map_or("", |n| &**n);
                path.push_str(&format!(" (as {name})"));
            }
        }
    }
    match (path.is_empty(), why.at) {
        (false, Some(at)) => format!("field `{path}` at payload byte {at}: {}", why.what),
        (false, None) => format!("field `{path}`: {}", why.what),
        (true, _) => why.what,
    }
}

/// One payload's walk: the checks, and what reading it has cost so far.
struct Walk<'p> {
    plan: &'p Verifier,
    spent: usize,
    budget: usize,
    /// The payload's length (what a copy of it costs).
    len: usize,
}

impl Walk<'_> {
    #[inline]
    fn spend(&mut self, bytes: usize) -> Verdict {
        self.spent = self.spent.saturating_add(bytes);
        if self.spent > self.budget {
            return Err(self.over_budget());
        }
        Ok(())
    }

    #[cold]
    fn over_budget(&self) -> Rejected {
        Rejected::new(
            format!(
                "reading it costs more than its budget of {} bytes (a payload of {} bytes; \
                 each shared reference counts as often as it is followed)",
                self.budget, self.len
            ),
            None,
        )
    }

    /// The table of `object` at `pos`, reached from a table of `from`.
    fn table(&mut self, v: &mut Checker<'_>, from: usize, object: usize, pos: usize) -> Verdict {
        let plan = self.plan;
        let compiled = &plan.objects[object];
        let copy = if plan.copied[object] && !plan.copied[from] {
            self.len
        } else {
            0
        };
        self.spend(compiled.fixed.saturating_add(copy))?;
        let table = v.table(pos)?;
        for (i, field) in compiled.fields.iter().enumerate() {
            self.field(v, table, object, field)
                .map_err(|r| r.step(plan, Step::Field { object, field: i }))?;
        }
        v.depth -= 1;
        Ok(())
    }

    #[inline(always)]
    fn field(
        &mut self,
        v: &mut Checker<'_>,
        table: Table,
        object: usize,
        field: &FieldCheck,
    ) -> Verdict {
        let FieldCheck {
            slot,
            required,
            check,
            ..
        } = *field;
        let Some(at) = v.field(table, slot)? else {
            if required {
                return Err(Rejected::missing());
            }
            return Ok(());
        };
        match check {
            Check::Scalar(s) => v.scalar(at, s),
            _ => self.value(v, table, object, check, slot, at),
        }
        .map_err(|r| r.with_at(at))
    }

    /// The value of a field that is not a scalar, whose offset (or inline struct) is at `at`.
    /// Out of line: the walk over a table's scalars stays small.
    #[inline(never)]
    fn value(
        &mut self,
        v: &mut Checker<'_>,
        table: Table,
        object: usize,
        check: Check,
        slot: u16,
        at: usize,
    ) -> Verdict {
        match check {
            Check::Scalar(s) => v.scalar(at, s)?,
            Check::String => {
                let start = v.follow(at)?;
                self.string(v, start)?;
            }
            Check::ScalarVector(s) => {
                let vector = v.follow(at)?;
                let len = v.uoffset(vector)? as usize;
                let start = vector.saturating_add(4);
                v.aligned(start, s.size(), rust_name(s))?;
                let bytes = len.saturating_mul(s.size());
                v.range(start, bytes)?;
                self.spend(bytes.saturating_add(8))?;
            }
            Check::Struct(child) => {
                self.spend(self.plan.objects[child].size)?;
                self.structure(v, child, at)?;
            }
            Check::Table(child) => {
                let start = v.follow(at)?;
                self.table(v, object, child, start)?;
            }
            Check::StringVector | Check::StructVector(_) | Check::TableVector(_) => {
                let vector = v.follow(at)?;
                let len = v.uoffset(vector)? as usize;
                let start = vector.saturating_add(4);
                let size = match check {
                    Check::StructVector(child) => self.plan.objects[child].size,
                    _ => 4,
                };
                let bytes = len.saturating_mul(size);
                v.range(start, bytes)?;
                self.spend(bytes.saturating_add(8))?;
                for i in 0..len {
                    let element_at = start + i * size;
                    let element = match check {
                        Check::StructVector(child) => self.structure(v, child, element_at),
                        Check::TableVector(child) => v
                            .follow(element_at)
                            .and_then(|t| self.table(v, object, child, t)),
                        _ => v.follow(element_at).and_then(|s| self.string(v, s)),
                    };
                    element.map_err(|r| r.with_at(element_at).step(self.plan, Step::Element(i)))?;
                }
            }
            Check::Union(e) => {
                let value = v.follow(at)?;
                // Checked when the schema was: a union's type is in the slot before it.
                let tag = match v.field(table, slot - 2)? {
                    Some(tag_at) => v.byte(tag_at)?,
                    None => 0,
                };
                let member = self.plan.unions[e].members.get(usize::from(tag));
                let step = Step::Member { union: e, tag };
                let verdict = match member {
                    Some(Member::String) => self.string(v, value),
                    Some(&Member::Struct(child)) => self
                        .spend(self.plan.objects[child].size)
                        .and_then(|()| self.structure(v, child, value)),
                    Some(&Member::Table(child)) => self.table(v, object, child, value),
                    Some(Member::Refused) | None => {
                        let name = &self.plan.unions[e].name;
                        return Err(Rejected::new(
                            format!("{tag} is not a type of the union `{name}`"),
                            None,
                        ));
                    }
                };
                verdict.map_err(|r| r.step(self.plan, step))?;
            }
            Check::Unsupported(base) => {
                return Err(Rejected::new(
                    format!("a field of type {base:?}, which is not read"),
                    None,
                ));
            }
        }
        Ok(())
    }

    /// The string at `at`: its checks, and its cost.
    fn string(&mut self, v: &mut Checker<'_>, at: usize) -> Verdict {
        let len = v.string(at)?;
        self.spend(len.saturating_add(4))
    }

    /// The struct of `object` at `pos` (its cost is counted by the caller: nested structs lie
    /// inside it).
    fn structure(&mut self, v: &mut Checker<'_>, object: usize, pos: usize) -> Verdict {
        let object = &self.plan.objects[object];
        v.range(pos, object.size)?;
        // Nesting is bounded: a schema's structs nest at most `MAX_NESTING` deep.
        for &(offset, child) in &object.nested {
            self.structure(v, child, pos.saturating_add(offset))?;
        }
        Ok(())
    }
}

impl Rejected {
    /// With `at` as the fault's byte, if it has none yet.
    #[cold]
    fn with_at(mut self, at: usize) -> Self {
        self.0.at.get_or_insert(at);
        self
    }
}

/// flatbuffers' default bound on a payload's parts, each counted per reference.
const MAX_APPARENT_SIZE: usize = 1 << 31;

/// The checks of flatbuffers' `Verifier` that the walk makes (offsets, alignment, vtables,
/// strings, its limits on depth, tables and apparent size), in its order and failing with its
/// errors, made here inline: a check that passes is a comparison, and a failure is built
/// only when one fails.
struct Checker<'b> {
    buf: &'b [u8],
    /// Tables open from the root to here, tables met, and the bytes of every part checked.
    depth: usize,
    tables: usize,
    apparent: usize,
}

/// A table being checked: where it is, and its vtable and the vtable's length.
#[derive(Clone, Copy)]
struct Table {
    pos: usize,
    vtable: usize,
    vtable_len: usize,
}

impl<'b> Checker<'b> {
    fn new(buf: &'b [u8]) -> Self {
        Checker {
            buf,
            depth: 0,
            tables: 0,
            apparent: 0,
        }
    }

    /// That `pos` is a multiple of `align`, a `ty`'s alignment.
    #[inline(always)]
    fn aligned(&self, pos: usize, align: usize, ty: &'static str) -> Verdict {
        if pos % align == 0 {
            Ok(())
        } else {
            Err(unaligned(pos, ty))
        }
    }

    /// That `size` bytes at `pos` are in the payload; they count to its apparent size.
    #[inline(always)]
    fn range(&mut self, pos: usize, size: usize) -> Verdict {
        let end = pos.saturating_add(size);
        if end > self.buf.len() {
            return Err(out_of_bounds(pos, end));
        }
        self.apparent = self.apparent.saturating_add(size);
        if self.apparent > MAX_APPARENT_SIZE {
            return Err(fault(InvalidFlatbuffer::ApparentSizeTooLarge));
        }
        Ok(())
    }

    /// That a `ty` of `size` bytes (its alignment too) is at `pos`.
    #[inline(always)]
    fn in_buffer(&mut self, pos: usize, size: usize, ty: &'static str) -> Verdict {
        self.aligned(pos, size, ty)?;
        self.range(pos, size)
    }

    /// The `N` bytes at `pos`, which a check has found in the payload.
    #[inline(always)]
    fn bytes<const N: usize>(&self, pos: usize) -> [u8; N] {
        let mut bytes = [0; N];
        bytes.copy_from_slice(&self.buf[pos..pos + N]);
        bytes
    }

    /// The scalar of type `s` at `pos`.
    #[inline(always)]
    fn scalar(&mut self, pos: usize, s: ScalarType) -> Verdict {
        self.in_buffer(pos, s.size(), rust_name(s))
    }

    /// The byte at `pos`.
    #[inline]
    fn byte(&mut self, pos: usize) -> Verdict<u8> {
        self.in_buffer(pos, 1, "u8")?;
        Ok(self.buf[pos])
    }

    /// The unsigned offset at `pos`.
    #[inline(always)]
    fn uoffset(&mut self, pos: usize) -> Verdict<u32> {
        self.in_buffer(pos, 4, "u32")?;
        Ok(u32::from_le_bytes(self.bytes(pos)))
    }

    /// Where the unsigned offset at `at` points.
    #[inline(always)]
    fn follow(&mut self, at: usize) -> Verdict<usize> {
        let offset = self.uoffset(at)?;
        Ok(at.saturating_add(offset as usize))
    }

    /// The table at `pos`: its vtable (where the signed offset at `pos` points) in the
    /// payload, and the limits on tables and their depth (the caller lowers the depth again).
    #[inline]
    fn table(&mut self, pos: usize) -> Verdict<Table> {
        self.in_buffer(pos, 4, "i32")?;
        let soffset = i32::from_le_bytes(self.bytes(pos));
        // A signed offset is subtracted.
        let vtable = if soffset > 0 {
            pos.checked_sub(soffset.unsigned_abs() as usize)
        } else {
            pos.checked_add(soffset.unsigned_abs() as usize)
        };
        let vtable = match vtable {
            Some(vtable) if vtable < self.buf.len() => vtable,
            _ => return Err(signed_out_of_bounds(soffset, pos)),
        };
        self.in_buffer(vtable, 2, "u16")?;
        let vtable_len = usize::from(u16::from_le_bytes(self.bytes(vtable)));
        self.aligned(vtable.saturating_add(vtable_len), 2, "u16")?;
        self.range(vtable, vtable_len)?;
        self.tables += 1;
        if self.tables > MAX_TABLES {
            return Err(fault(InvalidFlatbuffer::TooManyTables));
        }
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(fault(InvalidFlatbuffer::DepthLimitReached));
        }
        Ok(Table {
            pos,
            vtable,
            vtable_len,
        })
    }

    /// Where the field in vtable slot `slot` of `table` is, if present.
    #[inline(always)]
    fn field(&mut self, table: Table, slot: u16) -> Verdict<Option<usize>> {
        let slot = usize::from(slot);
        if slot < table.vtable_len {
            let entry = table.vtable.saturating_add(slot);
            self.in_buffer(entry, 2, "u16")?;
            let offset = u16::from_le_bytes(self.bytes(entry));
            if offset > 0 {
                return Ok(Some(table.pos.saturating_add(usize::from(offset))));
            }
        }
        Ok(None)
    }

    /// The string at `pos`: its length in the payload, UTF-8, and a zero after it. Returns
    /// its length.
    fn string(&mut self, pos: usize) -> Verdict<usize> {
        let len = self.uoffset(pos)? as usize;
        let start = pos.saturating_add(4);
        let end = start.saturating_add(len);
        self.range(start, len)?;
        let text = &self.buf[start..end];
        if let Err(error) = std::str::from_utf8(text) {
            return Err(fault(InvalidFlatbuffer::Utf8Error {
                error,
                range: start..end,
                error_trace: Default::default(),
            }));
        }
        if self.buf.get(end) != Some(&0) {
            return Err(fault(InvalidFlatbuffer::MissingNullTerminator {
                range: start..end,
                error_trace: Default::default(),
            }));
        }
        Ok(len)
    }
}

/// The Rust name of a scalar type, as flatbuffers' verifier names it in its errors.
fn rust_name(s: ScalarType) -> &'static str {
    match s {
        ScalarType::Bool => "bool",
        ScalarType::I8 => "i8",
        ScalarType::U8 => "u8",
        ScalarType::I16 => "i16",
        ScalarType::U16 => "u16",
        ScalarType::I32 => "i32",
        ScalarType::U32 => "u32",
        ScalarType::I64 => "i64",
        ScalarType::U64 => "u64",
        ScalarType::F32 => "f32",
        ScalarType::F64 => "f64",
    }
}

/// A fault as flatbuffers' verifier reports it, in our words.
#[cold]
fn fault(e: InvalidFlatbuffer) -> Rejected {
    Rejected::from(e)
}

#[cold]
fn unaligned(position: usize, ty: &'static str) -> Rejected {
    fault(InvalidFlatbuffer::Unaligned {
        position,
        unaligned_type: Cow::Borrowed(ty),
        error_trace: Default::default(),
    })
}

#[cold]
fn out_of_bounds(start: usize, end: usize) -> Rejected {
    fault(InvalidFlatbuffer::RangeOutOfBounds {
        range: start..end,
        error_trace: Default::default(),
    })
}

#[cold]
fn signed_out_of_bounds(soffset: i32, position: usize) -> Rejected {
    fault(InvalidFlatbuffer::SignedOffsetOutOfBounds {
        soffset,
        position,
        error_trace: Default::default(),
    })
}
