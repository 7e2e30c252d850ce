//! The Kubewarden waPC guest (`palisade-kubewarden.wasm`, docs/architecture.md, "Kubewarden"): decode → call →
//! encode over [`crate::api`], with the wire types of [`crate::kubewarden`] (shared with the harness's waPC host).
//!
//! Three waPC operations, with the payloads of kubewarden/policy-sdk-rust:
//!
//! | operation | payload | answer |
//! |---|---|---|
//! | `validate` | `{"request": AdmissionRequest, "settings": bundle}` | ValidationResponse |
//! | `validate_settings` | the bundle | `{"valid": bool, "message": …}` |
//! | `protocol_version` | nothing | `"v1"` |
//!
//! None of them answers a waPC error: a payload that cannot be read is a rejecting ValidationResponse with code 400
//! (or `valid: false`), so policy-server always gets a well-formed answer. Settings are read and compiled by
//! [`crate::api`] (the bundle size limit included) in `validate` as in `validate_settings`; settings that do not
//! compile make `validate` answer what the C ABI answers after a rejected `configure` (500 `palisade is not
//! configured: …`).
//!
//! Cluster state comes from Kubewarden's host capabilities (binding `kubewarden`, namespace `kubernetes`):
//! `get_resource` for v1 Namespace objects and `can_i` for SubjectAccessReviews. They are asked lazily, at most once
//! per request and key, through [`HostCluster`], the engine's [`Cluster`] over one [`HostCall`] function. Everything
//! but the waPC glue is plain Rust over that function, so it is tested natively with a fake host (by `cargo test -p
//! palisade`, feature or not); the glue (`wapc_init`, `wapc_guest::host_call`) exists only on wasm32 with the
//! feature.

use std::cell::RefCell;
use std::collections::BTreeMap;

use palisade_cel_kubernetes::cluster::{AccessDecision, AccessQuery, Cluster, HostError, Question};
use serde_json::Value;

use crate::api::{self, ADMISSION_REVIEW, BundleDocument, Configured, ReadError, ReadFault};
pub use crate::kubewarden::{
    BINDING, CALLBACK_FAILURE_PREFIX, CAN_I, CanIRequest, GET_RESOURCE, GetResourceRequest,
    KUBERNETES, NAMESPACE_NOT_FOUND_PREFIX, SettingsText, SettingsValidationResponse,
    SubjectAccessReviewStatus, ValidationRequest, ValidationResponse,
};
use crate::review::AdmissionRequest;

/// A host error as a user may read it: a Rust backtrace that a host running with `RUST_BACKTRACE=1` appends to
/// anyhow's debug text (`\n\nStack backtrace:`) is cut off; it has no place in an admission message.
pub fn host_message(raw: &str) -> String {
    let message = raw.split("\n\nStack backtrace:").next().unwrap_or(raw);
    message.trim_end().to_owned()
}

/// Whether a host error says the namespace does not exist, as policy-evaluator's Kubernetes client words it, bare or
/// wrapped by its callback runtime.
fn is_namespace_not_found(message: &str) -> bool {
    message
        .strip_prefix(CALLBACK_FAILURE_PREFIX)
        .unwrap_or(message)
        .starts_with(NAMESPACE_NOT_FOUND_PREFIX)
}

/// The waPC host as the guest sees it: one host call in the `kubewarden` binding, `(namespace, operation, payload)`.
/// `Err` carries the host's message. `wapc_guest::host_call` on wasm32; a fake host in native tests.
pub type HostCall<'h> = dyn Fn(&str, &str, &[u8]) -> Result<Vec<u8>, String> + 'h;

/// `validate`: decide one request with the bundle sent as settings.
pub fn validate(payload: &[u8], host: &HostCall<'_>) -> ValidationResponse {
    let decide = |configured: &Configured, request: &AdmissionRequest| {
        ValidationResponse::from_admission_response(
            configured.review(request, &HostCluster::new(host)),
        )
    };
    if let Some(request) = read_before_last_settings(payload)
        && let Some(answer) = with_last_settings(|configured| decide(configured, &request))
    {
        return answer;
    }
    let (request, settings) = match read_validation_request(payload) {
        Ok(parts) => parts,
        Err(e) => return ValidationResponse::from_admission_response(e.response()),
    };
    let raw = settings.as_ref().map_or("", SettingsText::as_str);
    with_settings(raw.as_bytes(), |configured| decide(configured, &request))
}

/// `validate_settings`: compile the bundle; every problem is listed in `message`. Never a waPC error.
pub fn validate_settings(payload: &[u8]) -> SettingsValidationResponse {
    with_settings(payload, |configured| SettingsValidationResponse {
        valid: configured.engine().is_some(),
        message: configured.rejection().map(ToString::to_string),
    })
}

/// `protocol_version`: what policy-sdk-rust's `protocol_version_guest` answers, the JSON string `"v1"`.
pub fn protocol_version() -> Vec<u8> {
    crate::kubewarden::PROTOCOL_V1.to_vec()
}

/// The settings this instance compiled last: their bytes as they last arrived, their value, what they compiled to.
struct Compiled {
    raw: Vec<u8>,
    /// The settings nest at most [`TRAILING_DEPTH`] levels.
    shallow: bool,
    /// `raw` may be recognised at the end of a payload ([`read_before_last_settings`]): the settings are shallow and
    /// `raw` is a JSON document, not blank.
    trailing: bool,
    settings: Value,
    configured: Configured,
}

/// How deep settings recognised at the end of a payload may nest: one level inside the payload, they stay within
/// what the payload's readers read (the tape's 100 levels, serde_json's 128).
const TRAILING_DEPTH: usize = 64;

impl Compiled {
    fn new(raw: &[u8], settings: Value, configured: Configured) -> Self {
        let shallow = palisade_json::Doc::from_value(&settings)
            .is_ok_and(|doc| doc.root().depth() <= TRAILING_DEPTH);
        let mut compiled = Self {
            raw: Vec::new(),
            shallow,
            trailing: false,
            settings,
            configured,
        };
        compiled.arrived_as(raw);
        compiled
    }

    /// The same settings arrived written as `raw`. [`api::read_bundle`] read them from it: `raw` is blank (the
    /// empty bundle) or a JSON document.
    fn arrived_as(&mut self, raw: &[u8]) {
        self.raw = raw.to_vec();
        self.trailing = self.shallow && !raw.iter().all(u8::is_ascii_whitespace);
    }
}

thread_local! {
    /// The last settings this instance compiled (a baked module starts with its bundle here).
    static LAST_ENGINE: RefCell<Option<Compiled>> = const { RefCell::new(None) };
}

/// Run `f` on what the settings configure ([`api::read_bundle`] then [`api::configure_value`]). The settings come with
/// every call (policy-server sends them to `validate_settings` and with every `validate`), so the common case — the
/// same settings again, in a reused instance or a baked module — is answered by comparing their bytes with the last
/// ones, without parsing them, 32 bytes at a time ([`palisade_json::equal_bytes`]; `memcmp` took a tenth of a
/// request). Settings whose bytes differ are read and compared as values before anything is compiled again. Settings
/// that cannot be read (too large, not JSON) are rejected and not kept.
fn with_settings<R>(raw: &[u8], f: impl FnOnce(&Configured) -> R) -> R {
    LAST_ENGINE.with(|last| {
        let mut last = last.borrow_mut();
        if let Some(known) = last
            .as_ref()
            .filter(|c| palisade_json::equal_bytes(&c.raw, raw))
        {
            return f(&known.configured);
        }
        let settings = match api::read_bundle(raw, BundleDocument::KubewardenSettings) {
            Ok(settings) => settings,
            Err(e) => return f(&Configured::Rejected(e)),
        };
        if let Some(known) = last.as_mut().filter(|c| c.settings == settings) {
            known.arrived_as(raw);
            return f(&known.configured);
        }
        let configured = api::configure_value(&settings);
        let answer = f(&configured);
        *last = Some(Compiled::new(raw, settings, configured));
        answer
    })
}

/// Run `f` on what the last settings compiled to, if there are any.
fn with_last_settings<R>(f: impl FnOnce(&Configured) -> R) -> Option<R> {
    LAST_ENGINE.with(|last| last.borrow().as_ref().map(|known| f(&known.configured)))
}

/// The key that comes before the settings at the end of policy-server's payload.
const TRAILING_KEY: &[u8] = b",\"settings\":";

/// The request of a payload that ends with the last settings, without reading the settings again. policy-server
/// writes its payload with serde_json, compact, the settings last (`json!({"request": …, "settings": …})`,
/// policy-evaluator's waPC runtime): `{"request":…,"settings":SETTINGS}`. When the payload ends with
/// `,"settings":` and the bytes of the last settings (a JSON document) and `}`, and what comes before reads as a
/// payload with `}` in place of that ending — a JSON object with a request (so not `{` alone) and no settings — then
/// the whole payload is that object with the last settings added: the comma ends a member of the top object (inside
/// a string, the quote after it would end the string and `settings` would not be JSON), and the last `}` closes the
/// top object. `None` for anything else, which is read whole ([`read_validation_request`]).
fn read_before_last_settings(payload: &[u8]) -> Option<Box<AdmissionRequest>> {
    let cut = LAST_ENGINE.with(|last| {
        let last = last.borrow();
        let known = last.as_ref().filter(|c| c.trailing)?;
        let settings_at = payload.len().checked_sub(known.raw.len() + 1)?;
        let cut = settings_at.checked_sub(TRAILING_KEY.len())?;
        let ending = payload.get(cut..)?;
        (ending.last() == Some(&b'}')
            && ending.starts_with(TRAILING_KEY)
            && palisade_json::equal_bytes(payload.get(settings_at..payload.len() - 1)?, &known.raw))
        .then_some(cut)
    })?;
    let text = palisade_json::utf8_string_and(payload.get(..cut)?, "}")?;
    let parsed: ValidationRequest<Option<Box<AdmissionRequest>>, Option<SettingsText>> =
        api::read_object_text(text, VALIDATION_REQUEST).ok()?;
    if parsed.settings.is_some() {
        // the settings written twice: read whole, to be refused as serde_json refuses them
        return None;
    }
    let mut request = parsed.request?;
    request.normalize();
    Some(request)
}

/// The name of policy-server's payload in messages.
const VALIDATION_REQUEST: &str = "the validation request";

/// policy-server's payload. It sends the AdmissionRequest with Kubernetes' camelCase names; hosts that build the payload
/// with policy-sdk-rust's `KubernetesAdmissionRequest` send snake_case names and empty objects for absent fields. Both
/// read the same ([`AdmissionRequest`]'s aliases and [`AdmissionRequest::normalized`]). The settings are kept as text:
/// the same settings arrive with every call and are recognised by their bytes.
fn read_validation_request(
    payload: &[u8],
) -> Result<(Box<AdmissionRequest>, Option<SettingsText>), ReadError> {
    let parsed: ValidationRequest<Option<Box<AdmissionRequest>>, Option<SettingsText>> =
        api::read_object(payload, VALIDATION_REQUEST).map_err(|e| match e.fault {
            // Only `request` has fields to get wrong, and it is the AdmissionReview's request: its faults are worded
            // as the C ABI words them.
            ReadFault::WrongField { .. } => e.of(ADMISSION_REVIEW),
            _ => e,
        })?;
    let mut request = parsed
        .request
        .ok_or_else(|| ReadError::new(ADMISSION_REVIEW, ReadFault::NoRequest, payload))?;
    request.normalize();
    Ok((request, parsed.settings))
}

/// The cluster as Kubewarden's host capabilities show it, for one request: the [`Cluster`] over the guest's
/// [`HostCall`]. Each namespace and each access question is asked of the host at most once; answers (and failures) are
/// kept for the rest of the request.
pub struct HostCluster<'h> {
    call: &'h HostCall<'h>,
    namespaces: RefCell<BTreeMap<String, Result<Option<Value>, HostError>>>,
    access: RefCell<Vec<(AccessQuery, Result<AccessDecision, HostError>)>>,
}

impl<'h> HostCluster<'h> {
    pub fn new(call: &'h HostCall<'h>) -> Self {
        Self {
            call,
            namespaces: RefCell::default(),
            access: RefCell::default(),
        }
    }

    /// One `kubernetes/<operation>` host call; a failure is the host's message without a backtrace.
    fn ask(&self, operation: &str, request: &impl serde::Serialize) -> Result<Vec<u8>, String> {
        let payload = serde_json::to_vec(request)
            .map_err(|e| format!("cannot encode the `kubernetes/{operation}` request: {e}"))?;
        (self.call)(KUBERNETES, operation, &payload).map_err(|e| host_message(&e))
    }

    fn get_namespace(&self, name: &str) -> Result<Option<Value>, HostError> {
        let failed = |message: String| HostError::Failed {
            question: Question::Namespace(name.to_owned()),
            message,
        };
        let bytes = match self.ask(GET_RESOURCE, &GetResourceRequest::namespace(name)) {
            Ok(bytes) => bytes,
            Err(message) if is_namespace_not_found(&message) => return Ok(None),
            Err(message) => return Err(failed(message)),
        };
        match serde_json::from_slice::<Value>(&bytes) {
            Ok(object @ Value::Object(_)) => Ok(Some(object)),
            Ok(other) => Err(failed(format!(
                "`kubernetes/get_resource` answered {} for namespace `{name}`, not an object",
                crate::bundle::type_name(&other)
            ))),
            Err(e) => Err(failed(format!(
                "`kubernetes/get_resource` answered invalid JSON for namespace `{name}`: {e}"
            ))),
        }
    }

    fn can_i(&self, query: &AccessQuery) -> Result<AccessDecision, HostError> {
        self.ask_can_i(query).map_err(|message| HostError::Failed {
            question: Question::Access(Box::new(query.clone())),
            message,
        })
    }

    fn ask_can_i(&self, query: &AccessQuery) -> Result<AccessDecision, String> {
        if query.path.is_some() {
            return Err(
                "non-resource authorization checks (`authorizer.path`) cannot be asked through \
                        Kubewarden's `kubernetes/can_i` host capability"
                    .to_owned(),
            );
        }
        let bytes = self.ask(CAN_I, &CanIRequest::from_query(query))?;
        let status: Value = serde_json::from_slice(&bytes)
            .map_err(|e| format!("`kubernetes/can_i` answered invalid JSON: {e}"))?;
        serde_json::from_value::<SubjectAccessReviewStatus>(status)
            .map(|status| AccessDecision {
                allowed: status.allowed,
                reason: status.reason.unwrap_or_default(),
            })
            .map_err(|e| {
                format!(
                    "`kubernetes/can_i` answered a SubjectAccessReviewStatus without `allowed`: {e}"
                )
            })
    }
}

impl Cluster for HostCluster<'_> {
    fn namespace(&self, name: &str) -> Result<Option<Value>, HostError> {
        if let Some(known) = self.namespaces.borrow().get(name) {
            return known.clone();
        }
        let answer = self.get_namespace(name);
        self.namespaces
            .borrow_mut()
            .insert(name.to_owned(), answer.clone());
        answer
    }

    fn authorize(&self, query: &AccessQuery) -> Result<AccessDecision, HostError> {
        if let Some((_, known)) = self.access.borrow().iter().find(|(q, _)| q == query) {
            return known.clone();
        }
        let answer = self.can_i(query);
        self.access
            .borrow_mut()
            .push((query.clone(), answer.clone()));
        answer
    }
}

/// The waPC glue: registered operations and the host call.
#[cfg(all(target_arch = "wasm32", feature = "kubewarden"))]
mod guest {
    use wapc_guest::CallResult;

    /// One host call in the `kubewarden` binding.
    fn host_call(namespace: &str, operation: &str, payload: &[u8]) -> Result<Vec<u8>, String> {
        wapc_guest::host_call(super::BINDING, namespace, operation, payload).map_err(|e| {
            let message = e.to_string();
            // wapc-guest wraps the host's message as `Host error: <message>`.
            message
                .strip_prefix("Host error: ")
                .map(str::to_owned)
                .unwrap_or(message)
        })
    }

    fn validate(payload: &[u8]) -> CallResult {
        Ok(super::validate(payload, &host_call).to_bytes())
    }

    fn validate_settings(payload: &[u8]) -> CallResult {
        Ok(serde_json::to_vec(&super::validate_settings(payload))?)
    }

    fn protocol_version(_payload: &[u8]) -> CallResult {
        Ok(super::protocol_version())
    }

    /// The operations are registered once per memory: a baked module's image already holds them (bake ran
    /// `wapc_init` before its snapshot), so a fresh instance of it registers nothing again. Registering writes the
    /// registry's lock, table and keys, four pages of the image a fresh instance would otherwise copy per request.
    static REGISTERED: std::sync::Once = std::sync::Once::new();

    /// Called by the waPC host right after instantiation.
    #[expect(unsafe_code, reason = "waPC hosts call the `wapc_init` export by name")]
    #[unsafe(no_mangle)]
    pub extern "C" fn wapc_init() {
        REGISTERED.call_once(|| {
            wapc_guest::register_function("validate", validate);
            wapc_guest::register_function("validate_settings", validate_settings);
            wapc_guest::register_function("protocol_version", protocol_version);
        });
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use serde_json::json;

    use super::*;
    use crate::review::AdmissionResponse;

    /// A host that answers from a closure and counts its calls.
    struct FakeHost<F: Fn(&str, &str, &Value) -> Result<Value, String>> {
        answer: F,
        calls: Cell<usize>,
        seen: RefCell<Vec<(String, String, Value)>>,
    }

    impl<F: Fn(&str, &str, &Value) -> Result<Value, String>> FakeHost<F> {
        fn new(answer: F) -> Self {
            Self {
                answer,
                calls: Cell::new(0),
                seen: RefCell::default(),
            }
        }
    }

    impl<F: Fn(&str, &str, &Value) -> Result<Value, String>> FakeHost<F> {
        /// The host call the guest makes.
        fn as_call(&self) -> impl Fn(&str, &str, &[u8]) -> Result<Vec<u8>, String> + '_ {
            |namespace, operation, payload| self.call(namespace, operation, payload)
        }

        fn call(
            &self,
            namespace: &str,
            operation: &str,
            payload: &[u8],
        ) -> Result<Vec<u8>, String> {
            self.calls.set(self.calls.get() + 1);
            let payload: Value = serde_json::from_slice(payload).unwrap();
            self.seen.borrow_mut().push((
                namespace.to_owned(),
                operation.to_owned(),
                payload.clone(),
            ));
            (self.answer)(namespace, operation, &payload).map(|v| serde_json::to_vec(&v).unwrap())
        }
    }

    fn no_host() -> FakeHost<impl Fn(&str, &str, &Value) -> Result<Value, String>> {
        FakeHost::new(|_: &str, _: &str, _: &Value| -> Result<Value, String> {
            panic!("no host call expected")
        })
    }

    fn as_json(response: &ValidationResponse) -> Value {
        serde_json::from_slice(&response.to_bytes()).unwrap()
    }

    const POD_CREATE: &str = r#"{"uid":"u1","operation":"CREATE","kind":{"group":"","version":"v1","kind":"Pod"},
        "resource":{"group":"","version":"v1","resource":"pods"},"namespace":"team-a","userInfo":{"username":"alice"},"object":{"metadata":{"name":"p"}}}"#;

    // upstream: kubewarden/policy-sdk-rust src/lib.rs test_accept_request (the JSON an accepting response carries)
    #[test]
    fn empty_bundle_accepts_with_the_sdk_shape() {
        let payload = format!(r#"{{"request":{POD_CREATE},"settings":{{}}}}"#);
        let out = as_json(&validate(payload.as_bytes(), &no_host().as_call()));
        assert_eq!(
            out,
            json!({"accepted": true, "message": null, "code": null, "mutated_object": null,
                   "audit_annotations": null, "warnings": null})
        );
    }

    #[test]
    fn absent_or_null_settings_are_the_empty_bundle() {
        for payload in [
            format!(r#"{{"request":{POD_CREATE}}}"#),
            format!(r#"{{"request":{POD_CREATE},"settings":null}}"#),
        ] {
            assert!(
                validate(payload.as_bytes(), &no_host().as_call()).accepted,
                "{payload}"
            );
        }
        assert!(validate_settings(b"").valid);
        assert!(validate_settings(b"null").valid);
        assert!(validate_settings(b"{}").valid);
    }

    #[test]
    fn bad_payloads_reject_with_400_and_the_reason() {
        for (payload, needle) in [
            (
                &b"{not json"[..],
                "the validation request is not valid JSON",
            ),
            (b"\xff\xfe", "not valid UTF-8"),
            (b"[1]", "must be a JSON object, not a list"),
            (b"", "the validation request is not valid JSON"),
            (
                br#"{"settings":{}}"#,
                "the AdmissionReview has no `request`",
            ),
            (
                br#"{"request":null,"settings":{}}"#,
                "the AdmissionReview has no `request`",
            ),
            (
                br#"{"request":{"uid":"x","operation":5},"settings":{}}"#,
                "the AdmissionReview has a wrong field: request.operation: ",
            ),
            (
                format!(r#"{{"request":{POD_CREATE},"settings":{{}}}} trailing"#).as_bytes(),
                "not valid JSON",
            ),
        ] {
            let response = validate(payload, &no_host().as_call());
            assert!(!response.accepted, "{needle}");
            assert_eq!(response.code, Some(400), "{needle}");
            let message = response.message.unwrap();
            assert!(
                message.contains(needle),
                "`{message}` should contain `{needle}`"
            );
        }
    }

    // upstream: kubewarden/policy-sdk-rust src/request.rs KubernetesAdmissionRequest (its serde names and defaults)
    #[test]
    fn sdk_shaped_requests_read_like_kubernetes_ones() {
        let camel: Value = serde_json::from_str(POD_CREATE).unwrap();
        let mut sdk = camel.clone();
        let map = sdk.as_object_mut().unwrap();
        map.remove("userInfo");
        map.insert(
            "user_info".into(),
            json!({"username": "alice", "groups": ["devs"]}),
        );
        map.insert(
            "request_kind".into(),
            json!({"group": "", "version": "", "kind": ""}),
        );
        map.insert(
            "request_resource".into(),
            json!({"group": "", "version": "", "kind": ""}),
        );
        map.insert("request_sub_resource".into(), json!(""));
        map.insert("sub_resource".into(), json!(""));
        map.insert("old_object".into(), Value::Null);
        map.insert("dry_run".into(), json!(false));
        map.insert("options".into(), json!({}));
        let payload = json!({"request": sdk, "settings": {}}).to_string();
        let (request, _) = read_validation_request(payload.as_bytes()).unwrap();
        assert_eq!(request.user_info.username, "alice");
        assert_eq!(request.user_info.groups, ["devs"]);
        assert_eq!(
            (
                &request.request_kind,
                &request.request_resource,
                &request.request_sub_resource
            ),
            (&None, &None, &None)
        );
        assert!(request.options.is_none());
        let mut kubernetes = camel;
        kubernetes["userInfo"] = json!({"username": "alice", "groups": ["devs"]});
        kubernetes["requestKind"] =
            json!({"group": "apps", "version": "v1beta1", "kind": "Deployment"});
        let payload = json!({"request": kubernetes, "settings": {}}).to_string();
        let (request, _) = read_validation_request(payload.as_bytes()).unwrap();
        assert_eq!(request.user_info.username, "alice");
        assert_eq!(request.request_kind.as_ref().unwrap().version, "v1beta1");
        assert_eq!(request.uid, "u1");
        assert_eq!(
            request.object.as_ref().unwrap().to_value()["metadata"]["name"],
            "p"
        );
    }

    #[test]
    fn nesting_deeper_than_kube_apiserver_accepts_is_a_clean_400() {
        let deep = format!(
            r#"{{"request":{{"uid":"d","object":{}{}}}}}"#,
            "[".repeat(10_001),
            "]".repeat(10_001)
        );
        let response = validate(deep.as_bytes(), &no_host().as_call());
        assert_eq!(response.code, Some(400));
        let message = response.message.unwrap();
        assert!(message.contains("deeper than 10000 levels"), "{message}");
    }

    #[test]
    fn a_broken_bundle_is_invalid_settings_listing_every_problem() {
        let bundle = br#"{"policies":[{"kind":"X"},{}]}"#;
        let answer = validate_settings(bundle);
        assert!(!answer.valid);
        let message = answer.message.unwrap();
        assert!(
            message.starts_with("the bundle has 2 problems: "),
            "{message}"
        );
        assert!(
            message.contains("policies[0]") && message.contains("policies[1]"),
            "{message}"
        );
        // The same bundle sent with a request answers what the C ABI answers for an unconfigured module.
        let payload = format!(
            r#"{{"request":{POD_CREATE},"settings":{}}}"#,
            std::str::from_utf8(bundle).unwrap()
        );
        let response = validate(payload.as_bytes(), &no_host().as_call());
        assert_eq!(response.code, Some(500));
        assert_eq!(
            response.message.unwrap(),
            format!("palisade is not configured: the last bundle was rejected: {message}")
        );
    }

    #[test]
    fn each_call_is_decided_by_its_own_settings() {
        let good = format!(r#"{{"request":{POD_CREATE},"settings":{{}}}}"#);
        let bad =
            format!(r#"{{"request":{POD_CREATE},"settings":{{"policies":[{{"kind":"X"}}]}}}}"#);
        for _ in 0..2 {
            assert!(validate(good.as_bytes(), &no_host().as_call()).accepted);
            assert!(validate(good.as_bytes(), &no_host().as_call()).accepted);
            let rejected = validate(bad.as_bytes(), &no_host().as_call());
            assert_eq!(rejected.code, Some(500));
            assert!(rejected.message.unwrap().contains("policies[0]"));
        }
    }

    /// A bundle that denies pods named `p`: decisions that show which settings decided them.
    const DENY_P: &str = r#"{"policies":[{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy","metadata":{"name":"no-p"},"spec":{"matchConstraints":{"resourceRules":[{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE"],"resources":["pods"]}]},"validations":[{"expression":"object.metadata.name != 'p'","message":"not p"}]}}],"bindings":[{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicyBinding","metadata":{"name":"no-p"},"spec":{"policyName":"no-p","validationActions":["Deny"]}}]}"#;

    /// What `validate` answers in an instance that has compiled nothing yet (a thread of its own: the compiled
    /// settings are per thread), as JSON.
    fn validate_in_a_fresh_instance(payload: &str) -> Value {
        let payload = payload.to_owned();
        std::thread::spawn(move || as_json(&validate(payload.as_bytes(), &no_host().as_call())))
            .join()
            .unwrap()
    }

    #[test]
    fn settings_at_the_end_of_the_payload_are_recognised_without_reading_them() {
        // policy-server's shape: compact, the settings last
        let payload = format!(r#"{{"request":{POD_CREATE},"settings":{DENY_P}}}"#);
        assert!(
            read_before_last_settings(payload.as_bytes()).is_none(),
            "nothing compiled yet"
        );
        let first = as_json(&validate(payload.as_bytes(), &no_host().as_call()));
        assert_eq!(first["accepted"], json!(false), "{first}");
        assert!(read_before_last_settings(payload.as_bytes()).is_some());
        assert_eq!(
            as_json(&validate(payload.as_bytes(), &no_host().as_call())),
            first
        );
        // other settings at the end are read and compiled: the empty bundle accepts
        let other = format!(r#"{{"request":{POD_CREATE},"settings":{{}}}}"#);
        assert!(read_before_last_settings(other.as_bytes()).is_none());
        assert_eq!(
            as_json(&validate(other.as_bytes(), &no_host().as_call()))["accepted"],
            json!(true)
        );
        assert!(read_before_last_settings(other.as_bytes()).is_some());
        // the same settings written otherwise are looked for as they were written last
        assert!(validate_settings(b" { } ").valid);
        let spaced = format!(r#"{{"request":{POD_CREATE},"settings": {{ }} }}"#);
        assert!(read_before_last_settings(spaced.as_bytes()).is_some());
        assert_eq!(
            as_json(&validate(spaced.as_bytes(), &no_host().as_call())),
            validate_in_a_fresh_instance(&spaced)
        );
        // blank settings (the empty bundle too) are never looked for at the end: `"settings":}` is not JSON
        assert!(validate_settings(b"  ").valid);
        let blank = format!(r#"{{"request":{POD_CREATE},"settings":  }}"#);
        assert!(read_before_last_settings(blank.as_bytes()).is_none());
        let refused = validate_in_a_fresh_instance(&blank);
        assert_eq!(refused["code"], json!(400), "{refused}");
        assert_eq!(
            as_json(&validate(blank.as_bytes(), &no_host().as_call())),
            refused
        );
    }

    #[test]
    fn payloads_that_only_end_like_the_last_settings_are_read_whole() {
        let s = DENY_P;
        let r = POD_CREATE;
        let allowed = POD_CREATE.replace(r#""name":"p""#, r#""name":"q""#);
        // (payload, whether the request is read without the settings)
        let cases = [
            (format!(r#"{{"request":{r},"settings":{s}}}"#), true),
            (
                format!("{{\n \"request\" : {allowed} \n,\"settings\":{s}}}"),
                true,
            ),
            (format!(r#"{{"settings":{s},"request":{r}}}"#), false),
            (format!(r#"{{"request":{r}, "settings":{s}}}"#), false),
            (format!(r#"{{"request":{r},"settings":{s} }}"#), false),
            (format!(r#"{{"request":{r},"settin\u0067s":{s}}}"#), false),
            // the settings twice: serde_json refuses the duplicate field
            (
                format!(r#"{{"request":{r},"settings":{s},"settings":{s}}}"#),
                false,
            ),
            (
                format!(r#"{{"settings":{{}},"request":{r},"settings":{s}}}"#),
                false,
            ),
            // no member before the settings, or no request
            (format!(r#"{{,"settings":{s}}}"#), false),
            (format!(r#"{{ ,"settings":{s}}}"#), false),
            (format!(r#"{{"x":1,"settings":{s}}}"#), false),
            // the ending inside a string, or after something that is not an object
            (format!(r#"{{"request":{r},"x":"a,"settings":{s}}}"#), false),
            (
                format!(r#"{{"request":{r},"x":"a\",\"settings\":{s}}}"}}"#),
                false,
            ),
            (format!(r#"[{r},"settings":{s}}}"#), false),
            (format!(r#"{{"request":{r}}},"settings":{s}}}"#), false),
            (
                format!(r#"{{"request":{r},"request":{r},"settings":{s}}}"#),
                false,
            ),
        ];
        for (payload, recognised) in cases {
            let fresh = validate_in_a_fresh_instance(&payload);
            // this thread has compiled `s` and answers from it whenever the shortcut applies
            let primed = format!(r#"{{"request":{r},"settings":{s}}}"#);
            validate(primed.as_bytes(), &no_host().as_call());
            assert_eq!(
                read_before_last_settings(payload.as_bytes()).is_some(),
                recognised,
                "{payload}"
            );
            assert_eq!(
                as_json(&validate(payload.as_bytes(), &no_host().as_call())),
                fresh,
                "{payload}"
            );
        }
    }

    /// Every review of the review reader's fuzz corpus (`fuzz/corpus/review_reader`: seeds and minimised findings,
    /// valid and broken) made a payload with the settings at its end, `…,"settings":{}}` in place of its last `}`:
    /// an instance that compiled those settings last answers it as an instance that has compiled nothing.
    #[test]
    fn the_review_corpus_ending_with_the_last_settings_is_answered_as_read_whole() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../fuzz/corpus/review_reader");
        let mut recognised = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let data = std::fs::read(entry.unwrap().path()).unwrap();
            let Some(open) = data.trim_ascii_end().strip_suffix(b"}") else {
                continue;
            };
            let payload =
                String::from_utf8_lossy(&[open, b",\"settings\":{}}"].concat()).into_owned();
            let fresh = validate_in_a_fresh_instance(&payload);
            assert!(validate_settings(b"{}").valid);
            recognised += usize::from(read_before_last_settings(payload.as_bytes()).is_some());
            assert_eq!(
                as_json(&validate(payload.as_bytes(), &no_host().as_call())),
                fresh,
                "{payload}"
            );
        }
        assert!(
            recognised > 0,
            "no review of the corpus was read without its settings"
        );
    }

    #[test]
    fn settings_are_their_own_bytes_as_the_payload_writes_them() {
        let settings = r#"{ "policies" : [ ] , "note":"\u00e9\n" }"#;
        let payload = format!(r#"{{"request":{POD_CREATE},  "settings":{settings} }}"#);
        let (_, read) = read_validation_request(payload.as_bytes()).unwrap();
        assert_eq!(read.unwrap().as_str(), settings);
        // read by serde_json: the same text
        let by_serde: SettingsText = serde_json::from_str(settings).unwrap();
        assert_eq!(by_serde.as_str(), settings);
        // an instance recognises them by those bytes, and the same settings written otherwise by their value
        let spaced = format!(r#"{{"request":{POD_CREATE},"settings":{{ }}}}"#);
        let plain = format!(r#"{{"request":{POD_CREATE},"settings":{{}}}}"#);
        for payload in [&spaced, &plain, &spaced] {
            assert!(validate(payload.as_bytes(), &no_host().as_call()).accepted);
        }
    }

    #[test]
    fn settings_that_are_not_json_are_invalid_not_an_error() {
        let answer = validate_settings(b"policies: []");
        assert!(!answer.valid);
        let message = answer.message.unwrap();
        assert!(
            message.starts_with("the bundle has 1 problem: : the settings are not valid JSON: "),
            "{message}"
        );
        assert_eq!(
            serde_json::to_value(validate_settings(b"{}")).unwrap(),
            json!({"valid": true, "message": null})
        );
    }

    /// Settings past `MAX_BUNDLE_BYTES` are refused in `validate` as in `validate_settings`, before they are parsed, and
    /// are not kept: the next call with good settings compiles them.
    #[test]
    fn settings_past_the_bundle_limit_are_refused_on_both_paths() {
        let limit = crate::bundle::MAX_BUNDLE_BYTES;
        // A valid JSON bundle, padded with whitespace inside the object past the limit.
        let big = format!("{{{}}}", " ".repeat(limit));
        let answer = validate_settings(big.as_bytes());
        assert!(!answer.valid);
        let message = answer.message.unwrap();
        assert!(
            message.contains(&format!(
                "the settings are {} bytes, more than the {limit} bytes Palisade reads",
                limit + 2
            )),
            "{message}"
        );
        let payload = format!(r#"{{"request":{POD_CREATE},"settings":{big}}}"#);
        let response = validate(payload.as_bytes(), &no_host().as_call());
        assert!(!response.accepted);
        assert_eq!(response.code, Some(500));
        assert_eq!(
            response.message.unwrap(),
            format!("palisade is not configured: the last bundle was rejected: {message}")
        );
        let good = format!(r#"{{"request":{POD_CREATE},"settings":{{}}}}"#);
        assert!(validate(good.as_bytes(), &no_host().as_call()).accepted);
        assert!(!validate(payload.as_bytes(), &no_host().as_call()).accepted);
    }

    // upstream: kubewarden/policy-sdk-rust src/metadata.rs protocol_version_try_from_known_version (`"v1"`)
    #[test]
    fn protocol_version_is_the_json_string_v1() {
        assert_eq!(protocol_version(), b"\"v1\"");
        assert_eq!(
            serde_json::from_slice::<Value>(&protocol_version()).unwrap(),
            json!("v1")
        );
    }

    #[test]
    fn admission_response_maps_onto_validation_response() {
        let mut response = AdmissionResponse::deny("u", 403, "Forbidden", "no");
        response.warnings = vec!["w1".into(), "w2".into()];
        response.audit_annotations.insert("p/k".into(), "v".into());
        let out = as_json(&ValidationResponse::from_admission_response(response));
        assert_eq!(
            out,
            json!({"accepted": false, "message": "no", "code": 403, "mutated_object": null,
                   "audit_annotations": {"p/k": "v"}, "warnings": ["w1", "w2"]})
        );
        let allowed = ValidationResponse::from_admission_response(AdmissionResponse::allow("u"));
        assert_eq!(
            allowed,
            ValidationResponse {
                accepted: true,
                ..Default::default()
            }
        );
    }

    #[test]
    fn namespaces_are_asked_once_and_not_found_is_none() {
        let host = FakeHost::new(|ns: &str, op: &str, payload: &Value| {
            assert_eq!((ns, op), (KUBERNETES, GET_RESOURCE));
            match payload["name"].as_str().unwrap() {
                "team-a" => Ok(json!({"apiVersion": "v1", "kind": "Namespace",
                                      "metadata": {"name": "team-a", "labels": {"env": "prod"}}})),
                "gone" => Err(
                    "Cannot find v1/Namespace named 'gone' inside of namespace 'None'".to_owned(),
                ),
                _ => Err(
                    "Policy has not been granted access to Kubernetes v1/Namespace resources. \
                          The violation has been reported."
                        .to_owned(),
                ),
            }
        });
        let call = host.as_call();
        let cluster = HostCluster::new(&call);
        for _ in 0..3 {
            let ns = cluster.namespace("team-a").unwrap().unwrap();
            assert_eq!(ns["metadata"]["labels"]["env"], "prod");
        }
        assert_eq!(host.calls.get(), 1);
        assert_eq!(
            host.seen.borrow()[0].2,
            json!({"api_version": "v1", "kind": "Namespace", "name": "team-a", "namespace": null, "disable_cache": false})
        );
        assert_eq!(cluster.namespace("gone"), Ok(None));
        assert_eq!(cluster.namespace("gone"), Ok(None));
        let refused = cluster.namespace("other").unwrap_err();
        assert!(
            matches!(&refused, HostError::Failed { question: Question::Namespace(name), message }
                     if name == "other" && message.starts_with("Policy has not been granted access")),
            "{refused:?}"
        );
        assert!(cluster.namespace("other").is_err());
        assert_eq!(host.calls.get(), 3);
    }

    /// policy-evaluator's callback runtime wraps a handler's error as `Callback evaluation failure: {e:?}`
    /// (`crates/policy-evaluator/src/runtimes/callback.rs`), and anyhow's debug text carries a backtrace when the host
    /// runs with `RUST_BACKTRACE=1`: the namespace is still "not found", and no backtrace reaches a message.
    #[test]
    fn policy_evaluator_wording_and_backtraces() {
        let host = FakeHost::new(|_: &str, op: &str, payload: &Value| {
            match (op, payload["name"].as_str()) {
                (GET_RESOURCE, Some("gone")) => Err("Callback evaluation failure: Cannot find v1/Namespace named \
                     'gone' inside of namespace 'None'\n\nStack backtrace:\n   0: anyhow::error::<impl>\n"
                    .to_owned()),
                _ => Err("Callback evaluation failure: connection refused\n\nStack backtrace:\n   0: \
                          policy_evaluator::callback_handler\n   1: tokio::runtime"
                    .to_owned()),
            }
        });
        let call = host.as_call();
        let cluster = HostCluster::new(&call);
        assert_eq!(cluster.namespace("gone"), Ok(None));
        assert_eq!(
            cluster.namespace("other").map_err(|e| e.to_string()),
            Err("Callback evaluation failure: connection refused".to_owned())
        );
        let query = AccessQuery {
            user: "alice".into(),
            verb: "get".into(),
            resource: "pods".into(),
            ..AccessQuery::default()
        };
        assert_eq!(
            cluster.authorize(&query),
            Err(HostError::Failed {
                question: Question::Access(Box::new(query.clone())),
                message: "Callback evaluation failure: connection refused".to_owned()
            })
        );
    }

    #[test]
    fn namespace_answers_that_are_not_objects_are_errors() {
        let host = FakeHost::new(|_: &str, _: &str, _: &Value| Ok(json!([1])));
        let err = HostCluster::new(&host.as_call())
            .namespace("a")
            .unwrap_err();
        assert_eq!(err.question(), &Question::Namespace("a".into()));
        assert!(err.to_string().contains("not an object"), "{err}");
    }

    // upstream: kubewarden/policy-sdk-rust src/host_capabilities/kubernetes.rs test_subject_access_review_spec_conversion
    // (the fields a SubjectAccessReview carries)
    #[test]
    fn can_i_sends_the_sdk_subject_access_review_once_per_query() {
        let host = FakeHost::new(|ns: &str, op: &str, payload: &Value| {
            assert_eq!((ns, op), (KUBERNETES, CAN_I));
            let user = payload["subject_access_review"]["user"].as_str().unwrap();
            Ok(json!({"allowed": user == "alice"}))
        });
        let call = host.as_call();
        let cluster = HostCluster::new(&call);
        let mut query = AccessQuery {
            user: "alice".into(),
            groups: vec!["devs".into()],
            verb: "use".into(),
            api_group: "policy.cert-manager.io".into(),
            resource: "certificaterequestpolicies".into(),
            name: "team-a-certs".into(),
            namespace: "team-a".into(),
            ..Default::default()
        };
        assert_eq!(cluster.authorize(&query), Ok(AccessDecision::from(true)));
        assert_eq!(cluster.authorize(&query), Ok(AccessDecision::from(true)));
        assert_eq!(host.calls.get(), 1);
        assert_eq!(
            host.seen.borrow()[0].2,
            json!({"subject_access_review": {"groups": ["devs"], "resource_attributes": {
                    "group": "policy.cert-manager.io", "name": "team-a-certs", "namespace": "team-a",
                    "resource": "certificaterequestpolicies", "subresource": null, "verb": "use", "version": null},
                   "user": "alice"}, "disable_cache": false})
        );
        query.user = "bob".into();
        assert_eq!(cluster.authorize(&query), Ok(AccessDecision::from(false)));
        assert_eq!(host.calls.get(), 2);
        query.path = Some("/healthz".into());
        assert!(
            cluster
                .authorize(&query)
                .unwrap_err()
                .to_string()
                .contains("authorizer.path")
        );
        assert_eq!(host.calls.get(), 2);
    }

    #[test]
    fn can_i_failures_carry_the_host_message() {
        let host = FakeHost::new(|_: &str, _: &str, _: &Value| -> Result<Value, String> {
            Err("Policy has not been granted access to the 'kubernetes/can_i' host capability. The violation has been reported.".into())
        });
        let call = host.as_call();
        let cluster = HostCluster::new(&call);
        let query = AccessQuery {
            user: "a".into(),
            verb: "use".into(),
            ..Default::default()
        };
        assert_eq!(
            cluster.authorize(&query).map_err(|e| e.to_string()),
            Err("Policy has not been granted access to the 'kubernetes/can_i' host capability. The violation has been reported.".into())
        );
        let host = FakeHost::new(|_: &str, _: &str, _: &Value| Ok(json!({"denied": true})));
        assert!(
            HostCluster::new(&host.as_call())
                .authorize(&query)
                .unwrap_err()
                .to_string()
                .contains("without `allowed`")
        );
        // the host's reason is CEL's `decision.reason()`
        let host = FakeHost::new(|_: &str, _: &str, _: &Value| {
            Ok(json!({"allowed": false, "reason": "no RBAC policy matched"}))
        });
        assert_eq!(
            HostCluster::new(&host.as_call()).authorize(&query),
            Ok(AccessDecision {
                allowed: false,
                reason: "no RBAC policy matched".into()
            })
        );
    }
}
