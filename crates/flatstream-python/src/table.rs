//! Captures as Arrow: the batches under `read_batches` (a `pyarrow.RecordBatchReader`) and
//! `read_table` (those batches read whole), through flatstream-arrow's plan and converter.
//! The reading and converting of each batch run with the GIL released.

use crate::errors::{arrow_error, frame_error, schema_error, value_error};
use crate::source::{Checksum, DEFAULT_MAX_FRAME_LEN, Frames, Opened};
use arrow_pyarrow::ToPyArrow;
use flatstream::arrow::arrow_array::RecordBatch;
use flatstream::arrow::{BinarySchema, Converter, Enums, OFFSET_COLUMN, Options, Plan};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::path::PathBuf;

/// What stopped a scan, kept apart from Python until the GIL is held again.
enum Failure {
    Frame(String, flatstream::Error),
    Arrow(String, flatstream::arrow::Error),
    Py(PyErr),
}

impl From<Failure> for PyErr {
    fn from(failure: Failure) -> PyErr {
        match failure {
            Failure::Frame(name, e) => frame_error(&name, e),
            Failure::Arrow(name, e) => arrow_error(&name, e),
            Failure::Py(e) => e,
        }
    }
}

/// The schema argument: a `.bfbs` path, or its bytes.
pub(crate) fn load_schema(schema: &Bound<'_, PyAny>) -> PyResult<BinarySchema> {
    let loaded = if let Ok(bytes) = schema.cast::<PyBytes>() {
        BinarySchema::from_bytes(bytes.as_bytes().to_vec())
    } else {
        let path: PathBuf = schema
            .extract()
            .map_err(|_| value_error("schema: expected the path of a .bfbs file, or its bytes"))?;
        BinarySchema::load(path)
    };
    loaded.map_err(|e| arrow_error("schema", e))
}

/// The plan `read_table`'s arguments ask for.
#[allow(clippy::too_many_arguments)]
pub(crate) fn plan(
    schema: &Bound<'_, PyAny>,
    columns: Option<Vec<String>>,
    root_type: Option<String>,
    enums: &str,
    offset_column: bool,
    skip_invalid: bool,
    batch_size: Option<usize>,
) -> PyResult<Plan> {
    let schema = load_schema(schema)?;
    let mut options = Options::new();
    if let Some(root) = root_type {
        if root.is_empty() {
            return Err(value_error("root_type: expected a table's name, not \"\""));
        }
        options.root_type(root);
    }
    options.enums(match enums {
        "names" => Enums::Names,
        "integers" => Enums::Integers,
        _ => {
            return Err(value_error(format!(
                "enums={enums:?}: expected \"names\" or \"integers\""
            )));
        }
    });
    let offset = offset_column
        || columns
            .as_ref()
            .is_some_and(|c| c.iter().any(|c| c == OFFSET_COLUMN));
    options.offset_column(offset).skip_invalid(skip_invalid);
    if let Some(rows) = batch_size {
        if rows == 0 {
            return Err(value_error("batch_size: expected at least 1 row"));
        }
        options.batch_size(rows);
    }
    let plan = Plan::new(&schema, &options).map_err(schema_error)?;
    match columns {
        Some(columns) => plan.with_projection_names(&columns).map_err(schema_error),
        None => Ok(plan),
    }
}

/// The batches of the frames of several files, one file after the other, each file's framing
/// given or detected. Memory is bounded by the largest frame and one batch of rows.
#[pyclass(module = "flatstream")]
pub(crate) struct Batches {
    paths: std::vec::IntoIter<PathBuf>,
    checksum: Checksum,
    max: usize,
    /// The name of the file read last (the one being read, if any).
    name: String,
    /// The frames of the file being read.
    current: Option<Frames>,
    converter: Converter,
    /// An error met after rows that are not yet returned: raised on the next call.
    failed: Option<Failure>,
}

impl Batches {
    pub(crate) fn new(
        paths: Vec<PathBuf>,
        plan: &Plan,
        checksum: &str,
        max_frame_len: Option<usize>,
    ) -> PyResult<Batches> {
        if paths.is_empty() {
            return Err(value_error("no paths to read"));
        }
        Ok(Batches {
            paths: paths.into_iter(),
            checksum: Checksum::parse(checksum)?,
            max: max_frame_len.unwrap_or(DEFAULT_MAX_FRAME_LEN),
            name: String::new(),
            current: None,
            converter: plan.converter(),
            failed: None,
        })
    }

    /// The next batch of rows, `None` at the end. An error after some rows comes after the
    /// batch of those rows.
    fn next_batch(&mut self) -> Result<Option<RecordBatch>, Failure> {
        if let Some(failure) = self.failed.take() {
            return Err(failure);
        }
        match self.fill() {
            Ok(()) if self.converter.is_empty() => Ok(None),
            Ok(()) => self.finish().map(Some),
            Err(failure) if self.converter.is_empty() => Err(failure),
            Err(failure) => {
                self.failed = Some(failure);
                self.finish().map(Some)
            }
        }
    }

    /// Appends frames until a batch is full or the last file ends.
    fn fill(&mut self) -> Result<(), Failure> {
        let batch = self.converter.plan().batch_size();
        loop {
            let (name, frames) = match &mut self.current {
                Some(frames) => (&self.name, frames),
                None => {
                    let Some(path) = self.paths.next() else {
                        return Ok(());
                    };
                    let opened =
                        Opened::path(&path, self.checksum, self.max).map_err(Failure::Py)?;
                    self.name.clone_from(&opened.name);
                    let frames = opened.frames(self.max).map_err(Failure::Py)?;
                    (&self.name, self.current.insert(frames))
                }
            };
            loop {
                let offset = frames.position();
                match frames.read_message() {
                    Ok(Some(payload)) => {
                        self.converter
                            .append(offset, payload)
                            .map_err(|e| Failure::Arrow(name.clone(), e))?;
                        if self.converter.len() >= batch {
                            return Ok(());
                        }
                    }
                    Ok(None) => break,
                    Err(e) => return Err(Failure::Frame(name.clone(), e)),
                }
            }
            self.current = None;
        }
    }

    fn finish(&mut self) -> Result<RecordBatch, Failure> {
        self.converter
            .finish()
            .map_err(|e| Failure::Arrow(self.name.clone(), e))
    }

    /// The schema of the batches.
    pub(crate) fn arrow_schema(&self) -> flatstream::arrow::arrow_schema::SchemaRef {
        self.converter.plan().schema().clone()
    }
}

#[pymethods]
impl Batches {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        match py.detach(|| self.next_batch()).map_err(PyErr::from)? {
            Some(batch) => Ok(Some(batch.to_pyarrow(py)?)),
            None => Ok(None),
        }
    }

    /// The `pyarrow.Schema` of the batches.
    #[getter]
    fn schema<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.arrow_schema().as_ref().to_pyarrow(py)
    }

    /// Frames skipped as invalid so far (with `skip_invalid=True`).
    #[getter]
    fn skipped(&self) -> u64 {
        self.converter.skipped()
    }
}
