//! ValidatingAdmissionPolicy, its bindings and params, evaluated as kube-apiserver's validating admission policy
//! plugin does (kubernetes/apiserver `pkg/admission/plugin/policy/validating`).
//!
//! - [`policy`] and [`binding`] read and compile the documents, rejecting what the API server's validation rejects;
//! - [`params`] selects a binding's params as `generic.CollectParams` does;
//! - [`evaluate`] runs one (policy, binding, param) and turns the results into decisions;
//! - this module dispatches a request to every matching policy and binding and writes the verdict.

mod binding;
mod evaluate;
mod params;
mod policy;

use std::collections::{BTreeMap, HashMap};

use palisade_cel_kubernetes::cluster::Cluster;
use palisade_matching::Index;
use serde_json::Value;

use crate::bundle::{Bundle, Diagnostic, Kind, Problems};
use crate::explain::{Skip, Trace};
use crate::review::AdmissionRequest;
use crate::scope::{RequestScope, attributes};
use crate::verdict::{Denial, Verdict};

use binding::{Action, Binding};
use evaluate::{Decision, Outcome};
use policy::{FailurePolicy, Policy};

/// The compiled ValidatingAdmissionPolicies and bindings of a bundle.
pub struct Policies {
    policies: Vec<Policy>,
    /// Policies by what their matchConstraints can match, so a request only visits its candidates.
    index: Index<usize>,
    params: Vec<Value>,
}

impl Default for Policies {
    fn default() -> Self {
        Self {
            policies: Vec::new(),
            index: Index::new(Vec::new()),
            params: Vec::new(),
        }
    }
}

impl std::fmt::Debug for Policies {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Policies")
            .field("policies", &self.policies)
            .field("params", &self.params.len())
            .finish()
    }
}

impl Policies {
    /// Compile every ValidatingAdmissionPolicy and binding of the bundle; problems and diagnostics are appended.
    pub fn compile(
        bundle: &Bundle<'_>,
        problems: &mut Problems,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Self {
        let mut policies: Vec<Policy> = Vec::new();
        if bundle
            .of_kind(Kind::ValidatingAdmissionPolicy)
            .next()
            .is_none()
            && bundle
                .of_kind(Kind::ValidatingAdmissionPolicyBinding)
                .next()
                .is_none()
        {
            return Self::default();
        }
        // Looked up by name (maps, not lists: a bundle may hold tens of thousands of documents). `policy_at`: where in
        // `policies` the policy of a name is, or `NOT_COMPILED` for a policy that failed to compile, whose bindings
        // are then not reported again as dangling. (`NameMap` is the map type the CEL parser already links, with only
        // the methods it uses: `palisade.wasm` has no room for another.)
        const NOT_COMPILED: usize = usize::MAX;
        let mut policy_at = NameMap::new();
        for (doc, value) in bundle.of_kind(Kind::ValidatingAdmissionPolicy) {
            let Some(policy) = Policy::compile(doc, value, problems) else {
                if let Some(name) = value
                    .pointer("/metadata/name")
                    .and_then(serde_json::Value::as_str)
                {
                    let name = name.to_owned();
                    #[expect(
                        clippy::map_entry,
                        reason = "the entry API would link more code (NameMap)"
                    )]
                    if !policy_at.contains_key(&name) {
                        policy_at.insert(name, NOT_COMPILED);
                    }
                }
                continue;
            };
            match policy_at.get(&policy.name).and_then(|&i| policies.get(i)) {
                Some(first) => problems.push(Diagnostic::in_document(
                    doc,
                    "metadata.name",
                    format!(
                        "{}: policies[{}] is a ValidatingAdmissionPolicy of the same name",
                        duplicate_name(&policy.name),
                        first.doc
                    ),
                )),
                None => {
                    policy_at.insert(policy.name.clone(), policies.len());
                    policies.push(policy);
                }
            }
        }
        // the document last read under each binding's name
        let mut binding_docs = NameMap::new();
        for (doc, value) in bundle.of_kind(Kind::ValidatingAdmissionPolicyBinding) {
            let Some(binding) = Binding::compile(doc, value, problems) else {
                continue;
            };
            // replaced by this one, as kube-apiserver's map of bindings does
            if let Some(first) = binding_docs.insert(binding.name.clone(), doc) {
                problems.push(Diagnostic::in_document(
                    doc,
                    "metadata.name",
                    format!(
                        "{}: policies[{first}] is a binding of the same name",
                        duplicate_name(&binding.name)
                    ),
                ));
                continue;
            }
            let at = policy_at.get(&binding.policy_name).copied();
            match at.and_then(|i| policies.get_mut(i)) {
                Some(policy) => {
                    if binding.param_ref.is_some() && policy.param_kind.is_none() {
                        diagnostics.push(
                            Diagnostic::in_document(
                                doc,
                                "spec.paramRef",
                                format!(
                                    "policy `{}` has no paramKind, so this paramRef is ignored",
                                    policy.name
                                ),
                            )
                            .with_help("give the policy a `spec.paramKind`, or remove the paramRef")
                            .warning(),
                        );
                    }
                    policy.bindings.push(binding);
                }
                None if at.is_some() => {}
                None => problems.push(
                    Diagnostic::in_document(
                        doc,
                        "spec.policyName",
                        format!(
                            "no ValidatingAdmissionPolicy named `{}` in the bundle",
                            binding.policy_name
                        ),
                    )
                    .with_help("add the policy to the bundle, or fix the binding's policyName"),
                ),
            }
        }
        for policy in &policies {
            if policy.bindings.is_empty() {
                diagnostics.push(
                    Diagnostic::in_document(
                        policy.doc,
                        "",
                        format!(
                            "ValidatingAdmissionPolicy `{}` has no binding, so it has no effect",
                            policy.name
                        ),
                    )
                    .with_help(
                        "add a ValidatingAdmissionPolicyBinding whose spec.policyName names it",
                    )
                    .warning(),
                );
            }
        }
        let index = Index::new(
            policies
                .iter()
                .enumerate()
                .map(|(i, p)| (p.match_constraints.clone(), i)),
        );
        Self {
            policies,
            index,
            params: bundle.params.iter().map(|p| (*p).clone()).collect(),
        }
    }

    /// Decide one request against every policy whose constraints and bindings match it.
    pub fn review(&self, request: &AdmissionRequest, cluster: &dyn Cluster) -> Verdict {
        self.review_with(request, cluster, None)
    }

    /// [`Policies::review`], recording what every policy and binding did into `trace` when it is given (explain).
    pub fn review_with(
        &self,
        request: &AdmissionRequest,
        cluster: &dyn Cluster,
        mut trace: Option<&mut Trace>,
    ) -> Verdict {
        let mut verdict = Verdict::default();
        if self.policies.is_empty() {
            return verdict;
        }
        if is_policy_resource(request) {
            if let Some(trace) = trace {
                trace.exempt = Some(format!(
                    "{}.{} is an admission policy resource: kube-apiserver never applies admission policies to them",
                    request.resource.resource, request.resource.group
                ));
                for policy in &self.policies {
                    if let Some(p) = trace.push_policy(&policy.name, policy.doc) {
                        p.skipped = Some(Skip::Exempt);
                    }
                }
            }
            return verdict;
        }
        let attributes = attributes(request);
        let scope = RequestScope::new(request, cluster);
        let lookup = &scope;
        let mut failures: Vec<ValidationFailure> = Vec::new();
        let candidates: Vec<usize> = if trace.is_some() {
            // explain: every policy, so that each one says why it did (not) match; the index only ever leaves out
            // policies whose constraints cannot match
            (0..self.policies.len()).collect()
        } else {
            let mut candidates: Vec<usize> = self.index.candidates(&attributes).copied().collect();
            palisade_json::sort::sort(&mut candidates);
            candidates.dedup();
            candidates
        };
        for i in candidates {
            let Some(policy) = self.policies.get(i) else {
                continue;
            };
            let mut ptrace = trace
                .as_deref_mut()
                .and_then(|t| t.push_policy(&policy.name, policy.doc));
            if policy.bindings.is_empty() {
                if let Some(p) = ptrace.as_deref_mut() {
                    p.skipped = Some(Skip::NoBinding);
                }
                continue;
            }
            match policy.match_constraints.matches(&attributes, lookup) {
                Ok(Some(_)) => {}
                Ok(None) => {
                    if let Some(p) = ptrace.as_deref_mut() {
                        p.skipped = Some(Skip::from_mismatch(
                            policy.match_constraints.mismatch(&attributes, lookup),
                        ));
                    }
                    continue;
                }
                Err(e) => {
                    let message = format!("failed to configure policy: {e}");
                    if let Some(p) = ptrace.as_deref_mut() {
                        p.matched = true;
                        p.error = Some(message.clone());
                    }
                    config_error(&mut verdict, policy, None, &message);
                    continue;
                }
            }
            if let Some(p) = ptrace.as_deref_mut() {
                p.matched = true;
            }
            let mut annotations: BTreeMap<String, Vec<String>> = BTreeMap::new();
            for binding in &policy.bindings {
                let mut btrace = ptrace.as_deref_mut().and_then(|p| {
                    p.push_binding(
                        &binding.name,
                        binding.actions.iter().map(|a| a.as_str()).collect(),
                    )
                });
                if let Some(resources) = &binding.match_resources {
                    match resources.matches(&attributes, lookup) {
                        Ok(Some(_)) => {}
                        Ok(None) => {
                            if let Some(b) = btrace.as_deref_mut() {
                                b.skipped = Some(Skip::from_mismatch(
                                    resources.mismatch(&attributes, lookup),
                                ));
                            }
                            continue;
                        }
                        Err(e) => {
                            let message = format!("failed to configure binding: {e}");
                            if let Some(b) = btrace.as_deref_mut() {
                                b.matched = true;
                                b.error = Some(message.clone());
                            }
                            config_error(&mut verdict, policy, Some(binding), &message);
                            continue;
                        }
                    }
                }
                let selected =
                    match params::collect(policy, binding, &request.namespace, &self.params) {
                        Ok(selected) => selected,
                        Err(e) => {
                            let message = format!("failed to configure binding: {e}");
                            if let Some(b) = btrace.as_deref_mut() {
                                b.matched = true;
                                b.error = Some(message.clone());
                            }
                            config_error(&mut verdict, policy, Some(binding), &message);
                            continue;
                        }
                    };
                if let Some(b) = btrace.as_deref_mut()
                    && selected.is_empty()
                {
                    b.skipped = Some(Skip::NoParams);
                }
                for param in selected {
                    let etrace = btrace.as_deref_mut().and_then(|b| b.push_evaluation());
                    let outcome = evaluate::validate(policy, param, &scope, etrace);
                    apply(
                        &mut verdict,
                        &mut failures,
                        &mut annotations,
                        policy,
                        binding,
                        outcome,
                    );
                }
                if let Some(b) = btrace
                    && b.skipped.is_none()
                {
                    b.matched = b.evaluations.iter().any(|e| e.matched);
                    if !b.matched {
                        b.skipped = Some(Skip::MatchConditions);
                    }
                }
            }
            for (key, values) in annotations {
                verdict
                    .audit_annotations
                    .push((format!("{}/{key}", policy.name), values.join(", ")));
            }
        }
        if let Some(t) = trace {
            for p in &t.policies {
                for b in p.bindings.iter().filter(|b| b.matched) {
                    t.matched.push(format!("{}/{}", p.name, b.name));
                }
            }
        }
        if !failures.is_empty() {
            failures.truncate(MAX_VALIDATION_FAILURES);
            verdict
                .audit_annotations
                .push((VALIDATION_FAILURE_KEY.to_owned(), go_json(&failures)));
        }
        verdict
    }
}

/// kube-apiserver never applies admission policies to the admission policies themselves, so a policy cannot lock
/// itself in place (`policy/generic/plugin.go` `isPolicyResource`, on the request's `resource`). Webhook
/// configurations are not among them: a ValidatingAdmissionPolicy does apply to those.
fn is_policy_resource(request: &AdmissionRequest) -> bool {
    request.resource.group == "admissionregistration.k8s.io"
        && matches!(
            request.resource.resource.as_str(),
            "validatingadmissionpolicies"
                | "validatingadmissionpolicybindings"
                | "mutatingadmissionpolicies"
                | "mutatingadmissionpolicybindings"
        )
}

/// The audit annotation kube-apiserver writes for `Audit` actions.
pub const VALIDATION_FAILURE_KEY: &str = "validation.policy.admission.k8s.io/validation_failure";
/// kube-apiserver truncates the validation failure list at 50 entries.
const MAX_VALIDATION_FAILURES: usize = 50;
/// kube-apiserver truncates custom audit annotation values at 10 KiB.
const MAX_AUDIT_ANNOTATION_VALUE: usize = 10 * 1024;

/// One entry of the `validation_failure` audit annotation, in kube-apiserver's field order.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct ValidationFailure {
    message: String,
    policy: String,
    binding: String,
    expression_index: usize,
    validation_actions: Vec<&'static str>,
}

/// Serialize as Go's `encoding/json` does: `<`, `>`, `&`, U+2028 and U+2029 escaped.
fn go_json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value)
        .unwrap_or_default()
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

/// metav1.StatusReason → HTTP code, as the plugin's `reasonToCode`.
fn reason_to_code(reason: &str) -> u16 {
    match reason {
        "Forbidden" => 403,
        "Unauthorized" => 401,
        "RequestEntityTooLarge" => 413,
        _ => 422,
    }
}

fn denial_message(policy: &Policy, binding: Option<&Binding>, message: &str) -> String {
    match binding {
        Some(b) => format!(
            "ValidatingAdmissionPolicy '{}' with binding '{}' denied request: {message}",
            policy.name, b.name
        ),
        None => format!(
            "ValidatingAdmissionPolicy '{}' denied request: {message}",
            policy.name
        ),
    }
}

/// A policy or binding that cannot be applied to this request: failurePolicy decides.
fn config_error(verdict: &mut Verdict, policy: &Policy, binding: Option<&Binding>, message: &str) {
    if policy.failure_policy == FailurePolicy::Fail {
        verdict.denials.push(Denial {
            code: reason_to_code(""),
            reason: "Invalid".to_owned(),
            message: denial_message(policy, binding, message),
        });
    }
}

/// Apply a binding's validationActions to the decisions of one evaluation.
fn apply(
    verdict: &mut Verdict,
    failures: &mut Vec<ValidationFailure>,
    annotations: &mut BTreeMap<String, Vec<String>>,
    policy: &Policy,
    binding: &Binding,
    outcome: Outcome,
) {
    for (index, decision) in outcome.decisions.into_iter().enumerate() {
        let Decision::Deny { reason, message } = decision else {
            continue;
        };
        for action in &binding.actions {
            match action {
                Action::Deny => {
                    let reason = if reason.is_empty() { "Invalid".to_owned() } else { reason.clone() };
                    verdict.denials.push(Denial {
                        code: reason_to_code(&reason),
                        reason,
                        message: denial_message(policy, Some(binding), &message),
                    });
                }
                Action::Warn => verdict.warnings.push(format!(
                    "Validation failed for ValidatingAdmissionPolicy '{}' with binding '{}': {message}",
                    policy.name, binding.name
                )),
                Action::Audit => failures.push(ValidationFailure {
                    message: message.clone(),
                    policy: policy.name.clone(),
                    binding: binding.name.clone(),
                    expression_index: index,
                    validation_actions: binding.actions.iter().map(|a| a.as_str()).collect(),
                }),
            }
        }
    }
    for (key, value) in outcome.annotations {
        let value = truncate(value, MAX_AUDIT_ANNOTATION_VALUE);
        let values = annotations.entry(key).or_default();
        if !values.contains(&value) {
            values.push(value);
        }
    }
    for message in outcome.annotation_errors {
        verdict.denials.push(Denial {
            code: reason_to_code(""),
            reason: "Invalid".to_owned(),
            message: denial_message(policy, Some(binding), &message),
        });
    }
}

fn truncate(mut s: String, max: usize) -> String {
    if s.len() > max {
        let mut cut = max;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
    }
    s
}

/// Names of a bundle's documents, each to a number.
type NameMap = HashMap<String, usize>;

/// `field.Duplicate(metadata.name, name)`'s message: the name Go-quoted.
fn duplicate_name(name: &str) -> String {
    palisade_cel_kubernetes::field::Error::duplicate(
        &palisade_cel_kubernetes::field::Path::root(),
        name,
    )
    .body()
}
