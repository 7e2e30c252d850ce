//! What every admission plugin (ValidatingAdmissionPolicy in `vap`, webhooks in `webhook`) reads of one request: its
//! matching view ([`attributes`]), and the per-request [`RequestScope`] — the `request` variable as kube-apiserver's
//! `CreateAdmissionRequest` builds it, and the namespace asked of the [`Cluster`] at most once (for namespaceSelectors
//! and `namespaceObject`). The scope is itself the [`Cluster`] that matching and CEL's `authorizer` ask.

use std::cell::OnceCell;
use std::collections::BTreeMap;

use palisade_cel_kubernetes::cluster::{
    AccessDecision, AccessQuery, Cluster, HostError, metadata_labels,
};
use palisade_cel_kubernetes::goquote::quote;
use palisade_matching::{Attributes, Gvk, Gvr};
use serde_json::{Value, json};

use crate::review::AdmissionRequest;

/// The matching view of a request (borrowed).
pub fn attributes(request: &AdmissionRequest) -> Attributes<'_> {
    fn gvr(r: &crate::review::GroupVersionResource) -> Gvr<'_> {
        Gvr {
            group: &r.group,
            version: &r.version,
            resource: &r.resource,
        }
    }
    fn gvk(k: &crate::review::GroupVersionKind) -> Gvk<'_> {
        Gvk {
            group: &k.group,
            version: &k.version,
            kind: &k.kind,
        }
    }
    Attributes {
        operation: &request.operation,
        resource: gvr(&request.resource),
        subresource: &request.sub_resource,
        kind: gvk(&request.kind),
        request_resource: request.request_resource.as_ref().map(gvr),
        request_sub_resource: request.request_sub_resource.as_deref(),
        request_kind: request.request_kind.as_ref().map(gvk),
        name: &request.name,
        namespace: &request.namespace,
        objects: Some(request),
    }
}

/// Per-request state shared by every policy and webhook: the `request` variable and the request's namespace (fetched
/// at most once). It is the [`Cluster`] matching and CEL ask: the request's own namespace comes from its cache, every
/// other question goes to the host's cluster.
pub struct RequestScope<'r> {
    pub request: &'r AdmissionRequest,
    pub cluster: &'r dyn Cluster,
    /// The `request` variable, built on first use (a request no policy matches, or whose expressions never read it,
    /// never builds it).
    request_value: OnceCell<Value>,
    namespace: OnceCell<Result<Option<Value>, HostError>>,
}

impl<'r> RequestScope<'r> {
    pub fn new(request: &'r AdmissionRequest, cluster: &'r dyn Cluster) -> Self {
        Self {
            request,
            cluster,
            request_value: OnceCell::new(),
            namespace: OnceCell::new(),
        }
    }

    /// The `request` variable, built on first use and kept for the rest of the request.
    pub fn request_value(&self) -> &Value {
        self.request_value
            .get_or_init(|| request_variable(self.request))
    }

    /// The request's namespace object for `namespaceObject`, looked up once; `Ok(None)` for cluster-scoped requests
    /// and for requests on a Namespace itself (whose `namespace` is its own name: the plugin unsets it).
    pub fn namespace_object(&self) -> Result<Option<&Value>, String> {
        let name = &self.request.namespace;
        let is_namespace = self.request.kind.group.is_empty()
            && self.request.kind.version == "v1"
            && self.request.kind.kind == "Namespace";
        if name.is_empty() || is_namespace {
            return Ok(None);
        }
        match self.stored_namespace().map_err(|e| e.to_string())? {
            Some(ns) => Ok(Some(ns)),
            None => Err(format!("namespace {} not found", quote(name))),
        }
    }

    /// The stored namespace named by the request's `namespace`, asked of the cluster at most once per request.
    fn stored_namespace(&self) -> Result<Option<&Value>, HostError> {
        let cached = self.namespace.get_or_init(|| {
            self.cluster
                .namespace(&self.request.namespace)
                .map(|ns| ns.map(namespace_object))
        });
        match cached {
            Ok(ns) => Ok(ns.as_ref()),
            Err(e) => Err(e.clone()),
        }
    }
}

/// The request's own namespace comes from the same cache as `namespaceObject` (as the `namespaceObject` view:
/// metadata without managedFields, spec, status); on a DELETE or a subresource of a Namespace that is the stored
/// Namespace itself (`namespace.Matcher.GetNamespaceLabels`).
impl Cluster for RequestScope<'_> {
    fn namespace(&self, name: &str) -> Result<Option<Value>, HostError> {
        if name == self.request.namespace {
            return self.stored_namespace().map(|ns| ns.cloned());
        }
        self.cluster.namespace(name)
    }

    fn namespace_labels(&self, name: &str) -> Result<Option<BTreeMap<String, String>>, HostError> {
        if name == self.request.namespace {
            return self.stored_namespace().map(|ns| ns.map(metadata_labels));
        }
        self.cluster.namespace_labels(name)
    }

    /// For the requesting user, or the service account named by `authorizer.serviceAccount(ns, name)`: the CEL
    /// library fills the query's subject from the `request` variable's `userInfo`.
    fn authorize(&self, query: &AccessQuery) -> Result<AccessDecision, HostError> {
        self.cluster.authorize(query)
    }
}

/// The `request` variable: the AdmissionRequest as kube-apiserver's `CreateAdmissionRequest` exposes it.
fn request_variable(r: &AdmissionRequest) -> Value {
    let mut v = json!({
        "uid": r.uid,
        "kind": r.kind,
        "resource": r.resource,
        "subResource": r.sub_resource,
        "requestKind": r.request_kind.as_ref().unwrap_or(&r.kind),
        "requestResource": r.request_resource.as_ref().unwrap_or(&r.resource),
        "requestSubResource": r.request_sub_resource.as_deref().unwrap_or(&r.sub_resource),
        "name": r.name,
        "namespace": r.namespace,
        "operation": r.operation,
        "userInfo": r.user_info,
        "dryRun": r.is_dry_run(),
    });
    if let (Some(options), Some(map)) = (
        r.options.as_ref().filter(|o| !o.root().is_null()),
        v.as_object_mut(),
    ) {
        map.insert("options".to_owned(), options.to_value());
    }
    v
}

/// The `namespaceObject` variable: metadata (without managedFields), spec and status, as `CreateNamespaceObject`.
fn namespace_object(ns: Value) -> Value {
    let mut out = serde_json::Map::new();
    if let Some(meta) = ns.get("metadata").and_then(Value::as_object) {
        let mut m = meta.clone();
        m.remove("managedFields");
        out.insert("metadata".to_owned(), Value::Object(m));
    }
    for key in ["spec", "status"] {
        if let Some(v) = ns.get(key) {
            out.insert(key.to_owned(), v.clone());
        }
    }
    Value::Object(out)
}
