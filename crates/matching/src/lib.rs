//! kube-apiserver's admission matching, as a pure library: which requests a
//! ValidatingAdmissionPolicy, a binding or a validating webhook sees.
//!
//! The specification is k8s.io/apiserver: `pkg/admission/plugin/webhook/predicates/{rules,namespace,object}`,
//! `pkg/admission/plugin/policy/matching` and `pkg/admission/plugin/webhook/generic`, with the
//! API server's validation of admissionregistration objects
//! (`pkg/apis/admissionregistration/validation` in kubernetes/kubernetes) deciding what a bundle
//! must reject. Every parse error names its field path and uses the API server's wording.
//!
//! ```
//! use palisade_cel_kubernetes::cluster::NoCluster;
//! use palisade_matching::{Attributes, Gvk, Gvr, MatchResources};
//! let mr = MatchResources::parse(&serde_json::json!({
//!     "resourceRules": [{"operations": ["CREATE"], "apiGroups": ["apps"],
//!                        "apiVersions": ["v1"], "resources": ["deployments"]}]
//! }), "spec.matchConstraints").unwrap();
//! let a = Attributes {
//!     operation: "CREATE",
//!     resource: Gvr::new("extensions", "v1beta1", "deployments"),
//!     kind: Gvk::new("extensions", "v1beta1", "Deployment"),
//!     namespace: "default", name: "web",
//!     ..Attributes::default()
//! };
//! // matchPolicy defaults to Equivalent: extensions/v1beta1 deployments match as apps/v1
//! let m = mr.matches(&a, &NoCluster).unwrap().unwrap();
//! assert_eq!(m.resource, Gvr::new("apps", "v1", "deployments"));
//! assert_eq!(m.kind, Gvk::new("apps", "v1", "Deployment"));
//! ```

mod attributes;
mod equivalence;
mod field;
mod index;
mod match_resources;
mod names;
mod predicates;
mod rules;
mod selector;
mod webhook;

pub use attributes::{Attributes, Given, Gvk, Gvr, Objects};
pub use equivalence::{BuiltinEquivalences, EquivalentResourceMapper, FAMILIES, Member, family_of};
pub use field::FieldError;
pub use index::Index;
pub use match_resources::{MatchPolicy, MatchResources, Mismatch};
pub use predicates::{MatchError, Matched};
pub use rules::{NamedRuleWithOperations, RuleWithOperations, Scope};
pub use selector::LabelSelector;
pub use webhook::{
    ACCEPTED_ADMISSION_REVIEW_VERSIONS, DEFAULT_TIMEOUT_SECONDS, FailurePolicy, MatchCondition,
    SideEffectClass, Webhook, parse_validating_webhook_configuration,
};

/// Upstream's exemption of admission configuration objects (`IsExemptAdmissionConfigurationResource`):
/// webhooks are never called for ValidatingWebhookConfiguration, MutatingWebhookConfiguration,
/// ValidatingAdmissionPolicy(Binding) and MutatingAdmissionPolicy(Binding) requests.
pub fn is_webhook_configuration_exempt(a: &Attributes<'_>) -> bool {
    let kind = a.effective_kind();
    kind.group == "admissionregistration.k8s.io"
        && matches!(
            kind.kind,
            "ValidatingWebhookConfiguration"
                | "MutatingWebhookConfiguration"
                | "ValidatingAdmissionPolicy"
                | "ValidatingAdmissionPolicyBinding"
                | "MutatingAdmissionPolicy"
                | "MutatingAdmissionPolicyBinding"
        )
}
