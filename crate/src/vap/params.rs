//! Selecting a binding's params from the bundle's `params:`, as `generic.CollectParams` does.
//!
//! A paramKind counts as namespaced when the bundle's params of that kind carry `metadata.namespace`. With no params of
//! the kind in the bundle, a built-in kind has its Kubernetes scope ([`builtin_namespaced`]) and any other kind is
//! namespaced when the paramRef names a namespace.

use std::collections::BTreeMap;

use serde_json::Value;

use super::binding::{Binding, NotFound, ParamSelection};
use super::policy::Policy;

fn meta<'a>(param: &'a Value, field: &str) -> &'a str {
    param
        .get("metadata")
        .and_then(|m| m.get(field))
        .and_then(Value::as_str)
        .unwrap_or("")
}

fn labels(param: &Value) -> BTreeMap<String, String> {
    palisade_cel_kubernetes::cluster::metadata_labels(param)
}

/// The params one binding evaluates with: `[None]` when the policy takes none; an error message (upstream's words)
/// when the binding cannot be applied.
pub fn collect<'a>(
    policy: &Policy,
    binding: &Binding,
    request_namespace: &str,
    params: &'a [Value],
) -> Result<Vec<Option<&'a Value>>, String> {
    let (Some(kind), Some(param_ref)) = (&policy.param_kind, &binding.param_ref) else {
        return Ok(vec![None]);
    };
    let of_kind: Vec<&Value> = params
        .iter()
        .filter(|p| {
            p.get("apiVersion").and_then(Value::as_str) == Some(&kind.api_version)
                && p.get("kind").and_then(Value::as_str) == Some(&kind.kind)
        })
        .collect();
    let namespaced = if of_kind.is_empty() {
        builtin_namespaced(&kind.api_version, &kind.kind).unwrap_or(param_ref.namespace.is_some())
    } else {
        of_kind.iter().any(|p| !meta(p, "namespace").is_empty())
    };
    let namespace = if namespaced {
        match (&param_ref.namespace, request_namespace) {
            (Some(ns), _) => Some(ns.as_str()),
            (None, ns) if !ns.is_empty() => Some(ns),
            (None, _) => {
                return Err(
                    "cannot use namespaced paramRef in policy binding that matches cluster-scoped resources".to_owned()
                );
            }
        }
    } else {
        if param_ref.namespace.is_some() {
            return Err(
                "paramRef.namespace must not be provided for a cluster-scoped `paramKind`"
                    .to_owned(),
            );
        }
        None
    };
    let in_scope = of_kind
        .into_iter()
        .filter(|p| namespace.is_none_or(|ns| meta(p, "namespace") == ns));
    let selected: Vec<Option<&Value>> = match &param_ref.selection {
        ParamSelection::Name(name) => in_scope
            .filter(|p| meta(p, "name") == name)
            .take(1)
            .map(Some)
            .collect(),
        ParamSelection::Selector(selector) => in_scope
            .filter(|p| selector.matches(&labels(p)))
            .map(Some)
            .collect(),
    };
    if selected.is_empty() && param_ref.not_found == NotFound::Deny {
        return Err(
            "no params found for policy binding with `Deny` parameterNotFoundAction".to_owned(),
        );
    }
    Ok(selected)
}

/// The scope of the built-in kinds a paramKind names in practice (kube-apiserver knows it from discovery): `Some(true)`
/// for namespaced kinds, `Some(false)` for cluster-scoped ones, `None` for a kind not listed here.
fn builtin_namespaced(api_version: &str, kind: &str) -> Option<bool> {
    const NAMESPACED: &[(&str, &str)] = &[
        ("v1", "ConfigMap"),
        ("v1", "Secret"),
        ("v1", "ServiceAccount"),
        ("v1", "Pod"),
        ("v1", "Service"),
        ("v1", "Endpoints"),
        ("v1", "PersistentVolumeClaim"),
        ("v1", "LimitRange"),
        ("v1", "ResourceQuota"),
        ("v1", "PodTemplate"),
        ("v1", "ReplicationController"),
        ("apps/v1", "Deployment"),
        ("apps/v1", "StatefulSet"),
        ("apps/v1", "DaemonSet"),
        ("apps/v1", "ReplicaSet"),
        ("rbac.authorization.k8s.io/v1", "Role"),
        ("rbac.authorization.k8s.io/v1", "RoleBinding"),
    ];
    const CLUSTER: &[(&str, &str)] = &[
        ("v1", "Namespace"),
        ("v1", "Node"),
        ("v1", "PersistentVolume"),
        ("rbac.authorization.k8s.io/v1", "ClusterRole"),
        ("rbac.authorization.k8s.io/v1", "ClusterRoleBinding"),
        ("storage.k8s.io/v1", "StorageClass"),
        ("apiextensions.k8s.io/v1", "CustomResourceDefinition"),
    ];
    if NAMESPACED.contains(&(api_version, kind)) {
        Some(true)
    } else if CLUSTER.contains(&(api_version, kind)) {
        Some(false)
    } else {
        None
    }
}
