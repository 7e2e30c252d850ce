//! AdmissionReview (`admission.k8s.io/v1` and `v1beta1`): the input and the output of every entrypoint.
//!
//! Field names are Kubernetes' JSON names. A review is read from the tape of the whole input ([`tape`]: one pass over
//! the bytes, `object` and `oldObject` nodes of it); what that reading leaves alone (a refusal, a shape serde reads
//! otherwise) is read by serde_json, `object` and `oldObject` then built into their tape in serde_json's own pass
//! ([`Doc`]'s `Deserialize`). Absent and `null` both mean "none".

use std::collections::BTreeMap;

use palisade_json::{Doc, Text};
use serde::{Deserialize, Serialize};
use serde_json::Value;

mod cursor;
pub mod deep;
mod identity;
pub(crate) mod tape;
pub use identity::{Identity, identity};

/// The two AdmissionReview versions Palisade reads and writes.
pub const ADMISSION_V1: &str = "admission.k8s.io/v1";
/// The older AdmissionReview version, same shape as v1.
pub const ADMISSION_V1BETA1: &str = "admission.k8s.io/v1beta1";

/// group/version/kind of an object, as in `request.kind`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct GroupVersionKind {
    pub group: Text,
    pub version: Text,
    pub kind: Text,
}

/// group/version/resource, as in `request.resource`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct GroupVersionResource {
    pub group: Text,
    pub version: Text,
    pub resource: Text,
}

/// authentication.k8s.io/v1 UserInfo of the requesting user.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct UserInfo {
    pub username: Text,
    pub uid: Text,
    pub groups: Vec<String>,
    pub extra: BTreeMap<String, Vec<String>>,
}

/// The `request` of an AdmissionReview. kube-apiserver always sends `uid`, `kind`, `resource`, `operation` and
/// `userInfo`: a request without one of them is not a review Palisade decides (it is answered 400, naming the field).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AdmissionRequest {
    pub uid: Text,
    pub kind: GroupVersionKind,
    pub resource: GroupVersionResource,
    #[serde(default, skip_serializing_if = "str::is_empty")]
    #[serde(alias = "sub_resource")]
    pub sub_resource: Text,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(alias = "request_kind")]
    pub request_kind: Option<GroupVersionKind>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(alias = "request_resource")]
    pub request_resource: Option<GroupVersionResource>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(alias = "request_sub_resource")]
    pub request_sub_resource: Option<Text>,
    #[serde(default, skip_serializing_if = "str::is_empty")]
    pub name: Text,
    #[serde(default, skip_serializing_if = "str::is_empty")]
    pub namespace: Text,
    pub operation: Text,
    #[serde(alias = "user_info")]
    pub user_info: UserInfo,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<Doc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(alias = "old_object")]
    pub old_object: Option<Doc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(alias = "dry_run")]
    pub dry_run: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub options: Option<Doc>,
    /// What objectSelectors read of `object` and `oldObject` (`kind`, `metadata`, `metadata.labels`) as JSON values,
    /// made on first use.
    #[serde(skip)]
    selector_view: std::cell::OnceCell<[Option<Value>; 2]>,
}

/// What a label selector reads of an object (`palisade_matching`'s `object_labels`): `kind` if a string, `metadata`
/// if an object with its `labels` (only the string ones: other values are not labels), or whether it is `null`. Small
/// and shallow whatever the object holds; anything else that is not an object stands as `false`.
fn selector_view(doc: &Doc) -> Value {
    use palisade_json::{Item, Ref};
    let shape = |r: Ref<'_>, inside: &dyn Fn(Ref<'_>) -> Value| match r.item() {
        Item::Null => Value::Null,
        Item::Object(o) => inside(o),
        _ => Value::Bool(false),
    };
    shape(doc.root(), &|root| {
        let mut out = serde_json::Map::new();
        if let Some(kind) = root.member("kind") {
            let kind = kind
                .as_str()
                .map_or(Value::Null, |k| Value::String(k.to_owned()));
            out.insert("kind".to_owned(), kind);
        }
        if let Some(meta) = root.member("metadata") {
            let meta = shape(meta, &|meta| {
                let mut kept = serde_json::Map::new();
                if let Some(labels) = meta.member("labels") {
                    let labels = shape(labels, &|labels| {
                        // inserted one by one: `collect` into a map would link a sort for this element type
                        let mut strings = serde_json::Map::new();
                        for (k, v) in labels.sorted_members() {
                            if let Some(v) = v.as_str() {
                                strings.insert(k.to_owned(), Value::String(v.to_owned()));
                            }
                        }
                        Value::Object(strings)
                    });
                    kept.insert("labels".to_owned(), labels);
                }
                Value::Object(kept)
            });
            out.insert("metadata".to_owned(), meta);
        }
        Value::Object(out)
    })
}

/// What label selectors read of `object` and `oldObject` (`palisade_matching::Objects`): `kind`, and `metadata` with
/// only its `labels` when it is an object. Made on the first selector that reads them, once per request, small.
impl palisade_matching::Objects for AdmissionRequest {
    fn objects(&self) -> (Option<&Value>, Option<&Value>) {
        let [object, old_object] = self.selector_view.get_or_init(|| {
            [
                self.object().map(selector_view),
                self.old_object().map(selector_view),
            ]
        });
        (object.as_ref(), old_object.as_ref())
    }
}

impl AdmissionRequest {
    /// Read absent what hosts write as empty: policy-sdk-rust's snake_case payloads send `requestKind`,
    /// `requestResource` as all-empty objects and `options` as `{}` when the request has none.
    pub fn normalized(mut self) -> Self {
        self.normalize();
        self
    }

    /// [`AdmissionRequest::normalized`] in place.
    pub fn normalize(&mut self) {
        let empty_kind =
            |k: &GroupVersionKind| k.group.is_empty() && k.version.is_empty() && k.kind.is_empty();
        let empty_resource = |r: &GroupVersionResource| {
            r.group.is_empty() && r.version.is_empty() && r.resource.is_empty()
        };
        self.request_kind = self.request_kind.take().filter(|k| !empty_kind(k));
        self.request_resource = self.request_resource.take().filter(|r| !empty_resource(r));
        self.request_sub_resource = self.request_sub_resource.take().filter(|s| !s.is_empty());
        self.options = self
            .options
            .take()
            .filter(|o| !matches!(o.root().item(), palisade_json::Item::Object(m) if m.is_empty()));
    }

    /// The incoming object, `None` when absent or `null`.
    pub fn object(&self) -> Option<&Doc> {
        self.object.as_ref().filter(|d| !d.root().is_null())
    }

    /// The existing object, `None` when absent or `null` (CREATE, CONNECT).
    pub fn old_object(&self) -> Option<&Doc> {
        self.old_object.as_ref().filter(|d| !d.root().is_null())
    }

    /// Whether the request is a dry run.
    pub fn is_dry_run(&self) -> bool {
        self.dry_run.unwrap_or(false)
    }
}

/// A document that carries AdmissionRequests (an AdmissionReview, `{"review":…,"context":…}`, Kubewarden's
/// ValidationRequest): where they sit, so that their `object` and `oldObject` can be read at any depth kube-apiserver
/// sends ([`read_with_deep_objects`]).
pub trait CarriesRequests {
    /// The field paths, from the document root, of the requests.
    const REQUESTS: &'static [&'static [&'static str]];
    /// Whether the document is read from a tape first ([`CarriesRequests::from_tape`]).
    const TAPE: bool = false;
    /// The document read from the tape of the whole input (the request objects nodes of it), exactly as serde reads
    /// it, or `None` (then serde_json reads the input: [`tape`]). Only asked when [`CarriesRequests::TAPE`].
    fn from_tape(_root: palisade_json::Ref<'_>) -> Option<Self>
    where
        Self: Sized,
    {
        None
    }
    /// The request at `REQUESTS[at]`, once read.
    fn request_mut(&mut self, at: usize) -> Option<&mut AdmissionRequest>;
}

/// Any JSON object, read as a document that carries no request.
impl CarriesRequests for Value {
    const REQUESTS: &'static [&'static [&'static str]] = &[];
    const TAPE: bool = true;

    fn from_tape(root: palisade_json::Ref<'_>) -> Option<Self> {
        tape::value(root)
    }

    fn request_mut(&mut self, _at: usize) -> Option<&mut AdmissionRequest> {
        None
    }
}

/// Read a document whose request objects nest deeper than serde_json reads (its recursion limit stopped the fast
/// path with `shallow_error`): the whole text is read by [`deep::parse`], the objects are set aside, the rest is read
/// by `read_shallow` as usual (so its errors are worded and positioned as any input's) and the objects are put back.
/// Anything else nested that deep is still refused with `shallow_error`: kube-apiserver's own fields never are.
/// `refuse` words a refusal (the reason the text is not JSON Palisade reads).
pub(crate) fn read_with_deep_objects<T: CarriesRequests, E>(
    text: &str,
    shallow_error: &serde_json::Error,
    read_shallow: impl FnOnce(&[u8]) -> Result<T, E>,
    refuse: impl FnOnce(String) -> E,
) -> Result<T, E> {
    let mut tree = match deep::parse(text) {
        Ok(tree) => tree,
        Err(e) => return Err(refuse(e)),
    };
    let mut set_aside = Vec::new();
    for (at, path) in T::REQUESTS.iter().enumerate() {
        let mut request = Some(&mut tree);
        for key in *path {
            request = request.and_then(|v| v.get_mut(*key));
        }
        if let Some(Value::Object(request)) = request {
            for key in ["object", "oldObject", "old_object"] {
                if let Some(object) = request.remove(key) {
                    set_aside.push((at, key, object));
                }
            }
        }
    }
    let too_deep = set_aside
        .iter()
        .find(|(_, _, object)| deep::depth(object) > deep::MAX_DEPTH)
        .map(|(at, key, _)| {
            let path = T::REQUESTS
                .get(*at)
                .map(|p| p.join("."))
                .unwrap_or_default();
            format!(
                "`{path}.{key}` nests deeper than {} levels, the most kube-apiserver accepts",
                deep::MAX_DEPTH
            )
        })
        .or_else(|| (deep::depth(&tree) > deep::SERDE_DEPTH).then(|| shallow_error.to_string()));
    let shallow = match too_deep {
        Some(reason) => Err(reason),
        None => Ok(tree.to_string()),
    };
    deep::release(tree);
    let parsed = shallow
        .map_err(refuse)
        .and_then(|shallow| read_shallow(shallow.as_bytes()));
    let mut parsed = match parsed {
        Ok(parsed) => parsed,
        Err(e) => {
            for (_, _, object) in set_aside {
                deep::release(object);
            }
            return Err(e);
        }
    };
    for (at, key, object) in set_aside {
        // not on the fast path: only a review nested deeper than serde_json reads comes here
        let doc = Doc::from_value(&object);
        deep::release(object);
        if let (Some(request), Ok(doc)) = (parsed.request_mut(at), doc) {
            let slot = if key == "object" {
                &mut request.object
            } else {
                &mut request.old_object
            };
            *slot = Some(doc);
        }
    }
    Ok(parsed)
}

/// metav1.StatusCause: one reason a request was denied.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct StatusCause {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub reason: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub message: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub field: String,
}

/// metav1.StatusDetails.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct StatusDetails {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub causes: Vec<StatusCause>,
}

/// metav1.Status: why a request was denied.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Status {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<u16>,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub message: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub reason: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<StatusDetails>,
}

/// The `response` of an AdmissionReview.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct AdmissionResponse {
    pub uid: String,
    pub allowed: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<Status>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub patch: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub patch_type: Option<String>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub audit_annotations: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

impl AdmissionResponse {
    /// `allowed: true` and nothing else.
    pub fn allow(uid: &str) -> Self {
        Self {
            uid: uid.to_owned(),
            allowed: true,
            ..Self::default()
        }
    }

    /// `allowed: false` with a status code, reason and message.
    pub fn deny(uid: &str, code: u16, reason: &str, message: impl Into<String>) -> Self {
        Self {
            uid: uid.to_owned(),
            allowed: false,
            status: Some(Status {
                code: Some(code),
                message: message.into(),
                reason: reason.to_owned(),
                details: None,
            }),
            ..Self::default()
        }
    }
}

/// A whole AdmissionReview as written back to the host.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AdmissionReviewOut {
    pub api_version: String,
    pub kind: &'static str,
    pub response: AdmissionResponse,
}

impl AdmissionReviewOut {
    /// [`AdmissionReviewOut::to_json`] of an answer that only allows, when none of its strings needs an escape.
    fn plain_allow(&self) -> Option<String> {
        let r = &self.response;
        // the characters serde_json escapes in a string: `"`, `\` and the controls
        let plain = |s: &str| s.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\');
        let only_allows = r.allowed
            && r.status.is_none()
            && r.patch.is_none()
            && r.patch_type.is_none()
            && r.audit_annotations.is_empty()
            && r.warnings.is_empty();
        if !(only_allows && plain(&self.api_version) && plain(self.kind) && plain(&r.uid)) {
            return None;
        }
        let mut out = String::with_capacity(80 + self.api_version.len() + r.uid.len());
        for part in [
            r#"{"apiVersion":""#,
            &self.api_version,
            r#"","kind":""#,
            self.kind,
            r#"","response":{"uid":""#,
            &r.uid,
            r#"","allowed":true}}"#,
        ] {
            out.push_str(part);
        }
        Some(out)
    }

    /// Wrap a response in an AdmissionReview of the given apiVersion.
    pub fn new(api_version: &str, response: AdmissionResponse) -> Self {
        Self {
            api_version: api_version.to_owned(),
            kind: "AdmissionReview",
            response,
        }
    }

    /// Serialize; a response always serializes, so this cannot fail in practice, and still answers JSON if it did.
    /// The answer of most requests, `allowed: true` and nothing else, is written directly: byte for byte what serde
    /// writes, without its generic machinery.
    pub fn to_json(&self) -> String {
        if let Some(plain) = self.plain_allow() {
            return plain;
        }
        serde_json::to_string(self).unwrap_or_else(|e| {
            format!(
                r#"{{"apiVersion":"{ADMISSION_V1}","kind":"AdmissionReview","response":{{"uid":"","allowed":false,"status":{{"code":500,"message":"cannot encode the response: {}"}}}}}}"#,
                e.to_string().replace(['"', '\\'], "'")
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The answer written directly is byte for byte what serde writes, and every other answer is serde's.
    #[test]
    fn answers_written_directly_are_what_serde_writes() {
        let uids = [
            "705ab4f5-6393-11e8-b7cc-42010a800002",
            "",
            "ünïcödé ✓",
            "quote\"d",
            "back\\slash",
            "line\nbreak",
            "tab\t",
            "\u{7f}del",
        ];
        let mut direct = 0;
        for api_version in [
            "admission.k8s.io/v1",
            "admission.k8s.io/v1beta1",
            "odd\"version",
        ] {
            for uid in uids {
                let mut warned = AdmissionResponse::allow(uid);
                warned.warnings.push("careful".to_owned());
                for response in [
                    AdmissionResponse::allow(uid),
                    AdmissionResponse::deny(uid, 403, "Forbidden", "no"),
                    warned,
                ] {
                    let out = AdmissionReviewOut::new(api_version, response);
                    let serde = serde_json::to_string(&out).unwrap_or_default();
                    assert_eq!(out.to_json(), serde);
                    if out.plain_allow().is_some() {
                        direct += 1;
                    }
                }
            }
        }
        // the plain allows of the first two apiVersions and the four uids without an escape
        assert_eq!(direct, 2 * 4);
    }
}
