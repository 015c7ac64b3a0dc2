//! Hostile schemas and payloads through every command that takes `--schema` (cat, verify,
//! tail, pack, query, export), in the real binary under a 4 GiB address-space limit: a schema
//! that is refused is one line and status 1 or 2 in every command; a payload is read by every
//! command that reads it exactly when `verify --schema` passes it; nothing panics, aborts or
//! grows without bound.

mod common;

use common::*;
use flatstream::checksum::ChecksumKind;
use flatstream_test_support::hostile::{self, Expect};
use std::process::{Command, Stdio};

/// The address space a run may take: far above what any case needs read within its budget,
/// far below what the amplifying payloads would take without one.
const LIMIT_KIB: u64 = 4 << 20;

/// Runs `flatstream ARGS` (stdin: `stdin`) under [`LIMIT_KIB`].
fn limited(args: &[&str], stdin: &[u8]) -> Out {
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(format!("ulimit -v {LIMIT_KIB} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_flatstream"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    bounded(cmd, Some(stdin))
}

/// Every command with `--schema`, as (name, args, stdin), for `stream` (a file) and `schema`;
/// export writes to `out`.
fn commands(stream: &str, schema: &str, out: &str) -> Vec<(&'static str, Vec<String>, Vec<u8>)> {
    let s = |v: &[&str]| v.iter().map(|a| a.to_string()).collect::<Vec<_>>();
    let sql = format!("SELECT * FROM '{stream}'");
    let mut commands = vec![
        ("cat", s(&["cat", stream, "-s", schema]), Vec::new()),
        ("verify", s(&["verify", stream, "-s", schema]), Vec::new()),
        (
            "tail",
            s(&["tail", "-n", "5", stream, "-s", schema]),
            Vec::new(),
        ),
        (
            "pack",
            s(&["pack", "-s", schema, "-o", out]),
            b"{}\n".to_vec(),
        ),
    ];
    // Without the `sql` feature, query and export only say so.
    if cfg!(feature = "sql") {
        commands.push((
            "query",
            s(&["query", "-s", schema, "--format", "json", &sql]),
            Vec::new(),
        ));
        commands.push((
            "export",
            s(&["export", stream, "-s", schema, "--to", "jsonl", "-o", out]),
            Vec::new(),
        ));
    }
    commands
}

/// Asserts `out` is no crash: a status of ours, no panic or library assertion on stderr.
fn no_crash(what: &str, out: &Out) {
    assert!(
        matches!(out.status, 0..=2),
        "{what}: status {} ({})",
        out.status,
        out.stderr
    );
    for word in ["panicked", "internal error", "assertion", "RUST_BACKTRACE"] {
        assert!(!out.stderr.contains(word), "{what}: {}", out.stderr);
    }
}

#[test]
fn a_refused_schema_is_one_line_and_status_1_or_2_in_every_command() {
    let dir = Dir::new();
    let stream = dir.file("t.fs", &telemetry(3, ChecksumKind::XxHash64));
    let empty = dir.file("empty.fs", b"");
    for case in hostile::cases()
        .into_iter()
        .filter(|c| c.schema == Expect::Refused)
    {
        let schema = dir.file("s.bfbs", &case.bfbs);
        for input in [&stream, &empty] {
            for (command, args, stdin) in commands(input, &schema, &dir.path("out")) {
                let args: Vec<&str> = args.iter().map(String::as_str).collect();
                let out = limited(&args, &stdin);
                let what = format!("{} / {command}", case.name);
                no_crash(&what, &out);
                assert!(matches!(out.status, 1 | 2), "{what}: {out:?}");
                let line = out.stderr.trim_end();
                assert!(!line.contains('\n'), "{what}: {line}");
                assert!(line.starts_with("flatstream: "), "{what}: {line}");
                assert_eq!(out.stdout, "", "{what}");
            }
        }
    }
}

#[test]
fn every_command_reads_what_verify_passes_and_prints_nothing_it_rejects() {
    let dir = Dir::new();
    for case in hostile::cases()
        .into_iter()
        .filter(|c| c.schema != Expect::Refused)
    {
        let schema = dir.file("s.bfbs", &case.bfbs);
        for (i, (payload, expect)) in case.payloads.iter().enumerate() {
            let stream = dir.file("p.fs", &framed(ChecksumKind::XxHash64, &[payload]));
            let out = dir.path("out");
            let mut verdicts = Vec::new();
            for (command, args, stdin) in commands(&stream, &schema, &out) {
                if command == "pack" {
                    continue;
                }
                let args: Vec<&str> = args.iter().map(String::as_str).collect();
                let run = limited(&args, &stdin);
                let what = format!("{} #{i} / {command}", case.name);
                no_crash(&what, &run);
                if run.status != 0 {
                    assert!(
                        !run.stdout.contains('{'),
                        "{what}: printed a rejected frame: {}",
                        run.stdout
                    );
                }
                verdicts.push((command, run.status == 0));
            }
            let verified = verdicts.iter().find(|(c, _)| *c == "verify").unwrap().1;
            for (command, read) in &verdicts {
                assert_eq!(
                    *read, verified,
                    "{} #{i}: {command} and verify disagree ({verdicts:?})",
                    case.name
                );
            }
            match expect {
                Expect::Valid => assert!(verified, "{} #{i}", case.name),
                Expect::Invalid => assert!(!verified, "{} #{i}", case.name),
                _ => {}
            }
            if !cfg!(feature = "sql") {
                continue;
            }
            // Skipped, an invalid frame is counted, and the export succeeds.
            let args = [
                "export",
                &stream,
                "-s",
                &schema,
                "--to",
                "jsonl",
                "-o",
                &out,
                "--skip-invalid",
            ];
            let run = limited(&args, b"");
            no_crash(&format!("{} #{i} / export --skip-invalid", case.name), &run);
            assert_eq!(run.status, 0, "{} #{i}: {}", case.name, run.stderr);
        }
        // `pack` of an empty object: a frame verify passes, or an error of one line.
        let out = dir.path("packed.fs");
        let run = limited(&["pack", "-s", &schema, "-o", &out], b"{}\n");
        no_crash(&format!("{} / pack", case.name), &run);
        if run.status == 0 {
            run_with(&["verify", &out, "-s", &schema], None, &[]).exits(0);
        }
    }
}

#[test]
fn a_schema_cut_short_or_with_a_bit_flipped_never_crashes_a_command() {
    let dir = Dir::new();
    let bfbs = std::fs::read(telemetry_bfbs()).unwrap();
    let stream = dir.file("t.fs", &telemetry(3, ChecksumKind::XxHash64));
    let mut variants: Vec<Vec<u8>> = [0, 4, 8, 20, bfbs.len() / 2, bfbs.len() - 1]
        .iter()
        .map(|&n| bfbs[..n].to_vec())
        .collect();
    for at in (0..bfbs.len()).step_by(bfbs.len() / 8 + 1) {
        let mut bad = bfbs.clone();
        bad[at] ^= 0x40;
        variants.push(bad);
    }
    for (v, bytes) in variants.iter().enumerate() {
        let schema = dir.file("s.bfbs", bytes);
        for (command, args, stdin) in commands(&stream, &schema, &dir.path("out")) {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let out = limited(&args, &stdin);
            no_crash(&format!("variant {v} / {command}"), &out);
            if out.status != 0 {
                assert!(!out.stderr.trim_end().contains('\n'), "{}", out.stderr);
            }
        }
    }
}

#[test]
fn an_empty_root_type_is_a_usage_error_in_every_command() {
    let dir = Dir::new();
    let stream = dir.file("t.fs", &telemetry(1, ChecksumKind::XxHash64));
    let schema = telemetry_bfbs();
    for (command, mut args, stdin) in commands(&stream, &schema, &dir.path("out")) {
        args.extend(["--root-type".to_owned(), String::new()]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = limited(&args, &stdin);
        assert_eq!(out.status, 2, "{command}: {out:?}");
        assert!(
            out.stderr.contains("--root-type"),
            "{command}: {}",
            out.stderr
        );
    }
}
