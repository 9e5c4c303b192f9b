//! The standard library, as native functions (`extern "C" fn(state, base, nargs) -> nresults`):
//! arguments are read from `base`, results stored from `base`. So far: the base library's core,
//! and the most used parts of `table`, `math` and `string`.

use std::borrow::Cow;
use std::io::Write;

use deegen_api::{frame, FRAME_HEADER_SLOTS};
use lua51_value::number::{c_int, c_long, c_ulong, format_number, to_number, tostring_bytes};
use lua51_value::{type_name, TValue};

use crate::function::{new_native, NativeFn};
use crate::heap::{string_bytes, OutOfMemory};
use crate::runtime::metamethod;
use crate::frames::{Frame, Level};
use crate::state::{Event, HandlerState, LuaError, LuaState, Protected};
use crate::table::{table_mut, KeyError, Table};

/// A native function's view of its call.
pub(crate) struct Call<'a> {
    pub(crate) st: &'a mut LuaState,
    pub(crate) base: *mut u64,
    pub(crate) nargs: usize,
}

/// A raised error: the value is already in the context.
pub(crate) struct Raised;

pub(crate) type NResult = Result<usize, Raised>;

#[allow(dead_code)]
impl<'a> Call<'a> {
    pub(crate) fn arg(&self, i: usize) -> TValue {
        if i < self.nargs {
            TValue(unsafe { *self.base.add(i) })
        } else {
            TValue::NIL
        }
    }

    pub(crate) fn set(&mut self, i: usize, v: TValue) {
        unsafe { *self.base.add(i) = v.raw() };
    }

    /// The `chunk:line:` of the Lua code `level` levels up (1: the caller of this function),
    /// or nothing when that level is a native function or a tail call (`luaL_where`).
    pub(crate) fn where_(&self, level: usize) -> String {
        match self.level(level) {
            Some(Level::Frame(f)) => self.st.position(f.base, f.pc).map(|p| p + " ").unwrap_or_default(),
            _ => String::new(),
        }
    }

    /// The stack level `level` levels up from this function (0: itself), as 5.1's
    /// `lua_getstack` numbers them.
    pub(crate) fn level(&self, level: usize) -> Option<Level> {
        crate::frames::levels(self.base, std::ptr::null()).nth(level)
    }

    /// Raises `msg` with the caller's position, like `luaL_error`.
    pub(crate) fn error(&mut self, msg: &str) -> Raised {
        let text = format!("{}{msg}", self.where_(1));
        let v = self.st.intern(text.as_bytes()).unwrap_or(TValue::NIL);
        self.raise(v)
    }

    pub(crate) fn raise(&mut self, v: TValue) -> Raised {
        self.st.cur().interp.error = v.raw();
        Raised
    }

    /// `bad argument #n to 'name' (msg)`, naming the function as its call site did (lua5.1's
    /// `luaL_argerror`): `'?'` when it was not called by name, and for a method call the
    /// arguments count from the one after `self`.
    pub(crate) fn arg_error(&mut self, i: usize, msg: &str) -> Raised {
        let this = Frame { base: self.base, pc: std::ptr::null() };
        let called = this.call_site().and_then(|(b, p)| self.st.called_as(b, p));
        let (name, is_method) = match &called {
            Some(crate::function::VarInfo::Method(n)) => (n.clone(), true),
            Some(v) => (v.name().to_owned(), false),
            None => ("?".to_owned(), false),
        };
        let n = if is_method { i } else { i + 1 };
        let text = if n == 0 { format!("calling '{name}' on bad self ({msg})") } else { format!("bad argument #{n} to '{name}' ({msg})") };
        self.error(&text)
    }

    pub(crate) fn type_error(&mut self, i: usize, expected: &str) -> Raised {
        let got = if i < self.nargs { type_name(self.arg(i)) } else { "no value" };
        self.arg_error(i, &format!("{expected} expected, got {got}"))
    }

    pub(crate) fn check_any(&mut self, i: usize) -> Result<TValue, Raised> {
        if i < self.nargs {
            Ok(self.arg(i))
        } else {
            Err(self.arg_error(i, "value expected"))
        }
    }

    pub(crate) fn check_table(&mut self, i: usize) -> Result<TValue, Raised> {
        let v = self.arg(i);
        if v.is_table() {
            Ok(v)
        } else {
            Err(self.type_error(i, "table"))
        }
    }

    pub(crate) fn check_number(&mut self, i: usize) -> Result<f64, Raised> {
        match to_number(self.arg(i)) {
            Some(x) => Ok(x),
            None => Err(self.type_error(i, "number")),
        }
    }

    /// `luaL_checkinteger`: a `lua_Integer` (`ptrdiff_t`) argument, converted as C converts a
    /// double on x86-64 (`cvttsd2si`: toward zero; NaN and out-of-range values become
    /// `i64::MIN`).
    pub(crate) fn check_integer(&mut self, i: usize) -> Result<i64, Raised> {
        self.check_number(i).map(c_long)
    }

    /// `luaL_optinteger`.
    pub(crate) fn opt_integer(&mut self, i: usize, default: i64) -> Result<i64, Raised> {
        if self.arg(i).is_nil() {
            Ok(default)
        } else {
            self.check_integer(i)
        }
    }

    /// `luaL_checkint`: `(int)luaL_checkinteger`, the low 32 bits of the `lua_Integer`. What a
    /// library function does with `2^31`, `1e15` or `inf` follows from this (`select(1e15)`
    /// is out of range, `string.rep('x', 2^32)` is empty), so each function uses the
    /// conversion its 5.1 counterpart uses.
    pub(crate) fn check_int(&mut self, i: usize) -> Result<i64, Raised> {
        self.check_integer(i).map(|x| i64::from(x as i32))
    }

    /// `luaL_optint`.
    pub(crate) fn opt_int(&mut self, i: usize, default: i64) -> Result<i64, Raised> {
        if self.arg(i).is_nil() {
            Ok(default)
        } else {
            self.check_int(i)
        }
    }

    /// `t[k] = v` without metamethods (5.1's `lua_rawset`): a nil or NaN key is 5.1's error,
    /// and a table that cannot grow raises "not enough memory".
    pub(crate) fn table_set(&mut self, t: TValue, k: TValue, v: TValue) -> Result<(), Raised> {
        match table_mut(t).set(k, v) {
            Ok(()) => Ok(()),
            Err(KeyError::Nil) => Err(self.error("table index is nil")),
            Err(KeyError::NaN) => Err(self.error("table index is NaN")),
            Err(KeyError::OutOfMemory) => Err(self.raise_oom()),
        }
    }

    /// A string argument; numbers are converted, as `luaL_checklstring` does.
    /// The bytes of string argument `i` (a number is formatted, as Lua coerces it). A string
    /// is borrowed, not copied: `s:sub`/`s:find` on a long subject in a loop would otherwise
    /// be quadratic. The argument slot keeps the string alive for the whole native call, so
    /// the borrow is valid as long as that slot is not overwritten while it is held.
    pub(crate) fn check_bytes(&mut self, i: usize) -> Result<Cow<'static, [u8]>, Raised> {
        let v = self.arg(i);
        if v.is_string() {
            Ok(Cow::Borrowed(string_bytes(v)))
        } else if v.is_double() {
            let mut out = Vec::new();
            format_number(v.as_f64(), &mut out);
            Ok(Cow::Owned(out))
        } else {
            Err(self.type_error(i, "string"))
        }
    }

    pub(crate) fn string(&mut self, bytes: &[u8]) -> Result<TValue, Raised> {
        match self.st.intern(bytes) {
            Ok(v) => Ok(v),
            Err(OutOfMemory) => Err(self.raise_oom()),
        }
    }

    pub(crate) fn raise_oom(&mut self) -> Raised {
        let v = self.st.intern(b"not enough memory").unwrap_or(TValue::NIL);
        self.raise(v)
    }

    /// Room for `n` results from `base`.
    pub(crate) fn ensure_results(&mut self, n: usize) -> Result<(), Raised> {
        if unsafe { self.base.add(n) } >= self.st.cur().interp.stack_limit {
            return Err(self.error("stack overflow"));
        }
        Ok(())
    }

    /// Returns `values` from slot `first` on (after `first` results already stored).
    pub(crate) fn return_values(&mut self, first: usize, values: &[TValue]) -> NResult {
        self.ensure_results(first + values.len())?;
        for (i, v) in values.iter().enumerate() {
            self.set(first + i, *v);
        }
        Ok(first + values.len())
    }

    /// Calls `f` with `args` in a frame above this function's arguments and results.
    pub(crate) fn call(&mut self, f: TValue, args: &[TValue], reserve: usize) -> Result<Vec<TValue>, Raised> {
        let frame = unsafe { self.base.add(self.nargs.max(reserve)) };
        unsafe {
            *frame = f.raw();
            for (i, a) in args.iter().enumerate() {
                *frame.add(FRAME_HEADER_SLOTS + i) = a.raw();
            }
        }
        let st: *mut LuaState = &mut *self.st;
        match unsafe { LuaState::call_at(st, frame, args.len(), self.base) } {
            Ok((p, n)) => Ok((0..n).map(|i| TValue(unsafe { *p.add(i) })).collect()),
            Err(LuaError { value }) => Err(self.raise(value)),
        }
    }

    /// Runs the queued finalizers above this function's arguments; the first error is raised
    /// from this function.
    #[cold]
    pub(crate) fn run_finalizers(&mut self) -> Result<(), Raised> {
        let frame = unsafe { self.base.add(self.nargs) };
        let st: *mut LuaState = &mut *self.st;
        unsafe { crate::gc::run_finalizers(st, frame, self.base) }.map_err(|LuaError { value }| self.raise(value))
    }

    /// The call event of a debug hook, if the running thread has one.
    #[cold]
    pub(crate) fn hook_call(&mut self) -> Result<(), Raised> {
        let st: *mut LuaState = &mut *self.st;
        unsafe { crate::hook::native_call(st, self.base, self.nargs) }.map_err(|LuaError { value }| self.raise(value))
    }

    /// The return event of a debug hook, after this function stored `n` results.
    #[cold]
    pub(crate) fn hook_return(&mut self, n: usize) -> Result<(), Raised> {
        let st: *mut LuaState = &mut *self.st;
        unsafe { crate::hook::native_return(st, self.base, n.max(self.nargs)) }.map_err(|LuaError { value }| self.raise(value))
    }

    /// `tostring` with `__tostring`.
    pub(crate) fn tostring(&mut self, v: TValue, reserve: usize) -> Result<Vec<u8>, Raised> {
        let tm = metamethod(self.st, v, Event::ToString);
        if tm.is_nil() {
            let mut out = Vec::new();
            tostring_bytes(v, &mut out);
            return Ok(out);
        }
        let r = self.call(tm, &[v], reserve)?.first().copied().unwrap_or(TValue::NIL);
        if r.is_string() || r.is_double() {
            let mut out = Vec::new();
            tostring_bytes(r, &mut out);
            Ok(out)
        } else {
            Err(self.error("'tostring' must return a string to 'print'"))
        }
    }
}

macro_rules! native {
    ($(#[$attr:meta])* $rust:ident, $lua:literal, |$c:ident| $body:block) => {
        $(#[$attr])*
        pub(crate) extern "C" fn $rust(ctx: *mut lua51_value::LuaContext, base: *mut u64, nargs: u64) -> i64 {
            // `$lua` documents the function; error messages name it as its call site did.
            let _ = $lua;
            let mut call = Call { st: unsafe { crate::state::state_of(ctx) }, base, nargs: nargs as usize };
            // Native functions are collection safe points: their arguments are the live top.
            crate::gc::check(call.st, unsafe { base.add(nargs as usize) });
            // And the place where finalizers queued by any collection run.
            if !call.st.to_finalize.is_empty() {
                if let Err(Raised) = call.run_finalizers() {
                    return -1;
                }
            }
            if call.st.hooked_threads != 0 {
                if let Err(Raised) = call.hook_call() {
                    return -1;
                }
            }
            let f = |$c: &mut Call| -> NResult { $body };
            match f(&mut call) {
                // Asked again: `sethook` itself reports its return.
                Ok(n) if call.st.hooked_threads != 0 => match call.hook_return(n) {
                    Ok(()) => n as i64,
                    Err(Raised) => -1,
                },
                Ok(n) => n as i64,
                Err(Raised) => -1,
            }
        }
    };
}

pub(crate) use native;

native!(lua_print, "print", |c| {
    // 5.1 converts through whatever the global `tostring` is now; the built-in one runs
    // without a call.
    let key = c.string(b"tostring")?;
    // 5.1's lua_getglobal: the running thread's globals (which `globals` always holds).
    let globals = c.st.globals;
    let tostring = index_value(c, globals, key)?;
    // (Called all the same while a debug hook is set, which sees 5.1's calls.)
    let builtin = tostring.is_function() && unsafe { (*(*tostring.as_closure()).code_block).native } == lua_tostring as *const () && c.st.hooked_threads == 0;
    let mut line = Vec::new();
    for i in 0..c.nargs {
        if i > 0 {
            line.push(b'\t');
        }
        let piece = if builtin {
            c.tostring(c.arg(i), c.nargs)?
        } else {
            let r = c.call(tostring, &[c.arg(i)], c.nargs)?.first().copied().unwrap_or(TValue::NIL);
            if !(r.is_string() || r.is_double()) {
                return Err(c.error("'tostring' must return a string to 'print'"));
            }
            let mut out = Vec::new();
            tostring_bytes(r, &mut out);
            out
        };
        // lua5.1 writes each piece with fputs, which stops at an embedded NUL.
        let end = piece.iter().position(|&b| b == 0).unwrap_or(piece.len());
        line.extend_from_slice(&piece[..end]);
    }
    line.push(b'\n');
    let _ = c.st.stdout.write_all(&line);
    Ok(0)
});

native!(lua_type, "type", |c| {
    let v = c.check_any(0)?;
    let s = c.string(type_name(v).as_bytes())?;
    c.set(0, s);
    Ok(1)
});

native!(lua_tostring, "tostring", |c| {
    let v = c.check_any(0)?;
    // 5.1 returns what `__tostring` returns, unconverted (only `print` insists on a string).
    let tm = metamethod(c.st, v, Event::ToString);
    if !tm.is_nil() {
        let r = c.call(tm, &[v], 1)?.first().copied().unwrap_or(TValue::NIL);
        c.set(0, r);
        return Ok(1);
    }
    let bytes = c.tostring(v, 1)?;
    let s = c.string(&bytes)?;
    c.set(0, s);
    Ok(1)
});

native!(lua_tonumber, "tonumber", |c| {
    let v = c.check_any(0)?;
    let base = c.opt_int(1, 10)?;
    let result = if base == 10 {
        to_number(v).map(TValue::from_f64_canonical)
    } else {
        if !(2..=36).contains(&base) {
            return Err(c.arg_error(1, "base out of range"));
        }
        // luaB_tonumber: C's strtoul, then only trailing spaces.
        extern "C" {
            fn strtoul(s: *const std::ffi::c_char, end: *mut *mut std::ffi::c_char, base: std::ffi::c_int) -> std::ffi::c_ulong;
        }
        let mut bytes = c.check_bytes(0)?.into_owned();
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
    /// Exported: the generic `for` recognises it and steps without a call (`lua_rt_next`).
    #[no_mangle]
    lua_next, "next", |c| {
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
        Err(crate::table::InvalidKey) => {
            let msg = c.string(b"invalid key to 'next'")?;
            Err(c.raise(msg))
        }
    }
});

native!(lua_pairs, "pairs", |c| {
    let t = c.check_table(0)?;
    let next = c.st.next_fn;
    c.set(0, next);
    c.set(1, t);
    c.set(2, TValue::NIL);
    Ok(3)
});

native!(
    /// Exported: the generic `for` recognises it and steps inline.
    #[no_mangle]
    lua_ipairs_aux, "ipairs", |c| {
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

native!(lua_ipairs, "ipairs", |c| {
    let t = c.check_table(0)?;
    let aux = c.st.ipairs_aux_fn;
    c.set(0, aux);
    c.set(1, t);
    c.set(2, TValue::from_f64(0.0));
    Ok(3)
});

native!(lua_select, "select", |c| {
    let n = c.arg(0);
    // 5.1 looks at the first character only: "#anything" counts.
    if n.is_string() && string_bytes(n).first() == Some(&b'#') {
        c.set(0, TValue::from_f64((c.nargs - 1) as f64));
        return Ok(1);
    }
    let i = c.check_int(0)?;
    let count = c.nargs as i64;
    let i = if i < 0 { count + i } else if i > count { count } else { i };
    if i < 1 {
        return Err(c.arg_error(0, "index out of range"));
    }
    let i = i as usize;
    unsafe { std::ptr::copy(c.base.add(i), c.base, c.nargs - i) };
    Ok(c.nargs - i)
});

native!(lua_unpack, "unpack", |c| {
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
        let v = table_mut(t).get(TValue::from_f64((first + i as i64) as f64));
        c.set(i, v);
    }
    Ok(n)
});

native!(lua_rawget, "rawget", |c| {
    let t = c.check_table(0)?;
    c.check_any(1)?;
    let v = table_mut(t).get(c.arg(1));
    c.set(0, v);
    Ok(1)
});

native!(lua_rawset, "rawset", |c| {
    let t = c.check_table(0)?;
    c.check_any(1)?;
    c.check_any(2)?;
    c.table_set(t, c.arg(1), c.arg(2))?;
    c.set(0, t);
    Ok(1)
});

native!(lua_rawequal, "rawequal", |c| {
    c.check_any(0)?;
    c.check_any(1)?;
    let eq = c.arg(0).raw_equals(c.arg(1));
    c.set(0, TValue::from_bool(eq));
    Ok(1)
});

native!(lua_setmetatable, "setmetatable", |c| {
    let t = c.check_table(0)?;
    let mt = c.arg(1);
    // A missing second argument is not nil here (5.1 checks lua_type, which says "none").
    if c.nargs < 2 || (!mt.is_nil() && !mt.is_table()) {
        // luaL_argexpected is 5.2: 5.1 words it without the type it got.
        return Err(c.arg_error(1, "nil or table expected"));
    }
    if !metamethod(c.st, t, Event::Metatable).is_nil() {
        return Err(c.error("cannot change a protected metatable"));
    }
    table_mut(t).set_metatable(if mt.is_nil() { std::ptr::null_mut() } else { mt.as_ptr::<Table>() });
    c.set(0, t);
    Ok(1)
});

native!(lua_getmetatable, "getmetatable", |c| {
    let v = c.check_any(0)?;
    let mt = crate::runtime::metatable_of(c.st, v);
    if mt.is_null() {
        c.set(0, TValue::NIL);
        return Ok(1);
    }
    let protected = metamethod(c.st, v, Event::Metatable);
    c.set(0, if protected.is_nil() { TValue::from_ptr(mt) } else { protected });
    Ok(1)
});

native!(lua_assert, "assert", |c| {
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

native!(lua_error, "error", |c| {
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

// The table LUA_COMPAT_VARARG's hidden `arg` local holds: the arguments and `n`.
native!(lua_pack_varargs, "arg", |c| {
    let t = Table::with_capacity(&mut c.st.heap, c.nargs, 1).map_err(|_| c.raise_oom())?;
    for i in 0..c.nargs {
        c.table_set(t, TValue::from_f64((i + 1) as f64), c.arg(i))?;
    }
    let n = c.string(b"n")?;
    c.table_set(t, n, TValue::from_f64(c.nargs as f64))?;
    c.set(0, t);
    Ok(1)
});

native!(lua_gcinfo, "gcinfo", |c| {
    crate::gc::fold_table_storage(c.st);
    c.set(0, TValue::from_f64((c.st.heap.bytes_allocated / 1024) as f64));
    Ok(1)
});

native!(lua_table_setn, "setn", |c| { Err(c.error("'setn' is obsolete")) });

native!(lua_pcall, "pcall", |c| {
    let f = c.check_any(0)?;
    let args: Vec<TValue> = (1..c.nargs).map(|i| c.arg(i)).collect();
    c.st.protected.push(Protected { handler: TValue::NIL, state: HandlerState::Done });
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

native!(lua_table_insert, "insert", |c| {
    let t = c.check_table(0)?;
    let n = table_mut(t).length();
    let (pos, v) = match c.nargs {
        2 => (n + 1, c.arg(1)),
        3 => {
            let pos = c.check_int(1)?;
            if pos < 1 {
                return Err(c.arg_error(1, "position out of bounds"));
            }
            let pos = pos as usize;
            let mut i = n;
            while i >= pos {
                let moved = table_mut(t).get(TValue::from_f64(i as f64));
                c.table_set(t, TValue::from_f64((i + 1) as f64), moved)?;
                i -= 1;
            }
            (pos, c.arg(2))
        }
        _ => return Err(c.error("wrong number of arguments to 'insert'")),
    };
    c.table_set(t, TValue::from_f64(pos as f64), v)?;
    Ok(0)
});

native!(lua_table_remove, "remove", |c| {
    let t = c.check_table(0)?;
    let n = table_mut(t).length() as i64;
    let pos = c.opt_int(1, n)?;
    // 5.1.5's tremove: a position outside 1..#t removes nothing and returns nothing.
    if !(1 <= pos && pos <= n) {
        return Ok(0);
    }
    let removed = table_mut(t).get(TValue::from_f64(pos as f64));
    let mut i = pos;
    while i < n {
        let next = table_mut(t).get(TValue::from_f64((i + 1) as f64));
        c.table_set(t, TValue::from_f64(i as f64), next)?;
        i += 1;
    }
    c.table_set(t, TValue::from_f64(n as f64), TValue::NIL)?;
    c.set(0, removed);
    Ok(1)
});

// table.foreach / table.foreachi: deprecated in 5.1 but present. Each calls `f(key, value)`
// and stops at the first non-nil result, which it returns.
native!(lua_table_foreach, "foreach", |c| {
    let (t, f) = foreach_args(c)?;
    let mut key = TValue::NIL;
    while let Ok(Some((k, v))) = table_mut(t).next(key) {
        if let Some(r) = foreach_step(c, f, k, v)? {
            return Ok(r);
        }
        key = k;
    }
    Ok(0)
});

native!(lua_table_foreachi, "foreachi", |c| {
    let (t, f) = foreach_args(c)?;
    for i in 1..=table_mut(t).length() {
        let k = TValue::from_f64(i as f64);
        let v = table_mut(t).get(k);
        if let Some(r) = foreach_step(c, f, k, v)? {
            return Ok(r);
        }
    }
    Ok(0)
});

fn foreach_args(c: &mut Call) -> Result<(TValue, TValue), Raised> {
    let t = c.check_table(0)?;
    let f = c.arg(1);
    if !f.is_function() {
        return Err(c.type_error(1, "function"));
    }
    Ok((t, f))
}

/// One call of a `foreach`: `Some(number of results)` when it returned non-nil (the result).
fn foreach_step(c: &mut Call, f: TValue, k: TValue, v: TValue) -> Result<Option<usize>, Raised> {
    let r = c.call(f, &[k, v], 2)?.first().copied().unwrap_or(TValue::NIL);
    if r.is_nil() {
        return Ok(None);
    }
    c.set(0, r);
    Ok(Some(1))
}

native!(lua_table_concat, "concat", |c| {
    let t = c.check_table(0)?;
    let sep = if c.arg(1).is_nil() { Cow::Borrowed(&[][..]) } else { c.check_bytes(1)? };
    let first = c.opt_int(2, 1)?;
    let last = if c.arg(3).is_nil() { table_mut(t).length() as i64 } else { c.check_int(3)? };
    let mut out = Vec::new();
    let mut i = first;
    while i <= last {
        let v = table_mut(t).get(TValue::from_f64(i as f64));
        if !(v.is_string() || v.is_double()) {
            // The wording of the lua5.1 we test against (Debian's names the type).
            return Err(c.error(&format!("invalid value ({}) at index {i} in table for 'concat'", type_name(v))));
        }
        // Growth that cannot be had is "not enough memory", not an abort.
        let piece = if v.is_string() { string_bytes(v).len() } else { 32 };
        if out.try_reserve(piece + sep.len()).is_err() {
            return Err(c.raise_oom());
        }
        tostring_bytes(v, &mut out);
        if i != last {
            out.extend_from_slice(&sep);
        }
        i += 1;
    }
    let s = c.string(&out)?;
    c.set(0, s);
    Ok(1)
});

macro_rules! math1 {
    ($rust:ident, $lua:literal, $f:expr) => {
        native!($rust, $lua, |c| {
            let x = c.check_number(0)?;
            let f: fn(f64) -> f64 = $f;
            c.set(0, TValue::from_f64_canonical(f(x)));
            Ok(1)
        });
    };
}

math1!(lua_math_floor, "floor", f64::floor);
math1!(lua_math_ceil, "ceil", f64::ceil);
math1!(lua_math_sqrt, "sqrt", f64::sqrt);
math1!(lua_math_abs, "abs", f64::abs);
math1!(lua_math_sin, "sin", f64::sin);
math1!(lua_math_cos, "cos", f64::cos);
math1!(lua_math_tan, "tan", f64::tan);
math1!(lua_math_exp, "exp", f64::exp);
math1!(lua_math_log, "log", f64::ln);
math1!(lua_math_log10, "log10", f64::log10);
math1!(lua_math_asin, "asin", f64::asin);
math1!(lua_math_acos, "acos", f64::acos);
math1!(lua_math_atan, "atan", f64::atan);
math1!(lua_math_sinh, "sinh", f64::sinh);
math1!(lua_math_cosh, "cosh", f64::cosh);
math1!(lua_math_tanh, "tanh", f64::tanh);
math1!(lua_math_deg, "deg", |x| x * (180.0 / std::f64::consts::PI));
math1!(lua_math_rad, "rad", |x| x * (std::f64::consts::PI / 180.0));

native!(lua_math_atan2, "atan2", |c| {
    let (y, x) = (c.check_number(0)?, c.check_number(1)?);
    c.set(0, TValue::from_f64_canonical(y.atan2(x)));
    Ok(1)
});

native!(lua_math_modf, "modf", |c| {
    let x = c.check_number(0)?;
    let int = x.trunc();
    // lua5.1 calls C's modf: the fraction of an infinity is a zero of its sign.
    let frac = if x.is_infinite() { 0.0f64.copysign(x) } else { x - int };
    c.set(0, TValue::from_f64_canonical(int));
    c.set(1, TValue::from_f64_canonical(frac));
    Ok(2)
});

native!(lua_math_frexp, "frexp", |c| {
    extern "C" {
        fn frexp(x: f64, exp: *mut std::ffi::c_int) -> f64;
    }
    let x = c.check_number(0)?;
    let mut e: std::ffi::c_int = 0;
    let m = unsafe { frexp(x, &mut e) };
    c.set(0, TValue::from_f64_canonical(m));
    c.set(1, TValue::from_f64(f64::from(e)));
    Ok(2)
});

native!(lua_math_ldexp, "ldexp", |c| {
    extern "C" {
        fn ldexp(x: f64, exp: std::ffi::c_int) -> f64;
    }
    let (m, e) = (c.check_number(0)?, c.check_int(1)?);
    c.set(0, TValue::from_f64_canonical(unsafe { ldexp(m, e as std::ffi::c_int) }));
    Ok(1)
});

native!(lua_math_fmod, "fmod", |c| {
    let (a, b) = (c.check_number(0)?, c.check_number(1)?);
    c.set(0, TValue::from_f64_canonical(a % b));
    Ok(1)
});

native!(lua_math_pow, "pow", |c| {
    let (a, b) = (c.check_number(0)?, c.check_number(1)?);
    c.set(0, TValue::from_f64_canonical(a.powf(b)));
    Ok(1)
});

native!(lua_math_max, "max", |c| {
    let mut m = c.check_number(0)?;
    for i in 1..c.nargs {
        let x = c.check_number(i)?;
        if x > m {
            m = x;
        }
    }
    c.set(0, TValue::from_f64_canonical(m));
    Ok(1)
});

native!(lua_math_min, "min", |c| {
    let mut m = c.check_number(0)?;
    for i in 1..c.nargs {
        let x = c.check_number(i)?;
        if x < m {
            m = x;
        }
    }
    c.set(0, TValue::from_f64_canonical(m));
    Ok(1)
});

/// `string.sub`/`string.byte` positions: negative counts from the end (Lua 5.1's `posrelat`).
fn posrelat(pos: i64, len: usize) -> i64 {
    if pos < 0 {
        len as i64 + pos + 1
    } else {
        pos
    }
}

native!(lua_string_len, "len", |c| {
    let s = c.check_bytes(0)?;
    c.set(0, TValue::from_f64(s.len() as f64));
    Ok(1)
});

native!(lua_string_sub, "sub", |c| {
    let s = c.check_bytes(0)?;
    let len = s.len();
    let mut start = posrelat(c.check_integer(1)?, len);
    let mut end = posrelat(c.opt_integer(2, -1)?, len);
    if start < 1 {
        start = 1;
    }
    if end > len as i64 {
        end = len as i64;
    }
    let out = if start <= end { c.string(&s[(start - 1) as usize..end as usize])? } else { c.string(b"")? };
    c.set(0, out);
    Ok(1)
});

native!(lua_string_upper, "upper", |c| {
    let s = c.check_bytes(0)?.to_ascii_uppercase();
    let v = c.string(&s)?;
    c.set(0, v);
    Ok(1)
});

native!(lua_string_lower, "lower", |c| {
    let s = c.check_bytes(0)?.to_ascii_lowercase();
    let v = c.string(&s)?;
    c.set(0, v);
    Ok(1)
});

native!(lua_string_rep, "rep", |c| {
    let s = c.check_bytes(0)?;
    let n = c.check_int(1)?;
    if n <= 0 || s.is_empty() {
        let v = c.string(b"")?;
        c.set(0, v);
        return Ok(1);
    }
    let total = (s.len() as u128) * (n as u128);
    if total >= crate::heap::MAX_STRING_LEN as u128 {
        return Err(c.raise_oom());
    }
    let mut out = Vec::new();
    if out.try_reserve_exact(total as usize).is_err() {
        return Err(c.raise_oom());
    }
    for _ in 0..n {
        out.extend_from_slice(&s);
    }
    let v = c.string(&out)?;
    c.set(0, v);
    Ok(1)
});

native!(lua_string_byte, "byte", |c| {
    let s = c.check_bytes(0)?;
    let len = s.len();
    // As 5.1's str_byte: the end defaults to the start before the start is clamped.
    let posi = posrelat(c.opt_integer(1, 1)?, len);
    let end = posrelat(c.opt_integer(2, posi)?, len).min(len as i64);
    let start = posi.max(1);
    if start > end {
        return Ok(0);
    }
    let n = (end - start + 1) as usize;
    c.ensure_results(n)?;
    for i in 0..n {
        c.set(i, TValue::from_f64(f64::from(s[start as usize - 1 + i])));
    }
    Ok(n)
});

native!(lua_string_char, "char", |c| {
    let mut out = Vec::with_capacity(c.nargs);
    for i in 0..c.nargs {
        let x = c.check_int(i)?;
        if !(0..=255).contains(&x) {
            return Err(c.arg_error(i, "invalid value"));
        }
        out.push(x as u8);
    }
    let v = c.string(&out)?;
    c.set(0, v);
    Ok(1)
});

/// `table.sort`: Lua 5.1's `auxsort` (median-of-three quicksort), step for step, so the
/// comparisons a custom comparator sees, and its errors, are the reference's.
struct Sorter<'c, 'a> {
    c: &'c mut Call<'a>,
    t: TValue,
    cmp: TValue,
}

impl Sorter<'_, '_> {
    fn get(&self, i: i64) -> TValue {
        table_mut(self.t).get(TValue::from_f64(i as f64))
    }
    fn set(&self, i: i64, v: TValue) {
        // Sorting rewrites keys 1..n, which exist: the table does not grow.
        let _ = table_mut(self.t).set(TValue::from_f64(i as f64), v);
    }
    fn less(&mut self, a: TValue, b: TValue) -> Result<bool, Raised> {
        if !self.cmp.is_nil() {
            let r = self.c.call(self.cmp, &[a, b], 3)?;
            return Ok(r.first().is_some_and(|v| !v.is_falsy()));
        }
        if a.is_double() && b.is_double() {
            return Ok(a.as_f64() < b.as_f64());
        }
        if a.is_string() && b.is_string() {
            return Ok(string_bytes(a) < string_bytes(b));
        }
        let tm = metamethod(self.c.st, a, Event::Lt);
        if !tm.is_nil() && tm == metamethod(self.c.st, b, Event::Lt) {
            let r = self.c.call(tm, &[a, b], 3)?;
            return Ok(r.first().is_some_and(|v| !v.is_falsy()));
        }
        let (t1, t2) = (type_name(a), type_name(b));
        let msg = if t1 == t2 { format!("attempt to compare two {t1} values") } else { format!("attempt to compare {t1} with {t2}") };
        Err(self.c.error(&msg))
    }
    fn swap(&self, i: i64, j: i64) {
        let (a, b) = (self.get(i), self.get(j));
        self.set(i, b);
        self.set(j, a);
    }
    fn sort(&mut self, mut l: i64, mut u: i64) -> Result<(), Raised> {
        while l < u {
            if self.less(self.get(u), self.get(l))? {
                self.swap(l, u);
            }
            if u - l == 1 {
                break;
            }
            let mut i = (l + u) / 2;
            if self.less(self.get(i), self.get(l))? {
                self.swap(i, l);
            } else if self.less(self.get(u), self.get(i))? {
                self.swap(i, u);
            }
            if u - l == 2 {
                break;
            }
            let p = self.get(i);
            self.swap(i, u - 1);
            i = l;
            let mut j = u - 1;
            loop {
                i += 1;
                while self.less(self.get(i), p)? {
                    if i > u {
                        return Err(self.c.error("invalid order function for sorting"));
                    }
                    i += 1;
                }
                j -= 1;
                while self.less(p, self.get(j))? {
                    if j < l {
                        return Err(self.c.error("invalid order function for sorting"));
                    }
                    j -= 1;
                }
                if j < i {
                    break;
                }
                self.swap(i, j);
            }
            self.swap(u - 1, i);
            if i - l < u - i {
                let (a, b) = (l, i - 1);
                l = i + 1;
                self.sort(a, b)?;
            } else {
                let (a, b) = (i + 1, u);
                u = i - 1;
                self.sort(a, b)?;
            }
        }
        Ok(())
    }
}

native!(lua_table_sort, "sort", |c| {
    let t = c.check_table(0)?;
    let n = table_mut(t).length() as i64;
    let cmp = c.arg(1);
    if !cmp.is_nil() && !cmp.is_function() {
        return Err(c.type_error(1, "function"));
    }
    Sorter { c, t, cmp }.sort(1, n)?;
    Ok(0)
});

native!(lua_table_getn, "getn", |c| {
    let t = c.check_table(0)?;
    c.set(0, TValue::from_f64(table_mut(t).length() as f64));
    Ok(1)
});

native!(lua_table_maxn, "maxn", |c| {
    let t = c.check_table(0)?;
    let mut max = 0.0f64;
    let mut k = TValue::NIL;
    while let Ok(Some((key, _))) = table_mut(t).next(k) {
        if key.is_double() && key.as_f64() > max {
            max = key.as_f64();
        }
        k = key;
    }
    c.set(0, TValue::from_f64(max));
    Ok(1)
});

extern "C" {
    fn rand() -> std::ffi::c_int;
    fn srand(seed: std::ffi::c_uint);
    fn clock() -> std::ffi::c_long;
    fn time(t: *mut i64) -> i64;
}

/// glibc's `RAND_MAX`, which lua5.1's `math.random` divides by.
const RAND_MAX: f64 = 2147483647.0;

native!(lua_math_random, "random", |c| {
    // Exactly lua5.1's formula over the C library's rand(), so seeded sequences match.
    let r = f64::from(unsafe { rand() } % (RAND_MAX as i32)) / RAND_MAX;
    let v = match c.nargs {
        0 => r,
        1 => {
            let u = c.check_int(0)?;
            if u < 1 {
                return Err(c.arg_error(0, "interval is empty"));
            }
            (r * u as f64).floor() + 1.0
        }
        2 => {
            let (l, u) = (c.check_int(0)?, c.check_int(1)?);
            if l > u {
                return Err(c.arg_error(1, "interval is empty"));
            }
            (r * (u - l + 1) as f64).floor() + l as f64
        }
        _ => return Err(c.error("wrong number of arguments")),
    };
    c.set(0, TValue::from_f64(v));
    Ok(1)
});

native!(lua_math_randomseed, "randomseed", |c| {
    let seed = c.check_int(0)?;
    unsafe { srand(seed as std::ffi::c_uint) };
    Ok(0)
});

native!(lua_os_getenv, "getenv", |c| {
    let name = c.check_bytes(0)?;
    let v = match std::env::var_os(String::from_utf8_lossy(&name).as_ref()) {
        Some(v) => {
            use std::os::unix::ffi::OsStrExt;
            c.string(v.as_bytes())?
        }
        None => TValue::NIL,
    };
    c.set(0, v);
    Ok(1)
});

/// `os.remove`/`os.rename` results: `true`, or `nil, message, errno` like lua5.1.
fn os_result(c: &mut Call, r: std::io::Result<()>, name: &[u8]) -> NResult {
    match r {
        Ok(()) => {
            c.set(0, TValue::TRUE);
            Ok(1)
        }
        Err(e) => {
            let mut text = name.to_vec();
            text.extend_from_slice(b": ");
            text.extend_from_slice(os_error_text(&e).as_bytes());
            let m = c.string(&text)?;
            c.set(0, TValue::NIL);
            c.set(1, m);
            c.set(2, TValue::from_f64(f64::from(e.raw_os_error().unwrap_or(0))));
            Ok(3)
        }
    }
}

native!(lua_os_remove, "remove", |c| {
    let name = c.check_bytes(0)?;
    let path = String::from_utf8_lossy(&name).into_owned();
    let r = std::fs::remove_file(&path).or_else(|e| if std::path::Path::new(&path).is_dir() { std::fs::remove_dir(&path) } else { Err(e) });
    os_result(c, r, &name)
});

native!(lua_os_rename, "rename", |c| {
    let (from, to) = (c.check_bytes(0)?, c.check_bytes(1)?);
    let r = std::fs::rename(String::from_utf8_lossy(&from).as_ref(), String::from_utf8_lossy(&to).as_ref());
    os_result(c, r, &from)
});

native!(lua_os_execute, "execute", |c| {
    // 5.1 returns system()'s raw status; with no command, whether a shell exists (nonzero).
    if c.arg(0).is_nil() {
        c.set(0, TValue::from_f64(1.0));
        return Ok(1);
    }
    let command = c.check_bytes(0)?;
    c.st.flush();
    let status = std::process::Command::new("/bin/sh").arg("-c").arg(String::from_utf8_lossy(&command).as_ref()).status();
    let code = match status {
        Ok(s) => {
            use std::os::unix::process::ExitStatusExt;
            s.into_raw()
        }
        Err(_) => -1,
    };
    c.set(0, TValue::from_f64(f64::from(code)));
    Ok(1)
});

native!(lua_os_setlocale, "setlocale", |c| {
    extern "C" {
        fn setlocale(category: std::ffi::c_int, locale: *const std::ffi::c_char) -> *const std::ffi::c_char;
    }
    // glibc's LC_* numbers, in 5.1's option order.
    const CATEGORIES: [(&[u8], std::ffi::c_int); 6] = [(b"all", 6), (b"collate", 3), (b"ctype", 0), (b"monetary", 4), (b"numeric", 1), (b"time", 2)];
    let locale = if c.arg(0).is_nil() { None } else { Some(c.check_bytes(0)?.into_owned()) };
    let which = if c.arg(1).is_nil() { b"all".to_vec() } else { c.check_bytes(1)?.into_owned() };
    let Some(&(_, category)) = CATEGORIES.iter().find(|(n, _)| *n == which.as_slice()) else {
        return Err(c.arg_error(1, &format!("invalid option '{}'", String::from_utf8_lossy(&which))));
    };
    let c_locale = locale.map(|l| {
        let mut v = l;
        v.push(0);
        v
    });
    let r = unsafe { setlocale(category, c_locale.as_ref().map_or(std::ptr::null(), |v| v.as_ptr() as *const std::ffi::c_char)) };
    let v = if r.is_null() {
        TValue::NIL
    } else {
        let name = unsafe { std::ffi::CStr::from_ptr(r) }.to_bytes().to_vec();
        c.string(&name)?
    };
    c.set(0, v);
    Ok(1)
});

native!(lua_os_tmpname, "tmpname", |c| {
    extern "C" {
        fn mkstemp(template: *mut std::ffi::c_char) -> std::ffi::c_int;
        fn close(fd: std::ffi::c_int) -> std::ffi::c_int;
    }
    let mut template = *b"/tmp/lua_XXXXXX\0";
    let fd = unsafe { mkstemp(template.as_mut_ptr() as *mut std::ffi::c_char) };
    if fd == -1 {
        return Err(c.error("unable to generate a unique filename"));
    }
    unsafe { close(fd) };
    let s = c.string(&template[..template.len() - 1])?;
    c.set(0, s);
    Ok(1)
});

native!(lua_os_exit, "exit", |c| {
    let code = c.opt_int(0, 0)?;
    crate::iolib::flush_all_files(c.st);
    c.st.flush();
    std::process::exit(code as i32);
});

native!(lua_os_difftime, "difftime", |c| {
    // 5.1: difftime((time_t)a, (time_t)b).
    let a = c_long(c.check_number(0)?);
    let b = if c.arg(1).is_nil() { 0 } else { c_long(c.check_number(1)?) };
    c.set(0, TValue::from_f64(a as f64 - b as f64));
    Ok(1)
});

native!(lua_os_clock, "clock", |c| {
    let ticks = unsafe { clock() } as f64;
    c.set(0, TValue::from_f64(ticks / 1_000_000.0));
    Ok(1)
});

/// C's `struct tm` (glibc x86-64 layout).
#[repr(C)]
#[derive(Default)]
struct Tm {
    sec: i32,
    min: i32,
    hour: i32,
    mday: i32,
    mon: i32,
    year: i32,
    wday: i32,
    yday: i32,
    isdst: i32,
    gmtoff: i64,
    zone: usize,
}

extern "C" {
    fn mktime(tm: *mut Tm) -> i64;
    fn localtime_r(t: *const i64, tm: *mut Tm) -> *mut Tm;
    fn gmtime_r(t: *const i64, tm: *mut Tm) -> *mut Tm;
    fn strftime(s: *mut std::ffi::c_char, max: usize, format: *const std::ffi::c_char, tm: *const Tm) -> usize;
}

/// A field of the table given to `os.time` (lua5.1's `getfield`).
fn time_field(c: &mut Call, t: TValue, key: &str, default: Option<i32>) -> Result<i32, Raised> {
    let k = c.string(key.as_bytes())?;
    let v = table_mut(t).get(k);
    // lua_isnumber: numeric strings count.
    if let Some(x) = to_number(v) {
        // 5.1: (int)lua_tointeger.
        return Ok(c_long(x) as i32);
    }
    match default {
        Some(d) => Ok(d),
        None => Err(c.error(&format!("field '{key}' missing in date table"))),
    }
}

native!(lua_os_time, "time", |c| {
    let t = c.arg(0);
    if t.is_nil() {
        let now = unsafe { time(std::ptr::null_mut()) };
        c.set(0, TValue::from_f64(now as f64));
        return Ok(1);
    }
    let t = c.check_table(0)?;
    let mut tm = Tm {
        sec: time_field(c, t, "sec", Some(0))?,
        min: time_field(c, t, "min", Some(0))?,
        hour: time_field(c, t, "hour", Some(12))?,
        mday: time_field(c, t, "day", None)?,
        mon: time_field(c, t, "month", None)? - 1,
        year: time_field(c, t, "year", None)? - 1900,
        ..Tm::default()
    };
    let k = c.string(b"isdst")?;
    let isdst = table_mut(t).get(k);
    tm.isdst = if isdst.is_nil() { -1 } else { i32::from(!isdst.is_falsy()) };
    let r = unsafe { mktime(&mut tm) };
    c.set(0, if r == -1 { TValue::NIL } else { TValue::from_f64(r as f64) });
    Ok(1)
});

native!(lua_os_date, "date", |c| {
    let format = if c.arg(0).is_nil() { Cow::Borrowed(&b"%c"[..]) } else { c.check_bytes(0)? };
    let when = if c.arg(1).is_nil() { unsafe { time(std::ptr::null_mut()) } } else { c.check_number(1)? as i64 };
    let (utc, format) = match format.strip_prefix(b"!") {
        Some(rest) => (true, rest.to_vec()),
        None => (false, format.into_owned()),
    };
    let mut tm = Tm::default();
    let ok = unsafe { if utc { gmtime_r(&when, &mut tm) } else { localtime_r(&when, &mut tm) } };
    if ok.is_null() {
        c.set(0, TValue::NIL);
        return Ok(1);
    }
    if format.starts_with(b"*t") {
        let t = Table::new_in(&mut c.st.heap).map_err(|_| c.raise_oom())?;
        for (k, v) in [
            ("sec", tm.sec),
            ("min", tm.min),
            ("hour", tm.hour),
            ("day", tm.mday),
            ("month", tm.mon + 1),
            ("year", tm.year + 1900),
            ("wday", tm.wday + 1),
            ("yday", tm.yday + 1),
        ] {
            let key = c.string(k.as_bytes())?;
            c.table_set(t, key, TValue::from_f64(f64::from(v)))?;
        }
        let key = c.string(b"isdst")?;
        c.table_set(t, key, TValue::from_bool(tm.isdst > 0))?;
        c.set(0, t);
        return Ok(1);
    }
    // Like lua5.1: each conversion through strftime, other bytes copied.
    let mut out = Vec::new();
    let mut i = 0;
    while i < format.len() {
        if format[i] != b'%' || i + 1 == format.len() {
            out.push(format[i]);
            i += 1;
            continue;
        }
        let spec = [b'%', format[i + 1], 0];
        let mut buf = [0u8; 256];
        let n = unsafe { strftime(buf.as_mut_ptr() as *mut std::ffi::c_char, buf.len(), spec.as_ptr() as *const std::ffi::c_char, &tm) };
        out.extend_from_slice(&buf[..n]);
        i += 2;
    }
    let s = c.string(&out)?;
    c.set(0, s);
    Ok(1)
});

native!(lua_collectgarbage, "collectgarbage", |c| {
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
            crate::gc::collect(c.st, top);
            c.run_finalizers()?;
            c.set(0, TValue::TRUE);
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
            // Collections are not incremental yet: the multiplier is kept for the answer only.
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

native!(lua_loadstring, "loadstring", |c| {
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

native!(lua_load, "load", |c| {
    let f = c.arg(0);
    if !f.is_function() {
        return Err(c.type_error(0, "function"));
    }
    let name = if c.arg(1).is_nil() { Cow::Borrowed(&b"=(load)"[..]) } else { c.check_bytes(1)? };
    // lua_load runs the reader protected: its failure becomes load's (nil, message). As in
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
    let options = c.st.parse_options(false);
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
        lua51_syntax::parse_chunk_streaming(&mut reader, crate::state::syntax_chunk_id(&name), &options)
    };
    if let Some(e) = failure {
        return failed(c, e);
    }
    let loaded = match parsed {
        Ok(chunk) => c.st.compile_parsed(&chunk, &name),
        Err(e) => Err(e.to_bytes()),
    };
    load_result(c, loaded)
});

/// The C library's `strerror` text for an I/O error, as lua5.1 prints it.
pub fn os_error_text(e: &std::io::Error) -> String {
    extern "C" {
        fn strerror(errnum: std::ffi::c_int) -> *const std::ffi::c_char;
    }
    match e.raw_os_error() {
        Some(code) => unsafe { std::ffi::CStr::from_ptr(strerror(code)) }.to_string_lossy().into_owned(),
        None => e.to_string(),
    }
}

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

native!(lua_loadfile, "loadfile", |c| {
    let loaded = match read_source(c, 0)? {
        Ok((source, name)) => c.st.load(&source, &name, true),
        Err(e) => Err(e.into_bytes()),
    };
    load_result(c, loaded)
});

native!(lua_dofile, "dofile", |c| {
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

native!(lua_xpcall, "xpcall", |c| {
    // 5.1 checks only the handler (argument 2); a missing function fails as a call.
    let handler = c.check_any(1)?;
    let f = c.arg(0);
    c.st.protected.push(Protected { handler, state: HandlerState::Armed });
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
            if entry.state == HandlerState::Armed {
                e = match c.call(handler, &[e], 2) {
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

/// The function `level` levels up from a native function (1: its caller): nil for a tail
/// call's level (5.1's `getinfo(level, "f")`), `None` past the outermost level.
pub(crate) fn function_at_level(c: &Call, level: usize) -> Option<TValue> {
    c.level(level).map(|l| l.frame().map_or(TValue::NIL, |f| f.callee()))
}

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

native!(lua_getfenv, "getfenv", |c| {
    let env = match env_target(c)? {
        None => c.st.globals,
        Some(f) => unsafe { (*f.as_closure()).env },
    };
    c.set(0, env);
    Ok(1)
});

native!(lua_setfenv, "setfenv", |c| {
    let t = c.check_table(1)?;
    match env_target(c)? {
        None => {
            c.st.globals = t;
            Ok(0)
        }
        Some(f) if crate::function::is_native(unsafe { (*f.as_closure()).code_block }) => {
            Err(c.error("'setfenv' cannot change environment of given object"))
        }
        Some(f) => {
            unsafe { (*f.as_closure()).env = t };
            c.set(0, f);
            Ok(1)
        }
    }
});

/// The table at dotted path `name` under `root`, creating missing levels (5.1's
/// `luaL_findtable`); `Ok(None)` when a level exists but is not a table.
pub(crate) fn find_table(c: &mut Call, root: TValue, name: &[u8]) -> Result<Option<TValue>, Raised> {
    let mut t = root;
    for part in name.split(|&b| b == b'.') {
        let key = c.string(part)?;
        let mut v = table_mut(t).get(key);
        if v.is_nil() {
            v = Table::new_in(&mut c.st.heap).map_err(|_| c.raise_oom())?;
            c.table_set(t, key, v)?;
        } else if !v.is_table() {
            return Ok(None);
        }
        t = v;
    }
    Ok(Some(t))
}

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
    if !crate::function::is_native(cb) && !pc.is_null() {
        let proto = crate::function::proto_of(cb);
        let offset = unsafe { pc.offset_from(proto.code.as_ptr()) } as u32;
        let named = proto.locvars.iter().filter(|l| l.start <= offset && offset < l.end).nth(n as usize - 1);
        if let Some(l) = named {
            return Ok(Some((l.name.clone(), unsafe { base.add(usize::from(l.slot)) })));
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
    if crate::function::is_native(cb) || !crate::function::proto_of(cb).is_vararg {
        return unsafe { f.base.sub(header) };
    }
    let extra = unsafe { *f.base.offset(frame::NUM_VARARGS as isize) } as usize;
    if extra == 0 {
        unsafe { f.base.sub(header) }
    } else {
        let fixed = crate::function::proto_of(cb).num_params as usize;
        unsafe { f.base.sub(2 * header + fixed + extra) }
    }
}

/// The levels of `thread`'s stack (from its `yield`; none unless it is suspended), or of the
/// running thread's from the native function `c`; and the innermost level's top.
fn thread_levels(c: &Call, thread: Option<TValue>) -> (crate::frames::Levels, *mut u64) {
    match thread {
        Some(co) => (crate::frames::levels(crate::coroutine::thread_mut(co).suspended_frame(), std::ptr::null()), std::ptr::null_mut()),
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
native!(lua_debug_debug, "debug", |c| {
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
native!(lua_debug_getfenv, "getfenv", |c| {
    let o = c.check_any(0)?;
    let env = if o.is_function() {
        unsafe { (*o.as_closure()).env }
    } else if o.is_kind(lua51_value::ObjKind::Userdata) {
        crate::userdata::userdata_mut(o).env
    } else if o.is_kind(lua51_value::ObjKind::Thread) {
        // The running coroutine's globals are the state's while it runs.
        if o == c.st.current_thread { c.st.globals } else { crate::coroutine::thread_mut(o).env }
    } else {
        TValue::NIL
    };
    c.set(0, env);
    Ok(1)
});

native!(lua_debug_setfenv, "setfenv", |c| {
    let o = c.arg(0);
    let t = c.check_table(1)?;
    if o.is_function() {
        unsafe { (*o.as_closure()).env = t };
    } else if o.is_kind(lua51_value::ObjKind::Userdata) {
        crate::userdata::userdata_mut(o).env = t;
    } else if o.is_kind(lua51_value::ObjKind::Thread) {
        if o == c.st.current_thread {
            c.st.globals = t;
        } else {
            crate::coroutine::thread_mut(o).env = t;
        }
    } else {
        return Err(c.error("'setfenv' cannot change environment of given object"));
    }
    c.set(0, o);
    Ok(1)
});

native!(lua_debug_getregistry, "getregistry", |c| {
    let r = c.st.registry;
    c.set(0, r);
    Ok(1)
});

/// `getlocal`/`setlocal`: finds the local `(level, n)` of arguments 1 and 2 (nil when there
/// is none), then `finish` fills the results after the name.
fn with_local(c: &mut Call, finish: impl FnOnce(&mut Call, *mut u64, usize) -> NResult) -> NResult {
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
            let results = finish(c, slot, first)?;
            let s = c.string(name.as_bytes())?;
            c.set(0, s);
            Ok(results)
        }
    }
}

native!(lua_debug_getlocal, "getlocal", |c| {
    with_local(c, |c, slot, _| {
        c.set(1, TValue(unsafe { *slot }));
        Ok(2)
    })
});

native!(lua_debug_setlocal, "setlocal", |c| {
    with_local(c, |c, slot, first| {
        let value = c.check_any(first + 2)?;
        unsafe { *slot = value.raw() };
        Ok(1)
    })
});

native!(lua_debug_sethook, "sethook", |c| {
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
    Ok(0)
});

native!(lua_debug_gethook, "gethook", |c| {
    // gethook([thread]): the hook function, its mask and its count.
    let thread = debug_thread(c).0.unwrap_or(c.st.current_thread);
    let hook = *crate::hook::of_thread(c.st, thread);
    let mask = c.string(crate::hook::mask_string(hook.mask).as_bytes())?;
    c.return_values(0, &[hook.func, mask, TValue::from_f64(f64::from(hook.base_count))])
});

native!(lua_debug_traceback, "traceback", |c| {
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
        Some(co) => (crate::coroutine::thread_mut(co).suspended_frame(), c.opt_int(first + 1, 0)?),
        None => (c.base, c.opt_int(1, 1)?),
    };
    let level = level.max(0) as usize;
    let levels = crate::frames::levels(top, std::ptr::null()).skip(level);
    let mut text = Vec::new();
    if !msg.is_nil() {
        tostring_bytes(msg, &mut text);
        text.push(b'\n');
    }
    text.extend_from_slice(c.st.traceback_of(levels, level, thread.is_none()).as_bytes());
    let s = c.string(&text)?;
    c.set(0, s);
    Ok(1)
});

native!(lua_debug_getinfo, "getinfo", |c| {
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
    let native = crate::function::is_native(cb);
    if what.contains(&b'S') {
        if native {
            put_no_source(c, b"=[C]", b"[C]", b"C")?;
        } else {
            let proto = crate::function::proto_of(cb);
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
            let proto = crate::function::proto_of(cb);
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
                crate::function::VarInfo::Global(_) => "global",
                crate::function::VarInfo::Local(_) => "local",
                crate::function::VarInfo::Upvalue(_) => "upvalue",
                crate::function::VarInfo::Field(_) => "field",
                crate::function::VarInfo::Method(_) => "method",
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
            let proto = crate::function::proto_of(cb);
            let set = Table::new_in(&mut c.st.heap).map_err(|_| c.raise_oom())?;
            for offset in crate::bytecode::instruction_offsets(&proto.code) {
                let line = proto.line_at(offset as u32);
                if line != crate::compiler::PROLOGUE_LINE {
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

native!(lua_debug_getmetatable, "getmetatable", |c| {
    let v = c.check_any(0)?;
    let mt = crate::runtime::metatable_of(c.st, v);
    c.set(0, if mt.is_null() { TValue::NIL } else { TValue::from_ptr(mt) });
    Ok(1)
});

native!(lua_debug_setmetatable, "setmetatable", |c| {
    let v = c.arg(0);
    let mt = c.arg(1);
    if !mt.is_nil() && !mt.is_table() {
        return Err(c.type_error(1, "nil or table"));
    }
    let p = if mt.is_nil() { std::ptr::null_mut() } else { mt.as_ptr::<Table>() };
    if v.is_table() {
        table_mut(v).set_metatable(p);
    } else if v.is_kind(lua51_value::ObjKind::Userdata) {
        crate::userdata::userdata_mut(v).metatable = p;
    } else if v.is_string() {
        c.st.shared.string_metatable = p as *mut lua51_value::TableObject;
    } else if let Some(i) = crate::runtime::type_metatable_index(v) {
        c.st.type_metatables[i] = p;
    } else {
        return Err(c.error("setting the metatable of this type is not supported"));
    }
    c.set(0, TValue::TRUE);
    Ok(1)
});

/// `debug.getupvalue`/`setupvalue`: the upvalue `n` of a Lua function, with its name.
fn upvalue_slot(c: &mut Call) -> Result<Option<(*mut u64, String)>, Raised> {
    // 5.1 checks the index before the function.
    let n = c.check_int(1)?;
    let f = c.arg(0);
    if !f.is_function() {
        return Err(c.type_error(0, "function"));
    }
    let cl = f.as_closure();
    let cb = unsafe { (*cl).code_block };
    if crate::function::is_native(cb) || n < 1 || n as u32 > unsafe { (*cl).num_upvalues } {
        return Ok(None);
    }
    let name = crate::function::proto_of(cb).upvalue_names.get(n as usize - 1).cloned().unwrap_or_default();
    Ok(Some((unsafe { (*(*cl).upvalue(n as usize - 1)).value }, name)))
}

native!(lua_debug_getupvalue, "getupvalue", |c| {
    match upvalue_slot(c)? {
        None => Ok(0),
        Some((slot, name)) => {
            let n = c.string(name.as_bytes())?;
            c.set(0, n);
            c.set(1, TValue(unsafe { *slot }));
            Ok(2)
        }
    }
});

native!(lua_debug_setupvalue, "setupvalue", |c| {
    c.check_any(2)?;
    match upvalue_slot(c)? {
        None => Ok(0),
        Some((slot, name)) => {
            unsafe { *slot = c.arg(2).raw() };
            let n = c.string(name.as_bytes())?;
            c.set(0, n);
            Ok(1)
        }
    }
});

/// A capture as a Lua value: a substring, or a position.
fn capture_value(c: &mut Call, subject: &[u8], cap: crate::lstrlib::Capture) -> Result<TValue, Raised> {
    match cap {
        crate::lstrlib::Capture::Bytes(s, e) => c.string(&subject[s..e]),
        crate::lstrlib::Capture::Position(p) => Ok(TValue::from_f64(p as f64)),
    }
}

/// The values of every capture of a match, stored from `out[0]`; returns how many.
fn capture_values(c: &mut Call, subject: &[u8], caps: &[crate::lstrlib::Capture], out: &mut [TValue]) -> Result<usize, Raised> {
    for (slot, cap) in out.iter_mut().zip(caps) {
        *slot = capture_value(c, subject, *cap)?;
    }
    Ok(caps.len())
}

/// `string.find` and `string.match` (lua5.1's `str_find_aux`).
fn find_aux(c: &mut Call, find: bool) -> NResult {
    let subject = c.check_bytes(0)?;
    let pattern = c.check_bytes(1)?;
    let len = subject.len() as i64;
    let mut init = posrelat(c.opt_integer(2, 1)?, subject.len()) - 1;
    if init < 0 {
        init = 0;
    } else if init > len {
        init = len;
    }
    let init = init as usize;
    if find && (!c.arg(3).is_falsy() || crate::lstrlib::no_specials(&pattern)) {
        let hit = if pattern.is_empty() { Some(init) } else { subject[init..].windows(pattern.len()).position(|w| w == &pattern[..]).map(|i| i + init) };
        return match hit {
            Some(i) => {
                c.set(0, TValue::from_f64((i + 1) as f64));
                c.set(1, TValue::from_f64((i + pattern.len()) as f64));
                Ok(2)
            }
            None => {
                c.set(0, TValue::NIL);
                Ok(1)
            }
        };
    }
    let mut m = crate::lstrlib::Matcher::new(&subject, &pattern);
    match m.find(init) {
        Err(msg) => Err(c.error(&msg)),
        Ok(None) => {
            c.set(0, TValue::NIL);
            Ok(1)
        }
        Ok(Some((s, e))) => {
            let caps = m.captures(s, e).map_err(|msg| c.error(&msg))?;
            let mut values = [TValue::NIL; crate::lstrlib::MAX_CAPTURES + 2];
            let mut n = 0;
            if find {
                values[0] = TValue::from_f64((s + 1) as f64);
                values[1] = TValue::from_f64(e as f64);
                n = 2;
                // find returns captures only when the pattern has some.
                if caps.len() == 1 && caps[0] == crate::lstrlib::Capture::Bytes(s, e) && !pattern.contains(&b'(') {
                    return c.return_values(0, &values[..n]);
                }
            }
            n += capture_values(c, &subject, &caps, &mut values[n..])?;
            c.return_values(0, &values[..n])
        }
    }
}

native!(lua_string_find, "find", |c| { find_aux(c, true) });
native!(lua_string_match, "match", |c| { find_aux(c, false) });

native!(lua_gmatch_iter, "gmatch", |c| {
    let me = TValue(unsafe { *c.base.offset(frame::CALLEE as isize) });
    let up = |i: usize| TValue(unsafe { (*(*me.as_closure()).upvalue(i)).closed });
    let (subject, pattern, pos) = (up(0), up(1), up(2).as_f64() as usize);
    // Borrowed, not copied (a copy per step made a gmatch loop quadratic): the closure's
    // upvalues keep both strings alive for the whole call, and nothing here collects.
    let (subject, pattern) = (string_bytes(subject), string_bytes(pattern));
    let mut m = crate::lstrlib::Matcher::new(subject, pattern);
    let mut src = pos;
    while src <= subject.len() {
        let found = {
            let r = m.do_match_from(src).map_err(|msg| c.error(&msg))?;
            r.map(|e| (src, e))
        };
        if let Some((s, e)) = found {
            let next = if e == s { e + 1 } else { e };
            unsafe { (*(*me.as_closure()).upvalue(2)).closed = TValue::from_f64(next as f64).raw() };
            let caps = m.captures(s, e).map_err(|msg| c.error(&msg))?;
            let mut values = [TValue::NIL; crate::lstrlib::MAX_CAPTURES];
            let n = capture_values(c, subject, &caps, &mut values)?;
            return c.return_values(0, &values[..n]);
        }
        src += 1;
    }
    Ok(0)
});

native!(lua_string_gmatch, "gmatch", |c| {
    let s = c.check_bytes(0)?;
    let p = c.check_bytes(1)?;
    let (sv, pv) = (c.string(&s)?, c.string(&p)?);
    let globals = c.st.globals;
    match crate::function::new_native_closure(&mut c.st.heap, "gmatch", lua_gmatch_iter, globals, &[sv, pv, TValue::from_f64(0.0)]) {
        Ok(f) => {
            c.set(0, f);
            Ok(1)
        }
        Err(OutOfMemory) => Err(c.raise_oom()),
    }
});

/// `t[k]` with `__index` (tables and functions), from native code, as `lua_gettable` does.
fn index_value(c: &mut Call, mut t: TValue, k: TValue) -> Result<TValue, Raised> {
    for _ in 0..100 {
        if t.is_table() {
            let v = table_mut(t).get(k);
            if !v.is_nil() {
                return Ok(v);
            }
        }
        let tm = metamethod(c.st, t, Event::Index);
        if tm.is_nil() {
            if t.is_table() {
                return Ok(TValue::NIL);
            }
            return Err(c.error(&format!("attempt to index a {} value", type_name(t))));
        }
        if tm.is_function() {
            return Ok(c.call(tm, &[t, k], c.nargs)?.first().copied().unwrap_or(TValue::NIL));
        }
        t = tm;
    }
    Err(c.error("loop in gettable"))
}

native!(lua_string_gsub, "gsub", |c| {
    let subject = c.check_bytes(0)?;
    let pattern_full = c.check_bytes(1)?;
    let repl = c.arg(2);
    if !(repl.is_double() || repl.is_string() || repl.is_table() || repl.is_function()) {
        // luaL_argcheck's message: no "got" part.
        return Err(c.arg_error(2, "string/function/table expected"));
    }
    let max_n = if c.arg(3).is_nil() { subject.len() as i64 + 1 } else { c.check_int(3)? };
    let anchor = pattern_full.first() == Some(&b'^');
    let pattern = if anchor { &pattern_full[1..] } else { &pattern_full[..] };
    let repl_bytes = if repl.is_string() || repl.is_double() { Some(c.check_bytes(2)?) } else { None };
    let mut m = crate::lstrlib::Matcher::new(&subject, pattern);
    let mut out = Vec::new();
    let (mut src, mut n) = (0usize, 0i64);
    while n < max_n {
        let end = m.do_match_from(src).map_err(|msg| c.error(&msg))?;
        if let Some(e) = end {
            n += 1;
            // add_value: the replacement for the match src..e.
            let whole = &subject[src..e];
            match &repl_bytes {
                Some(r) => {
                    let mut i = 0;
                    while i < r.len() {
                        if r[i] != b'%' {
                            out.push(r[i]);
                        } else {
                            i += 1;
                            match r.get(i) {
                                Some(d) if d.is_ascii_digit() => {
                                    if *d == b'0' {
                                        out.extend_from_slice(whole);
                                    } else {
                                        let cap = m.capture((d - b'1') as usize, src, e).map_err(|msg| c.error(&msg))?;
                                        match cap {
                                            crate::lstrlib::Capture::Bytes(a, b) => out.extend_from_slice(&subject[a..b]),
                                            crate::lstrlib::Capture::Position(p) => format_number(p as f64, &mut out),
                                        }
                                    }
                                }
                                Some(other) => out.push(*other),
                                None => {}
                            }
                        }
                        i += 1;
                    }
                }
                None => {
                    let first = m.capture(0, src, e).map_err(|msg| c.error(&msg))?;
                    let key = capture_value(c, &subject, first)?;
                    let value = if repl.is_table() {
                        index_value(c, repl, key)?
                    } else {
                        let caps = m.captures(src, e).map_err(|msg| c.error(&msg))?;
                        let mut args = [TValue::NIL; crate::lstrlib::MAX_CAPTURES];
                        let n = capture_values(c, &subject, &caps, &mut args)?;
                        c.call(repl, &args[..n], c.nargs)?.first().copied().unwrap_or(TValue::NIL)
                    };
                    if value.is_falsy() {
                        out.extend_from_slice(whole);
                    } else if value.is_string() || value.is_double() {
                        tostring_bytes(value, &mut out);
                    } else {
                        return Err(c.error(&format!("invalid replacement value (a {})", type_name(value))));
                    }
                }
            }
        }
        match end {
            Some(e) if e > src => src = e,
            _ if src < subject.len() => {
                out.push(subject[src]);
                src += 1;
            }
            _ => break,
        }
        if anchor {
            break;
        }
    }
    out.extend_from_slice(&subject[src..]);
    let s = c.string(&out)?;
    c.set(0, s);
    c.set(1, TValue::from_f64(n as f64));
    Ok(2)
});

native!(lua_string_format, "format", |c| {
    extern "C" {
        fn snprintf(buf: *mut std::ffi::c_char, n: usize, fmt: *const std::ffi::c_char, ...) -> std::ffi::c_int;
    }
    let fmt = c.check_bytes(0)?;
    let mut out = Vec::new();
    let mut arg = 0usize;
    let mut i = 0;
    while i < fmt.len() {
        if fmt[i] != b'%' {
            out.push(fmt[i]);
            i += 1;
            continue;
        }
        if fmt.get(i + 1) == Some(&b'%') {
            out.push(b'%');
            i += 2;
            continue;
        }
        let (mut spec, conv, next) = crate::lstrlib::format_spec(&fmt, i + 1).map_err(|m| c.error(&m))?;
        i = next;
        arg += 1;
        // 5.1 takes the argument before it looks at the conversion ("%5%" wants one too).
        if arg >= c.nargs {
            return Err(c.arg_error(arg, "no value"));
        }
        let mut buf = vec![0u8; 512];
        let n = match conv {
            b'c' => {
                let x = c_int(c.check_number(arg)?);
                spec.push(b'c');
                spec.push(0);
                unsafe { snprintf(buf.as_mut_ptr() as *mut _, buf.len(), spec.as_ptr() as *const _, x as std::ffi::c_int) }
            }
            b'd' | b'i' => {
                let x = c_long(c.check_number(arg)?);
                spec.extend_from_slice(&[b'l', conv, 0]);
                unsafe { snprintf(buf.as_mut_ptr() as *mut _, buf.len(), spec.as_ptr() as *const _, x as std::ffi::c_long) }
            }
            b'o' | b'u' | b'x' | b'X' => {
                let x = c_ulong(c.check_number(arg)?);
                spec.extend_from_slice(&[b'l', conv, 0]);
                unsafe { snprintf(buf.as_mut_ptr() as *mut _, buf.len(), spec.as_ptr() as *const _, x as std::ffi::c_ulong) }
            }
            b'e' | b'E' | b'f' | b'g' | b'G' => {
                let x = c.check_number(arg)?;
                spec.extend_from_slice(&[conv, 0]);
                unsafe { snprintf(buf.as_mut_ptr() as *mut _, buf.len(), spec.as_ptr() as *const _, x) }
            }
            b'q' => {
                let s = c.check_bytes(arg)?;
                crate::lstrlib::quote(&s, &mut out);
                continue;
            }
            b's' => {
                let s = c.check_bytes(arg)?;
                if !spec.contains(&b'.') && s.len() >= 100 {
                    // No precision: a long string is added whole (as 5.1 does).
                    out.extend_from_slice(&s);
                    continue;
                }
                let mut cs = s.to_vec();
                cs.push(0);
                spec.extend_from_slice(b"s\0");
                unsafe { snprintf(buf.as_mut_ptr() as *mut _, buf.len(), spec.as_ptr() as *const _, cs.as_ptr() as *const std::ffi::c_char) }
            }
            other => {
                return Err(c.error(&format!("invalid option '%{}' to 'format'", other as char)));
            }
        };
        // lua5.1 adds strlen(buff) bytes: a NUL (from %c of 0) ends the piece.
        let piece = &buf[..(n.max(0) as usize).min(buf.len() - 1)];
        let end = piece.iter().position(|&b| b == 0).unwrap_or(piece.len());
        out.extend_from_slice(&piece[..end]);
    }
    let s = c.string(&out)?;
    c.set(0, s);
    Ok(1)
});

native!(lua_string_reverse, "reverse", |c| {
    let mut s = c.check_bytes(0)?.into_owned();
    s.reverse();
    let v = c.string(&s)?;
    c.set(0, v);
    Ok(1)
});

native!(lua_string_dump, "dump", |c| {
    let f = c.arg(0);
    if !f.is_function() {
        return Err(c.type_error(0, "function"));
    }
    match crate::dump::dump(c.st, f) {
        Some(bytes) => {
            let s = c.string(&bytes)?;
            c.set(0, s);
            Ok(1)
        }
        None => Err(c.error("unable to dump given function")),
    }
});

fn check_thread(c: &mut Call, i: usize) -> Result<TValue, Raised> {
    let v = c.arg(i);
    if v.is_kind(lua51_value::ObjKind::Thread) {
        Ok(v)
    } else {
        // 5.1's luaL_argcheck: no "got ..." part.
        Err(c.arg_error(i, "coroutine expected"))
    }
}

native!(lua_co_create, "create", |c| {
    let f = c.arg(0);
    if !f.is_function() || crate::function::is_native(unsafe { (*f.as_closure()).code_block }) {
        return Err(c.arg_error(0, "Lua function expected"));
    }
    let st_ptr: *mut LuaState = &mut *c.st;
    let shared: *const lua51_value::SharedState = &*c.st.shared;
    let env = c.st.globals;
    let t = match crate::coroutine::Thread::new_in(&mut c.st.heap, st_ptr, shared, f, env) {
        Ok(t) => t,
        Err(OutOfMemory) => return Err(c.raise_oom()),
    };
    c.set(0, t);
    Ok(1)
});

/// Resumes and stores `true, values...` or `false, error` from slot 0.
fn resume_into(c: &mut Call, co: TValue, args: &[TValue]) -> Result<Result<usize, TValue>, Raised> {
    let top = unsafe { c.base.add(c.nargs) };
    let st: *mut LuaState = &mut *c.st;
    match unsafe { crate::coroutine::resume(st, co, args, top) } {
        Err(msg) => {
            let m = c.string(msg.as_bytes())?;
            Ok(Err(m))
        }
        Ok(crate::coroutine::ResumeOutcome::Error(e)) => Ok(Err(e)),
        Ok(crate::coroutine::ResumeOutcome::Values(values)) => {
            let n = c.return_values(1, &values)? - 1;
            // Hand the allocation back for the next resume, unless one huge result made it big.
            if values.capacity() <= 256 {
                c.st.resume_values = values;
            }
            Ok(Ok(n))
        }
    }
}

/// The arguments `first..nargs` of a native call, in place on the stack (no copy).
///
/// # Safety
/// The slice is only valid while nothing writes those slots: `resume` copies the arguments to
/// the coroutine's stack before it runs anything.
unsafe fn args_from(c: &Call, first: usize) -> &'static [TValue] {
    let n = c.nargs.saturating_sub(first);
    // SAFETY: the native's arguments are `n` initialised slots after `first`; TValue is a
    // transparent u64.
    unsafe { std::slice::from_raw_parts(c.base.add(first) as *const TValue, n) }
}

native!(lua_co_resume, "resume", |c| {
    let co = check_thread(c, 0)?;
    // SAFETY: used only by `resume`, which copies them first.
    let args = unsafe { args_from(c, 1) };
    match resume_into(c, co, args)? {
        Ok(n) => {
            c.set(0, TValue::TRUE);
            Ok(n + 1)
        }
        Err(e) => {
            c.set(0, TValue::FALSE);
            c.set(1, e);
            Ok(2)
        }
    }
});

native!(lua_co_yield, "yield", |c| {
    let (base, n) = (c.base, c.nargs);
    match crate::coroutine::yield_from(c.st, base, n) {
        Ok(()) => Err(Raised),
        // Raised inside the C function in 5.1: no position.
        Err(msg) => {
            let m = c.string(msg.as_bytes())?;
            Err(c.raise(m))
        }
    }
});

native!(lua_co_status, "status", |c| {
    let co = check_thread(c, 0)?;
    let s = c.st.status_names[crate::coroutine::status_index(crate::coroutine::thread_mut(co))];
    c.set(0, s);
    Ok(1)
});

native!(lua_co_running, "running", |c| {
    let t = c.st.current_thread;
    c.set(0, t);
    Ok(1)
});

native!(lua_co_wrapped, "wrap", |c| {
    let me = TValue(unsafe { *c.base.offset(frame::CALLEE as isize) });
    let co = TValue(unsafe { (*(*me.as_closure()).upvalue(0)).closed });
    // SAFETY: as in `resume`.
    let args = unsafe { args_from(c, 0) };
    match resume_into(c, co, args)? {
        Ok(n) => {
            unsafe { std::ptr::copy(c.base.add(1), c.base, n) };
            Ok(n)
        }
        Err(e) => {
            // Like lua5.1's auxwrap: a string error gets the caller's position.
            if e.is_string() {
                let mut text = c.where_(1).into_bytes();
                text.extend_from_slice(string_bytes(e));
                let s = c.string(&text)?;
                return Err(c.raise(s));
            }
            Err(c.raise(e))
        }
    }
});

native!(lua_co_wrap, "wrap", |c| {
    let f = c.arg(0);
    if !f.is_function() || crate::function::is_native(unsafe { (*f.as_closure()).code_block }) {
        return Err(c.arg_error(0, "Lua function expected"));
    }
    let st_ptr: *mut LuaState = &mut *c.st;
    let globals = c.st.globals;
    let shared: *const lua51_value::SharedState = &*c.st.shared;
    let env = c.st.globals;
    let made = crate::coroutine::Thread::new_in(&mut c.st.heap, st_ptr, shared, f, env)
        .and_then(|t| crate::function::new_native_closure(&mut c.st.heap, "wrap", lua_co_wrapped, globals, &[t]));
    match made {
        Ok(w) => {
            c.set(0, w);
            Ok(1)
        }
        Err(OutOfMemory) => Err(c.raise_oom()),
    }
});

pub(crate) fn register(st: &mut LuaState, table: TValue, name: &'static str, f: NativeFn) -> Result<TValue, OutOfMemory> {
    let globals = st.globals;
    let v = new_native(&mut st.heap, name, f, globals)?;
    let key = st.intern(name.as_bytes())?;
    table_mut(table).set(key, v).expect("string keys are valid");
    Ok(v)
}

pub(crate) fn library(st: &mut LuaState, name: &str, functions: &[(&'static str, NativeFn)]) -> Result<TValue, OutOfMemory> {
    let t = Table::new_in(&mut st.heap)?;
    for (n, f) in functions {
        register(st, t, n, *f)?;
    }
    st.set_global(name, t)?;
    Ok(t)
}

/// The payload of userdata made by `newproxy` (5.1 tells proxies apart by their metatable).
struct Proxy;

native!(lua_newproxy, "newproxy", |c| {
    // 5.1's undocumented newproxy: no argument or false gives a bare userdata, true one with
    // a fresh metatable, a proxy one sharing that proxy's metatable.
    let arg = c.arg(0);
    let metatable = if arg.is_falsy() {
        std::ptr::null_mut()
    } else if arg == TValue::TRUE {
        Table::new_in(&mut c.st.heap).map_err(|_| c.raise_oom())?.as_ptr::<Table>()
    } else if arg.is_kind(lua51_value::ObjKind::Userdata) && crate::userdata::userdata_mut(arg).payload.is::<Proxy>() {
        crate::userdata::userdata_mut(arg).metatable
    } else {
        return Err(c.arg_error(0, "boolean or proxy expected"));
    };
    // The new metatable is only reachable from this frame's native code: keep it in the
    // argument slot across the allocation of the userdata.
    if !metatable.is_null() {
        c.set(0, TValue::from_ptr(metatable));
    }
    let env = c.st.globals;
    let u = crate::userdata::Userdata::new_in(&mut c.st.heap, Box::new(Proxy), metatable, env).map_err(|_| c.raise_oom())?;
    c.set(0, u);
    Ok(1)
});

/// Installs the standard library into the globals.
pub fn open_libs(st: &mut LuaState) -> Result<(), OutOfMemory> {
    let g = st.globals;
    for (name, f) in [
        ("print", lua_print as NativeFn),
        ("type", lua_type),
        ("tostring", lua_tostring),
        ("tonumber", lua_tonumber),
        ("pairs", lua_pairs),
        ("ipairs", lua_ipairs),
        ("select", lua_select),
        ("unpack", lua_unpack),
        ("rawget", lua_rawget),
        ("rawset", lua_rawset),
        ("rawequal", lua_rawequal),
        ("setmetatable", lua_setmetatable),
        ("getmetatable", lua_getmetatable),
        ("newproxy", lua_newproxy),
        ("assert", lua_assert),
        ("error", lua_error),
        ("pcall", lua_pcall),
        ("collectgarbage", lua_collectgarbage),
        ("loadstring", lua_loadstring),
        ("load", lua_load),
        ("loadfile", lua_loadfile),
        ("dofile", lua_dofile),
        ("xpcall", lua_xpcall),
        ("getfenv", lua_getfenv),
        ("setfenv", lua_setfenv),
        ("gcinfo", lua_gcinfo),
    ] {
        register(st, g, name, f)?;
    }
    register(st, g, "next", lua_next)?;
    // `pairs` returns its own copy of `next` (5.1's auxopen), not the global one.
    st.next_fn = new_native(&mut st.heap, "next", lua_next, g)?;
    st.pack_fn = new_native(&mut st.heap, "arg", lua_pack_varargs, g)?;
    st.ipairs_aux_fn = new_native(&mut st.heap, "ipairs", lua_ipairs_aux, g)?;
    st.set_global("_G", g)?;
    let version = st.intern(b"Lua 5.1")?;
    st.set_global("_VERSION", version)?;
    library(
        st,
        "table",
        &[
            ("insert", lua_table_insert),
            ("remove", lua_table_remove),
            ("foreach", lua_table_foreach),
            ("foreachi", lua_table_foreachi),
            ("concat", lua_table_concat),
            ("sort", lua_table_sort),
            ("getn", lua_table_getn),
            ("maxn", lua_table_maxn),
            ("setn", lua_table_setn),
        ],
    )?;
    crate::iolib::open(st)?;
    let debug = library(
        st,
        "debug",
        &[
            ("traceback", lua_debug_traceback),
            ("getinfo", lua_debug_getinfo),
            ("sethook", lua_debug_sethook),
            ("gethook", lua_debug_gethook),
            ("getlocal", lua_debug_getlocal),
            ("getregistry", lua_debug_getregistry),
            ("debug", lua_debug_debug),
            ("setlocal", lua_debug_setlocal),
            ("getmetatable", lua_debug_getmetatable),
            ("setmetatable", lua_debug_setmetatable),
            ("getupvalue", lua_debug_getupvalue),
            ("setupvalue", lua_debug_setupvalue),
        ],
    )?;
    for (name, f) in [("getfenv", lua_debug_getfenv as NativeFn), ("setfenv", lua_debug_setfenv)] {
        register(st, debug, name, f)?;
    }
    let registry = Table::new_in(&mut st.heap)?;
    st.registry = registry;
    // liolib registers the file handles' metatable as "FILE*".
    let key = st.intern(b"FILE*")?;
    table_mut(registry).set(key, TValue::from_ptr(st.file_metatable)).expect("string keys are valid");
    crate::loadlib::open(st)?;
    library(
        st,
        "coroutine",
        &[
            ("create", lua_co_create),
            ("resume", lua_co_resume),
            ("yield", lua_co_yield),
            ("status", lua_co_status),
            ("running", lua_co_running),
            ("wrap", lua_co_wrap),
        ],
    )?;
    library(
        st,
        "os",
        &[
            ("clock", lua_os_clock),
            ("time", lua_os_time),
            ("date", lua_os_date),
            ("getenv", lua_os_getenv),
            ("remove", lua_os_remove),
            ("rename", lua_os_rename),
            ("tmpname", lua_os_tmpname),
            ("execute", lua_os_execute),
            ("setlocale", lua_os_setlocale),
            ("exit", lua_os_exit),
            ("difftime", lua_os_difftime),
        ],
    )?;
    let math = library(
        st,
        "math",
        &[
            ("floor", lua_math_floor),
            ("ceil", lua_math_ceil),
            ("sqrt", lua_math_sqrt),
            ("abs", lua_math_abs),
            ("sin", lua_math_sin),
            ("cos", lua_math_cos),
            ("tan", lua_math_tan),
            ("exp", lua_math_exp),
            ("log", lua_math_log),
            ("log10", lua_math_log10),
            ("fmod", lua_math_fmod),
            // LUA_COMPAT_MOD: 5.1's old name of fmod.
            ("mod", lua_math_fmod),
            ("pow", lua_math_pow),
            ("max", lua_math_max),
            ("min", lua_math_min),
            ("random", lua_math_random),
            ("randomseed", lua_math_randomseed),
            ("asin", lua_math_asin),
            ("acos", lua_math_acos),
            ("atan", lua_math_atan),
            ("atan2", lua_math_atan2),
            ("sinh", lua_math_sinh),
            ("cosh", lua_math_cosh),
            ("tanh", lua_math_tanh),
            ("deg", lua_math_deg),
            ("rad", lua_math_rad),
            ("modf", lua_math_modf),
            ("frexp", lua_math_frexp),
            ("ldexp", lua_math_ldexp),
        ],
    )?;
    for (name, value) in [("pi", std::f64::consts::PI), ("huge", f64::INFINITY)] {
        let key = st.intern(name.as_bytes())?;
        table_mut(math).set(key, TValue::from_f64(value)).expect("string keys are valid");
    }
    let string = library(
        st,
        "string",
        &[
            ("len", lua_string_len),
            ("sub", lua_string_sub),
            ("upper", lua_string_upper),
            ("lower", lua_string_lower),
            ("rep", lua_string_rep),
            ("byte", lua_string_byte),
            ("char", lua_string_char),
            ("find", lua_string_find),
            ("match", lua_string_match),
            ("gmatch", lua_string_gmatch),
            ("gsub", lua_string_gsub),
            ("format", lua_string_format),
            ("reverse", lua_string_reverse),
            ("dump", lua_string_dump),
        ],
    )?;
    // LUA_COMPAT_GFIND: 5.1's old name of gmatch is the same function (pm.lua checks
    // `string.gfind == string.gmatch`).
    let (gmatch, gfind) = (st.intern(b"gmatch")?, st.intern(b"gfind")?);
    let f = table_mut(string).get(gmatch);
    table_mut(string).set(gfind, f).expect("string keys are valid");
    // Strings index the string library: ("x"):upper().
    let meta = Table::new_in(&mut st.heap)?;
    let index = st.event_names[Event::Index as usize];
    table_mut(meta).set(index, string).expect("string keys are valid");
    st.shared.string_metatable = meta.as_ptr();
    // package.loaded holds every standard library, as after luaL_openlibs.
    let loaded_key = st.intern(b"loaded")?;
    let loaded = table_mut(st.package).get(loaded_key);
    for name in ["_G", "string", "table", "math", "io", "os", "coroutine", "debug", "package"] {
        let key = st.intern(name.as_bytes())?;
        let lib = table_mut(st.globals).get(key);
        table_mut(loaded).set(key, lib).expect("string keys are valid");
    }
    Ok(())
}
