//! Writes `host-harness/build/hot-functions.txt`, the profile the build lays `palisade.wasm` and
//! `palisade-kubewarden.wasm` out by (`src/layout.rs`): the functions a request runs, in the order it first runs them.
//!
//! It instruments the named copies the build leaves (`target/wasm-build/palisade.named.wasm` and
//! `palisade-kubewarden.named.wasm`), has each configure the standard workloads of `bench/` (the Kubewarden module
//! through `validate_settings`, as policy-server does), forgets what configuring ran, and answers the workloads'
//! reviews. The C ABI module's functions come first, then those only the Kubewarden module runs. Run it after changes
//! to the engine, then build again:
//!
//! ```text
//! cargo run --release -p palisade-harness --example layout_profile
//! cargo build --release -p palisade-harness
//! ```

use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result, anyhow};
use palisade_harness::host::{Entry, Runtime, WasmHost};
use palisade_harness::layout;

// the least waPC host, as the tests run the Kubewarden module (it fails loudly, as tests do)
#[allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    dead_code
)]
#[path = "../tests/common/wapc.rs"]
mod wapc;

/// One standard workload: a bundle, its reviews, and the context they are answered in.
const WORKLOADS: [(&str, &str, Option<&str>); 3] = [
    ("bench/pod-baseline.yaml", "bench/pod-review.json", None),
    (
        "policies/cert-manager/namespaced-services/bundle.yaml",
        "bench/certificate-request-review.json",
        Some("bench/certificate-request-context.json"),
    ),
    (
        "bench/many-policies.json",
        "bench/deployment-update-100k.json",
        None,
    ),
];

fn main() -> Result<()> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .ok_or_else(|| anyhow!("no workspace"))?
        .to_path_buf();
    let mut order: Vec<String> = Vec::new();
    for name in c_abi(&root)?.into_iter().chain(kubewarden(&root)?) {
        if !order.contains(&name) {
            order.push(name);
        }
    }
    let out = root.join("host-harness/build/hot-functions.txt");
    write(&out, &order)?;
    println!(
        "{} functions, in the order a request first runs them: {}",
        order.len(),
        out.display()
    );
    Ok(())
}

fn named(root: &Path, module: &str) -> Result<Vec<u8>> {
    let path = root.join("target/wasm-build").join(module);
    std::fs::read(&path).with_context(|| {
        format!(
            "{} (build it: cargo build --release -p palisade-harness)",
            path.display()
        )
    })
}

/// The functions the C ABI module runs answering each workload, in order, in the harness's own host.
fn c_abi(root: &Path) -> Result<Vec<String>> {
    let bytes = named(root, "palisade.named.wasm")?;
    let instrumented = layout::instrumented(&bytes).map_err(|e| anyhow!(e))?;
    let host = WasmHost::from_bytes(
        &Runtime::shared()?,
        Path::new("palisade.named.wasm, instrumented"),
        &instrumented,
    )?;
    let mut order: Vec<String> = Vec::new();
    for (bundle, review, context) in WORKLOADS {
        let bundle = palisade_harness::documents::read_bundle(&root.join(bundle))?;
        let context = context
            .map(|c| -> Result<serde_json::Value> {
                Ok(serde_json::from_slice(&std::fs::read(root.join(c))?)?)
            })
            .transpose()?;
        let input = palisade_harness::bench::input_for(&root.join(review), context.as_ref())?;
        let mut session = host.instantiate()?;
        if let Some(message) = session.configure(&palisade_harness::host::bundle_bytes(&bundle)?)? {
            return Err(anyhow!("the bundle was rejected: {message}"));
        }
        // what configuring ran is not what a request runs
        profile(&mut session)?.fill(0);
        for _ in 0..2 {
            session.call(Entry::Validate, &input)?;
        }
        order.extend(layout::first_runs(&bytes, profile(&mut session)?).map_err(|e| anyhow!(e))?);
    }
    Ok(order)
}

/// The profile memory of an instrumented instance.
fn profile(session: &mut palisade_harness::Session) -> Result<&mut [u8]> {
    session
        .exported_memory_mut(layout::PROFILE_MEMORY)
        .ok_or_else(|| anyhow!("not instrumented"))
}

/// The functions the Kubewarden module runs answering the workloads that need no host capability, in order: a reused
/// instance given its settings through `validate_settings`, then with every request (policy-server's payload), in the
/// least waPC host of the tests.
fn kubewarden(root: &Path) -> Result<Vec<String>> {
    let bytes = named(root, "palisade-kubewarden.named.wasm")?;
    let instrumented = layout::instrumented(&bytes).map_err(|e| anyhow!(e))?;
    let mut order = Vec::new();
    for (bundle, review, context) in WORKLOADS {
        if context.is_some() {
            continue;
        }
        let bundle = palisade_harness::documents::read_bundle(&root.join(bundle))?;
        let review: serde_json::Value = serde_json::from_slice(&std::fs::read(root.join(review))?)?;
        let payload = palisade_harness::kubewarden::validation_payload(&bundle, &review)?;
        let mut guest = wapc::Guest::new(&instrumented);
        guest.call(
            "validate_settings",
            &palisade_harness::host::bundle_bytes(&bundle)?,
        );
        guest.exported_memory(layout::PROFILE_MEMORY).fill(0);
        for _ in 0..2 {
            guest.call("validate", &payload);
        }
        let profile = guest.exported_memory(layout::PROFILE_MEMORY);
        order.extend(layout::first_runs(&bytes, profile).map_err(|e| anyhow!(e))?);
    }
    Ok(order)
}

fn write(path: &Path, order: &[String]) -> Result<()> {
    let mut text = String::from(
        "# The functions a request runs, in the order it first runs them (symbols without their hash), written by\n\
         # `cargo run --release -p palisade-harness --example layout_profile` over bench/'s workloads. The build lays\n\
         # palisade.wasm and palisade-kubewarden.wasm out with these first (host-harness/src/layout.rs).\n",
    );
    for name in order {
        text.push_str(name);
        text.push('\n');
    }
    std::fs::write(path, text).with_context(|| path.display().to_string())
}
