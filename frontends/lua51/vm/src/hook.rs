//! Debug hooks: `debug.sethook`/`debug.gethook` and the events they report, as Lua 5.1 defines
//! them (ldo.c's `luaD_callhook` callers, ldebug.c's `luaG_traceexec`).
//!
//! A hook costs nothing while none is set: the generated interpreter dispatches through tables
//! that hold the handlers themselves. While a thread of any state has a hook, every entry of the
//! interpreter's two dispatch tables points at a generated thunk (`interp` switches them as the
//! state counts its hooked threads), which calls
//! [`lua_rt_hook_instruction`] before the instruction runs and then dispatches through a
//! read-only copy of the handlers. The first instruction of a call comes through the entry
//! table's thunk, which is how a call is told apart from a jump back to the first instruction.
//! Native functions report their calls and returns themselves (the `native!` macro asks
//! [`native_call`] and [`native_return`] while any hook is set).
//!
//! The events, per thread, with the hook's own thread not traced while it runs:
//! - **call**: a function is entered (Lua or native); a proper tail call is a call too.
//! - **return**: a Lua function's return instruction is about to run, then one **tail return**
//!   per frame its tail calls replaced; a native function returned normally.
//! - **line**: an instruction starts a function, starts a new line, or was reached by a jump
//!   backwards, compared with the instruction the frame ran before it (after a call returns,
//!   the call). 5.1's numeric `for` enters its body by a jump back from the loop's end, where
//!   ljr's `ForPrep` falls into it: that entry counts as the jump back it is in 5.1.
//! - **count**: every `count` instructions.

use deegen_api::{CodeBlock, FRAME_HEADER_SLOTS};
use lua51_value::{LuaContext, TValue};

use crate::bytecode::{instruction_offsets, read_operand, variants};
use crate::frames::Frame;
use crate::interp::STATUS_YIELD;
use crate::object::function::{proto_of, PROLOGUE_LINE};
use crate::object::thread::{thread_mut, Hook};
use crate::state::{state_of, LuaError, LuaState};

pub(crate) const MASK_CALL: u8 = 1;
pub(crate) const MASK_RETURN: u8 = 2;
pub(crate) const MASK_LINE: u8 = 4;
pub(crate) const MASK_COUNT: u8 = 8;

/// The bytecodes that take the values the previous instruction left in a variable number (the
/// count in `LuaContext::var_results`).
const CONSUMES_VAR_RESULTS: [&str; 4] = ["CallVarArgs", "TailCallVarArgs", "ReturnVarArgs", "SetListVarArgs"];

/// The running thread's hook.
pub(crate) fn current(st: &mut LuaState) -> &mut Hook {
    let running = st.current_thread;
    of_thread(st, running)
}

/// The hook of `thread` (nil: the main thread).
pub(crate) fn of_thread(st: &mut LuaState, thread: TValue) -> &mut Hook {
    if thread.is_nil() {
        &mut st.main_hook
    } else {
        &mut thread_mut(thread).hook
    }
}

/// Sets a thread's hook (5.1's `lua_sethook`: no events without a mask), keeping the dispatch
/// tables in step with the number of hooked threads.
pub(crate) fn set(st: &mut LuaState, thread: TValue, func: TValue, mask: u8, count: u32) {
    let hook = of_thread(st, thread);
    let was_hooked = hook.mask != 0;
    hook.func = func;
    hook.mask = mask;
    hook.base_count = count;
    hook.countdown = count;
    // What was traced before is stale: the frames ran on untraced since.
    hook.last_base = std::ptr::null_mut();
    hook.last_pc = std::ptr::null();
    let hooked = mask != 0;
    match (was_hooked, hooked) {
        (false, true) => st.hooked_thread_added(),
        (true, false) => st.hooked_thread_removed(),
        _ => {}
    }
}

/// `gethook`'s mask string.
pub(crate) fn mask_string(mask: u8) -> String {
    [(MASK_CALL, 'c'), (MASK_RETURN, 'r'), (MASK_LINE, 'l')].iter().filter(|(m, _)| mask & m != 0).map(|(_, c)| *c).collect()
}

/// `sethook`'s mask string and count.
pub(crate) fn parse_mask(s: &[u8], count: u32) -> u8 {
    let mut mask = 0;
    for (c, m) in [(b'c', MASK_CALL), (b'r', MASK_RETURN), (b'l', MASK_LINE)] {
        if s.contains(&c) {
            mask |= m;
        }
    }
    if count > 0 {
        mask |= MASK_COUNT;
    }
    mask
}

/// Calls the running thread's hook with `event` (and `line` for line events) in a frame at
/// `frame`, above the hooked frame `caller` stopped at `caller_pc`: 5.1's `hookf`. The hook's
/// own thread is not traced meanwhile.
///
/// # Safety
/// As [`LuaState::call_from`]: `frame` lies above every live frame of the running thread.
unsafe fn call_hook(
    st: *mut LuaState,
    frame: *mut u64,
    caller: *mut u64,
    caller_pc: *const u8,
    event: &str,
    line: Option<u32>,
) -> Result<(), LuaError> {
    unsafe {
        let hook = *current(&mut *st);
        if !hook.func.is_function() {
            return Ok(());
        }
        let name = (*st).intern(event.as_bytes()).map_err(|_| LuaError { value: TValue::NIL })?;
        *frame = hook.func.raw();
        *frame.add(FRAME_HEADER_SLOTS) = name.raw();
        *frame.add(FRAME_HEADER_SLOTS + 1) = line.map_or(TValue::NIL, |l| TValue::from_f64(f64::from(l))).raw();
        current(&mut *st).running = true;
        let result = LuaState::call_from(st, frame, 2, caller, caller_pc);
        current(&mut *st).running = false;
        result.map(|_| ())
    }
}

/// The events before the instruction at `pc` of the frame at `base` runs (see the module
/// documentation); `entry` is 1 for the first instruction of a call. Returns 0, or 1 after
/// leaving the hook's error in the context for the thunk to throw.
#[no_mangle]
pub unsafe extern "C" fn lua_rt_hook_instruction(ctx: *mut LuaContext, base: *mut u64, pc: *const u8, cb: *const CodeBlock, entry: u64) -> u64 {
    let st: *mut LuaState = unsafe { state_of(ctx) };
    match unsafe { trace_instruction(st, base, pc, cb, entry != 0) } {
        Ok(()) => 0,
        Err(LuaError { value }) => {
            unsafe { (*ctx).interp.error = value.raw() };
            1
        }
    }
}

unsafe fn trace_instruction(st: *mut LuaState, base: *mut u64, pc: *const u8, cb: *const CodeBlock, entry: bool) -> Result<(), LuaError> {
    unsafe {
        let hook = *current(&mut *st);
        if hook.mask == 0 || hook.running {
            return Ok(());
        }
        let proto = proto_of(cb);
        let code = &proto.code[..];
        let offset = pc.offset_from((*cb).bytecode) as usize;
        let opcode = read_operand(code, offset, 2, false) as usize;
        let variant = &variants()[opcode];
        let is_return = variant.bytecode.starts_with("Return");
        // The hook's frame goes above the hooked one's, and above the values a call or `...`
        // left for this instruction to take (they may run past the frame's slots).
        let pending = if CONSUMES_VAR_RESULTS.contains(&variant.bytecode.as_str()) { (*(*st).current).var_results as usize } else { 0 };
        let frame = base.add((*cb).frame_slots as usize + pending);
        if entry && hook.mask & MASK_CALL != 0 {
            call_hook(st, frame, base, pc, "call", None)?;
        }

        let hook = *current(&mut *st);
        if hook.mask & (MASK_COUNT | MASK_LINE) != 0 {
            if hook.mask & MASK_COUNT != 0 {
                let h = current(&mut *st);
                h.countdown = h.countdown.saturating_sub(1);
                if h.countdown == 0 {
                    h.countdown = h.base_count;
                    call_hook(st, frame, base, pc, "count", None)?;
                }
            }
            let hook = *current(&mut *st);
            let line = proto.line_at(offset as u32);
            if hook.mask & MASK_LINE != 0 && line != PROLOGUE_LINE {
                // The instruction this frame ran before: the last one traced in this thread if
                // that was this frame's; otherwise the frame just got control back from a call
                // (a native one, or one left by an error), which is the instruction before.
                let start = (*cb).bytecode as usize;
                let last_in_code = (start..start + code.len()).contains(&(hook.last_pc as usize));
                let previous = if !entry && hook.last_base == base && last_in_code {
                    Some(hook.last_pc as usize - start)
                } else if entry {
                    None
                } else {
                    instruction_offsets(code).take_while(|&o| o < offset).last()
                };
                let fire = match previous {
                    None => true,
                    Some(prev) => {
                        let prev_variant = &variants()[read_operand(code, prev, 2, false) as usize];
                        let for_body = prev_variant.bytecode == "ForPrep" && offset == prev + prev_variant.length as usize;
                        offset <= prev || for_body || line != proto.line_at(prev as u32)
                    }
                };
                if fire {
                    call_hook(st, frame, base, pc, "line", Some(line))?;
                }
            }
        }
        let h = current(&mut *st);
        h.last_base = base;
        h.last_pc = pc;
        if is_return {
            let hook = *current(&mut *st);
            if hook.mask & MASK_RETURN != 0 {
                call_hook(st, frame, base, pc, "return", None)?;
                let tail_calls = Frame { base, pc }.tail_calls();
                for _ in 0..tail_calls {
                    if current(&mut *st).mask & MASK_RETURN == 0 {
                        break;
                    }
                    call_hook(st, frame, base, pc, "tail return", None)?;
                }
            }
            // The caller goes on after its call instruction.
            let (caller_base, caller_pc) = Frame { base, pc }.caller();
            let h = current(&mut *st);
            h.last_base = caller_base;
            h.last_pc = caller_pc;
        }
        Ok(())
    }
}

/// The native at `base` is the packer of a vararg function's `arg` table, which 5.1 makes
/// without a call.
unsafe fn in_prologue(st: *mut LuaState, base: *mut u64) -> bool {
    unsafe { TValue(*base.offset(deegen_api::frame::CALLEE as isize)) == (*st).pack_fn }
}

/// A native function at `base` with `nargs` arguments is entered: its call event.
///
/// # Safety
/// `base` is the frame of the native function running now.
pub(crate) unsafe fn native_call(st: *mut LuaState, base: *mut u64, nargs: usize) -> Result<(), LuaError> {
    unsafe {
        let hook = *current(&mut *st);
        if hook.mask & MASK_CALL == 0 || hook.running || in_prologue(st, base) {
            return Ok(());
        }
        call_hook(st, base.add(nargs), base, std::ptr::null(), "call", None)
    }
}

/// A native function at `base` returned `nresults` values normally: its return event (none
/// when it suspended its coroutine: 5.1 reports that return on resume, which ljr leaves out).
///
/// # Safety
/// `base` is the frame of the native function running now, with `used` slots in use.
pub(crate) unsafe fn native_return(st: *mut LuaState, base: *mut u64, used: usize) -> Result<(), LuaError> {
    unsafe {
        let hook = *current(&mut *st);
        if hook.mask & MASK_RETURN == 0 || hook.running || (*(*st).current).interp.status == STATUS_YIELD || in_prologue(st, base) {
            return Ok(());
        }
        call_hook(st, base.add(used), base, std::ptr::null(), "return", None)
    }
}

/// A debug hook was set on the thread whose innermost frame is `start`: every frame of it that
/// would return into JIT code returns into the interpreter instead, which calls the hook (JIT
/// code has no hook calls). The frames then run in the interpreter until they return.
pub(crate) fn leave_jit_code(st: &mut LuaState, start: *mut u64) {
    use deegen_api::frame;
    for level in crate::frames::levels(start, std::ptr::null()) {
        let Some(f) = level.frame() else { continue };
        // SAFETY: the walk yields live frames, whose headers lie below their bases.
        let slot = unsafe { f.base.offset(frame::RETURN_CONTINUATION as isize) };
        let ret = unsafe { *slot };
        if !st.tiering.is_jit_code(ret) {
            continue;
        }
        let (caller_base, caller_pc) = f.caller();
        if caller_base.is_null() || caller_pc.is_null() {
            continue;
        }
        // SAFETY: a frame returning into JIT code was called by a compiled Lua function, whose
        // closure is in its caller's header.
        let proto = unsafe {
            let callee = lua51_value::TValue(*caller_base.offset(frame::CALLEE as isize));
            crate::object::function::proto_of((*callee.as_closure()).code_block)
        };
        let Some(code) = &proto.jit else { continue };
        let offset = (caller_pc as usize).wrapping_sub(proto.code.as_ptr() as usize);
        match st.tiering.interpreter_return_address(code, &proto.code, offset, ret) {
            // SAFETY: as above.
            Some(handler) => unsafe { *slot = handler as u64 },
            None => tracing::warn!(offset, "a frame returns into JIT code the interpreter has no continuation for"),
        }
    }
}
