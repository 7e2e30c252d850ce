//! `palisade bench` end to end: palisade.wasm and both floors measured in one run, sizes,
//! compile time, percentiles and ratios.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "integration tests fail loudly, helpers included"
)]

mod common;

use std::process::Command;

use serde_json::Value;

fn bench(extra: &[&str]) -> String {
    let ws = common::workspace();
    let out = Command::new(env!("CARGO_BIN_EXE_palisade"))
        .arg("bench")
        .arg("-p")
        .arg(ws.join("tests/cases/foundation/bundles/empty.yaml"))
        .arg(ws.join("tests/cases/foundation/recordings/pod-create.json"))
        .args(["--iterations", "5", "--warmup", "1"])
        .args(extra)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

#[test]
fn bench_measures_palisade_next_to_both_floors() {
    let text = bench(&[]);
    for needle in [
        "palisade ",
        "scan floor",
        "DOM floor",
        "palisade / scan floor: reused",
        "palisade / DOM floor:",
        "req/s",
    ] {
        assert!(text.contains(needle), "`{needle}` missing from:\n{text}");
    }
}

#[test]
fn bench_json_has_every_figure() {
    let doc: Value = serde_json::from_str(&bench(&["--format", "json"])).unwrap();
    let modules = doc["modules"].as_array().unwrap();
    let labels: Vec<&str> = modules
        .iter()
        .map(|m| m["module"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["palisade", "scan floor", "DOM floor"]);
    for m in modules {
        assert!(
            m["bytes"].as_u64().unwrap() > m["gzipBytes"].as_u64().unwrap(),
            "{m}"
        );
        assert!(m["compileMillis"].as_f64().unwrap() > 0.0, "{m}");
        for mode in ["reused", "fresh"] {
            assert_eq!(m[mode]["samples"], 5, "{m}");
            assert!(m[mode]["medianMicros"].as_f64().unwrap() > 0.0, "{m}");
            assert!(
                m[mode]["p99Micros"].as_f64().unwrap() >= m[mode]["medianMicros"].as_f64().unwrap(),
                "{m}"
            );
        }
    }
}
