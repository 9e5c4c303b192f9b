//! The debug library (5.1's `ldblib`): stack levels and locals, `getinfo`, hooks, upvalues,
//! environments, metatables of any type, and `debug.debug`'s prompt.

use std::borrow::Cow;

use deegen_api::frame;
use lua51_value::number::{to_number, tostring_bytes};
use lua51_value::{TValue, TraversalPlace};

use crate::compiler::{FOR_GENERATOR, FOR_STATE};
use crate::frames::{Frame, Level};
use crate::native::{native, new_library, Call, NResult, Native, Raised};
use crate::object::heap::OutOfMemory;
use crate::object::table::{table_mut, Table};
use crate::state::LuaState;

/// Local `n` (1-based) of the function running at `level`: its name and slot among the
/// locals in scope at the current instruction (5.1's `findlocal`). 5.1 also numbers the other
/// live registers "(*temporary)"; this frame layout interleaves pending calls' header slots
/// with them, so none are reported. `Err` when `level` has no frame.
/// The local `n` of the function at `level` of `levels` (5.1's `lua_getlocal`): the `n`th
/// active named local of a Lua function, else "(*temporary)" for any slot below the next
/// frame's call (for the innermost level, below `top`). Err: no such level.
fn find_local(mut levels: crate::frames::Levels, level: usize, n: i64, top: *mut u64) -> Result<Option<(String, *mut u64)>, ()> {
    // The innermost real frame above the wanted level: its call slot bounds the temporaries.
    let mut limit = top;
    for _ in 0..level {
        match levels.next() {
            Some(Level::Frame(f)) => limit = call_slot(f),
            Some(Level::TailCall) => {}
            None => return Err(()),
        }
    }
    let Some(level) = levels.next() else { return Err(()) };
    let Some(frame) = level.frame() else { return Ok(None) };
    if n < 1 {
        return Ok(None);
    }
    let Frame { base, pc } = frame;
    let cb = unsafe { (*frame.callee().as_closure()).code_block };
    if !crate::object::function::is_native(cb) && !pc.is_null() {
        let proto = crate::object::function::proto_of(cb);
        let offset = unsafe { pc.offset_from(proto.code.as_ptr()) } as u32;
        let named = proto.locvars.iter().filter(|l| l.start <= offset && offset < l.end).nth(n as usize - 1);
        if let Some(l) = named {
            return Ok(Some((l.name.to_string(), unsafe { base.add(usize::from(l.slot)) })));
        }
    }
    let slot = unsafe { base.add(n as usize - 1) };
    Ok((!limit.is_null() && slot < limit).then(|| ("(*temporary)".to_owned(), slot)))
}

/// Where the caller put the function running in `f` (the slot below its frame header, before a
/// vararg entry moved the frame above the extra arguments).
fn call_slot(f: Frame) -> *mut u64 {
    let cb = unsafe { (*f.callee().as_closure()).code_block };
    let header = deegen_api::FRAME_HEADER_SLOTS;
    if crate::object::function::is_native(cb) || !crate::object::function::proto_of(cb).is_vararg {
        return unsafe { f.base.sub(header) };
    }
    let extra = unsafe { *f.base.offset(frame::NUM_VARARGS as isize) } as usize;
    if extra == 0 {
        unsafe { f.base.sub(header) }
    } else {
        let fixed = crate::object::function::proto_of(cb).num_params as usize;
        unsafe { f.base.sub(2 * header + fixed + extra) }
    }
}

/// The levels of `thread`'s stack (from its `yield`; none unless it is suspended), or of the
/// running thread's from the native function `c`; and the innermost level's top.
fn thread_levels(c: &Call, thread: Option<TValue>) -> (crate::frames::Levels, *mut u64) {
    match thread {
        Some(co) => (crate::frames::levels(crate::object::thread::thread_mut(co).suspended_frame(), std::ptr::null()), std::ptr::null_mut()),
        None => (crate::frames::levels(c.base, std::ptr::null()), unsafe { c.base.add(c.nargs) }),
    }
}

/// The optional leading thread argument of the debug library (5.1's `getthread`): the thread
/// if it is not the running one, and the index of the next argument.
fn debug_thread(c: &Call) -> (Option<TValue>, usize) {
    let a = c.arg(0);
    if a.is_kind(lua51_value::ObjKind::Thread) {
        (if a == c.st.current_thread { None } else { Some(a) }, 1)
    } else {
        (None, 0)
    }
}

// debug.debug: 5.1's little interactive loop. Each line from standard input runs as a chunk;
// errors are printed and the loop goes on; "cont" or the end of input leaves it.
native!(DEBUG, "debug", |c| {
    use std::io::BufRead;
    loop {
        c.st.flush();
        eprint!("lua_debug> ");
        let mut line = String::new();
        if std::io::stdin().lock().read_line(&mut line).unwrap_or(0) == 0 || line.trim_end_matches('\n') == "cont" {
            return Ok(0);
        }
        let outcome = match c.st.load(line.as_bytes(), "=(debug command)", false) {
            Ok(f) => c.call(f, &[], c.nargs).map(|_| ()).map_err(|Raised| {
                let mut text = Vec::new();
                tostring_bytes(TValue(c.st.cur().interp.error), &mut text);
                String::from_utf8_lossy(&text).into_owned()
            }),
            Err(msg) => Err(String::from_utf8_lossy(&msg).into_owned()),
        };
        if let Err(msg) = outcome {
            c.st.flush();
            eprintln!("{msg}");
        }
    }
});

// debug.getfenv/setfenv: the environment of any object that has one (functions, native ones
// included, userdata, coroutines), unlike the base functions, which take stack levels.
native!(GETFENV, "getfenv", |c| {
    let o = c.check_any(0)?;
    let env = if o.is_function() {
        unsafe { (*o.as_closure()).env }
    } else if o.is_kind(lua51_value::ObjKind::Userdata) {
        crate::object::userdata::userdata_mut(o).env
    } else if o.is_kind(lua51_value::ObjKind::Thread) {
        // The running coroutine's globals are the state's while it runs.
        if o == c.st.current_thread {
            c.st.globals
        } else {
            crate::object::thread::thread_mut(o).env
        }
    } else {
        TValue::NIL
    };
    c.set(0, env);
    Ok(1)
});

native!(SETFENV, "setfenv", |c| {
    let o = c.arg(0);
    let t = c.check_table(1)?;
    if o.is_function() {
        unsafe { (*o.as_closure()).env = t };
    } else if o.is_kind(lua51_value::ObjKind::Userdata) {
        crate::object::userdata::userdata_mut(o).env = t;
    } else if o.is_kind(lua51_value::ObjKind::Thread) {
        if o == c.st.current_thread {
            c.st.globals = t;
        } else {
            crate::object::thread::thread_mut(o).env = t;
        }
    } else {
        return Err(c.error(&format!("'{}' cannot change environment of given object", c.name())));
    }
    c.st.heap.write_barrier(o.as_ptr());
    c.set(0, o);
    Ok(1)
});

native!(GETREGISTRY, "getregistry", |c| {
    let r = c.st.registry;
    c.set(0, r);
    Ok(1)
});

/// `getlocal`/`setlocal`: finds the local `(level, n)` of arguments 1 and 2 (nil when there
/// is none), then `finish` fills the results after the name.
fn with_local(c: &mut Call, finish: impl FnOnce(&mut Call, *mut u64, usize, &str) -> NResult) -> NResult {
    let (thread, first) = debug_thread(c);
    let level = c.check_int(first)?;
    let n = c.check_int(first + 1)?;
    let (levels, top) = thread_levels(c, thread);
    match find_local(levels, level.max(0) as usize, n, top) {
        Err(()) => Err(c.arg_error(first, "level out of range")),
        Ok(None) => {
            c.set(0, TValue::NIL);
            Ok(1)
        }
        Ok(Some((name, slot))) => {
            let results = finish(c, slot, first, &name)?;
            let s = c.string(name.as_bytes())?;
            c.set(0, s);
            Ok(results)
        }
    }
}

native!(GETLOCAL, "getlocal", |c| {
    with_local(c, |c, slot, _, _| {
        // (A traversal's place is in a generic `for`'s control slot, after its state's: still
        // there when a loop left by `break` is read as a temporary.)
        // SAFETY: a slot of a frame has at least its frame's header below it.
        let bits = unsafe { *slot };
        let value = TraversalPlace::control_key(TValue(unsafe { *slot.sub(1) }), bits).unwrap_or(TValue(bits));
        c.set(1, value);
        Ok(2)
    })
});

native!(SETLOCAL, "setlocal", |c| {
    with_local(c, |c, slot, first, name| {
        let value = c.check_any(first + 2)?;
        // A `next` loop's control slot holds a traversal's place only while its generator and
        // state are those its first step checked: replacing either puts the key back first.
        // SAFETY: a generic `for`'s three hidden slots are consecutive.
        let hidden = match name {
            FOR_GENERATOR => Some(unsafe { (slot.add(1), slot.add(2)) }),
            FOR_STATE => Some(unsafe { (slot, slot.add(1)) }),
            _ => None,
        };
        if let Some((state, control)) = hidden {
            // SAFETY: both are slots of the frame.
            if let Some(key) = TraversalPlace::control_key(TValue(unsafe { *state }), unsafe { *control }) {
                unsafe { *control = key.raw() };
            }
        }
        unsafe { *slot = value.raw() };
        Ok(1)
    })
});

native!(SETHOOK, "sethook", |c| {
    // sethook([thread,] hook, mask [, count]); no hook (or nil) turns hooks off.
    let (thread, first) = debug_thread(c);
    let thread = thread.unwrap_or(c.st.current_thread);
    let func = c.arg(first);
    if func.is_nil() {
        crate::hook::set(c.st, thread, TValue::NIL, 0, 0);
        return Ok(0);
    }
    let mask = c.check_bytes(first + 1)?;
    if !func.is_function() {
        return Err(c.type_error(first, "function"));
    }
    let count = c.opt_int(first + 2, 0)?;
    let count = u32::try_from(count).unwrap_or(0);
    let mask = crate::hook::parse_mask(&mask, count);
    crate::hook::set(c.st, thread, func, mask, count);
    // The hooked thread's frames leave JIT code, which calls no hooks, when they are returned to.
    let innermost = if thread == c.st.current_thread { c.base } else { crate::object::thread::thread_mut(thread).suspended_frame() };
    if !innermost.is_null() {
        crate::hook::leave_jit_code(c.st, innermost);
    }
    Ok(0)
});

native!(GETHOOK, "gethook", |c| {
    // gethook([thread]): the hook function, its mask and its count.
    let thread = debug_thread(c).0.unwrap_or(c.st.current_thread);
    let hook = *crate::hook::of_thread(c.st, thread);
    let mask = c.string(crate::hook::mask_string(hook.mask).as_bytes())?;
    c.return_values(0, &[hook.func, mask, TValue::from_f64(f64::from(hook.base_count))])
});

native!(TRACEBACK, "traceback", |c| {
    // traceback([thread,] [message [, level]]): another coroutine is traced from where it is
    // suspended (its `yield`), from level 0.
    let thread = c.arg(0).is_kind(lua51_value::ObjKind::Thread).then(|| c.arg(0));
    let first = usize::from(thread.is_some());
    let msg = c.arg(first);
    if !msg.is_nil() && !msg.is_string() && !msg.is_double() {
        c.set(0, msg);
        return Ok(1);
    }
    let (top, level) = match thread {
        Some(co) => (crate::object::thread::thread_mut(co).suspended_frame(), c.opt_int(first + 1, 0)?),
        None => (c.base, c.opt_int(1, 1)?),
    };
    let level = level.max(0) as usize;
    let levels = crate::frames::levels(top, std::ptr::null()).skip(level);
    let mut text = Vec::new();
    if !msg.is_nil() {
        tostring_bytes(msg, &mut text);
        text.push(b'\n');
    }
    // Only the main thread's outermost frame was entered from native code (`lua.c`'s call of
    // the chunk); a coroutine's stack starts with its function.
    let from_native = thread.is_none() && c.st.current_thread.is_nil();
    text.extend_from_slice(c.st.traceback_of(levels, level, from_native).as_bytes());
    let s = c.string(&text)?;
    c.set(0, s);
    Ok(1)
});

native!(GETINFO, "getinfo", |c| {
    let (thread, first) = debug_thread(c);
    let what = if c.arg(first + 1).is_nil() { Cow::Borrowed(&b"flnSu"[..]) } else { c.check_bytes(first + 1)? };
    // The function, its instruction and its call site; None for a tail call's level.
    let target = if c.arg(first).is_function() {
        Some((c.arg(first), std::ptr::null::<u8>(), None))
    } else {
        if to_number(c.arg(first)).is_none() {
            return Err(c.arg_error(first, "function or level expected"));
        }
        let level = c.check_int(first)?;
        match thread_levels(c, thread).0.nth(level.max(0) as usize) {
            Some(Level::Frame(fr)) if level >= 0 => Some((fr.callee(), fr.pc, fr.call_site())),
            Some(Level::TailCall) if level >= 0 => None,
            _ => {
                c.set(0, TValue::NIL);
                return Ok(1);
            }
        }
    };
    if what.iter().any(|b| !b"SlnufL".contains(b)) {
        return Err(c.arg_error(first + 1, "invalid option"));
    }
    let t = Table::new_in(&mut c.st.heap).map_err(|_| c.raise_oom())?;
    let put = |c: &mut Call, k: &str, v: TValue| -> Result<(), Raised> {
        let key = c.string(k.as_bytes())?;
        c.table_set(t, key, v)?;
        Ok(())
    };
    // The 'S' fields of what has no Lua source (a tail call's lost function, a native one).
    let put_no_source = |c: &mut Call, source: &[u8], short_src: &[u8], what: &[u8]| -> Result<(), Raised> {
        for (k, v) in [("source", source), ("short_src", short_src), ("what", what)] {
            let s = c.string(v)?;
            put(c, k, s)?;
        }
        put(c, "linedefined", TValue::from_f64(-1.0))?;
        put(c, "lastlinedefined", TValue::from_f64(-1.0))
    };
    let Some((f, pc, caller)) = target else {
        // 5.1's `info_tailcall`: nothing is known of the function a tail call replaced.
        if what.contains(&b'S') {
            put_no_source(c, b"=(tail call)", b"(tail call)", b"tail")?;
        }
        if what.contains(&b'l') {
            put(c, "currentline", TValue::from_f64(-1.0))?;
        }
        if what.contains(&b'u') {
            put(c, "nups", TValue::from_f64(0.0))?;
        }
        if what.contains(&b'n') {
            let empty = c.string(b"")?;
            put(c, "name", empty)?;
            put(c, "namewhat", empty)?;
        }
        c.set(0, t);
        return Ok(1);
    };
    let cb = unsafe { (*f.as_closure()).code_block };
    let native = crate::object::function::is_native(cb);
    if what.contains(&b'S') {
        if native {
            put_no_source(c, b"=[C]", b"[C]", b"C")?;
        } else {
            let proto = crate::object::function::proto_of(cb);
            let source = proto.source.clone();
            // The chunk name as given to the loader ("@file", "=name", or the source text).
            let root = if proto.root.is_null() { proto } else { unsafe { &*proto.root } };
            let s = if root.chunkname.is_empty() { c.string(format!("@{source}").as_bytes())? } else { c.string(root.chunkname.as_bytes())? };
            put(c, "source", s)?;
            let s = c.string(source.as_bytes())?;
            put(c, "short_src", s)?;
            let s = c.string(if proto.line_defined == 0 { b"main".as_slice() } else { b"Lua" })?;
            put(c, "what", s)?;
            put(c, "linedefined", TValue::from_f64(f64::from(proto.line_defined)))?;
            put(c, "lastlinedefined", TValue::from_f64(f64::from(proto.last_line_defined)))?;
        }
    }
    if what.contains(&b'l') {
        let line = if native || pc.is_null() {
            -1.0
        } else {
            let proto = crate::object::function::proto_of(cb);
            f64::from(proto.line_at(unsafe { pc.offset_from(proto.code.as_ptr()) } as u32))
        };
        put(c, "currentline", TValue::from_f64(line))?;
    }
    if what.contains(&b'u') {
        put(c, "nups", TValue::from_f64(f64::from(unsafe { (*f.as_closure()).num_upvalues })))?;
    }
    if what.contains(&b'n') {
        if let Some(info) = caller.and_then(|(b, p)| c.st.called_as(b, p)) {
            let kind = match info {
                crate::object::function::VarInfo::Global(_) => "global",
                crate::object::function::VarInfo::Local(_) => "local",
                crate::object::function::VarInfo::Upvalue(_) => "upvalue",
                crate::object::function::VarInfo::Field(_) => "field",
                crate::object::function::VarInfo::Method(_) => "method",
            };
            let n = c.string(info.name().as_bytes())?;
            put(c, "name", n)?;
            let k = c.string(kind.as_bytes())?;
            put(c, "namewhat", k)?;
        } else {
            let e = c.string(b"")?;
            put(c, "namewhat", e)?;
        }
    }
    if what.contains(&b'f') {
        put(c, "func", f)?;
    }
    if what.contains(&b'L') {
        // The lines that have code (5.1 keys every line its line info names).
        let lines = if native {
            TValue::NIL
        } else {
            let proto = crate::object::function::proto_of(cb);
            let set = Table::new_in(&mut c.st.heap).map_err(|_| c.raise_oom())?;
            for offset in crate::bytecode::instruction_offsets(&proto.code) {
                let line = proto.line_at(offset as u32);
                if line != crate::object::function::PROLOGUE_LINE {
                    c.table_set(set, TValue::from_f64(f64::from(line)), TValue::TRUE)?;
                }
            }
            set
        };
        put(c, "activelines", lines)?;
    }
    c.set(0, t);
    Ok(1)
});

native!(GETMETATABLE, "getmetatable", |c| {
    let v = c.check_any(0)?;
    let mt = crate::metamethod::metatable_of(c.st, v);
    c.set(0, if mt.is_null() { TValue::NIL } else { TValue::from_table(mt.cast()) });
    Ok(1)
});

native!(SETMETATABLE, "setmetatable", |c| {
    let v = c.arg(0);
    let mt = c.arg(1);
    if !mt.is_nil() && !mt.is_table() {
        return Err(c.type_error(1, "nil or table"));
    }
    let p = if mt.is_nil() { std::ptr::null_mut() } else { mt.as_ptr::<Table>() };
    if v.is_table() {
        table_mut(v).set_metatable(p);
        c.st.heap.write_barrier(v.as_ptr());
    } else if v.is_kind(lua51_value::ObjKind::Userdata) {
        crate::object::userdata::userdata_mut(v).metatable = p;
        c.st.heap.write_barrier(v.as_ptr());
    } else if v.is_string() {
        c.st.shared.string_metatable = p as *mut lua51_value::TableObject;
    } else if let Some(i) = crate::metamethod::type_metatable_index(v) {
        c.st.type_metatables[i] = p;
    } else {
        return Err(c.error("setting the metatable of this type is not supported"));
    }
    c.set(0, TValue::TRUE);
    Ok(1)
});

/// `debug.getupvalue`/`setupvalue`: the upvalue `n` of a Lua function, with its name.
fn upvalue_slot(c: &mut Call) -> Result<Option<(*mut lua51_value::UpVal, String)>, Raised> {
    // 5.1 checks the index before the function.
    let n = c.check_int(1)?;
    let f = c.arg(0);
    if !f.is_function() {
        return Err(c.type_error(0, "function"));
    }
    let cl = f.as_closure();
    let cb = unsafe { (*cl).code_block };
    if crate::object::function::is_native(cb) || n < 1 || n as u32 > unsafe { (*cl).num_upvalues } {
        return Ok(None);
    }
    let name = crate::object::function::proto_of(cb).upvalue_names.get(n as usize - 1).cloned().unwrap_or_default();
    Ok(Some((unsafe { (*cl).upvalue(n as usize - 1) }, name)))
}

native!(GETUPVALUE, "getupvalue", |c| {
    match upvalue_slot(c)? {
        None => Ok(0),
        Some((slot, name)) => {
            let n = c.string(name.as_bytes())?;
            c.set(0, n);
            c.set(1, TValue(unsafe { *(*slot).value }));
            Ok(2)
        }
    }
});

native!(SETUPVALUE, "setupvalue", |c| {
    c.check_any(2)?;
    match upvalue_slot(c)? {
        None => Ok(0),
        Some((upvalue, name)) => {
            unsafe { *(*upvalue).value = c.arg(2).raw() };
            c.st.heap.write_barrier(upvalue as *mut lua51_value::GcHeader);
            let n = c.string(name.as_bytes())?;
            c.set(0, n);
            Ok(1)
        }
    }
});

/// The debug library's functions, by their Lua names.
pub(crate) const FUNCTIONS: &[Native] = &[
    TRACEBACK,
    GETINFO,
    SETHOOK,
    GETHOOK,
    GETLOCAL,
    GETREGISTRY,
    DEBUG,
    SETLOCAL,
    GETMETATABLE,
    SETMETATABLE,
    GETUPVALUE,
    SETUPVALUE,
    GETFENV,
    SETFENV,
];

/// Opens the debug library (the global `debug`), and returns it.
pub fn open(st: &mut LuaState) -> Result<TValue, OutOfMemory> {
    new_library(st, "debug", FUNCTIONS)
}
