//! Operators and overloaded functions whose arguments are all `dyn`: cel-go's checker types the
//! call `dyn` when the matching overloads disagree on the result type (checker.go
//! `resolveOverload`), and the runtime picks the overload. A checker that kept one overload's
//! result type rejected valid policies (`(map(dyn, dyn), string)` for `a + b == 'ab'`).

#![allow(
    clippy::panic,
    clippy::expect_used,
    clippy::unwrap_used,
    reason = "test helpers outside #[test] functions"
)]

use palisade_cel::{Activation, Budget, CelType, Env, Expect};
use serde_json::json;

fn object() -> serde_json::Value {
    json!({
        "metadata": {"name": "a", "namespace": "b"},
        "spec": {"a": 3, "b": 3, "zero": 0, "d": 1.5, "l": [1], "s": "x", "t": "2024-01-01T00:00:00Z"}
    })
}

/// Compiles `src` as a validation (exactly `bool`) in the admission environment and
/// evaluates it against [`object`].
fn validate(src: &str) -> Result<bool, String> {
    let prog = Env::admission()
        .compile(src, Expect::Bool)
        .map_err(|e| format!("compile: {e}"))?;
    let obj = object();
    let act = Activation::new()
        .bind_json("object", Some(&obj))
        .bind_json("oldObject", None);
    let v = prog
        .eval(&act, &mut Budget::kubernetes())
        .map_err(|e| e.to_string())?;
    v.as_bool().ok_or_else(|| format!("not a bool: {v}"))
}

fn result_type(src: &str) -> CelType {
    Env::admission()
        .compile(src, Expect::Any)
        .map(|p| p.result_type().clone())
        .unwrap_or_else(|e| panic!("{src}: {e}"))
}

// The three expressions of the issue "Fidelity, round 2", and more of the same shape.
#[test]
fn dyn_operands_compile_and_evaluate() {
    let cases = [
        (
            "object.metadata.name + object.metadata.namespace == 'ab'",
            true,
        ),
        ("object.spec.a - object.spec.b == 0", true),
        ("object.spec.a * object.spec.zero == 0", true),
        ("object.spec.a * object.spec.b == 9", true),
        ("object.spec.a / object.spec.b == 1", true),
        ("object.spec.a % object.spec.b == 0", true),
        ("object.spec.a + object.spec.b == 7", false),
        ("object.spec.d + object.spec.d == 3.0", true),
        ("object.spec.l + object.spec.l == [1, 1]", true),
        ("-object.spec.a == -3", true),
        ("object.spec.l.max() == 1", true),
        ("object.spec.l.sum() == 1", true),
        (
            "object.spec.a < object.spec.b || object.spec.a >= object.spec.b",
            true,
        ),
        (
            "timestamp(object.spec.t) - timestamp(object.spec.t) == duration('0s')",
            true,
        ),
        ("size(object.spec.l) == 1 && size(object.spec.s) == 1", true),
    ];
    for (src, want) in cases {
        assert_eq!(validate(src), Ok(want), "{src}");
    }
    // the runtime still rejects operands that have no overload together
    assert_eq!(
        validate("object.spec.a + object.spec.s == 'x'"),
        Err("no such overload".to_string())
    );
}

// upstream: cel-go checker/checker_test.go (`x.single_value[23] + x.single_struct['y']` is
// `dyn` with every `_+_` overload) and checker.go resolveOverload
#[test]
fn dyn_operands_give_dyn() {
    for src in [
        "object.spec.a + object.spec.b",
        "object.spec.a - object.spec.b",
        "object.spec.a * object.spec.b",
        "object.spec.a / object.spec.b",
        "object.spec.a % object.spec.b",
        "-object.spec.a",
        "object.spec.l[0] + object.spec.l[0]",
        "object.spec.l.max()",
        "object.spec.l.sum()",
    ] {
        assert_eq!(result_type(src), CelType::Dyn, "{src}");
    }
    // overloads that agree keep their type
    assert_eq!(result_type("object.spec.a < object.spec.b"), CelType::Bool);
    assert_eq!(result_type("size(object.spec.l)"), CelType::Int);
    assert_eq!(result_type("object.spec.a == object.spec.b"), CelType::Bool);
    // one typed operand still selects its overloads
    assert_eq!(result_type("object.spec.a + 1"), CelType::Int);
    assert_eq!(result_type("'a' + object.spec.s"), CelType::String);
    assert_eq!(result_type("1.0 * object.spec.d"), CelType::Double);
}
