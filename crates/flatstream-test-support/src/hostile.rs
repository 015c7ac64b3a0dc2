//! Hostile schemas and payloads: binary schemas built field by field (structs that contain
//! themselves, 100 000 levels of nesting, structs without a size, fixed arrays larger than
//! their struct, a struct as root type), and payloads that are small on the wire and large
//! to read (shared references, deep chains, one table referenced as two types, bad union
//! types). Every `--schema` reader of the workspace runs [`cases`]: see flatstream-reflect's
//! `tests/hostile.rs` and the CLI's `tests/hostile.rs`.

use flatbuffers::{FlatBufferBuilder, TableFinishedWIPOffset, VOffsetT, WIPOffset};
use flatbuffers_reflection::reflection::{
    self, BaseType, Enum, EnumArgs, EnumVal, EnumValArgs, Field, FieldArgs, Object, ObjectArgs,
    SchemaArgs, Type, TypeArgs,
};

/// A field of an [`Obj`]: its name, type, and vtable slot (a table's) or byte offset (a
/// struct's).
#[derive(Debug, Clone)]
pub struct Fld {
    /// Its name.
    pub name: String,
    /// Its type.
    pub base: BaseType,
    /// A vector's or array's element type.
    pub element: BaseType,
    /// The object or enum its type names, or -1.
    pub index: i32,
    /// An array's length.
    pub fixed_length: u16,
    /// A table field's vtable slot, a struct field's byte offset.
    pub offset: u16,
    /// Whether a table field is required.
    pub required: bool,
}

/// A field of scalar (or string) type `base`.
pub fn field(name: &str, base: BaseType, offset: u16) -> Fld {
    Fld {
        name: name.to_owned(),
        base,
        element: BaseType::None,
        index: -1,
        fixed_length: 0,
        offset,
        required: false,
    }
}

/// A field holding object `index` (a struct inline, a table by offset).
pub fn object(name: &str, index: i32, offset: u16) -> Fld {
    Fld {
        index,
        ..field(name, BaseType::Obj, offset)
    }
}

/// A vector field of `element`s (of object or enum `index`, or -1).
pub fn vector(name: &str, element: BaseType, index: i32, offset: u16) -> Fld {
    Fld {
        element,
        index,
        ..field(name, BaseType::Vector, offset)
    }
}

/// A fixed array of `len` `element`s (of object `index`, or -1) in a struct.
pub fn array(name: &str, element: BaseType, index: i32, len: u16, offset: u16) -> Fld {
    Fld {
        element,
        index,
        fixed_length: len,
        ..field(name, BaseType::Array, offset)
    }
}

/// A union field of enum `index` (its type field is another [`field`] of `UType`, in the
/// slot before).
pub fn union(name: &str, index: i32, offset: u16) -> Fld {
    Fld {
        index,
        ..field(name, BaseType::Union, offset)
    }
}

/// A table or struct of a schema.
#[derive(Debug, Clone)]
pub struct Obj {
    /// Its full name.
    pub name: String,
    /// Whether it is a struct.
    pub is_struct: bool,
    /// A struct's size in bytes.
    pub bytesize: i32,
    /// Its fields.
    pub fields: Vec<Fld>,
}

/// A table.
pub fn table(name: &str, fields: Vec<Fld>) -> Obj {
    Obj {
        name: name.to_owned(),
        is_struct: false,
        bytesize: 0,
        fields,
    }
}

/// A struct of `size` bytes.
pub fn structure(name: &str, size: i32, fields: Vec<Fld>) -> Obj {
    Obj {
        name: name.to_owned(),
        is_struct: true,
        bytesize: size,
        fields,
    }
}

/// A union: its members by number (1, 2, …; `NONE` is added as 0), each an object index.
#[derive(Debug, Clone)]
pub struct Uni {
    /// Its full name.
    pub name: String,
    /// Its members' objects, numbered from 1.
    pub members: Vec<i32>,
}

/// A binary schema, described.
#[derive(Debug, Clone, Default)]
pub struct Spec {
    /// Its objects, in order (indices are positions here).
    pub objects: Vec<Obj>,
    /// Its unions.
    pub unions: Vec<Uni>,
    /// The index of its root_type, if any.
    pub root: Option<usize>,
}

impl Spec {
    /// A schema of `objects` rooted at the first.
    pub fn rooted(objects: Vec<Obj>) -> Spec {
        Spec {
            objects,
            unions: Vec::new(),
            root: Some(0),
        }
    }

    /// The `.bfbs` bytes.
    pub fn bfbs(&self) -> Vec<u8> {
        let mut b = FlatBufferBuilder::new();
        let mut objects: Vec<WIPOffset<Object<'_>>> = Vec::new();
        for o in &self.objects {
            let fields: Vec<_> = o
                .fields
                .iter()
                .enumerate()
                .map(|(id, f)| {
                    let name = b.create_string(&f.name);
                    let type_ = Type::create(
                        &mut b,
                        &TypeArgs {
                            base_type: f.base,
                            element: f.element,
                            index: f.index,
                            fixed_length: f.fixed_length,
                            ..TypeArgs::default()
                        },
                    );
                    Field::create(
                        &mut b,
                        &FieldArgs {
                            name: Some(name),
                            type_: Some(type_),
                            id: id as u16,
                            offset: f.offset,
                            required: f.required,
                            ..FieldArgs::default()
                        },
                    )
                })
                .collect();
            let fields = b.create_vector(&fields);
            let name = b.create_string(&o.name);
            objects.push(Object::create(
                &mut b,
                &ObjectArgs {
                    name: Some(name),
                    fields: Some(fields),
                    is_struct: o.is_struct,
                    bytesize: o.bytesize,
                    minalign: 1,
                    ..ObjectArgs::default()
                },
            ));
        }
        let mut enums: Vec<WIPOffset<Enum<'_>>> = Vec::new();
        for u in &self.unions {
            let mut values = Vec::new();
            let none_name = b.create_string("NONE");
            let none_type = Type::create(&mut b, &TypeArgs::default());
            values.push(EnumVal::create(
                &mut b,
                &EnumValArgs {
                    name: Some(none_name),
                    value: 0,
                    union_type: Some(none_type),
                    ..EnumValArgs::default()
                },
            ));
            for (i, &m) in u.members.iter().enumerate() {
                let name = b.create_string(&format!("M{}", i + 1));
                let ty = Type::create(
                    &mut b,
                    &TypeArgs {
                        base_type: BaseType::Obj,
                        index: m,
                        ..TypeArgs::default()
                    },
                );
                values.push(EnumVal::create(
                    &mut b,
                    &EnumValArgs {
                        name: Some(name),
                        value: i as i64 + 1,
                        union_type: Some(ty),
                        ..EnumValArgs::default()
                    },
                ));
            }
            let values = b.create_vector(&values);
            let name = b.create_string(&u.name);
            let underlying = Type::create(
                &mut b,
                &TypeArgs {
                    base_type: BaseType::UType,
                    ..TypeArgs::default()
                },
            );
            enums.push(Enum::create(
                &mut b,
                &EnumArgs {
                    name: Some(name),
                    values: Some(values),
                    is_union: true,
                    underlying_type: Some(underlying),
                    ..EnumArgs::default()
                },
            ));
        }
        let root_table = self.root.map(|r| objects[r]);
        let objects = b.create_vector(&objects);
        let enums = b.create_vector(&enums);
        let schema = reflection::Schema::create(
            &mut b,
            &SchemaArgs {
                objects: Some(objects),
                enums: Some(enums),
                root_table,
                ..SchemaArgs::default()
            },
        );
        b.finish(schema, Some("BFBS"));
        b.finished_data().to_vec()
    }
}

/// What a reader must do with a [`Case`]'s schema, or with one of its payloads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// The schema is refused when it is loaded.
    Refused,
    /// The payload is valid: every reader reads it.
    Valid,
    /// The payload is invalid: no reader prints it.
    Invalid,
    /// Either, as long as every reader agrees with the verifier.
    Agree,
}

/// A hostile schema, the root type to read, and payloads with what to expect of each.
#[derive(Debug, Clone)]
pub struct Case {
    /// What it is, for a failing test's message.
    pub name: String,
    /// The `.bfbs` bytes.
    pub bfbs: Vec<u8>,
    /// `Refused` if loading the schema must fail, else `Agree`.
    pub schema: Expect,
    /// Payloads of the root table, and what each must be.
    pub payloads: Vec<(Vec<u8>, Expect)>,
}

fn refused(name: &str, bfbs: Vec<u8>) -> Case {
    Case {
        name: name.to_owned(),
        bfbs,
        schema: Expect::Refused,
        payloads: Vec::new(),
    }
}

fn loads(name: &str, spec: &Spec, payloads: Vec<(Vec<u8>, Expect)>) -> Case {
    Case {
        name: name.to_owned(),
        bfbs: spec.bfbs(),
        schema: Expect::Agree,
        payloads,
    }
}

/// A case whose schema loads, with a payload that is hostile to read (every reader refuses it)
/// and a small one of the same shape (every reader reads it): the bound is between them.
fn hostile_and_harmless(name: &str, spec: Spec, hostile: Vec<u8>, harmless: Vec<u8>) -> Case {
    loads(
        name,
        &spec,
        vec![(hostile, Expect::Invalid), (harmless, Expect::Valid)],
    )
}

/// A schema whose root table `h.Root` has the fields `root_fields`, with one union `h.U` whose
/// only member is the table `h.M` (object 1), without fields.
fn with_union(root_fields: Vec<Fld>) -> Spec {
    Spec {
        unions: vec![Uni {
            name: "h.U".to_owned(),
            members: vec![1],
        }],
        ..Spec::rooted(vec![table("h.Root", root_fields), table("h.M", vec![])])
    }
}

/// A chain of `n` objects (tables, or structs of size 4), each holding the next.
pub fn chain(n: usize, structs: bool) -> Spec {
    let objects = (0..n)
        .map(|i| {
            let name = format!("h.T{i}");
            let next = (i + 1 < n).then(|| object("next", i as i32 + 1, 4));
            if structs {
                let next = (i + 1 < n).then(|| object("next", i as i32 + 1, 0));
                structure(&name, 4, next.into_iter().collect())
            } else {
                table(&name, next.into_iter().collect())
            }
        })
        .collect();
    Spec::rooted(objects)
}

/// A table of `fields`, each an offset stored at its vtable slot.
fn table_of<T>(
    b: &mut FlatBufferBuilder<'_>,
    fields: &[(VOffsetT, WIPOffset<T>)],
) -> WIPOffset<TableFinishedWIPOffset> {
    let table = b.start_table();
    for &(slot, offset) in fields {
        b.push_slot_always(slot, offset);
    }
    b.end_table(table)
}

/// The payload of `b`, its root table `root`.
fn finished<T>(mut b: FlatBufferBuilder<'_>, root: WIPOffset<T>) -> Vec<u8> {
    b.finish_minimal(root);
    b.finished_data().to_vec()
}

/// A payload of `Root { items: [Item] }` whose vector holds `n` references to one
/// `Item { name }` with a name of `name_len` bytes.
pub fn shared_items(n: usize, name_len: usize) -> Vec<u8> {
    let mut b = FlatBufferBuilder::with_capacity(n * 4 + name_len + 64);
    let name = b.create_string(&"x".repeat(name_len));
    let item = table_of(&mut b, &[(4, name)]);
    let items = b.create_vector(&vec![item; n]);
    let root = table_of(&mut b, &[(4, items)]);
    finished(b, root)
}

/// A payload of `Root { names: [string] }` holding `n` references to one string of `len`.
pub fn shared_strings(n: usize, len: usize) -> Vec<u8> {
    let mut b = FlatBufferBuilder::with_capacity(n * 4 + len + 64);
    let s = b.create_string(&"y".repeat(len));
    let names = b.create_vector(&vec![s; n]);
    let root = table_of(&mut b, &[(4, names)]);
    finished(b, root)
}

/// A payload of tables nested `depth` deep, each holding the one below in every slot of
/// `slots`; the innermost has no fields.
fn nested(depth: usize, slots: &[VOffsetT]) -> Vec<u8> {
    let mut b = FlatBufferBuilder::with_capacity(depth * 16 + 64);
    let mut node = table_of::<TableFinishedWIPOffset>(&mut b, &[]);
    for _ in 1..depth {
        let fields: Vec<_> = slots.iter().map(|&slot| (slot, node)).collect();
        node = table_of(&mut b, &fields);
    }
    finished(b, node)
}

/// A payload of `Node { child: Node }` nested `depth` deep.
pub fn nested_nodes(depth: usize) -> Vec<u8> {
    nested(depth, &[4])
}

/// A payload of `Pair { a: Pair, b: Pair }` `levels` deep, each table's two fields the same
/// table: 2^levels paths through `levels` tables.
pub fn doubling(levels: usize) -> Vec<u8> {
    nested(levels, &[4, 6])
}

/// A payload of a table whose fields at slots 4 and 6 are one table, whose slot 4 holds a
/// string `text`.
pub fn one_table_twice(text: &str) -> Vec<u8> {
    let mut b = FlatBufferBuilder::new();
    let s = b.create_string(text);
    let inner = table_of(&mut b, &[(4, s)]);
    let root = table_of(&mut b, &[(4, inner), (6, inner)]);
    finished(b, root)
}

/// A payload of `Root { u_type, u }` with union type `tag` and a member table without
/// fields.
pub fn union_tagged(tag: u8) -> Vec<u8> {
    let mut b = FlatBufferBuilder::new();
    let member = table_of::<TableFinishedWIPOffset>(&mut b, &[]);
    let root = b.start_table();
    b.push_slot_always(6, member);
    b.push_slot_always::<u8>(4, tag);
    let root = b.end_table(root);
    finished(b, root)
}

/// Every hostile case: damaged and hostile schemas (refused when loaded), and schemas that
/// load with payloads that are hostile to read.
pub fn cases() -> Vec<Case> {
    use BaseType as B;
    let mut cases = vec![
        refused("an empty schema", Vec::new()),
        refused("a schema of 3 bytes", b"\x08\0\0".to_vec()),
        refused("a schema of 7 bytes", b"\x08\0\0\0BFB".to_vec()),
        refused("the identifier alone", b"\x08\0\0\0BFBS".to_vec()),
        refused(
            "a struct that contains itself",
            Spec::rooted(vec![
                table("h.Root", vec![object("s", 1, 4)]),
                structure("h.S", 4, vec![object("s", 1, 0)]),
            ])
            .bfbs(),
        ),
        refused(
            "two structs that contain each other",
            Spec::rooted(vec![
                table("h.Root", vec![object("a", 1, 4)]),
                structure("h.A", 8, vec![object("b", 2, 0)]),
                structure("h.B", 8, vec![array("a", B::Obj, 1, 1, 0)]),
            ])
            .bfbs(),
        ),
        refused(
            "100 000 tables, each in the next",
            chain(100_000, false).bfbs(),
        ),
        refused("100 000 structs, each in the next", {
            let mut spec = chain(100_000, true);
            spec.objects[0] = table("h.T0", vec![object("next", 1, 4)]);
            spec.bfbs()
        }),
        refused(
            "a struct of size 0 in a vector",
            Spec::rooted(vec![
                table("h.Root", vec![vector("v", B::Obj, 1, 4)]),
                structure("h.Empty", 0, vec![]),
            ])
            .bfbs(),
        ),
        refused(
            "nested fixed arrays of 65 535 x 65 535 in a struct of size 1",
            Spec::rooted(vec![
                table("h.Root", vec![object("s", 1, 4)]),
                structure("h.Outer", 1, vec![array("rows", B::Obj, 2, 65_535, 0)]),
                structure("h.Row", 1, vec![array("cells", B::UByte, -1, 65_535, 0)]),
            ])
            .bfbs(),
        ),
        refused(
            "a struct field past the struct's end",
            Spec::rooted(vec![
                table("h.Root", vec![object("s", 1, 4)]),
                structure("h.S", 4, vec![field("x", B::Long, 0)]),
            ])
            .bfbs(),
        ),
        refused("a struct as root type", {
            let mut spec = Spec::rooted(vec![
                structure("h.S", 4, vec![field("x", B::Int, 0)]),
                table("h.T", vec![object("s", 0, 4)]),
            ]);
            spec.root = Some(0);
            spec.bfbs()
        }),
        refused(
            "a union without its type field",
            with_union(vec![union("u", 0, 4)]).bfbs(),
        ),
        refused(
            "a field naming an object the schema does not have",
            Spec::rooted(vec![table("h.Root", vec![object("t", 7, 4)])]).bfbs(),
        ),
        refused(
            "a field in vtable slot 1",
            Spec::rooted(vec![table("h.Root", vec![field("x", B::Int, 1)])]).bfbs(),
        ),
    ];
    cases.push(hostile_and_harmless(
        "a vector of references to one table",
        Spec::rooted(vec![
            table("h.Root", vec![vector("items", B::Obj, 1, 4)]),
            table("h.Item", vec![field("name", B::String, 4)]),
        ]),
        shared_items(200_000, 20_000),
        shared_items(100, 1_000),
    ));
    cases.push(hostile_and_harmless(
        "a vector of references to one string",
        Spec::rooted(vec![table(
            "h.Root",
            vec![vector("names", B::String, -1, 4)],
        )]),
        shared_strings(100_000, 20_000),
        shared_strings(100, 100),
    ));
    cases.push(hostile_and_harmless(
        "a table in itself, nested 100 000 deep",
        Spec::rooted(vec![table("h.Node", vec![object("child", 0, 4)])]),
        nested_nodes(100_000),
        nested_nodes(60),
    ));
    cases.push(hostile_and_harmless(
        "a table whose two fields are one table, 40 levels deep",
        Spec::rooted(vec![table(
            "h.Pair",
            vec![object("a", 0, 4), object("b", 0, 6)],
        )]),
        doubling(40),
        doubling(4),
    ));
    let twice = Spec::rooted(vec![
        table("h.Root", vec![object("a", 1, 4), object("b", 2, 6)]),
        table("h.A", vec![field("s", B::String, 4)]),
        table("h.B", vec![vector("v", B::Obj, 3, 4)]),
        table("h.C", vec![field("n", B::Long, 4)]),
    ]);
    cases.push(loads(
        "one table referenced as two types",
        &twice,
        vec![(one_table_twice("hello, world"), Expect::Agree)],
    ));
    cases.push(loads(
        "a union type past the union's members",
        &with_union(vec![field("u_type", B::UType, 4), union("u", 0, 6)]),
        vec![
            (union_tagged(200), Expect::Invalid),
            (union_tagged(2), Expect::Invalid),
            (union_tagged(1), Expect::Valid),
        ],
    ));
    cases
}

/// A schema of 40 tables, each holding the next twice: small, and a type of 2^40 fields
/// unfolded (as an Arrow schema unfolds it).
pub fn doubling_types() -> Vec<u8> {
    let levels: Vec<Obj> = (0..40)
        .map(|i| {
            let next = if i + 1 < 40 {
                vec![object("a", i + 1, 4), object("b", i + 1, 6)]
            } else {
                vec![]
            };
            table(&format!("h.L{i}"), next)
        })
        .collect();
    Spec::rooted(levels).bfbs()
}
