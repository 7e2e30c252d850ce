//! The built-in equivalence table (kube-apiserver's EquivalentResourceMapper as data) and
//! matchPolicy Equivalent through it.
#![allow(
    clippy::panic,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]

mod common;

use common::*;
use palisade_matching::{
    BuiltinEquivalences, EquivalentResourceMapper, FAMILIES, Gvk, Gvr, MatchResources, family_of,
};
use serde_json::json;
use std::collections::BTreeSet;

fn equivalents(r: Gvr<'_>, sub: &str) -> Vec<(Gvr<'static>, Option<Gvk<'static>>)> {
    let mut out = Vec::new();
    BuiltinEquivalences.visit_equivalents(r, sub, &mut |g, k| {
        out.push((g, k));
        false
    });
    out
}

#[test]
fn every_family_shares_one_resource_name_and_members_are_unique() {
    let mut seen = BTreeSet::new();
    for f in FAMILIES {
        assert!(f.len() >= 2, "a family of one is not an equivalence: {f:?}");
        let name = f[0].resource;
        for m in f.iter() {
            assert_eq!(
                m.resource, name,
                "the index relies on one resource name per family"
            );
            assert!(
                seen.insert((m.group, m.version, m.resource)),
                "listed twice: {m:?}"
            );
            assert_eq!(m.kind.group, m.group);
            assert_eq!(m.kind.version, m.version);
        }
    }
}

#[test]
fn deployments_family() {
    let eq = equivalents(gvr("apps", "v1", "deployments"), "");
    let gvrs: Vec<_> = eq.iter().map(|(g, _)| *g).collect();
    assert_eq!(
        gvrs,
        vec![
            gvr("apps", "v1", "deployments"),
            gvr("apps", "v1beta2", "deployments"),
            gvr("apps", "v1beta1", "deployments"),
            gvr("extensions", "v1beta1", "deployments"),
        ]
    );
    let scale = equivalents(gvr("extensions", "v1beta1", "deployments"), "scale");
    assert_eq!(
        scale[0],
        (
            gvr("apps", "v1", "deployments"),
            Some(gvk("autoscaling", "v1", "Scale"))
        )
    );
    assert_eq!(
        scale[3],
        (
            gvr("extensions", "v1beta1", "deployments"),
            Some(gvk("extensions", "v1beta1", "Scale"))
        )
    );
    // rollback only where it was served
    let rollback = equivalents(gvr("apps", "v1", "deployments"), "rollback");
    assert_eq!(rollback.len(), 2);
    // unknown resources and subresources have no equivalents
    assert!(equivalents(gvr("example.com", "v1", "widgets"), "").is_empty());
    assert!(equivalents(gvr("apps", "v1", "deployments"), "exec").is_empty());
    assert!(
        family_of(gvr("apps", "v1", "daemonsets"))
            .is_some_and(|f| f.iter().any(|m| m.group == "extensions"))
    );
    assert!(
        family_of(gvr("", "v1", "events"))
            .is_some_and(|f| f.iter().any(|m| m.group == "events.k8s.io"))
    );
    assert!(family_of(gvr("networking.k8s.io", "v1", "ingresses")).is_some_and(|f| f.len() == 3));
    assert!(
        family_of(gvr("policy", "v1beta1", "podsecuritypolicies"))
            .is_some_and(|f| f.iter().any(|m| m.group == "extensions"))
    );
}

#[test]
fn equivalent_policy_with_builtin_table() {
    let mr = must(MatchResources::parse(
        &json!({"resourceRules": [{"operations": ["CREATE", "UPDATE"], "apiGroups": ["extensions"], "apiVersions": ["v1beta1"],
        "resources": ["networkpolicies", "ingresses", "daemonsets"]}]}),
        "m",
    ));
    for (g, v, r, k) in [
        (
            "networking.k8s.io",
            "v1",
            "networkpolicies",
            "NetworkPolicy",
        ),
        ("networking.k8s.io", "v1", "ingresses", "Ingress"),
        ("apps", "v1", "daemonsets", "DaemonSet"),
    ] {
        let a = record(
            None,
            None,
            gvk(g, v, k),
            "ns",
            "x",
            gvr(g, v, r),
            "",
            "CREATE",
        );
        let m = mr.matches(&a, &PanicLookup).unwrap().unwrap();
        assert_eq!(m.resource, gvr("extensions", "v1beta1", r));
        assert_eq!(m.kind, gvk("extensions", "v1beta1", k));
        assert!(m.equivalent);
    }
    // Exact does not
    let exact = must(MatchResources::parse(
        &json!({"matchPolicy": "Exact", "resourceRules": [{"operations": ["*"], "apiGroups": ["extensions"], "apiVersions": ["v1beta1"], "resources": ["daemonsets"]}]}),
        "m",
    ));
    let a = record(
        None,
        None,
        gvk("apps", "v1", "DaemonSet"),
        "ns",
        "x",
        gvr("apps", "v1", "daemonsets"),
        "",
        "CREATE",
    );
    assert!(exact.matches(&a, &PanicLookup).unwrap().is_none());
    // statefulsets/scale from apps/v1beta1 reach an apps/v1 rule as autoscaling/v1 Scale
    let sts = must(MatchResources::parse(
        &json!({"resourceRules": [{"operations": ["UPDATE"], "apiGroups": ["apps"], "apiVersions": ["v1"], "resources": ["statefulsets/scale"]}]}),
        "m",
    ));
    let a = record(
        None,
        None,
        gvk("apps", "v1beta1", "Scale"),
        "ns",
        "db",
        gvr("apps", "v1beta1", "statefulsets"),
        "scale",
        "UPDATE",
    );
    let m = sts.matches(&a, &PanicLookup).unwrap().unwrap();
    assert_eq!(
        (m.resource, m.kind),
        (
            gvr("apps", "v1", "statefulsets"),
            gvk("autoscaling", "v1", "Scale")
        )
    );
    // the operation still has to match
    let a = record(
        None,
        None,
        gvk("apps", "v1beta1", "Scale"),
        "ns",
        "db",
        gvr("apps", "v1beta1", "statefulsets"),
        "scale",
        "CREATE",
    );
    assert!(sts.matches(&a, &PanicLookup).unwrap().is_none());
}
