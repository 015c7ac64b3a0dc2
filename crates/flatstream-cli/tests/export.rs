//! `flatstream export`: what it writes reads back (Parquet, Arrow IPC, CSV, JSON lines) equal
//! to the frames' messages as `cat --schema` prints them and as flatstream-arrow converts
//! them; framing detection and every checksum; several FILEs and `-`; a damaged frame named by
//! file and offset, with no OUT left behind.
#![cfg(feature = "sql")]

mod common;
mod fleet;
use common::*;
use flatstream::checksum::ChecksumKind;
use flatstream::sql::datafusion::arrow::array::RecordBatch;
use flatstream::sql::datafusion::arrow::compute::concat_batches;
use fleet::fleet_batches;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::basic::Compression;
use serde_json::Value;
use std::fs::File;

/// Every row of the Parquet file at `path`, and whether each column chunk is zstd-compressed.
fn read_parquet(path: &str) -> (Vec<RecordBatch>, bool) {
    let builder = ParquetRecordBatchReaderBuilder::try_new(File::open(path).unwrap()).unwrap();
    let zstd = builder.metadata().row_groups().iter().all(|g| {
        g.columns()
            .iter()
            .all(|c| matches!(c.compression(), Compression::ZSTD(_)))
    });
    let batches = builder.build().unwrap().collect::<Result<_, _>>().unwrap();
    (batches, zstd)
}

/// Every row of the Arrow IPC file at `path`.
fn read_arrow(path: &str) -> Vec<RecordBatch> {
    flatstream::sql::datafusion::arrow::ipc::reader::FileReader::try_new(
        File::open(path).unwrap(),
        None,
    )
    .unwrap()
    .collect::<Result<_, _>>()
    .unwrap()
}

/// The rows of `batches` as JSON objects, as arrow-json writes them.
fn json_rows(batches: &[RecordBatch]) -> Vec<Value> {
    let mut w = flatstream::sql::datafusion::arrow::json::LineDelimitedWriter::new(Vec::new());
    for b in batches {
        w.write(b).unwrap();
    }
    w.finish().unwrap();
    String::from_utf8(w.into_inner())
        .unwrap()
        .lines()
        .map(json)
        .collect()
}

/// One batch of every row of `batches`.
fn one(batches: &[RecordBatch]) -> RecordBatch {
    concat_batches(&batches[0].schema(), batches).unwrap()
}

/// The files of `dir`, sorted.
fn listing(dir: &Dir) -> Vec<String> {
    let parent = std::path::Path::new(&dir.path("x"))
        .parent()
        .unwrap()
        .to_owned();
    let mut names: Vec<String> = std::fs::read_dir(parent)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// `flatstream export FILE -s SCHEMA --to FORMAT` and then `more`.
fn export_to(file: &str, schema: &str, format: &str, more: &[&str]) -> Out {
    let mut args = vec!["export", file, "-s", schema, "--to", format];
    args.extend_from_slice(more);
    run(&args)
}

#[test]
fn parquet_reads_back_as_cat_prints_each_checksum_given_or_detected() {
    let dir = Dir::new();
    let schema = telemetry_bfbs();
    for kind in ChecksumKind::ALL {
        let path = dir.file(&format!("t-{kind}.fs"), &telemetry(300, kind));
        let printed = run(&["cat", &path, "-s", &schema, "-c", kind.name()])
            .ok()
            .json_lines();
        assert_eq!(printed.len(), 300);
        for given in [true, false] {
            let out = dir.path(&format!("t-{kind}-{given}.parquet"));
            let mut more = vec!["-o", &out];
            if given {
                more.extend(["--checksum", kind.name()]);
            }
            export_to(&path, &schema, "parquet", &more).ok();
            let (batches, zstd) = read_parquet(&out);
            assert!(zstd, "{kind}: not zstd");
            let rows = json_rows(&batches);
            assert_eq!(rows, printed, "{kind}, given: {given}");
            for (i, row) in rows.iter().enumerate() {
                assert_reading(row, i as u64);
            }
        }
    }
}

#[test]
fn arrow_csv_and_jsonl_read_back_as_cat_prints() {
    let dir = Dir::new();
    let schema = telemetry_bfbs();
    let path = dir.file("t.fs", &telemetry(1000, ChecksumKind::Crc32c));
    let printed = run(&["cat", &path, "-s", &schema]).ok().json_lines();

    let arrow = dir.path("t.arrow");
    export_to(&path, &schema, "arrow", &["-o", &arrow]).ok();
    assert_eq!(json_rows(&read_arrow(&arrow)), printed);

    // JSON lines on stdout, by default: the lines cat prints, as values.
    let out = export_to(&path, &schema, "jsonl", &[]);
    assert_eq!(out.ok().json_lines(), printed);

    // CSV: a header, then each reading with its float read back to the same bits.
    let out = export_to(&path, &schema, "csv", &[]);
    let mut lines = out.ok().stdout.lines();
    assert_eq!(lines.next(), Some("device_id,timestamp,value"));
    let mut n = 0;
    for (i, line) in lines.enumerate() {
        let fields: Vec<&str> = line.split(',').collect();
        let r = flatstream_test_support::telemetry::Reading::nth(i as u64);
        assert_eq!(fields[0].parse::<u64>().unwrap(), r.device_id, "{line}");
        assert_eq!(fields[1].parse::<u64>().unwrap(), r.timestamp, "{line}");
        assert_eq!(
            fields[2].parse::<f64>().unwrap().to_bits(),
            r.value.to_bits(),
            "{line}"
        );
        n += 1;
    }
    assert_eq!(n, 1000);
}

#[test]
fn fleet_reads_back_equal_to_flatstream_arrow_s_batches() {
    // tests/arrow.rs ties these batches to what cat prints, shape by shape.
    let dir = Dir::new();
    let kind = ChecksumKind::XxHash64;
    let (bytes, _, batches) = fleet_batches(kind);
    let path = dir.file("fleet.fs", &bytes);
    let expected = one(&batches);

    let parquet = dir.path("fleet.parquet");
    let schema = fleet_bfbs();
    export_to(&path, &schema, "parquet", &["-o", &parquet]).ok();
    let (read, _) = read_parquet(&parquet);
    let read = one(&read);
    assert_eq!(read.schema().fields(), expected.schema().fields());
    assert_eq!(read.columns(), expected.columns());

    let arrow = dir.path("fleet.arrow");
    export_to(&path, &schema, "arrow", &["-o", &arrow]).ok();
    assert_eq!(one(&read_arrow(&arrow)), expected);

    let out = export_to(&path, &schema, "jsonl", &[]);
    assert_eq!(out.ok().json_lines(), json_rows(&batches));

    // CSV holds no nested column: said before anything is read, and --columns picks others.
    let out = export_to(&path, &schema, "csv", &[]);
    assert_contains(&out.one_line_error(2), "csv cannot hold the nested columns");
    assert_eq!(out.stdout, "");
    let out = export_to(&path, &schema, "csv", &["--columns", "name,_offset"]);
    // A name may hold a newline (quoted, as CSV does): each row ends with its offset.
    let text = &out.ok().stdout;
    assert_starts_with(text, "name,_offset\n");
    let mut rest = &text["name,_offset\n".len()..];
    for at in offsets(&bytes, kind) {
        let end = format!(",{at}\n");
        let found = rest
            .find(&end)
            .unwrap_or_else(|| panic!("{end:?} in {rest:?}"));
        rest = &rest[found + end.len()..];
    }
    assert_eq!(rest, "");
}

#[test]
fn several_files_and_stdin_make_one_table_in_order() {
    let dir = Dir::new();
    let schema = telemetry_bfbs();
    let all = telemetry(90, ChecksumKind::Crc32);
    let at = offsets(&all, ChecksumKind::Crc32);
    let (a, b, c) = (
        &all[..at[30] as usize],
        &all[at[30] as usize..at[60] as usize],
        &all[at[60] as usize..],
    );
    let (a, c) = (dir.file("a.fs", a), dir.file("c.fs", c));
    let out = dir.path("all.parquet");
    run_stdin(
        &[
            "export", &a, "-", &c, "-s", &schema, "--to", "parquet", "-o", &out,
        ],
        b,
    )
    .ok();
    let rows = json_rows(&read_parquet(&out).0);
    assert_eq!(rows.len(), 90);
    for (i, row) in rows.iter().enumerate() {
        assert_reading(row, i as u64);
    }
    // An empty file is a stream of zero frames: a table of zero rows.
    let empty = dir.file("empty.fs", &[]);
    let out = export_to(&empty, &schema, "jsonl", &[]);
    assert_eq!(out.ok().stdout, "");
}

#[test]
fn a_damaged_frame_names_file_and_offset_and_leaves_no_out() {
    let dir = Dir::new();
    let schema = telemetry_bfbs();
    let GoodAndBad {
        good,
        bad,
        bytes,
        at,
    } = GoodAndBad::new(&dir, "fs");
    let out = dir.path("out.parquet");
    let before = listing(&dir);
    let line = run(&[
        "export", &good, &bad, "-s", &schema, "--to", "parquet", "-o", &out,
    ])
    .one_line_error(1);
    assert_starts_with(
        &line,
        &format!(
            "flatstream: {bad}: frame 9 at byte offset {}: corrupt frame: checksum mismatch",
            at[9]
        ),
    );
    assert_ends_with(&line, &format!("; {out} is not written"));
    // No OUT, no temporary file.
    assert_eq!(listing(&dir), before);

    // An old OUT stays as it was.
    std::fs::write(&out, b"old").unwrap();
    export_to(&bad, &schema, "arrow", &["-o", &out]).one_line_error(1);
    assert_eq!(std::fs::read(&out).unwrap(), b"old");

    // On stdout, the rows before the damage are printed, and the error says so.
    let out = export_to(&bad, &schema, "jsonl", &[]);
    let line = out.one_line_error(1);
    assert_ends_with(&line, "; stdout holds the 9 rows before it");
    let rows = out.json_lines();
    assert_eq!(rows.len(), 9);
    for (i, row) in rows.iter().enumerate() {
        assert_reading(row, i as u64);
    }

    // A torn tail is damage too.
    let torn = dir.file("torn.fs", &bytes[..bytes.len() - 3]);
    let line = export_to(&torn, &schema, "jsonl", &[]).one_line_error(1);
    assert_contains(
        &line,
        &format!(
            "{torn}: frame 99 at byte offset {}: torn tail: the stream ends inside it",
            at[99]
        ),
    );
}

#[test]
fn a_message_the_schema_rejects_stops_the_export_unless_skipped() {
    let dir = Dir::new();
    let schema = telemetry_bfbs();
    let payloads = payloads(
        &telemetry(5, ChecksumKind::XxHash64),
        ChecksumKind::XxHash64,
    );
    let mut mixed: Vec<&[u8]> = payloads.iter().map(Vec::as_slice).collect();
    // A frame whose checksum verifies but whose payload is no FlatBuffer.
    mixed.insert(2, &[0xff; 12]);
    let bytes = framed(ChecksumKind::XxHash64, &mixed);
    let at = offsets(&bytes, ChecksumKind::XxHash64);
    let path = dir.file("mixed.fs", &bytes);
    let out = dir.path("out.parquet");
    let line = export_to(&path, &schema, "parquet", &["-o", &out]).one_line_error(1);
    assert_starts_with(
        &line,
        &format!(
            "flatstream: {path}: frame 2 at byte offset {}: not a valid telemetry.Telemetry",
            at[2]
        ),
    );
    assert!(!std::path::Path::new(&out).exists());

    let run_ = export_to(&path, &schema, "parquet", &["-o", &out, "--skip-invalid"]);
    run_.exits(0);
    assert_eq!(
        run_.stderr,
        "flatstream: skipped 1 message that is not valid telemetry.Telemetry\n"
    );
    let rows = json_rows(&read_parquet(&out).0);
    assert_eq!(rows.len(), 5);
    for (i, row) in rows.iter().enumerate() {
        assert_reading(row, i as u64);
    }
    // --quiet leaves stderr to errors.
    export_to(
        &path,
        &schema,
        "parquet",
        &["-o", &out, "--skip-invalid", "-q"],
    )
    .ok();
}

#[test]
fn usage_errors_are_status_2_and_create_nothing() {
    let dir = Dir::new();
    let schema = telemetry_bfbs();
    let path = dir.file("t.fs", &telemetry(10, ChecksumKind::Crc16));
    let missing = dir.path("missing.fs");
    let out = dir.path("out.parquet");
    let before = listing(&dir);
    for (args, says) in [
        (
            vec!["export", &path, "-s", &schema, "--to", "parquet"],
            "--to parquet writes a binary file: pass -o OUT",
        ),
        (
            vec![
                "export", &path, &missing, "-s", &schema, "--to", "arrow", "-o", &out,
            ],
            "missing.fs: no such file or directory",
        ),
        (
            vec!["export", &path, "-s", &path, "--to", "jsonl"],
            "not a binary schema",
        ),
        (
            vec![
                "export",
                &path,
                "-s",
                &schema,
                "--root-type",
                "Nope",
                "--to",
                "jsonl",
            ],
            "root type `Nope` is not a table of the schema",
        ),
        (
            vec![
                "export",
                &path,
                "-s",
                &schema,
                "--columns",
                "nope",
                "--to",
                "jsonl",
            ],
            "--columns: no column named `nope`",
        ),
        (
            vec!["export", &path, "-s", &schema, "--to", "jsonl", "-o", &path],
            "is the input file",
        ),
    ] {
        let line = run(&args).one_line_error(2);
        assert_contains(&line, says);
    }
    assert_eq!(listing(&dir), before);
    // A framing that cannot be told: status 2, as the help says.
    let zeros = dir.file("zeros.fs", &[0; 64]);
    let line = export_to(&zeros, &schema, "jsonl", &[]).one_line_error(2);
    assert_contains(&line, "cannot tell the stream's framing");
}

#[test]
fn the_offset_column_gives_each_frame_s_offset() {
    let Capture { dir, bytes, at } = Capture::new(20, ChecksumKind::None);
    let path = dir.file("t.fs", &bytes);
    let schema = telemetry_bfbs();
    let out = export_to(&path, &schema, "jsonl", &["--offset-column"]);
    let rows = out.ok().json_lines();
    for (i, (row, at)) in rows.iter().zip(&at).enumerate() {
        assert_reading(row, i as u64);
        assert_eq!(row["_offset"].as_u64(), Some(*at));
    }
    assert_eq!(rows.len(), 20);
}

#[test]
fn completions_and_the_man_page_name_export_and_query() {
    let bash = run(&["--generate", "complete-bash"]).ok().stdout.clone();
    for word in [
        "export",
        "query",
        "--to",
        "--columns",
        "--offset-column",
        "--format",
    ] {
        assert_contains(&bash, word);
    }
    let man = run(&["--generate", "man"]).ok().stdout.clone();
    for command in ["EXPORT", "QUERY"] {
        assert_contains(
            &man,
            &format!("\n.SH \"FLATSTREAM {command}\"\n.SS SYNOPSIS\n"),
        );
    }
}

#[test]
fn a_closed_stdout_ends_csv_and_jsonl_quietly() {
    use std::io::Read;
    use std::process::{Command, Stdio};
    let dir = Dir::new();
    let path = dir.file("t.fs", &telemetry(100_000, ChecksumKind::XxHash64));
    let schema = telemetry_bfbs();
    for (command, format) in [("export", "csv"), ("export", "jsonl")] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_flatstream"))
            .args([command, &path, "-s", &schema, "--to", format])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Read one line's worth, then close the pipe, as `| head -1` does.
        let mut stdout = child.stdout.take().unwrap();
        let mut first = [0u8; 16];
        stdout.read_exact(&mut first).unwrap();
        drop(stdout);
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{format}: {out:?}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), "", "{format}");
    }
}
