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
mod match_conditions;
pub mod review;
pub mod scaffold;
mod scope;
pub mod vap;
pub mod verdict;
pub mod webhook;

pub mod abi;

pub use bundle::{ConfigError, Diagnostic, ExpressionPosition, Severity};
pub use context::StaticContext;
pub use engine::Engine;
/// The one host trait and its types (`palisade_cel_kubernetes::cluster`): what the engine may ask the cluster.
pub use palisade_cel_kubernetes::cluster::{self, AccessDecision, AccessQuery, Cluster, HostError};
/// The tape the request objects are read into.
pub use palisade_json as json;
pub use review::{AdmissionRequest, AdmissionResponse};
