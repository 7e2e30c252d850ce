//! `metav1.LabelSelector`: parsed and validated as the API server validates it
//! (`metav1validation.ValidateLabelSelector`, strict: invalid label values rejected), matched as
//! `labels.Selector.Matches` does.

use crate::field::{self, FieldError};
use palisade_cel_kubernetes::validation;
use serde_json::Value;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Operator {
    In,
    NotIn,
    Exists,
    DoesNotExist,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Requirement {
    key: String,
    op: Operator,
    values: Vec<String>,
}

/// A parsed label selector. The empty selector (`{}`, or absent where the API defaults it) matches everything.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LabelSelector {
    match_labels: Vec<(String, String)>,
    expressions: Vec<Requirement>,
}

/// Anything labels can be read from.
pub(crate) trait LabelSource {
    fn label(&self, key: &str) -> Option<&str>;
}

impl LabelSource for BTreeMap<String, String> {
    fn label(&self, key: &str) -> Option<&str> {
        self.get(key).map(String::as_str)
    }
}

/// `metadata.labels` of a JSON object; non-string values are not labels.
impl LabelSource for serde_json::Map<String, Value> {
    fn label(&self, key: &str) -> Option<&str> {
        self.get(key).and_then(Value::as_str)
    }
}

/// No labels at all (an object whose metadata has none).
pub(crate) struct NoLabels;

impl LabelSource for NoLabels {
    fn label(&self, _key: &str) -> Option<&str> {
        None
    }
}

impl LabelSelector {
    /// The selector that matches everything.
    pub fn everything() -> Self {
        Self::default()
    }

    /// Parses and validates a `LabelSelector`; `path` prefixes every error (e.g. `namespaceSelector`).
    /// `null` is the empty selector.
    pub fn parse(v: &Value, path: &str) -> Result<Self, Vec<FieldError>> {
        let mut errs = Vec::new();
        let sel = Self::parse_into(v, path, &mut errs);
        if errs.is_empty() { Ok(sel) } else { Err(errs) }
    }

    pub(crate) fn parse_into(v: &Value, path: &str, errs: &mut Vec<FieldError>) -> Self {
        let mut sel = LabelSelector::default();
        if v.is_null() {
            return sel;
        }
        let Some(obj) = field::as_object(v, path, errs) else {
            return sel;
        };
        let labels_path = field::child(path, "matchLabels");
        match field::get(obj, "matchLabels") {
            None => {}
            Some(Value::Object(m)) => {
                for (k, val) in m {
                    for msg in validation::is_qualified_name(k) {
                        errs.push(field::invalid_str(labels_path.clone(), k, &msg));
                    }
                    match val {
                        Value::String(s) => {
                            for msg in validation::is_valid_label_value(s) {
                                errs.push(field::invalid_str(labels_path.clone(), s, &msg));
                            }
                            sel.match_labels.push((k.clone(), s.clone()));
                        }
                        _ => {
                            errs.push(field::wrong_type(field::child(&labels_path, k), "a string"))
                        }
                    }
                }
            }
            Some(_) => errs.push(field::wrong_type(labels_path, "an object of strings")),
        }
        let exprs_path = field::child(path, "matchExpressions");
        match field::get(obj, "matchExpressions") {
            None => {}
            Some(Value::Array(items)) => {
                for (i, item) in items.iter().enumerate() {
                    let p = field::index(&exprs_path, i);
                    if let Some(r) = parse_requirement(item, &p, errs) {
                        sel.expressions.push(r);
                    }
                }
            }
            Some(_) => errs.push(field::wrong_type(exprs_path, "an array")),
        }
        sel
    }

    /// True for the empty selector (`labels.Selector.Empty()`), which matches every label set.
    pub fn is_everything(&self) -> bool {
        self.match_labels.is_empty() && self.expressions.is_empty()
    }

    /// Whether `labels` satisfy every requirement.
    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        self.matches_source(labels)
    }

    /// Matches the labels of a JSON `metadata.labels` object.
    pub fn matches_json(&self, labels: &serde_json::Map<String, Value>) -> bool {
        self.matches_source(labels)
    }

    pub(crate) fn matches_source<L: LabelSource + ?Sized>(&self, labels: &L) -> bool {
        self.match_labels
            .iter()
            .all(|(k, v)| labels.label(k) == Some(v.as_str()))
            && self.expressions.iter().all(|r| {
                let got = labels.label(&r.key);
                match r.op {
                    Operator::In => got.is_some_and(|g| r.values.iter().any(|v| v == g)),
                    Operator::NotIn => got.is_none_or(|g| !r.values.iter().any(|v| v == g)),
                    Operator::Exists => got.is_some(),
                    Operator::DoesNotExist => got.is_none(),
                }
            })
    }
}

fn parse_requirement(item: &Value, path: &str, errs: &mut Vec<FieldError>) -> Option<Requirement> {
    let obj = field::as_object(item, path, errs)?;
    let before = errs.len();
    let key = field::string_field(obj, "key", path, errs).unwrap_or_default();
    let op_text = field::string_field(obj, "operator", path, errs).unwrap_or_default();
    let values = field::string_list(obj, "values", path, errs);
    let values_path = field::child(path, "values");
    let op = match op_text.as_str() {
        "In" => Some(Operator::In),
        "NotIn" => Some(Operator::NotIn),
        "Exists" => Some(Operator::Exists),
        "DoesNotExist" => Some(Operator::DoesNotExist),
        _ => None,
    };
    match op {
        Some(Operator::In | Operator::NotIn) if values.is_empty() => errs.push(field::required(
            values_path.clone(),
            "must be specified when `operator` is 'In' or 'NotIn'",
        )),
        Some(Operator::Exists | Operator::DoesNotExist) if !values.is_empty() => {
            errs.push(field::forbidden(
                values_path.clone(),
                "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
            ))
        }
        Some(_) => {}
        None => errs.push(field::invalid_str(
            field::child(path, "operator"),
            &op_text,
            "not a valid selector operator",
        )),
    }
    for msg in validation::is_qualified_name(&key) {
        errs.push(field::invalid_str(field::child(path, "key"), &key, &msg));
    }
    for (i, value) in values.iter().enumerate() {
        for msg in validation::is_valid_label_value(value) {
            errs.push(field::invalid_str(
                field::index(&values_path, i),
                value,
                &msg,
            ));
        }
    }
    if errs.len() != before {
        return None;
    }
    Some(Requirement {
        key,
        op: op?,
        values,
    })
}
