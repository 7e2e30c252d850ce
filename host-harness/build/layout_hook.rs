//! Lays out `palisade.wasm` and `palisade-kubewarden.wasm` with the functions a request runs first, through
//! `src/layout.rs` (the same code `palisade`'s tests and the profiling example use; it uses only the crates under
//! `[build-dependencies]`).

use std::fs;
use std::path::Path;

#[path = "../src/layout.rs"]
#[allow(dead_code)]
mod layout;

/// The module rewriting the build's export filter shares with the layout.
pub use layout::{export_kind, rewrite};

/// Rewrites `module` (built with its function names) in place: the profiled functions first, the names dropped.
pub fn hot_first_file(module: &Path) -> Result<(), String> {
    let bytes = fs::read(module).map_err(|e| format!("cannot read {}: {e}", module.display()))?;
    let hot = layout::profile_names(layout::HOT_FUNCTIONS);
    let (laid_out, _) =
        layout::hot_first(&bytes, &hot).map_err(|e| format!("{}: {e}", module.display()))?;
    fs::write(module, laid_out).map_err(|e| format!("cannot write {}: {e}", module.display()))
}
