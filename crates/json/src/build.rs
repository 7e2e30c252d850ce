//! A [`Doc`] built from a serde `Deserializer`'s events: how a request object is read as part of its AdmissionReview,
//! in the same pass serde_json makes over the review (no raw-text skip before it, no second parse after it).
//!
//! The events are serde_json's own, so what is accepted, refused (with serde_json's words and position) and how
//! numbers read is exactly what a `serde_json::Value` would have been; the deserializer's recursion limit (serde_json's
//! 128) holds. A string that is a slice of the declared source ([`crate::reading_source`]) is kept as its position
//! there; any other is copied once into the document's side string. Nodes and array positions are laid out as
//! [`crate::Parser`] lays them out. [`Builder::from_value`] lays out a `serde_json::Value` the same way, without
//! recursion (the deep path: objects nested deeper than serde_json reads).

use std::cell::RefCell;
use std::sync::Arc;

use serde::de::{DeserializeSeed, Deserializer, Error as _, MapAccess, SeqAccess, Visitor};

use serde_json::Value;

use crate::{Doc, Node, Tag, Tape};

thread_local! {
    /// The input being read within [`crate::reading_source`].
    pub(crate) static SOURCE: RefCell<Option<Arc<String>>> = const { RefCell::new(None) };
}

/// The document being built.
pub(crate) struct Builder {
    /// The text strings may be slices of (empty: none).
    source: Arc<String>,
    /// Copied strings.
    escaped: String,
    nodes: Vec<Node>,
    elements: Vec<u32>,
    /// element positions of the arrays still open, innermost last
    scratch: Vec<u32>,
}

fn index<E: serde::de::Error>(n: usize) -> Result<u32, E> {
    u32::try_from(n).map_err(|_| E::custom("document too large"))
}

impl Builder {
    fn new(source: Option<Arc<String>>) -> Builder {
        // sized for a typical Kubernetes object, so that small ones never grow
        Builder {
            escaped: String::with_capacity(if source.is_some() { 64 } else { 2048 }),
            source: source.unwrap_or_else(|| Arc::new(String::new())),
            nodes: Vec::with_capacity(256),
            elements: Vec::with_capacity(64),
            scratch: Vec::with_capacity(64),
        }
    }

    fn finish(self) -> Doc {
        Doc::whole(Tape {
            text: self.source,
            nodes: self.nodes,
            escaped: self.escaped,
            elements: self.elements,
            spans: Vec::new(),
        })
    }

    pub(crate) fn read<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Doc, D::Error> {
        let source = SOURCE.with(|s| s.borrow().clone());
        let mut b = Builder::new(source);
        deserializer.deserialize_any(ValueSeed(&mut b))?;
        Ok(b.finish())
    }

    /// The tape of a `serde_json::Value`, walked with an explicit stack (values as deep as kube-apiserver sends).
    pub(crate) fn from_value(value: &Value) -> Result<Doc, serde::de::value::Error> {
        enum Open<'v> {
            Array(std::slice::Iter<'v, Value>, u32, usize),
            Object(serde_json::map::Iter<'v>, u32, u32),
        }
        let mut b = Builder::new(None);
        let mut stack: Vec<Open<'_>> = Vec::new();
        let mut next = Some(value);
        loop {
            if let Some(v) = next.take() {
                let (tag, bits) = match v {
                    Value::Array(items) => {
                        let id = b.open(Tag::Array)?;
                        stack.push(Open::Array(items.iter(), id, b.scratch.len()));
                        (None, 0)
                    }
                    Value::Object(map) => {
                        let id = b.open(Tag::Object)?;
                        stack.push(Open::Object(map.iter(), id, 0));
                        (None, 0)
                    }
                    Value::Null => (Some(Tag::Null), 0),
                    Value::Bool(false) => (Some(Tag::False), 0),
                    Value::Bool(true) => (Some(Tag::True), 0),
                    Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
                        (Some(u), _, _) => (Some(Tag::U64), u),
                        (None, Some(i), _) => (Some(Tag::I64), i as u64),
                        (None, None, f) => (Some(Tag::F64), f.unwrap_or_default().to_bits()),
                    },
                    Value::String(s) => {
                        b.string(s)?;
                        (None, 0)
                    }
                };
                if let Some(tag) = tag {
                    b.scalar(tag, bits)?;
                }
            }
            match stack.last_mut() {
                None => return Ok(b.finish()),
                Some(Open::Array(items, id, first)) => match items.next() {
                    Some(item) => {
                        let at = index(b.nodes.len())?;
                        b.scratch.push(at);
                        next = Some(item);
                    }
                    None => {
                        let (id, first) = (*id, *first);
                        b.close_array(id, first)?;
                        stack.pop();
                    }
                },
                Some(Open::Object(members, id, count)) => match members.next() {
                    Some((k, v)) => {
                        b.string(k)?;
                        *count += 1;
                        next = Some(v);
                    }
                    None => {
                        let (id, count) = (*id, *count);
                        b.close(id, count)?;
                        stack.pop();
                    }
                },
            }
        }
    }

    fn open<E: serde::de::Error>(&mut self, tag: Tag) -> Result<u32, E> {
        self.push(Node { tag, a: 0, b: 0 })
    }

    /// Close the array opened as node `id` whose element positions start at `first` in the scratch stack.
    fn close_array<E: serde::de::Error>(&mut self, id: u32, first: usize) -> Result<(), E> {
        let at = index(self.elements.len())?;
        let count = index(self.scratch.len().saturating_sub(first))?;
        self.elements.push(count);
        self.elements.extend(self.scratch.drain(first..));
        self.close(id, at)
    }

    fn push<E: serde::de::Error>(&mut self, node: Node) -> Result<u32, E> {
        let id = index(self.nodes.len())?;
        self.nodes.push(node);
        Ok(id)
    }

    fn string<E: serde::de::Error>(&mut self, s: &str) -> Result<(), E> {
        let b = index(s.len())?;
        // a slice of the source is kept as its position there (addresses compared, nothing dereferenced)
        let (at, base) = (s.as_ptr() as usize, self.source.as_ptr() as usize);
        if at >= base && at - base + s.len() <= self.source.len() {
            let a = index(at - base)?;
            self.push(Node {
                tag: Tag::Str,
                a,
                b,
            })?;
            return Ok(());
        }
        let a = index(self.escaped.len())?;
        self.escaped.push_str(s);
        self.push(Node {
            tag: Tag::EscStr,
            a,
            b,
        })?;
        Ok(())
    }

    fn scalar<E: serde::de::Error>(&mut self, tag: Tag, bits: u64) -> Result<(), E> {
        self.push(Node::of_bits(tag, bits))?;
        Ok(())
    }

    /// Close the container opened as node `id`: `a` one past its last descendant, `b` as the tag wants it.
    fn close<E: serde::de::Error>(&mut self, id: u32, b: u32) -> Result<(), E> {
        let end = index(self.nodes.len())?;
        if let Some(n) = self.nodes.get_mut(id as usize) {
            n.a = end;
            n.b = b;
        }
        Ok(())
    }
}

/// Reads one value into the builder (the seed of every value, the visitor of its events).
struct ValueSeed<'b>(&'b mut Builder);

/// Reads one object key into the builder.
struct KeySeed<'b>(&'b mut Builder);

impl<'de> DeserializeSeed<'de> for ValueSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> DeserializeSeed<'de> for KeySeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a string key")
    }
    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<(), E> {
        self.0.string(s)
    }
}

impl<'de> Visitor<'de> for ValueSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any valid JSON value")
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<(), E> {
        self.0.scalar(Tag::Null, 0)
    }

    fn visit_none<E: serde::de::Error>(self) -> Result<(), E> {
        self.0.scalar(Tag::Null, 0)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }

    fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<(), E> {
        self.0.scalar(if v { Tag::True } else { Tag::False }, 0)
    }

    /// A negative integer; a non-negative one (from a deserializer that says i64 for it) reads as `u64`, as
    /// serde_json's `Value` keeps it.
    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<(), E> {
        match u64::try_from(v) {
            Ok(u) => self.0.scalar(Tag::U64, u),
            Err(_) => self.0.scalar(Tag::I64, v as u64),
        }
    }

    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<(), E> {
        self.0.scalar(Tag::U64, v)
    }

    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<(), E> {
        if !v.is_finite() {
            // serde_json never hands one over; `Value` would hold it as null
            return self.0.scalar(Tag::Null, 0);
        }
        self.0.scalar(Tag::F64, v.to_bits())
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<(), E> {
        self.0.string(v)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let b = self.0;
        let id = b.open(Tag::Array)?;
        let first = b.scratch.len();
        loop {
            let next = index(b.nodes.len())?;
            b.scratch.push(next);
            if seq.next_element_seed(ValueSeed(&mut *b))?.is_none() {
                b.scratch.pop();
                break;
            }
        }
        b.close_array(id, first)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let b = self.0;
        let id = b.open(Tag::Object)?;
        let mut count: u32 = 0;
        while map.next_key_seed(KeySeed(&mut *b))?.is_some() {
            map.next_value_seed(ValueSeed(&mut *b))?;
            count = count
                .checked_add(1)
                .ok_or_else(|| A::Error::custom("document too large"))?;
        }
        b.close(id, count)
    }
}
