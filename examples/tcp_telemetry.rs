//! Telemetry over TCP with tokio: a server on 127.0.0.1 accepts several clients, each streaming
//! readings framed with XXH3 checksums; the server decodes every connection with `FrameCodec`
//! and hands each payload, a `bytes::Bytes`, to a processing task of its own, which verifies
//! the FlatBuffer and folds its fields. At the end it reports per-client counts, checks them
//! against what each client sent, and shuts down.
//!
//! ```text
//! cargo run --release -p flatstream --example tcp_telemetry --features tokio,xxhash64 [-- CLIENTS [MESSAGES]]
//! ```
//!
//! Defaults: 4 clients of 100 000 readings each. The whole run is bounded (60 s). `cargo test`
//! runs it too, smaller (the test at the end of this file).

use bytes::Bytes;
use flatbuffers::FlatBufferBuilder;
use flatstream::tokio::{AsyncStreamWriter, FrameCodec};
use flatstream::{ChecksumDeframer, ChecksumFramer, Error, Result, StreamSerialize, XxHash64};
use futures_util::StreamExt;
use std::time::{Duration, Instant};
use tokio::io::BufWriter;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio_util::codec::FramedRead;

#[path = "telemetry_schema.rs"]
mod telemetry_schema;
use telemetry_schema::{Telemetry, TelemetryArgs, root_as_telemetry};

/// The longest the whole run may take.
const LIMIT: Duration = Duration::from_secs(60);
/// The largest payload the server accepts: a reading is about 50 bytes.
const MAX_PAYLOAD: usize = 1024;

/// One reading, as the application holds it.
struct Reading {
    device_id: u64,
    timestamp: u64,
    value: f64,
}

impl Reading {
    /// The `i`-th reading of client `client`: its devices are `client * 1000 + 0..16`.
    fn nth(client: u64, i: u64) -> Self {
        Reading {
            device_id: client * 1000 + i % 16,
            timestamp: 1_700_000_000_000 + i,
            value: (i as f64 * 0.01).sin() * 50.0,
        }
    }
}

impl StreamSerialize for Reading {
    fn serialize<A: flatbuffers::Allocator + 'static>(
        &self,
        builder: &mut FlatBufferBuilder<'_, A>,
    ) -> Result<()> {
        let args = TelemetryArgs {
            device_id: self.device_id,
            timestamp: self.timestamp,
            value: self.value,
        };
        let root = Telemetry::create(builder, &args);
        builder.finish(root, None);
        Ok(())
    }
}

/// What a processing task saw on one connection.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
struct Totals {
    messages: u64,
    bytes: u64,
    /// Wrapping sum of timestamps: the fields arrived as sent.
    timestamps: u64,
    /// The client, from the device ids.
    client: Option<u64>,
}

/// A client: connects, streams `messages` readings, flushes and closes its side.
async fn client(addr: std::net::SocketAddr, client: u64, messages: u64) -> Result<u64> {
    let socket = BufWriter::new(TcpStream::connect(addr).await?);
    let mut writer = AsyncStreamWriter::new(socket, ChecksumFramer::new(XxHash64::new()));
    for i in 0..messages {
        writer.write(&Reading::nth(client, i)).await?;
    }
    writer.shutdown().await?;
    Ok(writer.bytes_written())
}

/// Verifies and folds the payloads of one connection, on a task of its own.
async fn process(mut payloads: mpsc::Receiver<Bytes>) -> Result<Totals> {
    let mut totals = Totals::default();
    while let Some(payload) = payloads.recv().await {
        let reading = root_as_telemetry(&payload)?;
        totals.messages += 1;
        totals.bytes += payload.len() as u64;
        totals.timestamps = totals.timestamps.wrapping_add(reading.timestamp());
        totals.client.get_or_insert(reading.device_id() / 1000);
    }
    Ok(totals)
}

/// One connection: decodes frames with the codec and passes each payload on. The channel is
/// bounded: a slow processing task slows the decoding, which slows the client.
async fn serve(socket: TcpStream) -> Result<Totals> {
    let codec = FrameCodec::read_only(ChecksumDeframer::new(XxHash64::new()))
        .with_max_frame_len(MAX_PAYLOAD);
    let mut frames = FramedRead::new(socket, codec);
    let (tx, rx) = mpsc::channel(1024);
    let processing = tokio::spawn(process(rx));
    while let Some(payload) = frames.next().await {
        if tx.send(payload?).await.is_err() {
            break; // the processing task failed: its error is returned below
        }
    }
    drop(tx);
    processing.await.expect("the processing task")
}

/// Runs the server and `clients` clients of `messages` readings each; returns the per-client
/// totals, sorted by client, after checking them against what each client sent.
async fn run(clients: u64, messages: u64) -> Result<Vec<Totals>> {
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    let senders: Vec<_> = (0..clients)
        .map(|c| tokio::spawn(client(addr, c, messages)))
        .collect();
    let mut connections = Vec::new();
    for _ in 0..clients {
        let (socket, _) = listener.accept().await?;
        connections.push(tokio::spawn(serve(socket)));
    }
    drop(listener); // no more clients: the server shuts down once these are done
    let mut totals = Vec::new();
    for connection in connections {
        totals.push(connection.await.expect("a connection task")?);
    }
    for sender in senders {
        sender.await.expect("a client task")?;
    }
    totals.sort_by_key(|t| t.client);
    let expected_timestamps =
        (0..messages).fold(0u64, |s, i| s.wrapping_add(Reading::nth(0, i).timestamp));
    for (c, t) in totals.iter().enumerate() {
        let ok = t.client == Some(c as u64)
            && t.messages == messages
            && t.timestamps == expected_timestamps;
        if !ok {
            return Err(Error::validation(
                "tcp_telemetry",
                format!("client {c}: received {t:?}, sent {messages} readings"),
                0,
            ));
        }
    }
    Ok(totals)
}

/// The argument `arg` as a whole number (`default` if absent); a bad one ends the program
/// with one line on stderr and exit status 2.
#[cfg_attr(test, allow(dead_code))]
fn number(arg: Option<&String>, what: &str, default: u64) -> u64 {
    match arg.map(|a| a.parse::<u64>()) {
        None => default,
        Some(Ok(n)) => n,
        Some(Err(_)) => {
            eprintln!(
                "tcp_telemetry: {what} must be a whole number, not {:?} (see --help)",
                arg.map_or("", |a| a.as_str())
            );
            std::process::exit(2)
        }
    }
}

#[cfg_attr(test, allow(dead_code))]
#[tokio::main]
async fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "-h" || a == "--help") {
        println!(
            "Runs a TCP server and clients that send it telemetry readings, each verified on \
             arrival.\n\nUsage: tcp_telemetry [CLIENTS [MESSAGES]]\n\nArguments:\n  \
             CLIENTS   how many clients connect [default: 4]\n  \
             MESSAGES  readings each client sends [default: 100000]"
        );
        return Ok(());
    }
    if args.len() > 2 {
        eprintln!(
            "tcp_telemetry: unexpected argument {:?} (see --help)",
            args[2]
        );
        std::process::exit(2);
    }
    let clients = number(args.first(), "CLIENTS", 4);
    let messages = number(args.get(1), "MESSAGES", 100_000);
    let start = Instant::now();
    let totals = tokio::time::timeout(LIMIT, run(clients, messages))
        .await
        .map_err(|_| Error::validation("tcp_telemetry", "did not finish within 60 s", 0))??;
    let secs = start.elapsed().as_secs_f64();
    for t in &totals {
        println!(
            "client {}: {} readings, {} payload bytes, verified",
            t.client.unwrap_or_default(),
            t.messages,
            t.bytes
        );
    }
    let all: u64 = totals.iter().map(|t| t.messages).sum();
    println!(
        "{all} readings from {clients} clients in {secs:.2} s ({:.0} readings/s); server shut down",
        all as f64 / secs
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_example_runs_and_every_reading_arrives() {
        let totals = tokio::time::timeout(super::LIMIT, super::run(8, 5_000))
            .await
            .expect("finished in time")
            .unwrap();
        assert_eq!(totals.len(), 8);
        assert!(totals.iter().all(|t| t.messages == 5_000));
    }
}
