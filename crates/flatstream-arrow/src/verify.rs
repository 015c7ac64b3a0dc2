//! Verification of a payload against the schema, as `flatstream verify --schema` does it:
//! `flatbuffers-reflection`'s verifier, after a walk that catches what would make it panic.

use crate::read::{self, Le};
use flatbuffers::VerifierOptions;
use flatbuffers_reflection::reflection::{self, BaseType};

/// Nesting deeper than this is left to the verifier (whose default limit it is).
const MAX_DEPTH: usize = 64;

/// Verifies payloads of one root table.
#[derive(Debug)]
pub(crate) struct FrameVerifier {
    root: usize,
    /// Per object: whether a union field can be reached from it.
    reaches_union: Vec<bool>,
    options: VerifierOptions,
}

impl FrameVerifier {
    pub(crate) fn new(schema: &reflection::Schema<'_>, root: usize) -> Self {
        FrameVerifier {
            root,
            reaches_union: reaches_union(schema),
            options: VerifierOptions::default(),
        }
    }

    /// Whether `payload` is a valid FlatBuffer of the root table; the reason if not.
    pub(crate) fn verify(
        &self,
        schema: &reflection::Schema<'_>,
        payload: &[u8],
    ) -> Result<(), String> {
        // The reflection verifier indexes a union's members with the type it reads from the
        // buffer, and panics on one past the last: such a type is found first.
        if self.reaches_union[self.root] {
            if let Ok(root) = read::follow(payload, 0) {
                let mut budget = self.options_max_tables();
                unions(
                    schema,
                    &self.reaches_union,
                    payload,
                    self.root,
                    root,
                    0,
                    &mut budget,
                )?;
            }
        }
        // Any other panic of the verifier is caught too (and reported as invalid).
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            flatstream_reflect::verify(schema, payload, &self.options)
        }));
        match outcome {
            Ok(result) => result.map_err(|e| e.to_string()),
            Err(_) => Err("the reflection verifier failed on it".to_owned()),
        }
    }

    fn options_max_tables(&self) -> usize {
        // flatbuffers' default `max_tables`.
        1_000_000
    }
}

/// For each object: whether a union field can be reached from it through tables.
fn reaches_union(schema: &reflection::Schema<'_>) -> Vec<bool> {
    let objects = schema.objects();
    let mut reach = vec![false; objects.len()];
    loop {
        let mut changed = false;
        for (i, object) in objects.iter().enumerate() {
            if reach[i] || object.is_struct() {
                continue;
            }
            let hit = object.fields().iter().any(|f| {
                let ty = f.type_();
                match ty.base_type() {
                    BaseType::Union => true,
                    BaseType::Vector if ty.element() == BaseType::Union => true,
                    BaseType::Obj => table_index(schema, ty.index()).is_some_and(|c| reach[c]),
                    BaseType::Vector if ty.element() == BaseType::Obj => {
                        table_index(schema, ty.index()).is_some_and(|c| reach[c])
                    }
                    _ => false,
                }
            });
            if hit {
                reach[i] = true;
                changed = true;
            }
        }
        if !changed {
            return reach;
        }
    }
}

fn table_index(schema: &reflection::Schema<'_>, index: i32) -> Option<usize> {
    let index = usize::try_from(index).ok()?;
    (index < schema.objects().len() && !schema.objects().get(index).is_struct()).then_some(index)
}

/// Checks that every union type in the table at `loc` (of object `object`) and below names a
/// member. A read that fails stops the walk quietly: the verifier reports it.
fn unions(
    schema: &reflection::Schema<'_>,
    reach: &[bool],
    buf: &[u8],
    object: usize,
    loc: usize,
    depth: usize,
    budget: &mut usize,
) -> Result<(), String> {
    if depth > MAX_DEPTH || *budget == 0 {
        return Ok(());
    }
    *budget -= 1;
    let Ok(vtable) = read::vtable(buf, loc) else {
        return Ok(());
    };
    let child = |slot: u16| -> Option<usize> {
        let at = read::field(buf, loc, vtable, slot).ok()??;
        read::follow(buf, at).ok()
    };
    for field in schema.objects().get(object).fields() {
        let ty = field.type_();
        match ty.base_type() {
            BaseType::Union => {
                let Ok(e) = usize::try_from(ty.index()) else {
                    continue;
                };
                let e = schema.enums().get(e);
                let Some(tag_slot) = field.offset().checked_sub(2) else {
                    continue;
                };
                let tag = match read::field(buf, loc, vtable, tag_slot) {
                    Ok(Some(at)) => u8::read(buf, at).unwrap_or(0),
                    _ => continue,
                };
                let values = e.values();
                if usize::from(tag) >= values.len() {
                    return Err(format!(
                        "field `{}_type` at payload byte {loc}: {tag} is not a type of the union \
                         `{}`",
                        field.name(),
                        e.name()
                    ));
                }
                let member = values.get(usize::from(tag)).union_type();
                let member = member
                    .filter(|t| t.base_type() == BaseType::Obj)
                    .and_then(|t| table_index(schema, t.index()))
                    .filter(|&m| reach[m]);
                if let (Some(m), Some(at)) = (member, child(field.offset())) {
                    unions(schema, reach, buf, m, at, depth + 1, budget)?;
                }
            }
            BaseType::Obj => {
                let Some(c) = table_index(schema, ty.index()).filter(|&c| reach[c]) else {
                    continue;
                };
                if let Some(at) = child(field.offset()) {
                    unions(schema, reach, buf, c, at, depth + 1, budget)?;
                }
            }
            BaseType::Vector if ty.element() == BaseType::Obj => {
                let Some(c) = table_index(schema, ty.index()).filter(|&c| reach[c]) else {
                    continue;
                };
                let Ok(Some(pos)) = read::field(buf, loc, vtable, field.offset()) else {
                    continue;
                };
                let Ok((start, len)) = read::vector(buf, pos, 4) else {
                    continue;
                };
                for i in 0..len {
                    if let Ok(at) = read::follow(buf, start + 4 * i) {
                        unions(schema, reach, buf, c, at, depth + 1, budget)?;
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}
