//! [`Doc::parse`]'s reader: a text to a tape in one pass, iteratively (any depth up to the caller's limit, on any
//! stack), with serde_json's grammar, escapes and numbers (see the crate documentation).
//!
//! Written for the shape of Kubernetes JSON: short keys and strings (eight bytes tested at a time for a quote, a
//! backslash or a control character, and the first one found is jumped to), pretty-printed indentation (runs of
//! spaces skipped eight at a time), few numbers. Internal steps answer `Result<(), Refused>` (one bit: results stay in
//! registers) and note what was wrong in the parser.

use crate::{Node, ParseError, Tag};

const ONES: u64 = 0x0101_0101_0101_0101;
/// The literals' first four bytes as little-endian words ([`Parser::literal`]).
const NULL: u32 = u32::from_le_bytes(*b"null");
const TRUE: u32 = u32::from_le_bytes(*b"true");
const FALS: u32 = u32::from_le_bytes(*b"fals");
const HIGH: u64 = 0x8080_8080_8080_8080;

/// The high bit of each zero byte of `v` (exact for the lowest one; a borrow may flag bytes above it).
#[inline]
fn has_zero(v: u64) -> u64 {
    v.wrapping_sub(ONES) & !v & HIGH
}

/// The eight bytes of `bytes` from `at`, little-endian, when there are eight.
#[inline(always)]
pub(crate) fn word_at(bytes: &[u8], at: usize) -> Option<u64> {
    let w = bytes.get(at..at.wrapping_add(8))?;
    <[u8; 8]>::try_from(w).ok().map(u64::from_le_bytes)
}

/// The position of the next byte from `at` that is not whitespace (the text's length when there is none). Runs of
/// spaces, the indentation of pretty-printed JSON, are skipped eight at a time. A free function of a position held
/// in a local, not a parser field, so that the reading loop keeps the position in a register.
#[inline(always)]
fn skip_space(bytes: &[u8], mut at: usize) -> usize {
    while let Some(&b) = bytes.get(at) {
        if b > b' ' {
            break;
        }
        match b {
            b' ' => match word_at(bytes, at) {
                Some(w) => {
                    let rest = w ^ (ONES * u64::from(b' '));
                    at += if rest == 0 {
                        8
                    } else {
                        (rest.trailing_zeros() / 8) as usize
                    };
                }
                None => at += 1,
            },
            b'\n' | b'\t' | b'\r' => at += 1,
            _ => break,
        }
    }
    at
}

/// The position of the next byte of a string from `at` that needs attention (`"`, `\\` or a control character),
/// eight bytes at a time; the text's length when there is none.
#[inline(always)]
fn skip_plain(bytes: &[u8], mut at: usize) -> usize {
    while let Some(x) = word_at(bytes, at) {
        let special = has_zero(x ^ (ONES * u64::from(b'"')))
            | has_zero(x ^ (ONES * u64::from(b'\\')))
            | (x.wrapping_sub(ONES * 0x20) & !x & HIGH);
        if special != 0 {
            // exact for the lowest flagged byte: no borrow reaches it from below
            return at + (special.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    while let Some(&b) = bytes.get(at) {
        if b == b'"' || b == b'\\' || b < 0x20 {
            break;
        }
        at += 1;
    }
    at
}

/// The largest text read: every node, side-string byte and element position then has a `u32` index (a node takes at
/// least one byte of text, an array's positions at most one per node plus its length).
const MAX_TEXT: usize = (u32::MAX / 2) as usize;

/// A refusal, its words and position noted in [`Parser::error`].
struct Refused;

type R = Result<(), Refused>;

/// What one reading lays out: nodes, the side string of unescaped strings, the array element positions, and where in
/// the text each value directly inside the top container is (node, start, end).
pub(crate) struct Parsed {
    pub(crate) nodes: Vec<Node>,
    pub(crate) escaped: String,
    pub(crate) elements: Vec<u32>,
    pub(crate) spans: Vec<[u32; 3]>,
}

/// Read `text` into a tape, at most `max_depth` nested lists and maps.
pub(crate) fn parse(text: &str, max_depth: usize) -> Result<Parsed, ParseError> {
    if text.len() > MAX_TEXT {
        return Err(ParseError {
            message: "document too large",
            offset: 0,
        });
    }
    // The small vectors first and the nodes last, sized for Kubernetes JSON (a node per 8 bytes of compact JSON or
    // fewer, an array element per 128), so that a reading seldom grows a vector (each growth is a copy, and new pages
    // in a fresh instance); the nodes' unused room is given back when the reading ends, so that what is allocated
    // next shares the tape's last page (a fresh instance of a baked module faults once per page it touches).
    let elements = Vec::with_capacity(text.len() / 128 + 16);
    let scratch = Vec::with_capacity(64);
    let spans = Vec::with_capacity(16);
    let mut stack = Vec::with_capacity(32);
    let mut p = Parser {
        bytes: text.as_bytes(),
        at: 0,
        nodes: Vec::with_capacity(text.len() / 8 + 1),
        escaped: String::new(),
        elements,
        scratch,
        spans,
        error: ParseError {
            message: "",
            offset: 0,
        },
    };
    let read = p.run(max_depth, &mut stack);
    drop(stack);
    match read {
        Ok(()) => Ok(Parsed {
            nodes: {
                p.nodes.shrink_to_fit();
                p.nodes
            },
            escaped: p.escaped,
            elements: p.elements,
            spans: p.spans,
        }),
        Err(Refused) => Err(p.error),
    }
}

struct Frame {
    node: u32,
    object: bool,
    count: u32,
    /// arrays: where this array's element positions start in the parser's scratch stack
    scratch: usize,
}

struct Parser<'t> {
    bytes: &'t [u8],
    at: usize,
    nodes: Vec<Node>,
    escaped: String,
    elements: Vec<u32>,
    scratch: Vec<u32>,
    spans: Vec<[u32; 3]>,
    error: ParseError,
}

impl Parser<'_> {
    #[cold]
    fn fail(&mut self, message: &'static str) -> R {
        self.error = ParseError {
            message,
            offset: self.at,
        };
        Err(Refused)
    }

    /// [`Parser::fail`] at `at`.
    #[cold]
    fn fail_at<T>(&mut self, at: usize, message: &'static str) -> Result<T, Refused> {
        self.at = at;
        self.fail(message)?;
        Err(Refused)
    }

    /// The next node's index (below `u32::MAX`: [`MAX_TEXT`]).
    #[inline]
    fn next_id(&self) -> u32 {
        self.nodes.len() as u32
    }

    #[inline]
    fn push(&mut self, tag: Tag, a: u32, b: u32) {
        self.nodes.push(Node { tag, a, b });
    }

    /// A string whose opening quote is at `at`: a slice of the text unless it has an escape. Answers the position
    /// after its closing quote.
    #[inline(always)]
    fn string_at(&mut self, at: usize) -> Result<usize, Refused> {
        let start = at + 1;
        let end = skip_plain(self.bytes, start);
        if self.bytes.get(end) == Some(&b'"') {
            self.push(Tag::Str, start as u32, (end - start) as u32);
            Ok(end + 1)
        } else {
            self.at = end;
            self.string_rest(start)?;
            Ok(self.at)
        }
    }

    /// A string stopped at an escape, a control character or the end of the text.
    #[inline(never)]
    fn string_rest(&mut self, start: usize) -> R {
        match self.bytes.get(self.at) {
            None => self.fail("eof while parsing a string"),
            Some(b'\\') => self.escaped_string(start),
            Some(_) => self.fail("control character while parsing a string"),
        }
    }

    /// The rest of a string that has an escape at `self.at`, unescaped into the side string.
    fn escaped_string(&mut self, start: usize) -> R {
        let from = self.escaped.len();
        let mut run = start;
        loop {
            self.at = skip_plain(self.bytes, self.at);
            match self.bytes.get(self.at) {
                None => return self.fail("eof while parsing a string"),
                Some(b'"') => {
                    self.flush(run)?;
                    let len = self.escaped.len() - from;
                    self.push(Tag::EscStr, from as u32, len as u32);
                    self.at += 1;
                    return Ok(());
                }
                Some(b'\\') => {
                    self.flush(run)?;
                    self.at += 1;
                    self.escape()?;
                    run = self.at;
                }
                Some(_) => return self.fail("control character while parsing a string"),
            }
        }
    }

    /// Copy the unescaped run `run..self.at` of the text to the side string.
    fn flush(&mut self, run: usize) -> R {
        match self
            .bytes
            .get(run..self.at)
            .and_then(|b| std::str::from_utf8(b).ok())
        {
            Some(s) => {
                self.escaped.push_str(s);
                Ok(())
            }
            None => self.fail("invalid unicode code point"),
        }
    }

    fn hex4(&mut self) -> Result<u32, Refused> {
        let mut n = 0u32;
        for _ in 0..4 {
            let Some(&b) = self.bytes.get(self.at) else {
                self.fail("eof while parsing a string")?;
                return Err(Refused);
            };
            let d = match b {
                b'0'..=b'9' => b - b'0',
                b'a'..=b'f' => b - b'a' + 10,
                b'A'..=b'F' => b - b'A' + 10,
                _ => {
                    self.fail("invalid escape")?;
                    return Err(Refused);
                }
            };
            n = (n << 4) | u32::from(d);
            self.at += 1;
        }
        Ok(n)
    }

    /// One escape after its backslash, as serde_json reads into a `String` (surrogates must pair).
    fn escape(&mut self) -> R {
        let Some(&b) = self.bytes.get(self.at) else {
            return self.fail("eof while parsing a string");
        };
        self.at += 1;
        let c = match b {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let n = self.hex4()?;
                let code = match n {
                    0xDC00..=0xDFFF => return self.fail("lone leading surrogate in hex escape"),
                    0xD800..=0xDBFF => {
                        if self.bytes.get(self.at..self.at + 2) != Some(b"\\u") {
                            return self.fail("unexpected end of hex escape");
                        }
                        self.at += 2;
                        let n2 = self.hex4()?;
                        if !(0xDC00..=0xDFFF).contains(&n2) {
                            return self.fail("lone leading surrogate in hex escape");
                        }
                        0x1_0000 + ((n - 0xD800) << 10) + (n2 - 0xDC00)
                    }
                    n => n,
                };
                match char::from_u32(code) {
                    Some(c) => c,
                    None => return self.fail("invalid unicode code point"),
                }
            }
            _ => return self.fail("invalid escape"),
        };
        self.escaped.push(c);
        Ok(())
    }

    /// `null`, `true` or `false` at `self.at`: its first four bytes as one little-endian word and `false`'s fifth,
    /// compared as immediates (not read from a static: in a fresh instance of a baked module that read would fault a
    /// page of the image in, and a slice comparison would be a call to `memcmp`).
    fn literal(&mut self, four: u32, fifth: Option<u8>, tag: Tag) -> R {
        let end = self.at + 4 + usize::from(fifth.is_some());
        let same = self.bytes.get(self.at..end).is_some_and(|have| {
            have.first_chunk::<4>().map(|w| u32::from_le_bytes(*w)) == Some(four)
                && have.get(4).copied() == fifth
        });
        if same {
            self.at = end;
            self.push(tag, 0, 0);
            Ok(())
        } else {
            self.fail("expected ident")
        }
    }

    /// A number starting at `self.at`, with serde_json's grammar and its conversions.
    fn number(&mut self) -> R {
        let start = self.at;
        let negative = self.bytes.get(self.at) == Some(&b'-');
        if negative {
            self.at += 1;
        }
        let digits = |p: &mut Self| {
            let from = p.at;
            while matches!(p.bytes.get(p.at), Some(b'0'..=b'9')) {
                p.at += 1;
            }
            p.at - from
        };
        match self.bytes.get(self.at) {
            Some(b'0') => {
                self.at += 1;
                if matches!(self.bytes.get(self.at), Some(b'0'..=b'9')) {
                    return self.fail("invalid number");
                }
            }
            Some(b'1'..=b'9') => {
                digits(self);
            }
            None => return self.fail("eof while parsing a value"),
            Some(_) => return self.fail("invalid number"),
        }
        let int_end = self.at;
        let mut float = false;
        if self.bytes.get(self.at) == Some(&b'.') {
            self.at += 1;
            float = true;
            if digits(self) == 0 {
                return self.fail("invalid number");
            }
        }
        if matches!(self.bytes.get(self.at), Some(b'e' | b'E')) {
            self.at += 1;
            float = true;
            if matches!(self.bytes.get(self.at), Some(b'+' | b'-')) {
                self.at += 1;
            }
            if digits(self) == 0 {
                return self.fail("invalid number");
            }
        }
        let token = self.bytes.get(start..self.at).unwrap_or_default();
        if !float {
            let int_digits = self
                .bytes
                .get(start + usize::from(negative)..int_end)
                .unwrap_or_default();
            let digit = |d: &u8| u64::from(d - b'0');
            // up to 19 digits cannot overflow: plain arithmetic (a checked multiplication is a 128-bit one, a call, in
            // wasm32)
            let significand = if int_digits.len() <= 19 {
                Some(int_digits.iter().fold(0u64, |s, d| s * 10 + digit(d)))
            } else {
                int_digits.iter().try_fold(0u64, |s, d| {
                    s.checked_mul(10).and_then(|s| s.checked_add(digit(d)))
                })
            };
            if let Some(s) = significand {
                let node = if !negative {
                    Node::of_bits(Tag::U64, s)
                } else {
                    let neg = (s as i64).wrapping_neg();
                    if neg >= 0 {
                        // `-0` and below i64::MIN: a double, as serde_json reads them
                        Node::of_bits(Tag::F64, (-(s as f64)).to_bits())
                    } else {
                        Node::of_bits(Tag::I64, neg as u64)
                    }
                };
                self.nodes.push(node);
                return Ok(());
            }
        }
        // fractions, exponents, integers beyond 64 bits: the exact double (the syntax is checked above; a value past the
        // largest double is refused, as serde_json and Go's strconv refuse it)
        let parsed = std::str::from_utf8(token)
            .ok()
            .and_then(cel_core::parse_f64)
            .filter(|f| f.is_finite());
        match parsed {
            Some(f) => {
                self.nodes.push(Node::of_bits(Tag::F64, f.to_bits()));
                Ok(())
            }
            None => {
                self.at = start;
                self.fail("number out of range")
            }
        }
    }

    /// A key (a string) and its colon, inside an object, from `at`: answers the position after the colon.
    #[inline(always)]
    fn key_at(&mut self, at: usize) -> Result<usize, Refused> {
        let at = skip_space(self.bytes, at);
        let at = match self.bytes.get(at) {
            Some(b'"') => self.string_at(at)?,
            None => return self.fail_at(at, "eof while parsing an object"),
            Some(_) => return self.fail_at(at, "key must be a string"),
        };
        let at = skip_space(self.bytes, at);
        match self.bytes.get(at) {
            Some(b':') => Ok(at + 1),
            None => self.fail_at(at, "eof while parsing an object"),
            Some(_) => self.fail_at(at, "expected `:`"),
        }
    }

    /// Close the container of `frame`, whose last value was just read.
    #[inline(always)]
    fn close(&mut self, frame: &Frame) {
        let end = self.next_id();
        let b = if frame.object {
            frame.count
        } else {
            let at = self.elements.len() as u32;
            self.elements.push(frame.count);
            self.elements.extend(self.scratch.drain(frame.scratch..));
            at
        };
        if let Some(n) = self.nodes.get_mut(frame.node as usize) {
            n.a = end;
            n.b = b;
        }
    }

    /// The reading loop. The position is a local here (the scans are free functions of it), so that it stays in a
    /// register; the rarer readers (escapes, numbers, literals) take it through `self.at`.
    fn run(&mut self, max_depth: usize, stack: &mut Vec<Frame>) -> R {
        let bytes = self.bytes;
        let mut at = self.at;
        // the node and start of the value being read directly inside the top container
        let mut top_member = [0, 0];
        'value: loop {
            if let Some(frame) = stack.last()
                && !frame.object
            {
                let id = self.next_id();
                self.scratch.push(id);
            }
            at = skip_space(bytes, at);
            if stack.len() == 1 {
                top_member = [self.next_id(), at as u32];
            }
            match bytes.get(at) {
                None => return self.fail_at(at, "eof while parsing a value"),
                Some(b'"') => at = self.string_at(at)?,
                Some(&open @ (b'[' | b'{')) => {
                    if stack.len() >= max_depth {
                        return self.fail_at(at, "recursion limit exceeded");
                    }
                    at += 1;
                    let object = open == b'{';
                    let node = self.next_id();
                    self.push(if object { Tag::Object } else { Tag::Array }, 0, 0);
                    let close = if object { b'}' } else { b']' };
                    at = skip_space(bytes, at);
                    if bytes.get(at) == Some(&close) {
                        at += 1;
                        let empty = Frame {
                            node,
                            object,
                            count: 0,
                            scratch: self.scratch.len(),
                        };
                        self.close(&empty);
                    } else {
                        if object {
                            at = self.key_at(at)?;
                        }
                        stack.push(Frame {
                            node,
                            object,
                            count: 1,
                            scratch: self.scratch.len(),
                        });
                        continue 'value;
                    }
                }
                Some(b) => {
                    self.at = at;
                    match b {
                        b'n' => self.literal(NULL, None, Tag::Null)?,
                        b't' => self.literal(TRUE, None, Tag::True)?,
                        b'f' => self.literal(FALS, Some(b'e'), Tag::False)?,
                        b'-' | b'0'..=b'9' => self.number()?,
                        _ => return self.fail("expected value"),
                    }
                    at = self.at;
                }
            }
            // after a value: close every container it completes, or go on with the next element
            loop {
                if stack.len() == 1 {
                    let [node, start] = top_member;
                    self.spans.push([node, start, at as u32]);
                }
                at = skip_space(bytes, at);
                let Some(frame) = stack.last_mut() else {
                    return match bytes.get(at) {
                        None => Ok(()),
                        Some(_) => self.fail_at(at, "trailing characters"),
                    };
                };
                let object = frame.object;
                match bytes.get(at) {
                    Some(b',') => {
                        at += 1;
                        frame.count += 1;
                        if object {
                            at = self.key_at(at)?;
                        }
                        continue 'value;
                    }
                    Some(b'}') if object => {}
                    Some(b']') if !object => {}
                    None if object => return self.fail_at(at, "eof while parsing an object"),
                    None => return self.fail_at(at, "eof while parsing a list"),
                    Some(_) if object => return self.fail_at(at, "expected `,` or `}`"),
                    Some(_) => return self.fail_at(at, "expected `,` or `]`"),
                }
                at += 1;
                if let Some(frame) = stack.pop() {
                    self.close(&frame);
                }
            }
        }
    }
}
