//! Properties of `LabelSelector` against a naive oracle written from k8s.io/apimachinery:
//!
//! - matching (`pkg/labels` semantics, reached through `metav1.LabelSelectorAsSelector`):
//!   matchLabels and matchExpressions are ANDed; `In` needs the key present with a listed
//!   value, `NotIn` matches an absent key or an unlisted value, `Exists` / `DoesNotExist` test
//!   presence; the empty selector matches everything. Checked through `matches` and through
//!   `matches_json` (where a non-string value is not a label).
//! - validation (`pkg/apis/meta/v1/validation.ValidateLabelSelector` /
//!   `ValidateLabelSelectorRequirement`, strict label values): `In`/`NotIn` need values,
//!   `Exists`/`DoesNotExist` forbid them, any other operator (case-sensitive: `in`, `Gt`, ``)
//!   is invalid, keys must be qualified names, values valid label values.
#![allow(
    clippy::panic,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]

use palisade_matching::LabelSelector;
use proptest::prelude::*;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

/// Valid label keys (qualified names); small so selectors and label sets collide.
const KEYS: &[&str] = &["a", "b", "app", "App", "example.com/a"];
/// Valid label values (the empty value is a valid label value).
const VALUES: &[&str] = &["", "1", "2", "x", "A_b.c"];
/// Keys `IsQualifiedName` rejects.
const BAD_KEYS: &[&str] = &["", "-a", "a b", "Example.com/a", "a/", "/a", "a_"];
/// Values `IsValidLabelValue` rejects.
const BAD_VALUES: &[&str] = &["-x", "x-", "a b", "é"];
const OPERATORS: &[&str] = &["In", "NotIn", "Exists", "DoesNotExist"];
/// Operators the API server rejects in a LabelSelector (`Gt`/`Lt` exist only in node selectors).
const BAD_OPERATORS: &[&str] = &["in", "notin", "exists", "Gt", "Lt", "", "Equals", "!="];

// ---------------------------------------------------------------------------------------------
// The oracle: a literal reading of the JSON selector, no parsing shared with the crate.

fn oracle_requirement(expr: &Value, labels: &BTreeMap<String, String>) -> bool {
    let key = expr["key"].as_str().unwrap();
    let operator = expr["operator"].as_str().unwrap();
    let mut values: Vec<&str> = Vec::new();
    if let Some(list) = expr.get("values").and_then(Value::as_array) {
        for v in list {
            values.push(v.as_str().unwrap());
        }
    }
    let present = labels.contains_key(key);
    let listed = match labels.get(key) {
        Some(actual) => values.contains(&actual.as_str()),
        None => false,
    };
    match operator {
        "In" => present && listed,
        "NotIn" => !present || !listed,
        "Exists" => present,
        "DoesNotExist" => !present,
        other => panic!("oracle asked about operator {other:?}"),
    }
}

fn oracle_matches(selector: &Value, labels: &BTreeMap<String, String>) -> bool {
    if selector.is_null() {
        return true;
    }
    if let Some(match_labels) = selector.get("matchLabels").and_then(Value::as_object) {
        for (k, v) in match_labels {
            if labels.get(k).map(String::as_str) != Some(v.as_str().unwrap()) {
                return false;
            }
        }
    }
    if let Some(exprs) = selector.get("matchExpressions").and_then(Value::as_array) {
        for e in exprs {
            if !oracle_requirement(e, labels) {
                return false;
            }
        }
    }
    true
}

/// True when the selector has no requirement at all (`labels.Selector.Empty()`).
fn oracle_is_empty(selector: &Value) -> bool {
    let no_labels = selector
        .get("matchLabels")
        .and_then(Value::as_object)
        .is_none_or(Map::is_empty);
    let no_exprs = selector
        .get("matchExpressions")
        .and_then(Value::as_array)
        .is_none_or(Vec::is_empty);
    no_labels && no_exprs
}

/// `ValidateLabelSelector` over the generated vocabulary: membership in the lists above
/// decides key and value validity.
fn oracle_valid(selector: &Value) -> bool {
    let key_ok = |k: &str| KEYS.contains(&k);
    let value_ok = |v: &str| VALUES.contains(&v);
    if let Some(match_labels) = selector.get("matchLabels").and_then(Value::as_object) {
        for (k, v) in match_labels {
            if !key_ok(k) || !value_ok(v.as_str().unwrap()) {
                return false;
            }
        }
    }
    if let Some(exprs) = selector.get("matchExpressions").and_then(Value::as_array) {
        for e in exprs {
            // an absent key / operator is the empty string in Go
            let key = e.get("key").and_then(Value::as_str).unwrap_or("");
            let operator = e.get("operator").and_then(Value::as_str).unwrap_or("");
            let values: Vec<&str> = e
                .get("values")
                .and_then(Value::as_array)
                .map(|l| l.iter().map(|v| v.as_str().unwrap()).collect())
                .unwrap_or_default();
            let operator_ok = match operator {
                "In" | "NotIn" => !values.is_empty(),
                "Exists" | "DoesNotExist" => values.is_empty(),
                _ => false,
            };
            if !operator_ok || !key_ok(key) || !values.iter().all(|v| value_ok(v)) {
                return false;
            }
        }
    }
    true
}

// ---------------------------------------------------------------------------------------------
// Generators.

fn pick(pool: &'static [&'static str]) -> impl Strategy<Value = &'static str> {
    proptest::sample::select(pool)
}

/// A requirement the API server accepts.
fn valid_requirement() -> impl Strategy<Value = Value> {
    (
        pick(KEYS),
        pick(OPERATORS),
        proptest::collection::vec(pick(VALUES), 1..=3),
        any::<bool>(),
    )
        .prop_map(|(key, op, values, spell_out_empty)| match op {
            "In" | "NotIn" => json!({"key": key, "operator": op, "values": values}),
            _ if spell_out_empty => json!({"key": key, "operator": op, "values": []}),
            _ => json!({"key": key, "operator": op}),
        })
}

/// A selector the API server accepts: matchLabels and matchExpressions each absent, `null`,
/// empty or populated.
fn valid_selector() -> impl Strategy<Value = Value> {
    let labels = prop_oneof![
        1 => Just(None),
        1 => Just(Some(Value::Null)),
        4 => proptest::collection::btree_map(pick(KEYS), pick(VALUES), 0..=3)
            .prop_map(|m| Some(json!(m))),
    ];
    let exprs = prop_oneof![
        1 => Just(None),
        1 => Just(Some(Value::Null)),
        4 => proptest::collection::vec(valid_requirement(), 0..=4).prop_map(|v| Some(json!(v))),
    ];
    prop_oneof![
        1 => Just(Value::Null),
        12 => (labels, exprs).prop_map(|(l, e)| {
            let mut m = Map::new();
            if let Some(l) = l {
                m.insert("matchLabels".into(), l);
            }
            if let Some(e) = e {
                m.insert("matchExpressions".into(), e);
            }
            Value::Object(m)
        }),
    ]
}

/// A requirement over good and bad keys, operators and values, any field possibly missing.
fn any_requirement() -> impl Strategy<Value = Value> {
    let key = prop_oneof![3 => pick(KEYS).prop_map(Some), 1 => pick(BAD_KEYS).prop_map(Some), 1 => Just(None)];
    let op = prop_oneof![
        4 => pick(OPERATORS).prop_map(Some),
        2 => pick(BAD_OPERATORS).prop_map(Some),
        1 => Just(None)
    ];
    let value = prop_oneof![4 => pick(VALUES), 1 => pick(BAD_VALUES)];
    let values = prop_oneof![
        1 => Just(None),
        4 => proptest::collection::vec(value, 0..=2).prop_map(Some),
    ];
    (key, op, values).prop_map(|(key, op, values)| {
        let mut m = Map::new();
        if let Some(k) = key {
            m.insert("key".into(), json!(k));
        }
        if let Some(o) = op {
            m.insert("operator".into(), json!(o));
        }
        if let Some(v) = values {
            m.insert("values".into(), json!(v));
        }
        Value::Object(m)
    })
}

fn any_selector() -> impl Strategy<Value = Value> {
    let key = prop_oneof![4 => pick(KEYS), 1 => pick(BAD_KEYS)];
    let value = prop_oneof![4 => pick(VALUES), 1 => pick(BAD_VALUES)];
    (
        proptest::collection::btree_map(key, value, 0..=2),
        proptest::collection::vec(any_requirement(), 0..=3),
    )
        .prop_map(|(l, e)| json!({"matchLabels": l, "matchExpressions": e}))
}

/// A label value as it may sit in a JSON `metadata.labels`: usually a string, sometimes not.
#[derive(Debug, Clone)]
enum JsonLabel {
    Str(&'static str),
    Other(Value),
}

fn json_labels() -> impl Strategy<Value = BTreeMap<&'static str, JsonLabel>> {
    let label = prop_oneof![
        6 => pick(VALUES).prop_map(JsonLabel::Str),
        1 => Just(JsonLabel::Other(Value::Null)),
        1 => Just(JsonLabel::Other(json!(1))),
        1 => Just(JsonLabel::Other(json!(true))),
        1 => Just(JsonLabel::Other(json!(["x"]))),
    ];
    proptest::collection::btree_map(pick(KEYS), label, 0..=4)
}

/// The string labels of a JSON label object (what the oracle sees) and the object itself.
fn split(
    labels: &BTreeMap<&'static str, JsonLabel>,
) -> (BTreeMap<String, String>, Map<String, Value>) {
    let mut strings = BTreeMap::new();
    let mut object = Map::new();
    for (k, v) in labels {
        match v {
            JsonLabel::Str(s) => {
                strings.insert((*k).to_owned(), (*s).to_owned());
                object.insert((*k).to_owned(), json!(s));
            }
            JsonLabel::Other(o) => {
                object.insert((*k).to_owned(), o.clone());
            }
        }
    }
    (strings, object)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    /// A valid selector parses, and `matches` / `matches_json` agree with the oracle on many
    /// label sets; `is_everything` is exactly "no requirement", and such a selector matches
    /// every label set.
    #[test]
    fn selector_matches_like_the_oracle(
        selector in valid_selector(),
        label_sets in proptest::collection::vec(json_labels(), 1..=8),
    ) {
        let parsed = LabelSelector::parse(&selector, "selector");
        prop_assert!(parsed.is_ok(), "{} rejected: {:?}", selector, parsed);
        let parsed = parsed.unwrap();
        prop_assert_eq!(parsed.is_everything(), selector.is_null() || oracle_is_empty(&selector), "{}", selector);
        for labels in &label_sets {
            let (strings, object) = split(labels);
            let want = oracle_matches(&selector, &strings);
            prop_assert_eq!(parsed.matches(&strings), want, "selector {} labels {:?}", selector, strings);
            prop_assert_eq!(parsed.matches_json(&object), want, "selector {} labels {}", selector, Value::Object(object.clone()));
            if parsed.is_everything() {
                prop_assert!(want);
            }
        }
    }

    /// `parse` accepts exactly what `ValidateLabelSelector` accepts; whatever it accepts
    /// matches like the oracle.
    #[test]
    fn selector_validation_like_the_apiserver(
        selector in any_selector(),
        labels in proptest::collection::btree_map(pick(KEYS), pick(VALUES), 0..=4),
    ) {
        let parsed = LabelSelector::parse(&selector, "selector");
        let valid = oracle_valid(&selector);
        prop_assert_eq!(parsed.is_ok(), valid, "{} -> {:?}", selector, parsed);
        if let Ok(s) = parsed {
            let labels: BTreeMap<String, String> =
                labels.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
            prop_assert_eq!(s.matches(&labels), oracle_matches(&selector, &labels), "{} {:?}", selector, labels);
        }
    }
}

// The rejections, spelled out (each one a case `selector_validation_like_the_apiserver` draws).
#[test]
fn apiserver_rejections() {
    for bad in [
        json!({"matchExpressions": [{"key": "a", "operator": "In"}]}),
        json!({"matchExpressions": [{"key": "a", "operator": "In", "values": []}]}),
        json!({"matchExpressions": [{"key": "a", "operator": "NotIn", "values": []}]}),
        json!({"matchExpressions": [{"key": "a", "operator": "Exists", "values": ["x"]}]}),
        json!({"matchExpressions": [{"key": "a", "operator": "DoesNotExist", "values": [""]}]}),
        json!({"matchExpressions": [{"key": "a", "operator": "in", "values": ["x"]}]}),
        json!({"matchExpressions": [{"key": "a", "operator": "Gt", "values": ["1"]}]}),
        json!({"matchExpressions": [{"key": "a", "values": ["1"]}]}),
        json!({"matchExpressions": [{"operator": "Exists"}]}),
    ] {
        assert!(LabelSelector::parse(&bad, "s").is_err(), "{bad} accepted");
    }
}

/// upstream: k8s.io/apimachinery pkg/labels/selector_test.go `TestSelectorMatches` and
/// `TestEverything`, each string selector written as the `metav1.LabelSelector` it stands for
/// (`x=y` is matchLabels, `x!=y` is `NotIn [y]`); checked against both the oracle (so the
/// oracle is upstream's semantics) and the crate.
#[test]
fn upstream_selector_matches_table() {
    let ne = |k: &str, v: &str| json!({"key": k, "operator": "NotIn", "values": [v]});
    let set = |pairs: &[(&str, &str)]| -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    };
    let labelset = set(&[("foo", "bar"), ("baz", "blah")]);
    let cases: Vec<(Value, BTreeMap<String, String>, bool)> = vec![
        (json!({}), set(&[("x", "y")]), true),
        (json!({"matchLabels": {"x": "y"}}), set(&[("x", "y")]), true),
        (
            json!({"matchLabels": {"x": "y", "z": "w"}}),
            set(&[("x", "y"), ("z", "w")]),
            true,
        ),
        (
            json!({"matchExpressions": [ne("x", "y"), ne("z", "w")]}),
            set(&[("x", "z"), ("z", "a")]),
            true,
        ),
        (
            json!({"matchLabels": {"x": "y"}}),
            set(&[("x", "z")]),
            false,
        ),
        (
            json!({"matchLabels": {"x": "y", "z": "w"}}),
            set(&[("x", "w"), ("z", "w")]),
            false,
        ),
        (
            json!({"matchExpressions": [ne("x", "y"), ne("z", "w")]}),
            set(&[("x", "z"), ("z", "w")]),
            false,
        ),
        (
            json!({"matchLabels": {"foo": "bar"}}),
            labelset.clone(),
            true,
        ),
        (
            json!({"matchLabels": {"baz": "blah"}}),
            labelset.clone(),
            true,
        ),
        (
            json!({"matchLabels": {"foo": "bar", "baz": "blah"}}),
            labelset.clone(),
            true,
        ),
        (
            json!({"matchLabels": {"foo": "blah"}}),
            labelset.clone(),
            false,
        ),
        (
            json!({"matchLabels": {"baz": "bar"}}),
            labelset.clone(),
            false,
        ),
        (
            json!({"matchLabels": {"foo": "bar", "foobar": "bar", "baz": "blah"}}),
            labelset,
            false,
        ),
    ];
    for (selector, labels, want) in cases {
        assert_eq!(
            oracle_matches(&selector, &labels),
            want,
            "oracle: {selector} {labels:?}"
        );
        let parsed = LabelSelector::parse(&selector, "s").unwrap();
        assert_eq!(parsed.matches(&labels), want, "{selector} {labels:?}");
    }
    // TestEverything
    let everything = LabelSelector::parse(&json!({}), "s").unwrap();
    assert!(everything.is_everything());
    assert!(everything.matches(&set(&[("x", "y")])));
}
