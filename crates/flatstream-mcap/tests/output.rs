//! The exporter's output: any `Write` (nothing is seeked), and one that fails part of the way.

use flatstream::mcap::{Error, ExportOptions, Exporter};
use flatstream_test_support::telemetry;
use std::io::{self, Write};

const TELEMETRY: &[u8] = include_bytes!("../../../examples/telemetry.bfbs");

/// An exporter into `out` that has written each of `payloads` as a message of the channel `/t`.
fn exported<W: Write>(out: W, payloads: &[Vec<u8>]) -> Exporter<W> {
    let mut exporter = Exporter::new(out, TELEMETRY, &ExportOptions::new()).unwrap();
    let channel = exporter.channel("/t").unwrap();
    for p in payloads {
        exporter.write(channel, p).unwrap();
    }
    exporter
}

/// The messages of the MCAP file `file`, read from its start.
fn messages(file: &[u8]) -> Vec<Vec<u8>> {
    (mcap::MessageStream::new(file).unwrap())
        .map(|m| m.unwrap().data.into_owned())
        .collect()
}

#[test]
fn a_writer_that_cannot_seek_receives_a_whole_file() {
    // A `Vec<u8>` is `Write` and not `Seek`; offsets count from where the writer is.
    let payloads = telemetry::payloads(30_000);
    let out = exported(b"before".to_vec(), &payloads).finish().unwrap();
    let file = &out[b"before".len()..];
    let summary = mcap::Summary::read(file).unwrap().expect("a summary");
    assert!(summary.chunk_indexes.len() > 1);
    assert_eq!(messages(file), payloads);
}

/// Takes `room` bytes, then fails every write.
#[derive(Debug)]
struct Full {
    room: usize,
}

impl Write for Full {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.room == 0 {
            return Err(io::Error::new(io::ErrorKind::StorageFull, "full"));
        }
        let n = buf.len().min(self.room);
        self.room -= n;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_failed_write_is_an_error_and_so_is_every_write_after_it() {
    let payloads = telemetry::payloads(30_000);
    let len = exported(Vec::new(), &payloads).finish().unwrap().len();
    // In the header, the first chunk, a later one, the summary, the trailing magic.
    for room in [0, 10, 100, len / 3, len * 2 / 3, len - 100, len - 1] {
        let full = Full { room };
        let mut exporter = match Exporter::new(full, TELEMETRY, &ExportOptions::new()) {
            Ok(exporter) => exporter,
            Err(e) => {
                assert!(matches!(e, Error::Io(_)), "{room}: {e}");
                continue;
            }
        };
        let channel = exporter.channel("/t").unwrap();
        let failed = payloads
            .iter()
            .position(|p| exporter.write(channel, p).is_err());
        let e = match failed {
            // Every chunk but the last was written: the rest does not fit.
            None => exporter.finish().unwrap_err(),
            Some(at) => {
                assert!(exporter.write(channel, &payloads[at]).is_err(), "{room}");
                exporter.finish().unwrap_err()
            }
        };
        assert!(matches!(e, Error::Io(_)), "{room}: {e}");
    }
}

#[test]
fn an_exporter_given_up_with_chunks_in_flight_is_dropped_and_the_next_one_works() {
    // 30 000 readings fill several chunks: some are on the compressing threads when the
    // exporter is dropped without `finish`. Dropping it returns (its threads stop), and a new
    // exporter writes a whole file.
    let payloads = telemetry::payloads(30_000);
    drop(exported(Vec::new(), &payloads));
    let file = exported(Vec::new(), &payloads).finish().unwrap();
    assert_eq!(messages(&file), payloads);
}
