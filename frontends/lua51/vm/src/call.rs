//! Calls from native code into the interpreter (5.1's `luaD_call`): a nested interpreter entry
//! for a callee in a frame above every live one, resolving `__call`, within 5.1's limits on
//! nested native calls and on the stack.

use deegen_api::{frame, FRAME_HEADER_SLOTS, STATUS_OK};
use lua51_value::{type_name, TValue};

use crate::interp::{__deegen_interp_enter, __deegen_interp_exit};
use crate::metamethod::metamethod;
use crate::object::function::close_upvalues;
use crate::state::{Event, LuaError, LuaState, MAX_NATIVE_DEPTH};

impl LuaState {
    /// Calls `f` with `args` from the top level (the bottom of the stack) and returns its
    /// results.
    pub fn call(&mut self, f: TValue, args: &[TValue]) -> Result<Vec<TValue>, LuaError> {
        let frame = self.main_stack().0;
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
    pub unsafe fn call_from(
        st: *mut LuaState,
        frame: *mut u64,
        num_args: usize,
        caller: *mut u64,
        caller_pc: *const u8,
    ) -> Result<(*mut u64, usize), LuaError> {
        unsafe {
            let ctx = (*st).current;
            let base = frame.add(FRAME_HEADER_SLOTS);
            let error = |st: *mut LuaState, msg: &str| LuaError { value: (*st).intern(msg.as_bytes()).unwrap_or(TValue::NIL) };
            if (*st).shared.native_depth + 1 >= MAX_NATIVE_DEPTH + (*st).depth_allowance {
                return Err(error(st, "C stack overflow"));
            }
            if base.add(num_args) >= (*ctx).interp.stack_limit {
                return Err(error(st, "stack overflow"));
            }
            // The arguments may reach above the callee's frame (its entry records only that).
            (*ctx).interp.claim_stack(base.add(num_args));
            *base.offset(frame::CALLER_BASE as isize) = caller as u64;
            *base.offset(frame::RETURN_CONTINUATION as isize) = __deegen_interp_exit as *const () as u64;
            *base.offset(frame::CALLER_PC as isize) = caller_pc as u64;
            let mut num_args = num_args;
            let mut f = TValue(*frame);
            if !f.is_function() {
                let tm = metamethod(&*st, f, Event::Call);
                if !tm.is_function() {
                    let msg = format!("attempt to call a {} value", type_name(f));
                    return Err(error(st, &msg));
                }
                std::ptr::copy(base, base.add(1), num_args);
                *base = f.raw();
                num_args += 1;
                f = tm;
            }
            *base.offset(frame::CALLEE as isize) = f.raw();
            (*st).shared.native_depth += 1;
            let saved_var_results = (*ctx).var_results;
            // An error unwinds past the continuations that would uncount metamethod calls.
            let saved_c_calls = (*ctx).c_calls;
            (*ctx).interp.status = STATUS_OK;
            __deegen_interp_enter(std::ptr::addr_of_mut!((*ctx).interp), base, num_args as u64);
            (*st).shared.native_depth -= 1;
            (*ctx).var_results = saved_var_results;
            (*ctx).c_calls = saved_c_calls;
            if (*ctx).interp.status != STATUS_OK {
                // An error (a yield cannot cross this entry: `yield` refuses it).
                (*ctx).interp.status = STATUS_OK;
                // Frames above `frame` are gone: close their upvalues.
                close_upvalues(ctx, frame);
                return Err(LuaError { value: TValue((*ctx).interp.error) });
            }
            Ok(((*ctx).interp.ret_ptr, (*ctx).interp.ret_count as usize))
        }
    }
}
