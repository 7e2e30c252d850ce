//! cel-go's own parser and checker test tables, as npm `@bufbuild/cel-spec` 0.6.1 ships them
//! (`testdata/parsing.js`, `checking.js`, `comprehension.js`). bufbuild/cel-es generates them
//! (`scripts/gen_incremental_tests.go`; the TypeScript sources say "Generated from cel-go
//! github.com/google/cel-go@v0.26.1/…", a header the compiled JavaScript drops) from the
//! expressions of cel-go v0.26.1's `parser/parser_test.go` (`testCases`, `TestParse`),
//! `checker/checker_test.go` (`testCases()`, `TestCheck`, with each case's idents, functions
//! and container) and `ext/comprehensions_test.go` (`TestTwoVarComprehensions…`). Each case
//! holds cel-go's answer: the checked type (`type`, `cel.FormatCELType`) or the error text.
//!
//! How the generator answers, and what this test does about it:
//! - it parses with its own `parser.NewParser(Macros(AllMacros...), MaxRecursionDepth(32),
//!   ErrorRecoveryLimit(4), ErrorRecoveryLookaheadTokenLimit(4))`, without optional syntax nor
//!   escaped identifiers, and a source named by the (empty) test name: its parse errors read
//!   `ERROR: :1:2: …`. kube-apiserver names the source `<input>`, so the expected text is
//!   compared with `ERROR: <input>:` there. Cases cel-go rejects only because of that parser's
//!   settings (optional syntax off, recursion limit 32, error-recovery limit 4) are skipped:
//!   kube-apiserver's parser has optional syntax on and cel-go's default limits.
//! - it checks with `cel.NewCustomEnv(StdLib, OptionalTypes, ext.Bindings, Encoders, Math,
//!   Protos, Strings, cel.block, …)` plus cel-go's default macros, the variables `is`, `ii`,
//!   `iu`, `iz`, `ib`, `id`, `ix` (declared here too) and the functions `fg_s`, `fi_s_s`
//!   (Palisade cannot declare functions: those cases are skipped), then the case's `typeEnv`
//!   and `container`. It has no `ext.TwoVarComprehensions`, which kube-apiserver and
//!   [`Env::standard`] have: a case whose error is a three-argument `all`, `exists`,
//!   `existsOne`, `exists_one` or `transform…` call left undeclared is skipped. Nor does it
//!   enable `cel.CrossTypeNumericComparisons(true)`, which kube-apiserver (since 1.28) and
//!   Palisade do: a case whose only issues are `1 < 1.0`-style overload errors is skipped.
//! - cases needing protobuf messages (TestAllTypes, `google.protobuf.*`, wrappers, enums) are
//!   skipped, as in `conformance.rs`.
//!
//! - [`Env::standard`] reads escaped identifiers (`` a.`b-c` ``), which the cel-spec conformance suite uses, as
//!   cel-go's parser does by default from v0.28 (and approver-policy's environment here); v0.26.1's default parser,
//!   like kube-apiserver's environment here, refuses them with `unsupported syntax: '`'`: those cases are counted
//!   as mismatches of their own category.
//!
//! A case passes when `Env::compile(expr, Expect::Any)` fails with exactly cel-go's text, or
//! succeeds with the result type cel-go prints. The ids of the passing cases are kept in
//! `cel_go_tables.pass` (it may only grow); `BLESS=1 cargo test -p palisade-cel --test
//! cel_go_tables` rewrites it and `CEL-GO-TABLES.md`, the report of the mismatches by category.

#![allow(
    clippy::panic,
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "test harness: missing or unreadable fixtures must abort the test"
)]

mod common;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use palisade_cel::{CelType, Env, Expect};
use serde_json::Value as Json;

/// The tables, in report order.
const FILES: [&str; 3] = ["parsing", "checking", "comprehension"];

/// Every case of a suite, depth first (the tables are flat today).
fn flatten<'a>(suite: &'a Json, out: &mut Vec<&'a Json>) {
    for t in suite
        .get("tests")
        .and_then(Json::as_array)
        .into_iter()
        .flatten()
    {
        out.push(t);
    }
    for s in suite
        .get("suites")
        .and_then(Json::as_array)
        .into_iter()
        .flatten()
    {
        flatten(s, out);
    }
}

/// The case needs protobuf messages (Kubernetes objects never do).
fn needs_proto(case: &Json) -> bool {
    let orig = case.get("original").cloned().unwrap_or(Json::Null);
    let mut text = orig.to_string();
    if let Some(t) = case.get("type").and_then(Json::as_str) {
        text.push_str(t);
    }
    [
        "TestAllTypes",
        "google.protobuf",
        "google.expr.proto",
        "messageType",
        "enumType",
        "NestedEnum",
        "GlobalEnum",
    ]
    .iter()
    .any(|p| text.contains(p))
}

/// A declared type from the proto-JSON `cel.expr.Type`; `Err` says why it cannot be declared.
fn decl_type(t: &Json) -> Result<CelType, &'static str> {
    if let Some(p) = t.get("primitive").and_then(Json::as_str) {
        return Ok(match p {
            "BOOL" => CelType::Bool,
            "INT64" => CelType::Int,
            "UINT64" => CelType::UInt,
            "DOUBLE" => CelType::Double,
            "STRING" => CelType::String,
            "BYTES" => CelType::Bytes,
            _ => return Err("unknown primitive type"),
        });
    }
    if let Some(l) = t.get("listType") {
        return Ok(CelType::list(decl_type(
            l.get("elemType").ok_or("list without elemType")?,
        )?));
    }
    if let Some(m) = t.get("mapType") {
        return Ok(CelType::map(
            decl_type(m.get("keyType").ok_or("map without keyType")?)?,
            decl_type(m.get("valueType").ok_or("map without valueType")?)?,
        ));
    }
    if t.get("null").is_some() {
        return Ok(CelType::Null);
    }
    if t.get("dyn").is_some() {
        return Ok(CelType::Dyn);
    }
    if let Some(p) = t.get("typeParam").and_then(Json::as_str) {
        return Ok(CelType::type_param(p));
    }
    if let Some(w) = t.get("wellKnown").and_then(Json::as_str) {
        return match w {
            "TIMESTAMP" => Ok(CelType::Timestamp),
            "DURATION" => Ok(CelType::Duration),
            _ => Err("protobuf messages"),
        };
    }
    if t.get("wrapper").is_some() {
        return Err("protobuf messages");
    }
    if let Some(a) = t.get("abstractType") {
        let params = a
            .get("parameterTypes")
            .and_then(Json::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        return match (a.get("name").and_then(Json::as_str), params) {
            (Some("optional_type"), [p]) => Ok(CelType::optional(decl_type(p)?)),
            _ => Err("abstract type declaration"),
        };
    }
    Err("unsupported type declaration")
}

/// The case's environment: [`Env::standard`], the generator's variables, the case's declarations.
fn case_env(orig: &Json) -> Result<Env, &'static str> {
    let expr = orig.get("expr").and_then(Json::as_str).unwrap_or("");
    if expr.contains("fg_s") || expr.contains("fi_s_s") {
        return Err("function declarations (the generator's fg_s / fi_s_s)");
    }
    let mut env = Env::standard()
        .with_variable("is", CelType::String)
        .with_variable("ii", CelType::Int)
        .with_variable("iu", CelType::UInt)
        .with_variable("iz", CelType::Bool)
        .with_variable("ib", CelType::Bytes)
        .with_variable("id", CelType::Double)
        .with_variable("ix", CelType::Null);
    if let Some(c) = orig.get("container").and_then(Json::as_str) {
        env = env.with_container(c);
    }
    for decl in orig
        .get("typeEnv")
        .and_then(Json::as_array)
        .into_iter()
        .flatten()
    {
        let name = decl.get("name").and_then(Json::as_str).unwrap_or("");
        if decl.get("function").is_some() {
            return Err("function declarations");
        }
        let ty = decl
            .get("ident")
            .and_then(|i| i.get("type"))
            .ok_or("unsupported declaration")?;
        env = match decl_type(ty)? {
            CelType::Dyn => env.with_dyn_variable(name),
            t => env.with_variable(name, t),
        };
    }
    Ok(env)
}

/// One issue of an error text: `ERROR: <input>:line:col: message` and its snippet lines.
#[derive(Debug)]
struct Issue {
    line: i64,
    col: i64,
    message: String,
}

fn issues(text: &str) -> Vec<Issue> {
    let mut out = Vec::new();
    for l in text.lines() {
        let Some(rest) = l
            .strip_prefix("ERROR: <input>:")
            .or_else(|| l.strip_prefix("ERROR: :"))
        else {
            continue;
        };
        let mut parts = rest.splitn(3, ':');
        let line = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
        let col = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
        let message = parts.next().unwrap_or("").trim_start().to_string();
        out.push(Issue { line, col, message });
    }
    out
}

/// The generator's parse errors name the source `""`; kube-apiserver's name it `<input>`.
fn as_kube_prints(expected: &str) -> String {
    expected
        .split('\n')
        .map(|l| match l.strip_prefix("ERROR: :") {
            Some(rest) => format!("ERROR: <input>:{rest}"),
            None => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The number of arguments of the call whose `(` is at `line:col` (1-based, in code points).
fn call_args_at(source: &str, line: i64, col: i64) -> usize {
    let Some(text) = source.split('\n').nth((line - 1).max(0) as usize) else {
        return 0;
    };
    let start: usize = text
        .chars()
        .take((col - 1).max(0) as usize)
        .map(char::len_utf8)
        .sum();
    let line_start: usize = source
        .split('\n')
        .take((line - 1).max(0) as usize)
        .map(|l| l.len() + 1)
        .sum();
    let rest = &source[(line_start + start).min(source.len())..];
    if !rest.starts_with('(') {
        return 0;
    }
    let (mut depth, mut commas, mut quote, mut escaped) = (0usize, 0usize, None, false);
    for c in rest.chars() {
        if let Some(q) = quote {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                _ if c == q => quote = None,
                _ => {}
            }
            continue;
        }
        match c {
            '\'' | '"' => quote = Some(c),
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => {
                depth -= 1;
                if depth == 0 {
                    return commas + 1;
                }
            }
            ',' if depth == 1 => commas += 1,
            _ => {}
        }
    }
    commas + 1
}

/// Why cel-go's answer is not kube-apiserver's (the generator's environment differs), if so.
fn generator_artefact(expr: &str, expected: &str) -> Option<&'static str> {
    let found = issues(expected);
    if found.iter().any(|i| {
        matches!(
            i.message.as_str(),
            "unsupported syntax '?'" | "unsupported syntax '.?'" | "unsupported syntax '[?'"
        )
    }) {
        return Some("generator's parser: optional syntax off");
    }
    if found.iter().any(|i| {
        i.message.starts_with("expression recursion limit exceeded")
            || i.message == "max recursion depth exceeded"
            || i.message.contains("limit exceeded: 4")
    }) {
        return Some("generator's parser: recursion limit 32 / error recovery limit 4");
    }
    // kube-apiserver enables `cel.CrossTypeNumericComparisons(true)` (since 1.28), as Palisade does
    let cross_type = |m: &str| {
        let Some(rest) = m.strip_prefix("found no matching overload for '") else {
            return false;
        };
        let Some((op, args)) = rest.split_once("' applied to '(") else {
            return false;
        };
        let args = args.trim_end_matches(")'");
        let numeric = |t: &str| matches!(t, "int" | "uint" | "double");
        matches!(op, "_<_" | "_<=_" | "_>_" | "_>=_")
            && args
                .split_once(", ")
                .is_some_and(|(a, b)| a != b && numeric(a) && numeric(b))
    };
    if !found.is_empty() && found.iter().all(|i| cross_type(&i.message)) {
        return Some("generator's env: no cross-type numeric comparisons");
    }
    const TWO_VAR: [&str; 7] = [
        "all",
        "exists",
        "existsOne",
        "exists_one",
        "transformList",
        "transformMap",
        "transformMapEntry",
    ];
    if found.iter().any(|i| {
        TWO_VAR.iter().any(|n| {
            i.message == format!("undeclared reference to '{n}' (in container '')")
                && call_args_at(expr, i.line, i.col) >= 3
        })
    }) {
        return Some("generator's env: no ext.TwoVarComprehensions");
    }
    None
}

/// cel-go's `cel.FormatCELType` (checker/format.go).
fn format_cel_type(t: &CelType) -> String {
    let join = |ps: &[CelType]| {
        ps.iter()
            .map(format_cel_type)
            .collect::<Vec<_>>()
            .join(", ")
    };
    match t {
        CelType::Bool => "bool".into(),
        CelType::Int => "int".into(),
        CelType::UInt => "uint".into(),
        CelType::Double => "double".into(),
        CelType::String => "string".into(),
        CelType::Bytes => "bytes".into(),
        CelType::Null => "null".into(),
        CelType::Dyn => "dyn".into(),
        CelType::Timestamp => "timestamp".into(),
        CelType::Duration => "duration".into(),
        CelType::Error => "!error!".into(),
        CelType::List(e) => format!("list({})", format_cel_type(e)),
        CelType::Map(k, v) => format!("map({}, {})", format_cel_type(k), format_cel_type(v)),
        CelType::Type(i) => format!("type({})", format_cel_type(i)),
        CelType::Optional(i) => format!("optional_type({})", format_cel_type(i)),
        CelType::Wrapper(i) => format!("wrapper({})", format_cel_type(i)),
        CelType::Message(n) | CelType::Enum(n) | CelType::TypeParam(n) => n.to_string(),
        CelType::Abstract { name, params } if params.is_empty() => name.to_string(),
        CelType::Abstract { name, params } => format!("{name}({})", join(params)),
        CelType::TypeVar(n) => format!("_var{n}"),
        other => format!("{other:?}"),
    }
}

/// Mismatch categories (report order: what the engineer fixes next first).
const CATEGORIES: [&str; 13] = [
    "accepted but should fail",
    "result type",
    "checker issue count",
    "checker wording",
    "checker positions",
    "snippet formatting",
    "failed but should pass",
    "parse error where cel-go checks",
    "parser: reserved identifier wording",
    "parser: escaped identifiers (backticks)",
    "parser: macro errors",
    "parser: literal errors",
    "syntax-error wording",
];

/// The category of a parse-stage error (cel-go's parser rejected the expression).
fn parser_category(expr: &str, want: &[Issue]) -> &'static str {
    let any = |p: &dyn Fn(&str) -> bool| want.iter().any(|i| p(&i.message));
    if expr.contains('`') {
        "parser: escaped identifiers (backticks)"
    } else if any(&|m| m.starts_with("reserved identifier")) {
        "parser: reserved identifier wording"
    } else if any(&|m| m.starts_with("Syntax error:")) {
        "syntax-error wording"
    } else if any(&|m| m.starts_with("invalid ") && !m.starts_with("invalid argument")) {
        "parser: literal errors"
    } else {
        "parser: macro errors"
    }
}

enum Outcome {
    Pass,
    Fail {
        category: &'static str,
        want: String,
        got: String,
    },
    Skipped(&'static str),
}

/// The first issue line where the two texts differ (`(none)` where one has fewer issues).
fn first_difference(want: &str, got: &str) -> (String, String) {
    let lines = |t: &str| -> Vec<String> {
        let errs: Vec<String> = t
            .lines()
            .filter(|l| l.starts_with("ERROR: "))
            .map(str::to_string)
            .collect();
        if errs.is_empty() {
            vec![t.lines().next().unwrap_or("").to_string()]
        } else {
            errs
        }
    };
    let (w, g) = (lines(want), lines(got));
    for i in 0..w.len().max(g.len()) {
        let (a, b) = (w.get(i), g.get(i));
        if a != b {
            let none = || "(none)".to_string();
            return (
                a.cloned().unwrap_or_else(none),
                b.cloned().unwrap_or_else(none),
            );
        }
    }
    // same issue lines: the snippets differ
    (want.to_string(), got.to_string())
}

fn run_case(case: &Json) -> Outcome {
    let orig = case.get("original").cloned().unwrap_or(Json::Null);
    let expr = orig.get("expr").and_then(Json::as_str).unwrap_or("");
    if needs_proto(case) {
        return Outcome::Skipped("protobuf messages");
    }
    let expected_error = case.get("error").and_then(Json::as_str);
    if let Some(why) = expected_error.and_then(|e| generator_artefact(expr, e)) {
        return Outcome::Skipped(why);
    }
    let env = match case_env(&orig) {
        Ok(env) => env,
        Err(why) => return Outcome::Skipped(why),
    };
    let got = env.compile(expr, Expect::Any);
    // cel-go's parser rejected it (its parse errors name the source "")
    let parse_stage = expected_error.is_some_and(|e| e.starts_with("ERROR: :"));
    match (expected_error, got) {
        (Some(want), Err(e)) => {
            let got = e.to_string();
            let want = as_kube_prints(want);
            if got == want {
                return Outcome::Pass;
            }
            let (wi, gi) = (issues(&want), issues(&got));
            let got_syntax = gi.iter().any(|i| i.message.starts_with("Syntax error:"));
            let headers = |t: &str| -> Vec<String> {
                t.lines()
                    .filter(|l| l.starts_with("ERROR: "))
                    .map(str::to_string)
                    .collect()
            };
            let category = if headers(&want) == headers(&got) {
                // same issues, placed alike: cel-go prints a tab as a space and marks a
                // multi-byte character with a wide `．` / `＾`
                "snippet formatting"
            } else if parse_stage {
                parser_category(expr, &wi)
            } else if got_syntax {
                "parse error where cel-go checks"
            } else if wi.len() != gi.len() {
                "checker issue count"
            } else if wi.iter().zip(&gi).all(|(w, g)| w.message == g.message) {
                "checker positions"
            } else {
                "checker wording"
            };
            Outcome::Fail {
                category,
                want,
                got,
            }
        }
        (Some(want), Ok(p)) => {
            let want = as_kube_prints(want);
            Outcome::Fail {
                category: if parse_stage {
                    match parser_category(expr, &issues(&want)) {
                        c @ "parser: escaped identifiers (backticks)" => c,
                        _ => "accepted but should fail",
                    }
                } else {
                    "accepted but should fail"
                },
                want,
                got: format!("ok: {}", format_cel_type(p.result_type())),
            }
        }
        (None, Err(e)) => Outcome::Fail {
            category: "failed but should pass",
            want: case
                .get("type")
                .and_then(Json::as_str)
                .unwrap_or("?")
                .to_string(),
            got: e.to_string(),
        },
        (None, Ok(p)) => {
            let got = format_cel_type(p.result_type());
            match case.get("type").and_then(Json::as_str) {
                Some(want) if want == got => Outcome::Pass,
                Some(want) => Outcome::Fail {
                    category: "result type",
                    want: want.to_string(),
                    got,
                },
                None => Outcome::Skipped("no expectation"),
            }
        }
    }
}

/// `file/index: expression` (whitespace collapsed, at most 80 characters).
fn case_id(file: &str, index: usize, case: &Json) -> String {
    let expr = case
        .get("original")
        .and_then(|o| o.get("expr"))
        .and_then(Json::as_str)
        .unwrap_or("");
    let name: String = expr.split_whitespace().collect::<Vec<_>>().join(" ");
    let short: String = name.chars().take(80).collect();
    format!("{file}/{index:03}: {short}")
}

#[derive(Default)]
struct Totals {
    passed: usize,
    compared: usize,
    skipped: BTreeMap<&'static str, usize>,
    categories: BTreeMap<&'static str, usize>,
}

struct Failure {
    id: String,
    expr: String,
    category: &'static str,
    want: String,
    got: String,
}

#[test]
fn cel_go_parser_and_checker_tables() {
    let tables = common::load_testdata(&FILES);
    let mut results: BTreeMap<String, bool> = BTreeMap::new();
    let mut totals: BTreeMap<&str, Totals> = BTreeMap::new();
    let mut failures: Vec<Failure> = Vec::new();
    let mut panics: Vec<String> = Vec::new();
    for file in FILES {
        let mut cases = Vec::new();
        flatten(&tables[file], &mut cases);
        let t = totals.entry(file).or_default();
        for (index, case) in cases.into_iter().enumerate() {
            let id = case_id(file, index, case);
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run_case(case)))
                .unwrap_or_else(|_| {
                    panics.push(id.clone());
                    Outcome::Fail {
                        category: "failed but should pass",
                        want: String::new(),
                        got: "PANIC".into(),
                    }
                });
            match outcome {
                Outcome::Skipped(why) => *t.skipped.entry(why).or_default() += 1,
                Outcome::Pass => {
                    t.passed += 1;
                    t.compared += 1;
                    results.insert(id, true);
                }
                Outcome::Fail {
                    category,
                    want,
                    got,
                } => {
                    t.compared += 1;
                    *t.categories.entry(category).or_default() += 1;
                    failures.push(Failure {
                        id: id.clone(),
                        expr: case["original"]["expr"].as_str().unwrap_or("").to_string(),
                        category,
                        want,
                        got,
                    });
                    results.insert(id, false);
                }
            }
        }
    }

    let passed: usize = totals.values().map(|t| t.passed).sum();
    let compared: usize = totals.values().map(|t| t.compared).sum();
    let skipped: usize = totals
        .values()
        .map(|t| t.skipped.values().sum::<usize>())
        .sum();
    println!(
        "cel-go parser/checker tables: {passed}/{compared} exactly as cel-go ({skipped} skipped)"
    );
    for f in FILES {
        let t = &totals[f];
        println!(
            "  {f:<14} {:>4}/{:<4} skipped {}",
            t.passed,
            t.compared,
            t.skipped.values().sum::<usize>()
        );
    }
    if std::env::var("VERBOSE").is_ok() {
        for f in &failures {
            println!(
                "FAIL [{}] {}\n  want: {}\n  got:  {}",
                f.category,
                f.id,
                f.want.replace('\n', "\n        "),
                f.got.replace('\n', "\n        ")
            );
        }
    }
    assert!(panics.is_empty(), "compilation panicked: {panics:#?}");

    let blessed = common::keep_passing(
        "tests/cel_go_tables.pass",
        "cel-go parser/checker table cases (file/index: expression) Palisade answers exactly as cel-go",
        &results,
        |id| match failures.iter().find(|f| f.id == id) {
            Some(f) => format!(
                "  {id} [{}]\n    want: {}\n    got:  {}",
                f.category,
                f.want.replace('\n', "\n          "),
                f.got.replace('\n', "\n          ")
            ),
            None => format!("  {id}: no longer compared (skipped or gone from the tables)"),
        },
    );
    if blessed {
        std::fs::write(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("CEL-GO-TABLES.md"),
            report(&totals, &failures, passed, compared, skipped),
        )
        .expect("write CEL-GO-TABLES.md");
    }
}

fn report(
    totals: &BTreeMap<&str, Totals>,
    failures: &[Failure],
    passed: usize,
    compared: usize,
    skipped: usize,
) -> String {
    let pct = |p: usize, n: usize| 100.0 * p as f64 / n.max(1) as f64;
    let code = |s: &str| {
        let s = s.replace('\n', "⏎");
        if s.contains('`') {
            format!("`` {s} ``")
        } else {
            format!("`{s}`")
        }
    };
    let mut s = String::new();
    s.push_str("# cel-go parser and checker tables\n\n");
    s.push_str(
        "Generated by `BLESS=1 cargo test -p palisade-cel --test cel_go_tables` from npm\n\
         `@bufbuild/cel-spec` 0.6.1: cel-go v0.26.1's `parser/parser_test.go` (parsing),\n\
         `checker/checker_test.go` (checking) and `ext/comprehensions_test.go` (comprehension),\n\
         with cel-go's answers. A case passes when `Env::standard()` (plus the case's variables)\n\
         gives exactly cel-go's error text, or compiles to the type cel-go prints. Cases needing\n\
         protobuf messages or function declarations, and cases cel-go rejects only because the\n\
         generator's environment is not kube-apiserver's, are skipped (see the test's doc comment).\n\n",
    );
    let _ = writeln!(
        s,
        "**Total: {passed}/{compared} ({:.1} %)**, {skipped} skipped\n",
        pct(passed, compared)
    );
    s.push_str("| file | passed | compared | % | skipped |\n|---|---:|---:|---:|---:|\n");
    for f in FILES {
        let t = &totals[f];
        let _ = writeln!(
            s,
            "| {f} | {} | {} | {:.1} | {} |",
            t.passed,
            t.compared,
            pct(t.passed, t.compared),
            t.skipped.values().sum::<usize>()
        );
    }
    s.push_str("\n## Mismatches by category\n\n| category |");
    for f in FILES {
        let _ = write!(s, " {f} |");
    }
    s.push_str(" total |\n|---|");
    for _ in 0..=FILES.len() {
        s.push_str("---:|");
    }
    s.push('\n');
    for c in CATEGORIES {
        let per: Vec<usize> = FILES
            .iter()
            .map(|f| totals[f].categories.get(c).copied().unwrap_or(0))
            .collect();
        let _ = write!(s, "| {c} |");
        for n in &per {
            let _ = write!(s, " {n} |");
        }
        let _ = writeln!(s, " {} |", per.iter().sum::<usize>());
    }
    s.push_str("\n## Skipped\n\n| reason | file | cases |\n|---|---|---:|\n");
    for f in FILES {
        for (why, n) in &totals[f].skipped {
            let _ = writeln!(s, "| {why} | {f} | {n} |");
        }
    }
    for c in CATEGORIES {
        let in_cat: Vec<&Failure> = failures.iter().filter(|f| f.category == c).collect();
        if in_cat.is_empty() {
            continue;
        }
        let _ = writeln!(s, "\n## {c} ({})\n", in_cat.len());
        for f in in_cat {
            let id = f.id.split(':').next().unwrap_or("");
            let expr: String = f.expr.chars().take(120).collect();
            let (want, got) = first_difference(&f.want, &f.got);
            let _ = writeln!(
                s,
                "- {id} {}\n  - cel-go: {}\n  - Palisade: {}",
                code(&expr),
                code(&want),
                code(&got)
            );
        }
    }
    s
}
