//! The ValidatingAdmissionPolicy document, read and compiled as the API server validates it
//! (kubernetes/kubernetes `pkg/apis/admissionregistration/validation`: `validateValidatingAdmissionPolicySpec`).

use palisade_cel::{AdmissionVars, CostBound, Env, Expect, Program, Variables};
use palisade_cel_kubernetes::field::{BadValue, Error, Path};
use palisade_cel_kubernetes::validation::is_qualified_name;
use palisade_matching::MatchResources;
use serde_json::Value;

use super::binding::Binding;
use crate::bundle::{Diagnostic, Problems};
use crate::document::{Fields, metadata_name};

/// `spec.failurePolicy` (default Fail).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailurePolicy {
    Fail,
    Ignore,
}

/// `spec.paramKind`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamKind {
    pub api_version: String,
    pub kind: String,
}

/// One `spec.validations[]` entry.
#[derive(Debug)]
pub struct Validation {
    pub expression: Program,
    pub message: Option<String>,
    pub message_expression: Option<Program>,
    /// The most rendering `message_expression` can cost, over the size of the request objects it reads (zero without
    /// one; `None` when it is not simple enough to bound): [`crate::vap::evaluate`] skips rendering messages no
    /// decision reads when this shows the budget cannot run out.
    pub message_bound: Option<CostBound>,
    pub reason: Option<String>,
}

/// One `spec.auditAnnotations[]` entry.
#[derive(Debug)]
pub struct AuditAnnotation {
    pub key: String,
    pub value_expression: Program,
}

/// A compiled ValidatingAdmissionPolicy and the bindings that name it.
#[derive(Debug)]
pub struct Policy {
    pub doc: usize,
    pub name: String,
    pub param_kind: Option<ParamKind>,
    pub match_constraints: MatchResources,
    pub match_conditions: Vec<(String, Program)>,
    pub variables: Variables,
    pub validations: Vec<Validation>,
    pub audit_annotations: Vec<AuditAnnotation>,
    pub failure_policy: FailurePolicy,
    pub bindings: Vec<Binding>,
}

const REASONS: [&str; 4] = [
    "Forbidden",
    "Invalid",
    "RequestEntityTooLarge",
    "Unauthorized",
];
const MAX_AUDIT_ANNOTATIONS: usize = 20;
/// The variables whose values a messageExpression's cost bound is over: the request objects, read from the input
/// (their size is the size of their tape, [`palisade_json::Doc::size_bound`]).
const MESSAGE_SIZED: [&str; 2] = ["object", "oldObject"];
const MAX_VALUE_EXPRESSION_LEN: usize = 5 * 1024;
const MAX_MATCH_CONDITIONS: usize = 64;

/// Compile one expression, reporting a failure at `path` in kube-apiserver's words.
pub(crate) fn compile(
    f: &mut Fields<'_, '_>,
    env: &Env,
    path: &str,
    source: &str,
    expect: Expect,
) -> Option<Program> {
    if !f.problems.spend_cel(f.doc, path, source.len()) {
        return None;
    }
    match env.compile(source, expect) {
        Ok(program) => Some(program),
        Err(e) => {
            let doc = f.doc;
            f.problems.push_with(|| {
                Diagnostic::in_document(doc, path, format!("compilation error: {e}"))
                    .in_expression(source)
            });
            None
        }
    }
}

impl Policy {
    /// Read and compile `policies[doc]`; `None` when it has problems (all of them reported).
    ///
    /// The spec is read part by part in the order kube-apiserver's `validateValidatingAdmissionPolicySpec`
    /// reports problems: failurePolicy, paramKind, matchConstraints, matchConditions, variables, validations,
    /// auditAnnotations. The expressions are compiled as `compilePolicy` does: `params` is declared only when the
    /// policy has a `paramKind`; variables, matchConditions, validations and auditAnnotations see `authorizer`,
    /// messageExpressions do not.
    pub fn compile(doc: usize, value: &Value, problems: &mut Problems) -> Option<Policy> {
        let before = problems.len();
        let mut root = Fields::new(doc, String::new(), value, problems);
        let name = metadata_name(&mut root);
        let Some(spec_value) = root.get("spec") else {
            root.required("spec", "");
            return None;
        };
        let mut spec = Fields::new(doc, "spec".to_owned(), spec_value, root.problems);
        spec.deny_unknown(&[
            "paramKind",
            "matchConstraints",
            "validations",
            "failurePolicy",
            "auditAnnotations",
            "matchConditions",
            "variables",
        ]);

        let failure_policy = read_failure_policy(&mut spec);
        let param_kind = read_param_kind(&mut spec);
        let match_constraints = read_match_constraints(&mut spec);

        let has_params = param_kind.is_some();
        let full_env = Env::admission_for(AdmissionVars {
            params: has_params,
            authorizer: true,
        });
        let match_conditions = read_match_conditions(&mut spec, &full_env);
        let variables = read_variables(&mut spec, &full_env);
        let env = variables.as_ref().map_or(&full_env, Variables::env);
        let message_env = message_env(has_params, variables.as_ref());

        let (validation_values, annotation_values) = read_validation_lists(&mut spec);
        let validations = read_validations(&mut spec, validation_values, env, &message_env);
        let audit_annotations =
            read_audit_annotations(&mut spec, annotation_values, name.as_deref(), env);

        if problems.len() > before {
            return None;
        }
        Some(Policy {
            doc,
            name: name?,
            param_kind,
            match_constraints: match_constraints?,
            match_conditions,
            variables: variables?,
            validations,
            audit_annotations,
            failure_policy,
            bindings: Vec::new(),
        })
    }
}

/// `spec.failurePolicy`: `Fail` (the default) or `Ignore`.
fn read_failure_policy(spec: &mut Fields<'_, '_>) -> FailurePolicy {
    match spec.enumeration("failurePolicy", &["Fail", "Ignore"]) {
        Some("Ignore") => FailurePolicy::Ignore,
        _ => FailurePolicy::Fail,
    }
}

/// `spec.paramKind`: apiVersion and kind, both required when it is given.
fn read_param_kind(spec: &mut Fields<'_, '_>) -> Option<ParamKind> {
    let value = spec.get("paramKind")?;
    let mut pk = Fields::new(spec.doc, "spec.paramKind".to_owned(), value, spec.problems);
    pk.deny_unknown(&["apiVersion", "kind"]);
    let api_version = pk.required_string("apiVersion").unwrap_or_default();
    let kind = pk.required_string("kind").unwrap_or_default();
    Some(ParamKind {
        api_version: api_version.to_owned(),
        kind: kind.to_owned(),
    })
}

/// `spec.matchConstraints`, required, with the policy's rules (`palisade-matching`'s `parse_policy_constraints`).
fn read_match_constraints(spec: &mut Fields<'_, '_>) -> Option<MatchResources> {
    let Some(value) = spec.get("matchConstraints") else {
        spec.required("matchConstraints", "");
        return None;
    };
    match MatchResources::parse_policy_constraints(value, "") {
        Ok(m) => Some(m),
        Err(errors) => {
            for e in errors {
                let path = Path::new("spec").child("matchConstraints").join(&e.path);
                spec.problem_at(path.as_str(), e.message);
            }
            None
        }
    }
}

/// `spec.variables`: each name a CEL identifier, each expression given; then compiled in order, each seeing the
/// ones before it. `None` when one does not compile (reported at its expression).
fn read_variables(spec: &mut Fields<'_, '_>, env: &Env) -> Option<Variables> {
    let mut sources: Vec<(&str, &str)> = Vec::new();
    for (i, v) in spec.list("variables").iter().enumerate() {
        let path = Path::new("spec").child("variables").index(i);
        let mut var = Fields::new(spec.doc, path.into(), v, spec.problems);
        var.deny_unknown(&["name", "expression"]);
        let name = var.string("name").unwrap_or("");
        let expression = var.string("expression").unwrap_or("");
        if name.trim().is_empty() {
            var.required("name", "name is not specified");
        } else if !is_cel_identifier(name) {
            var.error(Error::invalid(
                &var.path_of("name"),
                name,
                "name is not a valid CEL identifier",
            ));
        }
        if expression.trim().is_empty() {
            var.required("expression", "expression is not specified");
        }
        sources.push((name, expression));
    }
    let len = sources.iter().map(|(_, expression)| expression.len()).sum();
    if !spec.problems.spend_cel(spec.doc, "spec.variables", len) {
        return None;
    }
    match Variables::compile(env, &sources) {
        Ok(v) => Some(v),
        Err((i, e)) => {
            let path = Path::new("spec")
                .child("variables")
                .index(i)
                .child("expression");
            spec.problem_at(path.as_str(), format!("compilation error: {e}"));
            None
        }
    }
}

/// The environment messageExpressions compile in: `HasAuthorizer: false`, with the policy's variables.
fn message_env(has_params: bool, variables: Option<&Variables>) -> Env {
    let base = Env::admission_for(AdmissionVars {
        params: has_params,
        authorizer: false,
    });
    match variables {
        Some(v) => v.declare_in(base),
        None => base,
    }
}

/// `spec.validations` and `spec.auditAnnotations`, of which at least one must have an item.
fn read_validation_lists<'a>(spec: &mut Fields<'a, '_>) -> (&'a [Value], &'a [Value]) {
    let validations = spec.list("validations");
    let annotations = spec.list("auditAnnotations");
    if validations.is_empty() && annotations.is_empty() {
        const AT_LEAST_ONE: &str = "validations or auditAnnotations must contain at least one item";
        spec.required("validations", AT_LEAST_ONE);
        spec.required("auditAnnotations", AT_LEAST_ONE);
    }
    (validations, annotations)
}

/// `spec.validations`: the ones that compile (every problem of the others reported).
fn read_validations(
    spec: &mut Fields<'_, '_>,
    items: &[Value],
    env: &Env,
    message_env: &Env,
) -> Vec<Validation> {
    let mut validations = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let path = Path::new("spec").child("validations").index(i);
        let mut val = Fields::new(spec.doc, path.to_string(), item, spec.problems);
        if let Some(v) = read_validation(&mut val, &path, env, message_env) {
            validations.push(v);
        }
    }
    validations
}

/// One `spec.validations[i]` at `path`: a boolean expression, an optional message or messageExpression, a reason.
fn read_validation(
    val: &mut Fields<'_, '_>,
    path: &Path,
    env: &Env,
    message_env: &Env,
) -> Option<Validation> {
    val.deny_unknown(&["expression", "message", "reason", "messageExpression"]);
    let expression = val.string("expression").unwrap_or("");
    let message = val.string("message");
    let message_expression = val.string("messageExpression");
    let reason = val.enumeration("reason", &REASONS);
    let program = if expression.trim().is_empty() {
        val.required("expression", "expression is not specified");
        None
    } else {
        compile(
            val,
            env,
            path.child("expression").as_str(),
            expression,
            Expect::Bool,
        )
    };
    let message_program = message_expression.and_then(|m| {
        read_message_expression(val, &path.child("messageExpression"), m, message_env)
    });
    if let Some(m) = message {
        check_message(val, &path.child("message"), m);
    }
    let message_bound = match &message_program {
        Some(p) => p.cost_bound(&MESSAGE_SIZED),
        None => Some(CostBound {
            fixed: 0,
            per_size: 0,
        }),
    };
    Some(Validation {
        expression: program?,
        message: message.map(str::to_owned),
        message_expression: message_program,
        message_bound,
        reason: reason.map(str::to_owned),
    })
}

/// A validation's messageExpression: empty is absent, blank is invalid, otherwise a string expression.
fn read_message_expression(
    val: &mut Fields<'_, '_>,
    path: &Path,
    source: &str,
    message_env: &Env,
) -> Option<Program> {
    if source.is_empty() {
        None
    } else if source.trim().is_empty() {
        val.error(Error::invalid(
            path,
            source,
            "must be non-empty if specified",
        ));
        None
    } else {
        compile(val, message_env, path.as_str(), source, Expect::String)
    }
}

/// A validation's message: not blank, on one line.
fn check_message(val: &mut Fields<'_, '_>, path: &Path, message: &str) {
    if !message.is_empty() && message.trim().is_empty() {
        val.error(Error::invalid(
            path,
            message,
            "message must be non-empty if specified",
        ));
    } else if message.trim().contains(['\n', '\r']) {
        val.error(Error::invalid(
            path,
            message,
            "message must not contain line breaks",
        ));
    }
}

/// `spec.auditAnnotations`: at most [`MAX_AUDIT_ANNOTATIONS`]; the ones that compile (every problem of the others
/// reported). `policy_name` prefixes each key into the qualified name kube-apiserver validates.
fn read_audit_annotations(
    spec: &mut Fields<'_, '_>,
    items: &[Value],
    policy_name: Option<&str>,
    env: &Env,
) -> Vec<AuditAnnotation> {
    if items.len() > MAX_AUDIT_ANNOTATIONS {
        spec.error(Error::invalid(
            &spec.path_of("auditAnnotations"),
            BadValue::Json(Value::Array(items.to_vec())),
            format!("must not have more than {MAX_AUDIT_ANNOTATIONS} auditAnnotations"),
        ));
    }
    let mut annotations = Vec::new();
    let mut keys: Vec<&str> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let path = Path::new("spec").child("auditAnnotations").index(i);
        let mut ann = Fields::new(spec.doc, path.to_string(), item, spec.problems);
        if let Some(a) = read_audit_annotation(&mut ann, &path, policy_name, &mut keys, env) {
            annotations.push(a);
        }
    }
    annotations
}

/// One `spec.auditAnnotations[i]` at `path`: a key (qualified by the policy's name, unique among `keys`) and a
/// string-or-null valueExpression of at most [`MAX_VALUE_EXPRESSION_LEN`] bytes.
fn read_audit_annotation<'a>(
    ann: &mut Fields<'a, '_>,
    path: &Path,
    policy_name: Option<&str>,
    keys: &mut Vec<&'a str>,
    env: &Env,
) -> Option<AuditAnnotation> {
    ann.deny_unknown(&["key", "valueExpression"]);
    let key = ann.string("key").unwrap_or("");
    let qualified = format!("{}/{key}", policy_name.unwrap_or(""));
    for e in is_qualified_name(&qualified) {
        ann.error(Error::invalid(&path.child("key"), qualified.as_str(), e));
    }
    if keys.contains(&key) {
        ann.error(Error::duplicate(&path.child("key"), key));
    }
    keys.push(key);
    let value_expression = ann.string("valueExpression").unwrap_or("").trim();
    if value_expression.is_empty() {
        ann.required("valueExpression", "valueExpression is not specified");
        return None;
    }
    if value_expression.len() > MAX_VALUE_EXPRESSION_LEN {
        ann.required(
            "valueExpression",
            &format!("must not exceed {MAX_VALUE_EXPRESSION_LEN} bytes in length"),
        );
        return None;
    }
    let program = compile(
        ann,
        env,
        path.child("valueExpression").as_str(),
        value_expression,
        Expect::StringOrNull,
    )?;
    Some(AuditAnnotation {
        key: key.to_owned(),
        value_expression: program,
    })
}

/// `spec.matchConditions` of a policy: name (a qualified name, unique) and a boolean expression.
fn read_match_conditions(spec: &mut Fields<'_, '_>, env: &Env) -> Vec<(String, Program)> {
    let doc = spec.doc;
    let items = spec.list("matchConditions");
    if items.len() > MAX_MATCH_CONDITIONS {
        let actual = i64::try_from(items.len()).unwrap_or(i64::MAX);
        spec.error(Error::too_many(
            &spec.path_of("matchConditions"),
            actual,
            MAX_MATCH_CONDITIONS as i64,
        ));
    }
    let mut out: Vec<(String, Program)> = Vec::new();
    let mut names: Vec<&str> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let path = Path::new("spec").child("matchConditions").index(i);
        let mut mc = Fields::new(doc, path.to_string(), item, spec.problems);
        mc.deny_unknown(&["name", "expression"]);
        let name = mc.string("name").unwrap_or("");
        let expression = mc.string("expression").unwrap_or("").trim();
        if name.is_empty() {
            mc.required("name", "");
        } else {
            for e in is_qualified_name(name) {
                mc.error(Error::invalid(&path.child("name"), name, e));
            }
            if names.contains(&name) {
                mc.error(Error::duplicate(&path.child("name"), name));
            }
            names.push(name);
        }
        if expression.is_empty() {
            mc.required("expression", "");
        } else if let Some(program) = compile(
            &mut mc,
            env,
            path.child("expression").as_str(),
            expression,
            Expect::Bool,
        ) {
            out.push((name.to_owned(), program));
        }
    }
    out
}

/// A CEL identifier: `[_a-zA-Z][_a-zA-Z0-9]*`, not a reserved word.
fn is_cel_identifier(s: &str) -> bool {
    const RESERVED: [&str; 22] = [
        "true",
        "false",
        "null",
        "in",
        "as",
        "break",
        "const",
        "continue",
        "else",
        "for",
        "function",
        "if",
        "import",
        "let",
        "loop",
        "package",
        "namespace",
        "return",
        "var",
        "void",
        "while",
        "",
    ];
    let mut chars = s.chars();
    let first_ok = chars
        .next()
        .is_some_and(|c| c == '_' || c.is_ascii_alphabetic());
    first_ok && chars.all(|c| c == '_' || c.is_ascii_alphanumeric()) && !RESERVED.contains(&s)
}

#[cfg(test)]
mod tests {
    use super::*;

    use serde_json::json;

    /// A messageExpression made of selections of the request objects and `+` has a cost bound (rendering it is skipped
    /// when no validation failed and the bound leaves the budget unexhausted); one with a call or a comprehension has
    /// none (always rendered, as upstream does), nor has one reading a composited variable (its own expression is
    /// evaluated on first use); a validation without one costs nothing to render.
    #[test]
    fn message_expressions_bounded_or_not() {
        let doc = json!({"metadata": {"name": "p"}, "spec": {
        "matchConstraints": constraints(),
        "validations": [
            {"expression": "true", "messageExpression": "'unknown team ' + object.metadata.labels['team']"},
            {"expression": "true", "message": "static"},
            {"expression": "true", "messageExpression": "object.spec.containers.map(c, c.name).join(', ')"},
            {"expression": "true", "messageExpression": "'user ' + request.userInfo.username"},
            {"expression": "true", "messageExpression": "'team ' + variables.team"},
        ],
        "variables": [{"name": "team", "expression": "object.metadata.labels.map(k, k).join(',')"}]}});
        let mut problems = Problems::new();
        let Some(policy) = Policy::compile(0, &doc, &mut problems) else {
            panic!("{problems:?}");
        };
        let bounds: Vec<_> = policy.validations.iter().map(|v| v.message_bound).collect();
        assert!(matches!(bounds.first(), Some(Some(b)) if b.per_size > 0 && b.fixed > 0));
        assert_eq!(
            bounds.get(1..),
            Some(
                &[
                    Some(CostBound {
                        fixed: 0,
                        per_size: 0
                    }),
                    None,
                    None,
                    None
                ][..]
            )
        );
    }

    #[test]
    fn identifiers_and_names() {
        assert!(is_cel_identifier("foo_1"));
        assert!(!is_cel_identifier("1foo"));
        assert!(!is_cel_identifier("in"));
    }

    /// `(path, message)` of every problem of compiling a policy with `spec`.
    fn problems(spec: Value) -> Vec<(String, String)> {
        let doc = json!({"metadata": {"name": "p"}, "spec": spec});
        let mut problems = Problems::new();
        let policy = Policy::compile(0, &doc, &mut problems);
        assert_eq!(policy.is_some(), problems.is_empty());
        problems
            .listed()
            .iter()
            .map(|d| (d.path.clone(), d.message.clone()))
            .collect()
    }

    fn constraints() -> Value {
        json!({"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"],
                                  "resources": ["pods"]}]})
    }

    fn pairs(expected: &[(&str, &str)]) -> Vec<(String, String)> {
        expected
            .iter()
            .map(|(p, m)| ((*p).to_owned(), (*m).to_owned()))
            .collect()
    }

    #[test]
    fn validations_or_audit_annotations_are_required() {
        assert_eq!(
            problems(json!({"matchConstraints": constraints()})),
            pairs(&[
                (
                    "policies[0].spec.validations",
                    "Required value: validations or auditAnnotations must contain at least one item"
                ),
                (
                    "policies[0].spec.auditAnnotations",
                    "Required value: validations or auditAnnotations must contain at least one item"
                ),
            ])
        );
    }

    #[test]
    fn validation_messages_are_checked_after_their_expressions() {
        let spec = json!({"matchConstraints": constraints(), "validations": [
            {"expression": "true", "message": "  ", "messageExpression": " "},
            {"expression": "", "message": "two\nlines", "messageExpression": ""},
            {"expression": "true", "messageExpression": "'fine'"},
        ]});
        assert_eq!(
            problems(spec),
            pairs(&[
                (
                    "policies[0].spec.validations[0].messageExpression",
                    r#"Invalid value: " ": must be non-empty if specified"#
                ),
                (
                    "policies[0].spec.validations[0].message",
                    r#"Invalid value: "  ": message must be non-empty if specified"#
                ),
                (
                    "policies[0].spec.validations[1].expression",
                    "Required value: expression is not specified"
                ),
                (
                    "policies[0].spec.validations[1].message",
                    r#"Invalid value: "two\nlines": message must not contain line breaks"#
                ),
            ])
        );
    }

    #[test]
    fn variables_need_identifiers_and_expressions() {
        let spec = json!({"matchConstraints": constraints(), "validations": [{"expression": "true"}],
                          "variables": [{"name": "in", "expression": "1"}, {"name": " ", "expression": "2"}]});
        let found = problems(spec);
        assert_eq!(
            found.get(..2),
            Some(
                &pairs(&[
                    (
                        "policies[0].spec.variables[0].name",
                        r#"Invalid value: "in": name is not a valid CEL identifier"#
                    ),
                    (
                        "policies[0].spec.variables[1].name",
                        "Required value: name is not specified"
                    ),
                ])[..]
            )
        );
    }

    #[test]
    fn audit_annotations_keys_and_value_expressions() {
        let long = format!("'{}'", "x".repeat(MAX_VALUE_EXPRESSION_LEN));
        let spec = json!({"matchConstraints": constraints(), "auditAnnotations": [
            {"key": "a", "valueExpression": "'1'"},
            {"key": "a", "valueExpression": " "},
            {"key": "b", "valueExpression": long},
        ]});
        assert_eq!(
            problems(spec),
            pairs(&[
                (
                    "policies[0].spec.auditAnnotations[1].key",
                    r#"Duplicate value: "a""#
                ),
                (
                    "policies[0].spec.auditAnnotations[1].valueExpression",
                    "Required value: valueExpression is not specified"
                ),
                (
                    "policies[0].spec.auditAnnotations[2].valueExpression",
                    "Required value: must not exceed 5120 bytes in length"
                ),
            ])
        );
    }
}
