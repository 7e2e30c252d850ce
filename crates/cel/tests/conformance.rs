//! cel-spec conformance: runs the simple tests shipped in npm `@bufbuild/cel-spec` (cel-spec
//! v0.25.1 testdata) that need no protobuf messages, and checks them against the committed
//! allow-list `conformance-allowlist.txt` (`file/section/test` per line; it may only grow).
//!
//! `BLESS=1 cargo test -p palisade-cel --test conformance` rewrites the allow-list and
//! `CONFORMANCE.md` from the current results.

#![expect(
    clippy::expect_used,
    reason = "test harness: missing or unreadable fixtures must abort the test"
)]

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use base64::Engine as _;
use palisade_cel::{Activation, Budget, CelType, Env, Expect, Value};
use serde_json::Value as Json;

/// Tests that need protobuf messages (Kubernetes objects never do) or only check types.
fn needs_proto(t: &Json) -> bool {
    if t.get("checkOnly").and_then(Json::as_bool) == Some(true) {
        return true;
    }
    let mut relevant = serde_json::Map::new();
    for k in [
        "expr",
        "value",
        "bindings",
        "typeEnv",
        "container",
        "evalError",
        "typedResult",
    ] {
        if let Some(v) = t.get(k) {
            relevant.insert(k.to_string(), v.clone());
        }
    }
    let text = Json::Object(relevant).to_string();
    [
        "TestAllTypes",
        "google.protobuf",
        "objectValue",
        "messageType",
        "enumValue",
        "cel.expr.conformance",
        "NestedTestAllTypes",
        "GlobalEnum",
        "NestedEnum",
        ".Int32Value",
        ".Any",
    ]
    .iter()
    .any(|p| text.contains(p))
}

fn cel_type(t: &Json) -> Option<CelType> {
    if let Some(p) = t.get("primitive").and_then(Json::as_str) {
        return Some(match p {
            "BOOL" => CelType::Bool,
            "INT64" => CelType::Int,
            "UINT64" => CelType::UInt,
            "DOUBLE" => CelType::Double,
            "STRING" => CelType::String,
            "BYTES" => CelType::Bytes,
            _ => return None,
        });
    }
    if let Some(l) = t.get("listType") {
        return Some(CelType::list(cel_type(l.get("elemType")?)?));
    }
    if let Some(m) = t.get("mapType") {
        return Some(CelType::map(
            cel_type(m.get("keyType")?)?,
            cel_type(m.get("valueType")?)?,
        ));
    }
    if t.get("null").is_some() {
        return Some(CelType::Null);
    }
    if t.get("dyn").is_some() {
        return Some(CelType::Dyn);
    }
    if let Some(w) = t.get("wellKnown").and_then(Json::as_str) {
        return Some(match w {
            "TIMESTAMP" => CelType::Timestamp,
            "DURATION" => CelType::Duration,
            _ => CelType::Dyn,
        });
    }
    None
}

fn double_of(v: &Json) -> Option<f64> {
    match v {
        Json::Number(n) => n.as_f64(),
        Json::String(s) => match s.as_str() {
            "NaN" => Some(f64::NAN),
            "Infinity" => Some(f64::INFINITY),
            "-Infinity" => Some(f64::NEG_INFINITY),
            other => other.parse().ok(),
        },
        _ => None,
    }
}

/// proto-JSON `cel.expr.Value` to our value.
fn to_value(v: &Json) -> Option<Value<'static>> {
    let (k, x) = v.as_object()?.iter().next()?;
    Some(match k.as_str() {
        "nullValue" => Value::Null,
        "boolValue" => Value::Bool(x.as_bool()?),
        "int64Value" => Value::Int(match x {
            Json::String(s) => s.parse().ok()?,
            other => other.as_i64()?,
        }),
        "uint64Value" => Value::Uint(match x {
            Json::String(s) => s.parse().ok()?,
            other => other.as_u64()?,
        }),
        "doubleValue" => Value::Double(double_of(x)?),
        "stringValue" => Value::string(x.as_str()?),
        "bytesValue" => Value::Bytes(
            base64::engine::general_purpose::STANDARD
                .decode(x.as_str()?)
                .ok()?
                .into(),
        ),
        "listValue" => {
            let mut out = Vec::new();
            for e in x
                .get("values")
                .and_then(Json::as_array)
                .into_iter()
                .flatten()
            {
                out.push(to_value(e)?);
            }
            Value::list(out)
        }
        "mapValue" => {
            let mut out = Vec::new();
            for e in x
                .get("entries")
                .and_then(Json::as_array)
                .into_iter()
                .flatten()
            {
                out.push((to_value(e.get("key")?)?, to_value(e.get("value")?)?));
            }
            Value::map(out)
        }
        "typeValue" => Value::Type(palisade_cel::Type::from_name(x.as_str()?)?),
        _ => return None,
    })
}

/// Strict equality: same kinds (an `int` 1 is not a `uint` 1), NaN equals NaN.
fn same(a: &Value<'_>, b: &Value<'_>) -> bool {
    match (a, b) {
        (Value::Double(x), Value::Double(y)) => (x.is_nan() && y.is_nan()) || x == y,
        (Value::List(x), Value::List(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| same(&p, &q))
        }
        (Value::Map(x), Value::Map(y)) => {
            x.len() == y.len()
                && x.entries().iter().all(|(k, v)| match y.get(k) {
                    Some(w) => same(v, &w),
                    None => false,
                })
        }
        _ => a.type_of() == b.type_of() && a.equals(b).unwrap_or(false),
    }
}

enum Outcome {
    Pass,
    Fail(String),
    Unsupported,
}

fn run_test(t: &Json) -> Outcome {
    let expr = t.get("expr").and_then(Json::as_str).unwrap_or("");
    let mut env = Env::standard().with_error_on_bad_presence_test();
    if let Some(c) = t.get("container").and_then(Json::as_str) {
        env = env.with_container(c);
    }
    for decl in t
        .get("typeEnv")
        .and_then(Json::as_array)
        .into_iter()
        .flatten()
    {
        let name = decl.get("name").and_then(Json::as_str).unwrap_or("");
        match decl.get("ident").and_then(|i| i.get("type")).map(cel_type) {
            Some(Some(ty)) => env = env.with_variable(name, ty),
            _ => return Outcome::Unsupported,
        }
    }
    let mut act = Activation::new();
    for (name, b) in t
        .get("bindings")
        .and_then(Json::as_object)
        .into_iter()
        .flatten()
    {
        match b.get("value").and_then(to_value) {
            Some(v) => act = act.bind(name, v),
            None => return Outcome::Unsupported,
        }
        if t.get("typeEnv").is_none() {
            env = env.with_dyn_variable(name);
        }
    }
    let disable_check = t.get("disableCheck").and_then(Json::as_bool) == Some(true);
    let prog = if disable_check {
        env.compile_unchecked(expr)
    } else {
        env.compile(expr, Expect::Any)
    };
    let prog = match prog {
        Ok(p) => p,
        Err(e) => return Outcome::Fail(format!("compile error: {e}")),
    };
    let result = prog.eval(&act, &mut Budget::unlimited());
    let expected = t
        .get("value")
        .or_else(|| t.get("typedResult").and_then(|r| r.get("result")));
    if let Some(want) = expected {
        let Some(want) = to_value(want) else {
            return Outcome::Unsupported;
        };
        return match result {
            Ok(got) if same(&got, &want) => Outcome::Pass,
            Ok(got) => Outcome::Fail(format!("got {got}, want {want}")),
            Err(e) => Outcome::Fail(format!("error {e}, want {want}")),
        };
    }
    if t.get("evalError").is_some() {
        return match result {
            Err(_) => Outcome::Pass,
            Ok(v) => Outcome::Fail(format!("got {v}, want an error")),
        };
    }
    if t.get("unknown").is_some() || t.get("anyUnknowns").is_some() {
        return Outcome::Unsupported;
    }
    // a SimpleTest without an expectation expects `true`
    match result {
        Ok(Value::Bool(true)) => Outcome::Pass,
        Ok(v) => Outcome::Fail(format!("got {v}, want true")),
        Err(e) => Outcome::Fail(format!("error {e}, want true")),
    }
}

#[test]
fn cel_spec_conformance() {
    let suite = common::load_testdata(&["conformance"])["conformance"].take();
    let mut results: BTreeMap<String, bool> = BTreeMap::new();
    let mut failures: Vec<String> = Vec::new();
    let mut per_section: BTreeMap<(String, String), (usize, usize)> = BTreeMap::new();
    for file in suite
        .get("suites")
        .and_then(Json::as_array)
        .into_iter()
        .flatten()
    {
        let fname = file.get("name").and_then(Json::as_str).unwrap_or("?");
        for section in file
            .get("suites")
            .and_then(Json::as_array)
            .into_iter()
            .flatten()
        {
            let sname = section.get("name").and_then(Json::as_str).unwrap_or("?");
            for test in section
                .get("tests")
                .and_then(Json::as_array)
                .into_iter()
                .flatten()
            {
                let Some(orig) = test.get("original") else {
                    continue;
                };
                if needs_proto(orig) {
                    continue;
                }
                let tname = orig
                    .get("name")
                    .and_then(Json::as_str)
                    .map(str::to_string)
                    .unwrap_or_else(|| {
                        orig.get("expr")
                            .and_then(Json::as_str)
                            .unwrap_or("")
                            .split_whitespace()
                            .collect::<Vec<_>>()
                            .join(" ")
                    });
                let id = format!("{fname}/{sname}/{tname}");
                let outcome =
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run_test(orig)))
                        .unwrap_or_else(|_| Outcome::Fail("PANIC".to_string()));
                let pass = match outcome {
                    Outcome::Pass => true,
                    Outcome::Fail(why) => {
                        failures.push(format!(
                            "{id}: {why}  [{}]",
                            orig.get("expr").and_then(Json::as_str).unwrap_or("")
                        ));
                        false
                    }
                    Outcome::Unsupported => {
                        failures.push(format!("{id}: unsupported test shape"));
                        false
                    }
                };
                let e = per_section
                    .entry((fname.to_string(), sname.to_string()))
                    .or_default();
                e.1 += 1;
                if pass {
                    e.0 += 1;
                }
                results.insert(id, pass);
            }
        }
    }

    let total = results.len();
    let passed = results.values().filter(|p| **p).count();
    let mut per_file: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for ((f, _), (p, n)) in &per_section {
        let e = per_file.entry(f.as_str()).or_default();
        e.0 += p;
        e.1 += n;
    }
    println!("cel-spec conformance (tests without protobuf): {passed}/{total}");
    for (f, (p, n)) in &per_file {
        println!(
            "  {f:<16} {p:>4}/{n:<4} {:>6.1} %",
            100.0 * *p as f64 / (*n).max(1) as f64
        );
    }
    if std::env::var("VERBOSE").is_ok() {
        for f in &failures {
            println!("FAIL {f}");
        }
    }
    // panics are bugs whatever the allow-list says
    let panics: Vec<&String> = failures.iter().filter(|f| f.contains("PANIC")).collect();
    assert!(panics.is_empty(), "evaluation panicked: {panics:#?}");

    let blessed = common::keep_passing(
        "tests/conformance-allowlist.txt",
        "cel-spec simple tests (file/section/test) that must pass",
        &results,
        |id| {
            let why = failures.iter().find(|f| f.starts_with(&format!("{id}:")));
            format!("  {id}: {}", why.cloned().unwrap_or_default())
        },
    );
    if blessed {
        std::fs::write(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("CONFORMANCE.md"),
            report(&per_section, &per_file, passed, total, &failures),
        )
        .expect("write CONFORMANCE.md");
    }
}

fn report(
    per_section: &BTreeMap<(String, String), (usize, usize)>,
    per_file: &BTreeMap<&str, (usize, usize)>,
    passed: usize,
    total: usize,
    failures: &[String],
) -> String {
    let pct = |p: usize, n: usize| 100.0 * p as f64 / n.max(1) as f64;
    let mut s = String::new();
    s.push_str("# CEL conformance\n\n");
    s.push_str(
        "Generated by `BLESS=1 cargo test -p palisade-cel --test conformance` from npm\n\
         `@bufbuild/cel-spec` 0.6.1 (cel-spec v0.25.1 simple tests). Tests that need protobuf\n\
         messages (TestAllTypes, wrappers, `google.protobuf.*`, enums) and check-only tests are\n\
         left out: Kubernetes objects never need them.\n\n",
    );
    s.push_str(&format!(
        "**Total: {passed}/{total} ({:.1} %)**\n\n",
        pct(passed, total)
    ));
    s.push_str("| file | passed | total | % |\n|---|---:|---:|---:|\n");
    for (f, (p, n)) in per_file {
        s.push_str(&format!("| {f} | {p} | {n} | {:.1} |\n", pct(*p, *n)));
    }
    s.push_str(
        "\n## Per section\n\n| file | section | passed | total | % |\n|---|---|---:|---:|---:|\n",
    );
    for ((f, sec), (p, n)) in per_section {
        s.push_str(&format!(
            "| {f} | {sec} | {p} | {n} | {:.1} |\n",
            pct(*p, *n)
        ));
    }
    s.push_str("\n## Failing tests\n\n");
    for f in failures {
        s.push_str(&format!("- `{}`\n", f.replace('`', "'")));
    }
    s
}
