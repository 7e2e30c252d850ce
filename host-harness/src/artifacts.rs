//! Where the built artifacts are: `target/wasm/*.wasm` (docs/architecture.md, "Artifacts").

use std::path::{Path, PathBuf};

/// The C ABI module.
pub const C_ABI: &str = "palisade.wasm";
/// The Kubewarden waPC module.
pub const KUBEWARDEN: &str = "palisade-kubewarden.wasm";
/// The WASI command.
pub const WASI: &str = "palisade-wasi.wasm";
/// The bench floors.
pub const FLOOR_SCAN: &str = "floor-scan.wasm";
pub const FLOOR_DOM: &str = "floor-dom.wasm";
/// The waPC floor of `bench --kubewarden`.
pub const FLOOR_WAPC: &str = "floor-wapc.wasm";
/// The WASI floor of `bench --wasi`.
pub const FLOOR_WASI: &str = "floor-wasi.wasm";

/// The `target/wasm` directory: `$PALISADE_WASM_DIR`, else next to the running binary
/// (`target/release/palisade` → `target/wasm`), else the one this harness was built in.
pub fn wasm_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("PALISADE_WASM_DIR") {
        return PathBuf::from(dir);
    }
    if let Ok(exe) = std::env::current_exe() {
        // target/<profile>/palisade, or target/<profile>/deps/<test> for tests
        for up in exe.ancestors().skip(1).take(3) {
            let candidate = up.join("wasm");
            if candidate.join(C_ABI).is_file() {
                return candidate;
            }
        }
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/wasm")
}

/// The path of one artifact.
pub fn artifact(name: &str) -> PathBuf {
    wasm_dir().join(name)
}
