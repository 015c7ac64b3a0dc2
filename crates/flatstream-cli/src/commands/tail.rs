//! `flatstream tail [-f] FILE`: the last frames of a stream, and with `-f` the frames a writer
//! appends, as they come, printed as `cat` prints them.
//!
//! A [`Follower`] reads the file from its start (the format cannot be read backwards): it
//! takes the end of the data, between frames or inside one, for "not yet", and carries on
//! exactly where it stopped, so frames come out whole and verified however the writer split
//! them into writes. The last `-n` frames of what is there when the command starts are kept
//! (their payloads copied, nothing else) and printed once it has caught up; with `-f`, each
//! next frame is printed as it comes, and stdout is flushed whenever the follower catches up.

use crate::commands::cat::{FramePrinter, load_schema};
use crate::detect::{self, Detection, Framing};
use crate::failure::describe;
use crate::failure::{Failure, Status, io_message};
use crate::input::{Access, Input};
use crate::options::TailArgs;
use flatstream::journal::{Followed, Follower};
use flatstream::{ChecksumDeframer, Error, Frames, XxHash64};
use std::collections::VecDeque;
use std::io::{BufWriter, Read, Write};
use std::time::Duration;

pub(crate) fn run(args: &TailArgs) -> Result<Status, Failure> {
    let schema = load_schema(&args.print)?;
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
    let printed = tail.print_present(args, &mut printer, &mut out);
    let flushed = out.flush().map_err(Failure::stdout);
    printed?;
    flushed?;
    if !follow {
        let pending = tail.follower.pending();
        if pending > 0 {
            return Err(Failure::damaged(format_args!(
                "frame {} at byte offset {}: the stream ends inside it ({pending} bytes of it \
                 present: a torn tail, or a frame still being written; -f waits for it)",
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

    /// Prints the frames there now: all of them with `--from-start`, else the last `-n`.
    fn print_present(
        &mut self,
        args: &TailArgs,
        printer: &mut FramePrinter<'_>,
        out: &mut impl Write,
    ) -> Result<(), Failure> {
        if args.from_start {
            while let Some((index, offset, payload)) = self.next()? {
                printer.print(index, offset, payload, out)?;
            }
            return Ok(());
        }
        let keep = usize::try_from(args.frames).unwrap_or(usize::MAX);
        let mut last: VecDeque<(u64, u64, Vec<u8>)> = VecDeque::new();
        // On damage, the last frames before it are printed, then the error.
        let mut ended = Ok(());
        loop {
            let (index, offset, payload) = match self.next() {
                Ok(Some(frame)) => frame,
                Ok(None) => break,
                Err(e) => {
                    ended = Err(e);
                    break;
                }
            };
            if keep == 0 {
                continue;
            }
            // The oldest kept frame's buffer takes the new payload.
            let mut buffer = if last.len() == keep {
                last.pop_front().map(|(_, _, b)| b).unwrap_or_default()
            } else {
                Vec::new()
            };
            buffer.clear();
            buffer.extend_from_slice(payload);
            last.push_back((index, offset, buffer));
        }
        for (index, offset, payload) in &last {
            printer.print(*index, *offset, payload, out)?;
        }
        ended
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
