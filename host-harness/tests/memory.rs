//! Linear memory of the real `palisade.wasm` on the standard workload (bench/): evaluating pod-baseline grows it by at
//! most 1 MiB, and 100,000 requests on one instance do not grow it at all after warm-up. Pages are counted, not time.
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
