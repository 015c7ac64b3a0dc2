//! Helpers shared by the integration tests: the golden files and the enabled algorithms.

#![allow(dead_code, unreachable_pub, clippy::cast_possible_truncation)]

use flatstream_checksum::{AnyChecksum, ChecksumKind};
use std::path::PathBuf;

/// The directory written by `tests/golden/gen.py`.
pub fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

/// One golden stream: its bytes, and each frame's checksum field and payload as the file
/// lays them out.
#[derive(Debug)]
pub struct Golden {
    pub name: String,
    pub stream: Vec<u8>,
    pub fields: Vec<Vec<u8>>,
    pub payloads: Vec<Vec<u8>>,
}

pub fn hex(s: &str) -> Vec<u8> {
    assert!(s.len() % 2 == 0, "odd hex length: {s}");
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex digit"))
        .collect()
}

/// Reads `<algorithm>-<case>.hex`: one frame per line, `length | checksum | payload`.
pub fn load(algorithm: &str, case: &str) -> Golden {
    let name = format!("{algorithm}-{case}.hex");
    let text =
        std::fs::read_to_string(golden_dir().join(&name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut golden = Golden {
        name,
        stream: Vec::new(),
        fields: Vec::new(),
        payloads: Vec::new(),
    };
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let parts: Vec<&str> = line.split('|').map(str::trim).collect();
        let [len, field, payload] = parts[..] else {
            panic!("{}: bad line {line:?}", golden.name)
        };
        let (len, field, payload) = (hex(len), hex(field), hex(payload));
        assert_eq!(
            len,
            u32::try_from(payload.len()).unwrap().to_le_bytes(),
            "{}",
            golden.name
        );
        golden.stream.extend_from_slice(&len);
        golden.stream.extend_from_slice(&field);
        golden.stream.extend_from_slice(&payload);
        golden.fields.push(field);
        golden.payloads.push(payload);
    }
    assert!(!golden.payloads.is_empty(), "{}: no frames", golden.name);
    golden
}

pub const CASES: [&str; 3] = ["empty", "small", "multi"];

/// Every algorithm this build includes, no checksum first.
pub fn enabled() -> Vec<AnyChecksum> {
    ChecksumKind::ALL
        .into_iter()
        .filter_map(|kind| AnyChecksum::new(kind).ok())
        .collect()
}

/// The 1 MiB known-answer input: byte `i` is `(7 i + i / 2048) mod 256` (as in gen.py).
pub fn mib_input() -> Vec<u8> {
    (0..1usize << 20)
        .map(|i| ((i * 7 + (i >> 11)) & 0xFF) as u8)
        .collect()
}
