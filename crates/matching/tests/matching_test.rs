//! upstream: k8s.io/apiserver/pkg/admission/plugin/policy/matching/matching_test.go TestMatcher,
//! run with upstream's test equivalence mapper (`common::UpstreamTestMapper`).
#![allow(
    clippy::panic,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]

mod common;

use common::*;
use palisade_matching::{
    Gvk, Gvr, LabelSelector, MatchPolicy, MatchResources, NamedRuleWithOperations,
    RuleWithOperations,
};
use serde_json::{Value, json};

fn rule(groups: &[&str], versions: &[&str], resources: &[&str]) -> Value {
    json!({"operations": ["*"], "apiGroups": groups, "apiVersions": versions, "resources": resources, "scope": "*"})
}

fn named(names: &[&str], groups: &[&str], versions: &[&str], resources: &[&str]) -> Value {
    let mut r = rule(groups, versions, resources);
    r["resourceNames"] = json!(names);
    r
}

struct Case {
    name: &'static str,
    criteria: MatchResources,
    kind: Gvk<'static>,
    resource: Gvr<'static>,
    subresource: &'static str,
    expect_matches: bool,
    expect_kind: Option<Gvk<'static>>,
    expect_resource: Option<Gvr<'static>>,
}

fn criteria(policy: Option<&str>, rules: Vec<Value>, exclude: Vec<Value>) -> MatchResources {
    let mut v = json!({"namespaceSelector": {}, "objectSelector": {}, "resourceRules": rules, "excludeResourceRules": exclude});
    if let Some(p) = policy {
        v["matchPolicy"] = json!(p);
    }
    must(MatchResources::parse(&v, "matchResources"))
}

#[test]
fn test_matcher() {
    let deploy = gvr("apps", "v1", "deployments");
    let scale_kind = gvk("autoscaling", "v1", "Scale");
    let deploy_kind = gvk("apps", "v1", "Deployment");
    let ext_v1beta1 = || rule(&["extensions"], &["v1beta1"], &["deployments"]);
    let apps_v1beta1 = || rule(&["apps"], &["v1beta1"], &["deployments"]);
    let ext_scale = || {
        rule(
            &["extensions"],
            &["v1beta1"],
            &["deployments", "deployments/scale"],
        )
    };
    let apps_beta_scale = || {
        rule(
            &["apps"],
            &["v1beta1"],
            &["deployments", "deployments/scale"],
        )
    };
    let apps_v1_scale = || rule(&["apps"], &["v1"], &["deployments", "deployments/scale"]);
    // upstream "specific rules, prefer exact match" uses extensions/v1 (a version that does not exist)
    let cases = vec![
        Case {
            name: "wildcard rule, match as requested",
            criteria: criteria(None, vec![rule(&["*"], &["*"], &["*"])], vec![]),
            kind: deploy_kind,
            resource: deploy,
            subresource: "",
            expect_matches: true,
            expect_kind: Some(deploy_kind),
            expect_resource: None,
        },
        Case {
            name: "specific rules, prefer exact match",
            criteria: criteria(
                None,
                vec![
                    rule(&["extensions"], &["v1"], &["deployments"]),
                    apps_v1beta1(),
                    rule(&["apps"], &["v1"], &["deployments"]),
                ],
                vec![],
            ),
            kind: deploy_kind,
            resource: deploy,
            subresource: "",
            expect_matches: true,
            expect_kind: Some(deploy_kind),
            expect_resource: None,
        },
        Case {
            name: "specific rules, match miss",
            // upstream leaves matchPolicy nil, which its matcher treats as Exact; the API server
            // defaults it to Equivalent, so the ported case sets Exact explicitly
            criteria: criteria(Some("Exact"), vec![ext_v1beta1(), apps_v1beta1()], vec![]),
            kind: deploy_kind,
            resource: deploy,
            subresource: "",
            expect_matches: false,
            expect_kind: None,
            expect_resource: None,
        },
        Case {
            name: "specific rules, exact match miss",
            criteria: criteria(Some("Exact"), vec![ext_v1beta1(), apps_v1beta1()], vec![]),
            kind: deploy_kind,
            resource: deploy,
            subresource: "",
            expect_matches: false,
            expect_kind: None,
            expect_resource: None,
        },
        Case {
            name: "specific rules, equivalent match, prefer extensions",
            criteria: criteria(
                Some("Equivalent"),
                vec![ext_v1beta1(), apps_v1beta1()],
                vec![],
            ),
            kind: deploy_kind,
            resource: deploy,
            subresource: "",
            expect_matches: true,
            expect_kind: Some(gvk("extensions", "v1beta1", "Deployment")),
            expect_resource: Some(gvr("extensions", "v1beta1", "deployments")),
        },
        Case {
            name: "specific rules, equivalent match, prefer apps",
            criteria: criteria(
                Some("Equivalent"),
                vec![apps_v1beta1(), ext_v1beta1()],
                vec![],
            ),
            kind: deploy_kind,
            resource: deploy,
            subresource: "",
            expect_matches: true,
            expect_kind: Some(gvk("apps", "v1beta1", "Deployment")),
            expect_resource: Some(gvr("apps", "v1beta1", "deployments")),
        },
        Case {
            name: "specific rules, subresource prefer exact match",
            criteria: criteria(
                None,
                vec![ext_scale(), apps_beta_scale(), apps_v1_scale()],
                vec![],
            ),
            kind: scale_kind,
            resource: deploy,
            subresource: "scale",
            expect_matches: true,
            expect_kind: Some(scale_kind),
            expect_resource: None,
        },
        Case {
            name: "specific rules, subresource match miss",
            criteria: criteria(Some("Exact"), vec![ext_scale(), apps_beta_scale()], vec![]),
            kind: scale_kind,
            resource: deploy,
            subresource: "scale",
            expect_matches: false,
            expect_kind: None,
            expect_resource: None,
        },
        Case {
            name: "specific rules, subresource exact match miss",
            criteria: criteria(Some("Exact"), vec![ext_scale(), apps_beta_scale()], vec![]),
            kind: scale_kind,
            resource: deploy,
            subresource: "scale",
            expect_matches: false,
            expect_kind: None,
            expect_resource: None,
        },
        Case {
            name: "specific rules, subresource equivalent match, prefer extensions",
            criteria: criteria(
                Some("Equivalent"),
                vec![ext_scale(), apps_beta_scale()],
                vec![],
            ),
            kind: scale_kind,
            resource: deploy,
            subresource: "scale",
            expect_matches: true,
            expect_kind: Some(gvk("extensions", "v1beta1", "Scale")),
            expect_resource: Some(gvr("extensions", "v1beta1", "deployments")),
        },
        Case {
            name: "specific rules, subresource equivalent match, prefer apps",
            criteria: criteria(
                Some("Equivalent"),
                vec![apps_beta_scale(), ext_scale()],
                vec![],
            ),
            kind: scale_kind,
            resource: deploy,
            subresource: "scale",
            expect_matches: true,
            expect_kind: Some(gvk("apps", "v1beta1", "Scale")),
            expect_resource: Some(gvr("apps", "v1beta1", "deployments")),
        },
        Case {
            name: "specific rules, prefer exact match and name match",
            criteria: criteria(
                None,
                vec![named(&["name"], &["apps"], &["v1"], &["deployments"])],
                vec![],
            ),
            kind: scale_kind,
            resource: deploy,
            subresource: "",
            expect_matches: true,
            expect_kind: Some(scale_kind),
            expect_resource: None,
        },
        Case {
            name: "specific rules, prefer exact match and name match miss",
            criteria: criteria(
                None,
                vec![named(&["wrong-name"], &["apps"], &["v1"], &["deployments"])],
                vec![],
            ),
            kind: scale_kind,
            resource: deploy,
            subresource: "",
            expect_matches: false,
            expect_kind: None,
            expect_resource: None,
        },
        Case {
            name: "specific rules, subresource equivalent match, prefer extensions and name match",
            criteria: criteria(
                Some("Equivalent"),
                vec![named(
                    &["name"],
                    &["apps"],
                    &["v1"],
                    &["deployments", "deployments/scale"],
                )],
                vec![],
            ),
            kind: scale_kind,
            resource: gvr("extensions", "v1beta1", "deployments"),
            subresource: "scale",
            expect_matches: true,
            expect_kind: Some(scale_kind),
            expect_resource: Some(deploy),
        },
        Case {
            name: "specific rules, subresource equivalent match, prefer extensions and name match miss",
            criteria: criteria(
                Some("Equivalent"),
                vec![named(
                    &["wrong-name"],
                    &["apps"],
                    &["v1"],
                    &["deployments", "deployments/scale"],
                )],
                vec![],
            ),
            kind: scale_kind,
            resource: gvr("extensions", "v1beta1", "deployments"),
            subresource: "scale",
            expect_matches: false,
            expect_kind: None,
            expect_resource: None,
        },
        Case {
            name: "exclude resource match on miss",
            criteria: criteria(
                None,
                vec![rule(&["*"], &["*"], &["*"])],
                vec![ext_v1beta1()],
            ),
            kind: scale_kind,
            resource: deploy,
            subresource: "",
            // upstream leaves matchPolicy nil (Exact in its matcher); under the API default
            // (Equivalent) the exclusion would also catch apps/v1 through extensions/v1beta1
            expect_matches: false,
            expect_kind: None,
            expect_resource: None,
        },
        Case {
            name: "exclude resource miss on match",
            criteria: criteria(
                None,
                vec![rule(&["*"], &["*"], &["*"])],
                vec![ext_v1beta1()],
            ),
            kind: scale_kind,
            resource: gvr("extensions", "v1beta1", "deployments"),
            subresource: "",
            expect_matches: false,
            expect_kind: None,
            expect_resource: None,
        },
        Case {
            name: "treat empty ResourceRules as match",
            criteria: criteria(None, vec![], vec![ext_v1beta1()]),
            kind: scale_kind,
            resource: deploy,
            subresource: "",
            // as above: with the API's default matchPolicy the exclusion applies through equivalence
            expect_matches: false,
            expect_kind: None,
            expect_resource: None,
        },
        Case {
            name: "treat non-empty ResourceRules as no match",
            criteria: MatchResources::from_parts(
                LabelSelector::everything(),
                LabelSelector::everything(),
                vec![NamedRuleWithOperations::from_parts(
                    RuleWithOperations::from_parts(&[], &[], &[], &[], None),
                    &[],
                )],
                vec![],
                MatchPolicy::Equivalent,
            ),
            kind: scale_kind,
            resource: deploy,
            subresource: "",
            expect_matches: false,
            expect_kind: None,
            expect_resource: None,
        },
    ];
    let mut n = 0;
    for c in &cases {
        let attrs = record(
            None,
            None,
            c.kind,
            "ns",
            "name",
            c.resource,
            c.subresource,
            "CREATE",
        );
        let got = c
            .criteria
            .matches_with(&attrs, &PanicLookup, &UpstreamTestMapper)
            .unwrap_or_else(|e| panic!("{}: unexpected error {e}", c.name));
        assert_eq!(got.is_some(), c.expect_matches, "{}: {got:?}", c.name);
        if let Some(m) = got {
            if let Some(k) = c.expect_kind {
                assert_eq!(m.kind, k, "{}", c.name);
            }
            assert_eq!(
                m.resource,
                c.expect_resource.unwrap_or(c.resource),
                "{}",
                c.name
            );
            assert_eq!(m.subresource, c.subresource, "{}", c.name);
        }
        n += 1;
    }
    assert_eq!(n, 19);
}

// upstream: matching_test.go TestMatcher "exclude resource match on miss" and "treat empty
// ResourceRules as match" exactly as upstream runs them: matchPolicy unset is Exact there.
#[test]
fn test_matcher_exclusions_under_exact() {
    let c = criteria(
        Some("Exact"),
        vec![rule(&["*"], &["*"], &["*"])],
        vec![rule(&["extensions"], &["v1beta1"], &["deployments"])],
    );
    let a = record(
        None,
        None,
        gvk("autoscaling", "v1", "Scale"),
        "ns",
        "name",
        gvr("apps", "v1", "deployments"),
        "",
        "CREATE",
    );
    let m = c
        .matches_with(&a, &PanicLookup, &UpstreamTestMapper)
        .unwrap()
        .unwrap();
    assert_eq!(m.kind, gvk("autoscaling", "v1", "Scale"));
    assert_eq!(m.resource, gvr("apps", "v1", "deployments"));

    let empty = criteria(
        Some("Exact"),
        vec![],
        vec![rule(&["extensions"], &["v1beta1"], &["deployments"])],
    );
    assert!(
        empty
            .matches_with(&a, &PanicLookup, &UpstreamTestMapper)
            .unwrap()
            .is_some()
    );

    // exclusion wins over inclusion
    let ext = record(
        None,
        None,
        gvk("autoscaling", "v1", "Scale"),
        "ns",
        "name",
        gvr("extensions", "v1beta1", "deployments"),
        "",
        "CREATE",
    );
    assert!(
        c.matches_with(&ext, &PanicLookup, &UpstreamTestMapper)
            .unwrap()
            .is_none()
    );
}

// upstream: matching_test.go TestMatcher "specific rules, match miss" / "specific rules,
// subresource match miss" with matchPolicy defaulted as the API server does (Equivalent): the
// same rules then match through the equivalent resources.
#[test]
fn test_matcher_misses_under_default_policy() {
    let c = criteria(
        None,
        vec![
            rule(&["extensions"], &["v1beta1"], &["deployments"]),
            rule(&["apps"], &["v1beta1"], &["deployments"]),
        ],
        vec![],
    );
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
    let m = c
        .matches_with(&a, &PanicLookup, &UpstreamTestMapper)
        .unwrap()
        .unwrap();
    assert_eq!(m.resource, gvr("extensions", "v1beta1", "deployments"));
    assert!(m.equivalent);
}

// upstream: matching_test.go TestMatcher "erroring namespace selector …" / "erroring object
// selector …" (4 cases). kube-apiserver reports the invalid selector when a request reaches it;
// Palisade rejects the bundle when it is loaded, so every such policy fails to parse.
#[test]
fn test_matcher_erroring_selectors_are_rejected_at_load() {
    let bad_ns_key = json!({"namespaceSelector": {"matchExpressions": [{"key": "key ", "operator": "In", "values": ["bad value"]}]}, "objectSelector": {},
        "resourceRules": [rule(&["*"], &["*"], &["deployments"])]});
    let e = errors_of(MatchResources::parse(&bad_ns_key, "matchResources"));
    assert!(e.contains("bad value"), "{e}");
    assert!(
        e.contains(
            "matchResources.namespaceSelector.matchExpressions[0].key: Invalid value: \"key \""
        ),
        "{e}"
    );
    for (sel, path) in [
        ("namespaceSelector", "namespaceSelector"),
        ("objectSelector", "objectSelector"),
    ] {
        let mut v = json!({"namespaceSelector": {}, "objectSelector": {}, "resourceRules": [rule(&["*"], &["*"], &["pods"])]});
        v[sel] = json!({"matchExpressions": [{"key": "key", "operator": "In", "values": ["bad value"]}]});
        let e = errors_of(MatchResources::parse(&v, "matchResources"));
        assert_eq!(
            e,
            format!(
                "matchResources.{path}.matchExpressions[0].values[0]: Invalid value: \"bad value\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
            )
        );
    }
}

// upstream: matching_test.go TestMatcher "invalid kind lookup" (from TestShouldCallHook's
// mapper): an equivalent resource without a kind is an error once a rule matches it.
#[test]
fn test_matcher_unknown_kind() {
    let c = criteria(
        Some("Equivalent"),
        vec![rule(&["example.com"], &["v1"], &["widgets"])],
        vec![],
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
    let e = c
        .matches_with(&a, &PanicLookup, &UpstreamTestMapper)
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "unable to convert to example.com/v1, Resource=widgets: unknown kind"
    );
}
