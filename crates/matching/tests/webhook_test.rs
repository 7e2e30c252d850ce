//! upstream: k8s.io/apiserver/pkg/admission/plugin/webhook/generic/webhook_test.go TestShouldCallHook
//! (match conditions are CEL and evaluated by the caller: the three match-condition cases are
//! ported as "the webhook matches and carries its conditions"), and the dispatcher's dry-run /
//! version / timeout rules from validating/dispatcher.go and request/admissionreview.go.
#![allow(
    clippy::panic,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]

mod common;

use common::*;
use palisade_matching::{
    FailurePolicy, MatchPolicy, SideEffectClass, Webhook, parse_validating_webhook_configuration,
};
use serde_json::{Value, json};

fn hook(rules: Vec<Value>, match_policy: Option<&str>) -> Webhook {
    let mut v = json!({"name": "webhook.k8s.io", "namespaceSelector": {}, "objectSelector": {}, "rules": rules,
        "sideEffects": "None", "admissionReviewVersions": ["v1"]});
    if let Some(p) = match_policy {
        v["matchPolicy"] = json!(p);
    }
    must(Webhook::parse(&v, "webhooks[0]"))
}

fn rule(groups: &[&str], versions: &[&str], resources: &[&str]) -> Value {
    json!({"operations": ["*"], "apiGroups": groups, "apiVersions": versions, "resources": resources, "scope": "*"})
}

#[test]
fn test_should_call_hook() {
    let deploy = gvr("apps", "v1", "deployments");
    let deploy_kind = gvk("apps", "v1", "Deployment");
    let scale_kind = gvk("autoscaling", "v1", "Scale");
    let ext = |r: &[&str]| rule(&["extensions"], &["v1beta1"], r);
    let beta = |r: &[&str]| rule(&["apps"], &["v1beta1"], r);
    let v1 = |r: &[&str]| rule(&["apps"], &["v1"], r);
    let d = &["deployments"][..];
    let ds = &["deployments", "deployments/scale"][..];
    // (name, webhook, kind, resource, subresource, expect call resource, expect call kind)
    #[allow(clippy::type_complexity)]
    let cases: Vec<(&str, Webhook, _, _, &str, Option<(_, _)>)> = vec![
        (
            "no rules (just write)",
            hook(vec![], None),
            deploy_kind,
            deploy,
            "",
            None,
        ),
        (
            "wildcard rule, match as requested",
            hook(vec![rule(&["*"], &["*"], &["*"])], None),
            deploy_kind,
            deploy,
            "",
            Some((deploy, deploy_kind)),
        ),
        (
            "specific rules, prefer exact match",
            hook(vec![ext(d), beta(d), v1(d)], None),
            deploy_kind,
            deploy,
            "",
            Some((deploy, deploy_kind)),
        ),
        (
            "specific rules, match miss",
            hook(vec![ext(d), beta(d)], Some("Exact")),
            deploy_kind,
            deploy,
            "",
            None,
        ),
        (
            "specific rules, exact match miss",
            hook(vec![ext(d), beta(d)], Some("Exact")),
            deploy_kind,
            deploy,
            "",
            None,
        ),
        (
            "specific rules, equivalent match, prefer extensions",
            hook(vec![ext(d), beta(d)], Some("Equivalent")),
            deploy_kind,
            deploy,
            "",
            Some((
                gvr("extensions", "v1beta1", "deployments"),
                gvk("extensions", "v1beta1", "Deployment"),
            )),
        ),
        (
            "specific rules, equivalent match, prefer apps",
            hook(vec![beta(d), ext(d)], Some("Equivalent")),
            deploy_kind,
            deploy,
            "",
            Some((
                gvr("apps", "v1beta1", "deployments"),
                gvk("apps", "v1beta1", "Deployment"),
            )),
        ),
        (
            "specific rules, subresource prefer exact match",
            hook(vec![ext(ds), beta(ds), v1(ds)], None),
            scale_kind,
            deploy,
            "scale",
            Some((deploy, scale_kind)),
        ),
        (
            "specific rules, subresource match miss",
            hook(vec![ext(ds), beta(ds)], Some("Exact")),
            scale_kind,
            deploy,
            "scale",
            None,
        ),
        (
            "specific rules, subresource exact match miss",
            hook(vec![ext(ds), beta(ds)], Some("Exact")),
            scale_kind,
            deploy,
            "scale",
            None,
        ),
        (
            "specific rules, subresource equivalent match, prefer extensions",
            hook(vec![ext(ds), beta(ds)], Some("Equivalent")),
            scale_kind,
            deploy,
            "scale",
            Some((
                gvr("extensions", "v1beta1", "deployments"),
                gvk("extensions", "v1beta1", "Scale"),
            )),
        ),
        (
            "specific rules, subresource equivalent match, prefer apps",
            hook(vec![beta(ds), ext(ds)], Some("Equivalent")),
            scale_kind,
            deploy,
            "scale",
            Some((
                gvr("apps", "v1beta1", "deployments"),
                gvk("apps", "v1beta1", "Scale"),
            )),
        ),
    ];
    for (name, h, kind, resource, sub, expect) in &cases {
        let a = record(None, None, *kind, "ns", "name", *resource, sub, "CREATE");
        let got = h
            .matches_with(&a, &PanicLookup, &UpstreamTestMapper)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        match (got, expect) {
            (None, None) => {}
            (Some(m), Some((r, k))) => {
                assert_eq!(m.resource, *r, "{name}");
                assert_eq!(m.kind, *k, "{name}");
                assert_eq!(m.subresource, *sub, "{name}");
            }
            (got, expect) => panic!("{name}: got {got:?}, expected {expect:?}"),
        }
    }
    assert_eq!(cases.len(), 12);
}

// upstream: webhook_test.go TestShouldCallHook "invalid kind lookup"
#[test]
fn test_should_call_hook_invalid_kind_lookup() {
    let h = hook(
        vec![rule(&["example.com"], &["v1"], &["widgets"])],
        Some("Equivalent"),
    );
    let a = record(
        None,
        None,
        gvk("example.com", "v2", "Widget"),
        "ns",
        "name",
        gvr("example.com", "v2", "widgets"),
        "",
        "CREATE",
    );
    let e = h
        .matches_with(&a, &PanicLookup, &UpstreamTestMapper)
        .unwrap_err();
    assert!(e.to_string().contains("unknown kind"), "{e}");
}

// upstream: webhook_test.go TestShouldCallHook "wildcard rule, match conditions also match" /
// "… do not match" / "… error": the rules match and the conditions are handed to the caller.
#[test]
fn test_should_call_hook_keeps_match_conditions() {
    let h = must(Webhook::parse(
        &json!({"name": "webhook.k8s.io", "namespaceSelector": {}, "objectSelector": {},
        "rules": [rule(&["*"], &["*"], &["*"])], "sideEffects": "None", "admissionReviewVersions": ["v1"],
        "matchConditions": [{"name": "test1", "expression": "test expression"}]}),
        "",
    ));
    let a = record(
        None,
        None,
        gvk("apps", "v1", "Deployment"),
        "ns",
        "name",
        gvr("apps", "v1", "deployments"),
        "",
        "CREATE",
    );
    assert!(h.matches(&a, &PanicLookup).unwrap().is_some());
    assert_eq!(h.match_conditions.len(), 1);
    assert_eq!(h.match_conditions[0].name, "test1");
    assert_eq!(h.match_conditions[0].expression, "test expression");
}

// upstream: generic/webhook.go ShouldCallHook with the built-in table: a request through
// extensions/v1beta1 reaches an apps/v1 webhook, converted.
#[test]
fn webhook_equivalent_with_builtin_table() {
    let h = hook(
        vec![rule(
            &["apps"],
            &["v1"],
            &["deployments", "deployments/scale"],
        )],
        None,
    );
    assert_eq!(h.match_policy, MatchPolicy::Equivalent);
    let a = record(
        None,
        None,
        gvk("extensions", "v1beta1", "Scale"),
        "ns",
        "web",
        gvr("extensions", "v1beta1", "deployments"),
        "scale",
        "UPDATE",
    );
    let m = h.matches(&a, &PanicLookup).unwrap().unwrap();
    assert_eq!(m.resource, gvr("apps", "v1", "deployments"));
    assert_eq!(m.kind, gvk("autoscaling", "v1", "Scale"));
    assert!(m.equivalent);
    // requestResource is what is matched
    let mut converted = record(
        None,
        None,
        gvk("apps", "v1", "Deployment"),
        "ns",
        "web",
        gvr("apps", "v1", "deployments"),
        "",
        "CREATE",
    );
    converted.request_resource = Some(gvr("extensions", "v1beta1", "deployments"));
    converted.request_kind = Some(gvk("extensions", "v1beta1", "Deployment"));
    let exact = hook(
        vec![rule(&["extensions"], &["v1beta1"], &["deployments"])],
        Some("Exact"),
    );
    let m = exact.matches(&converted, &PanicLookup).unwrap().unwrap();
    assert_eq!(m.resource, gvr("extensions", "v1beta1", "deployments"));
    assert_eq!(m.kind, gvk("extensions", "v1beta1", "Deployment"));
}

// upstream: validating/dispatcher.go callHook dry-run check, errors.NewDryRunUnsupportedErr
#[test]
fn dry_run_requires_no_side_effects() {
    for (class, ok) in [
        ("None", true),
        ("NoneOnDryRun", true),
        ("Some", false),
        ("Unknown", false),
    ] {
        let h = must(Webhook::parse(
            &json!({"name": "webhook.k8s.io", "sideEffects": class, "admissionReviewVersions": ["v1"]}),
            "",
        ));
        assert_eq!(h.side_effects.allows_dry_run(), ok);
        assert!(h.check_dry_run(false).is_ok());
        match h.check_dry_run(true) {
            Ok(()) => assert!(ok, "{class}"),
            Err(e) => {
                assert!(!ok, "{class}");
                assert_eq!(
                    e,
                    "admission webhook \"webhook.k8s.io\" does not support dry run"
                );
            }
        }
    }
    let h = must(Webhook::parse(
        &json!({"name": "webhook.k8s.io", "sideEffects": "Unknown", "admissionReviewVersions": ["v1"]}),
        "",
    ));
    assert_eq!(h.side_effects, SideEffectClass::Unknown);
}

// defaults (k8s.io/api admissionregistration/v1 defaults): failurePolicy Fail, matchPolicy
// Equivalent, timeoutSeconds 10, selectors {}
#[test]
fn webhook_defaults_and_versions() {
    let h = must(Webhook::parse(
        &json!({"name": "webhook.k8s.io", "sideEffects": "None", "admissionReviewVersions": ["v2", "v1beta1", "v1"]}),
        "",
    ));
    assert_eq!(h.failure_policy, FailurePolicy::Fail);
    assert_eq!(h.match_policy, MatchPolicy::Equivalent);
    assert_eq!(h.timeout_seconds, 10);
    assert!(h.namespace_selector.is_everything() && h.object_selector.is_everything());
    assert_eq!(
        h.admission_review_version(&["v1", "v1beta1"]),
        Some("v1beta1")
    );
    assert_eq!(h.admission_review_version(&["v3"]), None);
    let t = must(Webhook::parse(
        &json!({"name": "webhook.k8s.io", "sideEffects": "None", "admissionReviewVersions": ["v1"], "timeoutSeconds": 30, "failurePolicy": "Ignore"}),
        "",
    ));
    assert_eq!(t.timeout_seconds, 30);
    assert_eq!(t.failure_policy, FailurePolicy::Ignore);
}

fn config(hooks: Vec<Value>) -> Value {
    json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration", "metadata": {"name": "config"}, "webhooks": hooks})
}

/// upstream newValidatingWebhookConfiguration(…, true): admissionReviewVersions defaulted to v1beta1
fn h(mut v: Value) -> Value {
    if v.get("admissionReviewVersions").is_none() {
        v["admissionReviewVersions"] = json!(["v1beta1"]);
    }
    if v.get("sideEffects").is_none() {
        v["sideEffects"] = json!("None");
    }
    v
}

fn a_rule(ops: Value, resources: Value) -> Value {
    json!({"operations": ops, "apiGroups": ["a"], "apiVersions": ["a"], "resources": resources})
}

// upstream: kubernetes pkg/apis/admissionregistration/validation/validation_test.go
// TestValidateValidatingWebhookConfiguration (the cases that do not concern clientConfig or CEL)
#[test]
fn test_validate_validating_webhook_configuration() {
    let cases: Vec<(&str, Value, &str)> = vec![
        (
            "AdmissionReviewVersions are required",
            config(vec![
                json!({"name": "webhook.k8s.io", "sideEffects": "Unknown"}),
            ]),
            "webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1",
        ),
        (
            "should fail on bad AdmissionReviewVersion value",
            config(vec![h(
                json!({"name": "webhook.k8s.io", "admissionReviewVersions": ["0v"]}),
            )]),
            "Invalid value: \"0v\": a DNS-1035 label",
        ),
        (
            "should pass on valid AdmissionReviewVersion",
            config(vec![h(
                json!({"name": "webhook.k8s.io", "admissionReviewVersions": ["v1beta1"]}),
            )]),
            "",
        ),
        (
            "should pass on mix of accepted and unaccepted AdmissionReviewVersion",
            config(vec![h(
                json!({"name": "webhook.k8s.io", "admissionReviewVersions": ["v1beta1", "invalid-version"]}),
            )]),
            "",
        ),
        (
            "should fail on invalid AdmissionReviewVersion",
            config(vec![h(
                json!({"name": "webhook.k8s.io", "admissionReviewVersions": ["invalidVersion"]}),
            )]),
            // upstream prints the list the Go way (`[]string{"invalidVersion"}`) in older releases, as JSON since 1.34
            "Invalid value: [\"invalidVersion\"]",
        ),
        (
            "should fail on duplicate AdmissionReviewVersion",
            config(vec![h(
                json!({"name": "webhook.k8s.io", "admissionReviewVersions": ["v1beta1", "v1beta1"]}),
            )]),
            "Invalid value: \"v1beta1\": duplicate version",
        ),
        (
            "all Webhooks must have a fully qualified name",
            config(vec![
                h(json!({"name": "webhook.k8s.io"})),
                h(json!({"name": "k8s.io"})),
                h(json!({"name": ""})),
            ]),
            "webhooks[1].name: Invalid value: \"k8s.io\": should be a domain with at least three segments separated by dots, webhooks[2].name: Required value",
        ),
        (
            "Webhooks must have unique names when created",
            config(vec![
                h(json!({"name": "webhook.k8s.io", "sideEffects": "Unknown"})),
                h(json!({"name": "webhook.k8s.io", "sideEffects": "Unknown"})),
            ]),
            "webhooks[1].name: Duplicate value: \"webhook.k8s.io\"",
        ),
        (
            "Operations must not be empty or nil",
            config(vec![h(
                json!({"name": "webhook.k8s.io", "rules": [a_rule(json!([]), json!(["a"])), a_rule(Value::Null, json!(["a"]))]}),
            )]),
            "webhooks[0].rules[0].operations: Required value, webhooks[0].rules[1].operations: Required value",
        ),
        (
            "\"\" is NOT a valid operation",
            config(vec![h(
                json!({"name": "webhook.k8s.io", "rules": [a_rule(json!(["CREATE", ""]), json!(["a"]))]}),
            )]),
            "Unsupported value: \"\"",
        ),
        (
            "operation must be either create/update/delete/connect",
            config(vec![h(
                json!({"name": "webhook.k8s.io", "rules": [a_rule(json!(["PATCH"]), json!(["a"]))]}),
            )]),
            "Unsupported value: \"PATCH\"",
        ),
        (
            "wildcard operation cannot be mixed with other strings",
            config(vec![h(
                json!({"name": "webhook.k8s.io", "rules": [a_rule(json!(["CREATE", "*"]), json!(["a"]))]}),
            )]),
            "if '*' is present, must not specify other operations",
        ),
        (
            "resource \"*\" can co-exist with resources that have subresources",
            config(vec![h(
                json!({"name": "webhook.k8s.io", "rules": [a_rule(json!(["CREATE"]), json!(["*", "a/b", "a/*", "*/b"]))]}),
            )]),
            "",
        ),
        (
            "resource \"*\" cannot mix with resources that don't have subresources",
            config(vec![h(
                json!({"name": "webhook.k8s.io", "rules": [a_rule(json!(["CREATE"]), json!(["*", "a"]))]}),
            )]),
            "if '*' is present, must not specify other resources without subresources",
        ),
        (
            "resource a/* cannot mix with a/x",
            config(vec![h(
                json!({"name": "webhook.k8s.io", "rules": [a_rule(json!(["CREATE"]), json!(["a/*", "a/x"]))]}),
            )]),
            "webhooks[0].rules[0].resources[1]: Invalid value: \"a/x\": if 'a/*' is present, must not specify a/x",
        ),
        (
            "resource a/* can mix with a",
            config(vec![h(
                json!({"name": "webhook.k8s.io", "rules": [a_rule(json!(["CREATE"]), json!(["a/*", "a"]))]}),
            )]),
            "",
        ),
        (
            "resource */a cannot mix with x/a",
            config(vec![h(
                json!({"name": "webhook.k8s.io", "rules": [a_rule(json!(["CREATE"]), json!(["*/a", "x/a"]))]}),
            )]),
            "webhooks[0].rules[0].resources[1]: Invalid value: \"x/a\": if '*/a' is present, must not specify x/a",
        ),
        (
            "resource */* cannot mix with other resources",
            config(vec![h(
                json!({"name": "webhook.k8s.io", "rules": [a_rule(json!(["CREATE"]), json!(["*/*", "a"]))]}),
            )]),
            "webhooks[0].rules[0].resources: Invalid value: [\"*/*\",\"a\"]: if '*/*' is present, must not specify other resources",
        ),
        (
            "FailurePolicy can only be \"Ignore\" or \"Fail\"",
            config(vec![h(
                json!({"name": "webhook.k8s.io", "failurePolicy": "other"}),
            )]),
            "webhooks[0].failurePolicy: Unsupported value: \"other\": supported values: \"Fail\", \"Ignore\"",
        ),
        // upstream (create): "must specify one of None, NoneOnDryRun"; Palisade accepts every class so
        // that it can refuse dry-run requests as the API server does for stored configurations
        (
            "SideEffects are required",
            config(vec![
                json!({"name": "webhook.k8s.io", "admissionReviewVersions": ["v1"]}),
            ]),
            "webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun, Some, Unknown",
        ),
        (
            "SideEffects can only be one of the classes",
            config(vec![h(
                json!({"name": "webhook.k8s.io", "sideEffects": "other"}),
            )]),
            "webhooks[0].sideEffects: Unsupported value: \"other\": supported values: \"None\", \"NoneOnDryRun\", \"Some\", \"Unknown\"",
        ),
        (
            "timeout seconds cannot be greater than 30",
            config(vec![h(
                json!({"name": "webhook.k8s.io", "timeoutSeconds": 31}),
            )]),
            "webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds",
        ),
        (
            "timeout seconds cannot be smaller than 1",
            config(vec![h(
                json!({"name": "webhook.k8s.io", "timeoutSeconds": 0}),
            )]),
            "webhooks[0].timeoutSeconds: Invalid value: 0: the timeout value must be between 1 and 30 seconds",
        ),
        (
            "timeout seconds must be positive",
            config(vec![h(
                json!({"name": "webhook.k8s.io", "timeoutSeconds": -1}),
            )]),
            "webhooks[0].timeoutSeconds: Invalid value: -1: the timeout value must be between 1 and 30 seconds",
        ),
        (
            "valid timeout seconds",
            config(vec![
                h(json!({"name": "webhook.k8s.io", "timeoutSeconds": 1})),
                h(json!({"name": "webhook2.k8s.io", "timeoutSeconds": 15})),
                h(json!({"name": "webhook3.k8s.io", "timeoutSeconds": 30})),
            ]),
            "",
        ),
        (
            "single match condition must have a name",
            config(vec![h(
                json!({"name": "webhook.k8s.io", "matchConditions": [{"expression": "true"}]}),
            )]),
            "webhooks[0].matchConditions[0].name: Required value",
        ),
        (
            "all match conditions must have a name",
            config(vec![
                h(
                    json!({"name": "webhook.k8s.io", "matchConditions": [{"expression": "true"}, {"expression": "true"}]}),
                ),
                h(
                    json!({"name": "webhook2.k8s.io", "matchConditions": [{"name": "", "expression": "true"}]}),
                ),
            ]),
            "webhooks[0].matchConditions[0].name: Required value, webhooks[0].matchConditions[1].name: Required value, webhooks[1].matchConditions[0].name: Required value",
        ),
        (
            "single match condition must have a qualified name",
            config(vec![h(
                json!({"name": "webhook.k8s.io", "matchConditions": [{"name": "-hello", "expression": "true"}]}),
            )]),
            "webhooks[0].matchConditions[0].name: Invalid value: \"-hello\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        ),
        (
            "all match conditions must have qualified names",
            config(vec![
                h(
                    json!({"name": "webhook.k8s.io", "matchConditions": [{"name": ".io", "expression": "true"}, {"name": "thing.test.com", "expression": "true"}]}),
                ),
                h(
                    json!({"name": "webhook2.k8s.io", "matchConditions": [{"name": "some name", "expression": "true"}]}),
                ),
            ]),
            "webhooks[0].matchConditions[0].name: Invalid value: \".io\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), webhooks[1].matchConditions[0].name: Invalid value: \"some name\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        ),
        (
            "expression is required",
            config(vec![h(
                json!({"name": "webhook.k8s.io", "matchConditions": [{"name": "webhook.k8s.io"}]}),
            )]),
            "webhooks[0].matchConditions[0].expression: Required value",
        ),
        (
            "expression is required to have some value",
            config(vec![h(
                json!({"name": "webhook.k8s.io", "matchConditions": [{"name": "webhook.k8s.io", "expression": ""}]}),
            )]),
            "webhooks[0].matchConditions[0].expression: Required value",
        ),
        (
            "unique names same hook",
            config(vec![h(
                json!({"name": "webhook.k8s.io", "matchConditions": [{"name": "webhook.k8s.io", "expression": "true"}, {"name": "webhook.k8s.io", "expression": "true"}]}),
            )]),
            "matchConditions[1].name: Duplicate value: \"webhook.k8s.io\"",
        ),
        (
            "repeat names allowed across different hooks",
            config(vec![
                h(
                    json!({"name": "webhook.k8s.io", "matchConditions": [{"name": "webhook.k8s.io", "expression": "true"}]}),
                ),
                h(
                    json!({"name": "webhook2.k8s.io", "matchConditions": [{"name": "webhook.k8s.io", "expression": "true"}]}),
                ),
            ]),
            "",
        ),
        (
            "max of 64 match conditions",
            config(vec![h(json!({"name": "webhook.k8s.io",
                "matchConditions": (0..65).map(|i| json!({"name": format!("test{i}"), "expression": "true"})).collect::<Vec<_>>()}))]),
            "webhooks[0].matchConditions: Too many: 65: must have at most 64 items",
        ),
    ];
    for (name, cfg, expected) in &cases {
        let got = parse_validating_webhook_configuration(cfg);
        if expected.is_empty() {
            assert!(got.is_ok(), "{name}: unexpected errors {:?}", got.err());
        } else {
            let e = errors_of(got);
            assert!(
                e.contains(expected),
                "{name}: expected to contain\n  {expected}\ngot\n  {e}"
            );
        }
    }
    assert_eq!(cases.len(), 34);
}

// upstream: generic/webhook.go ShouldCallHook: selector errors only for a webhook whose rules match
#[test]
fn webhook_selectors_and_lookup_errors() {
    let h = must(Webhook::parse(
        &json!({"name": "webhook.k8s.io", "sideEffects": "None", "admissionReviewVersions": ["v1"],
        "namespaceSelector": {"matchExpressions": [{"key": "env", "operator": "In", "values": ["prod"]}]},
        "objectSelector": {"matchLabels": {"app": "web"}},
        "rules": [{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["pods"], "scope": "Namespaced"}]}),
        "webhooks[0]",
    ));
    let pod = json!({"metadata": {"labels": {"app": "web"}}});
    let other = json!({"metadata": {"labels": {"app": "db"}}});
    let a = record(
        Some(&pod),
        None,
        gvk("", "v1", "Pod"),
        "team-a",
        "p",
        gvr("", "v1", "pods"),
        "",
        "CREATE",
    );
    assert_eq!(
        h.matches(&a, &FailingLookup).unwrap_err().to_string(),
        "Internal error occurred: the host has no namespace cache"
    );
    assert_eq!(
        h.matches(&a, &Namespaces::new(&[]))
            .unwrap_err()
            .to_string(),
        "namespaces \"team-a\" not found"
    );
    assert!(
        h.matches(&a, &Namespaces::new(&[("team-a", &[("env", "prod")])]))
            .unwrap()
            .is_some()
    );
    assert!(
        h.matches(&a, &Namespaces::new(&[("team-a", &[("env", "dev")])]))
            .unwrap()
            .is_none()
    );
    // an object the objectSelector rejects hides the lookup error
    let b = record(
        Some(&other),
        None,
        gvk("", "v1", "Pod"),
        "team-a",
        "p",
        gvr("", "v1", "pods"),
        "",
        "CREATE",
    );
    assert!(h.matches(&b, &FailingLookup).unwrap().is_none());
    // rules that do not match never ask
    let d = record(
        Some(&pod),
        None,
        gvk("", "v1", "Pod"),
        "team-a",
        "p",
        gvr("", "v1", "pods"),
        "",
        "DELETE",
    );
    assert!(h.matches(&d, &PanicLookup).unwrap().is_none());
}
