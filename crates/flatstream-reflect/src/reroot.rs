//! [`reroot`]: a binary schema copied with another root table.

use flatbuffers::{FlatBufferBuilder, ForwardsUOffset, Vector, WIPOffset};
use flatbuffers_reflection::reflection::{
    self, Enum, EnumArgs, EnumVal, EnumValArgs, Field, FieldArgs, KeyValue, KeyValueArgs, Object,
    ObjectArgs, SchemaArgs, Type, TypeArgs,
};

/// A copy of `schema` whose root table is object `root`: the objects and enums as they are
/// (names, fields, types, offsets, defaults, enum values, and the attributes of each of them),
/// their documentation, the files that declared them and the services left out. The verifier
/// of `flatbuffers-reflection` checks a buffer against a schema's `root_type` only: give it
/// this copy to verify buffers of another table.
///
/// # Panics
///
/// If `root` is not an index of `schema.objects()` (take it from
/// [`root_table`](crate::root_table)).
pub fn reroot(schema: &reflection::Schema<'_>, root: usize) -> Vec<u8> {
    let mut copy = Copier {
        b: FlatBufferBuilder::new(),
    };
    let objects: Vec<_> = schema.objects().iter().map(|o| copy.object(o)).collect();
    let enums: Vec<_> = schema.enums().iter().map(|e| copy.enumeration(e)).collect();
    let root_table = objects[root];
    let b = &mut copy.b;
    let objects = b.create_vector(&objects);
    let enums = b.create_vector(&enums);
    let file_ident = schema.file_ident().map(|s| b.create_string(s));
    let file_ext = schema.file_ext().map(|s| b.create_string(s));
    let copied = reflection::Schema::create(
        b,
        &SchemaArgs {
            objects: Some(objects),
            enums: Some(enums),
            file_ident,
            file_ext,
            root_table: Some(root_table),
            services: None,
            advanced_features: schema.advanced_features(),
            fbs_files: None,
        },
    );
    b.finish(copied, Some("BFBS"));
    b.finished_data().to_vec()
}

/// The builder of a copy, and the copy of each kind of item of a schema. Every field of each
/// `…Args` is written out: a field that `reflection.fbs` gains is then a compile error here,
/// not a part of the schema dropped without a word.
struct Copier {
    b: FlatBufferBuilder<'static>,
}

/// A vector of tables, as a copy holds it.
type Tables<T> = WIPOffset<Vector<'static, ForwardsUOffset<T>>>;

impl Copier {
    /// The copies of `items`, as one vector.
    fn all<I, T>(
        &mut self,
        items: I,
        copy: impl Fn(&mut Self, I::Item) -> WIPOffset<T>,
    ) -> Tables<T>
    where
        I: IntoIterator,
    {
        let copies: Vec<WIPOffset<T>> = items.into_iter().map(|item| copy(self, item)).collect();
        self.b.create_vector(&copies)
    }

    fn ty(&mut self, t: Type<'_>) -> WIPOffset<Type<'static>> {
        Type::create(
            &mut self.b,
            &TypeArgs {
                base_type: t.base_type(),
                element: t.element(),
                index: t.index(),
                fixed_length: t.fixed_length(),
                base_size: t.base_size(),
                element_size: t.element_size(),
            },
        )
    }

    fn attributes(
        &mut self,
        attributes: Option<Vector<'_, ForwardsUOffset<KeyValue<'_>>>>,
    ) -> Option<Tables<KeyValue<'static>>> {
        Some(self.all(attributes?.iter(), Copier::key_value))
    }

    fn key_value(&mut self, kv: KeyValue<'_>) -> WIPOffset<KeyValue<'static>> {
        let key = self.b.create_string(kv.key());
        let value = kv.value().map(|v| self.b.create_string(v));
        KeyValue::create(
            &mut self.b,
            &KeyValueArgs {
                key: Some(key),
                value,
            },
        )
    }

    fn field(&mut self, f: Field<'_>) -> WIPOffset<Field<'static>> {
        let name = self.b.create_string(f.name());
        let type_ = self.ty(f.type_());
        let attributes = self.attributes(f.attributes());
        Field::create(
            &mut self.b,
            &FieldArgs {
                name: Some(name),
                type_: Some(type_),
                id: f.id(),
                offset: f.offset(),
                default_integer: f.default_integer(),
                default_real: f.default_real(),
                deprecated: f.deprecated(),
                required: f.required(),
                key: f.key(),
                attributes,
                documentation: None,
                optional: f.optional(),
                padding: f.padding(),
                offset64: f.offset64(),
            },
        )
    }

    fn object(&mut self, object: Object<'_>) -> WIPOffset<Object<'static>> {
        let fields = self.all(object.fields().iter(), Copier::field);
        let name = self.b.create_string(object.name());
        let attributes = self.attributes(object.attributes());
        Object::create(
            &mut self.b,
            &ObjectArgs {
                name: Some(name),
                fields: Some(fields),
                is_struct: object.is_struct(),
                minalign: object.minalign(),
                bytesize: object.bytesize(),
                attributes,
                documentation: None,
                declaration_file: None,
            },
        )
    }

    fn value(&mut self, v: EnumVal<'_>) -> WIPOffset<EnumVal<'static>> {
        let name = self.b.create_string(v.name());
        let union_type = v.union_type().map(|t| self.ty(t));
        let attributes = self.attributes(v.attributes());
        EnumVal::create(
            &mut self.b,
            &EnumValArgs {
                name: Some(name),
                value: v.value(),
                union_type,
                documentation: None,
                attributes,
            },
        )
    }

    fn enumeration(&mut self, e: Enum<'_>) -> WIPOffset<Enum<'static>> {
        let values = self.all(e.values().iter(), Copier::value);
        let name = self.b.create_string(e.name());
        let underlying_type = self.ty(e.underlying_type());
        let attributes = self.attributes(e.attributes());
        Enum::create(
            &mut self.b,
            &EnumArgs {
                name: Some(name),
                values: Some(values),
                is_union: e.is_union(),
                underlying_type: Some(underlying_type),
                attributes,
                documentation: None,
                declaration_file: None,
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{parse, root_table};

    const FLEET: &[u8] = include_bytes!("../../../examples/fleet.bfbs");
    const ATTRIBUTES: &[u8] = include_bytes!("../tests/schemas/attributes.bfbs");

    /// Every attribute of `schema`, with what carries it: objects, their fields, enums and
    /// their values.
    fn attributes(schema: &reflection::Schema<'_>) -> Vec<(String, String, Option<String>)> {
        type Attributes<'a> = Option<Vector<'a, ForwardsUOffset<KeyValue<'a>>>>;
        let mut all = Vec::new();
        let mut add = |owner: String, attributes: Attributes<'_>| {
            for kv in attributes.iter().flat_map(|a| a.iter()) {
                all.push((
                    owner.clone(),
                    kv.key().to_owned(),
                    kv.value().map(str::to_owned),
                ));
            }
        };
        for o in schema.objects() {
            add(o.name().to_owned(), o.attributes());
            for f in o.fields() {
                add(format!("{}.{}", o.name(), f.name()), f.attributes());
            }
        }
        for e in schema.enums() {
            add(e.name().to_owned(), e.attributes());
            for v in e.values() {
                add(format!("{}.{}", e.name(), v.name()), v.attributes());
            }
        }
        all
    }

    /// The schema `bfbs` copied with the table `name` as its root.
    fn rerooted(bfbs: &[u8], name: &str) -> Vec<u8> {
        let schema = parse(bfbs).unwrap();
        reroot(&schema, root_table(&schema, Some(name)).unwrap())
    }

    #[test]
    fn a_rerooted_copy_keeps_the_attributes_of_objects_fields_enums_and_enum_values() {
        let schema = parse(ATTRIBUTES).unwrap();
        let copy = rerooted(ATTRIBUTES, "attrs.Reading");
        let kept = attributes(&parse(&copy).unwrap());
        assert_eq!(kept, attributes(&schema));
        for owner in ["attrs.Reading", "attrs.Reading.value", "attrs.Level.High"] {
            assert!(
                kept.iter().any(|(o, k, _)| o == owner && k == "unit"),
                "{owner} keeps its unit: {kept:?}"
            );
        }
    }

    #[test]
    fn a_rerooted_copy_keeps_every_object_and_enum() {
        let schema = parse(FLEET).unwrap();
        let bytes = rerooted(FLEET, "fleet.Sensor");
        let copy = parse(&bytes).unwrap();
        assert_eq!(copy.root_table().map(|t| t.name()), Some("fleet.Sensor"));
        assert_eq!(copy.file_ident(), schema.file_ident());
        let objects = |s: &reflection::Schema<'_>| {
            s.objects()
                .iter()
                .map(|o| {
                    let fields: Vec<_> = o
                        .fields()
                        .iter()
                        .map(|f| {
                            (
                                f.name().to_owned(),
                                f.offset(),
                                f.type_().base_type(),
                                f.type_().index(),
                            )
                        })
                        .collect();
                    (o.name().to_owned(), o.is_struct(), o.bytesize(), fields)
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(objects(&copy), objects(&schema));
        let enums = |s: &reflection::Schema<'_>| {
            s.enums()
                .iter()
                .map(|e| {
                    let values: Vec<_> = e
                        .values()
                        .iter()
                        .map(|v| (v.name().to_owned(), v.value()))
                        .collect();
                    (e.name().to_owned(), e.is_union(), values)
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(enums(&copy), enums(&schema));
    }
}
