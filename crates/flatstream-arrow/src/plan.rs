//! [`Plan`] and [`Converter`]: a schema compiled once, and frames appended to its projected
//! columns. [`Plan::convert`] and its iterator, [`Batches`](crate::Batches), are in
//! `batcher.rs`, beside the rule that ends a stream of batches.

use crate::column::{Slot, TableCol};
use crate::compile::{self, Compiler};
use crate::error::{Error, Result};
use crate::options::Options;
use crate::schema::BinarySchema;
use arrow_array::builder::PrimitiveBuilder;
use arrow_array::types::UInt64Type;
use arrow_array::{ArrayRef, RecordBatch, RecordBatchOptions};
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef};
use flatstream_reflect::Verifier;
use std::sync::Arc;

/// How many nested types (columns, struct and list fields) a plan may hold: a table whose type
/// unfolds into more is refused ([`Error::Unsupported`]).
pub const MAX_TYPES: usize = 10_000;

/// The name of the column holding each row's frame offset ([`Options::offset_column`]).
pub const OFFSET_COLUMN: &str = "_offset";

/// A schema and root table compiled for conversion, with a projection. Compile it once, then
/// make a [`Converter`] per stream or per byte range (`Plan` is `Send + Sync` and cheap to
/// clone: an `Arc` inside).
///
/// The columns are the root table's fields in declaration order (a union's `_type` field is
/// the `type` member of the union's column, not a column of its own), then
/// [`OFFSET_COLUMN`] if [`Options::offset_column`] is on: [`file_schema`](Self::file_schema).
/// A projection picks and orders some of them: [`schema`](Self::schema).
///
/// [`new`](Self::new) compiles every column, and the verification of every field; a
/// projection, a batch size and a converter compile nothing: a converter is the projected
/// columns with empty builders.
#[derive(Clone, Debug)]
pub struct Plan {
    inner: Arc<Inner>,
    projection: Arc<[usize]>,
    schema: SchemaRef,
    batch_size: usize,
    /// The verification of the fields the projection reads (every field with
    /// [`Options::verify_unread`]), made once per projection.
    verifier: Verifier,
}

#[derive(Debug)]
struct Inner {
    root_name: String,
    options: Options,
    /// The verification of a whole frame (a recursive table's column copies the payload:
    /// counted against the frame's budget).
    verifier: Verifier,
    /// The root table compiled: one child per field column, where each is read, and its
    /// builders, empty. A converter copies the projected ones with builders of its own.
    columns: TableCol,
    file_schema: SchemaRef,
}

impl Plan {
    /// Compiles `schema` for frames of `options`' root type (by default the schema's own).
    ///
    /// Fails if the root type is not a table of the schema, or a field (reachable without
    /// passing through a recursive table) has a type that cannot be converted.
    pub fn new(schema: &BinarySchema, options: &Options) -> Result<Plan> {
        let (root, bytes) = schema.rooted(options.root_type.as_deref())?;
        let reflection = bytes.schema();
        let recursive = compile::recursive_tables(&reflection);
        let verifier = Verifier::new(&reflection, root)?.copying(&recursive);
        let root_name = reflection.objects().get(root).name().to_owned();
        // A schema's tables can share types: 40 tables each holding the next twice are a
        // small schema and an Arrow type of 2^40 fields.
        let types = flatstream_reflect::unfolded_size(&reflection, root);
        if types > MAX_TYPES {
            return Err(Error::Unsupported {
                path: root_name,
                what: format!(
                    "a table whose type unfolds into {} nested types (more than {MAX_TYPES})",
                    if types == usize::MAX {
                        "more than 2^64".to_owned()
                    } else {
                        types.to_string()
                    }
                ),
            });
        }
        let mut compiler = Compiler::new(reflection, options.enums, &recursive);
        let columns = compiler.table(root, false, "")?;
        let mut fields: Vec<Field> = columns.fields.iter().map(|f| f.as_ref().clone()).collect();
        if options.offset_column {
            if fields.iter().any(|f| f.name() == OFFSET_COLUMN) {
                return Err(Error::OffsetColumnTaken {
                    name: OFFSET_COLUMN.to_owned(),
                });
            }
            fields.push(Field::new(OFFSET_COLUMN, DataType::UInt64, false));
        }
        let file_schema = Arc::new(Schema::new(fields));
        let inner = Arc::new(Inner {
            root_name,
            options: options.clone(),
            verifier,
            columns,
            file_schema: file_schema.clone(),
        });
        let projection: Arc<[usize]> = (0..file_schema.fields().len()).collect();
        let verifier = inner.verification(&projection);
        Ok(Plan {
            inner,
            projection,
            schema: file_schema,
            batch_size: options.batch_size,
            verifier,
        })
    }

    /// The schema of every column, before projection: what a table of these frames holds.
    pub fn file_schema(&self) -> &SchemaRef {
        &self.inner.file_schema
    }

    /// The schema of the batches this plan makes: the projected columns, in projection order.
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// The projection: indices into [`file_schema`](Self::file_schema).
    pub fn projection(&self) -> &[usize] {
        &self.projection
    }

    /// The full name of the table frames hold (`fleet.Robot`).
    pub fn root_type(&self) -> &str {
        &self.inner.root_name
    }

    /// The options the plan was compiled with.
    pub fn options(&self) -> &Options {
        &self.inner.options
    }

    /// The rows of a batch of [`convert`](Self::convert) (the last may have fewer).
    pub fn batch_size(&self) -> usize {
        self.batch_size
    }

    /// This plan with batches of `rows` rows (at least 1), as a scan asks.
    pub fn with_batch_size(&self, rows: usize) -> Plan {
        Plan {
            batch_size: rows.max(1),
            ..self.clone()
        }
    }

    /// This plan reading only the columns `columns` (indices into
    /// [`file_schema`](Self::file_schema)), in that order. Fields projected out are never
    /// read, and no builder is made for them. An empty projection gives batches with rows and
    /// no columns (what `SELECT count(*)` asks for).
    pub fn with_projection(&self, columns: &[usize]) -> Result<Plan> {
        let all = self.inner.file_schema.fields();
        if let Some(&index) = columns.iter().find(|&&i| i >= all.len()) {
            return Err(Error::ColumnOutOfRange {
                index,
                columns: all.len(),
            });
        }
        let schema = Arc::new(self.inner.file_schema.project(columns)?);
        let verifier = self.inner.verification(columns);
        Ok(Plan {
            inner: self.inner.clone(),
            projection: columns.into(),
            schema,
            batch_size: self.batch_size,
            verifier,
        })
    }

    /// [`with_projection`](Self::with_projection) by column names.
    pub fn with_projection_names<S: AsRef<str>>(&self, names: &[S]) -> Result<Plan> {
        let schema = &self.inner.file_schema;
        let columns = names
            .iter()
            .map(|name| {
                schema
                    .index_of(name.as_ref())
                    .map_err(|_| Error::UnknownColumn {
                        name: name.as_ref().to_owned(),
                        columns: schema
                            .fields()
                            .iter()
                            .map(|f| f.name().as_str())
                            .collect::<Vec<_>>()
                            .join(", "),
                    })
            })
            .collect::<Result<Vec<_>>>()?;
        self.with_projection(&columns)
    }

    /// A converter: frames appended one at a time, a batch taken when wanted. It compiles
    /// nothing: it makes empty builders for the projected columns.
    pub fn converter(&self) -> Converter {
        let compiled = &self.inner.columns;
        let mut slots = Vec::new();
        let mut children = Vec::new();
        let order = self
            .projection
            .iter()
            .map(|&column| {
                // The columns past the fields' are the offset column.
                match (compiled.places.get(column), compiled.children.get(column)) {
                    (Some(&slot), Some(col)) => {
                        slots.push(slot);
                        children.push(compile::fresh(col));
                        Out::Field(children.len() - 1)
                    }
                    _ => Out::Offset,
                }
            })
            .collect::<Vec<_>>();
        let offsets = order
            .iter()
            .any(|o| matches!(o, Out::Offset))
            .then(PrimitiveBuilder::new);
        Converter {
            plan: self.clone(),
            verifier: self.verifier.clone(),
            root: TableCol::new(Fields::empty(), slots, children, false),
            order,
            offsets,
            rows: 0,
            skipped: 0,
            poisoned: None,
        }
    }
}

impl Inner {
    /// The verification of a projection's frames: the whole frame if the projection reads
    /// every field or [`Options::verify_unread`] is on, else the fields it reads.
    fn verification(&self, projection: &[usize]) -> Verifier {
        let fields = self.columns.places.len();
        let reads_every_field = (0..fields).all(|c| projection.contains(&c));
        if self.options.verify_unread || reads_every_field {
            return self.verifier.clone();
        }
        let read: Vec<u16> = projection
            .iter()
            .filter_map(|&c| self.columns.places.get(c))
            .flat_map(|slot| match *slot {
                Slot::Field(slot) => [Some(slot), None],
                Slot::Union { tag, value } => [Some(tag), Some(value)],
            })
            .flatten()
            .collect();
        self.verifier.reading(&read)
    }
}

#[derive(Debug, Clone, Copy)]
enum Out {
    Field(usize),
    Offset,
}

/// Verifies frames and appends their rows to the projected columns; [`finish`](Self::finish)
/// takes the rows as a [`RecordBatch`]. Made by [`Plan::converter`].
///
/// This is the piece a scan drives: for each frame of its byte range, `append(offset,
/// payload)`; when [`len`](Self::len) reaches the batch size, `finish()`.
#[derive(Debug)]
pub struct Converter {
    plan: Plan,
    /// The verification of the fields this converter reads (all of them with
    /// [`Options::verify_unread`]).
    verifier: Verifier,
    root: TableCol,
    order: Vec<Out>,
    offsets: Option<PrimitiveBuilder<UInt64Type>>,
    rows: usize,
    skipped: u64,
    poisoned: Option<u64>,
}

impl Converter {
    /// Verifies `payload`, the payload of the frame at byte `offset`, against the schema and
    /// appends its row. Returns `Ok(false)` if it failed verification and
    /// [`Options::skip_invalid`] is on (it is counted in [`skipped`](Self::skipped)).
    ///
    /// # Errors
    /// [`Error::InvalidFrame`] if the payload fails verification (and invalid frames are not
    /// skipped): nothing is appended. [`Error::Read`] if a verified payload cannot be read
    /// (a bug); the converter then refuses every further call with [`Error::Poisoned`].
    pub fn append(&mut self, offset: u64, payload: &[u8]) -> Result<bool> {
        if let Some(offset) = self.poisoned {
            return Err(Error::Poisoned { offset });
        }
        if let Err(reason) = self.verify(payload) {
            if self.plan.inner.options.skip_invalid {
                self.skipped += 1;
                return Ok(false);
            }
            return Err(Error::InvalidFrame {
                offset,
                table: self.plan.inner.root_name.clone(),
                reason,
            });
        }
        let read = flatstream_reflect::read::root(payload).and_then(|root| {
            if self.root.children.is_empty() {
                Ok(())
            } else {
                self.root.append_at(payload, root)
            }
        });
        if let Err(reason) = read {
            self.poisoned = Some(offset);
            return Err(Error::Read { offset, reason });
        }
        if let Some(offsets) = &mut self.offsets {
            offsets.append_value(offset);
        }
        self.rows += 1;
        Ok(true)
    }

    /// Verification of the fields this converter reads (unless [`Options::verify_unread`]):
    /// a payload whose faults are all in other fields passes.
    fn verify(&mut self, payload: &[u8]) -> std::result::Result<(), String> {
        self.verifier.verify(payload).map_err(|e| e.to_string())
    }

    /// The rows appended since the last [`finish`](Self::finish).
    pub fn len(&self) -> usize {
        self.rows
    }

    /// Whether no row was appended since the last [`finish`](Self::finish).
    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// The frames skipped as invalid so far (with [`Options::skip_invalid`]), over the
    /// converter's life.
    pub fn skipped(&self) -> u64 {
        self.skipped
    }

    /// Whether a verified payload could not be read ([`Error::Read`]): the converter
    /// refuses every further call.
    pub(crate) fn is_poisoned(&self) -> bool {
        self.poisoned.is_some()
    }

    /// The plan this converter follows.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// Takes the rows appended since the last call as a batch of the plan's
    /// [`schema`](Plan::schema) (possibly of 0 rows).
    pub fn finish(&mut self) -> Result<RecordBatch> {
        if let Some(offset) = self.poisoned {
            return Err(Error::Poisoned { offset });
        }
        let mut fields = self.root.finish_columns()?;
        let mut offsets = self
            .offsets
            .as_mut()
            .map(|b| Arc::new(b.finish()) as ArrayRef);
        let columns: Vec<ArrayRef> = self
            .order
            .iter()
            .map(|out| match *out {
                Out::Field(i) => std::mem::replace(&mut fields[i], empty()),
                Out::Offset => offsets.clone().unwrap_or_else(empty),
            })
            .collect();
        offsets.take();
        let rows = std::mem::take(&mut self.rows);
        Ok(RecordBatch::try_new_with_options(
            self.plan.schema.clone(),
            columns,
            &RecordBatchOptions::new().with_row_count(Some(rows)),
        )?)
    }
}

fn empty() -> ArrayRef {
    Arc::new(arrow_array::NullArray::new(0))
}
