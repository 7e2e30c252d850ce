//! JSON as deep as kube-apiserver accepts it.
//!
//! kube-apiserver decodes request bodies with Go's `encoding/json` scanner (through `sigs.k8s.io/json`), which refuses
//! nesting deeper than 10,000 levels; custom resources whose schema preserves unknown fields can carry objects that
//! deep to an admission webhook. serde_json stops at 128 levels, and a recursive reader or drop would exhaust a wasm
//! host's native stack long before 10,000 (wasmtime gives 512 KiB by default). This module reads, measures and
//! releases such values without recursion: [`parse`] builds a [`Value`] with an explicit stack, [`depth`] measures
//! one, and [`release`] takes one apart iteratively so that dropping it cannot recurse.
//!
//! Request objects are read into their tape in serde_json's one pass over the review, so they stop at serde_json's
//! 128 levels like the rest of it; a review refused for that reason takes this path (`api::read_object`): the whole
//! text is read here, the objects are set aside and laid out as tapes (`Doc::from_value`, iterative), and the rest is
//! read as usual, so a deep review is accepted, and refused with the words and positions serde_json gives. It also
//! releases a deep `serde_json::Value` made from a tape (`certificates.rs`).
//!
//! Scalars are read by serde_json itself (one string or number token at a time), so numbers, escapes, surrogates and
//! control characters are accepted and refused exactly as on the fast path; a double's value is the tape's, exact as
//! Go's `strconv.ParseFloat` reads it for kube-apiserver (serde_json's default reading may be one unit in the last
//! place off).

use super::cursor::Cursor;

use serde_json::{Map, Number, Value};

/// The deepest object Go's `encoding/json` scanner, and so kube-apiserver, accepts: 10,000 nested lists and maps.
pub const MAX_DEPTH: usize = 10_000;

/// The levels a review wraps an object in (`{"review":{"request":{"object":…`): a document may nest this much deeper
/// than its objects.
pub const ENVELOPE_DEPTH: usize = 3;

/// The deepest nesting serde_json reads (its recursion limit of 128 stops at the 128th container); deeper values take
/// this module's path.
pub const SERDE_DEPTH: usize = palisade_json::SERDE_JSON_DEPTH;

const TOO_DEEP: &str = "nesting deeper than 10000 levels, the most kube-apiserver accepts";

/// A number serde_json read, with a double's value as the tape reads it: exact (its integers are serde_json's).
fn exact(n: Number, token: &[u8]) -> Number {
    if !n.is_f64() {
        return n;
    }
    let tape = std::str::from_utf8(token)
        .ok()
        .and_then(|t| palisade_json::Doc::parse(t).ok());
    match tape.as_ref().map(|d| d.root().item()) {
        Some(palisade_json::Item::F64(f)) => Number::from_f64(f).unwrap_or(n),
        _ => n,
    }
}

/// A container being built.
enum Frame {
    Array(Vec<Value>),
    Object(Map<String, Value>, String),
}

/// Parse one JSON document of any depth up to [`MAX_DEPTH`] + [`ENVELOPE_DEPTH`]. Errors read as serde_json's
/// (`… at line L column C`). What a refused document had read so far is released without recursion too: a document
/// 3,000 lists deep refused at its end would otherwise be dropped level by level and exhaust a wasm host's stack.
pub fn parse(text: &str) -> Result<Value, String> {
    let mut stack: Vec<Frame> = Vec::new();
    let parsed = parse_into(text, &mut stack);
    for frame in stack {
        release(match frame {
            Frame::Array(items) => Value::Array(items),
            Frame::Object(map, _) => Value::Object(map),
        });
    }
    parsed
}

/// [`parse`], with the containers being built in `stack`, which a refusal leaves as it was.
fn parse_into(text: &str, stack: &mut Vec<Frame>) -> Result<Value, String> {
    let mut r = Cursor::new(text.as_bytes());
    'value: loop {
        // read one value: a scalar, or open a container and go on with its first element
        let mut value = match r.peek() {
            None => return Err(r.error("EOF while parsing a value")),
            Some(b'[') => {
                r.at += 1;
                if stack.len() >= MAX_DEPTH + ENVELOPE_DEPTH {
                    return Err(r.error(TOO_DEEP));
                }
                if r.eat(b']') {
                    Value::Array(Vec::new())
                } else {
                    stack.push(Frame::Array(Vec::new()));
                    continue 'value;
                }
            }
            Some(b'{') => {
                r.at += 1;
                if stack.len() >= MAX_DEPTH + ENVELOPE_DEPTH {
                    return Err(r.error(TOO_DEEP));
                }
                if r.eat(b'}') {
                    Value::Object(Map::new())
                } else {
                    let key = r.key()?;
                    stack.push(Frame::Object(Map::new(), key));
                    continue 'value;
                }
            }
            Some(_) => r.scalar()?,
        };
        // close every container the value completes
        loop {
            let Some(frame) = stack.last_mut() else {
                return match r.peek() {
                    None => Ok(value),
                    Some(_) => {
                        release(value);
                        Err(r.error("trailing characters"))
                    }
                };
            };
            match frame {
                Frame::Array(items) => {
                    items.push(value);
                    if r.eat(b',') {
                        continue 'value;
                    }
                    if !r.eat(b']') {
                        let at_end = r.peek().is_none();
                        return Err(r.error(if at_end {
                            "EOF while parsing a list"
                        } else {
                            "expected `,` or `]`"
                        }));
                    }
                }
                Frame::Object(map, key) => {
                    // a repeated key keeps the last value, as serde_json's map does
                    map.insert(std::mem::take(key), value);
                    if r.eat(b',') {
                        *key = r.key()?;
                        continue 'value;
                    }
                    if !r.eat(b'}') {
                        let at_end = r.peek().is_none();
                        return Err(r.error(if at_end {
                            "EOF while parsing an object"
                        } else {
                            "expected `,` or `}`"
                        }));
                    }
                }
            }
            value = match stack.pop() {
                Some(Frame::Array(items)) => Value::Array(items),
                Some(Frame::Object(map, _)) => Value::Object(map),
                None => return Err(r.error("unbalanced nesting")),
            };
        }
    }
}

/// How deeply `value` nests: 0 for a scalar, 1 for a flat list or map (without recursion).
pub use palisade_cel::json_depth as depth;

/// Drop a value of any depth without recursion (serde_json's own drop recurses once per level).
pub fn release(value: Value) {
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.into_iter().map(|(_, v)| v)),
            _ => {}
        }
    }
}

impl Cursor<'_> {
    /// An object key and its colon.
    fn key(&mut self) -> Result<String, String> {
        match self.peek() {
            Some(b'"') => {}
            None => return Err(self.error("EOF while parsing an object")),
            Some(_) => return Err(self.error("key must be a string")),
        }
        let key = match self.scalar()? {
            Value::String(s) => s,
            _ => return Err(self.error("key must be a string")),
        };
        if !self.eat(b':') {
            let at_end = self.peek().is_none();
            return Err(self.error(if at_end {
                "EOF while parsing an object"
            } else {
                "expected `:`"
            }));
        }
        Ok(key)
    }

    /// A string, number or literal, read by serde_json from its token.
    fn scalar(&mut self) -> Result<Value, String> {
        let start = self.at;
        let end = match self.bytes.get(start) {
            Some(b'"') => {
                let mut i = start + 1;
                loop {
                    match self.bytes.get(i) {
                        None => return Err(self.error_at(i, "EOF while parsing a string")),
                        Some(b'\\') => i += 2,
                        Some(b'"') => break i + 1,
                        Some(_) => i += 1,
                    }
                }
            }
            _ => {
                let mut i = start;
                while let Some(b) = self.bytes.get(i) {
                    if matches!(
                        b,
                        b',' | b'}'
                            | b']'
                            | b':'
                            | b' '
                            | b'\t'
                            | b'\n'
                            | b'\r'
                            | b'['
                            | b'{'
                            | b'"'
                    ) {
                        break;
                    }
                    i += 1;
                }
                i
            }
        };
        let token = self.bytes.get(start..end).unwrap_or_default();
        if token.is_empty() {
            return Err(self.error("expected value"));
        }
        let value = match token {
            b"null" => Ok(Value::Null),
            b"true" => Ok(Value::Bool(true)),
            b"false" => Ok(Value::Bool(false)),
            [b'n' | b't' | b'f', ..] => return Err(self.error("expected ident")),
            [b'"', ..] => serde_json::from_slice::<String>(token).map(Value::String),
            [b'-' | b'0'..=b'9', ..] => {
                serde_json::from_slice::<Number>(token).map(|n| Value::Number(exact(n, token)))
            }
            _ => return Err(self.error("expected value")),
        };
        match value {
            Ok(v) => {
                self.at = end;
                Ok(v)
            }
            // serde_json's reason, positioned in the whole document
            Err(e) => Err(self.error_at(start + e.column().saturating_sub(1), &reason(&e))),
        }
    }

    fn error(&self, reason: &str) -> String {
        self.error_at(self.at, reason)
    }

    /// `reason at line L column C`, as serde_json words positions (1-based; the column counts bytes).
    fn error_at(&self, at: usize, reason: &str) -> String {
        let before = self.bytes.get(..at).unwrap_or(self.bytes);
        let line = 1 + before.iter().filter(|b| **b == b'\n').count();
        let column = at
            - before
                .iter()
                .rposition(|b| *b == b'\n')
                .map_or(0, |i| i + 1)
            + 1;
        format!("{reason} at line {line} column {column}")
    }
}

/// serde_json's error without its position.
fn reason(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match text.rfind(" at line ") {
        Some(i) => text.get(..i).unwrap_or(&text).to_owned(),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(levels: usize, leaf: &str) -> String {
        let mut s = String::new();
        for _ in 0..levels {
            s.push_str("{\"a\":[");
        }
        s.push_str(leaf);
        for _ in 0..levels {
            s.push_str("]}");
        }
        s
    }

    #[test]
    fn agrees_with_serde_json_on_shallow_documents() {
        for text in [
            r#"{"a":[1,2.5,-3,"x\u00e9\n",true,false,null,{},[]],"b":{"c":{"d":18446744073709551615}}}"#,
            r#"  [ 1 , { "k" : "v" } , [ [ ] ] ]  "#,
            r#"{"dup":1,"dup":2}"#,
            "\"just a string\"",
            "-0",
            "1e5",
            "123456789012345678901234567890",
            "[]",
        ] {
            let ours = parse(text).unwrap();
            let theirs: Value = serde_json::from_str(text).unwrap();
            assert_eq!(ours, theirs, "{text}");
        }
    }

    /// A double is the tape's exact reading (Go's for kube-apiserver), where serde_json's default reading is one unit
    /// in the last place off (the `review_reader` fuzz target's finding: `fuzz/corpus/review_reader`).
    #[test]
    fn reads_doubles_exactly() {
        for text in [
            "1.38e-23",
            "-5.43e-21",
            "3333333333141080401844100104141740.00",
        ] {
            let ours = parse(&format!("[{text}]")).unwrap();
            let want = text.parse::<f64>().unwrap();
            assert_eq!(
                ours[0].as_f64().map(f64::to_bits),
                Some(want.to_bits()),
                "{text}"
            );
        }
        // integers stay serde_json's
        assert_eq!(
            parse("[18446744073709551615, -1]").unwrap(),
            serde_json::json!([u64::MAX, -1])
        );
    }

    #[test]
    fn refuses_what_serde_json_refuses() {
        for (text, reason) in [
            ("", "EOF while parsing a value at line 1"),
            ("{", "EOF while parsing an object"),
            ("[1,", "EOF while parsing a value"),
            ("[1 2]", "expected `,` or `]`"),
            (r#"{"a" 1}"#, "expected `:`"),
            ("{1:2}", "key must be a string"),
            ("[1e400]", "number out of range"),
            ("[01]", "invalid number"),
            ("[tru]", "expected ident"),
            ("[nul]", "expected ident"),
            ("[\"\\ud800\"]", "escape"),
            ("[\"a\u{1}\"]", "control character"),
            ("[1] x", "trailing characters"),
            ("[\"abc", "EOF while parsing a string"),
        ] {
            let e = parse(text).unwrap_err();
            assert!(e.contains(reason), "{text:?}: {e}");
            assert!(serde_json::from_str::<Value>(text).is_err(), "{text:?}");
        }
    }

    #[test]
    fn reads_measures_and_releases_ten_thousand_levels() {
        // 5,000 `{"a":[` pairs: 10,000 containers, as deep as Go's decoder goes
        let text = nested(MAX_DEPTH / 2, "\"leaf\"");
        assert!(TOO_DEEP.contains(&MAX_DEPTH.to_string()));
        assert!(serde_json::from_str::<Value>(&text).is_err());
        let value = parse(&text).unwrap();
        assert_eq!(depth(&value), MAX_DEPTH);
        let mut at = &value;
        for _ in 0..MAX_DEPTH / 2 {
            at = &at["a"][0];
        }
        assert_eq!(at, "leaf");
        release(value);
        let too_deep = format!("{}{text}{}", "[".repeat(4), "]".repeat(4));
        let e = parse(&too_deep).unwrap_err();
        assert!(e.contains("nesting deeper than 10000 levels"), "{e}");
    }

    #[test]
    fn serde_depth_is_the_deepest_serde_json_reads() {
        let nested = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert!(serde_json::from_str::<Value>(&nested(SERDE_DEPTH)).is_ok());
        assert!(serde_json::from_str::<Value>(&nested(SERDE_DEPTH + 1)).is_err());
    }

    #[test]
    fn positions_count_lines_and_bytes() {
        let e = parse("{\n  \"a\": [1,\n    1e999]}").unwrap_err();
        assert!(
            e.ends_with("at line 3 column 5") || e.contains("line 3"),
            "{e}"
        );
    }
}
