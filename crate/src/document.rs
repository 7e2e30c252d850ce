//! Reading upstream documents field by field, collecting every problem with its path.

use palisade_cel_kubernetes::field::{self, Path};
use serde_json::{Map, Value};

use crate::bundle::{Diagnostic, Problems, type_name};

/// A view of one object inside a bundle document, that knows its path and where to report problems.
pub struct Fields<'a, 'p> {
    pub doc: usize,
    pub path: String,
    pub map: &'a Map<String, Value>,
    pub problems: &'p mut Problems,
}

static EMPTY: std::sync::LazyLock<Map<String, Value>> = std::sync::LazyLock::new(Map::new);

impl<'a, 'p> Fields<'a, 'p> {
    /// Read `value` (at `path` in document `doc`) as an object; a non-object is reported and read as empty.
    pub fn new(doc: usize, path: String, value: &'a Value, problems: &'p mut Problems) -> Self {
        let map = match value {
            Value::Object(map) => map,
            other => {
                problems.push(Diagnostic::in_document(
                    doc,
                    &path,
                    format!("must be an object, not {}", type_name(other)),
                ));
                &EMPTY
            }
        };
        Self {
            doc,
            path,
            map,
            problems,
        }
    }

    /// The path of this object inside its document.
    pub fn path(&self) -> Path {
        Path::from_rendered(self.path.as_str())
    }

    /// The path of a field of this object.
    pub fn path_of(&self, key: &str) -> Path {
        self.path().child(key)
    }

    /// The path of a field of this object, rendered.
    pub fn child(&self, key: &str) -> String {
        self.path_of(key).into()
    }

    /// Report a `field.Error` (its path inside the document).
    pub fn error(&mut self, e: field::Error) {
        self.problems
            .push(Diagnostic::in_document(self.doc, &e.field, e.body()));
    }

    /// Report `field.Required` at a field of this object (`detail` may be empty).
    pub fn required(&mut self, key: &str, detail: &str) {
        let e = field::Error::required(&self.path_of(key), detail);
        self.error(e);
    }

    /// Report a problem at a field of this object.
    pub fn problem(&mut self, key: &str, message: impl Into<String>) {
        let path = self.child(key);
        self.problems
            .push(Diagnostic::in_document(self.doc, &path, message));
    }

    /// Report a problem at an exact path inside the document.
    pub fn problem_at(&mut self, path: &str, message: impl Into<String>) {
        self.problems
            .push(Diagnostic::in_document(self.doc, path, message));
    }

    /// A field, `None` when absent or `null`.
    pub fn get(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key).filter(|v| !v.is_null())
    }

    /// An optional string field; a non-string is reported.
    pub fn string(&mut self, key: &str) -> Option<&'a str> {
        match self.get(key)? {
            Value::String(s) => Some(s.as_str()),
            other => {
                let message = format!("must be a string, not {}", type_name(other));
                self.problem(key, message);
                None
            }
        }
    }

    /// A required, non-empty string field.
    pub fn required_string(&mut self, key: &str) -> Option<&'a str> {
        match self.string(key) {
            Some(s) if !s.is_empty() => Some(s),
            Some(_) => {
                self.required(key, "");
                None
            }
            None if self.get(key).is_none() => {
                self.required(key, "");
                None
            }
            None => None,
        }
    }

    /// An optional list field; a non-list is reported.
    pub fn list(&mut self, key: &str) -> &'a [Value] {
        match self.get(key) {
            None => &[],
            Some(Value::Array(items)) => items,
            Some(other) => {
                let message = format!("must be a list, not {}", type_name(other));
                self.problem(key, message);
                &[]
            }
        }
    }

    /// An optional list of strings.
    pub fn strings(&mut self, key: &str) -> Vec<&'a str> {
        let items = self.list(key);
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            match item.as_str() {
                Some(s) => out.push(s),
                None => {
                    let path = self.path_of(key).index(i);
                    self.problem_at(
                        path.as_str(),
                        format!("must be a string, not {}", type_name(item)),
                    );
                }
            }
        }
        out
    }

    /// An optional string that must be one of `allowed`; reported in the apiserver's `Unsupported value` wording.
    pub fn enumeration(&mut self, key: &str, allowed: &[&str]) -> Option<&'a str> {
        let value = self.string(key)?;
        if allowed.contains(&value) {
            Some(value)
        } else {
            let message = unsupported(value, allowed);
            self.problem(key, message);
            None
        }
    }

    /// Report fields not in `known` (a typo would otherwise be silently ignored).
    pub fn deny_unknown(&mut self, known: &[&str]) {
        let unknown: Vec<String> = self
            .map
            .keys()
            .filter(|k| !known.contains(&k.as_str()))
            .cloned()
            .collect();
        for key in unknown {
            let message = format!("unknown field `{key}`");
            self.problem(&key, message);
        }
    }
}

/// The apiserver's wording for a value outside an enum (`field.NotSupported`'s body).
pub fn unsupported(value: &str, allowed: &[&str]) -> String {
    field::Error::not_supported(&Path::root(), value, allowed).body()
}

/// `metadata.name`, required.
pub(crate) fn metadata_name(root: &mut Fields<'_, '_>) -> Option<String> {
    let Some(meta) = root.get("metadata") else {
        root.required("metadata.name", "name or generateName is required");
        return None;
    };
    let mut meta = Fields::new(root.doc, "metadata".to_owned(), meta, root.problems);
    let name = meta.string("name");
    match name {
        Some(n) if !n.is_empty() => {
            for e in palisade_cel_kubernetes::validation::name_is_dns_subdomain(n, false) {
                meta.error(field::Error::invalid(&meta.path_of("name"), n, e));
            }
            Some(n.to_owned())
        }
        _ => {
            meta.required("name", "name or generateName is required");
            None
        }
    }
}
