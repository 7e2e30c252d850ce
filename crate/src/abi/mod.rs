//! Entrypoints: each a thin adapter over [`crate::api`], behind its own cargo feature.

#[cfg(feature = "c-abi")]
pub mod c;
#[cfg(feature = "kubewarden")]
pub mod kubewarden;
#[cfg(feature = "web")]
pub mod web;
