//! The browser adapter (wasm-bindgen, feature `web`): a thin decode → call → encode over [`crate::api`], as the C ABI
//! is. JavaScript sees:
//!
//! - `new Engine(bundleJson)`: compiles the bundle; a bundle that does not compile throws an `Error` whose message is
//!   `configure`'s answer (`{"valid":false,"message":…,"problems":[…]}`, JSON);
//! - `engine.validate(inputJson)`: an AdmissionReview, or `{"review":…,"context":…}`; answers the AdmissionReview
//!   JSON, exactly as the C ABI's `validate`;
//! - `engine.diagnostics()`: the warnings about a bundle that compiles (JSON list of problems);
//! - `engine.explain(inputJson)`: the explain trace (JSON, [`crate::explain::Trace`]);
//! - `scaffoldReview(manifestJson, operation, oldObjectJson, userJson, uid)`: an AdmissionReview for a manifest
//!   ([`crate::scaffold`]); the uid is the caller's (the engine takes no randomness);
//! - `bundleFromDocuments(documentsJson)`: the bundle a list of YAML documents stands for, as the CLI reads a file;
//! - `engine.dispatchWebhook(webhookDocumentsJson, reviewJson, contextJson)`: the request through a
//!   ValidatingWebhookConfiguration as kube-apiserver dispatches it ([`crate::webhook`]), this engine answering each
//!   webhook that matches.

use wasm_bindgen::prelude::*;

use crate::api::{self, Configured};

/// A compiled bundle: always [`Configured::Ready`] (the constructor throws otherwise).
#[wasm_bindgen]
pub struct Engine {
    inner: Configured,
}

#[wasm_bindgen]
impl Engine {
    /// Compile a bundle (JSON); throws `configure`'s answer when it does not compile.
    #[wasm_bindgen(constructor)]
    pub fn new(bundle_json: &str) -> Result<Engine, JsError> {
        let inner = api::configure(bundle_json.as_bytes());
        match inner {
            Configured::Ready(_) => Ok(Engine { inner }),
            Configured::Never(_) | Configured::Rejected(_) => Err(JsError::new(&inner.answer())),
        }
    }

    /// Decide one input; the AdmissionReview answer (JSON).
    pub fn validate(&self, input_json: &str) -> String {
        self.inner.validate(input_json.as_bytes())
    }

    /// Decide one input and say how (JSON).
    pub fn explain(&self, input_json: &str) -> String {
        self.inner.explain(input_json.as_bytes())
    }

    /// Applies the ValidatingWebhookConfiguration among `webhook_documents_json` (a JSON list of documents) to a review
    /// as kube-apiserver would, this engine answering every webhook that matches, with the context (JSON; an empty
    /// string for none). Answers JSON: `{"skipped": why}` when no webhook is called, `{"response": AdmissionResponse}`
    /// (the webhook's answer, or the apiserver's own: a dryRun rejection, a failed call under failurePolicy Fail), or
    /// `{"error": message}` when the configuration, the review or the context cannot be used; beside the first two,
    /// `configuration` (the ValidatingWebhookConfiguration picked from the documents) and `called` (the names of the
    /// webhooks this engine answered, in order).
    #[wasm_bindgen(js_name = dispatchWebhook)]
    pub fn dispatch_webhook(
        &self,
        webhook_documents_json: &str,
        review_json: &str,
        context_json: &str,
    ) -> String {
        let mut called: Vec<String> = Vec::new();
        let mut picked = serde_json::Value::Null;
        let dispatched = (|| {
            let documents: Vec<serde_json::Value> = serde_json::from_str(webhook_documents_json)
                .map_err(|e| format!("the webhook documents are not a JSON list: {e}"))?;
            picked = crate::webhook::pick_configuration(documents).map_err(|e| e.to_string())?;
            let review: serde_json::Value = serde_json::from_str(review_json)
                .map_err(|e| format!("the review is not JSON: {e}"))?;
            let context: Option<serde_json::Value> = if context_json.trim().is_empty() {
                None
            } else {
                Some(
                    serde_json::from_str(context_json)
                        .map_err(|e| format!("the context is not JSON: {e}"))?,
                )
            };
            let mut call = |call: &crate::webhook::Call<'_>| {
                called.push(call.webhook.to_owned());
                let input = serde_json::json!({"review": call.review, "context": context});
                serde_json::from_str(&self.inner.validate(input.to_string().as_bytes())).map_err(
                    |e| crate::webhook::CallError::Failed(format!("the answer is not JSON: {e}")),
                )
            };
            crate::webhook::apply(&picked, &review, context.as_ref(), &mut call)
                .map_err(|e| e.to_string())
        })();
        let answer = match dispatched {
            Ok(crate::webhook::Dispatched::Skipped(why)) => {
                serde_json::json!({ "skipped": why, "configuration": picked, "called": called })
            }
            Ok(crate::webhook::Dispatched::Response(response)) => {
                serde_json::json!({ "response": response, "configuration": picked, "called": called })
            }
            Err(message) => serde_json::json!({ "error": message }),
        };
        answer.to_string()
    }

    /// Warnings about the bundle (JSON list of `{document, path, message, help}`).
    pub fn diagnostics(&self) -> String {
        let diagnostics = self.inner.engine().map_or(&[][..], |e| e.diagnostics());
        serde_json::to_string(diagnostics).unwrap_or_else(|_| "[]".to_owned())
    }
}

/// An AdmissionReview (JSON) for a manifest (JSON). `oldObjectJson` and `userJson` (`{"username", "groups"}`) may be
/// empty strings.
#[wasm_bindgen(js_name = scaffoldReview)]
pub fn scaffold_review(
    manifest_json: &str,
    operation: &str,
    old_object_json: &str,
    user_json: &str,
    uid: &str,
) -> Result<String, JsError> {
    let read = |text: &str, what: &str| -> Result<Option<serde_json::Value>, JsError> {
        if text.trim().is_empty() {
            return Ok(None);
        }
        serde_json::from_str(text)
            .map(Some)
            .map_err(|e| JsError::new(&format!("{what} is not valid JSON: {e}")))
    };
    let manifest = read(manifest_json, "the manifest")?
        .ok_or_else(|| JsError::new("the manifest is empty"))?;
    let mut options = crate::scaffold::Options {
        operation: operation.to_owned(),
        old_object: read(old_object_json, "the old object")?,
        uid: Some(uid.to_owned()).filter(|u| !u.is_empty()),
        ..crate::scaffold::Options::default()
    };
    if let Some(user) = read(user_json, "the user")? {
        if let Some(name) = user.get("username").and_then(serde_json::Value::as_str) {
            name.clone_into(&mut options.username);
        }
        if let Some(groups) = user.get("groups").and_then(serde_json::Value::as_array) {
            options.groups = groups
                .iter()
                .filter_map(serde_json::Value::as_str)
                .map(str::to_owned)
                .collect();
        }
    }
    let review = crate::scaffold::review(&manifest, &options).map_err(|e| JsError::new(&e))?;
    Ok(review.to_string())
}

/// The bundle (JSON) that a list of documents (JSON array, e.g. a parsed YAML stream) stands for
/// ([`crate::bundle::from_documents`]).
#[wasm_bindgen(js_name = bundleFromDocuments)]
pub fn bundle_from_documents(documents_json: &str) -> Result<String, JsError> {
    let documents: Vec<serde_json::Value> = serde_json::from_str(documents_json)
        .map_err(|e| JsError::new(&format!("the documents are not a JSON list: {e}")))?;
    Ok(crate::bundle::from_documents(documents).to_string())
}
