//! Shapes the example schemas lack (examples/shapes.fbs): fixed-length arrays in a struct
//! as `FixedSizeList`, and a recursive table as `Binary`, as a field and in a vector.

mod common;

use arrow_array::cast::AsArray;
use arrow_array::types::{Float32Type, Int16Type, Int32Type};
use arrow_array::{Array, RecordBatch};
use arrow_schema::DataType;
use common::{frames, primitive, stream};
use flatbuffers::FlatBufferBuilder;
use flatstream_arrow::{BinarySchema, Options, Plan};

use flatstream_test_support::shapes::*;

fn convert(payloads: &[Vec<u8>]) -> RecordBatch {
    let schema = BinarySchema::load(format!(
        "{}/../../examples/shapes.bfbs",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let plan = Plan::new(&schema, &Options::new()).unwrap();
    let bytes = stream(payloads);
    plan.convert(frames(&bytes)).next().unwrap().unwrap()
}

fn node<'a>(
    b: &mut FlatBufferBuilder<'a>,
    value: i32,
    children: &[i32],
) -> flatbuffers::WIPOffset<Node<'a>> {
    let kids: Vec<_> = children.iter().map(|&v| node(b, v, &[])).collect();
    let children = (!kids.is_empty()).then(|| b.create_vector(&kids));
    Node::create(b, &NodeArgs { value, children })
}

#[test]
fn fixed_arrays_are_fixed_size_lists() {
    let mut b = FlatBufferBuilder::new();
    let grid = Grid::new(
        &[1, -2, 3, i16::MAX],
        &[Point::new(5, 6), Point::new(-7, 8)],
        0.5,
    );
    let s = Shapes::create(
        &mut b,
        &ShapesArgs {
            grid: Some(&grid),
            ..Default::default()
        },
    );
    b.finish(s, None);
    let with = b.finished_data().to_vec();
    let mut b = FlatBufferBuilder::new();
    let s = Shapes::create(&mut b, &ShapesArgs::default());
    b.finish(s, None);
    let without = b.finished_data().to_vec();

    let batch = convert(&[with, without]);
    let grid = batch.column_by_name("grid").unwrap().as_struct();
    assert!(grid.is_valid(0) && grid.is_null(1));
    let cells = grid.column_by_name("cells").unwrap();
    assert!(matches!(cells.data_type(), DataType::FixedSizeList(_, 4)));
    let cells = cells.as_fixed_size_list().value(0);
    assert_eq!(
        cells.as_primitive::<Int16Type>().values().to_vec(),
        [1, -2, 3, i16::MAX]
    );
    let corners = grid.column_by_name("corners").unwrap();
    assert!(matches!(corners.data_type(), DataType::FixedSizeList(_, 2)));
    let corners = corners.as_fixed_size_list().value(0);
    let corners = corners.as_struct();
    let x = primitive::<Int32Type>(corners, "x");
    let y = primitive::<Int32Type>(corners, "y");
    assert_eq!(
        (x.values().to_vec(), y.values().to_vec()),
        (vec![5, -7], vec![6, 8])
    );
    let scale = primitive::<Float32Type>(grid, "scale");
    assert_eq!(scale.value(0), 0.5);
}

#[test]
fn a_recursive_table_is_its_payload_rooted_at_it() {
    let mut b = FlatBufferBuilder::new();
    let one = node(&mut b, 1, &[10, 11]);
    let two = node(&mut b, 2, &[]);
    let three = node(&mut b, 3, &[30]);
    let nodes = b.create_vector(&[two, three]);
    let label = b.create_string("tree");
    let s = Shapes::create(
        &mut b,
        &ShapesArgs {
            node: Some(one),
            nodes: Some(nodes),
            label: Some(label),
            grid: None,
        },
    );
    b.finish(s, None);
    let batch = convert(&[b.finished_data().to_vec()]);

    assert_eq!(
        batch.schema().field_with_name("node").unwrap().data_type(),
        &DataType::Binary
    );
    let node = batch
        .column_by_name("node")
        .unwrap()
        .as_binary::<i32>()
        .value(0);
    let node = flatbuffers::root::<Node<'_>>(node).unwrap();
    assert_eq!(node.value(), 1);
    let kids: Vec<i32> = node.children().unwrap().iter().map(|n| n.value()).collect();
    assert_eq!(kids, [10, 11]);

    let nodes = batch
        .column_by_name("nodes")
        .unwrap()
        .as_list::<i32>()
        .value(0);
    let nodes = nodes.as_binary::<i32>();
    let values: Vec<i32> = nodes
        .iter()
        .map(|n| flatbuffers::root::<Node<'_>>(n.unwrap()).unwrap().value())
        .collect();
    assert_eq!(values, [2, 3]);
    let three = flatbuffers::root::<Node<'_>>(nodes.value(1)).unwrap();
    assert_eq!(three.children().unwrap().get(0).value(), 30);
}
