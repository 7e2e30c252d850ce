//! The field path of a serde_json data error ("invalid type", "unknown variant", "missing field", …), found from
//! the error's line and column by walking the JSON text once.
//!
//! Why not `serde_path_to_error`: it wraps the deserializer, so every type read through it is compiled a second
//! time (about 100 KB of `palisade.wasm`). The path is only needed when an input is already known to be wrong, and
//! the position serde_json reports says where, so this one non-generic walk gives the same path
//! (`request.userInfo.groups[0]`) as `serde_path_to_error` would for the types read here; a test checks the two
//! agree.
//!
//! Where serde_json reports a data error: right after the offending token (a scalar, the key of an unknown or
//! duplicate field, or the `{` / `[` of a value of the wrong kind), or right after the `}` of an object that misses
//! a field. The path at that offset is every enclosing member whose `:` has been read and every enclosing array
//! element. A key whose `:` has not been read yet is where serde reports an unknown field (the path ends with that
//! key) or a duplicate one (the path is the object's), as `serde_path_to_error` does.

/// One level of nesting, as the walk is inside it.
enum Frame {
    /// An object: its current member's key, once the member's `:` has been read.
    Object(Option<String>),
    /// An array: the index of its current element.
    Array(usize),
}

/// The byte offset of serde_json's (1-based line, 0-based byte column) in `text`.
pub(crate) fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let line_start = if line <= 1 {
        0
    } else {
        text.match_indices('\n')
            .nth(line - 2)
            .map_or(text.len(), |(at, _)| at + 1)
    };
    line_start.saturating_add(column).min(text.len())
}

/// The path (`a.b[2].c`) of the value being read at byte `offset` of the JSON `text`; `.` at the top level.
/// `with_key`: a key just read (whose `:` is not read yet) ends the path: the error is about that key.
pub(crate) fn path_at(text: &str, offset: usize, with_key: bool) -> String {
    let bytes = text.as_bytes();
    let end = offset.min(bytes.len());
    let mut stack: Vec<Frame> = Vec::new();
    // the key just read in the innermost object, waiting for its `:`
    let mut pending_key: Option<String> = None;
    let mut i = 0usize;
    while i < end {
        let Some(&b) = bytes.get(i) else { break };
        match b {
            b'{' => {
                stack.push(Frame::Object(None));
                i += 1;
            }
            b'[' => {
                stack.push(Frame::Array(0));
                i += 1;
            }
            b'}' | b']' => {
                stack.pop();
                i += 1;
            }
            b':' => {
                if let Some(Frame::Object(key)) = stack.last_mut() {
                    *key = pending_key.take();
                }
                i += 1;
            }
            b',' => {
                match stack.last_mut() {
                    Some(Frame::Object(key)) => *key = None,
                    Some(Frame::Array(index)) => *index += 1,
                    None => {}
                }
                i += 1;
            }
            b'"' => {
                let close = string_end(bytes, i);
                // a string in an object whose current member has no `:` yet is a key
                if let Some(Frame::Object(None)) = stack.last() {
                    pending_key = Some(unquote(text.get(i..close).unwrap_or_default()));
                }
                i = close;
            }
            _ => i += 1,
        }
    }
    let mut path = String::new();
    for frame in &stack {
        match frame {
            Frame::Object(Some(key)) => {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(key);
            }
            Frame::Array(index) => {
                path.push('[');
                path.push_str(&index.to_string());
                path.push(']');
            }
            Frame::Object(None) => {}
        }
    }
    if let (true, Some(key), Some(Frame::Object(None))) = (with_key, pending_key, stack.last()) {
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(&key);
    }
    if path.is_empty() {
        path.push('.');
    }
    path
}

/// The offset just past the string starting at `open` (a `"`), or the end of `bytes`.
fn string_end(bytes: &[u8], open: usize) -> usize {
    let mut i = open + 1;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// The text of a JSON string literal (quotes included), its escapes decoded.
fn unquote(literal: &str) -> String {
    if literal.contains('\\')
        && let Ok(s) = serde_json::from_str::<String>(literal)
    {
        return s;
    }
    literal
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .unwrap_or(literal)
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use std::collections::BTreeMap;

    #[derive(Deserialize, Debug)]
    #[serde(rename_all = "camelCase")]
    #[allow(dead_code)]
    struct Doc {
        name: String,
        #[serde(default)]
        count: Option<u32>,
        #[serde(default)]
        items: Vec<Item>,
        #[serde(default)]
        labels: BTreeMap<String, String>,
        #[serde(default)]
        inner: Option<Box<Doc>>,
        #[serde(default)]
        anything: Option<serde_json::Value>,
    }

    #[derive(Deserialize, Debug)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Item {
        op: Op,
        #[serde(default)]
        groups: Vec<String>,
    }

    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    enum Op {
        #[serde(rename = "CREATE")]
        Create,
        #[serde(rename = "DELETE")]
        Delete,
    }

    /// The path `serde_path_to_error` gives for a failing input, and ours.
    fn both(input: &str) -> (String, String) {
        let mut de = serde_json::Deserializer::from_str(input);
        let theirs = match serde_path_to_error::deserialize::<_, Doc>(&mut de) {
            Err(e) => e.path().to_string(),
            Ok(_) => panic!("{input} was read"),
        };
        let e = serde_json::from_str::<Doc>(input).unwrap_err();
        assert!(e.is_data(), "{input}: {e}");
        let with_key = e.to_string().starts_with("unknown field");
        let ours = path_at(input, offset_of(input, e.line(), e.column()), with_key);
        (theirs, ours)
    }

    #[test]
    fn agrees_with_serde_path_to_error() {
        let cases = [
            (r#"{"name": 5}"#, "name"),
            (r#"{"name": {"a": [1, 2]}}"#, "name"),
            (r#"{"name": ["x"]}"#, "name"),
            (r#"{"name": null}"#, "name"),
            (r#"{"count": 1}"#, "."),
            (r#"{"name": "a", "count": -1}"#, "count"),
            (r#"{"name": "a", "count": 99999999999}"#, "count"),
            (r#"{"name": "a", "count": "1"}"#, "count"),
            (
                r#"{"name": "a", "items": [{"op": "CREATE"}, {"op": "UPDATE"}]}"#,
                "items[1].op",
            ),
            (
                r#"{"name": "a", "items": [{"op": "CREATE", "groups": ["a", 2]}]}"#,
                "items[0].groups[1]",
            ),
            (
                r#"{"name": "a", "items": [{"op": "CREATE", "extra": 1}]}"#,
                "items[0].extra",
            ),
            (r#"{"name": "a", "items": [{"groups": []}]}"#, "items[0]"),
            (
                r#"{"name": "a", "items": [{"op": "CREATE", "op": "DELETE"}]}"#,
                "items[0]",
            ),
            (r#"{"name": "a", "items": {"op": "CREATE"}}"#, "items"),
            (r#"{"name": "a", "labels": {"x.y/z": 1}}"#, "labels.x.y/z"),
            (
                r#"{"name": "a", "labels": {"q\"\u00e9\n": true}}"#,
                "labels.q\"é\n",
            ),
            (
                r#"{"name": "a", "inner": {"name": "b", "inner": {"count": 2}}}"#,
                "inner.inner",
            ),
            (
                "{\n  \"anything\": {\"k\": [\"}\", \"]\", \"\\\"\"]},\n  \"name\": \"a\",\n  \"items\": [\n    {\"op\": \"X\"}\n  ]\n}",
                "items[0].op",
            ),
            ("[]", "."),
            (r#"{"name": "a", "name": "b"}"#, "."),
            (
                r#"{"name": "é", "items": [{"op": "CREATE"}, {"op": "CREATE", "groups": "x"}]}"#,
                "items[1].groups",
            ),
        ];
        for (input, expected) in cases {
            let (theirs, ours) = both(input);
            assert_eq!(theirs, expected, "serde_path_to_error on {input}");
            assert_eq!(ours, theirs, "{input}");
        }
    }

    #[test]
    fn offsets_count_bytes_from_the_line_start() {
        let text = "ab\ncdé\nf";
        assert_eq!(offset_of(text, 1, 1), 1);
        assert_eq!(offset_of(text, 2, 0), 3);
        assert_eq!(offset_of(text, 3, 1), 9);
        assert_eq!(offset_of(text, 9, 9), text.len());
    }
}
