//! What the cluster would know: namespace objects and authorization answers.
//!
//! Kubewarden answers these through host capabilities; the C ABI, the browser and the harness pass a `context`
//! object next to the review (docs/architecture.md, "The context"). The engine only sees the [`Cluster`] trait, and asks lazily.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

/// One authorization question: may this user do `verb` on this resource (or non-resource `path`)?
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AccessQuery {
    pub user: String,
    pub groups: Vec<String>,
    pub uid: String,
    pub extra: BTreeMap<String, Vec<String>>,
    pub verb: String,
    pub api_group: String,
    pub resource: String,
    pub subresource: String,
    pub namespace: String,
    pub name: String,
    /// Set for non-resource checks (`authorizer.path(…)`); resource fields are then empty.
    pub path: Option<String>,
}

/// An error asking the cluster: the host has no answer, or refused to give one.
pub type ContextError = String;

/// Cluster state the engine may need while deciding. Implementations cache as they see fit; the engine asks at most
/// once per request and key where it can.
pub trait Cluster {
    /// The v1 Namespace object named `name`: `Ok(None)` when the namespace does not exist, `Err` when the host cannot
    /// answer (no context, a failed host call).
    fn namespace(&self, name: &str) -> Result<Option<Value>, ContextError>;

    /// A SubjectAccessReview: `Ok(true)` allowed, `Ok(false)` not allowed, `Err` when the host cannot answer.
    fn authorize(&self, query: &AccessQuery) -> Result<bool, ContextError>;
}

/// The `context` object of docs/architecture.md, as passed to the C ABI, the browser and the harness.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct StaticContext {
    /// `None` when the key is absent: the host has no namespace data.
    pub namespaces: Option<Vec<Value>>,
    /// `None` when the key is absent: the host has no authorization answers. `Some([])` answers "not allowed".
    pub authorizations: Option<Vec<Authorization>>,
}

/// Who an authorization entry is about.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Subject {
    pub user: Option<String>,
    pub group: Option<String>,
}

/// One recorded authorization answer.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct Authorization {
    pub subject: Subject,
    pub verb: Option<String>,
    pub api_group: Option<String>,
    pub resource: Option<String>,
    pub subresource: Option<String>,
    pub name: Option<String>,
    pub namespace: Option<String>,
    pub path: Option<String>,
    pub allowed: bool,
}

/// `None` or `*` matches anything, otherwise equality.
fn field_matches(pattern: Option<&str>, value: &str) -> bool {
    match pattern {
        None | Some("*") => true,
        Some(p) => p == value,
    }
}

impl Authorization {
    fn matches(&self, q: &AccessQuery) -> bool {
        let subject = match (&self.subject.user, &self.subject.group) {
            (Some(u), None) => *u == q.user,
            (None, Some(g)) => q.groups.iter().any(|x| x == g),
            (Some(u), Some(g)) => *u == q.user && q.groups.iter().any(|x| x == g),
            (None, None) => false,
        };
        if !subject || !field_matches(self.verb.as_deref(), &q.verb) {
            return false;
        }
        match (&q.path, &self.path) {
            (Some(path), Some(p)) => field_matches(Some(p), path),
            (Some(_), None) | (None, Some(_)) => false,
            (None, None) => {
                field_matches(self.api_group.as_deref(), &q.api_group)
                    && field_matches(self.resource.as_deref(), &q.resource)
                    && field_matches(self.subresource.as_deref(), &q.subresource)
                    && field_matches(self.name.as_deref(), &q.name)
                    && field_matches(self.namespace.as_deref(), &q.namespace)
            }
        }
    }
}

impl Cluster for StaticContext {
    fn namespace(&self, name: &str) -> Result<Option<Value>, ContextError> {
        let Some(namespaces) = &self.namespaces else {
            return Err(format!(
                "namespace `{name}` is needed but the context has no `namespaces` (add the v1 Namespace objects to the context)"
            ));
        };
        Ok(namespaces
            .iter()
            .find(|ns| ns.pointer("/metadata/name").and_then(Value::as_str) == Some(name))
            .cloned())
    }

    fn authorize(&self, query: &AccessQuery) -> Result<bool, ContextError> {
        let Some(entries) = &self.authorizations else {
            return Err("an authorization check is needed but the context has no `authorizations` (add them to the context)".to_owned());
        };
        Ok(entries
            .iter()
            .find(|a| a.matches(query))
            .is_some_and(|a| a.allowed))
    }
}

/// Labels of a Namespace object (`metadata.labels`), empty when it has none.
pub fn namespace_labels(namespace: &Value) -> BTreeMap<String, String> {
    namespace
        .pointer("/metadata/labels")
        .and_then(Value::as_object)
        .map(|m| {
            // inserted one by one: `collect()` into a BTreeMap sorts, and each sort is a copy of driftsort in the
            // wasm modules (crates/cel-kubernetes/src/sort.rs)
            let mut labels = BTreeMap::new();
            for (k, v) in m {
                if let Some(s) = v.as_str() {
                    labels.insert(k.clone(), s.to_owned());
                }
            }
            labels
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(json: Value) -> StaticContext {
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn absent_authorizations_is_an_error_but_empty_list_is_no() {
        let q = AccessQuery {
            user: "alice".into(),
            verb: "use".into(),
            ..Default::default()
        };
        assert!(ctx(serde_json::json!({})).authorize(&q).is_err());
        assert_eq!(
            ctx(serde_json::json!({"authorizations": []})).authorize(&q),
            Ok(false)
        );
    }

    #[test]
    fn first_matching_entry_answers() {
        let c = ctx(serde_json::json!({"authorizations": [
            {"subject": {"group": "devs"}, "verb": "use", "apiGroup": "policy.cert-manager.io",
             "resource": "certificaterequestpolicies", "name": "p", "allowed": false},
            {"subject": {"user": "alice"}, "verb": "*", "allowed": true}
        ]}));
        let mut q = AccessQuery {
            user: "alice".into(),
            groups: vec!["devs".into()],
            verb: "use".into(),
            api_group: "policy.cert-manager.io".into(),
            resource: "certificaterequestpolicies".into(),
            name: "p".into(),
            namespace: "team-a".into(),
            ..Default::default()
        };
        assert_eq!(c.authorize(&q), Ok(false));
        q.name = "other".into();
        assert_eq!(c.authorize(&q), Ok(true));
        q.user = "bob".into();
        assert_eq!(c.authorize(&q), Ok(false));
    }

    #[test]
    fn namespace_lookup() {
        let c = ctx(
            serde_json::json!({"namespaces": [{"metadata": {"name": "a", "labels": {"env": "prod"}}}]}),
        );
        let ns = c.namespace("a").unwrap().unwrap();
        assert_eq!(
            namespace_labels(&ns).get("env").map(String::as_str),
            Some("prod")
        );
        assert_eq!(c.namespace("b"), Ok(None));
        assert!(StaticContext::default().namespace("a").is_err());
    }
}
