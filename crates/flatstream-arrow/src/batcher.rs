//! [`Batcher`]: the end of a stream of batches, decided once; and [`Plan::convert`]'s
//! [`Batches`], the loop that drives one over an iterator of frames.
//!
//! The plan and its converter know nothing of batching: this module takes them from
//! `plan.rs`, and `Plan::convert` is written here, beside the iterator it returns.

use crate::error::{Error, Result};
use crate::plan::{Converter, Plan};
use arrow_array::RecordBatch;

/// A [`Converter`] and the rule that ends a stream of its batches: an error met after some
/// rows comes after the batch of those rows, so that none is lost, and ends the stream.
///
/// The loop that feeds it frames is the caller's (an iterator, an async scan): it appends to
/// [`converter_mut`](Self::converter_mut) while the batch is not full, calls
/// [`end`](Self::end) when the frames run out or [`fail`](Self::fail) when one fails, and
/// then takes [`next_batch`](Self::next_batch). [`Plan::convert`]'s [`Batches`] is such a
/// loop:
///
/// ```
/// use flatstream::arrow::arrow_array::RecordBatch;
/// use flatstream::arrow::{Batcher, BinarySchema, Error, Options, Plan};
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let schema = BinarySchema::load(concat!(
///     env!("CARGO_MANIFEST_DIR"),
///     "/../../examples/telemetry.bfbs"
/// ))?;
/// let plan = Plan::new(&schema, &Options::new())?;
/// // Two frames: a `telemetry.Telemetry` with every field absent, then bytes that are not one.
/// let mut b = flatstream::flatbuffers::FlatBufferBuilder::new();
/// let table = b.start_table();
/// let table = b.end_table(table);
/// b.finish_minimal(table);
/// let frames: Vec<(u64, &[u8])> = vec![(0, b.finished_data()), (20, &[0xFF; 3])];
///
/// let mut batcher = Batcher::new(plan.converter());
/// let mut items: Vec<Result<RecordBatch, Error>> = Vec::new();
/// let mut frames = frames.into_iter();
/// loop {
///     if !batcher.is_done() {
///         while batcher.converter().len() < plan.batch_size() {
///             let Some((offset, payload)) = frames.next() else {
///                 batcher.end();
///                 break;
///             };
///             if let Err(e) = batcher.converter_mut().append(offset, payload) {
///                 batcher.fail(e);
///                 break;
///             }
///         }
///     }
///     match batcher.next_batch(|e| e) {
///         Some(item) => items.push(item),
///         None => break,
///     }
/// }
/// // The row of the first frame, then the error of the second.
/// assert_eq!(items[0].as_ref().map(RecordBatch::num_rows).ok(), Some(1));
/// assert!(matches!(items[1], Err(Error::InvalidFrame { offset: 20, .. })));
/// assert_eq!(items.len(), 2);
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct Batcher<E> {
    converter: Converter,
    /// The error that ended the stream, held until the batch of the rows before it is taken.
    failed: Option<E>,
    /// Whether the frames ended or failed: no more are appended.
    done: bool,
}

impl<E> Batcher<E> {
    /// The stream of `converter`'s batches, none taken yet.
    pub fn new(converter: Converter) -> Self {
        Batcher {
            converter,
            failed: None,
            done: false,
        }
    }

    /// The converter, to read its [`len`](Converter::len) and counts.
    #[inline]
    pub fn converter(&self) -> &Converter {
        &self.converter
    }

    /// The converter, to [`append`](Converter::append) frames to.
    #[inline]
    pub fn converter_mut(&mut self) -> &mut Converter {
        &mut self.converter
    }

    /// Whether the frames ended or failed: the loop appends no more, and
    /// [`next_batch`](Self::next_batch) hands out what is left.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// The frames ended: the rows appended are the last batch.
    pub fn end(&mut self) {
        self.done = true;
    }

    /// A frame, or the source of the frames, failed with `error`: the stream ends, with
    /// `error` after the batch of the rows appended before it (at once if there are none, or
    /// if the converter can no longer make a batch: [`Error::Read`]).
    pub fn fail(&mut self, error: E) {
        self.done = true;
        self.failed = Some(error);
    }

    /// The next item of the stream: the batch of the rows appended since the last one, if
    /// any; else the error the frames failed with; else `None`, the end (for good once the
    /// frames ended or failed). A batch the converter cannot make is an error `finish` makes
    /// of its [`Error`].
    pub fn next_batch(
        &mut self,
        finish: impl FnOnce(Error) -> E,
    ) -> Option<std::result::Result<RecordBatch, E>> {
        if !self.converter.is_empty() && !self.converter.is_poisoned() {
            return Some(self.converter.finish().map_err(finish));
        }
        self.failed.take().map(Err)
    }
}

impl Plan {
    /// Converts `frames`, each a payload with its frame's offset, into batches of
    /// [`batch_size`](Self::batch_size) rows. See [`Batches`].
    pub fn convert<'a, I, E>(&self, frames: I) -> Batches<I>
    where
        I: Iterator<Item = std::result::Result<(u64, &'a [u8]), E>>,
        E: Into<Error>,
    {
        Batches {
            batcher: Batcher::new(self.converter()),
            frames,
        }
    }
}

/// Batches of converted frames: [`Plan::convert`]'s iterator.
///
/// Each item is a batch of [`Plan::batch_size`] rows, the last one shorter. An error (of the
/// frames, or [`Error::InvalidFrame`]) ends the iteration, after a batch of the rows before it,
/// so that none is lost: the rule of a [`Batcher`].
#[derive(Debug)]
pub struct Batches<I> {
    batcher: Batcher<Error>,
    frames: I,
}

impl<I> Batches<I> {
    /// The frames skipped as invalid so far (with
    /// [`Options::skip_invalid`](crate::Options::skip_invalid)).
    pub fn skipped(&self) -> u64 {
        self.batcher.converter().skipped()
    }
}

impl<'a, I, E> Iterator for Batches<I>
where
    I: Iterator<Item = std::result::Result<(u64, &'a [u8]), E>>,
    E: Into<Error>,
{
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        if !self.batcher.is_done() {
            let size = self.batcher.converter().plan().batch_size();
            while self.batcher.converter().len() < size {
                match self.frames.next() {
                    None => {
                        self.batcher.end();
                        break;
                    }
                    Some(Ok((offset, payload))) => {
                        if let Err(e) = self.batcher.converter_mut().append(offset, payload) {
                            self.batcher.fail(e);
                            break;
                        }
                    }
                    Some(Err(e)) => {
                        self.batcher.fail(e.into());
                        break;
                    }
                }
            }
        }
        self.batcher.next_batch(|e| e)
    }
}
