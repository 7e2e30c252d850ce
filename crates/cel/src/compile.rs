//! Parse + check through cel-core, with depth guards and cel-go's error formatting.

use palisade_cel_eval::ids::{IdMap, IdSet};
use std::collections::HashMap;
use std::sync::Arc;

use cel_core::{CelType, CheckError, CheckErrorKind, Expr, ReferenceInfo, SpannedExpr};

use crate::{Expect, Flavor, Program};
use palisade_cel_eval::Dialect;
use palisade_cel_eval::eval::{Compiled, qualified_name};
use palisade_cel_eval::functions::{
    Call, Function, MAP_INSERT, Method, Rendering, Target, is_namespaced,
};
use palisade_cel_eval::value::{Const, ConstMap, ConstSet};

/// The nesting score a source may reach before parsing (brackets weigh 8, operators 1).
const MAX_SOURCE_NESTING: usize = 400;
/// The expression tree depth accepted after parsing.
const MAX_AST_DEPTH: usize = 200;
/// cel-go's default expression size limit, in code points.
const MAX_SOURCE_CODE_POINTS: usize = 100_000;
/// Palisade's bound, not cel-go's: a syntax error's text is at most this much per byte of the expression, plus
/// [`SYNTAX_TEXT_BASE`]; the errors past it are left out (the text stays the start of cel-go's). cel-go prints the
/// expression's line under each of up to 101 syntax errors, so a long line of junk would be answered with a hundred
/// copies of it, and a bundle of them (`MAX_BUNDLE_BYTES`) with gigabytes. Every expression of cel-go's parser tests
/// is answered in full.
const SYNTAX_TEXT_PER_SOURCE_BYTE: usize = 4;
const SYNTAX_TEXT_BASE: usize = 8 << 10;

/// Why an expression does not compile. `Display` is what kube-apiserver prints after
/// `compilation failed: ` (cel-go's `ERROR: <input>:line:col: message` with the source
/// snippet), or the result-type message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CompileError {
    /// Syntax or type errors, formatted as cel-go formats its issues.
    #[error("{0}")]
    Invalid(String),
    /// The expression's type is not the one required.
    #[error("{0}")]
    ResultType(String),
}

pub(crate) fn compile(
    env: &cel_core::Env,
    flavor: Flavor,
    source: &str,
    expect: Expect,
    check: bool,
    strict_presence: bool,
) -> Result<Program, CompileError> {
    if source.chars().count() > MAX_SOURCE_CODE_POINTS {
        return Err(CompileError::Invalid(format!(
            "ERROR: <input>:-1:0: expression code point size exceeds limit: size: {}, limit {}",
            source.chars().count(),
            MAX_SOURCE_CODE_POINTS
        )));
    }
    if let Some(offset) = nesting_exceeded(source) {
        return Err(CompileError::Invalid(format_issue(
            source,
            offset,
            "max recursion depth exceeded",
        )));
    }
    // cel-go before v0.28 reads `` a.`b-c` `` only with `EnableIdentEscapeSyntax`, which kube-apiserver does not turn
    // on (Kubernetes 1.36: cel-go v0.27); from v0.28 its parser reads them by default, as approver-policy v0.27's
    // (cel-go v0.30) does
    let parsed =
        cel_core::parser::parse_with_registry(source, macros(flavor), flavor == Flavor::Admission);
    let mut parsed = parsed;
    // A tree deeper than the checker takes is taken apart here, node by node: dropping it the
    // ordinary way recurses once per level and would overflow the (1 MiB) wasm stack.
    let too_deep = parsed
        .ast
        .as_ref()
        .is_some_and(|e| ast_depth(e) > MAX_AST_DEPTH);
    if too_deep && let Some(deep) = parsed.ast.take() {
        dismantle(deep);
    }
    if !parsed.errors.is_empty() {
        let budget = source.len().saturating_mul(SYNTAX_TEXT_PER_SOURCE_BYTE) + SYNTAX_TEXT_BASE;
        let mut text = String::new();
        for e in &parsed.errors {
            // cel-go reports a macro's errors as they are, its parser's with a prefix
            let message = if e.plain {
                e.message.clone()
            } else {
                format!("Syntax error: {}", e.message)
            };
            let issue = format_issue(source, e.span.start, &message);
            if !text.is_empty() {
                if text.len() + 1 + issue.len() > budget {
                    break;
                }
                text.push('\n');
            }
            text.push_str(&issue);
        }
        return Err(CompileError::Invalid(text));
    }
    if too_deep {
        return Err(CompileError::Invalid(format_issue(
            source,
            0,
            "max recursion depth exceeded",
        )));
    }
    let Some(mut expr) = parsed.ast else {
        return Err(CompileError::Invalid(format_issue(
            source,
            0,
            "Syntax error: empty expression",
        )));
    };
    if let Some(offset) = user_written_accumulator(&expr, source) {
        return Err(CompileError::Invalid(format_issue(
            source,
            offset,
            "undeclared reference to '__result__' (in container '')",
        )));
    }
    // without the authorizer (messageExpression) cel-go reports `authorizer` undeclared
    let request_resource =
        flavor == Flavor::Admission && env.variables().contains_key("authorizer.requestResource");
    rewrite_as_cel_go(&mut expr, request_resource);
    if flavor == Flavor::CertificateRequest {
        // approver-policy's environment does not enable cel-go's optional types
        let errs = optional_syntax(&expr, source);
        if !errs.is_empty() {
            let msgs: Vec<String> = errs
                .iter()
                .map(|(offset, m)| format_issue(source, *offset, m))
                .collect();
            return Err(CompileError::Invalid(msgs.join("\n")));
        }
    }
    let mut synthetic = IdSet::default();
    let mut presence = IdSet::default();
    let (refs, result_type) = if check {
        let mut checked = env.check(&expr);
        if !checked.errors.is_empty() {
            // cel-core types `dyn_value[i]` as an unbound type parameter and then rejects a
            // field selection on it; retry with every index wrapped in `dyn(…)`.
            let mut next_id = max_id(&expr) + 1;
            // only the indexes typed `dyn` (or left an unbound parameter), so a selection on a
            // typed element (`cr.groups[0].foo`, `namespaceObject.status.conditions[0].foo`)
            // stays an error, and the issues reported are those of the re-check
            let only: IdSet = checked
                .type_map
                .iter()
                .filter(|(_, t)| is_dynish(t))
                .map(|(id, _)| *id)
                .collect();
            let wrapped = wrap_indexes(expr.clone(), &mut next_id, &mut synthetic, Some(&only));
            let second = env.check(&wrapped);
            expr = wrapped;
            checked = second;
        }
        let equality = mismatched_equality(&expr, &checked, source);
        let ranges = unrangeable(&expr, &checked.type_map, source);
        if !checked.errors.is_empty() || !equality.is_empty() || !ranges.is_empty() {
            // kube-apiserver declares `variables` as an object whose fields are the policy's variables, so
            // `variables.nope` is only `undefined field 'nope'`; each variable here is a dotted name, and the checker
            // also finds `variables` undeclared there
            let variables_selected: IdSet = checked
                .errors
                .iter()
                .filter(|e| matches!(e.kind, CheckErrorKind::UndefinedField { .. }))
                .filter_map(|e| match &find_node(&expr, e.expr_id)?.node {
                    Expr::Member { expr: operand, .. }
                        if matches!(&operand.node, Expr::Ident(n) if n == "variables") =>
                    {
                        Some(operand.id)
                    }
                    _ => None,
                })
                .collect();
            // cel-go selects from a value it could not type as from `dyn`: `objekt.spec` is only `objekt` undeclared
            let from_error = |e: &&CheckError| {
                matches!(e.kind, CheckErrorKind::UndefinedField { .. })
                    && matches!(
                        find_node(&expr, e.expr_id).map(|n| &n.node),
                        Some(Expr::Member { expr: operand, .. })
                            if checked.type_map.get(&operand.id) == Some(&CelType::Error)
                                && !variables_selected.contains(&operand.id)
                    )
            };
            let mut issues: Vec<(usize, String)> = checked
                .errors
                .iter()
                .filter(|e| !variables_selected.contains(&e.expr_id) && !from_error(e))
                .map(|e| {
                    // worded and placed as cel-go's checker words and places them
                    let node = find_node(&expr, e.expr_id);
                    (
                        node.map_or(e.span.start, |n| issue_offset(n, e, source)),
                        check_message(e, node, &checked.type_map),
                    )
                })
                .collect();
            issues.extend(equality);
            issues.extend(ranges);
            let mut type_vars = TypeVarNames::default();
            for (_, message) in &mut issues {
                *message = type_vars.rename(message);
            }
            return Err(issues_error(issues, source));
        }
        let invalid = match flavor {
            Flavor::Admission => kubernetes_validations(&expr, &checked.type_map, source),
            Flavor::CertificateRequest | Flavor::Custom => {
                format_validations(&expr, &checked.type_map, source)
            }
        };
        if !invalid.is_empty() {
            return Err(issues_error(invalid, source));
        }
        let ty = checked
            .type_map
            .get(&expr.id)
            .cloned()
            .unwrap_or(CelType::Dyn);
        if flavor == Flavor::CertificateRequest {
            presence = proto3_presence_tests(&expr, &checked.type_map);
        }
        (checked.reference_map.into_iter().collect::<IdMap<_>>(), ty)
    } else {
        (IdMap::default(), CelType::Dyn)
    };
    check_result_type(flavor, expect, &result_type)?;
    let calls = resolve_calls(&expr, &refs, flavor)?;
    // approver-policy compiles without `cel.OptOptimize`: every literal list and map is built, and charged, as it is
    // evaluated
    let (consts, sets) = if flavor == Flavor::CertificateRequest {
        (IdMap::default(), IdMap::default())
    } else {
        fold_constants(&expr)
    };
    let const_calls = has_folded_call(&expr, &consts);
    Ok(Program::new(
        source.to_string(),
        Compiled {
            expr,
            refs,
            calls,
            consts,
            sets,
            const_calls,
            synthetic,
            presence,
            container: env.container().to_string(),
            strict_presence,
            dialect: match flavor {
                Flavor::Admission => Dialect::Kubernetes,
                Flavor::CertificateRequest => Dialect::CelGo,
                Flavor::Custom => Dialect::Spec,
            },
        },
        result_type,
    ))
}

/// Names for the checker's free type variables in issues. cel-core numbers them from one process-wide counter
/// (`?T<n>`), so the same expression was reported with a different number on every compilation, and the native library
/// and a fresh `palisade.wasm` disagreed on the same bundle. cel-go names them `_var<n>` from a counter of its checker;
/// here they are numbered in order of first appearance within one compilation's issues, so the message depends on the
/// expression alone.
#[derive(Default)]
struct TypeVarNames {
    seen: Vec<String>,
}

impl TypeVarNames {
    /// `message` (never the echoed source line, where `x.?T1` is an optional field selection) with each `?T<digits>`
    /// replaced by its `_var<k>`.
    fn rename(&mut self, message: &str) -> String {
        let mut out = String::with_capacity(message.len());
        let mut rest = message;
        while let Some(at) = rest.find("?T") {
            let (before, from) = rest.split_at(at);
            out.push_str(before);
            let tail = from.get(2..).unwrap_or_default();
            let digits = tail.len() - tail.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            if digits == 0 {
                out.push_str("?T");
                rest = tail;
                continue;
            }
            let (id, after) = tail.split_at(digits);
            let k = match self.seen.iter().position(|s| s == id) {
                Some(k) => k,
                None => {
                    self.seen.push(id.to_owned());
                    self.seen.len() - 1
                }
            };
            out.push_str(&format!("_var{k}"));
            rest = after;
        }
        out.push_str(rest);
        out
    }
}

fn is_dynish(t: &CelType) -> bool {
    matches!(
        t,
        CelType::Dyn | CelType::TypeParam(_) | CelType::TypeVar(_)
    )
}

/// cel-go's `*types.Type` `String()`: `list(string)`, `map(string, dyn)`, `null_type` …
fn go_type_name(t: &CelType) -> String {
    // type nesting is bounded by the expression depth checked before
    match t {
        CelType::Null => "null_type".to_string(),
        CelType::Timestamp => "google.protobuf.Timestamp".to_string(),
        CelType::Duration => "google.protobuf.Duration".to_string(),
        CelType::List(e) => format!("list({})", go_type_name(e)),
        CelType::Map(k, v) => format!("map({}, {})", go_type_name(k), go_type_name(v)),
        CelType::Type(i) => format!("type({})", go_type_name(i)),
        CelType::Optional(i) => format!("optional_type({})", go_type_name(i)),
        CelType::Wrapper(i) => format!("wrapper({})", go_type_name(i)),
        CelType::Abstract { name, params } if !params.is_empty() => {
            let ps: Vec<String> = params.iter().map(go_type_name).collect();
            format!("{name}({})", ps.join(", "))
        }
        other => other.display_name(),
    }
}

/// cel-go's checker `FormatCELType`, used in its issues (`found no matching overload …`, `type
/// '…' does not support field selection`): as [`go_type_name`] except `null`, `timestamp` and
/// `duration`.
fn go_checker_type_name(t: &CelType) -> String {
    // type nesting is bounded by the expression depth checked before
    match t {
        CelType::Null => "null".to_string(),
        CelType::Timestamp => "timestamp".to_string(),
        CelType::Duration => "duration".to_string(),
        CelType::List(e) => format!("list({})", go_checker_type_name(e)),
        CelType::Map(k, v) => format!(
            "map({}, {})",
            go_checker_type_name(k),
            go_checker_type_name(v)
        ),
        CelType::Type(i) => format!("type({})", go_checker_type_name(i)),
        CelType::Optional(i) => format!("optional_type({})", go_checker_type_name(i)),
        CelType::Wrapper(i) => format!("wrapper({})", go_checker_type_name(i)),
        CelType::Abstract { name, params } if !params.is_empty() => {
            let ps: Vec<String> = params.iter().map(go_checker_type_name).collect();
            format!("{name}({})", ps.join(", "))
        }
        other => go_type_name(other),
    }
}

fn check_result_type(flavor: Flavor, expect: Expect, t: &CelType) -> Result<(), CompileError> {
    if flavor == Flavor::CertificateRequest {
        // approver-policy: `reflect.DeepEqual(ast.OutputType(), cel.BoolType)`, so `dyn` fails
        let wanted = match expect {
            Expect::Bool => CelType::Bool,
            Expect::String => CelType::String,
            Expect::StringOrNull | Expect::Any => CelType::Dyn,
        };
        if wanted != CelType::Dyn {
            if *t == wanted {
                return Ok(());
            }
            return Err(CompileError::ResultType(TypeVarNames::default().rename(
                &format!(
                    "got {}, wanted {} result type",
                    go_type_name(t),
                    go_type_name(&wanted)
                ),
            )));
        }
    }
    // kube-apiserver compile.go CompileCELExpression: the output type must be exactly one of
    // the expression's return types (`dyn` is not `bool`)
    let wanted: &[CelType] = match expect {
        Expect::Any => return Ok(()),
        Expect::Bool => &[CelType::Bool],
        Expect::String => &[CelType::String],
        Expect::StringOrNull => &[CelType::String, CelType::Null],
    };
    let got = without_type_params(t, 0);
    if wanted.contains(&got) {
        return Ok(());
    }
    let got = go_type_name(&got);
    Err(CompileError::ResultType(match wanted {
        [one] => format!("must evaluate to {} but got {got}", go_type_name(one)),
        _ => {
            let names: Vec<String> = wanted.iter().map(go_type_name).collect();
            format!(
                "must evaluate to one of [{}] but got {got}",
                names.join(" ")
            )
        }
    }))
}

/// `t` with unbound type parameters as `dyn`, as cel-go's checker leaves an output type.
fn without_type_params(t: &CelType, depth: u32) -> CelType {
    if depth > 64 {
        return CelType::Dyn;
    }
    let d = depth + 1;
    match t {
        CelType::TypeParam(_) | CelType::TypeVar(_) => CelType::Dyn,
        CelType::List(e) => CelType::list(without_type_params(e, d)),
        CelType::Map(k, v) => CelType::map(without_type_params(k, d), without_type_params(v, d)),
        CelType::Type(i) => CelType::type_of(without_type_params(i, d)),
        CelType::Optional(i) => CelType::optional(without_type_params(i, d)),
        other => other.clone(),
    }
}

/// cel-go's parser (ANTLR) words a missing closing token at the end of the input
/// `missing ')' at '<EOF>'`; cel-core says `expected ')', found None`.
/// cel-go declares `_==_`, `_!=_` as `(A, A) -> bool`, `@in` as `(A, list(A))` and
/// `(A, map(A, B))`, list `_+_` as `(list(A), list(A))` and `_?_:_` as `(bool, A, A)`: operands
/// whose types cannot be unified (`1 == 'a'`, `'a' == null`, `1 in ['a']`, `[1] + ['a']`,
/// `true ? 1 : 'a'`) are `found no matching overload`, where cel-core accepts them. Operands
/// already in error, and the steps macros generate around their accumulator, are left alone.
fn mismatched_equality(
    root: &SpannedExpr,
    checked: &cel_core::CheckResult,
    source: &str,
) -> Vec<(usize, String)> {
    use cel_core::BinaryOp;
    let types = &checked.type_map;
    let reported: IdSet = checked.errors.iter().map(|e| e.expr_id).collect();
    let accumulator = |e: &SpannedExpr| matches!(&e.node, Expr::Ident(n) if n == "__result__");
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(e) = stack.pop() {
        stack.extend(children(e));
        if reported.contains(&e.id) {
            continue;
        }
        let (function, operands, unify): (&str, Vec<&SpannedExpr>, Option<(CelType, CelType)>) =
            match &e.node {
                Expr::Binary { op, left, right } => {
                    let (Some(l), Some(r)) = (types.get(&left.id), types.get(&right.id)) else {
                        continue;
                    };
                    match op {
                        BinaryOp::Eq => ("_==_", vec![left, right], Some((l.clone(), r.clone()))),
                        BinaryOp::Ne => ("_!=_", vec![left, right], Some((l.clone(), r.clone()))),
                        BinaryOp::In => match r {
                            CelType::List(elem) => (
                                "@in",
                                vec![left, right],
                                Some((l.clone(), (**elem).clone())),
                            ),
                            CelType::Map(key, _) => {
                                ("@in", vec![left, right], Some((l.clone(), (**key).clone())))
                            }
                            _ => continue,
                        },
                        BinaryOp::Add if !accumulator(left) && !accumulator(right) => {
                            match (l, r) {
                                (CelType::List(a), CelType::List(b)) => (
                                    "_+_",
                                    vec![left, right],
                                    Some(((**a).clone(), (**b).clone())),
                                ),
                                _ => continue,
                            }
                        }
                        _ => continue,
                    }
                }
                Expr::Ternary {
                    cond,
                    then_expr,
                    else_expr,
                } if !accumulator(then_expr) && !accumulator(else_expr) => {
                    let (Some(t), Some(f)) = (types.get(&then_expr.id), types.get(&else_expr.id))
                    else {
                        continue;
                    };
                    (
                        "_?_:_",
                        vec![cond, then_expr, else_expr],
                        Some((t.clone(), f.clone())),
                    )
                }
                _ => continue,
            };
        let Some((a, b)) = unify else { continue };
        if go_assignable(&a, &b, 0) {
            continue;
        }
        let names: Vec<String> = operands
            .iter()
            .map(|o| {
                types
                    .get(&o.id)
                    .map_or_else(|| "dyn".to_string(), go_checker_type_name)
            })
            .collect();
        out.push((
            go_location(e, source).unwrap_or(e.span.start),
            format!(
                "found no matching overload for '{function}' applied to '({})'",
                names.join(", ")
            ),
        ));
    }
    out
}

/// cel-go checker `internalIsAssignable` for two operand types (type parameters and `dyn`
/// unify with anything; unknown shapes are taken as assignable).
fn go_assignable(a: &CelType, b: &CelType, depth: u32) -> bool {
    if depth > 64 {
        return true;
    }
    let wild = |t: &CelType| is_dynish(t) || matches!(t, CelType::Error);
    if wild(a) || wild(b) {
        return true;
    }
    let d = depth + 1;
    match (a, b) {
        (CelType::Null, CelType::Null) => true,
        (CelType::Null, t) | (t, CelType::Null) => go_nullable(t),
        (CelType::List(x), CelType::List(y)) => go_assignable(x, y, d),
        (CelType::Map(k1, v1), CelType::Map(k2, v2)) => {
            go_assignable(k1, k2, d) && go_assignable(v1, v2, d)
        }
        (CelType::Type(_), CelType::Type(_)) => true,
        (CelType::Optional(x), CelType::Optional(y)) => go_assignable(x, y, d),
        (CelType::Wrapper(x), CelType::Wrapper(y)) => go_assignable(x, y, d),
        (CelType::Wrapper(w), t) | (t, CelType::Wrapper(w)) => go_assignable(w, t, d),
        (CelType::Message(x), CelType::Message(y)) => x == y,
        (CelType::Enum(_), _) | (_, CelType::Enum(_)) => true,
        (
            CelType::Abstract {
                name: n1,
                params: p1,
            },
            CelType::Abstract {
                name: n2,
                params: p2,
            },
        ) => {
            n1 == n2
                && p1.len() == p2.len()
                && p1
                    .iter()
                    .zip(p2.iter())
                    .all(|(x, y)| go_assignable(x, y, d))
        }
        (CelType::Function { .. }, _) | (_, CelType::Function { .. }) => true,
        (x, y) => std::mem::discriminant(x) == std::mem::discriminant(y),
    }
}

/// cel-go's `isLegacyNullable`: messages, opaque types, timestamps, durations (and wrappers).
fn go_nullable(t: &CelType) -> bool {
    matches!(
        t,
        CelType::Message(_)
            | CelType::Abstract { .. }
            | CelType::Optional(_)
            | CelType::Timestamp
            | CelType::Duration
            | CelType::Wrapper(_)
    )
}

/// cel-go's wording for the checker's errors. With `cel_go` (the erroring node, given for
/// approver-policy's environment) types are named as cel-go names them and a receiver call's
/// signature is written `receiver.(args)`.
fn check_message(
    e: &CheckError,
    cel_go: Option<&SpannedExpr>,
    types: &HashMap<i64, CelType>,
) -> String {
    // a selection on a value that is not a message, a map or `dyn`
    if let Some(node) = cel_go
        && let CheckErrorKind::UndefinedField { .. } = &e.kind
        && let Expr::Member { expr, .. } | Expr::MemberTestOnly { expr, .. } = &node.node
        && let Some(t) = types.get(&expr.id)
        && !matches!(t, CelType::Message(_) | CelType::Error)
        && !is_dynish(t)
    {
        return format!(
            "type '{}' does not support field selection",
            go_checker_type_name(t)
        );
    }
    if let Some(node) = cel_go
        && let CheckErrorKind::NoMatchingOverload {
            function,
            arg_types,
        } = &e.kind
    {
        let receiver_call = matches!(
            &node.node,
            Expr::Call { expr, .. }
                if matches!(&expr.node, Expr::Member { field, .. } if field == function)
        );
        let mut types = arg_types.iter().map(go_checker_type_name);
        let signature = if receiver_call {
            let target = types.next().unwrap_or_default();
            format!("{target}.({})", types.collect::<Vec<_>>().join(", "))
        } else {
            format!("({})", types.collect::<Vec<_>>().join(", "))
        };
        return format!("found no matching overload for '{function}' applied to '{signature}'");
    }
    match &e.kind {
        CheckErrorKind::UndeclaredReference { container, name } => {
            format!("undeclared reference to '{name}' (in container '{container}')")
        }
        CheckErrorKind::NoMatchingOverload {
            function,
            arg_types,
        } => {
            let types: Vec<String> = arg_types.iter().map(go_checker_type_name).collect();
            format!(
                "found no matching overload for '{}' applied to '({})'",
                function,
                types.join(", ")
            )
        }
        // cel-go: a struct type the type provider does not know (approver-policy's
        // ServiceAccount is declared with `cel.ObjectType` but not registered) cannot be selected
        CheckErrorKind::UndefinedField { type_name, .. }
            if type_name == palisade_cel_eval::approver::T_SERVICE_ACCOUNT =>
        {
            format!("unexpected failed resolution of '{type_name}'")
        }
        CheckErrorKind::UndefinedField { field, .. } => format!("undefined field '{field}'"),
        other => other.to_string(),
    }
}

/// `ERROR: <input>:line:col: message` followed by the source line and a caret, as cel-go.
pub(crate) fn format_issue(source: &str, offset: usize, message: &str) -> String {
    let offset = offset.min(source.len());
    let before = source.get(..offset).unwrap_or("");
    let line_no = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
    let col = source
        .get(line_start..offset)
        .map(|s| s.chars().count())
        .unwrap_or(0);
    let line_text = source
        .get(line_start..)
        .unwrap_or("")
        .split('\n')
        .next()
        .unwrap_or("");
    // cel-go prints a tab as a space, and from the first character of more than one byte on, marks the columns with
    // full-width dots and caret (`．`, `＾`); past the line's end (`<EOF>` after a wide character) the caret is `^`
    let mut marks = String::new();
    let mut wide = false;
    let mut chars = line_text.chars();
    for c in chars.by_ref().take(col) {
        wide |= c.len_utf8() > 1;
        marks.push(if wide { '．' } else { '.' });
    }
    let wide = chars.next().is_some_and(|c| wide || c.len_utf8() > 1);
    marks.push(if wide { '＾' } else { '^' });
    format!(
        "ERROR: <input>:{}:{}: {}\n | {}\n | {}",
        line_no,
        col + 1,
        message,
        line_text.replace('\t', " "),
        marks
    )
}

/// Pre-parse guard: the parser and checker recurse on nesting, so bound it first. Returns
/// the offset where the bound is crossed.
fn nesting_exceeded(source: &str) -> Option<usize> {
    let bytes = source.as_bytes();
    // per open bracket: operators seen in the current element
    let mut frames: Vec<usize> = vec![0];
    let mut score: usize = 0;
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes.get(i).copied().unwrap_or(b' ');
        match c {
            b'\'' | b'"' => {
                i = skip_string(bytes, i);
                continue;
            }
            b'(' | b'[' | b'{' => {
                frames.push(0);
                score += 8;
            }
            b')' | b']' | b'}' if frames.len() > 1 => {
                let ops = frames.pop().unwrap_or(0);
                score = score.saturating_sub(8 + ops);
            }
            b',' => {
                if let Some(f) = frames.last_mut() {
                    score = score.saturating_sub(*f);
                    *f = 0;
                }
            }
            b'+' | b'-' | b'*' | b'/' | b'%' | b'!' | b'?' | b'&' | b'|' | b'<' | b'>' | b'='
            | b'.' => {
                if let Some(f) = frames.last_mut() {
                    *f += 1;
                    score += 1;
                }
            }
            _ => {}
        }
        if score > MAX_SOURCE_NESTING {
            return Some(i);
        }
        i += 1;
    }
    None
}

/// Skips a quoted literal (single, double or triple quotes; raw or not), returning the index
/// after it.
fn skip_string(bytes: &[u8], start: usize) -> usize {
    let q = bytes.get(start).copied().unwrap_or(b'"');
    let triple = bytes.get(start + 1) == Some(&q) && bytes.get(start + 2) == Some(&q);
    let raw = start > 0 && matches!(bytes.get(start - 1), Some(b'r') | Some(b'R'));
    let mut i = if triple { start + 3 } else { start + 1 };
    while i < bytes.len() {
        let c = bytes.get(i).copied().unwrap_or(0);
        if c == b'\\' && !raw {
            i += 2;
            continue;
        }
        if c == q {
            if !triple {
                return i + 1;
            }
            if bytes.get(i + 1) == Some(&q) && bytes.get(i + 2) == Some(&q) {
                return i + 3;
            }
        }
        if c == b'\n' && !triple {
            return i + 1;
        }
        i += 1;
    }
    i
}

fn children(e: &SpannedExpr) -> Vec<&SpannedExpr> {
    match &e.node {
        Expr::List(items) => items.iter().map(|i| &i.expr).collect(),
        Expr::Map(entries) => entries.iter().flat_map(|m| [&m.key, &m.value]).collect(),
        Expr::Unary { expr, .. } => vec![&**expr],
        Expr::Binary { left, right, .. } => vec![&**left, &**right],
        Expr::Ternary {
            cond,
            then_expr,
            else_expr,
        } => vec![&**cond, &**then_expr, &**else_expr],
        Expr::Member { expr, .. } | Expr::MemberTestOnly { expr, .. } => vec![&**expr],
        Expr::Index { expr, index, .. } => vec![&**expr, &**index],
        Expr::Call { expr, args } => {
            let mut v = vec![&**expr];
            v.extend(args.iter());
            v
        }
        Expr::Struct { type_name, fields } => {
            let mut v = vec![&**type_name];
            v.extend(fields.iter().map(|f| &f.value));
            v
        }
        Expr::Comprehension(c) => vec![
            &*c.iter_range,
            &*c.accu_init,
            &*c.loop_condition,
            &*c.loop_step,
            &*c.result,
        ],
        Expr::Bind { init, body, .. } => vec![&**init, &**body],
        _ => Vec::new(),
    }
}

/// Drops a tree without recursion: each node's children are moved onto a work list before the
/// (then childless) node itself is dropped.
fn dismantle(root: SpannedExpr) {
    let mut stack = vec![root];
    while let Some(mut e) = stack.pop() {
        match std::mem::replace(&mut e.node, Expr::Null) {
            Expr::List(items) => stack.extend(items.into_iter().map(|i| i.expr)),
            Expr::Map(entries) => {
                for m in entries {
                    stack.push(m.key);
                    stack.push(m.value);
                }
            }
            Expr::Unary { expr, .. }
            | Expr::Member { expr, .. }
            | Expr::MemberTestOnly { expr, .. } => stack.push(*expr),
            Expr::Binary { left, right, .. } => {
                stack.push(*left);
                stack.push(*right);
            }
            Expr::Ternary {
                cond,
                then_expr,
                else_expr,
            } => stack.extend([*cond, *then_expr, *else_expr]),
            Expr::Index { expr, index, .. } => stack.extend([*expr, *index]),
            Expr::Call { expr, args } => {
                stack.push(*expr);
                stack.extend(args);
            }
            Expr::Struct { type_name, fields } => {
                stack.push(*type_name);
                stack.extend(fields.into_iter().map(|f| f.value));
            }
            Expr::Comprehension(c) => stack.extend([
                *c.iter_range,
                *c.accu_init,
                *c.loop_condition,
                *c.loop_step,
                *c.result,
            ]),
            Expr::Bind { init, body, .. } => stack.extend([*init, *body]),
            _ => {}
        }
    }
}

/// Depth of the tree, computed without recursion.
fn ast_depth(root: &SpannedExpr) -> usize {
    let mut max = 0;
    let mut stack = vec![(root, 1usize)];
    while let Some((e, d)) = stack.pop() {
        max = max.max(d);
        for c in children(e) {
            stack.push((c, d + 1));
        }
    }
    max
}

/// Resolves every call once: the function it names (from the checker's reference, else from the
/// callee; cel-go's planner does the same with its reference map), and the literal regex argument
/// of `matches`, `find`, `findAll` compiled.
fn resolve_calls(
    root: &SpannedExpr,
    refs: &IdMap<ReferenceInfo>,
    flavor: Flavor,
) -> Result<IdMap<Call>, CompileError> {
    let mut out = IdMap::default();
    let mut stack = vec![root];
    while let Some(e) = stack.pop() {
        if let Expr::Call { expr, args } = &e.node {
            let pattern = match &expr.node {
                Expr::Member { field, .. }
                    if matches!(field.as_str(), "matches" | "find" | "findAll") =>
                {
                    args.first()
                }
                Expr::Ident(n) if n == "matches" => args.get(1),
                _ => None,
            };
            let regex = match pattern {
                Some(SpannedExpr {
                    node: Expr::String(p),
                    ..
                }) => {
                    // cel-go compiles a literal pattern when the program is built (OptimizeRegex);
                    // kube-apiserver reports its error as `program instantiation failed: …`
                    Some(palisade_cel_kubernetes::regex::compile(p).map_err(|e| {
                        CompileError::Invalid(format!("program instantiation failed: {e}"))
                    })?)
                }
                _ => None,
            };
            let target = match call_target(expr, refs.get(&e.id)) {
                // kube-apiserver's strings extension is at version 2: cel-go's localized `format`
                Target::Method(Method::Format) if flavor == Flavor::Admission => {
                    Target::Method(Method::FormatLocalized)
                }
                target => target,
            };
            out.insert(e.id, Call { target, regex });
        }
        stack.extend(children(e));
    }
    Ok(out)
}

/// What the callee of a call names: a namespaced function (`math.abs`, when the checker resolved
/// the selection as that name, or unchecked, unless its leftmost name is bound when evaluated), a
/// method on the selected receiver, or a global function.
fn call_target(callee: &SpannedExpr, reference: Option<&ReferenceInfo>) -> Target {
    match &callee.node {
        Expr::Member { field, .. } => {
            let method = Method::from_name(field);
            match (reference, qualified_name(callee)) {
                (Some(r), Some(q)) if r.name.contains('.') && q == r.name => {
                    Target::Global(Function::from_name(&r.name))
                }
                (None, Some(q)) if is_namespaced(&q) => {
                    Target::GlobalUnlessBound(Function::from_name(&q), method)
                }
                _ => Target::Method(method),
            }
        }
        Expr::Ident(n) | Expr::RootIdent(n) => Target::Global(Function::from_name(n)),
        _ => Target::Unsupported,
    }
}

/// The constant a literal node is, when it is one: a scalar literal, or a list or map literal
/// already folded.
fn literal_const(e: &SpannedExpr, folded: &IdMap<Const>) -> Option<Const> {
    Some(match &e.node {
        Expr::Null => Const::Null,
        Expr::Bool(b) => Const::Bool(*b),
        Expr::Int(i) => Const::Int(*i),
        Expr::UInt(u) => Const::Uint(*u),
        Expr::Float(f) => Const::Double(*f),
        Expr::String(s) => Const::String(Arc::from(s.as_str())),
        Expr::Bytes(b) => Const::Bytes(Arc::from(b.as_slice())),
        Expr::List(_) | Expr::Map(_) | Expr::Call { .. } => folded.get(&e.id)?.clone(),
        _ => return None,
    })
}

/// cel-go's `decOptimize` (kube-apiserver compiles with `cel.OptOptimize`): a list or map literal
/// whose elements are all constants is built once, here, and is itself a constant (free to
/// evaluate, like any literal); so is a type conversion of a constant (`maybeOptimizeConstUnary`:
/// `duration('1h')`, `string(1)`; one that fails is left to fail when evaluated); `x in <such a
/// list of primitives>` becomes a set lookup (`maybeOptimizeSetMembership`). Without recursion: nodes are visited children first.
fn fold_constants(root: &SpannedExpr) -> (IdMap<Const>, IdMap<ConstSet>) {
    let mut order = Vec::new();
    let mut seen: IdMap<u32> = IdMap::default();
    let mut stack = vec![root];
    while let Some(e) = stack.pop() {
        *seen.entry(e.id).or_default() += 1;
        order.push(e);
        stack.extend(children(e));
    }
    let unique = |id: i64| seen.get(&id) == Some(&1);
    let mut folded: IdMap<Const> = IdMap::default();
    let mut sets = IdMap::default();
    for e in order.iter().rev() {
        match &e.node {
            Expr::List(items) if unique(e.id) => {
                let elems: Option<Vec<Const>> = items
                    .iter()
                    .map(|i| {
                        if i.optional {
                            None
                        } else {
                            literal_const(&i.expr, &folded)
                        }
                    })
                    .collect();
                if let Some(elems) = elems {
                    folded.insert(e.id, Const::List(Arc::from(elems)));
                }
            }
            Expr::Map(entries) if unique(e.id) => {
                let pairs: Option<Vec<(Const, Const)>> = entries
                    .iter()
                    .map(|m| {
                        if m.optional {
                            return None;
                        }
                        Some((
                            literal_const(&m.key, &folded)?,
                            literal_const(&m.value, &folded)?,
                        ))
                    })
                    .collect();
                if let Some(map) = pairs.and_then(ConstMap::new) {
                    folded.insert(e.id, Const::Map(Arc::new(map)));
                }
            }
            Expr::Call { expr, args } if unique(e.id) => {
                if let (Expr::Ident(name), [arg]) = (&expr.node, args.as_slice())
                    && let Some(c) = literal_const(arg, &folded)
                    && let Some(v) =
                        palisade_cel_eval::functions::convert_const(Function::from_name(name), c)
                {
                    folded.insert(e.id, v);
                }
            }
            Expr::Binary {
                op: cel_core::BinaryOp::In,
                right,
                ..
            } if unique(e.id) => {
                if let Some(Const::List(l)) = folded.get(&right.id)
                    && let Some(set) = ConstSet::new(l)
                {
                    sets.insert(e.id, set);
                }
            }
            _ => {}
        }
    }
    (folded, sets)
}

fn has_folded_call(root: &SpannedExpr, consts: &IdMap<Const>) -> bool {
    if consts.is_empty() {
        return false;
    }
    let mut stack = vec![root];
    while let Some(e) = stack.pop() {
        if matches!(e.node, Expr::Call { .. }) && consts.contains_key(&e.id) {
            return true;
        }
        stack.extend(children(e));
    }
    false
}

fn max_id(root: &SpannedExpr) -> i64 {
    let mut max = root.id;
    let mut stack = vec![root];
    while let Some(e) = stack.pop() {
        max = max.max(e.id);
        stack.extend(children(e));
    }
    max
}

/// Wraps every index expression (or, with `only`, those ids) in a synthetic `dyn(…)` call
/// (depth is already bounded).
fn wrap_indexes(
    e: SpannedExpr,
    next_id: &mut i64,
    synthetic: &mut IdSet,
    only: Option<&IdSet>,
) -> SpannedExpr {
    let SpannedExpr { id, node, span } = e;
    let w =
        |x: Box<SpannedExpr>, n: &mut i64, s: &mut IdSet| Box::new(wrap_indexes(*x, n, s, only));
    let node = match node {
        Expr::List(items) => Expr::List(
            items
                .into_iter()
                .map(|mut i| {
                    i.expr = wrap_indexes(i.expr, next_id, synthetic, only);
                    i
                })
                .collect(),
        ),
        Expr::Map(entries) => Expr::Map(
            entries
                .into_iter()
                .map(|mut m| {
                    m.key = wrap_indexes(m.key, next_id, synthetic, only);
                    m.value = wrap_indexes(m.value, next_id, synthetic, only);
                    m
                })
                .collect(),
        ),
        Expr::Unary { op, expr } => Expr::Unary {
            op,
            expr: w(expr, next_id, synthetic),
        },
        Expr::Binary { op, left, right } => Expr::Binary {
            op,
            left: w(left, next_id, synthetic),
            right: w(right, next_id, synthetic),
        },
        Expr::Ternary {
            cond,
            then_expr,
            else_expr,
        } => Expr::Ternary {
            cond: w(cond, next_id, synthetic),
            then_expr: w(then_expr, next_id, synthetic),
            else_expr: w(else_expr, next_id, synthetic),
        },
        Expr::Member {
            expr,
            field,
            optional,
        } => Expr::Member {
            expr: w(expr, next_id, synthetic),
            field,
            optional,
        },
        Expr::MemberTestOnly { expr, field } => Expr::MemberTestOnly {
            expr: w(expr, next_id, synthetic),
            field,
        },
        Expr::Index {
            expr,
            index,
            optional,
        } => {
            let inner = SpannedExpr {
                id,
                node: Expr::Index {
                    expr: w(expr, next_id, synthetic),
                    index: w(index, next_id, synthetic),
                    optional,
                },
                span: span.clone(),
            };
            if only.is_some_and(|ids| !ids.contains(&id)) {
                return inner;
            }
            let callee_id = *next_id;
            let call_id = *next_id + 1;
            *next_id += 2;
            synthetic.insert(call_id);
            return SpannedExpr {
                id: call_id,
                node: Expr::Call {
                    expr: Box::new(SpannedExpr {
                        id: callee_id,
                        node: Expr::Ident("dyn".to_string()),
                        span: span.clone(),
                    }),
                    args: vec![inner],
                },
                span,
            };
        }
        Expr::Call { expr, args } => Expr::Call {
            expr: w(expr, next_id, synthetic),
            args: args
                .into_iter()
                .map(|a| wrap_indexes(a, next_id, synthetic, only))
                .collect(),
        },
        Expr::Comprehension(mut c) => {
            c.iter_range = w(c.iter_range, next_id, synthetic);
            c.accu_init = w(c.accu_init, next_id, synthetic);
            c.loop_condition = w(c.loop_condition, next_id, synthetic);
            c.loop_step = w(c.loop_step, next_id, synthetic);
            c.result = w(c.result, next_id, synthetic);
            Expr::Comprehension(c)
        }
        Expr::Bind {
            var_name,
            init,
            body,
        } => Expr::Bind {
            var_name,
            init: w(init, next_id, synthetic),
            body: w(body, next_id, synthetic),
        },
        other => other,
    };
    SpannedExpr { id, node, span }
}

/// The tree as cel-go builds it, where cel-core builds it otherwise (before checking; the tree is no deeper than
/// [`MAX_AST_DEPTH`]):
/// - cel-go expands `all` and `exists` to loop steps that read the accumulator first (`__result__ && cond`,
///   `__result__ || cond`); cel-core writes the predicate first. Swapped, so that the accumulator is charged on every
///   iteration, its error (the first failing element's) is the one kept when both fail, and a predicate that is not a
///   bool is reported as cel-go reports it (`'_&&_' applied to '(bool, int)'`).
/// - with `request_resource`, `authorizer.requestResource`, its own variable: cel-core resolves `authorizer` first and
///   then rejects the field, so the selection becomes the qualified identifier.
fn rewrite_as_cel_go(e: &mut SpannedExpr, request_resource: bool) {
    if let Expr::Member {
        expr,
        field,
        optional: false,
    } = &e.node
        && request_resource
        && field == "requestResource"
        && matches!(&expr.node, Expr::Ident(n) if n == "authorizer")
    {
        e.node = Expr::Ident("authorizer.requestResource".to_string());
        return;
    }
    if let Expr::Comprehension(c) = &mut e.node
        && let Expr::Binary {
            op: cel_core::BinaryOp::And | cel_core::BinaryOp::Or,
            left,
            right,
        } = &mut c.loop_step.node
        && matches!(&right.node, Expr::Ident(n) if *n == c.accu_var)
    {
        std::mem::swap(left, right);
    }
    match &mut e.node {
        Expr::List(items) => items
            .iter_mut()
            .for_each(|i| rewrite_as_cel_go(&mut i.expr, request_resource)),
        Expr::Map(entries) => entries.iter_mut().for_each(|m| {
            rewrite_as_cel_go(&mut m.key, request_resource);
            rewrite_as_cel_go(&mut m.value, request_resource);
        }),
        Expr::Unary { expr, .. }
        | Expr::Member { expr, .. }
        | Expr::MemberTestOnly { expr, .. } => rewrite_as_cel_go(expr, request_resource),
        Expr::Binary { left, right, .. } => {
            rewrite_as_cel_go(left, request_resource);
            rewrite_as_cel_go(right, request_resource);
        }
        Expr::Ternary {
            cond,
            then_expr,
            else_expr,
        } => {
            rewrite_as_cel_go(cond, request_resource);
            rewrite_as_cel_go(then_expr, request_resource);
            rewrite_as_cel_go(else_expr, request_resource);
        }
        Expr::Index { expr, index, .. } => {
            rewrite_as_cel_go(expr, request_resource);
            rewrite_as_cel_go(index, request_resource);
        }
        Expr::Call { expr, args } => {
            rewrite_as_cel_go(expr, request_resource);
            args.iter_mut()
                .for_each(|a| rewrite_as_cel_go(a, request_resource));
        }
        Expr::Comprehension(c) => {
            rewrite_as_cel_go(&mut c.iter_range, request_resource);
            rewrite_as_cel_go(&mut c.accu_init, request_resource);
            rewrite_as_cel_go(&mut c.loop_condition, request_resource);
            rewrite_as_cel_go(&mut c.loop_step, request_resource);
            rewrite_as_cel_go(&mut c.result, request_resource);
        }
        Expr::Bind { init, body, .. } => {
            rewrite_as_cel_go(init, request_resource);
            rewrite_as_cel_go(body, request_resource);
        }
        _ => {}
    }
}

/// cel-core names the macro accumulator `__result__`, which a user could also type and use to
/// build unboundedly nested values; only macro-generated references (whose span is the whole
/// macro call) are allowed.
fn user_written_accumulator(root: &SpannedExpr, source: &str) -> Option<usize> {
    let mut stack = vec![root];
    while let Some(e) = stack.pop() {
        if let Expr::Ident(n) = &e.node
            && n == "__result__"
            && source.get(e.span.clone()) == Some("__result__")
        {
            return Some(e.span.start);
        }
        stack.extend(children(e));
    }
    None
}

/// cel-go's parser without optional syntax: `.?`, `[?`, and `?` on list elements, map keys and
/// struct fields are `unsupported syntax …` errors, reported at the operator.
fn optional_syntax(root: &SpannedExpr, source: &str) -> Vec<(usize, &'static str)> {
    // the `?` written before `start` (list elements, map keys), skipping blanks
    let question_before = |start: usize| -> usize {
        let before = source.get(..start).unwrap_or("");
        before.rfind('?').unwrap_or(start)
    };
    // the first `pat` at or after `from` (the operand's end)
    let after = |from: usize, pat: &str| -> usize {
        source
            .get(from..)
            .and_then(|rest| rest.find(pat))
            .map(|i| from + i)
            .unwrap_or(from)
    };
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(e) = stack.pop() {
        match &e.node {
            Expr::Member {
                expr,
                optional: true,
                ..
            } => out.push((after(expr.span.end, "."), "unsupported syntax '.?'")),
            Expr::Index {
                expr,
                optional: true,
                ..
            } => out.push((after(expr.span.end, "["), "unsupported syntax '[?'")),
            Expr::List(items) => {
                for i in items.iter().filter(|i| i.optional) {
                    out.push((question_before(i.expr.span.start), "unsupported syntax '?'"));
                }
            }
            Expr::Map(entries) => {
                for m in entries.iter().filter(|m| m.optional) {
                    out.push((question_before(m.key.span.start), "unsupported syntax '?'"));
                }
            }
            Expr::Struct { fields, .. } => {
                for f in fields.iter().filter(|f| f.optional) {
                    let colon = source
                        .get(..f.value.span.start)
                        .and_then(|b| b.rfind(':'))
                        .unwrap_or(f.value.span.start);
                    out.push((question_before(colon), "unsupported syntax '?'"));
                }
            }
            _ => {}
        }
        stack.extend(children(e));
    }
    palisade_json::sort::sort_by_key(&mut out, |(offset, _)| *offset);
    out
}

/// `has(cr.<field>)` on approver-policy's proto3 message is true only when the field is set,
/// i.e. not `""` / `[]`; the evaluator reads `cr` from a map holding every field, so these
/// tests are marked for a presence check.
fn proto3_presence_tests(root: &SpannedExpr, types: &HashMap<i64, CelType>) -> IdSet {
    let mut out = IdSet::default();
    let mut stack = vec![root];
    while let Some(e) = stack.pop() {
        if let Expr::MemberTestOnly { expr, .. } = &e.node
            && types.get(&expr.id).and_then(|t| t.message_name())
                == Some(palisade_cel_eval::approver::T_CERTIFICATE_REQUEST)
        {
            out.insert(e.id);
        }
        stack.extend(children(e));
    }
    out
}

fn find_node(root: &SpannedExpr, id: i64) -> Option<&SpannedExpr> {
    let mut stack = vec![root];
    while let Some(x) = stack.pop() {
        if x.id == id {
            return Some(x);
        }
        stack.extend(children(x));
    }
    None
}

/// Where cel-go locates a checker issue. cel-core's spans start at the expression; cel-go's
/// parser gives a selection the position of its `.`, an index its `[`, a call (and the `has`
/// macro) its `(`, a binary operator the operator, a conditional its `?` and a message its `{`.
fn issue_offset(node: &SpannedExpr, e: &CheckError, source: &str) -> usize {
    go_location(node, source).unwrap_or(e.span.start)
}

/// cel-go's location of `node` (see [`issue_offset`]).
fn go_location(node: &SpannedExpr, source: &str) -> Option<usize> {
    let start = node.span.start;
    // the first character at or after `from` that is not blank or a closing parenthesis
    let operator_after = |from: usize| -> usize {
        source
            .get(from..)
            .and_then(|rest| rest.find(|c: char| !c.is_whitespace() && c != ')'))
            .map(|i| from + i)
            .unwrap_or(start)
    };
    Some(match &node.node {
        Expr::Member { expr, .. } => operator_after(expr.span.end),
        Expr::Index { expr, .. } => operator_after(expr.span.end),
        Expr::Call { expr, .. } => operator_after(expr.span.end),
        Expr::Binary { left, .. } => operator_after(left.span.end),
        Expr::Ternary { cond, .. } => operator_after(cond.span.end),
        // a message's `{`
        Expr::Struct { type_name, .. } => operator_after(type_name.span.end),
        // the `has(` macro call
        Expr::MemberTestOnly { .. } => source
            .get(start..)
            .and_then(|rest| rest.find('('))
            .map_or(start, |i| start + i),
        _ => return None,
    })
}

/// The issues of a compilation, each at its offset in `source`, printed as cel-go prints them: ordered by location.
fn issues_error(mut issues: Vec<(usize, String)>, source: &str) -> CompileError {
    palisade_json::sort::sort_by_key(&mut issues, |(offset, _)| *offset);
    let msgs: Vec<String> = issues
        .iter()
        .map(|(offset, m)| format_issue(source, *offset, m))
        .collect();
    CompileError::Invalid(msgs.join("\n"))
}

/// kube-apiserver's AST validators (`environment/base.go`: `cel.HomogeneousAggregateLiterals()` since its first
/// version, and since 1.29 `cel.ValidateDurationLiterals()`, `ValidateTimestampLiterals()`, `ValidateRegexLiterals()`
/// and `ValidateHomogeneousAggregateLiterals()`), which cel-go runs on an expression that checked without issues
/// (cel-go `cel/validator.go`):
/// - the elements of a list literal, and the keys and the values of a map literal, have one type:
///   `expected type 'string' but found 'dyn'` at the first element that differs (`['a', object.b]`), at every key or
///   value that differs in a map. Literals inside a `format` call are exempt: the strings extension's format validator
///   exempts them.
/// - a literal argument of `duration`, `timestamp` or `matches` (the first argument after the receiver) is valid:
///   `invalid duration argument` at the literal.
/// - a literal format string given a literal list (`'%d'.format([x])`) reads as a format string and each clause takes
///   its argument's type (`stringFormatValidator` of the strings extension below version 4,
///   [`palisade_cel_eval::functions::check_format`]): at the argument, or at the call for the string itself and the count.
///
/// Each where cel-go places it, in the order of the source.
fn kubernetes_validations(
    root: &SpannedExpr,
    types: &HashMap<i64, CelType>,
    source: &str,
) -> Vec<(usize, String)> {
    let at = |e: &SpannedExpr| go_location(e, source).unwrap_or(e.span.start);
    let mismatch = |want: &CelType, found: &CelType| {
        format!(
            "expected type '{}' but found '{}'",
            go_checker_type_name(want),
            go_checker_type_name(found)
        )
    };
    // an optional element or value (`[?x]`, `{k: ?v}`) is typed by what it holds
    let held = |t: &CelType, optional: bool| match t {
        CelType::Optional(inner) if optional => (**inner).clone(),
        t => t.clone(),
    };
    let mut out = Vec::new();
    // each node with whether a `format` call holds it
    let mut stack = vec![(root, false)];
    while let Some((e, mut in_format)) = stack.pop() {
        match &e.node {
            Expr::List(items) if !in_format => {
                let mut first: Option<CelType> = None;
                for item in items {
                    let t = held(
                        types.get(&item.expr.id).unwrap_or(&CelType::Dyn),
                        item.optional,
                    );
                    match &first {
                        None => first = Some(t),
                        Some(want) if *want != t => {
                            out.push((at(&item.expr), mismatch(want, &t)));
                            break;
                        }
                        Some(_) => {}
                    }
                }
            }
            Expr::Map(entries) if !in_format => {
                let mut first: Option<(CelType, CelType)> = None;
                for entry in entries {
                    let key = types.get(&entry.key.id).unwrap_or(&CelType::Dyn).clone();
                    let value = held(
                        types.get(&entry.value.id).unwrap_or(&CelType::Dyn),
                        entry.optional,
                    );
                    match &first {
                        None => first = Some((key, value)),
                        Some((want_key, want_value)) => {
                            if *want_key != key {
                                out.push((at(&entry.key), mismatch(want_key, &key)));
                            }
                            if *want_value != value {
                                out.push((at(&entry.value), mismatch(want_value, &value)));
                            }
                        }
                    }
                }
            }
            Expr::Call { expr: callee, args } => {
                let name = match &callee.node {
                    Expr::Member { field, .. } => field.as_str(),
                    Expr::Ident(n) => n.as_str(),
                    _ => "",
                };
                in_format |= name == "format";
                let invalid = match (name, args.first().map(|a| &a.node)) {
                    ("duration", Some(Expr::String(s))) => {
                        palisade_cel_eval::Duration::parse(s).is_err()
                    }
                    // kube-apiserver's cel-go (v0.27) declares `duration(int)` and fails every call of it
                    ("duration", Some(Expr::Int(_))) => true,
                    ("timestamp", Some(Expr::String(s))) => {
                        palisade_cel_eval::Timestamp::parse(s).is_err()
                    }
                    ("timestamp", Some(Expr::Int(n))) => {
                        palisade_cel_eval::Timestamp::from_secs(*n).is_err()
                    }
                    ("matches", Some(Expr::String(p))) => {
                        palisade_cel_kubernetes::regex::compile(p).is_err()
                    }
                    _ => false,
                };
                if let (true, Some(literal)) = (invalid, args.first()) {
                    out.push((at(literal), format!("invalid {name} argument")));
                }
                if let Some((node, message)) = format_call_issue(e, types, Rendering::Localized) {
                    out.push((at(node), message));
                }
            }
            _ => {}
        }
        stack.extend(children(e).into_iter().map(|c| (c, in_format)));
    }
    out
}

/// The issue of `e` if it is a call `'…'.format([…])` of a literal format string with a literal list whose clauses do
/// not read or do not take their arguments in `rendering`, with the node cel-go reports it at: the strings extension's
/// format validator ([`palisade_cel_eval::functions::check_format`]).
fn format_call_issue<'e>(
    e: &'e SpannedExpr,
    types: &HashMap<i64, CelType>,
    rendering: Rendering,
) -> Option<(&'e SpannedExpr, String)> {
    let Expr::Call { expr: callee, args } = &e.node else {
        return None;
    };
    let Expr::Member {
        expr: receiver,
        field,
        ..
    } = &callee.node
    else {
        return None;
    };
    let (Expr::String(fmt), [list]) = (&receiver.node, args.as_slice()) else {
        return None;
    };
    let Expr::List(items) = &list.node else {
        return None;
    };
    if field != "format" {
        return None;
    }
    let elements: Vec<&SpannedExpr> = items.iter().map(|i| &i.expr).collect();
    let (node, message) = palisade_cel_eval::functions::check_format(
        rendering,
        fmt,
        &elements,
        &|a| types.get(&a.id).and_then(runtime_type),
        &literal_elements,
    )?;
    Some((node.unwrap_or(e), message))
}

/// The strings extension's format validator as `ext.Strings()` runs it at its latest version
/// (`stringFormatValidatorV2`): every issue of the expression's `'…'.format([…])` calls, for the environments other than
/// kube-apiserver's (whose check is part of [`kubernetes_validations`]).
fn format_validations(
    root: &SpannedExpr,
    types: &HashMap<i64, CelType>,
    source: &str,
) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(e) = stack.pop() {
        if let Some((node, message)) = format_call_issue(e, types, Rendering::Spec) {
            out.push((
                go_location(node, source).unwrap_or(node.span.start),
                message,
            ));
        }
        stack.extend(children(e));
    }
    out
}

/// The runtime type a value of the checked type `t` has, as cel-go's format validator compares them (by kind: any
/// list is a list); `None` for `dyn`, which it lets through.
fn runtime_type(t: &CelType) -> Option<palisade_cel_eval::Type> {
    use palisade_cel_eval::Type as T;
    Some(match t {
        CelType::Bool => T::Bool,
        CelType::Int => T::Int,
        CelType::UInt => T::Uint,
        CelType::Double => T::Double,
        CelType::String => T::String,
        CelType::Bytes => T::Bytes,
        CelType::List(_) => T::List,
        CelType::Map(_, _) => T::Map,
        CelType::Timestamp => T::Timestamp,
        CelType::Duration => T::Duration,
        CelType::Null => T::Null,
        CelType::Type(_) => T::Type,
        CelType::Optional(_) => T::Optional,
        CelType::Wrapper(inner) => return runtime_type(inner),
        CelType::Message(name) | CelType::Enum(name) | CelType::Abstract { name, .. } => {
            T::Named(std::rc::Rc::from(&**name))
        }
        CelType::Dyn
        | CelType::TypeParam(_)
        | CelType::TypeVar(_)
        | CelType::Error
        | CelType::Function { .. } => {
            return None;
        }
    })
}

/// Pushes the elements of a list literal, or the keys and values of a map literal, last first (a stack's order).
fn literal_elements<'e>(e: &'e SpannedExpr, stack: &mut Vec<&'e SpannedExpr>) {
    match &e.node {
        Expr::List(items) => stack.extend(items.iter().rev().map(|i| &i.expr)),
        Expr::Map(entries) => stack.extend(entries.iter().rev().flat_map(|m| [&m.value, &m.key])),
        _ => {}
    }
}

/// cel-go's checker only ranges over lists, maps and `dyn`; cel-core also accepts any other type (`1.all(x, true)`,
/// approver-policy's `cr` message, which our evaluator would then iterate as the map it is bound to). Reported with
/// the checker's other issues, as cel-go reports it.
fn unrangeable(
    root: &SpannedExpr,
    types: &HashMap<i64, CelType>,
    source: &str,
) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(e) = stack.pop() {
        if let Expr::Comprehension(c) = &e.node
            && let Some(t) = types.get(&c.iter_range.id)
            && !matches!(t, CelType::List(_) | CelType::Map(_, _) | CelType::Error)
            && !is_dynish(t)
        {
            let at = go_location(&c.iter_range, source).unwrap_or(c.iter_range.span.start);
            out.push((
                at,
                format!(
                    "expression of type '{}' cannot be range of a comprehension (must be list, map, or dynamic)",
                    go_checker_type_name(t)
                ),
            ));
        }
        stack.extend(children(e));
    }
    out
}

/// The macros of a flavor's environment, built once: a bundle's expressions all share them.
pub(crate) fn macros(flavor: Flavor) -> &'static cel_core::parser::MacroRegistry {
    use std::sync::OnceLock;
    static ADMISSION: OnceLock<cel_core::parser::MacroRegistry> = OnceLock::new();
    static CERTIFICATE_REQUEST: OnceLock<cel_core::parser::MacroRegistry> = OnceLock::new();
    static CUSTOM: OnceLock<cel_core::parser::MacroRegistry> = OnceLock::new();
    let cell = match flavor {
        Flavor::Admission => &ADMISSION,
        Flavor::CertificateRequest => &CERTIFICATE_REQUEST,
        Flavor::Custom => &CUSTOM,
    };
    cell.get_or_init(|| {
        if flavor == Flavor::CertificateRequest {
            cel_go_default_macros()
        } else {
            kubernetes_macros(flavor)
        }
    })
}

/// The macros of kube-apiserver's environment (`environment/base.go`): cel-go's standard macros
/// (`cel.StandardMacros`, which `cel.NewEnv` gives: `exists_one` but not its one-variable `existsOne` spelling, which
/// only `parser.AllMacros` has), the optional library's `optMap`/`optFlatMap`, the two-variable comprehensions
/// (`ext.TwoVarComprehensions`, since Kubernetes 1.32: `all`, `exists`, `existsOne`, `exists_one`, `transformList`,
/// `transformMap`, `transformMapEntry`, with three or four arguments) and the lists extension's `sortBy` (`ext.Lists`
/// version 3, since Kubernetes 1.34). Not `cel.bind` (`ext.Bindings`), `cel.block` nor `proto.getExt`/`proto.hasExt`
/// (`ext.Protos`): kube-apiserver enables neither library, so there they are calls of undeclared functions. The
/// conformance suite's environment ([`Flavor::Custom`]) has them too, and the two-argument `existsOne`.
fn kubernetes_macros(flavor: Flavor) -> cel_core::parser::MacroRegistry {
    use cel_core::parser::{ArgCount, Macro, MacroRegistry, MacroStyle};
    let mut registry = MacroRegistry::new();
    for m in MacroRegistry::standard().iter() {
        let enabled = match m.name {
            // cel-go's expansion, below
            "transformMap" => false,
            "existsOne" => flavor == Flavor::Custom || m.arg_count != ArgCount::Exact(2),
            "cel.bind" | "cel.block" | "cel.index" | "cel.iterVar" | "cel.accuVar"
            | "proto.hasExt" | "proto.getExt" => flavor == Flavor::Custom,
            _ => true,
        };
        if enabled {
            registry.register(m.clone());
        }
    }
    for (name, expander) in [
        (
            "transformMap",
            expand_transform_map as cel_core::parser::MacroExpander,
        ),
        ("transformMapEntry", expand_transform_map_entry),
    ] {
        for n in [3, 4] {
            registry.register(Macro::new(
                name,
                MacroStyle::Receiver,
                ArgCount::Exact(n),
                expander,
            ));
        }
    }
    registry.register(Macro::new(
        "sortBy",
        MacroStyle::Receiver,
        ArgCount::Exact(2),
        expand_sort_by,
    ));
    registry
}

/// cel-go's `transformMap(k, v, [filter,] value)`: a two-variable comprehension from `{}` whose step is
/// `cel.@mapInsert(accu, k, value)`, behind the filter when there is one.
fn expand_transform_map(
    ctx: &mut cel_core::parser::MacroContext,
    span: cel_core::Span,
    receiver: Option<SpannedExpr>,
    args: Vec<SpannedExpr>,
) -> cel_core::parser::MacroExpansion {
    transform_map(ctx, span, receiver, args, false)
}

/// cel-go's `transformMapEntry(k, v, [filter,] entries)`: as `transformMap`, the step `cel.@mapInsert(accu, entries)`.
fn expand_transform_map_entry(
    ctx: &mut cel_core::parser::MacroContext,
    span: cel_core::Span,
    receiver: Option<SpannedExpr>,
    args: Vec<SpannedExpr>,
) -> cel_core::parser::MacroExpansion {
    transform_map(ctx, span, receiver, args, true)
}

fn transform_map(
    ctx: &mut cel_core::parser::MacroContext,
    span: cel_core::Span,
    receiver: Option<SpannedExpr>,
    mut args: Vec<SpannedExpr>,
    entries: bool,
) -> cel_core::parser::MacroExpansion {
    use cel_core::parser::MacroExpansion;
    let node = |ctx: &mut cel_core::parser::MacroContext, node| macro_node(ctx, node, &span);
    let accu = || Expr::Ident(owned(ACCU_VAR));
    let (Some(range), [first, second, ..]) = (receiver, args.as_slice()) else {
        // a receiver macro of three or four arguments always has these: unreachable
        return MacroExpansion::Error(String::new());
    };
    let Some((iter_var, iter_var2)) = cel_core::parser::extract_iter_vars(ctx, first, second)
    else {
        return MacroExpansion::Error(String::new());
    };
    let (Some(value), filter) = (args.pop(), (args.len() == 3).then(|| args.pop()).flatten())
    else {
        return MacroExpansion::Error(String::new());
    };
    let mut insert_args = vec![node(ctx, accu())];
    if !entries {
        insert_args.push(node(ctx, Expr::Ident(iter_var.clone())));
    }
    insert_args.push(value);
    let callee = node(ctx, Expr::Ident(owned(MAP_INSERT)));
    let mut step = node(
        ctx,
        Expr::Call {
            expr: Box::new(callee),
            args: insert_args,
        },
    );
    if let Some(filter) = filter {
        let unchanged = node(ctx, accu());
        step = node(
            ctx,
            Expr::Ternary {
                cond: Box::new(filter),
                then_expr: Box::new(step),
                else_expr: Box::new(unchanged),
            },
        );
    }
    let comprehension = cel_core::ComprehensionData {
        iter_var,
        iter_var2,
        iter_range: Box::new(range),
        accu_var: owned(ACCU_VAR),
        accu_init: Box::new(node(ctx, Expr::Map(Vec::new()))),
        loop_condition: Box::new(node(ctx, Expr::Bool(true))),
        loop_step: Box::new(step),
        result: Box::new(node(ctx, accu())),
    };
    MacroExpansion::Expanded(node(ctx, Expr::Comprehension(comprehension)))
}

/// The accumulator cel-core's macros name (cel-go's legacy `__result__`).
const ACCU_VAR: &str = "__result__";

/// The name `sortBy` binds its receiver to: no user can write it (`@` is not an identifier character).
const SORT_BY_INPUT: &str = "@__sortBy_input__";

/// cel-go's `sortByMacro`: `list.sortBy(e, key)` is
/// `cel.bind(@__sortBy_input__, list, @__sortBy_input__.@sortByAssociatedKeys(@__sortBy_input__.map(e, key)))`,
/// so the list is evaluated once and each key once.
fn expand_sort_by(
    ctx: &mut cel_core::parser::MacroContext,
    span: cel_core::Span,
    receiver: Option<SpannedExpr>,
    args: Vec<SpannedExpr>,
) -> cel_core::parser::MacroExpansion {
    use cel_core::parser::MacroExpansion;
    let node = |ctx: &mut cel_core::parser::MacroContext, node| macro_node(ctx, node, &span);
    let input = || Expr::Ident(owned(SORT_BY_INPUT));
    let standard = cel_core::parser::MacroRegistry::standard();
    let map = standard.lookup("map", 2, true);
    let (Some(target), Some(map)) = (receiver, map) else {
        // a receiver macro always has one, and `map` is a standard macro: unreachable
        return MacroExpansion::Error(String::new());
    };
    if !matches!(
        target.node,
        Expr::List(_)
            | Expr::Ident(_)
            | Expr::Member { .. }
            | Expr::MemberTestOnly { .. }
            | Expr::Index { .. }
            | Expr::Call { .. }
            | Expr::Unary { .. }
            | Expr::Binary { .. }
            | Expr::Ternary { .. }
            | Expr::Comprehension(_)
            | Expr::Bind { .. }
    ) {
        // a literal, a map or a message; reported where the receiver is, as cel-go reports it
        ctx.add_error(
            owned(
                "sortBy can only be applied to a list, identifier, comprehension, call or select expression",
            ),
            target.span.clone(),
        );
        return MacroExpansion::Expanded(node(ctx, Expr::Error));
    }
    let map_input = node(ctx, input());
    let keys = match (map.expander)(ctx, span.clone(), Some(map_input), args) {
        MacroExpansion::Expanded(keys) => keys,
        error @ MacroExpansion::Error(_) => return error,
    };
    let receiver = node(ctx, input());
    let method = Expr::Member {
        expr: Box::new(receiver),
        field: owned("@sortByAssociatedKeys"),
        optional: false,
    };
    let method = node(ctx, method);
    let call = Expr::Call {
        expr: Box::new(method),
        args: vec![keys],
    };
    let call = node(ctx, call);
    MacroExpansion::Expanded(node(
        ctx,
        Expr::Bind {
            var_name: owned(SORT_BY_INPUT),
            init: Box::new(target),
            body: Box::new(call),
        },
    ))
}

/// `s.to_owned()`, one copy of the code for every string a macro writes.
#[inline(never)]
fn owned(s: &str) -> String {
    s.to_owned()
}

/// A node a macro writes, with a new id and the macro call's span (one copy of the code for every node).
#[inline(never)]
fn macro_node(
    ctx: &mut cel_core::parser::MacroContext,
    node: Expr,
    span: &cel_core::Span,
) -> SpannedExpr {
    SpannedExpr {
        id: ctx.next_id(),
        node,
        span: span.clone(),
    }
}

/// cel-go's `cel.StandardMacros`, the only macros approver-policy's environment has (`cel.NewEnv` gives them):
/// `has`, `all`, `exists`, `exists_one`, `map` (2 and 3 arguments) and `filter`, all in their one-variable form.
/// Not `existsOne`, which only cel-go's `parser.AllMacros` has. cel-core's default set also expands `cel.bind`,
/// two-variable comprehensions, `transformList`/`transformMap`, `optMap`/`optFlatMap` and `cel.block`, which cel-go
/// leaves as (undeclared) calls without the matching extensions.
fn cel_go_default_macros() -> cel_core::parser::MacroRegistry {
    use cel_core::parser::{ArgCount, MacroRegistry, MacroStyle};
    let mut registry = MacroRegistry::new();
    for m in MacroRegistry::standard().iter() {
        let keep = matches!(
            (m.name, m.style, m.arg_count),
            ("has", MacroStyle::Global, ArgCount::Exact(1))
                | (
                    "all" | "exists" | "exists_one" | "filter",
                    MacroStyle::Receiver,
                    ArgCount::Exact(2),
                )
                | (
                    "map",
                    MacroStyle::Receiver,
                    ArgCount::Exact(2) | ArgCount::Exact(3)
                )
        );
        if keep {
            registry.register(m.clone());
        }
    }
    registry
}
