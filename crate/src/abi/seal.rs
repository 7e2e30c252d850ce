//! `palisade_seal`: what `palisade bake` calls after configuring an instance and before taking its snapshot.
//!
//! A configured instance's heap has holes: memory that compiling the bundle used and gave back. In a baked module
//! those holes are pages of its initial memory image, which a wasm host maps copy-on-write: a request that allocates
//! in them copies each page it writes (and, in a multi-threaded host, flushes the TLB of every core). Sealing takes
//! every hole below the current end of memory, zeroes it and keeps it, so that a fresh instance of the baked module
//! allocates from new pages past its image (zero-filled on first touch, nothing copied) and leaves the image's pages
//! as they were mapped. Last, the heap's free end is started on a page boundary ([`align_top`]). The zeroed holes
//! cost no bytes in the baked module (its data segments leave zeros out).
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
            // SAFETY: `layout` has a non-zero size.
            let block = unsafe { alloc_zeroed(layout) };
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
/// page copied per request). Blocks of the smallest size are taken one after another until one starts a page (the
/// allocator's blocks start eight bytes before the address it answers); that one is given back. At most a page is
/// kept; if the allocator lays blocks out otherwise, nothing is aligned and nothing breaks.
fn align_top() {
    let Ok(layout) = Layout::from_size_align(SMALLEST, SMALLEST) else {
        return;
    };
    for _ in 0..=4096 / (2 * SMALLEST) {
        // SAFETY: `layout` has a non-zero size.
        let block = unsafe { alloc_zeroed(layout) };
        if block.is_null() {
            return;
        }
        if (block as usize).wrapping_sub(SMALLEST).is_multiple_of(4096) {
            // SAFETY: `block` was just allocated with `layout`.
            unsafe { dealloc(block, layout) };
            return;
        }
    }
}
