//! The baseline of `crates/flatstream-cli/speed.sh`: maps a stream file and walks its frames
//! with `Frames` and XXH3, single-threaded, the least code that verifies every checksum of a
//! mapped file. `flatstream verify` is timed against this process on the same file.
//!
//! ```text
//! cargo run --release -p flatstream-bench --example frames_mapped -- FILE
//! ```

use flatstream::{ChecksumDeframer, Frames, XxHash64};
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).ok_or("usage: frames_mapped FILE")?;
    let file = std::fs::File::open(&path)?;
    let map = flatstream::read::MappedFile::map(&file)?;
    let started = Instant::now();
    let (mut frames, mut payload_bytes) = (0u64, 0u64);
    for payload in Frames::new(&map, ChecksumDeframer::new(XxHash64::new())) {
        let payload = payload?;
        frames += 1;
        payload_bytes += payload.len() as u64;
    }
    let loop_time = started.elapsed();
    println!(
        "frames {frames} payload_bytes {payload_bytes} loop {:.3} s",
        loop_time.as_secs_f64()
    );
    Ok(())
}
