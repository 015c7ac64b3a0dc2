//! `flatstream recover` (the torn-tail report, and the cut with `--truncate`) and `flatstream
//! salvage` (every intact frame into a clean stream), over the library's `Recover` and
//! `Salvage`.

use crate::commands::verify::salvage_bound;
use crate::damage;
use crate::damage::describe;
use crate::detect::{self, Framing};
use crate::failure::{Failure, Status, io_message};
use crate::input::{Access, Input};
use crate::options::{RecoverArgs, SalvageArgs};
use crate::progress::Progress;
use flatstream::checksum::ChecksumKind;
use flatstream::repair::{Recover, Recovery, RepairPolicy, Salvage, Salvaged};
use flatstream::{ChecksumDeframer, Error, Frames};
use serde::Serialize;
use std::io::Write;

#[derive(Debug, Serialize)]
struct RecoverReport {
    file: String,
    framing: String,
    /// Intact frames.
    frames: u64,
    /// The offset just past the last intact frame.
    valid_len: u64,
    /// Bytes in the input.
    scanned: u64,
    /// "clean", "torn_tail", "damaged" (a length past the end with intact frames after it),
    /// "ambiguous" (no checksum: frames parse after it up to the end) or "corrupt".
    end: &'static str,
    /// The damage in words.
    detail: Option<String>,
    /// For "damaged" and "ambiguous": where the frames after the damage start.
    resumes_at: Option<u64>,
    /// Bytes after `valid_len`.
    discarded: u64,
    /// Whether the file was cut at `valid_len`.
    truncated: bool,
}

impl RecoverReport {
    fn new(name: &str, framing: &Framing, r: &Recovery, truncated: bool, hint: String) -> Self {
        let (frame, at) = (r.frames, r.valid_len);
        // The stream was scanned from its start: offsets in it are stream offsets.
        let (end, words, resumes) = damage::end(&r.end, 0);
        let detail = words.map(|words| format!("frame {frame} at byte offset {at}: {words}{hint}"));
        RecoverReport {
            file: name.to_owned(),
            framing: framing.kind.to_string(),
            frames: r.frames,
            valid_len: r.valid_len,
            scanned: r.scanned,
            end,
            detail,
            resumes_at: resumes,
            discarded: r.discarded(),
            truncated,
        }
    }

    fn print(&self, json: bool) -> Result<(), Failure> {
        let mut out = std::io::stdout().lock();
        if json {
            serde_json::to_writer(&mut out, self).map_err(|e| Failure::stdout(e.into()))?;
            return writeln!(out).map_err(Failure::stdout);
        }
        let r = self;
        // The detail names the kind of damage itself (see `damage`).
        let end = match &r.detail {
            Some(detail) => detail.clone(),
            None => "clean (the last frame ends at the end of the input)".to_owned(),
        };
        let action = match (r.discarded, r.truncated) {
            (0, _) => "nothing to cut".to_owned(),
            (n, true) => format!("cut {n} bytes: the file now ends at {}", r.valid_len),
            (n, false) if r.end == "corrupt" || r.end == "damaged" => format!(
                "{n} bytes from offset {} on start with a {} frame: `flatstream salvage` \
                 keeps the intact frames among them; --truncate refuses to cut them, \
                 --truncate --cut-corrupt cuts them all",
                r.valid_len,
                if r.end == "corrupt" {
                    "corrupt"
                } else {
                    "damaged"
                }
            ),
            (n, false) if r.end == "ambiguous" => format!(
                "{n} bytes after offset {} may hold intact frames: --truncate refuses to cut \
                 them, --truncate --force cuts them as a torn tail",
                r.valid_len
            ),
            (n, false) => format!(
                "{n} bytes after offset {} would be cut (run with --truncate to cut them)",
                r.valid_len
            ),
        };
        for (key, value) in [
            ("file", r.file.clone()),
            ("framing", r.framing.clone()),
            ("frames", format!("{} intact", r.frames)),
            (
                "valid",
                format!("{} bytes (the intact frames end here)", r.valid_len),
            ),
            ("scanned", format!("{} bytes", r.scanned)),
            ("end", end),
            ("action", action),
        ] {
            writeln!(out, "{key:<9}{value}").map_err(Failure::stdout)?;
        }
        Ok(())
    }
}

fn access(no_mmap: bool) -> Access {
    if no_mmap { Access::Stream } else { Access::Map }
}

pub(crate) fn run_recover(args: &RecoverArgs) -> Result<Status, Failure> {
    if args.truncate && args.file == "-" {
        return Err(Failure::error(
            "--truncate needs a file: standard input cannot be cut",
        ));
    }
    let access = if args.truncate {
        Access::Stream
    } else {
        access(args.read.no_mmap)
    };
    let max = args.read.framing.max();
    let mut input = Input::open(&args.file, access, max)?;
    let framing = args.read.framing.resolve(&input)?;
    let hint = |r: &Recovery| {
        if r.is_clean() {
            String::new()
        } else {
            detect::hint(&framing, r.valid_len, "--checksum")
        }
    };
    let recover = Recover::new(ChecksumDeframer::new(framing.checksum)).with_max_frame_len(max);

    if !args.truncate {
        let recovery = match input.mapped() {
            Some(bytes) => recover.scan(bytes),
            None => {
                let name = input.name.clone();
                recover.scan_reader(input.reader()).map_err(|e| match e {
                    Error::Io { source, .. } => Failure::io(&name, source),
                    other => Failure::error(other),
                })?
            }
        };
        RecoverReport::new(&input.name, &framing, &recovery, false, hint(&recovery))
            .print(args.json)?;
        return Ok(if recovery.is_clean() {
            Status::Ok
        } else {
            Status::Damaged
        });
    }

    drop(input);
    let path = &args.file;
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .map_err(|e| {
            Failure::error(format_args!(
                "{path}: cannot open for writing: {}",
                io_message(&e)
            ))
        })?;
    let policy = if args.cut_corrupt {
        RepairPolicy::AfterLastGoodFrame
    } else if args.force {
        RepairPolicy::AssumeTornTail
    } else {
        RepairPolicy::TornTail
    };
    match recover.repair_file(&mut file, policy) {
        Ok(recovery) => {
            RecoverReport::new(path, &framing, &recovery, true, hint(&recovery))
                .print(args.json)?;
            Ok(Status::Ok)
        }
        Err(Error::Io { source, .. }) => Err(Failure::io(path, source)),
        Err(
            e @ (Error::DamagedLength {
                offset,
                needed,
                resumes_at,
            }
            | Error::AmbiguousTail {
                offset,
                needed,
                resumes_at,
            }),
        ) => {
            let (words, remedy) = if matches!(e, Error::DamagedLength { .. }) {
                (
                    damage::damaged_length(needed, resumes_at),
                    "run `flatstream salvage` to keep the intact frames after it, or add \
                     --cut-corrupt to cut it and everything after it",
                )
            } else {
                (
                    damage::ambiguous_end(needed, resumes_at),
                    "add --force to cut it as a torn tail",
                )
            };
            Err(Failure::damaged(format_args!(
                "the frame at byte offset {offset}: {words}; the file is left as it is: {remedy}"
            )))
        }
        Err(e) => {
            let offset = e.offset();
            let hint = detect::hint(&framing, offset, "--checksum");
            Err(Failure::damaged(format_args!(
                "the frame at byte offset {offset}: {}{hint}; the file is left as it is: run \
                 `flatstream salvage` to keep the intact frames after it, or add --cut-corrupt \
                 to cut it and everything after it",
                describe(&e)
            )))
        }
    }
}

#[derive(Debug, Serialize)]
struct SalvageReport {
    file: String,
    output: String,
    framing: String,
    /// The bound on payloads used to resynchronise.
    max_frame_len: usize,
    /// Frames kept and written.
    frames: u64,
    /// Byte ranges skipped, `[start, end)`.
    skipped: Vec<[u64; 2]>,
    skipped_bytes: u64,
    /// What starts each skipped range, in the words of [`damage::range`].
    #[serde(skip)]
    skipped_words: Vec<String>,
}

pub(crate) fn run_salvage(args: &SalvageArgs) -> Result<Status, Failure> {
    let input = Input::open(
        &args.file,
        access(args.read.no_mmap),
        args.read.framing.max(),
    )?;
    input.check_not_output(&args.file, &args.out.output)?;
    let framing = args.read.framing.resolve(&input)?;
    let (head, complete) = input.head();
    // An empty input is an empty stream, whatever its checksum: nothing to salvage.
    if framing.kind == ChecksumKind::None && !(head.is_empty() && complete) {
        return Err(Failure::error(
            "salvage needs a checksummed stream: with no checksum, any bytes whose length field \
             fits would pass for a frame (use `flatstream recover` to find the intact prefix)",
        ));
    }
    let name = input.name.clone();
    let bytes = input.into_bytes()?;
    let deframer = ChecksumDeframer::new(framing.checksum);
    let bound = match args.read.framing.max_frame_len {
        Some(max) => max,
        None => {
            let largest = Frames::new(&bytes, &deframer)
                .map_while(Result::ok)
                .map(<[u8]>::len)
                .max()
                .unwrap_or(0);
            salvage_bound(largest)
        }
    };
    let mut writer = args.out.writer(framing.checksum)?;
    let write_error = |e| args.out.write_failure(e);
    let mut progress = Progress::new("salvaging", Some(bytes.len() as u64));
    let mut report = SalvageReport {
        file: name,
        output: args.out.output.clone(),
        framing: framing.kind.to_string(),
        max_frame_len: bound,
        frames: 0,
        skipped: Vec::new(),
        skipped_bytes: 0,
        skipped_words: Vec::new(),
    };
    for item in Salvage::new(&bytes, &deframer).with_max_frame_len(bound) {
        match item {
            Salvaged::Frame { offset, payload } => {
                progress.update(offset);
                writer.write_payload(payload).map_err(write_error)?;
                report.frames += 1;
            }
            Salvaged::Skipped { start, end } => {
                report.skipped.push([start, end]);
                report.skipped_bytes += end - start;
                // `start` is an offset in `bytes`, which are in memory.
                let rest = &bytes[usize::try_from(start).unwrap_or(bytes.len())..];
                let max = args.read.framing.max();
                let words = damage::range(rest, end - start, end, deframer, max, bound);
                report.skipped_words.push(words);
            }
            // Only validating deframers reject frames; this one does not.
            _ => {}
        }
    }
    progress.finish();
    writer.flush().map_err(write_error)?;
    drop(writer);
    print_salvage(&report, args)?;
    Ok(if report.skipped.is_empty() {
        Status::Ok
    } else {
        Status::Damaged
    })
}

/// `1 frame`, `2 frames`: a count and its noun.
fn counted(n: u64, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

/// The report goes to stdout, or to stderr when stdout carries the salvaged stream.
fn print_salvage(report: &SalvageReport, args: &SalvageArgs) -> Result<(), Failure> {
    let mut text = Vec::new();
    if args.json {
        serde_json::to_writer(&mut text, report).map_err(Failure::error)?;
        text.push(b'\n');
    } else {
        let r = report;
        let _ = writeln!(
            text,
            "kept {} into {}; skipped {} in {}{}",
            counted(r.frames, "frame") + &format!(" ({})", r.framing),
            if r.output == "-" { "stdout" } else { &r.output },
            counted(r.skipped_bytes, "byte"),
            counted(r.skipped.len() as u64, "range"),
            if r.skipped.is_empty() { "" } else { ":" }
        );
        for ([start, end], words) in r.skipped.iter().zip(&r.skipped_words) {
            let _ = writeln!(
                text,
                "  skipped bytes {start}..{end} ({}): {words}",
                counted(end - start, "byte")
            );
        }
    }
    if args.out.output == "-" {
        if crate::failure::quiet() {
            return Ok(()); // --quiet: the report is informational there
        }
        std::io::stderr()
            .write_all(&text)
            .map_err(|e| Failure::io("stderr", e))
    } else {
        std::io::stdout().write_all(&text).map_err(Failure::stdout)
    }
}
