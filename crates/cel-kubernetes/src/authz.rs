//! Authorization checks: the CEL `authorizer` library
//! (`k8s.io/apiserver/pkg/cel/library/authz.go`).
//!
//! The builder mirrors the CEL call chain; the finished question is a [`cluster::AccessQuery`],
//! which the host answers ([`cluster::Cluster::authorize`]: Kubewarden `can_i`, or the context
//! object), and its answer comes back as a [`Decision`].
//!
//! | CEL | Rust |
//! |---|---|
//! | `authorizer` | [`Authorizer::new`] with the request's user |
//! | `authorizer.serviceAccount(ns, name)` | [`Authorizer::service_account`] |
//! | `authorizer.path(p)` | [`Authorizer::path`] |
//! | `authorizer.group(g).resource(r)` | [`Authorizer::group`], [`GroupCheck::resource`] |
//! | `.subresource(s)`, `.namespace(n)`, `.name(n)`, `.fieldSelector(f)`, `.labelSelector(l)` | [`ResourceCheck`] setters |
//! | `.check(verb)` | [`PathCheck::check`] / [`ResourceCheck::check`] |
//! | `d.allowed()`, `d.reason()`, `d.errored()`, `d.error()` | [`Decision`] methods |

use std::collections::BTreeMap;

use crate::cluster::{self, AccessDecision, AccessQuery, HostError};
use crate::validation::{is_dns1123_label, is_dns1123_subdomain};

/// Errors raised while building a check, worded as upstream.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AuthzError {
    /// `authorizer.path('')`.
    #[error("path must not be empty")]
    EmptyPath,
    /// `authorizer.group(g).resource('')`.
    #[error("resource must not be empty")]
    EmptyResource,
    /// `authorizer.serviceAccount(ns, name)` with a name that is not a DNS subdomain.
    #[error("Invalid service account name")]
    InvalidServiceAccountName,
    /// `authorizer.serviceAccount(ns, name)` with a namespace that is not a DNS label.
    #[error("Invalid service account namespace")]
    InvalidServiceAccountNamespace,
}

/// The user a check is made for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct User {
    /// The username.
    pub name: String,
    /// The user's UID.
    pub uid: String,
    /// The user's groups.
    pub groups: Vec<String>,
    /// The user's extra attributes (none for a service account named by
    /// `authorizer.serviceAccount`).
    pub extra: BTreeMap<String, Vec<String>>,
}

/// `system:serviceaccount:<namespace>:<name>`.
pub fn service_account_username(namespace: &str, name: &str) -> String {
    format!("system:serviceaccount:{namespace}:{name}")
}

/// The groups every service account is in: `system:serviceaccounts` and
/// `system:serviceaccounts:<namespace>`.
pub fn service_account_groups(namespace: &str) -> Vec<String> {
    vec![
        "system:serviceaccounts".to_string(),
        format!("system:serviceaccounts:{namespace}"),
    ]
}

/// The `authorizer` variable: who is asking.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Authorizer {
    user: User,
}

/// The question for `user`, about nothing yet: Kubernetes' `authorizer.AttributesRecord` as CEL
/// starts filling it.
fn query_for(user: &User) -> AccessQuery {
    AccessQuery {
        user: user.name.clone(),
        groups: user.groups.clone(),
        uid: user.uid.clone(),
        extra: user.extra.clone(),
        ..AccessQuery::default()
    }
}

impl Authorizer {
    /// The authorizer for the requesting user.
    pub fn new(user: User) -> Self {
        Self { user }
    }

    /// The user checks are made for.
    pub fn user(&self) -> &User {
        &self.user
    }

    /// `authorizer.serviceAccount(namespace, name)`: the same authorizer, asking as the service
    /// account. The name must be a DNS subdomain and the namespace a DNS label.
    pub fn service_account(&self, namespace: &str, name: &str) -> Result<Self, AuthzError> {
        if !is_dns1123_subdomain(name).is_empty() {
            return Err(AuthzError::InvalidServiceAccountName);
        }
        if !is_dns1123_label(namespace).is_empty() {
            return Err(AuthzError::InvalidServiceAccountNamespace);
        }
        Ok(Self {
            user: User {
                name: service_account_username(namespace, name),
                uid: String::new(),
                groups: service_account_groups(namespace),
                extra: BTreeMap::new(),
            },
        })
    }

    /// `authorizer.path(p)`: `p` must not be blank.
    pub fn path(&self, path: &str) -> Result<PathCheck, AuthzError> {
        if path.trim().is_empty() {
            return Err(AuthzError::EmptyPath);
        }
        Ok(PathCheck {
            user: self.user.clone(),
            path: path.to_string(),
        })
    }

    /// `authorizer.group(g)` (`""` is the core group).
    pub fn group(&self, group: &str) -> GroupCheck {
        GroupCheck {
            user: self.user.clone(),
            group: group.to_string(),
        }
    }
}

/// `authorizer.path(p)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathCheck {
    user: User,
    path: String,
}

impl PathCheck {
    /// `.check(verb)`: the question to put to the host.
    pub fn check(&self, verb: &str) -> AccessQuery {
        AccessQuery {
            verb: verb.to_string(),
            path: Some(self.path.clone()),
            ..query_for(&self.user)
        }
    }
}

/// `authorizer.group(g)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupCheck {
    user: User,
    group: String,
}

impl GroupCheck {
    /// `.resource(r)`: `r` must not be blank.
    pub fn resource(&self, resource: &str) -> Result<ResourceCheck, AuthzError> {
        if resource.trim().is_empty() {
            return Err(AuthzError::EmptyResource);
        }
        Ok(ResourceCheck {
            check: AccessQuery {
                api_group: self.group.clone(),
                resource: resource.to_string(),
                ..query_for(&self.user)
            },
        })
    }
}

/// `authorizer.group(g).resource(r)…`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResourceCheck {
    check: AccessQuery,
}

impl ResourceCheck {
    /// The resource check for the request itself (`NewResourceAuthorizerVal`): the request's
    /// group, resource, subresource, namespace and name.
    pub fn for_request(
        authorizer: &Authorizer,
        group: &str,
        resource: &str,
        subresource: &str,
        namespace: &str,
        name: &str,
    ) -> Self {
        Self {
            check: AccessQuery {
                api_group: group.to_string(),
                resource: resource.to_string(),
                subresource: subresource.to_string(),
                namespace: namespace.to_string(),
                name: name.to_string(),
                ..query_for(&authorizer.user)
            },
        }
    }

    /// `.subresource(s)` (`""` unsets it).
    pub fn subresource(mut self, subresource: &str) -> Self {
        self.check.subresource = subresource.to_string();
        self
    }

    /// `.namespace(n)` (`""` is the cluster scope).
    pub fn namespace(mut self, namespace: &str) -> Self {
        self.check.namespace = namespace.to_string();
        self
    }

    /// `.name(n)` (`""` unsets it).
    pub fn name(mut self, name: &str) -> Self {
        self.check.name = name.to_string();
        self
    }

    /// `.fieldSelector(f)`.
    pub fn field_selector(mut self, selector: &str) -> Self {
        self.check.field_selector = selector.to_string();
        self
    }

    /// `.labelSelector(l)`.
    pub fn label_selector(mut self, selector: &str) -> Self {
        self.check.label_selector = selector.to_string();
        self
    }

    /// `.check(verb)`: the question to put to the host.
    pub fn check(&self, verb: &str) -> AccessQuery {
        AccessQuery {
            verb: verb.to_string(),
            ..self.check.clone()
        }
    }
}

/// The host's answer (`authorizer.Decision` plus reason and error).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Decision {
    /// Whether the decision is "allow" ("deny" and "no opinion" are both not allowed).
    pub allowed: bool,
    /// The authorizer's reason.
    pub reason: String,
    /// The authorizer's error, if the check failed.
    pub error: Option<String>,
}

impl Decision {
    /// The host's answer to `query` as CEL reads it; without a host, or when the host cannot
    /// answer, an errored decision (`d.errored()`), as Kubernetes reports an authorizer error.
    pub fn ask(host: Option<&dyn cluster::Cluster>, query: &AccessQuery) -> Self {
        let answer: Result<AccessDecision, String> = match host {
            None => Err("no authorizer is available".to_string()),
            Some(host) => host.authorize(query).map_err(|e: HostError| e.to_string()),
        };
        match answer {
            Ok(d) => Decision {
                allowed: d.allowed,
                reason: d.reason,
                error: None,
            },
            Err(e) => Decision {
                allowed: false,
                reason: String::new(),
                error: Some(e),
            },
        }
    }

    /// `d.allowed()`.
    pub fn allowed(&self) -> bool {
        self.allowed
    }

    /// `d.reason()`.
    pub fn reason(&self) -> &str {
        &self.reason
    }

    /// `d.errored()`.
    pub fn errored(&self) -> bool {
        self.error.is_some()
    }

    /// `d.error()`: the error text, or the empty string.
    pub fn error(&self) -> &str {
        self.error.as_deref().unwrap_or("")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn authorizer() -> Authorizer {
        Authorizer::new(User {
            name: "alice".into(),
            uid: "1".into(),
            groups: vec!["system:authenticated".into()],
            extra: BTreeMap::from([("scopes".into(), vec!["a".into()])]),
        })
    }

    // upstream: k8s.io/apiserver/pkg/cel/library/authz.go (documented examples)
    #[test]
    fn cel_library_examples() {
        let a = authorizer();
        let check = a.path("/healthz").unwrap().check("get");
        assert_eq!(check.path.as_deref(), Some("/healthz"));
        assert_eq!(check.verb, "get");
        assert!(!check.is_resource_request());
        assert_eq!(
            a.path("").unwrap_err().to_string(),
            "path must not be empty"
        );
        assert_eq!(
            a.path("  ").unwrap_err().to_string(),
            "path must not be empty"
        );
        assert_eq!(
            a.group("apps").resource("").unwrap_err().to_string(),
            "resource must not be empty"
        );
        assert_eq!(
            a.group("apps").resource("  ").unwrap_err().to_string(),
            "resource must not be empty"
        );
        let check = a
            .group("apps")
            .resource("deployments")
            .unwrap()
            .subresource("scale")
            .namespace("test")
            .name("backend")
            .check("update");
        assert_eq!(
            check,
            AccessQuery {
                user: "alice".into(),
                groups: vec!["system:authenticated".into()],
                uid: "1".into(),
                extra: a.user().extra.clone(),
                verb: "update".into(),
                api_group: "apps".into(),
                resource: "deployments".into(),
                subresource: "scale".into(),
                namespace: "test".into(),
                name: "backend".into(),
                field_selector: String::new(),
                label_selector: String::new(),
                path: None,
            }
        );
        let pods = a
            .group("")
            .resource("pods")
            .unwrap()
            .field_selector("spec.nodeName=mynode")
            .check("list");
        assert_eq!(pods.api_group, "");
        assert_eq!(pods.field_selector, "spec.nodeName=mynode");
        let sa = a.service_account("default", "myserviceaccount").unwrap();
        assert_eq!(
            sa.user().name,
            "system:serviceaccount:default:myserviceaccount"
        );
        assert_eq!(
            sa.user().groups,
            vec!["system:serviceaccounts", "system:serviceaccounts:default"]
        );
        assert!(sa.user().extra.is_empty(), "a service account has no extra");
        assert_eq!(
            a.service_account("not@a#valid!namespace", "validname")
                .unwrap_err()
                .to_string(),
            "Invalid service account namespace"
        );
        assert_eq!(
            a.service_account("valid.example.com", "invalid@*name")
                .unwrap_err()
                .to_string(),
            "Invalid service account name"
        );
        let d = Decision {
            allowed: false,
            reason: "no rule".into(),
            error: None,
        };
        assert!(!d.allowed() && !d.errored() && d.error().is_empty());
        assert_eq!(d.reason(), "no rule");
        let d = Decision {
            allowed: false,
            reason: String::new(),
            error: Some("webhook timed out".into()),
        };
        assert!(d.errored());
        assert_eq!(d.error(), "webhook timed out");
    }

    #[test]
    fn decisions_are_the_hosts_answers() {
        struct Reasoned;
        impl cluster::Cluster for Reasoned {
            fn namespace(&self, _: &str) -> Result<Option<serde_json::Value>, HostError> {
                Ok(None)
            }
            fn authorize(&self, q: &AccessQuery) -> Result<AccessDecision, HostError> {
                Ok(AccessDecision {
                    allowed: q.verb == "get",
                    reason: format!("RBAC: {}", q.user),
                })
            }
        }
        let q = authorizer()
            .group("")
            .resource("pods")
            .unwrap()
            .check("get");
        assert_eq!(
            Decision::ask(Some(&Reasoned), &q),
            Decision {
                allowed: true,
                reason: "RBAC: alice".into(),
                error: None,
            }
        );
        let none = Decision::ask(None, &q);
        assert!(!none.allowed() && none.errored());
        assert_eq!(none.error(), "no authorizer is available");
        let not_provided = Decision::ask(Some(&cluster::NoCluster), &q);
        assert!(!not_provided.allowed());
        assert_eq!(
            not_provided.error(),
            "an authorization check is needed but the context has no `authorizations` (add them to \
             the context)"
        );
    }
}
