//! Benchmark floors with Palisade's C ABI (docs/architecture.md, "The C ABI"): `memory`, `palisade_alloc`,
//! `palisade_free`, `configure`, `validate`. Each reads the review, echoes `request.uid` and
//! `apiVersion`, and answers `allowed: true`.
//!
//! - `scan`: validates every byte once (serde into `IgnoredAny`, the uid borrowed as `&str`).
//! - `dom`: reads the review into a `serde_json::Value` tree.
#![allow(unsafe_code)]

use std::alloc::{Layout, alloc, dealloc};

#[cfg(all(feature = "scan", feature = "dom"))]
compile_error!("enable exactly one of the features `scan` and `dom`");

/// # Safety
/// Called by the host only.
#[unsafe(no_mangle)]
pub extern "C" fn palisade_alloc(len: i32) -> i32 {
    let size = usize::try_from(len).unwrap_or(0).max(1);
    match Layout::from_size_align(size, 1) {
        // SAFETY: the layout has a non-zero size.
        Ok(layout) => unsafe { alloc(layout) as i32 },
        Err(_) => 0,
    }
}

/// # Safety
/// `ptr`/`len` must come from `palisade_alloc` or a result of this module.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn palisade_free(ptr: i32, len: i32) {
    let size = usize::try_from(len).unwrap_or(0).max(1);
    if ptr == 0 {
        return;
    }
    if let Ok(layout) = Layout::from_size_align(size, 1) {
        // SAFETY: allocated by `palisade_alloc` or `leak` with the same layout.
        unsafe { dealloc(ptr as *mut u8, layout) }
    }
}

fn input<'a>(ptr: i32, len: i32) -> &'a [u8] {
    let len = usize::try_from(len).unwrap_or(0);
    if ptr == 0 || len == 0 {
        return &[];
    }
    // SAFETY: the host wrote `len` bytes at `ptr` (allocated by `palisade_alloc`).
    unsafe { std::slice::from_raw_parts(ptr as *const u8, len) }
}

fn leak(out: Vec<u8>) -> i64 {
    let len = out.len();
    let ptr = palisade_alloc(i32::try_from(len).unwrap_or(i32::MAX));
    // SAFETY: `ptr` has room for `len` bytes.
    unsafe { std::ptr::copy_nonoverlapping(out.as_ptr(), ptr as *mut u8, len) };
    ((ptr as u32 as i64) << 32) | (len as u32 as i64)
}

#[unsafe(no_mangle)]
pub extern "C" fn configure(_ptr: i32, _len: i32) -> i64 {
    leak(br#"{"valid":true}"#.to_vec())
}

fn answer(api_version: &str, uid: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(96 + uid.len());
    out.extend_from_slice(br#"{"apiVersion":"#);
    serde_json::to_writer(&mut out, api_version).ok();
    out.extend_from_slice(br#","kind":"AdmissionReview","response":{"uid":"#);
    serde_json::to_writer(&mut out, uid).ok();
    out.extend_from_slice(br#","allowed":true}}"#);
    out
}

#[cfg(feature = "scan")]
mod floor {
    use serde::Deserialize;
    use serde::de::IgnoredAny;

    #[derive(Deserialize)]
    struct Review<'a> {
        #[serde(rename = "apiVersion", borrow, default)]
        api_version: Option<&'a str>,
        #[serde(borrow)]
        request: Option<Request<'a>>,
    }
    #[derive(Deserialize)]
    struct Request<'a> {
        #[serde(borrow, default)]
        uid: Option<&'a str>,
        // every other field is validated by serde as `IgnoredAny` (unknown fields are skipped, i.e. scanned)
        #[serde(default)]
        #[allow(dead_code)]
        object: Option<IgnoredAny>,
    }

    pub fn run(bytes: &[u8]) -> Vec<u8> {
        match serde_json::from_slice::<Review>(bytes) {
            Ok(r) => super::answer(
                r.api_version.unwrap_or("admission.k8s.io/v1"),
                r.request.and_then(|q| q.uid).unwrap_or(""),
            ),
            Err(_) => super::answer("admission.k8s.io/v1", ""),
        }
    }
}

#[cfg(feature = "dom")]
mod floor {
    pub fn run(bytes: &[u8]) -> Vec<u8> {
        match serde_json::from_slice::<serde_json::Value>(bytes) {
            Ok(v) => super::answer(
                v.get("apiVersion")
                    .and_then(|a| a.as_str())
                    .unwrap_or("admission.k8s.io/v1"),
                v.pointer("/request/uid")
                    .and_then(|u| u.as_str())
                    .unwrap_or(""),
            ),
            Err(_) => super::answer("admission.k8s.io/v1", ""),
        }
    }
}

#[cfg(not(any(feature = "scan", feature = "dom")))]
mod floor {
    pub fn run(_bytes: &[u8]) -> Vec<u8> {
        super::answer("admission.k8s.io/v1", "")
    }
}

#[unsafe(no_mangle)]
pub extern "C" fn validate(ptr: i32, len: i32) -> i64 {
    leak(floor::run(input(ptr, len)))
}

/// The floor's answer to a review (the WASI floor's, `src/bin/wasi-floor.rs`).
pub fn answer_review(bytes: &[u8]) -> Vec<u8> {
    floor::run(bytes)
}
