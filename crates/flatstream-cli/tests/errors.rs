//! Errors are one clear line and an exit status, never a panic; `--help` explains every
//! command's options and exit statuses.

mod common;
use common::*;
use flatstream::checksum::ChecksumKind;

#[test]
fn a_missing_file_is_one_line_and_status_2() {
    for command in ["inspect", "verify", "recover", "cat"] {
        assert_eq!(
            run(&[command, "/no/such/file.fstream"]).one_line_error(2),
            "flatstream: /no/such/file.fstream: no such file or directory"
        );
    }
    for args in [
        &["salvage", "/no/such/file", "-o", "/tmp/x"][..],
        &[
            "convert",
            "/no/such/file",
            "-o",
            "/tmp/x",
            "--to-checksum",
            "none",
        ],
    ] {
        assert_ends_with(&run(args).one_line_error(2), "no such file or directory");
    }
}

#[test]
fn an_unreadable_schema_is_one_line_and_status_2() {
    let dir = Dir::new();
    let stream = dir.file("s", &telemetry(3, ChecksumKind::XxHash64));
    assert_eq!(
        run(&["verify", &stream, "--schema", "/no/schema.bfbs"]).one_line_error(2),
        "flatstream: /no/schema.bfbs: cannot read the schema: no such file or directory"
    );
    // A text schema, not its binary form.
    let fbs = common::root().join("examples/telemetry.fbs");
    assert_ends_with(
        &run(&["cat", &stream, "--schema", fbs.to_str().unwrap()]).one_line_error(2),
        "not a binary schema (flatc -b --schema x.fbs writes x.bfbs)",
    );
    // The right identifier on garbage.
    let fake = dir.file("fake.bfbs", b"\x08\0\0\0BFBS\xff\xff\xff\xff");
    assert_contains(
        &run(&["cat", &stream, "--schema", &fake]).one_line_error(2),
        "not a valid binary schema",
    );
}

#[test]
fn an_unknown_checksum_name_is_a_usage_error() {
    assert_contains(
        &run(&["verify", "x", "--checksum", "md5"]).exits(2).stderr,
        "unknown checksum algorithm: expected none, xxhash64, crc32, crc16 or crc32c",
    );
}

#[test]
fn a_directory_is_not_a_stream() {
    let dir = Dir::new();
    assert_ends_with(
        &run(&["verify", &dir.path("")]).one_line_error(2),
        "is a directory",
    );
}

#[test]
fn every_command_explains_its_options_and_exit_status() {
    assert_contains(&run(&["--help"]).ok().stdout, "Exit status:");
    for (command, options) in [
        (
            "inspect",
            &["--checksum", "--max-frame-len", "--no-mmap", "--json"][..],
        ),
        (
            "verify",
            &[
                "--checksum",
                "--schema",
                "--root-type",
                "--max-frame-len",
                "--all",
                "--json",
            ],
        ),
        ("recover", &["--truncate", "--cut-corrupt", "--json"]),
        ("salvage", &["--output", "--max-frame-len", "--json"]),
        (
            "cat",
            &[
                "--schema",
                "--root-type",
                "--format",
                "--bytes",
                "--skip",
                "--limit",
            ],
        ),
        (
            "convert",
            &[
                "-o, --output",
                "--to-checksum",
                "--checksum",
                "--max-frame-len",
            ],
        ),
    ] {
        let out = run(&[command, "--help"]);
        assert_contains(&out.ok().stdout, "Exit status:\n  0  ");
        for option in options {
            assert!(
                out.stdout.contains(option),
                "{command} --help lacks {option}"
            );
        }
    }
}

#[test]
fn a_closed_pipe_ends_cat_quietly() {
    // A closed stdout (`flatstream cat … | head`) ends the command quietly.
    let dir = Dir::new();
    let path = dir.file("t", &telemetry(200_000, ChecksumKind::XxHash64));
    let out = close_stdout_after(&["cat", &path, "--schema", &telemetry_bfbs()], 64);
    assert_eq!(out.0, 0, "stderr: {}", out.1);
    assert_eq!(out.1, "");
}

#[test]
fn a_closed_pipe_ends_every_file_quietly() {
    // `flatstream cat A B missing | head -1`: once stdout is closed, nothing more is printed,
    // not even the missing file's error, and the status is 0, as cat(1) under head would end.
    let dir = Dir::new();
    let path = dir.file("t", &telemetry(100_000, ChecksumKind::XxHash64));
    let missing = dir.path("missing");
    for args in [
        &["cat", &path, &path, &missing][..],
        &["cat", &path, &missing, "--format", "json"],
    ] {
        // The first file alone prints far more than a pipe holds: the command is still
        // writing it when the pipe closes.
        let out = close_stdout_after(args, 16);
        assert_eq!(out, (0, String::new()), "{args:?}");
    }
}

/// Runs the command with `args`, reads `len` bytes of its output, closes its stdout (as `head`
/// does), and waits for it: its exit status and what it wrote on stderr.
fn close_stdout_after(args: &[&str], len: usize) -> (i32, String) {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_flatstream"));
    cmd.args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    std::io::Read::read_exact(&mut stdout, &mut vec![0; len]).unwrap();
    drop(stdout);
    bounded_wait(child)
}

fn bounded_wait(mut child: std::process::Child) -> (i32, String) {
    let started = std::time::Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let mut err = String::new();
            std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
            return (status.code().unwrap(), err);
        }
        assert!(started.elapsed().as_secs() < 60, "still running");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}
