//! `palisade eval --explain`: the trace computed natively (`palisade::api::Configured::explain`), with the module's answer as its
//! verdict — the same answer `palisade eval` prints without it.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "integration tests fail loudly, helpers included"
)]

mod common;

use serde_json::Value;

fn eval(args: &[&str]) -> Value {
    let mut all = vec!["eval"];
    all.extend_from_slice(args);
    all.extend(["-p", "bench/pod-baseline.yaml", "bench/pod-review.json"]);
    serde_json::from_slice(&common::run_palisade(&all)).unwrap()
}

#[test]
fn eval_explain_prints_the_trace_with_the_modules_verdict() {
    let answer = eval(&[]);
    let trace = eval(&["--explain"]);
    assert_eq!(trace["verdict"], answer);
    assert!(trace.get("nativeVerdict").is_none(), "{trace}");
    assert_eq!(
        trace["matched"],
        serde_json::json!(["pod-baseline/pod-baseline"])
    );
    let evaluation = &trace["policies"][0]["bindings"][0]["evaluations"][0];
    let validations = evaluation["validations"].as_array().unwrap();
    assert!(!validations.is_empty());
    for v in validations {
        assert!(
            v["expression"].is_string() && v["outcome"].is_string(),
            "{v}"
        );
        assert!(v["cost"].as_u64().unwrap() > 0, "{v}");
    }
    assert!(evaluation["cost"].as_u64().unwrap() > 0);
}

#[test]
fn eval_explain_text_draws_the_same_trace_as_a_tree() {
    // `--explain` before the review paths takes no value: they stay reviews
    let out = common::run_palisade(&[
        "eval",
        "-p",
        "bench/pod-baseline.yaml",
        "--explain=text",
        "bench/pod-review.json",
    ]);
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.starts_with("verdict: allowed (uid 705ab4f5-6393-11e8-b7cc-42010a800002)\nmatched: pod-baseline/pod-baseline\nValidatingAdmissionPolicy pod-baseline (policies[0]): matched\n└─ binding pod-baseline [Deny]: matched\n   ├─ validation object.spec.containers.all(c, c.image.startsWith('registry.example.com/')) = true (cost "),
        "{text}"
    );
    assert_eq!(text, palisade::explain::to_text(&eval(&["--explain"])));
    let json_before_reviews = common::run_palisade(&[
        "eval",
        "-p",
        "bench/pod-baseline.yaml",
        "--explain",
        "bench/pod-review.json",
    ]);
    assert_eq!(
        serde_json::from_slice::<Value>(&json_before_reviews).unwrap(),
        eval(&["--explain"])
    );
}
