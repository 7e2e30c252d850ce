//! The request-time predicates shared by MatchResources and webhooks, as
//! k8s.io/apiserver `pkg/admission/plugin/webhook/predicates/{namespace,object}` and
//! `pkg/admission/plugin/policy/matching` evaluate them.

use crate::attributes::{Attributes, Gvk, Gvr};
use crate::equivalence::EquivalentResourceMapper;
use crate::field::go_quote;
use crate::rules::{NamedRuleWithOperations, RuleWithOperations};
use crate::selector::{LabelSelector, NoLabels};
use palisade_cel_kubernetes::cluster::{Cluster, HostError};
use serde_json::Value;

/// Why matching could not decide. kube-apiserver reports these only for a policy or webhook
/// whose rules match the request; the caller's failurePolicy decides what follows.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MatchError {
    /// The host does not know the request's namespace (kube-apiserver answers 404).
    #[error("namespaces {} not found", go_quote(.namespace))]
    NamespaceNotFound { namespace: String },
    /// The host could not answer a namespace lookup (kube-apiserver answers 500).
    #[error("Internal error occurred: {error}")]
    NamespaceLookup { namespace: String, error: HostError },
    /// A create or update of a Namespace whose object carries no metadata to read labels from.
    #[error("Internal error occurred: object does not implement the Object interfaces")]
    NamespaceObject,
    /// An equivalent resource matched but the mapper knows no kind for it.
    #[error("unable to convert to {resource}: unknown kind")]
    UnknownKind { resource: String },
}

/// What a request matched as: its own resource, or (under `matchPolicy: Equivalent`) an
/// equivalent one, with the kind it is served as there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Matched<'a> {
    pub resource: Gvr<'a>,
    pub subresource: &'a str,
    pub kind: Gvk<'a>,
    /// True when the match was through an equivalent resource (the request would be converted).
    pub equivalent: bool,
}

/// The labels of an admission object: `None` when the value is not a Kubernetes object
/// (null, not a JSON object, or an options type such as `PodExecOptions` that has no metadata);
/// `Some(None)` for an object without labels.
pub(crate) fn object_labels(
    obj: Option<&Value>,
) -> Option<Option<&serde_json::Map<String, Value>>> {
    let map = obj?.as_object()?;
    match map.get("metadata") {
        Some(Value::Object(meta)) => match meta.get("labels") {
            None | Some(Value::Null) => Some(None),
            Some(Value::Object(labels)) => Some(Some(labels)),
            Some(_) => None,
        },
        Some(Value::Null) | None => {
            let is_options = map
                .get("kind")
                .and_then(Value::as_str)
                .is_some_and(|k| k.ends_with("Options"));
            if is_options { None } else { Some(None) }
        }
        Some(_) => None,
    }
}

fn match_object(obj: Option<&Value>, sel: &LabelSelector) -> bool {
    match object_labels(obj) {
        None => false,
        Some(None) => sel.matches_source(&NoLabels),
        Some(Some(labels)) => sel.matches_source(labels),
    }
}

/// `object.Matcher.MatchObjectSelector`: the empty selector matches everything; otherwise the
/// object or the old object must match (a missing object never does).
pub(crate) fn object_selector_matches(sel: &LabelSelector, a: &Attributes<'_>) -> bool {
    sel.is_everything() || match_object(a.object(), sel) || match_object(a.old_object(), sel)
}

/// `namespace.Matcher.MatchNamespaceSelector`.
pub(crate) fn namespace_selector_matches(
    sel: &LabelSelector,
    a: &Attributes<'_>,
    ns: &dyn Cluster,
) -> Result<bool, MatchError> {
    let resource = a.effective_resource();
    if a.namespace.is_empty() && resource.resource != "namespaces" {
        // cluster-scoped resources other than namespaces are never exempted
        return Ok(true);
    }
    if sel.is_everything() {
        return Ok(true);
    }
    if resource.resource == "namespaces"
        && a.effective_subresource().is_empty()
        && (a.operation == "CREATE" || a.operation == "UPDATE")
    {
        // the namespace being written: its own new labels
        return match object_labels(a.object()) {
            None => Err(MatchError::NamespaceObject),
            Some(None) => Ok(sel.matches_source(&NoLabels)),
            Some(Some(labels)) => Ok(sel.matches_source(labels)),
        };
    }
    // a Namespace's own requests carry its name as namespace; fall back to the name if a
    // recording left it empty
    let name = if a.namespace.is_empty() {
        a.name
    } else {
        a.namespace
    };
    match ns.namespace_labels(name) {
        Ok(Some(labels)) => Ok(sel.matches(&labels)),
        Ok(None) => Err(MatchError::NamespaceNotFound {
            namespace: name.to_owned(),
        }),
        Err(error) => Err(MatchError::NamespaceLookup {
            namespace: name.to_owned(),
            error,
        }),
    }
}

/// A rule as the shared rule loop sees it.
pub(crate) trait RuleLike {
    fn rule(&self) -> &RuleWithOperations;
    fn name_matches(&self, name: &str) -> bool;
}

impl RuleLike for RuleWithOperations {
    fn rule(&self) -> &RuleWithOperations {
        self
    }
    fn name_matches(&self, _name: &str) -> bool {
        true
    }
}

impl RuleLike for NamedRuleWithOperations {
    fn rule(&self) -> &RuleWithOperations {
        &self.rule
    }
    fn name_matches(&self, name: &str) -> bool {
        self.matches_name(name)
    }
}

/// `matchesResourceRules` / the rule loop of `ShouldCallHook`: every rule against the request's
/// own resource first; then, under Equivalent, every rule (in order) against each equivalent
/// resource (in the mapper's order).
pub(crate) fn match_rules<'a, R: RuleLike>(
    rules: &[R],
    equivalent: bool,
    a: &Attributes<'a>,
    mapper: &dyn EquivalentResourceMapper,
) -> Result<Option<Matched<'a>>, MatchError> {
    let resource = a.effective_resource();
    let subresource = a.effective_subresource();
    for r in rules {
        if r.rule()
            .matches(a.operation, resource, subresource, a.namespace)
            && r.name_matches(a.name)
        {
            return Ok(Some(Matched {
                resource,
                subresource,
                kind: a.effective_kind(),
                equivalent: false,
            }));
        }
    }
    if !equivalent {
        return Ok(None);
    }
    let same_names = mapper.preserves_resource_names();
    for r in rules {
        let rule = r.rule();
        if !rule.matches_operation(a.operation)
            || (same_names && !rule.matches_resource(resource.resource, subresource))
        {
            // the operation (and, with such a mapper, the resource name) is the same for every equivalent
            continue;
        }
        let mut outcome: Option<Result<Matched<'a>, MatchError>> = None;
        mapper.visit_equivalents(resource, subresource, &mut |eq, kind| {
            if eq == resource || !rule.matches(a.operation, eq, subresource, a.namespace) {
                return false;
            }
            match kind {
                None => {
                    outcome = Some(Err(MatchError::UnknownKind {
                        resource: eq.to_string(),
                    }));
                    true
                }
                Some(kind) if r.name_matches(a.name) => {
                    outcome = Some(Ok(Matched {
                        resource: eq,
                        subresource,
                        kind,
                        equivalent: true,
                    }));
                    true
                }
                Some(_) => false,
            }
        });
        if let Some(o) = outcome {
            return o.map(Some);
        }
        if mapper.any_version_equivalent(resource)
            && !rule.api_versions().is_empty()
            && rule.matches_scope(resource, a.namespace)
            && rule.matches_group(resource.group)
            && rule.matches_resource(resource.resource, subresource)
            && r.name_matches(a.name)
        {
            return Ok(Some(Matched {
                resource,
                subresource,
                kind: a.effective_kind(),
                equivalent: true,
            }));
        }
    }
    Ok(None)
}

/// Runs the selectors after the rules, as kube-apiserver orders their outcomes: a selector that
/// does not match hides every error, a selector error shows only when the rules match.
pub(crate) fn combine<'a>(
    rules: Result<Option<Matched<'a>>, MatchError>,
    namespace_selector: &LabelSelector,
    object_selector: &LabelSelector,
    a: &Attributes<'a>,
    ns: &dyn Cluster,
) -> Result<Option<Matched<'a>>, MatchError> {
    if let Ok(None) = rules {
        return Ok(None);
    }
    let ns_result = namespace_selector_matches(namespace_selector, a, ns);
    if let Ok(false) = ns_result {
        return Ok(None);
    }
    if !object_selector_matches(object_selector, a) {
        return Ok(None);
    }
    let matched = rules?;
    ns_result?;
    Ok(matched)
}
