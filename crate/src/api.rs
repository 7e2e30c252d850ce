//! The `&[u8]`/`&str` level every entrypoint goes through, so behaviour cannot drift between the C ABI, Kubewarden,
//! the browser and the harness.

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::bundle::ConfigError;
use crate::context::StaticContext;
use crate::engine::Engine;
use crate::review::{
    ADMISSION_V1, ADMISSION_V1BETA1, AdmissionRequest, AdmissionResponse, AdmissionReviewOut,
};

/// Parse a bundle (JSON) and compile it.
pub fn configure(bundle_json: &[u8]) -> Result<Engine, ConfigError> {
    if bundle_json.len() > crate::bundle::MAX_BUNDLE_BYTES {
        return Err(ConfigError::at_root(format!(
            "the bundle is {} bytes, more than the {} bytes Palisade reads: split it into several policies",
            bundle_json.len(),
            crate::bundle::MAX_BUNDLE_BYTES
        )));
    }
    let value: Value = serde_json::from_slice(bundle_json)
        .map_err(|e| ConfigError::at_root(format!("the bundle is not valid JSON: {e}")))?;
    Engine::new(&value)
}

/// The answer of `configure`: `{"valid":true}` or `{"valid":false,"message":…,"problems":[…]}`.
pub fn configure_answer(result: &Result<Engine, ConfigError>) -> String {
    let answer = match result {
        Ok(engine) if engine.diagnostics().is_empty() => serde_json::json!({"valid": true}),
        Ok(engine) => serde_json::json!({
            "valid": true,
            "warnings": engine.diagnostics().iter().map(ToString::to_string).collect::<Vec<_>>(),
        }),
        Err(e) if e.unlisted > 0 => serde_json::json!({
            "valid": false, "message": e.to_string(), "problems": e.problems, "unlisted": e.unlisted,
        }),
        Err(e) => {
            serde_json::json!({"valid": false, "message": e.to_string(), "problems": e.problems})
        }
    };
    answer.to_string()
}

/// Input of `validate`: a bare AdmissionReview, or `{"review": AdmissionReview, "context": …}`. One pass over the bytes.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Input {
    api_version: Option<String>,
    kind: Option<String>,
    request: Option<AdmissionRequest>,
    review: Option<Box<Input>>,
    context: Option<StaticContext>,
}

/// A review that could not be read: why, and what we could still recover of it to answer well-formed.
struct Unreadable {
    message: String,
}

/// Read a JSON object document (`what` names it in messages, e.g. "the AdmissionReview") into `T`. The fast path reads
/// without tracking field paths; for a failing input, where serde_json stopped gives the field path.
pub(crate) fn read_object<T: DeserializeOwned>(input: &[u8], what: &str) -> Result<T, String> {
    let text = std::str::from_utf8(input).map_err(|e| format!("{what} is not valid UTF-8: {e}"))?;
    if !text.trim_start().starts_with('{') {
        return Err(match serde_json::from_str::<Value>(text) {
            Ok(other) => format!(
                "{what} must be a JSON object, not {}",
                crate::bundle::type_name(&other)
            ),
            Err(e) => format!("{what} is not valid JSON: {e}"),
        });
    }
    let e = match serde_json::from_str(text) {
        Ok(parsed) => return Ok(parsed),
        Err(e) => e,
    };
    // the field path, from where serde_json stopped (crate::jsonpath: no second, path-tracking parse)
    let path = if e.is_data() {
        let offset = crate::jsonpath::offset_of(text, e.line(), e.column());
        crate::jsonpath::path_at(text, offset, e.to_string().starts_with("unknown field"))
    } else {
        ".".to_owned()
    };
    if path == "." {
        Err(format!("{what} is not valid JSON: {e}"))
    } else {
        Err(format!("{what} has a wrong field: {path}: {e}"))
    }
}

/// Read the input of `validate` into (apiVersion, request, context).
fn read_input(input: &[u8]) -> Result<(String, AdmissionRequest, StaticContext), Unreadable> {
    let parsed: Input =
        read_object(input, "the AdmissionReview").map_err(|message| Unreadable { message })?;
    let (review, context) = match parsed.review {
        Some(review) => (*review, parsed.context),
        None => {
            let context = parsed.context;
            (
                Input {
                    context: None,
                    review: None,
                    ..parsed
                },
                context,
            )
        }
    };
    let api_version = review
        .api_version
        .unwrap_or_else(|| ADMISSION_V1.to_owned());
    if api_version != ADMISSION_V1 && api_version != ADMISSION_V1BETA1 {
        return Err(Unreadable {
            message: format!(
                "unsupported AdmissionReview apiVersion `{api_version}`: expected `{ADMISSION_V1}` or `{ADMISSION_V1BETA1}`"
            ),
        });
    }
    if let Some(kind) = review.kind.as_deref().filter(|k| *k != "AdmissionReview") {
        return Err(Unreadable {
            message: format!("expected kind `AdmissionReview`, not `{kind}`"),
        });
    }
    let Some(request) = review.request else {
        return Err(Unreadable {
            message: NO_REQUEST.to_owned(),
        });
    };
    Ok((
        api_version,
        request.normalized(),
        context.unwrap_or_default(),
    ))
}

/// The answer to an AdmissionReview without a request.
pub(crate) const NO_REQUEST: &str = "the AdmissionReview has no `request`";

/// What an unreadable input's answer echoes: its apiVersion (when it is one Palisade speaks) and its uid, whenever
/// they are present as strings, whatever else is wrong ([`crate::review::identity`]).
fn recover_identity(input: &[u8]) -> (String, String) {
    let found = crate::review::identity(input);
    let api_version = found
        .api_version
        .filter(|v| v == ADMISSION_V1 || v == ADMISSION_V1BETA1)
        .unwrap_or_else(|| ADMISSION_V1.to_owned());
    (api_version, found.uid.unwrap_or_default())
}

/// `validate`: decide one AdmissionReview with a configured engine, or explain why there is none.
/// `engine` is `Err(reason)` when no bundle is configured.
pub fn validate(engine: Result<&Engine, &str>, input: &[u8]) -> String {
    let (api_version, request, context) = match read_input(input) {
        Ok(parts) => parts,
        Err(Unreadable { message }) => {
            let (api_version, uid) = recover_identity(input);
            return AdmissionReviewOut::new(
                &api_version,
                AdmissionResponse::deny(&uid, 400, "BadRequest", message),
            )
            .to_json();
        }
    };
    let response = match engine {
        Ok(engine) => engine.review(&request, &context),
        Err(reason) => AdmissionResponse::deny(
            &request.uid,
            500,
            "InternalError",
            format!("palisade is not configured: {reason}"),
        ),
    };
    AdmissionReviewOut::new(&api_version, response).to_json()
}

/// `explain`: decide one input as [`validate`] does and say how: every ValidatingAdmissionPolicy and binding with
/// whether it matched and why not, the params chosen, every expression's value or error and CEL cost, the
/// CertificateRequestPolicy decision, and the verdict (`verdict`: exactly what `validate` answers). JSON
/// ([`crate::explain::Trace`]). An unreadable input gets `error` and the 400 verdict.
pub fn explain(engine: &Engine, input: &[u8]) -> String {
    let trace = match read_input(input) {
        Ok((api_version, request, context)) => {
            let (response, mut trace) = engine.explain(&request, &context);
            trace.verdict =
                answer_value(&AdmissionReviewOut::new(&api_version, response).to_json());
            trace
        }
        Err(Unreadable { message }) => {
            let (api_version, uid) = recover_identity(input);
            let verdict = AdmissionReviewOut::new(
                &api_version,
                AdmissionResponse::deny(&uid, 400, "BadRequest", message.clone()),
            )
            .to_json();
            crate::explain::Trace {
                error: Some(message),
                verdict: answer_value(&verdict),
                ..crate::explain::Trace::default()
            }
        }
    };
    serde_json::to_string(&trace).unwrap_or_else(|e| {
        serde_json::json!({"error": format!("the trace cannot be written: {e}")}).to_string()
    })
}

/// The AdmissionReview answer as a JSON value, for the trace.
fn answer_value(answer: &str) -> Value {
    serde_json::from_str(answer).unwrap_or_else(|_| Value::String(answer.to_owned()))
}

/// [`explain`] with a bundle: configure then explain in one call (the native path of `palisade eval --explain` and of
/// case files' `expect.matched`). A bundle that does not compile is `{"error": …, "problems": […]}`.
pub fn explain_json(bundle_json: &str, input_json: &str) -> String {
    match configure(bundle_json.as_bytes()) {
        Ok(engine) => explain(&engine, input_json.as_bytes()),
        Err(e) => serde_json::json!({
            "error": format!("the bundle was rejected: {e}"),
            "problems": e.problems,
        })
        .to_string(),
    }
}

/// Why `validate` has no engine before any `configure`.
pub const NEVER_CONFIGURED: &str =
    "no bundle has been configured (call `configure` with a bundle first)";

/// Configure then validate in one call: what the C ABI answers for `configure(bundle)` then `validate(input)`.
/// Used to check that the library and the built `.wasm` agree.
pub fn review_json(bundle_json: &str, input_json: &str) -> String {
    let engine = configure(bundle_json.as_bytes());
    let reason = engine
        .as_ref()
        .err()
        .map(|e| format!("the last bundle was rejected: {e}"));
    match (&engine, reason) {
        (Ok(engine), _) => validate(Ok(engine), input_json.as_bytes()),
        (Err(_), Some(reason)) => validate(Err(&reason), input_json.as_bytes()),
        (Err(_), None) => validate(Err(NEVER_CONFIGURED), input_json.as_bytes()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A request with every field kube-apiserver always sends.
    const REQUEST: &str = r#""kind":{"group":"","version":"v1","kind":"Pod"},"resource":{"group":"","version":"v1","resource":"pods"},"operation":"CREATE","userInfo":{"username":"alice"}"#;

    fn answer(bundle: &str, input: &[u8]) -> Value {
        let engine = configure(bundle.as_bytes()).unwrap();
        serde_json::from_str(&validate(Ok(&engine), input)).unwrap()
    }

    #[test]
    fn empty_bundle_allows_and_echoes() {
        let input = format!(
            r#"{{"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","request":{{"uid":"u1",{REQUEST}}}}}"#
        );
        let out = answer("{}", input.as_bytes());
        assert_eq!(out["apiVersion"], "admission.k8s.io/v1beta1");
        assert_eq!(out["response"]["uid"], "u1");
        assert_eq!(out["response"]["allowed"], true);
        assert!(out["response"].get("status").is_none());
    }

    #[test]
    fn wrapped_input_with_context() {
        let input = format!(
            r#"{{"review":{{"request":{{"uid":"u2",{REQUEST}}}}},"context":{{"namespaces":[]}}}}"#
        );
        let out = answer("{}", input.as_bytes());
        assert_eq!(out["response"]["uid"], "u2");
        assert_eq!(out["response"]["allowed"], true);
    }

    #[test]
    fn bad_inputs_are_400_with_uid_when_recoverable() {
        for (input, needle) in [
            (&b"{not json"[..], "not valid JSON"),
            (b"\xff\xfe", "not valid UTF-8"),
            (b"[1,2]", "must be a JSON object, not a list"),
            (b"", "not valid JSON"),
            (br#"{"apiVersion":"admission.k8s.io/v1"}"#, "no `request`"),
            (
                br#"{"request":{"uid":"u3","operation":5}}"#,
                "request.operation",
            ),
            (
                br#"{"apiVersion":"v1","request":{"uid":"v","kind":{},"resource":{},"operation":"CREATE","userInfo":{}}}"#,
                "unsupported AdmissionReview apiVersion",
            ),
        ] {
            let out = answer("{}", input);
            let response = &out["response"];
            assert_eq!(response["allowed"], false, "{needle}");
            assert_eq!(response["status"]["code"], 400, "{needle}");
            let message = response["status"]["message"].as_str().unwrap();
            assert!(
                message.contains(needle),
                "{message} should contain {needle}"
            );
        }
        let out = answer("{}", br#"{"request":{"uid":"u3","operation":5}}"#);
        assert_eq!(out["response"]["uid"], "u3");
    }

    /// The external fuzzer's minimal inputs: the uid and apiVersion are echoed whatever else is unreadable.
    #[test]
    fn uid_and_api_version_survive_any_other_fault() {
        let deep_kind = format!(
            r#"{{"review":{{"apiVersion":"admission.k8s.io/v1beta1","request":{{"uid":"k","kind":{}{}}}}}}}"#,
            "[".repeat(125),
            "]".repeat(125)
        );
        for (input, uid, api_version) in [
            (
                r#"{"review":{"request":{"uid":"0"}},"context":{"":1e400}}"#.to_owned(),
                "0",
                ADMISSION_V1,
            ),
            (
                r#"{"review":{"request":{"uid":"0","operation":1e309}}}"#.to_owned(),
                "0",
                ADMISSION_V1,
            ),
            (
                r#"{"review":{"apiVersion":"admission.k8s.io/v1beta1","":{"":1e400}}}"#.to_owned(),
                "",
                ADMISSION_V1BETA1,
            ),
            (deep_kind, "k", ADMISSION_V1BETA1),
        ] {
            let out = answer("{}", input.as_bytes());
            assert_eq!(out["response"]["status"]["code"], 400, "{input}");
            assert_eq!(out["response"]["uid"], uid, "{input}");
            assert_eq!(out["apiVersion"], api_version, "{input}");
        }
    }

    /// kube-apiserver always sends uid, kind, resource, operation and userInfo: without one, the review is refused.
    #[test]
    fn a_request_without_a_required_field_is_400_naming_it() {
        let out = answer("{}", br#"{"request":{}}"#);
        assert_eq!(out["response"]["status"]["code"], 400);
        let full = format!(r#"{{"uid":"r",{REQUEST}}}"#);
        let full: Value = serde_json::from_str(&full).unwrap();
        for field in ["uid", "kind", "resource", "operation", "userInfo"] {
            let mut request = full.clone();
            request.as_object_mut().unwrap().remove(field);
            let input = serde_json::json!({ "request": request }).to_string();
            let out = answer("{}", input.as_bytes());
            let message = out["response"]["status"]["message"].as_str().unwrap();
            assert_eq!(out["response"]["status"]["code"], 400, "{field}");
            assert!(
                message.contains(&format!("missing field `{field}`")),
                "{field}: {message}"
            );
            if field != "uid" {
                assert_eq!(out["response"]["uid"], "r");
            }
        }
    }

    #[test]
    fn deep_nesting_is_a_clean_400() {
        let deep = format!(
            "{{\"request\":{{\"uid\":\"d\",\"object\":{}{}}}}}",
            "[".repeat(10_000),
            "]".repeat(10_000)
        );
        let out = answer("{}", deep.as_bytes());
        assert_eq!(out["response"]["status"]["code"], 400);
        assert_eq!(out["response"]["uid"], "d");
    }

    #[test]
    fn not_configured_is_500() {
        let input = format!(r#"{{"request":{{"uid":"x",{REQUEST}}}}}"#);
        let out: Value = serde_json::from_str(&review_json("[1]", &input)).unwrap();
        assert_eq!(out["response"]["status"]["code"], 500);
        assert!(
            out["response"]["status"]["message"]
                .as_str()
                .unwrap()
                .starts_with("palisade is not configured: ")
        );
    }

    #[test]
    fn configure_answer_lists_problems() {
        let answer: Value = serde_json::from_str(&configure_answer(&configure(
            br#"{"policies":[{"kind":"X"},{}]}"#,
        )))
        .unwrap();
        assert_eq!(answer["valid"], false);
        assert_eq!(answer["problems"].as_array().unwrap().len(), 2);
        assert_eq!(
            serde_json::from_str::<Value>(&configure_answer(&configure(b"{}"))).unwrap(),
            serde_json::json!({"valid": true})
        );
    }
}
