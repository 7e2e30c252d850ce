//! `k8s.io/apimachinery/pkg/util/validation/field`: field paths and field errors, printed as the
//! API server prints them.
//!
//! [`Path`] renders as `field.Path.String()` does (`spec.validations[0].expression`,
//! `metadata.labels[app]`); an empty path (from [`Path::root`]) is a relative one whose first
//! child has no leading dot, so a parser can report paths relative to what it was given and the
//! caller can [`Path::join`] them under its own. [`Error`] is `field.Error`, its
//! [`Display`](std::fmt::Display) is `Error()` and [`Error::body`] is `ErrorBody()`: bad values are
//! Go-quoted strings, plain numbers and booleans, or Go's `json.Marshal` of anything else.
//!
//! ```
//! use palisade_cel_kubernetes::field::{Error, Path};
//!
//! let p = Path::new("spec").child("validations").index(0).child("expression");
//! assert_eq!(p.to_string(), "spec.validations[0].expression");
//! let e = Error::not_supported(&Path::new("spec").child("failurePolicy"), "Never", &["Fail", "Ignore"]);
//! assert_eq!(
//!     e.to_string(),
//!     r#"spec.failurePolicy: Unsupported value: "Never": supported values: "Fail", "Ignore""#
//! );
//! ```

use std::fmt;

use serde_json::Value;

use crate::goquote::{json_string, quote};

/// A field path, `field.Path`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Path(String);

impl Path {
    /// `field.NewPath(name)`.
    pub fn new(name: &str) -> Self {
        Path(name.to_owned())
    }

    /// The empty, relative path: its first child prints without a dot, its first index as `[0]`.
    pub fn root() -> Self {
        Path(String::new())
    }

    /// A path already rendered (for example one a parser returned).
    pub fn from_rendered(rendered: impl Into<String>) -> Self {
        Path(rendered.into())
    }

    /// `p.Child(name)`: `p.name`.
    pub fn child(&self, name: &str) -> Self {
        if self.0.is_empty() {
            Path(name.to_owned())
        } else {
            self.joined(&[".", name])
        }
    }

    /// `p.Index(i)`: `p[i]`.
    pub fn index(&self, i: usize) -> Self {
        self.joined(&["[", &i.to_string(), "]"])
    }

    /// `p.Key(key)`: `p[key]` (the key is not quoted).
    pub fn key(&self, key: &str) -> Self {
        self.joined(&["[", key, "]"])
    }

    /// A relative path (as [`Path::root`] builds them) under this one: `spec` joined with
    /// `rules[0].operations` is `spec.rules[0].operations`, with `[0]` is `spec[0]`.
    pub fn join(&self, relative: &str) -> Self {
        if relative.is_empty() {
            self.clone()
        } else if self.0.is_empty() || relative.starts_with('[') {
            self.joined(&[relative])
        } else {
            self.joined(&[".", relative])
        }
    }

    /// This path with `parts` appended, in one allocation (paths are built for every check a request runs, most of
    /// them never printed, so not through `format!`).
    fn joined(&self, parts: &[&str]) -> Self {
        let mut s =
            String::with_capacity(self.0.len() + parts.iter().map(|p| p.len()).sum::<usize>());
        s.push_str(&self.0);
        for p in parts {
            s.push_str(p);
        }
        Path(s)
    }

    /// `p.String()`.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether this is the empty, relative root.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<Path> for String {
    fn from(p: Path) -> String {
        p.0
    }
}

/// `field.ErrorType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorType {
    NotFound,
    Required,
    Duplicate,
    Invalid,
    NotSupported,
    Forbidden,
    TooLong,
    TooMany,
    TooFew,
    Internal,
    TypeInvalid,
    TooShort,
}

impl ErrorType {
    /// `ErrorType.String()`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::NotFound => "Not found",
            Self::Required => "Required value",
            Self::Duplicate => "Duplicate value",
            Self::Invalid | Self::TypeInvalid => "Invalid value",
            Self::NotSupported => "Unsupported value",
            Self::Forbidden => "Forbidden",
            Self::TooLong => "Too long",
            Self::TooMany => "Too many",
            Self::TooFew => "Too few",
            Self::Internal => "Internal error",
            Self::TooShort => "Too short",
        }
    }

    /// Whether `ErrorBody` prints the bad value for this type.
    fn shows_value(self) -> bool {
        matches!(
            self,
            Self::Invalid
                | Self::TypeInvalid
                | Self::NotSupported
                | Self::NotFound
                | Self::Duplicate
                | Self::TooMany
                | Self::TooFew
        )
    }
}

impl fmt::Display for ErrorType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The bad value of a field error, as `ErrorBody` renders it.
#[derive(Debug, Clone, PartialEq)]
pub enum BadValue {
    /// upstream's `omitValue`: nothing printed.
    Omitted,
    /// A string: Go's `%q`.
    Str(String),
    /// An integer: Go's `%v`.
    Int(i64),
    /// A boolean: Go's `%v`.
    Bool(bool),
    /// Anything else: Go's `json.Marshal` (objects with sorted keys, as Go's maps; `<`, `>`, `&`
    /// escaped).
    Json(Value),
}

impl BadValue {
    /// A JSON value as upstream would hold it after decoding: strings, integers and booleans as
    /// themselves, everything else as JSON.
    pub fn from_json(v: &Value) -> Self {
        match v {
            Value::String(s) => Self::Str(s.clone()),
            Value::Bool(b) => Self::Bool(*b),
            Value::Number(n) => match n.as_i64() {
                Some(i) => Self::Int(i),
                None => Self::Json(v.clone()),
            },
            other => Self::Json(other.clone()),
        }
    }

    /// A Go `[]string`.
    pub fn strings<S: AsRef<str>>(items: &[S]) -> Self {
        Self::Json(Value::Array(
            items
                .iter()
                .map(|s| Value::String(s.as_ref().to_owned()))
                .collect(),
        ))
    }

    fn render(&self) -> Option<String> {
        match self {
            Self::Omitted => None,
            Self::Str(s) => Some(quote(s)),
            Self::Int(i) => Some(i.to_string()),
            Self::Bool(b) => Some(b.to_string()),
            Self::Json(v) => Some(go_json(v)),
        }
    }
}

impl From<&str> for BadValue {
    fn from(s: &str) -> Self {
        Self::Str(s.to_owned())
    }
}

impl From<String> for BadValue {
    fn from(s: String) -> Self {
        Self::Str(s)
    }
}

impl From<&String> for BadValue {
    fn from(s: &String) -> Self {
        Self::Str(s.clone())
    }
}

impl From<i64> for BadValue {
    fn from(i: i64) -> Self {
        Self::Int(i)
    }
}

impl From<bool> for BadValue {
    fn from(b: bool) -> Self {
        Self::Bool(b)
    }
}

impl From<&Value> for BadValue {
    fn from(v: &Value) -> Self {
        Self::from_json(v)
    }
}

/// Go's `json.Marshal` of a decoded JSON value (HTML-safe escaping, as by default).
pub fn go_json(v: &Value) -> String {
    let mut out = String::new();
    write_json(&mut out, v);
    out
}

fn write_json(out: &mut String, v: &Value) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&n.to_string()),
        Value::String(s) => out.push_str(&json_string(s)),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (k, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&json_string(k));
                out.push(':');
                write_json(out, item);
            }
            out.push('}');
        }
    }
}

/// One `field.Error`.
#[derive(Debug, Clone, PartialEq)]
pub struct Error {
    pub kind: ErrorType,
    /// The rendered path (`Error.Field`).
    pub field: String,
    pub bad_value: BadValue,
    pub detail: String,
}

impl Error {
    fn new(kind: ErrorType, path: &Path, bad_value: BadValue, detail: impl Into<String>) -> Self {
        Error {
            kind,
            field: path.as_str().to_owned(),
            bad_value,
            detail: detail.into(),
        }
    }

    /// `field.Invalid(path, value, detail)`.
    pub fn invalid(path: &Path, value: impl Into<BadValue>, detail: impl Into<String>) -> Self {
        Self::new(ErrorType::Invalid, path, value.into(), detail)
    }

    /// `field.TypeInvalid(path, value, detail)`.
    pub fn type_invalid(
        path: &Path,
        value: impl Into<BadValue>,
        detail: impl Into<String>,
    ) -> Self {
        Self::new(ErrorType::TypeInvalid, path, value.into(), detail)
    }

    /// `field.Required(path, detail)`.
    pub fn required(path: &Path, detail: impl Into<String>) -> Self {
        Self::new(
            ErrorType::Required,
            path,
            BadValue::Str(String::new()),
            detail,
        )
    }

    /// `field.Forbidden(path, detail)`.
    pub fn forbidden(path: &Path, detail: impl Into<String>) -> Self {
        Self::new(
            ErrorType::Forbidden,
            path,
            BadValue::Str(String::new()),
            detail,
        )
    }

    /// `field.Duplicate(path, value)`.
    pub fn duplicate(path: &Path, value: impl Into<BadValue>) -> Self {
        Self::new(ErrorType::Duplicate, path, value.into(), "")
    }

    /// `field.NotFound(path, value)`.
    pub fn not_found(path: &Path, value: impl Into<BadValue>) -> Self {
        Self::new(ErrorType::NotFound, path, value.into(), "")
    }

    /// `field.NotSupported(path, value, valid)`: `valid` in the order upstream lists them.
    pub fn not_supported<S: AsRef<str>>(
        path: &Path,
        value: impl Into<BadValue>,
        valid: &[S],
    ) -> Self {
        let detail = if valid.is_empty() {
            String::new()
        } else {
            let quoted: Vec<String> = valid.iter().map(|v| quote(v.as_ref())).collect();
            format!("supported values: {}", quoted.join(", "))
        };
        Self::new(ErrorType::NotSupported, path, value.into(), detail)
    }

    /// `field.TooLong(path, value, max)`: a negative `max` is unknown.
    pub fn too_long(path: &Path, max: i64) -> Self {
        Self::too_long_in(path, max, "byte")
    }

    /// `field.TooLongCharacters(path, value, max)`.
    pub fn too_long_characters(path: &Path, max: i64) -> Self {
        Self::too_long_in(path, max, "character")
    }

    fn too_long_in(path: &Path, max: i64, unit: &str) -> Self {
        let detail = if max >= 0 {
            let plural = if max == 1 { "" } else { "s" };
            format!("may not be more than {max} {unit}{plural}")
        } else {
            "value is too long".to_owned()
        };
        Self::new(
            ErrorType::TooLong,
            path,
            BadValue::Str("<value omitted>".to_owned()),
            detail,
        )
    }

    /// `field.TooMany(path, actual, max)`: a negative number is unknown.
    pub fn too_many(path: &Path, actual: i64, max: i64) -> Self {
        let detail = if max >= 0 {
            let items = if max == 1 { "item" } else { "items" };
            format!("must have at most {max} {items}")
        } else {
            "has too many items".to_owned()
        };
        let value = if actual >= 0 {
            BadValue::Int(actual)
        } else {
            BadValue::Omitted
        };
        Self::new(ErrorType::TooMany, path, value, detail)
    }

    /// `field.InternalError(path, err)`.
    pub fn internal(path: &Path, err: impl Into<String>) -> Self {
        Self::new(ErrorType::Internal, path, BadValue::Omitted, err)
    }

    /// `ErrorBody()`: the message without the path.
    pub fn body(&self) -> String {
        let mut s = self.kind.as_str().to_owned();
        if self.kind.shows_value()
            && let Some(v) = self.bad_value.render()
        {
            s.push_str(": ");
            s.push_str(&v);
        }
        if !self.detail.is_empty() {
            s.push_str(": ");
            s.push_str(&self.detail);
        }
        s
    }
}

/// `Error()`: `path: body`.
impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.body())
    }
}

impl std::error::Error for Error {}

/// `field.ErrorList.ToAggregate().Error()`: identical messages once, one bare, several as
/// `[a, b]`; `None` for an empty list.
pub fn aggregate(errs: &[Error]) -> Option<String> {
    let messages: Vec<String> = errs.iter().map(ToString::to_string).collect();
    crate::errors::aggregate(&messages)
}

/// One `field.Invalid(path, value, msg)` for each message of a validator (the idiom every
/// upstream caller of `IsDNS1123Subdomain`, `IsQualifiedName`, … uses).
pub fn invalid_each(path: &Path, value: &str, messages: Vec<String>) -> Vec<Error> {
    messages
        .into_iter()
        .map(|m| Error::invalid(path, value, m))
        .collect()
}

#[cfg(test)]
mod tests;
