//! `palisade eval --explain`: the trace computed natively (`palisade::api::Configured::explain`), with the module's answer as its
//! verdict — the same answer `palisade eval` prints without it.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "integration tests fail loudly, helpers included"
)]

use std::path::Path;
use std::process::Command;

use serde_json::Value;

fn eval(args: &[&str]) -> Value {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = Command::new(env!("CARGO_BIN_EXE_palisade"))
        .current_dir(&root)
        .arg("eval")
        .args(args)
        .args(["-p", "bench/pod-baseline.yaml", "bench/pod-review.json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
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
