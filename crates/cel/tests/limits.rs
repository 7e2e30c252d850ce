//! Hostile inputs: runaway comprehensions end with the cost error, deep nesting never
//! overflows the stack.

#![allow(
    clippy::panic,
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "test helpers outside #[test] functions"
)]

use palisade_cel::{Activation, Budget, Env, Expect};

fn eval_err(src: &str, budget: &mut Budget) -> String {
    let env = Env::admission();
    let prog = env.compile(src, Expect::Any).expect("compiles");
    let act = Activation::new();
    match prog.eval(&act, budget) {
        Ok(v) => panic!("expected an error, got {v}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn nested_range_comprehension_hits_per_call_limit() {
    // ferricel ran this for 3.9 s and 2.35 GB; it must stop at the per-call limit
    let src = "lists.range(2000).all(x, lists.range(2000).all(y, lists.range(2000).all(z, x + y + z >= 0)))";
    let mut b = Budget::kubernetes();
    let err = eval_err(src, &mut b);
    assert_eq!(err, "operation cancelled: actual cost limit exceeded");
    assert!(
        b.last_call() > 1_000_000 && b.last_call() < 1_100_000,
        "{}",
        b.last_call()
    );
}

#[test]
fn nested_literal_lists_hit_the_limit() {
    let src = "[1,2,3,4,5,6,7,8,9,10].map(a, [1,2,3,4,5,6,7,8,9,10].map(b, [1,2,3,4,5,6,7,8,9,10].map(c, [1,2,3,4,5,6,7,8,9,10].map(d, [1,2,3,4,5,6,7,8,9,10].map(e, [1,2,3,4,5,6,7,8,9,10].all(f, a + b + c + d + e + f > 0))))))";
    let err = eval_err(src, &mut Budget::kubernetes());
    assert_eq!(err, "operation cancelled: actual cost limit exceeded");
}

#[test]
fn shared_budget_runs_out_across_expressions() {
    let env = Env::admission();
    let prog = env
        .compile(
            "lists.range(300).all(x, lists.range(300).all(y, x + y >= 0))",
            Expect::Bool,
        )
        .unwrap();
    let act = Activation::new();
    let mut budget = Budget::new(1_000_000, 2_000_000);
    let mut last = None;
    for _ in 0..10 {
        match prog.eval(&act, &mut budget) {
            Ok(_) => {}
            Err(e) => {
                last = Some(e);
                break;
            }
        }
    }
    let e = last.expect("the total budget must run out");
    assert!(e.is_cost_exceeded() && e.is_out_of_budget());
    assert_eq!(
        e.to_string(),
        "validation failed due to running out of cost budget, no further validation rules will be run"
    );
}

fn compile_err(src: &str) -> String {
    match Env::admission().compile(src, Expect::Any) {
        Ok(_) => panic!("expected a compile error"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn ten_thousand_deep_parentheses_do_not_crash() {
    let src = format!("{}1{}", "(".repeat(10_000), ")".repeat(10_000));
    assert!(compile_err(&src).contains("max recursion depth exceeded"));
}

#[test]
fn ten_thousand_deep_lists_and_unaries_do_not_crash() {
    for src in [
        format!("{}1{}", "[".repeat(10_000), "]".repeat(10_000)),
        format!("{}1", "-".repeat(10_000)),
        format!("{}true", "!".repeat(10_000)),
        vec!["1"; 10_000].join(" + "),
        vec!["true"; 10_000].join(" && "),
        format!("x{}", ".a".repeat(10_000)),
        format!("{}1", "true ? 1 : ".repeat(5_000)),
        format!("{}1{}", "{'a': ".repeat(10_000), "}".repeat(10_000)),
    ] {
        let e = compile_err(&src);
        assert!(
            e.contains("max recursion depth exceeded"),
            "{}: {}",
            &src[..20],
            &e[..e.len().min(300)]
        );
    }
}

#[test]
fn nesting_just_below_the_bound_compiles_and_evaluates() {
    let env = Env::admission();
    for src in [
        format!("{}1{}", "(".repeat(40), ")".repeat(40)),
        format!("{}1{}", "[".repeat(40), "]".repeat(40)),
        vec!["1"; 150].join(" + "),
        vec!["true"; 150].join(" && "),
        format!("{}1", "-".repeat(100)),
    ] {
        let p = env
            .compile(&src, Expect::Any)
            .unwrap_or_else(|e| panic!("{e}"));
        p.eval(&Activation::new(), &mut Budget::kubernetes())
            .unwrap();
    }
}

#[test]
fn deep_json_data_is_evaluated_without_overflow() {
    // serde_json refuses nesting over 128 itself; build 120 levels and compare them deeply
    let mut v = serde_json::json!(1);
    for _ in 0..120 {
        v = serde_json::json!([v]);
    }
    let env = Env::admission();
    let prog = env.compile("object == oldObject && string(object) != ''", Expect::Bool);
    let prog = prog.unwrap();
    let act = Activation::new()
        .bind_json("object", Some(&v))
        .bind_json("oldObject", Some(&v));
    // string(list) has no overload: an error, not a crash
    let r = prog.eval(&act, &mut Budget::kubernetes());
    assert!(r.is_err());
    let eq = env.compile("object == oldObject", Expect::Bool).unwrap();
    assert_eq!(
        eq.eval(&act, &mut Budget::kubernetes()).unwrap().as_bool(),
        Some(true)
    );
}

/// The deepest input of each shape that the guard still accepts must compile and evaluate
/// on a test thread's stack (2 MiB, unoptimised build) without overflowing.
#[test]
fn deepest_accepted_inputs_do_not_overflow() {
    type Shape = fn(usize) -> String;
    let shapes: [(&str, Shape); 10] = [
        ("parens", |n| format!("{}1{}", "(".repeat(n), ")".repeat(n))),
        ("lists", |n| format!("{}1{}", "[".repeat(n), "]".repeat(n))),
        ("maps", |n| {
            format!("{}1{}", "{'a': ".repeat(n), "}".repeat(n))
        }),
        ("neg", |n| format!("{}1", "-".repeat(n))),
        ("not", |n| format!("{}true", "!".repeat(n))),
        ("add", |n| vec!["1"; n].join(" + ")),
        ("and", |n| vec!["true"; n].join(" && ")),
        ("ternary", |n| format!("{}1", "true ? 1 : ".repeat(n))),
        ("calls", |n| {
            format!("{}1{}", "int(".repeat(n), ")".repeat(n))
        }),
        ("paren-neg", |n| {
            format!("{}1{}", "(-".repeat(n), ")".repeat(n))
        }),
    ];
    let env = Env::admission();
    for (name, shape) in shapes {
        let mut n = 1;
        let mut last_ok = 0;
        while n < 20_000 {
            if env.compile(&shape(n), Expect::Any).is_err() {
                break;
            }
            last_ok = n;
            n += 1 + n / 8;
        }
        assert!(last_ok > 0, "{name}");
        if let Ok(p) = env.compile(&shape(last_ok), Expect::Any) {
            // evaluation may fail (depth, overloads) but must not crash
            let _ = p.eval(&Activation::new(), &mut Budget::kubernetes());
        }
        println!("{name}: deepest accepted {last_ok}");
    }
}

#[test]
fn doubling_lists_through_bindings_is_charged() {
    let mut src = String::from("lists.range(1000)");
    for i in 0..24 {
        src = format!("cel.bind(v{i}, {src}, v{i} + v{i})");
    }
    let src = format!("size({src}) > 0");
    let err = eval_err(&src, &mut Budget::kubernetes());
    assert_eq!(err, "operation cancelled: actual cost limit exceeded");
}

#[test]
fn joining_shared_strings_is_bounded() {
    let src = "cel.bind(s, lists.range(1000).map(i, 'xxxxxxxxxx').join(''), lists.range(100000).map(i, s).join('')).size() > 0";
    let err = eval_err(src, &mut Budget::kubernetes());
    assert!(
        err.contains("exceeds the limit") || err.contains("actual cost limit exceeded"),
        "{err}"
    );
    let src =
        "cel.bind(s, lists.range(1000).map(i, 'xxxxxxxxxx').join(''), s.replace('', s)).size() > 0";
    let err = eval_err(src, &mut Budget::kubernetes());
    assert!(err.contains("exceeds the limit"), "{err}");
    let src = "'%.100000000f'.format([1.0]) != ''";
    let err = eval_err(src, &mut Budget::kubernetes());
    assert!(err.contains("too large"), "{err}");
}

#[test]
fn the_macro_accumulator_cannot_be_named_by_users() {
    let e = compile_err("lists.range(10).map(x, __result__)");
    assert!(e.contains("undeclared reference to '__result__'"), "{e}");
}
