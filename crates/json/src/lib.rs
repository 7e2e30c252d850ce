//! JSON documents as a tape: the request objects Palisade evaluates, read with no allocation per node.
//!
//! A [`Doc`] is one node of a tape: one flat `Vec` of 12-byte nodes in document order, the text its strings are slices
//! of, a side string for the strings that are not such slices (they had escapes, or came from elsewhere) and one table
//! of array element positions (so `list[i]` is O(1)). Tapes are shared: the request objects are nodes of the tape of
//! their whole review ([`Doc::subtree`]), and documents read from one input point into one copy of it. A container
//! node records the index one past its last descendant, so a reader skips a sibling in O(1). Reading, writing
//! ([`Ref::to_json`]) and dropping never recurse, so documents as deep as kube-apiserver sends (10,000 levels) are
//! safe on a wasm host's stack.
//!
//! Three ways in, one layout: [`Doc::parse`] / [`Doc::parse_shared`] read a text on their own (`parse`: eight bytes at
//! a time where they can, iteratively, to a depth the caller sets) — how a whole review is read; a `Doc` field of a
//! serde type is built from the deserializer's events in the pass that reads the whole input (`build`: how a review
//! that the tape reading leaves to serde_json reads its objects); [`Doc::from_value`] lays out a `serde_json::Value`
//! without recursion (objects nested deeper than serde_json reads).
//!
//! What is accepted, refused and how numbers read is serde_json's `Value`, exactly (checked against it as an oracle
//! by the unit tests and the `review_reader` fuzz target): the same grammar, escapes (paired surrogates only), control
//! characters, number syntax and range (`1e400` is refused), and the same numbers: a non-negative integer that fits is
//! a `u64`, a negative one an `i64`, anything else (`-0`, fractions, exponents, integers beyond 64 bits) the exact
//! `f64`, as Go's `strconv.ParseFloat` gives kube-apiserver (`cel_core::parse_f64`). serde_json's default reading may
//! be one unit in the last place off (`1.38e-23` as `1.3799999999999998e-23`), so the oracles compare doubles with
//! [`same_but_doubles`]; a [`Doc`] deserialized through serde ([`build`]) has serde_json's doubles. The view of an object is a `serde_json::Map`'s: a key given twice reads its last value
//! ([`Ref::member`]) and [`Ref::sorted_members`] lists the keys sorted, once each; [`Ref::pick`] reads an object's
//! named fields as a serde derive reads a struct (a field written twice refused). An input's bytes are checked for
//! UTF-8 with [`is_utf8`] / [`utf8_string`], eight bytes to a word. A [`Text`] keeps one string of a document
//! without copying it (its tape stays shared): how a review's own fields are held.

use std::fmt;
use std::sync::Arc;

use serde_json::Value;

mod build;
mod parse;
pub mod sort;
mod text;

pub use text::Text;

/// The deepest document [`Doc::parse`] reads: Go's `encoding/json` scanner, and so kube-apiserver, accepts 10,000
/// nested lists and maps.
pub const MAX_DEPTH: usize = 10_000;

/// How many nested lists and maps serde_json's `Value` reads: [`Doc::parse_with_depth`] with it accepts and refuses
/// what `serde_json::from_str::<Value>` does (the oracle tests hold it), with doubles read exactly.
pub const SERDE_JSON_DEPTH: usize = 127;

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

/// What [`Doc::node`] reads past the end of a tape.
const NULL_NODE: Node = Node {
    tag: Tag::Null,
    a: 0,
    b: 0,
};

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

/// A JSON document read into a tape (see the module documentation): one node of a tape, the tape shared (a request
/// object is a node of the tape of its whole review).
#[derive(Clone)]
pub struct Doc {
    tape: Arc<Tape>,
    root: u32,
}

/// The nodes of one reading.
struct Tape {
    /// The text `Tag::Str` nodes are slices of: the whole input a document was read from, shared by every document
    /// read from it ([`reading_source`]).
    text: Arc<String>,
    nodes: Vec<Node>,
    escaped: String,
    /// For each array: its length, then the node index of each element.
    elements: Vec<u32>,
    /// Where each value directly inside the top container is in `text` (node, start, end): parsed documents only.
    spans: Vec<[u32; 3]>,
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
        Doc::parse_shared(&Arc::new(text), max_depth)
    }

    /// [`Doc::parse_with_depth`] of a shared text: the document's strings are slices of it (no copy).
    pub fn parse_shared(text: &Arc<String>, max_depth: usize) -> Result<Doc, ParseError> {
        let parsed = parse::parse(text, max_depth)?;
        Ok(Doc::whole(Tape {
            text: Arc::clone(text),
            nodes: parsed.nodes,
            escaped: parsed.escaped,
            elements: parsed.elements,
            spans: parsed.spans,
        }))
    }

    /// The document whose root is the first node of `tape`.
    fn whole(tape: Tape) -> Doc {
        Doc {
            tape: Arc::new(tape),
            root: 0,
        }
    }

    /// The node `r` of this document's tape as a document of its own (the tape shared, nothing copied).
    pub fn subtree(r: Ref<'_>) -> Doc {
        Doc {
            tape: Arc::clone(&r.doc.tape),
            root: r.id,
        }
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
        &self.tape.text
    }

    /// At least the length, in bytes, of every string in this document and the number of entries of every list and
    /// map in it (of its whole tape: the text, the unescaped strings and the nodes together). O(1).
    pub fn size_bound(&self) -> u64 {
        let t = &self.tape;
        (t.text.len() as u64)
            .saturating_add(t.escaped.len() as u64)
            .saturating_add(t.nodes.len() as u64)
    }

    /// The top node.
    pub fn root(&self) -> Ref<'_> {
        Ref {
            doc: self,
            id: self.root,
        }
    }

    /// The document as a `serde_json::Value` (for consumers that need one; not on the evaluation path).
    pub fn to_value(&self) -> Value {
        self.root().to_value()
    }

    #[inline]
    fn node(&self, id: u32) -> Node {
        // a reference chosen, then read: a default chosen by value is built in memory first
        *self.tape.nodes.get(id as usize).unwrap_or(&NULL_NODE)
    }

    /// One past the last node of the subtree at `id`.
    #[inline]
    fn end(&self, id: u32) -> u32 {
        let n = self.node(id);
        match n.tag {
            Tag::Array | Tag::Object => n.a,
            _ => id + 1,
        }
    }

    /// The bytes of an object's key node, which is always a string: the text or the side string chosen without a
    /// jump (a key is read for every member an object search passes).
    #[inline]
    fn key_bytes(&self, n: Node) -> &[u8] {
        let (a, b) = (n.a as usize, n.b as usize);
        let from = if n.tag == Tag::EscStr {
            &self.tape.escaped
        } else {
            &self.tape.text
        };
        from.as_bytes().get(a..a + b).unwrap_or_default()
    }

    #[inline]
    fn str_of(&self, n: Node) -> &str {
        let (a, b) = (n.a as usize, n.b as usize);
        let s = match n.tag {
            Tag::Str => self.tape.text.get(a..a + b),
            Tag::EscStr => self.tape.escaped.get(a..a + b),
            _ => None,
        };
        s.unwrap_or_default()
    }

    /// The string the top node is (`None` for other nodes), read without dispatching on every kind of node.
    pub(crate) fn root_str(&self) -> Option<&str> {
        let n = self.node(self.root);
        (n.tag == Tag::Str || n.tag == Tag::EscStr).then(|| self.str_of(n))
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
    #[inline]
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

    #[inline]
    pub fn is_null(self) -> bool {
        self.doc.node(self.id).tag == Tag::Null
    }

    /// The string, if the node is one.
    #[inline]
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

    /// The node's text as written in the input, for a value directly inside the top container of a parsed document
    /// ([`Doc::parse_shared`]), `None` for any other node: what a reader that keeps a member as text needs (the
    /// Kubewarden settings, recognised by their bytes).
    pub fn raw_text(self) -> Option<&'a str> {
        let tape = &self.doc.tape;
        let [_, start, end] = tape.spans.iter().find(|s| s[0] == self.id)?;
        tape.text.get(*start as usize..*end as usize)
    }

    /// Elements of an array, members of an object (each key counted as often as it is written), 0 otherwise.
    pub fn len(self) -> usize {
        let n = self.doc.node(self.id);
        match n.tag {
            Tag::Array => self
                .doc
                .tape
                .elements
                .get(n.b as usize)
                .copied()
                .unwrap_or(0) as usize,
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
        let id = *self.doc.tape.elements.get(at)?;
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
                .tape
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
        let nodes = &doc.tape.nodes;
        let key = key.as_bytes();
        let mut found = None;
        let (mut at, end) = (self.id as usize + 1, n.a as usize);
        while at < end {
            let (Some(&k), Some(&v)) = (nodes.get(at), nodes.get(at + 1)) else {
                break;
            };
            // a key node's `b` is its length: most keys are told apart without reading their text
            if k.b as usize == key.len() && same_bytes(doc.key_bytes(k), key) {
                found = Some(at + 1);
            }
            at = match v.tag {
                Tag::Array | Tag::Object => v.a as usize,
                _ => at + 2,
            };
        }
        found.map(|id| Ref { doc, id: id as u32 })
    }

    /// The values of the members named in `names` (each entry a name and its aliases), into `found` at the same
    /// index: what a serde derive reads of a struct. `None` when this is not an object, when a field is written twice
    /// (under any of its names: serde refuses a duplicate field) or, with `deny_unknown`, when another key is written;
    /// other keys are skipped. `found` must be as long as `names`.
    ///
    /// Objects are usually written in the order their fields are declared, which is the order of `names`: the names
    /// are tried from the one after the last one found (so an omitted field costs nothing), and lengths are compared
    /// before bytes.
    pub fn pick(
        self,
        names: &[&[&str]],
        deny_unknown: bool,
        found: &mut [Option<Ref<'a>>],
    ) -> Option<()> {
        let doc = self.doc;
        let n = doc.node(self.id);
        if n.tag != Tag::Object {
            return None;
        }
        let nodes = &doc.tape.nodes;
        let (mut at, end) = (self.id as usize + 1, n.a as usize);
        let mut next = 0;
        while at < end {
            let (Some(&k), Some(&v)) = (nodes.get(at), nodes.get(at + 1)) else {
                break;
            };
            let key = doc.key_bytes(k);
            let value = (at + 1) as u32;
            at = match v.tag {
                Tag::Array | Tag::Object => v.a as usize,
                _ => at + 2,
            };
            let named = |aliases: &[&str]| {
                aliases
                    .iter()
                    .any(|a| a.len() == key.len() && same_bytes(a.as_bytes(), key))
            };
            // from the name after the last one found (an omitted field is skipped over), then the ones before it
            let index = names
                .get(next..)
                .and_then(|rest| rest.iter().position(|aliases| named(aliases)))
                .map(|i| i + next)
                .or_else(|| {
                    names
                        .get(..next)
                        .and_then(|done| done.iter().position(|aliases| named(aliases)))
                });
            match index {
                Some(i) => {
                    next = i + 1;
                    let slot = found.get_mut(i)?;
                    if slot.is_some() {
                        return None;
                    }
                    *slot = Some(Ref { doc, id: value });
                }
                None if deny_unknown => return None,
                None => {}
            }
        }
        Some(())
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
        self.sorted_members().len() != self.members().count()
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

/// How many leading bytes of `bytes` are ASCII, counted in whole blocks of 32 bytes read as four 64-bit words (wasm32's
/// standard routines read 32-bit words, about twice the instructions per byte). Kubernetes JSON is almost all ASCII;
/// a block boundary before the first byte above 0x7f is a character boundary.
#[inline]
fn ascii_blocks(bytes: &[u8]) -> usize {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let word = |c: &[u8]| <[u8; 8]>::try_from(c).map_or(HIGH, u64::from_le_bytes);
    let mut ascii = 0;
    for block in bytes.chunks_exact(32) {
        let (a, rest) = block.split_at(8);
        let (b, rest) = rest.split_at(8);
        let (c, d) = rest.split_at(8);
        if (word(a) | word(b) | word(c) | word(d)) & HIGH != 0 {
            break;
        }
        ascii += 32;
    }
    ascii
}

/// Whether `bytes` are UTF-8, as `std::str::from_utf8` answers: the standard check runs from the first block with a
/// byte above 0x7f on ([`ascii_blocks`]). Not inlined: compiled with this crate's optimisation level.
#[inline(never)]
pub fn is_utf8(bytes: &[u8]) -> bool {
    bytes
        .get(ascii_blocks(bytes)..)
        .is_some_and(|rest| std::str::from_utf8(rest).is_ok())
}

/// The length of `s` in Unicode code points, as `s.chars().count()` answers (CEL's `size()` of a string, and what
/// cel-go's cost tracker charges by): only what follows the ASCII blocks is decoded ([`ascii_blocks`]). Not inlined:
/// compiled with this crate's optimisation level.
#[inline(never)]
pub fn char_count(s: &str) -> usize {
    let ascii = ascii_blocks(s.as_bytes());
    ascii + s.get(ascii..).map_or(0, |rest| rest.chars().count())
}

/// `bytes` as a `String` when they are UTF-8: copied once and checked once, by [`is_utf8`] (`String::from_utf8` would
/// check them with wasm32's slower standard check).
pub fn utf8_string(bytes: &[u8]) -> Option<String> {
    utf8_string_and(bytes, "")
}

/// [`utf8_string`] of `bytes` followed by `suffix`, in one allocation: for a reader that completes a text it cut
/// (growing the string afterwards would copy it again).
#[expect(
    unsafe_code,
    reason = "the bytes were just checked by is_utf8, which answers as std::str::from_utf8 (tested against it), \
              and the suffix is a str"
)]
pub fn utf8_string_and(bytes: &[u8], suffix: &str) -> Option<String> {
    if !is_utf8(bytes) {
        return None;
    }
    let mut text = Vec::with_capacity(bytes.len() + suffix.len());
    text.extend_from_slice(bytes);
    text.extend_from_slice(suffix.as_bytes());
    // SAFETY: `is_utf8` answered true for the bytes, and the suffix is UTF-8: so is the whole.
    Some(unsafe { String::from_utf8_unchecked(text) })
}

/// Whether two strings are equal, compared as [`Ref::member`] compares keys: eight bytes at a time, not through
/// `memcmp` (a byte loop on wasm32), for callers that match object keys against names. Not inlined: compiled here,
/// with this crate's optimisation level, whatever the caller's.
#[inline(never)]
pub fn same_str(x: &str, y: &str) -> bool {
    same_bytes(x.as_bytes(), y.as_bytes())
}

/// Whether two byte strings are equal, compared as [`same_str`] compares, for long texts compared on every call (the
/// Kubewarden settings, which arrive with every request): `==` on slices is a call to `memcmp`, a byte loop on wasm32
/// (about 20 instructions a byte). 32 bytes are compared at a time as four 64-bit words, as [`is_utf8`] reads them,
/// and the rest as [`same_str`] compares. Not inlined, as [`same_str`].
#[inline(never)]
pub fn equal_bytes(x: &[u8], y: &[u8]) -> bool {
    if x.len() != y.len() {
        return false;
    }
    let word = |c: &[u8]| <[u8; 8]>::try_from(c).map_or(0, u64::from_le_bytes);
    let (xs, ys) = (x.chunks_exact(32), y.chunks_exact(32));
    let rest = (xs.remainder(), ys.remainder());
    for (a, b) in xs.zip(ys) {
        let (a0, a) = a.split_at(8);
        let (a1, a) = a.split_at(8);
        let (a2, a3) = a.split_at(8);
        let (b0, b) = b.split_at(8);
        let (b1, b) = b.split_at(8);
        let (b2, b3) = b.split_at(8);
        let differ = (word(a0) ^ word(b0))
            | (word(a1) ^ word(b1))
            | (word(a2) ^ word(b2))
            | (word(a3) ^ word(b3));
        if differ != 0 {
            return false;
        }
    }
    same_bytes(rest.0, rest.1)
}

/// Whether two byte strings are equal, compared a word at a time: object keys are short, and a call to `memcmp` (a
/// byte loop on wasm32) costs more than the comparison. The last word overlaps the one before it rather than ending
/// in a loop over single bytes; strings shorter than a word are compared as two overlapping halves.
#[inline]
fn same_bytes(x: &[u8], y: &[u8]) -> bool {
    let n = x.len();
    if n != y.len() {
        return false;
    }
    if n >= 8 {
        let mut at = 0;
        while at + 8 < n {
            if word8(x, at) != word8(y, at) {
                return false;
            }
            at += 8;
        }
        return word8(x, n - 8) == word8(y, n - 8);
    }
    if n >= 4 {
        return word4(x, 0) == word4(y, 0) && word4(x, n - 4) == word4(y, n - 4);
    }
    // 0 to 3 bytes: the first, middle and last cover them all
    x.first() == y.first() && x.get(n / 2) == y.get(n / 2) && x.last() == y.last()
}

/// The eight bytes of `s` from `at` as a word (0 past the end: callers stay within).
#[inline(always)]
fn word8(s: &[u8], at: usize) -> u64 {
    parse::word_at(s, at).unwrap_or(0)
}

/// The four bytes of `s` from `at` as a word (0 past the end: callers stay within).
#[inline(always)]
fn word4(s: &[u8], at: usize) -> u32 {
    s.get(at..at + 4)
        .and_then(|w| <[u8; 4]>::try_from(w).ok())
        .map_or(0, u32::from_le_bytes)
}

/// A scalar as serde_json writes it (containers are written by [`Ref::to_json`]).
fn write_scalar(out: &mut Vec<u8>, item: Item<'_>) {
    let written = match item {
        Item::Null | Item::Array(_) | Item::Object(_) => return out.extend_from_slice(b"null"),
        Item::Bool(b) => serde_json::to_vec(&b),
        Item::I64(i) => serde_json::to_vec(&i),
        Item::U64(u) => serde_json::to_vec(&u),
        Item::F64(f) => serde_json::to_vec(&f),
        Item::Str(s) => serde_json::to_vec(s),
    };
    // serializing a scalar cannot fail
    if let Ok(bytes) = written {
        out.extend_from_slice(&bytes);
    }
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

/// Two texts (JSON, or a `Debug` of values holding it) that are the same but for doubles one unit in the last place
/// apart: what the tape's exact reading of a document and serde_json's default reading of it may differ by. For the
/// oracles of the tests and the fuzzer. A number is a run of `0-9 . e E + -` that starts with a digit or a `-`.
pub fn same_but_doubles(ours: &str, theirs: &str) -> bool {
    fn runs(text: &str) -> impl Iterator<Item = &str> {
        let numeric = |c: char| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-');
        let mut rest = text;
        std::iter::from_fn(move || {
            let first = rest.chars().next()?;
            let number = first.is_ascii_digit() || first == '-';
            let end = rest
                .find(|c: char| {
                    if number {
                        !numeric(c)
                    } else {
                        c.is_ascii_digit() || c == '-'
                    }
                })
                .unwrap_or(rest.len())
                .max(first.len_utf8());
            let (run, after) = rest.split_at(end);
            rest = after;
            Some(run)
        })
    }
    let near = |a: &str, b: &str| match (a.parse::<f64>(), b.parse::<f64>()) {
        (Ok(a), Ok(b)) => {
            a.is_finite()
                && a.is_sign_negative() == b.is_sign_negative()
                && a.to_bits().abs_diff(b.to_bits()) <= 1
        }
        _ => false,
    };
    let (mut a, mut b) = (runs(ours), runs(theirs));
    loop {
        match (a.next(), b.next()) {
            (None, None) => return true,
            (Some(x), Some(y)) if x == y || near(x, y) => {}
            _ => return false,
        }
    }
}

/// Reads with `text` as the source of the documents deserialized in `read`: a string of a [`Doc`] that serde hands over
/// as a slice of `text` (serde_json's `from_str` does for every string without escapes) is kept as a position in
/// `text`, not copied; the documents share `text`. What is read is the same with or without a source (a string from
/// anywhere else is copied, as always): only the copies are saved.
pub fn reading_source<T>(text: &Arc<String>, read: impl FnOnce(&str) -> T) -> T {
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
