//! The standard library: one module per library, each with its name table (`FUNCTIONS`: the
//! `Native`s it registers, by Lua name) and an `open` function, as
//! 5.1's `luaopen_*`. [`open_libs`] opens them all (5.1's `luaL_openlibs`); a state from
//! `LuaState::new` has none until then.
//!
//! What is absent is what needs the C API (see the top-level README).

pub mod base;
mod buffer;
pub mod coroutine;
pub mod debug;
pub mod io;
pub mod math;
pub mod os;
pub mod package;
pub mod string;
pub mod table;

use lua51_value::GcHeader;

use crate::object::heap::OutOfMemory;
use crate::object::table::table_mut;
use crate::state::LuaState;

/// Opens every standard library into the globals (5.1's `luaL_openlibs`), and records each in
/// `package.loaded`.
pub fn open_libs(st: &mut LuaState) -> Result<(), OutOfMemory> {
    base::open(st)?;
    table::open(st)?;
    io::open(st)?;
    debug::open(st)?;
    package::open(st)?;
    coroutine::open(st)?;
    os::open(st)?;
    math::open(st)?;
    string::open(st)?;
    // package.loaded holds every standard library, as after luaL_openlibs.
    let loaded_key = st.intern(b"loaded")?;
    let loaded = table_mut(st.package).get(loaded_key);
    for name in ["_G", "string", "table", "math", "io", "os", "coroutine", "debug", "package"] {
        let key = st.intern(name.as_bytes())?;
        let lib = table_mut(st.globals).get(key);
        table_mut(loaded).set(key, lib).expect("string keys are valid");
        // The libraries' tables had stores without the write barrier: a state opened after
        // running code may be in the middle of a collection cycle.
        st.heap.write_barrier(lib.as_ptr());
    }
    for t in [loaded.as_ptr(), st.registry.as_ptr(), st.file_metatable as *mut GcHeader, st.shared.string_metatable as *mut GcHeader] {
        if !t.is_null() {
            st.heap.write_barrier(t);
        }
    }
    Ok(())
}
