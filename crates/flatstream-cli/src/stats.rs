//! Payload sizes in bounded memory: a histogram, exact up to 64 KiB and within 1/256 above.

/// Sizes below this are counted exactly.
const EXACT: usize = 1 << 16;
/// Sub-buckets per power of two above [`EXACT`].
const SUB_BITS: u32 = 8;

/// A histogram of payload sizes (`u32`, as the length prefix holds them).
#[derive(Debug, Default)]
pub(crate) struct Sizes {
    /// Counts of sizes `0..EXACT`, allocated at the first size (512 KiB).
    exact: Vec<u64>,
    /// Counts of larger sizes, by power of two and then 256 sub-buckets.
    log: Vec<u64>,
    count: u64,
    min: u64,
    max: u64,
}

impl Sizes {
    /// Counts one payload of `size` bytes.
    #[inline]
    pub(crate) fn add(&mut self, size: usize) {
        if self.count == 0 {
            self.min = size as u64;
        }
        self.count += 1;
        self.min = self.min.min(size as u64);
        self.max = self.max.max(size as u64);
        if size < EXACT {
            if self.exact.is_empty() {
                self.exact = vec![0; EXACT];
            }
            self.exact[size] += 1;
        } else {
            let at = log_bucket(size as u64);
            if self.log.len() <= at {
                self.log.resize(at + 1, 0);
            }
            self.log[at] += 1;
        }
    }

    /// Payloads counted.
    #[cfg(test)]
    pub(crate) fn count(&self) -> u64 {
        self.count
    }

    /// The smallest payload.
    pub(crate) fn min(&self) -> u64 {
        self.min
    }

    /// The largest payload.
    pub(crate) fn max(&self) -> u64 {
        self.max
    }

    /// The `q`-quantile (0 < q <= 1) by nearest rank: the smallest size with at least
    /// `ceil(q * count)` payloads at or below it. Exact up to 64 KiB, else the bucket's lower
    /// bound (within 1/256), clamped to the minimum and maximum.
    pub(crate) fn quantile(&self, q: f64) -> u64 {
        if self.count == 0 {
            return 0;
        }
        let rank = ((q * self.count as f64).ceil() as u64).clamp(1, self.count);
        let mut seen = 0;
        for (size, &n) in self.exact.iter().enumerate() {
            seen += n;
            if seen >= rank {
                return size as u64;
            }
        }
        for (at, &n) in self.log.iter().enumerate() {
            seen += n;
            if seen >= rank {
                return log_lower(at).clamp(self.min, self.max);
            }
        }
        self.max
    }
}

/// The bucket of a size at or above [`EXACT`]: its power of two above 2^16, then its next
/// [`SUB_BITS`] bits.
fn log_bucket(size: u64) -> usize {
    let exp = 63 - size.leading_zeros(); // >= 16
    let sub = (size >> (exp - SUB_BITS)) & ((1 << SUB_BITS) - 1);
    ((exp - 16) as usize) << SUB_BITS | sub as usize
}

/// The smallest size of a bucket.
fn log_lower(at: usize) -> u64 {
    let exp = (at >> SUB_BITS) as u32 + 16;
    let sub = (at & ((1 << SUB_BITS) - 1)) as u64;
    ((1 << SUB_BITS) | sub) << (exp - SUB_BITS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_sizes_give_exact_quantiles() {
        let mut s = Sizes::default();
        for size in 1..=100 {
            s.add(size);
        }
        assert_eq!((s.count(), s.min(), s.max()), (100, 1, 100));
        assert_eq!(s.quantile(0.5), 50);
        assert_eq!(s.quantile(0.99), 99);
        assert_eq!(s.quantile(1.0), 100);
        assert_eq!(Sizes::default().quantile(0.5), 0);
    }

    #[test]
    fn large_sizes_are_within_one_part_in_256() {
        for size in [EXACT as u64, 70_000, 1 << 20, 123_456_789, u32::MAX as u64] {
            let lower = log_lower(log_bucket(size));
            assert!(
                lower <= size && size - lower <= size / 256,
                "{size}: {lower}"
            );
        }
        let mut s = Sizes::default();
        s.add(10);
        s.add(1_000_000);
        s.add(1_000_000);
        let median = s.quantile(0.5);
        assert!(median <= 1_000_000 && 1_000_000 - median <= 1_000_000 / 256);
        assert_eq!(s.quantile(0.01), 10);
        assert_eq!(s.max(), 1_000_000);
    }
}
