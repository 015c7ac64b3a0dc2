//! What verifying found: each damaged range ([`FrameError`]) and the counts of a run of
//! frames ([`Tally`]), which fold in stream order.

use crate::damage;

use crate::damage::describe;
use crate::schema::Verifier;
use flatstream::Error;
use serde::Serialize;

/// One damaged range: a frame that failed, or bytes that hold no frame that verifies.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct FrameError {
    /// Frames verified before it (its index among the intact frames).
    pub(crate) index: u64,
    /// Stream offset of its first byte.
    pub(crate) offset: u64,
    /// Stream offset just past it, where that is known: the frame's end for a frame that
    /// failed the schema, the end of the input for a torn tail, the next frame that verifies
    /// after a corrupt one (with `--all` over a file; a reader that stops there does not know).
    pub(crate) end: Option<u64>,
    /// "checksum", "too_large", "torn_tail", "damaged" (a frame runs past the end, but intact
    /// frames follow it: its length is damaged), "ambiguous" (the same without a checksum to
    /// tell), "schema", "damage" (a range with no frame that verifies, after a corrupt frame,
    /// with `--all`) or "io".
    pub(crate) kind: &'static str,
    /// What is wrong, in words.
    pub(crate) message: String,
}

impl FrameError {
    pub(super) fn new(index: u64, offset: u64, error: &Error) -> Self {
        let mut end = None;
        let kind = match error {
            Error::ChecksumMismatch { .. } => "checksum",
            Error::FrameTooLarge { .. } => "too_large",
            Error::UnexpectedEof { present, .. } => {
                end = Some(offset + present);
                "torn_tail"
            }
            Error::InvalidFlatbuffer { .. } | Error::Validation { .. } => "schema",
            _ => "io",
        };
        FrameError {
            index,
            offset,
            end,
            kind,
            message: describe(error),
        }
    }

    /// Calls this frame, which runs past the end of the stream, a damaged length, as recover
    /// does: it declares `needed` bytes in all, and intact frames follow from `resumes_at`.
    pub(super) fn damaged_length(&mut self, needed: u64, resumes_at: u64) {
        self.kind = "damaged";
        self.end = Some(resumes_at);
        self.message = damage::damaged_length(needed, resumes_at);
    }

    /// `frame N at byte offset START: what`, as every command names an error.
    pub(super) fn line(&self) -> String {
        format!(
            "frame {} at byte offset {}: {}",
            self.index, self.offset, self.message
        )
    }

    /// `frame N at bytes START..END: what` (`at byte offset START` where the end is unknown),
    /// as `--all` lists the damaged ranges.
    pub(super) fn range_line(&self) -> String {
        match self.end {
            Some(end) => format!(
                "frame {} at bytes {}..{end}: {}",
                self.index, self.offset, self.message
            ),
            None => format!(
                "frame {} at byte offset {}: {}",
                self.index, self.offset, self.message
            ),
        }
    }
}

/// How many damaged ranges a tally lists; [`Tally::errors`] counts them all.
pub(crate) const LISTED: usize = 1 << 16;

/// What verifying a run of frames found. Tallies of consecutive runs fold with
/// [`then`](Self::then).
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct Tally {
    /// Frames whose checksum (and schema, if any) verified, and those that failed the schema.
    pub(crate) frames: u64,
    /// Their payload bytes.
    pub(crate) payload_bytes: u64,
    /// Errors: frames that failed the schema, corrupt frames and damaged byte ranges.
    pub(crate) errors: u64,
    /// Bytes skipped as damage (with `--all`, after a corrupt frame).
    pub(crate) skipped_bytes: u64,
    /// The errors, in stream order: the first [`LISTED`] of them.
    pub(crate) damage: Vec<FrameError>,
    /// Whether verification stopped before the end of the run (at the first error).
    #[serde(skip)]
    pub(crate) stopped: bool,
    /// With `--all`, the stream offset of the corrupt frame that ended frame-by-frame reading,
    /// until the resynchronisation after it is folded in.
    #[serde(skip)]
    pub(crate) corrupt: Option<u64>,
    /// The largest payload read frame by frame (it sets the bound for resynchronising).
    #[serde(skip)]
    pub(crate) largest: usize,
}

impl Tally {
    /// Folds in the tally of the run that follows this one in the stream.
    pub(crate) fn then(mut self, later: Tally) -> Tally {
        let room = LISTED.saturating_sub(self.damage.len());
        let frames = self.frames;
        self.damage
            .extend(later.damage.into_iter().take(room).map(|mut e| {
                e.index += frames;
                e
            }));
        self.frames += later.frames;
        self.payload_bytes += later.payload_bytes;
        self.errors += later.errors;
        self.skipped_bytes += later.skipped_bytes;
        self.stopped |= later.stopped;
        self.corrupt = self.corrupt.or(later.corrupt);
        self.largest = self.largest.max(later.largest);
        self
    }

    pub(super) fn error(&mut self, e: FrameError) {
        self.errors += 1;
        if self.damage.len() < LISTED {
            self.damage.push(e);
        }
    }

    /// The first error.
    pub(crate) fn first_error(&self) -> Option<&FrameError> {
        self.damage.first()
    }

    /// Counts an intact frame, which spans `offset..end`, and checks its payload against the
    /// schema, if any. Returns whether it passed.
    #[inline(always)]
    pub(super) fn frame(
        &mut self,
        payload: &[u8],
        offset: u64,
        end: u64,
        schema: &mut Option<Verifier<'_>>,
    ) -> bool {
        let index = self.frames;
        self.frames += 1;
        self.payload_bytes += payload.len() as u64;
        if let Some(verifier) = schema
            && let Err(why) = verifier.verify(payload)
        {
            self.error(FrameError {
                index,
                offset,
                end: Some(end),
                kind: "schema",
                message: why,
            });
            return false;
        }
        true
    }
}
