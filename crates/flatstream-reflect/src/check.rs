//! What a binary schema must be before anything walks it: its layouts consistent, and its
//! types nesting to a bounded depth, without a struct that contains itself.
//!
//! FlatBuffers verification of the schema file proves only that its bytes are a FlatBuffer of
//! `reflection.fbs`. A hostile or damaged schema can still declare a struct of size 1 holding
//! arrays of 65 535 × 65 535 elements, a struct that contains itself, a union without its type
//! field, or a chain of 100 000 tables, each of which would send a reader past the payload,
//! into a loop, or into a stack overflow. [`check`](crate::check) refuses those, with the walk
//! of the type graph here iterative, so that the check itself is bounded.

use crate::error::{Error, Result};
use crate::scalar::ScalarType;
use flatbuffers_reflection::reflection::{self, BaseType, Type};

/// How deep types may nest in a schema: a table in a table (or in a vector or union of one),
/// a struct in a struct, counted from the outermost object, at most this many objects. A
/// table that is reachable from itself (`parent: Robot` in `Robot`) counts once. It is also
/// flatbuffers' default limit on how deep a payload's tables nest (`VerifierOptions`).
pub const MAX_NESTING: usize = 64;

fn invalid(reason: String) -> Error {
    Error::InvalidSchema { reason }
}

/// The object a field's type names (an `Obj`, or a vector's or array's `Obj` element).
fn object_of(ty: Type<'_>) -> Option<usize> {
    let names_object = ty.base_type() == BaseType::Obj
        || (matches!(ty.base_type(), BaseType::Vector | BaseType::Array)
            && ty.element() == BaseType::Obj);
    names_object
        .then(|| usize::try_from(ty.index()).ok())
        .flatten()
}

/// The enum of a union field (a union, or a vector of unions).
fn union_of(ty: Type<'_>) -> Option<usize> {
    let is_union = ty.base_type() == BaseType::Union
        || (ty.base_type() == BaseType::Vector && ty.element() == BaseType::Union);
    is_union.then(|| usize::try_from(ty.index()).ok()).flatten()
}

/// The layouts: struct sizes and field offsets, table slots, union type fields, root type.
/// Type indices are checked already.
pub(crate) fn layouts(schema: &reflection::Schema<'_>) -> Result<()> {
    let objects = schema.objects();
    let size_of = |i: usize| usize::try_from(objects.get(i).bytesize()).unwrap_or(0);
    for object in objects {
        let name = object.name();
        if object.is_struct() {
            let size = usize::try_from(object.bytesize())
                .ok()
                .filter(|&s| s > 0)
                .ok_or_else(|| invalid(format!("struct {name} has no size")))?;
            for field in object.fields() {
                let ty = field.type_();
                let what = || format!("field {name}.{}", field.name());
                let field_size = match ty.base_type() {
                    base if ScalarType::of(base).is_some() => {
                        ScalarType::of(base).map_or(0, ScalarType::size)
                    }
                    BaseType::Obj | BaseType::Array => {
                        let element = if ty.base_type() == BaseType::Obj {
                            BaseType::Obj
                        } else {
                            ty.element()
                        };
                        let one = match element {
                            BaseType::Obj => {
                                let child = object_of(ty).unwrap_or(usize::MAX);
                                if child >= objects.len() || !objects.get(child).is_struct() {
                                    return Err(invalid(format!(
                                        "{} is in a struct and is not a struct",
                                        what()
                                    )));
                                }
                                size_of(child)
                            }
                            e => ScalarType::of(e).map(ScalarType::size).ok_or_else(|| {
                                invalid(format!("{} is an array of {e:?}", what()))
                            })?,
                        };
                        let count = if ty.base_type() == BaseType::Array {
                            usize::from(ty.fixed_length())
                        } else {
                            1
                        };
                        if count == 0 {
                            return Err(invalid(format!("{} is an array of no elements", what())));
                        }
                        one.saturating_mul(count)
                    }
                    other => {
                        return Err(invalid(format!(
                            "{} has type {other:?}, which a struct cannot hold",
                            what()
                        )));
                    }
                };
                let end = usize::from(field.offset()).saturating_add(field_size);
                if end > size {
                    return Err(invalid(format!(
                        "{} ends at byte {end} of struct {name}, whose size is {size}",
                        what()
                    )));
                }
            }
            continue;
        }
        let fields = object.fields();
        // The slots of union type fields, for each union to find its own in.
        let mut tags: Vec<u16> = fields
            .iter()
            .filter(|f| f.type_().base_type() == BaseType::UType)
            .map(|f| f.offset())
            .collect();
        tags.sort_unstable();
        for field in fields {
            let ty = field.type_();
            let what = || format!("field {name}.{}", field.name());
            let slot = field.offset();
            if slot < 4 || slot % 2 != 0 {
                return Err(invalid(format!(
                    "{} has vtable slot {slot} (an even number from 4)",
                    what()
                )));
            }
            match ty.base_type() {
                BaseType::Array => {
                    return Err(invalid(format!("{} is an array outside a struct", what())));
                }
                BaseType::None => return Err(invalid(format!("{} has no type", what()))),
                BaseType::Vector
                    if matches!(
                        ty.element(),
                        BaseType::Vector | BaseType::Array | BaseType::None | BaseType::Vector64
                    ) =>
                {
                    return Err(invalid(format!(
                        "{} is a vector of {:?}",
                        what(),
                        ty.element()
                    )));
                }
                BaseType::Union if tags.binary_search(&(slot - 2)).is_err() => {
                    return Err(invalid(format!(
                        "union {} has no type field in the slot before it",
                        what()
                    )));
                }
                _ => {}
            }
        }
    }
    for e in schema.enums() {
        let underlying = e.underlying_type().base_type();
        if ScalarType::integer(underlying).is_none() {
            return Err(invalid(format!(
                "enum {} has type {underlying:?}, not an integer",
                e.name()
            )));
        }
        if e.is_union() {
            for value in e.values() {
                let ok = match value.union_type().map(|t| t.base_type()) {
                    None | Some(BaseType::None) => value.value() == 0,
                    Some(BaseType::Obj | BaseType::String) => (0..=255).contains(&value.value()),
                    _ => false,
                };
                if !ok {
                    return Err(invalid(format!(
                        "union {} member {} is neither NONE (0), a table, a struct nor a string \
                         numbered 1 to 255",
                        e.name(),
                        value.name()
                    )));
                }
            }
        }
    }
    if let Some(root) = schema.root_table() {
        if root.is_struct() {
            return Err(invalid(format!(
                "its root_type {} is a struct, not a table",
                root.name()
            )));
        }
    }
    Ok(())
}

/// The objects each object holds or points to: a struct its struct fields and arrays of
/// structs, a table its tables, structs, vectors of them, and its unions' members.
fn children(schema: &reflection::Schema<'_>) -> Vec<Vec<usize>> {
    let objects = schema.objects();
    let enums = schema.enums();
    objects
        .iter()
        .map(|object| {
            let mut out = Vec::new();
            for field in object.fields() {
                let ty = field.type_();
                if let Some(child) = object_of(ty).filter(|&c| c < objects.len()) {
                    out.push(child);
                }
                if let Some(e) = union_of(ty).filter(|&e| e < enums.len()) {
                    for value in enums.get(e).values() {
                        if let Some(m) = value
                            .union_type()
                            .filter(|t| t.base_type() == BaseType::Obj)
                            .and_then(|t| usize::try_from(t.index()).ok())
                            .filter(|&m| m < objects.len())
                        {
                            out.push(m);
                        }
                    }
                }
            }
            out.sort_unstable();
            out.dedup();
            out
        })
        .collect()
}

/// The strongly connected components of a graph (Tarjan's algorithm, with an explicit stack):
/// for each node, the number of its component. Components are numbered in reverse
/// topological order: a node's children are in components numbered no higher than its own.
fn components(children: &[Vec<usize>]) -> Vec<usize> {
    const UNSEEN: usize = usize::MAX;
    let n = children.len();
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut component = vec![UNSEEN; n];
    let mut stack = Vec::new();
    let (mut next, mut count) = (0, 0);
    for start in 0..n {
        if index[start] != UNSEEN {
            continue;
        }
        // (node, how many of its children were looked at)
        let mut calls = vec![(start, 0usize)];
        index[start] = next;
        low[start] = next;
        next += 1;
        stack.push(start);
        on_stack[start] = true;
        while let Some(&(node, i)) = calls.last() {
            if let Some(&child) = children[node].get(i) {
                if let Some(top) = calls.last_mut() {
                    top.1 += 1;
                }
                if index[child] == UNSEEN {
                    index[child] = next;
                    low[child] = next;
                    next += 1;
                    stack.push(child);
                    on_stack[child] = true;
                    calls.push((child, 0));
                } else if on_stack[child] {
                    low[node] = low[node].min(index[child]);
                }
                continue;
            }
            calls.pop();
            if let Some(&(parent, _)) = calls.last() {
                low[parent] = low[parent].min(low[node]);
            }
            if low[node] == index[node] {
                while let Some(member) = stack.pop() {
                    on_stack[member] = false;
                    component[member] = count;
                    if member == node {
                        break;
                    }
                }
                count += 1;
            }
        }
    }
    component
}

/// Per object: whether it is in a cycle of the type graph (reachable from itself).
fn cycles(children: &[Vec<usize>]) -> (Vec<usize>, Vec<bool>) {
    let component = components(children);
    let mut size = vec![0usize; children.len()];
    for &c in &component {
        size[c] += 1;
    }
    let cyclic = (0..children.len())
        .map(|i| size[component[i]] > 1 || children[i].contains(&i))
        .collect();
    (component, cyclic)
}

/// Checks the type graph: no struct contains itself, and types nest within [`MAX_NESTING`].
pub(crate) fn nesting(schema: &reflection::Schema<'_>) -> Result<()> {
    let objects = schema.objects();
    let children = children(schema);
    let (component, cyclic) = cycles(&children);
    for (i, &cycle) in cyclic.iter().enumerate() {
        if cycle && objects.get(i).is_struct() {
            return Err(invalid(format!(
                "struct {} contains itself",
                objects.get(i).name()
            )));
        }
    }
    // The depth of each component: 1 + the deepest of the components it points to. Tarjan
    // numbers a component after every component it reaches, so one pass in that order works.
    let count = component.iter().copied().max().map_or(0, |c| c + 1);
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); count];
    for (i, &c) in component.iter().enumerate() {
        members[c].push(i);
    }
    let mut depth = vec![0usize; count];
    for c in 0..count {
        let below = members[c]
            .iter()
            .flat_map(|&i| &children[i])
            .map(|&child| component[child])
            .filter(|&d| d != c)
            .map(|d| depth[d])
            .max()
            .unwrap_or(0);
        depth[c] = below + 1;
        if depth[c] > MAX_NESTING {
            let name = objects.get(members[c][0]).name();
            return Err(invalid(format!(
                "its types nest deeper than {MAX_NESTING} levels (from {name})"
            )));
        }
    }
    Ok(())
}

/// For each object of a schema: whether it is a table reachable from itself (through table
/// fields, vectors of tables and union members), which a reader cannot unfold into a type of
/// fixed depth.
pub fn recursive_tables(schema: &reflection::Schema<'_>) -> Vec<bool> {
    let objects = schema.objects();
    let (_, cyclic) = cycles(&children(schema));
    cyclic
        .into_iter()
        .enumerate()
        .map(|(i, c)| c && !objects.get(i).is_struct())
        .collect()
}

/// How many types the type of table `root` holds, unfolded: the table, each of its fields,
/// and, inside a field that is a struct, a table, a vector or a union, the types it holds in
/// turn, a table reachable from itself counted as one (a reader cannot unfold it). What a
/// reader that gives each type a node of its own (an Arrow schema) makes of the schema: a
/// DAG of 40 tables each holding the next twice unfolds to 2^40. Saturates at `usize::MAX`.
pub fn unfolded_size(schema: &reflection::Schema<'_>, root: usize) -> usize {
    let recursive = recursive_tables(schema);
    let mut memo = vec![None; schema.objects().len()];
    unfold(schema, &recursive, &mut memo, root)
}

/// [`unfolded_size`] of object `i`. Recursion is bounded: types nest at most
/// [`MAX_NESTING`] deep in a checked schema, and tables reachable from themselves stop it.
fn unfold(
    schema: &reflection::Schema<'_>,
    recursive: &[bool],
    memo: &mut [Option<usize>],
    i: usize,
) -> usize {
    if let Some(Some(size)) = memo.get(i) {
        return *size;
    }
    let objects = schema.objects();
    if i >= objects.len() || recursive[i] {
        return 1;
    }
    let mut size = 1usize;
    for field in objects.get(i).fields() {
        let ty = field.type_();
        let mut field_size = 1usize;
        if let Some(child) = object_of(ty).filter(|&c| c < objects.len()) {
            field_size = field_size.saturating_add(unfold(schema, recursive, memo, child));
        }
        if let Some(e) = union_of(ty).filter(|&e| e < schema.enums().len()) {
            for value in schema.enums().get(e).values() {
                let member = value
                    .union_type()
                    .filter(|t| t.base_type() == BaseType::Obj)
                    .and_then(|t| usize::try_from(t.index()).ok());
                field_size = field_size.saturating_add(match member {
                    Some(m) => unfold(schema, recursive, memo, m),
                    None => 1,
                });
            }
        }
        size = size.saturating_add(field_size);
    }
    memo[i] = Some(size);
    size
}

#[cfg(test)]
mod tests {
    use super::components;

    #[test]
    fn components_of_a_chain_a_cycle_and_a_self_loop() {
        // 0 -> 1 -> 2 -> 1, 3 -> 3, 4 alone
        let graph = vec![vec![1], vec![2], vec![1], vec![3], vec![]];
        let c = components(&graph);
        assert_eq!(c[1], c[2]);
        assert_ne!(c[0], c[1]);
        assert!(
            c[0] > c[1],
            "a node's component is numbered after its children's"
        );
        assert_ne!(c[3], c[4]);
    }

    #[test]
    fn a_chain_of_100_000_is_walked_without_recursion() {
        let graph: Vec<Vec<usize>> = (0..100_000)
            .map(|i| if i + 1 < 100_000 { vec![i + 1] } else { vec![] })
            .collect();
        let c = components(&graph);
        assert_eq!(c[99_999], 0);
        assert_eq!(c[0], 99_999);
    }
}
