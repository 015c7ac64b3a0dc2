//! A message's time read from a field of its payload: the field's path compiled once against
//! the schema, then read from each verified payload.

use crate::error::{Error, Result};
use flatstream_reflect::ScalarType;
use flatstream_reflect::read::{self, ReadResult};
use flatstream_reflect::reflection::{BaseType, Object, Schema};

/// What a time field's integer counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TimeUnit {
    /// Nanoseconds (MCAP's own unit).
    #[default]
    Nanoseconds,
    /// Microseconds.
    Microseconds,
    /// Milliseconds.
    Milliseconds,
    /// Seconds.
    Seconds,
}

impl TimeUnit {
    fn nanoseconds(self) -> u64 {
        match self {
            TimeUnit::Nanoseconds => 1,
            TimeUnit::Microseconds => 1_000,
            TimeUnit::Milliseconds => 1_000_000,
            TimeUnit::Seconds => 1_000_000_000,
        }
    }
}

/// What a step of the path lands on.
#[derive(Debug, Clone, Copy)]
enum Target {
    /// A table, through the offset in the field.
    Table,
    /// A struct, inline where the field is.
    Struct,
    /// The time as an integer of this type (and its default when the field is absent).
    Integer(ScalarType, i64),
    /// The time as a struct of `sec` and `nsec` (byte offsets and types in the struct).
    SecNsec {
        sec: (usize, ScalarType),
        nsec: (usize, ScalarType),
    },
}

/// One step of the path: a field of a table (`at` is its vtable slot) or of a struct (`at` is
/// its byte offset): the field's `offset` in the schema either way.
#[derive(Debug, Clone, Copy)]
struct Step {
    in_table: bool,
    at: u16,
    target: Target,
}

/// A compiled time field: `steps` from the root table to the time.
#[derive(Debug, Clone)]
pub(crate) struct TimeField {
    path: String,
    steps: Vec<Step>,
    unit: u64,
}

impl TimeField {
    /// Compiles `path` (field names joined by `.`, from the root table `root`) against
    /// `schema`. The last field is an integer (counting `unit`s) or a struct of two integers
    /// `sec` and `nsec` (as Foxglove's `Time`); the ones before it, tables or structs.
    pub(crate) fn new(
        schema: &Schema<'_>,
        root: usize,
        path: &str,
        unit: TimeUnit,
    ) -> Result<TimeField> {
        let bad = |reason: String| Error::TimeField {
            field: path.to_owned(),
            reason,
        };
        let objects = schema.objects();
        let mut object: Object<'_> = objects.get(root);
        let names: Vec<&str> = path.split('.').collect();
        let mut steps = Vec::with_capacity(names.len());
        for (i, &name) in names.iter().enumerate() {
            let last = i + 1 == names.len();
            let field = object
                .fields()
                .iter()
                .find(|f| f.name() == name)
                .ok_or_else(|| bad(format!("`{}` has no field `{name}`", object.name())))?;
            let ty = field.type_();
            let child = (ty.base_type() == BaseType::Obj)
                .then(|| usize::try_from(ty.index()).ok())
                .flatten()
                .filter(|&c| c < objects.len())
                .map(|c| objects.get(c));
            let target = match (ScalarType::integer(ty.base_type()), child) {
                (Some(int), _) if last => Target::Integer(int, field.default_integer()),
                (_, Some(child)) if last && child.is_struct() => {
                    sec_nsec(&child).ok_or_else(|| {
                        bad(format!(
                            "`{name}` is the struct `{}`, not one of two integers `sec` and `nsec`",
                            child.name()
                        ))
                    })?
                }
                (_, Some(child)) if !last => {
                    let target = if child.is_struct() {
                        Target::Struct
                    } else {
                        Target::Table
                    };
                    object = child;
                    target
                }
                _ if last => {
                    return Err(bad(format!(
                        "`{name}` is not an integer or a struct of `sec` and `nsec`"
                    )));
                }
                _ => return Err(bad(format!("`{name}` is not a table or a struct"))),
            };
            steps.push(Step {
                in_table: !object_is_struct_before(&steps, i),
                at: field.offset(),
                target,
            });
        }
        Ok(TimeField {
            path: path.to_owned(),
            steps,
            unit: unit.nanoseconds(),
        })
    }

    /// The time of `payload` (verified against the schema), in nanoseconds.
    pub(crate) fn read(&self, payload: &[u8]) -> Result<u64> {
        let fault = |reason: String| Error::Time {
            field: self.path.clone(),
            reason,
        };
        let value = self
            .value(payload)
            .map_err(|e| fault(format!("cannot be read: {e}")))?;
        let Some((value, unit)) = value else {
            return Err(fault(
                "is absent (a table on its path is missing)".to_owned(),
            ));
        };
        u64::try_from(value)
            .ok()
            .and_then(|v| v.checked_mul(unit))
            .ok_or_else(|| {
                fault(format!(
                    "holds {value}, which is not a time from 0 to 2^64 - 1 nanoseconds"
                ))
            })
    }

    /// The integer the path ends on and the nanoseconds of its unit (`sec`/`nsec` in
    /// nanoseconds), or `None` when a table on the way is absent.
    fn value(&self, buf: &[u8]) -> ReadResult<Option<(i128, u64)>> {
        // Where the current table or struct starts.
        let mut at = read::root(buf)?;
        for step in &self.steps {
            let pos = if step.in_table {
                match read::field(buf, at, read::vtable(buf, at)?, step.at)? {
                    Some(pos) => pos,
                    None => {
                        return Ok(match step.target {
                            Target::Integer(_, default) => Some((i128::from(default), self.unit)),
                            _ => None,
                        });
                    }
                }
            } else {
                at.saturating_add(usize::from(step.at))
            };
            match step.target {
                Target::Table => at = read::follow(buf, pos)?,
                Target::Struct => at = pos,
                Target::Integer(ty, _) => return Ok(Some((ty.read_integer(buf, pos)?, self.unit))),
                Target::SecNsec { sec, nsec } => {
                    let s = sec.1.read_integer(buf, pos.saturating_add(sec.0))?;
                    let n = nsec.1.read_integer(buf, pos.saturating_add(nsec.0))?;
                    return Ok(Some((s.saturating_mul(1_000_000_000).saturating_add(n), 1)));
                }
            }
        }
        Ok(None)
    }
}

/// Whether the object step `i` reads a field of is a struct: the step before it went into one.
fn object_is_struct_before(steps: &[Step], i: usize) -> bool {
    i > 0 && matches!(steps[i - 1].target, Target::Struct)
}

/// The `sec` and `nsec` integer fields of `object`, if it has both.
fn sec_nsec(object: &Object<'_>) -> Option<Target> {
    let find = |name: &str| {
        let field = object.fields().iter().find(|f| f.name() == name)?;
        let ty = ScalarType::integer(field.type_().base_type())?;
        Some((usize::from(field.offset()), ty))
    };
    Some(Target::SecNsec {
        sec: find("sec")?,
        nsec: find("nsec")?,
    })
}
