//! The ValidatingAdmissionPolicyBinding document (`validateValidatingAdmissionPolicyBindingSpec`).

use palisade_matching::{LabelSelector, MatchResources};
use serde_json::Value;

use crate::bundle::Problems;
use crate::document::{Fields, metadata_name};
use palisade_cel_kubernetes::field::{BadValue, Error, Path};

/// One of `spec.validationActions`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Deny,
    Warn,
    Audit,
}

impl Action {
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Deny => "Deny",
            Action::Warn => "Warn",
            Action::Audit => "Audit",
        }
    }
}

/// `spec.paramRef.parameterNotFoundAction`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotFound {
    Allow,
    Deny,
}

/// Which params a binding selects: one by name, or every one its selector matches.
#[derive(Debug)]
pub enum ParamSelection {
    Name(String),
    Selector(LabelSelector),
}

/// `spec.paramRef`.
#[derive(Debug)]
pub struct ParamRef {
    pub selection: ParamSelection,
    pub namespace: Option<String>,
    pub not_found: NotFound,
}

/// A compiled binding.
#[derive(Debug)]
pub struct Binding {
    pub name: String,
    pub policy_name: String,
    pub param_ref: Option<ParamRef>,
    /// `None`: the binding matches whatever its policy matches.
    pub match_resources: Option<MatchResources>,
    /// In the order written, as kube-apiserver applies and reports them.
    pub actions: Vec<Action>,
}

impl Binding {
    /// Read `policies[doc]`; `None` when it has problems (all reported).
    pub fn compile(doc: usize, value: &Value, problems: &mut Problems) -> Option<Binding> {
        let before = problems.len();
        let mut root = Fields::new(doc, String::new(), value, problems);
        let name = metadata_name(&mut root);
        let Some(spec_value) = root.get("spec") else {
            root.required("spec", "");
            return None;
        };
        let mut spec = Fields::new(doc, "spec".to_owned(), spec_value, root.problems);
        spec.deny_unknown(&[
            "policyName",
            "paramRef",
            "matchResources",
            "validationActions",
        ]);
        let policy_name = spec.required_string("policyName").map(str::to_owned);

        let param_ref = spec
            .get("paramRef")
            .and_then(|pr| read_param_ref(doc, pr, spec.problems));

        let match_resources = read_match_resources(&mut spec);
        let actions = read_validation_actions(&mut spec);

        if problems.len() > before {
            return None;
        }
        Some(Binding {
            name: name?,
            policy_name: policy_name?,
            param_ref,
            match_resources,
            actions,
        })
    }
}

/// `spec.matchResources`, optional (`None`: the binding matches whatever its policy matches).
fn read_match_resources(spec: &mut Fields<'_, '_>) -> Option<MatchResources> {
    let value = spec.get("matchResources")?;
    match MatchResources::parse(value, "") {
        Ok(m) => Some(m),
        Err(errors) => {
            for e in errors {
                let path = Path::new("spec").child("matchResources").join(&e.path);
                spec.problem_at(path.as_str(), e.message);
            }
            None
        }
    }
}

/// `spec.validationActions`: at least one, each known and listed once, not both Deny and Warn; the valid ones in
/// the order written.
fn read_validation_actions(spec: &mut Fields<'_, '_>) -> Vec<Action> {
    let mut actions = Vec::new();
    let raw = spec.strings("validationActions");
    for (i, a) in raw.iter().enumerate() {
        let path = spec.path_of("validationActions").index(i);
        let action = match *a {
            "Deny" => Action::Deny,
            "Warn" => Action::Warn,
            "Audit" => Action::Audit,
            other => {
                spec.error(Error::not_supported(
                    &path,
                    other,
                    &["Audit", "Deny", "Warn"],
                ));
                continue;
            }
        };
        if actions.contains(&action) {
            spec.error(Error::duplicate(&path, *a));
            continue;
        }
        actions.push(action);
    }
    if actions.contains(&Action::Deny) && actions.contains(&Action::Warn) {
        spec.error(Error::invalid(
            &spec.path_of("validationActions"),
            BadValue::strings(&raw),
            "must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)",
        ));
    }
    if raw.is_empty() {
        spec.required(
            "validationActions",
            "at least one validation action is required",
        );
    }
    actions
}

/// `spec.paramRef`: a name or a selector (not both), an optional namespace, a parameterNotFoundAction.
fn read_param_ref(doc: usize, value: &Value, problems: &mut Problems) -> Option<ParamRef> {
    let mut pr = Fields::new(doc, "spec.paramRef".to_owned(), value, problems);
    pr.deny_unknown(&["name", "namespace", "selector", "parameterNotFoundAction"]);
    let name = pr.string("name").filter(|n| !n.is_empty());
    let namespace = pr
        .string("namespace")
        .filter(|n| !n.is_empty())
        .map(str::to_owned);
    let selector = pr
        .get("selector")
        .and_then(|s| match LabelSelector::parse(s, "") {
            Ok(sel) => Some(sel),
            Err(errors) => {
                for e in errors {
                    let path = Path::new("spec")
                        .child("paramRef")
                        .child("selector")
                        .join(&e.path);
                    pr.problem_at(path.as_str(), e.message);
                }
                None
            }
        });
    let has_selector = pr.get("selector").is_some();
    if name.is_some() && has_selector {
        pr.error(Error::forbidden(
            &pr.path_of("name"),
            "name and selector are mutually exclusive",
        ));
        pr.error(Error::forbidden(
            &pr.path_of("selector"),
            "name and selector are mutually exclusive",
        ));
    }
    if name.is_none() && !has_selector {
        let e = Error::required(&pr.path(), "one of name or selector must be specified");
        pr.error(e);
    }
    let not_found = match pr.string("parameterNotFoundAction") {
        Some("Allow") => Some(NotFound::Allow),
        Some("Deny") => Some(NotFound::Deny),
        None | Some("") => {
            pr.required("parameterNotFoundAction", "");
            None
        }
        Some(other) => {
            pr.problem(
                "parameterNotFoundAction",
                crate::document::unsupported(other, &["Deny", "Allow"]),
            );
            None
        }
    };
    let selection = match (name, selector) {
        (Some(n), None) => ParamSelection::Name(n.to_owned()),
        (None, Some(s)) => ParamSelection::Selector(s),
        _ => return None,
    };
    Some(ParamRef {
        selection,
        namespace,
        not_found: not_found?,
    })
}
