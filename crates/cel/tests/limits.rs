//! Hostile inputs: runaway comprehensions end with the cost error (or, where cel-go charges their iterations nothing,
//! with `operation interrupted`), deep nesting never overflows the stack.

#![allow(
    clippy::panic,
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "test helpers outside #[test] functions"
)]

use palisade_cel::{Activation, Budget, Env, Expect};

/// `src` evaluated in the standard environment, which has `cel.bind` (kube-apiserver's has no `ext.Bindings`, but its
/// `variables` share a value the same way) and the same evaluator, and its error.
fn eval_err(src: &str, budget: &mut Budget) -> String {
    let env = Env::standard();
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
fn loops_that_cost_nothing_are_interrupted() {
    // cel-go charges nothing for a `filter` that drops an element for a constant condition: 9,000,000 such
    // iterations cost about 15,000, far under the limit, and are stopped by the iteration bound instead
    let src = "cel.bind(l, lists.range(3000), l.all(i, l.filter(j, false) == []))";
    let mut b = Budget::kubernetes();
    let err = eval_err(src, &mut b);
    assert_eq!(err, "operation interrupted");
    assert!(b.last_call() < 100_000, "{}", b.last_call());
    // without the outer loop the same filter runs to its end: the range (3,000 + 11), `l` and the result (1 each),
    // 3,000 free iterations, and `==` with an empty list (ceil(0 × 0.1))
    let env = Env::standard();
    let prog = env
        .compile(
            "cel.bind(l, lists.range(3000), l.filter(j, false) == [])",
            Expect::Bool,
        )
        .unwrap();
    let mut b = Budget::kubernetes();
    assert!(prog.eval(&Activation::new(), &mut b).is_ok());
    assert_eq!(b.last_call(), 3000 + 11 + 1 + 1);
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
    // cel-go concatenates lists without copying (`AddList` costs 1), and so does the evaluator:
    // 24 doublings of 1,000 elements (16,777,216,000 of them) take no memory, and their size
    // is known at once
    let mut src = String::from("lists.range(1000)");
    for i in 0..24 {
        src = format!("cel.bind(v{i}, {src}, v{i} + v{i})");
    }
    let prog = Env::standard()
        .compile(&format!("size({src}) > 0"), Expect::Bool)
        .unwrap();
    let mut b = Budget::kubernetes();
    let v = prog.eval(&Activation::new(), &mut b).unwrap();
    assert_eq!(v.as_bool(), Some(true));
    // lists.range 1,000 elements and a new list, the call (1 + 10), each doubling 3 (two identifiers and `+`), size
    // and `>`
    assert_eq!(b.used(), 1000 + 11 + 24 * 3 + 1 + 1);
    // reading the elements is charged one by one
    let err = eval_err(
        &format!("{src}.exists(x, x < 0)"),
        &mut Budget::kubernetes(),
    );
    assert_eq!(err, "operation cancelled: actual cost limit exceeded");
    // a chain of more than 64 nested `+` is copied into one list, and the copy is charged
    let mut src = String::from("lists.range(10000)");
    for i in 0..70 {
        src = format!("{src} + [{i}]");
    }
    let src = format!("({src})");
    let prog = Env::admission()
        .compile(&format!("{src}[10069] == 69"), Expect::Bool)
        .unwrap();
    let mut b = Budget::kubernetes();
    let v = prog.eval(&Activation::new(), &mut b).unwrap();
    assert_eq!(v.as_bool(), Some(true));
    // lists.range (10,000 elements, the call and its list 11), 69 `+` at 1 (the `[i]` are folded constants), the
    // 65th copies 10,065 elements (1 + 10,065), the index and `==`
    assert_eq!(b.used(), 10_000 + 11 + 69 + (1 + 10_065) + 1 + 1);
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
    // kube-apiserver's `format` (cel-go's `formatting.go`) takes any precision: Palisade bounds it
    let src = "'%.100000000f'.format([1.0]) != ''";
    let prog = Env::admission()
        .compile(src, Expect::Bool)
        .expect("compiles");
    let err = prog
        .eval(&Activation::new(), &mut Budget::kubernetes())
        .expect_err("refused")
        .to_string();
    assert!(err.contains("too large"), "{err}");
    // `formatting_v2.go` takes at most 100, so a literal is refused when it compiles
    let err = match Env::standard().compile(src, Expect::Any) {
        Ok(_) => panic!("expected a compile error"),
        Err(e) => e.to_string(),
    };
    assert!(
        err.contains("precision 100000000 exceeds maximum allowed precision 100"),
        "{err}"
    );
}

#[test]
fn the_macro_accumulator_cannot_be_named_by_users() {
    let e = compile_err("lists.range(10).map(x, __result__)");
    assert!(e.contains("undeclared reference to '__result__'"), "{e}");
}

/// Deterministic mutation fuzzing: byte-level edits of realistic expressions must compile or
/// fail cleanly, and evaluate or fail cleanly, never panic.
#[test]
fn mutated_expressions_never_panic() {
    let seeds = [
        "object.spec.containers.all(c, c.image.startsWith('registry.example.com/'))",
        "!object.spec.containers.exists(c, has(c.securityContext) && c.securityContext.privileged)",
        "object.metadata.labels['team'] in ['a','b','c'] ? 1u + 2u : -3 % 2",
        "size(object.spec.containers) <= 5 && object.metadata.name.matches('^[a-z0-9-]+$')",
        "object.spec.?containers[?0].orValue({}).transformMap(k, v, v) == {'a': b'x', 1: 2.5e3}",
        "lists.range(5).map(i, i * 2).filter(y, y > 2).sum() == 18 && {1: 2}.transformMapEntry(k, v, {v: k}) == {2: 1}",
        "'%s %d %.3f %x'.format(['a', 1, 2.0, 255]) + string(timestamp('2024-01-01T00:00:00Z'))",
        "quantity('1Gi').add(2).isLessThan(quantity('2Gi')) || ip('::1').isLoopback()",
        "duration('1h2m') > duration('3s') && [1, 2u, 3.0].max() == 3",
        "object.spec.containers.exists_one(i, c, i == 0) && [1,2,3].all(x, y, x < y + 5)",
        r#"'日本'.size() == 2 && 'é'.matches('^\\w$') && r'\d'.charAt(1) == 'd' && '''ü'''.upperAscii() != """#,
    ];
    let charset: &[u8] = b"()[]{}.,?:!&|+-*/%<>=\"'\\ abcxyz019_@#$u";
    let env = Env::admission();
    let obj = serde_json::json!({"metadata": {"name": "x", "labels": {"team": "a"}},
        "spec": {"containers": [{"image": "registry.example.com/a", "securityContext": {"privileged": false}}]}});
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut compiled = 0;
    for round in 0..6000 {
        let seed = seeds[round % seeds.len()].as_bytes();
        let mut bytes = seed.to_vec();
        for _ in 0..(1 + next() % 4) {
            let pos = (next() as usize) % (bytes.len() + 1);
            match next() % 3 {
                0 if pos < bytes.len() => {
                    bytes.remove(pos);
                }
                1 => bytes.insert(pos, charset[(next() as usize) % charset.len()]),
                _ if pos < bytes.len() => bytes[pos] = charset[(next() as usize) % charset.len()],
                _ => {}
            }
        }
        let src = String::from_utf8_lossy(&bytes).into_owned();
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            if let Ok(p) = env.compile(&src, Expect::Any) {
                // an activation lives no longer than the programs it evaluates (values borrow their literals)
                let act = Activation::new().bind_json("object", Some(&obj));
                let _ = p.eval(&act, &mut Budget::kubernetes());
                true
            } else {
                false
            }
        }));
        match outcome {
            Ok(true) => compiled += 1,
            Ok(false) => {}
            Err(_) => panic!("panicked on {src:?}"),
        }
    }
    assert!(
        compiled > 300,
        "too few mutants compiled ({compiled}) to exercise the evaluator"
    );
}

/// A postfix chain (`x['a']['a']…`, 20,000 deep, inside the code point limit) parses into a tree
/// as deep as the chain: rejecting it must not recurse, not even to drop the tree, on a stack the
/// size of wasm's (1 MiB). Found through palisade.wasm, where it trapped `configure`.
#[test]
fn deep_postfix_chains_are_rejected_on_a_wasm_sized_stack() {
    on_a_wasm_sized_stack(|| {
        for chain in ["['a']", "[0]", ".a", "()"] {
            let repeat = 99_000 / chain.len();
            let src = format!("object{} == 1", chain.repeat(repeat));
            let err = compile_err(&src);
            assert!(
                err.contains("max recursion depth exceeded"),
                "{chain}: {err}"
            );
        }
    });
}

/// `f` on a thread with the stack a wasm guest has (rust-lld's 1 MiB): an overflow aborts the test run.
fn on_a_wasm_sized_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap();
}

/// Nesting the pre-parse bound cannot see, because the parser and the bound read the text differently: lines after a
/// comment holding `'''` (the bound knows no comments, and skips what follows as a triple-quoted string; the lexer
/// ends the comment at the line's end and reads on), and closing tokens of the wrong kind (the bound closes a bracket;
/// the parser deletes the token, as ANTLR's recovery does, and opens the next bracket inside). The parser bounds its
/// own depth, so each is refused on a stack the size of wasm's (1 MiB) instead of overflowing it (the `cel` fuzz
/// target's finding 7).
#[test]
fn nesting_the_pre_parse_bound_cannot_see_is_refused_on_a_wasm_sized_stack() {
    on_a_wasm_sized_stack(|| {
        let hidden = |open: &str, close: &str| {
            format!("// '''\n{}1{}", open.repeat(10_000), close.repeat(10_000))
        };
        let shapes = [
            hidden("[", "]"),
            hidden("(", ")"),
            hidden("{1: ", "}"),
            hidden("int(", ")"),
            hidden("x[", "]"),
            hidden("-[", "]"),
            format!("// '''\n{}c", "a ? b : ".repeat(12_000)),
            "[)\n".repeat(30_000),
            "[}\n".repeat(30_000),
            "{)\n".repeat(30_000),
            "{]\n".repeat(30_000),
        ];
        for src in shapes {
            let err = compile_err(&src);
            assert!(
                err.contains("max recursion depth exceeded"),
                "{}: {}",
                &src[..12],
                &err[..err.len().min(300)]
            );
        }
    });
}

/// The `cel` fuzz target's finding (`fuzz/corpus/cel/regress-type-parameter-chain-substitution`): the checker's
/// type-parameter bindings of this expression chain through one another, and substituting them into every type before
/// the unbound ones became `dyn` took exponential time, so compiling it never ended. It compiles to cel-go's first
/// issue at once.
#[test]
fn chained_type_parameters_are_finalized_at_once() {
    let src = "lists.range(range(14).sortBy(i, i == 5 ? 1 : 0).map(i, string(i)).join14).sos.range(range(14).sortBy(i, i == 5 ? 1 : 0).map(i, string(i)).join14).sortBy(i,object0 ? 1 : 0).map(i, stringsortBy(i, i ==i, string(i)).join(',')(i)).join(',')";
    for env in [
        Env::admission(),
        Env::standard(),
        Env::certificate_request(),
    ] {
        let e = env
            .compile(src, Expect::Any)
            .map(|_| ())
            .unwrap_err()
            .to_string();
        assert!(e.contains("undeclared reference to"), "{e}");
    }
}
