//! Case files (docs/architecture.md, "The harness CLI" and "Case files"; tests/README.md): loading, running
//! through a [`Backend`], comparing with `expect`, and rewriting `expect` for `--bless`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result, anyhow, bail};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::backend::{Backend, HostError};
use crate::documents;
use crate::host::DEFAULT_DEADLINE;
use crate::webhook;

pub use crate::outcome::Outcome;

/// One string or a list of strings (`messageContains`).
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

impl OneOrMany {
    pub fn items(&self) -> Vec<&str> {
        match self {
            Self::One(s) => vec![s.as_str()],
            Self::Many(v) => v.iter().map(String::as_str).collect(),
        }
    }
}

/// The `expect` block.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Expect {
    pub allowed: Option<bool>,
    pub code: Option<i64>,
    pub reason: Option<String>,
    pub message: Option<String>,
    pub message_contains: Option<OneOrMany>,
    pub warnings: Option<Vec<String>>,
    pub audit_annotations: Option<BTreeMap<String, String>>,
    pub skipped: Option<bool>,
    pub bundle_error: Option<bool>,
    /// The bindings that matched, as `<policy>/<binding>`, in evaluation order: checked natively through
    /// `palisade::api::Configured::explain` (the explain trace's `matched`).
    pub matched: Option<Vec<String>>,
}

/// A loaded case file.
#[derive(Debug, Clone)]
pub struct Case {
    pub file: PathBuf,
    pub name: String,
    pub bundle: Value,
    pub review: Option<Value>,
    pub context: Option<Value>,
    pub webhook: Option<Value>,
    pub expect: Expect,
    /// The `expect` block as written, for the diff.
    pub expect_raw: Value,
}

fn relative(base: &Path, p: &str) -> PathBuf {
    let path = Path::new(p);
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.parent().unwrap_or_else(|| Path::new(".")).join(path)
    }
}

impl Case {
    /// Whether a YAML document looks like a case file (a directory walk skips other YAML,
    /// such as bundles and webhook configurations kept next to the cases).
    pub fn looks_like_case(doc: &Value) -> bool {
        doc.as_object().is_some_and(|m| {
            m.contains_key("expect") || (m.contains_key("review") && !m.contains_key("kind"))
        })
    }

    pub fn load(file: &Path) -> Result<Self> {
        let doc = documents::read_document(file)?;
        Self::from_value(file, &doc)
    }

    pub fn from_value(file: &Path, doc: &Value) -> Result<Self> {
        let map = doc
            .as_object()
            .ok_or_else(|| anyhow!("a case file is a YAML mapping"))?;
        let name = match map.get("name") {
            Some(Value::String(s)) => s.clone(),
            Some(_) => bail!("`name` must be a string"),
            None => file
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default(),
        };

        let bundle = match (map.get("bundle"), map.get("policies")) {
            (Some(_), Some(_)) => bail!("give either `bundle` or top-level `policies`, not both"),
            (Some(Value::String(p)), None) => {
                let path = relative(file, p);
                documents::read_bundle(&path).with_context(|| "in `bundle`".to_string())?
            }
            (Some(inline), None) => documents::inline_bundle(inline),
            (None, Some(policies)) => {
                let mut b = Map::new();
                b.insert("policies".into(), policies.clone());
                for key in ["params", "certificateRequests"] {
                    if let Some(v) = map.get(key) {
                        b.insert(key.into(), v.clone());
                    }
                }
                Value::Object(b)
            }
            (None, None) => {
                bail!("a case needs a `bundle` (path or inline) or top-level `policies`")
            }
        };

        let review = match map.get("review") {
            Some(Value::String(p)) => Some(
                documents::read_document(&relative(file, p))
                    .with_context(|| "in `review`".to_string())?,
            ),
            Some(v @ Value::Object(_)) => Some(v.clone()),
            Some(_) => bail!("`review` must be a path or an inline AdmissionReview"),
            None => None,
        };

        let context = match map.get("context") {
            Some(Value::String(p)) => Some(
                documents::read_document(&relative(file, p))
                    .with_context(|| "in `context`".to_string())?,
            ),
            Some(Value::Null) | None => None,
            Some(v @ Value::Object(_)) => Some(v.clone()),
            Some(_) => bail!("`context` must be a path or an inline mapping"),
        };

        let webhook = match map.get("webhook") {
            Some(Value::String(p)) => {
                let docs = documents::read_documents(&relative(file, p))
                    .with_context(|| "in `webhook`".to_string())?;
                Some(webhook::pick_configuration(docs)?)
            }
            Some(Value::Null) | None => None,
            Some(v) => Some(webhook::pick_configuration(vec![v.clone()])?),
        };

        let expect_raw = map
            .get("expect")
            .cloned()
            .ok_or_else(|| anyhow!("a case needs an `expect` block"))?;
        let expect: Expect =
            serde_json::from_value(expect_raw.clone()).map_err(|e| anyhow!("in `expect`: {e}"))?;
        if expect == Expect::default() {
            bail!("`expect` names nothing to check");
        }
        if review.is_none() && expect.bundle_error != Some(true) {
            bail!("a case needs a `review` (path or inline) unless it expects `bundleError: true`");
        }
        Ok(Self {
            file: file.to_path_buf(),
            name,
            bundle,
            review,
            context,
            webhook,
            expect,
            expect_raw,
        })
    }

    /// Runs the case: configure (a bundle error ends it), then the webhook dispatch if one is
    /// given, else validate.
    pub fn run(&self, backend: &dyn Backend) -> Outcome {
        match backend.check(&self.bundle) {
            Ok(Some(message)) => return Outcome::BundleError(message),
            Ok(None) => {}
            Err(e) => return Outcome::Error(e.to_string()),
        }
        let Some(review) = &self.review else {
            return Outcome::Error(
                "the bundle compiled, and the case has no review to send".into(),
            );
        };
        if let Some(configuration) = &self.webhook {
            return webhook::dispatch(
                configuration,
                &self.bundle,
                review,
                self.context.as_ref(),
                backend,
            );
        }
        response_outcome(backend.evaluate(
            &self.bundle,
            review,
            self.context.as_ref(),
            DEFAULT_DEADLINE,
        ))
    }
}

/// The `response` of an AdmissionReview answer, or the reason there is none.
pub fn response_outcome(answer: Result<Value, HostError>) -> Outcome {
    match answer {
        Ok(review) => match review.get("response") {
            Some(r @ Value::Object(_)) => Outcome::Response(r.clone()),
            _ => Outcome::Error(format!(
                "the module answered an AdmissionReview without `response`: {review}"
            )),
        },
        Err(e) => Outcome::Error(e.to_string()),
    }
}

fn status_field<'a>(response: &'a Value, field: &str) -> Option<&'a Value> {
    response.get("status").and_then(|s| s.get(field))
}

fn warnings_of(response: &Value) -> Vec<String> {
    response
        .get("warnings")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|w| w.as_str().map_or_else(|| w.to_string(), str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

fn annotations_of(response: &Value) -> BTreeMap<String, String> {
    response
        .get("auditAnnotations")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| {
                    (
                        k.clone(),
                        v.as_str().map_or_else(|| v.to_string(), str::to_string),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The result of comparing an outcome with `expect`.
#[derive(Debug, Clone)]
pub struct Verdict {
    pub passed: bool,
    /// `expect` as written, and the same keys as observed (YAML), for the diff.
    pub expected_text: String,
    pub actual_text: String,
    /// What to write under `expect` with `--bless` (None: the outcome cannot be blessed).
    pub blessed: Option<Value>,
}

const KEY_ORDER: [&str; 11] = [
    "bundleError",
    "skipped",
    "allowed",
    "code",
    "reason",
    "message",
    "messageContains",
    "warnings",
    "auditAnnotations",
    "matched",
    "error",
];

/// Renders a mapping as YAML with its keys in [`KEY_ORDER`] (then any others), whatever the
/// map type orders them by.
fn ordered_yaml(map: &Map<String, Value>) -> String {
    let mut keys: Vec<&String> = Vec::new();
    for key in KEY_ORDER {
        if let Some((k, _)) = map.get_key_value(key) {
            keys.push(k);
        }
    }
    for k in map.keys() {
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    let mut out = String::new();
    for k in keys {
        if let Some(v) = map.get(k) {
            let mut single = Map::new();
            single.insert(k.clone(), v.clone());
            out.push_str(&to_yaml(&Value::Object(single)));
        }
    }
    if out.is_empty() {
        out.push_str("{}\n");
    }
    out
}

pub fn to_yaml(v: &Value) -> String {
    palisade_yaml::to_string(v)
}

/// Compares an outcome with the case's `expect`.
pub fn judge(case: &Case, outcome: &Outcome) -> Verdict {
    judge_with(case, outcome, true)
}

/// Backends whose protocol has no `status.reason`: Kubewarden's ValidationResponse carries a
/// message and a code only, and policy-server answers the apiserver with just those.
pub const WITHOUT_STATUS_REASON: &[&str] = &["kubewarden"];

/// Compares an outcome with the case's `expect`; `reason` is checked only when the backend's
/// protocol can carry it.
pub fn judge_with(case: &Case, outcome: &Outcome, check_reason: bool) -> Verdict {
    let e = &case.expect;
    let expected = case.expect_raw.as_object().cloned().unwrap_or_default();
    // `actual` holds, for every key of `expect`, the expected value where it matched and the
    // observed value where it did not; plus keys that show a different kind of outcome.
    let mut actual = Map::new();
    let mut ok = true;
    let put = |actual: &mut Map<String, Value>, key: &str, matched: bool, observed: Value| {
        if matched {
            if let Some(v) = expected.get(key) {
                actual.insert(key.into(), v.clone());
            }
        } else {
            actual.insert(key.into(), observed);
        }
        matched
    };

    let message: Option<String> = match outcome {
        Outcome::BundleError(m) => Some(m.clone()),
        Outcome::Response(r) => status_field(r, "message")
            .and_then(Value::as_str)
            .map(str::to_string),
        Outcome::Skipped(_) | Outcome::Error(_) => None,
    };
    let is_bundle_error = matches!(outcome, Outcome::BundleError(_));
    let is_skipped = matches!(outcome, Outcome::Skipped(_));

    if e.bundle_error.is_some() || is_bundle_error {
        let want = e.bundle_error.unwrap_or(false);
        ok &= put(
            &mut actual,
            "bundleError",
            want == is_bundle_error,
            json!(is_bundle_error),
        );
    }
    if e.skipped.is_some() || is_skipped {
        let want = e.skipped.unwrap_or(false);
        ok &= put(
            &mut actual,
            "skipped",
            want == is_skipped,
            json!(is_skipped),
        );
    }
    if let Outcome::Error(reason) = outcome {
        ok = false;
        actual.insert("error".into(), json!(reason));
    }
    let response = match outcome {
        Outcome::Response(r) => Some(r),
        _ => None,
    };
    if let Some(want) = e.allowed {
        // a request no webhook is called for is admitted, as kube-apiserver admits it
        let got = if is_skipped {
            Some(true)
        } else {
            response
                .and_then(|r| r.get("allowed"))
                .and_then(Value::as_bool)
        };
        ok &= put(
            &mut actual,
            "allowed",
            got == Some(want),
            got.map_or(Value::Null, Value::from),
        );
        drop_if_no_response(
            &mut actual,
            "allowed",
            got == Some(want),
            response.is_some() || is_skipped,
        );
    }
    if let Some(want) = e.code {
        let got = response
            .and_then(|r| status_field(r, "code"))
            .and_then(Value::as_i64);
        ok &= put(
            &mut actual,
            "code",
            got == Some(want),
            got.map_or(Value::Null, Value::from),
        );
        drop_if_no_response(&mut actual, "code", got == Some(want), response.is_some());
    }
    if e.reason.is_some() && !check_reason {
        // not observable through this backend: shown as expected, never a mismatch
        put(&mut actual, "reason", true, Value::Null);
    }
    if let Some(want) = e.reason.as_ref().filter(|_| check_reason) {
        let got = response
            .and_then(|r| status_field(r, "reason"))
            .and_then(Value::as_str);
        ok &= put(
            &mut actual,
            "reason",
            got == Some(want.as_str()),
            got.map_or(Value::Null, Value::from),
        );
        drop_if_no_response(
            &mut actual,
            "reason",
            got == Some(want.as_str()),
            response.is_some(),
        );
    }
    if let Some(want) = &e.message {
        let matched = message.as_deref() == Some(want.as_str());
        ok &= put(
            &mut actual,
            "message",
            matched,
            message.clone().map_or(Value::Null, Value::from),
        );
        drop_if_no_response(&mut actual, "message", matched, message.is_some());
    }
    if let Some(want) = &e.message_contains {
        let matched = message
            .as_deref()
            .is_some_and(|m| want.items().iter().all(|part| m.contains(part)));
        ok &= put(
            &mut actual,
            "messageContains",
            matched,
            message.clone().map_or(Value::Null, Value::from),
        );
        drop_if_no_response(&mut actual, "messageContains", matched, message.is_some());
    }
    if let Some(want) = &e.warnings {
        let got = response.map(warnings_of).unwrap_or_default();
        let mut a = want.clone();
        let mut b = got.clone();
        a.sort();
        b.sort();
        ok &= put(&mut actual, "warnings", a == b, json!(got));
        drop_if_no_response(&mut actual, "warnings", a == b, response.is_some());
    }
    if let Some(want) = &e.audit_annotations {
        let got = response.map(annotations_of).unwrap_or_default();
        let matched = *want == got;
        ok &= put(&mut actual, "auditAnnotations", matched, json!(got));
        drop_if_no_response(&mut actual, "auditAnnotations", matched, response.is_some());
    }
    let mut observed_matched = None;
    if let Some(want) = &e.matched {
        let got = matched_bindings(case);
        observed_matched = got.as_ref().ok().cloned();
        let matched = got.as_ref() == Ok(want);
        ok &= put(
            &mut actual,
            "matched",
            matched,
            match got {
                Ok(list) => json!(list),
                Err(error) => json!({ "error": error }),
            },
        );
    }
    // A response the case did not foresee at all (e.g. expect only `skipped: true` but the
    // module answered) is already a mismatch on `skipped`; show the answer too.
    if !ok && let Some(r) = response {
        if e.allowed.is_none()
            && let Some(a) = r.get("allowed")
        {
            actual.insert("allowed".into(), a.clone());
        }
        if e.message.is_none()
            && e.message_contains.is_none()
            && let Some(m) = &message
        {
            actual.insert("message".into(), json!(m));
        }
    }

    // a case that checks `matched` keeps checking it, with what was observed, when blessed
    let mut blessed = bless_value(outcome);
    if let (Some(Value::Object(map)), Some(list)) = (blessed.as_mut(), observed_matched) {
        map.insert("matched".into(), json!(list));
    }
    Verdict {
        passed: ok,
        expected_text: ordered_yaml(&expected),
        actual_text: ordered_yaml(&actual),
        blessed,
    }
}

/// The bindings that matched the case's review, from the explain trace computed natively
/// (`palisade::api::explain_json`); an error when the bundle does not compile or there is no review.
pub fn matched_bindings(case: &Case) -> Result<Vec<String>, String> {
    let review = case.review.as_ref().ok_or("the case has no review")?;
    let input = match &case.context {
        Some(context) => json!({ "review": review, "context": context }),
        None => review.clone(),
    };
    let trace: Value = serde_json::from_str(&palisade::api::explain_json(
        &case.bundle.to_string(),
        &input.to_string(),
    ))
    .map_err(|e| format!("the explain trace is not JSON: {e}"))?;
    if let Some(error) = trace.get("error").and_then(Value::as_str) {
        return Err(error.to_owned());
    }
    Ok(trace
        .get("matched")
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default())
}

/// Without a response (a bundle error, a skip, an error), response fields that did not match
/// are left out of the observed side: the outcome's own key says what happened instead.
fn drop_if_no_response(
    actual: &mut Map<String, Value>,
    key: &str,
    matched: bool,
    has_response: bool,
) {
    if !matched && !has_response {
        actual.remove(key);
    }
}

/// The `expect` block that describes an outcome exactly.
pub fn bless_value(outcome: &Outcome) -> Option<Value> {
    let mut m = Map::new();
    match outcome {
        Outcome::BundleError(message) => {
            m.insert("bundleError".into(), json!(true));
            m.insert("messageContains".into(), json!(message));
        }
        Outcome::Skipped(_) => {
            m.insert("skipped".into(), json!(true));
            m.insert("allowed".into(), json!(true));
        }
        Outcome::Response(r) => {
            m.insert(
                "allowed".into(),
                r.get("allowed").cloned().unwrap_or(Value::Null),
            );
            if let Some(code) = status_field(r, "code") {
                m.insert("code".into(), code.clone());
            }
            if let Some(message) = status_field(r, "message") {
                m.insert("message".into(), message.clone());
            }
            let warnings = warnings_of(r);
            if !warnings.is_empty() {
                m.insert("warnings".into(), json!(warnings));
            }
            let annotations = annotations_of(r);
            if !annotations.is_empty() {
                m.insert("auditAnnotations".into(), json!(annotations));
            }
        }
        Outcome::Error(_) => return None,
    }
    Some(Value::Object(m))
}

/// Rewrites the top-level `expect:` block of a case file's text, keeping everything else
/// (comments included) as it is.
pub fn rewrite_expect(text: &str, expect: &Value) -> String {
    let mut rendered = String::from("expect:\n");
    let body = expect
        .as_object()
        .map(ordered_yaml)
        .unwrap_or_else(|| to_yaml(expect));
    for line in body.lines() {
        rendered.push_str("  ");
        rendered.push_str(line);
        rendered.push('\n');
    }
    let lines: Vec<&str> = text.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.starts_with("expect:") || l.starts_with("\"expect\":"));
    let Some(start) = start else {
        let mut out = text.to_string();
        if !out.ends_with('\n') && !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&rendered);
        return out;
    };
    let end = lines
        .iter()
        .enumerate()
        .skip(start + 1)
        .find(|(_, l)| {
            l.chars()
                .next()
                .is_some_and(|c| !c.is_whitespace() && c != '#')
        })
        .map_or(lines.len(), |(i, _)| i);
    // Comments and blank lines at column 0 just before the next key belong to what follows.
    let mut end = end;
    while end > start + 1
        && lines
            .get(end - 1)
            .is_some_and(|l| l.trim().is_empty() || l.starts_with('#'))
    {
        end -= 1;
    }
    let mut out = String::new();
    for l in lines.iter().take(start) {
        out.push_str(l);
        out.push('\n');
    }
    out.push_str(&rendered);
    for l in lines.iter().skip(end) {
        out.push_str(l);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(expect: Value) -> Case {
        Case {
            file: PathBuf::from("x.yaml"),
            name: "x".into(),
            bundle: json!({"policies": []}),
            review: Some(json!({})),
            context: None,
            webhook: None,
            expect: serde_json::from_value(expect.clone()).unwrap(),
            expect_raw: expect,
        }
    }

    fn deny(message: &str) -> Outcome {
        Outcome::Response(
            json!({"uid": "1", "allowed": false, "status": {"code": 403, "message": message}}),
        )
    }

    #[test]
    fn allowed_code_message_compare() {
        let c = case(json!({"allowed": false, "code": 403, "message": "no"}));
        assert!(judge(&c, &deny("no")).passed);
        let v = judge(&c, &deny("yes"));
        assert!(!v.passed);
        assert!(v.actual_text.contains("message: yes"), "{}", v.actual_text);
    }

    #[test]
    fn message_contains_takes_a_list() {
        let c = case(json!({"messageContains": ["denied", "request"]}));
        assert!(judge(&c, &deny("x denied request")).passed);
        assert!(!judge(&c, &deny("x denied")).passed);
    }

    #[test]
    fn warnings_are_unordered() {
        let c = case(json!({"warnings": ["a", "b"]}));
        let r = Outcome::Response(json!({"allowed": true, "warnings": ["b", "a"]}));
        assert!(judge(&c, &r).passed);
        let r = Outcome::Response(json!({"allowed": true, "warnings": ["b", "a", "a"]}));
        assert!(!judge(&c, &r).passed);
    }

    #[test]
    fn an_unexpected_skip_or_bundle_error_fails() {
        let c = case(json!({"allowed": true}));
        assert!(!judge(&c, &Outcome::Skipped("no rule matched".into())).passed);
        assert!(!judge(&c, &Outcome::BundleError("bad".into())).passed);
        let c = case(json!({"skipped": true}));
        assert!(judge(&c, &Outcome::Skipped("no rule matched".into())).passed);
        assert!(!judge(&c, &Outcome::Response(json!({"allowed": true}))).passed);
    }

    /// kube-apiserver admits a request no webhook is called for: `skipped: true` goes with `allowed: true`.
    #[test]
    fn a_skipped_request_is_allowed() {
        let skip = Outcome::Skipped("no rule matched".into());
        assert!(judge(&case(json!({"skipped": true, "allowed": true})), &skip).passed);
        assert!(!judge(&case(json!({"skipped": true, "allowed": false})), &skip).passed);
        assert_eq!(
            bless_value(&skip),
            Some(json!({"skipped": true, "allowed": true}))
        );
    }

    #[test]
    fn bundle_error_with_message_contains() {
        let c = case(json!({"bundleError": true, "messageContains": "policies[0]"}));
        assert!(
            judge(
                &c,
                &Outcome::BundleError("policies[0].kind: unknown".into())
            )
            .passed
        );
        assert!(!judge(&c, &Outcome::BundleError("other".into())).passed);
        assert!(!judge(&c, &Outcome::Response(json!({"allowed": true}))).passed);
    }

    #[test]
    fn audit_annotations_compare_as_a_map() {
        let c = case(json!({"auditAnnotations": {"a/b": "x"}}));
        assert!(
            judge(
                &c,
                &Outcome::Response(json!({"allowed": true, "auditAnnotations": {"a/b": "x"}}))
            )
            .passed
        );
        assert!(!judge(&c, &Outcome::Response(json!({"allowed": true}))).passed);
    }

    #[test]
    fn reason_is_checked_only_where_the_protocol_carries_it() {
        let c = case(json!({"allowed": false, "reason": "Forbidden"}));
        let r = Outcome::Response(json!({"allowed": false, "status": {"code": 403}}));
        assert!(!judge(&c, &r).passed);
        assert!(judge_with(&c, &r, false).passed);
    }

    #[test]
    fn an_error_never_passes() {
        let c = case(json!({"allowed": true}));
        assert!(!judge(&c, &Outcome::Error("`validate` trapped".into())).passed);
    }

    #[test]
    fn rewrite_keeps_the_rest() {
        let text = "# header\nname: x\nexpect:\n  allowed: true\n  # note\n# trailing comment\nreview: r.json\n";
        let out = rewrite_expect(text, &json!({"allowed": false, "code": 403}));
        assert_eq!(
            out,
            "# header\nname: x\nexpect:\n  allowed: false\n  code: 403\n# trailing comment\nreview: r.json\n"
        );
        let out = rewrite_expect("name: x\n", &json!({"skipped": true}));
        assert_eq!(out, "name: x\nexpect:\n  skipped: true\n");
    }

    #[test]
    fn unknown_expect_keys_are_rejected() {
        let doc = json!({"policies": [], "review": {}, "expect": {"alowed": true}});
        let err = Case::from_value(Path::new("x.yaml"), &doc).unwrap_err();
        assert!(format!("{err:#}").contains("alowed"), "{err:#}");
    }
}
