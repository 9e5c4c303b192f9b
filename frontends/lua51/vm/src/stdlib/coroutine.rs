//! The coroutine library (5.1's `lbaselib` coroutine functions): creating, resuming, yielding,
//! `wrap`. The machinery is `coroutine` (the runtime module).

use deegen_api::frame;
use lua51_value::TValue;

use crate::coroutine::{new_thread, resume, yield_from, ResumeOutcome};
use crate::native::{native, new_library, Call, Native, Raised};
use crate::object::function::is_native;
use crate::object::heap::OutOfMemory;
use crate::object::string::string_bytes;
use crate::object::thread::{status_index, thread_mut};
use crate::state::LuaState;

fn check_thread(c: &mut Call, i: usize) -> Result<TValue, Raised> {
    let v = c.arg(i);
    if v.is_kind(lua51_value::ObjKind::Thread) {
        Ok(v)
    } else {
        // 5.1's luaL_argcheck: no "got ..." part.
        Err(c.arg_error(i, "coroutine expected"))
    }
}

native!(CREATE, "create", generated crate::interp::__deegen_lib_coroutine_create, |c| {
    let f = c.arg(0);
    if !f.is_function() || is_native(unsafe { (*f.as_closure()).code_block }) {
        return Err(c.arg_error(0, "Lua function expected"));
    }
    let t = match new_thread(c.st, f) {
        Ok(t) => t,
        Err(OutOfMemory) => return Err(c.raise_oom()),
    };
    c.set(0, t);
    Ok(1)
});

/// Resumes and stores `true, values...` or `false, error` from slot 0.
fn resume_into(c: &mut Call, co: TValue, args: &[TValue]) -> Result<Result<usize, TValue>, Raised> {
    let top = unsafe { c.base.add(c.nargs) };
    let st: *mut LuaState = &mut *c.st;
    match unsafe { resume(st, co, args, top) } {
        Err(msg) => {
            let m = c.string(msg.as_bytes())?;
            Ok(Err(m))
        }
        Ok(ResumeOutcome::Error(e)) => Ok(Err(e)),
        Ok(ResumeOutcome::Values(values)) => {
            let n = c.return_values(1, &values)? - 1;
            // Hand the allocation back for the next resume, unless one huge result made it big.
            if values.capacity() <= 256 {
                c.st.resume_values = values;
            }
            Ok(Ok(n))
        }
    }
}

/// The arguments `first..nargs` of a native call, in place on the stack (no copy).
///
/// # Safety
/// The slice is only valid while nothing writes those slots: `resume` copies the arguments to
/// the coroutine's stack before it runs anything.
unsafe fn args_from(c: &Call, first: usize) -> &'static [TValue] {
    let n = c.nargs.saturating_sub(first);
    // SAFETY: the native's arguments are `n` initialised slots after `first`; TValue is a
    // transparent u64.
    unsafe { std::slice::from_raw_parts(c.base.add(first) as *const TValue, n) }
}

native!(RESUME, "resume", generated crate::interp::__deegen_lib_coroutine_resume, |c| {
    let co = check_thread(c, 0)?;
    // SAFETY: used only by `resume`, which copies them first.
    let args = unsafe { args_from(c, 1) };
    match resume_into(c, co, args)? {
        Ok(n) => {
            c.set(0, TValue::TRUE);
            Ok(n + 1)
        }
        Err(e) => {
            c.set(0, TValue::FALSE);
            c.set(1, e);
            Ok(2)
        }
    }
});

native!(YIELD, "yield", generated crate::interp::__deegen_lib_coroutine_yield, |c| {
    let (base, n) = (c.base, c.nargs);
    match yield_from(c.st, base, n) {
        Ok(()) => Err(Raised),
        // Raised inside the C function in 5.1: no position.
        Err(msg) => {
            let m = c.string(msg.as_bytes())?;
            Err(c.raise(m))
        }
    }
});

native!(STATUS, "status", generated crate::interp::__deegen_lib_coroutine_status, |c| {
    let co = check_thread(c, 0)?;
    let s = c.st.shared.status_names[status_index(thread_mut(co))];
    c.set(0, s);
    Ok(1)
});

native!(RUNNING, "running", generated crate::interp::__deegen_lib_coroutine_running, |c| {
    let t = c.st.current_thread;
    c.set(0, t);
    Ok(1)
});

native!(WRAPPED, "wrap", generated crate::interp::__deegen_lib_coroutine_wrapped, |c| {
    let me = TValue(unsafe { *c.base.offset(frame::CALLEE as isize) });
    let co = TValue(unsafe { (*(*me.as_closure()).upvalue(0)).closed });
    // SAFETY: as in `resume`.
    let args = unsafe { args_from(c, 0) };
    match resume_into(c, co, args)? {
        Ok(n) => {
            unsafe { std::ptr::copy(c.base.add(1), c.base, n) };
            Ok(n)
        }
        Err(e) => {
            // Like lua5.1's auxwrap: a string error gets the caller's position.
            if e.is_string() {
                let mut text = c.where_(1).into_bytes();
                text.extend_from_slice(string_bytes(e));
                let s = c.string(&text)?;
                return Err(c.raise(s));
            }
            Err(c.raise(e))
        }
    }
});

native!(WRAP, "wrap", |c| {
    let f = c.arg(0);
    if !f.is_function() || is_native(unsafe { (*f.as_closure()).code_block }) {
        return Err(c.arg_error(0, "Lua function expected"));
    }
    let made = new_thread(c.st, f).and_then(|t| WRAPPED.closure(c.st, &[t]));
    match made {
        Ok(w) => {
            c.set(0, w);
            Ok(1)
        }
        Err(OutOfMemory) => Err(c.raise_oom()),
    }
});

/// The coroutine library's functions, by their Lua names.
pub(crate) const FUNCTIONS: &[Native] = &[CREATE, RESUME, YIELD, STATUS, RUNNING, WRAP];

/// Opens the coroutine library (the global `coroutine`), and returns it.
pub fn open(st: &mut LuaState) -> Result<TValue, OutOfMemory> {
    new_library(st, "coroutine", FUNCTIONS)
}
