//! The policy bundle (the settings): `{policies, params, certificateRequests}`, or a plain list of upstream documents.
//!
//! This module only sorts documents by kind and reads the bundle-level settings; each kind's own module compiles its
//! documents. Every problem is collected, never just the first.

use std::fmt;

use serde_json::{Map, Value};

/// How bad a [`Diagnostic`] is: an error rejects the bundle, a warning does not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

impl Severity {
    /// `error` or `warning`, as compilers print it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Error => "error",
            Self::Warning => "warning",
        }
    }
}

/// Where inside a CEL expression a compile error is, as cel-go prints it (`ERROR: <input>:LINE:COLUMN: …`): `line` and
/// `column` count from 1, `column` and `offset` in characters (`offset` from the start of the expression).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct ExpressionPosition {
    pub line: usize,
    pub column: usize,
    pub offset: usize,
}

impl ExpressionPosition {
    /// The position of the first issue in a cel-go style message (`ERROR: <input>:2:7: …`) about `source`.
    pub fn from_message(message: &str, source: &str) -> Option<Self> {
        let rest = message.split("ERROR: <input>:").nth(1)?;
        let mut parts = rest.splitn(3, ':');
        let line: usize = parts.next()?.parse().ok()?;
        let column: usize = parts.next()?.parse().ok()?;
        if line == 0 || column == 0 {
            return None;
        }
        let mut offset = 0;
        for (i, text) in source.split('\n').enumerate() {
            if i + 1 == line {
                return (column - 1 <= text.chars().count()).then_some(Self {
                    line,
                    column,
                    offset: offset + column - 1,
                });
            }
            offset += text.chars().count() + 1;
        }
        None
    }
}

/// One thing a user reads about a bundle, an error or a warning: where (the document and a field path from the bundle
/// root), what (`message`: lowercase, no trailing period, user input in backticks, or upstream's own words) and how to
/// fix it (`help`). In JSON, `document`, `path`, `message` and `help` are a published contract (the configure answer's
/// `problems`); `severity` and `expression` were added next to them.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Diagnostic {
    pub severity: Severity,
    /// Index in `policies` of the document the problem is in, when it is in one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub document: Option<usize>,
    /// Field path from the bundle root, e.g. `policies[2].spec.validations[0].expression`.
    pub path: String,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
    /// For a CEL expression that does not compile: where inside the expression at `path`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expression: Option<ExpressionPosition>,
}

impl Diagnostic {
    /// An error at a path of the bundle itself.
    pub fn at(path: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            severity: Severity::Error,
            document: None,
            path: path.into(),
            message: message.into(),
            help: None,
            expression: None,
        }
    }

    /// An error in `policies[index]`, at `field` inside that document (empty for the document itself).
    pub fn in_document(index: usize, field: &str, message: impl Into<String>) -> Self {
        let path = if field.is_empty() {
            format!("policies[{index}]")
        } else if field.starts_with('[') {
            format!("policies[{index}]{field}")
        } else {
            format!("policies[{index}].{field}")
        };
        Self {
            document: Some(index),
            ..Self::at(path, message)
        }
    }

    /// Attach a hint on how to fix it.
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// Make it a warning.
    pub fn warning(mut self) -> Self {
        self.severity = Severity::Warning;
        self
    }

    /// Keep where inside `source` (the expression at `path`) the cel-go style message points, if it does.
    pub fn in_expression(mut self, source: &str) -> Self {
        self.expression = ExpressionPosition::from_message(&self.message, source);
        self
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.message)?;
        if let Some(help) = &self.help {
            write!(f, " (help: {help})")?;
        }
        Ok(())
    }
}

/// The largest bundle `configure` reads, in bytes of JSON. A Kubewarden policy's settings live in one Kubernetes object,
/// which etcd keeps under 1.5 MiB; a bundle several times that is refused before it is read, with a problem that says
/// so, so that no bundle can exhaust the module's memory.
pub const MAX_BUNDLE_BYTES: usize = 8 * 1024 * 1024;

/// At most this many problems are listed in a rejected bundle's answer; the rest are counted. A small bundle can hold
/// hundreds of thousands of mistakes (an empty policy is three bytes), and listing them all would cost memory out of
/// proportion to the bundle.
pub const MAX_LISTED_PROBLEMS: usize = 1000;

/// The problems found while a bundle is compiled, as each kind's module reports them: the first
/// [`MAX_LISTED_PROBLEMS`] are kept, the rest only counted. Every module reports through this, so that no kind of
/// document can make a refused bundle's answer grow past the limit: one bad CEL expression is up to a hundred syntax
/// errors, each with the expression's line under it.
///
/// Every compiled CEL expression is also counted here, against [`palisade_cel::MAX_BUNDLE_SOURCE_BYTES`]
/// ([`Problems::spend_cel`]): the bundle's compilers all report here, so it is where the whole bundle's CEL is seen.
#[derive(Debug, Default)]
pub struct Problems {
    listed: Vec<Diagnostic>,
    unlisted: usize,
    /// Bytes of CEL source compiled so far.
    cel_bytes: usize,
}

impl Problems {
    pub fn new() -> Self {
        Self::default()
    }

    /// Report a problem.
    pub fn push(&mut self, problem: Diagnostic) {
        if self.is_full() {
            self.unlisted += 1;
        } else {
            self.listed.push(problem);
        }
    }

    /// Report a problem whose text is built only if it is listed.
    pub fn push_with(&mut self, problem: impl FnOnce() -> Diagnostic) {
        if self.is_full() {
            self.unlisted += 1;
        } else {
            self.push(problem());
        }
    }

    /// Count CEL source of `source_len` bytes at `path` in `policies[document]` against the bundle's limit: false when
    /// the bundle's CEL is past it, and the expression is then not to be compiled. The expression that goes past the
    /// limit is reported; the ones after it are not (the bundle is refused already).
    pub fn spend_cel(&mut self, document: usize, path: &str, source_len: usize) -> bool {
        let was_past = self.cel_bytes > palisade_cel::MAX_BUNDLE_SOURCE_BYTES;
        self.cel_bytes = self.cel_bytes.saturating_add(source_len);
        if self.cel_bytes <= palisade_cel::MAX_BUNDLE_SOURCE_BYTES {
            return true;
        }
        if !was_past {
            self.push(
                Diagnostic::in_document(document, path, palisade_cel::PAST_BUNDLE_SOURCE_LIMIT)
                    .with_help(palisade_cel::PAST_BUNDLE_SOURCE_LIMIT_HELP),
            );
        }
        false
    }

    /// How many bytes of CEL the bundle may still compile.
    pub fn cel_left(&self) -> usize {
        palisade_cel::MAX_BUNDLE_SOURCE_BYTES.saturating_sub(self.cel_bytes)
    }

    fn is_full(&self) -> bool {
        self.listed.len() >= MAX_LISTED_PROBLEMS
    }

    /// The problems that will be listed: the first [`MAX_LISTED_PROBLEMS`] reported.
    pub fn listed(&self) -> &[Diagnostic] {
        &self.listed
    }

    /// How many problems were reported, listed or not.
    pub fn len(&self) -> usize {
        self.listed.len() + self.unlisted
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A bundle that does not compile, with the problems found: every one, up to [`MAX_LISTED_PROBLEMS`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    pub problems: Vec<Diagnostic>,
    /// Problems found beyond the listed ones.
    pub unlisted: usize,
}

impl ConfigError {
    /// One problem, at the root of the bundle.
    pub fn at_root(message: impl Into<String>) -> Self {
        Self {
            problems: vec![Diagnostic::at("", message)],
            unlisted: 0,
        }
    }
}

impl From<Problems> for ConfigError {
    fn from(problems: Problems) -> Self {
        Self {
            problems: problems.listed,
            unlisted: problems.unlisted,
        }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.problems.len() + self.unlisted;
        write!(
            f,
            "the bundle has {n} problem{}: ",
            if n == 1 { "" } else { "s" }
        )?;
        for (i, p) in self.problems.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{p}")?;
        }
        if self.unlisted > 0 {
            write!(f, "; and {} more not listed", self.unlisted)?;
        }
        Ok(())
    }
}

impl std::error::Error for ConfigError {}

/// Whether a mapping is a bundle document (`{policies, params, certificateRequests}`) rather
/// than an upstream object.
pub fn is_bundle_document(v: &Value) -> bool {
    let Some(map) = v.as_object() else {
        return false;
    };
    !map.contains_key("kind")
        && !map.contains_key("apiVersion")
        && (map.contains_key("policies")
            || map.contains_key("params")
            || map.contains_key("certificateRequests"))
}

/// Turns the documents of a bundle file into the bundle JSON handed to `configure`:
/// a single `{policies, params, certificateRequests}` document is taken as it is; a stream of
/// upstream objects (a `kind: List` contributes its items, a JSON array its elements) becomes
/// `{"policies": [...]}`.
pub fn from_documents(docs: Vec<Value>) -> Value {
    if let [single] = docs.as_slice()
        && is_bundle_document(single)
    {
        return single.clone();
    }
    let mut policies = Vec::new();
    for doc in docs {
        flatten_into(doc, &mut policies);
    }
    let mut bundle = Map::new();
    bundle.insert("policies".into(), Value::Array(policies));
    Value::Object(bundle)
}

fn flatten_into(doc: Value, out: &mut Vec<Value>) {
    match doc {
        Value::Array(items) => out.extend(items),
        Value::Object(ref map)
            if map.get("kind").and_then(Value::as_str) == Some("List")
                && map.get("items").is_some_and(Value::is_array) =>
        {
            if let Some(Value::Array(items)) = map.get("items") {
                out.extend(items.iter().cloned());
            }
        }
        other => out.push(other),
    }
}

/// What a CertificateRequest no policy selects gets (`certificateRequests.unmatched`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Unmatched {
    #[default]
    Deny,
    Allow,
}

/// `certificateRequests:` settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CertificateRequestSettings {
    pub unmatched: Unmatched,
    pub require_use_permission: bool,
    /// Whether the bundle wrote a `certificateRequests` block at all.
    pub explicit: bool,
}

impl Default for CertificateRequestSettings {
    fn default() -> Self {
        Self {
            unmatched: Unmatched::Deny,
            require_use_permission: true,
            explicit: false,
        }
    }
}

/// The document kinds Palisade understands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    ValidatingAdmissionPolicy,
    ValidatingAdmissionPolicyBinding,
    CertificateRequestPolicy,
}

const ADMISSIONREGISTRATION: [&str; 3] = [
    "admissionregistration.k8s.io/v1",
    "admissionregistration.k8s.io/v1beta1",
    "admissionregistration.k8s.io/v1alpha1",
];
const CERT_MANAGER_POLICY: &str = "policy.cert-manager.io/v1alpha1";
const KNOWN: &str = "Palisade reads ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding \
(admissionregistration.k8s.io/v1) and CertificateRequestPolicy (policy.cert-manager.io/v1alpha1)";

/// A bundle sorted by kind; documents keep their index in `policies`.
#[derive(Debug, Default)]
pub struct Bundle<'a> {
    pub documents: Vec<(usize, Kind, &'a Value)>,
    pub params: Vec<&'a Value>,
    pub certificate_requests: CertificateRequestSettings,
}

impl<'a> Bundle<'a> {
    /// Documents of one kind, with their index.
    pub fn of_kind(&self, kind: Kind) -> impl Iterator<Item = (usize, &'a Value)> + '_ {
        self.documents
            .iter()
            .filter(move |(_, k, _)| *k == kind)
            .map(|(i, _, v)| (*i, *v))
    }
}

/// Sort a bundle's documents; problems are appended to `problems`.
pub fn read<'a>(root: &'a Value, problems: &mut Problems) -> Bundle<'a> {
    let mut bundle = Bundle::default();
    match root {
        Value::Array(items) => read_policies(items, &mut bundle, problems),
        Value::Object(map) if map.contains_key("kind") && map.contains_key("apiVersion") => {
            read_policies(std::slice::from_ref(root), &mut bundle, problems);
        }
        Value::Object(map) => read_object(map, &mut bundle, problems),
        Value::Null => {}
        other => problems.push(
            Diagnostic::at(
                "",
                format!(
                    "a bundle must be an object or a list of documents, not {}",
                    type_name(other)
                ),
            )
            .with_help(
                "write `policies: [...]`, optionally with `params:` and `certificateRequests:`",
            ),
        ),
    }
    bundle
}

fn read_object<'a>(map: &'a Map<String, Value>, bundle: &mut Bundle<'a>, problems: &mut Problems) {
    for (key, value) in map {
        match key.as_str() {
            "policies" => match value {
                Value::Array(items) => read_policies(items, bundle, problems),
                Value::Null => {}
                other => problems.push(Diagnostic::at(
                    "policies",
                    format!("must be a list, not {}", type_name(other)),
                )),
            },
            "params" => match value {
                Value::Array(items) => {
                    for (i, p) in items.iter().enumerate() {
                        if p.is_object() {
                            bundle.params.push(p);
                        } else {
                            problems.push(Diagnostic::at(
                                format!("params[{i}]"),
                                format!("must be an object, not {}", type_name(p)),
                            ));
                        }
                    }
                }
                Value::Null => {}
                other => problems.push(Diagnostic::at(
                    "params",
                    format!("must be a list, not {}", type_name(other)),
                )),
            },
            "certificateRequests" => {
                read_certificate_settings(value, &mut bundle.certificate_requests, problems)
            }
            other => problems.push(
                Diagnostic::at(other, format!("unknown bundle field `{other}`"))
                    .with_help("a bundle has `policies`, `params` and `certificateRequests`"),
            ),
        }
    }
}

fn read_certificate_settings(
    value: &Value,
    settings: &mut CertificateRequestSettings,
    problems: &mut Problems,
) {
    settings.explicit = true;
    let Some(map) = value.as_object() else {
        if !value.is_null() {
            problems.push(Diagnostic::at(
                "certificateRequests",
                format!("must be an object, not {}", type_name(value)),
            ));
        }
        return;
    };
    for (key, v) in map {
        let path = format!("certificateRequests.{key}");
        match (key.as_str(), v) {
            ("unmatched", Value::String(s)) if s == "Deny" => settings.unmatched = Unmatched::Deny,
            ("unmatched", Value::String(s)) if s == "Allow" => {
                settings.unmatched = Unmatched::Allow
            }
            ("unmatched", other) => problems.push(Diagnostic::at(
                path,
                palisade_cel_kubernetes::field::Error::not_supported(
                    &palisade_cel_kubernetes::field::Path::new("certificateRequests")
                        .child("unmatched"),
                    palisade_cel_kubernetes::field::BadValue::from_json(other),
                    &["Allow", "Deny"],
                )
                .body(),
            )),
            ("requireUsePermission", Value::Bool(b)) => settings.require_use_permission = *b,
            ("requireUsePermission", other) => {
                problems.push(Diagnostic::at(
                    path,
                    format!("must be a boolean, not {}", type_name(other)),
                ));
            }
            (other, _) => problems.push(
                Diagnostic::at(path, format!("unknown field `{other}`"))
                    .with_help("certificateRequests has `unmatched` and `requireUsePermission`"),
            ),
        }
    }
}

fn read_policies<'a>(items: &'a [Value], bundle: &mut Bundle<'a>, problems: &mut Problems) {
    for (index, doc) in items.iter().enumerate() {
        let Some(map) = doc.as_object() else {
            problems.push(Diagnostic::in_document(
                index,
                "",
                format!("a policy must be an object, not {}", type_name(doc)),
            ));
            continue;
        };
        let api_version = map.get("apiVersion").and_then(Value::as_str).unwrap_or("");
        let kind = map.get("kind").and_then(Value::as_str).unwrap_or("");
        let known = match kind {
            "ValidatingAdmissionPolicy" => Some((
                Kind::ValidatingAdmissionPolicy,
                ADMISSIONREGISTRATION.contains(&api_version),
            )),
            "ValidatingAdmissionPolicyBinding" => Some((
                Kind::ValidatingAdmissionPolicyBinding,
                ADMISSIONREGISTRATION.contains(&api_version),
            )),
            "CertificateRequestPolicy" => Some((
                Kind::CertificateRequestPolicy,
                api_version == CERT_MANAGER_POLICY,
            )),
            _ => None,
        };
        match known {
            Some((k, true)) => bundle.documents.push((index, k, doc)),
            Some((_, false)) => problems.push(
                Diagnostic::in_document(
                    index,
                    "apiVersion",
                    format!("`{api_version}` is not an apiVersion of `{kind}`"),
                )
                .with_help(KNOWN),
            ),
            None if kind.is_empty() => problems.push(
                Diagnostic::in_document(
                    index,
                    "kind",
                    "Required value: a document must have `apiVersion` and `kind`",
                )
                .with_help(KNOWN),
            ),
            None => problems.push(
                Diagnostic::in_document(
                    index,
                    "kind",
                    format!("unknown kind `{kind}` (apiVersion `{api_version}`)"),
                )
                .with_help(KNOWN),
            ),
        }
    }
}

/// One step of a field path: `spec.validations[0]` is `Key("spec")`, `Key("validations")`, `Index(0)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathSegment<'a> {
    Key(&'a str),
    Index(usize),
}

/// The steps of a field path as diagnostics write it (`policies[2].spec.validations[0].expression`). A key holding `.`
/// or `[` cannot be told apart from nesting; such keys are split (they are rare in the fields Palisade reports on).
pub fn path_segments(path: &str) -> Vec<PathSegment<'_>> {
    let mut out = Vec::new();
    for part in path.split('.') {
        let mut rest = part;
        if let Some(open) = rest.find('[') {
            let (key, indexes) = rest.split_at(open);
            if !key.is_empty() {
                out.push(PathSegment::Key(key));
            }
            rest = indexes;
            while let Some(inner) = rest.strip_prefix('[') {
                let Some(close) = inner.find(']') else {
                    out.push(PathSegment::Key(rest));
                    break;
                };
                let (index, after) = inner.split_at(close);
                match index.parse() {
                    Ok(i) => out.push(PathSegment::Index(i)),
                    Err(_) => out.push(PathSegment::Key(index)),
                }
                rest = after.get(1..).unwrap_or("");
            }
            if !rest.is_empty() && !rest.starts_with('[') {
                out.push(PathSegment::Key(rest));
            }
        } else if !rest.is_empty() {
            out.push(PathSegment::Key(rest));
        }
    }
    out
}

/// The value at a field path (as [`path_segments`] reads it) inside `root`.
pub fn value_at<'a>(root: &'a Value, path: &str) -> Option<&'a Value> {
    path_segments(path)
        .into_iter()
        .try_fold(root, |v, segment| match segment {
            PathSegment::Key(k) => v.get(k),
            PathSegment::Index(i) => v.get(i),
        })
}

/// JSON type names for messages.
pub fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn problems_past_the_listed_ones_are_counted_without_their_text() {
        let mut problems = Problems::new();
        for i in 0..MAX_LISTED_PROBLEMS + 5 {
            problems.push_with(|| {
                assert!(i < MAX_LISTED_PROBLEMS, "problem {i} was built");
                Diagnostic::at(format!("policies[{i}]"), "bad")
            });
        }
        problems.push(Diagnostic::at("", "one more"));
        assert_eq!(problems.len(), MAX_LISTED_PROBLEMS + 6);
        assert_eq!(problems.listed().len(), MAX_LISTED_PROBLEMS);
        let error = ConfigError::from(problems);
        assert_eq!(error.unlisted, 6);
        assert!(error.to_string().ends_with("; and 6 more not listed"));
    }

    #[test]
    fn unknown_kind_and_field_are_both_reported() {
        let v = json!({"policies": [{"apiVersion": "v1", "kind": "ConfigMap"}, 3], "extra": 1});
        let mut problems = Problems::new();
        let b = read(&v, &mut problems);
        assert!(b.documents.is_empty());
        let paths: Vec<_> = problems.listed().iter().map(|p| p.path.as_str()).collect();
        assert_eq!(paths, ["extra", "policies[0].kind", "policies[1]"]);
    }

    #[test]
    fn plain_list_of_documents() {
        let v = json!([{"apiVersion": "policy.cert-manager.io/v1alpha1", "kind": "CertificateRequestPolicy"}]);
        let mut problems = Problems::new();
        let b = read(&v, &mut problems);
        assert!(problems.is_empty());
        assert_eq!(b.of_kind(Kind::CertificateRequestPolicy).count(), 1);
    }

    #[test]
    fn expression_position_from_cel_go_message() {
        let message =
            "compilation error: ERROR: <input>:2:4: undeclared reference to 'x'\n | a &&\n | ...^";
        let p = ExpressionPosition::from_message(message, "true &&\na && x").unwrap();
        assert_eq!((p.line, p.column, p.offset), (2, 4, 11));
        assert_eq!(
            ExpressionPosition::from_message("ERROR: <input>:1:1: Syntax error", "é")
                .map(|p| p.offset),
            Some(0)
        );
        // beyond the source, or no position at all
        assert_eq!(
            ExpressionPosition::from_message("ERROR: <input>:3:1: x", "a\nb"),
            None
        );
        assert_eq!(
            ExpressionPosition::from_message("ERROR: <input>:-1:0: too long", "a"),
            None
        );
        assert_eq!(
            ExpressionPosition::from_message("must be a string", "a"),
            None
        );
    }

    #[test]
    fn paths_split_into_segments() {
        use PathSegment::{Index, Key};
        assert_eq!(
            path_segments("policies[2].spec.validations[0].expression"),
            [
                Key("policies"),
                Index(2),
                Key("spec"),
                Key("validations"),
                Index(0),
                Key("expression")
            ]
        );
        assert_eq!(path_segments("[1][2].a"), [Index(1), Index(2), Key("a")]);
        assert_eq!(path_segments(""), []);
        let v = json!({"spec": {"validations": [{"expression": "x"}]}});
        assert_eq!(
            value_at(&v, "spec.validations[0].expression"),
            Some(&json!("x"))
        );
        assert_eq!(value_at(&v, "spec.validations[1]"), None);
    }

    #[test]
    fn diagnostics_serialize_with_the_published_fields() {
        let d = Diagnostic::in_document(1, "spec", "must be an object, not a string")
            .with_help("write `spec: {...}`");
        assert_eq!(
            serde_json::to_value(&d).unwrap(),
            json!({"severity": "error", "document": 1, "path": "policies[1].spec",
                   "message": "must be an object, not a string", "help": "write `spec: {...}`"})
        );
        let w = Diagnostic::at("params", "x").warning().in_expression("a");
        assert_eq!(
            serde_json::to_value(&w).unwrap(),
            json!({"severity": "warning", "path": "params", "message": "x"})
        );
    }

    #[test]
    fn certificate_settings() {
        let v =
            json!({"certificateRequests": {"unmatched": "Allow", "requireUsePermission": false}});
        let mut problems = Problems::new();
        let b = read(&v, &mut problems);
        assert!(problems.is_empty());
        assert_eq!(b.certificate_requests.unmatched, Unmatched::Allow);
        assert!(!b.certificate_requests.require_use_permission);
        let v = json!({"certificateRequests": {"unmatched": "Maybe"}});
        read(&v, &mut problems);
        assert_eq!(problems.len(), 1);
        // the apiserver's NotSupported wording, the bad value Go-quoted
        assert_eq!(problems.listed()[0].path, "certificateRequests.unmatched");
        assert_eq!(
            problems.listed()[0].message,
            r#"Unsupported value: "Maybe": supported values: "Allow", "Deny""#
        );
    }
}
