//! Evaluator behaviour against request JSON, and cel-go's error wording.

#![allow(
    clippy::panic,
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "test helpers outside #[test] functions"
)]

use palisade_cel::{Activation, Budget, CompileError, Env, Expect, Program, Value};
use serde_json::json;

fn pod() -> serde_json::Value {
    json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "web", "namespace": "team-a", "labels": {"app": "web", "tier": null},
                      "annotations": {}},
        "spec": {
            "replicas": 3,
            "ratio": 0.5,
            "nodeName": null,
            "containers": [
                {"name": "nginx", "image": "registry.example.com/nginx:1.25", "ports": [{"containerPort": 80}],
                 "securityContext": {"privileged": false}},
                {"name": "sidecar", "image": "busybox", "resources": {"limits": {"cpu": "100m"}}}
            ]
        }
    })
}

fn eval_with(src: &str, obj: &serde_json::Value) -> Result<Value<'static>, String> {
    let env = Env::admission();
    let prog = env
        .compile(src, Expect::Any)
        .map_err(|e| format!("compile: {e}"))?;
    let act = Activation::new()
        .bind_json("object", Some(obj))
        .bind_json("oldObject", None);
    let v = prog
        .eval(&act, &mut Budget::kubernetes())
        .map_err(|e| e.to_string())?;
    // detach from the borrow for the table below
    Ok(match v.to_json() {
        Some(j) => owned(j),
        None => Value::string(v.to_string()),
    })
}

fn owned(j: serde_json::Value) -> Value<'static> {
    match j {
        serde_json::Value::Null => Value::Null,
        serde_json::Value::Bool(b) => Value::Bool(b),
        serde_json::Value::Number(n) => n
            .as_i64()
            .map(Value::Int)
            .unwrap_or_else(|| Value::Double(n.as_f64().unwrap())),
        serde_json::Value::String(s) => Value::string(s),
        serde_json::Value::Array(a) => Value::list(a.into_iter().map(owned).collect()),
        serde_json::Value::Object(m) => Value::map(
            m.into_iter()
                .map(|(k, v)| (Value::string(k), owned(v)))
                .collect(),
        ),
    }
}

#[test]
fn field_access_and_macros_over_json() {
    let obj = pod();
    let cases: &[(&str, serde_json::Value)] = &[
        ("object.spec.replicas + 1", json!(4)),
        ("object.spec.replicas * 2 == 6", json!(true)),
        ("object.spec.ratio * 2.0", json!(1.0)),
        ("object.spec.containers.size()", json!(2)),
        ("object.spec.containers[0].name", json!("nginx")),
        ("object.spec.containers.all(c, c.image != '')", json!(true)),
        (
            "object.spec.containers.exists(c, c.name == 'sidecar')",
            json!(true),
        ),
        (
            "object.spec.containers.exists_one(c, has(c.securityContext))",
            json!(true),
        ),
        (
            "object.spec.containers.map(c, c.name)",
            json!(["nginx", "sidecar"]),
        ),
        (
            "object.spec.containers.filter(c, c.name.startsWith('s')).map(c, c.image)",
            json!(["busybox"]),
        ),
        (
            "object.spec.containers.all(i, c, i >= 0 && c.name != '')",
            json!(true),
        ),
        (
            "object.spec.containers.transformList(i, c, i)",
            json!([0, 1]),
        ),
        (
            "object.metadata.labels.transformMap(k, v, v + '!')",
            json!({"app": "web!"}),
        ),
        ("has(object.spec.nodeName)", json!(false)),
        ("has(object.metadata.labels.tier)", json!(false)),
        ("has(object.metadata.labels.app)", json!(true)),
        ("object.metadata.labels.size()", json!(1)),
        ("'tier' in object.metadata.labels", json!(false)),
        ("'app' in object.metadata.labels", json!(true)),
        ("object.?spec.?nodeName.orValue('none')", json!("none")),
        ("object.spec.?replicas.orValue(0)", json!(3)),
        ("object.metadata.?labels['app'].orValue('x')", json!("web")),
        (
            "object.metadata.labels.transformMapEntry(k, v, {v: k})",
            json!({"web": "app"}),
        ),
        (
            "object.spec.containers.map(c, c.image.split('/')).map(p, p.size())",
            json!([2, 1]),
        ),
        (
            "object.spec.containers[0].image.matches('^registry\\\\.example\\\\.com/')",
            json!(true),
        ),
        (
            "object.spec.containers.all(c, c.image.matches('^[a-z./:0-9]+$'))",
            json!(true),
        ),
        ("oldObject == null", json!(true)),
        ("object.kind == 'Pod' ? 'pod' : 'other'", json!("pod")),
        (
            "object.spec.containers.exists(c, c.?securityContext.?privileged.orValue(false))",
            json!(false),
        ),
        ("[1, 2, 3].map(x, x * x).filter(x, x > 1)", json!([4, 9])),
        ("{'a': 1, 'b': 2}.all(k, k.size() == 1)", json!(true)),
        (
            "object.metadata.name + '-' + object.metadata.namespace",
            json!("web-team-a"),
        ),
        ("int('42') + int(3.9)", json!(45)),
        ("string(object.spec.replicas)", json!("3")),
        ("duration('1h30m') == duration('90m')", json!(true)),
        (
            "timestamp('2024-01-01T00:00:00Z') + duration('24h') > timestamp('2024-01-01T12:00:00Z')",
            json!(true),
        ),
        (
            "timestamp('2024-03-05T10:11:12Z').getHours('+02:00')",
            json!(12),
        ),
        (
            "string(timestamp('2024-03-05T10:11:12.500Z'))",
            json!("2024-03-05T10:11:12.5Z"),
        ),
        ("dyn(1) == 1.0 && dyn(1u) == 1 && 2.5 > 2", json!(true)),
        ("[dyn(1), dyn('a')] == [dyn(1), dyn('a')]", json!(true)),
    ];
    let mut failures = Vec::new();
    for (src, want) in cases {
        match eval_with(src, &obj) {
            Ok(v) => {
                let want = owned(want.clone());
                if !v.equals(&want).unwrap_or(false) {
                    failures.push(format!("{src}: got {v}, want {want}"));
                }
            }
            Err(e) => failures.push(format!("{src}: error {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn runtime_errors_use_cel_go_wording() {
    let obj = pod();
    let cases: &[(&str, &str)] = &[
        ("object.spec.missing == 1", "no such key: missing"),
        ("object.spec.nodeName == 'x'", "no such key: nodeName"),
        ("object.metadata.labels['tier'] == 'x'", "no such key: tier"),
        (
            "object.spec.containers[3].name == 'x'",
            "index out of bounds: 3",
        ),
        (
            "object.spec.containers[-1].name == 'x'",
            "index out of bounds: -1",
        ),
        ("1 / (object.spec.replicas - 3) == 0", "division by zero"),
        ("1 % (object.spec.replicas - 3) == 0", "modulus by zero"),
        (
            "9223372036854775807 + object.spec.replicas > 0",
            "integer overflow",
        ),
        (
            "-9223372036854775807 - object.spec.replicas < 0",
            "integer overflow",
        ),
        ("object.spec.replicas.startsWith('a')", "no such overload"),
        (
            "object.spec.containers[0].name + 1 == 2",
            "no such overload",
        ),
        (
            "optional.none().value() == 1",
            "optional.none() dereference",
        ),
        (
            "'abc'.substring(2, 1) == ''",
            "invalid substring range. start: 2, end: 1",
        ),
        ("'abc'.charAt(4) == ''", "index out of range: 4"),
        // types.IndexOrError: a double or a uint only when it is an int exactly, printed with %v
        (
            "object.spec.containers[object.spec.ratio] == 1",
            "unsupported index value 0.5 in list",
        ),
        (
            "object.spec.containers[object.spec.ratio * 2e19] == 1",
            "unsupported index value 1e+19 in list",
        ),
        (
            "object.spec.containers[uint(object.spec.replicas) + 9223372036854775805u] == 1",
            "unsupported index value 9223372036854775808 in list",
        ),
        // a conversion that fails, in cel-go's words (common/types/*.go `ConvertToType`, overflow.go): one message
        // for every text, the type named as cel-go names it; a timestamp past year 9999 overflows
        (
            "int(object.spec.containers[0].name) == 1",
            "type conversion error from 'string' to 'int'",
        ),
        (
            "uint(object.metadata.name) == 1u",
            "type conversion error from 'string' to 'uint'",
        ),
        (
            "double(object.metadata.name) == 1.0",
            "type conversion error from 'string' to 'double'",
        ),
        (
            "bool(object.metadata.name)",
            "type conversion error from 'string' to 'bool'",
        ),
        (
            "duration(object.metadata.name) > duration('1s')",
            "type conversion error from 'string' to 'google.protobuf.Duration'",
        ),
        (
            "duration(string(object.spec.replicas) + '000000000000000000000ns') > duration('1s')",
            "type conversion error from 'string' to 'google.protobuf.Duration'",
        ),
        (
            "timestamp(object.metadata.name) > timestamp(0)",
            "type conversion error from 'string' to 'google.protobuf.Timestamp'",
        ),
        // Go's time.Parse(RFC3339): `T` and `Z` in upper case, no leap second (chrono reads all three)
        (
            "timestamp('2024-01-01 00:00:00Z' + object.metadata.name.substring(3)) > timestamp(0)",
            "type conversion error from 'string' to 'google.protobuf.Timestamp'",
        ),
        (
            "timestamp('2024-01-01t00:00:00Z' + object.metadata.name.substring(3)) > timestamp(0)",
            "type conversion error from 'string' to 'google.protobuf.Timestamp'",
        ),
        (
            "timestamp('2024-01-01T00:00:00z' + object.metadata.name.substring(3)) > timestamp(0)",
            "type conversion error from 'string' to 'google.protobuf.Timestamp'",
        ),
        (
            "timestamp('2016-12-31T23:59:60Z' + object.metadata.name.substring(3)) > timestamp(0)",
            "type conversion error from 'string' to 'google.protobuf.Timestamp'",
        ),
        (
            "timestamp('9999-12-31T23:59:59Z') + duration(string(object.spec.replicas) + 's') > timestamp(0)",
            "timestamp overflow",
        ),
        (
            "timestamp(object.spec.replicas * 100000000000) > timestamp(0)",
            "timestamp overflow",
        ),
        (
            "duration('2562047h') + duration(string(object.spec.replicas) + 'h') > duration('1s')",
            "integer overflow",
        ),
    ];
    let mut failures = Vec::new();
    for (src, want) in cases {
        match eval_with(src, &obj) {
            Ok(v) => failures.push(format!("{src}: got {v}, want error {want}")),
            Err(e) if e == *want => {}
            Err(e) => failures.push(format!("{src}: error {e:?}, want {want:?}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `string(double)` is cel-go's `fmt.Sprintf("%g", d)` (common/types/double.go): the shortest digits, in exponent form
/// from an exponent of 6 (cel-go's own example: `string(-1.23e4) // '-12300'`), and a map key that is a double is printed
/// so in `no such key`.
#[test]
fn doubles_print_as_go_percent_g() {
    let obj = pod();
    for (src, want) in [
        ("string(object.spec.ratio * 2e6)", "1e+06"),
        ("string(object.spec.ratio * 1999998.0)", "999999"),
        ("string(object.spec.ratio * -2.46e4)", "-12300"),
        ("string(object.spec.ratio * 2469135.0)", "1.2345675e+06"),
        ("string(object.spec.ratio / 5e4)", "1e-05"),
        ("string(object.spec.ratio / 5e3)", "0.0001"),
    ] {
        match eval_with(src, &obj) {
            Ok(Value::String(s)) => assert_eq!(s.as_str(), want, "{src}"),
            other => panic!("{src}: {other:?}"),
        }
    }
    assert_eq!(
        eval_with("{1: 1}[object.spec.ratio * 2e7] == 1", &obj).err(),
        Some("no such key: 1e+07".to_string())
    );
}

#[test]
fn logical_operators_absorb_errors_like_cel_go() {
    let obj = pod();
    for (src, want) in [
        ("object.spec.missing == 1 || true", true),
        ("true || object.spec.missing == 1", true),
        ("object.spec.missing == 1 && false", false),
        ("false && object.spec.missing == 1", false),
        ("[1, 2].exists(x, x == 2 || object.spec.missing == 1)", true),
    ] {
        let v = eval_with(src, &obj).unwrap_or_else(|e| panic!("{src}: {e}"));
        assert_eq!(v.as_bool(), Some(want), "{src}");
    }
    assert_eq!(
        eval_with("object.spec.missing == 1 || false", &obj).unwrap_err(),
        "no such key: missing"
    );
}

fn compile_err(env: &Env, src: &str, expect: Expect) -> CompileError {
    match env.compile(src, expect) {
        Ok(_) => panic!("{src} should not compile"),
        Err(e) => e,
    }
}

#[test]
fn compile_errors_are_formatted_like_cel_go() {
    let env = Env::admission();
    assert_eq!(
        compile_err(&env, "foo == 1", Expect::Bool).to_string(),
        "ERROR: <input>:1:1: undeclared reference to 'foo' (in container '')\n | foo == 1\n | ^"
    );
    assert_eq!(
        compile_err(&env, "object.x && bar", Expect::Bool).to_string(),
        "ERROR: <input>:1:13: undeclared reference to 'bar' (in container '')\n | object.x && bar\n | ............^"
    );
    let e = compile_err(&env, "1 + 'a'", Expect::Any).to_string();
    assert!(
        e.starts_with("ERROR: <input>:1:")
            && e.contains("found no matching overload for '_+_' applied to '(int, string)'"),
        "{e}"
    );
    let e = compile_err(&env, "object.spec.(", Expect::Any).to_string();
    assert!(
        e.starts_with("ERROR: <input>:1:") && e.contains("Syntax error"),
        "{e}"
    );
    // a literal pattern: `matches` is checked by kube-apiserver's ValidateRegexLiterals when the expression compiles,
    // `find` when the program is built (OptimizeRegex); upstream: apiextensions-apiserver
    // pkg/apiserver/schema/cel/validation_test.go "regex" errors
    let e = compile_err(&env, "'a'.matches('(')", Expect::Bool).to_string();
    assert_eq!(
        e,
        "ERROR: <input>:1:13: invalid matches argument\n | 'a'.matches('(')\n | ............^"
    );
    let e = compile_err(&env, "'a'.find(')') == ''", Expect::Bool).to_string();
    assert_eq!(
        e,
        "program instantiation failed: error parsing regexp: unexpected ): `)`"
    );
}

/// The first line of a compile error.
fn first_line(env: &Env, src: &str) -> String {
    let e = compile_err(env, src, Expect::Any).to_string();
    e.lines().next().unwrap_or_default().to_string()
}

// upstream: cel-go parser/parser_test.go (the first error of each; Palisade's parser stops at
// the first) and k8s.io/apiserver/pkg/admission/plugin/cel/compile_test.go
// TestCompileValidatingPolicyExpression "invalid syntax ('asdf'.contains('x')"
#[test]
fn syntax_errors_are_worded_like_cel_go() {
    let env = Env::admission();
    let primary = "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}";
    let cases = [
        (
            "self.true == 1",
            "ERROR: <input>:1:6: Syntax error: mismatched input 'true' expecting IDENTIFIER"
                .to_string(),
        ),
        (
            "1 + +",
            format!("ERROR: <input>:1:5: Syntax error: mismatched input '+' expecting {primary}"),
        ),
        (
            "in",
            format!("ERROR: <input>:1:1: Syntax error: mismatched input 'in' expecting {primary}"),
        ),
        (
            "TestAllTypes(){}",
            "ERROR: <input>:1:15: Syntax error: mismatched input '{' expecting <EOF>".to_string(),
        ),
        // ANTLR deletes one unwanted token when the end follows it (cel-go's parser_test.go `a | b`, second error)
        (
            "a b",
            "ERROR: <input>:1:3: Syntax error: extraneous input 'b' expecting <EOF>".to_string(),
        ),
        // a number that does not fit is named as written
        (
            "1 99999999999999999999",
            "ERROR: <input>:1:3: Syntax error: extraneous input '99999999999999999999' expecting <EOF>"
                .to_string(),
        ),
        // cel-go's hexadecimal prefix is `0x`: `0X1F` is `0` and the identifier `X1F`
        (
            "0X1F",
            "ERROR: <input>:1:2: Syntax error: extraneous input 'X1F' expecting <EOF>".to_string(),
        ),
        (
            "'asdf'.contains('x'",
            "ERROR: <input>:1:20: Syntax error: missing ')' at '<EOF>'".to_string(),
        ),
        (
            "object.spec.(",
            "ERROR: <input>:1:13: Syntax error: mismatched input '(' expecting IDENTIFIER"
                .to_string(),
        ),
        (
            "object.",
            "ERROR: <input>:1:8: Syntax error: mismatched input '<EOF>' expecting IDENTIFIER"
                .to_string(),
        ),
        (
            "1 +",
            format!(
                "ERROR: <input>:1:4: Syntax error: mismatched input '<EOF>' expecting {primary}"
            ),
        ),
        (
            "a @ b",
            "ERROR: <input>:1:3: Syntax error: token recognition error at: '@'".to_string(),
        ),
        // right after a literal's opening token ANTLR expects an item, the lone comma or the closing token: the
        // grammar's whole set (`CEL.g4` `'[' listInit? ','? ']'`; a map's and a message's are cel-go's parser_test.go
        // `{`, `x{.`, `{:a}`, `msg{:a}`, which cel_go_tables.rs compares in full)
        (
            "[:",
            "ERROR: <input>:1:2: Syntax error: mismatched input ':' expecting {'[', ']', '{', '(', '.', ',', '-', '!', '?', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}".to_string(),
        ),
        (
            "{",
            "ERROR: <input>:1:2: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '}', '(', '.', ',', '-', '!', '?', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}".to_string(),
        ),
    ];
    for (src, want) in cases {
        assert_eq!(first_line(&env, src), want, "{src}");
    }
    // ANTLR's `<EOF>` is where the input ends, past a blank, a comment or the line break a YAML block scalar
    // (`expression: |`) leaves at the end, not where the last token ends
    let expected = format!("mismatched input '<EOF>' expecting {primary}");
    for (src, at) in [
        ("object.spec.replicas <=\n", "2:1"),
        ("1 +  ", "1:6"),
        ("1 + // more\n", "2:1"),
    ] {
        assert_eq!(
            first_line(&env, src),
            format!("ERROR: <input>:{at}: Syntax error: {expected}"),
            "{src:?}"
        );
    }
    // text no token matches is reported and skipped, as cel-go's (ANTLR's) lexer does, and the parser reads the
    // tokens around it (cel-go's parser_test.go `1 + $`, `a | b`, `"\xFh"`: cel_go_tables.rs compares them in full)
    assert_eq!(
        compile_err(&env, "@", Expect::Any).to_string(),
        format!(
            "ERROR: <input>:1:1: Syntax error: token recognition error at: '@'\n | @\n | ^\n\
             ERROR: <input>:1:2: Syntax error: {expected}\n | @\n | .^"
        )
    );
    assert_eq!(
        compile_err(&env, "'\\udead' == 'x' @", Expect::Any).to_string(),
        "ERROR: <input>:1:1: invalid unicode code point\n | '\\udead' == 'x' @\n | ^\n\
         ERROR: <input>:1:17: Syntax error: token recognition error at: '@'\n | '\\udead' == 'x' @\n | ................^"
    );
    // cel-go reports at most 100 syntax errors (its parser's `errorReportingLimit`): the next one reads `More than 100
    // syntax errors`, and the parse stops there
    let e = compile_err(&env, &"@\n".repeat(150), Expect::Any).to_string();
    let reported: Vec<&str> = e.lines().filter(|l| l.starts_with("ERROR")).collect();
    assert_eq!(reported.len(), 101, "{e}");
    assert_eq!(
        reported.last().copied(),
        Some("ERROR: <input>:101:1: Syntax error: More than 100 syntax errors")
    );
    // Palisade's bound, not cel-go's: the text is at most 4 bytes per byte of the expression and 8 KiB, whole errors
    // from the first, where cel-go would print a long line under each of its hundred errors
    let src = "@ ".repeat(150);
    let e = compile_err(&env, &src, Expect::Any).to_string();
    assert!(e.len() <= 4 * src.len() + 8192, "{}", e.len());
    assert!(e.starts_with("ERROR: <input>:1:1: Syntax error: token recognition error at: '@'\n"));
    assert!(e.ends_with("^"), "{e}");
    // ANTLR deletes the unwanted token when the next one fits, reports it and goes on: the rest is parsed and
    // reported too (cel-go's parser_test.go `{:a}`)
    assert_eq!(
        compile_err(&env, "[:1] == []", Expect::Any).to_string(),
        "ERROR: <input>:1:2: Syntax error: extraneous input ':' expecting {'[', ']', '{', '(', '.', ',', '-', '!', '?', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | [:1] == []\n | .^"
    );
    // no Rust debug text reaches a user, whatever the input
    for src in [
        "a.(b)", "a[", "a[1", "f(1 2)", "{1: }", "{.", "[1,,2]", "a ? b", "a ? b :", ".", ".1.",
        "a.b(", "(1", ")", "x{", "x{a 1}", "!", "-", "1 2", "a..b", "'a' 'b'", "a.?",
    ] {
        let e = compile_err(&env, src, Expect::Any).to_string();
        for bad in [
            "Some(", "None", "LParen", "RParen", "Ident(", "Token", "{:?}",
        ] {
            assert!(!e.contains(bad), "{src}: {e}");
        }
        assert!(e.contains("Syntax error: "), "{src}: {e}");
    }
}

// `CEL.g4`: a list, a map and a message literal may hold a lone comma (`'[' listInit? ','? ']'`), which cel-go's
// parser reads as an empty literal; a second comma, or an item after it, is a syntax error (which ANTLR words
// `extraneous input` where the closing token follows, and Palisade, stopping there, `mismatched input`).
#[test]
fn a_literal_of_a_lone_comma_is_empty() {
    let empty = eval_with("[,] == [] && {,} == {} && size([,]) == 0", &pod()).unwrap();
    assert!(matches!(empty, Value::Bool(true)), "{empty:?}");
    let env = Env::admission();
    for src in ["[,,]", "{,,}", "[,1]", "{,1: 2}"] {
        let e = compile_err(&env, src, Expect::Any).to_string();
        assert!(e.contains("Syntax error: "), "{src}: {e}");
    }
}

#[test]
fn result_types_are_checked_at_compile_time() {
    // upstream: k8s.io/apiserver/pkg/admission/plugin/cel/compile.go CompileCELExpression (the
    // output type must be exactly one of the return types; ValidationCondition: bool,
    // MessageExpressionCondition: string, AuditAnnotationCondition: string, null_type)
    let env = Env::admission();
    for (src, expect, want) in [
        (
            "'hello'",
            Expect::Bool,
            "must evaluate to bool but got string",
        ),
        ("1 + 2", Expect::Bool, "must evaluate to bool but got int"),
        (
            "object.spec.enabled",
            Expect::Bool,
            "must evaluate to bool but got dyn",
        ),
        (
            "[1, 2]",
            Expect::Bool,
            "must evaluate to bool but got list(int)",
        ),
        (
            "{'a': 1}",
            Expect::Bool,
            "must evaluate to bool but got map(string, int)",
        ),
        (
            "true",
            Expect::String,
            "must evaluate to string but got bool",
        ),
        (
            "object.metadata.name",
            Expect::String,
            "must evaluate to string but got dyn",
        ),
        (
            "1",
            Expect::StringOrNull,
            "must evaluate to one of [string null_type] but got int",
        ),
        (
            "object.metadata.name",
            Expect::StringOrNull,
            "must evaluate to one of [string null_type] but got dyn",
        ),
    ] {
        assert_eq!(compile_err(&env, src, expect).to_string(), want, "{src}");
    }
    for (src, expect) in [
        ("object.spec.enabled == true", Expect::Bool),
        ("string(object.metadata.name)", Expect::String),
        ("'x'", Expect::String),
        ("null", Expect::StringOrNull),
        ("'x'", Expect::StringOrNull),
        ("1 == 1", Expect::Bool),
        ("object.spec", Expect::Any),
    ] {
        env.compile(src, expect)
            .unwrap_or_else(|e| panic!("{src}: {e}"));
    }
    let cr = Env::certificate_request();
    assert_eq!(
        compile_err(&cr, "self", Expect::Bool).to_string(),
        "got string, wanted bool result type"
    );
}

#[test]
fn programs_are_send_sync_and_cheap_to_clone() {
    fn assert_send_sync<T: Send + Sync + Clone>() {}
    assert_send_sync::<Program>();
    assert_send_sync::<Env>();
    let p = Env::admission()
        .compile("object.metadata.name == 'web'", Expect::Bool)
        .unwrap();
    let q = p.clone();
    assert_eq!(q.source(), "object.metadata.name == 'web'");
    let handle = std::thread::spawn(move || {
        let obj = pod();
        let act = Activation::new().bind_json("object", Some(&obj));
        q.eval(&act, &mut Budget::kubernetes()).unwrap().as_bool()
    });
    assert_eq!(handle.join().unwrap(), Some(true));
}

#[test]
fn values_borrow_the_request() {
    let obj = pod();
    let env = Env::admission();
    let p = env
        .compile("object.spec.containers[0]", Expect::Any)
        .unwrap();
    let act = Activation::new().bind_json("object", Some(&obj));
    let v = p.eval(&act, &mut Budget::kubernetes()).unwrap();
    // the result is a view into `obj`, not a copy
    match v {
        Value::Map(palisade_cel::Map::Json(m)) => {
            assert!(std::ptr::eq(
                m,
                obj["spec"]["containers"][0].as_object().unwrap()
            ));
        }
        other => panic!("expected a borrowed map, got {other}"),
    }
    let s = env.compile("object.metadata.name", Expect::Any).unwrap();
    let v = s.eval(&act, &mut Budget::kubernetes()).unwrap();
    assert_eq!(v.as_str(), Some("web"));
    assert!(matches!(v, Value::String(palisade_cel::Str::Borrowed(_))));
    assert_eq!(v.to_json(), Some(json!("web")));
}

#[test]
fn cost_follows_cel_go() {
    let env = Env::admission();
    let obj = pod();
    let cost = |src: &str| {
        let p = env.compile(src, Expect::Any).unwrap();
        let act = Activation::new().bind_json("object", Some(&obj));
        let mut b = Budget::kubernetes();
        p.eval(&act, &mut b).unwrap();
        b.used()
    };
    // constants are free; identifiers and selections cost 1; operators 1
    assert_eq!(cost("1"), 0);
    assert_eq!(cost("object"), 1);
    assert_eq!(cost("object.spec.replicas"), 3);
    assert_eq!(cost("object.spec.replicas + 1"), 4);
    // list literals cost 10, map literals 30; constant ones are built when the program is
    // compiled (kube-apiserver's cel.OptOptimize) and are free like any constant
    assert_eq!(cost("[object.spec.replicas, object.kind]"), 3 + 2 + 10);
    assert_eq!(cost("{'a': object}"), 1 + 30);
    assert_eq!(cost("[1, 2]"), 0);
    assert_eq!(cost("{'a': 1}"), 0);
    // all(): per iteration 5 (not_strictly_false + accumulator, x, `>`, accumulator), the
    // result 1 — as cel-go's tracker counts it (the constant range is free)
    assert_eq!(cost("[1, 2].all(x, x > 0)"), 11);
    assert_eq!(cost("[1, 2, 3, 4, 5, 6, 7, 8].all(x, x > 0)"), 41);
    // string operations scale with size: equality is ceil(min(len) * 0.1)
    assert_eq!(cost("object.metadata.name == 'web'"), 3 + 1);
    let long = "x".repeat(100);
    assert_eq!(cost(&format!("'{long}' == '{long}'")), 10);
}

/// RE2 (cel-go) Perl classes are ASCII-only; the evaluator rewrites them for `regex_lite`.
#[test]
fn regexes_follow_re2_semantics() {
    let obj = json!({});
    for (src, want) in [
        ("'é'.matches('^\\\\w$')", false),
        ("'a_1'.matches('^\\\\w+$')", true),
        ("'٣'.matches('^\\\\d$')", false),
        ("'a b'.matches('a\\\\sb')", true),
        ("'a-b'.matches('^[\\\\w-]+$')", true),
        ("'x]'.matches('[]x]+')", true),
        ("'ab'.matches('[[:alpha:]]+')", true),
        ("'a\\\\b'.matches('a\\\\\\\\b')", true),
        ("'日本'.matches('^..$')", true),
        ("'ABC'.matches('(?i)abc')", true),
        ("matches('abc', 'b')", true),
    ] {
        let v = eval_with(src, &obj).unwrap_or_else(|e| panic!("{src}: {e}"));
        assert_eq!(v.as_bool(), Some(want), "{src}");
    }
}

/// `==`, `startsWith` and `endsWith` on strings compare words, not bytes (`palisade_json::equal_bytes`): they must
/// answer as Rust's `==`, `starts_with` and `ends_with` for every pair of a table of strings of every length around
/// the word and block sizes, with multibyte characters, differing at the start, the middle and the end.
#[test]
fn string_comparisons_answer_as_the_standard_ones() {
    let mut texts: Vec<String> = vec![String::new(), "é".into(), "𝄞x".into()];
    for len in [1, 3, 4, 7, 8, 9, 15, 16, 21, 31, 32, 33, 40, 64, 65] {
        let base: String = "registry.example.com/nginx:1.25-abcdefghijklmnopqrstuvwxyz0123456789"
            .chars()
            .cycle()
            .take(len)
            .collect();
        texts.push(base.clone());
        for at in [0, len / 2, len - 1] {
            let mut changed: Vec<char> = base.chars().collect();
            changed[at] = if changed[at] == 'Z' { 'Y' } else { 'Z' };
            texts.push(changed.into_iter().collect());
        }
        texts.push(format!("{base}é"));
    }
    let obj = json!({ "texts": texts });
    for (i, a) in texts.iter().enumerate() {
        for (j, b) in texts.iter().enumerate() {
            let got = eval_with(
                &format!(
                    "[object.texts[{i}] == object.texts[{j}], object.texts[{i}].startsWith(object.texts[{j}]), \
                     object.texts[{i}].endsWith(object.texts[{j}])]"
                ),
                &obj,
            )
            .unwrap();
            let want = json!([a == b, a.starts_with(b.as_str()), a.ends_with(b.as_str())]);
            assert_eq!(got.to_json(), Some(want), "{a:?} against {b:?}");
        }
    }
}
