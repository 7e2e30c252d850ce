//! upstream: cert-manager/approver-policy v0.27 pkg/internal/approver/validation/validator_test.go
//! (Test_Validator_Compile, Test_Validator_Validate, _CostLimitExceeded, _ServiceAccount,
//! _Groups) and serviceaccount_test.go (TestServiceAccountLib_CELIntegration), through policy
//! `validations` on the common name (`self` = the CN).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a failed expectation is a test failure"
)]

mod common;

use common::*;
use serde_json::json;

fn rule_policy(rule: &str) -> serde_json::Value {
    open_policy(
        "p",
        json!({"allowed": {"commonName": {"validations": [{"rule": rule}]}}}),
    )
}

/// Ok(true) valid, Ok(false) failed rule, Err(evaluation error text)
fn validate(rule: &str, value: &str, cr: Cr) -> Result<bool, String> {
    let cr = Cr {
        v: {
            let mut v = cr.v;
            v["spec"]["request"] = json!(CsrSpec::default().cn(value).request());
            v
        },
    };
    match eval_one(
        json!({"allowed": {"commonName": {"validations": [{"rule": rule}]}}}),
        &cr,
    ) {
        Ok(m) if m.is_empty() => Ok(true),
        Ok(m) if m.contains("failed rule") => Ok(false),
        Ok(m) => Err(m),
        Err(e) => panic!("evaluation error: {e}"),
    }
}

fn cr() -> Cr {
    Cr::new("")
}

#[test]
fn compile_table() {
    // upstream: Test_Validator_Compile
    let ok = [
        "'www.example.com'.endsWith('.com')",
        "size(cr.namespace) < 24",
        "[1,2,3].all(i, i % 2 > 0)",
        "self.startsWith('spiffe://trust-domain.com/')",
        "['.svc', '.svc.cluster.local'].exists(d, self.endsWith(cr.namespace + d))",
        "size(cr.username) > 0",
        "size(cr.groups) > 0",
    ];
    for rule in ok {
        assert_eq!(
            compile_errors(&rule_policy(rule)),
            Vec::<String>::new(),
            "{rule}"
        );
    }
    let bad = ["", "foo = bar", "size('foo')"];
    for rule in bad {
        assert_eq!(
            compile_errors(&rule_policy(rule)).len(),
            1,
            "{rule} must not compile"
        );
    }
    // "err-must-return-bool": approver-policy's own wording
    assert_eq!(
        compile_errors(&rule_policy("size('foo')")),
        vec![
            r#"spec.allowed.commonName.validations[0]: Invalid value: "size('foo')": got int, wanted bool result type"#
        ]
    );
}

#[test]
fn compile_table_service_account() {
    // upstream: Test_Validator_Compile check-serviceaccount-* cases
    for rule in [
        "self.startsWith(serviceAccount(cr.username).getName())",
        "self.startsWith(serviceAccount(cr.username).getNamespace())",
        "isServiceAccount(cr.username)",
    ] {
        assert_eq!(
            compile_errors(&rule_policy(rule)),
            Vec::<String>::new(),
            "{rule}"
        );
    }
}

#[test]
fn validate_spiffe_namespace() {
    // upstream: Test_Validator_Validate
    let rule = "self.startsWith('spiffe://acme.com/ns/%s/sa/'.format([cr.namespace]))";
    assert_eq!(
        validate(
            rule,
            "spiffe://acme.com/ns/foo-ns/sa/bar",
            cr().namespace("foo-ns")
        ),
        Ok(true)
    );
    assert_eq!(
        validate(
            rule,
            "spiffe://acme.com/ns/foo-ns/sa/bar",
            cr().namespace("bar-ns")
        ),
        Ok(false)
    );
    assert_eq!(
        validate(rule, "spiffe://example.com", cr().namespace("foo-ns")),
        Ok(false)
    );
}

#[test]
fn validate_cost_limit_exceeded() {
    // upstream: Test_Validator_Validate_CostLimitExceeded — an evaluation error is an Internal error
    let l = "[0,1,2,3,4,5,6,7,8,9]";
    let rule = format!(
        "{l}.all(a, {l}.all(b, {l}.all(c, {l}.all(d, {l}.all(e, {l}.all(f, {l}.all(g, {l}.all(h, self != \"\"))))))))"
    );
    let r = validate(&rule, "anything", cr());
    let m = r.unwrap_err();
    assert!(
        m.starts_with("spec.allowed.commonName.validations[0]: Internal error: "),
        "{m}"
    );
    assert!(m.contains("cost limit exceeded"), "{m}");
}

#[test]
fn validate_service_account() {
    // upstream: Test_Validator_Validate_ServiceAccount
    let rule = "isServiceAccount(cr.username) && self.startsWith('spiffe://acme.com/ns/%s/sa/%s'.format([serviceAccount(cr.username).getNamespace(),serviceAccount(cr.username).getName()]))";
    let u = |name: &str| cr().set("/spec/username", json!(name));
    assert_eq!(
        validate(
            rule,
            "spiffe://acme.com/ns/foo-ns/sa/bar",
            u("system:serviceaccount:foo-ns:bar")
        ),
        Ok(true)
    );
    assert_eq!(
        validate(
            rule,
            "spiffe://acme.com/ns/bar-ns/sa/foo",
            u("system:serviceaccount:bar-ns:foo")
        ),
        Ok(true)
    );
    assert_eq!(
        validate(
            rule,
            "spiffe://acme.com/ns/foo-ns/sa/foo",
            u("system:serviceaccount:foo-ns:bar")
        ),
        Ok(false)
    );
    assert_eq!(
        validate(
            rule,
            "spiffe://acme.com/ns/foo-ns/sa/bar",
            u("system:serviceaccount:bar-ns:bar")
        ),
        Ok(false)
    );
    assert_eq!(
        validate(rule, "spiffe://acme.com/ns/foo-ns/sa/bar", u("bar")),
        Ok(false)
    );
    assert_eq!(
        validate(
            rule,
            "spiffe://example.com",
            u("system:serviceaccount:foo-ns:bar")
        ),
        Ok(false)
    );
}

#[test]
fn validate_groups() {
    // upstream: Test_Validator_Validate_Groups
    let rule = "cr.groups.exists(g, self.matches('tool-%s'.format([g])))";
    let g = |gs: serde_json::Value| cr().set("/spec/groups", gs);
    assert_eq!(
        validate(rule, "tool-team-a", g(json!(["team-a"]))),
        Ok(true)
    );
    assert_eq!(
        validate(rule, "tool-team-a", g(json!(["admin", "team-a"]))),
        Ok(true)
    );
    assert_eq!(
        validate(rule, "tool-team-b", g(json!(["team-a"]))),
        Ok(false)
    );
    assert_eq!(validate(rule, "tool-team-b", g(json!([]))), Ok(false));
}

#[test]
fn service_account_lib_integration() {
    // upstream: serviceaccount_test.go TestServiceAccountLib_CELIntegration, TestIsServiceAccount,
    // TestStringToServiceAccount (through cr.username)
    let u = |name: &str| cr().set("/spec/username", json!(name));
    assert_eq!(
        validate(
            "isServiceAccount(cr.username)",
            "x",
            u("system:serviceaccount:default:my-sa")
        ),
        Ok(true)
    );
    assert_eq!(
        validate("isServiceAccount(cr.username)", "x", u("not-valid")),
        Ok(false)
    );
    assert_eq!(
        validate("isServiceAccount(cr.username)", "x", u("")),
        Ok(false)
    );
    assert_eq!(
        validate(
            "serviceAccount(cr.username).getName() == self",
            "test-sa",
            u("system:serviceaccount:test-ns:test-sa")
        ),
        Ok(true)
    );
    assert_eq!(
        validate(
            "serviceAccount(cr.username).getNamespace() == self",
            "test-ns",
            u("system:serviceaccount:test-ns:test-sa")
        ),
        Ok(true)
    );
    // "invalid username should return error": an evaluation error
    let e = validate(
        "serviceAccount(cr.username).getName() == self",
        "x",
        u("not-a-service-account"),
    )
    .unwrap_err();
    assert!(
        e.starts_with("spec.allowed.commonName.validations[0]: Internal error: "),
        "{e}"
    );
}

#[test]
fn cr_name_and_namespace_bound() {
    let c = cr()
        .namespace("team-a")
        .set("/metadata/name", json!("req-1"));
    assert_eq!(
        validate(
            "cr.name == 'req-1' && cr.namespace == 'team-a' && self == 'v'",
            "v",
            c
        ),
        Ok(true)
    );
}

#[test]
fn fallback_and_custom_messages() {
    let csr = CsrSpec::default().cn("a.example.com");
    let spec = json!({"allowed": {"commonName": {"validations": [
        {"rule": "self.endsWith('.svc')"},
        {"rule": "self.size() < 3", "message": "too long"}
    ]}}});
    assert_eq!(
        eval_one(spec, &Cr::of(&csr)).unwrap(),
        agg(&[
            r#"spec.allowed.commonName.validations[0]: Invalid value: "a.example.com": failed rule: self.endsWith('.svc')"#,
            r#"spec.allowed.commonName.validations[1]: Invalid value: "a.example.com": too long"#,
        ])
    );
}
