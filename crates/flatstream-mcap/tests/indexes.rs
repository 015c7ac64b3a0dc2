//! Exports read through their summary and indexes, as a viewer that seeks reads them: every
//! Chunk Index against its chunk and the chunk's messages (offsets, sizes, compression, time
//! range), every Message Index entry seeked to, the statistics, and the file's CRCs (data
//! section, summary, every chunk). For every compression, one chunk and several, one channel
//! and several, and an export without messages.

use flatstream::mcap::{Compression, ExportOptions, Exporter, Time, TimeUnit};
use flatstream_test_support::telemetry;
use mcap::records::{ChunkIndex, Record, op};
use mcap::sans_io::indexed_reader::{IndexedReadEvent, IndexedReader};
use mcap::sans_io::{LinearReadEvent, LinearReader, LinearReaderOptions};
use std::collections::BTreeMap;
use std::io::Cursor;

const TELEMETRY: &[u8] = include_bytes!("../../../examples/telemetry.bfbs");
const COMPRESSIONS: [(Compression, &str); 3] = [
    (Compression::Zstd, "zstd"),
    (Compression::Lz4, "lz4"),
    (Compression::None, ""),
];

/// A message as written: its channel's id, its log time, its payload.
type Sent = (u16, u64, Vec<u8>);

/// `n` telemetry readings, the `i`-th on channel `topics[i % topics.len()]`, timed by their
/// `timestamp` (ms): the file and the messages in the order written.
fn export(compression: Compression, topics: &[&str], n: u64) -> (Vec<u8>, Vec<Sent>) {
    let time = Time::Field {
        path: "timestamp".into(),
        unit: TimeUnit::Milliseconds,
    };
    let options = ExportOptions::new().compression(compression).time(time);
    let mut exporter = Exporter::new(Cursor::new(Vec::new()), TELEMETRY, &options).unwrap();
    let channels: Vec<_> = topics
        .iter()
        .map(|t| exporter.channel(t).unwrap())
        .collect();
    let mut sent = Vec::new();
    for (i, payload) in telemetry::payloads(n).into_iter().enumerate() {
        let c = i % topics.len();
        exporter.write(channels[c], &payload).unwrap();
        let log_time = telemetry::Reading::nth(i as u64).timestamp * 1_000_000;
        sent.push((c as u16 + 1, log_time, payload));
    }
    (exporter.finish().unwrap().into_inner(), sent)
}

/// The record at `offset` of `file`: its opcode and its content.
fn record_at(file: &[u8], offset: u64) -> (u8, &[u8]) {
    let at = offset as usize;
    let len = u64::from_le_bytes(file[at + 1..at + 9].try_into().unwrap()) as usize;
    (file[at], &file[at + 9..at + 9 + len])
}

/// Reads `file` through its summary and indexes, checks every index against what it points
/// at, and returns the messages, chunk after chunk.
fn read_indexed(file: &[u8], compression: &str, topics: &[&str]) -> Vec<Sent> {
    let summary = mcap::Summary::read(file).unwrap().expect("a summary");
    let mut ids: Vec<(u16, &str)> = (summary.channels.values())
        .map(|c| (c.id, c.topic.as_str()))
        .collect();
    ids.sort();
    let want: Vec<(u16, &str)> = (1..).zip(topics.iter().copied()).collect();
    assert_eq!(ids, want, "the summary's channels");
    assert_eq!(summary.schemas.len(), 1);

    let mut read = Vec::new();
    let mut end_of_last = 0;
    for index in &summary.chunk_indexes {
        let chunk = read_chunk(file, &summary, index, compression);
        assert!(
            index.chunk_start_offset >= end_of_last,
            "chunks in file order"
        );
        end_of_last = index.chunk_start_offset + index.chunk_length + index.message_index_length;
        read.extend(chunk);
    }
    let stats = summary.stats.expect("statistics");
    assert_eq!(stats.message_count, read.len() as u64);
    assert_eq!(stats.chunk_count as usize, summary.chunk_indexes.len());
    assert_eq!(stats.channel_count as usize, topics.len());
    assert_eq!(stats.schema_count, 1);
    let mut counts = BTreeMap::new();
    for (channel, _, _) in &read {
        *counts.entry(*channel).or_insert(0u64) += 1;
    }
    assert_eq!(stats.channel_message_counts, counts);
    let times = read.iter().map(|m| m.1);
    let range = (times.clone().min().unwrap_or(0), times.max().unwrap_or(0));
    assert_eq!((stats.message_start_time, stats.message_end_time), range);
    read
}

/// The messages of the chunk `index` points at, each found through its Message Index entry
/// too, after checking the Chunk Index against the Chunk record and its Message Index records.
fn read_chunk(
    file: &[u8],
    summary: &mcap::Summary,
    index: &ChunkIndex,
    compression: &str,
) -> Vec<Sent> {
    let (opcode, content) = record_at(file, index.chunk_start_offset);
    assert_eq!(opcode, op::CHUNK);
    assert_eq!(9 + content.len() as u64, index.chunk_length);
    let Record::Chunk { header, data } = mcap::parse_record(op::CHUNK, content).unwrap() else {
        panic!("a chunk record");
    };
    assert_eq!(header.compression, compression);
    assert_eq!(index.compression, compression);
    assert_eq!(header.compressed_size, data.len() as u64);
    assert_eq!(index.compressed_size, header.compressed_size);
    assert_eq!(index.uncompressed_size, header.uncompressed_size);
    assert_ne!(header.uncompressed_crc, 0, "the records' CRC is written");
    assert_eq!(
        (header.message_start_time, header.message_end_time),
        (index.message_start_time, index.message_end_time)
    );

    let messages: Vec<Sent> = (summary.stream_chunk(file, index).unwrap())
        .map(|m| {
            let m = m.unwrap();
            assert_eq!(m.publish_time, m.log_time);
            (m.channel.id, m.log_time, m.data.into_owned())
        })
        .collect();
    let times = messages.iter().map(|m| m.1);
    let range = (times.clone().min().unwrap_or(0), times.max().unwrap_or(0));
    assert_eq!((index.message_start_time, index.message_end_time), range);

    // The Message Index records: right after the chunk, one per channel with messages in it,
    // back to back, `message_index_length` bytes in all.
    let mut at = index.chunk_start_offset + index.chunk_length;
    for (&channel, &offset) in &index.message_index_offsets {
        assert_eq!(offset, at, "channel {channel}'s message index");
        let (opcode, content) = record_at(file, offset);
        assert_eq!(opcode, op::MESSAGE_INDEX);
        at += 9 + content.len() as u64;
    }
    assert_eq!(
        at - index.chunk_start_offset - index.chunk_length,
        index.message_index_length
    );
    let mut in_chunk: BTreeMap<u16, usize> = BTreeMap::new();
    for m in &messages {
        *in_chunk.entry(m.0).or_default() += 1;
    }
    assert!(
        in_chunk.keys().eq(index.message_index_offsets.keys()),
        "a message index for every channel in the chunk, and only those"
    );
    if messages.is_empty() {
        return messages;
    }

    // The entries of a channel: its messages, in order, each at the offset of its Message
    // record in the records uncompressed; some also seeked to by the `mcap` crate.
    let records = decompress(&header.compression, &data, header.uncompressed_size);
    let indexes = summary.read_message_indexes(file, index).unwrap();
    let mut found = Vec::new();
    for (channel, entries) in &indexes {
        assert_eq!(entries.len(), in_chunk[&channel.id], "{}", channel.topic);
        for (i, entry) in entries.iter().enumerate() {
            assert!(i == 0 || entries[i - 1].offset < entry.offset);
            let (opcode, content) = record_at(&records, entry.offset);
            assert_eq!(opcode, op::MESSAGE);
            let Record::Message { header, data } = mcap::parse_record(opcode, content).unwrap()
            else {
                panic!("a message record");
            };
            assert_eq!(
                (header.channel_id, header.log_time),
                (channel.id, entry.log_time)
            );
            if i % 997 == 0 || i + 1 == entries.len() {
                let m = summary.seek_message(file, index, entry).unwrap();
                assert_eq!((m.log_time, &*m.data), (entry.log_time, &*data));
            }
            found.push((
                entry.offset,
                (channel.id, entry.log_time, data.into_owned()),
            ));
        }
    }
    found.sort_by_key(|f| f.0);
    let found: Vec<Sent> = found.into_iter().map(|f| f.1).collect();
    assert_eq!(found, messages, "the message indexes find every message");
    messages
}

/// A chunk's records, uncompressed.
fn decompress(compression: &str, data: &[u8], size: u64) -> Vec<u8> {
    let records = match compression {
        "zstd" => zstd::bulk::decompress(data, size as usize).unwrap(),
        "lz4" => {
            let mut records = Vec::new();
            let mut decoder = lz4::Decoder::new(data).unwrap();
            std::io::Read::read_to_end(&mut decoder, &mut records).unwrap();
            records
        }
        _ => data.to_vec(),
    };
    assert_eq!(records.len() as u64, size);
    records
}

/// Reads `file` from start to end, every CRC checked: the data section's, the summary's, each
/// chunk's (before any of its records is taken).
fn check_crcs(file: &[u8]) {
    let options = LinearReaderOptions::default()
        .with_validate_data_section_crc(true)
        .with_validate_summary_section_crc(true)
        .with_prevalidate_chunk_crcs(true);
    let mut reader = LinearReader::new_with_options(options);
    let mut rest = file;
    let mut records = 0;
    while let Some(event) = reader.next_event() {
        match event.unwrap() {
            LinearReadEvent::ReadRequest(n) => {
                let n = n.min(rest.len());
                reader.insert(n).copy_from_slice(&rest[..n]);
                reader.notify_read(n);
                rest = &rest[n..];
            }
            LinearReadEvent::Record { .. } => records += 1,
        }
    }
    assert!(records > 0);
}

/// The messages of `file` in log-time order, as the `mcap` crate's indexed reader gives them.
fn read_in_log_time_order(file: &[u8]) -> Vec<Sent> {
    let summary = mcap::Summary::read(file).unwrap().unwrap();
    let mut reader = IndexedReader::new(&summary).unwrap();
    let mut read = Vec::new();
    while let Some(event) = reader.next_event() {
        match event.unwrap() {
            IndexedReadEvent::ReadChunkRequest { offset, length } => {
                let chunk = &file[offset as usize..offset as usize + length];
                reader.insert_chunk_record_data(offset, chunk).unwrap();
            }
            IndexedReadEvent::Message { header, data } => {
                read.push((header.channel_id, header.log_time, data.to_vec()));
            }
        }
    }
    read
}

#[test]
fn every_chunk_index_points_at_its_chunk_and_every_message_index_at_its_messages() {
    // 50 000 readings: about 4 MB of records, so four chunks; three channels.
    let topics = ["/a", "/b", "/c"];
    for (compression, name) in COMPRESSIONS {
        let (file, sent) = export(compression, &topics, 50_000);
        let summary = mcap::Summary::read(&file).unwrap().unwrap();
        assert!(summary.chunk_indexes.len() >= 3, "{name}: several chunks");
        assert_eq!(read_indexed(&file, name, &topics), sent, "{name}");
        check_crcs(&file);
        let mut by_time = sent.clone();
        by_time.sort_by_key(|m| m.1); // stable: the demo's times only grow
        assert_eq!(read_in_log_time_order(&file), by_time, "{name}");
    }
}

#[test]
fn one_chunk_one_channel() {
    for (compression, name) in COMPRESSIONS {
        let (file, sent) = export(compression, &["/t"], 100);
        let summary = mcap::Summary::read(&file).unwrap().unwrap();
        assert_eq!(summary.chunk_indexes.len(), 1, "{name}");
        assert_eq!(read_indexed(&file, name, &["/t"]), sent, "{name}");
        check_crcs(&file);
    }
}

#[test]
fn an_export_without_messages_is_a_valid_file_with_its_schema_and_channels() {
    for (compression, name) in COMPRESSIONS {
        for topics in [&[][..], &["/quiet", "/silent"][..]] {
            let (file, sent) = export(compression, topics, 0);
            assert!(sent.is_empty());
            assert_eq!(read_indexed(&file, name, topics), sent, "{name}");
            check_crcs(&file);
            assert_eq!(mcap::MessageStream::new(&file).unwrap().count(), 0);
            let stats = mcap::Summary::read(&file).unwrap().unwrap().stats.unwrap();
            assert_eq!((stats.message_start_time, stats.message_end_time), (0, 0));
            assert!(stats.channel_message_counts.is_empty());
        }
    }
}

#[test]
fn an_exporter_can_move_to_another_thread_and_be_shared() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Exporter<Cursor<Vec<u8>>>>();
    send_sync::<Exporter<std::fs::File>>();
}
