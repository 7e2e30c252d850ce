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
//! - `bundleFromDocuments(documentsJson)`: the bundle a list of YAML documents stands for, as the CLI reads a file.

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
