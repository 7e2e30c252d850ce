//! Every case file under `tests/cases/**` as its own test, once per way Palisade runs (as regorus generates one test
//! per YAML file of OPA's suite), so a failure names its case:
//!
//! - `wasm::<case>`: through `palisade.wasm` (the C ABI module), fresh instance, configure then validate;
//! - `kubewarden::<case>`: through `palisade-kubewarden.wasm` over waPC (settings on every call, host capabilities
//!   answered from the case's context);
//! - `native::<case>`: the native library (`palisade::api::review_json`) gives the very answer the `.wasm` gives;
//! - `baked::<case>`: through a `palisade.wasm` baked with the case's bundle (`palisade bake`): a fresh instance answers
//!   without `configure`, and the outcome must not change;
//! - `wasi::<case>`: through `palisade-wasi.wasm`, the WASI command, in wasmtime's WASI preview 1 (`validate -p
//!   bundle.json` with the input on stdin);
//! - `baked_wasi::<case>`: through a `palisade-wasi.wasm` baked with the case's bundle (`palisade bake --wasi`):
//!   `validate` alone, with no bundle file and no directory, and the outcome must not change.
//!
//! `tests/cases/KNOWN-GAPS.txt` lists cases one backend cannot pass for a reason outside Palisade (`<backend> <path
//! relative to tests/cases>  # reason`, `*` for every backend). A listed case must still fail: one that passes fails
//! its test until it is removed from the list, so the list can only shrink.
//!
//! Run one: `cargo test -p palisade-harness --release --test case_files -- wasm::vap/`; list them: `-- --list`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "integration tests fail loudly, helpers included"
)]

mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use libtest_mimic::{Arguments, Failed, Trial};
use palisade_harness::backend::Backend;
use palisade_harness::bake::{Baker, Protocol};
use palisade_harness::case::Case;
use palisade_harness::host::{CAbiBackend, DEFAULT_DEADLINE, Runtime, WasmHost, bundle_bytes};
use palisade_harness::kubewarden::KubewardenBackend;
use palisade_harness::runner;
use palisade_harness::wasi::{WasiBackend, WasiHost};
use serde_json::{Value, json};

fn cases_dir() -> PathBuf {
    common::workspace().join("tests/cases")
}

fn wasm() -> &'static CAbiBackend {
    static BACKEND: OnceLock<CAbiBackend> = OnceLock::new();
    BACKEND.get_or_init(|| {
        CAbiBackend::new(WasmHost::load(&common::artifact("palisade.wasm")).unwrap())
    })
}

fn kubewarden() -> &'static KubewardenBackend {
    static BACKEND: OnceLock<KubewardenBackend> = OnceLock::new();
    BACKEND.get_or_init(|| {
        KubewardenBackend::load(&common::artifact("palisade-kubewarden.wasm")).unwrap()
    })
}

fn wasi() -> &'static WasiBackend {
    static BACKEND: OnceLock<WasiBackend> = OnceLock::new();
    BACKEND.get_or_init(|| WasiBackend::load(&common::artifact("palisade-wasi.wasm")).unwrap())
}

/// Baked modules are compiled without optimizing (one per bundle), where compile time dominates.
fn unoptimized() -> &'static Runtime {
    static RUNTIME: OnceLock<Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| Runtime::unoptimized().unwrap())
}

/// Backends over baked modules, one per distinct bundle, each made once however many cases share the bundle.
type Baked<T> = OnceLock<Mutex<HashMap<Vec<u8>, Arc<OnceLock<Result<Arc<T>, String>>>>>>;

/// The baker of one shipped module, instrumented and compiled once.
fn baker(
    cell: &'static OnceLock<Mutex<Baker>>,
    artifact: &str,
    protocol: Protocol,
) -> &'static Mutex<Baker> {
    cell.get_or_init(|| {
        let original = std::fs::read(common::artifact(artifact)).unwrap();
        Mutex::new(Baker::new(unoptimized(), &original, protocol).unwrap())
    })
}

/// The backend `modules` holds for `bundle`, made by `make` from the module `baker` bakes with it, the first time.
fn baked_once<T>(
    modules: &'static Baked<T>,
    baker: &Mutex<Baker>,
    bundle: &[u8],
    make: impl FnOnce(&[u8]) -> Result<T, String>,
) -> Result<Arc<T>, Failed> {
    let slot = modules
        .get_or_init(Mutex::default)
        .lock()
        .unwrap()
        .entry(bundle.to_vec())
        .or_default()
        .clone();
    slot.get_or_init(|| {
        let module = baker
            .lock()
            .unwrap()
            .bake(bundle)
            .map_err(|e| format!("cannot bake the bundle: {e}"))?;
        make(&module).map(Arc::new)
    })
    .clone()
    .map_err(Failed::from)
}

/// `palisade.wasm` baked with `bundle`.
fn baked(bundle: &[u8]) -> Result<Arc<CAbiBackend>, Failed> {
    static BAKER: OnceLock<Mutex<Baker>> = OnceLock::new();
    static MODULES: Baked<CAbiBackend> = OnceLock::new();
    let baker = baker(&BAKER, "palisade.wasm", Protocol::CAbi);
    baked_once(&MODULES, baker, bundle, |module| {
        WasmHost::from_bytes(unoptimized(), Path::new("palisade.wasm (baked)"), module)
            .map(CAbiBackend::new)
            .map_err(|e| e.to_string())
    })
}

/// `palisade-wasi.wasm` baked with `bundle`.
fn baked_wasi(bundle: &[u8]) -> Result<Arc<WasiBackend>, Failed> {
    static BAKER: OnceLock<Mutex<Baker>> = OnceLock::new();
    static MODULES: Baked<WasiBackend> = OnceLock::new();
    let baker = baker(&BAKER, "palisade-wasi.wasm", Protocol::Wasi);
    baked_once(&MODULES, baker, bundle, |module| {
        WasiHost::from_bytes(
            unoptimized(),
            Path::new("palisade-wasi.wasm (baked)"),
            module,
        )
        .map(WasiBackend::new)
        .map_err(|e| e.to_string())
    })
}

/// `(backend, case)` pairs of tests/cases/KNOWN-GAPS.txt, the case relative to tests/cases.
fn known_gaps() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(cases_dir().join("KNOWN-GAPS.txt")).unwrap_or_default();
    text.lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| !l.is_empty())
        .filter_map(|l| l.split_once(char::is_whitespace))
        .map(|(b, path)| (b.to_owned(), path.trim().to_owned()))
        .collect()
}

/// Run one case through one backend; a known gap must fail, anything else must pass.
fn check(file: &Path, backend: &dyn Backend, gap: bool) -> Result<(), Failed> {
    let report = runner::run_file(file, backend, false);
    match (report.passed, gap) {
        (true, false) | (false, true) => Ok(()),
        (true, true) => Err("now passes: remove it from tests/cases/KNOWN-GAPS.txt".into()),
        (false, false) => Err(format!(
            "{}{}",
            report.failure.unwrap_or_default(),
            report.diff.map(|d| format!("\n{d}")).unwrap_or_default()
        )
        .into()),
    }
}

/// The native library answers exactly as `palisade.wasm` does.
fn native_agrees(case: &Case) -> Result<(), Failed> {
    let Some(review) = &case.review else {
        return Ok(());
    };
    let bundle_json = serde_json::to_string(&case.bundle)?;
    let input = match &case.context {
        Some(c) => json!({"review": review, "context": c}),
        None => review.clone(),
    };
    let native: Value = serde_json::from_str(&palisade::api::review_json(
        &bundle_json,
        &input.to_string(),
    ))?;
    let wasm = wasm()
        .evaluate(
            &case.bundle,
            review,
            case.context.as_ref(),
            DEFAULT_DEADLINE,
        )
        .map_err(|e| e.to_string())?;
    if native == wasm {
        Ok(())
    } else {
        Err(format!("native and wasm disagree:\n native: {native}\n wasm:   {wasm}").into())
    }
}

fn main() {
    let args = Arguments::from_args();
    let files = runner::discover(&[cases_dir()]).unwrap();
    assert!(files.len() >= 8, "expected the foundation cases at least");
    let gaps = known_gaps();
    let mut trials = Vec::new();
    for (backend, path) in &gaps {
        let exists = cases_dir().join(path).is_file();
        let name = format!("known-gaps::{backend}::{path}");
        trials.push(Trial::test(name, move || {
            if exists {
                Ok(())
            } else {
                Err("tests/cases/KNOWN-GAPS.txt lists a case that does not exist".into())
            }
        }));
    }
    for file in files {
        let relative = file
            .strip_prefix(cases_dir())
            .unwrap_or(&file)
            .to_string_lossy()
            .into_owned();
        let gap = |backend: &str| {
            gaps.iter()
                .any(|(b, p)| (b == "*" || b == backend) && *p == relative)
        };
        let (wasm_gap, kubewarden_gap, wasi_gap) = (gap("wasm"), gap("kubewarden"), gap("wasi"));
        let f = file.clone();
        trials.push(Trial::test(format!("wasm::{relative}"), move || {
            check(&f, wasm(), wasm_gap)
        }));
        let f = file.clone();
        trials.push(Trial::test(format!("wasi::{relative}"), move || {
            check(&f, wasi(), wasi_gap)
        }));
        let f = file.clone();
        trials.push(Trial::test(format!("kubewarden::{relative}"), move || {
            check(&f, kubewarden(), kubewarden_gap)
        }));
        // a case that cannot load fails its wasm and kubewarden tests; the native and baked ones need it loaded
        let Ok(case) = Case::load(&file) else {
            continue;
        };
        let bundle = bundle_bytes(&case.bundle).unwrap();
        let compiles = palisade::api::configure(&bundle).engine().is_some();
        trials.push(Trial::test(format!("native::{relative}"), move || {
            native_agrees(&case)
        }));
        // a bundle that must not compile has nothing to bake
        if compiles {
            let (f, b) = (file.clone(), bundle.clone());
            trials.push(Trial::test(format!("baked::{relative}"), move || {
                check(&f, baked(&b)?.as_ref(), wasm_gap)
            }));
            trials.push(Trial::test(format!("baked_wasi::{relative}"), move || {
                check(&file, baked_wasi(&bundle)?.as_ref(), wasi_gap)
            }));
        }
    }
    libtest_mimic::run(&args, trials).exit();
}
