//! Entrypoints: each a thin adapter over [`crate::api`], behind its own cargo feature. The Kubewarden adapter is plain
//! Rust but for its waPC glue, so it is also compiled for the crate's own tests (`cargo test -p palisade`), without
//! `wapc-guest`.

#[cfg(feature = "c-abi")]
pub mod c;
#[cfg(any(feature = "kubewarden", test))]
pub mod kubewarden;
#[cfg(all(target_arch = "wasm32", any(feature = "c-abi", feature = "kubewarden")))]
pub mod seal;
#[cfg(feature = "web")]
pub mod web;
