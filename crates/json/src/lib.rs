//! JSON documents as a tape: the request objects Palisade evaluates, read with no allocation per node.
//!
//! A [`Doc`] holds one flat `Vec` of 12-byte nodes in document order, the text its strings are slices of (shared:
//! documents read from one input all point into one copy of it, [`reading_source`]), a side string for the strings
//! that are not such slices (they had escapes, or came from elsewhere) and one table of array element positions (so
//! `list[i]` is O(1)). A container node records the index one past its last descendant, so a reader skips a sibling
//! in O(1). Reading, writing ([`Ref::to_json`]) and dropping never recurse, so documents as deep as kube-apiserver
//! sends (10,000 levels) are safe on a wasm host's stack.
//!
//! Three ways in, one layout: a `Doc` field of a serde type is built from the deserializer's events in the pass that
//! reads the whole input (`build`: how the review's `object` and `oldObject` are read); [`Doc::from_value`] lays out
//! a `serde_json::Value` without recursion (objects nested deeper than serde_json reads); [`Doc::parse`] reads a
//! text on its own, iteratively, to 10,000 levels.
//!
//! What is accepted, refused and how numbers read is serde_json's `Value`, exactly (checked against it as an oracle
//! by the unit tests and the `review_reader` fuzz target): the same grammar, escapes (paired surrogates only), control
//! characters, number syntax and range (`1e400` is refused), and the same numbers: a non-negative integer that fits is
//! a `u64`, a negative one an `i64`, anything else (`-0`, fractions, exponents, integers beyond 64 bits) the `f64`
//! serde_json reads. The view of an object is a `serde_json::Map`'s: a key given twice reads its last value
//! ([`Ref::member`]) and [`Ref::sorted_members`] lists the keys sorted, once each.

use std::fmt;
use std::sync::Arc;

use serde_json::Value;

mod build;
pub mod sort;

/// The deepest document [`Doc::parse`] reads: Go's `encoding/json` scanner, and so kube-apiserver, accepts 10,000
/// nested lists and maps.
pub const MAX_DEPTH: usize = 10_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
enum Tag {
    Null,
    False,
    True,
    /// `a`, `b`: the high and low halves of the bits
    I64,
    U64,
    F64,
    /// `a`: start in the text, `b`: length
    Str,
    /// `a`: start in the unescaped side string, `b`: length
    EscStr,
    /// `a`: index one past the last descendant, `b`: start of the element positions in `elements`
    Array,
    /// `a`: index one past the last descendant, `b`: number of members (key node then value nodes, each)
    Object,
}

#[derive(Clone, Copy, Debug)]
struct Node {
    tag: Tag,
    a: u32,
    b: u32,
}

impl Node {
    fn bits(self) -> u64 {
        (u64::from(self.a) << 32) | u64::from(self.b)
    }
    fn of_bits(tag: Tag, bits: u64) -> Node {
        Node {
            tag,
            a: (bits >> 32) as u32,
            b: bits as u32,
        }
    }
}

/// A JSON document read into a tape (see the module documentation).
#[derive(Clone)]
pub struct Doc {
    /// The text `Tag::Str` nodes are slices of: the whole input a document was read from, shared by every document
    /// read from it ([`reading_source`]).
    text: Arc<str>,
    nodes: Vec<Node>,
    escaped: String,
    /// For each array: its length, then the node index of each element.
    elements: Vec<u32>,
}

/// Why a text is not a document [`Doc::parse`] reads: what is wrong and the byte offset where it was found. The
/// words are short on purpose: a reader that must word the refusal as serde_json does reads the text again with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub message: &'static str,
    pub offset: usize,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.message, self.offset)
    }
}

impl std::error::Error for ParseError {}

/// One node of a document as a reader sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Item<'a> {
    Null,
    Bool(bool),
    /// A negative integer that fits 64 bits.
    I64(i64),
    /// A non-negative integer that fits 64 bits.
    U64(u64),
    F64(f64),
    Str(&'a str),
    Array(Ref<'a>),
    Object(Ref<'a>),
}

/// A node of a document: a borrowed position, `Copy`.
#[derive(Clone, Copy)]
pub struct Ref<'a> {
    doc: &'a Doc,
    id: u32,
}

impl fmt::Debug for Ref<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Ref({})", self.id)
    }
}

impl PartialEq for Ref<'_> {
    /// The very same node of the very same document.
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.doc, other.doc) && self.id == other.id
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
}

type Res<T> = Result<T, ParseError>;

fn to_u32(n: usize, at: usize) -> Res<u32> {
    u32::try_from(n).map_err(|_| ParseError {
        message: "document too large",
        offset: at,
    })
}

impl<'t> Parser<'t> {
    fn fail<T>(&self, message: &'static str) -> Res<T> {
        Err(ParseError {
            message,
            offset: self.at,
        })
    }

    fn peek(&mut self) -> Option<u8> {
        while let Some(&b) = self.bytes.get(self.at) {
            if matches!(b, b' ' | b'\n' | b'\t' | b'\r') {
                self.at += 1;
            } else {
                return Some(b);
            }
        }
        None
    }

    fn push(&mut self, node: Node) -> Res<u32> {
        let id = to_u32(self.nodes.len(), self.at)?;
        self.nodes.push(node);
        Ok(id)
    }

    fn literal(&mut self, word: &[u8], tag: Tag) -> Res<()> {
        let end = self.at + word.len();
        if self.bytes.get(self.at..end) == Some(word) {
            self.at = end;
            self.push(Node { tag, a: 0, b: 0 })?;
            Ok(())
        } else {
            self.fail("expected ident")
        }
    }

    /// Skip, eight bytes at a time, the bytes of a string that need no attention (not `"`, `\\` or a control
    /// character); stops at the first word that holds one, which the caller then reads byte by byte.
    fn skip_plain(&mut self) {
        const ONES: u64 = 0x0101_0101_0101_0101;
        const HIGH: u64 = 0x8080_8080_8080_8080;
        let has_zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGH;
        while let Some(word) = self
            .bytes
            .get(self.at..self.at + 8)
            .and_then(|w| <[u8; 8]>::try_from(w).ok())
        {
            let x = u64::from_le_bytes(word);
            let special = has_zero(x ^ (ONES * u64::from(b'"')))
                | has_zero(x ^ (ONES * u64::from(b'\\')))
                | (x.wrapping_sub(ONES * 0x20) & !x & HIGH);
            if special != 0 {
                return;
            }
            self.at += 8;
        }
    }

    /// A string whose opening quote is at `self.at`.
    fn string(&mut self) -> Res<()> {
        self.at += 1;
        let start = self.at;
        loop {
            self.skip_plain();
            match self.bytes.get(self.at) {
                None => return self.fail("eof while parsing a string"),
                Some(b'"') => {
                    let node = Node {
                        tag: Tag::Str,
                        a: to_u32(start, start)?,
                        b: to_u32(self.at - start, start)?,
                    };
                    self.at += 1;
                    self.push(node)?;
                    return Ok(());
                }
                Some(b'\\') => return self.escaped_string(start),
                Some(&b) if b < 0x20 => {
                    return self.fail("control character while parsing a string");
                }
                Some(_) => self.at += 1,
            }
        }
    }

    /// The rest of a string that has an escape at `self.at`, unescaped into the side string.
    fn escaped_string(&mut self, start: usize) -> Res<()> {
        let from = self.escaped.len();
        let mut run = start;
        loop {
            self.skip_plain();
            match self.bytes.get(self.at) {
                None => return self.fail("eof while parsing a string"),
                Some(b'"') => {
                    self.flush(run)?;
                    let node = Node {
                        tag: Tag::EscStr,
                        a: to_u32(from, self.at)?,
                        b: to_u32(self.escaped.len() - from, self.at)?,
                    };
                    self.at += 1;
                    self.push(node)?;
                    return Ok(());
                }
                Some(b'\\') => {
                    self.flush(run)?;
                    self.at += 1;
                    self.escape()?;
                    run = self.at;
                }
                Some(&b) if b < 0x20 => {
                    return self.fail("control character while parsing a string");
                }
                Some(_) => self.at += 1,
            }
        }
    }

    /// Copy the unescaped run `run..self.at` of the text to the side string.
    fn flush(&mut self, run: usize) -> Res<()> {
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

    fn hex4(&mut self) -> Res<u32> {
        let mut n = 0u32;
        for _ in 0..4 {
            let Some(&b) = self.bytes.get(self.at) else {
                return self.fail("eof while parsing a string");
            };
            let d = match b {
                b'0'..=b'9' => b - b'0',
                b'a'..=b'f' => b - b'a' + 10,
                b'A'..=b'F' => b - b'A' + 10,
                _ => return self.fail("invalid escape"),
            };
            n = (n << 4) | u32::from(d);
            self.at += 1;
        }
        Ok(n)
    }

    /// One escape after its backslash, as serde_json reads into a `String` (surrogates must pair).
    fn escape(&mut self) -> Res<()> {
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

    /// A number starting at `self.at`, with serde_json's grammar and its conversions.
    fn number(&mut self) -> Res<()> {
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
            let mut significand: Option<u64> = Some(0);
            for &d in self
                .bytes
                .get(start + usize::from(negative)..int_end)
                .unwrap_or_default()
            {
                significand = significand
                    .and_then(|s| s.checked_mul(10))
                    .and_then(|s| s.checked_add(u64::from(d - b'0')));
            }
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
                self.push(node)?;
                return Ok(());
            }
        }
        // fractions, exponents, integers beyond 64 bits: serde_json's own float reading, on this token alone
        let parsed = std::str::from_utf8(token)
            .ok()
            .and_then(|t| serde_json::from_str::<f64>(t).ok());
        match parsed {
            Some(f) => {
                self.push(Node::of_bits(Tag::F64, f.to_bits()))?;
                Ok(())
            }
            None => {
                self.at = start;
                self.fail("number out of range")
            }
        }
    }

    /// A key (a string) and its colon, inside an object.
    fn key(&mut self) -> Res<()> {
        match self.peek() {
            Some(b'"') => self.string()?,
            None => return self.fail("eof while parsing an object"),
            Some(_) => return self.fail("key must be a string"),
        }
        match self.peek() {
            Some(b':') => {
                self.at += 1;
                Ok(())
            }
            None => self.fail("eof while parsing an object"),
            Some(_) => self.fail("expected `:`"),
        }
    }

    fn run(&mut self, max_depth: usize) -> Res<()> {
        let mut stack: Vec<Frame> = Vec::new();
        'value: loop {
            if let Some(frame) = stack.last()
                && !frame.object
            {
                let id = to_u32(self.nodes.len(), self.at)?;
                self.scratch.push(id);
            }
            match self.peek() {
                None => return self.fail("eof while parsing a value"),
                Some(open @ (b'[' | b'{')) => {
                    if stack.len() >= max_depth {
                        return self.fail("recursion limit exceeded");
                    }
                    self.at += 1;
                    let object = open == b'{';
                    let tag = if object { Tag::Object } else { Tag::Array };
                    let node = self.push(Node { tag, a: 0, b: 0 })?;
                    let close = if object { b'}' } else { b']' };
                    if self.peek() == Some(close) {
                        self.at += 1;
                        let end = to_u32(self.nodes.len(), self.at)?;
                        let b = if object {
                            0
                        } else {
                            let at = to_u32(self.elements.len(), self.at)?;
                            self.elements.push(0);
                            at
                        };
                        if let Some(n) = self.nodes.get_mut(node as usize) {
                            n.a = end;
                            n.b = b;
                        }
                    } else {
                        if object {
                            self.key()?;
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
                Some(b'"') => self.string()?,
                Some(b'n') => self.literal(b"null", Tag::Null)?,
                Some(b't') => self.literal(b"true", Tag::True)?,
                Some(b'f') => self.literal(b"false", Tag::False)?,
                Some(b'-' | b'0'..=b'9') => self.number()?,
                Some(_) => return self.fail("expected value"),
            }
            // after a value: close every container it completes, or go on with the next element
            loop {
                let Some(frame) = stack.last_mut() else {
                    return match self.peek() {
                        None => Ok(()),
                        Some(_) => self.fail("trailing characters"),
                    };
                };
                let close = if frame.object { b'}' } else { b']' };
                match self.peek() {
                    Some(b',') => {
                        self.at += 1;
                        frame.count += 1;
                        if frame.object {
                            self.key()?;
                        }
                        continue 'value;
                    }
                    Some(c) if c == close => {
                        self.at += 1;
                        let end = to_u32(self.nodes.len(), self.at)?;
                        let b = if frame.object {
                            frame.count
                        } else {
                            let at = to_u32(self.elements.len(), self.at)?;
                            self.elements.push(frame.count);
                            self.elements.extend(self.scratch.drain(frame.scratch..));
                            at
                        };
                        if let Some(n) = self.nodes.get_mut(frame.node as usize) {
                            n.a = end;
                            n.b = b;
                        }
                        stack.pop();
                    }
                    None if frame.object => return self.fail("eof while parsing an object"),
                    None => return self.fail("eof while parsing a list"),
                    Some(_) if frame.object => return self.fail("expected `,` or `}`"),
                    Some(_) => return self.fail("expected `,` or `]`"),
                }
            }
        }
    }
}

impl Doc {
    /// Read one JSON document, up to [`MAX_DEPTH`] levels deep.
    pub fn parse(text: &str) -> Result<Doc, ParseError> {
        Doc::parse_with_depth(text, MAX_DEPTH)
    }

    /// Read one JSON document of at most `max_depth` nested lists and maps (serde_json's `Value` reads 127).
    pub fn parse_with_depth(text: &str, max_depth: usize) -> Result<Doc, ParseError> {
        Doc::parse_owned(text.to_owned(), max_depth)
    }

    /// [`Doc::parse_with_depth`] of a text the document keeps (no copy).
    fn parse_owned(text: String, max_depth: usize) -> Result<Doc, ParseError> {
        let text: Arc<str> = Arc::from(text);
        let mut p = Parser {
            bytes: text.as_bytes(),
            at: 0,
            // about one node per 12 bytes of typical Kubernetes JSON
            nodes: Vec::with_capacity(text.len() / 12 + 1),
            escaped: String::new(),
            elements: Vec::new(),
            scratch: Vec::new(),
        };
        p.run(max_depth)?;
        let (nodes, escaped, elements) = (p.nodes, p.escaped, p.elements);
        Ok(Doc {
            text,
            nodes,
            escaped,
            elements,
        })
    }

    /// The document from a `serde_json::Value`, without recursion (any depth).
    pub fn from_value(value: &Value) -> Result<Doc, ParseError> {
        build::Builder::from_value(value).map_err(|_| ParseError {
            message: "document too large",
            offset: 0,
        })
    }

    /// The text its unescaped strings are slices of: what a parsed document was read from ([`Doc::parse`]), the whole
    /// input a document deserialized within [`reading_source`] was part of, empty otherwise.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The top node.
    pub fn root(&self) -> Ref<'_> {
        Ref { doc: self, id: 0 }
    }

    /// The document as a `serde_json::Value` (for consumers that need one; not on the evaluation path).
    pub fn to_value(&self) -> Value {
        self.root().to_value()
    }

    fn node(&self, id: u32) -> Node {
        self.nodes.get(id as usize).copied().unwrap_or(Node {
            tag: Tag::Null,
            a: 0,
            b: 0,
        })
    }

    /// One past the last node of the subtree at `id`.
    fn end(&self, id: u32) -> u32 {
        let n = self.node(id);
        match n.tag {
            Tag::Array | Tag::Object => n.a,
            _ => id + 1,
        }
    }

    fn str_of(&self, n: Node) -> &str {
        let (a, b) = (n.a as usize, n.b as usize);
        let s = match n.tag {
            Tag::Str => self.text.get(a..a + b),
            Tag::EscStr => self.escaped.get(a..a + b),
            _ => None,
        };
        s.unwrap_or_default()
    }
}

impl fmt::Debug for Doc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Doc").field(&self.root().to_json()).finish()
    }
}

impl PartialEq for Doc {
    /// Equal as serde_json values (duplicate keys read as serde_json reads them).
    fn eq(&self, other: &Self) -> bool {
        self.to_value() == other.to_value()
    }
}

impl<'a> Ref<'a> {
    /// What the node is.
    pub fn item(self) -> Item<'a> {
        let n = self.doc.node(self.id);
        match n.tag {
            Tag::Null => Item::Null,
            Tag::False => Item::Bool(false),
            Tag::True => Item::Bool(true),
            Tag::I64 => Item::I64(n.bits() as i64),
            Tag::U64 => Item::U64(n.bits()),
            Tag::F64 => Item::F64(f64::from_bits(n.bits())),
            Tag::Str | Tag::EscStr => Item::Str(self.doc.str_of(n)),
            Tag::Array => Item::Array(self),
            Tag::Object => Item::Object(self),
        }
    }

    pub fn is_null(self) -> bool {
        self.doc.node(self.id).tag == Tag::Null
    }

    /// The string, if the node is one.
    pub fn as_str(self) -> Option<&'a str> {
        match self.item() {
            Item::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The node's index in its document (with [`Ref::doc`], what identifies it).
    pub fn id(self) -> u32 {
        self.id
    }

    /// The document this node belongs to.
    pub fn doc(self) -> &'a Doc {
        self.doc
    }

    /// Elements of an array, members of an object (each key counted as often as it is written), 0 otherwise.
    pub fn len(self) -> usize {
        let n = self.doc.node(self.id);
        match n.tag {
            Tag::Array => self.doc.elements.get(n.b as usize).copied().unwrap_or(0) as usize,
            Tag::Object => n.b as usize,
            _ => 0,
        }
    }

    pub fn is_empty(self) -> bool {
        self.len() == 0
    }

    /// Element `i` of an array.
    pub fn index(self, i: usize) -> Option<Ref<'a>> {
        let n = self.doc.node(self.id);
        if n.tag != Tag::Array || i >= self.len() {
            return None;
        }
        let at = (n.b as usize).checked_add(1)?.checked_add(i)?;
        let id = *self.doc.elements.get(at)?;
        Some(Ref { doc: self.doc, id })
    }

    /// The elements of an array, in order (none for other nodes).
    pub fn elements(self) -> Elements<'a> {
        let n = self.doc.node(self.id);
        let (at, len) = if n.tag == Tag::Array {
            (n.b as usize + 1, self.len())
        } else {
            (0, 0)
        };
        Elements {
            doc: self.doc,
            ids: self
                .doc
                .elements
                .get(at..at + len)
                .unwrap_or_default()
                .iter(),
        }
    }

    /// The members of an object in document order, duplicates included (none for other nodes).
    pub fn members(self) -> Members<'a> {
        let n = self.doc.node(self.id);
        let (next, end) = if n.tag == Tag::Object {
            (self.id + 1, n.a)
        } else {
            (0, 0)
        };
        Members {
            doc: self.doc,
            next,
            end,
        }
    }

    /// The value of `key` in an object: its last occurrence, as serde_json reads duplicates.
    pub fn member(self, key: &str) -> Option<Ref<'a>> {
        let doc = self.doc;
        let n = doc.node(self.id);
        if n.tag != Tag::Object {
            return None;
        }
        let mut found = None;
        let mut at = self.id + 1;
        while at < n.a {
            let k = doc.node(at);
            // a key node's `b` is its length: most keys are told apart without reading their text
            if k.b as usize == key.len() && doc.str_of(k) == key {
                found = Some(Ref { doc, id: at + 1 });
            }
            at = doc.end(at + 1);
        }
        found
    }

    /// The members of an object as a `serde_json::Map` iterates them: sorted by key, each key once with its last
    /// value.
    pub fn sorted_members(self) -> Vec<(&'a str, Ref<'a>)> {
        let mut all: Vec<(&'a str, Ref<'a>)> = self.members().collect();
        // stable: among equal keys the last written stays last
        sort::sort_by(&mut all, |x, y| x.0.cmp(y.0));
        let mut out: Vec<(&'a str, Ref<'a>)> = Vec::with_capacity(all.len());
        for (k, v) in all {
            match out.last_mut() {
                Some(last) if last.0 == k => last.1 = v,
                _ => out.push((k, v)),
            }
        }
        out
    }

    /// Whether the object writes some key more than once.
    pub fn has_duplicate_keys(self) -> bool {
        let keys: Vec<&str> = self.members().map(|(k, _)| k).collect();
        if keys.len() <= 16 {
            keys.iter()
                .enumerate()
                .any(|(i, k)| keys.get(i + 1..).unwrap_or_default().contains(k))
        } else {
            self.sorted_members().len() != keys.len()
        }
    }

    /// How deeply lists and maps nest in this node (a scalar is 0, `[]` is 1), without recursion.
    pub fn depth(self) -> usize {
        let end = self.doc.end(self.id);
        let mut open: Vec<u32> = Vec::new();
        let mut deepest = 0;
        for id in self.id..end {
            while open.last().is_some_and(|e| *e <= id) {
                open.pop();
            }
            let n = self.doc.node(id);
            if matches!(n.tag, Tag::Array | Tag::Object) {
                open.push(n.a);
                deepest = deepest.max(open.len());
            }
        }
        deepest
    }

    /// The node as a `serde_json::Value` (built without recursion; dropping a very deep value does recurse).
    pub fn to_value(self) -> Value {
        let doc = self.doc;
        let end = doc.end(self.id);
        // open containers: the value being built, the node index it ends at, its key in its parent
        let mut stack: Vec<(Value, u32, Option<String>)> = Vec::new();
        let mut result = None;
        let mut key: Option<String> = None;
        let mut id = self.id;
        loop {
            while let Some((_, open_end, _)) = stack.last()
                && *open_end <= id
            {
                if let Some((v, _, k)) = stack.pop() {
                    attach(&mut stack, k, v, &mut result);
                }
            }
            if id >= end {
                break;
            }
            let n = doc.node(id);
            id += 1;
            if key.is_none() && matches!(stack.last(), Some((Value::Object(_), _, _))) {
                key = Some(doc.str_of(n).to_owned());
                continue;
            }
            let k = key.take();
            match n.tag {
                Tag::Array => {
                    let len = Ref { doc, id: id - 1 }.len();
                    stack.push((Value::Array(Vec::with_capacity(len)), n.a, k));
                }
                Tag::Object => stack.push((Value::Object(serde_json::Map::new()), n.a, k)),
                _ => {
                    let v = scalar_value(Ref { doc, id: id - 1 }.item());
                    attach(&mut stack, k, v, &mut result);
                }
            }
        }
        result.unwrap_or(Value::Null)
    }
}

impl Ref<'_> {
    /// The node as compact JSON text, members in document order (duplicates kept), strings and numbers as
    /// serde_json writes them; without recursion, so any depth the tape holds.
    pub fn to_json(self) -> String {
        let doc = self.doc;
        let end = doc.end(self.id);
        let mut out: Vec<u8> = Vec::new();
        // open containers: one past their last node, whether an object, whether a member or element was written
        let mut open: Vec<(u32, bool, bool)> = Vec::new();
        let mut after_key = false;
        let mut id = self.id;
        loop {
            while let Some(&(open_end, object, _)) = open.last()
                && open_end <= id
            {
                out.push(if object { b'}' } else { b']' });
                open.pop();
            }
            if id >= end {
                break;
            }
            let n = doc.node(id);
            id += 1;
            match open.last_mut() {
                Some((_, true, wrote)) if !after_key => {
                    if *wrote {
                        out.push(b',');
                    }
                    *wrote = true;
                    write_scalar(&mut out, Item::Str(doc.str_of(n)));
                    out.push(b':');
                    after_key = true;
                    continue;
                }
                Some((_, false, wrote)) => {
                    if *wrote {
                        out.push(b',');
                    }
                    *wrote = true;
                }
                _ => {}
            }
            after_key = false;
            match n.tag {
                Tag::Array => {
                    out.push(b'[');
                    open.push((n.a, false, false));
                }
                Tag::Object => {
                    out.push(b'{');
                    open.push((n.a, true, false));
                }
                _ => write_scalar(&mut out, Ref { doc, id: id - 1 }.item()),
            }
        }
        String::from_utf8(out).unwrap_or_default()
    }
}

/// A scalar as serde_json writes it (containers are written by [`Ref::to_json`]).
fn write_scalar(out: &mut Vec<u8>, item: Item<'_>) {
    let written = match item {
        Item::Null | Item::Array(_) | Item::Object(_) => {
            out.extend_from_slice(b"null");
            Ok(())
        }
        Item::Bool(b) => serde_json::to_writer(&mut *out, &b),
        Item::I64(i) => serde_json::to_writer(&mut *out, &i),
        Item::U64(u) => serde_json::to_writer(&mut *out, &u),
        Item::F64(f) => serde_json::to_writer(&mut *out, &f),
        Item::Str(s) => serde_json::to_writer(&mut *out, s),
    };
    // writing into a Vec cannot fail
    drop(written);
}

/// Put a finished value into the container open on top of `stack` (or make it the result).
fn attach(
    stack: &mut [(Value, u32, Option<String>)],
    key: Option<String>,
    value: Value,
    result: &mut Option<Value>,
) {
    match stack.last_mut() {
        Some((Value::Array(items), _, _)) => items.push(value),
        Some((Value::Object(map), _, _)) => {
            map.insert(key.unwrap_or_default(), value);
        }
        _ => *result = Some(value),
    }
}

fn scalar_value(item: Item<'_>) -> Value {
    match item {
        Item::Null | Item::Array(_) | Item::Object(_) => Value::Null,
        Item::Bool(b) => Value::Bool(b),
        Item::I64(i) => Value::from(i),
        Item::U64(u) => Value::from(u),
        Item::F64(f) => serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number),
        Item::Str(s) => Value::String(s.to_owned()),
    }
}

/// The elements of an array ([`Ref::elements`]).
pub struct Elements<'a> {
    doc: &'a Doc,
    ids: std::slice::Iter<'a, u32>,
}

impl<'a> Iterator for Elements<'a> {
    type Item = Ref<'a>;
    fn next(&mut self) -> Option<Ref<'a>> {
        let id = *self.ids.next()?;
        Some(Ref { doc: self.doc, id })
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.ids.size_hint()
    }
}

/// The members of an object in document order ([`Ref::members`]).
pub struct Members<'a> {
    doc: &'a Doc,
    next: u32,
    end: u32,
}

impl<'a> Iterator for Members<'a> {
    type Item = (&'a str, Ref<'a>);
    fn next(&mut self) -> Option<(&'a str, Ref<'a>)> {
        if self.next >= self.end {
            return None;
        }
        let key = self.doc.str_of(self.doc.node(self.next));
        let value = self.next + 1;
        self.next = self.doc.end(value);
        Some((
            key,
            Ref {
                doc: self.doc,
                id: value,
            },
        ))
    }
}

impl serde::Serialize for Doc {
    /// As JSON text ([`Ref::to_json`]: compact, members in document order, duplicates kept).
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match serde_json::value::RawValue::from_string(self.root().to_json()) {
            Ok(raw) => raw.serialize(serializer),
            Err(e) => Err(serde::ser::Error::custom(e)),
        }
    }
}

/// Reads with `text` as the source of the documents deserialized in `read`: a string of a [`Doc`] that serde hands over
/// as a slice of `text` (serde_json's `from_str` does for every string without escapes) is kept as a position in
/// `text`, not copied; the documents share `text`. What is read is the same with or without a source (a string from
/// anywhere else is copied, as always): only the copies are saved.
pub fn reading_source<T>(text: &Arc<str>, read: impl FnOnce(&str) -> T) -> T {
    let previous = build::SOURCE.with(|s| s.replace(Some(Arc::clone(text))));
    let out = read(text);
    build::SOURCE.with(|s| s.replace(previous));
    out
}

impl<'de> serde::Deserialize<'de> for Doc {
    /// In the deserializer's own pass ([`build`]): its refusals, positions and recursion limit.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Doc, D::Error> {
        build::Builder::read(deserializer)
    }
}

#[cfg(test)]
mod tests;
