//! Coroutines: a coroutine is a thread object with its own stack and interpreter context.
//!
//! Lua calls never grow the native stack (they are tail calls between handlers), so a coroutine
//! needs no native stack of its own: `yield` leaves the coroutine's interpreter entry with a
//! yield status, and `resume` continues the suspended `yield` call through the generated
//! `__deegen_interp_resume` thunk, as if `yield` had returned the resume's arguments. Yielding
//! across a nested native entry (`pcall`, a metamethod called by the library) is refused with
//! Lua 5.1's message.

use deegen_api::{InterpContext, FRAME_HEADER_SLOTS, STATUS_ERROR, STATUS_OK};
use lua51_value::{GcHeader, LuaContext, ObjKind, TValue};

use crate::heap::{Heap, OutOfMemory};
use crate::state::LuaState;

extern "C" {
    fn __deegen_interp_enter(ctx: *mut InterpContext, base: *mut u64, num_args: u64);
    fn __deegen_interp_resume(ctx: *mut InterpContext, base: *mut u64, values: *mut u64, count: u64);
    fn __deegen_interp_exit();
}

/// Interpreter status of a coroutine that left through `yield`.
pub const STATUS_YIELD: u64 = 2;

/// Stack slots of a coroutine (zeroed lazily by the allocator, so unused slots cost no memory).
pub const THREAD_STACK_SLOTS: usize = 1 << 20;
/// What a coroutine's stack counts toward the collector's debt (added on creation, removed
/// when it is freed): its pages are only touched as deep as it runs, so not all 8 MiB.
pub const THREAD_STACK_ACCOUNTED: usize = 16 << 10;

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

impl StackMemory {
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
        unsafe { munmap(self.map, self.map_len) };
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CoStatus {
    /// Created, or stopped in `yield`.
    Suspended,
    Running,
    /// Resumed another coroutine.
    Normal,
    Dead,
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
    started: bool,
    /// The suspended `yield` call's frame and argument count.
    yield_base: *mut u64,
    yield_count: usize,
    /// The live top while not running (a collection root boundary).
    pub(crate) saved_top: *mut u64,
    /// The nested-entry depth its interpreter runs at: `yield` must be called at that depth.
    entry_depth: usize,
    /// Its debug hook (a new coroutine has none, as in 5.1).
    pub(crate) hook: crate::hook::Hook,
    /// Dead by an error: the frame that threw (null otherwise).
    error_frame: *mut u64,
}

impl Thread {
    /// `shared` is the state's [`lua51_value::SharedState`], which every context points at.
    /// `env` is the creating thread's globals.
    pub fn new_in(heap: &mut Heap, st_ptr: *mut LuaState, shared: *const lua51_value::SharedState, func: TValue, env: TValue) -> Result<TValue, OutOfMemory> {
        // The stack first: a failure must not leave a half-made object in the heap.
        let mut stack = StackMemory::new(THREAD_STACK_SLOTS).ok_or(OutOfMemory)?;
        let p = heap.alloc(std::mem::size_of::<Thread>(), ObjKind::Thread)? as *mut Thread;
        let bottom = stack.as_mut_ptr();
        unsafe {
            std::ptr::addr_of_mut!((*p).ctx).write(crate::state::new_context(stack.as_mut_slice(), st_ptr, shared));
            std::ptr::addr_of_mut!((*p).stack).write(stack);
            std::ptr::addr_of_mut!((*p).status).write(CoStatus::Suspended);
            std::ptr::addr_of_mut!((*p).func).write(func);
            std::ptr::addr_of_mut!((*p).env).write(env);
            std::ptr::addr_of_mut!((*p).started).write(false);
            std::ptr::addr_of_mut!((*p).yield_base).write(std::ptr::null_mut());
            std::ptr::addr_of_mut!((*p).yield_count).write(0);
            std::ptr::addr_of_mut!((*p).saved_top).write(bottom);
            std::ptr::addr_of_mut!((*p).entry_depth).write(0);
            std::ptr::addr_of_mut!((*p).hook).write(crate::hook::Hook::default());
            std::ptr::addr_of_mut!((*p).error_frame).write(std::ptr::null_mut());
        }
        heap.bytes_allocated += THREAD_STACK_ACCOUNTED;
        heap.threads.push(p);
        Ok(TValue::from_ptr(p))
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

/// How a resume ended.
pub enum ResumeOutcome {
    /// Yielded or returned these values.
    Values(Vec<TValue>),
    Error(TValue),
}

/// Resumes `co` with `args`; `top` is the resumer's live top.
///
/// The coroutine and the state change inside the interpreter call (`yield` writes them), so
/// both are only reached through raw pointers here, never through references held across that
/// call (see `LuaState::call_at`).
///
/// # Safety
/// `st` is a live state and `co_value` one of its coroutines.
pub unsafe fn resume(st: *mut LuaState, co_value: TValue, args: &[TValue], top: *mut u64) -> Result<ResumeOutcome, &'static str> {
    let co: *mut Thread = co_value.as_ptr();
    unsafe {
        match (*co).status {
            CoStatus::Dead => return Err("cannot resume dead coroutine"),
            CoStatus::Running => return Err("cannot resume running coroutine"),
            CoStatus::Normal => return Err("cannot resume normal coroutine"),
            CoStatus::Suspended => {}
        }
        // Every resume nests an interpreter entry, like 5.1's nCcalls (whose check in
        // `lua_resume`, unlike `luaD_call`'s, comes before the increment).
        if (*st).native_depth >= crate::state::MAX_NATIVE_DEPTH {
            return Err("C stack overflow");
        }
        // Park the resumer.
        let prev_ctx = (*st).current;
        let prev_thread = (*st).current_thread;
        if prev_thread.is_nil() {
            (*st).main_saved_top = top;
        } else {
            let t: *mut Thread = prev_thread.as_ptr();
            (*t).saved_top = top;
            (*t).status = CoStatus::Normal;
        }
        let ctx: *mut LuaContext = std::ptr::addr_of_mut!((*co).ctx);
        (*st).resumer_globals.push((*st).globals);
        (*st).globals = (*co).env;
        (*st).current = ctx;
        (*st).current_thread = co_value;
        (*co).status = CoStatus::Running;
        (*co).entry_depth = (*st).native_depth + 1;
        (*st).native_depth += 1;
        (*ctx).interp.status = STATUS_OK;
        // `resume` catches the coroutine's errors: an enclosing `xpcall`'s handler does not see them.
        (*st).protected.push(crate::state::Protected { handler: TValue::NIL, state: crate::state::HandlerState::Done });
        if !(*co).started {
            (*co).started = true;
            let frame = (*co).stack.as_mut_ptr();
            let base = frame.add(FRAME_HEADER_SLOTS);
            *frame = (*co).func.raw();
            *base.offset(deegen_api::frame::CALLER_BASE as isize) = 0;
            *base.offset(deegen_api::frame::RETURN_CONTINUATION as isize) = __deegen_interp_exit as *const () as u64;
            *base.offset(deegen_api::frame::CALLER_PC as isize) = 0;
            for (i, a) in args.iter().enumerate() {
                *base.add(i) = a.raw();
            }
            __deegen_interp_enter(std::ptr::addr_of_mut!((*ctx).interp), base, args.len() as u64);
        } else {
            let base = (*co).yield_base;
            for (i, a) in args.iter().enumerate() {
                *base.add(i) = a.raw();
            }
            __deegen_interp_resume(std::ptr::addr_of_mut!((*ctx).interp), base, base, args.len() as u64);
        }
        (*st).protected.pop();
        (*st).native_depth -= 1;
        (*co).env = (*st).globals;
        (*st).globals = (*st).resumer_globals.pop().expect("pushed above");
        (*st).current = prev_ctx;
        (*st).current_thread = prev_thread;
        if !prev_thread.is_nil() {
            (*prev_thread.as_ptr::<Thread>()).status = CoStatus::Running;
        }
        let outcome = match std::ptr::read_volatile(std::ptr::addr_of!((*ctx).interp.status)) {
            STATUS_YIELD => {
                (*co).status = CoStatus::Suspended;
                let (yb, n) = ((*co).yield_base, (*co).yield_count);
                ResumeOutcome::Values(values_from(st, yb, n))
            }
            STATUS_ERROR => {
                (*co).status = CoStatus::Dead;
                ResumeOutcome::Error(TValue((*ctx).interp.error))
            }
            _ => {
                (*co).status = CoStatus::Dead;
                let p = (*ctx).interp.ret_ptr;
                ResumeOutcome::Values(values_from(st, p, (*ctx).interp.ret_count as usize))
            }
        };
        if (*co).status == CoStatus::Dead {
            // An error leaves upvalues open; close them while the stack still holds their
            // values, as the stack is no longer scanned (5.1 keeps them open until it frees the
            // coroutine, which shows the same values).
            (*co).saved_top = (*co).stack.as_mut_ptr();
            crate::runtime::lua_rt_close_upvalues(ctx, (*co).saved_top);
            // A coroutine killed by an error keeps the frames it died in, for tracebacks and
            // `debug.getinfo` (5.1 keeps the dead thread's stack): live up to the frame that
            // threw.
            if std::ptr::read_volatile(std::ptr::addr_of!((*ctx).interp.status)) == STATUS_ERROR && !(*ctx).interp.error_base.is_null() {
                (*co).error_frame = (*ctx).interp.error_base;
                (*co).saved_top = (*co).error_frame;
            }
        }
        Ok(outcome)
    }
}

/// `n` values from `p`, in the state's reusable buffer (see `LuaState::resume_values`).
unsafe fn values_from(st: *mut LuaState, p: *const u64, n: usize) -> Vec<TValue> {
    let mut v = std::mem::take(unsafe { &mut (*st).resume_values });
    v.clear();
    v.extend((0..n).map(|i| TValue(unsafe { *p.add(i) })));
    v
}

/// Suspends the running coroutine from the `yield` native frame at `base` with `count` values.
pub(crate) fn yield_from(st: &mut LuaState, base: *mut u64, count: usize) -> Result<(), &'static str> {
    // Raw accesses: `resume`, further down the native stack, reads these fields after the
    // interpreter returns.
    // Lua 5.1 says this for the main coroutine too (which always runs inside a C call).
    const BOUNDARY: &str = "attempt to yield across metamethod/C-call boundary";
    if st.current_thread.is_nil() {
        return Err(BOUNDARY);
    }
    let co: *mut Thread = st.current_thread.as_ptr();
    unsafe {
        // A native frame (`pcall`, `table.sort`'s comparator, `load`'s reader) or a Lua function
        // the runtime called (a metamethod, a `for` iterator) lies between the yield and the
        // resume.
        if st.native_depth != (*co).entry_depth || (*co).ctx.c_calls != 0 {
            return Err(BOUNDARY);
        }
        (*co).yield_base = base;
        (*co).yield_count = count;
        (*co).saved_top = base.add(count);
        (*co).ctx.interp.status = STATUS_YIELD;
    }
    Ok(())
}

/// The status names `coroutine.status` returns, in [`status_index`] order.
pub const STATUS_NAMES: [&str; 4] = ["suspended", "running", "normal", "dead"];

/// The position of `co`'s status in [`STATUS_NAMES`].
pub fn status_index(co: &Thread) -> usize {
    match co.status {
        CoStatus::Suspended => 0,
        CoStatus::Running => 1,
        CoStatus::Normal => 2,
        CoStatus::Dead => 3,
    }
}

