//! `MatchResources` (ValidatingAdmissionPolicy `spec.matchConstraints`, binding
//! `spec.matchResources`), matched as k8s.io/apiserver `pkg/admission/plugin/policy/matching` does.

use crate::attributes::Attributes;
use crate::equivalence::{BuiltinEquivalences, EquivalentResourceMapper};
use crate::field::{self, FieldError};
use crate::predicates::{self, MatchError, Matched};
use crate::rules::NamedRuleWithOperations;
use crate::selector::LabelSelector;
use palisade_cel_kubernetes::cluster::Cluster;
use serde_json::Value;

/// `matchPolicy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MatchPolicy {
    Exact,
    /// The API server's default.
    #[default]
    Equivalent,
}

const SUPPORTED_MATCH_POLICIES: &[&str] = &["Equivalent", "Exact"];

pub(crate) fn parse_match_policy(
    obj: &serde_json::Map<String, Value>,
    path: &str,
    errs: &mut Vec<FieldError>,
) -> MatchPolicy {
    match field::string_field(obj, "matchPolicy", path, errs).as_deref() {
        None | Some("Equivalent") => MatchPolicy::Equivalent,
        Some("Exact") => MatchPolicy::Exact,
        Some(other) => {
            errs.push(field::not_supported(
                field::child(path, "matchPolicy"),
                other,
                SUPPORTED_MATCH_POLICIES,
            ));
            MatchPolicy::Equivalent
        }
    }
}

pub(crate) fn parse_selector(
    obj: &serde_json::Map<String, Value>,
    key: &str,
    path: &str,
    errs: &mut Vec<FieldError>,
) -> LabelSelector {
    match field::get(obj, key) {
        None => LabelSelector::everything(),
        Some(v) => LabelSelector::parse_into(v, &field::child(path, key), errs),
    }
}

/// The part of a MatchResources that did not match a request ([`MatchResources::mismatch`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mismatch {
    /// An `excludeResourceRules` entry matched.
    ExcludeResourceRules,
    /// No `resourceRules` entry matched.
    ResourceRules,
    NamespaceSelector,
    ObjectSelector,
}

/// Decides which requests a policy (or binding) sees.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MatchResources {
    pub(crate) namespace_selector: LabelSelector,
    pub(crate) object_selector: LabelSelector,
    pub(crate) resource_rules: Vec<NamedRuleWithOperations>,
    pub(crate) exclude_resource_rules: Vec<NamedRuleWithOperations>,
    pub(crate) match_policy: MatchPolicy,
}

impl MatchResources {
    /// Builds a MatchResources without validation (for tests that mirror upstream's matcher tests).
    pub fn from_parts(
        namespace_selector: LabelSelector,
        object_selector: LabelSelector,
        resource_rules: Vec<NamedRuleWithOperations>,
        exclude_resource_rules: Vec<NamedRuleWithOperations>,
        match_policy: MatchPolicy,
    ) -> Self {
        MatchResources {
            namespace_selector,
            object_selector,
            resource_rules,
            exclude_resource_rules,
            match_policy,
        }
    }

    /// Parses and validates a MatchResources as the API server does after defaulting
    /// (absent selectors are `{}`, absent `matchPolicy` is `Equivalent`); `path` prefixes every
    /// error (e.g. `spec.matchConstraints`). `null` is the default (matches everything).
    /// An empty `resourceRules` matches every resource: that is a binding's meaning; a policy's
    /// `matchConstraints` must use [`MatchResources::parse_policy_constraints`].
    pub fn parse(v: &Value, path: &str) -> Result<Self, Vec<FieldError>> {
        let mut errs = Vec::new();
        let mr = Self::parse_into(v, path, &mut errs);
        if errs.is_empty() { Ok(mr) } else { Err(errs) }
    }

    /// [`MatchResources::parse`] plus the ValidatingAdmissionPolicy rule that `matchConstraints`
    /// must have at least one resource rule (`<path>.resourceRules: Required value`).
    pub fn parse_policy_constraints(v: &Value, path: &str) -> Result<Self, Vec<FieldError>> {
        let mut errs = Vec::new();
        let mr = Self::parse_into(v, path, &mut errs);
        let no_rules = match v.get("resourceRules") {
            None | Some(Value::Null) => true,
            Some(Value::Array(items)) => items.is_empty(),
            Some(_) => false,
        };
        if no_rules && v.is_object() {
            errs.push(field::required(field::child(path, "resourceRules"), ""));
        }
        if v.is_null() {
            errs.push(field::required(path.to_owned(), ""));
        }
        if errs.is_empty() { Ok(mr) } else { Err(errs) }
    }

    fn parse_into(v: &Value, path: &str, errs: &mut Vec<FieldError>) -> Self {
        let mut mr = MatchResources::default();
        if v.is_null() {
            return mr;
        }
        let Some(obj) = field::as_object(v, path, errs) else {
            return mr;
        };
        mr.match_policy = parse_match_policy(obj, path, errs);
        mr.namespace_selector = parse_selector(obj, "namespaceSelector", path, errs);
        mr.object_selector = parse_selector(obj, "objectSelector", path, errs);
        mr.resource_rules = parse_named_rules(obj, "resourceRules", path, errs);
        mr.exclude_resource_rules = parse_named_rules(obj, "excludeResourceRules", path, errs);
        mr
    }

    /// Whether the request is matched, and as what (its own resource or an equivalent).
    /// Namespace labels are asked for only when the rules match and the namespace selector is not empty.
    pub fn matches<'a>(
        &self,
        a: &Attributes<'a>,
        ns: &dyn Cluster,
    ) -> Result<Option<Matched<'a>>, MatchError> {
        self.matches_with(a, ns, &BuiltinEquivalences)
    }

    /// [`MatchResources::matches`] with another equivalence table.
    pub fn matches_with<'a>(
        &self,
        a: &Attributes<'a>,
        ns: &dyn Cluster,
        mapper: &dyn EquivalentResourceMapper,
    ) -> Result<Option<Matched<'a>>, MatchError> {
        let rules = self.match_rules_only(a, mapper);
        predicates::combine(
            rules,
            &self.namespace_selector,
            &self.object_selector,
            a,
            ns,
        )
    }

    /// Exclusions, then inclusions (an empty `resourceRules` includes the request as it is).
    fn match_rules_only<'a>(
        &self,
        a: &Attributes<'a>,
        mapper: &dyn EquivalentResourceMapper,
    ) -> Result<Option<Matched<'a>>, MatchError> {
        let equivalent = self.match_policy == MatchPolicy::Equivalent;
        if predicates::match_rules(&self.exclude_resource_rules, equivalent, a, mapper)?.is_some() {
            return Ok(None);
        }
        if self.resource_rules.is_empty() {
            return Ok(Some(Matched {
                resource: a.effective_resource(),
                subresource: a.effective_subresource(),
                kind: a.effective_kind(),
                equivalent: false,
            }));
        }
        predicates::match_rules(&self.resource_rules, equivalent, a, mapper)
    }

    /// Why [`MatchResources::matches`] answered `Ok(None)`: the first of its checks that rejects the request, in the
    /// order it runs them. `None` when the request is matched (or the checks err). For explaining a decision only:
    /// the dispatch itself never needs the reason.
    pub fn mismatch(&self, a: &Attributes<'_>, ns: &dyn Cluster) -> Option<Mismatch> {
        let mapper = BuiltinEquivalences;
        let equivalent = self.match_policy == MatchPolicy::Equivalent;
        if let Ok(Some(_)) =
            predicates::match_rules(&self.exclude_resource_rules, equivalent, a, &mapper)
        {
            return Some(Mismatch::ExcludeResourceRules);
        }
        if let Ok(None) = self.match_rules_only(a, &mapper) {
            return Some(Mismatch::ResourceRules);
        }
        if let Ok(false) = predicates::namespace_selector_matches(&self.namespace_selector, a, ns) {
            return Some(Mismatch::NamespaceSelector);
        }
        if !predicates::object_selector_matches(&self.object_selector, a) {
            return Some(Mismatch::ObjectSelector);
        }
        None
    }

    pub fn namespace_selector(&self) -> &LabelSelector {
        &self.namespace_selector
    }
    pub fn object_selector(&self) -> &LabelSelector {
        &self.object_selector
    }
    pub fn resource_rules(&self) -> &[NamedRuleWithOperations] {
        &self.resource_rules
    }
    pub fn exclude_resource_rules(&self) -> &[NamedRuleWithOperations] {
        &self.exclude_resource_rules
    }
    pub fn match_policy(&self) -> MatchPolicy {
        self.match_policy
    }
}

fn parse_named_rules(
    obj: &serde_json::Map<String, Value>,
    key: &str,
    path: &str,
    errs: &mut Vec<FieldError>,
) -> Vec<NamedRuleWithOperations> {
    let p = field::child(path, key);
    match field::get(obj, key) {
        None => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .filter_map(|(i, item)| {
                NamedRuleWithOperations::parse_into(item, &field::index(&p, i), errs)
            })
            .collect(),
        Some(_) => {
            errs.push(field::wrong_type(p, "an array"));
            Vec::new()
        }
    }
}
