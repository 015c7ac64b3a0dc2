//! Errors are one clear line and an exit status, never a panic; `--help` explains every
//! command's options and exit statuses.

mod common;
use common::*;
use flatstream::ChecksumKind;

#[test]
fn a_missing_file_is_one_line_and_status_2() {
    for command in ["inspect", "verify", "recover", "cat"] {
        let line = run(&[command, "/no/such/file.fstream"])
            .one_line_error(2)
            .to_owned();
        assert_eq!(
            line,
            "flatstream: /no/such/file.fstream: no such file or directory"
        );
    }
    let line = run(&["salvage", "/no/such/file", "-o", "/tmp/x"])
        .one_line_error(2)
        .to_owned();
    assert!(line.ends_with("no such file or directory"), "{line}");
    let line = run(&[
        "convert",
        "/no/such/file",
        "/tmp/x",
        "--to-checksum",
        "none",
    ])
    .one_line_error(2)
    .to_owned();
    assert!(line.ends_with("no such file or directory"), "{line}");
}

#[test]
fn an_unreadable_schema_is_one_line_and_status_2() {
    let dir = Dir::new();
    let stream = dir.file("s", &telemetry(3, ChecksumKind::XxHash64));
    let line = run(&["verify", &stream, "--schema", "/no/schema.bfbs"])
        .one_line_error(2)
        .to_owned();
    assert_eq!(
        line,
        "flatstream: /no/schema.bfbs: cannot read the schema: no such file or directory"
    );
    // A text schema, not its binary form.
    let fbs = common::root().join("examples/telemetry.fbs");
    let line = run(&["cat", &stream, "--schema", fbs.to_str().unwrap()])
        .one_line_error(2)
        .to_owned();
    assert!(
        line.ends_with("not a binary schema (flatc -b --schema x.fbs writes x.bfbs)"),
        "{line}"
    );
    // The right identifier on garbage.
    let fake = dir.file("fake.bfbs", b"\x08\0\0\0BFBS\xff\xff\xff\xff");
    let line = run(&["cat", &stream, "--schema", &fake])
        .one_line_error(2)
        .to_owned();
    assert!(line.contains("not a valid binary schema"), "{line}");
}

#[test]
fn an_unknown_checksum_name_is_a_usage_error() {
    let out = run(&["verify", "x", "--checksum", "md5"]);
    assert_eq!(out.status, 2);
    assert!(
        out.stderr.contains(
            "unknown checksum algorithm: expected none, xxhash64, crc32, crc16 or crc32c"
        ),
        "{}",
        out.stderr
    );
}

#[test]
fn a_directory_is_not_a_stream() {
    let dir = Dir::new();
    let line = run(&["verify", &dir.path("")]).one_line_error(2).to_owned();
    assert!(line.ends_with("is a directory"), "{line}");
}

#[test]
fn every_command_explains_its_options_and_exit_status() {
    let out = run(&["--help"]);
    out.ok();
    assert!(out.stdout.contains("Exit status:"), "{}", out.stdout);
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
            &["--to-checksum", "--from-checksum", "--max-frame-len"],
        ),
    ] {
        let out = run(&[command, "--help"]);
        out.ok();
        assert!(
            out.stdout.contains("Exit status:\n  0  "),
            "{command}: {}",
            out.stdout
        );
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
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_flatstream"));
    cmd.args(["cat", &path, "--schema", &telemetry_bfbs()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 64];
    std::io::Read::read_exact(&mut stdout, &mut first).unwrap();
    drop(stdout);
    let out = bounded_wait(child);
    assert_eq!(out.0, 0, "stderr: {}", out.1);
    assert_eq!(out.1, "");
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
