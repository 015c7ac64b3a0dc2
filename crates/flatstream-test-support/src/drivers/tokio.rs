//! Drivers of the async readers (feature `tokio`): the `AsyncStreamReader`, and `FrameCodec`
//! driven as `FramedRead` drives it, each over an async source that follows the input's faults
//! and answers `Pending` every other poll. The [`Subject`] blocks on a current-thread runtime.

use crate::contract::{Callback, Driver, Input, Subject, process_each};
use bytes::{Bytes, BytesMut};
use flatstream_core::{DefaultFramer, Deframer, Result};
use flatstream_tokio::{AsyncStreamReader, FrameCodec};
use std::io::{self, Read};
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, AsyncReadExt, ReadBuf};
use tokio::runtime::Runtime;

/// The input's bytes as an `AsyncRead`: through the input's faults, and `Pending` (with a wake)
/// on every other poll, so that every read goes through an `.await` that yields.
pub struct AsyncSource<'a> {
    inner: Box<dyn Read + Send + 'a>,
    pending: bool,
}

impl<'a> AsyncSource<'a> {
    /// The bytes of `input`, through its faults.
    pub fn new(input: &'a Input) -> Self {
        AsyncSource {
            inner: super::source(input),
            pending: false,
        }
    }
}

impl AsyncRead for AsyncSource<'_> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        self.pending = !self.pending;
        if self.pending {
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        let n = self.inner.read(buf.initialize_unfilled())?;
        buf.advance(n);
        Poll::Ready(Ok(()))
    }
}

/// A current-thread runtime to block on.
pub fn runtime() -> Runtime {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime")
}

/// An `AsyncStreamReader`, blocked on.
pub struct BlockingReader<'a, D> {
    rt: Runtime,
    reader: AsyncStreamReader<AsyncSource<'a>, D>,
}

impl<'a, D: Deframer> BlockingReader<'a, D> {
    /// `reader`, blocked on.
    pub fn new(reader: AsyncStreamReader<AsyncSource<'a>, D>) -> Self {
        BlockingReader {
            rt: runtime(),
            reader,
        }
    }
}

impl<D: Deframer> Subject for BlockingReader<'_, D> {
    fn read_message(&mut self) -> Result<Option<&[u8]>> {
        self.rt.block_on(self.reader.read_message())
    }
    fn process_all(&mut self, f: Callback<'_>) -> Result<()> {
        self.rt.block_on(self.reader.process_all(f))
    }
    fn position(&self) -> u64 {
        self.reader.position()
    }
}

driver! {
    /// `AsyncStreamReader` over an [`AsyncSource`].
    AsyncReader: "AsyncStreamReader", io: true, min_capacity: Some(16),
    |input, d| subject BlockingReader::new(bounded!(match input.capacity {
        Some(capacity) => AsyncStreamReader::with_capacity(capacity, AsyncSource::new(input), d),
        None => AsyncStreamReader::new(AsyncSource::new(input), d),
    }, input))
}

driver! {
    /// `AsyncStreamReader` built by `from_config` from the input's `FrameConfig`.
    AsyncConfigReader: "AsyncStreamReader::from_config", io: true, min_capacity: Some(16),
    |input, d| subject BlockingReader::new(
        AsyncStreamReader::from_config(AsyncSource::new(input), &super::config(input, d)),
    )
}

/// `FrameCodec` driven as tokio-util's `FramedRead` drives it (decode; if it needs more, reserve
/// one byte and read; at the end, `decode_eof`), except that an error does not end the stream:
/// the contract asks again after errors.
pub struct Codec<'a, D> {
    rt: Runtime,
    source: AsyncSource<'a>,
    codec: FrameCodec<DefaultFramer, D>,
    buf: BytesMut,
    eof: bool,
    last: Bytes,
}

impl<D: Deframer> Codec<'_, D> {
    fn next(&mut self) -> Result<Option<Bytes>> {
        use tokio_util::codec::Decoder;
        loop {
            let frame = if self.eof {
                self.codec.decode_eof(&mut self.buf)?
            } else {
                self.codec.decode(&mut self.buf)?
            };
            if frame.is_some() || self.eof {
                return Ok(frame);
            }
            self.buf.reserve(1);
            let read = self.rt.block_on(self.source.read_buf(&mut self.buf));
            match read {
                Ok(0) => self.eof = true,
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(source) => {
                    return Err(flatstream_core::Error::Io {
                        source,
                        offset: self.codec.read_position(),
                    });
                }
            }
        }
    }
}

impl<D: Deframer> Subject for Codec<'_, D> {
    fn read_message(&mut self) -> Result<Option<&[u8]>> {
        match self.next()? {
            Some(payload) => {
                self.last = payload;
                Ok(Some(&self.last))
            }
            None => Ok(None),
        }
    }
    fn process_all(&mut self, f: Callback<'_>) -> Result<()> {
        process_each(self, f)
    }
    fn position(&self) -> u64 {
        self.codec.read_position()
    }
}

driver! {
    /// `FrameCodec` as `FramedRead` drives it ([`Codec`]).
    CodecDriver: "FrameCodec as FramedRead drives it", io: true, min_capacity: Some(1),
    |input, d| subject Codec {
        rt: runtime(),
        source: AsyncSource::new(input),
        codec: bounded!(FrameCodec::new(DefaultFramer, d), input),
        // tokio-util's `FramedRead` starts with 8 KiB.
        buf: BytesMut::with_capacity(input.capacity.unwrap_or(8 * 1024)),
        eof: false,
        last: Bytes::new(),
    }
}
