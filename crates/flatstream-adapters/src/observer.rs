//! `ObserverFramer` and `ObserverDeframer`: a callback that sees every payload.

use flatstream_core::frame::FrameHeader;
use flatstream_core::{Deframer, Framer, Result};

/// Calls `observer` with each payload on its way to the wrapped framer, before it is framed.
///
/// The callback gets the payload as the writer holds it: no copy, no allocation. It is a
/// `Fn`, because framers are shared (`&self`); count or accumulate through a `Cell`, an atomic
/// or a channel.
///
/// Where it sits in a stack decides what it sees: an observer outside a bound or a validator
/// sees every payload offered, including refused ones; inside them, only the payloads that go
/// on the wire. See the [crate docs](crate#composition).
///
/// ```
/// use flatstream::adapters::ObserverFramer;
/// use flatstream::{DefaultFramer, StreamWriter};
/// use std::cell::Cell;
///
/// let bytes = Cell::new(0);
/// let framer = ObserverFramer::new(DefaultFramer, |p: &[u8]| bytes.set(bytes.get() + p.len()));
/// let mut writer = StreamWriter::new(Vec::new(), framer);
/// writer.write_payload(b"abc")?;
/// writer.write_payload(b"de")?;
/// assert_eq!(bytes.get(), 5);
/// # Ok::<(), flatstream::Error>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct ObserverFramer<F, C> {
    inner: F,
    observer: C,
}

/// Calls `observer` with each payload after the wrapped deframer has verified it (checksum
/// included), before the reader hands it out.
///
/// A payload that fails verification is never observed. The callback borrows the payload from
/// the reader's buffer: no copy, no allocation.
///
/// ```
/// use flatstream::adapters::ObserverDeframer;
/// use flatstream::{DefaultDeframer, DefaultFramer, StreamReader, StreamWriter};
/// use std::cell::Cell;
///
/// let mut writer = StreamWriter::new(Vec::new(), DefaultFramer);
/// writer.write_payload(b"abc")?;
/// let bytes = writer.into_inner();
///
/// let seen = Cell::new(0);
/// let deframer = ObserverDeframer::new(DefaultDeframer, |_: &[u8]| seen.set(seen.get() + 1));
/// let mut reader = StreamReader::new(&bytes[..], deframer);
/// while reader.read_message()?.is_some() {}
/// assert_eq!(seen.get(), 1);
/// # Ok::<(), flatstream::Error>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct ObserverDeframer<D, C> {
    inner: D,
    observer: C,
}

wrapper_common! {
    ObserverFramer<F>, ObserverDeframer<D>; observer: C: Fn(&[u8]) => observe, "callback",
    "Wraps `inner`, calling `observer` with each payload."
}

/// What both observing adapters do with a payload: hand it to the callback.
#[inline(always)]
fn observe<C: Fn(&[u8])>(observer: &C, payload: &[u8], _offset: u64) -> Result<()> {
    observer(payload);
    Ok(())
}
