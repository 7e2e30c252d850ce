//! kube-apiserver's dispatch of a request to a ValidatingWebhookConfiguration, as a pure function: the webhook
//! call itself is a parameter ([`Call`] in, the AdmissionReview answer or a [`CallError`] out), so the harness calls
//! the module through a backend and a test through a closure.
//!
//! Follows k8s.io/apiserver `pkg/admission/plugin/webhook/generic/webhook.go` (`ShouldCallHook`: exemptions,
//! namespaceSelector, objectSelector, rules with matchPolicy equivalents, matchConditions — [`should_call`]) and
//! `pkg/admission/plugin/webhook/validating/dispatcher.go` (`Dispatch`/`callHook`: dryRun and sideEffects,
//! admissionReviewVersions, timeoutSeconds, failurePolicy, response verification — [`response`]), with the wording
//! of `pkg/admission/plugin/webhook/errors` and `pkg/util/webhook`.
//!
//! A webhook's answer is kept as it answered it (a case's `expect` speaks of the module's verdict); what the
//! apiserver answers itself — a dryRun rejection, a call failure under `failurePolicy: Fail`, a request no webhook
//! matches — is built here.

mod response;
mod should_call;

use std::collections::BTreeMap;
use std::time::Duration;

use palisade_cel_kubernetes::goquote::quote;
use palisade_matching::{
    ACCEPTED_ADMISSION_REVIEW_VERSIONS, FailurePolicy, parse_validating_webhook_configuration,
};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::review::AdmissionRequest;
use crate::scope::RequestScope;
use palisade_cel_kubernetes::cluster::Cluster;

pub use response::FAILED_OPEN_PREFIX;
use response::{internal_error, merge_allowed, status_response, verify};
use should_call::{Decision, Hook, is_exempt};

/// Why a configuration cannot be applied to a review: the configuration or the review is broken, so there is no
/// admission answer to give.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The configuration fails kube-apiserver's validation (every `path: message`, joined by `; `).
    #[error("the webhook configuration is invalid: {0}")]
    Invalid(String),
    #[error("the webhook configuration has no webhooks")]
    NoWebhooks,
    /// matchConditions that do not compile (each a `field.Invalid` message, joined by `; `).
    #[error("{0}")]
    MatchConditions(String),
    #[error("the review has no `request`: a webhook configuration cannot be applied to it")]
    NoRequest,
    #[error("the review's `request` cannot be read: {0}")]
    Request(String),
    #[error("the context cannot be read: {0}")]
    Context(String),
    #[error("a MutatingWebhookConfiguration is not dispatched: palisade is a validating webhook")]
    Mutating,
    #[error("the documents hold no ValidatingWebhookConfiguration")]
    NoConfiguration,
    #[error("the documents hold {0} ValidatingWebhookConfigurations, expected one")]
    SeveralConfigurations(usize),
}

/// The ValidatingWebhookConfiguration among a file's documents (other kinds are passed over). A bare webhook entry
/// (`name`, `rules`, …) is taken as a configuration with that one webhook.
pub fn pick_configuration(documents: Vec<Value>) -> Result<Value, Error> {
    let mut found = Vec::new();
    for doc in documents {
        match doc.get("kind").and_then(Value::as_str) {
            Some("ValidatingWebhookConfiguration") => found.push(doc),
            Some("MutatingWebhookConfiguration") => return Err(Error::Mutating),
            Some(_) => {}
            None if doc.get("webhooks").is_some() => found.push(doc),
            None if doc.get("name").is_some() => found.push(json!({ "webhooks": [doc] })),
            None => {}
        }
    }
    match found.len() {
        1 => found.pop().ok_or(Error::NoConfiguration),
        0 => Err(Error::NoConfiguration),
        n => Err(Error::SeveralConfigurations(n)),
    }
}

/// Applies `configuration` to `review` as kube-apiserver would, with the cluster a context document describes
/// (`namespaces`, `authorizations`; `None`: nothing is known) and `call` answering each webhook that matches.
pub fn apply(
    configuration: &Value,
    review: &Value,
    context: Option<&Value>,
    call: &mut dyn FnMut(&Call<'_>) -> Result<Value, CallError>,
) -> Result<Dispatched, Error> {
    let configuration = Configuration::compile(configuration)?;
    let cluster = match context {
        None => crate::StaticContext::default(),
        Some(c) => {
            crate::StaticContext::deserialize(c).map_err(|e| Error::Context(e.to_string()))?
        }
    };
    configuration.dispatch(review, &cluster, call)
}

/// One call of a webhook, for the host to make.
#[derive(Debug, Clone, Copy)]
pub struct Call<'a> {
    /// The webhook's `name`.
    pub webhook: &'a str,
    /// The AdmissionReview to send, in the version the webhook accepts.
    pub review: &'a Value,
    /// `timeoutSeconds`: the host enforces it, and answers [`CallError::Timeout`] when it passes.
    pub timeout: Duration,
}

/// Why a call produced no answer: upstream's `ErrCallingWebhook`, which the webhook's failurePolicy decides. The
/// text is the host's own account of the failure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallError {
    /// The webhook did not answer within the call's timeout.
    Timeout(String),
    /// The webhook could not be called or did not answer (a trap, an answer that is not an AdmissionReview, …).
    Failed(String),
}

impl CallError {
    /// The reason as `callHook` words it: `failed to call webhook: <err>` (a timeout included: upstream's client
    /// returns its deadline error there too).
    fn reason(&self) -> String {
        match self {
            Self::Timeout(e) | Self::Failed(e) => format!("failed to call webhook: {e}"),
        }
    }
}

/// What the apiserver made of a request.
#[derive(Debug, Clone, PartialEq)]
pub enum Dispatched {
    /// No webhook was called (the request is admitted); why.
    Skipped(String),
    /// The AdmissionResponse: a webhook's own, several allowed ones joined, or the apiserver's.
    Response(Value),
}

/// A ValidatingWebhookConfiguration, validated and its matchConditions compiled.
#[derive(Debug)]
pub struct Configuration {
    name: Option<String>,
    hooks: Vec<Hook>,
}

impl Configuration {
    /// Reads a ValidatingWebhookConfiguration (`webhooks[]` with kube-apiserver's validation; `clientConfig` is not
    /// read) and compiles every webhook's matchConditions.
    pub fn compile(configuration: &Value) -> Result<Self, Error> {
        let webhooks = parse_validating_webhook_configuration(configuration).map_err(|errors| {
            Error::Invalid(
                errors
                    .iter()
                    .map(|e| format!("{}: {}", e.path, e.message))
                    .collect::<Vec<_>>()
                    .join("; "),
            )
        })?;
        if webhooks.is_empty() {
            return Err(Error::NoWebhooks);
        }
        let mut hooks = Vec::with_capacity(webhooks.len());
        let mut problems = Vec::new();
        for (i, webhook) in webhooks.into_iter().enumerate() {
            match Hook::compile(webhook, &format!("webhooks[{i}]")) {
                Ok(hook) => hooks.push(hook),
                Err(mut p) => problems.append(&mut p),
            }
        }
        if !problems.is_empty() {
            return Err(Error::MatchConditions(problems.join("; ")));
        }
        let name = configuration
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .map(str::to_owned);
        Ok(Self { name, hooks })
    }

    /// Applies the configuration to `review` (an AdmissionReview) as kube-apiserver does, asking `cluster` for
    /// namespaces and authorizations and `call` for each webhook's answer, in order.
    pub fn dispatch(
        &self,
        review: &Value,
        cluster: &dyn Cluster,
        call: &mut dyn FnMut(&Call<'_>) -> Result<Value, CallError>,
    ) -> Result<Dispatched, Error> {
        let request = review
            .get("request")
            .filter(|r| r.is_object())
            .ok_or(Error::NoRequest)?;
        let request = AdmissionRequest::deserialize(request)
            .map_err(|e| Error::Request(e.to_string()))?
            .normalized();
        let scope = RequestScope::new(&request, cluster);
        let uid = request.uid.as_str();
        if is_exempt(&scope) {
            return Ok(Dispatched::Skipped(
                "admission configuration objects are never sent to webhooks".into(),
            ));
        }

        // ShouldCallHook for every webhook, in order; a status error rejects the request.
        let mut relevant = Vec::new();
        for (i, hook) in self.hooks.iter().enumerate() {
            match hook.should_call(&scope) {
                Decision::Skip => {}
                Decision::Call => relevant.push((i, hook)),
                Decision::Reject {
                    code,
                    reason,
                    message,
                } => {
                    return Ok(Dispatched::Response(status_response(
                        uid, code, reason, &message,
                    )));
                }
            }
        }
        if relevant.is_empty() {
            let name = self.name.as_deref().unwrap_or("the webhook configuration");
            return Ok(Dispatched::Skipped(format!(
                "no webhook of `{name}` matches the request"
            )));
        }

        let mut rejection: Option<Value> = None;
        let mut answers: Vec<Value> = Vec::new();
        let mut failed_open: BTreeMap<String, String> = BTreeMap::new();
        for (index, hook) in relevant {
            let webhook = &hook.webhook;
            match call_hook(webhook, &request, review, call) {
                Ok(Called::Answered(response)) => {
                    let allowed = response
                        .get("allowed")
                        .and_then(Value::as_bool)
                        .unwrap_or(false);
                    if !allowed && rejection.is_none() {
                        rejection = Some(response.clone());
                    }
                    answers.push(response);
                }
                Ok(Called::Rejected(response)) => {
                    if rejection.is_none() {
                        rejection = Some(response);
                    }
                }
                Err(reason) => {
                    // ErrCallingWebhook: failurePolicy decides
                    let error =
                        format!("failed calling webhook {}: {reason}", quote(&webhook.name));
                    if webhook.failure_policy == FailurePolicy::Ignore {
                        failed_open.insert(
                            format!("{FAILED_OPEN_PREFIX}round_0_index_{index}"),
                            webhook.name.clone(),
                        );
                    } else if rejection.is_none() {
                        rejection = Some(internal_error(uid, &error));
                    }
                }
            }
        }
        if let Some(r) = rejection {
            return Ok(Dispatched::Response(r));
        }
        // Allowed: the webhook's answer (with its warnings and annotations), plus any fail-open notes.
        let mut response = match answers.len() {
            0 => json!({ "uid": uid, "allowed": true }),
            1 => answers.pop().unwrap_or_default(),
            _ => merge_allowed(uid, &answers),
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
        Ok(Dispatched::Response(response))
    }
}

/// What calling one webhook came to, short of a call error.
enum Called {
    /// The webhook answered (a verified response).
    Answered(Value),
    /// The apiserver rejected the request before calling (dryRun to a webhook with side effects).
    Rejected(Value),
}

/// `callHook`: the dryRun check, the review in the webhook's version, the call, the answer verified. `Err` is the
/// reason of an `ErrCallingWebhook`.
fn call_hook(
    webhook: &palisade_matching::Webhook,
    request: &AdmissionRequest,
    review: &Value,
    call: &mut dyn FnMut(&Call<'_>) -> Result<Value, CallError>,
) -> Result<Called, String> {
    let uid = request.uid.as_str();
    if let Err(message) = webhook.check_dry_run(request.is_dry_run()) {
        // webhookerrors.NewDryRunUnsupportedErr: apierrors.NewBadRequest
        return Ok(Called::Rejected(status_response(
            uid,
            400,
            "BadRequest",
            &message,
        )));
    }
    let version = webhook
        .admission_review_version(ACCEPTED_ADMISSION_REVIEW_VERSIONS)
        .ok_or_else(|| {
            "could not create admission objects: webhook does not accept known AdmissionReview versions (v1, v1beta1)"
                .to_owned()
        })?;
    let mut sent = review.clone();
    if let Some(obj) = sent.as_object_mut() {
        obj.insert(
            "apiVersion".into(),
            Value::String(format!("admission.k8s.io/{version}")),
        );
        obj.insert("kind".into(), Value::String("AdmissionReview".into()));
    }
    let answer = call(&Call {
        webhook: &webhook.name,
        review: &sent,
        timeout: Duration::from_secs(u64::from(webhook.timeout_seconds)),
    })
    .map_err(|e| e.reason())?;
    verify(&answer, uid, version)
        .map(Called::Answered)
        .map_err(|e| format!("received invalid webhook response: {e}"))
}

#[cfg(test)]
mod tests;
