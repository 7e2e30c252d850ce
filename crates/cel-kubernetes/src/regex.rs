//! Regex helpers: the CEL `regex` library (`k8s.io/apiserver/pkg/cel/library/regex.go`).
//!
//! `s.find(re)` is [`find`]; `s.findAll(re)` and `s.findAll(re, n)` are [`find_all`] (n < 0
//! for all). Patterns compile with [`compile`], which gives Go's RE2 meaning to the places
//! where Rust's `regex` differs: `\d`, `\w`, `\s` and `\b` are ASCII-only, `\Q…\E` quotes, a
//! `[` inside a class is a literal, and a counted repetition is at most 1000. The error
//! starts with upstream's `Illegal regex: `; the cause after it is the `regex` crate's text
//! (Go's `error parsing regexp: …` is not reproduced).
//!
//! This crate asks `regex` only for `std` and `unicode-perl`; `(?i)` and `\p{…}` need the
//! `unicode-case` / `unicode-gencat` features, which the product gets through `cel-core`
//! (it enables `regex`'s defaults). Built alone, such patterns fail to compile.

pub use regex::Regex;

/// An invalid pattern: `Illegal regex: <cause>`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("Illegal regex: {0}")]
pub struct RegexError(String);

/// The largest compiled program a pattern may produce (bytes).
const SIZE_LIMIT: usize = 1 << 20;

/// Compiles `pattern` with Go's RE2 semantics (see the module documentation).
pub fn compile(pattern: &str) -> Result<Regex, RegexError> {
    let translated = translate(pattern)?;
    regex::RegexBuilder::new(&translated)
        .size_limit(SIZE_LIMIT)
        .build()
        .map_err(|e| RegexError(e.to_string().replace('\n', " ")))
}

/// Rewrites an RE2 pattern into the `regex` crate's syntax with the same meaning.
fn translate(pattern: &str) -> Result<String, RegexError> {
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut chars = pattern.chars().peekable();
    let mut in_class = false;
    let mut class_start = false;
    while let Some(c) = chars.next() {
        if c == '\\' {
            let Some(e) = chars.next() else {
                out.push('\\');
                break;
            };
            match (in_class, e) {
                (false, 'd') => out.push_str("[0-9]"),
                (false, 'D') => out.push_str("[^0-9]"),
                (false, 'w') => out.push_str("[0-9A-Za-z_]"),
                (false, 'W') => out.push_str("[^0-9A-Za-z_]"),
                (false, 's') => out.push_str("[\\t\\n\\f\\r ]"),
                (false, 'S') => out.push_str("[^\\t\\n\\f\\r ]"),
                (false, 'b') => out.push_str("(?-u:\\b)"),
                (false, 'B') => out.push_str("(?-u:\\B)"),
                (false, 'Q') => {
                    let mut literal = String::new();
                    while let Some(q) = chars.next() {
                        if q == '\\' && chars.peek() == Some(&'E') {
                            chars.next();
                            break;
                        }
                        literal.push(q);
                    }
                    out.push_str(&regex::escape(&literal));
                }
                (true, 'd') => out.push_str("0-9"),
                (true, 'w') => out.push_str("0-9A-Za-z_"),
                (true, 's') => out.push_str("\\t\\n\\f\\r "),
                (_, e) => {
                    out.push('\\');
                    out.push(e);
                }
            }
            class_start = false;
            continue;
        }
        if in_class {
            match c {
                ']' if !class_start => {
                    in_class = false;
                    out.push(']');
                }
                '[' if chars.peek() == Some(&':') => {
                    // a POSIX class such as [:alpha:]
                    out.push('[');
                    for p in chars.by_ref() {
                        out.push(p);
                        if p == ']' {
                            break;
                        }
                    }
                }
                '[' | '&' | '~' => {
                    out.push('\\');
                    out.push(c);
                }
                '^' if class_start => {
                    out.push('^');
                    continue;
                }
                _ => out.push(c),
            }
            class_start = false;
            continue;
        }
        match c {
            '[' => {
                in_class = true;
                class_start = true;
                out.push('[');
            }
            '{' => {
                let mut count = String::new();
                while let Some(&d) = chars.peek() {
                    if d.is_ascii_digit() || d == ',' {
                        count.push(d);
                        chars.next();
                    } else {
                        break;
                    }
                }
                let mut bounds = count.splitn(2, ',');
                let min = bounds.next().unwrap_or("");
                let max = bounds.next();
                let is_repeat = chars.peek() == Some(&'}')
                    && !min.is_empty()
                    && min.bytes().all(|b| b.is_ascii_digit())
                    && max.is_none_or(|m| m.bytes().all(|b| b.is_ascii_digit()));
                if !is_repeat {
                    // RE2 reads a `{` that starts no repetition as a literal
                    out.push_str("\\{");
                    out.push_str(&count);
                    continue;
                }
                let too_big = |n: &str| n.len() > 4 || n.parse::<u32>().is_ok_and(|n| n > 1000);
                if too_big(min) || max.is_some_and(too_big) {
                    return Err(RegexError(format!("invalid repeat count: {{{count}}}")));
                }
                out.push('{');
                out.push_str(&count);
            }
            _ => out.push(c),
        }
    }
    Ok(out)
}

/// `s.find(re)`: the leftmost match, or the empty string.
pub fn find(re: &Regex, s: &str) -> String {
    re.find(s)
        .map(|m| m.as_str().to_string())
        .unwrap_or_default()
}

/// `s.findAll(re, n)`: Go's `FindAllString(s, n)`: at most `n` matches (all when `n < 0`,
/// none when `n == 0`); an empty match right after a previous match is skipped.
pub fn find_all(re: &Regex, s: &str, n: i64) -> Vec<String> {
    let limit = if n < 0 {
        usize::MAX
    } else {
        usize::try_from(n).unwrap_or(usize::MAX)
    };
    let mut out = Vec::new();
    let mut pos = 0usize;
    let mut prev_end: Option<usize> = None;
    while out.len() < limit && pos <= s.len() {
        let Some(m) = re.find_at(s, pos) else {
            break;
        };
        let mut accept = true;
        if m.end() == pos {
            if Some(m.start()) == prev_end {
                accept = false;
            }
            // step over one character
            pos += s
                .get(pos..)
                .and_then(|r| r.chars().next())
                .map_or(1, char::len_utf8);
        } else {
            pos = m.end();
        }
        prev_end = Some(m.end());
        if accept {
            out.push(m.as_str().to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn re(p: &str) -> Regex {
        compile(p).unwrap()
    }

    // upstream: k8s.io/apiserver/pkg/cel/library/regex.go (documented examples) and
    // library_test.go TestRegex
    #[test]
    fn cel_library_examples() {
        assert_eq!(find(&re("[0-9]+"), "abc 123"), "123");
        assert_eq!(find(&re("xyz"), "abc 123"), "");
        assert_eq!(
            find_all(&re("[a-z]+"), "123 abc def", -1),
            vec!["abc", "def"]
        );
        assert_eq!(find_all(&re("[a-z]+"), "123 abc def", 1), vec!["abc"]);
        assert!(find_all(&re("xyz"), "123 abc def", -1).is_empty());
        assert!(find_all(&re("[a-z]+"), "123 abc def", 0).is_empty());
        assert!(
            compile("[")
                .unwrap_err()
                .to_string()
                .starts_with("Illegal regex: ")
        );
    }

    // upstream: Go src/regexp/find_test.go findTests (FindAllString with empty matches)
    #[test]
    fn go_find_all_empty_matches() {
        assert_eq!(find_all(&re("a*"), "baaab", -1), vec!["", "aaa", ""]);
        assert_eq!(find_all(&re(""), "abc", -1), vec!["", "", "", ""]);
        assert_eq!(find_all(&re("b*"), "abc", -1), vec!["", "b", ""]);
        assert_eq!(find_all(&re("x*"), "日本", -1), vec!["", "", ""]);
        assert_eq!(find_all(&re("a+"), "aa,a", -1), vec!["aa", "a"]);
    }

    // upstream: Go src/regexp/syntax/doc.go (Perl classes are ASCII, \Q…\E, repeat limit)
    #[test]
    fn re2_semantics() {
        assert_eq!(find(&re(r"\d+"), "x١٢3"), "3");
        assert_eq!(find(&re(r"[\d]+"), "x١٢34"), "34");
        assert_eq!(find(&re(r"\w+"), "é_a1"), "_a1");
        assert_eq!(find(&re(r"\s"), "a\u{b}b c"), " ");
        assert_eq!(find(&re(r"\S+"), " ab "), "ab");
        assert_eq!(find(&re(r"\bx"), "éx x"), "x");
        assert_eq!(find(&re(r"\Q.*\E"), "a.*b"), ".*");
        assert_eq!(find(&re(r"[[]+"), "a[[b"), "[[");
        assert_eq!(find(&re(r"[]a]+"), "x]a]"), "]a]");
        assert_eq!(find(&re(r"[^]a]+"), "]abc"), "bc");
        assert_eq!(find(&re(r"[[:digit:]]+"), "ab12"), "12");
        assert_eq!(find(&re(r"[a&&b]+"), "x&&ab"), "&&ab");
        assert_eq!(find(&re(r"\\d"), r"\d"), r"\d");
        assert_eq!(find(&re(r"a{2,3}"), "aaaa"), "aaa");
        assert!(compile("a{1001}").is_err());
        assert!(compile("a{1000}").is_ok());
        assert!(compile("a{2,1001}").is_err());
        assert_eq!(find(&re("a{"), "a{"), "a{");
        assert_eq!(find(&re("a{x}"), "a{x}"), "a{x}");
        assert_eq!(find(&re("a{,2}"), "a{,2}"), "a{,2}");
        assert_eq!(find(&re("a{2,}"), "aaa"), "aaa");
    }
}
