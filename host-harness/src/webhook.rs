//! Webhook dispatch (issue 3, item 5): a case's ValidatingWebhookConfiguration is applied the
//! way kube-apiserver applies it before the module is called.
//!
//! Follows k8s.io/apiserver `pkg/admission/plugin/webhook/generic/webhook.go` (`ShouldCallHook`:
//! namespaceSelector, objectSelector, rules with matchPolicy equivalents, matchConditions) and
//! `pkg/admission/plugin/webhook/validating/dispatcher.go` (`Dispatch`/`callHook`: dryRun and
//! sideEffects, admissionReviewVersions, timeoutSeconds, failurePolicy, response verification),
//! with the wording of `pkg/admission/plugin/webhook/errors` and `pkg/util/webhook`.
//!
//! What the module answers is reported as it answered it (a case's `expect` speaks of the
//! module's verdict); what the apiserver would answer itself — a dryRun rejection, a call failure
//! under `failurePolicy: Fail`, a request no webhook matches — is built here.

use std::collections::BTreeMap;
use std::time::Duration;

use anyhow::{Result, anyhow, bail};
use palisade_cel_kubernetes::goquote::quote;
use serde_json::{Map, Value, json};

use palisade_matching::{
    ACCEPTED_ADMISSION_REVIEW_VERSIONS, FailurePolicy, Webhook,
    parse_validating_webhook_configuration,
};

use crate::backend::Backend;
use crate::matching;
use crate::outcome::Outcome;
/// Prefix of the audit annotation written when a webhook fails open.
pub const FAILED_OPEN_PREFIX: &str = "failed-open.validating.webhook.admission.k8s.io/";

/// Picks the ValidatingWebhookConfiguration out of a file's documents; a bare webhook entry
/// (`name`, `rules`, …) is wrapped as a configuration with that one webhook.
pub fn pick_configuration(docs: Vec<Value>) -> Result<Value> {
    let mut found = Vec::new();
    for doc in docs {
        match doc.get("kind").and_then(Value::as_str) {
            Some("ValidatingWebhookConfiguration") => found.push(doc),
            Some("MutatingWebhookConfiguration") => {
                bail!(
                    "a MutatingWebhookConfiguration is not dispatched: palisade is a validating webhook"
                )
            }
            Some(_) => {}
            None if doc.get("webhooks").is_some() => found.push(doc),
            None if doc.get("name").is_some() => found.push(json!({ "webhooks": [doc] })),
            None => {}
        }
    }
    match found.len() {
        1 => found
            .pop()
            .ok_or_else(|| anyhow!("no ValidatingWebhookConfiguration")),
        0 => bail!("`webhook` holds no ValidatingWebhookConfiguration"),
        n => bail!("`webhook` holds {n} ValidatingWebhookConfigurations, expected one"),
    }
}

/// An error of the kind upstream calls `ErrCallingWebhook`: failurePolicy decides.
struct CallingError(String);

/// The apiserver's own answer (a `metav1.Status` failure).
fn status_response(uid: &Value, code: u16, reason: &str, message: &str) -> Value {
    json!({
        "uid": uid,
        "allowed": false,
        "status": { "metadata": {}, "status": "Failure", "message": message, "reason": reason, "code": code }
    })
}

fn internal_error(uid: &Value, message: &str) -> Value {
    status_response(
        uid,
        500,
        "InternalError",
        &format!("Internal error occurred: {message}"),
    )
}

/// Applies the configuration to the review and, for each webhook that matches, calls the
/// module through `backend`.
pub fn dispatch(
    configuration: &Value,
    bundle: &Value,
    review: &Value,
    context: Option<&Value>,
    backend: &dyn Backend,
) -> Outcome {
    match dispatch_inner(configuration, bundle, review, context, backend) {
        Ok(outcome) => outcome,
        Err(e) => Outcome::Error(format!("{e:#}")),
    }
}

fn dispatch_inner(
    configuration: &Value,
    bundle: &Value,
    review: &Value,
    context: Option<&Value>,
    backend: &dyn Backend,
) -> Result<Outcome> {
    let request = review
        .get("request")
        .filter(|r| r.is_object())
        .ok_or_else(|| {
            anyhow!("the review has no `request`: a webhook configuration cannot be applied to it")
        })?;
    let uid = request.get("uid").cloned().unwrap_or(Value::Null);
    let hooks = parse_validating_webhook_configuration(configuration).map_err(|errors| {
        anyhow!(
            "the webhook configuration is invalid: {}",
            errors
                .iter()
                .map(|e| format!("{}: {}", e.path, e.message))
                .collect::<Vec<_>>()
                .join("; ")
        )
    })?;
    if hooks.is_empty() {
        bail!("the webhook configuration has no webhooks");
    }
    if matching::is_exempt(request) {
        return Ok(Outcome::Skipped(
            "admission configuration objects are never sent to webhooks".into(),
        ));
    }

    // ShouldCallHook for every webhook, in order; a status error rejects the request.
    let mut relevant = Vec::new();
    for (i, hook) in hooks.iter().enumerate() {
        let conditions = matching::Conditions::compile(hook, &format!("webhooks[{i}]"))
            .map_err(|e| anyhow!(e))?;
        match matching::should_call(hook, &conditions, request, context) {
            matching::Decision::Skip => {}
            matching::Decision::Call => relevant.push((i, hook)),
            matching::Decision::Reject {
                code,
                reason,
                message,
            } => {
                return Ok(Outcome::Response(status_response(
                    &uid, code, &reason, &message,
                )));
            }
        }
    }
    if relevant.is_empty() {
        let name = configuration
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or("the webhook configuration");
        return Ok(Outcome::Skipped(format!(
            "no webhook of `{name}` matches the request"
        )));
    }

    let dry_run = request
        .get("dryRun")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let mut rejection: Option<Value> = None;
    let mut answers: Vec<Value> = Vec::new();
    let mut failed_open: BTreeMap<String, String> = BTreeMap::new();
    for (index, hook) in relevant {
        match call_hook(hook, dry_run, bundle, review, &uid, context, backend) {
            Ok(CallResult::Answered(response)) => {
                let allowed = response
                    .get("allowed")
                    .and_then(Value::as_bool)
                    .unwrap_or(false);
                if !allowed && rejection.is_none() {
                    rejection = Some(response.clone());
                }
                answers.push(response);
            }
            Ok(CallResult::Rejected(response)) => {
                if rejection.is_none() {
                    rejection = Some(response);
                }
            }
            Err(CallingError(reason)) => {
                let error = format!("failed calling webhook {}: {reason}", quote(&hook.name));
                if hook.failure_policy == FailurePolicy::Ignore {
                    failed_open.insert(
                        format!("{FAILED_OPEN_PREFIX}round_0_index_{index}"),
                        hook.name.clone(),
                    );
                } else if rejection.is_none() {
                    rejection = Some(internal_error(&uid, &error));
                }
            }
        }
    }
    if let Some(r) = rejection {
        return Ok(Outcome::Response(r));
    }
    // Allowed: the module's answer (with its warnings and annotations), plus any fail-open notes.
    let mut response = match answers.len() {
        0 => json!({ "uid": uid, "allowed": true }),
        1 => answers.pop().unwrap_or_default(),
        _ => merge_allowed(&uid, &answers),
    };
    if !failed_open.is_empty()
        && let Some(obj) = response.as_object_mut()
    {
        let annotations = obj
            .entry("auditAnnotations")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Some(a) = annotations.as_object_mut() {
            for (k, v) in failed_open {
                a.insert(k, Value::String(v));
            }
        }
    }
    Ok(Outcome::Response(response))
}

fn merge_allowed(uid: &Value, answers: &[Value]) -> Value {
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

enum CallResult {
    /// The module answered (a verified response).
    Answered(Value),
    /// The apiserver rejected the request before calling (dryRun to a webhook with side effects).
    Rejected(Value),
}

fn call_hook(
    hook: &Webhook,
    dry_run: bool,
    bundle: &Value,
    review: &Value,
    uid: &Value,
    context: Option<&Value>,
    backend: &dyn Backend,
) -> std::result::Result<CallResult, CallingError> {
    if let Err(message) = hook.check_dry_run(dry_run) {
        // webhookerrors.NewDryRunUnsupportedErr: apierrors.NewBadRequest
        return Ok(CallResult::Rejected(status_response(
            uid,
            400,
            "BadRequest",
            &message,
        )));
    }
    let version = hook.admission_review_version(ACCEPTED_ADMISSION_REVIEW_VERSIONS).ok_or_else(|| {
        CallingError(
            "could not create admission objects: webhook does not accept known AdmissionReview versions (v1, v1beta1)"
                .into(),
        )
    })?;
    let mut sent = review.clone();
    if let Some(obj) = sent.as_object_mut() {
        obj.insert(
            "apiVersion".into(),
            Value::String(format!("admission.k8s.io/{version}")),
        );
        obj.insert("kind".into(), Value::String("AdmissionReview".into()));
    }
    let timeout = Duration::from_secs(u64::from(hook.timeout_seconds));
    let answer = backend
        .evaluate(bundle, &sent, context, timeout)
        .map_err(|e| CallingError(format!("failed to call webhook: {e}")))?;
    verify(&answer, uid, version)
        .map(CallResult::Answered)
        .map_err(|e| CallingError(format!("received invalid webhook response: {e}")))
}

/// `VerifyAdmissionResponse` for a validating webhook.
fn verify(answer: &Value, uid: &Value, version: &str) -> std::result::Result<Value, String> {
    let response = answer
        .get("response")
        .filter(|r| r.is_object())
        .ok_or_else(|| "webhook response was absent".to_string())?;
    if version == "v1" {
        let got_uid = response.get("uid").and_then(Value::as_str).unwrap_or("");
        let want_uid = uid.as_str().unwrap_or("");
        if got_uid != want_uid {
            return Err(format!(
                "expected response.uid=\"{want_uid}\", got \"{got_uid}\""
            ));
        }
        let api_version = answer
            .get("apiVersion")
            .and_then(Value::as_str)
            .unwrap_or("");
        let kind = answer.get("kind").and_then(Value::as_str).unwrap_or("");
        if api_version != "admission.k8s.io/v1" || kind != "AdmissionReview" {
            let gv = if api_version.contains('/') {
                api_version.to_string()
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

#[cfg(test)]
mod tests {
    use super::*;

    // upstream: k8s.io/apiserver/pkg/admission/plugin/webhook/request/admissionreview_test.go TestVerifyAdmissionResponse
    #[test]
    fn verify_response_like_upstream() {
        let ok = json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": {"uid": "123", "allowed": true}});
        assert!(verify(&ok, &json!("123"), "v1").is_ok());
        let absent = json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview"});
        assert_eq!(
            verify(&absent, &json!("123"), "v1").unwrap_err(),
            "webhook response was absent"
        );
        let wrong_uid = json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": {"uid": "456", "allowed": true}});
        assert_eq!(
            verify(&wrong_uid, &json!("123"), "v1").unwrap_err(),
            "expected response.uid=\"123\", got \"456\""
        );
        let wrong_gvk = json!({"apiVersion": "admission.k8s.io/v2", "kind": "AdmissionReview", "response": {"uid": "123", "allowed": true}});
        assert_eq!(
            verify(&wrong_gvk, &json!("123"), "v1").unwrap_err(),
            "expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got admission.k8s.io/v2, Kind=AdmissionReview"
        );
        let patch = json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": {"uid": "123", "allowed": true, "patch": "e30="}});
        assert_eq!(
            verify(&patch, &json!("123"), "v1").unwrap_err(),
            "validating webhook may not return response.patch"
        );
        // v1beta1: uid and GVK are not verified
        let beta = json!({"response": {"uid": "other", "allowed": false}});
        assert!(verify(&beta, &json!("123"), "v1beta1").is_ok());
    }
}
