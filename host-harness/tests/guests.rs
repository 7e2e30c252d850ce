//! Hostile guests (`tests/hostile/guests/*.wat`): whatever a module does — loop, grow memory,
//! trap, answer garbage, need imports — the host ends the call with a reported reason.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "integration tests fail loudly, helpers included"
)]

mod common;

use std::time::{Duration, Instant};

use common::hostile;
use palisade_harness::backend::{Backend, HostError};
use palisade_harness::host::{CAbiBackend, Entry, WasmHost};
use serde_json::json;

fn guest(name: &str) -> WasmHost {
    WasmHost::load(&hostile(&format!("guests/{name}"))).unwrap()
}

const REVIEW: &[u8] =
    br#"{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u"}}"#;

#[test]
fn an_endless_loop_ends_at_the_deadline() {
    let host = guest("loop-forever.wat");
    let mut s = host.instantiate().unwrap();
    assert_eq!(s.configure(b"{}").unwrap(), None);
    s.set_deadline(Duration::from_millis(200));
    let started = Instant::now();
    let err = s.validate(REVIEW).unwrap_err();
    let took = started.elapsed();
    assert_eq!(
        err,
        HostError::Timeout {
            call: "validate".into(),
            deadline: Duration::from_millis(200)
        }
    );
    assert_eq!(err.to_string(), "`validate` timed out after 200ms");
    assert!(
        took >= Duration::from_millis(150) && took < Duration::from_secs(5),
        "took {took:?}"
    );
}

#[test]
fn the_backend_reports_the_timeout_with_its_reason() {
    let backend = CAbiBackend::new(guest("loop-forever.wat"));
    let err = backend
        .evaluate(
            &json!({"policies": []}),
            &json!({"request": {"uid": "u"}}),
            None,
            Duration::from_secs(1),
        )
        .unwrap_err();
    assert_eq!(err.to_string(), "`validate` timed out after 1s");
}

#[test]
fn growing_memory_without_end_hits_the_cap() {
    let host = guest("grow-memory.wat").with_memory_limit(32 << 20);
    let mut s = host.instantiate().unwrap();
    assert_eq!(s.configure(b"{}").unwrap(), None);
    let err = s.validate(REVIEW).unwrap_err();
    assert_eq!(
        err,
        HostError::MemoryLimit {
            call: "validate".into(),
            limit: 32 << 20
        }
    );
    assert_eq!(
        err.to_string(),
        "`validate` exceeded the memory limit of 33554432 bytes"
    );
}

#[test]
fn the_default_cap_is_512_mib() {
    let host = guest("grow-memory.wat");
    let mut s = host.instantiate().unwrap();
    let err = s.validate(REVIEW).unwrap_err();
    assert_eq!(
        err,
        HostError::MemoryLimit {
            call: "validate".into(),
            limit: 512 << 20
        }
    );
}

#[test]
fn a_trap_is_reported_with_its_reason() {
    let host = guest("trap.wat");
    let mut s = host.instantiate().unwrap();
    let err = s.validate(REVIEW).unwrap_err();
    match &err {
        HostError::Trap { call, reason } => {
            assert_eq!(call, "validate");
            assert!(reason.contains("unreachable"), "{reason}");
        }
        other => panic!("expected a trap, got {other:?}"),
    }
}

#[test]
fn garbage_answers_are_reported() {
    let host = guest("garbage-output.wat");
    let mut s = host.instantiate().unwrap();
    let err = s.configure(b"{}").unwrap_err();
    match &err {
        HostError::BadOutput { call, reason } => {
            assert_eq!(call, "configure");
            assert!(reason.starts_with("the answer is not JSON"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    let err = s.validate(REVIEW).unwrap_err();
    match &err {
        HostError::BadOutput { call, reason } => {
            assert_eq!(call, "validate");
            assert!(
                reason.starts_with("the answer is not valid UTF-8"),
                "{reason}"
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_answer_outside_memory_is_reported() {
    let host = guest("out-of-bounds-output.wat");
    let mut s = host.instantiate().unwrap();
    let err = s.call(Entry::Validate, REVIEW).unwrap_err();
    match &err {
        HostError::BadOutput { reason, .. } => {
            assert!(reason.contains("outside memory"), "{reason}")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_module_with_imports_does_not_load() {
    let err = WasmHost::load(&hostile("guests/imports-wasi.wat"))
        .err()
        .unwrap();
    match &err {
        HostError::Load { reason, .. } => assert!(
            reason.contains("fd_write") || reason.contains("import"),
            "{reason}"
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_missing_module_says_how_to_build_it() {
    let err = WasmHost::load(&hostile("guests/no-such-module.wasm"))
        .err()
        .unwrap();
    assert!(
        err.to_string()
            .contains("cargo build --release -p palisade-harness"),
        "{err}"
    );
}

#[test]
fn a_well_behaved_guest_answers_and_the_instance_is_reusable() {
    let host = guest("echo.wat");
    let mut s = host.instantiate().unwrap();
    assert_eq!(s.configure(b"{}").unwrap(), None);
    for _ in 0..3 {
        let out = s.validate(REVIEW).unwrap();
        assert_eq!(
            out["response"],
            json!({"uid": "hostile-echo", "allowed": true})
        );
    }
}

#[test]
fn the_cli_reports_a_trap_without_crashing() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_palisade"))
        .arg("--module")
        .arg(hostile("guests/trap.wat"))
        .arg("eval")
        .arg("-p")
        .arg(hostile("bundle-broken.yaml"))
        .arg(common::workspace().join("tests/cases/foundation/recordings/pod-create.json"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("`validate` trapped: ")
            && stderr.contains("wasm `unreachable` instruction executed"),
        "{stderr}"
    );
}

// Webhook dispatch when the module fails: failurePolicy decides, in upstream's words
// (k8s.io/apiserver pkg/admission/plugin/webhook/validating/dispatcher.go, pkg/util/webhook/error.go).
mod failure_policy {
    use super::*;
    use palisade_harness::case::Outcome;
    use palisade_harness::webhook::dispatch;
    use serde_json::Value;

    fn configuration(failure_policy: &str, timeout_seconds: u64) -> Value {
        json!({
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingWebhookConfiguration",
            "metadata": {"name": "palisade"},
            "webhooks": [{
                "name": "palisade.example.com",
                "rules": [{"operations": ["*"], "apiGroups": ["*"], "apiVersions": ["*"], "resources": ["*"]}],
                "sideEffects": "None",
                "admissionReviewVersions": ["v1"],
                "timeoutSeconds": timeout_seconds,
                "failurePolicy": failure_policy
            }]
        })
    }

    fn review() -> Value {
        json!({
            "apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
            "request": {
                "uid": "u-1",
                "kind": {"group": "", "version": "v1", "kind": "Namespace"},
                "resource": {"group": "", "version": "v1", "resource": "namespaces"},
                "name": "team-a", "operation": "CREATE", "userInfo": {"username": "alice"},
                "object": {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a"}}
            }
        })
    }

    fn run(guest_file: &str, failure_policy: &str, timeout_seconds: u64) -> Value {
        let backend = CAbiBackend::new(guest(guest_file));
        match dispatch(
            &configuration(failure_policy, timeout_seconds),
            &json!({"policies": []}),
            &review(),
            None,
            &backend,
        ) {
            Outcome::Response(r) => r,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_trap_under_fail_is_an_internal_error() {
        let r = run("trap.wat", "Fail", 10);
        assert_eq!(r["allowed"], false);
        assert_eq!(r["uid"], "u-1");
        assert_eq!(r["status"]["code"], 500);
        assert_eq!(r["status"]["reason"], "InternalError");
        let message = r["status"]["message"].as_str().unwrap();
        assert!(
            message.starts_with(
                "Internal error occurred: failed calling webhook \"palisade.example.com\": failed to call webhook: `validate` trapped: "
            ),
            "{message}"
        );
    }

    #[test]
    fn a_trap_under_ignore_fails_open_with_the_audit_annotation() {
        let r = run("trap.wat", "Ignore", 10);
        assert_eq!(
            r,
            json!({"uid": "u-1", "allowed": true, "auditAnnotations": {
                "failed-open.validating.webhook.admission.k8s.io/round_0_index_0": "palisade.example.com"}})
        );
    }

    #[test]
    fn timeout_seconds_is_the_call_deadline() {
        let started = Instant::now();
        let r = run("loop-forever.wat", "Fail", 1);
        assert!(started.elapsed() < Duration::from_secs(5));
        assert_eq!(
            r["status"]["message"],
            "Internal error occurred: failed calling webhook \"palisade.example.com\": failed to call webhook: `validate` timed out after 1s"
        );
        let r = run("loop-forever.wat", "Ignore", 1);
        assert_eq!(r["allowed"], true);
    }

    #[test]
    fn garbage_and_a_wrong_uid_are_call_failures() {
        let r = run("garbage-output.wat", "Fail", 10);
        let message = r["status"]["message"].as_str().unwrap();
        assert!(message.contains("failed to call webhook: `configure` returned a malformed answer: the answer is not JSON"), "{message}");
        let r = run("echo.wat", "Fail", 10);
        assert_eq!(
            r["status"]["message"],
            "Internal error occurred: failed calling webhook \"palisade.example.com\": received invalid webhook response: expected response.uid=\"u-1\", got \"hostile-echo\""
        );
        let r = run("echo.wat", "Ignore", 10);
        assert_eq!(r["allowed"], true);
    }
}
