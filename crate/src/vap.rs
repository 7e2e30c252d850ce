//! ValidatingAdmissionPolicy and its bindings (being wired: see CHANGELOG).

use crate::bundle::{Bundle, Kind, Problem};
use crate::context::Cluster;
use crate::engine::Verdict;
use crate::review::AdmissionRequest;

/// The compiled ValidatingAdmissionPolicies and bindings of a bundle.
#[derive(Debug, Default)]
pub struct Policies {}

impl Policies {
    pub fn compile(bundle: &Bundle<'_>, problems: &mut Vec<Problem>, _diagnostics: &mut Vec<Problem>) -> Self {
        for kind in [Kind::ValidatingAdmissionPolicy, Kind::ValidatingAdmissionPolicyBinding] {
            for (i, _) in bundle.of_kind(kind) {
                problems.push(Problem::in_document(i, "kind", format!("`{kind:?}` is not supported by this build yet")));
            }
        }
        Self {}
    }

    pub fn review(&self, _request: &AdmissionRequest, _cluster: &dyn Cluster) -> Verdict {
        Verdict::default()
    }
}
