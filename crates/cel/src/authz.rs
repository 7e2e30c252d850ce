//! The Kubernetes authorizer library (`authorizer.group(g).resource(r)….check(verb)`), after
//! k8s.io/apiserver/pkg/cel/library/authz.go. The host answers checks through [`Authorizer`].

/// One authorization question, as `authorizer` builds it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AuthzCheck {
    pub verb: String,
    pub api_group: String,
    pub resource: String,
    pub subresource: String,
    pub namespace: String,
    pub name: String,
    /// Set for `authorizer.path(p).check(verb)`; then the resource fields are empty.
    pub path: Option<String>,
    /// Set after `authorizer.serviceAccount(namespace, name)`: the subject is that service account.
    pub service_account: Option<(String, String)>,
    pub field_selector: Option<String>,
    pub label_selector: Option<String>,
}

/// The host's answer.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AuthzDecision {
    pub allowed: bool,
    pub reason: String,
}

/// Answers authorization checks for the requesting user.
pub trait Authorizer {
    /// `Err` is reported through the decision's `errored()` / `error()`, as Kubernetes does.
    fn check(&self, attrs: &AuthzCheck) -> Result<AuthzDecision, String>;
}

/// Runtime values of the authorizer library.
pub enum AuthzValue<'a> {
    Authorizer {
        authz: Option<&'a dyn Authorizer>,
        service_account: Option<(String, String)>,
    },
    Path {
        authz: Option<&'a dyn Authorizer>,
        service_account: Option<(String, String)>,
        path: String,
    },
    Group {
        authz: Option<&'a dyn Authorizer>,
        check: AuthzCheck,
    },
    Resource {
        authz: Option<&'a dyn Authorizer>,
        check: AuthzCheck,
    },
    Decision {
        decision: Option<AuthzDecision>,
        error: Option<String>,
    },
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
            AuthzValue::Decision { .. } => T_DECISION,
        }
    }
}

/// Runs a check; a missing authorizer or a host error becomes an errored decision.
pub(crate) fn run(authz: Option<&dyn Authorizer>, check: &AuthzCheck) -> AuthzValue<'static> {
    match authz {
        None => AuthzValue::Decision {
            decision: None,
            error: Some("no authorizer is available".to_string()),
        },
        Some(a) => match a.check(check) {
            Ok(d) => AuthzValue::Decision {
                decision: Some(d),
                error: None,
            },
            Err(e) => AuthzValue::Decision {
                decision: None,
                error: Some(e),
            },
        },
    }
}
