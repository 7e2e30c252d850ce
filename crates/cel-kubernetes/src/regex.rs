//! Regex helpers: the CEL `regex` library (`k8s.io/apiserver/pkg/cel/library/regex.go`).
//!
//! `s.find(re)` is [`find`]; `s.findAll(re)` and `s.findAll(re, n)` are [`find_all`] (n < 0
//! for all). Patterns compile with [`compile`] (also used for the standard `matches`), which
//! gives Go's RE2 meaning to the places where Rust's `regex` differs: `\d`, `\w`, `\s` and
//! `\b` are ASCII-only, `\Q…\E` quotes, a `[` inside a class is a literal, and a counted
//! repetition is at most 1000. An invalid pattern is worded as Go's `regexp/syntax` words it
//! (`error parsing regexp: invalid repeat count: `{1001}``) for the errors Go detects before
//! compiling (repeat counts, unbalanced parentheses, an unclosed class, a trailing backslash);
//! for any other the cause after `error parsing regexp: ` is the `regex` crate's text.
//! `find`/`findAll` put upstream's `Illegal regex: ` in front ([`RegexError::illegal`]).
//!
//! Every Perl class (`\d`, `\w`, `\s`, `\b` and their negations, in or out of a class) is
//! rewritten to its ASCII form here, so `regex` needs no Unicode Perl tables: this crate asks it
//! for `std` and `unicode-case` only (Go's `(?i)` folds Unicode simply, as `unicode.SimpleFold`).
//! `\p{…}` classes need `regex`'s `unicode-gencat` / `unicode-script` features, which the
//! product leaves off (about 100 KB of tables): such a pattern is rejected as not compiling.

pub use regex::Regex;

/// An invalid pattern, as Go's `regexp.Compile` reports it: `error parsing regexp: <code>:
/// `<expr>``.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("error parsing regexp: {0}")]
pub struct RegexError(String);

impl RegexError {
    /// Go's `regexp/syntax.Error`: `<code>: `<expr>``.
    fn go(code: &str, expr: &str) -> Self {
        RegexError(format!("{code}: `{expr}`"))
    }

    /// The runtime error of `find` / `findAll` (regex.go): `Illegal regex: error parsing regexp: …`.
    pub fn illegal(&self) -> String {
        format!("Illegal regex: {self}")
    }
}

/// The largest compiled program a pattern may produce (bytes).
const SIZE_LIMIT: usize = 1 << 20;

/// Compiles `pattern` with Go's RE2 semantics (see the module documentation).
pub fn compile(pattern: &str) -> Result<Regex, RegexError> {
    let translated = translate(pattern)?;
    regex::RegexBuilder::new(&translated)
        .size_limit(SIZE_LIMIT)
        .dfa_size_limit(SIZE_LIMIT)
        .build()
        .map_err(|e| {
            let text = e.to_string();
            let cause = text.lines().last().unwrap_or_default().trim();
            RegexError(cause.trim_start_matches("error: ").to_string())
        })
}

/// What precedes a repetition operator, for Go's repetition errors.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Prev {
    /// The start of the pattern, of a group or of an alternative: nothing to repeat.
    Nothing,
    Atom,
    /// A repetition operator starting at this byte (`lazy`: already followed by `?`).
    Repeat {
        at: usize,
        lazy: bool,
    },
}

/// The structural errors Go's parser (`regexp/syntax` parse.go) reports, in its words: a
/// trailing backslash, a `)` without its `(`, a `(` without its `)` (both quote the whole
/// pattern), a class without its `]` (quoting the class to the end), `*`, `+` or `?` with
/// nothing to repeat, and a repetition of a repetition (`a**`).
fn check_structure(pattern: &str) -> Result<(), RegexError> {
    let bytes = pattern.as_bytes();
    let mut i = 0usize;
    let mut groups = 0usize;
    let mut prev = Prev::Nothing;
    while let Some(&b) = bytes.get(i) {
        let quoted = |from: usize, to: usize| pattern.get(from..to).unwrap_or_default();
        if matches!(b, b'*' | b'+' | b'?') {
            prev = match prev {
                Prev::Nothing => {
                    return Err(RegexError::go(
                        "missing argument to repetition operator",
                        quoted(i, i + 1),
                    ));
                }
                Prev::Atom => Prev::Repeat { at: i, lazy: false },
                Prev::Repeat { at, lazy: false } if b == b'?' => Prev::Repeat { at, lazy: true },
                Prev::Repeat { at, .. } => {
                    return Err(RegexError::go(
                        "invalid nested repetition operator",
                        quoted(at, i + 1),
                    ));
                }
            };
            i += 1;
            continue;
        }
        prev = match b {
            b'(' | b'|' => Prev::Nothing,
            _ => Prev::Atom,
        };
        match b {
            b'\\' => match bytes.get(i + 1) {
                None => {
                    return Err(RegexError::go(
                        "trailing backslash at end of expression",
                        "",
                    ));
                }
                Some(b'Q') => {
                    // literal text up to `\E` (or the end)
                    i = pattern
                        .get(i + 2..)
                        .and_then(|rest| rest.find("\\E"))
                        .map_or(bytes.len(), |e| i + 2 + e + 2);
                    continue;
                }
                Some(_) => i += 2,
            },
            b'[' => {
                let start = i;
                i += 1;
                // a leading `^`, then a leading `]`, are part of the class
                if bytes.get(i) == Some(&b'^') {
                    i += 1;
                }
                if bytes.get(i) == Some(&b']') {
                    i += 1;
                }
                loop {
                    match bytes.get(i) {
                        None => {
                            return Err(RegexError::go(
                                "missing closing ]",
                                pattern.get(start..).unwrap_or_default(),
                            ));
                        }
                        Some(b']') => break,
                        Some(b'\\') => i += 2,
                        Some(b'[') if bytes.get(i + 1) == Some(&b':') => {
                            // a POSIX class `[:alpha:]`
                            match pattern.get(i + 2..).and_then(|r| r.find(":]")) {
                                Some(e) => i += 2 + e + 2,
                                None => i += 1,
                            }
                        }
                        Some(_) => i += 1,
                    }
                }
                i += 1;
            }
            b'(' => {
                groups += 1;
                i += 1;
                // a group's flags or name (`(?i)`, `(?P<n>`) are not something to repeat
                if bytes.get(i) == Some(&b'?') {
                    i += 1;
                }
            }
            b')' => {
                if groups == 0 {
                    return Err(RegexError::go("unexpected )", pattern));
                }
                groups -= 1;
                i += 1;
            }
            _ => i += 1,
        }
    }
    if groups > 0 {
        return Err(RegexError::go("missing closing )", pattern));
    }
    Ok(())
}

/// Rewrites an RE2 pattern into the `regex` crate's syntax with the same meaning.
fn translate(pattern: &str) -> Result<String, RegexError> {
    check_structure(pattern)?;
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
                // Go's negated Perl classes inside a class are ASCII too: a nested class
                (true, 'D') => out.push_str("[^0-9]"),
                (true, 'W') => out.push_str("[^0-9A-Za-z_]"),
                (true, 'S') => out.push_str("[^\\t\\n\\f\\r ]"),
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
                let reversed = max
                    .and_then(|m| Some((min.parse::<u32>().ok()?, m.parse::<u32>().ok()?)))
                    .is_some_and(|(lo, hi)| lo > hi);
                if too_big(min) || max.is_some_and(|m| !m.is_empty() && too_big(m)) || reversed {
                    return Err(RegexError::go(
                        "invalid repeat count",
                        &format!("{{{count}}}"),
                    ));
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
        assert_eq!(
            compile("[").unwrap_err().illegal(),
            "Illegal regex: error parsing regexp: missing closing ]: `[`"
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
        assert!(compile("a{1000}").is_ok());
        assert_eq!(find(&re(r"^\Qa.b\E$"), "a.b"), "a.b");
        assert_eq!(find(&re(r"^\Qa.b\E$"), "axb"), "");
        assert_eq!(find(&re(r"\Q(a\E+"), "(aa"), "(aa");
        assert_eq!(find(&re("a{"), "a{"), "a{");
        assert_eq!(find(&re("a{x}"), "a{x}"), "a{x}");
        assert_eq!(find(&re("a{,2}"), "a{,2}"), "a{,2}");
        assert_eq!(find(&re("a{2,}"), "aaa"), "aaa");
    }

    // upstream: Go src/regexp/syntax/perl_groups.go: `\D`, `\W`, `\S` are the complements of the
    // ASCII classes, also inside a bracketed class; (?i) folds Unicode (unicode.SimpleFold)
    #[test]
    fn re2_negated_perl_classes_in_a_class() {
        assert_eq!(find(&re(r"[\D]+"), "12١٢x3"), "١٢x");
        assert_eq!(find(&re(r"[a\W]+"), "_aé-b"), "aé-");
        assert_eq!(find(&re(r"[^\W]+"), "é_a1é"), "_a1");
        assert_eq!(find(&re(r"[\S]+"), "\u{b}a b"), "\u{b}a");
        assert_eq!(find(&re(r"[\d\s]+"), "x1 2y"), "1 2");
        assert_eq!(find(&re("(?i)k"), "\u{212a}"), "\u{212a}");
        assert_eq!(find(&re("(?i)straße"), "STRASSE Straẞe"), "Straẞe");
    }

    fn err(p: &str) -> String {
        compile(p).unwrap_err().to_string()
    }

    // upstream: Go src/regexp/all_test.go badRe (the errors Go's parser detects; the others are
    // worded by the `regex` crate) and src/regexp/syntax/parse.go (repeat counts over 1000)
    #[test]
    fn go_parse_errors() {
        let go = |e: &str| format!("error parsing regexp: {e}");
        assert_eq!(err("*"), go("missing argument to repetition operator: `*`"));
        assert_eq!(err("+"), go("missing argument to repetition operator: `+`"));
        assert_eq!(err("?"), go("missing argument to repetition operator: `?`"));
        assert_eq!(err("(abc"), go("missing closing ): `(abc`"));
        assert_eq!(err("abc)"), go("unexpected ): `abc)`"));
        assert_eq!(err("x[a-z"), go("missing closing ]: `[a-z`"));
        assert_eq!(
            err(r"abc\"),
            go("trailing backslash at end of expression: ``")
        );
        assert_eq!(err("a**"), go("invalid nested repetition operator: `**`"));
        assert_eq!(err("a*+"), go("invalid nested repetition operator: `*+`"));
        assert_eq!(err("a{1001}"), go("invalid repeat count: `{1001}`"));
        assert_eq!(err("a{2,1001}"), go("invalid repeat count: `{2,1001}`"));
        assert_eq!(err("a{3,2}"), go("invalid repeat count: `{3,2}`"));
        assert!(err("[z-a]").starts_with("error parsing regexp: "));
        // what Go accepts
        for ok in [
            "a*?", "a+?", "a??", "(?s)a", "(?:a)*", r"\*", "[*+?]", "abc]", r"\Q*\E",
        ] {
            assert!(compile(ok).is_ok(), "{ok}");
        }
    }
}
