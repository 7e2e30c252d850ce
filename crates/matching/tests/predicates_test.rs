//! upstream: k8s.io/apiserver/pkg/admission/plugin/webhook/predicates/namespace/matcher_test.go
//! (TestGetNamespaceLabels, TestNotExemptClusterScopedResource) and
//! predicates/object/matcher_test.go (TestObjectSelector), through MatchResources with a
//! wildcard rule so that only the selectors decide.
#![allow(
    clippy::panic,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]

mod common;

use common::*;
use palisade_matching::{Attributes, MatchError, MatchResources};
use serde_json::{Value, json};

fn with_selectors(ns: Value, obj: Value) -> MatchResources {
    must(MatchResources::parse(
        &json!({"namespaceSelector": ns, "objectSelector": obj,
                "resourceRules": [{"operations": ["*"], "apiGroups": ["*"], "apiVersions": ["*"], "resources": ["*/*"], "scope": "*"}]}),
        "matchResources",
    ))
}

fn namespace_object(name: &str, runlevel: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": {"runlevel": runlevel}}})
}

/// Which runlevel label the matcher read: "1" from the lookup, "2" from the object.
fn runlevel_seen(a: &Attributes<'_>, lookup: &Namespaces) -> &'static str {
    let one = with_selectors(json!({"matchLabels": {"runlevel": "1"}}), json!({}));
    let two = with_selectors(json!({"matchLabels": {"runlevel": "2"}}), json!({}));
    match (
        one.matches(a, lookup).unwrap().is_some(),
        two.matches(a, lookup).unwrap().is_some(),
    ) {
        (true, false) => "1",
        (false, true) => "2",
        other => panic!("ambiguous labels {other:?}"),
    }
}

// upstream: namespace/matcher_test.go TestGetNamespaceLabels
#[test]
fn test_get_namespace_labels() {
    let lookup = Namespaces::new(&[("1", &[("runlevel", "1")])]);
    let ns2 = namespace_object("2", "2");
    let ns_gvr = gvr("", "v1", "namespaces");
    let pods = gvr("", "v1", "pods");
    let none = gvk("", "", "");
    let cases: Vec<(&str, Attributes<'_>, &str)> = vec![
        (
            "request is for creating namespace, the labels should be from the object itself",
            record(Some(&ns2), None, none, "", "2", ns_gvr, "", "CREATE"),
            "2",
        ),
        (
            "request is for updating namespace, the labels should be from the new object",
            record(Some(&ns2), None, none, "2", "2", ns_gvr, "", "UPDATE"),
            "2",
        ),
        (
            "request is for deleting namespace, the labels should be from the cache",
            record(Some(&ns2), None, none, "1", "1", ns_gvr, "", "DELETE"),
            "1",
        ),
        (
            "request is for namespace/finalizer",
            record(
                None,
                None,
                none,
                "1",
                "mock-name",
                ns_gvr,
                "finalizers",
                "CREATE",
            ),
            "1",
        ),
        (
            "request is for pod",
            record(None, None, none, "1", "mock-name", pods, "", "CREATE"),
            "1",
        ),
    ];
    for (name, a, want) in &cases {
        assert_eq!(runlevel_seen(a, &lookup), *want, "{name}");
    }
    assert_eq!(cases.len(), 5);
}

// upstream: namespace/matcher_test.go TestNotExemptClusterScopedResource
#[test]
fn test_not_exempt_cluster_scoped_resource() {
    let mr = with_selectors(json!({"matchLabels": {"a": "b"}}), json!({}));
    let a = record(
        None,
        None,
        gvk("", "", ""),
        "",
        "mock-name",
        gvr("", "v1", "nodes"),
        "",
        "CREATE",
    );
    // cluster-scoped, not a namespace: the namespace selector passes and no lookup happens
    assert!(mr.matches(&a, &PanicLookup).unwrap().is_some());
    // the empty selector too
    let empty = with_selectors(json!({}), json!({}));
    assert!(empty.matches(&a, &PanicLookup).unwrap().is_some());
}

// upstream: namespace/matcher.go MatchNamespaceSelector error paths (not found → 404 wording,
// lookup failure → internal error); never a silent match or skip.
#[test]
fn namespace_lookup_errors() {
    let mr = with_selectors(json!({"matchLabels": {"env": "prod"}}), json!({}));
    let a = record(
        None,
        None,
        gvk("", "v1", "Pod"),
        "team-a",
        "p",
        gvr("", "v1", "pods"),
        "",
        "CREATE",
    );
    let unknown = Namespaces::new(&[]);
    let e = mr.matches(&a, &unknown).unwrap_err();
    assert_eq!(
        e,
        MatchError::NamespaceNotFound {
            namespace: "team-a".into()
        }
    );
    assert_eq!(e.to_string(), "namespaces \"team-a\" not found");
    let e = mr.matches(&a, &FailingLookup).unwrap_err();
    assert_eq!(
        e.to_string(),
        "Internal error occurred: the host has no namespace cache"
    );
    // the empty selector never asks
    let empty = with_selectors(json!({}), json!({}));
    assert!(empty.matches(&a, &PanicLookup).unwrap().is_some());
    // a request the rules do not match never reports the lookup failure (nor asks)
    let other = must(MatchResources::parse(
        &json!({"namespaceSelector": {"matchLabels": {"env": "prod"}},
        "resourceRules": [{"operations": ["*"], "apiGroups": ["apps"], "apiVersions": ["*"], "resources": ["deployments"]}]}),
        "",
    ));
    assert!(other.matches(&a, &PanicLookup).unwrap().is_none());
    // a Namespace create without an object cannot be read
    let ns_create = record(
        None,
        None,
        gvk("", "v1", "Namespace"),
        "x",
        "x",
        gvr("", "v1", "namespaces"),
        "",
        "CREATE",
    );
    assert_eq!(
        mr.matches(&ns_create, &PanicLookup).unwrap_err(),
        MatchError::NamespaceObject
    );
    // and a known namespace decides
    let prod = Namespaces::new(&[("team-a", &[("env", "prod")])]);
    assert!(mr.matches(&a, &prod).unwrap().is_some());
    let dev = Namespaces::new(&[("team-a", &[("env", "dev")])]);
    assert!(mr.matches(&a, &dev).unwrap().is_none());
}

// upstream: object/matcher_test.go TestObjectSelector
#[test]
fn test_object_selector() {
    let node1 =
        json!({"apiVersion": "v1", "kind": "Node", "metadata": {"labels": {"runlevel": "1"}}});
    let node2 =
        json!({"apiVersion": "v1", "kind": "Node", "metadata": {"labels": {"runlevel": "2"}}});
    let proxy_options = json!({"apiVersion": "v1", "kind": "NodeProxyOptions", "path": "/"});
    let excluder =
        json!({"matchExpressions": [{"key": "runlevel", "operator": "NotIn", "values": ["1"]}]});
    let r = gvr("", "", "");
    let k = gvk("", "", "");
    let cases: Vec<(&str, Value, Attributes<'_>, bool)> = vec![
        (
            "empty object selector matches everything",
            json!({}),
            record(None, None, k, "", "name", r, "", "CREATE"),
            true,
        ),
        (
            "matches new object",
            excluder.clone(),
            record(Some(&node2), None, k, "", "name", r, "", "CREATE"),
            true,
        ),
        (
            "matches old object",
            excluder.clone(),
            record(None, Some(&node2), k, "", "name", r, "", "DELETE"),
            true,
        ),
        (
            "does not match new object",
            excluder.clone(),
            record(Some(&node1), None, k, "", "name", r, "", "CREATE"),
            false,
        ),
        (
            "does not match old object",
            excluder.clone(),
            record(None, Some(&node1), k, "", "name", r, "", "CREATE"),
            false,
        ),
        (
            "does not match object that does not implement Object interface",
            excluder.clone(),
            record(Some(&proxy_options), None, k, "", "name", r, "", "CREATE"),
            false,
        ),
        (
            "empty selector matches everything, including object that does not implement Object interface",
            json!({}),
            record(Some(&proxy_options), None, k, "", "name", r, "", "CREATE"),
            true,
        ),
    ];
    for (name, sel, a, expect) in &cases {
        let mr = with_selectors(json!({}), sel.clone());
        assert_eq!(
            mr.matches(a, &PanicLookup).unwrap().is_some(),
            *expect,
            "{name}"
        );
    }
    assert_eq!(cases.len(), 7);
}

// object selector: an object without labels is matched against no labels; object OR oldObject
#[test]
fn object_selector_without_labels_and_either_object() {
    let bare = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}});
    let labelled =
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"labels": {"app": "web"}}});
    let k = gvk("", "v1", "Pod");
    let r = gvr("", "v1", "pods");
    let absent = with_selectors(
        json!({}),
        json!({"matchExpressions": [{"key": "app", "operator": "DoesNotExist"}]}),
    );
    assert!(
        absent
            .matches(
                &record(Some(&bare), None, k, "", "p", r, "", "CREATE"),
                &PanicLookup
            )
            .unwrap()
            .is_some()
    );
    let web = with_selectors(json!({}), json!({"matchLabels": {"app": "web"}}));
    assert!(
        web.matches(
            &record(Some(&bare), None, k, "", "p", r, "", "CREATE"),
            &PanicLookup
        )
        .unwrap()
        .is_none()
    );
    assert!(
        web.matches(
            &record(Some(&bare), Some(&labelled), k, "", "p", r, "", "UPDATE"),
            &PanicLookup
        )
        .unwrap()
        .is_some()
    );
    // a null object never matches a non-empty selector
    assert!(
        absent
            .matches(
                &record(Some(&Value::Null), None, k, "", "p", r, "", "CREATE"),
                &PanicLookup
            )
            .unwrap()
            .is_none()
    );
    assert!(
        absent
            .matches(
                &record(None, None, k, "", "p", r, "", "DELETE"),
                &PanicLookup
            )
            .unwrap()
            .is_none()
    );
}
