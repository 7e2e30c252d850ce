//! The Kubernetes authorizer library (`authorizer.group(g).resource(r)….check(verb)`), after
//! k8s.io/apiserver/pkg/cel/library/authz.go. The builder, its validation and the question put
//! to the host are `palisade_cel_kubernetes::authz`; this module wraps them as CEL values and
//! asks the host through its [`Cluster`] (for the requesting user, or the service account named
//! by `authorizer.serviceAccount(ns, name)`).

use palisade_cel_kubernetes::authz as k8s;
use palisade_cel_kubernetes::cluster::{AccessQuery, Cluster};

pub use k8s::User;

/// Runtime values of the authorizer library.
pub enum AuthzValue<'a> {
    Authorizer {
        authz: Option<&'a dyn Cluster>,
        authorizer: k8s::Authorizer,
    },
    Path {
        authz: Option<&'a dyn Cluster>,
        check: k8s::PathCheck,
    },
    Group {
        authz: Option<&'a dyn Cluster>,
        check: k8s::GroupCheck,
    },
    Resource {
        authz: Option<&'a dyn Cluster>,
        check: Box<k8s::ResourceCheck>,
    },
    Decision(k8s::Decision),
}

impl std::fmt::Debug for AuthzValue<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.type_name())
    }
}

pub const T_AUTHORIZER: &str = "kubernetes.authorization.Authorizer";
pub const T_PATH: &str = "kubernetes.authorization.PathCheck";
pub const T_GROUP: &str = "kubernetes.authorization.GroupCheck";
pub const T_RESOURCE: &str = "kubernetes.authorization.ResourceCheck";
pub const T_DECISION: &str = "kubernetes.authorization.Decision";

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

/// Puts a question to the host; a missing host or a host error becomes an errored decision.
pub fn run(authz: Option<&dyn Cluster>, query: &AccessQuery) -> k8s::Decision {
    k8s::Decision::ask(authz, query)
}
