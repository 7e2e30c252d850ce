//! What running a case produced, whoever produced it: the module through a backend, or the webhook dispatch in front
//! of it (`crate::webhook`), which decides skips and failurePolicy answers itself.

use serde_json::Value;

/// What running a case produced.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// `configure` rejected the bundle with this message.
    BundleError(String),
    /// The webhook configuration did not send the request to the module.
    Skipped(String),
    /// The AdmissionReview `response` object (from the module, or from the apiserver's own
    /// rejection or failurePolicy when a webhook is given).
    Response(Value),
    /// The module could not answer and no webhook failurePolicy applies.
    Error(String),
}
