//! Shared helpers of the integration tests: where the workspace and the built artifacts are.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    dead_code,
    reason = "integration tests fail loudly, helpers included"
)]

pub mod wapc;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use palisade_harness::host::WasmHost;

pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// An artifact built by build.rs (`target/wasm/…`, or `$PALISADE_WASM_DIR/…`).
pub fn artifact(name: &str) -> PathBuf {
    match std::env::var_os("PALISADE_WASM_DIR") {
        Some(dir) => PathBuf::from(dir).join(name),
        None => workspace().join("target/wasm").join(name),
    }
}

pub fn hostile(name: &str) -> PathBuf {
    workspace().join("tests/hostile").join(name)
}

/// The real `palisade.wasm`, compiled once per test binary.
pub fn palisade() -> &'static WasmHost {
    static HOST: OnceLock<WasmHost> = OnceLock::new();
    HOST.get_or_init(|| {
        WasmHost::load(&artifact("palisade.wasm")).unwrap_or_else(|e| {
            panic!("{e} (the build script builds it: cargo build -p palisade-harness)")
        })
    })
}

/// A fresh directory under the system temp dir.
pub fn scratch_dir(tag: &str) -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let dir = std::env::temp_dir().join(format!("palisade-{tag}-{}-{nanos}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `palisade ARGS` from the workspace root: its stdout, once it has succeeded.
pub fn run_palisade(args: &[&str]) -> Vec<u8> {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_palisade"))
        .current_dir(workspace())
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}
