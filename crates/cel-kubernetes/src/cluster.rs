//! The one boundary to the cluster: what an admission decision may ask the host while it is made.
//!
//! Two questions, as kube-apiserver asks its informers and its authorizer: a v1 Namespace object by name
//! (`namespaceObject`, namespaceSelectors, approver-policy's namespace selector) and a SubjectAccessReview
//! ([`AccessQuery`]: the CEL `authorizer` library, approver-policy's RBAC `use` check). Every crate that needs the
//! cluster takes a `&dyn` [`Cluster`]; hosts implement it once (the engine's `StaticContext` over the `context`
//! object, the Kubewarden guest over its `kubernetes/get_resource` and `kubernetes/can_i` host calls). A host that
//! cannot answer says why with a [`HostError`]; the caller's failurePolicy decides what follows.

use std::collections::BTreeMap;
use std::fmt;

use serde_json::Value;

/// One authorization question, a SubjectAccessReview's spec: may `user` (with `groups`, `uid`, `extra`) do `verb` on
/// a resource, or on the non-resource `path`? Resource questions are asked for every API version (`*`), as the CEL
/// library asks them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AccessQuery {
    /// The username.
    pub user: String,
    /// The user's groups.
    pub groups: Vec<String>,
    /// The user's UID.
    pub uid: String,
    /// The user's extra attributes.
    pub extra: BTreeMap<String, Vec<String>>,
    /// The verb (`get`, `create`, `use`, … or an HTTP verb for a path).
    pub verb: String,
    /// The API group (`""` for core).
    pub api_group: String,
    /// The resource (plural, lower case).
    pub resource: String,
    /// The subresource, or empty.
    pub subresource: String,
    /// The namespace, or empty for the cluster scope.
    pub namespace: String,
    /// The object name, or empty.
    pub name: String,
    /// The field selector as written (`authorizer….fieldSelector(f)`), or empty; the host parses it.
    pub field_selector: String,
    /// The label selector as written (`authorizer….labelSelector(l)`), or empty; the host parses it.
    pub label_selector: String,
    /// Set for non-resource questions (`authorizer.path(p)`); the resource fields are empty then.
    pub path: Option<String>,
}

impl AccessQuery {
    /// Whether this is a resource question (`ResourceRequest: true`).
    pub fn is_resource_request(&self) -> bool {
        self.path.is_none()
    }
}

/// The host's answer to an [`AccessQuery`] (a SubjectAccessReview's status): `allowed`, and the authorizer's reason
/// (what CEL's `decision.reason()` reads), empty when it gives none.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AccessDecision {
    /// Whether the decision is "allow" ("deny" and "no opinion" are both not allowed).
    pub allowed: bool,
    /// The authorizer's reason, or empty.
    pub reason: String,
}

impl From<bool> for AccessDecision {
    fn from(allowed: bool) -> Self {
        Self {
            allowed,
            reason: String::new(),
        }
    }
}

/// What was asked of the host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Question {
    /// The v1 Namespace object with this name.
    Namespace(String),
    /// A SubjectAccessReview.
    Access(Box<AccessQuery>),
}

/// Why the host has no answer to a [`Question`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostError {
    /// The host has no such data: a `context` without `namespaces` or `authorizations`, or no host at all.
    NotProvided(Question),
    /// The host was asked and failed: `message` is what it said (a failed host call), or why its answer could not be
    /// read.
    Failed { question: Question, message: String },
}

impl HostError {
    /// The question left unanswered.
    pub fn question(&self) -> &Question {
        match self {
            HostError::NotProvided(question) | HostError::Failed { question, .. } => question,
        }
    }

    /// How to give the host the answer, when the user can.
    pub fn help(&self) -> Option<&'static str> {
        match self {
            HostError::NotProvided(Question::Namespace(_)) => {
                Some("add the v1 Namespace objects to the context")
            }
            HostError::NotProvided(Question::Access(_)) => Some("add them to the context"),
            HostError::Failed { .. } => None,
        }
    }
}

/// The message, then the help in parentheses: the texts case files assert.
impl fmt::Display for HostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HostError::NotProvided(Question::Namespace(name)) => write!(
                f,
                "namespace `{name}` is needed but the context has no `namespaces`"
            )?,
            HostError::NotProvided(Question::Access(_)) => f.write_str(
                "an authorization check is needed but the context has no `authorizations`",
            )?,
            HostError::Failed { message, .. } => f.write_str(message)?,
        }
        match self.help() {
            Some(help) => write!(f, " ({help})"),
            None => Ok(()),
        }
    }
}

impl std::error::Error for HostError {}

/// Cluster state a decision may need. Asked lazily; implementations cache as they see fit.
pub trait Cluster {
    /// The v1 Namespace object named `name`: `Ok(None)` when the namespace does not exist.
    fn namespace(&self, name: &str) -> Result<Option<Value>, HostError>;

    /// The labels of the namespace named `name` ([`metadata_labels`] of [`Cluster::namespace`]); implementations
    /// holding the object already may answer without copying it.
    fn namespace_labels(&self, name: &str) -> Result<Option<BTreeMap<String, String>>, HostError> {
        Ok(self.namespace(name)?.as_ref().map(metadata_labels))
    }

    /// A SubjectAccessReview.
    fn authorize(&self, query: &AccessQuery) -> Result<AccessDecision, HostError>;
}

/// No cluster to ask: every question is [`HostError::NotProvided`] (tests, benches, and callers that know no
/// request reaches a question).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoCluster;

impl Cluster for NoCluster {
    fn namespace(&self, name: &str) -> Result<Option<Value>, HostError> {
        Err(HostError::NotProvided(Question::Namespace(name.to_owned())))
    }

    fn authorize(&self, query: &AccessQuery) -> Result<AccessDecision, HostError> {
        Err(HostError::NotProvided(Question::Access(Box::new(
            query.clone(),
        ))))
    }
}

/// The labels of an object (`metadata.labels`, string values only), empty when it has none.
pub fn metadata_labels(object: &Value) -> BTreeMap<String, String> {
    let mut labels = BTreeMap::new();
    if let Some(m) = object
        .pointer("/metadata/labels")
        .and_then(Value::as_object)
    {
        // inserted one by one: `collect()` into a BTreeMap sorts, and each sort is a copy of driftsort in the wasm
        // modules (sort.rs)
        for (k, v) in m {
            if let Some(s) = v.as_str() {
                labels.insert(k.clone(), s.to_owned());
            }
        }
    }
    labels
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn host_errors_say_what_was_asked_and_how_to_answer() {
        let namespace = HostError::NotProvided(Question::Namespace("team-a".into()));
        assert_eq!(
            namespace.to_string(),
            "namespace `team-a` is needed but the context has no `namespaces` (add the v1 Namespace objects to the \
             context)"
        );
        assert_eq!(namespace.question(), &Question::Namespace("team-a".into()));
        let access = HostError::NotProvided(Question::Access(Box::default()));
        assert_eq!(
            access.to_string(),
            "an authorization check is needed but the context has no `authorizations` (add them to the context)"
        );
        assert_eq!(access.help(), Some("add them to the context"));
        let failed = HostError::Failed {
            question: Question::Namespace("a".into()),
            message: "host call timed out".into(),
        };
        assert_eq!(failed.to_string(), "host call timed out");
        assert_eq!(failed.help(), None);
    }

    #[test]
    fn no_cluster_provides_nothing() {
        let query = AccessQuery {
            user: "alice".into(),
            verb: "get".into(),
            ..AccessQuery::default()
        };
        assert_eq!(
            NoCluster.authorize(&query),
            Err(HostError::NotProvided(Question::Access(Box::new(query))))
        );
        assert_eq!(
            NoCluster.namespace_labels("a"),
            Err(HostError::NotProvided(Question::Namespace("a".into())))
        );
    }

    #[test]
    fn labels_are_read_from_metadata() {
        let ns = json!({"metadata": {"name": "a", "labels": {"env": "prod", "n": 1}}});
        let labels = metadata_labels(&ns);
        assert_eq!(labels.get("env").map(String::as_str), Some("prod"));
        assert_eq!(labels.len(), 1, "non-string values are not labels");
        assert!(metadata_labels(&json!({"metadata": {}})).is_empty());
        assert!(metadata_labels(&json!(null)).is_empty());
    }

    #[test]
    fn namespace_labels_come_from_the_namespace_object() {
        struct One;
        impl Cluster for One {
            fn namespace(&self, name: &str) -> Result<Option<Value>, HostError> {
                Ok((name == "a").then(|| json!({"metadata": {"labels": {"env": "prod"}}})))
            }
            fn authorize(&self, _: &AccessQuery) -> Result<AccessDecision, HostError> {
                Ok(AccessDecision::from(true))
            }
        }
        assert_eq!(
            One.namespace_labels("a"),
            Ok(Some(BTreeMap::from([("env".into(), "prod".into())])))
        );
        assert_eq!(One.namespace_labels("b"), Ok(None));
    }
}
