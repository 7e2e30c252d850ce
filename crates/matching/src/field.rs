//! Field errors with paths relative to what a parser was given: the rendering (paths, `field.Error`'s
//! words, Go quoting) is `palisade_cel_kubernetes::field`'s; this module adapts it to the relative
//! [`FieldError`] the parsers return, and holds the small JSON-reading helpers they use.

use palisade_cel_kubernetes::field::{self, Path};
use serde_json::Value;
use std::fmt;

/// One problem in a document, with its path relative to what the parser was given
/// (for example `resourceRules[0].operations`) and the API server's wording
/// (for example `Required value`, `Unsupported value: "FOO": supported values: "*", "CONNECT"`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    pub path: String,
    pub message: String,
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for FieldError {}

impl From<field::Error> for FieldError {
    fn from(e: field::Error) -> Self {
        let message = e.body();
        FieldError {
            path: e.field,
            message,
        }
    }
}

/// `field.Path.Child` over a rendered (relative) path.
pub(crate) fn child(path: &str, name: &str) -> String {
    Path::from_rendered(path).child(name).into()
}

/// `field.Path.Index`.
pub(crate) fn index(path: &str, i: usize) -> String {
    Path::from_rendered(path).index(i).into()
}

/// Go's `%q` (the bad value in `Invalid value: "x"`): one copy, in `palisade-cel-kubernetes`.
pub(crate) use palisade_cel_kubernetes::goquote::quote as go_quote;

pub(crate) fn required(path: String, detail: &str) -> FieldError {
    field::Error::required(&Path::from_rendered(path), detail).into()
}

pub(crate) fn forbidden(path: String, detail: &str) -> FieldError {
    field::Error::forbidden(&Path::from_rendered(path), detail).into()
}

/// `field.Invalid` with a decoded JSON bad value.
pub(crate) fn invalid(path: String, value: &Value, detail: &str) -> FieldError {
    field::Error::invalid(&Path::from_rendered(path), value, detail).into()
}

pub(crate) fn invalid_str(path: String, value: &str, detail: &str) -> FieldError {
    field::Error::invalid(&Path::from_rendered(path), value, detail).into()
}

pub(crate) fn duplicate(path: String, value: &str) -> FieldError {
    field::Error::duplicate(&Path::from_rendered(path), value).into()
}

pub(crate) fn too_many(path: String, actual: usize, max: usize) -> FieldError {
    let n = |v: usize| i64::try_from(v).unwrap_or(i64::MAX);
    field::Error::too_many(&Path::from_rendered(path), n(actual), n(max)).into()
}

/// `field.NotSupported`: `supported` must already be in the API server's (sorted) order.
pub(crate) fn not_supported(path: String, value: &str, supported: &[&str]) -> FieldError {
    field::Error::not_supported(&Path::from_rendered(path), value, supported).into()
}

/// A value of the wrong JSON type (the API server would fail to decode the object; the wording is ours).
pub(crate) fn wrong_type(path: String, expected: &str) -> FieldError {
    FieldError {
        path,
        message: format!("expected {expected}"),
    }
}

/// Reads an optional field of an object: `None` when absent or `null`.
pub(crate) fn get<'v>(obj: &'v serde_json::Map<String, Value>, key: &str) -> Option<&'v Value> {
    match obj.get(key) {
        None | Some(Value::Null) => None,
        Some(v) => Some(v),
    }
}

/// Reads `v` as an object, or records a type error.
pub(crate) fn as_object<'v>(
    v: &'v Value,
    path: &str,
    errs: &mut Vec<FieldError>,
) -> Option<&'v serde_json::Map<String, Value>> {
    match v {
        Value::Object(m) => Some(m),
        _ => {
            errs.push(wrong_type(path.to_owned(), "an object"));
            None
        }
    }
}

/// Reads an optional list of strings; a missing or `null` field is an empty list.
pub(crate) fn string_list(
    obj: &serde_json::Map<String, Value>,
    key: &str,
    path: &str,
    errs: &mut Vec<FieldError>,
) -> Vec<String> {
    let p = child(path, key);
    match get(obj, key) {
        None => Vec::new(),
        Some(Value::Array(items)) => {
            let mut out = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                match item {
                    Value::String(s) => out.push(s.clone()),
                    _ => errs.push(wrong_type(index(&p, i), "a string")),
                }
            }
            out
        }
        Some(_) => {
            errs.push(wrong_type(p, "an array of strings"));
            Vec::new()
        }
    }
}

/// Reads an optional string field.
pub(crate) fn string_field(
    obj: &serde_json::Map<String, Value>,
    key: &str,
    path: &str,
    errs: &mut Vec<FieldError>,
) -> Option<String> {
    match get(obj, key) {
        None => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => {
            errs.push(wrong_type(child(path, key), "a string"));
            None
        }
    }
}

/// The JSON array form of a string list, for `Invalid value: [...]` messages.
pub(crate) fn list_value(items: &[String]) -> Value {
    Value::Array(items.iter().map(|s| Value::String(s.clone())).collect())
}
