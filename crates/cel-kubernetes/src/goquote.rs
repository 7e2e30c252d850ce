//! Go's string renderings that upstream error messages contain: `strconv.Quote` (and so
//! `%q`) and the string form of `encoding/json`'s `Marshal`.
//!
//! ```
//! use palisade_cel_kubernetes::goquote::{json_string, quote};
//!
//! assert_eq!(quote("a\tb"), r#""a\tb""#);
//! assert_eq!(json_string("<a&b>"), r#""\u003ca\u0026b\u003e""#);
//! ```

use std::fmt::Write as _;

/// `strconv.Quote(s)`.
pub fn quote(s: &str) -> String {
    quote_bytes(s.as_bytes())
}

/// `strconv.Quote(string(b))` for bytes that may not be valid UTF-8.
pub fn quote_bytes(b: &[u8]) -> String {
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

/// A string as Go's `json.Marshal` writes it (HTML-safe escaping on, as by default): `"`, `\\`,
/// `\n`, `\r`, `\t`, `\b` and `\f` by name, other controls and `<`, `>`, `&`, U+2028, U+2029 as
/// `\u00XX` / `\u2028`.
pub fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
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

/// An approximation of Go's `unicode.IsPrint` without the full Unicode tables: graphic
/// characters and the ASCII space, so not controls, spaces other than U+0020, format
/// characters (Cf), private-use code points or noncharacters. (Unassigned code points, which Go
/// also escapes, are printed as they are.)
fn is_print(c: char) -> bool {
    if c == ' ' {
        return true;
    }
    if c.is_control() || c.is_whitespace() {
        return false;
    }
    let u = c as u32;
    let format_or_private = matches!(u,
        0xAD | 0x600..=0x605 | 0x61C | 0x6DD | 0x70F | 0x890..=0x891 | 0x8E2 | 0x180E
        | 0x200B..=0x200F | 0x2028..=0x202E | 0x2060..=0x206F | 0xFEFF | 0xFFF9..=0xFFFB
        | 0x110BD | 0x110CD | 0x13430..=0x1343F | 0x1BCA0..=0x1BCA3 | 0x1D173..=0x1D17A
        | 0xE0001 | 0xE0020..=0xE007F | 0xE000..=0xF8FF | 0xF0000..=0x10FFFF);
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

    // upstream: Go src/strconv/quote_test.go quotetests (Quote column)
    #[test]
    fn go_quotetests() {
        let table: [(&[u8], &str); 8] = [
            (b"\x07\x08\x0c\r\n\t\x0b", r#""\a\b\f\r\n\t\v""#),
            (b"\\", r#""\\""#),
            (b"abc\xffdef", r#""abc\xffdef""#),
            ("\u{263a}".as_bytes(), "\"\u{263a}\""),
            ("\u{10ffff}".as_bytes(), r#""\U0010ffff""#),
            (b"\x04", r#""\x04""#),
            (
                "!\u{a0}!\u{2000}!\u{3000}!".as_bytes(),
                r#""!\u00a0!\u2000!\u3000!""#,
            ),
            (b"\x7f", r#""\x7f""#),
        ];
        for (input, want) in table {
            assert_eq!(quote_bytes(input), want, "{input:?}");
        }
    }

    // Go's unicode.IsPrint is false for every format character (Cf), not only the common ones.
    #[test]
    fn format_characters_are_escaped() {
        for (c, want) in [
            ('\u{ad}', r#""\u00ad""#),
            ('\u{890}', r#""\u0890""#),
            ('\u{8e2}', r#""\u08e2""#),
            ('\u{feff}', r#""\ufeff""#),
            ('\u{110bd}', r#""\U000110bd""#),
            ('\u{13430}', r#""\U00013430""#),
            ('\u{1bca0}', r#""\U0001bca0""#),
            ('\u{1d173}', r#""\U0001d173""#),
            ('\u{e0001}', r#""\U000e0001""#),
            ('\u{e007f}', r#""\U000e007f""#),
            ('\u{e000}', r#""\ue000""#),
        ] {
            assert_eq!(quote(&c.to_string()), want, "{c:?}");
        }
        assert_eq!(quote("\u{1d172}"), "\"\u{1d172}\"");
    }

    // upstream: Go src/encoding/json/encode_test.go TestHTMLEscape, TestEncodeString
    // (encodeStringTests: controls, \b and \f short forms since Go 1.22)
    #[test]
    fn json_strings_like_go() {
        let table = [
            ("abc", r#""abc""#),
            (
                "<html>&</html>",
                r#""\u003chtml\u003e\u0026\u003c/html\u003e""#,
            ),
            ("\x00\x01\x1f", r#""\u0000\u0001\u001f""#),
            ("\x08\x0c\n\r\t", r#""\b\f\n\r\t""#),
            ("\"\\", r#""\"\\""#),
            ("\u{2028}\u{2029}", r#""\u2028\u2029""#),
            ("\x7f é", "\"\x7f é\""),
        ];
        for (input, want) in table {
            assert_eq!(json_string(input), want, "{input:?}");
        }
    }
}
