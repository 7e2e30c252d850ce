//! The Kubernetes authorizer library (`authorizer.group(g).resource(r)….check(verb)`), after
//! k8s.io/apiserver/pkg/cel/library/authz.go. The builder, its validation and the question put
//! to the host are `palisade_cel_kubernetes::authz`; this module wraps them as CEL values and
//! asks the host through [`Authorizer`].

use palisade_cel_kubernetes::authz as k8s;

pub use k8s::{AuthzCheck, User};

/// The host's answer.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AuthzDecision {
    pub allowed: bool,
    pub reason: String,
}

/// Answers authorization checks (for the requesting user, or the service account named by
/// `authorizer.serviceAccount(ns, name)`: [`AuthzCheck::user`]).
pub trait Authorizer {
    /// `Err` is reported through the decision's `errored()` / `error()`, as Kubernetes does.
    fn check(&self, attrs: &AuthzCheck) -> Result<AuthzDecision, String>;
}

/// Runtime values of the authorizer library.
pub enum AuthzValue<'a> {
    Authorizer {
        authz: Option<&'a dyn Authorizer>,
        authorizer: k8s::Authorizer,
    },
    Path {
        authz: Option<&'a dyn Authorizer>,
        check: k8s::PathCheck,
    },
    Group {
        authz: Option<&'a dyn Authorizer>,
        check: k8s::GroupCheck,
    },
    Resource {
        authz: Option<&'a dyn Authorizer>,
        check: Box<k8s::ResourceCheck>,
    },
    Decision(k8s::Decision),
}

impl std::fmt::Debug for AuthzValue<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.type_name())
    }
}

pub(crate) const T_AUTHORIZER: &str = "kubernetes.authorization.Authorizer";
pub(crate) const T_PATH: &str = "kubernetes.authorization.PathCheck";
pub(crate) const T_GROUP: &str = "kubernetes.authorization.GroupCheck";
pub(crate) const T_RESOURCE: &str = "kubernetes.authorization.ResourceCheck";
pub(crate) const T_DECISION: &str = "kubernetes.authorization.Decision";

impl AuthzValue<'_> {
    pub fn type_name(&self) -> &'static str {
        match self {
            AuthzValue::Authorizer { .. } => T_AUTHORIZER,
            AuthzValue::Path { .. } => T_PATH,
            AuthzValue::Group { .. } => T_GROUP,
            AuthzValue::Resource { .. } => T_RESOURCE,
            AuthzValue::Decision(_) => T_DECISION,
        }
    }
}

/// Puts a check to the host; a missing authorizer or a host error becomes an errored decision.
pub(crate) fn run(authz: Option<&dyn Authorizer>, check: &AuthzCheck) -> k8s::Decision {
    let answer = match authz {
        None => Err("no authorizer is available".to_string()),
        Some(a) => a.check(check),
    };
    match answer {
        Ok(d) => k8s::Decision {
            allowed: d.allowed,
            reason: d.reason,
            error: None,
        },
        Err(e) => k8s::Decision {
            allowed: false,
            reason: String::new(),
            error: Some(e),
        },
    }
}
