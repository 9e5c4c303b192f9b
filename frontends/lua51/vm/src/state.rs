//! One Lua state: the interpreter context (first, so the generated code and the runtime share
//! one pointer), the VM stack, the heap and the globals; and the door into the generated
//! interpreter.

use std::io::Write;

use deegen_api::{frame, InterpContext, FRAME_HEADER_SLOTS, STATUS_OK};
use lua51_value::{LuaContext, SharedState, TValue};

use crate::frames::Level;
use crate::function::{is_native, proto_of};
use crate::heap::{Heap, OutOfMemory};
use crate::table::{table_mut, Table};

extern "C" {
    fn __deegen_interp_enter(ctx: *mut InterpContext, base: *mut u64, num_args: u64);
    fn __deegen_interp_exit();
}

/// Stack slots of one coroutine. Frames never move, so the interpreter may hold raw pointers.
pub const STACK_SLOTS: usize = 1 << 20;
/// Slots kept free above the limit for native functions' results.
pub(crate) const STACK_RESERVE: usize = 256;
/// Lua 5.1's `LUAI_MAXCCALLS`: nested native/interpreter entries (calls from native code and
/// coroutine resumes), which together with the runtime's calls of metamethods and iterators
/// (`LuaContext::c_calls`) make 5.1's `nCcalls`.
/// As in 5.1 (`++nCcalls >= LUAI_MAXCCALLS`), the entry that would reach the limit fails.
pub(crate) const MAX_NATIVE_DEPTH: usize = lua51_value::MAX_C_CALLS as usize;
/// Slots below the reserve kept free for `xpcall` message handlers: the limit rises by this
/// much while one runs, so a handler still works after a stack overflow (5.1 grows its stack
/// for the same reason).
pub(crate) const HANDLER_RESERVE: usize = 8192;

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
    "__index", "__newindex", "__call", "__add", "__sub", "__mul", "__div", "__mod", "__pow", "__unm", "__concat", "__eq", "__lt", "__le",
    "__len", "__gc", "__mode", "__tostring", "__metatable",
];

/// A Lua state. Always boxed: the generated code holds a pointer to its context.
#[repr(C)]
/// One protected call in progress (`pcall`, `xpcall`, a coroutine `resume`), innermost last:
/// an error consults only the innermost, so a `pcall` or a coroutine hides an outer `xpcall`'s
/// handler as in 5.1.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Protected {
    /// The `xpcall` message handler, or nil.
    pub handler: TValue,
    pub state: HandlerState,
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

pub struct LuaState {
    /// The main coroutine's context (first: its address is the state's).
    pub main: LuaContext,
    /// The running coroutine's context: `main`, or a coroutine's.
    pub current: *mut LuaContext,
    /// The main coroutine's live top while a coroutine runs (a collection root boundary).
    pub main_saved_top: *mut u64,
    stack: Box<[u64]>,
    pub heap: Heap,
    pub globals: TValue,
    /// The metatable shared by all strings (`("x"):upper()`), or null.
    /// `"__index"` and the string metatable, read by the handlers through every context.
    pub shared: Box<SharedState>,
    /// Metatable of file handles, and the default input and output files of `io`.
    pub file_metatable: *mut Table,
    pub default_input: TValue,
    pub default_output: TValue,
    /// The `package` table (`require` reads `loaded`, `preload` and `path` from it).
    pub package: TValue,
    /// `next` and the `ipairs` iterator, returned by `pairs` and `ipairs`.
    pub next_fn: TValue,
    /// Packs varargs into the table of LUA_COMPAT_VARARG's `arg` (a constant of such functions).
    pub pack_fn: TValue,
    pub ipairs_aux_fn: TValue,
    /// Interned metamethod names, by [`Event`].
    pub event_names: [TValue; EVENT_NAMES.len()],
    pub(crate) pending: Option<PendingError>,
    /// Counters for `ljr --stats`.
    pub stats: Stats,
    /// `collectgarbage("setstepmul")`'s value.
    pub gc_stepmul: usize,
    /// Nested interpreter entries from native code (`pcall`, metamethods called by the library,
    /// coroutine resumes).
    pub(crate) native_depth: usize,
    /// The running coroutine, or nil for the main one.
    pub current_thread: TValue,
    pub(crate) protected: Vec<Protected>,
    /// The globals of each thread waiting in `resume` for the coroutine it resumed, innermost
    /// last: `globals` is always the running thread's (5.1's `gt(L)`), so `setfenv(0, t)` in a
    /// coroutine changes that coroutine's only.
    pub(crate) resumer_globals: Vec<TValue>,
    /// The allocation `coroutine::resume` hands its values back in, reused across resumes
    /// (a resume/yield ring allocated and freed one per switch).
    pub(crate) resume_values: Vec<TValue>,
    /// `coroutine.status`'s answers, interned once (status polling loops call it constantly).
    pub(crate) status_names: [TValue; 4],
    /// Metatables of the types that share one (`debug.setmetatable`): nil, boolean, number,
    /// function, thread; null when unset. Strings' is in `shared`.
    pub(crate) type_metatables: [*mut Table; 5],
    /// `debug.getregistry()`: holds `_LOADED` (package.loaded), as 5.1's registry does.
    pub registry: TValue,
    /// Compiled chunks (top-level prototypes, leaked boxes), freed by the collector.
    pub(crate) protos: Vec<*mut crate::function::Proto>,
    /// Reused buffer for building strings (concatenation).
    pub(crate) scratch: Vec<u8>,
    /// Unreachable userdata waiting for their `__gc` (a collection root; see `gc`).
    pub(crate) to_finalize: std::collections::VecDeque<TValue>,
    /// Finalizers are running (they do not start the queue again).
    pub(crate) finalizing: bool,
    /// The main thread's debug hook (coroutines keep theirs).
    pub(crate) main_hook: crate::hook::Hook,
    /// Threads with a debug hook set: while there are any, natives report calls and returns.
    pub(crate) hooked_threads: usize,
    pub stdout: std::io::BufWriter<std::io::Stdout>,
}

impl std::fmt::Debug for LuaState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LuaState").finish_non_exhaustive()
    }
}

/// The end of a program: files it left open get their buffered output written, as C's `exit`
/// flushes every stream (the objects themselves are not freed one by one).
impl Drop for LuaState {
    fn drop(&mut self) {
        crate::iolib::flush_all_files(self);
        if self.hooked_threads > 0 {
            crate::hook::state_unhooked();
        }
    }
}

impl LuaState {
    pub fn new() -> Result<Box<LuaState>, OutOfMemory> {
        let mut heap = Heap::default();
        let globals = Table::new_in(&mut heap)?;
        let mut event_names = [TValue::NIL; EVENT_NAMES.len()];
        for (slot, name) in event_names.iter_mut().zip(EVENT_NAMES) {
            *slot = heap.intern(name.as_bytes())?;
        }
        let mut status_names = [TValue::NIL; 4];
        for (slot, name) in status_names.iter_mut().zip(crate::coroutine::STATUS_NAMES) {
            *slot = heap.intern(name.as_bytes())?;
        }
        let mut stack = vec![0u64; STACK_SLOTS].into_boxed_slice();
        let shared = Box::new(SharedState { index_event: event_names[Event::Index as usize], newindex_event: event_names[Event::NewIndex as usize], string_metatable: std::ptr::null_mut() });
        let main = new_context(&mut stack, std::ptr::null_mut(), &*shared);
        let mut st = Box::new(LuaState {
            current: std::ptr::null_mut(),
            main_saved_top: std::ptr::null_mut(),
            main,
            stack,
            heap,
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
            // The host's own entry: `lua.c` runs everything inside `lua_cpcall`, so a 5.1 main
            // chunk starts one native call deep.
            native_depth: 1,
            current_thread: TValue::NIL,
            protected: Vec::new(),
            resumer_globals: Vec::new(),
            resume_values: Vec::new(),
            status_names,
            type_metatables: [std::ptr::null_mut(); 5],
            registry: TValue::NIL,
            protos: Vec::new(),
            gc_stepmul: 200,
            stats: Stats::default(),
            scratch: Vec::new(),
            to_finalize: std::collections::VecDeque::new(),
            finalizing: false,
            main_hook: crate::hook::Hook::default(),
            hooked_threads: 0,
            stdout: std::io::BufWriter::new(std::io::stdout()),
        });
        st.main.runtime = &mut *st as *mut LuaState as *mut ();
        st.current = &mut st.main;
        crate::stdlib::open_libs(&mut st)?;
        Ok(st)
    }

    /// The end of a program (5.1's `lua_close`): runs the finalizers of every userdata that
    /// has one. The state stays usable.
    pub fn close(&mut self) {
        crate::gc::close(self);
    }

    pub fn intern(&mut self, bytes: &[u8]) -> Result<TValue, OutOfMemory> {
        self.heap.intern(bytes)
    }

    pub fn set_global(&mut self, name: &str, value: TValue) -> Result<(), OutOfMemory> {
        let key = self.intern(name.as_bytes())?;
        table_mut(self.globals).set(key, value).expect("a string key is valid");
        Ok(())
    }

    /// Calls `f` with `args` from the top level (the bottom of the stack) and returns its
    /// results.
    pub fn call(&mut self, f: TValue, args: &[TValue]) -> Result<Vec<TValue>, LuaError> {
        let frame = self.stack.as_mut_ptr();
        unsafe {
            *frame = f.raw();
            for (i, a) in args.iter().enumerate() {
                *frame.add(FRAME_HEADER_SLOTS + i) = a.raw();
            }
        }
        let st: *mut LuaState = self;
        let (p, n) = unsafe { LuaState::call_at(st, frame, args.len(), std::ptr::null_mut())? };
        Ok((0..n).map(|i| TValue(unsafe { *p.add(i) })).collect())
    }

    /// Parses and compiles a chunk into a function over the globals, or loads a precompiled
    /// one (`string.dump`'s, recognised by its first byte as 5.1 does). `source_name` is Lua's
    /// (`=name`, `@file`, or the source itself, so any bytes); the error is the message
    /// `lua5.1` gives, as bytes (a syntax error quotes the source). `skip_shebang` (files)
    /// skips a first line starting with `#`.
    pub fn load(&mut self, source: &[u8], source_name: impl AsRef<[u8]>, skip_shebang: bool) -> Result<TValue, Vec<u8>> {
        let source_name = source_name.as_ref();
        let after_shebang = match source {
            [b'#', rest @ ..] if skip_shebang => rest.iter().position(|&b| b == b'\n').map_or(&[][..], |nl| &rest[nl + 1..]),
            _ => source,
        };
        if after_shebang.first() == Some(&crate::dump::SIGNATURE[0]) {
            return crate::dump::undump(self, after_shebang, &String::from_utf8_lossy(source_name)).map_err(String::into_bytes);
        }
        self.load_text(source, source_name, skip_shebang)
    }

    /// [`Self::load`] of source text.
    pub(crate) fn load_text(&mut self, source: &[u8], source_name: &[u8], skip_shebang: bool) -> Result<TValue, Vec<u8>> {
        let options = self.parse_options(skip_shebang);
        let chunk = lua51_syntax::parse_chunk_with(source, syntax_chunk_id(source_name), &options).map_err(|e| e.to_bytes())?;
        self.compile_parsed(&chunk, source_name)
    }

    /// How a chunk loaded now is parsed: its nesting limit counts from the native calls under
    /// way (the host's entry included, as lua.c's).
    pub(crate) fn parse_options(&self, skip_shebang: bool) -> lua51_syntax::ParseOptions {
        lua51_syntax::ParseOptions { skip_shebang, c_calls: self.native_depth as u32 }
    }

    /// Compiles a parsed chunk into a function (the end of [`Self::load_text`], also reached
    /// by `load` with a reader, which parses as it reads).
    pub(crate) fn compile_parsed(&mut self, chunk: &lua51_syntax::Chunk, source_name: &[u8]) -> Result<TValue, Vec<u8>> {
        let source_name = String::from_utf8_lossy(source_name);
        let f = crate::compiler::compile_chunk(self, chunk, &lua51_syntax::chunk_id(&source_name)).map_err(|e| e.message.into_bytes())?;
        // SAFETY: the chunk's prototype was just built; nothing else refers to it yet.
        unsafe {
            let proto = crate::function::proto_of((*f.as_closure()).code_block) as *const crate::function::Proto as *mut crate::function::Proto;
            (*proto).chunkname = source_name.into_owned();
        }
        Ok(f)
    }

    /// Calls the callee at `frame[0]` with `num_args` arguments from `frame[FRAME_HEADER_SLOTS]`,
    /// from native code running in the frame below `frame` (a nested interpreter entry).
    /// Returns where the results are and how many. `caller` is the frame of the native
    /// function making the call (null from the top level): the new frame's header names it, so
    /// error levels and tracebacks see through nested entries.
    ///
    /// Takes the state as a raw pointer: the interpreter reaches the same state through its
    /// context while this runs, so no `&mut LuaState` may be live across the call (the optimiser
    /// would be entitled to drop or reorder the stores around it).
    ///
    /// # Safety
    /// `st` is a live state; `frame` must be a slot of the running coroutine's stack above every
    /// live frame, with the callee and arguments stored as described.
    pub unsafe fn call_at(st: *mut LuaState, frame: *mut u64, num_args: usize, caller: *mut u64) -> Result<(*mut u64, usize), LuaError> {
        unsafe { Self::call_from(st, frame, num_args, caller, std::ptr::null()) }
    }

    /// [`Self::call_at`] from a frame stopped at an instruction (`caller_pc`): a debug hook
    /// called before the instruction runs, so that the hook sees the line it is at.
    ///
    /// # Safety
    /// As [`Self::call_at`].
    pub unsafe fn call_from(st: *mut LuaState, frame: *mut u64, num_args: usize, caller: *mut u64, caller_pc: *const u8) -> Result<(*mut u64, usize), LuaError> {
        unsafe {
            let ctx = (*st).current;
            let base = frame.add(FRAME_HEADER_SLOTS);
            let error = |st: *mut LuaState, msg: &str| LuaError { value: (*st).intern(msg.as_bytes()).unwrap_or(TValue::NIL) };
            if (*st).native_depth + 1 >= MAX_NATIVE_DEPTH {
                return Err(error(st, "C stack overflow"));
            }
            if base.add(num_args) >= (*ctx).interp.stack_limit {
                return Err(error(st, "stack overflow"));
            }
            *base.offset(frame::CALLER_BASE as isize) = caller as u64;
            *base.offset(frame::RETURN_CONTINUATION as isize) = __deegen_interp_exit as *const () as u64;
            *base.offset(frame::CALLER_PC as isize) = caller_pc as u64;
            let mut num_args = num_args;
            let mut f = TValue(*frame);
            if !f.is_function() {
                let tm = crate::runtime::metamethod(&*st, f, Event::Call);
                if !tm.is_function() {
                    let msg = format!("attempt to call a {} value", lua51_value::type_name(f));
                    return Err(error(st, &msg));
                }
                std::ptr::copy(base, base.add(1), num_args);
                *base = f.raw();
                num_args += 1;
                f = tm;
            }
            *base.offset(frame::CALLEE as isize) = f.raw();
            (*st).native_depth += 1;
            let saved_var_results = (*ctx).var_results;
            // An error unwinds past the continuations that would uncount metamethod calls.
            let saved_c_calls = (*ctx).c_calls;
            (*ctx).interp.status = STATUS_OK;
            __deegen_interp_enter(std::ptr::addr_of_mut!((*ctx).interp), base, num_args as u64);
            (*st).native_depth -= 1;
            (*ctx).var_results = saved_var_results;
            (*ctx).c_calls = saved_c_calls;
            if (*ctx).interp.status != STATUS_OK {
                // An error (a yield cannot cross this entry: `yield` refuses it).
                (*ctx).interp.status = STATUS_OK;
                // Frames above `frame` are gone: close their upvalues.
                crate::runtime::lua_rt_close_upvalues(ctx, frame);
                return Err(LuaError { value: TValue((*ctx).interp.error) });
            }
            Ok(((*ctx).interp.ret_ptr, (*ctx).interp.ret_count as usize))
        }
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

    /// What the call instruction at `pc` (in the frame at `base`) called: a global, a local, a
    /// field, a method, ... (None for calls not made by name, or from native code).
    pub(crate) fn called_as(&self, base: *mut u64, pc: *const u8) -> Option<crate::function::VarInfo> {
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
}

/// A fresh interpreter context for a coroutine running on `stack`.
pub(crate) fn new_context(stack: &mut [u64], runtime: *mut LuaState, shared: *const SharedState) -> LuaContext {
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
        },
        open_upvalues: std::ptr::null_mut(),
        var_results: 0,
        c_calls: 0,
        runtime: runtime as *mut (),
        shared,
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

/// How a syntax error names the chunk `source_name` (lua5.1's lexer buffer size), as bytes.
pub(crate) fn syntax_chunk_id(source_name: &[u8]) -> Vec<u8> {
    lua51_syntax::chunk_id_bytes(source_name, lua51_syntax::MAXSRC)
}
