//! A decision as data: the denials, warnings and audit annotations one policy (or the whole bundle) gives a request,
//! and how they become an AdmissionResponse. The dispatchers ([`crate::vap`], [`crate::certificates`]) produce
//! verdicts and the engine joins them; this module depends on neither.

use crate::review::{AdmissionResponse, Status, StatusCause, StatusDetails};

/// One policy's verdict on a request, as data.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Verdict {
    /// Denials in evaluation order; the first writes `status.message`.
    pub denials: Vec<Denial>,
    pub warnings: Vec<String>,
    pub audit_annotations: Vec<(String, String)>,
}

/// A denial: HTTP code, metav1 reason and the message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Denial {
    pub code: u16,
    pub reason: String,
    pub message: String,
}

impl Verdict {
    /// Add everything another verdict says after what this one says.
    pub fn extend(&mut self, other: Verdict) {
        self.denials.extend(other.denials);
        self.warnings.extend(other.warnings);
        self.audit_annotations.extend(other.audit_annotations);
    }

    /// Turn the verdict into the AdmissionResponse for request `uid`.
    pub fn into_response(self, uid: &str) -> AdmissionResponse {
        let mut response = AdmissionResponse::allow(uid);
        if let Some(first) = self.denials.first() {
            // Every denial is a cause (kube-apiserver lists the first denial's message as its one cause).
            let causes = self
                .denials
                .iter()
                .map(|d| StatusCause {
                    reason: String::new(),
                    message: d.message.clone(),
                    field: String::new(),
                })
                .collect();
            response.allowed = false;
            response.status = Some(Status {
                code: Some(first.code),
                message: first.message.clone(),
                reason: first.reason.clone(),
                details: Some(StatusDetails { causes }),
            });
        }
        response.warnings = self.warnings;
        for (key, value) in self.audit_annotations {
            response.audit_annotations.entry(key).or_insert(value);
        }
        response
    }
}
