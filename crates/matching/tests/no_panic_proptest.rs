//! Property: no input, however malformed, makes parsing or matching panic.
#![allow(
    clippy::panic,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]

use palisade_cel_kubernetes::cluster::NoCluster;
use palisade_matching::{
    Attributes, Given, Gvk, Gvr, LabelSelector, MatchResources, RuleWithOperations, Webhook,
    parse_validating_webhook_configuration,
};
use proptest::prelude::*;
use serde_json::{Value, json};

const KEYS: &[&str] = &[
    "operations",
    "apiGroups",
    "apiVersions",
    "resources",
    "scope",
    "resourceNames",
    "resourceRules",
    "excludeResourceRules",
    "matchPolicy",
    "namespaceSelector",
    "objectSelector",
    "matchLabels",
    "matchExpressions",
    "key",
    "operator",
    "values",
    "name",
    "rules",
    "sideEffects",
    "timeoutSeconds",
    "failurePolicy",
    "admissionReviewVersions",
    "matchConditions",
    "expression",
    "webhooks",
    "metadata",
    "labels",
    "kind",
];
const STRINGS: &[&str] = &[
    "*",
    "",
    "CREATE",
    "pods",
    "pods/*",
    "*/*",
    "a/b/c",
    "In",
    "NotIn",
    "Exists",
    "Exact",
    "Equivalent",
    "v1",
    "None",
    "x.y.z",
    "-bad",
    "é/ü",
    "/",
    "%",
];

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        proptest::sample::select(STRINGS).prop_map(|s| json!(s)),
        ".{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(5, 64, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            proptest::collection::vec((proptest::sample::select(KEYS), inner), 0..6).prop_map(
                |kv| Value::Object(kv.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
            ),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]
    #[test]
    fn parsers_and_matchers_never_panic(v in json_value(), obj in json_value()) {
        let objects = Given { object: Some(&obj), old_object: Some(&obj) };
        let a = Attributes {
            operation: "CREATE",
            resource: Gvr::new("", "v1", "namespaces"),
            kind: Gvk::new("", "v1", "Namespace"),
            name: "n",
            namespace: "n",
            objects: Some(&objects),
            ..Attributes::default()
        };
        if let Ok(m) = MatchResources::parse(&v, "m") {
            let _ = m.matches(&a, &NoCluster);
        }
        let _ = MatchResources::parse_policy_constraints(&v, "m");
        let _ = RuleWithOperations::parse(&v, "r");
        if let Ok(s) = LabelSelector::parse(&v, "s") {
            let _ = s.is_everything();
        }
        if let Ok(h) = Webhook::parse(&v, "w") {
            let _ = h.matches(&a, &NoCluster);
        }
        let _ = parse_validating_webhook_configuration(&v);
        for e in MatchResources::parse(&v, "m").err().unwrap_or_default() {
            prop_assert!(!e.to_string().is_empty());
        }
    }
}
