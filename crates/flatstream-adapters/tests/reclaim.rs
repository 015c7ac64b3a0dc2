//! Buffer reclamation: capacity returns to the baseline after a burst, and every payload read
//! or written around the reclamation is intact. A writer reclaims through `Reclaiming`, a
//! reader through its own `with_reclaim`.

use flatbuffers::FlatBufferBuilder;
use flatstream_adapters::ReclaimExt;
use flatstream_core::{
    DefaultDeframer, DefaultFramer, MessageReader, NoReclaim, ShrinkAbove, ShrinkAfter,
    StreamReader, StreamWriter,
};
// `Opaque`: bytes the reader copies through its own buffer, the buffer these policies reclaim.
use flatstream_test_support::Opaque;

/// The capacity of a builder's buffer. The builder does not expose it, so take the buffer out
/// and put it back, zeroed as a fresh builder's is.
fn builder_capacity(b: &mut FlatBufferBuilder<'static>) -> usize {
    let (mut buf, _) = std::mem::take(b).collapse();
    let capacity = buf.len();
    buf.fill(0);
    *b = FlatBufferBuilder::from_vec(buf);
    capacity
}

/// A message: a string of `len` copies of a letter derived from `i`.
fn message(i: usize, len: usize) -> String {
    std::iter::repeat_n(char::from(b"abcdefghijklmnopqrstuvwxyz"[i % 26]), len).collect()
}

/// 5 small, 3 large (64 KiB), then 20 small messages.
fn burst() -> Vec<String> {
    (0..28)
        .map(|i| message(i, if (5..8).contains(&i) { 64 * 1024 } else { 100 }))
        .collect()
}

/// The burst written with the default framing.
fn burst_stream() -> Vec<u8> {
    let mut w = StreamWriter::new(Vec::new(), DefaultFramer);
    for m in burst() {
        w.write(&m).unwrap();
    }
    w.into_inner()
}

/// Reads every message as a string.
fn read_strings(r: &mut impl MessageReader) -> Vec<String> {
    let mut read = vec![];
    r.process_all(|p| {
        read.push(flatbuffers::root::<&str>(p)?.to_owned());
        Ok(())
    })
    .unwrap();
    read
}

/// The capacity after each message of the burst: `baseline` at first, grown for the large
/// messages (indexes 5 to 7) and still grown up to index `back_at`, from which it is
/// `baseline` again.
fn assert_back_to_baseline(capacities: &[usize], baseline: usize, back_at: usize) {
    assert_eq!(capacities[0], baseline);
    assert!(
        capacities[7] > 64 * 1024,
        "grew for the burst: {capacities:?}"
    );
    assert!(
        capacities[8..back_at].iter().all(|&c| c > 64 * 1024),
        "{capacities:?}"
    );
    assert!(
        capacities[back_at..].iter().all(|&c| c == baseline),
        "{capacities:?}"
    );
}

#[test]
fn writer_builder_returns_to_the_baseline_after_a_burst() {
    const BASELINE: usize = 1024;
    let writer = StreamWriter::with_builder(
        Vec::new(),
        DefaultFramer,
        FlatBufferBuilder::with_capacity(BASELINE),
    );
    let mut w = writer.reclaim(ShrinkAfter::new(BASELINE, 10));
    let mut capacities = vec![];
    for m in burst() {
        w.write(&m).unwrap();
        capacities.push(builder_capacity(w.get_mut().builder_mut()));
    }
    // Ten small messages after the last large one, the builder is back to the baseline.
    assert_back_to_baseline(&capacities, BASELINE, 17);

    let bytes = w.into_inner().into_inner();
    let mut r = StreamReader::new(&bytes[..], DefaultDeframer);
    assert_eq!(read_strings(&mut r), burst());
}

#[test]
fn without_a_policy_the_builder_keeps_its_largest_size() {
    let mut w = StreamWriter::new(Vec::new(), DefaultFramer).reclaim(NoReclaim);
    for m in burst() {
        w.write(&m).unwrap();
    }
    assert!(builder_capacity(w.get_mut().builder_mut()) > 64 * 1024);
}

#[test]
fn reader_buffer_returns_to_the_baseline_after_a_burst() {
    const BASELINE: usize = 4096;
    let bytes = burst_stream();
    let mut r = StreamReader::with_capacity(BASELINE, Opaque(&bytes[..]), DefaultDeframer)
        .with_reclaim(ShrinkAfter::new(BASELINE, 10));
    let mut capacities = vec![];
    let mut read = vec![];
    while let Some(p) = r.read_message().unwrap() {
        read.push(flatbuffers::root::<&str>(p).unwrap().to_owned());
        capacities.push(r.capacity());
    }
    assert_eq!(read, burst(), "every payload intact across the reclamation");
    // The policy fires after the tenth small message (index 17); the shrink happens before the
    // next read.
    assert_back_to_baseline(&capacities, BASELINE, 18);
}

#[test]
fn shrink_above_returns_memory_right_after_an_outsized_message() {
    const BASELINE: usize = 4096;
    let bytes = burst_stream();
    let mut r = StreamReader::with_capacity(BASELINE, Opaque(&bytes[..]), DefaultDeframer)
        .with_reclaim(ShrinkAbove::new(BASELINE, 32 * 1024));
    assert_eq!(read_strings(&mut r), burst());
    // The last large message was followed by small ones: the buffer went back at once.
    assert_eq!(r.capacity(), BASELINE);

    let mut w =
        StreamWriter::new(Vec::new(), DefaultFramer).reclaim(ShrinkAbove::new(256, 32 * 1024));
    w.write(&message(0, 64 * 1024)).unwrap();
    assert_eq!(builder_capacity(w.get_mut().builder_mut()), 256);
}
