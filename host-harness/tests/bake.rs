//! Baked modules (`palisade bake`) through the real artifacts: a fresh instance answers without `configure` exactly as
//! a configured one does, `configure` still replaces the baked bundle, the Kubewarden module keeps its metadata. Every
//! case file through a module baked with its bundle is `tests/case_files.rs` (`baked::<case>`).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "integration tests fail loudly, helpers included"
)]

mod common;

use std::path::Path;

use palisade_harness::backend::Backend;
use palisade_harness::bake::{self, Protocol};
use palisade_harness::host::{Runtime, WasmHost, bundle_bytes};
use palisade_harness::kubewarden::KubewardenBackend;
use palisade_harness::{annotate, documents};
use serde_json::Value;

fn workload() -> (Vec<u8>, Vec<u8>) {
    let ws = common::workspace();
    let bundle = documents::read_bundle(&ws.join("bench/pod-baseline.yaml")).unwrap();
    let review = std::fs::read(ws.join("bench/pod-review.json")).unwrap();
    (bundle_bytes(&bundle).unwrap(), review)
}

fn baked_host(bundle: &[u8]) -> WasmHost {
    let original = std::fs::read(common::artifact("palisade.wasm")).unwrap();
    let baked = bake::bake(&original, Protocol::CAbi, bundle).unwrap();
    assert_eq!(
        bake::baked_bundle_hash(&baked),
        Some(bake::bundle_hash(bundle))
    );
    WasmHost::from_bytes(
        &Runtime::shared().unwrap(),
        Path::new("palisade.wasm (baked)"),
        &baked,
    )
    .unwrap()
}

/// A privileged Pod, which pod-baseline denies.
fn privileged_review(review: &[u8]) -> Vec<u8> {
    let mut v: Value = serde_json::from_slice(review).unwrap();
    v["request"]["object"]["spec"]["containers"][0]["securityContext"] =
        serde_json::json!({"privileged": true});
    serde_json::to_vec(&v).unwrap()
}

#[test]
fn a_fresh_baked_instance_answers_without_configure_as_a_configured_one() {
    let (bundle, review) = workload();
    let denied = privileged_review(&review);
    let mut configured = common::palisade().instantiate().unwrap();
    assert_eq!(configured.configure(&bundle).unwrap(), None);
    let host = baked_host(&bundle);
    for input in [&review, &denied] {
        let want = configured.validate(input).unwrap();
        let mut fresh = host.instantiate().unwrap();
        assert_eq!(fresh.validate(input).unwrap(), want);
    }
    assert_eq!(
        configured.validate(&denied).unwrap()["response"]["allowed"],
        false
    );
}

#[test]
fn configure_on_a_baked_module_replaces_the_bundle() {
    let (bundle, review) = workload();
    let denied = privileged_review(&review);
    let mut s = baked_host(&bundle).instantiate().unwrap();
    assert_eq!(s.validate(&denied).unwrap()["response"]["allowed"], false);
    assert_eq!(s.configure(br#"{"policies":[]}"#).unwrap(), None);
    assert_eq!(s.validate(&denied).unwrap()["response"]["allowed"], true);
}

#[test]
fn a_bundle_that_does_not_compile_is_not_baked() {
    let original = std::fs::read(common::artifact("palisade.wasm")).unwrap();
    let e = bake::bake(&original, Protocol::CAbi, br#"{"policies":[{"kind":"X"}]}"#).unwrap_err();
    assert!(e.to_string().contains("the bundle does not compile"), "{e}");
}

#[test]
fn a_baked_module_keeps_the_c_abi_contract() {
    let (bundle, _) = workload();
    let original = std::fs::read(common::artifact("palisade.wasm")).unwrap();
    let baked = bake::bake(&original, Protocol::CAbi, &bundle).unwrap();
    let exports = |wasm: &[u8]| {
        let mut names = Vec::new();
        let mut imports = 0;
        for payload in wasmparser::Parser::new(0).parse_all(wasm) {
            match payload.unwrap() {
                wasmparser::Payload::ExportSection(r) => {
                    names.extend(r.into_iter().map(|e| e.unwrap().name.to_owned()));
                }
                wasmparser::Payload::ImportSection(r) => imports += r.count(),
                _ => {}
            }
        }
        (names, imports)
    };
    assert_eq!(exports(&baked), exports(&original));
    assert_eq!(
        exports(&baked).1,
        0,
        "palisade.wasm has no imports, baked or not"
    );
}

#[test]
fn a_baked_kubewarden_module_keeps_its_metadata_and_answers_the_same() {
    let (bundle, review) = workload();
    let original = std::fs::read(common::artifact("palisade-kubewarden.wasm")).unwrap();
    let baked = bake::bake(&original, Protocol::Kubewarden, &bundle).unwrap();
    assert_eq!(
        annotate::read_metadata(&baked).unwrap(),
        annotate::read_metadata(&original).unwrap()
    );
    assert!(annotate::read_metadata(&baked).unwrap().is_some());
    let path = common::scratch_dir("bake").join("baked-kubewarden.wasm");
    std::fs::write(&path, &baked).unwrap();
    let bundle: Value = serde_json::from_slice(&bundle).unwrap();
    let review: Value = serde_json::from_slice(&review).unwrap();
    let denied: Value =
        serde_json::from_slice(&privileged_review(&serde_json::to_vec(&review).unwrap())).unwrap();
    let baked = KubewardenBackend::load(&path).unwrap();
    let unbaked = KubewardenBackend::load(&common::artifact("palisade-kubewarden.wasm")).unwrap();
    for r in [&review, &denied] {
        let deadline = palisade_harness::host::DEFAULT_DEADLINE;
        assert_eq!(
            baked.evaluate(&bundle, r, None, deadline).unwrap(),
            unbaked.evaluate(&bundle, r, None, deadline).unwrap()
        );
    }
}
