//! The import-free C ABI of `palisade.wasm` (docs/architecture.md, "The C ABI").
//!
//! Every `i64` result packs `(ptr << 32) | len` of a UTF-8 JSON buffer allocated here; the host frees both its input
//! buffer and the output buffer with `palisade_free` after each call.
#![expect(
    unsafe_code,
    reason = "the exported functions exchange raw buffers with the host"
)]

use std::cell::RefCell;

use crate::api::Configured;

thread_local! {
    /// What this instance decides with: [`Configured::Never`] until the first `configure`, then the last bundle's.
    static STATE: RefCell<Configured> = const { RefCell::new(Configured::Never) };
}

/// Hand a buffer to the host; the host frees it with `palisade_free(ptr, len)`.
fn leak(bytes: Vec<u8>) -> i64 {
    let boxed = bytes.into_boxed_slice();
    let len = boxed.len() as u64;
    let ptr = Box::into_raw(boxed).cast::<u8>() as usize as u64;
    ((ptr << 32) | (len & 0xffff_ffff)) as i64
}

/// Borrow the host's input buffer for the duration of a call.
///
/// # Safety
/// `ptr..ptr+len` must be a buffer the host obtained from `palisade_alloc(len)` and filled.
unsafe fn input<'a>(ptr: i32, len: i32) -> &'a [u8] {
    if ptr == 0 || len <= 0 {
        return &[];
    }
    // SAFETY: the caller guarantees the range came from `palisade_alloc`.
    unsafe { std::slice::from_raw_parts(ptr as usize as *const u8, len as usize) }
}

/// Allocate `len` bytes for the host to write an input into.
#[unsafe(no_mangle)]
pub extern "C" fn palisade_alloc(len: i32) -> i32 {
    let len = usize::try_from(len).unwrap_or(0);
    let boxed = vec![0u8; len].into_boxed_slice();
    Box::into_raw(boxed).cast::<u8>() as usize as i32
}

/// Free a buffer from `palisade_alloc` or returned by `configure`/`validate`.
///
/// # Safety
/// The host passes back exactly a pointer and length this module handed out, once.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn palisade_free(ptr: i32, len: i32) {
    if ptr == 0 || len < 0 {
        return;
    }
    let slice = std::ptr::slice_from_raw_parts_mut(ptr as usize as *mut u8, len as usize);
    // SAFETY: the host returns a (ptr, len) this module allocated as a boxed slice of exactly `len` bytes.
    drop(unsafe { Box::from_raw(slice) });
}

/// Compile a bundle (JSON); answers `{"valid":true}` or `{"valid":false,"message":…}`. Replaces the bundle on success.
///
/// # Safety
/// `ptr`/`len` describe a buffer from `palisade_alloc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn configure(ptr: i32, len: i32) -> i64 {
    // SAFETY: forwarded from the host's contract.
    let bytes = unsafe { input(ptr, len) };
    let answer = STATE.with(|state| state.borrow_mut().configure(bytes));
    leak(answer.into_bytes())
}

/// Decide an AdmissionReview (or `{"review":…,"context":…}`); answers an AdmissionReview of the same apiVersion.
///
/// # Safety
/// `ptr`/`len` describe a buffer from `palisade_alloc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn validate(ptr: i32, len: i32) -> i64 {
    // SAFETY: forwarded from the host's contract.
    let bytes = unsafe { input(ptr, len) };
    let answer = STATE.with(|state| state.borrow().validate(bytes));
    leak(answer.into_bytes())
}
