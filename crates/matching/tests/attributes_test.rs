//! Attributes read from an AdmissionReview request, and requestResource/requestKind honoured.
#![allow(
    clippy::panic,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]

use palisade_cel_kubernetes::cluster::NoCluster;
use palisade_matching::{Attributes, Gvk, Gvr, MatchResources};
use serde_json::json;

#[test]
fn from_admission_request_reads_every_field() {
    let req = json!({
        "uid": "1", "operation": "UPDATE",
        "kind": {"group": "apps", "version": "v1", "kind": "Scale"},
        "resource": {"group": "apps", "version": "v1", "resource": "deployments"},
        "subResource": "scale",
        "requestKind": {"group": "extensions", "version": "v1beta1", "kind": "Scale"},
        "requestResource": {"group": "extensions", "version": "v1beta1", "resource": "deployments"},
        "requestSubResource": "scale",
        "name": "web", "namespace": "team-a",
        "object": {"metadata": {"labels": {"a": "b"}}}, "oldObject": null
    });
    let a = Attributes::from_admission_request(&req);
    assert_eq!(a.operation, "UPDATE");
    assert_eq!(a.resource, Gvr::new("apps", "v1", "deployments"));
    assert_eq!(a.subresource, "scale");
    assert_eq!(a.kind, Gvk::new("apps", "v1", "Scale"));
    assert_eq!(
        a.effective_resource(),
        Gvr::new("extensions", "v1beta1", "deployments")
    );
    assert_eq!(a.effective_subresource(), "scale");
    assert_eq!(
        a.effective_kind(),
        Gvk::new("extensions", "v1beta1", "Scale")
    );
    assert_eq!((a.name, a.namespace), ("web", "team-a"));
    assert!(a.object().is_some());
    assert!(a.old_object().is_none());
    // a bare request: everything empty, nothing panics
    let empty = json!({});
    let e = Attributes::from_admission_request(&empty);
    assert_eq!(e.operation, "");
    assert!(e.request_resource.is_none() && e.object().is_none());
}

// Contract (docs/architecture.md, "Matching and certificates"): rules match the request's original resource
#[test]
fn rules_match_the_original_request() {
    let exact = MatchResources::parse(&json!({"matchPolicy": "Exact", "resourceRules": [{"operations": ["*"], "apiGroups": ["apps"], "apiVersions": ["v1"], "resources": ["deployments"]}]}), "m").unwrap();
    let converted = json!({"operation": "CREATE",
        "kind": {"group": "apps", "version": "v1", "kind": "Deployment"},
        "resource": {"group": "apps", "version": "v1", "resource": "deployments"},
        "requestKind": {"group": "extensions", "version": "v1beta1", "kind": "Deployment"},
        "requestResource": {"group": "extensions", "version": "v1beta1", "resource": "deployments"},
        "name": "web", "namespace": "ns"});
    let a = Attributes::from_admission_request(&converted);
    // the original request was extensions/v1beta1: Exact apps/v1 does not match it
    assert!(exact.matches(&a, &NoCluster).unwrap().is_none());
    // Equivalent does, as apps/v1
    let equivalent = MatchResources::parse(&json!({"resourceRules": [{"operations": ["*"], "apiGroups": ["apps"], "apiVersions": ["v1"], "resources": ["deployments"]}]}), "m").unwrap();
    let m = equivalent.matches(&a, &NoCluster).unwrap().unwrap();
    assert_eq!(m.resource, Gvr::new("apps", "v1", "deployments"));
    assert_eq!(m.kind, Gvk::new("apps", "v1", "Deployment"));
    assert!(m.equivalent);
    // generateName create: empty name never matches a resourceNames list
    let named = MatchResources::parse(&json!({"resourceRules": [{"operations": ["CREATE"], "apiGroups": ["*"], "apiVersions": ["*"], "resources": ["*"], "resourceNames": ["web"]}]}), "m").unwrap();
    let generated = json!({"operation": "CREATE", "resource": {"group": "", "version": "v1", "resource": "pods"}, "kind": {"group": "", "version": "v1", "kind": "Pod"}, "name": "", "namespace": "ns"});
    assert!(
        named
            .matches(&Attributes::from_admission_request(&generated), &NoCluster)
            .unwrap()
            .is_none()
    );
}
