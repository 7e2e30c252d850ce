//! The engine: a compiled bundle that answers AdmissionRequests. Pure: no I/O, clock or randomness.

use palisade_cel_kubernetes::cluster::Cluster;
use serde_json::Value;

use crate::bundle::{self, ConfigError, Diagnostic, Kind, Problems, Severity};
use crate::explain::Trace;
use crate::review::{AdmissionRequest, AdmissionResponse};

pub use crate::verdict::{Denial, Verdict};

/// A compiled bundle. Build it once with [`Engine::new`], then call [`Engine::review`] for every request.
#[derive(Debug)]
pub struct Engine {
    vap: crate::vap::Policies,
    certificates: crate::certificates::Policies,
    diagnostics: Vec<Diagnostic>,
}

impl Engine {
    /// Parse and compile a whole bundle (docs/architecture.md, "The bundle"). Every problem is returned at once.
    pub fn new(bundle: &Value) -> Result<Self, ConfigError> {
        let mut problems = Problems::new();
        let read = bundle::read(bundle, &mut problems);
        let mut diagnostics = Vec::new();
        let vap = crate::vap::Policies::compile(&read, &mut problems, &mut diagnostics);
        let certificates = crate::certificates::Policies::compile(&read, &mut problems);
        // Documents of every kind are handled above; this keeps the compiler honest when a kind is added.
        debug_assert!(read.documents.iter().all(|(_, k, _)| matches!(
            k,
            Kind::ValidatingAdmissionPolicy
                | Kind::ValidatingAdmissionPolicyBinding
                | Kind::CertificateRequestPolicy
        )));
        for d in &mut diagnostics {
            d.severity = Severity::Warning;
        }
        if problems.is_empty() {
            Ok(Self {
                vap,
                certificates,
                diagnostics,
            })
        } else {
            Err(ConfigError::from(problems))
        }
    }

    /// Warnings about a bundle that compiles but may not do what its author meant (a policy without a binding…).
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// Decide one request. Pure and reusable; cluster state is asked for lazily through `cluster`.
    pub fn review(&self, request: &AdmissionRequest, cluster: &dyn Cluster) -> AdmissionResponse {
        let mut verdict = self.vap.review(request, cluster);
        verdict.extend(self.certificates.review(request, cluster, None));
        verdict.into_response(&request.uid)
    }

    /// Decide one request as [`Engine::review`] does, and say how ([`crate::explain`]): the same decision, with every
    /// policy's and binding's match, every expression's value and cost. The trace's `verdict` is left for the caller
    /// (the `api` level fills it with the AdmissionReview answer).
    pub fn explain(
        &self,
        request: &AdmissionRequest,
        cluster: &dyn Cluster,
    ) -> (AdmissionResponse, Trace) {
        let mut trace = Trace::default();
        let mut verdict = self.vap.review_with(request, cluster, Some(&mut trace));
        verdict.extend(self.certificates.review(
            request,
            cluster,
            Some(&mut trace.certificate_request),
        ));
        (verdict.into_response(&request.uid), trace)
    }
}
