//! `LuaState::new` makes a bare state: the core language runs (LUA_COMPAT_VARARG's `arg`
//! included, whose packer the runtime makes on first use), no library is there until
//! `open_libs`.

use lua51_value::TValue;
use lua51_vm::{open_libs, LuaState};

fn run(st: &mut LuaState, source: &str) -> Vec<TValue> {
    let f = st.load(source.as_bytes(), "=test", false).unwrap_or_else(|e| panic!("{}", String::from_utf8_lossy(&e)));
    st.call(f, &[]).unwrap_or_else(|e| panic!("error {:?}", e.value))
}

#[test]
fn a_bare_state_runs_lua_without_libraries() {
    let mut st = LuaState::new().expect("memory");
    let r = run(&mut st, "local function f(...) return arg.n, arg[2] end local n, second = f(1, 'x', 3) return n, second, print, string");
    assert_eq!(r[0], TValue::from_f64(3.0));
    assert!(r[1].is_string());
    assert!(r[2].is_nil() && r[3].is_nil(), "no library is open");
    st.close();
}

#[test]
fn open_libs_opens_every_library() {
    let mut st = LuaState::new().expect("memory");
    open_libs(&mut st).expect("memory");
    let r = run(&mut st, "local n = 0 for k in pairs(package.loaded) do n = n + 1 end return n, type(print), ('x'):upper(), _VERSION");
    assert_eq!(r[0], TValue::from_f64(9.0));
    assert!(r[1].is_string() && r[2].is_string() && r[3].is_string());
    st.close();
}
