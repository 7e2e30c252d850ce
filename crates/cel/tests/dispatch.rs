//! Calls dispatch on the function resolved when the program is compiled: the receiver's kind
//! picks among a method's overloads (`dyn` operands), namespaced functions are told from methods
//! on a bound variable, and an undeclared function is `no such overload` in unchecked programs.

#![allow(clippy::unwrap_used, reason = "tests")]

use palisade_cel::{Activation, Budget, Env, Expect};
use serde_json::{Value, json};

fn eval(env: &Env, src: &str, checked: bool) -> Result<Value, String> {
    let prog = if checked {
        env.compile(src, Expect::Any)
    } else {
        env.compile_unchecked(src)
    }
    .map_err(|e| format!("compile: {e}"))?;
    let obj = json!({"s": "abc", "l": [3, 1, 2], "m": {"a": 1}});
    let act = Activation::new().bind_json("object", Some(&obj));
    prog.eval(&act, &mut Budget::unlimited())
        .map(|v| v.to_json().unwrap_or(Value::Null))
        .map_err(|e| e.to_string())
}

fn env() -> Env {
    Env::standard().with_dyn_variable("object")
}

#[test]
fn a_method_on_dyn_dispatches_on_the_receiver_kind() {
    for checked in [true, false] {
        for (src, want) in [
            ("object.s.size()", json!(3)),
            ("object.l.size()", json!(3)),
            ("object.m.size()", json!(1)),
            ("object.s.reverse()", json!("cba")),
            ("object.l.reverse()[0]", json!(2)),
            ("object.s.indexOf('c')", json!(2)),
            ("object.l.indexOf(2)", json!(2)),
        ] {
            assert_eq!(
                eval(&env(), src, checked).unwrap(),
                want,
                "{src} ({checked})"
            );
        }
    }
}

#[test]
fn a_method_without_an_overload_for_the_receiver_is_no_such_overload() {
    for src in [
        "object.m.reverse()",
        "object.s.sum()",
        "object.l.startsWith('a')",
    ] {
        let err = eval(&env(), src, true).unwrap_err();
        assert!(err.contains("no such overload"), "{src}: {err}");
    }
}

#[test]
fn namespaced_functions_and_methods_on_bound_names_in_unchecked_programs() {
    // `strings.quote` is the namespaced function unless `strings` is a comprehension variable
    let quoted = eval(&env(), "strings.quote('a')", false).unwrap();
    assert_eq!(quoted, json!("\"a\""));
    let bound = eval(&env(), "['abc'].all(strings, strings.size() == 3)", false).unwrap();
    assert_eq!(bound, json!(true));
    let math = eval(&env(), "math.greatest(1, 5, 3)", false).unwrap();
    assert_eq!(math, json!(5));
}

#[test]
fn undeclared_functions_are_no_such_overload_when_unchecked() {
    for src in [
        "nope(1)",
        "object.s.nope()",
        "math.nope(1.0)",
        "format.nope()",
    ] {
        let err = eval(&env(), src, false).unwrap_err();
        assert!(err.contains("no such overload"), "{src}: {err}");
    }
}
