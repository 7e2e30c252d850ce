//! The answers around a webhook call: the apiserver's own `metav1.Status` answers, `VerifyAdmissionResponse` of
//! k8s.io/apiserver `pkg/admission/plugin/webhook/request/admissionreview.go` for a validating webhook, and the
//! allowed answers of several webhooks joined into one.

use serde_json::{Map, Value, json};

/// Prefix of the audit annotation written when a webhook fails open
/// (`ValidatingAuditAnnotationFailedOpenKeyPrefix`).
pub const FAILED_OPEN_PREFIX: &str = "failed-open.validating.webhook.admission.k8s.io/";

/// The apiserver's own answer (a `metav1.Status` failure).
pub fn status_response(uid: &str, code: u16, reason: &str, message: &str) -> Value {
    json!({
        "uid": uid,
        "allowed": false,
        "status": { "metadata": {}, "status": "Failure", "message": message, "reason": reason, "code": code }
    })
}

/// `apierrors.NewInternalError`.
pub fn internal_error(uid: &str, message: &str) -> Value {
    status_response(
        uid,
        500,
        "InternalError",
        &format!("Internal error occurred: {message}"),
    )
}

/// `VerifyAdmissionResponse` for a validating webhook: the AdmissionReview's `response` when it is one the apiserver
/// accepts, else why not (`version` is the AdmissionReview version the webhook was sent).
pub fn verify(answer: &Value, uid: &str, version: &str) -> Result<Value, String> {
    let response = answer
        .get("response")
        .filter(|r| r.is_object())
        .ok_or_else(|| "webhook response was absent".to_owned())?;
    if version == "v1" {
        let got_uid = response.get("uid").and_then(Value::as_str).unwrap_or("");
        if got_uid != uid {
            return Err(format!(
                "expected response.uid=\"{uid}\", got \"{got_uid}\""
            ));
        }
        let api_version = answer
            .get("apiVersion")
            .and_then(Value::as_str)
            .unwrap_or("");
        let kind = answer.get("kind").and_then(Value::as_str).unwrap_or("");
        if api_version != "admission.k8s.io/v1" || kind != "AdmissionReview" {
            let gv = if api_version.contains('/') {
                api_version.to_owned()
            } else if api_version.is_empty() {
                String::new()
            } else {
                format!("/{api_version}")
            };
            return Err(format!(
                "expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got {gv}, Kind={kind}"
            ));
        }
        if response
            .get("patch")
            .is_some_and(|p| !p.is_null() && p != "")
        {
            return Err("validating webhook may not return response.patch".into());
        }
        if response.get("patchType").is_some_and(|p| !p.is_null()) {
            return Err("validating webhook may not return response.patchType".into());
        }
    }
    if !response.get("allowed").is_some_and(Value::is_boolean) {
        return Err("response.allowed is not a boolean".into());
    }
    Ok(response.clone())
}

/// Several webhooks allowed the request: one answer with every warning and audit annotation.
pub fn merge_allowed(uid: &str, answers: &[Value]) -> Value {
    let mut warnings = Vec::new();
    let mut annotations = Map::new();
    for a in answers {
        if let Some(w) = a.get("warnings").and_then(Value::as_array) {
            warnings.extend(w.iter().cloned());
        }
        if let Some(m) = a.get("auditAnnotations").and_then(Value::as_object) {
            for (k, v) in m {
                annotations.insert(k.clone(), v.clone());
            }
        }
    }
    let mut out = json!({ "uid": uid, "allowed": true });
    if let Some(obj) = out.as_object_mut() {
        if !warnings.is_empty() {
            obj.insert("warnings".into(), Value::Array(warnings));
        }
        if !annotations.is_empty() {
            obj.insert("auditAnnotations".into(), Value::Object(annotations));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    // upstream: k8s.io/apiserver/pkg/admission/plugin/webhook/request/admissionreview_test.go TestVerifyAdmissionResponse
    #[test]
    fn verify_response_like_upstream() {
        let ok = json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": {"uid": "123", "allowed": true}});
        assert!(verify(&ok, "123", "v1").is_ok());
        let absent = json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview"});
        assert_eq!(
            verify(&absent, "123", "v1").unwrap_err(),
            "webhook response was absent"
        );
        let wrong_uid = json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": {"uid": "456", "allowed": true}});
        assert_eq!(
            verify(&wrong_uid, "123", "v1").unwrap_err(),
            "expected response.uid=\"123\", got \"456\""
        );
        let wrong_gvk = json!({"apiVersion": "admission.k8s.io/v2", "kind": "AdmissionReview", "response": {"uid": "123", "allowed": true}});
        assert_eq!(
            verify(&wrong_gvk, "123", "v1").unwrap_err(),
            "expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got admission.k8s.io/v2, Kind=AdmissionReview"
        );
        let patch = json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": {"uid": "123", "allowed": true, "patch": "e30="}});
        assert_eq!(
            verify(&patch, "123", "v1").unwrap_err(),
            "validating webhook may not return response.patch"
        );
        let patch_type = json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": {"uid": "123", "allowed": true, "patchType": "JSONPatch"}});
        assert_eq!(
            verify(&patch_type, "123", "v1").unwrap_err(),
            "validating webhook may not return response.patchType"
        );
        let not_bool = json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": {"uid": "123", "allowed": "yes"}});
        assert_eq!(
            verify(&not_bool, "123", "v1").unwrap_err(),
            "response.allowed is not a boolean"
        );
        // v1beta1: uid and GVK are not verified
        let beta = json!({"response": {"uid": "other", "allowed": false}});
        assert!(verify(&beta, "123", "v1beta1").is_ok());
    }

    #[test]
    fn merged_answers_keep_every_warning_and_annotation() {
        let merged = merge_allowed(
            "u",
            &[
                json!({"uid": "u", "allowed": true, "warnings": ["a"], "auditAnnotations": {"k/1": "x"}}),
                json!({"uid": "u", "allowed": true, "warnings": ["b"], "auditAnnotations": {"k/2": "y"}}),
            ],
        );
        assert_eq!(
            merged,
            json!({"uid": "u", "allowed": true, "warnings": ["a", "b"], "auditAnnotations": {"k/1": "x", "k/2": "y"}})
        );
        assert_eq!(
            merge_allowed("u", &[json!({"allowed": true})]),
            json!({"uid": "u", "allowed": true})
        );
    }
}
