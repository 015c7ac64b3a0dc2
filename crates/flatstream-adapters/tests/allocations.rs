//! Allocation behaviour of the adapters, measured with a counting allocator: nothing per
//! message in steady state, with a reclamation policy installed or a stack of adapters; and
//! memory returned to the baseline after a burst.

use flatbuffers::FlatBufferBuilder;
use flatstream_adapters::{
    DeframerExt, FramerExt, ReclaimExt, SizeValidator, StructuralValidator, TypedReaderExt,
    TypedValidator,
};
use flatstream_core::{
    DefaultDeframer, DefaultFramer, ShrinkAbove, ShrinkAfter, StreamReader, StreamSerialize,
    StreamWriter,
};
use flatstream_test_support::Opaque;
use flatstream_test_support::alloc::{CountingAlloc, measure_exact, measure_reading, steady_state};
use flatstream_test_support::telemetry::{self, Reading, Telemetry};
use std::cell::Cell;
use std::io::{self, Cursor};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

/// A FlatBuffer whose root is a string of `len` bytes.
struct Blob(usize);

impl StreamSerialize for Blob {
    fn serialize<A: flatbuffers::Allocator + 'static>(
        &self,
        builder: &mut FlatBufferBuilder<'_, A>,
    ) -> flatstream_core::Result<()> {
        let s = builder.create_string(&"b".repeat(self.0));
        builder.finish(s, None);
        Ok(())
    }
}

#[test]
fn a_reclaiming_writer_allocates_nothing_per_message_in_steady_state() {
    let mut w = StreamWriter::new(io::sink(), DefaultFramer).reclaim(ShrinkAfter::new(4096, 16));
    let stats = steady_state(|i| w.write(&Reading::nth(i)).unwrap());
    assert_eq!(stats.allocations, 0, "{stats:?}");
}

#[test]
fn a_reclaiming_reader_allocates_nothing_per_message_in_steady_state() {
    let bytes = telemetry::stream(10_000);
    let source = Opaque(&bytes[..]);
    let mut r = StreamReader::new(source, DefaultDeframer).with_reclaim(ShrinkAfter::new(4096, 16));
    assert!(r.read_message().unwrap().is_some());
    let (count, stats) = measure_reading(&mut r);
    assert_eq!(count, 9_999);
    assert_eq!(stats.allocations, 0, "{stats:?}");
}

#[test]
fn a_stack_of_adapters_allocates_nothing_per_message() {
    let seen = Cell::new(0u64);
    let framer = DefaultFramer
        .validated((
            SizeValidator::new(8, 1024),
            StructuralValidator::new(),
            TypedValidator::<Telemetry<'_>>::new(),
        ))
        .observed(|p: &[u8]| seen.set(seen.get() + p.len() as u64));
    let mut w = StreamWriter::new(Vec::with_capacity(1 << 20), framer).with_max_frame_len(1024);
    let stats = steady_state(|i| w.write(&Reading::nth(i)).unwrap());
    assert_eq!(stats.allocations, 0, "write: {stats:?}");
    let bytes = w.into_inner();

    let deframer = DefaultDeframer
        .validated((SizeValidator::new(8, 1024), StructuralValidator::new()))
        .observed(|p: &[u8]| seen.set(seen.get() + p.len() as u64));
    let mut r = StreamReader::new(Cursor::new(&bytes[..]), deframer).with_max_frame_len(1024);
    assert!(r.read_message().unwrap().is_some());
    let (count, stats) = measure_reading(&mut r);
    assert_eq!(count, 10_099);
    assert_eq!(stats.allocations, 0, "read: {stats:?}");
    assert!(seen.get() > 0);
}

#[test]
fn typed_reading_allocates_nothing_per_message() {
    let bytes = telemetry::stream(10_000);
    let mut r = StreamReader::new(&bytes[..], DefaultDeframer);
    assert!(r.read_message().unwrap().is_some());
    let (sum, stats) = measure_exact(|| {
        let mut sum = 0u64;
        r.process_typed::<Telemetry<'_>, _, _>(|t| {
            sum = sum.wrapping_add(t.device_id());
            Ok(())
        })
        .unwrap();
        sum
    });
    assert!(sum > 0);
    assert_eq!(stats.allocations, 0, "{stats:?}");
}

#[test]
fn after_a_burst_the_reader_returns_to_the_baseline_and_stays_allocation_free() {
    const BASELINE: usize = 4096;
    let mut w = StreamWriter::new(Vec::new(), DefaultFramer);
    for i in 0..50 {
        w.write(&Reading::nth(i)).unwrap();
    }
    for _ in 0..3 {
        w.write(&Blob(256 * 1024)).unwrap();
    }
    for i in 50..1050 {
        w.write(&Reading::nth(i)).unwrap();
    }
    let bytes = w.into_inner();

    let mut r = StreamReader::with_capacity(BASELINE, Opaque(&bytes[..]), DefaultDeframer)
        .with_reclaim(ShrinkAfter::new(BASELINE, 32));
    let check = |n: u64, p: &[u8], i: &mut u64| {
        if (50..53).contains(&n) {
            assert_eq!(flatbuffers::root::<&str>(p).unwrap().len(), 256 * 1024);
        } else {
            let t = flatbuffers::root::<Telemetry<'_>>(p).unwrap();
            assert_eq!(Reading::from_table(&t), Reading::nth(*i));
            *i += 1;
        }
    };
    // Through the burst and the 32 small messages that end it, until the bytes read ahead fit
    // in the baseline and the buffer shrinks.
    let (mut n, mut i, mut peak) = (0u64, 0u64, 0);
    let shrunk_at = loop {
        let Some(p) = r.read_message().unwrap() else {
            panic!("the buffer never shrank")
        };
        check(n, p, &mut i);
        n += 1;
        let capacity = r.capacity();
        peak = peak.max(capacity);
        if peak > BASELINE && capacity == BASELINE {
            break n;
        }
    };
    assert!(peak >= 256 * 1024, "grew for the burst: {peak}");
    assert!(
        shrunk_at > 53 + 32,
        "shrank only after the burst ended: {shrunk_at}"
    );
    // The rest: intact, at the baseline, and without a single allocation.
    let ((), stats) = measure_exact(|| {
        while let Some(p) = r.read_message().unwrap() {
            check(n, p, &mut i);
            n += 1;
        }
    });
    assert_eq!(i, 1050);
    assert_eq!(stats.allocations, 0, "{stats:?}");
    assert_eq!(r.capacity(), BASELINE);
}

#[test]
fn after_a_burst_the_writer_returns_to_the_baseline_and_stays_allocation_free() {
    const BASELINE: usize = 1024;
    let writer = StreamWriter::with_builder(
        Vec::with_capacity(4 << 20),
        DefaultFramer,
        FlatBufferBuilder::with_capacity(BASELINE),
    );
    let mut w = writer.reclaim(ShrinkAbove::new(BASELINE, 64 * 1024));
    for i in 0..50 {
        w.write(&Reading::nth(i)).unwrap();
    }
    // The large message: the builder grows for it, then is replaced by one of the baseline.
    let ((), stats) = measure_exact(|| w.write(&Blob(1 << 20)).unwrap());
    assert!(stats.largest >= 1 << 20, "{stats:?}");
    // The first write into the new builder re-creates its small bookkeeping vectors.
    let ((), stats) = measure_exact(|| w.write(&Reading::nth(50)).unwrap());
    assert!(stats.largest < 1024, "{stats:?}");
    let ((), stats) = measure_exact(|| {
        for i in 51..1050 {
            w.write(&Reading::nth(i)).unwrap();
        }
    });
    assert_eq!(stats.allocations, 0, "{stats:?}");
    let (mut buf, _) = std::mem::take(w.get_mut().builder_mut()).collapse();
    assert_eq!(buf.len(), BASELINE);
    buf.fill(0);

    let bytes = w.into_inner().into_inner();
    let mut r = StreamReader::new(&bytes[..], DefaultDeframer);
    let mut n = 0;
    r.process_all(|p| {
        if n == 50 {
            assert_eq!(flatbuffers::root::<&str>(p)?.len(), 1 << 20);
        } else {
            let i = if n < 50 { n } else { n - 1 };
            let t = flatbuffers::root::<Telemetry<'_>>(p)?;
            assert_eq!(Reading::from_table(&t), Reading::nth(i));
        }
        n += 1;
        Ok(())
    })
    .unwrap();
    assert_eq!(n, 1051);
}
