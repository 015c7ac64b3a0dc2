//! Known answers: the catalogue check values for `b"123456789"`, the empty input, and a 1 MiB
//! input whose values `tests/golden/gen.py` computed in Python (`kat.txt`).

mod common;

use flatstream_checksum::{AnyChecksum, Checksum, ChecksumKind};
use std::collections::HashMap;

/// `kat.txt`: (algorithm, input) -> value.
fn python_values() -> HashMap<(String, String), u64> {
    let text = std::fs::read_to_string(common::golden_dir().join("kat.txt")).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|line| {
            let [algorithm, input, value] = line.split(' ').collect::<Vec<_>>()[..] else {
                panic!("bad line {line:?}")
            };
            let value = u64::from_str_radix(value.trim_start_matches("0x"), 16).unwrap();
            ((algorithm.to_owned(), input.to_owned()), value)
        })
        .collect()
}

/// Checks a static type and the `AnyChecksum` of the same name against the answers.
#[allow(dead_code)] // when no algorithm is enabled
fn check<C: Checksum>(checksum: C, name: &str, check_value: u64, empty_value: u64) {
    let python = python_values();
    let any: AnyChecksum = name.parse().unwrap();
    let mib = common::mib_input();
    assert_eq!(checksum.size(), any.size());
    assert_eq!(C::SIZE, checksum.size(), "{name} SIZE");
    let values = |c: &dyn Fn(&[u8]) -> u64| [c(b"123456789"), c(b""), c(&mib)];
    for got in [
        values(&|p| checksum.calculate(p)),
        values(&|p| any.calculate(p)),
    ] {
        assert_eq!(got[0], check_value, "{name} check");
        assert_eq!(got[1], empty_value, "{name} empty");
        assert_eq!(
            got[2],
            python[&(name.to_owned(), "mib".to_owned())],
            "{name} 1 MiB"
        );
    }
    // gen.py agrees with the catalogue, so the golden streams rest on the same values.
    assert_eq!(python[&(name.to_owned(), "check".to_owned())], check_value);
    assert_eq!(python[&(name.to_owned(), "empty".to_owned())], empty_value);
}

#[cfg(feature = "xxhash")]
#[test]
fn xxhash64_is_xxh3_64() {
    use flatstream_checksum::XxHash64;
    check(
        XxHash64::new(),
        "xxhash64",
        0x72DC_B18B_67A1_7DFF,
        0x2D06_8005_38D3_94C2,
    );
    // The older XXH64 is a different function: xxhash.xxh64_intdigest(b"123456789") in Python.
    assert_ne!(
        XxHash64::new().calculate(b"123456789"),
        0x8CB8_41DB_40E6_AE83
    );
    assert_eq!(XxHash64::new().size(), 8);
}

#[cfg(feature = "crc32")]
#[test]
fn crc32_is_crc_32_iso_hdlc() {
    check(flatstream_checksum::Crc32::new(), "crc32", 0xCBF4_3926, 0);
}

#[cfg(feature = "crc16")]
#[test]
fn crc16_is_crc_16_xmodem() {
    check(flatstream_checksum::Crc16::new(), "crc16", 0x31C3, 0);
}

#[cfg(feature = "crc32c")]
#[test]
fn crc32c_is_castagnoli() {
    check(flatstream_checksum::Crc32c::new(), "crc32c", 0xE306_9283, 0);
}

#[test]
fn kat_txt_has_every_input_of_every_algorithm() {
    let python = python_values();
    for kind in ChecksumKind::ALL.into_iter().filter(|k| k.size() > 0) {
        for input in ["empty", "check", "mib"] {
            let key = (kind.name().to_owned(), input.to_owned());
            assert!(python.contains_key(&key), "{key:?}");
        }
    }
    assert_eq!(python.len(), 4 * 3);
}

#[test]
fn values_fit_the_field_width() {
    let mib = common::mib_input();
    for checksum in common::enabled() {
        let width = checksum.size();
        assert_eq!(width, checksum.kind().size());
        if width < 8 {
            for data in [&b"123456789"[..], &mib, &[0xFF; 77]] {
                assert!(checksum.calculate(data) >> (8 * width) == 0, "{checksum}");
            }
        }
    }
    assert_eq!(
        AnyChecksum::new(ChecksumKind::None)
            .unwrap()
            .calculate(&mib),
        0
    );
}
