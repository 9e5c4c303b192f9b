//! The runtime ABI, checked: every function the semantics declare through
//! `lua51_value::runtime_abi!` is defined here with the signature declared there, or this
//! module does not compile.
//!
//! The definitions live in the layers that own them (the `lua_rt_*` helpers in `runtime` and
//! `hook`, the natives `next` and the `ipairs` iterator in the standard library); this module
//! only brings them into scope under their ABI names for the check.

#![allow(non_upper_case_globals)]

use crate::coroutine::{
    lua_rt_coroutine_caught, lua_rt_coroutine_create, lua_rt_coroutine_resume, lua_rt_coroutine_returned, lua_rt_coroutine_yield,
    lua_rt_wrapped_error,
};
use crate::hook::lua_rt_hook_instruction;
use crate::object::function::NativeFn;
use crate::runtime::*;

// The natives are constants made by `native!` (their functions are exported under these names);
// the check compares the type every native function has with the declared signatures.
const lua_next: NativeFn = crate::stdlib::base::NEXT.f;
const lua_ipairs_aux: NativeFn = crate::stdlib::base::IPAIRS_AUX.f;

lua51_value::runtime_abi!(check);
