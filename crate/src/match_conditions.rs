//! matchConditions, evaluated as k8s.io/apiserver `pkg/admission/plugin/webhook/matchconditions/matcher.go` `Match`
//! evaluates them for ValidatingAdmissionPolicies (`vap`) and validating webhooks (`webhook`) alike, and the wording
//! of an expression's evaluation error (`pkg/admission/plugin/cel/filter.go`) that validations share.
//!
//! Compiling the conditions stays with each document (a policy's and a webhook configuration's validation word
//! their errors differently); what a request makes of them lives here only.

use palisade_cel::{Activation, Budget, EvalError, Program};

use crate::explain::Expression;

/// An expression's evaluation error as the CEL filter words it; running out of budget is its own message.
pub fn error_message(source: &str, e: &EvalError) -> String {
    if e.is_out_of_budget() {
        e.to_string()
    } else {
        format!("expression '{source}' resulted in error: {e}")
    }
}

/// `matcher.Match` over compiled `(name, condition)` pairs, under the matchConditions budget (2,500,000): `Ok(false)`
/// as soon as one is false (whatever errors came before), `Err` when the budget runs out or when some errored and
/// none was false (the errors aggregated as Go's `utilerrors.NewAggregate`), `Ok(true)` otherwise. The caller's
/// failurePolicy decides what an `Err` means. With `trace`, each condition's value and cost is recorded there.
pub fn evaluate<'a>(
    conditions: &'a [(String, Program)],
    activation: &Activation<'a>,
    mut trace: Option<&mut Vec<Expression>>,
) -> Result<bool, String> {
    let mut budget = Budget::match_conditions();
    let mut errors = Vec::new();
    for (name, condition) in conditions {
        let result = condition.eval(activation, &mut budget);
        if let Some(t) = trace.as_deref_mut() {
            t.push(Expression::new(
                name,
                condition.source(),
                &result,
                budget.last_call(),
            ));
        }
        match result {
            Ok(v) if v.as_bool() == Some(false) => return Ok(false),
            Ok(_) => {}
            Err(e) if e.is_out_of_budget() => return Err(e.to_string()),
            Err(e) => errors.push(error_message(condition.source(), &e)),
        }
    }
    match palisade_cel_kubernetes::errors::aggregate(&errors) {
        Some(message) => Err(message),
        None => Ok(true),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use palisade_cel::{Env, Expect};
    use serde_json::json;

    fn compile(conditions: &[(&str, &str)]) -> Vec<(String, Program)> {
        let env = Env::admission();
        conditions
            .iter()
            .map(|(name, source)| {
                (
                    (*name).to_owned(),
                    env.compile(source, Expect::Bool).unwrap(),
                )
            })
            .collect()
    }

    // upstream: k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions/matcher_test.go TestMatch
    #[test]
    fn false_wins_then_errors_then_true() {
        let object = json!({"metadata": {"labels": {"team": "a"}}});
        let activation = Activation::new().bind_json("object", Some(&object));
        let all_true = compile(&[("a", "true"), ("b", "object.metadata.labels.team == 'a'")]);
        assert_eq!(evaluate(&all_true, &activation, None), Ok(true));
        // an error before a false: still no match
        let error_then_false = compile(&[("a", "object.missing == 1"), ("b", "false")]);
        assert_eq!(evaluate(&error_then_false, &activation, None), Ok(false));
        let error_and_true = compile(&[("a", "true"), ("b", "object.missing == 1")]);
        let message = evaluate(&error_and_true, &activation, None).unwrap_err();
        assert!(
            message.starts_with("expression 'object.missing == 1' resulted in error: "),
            "{message}"
        );
        let mut trace = Vec::new();
        assert_eq!(evaluate(&[], &activation, Some(&mut trace)), Ok(true));
        assert!(trace.is_empty());
        assert_eq!(
            evaluate(&error_then_false, &activation, Some(&mut trace)),
            Ok(false)
        );
        assert_eq!(trace.len(), 2);
        assert!(trace.first().unwrap().error.is_some());
    }
}
