//! Objects as deep as kube-apiserver accepts (10,000 nested lists and maps, the limit of Go's `encoding/json`
//! scanner) are evaluated, not refused, through the real `palisade.wasm`, the real `palisade-kubewarden.wasm` and
//! the native library; one level more is a 400 that echoes the uid (issue "Hardening", finding 1(c)). A custom
//! resource whose schema preserves unknown fields can carry such an object: refusing it would hand the decision to
//! the webhook's failurePolicy, which under `Ignore` admits it unchecked.
//!
//! The inputs are built here as text: the harness's own JSON values are not meant to nest that deep.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "integration tests fail loudly, helpers included"
)]

mod common;

use std::time::Duration;

use common::{artifact, palisade};
use palisade_harness::kubewarden::KubewardenBackend;
use serde_json::Value;

/// Deny an UPDATE of a ConfigMap whose object differs from the old one anywhere, however deep.
const BUNDLE: &str = r#"{"policies":[
 {"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy","metadata":{"name":"unchanged"},
  "spec":{"failurePolicy":"Fail",
   "matchConstraints":{"resourceRules":[{"apiGroups":[""],"apiVersions":["v1"],"operations":["UPDATE"],"resources":["configmaps"]}]},
   "validations":[{"expression":"object == oldObject","message":"the object changed"},
                  {"expression":"has(object.data) && object.data.a.size() == 1"}]}},
 {"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicyBinding","metadata":{"name":"unchanged"},
  "spec":{"policyName":"unchanged","validationActions":["Deny"]}}]}"#;

/// A ConfigMap nested `depth` levels deep in all (the object itself is level 1), ending in `leaf`.
fn deep_object(depth: usize, leaf: &str) -> String {
    // object (1) > data (2) > a (3) > {a (4) > [ (5) … pairs of levels, then {"leaf": …} as the last level
    assert!(depth >= 4 && depth.is_multiple_of(2));
    let pairs = (depth - 2) / 2;
    format!(
        r#"{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"deep","namespace":"default"}},"data":{}{{"leaf":"{leaf}"}}{}}}"#,
        r#"{"a":["#.repeat(pairs),
        "]}".repeat(pairs),
    )
}

/// The `request` of an UPDATE whose object and oldObject are as deep as given.
fn request(uid: &str, object: &str, old_object: &str) -> String {
    format!(
        r#"{{"uid":"{uid}","kind":{{"group":"","version":"v1","kind":"ConfigMap"}},"resource":{{"group":"","version":"v1","resource":"configmaps"}},"name":"deep","namespace":"default","operation":"UPDATE","userInfo":{{"username":"alice"}},"object":{object},"oldObject":{old_object}}}"#
    )
}

fn review(request: &str) -> String {
    format!(
        r#"{{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{request}}}"#
    )
}

/// The three ways one review is decided: the C ABI module, the Kubewarden module, the native library. Each answer
/// as (allowed, status code, message).
fn decide(request: &str) -> Vec<(&'static str, bool, u64, String)> {
    let mut out = Vec::new();
    let mut session = palisade().instantiate().unwrap();
    assert_eq!(session.configure(BUNDLE.as_bytes()).unwrap(), None);
    let answer = session.validate(review(request).as_bytes()).unwrap();
    out.push(("palisade.wasm", answer["response"].clone()));

    let native: Value =
        serde_json::from_str(&palisade::api::review_json(BUNDLE, &review(request))).unwrap();
    out.push(("native", native["response"].clone()));

    let kubewarden = KubewardenBackend::load(&artifact("palisade-kubewarden.wasm")).unwrap();
    let instance = kubewarden
        .instantiate(None, Duration::from_secs(30))
        .unwrap();
    let payload = format!(r#"{{"request":{request},"settings":{BUNDLE}}}"#);
    let answer: Value =
        serde_json::from_slice(&instance.call("validate", payload.as_bytes()).unwrap()).unwrap();
    // a ValidationResponse: accepted, code, message
    out.push((
        "palisade-kubewarden.wasm",
        serde_json::json!({
            "allowed": answer["accepted"],
            "status": {"code": answer["code"], "message": answer["message"]},
        }),
    ));
    out.into_iter()
        .map(|(who, r)| {
            (
                who,
                r["allowed"]
                    .as_bool()
                    .unwrap_or_else(|| panic!("{who}: {r}")),
                r["status"]["code"].as_u64().unwrap_or(0),
                r["status"]["message"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect()
}

#[test]
fn ten_thousand_levels_are_evaluated_down_to_the_leaf() {
    let object = deep_object(10_000, "leaf");
    // the fast reader stops at 128 levels: this input takes the deep path
    assert!(serde_json::from_str::<Value>(&object).is_err());

    for (who, allowed, code, message) in decide(&request("same", &object, &object)) {
        assert!(
            allowed,
            "{who}: the same deep object must be admitted: {code} {message}"
        );
    }
    // the objects differ only in the last leaf, 10,000 levels down
    let changed = deep_object(10_000, "other leaf");
    for (who, allowed, code, message) in decide(&request("changed", &changed, &object)) {
        assert!(!allowed, "{who}");
        assert!(
            message.contains("the object changed"),
            "{who}: the deepest leaf must be compared: {code} {message}"
        );
    }
}

#[test]
fn one_level_more_than_kube_apiserver_accepts_is_a_400_echoing_the_uid() {
    // 10,002 levels: the object is wrapped once more
    let inner = deep_object(10_000, "leaf");
    let object = format!(
        r#"{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"deep"}},"data":{{"x":[{}]}}}}"#,
        inner
    );
    let request = request("too-deep", &object, "null");
    let mut session = palisade().instantiate().unwrap();
    assert_eq!(session.configure(BUNDLE.as_bytes()).unwrap(), None);
    let answer = session.validate(review(&request).as_bytes()).unwrap();
    let response = &answer["response"];
    assert_eq!(response["uid"], "too-deep", "{answer}");
    assert_eq!(response["status"]["code"], 400, "{answer}");
    let message = response["status"]["message"].as_str().unwrap();
    assert!(
        message.contains("deeper than 10000 levels"),
        "the message names the limit: {message}"
    );
    let native: Value =
        serde_json::from_str(&palisade::api::review_json(BUNDLE, &review(&request))).unwrap();
    assert_eq!(native["response"], *response);
}

/// `'%s'.format([object])` writes a list or map by walking it: on 10,000 levels that walk would outrun a wasm stack.
/// It stops at the depth values are printed to (`max recursion depth exceeded`), so the messageExpression fails and
/// the validation's own message stands, as kube-apiserver answers a messageExpression that errors.
#[test]
fn formatting_ten_thousand_levels_fails_the_message_expression_not_the_module() {
    let bundle = r#"{"policies":[
 {"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy","metadata":{"name":"printed"},
  "spec":{"failurePolicy":"Fail",
   "matchConstraints":{"resourceRules":[{"apiGroups":[""],"apiVersions":["v1"],"operations":["UPDATE"],"resources":["configmaps"]}]},
   "validations":[{"expression":"false","message":"not printed","messageExpression":"'%s'.format([object])"}]}},
 {"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicyBinding","metadata":{"name":"printed"},
  "spec":{"policyName":"printed","validationActions":["Deny"]}}]}"#;
    let object = deep_object(10_000, "leaf");
    let request = request("printed", &object, &object);
    let mut session = palisade().instantiate().unwrap();
    assert_eq!(session.configure(bundle.as_bytes()).unwrap(), None);
    let answer = session.validate(review(&request).as_bytes()).unwrap();
    let response = &answer["response"];
    assert_eq!(response["uid"], "printed", "{answer}");
    assert_eq!(response["allowed"], false, "{answer}");
    let message = response["status"]["message"].as_str().unwrap();
    assert!(
        message.ends_with("denied request: not printed"),
        "{message}"
    );
    let native: Value =
        serde_json::from_str(&palisade::api::review_json(bundle, &review(&request))).unwrap();
    assert_eq!(native["response"], *response);
}
