//! The trace as a text tree, for a person at a terminal (`palisade eval --explain=text`): the verdict first, then each
//! policy, its bindings and what each evaluation computed, with why anything was skipped in words.
//!
//! It reads the trace's JSON form ([`super::Trace`] serialized), so it renders any trace a module or the library wrote,
//! including one whose verdict a host replaced with the module's answer.

use serde_json::Value;

/// Expressions longer than this many characters are cut, with `…`: the tree is for reading, the JSON has them whole.
const EXPRESSION_WIDTH: usize = 100;

/// One line of the tree and the lines under it.
struct Node {
    label: String,
    children: Vec<Node>,
}

impl Node {
    fn leaf(label: String) -> Self {
        Self {
            label,
            children: Vec::new(),
        }
    }

    fn render(&self, prefix: &str, last: bool, root: bool, out: &mut String) {
        if root {
            out.push_str(&self.label);
        } else {
            out.push_str(prefix);
            out.push_str(if last { "└─ " } else { "├─ " });
            out.push_str(&self.label);
        }
        out.push('\n');
        let inner = if root {
            String::new()
        } else {
            format!("{prefix}{}", if last { "   " } else { "│  " })
        };
        for (i, child) in self.children.iter().enumerate() {
            child.render(&inner, i + 1 == self.children.len(), false, out);
        }
    }
}

/// The trace (its JSON form) as a text tree.
pub fn to_text(trace: &Value) -> String {
    let mut out = String::new();
    out.push_str(&verdict_line(trace.get("verdict")));
    out.push('\n');
    if let Some(error) = str_at(trace, "error") {
        out.push_str(&format!("error: {error}\n"));
    }
    if let Some(exempt) = str_at(trace, "exempt") {
        out.push_str(&format!("exempt: {exempt}\n"));
    }
    let matched: Vec<&str> = list(trace, "matched").filter_map(Value::as_str).collect();
    if !matched.is_empty() {
        out.push_str(&format!("matched: {}\n", matched.join(", ")));
    }
    for policy in list(trace, "policies") {
        policy_node(policy).render("", true, true, &mut out);
    }
    if let Some(certificate) = trace.get("certificateRequest") {
        out.push_str(&certificate_line(certificate));
        out.push('\n');
    }
    out
}

fn verdict_line(verdict: Option<&Value>) -> String {
    let Some(response) = verdict.and_then(|v| v.get("response")) else {
        return "verdict: none".to_owned();
    };
    let uid = str_at(response, "uid").unwrap_or_default();
    if response.get("allowed").and_then(Value::as_bool) == Some(true) {
        let warnings = list(response, "warnings").count();
        return match warnings {
            0 => format!("verdict: allowed (uid {uid})"),
            n => format!("verdict: allowed with {n} warning{} (uid {uid})", plural(n)),
        };
    }
    let status = response.get("status");
    let code = status
        .and_then(|s| s.get("code"))
        .and_then(Value::as_u64)
        .map(|c| c.to_string())
        .unwrap_or_default();
    let reason = status.and_then(|s| str_at(s, "reason")).unwrap_or_default();
    let message = status
        .and_then(|s| str_at(s, "message"))
        .unwrap_or_default();
    format!("verdict: denied, {code} {reason} (uid {uid}): {message}")
}

fn policy_node(policy: &Value) -> Node {
    let name = str_at(policy, "name").unwrap_or_default();
    let document = policy
        .get("document")
        .and_then(Value::as_u64)
        .map(|d| format!(" (policies[{d}])"))
        .unwrap_or_default();
    let mut label = format!("ValidatingAdmissionPolicy {name}{document}: ");
    label.push_str(&state(policy));
    Node {
        label,
        children: list(policy, "bindings").map(binding_node).collect(),
    }
}

/// `matched`, `skipped: why`, or `error: …` (an error after a match is said with it).
fn state(item: &Value) -> String {
    let mut state = match item.get("skipped").and_then(Value::as_str) {
        Some(skip) => format!("skipped: {}", skip_words(skip)),
        None if item.get("matched").and_then(Value::as_bool) == Some(true) => "matched".to_owned(),
        None => "not matched".to_owned(),
    };
    if let Some(error) = str_at(item, "error") {
        state.push_str(&format!("; error: {error}"));
    }
    state
}

fn skip_words(skip: &str) -> &str {
    match skip {
        "exempt" => {
            "the request is on an admission policy resource, which is never sent to policies"
        }
        "noBinding" => "no binding (a policy without a binding has no effect)",
        "rules" => "no resourceRules entry matches the request",
        "excludeResourceRules" => "an excludeResourceRules entry matches the request",
        "namespaceSelector" => "the namespaceSelector does not select the request's namespace",
        "objectSelector" => "the objectSelector does not select the object",
        "matchConditions" => "a matchCondition is false",
        "noParams" => "no params are selected and parameterNotFoundAction is Allow",
        other => other,
    }
}

fn binding_node(binding: &Value) -> Node {
    let name = str_at(binding, "name").unwrap_or_default();
    let actions: Vec<&str> = list(binding, "validationActions")
        .filter_map(Value::as_str)
        .collect();
    let label = format!(
        "binding {name} [{}]: {}",
        actions.join(", "),
        state(binding)
    );
    let evaluations: Vec<&Value> = list(binding, "evaluations").collect();
    let children = match evaluations.as_slice() {
        // one evaluation without a param: its lines directly under the binding
        [one] if one.get("param").is_none() => evaluation_lines(one),
        many => many.iter().map(|e| evaluation_node(e)).collect(),
    };
    Node { label, children }
}

fn evaluation_node(evaluation: &Value) -> Node {
    let param = evaluation.get("param").map_or_else(
        || "evaluation".to_owned(),
        |p| {
            let kind = str_at(p, "kind").unwrap_or_default();
            let name = str_at(p, "name").unwrap_or_default();
            match str_at(p, "namespace") {
                Some(ns) => format!("param {kind} {ns}/{name}"),
                None => format!("param {kind} {name}"),
            }
        },
    );
    Node {
        label: param,
        children: evaluation_lines(evaluation),
    }
}

fn evaluation_lines(evaluation: &Value) -> Vec<Node> {
    let mut lines = Vec::new();
    for condition in list(evaluation, "matchConditions") {
        lines.push(Node::leaf(format!(
            "matchCondition {}",
            expression(condition)
        )));
    }
    if let Some(error) = str_at(evaluation, "error") {
        lines.push(Node::leaf(format!("error: {error}")));
    }
    for variable in list(evaluation, "variables") {
        lines.push(Node::leaf(format!("variable {}", expression(variable))));
    }
    for validation in list(evaluation, "validations") {
        let outcome = str_at(validation, "outcome").unwrap_or_default();
        let mut label = format!("validation {}: {outcome}", expression(validation));
        if outcome != "pass"
            && let Some(message) = str_at(validation, "message")
        {
            label.push_str(&format!(": {message}"));
        }
        let children = validation
            .get("messageExpression")
            .filter(|_| outcome != "pass")
            .map(|m| vec![Node::leaf(format!("messageExpression {}", expression(m)))])
            .unwrap_or_default();
        lines.push(Node { label, children });
    }
    for annotation in list(evaluation, "auditAnnotations") {
        lines.push(Node::leaf(format!(
            "auditAnnotation {}",
            expression(annotation)
        )));
    }
    if let Some(cost) = evaluation.get("cost").and_then(Value::as_u64)
        && cost > 0
    {
        lines.push(Node::leaf(format!(
            "cost {cost} (validations and messageExpressions)"
        )));
    }
    lines
}

/// `name: expression = value (cost N)`, or `… error: …`.
fn expression(e: &Value) -> String {
    let text: String = str_at(e, "expression")
        .unwrap_or_default()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let text = match text.char_indices().nth(EXPRESSION_WIDTH) {
        Some((cut, _)) => format!("{}…", text.get(..cut).unwrap_or_default()),
        None => text,
    };
    let mut out = match str_at(e, "name") {
        Some(name) => format!("{name}: {text}"),
        None => text,
    };
    match (e.get("value"), str_at(e, "error")) {
        (_, Some(error)) => out.push_str(&format!(" → error: {error}")),
        (Some(value), None) => out.push_str(&format!(" = {value}")),
        (None, None) => {}
    }
    if let Some(cost) = e.get("cost").and_then(Value::as_u64) {
        out.push_str(&format!(" (cost {cost})"));
    }
    out
}

fn certificate_line(certificate: &Value) -> String {
    let decision = str_at(certificate, "decision").unwrap_or_default();
    let mut line = format!("CertificateRequestPolicy: {decision}");
    if let Some(policy) = str_at(certificate, "policy") {
        line.push_str(&format!(" by {policy}"));
    }
    if let Some(message) = str_at(certificate, "message") {
        line.push_str(&format!(": {message}"));
    }
    line
}

fn str_at<'v>(v: &'v Value, key: &str) -> Option<&'v str> {
    v.get(key).and_then(Value::as_str).filter(|s| !s.is_empty())
}

fn list<'v>(v: &'v Value, key: &str) -> impl Iterator<Item = &'v Value> {
    v.get(key).and_then(Value::as_array).into_iter().flatten()
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_denial_is_drawn_as_a_tree_with_words_for_every_skip() {
        let trace = json!({
            "matched": ["named/everywhere"],
            "policies": [
                {"name": "named", "document": 0, "matched": true, "bindings": [
                    {"name": "everywhere", "matched": true, "validationActions": ["Deny"], "evaluations": [{
                        "matchConditions": [], "matched": true, "cost": 9,
                        "variables": [{"name": "n", "expression": "object.metadata.name", "value": "bad", "cost": 2}],
                        "validations": [
                            {"expression": "variables.n.startsWith('ok')", "value": false, "cost": 3,
                             "outcome": "fail", "message": "no",
                             "messageExpression": {"expression": "'no ' + variables.n", "value": "no bad", "cost": 4}},
                            {"expression": "1 / 0 == 1", "error": "division by zero", "cost": 1, "outcome": "error",
                             "message": "failed expression: division by zero"}
                        ],
                        "auditAnnotations": [{"name": "who", "expression": "request.userInfo.username", "value": "alice", "cost": 1}]
                    }]},
                    {"name": "prod-only", "matched": false, "skipped": "namespaceSelector",
                     "validationActions": ["Deny", "Audit"], "evaluations": []}
                ]},
                {"name": "services", "document": 3, "matched": false, "skipped": "rules", "bindings": []}
            ],
            "verdict": {"response": {"uid": "e1", "allowed": false,
                "status": {"code": 422, "reason": "Invalid", "message": "denied request: no"}}}
        });
        assert_eq!(
            to_text(&trace),
            "\
verdict: denied, 422 Invalid (uid e1): denied request: no
matched: named/everywhere
ValidatingAdmissionPolicy named (policies[0]): matched
├─ binding everywhere [Deny]: matched
│  ├─ variable n: object.metadata.name = \"bad\" (cost 2)
│  ├─ validation variables.n.startsWith('ok') = false (cost 3): fail: no
│  │  └─ messageExpression 'no ' + variables.n = \"no bad\" (cost 4)
│  ├─ validation 1 / 0 == 1 → error: division by zero (cost 1): error: failed expression: division by zero
│  ├─ auditAnnotation who: request.userInfo.username = \"alice\" (cost 1)
│  └─ cost 9 (validations and messageExpressions)
└─ binding prod-only [Deny, Audit]: skipped: the namespaceSelector does not select the request's namespace
ValidatingAdmissionPolicy services (policies[3]): skipped: no resourceRules entry matches the request
"
        );
    }

    #[test]
    fn params_errors_and_certificate_requests_have_their_lines() {
        let long = "a".repeat(150);
        let trace = json!({
            "error": "the AdmissionReview is not valid JSON: EOF",
            "policies": [{"name": "p", "document": 1, "matched": true, "bindings": [
                {"name": "b", "matched": true, "validationActions": ["Warn"], "evaluations": [
                    {"param": {"kind": "ConfigMap", "namespace": "dev", "name": "limits"}, "matched": false,
                     "matchConditions": [{"name": "never", "expression": long, "value": false, "cost": 1}],
                     "variables": [], "validations": [], "auditAnnotations": [], "cost": 0},
                    {"param": {"kind": "Limits", "name": "global"}, "matched": true, "error": "budget exhausted",
                     "matchConditions": [], "variables": [], "validations": [], "auditAnnotations": [], "cost": 0}
                ]}
            ]}],
            "certificateRequest": {"decision": "approved", "policy": "namespaced-services"},
            "verdict": {"response": {"uid": "u", "allowed": true, "warnings": ["w"]}}
        });
        let text = to_text(&trace);
        assert!(text.starts_with("verdict: allowed with 1 warning (uid u)\nerror: the AdmissionReview is not valid JSON: EOF\n"), "{text}");
        assert!(
            text.contains("   ├─ param ConfigMap dev/limits\n   │  └─ matchCondition never: "),
            "{text}"
        );
        assert!(
            text.contains(&format!("never: {}… = false (cost 1)", "a".repeat(100))),
            "{text}"
        );
        assert!(
            text.contains("   └─ param Limits global\n      └─ error: budget exhausted\n"),
            "{text}"
        );
        assert!(
            text.ends_with("CertificateRequestPolicy: approved by namespaced-services\n"),
            "{text}"
        );
    }
}
