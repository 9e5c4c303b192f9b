//! Threads (coroutines) as objects: a thread's stack, its interpreter context, its status and
//! debug hook (what 5.1's `lua_State` holds per thread). Running them (resume, yield) is
//! `coroutine`'s; the main thread's stack and context are the state's.

use deegen_api::{InterpContext, STATUS_OK};
use lua51_value::{GcHeader, LuaContext, ObjKind, SharedState, TValue};

use crate::object::heap::{Heap, OutOfMemory};

/// Stack slots of a coroutine (zeroed lazily by the allocator, so unused slots cost no memory).
pub const THREAD_STACK_SLOTS: usize = 1 << 20;
/// What a coroutine's stack counts toward the collector's debt (added on creation, removed
/// when it is freed): its pages are only touched as deep as it runs, so not all 8 MiB.
pub const THREAD_STACK_ACCOUNTED: usize = 16 << 10;

/// Slots kept free above the limit for native functions' results.
pub(crate) const STACK_RESERVE: usize = 256;

/// Zeroes the stack slots `from..high_water` (written, or possibly written), then those of the
/// [`STACK_RESERVE`] above the high-water mark that are not zero. Every writer above its frame
/// claims its slots, so nothing above the mark should hold a value; the margin is cleared
/// anyway, as a defence, but only where a slot is set: writing zeroes there touched fresh
/// pages of every new coroutine's stack (a page fault each, with the page cleared by the
/// kernel: a third of the faults of a ring of 500 coroutines), and reading a never-written
/// page maps the shared zero page instead.
///
/// # Safety
/// `from..min(high_water + STACK_RESERVE, end)` must lie in one stack's mapping.
pub(crate) unsafe fn clear_stack_above(from: *mut u64, high_water: *mut u64, end: *mut u64) {
    let high = high_water.max(from).min(end);
    let mut slot = from;
    while slot < high {
        unsafe { *slot = 0 };
        slot = unsafe { slot.add(1) };
    }
    let stop = end.min(high.wrapping_add(STACK_RESERVE));
    while slot < stop {
        if unsafe { *slot } != 0 {
            unsafe { *slot = 0 };
        }
        slot = unsafe { slot.add(1) };
    }
}
/// Slots below the reserve kept free for `xpcall` message handlers: the limit rises by this
/// much while one runs, so a handler still works after a stack overflow (5.1 grows its stack
/// for the same reason).
pub(crate) const HANDLER_RESERVE: usize = 8192;

/// A coroutine's value stack: anonymous memory mapped on creation and unmapped when the
/// coroutine is freed. Pages are zero and only become resident when used, so a program can
/// hold many suspended coroutines (a heap allocation this size is memset by the allocator
/// once it stops using mmap for it).
///
/// Each stack starts at its own offset (its *color*) into its mapping: mappings are page- and
/// usually size-aligned, so without it the first slots of every coroutine's stack (where a
/// resume stores its arguments) fall in the same cache set, and a ring of hundreds of
/// coroutines missed in L1 and L2 on every switch.
#[derive(Debug)]
pub(crate) struct StackMemory {
    ptr: *mut u64,
    len: usize,
    map: *mut std::ffi::c_void,
    map_len: usize,
}

/// Distinct stack colors, one cache line apart (64 KiB of address space at most).
const STACK_COLORS: usize = 1024;

extern "C" {
    fn mmap(addr: *mut std::ffi::c_void, len: usize, prot: i32, flags: i32, fd: i32, offset: i64) -> *mut std::ffi::c_void;
    fn munmap(addr: *mut std::ffi::c_void, len: usize) -> i32;
}

/// Stacks of freed coroutines kept for the next ones (their written slots zeroed again): a
/// program that makes and drops coroutines (a generator per loop) paid a map, an unmap and a
/// page fault per coroutine, 36 times `lua5.1`'s time for 200,000 short-lived `wrap`s on a
/// machine whose page faults are slow. The collector frees a cycle's dead coroutines
/// together (a few hundred there), so the pool keeps as many as [`POOLED_SLOTS`] of written
/// slots allow (16 MiB resident at most); a deep coroutine's stack, or one past the bound,
/// goes back to the system.
struct StackPool {
    /// Each with the slots it had written.
    stacks: Vec<(StackMemory, usize)>,
    /// Slots the pooled stacks had written (now zero, and resident).
    slots: usize,
}

static STACK_POOL: std::sync::Mutex<StackPool> = std::sync::Mutex::new(StackPool { stacks: Vec::new(), slots: 0 });
const POOLED_SLOTS: usize = 2 << 20;
const POOLED_STACK_SLOTS: usize = 16 << 10;

impl StackMemory {
    /// A stack of `THREAD_STACK_SLOTS` zero slots: a pooled one, or a new mapping.
    fn take() -> Option<StackMemory> {
        if let Ok(mut pool) = STACK_POOL.lock() {
            if let Some((stack, used)) = pool.stacks.pop() {
                pool.slots -= used;
                return Some(stack);
            }
        }
        Self::new(THREAD_STACK_SLOTS)
    }

    /// Gives a coroutine's stack back, every slot written below `high_water` (the stack's
    /// high-water mark: nothing above was written) zeroed again, and the reserve above it
    /// cleared ([`clear_stack_above`]), so a coroutine that takes it finds it as a new mapping
    /// would be; a stack used deeper than the pool keeps, or past its bound, is unmapped.
    fn give_back(mut self, high_water: *mut u64) {
        let used = ((high_water as usize).saturating_sub(self.ptr as usize) / 8 + STACK_RESERVE).min(self.len);
        if self.len != THREAD_STACK_SLOTS || used > POOLED_STACK_SLOTS {
            return;
        }
        let Ok(mut pool) = STACK_POOL.lock() else { return };
        // The collector's sweep gives stacks back, and must not fail to allocate: without room
        // in the pool's list, the stack is unmapped.
        if pool.slots + used <= POOLED_SLOTS && pool.stacks.try_reserve(1).is_ok() {
            // SAFETY: `used` slots from `ptr` lie within the stack.
            unsafe { clear_stack_above(self.ptr, high_water, self.ptr.add(used)) };
            pool.slots += used;
            pool.stacks.push((std::mem::replace(&mut self, StackMemory::NONE), used));
        }
    }

    /// No mapping (what a stack given to the pool leaves behind).
    const NONE: StackMemory = StackMemory { ptr: std::ptr::null_mut(), len: 0, map: std::ptr::null_mut(), map_len: 0 };

    fn new(slots: usize) -> Option<StackMemory> {
        const PROT_READ: i32 = 1;
        const PROT_WRITE: i32 = 2;
        const MAP_PRIVATE: i32 = 2;
        const MAP_ANONYMOUS: i32 = 0x20;
        const MAP_NORESERVE: i32 = 0x4000;
        static NEXT_COLOR: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let color = NEXT_COLOR.fetch_add(1, std::sync::atomic::Ordering::Relaxed) % STACK_COLORS;
        let map_len = (slots + STACK_COLORS * 8) * 8;
        let p = unsafe { mmap(std::ptr::null_mut(), map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0) };
        // MAP_FAILED is (void*)-1.
        (p as isize != -1 && !p.is_null()).then(|| StackMemory {
            // SAFETY: color * 8 slots is within the extra room mapped.
            ptr: unsafe { (p as *mut u64).add(color * 8) },
            len: slots,
            map: p,
            map_len,
        })
    }

    pub(crate) fn as_mut_ptr(&mut self) -> *mut u64 {
        self.ptr
    }

    fn as_mut_slice(&mut self) -> &mut [u64] {
        // SAFETY: `len` zero-initialised slots mapped for this object.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
}

impl Drop for StackMemory {
    fn drop(&mut self) {
        if !self.map.is_null() {
            unsafe { munmap(self.map, self.map_len) };
        }
    }
}

// SAFETY: a stack is plain memory its owner alone uses; the pool hands each to one thread.
unsafe impl Send for StackMemory {}

/// A coroutine's status: a byte that indexes [`STATUS_NAMES`] (generated `coroutine.status`
/// reads it at `lua51_value::THREAD_STATUS_OFFSET`).
#[repr(u8)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CoStatus {
    /// Created, or stopped in `yield`.
    Suspended = 0,
    Running = 1,
    /// Resumed another coroutine.
    Normal = 2,
    Dead = 3,
}

/// A coroutine.
#[repr(C)]
#[derive(Debug)]
pub struct Thread {
    pub header: GcHeader,
    pub ctx: LuaContext,
    pub(crate) stack: StackMemory,
    pub status: CoStatus,
    pub(crate) func: TValue,
    /// The coroutine's globals (5.1's per-thread `gt(L)`: inherited from the thread that made
    /// it, changed by `setfenv(0, t)` inside it or `debug.setfenv`). While it runs, the state's
    /// `globals` holds them and this is stale.
    pub(crate) env: TValue,
    pub(crate) started: bool,
    /// The suspended `yield` call's frame and argument count.
    pub(crate) yield_base: *mut u64,
    pub(crate) yield_count: usize,
    /// The live top while not running (a collection root boundary).
    pub(crate) saved_top: *mut u64,
    /// The nested-entry depth its interpreter runs at: `yield` must be called at that depth.
    pub(crate) entry_depth: usize,
    /// Its debug hook (a new coroutine has none, as in 5.1).
    pub(crate) hook: Hook,
    /// Dead by an error: the frame that threw (null otherwise).
    pub(crate) error_frame: *mut u64,
    /// While it runs: the thread that resumed it (nil for the main thread) and that thread's
    /// context, to switch back to.
    pub(crate) resumer: TValue,
    pub(crate) resumer_ctx: *mut LuaContext,
    /// While it runs: the resumer's globals (the state's `globals` is always the running
    /// thread's, 5.1's `gt(L)`, so `setfenv(0, t)` in a coroutine changes that coroutine's only).
    pub(crate) resumer_globals: TValue,
    /// While it runs: whether generated code resumed it (`lua_lib_coroutine_resume`), so a
    /// `yield` switches back in place; otherwise a native `resume` waits for the interpreter
    /// to leave.
    pub(crate) resumed_in_place: bool,
}

impl Drop for Thread {
    /// The stack goes back to the pool (the collector frees the thread).
    fn drop(&mut self) {
        let stack = std::mem::replace(&mut self.stack, StackMemory::NONE);
        stack.give_back(self.ctx.interp.stack_high_water);
    }
}

// Generated code finds a coroutine's context in its thread object at this offset.
const _: () = assert!(std::mem::offset_of!(Thread, ctx) == lua51_value::THREAD_CONTEXT_OFFSET);
// ... and its status here.
const _: () = assert!(std::mem::offset_of!(Thread, status) == lua51_value::THREAD_STATUS_OFFSET);

impl Thread {
    /// `runtime` and `shared` are what every context of the state points at (the state, and its
    /// [`SharedState`]). `env` is the creating thread's globals. The state records the new
    /// thread (`coroutine::new_thread`).
    pub fn new_in(heap: &mut Heap, runtime: *mut (), shared: *const SharedState, func: TValue, env: TValue) -> Result<TValue, OutOfMemory> {
        // The stack first: a failure must not leave a half-made object in the heap.
        let mut stack = StackMemory::take().ok_or(OutOfMemory)?;
        let p = heap.alloc(std::mem::size_of::<Thread>(), ObjKind::Thread)? as *mut Thread;
        let bottom = stack.as_mut_ptr();
        unsafe {
            std::ptr::addr_of_mut!((*p).ctx).write(new_context(stack.as_mut_slice(), runtime, shared));
            std::ptr::addr_of_mut!((*p).stack).write(stack);
            std::ptr::addr_of_mut!((*p).status).write(CoStatus::Suspended);
            std::ptr::addr_of_mut!((*p).func).write(func);
            std::ptr::addr_of_mut!((*p).env).write(env);
            std::ptr::addr_of_mut!((*p).started).write(false);
            std::ptr::addr_of_mut!((*p).yield_base).write(std::ptr::null_mut());
            std::ptr::addr_of_mut!((*p).yield_count).write(0);
            std::ptr::addr_of_mut!((*p).saved_top).write(bottom);
            std::ptr::addr_of_mut!((*p).entry_depth).write(0);
            std::ptr::addr_of_mut!((*p).hook).write(Hook::default());
            std::ptr::addr_of_mut!((*p).error_frame).write(std::ptr::null_mut());
            std::ptr::addr_of_mut!((*p).resumer).write(TValue::NIL);
            std::ptr::addr_of_mut!((*p).resumer_ctx).write(std::ptr::null_mut());
            std::ptr::addr_of_mut!((*p).resumer_globals).write(TValue::NIL);
            std::ptr::addr_of_mut!((*p).resumed_in_place).write(false);
        }
        heap.bytes_allocated += THREAD_STACK_ACCOUNTED;
        Ok(TValue::from_object(p.cast()))
    }

    /// The innermost frame of a coroutine that is not running: the `yield` a suspended one
    /// waits in, or the frame that threw the error a dead one died of (null otherwise: not
    /// started, running, or returned).
    pub(crate) fn suspended_frame(&self) -> *mut u64 {
        match self.status {
            CoStatus::Suspended if self.started => self.yield_base,
            CoStatus::Dead => self.error_frame,
            _ => std::ptr::null_mut(),
        }
    }

    pub(crate) fn stack_bounds(&mut self) -> (*mut u64, *mut u64) {
        let p = self.stack.as_mut_ptr();
        (p, unsafe { p.add(THREAD_STACK_SLOTS) })
    }
}

pub fn thread_mut<'a>(v: TValue) -> &'a mut Thread {
    debug_assert!(v.is_kind(ObjKind::Thread));
    unsafe { &mut *v.as_ptr::<Thread>() }
}

/// The status names `coroutine.status` returns, in [`status_index`] order.
pub const STATUS_NAMES: [&str; 4] = ["suspended", "running", "normal", "dead"];

/// The position of `co`'s status in [`STATUS_NAMES`].
pub fn status_index(co: &Thread) -> usize {
    co.status as usize
}

/// One thread's hook (5.1 keeps these in the `lua_State`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Hook {
    /// What `gethook` returns: the function given to `sethook`, kept even when the mask is empty.
    pub(crate) func: TValue,
    pub(crate) mask: u8,
    /// `sethook`'s count, and the instructions left before the next count event.
    pub(crate) base_count: u32,
    pub(crate) countdown: u32,
    /// The hook is running in this thread: no events until it returns (5.1's `allowhook`).
    pub(crate) running: bool,
    /// The last instruction traced in this thread: its frame and address.
    pub(crate) last_base: *mut u64,
    pub(crate) last_pc: *const u8,
}

impl Default for Hook {
    fn default() -> Self {
        Hook { func: TValue::NIL, mask: 0, base_count: 0, countdown: 0, running: false, last_base: std::ptr::null_mut(), last_pc: std::ptr::null() }
    }
}

/// A fresh interpreter context for a coroutine running on `stack`.
pub(crate) fn new_context(stack: &mut [u64], runtime: *mut (), shared: *const SharedState) -> LuaContext {
    let bottom = stack.as_mut_ptr();
    LuaContext {
        interp: InterpContext {
            stack_limit: unsafe { bottom.add(stack.len() - STACK_RESERVE - HANDLER_RESERVE) },
            ret_ptr: std::ptr::null_mut(),
            ret_count: 0,
            error: 0,
            error_base: std::ptr::null_mut(),
            error_pc: std::ptr::null(),
            status: STATUS_OK,
            stack_high_water: bottom,
            slow_path_spill: [0; deegen_api::SLOW_PATH_SPILL_SLOTS],
            catch_entry: std::ptr::null(),
            catch_base: std::ptr::null_mut(),
        },
        open_upvalues: std::ptr::null_mut(),
        var_results: 0,
        c_calls: 0,
        runtime,
        shared,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stack given back is zero where it was written when the next coroutine takes it; one
    /// written deeper than the pool keeps is not kept. (The pool is the process's: other tests
    /// may take and give stacks meanwhile, so this checks what every taken stack must be.)
    #[test]
    fn pooled_stacks_come_back_zeroed() {
        let written = 3000;
        let mut stacks = Vec::new();
        for round in 0..4u64 {
            let mut s = StackMemory::take().expect("a stack");
            let slots = s.as_mut_slice();
            assert!(slots[..2 * written].iter().all(|&v| v == 0), "a taken stack is zero (round {round})");
            slots[..written].fill(round + 1);
            stacks.push(s);
        }
        for s in stacks.drain(..) {
            let end = unsafe { s.ptr.add(written) };
            s.give_back(end);
        }
        for _ in 0..4 {
            let mut s = StackMemory::take().expect("a stack");
            assert!(s.as_mut_slice()[..2 * written].iter().all(|&v| v == 0), "a reused stack is zero");
            stacks.push(s);
        }
        let before = STACK_POOL.lock().unwrap().slots;
        let deep = stacks.pop().unwrap();
        let end = unsafe { deep.ptr.add(POOLED_STACK_SLOTS + 1) };
        deep.give_back(end);
        assert!(STACK_POOL.lock().unwrap().slots <= before + POOLED_STACK_SLOTS, "a deep stack is unmapped, not pooled");
    }
}
