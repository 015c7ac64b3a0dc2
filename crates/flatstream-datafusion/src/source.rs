//! [`FlatstreamSource`], the `FileSource` of a scan, and its `FileOpener`: one byte range of
//! one file in, record batches out.

use crate::error::Error;
use crate::options::ScanSpec;
use crate::range::{ByteSource, FrameRef, RangeReader, Sizes, StoreFile};
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::common::Result;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::datasource::listing::PartitionedFile;
use datafusion::datasource::physical_plan::{
    FileOpenFuture, FileOpener, FileScanConfig, FileSource,
};
use datafusion::datasource::projection::{ProjectionOpener, SplitProjection};
use datafusion::datasource::table_schema::TableSchema;
use datafusion::error::DataFusionError;
use datafusion::execution::object_store::ObjectStoreUrl;
use datafusion::physical_expr::projection::ProjectionExprs;
use datafusion::physical_plan::metrics::{Count, ExecutionPlanMetricsSet, MetricBuilder};
use datafusion::physical_plan::{DisplayFormatType, PhysicalExpr};
use flatstream_arrow::{Batcher, Plan};
use flatstream_checksum::{AnyChecksum, ChecksumKind, Detection, detect};
use flatstream_core::ChecksumDeframer;
use futures::StreamExt;
use object_store::ObjectStore;
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// The [`FileSource`] of a scan of flatstream files: the table's schema, the [`ScanSpec`] it
/// reads with, and the projection DataFusion pushed into it.
///
/// A physical codec (datafusion-distributed's workers) rebuilds it with
/// [`new`](Self::new) from the table schema and the spec (its
/// [`schema_bytes`](ScanSpec::schema_bytes) and [`options`](ScanSpec::options), given to
/// [`ScanSpec::new`]); the file groups, their byte ranges and the projection travel in the
/// `FileScanConfig`. It pushes no filter down:
/// there is none to carry.
#[derive(Clone)]
pub struct FlatstreamSource {
    table_schema: TableSchema,
    spec: ScanSpec,
    /// Whether the scan runs on a datafusion-distributed worker, whose errors reach the
    /// coordinator as text ([`Error::into_datafusion`]).
    remote: bool,
    projection: SplitProjection,
    batch_size: Option<usize>,
    metrics: ExecutionPlanMetricsSet,
}

impl fmt::Debug for FlatstreamSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FlatstreamSource")
            .field("spec", &self.spec)
            .field("file_columns", &self.projection.file_indices)
            .field("batch_size", &self.batch_size)
            .finish()
    }
}

impl FlatstreamSource {
    /// A source reading the table `table_schema` (the spec's
    /// [`file_schema`](flatstream_arrow::Plan::file_schema), plus any partition columns)
    /// with `spec`, every column projected.
    pub fn new(table_schema: impl Into<TableSchema>, spec: ScanSpec) -> Self {
        let table_schema = table_schema.into();
        FlatstreamSource {
            projection: SplitProjection::unprojected(&table_schema),
            table_schema,
            spec,
            batch_size: None,
            metrics: ExecutionPlanMetricsSet::new(),
            remote: false,
        }
    }

    /// This source as decoded on a datafusion-distributed worker: its errors about the data
    /// say so in a way that survives the trip to the coordinator ([`crate::is_damage`]).
    #[cfg(feature = "distributed")]
    pub(crate) fn on_worker(mut self) -> Self {
        self.remote = true;
        self
    }

    /// What the scan reads with.
    pub fn spec(&self) -> &ScanSpec {
        &self.spec
    }

    /// The columns of the file schema the scan converts, in order (the projection pushed
    /// down; the rest of it, such as partition columns, is applied on top).
    pub fn file_columns(&self) -> &[usize] {
        &self.projection.file_indices
    }
}

impl FileSource for FlatstreamSource {
    fn create_file_opener(
        &self,
        object_store: Arc<dyn ObjectStore>,
        base_config: &FileScanConfig,
        partition: usize,
    ) -> Result<Arc<dyn FileOpener>> {
        let mut batch_size = self.batch_size.unwrap_or(8192);
        if let Some(limit) = base_config.limit {
            // A LIMIT stops the scan after this many rows: no batch reads more frames.
            batch_size = batch_size.min(limit.max(1));
        }
        let plan = self
            .spec
            .plan()
            .with_projection(&self.projection.file_indices)
            .map_err(|e| DataFusionError::External(Box::new(Error::Schema(e))))?
            .with_batch_size(batch_size);
        let opener = Arc::new(FlatstreamOpener {
            plan,
            checksum: self.spec.checksum(),
            max_frame_len: self.spec.max_frame_len(),
            store: object_store,
            store_url: base_config.object_store_url.clone(),
            remote: self.remote,
            metrics: Metrics {
                skipped: MetricBuilder::new(&self.metrics).counter("skipped_frames", partition),
                bytes: MetricBuilder::new(&self.metrics).counter("bytes_scanned", partition),
                frames: MetricBuilder::new(&self.metrics).counter("frames_read", partition),
            },
        });
        ProjectionOpener::try_new(
            self.projection.clone(),
            opener,
            self.table_schema.file_schema(),
        )
    }

    fn table_schema(&self) -> &TableSchema {
        &self.table_schema
    }

    fn with_batch_size(&self, batch_size: usize) -> Arc<dyn FileSource> {
        let mut source = self.clone();
        source.batch_size = Some(batch_size);
        Arc::new(source)
    }

    fn projection(&self) -> Option<&ProjectionExprs> {
        Some(&self.projection.source)
    }

    fn try_pushdown_projection(
        &self,
        projection: &ProjectionExprs,
    ) -> Result<Option<Arc<dyn FileSource>>> {
        let mut source = self.clone();
        let merged = self.projection.source.try_merge(projection)?;
        source.projection = SplitProjection::new(self.table_schema.file_schema(), &merged);
        Ok(Some(Arc::new(source)))
    }

    fn metrics(&self) -> &ExecutionPlanMetricsSet {
        &self.metrics
    }

    fn file_type(&self) -> &str {
        "flatstream"
    }

    fn fmt_extra(&self, t: DisplayFormatType, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let checksum = self.spec.checksum().map_or("auto", ChecksumKind::name);
        match t {
            DisplayFormatType::TreeRender => {
                writeln!(f, "root_type={}", self.spec.plan().root_type())?;
                writeln!(f, "checksum={checksum}")
            }
            _ => write!(
                f,
                ", root_type={}, checksum={checksum}",
                self.spec.plan().root_type()
            ),
        }
    }

    /// A checksum-less stream cannot be cut anywhere but at 0 (see the crate docs): its files
    /// are not split. With a checksum, or detected per file: split, each range resynchronizing.
    fn supports_repartitioning(&self) -> bool {
        self.spec.checksum() != Some(ChecksumKind::None)
    }

    fn apply_expressions(
        &self,
        f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        datafusion::physical_plan::apply_expression_roots(self.projection.source.iter(), f)
    }
}

/// The counters of one partition's scan.
#[derive(Clone)]
struct Metrics {
    skipped: Count,
    bytes: Count,
    frames: Count,
}

/// Opens one byte range of one file: the framing (given or detected), the range reader, and
/// a stream of batches from its frames.
struct FlatstreamOpener {
    plan: Plan,
    checksum: Option<ChecksumKind>,
    max_frame_len: usize,
    store: Arc<dyn ObjectStore>,
    /// The store's URL, for the files' names in errors.
    store_url: ObjectStoreUrl,
    /// Whether errors go to a coordinator ([`Error::into_datafusion`]).
    remote: bool,
    metrics: Metrics,
}

impl FileOpener for FlatstreamOpener {
    fn open(&self, file: PartitionedFile) -> Result<FileOpenFuture> {
        let plan = self.plan.clone();
        let given = self.checksum;
        let max = self.max_frame_len;
        let metrics = self.metrics.clone();
        let remote = self.remote;
        let src = StoreFile {
            store: self.store.clone(),
            name: StoreFile::display_name(&self.store_url, &file.object_meta.location),
            location: file.object_meta.location.clone(),
            size: file.object_meta.size,
            read: Arc::new(AtomicU64::new(0)),
        };
        let range = match &file.range {
            Some(r) => u64::try_from(r.start).unwrap_or(0)..u64::try_from(r.end).unwrap_or(0),
            None => 0..file.object_meta.size,
        };
        Ok(Box::pin(async move {
            let opened = async {
                let kind = match given {
                    Some(kind) => kind,
                    None => detect_framing(&src, max).await?,
                };
                let checksum = AnyChecksum::new(kind).map_err(|e| Error::ChecksumUnavailable {
                    kind: kind.name().to_owned(),
                    reason: e.to_string(),
                })?;
                let deframer = ChecksumDeframer::new(checksum);
                RangeReader::open(src, range, deframer, max, Sizes::SCAN).await
            };
            let reader = opened.await.map_err(|e| e.into_datafusion(remote))?;
            let state = Scan {
                reader,
                batcher: Batcher::new(plan.converter()),
                metrics,
                skipped: 0,
                counted: 0,
                remote,
            };
            Ok(futures::stream::unfold(state, Scan::next_batch).boxed())
        }))
    }
}

/// The framing of the file `src`, told from its leading bytes by the rule of `flatstream
/// inspect` ([`detect`]), so that the command line and SQL agree on every file: as many
/// leading bytes as detection asks for (a first frame larger than its first 64 KiB is read
/// whole), and the same ones the command line reads. Every partition of a file detects it
/// from the same bytes, so all read with the same framing.
async fn detect_framing<S: ByteSource>(src: &S, max: usize) -> Result<ChecksumKind, Error> {
    let size = src.len();
    let mut head = Vec::new();
    let mut want: u64 = 0;
    loop {
        // The first `want` bytes, or all of a shorter file; only what is not held yet is read.
        let end = want.min(size);
        if (head.len() as u64) < end {
            head.extend_from_slice(&src.read(head.len() as u64..end).await?);
        }
        match detect(&head, size <= want, max) {
            Detection::NeedMore { len } => want = len as u64,
            detection => {
                return detection.kind().ok_or_else(|| Error::Framing {
                    path: src.name().to_owned(),
                    why: detection.to_string(),
                });
            }
        }
    }
}

/// The state of one range's stream of batches.
struct Scan {
    reader: RangeReader<StoreFile>,
    /// The converter, and the error met after some rows (reported after their batch).
    batcher: Batcher<Error>,
    metrics: Metrics,
    /// The converter's skipped count already added to the metric.
    skipped: u64,
    /// The bytes read already added to the metric.
    counted: u64,
    /// Whether errors go to a coordinator ([`Error::into_datafusion`]).
    remote: bool,
}

impl Scan {
    /// Converts `frame`'s payload into the batch being built.
    #[inline]
    fn append(&mut self, frame: FrameRef) -> Result<(), Error> {
        let payload = &self.reader.bytes()[frame.payload];
        match self.batcher.converter_mut().append(frame.offset, payload) {
            Ok(_) => Ok(()),
            Err(source) => Err(Error::Convert {
                path: self.reader.name().to_owned(),
                source,
            }),
        }
    }

    /// The next batch: up to the plan's batch size of rows, converted from the frames that
    /// follow; `None` at the end of the range.
    async fn next_batch(mut self) -> Option<(Result<RecordBatch>, Self)> {
        if !self.batcher.is_done() {
            let size = self.batcher.converter().plan().batch_size();
            // Counted here and added to the metric (an atomic) once per batch.
            let mut frames = 0;
            while self.batcher.converter().len() < size {
                // The frames already read, without an await (and without moving each one
                // through this future's state); then the reader's async way. The two arms stay
                // apart: joined into one `Result` of a frame before one append,
                // sql/flatstream-1 took 2.24 s in a run where this code took 1.66 s in another
                // (NDJSON 3.68/3.39).
                let failed = if let Some(frame) = self.reader.next_buffered() {
                    frames += 1;
                    match self.append(frame) {
                        Ok(()) => continue,
                        Err(e) => e,
                    }
                } else {
                    match self.reader.next().await {
                        Ok(Some(frame)) => {
                            frames += 1;
                            match self.append(frame) {
                                Ok(()) => continue,
                                Err(e) => e,
                            }
                        }
                        Ok(None) => {
                            self.batcher.end();
                            break;
                        }
                        Err(e) => e,
                    }
                };
                self.batcher.fail(failed);
                break;
            }
            self.metrics.frames.add(frames);
            // Every byte read for this range: detection, resynchronization, frames.
            let read = self.reader.source().read.load(Ordering::Relaxed);
            self.metrics
                .bytes
                .add(usize::try_from(read - self.counted).unwrap_or(usize::MAX));
            self.counted = read;
            let skipped = self.batcher.converter().skipped();
            self.metrics
                .skipped
                .add(usize::try_from(skipped - self.skipped).unwrap_or(usize::MAX));
            self.skipped = skipped;
        }
        let reader = &self.reader;
        let item = self.batcher.next_batch(|source| Error::Convert {
            path: reader.name().to_owned(),
            source,
        })?;
        let remote = self.remote;
        Some((item.map_err(|e| e.into_datafusion(remote)), self))
    }
}

/// The source of a format whose options were wrong (no schema, say): opening a file with it
/// fails with that error.
pub(crate) fn unconfigured(
    table_schema: TableSchema,
    error: Arc<DataFusionError>,
) -> Arc<dyn FileSource> {
    Arc::new(Unconfigured {
        table_schema,
        error,
        metrics: ExecutionPlanMetricsSet::new(),
    })
}

#[derive(Clone)]
struct Unconfigured {
    table_schema: TableSchema,
    error: Arc<DataFusionError>,
    metrics: ExecutionPlanMetricsSet,
}

impl FileSource for Unconfigured {
    fn create_file_opener(
        &self,
        _object_store: Arc<dyn ObjectStore>,
        _base_config: &FileScanConfig,
        _partition: usize,
    ) -> Result<Arc<dyn FileOpener>> {
        Err(DataFusionError::Shared(self.error.clone()))
    }

    fn table_schema(&self) -> &TableSchema {
        &self.table_schema
    }

    fn with_batch_size(&self, _batch_size: usize) -> Arc<dyn FileSource> {
        Arc::new(self.clone())
    }

    fn metrics(&self) -> &ExecutionPlanMetricsSet {
        &self.metrics
    }

    fn file_type(&self) -> &str {
        "flatstream"
    }

    fn apply_expressions(
        &self,
        _f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::range::MemoryFile;
    use flatstream_core::{ChecksumFramer, StreamWriter};
    use futures::executor::block_on;

    #[test]
    fn a_first_frame_past_any_fixed_head_is_detected() {
        for kind in ChecksumKind::ALL {
            let checksum = AnyChecksum::new(kind).unwrap();
            let mut writer = StreamWriter::new(Vec::new(), ChecksumFramer::new(checksum));
            writer.write_payload(&vec![7u8; 3 << 20]).unwrap();
            writer.write_payload(b"second").unwrap();
            let file = MemoryFile {
                bytes: writer.into_inner().into(),
                name: "large.fs".to_owned(),
            };
            let found = block_on(detect_framing(&file, 1 << 30));
            assert_eq!(found.unwrap(), kind, "{kind}");
            // Under a bound the first frame exceeds, no framing reads it: an error that says so.
            let err = block_on(detect_framing(&file, 1 << 20)).unwrap_err();
            assert!(
                err.to_string()
                    .contains("no framing reads the leading frames"),
                "{kind}: {err}"
            );
        }
    }
}
