//! Explain: for one request, what every ValidatingAdmissionPolicy and binding did and why, every expression's value
//! (or error) and CEL cost, the CertificateRequestPolicy decision, and the final verdict.
//!
//! The types of the trace live here, in one place; the dispatchers ([`crate::vap`], [`crate::certificates`]) record
//! into them while they decide, through an `Option<&mut …>` that is `None` on the ordinary path
//! ([`crate::Engine::review`]), so deciding without explaining allocates no trace. Pure and deterministic, as the
//! engine is.

use serde::Serialize;
use serde_json::Value;

mod text;
pub use text::to_text;

/// The whole trace of one request ([`crate::api::explain`] serializes it as JSON).
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Trace {
    /// The input could not be read: why (the verdict is then the 400 answer).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Why no ValidatingAdmissionPolicy was considered at all (requests on the admission policies themselves).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exempt: Option<String>,
    /// Every ValidatingAdmissionPolicy of the bundle, in bundle order.
    pub policies: Vec<PolicyTrace>,
    /// The bindings that matched the request, as `<policy>/<binding>`, in evaluation order.
    pub matched: Vec<String>,
    /// The CertificateRequestPolicy decision, when the request is one Palisade decides as approver-policy.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub certificate_request: Option<CertificateTrace>,
    /// The answer, exactly as `validate` gives it (an AdmissionReview).
    pub verdict: Value,
}

/// Why a policy or binding was not evaluated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Skip {
    /// The request is on an admission policy resource, which kube-apiserver never sends to policies.
    Exempt,
    /// A policy without a binding has no effect.
    NoBinding,
    /// No `resourceRules` entry matches the request.
    Rules,
    /// An `excludeResourceRules` entry matches the request.
    ExcludeResourceRules,
    NamespaceSelector,
    ObjectSelector,
    /// A matchCondition evaluated to false (for every param).
    MatchConditions,
    /// The binding's paramRef selects no params and `parameterNotFoundAction` is `Allow`.
    NoParams,
}

impl Skip {
    pub(crate) fn from_mismatch(m: Option<palisade_matching::Mismatch>) -> Self {
        match m {
            Some(palisade_matching::Mismatch::ExcludeResourceRules) => Skip::ExcludeResourceRules,
            Some(palisade_matching::Mismatch::NamespaceSelector) => Skip::NamespaceSelector,
            Some(palisade_matching::Mismatch::ObjectSelector) => Skip::ObjectSelector,
            Some(palisade_matching::Mismatch::ResourceRules) | None => Skip::Rules,
        }
    }
}

/// One ValidatingAdmissionPolicy.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PolicyTrace {
    pub name: String,
    /// Index of the document in the bundle's `policies`.
    pub document: usize,
    /// Whether its matchConstraints match the request.
    pub matched: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<Skip>,
    /// The policy could not be applied (failurePolicy decides).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub bindings: Vec<BindingTrace>,
}

// The traces are appended out of line: built in place, a trace is a temporary in the frame of
// `vap::Policies::review_with`, which stays on the stack through every policy's CEL evaluation, traced or not.
impl Trace {
    /// A policy's trace, appended.
    #[inline(never)]
    pub(crate) fn push_policy(&mut self, name: &str, document: usize) -> Option<&mut PolicyTrace> {
        self.policies.push(PolicyTrace::new(name, document));
        self.policies.last_mut()
    }
}

impl PolicyTrace {
    /// A binding's trace, appended.
    #[inline(never)]
    pub(crate) fn push_binding(
        &mut self,
        name: &str,
        actions: Vec<&'static str>,
    ) -> Option<&mut BindingTrace> {
        self.bindings.push(BindingTrace::new(name, actions));
        self.bindings.last_mut()
    }

    pub(crate) fn new(name: &str, document: usize) -> Self {
        Self {
            name: name.to_owned(),
            document,
            matched: false,
            skipped: None,
            error: None,
            bindings: Vec::new(),
        }
    }
}

/// One binding of a policy.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BindingTrace {
    pub name: String,
    pub matched: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<Skip>,
    /// The binding could not be applied (e.g. its params are required and missing): failurePolicy decides.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub validation_actions: Vec<&'static str>,
    /// One evaluation per param chosen (one, without params).
    pub evaluations: Vec<Evaluation>,
}

impl BindingTrace {
    /// An evaluation's trace, appended.
    #[inline(never)]
    pub(crate) fn push_evaluation(&mut self) -> Option<&mut Evaluation> {
        self.evaluations.push(Evaluation::default());
        self.evaluations.last_mut()
    }

    pub(crate) fn new(name: &str, actions: Vec<&'static str>) -> Self {
        Self {
            name: name.to_owned(),
            matched: false,
            skipped: None,
            error: None,
            validation_actions: actions,
            evaluations: Vec::new(),
        }
    }
}

/// The param an evaluation ran with.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ParamTrace {
    pub api_version: String,
    pub kind: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub namespace: String,
    pub name: String,
}

impl ParamTrace {
    pub(crate) fn of(param: &Value) -> Self {
        let s = |pointer: &str| {
            param
                .pointer(pointer)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        Self {
            api_version: s("/apiVersion"),
            kind: s("/kind"),
            namespace: s("/metadata/namespace"),
            name: s("/metadata/name"),
        }
    }
}

/// One (policy, binding, param) evaluation.
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Evaluation {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub param: Option<ParamTrace>,
    pub match_conditions: Vec<Expression>,
    /// False when a matchCondition is false: nothing else was evaluated.
    pub matched: bool,
    /// An error that ended the evaluation early (a matchCondition error, a budget exhausted).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub variables: Vec<Expression>,
    pub validations: Vec<ValidationTrace>,
    pub audit_annotations: Vec<Expression>,
    /// CEL cost of the validations and messageExpressions together (their shared budget).
    pub cost: u64,
}

/// One CEL expression's result.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Expression {
    /// The matchCondition's or variable's name, or the audit annotation's key.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub name: String,
    pub expression: String,
    /// The value, as JSON (a value without a JSON form is shown as its CEL type name).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub cost: u64,
}

impl Expression {
    pub(crate) fn new(
        name: &str,
        expression: &str,
        result: &Result<palisade_cel::Value<'_>, palisade_cel::EvalError>,
        cost: u64,
    ) -> Self {
        let (value, error) = match result {
            Ok(v) => (Some(json_of(v)), None),
            Err(e) => (None, Some(e.to_string())),
        };
        Self {
            name: name.to_owned(),
            expression: expression.to_owned(),
            value,
            error,
            cost,
        }
    }
}

/// A CEL value as JSON, or its type name when it has no JSON form (bytes, optionals, authorizer results…).
fn json_of(v: &palisade_cel::Value<'_>) -> Value {
    v.to_json()
        .unwrap_or_else(|| Value::String(format!("<{}>", v.type_of().name())))
}

/// One validation: its expression's result, then what it decided.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ValidationTrace {
    #[serde(flatten)]
    pub expression: Expression,
    /// `pass`, `fail` (the validation is false) or `error` (failurePolicy decided).
    pub outcome: &'static str,
    /// The message of a failed validation or of an error, as the binding's actions report it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message_expression: Option<Expression>,
}

/// What approver-policy's evaluation decided for a CertificateRequest.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CertificateTrace {
    /// `approved`, `denied`, `error` or `unmatched`.
    pub decision: &'static str,
    /// The policy that approved the request.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub policy: Option<String>,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub message: String,
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    const REQUEST: &str = r#""kind":{"group":"","version":"v1","kind":"Pod"},"resource":{"group":"","version":"v1","resource":"pods"},"operation":"CREATE","userInfo":{"username":"alice"}"#;

    fn bundle() -> String {
        let policy = |name: &str, expression: &str| {
            json!({
                "apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
                "metadata": {"name": name},
                "spec": {
                    "matchConstraints": {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"],
                        "operations": ["CREATE"], "resources": ["pods"]}]},
                    "variables": [{"name": "n", "expression": "object.metadata.name"}],
                    "validations": [{"expression": expression, "message": "no"}],
                    "auditAnnotations": [{"key": "who", "valueExpression": "request.userInfo.username"}]
                }
            })
        };
        let binding = |name: &str, policy: &str, selector: Value| {
            json!({
                "apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
                "metadata": {"name": name},
                "spec": {"policyName": policy, "validationActions": ["Deny"],
                    "matchResources": {"namespaceSelector": selector}}
            })
        };
        json!({"policies": [
            policy("named", "variables.n.startsWith('ok')"),
            binding("everywhere", "named", json!({})),
            binding("prod-only", "named", json!({"matchLabels": {"env": "prod"}})),
            {
                "apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
                "metadata": {"name": "services"},
                "spec": {"matchConstraints": {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"],
                    "operations": ["*"], "resources": ["services"]}]},
                    "validations": [{"expression": "true"}]}
            },
            binding("services", "services", json!({})),
        ]})
        .to_string()
    }

    fn input(name: &str) -> String {
        format!(
            r#"{{"review":{{"request":{{"uid":"e1",{REQUEST},"namespace":"dev","object":{{"metadata":{{"name":"{name}"}}}}}}}},"context":{{"namespaces":[{{"metadata":{{"name":"dev","labels":{{"env":"dev"}}}}}}]}}}}"#
        )
    }

    #[test]
    fn explains_matches_skips_values_and_costs() {
        let trace: Value =
            serde_json::from_str(&crate::api::explain_json(&bundle(), &input("bad"))).unwrap();
        assert_eq!(trace["matched"], json!(["named/everywhere"]));
        let named = &trace["policies"][0];
        assert_eq!(named["matched"], true);
        assert_eq!(named["bindings"][1]["skipped"], "namespaceSelector");
        let evaluation = &named["bindings"][0]["evaluations"][0];
        assert_eq!(evaluation["variables"][0]["value"], "bad");
        assert_eq!(evaluation["validations"][0]["outcome"], "fail");
        assert_eq!(evaluation["validations"][0]["value"], false);
        assert!(evaluation["validations"][0]["cost"].as_u64().unwrap() > 0);
        assert_eq!(evaluation["auditAnnotations"][0]["value"], "alice");
        assert_eq!(trace["policies"][1]["skipped"], "rules");
        assert_eq!(trace["verdict"]["response"]["allowed"], false);
        assert_eq!(
            trace["verdict"],
            serde_json::from_str::<Value>(&crate::api::review_json(&bundle(), &input("bad")))
                .unwrap()
        );
    }

    #[test]
    fn explains_an_exempt_request_and_an_unreadable_one() {
        let exempt = r#"{"request":{"uid":"x","kind":{"group":"admissionregistration.k8s.io","version":"v1","kind":"ValidatingAdmissionPolicy"},"resource":{"group":"admissionregistration.k8s.io","version":"v1","resource":"validatingadmissionpolicies"},"operation":"CREATE","userInfo":{}}}"#;
        let trace: Value =
            serde_json::from_str(&crate::api::explain_json(&bundle(), exempt)).unwrap();
        assert!(trace["exempt"].is_string());
        assert_eq!(trace["policies"][0]["skipped"], "exempt");
        let trace: Value =
            serde_json::from_str(&crate::api::explain_json(&bundle(), "{oops")).unwrap();
        assert!(trace["error"].as_str().unwrap().contains("not valid JSON"));
        assert_eq!(trace["verdict"]["response"]["status"]["code"], 400);
    }

    /// Every reason a binding is skipped, and the param an evaluation ran with.
    #[test]
    fn explains_params_match_conditions_and_selectors() {
        let vap = |name: &str, extra: Value| {
            let mut spec = json!({
                "matchConstraints": {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"],
                    "operations": ["CREATE"], "resources": ["pods"]}]},
                "validations": [{"expression": "true"}]
            });
            for (k, v) in extra.as_object().unwrap() {
                spec[k] = v.clone();
            }
            json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
                "metadata": {"name": name}, "spec": spec})
        };
        let bind = |name: &str, policy: &str, extra: Value| {
            let mut spec = json!({"policyName": policy, "validationActions": ["Deny"]});
            for (k, v) in extra.as_object().unwrap() {
                spec[k] = v.clone();
            }
            json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
                "metadata": {"name": name}, "spec": spec})
        };
        let with_params = json!({"paramKind": {"apiVersion": "v1", "kind": "ConfigMap"}});
        let bundle = json!({
            "policies": [
                vap("params", with_params),
                bind("found", "params", json!({"paramRef": {"name": "limits", "namespace": "dev",
                    "parameterNotFoundAction": "Deny"}})),
                bind("absent", "params", json!({"paramRef": {"name": "nope", "namespace": "dev",
                    "parameterNotFoundAction": "Allow"}})),
                vap("conditions", json!({"matchConditions": [{"name": "never", "expression": "false"}]})),
                bind("conditions", "conditions", json!({})),
                vap("selectors", json!({})),
                bind("by-object", "selectors", json!({"matchResources": {"objectSelector": {"matchLabels": {"a": "b"}}}})),
                bind("by-exclusion", "selectors", json!({"matchResources": {"excludeResourceRules": [{"apiGroups": [""],
                    "apiVersions": ["v1"], "operations": ["*"], "resources": ["pods"]}]}})),
                vap("unbound", json!({})),
            ],
            "params": [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "limits", "namespace": "dev"}}]
        })
        .to_string();
        let trace: Value =
            serde_json::from_str(&crate::api::explain_json(&bundle, &input("x"))).unwrap();
        let binding = |p: usize, b: usize| &trace["policies"][p]["bindings"][b];
        assert_eq!(binding(0, 0)["evaluations"][0]["param"]["name"], "limits");
        assert_eq!(binding(0, 1)["skipped"], "noParams");
        assert_eq!(binding(1, 0)["skipped"], "matchConditions");
        assert_eq!(
            binding(1, 0)["evaluations"][0]["matchConditions"][0]["value"],
            false
        );
        assert_eq!(binding(2, 0)["skipped"], "objectSelector");
        assert_eq!(binding(2, 1)["skipped"], "excludeResourceRules");
        assert_eq!(trace["policies"][3]["skipped"], "noBinding");
        assert_eq!(trace["matched"], json!(["params/found"]));
    }
}
