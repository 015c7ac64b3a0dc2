//! How numbers are written in the report: times, rates, ratios and counts with three
//! significant digits and a unit.

use crate::snapshot::{Bench, Throughput};

/// A time in nanoseconds, with three significant digits and a unit.
pub(crate) fn time(ns: f64) -> String {
    let (v, unit) = if ns < 1e3 {
        (ns, "ns")
    } else if ns < 1e6 {
        (ns / 1e3, "µs")
    } else if ns < 1e9 {
        (ns / 1e6, "ms")
    } else {
        (ns / 1e9, "s")
    };
    format!("{} {unit}", sig3(v))
}

/// A time ratio with two decimals; tiny ones are not shown as zero.
pub(crate) fn ratio(r: f64) -> String {
    if r < 0.01 {
        "< 0.01".to_owned()
    } else {
        format!("{r:.2}")
    }
}

/// Three significant digits.
fn sig3(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

/// Throughput of `b`: messages per second (and time per message), or bytes per second.
pub(crate) fn rate(b: &Bench) -> String {
    let per_sec = b.per_second();
    match b.throughput {
        Some(Throughput::Elements(_)) => {
            format!("{} msg/s ({}/msg)", si(per_sec), time(b.per_unit()))
        }
        Some(Throughput::Bytes(_)) => bytes_per_sec(per_sec),
        None => format!("{}/s", si(per_sec)),
    }
}

/// Bytes per second in MiB/s or GiB/s.
fn bytes_per_sec(v: f64) -> String {
    const GIB: f64 = (1u64 << 30) as f64;
    const MIB: f64 = (1u64 << 20) as f64;
    if v >= GIB {
        format!("{} GiB/s", sig3(v / GIB))
    } else {
        format!("{} MiB/s", sig3(v / MIB))
    }
}

/// `12.3 M`, `456 k`.
pub(crate) fn si(v: f64) -> String {
    if v >= 1e9 {
        format!("{} G", sig3(v / 1e9))
    } else if v >= 1e6 {
        format!("{} M", sig3(v / 1e6))
    } else if v >= 1e3 {
        format!("{} k", sig3(v / 1e3))
    } else {
        sig3(v)
    }
}

/// A per-message count: `0` exactly when nothing was allocated.
pub(crate) fn small(v: f64) -> String {
    if v == 0.0 {
        "0".to_owned()
    } else if v < 0.001 {
        "< 0.001".to_owned()
    } else {
        sig3(v)
    }
}

/// `100000` as `100 000`; other text unchanged.
pub(crate) fn thousands(p: &str) -> String {
    if p.is_empty() || !p.bytes().all(|c| c.is_ascii_digit()) {
        return p.to_owned();
    }
    let mut out = String::new();
    for (i, c) in p.chars().enumerate() {
        if i > 0 && (p.len() - i) % 3 == 0 {
            out.push(' ');
        }
        out.push(c);
    }
    out
}

/// `4096` as `4 KiB`, `1048576` as `1 MiB`; other text unchanged.
pub(crate) fn bytes_label(p: &str) -> String {
    match p.parse::<u64>() {
        Ok(n) if n >= 1 << 20 && n % (1 << 20) == 0 => format!("{} MiB", n >> 20),
        Ok(n) if n >= 1 << 10 && n % (1 << 10) == 0 => format!("{} KiB", n >> 10),
        Ok(n) => format!("{n} B"),
        Err(_) => p.to_owned(),
    }
}

/// `1 000 000 frames, 60.0 MB`: a benchmark's parameter (frames) and the bytes its throughput
/// counts (a file's).
pub(crate) fn frames_and_bytes(b: &crate::snapshot::Bench) -> String {
    match b.throughput {
        Some(crate::snapshot::Throughput::Bytes(n)) => {
            format!("{} frames, {}B", thousands(&b.parameter), si(n as f64))
        }
        _ => format!("{} frames", thousands(&b.parameter)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_significant_digits_and_a_unit() {
        assert_eq!(time(95.46), "95.5 ns");
        assert_eq!(time(1_500.0), "1.50 µs");
        assert_eq!(time(2.0e9), "2.00 s");
        assert_eq!(si(12_345_678.0), "12.3 M");
        assert_eq!(ratio(0.004), "< 0.01");
        assert_eq!(small(0.0), "0");
        assert_eq!(small(0.0004), "< 0.001");
    }

    #[test]
    fn parameters_as_labels() {
        assert_eq!(thousands("100000"), "100 000");
        assert_eq!(thousands("frames"), "frames");
        assert_eq!(bytes_label("256"), "256 B");
        assert_eq!(bytes_label("65536"), "64 KiB");
        assert_eq!(bytes_label("1048576"), "1 MiB");
    }
}
