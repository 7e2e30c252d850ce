//! CertificateRequestPolicy: cert-manager approver-policy's decision at admission time, over the
//! `palisade-certificates` crate. This adapter decides which requests are CertificateRequest creations; the crate
//! asks the host's [`Cluster`] itself.

use palisade_cel_kubernetes::cluster::Cluster;
use palisade_certificates::{Decision, Settings};

use crate::bundle::{Bundle, Diagnostic, Kind, Problems, Unmatched};
use crate::explain::CertificateTrace;
use crate::review::AdmissionRequest;
use crate::verdict::{Denial, Verdict};

/// The compiled CertificateRequestPolicies of a bundle.
#[derive(Debug, Default)]
pub struct Policies {
    /// `None` when the bundle has no CertificateRequestPolicy and no `certificateRequests` settings: then
    /// CertificateRequests are not Palisade's business.
    inner: Option<palisade_certificates::Policies>,
}

impl Policies {
    pub fn compile(bundle: &Bundle<'_>, problems: &mut Problems) -> Self {
        let docs: Vec<(usize, &serde_json::Value)> =
            bundle.of_kind(Kind::CertificateRequestPolicy).collect();
        let settings = &bundle.certificate_requests;
        if docs.is_empty() && !settings.explicit {
            return Self { inner: None };
        }
        let settings = Settings {
            unmatched: match settings.unmatched {
                Unmatched::Deny => palisade_certificates::Unmatched::Deny,
                Unmatched::Allow => palisade_certificates::Unmatched::Allow,
            },
            require_use_permission: settings.require_use_permission,
        };
        let cel_budget = problems.cel_left();
        let inner = palisade_certificates::Policies::compile_reporting(
            &docs,
            settings,
            cel_budget,
            |doc, e| {
                problems.push_with(|| {
                    let source = docs
                        .iter()
                        .find(|(i, _)| *i == doc)
                        .and_then(|(_, v)| crate::bundle::value_at(v, &e.path))
                        .and_then(serde_json::Value::as_str)
                        .unwrap_or_default();
                    Diagnostic::in_document(doc, &e.path, e.message).in_expression(source)
                });
            },
        );
        Self { inner }
    }

    /// Decide a CertificateRequest CREATE; every other request gets no verdict from here. With `trace` (explain), the
    /// decision is recorded there too.
    pub fn review(
        &self,
        request: &AdmissionRequest,
        cluster: &dyn Cluster,
        trace: Option<&mut Option<CertificateTrace>>,
    ) -> Verdict {
        let mut verdict = Verdict::default();
        let Some(inner) = &self.inner else {
            return verdict;
        };
        let is_certificate_request =
            request.kind.group == "cert-manager.io" && request.kind.kind == "CertificateRequest";
        if !is_certificate_request
            || request.operation != "CREATE"
            || !request.sub_resource.is_empty()
        {
            return verdict;
        }
        let Some(object) = request.object() else {
            verdict.denials.push(Denial {
                code: 400,
                reason: "BadRequest".to_owned(),
                message: "a CertificateRequest CREATE must carry the object".to_owned(),
            });
            return verdict;
        };
        let decision = inner.evaluate_doc(object.root(), cluster);
        if let Some(trace) = trace {
            *trace = Some(match &decision {
                Decision::Approved { policy } => CertificateTrace {
                    decision: "approved",
                    policy: Some(policy.clone()),
                    message: String::new(),
                },
                Decision::Denied { message } => CertificateTrace {
                    decision: "denied",
                    policy: None,
                    message: message.clone(),
                },
                Decision::Error { message } => CertificateTrace {
                    decision: "error",
                    policy: None,
                    message: message.clone(),
                },
                Decision::Unmatched { message } => CertificateTrace {
                    decision: "unmatched",
                    policy: None,
                    message: message.clone(),
                },
            });
        }
        match decision {
            Decision::Approved { .. } | Decision::Unmatched { .. } => {}
            Decision::Denied { message } | Decision::Error { message } => {
                verdict.denials.push(Denial {
                    code: 403,
                    reason: "Forbidden".to_owned(),
                    message,
                });
            }
        }
        verdict
    }
}
