//! What `palisade bake --wasi` calls on the WASI command before it takes its snapshot: a buffer for the bundle, then
//! [`super::wasi::bake`]. Neither function is in the shipped module's exports (those stay `_start`, `__main_void` and
//! `memory`): host-harness/build.rs lists them in the module's `palisade.tool-exports` section, where bake finds them.
#![expect(
    unsafe_code,
    reason = "the bundle's buffer is exchanged with the host as a raw pointer"
)]

/// Allocate `len` bytes for bake to write a bundle into; [`palisade_bake`] takes them back.
#[unsafe(no_mangle)]
pub extern "C" fn palisade_bake_alloc(len: i32) -> i32 {
    let len = usize::try_from(len).unwrap_or(0);
    Box::into_raw(vec![0u8; len].into_boxed_slice()).cast::<u8>() as usize as i32
}

/// Compile the bundle (JSON) in `ptr..ptr+len` as the baked bundle ([`super::wasi::bake`]), freeing the buffer. Answers
/// `configure`'s `{"valid": …}` as `(ptr << 32) | len` of a buffer that is never freed (bake reads it and throws the
/// instance's later state away; the few bytes stay in the image).
///
/// # Safety
/// `ptr..ptr+len` must be a buffer from [`palisade_bake_alloc`]`(len)`, filled, and not used again.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn palisade_bake(ptr: i32, len: i32) -> i64 {
    let bundle: Box<[u8]> = if ptr == 0 || len <= 0 {
        Box::default()
    } else {
        let slice = std::ptr::slice_from_raw_parts_mut(ptr as usize as *mut u8, len as usize);
        // SAFETY: the caller passes a boxed slice of exactly `len` bytes from `palisade_bake_alloc`, once.
        unsafe { Box::from_raw(slice) }
    };
    let answer = super::wasi::bake(&bundle).into_bytes().into_boxed_slice();
    drop(bundle);
    let len = answer.len() as u64;
    let ptr = Box::into_raw(answer).cast::<u8>() as usize as u64;
    ((ptr << 32) | (len & 0xffff_ffff)) as i64
}
