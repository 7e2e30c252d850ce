//! A case's `webhook:`: its ValidatingWebhookConfiguration picked out of the file's documents, and applied to the
//! review by [`palisade::webhook`] (kube-apiserver's dispatch, pure) with the module called through a [`Backend`].
//! The harness only reads the documents, runs the module under the webhook's `timeoutSeconds` and reports.

use anyhow::{Result, anyhow};
use palisade::webhook::{Call, CallError, Dispatched};
use serde_json::Value;

use crate::backend::{Backend, HostError};
use crate::outcome::Outcome;

/// The ValidatingWebhookConfiguration of a case's `webhook:` documents ([`palisade::webhook::pick_configuration`]).
pub fn pick_configuration(docs: Vec<Value>) -> Result<Value> {
    palisade::webhook::pick_configuration(docs).map_err(|e| anyhow!("in `webhook`: {e}"))
}

/// Applies the configuration to the review and, for each webhook that matches, calls the module through `backend`
/// with the case's bundle and context.
pub fn dispatch(
    configuration: &Value,
    bundle: &Value,
    review: &Value,
    context: Option<&Value>,
    backend: &dyn Backend,
) -> Outcome {
    let mut call = |call: &Call<'_>| {
        backend
            .evaluate(bundle, call.review, context, call.timeout)
            .map_err(|e| match e {
                HostError::Timeout { .. } => CallError::Timeout(e.to_string()),
                _ => CallError::Failed(e.to_string()),
            })
    };
    match palisade::webhook::apply(configuration, review, context, &mut call) {
        Ok(Dispatched::Skipped(why)) => Outcome::Skipped(why),
        Ok(Dispatched::Response(response)) => Outcome::Response(response),
        Err(e) => Outcome::Error(e.to_string()),
    }
}
