//! Operations on `null` (and other values that are neither maps nor lists), as cel-go's
//! interpreter does them: `params` is null in a ValidatingAdmissionPolicy without paramKind.

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    reason = "test helpers outside #[test] functions"
)]

use palisade_cel::{Activation, Budget, Env, Expect};

/// Evaluates `src` in the admission environment with `params` bound to null; the result as
/// text (`Ok` of the value's CEL rendering, `Err` of the error message).
fn eval(src: &str) -> Result<String, String> {
    let prog = Env::admission()
        .compile(src, Expect::Any)
        .map_err(|e| format!("compile: {e}"))?;
    let object = serde_json::json!({"spec": {"n": 1, "s": "x"}});
    let act = Activation::new()
        .bind_json("params", None)
        .bind_json("object", Some(&object));
    prog.eval(&act, &mut Budget::kubernetes())
        .map(|v| v.to_string())
        .map_err(|e| e.to_string())
}

fn ok(src: &str) -> String {
    eval(src).unwrap_or_else(|e| format!("error: {e}"))
}

fn err(src: &str) -> String {
    match eval(src) {
        Ok(v) => format!("unexpected value {v}"),
        Err(e) => e,
    }
}

// upstream: kubernetes test/integration/apiserver/cel/validatingadmissionpolicy_test.go
// Test_ValidateNamespace_NoParams ("params.metadata" with no params: `no such key: metadata`)
// and Test_ValidateAnnotationsAndWarnings (`has(params.metadata)` is false without params)
#[test]
fn select_and_presence_on_null_params() {
    assert_eq!(err("params.metadata.name == 'x'"), "no such key: metadata");
    assert_eq!(ok("has(params.metadata)"), "false");
    assert_eq!(
        ok("!has(params.metadata) || params.metadata.name == 'x'"),
        "true"
    );
    assert_eq!(
        ok("has(params.metadata.name)"),
        "error: no such key: metadata"
    );
}

// upstream: cel-go interpreter/attributes.go refQualify (default case: missingKey, or absent
// for a presence test) and interpreter/attributes_test.go (qualifying non-containers)
#[test]
fn index_and_optional_on_null() {
    assert_eq!(err("params['a']"), "no such key: a");
    assert_eq!(err("params[0]"), "no such key: 0");
    assert_eq!(err("params[1u]"), "no such key: 1");
    assert_eq!(err("params[true]"), "no such key: true");
    assert_eq!(err("params[2.0]"), "no such key: 2");
    assert_eq!(ok("params.?a.hasValue()"), "false");
    assert_eq!(ok("params[?'a'].hasValue()"), "false");
    assert_eq!(ok("params.?a.orValue('d')"), "\"d\"");
    // the same on other scalars
    assert_eq!(err("object.spec.n.x"), "no such key: x");
    assert_eq!(ok("has(object.spec.s.x)"), "false");
    assert_eq!(err("object.spec.s['x']"), "no such key: x");
}

// upstream: cel-go common/types/null.go (Equal: only null equals null; ConvertToType: string
// and type), common/types/list.go IndexOrError, and the standard library's overloads
// (`in`, `size` and ordering have none for null)
#[test]
fn other_operations_on_null() {
    assert_eq!(ok("params == null"), "true");
    assert_eq!(ok("params != null"), "false");
    assert_eq!(ok("params == {}"), "false");
    assert_eq!(ok("params == 0"), "false");
    assert_eq!(ok("null in [dyn(1), dyn(null)]"), "true");
    assert_eq!(ok("string(params)"), "\"null\"");
    assert_eq!(ok("type(params) == null_type"), "true");
    assert_eq!(err("'a' in params"), "no such overload");
    assert_eq!(err("size(params)"), "no such overload");
    assert_eq!(err("params < 1"), "no such overload");
    assert_eq!(err("int(params)"), "no such overload");
    assert_eq!(
        err("[1][params]"),
        "unsupported index type 'null_type' in list"
    );
    assert_eq!(
        err("[1][dyn('a')]"),
        "unsupported index type 'string' in list"
    );
    assert_eq!(err("dyn([1]).a"), "unsupported index type 'string' in list");
}

// upstream: cel-go cel/cel_test.go TestEnableErrorOnBadPresenceTest (with the option on, a
// presence test on a non-map is an error; Kubernetes leaves it off)
#[test]
fn error_on_bad_presence_test_option() {
    let strict = Env::standard().with_error_on_bad_presence_test();
    let lax = Env::standard();
    let run = |env: &Env, src: &str| {
        env.compile(src, Expect::Any)
            .unwrap()
            .eval(&Activation::new(), &mut Budget::kubernetes())
            .map(|v| v.to_string())
            .map_err(|e| e.to_string())
    };
    let cases = [
        (
            "{'null_field': dyn(null)}.?null_field.?nested",
            "no such key: nested",
        ),
        (
            "{'zero_field': dyn(0)}.?zero_field.?invalid",
            "no such key: invalid",
        ),
        ("{0: dyn(0)}[?0].?invalid", "no such key: invalid"),
        ("{true: dyn(0)}[?true].?invalid", "no such key: invalid"),
    ];
    for (src, want) in cases {
        assert_eq!(run(&strict, src), Err(want.to_string()), "{src}");
        assert_eq!(run(&lax, src), Ok("optional.none()".to_string()), "{src}");
    }
    assert_eq!(
        run(&strict, "{}.?invalid"),
        Ok("optional.none()".to_string())
    );
    assert_eq!(
        run(&strict, "{true: dyn(0)}[?false].?invalid"),
        Ok("optional.none()".to_string())
    );
    assert_eq!(
        run(&strict, "has(dyn(1).a)"),
        Err("no such key: a".to_string())
    );
    assert_eq!(run(&lax, "has(dyn(1).a)"), Ok("false".to_string()));
}
