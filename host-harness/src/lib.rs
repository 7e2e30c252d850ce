//! The `palisade` harness: a wasmtime host for the built `palisade.wasm` (and, through
//! waPC, `palisade-kubewarden.wasm`; through WASI, `palisade-wasi.wasm`), the case-file runner, webhook dispatch and
//! the bench.
//!
//! The binary (`src/main.rs`) is a thin CLI over these modules; the integration tests in
//! `tests/` drive the same modules and the binary.

pub mod annotate;
pub mod artifacts;
pub mod backend;
pub mod bake;
pub mod bench;
pub mod case;
pub mod check;
pub mod documents;
pub mod host;
pub mod kubewarden;
pub mod layout;
pub mod outcome;
pub mod play;
pub mod replay;
pub mod runner;
pub mod scaffold;
pub mod wasi;
pub mod webhook;

pub use backend::{Backend, HostError};
pub use host::{CAbiBackend, Runtime, Session, WasmHost};
