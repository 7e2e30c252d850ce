//! Entrypoints: each a thin adapter over [`crate::api`], behind its own cargo feature. The Kubewarden adapter is plain
//! Rust but for its waPC glue, and the WASI command but for its `main`, so both are also compiled for the crate's own
//! tests (`cargo test -p palisade`), feature or not.

#[cfg(feature = "c-abi")]
pub mod c;
#[cfg(any(feature = "kubewarden", test))]
pub mod kubewarden;
#[cfg(all(
    target_arch = "wasm32",
    any(feature = "c-abi", feature = "kubewarden", feature = "wasi")
))]
pub mod seal;
#[cfg(any(feature = "wasi", test))]
pub mod wasi;
#[cfg(all(target_arch = "wasm32", feature = "wasi"))]
pub mod wasi_bake;
#[cfg(feature = "web")]
pub mod web;
