#![doc = include_str!("../README.md")]

pub mod api;
pub mod bundle;
pub mod certificates;
pub mod context;
mod document;
pub mod engine;
pub mod explain;
mod jsonpath;
pub mod kubewarden;
pub mod review;
pub mod scaffold;
pub mod vap;
pub mod verdict;

pub mod abi;

pub use bundle::{ConfigError, Diagnostic, ExpressionPosition, Severity};
pub use context::{AccessQuery, Cluster, StaticContext};
pub use engine::Engine;
/// The tape the request objects are read into.
pub use palisade_json as json;
pub use review::{AdmissionRequest, AdmissionResponse};
