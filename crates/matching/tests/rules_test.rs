//! upstream: k8s.io/apiserver/pkg/admission/plugin/webhook/predicates/rules/rules_test.go
//! (TestGroup, TestVersion, TestOperation, TestResource, TestScope, TestIsExemptAdmissionConfigurationResource),
//! each predicate tested alone as upstream does, on rules built without validation.
#![allow(
    clippy::panic,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]

mod common;

use common::*;
use palisade_matching::{Attributes, RuleWithOperations, Scope, is_webhook_configuration_exempt};

/// upstream `a(group, version, resource, subresource, name, operation, …)`: namespace "ns".
fn a(
    g: &'static str,
    v: &'static str,
    r: &'static str,
    sub: &'static str,
    op: &'static str,
) -> Attributes<'static> {
    record(
        None,
        None,
        gvk(g, v, "k"),
        "ns",
        "name",
        gvr(g, v, r),
        sub,
        op,
    )
}

fn namespaced(
    g: &'static str,
    v: &'static str,
    r: &'static str,
    sub: &'static str,
) -> Attributes<'static> {
    record(
        None,
        None,
        gvk(g, v, "k"),
        "ns",
        "name",
        gvr(g, v, r),
        sub,
        "CREATE",
    )
}

fn cluster(
    g: &'static str,
    v: &'static str,
    r: &'static str,
    sub: &'static str,
) -> Attributes<'static> {
    record(
        None,
        None,
        gvk(g, v, "k"),
        "",
        "name",
        gvr(g, v, r),
        sub,
        "CREATE",
    )
}

struct Case {
    name: &'static str,
    rule: RuleWithOperations,
    matches: Vec<Attributes<'static>>,
    no_match: Vec<Attributes<'static>>,
}

fn run(cases: Vec<Case>, pred: impl Fn(&RuleWithOperations, &Attributes<'_>) -> bool) -> usize {
    let mut checked = 0;
    for c in &cases {
        for (i, m) in c.matches.iter().enumerate() {
            assert!(pred(&c.rule, m), "{}: expected match {i}: {m:?}", c.name);
            checked += 1;
        }
        for (i, m) in c.no_match.iter().enumerate() {
            assert!(
                !pred(&c.rule, m),
                "{}: expected no match {i}: {m:?}",
                c.name
            );
            checked += 1;
        }
    }
    checked
}

fn groups(g: &[&str]) -> RuleWithOperations {
    RuleWithOperations::from_parts(&[], g, &[], &[], None)
}

fn versions(v: &[&str]) -> RuleWithOperations {
    RuleWithOperations::from_parts(&[], &[], v, &[], None)
}

fn ops(o: &[&str]) -> RuleWithOperations {
    RuleWithOperations::from_parts(o, &[], &[], &[], None)
}

fn resources(r: &[&str]) -> RuleWithOperations {
    RuleWithOperations::from_parts(&[], &[], &[], r, None)
}

fn scoped(scope: Scope) -> RuleWithOperations {
    RuleWithOperations::from_parts(&[], &[], &[], &["*"], Some(scope))
}

// upstream: rules_test.go TestGroup
#[test]
fn test_group() {
    let n = run(
        vec![
            Case {
                name: "wildcard",
                rule: groups(&["*"]),
                matches: vec![a("g", "v", "r", "", "CREATE")],
                no_match: vec![],
            },
            Case {
                name: "exact",
                rule: groups(&["g1", "g2"]),
                matches: vec![
                    a("g1", "v", "r", "", "CREATE"),
                    a("g2", "v2", "r3", "", "CREATE"),
                ],
                no_match: vec![
                    a("g3", "v", "r", "", "CREATE"),
                    a("g4", "v", "r", "", "CREATE"),
                ],
            },
        ],
        |r, a| r.matches_group(a.resource.group),
    );
    assert_eq!(n, 5);
}

// upstream: rules_test.go TestVersion
#[test]
fn test_version() {
    let n = run(
        vec![
            Case {
                name: "wildcard",
                rule: versions(&["*"]),
                matches: vec![a("g", "v", "r", "", "CREATE")],
                no_match: vec![],
            },
            Case {
                name: "exact",
                rule: versions(&["v1", "v2"]),
                matches: vec![
                    a("g1", "v1", "r", "", "CREATE"),
                    a("g2", "v2", "r", "", "CREATE"),
                ],
                no_match: vec![
                    a("g1", "v3", "r", "", "CREATE"),
                    a("g2", "v4", "r", "", "CREATE"),
                ],
            },
        ],
        |r, a| r.matches_version(a.resource.version),
    );
    assert_eq!(n, 5);
}

// upstream: rules_test.go TestOperation
#[test]
fn test_operation() {
    let all = |op| a("g", "v", "r", "", op);
    let n = run(
        vec![
            Case {
                name: "wildcard",
                rule: ops(&["*"]),
                matches: vec![all("CREATE"), all("UPDATE"), all("DELETE"), all("CONNECT")],
                no_match: vec![],
            },
            Case {
                name: "create",
                rule: ops(&["CREATE"]),
                matches: vec![all("CREATE")],
                no_match: vec![all("UPDATE"), all("DELETE"), all("CONNECT")],
            },
            Case {
                name: "update",
                rule: ops(&["UPDATE"]),
                matches: vec![all("UPDATE")],
                no_match: vec![all("CREATE"), all("DELETE"), all("CONNECT")],
            },
            Case {
                name: "delete",
                rule: ops(&["DELETE"]),
                matches: vec![all("DELETE")],
                no_match: vec![all("CREATE"), all("UPDATE"), all("CONNECT")],
            },
            Case {
                name: "connect",
                rule: ops(&["CONNECT"]),
                matches: vec![all("CONNECT")],
                no_match: vec![all("CREATE"), all("UPDATE"), all("DELETE")],
            },
            Case {
                name: "multiple",
                rule: ops(&["UPDATE", "DELETE"]),
                matches: vec![all("UPDATE"), all("DELETE")],
                no_match: vec![all("CREATE"), all("CONNECT")],
            },
        ],
        |r, a| r.matches_operation(a.operation),
    );
    assert_eq!(n, 24);
}

// upstream: rules_test.go TestResource
#[test]
fn test_resource() {
    let n = run(
        vec![
            Case {
                name: "no subresources",
                rule: resources(&["*"]),
                matches: vec![
                    a("g", "v", "r", "", "CREATE"),
                    a("2", "v", "r2", "", "CREATE"),
                ],
                no_match: vec![
                    a("g", "v", "r", "exec", "CREATE"),
                    a("2", "v", "r2", "proxy", "CREATE"),
                ],
            },
            Case {
                name: "r & subresources",
                rule: resources(&["r/*"]),
                matches: vec![
                    a("g", "v", "r", "", "CREATE"),
                    a("g", "v", "r", "exec", "CREATE"),
                ],
                no_match: vec![
                    a("2", "v", "r2", "", "CREATE"),
                    a("2", "v", "r2", "proxy", "CREATE"),
                ],
            },
            Case {
                name: "r & subresources or r2",
                rule: resources(&["r/*", "r2"]),
                matches: vec![
                    a("g", "v", "r", "", "CREATE"),
                    a("g", "v", "r", "exec", "CREATE"),
                    a("2", "v", "r2", "", "CREATE"),
                ],
                no_match: vec![a("2", "v", "r2", "proxy", "CREATE")],
            },
            Case {
                name: "proxy or exec",
                rule: resources(&["*/proxy", "*/exec"]),
                matches: vec![
                    a("g", "v", "r", "exec", "CREATE"),
                    a("2", "v", "r2", "proxy", "CREATE"),
                    a("2", "v", "r3", "proxy", "CREATE"),
                ],
                no_match: vec![
                    a("g", "v", "r", "", "CREATE"),
                    a("2", "v", "r2", "", "CREATE"),
                    a("2", "v", "r4", "scale", "CREATE"),
                ],
            },
        ],
        |r, a| r.matches_resource(a.resource.resource, a.subresource),
    );
    assert_eq!(n, 18);
}

// upstream: rules_test.go TestScope
#[test]
fn test_scope() {
    let n = run(
        vec![
            Case {
                name: "cluster scope",
                rule: scoped(Scope::Cluster),
                matches: vec![
                    cluster("g", "v", "r", ""),
                    cluster("g", "v", "r", "exec"),
                    cluster("", "v1", "namespaces", ""),
                    cluster("", "v1", "namespaces", "finalize"),
                    namespaced("", "v1", "namespaces", ""),
                    namespaced("", "v1", "namespaces", "finalize"),
                ],
                no_match: vec![
                    namespaced("g", "v", "r", ""),
                    namespaced("g", "v", "r", "exec"),
                ],
            },
            Case {
                name: "namespace scope",
                rule: scoped(Scope::Namespaced),
                matches: vec![
                    namespaced("g", "v", "r", ""),
                    namespaced("g", "v", "r", "exec"),
                ],
                no_match: vec![
                    cluster("", "v1", "namespaces", ""),
                    cluster("", "v1", "namespaces", "finalize"),
                    namespaced("", "v1", "namespaces", ""),
                    namespaced("", "v1", "namespaces", "finalize"),
                    cluster("g", "v", "r", ""),
                    cluster("g", "v", "r", "exec"),
                ],
            },
            Case {
                name: "all scopes",
                rule: scoped(Scope::All),
                matches: vec![
                    namespaced("g", "v", "r", ""),
                    namespaced("g", "v", "r", "exec"),
                    cluster("g", "v", "r", ""),
                    cluster("g", "v", "r", "exec"),
                    cluster("", "v1", "namespaces", ""),
                    cluster("", "v1", "namespaces", "finalize"),
                    namespaced("", "v1", "namespaces", ""),
                    namespaced("", "v1", "namespaces", "finalize"),
                ],
                no_match: vec![],
            },
        ],
        |r, a| r.matches_scope(a.resource, a.namespace),
    );
    assert_eq!(n, 24);
}

// The full rule: every predicate at once, and empty lists match nothing.
#[test]
fn full_rule_and_empty_lists() {
    let rule = RuleWithOperations::from_parts(
        &["CREATE"],
        &["apps"],
        &["v1"],
        &["deployments", "pods/*"],
        None,
    );
    assert!(rule.matches("CREATE", gvr("apps", "v1", "deployments"), "", "ns"));
    assert!(!rule.matches("CREATE", gvr("apps", "v1", "deployments"), "scale", "ns"));
    assert!(
        rule.matches("CREATE", gvr("apps", "v1", "pods"), "", "ns"),
        "pods/* also matches pods"
    );
    assert!(rule.matches("CREATE", gvr("apps", "v1", "pods"), "status", "ns"));
    assert!(!rule.matches("UPDATE", gvr("apps", "v1", "deployments"), "", "ns"));
    let empty = RuleWithOperations::from_parts(&[], &[], &[], &[], None);
    assert!(!empty.matches("CREATE", gvr("", "v1", "pods"), "", "ns"));
    let double = RuleWithOperations::from_parts(&["*"], &["*"], &["*"], &["*/*"], None);
    assert!(double.matches("CONNECT", gvr("", "v1", "pods"), "exec", ""));
    let scale = RuleWithOperations::from_parts(&["*"], &["*"], &["*"], &["*/scale"], None);
    assert!(scale.matches("UPDATE", gvr("apps", "v1", "deployments"), "scale", "ns"));
    assert!(!scale.matches("UPDATE", gvr("apps", "v1", "deployments"), "", "ns"));
}

// upstream: rules.go IsExemptAdmissionConfigurationResource (the kinds it lists)
#[test]
fn exempt_admission_configuration_resources() {
    let kinds = [
        ("ValidatingWebhookConfiguration", true),
        ("MutatingWebhookConfiguration", true),
        ("ValidatingAdmissionPolicy", true),
        ("ValidatingAdmissionPolicyBinding", true),
        ("MutatingAdmissionPolicy", true),
        ("MutatingAdmissionPolicyBinding", true),
        ("Pod", false),
    ];
    for (kind, exempt) in kinds {
        let a = record(
            None,
            None,
            gvk("admissionregistration.k8s.io", "v1", kind),
            "",
            "x",
            gvr("admissionregistration.k8s.io", "v1", "x"),
            "",
            "CREATE",
        );
        assert_eq!(is_webhook_configuration_exempt(&a), exempt, "{kind}");
    }
    let other_group = record(
        None,
        None,
        gvk("example.com", "v1", "ValidatingWebhookConfiguration"),
        "",
        "x",
        gvr("example.com", "v1", "x"),
        "",
        "CREATE",
    );
    assert!(!is_webhook_configuration_exempt(&other_group));
}
