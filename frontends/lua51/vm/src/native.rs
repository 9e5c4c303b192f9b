//! The native-function layer (5.1's `lauxlib` and the C-function side of `lapi`): the
//! `native!` macro that defines a native function with its Lua name, a native function's view
//! of its call (`Call`: arguments, results, errors worded as 5.1's `luaL_*` word them, calls
//! back into Lua), and registering functions into library tables. Every library is written on
//! this layer; nothing below it knows a native function's body.

use std::borrow::Cow;

use deegen_api::FRAME_HEADER_SLOTS;
use lua51_value::number::{c_long, format_number, to_number, tostring_bytes};
use lua51_value::{type_name, TValue};

use crate::frames::Level;
use crate::metamethod::metamethod;
use crate::object::function::{new_native, new_native_closure, NativeFn};
use crate::object::heap::OutOfMemory;
use crate::object::string::string_bytes;
use crate::object::table::{table_mut, KeyError, Table};
use crate::state::{Event, LuaError, LuaState};

/// A native function's definition, as a library lists it (5.1's `luaL_Reg`): its Lua name and
/// its code. Made by [`native!`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Native {
    pub(crate) name: &'static str,
    pub(crate) f: NativeFn,
    /// For a library function written in the semantics (`lua51_specs::library`): its generated
    /// entry, which its function values run; `f` is then its native twin, run only while debug
    /// hooks are on (it reports their call and return events).
    pub(crate) generated: Option<unsafe extern "C" fn()>,
}

impl Native {
    /// A function value of this native, whose environment is the globals.
    pub(crate) fn function(&self, st: &mut LuaState) -> Result<TValue, OutOfMemory> {
        let globals = st.globals;
        new_native(&mut st.heap, self.name, self.f, self.generated, globals)
    }

    /// A closure of this native over `upvalues` (closed, like a C closure's).
    pub(crate) fn closure(&self, st: &mut LuaState, upvalues: &[TValue]) -> Result<TValue, OutOfMemory> {
        let globals = st.globals;
        new_native_closure(&mut st.heap, self.name, self.f, self.generated, globals, upvalues)
    }
}

/// Sets `table[native.name]` to a new function of `native`, and returns the function.
pub(crate) fn register(st: &mut LuaState, table: TValue, native: &Native) -> Result<TValue, OutOfMemory> {
    let v = native.function(st)?;
    let key = st.intern(native.name.as_bytes())?;
    table_mut(table).set(key, v).expect("string keys are valid");
    st.heap.write_barrier(table.as_ptr());
    Ok(v)
}

/// A new table of `functions`, stored as the global `name` (5.1's `luaL_register` of a library).
pub(crate) fn new_library(st: &mut LuaState, name: &str, functions: &[Native]) -> Result<TValue, OutOfMemory> {
    let t = Table::new_in(&mut st.heap)?;
    for f in functions {
        register(st, t, f)?;
    }
    st.set_global(name, t)?;
    Ok(t)
}

/// A native function's view of its call.
pub(crate) struct Call<'a> {
    pub(crate) st: &'a mut LuaState,
    pub(crate) base: *mut u64,
    pub(crate) nargs: usize,
    /// The Lua name `native!` recorded for the function (`Native::name`).
    pub(crate) name: &'static str,
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

    /// The Lua name this function was registered under (for the messages 5.1 words with it).
    pub(crate) fn name(&self) -> &'static str {
        self.name
    }

    pub(crate) fn set(&mut self, i: usize, v: TValue) {
        unsafe { *self.base.add(i) = v.raw() };
    }

    /// The `chunk:line:` of the Lua code `level` levels up (1: the caller of this function),
    /// or nothing when that level is a native function or a tail call (`luaL_where`).
    pub(crate) fn where_(&self, level: usize) -> String {
        self.st.where_(self.base, level)
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
        let text = self.st.argument_error(self.base, i, msg);
        let v = self.st.intern(text.as_bytes()).unwrap_or(TValue::NIL);
        self.raise(v)
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
        let result = table_mut(t).set(k, v);
        self.st.heap.write_barrier(t.as_ptr());
        match result {
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
        self.raise(self.st.memory_error)
    }

    /// Room for `n` results from `base`.
    pub(crate) fn ensure_results(&mut self, n: usize) -> Result<(), Raised> {
        let end = unsafe { self.base.add(n) };
        if end >= self.st.cur().interp.stack_limit {
            return Err(self.error("stack overflow"));
        }
        // Results above the native's frame: the collector's clearing must reach them.
        self.st.cur().interp.claim_stack(end);
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
        let (p, n) = self.call_results(f, args, reserve)?;
        Ok((0..n).map(|i| TValue(unsafe { *p.add(i) })).collect())
    }

    /// Calls `f` with `args` in a frame above this function's first `reserve` slots (and its
    /// arguments): where its results lie, and how many, until the next call.
    fn call_results(&mut self, f: TValue, args: &[TValue], reserve: usize) -> Result<(*mut u64, usize), Raised> {
        let frame = unsafe { self.base.add(self.nargs.max(reserve)) };
        unsafe {
            *frame = f.raw();
            for (i, a) in args.iter().enumerate() {
                *frame.add(FRAME_HEADER_SLOTS + i) = a.raw();
            }
        }
        let st: *mut LuaState = &mut *self.st;
        unsafe { LuaState::call_at(st, frame, args.len(), self.base) }.map_err(|LuaError { value }| self.raise(value))
    }

    /// [`Self::call`] for its first result only (nil when there is none), without collecting
    /// the results: a comparator of `table.sort` or a `gsub` replacement function runs once per
    /// element, and a vector per call was a `malloc` and a `free` each time (a fifth of
    /// `table.sort`'s time with a comparator).
    pub(crate) fn call1(&mut self, f: TValue, args: &[TValue], reserve: usize) -> Result<TValue, Raised> {
        let (p, n) = self.call_results(f, args, reserve)?;
        Ok(if n > 0 { TValue(unsafe { *p }) } else { TValue::NIL })
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
    /// A string's own bytes (not a copy: a string can be most of the memory there is), or the
    /// short text of any other value. Borrowed bytes are valid until the next allocation.
    pub(crate) fn tostring(&mut self, v: TValue, reserve: usize) -> Result<Cow<'static, [u8]>, Raised> {
        let tm = metamethod(self.st, v, Event::ToString);
        if tm.is_nil() {
            return Ok(Self::formatted(v));
        }
        let r = self.call1(tm, &[v], reserve)?;
        self.printable(r)
    }

    /// What `print` writes of `r`, the result of a `__tostring` handler or of a global
    /// `tostring` the program installed: a string or a number, formatted; anything else is
    /// 5.1's error.
    pub(crate) fn printable(&mut self, r: TValue) -> Result<Cow<'static, [u8]>, Raised> {
        if r.is_string() || r.is_double() {
            Ok(Self::formatted(r))
        } else {
            Err(self.error("'tostring' must return a string to 'print'"))
        }
    }

    /// `v` as the built-in `tostring` writes it; a string is borrowed, not copied.
    fn formatted(v: TValue) -> Cow<'static, [u8]> {
        if v.is_string() {
            return Cow::Borrowed(string_bytes(v));
        }
        let mut out = Vec::new();
        tostring_bytes(v, &mut out);
        Cow::Owned(out)
    }
}

/// Defines a native function: `native!(NAME, "lua name", |c| { body })` makes the constant
/// `NAME`, a [`Native`] that records the Lua name once (for registration, and as
/// [`Call::name`]) with the `extern "C"` function it wraps around `body`. `body` gets the call
/// as `c: &mut Call` and returns how many results it stored from slot 0, or `Err(Raised)` after
/// raising. The wrapper does what every native function does: it is a collection safe point,
/// runs queued finalizers, and reports debug-hook call and return events.
///
/// `export "symbol"` before the body also gives the function that linker name (for natives the
/// semantics recognise by address, see `lua51_value::abi`).
macro_rules! native {
    ($(#[$attr:meta])* $name:ident, $lua:literal, $(export $symbol:literal,)? $(generated $entry:path,)? |$c:ident| $body:block) => {
        $(#[$attr])*
        pub(crate) const $name: $crate::native::Native = $crate::native::Native {
            name: $lua,
            generated: $crate::native::generated_entry(&[$($entry as unsafe extern "C" fn()),*]),
            f: {
                $(#[export_name = $symbol])?
                extern "C" fn native(ctx: *mut lua51_value::LuaContext, base: *mut u64, nargs: u64) -> i64 {
                    let mut call = $crate::native::Call { st: unsafe { $crate::state::state_of(ctx) }, base, nargs: nargs as usize, name: $lua };
                    // Native functions are collection safe points: their arguments are the live top.
                    $crate::gc::check(call.st, unsafe { base.add(nargs as usize) });
                    // And the place where finalizers queued by any collection run.
                    if !call.st.to_finalize.is_empty() {
                        if let Err($crate::native::Raised) = call.run_finalizers() {
                            return -1;
                        }
                    }
                    if call.st.hooked_threads != 0 {
                        if let Err($crate::native::Raised) = call.hook_call() {
                            return -1;
                        }
                    }
                    let f = |$c: &mut $crate::native::Call| -> $crate::native::NResult { $body };
                    match f(&mut call) {
                        // Asked again: `sethook` itself reports its return.
                        Ok(n) if call.st.hooked_threads != 0 => match call.hook_return(n) {
                            Ok(()) => n as i64,
                            Err($crate::native::Raised) => -1,
                        },
                        Ok(n) => n as i64,
                        Err($crate::native::Raised) => -1,
                    }
                }
                native
            },
        };
    };
}

pub(crate) use native;

/// The generated entry a `native!` definition names, if it names one.
pub(crate) const fn generated_entry(entries: &[unsafe extern "C" fn()]) -> Option<unsafe extern "C" fn()> {
    match entries {
        [entry] => Some(*entry),
        _ => None,
    }
}

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

/// The function `level` levels up from a native function (1: its caller): nil for a tail
/// call's level (5.1's `getinfo(level, "f")`), `None` past the outermost level.
pub(crate) fn function_at_level(c: &Call, level: usize) -> Option<TValue> {
    c.level(level).map(|l| l.frame().map_or(TValue::NIL, |f| f.callee()))
}

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

/// `t[k]` with `__index` (tables and functions), from native code, as `lua_gettable` does.
pub(crate) fn index_value(c: &mut Call, mut t: TValue, k: TValue) -> Result<TValue, Raised> {
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
            return c.call1(tm, &[t, k], c.nargs);
        }
        t = tm;
    }
    Err(c.error("loop in gettable"))
}
