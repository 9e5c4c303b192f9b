//! Coroutines: creating, resuming and yielding threads (5.1's `lua_newthread`, `lua_resume`,
//! `lua_yield`). A coroutine is a thread object (`object::thread`) with its own stack and
//! interpreter context.
//!
//! Lua calls never grow the native stack (they are tail calls between handlers), so a coroutine
//! needs no native stack of its own. Two ways switch to one:
//!
//! - In place (the usual one): `coroutine.resume` and `coroutine.yield` are library functions
//!   in generated code (`lua_lib_coroutine_*` in the semantics). `resume` calls a new
//!   coroutine's function on the coroutine's stack with the coroutine's context
//!   (`make_call_in`), or returns from its suspended `yield` there (`return_in`); `yield`
//!   returns to `resume`'s continuation on the resumer's context. The coroutine's bottom frame
//!   returns to that continuation, with `resume`'s frame as its caller: frame walks stop there
//!   (`frames::Frame::ends_coroutine`), and an error thrown inside unwinds to `resume`'s catch.
//!   The helpers here (`lua_rt_coroutine_*`) do the bookkeeping in between.
//! - Natively, while debug hooks are on (library functions then run their native twins, which
//!   report the hooks' events): `resume` enters the interpreter on the coroutine's context and
//!   `yield` leaves it with a yield status; `resume` goes on when the interpreter returns.
//!
//! A coroutine may switch one way and come back the other: each resume points its bottom frame
//! at its own way back, and a native `yield` in a coroutine resumed in place goes to the
//! `resume`'s catch. Yielding across a nested native entry (`pcall`, a metamethod called by the
//! library) is refused with Lua 5.1's message.

use deegen_api::{FRAME_HEADER_SLOTS, STATUS_ERROR, STATUS_OK};
use lua51_value::{LuaContext, RtSwitch, TValue};

use crate::interp::{__deegen_interp_enter, __deegen_interp_exit, __deegen_interp_resume, STATUS_YIELD};
use crate::object::function::close_upvalues;
use crate::object::heap::OutOfMemory;
use crate::object::thread::{CoStatus, Thread};
use crate::state::{state_of, HandlerState, LuaState, Protected, MAX_NATIVE_DEPTH};

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

/// Why `co` cannot be resumed now (5.1's messages), if it cannot.
///
/// # Safety
/// `co` is a live thread of `st`.
unsafe fn refusal(st: *mut LuaState, co: *mut Thread) -> Option<&'static str> {
    unsafe {
        match (*co).status {
            CoStatus::Dead => return Some("cannot resume dead coroutine"),
            CoStatus::Running => return Some("cannot resume running coroutine"),
            CoStatus::Normal => return Some("cannot resume normal coroutine"),
            CoStatus::Suspended => {}
        }
        // Every resume nests an interpreter entry, like 5.1's nCcalls (whose check in
        // `lua_resume`, unlike `luaD_call`'s, comes before the increment).
        ((*st).shared.native_depth >= MAX_NATIVE_DEPTH).then_some("C stack overflow")
    }
}

/// Parks the running thread (its live top is `top`) and makes `co` the running one, counted as
/// a nested entry. `in_place`: a generated `resume` does it, and the coroutine switches back
/// in place.
///
/// Raw accesses throughout: the coroutine and the state change while the coroutine runs.
///
/// # Safety
/// `co_value` is a suspended coroutine of `st`.
unsafe fn switch_in(st: *mut LuaState, co_value: TValue, top: *mut u64, in_place: bool) {
    let co: *mut Thread = co_value.as_ptr();
    unsafe {
        let prev_thread = (*st).current_thread;
        if prev_thread.is_nil() {
            (*st).main_saved_top = top;
        } else {
            let t: *mut Thread = prev_thread.as_ptr();
            (*t).saved_top = top;
            (*t).status = CoStatus::Normal;
        }
        (*co).resumer = prev_thread;
        (*co).resumer_ctx = (*st).current;
        (*co).resumed_in_place = in_place;
        (*co).resumer_globals = (*st).globals;
        (*st).globals = (*co).env;
        (*st).current = std::ptr::addr_of_mut!((*co).ctx);
        (*st).current_thread = co_value;
        (*co).status = CoStatus::Running;
        (*co).entry_depth = (*st).shared.native_depth + 1;
        (*st).shared.native_depth += 1;
        (*co).ctx.interp.status = STATUS_OK;
    }
}

/// `co` stopped running (`status`: yielded, returned, or died): its resumer runs again. A
/// dead coroutine's upvalues are closed while its stack still holds their values (an error
/// leaves them open; the stack is no longer scanned; 5.1 keeps them open until it frees the
/// coroutine, which shows the same values), and one killed by an error keeps the frames it
/// died in, for tracebacks and `debug.getinfo` (5.1 keeps the dead thread's stack): live up to
/// `error_base`. Returns the resumer's context.
///
/// # Safety
/// `co` is the running coroutine of `st`.
unsafe fn switch_out(st: *mut LuaState, co: *mut Thread, status: CoStatus, error_base: *mut u64) -> *mut LuaContext {
    unsafe {
        (*st).shared.native_depth -= 1;
        (*co).env = (*st).globals;
        (*st).globals = std::mem::replace(&mut (*co).resumer_globals, TValue::NIL);
        let resumer_ctx = (*co).resumer_ctx;
        let prev_thread = std::mem::replace(&mut (*co).resumer, TValue::NIL);
        (*co).resumer_ctx = std::ptr::null_mut();
        (*st).current = resumer_ctx;
        (*st).current_thread = prev_thread;
        if !prev_thread.is_nil() {
            (*prev_thread.as_ptr::<Thread>()).status = CoStatus::Running;
        }
        (*co).status = status;
        if status == CoStatus::Dead {
            let ctx = std::ptr::addr_of_mut!((*co).ctx);
            (*co).saved_top = (*co).stack.as_mut_ptr();
            close_upvalues(ctx, (*co).saved_top);
            if !error_base.is_null() {
                (*co).error_frame = error_base;
                (*co).saved_top = error_base;
            }
        }
        resumer_ctx
    }
}

/// The coroutine's outermost frame (its function's, whose header links it to its resumer).
fn bottom_frame(co: *mut Thread) -> *mut u64 {
    unsafe { (*co).stack.as_mut_ptr().add(FRAME_HEADER_SLOTS) }
}

/// Room on `co`'s stack for the `n` arguments of a resume, where they land: its bottom frame
/// (not started) or where it yielded. Claimed, since they lie above what its entries recorded
/// (`InterpContext::claim_stack`); false when they do not fit.
///
/// # Safety
/// `co` is a live coroutine that is not running.
unsafe fn claim_arguments(co: *mut Thread, n: usize) -> bool {
    unsafe {
        let landing = if (*co).started { (*co).yield_base } else { bottom_frame(co) };
        (*co).ctx.interp.claim_stack(landing.add(n))
    }
}

/// Points the bottom frame of a started coroutine at its resumer: the frame of a generated
/// `resume` (`caller`, returning to `continuation`), or native code (null, the interpreter's
/// exit). The tail calls counted in the caller slot stay.
///
/// # Safety
/// `co` has started.
unsafe fn link_bottom(co: *mut Thread, caller: *mut u64, continuation: *const ()) {
    let bottom = bottom_frame(co);
    unsafe {
        let slot = bottom.offset(deegen_api::frame::CALLER_BASE as isize);
        *slot = (*slot & !deegen_api::frame::CALLER_BASE_MASK) | caller as u64;
        *bottom.offset(deegen_api::frame::RETURN_CONTINUATION as isize) = continuation as u64;
    }
}

/// Resumes `co` with `args` from native code (a native `resume`, or `wrap`); `top` is the
/// resumer's live top. The coroutine runs in a nested interpreter entry until it yields,
/// returns or fails.
///
/// # Safety
/// `st` is a live state and `co_value` one of its coroutines.
pub unsafe fn resume(st: *mut LuaState, co_value: TValue, args: &[TValue], top: *mut u64) -> Result<ResumeOutcome, &'static str> {
    let co: *mut Thread = co_value.as_ptr();
    unsafe {
        if let Some(message) = refusal(st, co) {
            return Err(message);
        }
        let ctx: *mut LuaContext = std::ptr::addr_of_mut!((*co).ctx);
        if !claim_arguments(co, args.len()) {
            return Err("too many arguments to resume");
        }
        switch_in(st, co_value, top, false);
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
            // A generated `resume` may have run it last: its function returns to the exit now.
            link_bottom(co, std::ptr::null_mut(), __deegen_interp_exit as *const ());
            let base = (*co).yield_base;
            for (i, a) in args.iter().enumerate() {
                *base.add(i) = a.raw();
            }
            __deegen_interp_resume(std::ptr::addr_of_mut!((*ctx).interp), base, base, args.len() as u64);
        }
        (*st).protected.pop();
        let status = std::ptr::read_volatile(std::ptr::addr_of!((*ctx).interp.status));
        let error_base = if status == STATUS_ERROR { (*ctx).interp.error_base } else { std::ptr::null_mut() };
        let co_status = if status == STATUS_YIELD { CoStatus::Suspended } else { CoStatus::Dead };
        switch_out(st, co, co_status, error_base);
        Ok(match status {
            STATUS_YIELD => ResumeOutcome::Values(values_from(st, (*co).yield_base, (*co).yield_count)),
            STATUS_ERROR => ResumeOutcome::Error(TValue((*ctx).interp.error)),
            _ => ResumeOutcome::Values(values_from(st, (*ctx).interp.ret_ptr, (*ctx).interp.ret_count as usize)),
        })
    }
}

/// `co`, resumed in place, stops (see [`switch_out`]): its resumer goes on with `values`
/// (`count` of them; null values: the error in `count`), returned into the coroutine's bottom
/// frame, whose continuation runs on the resumer's context in the `resume`'s frame.
///
/// # Safety
/// As [`switch_out`].
unsafe fn back_to_resumer(st: *mut LuaState, co: *mut Thread, status: CoStatus, error_base: *mut u64, values: *mut u64, count: u64) -> RtSwitch {
    let resumer = unsafe { switch_out(st, co, status, error_base) };
    RtSwitch { ctx: resumer, frame: bottom_frame(co), values, count }
}

/// The thread whose context is `ctx` (a coroutine's, not the main thread's).
fn thread_of(ctx: *mut LuaContext) -> *mut Thread {
    unsafe { (ctx as *mut u8).sub(lua51_value::THREAD_CONTEXT_OFFSET) as *mut Thread }
}

#[no_mangle]
pub unsafe extern "C" fn lua_rt_coroutine_resume(ctx: *mut LuaContext, co: u64, args: *mut u64, count: u64, wrapped: u64) -> RtSwitch {
    let st: *mut LuaState = unsafe { state_of(ctx) };
    let co_value = TValue(co);
    if !co_value.is_kind(lua51_value::ObjKind::Thread) {
        return RtSwitch::TWIN;
    }
    let co: *mut Thread = co_value.as_ptr();
    let n = count as usize;
    unsafe {
        // Refusals are the twin's to answer, as are arguments that would not fit where they go.
        if refusal(st, co).is_some() {
            return RtSwitch::TWIN;
        }
        let co_ctx = std::ptr::addr_of_mut!((*co).ctx);
        if !claim_arguments(co, n) {
            return RtSwitch::TWIN;
        }
        switch_in(st, co_value, args.add(n), true);
        if !(*co).started {
            return start_in_place(co, args, count);
        }
        // The frame of the `resume` (whose arguments follow the coroutine) or of the function
        // `wrap` made (whose arguments are its own).
        let caller = if wrapped != 0 { args } else { args.sub(1) };
        link_bottom(co, caller, crate::interp::coroutine_return_continuation(wrapped != 0));
        RtSwitch { ctx: co_ctx, frame: (*co).yield_base, values: args, count }
    }
}

/// A coroutine's first resume in place: its function's frame at the bottom of its stack, the
/// `count` arguments from `args` in it (`make_call_in` writes the header). Once per coroutine,
/// and out of line: its `memcpy` made every resume save and restore two more registers.
///
/// # Safety
/// `co` was just switched in, not started; its stack has room for the arguments.
#[cold]
#[inline(never)]
unsafe fn start_in_place(co: *mut Thread, args: *mut u64, count: u64) -> RtSwitch {
    unsafe {
        (*co).started = true;
        let frame = (*co).stack.as_mut_ptr();
        *frame = (*co).func.raw();
        std::ptr::copy_nonoverlapping(args, bottom_frame(co), count as usize);
        RtSwitch { ctx: std::ptr::addr_of_mut!((*co).ctx), frame, values: std::ptr::null_mut(), count }
    }
}

#[no_mangle]
pub unsafe extern "C" fn lua_rt_coroutine_yield(ctx: *mut LuaContext, base: *mut u64, num_args: u64) -> RtSwitch {
    let st: *mut LuaState = unsafe { state_of(ctx) };
    unsafe {
        let current = (*st).current_thread;
        if current.is_nil() {
            return RtSwitch::TWIN;
        }
        let co: *mut Thread = current.as_ptr();
        if !(*co).resumed_in_place || (*st).shared.native_depth != (*co).entry_depth || (*co).ctx.c_calls != 0 {
            return RtSwitch::TWIN;
        }
        let count = num_args as usize;
        (*co).yield_base = base;
        (*co).yield_count = count;
        (*co).saved_top = base.add(count);
        back_to_resumer(st, co, CoStatus::Suspended, std::ptr::null_mut(), base, num_args)
    }
}

#[no_mangle]
pub unsafe extern "C" fn lua_rt_coroutine_returned(ctx: *mut LuaContext, values: *mut u64, count: u64) -> RtSwitch {
    let st: *mut LuaState = unsafe { state_of(ctx) };
    let co = thread_of(ctx);
    unsafe { back_to_resumer(st, co, CoStatus::Dead, std::ptr::null_mut(), values, count) }
}

#[no_mangle]
pub unsafe extern "C" fn lua_rt_coroutine_caught(ctx: *mut LuaContext) -> RtSwitch {
    let st: *mut LuaState = unsafe { state_of(ctx) };
    let co = thread_of(ctx);
    unsafe {
        if (*ctx).interp.status == STATUS_YIELD {
            // A native `yield` recorded its values and left through the throw.
            return back_to_resumer(st, co, CoStatus::Suspended, std::ptr::null_mut(), (*co).yield_base, (*co).yield_count as u64);
        }
        let error = (*ctx).interp.error;
        back_to_resumer(st, co, CoStatus::Dead, (*ctx).interp.error_base, std::ptr::null_mut(), error)
    }
}

#[no_mangle]
pub unsafe extern "C" fn lua_rt_wrapped_error(ctx: *mut LuaContext, base: *mut u64, error: u64) -> u64 {
    let st = unsafe { state_of(ctx) };
    let e = TValue(error);
    if !e.is_string() {
        return error;
    }
    let mut text = st.where_(base, 1).into_bytes();
    text.extend_from_slice(crate::object::string::string_bytes(e));
    st.intern(&text).map_or(error, TValue::raw)
}

#[no_mangle]
pub unsafe extern "C" fn lua_rt_coroutine_create(ctx: *mut LuaContext, base: *mut u64, num_args: u64) -> u64 {
    let st = unsafe { state_of(ctx) };
    let f = if num_args == 0 { TValue::NIL } else { TValue(unsafe { *base }) };
    if !f.is_function() || crate::object::function::is_native(unsafe { (*f.as_closure()).code_block }) {
        return 0;
    }
    // The function is an argument: live across the collection.
    crate::gc::check(st, unsafe { base.add(num_args as usize) });
    new_thread(st, f).map_or(0, TValue::raw)
}

/// Where a `yield` thrown by the native twin (debug hooks on) goes when a generated `resume`
/// runs the coroutine: to that `resume`'s catch, in its frame (the coroutine's bottom frame's
/// caller). None when a native `resume` waits for the interpreter to leave.
pub(crate) fn yield_catch(st: &LuaState) -> Option<(*const (), *mut u64)> {
    if st.current_thread.is_nil() {
        return None;
    }
    let co: *mut Thread = st.current_thread.as_ptr();
    unsafe {
        if !(*co).resumed_in_place {
            return None;
        }
        let bottom = bottom_frame(co);
        let caller = deegen_api::frame::caller_base(*bottom.offset(deegen_api::frame::CALLER_BASE as isize));
        let continuation = *bottom.offset(deegen_api::frame::RETURN_CONTINUATION as isize) as *const ();
        let handler = crate::interp::catch_handler(continuation)?;
        Some((handler, caller))
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
