//! One line of JSON as a tree that keeps each number as it is written.
//!
//! A number is read at its field's own width (`"0.1"` as an `f32` is the `f32` nearest 0.1,
//! not the `f32` nearest the `f64` nearest 0.1), and a 64-bit integer exactly; so the tree
//! holds the number's text, checked against JSON's grammar, and the schema's walk converts
//! it. Objects keep their keys in order and duplicates (the walk refuses them by name).

use std::borrow::Cow;
use std::fmt::Write as _;

/// Arrays and objects nested deeper than this are refused: the parser recurses.
const MAX_NESTING: usize = 512;

/// A JSON value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value<'a> {
    Null,
    Bool(bool),
    /// A number, as written; its text follows JSON's grammar (so Rust's parsers accept it).
    Number(&'a str),
    String(Cow<'a, str>),
    Array(Vec<Value<'a>>),
    Object(Vec<(Cow<'a, str>, Value<'a>)>),
}

impl Value<'_> {
    /// The value in a few words, for an error: scalars and short strings as written, arrays
    /// and objects by kind.
    pub(crate) fn describe(&self) -> String {
        match self {
            Value::Null => "null".to_owned(),
            Value::Bool(b) => b.to_string(),
            Value::Number(text) => shorten(text),
            Value::String(s) => {
                let mut quoted = String::new();
                // Writing to a String cannot fail.
                let _ = write!(quoted, "{:?}", Shortened(s));
                quoted
            }
            Value::Array(_) => "an array".to_owned(),
            Value::Object(_) => "an object".to_owned(),
        }
    }
}

/// At most this many characters of a value are shown in an error.
const SHOWN: usize = 40;

fn shorten(text: &str) -> String {
    match text.char_indices().nth(SHOWN) {
        Some((at, _)) => format!("{}\u{2026}", &text[..at]),
        None => text.to_owned(),
    }
}

/// A string shown as JSON would write it, cut after [`SHOWN`] characters.
struct Shortened<'s>(&'s str);

impl std::fmt::Debug for Shortened<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0.char_indices().nth(SHOWN) {
            Some((at, _)) => {
                let json = serde_json::to_string(&self.0[..at]).map_err(|_| std::fmt::Error)?;
                write!(f, "{}\u{2026}\"", &json[..json.len() - 1])
            }
            None => f.write_str(&serde_json::to_string(self.0).map_err(|_| std::fmt::Error)?),
        }
    }
}

/// Why a line is not JSON, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SyntaxError {
    /// The column (1-based, in characters) where the problem was seen.
    pub(crate) column: usize,
    pub(crate) what: &'static str,
}

impl std::fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "not JSON: {} at column {}", self.what, self.column)
    }
}

/// Parses `text`: one JSON value, with whitespace around it and nothing else.
pub(crate) fn parse(text: &str) -> Result<Value<'_>, SyntaxError> {
    let mut p = Parser {
        text,
        bytes: text.as_bytes(),
        pos: 0,
    };
    p.skip_whitespace();
    let value = p.value(0)?;
    p.skip_whitespace();
    if p.pos < p.bytes.len() {
        return Err(p.error("more after the value"));
    }
    Ok(value)
}

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Parser<'a> {
    #[cold]
    fn error(&self, what: &'static str) -> SyntaxError {
        let column = self.text[..self.pos.min(self.text.len())].chars().count() + 1;
        SyntaxError { column, what }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn skip_whitespace(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn value(&mut self, depth: usize) -> Result<Value<'a>, SyntaxError> {
        match self.peek() {
            None => Err(self.error("the line ends where a value should be")),
            Some(b'{') => self.object(depth),
            Some(b'[') => self.array(depth),
            Some(b'"') => Ok(Value::String(self.string()?)),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(b't') => self.literal("true", Value::Bool(true)),
            Some(b'f') => self.literal("false", Value::Bool(false)),
            Some(b'n') => self.literal("null", Value::Null),
            Some(_) => Err(self.error("expected a value")),
        }
    }

    fn literal(&mut self, word: &'static str, value: Value<'a>) -> Result<Value<'a>, SyntaxError> {
        if self.bytes[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(value)
        } else {
            Err(self.error("expected a value"))
        }
    }

    fn nested(&self, depth: usize) -> Result<usize, SyntaxError> {
        if depth >= MAX_NESTING {
            Err(self.error("arrays and objects nested too deep"))
        } else {
            Ok(depth + 1)
        }
    }

    fn array(&mut self, depth: usize) -> Result<Value<'a>, SyntaxError> {
        self.items(depth, b']', |p, depth| p.value(depth))
            .map(Value::Array)
    }

    fn object(&mut self, depth: usize) -> Result<Value<'a>, SyntaxError> {
        self.items(depth, b'}', |p, depth| {
            if p.peek() != Some(b'"') {
                return Err(p.error("expected a key (a string)"));
            }
            let key = p.string()?;
            p.skip_whitespace();
            if p.peek() != Some(b':') {
                return Err(p.error("expected `:`"));
            }
            p.pos += 1;
            p.skip_whitespace();
            Ok((key, p.value(depth)?))
        })
        .map(Value::Object)
    }

    /// The items of an array (`close` is `]`) or the members of an object (`}`), from its
    /// opening bracket: each read by `item`, separated by commas.
    fn items<T>(
        &mut self,
        depth: usize,
        close: u8,
        mut item: impl FnMut(&mut Self, usize) -> Result<T, SyntaxError>,
    ) -> Result<Vec<T>, SyntaxError> {
        let depth = self.nested(depth)?;
        self.pos += 1; // [ or {
        let mut items = Vec::new();
        self.skip_whitespace();
        if self.peek() == Some(close) {
            self.pos += 1;
            return Ok(items);
        }
        loop {
            self.skip_whitespace();
            items.push(item(self, depth)?);
            self.skip_whitespace();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(c) if c == close => {
                    self.pos += 1;
                    return Ok(items);
                }
                _ if close == b']' => return Err(self.error("expected `,` or `]`")),
                _ => return Err(self.error("expected `,` or `}`")),
            }
        }
    }

    /// A number: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    fn number(&mut self) -> Result<Value<'a>, SyntaxError> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => self.digits(),
            _ => return Err(self.error("expected a digit")),
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(self.error("expected a digit after `.`"));
            }
            self.digits();
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(self.error("expected a digit in the exponent"));
            }
            self.digits();
        }
        Ok(Value::Number(&self.text[start..self.pos]))
    }

    fn digits(&mut self) {
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.pos += 1;
        }
    }

    /// A string (the opening quote at `pos`): borrowed from the line unless it has escapes.
    fn string(&mut self) -> Result<Cow<'a, str>, SyntaxError> {
        self.pos += 1; // "
        let start = self.pos;
        loop {
            match self.peek() {
                None => return Err(self.error("the line ends inside a string")),
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(Cow::Borrowed(&self.text[start..self.pos - 1]));
                }
                Some(b'\\') => break,
                Some(0..0x20) => return Err(self.error("a control character inside a string")),
                Some(_) => self.pos += 1,
            }
        }
        let mut owned = self.text[start..self.pos].to_owned();
        loop {
            match self.peek() {
                None => return Err(self.error("the line ends inside a string")),
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(Cow::Owned(owned));
                }
                Some(b'\\') => {
                    self.pos += 1;
                    let c = match self.peek() {
                        Some(b'"') => '"',
                        Some(b'\\') => '\\',
                        Some(b'/') => '/',
                        Some(b'b') => '\u{8}',
                        Some(b'f') => '\u{c}',
                        Some(b'n') => '\n',
                        Some(b'r') => '\r',
                        Some(b't') => '\t',
                        Some(b'u') => {
                            self.pos += 1;
                            owned.push(self.unicode_escape()?);
                            continue;
                        }
                        _ => return Err(self.error("an unknown escape")),
                    };
                    self.pos += 1;
                    owned.push(c);
                }
                Some(0..0x20) => return Err(self.error("a control character inside a string")),
                Some(_) => {
                    // Copy up to the next quote or escape in one piece (the text is UTF-8).
                    let from = self.pos;
                    while !matches!(self.peek(), None | Some(b'"' | b'\\' | 0..0x20)) {
                        self.pos += 1;
                    }
                    owned.push_str(&self.text[from..self.pos]);
                }
            }
        }
    }

    /// The character of a `\uXXXX` escape (its `u` just read), with its low surrogate if it
    /// is a high one.
    fn unicode_escape(&mut self) -> Result<char, SyntaxError> {
        let high = self.hex4()?;
        let code = match high {
            0xd800..=0xdbff => {
                if !self.bytes[self.pos..].starts_with(b"\\u") {
                    return Err(self.error("a lone surrogate in a \\u escape"));
                }
                self.pos += 2;
                let low = self.hex4()?;
                if !(0xdc00..=0xdfff).contains(&low) {
                    return Err(self.error("a lone surrogate in a \\u escape"));
                }
                0x10000 + ((high - 0xd800) << 10) + (low - 0xdc00)
            }
            0xdc00..=0xdfff => return Err(self.error("a lone surrogate in a \\u escape")),
            code => code,
        };
        char::from_u32(code).ok_or_else(|| self.error("an invalid \\u escape"))
    }

    fn hex4(&mut self) -> Result<u32, SyntaxError> {
        let digits = self
            .bytes
            .get(self.pos..self.pos + 4)
            .and_then(|d| std::str::from_utf8(d).ok())
            .filter(|d| d.bytes().all(|b| b.is_ascii_hexdigit()))
            .ok_or_else(|| self.error("expected 4 hex digits after \\u"))?;
        let code = u32::from_str_radix(digits, 16).map_err(|_| self.error("a bad \\u escape"))?;
        self.pos += 4;
        Ok(code)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(text: &str) -> Value<'_> {
        Value::String(Cow::Borrowed(text))
    }

    #[test]
    fn values_parse_with_numbers_as_written() {
        assert_eq!(
            parse(r#" {"a": [1, -0.5e+3, true, null], "b": {}, "c": "x"} "#),
            Ok(Value::Object(vec![
                (
                    "a".into(),
                    Value::Array(vec![
                        Value::Number("1"),
                        Value::Number("-0.5e+3"),
                        Value::Bool(true),
                        Value::Null
                    ])
                ),
                ("b".into(), Value::Object(vec![])),
                ("c".into(), s("x")),
            ]))
        );
        assert_eq!(
            parse("18446744073709551615"),
            Ok(Value::Number("18446744073709551615"))
        );
    }

    #[test]
    fn escapes_decode_as_serde_json_decodes_them() {
        for text in [
            r#""plain""#,
            r#""a\"b\\c\/d\b\f\n\r\t""#,
            r#""\u00e9\u4e2d\ud83e\udd16 and é""#,
            r#""\u0000""#,
        ] {
            let expected: String = serde_json::from_str(text).unwrap();
            assert_eq!(parse(text), Ok(Value::String(expected.into())), "{text}");
        }
    }

    #[test]
    fn what_json_refuses_is_refused_with_its_column() {
        for (text, column, what) in [
            ("", 1, "the line ends where a value should be"),
            ("{\"a\":1,}", 8, "expected a key (a string)"),
            ("[1 2]", 4, "expected `,` or `]`"),
            ("01", 2, "more after the value"),
            ("1.", 3, "expected a digit after `.`"),
            ("-", 2, "expected a digit"),
            ("1e", 3, "expected a digit in the exponent"),
            ("nul", 1, "expected a value"),
            ("NaN", 1, "expected a value"),
            ("\"é\\x\"", 4, "an unknown escape"),
            ("\"\\ud800\"", 8, "a lone surrogate in a \\u escape"),
            ("\"\\udc00\"", 8, "a lone surrogate in a \\u escape"),
            ("\"a\tb\"", 3, "a control character inside a string"),
            ("\"abc", 5, "the line ends inside a string"),
            ("{\"a\" 1}", 6, "expected `:`"),
        ] {
            assert_eq!(parse(text), Err(SyntaxError { column, what }), "{text:?}");
        }
        let deep = "[".repeat(MAX_NESTING + 1);
        assert_eq!(
            parse(&deep).unwrap_err().what,
            "arrays and objects nested too deep"
        );
    }

    #[test]
    fn values_are_described_briefly() {
        assert_eq!(s("abc").describe(), "\"abc\"");
        assert_eq!(s("a\"b").describe(), "\"a\\\"b\"");
        let long = "x".repeat(100);
        assert_eq!(
            Value::String(long.as_str().into()).describe(),
            format!("\"{}\u{2026}\"", "x".repeat(SHOWN))
        );
        assert_eq!(Value::Number("1.5").describe(), "1.5");
        assert_eq!(Value::Array(vec![]).describe(), "an array");
        assert_eq!(Value::Object(vec![]).describe(), "an object");
        assert_eq!(Value::Null.describe(), "null");
    }
}
