//! One (policy, binding, param) evaluation, as the plugin's `validator.Validate`: matchConditions, validations with
//! their messages, audit annotations, under one cost budget.

use std::cell::OnceCell;

use palisade_cel::{Activation, Budget, EvalError, Value as CelValue};
use serde_json::{Value, json};

use super::policy::{FailurePolicy, Policy, Validation};
use crate::context::Cluster;
use crate::review::AdmissionRequest;

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

/// Per-request state shared by every policy: the `request` variable, the namespace (fetched at most once), the
/// authorizer for the requesting user.
pub struct RequestScope<'r> {
    pub request: &'r AdmissionRequest,
    pub cluster: &'r dyn Cluster,
    /// The `request` variable, built on first use (a request no policy matches never builds it).
    request_value: OnceCell<Value>,
    namespace: OnceCell<Result<Option<Value>, String>>,
}

impl<'r> RequestScope<'r> {
    pub fn new(request: &'r AdmissionRequest, cluster: &'r dyn Cluster) -> Self {
        Self {
            request,
            cluster,
            request_value: OnceCell::new(),
            namespace: OnceCell::new(),
        }
    }

    /// The request's namespace object, looked up once; `Ok(None)` for cluster-scoped requests.
    pub fn namespace(&self) -> Result<Option<&Value>, String> {
        let name = &self.request.namespace;
        let is_namespace = self.request.kind.group.is_empty()
            && self.request.kind.version == "v1"
            && self.request.kind.kind == "Namespace";
        if name.is_empty() || is_namespace {
            return Ok(None);
        }
        let cached = self
            .namespace
            .get_or_init(|| match self.cluster.namespace(name) {
                Ok(Some(ns)) => Ok(Some(namespace_object(ns))),
                Ok(None) => Err(format!("namespace \"{name}\" not found")),
                Err(e) => Err(e),
            });
        match cached {
            Ok(ns) => Ok(ns.as_ref()),
            Err(e) => Err(e.clone()),
        }
    }

    /// Labels of a namespace, for namespaceSelectors: the request's own namespace comes from the cache.
    pub fn namespace_labels(
        &self,
        name: &str,
    ) -> Result<Option<std::collections::BTreeMap<String, String>>, String> {
        if name == self.request.namespace {
            return self
                .namespace()
                .map(|ns| ns.map(crate::context::namespace_labels));
        }
        self.cluster
            .namespace(name)
            .map(|ns| ns.as_ref().map(crate::context::namespace_labels))
    }
}

impl palisade_matching::NamespaceLookup for RequestScope<'_> {
    fn labels(
        &self,
        namespace: &str,
    ) -> Result<Option<std::collections::BTreeMap<String, String>>, String> {
        self.namespace_labels(namespace)
    }
}

/// The `request` variable: the AdmissionRequest as kube-apiserver's `CreateAdmissionRequest` exposes it.
fn request_variable(r: &AdmissionRequest) -> Value {
    let mut v = json!({
        "uid": r.uid,
        "kind": r.kind,
        "resource": r.resource,
        "subResource": r.sub_resource,
        "requestKind": r.request_kind.as_ref().unwrap_or(&r.kind),
        "requestResource": r.request_resource.as_ref().unwrap_or(&r.resource),
        "requestSubResource": r.request_sub_resource.as_deref().unwrap_or(&r.sub_resource),
        "name": r.name,
        "namespace": r.namespace,
        "operation": r.operation,
        "userInfo": r.user_info,
        "dryRun": r.is_dry_run(),
    });
    if let (Some(options), Some(map)) = (
        r.options.as_ref().filter(|o| !o.is_null()),
        v.as_object_mut(),
    ) {
        map.insert("options".to_owned(), options.clone());
    }
    v
}

/// The `namespaceObject` variable: metadata (without managedFields), spec and status, as `CreateNamespaceObject`.
fn namespace_object(ns: Value) -> Value {
    let mut out = serde_json::Map::new();
    if let Some(meta) = ns.get("metadata").and_then(Value::as_object) {
        let mut m = meta.clone();
        m.remove("managedFields");
        out.insert("metadata".to_owned(), Value::Object(m));
    }
    for key in ["spec", "status"] {
        if let Some(v) = ns.get(key) {
            out.insert(key.to_owned(), v.clone());
        }
    }
    Value::Object(out)
}

/// The authorizer for the requesting user, answered by the cluster.
struct UserAuthorizer<'r> {
    scope: &'r RequestScope<'r>,
}

impl palisade_cel::Authorizer for UserAuthorizer<'_> {
    fn check(
        &self,
        attrs: &palisade_cel::AuthzCheck,
    ) -> Result<palisade_cel::AuthzDecision, String> {
        // the subject is the requesting user, or the service account named by
        // `authorizer.serviceAccount(ns, name)` (whose user info has no extra)
        let user = &self.scope.request.user_info;
        let extra = if attrs.user.name == user.username {
            user.extra.clone()
        } else {
            Default::default()
        };
        let query = crate::context::AccessQuery {
            user: attrs.user.name.clone(),
            groups: attrs.user.groups.clone(),
            uid: attrs.user.uid.clone(),
            extra,
            verb: attrs.verb.clone(),
            api_group: attrs.api_group.clone(),
            resource: attrs.resource.clone(),
            subresource: attrs.subresource.clone(),
            namespace: attrs.namespace.clone(),
            name: attrs.name.clone(),
            path: attrs.path.clone(),
        };
        self.scope
            .cluster
            .authorize(&query)
            .map(|allowed| palisade_cel::AuthzDecision {
                allowed,
                reason: String::new(),
            })
    }
}

fn error_message(source: &str, e: &EvalError) -> String {
    if e.is_out_of_budget() {
        e.to_string()
    } else {
        format!("expression '{source}' resulted in error: {e}")
    }
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

/// Evaluate one policy for one binding and param.
pub fn validate(policy: &Policy, param: Option<&Value>, scope: &RequestScope<'_>) -> Outcome {
    let request = scope.request;
    let authorizer = UserAuthorizer { scope };
    let namespace_lookup = || scope.namespace();
    let activation = Activation::new()
        .bind_json("object", request.object())
        .bind_json("oldObject", request.old_object())
        .bind_json(
            "request",
            Some(
                scope
                    .request_value
                    .get_or_init(|| request_variable(request)),
            ),
        )
        .bind_json("params", param)
        .namespace_object(&namespace_lookup)
        .authorizer(&authorizer)
        .variables(&policy.variables);
    let mut budget = Budget::kubernetes();

    // matchConditions: any false → no match; otherwise errors go to failurePolicy.
    let mut errors = Vec::new();
    for (_, condition) in &policy.match_conditions {
        match condition.eval(&activation, &mut budget) {
            Ok(v) if v.as_bool() == Some(false) => return Outcome::default(),
            Ok(_) => {}
            Err(e) if e.is_out_of_budget() => {
                return Outcome {
                    decisions: vec![for_error(policy, e.to_string())],
                    ..Outcome::default()
                };
            }
            Err(e) => errors.push(error_message(condition.source(), &e)),
        }
    }
    if !errors.is_empty() {
        let message = if errors.len() == 1 {
            errors.remove(0)
        } else {
            format!("[{}]", errors.join(", "))
        };
        return Outcome {
            decisions: vec![for_error(policy, message)],
            ..Outcome::default()
        };
    }

    let mut outcome = Outcome::default();
    for validation in &policy.validations {
        let decision = match validation.expression.eval(&activation, &mut budget) {
            Ok(v) if v.as_bool() == Some(true) => Decision::Admit,
            Ok(_) => Decision::Deny {
                reason: validation
                    .reason
                    .clone()
                    .unwrap_or_else(|| "Invalid".to_owned()),
                message: failure_message(validation, &activation, &mut budget),
            },
            Err(e) if e.is_out_of_budget() => {
                return Outcome {
                    decisions: vec![for_error(policy, e.to_string())],
                    ..Outcome::default()
                };
            }
            Err(e) => for_error(policy, error_message(validation.expression.source(), &e)),
        };
        outcome.decisions.push(decision);
    }

    let mut annotation_budget = Budget::kubernetes();
    for annotation in &policy.audit_annotations {
        match annotation
            .value_expression
            .eval(&activation, &mut annotation_budget)
        {
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
    outcome
}

/// The message of a failed validation: messageExpression, else message, else `failed expression: …`.
fn failure_message(
    validation: &Validation,
    activation: &Activation<'_>,
    budget: &mut Budget,
) -> String {
    if let Some(program) = &validation.message_expression
        && let Ok(CelValue::String(s)) = program.eval(activation, budget)
    {
        let s = s.as_str().trim();
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
