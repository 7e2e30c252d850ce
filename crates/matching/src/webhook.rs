//! `ValidatingWebhookConfiguration.webhooks[]`: parsed and validated as kubernetes
//! `pkg/apis/admissionregistration/validation` validates a v1 configuration, matched as
//! k8s.io/apiserver `pkg/admission/plugin/webhook/generic` `ShouldCallHook` does (match
//! conditions are CEL, evaluated by the caller after a match).

use crate::attributes::Attributes;
use crate::equivalence::{BuiltinEquivalences, EquivalentResourceMapper};
use crate::field::{self, FieldError, go_quote};
use crate::match_resources::{MatchPolicy, parse_match_policy, parse_selector};
use crate::predicates::{self, MatchError, Matched};
use crate::rules::RuleWithOperations;
use crate::selector::LabelSelector;
use palisade_cel_kubernetes::cluster::Cluster;
use palisade_cel_kubernetes::validation;
use serde_json::Value;

/// `failurePolicy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FailurePolicy {
    /// The API server's default.
    #[default]
    Fail,
    Ignore,
}

const SUPPORTED_FAILURE_POLICIES: &[&str] = &["Fail", "Ignore"];

/// `sideEffects`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SideEffectClass {
    None,
    NoneOnDryRun,
    Some,
    Unknown,
}

const SUPPORTED_SIDE_EFFECTS: &[&str] = &["None", "NoneOnDryRun", "Some", "Unknown"];

impl SideEffectClass {
    /// Whether the webhook may be called for a dry-run request.
    pub fn allows_dry_run(self) -> bool {
        matches!(self, SideEffectClass::None | SideEffectClass::NoneOnDryRun)
    }
}

/// The AdmissionReview versions kube-apiserver speaks (`AcceptedAdmissionReviewVersions`).
pub const ACCEPTED_ADMISSION_REVIEW_VERSIONS: &[&str] = &["v1", "v1beta1"];

/// The default and bounds of `timeoutSeconds`.
pub const DEFAULT_TIMEOUT_SECONDS: u32 = 10;

/// One `matchConditions` entry, kept as text: CEL is compiled and evaluated by the caller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatchCondition {
    pub name: String,
    pub expression: String,
}

/// One entry of `ValidatingWebhookConfiguration.webhooks[]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Webhook {
    pub name: String,
    pub rules: Vec<RuleWithOperations>,
    pub namespace_selector: LabelSelector,
    pub object_selector: LabelSelector,
    pub match_policy: MatchPolicy,
    pub side_effects: SideEffectClass,
    pub admission_review_versions: Vec<String>,
    /// 1–30, default 10.
    pub timeout_seconds: u32,
    pub failure_policy: FailurePolicy,
    pub match_conditions: Vec<MatchCondition>,
}

impl Webhook {
    /// Parses and validates one webhook; `path` prefixes every error (e.g. `webhooks[0]`).
    ///
    /// Follows the v1 create validation, except that `sideEffects` accepts every class
    /// (`Some` and `Unknown` too, as configurations stored before v1 may carry them) so that the
    /// caller can refuse dry-run requests as kube-apiserver does ([`Webhook::check_dry_run`]).
    /// `clientConfig` is not read.
    pub fn parse(v: &Value, path: &str) -> Result<Self, Vec<FieldError>> {
        let mut errs = Vec::new();
        let hook = Self::parse_into(v, path, &mut errs);
        match hook {
            Some(h) if errs.is_empty() => Ok(h),
            _ => Err(errs),
        }
    }

    fn parse_into(v: &Value, path: &str, errs: &mut Vec<FieldError>) -> Option<Self> {
        let obj = field::as_object(v, path, errs)?;
        let name = field::string_field(obj, "name", path, errs).unwrap_or_default();
        validate_fully_qualified_name(&name, &field::child(path, "name"), errs);

        let rules_path = field::child(path, "rules");
        let rules = match field::get(obj, "rules") {
            None => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .filter_map(|(i, item)| {
                    RuleWithOperations::parse_into(item, &field::index(&rules_path, i), errs)
                })
                .collect(),
            Some(_) => {
                errs.push(field::wrong_type(rules_path, "an array"));
                Vec::new()
            }
        };

        let failure_policy = match field::string_field(obj, "failurePolicy", path, errs).as_deref()
        {
            None | Some("Fail") => FailurePolicy::Fail,
            Some("Ignore") => FailurePolicy::Ignore,
            Some(other) => {
                errs.push(field::not_supported(
                    field::child(path, "failurePolicy"),
                    other,
                    SUPPORTED_FAILURE_POLICIES,
                ));
                FailurePolicy::Fail
            }
        };
        let match_policy = parse_match_policy(obj, path, errs);

        let side_effects_path = field::child(path, "sideEffects");
        let side_effects = match field::string_field(obj, "sideEffects", path, errs).as_deref() {
            Some("None") => SideEffectClass::None,
            Some("NoneOnDryRun") => SideEffectClass::NoneOnDryRun,
            Some("Some") => SideEffectClass::Some,
            Some("Unknown") => SideEffectClass::Unknown,
            Some(other) => {
                errs.push(field::not_supported(
                    side_effects_path,
                    other,
                    SUPPORTED_SIDE_EFFECTS,
                ));
                SideEffectClass::Unknown
            }
            None => {
                errs.push(field::required(
                    side_effects_path,
                    &format!("must specify one of {}", SUPPORTED_SIDE_EFFECTS.join(", ")),
                ));
                SideEffectClass::Unknown
            }
        };

        let timeout_path = field::child(path, "timeoutSeconds");
        let timeout_seconds = match field::get(obj, "timeoutSeconds") {
            None => DEFAULT_TIMEOUT_SECONDS,
            Some(t) => match t.as_i64() {
                Some(n @ 1..=30) => u32::try_from(n).unwrap_or(DEFAULT_TIMEOUT_SECONDS),
                Some(_) => {
                    errs.push(field::invalid(
                        timeout_path,
                        t,
                        "the timeout value must be between 1 and 30 seconds",
                    ));
                    DEFAULT_TIMEOUT_SECONDS
                }
                None => {
                    errs.push(field::wrong_type(timeout_path, "an integer"));
                    DEFAULT_TIMEOUT_SECONDS
                }
            },
        };

        let namespace_selector = parse_selector(obj, "namespaceSelector", path, errs);
        let object_selector = parse_selector(obj, "objectSelector", path, errs);
        let match_conditions = parse_match_conditions(obj, path, errs);

        let admission_review_versions =
            field::string_list(obj, "admissionReviewVersions", path, errs);
        validate_admission_review_versions(
            &admission_review_versions,
            &field::child(path, "admissionReviewVersions"),
            errs,
        );

        Some(Webhook {
            name,
            rules,
            namespace_selector,
            object_selector,
            match_policy,
            side_effects,
            admission_review_versions,
            timeout_seconds,
            failure_policy,
            match_conditions,
        })
    }

    /// `ShouldCallHook` without the match conditions: whether the webhook is called for the
    /// request, and with which resource/kind (its own, or an equivalent under `Equivalent`).
    /// The caller checks [`is_webhook_configuration_exempt`](crate::is_webhook_configuration_exempt)
    /// first and evaluates `match_conditions` after a match.
    pub fn matches<'a>(
        &self,
        a: &Attributes<'a>,
        ns: &dyn Cluster,
    ) -> Result<Option<Matched<'a>>, MatchError> {
        self.matches_with(a, ns, &BuiltinEquivalences)
    }

    /// [`Webhook::matches`] with another equivalence table.
    pub fn matches_with<'a>(
        &self,
        a: &Attributes<'a>,
        ns: &dyn Cluster,
        mapper: &dyn EquivalentResourceMapper,
    ) -> Result<Option<Matched<'a>>, MatchError> {
        let equivalent = self.match_policy == MatchPolicy::Equivalent;
        let rules = predicates::match_rules(&self.rules, equivalent, a, mapper);
        predicates::combine(
            rules,
            &self.namespace_selector,
            &self.object_selector,
            a,
            ns,
        )
    }

    /// kube-apiserver refuses a dry-run request for a webhook that may have side effects, with
    /// a 400: `admission webhook "<name>" does not support dry run`.
    pub fn check_dry_run(&self, dry_run: bool) -> Result<(), String> {
        if dry_run && !self.side_effects.allows_dry_run() {
            return Err(format!(
                "admission webhook {} does not support dry run",
                go_quote(&self.name)
            ));
        }
        Ok(())
    }

    /// The first of the webhook's `admissionReviewVersions` that `supported` contains.
    pub fn admission_review_version<'s>(&'s self, supported: &[&str]) -> Option<&'s str> {
        self.admission_review_versions
            .iter()
            .map(String::as_str)
            .find(|v| supported.contains(v))
    }
}

/// Parses a whole ValidatingWebhookConfiguration's `webhooks` (paths `webhooks[i]…`), with the
/// configuration-level rule that webhook names are unique.
pub fn parse_validating_webhook_configuration(v: &Value) -> Result<Vec<Webhook>, Vec<FieldError>> {
    let mut errs = Vec::new();
    let mut hooks = Vec::new();
    let Some(obj) = field::as_object(v, "", &mut errs) else {
        return Err(errs);
    };
    match field::get(obj, "webhooks") {
        None => {}
        Some(Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                let p = field::index("webhooks", i);
                if let Some(h) = Webhook::parse_into(item, &p, &mut errs) {
                    if !h.name.is_empty() && hooks.iter().any(|o: &Webhook| o.name == h.name) {
                        errs.push(field::duplicate(field::child(&p, "name"), &h.name));
                    }
                    hooks.push(h);
                }
            }
        }
        Some(_) => errs.push(field::wrong_type("webhooks".to_owned(), "an array")),
    }
    if errs.is_empty() {
        Ok(hooks)
    } else {
        Err(errs)
    }
}

/// `IsFullyQualifiedName`.
fn validate_fully_qualified_name(name: &str, path: &str, errs: &mut Vec<FieldError>) {
    if name.is_empty() {
        errs.push(field::required(path.to_owned(), ""));
        return;
    }
    let dns = validation::is_dns1123_subdomain(name);
    if !dns.is_empty() {
        errs.push(field::invalid_str(path.to_owned(), name, &dns.join(",")));
        return;
    }
    if name.split('.').count() < 3 {
        errs.push(field::invalid_str(
            path.to_owned(),
            name,
            "should be a domain with at least three segments separated by dots",
        ));
    }
}

/// `validateAdmissionReviewVersions` (a recognised version required, as on create).
fn validate_admission_review_versions(versions: &[String], path: &str, errs: &mut Vec<FieldError>) {
    let accepted = ACCEPTED_ADMISSION_REVIEW_VERSIONS.join(", ");
    if versions.is_empty() {
        errs.push(field::required(
            path.to_owned(),
            &format!("must specify one of {accepted}"),
        ));
        return;
    }
    let mut has_accepted = false;
    for (i, v) in versions.iter().enumerate() {
        if versions.get(..i).is_some_and(|before| before.contains(v)) {
            errs.push(field::invalid_str(
                field::index(path, i),
                v,
                "duplicate version",
            ));
            continue;
        }
        for msg in validation::is_dns1035_label(v) {
            errs.push(field::invalid_str(field::index(path, i), v, &msg));
        }
        if ACCEPTED_ADMISSION_REVIEW_VERSIONS.contains(&v.as_str()) {
            has_accepted = true;
        }
    }
    if !has_accepted {
        errs.push(field::invalid(
            path.to_owned(),
            &field::list_value(versions),
            &format!("must include at least one of {accepted}"),
        ));
    }
}

/// `validateMatchConditions` without the CEL compilation (the caller compiles the expressions).
fn parse_match_conditions(
    obj: &serde_json::Map<String, Value>,
    path: &str,
    errs: &mut Vec<FieldError>,
) -> Vec<MatchCondition> {
    let p = field::child(path, "matchConditions");
    let items = match field::get(obj, "matchConditions") {
        None => return Vec::new(),
        Some(Value::Array(items)) => items,
        Some(_) => {
            errs.push(field::wrong_type(p, "an array"));
            return Vec::new();
        }
    };
    if items.len() > 64 {
        errs.push(field::too_many(p.clone(), items.len(), 64));
    }
    let mut out: Vec<MatchCondition> = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let ip = field::index(&p, i);
        let Some(o) = field::as_object(item, &ip, errs) else {
            continue;
        };
        let name = field::string_field(o, "name", &ip, errs).unwrap_or_default();
        let expression = field::string_field(o, "expression", &ip, errs).unwrap_or_default();
        if expression.trim().is_empty() {
            errs.push(field::required(field::child(&ip, "expression"), ""));
        }
        let name_path = field::child(&ip, "name");
        if name.is_empty() {
            errs.push(field::required(name_path.clone(), ""));
        } else {
            for msg in validation::is_qualified_name(&name) {
                errs.push(field::invalid_str(name_path.clone(), &name, &msg));
            }
            if out.iter().any(|c| c.name == name) {
                errs.push(field::duplicate(name_path, &name));
            }
        }
        out.push(MatchCondition { name, expression });
    }
    out
}
