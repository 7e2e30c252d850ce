//! A [`Doc`] built from a serde `Deserializer`'s events: how a request object is read as part of its AdmissionReview,
//! in the same pass serde_json makes over the review (no raw-text skip before it, no second parse after it).
//!
//! The events are serde_json's own, so what is accepted, refused (with serde_json's words and position) and how
//! numbers read is exactly what a `serde_json::Value` would have been; the deserializer's recursion limit (serde_json's
//! 128) holds. Every string is copied once into the document's text; nodes and array positions are laid out as
//! [`crate::Parser`] lays them out.

use serde::de::{DeserializeSeed, Deserializer, Error as _, MapAccess, SeqAccess, Visitor};

use crate::{Doc, Node, Tag};

/// The document being built.
pub(crate) struct Builder {
    text: String,
    nodes: Vec<Node>,
    elements: Vec<u32>,
    /// element positions of the arrays still open, innermost last
    scratch: Vec<u32>,
}

fn index<E: serde::de::Error>(n: usize) -> Result<u32, E> {
    u32::try_from(n).map_err(|_| E::custom("document too large"))
}

impl Builder {
    pub(crate) fn read<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Doc, D::Error> {
        // sized for a typical Kubernetes object, so that small ones never grow
        let mut b = Builder {
            text: String::with_capacity(2048),
            nodes: Vec::with_capacity(256),
            elements: Vec::with_capacity(64),
            scratch: Vec::with_capacity(64),
        };
        deserializer.deserialize_any(ValueSeed(&mut b))?;
        Ok(Doc {
            text: b.text,
            nodes: b.nodes,
            escaped: String::new(),
            elements: b.elements,
        })
    }

    fn push<E: serde::de::Error>(&mut self, node: Node) -> Result<u32, E> {
        let id = index(self.nodes.len())?;
        self.nodes.push(node);
        Ok(id)
    }

    fn string<E: serde::de::Error>(&mut self, s: &str) -> Result<(), E> {
        let a = index(self.text.len())?;
        let b = index(s.len())?;
        self.text.push_str(s);
        self.push(Node {
            tag: Tag::Str,
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
        let id = b.push(Node {
            tag: Tag::Array,
            a: 0,
            b: 0,
        })?;
        let first = b.scratch.len();
        loop {
            let next = index(b.nodes.len())?;
            b.scratch.push(next);
            if seq.next_element_seed(ValueSeed(&mut *b))?.is_none() {
                b.scratch.pop();
                break;
            }
        }
        let at = index(b.elements.len())?;
        let count = index(b.scratch.len() - first)?;
        b.elements.push(count);
        b.elements.extend(b.scratch.drain(first..));
        b.close(id, at)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let b = self.0;
        let id = b.push(Node {
            tag: Tag::Object,
            a: 0,
            b: 0,
        })?;
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
