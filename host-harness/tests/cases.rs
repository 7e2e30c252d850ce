//! The `palisade` CLI end to end: `test`, `eval`, `check`, `scaffold`. Every case file through every backend, one test
//! each, is `tests/case_files.rs`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "integration tests fail loudly, helpers included"
)]

mod common;

use std::path::Path;
use std::process::Command;

use palisade_harness::case::{Case, Outcome};
use serde_json::Value;

fn palisade(args: &[&str], dir: Option<&Path>) -> (i32, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_palisade"));
    cmd.args(args);
    if let Some(d) = dir {
        cmd.current_dir(d);
    }
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn cli_test_runs_the_foundation_suite() {
    let dir = common::workspace().join("tests/cases/foundation");
    let (code, stdout, stderr) = palisade(&["test", dir.to_str().unwrap()], None);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let last = stdout.lines().last().unwrap();
    assert!(last.ends_with(" passed, 0 failed"), "{stdout}");
    assert!(
        stdout.lines().filter(|l| l.starts_with("ok")).count() >= 8,
        "{stdout}"
    );
}

const FAILING_CASE: &str = "\
# a case whose expectation is wrong on purpose
name: wrong on purpose
policies: []
review:
  apiVersion: admission.k8s.io/v1
  kind: AdmissionReview
  request:
    uid: cli-1
    kind: {group: \"\", version: v1, kind: ConfigMap}
    resource: {group: \"\", version: v1, resource: configmaps}
    namespace: default
    operation: CREATE
    userInfo: {username: alice}
    object: {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}
expect:
  allowed: false
  code: 403
# the end
";

#[test]
fn cli_test_prints_a_diff_fails_and_blesses() {
    let dir = common::scratch_dir("bless");
    let file = dir.join("wrong.yaml");
    std::fs::write(&file, FAILING_CASE).unwrap();
    let (code, stdout, _) = palisade(&["test", file.to_str().unwrap()], None);
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("FAIL"), "{stdout}");
    assert!(stdout.contains("-allowed: false"), "{stdout}");
    assert!(stdout.contains("+allowed: true"), "{stdout}");
    assert!(stdout.contains("palisade test --bless"), "{stdout}");
    assert!(stdout.ends_with("0 passed, 1 failed\n"), "{stdout}");

    let (code, junit, stderr) =
        palisade(&["test", "--format", "junit", file.to_str().unwrap()], None);
    assert_eq!(code, 1);
    assert!(junit.starts_with("<?xml"), "{junit}");
    assert!(junit.contains("failures=\"1\""), "{junit}");
    assert!(junit.contains("<failure message="), "{junit}");
    assert!(stderr.contains("0 passed, 1 failed"), "{stderr}");

    let (code, json_out, _) = palisade(&["test", "--format", "json", file.to_str().unwrap()], None);
    assert_eq!(code, 1);
    let doc: Value = serde_json::from_str(&json_out).unwrap();
    assert_eq!(doc["failed"], 1);
    assert_eq!(doc["cases"][0]["name"], "wrong on purpose");
    assert_eq!(doc["cases"][0]["passed"], false);

    let (code, stdout, _) = palisade(&["test", "--bless", file.to_str().unwrap()], None);
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.contains("BLESSED"), "{stdout}");
    let blessed = std::fs::read_to_string(&file).unwrap();
    assert!(blessed.contains("expect:\n  allowed: true\n"), "{blessed}");
    assert!(
        blessed.starts_with("# a case whose expectation is wrong on purpose\n"),
        "{blessed}"
    );
    assert!(blessed.ends_with("# the end\n"), "{blessed}");
    assert!(!blessed.contains("code: 403"), "{blessed}");

    let (code, stdout, _) = palisade(&["test", dir.to_str().unwrap()], None);
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.ends_with("1 passed, 0 failed\n"), "{stdout}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_case_that_cannot_load_is_a_failure_not_a_skip() {
    let dir = common::scratch_dir("broken-case");
    std::fs::write(
        dir.join("typo.yaml"),
        "policies: []\nreview: {request: {uid: x}}\nexpect: {alowed: true}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("missing.yaml"),
        "policies: []\nreview: nowhere.json\nexpect: {allowed: true}\n",
    )
    .unwrap();
    let (code, stdout, _) = palisade(&["test", dir.to_str().unwrap()], None);
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("alowed"), "{stdout}");
    assert!(stdout.contains("nowhere.json"), "{stdout}");
    assert!(stdout.ends_with("0 passed, 2 failed\n"), "{stdout}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn cli_eval_prints_a_well_formed_review() {
    let ws = common::workspace();
    let (_, stdout, stderr) = palisade(
        &[
            "eval",
            "-p",
            ws.join("tests/cases/foundation/bundles/empty.yaml")
                .to_str()
                .unwrap(),
            ws.join("tests/cases/foundation/recordings/pod-create.json")
                .to_str()
                .unwrap(),
        ],
        None,
    );
    let review: Value =
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}{stderr}"));
    assert_eq!(review["kind"], "AdmissionReview");
    assert_eq!(
        review["response"]["uid"],
        "705ab4f5-6393-11e8-b7cc-42010a800002"
    );
    assert_eq!(review["response"]["allowed"], true);
}

#[test]
fn cli_check_lists_problems_and_exits_non_zero() {
    let ws = common::workspace();
    let (code, stdout, _) = palisade(
        &[
            "check",
            ws.join("tests/hostile/bundle-broken.yaml")
                .to_str()
                .unwrap(),
        ],
        None,
    );
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("does not compile"), "{stdout}");
    assert!(stdout.contains("policies[0]"), "{stdout}");
    let (code, stdout, _) = palisade(
        &[
            "check",
            ws.join("tests/cases/foundation/bundles/empty.yaml")
                .to_str()
                .unwrap(),
        ],
        None,
    );
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.starts_with("ok: "), "{stdout}");
}

#[test]
fn cli_scaffold_review_makes_a_review_the_module_reads() {
    let dir = common::scratch_dir("scaffold");
    let manifest = dir.join("pod.yaml");
    std::fs::write(
        &manifest,
        "apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: team-a}\nspec: {containers: [{name: c, image: nginx}]}\n",
    )
    .unwrap();
    let (code, stdout, stderr) = palisade(
        &[
            "scaffold",
            "review",
            manifest.to_str().unwrap(),
            "--operation",
            "CREATE",
        ],
        None,
    );
    assert_eq!(code, 0, "{stderr}");
    let review: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(review["request"]["operation"], "CREATE");
    assert_eq!(review["request"]["resource"]["resource"], "pods");
    assert_eq!(review["request"]["namespace"], "team-a");
    let review_file = dir.join("review.json");
    std::fs::write(&review_file, &stdout).unwrap();
    let bundle = common::workspace().join("tests/cases/foundation/bundles/empty.yaml");
    let (_, out, _) = palisade(
        &[
            "eval",
            "-p",
            bundle.to_str().unwrap(),
            review_file.to_str().unwrap(),
        ],
        None,
    );
    let answer: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(answer["response"]["allowed"], true, "{answer}");
    assert_eq!(answer["response"]["uid"], review["request"]["uid"]);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn outcome_of_a_bundle_error_case_is_the_configure_message() {
    let file =
        common::workspace().join("tests/cases/foundation/unknown-kind-is-a-bundle-error.yaml");
    let case = Case::load(&file).unwrap();
    let wasm = palisade_harness::host::CAbiBackend::new(
        palisade_harness::host::WasmHost::load(&common::artifact("palisade.wasm")).unwrap(),
    );
    match case.run(&wasm) {
        Outcome::BundleError(m) => assert!(m.contains("policies[0].kind"), "{m}"),
        other => panic!("{other:?}"),
    }
}

/// `palisade eval … | head`: a reader that goes away early ends the program quietly, never with a panic.
#[test]
fn a_closed_stdout_is_not_a_panic() {
    use std::process::Stdio;
    let ws = common::workspace();
    let mut child = Command::new(env!("CARGO_BIN_EXE_palisade"))
        .args(["eval", "-p"])
        .arg(ws.join("bench/pod-baseline.yaml"))
        .args(std::iter::repeat_n(ws.join("bench/pod-review.json"), 200))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // read one byte, then hang up
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 1];
    std::io::Read::read_exact(&mut stdout, &mut first).unwrap();
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.code(), Some(0), "{stderr}");
}
