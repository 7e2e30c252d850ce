//! Kubernetes `field.Error` / `utilerrors.Aggregate` wording, as approver-policy prints it.
//!
//! Paths are built like `k8s.io/apimachinery/pkg/util/validation/field.Path` (`a.b[0][key]`);
//! bad values are rendered like `ErrorBody` in apimachinery v0.36: strings Go-quoted, booleans
//! and integers plain, everything else (lists, maps) as Go's `json.Marshal` output.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::gofmt::{go_json_string, go_quote};

/// A field path, rendered as Kubernetes renders `field.Path`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Path(String);

impl Path {
    pub(crate) fn new(root: &str) -> Self {
        Path(root.to_owned())
    }
    pub(crate) fn child(&self, name: &str) -> Self {
        if self.0.is_empty() {
            Path(name.to_owned())
        } else {
            Path(format!("{}.{name}", self.0))
        }
    }
    pub(crate) fn index(&self, i: usize) -> Self {
        Path(format!("{}[{i}]", self.0))
    }
    pub(crate) fn key(&self, k: &str) -> Self {
        Path(format!("{}[{k}]", self.0))
    }
    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }
}

/// The bad value of a field error.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum BadValue {
    Str(String),
    Bool(bool),
    Int(i64),
    /// A Go `[]string`; `None` is a nil slice (`null`).
    List(Option<Vec<String>>),
    Map(BTreeMap<String, String>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Invalid,
    Required,
    NotSupported,
    Internal,
    /// Structural (schema) problems: `Invalid value` with the type in the detail.
    TypeInvalid,
}

/// One `field.Error`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FieldErr {
    pub(crate) kind: Kind,
    pub(crate) path: Path,
    pub(crate) value: BadValue,
    pub(crate) detail: String,
}

impl FieldErr {
    pub(crate) fn invalid(path: Path, value: BadValue, detail: impl Into<String>) -> Self {
        FieldErr {
            kind: Kind::Invalid,
            path,
            value,
            detail: detail.into(),
        }
    }
    pub(crate) fn required(path: Path, detail: impl Into<String>) -> Self {
        FieldErr {
            kind: Kind::Required,
            path,
            value: BadValue::Str(String::new()),
            detail: detail.into(),
        }
    }
    pub(crate) fn internal(path: Path, err: impl Into<String>) -> Self {
        FieldErr {
            kind: Kind::Internal,
            path,
            value: BadValue::Str(String::new()),
            detail: err.into(),
        }
    }
    pub(crate) fn type_invalid(path: Path, value: BadValue, detail: impl Into<String>) -> Self {
        FieldErr {
            kind: Kind::TypeInvalid,
            path,
            value,
            detail: detail.into(),
        }
    }
    /// `field.NotSupported(path, value, valid)`.
    pub(crate) fn not_supported(path: Path, value: &str, valid: &[&str]) -> Self {
        let detail = if valid.is_empty() {
            String::new()
        } else {
            let quoted: Vec<String> = valid.iter().map(|v| go_quote(v)).collect();
            format!("supported values: {}", quoted.join(", "))
        };
        FieldErr {
            kind: Kind::NotSupported,
            path,
            value: BadValue::Str(value.to_owned()),
            detail,
        }
    }

    fn type_word(&self) -> &'static str {
        match self.kind {
            Kind::Invalid | Kind::TypeInvalid => "Invalid value",
            Kind::Required => "Required value",
            Kind::NotSupported => "Unsupported value",
            Kind::Internal => "Internal error",
        }
    }

    /// `ErrorBody()`: the message without the field path.
    pub(crate) fn body(&self) -> String {
        let mut s = self.type_word().to_owned();
        if matches!(
            self.kind,
            Kind::Invalid | Kind::NotSupported | Kind::TypeInvalid
        ) {
            s.push_str(": ");
            s.push_str(&render_value(&self.value));
        }
        if !self.detail.is_empty() {
            s.push_str(": ");
            s.push_str(&self.detail);
        }
        s
    }
}

impl std::fmt::Display for FieldErr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path.as_str(), self.body())
    }
}

fn render_value(v: &BadValue) -> String {
    match v {
        BadValue::Str(s) => go_quote(s),
        BadValue::Bool(b) => b.to_string(),
        BadValue::Int(i) => i.to_string(),
        BadValue::List(None) => "null".to_owned(),
        BadValue::List(Some(items)) => {
            let mut out = String::from("[");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&go_json_string(item));
            }
            out.push(']');
            out
        }
        BadValue::Map(m) => {
            let mut out = String::from("{");
            for (i, (k, val)) in m.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                let _ = write!(out, "{}:{}", go_json_string(k), go_json_string(val));
            }
            out.push('}');
            out
        }
    }
}

/// `field.ErrorList.ToAggregate().Error()`: duplicates collapsed, one error bare, several
/// as `[a, b]`. `None` when the list is empty.
pub(crate) fn aggregate(errs: &[FieldErr]) -> Option<String> {
    let msgs: Vec<String> = errs.iter().map(ToString::to_string).collect();
    aggregate_strings(&msgs)
}

/// `utilerrors.NewAggregate(errs).Error()` over already-rendered messages.
pub(crate) fn aggregate_strings(msgs: &[String]) -> Option<String> {
    palisade_cel_kubernetes::errors::aggregate(msgs)
}
