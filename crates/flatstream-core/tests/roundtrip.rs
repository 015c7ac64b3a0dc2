//! Round trips: whatever is written is read back unchanged, whatever the reader's buffer size
//! and however the source splits its data.

mod support;

use flatstream_core::{
    ChecksumDeframer, ChecksumFramer, DefaultDeframer, Deframer, Frames, StreamReader,
};
use proptest::prelude::*;
use support::{Fletcher32, Scripted, stream, stream_with};

fn read_all<D: Deframer>(source: Scripted, capacity: usize, deframer: D) -> Vec<Vec<u8>> {
    let mut reader = StreamReader::with_capacity(capacity, source, deframer);
    let mut out = vec![];
    while let Some(p) = reader.read_message().unwrap() {
        out.push(p.to_vec());
    }
    out
}

fn messages() -> impl Strategy<Value = Vec<Vec<u8>>> {
    prop::collection::vec(prop::collection::vec(any::<u8>(), 0..300), 0..24)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn default_framing_round_trips(msgs in messages(), capacity in 16usize..700, chunk in 1usize..80) {
        let bytes = stream(&msgs);
        prop_assert_eq!(&read_all(Scripted::chunked(bytes.clone(), chunk), capacity, DefaultDeframer), &msgs);
        let sliced: Vec<Vec<u8>> = Frames::new(&bytes, DefaultDeframer).map(|p| p.unwrap().to_vec()).collect();
        prop_assert_eq!(sliced, msgs);
    }

    #[test]
    fn checksummed_framing_round_trips(msgs in messages(), capacity in 16usize..700, chunk in 1usize..80) {
        let bytes = stream_with(ChecksumFramer::new(Fletcher32), &msgs);
        let deframer = ChecksumDeframer::new(Fletcher32);
        prop_assert_eq!(&read_all(Scripted::chunked(bytes.clone(), chunk), capacity, deframer), &msgs);
        let sliced: Vec<Vec<u8>> = Frames::new(&bytes, deframer).map(|p| p.unwrap().to_vec()).collect();
        prop_assert_eq!(sliced, msgs);
    }

    #[test]
    fn one_byte_per_read_round_trips(msgs in messages(), capacity in 16usize..64) {
        let bytes = stream(&msgs);
        prop_assert_eq!(read_all(Scripted::chunked(bytes, 1), capacity, DefaultDeframer), msgs);
    }
}

/// Every buffer capacity from the minimum to past the largest frame, over a fixed stream of
/// varied sizes, with whole-buffer reads and with 1-byte reads.
#[test]
fn every_reader_capacity_round_trips() {
    let msgs: Vec<Vec<u8>> = (0..40u8)
        .map(|i| vec![i; usize::from(i) * 7 % 97])
        .collect();
    let bytes = stream(&msgs);
    for capacity in 0..=120 {
        for chunk in [1, 3, usize::MAX] {
            let got = read_all(
                Scripted::chunked(bytes.clone(), chunk),
                capacity,
                DefaultDeframer,
            );
            assert_eq!(got, msgs, "capacity {capacity}, chunk {chunk}");
        }
    }
}
