//! Round trips through `cat`'s printer over a schema built here, for what the example schemas
//! lack: structs aligned to 8 bytes with padding inside, fixed arrays of scalars and of
//! structs, structs nested in structs, vectors of such structs, and a file identifier.
//!
//! ```text
//! namespace t;
//! struct Inner { a: byte; b: double; }                                   // 16 bytes, align 8
//! struct Outer { tag: short; arr: [short:3]; inner: Inner; list: [Inner:2]; }  // 56, align 8
//! table T { o: Outer; os: [Outer]; n: long; }
//! root_type T; file_identifier "TTTT";
//! ```

use super::build::Packer;
use super::value;
use crate::json::Printer;
use crate::options::BytesFormat;
use crate::schema::Schema;
use flatbuffers::{FlatBufferBuilder, WIPOffset};
use flatstream_reflect::reflection::{
    self, BaseType, Field, FieldArgs, Object, ObjectArgs, SchemaArgs, Type, TypeArgs,
};

/// One field: (name, id, offset, type).
type FieldSpec = (&'static str, u16, u16, TypeArgs);

fn scalar(base: BaseType) -> TypeArgs {
    TypeArgs {
        base_type: base,
        element: BaseType::None,
        index: -1,
        fixed_length: 0,
        base_size: 4,
        element_size: 0,
    }
}

fn of(
    base: BaseType,
    element: BaseType,
    index: i32,
    fixed_length: u16,
    element_size: u32,
) -> TypeArgs {
    TypeArgs {
        base_type: base,
        element,
        index,
        fixed_length,
        base_size: 4,
        element_size,
    }
}

/// The schema of the module docs, as `flatc -b --schema` would write it (objects sorted by
/// name: 0 `t.Inner`, 1 `t.Outer`, 2 `t.T`).
fn schema_bytes() -> Vec<u8> {
    let mut b = FlatBufferBuilder::new();
    let objects: [(&str, bool, i32, i32, Vec<FieldSpec>); 3] = [
        (
            "t.Inner",
            true,
            8,
            16,
            vec![
                ("a", 0, 0, scalar(BaseType::Byte)),
                ("b", 1, 8, scalar(BaseType::Double)),
            ],
        ),
        (
            "t.Outer",
            true,
            8,
            56,
            vec![
                ("tag", 0, 0, scalar(BaseType::Short)),
                ("arr", 1, 2, of(BaseType::Array, BaseType::Short, -1, 3, 2)),
                ("inner", 2, 8, of(BaseType::Obj, BaseType::None, 0, 0, 0)),
                ("list", 3, 24, of(BaseType::Array, BaseType::Obj, 0, 2, 16)),
            ],
        ),
        (
            "t.T",
            false,
            1,
            0,
            vec![
                ("o", 0, 4, of(BaseType::Obj, BaseType::None, 1, 0, 0)),
                ("os", 1, 6, of(BaseType::Vector, BaseType::Obj, 1, 0, 56)),
                ("n", 2, 8, scalar(BaseType::Long)),
            ],
        ),
    ];
    let mut made: Vec<WIPOffset<Object<'_>>> = Vec::new();
    for (name, is_struct, minalign, bytesize, fields) in objects {
        let fields: Vec<_> = fields
            .into_iter()
            .map(|(name, id, offset, ty)| {
                let name = b.create_string(name);
                let type_ = Type::create(&mut b, &ty);
                Field::create(
                    &mut b,
                    &FieldArgs {
                        name: Some(name),
                        type_: Some(type_),
                        id,
                        offset,
                        ..Default::default()
                    },
                )
            })
            .collect();
        let fields = b.create_vector(&fields);
        let name = b.create_string(name);
        made.push(Object::create(
            &mut b,
            &ObjectArgs {
                name: Some(name),
                fields: Some(fields),
                is_struct,
                minalign,
                bytesize,
                ..Default::default()
            },
        ));
    }
    let root = made[2];
    let objects = b.create_vector(&made);
    let enums = b.create_vector::<WIPOffset<reflection::Enum<'_>>>(&[]);
    let ident = b.create_string("TTTT");
    let schema = reflection::Schema::create(
        &mut b,
        &SchemaArgs {
            objects: Some(objects),
            enums: Some(enums),
            root_table: Some(root),
            file_ident: Some(ident),
            ..Default::default()
        },
    );
    b.finish(schema, Some("BFBS"));
    b.finished_data().to_vec()
}

fn load() -> Schema {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.bfbs");
    std::fs::write(&path, schema_bytes()).unwrap();
    Schema::load(&path, None).unwrap_or_else(|f| panic!("{}", f.message))
}

/// `line` packed, verified, and printed back by `cat`'s printer.
fn round_trip(schema: &Schema, line: &str) -> Result<(Vec<u8>, String), String> {
    let packer = Packer::new(schema, BytesFormat::Base64);
    let mut b = FlatBufferBuilder::new();
    let value = value::parse(line).map_err(|e| e.to_string())?;
    packer.message(&value, &mut b).map_err(|e| e.to_string())?;
    let payload = b.finished_data().to_vec();
    schema.verifier().verify(&payload)?;
    let mut out = Vec::new();
    Printer::new(schema, BytesFormat::Base64).message(&payload, &mut out)?;
    Ok((payload, String::from_utf8(out).unwrap()))
}

const OUTER: &str = r#"{"tag":-2,"arr":[1,-1,32767],"inner":{"a":-128,"b":0.1},"list":[{"a":1,"b":-0.0},{"a":2,"b":1e+300}]}"#;

#[test]
fn aligned_structs_and_fixed_arrays_round_trip() {
    let schema = load();
    let line = format!(r#"{{"o":{OUTER},"os":[{OUTER},{OUTER}],"n":-5}}"#);
    let (payload, printed) = round_trip(&schema, &line).unwrap();
    assert_eq!(printed, line);
    // The identifier of the schema's root type, at bytes 4..8.
    assert_eq!(&payload[4..8], b"TTTT");
    // Padding is zero: Inner's 7 bytes after `a` (Inner is at 8 in Outer).
    let at = outers(&payload)[0];
    assert_eq!(payload[at + 9..at + 16], [0; 7]);

    // Every struct starts 8-aligned (the buffer itself is 8-aligned), wherever the data
    // before it leaves the builder.
    for count in 0..4 {
        for n in ["", r#","n":7"#] {
            let os = vec![OUTER; count].join(",");
            let line = format!(r#"{{"o":{OUTER},"os":[{os}]{n}}}"#);
            let (payload, printed) = round_trip(&schema, &line).unwrap();
            assert_eq!(
                printed,
                line.replace(&format!("[{os}]}}"), &format!("[{os}],\"n\":0}}"))
            );
            let found = outers(&payload);
            assert_eq!(found.len(), count + 1);
            for at in found {
                assert_eq!(at % 8, 0, "{line}: {payload:?}");
            }
        }
    }
}

/// Where the Outers of [`OUTER`] start in `payload`: found by their first 6 bytes.
fn outers(payload: &[u8]) -> Vec<usize> {
    let start = [0xfe, 0xff, 1, 0, 0xff, 0xff];
    payload
        .windows(6)
        .enumerate()
        .filter(|(_, w)| *w == start)
        .map(|(i, _)| i)
        .collect()
}

#[test]
fn struct_shapes_are_checked() {
    let schema = load();
    for (line, error) in [
        (
            r#"{"o":{"tag":1,"arr":[1,2],"inner":{"a":1,"b":1},"list":[{"a":1,"b":1},{"a":1,"b":1}]}}"#,
            "field `o.arr`: expected an array of 3, got one of 2",
        ),
        (
            r#"{"o":{"tag":1,"arr":[1,2,3],"inner":{"a":1,"b":1},"list":[{"a":1,"b":1},{"a":1}]}}"#,
            "field `o.list[1].b`: missing: every field of a struct must be given",
        ),
        (
            r#"{"os":[{"tag":1,"arr":[1,2,70000],"inner":{"a":1,"b":1},"list":[]}]}"#,
            "field `os[0].arr[2]`: 70000 is out of range for a short (-32768 to 32767)",
        ),
    ] {
        assert_eq!(round_trip(&schema, line).unwrap_err(), error, "{line}");
    }
}

/// A message over the packer's bound is an error of its line, found before the write that
/// would cross it (FlatBuffers' builder panics past 2 GiB); the bound is on what is built, so
/// the same line fits a larger one.
#[test]
fn a_message_over_the_bound_is_refused_before_it_is_written() {
    let schema = load();
    let os = vec![OUTER; 40].join(",");
    let line = format!(r#"{{"os":[{os}],"n":1}}"#);
    let value = value::parse(&line).unwrap();
    let mut b = FlatBufferBuilder::new();
    let whole = Packer::new(&schema, BytesFormat::Base64);
    whole.message(&value, &mut b).unwrap();
    let size = b.finished_data().len();
    assert!(size > 40 * 56, "{size}");

    for limit in [64, 1024, size - 1] {
        let small = Packer::new(&schema, BytesFormat::Base64).with_limit(limit);
        b.reset();
        let error = small.message(&value, &mut b).unwrap_err().to_string();
        assert!(
            error.ends_with(&format!("would be larger than {limit} bytes")),
            "{limit}: {error}"
        );
        assert!(b.unfinished_data().len() <= limit, "{limit}");
    }
    // A struct larger than the bound is refused before its bytes are laid out.
    let line = format!(r#"{{"o":{OUTER}}}"#);
    let one = value::parse(&line).unwrap();
    b.reset();
    let error = Packer::new(&schema, BytesFormat::Base64)
        .with_limit(32)
        .message(&one, &mut b)
        .unwrap_err()
        .to_string();
    assert!(
        error.ends_with("is 56 bytes, larger than a message may be (32 bytes)"),
        "{error}"
    );

    let roomy = Packer::new(&schema, BytesFormat::Base64).with_limit(size + 64);
    b.reset();
    roomy.message(&value, &mut b).unwrap();
    assert_eq!(b.finished_data().len(), size);
}
