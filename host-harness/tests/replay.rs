//! kwctl's `--replay-host-capabilities-interactions` through the real `palisade-kubewarden.wasm` in the harness's
//! waPC host: the sessions shipped in `policies/kubewarden/` give the verdicts the C ABI module gives with the same
//! namespaces as a context, a session that lacks a call fails clearly, and the pod-security-baseline cases decide the
//! same when their namespaces come from a kwctl session instead of a context.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "integration tests fail loudly, helpers included"
)]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;

use palisade_harness::case::{Case, judge_with};
use palisade_harness::kubewarden::KubewardenBackend;
use palisade_harness::replay::Session;
use serde_json::{Value, json};

const REVIEW: &str = "bench/pod-review.json";
const POD_SECURITY_BASELINE: &str = "policies/vap/pod-security-baseline/bundle.yaml";

fn ws(path: &str) -> PathBuf {
    common::workspace().join(path)
}

fn palisade(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_palisade"))
        .current_dir(common::workspace())
        .args(args)
        .output()
        .unwrap()
}

fn stdout_json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

fn replay_eval(session: &str, bundle: &str) -> Output {
    palisade(&[
        "eval",
        "--kubewarden",
        "--replay-host-capabilities-interactions",
        session,
        "-p",
        bundle,
        REVIEW,
    ])
}

/// A session file as kwctl writes one (YAML of its exchanges, the request a tagged YAML string): one
/// `kubernetes/get_resource` of a v1 Namespace per entry, answered with the object or with policy-evaluator's
/// not-found error.
fn kwctl_session(namespaces: &[(&str, Option<&Value>)]) -> String {
    let exchanges: Vec<Value> = namespaces
        .iter()
        .map(|(name, object)| {
            let request = format!(
                "!KubernetesGetResource\napi_version: v1\nkind: Namespace\nname: {name}\nnamespace: null\n\
                 disable_cache: false\nfield_masks: null\n"
            );
            let response = match object {
                Some(object) => json!({"type": "Success", "payload": object.to_string()}),
                None => json!({"type": "Error",
                    "message": format!("Cannot find v1/Namespace named '{name}' inside of namespace 'None'")}),
            };
            json!({"type": "Exchange", "request": request, "response": response})
        })
        .collect();
    palisade_yaml::to_string(&Value::Array(exchanges))
}

/// The Namespace objects a session answers with, as a context for the C ABI module.
fn context_of(session: &Path) -> Value {
    let entries: Vec<Value> =
        palisade_yaml::from_str_as(&std::fs::read_to_string(session).unwrap()).unwrap();
    let namespaces: Vec<Value> = entries
        .iter()
        .map(|e| serde_json::from_str(e["response"]["payload"].as_str().unwrap()).unwrap())
        .collect();
    json!({ "namespaces": namespaces })
}

/// The README's examples: each shipped session, replayed with its bundle and the standard review, gives the C ABI
/// module's verdict with the same namespaces as a context, and is replayed to the end with no call it lacks.
#[test]
fn shipped_sessions_give_the_c_abi_verdicts() {
    let scratch = common::scratch_dir("replay-shipped");
    for (bundle, session, allowed) in [
        (
            "bench/pod-baseline.yaml",
            "policies/kubewarden/pod-baseline-session.yml",
            true,
        ),
        (
            POD_SECURITY_BASELINE,
            "policies/kubewarden/pod-security-baseline-session.yml",
            true,
        ),
    ] {
        let replayed = replay_eval(session, bundle);
        assert!(
            replayed.status.success() && replayed.stderr.is_empty(),
            "{session}: {}",
            String::from_utf8_lossy(&replayed.stderr)
        );
        let context = scratch.join("context.json");
        std::fs::write(&context, context_of(&ws(session)).to_string()).unwrap();
        let c_abi = palisade(&[
            "eval",
            "--context",
            context.to_str().unwrap(),
            "-p",
            bundle,
            REVIEW,
        ]);
        assert!(c_abi.status.success(), "{bundle}");
        let (a, b) = (stdout_json(&replayed), stdout_json(&c_abi));
        assert_eq!(a["response"]["allowed"], allowed, "{session}: {a}");
        for key in ["allowed", "uid"] {
            assert_eq!(a["response"][key], b["response"][key], "{session}: {key}");
        }
        // Kubewarden carries code and message only (no reason, no details).
        for key in ["code", "message"] {
            assert_eq!(
                a["response"]["status"][key], b["response"]["status"][key],
                "{session}: status.{key}"
            );
        }
    }
    std::fs::remove_dir_all(&scratch).unwrap();
}

/// A session without the call the policy makes, or with another call in its place, fails the evaluation with kwctl's
/// replay wording (through failurePolicy, as any failing host call) and fails `palisade eval`, naming the file.
#[test]
fn a_session_missing_the_call_fails_clearly() {
    let empty = replay_eval(
        "policies/kubewarden/pod-baseline-session.yml",
        POD_SECURITY_BASELINE,
    );
    assert_eq!(empty.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&empty.stderr);
    assert!(
        stderr.contains(
            "error: `policies/kubewarden/pod-baseline-session.yml` cannot answer a host call: \
             the list of recorded responses is empty"
        ),
        "{stderr}"
    );
    let answer = stdout_json(&empty);
    assert_eq!(answer["response"]["allowed"], false);
    let message = answer["response"]["status"]["message"].as_str().unwrap();
    assert!(
        message.contains("Callback evaluation failure: the list of recorded responses is empty"),
        "{message}"
    );

    let scratch = common::scratch_dir("replay-missing");
    let other = scratch.join("staging.yml");
    let staging = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "staging"}});
    std::fs::write(&other, kwctl_session(&[("staging", Some(&staging))])).unwrap();
    let out = replay_eval(other.to_str().unwrap(), POD_SECURITY_BASELINE);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "cannot answer a host call: Replay error: unexpected request. Was expecting \
             KubernetesGetResource {\"api_version\":\"v1\",\"disable_cache\":false,\"kind\":\"Namespace\",\
             \"name\":\"staging\"}, got KubernetesGetResource {\"api_version\":\"v1\",\"disable_cache\":false,\
             \"kind\":\"Namespace\",\"name\":\"production\"} instead"
        ),
        "{stderr}"
    );
    assert_eq!(stdout_json(&out)["response"]["allowed"], false);

    // A file that is not a session is refused before anything runs.
    let broken = scratch.join("broken.yml");
    std::fs::write(&broken, "- type: Exchange\n  request: 'name: x'\n").unwrap();
    let out = replay_eval(broken.to_str().unwrap(), POD_SECURITY_BASELINE);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("is not a kwctl host capabilities interactions file"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());

    // A replayed session answers instead of a context, and only through the waPC host.
    for args in [
        &[
            "eval",
            "--kubewarden",
            "--context",
            "tests/cases/foundation/webhook/context.yaml",
            "--replay-host-capabilities-interactions",
            "policies/kubewarden/pod-baseline-session.yml",
            "-p",
            "bench/pod-baseline.yaml",
            REVIEW,
        ][..],
        &[
            "eval",
            "--replay-host-capabilities-interactions",
            "policies/kubewarden/pod-baseline-session.yml",
            "-p",
            "bench/pod-baseline.yaml",
            REVIEW,
        ][..],
    ] {
        let out = palisade(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    std::fs::remove_dir_all(&scratch).unwrap();
}

/// Every pod-security-baseline case, its namespace recorded as kwctl records it instead of given as a context: the
/// same expectation holds, and each case's policy asks exactly the recorded call. One session serves the whole run,
/// consumed in order, as kwctl consumes one.
#[test]
fn pod_security_baseline_cases_replay_from_their_namespaces() {
    let dir = ws("tests/cases/vap/pod-security-baseline");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    files.sort();
    assert!(files.len() > 20, "{}", dir.display());
    let cases: Vec<Case> = files.iter().map(|f| Case::load(f).unwrap()).collect();
    let namespaces: Vec<(String, Option<Value>)> = cases
        .iter()
        .map(|case| {
            let review = case.review.as_ref().unwrap();
            let name = review["request"]["namespace"].as_str().unwrap().to_owned();
            let object = case.context.as_ref().and_then(|c| {
                c["namespaces"]
                    .as_array()?
                    .iter()
                    .find(|ns| ns["metadata"]["name"] == name.as_str())
                    .cloned()
            });
            (name, object)
        })
        .collect();
    let borrowed: Vec<(&str, Option<&Value>)> = namespaces
        .iter()
        .map(|(n, o)| (n.as_str(), o.as_ref()))
        .collect();
    let session =
        Arc::new(Session::parse(Path::new("cases.yml"), &kwctl_session(&borrowed)).unwrap());
    let backend = KubewardenBackend::load(&common::artifact("palisade-kubewarden.wasm"))
        .unwrap()
        .replaying(Arc::clone(&session));
    for (i, case) in cases.iter().enumerate() {
        let mut replayed = case.clone();
        replayed.context = None;
        let verdict = judge_with(case, &replayed.run(&backend), false);
        assert!(
            verdict.passed,
            "{}: expected\n{}\ngot\n{}",
            case.file.display(),
            verdict.expected_text,
            verdict.actual_text
        );
        assert_eq!(
            session.misses(),
            Vec::<String>::new(),
            "{}",
            case.file.display()
        );
        assert_eq!(
            session.leftovers().len(),
            cases.len() - i - 1,
            "{}: the policy did not ask its namespace once",
            case.file.display()
        );
    }
}

/// A namespace recorded as missing (policy-evaluator's not-found error) is "no such namespace" to the policy, as an
/// empty context is to the C ABI module, and the recorded error counts as replayed, not as a miss.
#[test]
fn a_recorded_not_found_is_no_such_namespace() {
    let scratch = common::scratch_dir("replay-not-found");
    let session = scratch.join("not-found.yml");
    std::fs::write(&session, kwctl_session(&[("production", None)])).unwrap();
    let replayed = replay_eval(session.to_str().unwrap(), POD_SECURITY_BASELINE);
    assert!(
        replayed.status.success() && replayed.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&replayed.stderr)
    );
    let context = scratch.join("context.json");
    std::fs::write(&context, r#"{"namespaces": []}"#).unwrap();
    let c_abi = palisade(&[
        "eval",
        "--context",
        context.to_str().unwrap(),
        "-p",
        POD_SECURITY_BASELINE,
        REVIEW,
    ]);
    let (a, b) = (stdout_json(&replayed), stdout_json(&c_abi));
    assert_eq!(a["response"]["allowed"], false);
    assert_eq!(
        a["response"]["status"]["code"],
        b["response"]["status"]["code"]
    );
    assert_eq!(
        a["response"]["status"]["message"],
        b["response"]["status"]["message"]
    );
    assert!(
        a["response"]["status"]["message"]
            .as_str()
            .unwrap()
            .ends_with("namespaces \"production\" not found")
    );
    std::fs::remove_dir_all(&scratch).unwrap();
}
