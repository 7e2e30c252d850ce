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

/// Rewrites `module` (built with its function names) in place: the functions `profile` names first, the names dropped.
///
/// The profile is read from the checkout when the build script runs, not compiled into it: cargo keys a build script's
/// binary by the package, not by the checkout, so a build of another checkout into the same target directory (an old
/// commit's worktree, for a side-by-side benchmark) leaves its own binary there, and cargo runs that binary for this
/// checkout while this checkout's files are older than it. A profile compiled in would then lay the module out by the
/// other checkout's profile (seen: 765 B gzip and a slower request, December 2026).
pub fn hot_first_file(module: &Path, profile: &Path) -> Result<(), String> {
    let bytes = fs::read(module).map_err(|e| format!("cannot read {}: {e}", module.display()))?;
    let profile_text = fs::read_to_string(profile)
        .map_err(|e| format!("cannot read the layout profile {}: {e}", profile.display()))?;
    let hot = layout::profile_names(&profile_text);
    let (laid_out, _) =
        layout::hot_first(&bytes, &hot).map_err(|e| format!("{}: {e}", module.display()))?;
    fs::write(module, laid_out).map_err(|e| format!("cannot write {}: {e}", module.display()))
}
