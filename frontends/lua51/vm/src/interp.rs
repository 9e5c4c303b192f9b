//! The generated interpreter as the runtime sees it: its entry points, exits and dispatch
//! tables (symbols of the static library `build.rs` links), the interpreter status a `yield`
//! leaves with, and the switch that points dispatch at the debug-hook thunks.
//!
//! Every `__deegen_interp_*` symbol the runtime uses is declared here, once.

use std::sync::atomic::{AtomicUsize, Ordering};

use deegen_api::InterpContext;

use crate::bytecode::variants;

extern "C" {
    /// Runs the callee whose frame starts at `base` (arguments from `base`) until it returns
    /// to the exit continuation or an error or `yield` leaves.
    pub(crate) fn __deegen_interp_enter(ctx: *mut InterpContext, base: *mut u64, num_args: u64);
    /// Continues a coroutine suspended in `yield` at `base`, as if `yield` returned `count`
    /// values from `values`.
    pub(crate) fn __deegen_interp_resume(ctx: *mut InterpContext, base: *mut u64, values: *mut u64, count: u64);
    /// The return continuation of a frame entered from native code: leaves the interpreter.
    pub(crate) fn __deegen_interp_exit();
    /// Entry points of a code block: a bytecode function with fixed or variable arguments, and
    /// a native function.
    pub(crate) fn __deegen_interp_entry_bytecode();
    pub(crate) fn __deegen_interp_entry_bytecode_vararg();
    /// The entry points of a function the baseline JIT compiled: the same frame set-up, then
    /// its JIT code (`CodeBlock::jit_code`).
    pub(crate) fn __deegen_jit_entry_bytecode();
    pub(crate) fn __deegen_jit_entry_bytecode_vararg();
    pub(crate) fn __deegen_interp_entry_native();
    static mut __deegen_interp_dispatch_table: u64;
    static mut __deegen_interp_entry_dispatch_table: u64;
    static __deegen_interp_handler_table: u64;
    static __deegen_interp_continuation_table: u64;
    static __deegen_interp_continuation_index: u32;
    fn __deegen_interp_hook_thunk();
    fn __deegen_interp_hook_entry_thunk();
    /// The entries of the library functions written in the semantics (`lua51_specs::library`):
    /// a call of one is a call into generated code.
    pub(crate) fn __deegen_lib_pcall();
    pub(crate) fn __deegen_lib_xpcall();
    pub(crate) fn __deegen_lib_coroutine_resume();
    pub(crate) fn __deegen_lib_coroutine_yield();
    pub(crate) fn __deegen_lib_coroutine_wrapped();
    pub(crate) fn __deegen_lib_coroutine_status();
    pub(crate) fn __deegen_lib_coroutine_create();
    pub(crate) fn __deegen_lib_coroutine_running();
    pub(crate) fn __deegen_lib_type();
    pub(crate) fn __deegen_lib_select();
    pub(crate) fn __deegen_lib_rawget();
    pub(crate) fn __deegen_lib_rawequal();
    pub(crate) fn __deegen_lib_rawset();
    pub(crate) fn __deegen_lib_setmetatable();
    pub(crate) fn __deegen_lib_error();
    pub(crate) fn __deegen_lib_next();
    pub(crate) fn __deegen_lib_pairs();
    pub(crate) fn __deegen_lib_ipairs();
    pub(crate) fn __deegen_lib_unpack();
    pub(crate) fn __deegen_lib_assert();
    pub(crate) fn __deegen_lib_getmetatable();
    pub(crate) fn __deegen_lib_tostring();
    pub(crate) fn __deegen_lib_tonumber();
    pub(crate) fn __deegen_lib_string_len();
    pub(crate) fn __deegen_lib_string_byte();
    pub(crate) fn __deegen_lib_string_sub();
    pub(crate) fn __deegen_lib_math_floor();
    pub(crate) fn __deegen_lib_table_insert();
    pub(crate) fn __deegen_lib_math_ceil();
    pub(crate) fn __deegen_lib_math_sqrt();
    pub(crate) fn __deegen_lib_math_abs();
    pub(crate) fn __deegen_lib_math_max();
    pub(crate) fn __deegen_lib_math_min();
    /// The return continuations of a coroutine's function that a generated `resume` or a
    /// function made by `wrap` runs.
    fn __deegen_lib_coroutine_resume__ret__lua_lib_coroutine_resume_done();
    fn __deegen_lib_coroutine_wrapped__ret__lua_lib_coroutine_wrapped_done();
    /// The return continuation of the function a generated `xpcall` calls.
    fn __deegen_lib_xpcall__ret__lua_lib_xpcall_return();
    /// The return continuations of library functions that catch errors, each with the
    /// function's catch handler (`deegen_api::symbols::LIBRARY_CATCH_TABLE`).
    static __deegen_lib_catch_table: [*const (); 2];
    static __deegen_lib_catch_count: u32;
}

/// The catch handler of the library function that called the frame whose return continuation
/// is `continuation`, if that function catches errors (a generated `pcall`).
pub(crate) fn catch_handler(continuation: *const ()) -> Option<*const ()> {
    // SAFETY: the generated table has as many entries as its count says.
    unsafe {
        let table = std::ptr::addr_of!(__deegen_lib_catch_table);
        let n = std::ptr::addr_of!(__deegen_lib_catch_count).read() as usize;
        (0..n).map(|i| *table.add(i)).find(|entry| entry[0] == continuation).map(|entry| entry[1])
    }
}

/// The return continuation that ends a coroutine's frames when generated code runs it (a
/// `resume`, or a function made by `wrap`: `coroutine`): its bottom frame's caller is on the
/// resumer's stack.
pub(crate) fn coroutine_return_continuation(wrapped: bool) -> *const () {
    if wrapped {
        __deegen_lib_coroutine_wrapped__ret__lua_lib_coroutine_wrapped_done as *const ()
    } else {
        __deegen_lib_coroutine_resume__ret__lua_lib_coroutine_resume_done as *const ()
    }
}

/// Whether `continuation` ends a coroutine's frames (see [`coroutine_return_continuation`]):
/// a frame walk stops at a frame that returns there.
pub(crate) fn ends_coroutine(continuation: *const ()) -> bool {
    continuation == coroutine_return_continuation(false) || continuation == coroutine_return_continuation(true)
}

/// The return continuation of the function a generated `xpcall` calls: an error thrown below
/// a frame that returns there runs that `xpcall`'s message handler (`runtime`).
pub(crate) fn xpcall_continuation() -> *const () {
    __deegen_lib_xpcall__ret__lua_lib_xpcall_return as *const ()
}

/// The interpreter's handler for return continuation `index` (in name order) of the variant
/// `opcode`, if it has one.
pub(crate) fn interpreter_continuation(opcode: u16, index: usize) -> Option<*const ()> {
    let opcode = opcode as usize;
    if opcode >= variants().len() {
        return None;
    }
    // SAFETY: the index table has one entry per variant and one more; the continuation table
    // as many entries as the last index says.
    unsafe {
        let starts = std::ptr::addr_of!(__deegen_interp_continuation_index);
        let (first, end) = (*starts.add(opcode) as usize, *starts.add(opcode + 1) as usize);
        (first + index < end).then(|| *std::ptr::addr_of!(__deegen_interp_continuation_table).add(first + index) as *const ())
    }
}

/// Interpreter status of a coroutine that left through `yield`.
pub const STATUS_YIELD: u64 = 2;

/// States with at least one hooked thread, across the process: the dispatch tables are shared
/// by every state, so the thunks stay installed while any of them has a hook (a state without
/// one answers the thunk at once).
static HOOKED_STATES: AtomicUsize = AtomicUsize::new(0);

/// The code blocks of library functions written in the semantics, with their generated
/// entries (as addresses): while debug hooks are on, they are entered through their native
/// twins instead, which report the hooks' call and return events.
static LIBRARY_BLOCKS: std::sync::Mutex<Vec<(usize, usize)>> = std::sync::Mutex::new(Vec::new());

/// Gives `cb`, the code block of a library function's native twin, the generated `entry`
/// (or, while any state has hooks, the native entry), and keeps it switched with the hooks.
pub(crate) fn register_library_block(cb: *mut deegen_api::CodeBlock, entry: *const ()) {
    let mut blocks = LIBRARY_BLOCKS.lock().unwrap_or_else(|e| e.into_inner());
    let hooked = HOOKED_STATES.load(Ordering::SeqCst) > 0;
    // SAFETY: the block is new and not yet reachable from any function value.
    unsafe { (*cb).entry = if hooked { __deegen_interp_entry_native as *const () } else { entry } };
    blocks.push((cb as usize, entry as usize));
}

/// Points the library functions' code blocks at their native twins (`on`) or back.
fn set_library_entries(on: bool) {
    let blocks = LIBRARY_BLOCKS.lock().unwrap_or_else(|e| e.into_inner());
    for &(cb, entry) in blocks.iter() {
        let value = if on { __deegen_interp_entry_native as *const () as usize } else { entry };
        // SAFETY: registered blocks live as long as the process; the entry is one aligned word,
        // so a call in another thread reads either entry, and both run the function.
        unsafe {
            let field = std::ptr::addr_of_mut!((*(cb as *mut deegen_api::CodeBlock)).entry);
            (*(field as *const AtomicUsize)).store(value, Ordering::Relaxed);
        }
    }
}

/// Points every dispatch table entry at the hook thunks (`on`) or back at the handlers.
fn set_dispatch(on: bool) {
    set_library_entries(on);
    let n = variants().len();
    // SAFETY: the generated tables have one entry per variant; entries are written one aligned
    // word at a time, so an interpreter running in another thread reads either the handler or
    // the thunk, which both run the instruction.
    unsafe {
        let handlers = std::ptr::addr_of!(__deegen_interp_handler_table);
        let tables = [
            (std::ptr::addr_of_mut!(__deegen_interp_dispatch_table), __deegen_interp_hook_thunk as *const () as u64),
            (std::ptr::addr_of_mut!(__deegen_interp_entry_dispatch_table), __deegen_interp_hook_entry_thunk as *const () as u64),
        ];
        for (table, thunk) in tables {
            for i in 0..n {
                let value = if on { thunk } else { *handlers.add(i) };
                (*(table.add(i) as *const AtomicUsize)).store(value as usize, Ordering::Relaxed);
            }
        }
    }
}

/// A state got its first hooked thread.
pub(crate) fn state_hooked() {
    if HOOKED_STATES.fetch_add(1, Ordering::SeqCst) == 0 {
        tracing::debug!("debug hooks on: dispatch through the hook thunks");
        set_dispatch(true);
    }
}

/// A state that had hooked threads has none now (or is dropped with some).
pub(crate) fn state_unhooked() {
    if HOOKED_STATES.fetch_sub(1, Ordering::SeqCst) == 1 {
        tracing::debug!("debug hooks off: dispatch straight to the handlers");
        set_dispatch(false);
    }
}
