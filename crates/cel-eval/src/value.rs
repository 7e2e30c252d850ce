//! Runtime values. Containers from the request are borrowed, never copied: `object` and `oldObject` from their tape
//! (`List::Doc`, `Map::Doc`), `request`, `params` and `namespaceObject` from `serde_json` values (`List::Json`,
//! `Map::Json`); values built by the expression are reference-counted.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::fmt;
use std::hash::{DefaultHasher, Hash, Hasher};

use crate::ids::Ids;
use std::rc::Rc;
use std::sync::Arc;

use palisade_json::{Item, Ref};
use serde_json::Value as Json;

use crate::authz::AuthzValue;
use crate::error::EvalError;
use crate::kube::KubeValue;
use crate::time::{Duration, Timestamp};

/// How deep nested values are compared, converted and printed.
pub const MAX_VALUE_DEPTH: usize = 200;

/// A CEL value. `'a` is the lifetime of the request JSON it may borrow from.
#[derive(Clone, Debug)]
pub enum Value<'a> {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Double(f64),
    String(Str<'a>),
    Bytes(Rc<[u8]>),
    List(List<'a>),
    Map(Map<'a>),
    Timestamp(Timestamp),
    Duration(Duration),
    Type(Type),
    Optional(Option<Rc<Value<'a>>>),
    /// Values of the Kubernetes authorizer library.
    Authz(Rc<AuthzValue<'a>>),
    /// Quantity, Semver, IP, CIDR, URL, named format.
    Kube(Rc<KubeValue>),
}

/// A string that is either borrowed from the request or owned.
#[derive(Clone, Debug)]
pub enum Str<'a> {
    Borrowed(&'a str),
    Owned(Rc<str>),
    /// A string of a constant literal folded when the program was compiled (shared by every
    /// evaluation of the program, on any thread).
    Shared(Arc<str>),
}

impl Str<'_> {
    pub fn as_str(&self) -> &str {
        match self {
            Str::Borrowed(s) => s,
            Str::Owned(s) => s,
            Str::Shared(s) => s,
        }
    }
}

/// A list: a borrowed JSON array or an owned vector.
#[derive(Clone, Debug)]
pub enum List<'a> {
    Json(&'a [Json]),
    /// An array of a request object's tape.
    Doc(Ref<'a>),
    Owned(Rc<Vec<Value<'a>>>),
    /// A constant list literal folded when the program was compiled: built once, shared.
    Const(Arc<[Const]>),
    /// `a + b` without copying either side (cel-go's `concatList`, whose `AddList` costs 1):
    /// O(1) to build, O(depth) to index.
    Concat(Rc<Concat<'a>>),
}

/// Two lists joined by `+`, read through.
#[derive(Debug)]
pub struct Concat<'a> {
    left: List<'a>,
    right: List<'a>,
    len: usize,
    depth: u32,
}

/// Beyond this many nested `+`, a concatenation is copied into one list (and charged for
/// it), so that reading an element never walks a long chain.
pub const MAX_CONCAT_DEPTH: u32 = 64;

impl<'a> List<'a> {
    pub fn len(&self) -> usize {
        match self {
            List::Json(v) => v.len(),
            List::Doc(r) => r.len(),
            List::Owned(v) => v.len(),
            List::Const(v) => v.len(),
            List::Concat(c) => c.len,
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn get(&self, mut i: usize) -> Option<Value<'a>> {
        let mut cur = self;
        loop {
            match cur {
                List::Json(v) => return v.get(i).map(Value::from_json),
                List::Doc(r) => return r.index(i).map(Value::from_doc),
                List::Owned(v) => return v.get(i).cloned(),
                List::Const(v) => return v.get(i).map(Const::to_value),
                List::Concat(c) => {
                    let l = c.left.len();
                    if i < l {
                        cur = &c.left;
                    } else {
                        i -= l;
                        cur = &c.right;
                    }
                }
            }
        }
    }
    /// How many `+` are nested in this list (0 for a plain list).
    pub fn depth(&self) -> u32 {
        match self {
            List::Concat(c) => c.depth,
            _ => 0,
        }
    }
    /// Does `a + b` copy (only when it would nest concatenations beyond
    /// [`MAX_CONCAT_DEPTH`])?
    pub fn concat_copies(a: &List<'_>, b: &List<'_>) -> bool {
        !a.is_empty() && !b.is_empty() && a.depth().max(b.depth()) >= MAX_CONCAT_DEPTH
    }
    /// `a + b`: shares both sides; an empty side is the other list itself.
    pub fn concat(a: List<'a>, b: List<'a>) -> List<'a> {
        if b.is_empty() {
            return a;
        }
        if a.is_empty() {
            return b;
        }
        if List::concat_copies(&a, &b) {
            let mut v = Vec::with_capacity(a.len().saturating_add(b.len()));
            v.extend(a.iter());
            v.extend(b.iter());
            return List::Owned(Rc::new(v));
        }
        let depth = a.depth().max(b.depth()) + 1;
        let len = a.len().saturating_add(b.len());
        List::Concat(Rc::new(Concat {
            left: a,
            right: b,
            len,
            depth,
        }))
    }
    /// The very same list (not merely equal elements).
    pub fn same(&self, other: &List<'_>) -> bool {
        match (self, other) {
            (List::Json(a), List::Json(b)) => std::ptr::eq(*a, *b),
            (List::Doc(a), List::Doc(b)) => a == b,
            (List::Owned(a), List::Owned(b)) => {
                std::ptr::eq(Rc::as_ptr(a).cast::<u8>(), Rc::as_ptr(b).cast::<u8>())
            }
            (List::Const(a), List::Const(b)) => Arc::ptr_eq(a, b),
            (List::Concat(a), List::Concat(b)) => Rc::ptr_eq(a, b),
            _ => false,
        }
    }
    pub fn iter(&self) -> ListIter<'_, 'a> {
        ListIter { list: self, pos: 0 }
    }
    pub fn to_vec(&self) -> Vec<Value<'a>> {
        self.iter().collect()
    }
}

pub struct ListIter<'l, 'a> {
    list: &'l List<'a>,
    pos: usize,
}

impl<'a> Iterator for ListIter<'_, 'a> {
    type Item = Value<'a>;
    fn next(&mut self) -> Option<Value<'a>> {
        let v = self.list.get(self.pos)?;
        self.pos += 1;
        Some(v)
    }
}

/// An owned map: entries in insertion order plus, from [`OwnedMap::INDEXED_FROM`] entries on, a hash index over
/// normalised keys (`1`, `1u` and `1.0` are the same key). A smaller map is searched entry by entry: most maps a
/// program builds are small (approver-policy's `cr` has four fields), and hashing each key twice and allocating a
/// bucket per key cost more than comparing a few.
#[derive(Clone, Debug, Default)]
pub struct OwnedMap<'a> {
    entries: Vec<(Value<'a>, Value<'a>)>,
    /// Empty below `INDEXED_FROM` entries.
    index: HashMap<u64, Vec<usize>, Ids>,
}

/// Whether [`key_hash`] hashes `k` (without hashing it).
fn hashable_key(k: &Value<'_>) -> bool {
    match k {
        Value::String(_) | Value::Bool(_) | Value::Int(_) | Value::Uint(_) => true,
        Value::Double(d) => integral_key(*d),
        _ => false,
    }
}

/// A double that is the same map key as the integer it equals.
fn integral_key(d: f64) -> bool {
    d.fract() == 0.0 && d.abs() < 1.8e19
}

fn key_hash(k: &Value<'_>) -> Option<u64> {
    let mut h = DefaultHasher::new();
    match k {
        Value::String(s) => {
            0u8.hash(&mut h);
            s.as_str().hash(&mut h);
        }
        Value::Bool(b) => {
            1u8.hash(&mut h);
            b.hash(&mut h);
        }
        Value::Int(i) => {
            2u8.hash(&mut h);
            i128::from(*i).hash(&mut h);
        }
        Value::Uint(u) => {
            2u8.hash(&mut h);
            i128::from(*u).hash(&mut h);
        }
        Value::Double(d) if integral_key(*d) => {
            2u8.hash(&mut h);
            (*d as i128).hash(&mut h);
        }
        _ => return None,
    }
    Some(h.finish())
}

impl<'a> OwnedMap<'a> {
    /// How many entries a map has before lookups go through the hash index.
    const INDEXED_FROM: usize = 8;

    /// Builds a map; a repeated key is an error.
    pub fn from_entries(entries: Vec<(Value<'a>, Value<'a>)>) -> Result<Self, Value<'a>> {
        let mut m = OwnedMap {
            entries: Vec::with_capacity(entries.len()),
            index: HashMap::default(),
        };
        for (k, v) in entries {
            m.insert(k, v)?;
        }
        Ok(m)
    }
    /// Inserts a new key; returns the key back when it is already present.
    pub fn insert(&mut self, k: Value<'a>, v: Value<'a>) -> Result<(), Value<'a>> {
        if self.get(&k).is_some() {
            return Err(k);
        }
        self.entries.push((k, v));
        let len = self.entries.len();
        if len == Self::INDEXED_FROM {
            // from now on, lookups are hashed: index every entry so far
            for (i, (key, _)) in self.entries.iter().enumerate() {
                if let Some(h) = key_hash(key) {
                    self.index.entry(h).or_default().push(i);
                }
            }
        } else if len > Self::INDEXED_FROM
            && let Some((key, _)) = self.entries.last()
            && let Some(h) = key_hash(key)
        {
            self.index.entry(h).or_default().push(len - 1);
        }
        Ok(())
    }
    pub fn get(&self, key: &Value<'_>) -> Option<&Value<'a>> {
        if self.entries.len() < Self::INDEXED_FROM {
            // what the index would find: a key it can hash, equal to an entry's (an entry whose key it cannot hash
            // equals no such key)
            if !hashable_key(key) {
                return None;
            }
            return self
                .entries
                .iter()
                .find(|(k, _)| key_eq(k, key))
                .map(|(_, v)| v);
        }
        let h = key_hash(key)?;
        let bucket = self.index.get(&h)?;
        bucket
            .iter()
            .filter_map(|i| self.entries.get(*i))
            .find(|(k, _)| key_eq(k, key))
            .map(|(_, v)| v)
    }
    pub fn entries(&self) -> &[(Value<'a>, Value<'a>)] {
        &self.entries
    }
    pub fn len(&self) -> usize {
        self.entries.len()
    }
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// A map: a borrowed JSON object (null fields are absent) or an owned map.
#[derive(Clone, Debug)]
pub enum Map<'a> {
    Json(&'a serde_json::Map<String, Json>),
    /// An object of a request object's tape, read as a `serde_json::Map` of it would be: null fields are absent, a
    /// key written twice has its last value, entries iterate sorted by key.
    Doc(Ref<'a>),
    Owned(Rc<OwnedMap<'a>>),
    /// A constant map literal folded when the program was compiled: built once, shared.
    Const(Arc<ConstMap>),
}

impl<'a> Map<'a> {
    pub fn len(&self) -> usize {
        match self {
            Map::Json(m) => m.values().filter(|v| !v.is_null()).count(),
            Map::Doc(r) => {
                if r.has_duplicate_keys() {
                    r.sorted_members()
                        .iter()
                        .filter(|(_, v)| !v.is_null())
                        .count()
                } else {
                    r.members().filter(|(_, v)| !v.is_null()).count()
                }
            }
            Map::Owned(m) => m.len(),
            Map::Const(m) => m.entries.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The very same map (not merely equal entries).
    pub fn same(&self, other: &Map<'_>) -> bool {
        match (self, other) {
            (Map::Json(a), Map::Json(b)) => std::ptr::eq(*a, *b),
            (Map::Doc(a), Map::Doc(b)) => a == b,
            (Map::Owned(a), Map::Owned(b)) => {
                std::ptr::eq(Rc::as_ptr(a).cast::<u8>(), Rc::as_ptr(b).cast::<u8>())
            }
            (Map::Const(a), Map::Const(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
    /// Looks a key up with CEL's heterogeneous numeric key equality.
    pub fn get(&self, key: &Value<'_>) -> Option<Value<'a>> {
        match self {
            Map::Json(m) => match key {
                Value::String(s) => m
                    .get(s.as_str())
                    .filter(|v| !v.is_null())
                    .map(Value::from_json),
                _ => None,
            },
            Map::Doc(r) => match key {
                Value::String(s) => doc_member(*r, s.as_str()),
                _ => None,
            },
            Map::Owned(m) => m.get(key).cloned(),
            Map::Const(m) => m.get(key).map(Const::to_value),
        }
    }
    pub fn get_str(&self, key: &str) -> Option<Value<'a>> {
        match self {
            Map::Json(m) => m.get(key).filter(|v| !v.is_null()).map(Value::from_json),
            Map::Doc(r) => doc_member(*r, key),
            Map::Owned(m) => m.get(&Value::String(Str::Borrowed(key))).cloned(),
            Map::Const(m) => m
                .get(&Value::String(Str::Borrowed(key)))
                .map(Const::to_value),
        }
    }
    pub fn contains_key(&self, key: &Value<'_>) -> bool {
        self.get(key).is_some()
    }
    /// Entries in order (JSON nulls skipped).
    pub fn entries(&self) -> Vec<(Value<'a>, Value<'a>)> {
        match self {
            Map::Json(m) => m
                .iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| {
                    (
                        Value::String(Str::Borrowed(k.as_str())),
                        Value::from_json(v),
                    )
                })
                .collect(),
            Map::Doc(r) => r
                .sorted_members()
                .into_iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (Value::String(Str::Borrowed(k)), Value::from_doc(v)))
                .collect(),
            Map::Owned(m) => m.entries().to_vec(),
            Map::Const(m) => m
                .entries
                .iter()
                .map(|(k, v)| (k.to_value(), v.to_value()))
                .collect(),
        }
    }
    /// The entries one at a time, without collecting them (a comprehension that stops early
    /// must not pay for the whole map).
    pub fn for_each_entry(
        &self,
        mut f: impl FnMut(Value<'a>, Value<'a>) -> Result<bool, EvalError>,
    ) -> Result<(), EvalError> {
        match self {
            Map::Json(m) => {
                for (k, v) in m.iter().filter(|(_, v)| !v.is_null()) {
                    if !f(
                        Value::String(Str::Borrowed(k.as_str())),
                        Value::from_json(v),
                    )? {
                        break;
                    }
                }
            }
            Map::Doc(r) => {
                for (k, v) in r.sorted_members().into_iter().filter(|(_, v)| !v.is_null()) {
                    if !f(Value::String(Str::Borrowed(k)), Value::from_doc(v))? {
                        break;
                    }
                }
            }
            Map::Owned(m) => {
                for (k, v) in m.entries() {
                    if !f(k.clone(), v.clone())? {
                        break;
                    }
                }
            }
            Map::Const(m) => {
                for (k, v) in m.entries.iter() {
                    if !f(k.to_value(), v.to_value())? {
                        break;
                    }
                }
            }
        }
        Ok(())
    }
    pub fn keys(&self) -> Vec<Value<'a>> {
        match self {
            Map::Json(m) => m
                .iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, _)| Value::String(Str::Borrowed(k.as_str())))
                .collect(),
            Map::Doc(r) => r
                .sorted_members()
                .into_iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, _)| Value::String(Str::Borrowed(k)))
                .collect(),
            Map::Owned(m) => m.entries().iter().map(|(k, _)| k.clone()).collect(),
            Map::Const(m) => m.entries.iter().map(|(k, _)| k.to_value()).collect(),
        }
    }
}

/// The value of `key` in a tape object, absent when `null` (as in `Map::Json`).
fn doc_member<'a>(r: Ref<'a>, key: &str) -> Option<Value<'a>> {
    doc_field(r, key).map(Value::from_doc)
}

/// The node of `key` in a tape object, absent when `null`: what a selection reads ([`doc_member`], and the
/// selections an activation remembers).
pub fn doc_field<'a>(r: Ref<'a>, key: &str) -> Option<Ref<'a>> {
    r.member(key).filter(|v| !v.is_null())
}

/// A value folded at compile time from a constant list or map literal (cel-go's `decOptimize`,
/// `maybeBuildListLiteral` / `maybeBuildMapLiteral`, which kube-apiserver enables with
/// `cel.OptOptimize`). `Send + Sync`, so a [`crate::Program`] keeps it and every evaluation, on any
/// thread, reads the same value: nothing is built per step.
#[derive(Clone, Debug)]
pub enum Const {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Double(f64),
    String(Arc<str>),
    Bytes(Arc<[u8]>),
    List(Arc<[Const]>),
    Map(Arc<ConstMap>),
    Timestamp(Timestamp),
    Duration(Duration),
}

impl Const {
    /// The constant a scalar value is (`None` for lists, maps and other kinds).
    pub fn scalar(v: &Value<'_>) -> Option<Const> {
        Some(match v {
            Value::Null => Const::Null,
            Value::Bool(b) => Const::Bool(*b),
            Value::Int(i) => Const::Int(*i),
            Value::Uint(u) => Const::Uint(*u),
            Value::Double(d) => Const::Double(*d),
            Value::String(s) => Const::String(Arc::from(s.as_str())),
            Value::Bytes(b) => Const::Bytes(Arc::from(&b[..])),
            Value::Timestamp(t) => Const::Timestamp(*t),
            Value::Duration(d) => Const::Duration(*d),
            _ => return None,
        })
    }
    /// The constant as a value that borrows its string (nothing is copied and no count is written: in a fresh instance
    /// of a baked module, a count written into the program would copy a page of its image). Lists and maps are shared
    /// as [`Const::to_value`] shares them.
    pub fn as_value(&self) -> Value<'_> {
        match self {
            Const::String(s) => Value::String(Str::Borrowed(s)),
            other => other.to_value(),
        }
    }

    /// The runtime value: scalars are copied, strings, lists and maps shared (a bytes value is
    /// copied, as `Value::Bytes` is not shared across threads).
    pub fn to_value<'a>(&self) -> Value<'a> {
        match self {
            Const::Null => Value::Null,
            Const::Bool(b) => Value::Bool(*b),
            Const::Int(i) => Value::Int(*i),
            Const::Uint(u) => Value::Uint(*u),
            Const::Double(d) => Value::Double(*d),
            Const::String(s) => Value::String(Str::Shared(Arc::clone(s))),
            Const::Bytes(b) => Value::Bytes(Rc::from(&b[..])),
            Const::List(l) => Value::List(List::Const(Arc::clone(l))),
            Const::Map(m) => Value::Map(Map::Const(Arc::clone(m))),
            Const::Timestamp(t) => Value::Timestamp(*t),
            Const::Duration(d) => Value::Duration(*d),
        }
    }
}

/// A folded constant map literal: entries in order plus a hash index over normalised keys.
#[derive(Debug, Default)]
pub struct ConstMap {
    entries: Vec<(Const, Const)>,
    index: HashMap<u64, Vec<usize>, Ids>,
}

impl ConstMap {
    /// Builds the map; `None` when a key is repeated or not a valid key (the literal is then
    /// left to the evaluator, which reports the error when it runs).
    pub fn new(entries: Vec<(Const, Const)>) -> Option<ConstMap> {
        let mut m = ConstMap {
            entries: Vec::with_capacity(entries.len()),
            index: HashMap::with_capacity_and_hasher(entries.len(), Ids::default()),
        };
        for (k, v) in entries {
            let kv = k.to_value();
            check_key(&kv).ok()?;
            if m.get(&kv).is_some() {
                return None;
            }
            let h = key_hash(&kv)?;
            m.index.entry(h).or_default().push(m.entries.len());
            m.entries.push((k, v));
        }
        Some(m)
    }
    fn get(&self, key: &Value<'_>) -> Option<&Const> {
        let h = key_hash(key)?;
        let bucket = self.index.get(&h)?;
        bucket
            .iter()
            .filter_map(|i| self.entries.get(*i))
            .find(|(k, _)| key_eq(&k.as_value(), key))
            .map(|(_, v)| v)
    }
}

/// The set a constant list of primitive values becomes on the right of `in` (cel-go's
/// `maybeOptimizeSetMembership`): a membership test is a hash lookup, and costs nothing.
#[derive(Debug)]
pub struct ConstSet {
    list: Arc<[Const]>,
    index: HashMap<u64, Vec<usize>, Ids>,
}

/// How deeply a JSON value nests: 0 for a scalar, 1 for a flat list or map. Measured without recursion, so values as
/// deep as kube-apiserver sends (10,000 levels) are measured on any stack.
pub fn json_depth(value: &Json) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(value, 0usize)];
    while let Some((v, d)) = stack.pop() {
        match v {
            Json::Array(items) => {
                deepest = deepest.max(d + 1);
                stack.extend(items.iter().map(|i| (i, d + 1)));
            }
            Json::Object(map) => {
                deepest = deepest.max(d + 1);
                stack.extend(map.values().map(|i| (i, d + 1)));
            }
            _ => {}
        }
    }
    deepest
}

/// The hash of a set element: numbers by value (`1`, `1u`, `1.0` alike, as cel-go adds the
/// lossless conversions), other doubles by their bits; `None` for what no set holds.
fn set_hash(v: &Value<'_>) -> Option<u64> {
    if let Some(h) = key_hash(v) {
        return Some(h);
    }
    match v {
        Value::Double(d) if !d.is_nan() => {
            let mut h = DefaultHasher::new();
            3u8.hash(&mut h);
            d.to_bits().hash(&mut h);
            Some(h.finish())
        }
        _ => None,
    }
}

impl ConstSet {
    /// `None` unless every element is a bool, number or string (cel-go: primitive, not bytes).
    pub fn new(list: &Arc<[Const]>) -> Option<ConstSet> {
        let mut index: HashMap<u64, Vec<usize>, Ids> =
            HashMap::with_capacity_and_hasher(list.len(), Ids::default());
        for (i, c) in list.iter().enumerate() {
            match c {
                Const::Bool(_) | Const::Int(_) | Const::Uint(_) | Const::String(_) => {}
                Const::Double(d) if !d.is_nan() => {}
                _ => return None,
            }
            index.entry(set_hash(&c.to_value())?).or_default().push(i);
        }
        Some(ConstSet {
            list: Arc::clone(list),
            index,
        })
    }
    pub fn contains(&self, v: &Value<'_>) -> Result<bool, EvalError> {
        let Some(h) = set_hash(v) else {
            return Ok(false);
        };
        let Some(bucket) = self.index.get(&h) else {
            return Ok(false);
        };
        for i in bucket {
            if let Some(c) = self.list.get(*i)
                && c.as_value().equals(v)?
            {
                return Ok(true);
            }
        }
        Ok(false)
    }
}

fn key_eq(a: &Value<'_>, b: &Value<'_>) -> bool {
    match (a, b) {
        (Value::String(x), Value::String(y)) => x.as_str() == y.as_str(),
        (Value::Bool(x), Value::Bool(y)) => x == y,
        _ => match (a.as_number(), b.as_number()) {
            (Some(x), Some(y)) => x.cmp_num(&y) == Some(Ordering::Equal),
            _ => false,
        },
    }
}

/// Runtime type values (`type(x)`, `int`, …).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Type {
    Null,
    Bool,
    Int,
    Uint,
    Double,
    String,
    Bytes,
    List,
    Map,
    Timestamp,
    Duration,
    Type,
    Optional,
    Named(Rc<str>),
}

impl Type {
    pub fn name(&self) -> &str {
        match self {
            Type::Null => "null_type",
            Type::Bool => "bool",
            Type::Int => "int",
            Type::Uint => "uint",
            Type::Double => "double",
            Type::String => "string",
            Type::Bytes => "bytes",
            Type::List => "list",
            Type::Map => "map",
            Type::Timestamp => "google.protobuf.Timestamp",
            Type::Duration => "google.protobuf.Duration",
            Type::Type => "type",
            Type::Optional => "optional_type",
            Type::Named(n) => n,
        }
    }
    pub fn from_name(name: &str) -> Option<Type> {
        Some(match name {
            "null_type" => Type::Null,
            "bool" => Type::Bool,
            "int" => Type::Int,
            "uint" => Type::Uint,
            "double" => Type::Double,
            "string" => Type::String,
            "bytes" => Type::Bytes,
            "list" => Type::List,
            "map" => Type::Map,
            "google.protobuf.Timestamp" => Type::Timestamp,
            "google.protobuf.Duration" => Type::Duration,
            "type" => Type::Type,
            "optional_type" => Type::Optional,
            _ => return None,
        })
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A number for heterogeneous comparisons.
#[derive(Clone, Copy, Debug)]
pub enum Num {
    I(i64),
    U(u64),
    D(f64),
}

impl Num {
    pub fn cmp_num(&self, other: &Num) -> Option<Ordering> {
        match (*self, *other) {
            (Num::I(a), Num::I(b)) => Some(a.cmp(&b)),
            (Num::U(a), Num::U(b)) => Some(a.cmp(&b)),
            (Num::I(a), Num::U(b)) => Some(cmp_i_u(a, b)),
            (Num::U(a), Num::I(b)) => Some(cmp_i_u(b, a).reverse()),
            (Num::D(a), Num::D(b)) => a.partial_cmp(&b),
            (Num::I(a), Num::D(b)) => cmp_i_d(a, b),
            (Num::D(a), Num::I(b)) => cmp_i_d(b, a).map(Ordering::reverse),
            (Num::U(a), Num::D(b)) => cmp_u_d(a, b),
            (Num::D(a), Num::U(b)) => cmp_u_d(b, a).map(Ordering::reverse),
        }
    }
}

fn cmp_i_u(a: i64, b: u64) -> Ordering {
    if a < 0 {
        Ordering::Less
    } else {
        (a as u64).cmp(&b)
    }
}

/// cel-go compares an integer with a double by converting the integer to a double.
fn cmp_i_d(a: i64, b: f64) -> Option<Ordering> {
    (a as f64).partial_cmp(&b)
}

fn cmp_u_d(a: u64, b: f64) -> Option<Ordering> {
    (a as f64).partial_cmp(&b)
}

impl<'a> Value<'a> {
    /// Converts borrowed JSON. Integers become `int` (doubles when out of int64 range).
    pub fn from_json(v: &'a Json) -> Value<'a> {
        match v {
            Json::Null => Value::Null,
            Json::Bool(b) => Value::Bool(*b),
            Json::Number(n) => {
                if let Some(i) = n.as_i64() {
                    Value::Int(i)
                } else {
                    Value::Double(n.as_f64().unwrap_or(f64::NAN))
                }
            }
            Json::String(s) => Value::String(Str::Borrowed(s.as_str())),
            Json::Array(a) => Value::List(List::Json(a.as_slice())),
            Json::Object(m) => Value::Map(Map::Json(m)),
        }
    }

    /// Converts a node of a request object's tape, as [`Value::from_json`] converts the same JSON.
    pub fn from_doc(r: Ref<'a>) -> Value<'a> {
        match r.item() {
            Item::Null => Value::Null,
            Item::Bool(b) => Value::Bool(b),
            Item::I64(i) => Value::Int(i),
            Item::U64(u) => match i64::try_from(u) {
                Ok(i) => Value::Int(i),
                Err(_) => Value::Double(u as f64),
            },
            Item::F64(d) => Value::Double(d),
            Item::Str(s) => Value::String(Str::Borrowed(s)),
            Item::Array(a) => Value::List(List::Doc(a)),
            Item::Object(o) => Value::Map(Map::Doc(o)),
        }
    }

    pub fn string(s: impl Into<Rc<str>>) -> Value<'a> {
        Value::String(Str::Owned(s.into()))
    }

    pub fn list(v: Vec<Value<'a>>) -> Value<'a> {
        Value::List(List::Owned(Rc::new(v)))
    }

    /// An owned map; on a repeated key the later entry is dropped.
    pub fn map(entries: Vec<(Value<'a>, Value<'a>)>) -> Value<'a> {
        let mut m = OwnedMap::default();
        for (k, v) in entries {
            let _ = m.insert(k, v);
        }
        Value::Map(Map::Owned(Rc::new(m)))
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s.as_str()),
            _ => None,
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    pub fn as_number(&self) -> Option<Num> {
        match self {
            Value::Int(i) => Some(Num::I(*i)),
            Value::Uint(u) => Some(Num::U(*u)),
            Value::Double(d) => Some(Num::D(*d)),
            _ => None,
        }
    }

    pub fn type_of(&self) -> Type {
        match self {
            Value::Null => Type::Null,
            Value::Bool(_) => Type::Bool,
            Value::Int(_) => Type::Int,
            Value::Uint(_) => Type::Uint,
            Value::Double(_) => Type::Double,
            Value::String(_) => Type::String,
            Value::Bytes(_) => Type::Bytes,
            Value::List(_) => Type::List,
            Value::Map(_) => Type::Map,
            Value::Timestamp(_) => Type::Timestamp,
            Value::Duration(_) => Type::Duration,
            Value::Type(_) => Type::Type,
            Value::Optional(_) => Type::Optional,
            Value::Authz(a) => Type::Named(Rc::from(a.type_name())),
            Value::Kube(k) => Type::Named(Rc::from(k.type_name())),
        }
    }

    /// Converts to JSON (strings, numbers, lists, maps with string keys, null). Timestamps and
    /// durations become their string forms; other values have no JSON form.
    pub fn to_json(&self) -> Option<Json> {
        self.to_json_at(0)
    }

    fn to_json_at(&self, depth: usize) -> Option<Json> {
        if depth > MAX_VALUE_DEPTH {
            return None;
        }
        Some(match self {
            Value::Null => Json::Null,
            Value::Bool(b) => Json::Bool(*b),
            Value::Int(i) => Json::from(*i),
            Value::Uint(u) => Json::from(*u),
            Value::Double(d) => serde_json::Number::from_f64(*d).map(Json::Number)?,
            Value::String(s) => Json::String(s.as_str().to_string()),
            Value::Bytes(_) => return None,
            Value::List(l) => {
                let mut out = Vec::with_capacity(l.len());
                for v in l.iter() {
                    out.push(v.to_json_at(depth + 1)?);
                }
                Json::Array(out)
            }
            Value::Map(m) => {
                if let Map::Json(j) = m {
                    // a map of the request: copied whole, unless it nests deeper than values may
                    let deepest = j.values().map(json_depth).max().unwrap_or(0) + 1;
                    return (deepest + depth <= MAX_VALUE_DEPTH)
                        .then(|| Json::Object((*j).clone()));
                }
                if let Map::Doc(r) = m {
                    // the same for a map of a request object's tape
                    return (r.depth() + depth <= MAX_VALUE_DEPTH).then(|| r.to_value());
                }
                let mut out = serde_json::Map::new();
                for (k, v) in m.entries() {
                    out.insert(k.as_str()?.to_string(), v.to_json_at(depth + 1)?);
                }
                Json::Object(out)
            }
            Value::Timestamp(t) => Json::String(t.to_string()),
            Value::Duration(d) => Json::String(d.to_string()),
            Value::Type(t) => Json::String(t.name().to_string()),
            Value::Optional(_) | Value::Authz(_) | Value::Kube(_) => return None,
        })
    }

    /// CEL equality (`==`): heterogeneous numbers compare by value; different kinds are unequal. Lists and maps are
    /// compared with an explicit worklist, not recursion, so objects as deep as kube-apiserver sends (10,000 levels)
    /// compare as in cel-go without exhausting a wasm host's stack.
    pub fn equals(&self, other: &Value<'_>) -> Result<bool, EvalError> {
        let mut pending = Vec::new();
        if !self.equals_shallow(other, &mut pending) {
            return Ok(false);
        }
        while let Some((a, b)) = pending.pop() {
            if !a.equals_shallow(&b, &mut pending) {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Compare the top of two values; the pairs of elements still to compare go to `pending`.
    fn equals_shallow<'b>(
        &self,
        other: &Value<'b>,
        pending: &mut Vec<(Value<'a>, Value<'b>)>,
    ) -> bool {
        match (self, other) {
            (Value::Null, Value::Null) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::String(a), Value::String(b)) => {
                let (a, b) = (a.as_str(), b.as_str());
                // the same string (a variable compared with itself, a folded constant) is not read; others a word
                // at a time (`==` is `memcmp`, a byte loop on wasm32)
                std::ptr::eq(a, b) || palisade_json::equal_bytes(a.as_bytes(), b.as_bytes())
            }
            (Value::Bytes(a), Value::Bytes(b)) => Rc::ptr_eq(a, b) || a == b,
            (Value::Timestamp(a), Value::Timestamp(b)) => a == b,
            (Value::Duration(a), Value::Duration(b)) => a == b,
            (Value::Type(a), Value::Type(b)) => a == b,
            (Value::Optional(a), Value::Optional(b)) => match (a, b) {
                (None, None) => true,
                (Some(x), Some(y)) => {
                    pending.push(((**x).clone(), (**y).clone()));
                    true
                }
                _ => false,
            },
            (Value::List(a), Value::List(b)) => {
                if a.len() != b.len() {
                    return false;
                }
                if !a.same(b) {
                    pending.extend(a.iter().zip(b.iter()));
                }
                true
            }
            (Value::Map(a), Value::Map(b)) => {
                if a.len() != b.len() {
                    return false;
                }
                if a.same(b) {
                    return true;
                }
                for (k, v) in a.entries() {
                    match b.get(&k) {
                        Some(w) => pending.push((v, w)),
                        None => return false,
                    }
                }
                true
            }
            (Value::Authz(_), Value::Authz(_)) => false,
            (Value::Kube(a), Value::Kube(b)) => a.equals(b),
            _ => match (self.as_number(), other.as_number()) {
                (Some(a), Some(b)) => a.cmp_num(&b) == Some(Ordering::Equal),
                _ => false,
            },
        }
    }

    /// CEL ordering (`<` …); `None` when the kinds are not comparable.
    pub fn compare(&self, other: &Value<'_>) -> Result<Option<Ordering>, EvalError> {
        Ok(match (self, other) {
            (Value::Bool(a), Value::Bool(b)) => Some(a.cmp(b)),
            (Value::String(a), Value::String(b)) => Some(a.as_str().cmp(b.as_str())),
            (Value::Bytes(a), Value::Bytes(b)) => Some(a.cmp(b)),
            (Value::Timestamp(a), Value::Timestamp(b)) => Some(a.cmp(b)),
            (Value::Duration(a), Value::Duration(b)) => Some(a.cmp(b)),
            _ => match (self.as_number(), other.as_number()) {
                // `None` (NaN) compares false with everything
                (Some(a), Some(b)) => a.cmp_num(&b),
                _ => return Err(EvalError::no_such_overload()),
            },
        })
    }

    /// Size as cel-go's cost tracker sees it.
    pub fn cost_size(&self) -> u64 {
        match self {
            Value::String(s) => palisade_json::char_count(s.as_str()) as u64,
            Value::Bytes(b) => b.len() as u64,
            Value::List(l) => l.len() as u64,
            Value::Map(m) => m.len() as u64,
            _ => 1,
        }
    }
}

impl fmt::Display for Value<'_> {
    /// A debug-ish rendering used in error messages.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.render(f, 0)
    }
}

impl Value<'_> {
    fn render(&self, f: &mut fmt::Formatter<'_>, depth: usize) -> fmt::Result {
        if depth > MAX_VALUE_DEPTH {
            return f.write_str("…");
        }
        match self {
            Value::Null => f.write_str("null"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(i) => write!(f, "{i}"),
            Value::Uint(u) => write!(f, "{u}u"),
            Value::Double(d) => write!(f, "{d}"),
            Value::String(s) => write!(f, "{:?}", s.as_str()),
            Value::Bytes(b) => write!(f, "b{:?}", String::from_utf8_lossy(b)),
            Value::List(l) => {
                f.write_str("[")?;
                for (i, v) in l.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    v.render(f, depth + 1)?;
                }
                f.write_str("]")
            }
            Value::Map(m) => {
                f.write_str("{")?;
                for (i, (k, v)) in m.entries().iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    k.render(f, depth + 1)?;
                    f.write_str(": ")?;
                    v.render(f, depth + 1)?;
                }
                f.write_str("}")
            }
            Value::Timestamp(t) => write!(f, "timestamp({:?})", t.to_string()),
            Value::Duration(d) => write!(f, "duration({:?})", d.to_string()),
            Value::Type(t) => f.write_str(t.name()),
            Value::Optional(None) => f.write_str("optional.none()"),
            Value::Optional(Some(v)) => {
                f.write_str("optional.of(")?;
                v.render(f, depth + 1)?;
                f.write_str(")")
            }
            Value::Authz(a) => f.write_str(a.type_name()),
            Value::Kube(k) => write!(f, "{k}"),
        }
    }
}

/// A map key must be a string, an integer or a bool (cel-go: `unsupported key type`).
pub fn check_key(k: &Value<'_>) -> Result<(), EvalError> {
    match k {
        Value::String(_) | Value::Int(_) | Value::Uint(_) | Value::Bool(_) => Ok(()),
        _ => Err(EvalError::new(format!(
            "unsupported key type: {}",
            k.type_of()
        ))),
    }
}

/// A key as cel-go prints one with `%v` (`no such key: k`, `insert failed: key k already exists`): a string without
/// quotes, a uint without its `u`, a double as Go's `%g`.
pub fn key_display(k: &Value<'_>) -> String {
    match k {
        Value::String(s) => s.as_str().to_string(),
        Value::Uint(u) => u.to_string(),
        Value::Double(d) => crate::functions::format_double_g(*d),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::{OwnedMap, Value};

    fn int(v: Option<&Value<'_>>) -> Option<i64> {
        match v {
            Some(Value::Int(i)) => Some(*i),
            _ => None,
        }
    }

    /// A map answers the same whether it is searched entry by entry (small) or through its index: `1`, `1u` and
    /// `1.0` are one key, a double that is not an integer is no key, and a repeated key is refused.
    #[test]
    fn owned_maps_find_the_same_keys_below_and_above_the_index() {
        for len in 0..20i64 {
            let mut m = OwnedMap::default();
            for i in 0..len {
                let key = match i % 3 {
                    0 => Value::Int(i),
                    1 => Value::Uint(i as u64),
                    _ => Value::string(format!("k{i}")),
                };
                assert!(m.insert(key, Value::Int(i)).is_ok());
            }
            assert!(m.insert(Value::Bool(true), Value::Int(-1)).is_ok());
            assert!(m.insert(Value::Bool(true), Value::Int(-2)).is_err());
            // not a key the index can hold: never found, as the index would not find it
            let mut with_half = m.clone();
            assert!(with_half.insert(Value::Double(0.5), Value::Int(-3)).is_ok());
            assert!(with_half.get(&Value::Double(0.5)).is_none(), "{len}");
            for i in 0..len {
                let found = |k: Value<'_>| int(m.get(&k));
                if i % 3 == 2 {
                    assert_eq!(found(Value::string(format!("k{i}"))), Some(i), "{len}");
                    assert_eq!(found(Value::Int(i)), None, "{len}");
                } else {
                    assert_eq!(found(Value::Int(i)), Some(i), "{len}");
                    assert_eq!(found(Value::Uint(i as u64)), Some(i), "{len}");
                    assert_eq!(found(Value::Double(i as f64)), Some(i), "{len}");
                    assert!(
                        m.clone()
                            .insert(Value::Double(i as f64), Value::Null)
                            .is_err()
                    );
                }
                assert_eq!(found(Value::Double(i as f64 + 0.5)), None, "{len}");
            }
            assert_eq!(int(m.get(&Value::Bool(true))), Some(-1));
            assert!(m.get(&Value::Null).is_none());
            assert_eq!(m.len(), len as usize + 1);
        }
    }
}
