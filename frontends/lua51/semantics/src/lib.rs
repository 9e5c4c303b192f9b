//! Execution semantics of the Lua 5.1 bytecodes.
//!
//! The other half of what the language implementer writes (the specs are in `lua51-specs`).
//! Each `#[no_mangle]` function here is the semantics of one bytecode: it receives the decoded
//! operands (boxed values as `u64`, slot addresses as `*mut u64`, literals as integers) and ends
//! in a Deegen API call that never returns. The generator turns every function into interpreter
//! handlers; nothing here knows about dispatch, registers or tiers.
//!
//! Slow and rare cases call runtime helpers (`lua_rt_*`), plain `extern "C"` functions defined by
//! the native runtime (`lua51-vm`), declared by the one list of the runtime ABI
//! (`lua51_value::runtime_abi!`).
#![no_std]
#![allow(clippy::missing_safety_doc, clippy::not_unsafe_ptr_arg_deref)]

use deegen_api as api;
use deegen_api::{CodeBlock, InterpContext, FRAME_HEADER_SLOTS};
use lua51_value::abi::{ArithOp, ForError};
use lua51_value::{
    method_receiver_cached, string_slot_cached_fused, FieldLookup, GcHeader, LuaContext, ReceiverLookup, RtResult, TValue, TraversalPlace,
    FIELD_IC_WAYS, METHOD_IC_WAYS, MULTRET, NIL_BITS, RT_CALL, RT_CALL_NEGATED, RT_VALUE,
};

extern "C" {
    fn floor(x: f64) -> f64;
    fn ceil(x: f64) -> f64;
    fn pow(x: f64, y: f64) -> f64;
}

// The runtime helpers (`lua_rt_*`) and the natives recognised by address, from the one list of
// the runtime ABI (`lua51_value::abi`), which the VM checks its definitions against.
lua51_value::runtime_abi!(declare);

/// The checkers `type-check-strength-reduction` may substitute (`lua51_specs::type_lattice`)
/// and the semantics never call themselves: named here so the bitcode has their code. Nothing
/// reads this table; the interpreter's final optimisation drops it.
#[no_mangle]
pub static DEEGEN_TYPE_CHECKERS: [fn(TValue) -> bool; 3] = [TValue::heap_is_string, TValue::heap_is_table, TValue::heap_is_function];

#[inline(always)]
fn ctx() -> *mut LuaContext {
    api::context() as *mut LuaContext
}

/// The write barrier of the incremental collector, after every store of a value into a heap
/// object: a store into an object the collector has traced already (black) must make it gray
/// again, or the value stored could be freed while the object refers to it. One byte compare on
/// the fast path; the runtime does the rest.
#[inline(always)]
fn write_barrier(obj: *mut GcHeader) {
    if unsafe { (*obj).is_black() } {
        api::cold_path();
        unsafe { lua_rt_write_barrier(ctx(), obj) };
    }
}

#[inline(always)]
fn num(x: f64) -> u64 {
    TValue::from_f64(x).raw()
}

#[inline(always)]
fn both_numbers(a: TValue, b: TValue) -> bool {
    a.is_double() && b.is_double()
}

// ---------------------------------------------------------------------------------------------
// Moves and arithmetic
// ---------------------------------------------------------------------------------------------

#[no_mangle]
pub fn lua_mov(src: u64) -> ! {
    api::ret(src)
}

/// A Lua function the runtime called has returned to its continuation: a metamethod handler
/// or a `for` iterator (see `LuaContext::c_calls`). Every continuation of such a call starts
/// with this.
#[inline(always)]
fn runtime_call_returned() {
    unsafe { (*ctx()).c_calls -= 1 }
}

/// Acts on a runtime helper's answer: a value for the output, a prepared metamethod call whose
/// first result becomes the output (through `continuation`), or an error.
#[inline(always)]
fn finish(r: RtResult, num_args: u64, continuation: *const ()) -> ! {
    if r.kind == RT_VALUE {
        api::ret(r.value)
    }
    if r.kind == RT_CALL {
        call_unnamed(r.value as *mut u64, num_args, continuation)
    }
    api::throw_runtime_error(r.value)
}

/// Acts on the runtime's answer to a store (`__newindex`): done, a prepared `__newindex` call
/// (table, key, value) returning to `continuation`, or an error.
#[inline(always)]
fn finish_store(r: RtResult, continuation: *const ()) -> ! {
    if r.kind == RT_VALUE {
        api::fallthrough()
    }
    if r.kind == RT_CALL {
        call_unnamed(r.value as *mut u64, 3, continuation)
    }
    api::throw_runtime_error(r.value)
}

/// The first value a metamethod returned (nil if none).
#[inline(always)]
fn first_result() -> u64 {
    let (values, count) = api::return_values();
    if count == 0 {
        NIL_BITS
    } else {
        unsafe { *values }
    }
}

#[inline(always)]
fn arith_slow(op: ArithOp, lhs: u64, rhs: u64) -> ! {
    arith_in_runtime(op, lhs, rhs, lua_binary_mm_continuation as *const ())
}

/// `lhs op rhs` by the runtime (strings, metamethods, errors), a metamethod's result coming
/// back through `continuation` (the bytecode's own: it takes the bytecode's operands).
#[inline(always)]
fn arith_in_runtime(op: ArithOp, lhs: u64, rhs: u64, continuation: *const ()) -> ! {
    let r = unsafe { lua_rt_arith(ctx(), op, lhs, rhs, api::stack_base(), api::code_block()) };
    finish(r, 2, continuation)
}

/// Output of a binary operator's metamethod.
#[no_mangle]
pub fn lua_binary_mm_continuation(_lhs: u64, _rhs: u64) -> ! {
    // Only a metamethod returns here: the whole continuation is a slow path.
    api::cold_path();
    runtime_call_returned();
    api::ret(first_result())
}

/// Output of a unary operator's metamethod.
#[no_mangle]
pub fn lua_unary_mm_continuation(_src: u64) -> ! {
    // Only a metamethod returns here: the whole continuation is a slow path.
    api::cold_path();
    runtime_call_returned();
    api::ret(first_result())
}

macro_rules! arith {
    ($name:ident, $op:expr, |$a:ident, $b:ident| $e:expr) => {
        #[no_mangle]
        pub fn $name(lhs: u64, rhs: u64) -> ! {
            let (l, r) = (TValue(lhs), TValue(rhs));
            if both_numbers(l, r) {
                let ($a, $b) = (l.as_f64(), r.as_f64());
                api::ret(num($e))
            }
            arith_slow($op, lhs, rhs)
        }
    };
}

arith!(lua_add, ArithOp::Add, |a, b| a + b);
arith!(lua_sub, ArithOp::Sub, |a, b| a - b);
arith!(lua_mul, ArithOp::Mul, |a, b| a * b);
arith!(lua_div, ArithOp::Div, |a, b| a / b);
arith!(lua_mod, ArithOp::Mod, |a, b| lua_fmod(a, b));
arith!(lua_pow, ArithOp::Pow, |a, b| unsafe { pow(a, b) });

/// `lhs / k` for a constant `k` that is a power of two (`x / 2`), given `inverse`, the
/// constant `1/k` (also a power of two: the compiler emits these only then). Multiplying by
/// `1/k` rounds the same exact quotient a division would, so the result is the division's, bit
/// for bit (zeros' signs, infinities, underflow included): a multiply instead of a `divsd` of
/// about 14 cycles of latency. Everything but a number on the left (strings, metamethods,
/// errors) is `Div`'s slow path with `k`.
///
/// Both constants are numbers by construction (the compiler, and `dump::verify` for a binary
/// chunk), so only `lhs` is tested.
#[no_mangle]
pub fn lua_div_pow2(lhs: u64, rhs: u64, inverse: u64) -> ! {
    let l = TValue(lhs);
    if l.is_double() {
        api::ret(num(l.as_f64() * TValue(inverse).as_f64()))
    }
    pow2_slow(ArithOp::Div, lhs, rhs)
}

/// `lhs % k` for a power of two `k` (`n % 2`): 5.1's `a - floor(a/k)*k` with the quotient a
/// multiply by `inverse` (`1/k`), the same value (see `lua_div_pow2`).
#[no_mangle]
pub fn lua_mod_pow2(lhs: u64, rhs: u64, inverse: u64) -> ! {
    let l = TValue(lhs);
    if l.is_double() {
        let (a, k) = (l.as_f64(), TValue(rhs).as_f64());
        api::ret(num(a - unsafe { floor(a * TValue(inverse).as_f64()) } * k))
    }
    pow2_slow(ArithOp::Mod, lhs, rhs)
}

/// The slow path of `DivPow2` and `ModPow2`: the operator on the two operands, as `Div` and
/// `Mod` do it.
#[inline(always)]
fn pow2_slow(op: ArithOp, lhs: u64, rhs: u64) -> ! {
    arith_in_runtime(op, lhs, rhs, lua_pow2_mm_continuation as *const ())
}

/// Output of `DivPow2`'s and `ModPow2`'s metamethod.
#[no_mangle]
pub fn lua_pow2_mm_continuation(_lhs: u64, _rhs: u64, _inverse: u64) -> ! {
    // Only a metamethod returns here: the whole continuation is a slow path.
    api::cold_path();
    runtime_call_returned();
    api::ret(first_result())
}

/// Lua 5.1's `luai_nummod`: `a - floor(a/b)*b`.
#[inline(always)]
pub fn lua_fmod(a: f64, b: f64) -> f64 {
    a - unsafe { floor(a / b) } * b
}

#[no_mangle]
pub fn lua_unm(src: u64) -> ! {
    let v = TValue(src);
    if v.is_double() {
        api::ret(num(-v.as_f64()))
    }
    arith_in_runtime(ArithOp::Unm, src, src, lua_unary_mm_continuation as *const ())
}

#[no_mangle]
pub fn lua_not(src: u64) -> ! {
    api::ret(TValue::from_bool(TValue(src).is_falsy()).raw())
}

#[no_mangle]
pub fn lua_len(src: u64) -> ! {
    let v = TValue(src);
    if v.is_string() {
        api::ret(num(unsafe { (*v.as_string()).len } as f64))
    }
    // A table's length ignores metatables in 5.1; an array full to its end needs no search.
    if v.is_table() {
        if let Some(n) = unsafe { &*v.as_table() }.length_fast() {
            // Through i64 (a length fits): one `cvtsi2sd`, where an unsigned conversion is
            // five instructions and a constant pool.
            api::ret(num(n as i64 as f64))
        }
    }
    let mut out = 0u64;
    if unsafe { lua_rt_len(ctx(), src, &mut out) } {
        api::ret(out)
    }
    // Userdata with `__len`, or the error.
    let r = unsafe { lua_rt_len_metamethod(ctx(), src, api::stack_base(), api::code_block()) };
    finish(r, 2, lua_unary_mm_continuation as *const ())
}

#[no_mangle]
pub fn lua_concat(first: *mut u64, count: u64, dst: *mut u64) -> ! {
    let r = unsafe { lua_rt_concat(ctx(), first, count, count, api::stack_base(), api::code_block()) };
    finish_concat(r, dst)
}

/// After a `__concat` call: its result replaces the pair, and concatenation goes on with the
/// values that remain (their number was parked in the last slot of the range).
#[no_mangle]
pub fn lua_concat_mm_continuation(first: *mut u64, count: u64, dst: *mut u64) -> ! {
    // Only a metamethod returns here: the whole continuation is a slow path.
    api::cold_path();
    runtime_call_returned();
    unsafe {
        let remaining = TValue(*first.add(count as usize - 1)).as_f64() as u64;
        *first.add(remaining as usize - 1) = first_result();
        let r = lua_rt_concat(ctx(), first, remaining, count, api::stack_base(), api::code_block());
        finish_concat(r, dst)
    }
}

/// [`finish`] for a concatenation: the result goes to `dst` first, then the collector may run
/// (5.1's `luaC_checkGC` after `OP_CONCAT`), so the value `dst` held is not kept alive by it.
#[inline(always)]
fn finish_concat(r: RtResult, dst: *mut u64) -> ! {
    if r.kind == RT_VALUE {
        unsafe {
            *dst = r.value;
            lua_rt_gc_check(ctx(), api::stack_base(), api::code_block());
        }
        api::fallthrough()
    }
    // A `__concat` call or an error: in line, this was three quarters of Concat's stencil.
    api::cold_path();
    if r.kind == RT_CALL {
        call_unnamed(r.value as *mut u64, 2, lua_concat_mm_continuation as *const ())
    }
    api::throw_runtime_error(r.value)
}

// ---------------------------------------------------------------------------------------------
// Comparisons and branches
// ---------------------------------------------------------------------------------------------

#[inline(always)]
fn branch_if(cond: bool) -> ! {
    if cond {
        api::take_branch()
    }
    api::fallthrough()
}

/// A comparison the runtime answered: a boolean, or a metamethod call whose truthiness (maybe
/// negated) decides the branch in a continuation. `negate` is for the `JumpIfNot*` forms.
#[inline(always)]
fn compare_slow(r: RtResult, negate: bool) -> ! {
    if r.kind == RT_VALUE {
        branch_if((r.value != 0) != negate)
    }
    if r.kind == RT_CALL || r.kind == RT_CALL_NEGATED {
        // Continuations are named directly at each make_call: the generator makes one
        // handler per continuation it can see.
        if negate != (r.kind == RT_CALL_NEGATED) {
            call_unnamed(r.value as *mut u64, 2, lua_branch_if_mm_falsy as *const ())
        }
        call_unnamed(r.value as *mut u64, 2, lua_branch_if_mm_truthy as *const ())
    }
    api::throw_runtime_error(r.value)
}

/// Takes the branch when a comparison metamethod returned a truthy value.
#[no_mangle]
pub fn lua_branch_if_mm_truthy(_lhs: u64, _rhs: u64) -> ! {
    // A comparison metamethod is rare, and JIT code copies both continuations at every
    // comparison: there they are out of line (a record and a jump each, not a branch pair).
    api::jit_cold_path();
    runtime_call_returned();
    branch_if(!TValue(first_result()).is_falsy())
}

/// Takes the branch when a comparison metamethod returned a falsy value.
#[no_mangle]
pub fn lua_branch_if_mm_falsy(_lhs: u64, _rhs: u64) -> ! {
    api::jit_cold_path();
    runtime_call_returned();
    branch_if(TValue(first_result()).is_falsy())
}

macro_rules! ordered_jump {
    ($name:ident, $negate:expr, $helper:ident, |$a:ident, $b:ident| $cmp:expr) => {
        #[no_mangle]
        pub fn $name(lhs: u64, rhs: u64) -> ! {
            let (l, r) = (TValue(lhs), TValue(rhs));
            if both_numbers(l, r) {
                let ($a, $b) = (l.as_f64(), r.as_f64());
                branch_if(($cmp) != $negate)
            }
            compare_slow(unsafe { $helper(ctx(), lhs, rhs, api::stack_base(), api::code_block()) }, $negate)
        }
    };
}

ordered_jump!(lua_jump_if_lt, false, lua_rt_less_than, |a, b| a < b);
ordered_jump!(lua_jump_if_not_lt, true, lua_rt_less_than, |a, b| a < b);
ordered_jump!(lua_jump_if_le, false, lua_rt_less_equal, |a, b| a <= b);
ordered_jump!(lua_jump_if_not_le, true, lua_rt_less_equal, |a, b| a <= b);

/// Tables (and userdata) of the same kind that are not the same object may be equal through
/// `__eq`; everything else compares raw.
#[inline(always)]
fn equal_jump(lhs: u64, rhs: u64, negate: bool) -> ! {
    let (l, r) = (TValue(lhs), TValue(rhs));
    // Against nil: one compare with the nil immediate (in the variant for a nil constant, the
    // constant is not even loaded).
    if r.is_nil() {
        branch_if(l.is_nil() != negate)
    }
    // Against a number (in the variant for a number constant, known): only a number equal to
    // it. Through `raw_equals` LLVM computed both the float and the bit comparison and chose
    // between them without a branch (14 instructions for `n == 0`).
    if r.is_double() {
        if !l.is_double() {
            branch_if(negate)
        }
        branch_if((l.as_f64() == r.as_f64()) != negate)
    }
    if l.raw_equals(r) {
        branch_if(!negate)
    }
    // Same kind of object (both tables or both userdata), compared by `__eq`. `rhs` is tested
    // first, so a variant that knows it is a boolean or a string drops the whole test.
    // A table's test is its tag; userdata share theirs with threads and need the header.
    if r.is_table() {
        if l.is_table() {
            compare_slow(unsafe { lua_rt_equal(ctx(), lhs, rhs, api::stack_base(), api::code_block()) }, negate)
        }
        branch_if(negate)
    }
    if r.is_userdata() && l.is_userdata() {
        compare_slow(unsafe { lua_rt_equal(ctx(), lhs, rhs, api::stack_base(), api::code_block()) }, negate)
    }
    branch_if(negate)
}

#[no_mangle]
pub fn lua_jump_if_eq(lhs: u64, rhs: u64) -> ! {
    equal_jump(lhs, rhs, false)
}
#[no_mangle]
pub fn lua_jump_if_not_eq(lhs: u64, rhs: u64) -> ! {
    equal_jump(lhs, rhs, true)
}
#[no_mangle]
pub fn lua_jump_if_truthy(src: u64) -> ! {
    branch_if(!TValue(src).is_falsy())
}
#[no_mangle]
pub fn lua_jump_if_falsy(src: u64) -> ! {
    branch_if(TValue(src).is_falsy())
}
#[no_mangle]
pub fn lua_jump() -> ! {
    api::take_branch()
}

// ---------------------------------------------------------------------------------------------
// Numeric for: slots base[0..4] are index, limit, step, visible variable.
// ---------------------------------------------------------------------------------------------

#[inline(always)]
fn for_coerce(slot: *mut u64, which: ForError) {
    unsafe {
        if !TValue(*slot).is_double() && !lua_rt_tonumber(ctx(), *slot, slot) {
            api::throw_runtime_error(lua_rt_for_error(ctx(), which))
        }
    }
}

#[inline(always)]
fn for_continues(idx: f64, limit: f64, step: f64) -> bool {
    if step > 0.0 {
        idx <= limit
    } else {
        limit <= idx
    }
}

/// Checks the control values and enters the loop, or jumps past it. Like Lua 5.1, the first
/// index is computed as `(init - step) + step`, so fractional loops print the same values.
#[no_mangle]
pub fn lua_for_prep(base: *mut u64) -> ! {
    for_coerce(base, ForError::Initial);
    for_coerce(unsafe { base.add(1) }, ForError::Limit);
    for_coerce(unsafe { base.add(2) }, ForError::Step);
    unsafe {
        let step = TValue(*base.add(2)).as_f64();
        let limit = TValue(*base.add(1)).as_f64();
        let idx = (TValue(*base).as_f64() - step) + step;
        if for_continues(idx, limit, step) {
            *base = num(idx);
            *base.add(3) = num(idx);
            api::fallthrough()
        }
    }
    api::take_branch()
}

/// Steps the index and jumps back to the body while the loop continues. `direction` is what
/// the compiler knows of the step (a constant): 1 positive, 2 not positive, 0 nothing.
#[no_mangle]
pub fn lua_for_loop(base: *mut u64, direction: u64) -> ! {
    unsafe {
        let step = TValue(*base.add(2)).as_f64();
        let idx = TValue(*base).as_f64() + step;
        let limit = TValue(*base.add(1)).as_f64();
        let continues = match direction {
            1 => idx <= limit,
            2 => limit <= idx,
            _ => for_continues(idx, limit, step),
        };
        if continues {
            *base = num(idx);
            *base.add(3) = num(idx);
            api::take_branch()
        }
    }
    api::fallthrough()
}

// ---------------------------------------------------------------------------------------------
// Globals, calls, closures, upvalues
// ---------------------------------------------------------------------------------------------

#[no_mangle]
pub fn lua_get_global(name: u64, slot_cache: *mut u8) -> ! {
    if let Some(v) = get_string_fast::<1>(TValue(current_env()), TValue(name), slot_cache) {
        api::ret(v)
    }
    let r = unsafe { lua_rt_index(ctx(), current_env(), name, api::stack_base(), api::code_block()) };
    finish(r, 2, lua_get_global_mm_continuation as *const ())
}

#[no_mangle]
pub fn lua_get_global_mm_continuation(_name: u64, _slot_cache: *mut u8) -> ! {
    // Only a metamethod returns here: the whole continuation is a slow path.
    api::cold_path();
    runtime_call_returned();
    api::ret(first_result())
}

#[no_mangle]
pub fn lua_set_global(name: u64, value: u64, slot_cache: *mut u8) -> ! {
    if set_string_fast::<1>(TValue(current_env()), TValue(name), value, slot_cache) {
        api::fallthrough()
    }
    let r = unsafe { lua_rt_newindex(ctx(), current_env(), name, value, api::stack_base(), api::code_block()) };
    finish_store(r, lua_set_global_mm_continuation as *const ())
}

#[no_mangle]
pub fn lua_set_global_mm_continuation(_name: u64, _value: u64, _slot_cache: *mut u8) -> ! {
    // Only a metamethod returns here: the whole continuation is a slow path.
    api::cold_path();
    runtime_call_returned();
    api::fallthrough()
}

/// The running function's environment (`getfenv`/`setfenv`): where its globals live.
#[inline(always)]
fn current_env() -> u64 {
    unsafe {
        let callee = TValue(*api::stack_base().offset(deegen_api::frame::CALLEE as isize));
        (*callee.as_closure()).env.raw()
    }
}

/// A call of `frame[0]` returning to `continuation`; a non-function goes through its `__call`
/// metamethod.
#[inline(always)]
fn call_value(frame: *mut u64, num_args: u64, continuation: *const ()) -> ! {
    call_resolved(frame, num_args, continuation, true)
}

/// A call of a value the program did not name at this instruction: a metamethod handler the
/// runtime prepared in `frame`, or a generic `for`'s iterator (called from a copy). The
/// handler can be any value (5.1 calls whatever is not nil): a table or userdata with
/// `__call`, or a boolean whose type has a `__call` metamethod, are called like the callee of
/// a `Call`; anything else is "attempt to call a ... value", naming no variable.
#[inline(always)]
fn call_unnamed(frame: *mut u64, num_args: u64, continuation: *const ()) -> ! {
    call_resolved(frame, num_args, continuation, false)
}

#[inline(always)]
fn call_resolved(frame: *mut u64, num_args: u64, continuation: *const (), named: bool) -> ! {
    let callee = TValue(unsafe { *frame });
    if callee.is_function() {
        api::make_call(frame, num_args, continuation)
    }
    let r = unsafe { lua_rt_call_handler(ctx(), frame, num_args, named as u64) };
    if r.kind == RT_CALL {
        api::make_call(frame, num_args + 1, continuation)
    }
    api::throw_runtime_error(r.value)
}

#[no_mangle]
pub fn lua_call(frame: *mut u64, num_args: u64, _num_results: u64) -> ! {
    call_value(frame, num_args, lua_call_continuation as *const ())
}

/// Like `lua_call`, with `num_fixed_args` arguments plus the variable results left by the
/// previous call.
#[no_mangle]
pub fn lua_call_var_args(frame: *mut u64, num_fixed_args: u64, _num_results: u64) -> ! {
    call_value(frame, num_fixed_args + unsafe { (*ctx()).var_results }, lua_call_continuation as *const ())
}

/// `return f(args)`: a proper tail call, so tail recursion runs in constant stack.
#[no_mangle]
pub fn lua_tail_call(frame: *mut u64, num_args: u64, close: u64) -> ! {
    if !TValue(unsafe { *frame }).is_function() {
        // `__call`: the handler replaces the callee, which becomes its first argument. A tail
        // call of its own (not one shared with the common path), so that the common path's
        // argument count stays the variant's constant and its copy is unrolled.
        let r = unsafe { lua_rt_call_handler(ctx(), frame, num_args, 1) };
        if r.kind != RT_CALL {
            api::throw_runtime_error(r.value)
        }
        tail_call_function(frame, num_args + 1, close)
    }
    tail_call_function(frame, num_args, close)
}

/// The tail call of the function in slot `frame` with `num_args` arguments, closing the
/// frame's captured locals first unless `close` is 0 (the function makes no closures).
#[inline(always)]
fn tail_call_function(frame: *mut u64, num_args: u64, close: u64) -> ! {
    let callee = TValue(unsafe { *frame });
    if unsafe { !(*(*callee.as_closure()).code_block).native.is_null() } {
        // Like 5.1, a tail call to a native function is an ordinary call: the caller's frame
        // stays for error positions, names and tracebacks. Uncommon (`return tostring(x)`),
        // and with its return continuation most of the stencil: out of its main stream.
        api::uncommon_path();
        api::make_call(frame, num_args, lua_tail_call_native_continuation as *const ())
    }
    if close != 0 {
        close_upvalues_from(api::stack_base());
    }
    api::make_tail_call(frame, num_args)
}

/// Returns every result of a native function called in tail position.
#[no_mangle]
pub fn lua_tail_call_native_continuation(_frame: *mut u64, _num_args: u64, _close: u64) -> ! {
    let (values, count) = api::return_values();
    close_upvalues_from(api::stack_base());
    api::return_from_function(values, count)
}

#[no_mangle]
pub fn lua_tail_call_var_args(frame: *mut u64, num_fixed_args: u64, close: u64) -> ! {
    lua_tail_call(frame, num_fixed_args + unsafe { (*ctx()).var_results }, close)
}

/// Stores the first `num_results` returned values from slot `frame`, padding with nil; or,
/// for `MULTRET`, every value, recording how many.
#[no_mangle]
pub fn lua_call_continuation(frame: *mut u64, _num_args: u64, num_results: u64) -> ! {
    let (values, count) = api::return_values();
    if num_results == MULTRET {
        api::copy_slots(frame, values, count);
        unsafe { (*ctx()).var_results = count };
        api::fallthrough()
    }
    let mut i = 0;
    while i < num_results {
        let v = if i < count {
            unsafe { *values.add(i as usize) }
        } else {
            // Fewer results than wanted (a function returning nothing used as a value): the
            // rest of the common path does not jump over this.
            api::uncommon_path();
            NIL_BITS
        };
        unsafe { *frame.add(i as usize) = v };
        i += 1;
    }
    api::fallthrough()
}

// ---------------------------------------------------------------------------------------------
// Tables, methods, varargs, generic for
// ---------------------------------------------------------------------------------------------

#[no_mangle]
pub fn lua_new_table(array: u64, hash: u64) -> ! {
    api::ret(unsafe { lua_rt_new_table(ctx(), array, hash, api::stack_base(), api::code_block()) })
}

/// `table[key]` without leaving the handler: a present key, or an absent one when no
/// metatable could supply it. `None` sends the access to the runtime (`__index`, non-tables).
/// Straight-line on purpose: a loop here made LLVM hoist every key kind's hashing and
/// spill the pinned registers.
///
/// The probes of the hash part are an uncommon path, not a slow path: most of the stencil's
/// bytes, taken by few instructions (a table of counts by string, a map keyed by objects) but
/// often by those. As an AOT slow path (`jit_cold_path()`, here and in `raw_set_fast`) the
/// baseline JIT executed 9.4% more instructions on sieve and 4.9% more on permute (numbers in
/// the hash part: a table filled from 2, or from 0), 6.8% more on knucleotide; in line, every
/// copy of the stencil carried them (havlak's 35 `GetTable` took 494 bytes each). As an
/// uncommon path they run on the stencil's registers from its cold part.
#[inline(always)]
fn get_fast(table: TValue, key: TValue) -> Option<u64> {
    if !table.is_table() {
        return None;
    }
    let t = unsafe { &*table.as_table() };
    // The array part first: constant string keys have GetField, so a key in a slot is most
    // often an index. A non-nil element returns from here, on a path of its own (joined with
    // the others it ended in a jump to the shared store and dispatch).
    let value = if let Some(slot) = t.array_slot(key) {
        let value = unsafe { *slot };
        if !value.is_nil() {
            return Some(value.raw());
        }
        value
    } else {
        api::uncommon_path();
        if key.is_string() {
            // No inline cache for a key that varies: a cache of one key missed at nearly every
            // access of a table of counts (`counts[frag]`) and rewrote itself in the slow path.
            // One probe of the shape's index or the hash part costs about what a hit did.
            t.string_slot(key).map_or(TValue::NIL, |v| unsafe { *v })
        } else {
            t.find_non_string(key).map_or(TValue::NIL, |n| unsafe { (*n).value })
        }
    };
    if !value.is_nil() || t.metatable.is_null() {
        return Some(value.raw());
    }
    None
}

/// Lua 5.1's `MAXTAGLOOP` is 100; chains longer than this few go to the runtime.
const INLINE_INDEX_CHAIN: usize = 4;

/// `obj.name` for a method call, with `__index` tables followed in the handler (methods live
/// in class tables reached through the instance's metatable, string methods in the string
/// library through the string metatable): the first non-nil raw value, or nil where a table
/// has no `__index`. `None` for what needs the runtime (`__index` functions, other values,
/// long chains).
///
/// Three caches make the usual `instance:method()` a few compares: the receiver's own (which
/// remembers that an instance lacks the name), the metatable's cache of its `__index` field
/// (in the metatable object), and the instruction's `method` cache, which ends up naming the
/// tables that hold the method (classes: [`METHOD_IC_WAYS`] of them).
#[inline(always)]
fn get_method_fast(obj: TValue, name: TValue, receiver_cache: *mut u8, method_cache: *mut u8) -> Option<u64> {
    let shared = unsafe { &*(*ctx()).shared };
    let mut current;
    if obj.is_table() {
        // SAFETY: a table; the receiver cache is the instruction's `ic` operand of FIELD_IC_WAYS entries.
        if let ReceiverLookup::Slot(slot) = unsafe { method_receiver_cached(obj, name, receiver_cache) } {
            let value = unsafe { *slot };
            if !value.is_nil() {
                return Some(value.raw());
            }
        }
        let mt = unsafe { (*obj.as_table()).metatable };
        if mt.is_null() {
            return Some(NIL_BITS);
        }
        current = unsafe { &*mt }.index_handler(shared.index_event);
        if current.is_nil() {
            return Some(NIL_BITS);
        }
    } else if obj.is_string() {
        // `s:sub(...)`: common in string code, absent from most other code.
        api::uncommon_path();
        let mt = shared.string_metatable;
        if mt.is_null() {
            return None;
        }
        current = unsafe { &*mt }.index_handler(shared.index_event);
    } else {
        return None;
    }
    // The first table up (a class, the string library) holds the method most of the time,
    // its parent (a method a subclass inherits) the rest: both steps are peeled off the loop,
    // so those hits do not pay for the registers the loop's miss paths take. As a slow path,
    // the parent's step sent every inherited call (deltablue's constraints) to the runtime's
    // side of the stencil; as an uncommon path it stays on the stencil's registers.
    current = match method_chain_step(current, name, method_cache, shared) {
        ChainStep::Found(v) => return Some(v),
        ChainStep::Runtime => return None,
        ChainStep::Next(next) => next,
    };
    // An inherited method: on the stencil's registers, out of its main stream.
    api::uncommon_path();
    current = match method_chain_step(current, name, method_cache, shared) {
        ChainStep::Found(v) => return Some(v),
        ChainStep::Runtime => return None,
        ChainStep::Next(next) => next,
    };
    // Deeper chains (a method inherited twice) are a slow path: in line, the unrolled walk
    // was 0.7 KB of GetMethod's 2.6 KB in every baseline JIT copy.
    api::cold_path();
    let mut depth = 2;
    while depth < INLINE_INDEX_CHAIN {
        current = match method_chain_step(current, name, method_cache, shared) {
            ChainStep::Found(v) => return Some(v),
            ChainStep::Runtime => return None,
            ChainStep::Next(next) => next,
        };
        depth += 1;
    }
    None
}

/// `__index` tables a field read follows in the handler: an instance's class and the class's
/// parent. Shorter than a method lookup's chain: a field is usually found there or is nil,
/// and a deep chain that ends in an `__index` function (default values) is the runtime's
/// anyway, so the walk up to it would be wasted.
const FIELD_INDEX_CHAIN: usize = 2;

/// `table.name` where the table holds no value for `name` and has a metatable: its `__index`
/// tables followed in the handler (a class's field read through an instance, a field nil
/// everywhere), each one probe of its shape's index or hash part, without a cache. What needs
/// the runtime (not a table, an `__index` function, a chain longer than
/// [`FIELD_INDEX_CHAIN`]) is `Err` with the value the runtime goes on from and its depth in
/// the chain (`lua_rt_index_from`), so no table is looked at twice.
#[inline(always)]
fn index_chain_fast(table: TValue, name: TValue) -> Result<u64, (TValue, usize)> {
    if !table.is_table() {
        return Err((table, 0));
    }
    let shared = unsafe { &*(*ctx()).shared };
    let mut current = table;
    let mut depth = 0;
    loop {
        let t = unsafe { &*current.as_table() };
        if t.metatable.is_null() {
            return Ok(NIL_BITS);
        }
        let handler = unsafe { &*t.metatable }.index_handler(shared.index_event);
        if handler.is_nil() {
            return Ok(NIL_BITS);
        }
        if !handler.is_table() || depth == FIELD_INDEX_CHAIN {
            return Err((current, depth));
        }
        current = handler;
        depth += 1;
        let value = unsafe { &*current.as_table() }.raw_get_str(name);
        if !value.is_nil() {
            return Ok(value.raw());
        }
    }
}

/// One table of a method lookup's `__index` chain.
enum ChainStep {
    /// The answer (the method, or nil where the chain ends).
    Found(u64),
    /// Go on with this `__index` value.
    Next(TValue),
    /// Not a table: the runtime's business.
    Runtime,
}

#[inline(always)]
fn method_chain_step(current: TValue, name: TValue, method_cache: *mut u8, shared: &lua51_value::SharedState) -> ChainStep {
    if !current.is_table() {
        return ChainStep::Runtime;
    }
    let t = unsafe { &*current.as_table() };
    // One cache for the chain: it ends up naming the tables that hold the method (classes;
    // several at a site that sees the instances of several). A class before them in the chain
    // (a subclass) misses the cache at every call: its shape's key filter says "absent"
    // there, before the other entries are compared and the miss would take the slow path.
    // SAFETY: the cache is the instruction's `method` operand of METHOD_IC_WAYS entries; names
    // are interned.
    let value = unsafe { t.string_slot_cached_or_filtered::<METHOD_IC_WAYS>(name, method_cache) }.map_or(TValue::NIL, |v| unsafe { *v });
    if !value.is_nil() || t.metatable.is_null() {
        return ChainStep::Found(value.raw());
    }
    // Not in this table: a method its class inherits (or a nil one), from the first step on.
    api::uncommon_path();
    let handler = unsafe { &*t.metatable }.index_handler(shared.index_event);
    if handler.is_nil() {
        return ChainStep::Found(NIL_BITS);
    }
    ChainStep::Next(handler)
}

/// `table[key] = value` without leaving the handler: overwriting a non-nil array element or
/// hash entry (or a nil one when there is no metatable to consult for `__newindex`).
/// Returns false for everything that needs the runtime: new keys, growth, metamethods.
#[inline(always)]
fn raw_set_fast(table: TValue, key: TValue, value: u64) -> bool {
    if !table.is_table() {
        return false;
    }
    let t = unsafe { &mut *table.as_table() };
    if let Some(slot) = t.array_slot(key) {
        if unsafe { (*slot).is_nil() } && !t.metatable.is_null() {
            return false;
        }
        unsafe { *slot = TValue(value) };
        // The array part's element kind follows every store into it.
        t.note_array_store(TValue(value));
        write_barrier(&mut t.header);
        return true;
    }
    if key.is_double() && append_in_place(t, |len| key.as_f64() == (len + 1) as i64 as f64, TValue(value)) {
        return true;
    }
    // The hash part: uncommon, as in `get_fast`.
    api::uncommon_path();
    let slot = if key.is_string() {
        if t.shape.is_null() {
            // A dictionary (a table of counts by word, an object decoded from JSON): a new key
            // goes where the runtime's insert would put it, the probe's first free slot, while
            // the hash part has room and no metatable could want `__newindex`.
            let hash = unsafe { (*key.as_string()).hash } as usize;
            match t.probe(key, hash) {
                // SAFETY: `probe` answers indices below `node_count`.
                Ok(i) => unsafe { core::ptr::addr_of_mut!((*t.nodes.add(i)).value) },
                Err(Some(i)) if t.metatable.is_null() && value != NIL_BITS && t.hash_has_room() => {
                    unsafe { *t.nodes.add(i) = lua51_value::TableNode { key, value: TValue(value) } };
                    t.used += 1;
                    write_barrier(&mut t.header);
                    return true;
                }
                Err(_) => return false,
            }
        } else {
            // Without a cache, as in `get_fast`.
            match t.string_slot(key) {
                Some(slot) => slot,
                None => return false,
            }
        }
    } else {
        // Other keys (numbers outside the array part, booleans, objects) are found by the
        // runtime: the hash probe inlined here made every path of the handler, the array
        // store's too, spill two pinned registers.
        let slot = unsafe { lua_rt_hash_slot(table.raw(), key.raw()) };
        if slot.is_null() {
            return false;
        }
        slot
    };
    if unsafe { (*slot).is_nil() } && !t.metatable.is_null() {
        return false;
    }
    unsafe { *slot = TValue(value) };
    write_barrier(&mut t.header);
    true
}

/// `t[len + 1] = v` for the array part's length `len`, where the runtime would do no more
/// than append (`Table::set`'s append): an array part full to its end, no metatable (a new key
/// would consult `__newindex`), a value that is not nil. `is_next(len)` says whether the key
/// is `len + 1`, compared in the key's own type: an integer index needs no conversion, and a
/// length converted through `i64` is one `cvtsi2sd` where an unsigned conversion is five
/// instructions and a constant pool in every stencil that appends.
#[inline(always)]
fn append_in_place(t: &mut lua51_value::TableObject, is_next: impl FnOnce(usize) -> bool, value: TValue) -> bool {
    t.metatable.is_null() && is_next(t.array_len) && push(t, value, Border::KeyGiven)
}

/// Whether the caller named the key it appends at (`t[len + 1] = v`), or took it for the
/// table's border (`table.insert(t, v)`, which is `t[#t + 1] = v`).
#[derive(PartialEq, Eq, Clone, Copy)]
enum Border {
    KeyGiven,
    Assumed,
}

/// A raw append of `value` at the array part's length + 1, where that is all it takes: the
/// array part's last element is not nil and the value is not nil. A full array part, or a
/// hash part (which may hold the key, or keys after it that the append moves into the array
/// part), is the runtime's append (`lua_rt_append_grow`), without the generic store's checks.
/// With a hash part the border (`#t`) may lie past the array part, so an `Assumed` key
/// declines. False, and nothing done, otherwise (and when out of memory: the caller's runtime
/// path raises the error).
#[inline(always)]
fn push(t: &mut lua51_value::TableObject, value: TValue, border: Border) -> bool {
    let len = t.array_len;
    if value.is_nil() {
        return false;
    }
    if len > 0 && unsafe { (*t.array.add(len - 1)).is_nil() } {
        return false;
    }
    if t.used != 0 || len >= t.array_cap {
        if t.used != 0 && border == Border::Assumed {
            return false;
        }
        // A fresh table's first append (a new `{}` has no array part), and every append to a
        // table with keys in its hash part (an array filled from index 0), went through all of
        // `lua_rt_newindex`: about 300 instructions, a fifth of havlak's.
        api::cold_path();
        return unsafe { lua_rt_append_grow(ctx(), TValue::from_table(t).raw(), value.raw()) };
    }
    unsafe { *t.array.add(len) = value };
    t.array_len = len + 1;
    t.note_array_store(value);
    write_barrier(&mut t.header);
    true
}

#[no_mangle]
pub fn lua_get_table(table: u64, key: u64) -> ! {
    if let Some(v) = get_fast(TValue(table), TValue(key)) {
        api::ret(v)
    }
    let r = unsafe { lua_rt_index(ctx(), table, key, api::stack_base(), api::code_block()) };
    finish(r, 2, lua_get_table_mm_continuation as *const ())
}

#[no_mangle]
pub fn lua_get_table_mm_continuation(_table: u64, _key: u64) -> ! {
    // Only a metamethod returns here: the whole continuation is a slow path.
    api::cold_path();
    runtime_call_returned();
    api::ret(first_result())
}

/// `table[index]` for a constant integer index (a 16-bit literal): the array part without a
/// conversion, anything else as `GetTable` does with the number.
#[no_mangle]
pub fn lua_get_table_int(table: u64, index: u64) -> ! {
    let t = TValue(table);
    if t.is_table() {
        let tt = unsafe { &*t.as_table() };
        let i = index.wrapping_sub(1) as usize;
        if i < tt.array_len {
            let v = unsafe { *tt.array.add(i) };
            if !v.is_nil() || tt.metatable.is_null() {
                api::ret(v.raw())
            }
        }
    }
    let r = unsafe { lua_rt_index(ctx(), table, num(index as f64), api::stack_base(), api::code_block()) };
    finish(r, 2, lua_get_table_int_mm_continuation as *const ())
}

#[no_mangle]
pub fn lua_get_table_int_mm_continuation(_table: u64, _index: u64) -> ! {
    // Only a metamethod returns here: the whole continuation is a slow path.
    api::cold_path();
    runtime_call_returned();
    api::ret(first_result())
}

/// `table[index] = value` for a constant integer index: in place in the array part (or as
/// its append), anything else as `SetTable` does with the number.
#[no_mangle]
pub fn lua_set_table_int(table: u64, index: u64, value: u64) -> ! {
    let t = TValue(table);
    if t.is_table() {
        let tt = unsafe { &mut *t.as_table() };
        let i = index.wrapping_sub(1) as usize;
        if i < tt.array_len {
            let slot = unsafe { tt.array.add(i) };
            if !unsafe { (*slot).is_nil() } || tt.metatable.is_null() {
                unsafe { *slot = TValue(value) };
                tt.note_array_store(TValue(value));
                write_barrier(&mut tt.header);
                api::fallthrough()
            }
        } else if append_in_place(tt, |len| index == len as u64 + 1, TValue(value)) {
            api::fallthrough()
        }
    }
    let r = unsafe { lua_rt_newindex(ctx(), table, num(index as f64), value, api::stack_base(), api::code_block()) };
    finish_store(r, lua_set_table_int_mm_continuation as *const ())
}

#[no_mangle]
pub fn lua_set_table_int_mm_continuation(_table: u64, _index: u64, _value: u64) -> ! {
    // Only a metamethod returns here: the whole continuation is a slow path.
    api::cold_path();
    runtime_call_returned();
    api::fallthrough()
}

#[no_mangle]
pub fn lua_set_table(table: u64, key: u64, value: u64) -> ! {
    if raw_set_fast(TValue(table), TValue(key), value) {
        api::fallthrough()
    }
    let r = unsafe { lua_rt_newindex(ctx(), table, key, value, api::stack_base(), api::code_block()) };
    finish_store(r, lua_set_table_mm_continuation as *const ())
}

/// `table[name]` for an interned string `name`, through the instruction's inline cache (fused
/// into the opcode: a quickened handler reads the slot where its kind says and knows whether
/// the table may have a metatable): the raw value, or nil where the table has no metatable;
/// `None` for what needs the runtime.
#[inline(always)]
fn get_string_fast<const WAYS: usize>(table: TValue, name: TValue, slot_cache: *mut u8) -> Option<u64> {
    if !table.is_heap() {
        return None;
    }
    // SAFETY: the cache is the instruction's `ic` operand of WAYS entries; names are interned strings.
    // A hit proves a table (the key is in every object's header), so the kind is tested on a
    // miss only.
    match unsafe { string_slot_cached_fused::<WAYS, false>(table, name, slot_cache) } {
        FieldLookup::Present(found) => {
            let value = unsafe { *found.slot };
            if !value.is_nil() || !found.may_have_metatable || unsafe { (*table.as_table()).metatable.is_null() } {
                return Some(value.raw());
            }
            None
        }
        FieldLookup::Absent { may_have_metatable } => (!may_have_metatable || unsafe { (*table.as_table()).metatable.is_null() }).then_some(NIL_BITS),
        FieldLookup::NotATable => None,
    }
}

/// `table[name] = value` in place for an interned string `name` already present, through the
/// (fused) inline cache, or as a new key along the shape's last transition; other new keys, and
/// nil values under a metatable, need the runtime.
#[inline(always)]
fn set_string_fast<const WAYS: usize>(table: TValue, name: TValue, value: u64, slot_cache: *mut u8) -> bool {
    if !table.is_heap() {
        return false;
    }
    // SAFETY: as in `get_string_fast`.
    let found = match unsafe { string_slot_cached_fused::<WAYS, true>(table, name, slot_cache) } {
        FieldLookup::Present(found) => found,
        FieldLookup::NotATable => return false,
        FieldLookup::Absent { may_have_metatable } => {
            // A new key (a field of an object under construction: the cache remembers that
            // its shape lacks the key): where no `__newindex` is to be asked (no metatable, or
            // one without it), the shape's last transition may add it here. A slow path in JIT
            // code only: in line, the add was about 220 bytes of every SetField stencil (10%
            // more code per bytecode) for 2-4% fewer instructions on raytracer; the
            // interpreter's one handler keeps it.
            api::jit_cold_path();
            let t = unsafe { &mut *table.as_table() };
            if TValue(value).is_nil() {
                return false;
            }
            if may_have_metatable && !t.metatable.is_null() {
                let shared = unsafe { &*(*ctx()).shared };
                if !unsafe { &*t.metatable }.lacks_string(shared.newindex_event) {
                    return false;
                }
            }
            if !t.add_string_fast(name, TValue(value)) {
                return false;
            }
            write_barrier(&mut t.header);
            return true;
        }
    };
    let slot = unsafe { &mut *found.slot };
    if slot.is_nil() && found.may_have_metatable {
        // A field that holds nil (set to nil, or a link at the end of a list) of an object with
        // a metatable: `__newindex` is asked, unless the metatable lacks it, as a class's
        // does (its key filter answers). Through the runtime's store, richards executed 7%
        // more instructions. A slow path in JIT code only, as the add of a new key above: in
        // line it was 90 more bytes in the cold part of every copy of a SetField whose cache
        // allows a metatable, for 1% fewer instructions.
        let t = unsafe { &*table.as_table() };
        if !t.metatable.is_null() {
            api::jit_cold_path();
            let shared = unsafe { &*(*ctx()).shared };
            if !unsafe { &*t.metatable }.lacks_string(shared.newindex_event) {
                return false;
            }
        }
    }
    *slot = TValue(value);
    write_barrier(table.as_ptr());
    true
}

/// `t.name` for a constant string `name`.
#[no_mangle]
pub fn lua_get_field(table: u64, name: u64, slot_cache: *mut u8) -> ! {
    if let Some(v) = get_string_fast::<FIELD_IC_WAYS>(TValue(table), TValue(name), slot_cache) {
        api::ret(v)
    }
    // A slow path, if a common one: kept in line, the walk made every GetField stencil a
    // quarter longer (hot-cold-split keeps what calls nothing).
    api::cold_path();
    let (from, depth) = match index_chain_fast(TValue(table), TValue(name)) {
        Ok(v) => api::ret(v),
        Err(stopped) => stopped,
    };
    let r = unsafe { lua_rt_index_from(ctx(), from.raw(), name, depth as u64, api::stack_base(), api::code_block()) };
    finish(r, 2, lua_get_field_mm_continuation as *const ())
}

#[no_mangle]
pub fn lua_get_field_mm_continuation(_table: u64, _name: u64, _slot_cache: *mut u8) -> ! {
    // Only a metamethod returns here: the whole continuation is a slow path.
    api::cold_path();
    runtime_call_returned();
    api::ret(first_result())
}

/// `t.name = value` for a constant string `name`.
#[no_mangle]
pub fn lua_set_field(table: u64, name: u64, value: u64, slot_cache: *mut u8) -> ! {
    if set_string_fast::<FIELD_IC_WAYS>(TValue(table), TValue(name), value, slot_cache) {
        api::fallthrough()
    }
    let r = unsafe { lua_rt_newindex(ctx(), table, name, value, api::stack_base(), api::code_block()) };
    finish_store(r, lua_set_field_mm_continuation as *const ())
}

#[no_mangle]
pub fn lua_set_field_mm_continuation(_table: u64, _name: u64, _value: u64, _slot_cache: *mut u8) -> ! {
    // Only a metamethod returns here: the whole continuation is a slow path.
    api::cold_path();
    runtime_call_returned();
    api::fallthrough()
}

#[no_mangle]
pub fn lua_set_table_mm_continuation(_table: u64, _key: u64, _value: u64) -> ! {
    // Only a metamethod returns here: the whole continuation is a slow path.
    api::cold_path();
    runtime_call_returned();
    api::fallthrough()
}

/// A constructor's `name = value` (see the spec): a store, or an add along the hidden class's
/// last transition, that a nil value does not skip. Only bytecode from outside the compiler
/// aims it at something else than a new table: anything with a metatable (or not a table) gets
/// the ordinary store, `__newindex` included.
#[no_mangle]
pub fn lua_init_field(table: u64, name: u64, value: u64, slot_cache: *mut u8) -> ! {
    let t = TValue(table);
    if t.is_table() {
        // SAFETY: a table; the cache is the instruction's fused 8-byte `slot` operand.
        match unsafe { string_slot_cached_fused::<1, true>(t, TValue(name), slot_cache) } {
            FieldLookup::Present(found) if !found.may_have_metatable || unsafe { (*t.as_table()).metatable.is_null() } => {
                unsafe { *found.slot = TValue(value) };
                write_barrier(t.as_ptr());
                api::fallthrough()
            }
            FieldLookup::Absent { may_have_metatable } if !may_have_metatable || unsafe { (*t.as_table()).metatable.is_null() } => {
                // A slow path in JIT code only, as SetField's add.
                api::jit_cold_path();
                let tt = unsafe { &mut *t.as_table() };
                if tt.add_string_fast(TValue(name), TValue(value)) {
                    write_barrier(&mut tt.header);
                    api::fallthrough()
                }
                let error = unsafe { lua_rt_init_field(ctx(), table, name, value) };
                if error != 0 {
                    api::throw_runtime_error(error)
                }
                api::fallthrough()
            }
            _ => {}
        }
    }
    api::cold_path();
    let r = unsafe { lua_rt_newindex(ctx(), table, name, value, api::stack_base(), api::code_block()) };
    // SetField's continuation: the operands are the same.
    finish_store(r, lua_set_field_mm_continuation as *const ())
}

/// `obj:name(...)`: `frame[0] = obj.name`, and `obj` becomes the first argument.
#[no_mangle]
pub fn lua_get_method(obj: u64, name: u64, frame: *mut u64, receiver_cache: *mut u8, method_cache: *mut u8) -> ! {
    unsafe { *frame.add(FRAME_HEADER_SLOTS) = obj };
    if let Some(v) = get_method_fast(TValue(obj), TValue(name), receiver_cache, method_cache) {
        unsafe { *frame = v };
        api::fallthrough()
    }
    let r = unsafe { lua_rt_index(ctx(), obj, name, api::stack_base(), api::code_block()) };
    if r.kind == RT_VALUE {
        unsafe { *frame = r.value };
        api::fallthrough()
    }
    if r.kind == RT_CALL {
        call_unnamed(r.value as *mut u64, 2, lua_get_method_continuation as *const ())
    }
    api::throw_runtime_error(r.value)
}

#[no_mangle]
pub fn lua_get_method_continuation(_obj: u64, _name: u64, frame: *mut u64, _receiver_cache: *mut u8, _method_cache: *mut u8) -> ! {
    // Only a metamethod returns here: the whole continuation is a slow path.
    api::cold_path();
    runtime_call_returned();
    unsafe { *frame = first_result() };
    api::fallthrough()
}

/// Stores `count` values from `values` into `table[first_index ..]` (table constructors).
#[no_mangle]
pub fn lua_set_list(table: u64, values: *mut u64, count: u64, first_index: u64) -> ! {
    store_list(table, values, count, first_index)
}

/// The list store both `SetList` forms make; its error (see `lua_rt_set_list`) is thrown.
/// A constructor's list that continues the array part within its capacity, with no hash part
/// that could hold the keys it covers (the usual `{a, b, c}`: the table is new, and its array
/// part was sized for the list), is copied here; the runtime does the rest.
#[inline(always)]
fn store_list(table: u64, values: *mut u64, count: u64, first_index: u64) -> ! {
    let t = TValue(table);
    if t.is_table() {
        let tb = unsafe { &mut *t.as_table() };
        let start = first_index.wrapping_sub(1) as usize;
        let n = count as usize;
        if tb.array_len == start && tb.used == 0 && n <= tb.array_cap - start {
            let mut i = 0;
            while i < n {
                let v = unsafe { TValue(*values.add(i)) };
                unsafe { *tb.array.add(start + i) = v };
                tb.note_array_store(v);
                i += 1;
            }
            tb.array_len = start + n;
            write_barrier(&mut tb.header);
            api::fallthrough()
        }
    }
    let error = unsafe { lua_rt_set_list(ctx(), table, values, count, first_index) };
    if error != 0 {
        api::throw_runtime_error(error)
    }
    api::fallthrough()
}

/// Like `lua_set_list`, with the variable results of the previous call after `num_fixed`.
#[no_mangle]
pub fn lua_set_list_var_args(table: u64, values: *mut u64, num_fixed: u64, first_index: u64) -> ! {
    store_list(table, values, num_fixed + unsafe { (*ctx()).var_results }, first_index)
}

/// `...`: copies `count` extra arguments to `dst` (nil-padded), or every one for `MULTRET`.
#[no_mangle]
pub fn lua_vararg(dst: *mut u64, count: u64) -> ! {
    unsafe {
        let base = api::stack_base();
        let available = *base.offset(deegen_api::frame::NUM_VARARGS as isize);
        let src = base.sub(FRAME_HEADER_SLOTS + available as usize);
        let n = if count == MULTRET {
            if !(*ctx()).interp.claim_stack(dst.add(available as usize)) {
                api::throw_runtime_error(lua_rt_stack_overflow(ctx()))
            }
            (*ctx()).var_results = available;
            available
        } else {
            count
        };
        let mut i = 0;
        while i < n {
            *dst.add(i as usize) = if i < available { *src.add(i as usize) } else { NIL_BITS };
            i += 1;
        }
    }
    api::fallthrough()
}

/// Generic `for`: `base[0..3]` hold the iterator, its state and the control value; the loop
/// variables live from `base[3]`. Calls the iterator in place at `base + 3`.
#[no_mangle]
pub fn lua_for_in(base: *mut u64, num_vars: u64) -> ! {
    match for_in_builtin_step(base, num_vars) {
        Some(true) => api::take_branch(),
        Some(false) => api::fallthrough(),
        None => {}
    }
    unsafe {
        let frame = base.add(3);
        *frame = *base;
        *frame.add(FRAME_HEADER_SLOTS) = *base.add(1);
        // (A traversal's place, left by a `next` loop whose generator `debug.setlocal`
        // replaced, is passed as the key it stands for.)
        let control = *base.add(2);
        *frame.add(FRAME_HEADER_SLOTS + 1) = TraversalPlace::control_key(TValue(*base.add(1)), control).map_or(control, TValue::raw);
        // 5.1 calls the iterator like a metamethod (`luaD_call`): it counts as a runtime call.
        let c_calls = (*ctx()).c_calls + 1;
        if c_calls >= lua51_value::MAX_C_CALLS {
            api::throw_runtime_error(lua_rt_c_stack_overflow(ctx()))
        }
        (*ctx()).c_calls = c_calls;
        call_unnamed(frame, 2, lua_for_in_continuation as *const ())
    }
}

/// One step of a generic `for` over `ipairs` or `pairs` (`next`) without calling the iterator:
/// `Some(loops)` after storing the loop variables and control value, `None` for other
/// iterators and for what needs the call (an invalid key to `next` raises its error there).
///
/// A `next` loop keeps its traversal's place in the control slot
/// ([`lua51_value::TRAVERSAL_TAG`]), as LuaJIT's `ITERN` does: its first step checks the
/// generator and the state, and the steps after it go on from the place, with no check of the
/// generator (which only `debug.setlocal` could change, and which then puts the key back) and
/// no key to decode.
#[inline(always)]
fn for_in_builtin_step(base: *mut u64, num_vars: u64) -> Option<bool> {
    unsafe {
        let table = TValue(*base.add(1));
        let vars = base.add(3);
        let control = *base.add(2);
        if let Some(from) = TraversalPlace::from_control(control) {
            if table.is_table() {
                return Some(for_in_next_from(base, num_vars, &*table.as_table(), from));
            }
        }
        let iterator = TValue(*base);
        if !iterator.is_function() || !table.is_table() {
            return None;
        }
        let native = (*(*iterator.as_closure()).code_block).native;
        if native == lua_next as *const () {
            let t = &*table.as_table();
            return match t.next_start_hinted(TValue(control)) {
                Some(from) => Some(for_in_next_from(base, num_vars, t, from)),
                // A key to look up (the loop's first control value was not nil): the runtime's
                // `next`, which raises the error of a key the table lacks.
                None => match lua_rt_next(table.raw(), control, vars) {
                    0 => {
                        *vars = NIL_BITS;
                        Some(false)
                    }
                    1 => {
                        fill_nil(vars, 2, num_vars);
                        *base.add(2) = *vars;
                        Some(true)
                    }
                    _ => None,
                },
            };
        }
        if native != lua_ipairs_aux as *const () {
            return None;
        }
        let control = TValue(control);
        if !control.is_double() {
            return None;
        }
        // ipairs reads raw, like 5.1's `rawgeti`: the array part, or (uncommon: a list built
        // out of order) the hash part.
        let key = TValue::from_f64(control.as_f64() + 1.0);
        let t = &*table.as_table();
        let value = match t.array_slot(key) {
            Some(slot) => *slot,
            None => {
                api::uncommon_path();
                t.raw_get(key)
            }
        };
        if value.is_nil() {
            *vars = NIL_BITS;
            return Some(false);
        }
        *vars = key.raw();
        *vars.add(1) = value.raw();
        fill_nil(vars, 2, num_vars);
        *base.add(2) = key.raw();
        Some(true)
    }
}

/// A `next` loop's step from `from`: the entry found goes to the loop variables and the place
/// after it to the control slot. (The loop variables have room for two values whatever
/// `num_vars` is: the iterator's call frame starts there.)
#[inline(always)]
fn for_in_next_from(base: *mut u64, num_vars: u64, t: &lua51_value::TableObject, from: TraversalPlace) -> bool {
    unsafe {
        let vars = base.add(3);
        match t.next_entry_from(from) {
            Some((k, v, after)) => {
                *vars = k.raw();
                *vars.add(1) = v.raw();
                fill_nil(vars, 2, num_vars);
                *base.add(2) = after.to_control();
                true
            }
            None => {
                *vars = NIL_BITS;
                false
            }
        }
    }
}

/// Sets `vars[from..count]` to nil.
#[inline(always)]
fn fill_nil(vars: *mut u64, from: u64, count: u64) {
    let mut i = from;
    while i < count {
        unsafe { *vars.add(i as usize) = NIL_BITS };
        i += 1;
    }
}

/// `next(table, key)` for a table (the library function's step): writes the entry after `key`
/// to `out[0..2]` and answers 1, answers 0 at the end, 2 for a key not in the table (the
/// caller's runtime path raises the error as 5.1 words it). In the handler when `key` is where
/// the table's traversal hint says (a traversal nothing interleaves with), an index of the
/// array part, or nil; the runtime looks any other key up.
#[inline(always)]
fn next_step(table: TValue, key: u64, out: *mut u64) -> u64 {
    let t = unsafe { &*table.as_table() };
    match t.next_start_hinted(TValue(key)) {
        Some(from) => match t.next_from(from) {
            Some((k, v)) => {
                unsafe {
                    *out = k.raw();
                    *out.add(1) = v.raw();
                }
                1
            }
            None => 0,
        },
        None => unsafe { lua_rt_next(table.raw(), key, out) },
    }
}

/// Stores the iterator's results in the loop variables; loops while the first is not nil.
#[no_mangle]
pub fn lua_for_in_continuation(base: *mut u64, num_vars: u64) -> ! {
    runtime_call_returned();
    let (values, count) = api::return_values();
    unsafe {
        let vars = base.add(3);
        let mut i = 0;
        while i < num_vars {
            *vars.add(i as usize) = if i < count { *values.add(i as usize) } else { NIL_BITS };
            i += 1;
        }
        if TValue(*vars).is_nil() {
            api::fallthrough()
        }
        *base.add(2) = *vars;
    }
    api::take_branch()
}

#[inline(always)]
fn close_upvalues_from(from: *mut u64) {
    unsafe {
        let c = ctx();
        let open = (*c).open_upvalues;
        if !open.is_null() && (*open).value >= from {
            lua_rt_close_upvalues(c, from);
        }
    }
}

/// `return first[0 .. count]`; `close` is 0 in a function that makes no closures (no local of
/// its frame can be captured, so there is nothing to close).
#[no_mangle]
pub fn lua_return(first: *mut u64, count: u64, close: u64) -> ! {
    if close != 0 {
        close_upvalues_from(api::stack_base());
    }
    api::return_from_function(first, count)
}

#[no_mangle]
pub fn lua_return_var_args(first: *mut u64, num_fixed: u64, close: u64) -> ! {
    let count = num_fixed + unsafe { (*ctx()).var_results };
    if close != 0 {
        close_upvalues_from(api::stack_base());
    }
    api::return_from_function(first, count)
}

#[no_mangle]
pub fn lua_new_closure(proto: u64) -> ! {
    api::ret(unsafe { lua_rt_new_closure(ctx(), proto, api::stack_base(), api::code_block()) })
}

#[inline(always)]
fn current_upvalue(index: u64) -> *mut lua51_value::UpVal {
    unsafe {
        let callee = TValue(*api::stack_base().sub(FRAME_HEADER_SLOTS));
        (*callee.as_closure()).upvalue(index as usize)
    }
}

#[no_mangle]
pub fn lua_get_upval(index: u64) -> ! {
    api::ret(unsafe { *(*current_upvalue(index)).value })
}

#[no_mangle]
pub fn lua_set_upval(index: u64, value: u64) -> ! {
    let upvalue = current_upvalue(index);
    unsafe { *(*upvalue).value = value };
    // An open upvalue is never black (its value is on a stack, which the collector scans
    // again at the end of the cycle): only a closed one can need the barrier.
    write_barrier(unsafe { &mut (*upvalue).header });
    api::fallthrough()
}

#[no_mangle]
pub fn lua_close(from: *mut u64) -> ! {
    close_upvalues_from(from);
    api::fallthrough()
}

// ---------------------------------------------------------------------------------------------
// Constants past the 16-bit operands
// ---------------------------------------------------------------------------------------------

/// Constant `index` of the running function: constant i lives at `code_block - 8 * (i + 1)`,
/// where the generated decoder reads 16-bit constant operands too.
#[inline(always)]
fn constant_at(index: u64) -> u64 {
    unsafe { *(api::code_block() as *const u64).sub(index as usize + 1) }
}

#[no_mangle]
pub fn lua_load_const_wide(index: u64) -> ! {
    api::ret(constant_at(index))
}

#[no_mangle]
pub fn lua_get_global_wide(name: u64) -> ! {
    let r = unsafe { lua_rt_index(ctx(), current_env(), constant_at(name), api::stack_base(), api::code_block()) };
    finish(r, 2, lua_get_global_wide_mm_continuation as *const ())
}

#[no_mangle]
pub fn lua_get_global_wide_mm_continuation(_name: u64) -> ! {
    // Only a metamethod returns here: the whole continuation is a slow path.
    api::cold_path();
    runtime_call_returned();
    api::ret(first_result())
}

#[no_mangle]
pub fn lua_set_global_wide(name: u64, value: u64) -> ! {
    let r = unsafe { lua_rt_newindex(ctx(), current_env(), constant_at(name), value, api::stack_base(), api::code_block()) };
    finish_store(r, lua_set_global_wide_mm_continuation as *const ())
}

#[no_mangle]
pub fn lua_set_global_wide_mm_continuation(_name: u64, _value: u64) -> ! {
    // Only a metamethod returns here: the whole continuation is a slow path.
    api::cold_path();
    runtime_call_returned();
    api::fallthrough()
}

#[no_mangle]
pub fn lua_new_closure_wide(proto: u64) -> ! {
    api::ret(unsafe { lua_rt_new_closure(ctx(), constant_at(proto), api::stack_base(), api::code_block()) })
}

// ---------------------------------------------------------------------------------------------
// Library functions written in the semantics (`lua51_specs::library`): their calls are in place,
// with no native frame; the runtime keeps a native twin of each for the debug hooks.
// ---------------------------------------------------------------------------------------------

/// `pcall(f, ...)`: calls `f` in a frame right above its own arguments. A return comes back to
/// `lua_lib_pcall_return` (`true` and the results); an error thrown anywhere inside the call
/// (with no native frame in between) unwinds to `lua_lib_pcall_catch` (`false` and the error),
/// as the runtime's throw hook finds this frame below the thrower.
#[no_mangle]
pub fn lua_lib_pcall(num_args: u64) -> ! {
    let base = api::stack_base();
    if num_args == 0 {
        api::cold_path();
        api::throw(unsafe { lua_rt_lib_argument_error(ctx(), base, 0, c"value expected".as_ptr().cast()) })
    }
    unsafe {
        let n = num_args as usize;
        let frame = base.add(n);
        if !(*ctx()).interp.claim_stack(frame.add(FRAME_HEADER_SLOTS + n)) {
            api::cold_path();
            api::throw(lua_rt_stack_overflow(ctx()))
        }
        *frame = *base;
        api::copy_slots(frame.add(FRAME_HEADER_SLOTS), base.add(1), num_args - 1);
        let mut num_args = num_args - 1;
        if !TValue(*frame).is_function() {
            api::cold_path();
            let r = lua_rt_call_handler(ctx(), frame, num_args, 0);
            if r.kind != RT_CALL {
                // "attempt to call a nil value": pcall's own answer, not a throw (a throw from
                // this frame would unwind past it).
                return_failure(base, r.value)
            }
            num_args += 1;
        }
        if !enter_protected(base) {
            api::cold_path();
            return_failure(base, lua_rt_c_stack_overflow(ctx()))
        }
        api::make_call(frame, num_args, lua_lib_pcall_return as *const ())
    }
}

/// A protected call (`pcall`, `xpcall` in the frame at `base`) counts as a nested entry while
/// it runs, as 5.1's `lua_pcall` counts in `nCcalls` (and the native ones in `native_depth`):
/// no yield across it, and at most `MAX_C_CALLS` nested (false: "C stack overflow"). The
/// function's slot keeps what the catch restores: both counts before this call (an error
/// unwinding through metamethods' continuations leaves theirs counted).
#[inline(always)]
fn enter_protected(base: *mut u64) -> bool {
    unsafe {
        let depth = native_depth();
        if *depth + 1 >= lua51_value::MAX_C_CALLS as usize {
            return false;
        }
        // Kept as raw bits: below 2^40 (the depth is under MAX_C_CALLS), which is a positive
        // subnormal double's pattern, so the slot still holds a number for the collector and
        // anything else that looks, and neither side converts (a `cvtsi2sd` here, a
        // `cvttsd2si` in the catch).
        *base = (*depth << 32 | (*ctx()).c_calls as usize) as u64;
        *depth += 1;
    }
    true
}

/// The function of a protected call returned: `true` and its results.
///
/// The results usually lie in the callee's frame on this stack, above the protected call's
/// own slots: the slot below them is dead, so `true` goes there and they are returned where
/// they are. Copying them down to `base + 1` first put one more store-to-load hop on the
/// path of every result (the caller's continuation copies them again) and ran the copy loop:
/// about a tenth of a `pcall`-heavy loop's time. Results on another stack (a `yield` inside
/// the call returns what its `resume` passed, on the resumer's stack) and a set debug hook
/// (whose return event wants them above `base`) take the copy.
#[inline(always)]
fn protected_call_returned() -> ! {
    unsafe { *native_depth() -= 1 };
    let (values, count) = api::return_values();
    let base = api::stack_base();
    let below = values.wrapping_sub(1);
    if below > base && below < unsafe { (*ctx()).interp.stack_limit } && unsafe { (*(*ctx()).shared).hooked } == 0 {
        unsafe { *below = TValue::TRUE.raw() };
        api::return_from_function(below, count + 1)
    }
    // Results above `base + 1` (in the callee's frame): a forward copy is safe.
    unsafe { *base = TValue::TRUE.raw() };
    api::copy_slots(unsafe { base.add(1) }, values, count);
    library_return(base, count + 1)
}

/// An error thrown inside a protected call unwound to its frame: `false` and the error (an
/// `xpcall`'s message handler already ran where it was thrown).
#[inline(always)]
fn protected_call_caught() -> ! {
    let base = api::stack_base();
    unsafe {
        let saved = *base as usize;
        let error = lua_rt_catch(ctx(), base);
        *native_depth() = saved >> 32;
        (*ctx()).c_calls = saved as u32;
        return_failure(base, error)
    }
}

/// `xpcall(f, handler)`: like `pcall` (of `f` with no arguments, in a frame above the three
/// slots it keeps: the saved counts, the handler, whether the handler ran). The runtime's throw
/// hook runs the handler where an error is raised, before it unwinds here (as 5.1 does). A
/// callee that is not a function, and the nesting limit, are the native twin's, whose errors
/// go through the handler too.
#[no_mangle]
pub fn lua_lib_xpcall(num_args: u64) -> ! {
    let base = api::stack_base();
    unsafe {
        if num_args < 2 || !TValue(*base).is_function() {
            native_twin(num_args)
        }
        let frame = base.add(3);
        if !(*ctx()).interp.claim_stack(frame.add(FRAME_HEADER_SLOTS)) {
            api::cold_path();
            api::throw(lua_rt_stack_overflow(ctx()))
        }
        *frame = *base;
        *base.add(2) = TValue::FALSE.raw();
        // (A failed entry leaves the arguments as they were: the twin reads them.)
        if !enter_protected(base) {
            native_twin(num_args)
        }
        api::make_call(frame, 0, lua_lib_xpcall_return as *const ())
    }
}

#[no_mangle]
pub fn lua_lib_xpcall_return() -> ! {
    protected_call_returned()
}

#[no_mangle]
pub fn lua_lib_xpcall_catch() -> ! {
    protected_call_caught()
}

/// The state's count of nested entries (`SharedState::native_depth`), which a generated
/// `pcall` keeps as the native one did.
#[inline(always)]
fn native_depth() -> *mut usize {
    unsafe { core::ptr::addr_of_mut!((*((*ctx()).shared as *mut lua51_value::SharedState)).native_depth) }
}

/// A protected call's failure (a `pcall`'s own before its call, an error caught, a coroutine
/// that died): `false` and `error`.
#[inline(always)]
fn return_failure(base: *mut u64, error: u64) -> ! {
    unsafe {
        *base = TValue::FALSE.raw();
        *base.add(1) = error;
    }
    library_return(base, 2)
}

/// `pcall`'s callee returned: `true` and its results.
#[no_mangle]
pub fn lua_lib_pcall_return() -> ! {
    protected_call_returned()
}

/// Returns `count` values from `base` from a library function, with the debug hooks' return
/// event when a hook was set after the function was entered (through its generated code).
#[inline(always)]
fn library_return(base: *mut u64, count: u64) -> ! {
    if unsafe { (*(*ctx()).shared).hooked } != 0 {
        api::cold_path();
        if unsafe { lua_rt_library_return_hook(ctx(), base, count) } {
            api::throw(unsafe { (*ctx()).interp.error })
        }
    }
    api::return_from_function(base, count)
}

/// An error thrown inside `pcall`'s call unwound to its frame: `false` and the error.
#[no_mangle]
pub fn lua_lib_pcall_catch() -> ! {
    protected_call_caught()
}

/// Goes on where the switch `to` of a `resume` (or a function `wrap` made) says: its native
/// twin, a new coroutine's call returning to `$done`, or a return into the coroutine's suspended
/// `yield`. A macro: the generator needs the continuation named at the `make_call_in`.
macro_rules! switch_to {
    ($to:expr, $num_args:expr, $done:path) => {{
        let to: lua51_value::RtSwitch = $to;
        if to.ctx.is_null() {
            native_twin($num_args)
        }
        if to.values.is_null() {
            api::make_call_in(to.ctx as *mut deegen_api::InterpContext, to.frame, to.count, $done as *const ())
        }
        switch_back(to)
    }};
}

/// Returns the values of the switch `to` into its frame, on its context (`return_in`).
#[inline(always)]
fn switch_back(to: lua51_value::RtSwitch) -> ! {
    api::return_in(to.ctx as *mut deegen_api::InterpContext, to.frame, to.values, to.count)
}

/// `coroutine.resume(co, ...)`: switches to the coroutine's stack and context in place, with no
/// native frame (the resumer stays parked in this frame). A new coroutine's function is called
/// on its stack with `lua_lib_coroutine_resume_done` as the return continuation (no caller
/// frame is seen past it: the coroutine's frames end there); a suspended one continues its
/// `yield` as if that returned the arguments. Either way the coroutine comes back through
/// `lua_lib_coroutine_resume_done`: from its `yield` or its function's return, or through the
/// catch when it dies of an error.
#[no_mangle]
pub fn lua_lib_coroutine_resume(num_args: u64) -> ! {
    let base = api::stack_base();
    let co = if num_args == 0 { TValue::NIL.raw() } else { unsafe { *base } };
    let to = unsafe { lua_rt_coroutine_resume(ctx(), co, base.add(1), num_args.saturating_sub(1), 0) };
    switch_to!(to, num_args, lua_lib_coroutine_resume_done)
}

/// The coroutine `co` of a `resume` or `wrap` in the frame at `base` came back with `count`
/// values from `values`. On the coroutine's context, its function returned: it is dead; switch
/// back, to come here again on the resumer's. There, `values` is null when it died of an
/// error (the error in `count`). Returns the values, or the error, in this case.
#[inline(always)]
fn coroutine_came_back(co: TValue, values: *mut u64, count: u64, base: *mut u64, room: usize) -> Result<(*mut u64, u64), u64> {
    unsafe {
        if ctx() as *mut u8 == co.as_ptr::<u8>().add(lua51_value::THREAD_CONTEXT_OFFSET) {
            switch_back(lua_rt_coroutine_returned(ctx(), values, count))
        }
        if values.is_null() {
            return Err(count);
        }
        if !(*ctx()).interp.claim_stack(base.add(room + count as usize)) {
            api::cold_path();
            api::throw(lua_rt_stack_overflow(ctx()))
        }
    }
    Ok((values, count))
}

/// The coroutine came back to its `resume` (this frame): `true` and the values, or `false` and
/// the error.
#[no_mangle]
pub fn lua_lib_coroutine_resume_done() -> ! {
    let (values, count) = api::return_values();
    let base = api::stack_base();
    match coroutine_came_back(TValue(unsafe { *base }), values, count, base, 1) {
        Ok((values, count)) => {
            unsafe { *base = TValue::TRUE.raw() };
            api::copy_slots(unsafe { base.add(1) }, values, count);
            library_return(base, count + 1)
        }
        Err(error) => return_failure(base, error),
    }
}

/// An error unwound to the bottom of a coroutine that a generated `resume` or `wrap` (this
/// frame) runs, or a native `yield` (debug hooks on) left it: back to the resumer.
#[inline(always)]
fn coroutine_caught() -> ! {
    switch_back(unsafe { lua_rt_coroutine_caught(ctx()) })
}

#[no_mangle]
pub fn lua_lib_coroutine_resume_catch() -> ! {
    coroutine_caught()
}

/// The coroutine a function made by `coroutine.wrap` runs (its upvalue).
#[inline(always)]
fn wrapped_coroutine() -> TValue {
    unsafe { TValue((*current_upvalue(0)).closed) }
}

/// A function made by `coroutine.wrap`: `resume` of its coroutine, whose values it returns
/// and whose error it raises again.
#[no_mangle]
pub fn lua_lib_coroutine_wrapped(num_args: u64) -> ! {
    let base = api::stack_base();
    let to = unsafe { lua_rt_coroutine_resume(ctx(), wrapped_coroutine().raw(), base, num_args, 1) };
    switch_to!(to, num_args, lua_lib_coroutine_wrapped_done)
}

#[no_mangle]
pub fn lua_lib_coroutine_wrapped_done() -> ! {
    let (values, count) = api::return_values();
    let base = api::stack_base();
    match coroutine_came_back(wrapped_coroutine(), values, count, base, 0) {
        Ok((values, count)) => {
            api::copy_slots(base, values, count);
            library_return(base, count)
        }
        // Raised again with the caller's position, as lua5.1's `auxwrap` does for a string.
        Err(error) => api::throw(unsafe { lua_rt_wrapped_error(ctx(), base, error) }),
    }
}

#[no_mangle]
pub fn lua_lib_coroutine_wrapped_catch() -> ! {
    coroutine_caught()
}

/// `coroutine.create(f)`: the new coroutine (the runtime allocates it: a collection safe
/// point); a function that is not a Lua function, and running out of memory, are the twin's.
#[no_mangle]
pub fn lua_lib_coroutine_create(num_args: u64) -> ! {
    let co = unsafe { lua_rt_coroutine_create(ctx(), api::stack_base(), num_args) };
    if co == 0 {
        native_twin(num_args)
    }
    return_one(co)
}

/// `coroutine.running()`: the coroutine whose context this is, or nil on the main thread's
/// (which lies at the state's address).
#[no_mangle]
pub fn lua_lib_coroutine_running(_num_args: u64) -> ! {
    let c = ctx();
    let running = if c as *mut () == unsafe { (*c).runtime } {
        TValue::NIL
    } else {
        TValue::from_object(unsafe { (c as *mut u8).sub(lua51_value::THREAD_CONTEXT_OFFSET) }.cast())
    };
    return_one(running.raw())
}

/// `coroutine.status(co)`: the interned name its status byte indexes; anything but a
/// coroutine is the twin's (the argument error).
#[no_mangle]
pub fn lua_lib_coroutine_status(num_args: u64) -> ! {
    let co = if num_args == 0 { TValue::NIL } else { TValue(unsafe { *api::stack_base() }) };
    if !co.is_kind(lua51_value::ObjKind::Thread) {
        native_twin(num_args)
    }
    // SAFETY: a thread object, whose status byte is one of the four (`lua51_vm`'s `CoStatus`).
    let status = unsafe { *co.as_ptr::<u8>().add(lua51_value::THREAD_STATUS_OFFSET) } as usize;
    let shared = unsafe { &*(*ctx()).shared };
    return_one(shared.status_names[status & 3].raw())
}

/// `coroutine.yield(...)`: switches back to the resumer in place (to its `resume`'s
/// `lua_lib_coroutine_resume_done`), leaving this frame suspended; a later `resume` returns
/// from it.
#[no_mangle]
pub fn lua_lib_coroutine_yield(num_args: u64) -> ! {
    let base = api::stack_base();
    let to = unsafe { lua_rt_coroutine_yield(ctx(), base, num_args) };
    if to.ctx.is_null() {
        native_twin(num_args)
    }
    switch_back(to)
}

/// The rare cases of a library function (argument errors, metamethods, anything its fast path
/// does not handle): its native twin does the whole call, in this frame.
#[inline(always)]
fn native_twin(num_args: u64) -> ! {
    api::cold_path();
    let base = api::stack_base();
    let n = unsafe { lua_rt_native_twin(ctx(), base, num_args, api::code_block()) };
    if n < 0 {
        // Raised in this frame, with no position of its own: as `entry_native` throws.
        api::throw(unsafe { (*ctx()).interp.error })
    }
    api::return_from_function(base, n as u64)
}

#[inline(always)]
fn shared() -> &'static lua51_value::SharedState {
    unsafe { &*(*ctx()).shared }
}

/// Returns the one value `v` from a library function (in its first slot).
#[inline(always)]
fn return_one(v: u64) -> ! {
    let base = api::stack_base();
    unsafe { *base = v };
    api::return_from_function(base, 1)
}

/// The first argument when it is a table; anything else (none, another type) is the native
/// twin's to answer (or to word the error of).
#[inline(always)]
fn table_argument(num_args: u64) -> TValue {
    let t = TValue(unsafe { *api::stack_base() });
    if num_args == 0 || !t.is_table() {
        native_twin(num_args)
    }
    t
}

/// Returns a generic `for`'s triple: iterator `f`, state `t`, control value `control`.
#[inline(always)]
fn return_iteration(f: TValue, t: TValue, control: u64) -> ! {
    let base = api::stack_base();
    unsafe {
        *base = f.raw();
        *base.add(1) = t.raw();
        *base.add(2) = control;
    }
    api::return_from_function(base, 3)
}

/// `type(v)`: the interned name, no allocation.
#[no_mangle]
pub fn lua_lib_type(num_args: u64) -> ! {
    if num_args == 0 {
        native_twin(num_args)
    }
    let v = TValue(unsafe { *api::stack_base() });
    return_one(shared().type_names[lua51_value::type_index(v)].raw())
}

/// `select(n, ...)`: the values after the `n`th where they lie (no copy), or their number.
#[no_mangle]
pub fn lua_lib_select(num_args: u64) -> ! {
    let base = api::stack_base();
    if num_args == 0 {
        native_twin(num_args)
    }
    let n = TValue(unsafe { *base });
    // An index in C int range (beyond, 5.1's luaL_checkint wraps it: the twin knows how); a
    // negative one counts from the end.
    if n.is_double() && n.as_f64().abs() < 2147483648.0 {
        // SAFETY: finite (NaN fails the test above) and within i64; truncates as the C cast.
        let i: i64 = unsafe { n.as_f64().to_int_unchecked() };
        let i = if i < 0 {
            num_args as i64 + i
        } else if i > num_args as i64 {
            num_args as i64
        } else {
            i
        };
        if i >= 1 {
            api::return_from_function(unsafe { base.add(i as usize) }, num_args - i as u64)
        }
    } else if n.is_string() && unsafe { (*n.as_string()).len > 0 && *(*n.as_string()).data() == b'#' } {
        return_one(num((num_args - 1) as f64))
    }
    native_twin(num_args)
}

/// `rawget(t, k)`.
#[no_mangle]
pub fn lua_lib_rawget(num_args: u64) -> ! {
    let t = table_argument(num_args);
    if num_args < 2 {
        native_twin(num_args)
    }
    return_one(unsafe { (*t.as_table()).raw_get(TValue(*api::stack_base().add(1))) }.raw())
}

/// `rawset(t, k, v)`: a store into an existing array slot or named slot, or a new string key
/// the table's shape adds in place; everything else (new keys, invalid keys, errors) is the
/// twin's.
#[no_mangle]
pub fn lua_lib_rawset(num_args: u64) -> ! {
    let t = table_argument(num_args);
    if num_args < 3 {
        native_twin(num_args)
    }
    let base = api::stack_base();
    let (key, value) = unsafe { (TValue(*base.add(1)), TValue(*base.add(2))) };
    let tb = unsafe { &mut *t.as_table() };
    if let Some(slot) = tb.array_slot(key) {
        unsafe { *slot = value };
        tb.note_array_store(value);
    } else if !key.is_string() {
        native_twin(num_args)
    } else if let Some(slot) = tb.string_slot(key) {
        unsafe { *slot = value };
    } else if value.is_nil() || !tb.add_string_fast(key, value) {
        native_twin(num_args)
    }
    write_barrier(&mut tb.header);
    return_one(t.raw())
}

/// `setmetatable(t, mt)` for a table whose metatable is not protected (`__metatable`); errors
/// are the twin's.
#[no_mangle]
pub fn lua_lib_setmetatable(num_args: u64) -> ! {
    let t = table_argument(num_args);
    if num_args < 2 {
        native_twin(num_args)
    }
    let mt = TValue(unsafe { *api::stack_base().add(1) });
    if !(mt.is_nil() || mt.is_table()) {
        native_twin(num_args)
    }
    let tb = unsafe { &mut *t.as_table() };
    if !tb.metatable.is_null() && !unsafe { &*tb.metatable }.raw_get_str(shared().metatable_event).is_nil() {
        native_twin(num_args)
    }
    tb.set_metatable(if mt.is_nil() { core::ptr::null_mut() } else { mt.as_table() });
    write_barrier(&mut tb.header);
    return_one(t.raw())
}

/// `error(v [, level])` for what needs no position (a level of 0, a value that is not a
/// string or number): thrown from this frame, as the native throws it. A position, and an
/// invalid level, are the twin's.
#[no_mangle]
pub fn lua_lib_error(num_args: u64) -> ! {
    let base = api::stack_base();
    let v = if num_args == 0 { TValue::NIL } else { TValue(unsafe { *base }) };
    let level = if num_args < 2 { TValue::NIL } else { TValue(unsafe { *base.add(1) }) };
    let positioned = level.is_nil() || !level.is_double() || level.as_f64() >= 1.0 || level.as_f64().is_nan();
    if positioned && (v.is_string() || v.is_double()) {
        native_twin(num_args)
    }
    if !level.is_nil() && !level.is_double() {
        native_twin(num_args)
    }
    api::throw(v.raw())
}

/// `rawequal(a, b)`.
#[no_mangle]
pub fn lua_lib_rawequal(num_args: u64) -> ! {
    let base = api::stack_base();
    if num_args < 2 {
        native_twin(num_args)
    }
    let (a, b) = unsafe { (TValue(*base), TValue(*base.add(1))) };
    return_one(TValue::from_bool(a.raw_equals(b)).raw())
}

/// `next(t, k)`: the entry after `k`, or nil at the end.
#[no_mangle]
pub fn lua_lib_next(num_args: u64) -> ! {
    let t = table_argument(num_args);
    let base = api::stack_base();
    let key = if num_args >= 2 { unsafe { *base.add(1) } } else { NIL_BITS };
    match next_step(t, key, base) {
        1 => api::return_from_function(base, 2),
        0 => return_one(NIL_BITS),
        // An invalid key: the twin raises the error.
        _ => native_twin(num_args),
    }
}

/// `pairs(t)`: `next, t, nil`.
#[no_mangle]
pub fn lua_lib_pairs(num_args: u64) -> ! {
    let t = table_argument(num_args);
    return_iteration(shared().next_fn, t, NIL_BITS)
}

/// `ipairs(t)`: its iterator, `t`, 0.
#[no_mangle]
pub fn lua_lib_ipairs(num_args: u64) -> ! {
    let t = table_argument(num_args);
    return_iteration(shared().ipairs_aux_fn, t, num(0.0))
}

/// `table.insert(t, v)`: 5.1's `lua_rawseti(t, #t + 1, v)`, where that is a push
/// (`push`: a metatable is not consulted; a full array part grows). A position, a nil value,
/// a table with a hash part (whose border may lie past the array part), and every error are
/// the twin's.
#[no_mangle]
pub fn lua_lib_table_insert(num_args: u64) -> ! {
    let t = table_argument(num_args);
    if num_args != 2 {
        native_twin(num_args)
    }
    let base = api::stack_base();
    if !push(unsafe { &mut *t.as_table() }, TValue(unsafe { *base.add(1) }), Border::Assumed) {
        native_twin(num_args)
    }
    api::return_from_function(base, 0)
}

/// `unpack(t)` of a table whose length needs no search, with room for the values.
#[no_mangle]
pub fn lua_lib_unpack(num_args: u64) -> ! {
    let t = table_argument(num_args);
    let base = api::stack_base();
    if num_args != 1 {
        native_twin(num_args)
    }
    let table = unsafe { &*t.as_table() };
    let Some(n) = table.length_fast() else { native_twin(num_args) };
    if !unsafe { (*ctx()).interp.claim_stack(base.add(n)) } {
        native_twin(num_args)
    }
    // The length needs no search: the array part holds 1..=n.
    let mut i = 0;
    while i < n {
        unsafe { *base.add(i) = (*table.array.add(i)).raw() };
        i += 1;
    }
    api::return_from_function(base, n as u64)
}

/// `assert(v, ...)`: every argument when `v` is true.
#[no_mangle]
pub fn lua_lib_assert(num_args: u64) -> ! {
    let base = api::stack_base();
    if num_args == 0 || TValue(unsafe { *base }).is_falsy() {
        native_twin(num_args)
    }
    api::return_from_function(base, num_args)
}

/// `getmetatable(t)` of a table: its metatable, or that metatable's `__metatable` field.
#[no_mangle]
pub fn lua_lib_getmetatable(num_args: u64) -> ! {
    let t = table_argument(num_args);
    let mt = unsafe { (*t.as_table()).metatable };
    if mt.is_null() {
        return_one(NIL_BITS)
    }
    let protected = unsafe { (*mt).raw_get_str(shared().metatable_event) };
    return_one(if protected.is_nil() { TValue::from_table(mt).raw() } else { protected.raw() })
}

/// `tostring(s)` of a string, when strings have no `__tostring`.
#[no_mangle]
pub fn lua_lib_tostring(num_args: u64) -> ! {
    let base = api::stack_base();
    let v = TValue(unsafe { *base });
    if num_args == 0 || !v.is_string() {
        native_twin(num_args)
    }
    let mt = shared().string_metatable;
    if !mt.is_null() && !unsafe { (*mt).raw_get_str(shared().tostring_event) }.is_nil() {
        native_twin(num_args)
    }
    return_one(v.raw())
}

/// An integral number in C int range, which 5.1's `luaL_checkinteger` takes as it is; `None`
/// for anything the native twin must judge (other types, fractions, coercions, huge values).
#[inline(always)]
fn small_integer(v: TValue) -> Option<i64> {
    if !v.is_double() {
        return None;
    }
    let x = v.as_f64();
    // One compare, false for NaN too.
    if x.abs().partial_cmp(&2147483648.0) != Some(core::cmp::Ordering::Less) {
        return None;
    }
    // SAFETY: finite and within i64 (the saturating `as` cost eight more instructions).
    let i: i64 = unsafe { x.to_int_unchecked() };
    (i as f64 == x).then_some(i)
}

/// `string.len(s)` of a string.
#[no_mangle]
pub fn lua_lib_string_len(num_args: u64) -> ! {
    let s = TValue(unsafe { *api::stack_base() });
    if num_args == 0 || !s.is_string() {
        native_twin(num_args)
    }
    return_one(num(unsafe { (*s.as_string()).len } as f64))
}

/// `string.byte(s [, i])` of one byte inside the string.
#[no_mangle]
pub fn lua_lib_string_byte(num_args: u64) -> ! {
    let base = api::stack_base();
    let s = TValue(unsafe { *base });
    if num_args == 0 || num_args > 2 || !s.is_string() {
        native_twin(num_args)
    }
    let len = unsafe { (*s.as_string()).len } as i64;
    let i = if num_args == 2 {
        match small_integer(TValue(unsafe { *base.add(1) })) {
            Some(i) => i,
            None => native_twin(num_args),
        }
    } else {
        1
    };
    let i = if i < 0 { len + i + 1 } else { i };
    if i < 1 || i > len {
        native_twin(num_args)
    }
    return_one(num(f64::from(unsafe { *(*s.as_string()).data().add(i as usize - 1) })))
}

/// `string.sub(s, i [, j])` with integer bounds: the string itself when they cover it, else
/// the interned piece.
#[no_mangle]
pub fn lua_lib_string_sub(num_args: u64) -> ! {
    let base = api::stack_base();
    let s = TValue(unsafe { *base });
    if !(2..=3).contains(&num_args) || !s.is_string() {
        native_twin(num_args)
    }
    let len = unsafe { (*s.as_string()).len } as i64;
    let Some(i) = small_integer(TValue(unsafe { *base.add(1) })) else { native_twin(num_args) };
    let j = if num_args == 3 {
        match small_integer(TValue(unsafe { *base.add(2) })) {
            Some(j) => j,
            None => native_twin(num_args),
        }
    } else {
        -1
    };
    // 5.1's str_sub: negative positions count from the end, then clamp.
    let start = if i < 0 { len + i + 1 } else { i }.max(1);
    let end = if j < 0 { len + j + 1 } else { j }.min(len);
    if start == 1 && end == len {
        return_one(s.raw())
    }
    // An empty piece may start past the end (`s:sub(100)`): it is the empty string.
    let (first, count) = if start <= end { (start - 1, end - start + 1) } else { (0, 0) };
    if count == 1 {
        // One byte: the state interned every one-byte string when it was made.
        let byte = unsafe { *(*s.as_string()).data().add(first as usize) };
        return_one(unsafe { (*(*ctx()).shared).single_byte_strings[usize::from(byte)] }.raw())
    }
    let piece = unsafe { lua_rt_substring(ctx(), base, num_args, s.raw(), first as u64, count as u64) };
    if piece == NIL_BITS {
        // Out of memory: the twin raises it.
        native_twin(num_args)
    }
    return_one(piece)
}

/// `math.floor(x)` of a number (the twin converts a numeric string, and words the error for
/// anything else). Extra arguments are ignored, as 5.1 does.
#[no_mangle]
pub fn lua_lib_math_floor(num_args: u64) -> ! {
    let x = number_argument(num_args);
    // C's `floor`, which LLVM makes one `roundsd`: the result of a number is a number (a
    // NaN argument gives back that NaN).
    return_one(num(unsafe { floor(x) }))
}

/// `math.ceil(x)` of a number, as `math.floor`.
#[no_mangle]
pub fn lua_lib_math_ceil(num_args: u64) -> ! {
    let x = number_argument(num_args);
    return_one(num(unsafe { ceil(x) }))
}

/// `math.sqrt(x)` of a number: `sqrtsd`, whose result C's `sqrt` returns too (a NaN for a
/// negative number). Not through a call of C's `sqrt`: LLVM keeps one for negative arguments
/// (to set `errno`), and a handler with a call in it had its whole fast path outlined.
#[no_mangle]
pub fn lua_lib_math_sqrt(num_args: u64) -> ! {
    let mut x = number_argument(num_args);
    // SAFETY: one SSE2 instruction on a register, no memory, no flags.
    unsafe { core::arch::asm!("sqrtsd {x}, {x}", x = inout(xmm_reg) x, options(pure, nomem, nostack, preserves_flags)) };
    return_one(num(x))
}

/// `math.abs(x)` of a number: the sign bit cleared, as C's `fabs` (of `-0` and of a NaN too).
#[no_mangle]
pub fn lua_lib_math_abs(num_args: u64) -> ! {
    let x = number_argument(num_args);
    return_one(x.to_bits() & !(1 << 63))
}

/// `math.max(x, ...)` of numbers: 5.1's loop, the first argument kept unless a later one is
/// greater (so a NaN first stays, a NaN later is passed over, and of `0` and `-0` the first
/// wins). Anything but numbers (none, numeric strings, other values) is the twin's.
#[no_mangle]
pub fn lua_lib_math_max(num_args: u64) -> ! {
    let best = extreme(num_args, |candidate, best| candidate > best);
    return_one(num(best))
}

/// `math.min(x, ...)` of numbers, as `math.max` with the comparison turned round.
#[no_mangle]
pub fn lua_lib_math_min(num_args: u64) -> ! {
    let best = extreme(num_args, |candidate, best| candidate < best);
    return_one(num(best))
}

/// The first argument, a number; the native twin answers for anything else (none, a numeric
/// string it converts, the error for other values). Extra arguments are ignored, as 5.1 does.
#[inline(always)]
fn number_argument(num_args: u64) -> f64 {
    let x = TValue(unsafe { *api::stack_base() });
    if num_args == 0 || !x.is_double() {
        native_twin(num_args)
    }
    x.as_f64()
}

/// The argument `better` prefers over every one before it (`math.max`, `math.min`), when every
/// argument is a number; the native twin's answer otherwise.
#[inline(always)]
fn extreme(num_args: u64, better: impl Fn(f64, f64) -> bool) -> f64 {
    let base = api::stack_base();
    let mut best = number_argument(num_args);
    let mut i = 1;
    while i < num_args {
        let v = TValue(unsafe { *base.add(i as usize) });
        if !v.is_double() {
            native_twin(num_args)
        }
        if better(v.as_f64(), best) {
            best = v.as_f64();
        }
        i += 1;
    }
    best
}

/// `tonumber(x)` of a number.
#[no_mangle]
pub fn lua_lib_tonumber(num_args: u64) -> ! {
    let base = api::stack_base();
    if num_args != 1 || !TValue(unsafe { *base }).is_double() {
        native_twin(num_args)
    }
    api::return_from_function(base, 1)
}

// ---------------------------------------------------------------------------------------------
// Hooks the generator inlines into the code it writes around the semantics (see deegen-api).
// ---------------------------------------------------------------------------------------------

#[no_mangle]
pub fn deegen_hook_code_block(callee: u64) -> *const CodeBlock {
    unsafe { (*TValue(callee).as_closure()).code_block }
}

#[no_mangle]
pub fn deegen_hook_tier_up(ctx: *mut InterpContext, cb: *mut CodeBlock, pc: *const u8) -> *const () {
    unsafe { lua_rt_tier_up(ctx as *mut LuaContext, cb, pc) }
}

#[no_mangle]
pub fn deegen_hook_nil() -> u64 {
    NIL_BITS
}

#[no_mangle]
pub fn deegen_hook_stack_overflow(ctx: *mut InterpContext, base: *mut u64) -> u64 {
    unsafe { lua_rt_frame_overflow(ctx as *mut LuaContext, base) }
}

#[no_mangle]
pub fn deegen_hook_instruction(ctx: *mut InterpContext, base: *mut u64, pc: *const u8, cb: *const CodeBlock, entry: u64) -> u64 {
    unsafe { lua_rt_hook_instruction(ctx as *mut LuaContext, base, pc, cb, entry) }
}

#[no_mangle]
pub fn deegen_hook_on_throw(ctx: *mut InterpContext, base: *mut u64, pc: *const u8, value: u64, add_position: u64) -> u64 {
    unsafe { lua_rt_on_throw(ctx as *mut LuaContext, base, pc, value, add_position) }
}
