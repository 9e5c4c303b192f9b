//! The runtime ABI between the semantics and the VM, declared once.
//!
//! The semantics (compiled to bitcode, linked into the generated interpreter) call the VM's
//! runtime helpers (`lua_rt_*`) and recognise two of its native functions by address; the VM
//! defines them. [`runtime_abi!`](crate::runtime_abi) lists every such function with its signature, and expands
//! that one list two ways:
//!
//! - `runtime_abi!(declare)`, in the semantics: the `extern "C"` block they call through;
//! - `runtime_abi!(check)`, in the VM, where every definition is in scope by name: for each
//!   function a `const _: unsafe extern "C" fn(..) -> .. = name;`, so a definition whose
//!   signature differs from the declaration, or a missing one, is a compile error (and a
//!   misspelt `#[no_mangle]` name a link error).
//!
//! The operator codes passed through the ABI are typed ([`ArithOp`], [`ForError`]): the VM
//! matches them exhaustively.

/// An arithmetic operator, as the semantics pass it to `lua_rt_arith`.
#[repr(u64)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArithOp {
    Add = 0,
    Sub = 1,
    Mul = 2,
    Div = 3,
    Mod = 4,
    Pow = 5,
    /// Unary minus (both operands are the value).
    Unm = 6,
}

/// Which control value of a numeric `for` failed to convert to a number.
#[repr(u64)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ForError {
    Initial = 0,
    Limit = 1,
    Step = 2,
}

/// A native function: reads `nargs` arguments from `base`, stores its results from `base`,
/// returns their number, or a negative number after storing the error in the context.
pub type NativeFn = extern "C" fn(ctx: *mut crate::LuaContext, base: *mut u64, nargs: u64) -> i64;

/// The list of the runtime ABI, expanded by the mode given: `declare` (the semantics' `extern`
/// block) or `check` (the VM's compile-time signature checks). See the module documentation.
#[macro_export]
macro_rules! runtime_abi {
    ($mode:ident) => {
        $crate::runtime_abi! { @$mode
            /// Arithmetic with string coercion, or a prepared call of the operands' metamethod,
            /// or the error message. `base` and `cb` place a metamethod's frame past the current
            /// one; either way the handler needs nothing but its pinned state after the call.
            fn lua_rt_arith(ctx: *mut $crate::LuaContext, op: $crate::abi::ArithOp, lhs: u64, rhs: u64, base: *mut u64, cb: *const $crate::CodeBlock) -> $crate::RtResult;
            /// `obj[key]` with `__index` (chains of tables are followed here; a function is
            /// returned as a prepared call).
            fn lua_rt_index(ctx: *mut $crate::LuaContext, obj: u64, key: u64, base: *mut u64, cb: *const $crate::CodeBlock) -> $crate::RtResult;
            /// `lua_rt_index` resumed where a handler's own walk of the chain stopped: `table`
            /// is the `depth`-th table of the chain (every one before it lacks the key and has
            /// a table as `__index`), so the walk is not redone and 5.1's loop limit still
            /// counts from the start.
            fn lua_rt_index_from(ctx: *mut $crate::LuaContext, table: u64, key: u64, depth: u64, base: *mut u64, cb: *const $crate::CodeBlock) -> $crate::RtResult;
            /// `obj[key] = value` with `__newindex`.
            fn lua_rt_newindex(ctx: *mut $crate::LuaContext, obj: u64, key: u64, value: u64, base: *mut u64, cb: *const $crate::CodeBlock) -> $crate::RtResult;
            /// A non-function callee: its `__call` handler is put in `frame[0]` and the callee
            /// becomes the first argument (shifting the others up by one), or the error message.
            /// `named` says whether the callee is the bytecode's own operand (a call the program
            /// wrote, whose error names it) or a metamethod handler (whose error names nothing,
            /// as in 5.1).
            fn lua_rt_call_handler(ctx: *mut $crate::LuaContext, frame: *mut u64, num_args: u64, named: u64) -> $crate::RtResult;
            fn lua_rt_new_table(ctx: *mut $crate::LuaContext, array: u64, hash: u64, base: *mut u64, cb: *const $crate::CodeBlock) -> u64;
            /// Stores a table constructor's list; a non-zero result is the error to throw (only
            /// bytecode from outside the compiler can aim a list at something that is not a
            /// table).
            /// Where the value of `key` (not a string) lives in `table`'s hash part, or null.
            fn lua_rt_hash_slot(table: u64, key: u64) -> *mut $crate::TValue;
            /// `t[n + 1] = value` for the array part's length `n`, where a handler's push
            /// found the array part full (a new `{}` has none) or a hash part (which may hold
            /// the key or the keys after it): `Table::append`. The push's other conditions hold
            /// (no metatable for a store, the last element and `value` not nil). False, and
            /// nothing changed, when out of memory.
            fn lua_rt_append_grow(ctx: *mut $crate::LuaContext, table: u64, value: u64) -> bool;
            fn lua_rt_set_list(ctx: *mut $crate::LuaContext, table: u64, values: *mut u64, count: u64, first_index: u64) -> u64;
            /// A constructor's `name = value` into the table it made (no metatable): the key
            /// gets its named slot even when `value` is nil. A non-zero result is the error to
            /// throw (out of memory).
            fn lua_rt_init_field(ctx: *mut $crate::LuaContext, table: u64, name: u64, value: u64) -> u64;
            /// Concatenates `first[..count]` right to left (`total` is the bytecode's count); a
            /// pair that needs `__concat` becomes a prepared call, with how many values remain
            /// parked in `first[total - 1]` for the continuation. Allocating helpers take the
            /// frame (`base`, `cb`): they are garbage-collection safe points.
            fn lua_rt_concat(ctx: *mut $crate::LuaContext, first: *mut u64, count: u64, total: u64, base: *mut u64, cb: *const $crate::CodeBlock) -> $crate::RtResult;
            fn lua_rt_gc_check(ctx: *mut $crate::LuaContext, base: *mut u64, cb: *const $crate::CodeBlock);
            /// `#v`; returns false when `v` has no length.
            fn lua_rt_len(ctx: *mut $crate::LuaContext, v: u64, out: *mut u64) -> bool;
            /// `#v` for what has no built-in length: a prepared `__len(v, nil)` call, or the
            /// error.
            fn lua_rt_len_metamethod(ctx: *mut $crate::LuaContext, v: u64, base: *mut u64, cb: *const $crate::CodeBlock) -> $crate::RtResult;
            /// Ordering of non-numbers: a boolean (0/1) value, a prepared `__lt`/`__le` call
            /// (possibly negated), or the error.
            fn lua_rt_less_than(ctx: *mut $crate::LuaContext, lhs: u64, rhs: u64, base: *mut u64, cb: *const $crate::CodeBlock) -> $crate::RtResult;
            fn lua_rt_less_equal(ctx: *mut $crate::LuaContext, lhs: u64, rhs: u64, base: *mut u64, cb: *const $crate::CodeBlock) -> $crate::RtResult;
            /// Equality of two distinct tables or userdata through `__eq`.
            fn lua_rt_equal(ctx: *mut $crate::LuaContext, lhs: u64, rhs: u64, base: *mut u64, cb: *const $crate::CodeBlock) -> $crate::RtResult;
            fn lua_rt_tonumber(ctx: *mut $crate::LuaContext, v: u64, out: *mut u64) -> bool;
            fn lua_rt_for_error(ctx: *mut $crate::LuaContext, which: $crate::abi::ForError) -> u64;
            fn lua_rt_new_closure(ctx: *mut $crate::LuaContext, proto: u64, base: *mut u64, cb: *const $crate::CodeBlock) -> u64;
            fn lua_rt_close_upvalues(ctx: *mut $crate::LuaContext, from: *mut u64);
            /// The write barrier's slow path: a store went into `obj`, which the incremental
            /// collector had already traced (black); it becomes gray, to be traced again.
            fn lua_rt_write_barrier(ctx: *mut $crate::LuaContext, obj: *mut $crate::GcHeader);
            fn lua_rt_stack_overflow(ctx: *mut $crate::LuaContext) -> u64;
            /// The error for a called function's frame at `base` that does not fit the stack
            /// (thrown in the caller's frame; a `pcall` that made the call still catches it).
            fn lua_rt_frame_overflow(ctx: *mut $crate::LuaContext, base: *mut u64) -> u64;
            /// A library function written in the semantics, in the frame at `base`, got a bad
            /// argument `arg` (from 0): 5.1's `luaL_argerror` message ("bad argument #n to
            /// 'f' (`message`)", naming the function as its call site did, with the caller's
            /// position); `message` is NUL-terminated.
            fn lua_rt_lib_argument_error(ctx: *mut $crate::LuaContext, base: *mut u64, arg: u64, message: *const u8) -> u64;
            /// An error unwound to the frame at `base` of a library function that catches it:
            /// the coroutine runs again (its status back to normal), the upvalues of the frames
            /// above `base` are closed, and the error value is returned.
            fn lua_rt_catch(ctx: *mut $crate::LuaContext, base: *mut u64) -> u64;
            /// The interned `len` bytes of string `s` from `start`, for a library function in
            /// the frame at `base` with `num_args` arguments (a collection safe point, as a
            /// native function's entry is); nil when memory runs out or the range is not
            /// inside the string.
            fn lua_rt_substring(ctx: *mut $crate::LuaContext, base: *mut u64, num_args: u64, s: u64, start: u64, len: u64) -> u64;
            /// Runs the native twin of the library function whose code block is `cb` (the
            /// native implementation its fast path falls back on) in the frame at `base`, as
            /// `entry_native` would: the number of results (from `base`), or -1 with the error
            /// in the context.
            fn lua_rt_native_twin(ctx: *mut $crate::LuaContext, base: *mut u64, num_args: u64, cb: *const $crate::CodeBlock) -> i64;
            /// A library function in generated code, in the frame at `base`, returns `count`
            /// values while debug hooks are on: its return event. True when the hook raised an
            /// error, which is in the context.
            fn lua_rt_library_return_hook(ctx: *mut $crate::LuaContext, base: *mut u64, count: u64) -> bool;
            /// `coroutine.resume` in generated code (`wrapped`: a function `coroutine.wrap` made),
            /// in the frame at `base`, of `co` with `count` arguments from `args`: when `co` is a
            /// coroutine that can run now, makes it the running one (the resumer parked as 5.1
            /// does) and says where to go on: a new coroutine's call (`values` null: its function
            /// and arguments are in `frame`, `count` arguments), or the suspended `yield`'s frame
            /// and the values it returns. `RtSwitch::TWIN` for everything else.
            fn lua_rt_coroutine_resume(ctx: *mut $crate::LuaContext, co: u64, args: *mut u64, count: u64, wrapped: u64) -> $crate::RtSwitch;
            /// `coroutine.yield` in generated code, in the frame at `base`: suspends the running
            /// coroutine, when a generated `resume` resumed it and nothing lies between, and
            /// says where its resumer goes on. `RtSwitch::TWIN` otherwise (errors, a native
            /// resume).
            fn lua_rt_coroutine_yield(ctx: *mut $crate::LuaContext, base: *mut u64, num_args: u64) -> $crate::RtSwitch;
            /// The function of the coroutine running on `ctx` returned `count` values from
            /// `values`: it is dead, and its resumer goes on.
            fn lua_rt_coroutine_returned(ctx: *mut $crate::LuaContext, values: *mut u64, count: u64) -> $crate::RtSwitch;
            /// The catch of a generated `resume` or `wrap`: the coroutine running on `ctx` died of
            /// an error (`values` null, the error in `count`) or a native `yield` left it (its
            /// values); its resumer goes on.
            fn lua_rt_coroutine_caught(ctx: *mut $crate::LuaContext) -> $crate::RtSwitch;
            /// The error a function made by `coroutine.wrap`, in the frame at `base`, raises for
            /// its coroutine's `error`: a string gets the caller's position (5.1's `auxwrap`).
            fn lua_rt_wrapped_error(ctx: *mut $crate::LuaContext, base: *mut u64, error: u64) -> u64;
            /// `coroutine.create` in generated code, in the frame at `base` with `num_args`
            /// arguments (a collection safe point): the new coroutine of the Lua function in
            /// `base[0]`, or 0 for anything else (not a Lua function, out of memory).
            fn lua_rt_coroutine_create(ctx: *mut $crate::LuaContext, base: *mut u64, num_args: u64) -> u64;
            /// The error of nesting more runtime calls (`LuaContext::c_calls`) than 5.1 allows.
            fn lua_rt_c_stack_overflow(ctx: *mut $crate::LuaContext) -> u64;
            /// A function ran out of its hotness countdown (a tier-up request) going on at `pc`
            /// (null at a return): JIT code to continue at instead, or null.
            fn lua_rt_tier_up(ctx: *mut $crate::LuaContext, cb: *mut $crate::CodeBlock, pc: *const u8) -> *const ();
            /// `next` for the generic `for`: 1 with the entry in `out[0..2]`, 0 at the end, 2 for
            /// an invalid key.
            fn lua_rt_next(table: u64, key: u64, out: *mut u64) -> u64;
            /// The native function `next`, which `pairs` returns as its iterator: the generic
            /// `for` recognises it by address and steps without calling it.
            fn lua_next(ctx: *mut $crate::LuaContext, base: *mut u64, nargs: u64) -> i64;
            /// The iterator `ipairs` returns, recognised the same way.
            fn lua_ipairs_aux(ctx: *mut $crate::LuaContext, base: *mut u64, nargs: u64) -> i64;
            fn lua_rt_on_throw(ctx: *mut $crate::LuaContext, base: *mut u64, pc: *const u8, value: u64, add_position: u64) -> u64;
            /// `debug.sethook`'s events before an instruction (`entry`: the first of a call);
            /// non-zero when the hook raised an error, which is in the context.
            fn lua_rt_hook_instruction(ctx: *mut $crate::LuaContext, base: *mut u64, pc: *const u8, cb: *const $crate::CodeBlock, entry: u64) -> u64;
        }
    };
    (@declare $($(#[$doc:meta])* fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)?;)*) => {
        extern "C" {
            $($(#[$doc])* fn $name($($arg: $ty),*) $(-> $ret)?;)*
        }
    };
    (@check $($(#[$doc:meta])* fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)?;)*) => {
        $(const _: unsafe extern "C" fn($($ty),*) $(-> $ret)? = $name;)*
    };
}
