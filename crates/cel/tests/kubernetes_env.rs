//! What kube-apiserver's CEL environment has and has not (k8s.io/apiserver/pkg/cel/environment/base.go): the
//! two-variable comprehensions with cel-go's `transformMapEntry` and `cel.@mapInsert`, and none of `cel.bind`,
//! `cel.block`, `proto.getExt`, the math or encoders extensions, the strings extension past version 2, or a map `+`.

#![allow(clippy::panic, reason = "test helpers outside #[test] functions")]

use palisade_cel::{Activation, Budget, Env, Expect, Value};

fn compile_err(src: &str) -> String {
    match Env::admission().compile(src, Expect::Any) {
        Ok(_) => panic!("{src}: compiled"),
        Err(e) => e.to_string(),
    }
}

/// `src` evaluated against an `object` of two maps: its boolean result, or its error.
fn eval(src: &str) -> Result<bool, String> {
    let p = Env::admission()
        .compile(src, Expect::Any)
        .unwrap_or_else(|e| panic!("{src}: {e}"));
    let object = serde_json::json!({"a": {"x": 1}, "b": {"y": 2}});
    let act = Activation::new().bind_json("object", Some(&object));
    match p.eval(&act, &mut Budget::kubernetes()) {
        Ok(Value::Bool(b)) => Ok(b),
        Ok(other) => panic!("{src}: {other}"),
        Err(e) => Err(e.to_string()),
    }
}

/// cel-go ext/comprehensions_test.go `TestTwoVarComprehensionsStaticErrors`.
#[test]
fn two_variable_comprehension_static_errors() {
    let rows = [
        (
            "[].all(i, i, i < i)",
            "ERROR: <input>:1:11: duplicate variable name: i",
        ),
        (
            "[].all(__result__, i, __result__ < i)",
            "ERROR: <input>:1:8: iteration variable overwrites accumulator variable",
        ),
        (
            "[].all(j, __result__, __result__ < j)",
            "ERROR: <input>:1:11: iteration variable overwrites accumulator variable",
        ),
        ("[].all(i.j, k, i.j < k)", "argument must be a simple name"),
        ("[].all(j, i.k, j < i.k)", "argument must be a simple name"),
        ("1.all(j, k, j < k)", "cannot be range"),
        (
            "[].exists(i.j, k, i.j < k)",
            "argument must be a simple name",
        ),
        (
            "[].exists(j, i.k, j < i.k)",
            "argument must be a simple name",
        ),
        ("''.exists(j, k, j < k)", "cannot be range"),
        (
            "[].exists_one(i.j, k, i.j < k)",
            "argument must be a simple name",
        ),
        (
            "[].existsOne(j, i.k, j < i.k)",
            "argument must be a simple name",
        ),
        ("''.existsOne(j, k, j < k)", "cannot be range"),
        (
            "[].transformList(i.j, k, i.j + k)",
            "argument must be a simple name",
        ),
        (
            "[].transformList(j, i.k, j + i.k)",
            "argument must be a simple name",
        ),
        (
            "{}.transformMap(i.j, k, i.j + k)",
            "argument must be a simple name",
        ),
        (
            "{}.transformMap(j, i.k, j + i.k)",
            "argument must be a simple name",
        ),
        ("{}.transformMap(e, e, e)", "duplicate variable name: e"),
        (
            "{}.transformMapEntry(j, i.k, {j: i.k})",
            "argument must be a simple name",
        ),
        (
            "{}.transformMapEntry(i.j, k, {k: i.j})",
            "argument must be a simple name",
        ),
        (
            "{}.transformMapEntry(j, k, 'bad filter', {k: j})",
            "no matching overload",
        ),
        (
            "[1, 2].transformList(i, v, v % 2 == 0 ? [v] : v)",
            "no matching overload",
        ),
        (
            "{'hello': 'world', 'greetings': 'tacocat'}.transformMapEntry(k, v, []) == {}",
            "found no matching overload for 'cel.@mapInsert'",
        ),
    ];
    for (src, want) in rows {
        let e = compile_err(src);
        assert!(e.contains(want), "{src}: {e}");
    }
}

/// cel-go ext/comprehensions_test.go `TestTwoVarComprehensionsRuntimeErrors`, `TestTwoVarComprehensions` (the
/// `transformMap` and `transformMapEntry` rows) and the library's documented examples.
#[test]
fn transform_map_and_transform_map_entry() {
    for (src, want) in [
        (
            "[1, 1].transformMapEntry(i, v, {v: i}) == {}",
            Err("insert failed: key 1 already exists"),
        ),
        (
            "[dyn(0), dyn(0u)].transformMapEntry(i, v, {v: i}) == {}",
            Err("insert failed: key 0 already exists"),
        ),
        (
            "{'greeting': 'aloha', 'farewell': 'aloha'}.transformMapEntry(k, v, {v: k}) == {}",
            Err("insert failed: key aloha already exists"),
        ),
        (
            "{'greeting': 'hello'}.transformMapEntry(k, v, {v: k}) == {'hello': 'greeting'}",
            Ok(true),
        ),
        (
            "[1, 2, 3].transformMapEntry(i, v, {v: i}) == {1: 0, 2: 1, 3: 2}",
            Ok(true),
        ),
        (
            "{'a': 1, 'b': 2}.transformMapEntry(k, v, v > 1, {k + '!': v * 10}) == {'b!': 20}",
            Ok(true),
        ),
        (
            "{'hello': 'world', 'greetings': 'tacocat'}.transformMapEntry(k, v, {}) == {}",
            Ok(true),
        ),
        (
            "[1, 2, 3].transformMap(i, v, (i * v) + v) == {0: 1, 1: 4, 2: 9}",
            Ok(true),
        ),
        (
            "[1, 2, 3].transformMap(i, v, i % 2 == 0, (i * v) + v) == {0: 1, 2: 9}",
            Ok(true),
        ),
        (
            "{'greeting': 'hello'}.transformMap(k, v, v + '!') == {'greeting': 'hello!'}",
            Ok(true),
        ),
        (
            "object.a.transformMapEntry(k, v, object.b) == {'y': 2}",
            Ok(true),
        ),
        // the entries of every element go in, in order: the second element's key collides with the first's
        (
            "[1, 2].transformMapEntry(i, v, {'k': v}) == {}",
            Err("insert failed: key k already exists"),
        ),
    ] {
        assert_eq!(eval(src), want.map_err(str::to_owned), "{src}");
    }
}

/// `existsOne` with one iteration variable is a macro only in cel-go's `parser.AllMacros`: `cel.NewEnv` gives
/// kube-apiserver `cel.StandardMacros` (`exists_one`) and `ext.TwoVarComprehensions` only the three-argument
/// `existsOne`, so there it is a call of an undeclared function, whose arguments are checked first (cel-go's
/// parser_test.go case `m.existsOne(v, f)`, checked in cel-go's standard environment: `undeclared reference to
/// 'existsOne'` at its `(`).
#[test]
fn exists_one_with_one_variable_is_not_a_macro() {
    let src = "[1].existsOne(x, x == 1)";
    assert_eq!(
        compile_err(src),
        [
            "ERROR: <input>:1:14: undeclared reference to 'existsOne' (in container '')\n | [1].existsOne(x, x == 1)\n | .............^",
            "ERROR: <input>:1:15: undeclared reference to 'x' (in container '')\n | [1].existsOne(x, x == 1)\n | ..............^",
            "ERROR: <input>:1:18: undeclared reference to 'x' (in container '')\n | [1].existsOne(x, x == 1)\n | .................^",
        ]
        .join("\n")
    );
    // the spellings kube-apiserver has
    for src in [
        "[1].exists_one(x, x == 1)",
        "[1].existsOne(i, x, x == 1)",
        "[1].exists_one(i, x, x == 1)",
    ] {
        assert_eq!(eval(src), Ok(true), "{src}");
    }
}

/// kube-apiserver's base environment enables neither `ext.Bindings`, `ext.Protos`, `ext.Math` nor `ext.Encoders`, and
/// the strings extension at version 2: these are undeclared there, as cel-go reports it (each name where it is, the
/// call's name at its `(`, in the order of the source).
#[test]
fn libraries_kube_apiserver_does_not_enable() {
    assert_eq!(
        compile_err("math.greatest(1, 2) == 2"),
        [
            "ERROR: <input>:1:1: undeclared reference to 'math' (in container '')\n | math.greatest(1, 2) == 2\n | ^",
            "ERROR: <input>:1:14: undeclared reference to 'greatest' (in container '')\n | math.greatest(1, 2) == 2\n | .............^",
        ]
        .join("\n")
    );
    for (src, want) in [
        (
            "base64.decode('YQ==') == b'a'",
            "ERROR: <input>:1:1: undeclared reference to 'base64' (in container '')",
        ),
        (
            "cel.bind(x, 1, x == 1)",
            "ERROR: <input>:1:9: undeclared reference to 'bind' (in container '')",
        ),
        (
            "cel.block([1], cel.index(0)) == 1",
            "ERROR: <input>:1:10: undeclared reference to 'block' (in container '')",
        ),
        (
            "proto.getExt(object, a.b) == 1",
            "ERROR: <input>:1:1: undeclared reference to 'proto' (in container '')",
        ),
        (
            "'abc'.reverse() == 'cba'",
            "ERROR: <input>:1:14: found no matching overload for 'reverse' applied to 'string.()'",
        ),
        // cel-go's parser reads escaped identifiers only with `EnableIdentEscapeSyntax`, which kube-apiserver does not set
        (
            "object.a.`x-y` == 1",
            "ERROR: <input>:1:10: unsupported syntax: '`'",
        ),
        (
            "[1].map(__result__, 1)",
            "ERROR: <input>:1:9: iteration variable overwrites accumulator variable",
        ),
        (
            "[1].filter(a.b, true)",
            "ERROR: <input>:1:13: argument is not an identifier",
        ),
        ("as", "ERROR: <input>:1:1: reserved identifier: as"),
        (
            "'é'  == 1",
            "ERROR: <input>:1:6: found no matching overload for '_==_' applied to '(string, int)'\n | 'é'  == 1\n | .．．．．＾",
        ),
        (
            "{'a': 1} + {'b': 2} == {'a': 1, 'b': 2}",
            "ERROR: <input>:1:10: found no matching overload for '_+_' applied to '(map(string, int), map(string, int))'",
        ),
    ] {
        let e = compile_err(src);
        assert!(e.contains(want), "{src}: {e}");
    }
    // maps of `dyn` type-check, and have no `+` when evaluated
    assert_eq!(
        eval("object.a + object.b == {}"),
        Err("no such overload".to_owned())
    );
    // what they do have
    for src in [
        "[3, 1].reverse() == [1, 3]",
        "'%d'.format([1]) == '1' && ['a', 'b'].join('-') == 'a-b' && strings.quote('a') == '\"a\"'",
        "[1].all(i, v, i == 0) && {'a': 1}.exists(k, v, v == 1) && [1].existsOne(i, v, v == 1)",
        "[2, 1].sortBy(e, e) == [1, 2] && lists.range(2) == [0, 1] && [1, 2].first() == optional.of(1)",
        "optional.of(1).optMap(x, x + 1) == optional.of(2)",
    ] {
        assert_eq!(eval(src), Ok(true), "{src}");
    }
}

/// kube-apiserver's environment validates a checked expression's literals (`environment/base.go`:
/// `cel.HomogeneousAggregateLiterals()`, and since 1.29 `ValidateDurationLiterals`, `ValidateTimestampLiterals`,
/// `ValidateRegexLiterals`): the rows of cel-go's cel/validator_test.go `TestValidateDurationLiterals`,
/// `TestValidateTimestampLiterals`, `TestValidateRegexLiterals` and `TestValidateHomogeneousAggregateLiterals`, with
/// its variables `x` and `name` declared as strings.
#[test]
fn literals_are_validated_as_kube_apiserver_validates_them() {
    let env = Env::admission()
        .with_variable("x", palisade_cel::CelType::String)
        .with_variable("name", palisade_cel::CelType::String);
    let rows: &[(&str, Option<&str>)] = &[
        (
            "duration('1')",
            Some("ERROR: <input>:1:10: invalid duration argument\n | duration('1')\n | .........^"),
        ),
        (
            "duration('1d')",
            Some(
                "ERROR: <input>:1:10: invalid duration argument\n | duration('1d')\n | .........^",
            ),
        ),
        (
            "duration('1us')\n < duration('1nns')",
            Some(
                "ERROR: <input>:2:13: invalid duration argument\n |  < duration('1nns')\n | ............^",
            ),
        ),
        ("duration('2h3m4s5us')", None),
        ("duration(x)", None),
        (
            "timestamp('1000-00-00T00:00:00Z')",
            Some(
                "ERROR: <input>:1:11: invalid timestamp argument\n | timestamp('1000-00-00T00:00:00Z')\n | ..........^",
            ),
        ),
        // Go's time.Parse(RFC3339) reads no space for the `T` (chrono does)
        (
            "timestamp('2024-01-01 00:00:00Z')",
            Some(
                "ERROR: <input>:1:11: invalid timestamp argument\n | timestamp('2024-01-01 00:00:00Z')\n | ..........^",
            ),
        ),
        (
            "timestamp('1000-01-01T00:00:00ZZ')",
            Some(
                "ERROR: <input>:1:11: invalid timestamp argument\n | timestamp('1000-01-01T00:00:00ZZ')\n | ..........^",
            ),
        ),
        ("timestamp('1000-01-01T00:00:00Z')", None),
        ("timestamp(-6213559680)", None),
        (
            "timestamp(-62135596801)",
            Some(
                "ERROR: <input>:1:11: invalid timestamp argument\n | timestamp(-62135596801)\n | ..........^",
            ),
        ),
        ("timestamp(x)", None),
        ("'hello'.matches('el*')", None),
        (
            "'hello'.matches('x++')",
            Some(
                "ERROR: <input>:1:17: invalid matches argument\n | 'hello'.matches('x++')\n | ................^",
            ),
        ),
        (
            "'hello'.matches('(?<name%>el*)')",
            Some(
                "ERROR: <input>:1:17: invalid matches argument\n | 'hello'.matches('(?<name%>el*)')\n | ................^",
            ),
        ),
        (
            "'hello'.matches('??el*')",
            Some(
                "ERROR: <input>:1:17: invalid matches argument\n | 'hello'.matches('??el*')\n | ................^",
            ),
        ),
        ("'hello'.matches(x)", None),
        (
            "name in ['hello', 0]",
            Some(
                "ERROR: <input>:1:19: expected type 'string' but found 'int'\n | name in ['hello', 0]\n | ..................^",
            ),
        ),
        (
            "{'hello':'world', 1:'!'}",
            Some(
                "ERROR: <input>:1:19: expected type 'string' but found 'int'\n | {'hello':'world', 1:'!'}\n | ..................^",
            ),
        ),
        (
            "name in {'hello':'world', 'goodbye':true}",
            Some(
                "ERROR: <input>:1:37: expected type 'string' but found 'bool'\n | name in {'hello':'world', 'goodbye':true}\n | ....................................^",
            ),
        ),
        ("name in ['hello', 'world']", None),
        ("name in ['hello', ?optional.ofNonZeroValue('')]", None),
        (
            "name in [?optional.ofNonZeroValue(''), 'hello', ?optional.of('')]",
            None,
        ),
        ("name in {'hello': false, 'world': true}", None),
        (
            "{'hello': false, ?'world': optional.ofNonZeroValue(true)}",
            None,
        ),
        (
            "{?'hello': optional.ofNonZeroValue(false), 'world': true}",
            None,
        ),
        // Palisade's own rows: a `dyn` field beside a literal is a mismatch; a literal whose elements are typed only
        // by the others (`[]`) is not; a `format` call's arguments are exempt (the strings extension's validator);
        // `find` is not validated here (its literal fails when the program is built)
        (
            "object.kind in ['Pod', params.kind]",
            Some(
                "ERROR: <input>:1:30: expected type 'string' but found 'dyn'\n | object.kind in ['Pod', params.kind]\n | .............................^",
            ),
        ),
        // cel-java's CelValidatorHomogeneousLiteralsTest, the same validator: a call is placed at its `(`
        (
            "[1, 2, dyn(3)]",
            Some(
                "ERROR: <input>:1:11: expected type 'int' but found 'dyn'\n | [1, 2, dyn(3)]\n | ..........^",
            ),
        ),
        ("[[], [1]] == [[1]]", None),
        ("{'a': [], 'b': ['x']}.size() == 2", None),
        ("'%s: %d'.format(['a', 1]) == 'a: 1'", None),
        (
            "'a'.find('(') == ''",
            Some("program instantiation failed: error parsing regexp: missing closing ): `(`"),
        ),
    ];
    let mut wrong = Vec::new();
    for (src, want) in rows {
        let got = env
            .compile(src, Expect::Any)
            .map(|_| ())
            .map_err(|e| e.to_string());
        match (want, &got) {
            (None, Ok(())) => {}
            (Some(w), Err(e)) if e == w => {}
            _ => wrong.push(format!("{src}: want {want:?}, got {got:?}")),
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// kube-apiserver's parser (cel-go v0.27, Kubernetes 1.36) reads backticks with `EnableIdentEscapeSyntax` off: the
/// answers of cel-go v0.26.1's parser, so set, to `parser/parser_test.go`'s escaped-identifier inputs (npm
/// `@bufbuild/cel-spec` 0.6.1 `testdata/parsing.js` cases 168 to 176, as `cel_go_tables.rs` reads them), first line.
#[test]
fn escaped_identifiers_are_refused_as_cel_go_v0_27_refuses_them() {
    let env = Env::admission().with_dyn_variable("a");
    let refused = "unsupported syntax: '`'";
    let expressions = "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}";
    let rows = [
        ("a.`b-c`", format!("ERROR: <input>:1:3: {refused}")),
        ("a.`b c`", format!("ERROR: <input>:1:3: {refused}")),
        ("a.`b.c`", format!("ERROR: <input>:1:3: {refused}")),
        ("a.`in`", format!("ERROR: <input>:1:3: {refused}")),
        ("a.`/foo`", format!("ERROR: <input>:1:3: {refused}")),
        (
            "Message{`in`: true}",
            format!("ERROR: <input>:1:9: {refused}"),
        ),
        (
            "`b-c`",
            format!(
                "ERROR: <input>:1:1: Syntax error: mismatched input '`b-c`' expecting {expressions}"
            ),
        ),
        (
            "`b-c`()",
            format!(
                "ERROR: <input>:1:1: Syntax error: extraneous input '`b-c`' expecting {expressions}"
            ),
        ),
        (
            "a.`$b`",
            "ERROR: <input>:1:3: Syntax error: token recognition error at: '`$'".to_string(),
        ),
        ("a.`b.c`()", format!("ERROR: <input>:1:3: {refused}")),
    ];
    let mut wrong = Vec::new();
    for (src, want) in rows {
        let got = match env.compile(src, Expect::Any) {
            Ok(_) => "(compiled)".to_string(),
            Err(e) => e.to_string().lines().next().unwrap_or("").to_string(),
        };
        if got != want {
            wrong.push(format!("{src}: got {got}\n  want {want}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// cel-go v0.27 (Kubernetes 1.36) declares `duration(int)` (`int64_to_duration`, common/stdlib/standard.go) and fails
/// every call of it with `type conversion error from 'int' to 'google.protobuf.Duration'`; with a literal, kube-apiserver's
/// `ValidateDurationLiterals` evaluates the call when the policy compiles and refuses it. A field that holds an int
/// (`duration(object.a.x)`, a `timeoutSeconds` read as a duration) is an error when it runs, never a duration of
/// nanoseconds. (cel-go v0.28 dropped the overload: `certificate_request.rs`.)
#[test]
fn duration_of_an_int_fails_as_cel_go_v0_27_fails_it() {
    assert_eq!(
        compile_err("duration(1) == duration('1s')"),
        "ERROR: <input>:1:10: invalid duration argument\n | duration(1) == duration('1s')\n | .........^"
    );
    for src in [
        "duration(object.a.x) == duration('1ns')",
        "duration(dyn(1)) == duration('1ns')",
    ] {
        assert_eq!(
            eval(src),
            Err("type conversion error from 'int' to 'google.protobuf.Duration'".to_string()),
            "{src}"
        );
    }
}
