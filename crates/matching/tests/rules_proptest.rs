//! Property: `RuleWithOperations::matches` agrees with a line-by-line transliteration of
//! k8s.io/apiserver `pkg/admission/plugin/webhook/predicates/rules/rules.go` (`Matcher.Matches`:
//! scope, operation, group, version, resource with `splitResource`'s `SplitN(s, "/", 2)`),
//! over random rules — built unvalidated with `from_parts` (empty lists, `pods/`, `r/s/t`
//! included) and, when the API server would accept them, through `parse` — and random
//! requests. Also `NamedRuleWithOperations::matches_name` against `resourceNames` semantics.
//!
//! `index_proptest.rs` compares the `Index` with a scan of `MatchResources::matches`, which
//! uses this same rule matcher on both sides; this file is the oracle for the rule matcher.
#![allow(
    clippy::panic,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]

use palisade_matching::{Gvr, NamedRuleWithOperations, RuleWithOperations, Scope};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

const OPS: &[&str] = &["CREATE", "UPDATE", "DELETE", "CONNECT", "*"];
const GROUPS: &[&str] = &["", "apps", "*"];
const VERSIONS: &[&str] = &["v1", "v1beta1", "*"];
const RESOURCES: &[&str] = &[
    "pods",
    "namespaces",
    "deployments",
    "pods/status",
    "pods/*",
    "pods/",
    "pods/log/x",
    "namespaces/status",
    "deployments/scale",
    "*",
    "*/*",
    "*/status",
    "*/scale",
];

// ---------------------------------------------------------------------------------------------
// The oracle: rules.go, transliterated.

#[derive(Debug, Clone)]
struct Rule {
    operations: Vec<&'static str>,
    api_groups: Vec<&'static str>,
    api_versions: Vec<&'static str>,
    resources: Vec<&'static str>,
    /// `None` = unset; otherwise `*`, `Cluster` or `Namespaced`
    scope: Option<&'static str>,
}

#[derive(Debug, Clone)]
struct Req {
    operation: &'static str,
    group: &'static str,
    version: &'static str,
    resource: &'static str,
    subresource: &'static str,
    namespace: &'static str,
}

fn exact_or_wildcard(items: &[&str], requested: &str) -> bool {
    for item in items {
        if *item == "*" {
            return true;
        }
        if *item == requested {
            return true;
        }
    }
    false
}

fn oracle_scope(r: &Rule, a: &Req) -> bool {
    let is_namespace_resource =
        a.group.is_empty() && a.version == "v1" && a.resource == "namespaces";
    match r.scope {
        None | Some("*") => true,
        Some("Namespaced") => !is_namespace_resource && !a.namespace.is_empty(),
        Some("Cluster") => is_namespace_resource || a.namespace.is_empty(),
        Some(_) => false,
    }
}

fn oracle_operation(r: &Rule, a: &Req) -> bool {
    for op in &r.operations {
        if *op == "*" {
            return true;
        }
        if *op == a.operation {
            return true;
        }
    }
    false
}

fn split_resource(res_sub: &str) -> (&str, &str) {
    let parts: Vec<&str> = res_sub.splitn(2, '/').collect();
    if parts.len() == 2 {
        return (parts[0], parts[1]);
    }
    (parts[0], "")
}

fn oracle_resource(r: &Rule, a: &Req) -> bool {
    for res in &r.resources {
        let (res, sub) = split_resource(res);
        let res_match = res == "*" || res == a.resource;
        let sub_match = sub == "*" || sub == a.subresource;
        if res_match && sub_match {
            return true;
        }
    }
    false
}

fn oracle_matches(r: &Rule, a: &Req) -> bool {
    oracle_scope(r, a)
        && oracle_operation(r, a)
        && exact_or_wildcard(&r.api_groups, a.group)
        && exact_or_wildcard(&r.api_versions, a.version)
        && oracle_resource(r, a)
}

// ---------------------------------------------------------------------------------------------
// Generators.

fn pick(pool: &'static [&'static str]) -> impl Strategy<Value = &'static str> {
    proptest::sample::select(pool)
}

fn rule() -> impl Strategy<Value = Rule> {
    (
        proptest::collection::vec(pick(OPS), 0..=3),
        proptest::collection::vec(pick(GROUPS), 0..=2),
        proptest::collection::vec(pick(VERSIONS), 0..=2),
        proptest::collection::vec(pick(RESOURCES), 0..=3),
        proptest::option::of(pick(&["*", "Cluster", "Namespaced"])),
    )
        .prop_map(
            |(operations, api_groups, api_versions, resources, scope)| Rule {
                operations,
                api_groups,
                api_versions,
                resources,
                scope,
            },
        )
}

/// A list as the API server wants it: non-empty, `*` alone.
fn list(pool: &'static [&'static str], max: usize) -> impl Strategy<Value = Vec<&'static str>> {
    proptest::collection::vec(pick(pool), 1..=max).prop_map(|mut v| {
        v.sort_unstable();
        v.dedup();
        if v.contains(&"*") { vec!["*"] } else { v }
    })
}

/// Rules that mostly pass validation (some resource combinations still do not).
fn valid_rule() -> impl Strategy<Value = Rule> {
    (
        list(OPS, 3),
        list(GROUPS, 2),
        list(VERSIONS, 2),
        proptest::collection::vec(pick(RESOURCES), 1..=2),
        proptest::option::of(pick(&["*", "Cluster", "Namespaced"])),
    )
        .prop_map(
            |(operations, api_groups, api_versions, resources, scope)| Rule {
                operations,
                api_groups,
                api_versions,
                resources,
                scope,
            },
        )
}

fn request() -> impl Strategy<Value = Req> {
    (
        pick(&["CREATE", "UPDATE", "DELETE", "CONNECT"]),
        pick(&["", "apps"]),
        pick(&["v1", "v1beta1"]),
        pick(&["pods", "namespaces", "deployments"]),
        pick(&["", "", "status", "scale", "log", "log/x"]),
        pick(&["", "default"]),
    )
        .prop_map(
            |(operation, group, version, resource, subresource, namespace)| Req {
                operation,
                group,
                version,
                resource,
                subresource,
                namespace,
            },
        )
}

fn scope_of(s: Option<&str>) -> Option<Scope> {
    match s {
        None => None,
        Some("*") => Some(Scope::All),
        Some("Cluster") => Some(Scope::Cluster),
        Some("Namespaced") => Some(Scope::Namespaced),
        Some(other) => panic!("no scope {other}"),
    }
}

fn rule_json(r: &Rule) -> Value {
    let mut m = Map::new();
    m.insert("operations".into(), json!(r.operations));
    m.insert("apiGroups".into(), json!(r.api_groups));
    m.insert("apiVersions".into(), json!(r.api_versions));
    m.insert("resources".into(), json!(r.resources));
    if let Some(s) = r.scope {
        m.insert("scope".into(), json!(s));
    }
    Value::Object(m)
}

fn check(rule: &RuleWithOperations, r: &Rule, reqs: &[Req]) -> Result<(), TestCaseError> {
    for a in reqs {
        let gvr = Gvr::new(a.group, a.version, a.resource);
        prop_assert_eq!(
            rule.matches(a.operation, gvr, a.subresource, a.namespace),
            oracle_matches(r, a),
            "rule {:?} request {:?}",
            r,
            a
        );
        prop_assert_eq!(
            rule.matches_scope(gvr, a.namespace),
            oracle_scope(r, a),
            "scope: rule {:?} request {:?}",
            r,
            a
        );
        prop_assert_eq!(
            rule.matches_resource(a.resource, a.subresource),
            oracle_resource(r, a),
            "resource: rule {:?} request {:?}",
            r,
            a
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    /// Unvalidated rules (as upstream's matcher tests build them) match like rules.go.
    #[test]
    fn rule_from_parts_matches_like_rules_go(r in rule(), reqs in proptest::collection::vec(request(), 1..=16)) {
        let built = RuleWithOperations::from_parts(&r.operations, &r.api_groups, &r.api_versions, &r.resources, scope_of(r.scope));
        check(&built, &r, &reqs)?;
    }

    /// Rules the API server accepts match like rules.go after `parse` too.
    #[test]
    fn parsed_rule_matches_like_rules_go(r in valid_rule(), reqs in proptest::collection::vec(request(), 1..=16)) {
        // about one draw in ten is a resource combination validation rejects: skipped (not
        // prop_assume'd, so that PROPTEST_CASES can be raised without hitting the reject limit)
        if let Ok(parsed) = RuleWithOperations::parse(&rule_json(&r), "rules[0]") {
            check(&parsed, &r, &reqs)?;
        }
    }

    /// `resourceNames`: empty matches every name (including the empty name of a generateName
    /// create), otherwise the name must be listed exactly.
    #[test]
    fn resource_names_match_by_membership(
        names in proptest::collection::vec(pick(&["a", "b", "web-0"]), 0..=2),
        name in pick(&["", "a", "b", "web-0", "A"]),
    ) {
        let named = NamedRuleWithOperations::from_parts(
            RuleWithOperations::from_parts(&["*"], &["*"], &["*"], &["*"], None),
            &names,
        );
        prop_assert_eq!(named.matches_name(name), names.is_empty() || names.contains(&name));
    }
}

/// A handful of rows of upstream's rules_test.go (`TestResource`, `TestScope`), checked
/// against the oracle: the oracle is upstream's semantics. (The whole tables run against the
/// crate in `rules_test.rs`.)
#[test]
fn oracle_agrees_with_upstream_rows() {
    let rule = |resources: Vec<&'static str>, scope: Option<&'static str>| Rule {
        operations: vec!["*"],
        api_groups: vec!["*"],
        api_versions: vec!["*"],
        resources,
        scope,
    };
    let req = |group, version, resource, subresource, namespace| Req {
        operation: "CREATE",
        group,
        version,
        resource,
        subresource,
        namespace,
    };
    let rows: Vec<(Rule, Req, bool)> = vec![
        // TestResource "no subresources"
        (rule(vec!["*"], None), req("g", "v", "r", "", "ns"), true),
        (
            rule(vec!["*"], None),
            req("g", "v", "r", "exec", "ns"),
            false,
        ),
        // "r & subresources"
        (rule(vec!["r/*"], None), req("g", "v", "r", "", "ns"), true),
        (
            rule(vec!["r/*"], None),
            req("g", "v", "r", "exec", "ns"),
            true,
        ),
        (
            rule(vec!["r/*"], None),
            req("2", "v", "r2", "proxy", "ns"),
            false,
        ),
        // "r & subresources or r2"
        (
            rule(vec!["r/*", "r2"], None),
            req("2", "v", "r2", "", "ns"),
            true,
        ),
        (
            rule(vec!["r/*", "r2"], None),
            req("2", "v", "r2", "proxy", "ns"),
            false,
        ),
        // "proxy or exec"
        (
            rule(vec!["*/proxy", "*/exec"], None),
            req("2", "v", "r3", "proxy", "ns"),
            true,
        ),
        (
            rule(vec!["*/proxy", "*/exec"], None),
            req("2", "v", "r4", "scale", "ns"),
            false,
        ),
        (
            rule(vec!["*/proxy", "*/exec"], None),
            req("g", "v", "r", "", "ns"),
            false,
        ),
        // TestScope "cluster scope"
        (
            rule(vec!["*"], Some("Cluster")),
            req("g", "v", "r", "", ""),
            true,
        ),
        (
            rule(vec!["*/*"], Some("Cluster")),
            req("", "v1", "namespaces", "finalize", "ns"),
            true,
        ),
        (
            rule(vec!["*"], Some("Cluster")),
            req("g", "v", "r", "", "ns"),
            false,
        ),
        // "namespace scope"
        (
            rule(vec!["*"], Some("Namespaced")),
            req("g", "v", "r", "", "ns"),
            true,
        ),
        (
            rule(vec!["*"], Some("Namespaced")),
            req("", "v1", "namespaces", "", "ns"),
            false,
        ),
        (
            rule(vec!["*"], Some("Namespaced")),
            req("g", "v", "r", "", ""),
            false,
        ),
        // "all scopes"
        (
            rule(vec!["*"], Some("*")),
            req("", "v1", "namespaces", "", "ns"),
            true,
        ),
        (rule(vec!["*"], Some("*")), req("g", "v", "r", "", ""), true),
    ];
    for (r, a, want) in &rows {
        assert_eq!(oracle_matches(r, a), *want, "{r:?} {a:?}");
        let built = RuleWithOperations::from_parts(
            &r.operations,
            &r.api_groups,
            &r.api_versions,
            &r.resources,
            scope_of(r.scope),
        );
        assert_eq!(
            built.matches(
                a.operation,
                Gvr::new(a.group, a.version, a.resource),
                a.subresource,
                a.namespace
            ),
            *want,
            "{r:?} {a:?}"
        );
    }
}
