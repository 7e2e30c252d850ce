//! What every way of running the module offers the harness: the C ABI host (`host.rs`) and the
//! Kubewarden waPC runner (`kubewarden.rs`) both implement [`Backend`].

use std::time::Duration;

use serde_json::Value;

/// Why a call into a guest did not produce an answer. Never a harness crash: each case that
/// meets one is reported with this reason (and, behind a webhook, handed to its failurePolicy).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HostError {
    /// The module could not be read, compiled, linked or instantiated, or lacks an export.
    #[error("cannot load module `{module}`: {reason}")]
    Load { module: String, reason: String },
    /// The guest trapped (unreachable, out-of-bounds access, stack overflow, …).
    #[error("`{call}` trapped: {reason}")]
    Trap { call: String, reason: String },
    /// The guest ran past its epoch deadline.
    #[error("`{call}` timed out after {}", fmt_duration(*.deadline))]
    Timeout { call: String, deadline: Duration },
    /// The guest tried to grow its memory past the store's limit.
    #[error("`{call}` exceeded the memory limit of {limit} bytes")]
    MemoryLimit { call: String, limit: usize },
    /// The guest answered, but not with what the protocol requires (pointer out of bounds,
    /// invalid UTF-8, not JSON, wrong JSON shape).
    #[error("`{call}` returned a malformed answer: {reason}")]
    BadOutput { call: String, reason: String },
    /// The host side could not prepare the call (e.g. an input that cannot be encoded).
    #[error("{0}")]
    Host(String),
}

impl HostError {
    /// The call that failed, when there is one.
    pub fn call(&self) -> Option<&str> {
        match self {
            Self::Trap { call, .. }
            | Self::Timeout { call, .. }
            | Self::MemoryLimit { call, .. }
            | Self::BadOutput { call, .. } => Some(call),
            Self::Load { .. } | Self::Host(_) => None,
        }
    }
}

pub(crate) fn fmt_duration(d: Duration) -> String {
    if d.as_millis() >= 1000 && d.subsec_millis() == 0 {
        format!("{}s", d.as_secs())
    } else {
        format!("{}ms", d.as_millis())
    }
}

/// One way of running the module: configure + validate on a fresh instance, or configure only.
pub trait Backend {
    fn name(&self) -> &'static str;
    /// configure + validate in a fresh instance; returns the AdmissionReview (response) JSON
    fn evaluate(
        &self,
        bundle: &Value,
        review: &Value,
        context: Option<&Value>,
        deadline: Duration,
    ) -> Result<Value, HostError>;
    /// configure only: Ok(None) valid, Ok(Some(message)) invalid
    fn check(&self, bundle: &Value) -> Result<Option<String>, HostError>;
}
