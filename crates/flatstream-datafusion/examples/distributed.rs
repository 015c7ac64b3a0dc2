//! SQL over flatstream captures on a datafusion-distributed cluster: one binary, two commands,
//! the codec and nothing more. `flatstream worker` and `flatstream query --workers` (the CLI)
//! are the cluster users run, with deadlines, retries, a token and TLS; this example shows
//! the least a program of its own needs.
//!
//! On each worker machine:
//!
//! ```text
//! distributed worker --listen 0.0.0.0:50051
//! ```
//!
//! On the coordinator (any machine that reaches the workers):
//!
//! ```text
//! distributed query --workers http://10.0.0.1:50051,http://10.0.0.2:50051 \
//!     --table telemetry=s3://my-bucket/captures/ --schema telemetry.bfbs --checksum xxhash64 \
//!     "SELECT device_id, count(*), avg(value) FROM telemetry GROUP BY device_id"
//! ```
//!
//! Each worker reads the byte ranges it is given straight from the table's location, so every
//! worker must reach it: a shared file system path, or object storage (`s3://` with the
//! feature `aws`, `gs://` with `gcp`; credentials from the usual environment variables, such as
//! `AWS_ACCESS_KEY_ID`, `AWS_REGION`, `GOOGLE_SERVICE_ACCOUNT`). The schema file is read by
//! the coordinator only: the plan it sends carries the schema's bytes.
//!
//! Build: `cargo build --release -p flatstream-datafusion --example distributed
//! --features distributed,aws,gcp`.

use std::error::Error;
use std::net::SocketAddr;
use std::sync::Arc;

use clap::{Parser, Subcommand};
use datafusion::arrow::util::pretty::pretty_format_batches;
use datafusion::error::DataFusionError;
use datafusion::execution::SessionStateBuilder;
use datafusion::execution::runtime_env::RuntimeEnv;
use datafusion::prelude::SessionContext;
use datafusion_distributed::{
    DistributedExt, SessionStateBuilderExt, Worker, WorkerQueryContext, WorkerResolver,
    display_plan_ascii,
};
use flatstream_datafusion::distributed::{CloudStores, FlatstreamDistributedExt};
use flatstream_datafusion::{FlatstreamOptions, SessionContextExt};
use futures::TryStreamExt;
use tonic::transport::Server;
use url::Url;

/// SQL over flatstream captures on a datafusion-distributed cluster.
#[derive(Parser)]
#[command(name = "distributed")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve as a worker: run the plan fragments a coordinator sends, until interrupted.
    Worker {
        /// The address to listen on (gRPC, plain HTTP/2).
        #[arg(long, default_value = "0.0.0.0:50051")]
        listen: SocketAddr,
    },
    /// Plan a query, run it on the workers, print the result.
    Query(QueryArgs),
}

#[derive(clap::Args)]
struct QueryArgs {
    /// The workers' URLs, comma-separated (`http://10.0.0.1:50051,http://10.0.0.2:50051`).
    #[arg(long, value_delimiter = ',', required = true)]
    workers: Vec<Url>,
    /// The table: NAME=LOCATION, a file or a directory of captures, a local path (the same on
    /// every worker) or an object-store URL (`s3://bucket/prefix/`, `gs://bucket/prefix/`).
    #[arg(long, value_parser = parse_table)]
    table: (String, String),
    /// The binary schema (`flatc -b --schema`) of the frames' payloads.
    #[arg(long)]
    schema: std::path::PathBuf,
    /// The table the frames hold, if not the schema's root type.
    #[arg(long)]
    root_type: Option<String>,
    /// The frames' checksum: auto (told from each file's first frames), none, xxhash64,
    /// crc32, crc32c or crc16. A file without checksums is read whole by the task given its
    /// first byte range: its frame boundaries cannot be found from the middle.
    #[arg(long, default_value = "auto")]
    checksum: String,
    /// Skip frames that fail verification instead of failing the query.
    #[arg(long)]
    skip_invalid: bool,
    /// The bytes of a file a task's partition reads; smaller means more tasks.
    #[arg(long)]
    bytes_per_partition: Option<usize>,
    /// Print the distributed plan (stages, tasks, byte ranges) instead of running the query.
    #[arg(long)]
    explain: bool,
    /// The query.
    sql: String,
}

fn parse_table(arg: &str) -> Result<(String, String), String> {
    let (name, location) = arg
        .split_once('=')
        .ok_or_else(|| format!("expected NAME=LOCATION, got {arg:?}"))?;
    Ok((name.to_owned(), location.to_owned()))
}

#[tokio::main]
async fn main() {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Worker { listen } => worker(listen).await,
        Command::Query(args) => query(args).await,
    };
    if let Err(e) = result {
        eprintln!("distributed: {e}");
        std::process::exit(1);
    }
}

async fn worker(listen: SocketAddr) -> Result<(), Box<dyn Error>> {
    let worker = Worker::from_session_builder(|ctx: WorkerQueryContext| async move {
        Ok(ctx.builder.with_flatstream_codec().build())
    })
    .with_runtime_env(runtime()?);
    eprintln!("distributed: worker listening on {listen}");
    Server::builder()
        .add_service(worker.into_worker_server())
        .serve_with_shutdown(listen, async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await?;
    Ok(())
}

async fn query(args: QueryArgs) -> Result<(), Box<dyn Error>> {
    let mut state = SessionStateBuilder::new()
        .with_default_features()
        .with_runtime_env(runtime()?)
        .with_distributed_planner()
        .with_distributed_worker_resolver(Workers(args.workers.clone()))
        .with_flatstream_codec();
    if let Some(bytes) = args.bytes_per_partition {
        state = state.with_distributed_file_scan_config_bytes_per_partition(bytes)?;
    }
    let ctx = SessionContext::from(state.build());
    let (name, location) = &args.table;
    let mut options = FlatstreamOptions::with_schema(args.schema.to_string_lossy());
    options.root_type = args.root_type;
    options.checksum = args.checksum;
    options.skip_invalid = args.skip_invalid;
    ctx.register_flatstream(name, location, options).await?;

    let df = ctx.sql(&args.sql).await?;
    if args.explain {
        let plan = df.create_physical_plan().await?;
        println!("{}", display_plan_ascii(plan.as_ref(), false));
        return Ok(());
    }
    let batches: Vec<_> = df.execute_stream().await?.try_collect().await?;
    println!("{}", pretty_format_batches(&batches)?);
    Ok(())
}

/// The worker URLs given on the command line.
struct Workers(Vec<Url>);

impl WorkerResolver for Workers {
    fn get_urls(&self) -> Result<Vec<Url>, DataFusionError> {
        Ok(self.0.clone())
    }
}

/// A runtime whose object stores for `s3://` and `gs://` buckets are made on first use, from
/// the environment: a worker learns the table's location only from the plans it receives.
fn runtime() -> Result<Arc<RuntimeEnv>, DataFusionError> {
    CloudStores::runtime()
}
