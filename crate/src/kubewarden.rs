//! Kubewarden's wire types, defined once for both sides: the guest (`palisade-kubewarden.wasm`,
//! [`crate::abi::kubewarden`], feature `kubewarden`) and the harness's waPC host (`palisade-harness`'s `kubewarden`
//! module), which links this crate without the feature. Each type has the fields and serde names of its
//! kubewarden/policy-sdk-rust counterpart; nothing here needs a feature, an import or the engine.
//!
//! | payload | policy-sdk-rust | sent by |
//! |---|---|---|
//! | [`ValidationRequest`] | `ValidationRequest` | the host, to `validate` |
//! | [`ValidationResponse`] | `ValidationResponse` | the guest, from `validate` |
//! | [`SettingsValidationResponse`] | `SettingsValidationResponse` | the guest, from `validate_settings` |
//! | [`GetResourceRequest`] | `host_capabilities::kubernetes::GetResourceRequest` | the guest, `kubernetes/get_resource` |
//! | [`CanIRequest`] | `host_capabilities::kubernetes::SubjectAccessReviewRequest` | the guest, `kubernetes/can_i` |
//! | [`SubjectAccessReviewStatus`] | k8s-openapi's `SubjectAccessReviewStatus` | the host, answering `can_i` |

use std::collections::BTreeMap;

use palisade_cel_kubernetes::cluster::AccessQuery;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::review::AdmissionResponse;

/// The waPC binding of Kubewarden's host capabilities.
pub const BINDING: &str = "kubewarden";
/// The host-capability namespace of the Kubernetes operations.
pub const KUBERNETES: &str = "kubernetes";
/// `kubernetes/get_resource`: one object by apiVersion, kind, name (and namespace).
pub const GET_RESOURCE: &str = "get_resource";
/// `kubernetes/can_i`: a SubjectAccessReview.
pub const CAN_I: &str = "can_i";
/// The waPC operations of a policy.
pub const VALIDATE: &str = "validate";
pub const VALIDATE_SETTINGS: &str = "validate_settings";
pub const PROTOCOL_VERSION: &str = "protocol_version";
/// What `protocol_version` answers, as policy-sdk-rust's `protocol_version_guest`: the JSON string `"v1"`.
pub const PROTOCOL_V1: &[u8] = b"\"v1\"";
/// How policy-server words a `get_resource` for an object that does not exist (policy-evaluator's kubernetes
/// client): `Cannot find v1/Namespace named 'x' inside of namespace 'None'`. That answer means "no such namespace".
pub const NAMESPACE_NOT_FOUND_PREFIX: &str = "Cannot find v1/Namespace named ";
/// How policy-evaluator hands the guest an error of a host capability's handler
/// (`crates/policy-evaluator/src/runtimes/callback.rs`): `Callback evaluation failure: <error>`.
pub const CALLBACK_FAILURE_PREFIX: &str = "Callback evaluation failure: ";

/// The payload of `validate`: `{"request": AdmissionRequest, "settings": …}`. The guest reads it as
/// `ValidationRequest<Option<Box<AdmissionRequest>>, Option<SettingsText>>` (the request boxed, so that it is not
/// copied through the frames that read it; settings kept as text, to be recognised by their bytes); the host writes
/// whatever it holds (e.g. `ValidationRequest<&Value, &Value>`). Either field may be absent when read.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ValidationRequest<R, S> {
    #[serde(default)]
    pub request: R,
    #[serde(default)]
    pub settings: S,
}

/// A JSON value kept as its text, exactly as written (what serde_json's `RawValue` keeps): the settings, which arrive
/// with every call and are recognised by their bytes. Read from the payload's tape it is a node of that tape, its text
/// the payload's own bytes (nothing copied); read by serde_json, a copy. Both print, compare and read alike.
#[derive(Clone)]
pub struct SettingsText(SettingsRepr);

#[derive(Clone)]
enum SettingsRepr {
    /// A value directly inside the payload's top object, read into a tape: its text is the payload's.
    Node(palisade_json::Doc),
    Owned(Box<str>),
}

impl SettingsText {
    /// The settings' text, exactly as the payload writes them.
    pub fn as_str(&self) -> &str {
        match &self.0 {
            SettingsRepr::Node(doc) => doc.root().raw_text().unwrap_or_default(),
            SettingsRepr::Owned(text) => text,
        }
    }
}

impl std::fmt::Debug for SettingsText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("SettingsText").field(&self.as_str()).finish()
    }
}

impl PartialEq for SettingsText {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for SettingsText {}

impl<'de> Deserialize<'de> for SettingsText {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Box::<serde_json::value::RawValue>::deserialize(deserializer)
            .map(|raw| SettingsText(SettingsRepr::Owned(raw.into())))
    }
}

/// The guest's reading: from the tape of the whole payload (the settings are its own text there), else by serde_json;
/// a request whose `object`/`oldObject` nest deeper than serde reads is read by [`crate::review::deep`].
impl crate::review::CarriesRequests
    for ValidationRequest<Option<Box<crate::review::AdmissionRequest>>, Option<SettingsText>>
{
    const REQUESTS: &'static [&'static [&'static str]] = &[&["request"]];
    const TAPE: bool = true;

    fn from_tape(root: palisade_json::Ref<'_>) -> Option<Self> {
        use crate::review::tape::{admission_request, optional};
        let mut f = [None; 2];
        root.pick(&[&["request"], &["settings"]], false, &mut f)?;
        let [request, settings] = f;
        Some(ValidationRequest {
            request: optional(request, admission_request)?,
            settings: optional(settings, |r| {
                r.raw_text()?;
                Some(SettingsText(SettingsRepr::Node(
                    palisade_json::Doc::subtree(r),
                )))
            })?,
        })
    }

    fn request_mut(&mut self, _at: usize) -> Option<&mut crate::review::AdmissionRequest> {
        self.request.as_deref_mut()
    }
}

/// policy-sdk-rust's `ValidationResponse`, field for field; absent values serialize as `null` as the SDK's do.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ValidationResponse {
    pub accepted: bool,
    pub message: Option<String>,
    pub code: Option<u16>,
    pub mutated_object: Option<Value>,
    pub audit_annotations: Option<BTreeMap<String, String>>,
    pub warnings: Option<Vec<String>>,
}

impl ValidationResponse {
    /// A rejection with a code and a message, nothing else.
    pub fn reject(code: u16, message: impl Into<String>) -> Self {
        Self {
            accepted: false,
            message: Some(message.into()),
            code: Some(code),
            ..Self::default()
        }
    }

    /// Palisade's AdmissionResponse as a ValidationResponse: `allowed` → `accepted`, `status.message`/`status.code`
    /// → `message`/`code`, warnings and audit annotations as they are (empty ones left out). `status.reason` and
    /// `status.details` have no place in a ValidationResponse.
    pub fn from_admission_response(response: AdmissionResponse) -> Self {
        let (message, code) = match response.status {
            Some(status) => (
                (!status.message.is_empty()).then_some(status.message),
                status.code,
            ),
            None => (None, None),
        };
        Self {
            accepted: response.allowed,
            message,
            code,
            mutated_object: None,
            audit_annotations: (!response.audit_annotations.is_empty())
                .then_some(response.audit_annotations),
            warnings: (!response.warnings.is_empty()).then_some(response.warnings),
        }
    }

    /// The JSON bytes policy-server reads.
    pub fn to_bytes(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_else(|e| {
            // A ValidationResponse always serializes; answer well-formed even if it did not.
            let fallback =
                ValidationResponse::reject(500, format!("cannot encode the response: {e}"));
            serde_json::to_vec(&fallback).unwrap_or_default()
        })
    }
}

/// policy-sdk-rust's `SettingsValidationResponse`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SettingsValidationResponse {
    pub valid: bool,
    pub message: Option<String>,
}

/// policy-sdk-rust's `GetResourceRequest` (fields in the order the guest has always written them; a host ignores
/// fields it does not know, e.g. `field_masks`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GetResourceRequest {
    pub api_version: String,
    #[serde(default)]
    pub disable_cache: bool,
    pub kind: String,
    pub name: String,
    pub namespace: Option<String>,
}

impl GetResourceRequest {
    /// The v1 Namespace `name`, as the guest asks for namespace labels.
    pub fn namespace(name: &str) -> Self {
        Self {
            api_version: "v1".to_owned(),
            disable_cache: false,
            kind: "Namespace".to_owned(),
            name: name.to_owned(),
            namespace: None,
        }
    }
}

/// The `can_i` payload policy-sdk-rust sends: `{"subject_access_review": {groups, resource_attributes, user},
/// "disable_cache": false}`. Empty optional attributes are `null`, as the SDK's `Option`s are.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CanIRequest {
    #[serde(default)]
    pub disable_cache: bool,
    pub subject_access_review: SubjectAccessReview,
}

/// The SubjectAccessReview spec of a [`CanIRequest`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubjectAccessReview {
    pub groups: Option<Vec<String>>,
    pub resource_attributes: ResourceAttributes,
    pub user: String,
}

/// The resource attributes of a [`SubjectAccessReview`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourceAttributes {
    pub group: Option<String>,
    pub name: Option<String>,
    pub namespace: Option<String>,
    pub resource: String,
    pub subresource: Option<String>,
    pub verb: String,
    pub version: Option<String>,
}

/// `None` for an empty string: how the SDK's `Option`s carry an attribute the question leaves open.
fn non_empty(s: &str) -> Option<String> {
    (!s.is_empty()).then(|| s.to_owned())
}

impl CanIRequest {
    /// The question an engine asks ([`AccessQuery`]) as the guest sends it. A non-resource question
    /// (`authorizer.path`) has no place in it: the guest refuses those before asking.
    pub fn from_query(query: &AccessQuery) -> Self {
        Self {
            disable_cache: false,
            subject_access_review: SubjectAccessReview {
                groups: (!query.groups.is_empty()).then(|| query.groups.clone()),
                resource_attributes: ResourceAttributes {
                    group: non_empty(&query.api_group),
                    name: non_empty(&query.name),
                    namespace: non_empty(&query.namespace),
                    resource: query.resource.clone(),
                    subresource: non_empty(&query.subresource),
                    verb: query.verb.clone(),
                    version: None,
                },
                user: query.user.clone(),
            },
        }
    }

    /// The question as an [`AccessQuery`], as a host answering from a context reads it.
    pub fn into_query(self) -> AccessQuery {
        let review = self.subject_access_review;
        let attributes = review.resource_attributes;
        AccessQuery {
            user: review.user,
            groups: review.groups.unwrap_or_default(),
            verb: attributes.verb,
            api_group: attributes.group.unwrap_or_default(),
            resource: attributes.resource,
            subresource: attributes.subresource.unwrap_or_default(),
            namespace: attributes.namespace.unwrap_or_default(),
            name: attributes.name.unwrap_or_default(),
            ..AccessQuery::default()
        }
    }
}

/// The SubjectAccessReviewStatus a host answers to `can_i`; only `allowed` decides. Absent optional fields are left
/// out when written.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubjectAccessReviewStatus {
    pub allowed: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub denied: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    // upstream: kubewarden/policy-sdk-rust src/host_capabilities/kubernetes.rs test_subject_access_review_spec_conversion
    // (the fields a SubjectAccessReview carries)
    #[test]
    fn can_i_requests_round_trip_through_access_queries() {
        let query = AccessQuery {
            user: "alice".into(),
            groups: vec!["devs".into()],
            verb: "use".into(),
            api_group: "policy.cert-manager.io".into(),
            resource: "certificaterequestpolicies".into(),
            name: "team-a-certs".into(),
            namespace: "team-a".into(),
            ..AccessQuery::default()
        };
        let request = CanIRequest::from_query(&query);
        assert_eq!(
            serde_json::to_value(&request).unwrap(),
            json!({"subject_access_review": {"groups": ["devs"], "resource_attributes": {
                    "group": "policy.cert-manager.io", "name": "team-a-certs", "namespace": "team-a",
                    "resource": "certificaterequestpolicies", "subresource": null, "verb": "use", "version": null},
                   "user": "alice"}, "disable_cache": false})
        );
        assert_eq!(request.into_query(), query);
        // What a host reads may leave out every optional attribute.
        let sparse: CanIRequest = serde_json::from_value(json!({"subject_access_review": {
            "resource_attributes": {"resource": "r", "verb": "v"}, "user": "u"}}))
        .unwrap();
        assert_eq!(sparse.into_query().resource, "r");
    }

    #[test]
    fn get_resource_requests_and_statuses_have_the_sdk_shape() {
        assert_eq!(
            serde_json::to_value(GetResourceRequest::namespace("team-a")).unwrap(),
            json!({"api_version": "v1", "kind": "Namespace", "name": "team-a", "namespace": null, "disable_cache": false})
        );
        let with_masks: GetResourceRequest = serde_json::from_value(json!({"api_version": "v1",
            "kind": "Namespace", "name": "a", "field_masks": ["metadata.labels"]}))
        .unwrap();
        assert_eq!(with_masks.namespace, None);
        assert_eq!(
            serde_json::to_value(SubjectAccessReviewStatus {
                allowed: true,
                ..Default::default()
            })
            .unwrap(),
            json!({"allowed": true})
        );
        assert!(
            serde_json::from_value::<SubjectAccessReviewStatus>(json!({"denied": true})).is_err()
        );
    }

    #[test]
    fn validation_requests_read_with_absent_fields_and_write_in_order() {
        let read: ValidationRequest<Option<Value>, Option<Value>> =
            serde_json::from_str(r#"{"settings":{}}"#).unwrap();
        assert_eq!((read.request, read.settings), (None, Some(json!({}))));
        let request = json!({"uid": "u"});
        let settings = json!({"policies": []});
        let written = serde_json::to_string(&ValidationRequest {
            request: &request,
            settings: &settings,
        })
        .unwrap();
        assert_eq!(
            written,
            r#"{"request":{"uid":"u"},"settings":{"policies":[]}}"#
        );
    }
}
