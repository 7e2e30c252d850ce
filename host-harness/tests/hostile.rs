//! Hostile inputs through the real `palisade.wasm` (docs/architecture.md, "The C ABI": "No input, however
//! malformed, may trap the module"). Fixtures are in `tests/hostile/`; those that would be over
//! 1 MB on disk are generated here.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "integration tests fail loudly, helpers included"
)]

mod common;

use common::{hostile, palisade};
use palisade_harness::host::{Entry, Session};
use serde_json::{Value, json};

const EMPTY_BUNDLE: &[u8] = br#"{"policies": []}"#;

fn configured() -> Session {
    let mut s = palisade().instantiate().unwrap();
    assert_eq!(
        s.configure(EMPTY_BUNDLE).unwrap(),
        None,
        "the empty bundle must compile"
    );
    s
}

/// Calls `validate` with raw bytes; the answer must be a well-formed AdmissionReview.
fn answer(session: &mut Session, input: &[u8]) -> Value {
    let review = session
        .validate(input)
        .unwrap_or_else(|e| panic!("validate must answer, not fail: {e}"));
    assert_eq!(review["kind"], "AdmissionReview", "{review}");
    assert!(review["apiVersion"].is_string(), "{review}");
    let response = &review["response"];
    assert!(response.is_object(), "no response object: {review}");
    assert!(response["allowed"].is_boolean(), "{review}");
    review
}

/// A bad review: allowed false, status.code 400, a message that says something.
fn assert_bad_review(review: &Value, why: &str) {
    let r = &review["response"];
    assert_eq!(r["allowed"], false, "{why}: {review}");
    assert_eq!(r["status"]["code"], 400, "{why}: {review}");
    let message = r["status"]["message"].as_str().unwrap_or("");
    assert!(
        !message.trim().is_empty(),
        "{why}: the message must say what is wrong: {review}"
    );
}

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(hostile(name)).unwrap()
}

#[test]
fn malformed_json_is_a_400_in_v1() {
    let mut s = configured();
    for name in [
        "malformed-truncated.json",
        "malformed-trailing-comma.json",
        "not-json.txt",
        "empty.json",
    ] {
        let review = answer(&mut s, &fixture(name));
        assert_bad_review(&review, name);
        assert_eq!(
            review["apiVersion"], "admission.k8s.io/v1",
            "{name}: unreadable input answers in v1"
        );
    }
}

#[test]
fn invalid_utf8_is_a_400() {
    let mut s = configured();
    let bytes = fixture("invalid-utf8.json");
    assert!(
        std::str::from_utf8(&bytes).is_err(),
        "the fixture must hold invalid UTF-8"
    );
    let review = answer(&mut s, &bytes);
    assert_bad_review(&review, "invalid UTF-8");
}

#[test]
fn a_non_object_is_a_400() {
    let mut s = configured();
    for name in [
        "non-object-array.json",
        "non-object-string.json",
        "non-object-null.json",
    ] {
        assert_bad_review(&answer(&mut s, &fixture(name)), name);
    }
    for literal in ["42", "true", "{}"] {
        assert_bad_review(&answer(&mut s, literal.as_bytes()), literal);
    }
}

#[test]
fn a_missing_request_is_a_400_naming_request() {
    let mut s = configured();
    for name in ["missing-request.json", "null-request.json"] {
        let review = answer(&mut s, &fixture(name));
        assert_bad_review(&review, name);
        let message = review["response"]["status"]["message"].as_str().unwrap();
        assert!(
            message.contains("request"),
            "{name}: the message must name `request`: {message}"
        );
    }
}

#[test]
fn wrong_field_types_are_a_400_that_echoes_the_uid() {
    let mut s = configured();
    let review = answer(&mut s, &fixture("wrong-types.json"));
    assert_bad_review(&review, "wrong-types.json");
    assert_eq!(
        review["response"]["uid"], "wrong-types",
        "the uid is readable, so it is echoed"
    );
    let review = answer(&mut s, &fixture("wrong-type-uid.json"));
    assert_bad_review(&review, "wrong-type-uid.json");
}

/// An object 10,001 levels deep: one more than Go's `encoding/json`, and so kube-apiserver, accepts. Objects up to
/// 10,000 levels are evaluated (tests/deep.rs).
#[test]
fn nesting_deeper_than_kube_apiserver_accepts_is_a_400() {
    let mut s = configured();
    let name = "deep-nesting-10000.json";
    let review = answer(&mut s, &fixture(name));
    assert_bad_review(&review, name);
    assert_eq!(review["response"]["uid"], "deep-nesting", "{review}");
    let message = review["response"]["status"]["message"].as_str().unwrap();
    assert!(message.contains("deeper than 10000 levels"), "{message}");
}

fn configmap_review(uid: &str, data: Value) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "request": {
            "uid": uid,
            "kind": {"group": "", "version": "v1", "kind": "ConfigMap"},
            "resource": {"group": "", "version": "v1", "resource": "configmaps"},
            "name": "big", "namespace": "default", "operation": "CREATE",
            "userInfo": {"username": "alice", "groups": ["system:authenticated"]},
            "object": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "big", "namespace": "default"}, "data": data},
            "oldObject": null, "dryRun": false
        }
    }))
    .unwrap()
}

#[test]
fn a_3_mib_object_is_answered_normally() {
    let mut s = configured();
    let mut data = serde_json::Map::new();
    for i in 0..3 * 1024 {
        data.insert(format!("key-{i:05}"), Value::String("x".repeat(1024)));
    }
    let input = configmap_review("three-mib", Value::Object(data));
    assert!(input.len() >= 3 << 20, "{} bytes", input.len());
    let review = answer(&mut s, &input);
    assert_eq!(review["response"]["uid"], "three-mib");
    assert_eq!(
        review["response"]["allowed"], true,
        "{}",
        review["response"]
    );
}

#[test]
fn an_array_of_100000_items_is_answered_normally() {
    let mut s = configured();
    let items: Vec<Value> = (0..100_000).map(|i| json!(i)).collect();
    let input = configmap_review("hundred-thousand", json!({ "items": items }));
    let review = answer(&mut s, &input);
    assert_eq!(review["response"]["uid"], "hundred-thousand");
    assert_eq!(
        review["response"]["allowed"], true,
        "{}",
        review["response"]
    );
}

#[test]
fn a_broken_bundle_is_rejected_listing_every_problem() {
    let mut s = palisade().instantiate().unwrap();
    let docs = palisade_harness::documents::read_bundle(&hostile("bundle-broken.yaml")).unwrap();
    let message = s
        .configure(&serde_json::to_vec(&docs).unwrap())
        .unwrap()
        .expect("the broken bundle must be rejected");
    for path in ["policies[0]", "policies[1]", "policies[2]"] {
        assert!(
            message.contains(path),
            "the message must name `{path}`: {message}"
        );
    }
    for name in [
        "bundle-malformed.json",
        "bundle-not-json.txt",
        "empty.json",
        "non-object-array.json",
    ] {
        let message = s.configure(&fixture(name)).unwrap();
        assert!(
            message.is_some_and(|m| !m.is_empty()),
            "{name} must be rejected with a message"
        );
    }
}

#[test]
fn configure_answers_exactly_valid_true() {
    let mut s = palisade().instantiate().unwrap();
    let out = s.call_json(Entry::Configure, EMPTY_BUNDLE).unwrap();
    assert_eq!(out, json!({"valid": true}));
    let out = s.call_json(Entry::Configure, b"{").unwrap();
    assert_eq!(out["valid"], false);
    assert!(out["message"].is_string());
}

fn pod_review() -> Vec<u8> {
    std::fs::read(common::workspace().join("tests/cases/foundation/recordings/pod-create.json"))
        .unwrap()
}

fn assert_not_configured(review: &Value) {
    let r = &review["response"];
    assert_eq!(r["allowed"], false, "{review}");
    assert_eq!(r["status"]["code"], 500, "{review}");
    let message = r["status"]["message"].as_str().unwrap_or("");
    assert!(
        message.starts_with("palisade is not configured: "),
        "{message}"
    );
    assert_eq!(
        r["uid"], "705ab4f5-6393-11e8-b7cc-42010a800002",
        "the uid is echoed"
    );
}

#[test]
fn validate_before_configure_is_a_500() {
    let mut s = palisade().instantiate().unwrap();
    assert_not_configured(&answer(&mut s, &pod_review()));
}

#[test]
fn validate_after_a_failed_configure_is_a_500_and_a_good_configure_replaces_it() {
    let mut s = palisade().instantiate().unwrap();
    assert!(
        s.configure(&fixture("bundle-malformed.json"))
            .unwrap()
            .is_some()
    );
    assert_not_configured(&answer(&mut s, &pod_review()));
    assert_eq!(s.configure(EMPTY_BUNDLE).unwrap(), None);
    let review = answer(&mut s, &pod_review());
    assert_eq!(review["response"]["allowed"], true, "{review}");
    // and a failed configure after a good one takes the module out of service again
    assert!(s.configure(b"{\"policies\": 7}").unwrap().is_some());
    assert_not_configured(&answer(&mut s, &pod_review()));
}

#[test]
fn the_answer_keeps_the_review_api_version_and_uid() {
    let mut s = configured();
    let mut review: Value = serde_json::from_slice(&pod_review()).unwrap();
    review["apiVersion"] = json!("admission.k8s.io/v1beta1");
    let out = answer(&mut s, &serde_json::to_vec(&review).unwrap());
    assert_eq!(out["apiVersion"], "admission.k8s.io/v1beta1");
    assert_eq!(
        out["response"]["uid"],
        "705ab4f5-6393-11e8-b7cc-42010a800002"
    );
}

#[test]
fn review_with_context_is_accepted() {
    let mut s = configured();
    let review: Value = serde_json::from_slice(&pod_review()).unwrap();
    let input = json!({"review": review, "context": {"namespaces": [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "production", "labels": {"env": "prod"}}}]}});
    let out = answer(&mut s, &serde_json::to_vec(&input).unwrap());
    assert_eq!(out["response"]["allowed"], true, "{out}");
    assert_eq!(
        out["response"]["uid"],
        "705ab4f5-6393-11e8-b7cc-42010a800002"
    );
}

#[test]
fn one_instance_survives_every_hostile_input_in_a_row() {
    // No input may leave the instance broken for the next one.
    let mut s = configured();
    let mut names: Vec<_> = std::fs::read_dir(hostile(""))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with("bundle-") && !n.ends_with(".md"))
        .collect();
    names.sort();
    assert!(names.len() >= 12, "{names:?}");
    for name in &names {
        let review = answer(&mut s, &fixture(name));
        assert_eq!(review["response"]["allowed"], false, "{name}: {review}");
        let good = answer(&mut s, &pod_review());
        assert_eq!(good["response"]["allowed"], true, "after {name}: {good}");
    }
}

/// The uid and apiVersion are echoed whenever they are present as strings, whatever else is unreadable: kube-apiserver
/// discards an answer with another uid and falls back to failurePolicy (under `Ignore`, admitting unchecked). The
/// inputs are an external fuzzer's minimal findings; the native library must answer exactly as the module does.
#[test]
fn the_uid_and_api_version_are_echoed_whatever_else_is_wrong() {
    let mut s = configured();
    for (name, uid, api_version) in [
        (
            "uid-beside-out-of-range-number.json",
            "0",
            "admission.k8s.io/v1",
        ),
        (
            "uid-with-out-of-range-operation.json",
            "0",
            "admission.k8s.io/v1",
        ),
        (
            "v1beta1-beside-out-of-range-number.json",
            "",
            "admission.k8s.io/v1beta1",
        ),
        (
            "uid-with-125-nested-arrays-in-kind.json",
            "nested-kind",
            "admission.k8s.io/v1beta1",
        ),
        (
            "request-without-user-info.json",
            "no-user",
            "admission.k8s.io/v1",
        ),
    ] {
        let input = fixture(name);
        let review = answer(&mut s, &input);
        assert_bad_review(&review, name);
        assert_eq!(review["response"]["uid"], uid, "{name}: {review}");
        assert_eq!(review["apiVersion"], api_version, "{name}: {review}");
        let native: Value = serde_json::from_str(&palisade::api::review_json(
            std::str::from_utf8(EMPTY_BUNDLE).unwrap(),
            std::str::from_utf8(&input).unwrap(),
        ))
        .unwrap();
        assert_eq!(native, review, "{name}: the library and the module differ");
    }
}

/// kube-apiserver always sends uid, kind, resource, operation and userInfo: a request without them is not evaluated.
#[test]
fn a_request_missing_what_the_apiserver_always_sends_is_a_400_naming_it() {
    let mut s = configured();
    for (name, field) in [
        ("empty-request.json", "uid"),
        ("request-without-user-info.json", "userInfo"),
    ] {
        let review = answer(&mut s, &fixture(name));
        assert_bad_review(&review, name);
        let message = review["response"]["status"]["message"].as_str().unwrap();
        assert!(
            message.contains(&format!("missing field `{field}`")),
            "{name}: {message}"
        );
    }
}

/// Small bundles with a great many mistakes (an external fuzzer's findings: 94,414 empty policies in 283 KB, a
/// binding with 200,000 validationActions; and 100,000 expressions of five syntax errors each, which cel-go reports
/// all of) are refused with a bounded answer, within the host's memory cap, and the instance keeps working.
#[test]
fn a_bundle_with_a_great_many_problems_is_refused_within_bounds() {
    let empty_policies = format!(r#"{{"policies":[{}{{}}]}}"#, "{},".repeat(94_413));
    let actions = format!(
        r#"{{"policies":[
            {{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy","metadata":{{"name":"p"}},
              "spec":{{"validations":[{{"expression":"true"}}]}}}},
            {{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicyBinding","metadata":{{"name":"b"}},
              "spec":{{"policyName":"p","validationActions":[{}"Deny"]}}}}]}}"#,
        r#""Deny","#.repeat(199_999)
    );
    let junk = format!(
        r#"{{"policies":[
            {{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy","metadata":{{"name":"p"}},
              "spec":{{"validations":[{}{{"expression":"true"}}]}}}}]}}"#,
        r#"{"expression":"@ @ @ @ @"},"#.repeat(100_000)
    );
    let mut s = palisade().instantiate().unwrap();
    for (what, bundle) in [
        ("empty policies", empty_policies),
        ("actions", actions),
        ("junk expressions", junk),
    ] {
        let message = s
            .configure(bundle.as_bytes())
            .unwrap_or_else(|e| panic!("{what}: configure must answer: {e}"))
            .unwrap_or_else(|| panic!("{what}: the bundle must be refused"));
        assert!(
            message.contains("more not listed"),
            "{what}: {message:.300}"
        );
        assert!(message.len() < 1_000_000, "{what}: {} bytes", message.len());
    }
    assert_eq!(s.configure(EMPTY_BUNDLE).unwrap(), None);
    let good = answer(&mut s, &pod_review());
    assert_eq!(good["response"]["allowed"], true, "{good}");
}

/// Expressions of a long line of junk: cel-go would print the line under each of its hundred syntax errors (a
/// hundred copies of 99,990 bytes for each expression here); Palisade's text for one is at most four bytes per byte of
/// it and 8 KiB (`palisade-cel`'s `compile`), so the answer stays within the host's memory cap.
#[test]
fn long_lines_of_junk_are_refused_within_bounds() {
    let line = "@ ".repeat(49_995);
    let bundle = format!(
        r#"{{"policies":[
            {{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy","metadata":{{"name":"p"}},
              "spec":{{"validations":[{}{{"expression":"true"}}]}}}}]}}"#,
        format!(r#"{{"expression":"{line}"}},"#).repeat(20)
    );
    let mut s = palisade().instantiate().unwrap();
    let message = s.configure(bundle.as_bytes()).unwrap().unwrap();
    assert!(
        message.contains("token recognition error at: '@'"),
        "{message:.300}"
    );
    assert!(
        message.len() < 20 * (5 * line.len() + 8192),
        "{} bytes",
        message.len()
    );
    assert_eq!(s.configure(EMPTY_BUNDLE).unwrap(), None);
}

/// Nesting the pre-parse bound of `palisade-cel` cannot see (lines after a comment holding `'''`, closing tokens of
/// the wrong kind) is refused by the parser's own bound: before it, each of these overflowed the stack and trapped
/// `configure` (the `cel` fuzz target's finding 7). The instance still takes a good bundle afterwards.
#[test]
fn nesting_hidden_from_the_pre_parse_bound_is_refused() {
    let mut s = palisade().instantiate().unwrap();
    for expression in [
        format!("// '''\n{}1{}", "[".repeat(10_000), "]".repeat(10_000)),
        format!("// '''\n{}c", "a ? b : ".repeat(12_000)),
        "[)\n".repeat(30_000),
    ] {
        let bundle = json!({"policies": [{
            "apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
            "metadata": {"name": "p"},
            "spec": {"validations": [{"expression": expression}]}}]});
        let message = s
            .configure(bundle.to_string().as_bytes())
            .unwrap_or_else(|e| panic!("{:.12}: configure must answer, not fail: {e}", expression))
            .unwrap_or_else(|| panic!("{:.12}: compiled", expression));
        assert!(
            message.contains("max recursion depth exceeded"),
            "{message:.300}"
        );
        assert!(
            message.contains("spec.validations[0].expression"),
            "{message:.300}"
        );
    }
    assert_eq!(s.configure(EMPTY_BUNDLE).unwrap(), None);
}

/// CertificateRequestPolicies whose CEL rules are junk: their problems are listed up to the bundle's limit and only
/// counted past it, as a ValidatingAdmissionPolicy's are (`bundle::Problems`). A rule of twenty `@` is twenty syntax
/// errors, about 2 KB of text; before `palisade_certificates::Policies::compile_reporting` the text of all 40,000
/// rules here (80 MB, 37 times the bundle's size) was kept until the answer was written; now the module's memory grows
/// by about 18 times the bundle's size.
#[test]
fn certificate_request_policies_of_junk_rules_are_refused_within_bounds() {
    let rule = "@".repeat(20);
    let policy = |i: usize| {
        format!(
            r#"{{"apiVersion":"policy.cert-manager.io/v1alpha1","kind":"CertificateRequestPolicy","metadata":{{"name":"p{i}"}},
              "spec":{{"allowed":{{"commonName":{{"validations":[{}{{"rule":"true"}}]}}}},"selector":{{"issuerRef":{{}}}}}}}}"#,
            format!(r#"{{"rule":"{rule}"}},"#).repeat(10)
        )
    };
    let policies: Vec<String> = (0..4_000).map(policy).collect();
    let bundle = format!(r#"{{"policies":[{}]}}"#, policies.join(","));
    let mut s = palisade().instantiate().unwrap();
    let before = s.memory_bytes();
    let message = s.configure(bundle.as_bytes()).unwrap().unwrap();
    assert!(
        message.contains("token recognition error at: '@'")
            && message.contains("39000 more not listed"),
        "{message:.300}"
    );
    let grown = s.memory_bytes() - before;
    assert!(
        grown < 32 * bundle.len(),
        "memory grew by {grown} bytes for a bundle of {}",
        bundle.len()
    );
    assert_eq!(s.configure(EMPTY_BUNDLE).unwrap(), None);
}

/// Wide CEL expressions: a list literal of 49,000 elements (98 KB, within kube-apiserver's 100,000 characters) keeps
/// about 7 MB of the module's memory once compiled, so 80 of them in a bundle of 7.9 MB needed more than the host's
/// 512 MiB, and `configure` trapped. A bundle's CEL is at most `palisade_cel::MAX_BUNDLE_SOURCE_BYTES` (2 MiB) in all:
/// the expression that goes past it is reported, and nothing after it is compiled, in a ValidatingAdmissionPolicy
/// as in a CertificateRequestPolicy.
#[test]
fn a_bundle_of_more_cel_than_the_limit_is_refused_within_bounds() {
    let list = format!("[{}1]", "1,".repeat(48_999));
    let vap = |i: usize| {
        format!(
            r#"{{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy","metadata":{{"name":"p{i}"}},
              "spec":{{"matchConstraints":{{"resourceRules":[{{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE"],"resources":["pods"]}}]}},
                      "validations":[{{"expression":"{list} == []"}}]}}}}"#
        )
    };
    let crp = |i: usize| {
        format!(
            r#"{{"apiVersion":"policy.cert-manager.io/v1alpha1","kind":"CertificateRequestPolicy","metadata":{{"name":"c{i}"}},
              "spec":{{"allowed":{{"commonName":{{"validations":[{{"rule":"self in {list}.map(x, string(x))"}}]}}}},"selector":{{"issuerRef":{{}}}}}}}}"#
        )
    };
    for (what, documents, at) in [
        (
            "ValidatingAdmissionPolicies",
            (0..80).map(vap).collect::<Vec<_>>(),
            "policies[21].spec.validations[0].expression",
        ),
        (
            "CertificateRequestPolicies",
            (0..80).map(crp).collect::<Vec<_>>(),
            "policies[21].spec.allowed",
        ),
    ] {
        let bundle = format!(r#"{{"policies":[{}]}}"#, documents.join(","));
        let mut s = palisade().instantiate().unwrap();
        let before = s.memory_bytes();
        let message = s
            .configure(bundle.as_bytes())
            .unwrap_or_else(|e| panic!("{what}: configure must answer: {e}"))
            .unwrap_or_else(|| panic!("{what}: the bundle must be refused"));
        assert!(
            message.contains(at) && message.contains("more than 2097152 bytes"),
            "{what}: {message:.500}"
        );
        let grown = s.memory_bytes() - before;
        assert!(
            grown < 256 << 20,
            "{what}: memory grew by {grown} bytes for a bundle of {}",
            bundle.len()
        );
        assert_eq!(s.configure(EMPTY_BUNDLE).unwrap(), None);
    }
}

/// A bundle larger than `MAX_BUNDLE_BYTES` is refused before it is read.
#[test]
fn an_over_large_bundle_is_refused_with_the_limit() {
    let bundle = format!(
        r#"{{"policies":[],"params":[{{"data":"{}"}}]}}"#,
        "x".repeat(9 * 1024 * 1024)
    );
    let mut s = palisade().instantiate().unwrap();
    let message = s.configure(bundle.as_bytes()).unwrap().unwrap();
    assert!(
        message.contains("more than the 8388608 bytes"),
        "{message:.300}"
    );
}
