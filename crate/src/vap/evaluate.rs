//! One (policy, binding, param) evaluation, as the plugin's `validator.Validate`: matchConditions, validations with
//! their messages, audit annotations, under one cost budget.

use palisade_cel::{Activation, Budget, EvalError, Value as CelValue};
use serde_json::Value;

use super::policy::{FailurePolicy, Policy, Validation};
use crate::explain::{Evaluation, Expression, ParamTrace, ValidationTrace};
use crate::match_conditions::{self, error_message};
use crate::review::AdmissionRequest;
use crate::scope::RequestScope;

/// kube-apiserver's cap on a messageExpression result (`MaxEvaluatedMessageExpressionSizeBytes`).
const MAX_MESSAGE_EXPRESSION_BYTES: usize = 5 * 1024;

/// A validation's outcome that the binding's actions act on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    Admit,
    /// A failed validation, or an evaluation error under `failurePolicy: Fail`.
    Deny {
        reason: String,
        message: String,
    },
}

/// What one evaluation produced.
#[derive(Debug, Default)]
pub struct Outcome {
    pub decisions: Vec<Decision>,
    /// Custom audit annotations (key without the policy prefix, value).
    pub annotations: Vec<(String, String)>,
    /// Audit annotations that errored under `failurePolicy: Fail`: they deny whatever the actions say.
    pub annotation_errors: Vec<String>,
}

fn for_error(policy: &Policy, message: String) -> Decision {
    match policy.failure_policy {
        FailurePolicy::Ignore => Decision::Admit,
        FailurePolicy::Fail => Decision::Deny {
            reason: String::new(),
            message,
        },
    }
}

/// Evaluate one policy for one binding and param. With `trace`, every expression's value and cost is recorded there
/// as well (explain); without, nothing is allocated for it.
pub fn validate(
    policy: &Policy,
    param: Option<&Value>,
    scope: &RequestScope<'_>,
    mut trace: Option<&mut Evaluation>,
) -> Outcome {
    let request = scope.request;
    let namespace_lookup = || scope.namespace_object();
    let request_value = || scope.request_value();
    let activation = Activation::new()
        .bind_doc("object", request.object())
        .bind_doc("oldObject", request.old_object())
        .request(&request_value)
        .bind_json("params", param)
        .namespace_object(&namespace_lookup)
        .authorizer(scope)
        .variables(&policy.variables);
    if let Some(t) = trace.as_deref_mut() {
        t.param = param.map(ParamTrace::of);
        t.matched = true;
    }
    // matchConditions, under their own budget: any false → no match; otherwise errors go to failurePolicy.
    match match_conditions::evaluate(
        &policy.match_conditions,
        &activation,
        trace.as_deref_mut().map(|t| &mut t.match_conditions),
    ) {
        Ok(true) => {}
        Ok(false) => {
            if let Some(t) = trace.as_deref_mut() {
                t.matched = false;
            }
            return Outcome::default();
        }
        Err(message) => return early(policy, message, trace),
    }

    // Validations first, then every messageExpression with what is left of the budget (the validator's two
    // filters): running out while rendering messages turns each decision into `failed messageExpression: …`.
    let mut budget = Budget::kubernetes();
    let tracing = trace.is_some();
    let validated = match run_validations(policy, &activation, &mut budget, tracing) {
        Ok(validated) => validated,
        Err((e, traced)) => {
            if let Some(t) = trace.as_deref_mut() {
                t.cost = budget.used();
                t.validations
                    .extend(traced.into_iter().map(|expression| ValidationTrace {
                        expression,
                        outcome: "error",
                        message: None,
                        message_expression: None,
                    }));
            }
            return early(policy, e.to_string(), trace);
        }
    };
    let messages = if !tracing && messages_unread(policy, &validated, &budget, request) {
        Messages::none()
    } else {
        render_messages(policy, &activation, &mut budget, tracing)
    };
    let mut outcome = Outcome {
        decisions: decide(
            policy,
            validated,
            messages,
            trace.as_deref_mut().map(|t| &mut t.validations),
        ),
        ..Outcome::default()
    };
    if let Some(t) = trace.as_deref_mut() {
        t.cost = budget.used();
    }
    audit_annotations(
        policy,
        &activation,
        &mut outcome,
        trace.as_deref_mut().map(|t| &mut t.audit_annotations),
    );
    if let Some(t) = trace {
        record_variables(policy, &activation, t);
    }
    outcome
}

/// Each validation's result, `Ok(passed)` or `Err(message)` by failurePolicy later, and when tracing each one's trace.
struct Validated {
    passed: Vec<Result<bool, String>>,
    traced: Vec<Expression>,
}

/// Run the validations under `budget`. `Err` when the budget ran out: the whole evaluation then ends by failurePolicy
/// (with the traces so far).
fn run_validations<'a>(
    policy: &'a Policy,
    activation: &Activation<'a>,
    budget: &mut Budget,
    tracing: bool,
) -> Result<Validated, (EvalError, Vec<Expression>)> {
    let mut passed = Vec::with_capacity(policy.validations.len());
    let mut traced = Vec::new();
    for validation in &policy.validations {
        let result = validation.expression.eval(activation, budget);
        if tracing {
            traced.push(Expression::new(
                "",
                validation.expression.source(),
                &result,
                budget.last_call(),
            ));
        }
        match result {
            Ok(v) => passed.push(Ok(v.as_bool() == Some(true))),
            Err(e) if e.is_out_of_budget() => return Err((e, traced)),
            Err(e) => passed.push(Err(error_message(validation.expression.source(), &e))),
        }
    }
    Ok(Validated { passed, traced })
}

/// What the messageExpressions rendered (one entry per validation), their traces, and the error that stopped them
/// when the budget ran out.
struct Messages {
    rendered: Vec<Option<String>>,
    traced: Vec<Option<Expression>>,
    failed: Option<EvalError>,
}

impl Messages {
    /// No message rendered, none failed.
    fn none() -> Self {
        Messages {
            rendered: Vec::new(),
            traced: Vec::new(),
            failed: None,
        }
    }
}

/// Whether rendering the messageExpressions can change nothing: no validation failed (a message is read only for a
/// failed one), and the bounds of what the messages can cost ([`Validation::message_bound`], over the size of the
/// request objects) leave the budget unexhausted, so that rendering cannot end in `failed messageExpression`.
/// kube-apiserver renders them all; skipped, the decisions are the same.
fn messages_unread(
    policy: &Policy,
    validated: &Validated,
    budget: &Budget,
    request: &AdmissionRequest,
) -> bool {
    if validated.passed.iter().any(|r| matches!(r, Ok(false))) {
        return false;
    }
    let size = [request.object(), request.old_object()]
        .into_iter()
        .flatten()
        .fold(0u64, |n, d| n.saturating_add(d.size_bound()));
    let mut cost = 0u64;
    for v in &policy.validations {
        match v.message_bound {
            Some(b) => cost = cost.saturating_add(b.at(size)),
            None => return false,
        }
    }
    cost <= budget.remaining()
}

/// Render every validation's messageExpression with what is left of `budget` (a message that errors or is not a
/// string is no message; running out stops them all).
fn render_messages<'a>(
    policy: &'a Policy,
    activation: &Activation<'a>,
    budget: &mut Budget,
    tracing: bool,
) -> Messages {
    let mut messages = Messages {
        rendered: Vec::with_capacity(policy.validations.len()),
        traced: Vec::new(),
        failed: None,
    };
    for validation in &policy.validations {
        let Some(program) = &validation.message_expression else {
            messages.rendered.push(None);
            if tracing {
                messages.traced.push(None);
            }
            continue;
        };
        let result = program.eval(activation, budget);
        if tracing {
            messages.traced.push(Some(Expression::new(
                "",
                program.source(),
                &result,
                budget.last_call(),
            )));
        }
        match result {
            Ok(CelValue::String(s)) => messages.rendered.push(Some(s.as_str().to_owned())),
            Ok(_) => messages.rendered.push(None),
            Err(e) if e.is_out_of_budget() => {
                messages.failed = Some(e);
                break;
            }
            Err(_) => messages.rendered.push(None),
        }
    }
    messages
}

/// One decision per validation, from its result and its message; with `trace`, each validation's outcome as well.
fn decide(
    policy: &Policy,
    validated: Validated,
    mut messages: Messages,
    mut trace: Option<&mut Vec<ValidationTrace>>,
) -> Vec<Decision> {
    let Validated { passed, mut traced } = validated;
    let mut decisions = Vec::with_capacity(passed.len());
    for (i, (validation, result)) in policy.validations.iter().zip(passed).enumerate() {
        let (decision, outcome_name) = match (result, &messages.failed) {
            (Err(message), _) => (for_error(policy, message), "error"),
            (Ok(_), Some(e)) => (
                for_error(policy, format!("failed messageExpression: {e}")),
                "error",
            ),
            (Ok(true), None) => (Decision::Admit, "pass"),
            (Ok(false), None) => (
                Decision::Deny {
                    reason: validation
                        .reason
                        .clone()
                        .unwrap_or_else(|| "Invalid".to_owned()),
                    message: failure_message(
                        validation,
                        messages.rendered.get(i).cloned().flatten(),
                    ),
                },
                "fail",
            ),
        };
        if let Some(t) = trace.as_deref_mut()
            && let Some(expression) = traced
                .get_mut(i)
                .map(|e| std::mem::replace(e, placeholder()))
        {
            t.push(ValidationTrace {
                expression,
                outcome: outcome_name,
                message: match &decision {
                    Decision::Deny { message, .. } => Some(message.clone()),
                    Decision::Admit => None,
                },
                message_expression: messages.traced.get_mut(i).and_then(Option::take),
            });
        }
        decisions.push(decision);
    }
    decisions
}

/// The audit annotations, under a budget of their own: each non-empty string value is an annotation; a value of
/// another type or an error denies under `failurePolicy: Fail` (`annotation_errors`) and is dropped under Ignore.
fn audit_annotations<'a>(
    policy: &'a Policy,
    activation: &Activation<'a>,
    outcome: &mut Outcome,
    mut trace: Option<&mut Vec<Expression>>,
) {
    let mut budget = Budget::kubernetes();
    for annotation in &policy.audit_annotations {
        let result = annotation.value_expression.eval(activation, &mut budget);
        if let Some(t) = trace.as_deref_mut() {
            t.push(Expression::new(
                &annotation.key,
                annotation.value_expression.source(),
                &result,
                budget.last_call(),
            ));
        }
        match result {
            Ok(v) if v.is_null() => {}
            Ok(v) => match v.as_str() {
                Some(s) if s.trim().is_empty() => {}
                Some(s) => outcome
                    .annotations
                    .push((annotation.key.clone(), s.trim().to_owned())),
                None => {
                    if policy.failure_policy == FailurePolicy::Fail {
                        outcome.annotation_errors.push(format!(
                            "valueExpression '{}' resulted in unsupported return type: {}. Return type must be either string or null.",
                            annotation.value_expression.source(),
                            v.type_of().name()
                        ));
                    }
                }
            },
            Err(e) => {
                if policy.failure_policy == FailurePolicy::Fail {
                    outcome
                        .annotation_errors
                        .push(error_message(annotation.value_expression.source(), &e));
                }
            }
        }
    }
}

/// An evaluation that ends before its validations: one decision by failurePolicy.
fn early(policy: &Policy, message: String, trace: Option<&mut Evaluation>) -> Outcome {
    if let Some(t) = trace {
        t.error = Some(message.clone());
    }
    Outcome {
        decisions: vec![for_error(policy, message)],
        ..Outcome::default()
    }
}

fn placeholder() -> Expression {
    Expression {
        name: String::new(),
        expression: String::new(),
        value: None,
        error: None,
        cost: 0,
    }
}

/// Explain only: every variable's value, each evaluated under a budget of its own (variables the decision used are
/// cached in the activation; the others are evaluated here, after the decision, so explaining changes nothing).
fn record_variables<'a>(policy: &'a Policy, activation: &Activation<'a>, trace: &mut Evaluation) {
    for (name, program) in policy
        .variables
        .names()
        .iter()
        .zip(policy.variables.programs())
    {
        let mut budget = Budget::kubernetes();
        let result = program.eval(activation, &mut budget);
        trace.variables.push(Expression::new(
            name,
            program.source(),
            &result,
            budget.last_call(),
        ));
    }
}

/// The message of a failed validation: its messageExpression's result when usable, else message, else
/// `failed expression: …`.
fn failure_message(validation: &Validation, evaluated: Option<String>) -> String {
    if let Some(s) = evaluated {
        let s = s.trim();
        if !s.is_empty() && s.len() <= MAX_MESSAGE_EXPRESSION_BYTES && !s.contains('\n') {
            return s.to_owned();
        }
    }
    if let Some(m) = validation
        .message
        .as_deref()
        .map(str::trim)
        .filter(|m| !m.is_empty())
    {
        return m.to_owned();
    }
    format!(
        "failed expression: {}",
        validation.expression.source().trim()
    )
}
