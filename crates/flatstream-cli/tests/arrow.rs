//! `flatstream cat --schema` against flatstream-arrow: the fleet robots (every shape a
//! FlatBuffer can take) converted to Arrow, each row rendered with cat's rules (absent
//! strings, vectors, tables and unions left out, optional scalars `null`, enums by name, a
//! union as `<name>_type` and `<name>`, bytes in base64), must equal the line cat prints.

mod common;
mod fleet;
use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{Array, ArrayRef, StructArray};
use arrow_schema::DataType;
use common::*;
use flatstream::checksum::ChecksumKind;
use flatstream_arrow::Plan;
use fleet::*;
use serde_json::{Map, Value, json};

/// A number as cat prints it (serde_json's shortest form), read back.
fn number<T: serde::Serialize>(v: T) -> Value {
    serde_json::from_str(&serde_json::to_string(&v).unwrap()).unwrap()
}

fn float(v: f64, text: String) -> Value {
    if v.is_nan() {
        json!("nan")
    } else if v.is_infinite() {
        json!(if v > 0.0 { "inf" } else { "-inf" })
    } else {
        serde_json::from_str(&text).unwrap()
    }
}

/// The value at `row` of `a` as cat prints it; `None` where cat leaves the field out.
fn value(plan: &Plan, a: &ArrayRef, row: usize) -> Option<Value> {
    if a.is_null(row) {
        // Optional scalars print as null; other absent fields are left out.
        return a.data_type().is_primitive().then_some(Value::Null);
    }
    Some(match a.data_type() {
        DataType::Boolean => json!(a.as_boolean().value(row)),
        DataType::Int8 => number(a.as_primitive::<Int8Type>().value(row)),
        DataType::Int16 => number(a.as_primitive::<Int16Type>().value(row)),
        DataType::Int32 => number(a.as_primitive::<Int32Type>().value(row)),
        DataType::Int64 => number(a.as_primitive::<Int64Type>().value(row)),
        DataType::UInt8 => number(a.as_primitive::<UInt8Type>().value(row)),
        DataType::UInt16 => number(a.as_primitive::<UInt16Type>().value(row)),
        DataType::UInt32 => number(a.as_primitive::<UInt32Type>().value(row)),
        DataType::UInt64 => number(a.as_primitive::<UInt64Type>().value(row)),
        DataType::Float32 => {
            let v = a.as_primitive::<Float32Type>().value(row);
            float(f64::from(v), serde_json::to_string(&v).unwrap_or_default())
        }
        DataType::Float64 => {
            let v = a.as_primitive::<Float64Type>().value(row);
            float(v, serde_json::to_string(&v).unwrap_or_default())
        }
        DataType::Dictionary(..) => {
            let d = a.as_dictionary::<Int32Type>();
            let name = d
                .values()
                .as_string::<i32>()
                .value(d.keys().value(row) as usize);
            // A value without a name: cat prints its number.
            name.parse::<i64>()
                .map_or_else(|_| json!(name), |n| json!(n))
        }
        DataType::Utf8 => json!(a.as_string::<i32>().value(row)),
        DataType::Binary => json!(base64(a.as_binary::<i32>().value(row))),
        DataType::List(_) => {
            let items = a.as_list::<i32>().value(row);
            Value::Array(
                (0..items.len())
                    .filter_map(|i| value(plan, &items, i))
                    .collect(),
            )
        }
        DataType::Struct(_) => object(plan, a.as_struct(), row),
        other => panic!("no JSON for {other}"),
    })
}

/// A table or struct at `row`; a union's struct (`type` first) gives two keys to its parent.
fn object(plan: &Plan, s: &StructArray, row: usize) -> Value {
    let mut m = Map::new();
    for (field, column) in s.fields().iter().zip(s.columns()) {
        put(plan, &mut m, field.name(), column, row);
    }
    Value::Object(m)
}

fn put(plan: &Plan, m: &mut Map<String, Value>, name: &str, column: &ArrayRef, row: usize) {
    if name == "parent" {
        // A recursive table is a FlatBuffer of the root type: converted with the same plan.
        if let Some(bytes) = column.as_binary_opt::<i32>().filter(|b| b.is_valid(row)) {
            let mut c = plan.converter();
            c.append(0, bytes.value(row)).unwrap();
            let batch = c.finish().unwrap();
            m.insert(name.into(), object(plan, &StructArray::from(batch), 0));
        }
        return;
    }
    if let DataType::Struct(fields) = column.data_type()
        && fields.first().is_some_and(|f| f.name() == "type")
    {
        let u = column.as_struct();
        let tag = value(plan, u.column(0), row).unwrap();
        m.insert(format!("{name}_type"), tag.clone());
        if u.is_valid(row) {
            let member = u.column_by_name(tag.as_str().unwrap()).unwrap();
            m.insert(name.into(), value(plan, member, row).unwrap());
        }
        return;
    }
    if let Some(v) = value(plan, column, row) {
        m.insert(name.into(), v);
    }
}

#[test]
fn cat_prints_what_flatstream_arrow_converts() {
    let dir = Dir::new();
    let (bytes, plan, batches) = fleet_batches(ChecksumKind::Crc32c);
    let path = dir.file("fleet", &bytes);
    let printed = run(&["cat", &path, "--schema", &fleet_bfbs()])
        .ok()
        .json_lines();

    let mut rows = Vec::new();
    for batch in batches {
        let s = StructArray::from(batch);
        rows.extend((0..s.len()).map(|i| object(&plan, &s, i)));
    }
    assert_eq!(rows.len(), printed.len());
    for (row, line) in rows.iter().zip(&printed) {
        assert_eq!(row, line);
    }
}
