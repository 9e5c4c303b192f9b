//! The os library (5.1's `loslib`), over the C library where 5.1 uses it (`clock`, `time`,
//! `strftime`, `setlocale`, `mkstemp`).

use std::borrow::Cow;

use lua51_value::number::{c_long, to_number};
use lua51_value::TValue;

use crate::native::{native, new_library, os_error_text, Call, NResult, Native, Raised};
use crate::object::heap::OutOfMemory;
use crate::object::table::{table_mut, Table};
use crate::state::LuaState;

extern "C" {
    fn clock() -> std::ffi::c_long;
    fn time(t: *mut i64) -> i64;
}

native!(GETENV, "getenv", |c| {
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

native!(REMOVE, "remove", |c| {
    let name = c.check_bytes(0)?;
    let path = String::from_utf8_lossy(&name).into_owned();
    let r = std::fs::remove_file(&path).or_else(|e| if std::path::Path::new(&path).is_dir() { std::fs::remove_dir(&path) } else { Err(e) });
    os_result(c, r, &name)
});

native!(RENAME, "rename", |c| {
    let (from, to) = (c.check_bytes(0)?, c.check_bytes(1)?);
    let r = std::fs::rename(String::from_utf8_lossy(&from).as_ref(), String::from_utf8_lossy(&to).as_ref());
    os_result(c, r, &from)
});

native!(EXECUTE, "execute", |c| {
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

native!(SETLOCALE, "setlocale", |c| {
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

native!(TMPNAME, "tmpname", |c| {
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

native!(EXIT, "exit", |c| {
    let code = c.opt_int(0, 0)?;
    crate::stdlib::io::flush_all_files(c.st);
    c.st.flush();
    std::process::exit(code as i32);
});

native!(DIFFTIME, "difftime", |c| {
    // 5.1: difftime((time_t)a, (time_t)b), whose arguments the reference build evaluates
    // right to left: `b` is checked first.
    let b = if c.arg(1).is_nil() { 0 } else { c_long(c.check_number(1)?) };
    let a = c_long(c.check_number(0)?);
    c.set(0, TValue::from_f64(a as f64 - b as f64));
    Ok(1)
});

native!(CLOCK, "clock", |c| {
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

native!(TIME, "time", |c| {
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

native!(DATE, "date", |c| {
    let format = if c.arg(0).is_nil() { Cow::Borrowed(&b"%c"[..]) } else { c.check_bytes(0)? };
    let when = if c.arg(1).is_nil() { unsafe { time(std::ptr::null_mut()) } } else { c.check_number(1)? as i64 };
    let (utc, format) = match format.strip_prefix(b"!") {
        Some(rest) => (true, rest.to_vec()),
        None => (false, format.into_owned()),
    };
    let mut tm = Tm::default();
    let ok = unsafe {
        if utc {
            gmtime_r(&when, &mut tm)
        } else {
            localtime_r(&when, &mut tm)
        }
    };
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

/// The os library's functions, by their Lua names.
pub(crate) const FUNCTIONS: &[Native] = &[CLOCK, TIME, DATE, GETENV, REMOVE, RENAME, TMPNAME, EXECUTE, SETLOCALE, EXIT, DIFFTIME];

/// Opens the os library (the global `os`), and returns it.
pub fn open(st: &mut LuaState) -> Result<TValue, OutOfMemory> {
    new_library(st, "os", FUNCTIONS)
}
