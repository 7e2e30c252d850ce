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

/// `palisade bench --format json -p BUNDLE REVIEWS` (paths in the workspace) with `extra`, 3 rounds: its report.
fn bench_json(bundle: &str, reviews: &str, extra: &[&str]) -> Value {
    let mut args = vec![
        "bench",
        "-p",
        bundle,
        reviews,
        "--iterations",
        "3",
        "--warmup",
        "1",
        "--format",
        "json",
    ];
    args.extend_from_slice(extra);
    serde_json::from_slice(&common::run_palisade(&args)).unwrap()
}

/// The report has the pooled baked module's fresh ratio to the pooled floor.
fn assert_pooled_fresh_ratio(doc: &Value) {
    assert!(
        doc["ratios"]["palisade, baked, pooled/fresh"]
            .as_f64()
            .unwrap()
            > 0.0,
        "{doc}"
    );
}

/// The labels of a report's modules, in order.
fn labels(doc: &Value) -> Vec<&str> {
    doc["modules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["module"].as_str().unwrap())
        .collect()
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
    assert_eq!(
        labels(&doc),
        ["palisade", "palisade, baked", "scan floor", "DOM floor"]
    );
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
                m[mode]["p99Micros"].as_f64().unwrap() >= m[mode]["p90Micros"].as_f64().unwrap(),
                "{m}"
            );
            assert!(
                m[mode]["p90Micros"].as_f64().unwrap() >= m[mode]["medianMicros"].as_f64().unwrap(),
                "{m}"
            );
            let histogram: u64 = m[mode]["histogramLog2Micros"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c.as_u64().unwrap())
                .sum();
            assert_eq!(histogram, 5, "{m}");
        }
    }
}

/// `--baseline FILE --max-regression PCT` gates a run on a saved one, by ratios to the floor measured in the same run.
#[test]
fn bench_fails_a_run_slower_than_its_baseline() {
    let dir = common::scratch_dir("bench-baseline");
    let mut doc: Value = serde_json::from_str(&bench(&["--format", "json"])).unwrap();
    let ratios = doc["ratios"].as_object().unwrap().clone();
    for key in [
        "palisade/reused",
        "palisade/fresh",
        "palisade, baked/reused",
        "palisade, baked/fresh",
    ] {
        assert!(ratios[key].as_f64().unwrap() > 0.0, "{key}: {doc}");
    }
    // a baseline ten times faster than anything this machine can do: the run is a regression
    for (_, v) in doc["ratios"].as_object_mut().unwrap().iter_mut() {
        *v = serde_json::json!(v.as_f64().unwrap() / 10.0);
    }
    let fast = dir.join("fast.json");
    std::fs::write(&fast, doc.to_string()).unwrap();
    let ws = common::workspace();
    let run = |baseline: &std::path::Path| {
        Command::new(env!("CARGO_BIN_EXE_palisade"))
            .arg("bench")
            .arg("-p")
            .arg(ws.join("tests/cases/foundation/bundles/empty.yaml"))
            .arg(ws.join("tests/cases/foundation/recordings/pod-create.json"))
            .args([
                "--iterations",
                "5",
                "--warmup",
                "1",
                "--max-regression",
                "25",
            ])
            .arg("--baseline")
            .arg(baseline)
            .output()
            .unwrap()
    };
    let out = run(&fast);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("slower than the baseline"), "{stderr}");
    assert!(stderr.contains("more than the 25% allowed"), "{stderr}");
    // a baseline a hundred times slower: the run passes
    for (_, v) in doc["ratios"].as_object_mut().unwrap().iter_mut() {
        *v = serde_json::json!(v.as_f64().unwrap() * 1000.0);
    }
    let slow = dir.join("slow.json");
    std::fs::write(&slow, doc.to_string()).unwrap();
    let out = run(&slow);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `--pooling` adds fresh instances of the baked module and of the scan floor from wasmtime's pooling allocator,
/// measured in the same run beside the on-demand ones, each pooled module against the pooled floor.
#[test]
fn bench_with_pooling_measures_pooled_fresh_instances_beside_on_demand_ones() {
    let text = bench(&["--pooling"]);
    for needle in [
        "palisade, baked, pooled / scan floor, pooled: fresh",
        "pooled / on demand:",
    ] {
        assert!(text.contains(needle), "`{needle}` missing from:\n{text}");
    }
    let doc: Value = serde_json::from_str(&bench(&["--pooling", "--format", "json"])).unwrap();
    let modules = doc["modules"].as_array().unwrap();
    assert_eq!(
        labels(&doc),
        [
            "palisade",
            "palisade, baked",
            "scan floor",
            "DOM floor",
            "palisade, baked, pooled",
            "scan floor, pooled"
        ]
    );
    for m in &modules[4..] {
        assert!(m["reused"].is_null(), "{m}");
        assert_eq!(m["fresh"]["samples"], 5, "{m}");
    }
    assert_pooled_fresh_ratio(&doc);
    assert!(
        doc["ratios"]["palisade, baked, pooled/reused"].is_null(),
        "{doc}"
    );
}

/// The Kubewarden module and the waPC floor run in the pooled runtime too.
#[test]
fn bench_kubewarden_with_pooling() {
    let doc = bench_json(
        "bench/pod-baseline.yaml",
        "bench/pod-review.json",
        &["--kubewarden", "--pooling"],
    );
    assert_eq!(
        labels(&doc),
        [
            "palisade",
            "palisade, baked",
            "waPC floor",
            "palisade, baked, pooled",
            "waPC floor, pooled"
        ]
    );
    assert_pooled_fresh_ratio(&doc);
}

/// `--wasi`: fresh runs of the WASI command as shipped (reading the bundle's file) and baked with the bundle, next to
/// the WASI floor, their ratios to it, and no reused mode (a WASI run is a process's life).
#[test]
fn bench_wasi_measures_the_baked_command_beside_the_shipped_one() {
    let doc = bench_json(
        "bench/pod-baseline.yaml",
        "bench/pod-review.json",
        &["--wasi"],
    );
    assert_eq!(
        labels(&doc),
        ["palisade-wasi", "palisade-wasi, baked", "WASI floor"]
    );
    for module in doc["modules"].as_array().unwrap() {
        assert!(module["reused"].is_null(), "{module}");
        assert_eq!(module["fresh"]["samples"], 3, "{module}");
    }
    let ratios = doc["ratios"].as_object().unwrap();
    let mut keys: Vec<&str> = ratios.keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(keys, ["palisade-wasi, baked/fresh", "palisade-wasi/fresh"]);
    assert!(ratios.values().all(|r| r.as_f64().unwrap() > 0.0), "{doc}");
}

/// A directory is replayed as recorded traffic: every AdmissionReview in it, nothing else.
#[test]
fn bench_replays_a_directory_of_reviews() {
    let doc = bench_json("bench/pod-baseline.yaml", "bench", &[]);
    assert_eq!(
        doc["reviews"], 3,
        "bench/ holds three reviews beside bundles, a context and a script"
    );
}
