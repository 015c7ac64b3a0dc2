//! Reclaim policies: when a buffer that grew for large messages shrinks back.

/// Decides, message by message, when a buffer that grew for large messages should shrink back
/// to a baseline.
///
/// The policy sees only payload lengths; it keeps whatever state it needs. A buffered reader
/// takes one with `with_reclaim` ([`StreamReader`](crate::StreamReader),
/// [`ReadBuffer`](crate::ReadBuffer), flatstream-tokio's reader and codec) or from
/// [`FrameConfig::with_reclaim`](crate::FrameConfig::with_reclaim): it asks the policy after each
/// message read and shrinks its buffer to the baseline just before the next read, when no
/// payload can be borrowed any more. A writer takes one through flatstream-adapters'
/// `Reclaiming`: it asks after each message written with `write` and, when the policy says so,
/// replaces the internal builder with one of [`baseline`](Self::baseline) bytes.
pub trait ReclaimPolicy {
    /// The capacity to shrink back to, in bytes.
    fn baseline(&self) -> usize;

    /// Records a message of `len` bytes; returns whether to shrink now.
    fn after_message(&mut self, len: usize) -> bool;
}

impl<P: ReclaimPolicy + ?Sized> ReclaimPolicy for &mut P {
    #[inline]
    fn baseline(&self) -> usize {
        (**self).baseline()
    }
    #[inline]
    fn after_message(&mut self, len: usize) -> bool {
        (**self).after_message(len)
    }
}

/// Never shrinks: buffers keep their largest size. The default; it compiles to nothing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct NoReclaim;

impl ReclaimPolicy for NoReclaim {
    #[inline(always)]
    fn baseline(&self) -> usize {
        usize::MAX
    }
    #[inline(always)]
    fn after_message(&mut self, _len: usize) -> bool {
        false
    }
}

/// Shrinks back to `baseline` once `messages` messages in a row have fit in it, after one that
/// did not: the burst is over.
///
/// Messages of at most `baseline` bytes never trigger anything on their own, so in steady state
/// (all messages small) nothing is ever reallocated.
///
/// ```
/// use flatstream::read::{ReclaimPolicy, ShrinkAfter};
///
/// let mut policy = ShrinkAfter::new(1024, 3);
/// assert!(!policy.after_message(100)); // small, nothing grew
/// assert!(!policy.after_message(1 << 20)); // a large one: the buffer grew
/// assert!(!policy.after_message(100));
/// assert!(!policy.after_message(100));
/// assert!(policy.after_message(100)); // three small ones in a row: shrink
/// assert!(!policy.after_message(100));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ShrinkAfter {
    baseline: usize,
    messages: u32,
    grown: bool,
    streak: u32,
}

impl ShrinkAfter {
    /// Shrinks to `baseline` bytes after `messages` consecutive messages of at most `baseline`
    /// bytes that follow a larger one (`messages` of 0 counts as 1).
    pub const fn new(baseline: usize, messages: u32) -> Self {
        ShrinkAfter {
            baseline,
            messages,
            grown: false,
            streak: 0,
        }
    }

    /// Records a message of `len` bytes; returns whether to shrink now.
    #[inline]
    fn shrink_now(&mut self, len: usize) -> bool {
        if len > self.baseline {
            self.grown = true;
            self.streak = 0;
            return false;
        }
        if !self.grown {
            return false;
        }
        self.streak += 1;
        if self.streak >= self.messages {
            self.grown = false;
            self.streak = 0;
            return true;
        }
        false
    }
}

/// Shrinks back to `baseline` right after any message larger than `threshold` bytes: buffers
/// may grow up to about `threshold` and stay there, but memory taken by an outsized message is
/// returned at once. Each such message costs one reallocation.
///
/// ```
/// use flatstream::read::{ReclaimPolicy, ShrinkAbove};
///
/// let mut policy = ShrinkAbove::new(4096, 1 << 20);
/// assert!(!policy.after_message(64 * 1024));
/// assert!(policy.after_message(8 << 20));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ShrinkAbove {
    baseline: usize,
    threshold: usize,
}

impl ShrinkAbove {
    /// Shrinks to `baseline` bytes after each message over `threshold` bytes.
    pub const fn new(baseline: usize, threshold: usize) -> Self {
        ShrinkAbove {
            baseline,
            threshold,
        }
    }

    /// Whether the message of `len` bytes was over the threshold.
    #[inline]
    fn shrink_now(&mut self, len: usize) -> bool {
        len > self.threshold
    }
}

/// Implements [`ReclaimPolicy`] for policies that shrink back to their `baseline` field and
/// decide with their inherent `shrink_now`.
macro_rules! shrink_to_baseline {
    ($($policy:ident),*) => {$(
        impl ReclaimPolicy for $policy {
            #[inline]
            fn baseline(&self) -> usize {
                self.baseline
            }

            #[inline]
            fn after_message(&mut self, len: usize) -> bool {
                self.shrink_now(len)
            }
        }
    )*};
}

shrink_to_baseline!(ShrinkAfter, ShrinkAbove);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shrink_after_counts_small_messages_in_a_row() {
        let mut p = ShrinkAfter::new(10, 2);
        assert!(!p.after_message(11));
        assert!(!p.after_message(5));
        assert!(!p.after_message(11), "a large one restarts the count");
        assert!(!p.after_message(5));
        assert!(p.after_message(10));
        assert!(
            !p.after_message(10),
            "nothing to shrink until the next large one"
        );
    }

    #[test]
    fn shrink_above_fires_on_each_outsized_message() {
        let mut p = ShrinkAbove::new(10, 100);
        assert!(!p.after_message(100));
        assert!(p.after_message(101));
        assert!(p.after_message(101));
        assert_eq!(p.baseline(), 10);
    }

    #[test]
    fn no_reclaim_never_fires() {
        let mut p = NoReclaim;
        assert!(!(0..1000).any(|len| p.after_message(len << 10)));
    }
}
