//! [`Text`]: a string of a document kept without a copy.

use std::borrow::Borrow;
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;

use crate::{Doc, Ref};

/// A string value kept without copying it: a string node of a tape, which stays shared (reading a review's own fields
/// — uid, kind, operation, user — allocates nothing), or an owned string when it came from elsewhere. Reads as a `str`
/// ([`Deref`]), and compares, orders, hashes, prints and serializes exactly as the `str` it holds.
#[derive(Clone)]
pub struct Text(Repr);

#[derive(Clone)]
enum Repr {
    /// A document whose root is a string node.
    Node(Doc),
    Owned(Box<str>),
}

impl Text {
    /// The string `r` is, sharing its tape (`None` when `r` is not a string).
    pub fn of(r: Ref<'_>) -> Option<Text> {
        r.as_str()?;
        Some(Text(Repr::Node(Doc::subtree(r))))
    }

    /// Out of line: read at many places, each an inlined copy otherwise.
    #[inline(never)]
    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Node(doc) => doc.root_str().unwrap_or_default(),
            Repr::Owned(s) => s,
        }
    }
}

impl Default for Text {
    /// The empty string (nothing allocated).
    fn default() -> Self {
        Text(Repr::Owned(Box::default()))
    }
}

impl Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Text {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl Borrow<str> for Text {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl From<&str> for Text {
    fn from(s: &str) -> Self {
        Text(Repr::Owned(Box::from(s)))
    }
}

impl From<String> for Text {
    fn from(s: String) -> Self {
        Text(Repr::Owned(s.into_boxed_str()))
    }
}

impl From<Text> for String {
    fn from(t: Text) -> Self {
        match t.0 {
            Repr::Owned(s) => s.into_string(),
            Repr::Node(_) => t.as_str().to_owned(),
        }
    }
}

impl PartialEq for Text {
    fn eq(&self, other: &Text) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Text {}

impl PartialEq<str> for Text {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for Text {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other.as_str()
    }
}

impl PartialEq<Text> for str {
    fn eq(&self, other: &Text) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<Text> for &str {
    fn eq(&self, other: &Text) -> bool {
        *self == other.as_str()
    }
}

impl PartialOrd for Text {
    fn partial_cmp(&self, other: &Text) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Text {
    fn cmp(&self, other: &Text) -> Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl Hash for Text {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl fmt::Debug for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for Text {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for Text {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(Text::from)
    }
}
