//! The Deegen-style API that bytecode semantics are written against, and the ABI shared by the
//! generated tiers and the language runtime.
//!
//! Semantics live in a `#![no_std]` crate compiled to LLVM bitcode. Each API function here is a
//! thin `#[inline(always)]` wrapper around an external *marker* symbol (`__deegen_api_*`) that is
//! never defined anywhere: the generator's passes find the marker calls in the bitcode and lower
//! them, differently for each tier. A marker surviving to link time is a generator bug, and the
//! link fails loudly.
//!
//! Runtime helpers are ordinary `extern "C"` functions that the semantics crate declares and the
//! language runtime defines; the generated handlers call them like any C function (the pinned VM
//! state lives in callee-saved registers, so such calls cost no spills of it).
//!
//! # Frames
//!
//! ```text
//!   [varargs] | callee | caller base | return continuation | caller pc | #varargs | arg0 arg1 ...
//!               base-5   base-4        base-3                base-2      base-1     base (slot 0)
//! ```
//! A call is made *in place*: the caller puts the callee in slot `f` and the arguments from slot
//! `f + FRAME_HEADER_SLOTS`; the callee's frame base is `f + FRAME_HEADER_SLOTS`, so arguments are
//! never copied. Returning tail-calls the return continuation stored in the header. A proper
//! tail call keeps the header and counts, in the top 16 bits of the caller-base slot, the
//! frames it made disappear (Lua 5.1's `(tail call)` levels); whoever reads that slot masks them
//! off ([`frame::caller_base`]). A function
//! taking variable arguments is entered through a thunk that moves the header and the fixed
//! parameters above the extra arguments, which stay right below the header (their number in
//! the `#varargs` slot; every other entry zeroes that slot, so a collector scanning the stack
//! never finds a stale value in it).
//!
//! # Library functions
//!
//! A language may write some of its library functions (Lua's `pcall`) in the semantics too
//! (`deegen_bytecode_spec::LibFunctionSpec`): the body runs in the function's own frame
//! ([`stack_base`], arguments from slot 0, their number as its parameter) and ends in
//! [`return_from_function`], a throw, or [`make_call`] with a continuation (which takes no
//! parameters). Its function values' code blocks enter it at `__deegen_lib_<name>`
//! ([`symbols::LIBRARY_PREFIX`]), so calling it is a call into generated code with no native
//! frame. One that catches errors names a catch function, run in its frame when an error thrown
//! inside one of its calls unwinds to it ([`InterpContext::catch_entry`]).
//!
//! # Language hooks
//!
//! The semantics crate must also define these `#[no_mangle]` functions, which the generator
//! inlines into the code it writes around the semantics:
//! * `deegen_hook_code_block(callee: u64) -> *const CodeBlock` — the code block of a callable value;
//!   the generator finds the callee in the frame header (`frame::CALLEE`);
//! * `deegen_hook_nil() -> u64` — the boxed value that fills missing arguments;
//! * `deegen_hook_stack_overflow(ctx: *mut InterpContext, base: *mut u64) -> u64` — the error
//!   value for the frame at `base` that does not fit (it is thrown in the caller's frame, but a
//!   library function that catches errors, such as Lua's `pcall`, catches it: `base` tells the
//!   runtime where the failed call was);
//! * `deegen_hook_on_throw(ctx, base, pc, value, add_position: u64) -> u64` — records an error being
//!   thrown and returns the value to propagate (adds the source position when asked to). To
//!   catch it in generated code, it sets [`InterpContext::catch_entry`] and
//!   [`InterpContext::catch_base`] to a library function's catch handler and that function's
//!   frame (see [`symbols::LIBRARY_CATCH_TABLE`]); otherwise the error leaves the interpreter;
//! * optionally `deegen_hook_tier_up(ctx, cb: *mut CodeBlock, pc: *const u8) -> *const ()` —
//!   called when a function's hotness countdown runs out (a language without it gets no
//!   hotness counting and no JIT entry thunks); `pc` is the instruction the interpreter goes
//!   on with (a backward branch's target) or null (at a return). A non-null answer is JIT
//!   code to continue at instead of `pc`, with the same frame (OSR entry): the tiers share
//!   the frame layout, so entering compiled code mid-function needs no translation.
//! * optionally `deegen_hook_instruction(ctx, base, pc, cb, entry: u64) -> u64` — the debugger's
//!   hook: while the runtime has the hook thunks installed in the dispatch tables
//!   ([`symbols::DISPATCH_TABLE`], [`symbols::ENTRY_DISPATCH_TABLE`]), it runs before every
//!   instruction (`entry` is 1 for the first instruction of a call), and a non-zero result
//!   throws the error value in the context. Without hooks installed it costs nothing: the
//!   tables hold the handlers themselves. A language without it gets read-only tables.
#![no_std]
// The API passes raw pointers through to markers that never dereference them here.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

/// Slots taken by the frame header below a frame's base.
pub const FRAME_HEADER_SLOTS: usize = 5;

/// Offsets of the header slots from a frame's base, in slots.
pub mod ic;

pub mod frame {
    pub const CALLEE: i64 = -5;
    pub const CALLER_BASE: i64 = -4;
    pub const RETURN_CONTINUATION: i64 = -3;
    pub const CALLER_PC: i64 = -2;
    /// Valid only in functions taking variable arguments (zero in the others).
    pub const NUM_VARARGS: i64 = -1;

    /// The caller-base slot holds the caller's frame base in its low 48 bits (every user-space
    /// address on x86-64 fits) and, above them, how many frames proper tail calls replaced
    /// between this frame and its caller (saturating).
    pub const TAIL_CALLS_SHIFT: u32 = 48;
    pub const CALLER_BASE_MASK: u64 = (1 << TAIL_CALLS_SHIFT) - 1;
    pub const MAX_TAIL_CALLS: u64 = u64::MAX >> TAIL_CALLS_SHIFT;

    /// The caller's frame base, from the raw caller-base slot.
    #[inline(always)]
    pub fn caller_base(slot: u64) -> *mut u64 {
        (slot & CALLER_BASE_MASK) as *mut u64
    }

    /// How many frames tail calls replaced below this one, from the raw caller-base slot.
    #[inline(always)]
    pub fn tail_calls(slot: u64) -> u64 {
        slot >> TAIL_CALLS_SHIFT
    }
}

/// Code-block of one guest function, shared by every tier.
///
/// Constant `i` of the function lives at `(cb as *const u64).sub(1 + i)`: constants are allocated
/// right below the code block, so a handler reaches one with a single load off the pinned
/// code-block register.
#[repr(C)]
#[derive(Debug)]
pub struct CodeBlock {
    /// Generated entry point (`__deegen_interp_entry_lua` or `__deegen_interp_entry_native`).
    pub entry: *const (),
    /// First instruction.
    pub bytecode: *const u8,
    /// Parameters that are filled with nil when the caller passes fewer.
    pub num_fixed_params: u32,
    /// Stack slots the function's frame needs above its base.
    pub frame_slots: u32,
    /// For native functions: `extern "C" fn(ctx, base, nargs) -> i64` returning the number of
    /// results (stored from `base`), or a negative number after setting `InterpContext::error`.
    pub native: *const (),
    /// The language's own data about the function (prototype, debug info).
    pub owner: *const (),
    /// Hotness countdown for tiering up: the interpreter decrements it on every taken
    /// backward branch and every entry (a call or a tail call), and calls the language's
    /// tier-up hook when it goes negative.
    pub hotness: i64,
    /// Baseline JIT code of the first instruction, once the function is compiled (null
    /// before). The JIT entry thunks ([`symbols::JIT_ENTRY_BYTECODE`]) jump here after setting
    /// up the frame, exactly as the interpreter's entry dispatches the first instruction.
    pub jit_code: *const (),
}

/// Per-coroutine state every tier reaches through the pinned context register. A language embeds
/// it as the first field of its own state, so the same pointer serves both.
#[repr(C)]
#[derive(Debug)]
pub struct InterpContext {
    /// One past the last stack slot a frame may use.
    pub stack_limit: *mut u64,
    /// Set by the exit thunk: where the values returned to native code are, and how many.
    pub ret_ptr: *mut u64,
    pub ret_count: u64,
    /// The error value that left the interpreter (valid when `status` is `STATUS_ERROR`).
    pub error: u64,
    /// Frame base and instruction that threw.
    pub error_base: *mut u64,
    pub error_pc: *const u8,
    /// `STATUS_OK`, `STATUS_ERROR` (or a language's own status, such as a coroutine's yield)
    /// after `__deegen_interp_enter` or `__deegen_interp_resume` returns.
    pub status: u64,
    /// The highest frame end any entry thunk has seen, and the highest slot end any code that
    /// writes above its frame claimed ([`InterpContext::claim_stack`]): slots above it were
    /// never written, so a garbage collector clearing stale slots above the live top need not
    /// go further.
    pub stack_high_water: *mut u64,
    /// Where a fast path leaves the live values that do not fit the scratch argument registers
    /// when it tail-calls an outlined slow path (`hot-cold-split`); the slow path reads them
    /// first thing, so nothing else ever sees them.
    pub slow_path_spill: [u64; SLOW_PATH_SPILL_SLOTS],
    /// Set by the language's `on_throw` hook to catch the error in generated code: the throw
    /// thunk clears it and continues at this catch handler of a library function
    /// ([`symbols::LIBRARY_CATCH_TABLE`]) with the frame at [`Self::catch_base`]. Null: the
    /// error leaves the interpreter.
    pub catch_entry: *const (),
    pub catch_base: *mut u64,
}

impl InterpContext {
    /// Room for stack slots up to `end` (exclusive) that the caller is about to write above
    /// its frame (values a call returns for `MULTRET`, `...`'s values, arguments moved into a
    /// new frame, values moved onto another coroutine's stack): false past the limit.
    /// Raises the high-water mark to `end`, so a collector's clearing above the live top
    /// reaches every slot written: an entry thunk records only the frame it enters, and a
    /// stale slot above the mark would be scanned as a live register of a later, larger frame
    /// after the object it names was freed.
    #[inline(always)]
    pub fn claim_stack(&mut self, end: *mut u64) -> bool {
        if end > self.stack_limit {
            return false;
        }
        if end > self.stack_high_water {
            self.stack_high_water = end;
        }
        true
    }
}

/// Size of [`InterpContext::slow_path_spill`].
pub const SLOW_PATH_SPILL_SLOTS: usize = 12;

pub const STATUS_OK: u64 = 0;
pub const STATUS_ERROR: u64 = 1;

pub(crate) mod markers {
    extern "Rust" {
        pub fn __deegen_api_return(value: u64) -> !;
        pub fn __deegen_api_fallthrough() -> !;
        pub fn __deegen_api_take_branch() -> !;
        pub fn __deegen_api_throw(value: u64, add_position: u64) -> !;
        pub fn __deegen_api_context() -> *mut u8;
        pub fn __deegen_api_stack_base() -> *mut u64;
        pub fn __deegen_api_code_block() -> *const super::CodeBlock;
        pub fn __deegen_api_make_call(frame: *mut u64, num_args: u64, continuation: *const ()) -> !;
        pub fn __deegen_api_make_tail_call(frame: *mut u64, num_args: u64) -> !;
        pub fn __deegen_api_return_values_ptr() -> *mut u64;
        pub fn __deegen_api_return_values_count() -> u64;
        pub fn __deegen_api_return_from_function(values: *mut u64, count: u64) -> !;
        pub fn __deegen_api_copy_slots(to: *mut u64, from: *mut u64, count: u64);
        pub fn __deegen_api_make_call_in(ctx: *mut u8, frame: *mut u64, num_args: u64, continuation: *const ()) -> !;
        pub fn __deegen_api_return_in(ctx: *mut u8, base: *mut u64, values: *mut u64, count: u64) -> !;
        pub fn __deegen_api_ic_fused_kind(computed: u32, kinds: u32) -> u32;
        pub fn __deegen_api_ic_quicken(kind: u32, kinds: u32);
        pub fn __deegen_api_ic_entry_key(entry: *mut u32) -> u32;
        pub fn __deegen_api_ic_entry_state(entry: *mut u32) -> u32;
        pub fn __deegen_api_ic_in_stub() -> u32;
        pub fn __deegen_api_ic_next() -> !;
    }
}

/// States that the code after this point is a slow path (an inline-cache miss, a metamethod
/// lookup): `type-hint-slow-paths` marks the edges into it cold and `hot-cold-split` moves it
/// out of the fast path, even where it calls nothing. `std::hint::cold_path` says the same to
/// an optimizing rustc, but the semantics are compiled at opt-level 0, where it leaves no
/// trace in the IR.
#[inline(always)]
pub fn cold_path() {
    __deegen_api_cold_path()
}

/// The marker behind [`cold_path`]. Unlike the other markers it has a native definition, a
/// no-op: code the language's runtime compiles natively may share an inline cache with the
/// semantics (`InlineCache::run` calls it on a miss). Never inlined, so the generator sees the
/// call.
#[no_mangle]
#[inline(never)]
pub fn __deegen_api_cold_path() {}

/// Name of the [`cold_path`] marker.
pub const COLD_PATH_MARKER: &str = "__deegen_api_cold_path";

/// States that the code after this point is a slow path *in JIT code* only: a baseline JIT
/// stencil moves it out of line (as [`cold_path`] does), an interpreter handler keeps it in
/// line. For a path that is worth its bytes in the interpreter, whose handler exists once,
/// but not in the JIT, which copies a stencil for every instruction (the add of a new key
/// along a shape transition; a comparison metamethod's continuations). `type-hint-slow-paths`
/// decides by the kind of function the marker was inlined into.
#[inline(always)]
pub fn jit_cold_path() {
    __deegen_api_jit_cold_path()
}

/// The marker behind [`jit_cold_path`]: a native no-op, as [`__deegen_api_cold_path`].
#[no_mangle]
#[inline(never)]
pub fn __deegen_api_jit_cold_path() {}

/// Name of the [`jit_cold_path`] marker.
pub const JIT_COLD_PATH_MARKER: &str = "__deegen_api_jit_cold_path";

/// States that the code after this point is an *uncommon* path: one that most instructions of
/// this kind never take, but that the instructions that take it take often (a table's hash part
/// probed for a key that is not a string, a method found in a grandparent class), so it must
/// stay as fast as the rest. Unlike [`cold_path`] it is not a slow path: a baseline JIT stencil
/// keeps it in its own code, on the same registers, and only moves it out of the main stream
/// into the instruction's cold part (`baseline-cold-split`), so that the fast paths of
/// neighbouring instructions share cache lines and the path itself costs a jump there and a
/// jump back. An interpreter handler, which exists once, keeps it in line.
#[inline(always)]
pub fn uncommon_path() {
    __deegen_api_uncommon_path()
}

/// The marker behind [`uncommon_path`]: a native no-op, as [`__deegen_api_cold_path`].
#[no_mangle]
#[inline(never)]
pub fn __deegen_api_uncommon_path() {}

/// Name of the [`uncommon_path`] marker.
pub const UNCOMMON_PATH_MARKER: &str = "__deegen_api_uncommon_path";

/// Stores `value` to the bytecode's output slot and continues with the next bytecode.
#[inline(always)]
pub fn ret(value: u64) -> ! {
    unsafe { markers::__deegen_api_return(value) }
}

/// Continues with the next bytecode (bytecodes with no output, or a branch not taken).
#[inline(always)]
pub fn fallthrough() -> ! {
    unsafe { markers::__deegen_api_fallthrough() }
}

/// Continues at the bytecode's branch target.
#[inline(always)]
pub fn take_branch() -> ! {
    unsafe { markers::__deegen_api_take_branch() }
}

/// Throws `value` as it is.
#[inline(always)]
pub fn throw(value: u64) -> ! {
    unsafe { markers::__deegen_api_throw(value, 0) }
}

/// Throws an error message raised by the VM itself: the language hook prefixes the position of
/// the throwing bytecode (Lua's `chunk:line:`).
#[inline(always)]
pub fn throw_runtime_error(message: u64) -> ! {
    unsafe { markers::__deegen_api_throw(message, 1) }
}

/// The pinned per-coroutine context.
#[inline(always)]
pub fn context() -> *mut InterpContext {
    unsafe { markers::__deegen_api_context() as *mut InterpContext }
}

/// The current frame's base (slot 0).
#[inline(always)]
pub fn stack_base() -> *mut u64 {
    unsafe { markers::__deegen_api_stack_base() }
}

/// The current function's code block (for its frame size: calls a bytecode makes on its own,
/// such as metamethod calls, build their frame past `stack_base() + frame_slots`).
#[inline(always)]
pub fn code_block() -> *const CodeBlock {
    unsafe { markers::__deegen_api_code_block() }
}

/// Calls the callee stored at `frame[0]` with `num_args` arguments stored from
/// `frame[FRAME_HEADER_SLOTS]`. Never returns: when the callee returns, `continuation` (a
/// semantic function taking the same operands as the caller's) runs, and reads the results with
/// [`return_values`]. Pass it as `my_continuation as *const ()` directly at the call: the
/// generator makes a handler for each continuation it sees named there, so a continuation
/// chosen at run time (`if c { a } else { b }`) is rejected at build time.
#[inline(always)]
pub fn make_call(frame: *mut u64, num_args: u64, continuation: *const ()) -> ! {
    unsafe { markers::__deegen_api_make_call(frame, num_args, continuation) }
}

/// Proper tail call: replaces the current frame by a call of the callee at `frame[0]` with
/// `num_args` arguments stored from `frame[FRAME_HEADER_SLOTS]`; the callee returns straight to
/// the current function's caller. Never returns.
#[inline(always)]
pub fn make_tail_call(frame: *mut u64, num_args: u64) -> ! {
    unsafe { markers::__deegen_api_make_tail_call(frame, num_args) }
}

/// In a return continuation: the values the callee returned.
#[inline(always)]
pub fn return_values() -> (*mut u64, u64) {
    unsafe { (markers::__deegen_api_return_values_ptr(), markers::__deegen_api_return_values_count()) }
}

/// Returns `count` values stored from `values` to the caller of the current function.
#[inline(always)]
pub fn return_from_function(values: *mut u64, count: u64) -> ! {
    unsafe { markers::__deegen_api_return_from_function(values, count) }
}

/// Copies `count` slots from `from` to `to`, one word at a time upwards: correct where `to`
/// lies below `from` (values moving down a stack) or the ranges do not overlap (arguments
/// moving into a new frame, values moving to another coroutine's stack).
///
/// The generator makes this the loop its own frame moves are (`copy_slots_upwards`): never
/// vectorised, never unrolled for a count known only at run time, never a call of `memmove`;
/// a count the optimizer knows is unrolled in full. A plain loop in the semantics got LLVM's
/// vectorised and four-times-unrolled copy, whose checks cost more than copying the one or
/// two values a call usually moves (`pcall`'s return: 18 instructions for one value).
#[inline(always)]
pub fn copy_slots(to: *mut u64, from: *mut u64, count: u64) {
    unsafe { markers::__deegen_api_copy_slots(to, from, count) }
}

/// [`make_call`] onto another stack: the callee runs with `ctx` as its pinned context (a
/// coroutine's), in a frame at `frame` (in that context's stack), and returns to
/// `continuation` still in `ctx`, which may switch back with [`return_in`]. This is how a
/// coroutine starts without a native frame in between: the semantics of `resume` hand the
/// machine over, and the frames on the two stacks are linked like any call.
#[inline(always)]
pub fn make_call_in(ctx: *mut InterpContext, frame: *mut u64, num_args: u64, continuation: *const ()) -> ! {
    unsafe { markers::__deegen_api_make_call_in(ctx as *mut u8, frame, num_args, continuation) }
}

/// [`return_from_function`] for the frame at `base` in context `ctx` (which need not be the
/// current one): `count` values from `values` go to that frame's return continuation, which
/// runs with `ctx` as its pinned context. A coroutine switch: `resume` continues a suspended
/// `yield` this way, and `yield` the `resume` that waits for it.
#[inline(always)]
pub fn return_in(ctx: *mut InterpContext, base: *mut u64, values: *mut u64, count: u64) -> ! {
    unsafe { markers::__deegen_api_return_in(ctx as *mut u8, base, values, count) }
}

pub mod runtime_constants;

/// Field offsets of the ABI structs, for the generator that writes IR against them.
pub mod offsets {
    use super::{CodeBlock, InterpContext};
    use core::mem::offset_of;

    pub const CB_ENTRY: usize = offset_of!(CodeBlock, entry);
    pub const CB_BYTECODE: usize = offset_of!(CodeBlock, bytecode);
    pub const CB_NUM_FIXED_PARAMS: usize = offset_of!(CodeBlock, num_fixed_params);
    pub const CB_FRAME_SLOTS: usize = offset_of!(CodeBlock, frame_slots);
    pub const CB_NATIVE: usize = offset_of!(CodeBlock, native);
    pub const CB_HOTNESS: usize = offset_of!(CodeBlock, hotness);
    pub const CB_JIT_CODE: usize = offset_of!(CodeBlock, jit_code);
    pub const CTX_STACK_LIMIT: usize = offset_of!(InterpContext, stack_limit);
    pub const CTX_RET_PTR: usize = offset_of!(InterpContext, ret_ptr);
    pub const CTX_RET_COUNT: usize = offset_of!(InterpContext, ret_count);
    pub const CTX_STATUS: usize = offset_of!(InterpContext, status);
    pub const CTX_STACK_HIGH_WATER: usize = offset_of!(InterpContext, stack_high_water);
    pub const CTX_SLOW_PATH_SPILL: usize = offset_of!(InterpContext, slow_path_spill);
    pub const CTX_CATCH_ENTRY: usize = offset_of!(InterpContext, catch_entry);
    pub const CTX_CATCH_BASE: usize = offset_of!(InterpContext, catch_base);
}

/// Names of the language hooks (see the crate documentation).
pub mod hooks {
    pub const CODE_BLOCK: &str = "deegen_hook_code_block";
    pub const NIL: &str = "deegen_hook_nil";
    pub const STACK_OVERFLOW: &str = "deegen_hook_stack_overflow";
    pub const ON_THROW: &str = "deegen_hook_on_throw";
    /// Optional: called when a function's hotness countdown runs out.
    pub const TIER_UP: &str = "deegen_hook_tier_up";
    /// Optional: the debugger's instruction hook (see the crate documentation).
    pub const INSTRUCTION: &str = "deegen_hook_instruction";
}

/// Names of the functions the interpreter generator writes, which the runtime references.
pub mod symbols {
    /// `extern "C" fn(ctx: *mut InterpContext, base: *mut u64, num_args: u64)`: runs the function
    /// whose frame header is already set up below `base` until it returns to the exit thunk or
    /// throws.
    pub const ENTER: &str = "__deegen_interp_enter";
    /// `extern "C" fn(ctx, base: *mut u64, values: *mut u64, count: u64)`: continues a frame
    /// suspended in a native call (a coroutine's `yield`) as if that call returned `count`
    /// values, until the interpreter is left again.
    pub const RESUME: &str = "__deegen_interp_resume";
    /// Return continuation that leaves the interpreter (stored in the root frame's header).
    pub const EXIT: &str = "__deegen_interp_exit";
    /// Entry point for functions made of bytecode.
    pub const ENTRY_BYTECODE: &str = "__deegen_interp_entry_bytecode";
    /// Entry point for functions made of bytecode that take variable arguments.
    pub const ENTRY_BYTECODE_VARARG: &str = "__deegen_interp_entry_bytecode_vararg";
    /// Entry point for native functions.
    pub const ENTRY_NATIVE: &str = "__deegen_interp_entry_native";
    /// Tier-up thunks (generated when the language has a tier-up hook): call the hook, then
    /// continue at `pc` in the JIT code it answered, or dispatch `pc` in the interpreter (at a
    /// back edge: through the dispatch table; at a function's entry, its first instruction:
    /// through the entry dispatch table, as a call does).
    pub const TIER_UP_AT: &str = "__deegen_interp_tier_up_at";
    pub const TIER_UP_ENTRY: &str = "__deegen_interp_tier_up_entry";
    /// Where every throw goes.
    pub const THROW: &str = "__deegen_interp_throw";
    /// Entry points of a function the baseline JIT compiled (generated when the language has a
    /// tier-up hook): the same frame set-up as [`ENTRY_BYTECODE`] / [`ENTRY_BYTECODE_VARARG`],
    /// then a jump to `CodeBlock::jit_code` instead of dispatching the first instruction. A
    /// function without variable arguments is entered at its JIT code's own prologue instead
    /// ([`crate::runtime_constants::FUNCTION_ENTRY_STENCIL`]).
    pub const JIT_ENTRY_BYTECODE: &str = "__deegen_jit_entry_bytecode";
    pub const JIT_ENTRY_BYTECODE_VARARG: &str = "__deegen_jit_entry_bytecode_vararg";
    /// Prefix of baseline JIT stencils: `__deegen_jit_op_<variant>` (main component) and
    /// `__deegen_jit_op_<variant>__ret__<continuation>` (a return continuation).
    pub const STENCIL_PREFIX: &str = "__deegen_jit_op_";
    /// The dispatch table: one handler address per opcode. Writable (and exported) when the
    /// language has an instruction hook, so the runtime can install the hook thunk.
    pub const DISPATCH_TABLE: &str = "__deegen_interp_dispatch_table";
    /// With an instruction hook: the table the first instruction of a call dispatches through
    /// (the hook tells a call from a jump back to the first instruction by the table it came
    /// through).
    pub const ENTRY_DISPATCH_TABLE: &str = "__deegen_interp_entry_dispatch_table";
    /// With an instruction hook: a read-only copy of the handler addresses, which the hook
    /// thunks dispatch through and the runtime restores the tables from.
    pub const HANDLER_TABLE: &str = "__deegen_interp_handler_table";
    /// With an instruction hook: the thunks the runtime puts in every entry of
    /// [`DISPATCH_TABLE`] and [`ENTRY_DISPATCH_TABLE`] while a hook is set.
    pub const HOOK_THUNK: &str = "__deegen_interp_hook_thunk";
    pub const HOOK_ENTRY_THUNK: &str = "__deegen_interp_hook_entry_thunk";
    /// With a tier-up hook: every return continuation handler (`[*const (); n]`), variant by
    /// variant, each variant's sorted by continuation name, and where each variant's start
    /// (`[u32; variants + 1]`). A runtime that stops running JIT code in a live frame (a debug
    /// hook was set) points the frame's return address at the interpreter's handler.
    pub const CONTINUATION_TABLE: &str = "__deegen_interp_continuation_table";
    pub const CONTINUATION_INDEX: &str = "__deegen_interp_continuation_index";
    /// Prefix of bytecode handlers: `__deegen_interp_op_<variant>`.
    pub const HANDLER_PREFIX: &str = "__deegen_interp_op_";
    /// Prefix of API markers.
    pub const API_PREFIX: &str = "__deegen_api_";
    /// The API markers that only read the pinned state (`context()`, `stack_base()`,
    /// `code_block()`): a pass asking whether a path writes anything (a call inline-cache stub
    /// starts its instruction over on a miss, so it serves only calls reached with nothing
    /// written) may step over them.
    pub const PINNED_STATE_READS: [&str; 3] = ["__deegen_api_context", "__deegen_api_stack_base", "__deegen_api_code_block"];
    /// Prefix of a library function's entry point (`__deegen_lib_<name>`): the code block entry
    /// of a library function the language writes in its semantics (`lua51_specs::library`),
    /// entered like any function (`num_args` in `a0`).
    pub const LIBRARY_PREFIX: &str = "__deegen_lib_";
    /// Suffix of a library function's catch handler (`__deegen_lib_<name>__catch`), for the
    /// functions that catch errors: entered with the library function's frame once an error
    /// thrown inside one of its calls has unwound to it.
    pub const LIBRARY_CATCH_SUFFIX: &str = "__catch";
    /// `[[*const (); 2]; N]`: for each return continuation of a library function that catches
    /// errors, the continuation and that function's catch handler. A frame whose return
    /// continuation is listed was called by such a function, which catches what it throws.
    pub const LIBRARY_CATCH_TABLE: &str = "__deegen_lib_catch_table";
    /// `u32`: the number of entries of [`LIBRARY_CATCH_TABLE`].
    pub const LIBRARY_CATCH_COUNT: &str = "__deegen_lib_catch_count";
}
