//! Regex helpers: the CEL `regex` library (`k8s.io/apiserver/pkg/cel/library/regex.go`).
//!
//! `s.find(re)` is [`find`]; `s.findAll(re)` and `s.findAll(re, n)` are [`find_all`] (n < 0
//! for all). Patterns compile with [`compile`] (also used for the standard `matches`), which
//! gives Go's RE2 meaning to the places where `regex_lite` differs: `\s` is `[\t\n\f\r ]`,
//! `\Q…\E` quotes, a `[` inside a class is a literal, a counted repetition is at most 1000, and
//! `(?i)` folds Unicode simply (Go's `unicode.SimpleFold` orbits: `(?i)k` matches U+212A
//! KELVIN SIGN) where `regex_lite` folds ASCII only. An invalid pattern is worded as Go's
//! `regexp/syntax` words it (`error parsing regexp: invalid repeat count: `{1001}``) for the
//! errors Go detects before compiling (repeat counts, unbalanced parentheses, an unclosed
//! class, a trailing backslash, a reversed class range, an unknown POSIX class); for any other
//! the cause after `error parsing regexp: ` is `regex_lite`'s text.
//! `find`/`findAll` put upstream's `Illegal regex: ` in front ([`RegexError::illegal`]).
//!
//! `translate` writes every Perl class (`\d`, `\w`, `\s` and their negations), POSIX class
//! and bracketed class as explicit ranges (`regex_lite` has no nested classes), and under the
//! `i` flag every literal and class as the union of its case-fold orbits (`orbit`: Rust's
//! single-character case mappings plus Go's `caseOrbit` data), then drops `i` from the flags,
//! so `regex_lite`'s ASCII-only folding is never used. `\p{…}` classes are rejected by
//! `regex_lite` (no Unicode tables), as they were before: such a pattern does not compile.

/// A compiled pattern: `regex_lite`'s program, and for the most common shape of admission patterns, a whole string
/// of one ASCII class (`^[a-z0-9-]+$`), a scan of its bytes instead ([`WholeClass`]).
#[derive(Clone, Debug)]
pub struct Regex {
    inner: regex_lite::Regex,
    whole: Option<WholeClass>,
}

impl Regex {
    /// Whether `s` has a match anywhere (Go's `MatchString`).
    pub fn is_match(&self, s: &str) -> bool {
        match &self.whole {
            Some(w) => w.matches(s),
            None => self.inner.is_match(s),
        }
    }

    /// The leftmost match.
    pub fn find<'h>(&self, s: &'h str) -> Option<regex_lite::Match<'h>> {
        self.inner.find(s)
    }

    /// The leftmost match starting at or after `start`, anchors still seeing all of `s`.
    pub fn find_at<'h>(&self, s: &'h str, start: usize) -> Option<regex_lite::Match<'h>> {
        self.inner.find_at(s, start)
    }
}

/// `^[class]+$` or `^[class]*$` with no flags, the class a set of ASCII characters and ranges (no negation, no
/// escape): in Go's RE2, `^` and `$` outside multi-line mode are the ends of the text, so the pattern matches exactly
/// the strings whose every character is in the class (and not empty, for `+`).
#[derive(Clone, Debug, PartialEq, Eq)]
struct WholeClass {
    /// bit `b` set: ASCII byte `b` is in the class
    set: u128,
    empty: bool,
}

impl WholeClass {
    /// The fast form of `pattern`, when it has this shape.
    fn of(pattern: &str) -> Option<WholeClass> {
        let body = pattern.strip_prefix("^[")?;
        let (class, empty) = if let Some(c) = body.strip_suffix("]+$") {
            (c, false)
        } else {
            (body.strip_suffix("]*$")?, true)
        };
        let bytes = class.as_bytes();
        if bytes.is_empty()
            || bytes.first() == Some(&b'^')
            || bytes
                .iter()
                .any(|b| !b.is_ascii() || matches!(b, b'\\' | b'[' | b']'))
        {
            return None;
        }
        let mut set = 0u128;
        let mut i = 0;
        while let Some(&lo) = bytes.get(i) {
            // `a-z`; a `-` first or last is itself
            if let (Some(b'-'), Some(&hi)) = (bytes.get(i + 1), bytes.get(i + 2)) {
                if hi < lo {
                    return None;
                }
                for b in lo..=hi {
                    set |= 1u128 << b;
                }
                i += 3;
            } else {
                set |= 1u128 << lo;
                i += 1;
            }
        }
        Some(WholeClass { set, empty })
    }

    fn matches(&self, s: &str) -> bool {
        (self.empty || !s.is_empty())
            && s.bytes()
                .all(|b| b.is_ascii() && self.set & (1u128 << b) != 0)
    }
}

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

/// The deepest nesting of groups and repetitions a pattern may have.
const NEST_LIMIT: u32 = 250;

/// Compiles `pattern` with Go's RE2 semantics (see the module documentation).
pub fn compile(pattern: &str) -> Result<Regex, RegexError> {
    let translated = translate(pattern)?;
    let inner = regex_lite::RegexBuilder::new(&translated)
        .size_limit(SIZE_LIMIT)
        .nest_limit(NEST_LIMIT)
        .build()
        .map_err(|e| {
            let text = e.to_string();
            let cause = text.lines().last().unwrap_or_default().trim();
            RegexError(cause.trim_start_matches("error: ").to_string())
        })?;
    Ok(Regex {
        inner,
        whole: WholeClass::of(pattern),
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

/// Go's case orbits with more than two members, and the runes Go leaves unfolded although
/// Rust's full case mappings relate them to others (`unicode/tables.go` `caseOrbit`; the
/// Greek iota-subscript pairs are Go's simple mappings where Rust's `to_uppercase` is the full
/// two-character one). A rune not listed here folds to its simple lower and upper case
/// ([`crate::simple_case`]).
const ORBITS: &[&[u32]] = &[
    &[0x4B, 0x6B, 0x212A],
    &[0x53, 0x73, 0x17F],
    &[0xB5, 0x39C, 0x3BC],
    &[0xC5, 0xE5, 0x212B],
    &[0xDF, 0x1E9E],
    &[0x130],
    &[0x131],
    &[0x1C4, 0x1C5, 0x1C6],
    &[0x1C7, 0x1C8, 0x1C9],
    &[0x1CA, 0x1CB, 0x1CC],
    &[0x1F1, 0x1F2, 0x1F3],
    &[0x345, 0x399, 0x3B9, 0x1FBE],
    &[0x392, 0x3B2, 0x3D0],
    &[0x395, 0x3B5, 0x3F5],
    &[0x398, 0x3B8, 0x3D1, 0x3F4],
    &[0x39A, 0x3BA, 0x3F0],
    &[0x3A0, 0x3C0, 0x3D6],
    &[0x3A1, 0x3C1, 0x3F1],
    &[0x3A3, 0x3C2, 0x3C3],
    &[0x3A6, 0x3C6, 0x3D5],
    &[0x3A9, 0x3C9, 0x2126],
    &[0x412, 0x432, 0x1C80],
    &[0x414, 0x434, 0x1C81],
    &[0x41E, 0x43E, 0x1C82],
    &[0x421, 0x441, 0x1C83],
    &[0x422, 0x442, 0x1C84, 0x1C85],
    &[0x42A, 0x44A, 0x1C86],
    &[0x462, 0x463, 0x1C87],
    &[0x1C88, 0xA64A, 0xA64B],
    &[0x1E60, 0x1E61, 0x1E9B],
    &[0x1FB3, 0x1FBC],
    &[0x1FC3, 0x1FCC],
    &[0x1FF3, 0x1FFC],
];

/// The smallest and largest runes with other case forms (Go's `minFold`, `maxFold`).
const MIN_FOLD: u32 = 0x41;
const MAX_FOLD: u32 = 0x1E943;

/// `c`'s case-fold orbit (Go's `unicode.SimpleFold` cycle), `c` included.
fn orbit(c: u32) -> Vec<u32> {
    if let Some(o) = ORBITS.iter().find(|o| o.contains(&c)) {
        return o.to_vec();
    }
    // ᾀ-ᾇ / ᾈ-ᾏ, ᾐ-ᾗ / ᾘ-ᾟ, ᾠ-ᾧ / ᾨ-ᾯ: Go's simple mappings pair them
    if (0x1F80..=0x1FAF).contains(&c) {
        return vec![c & !8, c | 8];
    }
    let mut out = vec![c];
    let (lower, upper) = crate::simple_case::mappings(c);
    for o in [lower, upper] {
        if !out.contains(&o) {
            out.push(o);
        }
    }
    out
}

/// Sorts and merges ranges.
fn normalize(mut ranges: Vec<(u32, u32)>) -> Vec<(u32, u32)> {
    palisade_json::sort::sort(&mut ranges);
    let mut out: Vec<(u32, u32)> = Vec::with_capacity(ranges.len());
    for (lo, hi) in ranges {
        match out.last_mut() {
            Some(last) if lo <= last.1.saturating_add(1) => last.1 = last.1.max(hi),
            _ => out.push((lo, hi)),
        }
    }
    out
}

/// `ranges` closed under case folding (Go's `appendFoldedRange`).
fn fold(ranges: &[(u32, u32)]) -> Vec<(u32, u32)> {
    let mut out = ranges.to_vec();
    for &(lo, hi) in ranges {
        if lo <= MIN_FOLD && hi >= MAX_FOLD {
            continue;
        }
        for c in lo.max(MIN_FOLD)..=hi.min(MAX_FOLD) {
            for o in orbit(c) {
                if o < lo || o > hi {
                    out.push((o, o));
                }
            }
        }
    }
    normalize(out)
}

/// The runes not in `ranges` (normalized).
fn complement(ranges: &[(u32, u32)]) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    let mut next = 0u32;
    for &(lo, hi) in ranges {
        if lo > next {
            out.push((next, lo - 1));
        }
        next = hi.saturating_add(1);
    }
    if next <= 0x10FFFF {
        out.push((next, 0x10FFFF));
    }
    out
}

/// Writes `ranges` as the items of a class (surrogates left out).
fn push_ranges(out: &mut String, ranges: &[(u32, u32)]) {
    use std::fmt::Write as _;
    for &(lo, hi) in ranges {
        let parts = if lo < 0xD800 && hi > 0xDFFF {
            [(lo, 0xD7FF), (0xE000, hi)]
        } else if (0xD800..=0xDFFF).contains(&lo) {
            [(0xE000, hi), (1, 0)]
        } else if (0xD800..=0xDFFF).contains(&hi) {
            [(lo, 0xD7FF), (1, 0)]
        } else {
            [(lo, hi), (1, 0)]
        };
        for (lo, hi) in parts {
            if lo == hi {
                let _ = write!(out, "\\x{{{lo:X}}}");
            } else if lo < hi {
                let _ = write!(out, "\\x{{{lo:X}}}-\\x{{{hi:X}}}");
            }
        }
    }
}

/// Writes a class of `ranges` (`[^…]` when `negated`).
fn push_class(out: &mut String, ranges: &[(u32, u32)], negated: bool) {
    if ranges.is_empty() {
        out.push_str(if negated {
            "[\\x{0}-\\x{10FFFF}]"
        } else {
            "[^\\x{0}-\\x{10FFFF}]"
        });
        return;
    }
    out.push('[');
    if negated {
        out.push('^');
    }
    push_ranges(out, ranges);
    out.push(']');
}

const DIGIT: &[(u32, u32)] = &[(0x30, 0x39)];
const WORD: &[(u32, u32)] = &[(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)];
const SPACE: &[(u32, u32)] = &[(0x9, 0xA), (0xC, 0xD), (0x20, 0x20)];

/// A Perl class (`\d`, `\w`, `\s`; negated when upper case) as Go reads it: ASCII.
fn perl_class(e: char) -> Option<(&'static [(u32, u32)], bool)> {
    match e {
        'd' => Some((DIGIT, false)),
        'D' => Some((DIGIT, true)),
        'w' => Some((WORD, false)),
        'W' => Some((WORD, true)),
        's' => Some((SPACE, false)),
        'S' => Some((SPACE, true)),
        _ => None,
    }
}

/// A POSIX class by name (`alpha` in `[[:alpha:]]`; Go's `posixGroup`).
fn posix_class(name: &str) -> Option<&'static [(u32, u32)]> {
    Some(match name {
        "alnum" => &[(0x30, 0x39), (0x41, 0x5A), (0x61, 0x7A)],
        "alpha" => &[(0x41, 0x5A), (0x61, 0x7A)],
        "ascii" => &[(0x0, 0x7F)],
        "blank" => &[(0x9, 0x9), (0x20, 0x20)],
        "cntrl" => &[(0x0, 0x1F), (0x7F, 0x7F)],
        "digit" => DIGIT,
        "graph" => &[(0x21, 0x7E)],
        "lower" => &[(0x61, 0x7A)],
        "print" => &[(0x20, 0x7E)],
        "punct" => &[(0x21, 0x2F), (0x3A, 0x40), (0x5B, 0x60), (0x7B, 0x7E)],
        "space" => &[(0x9, 0xD), (0x20, 0x20)],
        "upper" => &[(0x41, 0x5A)],
        "word" => WORD,
        "xdigit" => &[(0x30, 0x39), (0x41, 0x46), (0x61, 0x66)],
        _ => return None,
    })
}

/// The ranges of a named class, folded when `fold`, then negated when `negated` (Go folds a
/// class before negating it).
fn named_ranges(ranges: &[(u32, u32)], negated: bool, fold_case: bool) -> Vec<(u32, u32)> {
    let ranges = if fold_case {
        fold(ranges)
    } else {
        ranges.to_vec()
    };
    if negated { complement(&ranges) } else { ranges }
}

/// One item of a bracketed class.
enum ClassChar {
    Char(u32),
    Set(Vec<(u32, u32)>),
}

/// Reads a hexadecimal escape after `\x` (`\xHH` or `\x{H…}`) at `chars[*i..]`.
fn hex_escape(chars: &[char], i: &mut usize) -> Option<u32> {
    let digits: String = if chars.get(*i) == Some(&'{') {
        let end = chars.get(*i + 1..)?.iter().position(|&c| c == '}')?;
        let d: String = chars.get(*i + 1..*i + 1 + end)?.iter().collect();
        *i += end + 2;
        d
    } else {
        let d: String = chars.get(*i..*i + 2)?.iter().collect();
        *i += 2;
        d
    };
    if digits.is_empty() || digits.len() > 8 || !digits.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    let v = u32::from_str_radix(&digits, 16).ok()?;
    char::from_u32(v).map(u32::from)
}

/// Go's octal escape after its backslash, whose first digit `d` is at `chars[*i - 1]`: `\0` and up to two more octal
/// digits, or a non-zero digit followed by at least one more (`\12`); a lone `\1`…`\7` is a backreference, which RE2
/// refuses (`invalid escape sequence`). `None` when `d` is not an octal digit.
fn octal_escape(chars: &[char], i: &mut usize, d: char) -> Option<Result<u32, RegexError>> {
    let first = d.to_digit(8)?;
    let octal = |c: Option<&char>| c.and_then(|c| c.to_digit(8));
    if first != 0 && octal(chars.get(*i)).is_none() {
        return Some(Err(RegexError::go(
            "invalid escape sequence",
            &format!("\\{d}"),
        )));
    }
    let mut value = first;
    for _ in 0..2 {
        match octal(chars.get(*i)) {
            Some(digit) => {
                value = value * 8 + digit;
                *i += 1;
            }
            None => break,
        }
    }
    Some(Ok(value))
}

/// Reads one class character or Perl class at `chars[*i..]` (None: not something this module
/// rewrites; the class is then left for `regex_lite` to judge).
fn class_char(chars: &[char], i: &mut usize, fold_case: bool) -> Option<ClassChar> {
    let c = *chars.get(*i)?;
    *i += 1;
    if c != '\\' {
        return Some(ClassChar::Char(u32::from(c)));
    }
    let e = *chars.get(*i)?;
    *i += 1;
    if let Some((ranges, negated)) = perl_class(e) {
        return Some(ClassChar::Set(named_ranges(ranges, negated, fold_case)));
    }
    let c = match e {
        'a' => 0x7,
        'f' => 0xC,
        't' => 0x9,
        'n' => 0xA,
        'r' => 0xD,
        'v' => 0xB,
        'x' => return hex_escape(chars, i).map(ClassChar::Char),
        '0'..='7' => {
            return octal_escape(chars, i, e)
                .and_then(Result::ok)
                .map(ClassChar::Char);
        }
        e if e.is_ascii_punctuation() => u32::from(e),
        _ => return None,
    };
    Some(ClassChar::Char(c))
}

/// A bracketed class read by [`parse_class`].
struct ParsedClass {
    /// Its ranges, folded when the `i` flag is on, before any negation.
    ranges: Vec<(u32, u32)>,
    /// `[^…]`.
    negated: bool,
    /// The index after its `]`.
    end: usize,
}

/// Parses the bracketed class starting at `chars[start] == '['`: its ranges (folded when
/// `fold_case`, before any negation), whether it is negated, and the index after its `]`.
/// `Ok(None)` when it holds something this module does not rewrite.
fn parse_class(
    chars: &[char],
    start: usize,
    fold_case: bool,
) -> Result<Option<ParsedClass>, RegexError> {
    let mut i = start + 1;
    let negated = chars.get(i) == Some(&'^');
    if negated {
        i += 1;
    }
    let mut ranges = Vec::new();
    let mut first = true;
    loop {
        let Some(&c) = chars.get(i) else {
            return Ok(None);
        };
        if c == ']' && !first {
            i += 1;
            break;
        }
        first = false;
        if c == '[' && chars.get(i + 1) == Some(&':') {
            let rest: String = chars.get(i + 2..).unwrap_or_default().iter().collect();
            if let Some(end) = rest.find(":]") {
                let name = rest.get(..end).unwrap_or_default();
                let (name, neg) = match name.strip_prefix('^') {
                    Some(n) => (n, true),
                    None => (name, false),
                };
                if let Some(class) = posix_class(name) {
                    ranges.extend(named_ranges(class, neg, fold_case));
                    i += 2 + name.chars().count() + usize::from(neg) + 2;
                    continue;
                }
                return Err(RegexError::go(
                    "invalid character class range",
                    &format!("[:{}:]", rest.get(..end).unwrap_or_default()),
                ));
            }
        }
        let item_start = i;
        let lo = match class_char(chars, &mut i, fold_case) {
            Some(ClassChar::Char(c)) => c,
            Some(ClassChar::Set(set)) => {
                ranges.extend(set);
                continue;
            }
            None => return Ok(None),
        };
        let mut hi = lo;
        if chars.get(i) == Some(&'-') && chars.get(i + 1).is_some_and(|&n| n != ']') {
            i += 1;
            hi = match class_char(chars, &mut i, fold_case) {
                Some(ClassChar::Char(c)) => c,
                _ => return Ok(None),
            };
            if hi < lo {
                let text: String = chars
                    .get(item_start..i)
                    .unwrap_or_default()
                    .iter()
                    .collect();
                return Err(RegexError::go("invalid character class range", &text));
            }
        }
        ranges.push((lo, hi));
    }
    let ranges = if fold_case {
        fold(&ranges)
    } else {
        normalize(ranges)
    };
    Ok(Some(ParsedClass {
        ranges,
        negated,
        end: i,
    }))
}

/// Writes `c`, a literal outside a class, matching its whole case orbit when `fold_case`
/// (`raw`: how to write it when it has no other case form).
fn push_literal(out: &mut String, c: u32, fold_case: bool, raw: &str) {
    if fold_case {
        let o = orbit(c);
        if o.len() > 1 {
            let ranges = normalize(o.into_iter().map(|c| (c, c)).collect());
            push_class(out, &ranges, false);
            return;
        }
    }
    out.push_str(raw);
}

/// Rewrites a group's flags (the text between `(?` and `)` or `:`) without `i`, and the
/// `i` state they leave; None when they are not Go's flags (left for `regex_lite`).
fn group_flags(flags: &str, fold_case: bool) -> Option<(String, bool)> {
    if flags.is_empty()
        || flags.ends_with('-')
        || flags.matches('-').count() > 1
        || !flags
            .chars()
            .all(|c| matches!(c, 'i' | 'm' | 's' | 'U' | '-'))
    {
        return None;
    }
    let mut fold_case = fold_case;
    let mut on = true;
    let mut kept = String::new();
    for c in flags.chars() {
        match c {
            '-' => {
                on = false;
                kept.push('-');
            }
            'i' => fold_case = on,
            c => kept.push(c),
        }
    }
    let kept = kept.trim_end_matches('-').to_string();
    Some((kept, fold_case))
}

/// Rewrites an RE2 pattern into `regex_lite`'s syntax with the same meaning: Perl classes and
/// bracketed classes become explicit ranges, and under `i` every literal and class is
/// expanded to its case-fold orbits (`regex_lite` folds ASCII only, so the flag itself is
/// removed).
fn translate(pattern: &str) -> Result<String, RegexError> {
    check_structure(pattern)?;
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut fold_case = false;
    let mut groups: Vec<bool> = Vec::new();
    let mut i = 0usize;
    while let Some(&c) = chars.get(i) {
        i += 1;
        match c {
            '\\' => {
                let Some(&e) = chars.get(i) else {
                    out.push('\\');
                    break;
                };
                i += 1;
                if let Some((ranges, negated)) = perl_class(e) {
                    let ranges = if fold_case {
                        fold(ranges)
                    } else {
                        ranges.to_vec()
                    };
                    push_class(&mut out, &ranges, negated);
                    continue;
                }
                match e {
                    'b' => out.push_str("\\b"),
                    'B' => out.push_str("\\B"),
                    'Q' => {
                        while let Some(&q) = chars.get(i) {
                            i += 1;
                            if q == '\\' && chars.get(i) == Some(&'E') {
                                i += 1;
                                break;
                            }
                            push_literal(
                                &mut out,
                                u32::from(q),
                                fold_case,
                                &regex_lite::escape(q.encode_utf8(&mut [0; 4])),
                            );
                        }
                    }
                    '0'..='7' => match octal_escape(&chars, &mut i, e) {
                        Some(Ok(v)) => {
                            let mut raw = String::new();
                            push_ranges(&mut raw, &[(v, v)]);
                            push_literal(&mut out, v, fold_case, &raw);
                        }
                        Some(Err(e)) => return Err(e),
                        None => {}
                    },
                    'x' => {
                        let from = i;
                        match hex_escape(&chars, &mut i) {
                            Some(v) => {
                                let raw: String =
                                    chars.get(from - 2..i).unwrap_or_default().iter().collect();
                                push_literal(&mut out, v, fold_case, &raw);
                            }
                            None => out.push_str("\\x"),
                        }
                    }
                    e => {
                        out.push('\\');
                        out.push(e);
                    }
                }
            }
            '[' => match parse_class(&chars, i - 1, fold_case)? {
                Some(class) => {
                    push_class(&mut out, &class.ranges, class.negated);
                    i = class.end;
                }
                None => out.push('['),
            },
            '(' => {
                groups.push(fold_case);
                out.push('(');
                if chars.get(i) != Some(&'?') {
                    continue;
                }
                let end = chars
                    .get(i + 1..)
                    .and_then(|r| r.iter().position(|&c| matches!(c, ')' | ':' | '<')))
                    .map_or(chars.len(), |p| i + 1 + p);
                let flags: String = chars.get(i + 1..end).unwrap_or_default().iter().collect();
                let term = chars.get(end).copied();
                match (term, group_flags(&flags, fold_case)) {
                    (Some(t @ (')' | ':')), Some((kept, new_fold))) => {
                        i = end + 1;
                        fold_case = new_fold;
                        if t == ')' {
                            // flags for the rest of the enclosing group: not a group
                            groups.pop();
                            out.pop();
                            if !kept.is_empty() {
                                out.push_str(&format!("(?{kept})"));
                            }
                        } else {
                            out.push_str(&format!("?{kept}:"));
                        }
                    }
                    (Some('<'), _) => {
                        // a named group: `(?P<name>` / `(?<name>`, copied as it is
                        let close = chars
                            .get(end..)
                            .and_then(|r| r.iter().position(|&c| c == '>'))
                            .map_or(chars.len(), |p| end + p + 1);
                        out.extend(chars.get(i..close).unwrap_or_default());
                        i = close;
                    }
                    _ => {}
                }
            }
            ')' => {
                if let Some(outer) = groups.pop() {
                    fold_case = outer;
                }
                out.push(')');
            }
            '{' => {
                let mut count = String::new();
                while let Some(&d) = chars.get(i) {
                    if d.is_ascii_digit() || d == ',' {
                        count.push(d);
                        i += 1;
                    } else {
                        break;
                    }
                }
                let mut bounds = count.splitn(2, ',');
                let min = bounds.next().unwrap_or("");
                let max = bounds.next();
                let is_repeat = chars.get(i) == Some(&'}')
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
            c => push_literal(
                &mut out,
                u32::from(c),
                fold_case,
                c.encode_utf8(&mut [0; 4]),
            ),
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

    #[test]
    fn whole_class_patterns_scan_and_agree_with_the_program() {
        let fast = [
            "^[a-z0-9-]+$",
            "^[a-z]*$",
            "^[-a-zA-Z0-9_.]+$",
            "^[a-z0-9.-]+$",
            "^[ab]+$",
        ];
        let slow = [
            "^[^a-z]+$",
            "^[a-z]+",
            "[a-z]+$",
            "^[\\d]+$",
            "^[a-z]+$|x",
            "(?i)^[a-z]+$",
            "^[é]+$",
            "^[]a]+$",
        ];
        for p in fast {
            assert!(compile(p).unwrap().whole.is_some(), "{p}");
        }
        for p in slow {
            assert!(compile(p).map(|r| r.whole.is_none()).unwrap_or(true), "{p}");
        }
        let inputs = [
            "", "a", "abc", "abc-123", "ABC", "a.b", "a_b", "-", "a\n", "\nabc", "abc\n", "é",
            "aé", "a b", "0", "z", "{", "`", "ab.c-d_e",
        ];
        for p in fast {
            let re = compile(p).unwrap();
            for s in inputs {
                assert_eq!(re.is_match(s), re.inner.is_match(s), "{p} on {s:?}");
            }
        }
    }

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
        // octal escapes: `\0` and up to two more digits, `\12`, three digits at most
        assert_eq!(find(&re(r"a\0b"), "xa\0b"), "a\0b");
        assert_eq!(find(&re(r"\12"), "a\nb"), "\n");
        assert_eq!(find(&re(r"\101+"), "xAAy"), "AA");
        assert_eq!(find(&re(r"\1234"), "S4"), "S4");
        assert_eq!(find(&re(r"[\101-\103]+"), "xABCD"), "ABC");
        assert_eq!(find(&re(r"(?i)\101"), "xa"), "a");
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
    // worded by `regex_lite`) and src/regexp/syntax/parse.go (repeat counts over 1000)
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
        // a lone \1…\7 is a backreference, which RE2 refuses (parse.go, "Octal escapes")
        assert_eq!(err(r"(a)\1"), go(r"invalid escape sequence: `\1`"));
        // what Go accepts
        for ok in [
            "a*?", "a+?", "a??", "(?s)a", "(?:a)*", r"\*", "[*+?]", "abc]", r"\Q*\E",
        ] {
            assert!(compile(ok).is_ok(), "{ok}");
        }
    }
    // upstream: Go src/unicode/tables.go caseOrbit and Go's (?i) (regexp/syntax parse.go
    // appendFoldedRange): regex_lite folds ASCII only, so translate spells out every orbit
    #[test]
    fn case_fold_orbits() {
        let o = |c: char| {
            let mut v: Vec<char> = orbit(u32::from(c))
                .into_iter()
                .filter_map(char::from_u32)
                .collect();
            v.sort_unstable();
            v
        };
        assert_eq!(o('k'), vec!['K', 'k', '\u{212a}']);
        assert_eq!(o('\u{212a}'), vec!['K', 'k', '\u{212a}']);
        assert_eq!(o('S'), vec!['S', 's', '\u{17f}']);
        assert_eq!(o('µ'), vec!['µ', 'Μ', 'μ']);
        assert_eq!(o('σ'), vec!['Σ', 'ς', 'σ']);
        assert_eq!(o('ß'), vec!['ß', 'ẞ']);
        assert_eq!(o('ǅ'), vec!['Ǆ', 'ǅ', 'ǆ']);
        assert_eq!(o('ı'), vec!['ı']);
        assert_eq!(o('İ'), vec!['İ']);
        assert_eq!(o('i'), vec!['I', 'i']);
        assert_eq!(o('ᾀ'), vec!['ᾀ', 'ᾈ']);
        assert_eq!(o('é'), vec!['É', 'é']);
        assert_eq!(o('1'), vec!['1']);
        assert_eq!(find(&re("(?i)s+"), "xſSsy"), "ſSs");
        assert_eq!(find(&re("(?i)ΣΑΣ"), "σας"), "σας");
        assert_eq!(find(&re("(?i)é"), "É"), "É");
        assert_eq!(find(&re("(?i)ı"), "iI"), "");
        assert_eq!(find(&re(r"(?i)\x{212A}"), "k"), "k");
        assert_eq!(find(&re(r"(?i)\Qk.\E"), "K. k"), "K.");
        assert_eq!(find(&re("(?i)a.c"), "AxC"), "AxC");
    }

    #[test]
    fn case_fold_classes() {
        assert_eq!(find(&re("(?i)[a-c]+"), "xAbC"), "AbC");
        assert_eq!(find(&re("(?i)[j-l]+"), "\u{212a}Jl"), "\u{212a}Jl");
        assert_eq!(find(&re("(?i)[^k]+"), "k\u{212a}Kx"), "x");
        assert_eq!(find(&re("(?i)[α-γ]+"), "ΑΒΓ"), "ΑΒΓ");
        assert_eq!(find(&re("(?i)[[:upper:]]+"), "1aB"), "aB");
        assert_eq!(find(&re("[[:upper:]]+"), "1aB"), "B");
        assert_eq!(find(&re("(?i)[[:^lower:]]+"), "ab1"), "1");
        // Go folds \w before negating \W: ſ and K are word characters under (?i)
        assert_eq!(find(&re(r"(?i)\w+"), "-ſ\u{212a}a"), "ſ\u{212a}a");
        assert_eq!(find(&re(r"(?i)\W+"), "ſ-é"), "-é");
        assert_eq!(find(&re(r"(?i)[\W]+"), "ſ-é"), "-é");
        assert_eq!(find(&re(r"\w+"), "ſab"), "ab");
        assert_eq!(find(&re(r"(?i)[\x{41}-\x{43}]+"), "abc"), "abc");
        assert!(compile(r"(?i)[\x{0}-\x{10FFFF}]").is_ok());
        assert!(compile(r"(?i)[^\x{0}-\x{10FFFF}]").is_ok());
        assert!(compile(r"(?i)[a-z]{1000}").is_ok());
    }

    #[test]
    fn case_fold_scoped_flags() {
        assert_eq!(find(&re("(?i:a)b"), "AB Ab"), "Ab");
        assert_eq!(find(&re("(?i)a(?-i)b"), "AB Ab"), "Ab");
        assert_eq!(find(&re("(?i)a(?-i:b)c"), "ABC AbC"), "AbC");
        assert_eq!(find(&re("(a(?i)b)c"), "aBC aBc"), "aBc");
        assert_eq!(find(&re("(?i)(a)|b"), "B"), "B");
        assert_eq!(find(&re("(?is)a.b"), "A\nB"), "A\nB");
        assert_eq!(find(&re("(?i-s:a.b)"), "A\nB AxB"), "AxB");
        assert_eq!(find(&re("(?i)(?P<n>k)"), "\u{212a}"), "\u{212a}");
        assert_eq!(find(&re("(?i)(?<kk>k)"), "K"), "K");
        assert_eq!(find(&re("(?m)^b$"), "a\nb"), "b");
        assert_eq!(find(&re("(?U)a+"), "aaa"), "a");
        assert_eq!(find(&re("a+?"), "aaa"), "a");
        assert_eq!(find(&re(r"\Aab\z"), "ab"), "ab");
        assert_eq!(find(&re("."), "日"), "日");
        assert_eq!(find(&re("a.b"), "a\nb"), "");
        assert!(compile(r"\pL").is_err());
        assert!(compile(r"[\pL]").is_err());
        assert!(compile(r"(?i)[\p{Greek}]").is_err());
        assert_eq!(
            err("[[:foo:]]"),
            "error parsing regexp: invalid character class range: `[:foo:]`"
        );
        assert_eq!(
            err("[z-a]"),
            "error parsing regexp: invalid character class range: `z-a`"
        );
    }
}
