//! The ValidatingAdmissionPolicy document, read and compiled as the API server validates it
//! (kubernetes/kubernetes `pkg/apis/admissionregistration/validation`: `validateValidatingAdmissionPolicySpec`).

use palisade_cel::{AdmissionVars, Env, Expect, Program, Variables};
use palisade_cel_kubernetes::field::{BadValue, Error, Path};
use palisade_cel_kubernetes::validation::is_qualified_name;
use palisade_matching::MatchResources;
use serde_json::Value;

use super::binding::Binding;
use crate::bundle::Diagnostic;
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
    match env.compile(source, expect) {
        Ok(program) => Some(program),
        Err(e) => {
            let problem = Diagnostic::in_document(f.doc, path, format!("compilation error: {e}"))
                .in_expression(source);
            f.problems.push(problem);
            None
        }
    }
}

impl Policy {
    /// Read and compile `policies[doc]`; `None` when it has problems (all of them reported).
    ///
    /// The expressions are compiled as kube-apiserver's `compilePolicy` does: `params` is
    /// declared only when the policy has a `paramKind`; variables, matchConditions,
    /// validations and auditAnnotations see `authorizer`, messageExpressions do not.
    pub fn compile(doc: usize, value: &Value, problems: &mut Vec<Diagnostic>) -> Option<Policy> {
        let before = problems.len();
        let mut root = Fields::new(doc, String::new(), value, problems);
        let name = metadata_name(&mut root);
        let spec_value = root.get("spec");
        let Some(spec_value) = spec_value else {
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

        let failure_policy = match spec.enumeration("failurePolicy", &["Fail", "Ignore"]) {
            Some("Ignore") => FailurePolicy::Ignore,
            _ => FailurePolicy::Fail,
        };

        let param_kind = spec.get("paramKind").map(|pk| {
            let mut pk = Fields::new(doc, "spec.paramKind".to_owned(), pk, spec.problems);
            pk.deny_unknown(&["apiVersion", "kind"]);
            ParamKind {
                api_version: pk
                    .required_string("apiVersion")
                    .unwrap_or_default()
                    .to_owned(),
                kind: pk.required_string("kind").unwrap_or_default().to_owned(),
            }
        });

        let match_constraints = match spec.get("matchConstraints") {
            None => {
                spec.required("matchConstraints", "");
                None
            }
            Some(mc) => match MatchResources::parse_policy_constraints(mc, "") {
                Ok(m) => Some(m),
                Err(errors) => {
                    for e in errors {
                        let path = Path::new("spec").child("matchConstraints").join(&e.path);
                        spec.problem_at(path.as_str(), e.message);
                    }
                    None
                }
            },
        };

        let has_params = param_kind.is_some();
        let full_env = Env::admission_for(AdmissionVars {
            params: has_params,
            authorizer: true,
        });
        let env = &full_env;
        let match_conditions = read_match_conditions(&mut spec, env);

        let mut variable_sources: Vec<(&str, &str)> = Vec::new();
        for (i, v) in spec.list("variables").iter().enumerate() {
            let path = Path::new("spec").child("variables").index(i);
            let mut var = Fields::new(doc, path.into(), v, spec.problems);
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
            variable_sources.push((name, expression));
        }
        let variables = match Variables::compile(env, &variable_sources) {
            Ok(v) => Some(v),
            Err((i, e)) => {
                let path = Path::new("spec")
                    .child("variables")
                    .index(i)
                    .child("expression");
                spec.problem_at(path.as_str(), format!("compilation error: {e}"));
                None
            }
        };
        let env = variables.as_ref().map(|v| v.env()).unwrap_or(env);
        // messageExpression: `HasAuthorizer: false`, with the policy's variables
        let message_base = Env::admission_for(AdmissionVars {
            params: has_params,
            authorizer: false,
        });
        let message_env = match &variables {
            Some(v) => v.declare_in(message_base),
            None => message_base,
        };

        let validation_values = spec.list("validations");
        let annotation_values = spec.list("auditAnnotations");
        if validation_values.is_empty() && annotation_values.is_empty() {
            spec.required(
                "validations",
                "validations or auditAnnotations must contain at least one item",
            );
            spec.required(
                "auditAnnotations",
                "validations or auditAnnotations must contain at least one item",
            );
        }
        let mut validations = Vec::new();
        for (i, v) in validation_values.iter().enumerate() {
            let path = Path::new("spec").child("validations").index(i);
            let mut val = Fields::new(doc, path.to_string(), v, spec.problems);
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
                    &mut val,
                    env,
                    path.child("expression").as_str(),
                    expression,
                    Expect::Bool,
                )
            };
            let message_program = match message_expression {
                Some(m) if m.trim().is_empty() && !m.is_empty() => {
                    val.error(Error::invalid(
                        &path.child("messageExpression"),
                        m,
                        "must be non-empty if specified",
                    ));
                    None
                }
                Some(m) if !m.is_empty() => compile(
                    &mut val,
                    &message_env,
                    path.child("messageExpression").as_str(),
                    m,
                    Expect::String,
                ),
                _ => None,
            };
            if let Some(m) = message {
                if !m.is_empty() && m.trim().is_empty() {
                    val.error(Error::invalid(
                        &path.child("message"),
                        m,
                        "message must be non-empty if specified",
                    ));
                } else if m.trim().contains(['\n', '\r']) {
                    val.error(Error::invalid(
                        &path.child("message"),
                        m,
                        "message must not contain line breaks",
                    ));
                }
            }
            if let Some(expression) = program {
                validations.push(Validation {
                    expression,
                    message: message.map(str::to_owned),
                    message_expression: message_program,
                    reason: reason.map(str::to_owned),
                });
            }
        }

        let mut audit_annotations = Vec::new();
        if annotation_values.len() > MAX_AUDIT_ANNOTATIONS {
            spec.error(Error::invalid(
                &spec.path_of("auditAnnotations"),
                BadValue::Json(Value::Array(annotation_values.to_vec())),
                format!("must not have more than {MAX_AUDIT_ANNOTATIONS} auditAnnotations"),
            ));
        }
        let mut keys: Vec<&str> = Vec::new();
        for (i, a) in annotation_values.iter().enumerate() {
            let path = Path::new("spec").child("auditAnnotations").index(i);
            let mut ann = Fields::new(doc, path.to_string(), a, spec.problems);
            ann.deny_unknown(&["key", "valueExpression"]);
            let key = ann.string("key").unwrap_or("");
            let qualified = format!("{}/{key}", name.as_deref().unwrap_or(""));
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
            } else if value_expression.len() > MAX_VALUE_EXPRESSION_LEN {
                ann.required(
                    "valueExpression",
                    &format!("must not exceed {MAX_VALUE_EXPRESSION_LEN} bytes in length"),
                );
            } else if let Some(program) = compile(
                &mut ann,
                env,
                path.child("valueExpression").as_str(),
                value_expression,
                Expect::StringOrNull,
            ) {
                audit_annotations.push(AuditAnnotation {
                    key: key.to_owned(),
                    value_expression: program,
                });
            }
        }

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

    #[test]
    fn identifiers_and_names() {
        assert!(is_cel_identifier("foo_1"));
        assert!(!is_cel_identifier("1foo"));
        assert!(!is_cel_identifier("in"));
    }
}
