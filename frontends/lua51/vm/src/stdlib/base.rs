//! The base library (5.1's `lbaselib`): the global functions (`print`, `pairs`, `pcall`,
//! `load`, `setfenv`, ...), `_G` and `_VERSION`.

use std::borrow::Cow;
use std::io::Write;

use lua51_value::number::{to_number, tostring_bytes};
use lua51_value::{type_name, TValue};

use crate::metamethod::metamethod;
use crate::native::{function_at_level, index_value, native, os_error_text, register, Call, NResult, Native, Raised};
use crate::object::heap::OutOfMemory;
use crate::object::string::string_bytes;
use crate::object::table::{table_mut, Table};
use crate::state::{Event, HandlerState, LuaState, Protected};

native!(PRINT, "print", |c| {
    // 5.1 converts through whatever the global `tostring` is now; the built-in one runs
    // without a call.
    let key = c.string(b"tostring")?;
    // 5.1's lua_getglobal: the running thread's globals (which `globals` always holds).
    let globals = c.st.globals;
    let tostring = index_value(c, globals, key)?;
    // (Called all the same while a debug hook is set, which sees 5.1's calls.)
    let builtin =
        tostring.is_function() && unsafe { (*(*tostring.as_closure()).code_block).native } == TOSTRING.f as *const () && c.st.hooked_threads == 0;
    // Each piece is written as it comes, as lua5.1's fputs does: nothing is copied (a string
    // printed can be most of the memory there is).
    for i in 0..c.nargs {
        if i > 0 {
            let _ = c.st.stdout.write_all(b"\t");
        }
        let piece = if builtin {
            c.tostring(c.arg(i), c.nargs)?
        } else {
            let r = c.call1(tostring, &[c.arg(i)], c.nargs)?;
            c.printable(r)?
        };
        // lua5.1 writes each piece with fputs, which stops at an embedded NUL.
        let end = piece.iter().position(|&b| b == 0).unwrap_or(piece.len());
        let _ = c.st.stdout.write_all(&piece[..end]);
    }
    let _ = c.st.stdout.write_all(b"\n");
    Ok(0)
});

native!(TYPE, "type", generated crate::interp::__deegen_lib_type, |c| {
    let v = c.check_any(0)?;
    let s = c.string(type_name(v).as_bytes())?;
    c.set(0, s);
    Ok(1)
});

native!(TOSTRING, "tostring", generated crate::interp::__deegen_lib_tostring, |c| {
    let v = c.check_any(0)?;
    // 5.1 returns what `__tostring` returns, unconverted (only `print` insists on a string).
    let tm = metamethod(c.st, v, Event::ToString);
    if !tm.is_nil() {
        let r = c.call1(tm, &[v], 1)?;
        c.set(0, r);
        return Ok(1);
    }
    let bytes = c.tostring(v, 1)?;
    let s = c.string(&bytes)?;
    c.set(0, s);
    Ok(1)
});

native!(TONUMBER, "tonumber", generated crate::interp::__deegen_lib_tonumber, |c| {
    // luaB_tonumber's order: the base, then the value (any value for base 10, a string for
    // another base, checked before the base's range).
    let base = c.opt_int(1, 10)?;
    let result = if base == 10 {
        to_number(c.check_any(0)?).map(TValue::from_f64_canonical)
    } else {
        let mut bytes = c.check_bytes(0)?.into_owned();
        if !(2..=36).contains(&base) {
            return Err(c.arg_error(1, "base out of range"));
        }
        // luaB_tonumber: C's strtoul, then only trailing spaces.
        extern "C" {
            fn strtoul(s: *const std::ffi::c_char, end: *mut *mut std::ffi::c_char, base: std::ffi::c_int) -> std::ffi::c_ulong;
        }
        if bytes.contains(&0) {
            bytes.truncate(bytes.iter().position(|&b| b == 0).unwrap_or(0));
        }
        bytes.push(0);
        let start = bytes.as_ptr() as *mut std::ffi::c_char;
        let mut end = start;
        let n = unsafe { strtoul(start, &mut end, base as std::ffi::c_int) };
        let mut pos = unsafe { end.offset_from(start) } as usize;
        if pos == 0 {
            None
        } else {
            while bytes[pos].is_ascii_whitespace() {
                pos += 1;
            }
            (bytes[pos] == 0).then(|| TValue::from_f64(n as f64))
        }
    };
    c.set(0, result.unwrap_or(TValue::NIL));
    Ok(1)
});

native!(
    /// Exported as `lua_next` (`lua51_value::abi`): the generic `for` recognises it and steps
    /// without a call (`lua_rt_next`).
    NEXT, "next", export "lua_next", generated crate::interp::__deegen_lib_next, |c| {
    let t = c.check_table(0)?;
    match table_mut(t).next(c.arg(1)) {
        Ok(Some((k, v))) => {
            c.set(0, k);
            c.set(1, v);
            Ok(2)
        }
        Ok(None) => {
            c.set(0, TValue::NIL);
            Ok(1)
        }
        // luaH_next raises through luaG_runerror, which locates the error in the running
        // function: `next` itself, a C function, so the message has no position.
        Err(crate::object::table::InvalidKey) => {
            let msg = c.string(b"invalid key to 'next'")?;
            Err(c.raise(msg))
        }
    }
});

native!(PAIRS, "pairs", generated crate::interp::__deegen_lib_pairs, |c| {
    let t = c.check_table(0)?;
    let next = c.st.next_fn;
    c.set(0, next);
    c.set(1, t);
    c.set(2, TValue::NIL);
    Ok(3)
});

native!(
    /// The iterator `ipairs` returns. Exported as `lua_ipairs_aux` (`lua51_value::abi`): the
    /// generic `for` recognises it and steps inline.
    IPAIRS_AUX, "ipairs", export "lua_ipairs_aux", |c| {
    let t = c.check_table(0)?;
    let i = c.check_number(1)? + 1.0;
    let v = table_mut(t).get(TValue::from_f64(i));
    if v.is_nil() {
        // 5.1's ipairsaux returns no values at the end.
        return Ok(0);
    }
    c.set(0, TValue::from_f64(i));
    c.set(1, v);
    Ok(2)
});

native!(IPAIRS, "ipairs", generated crate::interp::__deegen_lib_ipairs, |c| {
    let t = c.check_table(0)?;
    let aux = c.st.ipairs_aux_fn;
    c.set(0, aux);
    c.set(1, t);
    c.set(2, TValue::from_f64(0.0));
    Ok(3)
});

native!(SELECT, "select", generated crate::interp::__deegen_lib_select, |c| {
    let n = c.arg(0);
    // 5.1 looks at the first character only: "#anything" counts.
    if n.is_string() && string_bytes(n).first() == Some(&b'#') {
        c.set(0, TValue::from_f64((c.nargs - 1) as f64));
        return Ok(1);
    }
    let i = c.check_int(0)?;
    let count = c.nargs as i64;
    let i = if i < 0 {
        count + i
    } else if i > count {
        count
    } else {
        i
    };
    if i < 1 {
        return Err(c.arg_error(0, "index out of range"));
    }
    let i = i as usize;
    unsafe { std::ptr::copy(c.base.add(i), c.base, c.nargs - i) };
    Ok(c.nargs - i)
});

native!(UNPACK, "unpack", generated crate::interp::__deegen_lib_unpack, |c| {
    let t = c.check_table(0)?;
    let first = c.opt_int(1, 1)?;
    let last = if c.arg(2).is_nil() { table_mut(t).length() as i64 } else { c.check_int(2)? };
    if first > last {
        return Ok(0);
    }
    let n = (last - first + 1) as usize;
    if n >= i32::MAX as usize || c.ensure_results(n).is_err() {
        return Err(c.error("too many results to unpack"));
    }
    for i in 0..n {
        let v = table_mut(t).get_int(first + i as i64);
        c.set(i, v);
    }
    Ok(n)
});

native!(RAWGET, "rawget", generated crate::interp::__deegen_lib_rawget, |c| {
    let t = c.check_table(0)?;
    c.check_any(1)?;
    let v = table_mut(t).get(c.arg(1));
    c.set(0, v);
    Ok(1)
});

native!(RAWSET, "rawset", generated crate::interp::__deegen_lib_rawset, |c| {
    let t = c.check_table(0)?;
    c.check_any(1)?;
    c.check_any(2)?;
    c.table_set(t, c.arg(1), c.arg(2))?;
    c.set(0, t);
    Ok(1)
});

native!(RAWEQUAL, "rawequal", generated crate::interp::__deegen_lib_rawequal, |c| {
    c.check_any(0)?;
    c.check_any(1)?;
    let eq = c.arg(0).raw_equals(c.arg(1));
    c.set(0, TValue::from_bool(eq));
    Ok(1)
});

native!(SETMETATABLE, "setmetatable", generated crate::interp::__deegen_lib_setmetatable, |c| {
    let t = c.check_table(0)?;
    let mt = c.arg(1);
    // A missing second argument is not nil here (5.1 checks TYPE, which says "none").
    if c.nargs < 2 || (!mt.is_nil() && !mt.is_table()) {
        // luaL_argexpected is 5.2: 5.1 words it without the type it got.
        return Err(c.arg_error(1, "nil or table expected"));
    }
    if !metamethod(c.st, t, Event::Metatable).is_nil() {
        return Err(c.error("cannot change a protected metatable"));
    }
    table_mut(t).set_metatable(if mt.is_nil() { std::ptr::null_mut() } else { mt.as_ptr::<Table>() });
    c.st.heap.write_barrier(t.as_ptr());
    c.set(0, t);
    Ok(1)
});

native!(GETMETATABLE, "getmetatable", generated crate::interp::__deegen_lib_getmetatable, |c| {
    let v = c.check_any(0)?;
    let mt = crate::metamethod::metatable_of(c.st, v);
    if mt.is_null() {
        c.set(0, TValue::NIL);
        return Ok(1);
    }
    let protected = metamethod(c.st, v, Event::Metatable);
    c.set(0, if protected.is_nil() { TValue::from_table(mt.cast()) } else { protected });
    Ok(1)
});

native!(ASSERT, "assert", generated crate::interp::__deegen_lib_assert, |c| {
    let v = c.check_any(0)?;
    if v.is_falsy() {
        // 5.1: luaL_error(L, "%s", luaL_optstring(L, 2, "assertion failed!")): the message
        // must be a string or a number, and it gets the caller's position.
        let msg: Vec<u8> = if c.arg(1).is_nil() { b"assertion failed!".to_vec() } else { c.check_bytes(1)?.into_owned() };
        let mut text = c.where_(1).into_bytes();
        text.extend_from_slice(&msg);
        let m = c.string(&text)?;
        return Err(c.raise(m));
    }
    Ok(c.nargs)
});

native!(ERROR, "error", generated crate::interp::__deegen_lib_error, |c| {
    let v = c.arg(0);
    let level = c.opt_int(1, 1)?;
    // Numbers are strings to lua_isstring: they get a position too.
    if (v.is_string() || v.is_double()) && level > 0 {
        let mut text = c.where_(level as usize).into_bytes();
        tostring_bytes(v, &mut text);
        let s = c.string(&text)?;
        return Err(c.raise(s));
    }
    Err(c.raise(v))
});

native!(GCINFO, "gcinfo", |c| {
    crate::gc::fold_table_storage(c.st);
    c.set(0, TValue::from_f64((c.st.heap.bytes_allocated / 1024) as f64));
    Ok(1)
});

// `pcall` is written in the semantics (`lua_lib_pcall`): this is its native twin, which runs
// only while debug hooks are on (it reports their call and return events).
native!(PCALL, "pcall", generated crate::interp::__deegen_lib_pcall, |c| {
    let f = c.check_any(0)?;
    let args: Vec<TValue> = (1..c.nargs).map(|i| c.arg(i)).collect();
    c.st.protected.push(Protected { handler: TValue::NIL, state: HandlerState::Done, base: c.base });
    let outcome = c.call(f, &args, c.nargs);
    c.st.protected.pop();
    match outcome {
        Ok(results) => {
            c.set(0, TValue::TRUE);
            c.return_values(1, &results)
        }
        Err(Raised) => {
            let e = TValue(c.st.cur().interp.error);
            c.set(0, TValue::FALSE);
            c.set(1, e);
            Ok(2)
        }
    }
});

native!(COLLECTGARBAGE, "collectgarbage", |c| {
    let opt = if c.arg(0).is_nil() { Cow::Borrowed(&b"collect"[..]) } else { c.check_bytes(0)? };
    let top = unsafe { c.base.add(c.nargs) };
    let result = match &opt[..] {
        b"collect" => {
            crate::gc::collect(c.st, top);
            c.run_finalizers()?;
            0.0
        }
        b"count" => {
            crate::gc::fold_table_storage(c.st);
            c.st.heap.bytes_allocated as f64 / 1024.0
        }
        b"step" => {
            // A negative size finishes the cycle, as 5.1's unsigned threshold arithmetic does.
            let kilobytes = usize::try_from(c.opt_int(1, 0)?).unwrap_or(usize::MAX);
            let finished = crate::gc::step(c.st, top, kilobytes);
            if finished {
                c.run_finalizers()?;
            }
            c.set(0, TValue::from_bool(finished));
            return Ok(1);
        }
        b"stop" => {
            c.st.heap.stopped = true;
            0.0
        }
        b"restart" => {
            c.st.heap.stopped = false;
            0.0
        }
        b"setpause" => {
            let old = c.st.heap.pause;
            c.st.heap.pause = c.opt_int(1, 0)?.max(0) as usize;
            old as f64
        }
        b"setstepmul" => {
            // Collections are not incremental yet: the multiplier sizes `step`'s work only.
            let old = c.st.gc_stepmul;
            c.st.gc_stepmul = c.opt_int(1, 0)?.max(0) as usize;
            old as f64
        }
        _ => {
            let o = String::from_utf8_lossy(&opt).into_owned();
            return Err(c.arg_error(0, &format!("invalid option '{o}'")));
        }
    };
    c.set(0, TValue::from_f64(result));
    Ok(1)
});

/// Pushes the result of a load: the function, or `nil, message`.
fn load_result(c: &mut Call, loaded: Result<TValue, Vec<u8>>) -> NResult {
    match loaded {
        Ok(f) => {
            c.set(0, f);
            Ok(1)
        }
        Err(msg) => {
            let m = c.string(&msg)?;
            c.set(0, TValue::NIL);
            c.set(1, m);
            Ok(2)
        }
    }
}

native!(LOADSTRING, "loadstring", |c| {
    let source = c.check_bytes(0)?;
    let name = if c.arg(1).is_nil() { source.clone() } else { c.check_bytes(1)? };
    let loaded = c.st.load(&source, &name, false);
    load_result(c, loaded)
});

/// Why `load`'s reader stopped the load: an error it raised (the value), or the message for a
/// piece that is no string.
enum ReaderFailure {
    Raised(TValue),
    Message(String),
}

/// One call of `load`'s reader (lua5.1's `generic_reader`): a piece, or `None` at the end (nil
/// or an empty string). Numbers are pieces too (`lua_tolstring`); anything else fails the load
/// with `luaL_error`'s message, so with the position of load's caller.
fn read_piece(c: &mut Call, f: TValue) -> Result<Option<Vec<u8>>, ReaderFailure> {
    let piece = match c.call(f, &[], 2) {
        Ok(r) => r.first().copied().unwrap_or(TValue::NIL),
        Err(Raised) => return Err(ReaderFailure::Raised(TValue(c.st.cur().interp.error))),
    };
    if piece.is_nil() {
        return Ok(None);
    }
    if !piece.is_string() && !piece.is_double() {
        return Err(ReaderFailure::Message(format!("{}reader function must return a string", c.where_(1))));
    }
    let mut bytes = Vec::new();
    tostring_bytes(piece, &mut bytes);
    Ok((!bytes.is_empty()).then_some(bytes))
}

native!(LOAD, "load", |c| {
    let f = c.arg(0);
    if !f.is_function() {
        return Err(c.type_error(0, "function"));
    }
    let name = if c.arg(1).is_nil() { Cow::Borrowed(&b"=(load)"[..]) } else { c.check_bytes(1)? };
    // LOAD runs the reader protected: its failure becomes load's (nil, message). As in
    // lua5.1, the first piece is read to tell a binary chunk from text, and text is parsed as
    // it is read, so a syntax error stops the reading there (the reader may count its calls).
    let failed = |c: &mut Call, failure: ReaderFailure| match failure {
        ReaderFailure::Raised(e) => {
            c.set(0, TValue::NIL);
            c.set(1, e);
            Ok(2)
        }
        ReaderFailure::Message(m) => load_result(c, Err(m.into_bytes())),
    };
    let first = match read_piece(c, f) {
        Ok(p) => p,
        Err(e) => return failed(c, e),
    };
    if first.as_ref().is_some_and(|p| p[0] == crate::dump::SIGNATURE[0]) {
        let mut source = first.unwrap_or_default();
        loop {
            match read_piece(c, f) {
                Ok(Some(p)) => source.extend_from_slice(&p),
                Ok(None) => break,
                Err(e) => return failed(c, e),
            }
        }
        let loaded = c.st.load(&source, &name, false);
        return load_result(c, loaded);
    }
    let options = c.st.begin_parse(false);
    let mut pending = first;
    let mut failure = None;
    let parsed = {
        let mut reader = || match pending.take() {
            Some(p) => Some(p),
            None if failure.is_some() => None,
            None => read_piece(c, f).unwrap_or_else(|e| {
                failure = Some(e);
                None
            }),
        };
        lua51_syntax::parse_chunk_streaming(&mut reader, crate::loader::syntax_chunk_id(&name), &options)
    };
    if let Some(e) = failure {
        return failed(c, e);
    }
    let loaded = match parsed {
        Ok(chunk) => c.st.compile_parsed(chunk, &name),
        Err(e) => Err(e.to_bytes()),
    };
    load_result(c, loaded)
});

/// Reads a file (or standard input) for `loadfile`/`dofile`, with lua5.1's messages.
fn read_source(c: &mut Call, i: usize) -> Result<Result<(Vec<u8>, String), String>, Raised> {
    use std::io::Read;
    if c.arg(i).is_nil() {
        let mut buf = Vec::new();
        return Ok(match std::io::stdin().read_to_end(&mut buf) {
            Ok(_) => Ok((buf, "=stdin".to_owned())),
            Err(_) => Err("cannot read stdin".to_owned()),
        });
    }
    let name = String::from_utf8_lossy(&c.check_bytes(i)?).into_owned();
    Ok(match std::fs::read(&name) {
        Ok(bytes) => Ok((bytes, format!("@{name}"))),
        Err(e) => Err(format!("cannot open {name}: {}", os_error_text(&e))),
    })
}

native!(LOADFILE, "loadfile", |c| {
    let loaded = match read_source(c, 0)? {
        Ok((source, name)) => c.st.load(&source, &name, true),
        Err(e) => Err(e.into_bytes()),
    };
    load_result(c, loaded)
});

native!(DOFILE, "dofile", |c| {
    let f = match read_source(c, 0)? {
        Ok((source, name)) => c.st.load(&source, &name, true),
        Err(e) => Err(e.into_bytes()),
    };
    let f = match f {
        Ok(f) => f,
        Err(msg) => {
            let m = c.string(&msg)?;
            return Err(c.raise(m));
        }
    };
    let results = c.call(f, &[], 1)?;
    c.return_values(0, &results)
});

native!(XPCALL, "xpcall", generated crate::interp::__deegen_lib_xpcall, |c| {
    // 5.1 checks only the handler (argument 2); a missing function fails as a call.
    let handler = c.check_any(1)?;
    let f = c.arg(0);
    c.st.protected.push(Protected { handler, state: HandlerState::Armed, base: c.base });
    let outcome = c.call(f, &[], 2);
    let entry = c.st.protected.pop().expect("pushed above");
    match outcome {
        Ok(results) => {
            c.set(0, TValue::TRUE);
            c.return_values(1, &results)
        }
        Err(Raised) => {
            // The handler normally ran where the error was raised, with the stack intact
            // (`lua_rt_on_throw`); errors of the call itself ("attempt to call a nil value")
            // reach it only here.
            let mut e = TValue(c.st.cur().interp.error);
            if entry.state == HandlerState::Armed && !handler.is_function() {
                // 5.1's `luaG_errormsg` calls only a function: any other handler, even a value
                // with `__call`, is an error in error handling (as `lua_rt_on_throw` has it).
                e = c.string(b"error in error handling")?;
            } else if entry.state == HandlerState::Armed {
                // With 5.1's extra depth for handlers: "C stack overflow" reaches it too.
                let allowance = std::mem::replace(&mut c.st.depth_allowance, crate::state::HANDLER_EXTRA_DEPTH);
                let handled = c.call(handler, &[e], 2);
                c.st.depth_allowance = allowance;
                e = match handled {
                    Ok(r) => r.first().copied().unwrap_or(TValue::NIL),
                    Err(Raised) => c.string(b"error in error handling")?,
                };
            }
            c.set(0, TValue::FALSE);
            c.set(1, e);
            Ok(2)
        }
    }
});

/// `getfenv`/`setfenv`'s first argument: a function, or a stack level (0: the thread).
fn env_target(c: &mut Call) -> Result<Option<TValue>, Raised> {
    let v = c.arg(0);
    if v.is_function() {
        return Ok(Some(v));
    }
    let level = c.opt_int(0, 1)?;
    if level < 0 {
        return Err(c.arg_error(0, "level must be non-negative"));
    }
    if level == 0 {
        return Ok(None);
    }
    match function_at_level(c, level as usize) {
        None => Err(c.arg_error(0, "invalid level")),
        Some(f) if f.is_nil() => Err(c.error(&format!("no function environment for tail call at level {level}"))),
        Some(f) => Ok(Some(f)),
    }
}

native!(GETFENV, "getfenv", |c| {
    let env = match env_target(c)? {
        None => c.st.globals,
        Some(f) => unsafe { (*f.as_closure()).env },
    };
    c.set(0, env);
    Ok(1)
});

native!(SETFENV, "setfenv", |c| {
    let t = c.check_table(1)?;
    match env_target(c)? {
        None => {
            c.st.globals = t;
            Ok(0)
        }
        Some(f) if crate::object::function::is_native(unsafe { (*f.as_closure()).code_block }) => {
            Err(c.error(&format!("'{}' cannot change environment of given object", c.name())))
        }
        Some(f) => {
            unsafe { (*f.as_closure()).env = t };
            c.st.heap.write_barrier(f.as_ptr());
            c.set(0, f);
            Ok(1)
        }
    }
});

/// The payload of userdata made by `newproxy` (5.1 tells proxies apart by their metatable).
struct Proxy;

native!(NEWPROXY, "newproxy", |c| {
    // 5.1's undocumented newproxy: no argument or false gives a bare userdata, true one with
    // a fresh metatable, a proxy one sharing that proxy's metatable.
    let arg = c.arg(0);
    let metatable = if arg.is_falsy() {
        std::ptr::null_mut()
    } else if arg == TValue::TRUE {
        Table::new_in(&mut c.st.heap).map_err(|_| c.raise_oom())?.as_ptr::<Table>()
    } else if arg.is_kind(lua51_value::ObjKind::Userdata) && crate::object::userdata::userdata_mut(arg).payload.is::<Proxy>() {
        crate::object::userdata::userdata_mut(arg).metatable
    } else {
        return Err(c.arg_error(0, "boolean or proxy expected"));
    };
    // The new metatable is only reachable from this frame's native code: keep it in the
    // argument slot across the allocation of the userdata.
    if !metatable.is_null() {
        c.set(0, TValue::from_table(metatable.cast()));
    }
    let env = c.st.globals;
    let u = crate::object::userdata::Userdata::new_in(&mut c.st.heap, Box::new(Proxy), metatable, env).map_err(|_| c.raise_oom())?;
    c.set(0, u);
    Ok(1)
});

/// The base library's functions, by their Lua names (5.1's `base_funcs`).
pub(crate) const FUNCTIONS: &[Native] = &[
    PRINT,
    TYPE,
    TOSTRING,
    TONUMBER,
    PAIRS,
    IPAIRS,
    SELECT,
    UNPACK,
    RAWGET,
    RAWSET,
    RAWEQUAL,
    SETMETATABLE,
    GETMETATABLE,
    NEWPROXY,
    ASSERT,
    ERROR,
    PCALL,
    COLLECTGARBAGE,
    LOADSTRING,
    LOAD,
    LOADFILE,
    DOFILE,
    XPCALL,
    GETFENV,
    SETFENV,
    GCINFO,
    NEXT,
];

/// Opens the base library into the globals (5.1's `luaopen_base`), and returns them.
pub fn open(st: &mut LuaState) -> Result<TValue, OutOfMemory> {
    let g = st.globals;
    for f in FUNCTIONS {
        register(st, g, f)?;
    }
    // `pairs` returns its own copy of `next` (5.1's auxopen), not the global one.
    st.next_fn = NEXT.function(st)?;
    st.ipairs_aux_fn = IPAIRS_AUX.function(st)?;
    // For `pairs` and `ipairs` in generated code.
    st.shared.next_fn = st.next_fn;
    st.shared.ipairs_aux_fn = st.ipairs_aux_fn;
    st.set_global("_G", g)?;
    let version = st.intern(b"Lua 5.1")?;
    st.set_global("_VERSION", version)?;
    Ok(g)
}
