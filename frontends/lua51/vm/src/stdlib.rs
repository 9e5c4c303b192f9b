//! The standard library. So far: `print` (the rest of the 5.1 library comes with the
//! whole-language work).

use std::io::Write;

use lua51_value::TValue;

use crate::function::{new_native, NativeFn};
use crate::heap::{string_bytes, OutOfMemory};
use crate::number::format_number;
use crate::runtime::type_name;
use crate::state::LuaState;

/// `tostring` without metamethods: the text Lua 5.1 prints for a value.
pub fn tostring_bytes(v: TValue, out: &mut Vec<u8>) {
    if v.is_double() {
        format_number(v.as_f64(), out);
    } else if v.is_string() {
        out.extend_from_slice(string_bytes(v));
    } else if v.is_nil() {
        out.extend_from_slice(b"nil");
    } else if v.is_bool() {
        out.extend_from_slice(if v == TValue::TRUE { b"true" } else { b"false" });
    } else {
        out.extend_from_slice(format!("{}: {:p}", type_name(v), v.as_ptr::<u8>()).as_bytes());
    }
}

fn args<'a>(base: *mut u64, nargs: u64) -> &'a [TValue] {
    unsafe { std::slice::from_raw_parts(base as *const TValue, nargs as usize) }
}

extern "C" fn lua_print(state: *mut LuaState, base: *mut u64, nargs: u64) -> i64 {
    let st = unsafe { &mut *state };
    let mut line = Vec::new();
    for (i, v) in args(base, nargs).iter().enumerate() {
        if i > 0 {
            line.push(b'\t');
        }
        // lua5.1 writes each piece with fputs, which stops at an embedded NUL.
        let start = line.len();
        tostring_bytes(*v, &mut line);
        if let Some(nul) = line[start..].iter().position(|&c| c == 0) {
            line.truncate(start + nul);
        }
    }
    line.push(b'\n');
    let _ = st.stdout.write_all(&line);
    0
}

fn register(st: &mut LuaState, name: &'static str, f: NativeFn) -> Result<(), OutOfMemory> {
    let globals = st.globals;
    let v = new_native(&mut st.heap, name, f, globals)?;
    st.set_global(name, v)
}

/// Installs the base library into the globals.
pub fn open_base(st: &mut LuaState) -> Result<(), OutOfMemory> {
    register(st, "print", lua_print)?;
    let g = st.globals;
    st.set_global("_G", g)
}
