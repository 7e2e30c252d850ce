//! A case's `webhook:`: its ValidatingWebhookConfiguration picked out of the file's documents, and applied to the
//! review by [`palisade::webhook`] (kube-apiserver's dispatch, pure) with the module called through a [`Backend`].
//! The harness only reads the documents, runs the module under the webhook's `timeoutSeconds` and reports.

use anyhow::{Result, anyhow, bail};
use palisade::StaticContext;
use palisade::webhook::{Call, CallError, Configuration, Dispatched};
use serde_json::{Value, json};

use crate::backend::{Backend, HostError};
use crate::outcome::Outcome;

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

/// Applies the configuration to the review and, for each webhook that matches, calls the module through `backend`
/// with the case's bundle and context.
pub fn dispatch(
    configuration: &Value,
    bundle: &Value,
    review: &Value,
    context: Option<&Value>,
    backend: &dyn Backend,
) -> Outcome {
    let configuration = match Configuration::compile(configuration) {
        Ok(c) => c,
        Err(e) => return Outcome::Error(e.to_string()),
    };
    let cluster = match context {
        None => StaticContext::default(),
        Some(c) => match serde_json::from_value::<StaticContext>(c.clone()) {
            Ok(cluster) => cluster,
            Err(e) => return Outcome::Error(format!("the context cannot be read: {e}")),
        },
    };
    let mut call = |call: &Call<'_>| {
        backend
            .evaluate(bundle, call.review, context, call.timeout)
            .map_err(|e| match e {
                HostError::Timeout { .. } => CallError::Timeout(e.to_string()),
                _ => CallError::Failed(e.to_string()),
            })
    };
    match configuration.dispatch(review, &cluster, &mut call) {
        Ok(Dispatched::Skipped(why)) => Outcome::Skipped(why),
        Ok(Dispatched::Response(response)) => Outcome::Response(response),
        Err(e) => Outcome::Error(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_configuration_is_picked_and_a_bare_webhook_wrapped() {
        let bare = json!({"name": "a.example.com"});
        assert_eq!(
            pick_configuration(vec![json!({"kind": "Namespace"}), bare.clone()]).unwrap(),
            json!({"webhooks": [bare]})
        );
        let vwc = json!({"kind": "ValidatingWebhookConfiguration", "webhooks": []});
        assert_eq!(pick_configuration(vec![vwc.clone()]).unwrap(), vwc);
        let err = pick_configuration(vec![vwc.clone(), vwc]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "`webhook` holds 2 ValidatingWebhookConfigurations, expected one"
        );
        assert!(pick_configuration(vec![json!({"kind": "MutatingWebhookConfiguration"})]).is_err());
        assert!(pick_configuration(vec![]).is_err());
    }
}
