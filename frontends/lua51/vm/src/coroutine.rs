//! Coroutines: creating, resuming and yielding threads (5.1's `lua_newthread`, `lua_resume`,
//! `lua_yield`). A coroutine is a thread object (`object::thread`) with its own stack and
//! interpreter context.
//!
//! Lua calls never grow the native stack (they are tail calls between handlers), so a coroutine
//! needs no native stack of its own: `yield` leaves the coroutine's interpreter entry with a
//! yield status, and `resume` continues the suspended `yield` call through the generated
//! `__deegen_interp_resume` thunk, as if `yield` had returned the resume's arguments. Yielding
//! across a nested native entry (`pcall`, a metamethod called by the library) is refused with
//! Lua 5.1's message.

use deegen_api::{FRAME_HEADER_SLOTS, STATUS_ERROR, STATUS_OK};
use lua51_value::{LuaContext, TValue};

use crate::interp::{__deegen_interp_enter, __deegen_interp_exit, __deegen_interp_resume, STATUS_YIELD};
use crate::object::function::close_upvalues;
use crate::object::heap::OutOfMemory;
use crate::object::thread::{CoStatus, Thread};
use crate::state::{HandlerState, LuaState, Protected, MAX_NATIVE_DEPTH};

/// A new coroutine of the running thread that will run `func`: a thread object, recorded in the
/// state (the collector closes the open upvalues of those it frees), with the running thread's
/// globals.
pub fn new_thread(st: &mut LuaState, func: TValue) -> Result<TValue, OutOfMemory> {
    let runtime = st as *mut LuaState as *mut ();
    let shared: *const lua51_value::SharedState = &*st.shared;
    let env = st.globals;
    let t = Thread::new_in(&mut st.heap, runtime, shared, func, env)?;
    st.threads.push(t.as_ptr());
    Ok(t)
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
        if (*st).shared.native_depth >= MAX_NATIVE_DEPTH {
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
        (*co).entry_depth = (*st).shared.native_depth + 1;
        (*st).shared.native_depth += 1;
        (*ctx).interp.status = STATUS_OK;
        // `resume` catches the coroutine's errors: an enclosing `xpcall`'s handler does not see them.
        // Its base is in another stack than the coroutine's frames: a walk of those never meets it.
        (*st).protected.push(Protected { handler: TValue::NIL, state: HandlerState::Done, base: std::ptr::null_mut() });
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
        (*st).shared.native_depth -= 1;
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
            close_upvalues(ctx, (*co).saved_top);
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
        // A native frame (`pcall`, counted as one in generated code too; `table.sort`'s
        // comparator, `load`'s reader) or a Lua function the runtime called (a metamethod, a
        // `for` iterator) lies between the yield and the resume.
        if st.shared.native_depth != (*co).entry_depth || (*co).ctx.c_calls != 0 {
            return Err(BOUNDARY);
        }
        (*co).yield_base = base;
        (*co).yield_count = count;
        (*co).saved_top = base.add(count);
        (*co).ctx.interp.status = STATUS_YIELD;
    }
    Ok(())
}
