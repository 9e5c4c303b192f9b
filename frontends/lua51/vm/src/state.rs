//! One Lua state: the interpreter context (first, so the generated code and the runtime share
//! one pointer), the VM stack, the heap and the globals; and the door into the generated
//! interpreter.

use std::io::Write;

use deegen_api::{frame, InterpContext, FRAME_HEADER_SLOTS, STATUS_ERROR, STATUS_OK};
use lua51_value::{LuaContext, TValue};

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
const STACK_RESERVE: usize = 256;

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

/// A Lua state. Always boxed: the generated code holds a pointer to its context.
#[repr(C)]
pub struct LuaState {
    pub ctx: LuaContext,
    stack: Box<[u64]>,
    pub heap: Heap,
    pub globals: TValue,
    pub(crate) pending: Option<PendingError>,
    /// Reused buffer for building strings (concatenation).
    pub(crate) scratch: Vec<u8>,
    pub stdout: std::io::BufWriter<std::io::Stdout>,
}

impl std::fmt::Debug for LuaState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LuaState").finish_non_exhaustive()
    }
}

impl LuaState {
    pub fn new() -> Result<Box<LuaState>, OutOfMemory> {
        let mut heap = Heap::default();
        let globals = Table::new_in(&mut heap)?;
        let mut stack = vec![0u64; STACK_SLOTS].into_boxed_slice();
        let stack_limit = unsafe { stack.as_mut_ptr().add(STACK_SLOTS - STACK_RESERVE) };
        let mut st = Box::new(LuaState {
            ctx: LuaContext {
                interp: InterpContext {
                    stack_limit,
                    ret_ptr: std::ptr::null_mut(),
                    ret_count: 0,
                    error: 0,
                    error_base: std::ptr::null_mut(),
                    error_pc: std::ptr::null(),
                    status: STATUS_OK,
                },
                open_upvalues: std::ptr::null_mut(),
                var_results: 0,
                runtime: std::ptr::null_mut(),
            },
            stack,
            heap,
            globals,
            pending: None,
            scratch: Vec::new(),
            stdout: std::io::BufWriter::new(std::io::stdout()),
        });
        st.ctx.runtime = &mut *st as *mut LuaState as *mut ();
        crate::stdlib::open_base(&mut st)?;
        Ok(st)
    }

    pub fn intern(&mut self, bytes: &[u8]) -> Result<TValue, OutOfMemory> {
        self.heap.intern(bytes)
    }

    pub fn set_global(&mut self, name: &str, value: TValue) -> Result<(), OutOfMemory> {
        let key = self.intern(name.as_bytes())?;
        table_mut(self.globals).set(key, value).expect("a string key is valid");
        Ok(())
    }

    /// Calls `f` with `args` from native code and returns its results.
    pub fn call(&mut self, f: TValue, args: &[TValue]) -> Result<Vec<TValue>, LuaError> {
        let base_index = FRAME_HEADER_SLOTS;
        let stack = self.stack.as_mut_ptr();
        unsafe {
            let base = stack.add(base_index);
            *base.offset(frame::CALLEE as isize) = f.raw();
            *base.offset(frame::CALLER_BASE as isize) = 0;
            *base.offset(frame::RETURN_CONTINUATION as isize) = __deegen_interp_exit as *const () as u64;
            *base.offset(frame::CALLER_PC as isize) = 0;
            for (i, a) in args.iter().enumerate() {
                *base.add(i) = a.raw();
            }
            if !f.is_function() {
                let msg = format!("attempt to call a {} value", crate::runtime::type_name(f));
                return Err(LuaError { value: self.intern(msg.as_bytes()).unwrap_or(TValue::NIL) });
            }
            self.ctx.interp.status = STATUS_OK;
            __deegen_interp_enter(&mut self.ctx.interp, base, args.len() as u64);
            if self.ctx.interp.status == STATUS_ERROR {
                return Err(LuaError { value: TValue(self.ctx.interp.error) });
            }
            let p = self.ctx.interp.ret_ptr;
            Ok((0..self.ctx.interp.ret_count as usize).map(|i| TValue(*p.add(i))).collect())
        }
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

    pub fn flush(&mut self) {
        let _ = self.stdout.flush();
    }
}

/// The state behind a context pointer handed to a runtime helper.
///
/// # Safety
/// `ctx` must be the context of a live, boxed [`LuaState`].
pub unsafe fn state_of<'a>(ctx: *mut LuaContext) -> &'a mut LuaState {
    unsafe { &mut *(ctx as *mut LuaState) }
}
