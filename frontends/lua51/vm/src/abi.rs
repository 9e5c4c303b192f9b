//! The runtime ABI, checked: every function the semantics declare through
//! `lua51_value::runtime_abi!` is defined here with the signature declared there, or this
//! module does not compile.
//!
//! The definitions live in the layers that own them (the `lua_rt_*` helpers in `runtime` and
//! `hook`, the natives `next` and the `ipairs` iterator in the standard library); this module
//! only brings them into scope under their ABI names for the check.

use crate::hook::lua_rt_hook_instruction;
use crate::runtime::*;
use crate::stdlib::{lua_ipairs_aux, lua_next};

lua51_value::runtime_abi!(check);
