//! XXH3-64, through xxhash-rust.

/// XXH3-64: the 64-bit variant of XXH3 (seed 0), stored in all 8 bytes of the checksum field.
///
/// **This is XXH3, not the older XXH64**, which is a different function with different values.
/// The type keeps the name FlatStream 0.2.x gave it, and writes the same bytes it did.
///
/// The widest of the algorithms here, and the fastest on small payloads, so the least cost per
/// frame for messages of up to a few hundred bytes: choose it unless something outside your
/// program must read the stream with a CRC. From a few hundred bytes up, `Crc32` and `Crc32c`
/// are faster where the CPU has carry-less multiplication (and `Crc32c` the CRC-32C
/// instruction), about twice as fast on 1 MiB payloads: see the `checksum/raw` table of the
/// repository's `docs/benchmarks.md`. It uses the SIMD
/// instructions the compilation target guarantees (SSE2 on x86-64; AVX2 with
/// `-C target-cpu=native` on a machine that has it); it does no run-time CPU detection.
///
/// ```
/// use flatstream::checksum::{Checksum, XxHash64};
///
/// assert_eq!(XxHash64::new().calculate(b"123456789"), 0x72DC_B18B_67A1_7DFF);
/// assert_eq!(XxHash64::new().size(), 8);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct XxHash64;

// `calculate` is always inlined, as a hand-written loop would have it: left to `#[inline]`, it
// stayed a call in the readers' loops, which cost 0.3 to 0.4 ns per 28- to 40-byte payload
// (`core/string16/*/read_xxh3`).
algorithm!(XxHash64, 8, #[inline(always)], |payload| xxhash_rust::xxh3::xxh3_64(payload));
