//! `palisade-wasi.wasm`, the WASI command, run in wasmtime's WASI preview 1 as `wasmtime run --dir DIR` runs it: its
//! command line, exit statuses and files; every hostile input answered exactly as the C ABI answers it. (Every case
//! file also runs through it: `case_files`' `wasi::` tests.)
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "integration tests fail loudly, helpers included"
)]

mod common;

use std::sync::OnceLock;

use common::{hostile, palisade, workspace};
use palisade_harness::bake::{Protocol, bake};
use palisade_harness::host::DEFAULT_DEADLINE;
use palisade_harness::wasi::{Run, WasiHost};
use serde_json::Value;

fn host() -> &'static WasiHost {
    static HOST: OnceLock<WasiHost> = OnceLock::new();
    HOST.get_or_init(|| WasiHost::load(&common::artifact("palisade-wasi.wasm")).unwrap())
}

fn read(path: &str) -> Vec<u8> {
    std::fs::read(workspace().join(path)).unwrap()
}

fn run(args: &[&str], stdin: &[u8], files: &[(&str, &[u8])]) -> Run {
    host()
        .run(args, stdin, files, &[], DEFAULT_DEADLINE)
        .unwrap_or_else(|e| panic!("{args:?}: the command must exit, not fail: {e}"))
}

fn stdout_json(run: &Run) -> Value {
    serde_json::from_slice(&run.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&run.stdout),
            String::from_utf8_lossy(&run.stderr)
        )
    })
}

fn stderr(run: &Run) -> String {
    String::from_utf8_lossy(&run.stderr).into_owned()
}

#[test]
fn the_command_imports_only_wasi_preview_1() {
    let bytes = std::fs::read(common::artifact("palisade-wasi.wasm")).unwrap();
    let mut modules = std::collections::BTreeSet::new();
    let mut start = false;
    for payload in wasmparser::Parser::new(0).parse_all(&bytes) {
        match payload.unwrap() {
            wasmparser::Payload::ImportSection(imports) => {
                for import in imports {
                    modules.insert(import.unwrap().module.to_owned());
                }
            }
            wasmparser::Payload::ExportSection(exports) => {
                start |= exports.into_iter().any(|e| e.unwrap().name == "_start");
            }
            _ => {}
        }
    }
    assert_eq!(
        modules.into_iter().collect::<Vec<_>>(),
        ["wasi_snapshot_preview1"]
    );
    assert!(start, "a WASI command exports `_start`");
    // bake's functions are not exported, only named for it
    assert_eq!(exports(&bytes), ["memory", "_start", "__main_void"]);
    let layout = palisade_harness::bake::layout(&bytes).unwrap();
    let mut tools: Vec<&str> = layout
        .tool_exports
        .iter()
        .map(|(n, _)| n.as_str())
        .collect();
    tools.sort_unstable();
    assert_eq!(
        tools,
        ["palisade_bake", "palisade_bake_alloc", "palisade_seal"]
    );
}

fn exports(module: &[u8]) -> Vec<String> {
    wasmparser::Parser::new(0)
        .parse_all(module)
        .filter_map(|p| match p.unwrap() {
            wasmparser::Payload::ExportSection(exports) => Some(
                exports
                    .into_iter()
                    .map(|e| e.unwrap().name.to_owned())
                    .collect::<Vec<_>>(),
            ),
            _ => None,
        })
        .flatten()
        .collect()
}

fn imports(module: &[u8]) -> Vec<String> {
    wasmparser::Parser::new(0)
        .parse_all(module)
        .filter_map(|p| match p.unwrap() {
            wasmparser::Payload::ImportSection(imports) => Some(
                imports
                    .into_iter()
                    .map(|i| {
                        let i = i.unwrap();
                        format!("{}.{}", i.module, i.name)
                    })
                    .collect::<Vec<_>>(),
            ),
            _ => None,
        })
        .flatten()
        .collect()
}

/// The WASI floor of `palisade bench --wasi` is a command like the shipped one that answers as the scan floor does.
#[test]
fn the_wasi_floor_answers_a_review_as_the_scan_floor() {
    let path = common::artifact("floor-wasi.wasm");
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(exports(&bytes), ["memory", "_start", "__main_void"]);
    assert!(
        imports(&bytes)
            .iter()
            .all(|i| i.starts_with("wasi_snapshot_preview1.")),
        "{:?}",
        imports(&bytes)
    );
    let out = WasiHost::load(&path)
        .unwrap()
        .run(
            &["validate"],
            &read("bench/pod-review.json"),
            &[],
            &[],
            DEFAULT_DEADLINE,
        )
        .unwrap();
    assert_eq!(out.status, 0);
    assert_eq!(
        stdout_json(&out),
        serde_json::json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
            "response": {"uid": "705ab4f5-6393-11e8-b7cc-42010a800002", "allowed": true}})
    );
}

/// `palisade-wasi.wasm` baked with pod-baseline (`palisade bake --wasi`), compiled once.
fn baked() -> &'static WasiHost {
    static HOST: OnceLock<WasiHost> = OnceLock::new();
    HOST.get_or_init(|| {
        let module = baked_module();
        WasiHost::from_bytes(
            &palisade_harness::host::Runtime::shared().unwrap(),
            std::path::Path::new("palisade-wasi.wasm (baked)"),
            &module,
        )
        .unwrap()
    })
}

/// What `palisade.wasm`, configured with `bundle_json` (which must compile), answers to `input`.
fn c_abi_answer(bundle_json: &[u8], input: &[u8]) -> Vec<u8> {
    let mut session = palisade().instantiate().unwrap();
    assert_eq!(session.configure(bundle_json).unwrap(), None);
    session
        .call(palisade_harness::host::Entry::Validate, input)
        .unwrap()
}

/// pod-baseline's bundle as the JSON `configure` and bake take.
fn pod_baseline_json() -> Vec<u8> {
    serde_json::to_vec(
        &palisade_harness::documents::read_bundle(&workspace().join("bench/pod-baseline.yaml"))
            .unwrap(),
    )
    .unwrap()
}

fn baked_module() -> Vec<u8> {
    let original = std::fs::read(common::artifact("palisade-wasi.wasm")).unwrap();
    bake(&original, Protocol::Wasi, &pod_baseline_json()).unwrap()
}

fn run_baked(args: &[&str], stdin: &[u8], files: &[(&str, &[u8])]) -> Run {
    baked()
        .run(args, stdin, files, &[], DEFAULT_DEADLINE)
        .unwrap_or_else(|e| panic!("{args:?}: the baked command must exit, not fail: {e}"))
}

/// A baked command decides with its bundle when it is named none, and needs no directory for it: every answer,
/// explanation and exit status is the one the shipped command gives with the bundle's file.
#[test]
fn a_baked_command_answers_without_a_bundle_file_as_the_command_with_it() {
    let bundle = read("bench/pod-baseline.yaml");
    let files: &[(&str, &[u8])] = &[("pod-baseline.yaml", &bundle)];
    let review = read("bench/pod-review.json");
    let team_z = String::from_utf8(review.clone())
        .unwrap()
        .replace(r#""team": "b""#, r#""team": "z""#);
    for (input, allowed) in [(&review[..], true), (team_z.as_bytes(), false)] {
        for command in ["validate", "explain"] {
            let baked = run_baked(&[command], input, &[]);
            let shipped = run(&[command, "-p", "pod-baseline.yaml"], input, files);
            assert_eq!(baked, shipped, "{command}");
        }
        let out = run_baked(&["validate"], input, &[]);
        assert_eq!(stdout_json(&out)["response"]["allowed"], allowed);
        assert_eq!(out.status, i32::from(!allowed));
        assert!(out.stderr.is_empty(), "{}", stderr(&out));
    }
    let check = run_baked(&["check"], b"", &[]);
    assert_eq!(stdout_json(&check), serde_json::json!({"valid": true}));
    assert_eq!(check.status, 0);
    assert!(baked().is_baked_with(&pod_baseline_json()));
}

/// A bundle file named, by `-p` or `$PALISADE_BUNDLE`, replaces the baked one for the run: the baked module still reads
/// files where the host gives it a directory.
#[test]
fn a_bundle_file_named_replaces_the_baked_bundle() {
    let team_z = String::from_utf8(read("bench/pod-review.json"))
        .unwrap()
        .replace(r#""team": "b""#, r#""team": "z""#);
    let empty: &[(&str, &[u8])] = &[("empty.json", br#"{"policies": []}"#)];
    let out = run_baked(&["validate", "-p", "empty.json"], team_z.as_bytes(), empty);
    assert_eq!(stdout_json(&out)["response"]["allowed"], true);
    let out = baked()
        .run(
            &["validate"],
            team_z.as_bytes(),
            empty,
            &[("PALISADE_BUNDLE", "empty.json")],
            DEFAULT_DEADLINE,
        )
        .unwrap();
    assert_eq!(stdout_json(&out)["response"]["allowed"], true);
    // a file that is not there fails closed, as in the shipped command
    let out = run_baked(
        &["validate", "-p", "missing.yaml"],
        team_z.as_bytes(),
        empty,
    );
    assert_eq!(stdout_json(&out)["response"]["status"]["code"], 500);
    assert_eq!(out.status, 1);
}

/// The baked module is the shipped one with a memory image: the same imports and exports, the bake recorded.
#[test]
fn a_baked_command_keeps_the_command_contract() {
    let original = std::fs::read(common::artifact("palisade-wasi.wasm")).unwrap();
    let module = baked_module();
    assert_eq!(imports(&module), imports(&original));
    assert_eq!(exports(&module), exports(&original));
    assert_eq!(
        palisade_harness::bake::baked_bundle_hash(&module),
        Some(palisade_harness::bake::bundle_hash(&pod_baseline_json()))
    );
    // baking again gives the same bytes
    assert_eq!(module, baked_module());
    // a bundle that does not compile is not baked, with configure's words
    let broken = bake(&original, Protocol::Wasi, br#"{"policies": 7}"#).unwrap_err();
    assert!(
        broken
            .to_string()
            .starts_with("the bundle does not compile: "),
        "{broken}"
    );
}

#[test]
fn a_yaml_bundle_decides_and_the_exit_status_is_the_verdict() {
    let bundle = read("bench/pod-baseline.yaml");
    let review = read("bench/pod-review.json");
    let files: &[(&str, &[u8])] = &[("pod-baseline.yaml", &bundle)];
    let allowed = run(&["validate", "-p", "pod-baseline.yaml"], &review, files);
    let answer = stdout_json(&allowed);
    assert_eq!(answer["response"]["allowed"], true, "{answer}");
    assert_eq!(allowed.status, 0);
    assert!(allowed.stderr.is_empty(), "{}", stderr(&allowed));
    // the answer is the C ABI's, byte for byte
    let c_abi = c_abi_answer(&pod_baseline_json(), &review);
    assert_eq!(
        String::from_utf8_lossy(&allowed.stdout).trim_end(),
        String::from_utf8_lossy(&c_abi)
    );

    let team_z = String::from_utf8(review)
        .unwrap()
        .replace(r#""team": "b""#, r#""team": "z""#);
    assert!(
        team_z.contains(r#""team": "z""#),
        "the review labels its Pod with team b"
    );
    let denied = run(
        &["validate", "-p", "pod-baseline.yaml"],
        team_z.as_bytes(),
        files,
    );
    let answer = stdout_json(&denied);
    assert_eq!(answer["response"]["allowed"], false);
    assert!(
        answer["response"]["status"]["message"]
            .as_str()
            .unwrap()
            .ends_with("denied request: unknown team z"),
        "{answer}"
    );
    assert_eq!(denied.status, 1);
}

#[test]
fn the_bundle_file_may_be_named_by_the_environment() {
    let bundle = read("bench/pod-baseline.yaml");
    let review = read("bench/pod-review.json");
    let out = host()
        .run(
            &["validate"],
            &review,
            &[("b.yaml", &bundle)],
            &[("PALISADE_BUNDLE", "b.yaml")],
            DEFAULT_DEADLINE,
        )
        .unwrap();
    assert_eq!(stdout_json(&out)["response"]["allowed"], true);
    assert_eq!(out.status, 0);
}

#[test]
fn without_a_bundle_every_request_is_answered_not_configured() {
    // `palisade-wasi.wasm validate < review.json`, as docs/architecture.md's contract writes it
    let out = run(&["validate"], &read("bench/pod-review.json"), &[]);
    let response = &stdout_json(&out)["response"];
    assert_eq!(response["allowed"], false);
    assert_eq!(response["uid"], "705ab4f5-6393-11e8-b7cc-42010a800002");
    assert_eq!(response["status"]["code"], 500);
    assert_eq!(
        response["status"]["message"],
        "palisade is not configured: no bundle was given (run `palisade-wasi validate -p BUNDLE`, or name the file in $PALISADE_BUNDLE)"
    );
    assert_eq!(out.status, 1);
}

#[test]
fn a_bundle_that_cannot_be_read_or_compiled_fails_closed_echoing_the_uid() {
    let review = read("bench/pod-review.json");
    let broken = std::fs::read(hostile("bundle-broken.yaml")).unwrap();
    for (file, says) in [
        ("missing.yaml", "cannot read the bundle `missing.yaml`: "),
        ("bundle-broken.yaml", "the bundle has "),
    ] {
        let out = run(
            &["validate", "-p", file],
            &review,
            &[("bundle-broken.yaml", &broken)],
        );
        let response = &stdout_json(&out)["response"];
        assert_eq!(response["allowed"], false);
        assert_eq!(response["uid"], "705ab4f5-6393-11e8-b7cc-42010a800002");
        assert_eq!(response["status"]["code"], 500);
        let message = response["status"]["message"].as_str().unwrap();
        assert!(
            message.starts_with("palisade is not configured: the last bundle was rejected: ")
                && message.contains(says),
            "{file}: {message}"
        );
        assert_eq!(out.status, 1);
        assert!(stderr(&out).contains(says), "{}", stderr(&out));
    }
    let check = run(
        &["check", "bundle-broken.yaml"],
        b"",
        &[("bundle-broken.yaml", &broken)],
    );
    let answer = stdout_json(&check);
    assert_eq!(answer["valid"], false);
    assert!(answer["problems"].as_array().unwrap().len() > 1, "{answer}");
    assert_eq!(check.status, 1);
    let bundle = read("bench/pod-baseline.yaml");
    let valid = run(&["check", "-p", "b.yaml"], b"", &[("b.yaml", &bundle)]);
    assert_eq!(stdout_json(&valid), serde_json::json!({"valid": true}));
    assert_eq!(valid.status, 0);
}

/// The shipped command given the empty bundle's file, and the command baked with pod-baseline given none.
#[test]
fn every_hostile_input_is_answered_as_the_c_abi_answers_it() {
    let empty = br#"{"policies": []}"#;
    let mut inputs: Vec<_> = std::fs::read_dir(hostile(""))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            !name.starts_with("bundle-")
        })
        .collect();
    inputs.sort();
    assert!(inputs.len() >= 15, "{inputs:?}");
    let pod_baseline = pod_baseline_json();
    for path in inputs {
        let input = std::fs::read(&path).unwrap();
        let out = run(
            &["validate", "-p", "empty.json"],
            &input,
            &[("empty.json", empty)],
        );
        let c_abi = c_abi_answer(empty, &input);
        assert_eq!(
            String::from_utf8_lossy(&out.stdout).trim_end(),
            String::from_utf8_lossy(&c_abi),
            "{}",
            path.display()
        );
        let allowed = stdout_json(&out)["response"]["allowed"] == true;
        assert_eq!(
            out.status,
            if allowed { 0 } else { 1 },
            "{}",
            path.display()
        );
        // and the command baked with pod-baseline, with no file, as the C ABI configured with it
        let baked = run_baked(&["validate"], &input, &[]);
        let c_abi = c_abi_answer(&pod_baseline, &input);
        assert_eq!(
            String::from_utf8_lossy(&baked.stdout).trim_end(),
            String::from_utf8_lossy(&c_abi),
            "baked: {}",
            path.display()
        );
    }
}

#[test]
fn explain_writes_the_trace() {
    let bundle = read("bench/pod-baseline.yaml");
    let review = read("bench/pod-review.json");
    let out = run(
        &["explain", "-p", "b.yaml"],
        &review,
        &[("b.yaml", &bundle)],
    );
    let trace = stdout_json(&out);
    assert_eq!(trace["verdict"]["response"]["allowed"], true, "{trace}");
    assert!(trace["policies"].is_array(), "{trace}");
    assert_eq!(out.status, 0);
}

#[test]
fn a_command_line_it_does_not_understand_exits_2_with_the_usage() {
    for args in [
        &[][..],
        &["validate", "-p"],
        &["validate", "--kubewarden", "-p", "b.yaml"],
        &["bake"],
    ] {
        let out = run(args, b"{}", &[]);
        assert_eq!(out.status, 2, "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(
            stderr(&out).contains("usage: palisade-wasi validate"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    let help = run(&["--help"], b"", &[]);
    assert_eq!(help.status, 0);
    assert!(String::from_utf8_lossy(&help.stdout).starts_with("usage: palisade-wasi"));
}

/// Review files named on the command line: the bundle compiled once, one answer line per file, each the answer the C
/// ABI gives that review; exit 1 when any is not allowed.
#[test]
fn several_review_files_are_answered_one_line_each_as_the_c_abi_answers_them() {
    let bundle = read("bench/pod-baseline.yaml");
    let review = read("bench/pod-review.json");
    let mut privileged: Value = serde_json::from_slice(&review).unwrap();
    privileged["request"]["object"]["spec"]["containers"][0]["securityContext"] =
        serde_json::json!({"privileged": true});
    let privileged = serde_json::to_vec(&privileged).unwrap();
    let out = run(
        &["validate", "-p", "b.yaml", "pod.json", "privileged.json"],
        b"",
        &[
            ("b.yaml", &bundle),
            ("pod.json", &review),
            ("privileged.json", &privileged),
        ],
    );
    let lines: Vec<&[u8]> = out
        .stdout
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    let mut c_abi = palisade().instantiate().unwrap();
    c_abi.configure(&pod_baseline_json()).unwrap();
    let want: Vec<Vec<u8>> = [&review, &privileged]
        .iter()
        .map(|r| {
            c_abi
                .call(palisade_harness::host::Entry::Validate, r)
                .unwrap()
        })
        .collect();
    assert_eq!(lines, [&want[0][..], &want[1][..]], "{}", stderr(&out));
    assert_eq!(out.status, 1);
}
