//! `flatstream query`: SQL over files and globs of streams gives what a computation in Rust
//! over the same frames gives; each file's framing detected; errors of the SQL are status 2,
//! damaged data status 1, each one line.
#![cfg(feature = "sql")]

mod common;
use common::*;
use flatstream::checksum::ChecksumKind;
use flatstream_test_support::telemetry::Reading;
use std::collections::BTreeMap;

/// Three files of telemetry in a directory, each framed with another checksum, and the
/// readings they hold (file by file: readings 0..n of `telemetry`).
fn captures(dir: &Dir) -> (String, Vec<Reading>) {
    let mut readings = Vec::new();
    for (name, n, kind) in [
        ("a.fstream", 500, ChecksumKind::XxHash64),
        ("b.fstream", 300, ChecksumKind::Crc32c),
        ("c.fstream", 200, ChecksumKind::Crc16),
    ] {
        dir.file(name, &telemetry(n, kind));
        readings.extend((0..n).map(Reading::nth));
    }
    // Not a stream of the glob: left out.
    dir.file("notes.txt", b"not a stream");
    let glob = dir.path("*.fstream");
    (glob, readings)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

#[test]
fn group_by_count_and_avg_over_a_glob_equal_rust_s() {
    let dir = Dir::new();
    let (glob, readings) = captures(&dir);
    let sql = format!(
        "SELECT device_id, count(*) AS n, avg(value) AS mean, max(timestamp) AS last \
         FROM '{glob}' GROUP BY device_id ORDER BY device_id"
    );
    let out = run(&["query", "-s", &telemetry_bfbs(), "--format", "json", &sql]);
    let rows = out.ok().json_lines();

    let mut expected: BTreeMap<u64, (u64, f64, u64)> = BTreeMap::new();
    for r in &readings {
        let e = expected.entry(r.device_id).or_insert((0, 0.0, 0));
        e.0 += 1;
        e.1 += r.value;
        e.2 = e.2.max(r.timestamp);
    }
    assert_eq!(rows.len(), expected.len());
    for (row, (device, (n, sum, last))) in rows.iter().zip(&expected) {
        assert_eq!(row["device_id"].as_u64(), Some(*device), "{row}");
        assert_eq!(row["n"].as_u64(), Some(*n), "{row}");
        assert_eq!(row["last"].as_u64(), Some(*last), "{row}");
        // The sum's order differs among partitions: equal within rounding.
        let mean = row["mean"].as_f64().unwrap();
        assert!(close(mean, sum / *n as f64), "{row}: {}", sum / *n as f64);
    }
}

#[test]
fn a_filter_and_a_limit_give_the_rows_rust_picks() {
    let dir = Dir::new();
    let path = dir.file("t.fstream", &telemetry(2000, ChecksumKind::Crc32));
    let sql = format!(
        "SELECT device_id, timestamp, value FROM '{path}' WHERE value > 20.5 AND device_id < 10 \
         ORDER BY timestamp, device_id LIMIT 7"
    );
    let rows = run(&["query", "-s", &telemetry_bfbs(), "--format", "json", &sql])
        .ok()
        .json_lines();
    let expected: Vec<Reading> = (0..2000)
        .map(Reading::nth)
        .filter(|r| r.value > 20.5 && r.device_id < 10)
        .take(7)
        .collect();
    assert_eq!(rows.len(), 7);
    for (row, r) in rows.iter().zip(&expected) {
        assert_is(row, r);
    }
}

#[test]
fn every_checksum_given_or_detected_counts_every_frame() {
    let dir = Dir::new();
    for kind in ChecksumKind::ALL {
        let path = dir.file(&format!("{kind}.fstream"), &telemetry(321, kind));
        let sql = format!("SELECT count(*) AS n, sum(device_id) AS s FROM '{path}'");
        let s: u64 = (0..321).map(|i| Reading::nth(i).device_id).sum();
        let schema = telemetry_bfbs();
        for given in [Some(kind.name()), None] {
            let mut args = vec!["query", "-s", &schema, "--format", "json"];
            if let Some(name) = given {
                args.extend(["--checksum", name]);
            }
            args.push(&sql);
            let rows = run(&args).ok().json_lines();
            assert_eq!(rows.len(), 1);
            assert_eq!(rows[0]["n"].as_u64(), Some(321), "{kind} {given:?}");
            assert_eq!(rows[0]["s"].as_u64(), Some(s), "{kind} {given:?}");
        }
    }
}

#[test]
fn table_and_csv_print_the_same_rows() {
    let dir = Dir::new();
    let path = dir.file("t.fs", &telemetry(100, ChecksumKind::XxHash64));
    let sql = format!(
        "SELECT device_id, count(*) AS n FROM '{path}' WHERE device_id <= 3 GROUP BY device_id \
         ORDER BY device_id"
    );
    let schema = telemetry_bfbs();
    let table = run(&["query", "-s", &schema, &sql]).ok().stdout.clone();
    assert_eq!(
        table,
        "+-----------+---+\n\
         | device_id | n |\n\
         +-----------+---+\n\
         | 1         | 2 |\n\
         | 2         | 2 |\n\
         | 3         | 2 |\n\
         +-----------+---+\n"
    );
    let csv = run(&["query", "-s", &schema, "--format", "csv", &sql]);
    assert_eq!(csv.ok().stdout, "device_id,n\n1,2\n2,2\n3,2\n");
    // No rows: the header still says what the columns are.
    let none = format!("SELECT device_id FROM '{path}' WHERE device_id > 1000");
    let csv = run(&["query", "-s", &schema, "--format", "csv", &none]);
    assert_eq!(csv.ok().stdout, "device_id\n");
    let json = run(&["query", "-s", &schema, "--format", "json", &none]);
    assert_eq!(json.ok().stdout, "");
}

#[test]
fn errors_of_the_sql_are_status_2_and_damaged_data_status_1() {
    let dir = Dir::new();
    let schema = telemetry_bfbs();
    let GoodAndBad { good, bad, at, .. } = GoodAndBad::new(&dir, "fstream");
    let missing = dir.path("missing.fstream");
    for (sql, says) in [
        ("SELEC 1".to_owned(), "sql parser error"),
        (format!("SELECT nope FROM '{good}'"), "nope"),
        (format!("SELECT * FROM '{missing}'"), "missing.fstream"),
    ] {
        let line = run(&["query", "-s", &schema, &sql]).one_line_error(2);
        assert_contains(&line, says);
    }
    let line = run(&["query", "-s", &good, "SELECT 1"]).one_line_error(2);
    assert_contains(&line, "not a binary schema");

    let sql = format!("SELECT count(*) FROM '{bad}'");
    let line = run(&["query", "-s", &schema, &sql]).one_line_error(1);
    // flatstream-datafusion names the file by its object-store path (no leading slash).
    assert_contains(&line, "bad.fstream");
    assert_contains(&line, &format!("offset {}", at[9]));
    assert_contains(&line, "checksum mismatch");
}

/// A telemetry payload whose `timestamp` field points past the payload's end (its vtable entry
/// changed): not a valid message, but its `device_id` and `value` are intact.
fn bad_timestamp() -> Vec<u8> {
    let mut payload = payloads(&telemetry(1, ChecksumKind::None), ChecksumKind::None).remove(0);
    let le32 = |at: usize| u32::from_le_bytes(payload[at..at + 4].try_into().unwrap());
    let table = le32(0) as usize;
    let vtable = (table as i64 - i64::from(le32(table) as i32)) as usize;
    // Slot 6: the second field, `timestamp`.
    payload[vtable + 6..vtable + 8].copy_from_slice(&0xFFF0u16.to_le_bytes());
    payload
}

#[test]
fn a_query_verifies_the_fields_it_reads_and_verify_unread_every_field() {
    let (dir, schema) = (Dir::new(), telemetry_bfbs());
    let path = dir.file(
        "t.fstream",
        &framed(ChecksumKind::XxHash64, &[bad_timestamp()]),
    );
    let intact = Reading::nth(0);

    let sql = format!("SELECT device_id, value FROM '{path}'");
    let rows = run(&["query", "-s", &schema, "--format", "json", &sql])
        .ok()
        .json_lines();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["device_id"].as_u64(), Some(intact.device_id));
    assert_eq!(rows[0]["value"].as_f64(), Some(intact.value));

    let sql = format!("SELECT timestamp FROM '{path}'");
    let line = run(&["query", "-s", &schema, &sql]).one_line_error(1);
    assert_contains(&line, "t.fstream");
    let sql = format!("SELECT device_id FROM '{path}'");
    let line = run(&["query", "-s", &schema, "--verify-unread", &sql]).one_line_error(1);
    assert_contains(&line, "t.fstream");

    // export reads every column unless --columns says otherwise.
    let export = |extra: &[&str]| {
        let mut args = vec!["export", &path[..], "-s", &schema, "--to", "jsonl"];
        args.extend(extra);
        run(&args)
    };
    export(&[]).one_line_error(1);
    let rows = export(&["--columns", "value"]).ok().json_lines();
    assert_eq!(rows[0]["value"].as_f64(), Some(intact.value));
    export(&["--columns", "value", "--verify-unread"]).one_line_error(1);
}

/// `--offset-column` gives every table the column `_offset` (each row's frame offset in its
/// file), which the README's crate table offers; without it, the error says how to get it.
#[test]
fn offset_column_gives_each_row_its_frame_offset() {
    let dir = Dir::new();
    let bytes = telemetry(100, ChecksumKind::Crc32c);
    let at = offsets(&bytes, ChecksumKind::Crc32c);
    let path = dir.file("t.fstream", &bytes);
    let sql = format!(
        "SELECT _offset, device_id FROM '{path}' WHERE device_id IN (3, 70) ORDER BY _offset"
    );
    let schema = telemetry_bfbs();
    let args = ["query", "-s", &schema, "--format", "json", &sql];
    let rows = run(&[&args[..], &["--offset-column"]].concat())
        .ok()
        .json_lines();
    let expected: Vec<(u64, u64)> = (0..100)
        .filter(|&i| [3, 70].contains(&Reading::nth(i).device_id))
        .map(|i| (at[i as usize], Reading::nth(i).device_id))
        .collect();
    assert!(expected.len() >= 2, "{expected:?}");
    let got: Vec<(u64, u64)> = rows
        .iter()
        .map(|r| {
            (
                r["_offset"].as_u64().unwrap(),
                r["device_id"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(got, expected);

    let line = run(&args).one_line_error(2);
    assert_contains(&line, "_offset");
    assert_contains(&line, "--offset-column");
}
