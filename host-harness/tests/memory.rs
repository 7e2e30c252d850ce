//! Linear memory of the real `palisade.wasm` on the standard workload (bench/): evaluating pod-baseline grows it by at
//! most 1 MiB, and 100,000 requests on one instance do not grow it at all after warm-up; nor does a reused
//! `palisade-kubewarden.wasm`, with the settings on every call. Pages are counted, not time.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "integration tests fail loudly, helpers included"
)]

mod common;

use common::{palisade, workspace};
use palisade_harness::documents;
use palisade_harness::host::bundle_bytes;

fn pod_baseline() -> (Vec<u8>, Vec<u8>) {
    let ws = workspace();
    let bundle = documents::read_bundle(&ws.join("bench/pod-baseline.yaml")).unwrap();
    let review = std::fs::read(ws.join("bench/pod-review.json")).unwrap();
    (bundle_bytes(&bundle).unwrap(), review)
}

#[test]
fn memory_stops_growing_across_100000_requests() {
    let (bundle, review) = pod_baseline();
    let mut s = palisade().instantiate().unwrap();
    assert_eq!(s.configure(&bundle).unwrap(), None);
    let configured = s.memory_bytes();
    let first = s.validate(&review).unwrap();
    assert_eq!(first["response"]["allowed"], true, "{first}");
    let one_request = s.memory_bytes() - configured;
    assert!(
        one_request <= 1 << 20,
        "evaluating pod-baseline grew linear memory by {one_request} bytes"
    );
    // warm-up: let the allocator settle into its steady state
    for _ in 0..1_000 {
        s.validate(&review).unwrap();
    }
    let warm = s.memory_bytes();
    for i in 0..100_000 {
        let out = s.validate(&review).unwrap();
        if i % 10_000 == 0 {
            assert_eq!(out["response"]["allowed"], true, "{out}");
        }
    }
    assert_eq!(
        s.memory_bytes(),
        warm,
        "linear memory grew from {warm} bytes across 100,000 requests"
    );
}

/// The Kubewarden module reused as kwctl bench and other reused hosts run it: the settings through `validate_settings`,
/// then sent again with every `validate` (at the end of the payload, as policy-server writes it). 20,000 requests do
/// not grow linear memory after warm-up, nor do settings that change on every call (each change compiles them again
/// and drops what the last ones compiled).
#[test]
fn kubewarden_memory_stops_growing_across_requests_and_settings() {
    let (bundle, review) = pod_baseline();
    let request =
        serde_json::from_slice::<serde_json::Value>(&review).unwrap()["request"].to_string();
    let settings = String::from_utf8(bundle).unwrap();
    let payload = format!(r#"{{"request":{request},"settings":{settings}}}"#);
    let other = format!(r#"{{"request":{request},"settings":{{}}}}"#);
    let module = std::fs::read(common::artifact("palisade-kubewarden.wasm")).unwrap();
    let mut guest = common::wapc::Guest::new(&module);
    let (valid, _) = guest.call("validate_settings", settings.as_bytes());
    assert_eq!(valid, br#"{"valid":true,"message":null}"#);
    let validate = |guest: &mut common::wapc::Guest, payload: &str| {
        let (answer, _) = guest.call("validate", payload.as_bytes());
        let answer: serde_json::Value = serde_json::from_slice(&answer).unwrap();
        assert_eq!(answer["accepted"], true, "{answer}");
    };
    for _ in 0..1_000 {
        validate(&mut guest, &payload);
    }
    let warm = guest.memory().len();
    for _ in 0..20_000 {
        validate(&mut guest, &payload);
    }
    assert_eq!(
        guest.memory().len(),
        warm,
        "linear memory grew from {warm} bytes across 20,000 requests"
    );
    // settings that change on every call
    for _ in 0..50 {
        validate(&mut guest, &other);
        validate(&mut guest, &payload);
    }
    let warm = guest.memory().len();
    for _ in 0..200 {
        validate(&mut guest, &other);
        validate(&mut guest, &payload);
    }
    assert_eq!(
        guest.memory().len(),
        warm,
        "linear memory grew from {warm} bytes across 400 requests whose settings changed every time"
    );
}
