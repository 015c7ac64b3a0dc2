//! Byte ranges through DataFusion: files whose payloads carry whole streams (to provoke false
//! resynchronizations) read with many small partitions give the frames of a sequential read
//! or a resynchronization error, never a duplicate or a loss; a LIMIT reads less than the
//! file.

mod common;

use async_trait::async_trait;
use common::*;
use datafusion::execution::object_store::ObjectStoreUrl;
use flatstream::checksum::{AnyChecksum, ChecksumKind};
use flatstream::{ChecksumDeframer, ChecksumFramer, Frames, StreamWriter};
use flatstream_datafusion::{Error, FlatstreamOptions, SessionContextExt};
use flatstream_test_support::telemetry::Reading;
use futures::stream::BoxStream;
use object_store::local::LocalFileSystem;
use object_store::path::Path;
use object_store::{
    CopyOptions, GetOptions, GetResult, ListResult, MultipartUpload, ObjectMeta, ObjectStore,
    PutMultipartOptions, PutOptions, PutPayload, PutResult,
};
use proptest::prelude::*;
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// One telemetry payload (`Reading::nth(i)`), followed, if `inner` is not empty, by a whole
/// stream of the same framing: bytes after a FlatBuffer's tables are ignored by its readers,
/// and the inner frames verify where a cut falls among them.
fn payload(i: u64, kind: ChecksumKind, inner: &[u64]) -> Vec<u8> {
    let mut w = StreamWriter::new(
        Vec::new(),
        ChecksumFramer::new(AnyChecksum::new(kind).unwrap()),
    );
    w.write(&Reading::nth(i)).unwrap();
    let bytes = w.into_inner();
    let header = 4 + kind.size();
    let mut out = bytes[header..].to_vec();
    if !inner.is_empty() {
        out.extend(telemetry_of(kind, inner));
    }
    out
}

fn telemetry_of(kind: ChecksumKind, readings: &[u64]) -> Vec<u8> {
    let mut w = StreamWriter::new(
        Vec::new(),
        ChecksumFramer::new(AnyChecksum::new(kind).unwrap()),
    );
    for &i in readings {
        w.write(&Reading::nth(i)).unwrap();
    }
    w.into_inner()
}

fn nested_stream(kind: ChecksumKind, rows: &[(u64, Vec<u64>)]) -> Vec<u8> {
    let mut w = StreamWriter::new(
        Vec::new(),
        ChecksumFramer::new(AnyChecksum::new(kind).unwrap()),
    );
    for (i, inner) in rows {
        w.write_payload(&payload(*i, kind, inner)).unwrap();
    }
    w.into_inner()
}

/// The frame offsets a sequential reader finds.
fn sequential_offsets(kind: ChecksumKind, bytes: &[u8]) -> Vec<u64> {
    let mut frames = Frames::new(
        bytes,
        ChecksumDeframer::new(AnyChecksum::new(kind).unwrap()),
    );
    let mut out = Vec::new();
    loop {
        let at = frames.position();
        match frames.next() {
            Some(Ok(_)) => out.push(at),
            None => return out,
            Some(Err(e)) => panic!("the test writes whole streams: {e}"),
        }
    }
}

fn rows() -> impl Strategy<Value = (ChecksumKind, Vec<(u64, Vec<u64>)>)> {
    let kind = proptest::sample::select(ChecksumKind::ALL.to_vec());
    let row = (
        0u64..1000,
        prop_oneof![
            3 => Just(Vec::new()),
            1 => proptest::collection::vec(0u64..1000, 1..5),
        ],
    );
    (kind, proptest::collection::vec(row, 1..60))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn small_partitions_through_datafusion_read_each_frame_once_or_fail_clearly(
        (kind, rows) in rows(),
        partitions in 2usize..24,
    ) {
        let bytes = nested_stream(kind, &rows);
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "nested.fstream", &bytes);
        let expected = sequential_offsets(kind, &bytes);
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .unwrap();
        runtime.block_on(async {
            let ctx = session(partitions, 1);
            let mut options = FlatstreamOptions::with_schema(telemetry_schema());
            options.offset_column = true;
            ctx.register_flatstream("t", &path, options).await.unwrap();
            let result = ctx
                .sql("SELECT _offset FROM t ORDER BY _offset")
                .await
                .unwrap()
                .collect()
                .await;
            match result {
                Ok(batches) => assert_eq!(u64s(&batches), expected),
                // Checksum-less streams are never cut, so never resynchronized.
                Err(e) => {
                    assert_ne!(kind, ChecksumKind::None, "{e}");
                    assert!(
                        matches!(flatstream_error(&e), Some(Error::Resync { .. })),
                        "{e}"
                    );
                }
            }
        });
    }
}

/// A local file system that counts the bytes its reads return.
#[derive(Debug)]
struct Counting {
    inner: LocalFileSystem,
    read: Arc<AtomicU64>,
}

impl fmt::Display for Counting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Counting({})", self.inner)
    }
}

#[async_trait]
impl ObjectStore for Counting {
    async fn put_opts(
        &self,
        location: &Path,
        payload: PutPayload,
        opts: PutOptions,
    ) -> object_store::Result<PutResult> {
        self.inner.put_opts(location, payload, opts).await
    }

    async fn put_multipart_opts(
        &self,
        location: &Path,
        opts: PutMultipartOptions,
    ) -> object_store::Result<Box<dyn MultipartUpload>> {
        self.inner.put_multipart_opts(location, opts).await
    }

    async fn get_opts(
        &self,
        location: &Path,
        options: GetOptions,
    ) -> object_store::Result<GetResult> {
        let head = options.head;
        let result = self.inner.get_opts(location, options).await?;
        if !head {
            self.read
                .fetch_add(result.range.end - result.range.start, Ordering::Relaxed);
        }
        Ok(result)
    }

    fn delete_stream(
        &self,
        locations: BoxStream<'static, object_store::Result<Path>>,
    ) -> BoxStream<'static, object_store::Result<Path>> {
        self.inner.delete_stream(locations)
    }

    fn list(&self, prefix: Option<&Path>) -> BoxStream<'static, object_store::Result<ObjectMeta>> {
        self.inner.list(prefix)
    }

    async fn list_with_delimiter(&self, prefix: Option<&Path>) -> object_store::Result<ListResult> {
        self.inner.list_with_delimiter(prefix).await
    }

    async fn copy_opts(
        &self,
        from: &Path,
        to: &Path,
        options: CopyOptions,
    ) -> object_store::Result<()> {
        self.inner.copy_opts(from, to, options).await
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_limit_stops_reading_early() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = telemetry(ChecksumKind::Crc32, 0..200_000);
    let len = bytes.len() as u64;
    assert!(len > 8 << 20, "{len}");
    let path = write(dir.path(), "big.fstream", &bytes);
    let read = Arc::new(AtomicU64::new(0));
    let ctx = session(1, 10 << 20);
    ctx.register_object_store(
        ObjectStoreUrl::local_filesystem().as_ref(),
        Arc::new(Counting {
            inner: LocalFileSystem::new(),
            read: read.clone(),
        }),
    );
    register_telemetry(&ctx, "t", &path).await;
    let batches = query(&ctx, "SELECT device_id FROM t LIMIT 10").await;
    let ids = u64s(&batches);
    assert_eq!(
        ids,
        (0..10)
            .map(|i| Reading::nth(i).device_id)
            .collect::<Vec<_>>()
    );
    let limited = read.load(Ordering::Relaxed);
    assert!(
        limited > 0 && limited < len / 4,
        "read {limited} of {len} bytes"
    );

    // Without the limit, the whole file.
    read.store(0, Ordering::Relaxed);
    let all = query(&ctx, "SELECT count(*) FROM t").await;
    assert_eq!(all[0].num_rows(), 1);
    assert!(read.load(Ordering::Relaxed) >= len);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cut_inside_a_stored_stream_fails_with_a_resynchronization_error() {
    // Nearly all of the file is one frame whose payload carries a whole stream of the same
    // framing: the cut in the middle resynchronizes inside it, and the first range's chain
    // steps over that point.
    let kind = ChecksumKind::Crc32;
    let inner: Vec<u64> = (0..300).collect();
    let rows = vec![(1, inner), (2, Vec::new())];
    let bytes = nested_stream(kind, &rows);
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "stored.fstream", &bytes);
    let mut options = FlatstreamOptions::with_schema(telemetry_schema());
    options.offset_column = true;

    let ctx = session(2, 1);
    ctx.register_flatstream("t", &path, options.clone())
        .await
        .unwrap();
    let err = query_err(&ctx, "SELECT _offset FROM t").await;
    let Some(Error::Resync {
        start, boundary, ..
    }) = flatstream_error(&err)
    else {
        panic!("{err}");
    };
    assert_eq!(*start, 0);
    assert!(*boundary >= bytes.len() as u64 / 2, "{err}");
    let text = err.to_string();
    assert!(
        text.contains("stored.fstream") && text.contains("repartition_file_scans"),
        "{text}"
    );

    // Unsplit, the file reads: its two frames.
    let ctx = session(1, 10 << 20);
    ctx.register_flatstream("t", &path, options).await.unwrap();
    let batches = query(&ctx, "SELECT _offset FROM t ORDER BY _offset").await;
    assert_eq!(u64s(&batches), sequential_offsets(kind, &bytes));
}
