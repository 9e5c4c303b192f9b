//! Memory that objects own outside the heap's allocator (the array and hash parts of tables,
//! shapes' key lists), counted toward the collector's debt.
//!
//! That memory is allocated by table and shape operations, which have no heap at hand, so its
//! growth is recorded here and folded into the heap's count at collection safe points
//! (`gc::fold_table_storage`). Small blocks of that storage are also kept here when freed and
//! handed out again ([`alloc_values`], [`free_values`]).

thread_local! {
    /// Bytes the array and hash parts of tables grew (or shrank, negative) by since the
    /// collector last looked: table storage is allocated by table operations, which have no
    /// heap at hand, and must count toward the collection debt like objects do.
    static STORAGE_DELTA: std::cell::Cell<isize> = const { std::cell::Cell::new(0) };
}

/// Records `delta` bytes of storage growth (negative: shrinking).
pub(crate) fn account_storage(delta: isize) {
    STORAGE_DELTA.with(|d| d.set(d.get() + delta));
}

/// Takes the table-storage growth recorded since the last call (see `gc::check`).
pub(crate) fn take_storage_delta() -> isize {
    STORAGE_DELTA.with(|d| d.replace(0))
}

/// Block sizes, in words, that are kept for reuse when freed. A table filled by appending
/// grows its array part through 4, 8, 16 and 32 elements, each growth an allocation, a copy and
/// a free, and the collector frees such tables by the thousand per sweep: past the C library's
/// small per-thread cache, each of those was a trip through its general free lists (a quarter
/// of the instructions of a program building many small arrays). Small hash parts (4, 8, 16
/// nodes of two words) and out-of-line named slots come and go the same way.
const REUSED_CAPS: [usize; 4] = [4, 8, 16, 32];
/// Blocks kept per capacity: at most 4096 * (32 + 64 + 128 + 256) bytes, under 2 MiB.
const MAX_REUSED_BLOCKS: usize = 4096;

/// Freed blocks of one capacity, linked through their first word.
struct FreeBlocks {
    head: std::cell::Cell<*mut u64>,
    count: std::cell::Cell<usize>,
}

impl FreeBlocks {
    const fn new() -> Self {
        FreeBlocks { head: std::cell::Cell::new(std::ptr::null_mut()), count: std::cell::Cell::new(0) }
    }
}

/// The thread's kept blocks, by [`REUSED_CAPS`]; released when the thread ends.
struct KeptBlocks([FreeBlocks; REUSED_CAPS.len()]);

impl std::ops::Deref for KeptBlocks {
    type Target = [FreeBlocks; REUSED_CAPS.len()];
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl Drop for KeptBlocks {
    fn drop(&mut self) {
        for (list, &cap) in self.0.iter().zip(&REUSED_CAPS) {
            let layout = values_layout(cap).expect("a small array");
            let mut block = list.head.replace(std::ptr::null_mut());
            while !block.is_null() {
                // SAFETY: kept blocks link through their first word and came from the global
                // allocator with this layout.
                unsafe {
                    let next = *block as *mut u64;
                    std::alloc::dealloc(block as *mut u8, layout);
                    block = next;
                }
            }
            list.count.set(0);
        }
    }
}

thread_local! {
    /// Tables live and die on one thread: their blocks are kept per thread.
    static FREE_ARRAY_BLOCKS: KeptBlocks = const { KeptBlocks([FreeBlocks::new(), FreeBlocks::new(), FreeBlocks::new(), FreeBlocks::new()]) };
}

fn reuse_class(cap: usize) -> Option<usize> {
    REUSED_CAPS.iter().position(|&c| c == cap)
}

fn values_layout(cap: usize) -> Option<std::alloc::Layout> {
    std::alloc::Layout::array::<u64>(cap).ok()
}

/// A block for `cap` (non-zero) array elements of 8 bytes, allocated as a `Vec` of that
/// capacity would be (so a `Vec` may take it over, grow it and free it), or null when memory
/// is exhausted.
pub(crate) fn alloc_values(cap: usize) -> *mut u64 {
    debug_assert!(cap != 0);
    if let Some(class) = reuse_class(cap) {
        // (`try_with`: a table freed while the thread's locals are destroyed uses the allocator.)
        let reused = FREE_ARRAY_BLOCKS
            .try_with(|lists| {
                let list = &lists[class];
                let block = list.head.get();
                if !block.is_null() {
                    // SAFETY: a kept block's first word links to the next one.
                    list.head.set(unsafe { *block } as *mut u64);
                    list.count.set(list.count.get() - 1);
                }
                block
            })
            .unwrap_or(std::ptr::null_mut());
        if !reused.is_null() {
            return reused;
        }
    }
    match values_layout(cap) {
        // SAFETY: a non-zero size.
        Some(layout) => unsafe { std::alloc::alloc(layout) as *mut u64 },
        None => std::ptr::null_mut(),
    }
}

/// Frees a block of `cap` (non-zero) 8-byte elements from [`alloc_values`] or a `Vec` of that
/// capacity: kept for reuse when it is of a reused capacity and there is room, else released.
///
/// # Safety
/// `block` was allocated for `cap` elements by the global allocator and is not used again.
pub(crate) unsafe fn free_values(block: *mut u64, cap: usize) {
    if let Some(class) = reuse_class(cap) {
        let kept = FREE_ARRAY_BLOCKS
            .try_with(|lists| {
                let list = &lists[class];
                if list.count.get() >= MAX_REUSED_BLOCKS {
                    return false;
                }
                // SAFETY: the block is ours now, at least one word long.
                unsafe { *block = list.head.get() as u64 };
                list.head.set(block);
                list.count.set(list.count.get() + 1);
                true
            })
            .unwrap_or(false);
        if kept {
            return;
        }
    }
    let layout = values_layout(cap).expect("the block was allocated with this layout");
    // SAFETY: allocated by the global allocator with this layout (the caller's promise).
    unsafe { std::alloc::dealloc(block as *mut u8, layout) };
}

#[cfg(test)]
mod tests {
    use crate::object::debt::{alloc_values, free_values, reuse_class, FREE_ARRAY_BLOCKS, MAX_REUSED_BLOCKS};

    /// A freed block of a kept capacity is the next one handed out; a `Vec` of that capacity
    /// may take a block over, grow it and free it; at most `MAX_REUSED_BLOCKS` are kept, and
    /// other capacities go straight back to the allocator.
    #[test]
    fn small_array_blocks_are_reused_up_to_a_bound() {
        let a = alloc_values(8);
        unsafe { free_values(a, 8) };
        let b = alloc_values(8);
        assert_eq!(a, b, "the freed block comes back");
        let mut v = unsafe { Vec::from_raw_parts(b, 0, 8) };
        v.extend(0..100u64);
        assert_eq!(v.iter().sum::<u64>(), 4950);
        drop(v);
        let blocks: Vec<_> = (0..MAX_REUSED_BLOCKS + 10).map(|_| alloc_values(4)).collect();
        for &block in &blocks {
            unsafe { free_values(block, 4) };
        }
        let kept = |cap| FREE_ARRAY_BLOCKS.with(|lists| lists[reuse_class(cap).unwrap()].count.get());
        assert_eq!(kept(4), MAX_REUSED_BLOCKS);
        let odd = alloc_values(5);
        unsafe { free_values(odd, 5) };
        assert!(alloc_values(usize::MAX / 4).is_null(), "an impossible size is null, not a panic");
    }
}
