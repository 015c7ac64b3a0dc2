//! `[ubyte]` and `[byte]` vectors given as one string, in the encoding `cat --bytes` writes.

use super::value::Value;

/// Standard base64 (RFC 4648), padded or not.
pub(super) fn from_base64(text: &str) -> Result<Vec<u8>, String> {
    let digits = text.trim_end_matches('=');
    let bad = || format!("not base64: {}", Value::String(text.into()).describe());
    if text.len() - digits.len() > 2 || digits.len() % 4 == 1 {
        return Err(bad());
    }
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0);
    for c in digits.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return Err(bad()),
        };
        acc = acc << 6 | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Ok(out)
}

/// Hexadecimal, two digits per byte, either case.
pub(super) fn from_hex(text: &str) -> Result<Vec<u8>, String> {
    let bad = || format!("not hex: {}", Value::String(text.into()).describe());
    let digit = |c: u8| char::from(c).to_digit(16).ok_or_else(bad);
    if !text.len().is_multiple_of(2) {
        return Err(bad());
    }
    text.as_bytes()
        .chunks_exact(2)
        .map(|pair| Ok((digit(pair[0])? << 4 | digit(pair[1])?) as u8))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::base64;

    #[test]
    fn base64_reads_back_what_cat_writes() {
        for len in 0..40u8 {
            let bytes: Vec<u8> = (0..len).map(|i| i.wrapping_mul(37) ^ 0xa5).collect();
            let mut text = Vec::new();
            base64(&bytes, &mut text);
            let text = String::from_utf8(text).unwrap();
            assert_eq!(from_base64(&text), Ok(bytes.clone()), "{text}");
            assert_eq!(from_base64(text.trim_end_matches('=')), Ok(bytes));
        }
        for bad in ["A", "AB=C", "AB===", "A*==", "Zg==="] {
            assert!(from_base64(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn hex_reads_either_case() {
        assert_eq!(from_hex("00ffA0"), Ok(vec![0, 0xff, 0xa0]));
        assert_eq!(from_hex(""), Ok(vec![]));
        for bad in ["0", "0g", "+1", "é0"] {
            assert!(from_hex(bad).is_err(), "{bad}");
        }
    }
}
