//! Go's `strconv.Quote` (and so `%q`), which upstream error messages use.

use std::fmt::Write as _;

/// `strconv.Quote(s)`.
pub(crate) fn quote(s: &str) -> String {
    quote_bytes(s.as_bytes())
}

/// `strconv.Quote(string(b))` for bytes that may not be valid UTF-8.
pub(crate) fn quote_bytes(b: &[u8]) -> String {
    let mut out = String::with_capacity(b.len() + 2);
    out.push('"');
    let mut rest = b;
    while !rest.is_empty() {
        match std::str::from_utf8(rest) {
            Ok(valid) => {
                push_str(&mut out, valid);
                rest = &[];
            }
            Err(e) => {
                let (valid, after) = rest.split_at(e.valid_up_to());
                push_str(&mut out, std::str::from_utf8(valid).unwrap_or(""));
                let bad = e.error_len().unwrap_or(after.len()).max(1);
                let (bad_bytes, tail) = after.split_at(bad.min(after.len()));
                for byte in bad_bytes {
                    let _ = write!(out, "\\x{byte:02x}");
                }
                rest = tail;
            }
        }
    }
    out.push('"');
    out
}

fn push_str(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            c if is_print(c) => out.push(c),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if (c as u32) < 0x10000 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => {
                let _ = write!(out, "\\U{:08x}", c as u32);
            }
        }
    }
}

/// An approximation of Go's `unicode.IsPrint`: graphic characters and the ASCII space.
fn is_print(c: char) -> bool {
    if c == ' ' {
        return true;
    }
    if c.is_control() || c.is_whitespace() {
        return false;
    }
    let u = c as u32;
    let format_or_private = matches!(u,
        0xAD | 0x600..=0x605 | 0x61C | 0x6DD | 0x70F | 0x180E | 0x200B..=0x200F
        | 0x2028..=0x202E | 0x2060..=0x206F | 0xFEFF | 0xFFF9..=0xFFFB
        | 0xE000..=0xF8FF | 0xF0000..=0x10FFFF);
    let noncharacter = (u & 0xFFFE) == 0xFFFE || (0xFDD0..=0xFDEF).contains(&u);
    !format_or_private && !noncharacter
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_like_go() {
        assert_eq!(quote("abc"), "\"abc\"");
        assert_eq!(quote("a\"b\\c"), "\"a\\\"b\\\\c\"");
        assert_eq!(quote("\n\t\u{0}"), "\"\\n\\t\\x00\"");
        assert_eq!(quote("é"), "\"é\"");
        assert_eq!(quote("\u{a0}"), "\"\\u00a0\"");
        assert_eq!(quote_bytes(b"%\xf0\x9f"), "\"%\\xf0\\x9f\"");
    }
}
