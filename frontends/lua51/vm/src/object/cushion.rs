//! The memory cushion: how the front end (lexer, parser, compiler), whose allocations are
//! ordinary infallible Rust ones (boxed tree nodes, growing vectors), answers "not enough
//! memory" instead of aborting the process when memory runs out while it works, as 5.1's
//! loader does.
//!
//! [`CushionedAllocator`] is a global allocator over the system's that keeps a block of
//! [`CUSHION_BYTES`] in reserve. The first allocation that fails gives the block back and is
//! tried again, and [`EXHAUSTED`] is set; the lexer checks the flag at every token and the
//! compiler at every instruction it emits, so the load stops with "not enough memory" a few
//! allocations later, its tree is dropped, and the next load takes a new cushion
//! ([`renew`]). An allocation that fails even then (or with no cushion left) fails as it
//! would without one: a fallible caller (the runtime's table, string and buffer growth, and
//! the front end's unbounded lists, grown with `try_reserve`) reports it, an infallible one
//! aborts.
//!
//! A binary installs it (`#[global_allocator]`, as `ljr` does) and calls [`renew`] once at
//! start; without it, the flag is never set and nothing changes.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering};

/// The reserve's size: more than the front end allocates between two of its checks, and
/// small next to the memory a load that runs out has used.
pub const CUSHION_BYTES: usize = 16 << 20;

/// Set when the cushion was spent (an allocation failed); cleared by [`renew`].
pub static EXHAUSTED: AtomicBool = AtomicBool::new(false);

/// The reserved block (null when spent or never taken).
static CUSHION: AtomicPtr<u8> = AtomicPtr::new(std::ptr::null_mut());

fn cushion_layout() -> Layout {
    Layout::from_size_align(CUSHION_BYTES, 16).expect("a valid layout")
}

/// The global allocator that keeps the cushion. See the module documentation.
#[derive(Debug, Default)]
pub struct CushionedAllocator;

impl CushionedAllocator {
    /// After a failed allocation: gives the cushion back and tries again (`None` when there
    /// was none to give).
    #[cold]
    fn retry(&self, again: impl FnOnce() -> *mut u8) -> *mut u8 {
        let cushion = CUSHION.swap(std::ptr::null_mut(), Ordering::AcqRel);
        if cushion.is_null() {
            return std::ptr::null_mut();
        }
        // SAFETY: the block was allocated by `System` with this layout (`renew`).
        unsafe { System.dealloc(cushion, cushion_layout()) };
        EXHAUSTED.store(true, Ordering::Release);
        again()
    }
}

// SAFETY: every request goes to `System` (a failed one again, after the cushion is freed),
// and every block is freed by `System` with the layout it was allocated with.
unsafe impl GlobalAlloc for CushionedAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's.
        let p = unsafe { System.alloc(layout) };
        if p.is_null() {
            // SAFETY: the caller's.
            return self.retry(|| unsafe { System.alloc(layout) });
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's.
        let p = unsafe { System.alloc_zeroed(layout) };
        if p.is_null() {
            // SAFETY: the caller's.
            return self.retry(|| unsafe { System.alloc_zeroed(layout) });
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if p.is_null() {
            // (A failed `realloc` leaves the old block as it was.)
            // SAFETY: the caller's.
            return self.retry(|| unsafe { System.realloc(ptr, layout, new_size) });
        }
        p
    }
}

/// Takes a new cushion if the last one was spent (and the memory for it can be had), and
/// clears [`EXHAUSTED`]: called before each load, and once at start.
pub fn renew() {
    if CUSHION.load(Ordering::Acquire).is_null() {
        // SAFETY: a non-zero size.
        let block = unsafe { System.alloc(cushion_layout()) };
        if !block.is_null() && CUSHION.compare_exchange(std::ptr::null_mut(), block, Ordering::AcqRel, Ordering::Acquire).is_err() {
            // SAFETY: just allocated with this layout, and not kept.
            unsafe { System.dealloc(block, cushion_layout()) };
        }
    }
    EXHAUSTED.store(false, Ordering::Release);
}

/// Whether the cushion was spent since the last [`renew`].
pub fn exhausted() -> bool {
    EXHAUSTED.load(Ordering::Relaxed)
}
