//! upstream: kubernetes pkg/apis/admissionregistration/validation/validation_test.go
//! TestValidateValidatingAdmissionPolicy (the matchConstraints cases), and k8s.io/apimachinery
//! pkg/apis/meta/v1/validation/validation_test.go (TestValidateLabels,
//! TestLabelSelectorMatchExpression) and pkg/apis/meta/v1/helpers_test.go TestLabelSelectorAsSelector.
#![allow(
    clippy::panic,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]

mod common;

use common::*;
use palisade_matching::{
    LabelSelector, MatchPolicy, MatchResources, NamedRuleWithOperations, RuleWithOperations, Scope,
};
use serde_json::{Value, json};
use std::collections::BTreeMap;

fn a_rule(ops: Value, resources: Value) -> Value {
    json!({"operations": ops, "apiGroups": ["a"], "apiVersions": ["a"], "resources": resources})
}

fn constraints(v: Value) -> Result<MatchResources, Vec<palisade_matching::FieldError>> {
    MatchResources::parse_policy_constraints(&v, "spec.matchConstraints")
}

// upstream: validation_test.go TestValidateValidatingAdmissionPolicy (matchConstraints cases)
#[test]
fn test_validate_validating_admission_policy_match_constraints() {
    let cases: Vec<(&str, Value, &str)> = vec![
        (
            "matchResources resourceNames check",
            json!({"resourceRules": [{"resourceNames": ["/./."]}]}),
            "spec.matchConstraints.resourceRules[0].resourceNames[0]: Invalid value: \"/./.\"",
        ),
        (
            "matchResources resourceNames cannot duplicate",
            json!({"resourceRules": [{"resourceNames": ["test", "test"]}]}),
            "spec.matchConstraints.resourceRules[0].resourceNames[1]: Duplicate value: \"test\"",
        ),
        (
            "matchResources validation: matchPolicy",
            json!({"matchPolicy": "other"}),
            "spec.matchConstraints.matchPolicy: Unsupported value: \"other\": supported values: \"Equivalent\", \"Exact\"",
        ),
        (
            "Operations must not be empty or nil",
            json!({"namespaceSelector": {"matchLabels": {"a": "b"}}, "objectSelector": {"matchLabels": {"a": "b"}}, "matchPolicy": "Exact",
                "resourceRules": [a_rule(json!([]), json!(["a"])), a_rule(Value::Null, json!(["a"]))],
                "excludeResourceRules": [a_rule(json!([]), json!(["a"])), a_rule(Value::Null, json!(["a"]))]}),
            "spec.matchConstraints.resourceRules[0].operations: Required value, spec.matchConstraints.resourceRules[1].operations: Required value, spec.matchConstraints.excludeResourceRules[0].operations: Required value, spec.matchConstraints.excludeResourceRules[1].operations: Required value",
        ),
        (
            "\"\" is NOT a valid operation",
            json!({"resourceRules": [a_rule(json!(["CREATE", ""]), json!(["a"]))]}),
            "Unsupported value: \"\"",
        ),
        (
            "operation must be either create/update/delete/connect",
            json!({"resourceRules": [a_rule(json!(["PATCH"]), json!(["a"]))]}),
            "Unsupported value: \"PATCH\"",
        ),
        (
            "wildcard operation cannot be mixed with other strings",
            json!({"resourceRules": [a_rule(json!(["CREATE", "*"]), json!(["a"]))]}),
            "if '*' is present, must not specify other operations",
        ),
        (
            "resource \"*\" can co-exist with resources that have subresources",
            json!({"matchPolicy": "Exact",
                "resourceRules": [a_rule(json!(["CREATE"]), json!(["*", "a/b", "a/*", "*/b"]))],
                "namespaceSelector": {"matchLabels": {"a": "b"}}, "objectSelector": {"matchLabels": {"a": "b"}}}),
            "",
        ),
        (
            "resource \"*\" cannot mix with resources that don't have subresources",
            json!({"resourceRules": [a_rule(json!(["CREATE"]), json!(["*", "a"]))]}),
            "if '*' is present, must not specify other resources without subresources",
        ),
        (
            "resource a/* cannot mix with a/x",
            json!({"resourceRules": [a_rule(json!(["CREATE"]), json!(["a/*", "a/x"]))]}),
            "spec.matchConstraints.resourceRules[0].resources[1]: Invalid value: \"a/x\": if 'a/*' is present, must not specify a/x",
        ),
        (
            "resource a/* can mix with a",
            json!({"matchPolicy": "Exact", "namespaceSelector": {"matchLabels": {"a": "b"}}, "objectSelector": {"matchLabels": {"a": "b"}},
                "resourceRules": [a_rule(json!(["CREATE"]), json!(["a/*", "a"]))]}),
            "",
        ),
        (
            "resource */a cannot mix with x/a",
            json!({"resourceRules": [a_rule(json!(["CREATE"]), json!(["*/a", "x/a"]))]}),
            "spec.matchConstraints.resourceRules[0].resources[1]: Invalid value: \"x/a\": if '*/a' is present, must not specify x/a",
        ),
        (
            "resource */* cannot mix with other resources",
            json!({"resourceRules": [a_rule(json!(["CREATE"]), json!(["*/*", "a"]))]}),
            // Go rendering before 1.34: []string{"*/*", "a"}; JSON since
            "spec.matchConstraints.resourceRules[0].resources: Invalid value: [\"*/*\",\"a\"]: if '*/*' is present, must not specify other resources",
        ),
        // validateValidatingAdmissionPolicySpec: "at least one resourceRule must be defined"
        (
            "matchConstraints requires resourceRules",
            json!({}),
            "spec.matchConstraints.resourceRules: Required value",
        ),
        (
            "matchConstraints is required",
            Value::Null,
            "spec.matchConstraints: Required value",
        ),
    ];
    for (name, v, expected) in &cases {
        let got = constraints(v.clone());
        if expected.is_empty() {
            assert!(got.is_ok(), "{name}: {:?}", got.err());
        } else {
            let e = errors_of(got);
            assert!(
                e.contains(expected),
                "{name}: expected to contain\n  {expected}\ngot\n  {e}"
            );
        }
    }
    assert_eq!(cases.len(), 15);
}

// validateRule: the rest of the rule checks, each with its path
#[test]
fn rule_validation_paths() {
    let cases: Vec<(Value, &str)> = vec![
        (
            json!({"operations": ["CREATE"], "apiVersions": ["v1"], "resources": ["pods"]}),
            "r.apiGroups: Required value",
        ),
        (
            json!({"operations": ["CREATE"], "apiGroups": ["", "*"], "apiVersions": ["v1"], "resources": ["pods"]}),
            "r.apiGroups: Invalid value: [\"\",\"*\"]: if '*' is present, must not specify other API groups",
        ),
        (
            json!({"operations": ["CREATE"], "apiGroups": [""], "resources": ["pods"]}),
            "r.apiVersions: Required value",
        ),
        (
            json!({"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["*", "v1"], "resources": ["pods"]}),
            "r.apiVersions: Invalid value: [\"*\",\"v1\"]: if '*' is present, must not specify other API versions",
        ),
        (
            json!({"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1", ""], "resources": ["pods"]}),
            "r.apiVersions[1]: Required value",
        ),
        (
            json!({"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"]}),
            "r.resources: Required value",
        ),
        (
            json!({"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["pods", ""]}),
            "r.resources[1]: Required value",
        ),
        (
            json!({"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["pods"], "scope": "Global"}),
            "r.scope: Unsupported value: \"Global\": supported values: \"*\", \"Cluster\", \"Namespaced\"",
        ),
        (
            json!({"operations": ["create"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["pods"]}),
            "r.operations[0]: Unsupported value: \"create\": supported values: \"*\", \"CONNECT\", \"CREATE\", \"DELETE\", \"UPDATE\"",
        ),
        (
            json!({"operations": "CREATE", "apiGroups": [""], "apiVersions": ["v1"], "resources": ["pods"]}),
            "r.operations: expected an array of strings",
        ),
    ];
    for (v, expected) in &cases {
        let e = errors_of(RuleWithOperations::parse(v, "r"));
        assert!(
            e.contains(expected),
            "expected to contain\n  {expected}\ngot\n  {e}"
        );
    }
    // and a valid one keeps what it read
    let r = must(RuleWithOperations::parse(
        &json!({"operations": ["CONNECT"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["pods/exec"], "scope": "Namespaced"}),
        "r",
    ));
    assert_eq!(r.scope(), Scope::Namespaced);
    assert!(r.matches("CONNECT", gvr("", "v1", "pods"), "exec", "ns"));
    assert!(!r.matches("CONNECT", gvr("", "v1", "pods"), "exec", ""));
    let n = must(NamedRuleWithOperations::parse(
        &json!({"operations": ["*"], "apiGroups": ["*"], "apiVersions": ["*"], "resources": ["*"], "resourceNames": ["a", "b"]}),
        "r",
    ));
    assert!(n.matches_name("b") && !n.matches_name("") && !n.matches_name("c"));
    // defaults
    let d = must(MatchResources::parse(&json!({}), "m"));
    assert_eq!(d.match_policy(), MatchPolicy::Equivalent);
    assert!(d.namespace_selector().is_everything() && d.object_selector().is_everything());
}

fn labels_errors(labels: Value) -> Vec<palisade_matching::FieldError> {
    match LabelSelector::parse(&json!({"matchLabels": labels}), "field") {
        Ok(_) => vec![],
        Err(e) => e,
    }
}

// upstream: apimachinery meta/v1/validation TestValidateLabels
#[test]
fn test_validate_labels() {
    let success = [
        ("simple", "bar"),
        ("now-with-dashes", "bar"),
        ("1-starts-with-num", "bar"),
        ("1234", "bar"),
        ("simple/simple", "bar"),
        ("now-with-dashes/simple", "bar"),
        ("now-with-dashes/now-with-dashes", "bar"),
        ("now.with.dots/simple", "bar"),
        ("now-with.dashes-and.dots/simple", "bar"),
        ("1-num.2-num/3-num", "bar"),
        ("1234/5678", "bar"),
        ("1.2.3.4/5678", "bar"),
        ("UpperCaseAreOK123", "bar"),
        ("goodvalue", "123_-.BaR"),
    ];
    for (k, v) in success {
        let errs = labels_errors(json!({k: v}));
        assert!(errs.is_empty(), "{k}={v}: {errs:?}");
    }
    let long_key = "a".repeat(254);
    let long_value = "a".repeat(64);
    let failures = [
        (
            json!({"nospecialchars^=@": "bar"}),
            "name part must consist of",
        ),
        (
            json!({"cantendwithadash-": "bar"}),
            "name part must consist of",
        ),
        (
            json!({"only/one/slash": "bar"}),
            "a valid label key must consist of",
        ),
        (json!({long_key: "bar"}), "must be no more than"),
        (json!({"toolongvalue": long_value}), "must be no more than"),
        (
            json!({"backslashesinvalue": "some\\bad\\value"}),
            "a valid label must be an empty string or consist of",
        ),
        (
            json!({"nocommasallowed": "bad,value"}),
            "a valid label must be an empty string or consist of",
        ),
        (
            json!({"strangecharsinvalue": "?#$notsogood"}),
            "a valid label must be an empty string or consist of",
        ),
    ];
    for (labels, expect) in failures {
        let errs = labels_errors(labels.clone());
        assert_eq!(errs.len(), 1, "{labels}: {errs:?}");
        assert!(
            errs[0].message.contains(expect),
            "{labels}: {}",
            errs[0].message
        );
        assert_eq!(errs[0].path, "field.matchLabels");
    }
}

// upstream: apimachinery meta/v1/validation TestLabelSelectorMatchExpression
#[test]
fn test_label_selector_match_expression() {
    let cases = [
        (
            "Valid LabelSelector",
            json!({"key": "key", "operator": "In", "values": ["value"]}),
            0,
            "",
        ),
        (
            "MatchExpression's key name isn't valid",
            json!({"key": "-key", "operator": "In", "values": ["value"]}),
            1,
            "name part must consist of alphanumeric characters",
        ),
        (
            "MatchExpression's operator isn't valid",
            json!({"key": "key", "operator": "abc", "values": ["value"]}),
            1,
            "not a valid selector operator",
        ),
        (
            "MatchExpression's value name isn't valid",
            json!({"key": "key", "operator": "In", "values": ["-value"]}),
            1,
            "a valid label must be an empty string or consist of",
        ),
    ];
    for (name, expr, n, msg) in cases {
        let got = LabelSelector::parse(&json!({"matchExpressions": [expr]}), "labelSelector");
        let errs = got.err().unwrap_or_default();
        assert_eq!(errs.len(), n, "{name}: {errs:?}");
        if n > 0 {
            assert!(errs[0].message.contains(msg), "{name}: {}", errs[0]);
        }
    }
    // ValidateLabelSelectorRequirement: In/NotIn need values, Exists/DoesNotExist forbid them
    let e = errors_of(LabelSelector::parse(
        &json!({"matchExpressions": [{"key": "k", "operator": "NotIn"}]}),
        "s",
    ));
    assert_eq!(
        e,
        "s.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'"
    );
    let e = errors_of(LabelSelector::parse(
        &json!({"matchExpressions": [{"key": "k", "operator": "Exists", "values": ["v"]}]}),
        "s",
    ));
    assert_eq!(
        e,
        "s.matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"
    );
    let e = errors_of(LabelSelector::parse(
        &json!({"matchExpressions": [{"key": "k", "operator": "Gt", "values": ["1"]}]}),
        "s",
    ));
    assert_eq!(
        e,
        "s.matchExpressions[0].operator: Invalid value: \"Gt\": not a valid selector operator"
    );
}

fn set(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

// upstream: apimachinery meta/v1 helpers_test.go TestLabelSelectorAsSelector (what each selector
// selects; the nil selector, labels.Nothing, cannot be written in a document)
#[test]
fn test_label_selector_as_selector() {
    let everything = must(LabelSelector::parse(&json!({}), "s"));
    assert!(
        everything.is_everything()
            && everything.matches(&set(&[]))
            && everything.matches(&set(&[("a", "b")]))
    );
    let foo = must(LabelSelector::parse(
        &json!({"matchLabels": {"foo": "bar"}}),
        "s",
    ));
    assert!(
        foo.matches(&set(&[("foo", "bar"), ("x", "y")]))
            && !foo.matches(&set(&[("foo", "baz")]))
            && !foo.matches(&set(&[]))
    );
    let baz = must(LabelSelector::parse(
        &json!({"matchExpressions": [{"key": "baz", "operator": "In", "values": ["qux", "norf"]}]}),
        "s",
    ));
    assert!(
        baz.matches(&set(&[("baz", "norf")]))
            && !baz.matches(&set(&[("baz", "x")]))
            && !baz.matches(&set(&[]))
    );
    let both = must(LabelSelector::parse(
        &json!({"matchLabels": {"foo": "bar"}, "matchExpressions": [{"key": "baz", "operator": "In", "values": ["qux", "norf"]}]}),
        "s",
    ));
    assert!(
        both.matches(&set(&[("baz", "qux"), ("foo", "bar")]))
            && !both.matches(&set(&[("baz", "qux")]))
    );
    assert!(LabelSelector::parse(&json!({"matchExpressions": [{"key": "baz", "operator": "Exists", "values": ["qux", "norf"]}]}), "s").is_err());
    // NotIn and DoesNotExist match an absent key
    let not_in = must(LabelSelector::parse(
        &json!({"matchExpressions": [{"key": "env", "operator": "NotIn", "values": ["prod"]}]}),
        "s",
    ));
    assert!(
        not_in.matches(&set(&[]))
            && not_in.matches(&set(&[("env", "dev")]))
            && !not_in.matches(&set(&[("env", "prod")]))
    );
    let dne = must(LabelSelector::parse(
        &json!({"matchExpressions": [{"key": "env", "operator": "DoesNotExist"}]}),
        "s",
    ));
    assert!(dne.matches(&set(&[])) && !dne.matches(&set(&[("env", "")])));
    let exists = must(LabelSelector::parse(
        &json!({"matchExpressions": [{"key": "env", "operator": "Exists"}]}),
        "s",
    ));
    assert!(exists.matches(&set(&[("env", "")])) && !exists.matches(&set(&[])));
}
