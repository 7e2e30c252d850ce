//! The `context` object: what the cluster would know, passed next to the review.
//!
//! The C ABI, the browser and the harness pass it (docs/architecture.md, "The context"); Kubewarden answers the same
//! questions through host capabilities (`abi/kubewarden.rs`). The engine only sees the one host trait,
//! [`palisade_cel_kubernetes::cluster::Cluster`], and asks lazily; [`StaticContext`] implements it.

use std::collections::BTreeMap;

use palisade_cel_kubernetes::cluster::{AccessDecision, AccessQuery, Cluster, HostError, Question};
use serde::Deserialize;
use serde_json::Value;

use palisade_json::{Doc, Ref};

use crate::review::tape::{boolean, defaulted, list, optional, string};

/// The `context` object of docs/architecture.md, as passed to the C ABI, the browser and the harness.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct StaticContext {
    /// `None` when the key is absent: the host has no namespace data. Each is kept as read (a node of the input's
    /// tape when read from one): only a namespace a request asks about is converted.
    pub namespaces: Option<Vec<Doc>>,
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

impl StaticContext {
    /// Read from a tape node as serde reads it, or `None` (see [`crate::review::tape`]).
    pub(crate) fn from_tape(r: Ref<'_>) -> Option<Self> {
        let mut f = [None; 2];
        r.pick(&[&["namespaces"], &["authorizations"]], true, &mut f)?;
        let [namespaces, authorizations] = f;
        Some(StaticContext {
            namespaces: optional(namespaces, |r| list(r, |n| Some(Doc::subtree(n))))?,
            authorizations: optional(authorizations, |r| list(r, Authorization::from_tape))?,
        })
    }
}

impl Authorization {
    #[allow(
        clippy::field_reassign_with_default,
        reason = "filled field by field: one way out on a refusal, not one per field (smaller code)"
    )]
    fn from_tape(r: Ref<'_>) -> Option<Self> {
        const NAMES: &[&[&str]] = &[
            &["subject"],
            &["verb"],
            &["apiGroup"],
            &["resource"],
            &["subresource"],
            &["name"],
            &["namespace"],
            &["path"],
            &["allowed"],
        ];
        let mut f = [None; 9];
        r.pick(NAMES, true, &mut f)?;
        let [subject, strings @ .., allowed] = f;
        let mut out = Authorization::default();
        out.subject = defaulted(subject, |r| {
            let mut f = [None; 2];
            r.pick(&[&["user"], &["group"]], true, &mut f)?;
            let [user, group] = f;
            Some(Subject {
                user: optional(user, string)?,
                group: optional(group, string)?,
            })
        })?;
        // the optional strings, in the order of `NAMES`
        for (field, r) in [
            &mut out.verb,
            &mut out.api_group,
            &mut out.resource,
            &mut out.subresource,
            &mut out.name,
            &mut out.namespace,
            &mut out.path,
        ]
        .into_iter()
        .zip(strings)
        {
            *field = optional(r, string)?;
        }
        out.allowed = defaulted(allowed, boolean)?;
        Some(out)
    }
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

impl StaticContext {
    /// The namespace named `name` (its `metadata.name`), as read.
    fn find_namespace(&self, name: &str) -> Result<Option<&Doc>, HostError> {
        let Some(namespaces) = &self.namespaces else {
            return Err(HostError::NotProvided(Question::Namespace(name.to_owned())));
        };
        Ok(namespaces.iter().find(|ns| {
            let named = ns.root().member("metadata").and_then(|m| m.member("name"));
            named.and_then(Ref::as_str) == Some(name)
        }))
    }
}

/// [`palisade_cel_kubernetes::cluster::metadata_labels`] of an object read into a tape, without converting it: string values only, and of a key written
/// twice the last value, as serde_json reads the object ([`Ref::sorted_members`]).
fn tape_labels(object: Ref<'_>) -> BTreeMap<String, String> {
    let mut labels = BTreeMap::new();
    let members = object
        .member("metadata")
        .and_then(|m| m.member("labels"))
        .map(Ref::sorted_members);
    for (key, value) in members.into_iter().flatten() {
        if let Some(text) = value.as_str() {
            labels.insert(key.to_owned(), text.to_owned());
        }
    }
    labels
}

impl Cluster for StaticContext {
    fn namespace(&self, name: &str) -> Result<Option<Value>, HostError> {
        Ok(self.find_namespace(name)?.map(Doc::to_value))
    }

    fn namespace_labels(&self, name: &str) -> Result<Option<BTreeMap<String, String>>, HostError> {
        Ok(self.find_namespace(name)?.map(|ns| tape_labels(ns.root())))
    }

    fn authorize(&self, query: &AccessQuery) -> Result<AccessDecision, HostError> {
        let Some(entries) = &self.authorizations else {
            return Err(HostError::NotProvided(Question::Access(Box::new(
                query.clone(),
            ))));
        };
        let allowed = entries
            .iter()
            .find(|a| a.matches(query))
            .is_some_and(|a| a.allowed);
        Ok(AccessDecision::from(allowed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use palisade_cel_kubernetes::cluster::metadata_labels;

    fn ctx(json: Value) -> StaticContext {
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn absent_authorizations_are_not_provided_but_an_empty_list_is_no() {
        let q = AccessQuery {
            user: "alice".into(),
            verb: "use".into(),
            ..Default::default()
        };
        let err = ctx(serde_json::json!({})).authorize(&q).unwrap_err();
        assert_eq!(
            err,
            HostError::NotProvided(Question::Access(Box::new(q.clone())))
        );
        assert_eq!(
            err.to_string(),
            "an authorization check is needed but the context has no `authorizations` (add them to the context)"
        );
        assert_eq!(
            ctx(serde_json::json!({"authorizations": []})).authorize(&q),
            Ok(AccessDecision::from(false))
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
        let allowed = |c: &StaticContext, q: &AccessQuery| c.authorize(q).map(|d| d.allowed);
        assert_eq!(allowed(&c, &q), Ok(false));
        q.name = "other".into();
        assert_eq!(allowed(&c, &q), Ok(true));
        q.user = "bob".into();
        assert_eq!(allowed(&c, &q), Ok(false));
        // the context gives no reasons
        assert_eq!(c.authorize(&q).map(|d| d.reason), Ok(String::new()));
    }

    #[test]
    fn path_entries_answer_only_path_questions() {
        let c = ctx(serde_json::json!({"authorizations": [
            {"subject": {"user": "alice"}, "verb": "get", "path": "/healthz", "allowed": true}
        ]}));
        let mut q = AccessQuery {
            user: "alice".into(),
            verb: "get".into(),
            path: Some("/healthz".into()),
            ..Default::default()
        };
        assert_eq!(c.authorize(&q).map(|d| d.allowed), Ok(true));
        q.path = None;
        assert_eq!(c.authorize(&q).map(|d| d.allowed), Ok(false));
    }

    /// The labels read from the tape are the labels of the object serde_json reads.
    #[test]
    fn tape_labels_are_the_labels_of_the_value() {
        for text in [
            r#"{"metadata": {"labels": {"env": "prod", "tier": "web"}}}"#,
            r#"{"metadata": {"labels": {"a": "1", "a": "2"}}}"#,
            r#"{"metadata": {"labels": {"a": "1", "a": 2, "b": true, "c": null}}}"#,
            r#"{"metadata": {"labels": {"a": 2, "a": "1"}}}"#,
            r#"{"metadata": {"labels": {"\u0061\n": "x\"y"}}}"#,
            r#"{"metadata": {"labels": ["a"]}}"#,
            r#"{"metadata": {"labels": {"a": "1"}, "labels": {"b": "2"}}}"#,
            r#"{"metadata": {"labels": {"a": "1"}}, "metadata": {}}"#,
            r#"{"metadata": "x"}"#,
            r#"{}"#,
        ] {
            let doc = Doc::parse(text).unwrap();
            assert_eq!(
                tape_labels(doc.root()),
                metadata_labels(&serde_json::from_str(text).unwrap()),
                "{text}"
            );
        }
    }

    #[test]
    fn namespace_lookup() {
        let c = ctx(
            serde_json::json!({"namespaces": [{"metadata": {"name": "a", "labels": {"env": "prod"}}}]}),
        );
        let ns = c.namespace("a").unwrap().unwrap();
        assert_eq!(
            metadata_labels(&ns).get("env").map(String::as_str),
            Some("prod")
        );
        assert_eq!(
            c.namespace_labels("a")
                .unwrap()
                .unwrap()
                .get("env")
                .map(String::as_str),
            Some("prod")
        );
        assert_eq!(c.namespace("b"), Ok(None));
        let err = StaticContext::default().namespace("a").unwrap_err();
        assert_eq!(err, HostError::NotProvided(Question::Namespace("a".into())));
        assert_eq!(
            err.to_string(),
            "namespace `a` is needed but the context has no `namespaces` (add the v1 Namespace objects to the context)"
        );
    }
}
