//! Helpers shared by the ported upstream tables.
#![allow(
    dead_code,
    clippy::panic,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]

use palisade_cel_kubernetes::cluster::{AccessDecision, AccessQuery, Cluster, HostError, Question};
use palisade_matching::{Attributes, EquivalentResourceMapper, Gvk, Gvr};
use serde_json::Value;
use std::collections::BTreeMap;

pub fn gvr(group: &'static str, version: &'static str, resource: &'static str) -> Gvr<'static> {
    Gvr::new(group, version, resource)
}

pub fn gvk(group: &'static str, version: &'static str, kind: &'static str) -> Gvk<'static> {
    Gvk::new(group, version, kind)
}

/// `admission.NewAttributesRecord(object, oldObject, kind, namespace, name, resource, subresource, operation, …)`.
#[allow(clippy::too_many_arguments)]
pub fn record<'a>(
    object: Option<&'a Value>,
    old_object: Option<&'a Value>,
    kind: Gvk<'a>,
    namespace: &'a str,
    name: &'a str,
    resource: Gvr<'a>,
    subresource: &'a str,
    operation: &'a str,
) -> Attributes<'a> {
    Attributes {
        operation,
        resource,
        subresource,
        kind,
        request_resource: None,
        request_sub_resource: None,
        request_kind: None,
        name,
        namespace,
        // a table's record lives as long as its test
        objects: Some(Box::leak(Box::new(palisade_matching::Given {
            object,
            old_object,
        }))),
    }
}

/// Namespace labels from a fixed table.
pub struct Namespaces(pub BTreeMap<String, BTreeMap<String, String>>);

impl Namespaces {
    pub fn new(entries: &[(&str, &[(&str, &str)])]) -> Self {
        Namespaces(
            entries
                .iter()
                .map(|(n, labels)| {
                    (
                        (*n).to_owned(),
                        labels
                            .iter()
                            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                            .collect(),
                    )
                })
                .collect(),
        )
    }
}

impl Cluster for Namespaces {
    fn namespace(&self, name: &str) -> Result<Option<Value>, HostError> {
        Ok(self.0.get(name).map(|labels| {
            serde_json::json!({"apiVersion": "v1", "kind": "Namespace",
                               "metadata": {"name": name, "labels": labels}})
        }))
    }

    fn authorize(&self, query: &AccessQuery) -> Result<AccessDecision, HostError> {
        panic!("matching asks no access question: {query:?}")
    }
}

/// A lookup that must not be called.
pub struct PanicLookup;

impl Cluster for PanicLookup {
    fn namespace(&self, name: &str) -> Result<Option<Value>, HostError> {
        panic!("namespace lookup of {name} was not expected")
    }

    fn authorize(&self, query: &AccessQuery) -> Result<AccessDecision, HostError> {
        panic!("matching asks no access question: {query:?}")
    }
}

/// A lookup whose host fails.
pub struct FailingLookup;

impl Cluster for FailingLookup {
    fn namespace(&self, name: &str) -> Result<Option<Value>, HostError> {
        Err(HostError::Failed {
            question: Question::Namespace(name.to_owned()),
            message: "the host has no namespace cache".to_owned(),
        })
    }

    fn authorize(&self, query: &AccessQuery) -> Result<AccessDecision, HostError> {
        panic!("matching asks no access question: {query:?}")
    }
}

/// The mapper that upstream's TestMatcher / TestShouldCallHook build with
/// `runtime.NewEquivalentResourceRegistryWithIdentity` (deployments co-located in every group,
/// widgets registered with an empty kind), in registration order.
pub struct UpstreamTestMapper;

type Reg = (Gvr<'static>, &'static str, Option<Gvk<'static>>);

static TEST_REGISTRATIONS: &[Reg] = &[
    (
        Gvr::new("extensions", "v1beta1", "deployments"),
        "",
        Some(Gvk::new("extensions", "v1beta1", "Deployment")),
    ),
    (
        Gvr::new("apps", "v1", "deployments"),
        "",
        Some(Gvk::new("apps", "v1", "Deployment")),
    ),
    (
        Gvr::new("apps", "v1beta1", "deployments"),
        "",
        Some(Gvk::new("apps", "v1beta1", "Deployment")),
    ),
    (
        Gvr::new("apps", "v1alpha1", "deployments"),
        "",
        Some(Gvk::new("apps", "v1alpha1", "Deployment")),
    ),
    (
        Gvr::new("extensions", "v1beta1", "deployments"),
        "scale",
        Some(Gvk::new("extensions", "v1beta1", "Scale")),
    ),
    (
        Gvr::new("apps", "v1", "deployments"),
        "scale",
        Some(Gvk::new("autoscaling", "v1", "Scale")),
    ),
    (
        Gvr::new("apps", "v1beta1", "deployments"),
        "scale",
        Some(Gvk::new("apps", "v1beta1", "Scale")),
    ),
    (
        Gvr::new("apps", "v1alpha1", "deployments"),
        "scale",
        Some(Gvk::new("apps", "v1alpha1", "Scale")),
    ),
    (Gvr::new("example.com", "v1", "widgets"), "", None),
    (Gvr::new("example.com", "v2", "widgets"), "", None),
];

fn identity(r: &Gvr<'_>) -> String {
    if r.resource == "deployments" {
        "/deployments".to_owned()
    } else {
        format!("{}.{}", r.resource, r.group)
    }
}

impl EquivalentResourceMapper for UpstreamTestMapper {
    fn visit_equivalents(
        &self,
        resource: Gvr<'_>,
        subresource: &str,
        visit: &mut dyn FnMut(Gvr<'static>, Option<Gvk<'static>>) -> bool,
    ) {
        let key = identity(&resource);
        for (r, sub, kind) in TEST_REGISTRATIONS {
            if *sub == subresource && identity(r) == key && visit(*r, *kind) {
                return;
            }
        }
    }
}

/// Parses JSON or fails the test with every error.
pub fn must<T>(r: Result<T, Vec<palisade_matching::FieldError>>) -> T {
    match r {
        Ok(t) => t,
        Err(errs) => panic!(
            "unexpected errors: {}",
            errs.iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// The errors of a parse that must fail, joined as `field.ErrorList.ToAggregate()` prints them.
pub fn errors_of<T: std::fmt::Debug>(r: Result<T, Vec<palisade_matching::FieldError>>) -> String {
    match r {
        Ok(t) => panic!("expected errors, got {t:?}"),
        Err(errs) => errs
            .iter()
            .map(|e| e.to_string())
            .collect::<Vec<_>>()
            .join(", "),
    }
}
