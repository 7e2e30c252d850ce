//! ValidatingAdmissionPolicy behaviour through the library's `&str` API (the same one every adapter uses).
//! Expected values follow kube-apiserver's validating admission policy plugin
//! (k8s.io/apiserver/pkg/admission/plugin/policy/validating: dispatcher.go, validator.go).
#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "test helpers build fixtures that are known to be objects"
)]

use serde_json::{Value, json};

fn policy(name: &str, spec_extra: Value) -> Value {
    let mut spec = json!({
        "failurePolicy": "Fail",
        "matchConstraints": {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"],
            "operations": ["CREATE", "UPDATE"], "resources": ["pods"]}]},
    });
    for (k, v) in spec_extra.as_object().unwrap() {
        spec[k] = v.clone();
    }
    json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
           "metadata": {"name": name}, "spec": spec})
}

fn binding(name: &str, policy: &str, actions: &[&str], extra: Value) -> Value {
    let mut spec = json!({"policyName": policy, "validationActions": actions});
    for (k, v) in extra.as_object().unwrap() {
        spec[k] = v.clone();
    }
    json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
           "metadata": {"name": name}, "spec": spec})
}

fn pod_review(labels: Value) -> Value {
    json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {
        "uid": "u-1", "operation": "CREATE", "name": "web", "namespace": "default",
        "kind": {"group": "", "version": "v1", "kind": "Pod"},
        "resource": {"group": "", "version": "v1", "resource": "pods"},
        "userInfo": {"username": "alice", "groups": ["devs"]},
        "object": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "namespace": "default", "labels": labels},
                   "spec": {"containers": [{"name": "c", "image": "nginx", "securityContext": {"privileged": true}}]}}
    }})
}

fn run(bundle: Value, review: Value) -> Value {
    let out = palisade::api::review_json(&bundle.to_string(), &review.to_string());
    let v: Value = serde_json::from_str(&out).unwrap();
    v["response"].clone()
}

#[test]
fn deny_with_reason_and_message() {
    let bundle = json!({"policies": [
        policy("no-privileged", json!({"validations": [{
            "expression": "!object.spec.containers.exists(c, c.securityContext.privileged)",
            "message": "privileged containers are not allowed", "reason": "Forbidden"}]})),
        binding("no-privileged-binding", "no-privileged", &["Deny"], json!({})),
    ]});
    let r = run(bundle, pod_review(json!({})));
    assert_eq!(r["allowed"], false);
    assert_eq!(r["uid"], "u-1");
    assert_eq!(r["status"]["code"], 403);
    assert_eq!(r["status"]["reason"], "Forbidden");
    assert_eq!(
        r["status"]["message"],
        "ValidatingAdmissionPolicy 'no-privileged' with binding 'no-privileged-binding' denied request: privileged containers are not allowed"
    );
}

#[test]
fn message_fallbacks() {
    // messageExpression → message → "failed expression: <expr>"; unset reason → Invalid (422)
    let bundle = json!({"policies": [
        policy("p", json!({"validations": [
            {"expression": "false", "messageExpression": "'bad ' + object.metadata.name"},
            {"expression": "1 == 2", "messageExpression": "'multi\\nline'", "message": "static"},
            {"expression": " object.metadata.name == 'x' "},
            {"expression": "false", "messageExpression": "string(object.metadata.missing)"},
        ]})),
        binding("b", "p", &["Warn"], json!({})),
    ]});
    let r = run(bundle, pod_review(json!({})));
    assert_eq!(r["allowed"], true);
    let warnings: Vec<&str> = r["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    assert_eq!(
        warnings,
        [
            "Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': bad web",
            "Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': static",
            "Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': failed expression: object.metadata.name == 'x'",
            "Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': failed expression: false",
        ]
    );
}

#[test]
fn runtime_error_follows_failure_policy() {
    let make = |fp: &str| {
        let mut p = policy(
            "p",
            json!({"validations": [{"expression": "object.metadata.labels.team == 'a'"}]}),
        );
        p["spec"]["failurePolicy"] = json!(fp);
        json!({"policies": [p, binding("b", "p", &["Deny"], json!({}))]})
    };
    let r = run(make("Fail"), pod_review(json!({})));
    assert_eq!(r["allowed"], false);
    assert_eq!(r["status"]["code"], 422);
    assert_eq!(
        r["status"]["message"],
        "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: expression 'object.metadata.labels.team == 'a'' resulted in error: no such key: team"
    );
    let r = run(make("Ignore"), pod_review(json!({})));
    assert_eq!(r["allowed"], true);
}

#[test]
fn audit_annotations_as_kube_apiserver_writes_them() {
    let bundle = json!({"policies": [
        policy("p", json!({
            "validations": [{"expression": "false", "message": "a <b> & c"}],
            "auditAnnotations": [{"key": "team", "valueExpression": "'team-' + object.metadata.name"},
                                 {"key": "none", "valueExpression": "null"}]})),
        binding("b", "p", &["Audit"], json!({})),
    ]});
    let r = run(bundle, pod_review(json!({})));
    assert_eq!(r["allowed"], true);
    assert_eq!(r["auditAnnotations"]["p/team"], "team-web");
    assert!(r["auditAnnotations"].get("p/none").is_none());
    assert_eq!(
        r["auditAnnotations"]["validation.policy.admission.k8s.io/validation_failure"],
        r#"[{"message":"a \u003cb\u003e \u0026 c","policy":"p","binding":"b","expressionIndex":0,"validationActions":["Audit"]}]"#
    );
}

#[test]
fn params_by_name_and_not_found() {
    let p = policy(
        "replicas",
        json!({
        "paramKind": {"apiVersion": "v1", "kind": "ConfigMap"},
        "validations": [{"expression": "object.metadata.name != params.data.forbidden", "messageExpression": "'name ' + object.metadata.name + ' is forbidden'"}]}),
    );
    let make = |name: &str, action: &str| {
        json!({
            "policies": [p.clone(), binding("b", "replicas", &["Deny"], json!({"paramRef": {"name": name, "parameterNotFoundAction": action}}))],
            "params": [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg", "namespace": "default"}, "data": {"forbidden": "web"}}]
        })
    };
    let r = run(make("cfg", "Deny"), pod_review(json!({})));
    assert_eq!(
        r["status"]["message"],
        "ValidatingAdmissionPolicy 'replicas' with binding 'b' denied request: name web is forbidden"
    );
    let r = run(make("other", "Deny"), pod_review(json!({})));
    assert_eq!(
        r["status"]["message"],
        "ValidatingAdmissionPolicy 'replicas' with binding 'b' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction"
    );
    let r = run(make("other", "Allow"), pod_review(json!({})));
    assert_eq!(r["allowed"], true);
}

#[test]
fn bundle_errors_name_the_field() {
    let bundle = json!({"policies": [
        policy("p", json!({"validations": [{"expression": "'not a bool'"}, {"expression": "object.spec.(" }]})),
        binding("b", "missing", &["Deny", "Warn"], json!({})),
    ]});
    let configured = palisade::api::configure(bundle.to_string().as_bytes());
    let err = configured.rejection().unwrap().to_string();
    assert!(
        err.contains("policies[0].spec.validations[0].expression: compilation error"),
        "{err}"
    );
    assert!(
        err.contains("policies[0].spec.validations[1].expression: compilation error"),
        "{err}"
    );
    assert!(
        err.contains("policies[1].spec.validationActions: Invalid value"),
        "{err}"
    );
}

/// The configure answer: problems carry their severity and, for CEL, where inside the expression; warnings stay strings
/// (the published contract) and come again as `diagnostics` objects.
#[test]
fn configure_answer_diagnostics() {
    let broken = json!({"policies": [policy("p", json!({"validations": [{"expression": "true &&\n  object.x <=* 3"}]}))]});
    let answer: Value =
        serde_json::from_str(&palisade::api::configure(broken.to_string().as_bytes()).answer())
            .unwrap();
    assert_eq!(answer["valid"], false);
    let problem = &answer["problems"][0];
    assert_eq!(problem["severity"], "error");
    assert_eq!(problem["document"], 0);
    assert_eq!(
        problem["path"],
        "policies[0].spec.validations[0].expression"
    );
    assert_eq!(problem["expression"]["line"], 2, "{problem}");
    assert_eq!(
        problem["expression"]["offset"].as_u64().unwrap(),
        8 + problem["expression"]["column"].as_u64().unwrap() - 1
    );

    let unbound =
        json!({"policies": [policy("p", json!({"validations": [{"expression": "true"}]}))]});
    let answer: Value =
        serde_json::from_str(&palisade::api::configure(unbound.to_string().as_bytes()).answer())
            .unwrap();
    assert_eq!(answer["valid"], true);
    assert_eq!(
        answer["warnings"],
        json!([
            "policies[0]: ValidatingAdmissionPolicy `p` has no binding, so it has no effect (help: add a ValidatingAdmissionPolicyBinding whose spec.policyName names it)"
        ])
    );
    assert_eq!(answer["diagnostics"][0]["severity"], "warning");
    assert_eq!(answer["diagnostics"][0]["path"], "policies[0]");
}
