//! Writing a JSON value as block-style YAML that reads back as the same value, in the layout serde_yaml 0.9 wrote
//! (sequences in a mapping are not indented, one key per line, `|` blocks for multi-line strings).

use serde_json::Value;

/// The YAML text of a value (ends with a newline).
pub fn to_string(value: &Value) -> String {
    let mut out = String::new();
    match value {
        Value::Object(map) if !map.is_empty() => write_mapping(&mut out, value, 0),
        Value::Array(items) if !items.is_empty() => write_sequence(&mut out, value, 0),
        scalar => {
            write_scalar(&mut out, scalar, 0);
            out.push('\n');
        }
    }
    out
}

fn indent(out: &mut String, n: usize) {
    out.extend(std::iter::repeat_n(' ', n));
}

fn is_block(v: &Value) -> bool {
    match v {
        Value::Object(m) => !m.is_empty(),
        Value::Array(a) => !a.is_empty(),
        _ => false,
    }
}

/// A non-empty mapping; the first key is written where the cursor is (already indented), the others at `at`.
fn write_mapping(out: &mut String, value: &Value, at: usize) {
    let Value::Object(map) = value else { return };
    for (i, (k, v)) in map.iter().enumerate() {
        if i > 0 {
            indent(out, at);
        }
        write_string(out, k, at, true);
        out.push(':');
        match v {
            Value::Object(_) if is_block(v) => {
                out.push('\n');
                indent(out, at + 2);
                write_mapping(out, v, at + 2);
            }
            Value::Array(_) if is_block(v) => {
                out.push('\n');
                indent(out, at);
                write_sequence(out, v, at);
            }
            scalar => {
                out.push(' ');
                write_scalar(out, scalar, at + 2);
                out.push('\n');
            }
        }
    }
}

/// A non-empty sequence; the first `- ` is written where the cursor is, the others at `at`.
fn write_sequence(out: &mut String, value: &Value, at: usize) {
    let Value::Array(items) = value else { return };
    for (i, v) in items.iter().enumerate() {
        if i > 0 {
            indent(out, at);
        }
        out.push_str("- ");
        match v {
            Value::Object(_) if is_block(v) => write_mapping(out, v, at + 2),
            Value::Array(_) if is_block(v) => write_sequence(out, v, at + 2),
            scalar => {
                write_scalar(out, scalar, at + 2);
                out.push('\n');
            }
        }
    }
}

/// A scalar or an empty collection, on the current line; `at` is the indentation of a block string's content.
fn write_scalar(out: &mut String, value: &Value, at: usize) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            let text = n.to_string();
            out.push_str(&text);
            // a float that prints as an integer (1e20 prints as 1e20, 1.0 as 1.0) stays a float
            if n.is_f64() && !text.contains(['.', 'e', 'E']) {
                out.push_str(".0");
            }
        }
        Value::String(s) => write_string(out, s, at, false),
        Value::Array(_) => out.push_str("[]"),
        Value::Object(_) => out.push_str("{}"),
    }
}

fn write_string(out: &mut String, s: &str, at: usize, key: bool) {
    if plain_is_safe(s) {
        out.push_str(s);
    } else if !key && literal_is_safe(s) {
        let at = at.max(2);
        let body = s.strip_suffix('\n').unwrap_or(s);
        out.push_str(if s.ends_with('\n') { "|" } else { "|-" });
        for line in body.split('\n') {
            out.push('\n');
            if !line.is_empty() {
                indent(out, at);
                out.push_str(line);
            }
        }
    } else {
        // a JSON string is a YAML double-quoted scalar
        out.push_str(&Value::String(s.to_owned()).to_string());
    }
}

/// Whether `s` written plain reads back as this string.
fn plain_is_safe(s: &str) -> bool {
    let Some(first) = s.chars().next() else {
        return false;
    };
    let last = s.chars().last().unwrap_or(first);
    if !(first.is_alphanumeric() || matches!(first, '/' | '.' | '_' | '$' | '(' | '<' | '=' | '^'))
        || last == ':'
        || last.is_whitespace()
        || s.contains(": ")
        || s.contains(" #")
        || s.chars()
            .any(|c| c.is_control() || matches!(c, '\u{feff}' | '\u{85}' | '\u{2028}' | '\u{2029}'))
        || s.starts_with("...")
    {
        return false;
    }
    // it must not read back as null, a boolean or a number
    matches!(super::plain(s), Value::String(_))
}

/// Whether `s` can be a `|` block: several lines, none starting with a space first (the indentation would be
/// misread), no trailing blanks or control characters, at most one final newline.
fn literal_is_safe(s: &str) -> bool {
    let body = s.strip_suffix('\n').unwrap_or(s);
    body.contains('\n')
        && !body.starts_with([' ', '\t', '\n'])
        && !body.ends_with('\n')
        && body.split('\n').all(|l| l == l.trim_end())
        && !s.chars().any(|c| {
            c.is_control() && c != '\n'
                || matches!(c, '\u{feff}' | '\u{85}' | '\u{2028}' | '\u{2029}')
        })
}
