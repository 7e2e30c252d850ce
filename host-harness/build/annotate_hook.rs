//! Embeds `policies/kubewarden/metadata.yml` into `target/wasm/palisade-kubewarden.wasm` as the
//! `io.kubewarden.metadata` custom section, through `src/annotate.rs` (the same code as
//! `palisade annotate`; it uses only the crates under `[build-dependencies]`).

use std::path::Path;

#[path = "../src/annotate.rs"]
#[allow(dead_code)]
mod annotate;

pub fn annotate_file(module: &Path, metadata: &Path) -> Result<(), String> {
    annotate::annotate_file(module, metadata).map_err(|e| {
        format!(
            "cannot annotate {} with {}: {e}",
            module.display(),
            metadata.display()
        )
    })
}
