//! The `flatstream` Python package's native module, `flatstream._flatstream`.
//!
//! A flatstream capture is FlatBuffers laid end to end, each framed with its length and an
//! optional checksum:
//!
//! ```text
//! +------------+----------------------------+------------------------+
//! | len: u32 LE| checksum: 0, 2, 4, 8 bytes | payload: one FlatBuffer | next frame...
//! +------------+----------------------------+------------------------+
//! ```
//!
//! This crate gives Python what the Rust crates have: captures as pyarrow tables and
//! record-batch readers through a `.bfbs` schema (flatstream-arrow's converter, with the GIL
//! released), raw frames in and out (`Reader`, `Writer`), and the command's tools (`inspect`,
//! `verify`, `salvage`), with errors as one hierarchy of exceptions. The package around it
//! (`python/flatstream/`) expands paths, directories and globs and holds the type stubs; its
//! README has the examples:
//!
//! ```python
//! import flatstream
//!
//! table = flatstream.read_table("demo.fstream", schema="examples/telemetry.bfbs")
//! print(table.group_by("device_id").aggregate([("value", "mean")]))
//! ```
//!
//! It is built by maturin (`pip install ./crates/flatstream-python`) and tested by pytest
//! (`crates/flatstream-python/tests`).

// pyo3's macros expand to `unsafe` blocks (the C API), in code of their own.
#![allow(unsafe_code)]

mod errors;
mod frames;
mod source;
mod table;
mod tools;

use pyo3::prelude::*;
use std::path::PathBuf;

/// The batches of the streams at `paths`, one at a time: what the package's `read_batches`
/// wraps in a `pyarrow.RecordBatchReader` (and `read_table` reads whole).
#[pyfunction]
#[pyo3(signature = (paths, schema, columns = None, root_type = None, checksum = "auto",
    enums = "names", offset_column = false, skip_invalid = false, batch_size = None,
    max_frame_len = None))]
#[allow(clippy::too_many_arguments)]
fn batches(
    paths: Vec<PathBuf>,
    schema: &Bound<'_, PyAny>,
    columns: Option<Vec<String>>,
    root_type: Option<String>,
    checksum: &str,
    enums: &str,
    offset_column: bool,
    skip_invalid: bool,
    batch_size: Option<usize>,
    max_frame_len: Option<usize>,
) -> PyResult<table::Batches> {
    let plan = table::plan(
        schema,
        columns,
        root_type,
        enums,
        offset_column,
        skip_invalid,
        batch_size,
    )?;
    table::Batches::new(paths, &plan, checksum, max_frame_len)
}

/// What the stream at `path` holds: its checksum (detected, or `checksum`), its intact frames
/// and bytes, and its first damage, if any (`report.damage`). Returns a `Report`.
#[pyfunction]
#[pyo3(signature = (path, checksum = "auto", max_frame_len = None))]
fn inspect(
    py: Python<'_>,
    path: PathBuf,
    checksum: &str,
    max_frame_len: Option<usize>,
) -> PyResult<tools::Report> {
    tools::inspect(py, path, checksum, max_frame_len)
}

/// Verifies every frame of the stream at `path` (its checksum and length) and, with a
/// `schema` (a `.bfbs` path or its bytes), every payload against it.
///
/// Stops at the first damage; with `all`, goes past each damage as `salvage` does and lists
/// every damaged range. `report.ok` (or `bool(report)`) says whether the stream is whole;
/// `report.damage` lists the `Damage` found. The file is memory-mapped and read with the GIL
/// released.
#[pyfunction]
#[pyo3(signature = (path, schema = None, all = false, root_type = None, checksum = "auto",
    max_frame_len = None))]
fn verify(
    py: Python<'_>,
    path: PathBuf,
    schema: Option<&Bound<'_, PyAny>>,
    all: bool,
    root_type: Option<String>,
    checksum: &str,
    max_frame_len: Option<usize>,
) -> PyResult<tools::Report> {
    let plan = schema
        .map(|schema| table::plan(schema, None, root_type, "names", false, false, None))
        .transpose()?;
    tools::verify(py, path, plan, all, checksum, max_frame_len)
}

/// Writes every intact frame of the stream at `src` to a new stream at `dst`, in the same
/// framing, skipping the damaged bytes. `dst` appears only once complete. Returns a
/// `SalvageReport`.
#[pyfunction]
#[pyo3(signature = (src, dst, checksum = "auto", max_frame_len = None))]
fn salvage(
    py: Python<'_>,
    src: PathBuf,
    dst: PathBuf,
    checksum: &str,
    max_frame_len: Option<usize>,
) -> PyResult<tools::SalvageReport> {
    tools::salvage(py, src, dst, checksum, max_frame_len)
}

/// The native module.
#[pymodule]
fn _flatstream(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(m)?;
    m.add_class::<frames::Reader>()?;
    m.add_class::<frames::Writer>()?;
    m.add_class::<table::Batches>()?;
    m.add_class::<tools::Report>()?;
    m.add_class::<tools::Damage>()?;
    m.add_class::<tools::SalvageReport>()?;
    m.add_function(wrap_pyfunction!(batches, m)?)?;
    m.add_function(wrap_pyfunction!(inspect, m)?)?;
    m.add_function(wrap_pyfunction!(verify, m)?)?;
    m.add_function(wrap_pyfunction!(salvage, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
