//! Runtime cost as kube-apiserver charges it: cel-go's tracker (interpreter/runtimecost.go), the
//! Kubernetes library costs (k8s.io/apiserver/pkg/cel/library/cost.go) and the constant folding
//! kube-apiserver turns on with `cel.EvalOptions(cel.OptOptimize, …)` (cel-go
//! interpreter/decorators.go `decOptimize`): constant list and map literals are built once when
//! the program is made and then cost nothing, like any constant.
//!
//! Figures are upstream's. cel-go's `TestRuntimeCost` and Kubernetes' `TestStringLibrary` run
//! without `OptOptimize`, so a row with a constant list or map literal is upstream's figure less
//! the literal's creation (`ListCreateBaseCost` 10, `MapCreateBaseCost` 30), which a folded
//! literal does not pay.

#![allow(
    clippy::panic,
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "test helpers outside #[test] functions"
)]

use std::rc::Rc;
use std::sync::Arc;

use palisade_cel::{Activation, Budget, Env, Expect, List, Map, Program, Value};

fn env() -> Env {
    Env::standard()
        .with_dyn_variable("input")
        .with_dyn_variable("arg1")
        .with_dyn_variable("str1")
        .with_dyn_variable("str2")
        .with_dyn_variable("list1")
        .with_dyn_variable("list2")
}

fn compile(src: &str) -> Program {
    env()
        .compile(src, Expect::Any)
        .unwrap_or_else(|e| panic!("{src}: {e}"))
}

fn cost_with(src: &str, vars: &[(&str, Value<'static>)]) -> u64 {
    let p = compile(src);
    let mut act = Activation::new();
    for (name, v) in vars {
        act = act.bind(name, v.clone());
    }
    let mut b = Budget::kubernetes();
    p.eval(&act, &mut b)
        .unwrap_or_else(|e| panic!("{src}: {e}"));
    b.used()
}

fn cost(src: &str) -> u64 {
    cost_with(src, &[])
}

fn s(n: usize) -> Value<'static> {
    Value::string("x".repeat(n))
}

/// cel-go interpreter/runtimecost_test.go `TestRuntimeCost`.
#[test]
fn cel_go_runtime_cost_rows() {
    // "const"
    assert_eq!(cost(r#""Hello World!""#), 0);
    // "create list" (10 without folding), "create map" (30)
    assert_eq!(cost("[1, 2, 3]"), 10 - 10);
    assert_eq!(cost(r#"{"a": 1, "b": 2, "c": 3}"#), 30 - 30);
    // "all comprehension on literal" (20)
    assert_eq!(cost("[1, 2, 3].all(x, true)"), 20 - 10);
    // "list map literal" (77: a list of two maps)
    assert_eq!(
        cost("[{'k1': 1}, {'k2': 2}].all(x, true)"),
        77 - 10 - 2 * 30
    );
    // "in" (13): a constant list of primitives is a set; the lookup is not a call
    assert_eq!(cost("2 in [1, 2, 3]"), 13 - 13);
    // "lt", "eq", "plus", "ternary", "or", "and"
    assert_eq!(cost("1 < 2"), 1);
    assert_eq!(cost("1 == 2"), 1);
    assert_eq!(cost("1 + 1"), 1);
    assert_eq!(cost("true ? 1 : 2"), 0);
    assert_eq!(cost("false || false"), 0);
    assert_eq!(cost("true && false"), 0);
    // "string size", "str eq str", "int to string conversion"
    assert_eq!(cost(r#"size("123")"#), 1);
    assert_eq!(
        cost("'12345678901234567890' == '123456789012345678901234567890'"),
        2
    );
    // (a conversion of a constant is folded: `maybeOptimizeConstUnary`)
    assert_eq!(cost("string(1)"), 1 - 1);
    assert_eq!(
        cost_with("string(input)", &[("input", Value::Int(1))]),
        1 + 1
    );
    // "bytes to string conversion", "string to bytes conversion"
    let bytes = Value::Bytes(Rc::from(vec![b'a'; 500]));
    assert_eq!(cost_with("string(input)", &[("input", bytes)]), 51);
    assert_eq!(cost_with("bytes(input)", &[("input", s(500))]), 51);
    // "contains", "matches", "startsWith", "endsWith"
    assert_eq!(
        cost_with(
            "input.contains(arg1)",
            &[("input", s(500)), ("arg1", s(500))]
        ),
        2502
    );
    assert_eq!(
        cost_with(r"input.matches('\\d+a\\d+b')", &[("input", s(500))]),
        103
    );
    for src in ["input.startsWith(arg1)", "input.endsWith(arg1)"] {
        assert_eq!(
            cost_with(src, &[("input", Value::string("idc")), ("arg1", s(500))]),
            3,
            "{src}"
        );
    }
    // "size receiver", "size"
    assert_eq!(cost_with("input.size()", &[("input", s(3))]), 2);
    assert_eq!(cost_with("size(input)", &[("input", s(3))]), 2);
    // "str concat": `AddString` is ceil((4 + 10) * 0.1)
    let vars = [
        ("str1", Value::string("val1")),
        ("str2", Value::string("val2222222")),
    ];
    assert_eq!(cost_with(r#""abcdefg".contains(str1 + str2)"#, &vars), 6);
    // "list concat": `AddList` is O(1)
    let empty = [
        ("list1", Value::list(vec![])),
        ("list2", Value::list(vec![])),
    ];
    assert_eq!(cost_with("(list1 + list2).all(x, true)", &empty), 4);
}

/// `AddList` costs 1 because neither side is copied (cel-go's `concatList`); the elements are
/// read through, and charged when a comprehension reads them.
#[test]
fn list_concatenation_shares_both_sides() {
    let big = Value::list((0..100_000).map(Value::Int).collect());
    let act = Activation::new().bind("list1", big);
    let p = compile("list1 + list1 + [1]");
    let mut b = Budget::kubernetes();
    let v = p.eval(&act, &mut b).unwrap();
    assert!(matches!(v, Value::List(List::Concat(_))), "not copied");
    assert_eq!(b.used(), 2 + 1 + 1);
    let Value::List(l) = &v else { panic!("a list") };
    assert_eq!(l.len(), 200_001);
    assert!(matches!(l.get(150_000), Some(Value::Int(50_000))));
    assert!(matches!(l.get(200_000), Some(Value::Int(1))));
    assert_eq!(
        cost_with(
            "(list1 + list2)[2] == 3 && (list1 + list2).size() == 4",
            &[
                ("list1", Value::list(vec![Value::Int(1), Value::Int(2)])),
                ("list2", Value::list(vec![Value::Int(3), Value::Int(4)])),
            ]
        ),
        // two identifiers, `+`, the index, `==`; again, size(), `==`
        3 + 1 + 1 + 3 + 1 + 1
    );
}

/// k8s.io/apiserver/pkg/cel/library/cost_test.go `TestStringLibrary` (runtime costs).
#[test]
fn kubernetes_string_library_rows() {
    assert_eq!(cost("'ABCDEFGHIJ abcdefghij'.lowerAscii()"), 3);
    assert_eq!(
        cost("'ABCDEFGHIJ abcdefghij'.lowerAscii() == 'abcdefghij ABCDEFGHIJ'.lowerAscii()"),
        9
    );
    assert_eq!(cost("'ABCDEFGHIJ abcdefghij'.upperAscii()"), 3);
    assert_eq!(cost("strings.quote('ABCDEFGHIJ abcdefghij')"), 3);
    assert_eq!(cost("'abc 123 def 123'.replace('123', '456')"), 3);
    assert_eq!(cost("'abc 123 def 123'.replace('', 'x')"), 3);
    assert_eq!(cost("'abc 123 def 123'.replace('123', '')"), 3);
    assert_eq!(cost("'abc 123 def 123'.replace('123', '456', 1)"), 3);
    assert_eq!(cost("'abc 123 def 123'.split(' ')"), 3);
    assert_eq!(cost("'abc 123 def 123'.split(' ', 1)"), 3);
    assert_eq!(cost("'abc 123 def 123'.substring(5)"), 2);
    assert_eq!(cost("'abc 123 def 123'.substring(5, 8)"), 2);
    assert_eq!(cost("'  abc 123 def 123  '.trim()"), 2);
    // "join with separator" (15), "join" (13): the list literal (10) is folded
    assert_eq!(
        cost("['aa', 'bb', 'cc', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].join(' ')"),
        15 - 10
    );
    assert_eq!(
        cost("['aa', 'bb', 'cc', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].join()"),
        13 - 10
    );
}

/// library/cost.go charges `join` ceil(size(result) * 0.2): the size is known from the parts, so
/// a result over the per-call limit is never built.
#[test]
fn join_is_charged_from_the_size_of_its_result_before_it_is_built() {
    // 12 * 512,000 characters + 11 separators: ceil(6,144,011 * 0.2) = 1,228,803
    let part = Value::string("a".repeat(512_000));
    let src = format!("[{}].join('x')", ["input"; 12].join(", "));
    let p = compile(&src);
    let act = Activation::new().bind("input", part.clone());
    let mut b = Budget::kubernetes();
    let err = p.eval(&act, &mut b).unwrap_err();
    assert_eq!(
        err.to_string(),
        "operation cancelled: actual cost limit exceeded"
    );
    // 12 identifiers, the list (10), then the join
    assert_eq!(b.last_call(), 12 + 10 + 1_228_803);
    // under the limit: 2 * 512,000 + 1 characters
    let p = compile("[input, input].join('x').size()");
    let mut b = Budget::kubernetes();
    let v = p.eval(&act, &mut b).unwrap();
    assert!(matches!(v, Value::Int(1_024_001)), "{v}");
    assert_eq!(b.used(), 2 + 10 + 204_801 + 1);
}

fn const_list(v: &Value<'_>) -> Arc<[palisade_cel::Const]> {
    match v {
        Value::List(List::Const(l)) => Arc::clone(l),
        other => panic!("expected a folded constant list, got {other}"),
    }
}

/// A folded literal is built once, when the program is compiled: every evaluation (on any
/// thread) and every step of a loop reads the very same value.
#[test]
fn a_folded_literal_is_built_once_per_program() {
    let p = compile("[1, 2, [3, 4], {'a': ['b']}]");
    let act = Activation::new();
    let first = const_list(&p.eval(&act, &mut Budget::kubernetes()).unwrap());
    let second = const_list(&p.eval(&act, &mut Budget::kubernetes()).unwrap());
    assert!(Arc::ptr_eq(&first, &second));
    let q = p.clone();
    let addr = std::thread::spawn(move || {
        let v = q
            .eval(&Activation::new(), &mut Budget::kubernetes())
            .unwrap();
        Arc::as_ptr(&const_list(&v)).cast::<u8>() as usize
    })
    .join()
    .unwrap();
    assert_eq!(addr, Arc::as_ptr(&first).cast::<u8>() as usize);

    // inside a loop: each step's element is the same list, nothing is rebuilt
    let p = compile("[0, 1, 2, 3].map(i, ['x', 'y'])");
    let v = p.eval(&act, &mut Budget::kubernetes()).unwrap();
    let Value::List(out) = v else {
        panic!("a list")
    };
    let items: Vec<_> = out.iter().map(|x| const_list(&x)).collect();
    assert_eq!(items.len(), 4);
    assert!(items.iter().all(|x| Arc::ptr_eq(x, &items[0])));

    // maps fold too, nested literals included
    let p = compile("{'a': [1, 2], 'b': {'c': 3}}");
    let v = p.eval(&act, &mut Budget::kubernetes()).unwrap();
    assert!(matches!(v, Value::Map(Map::Const(_))), "{v}");
    assert_eq!(cost("{'a': [1, 2], 'b': {'c': 3}}['b']['c']"), 2);
}

/// A type conversion of a constant is done once, when the program is compiled (cel-go
/// `maybeOptimizeConstUnary`), and costs nothing; one that fails still fails when evaluated.
#[test]
fn conversions_of_constants_are_folded() {
    assert_eq!(cost("duration('1h') > duration('1m')"), 1);
    assert_eq!(
        cost("timestamp('2024-01-01T00:00:00Z').getFullYear() == 2024"),
        1 + 1
    );
    assert_eq!(cost("[int('1'), double(2), dyn(3u)][0] == 1"), 1 + 1);
    let folded = compile("[string(b'abc'), bytes('x'), bool('true'), uint(7)]");
    let v = folded
        .eval(&Activation::new(), &mut Budget::kubernetes())
        .unwrap();
    assert!(matches!(v, Value::List(List::Const(_))), "{v}");
    assert_eq!(v.to_string(), r#"["abc", b"x", true, 7u]"#);
    let err = compile("int('abc') == 1")
        .eval(&Activation::new(), &mut Budget::kubernetes())
        .unwrap_err();
    // cel-go's words (common/types/string.go `ConvertToType`), which do not repeat the text
    assert_eq!(
        err.to_string(),
        "type conversion error from 'string' to 'int'"
    );
}

/// Literals with a non-constant element (or an optional one) are built on every evaluation and
/// charged, as cel-go's evalList/evalMap are.
#[test]
fn literals_that_are_not_constant_are_built_and_charged() {
    let p = compile("[input, 2]");
    let act = Activation::new().bind("input", Value::Int(1));
    let v = p.eval(&act, &mut Budget::kubernetes()).unwrap();
    assert!(matches!(v, Value::List(List::Owned(_))), "{v}");
    assert_eq!(cost_with("[input, 2]", &[("input", Value::Int(1))]), 1 + 10);
    assert_eq!(
        cost_with("{'a': input}", &[("input", Value::Int(1))]),
        1 + 30
    );
    // an outer list with a non-constant element still reuses its constant inner lists
    assert_eq!(
        cost_with("[[1, 2], input]", &[("input", Value::Int(1))]),
        1 + 10
    );
    // a repeated key is still the evaluation's error
    let p = compile("{'a': 1, 'a': 2}");
    let err = p
        .eval(&Activation::new(), &mut Budget::kubernetes())
        .unwrap_err();
    assert_eq!(err.to_string(), "Failed with repeated key: a");
}

/// `x in <constant list>` (cel-go `maybeOptimizeSetMembership`): heterogeneous numbers as CEL
/// compares them, free, and a hash lookup however long the list.
#[test]
fn membership_in_a_constant_list_is_a_set_lookup() {
    for (src, want) in [
        ("2 in [1, 2, 3]", true),
        ("4 in [1, 2, 3]", false),
        ("2u in [1, 2, 3]", true),
        ("2.0 in [1, 2, 3]", true),
        ("2.5 in [1, 2.5]", true),
        ("'b' in ['a', 'b']", true),
        ("'c' in ['a', 'b']", false),
        ("1 in []", false),
        ("true in [false]", false),
    ] {
        let p = env().compile_unchecked(src).unwrap();
        let v = p
            .eval(&Activation::new(), &mut Budget::kubernetes())
            .unwrap_or_else(|e| panic!("{src}: {e}"));
        assert_eq!(v.as_bool(), Some(want), "{src}");
    }
    let big = format!(
        "[{}]",
        (0..5000)
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(",")
    );
    assert_eq!(
        cost_with(&format!("input in {big}"), &[("input", Value::Int(4999))]),
        1
    );
    // a list that is not constant is O(n) and charged its size
    assert_eq!(
        cost_with("2 in [1, 2, input]", &[("input", Value::Int(3))]),
        1 + 10 + 3
    );
}

/// The fuzzer's runaway: a constant 2,000-item literal inside six nested comprehensions. Folded,
/// the 10^6 innermost steps reach the per-call limit without building anything.
#[test]
fn a_literal_in_nested_loops_is_stopped_by_the_limit() {
    let ten = "[0,1,2,3,4,5,6,7,8,9]";
    let big = format!("[{}]", ["1"; 2000].join(","));
    let mut src = format!("{big}.size() > 0");
    for v in ["f", "e", "d", "c", "b", "a"] {
        src = format!("{ten}.all({v}, {src})");
    }
    let p = compile(&src);
    let mut b = Budget::kubernetes();
    let err = p.eval(&Activation::new(), &mut b).unwrap_err();
    assert_eq!(
        err.to_string(),
        "operation cancelled: actual cost limit exceeded"
    );
    assert!(b.last_call() <= 1_000_010, "{}", b.last_call());
}

/// `size()` and every size-based charge are O(1): a long string is measured once per
/// evaluation, so a loop over it costs what cel-go charges, not a traversal per step.
#[test]
fn sizes_of_long_strings_are_measured_once() {
    let long = Value::string("é".repeat(1_000_000));
    let act = Activation::new().bind("input", long);
    let p = compile(
        "[0,1,2,3,4,5,6,7,8,9].all(a, [0,1,2,3,4,5,6,7,8,9].all(b, [0,1,2,3,4,5,6,7,8,9].all(c, size(input) == 1000000 && input.size() > 0)))",
    );
    let mut b = Budget::kubernetes();
    let v = p.eval(&act, &mut b).unwrap();
    assert_eq!(v.as_bool(), Some(true));
    // the same string compared with itself is not read either
    let p = compile("input == input");
    let mut b = Budget::kubernetes();
    assert_eq!(p.eval(&act, &mut b).unwrap().as_bool(), Some(true));
    // `Equals`: ceil(min(size) * 0.1), two identifiers
    assert_eq!(b.used(), 2 + 100_000);
}

/// An output that outgrows its input is charged for the excess (Palisade's guard beyond
/// upstream's two traversals), before it is built.
#[test]
fn a_replacement_that_multiplies_the_input_is_charged_for_its_size() {
    let act = Activation::new().bind("input", Value::string("y".repeat(100_000)));
    let p = compile("'aaaaaaaaaa'.replace('', input)");
    let mut b = Budget::kubernetes();
    p.eval(&act, &mut b).unwrap();
    // upstream's ceil(10 * 0.2) = 2, the identifier, and ceil((1,100,010 - 40) * 0.1)
    assert_eq!(b.used(), 2 + 1 + 109_997);
}

/// `Program::cost_bound`: what a simple expression can cost at most, over the size of the request objects' tape, holds
/// against what the evaluator charges, on small and large documents (long strings, escapes, many entries), whether the
/// expression succeeds or fails.
#[test]
fn message_cost_bounds_hold_against_the_charges() {
    let env = Env::admission();
    let sources = [
        "'unknown team ' + object.metadata.labels['team']",
        "object.metadata.name + '/' + object.metadata.name + '/' + object.metadata.namespace",
        "object.spec.containers + object.spec.containers == object.spec.containers ? 'same' : 'different'",
        "object.metadata.labels + object.metadata.labels == object.metadata.labels ? 'a' : 'b'",
        "object.metadata.name in object.spec.names ? object.metadata.name : 'x' + object.metadata.missing",
        "!(object.metadata.name < 'm') ? object.metadata.name : oldObject.metadata.name",
        "(object.spec.replicas + 1 - oldObject.spec.replicas) * 2 > 3 ? 'grew' : 'same'",
        "object.metadata.name == oldObject.metadata.name && object.spec != oldObject.spec ? 'a' : 'b'",
        "'static'",
    ];
    let long = "x".repeat(50_000);
    let names: Vec<String> = (0..2_000).map(|i| format!("n{i}")).collect();
    let docs = [
        serde_json::json!({"metadata": {"name": "web", "namespace": "prod", "labels": {"team": "a"}},
                           "spec": {"replicas": 3, "containers": [{"image": "i"}], "names": ["web"]}}),
        serde_json::json!({"metadata": {"name": long, "namespace": "\u{e9}\\\"\u{1F600}", "labels": {"team": long}},
                           "spec": {"replicas": 1, "containers": names, "names": names}}),
        serde_json::json!({"metadata": {}}),
    ];
    for source in sources {
        let program = env
            .compile(source, Expect::Any)
            .unwrap_or_else(|e| panic!("{source}: {e}"));
        let bound = program
            .cost_bound(&["object", "oldObject"])
            .unwrap_or_else(|| panic!("{source}: no bound"));
        for doc in &docs {
            let text = serde_json::to_string_pretty(doc).unwrap();
            let object = palisade_json::Doc::parse(&text).unwrap();
            let old = palisade_json::Doc::parse(&text).unwrap();
            let act = Activation::new()
                .bind_doc("object", Some(&object))
                .bind_doc("oldObject", Some(&old));
            let mut budget = Budget::unlimited();
            let _ = program.eval(&act, &mut budget);
            let size = object.size_bound() + old.size_bound();
            assert!(
                budget.used() <= bound.at(size),
                "{source}: charged {} over the bound {} (size {size})",
                budget.used(),
                bound.at(size)
            );
        }
    }
}

/// What `Program::cost_bound` does not bound: calls, comprehensions, literals of lists and maps, optional selections,
/// presence tests, and names other than the sized ones (a composited variable costs what its own expression costs).
#[test]
fn only_simple_expressions_have_a_cost_bound() {
    let env = Env::admission();
    for source in [
        "object.metadata.name.lowerAscii()",
        "string(object.spec.replicas)",
        "object.spec.containers.map(c, c.image).join(',')",
        "object.spec.containers.all(c, true) ? 'a' : 'b'",
        "['a', 'b'][0]",
        "{'a': 'b'}['a']",
        "object.?metadata.name.orValue('x')",
        "has(object.metadata) ? 'a' : 'b'",
        "request.name",
        "params.name",
    ] {
        let program = env
            .compile(source, Expect::Any)
            .unwrap_or_else(|e| panic!("{source}: {e}"));
        assert_eq!(
            program.cost_bound(&["object", "oldObject"]),
            None,
            "{source}"
        );
    }
    let bounded = env.compile("object.metadata.name", Expect::Any).unwrap();
    assert_eq!(bounded.cost_bound(&["oldObject"]), None);
    assert!(bounded.cost_bound(&["object"]).is_some());
}

/// cel-go ext/lists_test.go `TestListsCosts`, the actual costs: kube-apiserver enables the lists extension at version
/// 3 since 1.34 (`ext.Lists(ext.ListsVersion(3))` in k8s.io/apiserver/pkg/cel/environment/base.go), whose trackers
/// charge `slice`, `flatten`, `reverse` and `lists.range` by the size of what they build and `sort` and `distinct` as
/// n² comparisons, each call 1 and its new list 10; `sortBy` as n² comparisons of its keys, besides the `map` that
/// computes them. Upstream's figures less each constant literal, which kube-apiserver folds (a list 10, a map 30), and
/// for `sortBy` the two empty lists its expansion starts from (the `cel.bind`'s range and the `map`'s accumulator).
#[test]
fn cel_go_lists_extension_cost_rows() {
    let ints = |v: &[i64]| Value::list(v.iter().map(|i| Value::Int(*i)).collect());
    let strs = |v: &[&str]| Value::list(v.iter().map(|s| Value::string((*s).to_owned())).collect());
    let obj = |k: &str, v: Value<'static>| Value::map(vec![(Value::string(k.to_owned()), v)]);
    let env = Env::standard()
        .with_dyn_variable("x")
        .with_dyn_variable("y")
        .with_dyn_variable("z");
    /// An expression, upstream's actual cost less the folded literals, and its variables.
    type Row = (&'static str, u64, Vec<(&'static str, Value<'static>)>);
    let rows: Vec<Row> = vec![
        ("lists.range(4) == [0, 1, 2, 3]", 26 - 10, vec![]),
        ("lists.range(4 / 2) == [0, 1]", 25 - 10, vec![]),
        (
            "lists.range(x) == [0, 1, 2, 3, 4]",
            28 - 10,
            vec![("x", Value::Int(5))],
        ),
        ("[[1, 2], 3].flatten(1) == [1, 2, 3]", 44 - 30, vec![]),
        ("[[1, 2], 3].flatten(2) == [1, 2, 3]", 46 - 30, vec![]),
        ("[[1, 2], 3].flatten(3) == [1, 2, 3]", 48 - 30, vec![]),
        ("[[1], 2, 3].flatten() == [1, 2, 3]", 45 - 30, vec![]),
        (
            "x.flatten() == [1, 2, 3]",
            26 - 10,
            vec![(
                "x",
                Value::list(vec![ints(&[1]), Value::Int(2), Value::Int(3)]),
            )],
        ),
        (
            "[[1, 2], 3].flatten(x) == [1, 2, 3]",
            53 - 30,
            vec![("x", Value::Int(5))],
        ),
        ("[1, 2, 3].distinct() == [1, 2, 3]", 50 - 20, vec![]),
        ("[1, 1, 1].distinct() == [1]", 50 - 20, vec![]),
        (
            "x.distinct() == ['hello']",
            31 - 10,
            vec![("x", strs(&["hello", "hello"]))],
        ),
        (
            "[1, 2, 3, 4, 5].slice(x, y) == [2, 3]",
            36 - 20,
            vec![("x", Value::Int(1)), ("y", Value::Int(3))],
        ),
        (
            "z.slice(1, 3) == [2, 3]",
            25 - 10,
            vec![("z", ints(&[1, 2, 3, 4, 5, 6, 7]))],
        ),
        (
            "z.slice(x, y) == [2, 3]",
            27 - 10,
            vec![
                ("x", Value::Int(1)),
                ("y", Value::Int(3)),
                ("z", ints(&[1, 2, 3, 4, 5, 6, 7])),
            ],
        ),
        ("[1, 2, 3].slice(1, 3) == [2, 3]", 34 - 20, vec![]),
        ("[3, 2, 1].reverse() == [1, 2, 3]", 35 - 20, vec![]),
        (
            "x.reverse() == [1, 2, 3]",
            26 - 10,
            vec![("x", ints(&[3, 2, 1]))],
        ),
        ("[2, 3, 1].sort() == [1, 2, 3]", 50 - 20, vec![]),
        (
            "x.sort() == [1, 2, 3]",
            41 - 10,
            vec![("x", ints(&[3, 2, 1]))],
        ),
        (
            "x.sort() == ['a', 'a', 'b', 'b', 'c', 'c']",
            98 - 10,
            vec![("x", strs(&["b", "a", "b", "a", "c", "c"]))],
        ),
        ("x.sort() == []", 22 - 10, vec![("x", ints(&[]))]),
        (
            "x.sortBy(m, m['x']) == [{'x':3}, {'x':4}]",
            142 - (10 + 2 * 30) - 10 - 10,
            vec![(
                "x",
                Value::list(vec![obj("x", Value::Int(4)), obj("x", Value::Int(3))]),
            )],
        ),
        (
            "x.sortBy(m, m['x']) == [{'x': 'a'}, {'x': 'b'}, {'x': 'c'}]",
            196 - (10 + 3 * 30) - 10 - 10,
            vec![(
                "x",
                Value::list(vec![
                    obj("x", Value::string("b".to_owned())),
                    obj("x", Value::string("c".to_owned())),
                    obj("x", Value::string("a".to_owned())),
                ]),
            )],
        ),
        (
            "[{'x':4}, {'x':3}].sortBy(m, m['x']) == [{'x':3}, {'x':4}]",
            211 - 2 * (10 + 2 * 30) - 10 - 10,
            vec![],
        ),
    ];
    for (src, want, vars) in rows {
        let p = env
            .compile(src, Expect::Any)
            .unwrap_or_else(|e| panic!("{src}: {e}"));
        let mut act = Activation::new();
        for (name, v) in vars {
            act = act.bind(name, v);
        }
        let mut b = Budget::kubernetes();
        let got = p
            .eval(&act, &mut b)
            .unwrap_or_else(|e| panic!("{src}: {e}"));
        assert!(matches!(got, Value::Bool(true)), "{src}");
        assert_eq!(b.used(), want, "{src}");
    }
}

/// cel-go interpreter/runtimecost_test.go `TestRuntimeCost`, the rows with conditionals and comprehensions: upstream's
/// figures less the literals kube-apiserver folds (the list literals, and the `[]` each `map` and `filter` starts its
/// accumulator from: 10 each).
///
/// What they pin down:
/// - a conditional costs nothing itself, and a branch that is a variable, or a selection or index from one, costs
///   its selections only: cel-go resolves it as an attribute of the conditional, which is not observed as a step;
/// - `map` and `filter` iterations cost their step only (their loop condition is the constant `true`), and
///   `filter`'s step costs nothing besides its condition when the element is dropped (the accumulator is the
///   conditional's branch);
/// - `all` and `exists` read the accumulator before the predicate, on every iteration;
/// - `in` on a list that is not constant costs the list's size.
#[test]
fn cel_go_conditional_and_comprehension_cost_rows() {
    let one_map = || Value::list(vec![Value::map(vec![])]);
    let env = Env::standard()
        .with_dyn_variable("x")
        .with_dyn_variable("input1")
        .with_dyn_variable("input2");
    let rows: [(&str, u64); 13] = [
        ("(x > 2 ? input1 : input2).all(y, true)", 6),
        ("true ? false : 1 > 3", 0),
        ("false ? false : 1 > 3", 1),
        ("(1 > 2 ? 5 : 3) > 1", 2),
        ("[1,2,3,4,5].filter(x, x % 2 == 0)", 62 - 20),
        ("[1,2,3,4,5].map(x, x)", 86 - 20),
        ("[1,2,3,4,5].map(x, x).filter(x, x % 2 == 0)", 138 - 30),
        ("[1,2,3,4,5].map(x, x).exists(x, x == 5) == true", 118 - 20),
        ("[1,2,3,4,5].map(x, x).map(x, x)", 162 - 30),
        (
            "[1,2,3,4,5].map(x, [x, x]).filter(z, z.size() == 2)",
            232 - 30,
        ),
        (
            "[1,2,3,4,5].map(x, [x, x]).all(y, y.all(y, y == 1))",
            171 - 20,
        ),
        ("[1,2,3,4,5].map(x, x).map(x, x) + [1]", 173 - 40),
        ("[1,2,3].all(i, i in [1,2,3].map(j, j + j))", 86 - 30),
    ];
    for (src, want) in rows {
        let p = env
            .compile(src, Expect::Any)
            .unwrap_or_else(|e| panic!("{src}: {e}"));
        let act = Activation::new()
            .bind("x", Value::Int(1))
            .bind("input1", one_map())
            .bind("input2", one_map());
        let mut b = Budget::kubernetes();
        p.eval(&act, &mut b)
            .unwrap_or_else(|e| panic!("{src}: {e}"));
        assert_eq!(b.used(), want, "{src}");
    }
}

/// k8s.io/apiserver/pkg/cel/library/cost_test.go `TestListsCost` and `TestIndexOfCost`, the runtime costs: `sum`,
/// `isSorted`, `max`, `min`, `indexOf` and `lastIndexOf` cost one traversal of the list (`traversalCost`: 1 an
/// element, 0.1 a byte of a string or bytes, truncated), with no call cost besides. Upstream runs without folding:
/// its figures less what kube-apiserver folds, the list literal (10) and each conversion of a constant in it or in
/// the argument (`uint(1)` 1, `bytes('012345678901')` 2, `duration('1s')` 1, …), which leaves the traversal, 5.
#[test]
fn kubernetes_lists_library_cost_rows() {
    // (list, what folding saves: the literal and its conversions)
    let lists = [
        ("[1, 2, 3, 4, 5]", 10),
        ("[uint(1), uint(2), uint(3), uint(4), uint(5)]", 10 + 5),
        ("[1.0, 2.0, 3.0, 4.0, 5.0]", 10),
        ("[false, true, false, true, false]", 10),
        (
            "['012345678901', '012345678901', '012345678901', '012345678901', '012345678901']",
            10,
        ),
        (
            "[bytes('012345678901'), bytes('012345678901'), bytes('012345678901'), bytes('012345678901'), bytes('012345678901')]",
            10 + 5 * 2,
        ),
        (
            "[duration('1s'), duration('2s'), duration('3s'), duration('4s'), duration('5s')]",
            10 + 5,
        ),
        (
            "[timestamp('2011-01-01T00:00:00.000+01:00'), timestamp('2011-01-02T00:00:00.000+01:00'), timestamp('2011-01-03T00:00:00.000+01:00'), timestamp('2011-01-04T00:00:00.000+01:00'), timestamp('2011-01-05T00:00:00.000+01:00')]",
            10 + 5,
        ),
    ];
    // upstream's figures, in the order of `lists` (`sum` is not defined on bools, strings, bytes or timestamps)
    let sum = [
        Some(15),
        Some(20),
        Some(15),
        None,
        None,
        None,
        Some(20),
        None,
    ];
    let ordered = [15, 20, 15, 15, 15, 25, 20, 20];
    let index_of = [
        ("3", 0, 15),
        ("uint(3)", 1, 21),
        ("3.0", 0, 15),
        ("true", 0, 15),
        ("'x'", 0, 15),
        ("bytes('x')", 1, 26),
        ("duration('3s')", 1, 21),
        ("timestamp('2011-01-03T00:00:00.000+01:00')", 1, 21),
    ];
    for (k, (list, folded)) in lists.iter().enumerate() {
        if let Some(upstream) = sum[k] {
            assert_eq!(
                cost(&format!("{list}.sum()")),
                upstream - folded,
                "{list}.sum()"
            );
        }
        for op in [".isSorted()", ".max()", ".min()"] {
            assert_eq!(
                cost(&format!("{list}{op}")),
                ordered[k] - folded,
                "{list}{op}"
            );
        }
        let (param, param_folded, upstream) = index_of[k];
        for op in ["indexOf", "lastIndexOf"] {
            let src = format!("{list}.{op}({param})");
            assert_eq!(cost(&src), upstream - folded - param_folded, "{src}");
        }
    }
}

/// cel-go ext/comprehensions_test.go `TestTwoVarComprehensionsCost`, the actual costs: upstream's figures less the
/// literals kube-apiserver folds (a constant list 10, a constant map 30, and the `[]` or `{}` each `transformList`,
/// `transformMap` and `transformMapEntry` starts its accumulator from). A map written in a step (`{v: k}`) is not
/// constant and is charged on every iteration. `transformMap` and `transformMapEntry` step through cel-go's
/// `cel.@mapInsert`: the call, the accumulator and its arguments.
#[test]
fn cel_go_two_variable_comprehension_cost_rows() {
    let env = Env::standard().with_dyn_variable("m");
    let ints = Value::map(vec![
        (Value::Int(1), Value::Int(1)),
        (Value::Int(2), Value::Int(2)),
    ]);
    let greetings = Value::map(vec![
        (Value::string("he"), Value::string("hello")),
        (Value::string("go"), Value::string("goodbye")),
    ]);
    let legacy_lists = Value::map(vec![
        (
            Value::string("legacy-solo"),
            Value::list(vec![Value::Int(1)]),
        ),
        (
            Value::string("legacy-pair"),
            Value::list(vec![Value::Int(3), Value::Int(2)]),
        ),
    ]);
    let legacy_ints = Value::map(vec![
        (Value::string("legacy-solo"), Value::Int(1)),
        (Value::string("legacy-pair"), Value::Int(2)),
    ]);
    let none = Value::Null;
    let rows: [(&str, u64, &Value<'static>); 15] = [
        ("[1, 2, 3, 4].all(i, v, i < 5 && v > 0)", 39 - 10, &none),
        (
            "{1: 1, 2: 2, 3: 3}.all(i, v, i < 5 && v > 0)",
            52 - 30,
            &none,
        ),
        ("!{0: 0}.all(i, v, i < 5 && v > 0)", 39 - 30, &none),
        ("m.all(i, v, i < 5 && v > 0)", 16, &ints),
        ("m.all(k, v, k < v)", 14, &greetings),
        ("[].transformList(i, v, v) == []", 31 - 30, &none),
        ("[1].transformList(i, v, i) == [0]", 45 - 30, &none),
        (
            "[3, 2, 1].transformList(i, v, v > i, v) == [3, 2]",
            67 - 30,
            &none,
        ),
        ("[].transformMap(k, v, v + 1) == {}", 71 - 70, &none),
        ("{}.transformMap(k, v, v + 1) == {}", 91 - 90, &none),
        ("{1: 2}.transformMap(k, v, v + 1) == {1: 3}", 97 - 90, &none),
        (
            "{1: 2, 3: 4, 5: 6}.transformMap(k, v, k % 3 == 0, v + 1) == {3: 5}",
            106 - 90,
            &none,
        ),
        (
            // the accumulator's `{}`, the right side (a map 30 and its list 10) and `[2]`, evaluated once
            "m.transformMap(k, v, k.startsWith('legacy') && v.size() == 1, v + [2]) == {'legacy-solo': [1, 2]}",
            100 - 30 - 40 - 10,
            &legacy_lists,
        ),
        (
            "{1: 2}.transformMapEntry(k, v, {v: k}) == {2: 1}",
            126 - 90,
            &none,
        ),
        (
            "m.transformMapEntry(k, v, {v: k}) == m.transformMapEntry(k, v, {v: k})",
            201 - 60,
            &legacy_ints,
        ),
    ];
    for (src, want, m) in rows {
        let p = env
            .compile(src, Expect::Any)
            .unwrap_or_else(|e| panic!("{src}: {e}"));
        let act = Activation::new().bind("m", m.clone());
        let mut b = Budget::kubernetes();
        p.eval(&act, &mut b)
            .unwrap_or_else(|e| panic!("{src}: {e}"));
        assert_eq!(b.used(), want, "{src}");
    }
}

/// cel-go's grammar reads a `-` written right before a number as the number's sign (cel-go parser_test.go: `-1` is
/// the constant -1, `4--4` subtracts the constant -4): a negative literal costs nothing, and a list of them is a
/// constant. A negation of anything else, `-(1)` included, is a call that costs 1.
#[test]
fn negative_number_literals_cost_nothing() {
    for (src, want) in [
        ("-1", 0),
        ("- 2.5", 0),
        ("[-1, -2.0, 3].size()", 1),
        ("4--4", 1),
        ("-(1)", 1),
        ("-(-1)", 1),
        ("-9223372036854775808", 0),
        // an even run of `-` or `!` is dropped (cel-go's VisitNegate, VisitLogicalNot); an odd one is one operator
        ("--1", 0),
        ("---1", 1),
        ("!!true", 0),
        ("!!!true", 1),
        ("!!!!true", 0),
    ] {
        assert_eq!(cost(src), want, "{src}");
    }
}
