//! What a request is matched as: borrowed views of an AdmissionRequest.

use std::fmt;

/// A group/version/resource.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Gvr<'a> {
    pub group: &'a str,
    pub version: &'a str,
    pub resource: &'a str,
}

impl<'a> Gvr<'a> {
    pub const fn new(group: &'a str, version: &'a str, resource: &'a str) -> Self {
        Gvr {
            group,
            version,
            resource,
        }
    }
}

/// Prints as `schema.GroupVersionResource.String()` does: `apps/v1, Resource=deployments`.
impl fmt::Display for Gvr<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}/{}, Resource={}",
            self.group, self.version, self.resource
        )
    }
}

/// A group/version/kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Gvk<'a> {
    pub group: &'a str,
    pub version: &'a str,
    pub kind: &'a str,
}

impl<'a> Gvk<'a> {
    pub const fn new(group: &'a str, version: &'a str, kind: &'a str) -> Self {
        Gvk {
            group,
            version,
            kind,
        }
    }
}

/// What a rule is matched against; built by the caller from an AdmissionRequest (borrowed, no copies).
///
/// `request_resource` / `request_sub_resource` / `request_kind` are the AdmissionRequest's
/// `requestResource` / `requestSubResource` / `requestKind`: when present they are what the client
/// sent, and matching runs against them (kube-apiserver matches the original request; `resource` is
/// what a webhook was sent after conversion).
#[derive(Debug, Clone, Copy, Default)]
pub struct Attributes<'a> {
    /// `CREATE`, `UPDATE`, `DELETE` or `CONNECT`.
    pub operation: &'a str,
    pub resource: Gvr<'a>,
    pub subresource: &'a str,
    pub kind: Gvk<'a>,
    pub request_resource: Option<Gvr<'a>>,
    pub request_sub_resource: Option<&'a str>,
    pub request_kind: Option<Gvk<'a>>,
    /// The object's name; empty on a create that relies on `generateName`.
    pub name: &'a str,
    /// Empty for cluster-scoped resources; the namespace's own name for a Namespace.
    pub namespace: &'a str,
    /// `object` and `oldObject`, asked only when a selector reads their labels; `None` for a request without them.
    pub objects: Option<&'a dyn Objects>,
}

/// Where matching reads `object` and `oldObject` from. It is asked only when an objectSelector, or a
/// namespaceSelector on a Namespace's own write, reads their labels, so a request no such selector looks at never
/// makes them (an engine may build them from its own reading of the request on first use).
pub trait Objects {
    /// `object` and `oldObject`, each `None` when absent or `null`.
    fn objects(&self) -> (Option<&serde_json::Value>, Option<&serde_json::Value>);
}

/// Shown as what it holds (not a supertrait: an engine's request type need not be `Debug` in a small module).
impl fmt::Debug for dyn Objects + '_ {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (object, old_object) = self.objects();
        f.debug_struct("Objects")
            .field("object", &object)
            .field("old_object", &old_object)
            .finish()
    }
}

/// `object` and `oldObject` given as JSON values.
#[derive(Debug, Clone, Copy, Default)]
pub struct Given<'a> {
    pub object: Option<&'a serde_json::Value>,
    pub old_object: Option<&'a serde_json::Value>,
}

impl Objects for Given<'_> {
    fn objects(&self) -> (Option<&serde_json::Value>, Option<&serde_json::Value>) {
        (self.object, self.old_object)
    }
}

/// An AdmissionReview's `request` as JSON: its `object` and `oldObject` members (`null` is none).
impl Objects for serde_json::Value {
    fn objects(&self) -> (Option<&serde_json::Value>, Option<&serde_json::Value>) {
        let object = |key: &str| self.get(key).filter(|o| !o.is_null());
        (object("object"), object("oldObject"))
    }
}

fn str_at<'a>(v: &'a serde_json::Value, key: &str) -> &'a str {
    v.get(key).and_then(serde_json::Value::as_str).unwrap_or("")
}

fn gvr_at<'a>(v: &'a serde_json::Value, key: &str) -> Option<Gvr<'a>> {
    let r = v.get(key)?;
    r.is_object().then(|| Gvr {
        group: str_at(r, "group"),
        version: str_at(r, "version"),
        resource: str_at(r, "resource"),
    })
}

fn gvk_at<'a>(v: &'a serde_json::Value, key: &str) -> Option<Gvk<'a>> {
    let k = v.get(key)?;
    k.is_object().then(|| Gvk {
        group: str_at(k, "group"),
        version: str_at(k, "version"),
        kind: str_at(k, "kind"),
    })
}

impl<'a> Attributes<'a> {
    /// Borrows the matching attributes of an AdmissionReview's `request` (admission.k8s.io v1 or
    /// v1beta1): `operation`, `resource`, `subResource`, `kind`, `requestResource`,
    /// `requestSubResource`, `requestKind`, `name`, `namespace`, `object`, `oldObject`.
    /// Absent fields read as empty; a `null` object is no object.
    pub fn from_admission_request(request: &'a serde_json::Value) -> Self {
        Attributes {
            operation: str_at(request, "operation"),
            resource: gvr_at(request, "resource").unwrap_or_default(),
            subresource: str_at(request, "subResource"),
            kind: gvk_at(request, "kind").unwrap_or_default(),
            request_resource: gvr_at(request, "requestResource"),
            request_sub_resource: request
                .get("requestSubResource")
                .and_then(serde_json::Value::as_str),
            request_kind: gvk_at(request, "requestKind"),
            name: str_at(request, "name"),
            namespace: str_at(request, "namespace"),
            objects: Some(request),
        }
    }

    /// `object`, when the request has one.
    pub fn object(&self) -> Option<&'a serde_json::Value> {
        self.objects.and_then(|o| o.objects().0)
    }

    /// `oldObject`, when the request has one.
    pub fn old_object(&self) -> Option<&'a serde_json::Value> {
        self.objects.and_then(|o| o.objects().1)
    }

    /// The resource the request was made for (`requestResource`, else `resource`).
    pub fn effective_resource(&self) -> Gvr<'a> {
        self.request_resource.unwrap_or(self.resource)
    }

    /// The subresource the request was made for (`requestSubResource`, else `subResource`).
    pub fn effective_subresource(&self) -> &'a str {
        match self.request_resource {
            // requestSubResource only means something next to requestResource
            Some(_) => self.request_sub_resource.unwrap_or(self.subresource),
            None => self.subresource,
        }
    }

    /// The kind the request was made with (`requestKind`, else `kind`).
    pub fn effective_kind(&self) -> Gvk<'a> {
        self.request_kind.unwrap_or(self.kind)
    }
}
