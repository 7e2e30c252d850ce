//! Which webhooks of a configuration a request reaches — `ShouldCallHook` of k8s.io/apiserver
//! `pkg/admission/plugin/webhook/generic/webhook.go`, natively: rules, namespaceSelector,
//! objectSelector and matchPolicy through `palisade-matching`, matchConditions through
//! `palisade-cel` (as `pkg/admission/plugin/webhook/matchconditions/matcher.go` evaluates them).

use palisade_cel::{Activation, Budget, Env, Expect, Program, Value as CelValue};
use palisade_cel_kubernetes::cluster::{AccessDecision, AccessQuery, Cluster, HostError, Question};
use palisade_cel_kubernetes::field::{self, Path};
use palisade_cel_kubernetes::goquote::quote;
use palisade_matching::{Attributes, FailurePolicy, MatchError, Webhook};
use serde_json::Value;

/// What `ShouldCallHook` decided for one webhook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    Skip,
    Call,
    /// The apiserver rejects the request itself (a namespace it cannot look up, a failing
    /// matchCondition under `failurePolicy: Fail`).
    Reject {
        code: u16,
        reason: String,
        message: String,
    },
}

/// Namespaces from the case's context (`namespaces: [Namespace…]`); matching asks no access question.
pub struct ContextNamespaces<'a> {
    namespaces: Option<&'a Vec<Value>>,
}

impl<'a> ContextNamespaces<'a> {
    pub fn new(context: Option<&'a Value>) -> Self {
        Self {
            namespaces: context
                .and_then(|c| c.get("namespaces"))
                .and_then(Value::as_array),
        }
    }
}

impl Cluster for ContextNamespaces<'_> {
    fn namespace(&self, namespace: &str) -> Result<Option<Value>, HostError> {
        let Some(namespaces) = self.namespaces else {
            return Err(HostError::NotProvided(Question::Namespace(
                namespace.to_owned(),
            )));
        };
        Ok(namespaces
            .iter()
            .find(|ns| ns.pointer("/metadata/name").and_then(Value::as_str) == Some(namespace))
            .cloned())
    }

    fn authorize(&self, query: &AccessQuery) -> Result<AccessDecision, HostError> {
        Err(HostError::NotProvided(Question::Access(Box::new(
            query.clone(),
        ))))
    }
}

/// The apiserver's status for a matching error (`apierrors.NewNotFound` / `NewInternalError`).
fn rejection(e: &MatchError) -> Decision {
    match e {
        MatchError::NamespaceNotFound { .. } => Decision::Reject {
            code: 404,
            reason: "NotFound".into(),
            message: e.to_string(),
        },
        MatchError::UnknownKind { .. } => Decision::Reject {
            code: 500,
            reason: "InternalError".into(),
            message: format!("Internal error occurred: {e}"),
        },
        _ => Decision::Reject {
            code: 500,
            reason: "InternalError".into(),
            message: e.to_string(),
        },
    }
}

/// A webhook's matchConditions, compiled once.
pub struct Conditions {
    compiled: Vec<(String, Program)>,
}

impl Conditions {
    /// Compiles every matchCondition as a boolean expression in the admission environment.
    pub fn compile(hook: &Webhook, path: &str) -> Result<Self, String> {
        let env = Env::admission();
        let mut compiled = Vec::new();
        let mut problems = Vec::new();
        for (i, c) in hook.match_conditions.iter().enumerate() {
            match env.compile(&c.expression, Expect::Bool) {
                Ok(p) => compiled.push((c.name.clone(), p)),
                Err(e) => {
                    let at = Path::from_rendered(path)
                        .child("matchConditions")
                        .index(i)
                        .child("expression");
                    let err = field::Error::invalid(
                        &at,
                        c.expression.as_str(),
                        format!("compilation failed: {e}"),
                    );
                    problems.push(err.to_string());
                }
            }
        }
        if problems.is_empty() {
            Ok(Self { compiled })
        } else {
            Err(problems.join("; "))
        }
    }

    /// Evaluates them as upstream's matcher does: any false → no match; otherwise errors go
    /// to the failurePolicy (Fail → an error, Ignore → no match).
    fn evaluate(&self, request: &Value, failure_policy: FailurePolicy) -> Result<bool, String> {
        if self.compiled.is_empty() {
            return Ok(true);
        }
        let object = request.get("object").filter(|o| !o.is_null());
        let old_object = request.get("oldObject").filter(|o| !o.is_null());
        let activation = Activation::new()
            .bind_json("object", object)
            .bind_json("oldObject", old_object)
            .bind_json("request", Some(request));
        let mut budget = Budget::match_conditions();
        let mut errors = Vec::new();
        for (name, program) in &self.compiled {
            match program.eval(&activation, &mut budget) {
                Ok(CelValue::Bool(false)) => return Ok(false),
                Ok(CelValue::Bool(true)) => {}
                Ok(_) => errors.push(format!(
                    "matchCondition '{name}': expression did not evaluate to a bool"
                )),
                Err(e) => errors.push(format!(
                    "expression '{}' resulted in error: {e}",
                    program.source()
                )),
            }
        }
        if errors.is_empty() {
            return Ok(true);
        }
        match failure_policy {
            FailurePolicy::Ignore => Ok(false),
            FailurePolicy::Fail => {
                Err(palisade_cel_kubernetes::errors::aggregate(&errors).unwrap_or_default())
            }
        }
    }
}

/// `ShouldCallHook` for one request against one webhook.
pub fn should_call(
    hook: &Webhook,
    conditions: &Conditions,
    request: &Value,
    context: Option<&Value>,
) -> Decision {
    let attributes = Attributes::from_admission_request(request);
    let namespaces = ContextNamespaces::new(context);
    match hook.matches(&attributes, &namespaces) {
        Ok(None) => Decision::Skip,
        Err(e) => rejection(&e),
        Ok(Some(_)) => match conditions.evaluate(request, hook.failure_policy) {
            Ok(true) => Decision::Call,
            Ok(false) => Decision::Skip,
            // apierrors.NewForbidden(resource.GroupResource(), name, err)
            Err(e) => {
                let resource = attributes.resource;
                let group_resource = if resource.group.is_empty() {
                    resource.resource.to_string()
                } else {
                    format!("{}.{}", resource.resource, resource.group)
                };
                let message = if attributes.name.is_empty() {
                    format!("{group_resource} is forbidden: {e}")
                } else {
                    format!(
                        "{group_resource} {} is forbidden: {e}",
                        quote(attributes.name)
                    )
                };
                Decision::Reject {
                    code: 403,
                    reason: "Forbidden".into(),
                    message,
                }
            }
        },
    }
}

/// Upstream's exemption of admission configuration objects from webhooks.
pub fn is_exempt(request: &Value) -> bool {
    palisade_matching::is_webhook_configuration_exempt(&Attributes::from_admission_request(request))
}
