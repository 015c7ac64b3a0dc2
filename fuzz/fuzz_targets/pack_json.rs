//! `flatstream pack`'s JSON parser (crates/flatstream-cli/src/commands/pack/value.rs, compiled here as
//! it is in the command) over arbitrary lines, against serde_json: the two accept the same
//! lines (up to serde_json's nesting limit of 128) and read them as the same value (numbers as
//! written, a repeated key's last value); nesting past the parser's own limit is refused, not
//! recursed into; an error's column lies within the line; nothing panics.
#![no_main]

#[allow(dead_code)]
#[path = "../../crates/flatstream-cli/src/commands/pack/value.rs"]
mod value;

use libfuzzer_sys::fuzz_target;
use value::Value;

/// The value as serde_json builds it: an object's keys once each, the last value kept.
fn to_serde(v: &Value<'_>) -> serde_json::Value {
    match v {
        Value::Null => serde_json::Value::Null,
        Value::Bool(b) => serde_json::Value::Bool(*b),
        Value::Number(text) => serde_json::from_str(text).expect("a number in JSON's grammar"),
        Value::String(s) => serde_json::Value::String(s.to_string()),
        Value::Array(items) => serde_json::Value::Array(items.iter().map(to_serde).collect()),
        Value::Object(members) => {
            let mut map = serde_json::Map::new();
            for (k, v) in members {
                map.insert(k.to_string(), to_serde(v));
            }
            serde_json::Value::Object(map)
        }
    }
}

/// The deepest nesting of arrays and objects outside strings (an upper bound when the line
/// is not JSON).
fn nesting(text: &str) -> usize {
    let (mut depth, mut deepest, mut in_string, mut escaped) = (0usize, 0, false, false);
    for b in text.bytes() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

fuzz_target!(|input: &[u8]| {
    // `pack` refuses a line that is not UTF-8 before parsing it.
    let Ok(text) = std::str::from_utf8(input) else {
        return;
    };
    let ours = value::parse(text);
    if let Err(e) = &ours {
        assert!(e.column >= 1 && e.column <= text.chars().count() + 1, "{e}");
        assert!(!e.to_string().is_empty());
    }
    if let Ok(v) = &ours {
        let _ = v.describe();
    }
    let deep = nesting(text);
    if deep > 512 {
        assert!(ours.is_err(), "nesting of {deep} accepted");
    }
    // serde_json refuses nesting past 128 on its own: no verdict to compare there.
    if deep >= 127 {
        return;
    }
    let theirs = serde_json::from_str::<serde_json::Value>(text);
    match (&ours, &theirs) {
        (Ok(v), Ok(t)) => assert_eq!(&to_serde(v), t),
        (Err(_), Err(_)) => {}
        (o, t) => panic!("the parsers disagree: ours {o:?}, serde_json {t:?}"),
    }
});
