//! Which webhooks of a configuration a request reaches — `ShouldCallHook` of k8s.io/apiserver
//! `pkg/admission/plugin/webhook/generic/webhook.go`: rules, namespaceSelector, objectSelector and matchPolicy through
//! `palisade-matching` (namespace labels asked of the [`Cluster`](crate::Cluster) through the request's
//! [`RequestScope`]), then matchConditions through [`crate::match_conditions`], as
//! `pkg/admission/plugin/webhook/matchconditions/matcher.go` evaluates them for policies too.

use palisade_cel::{Activation, AdmissionVars, Env, Expect, Program};
use palisade_cel_kubernetes::field::{self, Path};
use palisade_cel_kubernetes::goquote::quote;
use palisade_matching::{FailurePolicy, MatchError, Webhook};

use crate::match_conditions;
use crate::scope::{RequestScope, attributes};

/// What `ShouldCallHook` decided for one webhook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    Skip,
    Call,
    /// The apiserver rejects the request itself (a namespace it cannot look up, a failing matchCondition under
    /// `failurePolicy: Fail`).
    Reject {
        code: u16,
        reason: &'static str,
        message: String,
    },
}

/// One webhook of a configuration, its matchConditions compiled.
#[derive(Debug)]
pub struct Hook {
    pub webhook: Webhook,
    conditions: Vec<(String, Program)>,
}

impl Hook {
    /// Compiles the webhook's matchConditions as kube-apiserver's webhook accessor does (`HasParams: false`,
    /// `HasAuthorizer: true`): boolean expressions over `object`, `oldObject`, `request` and `authorizer`. `path` is
    /// the webhook's own (`webhooks[0]`); every expression that does not compile is one `field.Invalid` message.
    pub fn compile(webhook: Webhook, path: &str) -> Result<Self, Vec<String>> {
        let env = Env::admission_for(AdmissionVars {
            params: false,
            authorizer: true,
        });
        let mut conditions = Vec::new();
        let mut problems = Vec::new();
        for (i, c) in webhook.match_conditions.iter().enumerate() {
            match env.compile(&c.expression, Expect::Bool) {
                Ok(p) => conditions.push((c.name.clone(), p)),
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
            Ok(Self {
                webhook,
                conditions,
            })
        } else {
            Err(problems)
        }
    }

    /// `ShouldCallHook` for the request of `scope` (exemption aside: see [`is_exempt`]).
    pub fn should_call(&self, scope: &RequestScope<'_>) -> Decision {
        let attributes = attributes(scope.request);
        match self.webhook.matches(&attributes, scope) {
            Ok(None) => return Decision::Skip,
            Err(e) => return rejection(&e),
            Ok(Some(_)) => {}
        }
        match self.conditions_match(scope) {
            Ok(true) => Decision::Call,
            Ok(false) => Decision::Skip,
            // apierrors.NewForbidden(resource.GroupResource(), name, err)
            Err(e) => {
                let resource = attributes.resource;
                let group_resource = if resource.group.is_empty() {
                    resource.resource.to_owned()
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
                    reason: "Forbidden",
                    message,
                }
            }
        }
    }

    /// `matcher.Match`: any false → no match; otherwise an error goes to the failurePolicy (Fail → the error, Ignore
    /// → no match).
    fn conditions_match(&self, scope: &RequestScope<'_>) -> Result<bool, String> {
        if self.conditions.is_empty() {
            return Ok(true);
        }
        let request = scope.request;
        let request_value = || scope.request_value();
        let activation = Activation::new()
            .bind_doc("object", request.object())
            .bind_doc("oldObject", request.old_object())
            .request(&request_value)
            .authorizer(scope);
        match match_conditions::evaluate(&self.conditions, &activation, None) {
            Err(_) if self.webhook.failure_policy == FailurePolicy::Ignore => Ok(false),
            result => result,
        }
    }
}

/// The apiserver's status for a matching error (`apierrors.NewNotFound` / `NewInternalError`).
fn rejection(e: &MatchError) -> Decision {
    match e {
        MatchError::NamespaceNotFound { .. } => Decision::Reject {
            code: 404,
            reason: "NotFound",
            message: e.to_string(),
        },
        MatchError::UnknownKind { .. } => Decision::Reject {
            code: 500,
            reason: "InternalError",
            message: format!("Internal error occurred: {e}"),
        },
        _ => Decision::Reject {
            code: 500,
            reason: "InternalError",
            message: e.to_string(),
        },
    }
}

/// Upstream's exemption of admission configuration objects from webhooks (`IsExemptAdmissionConfigurationResource`).
pub fn is_exempt(scope: &RequestScope<'_>) -> bool {
    palisade_matching::is_webhook_configuration_exempt(&attributes(scope.request))
}
