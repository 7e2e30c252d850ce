//! The import-free C ABI of `palisade.wasm` (docs/architecture.md, "The C ABI").
//!
//! Every `i64` result packs `(ptr << 32) | len` of a UTF-8 JSON buffer allocated here; the host frees both its input
//! buffer and the output buffer with `palisade_free` after each call.
#![expect(
    unsafe_code,
    reason = "the exported functions exchange raw buffers with the host"
)]

use std::cell::RefCell;
use std::sync::Arc;

use crate::api::Configured;

thread_local! {
    /// What this instance decides with: [`Configured::Never`] until the first `configure`, then the last bundle's.
    static STATE: RefCell<Configured> = const { RefCell::new(Configured::Never(crate::api::NEVER_CONFIGURED)) };
    /// Inputs `validate` read in place: each the host's buffer itself, taken over as the shared text the request's
    /// objects are read from, and kept where it is until the host frees it with `palisade_free`.
    static HELD: RefCell<Vec<Arc<String>>> = const { RefCell::new(Vec::new()) };
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

/// Where among the held inputs the buffer `ptr..ptr+len` is, if `validate` took it over.
fn held_at(held: &[Arc<String>], ptr: i32, len: i32) -> Option<usize> {
    held.iter()
        .position(|t| t.as_ptr() as usize == ptr as usize && t.len() == len as usize)
}

/// The host's input buffer as a shared text, read in place (no copy): taken over from the host, it stays where it is
/// and is freed when the host frees it. `None` when the buffer is empty or not UTF-8 (the caller reads it borrowed,
/// and answers such input as ever).
///
/// # Safety
/// `ptr..ptr+len` must be a buffer the host obtained from `palisade_alloc(len)`, filled, and not yet freed.
unsafe fn take_text(ptr: i32, len: i32) -> Option<Arc<String>> {
    if ptr == 0 || len <= 0 {
        return None;
    }
    let again = HELD.with(|held| {
        let held = held.borrow();
        held_at(&held, ptr, len).and_then(|at| held.get(at).cloned())
    });
    if let Some(text) = again {
        // a host that wrote into a buffer it did not free: its bytes are checked again
        return palisade_json::is_utf8(text.as_bytes()).then_some(text);
    }
    // SAFETY: forwarded from the caller; the borrow ends before the buffer is taken over below.
    if !palisade_json::is_utf8(unsafe { input(ptr, len) }) {
        return None;
    }
    let slice = std::ptr::slice_from_raw_parts_mut(ptr as usize as *mut u8, len as usize);
    // SAFETY: the buffer is a boxed slice of exactly `len` bytes from `palisade_alloc`, not freed and not held (checked
    // above): its ownership moves here, and `palisade_free` drops it (same allocation, same layout: the string's
    // capacity is `len`). Its bytes were just checked to be UTF-8.
    let text = unsafe { String::from_utf8_unchecked(Box::from_raw(slice).into_vec()) };
    let text = Arc::new(text);
    HELD.with(|held| held.borrow_mut().push(Arc::clone(&text)));
    Some(text)
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
    // an input `validate` read in place: freed with the shared text it became
    let taken = HELD.with(|held| {
        let mut held = held.borrow_mut();
        let at = held_at(&held, ptr, len)?;
        Some(held.swap_remove(at))
    });
    if taken.is_some() {
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
    let answer = match unsafe { take_text(ptr, len) } {
        Some(text) => STATE.with(|state| state.borrow().validate_shared(&text)),
        None => {
            // SAFETY: forwarded from the host's contract.
            let bytes = unsafe { input(ptr, len) };
            STATE.with(|state| state.borrow().validate(bytes))
        }
    };
    leak(answer.into_bytes())
}
