//! flatstream scans on [datafusion-distributed]: the physical codec that carries a scan to the
//! workers, and the one call that puts it on a session.
//!
//! A distributed query is planned on a coordinator and run by workers: the coordinator cuts
//! each file into byte ranges, gives each task its ranges, and sends each task its part of the
//! plan as protobuf. DataFusion's own encoding knows its built-in formats only; a flatstream
//! scan travels through [`FlatstreamCodec`], which must be registered **on both sides**:
//!
//! ```no_run
//! use flatstream::sql::datafusion::execution::SessionStateBuilder;
//! use flatstream::sql::datafusion::prelude::SessionContext;
//! use flatstream::sql::distributed::FlatstreamDistributedExt;
//! use flatstream::sql::distributed::datafusion_distributed::{
//!     SessionStateBuilderExt, Worker, WorkerQueryContext,
//! };
//!
//! // The coordinator: plans, sends the scans.
//! let state = SessionStateBuilder::new()
//!     .with_default_features()
//!     .with_distributed_planner()
//!     // .with_distributed_worker_resolver(…): where the workers are
//!     .with_flatstream_codec()
//!     .build();
//! let ctx = SessionContext::from(state);
//!
//! // Each worker: decodes the scans it is sent.
//! let worker = Worker::from_session_builder(|ctx: WorkerQueryContext| async move {
//!     Ok(ctx.builder.with_flatstream_codec().build())
//! });
//! ```
//!
//! Forgetting it on a worker fails the query at once, with datafusion-proto's decoding error
//! "Internal error: Can't find required codec in codec list" (which calls itself a DataFusion
//! bug; it is this missing registration). Forgetting it on the coordinator would, in
//! datafusion-distributed 4.0, fail the query only after 10 seconds, with "Worker::execute_task
//! timed-out while waiting for the plan to be set by the coordinator" and the encoding error
//! lost; so a flatstream table planned in a distributed session without the codec fails at
//! planning instead, with an error that names
//! [`with_flatstream_codec`](FlatstreamDistributedExt::with_flatstream_codec).
//!
//! [`ClusterConfig`] is the rest of a cluster: [`ClusterChannels`] for the calls to the workers
//! (HTTP/2 keepalive, a deadline per task, a shared token, TLS), [`ClusterConfig::worker`] and
//! [`ClusterConfig::serve`] for a worker that checks the token and reports each task, and
//! [`failed_workers`] to tell, from a query's error, which workers to leave out of the next
//! attempt. `flatstream worker` and `flatstream query --workers` are built on them.
//!
//! Every worker reads its byte ranges itself, from the table's location: a path that is the
//! same on every machine, or object storage registered in each worker's runtime
//! (`Worker::with_runtime_env`). The schema travels in the plan: workers need no copy of the
//! `.bfbs` file.
//!
//! [datafusion-distributed]: https://github.com/datafusion-contrib/datafusion-distributed

use std::sync::Arc;

/// The datafusion-distributed crate (4.0) this codec is for: its `Worker`, resolvers and
/// session extensions.
pub use datafusion_distributed;

mod cluster;
mod explain;
mod failure;
mod stores;
mod worker;

pub use cluster::{
    ClusterChannels, ClusterConfig, ClusterError, TlsFiles, WorkerList, route_tasks, task_worker,
};
pub use explain::{explain, runs_on_workers};
pub use failure::{WorkerFailure, failed_workers};
pub use stores::CloudStores;
pub use worker::{TaskReport, WorkerEvent, WorkerEvents};

use datafusion::common::{Result, exec_datafusion_err, plan_err};
use datafusion::datasource::physical_plan::{FileScanConfig, FileSource};
use datafusion::datasource::source::DataSourceExec;
use datafusion::execution::TaskContext;
use datafusion::physical_plan::ExecutionPlan;
use datafusion::prelude::SessionConfig;
use datafusion_distributed::{DistributedCodec, DistributedConfig, DistributedExt};
use datafusion_proto::physical_plan::from_proto::parse_protobuf_file_scan_config;
use datafusion_proto::physical_plan::to_proto::serialize_file_scan_config;
use datafusion_proto::physical_plan::{
    PhysicalExtensionCodec, PhysicalPlanDecodeContext, PhysicalProtoConverterExtension,
};
use datafusion_proto::protobuf;
use prost::Message;

use crate::options::SpecMessage;
use crate::{FlatstreamSource, ScanSpec};

/// The [`PhysicalExtensionCodec`] of a flatstream scan: a `DataSourceExec` whose
/// `FileScanConfig` has a [`FlatstreamSource`].
///
/// It carries the file groups with their byte ranges, the projection, the limit, the batch
/// size and the statistics (datafusion-proto's `FileScanExecConf`), and the scan's
/// [`ScanSpec`]: the binary schema's bytes and every [`FlatstreamOptions`](crate::FlatstreamOptions)
/// but the schema's path, each by its key. A [`FlatstreamSource`] pushes no filter down, so
/// there is none to carry. Any other plan node is left to the next codec.
///
/// Both ends should run the same version of this crate: a worker refuses an option it does
/// not know, naming it.
/// Register it with [`FlatstreamDistributedExt::with_flatstream_codec`].
#[derive(Debug, Clone, Copy, Default)]
pub struct FlatstreamCodec;

/// What [`FlatstreamCodec`] writes for one scan.
#[derive(Clone, PartialEq, Message)]
struct ScanNode {
    /// The file groups, byte ranges, projection, limit…: datafusion-proto's encoding.
    #[prost(message, optional, tag = "1")]
    config: Option<protobuf::FileScanExecConf>,
    /// The schema's bytes and the table's options.
    #[prost(message, optional, tag = "2")]
    spec: Option<SpecMessage>,
}

impl PhysicalExtensionCodec for FlatstreamCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[Arc<dyn ExecutionPlan>],
        ctx: &TaskContext,
        proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        if !inputs.is_empty() {
            return plan_err!(
                "a flatstream scan has no inputs, but {} were given",
                inputs.len()
            );
        }
        let node = ScanNode::decode(buf)
            .map_err(|e| exec_datafusion_err!("not a flatstream scan: {e}"))?;
        let config = node
            .config
            .ok_or_else(|| exec_datafusion_err!("a flatstream scan without its file scan"))?;
        let spec = node
            .spec
            .ok_or_else(|| exec_datafusion_err!("a flatstream scan without its spec"))?;
        let spec = ScanSpec::from_message(spec)
            .map_err(|e| exec_datafusion_err!("a flatstream scan's spec: {e}"))?;
        let table_schema = FileScanConfig::parse_table_schema_from_proto(&config)?;
        let source: Arc<dyn FileSource> =
            Arc::new(FlatstreamSource::new(table_schema, spec).on_worker());
        let decode = PhysicalPlanDecodeContext::new(ctx, self);
        let config = parse_protobuf_file_scan_config(&config, &decode, proto_converter, source)?;
        Ok(DataSourceExec::from_data_source(config))
    }

    fn try_encode(
        &self,
        node: Arc<dyn ExecutionPlan>,
        buf: &mut Vec<u8>,
        proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<()> {
        let Some((config, source)) = flatstream_scan(node.as_ref()) else {
            return plan_err!("{} is not a flatstream scan", node.name());
        };
        let node = ScanNode {
            config: Some(serialize_file_scan_config(config, self, proto_converter)?),
            spec: Some(source.spec().to_message()),
        };
        node.encode(buf)
            .map_err(|e| exec_datafusion_err!("encoding a flatstream scan: {e}"))
    }
}

/// The scan's config and source, if `plan` is a flatstream scan.
fn flatstream_scan(plan: &dyn ExecutionPlan) -> Option<(&FileScanConfig, &FlatstreamSource)> {
    let config = plan
        .downcast_ref::<DataSourceExec>()?
        .data_source()
        .downcast_ref::<FileScanConfig>()?;
    let source = config.file_source().downcast_ref::<FlatstreamSource>()?;
    Some((config, source))
}

/// Puts [`FlatstreamCodec`] on a session: on the coordinator's session and in every worker's
/// session builder, **both**. Implemented for everything datafusion-distributed's
/// [`DistributedExt`] is (`SessionStateBuilder`, `SessionConfig`, `SessionState`,
/// `SessionContext`); see the [module docs](self) for both sides.
pub trait FlatstreamDistributedExt: Sized {
    /// Registers [`FlatstreamCodec`] as a datafusion-distributed user codec
    /// (`with_distributed_user_codec`).
    fn with_flatstream_codec(self) -> Self;
}

impl<T: DistributedExt> FlatstreamDistributedExt for T {
    fn with_flatstream_codec(self) -> Self {
        self.with_distributed_user_codec(FlatstreamCodec)
    }
}

/// Fails if `config` plans distributed queries (it has datafusion-distributed's settings) but
/// cannot encode the flatstream scan `plan` for its workers: the coordinator lacks the codec.
/// Called where a flatstream scan is planned, so that the mistake is an error at once instead
/// of a worker's timeout.
pub(crate) fn check_codec(config: &SessionConfig, plan: &Arc<dyn ExecutionPlan>) -> Result<()> {
    if DistributedConfig::from_session_config(config).is_err() {
        return Ok(());
    }
    let codec = DistributedCodec::new_combined_with_user(config);
    match datafusion_proto::bytes::physical_plan_to_bytes_with_extension_codec(
        Arc::clone(plan),
        &codec,
    ) {
        Ok(_) => Ok(()),
        Err(e) => plan_err!(
            "this session plans distributed queries but cannot send a flatstream scan to its \
             workers: register the codec with `with_flatstream_codec()` on the coordinator's \
             session and in each worker's session builder \
             (flatstream_datafusion::distributed::FlatstreamDistributedExt); encoding said: {}",
            e.strip_backtrace()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{FlatstreamOptions, SessionContextExt};
    use datafusion::physical_plan::displayable;
    use datafusion::prelude::{SessionConfig, SessionContext};
    use datafusion_proto::bytes::{
        physical_plan_from_bytes_with_extension_codec, physical_plan_to_bytes_with_extension_codec,
    };

    const SCHEMA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/telemetry.bfbs");

    /// A capture of `n` telemetry frames with CRC-32C checksums.
    fn capture(n: u64) -> Vec<u8> {
        let framer = flatstream::ChecksumFramer::new(flatstream::checksum::Crc32c);
        let mut writer = flatstream::StreamWriter::new(Vec::new(), framer);
        for i in 0..n {
            let mut b = flatstream::flatbuffers::FlatBufferBuilder::new();
            let table = b.start_table();
            b.push_slot::<u64>(4, i % 5, 0);
            b.push_slot::<u64>(6, i, 0);
            b.push_slot::<f64>(8, i as f64, 0.0);
            let table = b.end_table(table);
            b.finish_minimal(table);
            writer.write_payload(b.finished_data()).unwrap();
        }
        writer.into_inner()
    }

    /// The scan (the plan's leaf) of `sql` over a table of two captures, cut into byte ranges.
    async fn scan(
        options: FlatstreamOptions,
        sql: &str,
    ) -> (tempfile::TempDir, SessionContext, Arc<dyn ExecutionPlan>) {
        let dir = tempfile::tempdir().unwrap();
        for name in ["a.fstream", "b.fstream"] {
            std::fs::write(dir.path().join(name), capture(200)).unwrap();
        }
        let mut config = SessionConfig::new().with_target_partitions(3);
        config.options_mut().optimizer.repartition_file_min_size = 0;
        let ctx = SessionContext::new_with_config(config);
        ctx.register_flatstream("t", dir.path().to_str().unwrap(), options)
            .await
            .unwrap();
        let mut plan = ctx
            .sql(sql)
            .await
            .unwrap()
            .create_physical_plan()
            .await
            .unwrap();
        while let Some(child) = plan.children().first() {
            plan = Arc::clone(child);
        }
        (dir, ctx, plan)
    }

    /// Each file group's files and byte ranges, as `path:start..end`.
    fn ranges(config: &FileScanConfig) -> Vec<Vec<String>> {
        let file = |f: &datafusion::datasource::listing::PartitionedFile| match &f.range {
            Some(r) => format!("{}:{}..{}", f.object_meta.location, r.start, r.end),
            None => f.object_meta.location.to_string(),
        };
        config
            .file_groups
            .iter()
            .map(|g| g.iter().map(file).collect())
            .collect()
    }

    #[tokio::test]
    async fn a_scan_round_trips() {
        let mut options = FlatstreamOptions::with_schema(SCHEMA)
            .root_type("telemetry.Telemetry")
            .checksum(flatstream_checksum::ChecksumKind::Crc32c);
        options.skip_invalid = true;
        options.verify_unread = true;
        options.offset_column = true;
        options.enums = "integers".to_owned();
        options.max_frame_len = 4096;
        let sql = "SELECT _offset, value FROM t LIMIT 17";
        let (_dir, ctx, plan) = scan(options, sql).await;
        let bytes =
            physical_plan_to_bytes_with_extension_codec(Arc::clone(&plan), &FlatstreamCodec)
                .unwrap();
        let decoded = physical_plan_from_bytes_with_extension_codec(
            &bytes,
            &ctx.task_ctx(),
            &FlatstreamCodec,
        )
        .unwrap();

        // File groups with their byte ranges, projection, limit: as displayed.
        let shown = displayable(plan.as_ref()).indent(true).to_string();
        assert!(shown.contains(".fstream:0.."), "{shown}");
        assert!(shown.contains("limit=17"), "{shown}");
        assert_eq!(
            displayable(decoded.as_ref()).indent(true).to_string(),
            shown
        );
        // The options, with the schema's bytes.
        let (config, source) = flatstream_scan(plan.as_ref()).unwrap();
        let (decoded_config, decoded_source) = flatstream_scan(decoded.as_ref()).unwrap();
        assert_eq!(
            decoded_source.spec().to_message(),
            source.spec().to_message()
        );
        assert_eq!(
            decoded_source.spec().schema_bytes(),
            source.spec().schema_bytes()
        );
        assert_eq!(
            decoded_source.spec().plan().options(),
            source.spec().plan().options()
        );
        assert_eq!(decoded_source.spec().checksum(), source.spec().checksum());
        assert_eq!(decoded_source.spec().max_frame_len(), 4096);
        assert_eq!(decoded_source.file_columns(), source.file_columns());
        assert_eq!(ranges(decoded_config), ranges(config));
        assert_eq!(decoded_config.limit, Some(17));
        // And it reads the same rows (its partitions finish in any order).
        let rows = |batches: &[datafusion::arrow::array::RecordBatch]| {
            let text = datafusion::arrow::util::pretty::pretty_format_batches(batches)
                .unwrap()
                .to_string();
            let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
            lines.sort_unstable();
            lines
        };
        let read = |plan| datafusion::physical_plan::collect(plan, ctx.task_ctx());
        let expected = rows(&read(plan).await.unwrap());
        assert_eq!(rows(&read(decoded).await.unwrap()), expected);
        // The leaf alone: up to 17 rows from each of its partitions.
        assert!(expected.len() > 4, "{expected:?}");
    }

    #[tokio::test]
    async fn other_plans_and_bad_bytes_are_errors() {
        let (_dir, ctx, plan) = scan(FlatstreamOptions::with_schema(SCHEMA), "SELECT 1").await;
        let mut buf = Vec::new();
        let converter = datafusion_proto::physical_plan::DefaultPhysicalProtoConverter {};
        let error = FlatstreamCodec
            .try_encode(plan, &mut buf, &converter)
            .unwrap_err();
        assert!(
            error.to_string().contains("is not a flatstream scan"),
            "{error}"
        );

        for bytes in [&b"\x12\x03abc"[..], b"\xff\xff\xff", b""] {
            let error = FlatstreamCodec
                .try_decode(bytes, &[], &ctx.task_ctx(), &converter)
                .unwrap_err();
            assert!(error.to_string().contains("flatstream scan"), "{error}");
        }
    }
}
