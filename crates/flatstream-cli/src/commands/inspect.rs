//! `flatstream inspect`: what a stream holds and how it ends, in bounded memory.
//!
//! The stream is read through a `StreamReader` (never mapped: a mapping's pages count as the
//! process's memory once read), so memory is the reader's buffer, which grows only to the
//! largest frame, plus the size histogram (512 KiB).

use crate::damage;
use crate::detect::{self, Detection, describe_detection};
use crate::failure::{Failure, Status};
use crate::input::{Access, Input};
use crate::options::InspectArgs;
use crate::progress::Progress;
use crate::stats::Sizes;
use crate::walk::{End, ends_inside, walk};
use flatstream::ChecksumDeframer;
use flatstream::checksum::Checksum;
use serde::Serialize;
use std::io::Write;
use std::ops::ControlFlow;

#[derive(Debug, Serialize)]
struct Report {
    file: String,
    /// The framing read with; `None` when it cannot be told.
    framing: Option<String>,
    /// How the framing was chosen: "given", or what detection found.
    detection: String,
    /// The framings that read the leading frames alike, when detection is ambiguous.
    candidates: Vec<String>,
    frames: u64,
    bytes: u64,
    payload_bytes: u64,
    payload_min: u64,
    payload_median: u64,
    payload_p99: u64,
    payload_max: u64,
    header_bytes: u64,
    /// Share of the stream's bytes taken by headers, in percent.
    header_percent: f64,
    /// "clean", "torn_tail", "damaged" (a frame runs past the end but intact frames follow
    /// it: its length is damaged), "ambiguous" (no checksum: frames parse after it up to the
    /// end), "corrupt", or "unknown" when the framing cannot be told.
    end: &'static str,
    /// The offset of the torn, damaged or corrupt frame.
    end_offset: Option<u64>,
    /// The damage in words.
    end_detail: Option<String>,
}

pub(crate) fn run(args: &InspectArgs) -> Result<Status, Failure> {
    let mut first = true;
    crate::failure::each(&args.files, |file, several| {
        // Text reports are separated by a blank line; JSON ones are one per line.
        if several && !first && !args.json {
            writeln!(std::io::stdout()).map_err(Failure::stdout)?;
        }
        first = false;
        run_one(args, file)
    })
}

/// Inspects one FILE.
fn run_one(args: &InspectArgs, file: &str) -> Result<Status, Failure> {
    if crate::commands::mcap::is_mcap(file) {
        return crate::commands::mcap::inspect(file, args.json);
    }
    let max = args.read.framing.max();
    let mut input = Input::open(file, Access::Stream, max)?;
    let detection = input.detection();
    let described = match args.read.framing.checksum {
        Some(_) => "given with --checksum".to_owned(),
        None => describe_detection(detection),
    };
    let candidates = match (detection, args.read.framing.checksum) {
        (Detection::Ambiguous { candidates, .. }, None) => {
            candidates.iter().map(|k| k.to_string()).collect()
        }
        _ => Vec::new(),
    };
    let known = args.read.framing.checksum.or(detection.kind());
    if known.is_none() {
        let report = Report {
            file: input.name.clone(),
            framing: None,
            detection: described,
            candidates,
            frames: 0,
            bytes: input.len().unwrap_or(input.head().0.len() as u64),
            payload_bytes: 0,
            payload_min: 0,
            payload_median: 0,
            payload_p99: 0,
            payload_max: 0,
            header_bytes: 0,
            header_percent: 0.0,
            end: "unknown",
            end_offset: None,
            end_detail: Some("pass --checksum KIND to read the frames".to_owned()),
        };
        print(&report, args.json)?;
        return Ok(Status::Damaged);
    }
    let framing = args.read.framing.resolve(&input)?;

    let header_len = flatstream::framing::header_len(framing.checksum.size()) as u64;
    let mut sizes = Sizes::default();
    let mut progress = Progress::new("inspecting", input.len());
    let name = input.name.clone();
    let total = input.len();
    let mut reader = input.frames(&framing, max);
    let walked = walk(&mut reader, &name, &mut progress, |_, _, payload| {
        sizes.add(payload.len());
        Ok(ControlFlow::Continue(()))
    })?;
    // Bytes after the last intact frame: the rest of the input, which the reader may not
    // have taken in full after a corrupt frame.
    let bytes = match (&walked.end, total) {
        (End::Clean, _) => walked.position,
        (_, Some(total)) => total,
        (
            End::Torn {
                offset, present, ..
            },
            None,
        ) => offset + present,
        (_, None) => walked.position + reader.buffer().len() as u64 + drain(reader.get_mut()),
    };
    let payload_bytes = walked.position - header_len * walked.frames;
    let header_bytes = header_len * walked.frames;
    let (mut end, end_offset, mut end_detail) = match &walked.end {
        End::Clean | End::Stopped => ("clean", None, None),
        End::Torn { offset, .. } => ("torn_tail", Some(*offset), walked.end.damage(walked.frames)),
        End::Corrupt { offset, .. } => ("corrupt", Some(*offset), walked.end.damage(walked.frames)),
    };
    // An end inside a frame: a torn tail, unless the library finds intact frames after it.
    if let End::Torn {
        offset, present, ..
    } = walked.end
        && reader.buffer().len() as u64 == present
        && let Some(inside) = ends_inside(
            reader.buffer(),
            offset,
            ChecksumDeframer::new(framing.checksum),
            max,
        )
    {
        end = inside.kind;
        end_detail = Some(format!(
            "frame {} at byte offset {offset}: {}",
            walked.frames, inside.words
        ));
    }
    if let (Some(detail), Some(offset)) = (&mut end_detail, end_offset) {
        detail.push_str(&detect::hint(&framing, offset, "--checksum"));
    }
    let report = Report {
        file: name,
        framing: Some(framing.kind.to_string()),
        detection: described,
        candidates,
        frames: walked.frames,
        bytes,
        payload_bytes,
        payload_min: sizes.min(),
        payload_median: sizes.quantile(0.5),
        payload_p99: sizes.quantile(0.99),
        payload_max: sizes.max(),
        header_bytes,
        header_percent: if walked.position == 0 {
            0.0
        } else {
            (header_bytes as f64 * 1000.0 / walked.position as f64).round() / 10.0
        },
        end,
        end_offset,
        end_detail,
    };
    print(&report, args.json)?;
    Ok(if end == "clean" {
        Status::Ok
    } else {
        Status::Damaged
    })
}

/// Reads what is left of a source, counting the bytes.
fn drain(source: &mut impl std::io::Read) -> u64 {
    std::io::copy(source, &mut std::io::sink()).unwrap_or(0)
}

fn print(report: &Report, json: bool) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    if json {
        serde_json::to_writer(&mut out, report).map_err(|e| Failure::stdout(e.into()))?;
        writeln!(out).map_err(Failure::stdout)?;
        return Ok(());
    }
    let r = report;
    let mut lines = vec![
        ("file", r.file.clone()),
        (
            "framing",
            match &r.framing {
                Some(kind) if r.detection.starts_with("given") => format!("{kind} (given)"),
                Some(_) => r.detection.clone(),
                None => r.detection.clone(),
            },
        ),
    ];
    if r.framing.is_some() {
        lines.push(("frames", r.frames.to_string()));
        lines.push(("bytes", r.bytes.to_string()));
        lines.push((
            "payloads",
            format!(
                "{} bytes; min {}, median {}, p99 {}, max {}",
                r.payload_bytes, r.payload_min, r.payload_median, r.payload_p99, r.payload_max
            ),
        ));
        lines.push((
            "headers",
            format!(
                "{} bytes ({} % of the stream)",
                r.header_bytes, r.header_percent
            ),
        ));
    } else {
        lines.push(("bytes", r.bytes.to_string()));
    }
    // The detail names the kind of damage itself (see `damage`).
    let end = match (r.end, &r.end_detail) {
        ("clean", _) => "clean (the last frame ends at the end of the input)".to_owned(),
        ("unknown", Some(detail)) => format!("unknown: {detail}"),
        (_, Some(detail)) => detail.clone(),
        (what, None) => what.to_owned(),
    };
    let damaged = !matches!(r.end, "clean" | "unknown");
    lines.push(("end", end));
    if damaged {
        lines.push(("next", damage::next(r.framing.as_deref() != Some("none"))));
    }
    for (key, value) in lines {
        writeln!(out, "{key:<10}{value}").map_err(Failure::stdout)?;
    }
    Ok(())
}
