//! `flatstream tail [-f] FILE`: the last frames of a stream, and with `-f` the frames a writer
//! appends, as they come, printed as `cat` prints them.
//!
//! A [`Follower`] reads the file from its start (the format cannot be read backwards): it
//! takes the end of the data, between frames or inside one, for "not yet", and carries on
//! exactly where it stopped, so frames come out whole and verified however the writer split
//! them into writes. The last `-n` frames of what is there when the command starts are kept
//! (their payloads copied, nothing else) and printed once it has caught up; with `-f`, each
//! next frame is printed as it comes, and stdout is flushed whenever the follower catches up.
//!
//! Without `-f`, damage does not end the search for the last frames: over a checksummed file,
//! the bytes from the damaged frame on are read as `salvage` reads them, resynchronising on
//! each next frame that verifies, so the frames printed are the last ones of the file that
//! verify, wherever the damage lies. Then stderr names each damaged range skipped (in the
//! words of [`crate::damage`]), and the exit status is 1. A pipe cannot be read again, and a
//! stream without a checksum cannot be resynchronised: there, as with `-f`, the last frames
//! before the damage are printed, then the damage.

use crate::commands::cat::FramePrinter;
use crate::commands::verify::salvage_bound;
use crate::damage;
use crate::damage::describe;
use crate::detect::{self, Detection, Framing};
use crate::failure::{Failure, Status, count, io_message};
use crate::input::{Access, Input};
use crate::options::TailArgs;
use flatstream::checksum::ChecksumKind;
use flatstream::journal::{Followed, Follower};
use flatstream::repair::{Salvage, Salvaged};
use flatstream::{ChecksumDeframer, Error, Frames, XxHash64};
use std::collections::VecDeque;
use std::io::{BufWriter, Read, Write};
use std::time::Duration;

pub(crate) fn run(args: &TailArgs) -> Result<Status, Failure> {
    let schema = args.print.schema.load()?;
    let mut printer = FramePrinter::new(schema.as_ref(), &args.print);
    let max = args.framing.max();
    let poll = Duration::from_millis(args.poll.max(1));
    // A pipe's end is its end: there is nothing to follow.
    let follow = args.follow && args.file != "-";
    let (mut input, framing) = open(args, max, follow, poll)?;
    let name = input.name.clone();

    let mut follower = Follower::new(input.reader(), ChecksumDeframer::new(framing.checksum))
        .with_max_frame_len(max)
        .with_poll_interval(poll);
    if let Some(path) = &args.watermark {
        follower = follower.with_watermark_file(path);
    }
    let mut tail = Tail {
        follower,
        index: 0,
        name: &name,
        watermark: args.watermark.is_some(),
    };
    let mut out = BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let mut present = Present::new(args);
    let read = tail.read_present(&mut present, &mut printer, &mut out);
    let pending = tail.follower.pending();
    // Damage, or a frame cut short at the end, in a file that can be read on past it.
    let damaged = match &read {
        Ok(damage) => damage.is_some() || (!follow && pending > 0),
        Err(_) => false,
    };
    if damaged
        && !follow
        && args.file != "-"
        && framing.kind != ChecksumKind::None
        && args.watermark.is_none()
    {
        let at = tail.follower.position();
        let skipped = salvage_rest(
            args,
            &framing,
            at,
            tail.index,
            &mut present,
            &mut printer,
            &mut out,
        );
        let printed = present.finish(&mut printer, &mut out);
        let flushed = out.flush().map_err(Failure::stdout);
        let skipped = skipped?;
        printed?;
        flushed?;
        return Err(skipped_failure(&skipped));
    }
    let printed = present.finish(&mut printer, &mut out);
    let flushed = out.flush().map_err(Failure::stdout);
    let damage = read?;
    printed?;
    flushed?;
    if let Some(damage) = damage {
        return Err(damage);
    }
    if !follow {
        if pending > 0 {
            return Err(Failure::damaged(format_args!(
                "frame {} at byte offset {}: torn tail: the stream ends inside it ({pending} bytes \
                 of it present), or a frame still being written (-f waits for it)",
                tail.index,
                tail.follower.position()
            )));
        }
        return Ok(Status::Ok);
    }
    let followed = tail.follow(&mut printer, &mut out);
    let flushed = out.flush().map_err(Failure::stdout);
    followed?;
    flushed?;
    Ok(Status::Ok)
}

/// Opens the input and tells its framing. With `follow` and no `--checksum`, an input too
/// short to tell it from (empty, or its first frame not all written yet) is read again every
/// `poll` until it is long enough.
fn open(
    args: &TailArgs,
    max: usize,
    follow: bool,
    poll: Duration,
) -> Result<(Input, Framing), Failure> {
    loop {
        let input = Input::open(&args.file, Access::Stream, max)?;
        let (head, complete) = input.head();
        if follow && args.framing.checksum.is_none() && complete && first_frame_unwritten(head, max)
        {
            drop(input);
            std::thread::sleep(poll);
            continue;
        }
        let framing = args.framing.resolve(&input)?;
        return Ok((input, framing));
    }
}

/// Whether `head`, the whole input, may be the start of a stream whose first frame is not all
/// written yet: nothing at all, or a frame the decoder finds cut short under the framing with
/// the longest header (the payload's length is read alike under every framing, and a frame
/// whole under that one is whole under all).
fn first_frame_unwritten(head: &[u8], max: usize) -> bool {
    if matches!(detect::detect(head, true, max), Detection::Found { .. }) {
        return false;
    }
    let mut frames = Frames::new(head, ChecksumDeframer::new(XxHash64)).with_max_frame_len(max);
    matches!(frames.next(), None | Some(Err(Error::UnexpectedEof { .. })))
}

/// A frame the follower handed out: its index, stream offset and payload.
type Frame<'p> = (u64, u64, &'p [u8]);

/// A follower, and the index of the frame it reads next.
struct Tail<'a, R> {
    follower: Follower<R, ChecksumDeframer<flatstream::checksum::AnyChecksum>>,
    index: u64,
    name: &'a str,
    watermark: bool,
}

impl<R: Read> Tail<'_, R> {
    /// The next frame as (index, offset, payload), or `None` when caught up.
    fn next(&mut self) -> Result<Option<Frame<'_>>, Failure> {
        // After a framing error the follower stays at the frame: where it is now.
        let (index, at, name, watermark) = (
            self.index,
            self.follower.position(),
            self.name,
            self.watermark,
        );
        match self.follower.next() {
            Ok(Followed::Frame { offset, payload }) => {
                self.index += 1;
                Ok(Some((index, offset, payload)))
            }
            Ok(Followed::CaughtUp) => Ok(None),
            Err(e) => Err(failure(&e, index, at, name, watermark)),
        }
    }

    /// Reads the frames there now into `present`, up to the end or the first damage, which it
    /// returns; an error of the input or of printing is an error.
    fn read_present(
        &mut self,
        present: &mut Present,
        printer: &mut FramePrinter<'_>,
        out: &mut impl Write,
    ) -> Result<Option<Failure>, Failure> {
        loop {
            match self.next() {
                Ok(Some((index, offset, payload))) => {
                    present.take(index, offset, payload, printer, out)?;
                }
                Ok(None) => return Ok(None),
                Err(damage) if damage.status == Status::Damaged => return Ok(Some(damage)),
                Err(e) => return Err(e),
            }
        }
    }

    /// Prints each frame as it comes, until an error or a closed stdout.
    fn follow(
        &mut self,
        printer: &mut FramePrinter<'_>,
        out: &mut impl Write,
    ) -> Result<(), Failure> {
        loop {
            if let Some((index, offset, payload)) = self.next()? {
                printer.print(index, offset, payload, out)?;
                continue;
            }
            out.flush().map_err(Failure::stdout)?;
            // Sleeps between tries; a frame that comes is printed by the next `next`.
            let (index, at, name, watermark) = (
                self.index,
                self.follower.position(),
                self.name,
                self.watermark,
            );
            match self.follower.wait(Duration::from_secs(3600)) {
                Ok(Followed::Frame { offset, payload }) => {
                    self.index += 1;
                    printer.print(index, offset, payload, out)?;
                }
                Ok(Followed::CaughtUp) => {}
                Err(e) => return Err(failure(&e, index, at, name, watermark)),
            }
        }
    }
}

/// Frames kept to print at the end: index, stream offset, payload.
type Kept = VecDeque<(u64, u64, Vec<u8>)>;

/// Where the frames present when tail starts go: printed as they come (`--from-start`), or the
/// last `-n` kept (their payloads copied) and printed at the end.
struct Present {
    /// `None` with `--from-start`; else how many to keep, and those kept.
    last: Option<(usize, Kept)>,
    /// The largest payload taken: the resynchronisation's bound follows from it, as salvage's.
    largest: usize,
}

impl Present {
    fn new(args: &TailArgs) -> Self {
        let keep = usize::try_from(args.frames).unwrap_or(usize::MAX);
        Present {
            last: (!args.from_start).then(|| (keep, VecDeque::new())),
            largest: 0,
        }
    }

    /// Takes frame `index` at stream offset `offset`.
    fn take(
        &mut self,
        index: u64,
        offset: u64,
        payload: &[u8],
        printer: &mut FramePrinter<'_>,
        out: &mut impl Write,
    ) -> Result<(), Failure> {
        self.largest = self.largest.max(payload.len());
        let Some((keep, last)) = &mut self.last else {
            return printer.print(index, offset, payload, out);
        };
        if *keep == 0 {
            return Ok(());
        }
        // The oldest kept frame's buffer takes the new payload.
        let mut buffer = if last.len() == *keep {
            last.pop_front().map(|(_, _, b)| b).unwrap_or_default()
        } else {
            Vec::new()
        };
        buffer.clear();
        buffer.extend_from_slice(payload);
        last.push_back((index, offset, buffer));
        Ok(())
    }

    /// Prints the frames kept.
    fn finish(
        &mut self,
        printer: &mut FramePrinter<'_>,
        out: &mut impl Write,
    ) -> Result<(), Failure> {
        if let Some((_, last)) = &mut self.last {
            for (index, offset, payload) in last.drain(..) {
                printer.print(index, offset, &payload, out)?;
            }
        }
        Ok(())
    }
}

/// A damaged range that tail stepped over: its first byte, the byte after it, the index of
/// the frame it holds (the intact frames before it), and what starts it.
struct Skipped {
    start: u64,
    end: u64,
    index: u64,
    words: String,
}

/// Reads the file from the damaged frame at stream offset `at` (the `index`-th) to its end as
/// `salvage` does, giving `present` every frame that verifies; returns the ranges skipped.
fn salvage_rest(
    args: &TailArgs,
    framing: &Framing,
    at: u64,
    mut index: u64,
    present: &mut Present,
    printer: &mut FramePrinter<'_>,
    out: &mut impl Write,
) -> Result<Vec<Skipped>, Failure> {
    let bytes = Input::open(&args.file, Access::Map, args.framing.max())?.into_bytes()?;
    let rest = usize::try_from(at)
        .ok()
        .and_then(|at| bytes.get(at..))
        .unwrap_or_default();
    let deframer = ChecksumDeframer::new(framing.checksum);
    let bound = args
        .framing
        .max_frame_len
        .unwrap_or_else(|| salvage_bound(present.largest));
    let mut skipped = Vec::new();
    for item in Salvage::new(rest, &deframer).with_max_frame_len(bound) {
        match item {
            Salvaged::Frame { offset, payload } => {
                present.take(index, at + offset, payload, printer, out)?;
                index += 1;
            }
            Salvaged::Skipped { start, end } => {
                // `start` is an offset in `rest`, which is in memory.
                let from = usize::try_from(start).unwrap_or(rest.len());
                let (rest, max) = (&rest[from..], args.framing.max());
                let words = damage::range(rest, end - start, at + end, deframer, max, bound);
                skipped.push(Skipped {
                    start: at + start,
                    end: at + end,
                    index,
                    words,
                });
            }
            // Only validating deframers reject frames; this one does not.
            _ => {}
        }
    }
    Ok(skipped)
}

/// How many skipped ranges the line on stderr names; `verify --all` lists them all.
const NAMED: usize = 5;

/// The one line that says what tail skipped, and where.
fn skipped_failure(skipped: &[Skipped]) -> Failure {
    let bytes: u64 = skipped.iter().map(|s| s.end - s.start).sum();
    let mut line = format!(
        "skipped {} of damage in {}, the frames printed are the last that verify: ",
        count(bytes, "byte"),
        count(skipped.len() as u64, "range")
    );
    let named: Vec<String> = skipped
        .iter()
        .take(NAMED)
        .map(|s| {
            format!(
                "frame {} at bytes {}..{}: {}",
                s.index, s.start, s.end, s.words
            )
        })
        .collect();
    line.push_str(&named.join("; "));
    if skipped.len() > NAMED {
        line.push_str(&format!(
            "; {} (`flatstream verify --all` lists them)",
            count((skipped.len() - NAMED) as u64, "more range")
        ));
    }
    Failure::damaged(line)
}

/// The error `e` of frame `index` at stream offset `at` of the input `name`, as a failure.
fn failure(e: &Error, index: u64, at: u64, name: &str, watermark: bool) -> Failure {
    match e {
        Error::Io { source, .. } if watermark => Failure::error(format_args!(
            "{name} or its watermark file: {}",
            io_message(source)
        )),
        Error::Io { source, .. } => Failure::error(format_args!("{name}: {}", io_message(source))),
        other => Failure::damaged(format_args!(
            "frame {index} at byte offset {at}: {}",
            describe(other)
        )),
    }
}
