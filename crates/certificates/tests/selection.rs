//! upstream: cert-manager/approver-policy v0.27 pkg/internal/approver/manager/predicate/predicate_test.go
//! (Test_SelectorIssuerRef, Test_SelectorNamespace, Test_RBACBound) and manager/review_test.go
//! Test_Review, through the public API. Which policies a request selects is observed by making
//! every policy deny it: the denial lists exactly the selected policies.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a failed expectation is a test failure"
)]

mod common;

use common::*;
use palisade_certificates::{Decision, Settings, Unmatched};
use serde_json::{Value, json};

/// A request every policy here denies (CN with no allowed value).
fn denied_cr() -> Cr {
    Cr::of(&CsrSpec::default().cn("x"))
}

fn selected(docs: &[Value], cr: &Cr, host: &FakeHost) -> Result<Vec<String>, String> {
    let p = compile(docs);
    match p.evaluate(&cr.v, host) {
        Decision::Denied { message }
            if message == "No CertificateRequestPolicies bound or applicable" =>
        {
            Ok(vec![])
        }
        Decision::Denied { message } => {
            let rest = message
                .strip_prefix("No policy approved this request: ")
                .expect(&message);
            Ok(rest
                .split("] [")
                .map(|part| {
                    part.trim_start_matches('[')
                        .split(':')
                        .next()
                        .unwrap()
                        .to_owned()
                })
                .collect())
        }
        Decision::Error { message } => Err(message),
        other => panic!("{other:?}"),
    }
}

fn issuer_policy(name: &str, sel: Value) -> Value {
    policy(name, json!({"selector": {"issuerRef": sel}}))
}

#[test]
fn issuer_ref_cases() {
    // upstream: Test_SelectorIssuerRef (request issuerRef test-name / test-kind / test-group)
    let host = FakeHost::allow_all();
    let cr = denied_cr();
    let nkg = |n: &str, k: &str, g: &str| json!({"name": n, "kind": k, "group": g});
    // "if policy given that doesn't match, return no policies"
    assert_eq!(
        selected(
            &[issuer_policy("a", nkg("name", "kind", "group"))],
            &cr,
            &host
        ),
        Ok(vec![])
    );
    // "if two policies given that doesn't match, return no policies"
    assert_eq!(
        selected(
            &[
                issuer_policy("a", nkg("name", "kind", "group")),
                issuer_policy("b", nkg("name-2", "kind-2", "group-2"))
            ],
            &cr,
            &host
        ),
        Ok(vec![])
    );
    // "if one of two policies match all with all nils, return policy"
    assert_eq!(
        selected(
            &[
                issuer_policy("a", json!({})),
                issuer_policy("b", nkg("name", "kind", "group"))
            ],
            &cr,
            &host
        ),
        Ok(vec!["a".into()])
    );
    // "if one of two policies match all with wildcard, return policy"
    assert_eq!(
        selected(
            &[
                issuer_policy("a", nkg("*", "*", "*")),
                issuer_policy("b", nkg("name", "kind", "group"))
            ],
            &cr,
            &host
        ),
        Ok(vec!["a".into()])
    );
    // "if both of two policies match all with empty, return policy"
    assert_eq!(
        selected(
            &[issuer_policy("a", json!({})), issuer_policy("b", json!({}))],
            &cr,
            &host
        ),
        Ok(vec!["a".into(), "b".into()])
    );
    // "if both of two policies match all with wildcard, return policy"
    assert_eq!(
        selected(
            &[
                issuer_policy("a", nkg("*", "*", "*")),
                issuer_policy("b", nkg("*", "*", "*"))
            ],
            &cr,
            &host
        ),
        Ok(vec!["a".into(), "b".into()])
    );
    // "if one policy matches with, other doesn't, return 1"
    assert_eq!(
        selected(
            &[
                issuer_policy("a", nkg("test-name", "test-kind", "test-group")),
                issuer_policy("b", nkg("name", "kind", "group"))
            ],
            &cr,
            &host
        ),
        Ok(vec!["a".into()])
    );
    // "if some polices match with a mix of exact, just wildcard and mix return policies"
    assert_eq!(
        selected(
            &[
                issuer_policy("a", nkg("test-name", "test-kind", "test-group")),
                issuer_policy("b", nkg("name", "kind", "group")),
                issuer_policy("c", nkg("*", "*", "*")),
                issuer_policy("d", nkg("test-*", "*-kind", "*up")),
            ],
            &cr,
            &host
        ),
        Ok(vec!["a".into(), "c".into(), "d".into()])
    );
}

#[test]
fn issuer_ref_defaults_applied() {
    // upstream: Test_SelectorIssuerRef "if policy specifies cert-manager defaults and request omits defaults, return policy"
    let cr = denied_cr().set("/spec/issuerRef", json!({"name": "my-issuer"}));
    let docs = [issuer_policy(
        "a",
        json!({"name": "my-issuer", "kind": "Issuer", "group": "cert-manager.io"}),
    )];
    assert_eq!(
        selected(&docs, &cr, &FakeHost::allow_all()),
        Ok(vec!["a".into()])
    );
}

#[test]
fn no_policies_exist() {
    // upstream: Test_Review "if no CertificateRequestPolicies exist, return ResultUnprocessed"
    let p = compile(&[]);
    assert!(p.is_empty());
    assert_eq!(
        p.evaluate(&denied_cr().v, &FakeHost::allow_all()),
        Decision::Denied {
            message: "No CertificateRequestPolicies exist".into()
        }
    );
    let p = compile_with(
        &[],
        Settings {
            unmatched: Unmatched::Allow,
            require_use_permission: true,
        },
    );
    assert_eq!(
        p.evaluate(&denied_cr().v, &FakeHost::allow_all()),
        Decision::Unmatched {
            message: "No CertificateRequestPolicies exist".into()
        }
    );
}

fn ns_policy(name: &str, ns: Value) -> Value {
    policy(name, json!({"selector": {"namespace": ns}}))
}

#[test]
fn namespace_cases() {
    // upstream: Test_SelectorNamespace (request namespace test-namespace)
    let cr = denied_cr();
    let plain = FakeHost::allow_all().ns("test-namespace", &[]);
    // "if namespace for request doesn't exist and using match names, expect no error"
    assert_eq!(
        selected(
            &[ns_policy("a", json!({"matchNames": ["bar"]}))],
            &cr,
            &FakeHost::allow_all()
        ),
        Ok(vec![])
    );
    // "if namespace for request doesn't exist and using match labels, expect error"
    assert_eq!(
        selected(&[ns_policy("a", json!({"matchLabels": {"foo": "bar"}}))], &cr, &FakeHost::allow_all()),
        Err(r#"failed to perform predicate on policies: failed to get request's namespace to determine namespace selector: namespaces "test-namespace" not found"#.into())
    );
    // "if policy given that doesn't match namespace match name, return no policies"
    assert_eq!(
        selected(
            &[ns_policy("a", json!({"matchNames": ["foo"]}))],
            &cr,
            &plain
        ),
        Ok(vec![])
    );
    // "if policy given that doesn't match namespace match labels, return no policies"
    let barfoo = FakeHost::allow_all().ns("test-namespace", &[("bar", "foo")]);
    assert_eq!(
        selected(
            &[ns_policy("a", json!({"matchLabels": {"foo": "bar"}}))],
            &cr,
            &barfoo
        ),
        Ok(vec![])
    );
    // "if two policies given that doesn't match, return no policies"
    assert_eq!(
        selected(
            &[
                ns_policy("a", json!({"matchNames": ["foo"]})),
                ns_policy("b", json!({"matchLabels": {"foo": "bar"}}))
            ],
            &cr,
            &barfoo
        ),
        Ok(vec![])
    );
    // "if one of two policies match all with all nils, return policy"
    assert_eq!(
        selected(
            &[
                ns_policy("a", json!({})),
                ns_policy("b", json!({"matchNames": ["foo"]}))
            ],
            &cr,
            &plain
        ),
        Ok(vec!["a".into()])
    );
    // "if one of two policies match all with wildcard, return policy"
    assert_eq!(
        selected(
            &[
                ns_policy("a", json!({"matchNames": ["*"]})),
                ns_policy("b", json!({"matchNames": ["foo"]}))
            ],
            &cr,
            &plain
        ),
        Ok(vec!["a".into()])
    );
    // "if one of two policies match with wildcard suffix, return policy"
    assert_eq!(
        selected(
            &[
                ns_policy("a", json!({"matchNames": ["test-*"]})),
                ns_policy("b", json!({"matchNames": ["foo"]}))
            ],
            &cr,
            &plain
        ),
        Ok(vec!["a".into()])
    );
    // "if one of two policies match with wildcard prefix, return policy"
    assert_eq!(
        selected(
            &[
                ns_policy("a", json!({"matchNames": ["*-namespace"]})),
                ns_policy("b", json!({"matchNames": ["foo"]}))
            ],
            &cr,
            &plain
        ),
        Ok(vec!["a".into()])
    );
    // "if both of two policies match all with empty, return policy"
    assert_eq!(
        selected(
            &[ns_policy("a", json!({})), ns_policy("b", json!({}))],
            &cr,
            &plain
        ),
        Ok(vec!["a".into(), "b".into()])
    );
    // "if both of two policies match all with wildcard, return policy"
    assert_eq!(
        selected(
            &[
                ns_policy("a", json!({"matchNames": ["*"]})),
                ns_policy("b", json!({"matchNames": ["*"]}))
            ],
            &cr,
            &plain
        ),
        Ok(vec!["a".into(), "b".into()])
    );
    // "if one policy matches with, other doesn't, return 1"
    assert_eq!(
        selected(
            &[
                ns_policy("a", json!({"matchNames": ["test-namespace"]})),
                ns_policy("b", json!({"matchLabels": {"foo": "bar"}}))
            ],
            &cr,
            &plain
        ),
        Ok(vec!["a".into()])
    );
    // "if some polices match with a mix of exact, just wildcard and mix return policies"
    let foobar = FakeHost::allow_all().ns("test-namespace", &[("foo", "bar")]);
    assert_eq!(
        selected(
            &[
                ns_policy("a", json!({"matchNames": ["test-namespace"]})),
                ns_policy("b", json!({"matchNames": ["*"]})),
                ns_policy("c", json!({"matchLabels": {"foo": "bar"}})),
                ns_policy("d", json!({"matchLabels": {"bar": "foo"}})),
                ns_policy(
                    "e",
                    json!({"matchNames": ["test-namespace"], "matchLabels": {"foo": "bar"}})
                ),
                ns_policy(
                    "f",
                    json!({"matchNames": ["namespace-test"], "matchLabels": {"bar": "foo"}})
                ),
            ],
            &cr,
            &foobar
        ),
        Ok(vec!["a".into(), "b".into(), "c".into(), "e".into()])
    );
}

#[test]
fn namespace_labels_looked_up_lazily() {
    // matchNames-only policies never ask for labels: a failing lookup does not matter
    let host = FakeHost {
        fail_ns: Some("boom".into()),
        ..FakeHost::allow_all()
    };
    assert_eq!(
        selected(
            &[ns_policy("a", json!({"matchNames": ["test-*"]}))],
            &denied_cr(),
            &host
        ),
        Ok(vec!["a".into()])
    );
    assert_eq!(
        selected(&[ns_policy("a", json!({"matchLabels": {"a": "b"}}))], &denied_cr(), &host),
        Err("failed to perform predicate on policies: failed to get request's namespace to determine namespace selector: boom".into())
    );
}

fn any_policy(name: &str) -> Value {
    issuer_policy(name, json!({}))
}

#[test]
fn rbac_bound_cases() {
    // upstream: Test_RBACBound — requester "example" in namespace "test-namespace"
    let cr = denied_cr();
    let nobody = FakeHost::default();
    // "if single CertificateRequestPolicy exists but not bound, return nothing"
    assert_eq!(
        selected(&[any_policy("test-policy-a")], &cr, &nobody),
        Ok(vec![])
    );
    // "if multiple CertificateRequestPolicy exists but not bound, return nothing"
    assert_eq!(
        selected(
            &[any_policy("test-policy-a"), any_policy("test-policy-b")],
            &cr,
            &nobody
        ),
        Ok(vec![])
    );
    // "if single CertificateRequestPolicy bound at cluster level, return policy"
    let h = FakeHost::default().grant("example", "test-policy-a", "");
    assert_eq!(
        selected(&[any_policy("test-policy-a")], &cr, &h),
        Ok(vec!["test-policy-a".into()])
    );
    // "if single CertificateRequestPolicy bound at namespace, return policy"
    let h = FakeHost::default().grant("example", "test-policy-a", "test-namespace");
    assert_eq!(
        selected(&[any_policy("test-policy-a")], &cr, &h),
        Ok(vec!["test-policy-a".into()])
    );
    // a RoleBinding in another namespace does not count
    let h = FakeHost::default().grant("example", "test-policy-a", "other");
    assert_eq!(
        selected(&[any_policy("test-policy-a")], &cr, &h),
        Ok(vec![])
    );
    // "if two CertificateRequestPolicies bound at cluster level, return policies"
    let h = FakeHost::default()
        .grant("example", "test-policy-a", "")
        .grant("example", "test-policy-b", "");
    assert_eq!(
        selected(
            &[any_policy("test-policy-a"), any_policy("test-policy-b")],
            &cr,
            &h
        ),
        Ok(vec!["test-policy-a".into(), "test-policy-b".into()])
    );
    // "if two CertificateRequestPolicies bound at namespace level, return policies"
    let h = FakeHost::default()
        .grant("example", "test-policy-a", "test-namespace")
        .grant("example", "test-policy-b", "test-namespace");
    assert_eq!(
        selected(
            &[any_policy("test-policy-a"), any_policy("test-policy-b")],
            &cr,
            &h
        ),
        Ok(vec!["test-policy-a".into(), "test-policy-b".into()])
    );
    // "if two CertificateRequestPolicies bound at namespace and cluster, return policies"
    let h = FakeHost::default()
        .grant("example", "test-policy-a", "test-namespace")
        .grant("example", "test-policy-b", "");
    assert_eq!(
        selected(
            &[any_policy("test-policy-a"), any_policy("test-policy-b")],
            &cr,
            &h
        ),
        Ok(vec!["test-policy-a".into(), "test-policy-b".into()])
    );
    // "if two CertificateRequestPolicies bound at namespace and cluster and other policies exist, return only bound policies"
    let docs = [
        any_policy("test-policy-a"),
        any_policy("test-policy-b"),
        any_policy("test-policy-c"),
        any_policy("test-policy-d"),
    ];
    assert_eq!(
        selected(&docs, &cr, &h),
        Ok(vec!["test-policy-a".into(), "test-policy-b".into()])
    );
    // group bindings
    let cr_g = denied_cr().set("/spec/groups", json!(["team-a"]));
    let h = FakeHost::default().grant("team-a", "test-policy-a", "");
    assert_eq!(
        selected(&[any_policy("test-policy-a")], &cr_g, &h),
        Ok(vec!["test-policy-a".into()])
    );
}

#[test]
fn rbac_review_carries_the_requester() {
    let cr = denied_cr()
        .set("/spec/groups", json!(["g1", "system:authenticated"]))
        .set("/spec/uid", json!("u-1"))
        .set("/spec/extra", json!({"scopes": ["a", "b"]}));
    let h = FakeHost::allow_all();
    let p = compile(&[any_policy("p1")]);
    let _ = p.evaluate(&cr.v, &h);
    let checks = h.checks.borrow();
    assert_eq!(checks.len(), 1);
    let c = &checks[0];
    assert_eq!(
        (
            c.user.as_str(),
            c.uid.as_str(),
            c.name.as_str(),
            c.namespace.as_str()
        ),
        ("example", "u-1", "p1", "test-namespace")
    );
    assert_eq!(
        (c.verb.as_str(), c.api_group.as_str(), c.resource.as_str()),
        (
            "use",
            "policy.cert-manager.io",
            "certificaterequestpolicies"
        )
    );
    assert_eq!(
        c.groups,
        vec!["g1".to_owned(), "system:authenticated".to_owned()]
    );
    assert_eq!(
        c.extra.get("scopes"),
        Some(&vec!["a".to_owned(), "b".to_owned()])
    );
}

#[test]
fn rbac_errors_and_opt_out() {
    let h = FakeHost {
        fail_sar: Some("no authorizations in context".into()),
        ..Default::default()
    };
    assert_eq!(
        selected(&[any_policy("a")], &denied_cr(), &h),
        Err("failed to perform predicate on policies: failed to create subjectaccessreview: no authorizations in context".into())
    );
    // requireUsePermission: false skips the check
    let p = compile_with(
        &[any_policy("a")],
        Settings {
            unmatched: Unmatched::Deny,
            require_use_permission: false,
        },
    );
    let h = FakeHost {
        fail_sar: Some("must not be asked".into()),
        ..Default::default()
    };
    assert!(matches!(
        p.evaluate(&denied_cr().v, &h),
        Decision::Denied { .. }
    ));
    assert!(h.checks.borrow().is_empty());
}

// ---- manager/review_test.go Test_Review ----

#[test]
fn review_no_policies_bound() {
    // upstream: Test_Review "if predicate returns no policies, return ResultUnprocessed"
    let p = compile(&[any_policy("test-policy-a")]);
    assert_eq!(
        p.evaluate(&denied_cr().v, &FakeHost::default()),
        Decision::Denied {
            message: "No CertificateRequestPolicies bound or applicable".into()
        }
    );
    let p = compile_with(
        &[any_policy("test-policy-a")],
        Settings {
            unmatched: Unmatched::Allow,
            require_use_permission: true,
        },
    );
    assert_eq!(
        p.evaluate(&denied_cr().v, &FakeHost::default()),
        Decision::Unmatched {
            message: "No CertificateRequestPolicies bound or applicable".into()
        }
    );
}

#[test]
fn review_single_policy_denies() {
    // upstream: Test_Review "if single policy returns but evaluator denies, return ResultDenied"
    let p = compile(&[any_policy("test-policy-a")]);
    assert_eq!(
        p.evaluate(&denied_cr().v, &FakeHost::allow_all()),
        Decision::Denied { message: r#"No policy approved this request: [test-policy-a: spec.allowed.commonName: Invalid value: "x": no allowed value]"#.into() }
    );
}

#[test]
fn review_single_policy_approves() {
    // upstream: Test_Review "if single policy returns and evaluator returns not-denied, return ResultApproved"
    let p = compile(&[any_policy("test-policy-a")]);
    assert_eq!(
        p.evaluate(&Cr::of(&CsrSpec::default()).v, &FakeHost::allow_all()),
        Decision::Approved {
            policy: "test-policy-a".into()
        }
    );
}

#[test]
fn review_second_policy_approves() {
    // upstream: Test_Review "if two policies returned and evaluator returns one not-denied, return ResultApproved"
    let b = policy(
        "test-policy-b",
        json!({"selector": {"issuerRef": {}}, "allowed": {"commonName": {"value": "x"}}}),
    );
    let p = compile(&[b, any_policy("test-policy-a")]);
    assert_eq!(
        p.evaluate(&denied_cr().v, &FakeHost::allow_all()),
        Decision::Approved {
            policy: "test-policy-b".into()
        }
    );
}

#[test]
fn review_first_approver_by_name_wins() {
    // evaluation order is by name whatever the bundle order
    let open = |n: &str| {
        policy(
            n,
            json!({"selector": {"issuerRef": {}}, "allowed": {"commonName": {"value": "*"}}}),
        )
    };
    let p = compile(&[open("zeta"), open("alpha"), open("mid")]);
    assert_eq!(p.names(), vec!["alpha", "mid", "zeta"]);
    assert_eq!(
        p.evaluate(&denied_cr().v, &FakeHost::allow_all()),
        Decision::Approved {
            policy: "alpha".into()
        }
    );
}

#[test]
fn review_both_deny() {
    // upstream: Test_Review "if two policies returned and both return denied, return ResultDenied"
    let p = compile(&[any_policy("test-policy-b"), any_policy("test-policy-a")]);
    let d = r#"spec.allowed.commonName: Invalid value: "x": no allowed value"#;
    assert_eq!(
        p.evaluate(&denied_cr().v, &FakeHost::allow_all()),
        Decision::Denied {
            message: format!(
                "No policy approved this request: [test-policy-a: {d}] [test-policy-b: {d}]"
            )
        }
    );
}

#[test]
fn review_status_conditions_ignored() {
    // Readiness (docs/architecture.md): every compiled policy counts as Ready, status is ignored
    let mut doc = any_policy("test-policy-a");
    doc["status"] = json!({"conditions": [{"type": "Ready", "status": "False"}]});
    let p = compile(&[doc]);
    assert_eq!(
        p.evaluate(&Cr::of(&CsrSpec::default()).v, &FakeHost::allow_all()),
        Decision::Approved {
            policy: "test-policy-a".into()
        }
    );
}

#[test]
fn csr_not_decoded_when_nothing_selects() {
    // upstream evaluates (and decodes) only for selected policies
    let p = compile(&[issuer_policy("a", json!({"name": "other"}))]);
    assert_eq!(
        p.evaluate(&Cr::new("!!!").v, &FakeHost::allow_all()),
        Decision::Denied {
            message: "No CertificateRequestPolicies bound or applicable".into()
        }
    );
}
