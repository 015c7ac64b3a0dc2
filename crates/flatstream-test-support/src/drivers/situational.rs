//! Drivers of the situational readers that are [`MessageReader`](flatstream_core::MessageReader)s
//! or close to one: a split over the whole stream, `Frames` over a mapped file, `BytesFrames`,
//! and the follower of a file being appended to.

use super::source;
use crate::contract::{Callback, Driver, Input, Subject, process_each};
use flatstream_core::{BytesFrames, Deframer, Followed, Follower, Frames, MappedFile, SplitFrames};
use std::sync::atomic::{AtomicU64, Ordering};

driver! {
    /// `SplitFrames` over the whole stream (`0..len`): a split that starts at a frame boundary
    /// reads as `Frames` does, whatever the framing.
    SplitWhole: "SplitFrames over 0..len", io: false, min_capacity: None,
    |input, d| SplitFrames::new(&input.bytes, 0..input.bytes.len(), d)
        .expect("a split from 0 needs no checksum")
}

driver! {
    /// `BytesFrames`, the iterator over a `bytes::Bytes`, read through `MessageReader`.
    BytesFramesDriver: "BytesFrames", io: false, min_capacity: None,
    |input, d| BytesFrames::new(bytes::Bytes::copy_from_slice(&input.bytes), d)
}

driver! {
    /// `Frames` over a [`MappedFile`] of the input written to a temporary file (see
    /// [`mapped`]).
    MappedFrames: "Frames over a MappedFile", io: false, min_capacity: None,
    |input, d| Frames::new(mapped(&input.bytes), d)
}

/// `bytes` written to a temporary file, opened with [`MappedFile::open`] (mapped where the
/// platform maps it), the file removed again. The mapping is leaked, so that a reader can
/// borrow it for as long as the test runs: a few pages per case.
pub fn mapped(bytes: &[u8]) -> &'static MappedFile {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let path = std::env::temp_dir().join(format!(
        "flatstream-contract-{}-{}.fs",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::write(&path, bytes).expect("a temporary file");
    let file = MappedFile::open(&path).expect("the temporary file, mapped");
    // The mapping outlives the name (on Windows the removal fails while mapped: left behind).
    let _ = std::fs::remove_file(&path);
    Box::leak(Box::new(file))
}

/// A [`Follower`] as the cases see a reader: a frame is a payload, and [`Followed::CaughtUp`]
/// the end of the data, also inside a frame cut short, which it waits for
/// ([`Driver::CUT_FRAME_WAITS`]).
pub struct FollowerSubject<'a, D>(pub Follower<Box<dyn std::io::Read + Send + 'a>, D>);

impl<D: Deframer> Subject for FollowerSubject<'_, D> {
    fn read_message(&mut self) -> flatstream_core::Result<Option<&[u8]>> {
        Ok(match self.0.next()? {
            Followed::Frame { payload, .. } => Some(payload),
            Followed::CaughtUp => None,
        })
    }
    fn process_all(&mut self, f: Callback<'_>) -> flatstream_core::Result<()> {
        process_each(self, f)
    }
    fn position(&self) -> u64 {
        self.0.position()
    }
}

driver! {
    /// `Follower` (journal/follow) over [`Opaque`](crate::Opaque) bytes or a
    /// [`FaultySource`](crate::faults::FaultySource).
    FollowerDriver: "Follower", io: true, min_capacity: None, cut_frame_waits: true,
    |input, d| subject FollowerSubject(bounded!(Follower::new(source(input), d), input))
}
