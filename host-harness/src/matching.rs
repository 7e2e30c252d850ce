//! Which webhooks of a configuration a request reaches — the adapter between the harness and
//! the `palisade-matching` crate (rules, namespaceSelector, objectSelector, matchPolicy, the
//! exemption of admission configuration objects) and `palisade-cel` (matchConditions).

use anyhow::{Result, bail};
use serde_json::Value;

/// What `ShouldCallHook` decided for one webhook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    Skip,
    Call,
    /// The apiserver rejects the request itself (e.g. a namespace it cannot look up).
    Reject { code: u16, reason: String, message: String },
}

/// Matches one request (with its context's namespaces) against webhook entries.
pub struct WebhookMatcher<'a> {
    #[allow(dead_code)]
    request: &'a Value,
    #[allow(dead_code)]
    context: Option<&'a Value>,
}

impl<'a> WebhookMatcher<'a> {
    pub fn new(request: &'a Value, context: Option<&'a Value>) -> Result<Self> {
        Ok(Self { request, context })
    }

    pub fn is_exempt(&self) -> bool {
        false
    }

    pub fn should_call(&self, _hook: &Value, _path: &str) -> Result<Decision> {
        bail!("webhook matching is not available yet: palisade-matching is not wired into the harness")
    }
}
