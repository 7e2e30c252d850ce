//! `all` and `exists` take a short way through a list or map (palisade-cel-eval's `eval::Shape`): it must answer,
//! fail and cost as the general comprehension loop does. The evaluator's `testing` feature forces the general loop.

#![allow(clippy::panic, reason = "test helpers outside #[test] functions")]

use palisade_cel::{Activation, Budget, Env, Expect};
use palisade_cel_eval::eval::testing::GENERAL_ONLY;

/// The result (as text) and the cost of `src` over `object`, with a budget of `limit` per call.
fn run(src: &str, limit: u64, general: bool) -> (String, u64) {
    let object = serde_json::json!({
        "items": [1, 2, 3],
        "mixed": [1, "a", null, true, false],
        "none": [],
        "labels": {"a": "x", "b": "y"},
        "containers": [{"name": "a", "ok": true}, {"name": "b"}, {"name": "c", "ok": false}],
    });
    let prog = match Env::admission().compile(src, Expect::Any) {
        Ok(p) => p,
        Err(e) => return (format!("compile: {e}"), 0),
    };
    let act = Activation::new().bind_json("object", Some(&object));
    let mut budget = Budget::new(limit, u64::MAX);
    GENERAL_ONLY.set(general);
    let out = prog.eval(&act, &mut budget);
    GENERAL_ONLY.set(false);
    let shown = match out {
        Ok(v) => format!("{v:?}"),
        Err(e) => format!("error: {e} ({:?})", e.kind()),
    };
    (shown, budget.used())
}

/// `all` and `exists` answer, fail and cost the same through the evaluator's `Shape`'s short way as through the general
/// loop: errors absorbed by a deciding element or kept, non-booleans, early stops, two variables, maps, nesting,
/// and the per-call cost limit reached inside a loop.
#[test]
fn all_and_exists_take_the_short_way_to_the_same_answer_and_cost() {
    let exprs = [
        "object.items.all(x, x > 0)",
        "object.items.all(x, x > 1)",
        "object.items.exists(x, x == 2)",
        "object.items.exists(x, x == 9)",
        "object.none.all(x, x > 0)",
        "object.none.exists(x, x > 0)",
        "object.mixed.all(x, x == 1)",
        "object.mixed.all(x, x)",
        "object.mixed.exists(x, x)",
        "object.mixed.exists(x, x > 0)",
        "object.mixed.all(x, x > 0)",
        "object.mixed.all(x, x == 'b' || x > 0)",
        "object.items.all(x, object.missing == x)",
        "object.items.exists(x, object.missing == x)",
        "object.items.exists(x, object.missing == x || x == 3)",
        "object.items.all(x, x == 3 && object.missing == x)",
        "object.containers.all(c, has(c.ok) && c.ok)",
        "object.containers.exists(c, has(c.ok) && !c.ok)",
        "object.containers.all(c, c.ok)",
        "object.containers.exists(c, c.ok)",
        "object.labels.all(k, k.size() == 1)",
        "object.labels.exists(k, object.labels[k] == 'y')",
        "object.labels.all(k, v, v != k)",
        "object.items.exists(i, v, i == 2 && v == 3)",
        "object.items.all(x, object.items.exists(y, y == x))",
        "object.items.exists(x, object.items.all(y, y >= x))",
        "object.items.exists_one(x, x == 2)",
        "object.items.filter(x, x > 1).all(x, x > 1)",
    ];
    for src in exprs {
        for limit in [u64::MAX, 3, 7, 12] {
            assert_eq!(
                run(src, limit, false),
                run(src, limit, true),
                "{src} with a per-call limit of {limit}"
            );
        }
    }
    // not vacuous: the short way is taken, and answers
    assert_eq!(
        run("object.items.all(x, x > 0)", u64::MAX, false).0,
        "Bool(true)"
    );
    assert!(
        run("object.mixed.all(x, x > 0)", u64::MAX, false)
            .0
            .starts_with("error")
    );
}
