//! Reading a stream frame by frame through any of the library's readers, and saying what went
//! wrong in words: what `inspect`, `cat`, `convert` and `export` share.

use crate::damage;
use crate::damage::describe;
use crate::detect::{self, Framing};
use crate::failure::Failure;
use crate::input::Input;
use crate::options::FramingArgs;
use crate::progress::Progress;
use flatstream::read::MessageReader;
use flatstream::repair::Recover;
use flatstream::{Deframer, Error};
use std::ops::ControlFlow;

/// How a walk over a stream ended.
#[derive(Debug)]
pub(crate) enum End {
    /// The input ended exactly after a frame.
    Clean,
    /// The callback stopped the walk.
    Stopped,
    /// The input ends inside the frame at `offset` (the torn tail a dying writer leaves).
    Torn {
        offset: u64,
        needed: u64,
        present: u64,
    },
    /// The frame at `offset` is corrupt: `error` says how.
    Corrupt { offset: u64, error: Error },
}

impl End {
    /// The offset of the frame where the walk stopped on damage, if it did.
    pub(crate) fn damage_offset(&self) -> Option<u64> {
        match self {
            End::Torn { offset, .. } | End::Corrupt { offset, .. } => Some(*offset),
            End::Clean | End::Stopped => None,
        }
    }

    /// The damage, as "frame N at byte offset O: what", if the walk stopped on damage.
    pub(crate) fn damage(&self, index: u64) -> Option<String> {
        match self {
            End::Torn {
                offset,
                needed,
                present,
            } => Some(format!(
                "frame {index} at byte offset {offset}: {}",
                damage::torn_tail(*needed, *present)
            )),
            End::Corrupt { offset, error } => Some(format!(
                "frame {index} at byte offset {offset}: {}",
                describe(error)
            )),
            End::Clean | End::Stopped => None,
        }
    }
}

/// What a walk saw.
#[derive(Debug)]
pub(crate) struct Walked {
    /// Frames handed to the callback.
    pub(crate) frames: u64,
    /// Offset just past the last frame read.
    pub(crate) position: u64,
    pub(crate) end: End,
}

/// Reads every frame of `reader`, calling `f(index, offset, payload)`, until the end, damage,
/// or `f` breaks. An I/O error of the source fails the walk (exit status 2).
pub(crate) fn walk<M: MessageReader>(
    reader: &mut M,
    name: &str,
    progress: &mut Progress,
    mut f: impl FnMut(u64, u64, &[u8]) -> Result<ControlFlow<()>, Failure>,
) -> Result<Walked, Failure> {
    let mut frames = 0;
    loop {
        let offset = reader.position();
        progress.update(offset);
        let end = match reader.read_message() {
            Ok(Some(payload)) => {
                let flow = f(frames, offset, payload)?;
                frames += 1;
                if flow.is_break() {
                    End::Stopped
                } else {
                    continue;
                }
            }
            Ok(None) => End::Clean,
            Err(Error::UnexpectedEof {
                offset,
                needed,
                present,
                ..
            }) => End::Torn {
                offset,
                needed,
                present,
            },
            Err(Error::Io { source, .. }) => return Err(Failure::io(name, source)),
            Err(error) => End::Corrupt {
                offset: error.offset(),
                error,
            },
        };
        progress.finish();
        return Ok(Walked {
            frames,
            position: reader.position(),
            end,
        });
    }
}

/// An input's framing, resolved from `--checksum` or its leading bytes, with what the hint
/// after damage needs (see [`detect::hint`]): how `cat`, `convert` and `export` read an input.
pub(crate) struct Framed {
    framing: Framing,
    max: usize,
}

impl Framed {
    /// The framing to read `input` with, as `args` say (see [`FramingArgs::resolve`]).
    pub(crate) fn resolve(input: &Input, args: &FramingArgs) -> Result<Framed, Failure> {
        Ok(Framed {
            framing: args.resolve(input)?,
            max: args.max(),
        })
    }

    /// Reads every frame of `input` as [`walk`] does.
    pub(crate) fn walk(
        &self,
        input: &mut Input,
        progress: &mut Progress,
        f: impl FnMut(u64, u64, &[u8]) -> Result<ControlFlow<()>, Failure>,
    ) -> Result<Walked, Failure> {
        let name = input.name.clone();
        walk(
            &mut input.frames(&self.framing, self.max),
            &name,
            progress,
            f,
        )
    }

    /// The damage `walked` stopped on, if it did, followed by the hint when another framing
    /// reads the input.
    pub(crate) fn damage(&self, walked: &Walked) -> Option<String> {
        let mut damage = walked.end.damage(walked.frames)?;
        let offset = walked.end.damage_offset().unwrap_or(0);
        damage.push_str(&detect::hint(&self.framing, offset, "--checksum"));
        Some(damage)
    }
}

/// How an input that ends inside the frame at stream offset `offset` ends, in the library's
/// verdict ([`Recover`]): `rest` is the bytes from that frame's start to the end of the input.
/// `None` for a torn tail (or bytes that do not end inside a frame); otherwise the kind for
/// `--json` ("damaged": a damaged length, intact frames after it; "ambiguous": no checksum to
/// tell) and the words, without the frame's index and offset.
pub(crate) fn ends_inside<D: Deframer>(
    rest: &[u8],
    offset: u64,
    deframer: D,
    max: usize,
) -> Option<Inside> {
    let end = Recover::new(deframer)
        .with_max_frame_len(max)
        .scan(rest)
        .end;
    match damage::end(&end, offset) {
        (kind @ ("damaged" | "ambiguous"), Some(words), Some(resumes_at)) => Some(Inside {
            kind,
            words,
            resumes_at,
        }),
        _ => None,
    }
}

/// What [`ends_inside`] found: the kind (`"damaged"` or `"ambiguous"`), the words, and the
/// stream offset where the frames after the failing one start.
pub(crate) struct Inside {
    pub(crate) kind: &'static str,
    pub(crate) words: String,
    pub(crate) resumes_at: u64,
}
