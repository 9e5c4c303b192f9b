//! The package library, as 5.1's `loadlib.c` defines it: `require` runs the searchers in
//! `package.loaders` (preload, Lua files on `package.path`, C libraries on `package.cpath`, and
//! the all-in-one C loader), `module` and `package.seeall` make modules, and
//! `package.config`, `path`, `cpath`, `loaded`, `preload` and `loadlib` are there as in 5.1.
//!
//! This VM has no C API, so it cannot load C libraries: it is built like a 5.1 without
//! dynamic-library support. `package.loadlib` answers `nil`, 5.1's message for that build and
//! `"absent"`, and a C library found on `package.cpath` is "error loading module ... dynamic
//! libraries not enabled". Programs see the same interface and the same errors as under such
//! a 5.1, and their own searchers added to `package.loaders` work.

use lua51_value::TValue;

use crate::native::{find_table, function_at_level, native, new_library, os_error_text, register, Call, NResult, Native, Raised};
use crate::object::function::is_native;
use crate::object::heap::OutOfMemory;
use crate::object::string::string_bytes;
use crate::object::table::{table_mut, Table};
use crate::object::userdata::Userdata;
use crate::state::{Event, LuaState};

/// 5.1's `DLMSG`: what a build without dynamic libraries says when asked to load one.
const DYNAMIC_LIBRARIES_MESSAGE: &str = "dynamic libraries not enabled; check your Lua installation";

/// `LUA_DIRSEP`, `LUA_PATHSEP`, `LUA_PATH_MARK`, `LUA_EXECDIR`, `LUA_IGMARK`, one per line.
const CONFIG: &str = "/\n;\n?\n!\n-";

/// Debian's lua5.1 defaults (`LUA_PATH_DEFAULT`, `LUA_CPATH_DEFAULT`), which `;;` in
/// `LUA_PATH`/`LUA_CPATH` stands for.
const DEFAULT_PATH: &str = "./?.lua;/usr/local/share/lua/5.1/?.lua;/usr/local/share/lua/5.1/?/init.lua;/usr/local/lib/lua/5.1/?.lua;/usr/local/lib/lua/5.1/?/init.lua;/usr/share/lua/5.1/?.lua;/usr/share/lua/5.1/?/init.lua";
const DEFAULT_CPATH: &str =
    "./?.so;/usr/local/lib/lua/5.1/?.so;/usr/lib/x86_64-linux-gnu/lua/5.1/?.so;/usr/lib/lua/5.1/?.so;/usr/local/lib/lua/5.1/loadall.so";

/// `package.path` or `package.cpath` from the environment variable `var`, as `setpath` does.
fn search_path(var: &str, default: &str) -> String {
    match std::env::var(var) {
        Ok(p) => p.replace(";;", &format!(";{default};")),
        Err(_) => default.to_owned(),
    }
}

/// The package library's functions, by their Lua names (5.1's `pk_funcs`).
pub(crate) const FUNCTIONS: &[Native] = &[SEEALL, LOADLIB];

/// The global functions the package library adds (5.1's `ll_funcs`).
pub(crate) const GLOBALS: &[Native] = &[REQUIRE, MODULE];

/// The searchers of `package.loaders`, in order (5.1's `loaders`).
pub(crate) const LOADERS: &[Native] = &[LOADER_PRELOAD, LOADER_LUA, LOADER_C, LOADER_CROOT];

/// Opens the package library (the global `package`, `require` and `module`, and the registry's
/// `_LOADED`), and returns it.
pub fn open(st: &mut LuaState) -> Result<TValue, OutOfMemory> {
    let package = new_library(st, "package", FUNCTIONS)?;
    st.package = package;
    let loaders = Table::new_in(&mut st.heap)?;
    for (i, loader) in LOADERS.iter().enumerate() {
        let f = loader.function(st)?;
        table_mut(loaders).set(TValue::from_f64((i + 1) as f64), f).expect("number keys are valid");
    }
    let loaded = Table::new_in(&mut st.heap)?;
    let preload = Table::new_in(&mut st.heap)?;
    let path = st.intern(search_path("LUA_PATH", DEFAULT_PATH).as_bytes())?;
    let cpath = st.intern(search_path("LUA_CPATH", DEFAULT_CPATH).as_bytes())?;
    let config = st.intern(CONFIG.as_bytes())?;
    for (k, v) in [("loaders", loaders), ("loaded", loaded), ("preload", preload), ("path", path), ("cpath", cpath), ("config", config)] {
        let key = st.intern(k.as_bytes())?;
        table_mut(package).set(key, v).expect("string keys are valid");
    }
    let key = st.intern(b"_LOADED")?;
    table_mut(st.registry).set(key, loaded).expect("string keys are valid");
    // While a module loads, `package.loaded[name]` holds this marker (5.1's `sentinel`), so a
    // module that requires itself, or one whose loading failed, is an error.
    let sentinel = Userdata::new_in(&mut st.heap, Box::new(()), std::ptr::null_mut(), TValue::NIL)?;
    let key = st.intern(b"_REQUIRE_SENTINEL")?;
    table_mut(st.registry).set(key, sentinel).expect("string keys are valid");
    let globals = st.globals;
    for f in GLOBALS {
        register(st, globals, f)?;
    }
    Ok(package)
}

/// `package.<field>`.
fn package_field(c: &mut Call, field: &str) -> Result<TValue, Raised> {
    let k = c.string(field.as_bytes())?;
    Ok(table_mut(c.st.package).get(k))
}

fn sentinel(c: &mut Call) -> Result<TValue, Raised> {
    let k = c.string(b"_REQUIRE_SENTINEL")?;
    Ok(table_mut(c.st.registry).get(k))
}

// `require(name)`: `package.loaded[name]`, or the first loader one of `package.loaders` finds,
// called with the name; its result (or `true`) becomes `package.loaded[name]`.
native!(REQUIRE, "require", |c| {
    let name_bytes = c.check_bytes(0)?;
    let name = c.string(&name_bytes)?;
    let module = String::from_utf8_lossy(&name_bytes).into_owned();
    let loaded = package_field(c, "loaded")?;
    if !loaded.is_table() {
        return Err(c.error("'package.loaded' must be a table"));
    }
    let sentinel = sentinel(c)?;
    let existing = table_mut(loaded).get(name);
    if !existing.is_falsy() {
        if existing == sentinel {
            return Err(c.error(&format!("loop or previous error loading module '{module}'")));
        }
        c.set(0, existing);
        return Ok(1);
    }
    let loaders = package_field(c, "loaders")?;
    if !loaders.is_table() {
        return Err(c.error("'package.loaders' must be a table"));
    }
    let mut tried = String::new();
    let mut i = 1;
    let loader = loop {
        let searcher = table_mut(loaders).get(TValue::from_f64(f64::from(i)));
        if searcher.is_nil() {
            return Err(c.error(&format!("module '{module}' not found:{tried}")));
        }
        let found = c.call1(searcher, &[name], 1)?;
        if found.is_function() {
            break found;
        }
        if found.is_string() {
            tried.push_str(&String::from_utf8_lossy(string_bytes(found)));
        }
        i += 1;
    };
    c.table_set(loaded, name, sentinel)?;
    let result = c.call1(loader, &[name], 2)?;
    if !result.is_nil() {
        c.table_set(loaded, name, result)?;
    }
    let mut value = table_mut(loaded).get(name);
    if value == sentinel {
        value = TValue::TRUE;
        c.table_set(loaded, name, value)?;
    }
    c.set(0, value);
    Ok(1)
});

// The searchers of `package.loaders`: each returns a loader function, or a string saying where
// it looked, or nothing.

native!(LOADER_PRELOAD, "preload", |c| {
    let name = c.check_bytes(0)?;
    let preload = package_field(c, "preload")?;
    if !preload.is_table() {
        return Err(c.error("'package.preload' must be a table"));
    }
    let key = c.string(&name)?;
    let loader = table_mut(preload).get(key);
    if loader.is_nil() {
        let msg = c.string(format!("\n\tno field package.preload['{}']", String::from_utf8_lossy(&name)).as_bytes())?;
        c.set(0, msg);
    } else {
        c.set(0, loader);
    }
    Ok(1)
});

/// 5.1's `findfile`: the first file on `package.<field>` that opens for reading, with the
/// name's dots made directory separators; `Err` is the list of files tried.
fn find_file(c: &mut Call, name: &[u8], field: &str) -> Result<Result<String, String>, Raised> {
    let path = package_field(c, field)?;
    if !path.is_string() {
        return Err(c.error(&format!("'package.{field}' must be a string")));
    }
    let path = String::from_utf8_lossy(string_bytes(path)).into_owned();
    let name = String::from_utf8_lossy(name).replace('.', "/");
    let mut tried = String::new();
    for template in path.split(';').filter(|t| !t.is_empty()) {
        let candidate = template.replace('?', &name);
        if std::fs::File::open(&candidate).is_ok() {
            return Ok(Ok(candidate));
        }
        tried.push_str(&format!("\n\tno file '{candidate}'"));
    }
    Ok(Err(tried))
}

/// Returns `text` (where a searcher looked) as its result.
fn tried_files(c: &mut Call, text: &str) -> NResult {
    let msg = c.string(text.as_bytes())?;
    c.set(0, msg);
    Ok(1)
}

/// 5.1's `loaderror`.
fn load_error(c: &mut Call, name: &[u8], file: &str, why: &str) -> Raised {
    c.error(&format!("error loading module '{}' from file '{file}':\n\t{why}", String::from_utf8_lossy(name)))
}

native!(LOADER_LUA, "lua", |c| {
    let name = c.check_bytes(0)?;
    let file = match find_file(c, &name, "path")? {
        Ok(file) => file,
        Err(tried) => return tried_files(c, &tried),
    };
    let source = match std::fs::read(&file) {
        Ok(s) => s,
        Err(e) => return Err(load_error(c, &name, &file, &format!("cannot read {file}: {}", os_error_text(&e)))),
    };
    match c.st.load(&source, format!("@{file}"), true) {
        Ok(f) => {
            c.set(0, f);
            Ok(1)
        }
        Err(msg) => Err(load_error(c, &name, &file, &String::from_utf8_lossy(&msg))),
    }
});

native!(LOADER_C, "c", |c| {
    let name = c.check_bytes(0)?;
    match find_file(c, &name, "cpath")? {
        Ok(file) => Err(load_error(c, &name, &file, DYNAMIC_LIBRARIES_MESSAGE)),
        Err(tried) => tried_files(c, &tried),
    }
});

// The all-in-one loader: `a.b.c` from the C library of `a`.
native!(LOADER_CROOT, "croot", |c| {
    let name = c.check_bytes(0)?;
    let Some(dot) = name.iter().position(|&b| b == b'.') else { return Ok(0) };
    match find_file(c, &name[..dot], "cpath")? {
        Ok(file) => Err(load_error(c, &name, &file, DYNAMIC_LIBRARIES_MESSAGE)),
        Err(tried) => tried_files(c, &tried),
    }
});

// `package.loadlib(path, funcname)`: nil, the message and "absent" (5.1's answer without
// dynamic libraries; "open" and "init" are what a build with them says for its failures).
native!(LOADLIB, "loadlib", |c| {
    c.check_bytes(0)?;
    c.check_bytes(1)?;
    let msg = c.string(DYNAMIC_LIBRARIES_MESSAGE.as_bytes())?;
    let when = c.string(b"absent")?;
    c.set(0, TValue::NIL);
    c.set(1, msg);
    c.set(2, when);
    Ok(3)
});

// `module(name, ...)`: 5.1's module system. The module table is `package.loaded[name]`, or
// the global at the dotted `name`, created if needed; it gets `_M`, `_NAME` and `_PACKAGE`,
// becomes the calling function's environment, and each option is called with it.
native!(MODULE, "module", |c| {
    let name = c.check_bytes(0)?.into_owned();
    let loaded = package_field(c, "loaded")?;
    if !loaded.is_table() {
        return Err(c.error("package.loaded is not a table"));
    }
    let key = c.string(&name)?;
    let mut module = table_mut(loaded).get(key);
    if !module.is_table() {
        let globals = c.st.globals;
        module = match find_table(c, globals, &name)? {
            Some(t) => t,
            None => return Err(c.error(&format!("name conflict for module '{}'", String::from_utf8_lossy(&name)))),
        };
        c.table_set(loaded, key, module)?;
    }
    let name_key = c.string(b"_NAME")?;
    if table_mut(module).get(name_key).is_nil() {
        let m_key = c.string(b"_M")?;
        c.table_set(module, m_key, module)?;
        c.table_set(module, name_key, key)?;
        let package_name = match name.iter().rposition(|&b| b == b'.') {
            Some(dot) => &name[..=dot],
            None => &name[..0],
        };
        let p_key = c.string(b"_PACKAGE")?;
        let p_val = c.string(package_name)?;
        c.table_set(module, p_key, p_val)?;
    }
    // The function that called `module` runs in the module from now on.
    let caller = function_at_level(c, 1).unwrap_or(TValue::NIL);
    if caller.is_function() && !is_native(unsafe { (*caller.as_closure()).code_block }) {
        unsafe { (*caller.as_closure()).env = module };
        c.st.heap.write_barrier(caller.as_ptr());
    } else {
        return Err(c.error("'module' not called from a Lua function"));
    }
    for i in 1..c.nargs {
        let option = c.arg(i);
        c.call(option, &[module], c.nargs)?;
    }
    Ok(0)
});

native!(SEEALL, "seeall", |c| {
    let module = c.check_table(0)?;
    let mut mt = table_mut(module).metatable();
    if mt.is_null() {
        mt = Table::new_in(&mut c.st.heap).map_err(|_| c.raise_oom())?.as_ptr::<Table>();
        table_mut(module).set_metatable(mt);
        c.st.heap.write_barrier(module.as_ptr());
    }
    let index = c.st.event_names[Event::Index as usize];
    let globals = c.st.globals;
    c.table_set(TValue::from_table(mt.cast()), index, globals)?;
    Ok(0)
});
