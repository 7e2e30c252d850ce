//! `palisade_seal`: what `palisade bake` calls after configuring an instance and before taking its snapshot.
//!
//! A configured instance's heap has holes: memory that compiling the bundle used and gave back. In a baked module
//! those holes are pages of its initial memory image, which a wasm host maps copy-on-write: a request that allocates
//! in them copies each page it writes (and, in a multi-threaded host, flushes the TLB of every core). Sealing takes
//! every hole below the current end of memory, zeroes it and keeps it, so that a fresh instance of the baked module
//! allocates from new pages past its image (zero-filled on first touch, nothing copied) and leaves the image's pages
//! as they were mapped. Last, the heap's free end is started on a page boundary ([`align_top`]) and cleared
//! ([`clear_free_end`]), so that the image ends where the heap's free end starts. The zeroed holes cost no bytes in
//! the baked module (its data segments leave zeros out).
//!
//! Only bake calls it, once, on an instance that is thrown away after the snapshot: the kept holes are never given
//! back, so sealing an instance that goes on serving would only shrink its heap.
#![expect(
    unsafe_code,
    reason = "taking the heap's free blocks is raw allocation, exported to the host"
)]

use std::alloc::{Layout, alloc_zeroed, dealloc};

/// The largest block tried; holes are taken with blocks of halving size, down to the smallest. One wasm page: a
/// larger hole is taken a page at a time, and the block found past the end grows memory by as little as it can.
const LARGEST: usize = 1 << 16;
const SMALLEST: usize = 8;

/// Take every free block of the heap that lies below the current end of linear memory (see the module documentation).
#[unsafe(no_mangle)]
pub extern "C" fn palisade_seal() {
    let end = core::arch::wasm32::memory_size(0) * 65536;
    let mut size = LARGEST;
    while size >= SMALLEST {
        let Ok(layout) = Layout::from_size_align(size, SMALLEST) else {
            return;
        };
        loop {
            let block = take(layout);
            if block.is_null() {
                break;
            }
            if block as usize + size > end {
                // past the image: given back, and the next size is tried
                // SAFETY: `block` was just allocated with `layout`.
                unsafe { dealloc(block, layout) };
                break;
            }
            // a hole in the image: kept (never freed), zeroed
        }
        size /= 2;
    }
    align_top();
}

/// Move the start of the heap's free end to a page boundary, so that a fresh instance's first allocation writes no
/// page of the image (the allocator writes a block's header where the block starts: on the image's last page, it is a
/// page copied per request). Blocks of the smallest size (16 bytes with the allocator's header) are taken one after
/// another until one starts a page (the allocator's blocks start eight bytes before the address it answers); that
/// one is given back, and the free end cleared from there ([`clear_free_end`]). Blocks start eight bytes apart, so a
/// run of 16-byte blocks starting eight bytes past a multiple of 16 never meets a page: one 24-byte block first moves
/// it by eight. At most two pages are kept; if the allocator lays blocks out otherwise, nothing is aligned and nothing
/// breaks.
fn align_top() {
    let small = Layout::new::<u64>();
    let mut moved = false;
    for _ in 0..=4096 / SMALLEST {
        let block = take(small);
        if block.is_null() {
            return;
        }
        let top = (block as usize).wrapping_sub(SMALLEST);
        if top.is_multiple_of(4096) {
            // SAFETY: `block` was just allocated with `small`.
            unsafe { dealloc(block, small) };
            clear_free_end(top, small);
            return;
        }
        if !moved && !top.is_multiple_of(2 * SMALLEST) {
            // a 24-byte block (16 bytes asked, with the allocator's header): kept
            moved = true;
            if take(Layout::new::<[u64; 2]>()).is_null() {
                return;
            }
        }
    }
}

/// The bytes std's allocator (dlmalloc) keeps at the end of its free end: a block header whose size field holds this
/// many bytes, the last ones of linear memory. Only the allocator's debug checks read it.
const END_MARKER: usize = 40;
/// The free end's own header, at its start: its size, which the allocator reads when it frees the block before it.
const FREE_END_HEADER: usize = 16;

/// Clear what the heap's free end, from `top` (a page) to the end of linear memory, still holds: headers of blocks
/// the seal took and gave back, and the allocator's end marker. The allocator writes a block's header when it hands
/// the block out, and reads no free memory it has not written since, so these bytes are dead. Left in, each would put
/// its page in the baked module's image, and the image's holes between them too (a wasm host maps the image as one
/// file, holes included), which cost a fresh instance more to write than new pages. Cleared, the image ends on `top`'s
/// page. Only done when the heap is laid out as dlmalloc lays it out: the next `small` block starts at `top`, and the
/// end marker is where it belongs; otherwise nothing is cleared.
fn clear_free_end(top: usize, small: Layout) {
    let Some(marker) = core::arch::wasm32::memory_size(0)
        .saturating_mul(65536)
        .checked_sub(END_MARKER)
    else {
        return;
    };
    let Some(dead) = marker.checked_sub(top + FREE_END_HEADER) else {
        return;
    };
    let block = take(small);
    if block.is_null() {
        return;
    }
    // SAFETY: `block` was just allocated with `small`.
    unsafe { dealloc(block, small) };
    // SAFETY: `marker + 4` lies inside linear memory, four bytes below its end, aligned: the marker's size field.
    let marker_size = unsafe { std::ptr::read((marker + 4) as *const u32) };
    if block as usize != top + SMALLEST || marker_size as usize != END_MARKER {
        return;
    }
    // SAFETY: `top + FREE_END_HEADER..marker + END_MARKER` is the allocator's free end past its header, and its end
    // marker (checked above): no block lives there, and the allocator reads none of it before writing it.
    unsafe { std::ptr::write_bytes((top + FREE_END_HEADER) as *mut u8, 0, dead + END_MARKER) };
}

/// A zeroed block of `layout` (a non-zero size) from the allocator, or null. Its address goes through `black_box`: the
/// compiler may remove an allocation whose block nothing reads (and answer any address for it), and the seal allocates
/// precisely for where the allocator places blocks.
fn take(layout: Layout) -> *mut u8 {
    // SAFETY: every caller's `layout` has a non-zero size.
    std::hint::black_box(unsafe { alloc_zeroed(layout) })
}
