//! `palisade scaffold review MANIFEST --operation CREATE`: the engine's [`palisade::scaffold`], with errors as
//! `anyhow` errors for the CLI.

use anyhow::Result;
use serde_json::Value;

pub use palisade::scaffold::{Options, guess_resource, resource_for_kind};

/// Builds the AdmissionReview for one manifest ([`palisade::scaffold::review`]).
pub fn review(manifest: &Value, opts: &Options) -> Result<Value> {
    palisade::scaffold::review(manifest, opts).map_err(anyhow::Error::msg)
}
