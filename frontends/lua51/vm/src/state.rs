//! One Lua state (5.1's `lstate`, and `ldebug`'s positions and tracebacks): the interpreter
//! context (first, so the generated code and the runtime share one pointer), the VM stack, the
//! heap, the globals and the registry; and error positions and tracebacks.
//!
//! [`LuaState::new`] makes a bare state: no library is open (`stdlib::open_libs` opens them).
//! Modules above add the methods that need them: calls from native code (`LuaState::call`,
//! `call_at`, `call_from`, in `call`), closing the state (`LuaState::close`, in `gc`) and
//! loading chunks (`LuaState::load`, in `loader`).

use std::io::Write;

use deegen_api::{frame, FRAME_HEADER_SLOTS};
use lua51_value::{LuaContext, SharedState, TValue, TYPE_NAMES};

use crate::frames::{Frame, Level};
use crate::object::function::{is_native, proto_of, Proto, VarInfo};
use crate::object::heap::{Heap, OutOfMemory};
use crate::object::table::{table_mut, Table};
use crate::object::thread::{new_context, Hook, Thread, STATUS_NAMES};

/// Stack slots of one coroutine. Frames never move, so the interpreter may hold raw pointers.
pub const STACK_SLOTS: usize = 1 << 20;
/// Lua 5.1's `LUAI_MAXCCALLS`: nested native/interpreter entries (calls from native code and
/// coroutine resumes), which together with the runtime's calls of metamethods and iterators
/// (`LuaContext::c_calls`) make 5.1's `nCcalls`.
/// As in 5.1 (`++nCcalls >= LUAI_MAXCCALLS`), the entry that would reach the limit fails.
pub(crate) const MAX_NATIVE_DEPTH: usize = lua51_value::MAX_C_CALLS as usize;
/// The extra nesting an `xpcall` message handler runs with (5.1's `LUAI_MAXCCALLS >> 3`), so
/// that a "C stack overflow" still reaches it (`LuaState::depth_allowance`).
pub(crate) const HANDLER_EXTRA_DEPTH: usize = MAX_NATIVE_DEPTH / 8;
/// An error value that escaped to native code.
#[derive(Debug, Clone, Copy)]
pub struct LuaError {
    pub value: TValue,
}

/// A type error waiting for the throw hook, which knows the instruction and so the name of the
/// operand (`attempt to call global 'f' (a nil value)`).
#[derive(Debug, Clone)]
pub(crate) enum PendingError {
    Type { verb: &'static str, operand: u8, value: TValue },
    OutOfMemory,
}

/// What `ljr --stats` reports.
#[derive(Debug, Default, Clone)]
pub struct Stats {
    /// Functions that ran out of their hotness countdown (each would tier up).
    pub tier_up_requests: u64,
    pub collections: u64,
}

/// Metamethod events, indexing [`LuaState::event_names`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    Index,
    NewIndex,
    Call,
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Pow,
    Unm,
    Concat,
    Eq,
    Lt,
    Le,
    Len,
    Gc,
    Mode,
    ToString,
    Metatable,
}

const EVENT_NAMES: [&str; 19] = [
    "__index",
    "__newindex",
    "__call",
    "__add",
    "__sub",
    "__mul",
    "__div",
    "__mod",
    "__pow",
    "__unm",
    "__concat",
    "__eq",
    "__lt",
    "__le",
    "__len",
    "__gc",
    "__mode",
    "__tostring",
    "__metatable",
];

/// One protected call in progress (`pcall`, `xpcall`, a coroutine `resume`), innermost last:
/// an error consults only the innermost, so a `pcall` or a coroutine hides an outer `xpcall`'s
/// handler as in 5.1.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Protected {
    /// The `xpcall` message handler, or nil.
    pub handler: TValue,
    pub state: HandlerState,
    /// The frame of the native function that protects (its callees' frames name it as their
    /// caller): a generated `pcall` found between a throw and this frame is the innermost
    /// protection instead (`runtime::innermost_protection`). Null for a coroutine's resume.
    pub base: *mut u64,
}

/// Where an `xpcall` handler stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HandlerState {
    /// Not called yet.
    Armed,
    /// Running: an error it does not catch becomes "error in error handling".
    Running,
    /// Called; the error now carries its result.
    Done,
}

/// A Lua state. Always boxed: the generated code holds a pointer to its context.
#[repr(C)]
pub struct LuaState {
    /// The main coroutine's context (first: its address is the state's).
    pub main: LuaContext,
    /// The running coroutine's context: `main`, or a coroutine's.
    pub current: *mut LuaContext,
    /// The main coroutine's live top while a coroutine runs (a collection root boundary).
    pub main_saved_top: *mut u64,
    stack: Box<[u64]>,
    pub heap: Heap,
    /// Every coroutine, so a collection can close the open upvalues of those it frees.
    pub(crate) threads: Vec<*mut Thread>,
    pub globals: TValue,
    /// The metatable shared by all strings (`("x"):upper()`), or null.
    /// `"__index"` and the string metatable, read by the handlers through every context.
    pub shared: Box<SharedState>,
    /// Metatable of file handles, and the default input and output files of `io` (set when the
    /// library is opened).
    pub file_metatable: *mut Table,
    pub default_input: TValue,
    pub default_output: TValue,
    /// The `package` table (`require` reads `loaded`, `preload` and `path` from it).
    pub package: TValue,
    /// `next` and the `ipairs` iterator, returned by `pairs` and `ipairs` (set by the base
    /// library).
    pub next_fn: TValue,
    /// Packs varargs into the table of LUA_COMPAT_VARARG's `arg` (a constant of such functions;
    /// made by `runtime::vararg_packer` when the first one is compiled or loaded).
    pub pack_fn: TValue,
    pub ipairs_aux_fn: TValue,
    /// Interned metamethod names, by [`Event`].
    pub event_names: [TValue; EVENT_NAMES.len()],
    pub(crate) pending: Option<PendingError>,
    /// The frame of a call whose entry found no room on the stack (`lua_rt_frame_overflow`):
    /// the error is thrown in the caller's frame, but the walk for a catching `pcall` starts
    /// from the failed frame, which that `pcall` called. Null otherwise.
    pub(crate) overflow_frame: *mut u64,
    /// Nested entries allowed beyond `MAX_NATIVE_DEPTH`: an `xpcall` message handler runs with
    /// 5.1's extra eighth (`LUAI_MAXCCALLS >> 3`), so a "C stack overflow" still reaches it.
    pub(crate) depth_allowance: usize,
    /// Counters for `ljr --stats`.
    pub stats: Stats,
    /// `collectgarbage("setstepmul")`'s value.
    pub gc_stepmul: usize,
    /// The running coroutine, or nil for the main one.
    pub current_thread: TValue,
    pub(crate) protected: Vec<Protected>,
    /// The allocation `coroutine::resume` hands its values back in, reused across resumes
    /// (a resume/yield ring allocated and freed one per switch).
    pub(crate) resume_values: Vec<TValue>,
    /// "not enough memory", interned when the state is made and always marked, as 5.1 fixes
    /// its memory error message: when memory is exhausted there may be no room to intern it.
    pub(crate) memory_error: TValue,
    /// Metatables of the types that share one (`debug.setmetatable`): nil, boolean, number,
    /// function, thread; null when unset. Strings' is in `shared`.
    pub(crate) type_metatables: [*mut Table; 5],
    /// `debug.getregistry()`: holds `_LOADED` (package.loaded), as 5.1's registry does.
    pub registry: TValue,
    /// Compiled chunks (top-level prototypes, leaked boxes), freed by the collector.
    pub(crate) protos: Vec<*mut Proto>,
    /// Which tiers run, and the baseline JIT.
    pub tiering: crate::tiering::Tiering,
    /// Reused buffer for building strings (concatenation).
    pub(crate) scratch: Vec<u8>,
    /// The library's string builders' reused memory (`stdlib::buffer::Buffer`): a
    /// `string.format` allocated, grew and freed its result's bytes at every call.
    pub(crate) builder_scratch: Vec<u8>,
    /// Unreachable userdata waiting for their `__gc` (a collection root; see `gc`).
    pub(crate) to_finalize: std::collections::VecDeque<TValue>,
    /// Finalizers are running (they do not start the queue again).
    pub(crate) finalizing: bool,
    /// The main thread's debug hook (coroutines keep theirs).
    pub(crate) main_hook: Hook,
    /// Threads with a debug hook set: while there are any, natives report calls and returns.
    pub(crate) hooked_threads: usize,
    pub stdout: std::io::BufWriter<std::io::Stdout>,
    /// Run when the state is dropped, in the order added: what libraries opened on it need to
    /// do at the end of the program (`io` writes out the buffers of files left open).
    pub(crate) at_drop: Vec<fn(&mut LuaState)>,
}

impl std::fmt::Debug for LuaState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LuaState").finish_non_exhaustive()
    }
}

/// The end of a program: what the libraries registered runs (files left open get their
/// buffered output written, as C's `exit` flushes every stream); the objects themselves are not
/// freed one by one.
impl Drop for LuaState {
    fn drop(&mut self) {
        for f in std::mem::take(&mut self.at_drop) {
            f(self);
        }
        if self.hooked_threads > 0 {
            crate::interp::state_unhooked();
        }
    }
}

impl LuaState {
    /// A bare state (5.1's `lua_newstate`): empty globals and registry, no library open.
    pub fn new() -> Result<Box<LuaState>, OutOfMemory> {
        let mut heap = Heap::default();
        let globals = Table::new_in(&mut heap)?;
        let mut event_names = [TValue::NIL; EVENT_NAMES.len()];
        for (slot, name) in event_names.iter_mut().zip(EVENT_NAMES) {
            *slot = heap.intern(name.as_bytes())?;
        }
        let mut status_names = [TValue::NIL; 4];
        for (slot, name) in status_names.iter_mut().zip(STATUS_NAMES) {
            *slot = heap.intern(name.as_bytes())?;
        }
        let memory_error = heap.intern(b"not enough memory")?;
        let mut type_names = [TValue::NIL; TYPE_NAMES.len()];
        for (slot, name) in type_names.iter_mut().zip(TYPE_NAMES) {
            *slot = heap.intern(name.as_bytes())?;
        }
        // Every one-byte string now (the heap keeps them, as roots), for the generated code too.
        for byte in 0..=u8::MAX {
            heap.intern(&[byte])?;
        }
        let single_byte_strings = heap.single_chars.map(|s| TValue::from_string(s));
        let mut stack = vec![0u64; STACK_SLOTS].into_boxed_slice();
        let shared = Box::new(SharedState {
            index_event: event_names[Event::Index as usize],
            newindex_event: event_names[Event::NewIndex as usize],
            string_metatable: std::ptr::null_mut(),
            type_names,
            status_names,
            metatable_event: event_names[Event::Metatable as usize],
            tostring_event: event_names[Event::ToString as usize],
            next_fn: TValue::NIL,
            ipairs_aux_fn: TValue::NIL,
            // The host's own entry: `lua.c` runs everything inside `lua_cpcall`, so a 5.1
            // main chunk starts one native call deep.
            native_depth: 1,
            hooked: 0,
            single_byte_strings,
        });
        let main = new_context(&mut stack, std::ptr::null_mut(), &*shared);
        // As 5.1's registry: libraries keep their tables in it (`_LOADED`, `FILE*`).
        let registry = Table::new_in(&mut heap)?;
        let mut st = Box::new(LuaState {
            current: std::ptr::null_mut(),
            main_saved_top: std::ptr::null_mut(),
            main,
            stack,
            heap,
            threads: Vec::new(),
            globals,
            shared,
            package: TValue::NIL,
            file_metatable: std::ptr::null_mut(),
            default_input: TValue::NIL,
            default_output: TValue::NIL,
            next_fn: TValue::NIL,
            pack_fn: TValue::NIL,
            ipairs_aux_fn: TValue::NIL,
            event_names,
            pending: None,
            overflow_frame: std::ptr::null_mut(),
            depth_allowance: 0,
            current_thread: TValue::NIL,
            protected: Vec::new(),
            resume_values: Vec::new(),
            memory_error,
            type_metatables: [std::ptr::null_mut(); 5],
            registry,
            protos: Vec::new(),
            tiering: crate::tiering::Tiering::default(),
            gc_stepmul: 200,
            stats: Stats::default(),
            scratch: Vec::new(),
            builder_scratch: Vec::new(),
            to_finalize: std::collections::VecDeque::new(),
            finalizing: false,
            main_hook: Hook::default(),
            hooked_threads: 0,
            stdout: std::io::BufWriter::new(std::io::stdout()),
            at_drop: Vec::new(),
        });
        st.main.runtime = &mut *st as *mut LuaState as *mut ();
        st.current = &mut st.main;
        Ok(st)
    }

    pub fn intern(&mut self, bytes: &[u8]) -> Result<TValue, OutOfMemory> {
        self.heap.intern(bytes)
    }

    pub fn set_global(&mut self, name: &str, value: TValue) -> Result<(), OutOfMemory> {
        let key = self.intern(name.as_bytes())?;
        table_mut(self.globals).set(key, value).expect("a string key is valid");
        self.heap.write_barrier(self.globals.as_ptr());
        Ok(())
    }

    /// A `stack traceback:` in lua5.1's format, from the frame at `base` stopped at `pc`
    /// outwards, as `lua.c` prints an uncaught error: its message handler asks
    /// `debug.traceback` for level 2, the level that raised.
    pub(crate) fn traceback(&self, base: *mut u64, pc: *const u8) -> String {
        self.traceback_of(crate::frames::levels(base, pc), 2, true)
    }

    /// A traceback of `levels`, the first of which is level `first_level` as 5.1 numbers them
    /// for `debug.traceback`. Frames are found through their headers; a function's name comes
    /// from the call instruction of its caller (as 5.1's `getfuncname` does), so the stack must
    /// not have been reused since those frames ran. `from_native` adds the native caller the
    /// outermost frame was entered from ("[C]: ?"), which a coroutine's stack does not have.
    pub(crate) fn traceback_of(&self, levels: impl Iterator<Item = Level>, first_level: usize, from_native: bool) -> String {
        /// Like lua5.1's `LEVELS1`/`LEVELS2`: a deep stack shows the levels below `HEAD` and
        /// the last `TAIL` ones.
        const HEAD: usize = 12;
        const TAIL: usize = 10;
        let mut lines = Vec::new();
        for level in levels {
            let Level::Frame(f) = level else {
                lines.push("\t(tail call): ?".to_owned());
                continue;
            };
            let callee = f.callee();
            if !callee.is_function() {
                break;
            }
            let name = f.call_site().and_then(|(b, p)| self.called_name(b, p));
            let cb = unsafe { (*callee.as_closure()).code_block };
            if is_native(cb) {
                lines.push(match name {
                    Some(n) => format!("\t[C]: in function '{n}'"),
                    None => "\t[C]: ?".to_owned(),
                });
            } else {
                let proto = proto_of(cb);
                let line = if f.pc.is_null() { proto.line_defined } else { proto.line_at(unsafe { f.pc.offset_from(proto.code.as_ptr()) } as u32) };
                let what = match name {
                    Some(n) => format!("function '{n}'"),
                    None if proto.line_defined == 0 => "main chunk".to_owned(),
                    None => format!("function <{}:{}>", proto.source, proto.line_defined),
                };
                lines.push(format!("\t{}:{}: in {}", proto.source, line, what));
            }
        }
        if from_native {
            lines.push("\t[C]: ?".to_owned());
        }
        // 5.1's db_errorfor cuts when, at level max(HEAD, first), more than TAIL levels lie
        // beyond the next one.
        let cut = HEAD.max(first_level) - first_level;
        if lines.len() > cut + TAIL + 1 {
            let tail = lines.split_off(lines.len() - TAIL);
            lines.truncate(cut);
            lines.push("\t...".to_owned());
            lines.extend(tail);
        }
        format!("stack traceback:\n{}", lines.join("\n"))
    }

    /// The name the call instruction at `pc` (in the frame at `base`) gave its callee.
    fn called_name(&self, base: *mut u64, pc: *const u8) -> Option<String> {
        self.called_as(base, pc).map(|v| v.name().to_owned())
    }

    /// 5.1's `luaL_argerror` message for argument `i` (from 0) of the function in the frame at
    /// `base`: "bad argument #n to 'f' (`msg`)", naming the function as its call site did
    /// (`'?'` when it was not called by name; for a method call the arguments count from the
    /// one after `self`), with the caller's position.
    pub(crate) fn argument_error(&self, base: *mut u64, i: usize, msg: &str) -> String {
        let this = Frame { base, pc: std::ptr::null() };
        let called = this.call_site().and_then(|(b, p)| self.called_as(b, p));
        let (name, is_method) = match &called {
            Some(VarInfo::Method(n)) => (n.clone(), true),
            Some(v) => (v.name().into(), false),
            None => ("?".into(), false),
        };
        let n = if is_method { i } else { i + 1 };
        let position = self.where_(base, 1);
        if n == 0 {
            format!("{position}calling '{name}' on bad self ({msg})")
        } else {
            format!("{position}bad argument #{n} to '{name}' ({msg})")
        }
    }

    /// The `chunk:line: ` of the Lua code `level` levels up from the frame at `base` (1: its
    /// caller), or nothing when that level is a native function or a tail call (`luaL_where`).
    pub(crate) fn where_(&self, base: *mut u64, level: usize) -> String {
        match crate::frames::levels(base, std::ptr::null()).nth(level) {
            Some(Level::Frame(f)) => self.position(f.base, f.pc).map(|p| p + " ").unwrap_or_default(),
            _ => String::new(),
        }
    }

    /// What the call instruction at `pc` (in the frame at `base`) called: a global, a local, a
    /// field, a method, ... (None for calls not made by name, or from native code).
    pub(crate) fn called_as(&self, base: *mut u64, pc: *const u8) -> Option<VarInfo> {
        if base.is_null() || pc.is_null() {
            return None;
        }
        let caller = TValue(unsafe { *base.offset(frame::CALLEE as isize) });
        if !caller.is_function() {
            return None;
        }
        let cb = unsafe { (*caller.as_closure()).code_block };
        if is_native(cb) {
            return None;
        }
        let proto = proto_of(cb);
        let offset = unsafe { pc.offset_from(proto.code.as_ptr()) } as u32;
        // As 5.1's `getfuncname`: only a call instruction names its callee. A metamethod or
        // an `__index` handler called from an arithmetic or indexing instruction has no name.
        if !crate::bytecode::is_call_instruction(&proto.code, offset as usize) {
            return None;
        }
        proto.operand_name(offset, 0).cloned()
    }

    /// The traceback of the error that last left the interpreter.
    pub fn error_traceback(&mut self) -> String {
        let (base, pc) = (self.cur().interp.error_base, self.cur().interp.error_pc);
        self.traceback(base, pc)
    }

    /// The `chunk:line:` prefix for an error raised at `pc` in the frame at `base`.
    pub(crate) fn position(&self, base: *mut u64, pc: *const u8) -> Option<String> {
        if base.is_null() || pc.is_null() {
            return None;
        }
        let callee = unsafe { TValue(*base.sub(FRAME_HEADER_SLOTS)) };
        if !callee.is_function() {
            return None;
        }
        let cb = unsafe { (*callee.as_closure()).code_block };
        if is_native(cb) {
            return None;
        }
        let proto = proto_of(cb);
        let offset = unsafe { pc.offset_from(proto.code.as_ptr()) } as u32;
        Some(format!("{}:{}:", proto.source, proto.line_at(offset)))
    }

    /// The running coroutine's context.
    #[inline]
    pub fn cur(&mut self) -> &mut LuaContext {
        unsafe { &mut *self.current }
    }

    /// The main coroutine's stack, as (bottom, end).
    pub(crate) fn main_stack(&mut self) -> (*mut u64, *mut u64) {
        let p = self.stack.as_mut_ptr();
        (p, unsafe { p.add(STACK_SLOTS) })
    }

    pub fn flush(&mut self) {
        let _ = self.stdout.flush();
    }

    /// A thread of this state got a debug hook.
    pub(crate) fn hooked_thread_added(&mut self) {
        self.hooked_threads += 1;
        self.shared.hooked = 1;
        if self.hooked_threads == 1 {
            crate::interp::state_hooked();
            self.tiering.set_hooked(true);
        }
    }

    /// A hooked thread lost its hook, or was freed with it.
    pub(crate) fn hooked_thread_removed(&mut self) {
        self.hooked_threads -= 1;
        if self.hooked_threads == 0 {
            self.shared.hooked = 0;
            crate::interp::state_unhooked();
            self.tiering.set_hooked(false);
        }
    }
}

/// The state behind a context pointer handed to a runtime helper or native function (the
/// context is the running coroutine's; every context points back at the state).
///
/// # Safety
/// `ctx` must be a context of a live, boxed [`LuaState`].
pub unsafe fn state_of<'a>(ctx: *mut LuaContext) -> &'a mut LuaState {
    let st = unsafe { &mut *((*ctx).runtime as *mut LuaState) };
    debug_assert_eq!(st.current, ctx, "a helper ran on a coroutine that is not the current one");
    st
}

impl LuaState {
    /// Takes ownership of a chunk just compiled or loaded (the collector frees it once no
    /// closure of it lives) and hands its functions to the tiering policy: each starts its
    /// hotness countdown, or is compiled at once (`--tier=baseline`).
    pub(crate) fn register_chunk(&mut self, root: *mut Proto) {
        self.protos.push(root);
        // The chunk's memory counts toward the next collection, as an object's does.
        // SAFETY: the chunk was just built and is owned by the state.
        let bytes = unsafe { (*root).heap_bytes() };
        unsafe { (*root).accounted_bytes = bytes };
        self.heap.bytes_allocated += bytes;
        let tiering = &mut self.tiering;
        // SAFETY: the chunk was just built and is owned by the state; nothing runs it yet.
        unsafe { &mut *root }.each_mut(&mut |p| {
            let cb = p.code_block() as *mut deegen_api::CodeBlock;
            // SAFETY: the prototype's own code block.
            unsafe { (*cb).hotness = tiering.initial_hotness() };
            if tiering.compiles_on_load() {
                // SAFETY: the bytecode is the prototype's boxed slice, which never moves.
                p.jit = unsafe { tiering.compile(cb, &p.code) };
            }
        });
    }

    /// Every function the baseline JIT compiled that is still alive, chunk by chunk.
    pub fn compiled_functions(&self) -> Vec<&Proto> {
        let mut out = Vec::new();
        for &root in &self.protos {
            // SAFETY: registered chunks live until the collector drops them.
            unsafe { &*root }.each(&mut |p| {
                if p.jit.is_some() {
                    out.push(p);
                }
            });
        }
        out
    }
}
