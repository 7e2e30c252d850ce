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

/// A review as kube-apiserver and `palisade bench` send it: compact JSON.
fn compact(review: &[u8]) -> Vec<u8> {
    serde_json::to_vec(&serde_json::from_slice::<Value>(review).unwrap()).unwrap()
}

/// The 4 KiB pages of a linear memory that differ between two readings of it (pages it grew by: those not all zero).
fn pages_written(before: &[u8], after: &[u8]) -> Vec<usize> {
    after
        .chunks(4096)
        .enumerate()
        .filter(|(i, page)| match before.get(i * 4096..(i + 1) * 4096) {
            Some(was) => was != *page,
            None => page.iter().any(|&b| b != 0),
        })
        .map(|(i, _)| i)
        .collect()
}

/// Where the shadow stack starts: it grows down from 1 MiB (the first MiB of memory, below the data).
const STACK_TOP: usize = 1 << 20;

/// How many bytes down the stack a call reached: the lowest byte below [`STACK_TOP`] it changed.
fn stack_reached(before: &[u8], after: &[u8]) -> usize {
    before[..STACK_TOP]
        .iter()
        .zip(&after[..STACK_TOP])
        .position(|(b, a)| b != a)
        .map_or(0, |at| STACK_TOP - at)
}

/// A request's stack fits in one page: the one page a fresh instance writes for it.
fn assert_one_page_of_stack(before: &[u8], after: &[u8]) {
    let deepest = stack_reached(before, after);
    assert!(
        deepest <= 4096,
        "one pod-baseline request reached {deepest} bytes down the stack"
    );
}

/// One request in a fresh baked instance (`what` names it) writes at most `most` pages.
fn assert_pages_written_at_most(before: &[u8], after: &[u8], most: usize, what: &str) {
    let written = pages_written(before, after);
    assert!(
        written.len() <= most,
        "{what}: one request in a fresh baked instance wrote {} pages: {written:x?}",
        written.len()
    );
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

/// wasmtime's pooling allocator (`palisade bench --pooling`, [`Runtime::pooled`]) gives a fresh instance a memory slot
/// an earlier instance used, the pages that instance wrote restored from the module's image by copying. Every fresh
/// baked instance must still start from the baked engine, whatever the slot's last instance did: allowed or denied a
/// request, answered input that is not JSON, or was configured with another bundle.
#[test]
fn pooled_fresh_baked_instances_start_from_the_image_whatever_the_slot_did_before() {
    let (bundle, review) = workload();
    let denied = privileged_review(&review);
    let original = std::fs::read(common::artifact("palisade.wasm")).unwrap();
    let baked = bake::bake(&original, Protocol::CAbi, &bundle).unwrap();
    let pooled = WasmHost::from_bytes(
        &Runtime::pooled().unwrap(),
        Path::new("palisade.wasm (baked, pooled)"),
        &baked,
    )
    .unwrap();
    let on_demand = baked_host(&bundle);
    let inputs: [&[u8]; 3] = [&review, &denied, br#"{"request":{"uid":"u-1"},"#];
    let want: Vec<Value> = inputs
        .iter()
        .map(|input| on_demand.instantiate().unwrap().validate(input).unwrap())
        .collect();
    assert_eq!(want[0]["response"]["allowed"], true);
    assert_eq!(want[1]["response"]["allowed"], false);
    assert_eq!(want[2]["response"]["status"]["code"], 400);
    for round in 0..3 {
        for (input, want) in inputs.iter().zip(&want) {
            let mut fresh = pooled.instantiate().unwrap();
            assert_eq!(&fresh.validate(input).unwrap(), want, "round {round}");
            drop(fresh);
            // the next instance in the slot is configured with a bundle that allows everything
            let mut reconfigured = pooled.instantiate().unwrap();
            assert_eq!(reconfigured.configure(br#"{"policies":[]}"#).unwrap(), None);
            assert_eq!(
                reconfigured.validate(&denied).unwrap()["response"]["allowed"],
                true
            );
        }
    }
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

/// Baking is reproducible: the same bundle bakes into the same bytes, so a shipped module can be checked by baking again
/// and comparing. (The WASI command's, whose standard library draws random hash keys, is `tests/wasi.rs`.)
#[test]
fn a_bundle_bakes_into_the_same_bytes_every_time() {
    let (bundle, _) = workload();
    for (artifact, protocol) in [
        ("palisade.wasm", Protocol::CAbi),
        ("palisade-kubewarden.wasm", Protocol::Kubewarden),
    ] {
        let original = std::fs::read(common::artifact(artifact)).unwrap();
        let once = bake::bake(&original, protocol, &bundle).unwrap();
        assert!(
            once == bake::bake(&original, protocol, &bundle).unwrap(),
            "{artifact}"
        );
    }
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

/// `palisade.wasm` without the section that names its tool functions: a module `palisade bake` cannot seal.
fn without_tool_exports(wasm: &[u8]) -> Vec<u8> {
    use wasm_encoder::Section as _;
    let mut out = Vec::new();
    for payload in wasmparser::Parser::new(0).parse_all(wasm) {
        let payload = payload.unwrap();
        match &payload {
            wasmparser::Payload::Version { range, .. } => {
                out.extend_from_slice(&wasm[range.clone()]);
                continue;
            }
            wasmparser::Payload::CustomSection(c) if c.name() == bake::TOOL_EXPORTS_SECTION => {
                continue;
            }
            _ => {}
        }
        if let Some((id, range)) = payload.as_section() {
            wasm_encoder::RawSection {
                id,
                data: &wasm[range],
            }
            .append_to(&mut out);
        }
    }
    out
}

/// The pages of a fresh instance's initial memory that hold data (the baked image) and that one `validate` writes.
fn image_pages_written(baked: &[u8], review: &[u8]) -> usize {
    let host =
        WasmHost::from_bytes(&Runtime::shared().unwrap(), Path::new("baked"), baked).unwrap();
    let mut fresh = host.instantiate().unwrap();
    let before = fresh.memory_data().to_vec();
    assert_eq!(fresh.validate(review).unwrap()["response"]["allowed"], true);
    let after = fresh.memory_data();
    before
        .chunks(4096)
        .zip(after.chunks(4096))
        .filter(|(b, a)| b.iter().any(|&x| x != 0) && b != a)
        .count()
}

// crate/src/abi/seal.rs: a host maps a baked module's image copy-on-write, so every image page a request writes is a
// page copied in each fresh instance. Sealed, the request's allocations go to new pages past the image.
#[test]
fn a_sealed_baked_module_allocates_past_its_image() {
    let (bundle, review) = workload();
    let original = std::fs::read(common::artifact("palisade.wasm")).unwrap();
    let layout = bake::layout(&original).unwrap();
    assert!(
        layout
            .tool_exports
            .iter()
            .any(|(name, _)| name == bake::SEAL),
        "palisade.wasm names palisade_seal in its {} section: {:?}",
        bake::TOOL_EXPORTS_SECTION,
        layout.tool_exports
    );
    // the waPC module exports it: bake's waPC driver finds it by name
    let kubewarden = std::fs::read(common::artifact("palisade-kubewarden.wasm")).unwrap();
    let exported = wasmparser::Parser::new(0)
        .parse_all(&kubewarden)
        .filter_map(|p| match p.unwrap() {
            wasmparser::Payload::ExportSection(r) => Some(r),
            _ => None,
        })
        .flat_map(|r| r.into_iter().map(|e| e.unwrap().name.to_owned()))
        .any(|name| name == bake::SEAL);
    assert!(exported, "palisade-kubewarden.wasm exports {}", bake::SEAL);
    let unsealable = without_tool_exports(&original);
    assert!(bake::layout(&unsealable).unwrap().tool_exports.is_empty());
    let sealed = image_pages_written(
        &bake::bake(&original, Protocol::CAbi, &bundle).unwrap(),
        &review,
    );
    let unsealed = image_pages_written(
        &bake::bake(&unsealable, Protocol::CAbi, &bundle).unwrap(),
        &review,
    );
    assert!(
        sealed < unsealed,
        "a request writes {sealed} pages of the sealed image, {unsealed} of the unsealed one"
    );
}

// `configure` leaves its frames below the stack pointer; between calls they are dead, and bake leaves them out of the
// image (they were four pages of it, copied by a fresh request's first frames instead of zero-filled).
#[test]
fn a_baked_image_leaves_out_the_dead_stack() {
    let (bundle, _) = workload();
    let original = std::fs::read(common::artifact("palisade.wasm")).unwrap();
    let layout = bake::layout(&original).unwrap();
    assert_eq!(
        layout.stack_first,
        Some((0, 1 << 20)),
        "rust-lld lays the stack out first"
    );
    let baked = bake::bake(&original, Protocol::CAbi, &bundle).unwrap();
    let lowest = wasmparser::Parser::new(0)
        .parse_all(&baked)
        .filter_map(|p| match p.unwrap() {
            wasmparser::Payload::DataSection(r) => Some(r),
            _ => None,
        })
        .flat_map(|r| r.into_iter().map(|d| d.unwrap()))
        .filter_map(|d| match d.kind {
            wasmparser::DataKind::Active { offset_expr, .. } => {
                match offset_expr.get_operators_reader().read().unwrap() {
                    wasmparser::Operator::I32Const { value } => Some(value as u32),
                    _ => None,
                }
            }
            wasmparser::DataKind::Passive => None,
        })
        .min()
        .unwrap();
    assert!(
        lowest >= 1 << 20,
        "a data segment of the baked module starts at {lowest:#x}, below the stack's top"
    );
    // a module whose data lies below its first global's value does not lay its stack out first
    let mut unlike = layout.clone();
    unlike.stack_first = None;
    let mut snapshot = bake::Snapshot {
        memory: vec![1; 16],
        globals: vec![(0, bake::GlobalValue::I32(8))],
    };
    unlike.clear_dead_stack(&mut snapshot);
    assert_eq!(snapshot.memory, vec![1; 16]);
    layout.clear_dead_stack(&mut snapshot);
    assert_eq!(snapshot.memory, [vec![0; 8], vec![1; 8]].concat());
    // never past the stack's initial top, whatever the pointer says
    let mut low = layout.clone();
    low.stack_first = Some((0, 4));
    let mut snapshot = bake::Snapshot {
        memory: vec![1; 16],
        globals: vec![(0, bake::GlobalValue::I32(8))],
    };
    low.clear_dead_stack(&mut snapshot);
    assert_eq!(snapshot.memory, [vec![0; 4], vec![1; 12]].concat());
}

// Each page a request touches first is a page fault in a fresh instance, the larger part of a fresh request's cost
// after its instructions. pod-review, sent as compact JSON as kube-apiserver and `palisade bench` send it, writes one
// stack page, the statics (the allocator's state and the module's own, under 1 KiB together) and five pages of the
// heap (the review, its tape, everything else), under any of the bundles below (each lays the baked heap out
// differently). palisade-json's parser reserves room for the tape of compact JSON up front (growing it copies it onto
// new pages) after its small vectors and gives back the room it did not use: ten pages before, eight before the stack
// of pod-baseline's request fit in a page. The statics follow the read-only data, so whether they fit in one page or
// straddle two depends on its length, which any new message or table moves (two pages since the December 2026 build
// with `sortBy`).
//
// Where the heap's pages lie matters as much as how many there are. The image a host maps is everything up to the
// initial memory's last byte that is not zero, as one file, its zero pages included: a page of it that a request
// writes is copied from the file (and, in a multi-threaded host, flushes the TLB of every core if it was read first),
// where a page past it is only zero-filled. `palisade_seal` starts the heap's free end on a page boundary and clears
// what lies past that (headers of blocks it gave back, the allocator's end marker at the end of memory): before
// that, the image reached to the end of memory and the request's five heap pages were pages of it (December 2026,
// side by side: a fresh pod-baseline request 0.94× the time in batches, 0.97–0.98× right after ferricel's;
// bench/README.md). Of the image, a request writes at most three pages: the statics' two and the free end's first,
// whose header the first block splits.
#[test]
fn a_fresh_baked_request_writes_at_most_eight_pages_three_of_its_image() {
    let ws = common::workspace();
    let review = std::fs::read(ws.join("bench/pod-review.json")).unwrap();
    let compact = compact(&review);
    for source in [
        "bench/pod-baseline.yaml",
        "policies/vap/allowed-registries/bundle.yaml",
        "policies/vap/pod-security-baseline/bundle.yaml",
        "policies/vap/pod-security-restricted/bundle.yaml",
        "policies/vap/replica-limits/bundle.yaml",
    ] {
        let bundle = bundle_bytes(&documents::read_bundle(&ws.join(source)).unwrap()).unwrap();
        let mut fresh = baked_host(&bundle).instantiate().unwrap();
        let before = fresh.memory_data().to_vec();
        let answer = fresh.validate(&compact).unwrap();
        assert!(
            answer["response"]["allowed"].is_boolean(),
            "{source}: {answer}"
        );
        let after = fresh.memory_data();
        assert_pages_written_at_most(&before, after, 8, source);
        let image_end = before.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
        assert!(
            before.len() - image_end >= 64 << 10,
            "{source}: the image ends at {image_end:#x}, in the last 64 KiB of the initial memory ({:#x} bytes): \
             the heap's free end is part of it",
            before.len()
        );
        let of_the_image: Vec<usize> = pages_written(&before, after)
            .into_iter()
            .filter(|page| page * 4096 < image_end)
            .filter(|page| page * 4096 >= STACK_TOP)
            .collect();
        assert!(
            of_the_image.len() <= 3,
            "{source}: one request wrote pages {of_the_image:x?} of the image, which ends at {image_end:#x}"
        );
    }
}

// Linux maps a page of a baked module's image that a fresh instance reads together with the pages around it in the
// same aligned 64 KiB (fault-around): a request pays one page fault per such window of the image it reads. What a
// pod-baseline request reads of the image: statics, read-only data, the allocator's state and the engine. The shared
// CEL declarations are built before the bundle is read (`api::read_bundle`), so the engine's programs and the bundle's
// strings lie together past them: two windows, not three. A page is read when overwriting it changes the answer.
#[test]
fn a_fresh_baked_request_reads_its_image_in_at_most_five_windows() {
    let (bundle, review) = workload();
    let compact = compact(&review);
    let host = baked_host(&bundle);
    let answer = |poisoned: Option<usize>| {
        let mut fresh = host.instantiate().unwrap();
        fresh.set_deadline(std::time::Duration::from_millis(200));
        if let Some(page) = poisoned {
            fresh.memory_data_mut()[page * 4096..(page + 1) * 4096].fill(0xAB);
        }
        format!("{:?}", fresh.validate(&compact))
    };
    let expected = answer(None);
    assert!(expected.contains("\"allowed\": Bool(true)"), "{expected}");
    let image = host.instantiate().unwrap().memory_data().to_vec();
    let (read, windows) = image_read(&image, |page| answer(Some(page)) != expected);
    assert!(
        windows <= 5,
        "a request reads image pages {read:x?}, in {windows} windows of 64 KiB"
    );
}

/// The pages of a fresh instance's `image` (its memory before a call; pages of zeros are not the image's) that a
/// request reads, as `changes_answer(page)` finds them (the answer with that page overwritten differs), and the
/// number of aligned 64 KiB windows they lie in.
fn image_read(image: &[u8], changes_answer: impl Fn(usize) -> bool) -> (Vec<usize>, usize) {
    let read: Vec<usize> = image
        .chunks(4096)
        .enumerate()
        .filter(|(_, page)| page.iter().any(|&b| b != 0))
        .map(|(i, _)| i)
        .filter(|&page| changes_answer(page))
        .collect();
    let windows: std::collections::BTreeSet<usize> = read.iter().map(|page| page / 16).collect();
    (read, windows.len())
}

// The stack (rust-lld's default for wasm32: the first 1 MiB of memory, growing down from 1 MiB) costs a page fault per
// 4 KiB page a fresh request reaches: pod-baseline's deepest request stays within one. It reached 5.6 KiB before the
// request was boxed as it is read and the rare arms of the CEL evaluator moved out of line (their temporaries were in
// every nested frame), 4.1 KiB before a CEL value shrank from 32 to 24 bytes (`palisade_cel::time`: no `i128`, which
// is 16-byte aligned on wasm32) and the explain traces were appended out of line (`vap::Policies::review_with`).
#[test]
fn a_fresh_baked_request_reaches_one_page_of_stack() {
    let (bundle, review) = workload();
    let compact = compact(&review);
    let mut fresh = baked_host(&bundle).instantiate().unwrap();
    let before = fresh.memory_data().to_vec();
    assert_eq!(
        fresh.validate(&compact).unwrap()["response"]["allowed"],
        true
    );
    assert_one_page_of_stack(&before, fresh.memory_data());
}

// crate/src/abi/kubewarden.rs: bake ran `wapc_init` before its snapshot, so the image already holds the registered
// operations. A waPC host calls `wapc_init` again on every fresh instance; registering anew wrote the registry's lock,
// table and keys (four image pages copied per request, and 6,000 instructions). It now writes nothing.
#[test]
fn wapc_init_of_a_fresh_baked_kubewarden_instance_writes_nothing() {
    let (bundle, _) = workload();
    let original = std::fs::read(common::artifact("palisade-kubewarden.wasm")).unwrap();
    let baked = bake::bake(&original, Protocol::Kubewarden, &bundle).unwrap();
    let mut guest = common::wapc::Guest::instantiate(&baked);
    let before = guest.memory().to_vec();
    guest.init();
    let written = pages_written(&before, guest.memory());
    assert_eq!(written, Vec::<usize>::new(), "pages wapc_init wrote");
}

// The Kubewarden module's fresh baked request, read as the C ABI's is above: the payload's settings are recognised
// by their hash, so the request reads the engine where the C ABI's does, and the image pages its own code reads (the
// waPC registry, the settings' hash) lie in the same windows. Five windows, as the C ABI's (measured in December 2026:
// 15 pages in 5 windows, the build before the CEL crate split 13 in 5).
#[test]
fn a_fresh_baked_kubewarden_request_reads_its_image_in_at_most_five_windows() {
    let (baked, request, settings) = baked_kubewarden_workload();
    let payload = format!(r#"{{"request":{request},"settings":{settings}}}"#);
    let compiled = common::wapc::compile(&baked);
    // a poisoned page can send the guest round a loop for good: ten times what the request runs is the bound
    let answer = |poisoned: Option<usize>| {
        let mut guest = common::wapc::Guest::of(&compiled);
        if let Some(page) = poisoned {
            guest.exported_memory("memory")[page * 4096..(page + 1) * 4096].fill(0xAB);
        }
        guest.try_call("validate", payload.as_bytes(), 5_000_000)
    };
    let expected = answer(None).expect("the request answers");
    assert!(
        serde_json::from_slice::<Value>(&expected).unwrap()["accepted"] == true,
        "{}",
        String::from_utf8_lossy(&expected)
    );
    let image = common::wapc::Guest::of(&compiled).memory().to_vec();
    let (read, windows) = image_read(&image, |page| {
        answer(Some(page)).as_ref() != Some(&expected)
    });
    assert!(
        windows <= 5,
        "a Kubewarden request reads image pages {read:x?}, in {windows} windows of 64 KiB"
    );
}

/// One `validate` on a fresh instance of a baked Kubewarden module through the least waPC host that runs it
/// ([`common::wapc::Guest`]): the instance's memory before the call, after it, the guest's response and the wasm
/// instructions the call ran (wasmtime's fuel: a count, not a time).
fn fresh_kubewarden_validate(baked: &[u8], payload: &[u8]) -> (Vec<u8>, Vec<u8>, Value, u64) {
    let mut guest = common::wapc::Guest::new(baked);
    let before = guest.memory().to_vec();
    let (response, ran) = guest.call("validate", payload);
    let after = guest.memory().to_vec();
    (
        before,
        after,
        serde_json::from_slice(&response).unwrap(),
        ran,
    )
}

/// The Kubewarden module baked with the pod-baseline bundle, and the workload's request and settings as compact JSON
/// (as policy-server writes them into its payload).
fn baked_kubewarden_workload() -> (Vec<u8>, String, String) {
    let (bundle, review) = workload();
    let original = std::fs::read(common::artifact("palisade-kubewarden.wasm")).unwrap();
    let baked = bake::bake(&original, Protocol::Kubewarden, &bundle).unwrap();
    let review: Value = serde_json::from_slice(&review).unwrap();
    let request = serde_json::to_string(&review["request"]).unwrap();
    let settings =
        serde_json::to_string(&serde_json::from_slice::<Value>(&bundle).unwrap()).unwrap();
    (baked, request, settings)
}

// crate/src/kubewarden.rs: the Kubewarden payload's request is read boxed, so it is not copied through the frames that
// read it (pod-baseline's deepest request went from 5,288 to 4,008 bytes of stack: one page, as the C ABI's), and the
// settings at the payload's end are recognised, not read. A fresh request of a baked module writes one stack page, the
// allocator's state and the pages past the image it allocates (the payload, its tape, everything else): nine pages,
// ten before.
#[test]
fn a_fresh_baked_kubewarden_request_reaches_one_page_of_stack() {
    let (baked, request, settings) = baked_kubewarden_workload();
    let payload = format!(r#"{{"request":{request},"settings":{settings}}}"#);
    let (before, after, response, _) = fresh_kubewarden_validate(&baked, payload.as_bytes());
    assert_eq!(response["accepted"], true, "{response}");
    assert_one_page_of_stack(&before, &after);
    assert_pages_written_at_most(&before, &after, 9, "kubewarden");
}

// crate/src/abi/kubewarden.rs, read_before_last_settings: policy-server's payload ends with the settings, and when
// they are the ones the instance compiled last only the request before them is read. Counted in wasm instructions: the
// payload with its settings last must cost fewer than the same payload with its settings first (read whole) by at
// least four instructions per byte of settings (reading them into the payload's tape costs about fifteen), and both
// must answer alike.
#[test]
fn a_baked_kubewarden_module_does_not_read_the_settings_at_the_end_of_the_payload() {
    let (baked, request, settings) = baked_kubewarden_workload();
    let last = format!(r#"{{"request":{request},"settings":{settings}}}"#);
    let first = format!(r#"{{"settings":{settings},"request":{request}}}"#);
    let (_, _, answer_last, ran_last) = fresh_kubewarden_validate(&baked, last.as_bytes());
    let (_, _, answer_first, ran_first) = fresh_kubewarden_validate(&baked, first.as_bytes());
    assert_eq!(answer_last, answer_first);
    assert_eq!(answer_last["accepted"], true, "{answer_last}");
    let saved = ran_first.saturating_sub(ran_last);
    assert!(
        saved >= 4 * settings.len() as u64,
        "settings last: {ran_last} wasm instructions, first: {ran_first}; {saved} fewer for {} bytes of settings",
        settings.len()
    );
}
