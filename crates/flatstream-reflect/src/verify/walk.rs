//! One payload's walk through a [`Verifier`]'s checks, and its reason when it fails.

use super::{Check, FieldCheck, Member, Verifier};
use crate::explain::describe;
use crate::limits::budget;
use flatbuffers::{
    ForwardsUOffset, InvalidFlatbuffer, SimpleToVerifyInSlice, TableVerifier, UOffsetT, Vector,
    Verifiable, Verifier as Checker,
};

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
    let mut checker = Checker::new(&plan.options, payload);
    let verdict = checker
        .get_uoffset(0)
        .map_err(Rejected::from)
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
    fn table(
        &mut self,
        v: &mut Checker<'_, '_>,
        from: usize,
        object: usize,
        pos: usize,
    ) -> Verdict {
        let plan = self.plan;
        let compiled = &plan.objects[object];
        let copy = if plan.copied[object] && !plan.copied[from] {
            self.len
        } else {
            0
        };
        self.spend(compiled.fixed.saturating_add(copy))?;
        let mut table = v.visit_table(pos)?;
        for (i, field) in compiled.fields.iter().enumerate() {
            table = self
                .field(table, object, field)
                .map_err(|r| r.step(plan, Step::Field { object, field: i }))?;
        }
        table.finish();
        Ok(())
    }

    fn field<'a, 'o, 'b>(
        &mut self,
        mut table: TableVerifier<'a, 'o, 'b>,
        object: usize,
        field: &FieldCheck,
    ) -> Verdict<TableVerifier<'a, 'o, 'b>> {
        let FieldCheck {
            slot,
            required,
            check,
            ..
        } = *field;
        if let Check::Scalar(s) = check {
            return scalar(table, slot, required, s);
        }
        let Some(at) = table.deref(slot)? else {
            if required {
                return Err(Rejected::missing());
            }
            return Ok(table);
        };
        self.value(&mut table, object, check, slot, at)
            .map_err(|r| r.with_at(at))?;
        Ok(table)
    }

    /// The value of a field that is not a scalar, whose offset (or inline struct) is at `at`.
    fn value(
        &mut self,
        table: &mut TableVerifier<'_, '_, '_>,
        object: usize,
        check: Check,
        slot: u16,
        at: usize,
    ) -> Verdict {
        let v = table.verifier();
        match check {
            Check::Scalar(_) => {}
            Check::String => {
                let start = follow(v, at)?;
                self.string(v, start)?;
            }
            Check::ScalarVector(s) => {
                scalar_vector(v, s, at)?;
                let start = follow(v, at)?;
                let len = v.get_uoffset(start)? as usize;
                self.spend(len.saturating_mul(s.size()).saturating_add(8))?;
            }
            Check::Struct(child) => {
                self.spend(self.plan.objects[child].size)?;
                self.structure(v, child, at)?;
            }
            Check::Table(child) => {
                let start = follow(v, at)?;
                self.table(v, object, child, start)?;
            }
            Check::StringVector | Check::StructVector(_) | Check::TableVector(_) => {
                let vector = follow(v, at)?;
                v.is_aligned::<UOffsetT>(vector)?;
                let len = v.get_uoffset(vector)? as usize;
                let start = vector.saturating_add(4);
                let size = match check {
                    Check::StructVector(child) => self.plan.objects[child].size,
                    _ => 4,
                };
                let bytes = len.saturating_mul(size);
                v.range_in_buffer(start, bytes)?;
                self.spend(bytes.saturating_add(8))?;
                for i in 0..len {
                    let element_at = start + i * size;
                    let element = match check {
                        Check::StructVector(child) => self.structure(v, child, element_at),
                        Check::TableVector(child) => {
                            follow(v, element_at).and_then(|t| self.table(v, object, child, t))
                        }
                        _ => follow(v, element_at).and_then(|s| self.string(v, s)),
                    };
                    element.map_err(|r| r.with_at(element_at).step(self.plan, Step::Element(i)))?;
                }
            }
            Check::Union(e) => {
                let value = follow(v, at)?;
                // Checked when the schema was: a union's type is in the slot before it.
                let tag = match table.deref(slot - 2)? {
                    Some(tag_at) => table.verifier().get_u8(tag_at)?,
                    None => 0,
                };
                let v = table.verifier();
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
    fn string(&mut self, v: &mut Checker<'_, '_>, at: usize) -> Verdict {
        <&str>::run_verifier(v, at)?;
        let len = v.get_uoffset(at)? as usize;
        self.spend(len.saturating_add(4))
    }

    /// The struct of `object` at `pos` (its cost is counted by the caller: nested structs lie
    /// inside it).
    fn structure(&mut self, v: &mut Checker<'_, '_>, object: usize, pos: usize) -> Verdict {
        let object = &self.plan.objects[object];
        v.range_in_buffer(pos, object.size)?;
        // Nesting is bounded: a schema's structs nest at most `MAX_NESTING` deep.
        for &(offset, child) in &object.nested {
            self.structure(v, child, pos.saturating_add(offset))?;
        }
        Ok(())
    }
}

/// Where the offset at `at` points (checked in the buffer and aligned).
#[inline]
fn follow(v: &mut Checker<'_, '_>, at: usize) -> Verdict<usize> {
    let offset = v.get_uoffset(at)?;
    Ok(at.saturating_add(offset as usize))
}

/// Visits the field in `slot` as a scalar of type `s`.
fn scalar<'a, 'o, 'b>(
    t: TableVerifier<'a, 'o, 'b>,
    slot: u16,
    required: bool,
    s: crate::ScalarType,
) -> Verdict<TableVerifier<'a, 'o, 'b>> {
    use crate::ScalarType as S;
    match s {
        S::Bool => visit::<bool>(t, slot, required),
        S::I8 => visit::<i8>(t, slot, required),
        S::U8 => visit::<u8>(t, slot, required),
        S::I16 => visit::<i16>(t, slot, required),
        S::U16 => visit::<u16>(t, slot, required),
        S::I32 => visit::<i32>(t, slot, required),
        S::U32 => visit::<u32>(t, slot, required),
        S::I64 => visit::<i64>(t, slot, required),
        S::U64 => visit::<u64>(t, slot, required),
        S::F32 => visit::<f32>(t, slot, required),
        S::F64 => visit::<f64>(t, slot, required),
    }
}

/// Verifies the vector of scalars of type `s` whose offset is at `at`.
fn scalar_vector(v: &mut Checker<'_, '_>, s: crate::ScalarType, at: usize) -> Verdict {
    use crate::ScalarType as S;
    fn run<T: Verifiable + SimpleToVerifyInSlice>(v: &mut Checker<'_, '_>, at: usize) -> Verdict {
        Ok(ForwardsUOffset::<Vector<'_, T>>::run_verifier(v, at)?)
    }
    match s {
        S::Bool => run::<bool>(v, at),
        S::I8 => run::<i8>(v, at),
        S::U8 => run::<u8>(v, at),
        S::I16 => run::<i16>(v, at),
        S::U16 => run::<u16>(v, at),
        S::I32 => run::<i32>(v, at),
        S::U32 => run::<u32>(v, at),
        S::I64 => run::<i64>(v, at),
        S::U64 => run::<u64>(v, at),
        S::F32 => run::<f32>(v, at),
        S::F64 => run::<f64>(v, at),
    }
}

/// Visits the field in `slot` as a `T`: the checks of `visit_field::<T>` (`T::run_verifier`
/// is `in_buffer::<T>`) without its error trace, which cost more than the checks themselves
/// for a table of scalars.
#[inline]
fn visit<'a, 'o, 'b, T: Verifiable>(
    mut t: TableVerifier<'a, 'o, 'b>,
    slot: u16,
    required: bool,
) -> Verdict<TableVerifier<'a, 'o, 'b>> {
    match t.deref(slot)? {
        Some(pos) => t
            .verifier()
            .in_buffer::<T>(pos)
            .map_err(|e| Rejected::from(e).with_at(pos))?,
        None if required => return Err(Rejected::missing()),
        None => {}
    }
    Ok(t)
}

impl Rejected {
    /// With `at` as the fault's byte, if it has none yet.
    #[cold]
    fn with_at(mut self, at: usize) -> Self {
        self.0.at.get_or_insert(at);
        self
    }
}
