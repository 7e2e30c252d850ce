//! `RuleWithOperations` / `NamedRuleWithOperations`: parsed and validated as
//! kubernetes `pkg/apis/admissionregistration/validation` does, matched as
//! k8s.io/apiserver `pkg/admission/plugin/webhook/predicates/rules` does.

use crate::attributes::Gvr;
use crate::field::{self, FieldError};
use crate::names;
use serde_json::Value;

/// A rule's `scope`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Scope {
    /// `*` (the default when `scope` is absent).
    #[default]
    All,
    Cluster,
    Namespaced,
}

/// Operation bits, for the index.
pub(crate) const OP_CREATE: u8 = 1;
pub(crate) const OP_UPDATE: u8 = 2;
pub(crate) const OP_DELETE: u8 = 4;
pub(crate) const OP_CONNECT: u8 = 8;
pub(crate) const OP_OTHER: u8 = 16;
pub(crate) const OP_ALL: u8 = 0xff;

pub(crate) fn op_bit(op: &str) -> u8 {
    match op {
        "CREATE" => OP_CREATE,
        "UPDATE" => OP_UPDATE,
        "DELETE" => OP_DELETE,
        "CONNECT" => OP_CONNECT,
        _ => OP_OTHER,
    }
}

/// One entry of a rule's `resources`, split at the first `/` as upstream does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ResourcePattern {
    pub(crate) resource: String,
    /// `None` for a pattern without `/` (matches only the resource itself, no subresource).
    pub(crate) subresource: Option<String>,
}

impl ResourcePattern {
    fn new(s: &str) -> Self {
        match s.split_once('/') {
            Some((r, sub)) => ResourcePattern {
                resource: r.to_owned(),
                subresource: Some(sub.to_owned()),
            },
            None => ResourcePattern {
                resource: s.to_owned(),
                subresource: None,
            },
        }
    }

    fn matches(&self, resource: &str, subresource: &str) -> bool {
        let res_ok = self.resource == "*" || self.resource == resource;
        let sub_ok = match &self.subresource {
            None => subresource.is_empty(),
            Some(s) => s == "*" || s == subresource,
        };
        res_ok && sub_ok
    }
}

/// `admissionregistration/v1.RuleWithOperations`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleWithOperations {
    pub(crate) operations: Vec<String>,
    pub(crate) api_groups: Vec<String>,
    pub(crate) api_versions: Vec<String>,
    pub(crate) resources: Vec<ResourcePattern>,
    pub(crate) scope: Scope,
    pub(crate) op_mask: u8,
}

fn exact_or_wildcard(items: &[String], requested: &str) -> bool {
    items.iter().any(|i| i == "*" || i == requested)
}

const SUPPORTED_OPERATIONS: &[&str] = &["*", "CONNECT", "CREATE", "DELETE", "UPDATE"];
const SUPPORTED_SCOPES: &[&str] = &["*", "Cluster", "Namespaced"];

impl RuleWithOperations {
    /// Builds a rule without validation (upstream's matcher tests construct rules the API server
    /// would reject, such as empty lists, which match nothing). `scope: None` is `*`.
    pub fn from_parts(
        operations: &[&str],
        api_groups: &[&str],
        api_versions: &[&str],
        resources: &[&str],
        scope: Option<Scope>,
    ) -> Self {
        let operations: Vec<String> = operations.iter().map(|s| (*s).to_owned()).collect();
        let op_mask = mask_of(&operations);
        RuleWithOperations {
            operations,
            api_groups: api_groups.iter().map(|s| (*s).to_owned()).collect(),
            api_versions: api_versions.iter().map(|s| (*s).to_owned()).collect(),
            resources: resources.iter().map(|s| ResourcePattern::new(s)).collect(),
            scope: scope.unwrap_or_default(),
            op_mask,
        }
    }

    /// Parses and validates one rule; `path` prefixes every error (e.g. `rules[0]`).
    pub fn parse(v: &Value, path: &str) -> Result<Self, Vec<FieldError>> {
        let mut errs = Vec::new();
        let rule = Self::parse_into(v, path, &mut errs);
        match rule {
            Some(r) if errs.is_empty() => Ok(r),
            _ => Err(errs),
        }
    }

    pub(crate) fn parse_into(v: &Value, path: &str, errs: &mut Vec<FieldError>) -> Option<Self> {
        let obj = field::as_object(v, path, errs)?;
        let operations = field::string_list(obj, "operations", path, errs);
        let api_groups = field::string_list(obj, "apiGroups", path, errs);
        let api_versions = field::string_list(obj, "apiVersions", path, errs);
        let resources = field::string_list(obj, "resources", path, errs);
        let scope_text = field::string_field(obj, "scope", path, errs);

        // operations
        let ops_path = field::child(path, "operations");
        if operations.is_empty() {
            errs.push(field::required(ops_path.clone(), ""));
        }
        if operations.len() > 1 && operations.iter().any(|o| o == "*") {
            errs.push(field::invalid(
                ops_path.clone(),
                &field::list_value(&operations),
                "if '*' is present, must not specify other operations",
            ));
        }
        for (i, op) in operations.iter().enumerate() {
            if !SUPPORTED_OPERATIONS.contains(&op.as_str()) {
                errs.push(field::not_supported(
                    field::index(&ops_path, i),
                    op,
                    SUPPORTED_OPERATIONS,
                ));
            }
        }
        // apiGroups (an empty string is the core group)
        let groups_path = field::child(path, "apiGroups");
        if api_groups.is_empty() {
            errs.push(field::required(groups_path.clone(), ""));
        }
        if api_groups.len() > 1 && api_groups.iter().any(|g| g == "*") {
            errs.push(field::invalid(
                groups_path,
                &field::list_value(&api_groups),
                "if '*' is present, must not specify other API groups",
            ));
        }
        // apiVersions
        let versions_path = field::child(path, "apiVersions");
        if api_versions.is_empty() {
            errs.push(field::required(versions_path.clone(), ""));
        }
        if api_versions.len() > 1 && api_versions.iter().any(|g| g == "*") {
            errs.push(field::invalid(
                versions_path.clone(),
                &field::list_value(&api_versions),
                "if '*' is present, must not specify other API versions",
            ));
        }
        for (i, version) in api_versions.iter().enumerate() {
            if version.is_empty() {
                errs.push(field::required(field::index(&versions_path, i), ""));
            }
        }
        validate_resources(&resources, &field::child(path, "resources"), errs);
        let scope = match scope_text.as_deref() {
            None | Some("*") => Scope::All,
            Some("Cluster") => Scope::Cluster,
            Some("Namespaced") => Scope::Namespaced,
            Some(other) => {
                errs.push(field::not_supported(
                    field::child(path, "scope"),
                    other,
                    SUPPORTED_SCOPES,
                ));
                Scope::All
            }
        };
        let op_mask = mask_of(&operations);
        Some(RuleWithOperations {
            operations,
            api_groups,
            api_versions,
            resources: resources.iter().map(|s| ResourcePattern::new(s)).collect(),
            scope,
            op_mask,
        })
    }

    /// All predicates: scope, operation, group, version, resource.
    pub fn matches(
        &self,
        operation: &str,
        resource: Gvr<'_>,
        subresource: &str,
        namespace: &str,
    ) -> bool {
        self.matches_scope(resource, namespace)
            && self.matches_operation(operation)
            && self.matches_group(resource.group)
            && self.matches_version(resource.version)
            && self.matches_resource(resource.resource, subresource)
    }

    /// `scope`: a Namespace (core v1 `namespaces`) is always cluster-scoped; otherwise a request
    /// is namespaced when it names a namespace.
    pub fn matches_scope(&self, resource: Gvr<'_>, namespace: &str) -> bool {
        let is_namespace_object = resource == Gvr::new("", "v1", "namespaces");
        match self.scope {
            Scope::All => true,
            Scope::Namespaced => !is_namespace_object && !namespace.is_empty(),
            Scope::Cluster => is_namespace_object || namespace.is_empty(),
        }
    }

    /// `operations`, with `*`.
    pub fn matches_operation(&self, operation: &str) -> bool {
        exact_or_wildcard(&self.operations, operation)
    }

    /// `apiGroups`, with `*`.
    pub fn matches_group(&self, group: &str) -> bool {
        exact_or_wildcard(&self.api_groups, group)
    }

    /// `apiVersions`, with `*`.
    pub fn matches_version(&self, version: &str) -> bool {
        exact_or_wildcard(&self.api_versions, version)
    }

    /// `resources`: `*` (no subresources), `*/*`, `r/*` (also `r` itself), `*/s`, `r/s`.
    pub fn matches_resource(&self, resource: &str, subresource: &str) -> bool {
        self.resources
            .iter()
            .any(|p| p.matches(resource, subresource))
    }

    pub fn scope(&self) -> Scope {
        self.scope
    }
    pub fn operations(&self) -> &[String] {
        &self.operations
    }
    pub fn api_groups(&self) -> &[String] {
        &self.api_groups
    }
    pub fn api_versions(&self) -> &[String] {
        &self.api_versions
    }
}

fn mask_of(operations: &[String]) -> u8 {
    operations
        .iter()
        .fold(0u8, |m, op| if op == "*" { OP_ALL } else { m | op_bit(op) })
}

/// `validateResources` (subresources allowed).
fn validate_resources(resources: &[String], path: &str, errs: &mut Vec<FieldError>) {
    if resources.is_empty() {
        errs.push(field::required(path.to_owned(), ""));
    }
    let mut res_with_wildcard_sub: Vec<&str> = Vec::new();
    let mut sub_with_wildcard_res: Vec<&str> = Vec::new();
    let mut has_double_wildcard = false;
    let mut has_single_wildcard = false;
    let mut has_resource_without_subresource = false;
    for (i, res_sub) in resources.iter().enumerate() {
        if res_sub.is_empty() {
            errs.push(field::required(field::index(path, i), ""));
            continue;
        }
        if res_sub == "*/*" {
            has_double_wildcard = true;
        }
        if res_sub == "*" {
            has_single_wildcard = true;
        }
        let Some((res, sub)) = res_sub.split_once('/') else {
            // upstream overwrites this flag for every entry without a subresource
            has_resource_without_subresource = res_sub != "*";
            continue;
        };
        if res_with_wildcard_sub.contains(&res) {
            errs.push(field::invalid_str(
                field::index(path, i),
                res_sub,
                &format!("if '{res}/*' is present, must not specify {res_sub}"),
            ));
        }
        if sub_with_wildcard_res.contains(&sub) {
            errs.push(field::invalid_str(
                field::index(path, i),
                res_sub,
                &format!("if '*/{sub}' is present, must not specify {res_sub}"),
            ));
        }
        if sub == "*" {
            res_with_wildcard_sub.push(res);
        }
        if res == "*" {
            sub_with_wildcard_res.push(sub);
        }
    }
    if resources.len() > 1 && has_double_wildcard {
        errs.push(field::invalid(
            path.to_owned(),
            &field::list_value(resources),
            "if '*/*' is present, must not specify other resources",
        ));
    }
    if has_single_wildcard && has_resource_without_subresource {
        errs.push(field::invalid(
            path.to_owned(),
            &field::list_value(resources),
            "if '*' is present, must not specify other resources without subresources",
        ));
    }
}

/// `admissionregistration/v1.NamedRuleWithOperations`: a rule plus `resourceNames`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamedRuleWithOperations {
    pub(crate) rule: RuleWithOperations,
    pub(crate) resource_names: Vec<String>,
}

impl NamedRuleWithOperations {
    /// Builds a named rule without validation (see [`RuleWithOperations::from_parts`]).
    pub fn from_parts(rule: RuleWithOperations, resource_names: &[&str]) -> Self {
        NamedRuleWithOperations {
            rule,
            resource_names: resource_names.iter().map(|s| (*s).to_owned()).collect(),
        }
    }

    /// Parses and validates one named rule; `path` prefixes every error (e.g. `resourceRules[0]`).
    pub fn parse(v: &Value, path: &str) -> Result<Self, Vec<FieldError>> {
        let mut errs = Vec::new();
        let rule = Self::parse_into(v, path, &mut errs);
        match rule {
            Some(r) if errs.is_empty() => Ok(r),
            _ => Err(errs),
        }
    }

    pub(crate) fn parse_into(v: &Value, path: &str, errs: &mut Vec<FieldError>) -> Option<Self> {
        let obj = field::as_object(v, path, errs)?;
        let resource_names = field::string_list(obj, "resourceNames", path, errs);
        let names_path = field::child(path, "resourceNames");
        for (i, name) in resource_names.iter().enumerate() {
            for msg in names::path_segment_name_errors(name) {
                errs.push(field::invalid_str(field::index(&names_path, i), name, &msg));
            }
            if resource_names
                .get(..i)
                .is_some_and(|before| before.contains(name))
            {
                errs.push(field::duplicate(field::index(&names_path, i), name));
            }
        }
        let rule = RuleWithOperations::parse_into(v, path, errs)?;
        Some(NamedRuleWithOperations {
            rule,
            resource_names,
        })
    }

    pub fn rule(&self) -> &RuleWithOperations {
        &self.rule
    }

    pub fn resource_names(&self) -> &[String] {
        &self.resource_names
    }

    /// `resourceNames`: an empty list matches every name; otherwise the request's name must be
    /// listed (a create relying on `generateName` has an empty name and so matches no list).
    pub fn matches_name(&self, name: &str) -> bool {
        self.resource_names.is_empty() || self.resource_names.iter().any(|n| n == name)
    }
}
