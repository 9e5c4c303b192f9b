//! Object allocation, and interning strings into the set `string` keeps.
//!
//! Every object starts with a [`GcHeader`] and is recorded in one vector, which the collector
//! sweeps. Objects up to [`SMALL_MAX`] bytes come from per-size free lists carved out of large
//! chunks ([`SmallPool`]): allocating and freeing one is a pointer pop or push, where `malloc`
//! and `free` dominated allocation-heavy programs. Larger objects use the global allocator.

use std::alloc::{alloc_zeroed, dealloc, Layout};

use lua51_value::{GcHeader, LuaString, ObjKind, TValue};

use crate::object::shape::ShapeRegistry;
use crate::object::string::{hash_bytes, StringTable, MAX_STRING_LEN};

/// Largest object served by the [`SmallPool`].
pub const SMALL_MAX: usize = 256;
const GRANULE: usize = 16;
const CLASSES: usize = SMALL_MAX / GRANULE;
const CHUNK_BYTES: usize = 256 << 10;

/// A free cell, linked through its first word.
struct FreeCell {
    next: *mut FreeCell,
}

/// Segregated free lists (one per 16-byte size class) over chunks that are bump-allocated
/// first. Memory of freed cells is reused for the same class, never returned to the system
/// while the state lives; chunks are released when the heap is dropped.
#[derive(Debug)]
pub(crate) struct SmallPool {
    free: [*mut FreeCell; CLASSES],
    bump: *mut u8,
    bump_end: *mut u8,
    chunks: Vec<*mut u8>,
}

impl Default for SmallPool {
    fn default() -> Self {
        Self { free: [std::ptr::null_mut(); CLASSES], bump: std::ptr::null_mut(), bump_end: std::ptr::null_mut(), chunks: Vec::new() }
    }
}

fn size_class(size: usize) -> usize {
    debug_assert!(size > 0 && size <= SMALL_MAX);
    size.div_ceil(GRANULE) - 1
}

impl SmallPool {
    /// A cell of `size` class off its free list (its contents stale), or null when the list is
    /// empty. In line: the allocation fast path is this and nothing more.
    #[inline(always)]
    fn pop_free(&mut self, size: usize) -> *mut u8 {
        let class = size_class(size);
        let head = self.free[class];
        if !head.is_null() {
            // SAFETY: a cell on the free list is `(class + 1) * GRANULE` bytes the pool owns
            // and nothing refers to; its first word links the list.
            self.free[class] = unsafe { (*head).next };
        }
        head as *mut u8
    }

    /// `size` bytes (zeroed if `zeroed`), 16-aligned; null when the system is out of memory.
    fn alloc(&mut self, size: usize, zeroed: bool) -> *mut u8 {
        let class = size_class(size);
        let rounded = (class + 1) * GRANULE;
        let cell = self.pop_free(size);
        if !cell.is_null() {
            if zeroed {
                // SAFETY: the cell is `rounded` bytes the pool owns.
                unsafe { std::ptr::write_bytes(cell, 0, rounded) };
            }
            return cell;
        }
        if (self.bump_end as usize) - (self.bump as usize) < rounded {
            let layout = Layout::from_size_align(CHUNK_BYTES, GRANULE).expect("chunk layout");
            // Fresh chunks are zeroed, so bump-allocated cells need no clearing.
            let chunk = unsafe { alloc_zeroed(layout) };
            if chunk.is_null() {
                return chunk;
            }
            self.chunks.push(chunk);
            self.bump = chunk;
            self.bump_end = unsafe { chunk.add(CHUNK_BYTES) };
        }
        let p = self.bump;
        self.bump = unsafe { p.add(rounded) };
        p
    }

    /// Returns a cell of `size` bytes (as allocated) to its free list.
    fn free(&mut self, p: *mut u8, size: usize) {
        let class = size_class(size);
        let cell = p as *mut FreeCell;
        // SAFETY: `p` is a cell of this class that is no longer used.
        unsafe { (*cell).next = self.free[class] };
        self.free[class] = cell;
    }
}

impl Drop for SmallPool {
    fn drop(&mut self) {
        let layout = Layout::from_size_align(CHUNK_BYTES, GRANULE).expect("chunk layout");
        for &chunk in &self.chunks {
            unsafe { dealloc(chunk, layout) };
        }
    }
}

/// Owns every heap object of one Lua state.
#[derive(Debug)]
pub struct Heap {
    /// Every object, for the sweep. A vector, not a list through the headers: the sweep reads
    /// each object's mark, and with a list every read waited for the previous one (a cache
    /// miss per object, one after another); from a vector the reads are independent, so the
    /// misses overlap.
    pub(crate) objects: Vec<*mut GcHeader>,
    small: SmallPool,
    pub(crate) strings: StringTable,
    /// The tables' hidden classes.
    pub shapes: Box<ShapeRegistry>,
    pub bytes_allocated: usize,
    /// Collect once `bytes_allocated` reaches this (see `gc`).
    pub threshold: usize,
    /// `collectgarbage("stop")`.
    pub stopped: bool,
    /// `setpause`: the next threshold is live bytes times `pause / 100`.
    pub pause: usize,
    /// The threshold never goes below this ([`MIN_THRESHOLD`]; 0 collects at every safe point).
    pub threshold_floor: usize,
    /// `--gc-verify`: a small collector step at every safe point, and after each step a check
    /// that no black object refers to a white one (the write barrier's invariant).
    pub verify: bool,
    /// The current white (`lua51_value::GC_WHITE0` or `GC_WHITE1`), which new objects get.
    pub(crate) white: u8,
    /// Every userdata, in allocation order: the candidates for finalization, found without
    /// walking the whole heap in the collector's atomic phase.
    pub(crate) userdata: Vec<*mut GcHeader>,
    /// Where the collector is in its cycle (`gc` drives it).
    pub(crate) cycle: GcCycle,
    /// The one-byte strings, kept (roots of every collection): `s:sub(i, i)`, `string.char(c)`
    /// and one-character captures are a lookup, not a hash and a probe. A state makes all of
    /// them when it is made (`LuaState::new`; the generated code reads its copy,
    /// `SharedState::single_byte_strings`); a bare heap makes them on first use.
    pub(crate) single_chars: [*mut LuaString; 256],
}

/// The phases of an incremental collection cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GcPhase {
    /// Between cycles: every object is white.
    #[default]
    Pause,
    /// Marking, a step at a time, interleaved with the program (the write barrier records
    /// stores into black objects); ends with the atomic phase, in one step.
    Propagate,
    /// Freeing what the marking left white, a step at a time.
    Sweep,
}

/// The collector's state between its steps.
#[derive(Debug)]
pub(crate) struct GcCycle {
    pub phase: GcPhase,
    /// Reached objects whose references are still to trace.
    pub gray: Vec<*mut GcHeader>,
    /// Objects the write barrier turned gray again, linked through `GcHeader::next`: the
    /// barrier cannot fail to record one (no allocation), and the atomic phase traces them.
    pub gray_again: *mut GcHeader,
    /// Weak tables traced so far: traced again and cleared in the atomic phase.
    pub weak: Vec<*mut GcHeader>,
    /// Threads traced so far: their stacks change without a barrier, so the atomic phase
    /// scans them again (and clears their stale slots).
    pub threads: Vec<*mut GcHeader>,
    /// Open upvalues traced so far (their values live on stacks): traced again in the atomic
    /// phase.
    pub open_upvalues: Vec<*mut GcHeader>,
    /// The sweep's position in `Heap::objects` (the next object to look at) and the end of
    /// the survivors compacted before it.
    pub sweep_read: usize,
    pub sweep_write: usize,
    /// Objects freed in this cycle.
    pub freed: usize,
    /// A table whose long array part is being traced a piece at a time, and the next element.
    pub partial: Option<(*mut GcHeader, usize)>,
}

impl Default for GcCycle {
    fn default() -> Self {
        Self {
            phase: GcPhase::Pause,
            gray: Vec::new(),
            gray_again: std::ptr::null_mut(),
            weak: Vec::new(),
            threads: Vec::new(),
            open_upvalues: Vec::new(),
            sweep_read: 0,
            sweep_write: 0,
            freed: 0,
            partial: None,
        }
    }
}

/// No collection below this many bytes.
pub const MIN_THRESHOLD: usize = 4 << 20;

impl Default for Heap {
    fn default() -> Self {
        Self {
            objects: Vec::new(),
            small: SmallPool::default(),
            strings: StringTable::default(),
            shapes: ShapeRegistry::new(),
            bytes_allocated: 0,
            threshold: MIN_THRESHOLD,
            stopped: false,
            pause: 200,
            threshold_floor: MIN_THRESHOLD,
            verify: false,
            white: lua51_value::GC_WHITE0,
            userdata: Vec::new(),
            cycle: GcCycle::default(),
            single_chars: [std::ptr::null_mut(); 256],
        }
    }
}

/// The white that is not `white` (see `lua51_value::GC_WHITE0`).
pub(crate) fn other_white(white: u8) -> u8 {
    white ^ (lua51_value::GC_WHITE0 ^ lua51_value::GC_WHITE1)
}

/// Raised when an allocation cannot be satisfied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutOfMemory;

impl Heap {
    /// Allocates `size` zeroed bytes (8-aligned) for an object of `kind` and records it.
    pub fn alloc(&mut self, size: usize, kind: ObjKind) -> Result<*mut GcHeader, OutOfMemory> {
        self.alloc_cell(size, kind, true)
    }

    /// [`Heap::alloc`] for an object whose constructor writes every byte that is ever read
    /// before it is written (a table: its fields, while its slots and array are read only up
    /// to their lengths): a reused cell keeps its old bytes, which clearing cost a `memset`
    /// call per table.
    pub fn alloc_uninit(&mut self, size: usize, kind: ObjKind) -> Result<*mut GcHeader, OutOfMemory> {
        // The usual case in line: a small cell off its free list, room in the object list,
        // without the general path's call (binarytrees: about 5 instructions per table).
        if size <= SMALL_MAX && kind != ObjKind::Userdata && self.objects.len() < self.objects.capacity() {
            let cell = self.small.pop_free(size) as *mut GcHeader;
            if !cell.is_null() {
                // SAFETY: a free cell of at least `size` bytes; the object list has room
                // (checked above).
                unsafe { self.init_cell(cell, kind, size) };
                return Ok(cell);
            }
        }
        self.alloc_cell(size, kind, false)
    }

    /// Fills in a new cell's header and records it (the object list must have room).
    ///
    /// # Safety
    /// `p` is a fresh cell of `size` bytes.
    #[inline(always)]
    unsafe fn init_cell(&mut self, p: *mut GcHeader, kind: ObjKind, size: usize) {
        unsafe {
            (*p).kind = kind as u8;
            (*p).marked = self.white;
            // No cache matches an object that is not a table (tables set their own key).
            (*p).ic_key = deegen_api::ic::UNCACHEABLE_KEY;
            (*p).next = std::ptr::null_mut();
        }
        self.objects.push(p);
        if kind == ObjKind::Userdata {
            self.userdata.push(p);
        }
        self.bytes_allocated += size;
    }

    fn alloc_cell(&mut self, size: usize, kind: ObjKind, zeroed: bool) -> Result<*mut GcHeader, OutOfMemory> {
        let p = if size <= SMALL_MAX {
            self.small.alloc(size, zeroed) as *mut GcHeader
        } else {
            // (16-aligned as the pool's cells: the interning table keeps bits in a string
            // address's low four.)
            let layout = Layout::from_size_align(size, GRANULE).map_err(|_| OutOfMemory)?;
            unsafe { alloc_zeroed(layout) as *mut GcHeader }
        };
        if p.is_null() {
            return Err(OutOfMemory);
        }
        let is_userdata = kind == ObjKind::Userdata;
        if self.objects.try_reserve(1).is_err() || (is_userdata && self.userdata.try_reserve(1).is_err()) {
            // SAFETY: just allocated with `size`, not yet recorded anywhere (`release` takes
            // back what it is about to count).
            self.bytes_allocated += size;
            unsafe { self.release(p, size) };
            return Err(OutOfMemory);
        }
        // SAFETY: just allocated; both lists have room (reserved above).
        unsafe { self.init_cell(p, kind, size) };
        Ok(p)
    }

    /// The write barrier, after a store of a value into the heap object `obj` (a table, a
    /// closure's environment, a userdata's metatable or environment, a closed upvalue): see
    /// `lua51_value::GC_BLACK`.
    #[inline]
    pub(crate) fn write_barrier(&mut self, obj: *mut GcHeader) {
        if unsafe { (*obj).is_black() } {
            self.barrier(obj);
        }
    }

    /// The write barrier's slow path: `obj`, black, had a store into it. While the collector
    /// marks, it becomes gray and joins the gray-again list for the atomic phase; while it
    /// sweeps, gray, which the sweep keeps and whitens as it does black, so the next store
    /// into it takes the fast path.
    pub(crate) fn barrier(&mut self, obj: *mut GcHeader) {
        unsafe {
            if (*obj).marked != lua51_value::GC_BLACK {
                return;
            }
            (*obj).marked = lua51_value::GC_GRAY;
            if self.cycle.phase == GcPhase::Propagate {
                (*obj).next = self.cycle.gray_again;
                self.cycle.gray_again = obj;
            }
        }
    }

    /// Releases the memory of a dead object allocated with `size` bytes (its owned memory was
    /// already dropped).
    ///
    /// # Safety
    /// `p` came from [`Heap::alloc`] with `size`, is no longer recorded and never used again.
    pub(crate) unsafe fn release(&mut self, p: *mut GcHeader, size: usize) {
        if size <= SMALL_MAX {
            self.small.free(p as *mut u8, size);
        } else {
            unsafe { dealloc(p as *mut u8, Layout::from_size_align_unchecked(size, GRANULE)) };
        }
        self.bytes_allocated -= size;
    }

    /// The interned string with these bytes.
    pub fn intern(&mut self, bytes: &[u8]) -> Result<TValue, OutOfMemory> {
        if let [b] = *bytes {
            let cached = self.single_chars[usize::from(b)];
            if !cached.is_null() {
                return Ok(TValue::from_string(cached));
            }
        }
        let hash = hash_bytes(bytes);
        match self.find_in_table(bytes, hash) {
            Ok(s) => Ok(s),
            Err(slot) => self.intern_new(bytes, hash, slot),
        }
    }

    /// The interned string with these bytes if there is one: [`Self::intern`]'s hit, which
    /// allocates nothing, so a caller may look before it lets the collector step (a piece of a
    /// string cut out again and again, `s:sub(i, j)`, is nearly always there already).
    #[inline]
    pub fn find_interned(&mut self, bytes: &[u8]) -> Option<TValue> {
        if let [b] = *bytes {
            let cached = self.single_chars[usize::from(b)];
            return (!cached.is_null()).then(|| TValue::from_string(cached));
        }
        self.find_in_table(bytes, hash_bytes(bytes)).ok()
    }

    /// The interned string with these bytes and hash, or the free slot for it.
    #[inline(always)]
    fn find_in_table(&mut self, bytes: &[u8], hash: u32) -> Result<TValue, usize> {
        let s = self.strings.find(bytes, hash)?;
        // While the collector sweeps, a string of the other white is one it found unreachable
        // and has not freed yet: reachable again, it must survive the sweep.
        unsafe {
            if self.cycle.phase == GcPhase::Sweep && (*s).header.marked == other_white(self.white) {
                (*s).header.marked = self.white;
            }
        }
        Ok(TValue::from_string(s))
    }

    /// Allocates a string that is not interned yet, whose slot would be `slot` (the table
    /// may grow first, which moves it). In [`Self::intern`]'s frame: as a call of its own, its
    /// register saves cost strings built by concatenation 3% more instructions.
    #[inline(always)]
    fn intern_new(&mut self, bytes: &[u8], hash: u32, mut slot: usize) -> Result<TValue, OutOfMemory> {
        if self.strings.reserve_one().map_err(|_| OutOfMemory)? {
            slot = self.strings.find(bytes, hash).expect_err("not interned");
        }
        if bytes.len() >= MAX_STRING_LEN {
            return Err(OutOfMemory);
        }
        let size = std::mem::size_of::<LuaString>() + bytes.len() + 1;
        let s = self.alloc(size, ObjKind::String)? as *mut LuaString;
        unsafe {
            (*s).len = bytes.len() as u32;
            (*s).hash = hash;
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), (*s).data() as *mut u8, bytes.len());
        }
        self.strings.insert(slot, s, hash);
        if let [b] = *bytes {
            self.single_chars[usize::from(b)] = s;
        }
        Ok(TValue::from_string(s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sweep deletes interned strings in place (no allocation): whatever it removes, every
    /// survivor is still found, and interning a removed string's bytes makes a new string.
    #[test]
    fn string_sweep_in_place_keeps_every_survivor_reachable() {
        let mut heap = Heap::default();
        // Names from a pseudo-random sequence: sequential names ("s1", "s2", ...) hash to
        // evenly spread homes and hardly ever share a probe run.
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        let names: Vec<Vec<u8>> = (0..5000)
            .map(|i| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                format!("{:x}-{i}", x >> 40).into_bytes()
            })
            .collect();
        let strings: Vec<TValue> = names.iter().map(|n| heap.intern(n).unwrap()).collect();
        // Drop one of every three, so deletions fall inside probe runs and at their ends (and
        // the table, still a third full, does not shrink: the deletions alone are tested).
        let dead: std::collections::HashSet<usize> =
            strings.iter().enumerate().filter(|(i, _)| i % 3 == 1).map(|(_, s)| s.as_ptr::<u8>() as usize).collect();
        let slots = heap.strings.capacity();
        let (far, right) = heap.strings.check_distances();
        assert!(right, "distances right after inserts and growth");
        assert!(far > 0, "some strings are far from home ({slots} slots)");
        for &s in &strings {
            if dead.contains(&(s.as_ptr::<u8>() as usize)) {
                heap.strings.remove(s.as_ptr());
            }
        }
        assert_eq!(heap.strings.len, strings.len() - dead.len());
        assert_eq!(heap.strings.capacity(), slots, "no shrink");
        // Deletions moved strings back (some of them far from home, whose home they read from
        // the string) and rewrote their distances.
        assert!(heap.strings.check_distances().1, "distances right after deletions");
        // Survivors first: re-interning a removed string would fill the gap it left and hide a
        // probe run the deletion broke.
        for (i, (name, s)) in names.iter().zip(&strings).enumerate().filter(|(i, _)| i % 3 != 1) {
            assert_eq!(heap.intern(name).unwrap().0, s.0, "survivor {i} is found");
        }
        for (i, (name, s)) in names.iter().zip(&strings).enumerate().filter(|(i, _)| i % 3 == 1) {
            assert_ne!(heap.intern(name).unwrap().0, s.0, "string {i} was removed");
        }
    }

    /// The interning table shrinks only after a whole cycle in which it was sparse: a program
    /// that fills it with short-lived strings every cycle keeps its size (no rebuild per
    /// cycle), and a burst that is gone for good is given back, half at a time.
    #[test]
    fn string_table_shrinks_only_after_a_sparse_cycle() {
        let mut heap = Heap::default();
        let cycle = |heap: &mut Heap, n: usize, tag: usize| {
            let strings: Vec<TValue> = (0..n).map(|i| heap.intern(format!("s{tag}-{i}").as_bytes()).unwrap()).collect();
            // The sweep frees them all; the cycle ends.
            for s in strings {
                heap.strings.remove(s.as_ptr());
            }
            heap.strings.shrink_if_sparse();
        };
        cycle(&mut heap, 20_000, 0);
        let full = heap.strings.capacity();
        assert!(full * 3 >= 20_000 * 4, "grown for 20,000 strings, at most three quarters full: {full}");
        for tag in 1..4 {
            cycle(&mut heap, 20_000, tag);
            assert_eq!(heap.strings.capacity(), full, "refilled every cycle: kept (cycle {tag})");
        }
        // The bursts are over: each cycle with few strings halves it.
        cycle(&mut heap, 10, 9);
        assert_eq!(heap.strings.capacity(), full / 2);
        cycle(&mut heap, 10, 10);
        assert_eq!(heap.strings.capacity(), full / 4);
        // A cycle that fills it again keeps it; shrinking waits for a sparse one.
        cycle(&mut heap, full / 16 + 100, 11);
        assert_eq!(heap.strings.capacity(), full / 4);
    }

    #[test]
    fn small_pool_reuses_freed_cells_zeroed_and_per_class() {
        let mut pool = SmallPool::default();
        let a = pool.alloc(72, true);
        let b = pool.alloc(80, true);
        assert_eq!(b as usize - a as usize, 80, "72 and 80 share the 80-byte class, bump-allocated");
        unsafe { std::ptr::write_bytes(a, 0xAB, 72) };
        pool.free(a, 72);
        let c = pool.alloc(24, true);
        assert_ne!(c, a, "another class does not take the cell");
        let d = pool.alloc(65, true);
        assert_eq!(d, a, "the freed cell is reused for its class");
        assert!(unsafe { std::slice::from_raw_parts(d, 80) }.iter().all(|&x| x == 0));
        assert_eq!(a as usize % GRANULE, 0);
        // Chunks run out and new ones are taken.
        for _ in 0..(CHUNK_BYTES / SMALL_MAX + 10) {
            assert!(!pool.alloc(SMALL_MAX, true).is_null());
        }
        assert!(pool.chunks.len() >= 2);
    }
}
