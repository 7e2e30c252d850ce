//! Property: `Index::candidates` followed by `matches` agrees with a naive scan of every entry,
//! over random rules (wildcards, subresources, equivalents, exclusions, names, selectors) and
//! random requests.
#![allow(
    clippy::panic,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]

mod common;

use common::*;
use palisade_matching::{Attributes, Given, Index, MatchResources};
use proptest::prelude::*;
use serde_json::{Value, json};

const GROUPS: &[&str] = &["", "apps", "extensions", "batch", "networking.k8s.io", "*"];
const VERSIONS: &[&str] = &["v1", "v1beta1", "v1beta2", "*"];
const RESOURCES: &[&str] = &[
    "pods",
    "deployments",
    "ingresses",
    "cronjobs",
    "namespaces",
    "pods/status",
    "pods/*",
    "deployments/scale",
    "*",
    "*/*",
    "*/scale",
    "*/status",
];
const OPS: &[&str] = &["CREATE", "UPDATE", "DELETE", "CONNECT", "*"];

fn pick(pool: &'static [&'static str]) -> impl Strategy<Value = &'static str> {
    proptest::sample::select(pool)
}

fn list(pool: &'static [&'static str], max: usize) -> impl Strategy<Value = Vec<&'static str>> {
    proptest::collection::vec(pick(pool), 1..=max).prop_map(|mut v| {
        v.sort();
        v.dedup();
        if v.contains(&"*") { vec!["*"] } else { v }
    })
}

fn rule() -> impl Strategy<Value = Value> {
    (
        list(OPS, 2),
        list(GROUPS, 2),
        list(VERSIONS, 2),
        proptest::collection::vec(pick(RESOURCES), 1..=2),
        pick(&["*", "Cluster", "Namespaced", ""]),
        proptest::option::of(pick(&["a", "b"])),
    )
        .prop_map(|(ops, groups, versions, resources, scope, name)| {
            let mut r = json!({"operations": ops, "apiGroups": groups, "apiVersions": versions, "resources": resources});
            if !scope.is_empty() {
                r["scope"] = json!(scope);
            }
            if let Some(n) = name {
                r["resourceNames"] = json!([n]);
            }
            r
        })
}

fn match_resources() -> impl Strategy<Value = Value> {
    (
        proptest::collection::vec(rule(), 0..=3),
        proptest::collection::vec(rule(), 0..=1),
        pick(&["Exact", "Equivalent"]),
        prop_oneof![
            Just(json!({})),
            Just(json!({"matchLabels": {"env": "prod"}}))
        ],
        prop_oneof![
            Just(json!({})),
            Just(json!({"matchExpressions": [{"key": "app", "operator": "Exists"}]}))
        ],
    )
        .prop_map(|(rules, exclude, policy, ns, obj)| {
            json!({"resourceRules": rules, "excludeResourceRules": exclude, "matchPolicy": policy,
                   "namespaceSelector": ns, "objectSelector": obj})
        })
}

#[derive(Debug, Clone)]
struct Req {
    op: &'static str,
    group: &'static str,
    version: &'static str,
    resource: &'static str,
    sub: &'static str,
    namespace: &'static str,
    name: &'static str,
    labelled: bool,
}

fn request() -> impl Strategy<Value = Req> {
    (
        pick(&["CREATE", "UPDATE", "DELETE", "CONNECT"]),
        pick(&["", "apps", "extensions", "batch", "networking.k8s.io"]),
        pick(&["v1", "v1beta1", "v1beta2"]),
        pick(&[
            "pods",
            "deployments",
            "ingresses",
            "cronjobs",
            "namespaces",
            "secrets",
        ]),
        pick(&["", "", "status", "scale"]),
        pick(&["", "ns", "missing"]),
        pick(&["", "a", "b"]),
        any::<bool>(),
    )
        .prop_map(
            |(op, group, version, resource, sub, namespace, name, labelled)| Req {
                op,
                group,
                version,
                resource,
                sub,
                namespace,
                name,
                labelled,
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]
    #[test]
    fn index_agrees_with_naive_scan(docs in proptest::collection::vec(match_resources(), 0..40), reqs in proptest::collection::vec(request(), 1..8)) {
        let entries: Vec<(MatchResources, usize)> = docs
            .iter()
            .enumerate()
            .filter_map(|(i, d)| MatchResources::parse(d, "m").ok().map(|m| (m, i)))
            .collect();
        let index = Index::new(entries.clone());
        let lookup = Namespaces::new(&[("ns", &[("env", "prod")])]);
        for r in &reqs {
            let obj = if r.labelled { json!({"metadata": {"labels": {"app": "x"}}}) } else { json!({"metadata": {}}) };
            let objects = Given { object: Some(&obj), old_object: None };
            let a = Attributes {
                operation: r.op,
                resource: gvr(r.group, r.version, r.resource),
                subresource: r.sub,
                kind: gvk(r.group, r.version, "K"),
                name: r.name,
                namespace: r.namespace,
                objects: Some(&objects),
                ..Attributes::default()
            };
            let naive: Vec<_> = entries
                .iter()
                .filter_map(|(m, i)| match m.matches(&a, &lookup) {
                    Ok(None) => None,
                    other => Some((*i, other.map(|o| o.map(|x| (x.resource, x.kind))))),
                })
                .collect();
            let indexed: Vec<_> = index
                .candidate_entries(&a)
                .filter_map(|(m, i)| match m.matches(&a, &lookup) {
                    Ok(None) => None,
                    other => Some((*i, other.map(|o| o.map(|x| (x.resource, x.kind))))),
                })
                .collect();
            prop_assert_eq!(&naive, &indexed, "request {:?}", r);
            // candidates come in insertion order
            let ids: Vec<usize> = index.candidates(&a).copied().collect();
            prop_assert!(ids.windows(2).all(|w| w[0] < w[1]));
        }
    }
}

// the index actually prunes: a request for pods does not see deployment-only entries
#[test]
fn index_prunes() {
    let mut entries = Vec::new();
    for i in 0..100 {
        let resource = if i % 10 == 0 { "pods" } else { "deployments" };
        let mr = must(MatchResources::parse(
            &json!({"resourceRules": [{"operations": ["CREATE"], "apiGroups": ["*"], "apiVersions": ["*"], "resources": [resource]}]}),
            "m",
        ));
        entries.push((mr, i));
    }
    entries.push((must(MatchResources::parse(&json!({"resourceRules": [{"operations": ["DELETE"], "apiGroups": ["*"], "apiVersions": ["*"], "resources": ["*"]}]}), "m")), 100));
    let index = Index::new(entries);
    let a = record(
        None,
        None,
        gvk("", "v1", "Pod"),
        "ns",
        "p",
        gvr("", "v1", "pods"),
        "",
        "CREATE",
    );
    let ids: Vec<usize> = index.candidates(&a).copied().collect();
    assert_eq!(ids, (0..100).step_by(10).collect::<Vec<_>>());
    let d = record(
        None,
        None,
        gvk("", "v1", "Pod"),
        "ns",
        "p",
        gvr("", "v1", "pods"),
        "",
        "DELETE",
    );
    assert_eq!(index.candidates(&d).copied().collect::<Vec<_>>(), vec![100]);
}
