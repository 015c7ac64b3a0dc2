//! What every command shares, as ripgrep and fd do it: several FILEs with one result each and
//! the worst status, `-o OUT` and `--checksum` for the input, an empty file as a clean empty
//! stream, `--quiet`, and `--generate` for shell completions and the man page.

mod common;
use common::*;
use flatstream::checksum::ChecksumKind;
use std::process::{Command, Stdio};

/// An intact stream, a damaged one (a flipped payload byte in frame 9), and an empty file.
fn files(dir: &Dir) -> (String, String, String) {
    let (bytes, at) = telemetry_at(100, ChecksumKind::Crc32);
    let good = dir.file("good.fs", &bytes);
    let bad = dir.file("bad.fs", &flipped(&bytes, at[9] + 12, 1));
    let empty = dir.file("empty.fs", &[]);
    (good, bad, empty)
}

#[test]
fn verify_reports_each_file_by_name_and_exits_with_the_worst_status() {
    let dir = Dir::new();
    let (good, bad, empty) = files(&dir);
    let missing = dir.path("missing.fs");
    let len = std::fs::metadata(&good).unwrap().len();

    let out = run(&["verify", &good, &empty]);
    out.ok();
    assert_eq!(
        out.stdout,
        format!(
            "{good}: ok: 100 frames, {len} bytes, crc32 checksums verify\n\
             {empty}: ok: 0 frames, 0 bytes: an empty stream\n"
        )
    );

    // A damaged file: 1, and its error names it; the files after it are still verified.
    let out = run(&["verify", &bad, &good]);
    out.exits(1);
    assert_eq!(
        out.stdout,
        format!("{good}: ok: 100 frames, {len} bytes, crc32 checksums verify\n")
    );
    assert_starts_with(
        &out.stderr,
        &format!("flatstream: {bad}: frame 9 at byte offset "),
    );
    assert_eq!(out.stderr.lines().count(), 1, "{out:?}");

    // A missing file is worse: 2, whatever order.
    for args in [[&bad, &missing, &good], [&missing, &good, &bad]] {
        let args: Vec<&str> = std::iter::once("verify")
            .chain(args.iter().map(|s| s.as_str()))
            .collect();
        let out = run(&args);
        out.exits(2);
        assert_contains(
            &out.stderr,
            &format!("flatstream: {missing}: no such file or directory\n"),
        );
        assert_contains(&out.stderr, &format!("flatstream: {bad}: frame 9"));
        assert_contains(&out.stdout, &format!("{good}: ok: 100 frames"));
    }

    // --json: one object per file and per line, each with its file.
    let out = run(&["verify", "--json", &good, &bad]);
    out.exits(1);
    let reports = out.json_lines();
    assert_eq!(reports.len(), 2, "{out:?}");
    assert_eq!(
        (&reports[0]["file"], &reports[0]["ok"]),
        (&good.clone().into(), &true.into())
    );
    assert_eq!(
        (&reports[1]["file"], &reports[1]["ok"]),
        (&bad.clone().into(), &false.into())
    );

    // Standard input among them, as `-`.
    let bytes = std::fs::read(&good).unwrap();
    let out = run_stdin(&["verify", "-", &good], &bytes);
    out.ok();
    assert_starts_with(&out.stdout, "stdin: ok: 100 frames");
}

#[test]
fn inspect_and_cat_take_several_files_too() {
    let dir = Dir::new();
    let (good, bad, empty) = files(&dir);

    let out = run(&["inspect", &good, &empty]);
    out.ok();
    let blocks: Vec<&str> = out.stdout.split("\n\n").collect();
    assert_eq!(blocks.len(), 2, "{}", out.stdout);
    assert_starts_with(blocks[0], &format!("file      {good}\n"));
    assert_starts_with(blocks[1], &format!("file      {empty}\n"));
    let out = run(&["inspect", "--json", &good, &bad]);
    out.exits(1);
    let reports = out.json_lines();
    assert_eq!(
        (&reports[0]["end"], &reports[1]["end"]),
        (&"clean".into(), &"corrupt".into())
    );

    // Hex lines start with their file's name; --limit counts per file.
    let out = run(&["cat", &good, &good, "--limit", "2"]);
    out.ok();
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), 4, "{}", out.stdout);
    for (line, index) in lines.iter().zip([0, 1, 0, 1]) {
        assert_starts_with(line, &format!("{good}: frame {index} offset "));
    }
    // Raw JSON objects name their file; messages printed through a schema stay as they are.
    let out = run(&["cat", &good, &empty, "--format", "json", "--limit", "1"]);
    let objects = out.ok().json_lines();
    assert_eq!(objects.len(), 1);
    assert_eq!(
        (&objects[0]["file"], &objects[0]["index"]),
        (&good.clone().into(), &0.into())
    );
    let bfbs = telemetry_bfbs();
    let out = run(&["cat", &good, &good, "-s", &bfbs]);
    let messages = out.ok().json_lines();
    assert_eq!(messages.len(), 200);
    assert!(messages[0].get("file").is_none(), "{}", messages[0]);
    assert_reading(&messages[100], 0);

    // A damaged file ends its own listing, with its error, and the next file is printed.
    let out = run(&["cat", &bad, &good, "-s", &bfbs]);
    out.exits(1);
    assert_eq!(out.json_lines().len(), 9 + 100);
    assert_starts_with(
        &out.stderr,
        &format!("flatstream: {bad}: frame 9 at byte offset "),
    );
}

#[test]
fn an_empty_file_is_a_clean_stream_of_zero_frames_for_every_command() {
    let dir = Dir::new();
    let empty = dir.file("empty.fs", &[]);
    let out = run(&["inspect", &empty]);
    assert_contains(
        &out.ok().stdout,
        "framing   none needed: the input is empty (a stream of zero frames)\n",
    );
    assert_contains(&out.stdout, "frames    0\n");
    assert_eq!(
        run(&["verify", &empty]).ok().stdout,
        "ok: 0 frames, 0 bytes: an empty stream\n"
    );
    assert_eq!(
        run_stdin(&["verify", "-"], &[]).ok().stdout,
        "ok: 0 frames, 0 bytes: an empty stream\n"
    );
    assert_eq!(run(&["cat", &empty]).ok().stdout, "");
    assert_eq!(run(&["tail", &empty]).ok().stdout, "");
    assert_eq!(run(&["cat", &empty, "--format", "json"]).ok().stdout, "");
    run(&["recover", &empty]).ok();
    let out = dir.path("out.fs");
    run(&["convert", &empty, "-o", &out, "--to-checksum", "xxhash64"]).ok();
    assert_eq!(std::fs::read(&out).unwrap(), b"");
    let out = dir.path("salvaged.fs");
    run(&["salvage", &empty, "-o", &out]).ok();
    assert_eq!(std::fs::read(&out).unwrap(), b"");

    // And the help says so, next to the statuses it documents.
    for command in ["inspect", "verify"] {
        let help = run(&[command, "--help"]).ok().stdout.clone();
        assert_contains(&help, "An empty");
        assert_contains(&help, "(an empty file too");
    }
    assert_contains(
        &run(&["--help"]).ok().stdout,
        "An empty file is an empty stream: zero frames, clean, whatever its checksum.",
    );
}

#[test]
fn verify_all_lists_every_damaged_range_as_salvage_skips_them() {
    let Capture { dir, bytes, at } = Capture::new(400, ChecksumKind::XxHash64);
    // Three damaged frames, far apart; the third is cut short at the end: a torn tail.
    let mut damaged = flipped(&bytes, at[10] + 14, 4);
    damaged[at[200] as usize + 20] ^= 8;
    damaged.truncate(at[399] as usize + 9);
    let path = dir.file("d.fs", &damaged);

    let r = run(&["verify", "--all", "--json", &path]).exits(1).json();
    let damage = r["damage"].as_array().unwrap();
    assert_eq!(r["errors"], damage.len());
    let ranges: Vec<(u64, u64, &str)> = damage
        .iter()
        .map(|d| {
            (
                d["offset"].as_u64().unwrap(),
                d["end"].as_u64().unwrap(),
                d["kind"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        ranges,
        [
            (at[10], at[11], "checksum"),
            (at[200], at[201], "damage"),
            (at[399], damaged.len() as u64, "damage"),
        ],
        "{r}"
    );
    assert_eq!(damage[0]["index"], 10);
    assert_eq!(damage[1]["index"], 199);
    // Each range named as the other commands name it: what starts it.
    let second = damage[1]["message"].as_str().unwrap();
    assert!(
        second.starts_with("corrupt frame: checksum mismatch: stored 0x"),
        "{r}"
    );
    assert_eq!(r["first_error"], damage[0]);
    // The same list on every core, however the file is cut into splits.
    for split in ["1000", "4093"] {
        let parallel = run_with(
            &["verify", "--all", "--json", "-j", "2", &path],
            None,
            &[("FLATSTREAM_SPLIT_LEN", split)],
        );
        assert_eq!(parallel.exits(1).json()["damage"], r["damage"], "{split}");
    }

    // salvage skips the same bytes.
    let salvaged = dir.path("s.fs");
    let s = run(&["salvage", &path, "-o", &salvaged, "--json"])
        .exits(1)
        .json();
    let skipped: Vec<(u64, u64)> = s["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r[0].as_u64().unwrap(), r[1].as_u64().unwrap()))
        .collect();
    let listed: Vec<(u64, u64)> = ranges.iter().map(|&(a, b, _)| (a, b)).collect();
    assert_eq!(skipped, listed);

    // In text: one line per range on stdout, the count and the first on stderr.
    let out = run(&["verify", "--all", &path]);
    let line = out.one_line_error(1);
    assert_eq!(
        line,
        format!(
            "flatstream: 3 errors in 397 frames, {} bytes skipped; first: frame 10 at byte \
             offset {}: {}",
            s["skipped_bytes"],
            at[10],
            damage[0]["message"].as_str().unwrap()
        )
    );
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(
        lines,
        [
            format!(
                "frame 10 at bytes {}..{}: {}",
                at[10],
                at[11],
                damage[0]["message"].as_str().unwrap()
            ),
            format!(
                "frame 199 at bytes {}..{}: {}",
                at[200],
                at[201],
                damage[1]["message"].as_str().unwrap()
            ),
            format!(
                "frame 397 at bytes {}..{}: torn tail: the stream ends inside it ({} of its {} \
                 bytes present)",
                at[399],
                damaged.len(),
                damaged.len() as u64 - at[399],
                bytes.len() as u64 - at[399],
            ),
        ]
    );
}

/// The entry of exit status `n` in a help text: its line and the indented lines under it.
fn status_entry(help: &str, n: u8) -> String {
    let start = help
        .find(&format!("\n  {n}  "))
        .unwrap_or_else(|| panic!("status {n} is documented in {help}"));
    let mut lines = help[start + 1..].lines();
    let mut entry = lines.next().unwrap().trim().to_owned();
    for line in lines.take_while(|l| l.starts_with("     ")) {
        entry.push(' ');
        entry.push_str(line.trim());
    }
    entry
}

#[test]
fn a_framing_that_cannot_be_told_is_status_2_as_every_help_says() {
    let dir = Dir::new();
    // All-zero bytes read alike with no checksum and with the CRCs (of empty payloads).
    let zeros = dir.file("zeros.fs", &[0; 64]);
    let out = dir.path("out.fs");
    for args in [
        &["verify", &zeros][..],
        &["cat", &zeros],
        &["salvage", &zeros, "-o", &out],
        &["recover", &zeros],
        &["convert", &zeros, "-o", &out, "--to-checksum", "none"],
        &["tail", &zeros],
    ] {
        let line = run(args).one_line_error(2);
        assert_contains(&line, "cannot tell the stream's framing");
        let help = run(&[args[0], "--help"]).ok().stdout.clone();
        assert_contains(&status_entry(&help, 2), "a framing that cannot be told");
    }
    // The conventions in `flatstream --help` say which command differs, and how.
    let help = run(&["--help"]).ok().stdout.clone();
    assert_contains(
        &status_entry(&help, 2),
        "a framing that cannot be told from the data (inspect reports that one, with status 1)",
    );
    // inspect reports it (its job is to say what a stream is), with status 1, as its help says.
    let r = run(&["inspect", &zeros, "--json"]).exits(1).json();
    assert!(r["framing"].is_null(), "{r}");
    assert_contains(
        &status_entry(&run(&["inspect", "--help"]).ok().stdout, 1),
        "or its framing cannot be told",
    );
}

#[test]
fn a_stream_without_a_checksum_is_said_to_parse_not_to_verify() {
    let dir = Dir::new();
    let bytes = telemetry(50, ChecksumKind::None);
    let path = dir.file("plain.fs", &bytes);
    let out = run(&["verify", &path, "-c", "none", "-s", &telemetry_bfbs()]);
    assert_eq!(
        out.ok().stdout,
        format!(
            "ok: 50 frames, {} bytes, no checksum: frames parse, every payload a valid \
             telemetry.Telemetry\n",
            bytes.len()
        )
    );
    assert!(!out.stdout.contains("checksums verify"));
}

#[test]
fn output_is_dash_o_and_checksum_is_the_input_s_everywhere() {
    let dir = Dir::new();
    let input = dir.file("in.fs", &telemetry(20, ChecksumKind::None));
    let output = dir.path("out.fs");
    // The old spellings are usage errors now, not another meaning.
    let usage = run(&["convert", &input, &output, "--to-checksum", "crc32"]);
    assert_eq!(usage.status, 2, "{usage:?}");
    let usage = run(&[
        "convert",
        &input,
        "-o",
        &output,
        "--from-checksum",
        "none",
        "--to-checksum",
        "crc32",
    ]);
    assert_eq!(usage.status, 2, "{usage:?}");
    // --checksum names the input's framing, as in every other command; -c is its short form.
    for flag in ["--checksum", "-c"] {
        run(&[
            "convert",
            &input,
            "--output",
            &output,
            flag,
            "none",
            "--to-checksum",
            "crc32",
        ])
        .ok();
        assert_eq!(
            std::fs::read(&output).unwrap(),
            telemetry(20, ChecksumKind::Crc32)
        );
    }
    // Every command that writes a stream has -o/--output, and every command that reads one
    // has --checksum.
    for command in ["salvage", "convert", "pack"] {
        assert_contains(&run(&[command, "--help"]).ok().stdout, "-o, --output <OUT>");
    }
    // The conventions in --help name every command that writes a stream, and pack's --checksum.
    let help = run(&["--help"]).ok().stdout.clone();
    assert_contains(
        &help,
        "-o OUT          where a command writes a stream (salvage, convert, pack)",
    );
    assert_contains(
        &help,
        "pack, whose\n                  input is JSON, frames its output with --checksum",
    );
    for command in [
        "inspect", "verify", "recover", "salvage", "cat", "convert", "tail", "pack",
    ] {
        assert_contains(
            &run(&[command, "--help"]).ok().stdout,
            "-c, --checksum <KIND>",
        );
    }
}

#[test]
fn quiet_leaves_stderr_to_errors() {
    let Capture { dir, bytes, at } = Capture::new(50, ChecksumKind::Crc32);
    let path = dir.file("d.fs", &flipped(&bytes, at[5] + 10, 1));
    // salvage to stdout reports on stderr; --quiet leaves that out, not the stream.
    let loud = run(&["salvage", &path, "-o", "-"]);
    loud.exits(1);
    assert_starts_with(&loud.stderr, "kept 49 frames");
    for flag in ["--quiet", "-q"] {
        let quiet = run(&["salvage", &path, "-o", "-", flag]);
        quiet.exits(1);
        assert_eq!(quiet.stderr, "");
        assert_eq!(quiet.stdout_bytes, loud.stdout_bytes);
    }
    // Errors still show.
    let line = run(&["verify", "-q", &path]).one_line_error(1);
    assert_starts_with(&line, "flatstream: frame 5 at byte offset ");
    // Before the command or after it, as git's and cargo's global options go.
    for flags in [
        &["-q"][..],
        &["--no-progress"],
        &["--quiet", "--no-progress"],
    ] {
        let args = [flags, &["verify", &path]].concat();
        let line = run(&args).one_line_error(1);
        assert_starts_with(&line, "flatstream: frame 5 at byte offset ");
        let args = [flags, &["salvage", &path, "-o", "-"]].concat();
        let out = run(&args);
        assert_eq!(out.status, 1, "{flags:?}: {out:?}");
        if flags.contains(&"--no-progress") && flags.len() == 1 {
            assert_starts_with(&out.stderr, "kept 49 frames");
        } else {
            assert_eq!(out.stderr, "", "{flags:?}");
        }
    }
}

/// `flatstream --generate KIND`'s output, checked to be a success with nothing on stderr.
fn generate(kind: &str) -> String {
    let out = run(&["--generate", kind]);
    out.ok();
    out.stdout
}

#[test]
fn generate_writes_completions_that_name_every_command_and_option() {
    let bash = generate("complete-bash");
    assert_contains(&bash, "_flatstream() {");
    assert_contains(&bash, "complete -F _flatstream");
    for word in [
        "inspect",
        "verify",
        "recover",
        "salvage",
        "cat",
        "convert",
        "tail",
        "--checksum",
        "--to-checksum",
        "--output",
        "--all",
        "--quiet",
        "--no-progress",
        "--generate",
        "--schema",
        "--root-type",
    ] {
        assert_contains(&bash, word);
    }
    assert_contains(&bash, "flatstream__subcmd__verify)");
    // --checksum, -c and --to-checksum complete to the checksums' names in every command
    // (aliases parse, unlisted).
    for flag in ["--checksum", "-c", "--to-checksum"] {
        let case = format!("\n                {flag})\n");
        let listed = format!(
            "{case}                    COMPREPLY=($(compgen -W \"none xxhash64 crc32 crc16 \
             crc32c\" -- \"${{cur}}\"))"
        );
        let cases = bash.matches(&case).count();
        assert!(cases > 0, "{flag}");
        assert_eq!(bash.matches(&listed).count(), cases, "{flag}");
    }
    let dir = Dir::new();
    let path = dir.file("t.fs", &telemetry(3, ChecksumKind::XxHash64));
    run(&["verify", &path, "-c", "XXH3"]).ok();

    let zsh = generate("complete-zsh");
    assert_starts_with(&zsh, "#compdef flatstream\n");
    assert_contains(&zsh, "'--to-checksum=[The checksum to frame OUT with");
    assert_contains(&zsh, ":KIND:(none xxhash64 crc32 crc16 crc32c)' \\");
    assert_contains(&zsh, "(verify)");

    let fish = generate("complete-fish");
    assert_contains(&fish, "complete -c flatstream");
    assert_contains(&fish, "-a \"verify\"");
    assert_contains(&fish, "-l all");

    let powershell = generate("complete-powershell");
    assert_contains(
        &powershell,
        "Register-ArgumentCompleter -Native -CommandName 'flatstream'",
    );
}

#[test]
fn generate_writes_a_man_page_with_every_command() {
    let man = generate("man");
    assert_contains(&man, "\n.TH flatstream 1 ");
    assert_contains(&man, "\n.SH NAME\nflatstream \\- Look into, check, repair");
    assert_contains(&man, "\n.SH SYNOPSIS\n");
    assert_contains(&man, "\n.SH \"CONVENTIONS AND EXIT STATUS\"\n");
    for command in [
        "INSPECT", "VERIFY", "RECOVER", "SALVAGE", "CAT", "CONVERT", "TAIL",
    ] {
        assert_contains(
            &man,
            &format!("\n.SH \"FLATSTREAM {command}\"\n.SS SYNOPSIS\n"),
        );
    }
    assert_contains(&man, "\\fB\\-\\-all\\fR");
    assert_contains(&man, "\\fB\\-\\-to\\-checksum\\fR");
    assert!(
        !man.contains("\n.SH EXTRA"),
        "clap_mangen's heading is renamed"
    );

    // groff reads it without a warning, where it is installed.
    let Ok(mut child) = Command::new("groff")
        .args(["-man", "-Tutf8", "-ww", "-z"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
    else {
        eprintln!("groff is not installed: the page is not rendered here");
        return;
    };
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(man.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

#[test]
fn generate_stands_alone_and_a_command_is_required_otherwise() {
    // A usage error, not a man page nor a verify of x.
    let out = run(&["--generate", "man", "verify", "x"]);
    assert_eq!((out.status, out.stdout.as_str()), (2, ""), "{out:?}");
    assert_starts_with(
        &out.stderr,
        "error: --generate stands alone: it cannot be used with a command\n",
    );
    let out = run(&["--generate", "complete-tcsh"]);
    assert_eq!((out.status, out.stdout.as_str()), (2, ""), "{out:?}");
    assert_contains(
        &out.stderr,
        "invalid value 'complete-tcsh' for '--generate <KIND>'",
    );
    let out = run(&[]);
    assert_eq!(out.status, 2, "{out:?}");
    assert_contains(&out.stderr, "a command is required");
}

/// Readings 0, 1 and 2, the first one a FlatBuffer of more than 2 MiB (an unreferenced
/// vector before its table), framed with `kind`: larger than any fixed head detection read.
fn large_first_frame(kind: ChecksumKind) -> Vec<u8> {
    use flatstream::StreamSerialize;
    use flatstream::flatbuffers::FlatBufferBuilder;
    use flatstream_test_support::telemetry::Reading;
    let payloads: Vec<Vec<u8>> = (0..3)
        .map(|i| {
            let mut builder = FlatBufferBuilder::new();
            if i == 0 {
                builder.create_vector(&vec![0x5au8; 2 << 20]);
            }
            Reading::nth(i).serialize(&mut builder).unwrap();
            builder.finished_data().to_vec()
        })
        .collect();
    assert!(payloads[0].len() > 2 << 20);
    framed(kind, &payloads)
}

#[test]
fn a_first_frame_over_a_mebibyte_is_detected_by_every_command_that_reads_it() {
    let dir = Dir::new();
    let schema = telemetry_bfbs();
    for kind in ChecksumKind::ALL {
        let bytes = large_first_frame(kind);
        let path = dir.file(&format!("large-{kind}.fs"), &bytes);

        let inspect = run(&["inspect", &path, "--json"]);
        let report = inspect.ok().json();
        assert_eq!(report["framing"].as_str(), Some(kind.name()), "{report}");
        assert_eq!(report["frames"].as_u64(), Some(3), "{report}");

        // A file, and the same bytes on standard input (read as a stream, not mapped).
        let from_file = run(&["cat", &path, "--schema", &schema]);
        let from_stdin = run_stdin(&["cat", "-", "--schema", &schema], &bytes);
        for cat in [from_file, from_stdin] {
            let messages = cat.ok().json_lines();
            assert_eq!(messages.len(), 3, "{kind}");
            for (i, m) in messages.iter().enumerate() {
                assert_reading(m, i as u64);
            }
        }

        #[cfg(feature = "sql")]
        {
            let sql = format!("SELECT device_id FROM '{path}' ORDER BY device_id");
            let rows = run(&["query", "-s", &schema, "--format", "json", &sql])
                .ok()
                .json_lines();
            let ids: Vec<Option<u64>> = rows.iter().map(|r| r["device_id"].as_u64()).collect();
            assert_eq!(ids, [Some(1), Some(2), Some(3)], "{kind}");

            let lines = run(&["export", &path, "-s", &schema, "--to", "jsonl"])
                .ok()
                .json_lines();
            assert_eq!(lines.len(), 3, "{kind}");
            for (i, m) in lines.iter().enumerate() {
                assert_reading(m, i as u64);
            }
        }
    }
}

/// One voice for damage (issue 35): the same damage reads the same in inspect, verify (with
/// and without --all), recover and salvage: `corrupt frame: …`, `damaged length: …`,
/// `torn tail: …`; and inspect says what to run next.
#[test]
fn every_command_names_the_same_damage_in_the_same_words() {
    let Capture { dir, bytes, at } = Capture::new(300, ChecksumKind::XxHash64);
    let corrupt = flipped(&bytes, at[40] + 20, 0x08);
    let torn = &bytes[..bytes.len() - 7];
    // Frame 100 declares 0x7f00_0000 bytes more than it holds: past the end, intact frames
    // after it.
    let long = long_length(&bytes, at[100]);
    let needed = 0x7f00_0000 + at[101] - at[100];
    let damaged_length = format!(
        "damaged length: it declares {needed} bytes, past the end of the input, but intact \
         frames resume at byte offset {}",
        at[101]
    );
    let cases = [
        (
            "corrupt",
            corrupt,
            40,
            at[41],
            "corrupt frame: checksum mismatch: stored 0x",
        ),
        (
            "torn",
            torn.to_vec(),
            299,
            torn.len() as u64,
            "torn tail: the stream ends inside it (",
        ),
        ("long", long, 100, at[101], &damaged_length[..]),
    ];
    for (name, damaged, frame, end, words) in cases {
        let path = dir.file(name, &damaged);
        let start = at[frame as usize];
        let at_frame = format!("frame {frame} at byte offset {start}: {words}");

        // The whole sentence, as verify names it, is what the others must print too.
        let verify = run(&["verify", &path]);
        let line = verify.one_line_error(1);
        assert_contains(&line, &at_frame);
        let sentence = line
            .split_once(&format!("frame {frame} at byte offset {start}: "))
            .map(|(_, s)| s.split("; ").next().unwrap().to_owned())
            .unwrap();

        let inspect = run(&["inspect", &path]);
        inspect.exits(1);
        assert_contains(
            &inspect.stdout,
            &format!("end       frame {frame} at byte offset {start}: {sentence}"),
        );
        assert_contains(
            &inspect.stdout,
            "next      `flatstream verify --all` lists every damaged range, `flatstream salvage` \
             keeps every intact frame",
        );

        let recover = run(&["recover", &path]);
        recover.exits(1);
        assert_contains(
            &recover.stdout,
            &format!("end      frame {frame} at byte offset {start}: {sentence}"),
        );

        let all = run(&["verify", "--all", &path]);
        all.exits(1);
        assert_contains(
            &all.stdout,
            &format!("frame {frame} at bytes {start}..{end}: {sentence}"),
        );

        let clean = dir.path(&format!("{name}.clean"));
        let salvage = run(&["salvage", &path, "-o", &clean]);
        salvage.exits(1);
        assert_contains(
            &salvage.stdout,
            &format!(
                "skipped bytes {start}..{end} ({} bytes): {sentence}",
                end - start
            ),
        );
    }
}
