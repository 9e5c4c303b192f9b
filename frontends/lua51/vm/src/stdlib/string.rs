//! The string library (5.1's `lstrlib`): the functions, and the string metatable that makes
//! `s:upper()` work. Pattern matching and `format`'s specifications are in `pattern`.

mod pattern;

use deegen_api::frame;
use lua51_value::number::{c_int, c_long, c_ulong, format_number, tostring_bytes};
use lua51_value::{type_name, TValue};

use crate::native::{index_value, native, new_library, Call, NResult, Native, Raised};
use crate::object::heap::OutOfMemory;
use crate::object::string::string_bytes;
use crate::object::table::{table_mut, Table};
use crate::state::{Event, LuaState};
use crate::stdlib::buffer::Buffer;

/// Room for one formatted number (`%.14g`, or an integer position).
const NUMBER_BYTES: usize = 32;

/// `string.sub`/`string.byte` positions: negative counts from the end (Lua 5.1's `posrelat`).
fn posrelat(pos: i64, len: usize) -> i64 {
    if pos < 0 {
        len as i64 + pos + 1
    } else {
        pos
    }
}

native!(LEN, "len", generated crate::interp::__deegen_lib_string_len, |c| {
    let s = c.check_bytes(0)?;
    c.set(0, TValue::from_f64(s.len() as f64));
    Ok(1)
});

native!(SUB, "sub", generated crate::interp::__deegen_lib_string_sub, |c| {
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

native!(UPPER, "upper", |c| {
    let mut b = Buffer::reusing(c);
    b.extend(&c.check_bytes(0)?);
    b.bytes_mut().make_ascii_uppercase();
    let v = b.finish(c)?;
    c.set(0, v);
    Ok(1)
});

native!(LOWER, "lower", |c| {
    let mut b = Buffer::reusing(c);
    b.extend(&c.check_bytes(0)?);
    b.bytes_mut().make_ascii_lowercase();
    let v = b.finish(c)?;
    c.set(0, v);
    Ok(1)
});

native!(REP, "rep", |c| {
    let s = c.check_bytes(0)?;
    let n = c.check_int(1)?;
    if n <= 0 || s.is_empty() {
        let v = c.string(b"")?;
        c.set(0, v);
        return Ok(1);
    }
    let total = (s.len() as u128) * (n as u128);
    if total >= crate::object::string::MAX_STRING_LEN as u128 {
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

native!(BYTE, "byte", generated crate::interp::__deegen_lib_string_byte, |c| {
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

native!(CHAR, "char", |c| {
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

/// A capture as a Lua value: a substring, or a position.
fn capture_value(c: &mut Call, subject: &[u8], cap: pattern::Capture) -> Result<TValue, Raised> {
    match cap {
        pattern::Capture::Bytes(s, e) => c.string(&subject[s..e]),
        pattern::Capture::Position(p) => Ok(TValue::from_f64(p as f64)),
    }
}

/// The values of every capture of a match, stored from `out[0]`; returns how many.
/// The captures of `m`'s last match `s..e` as values, into `out`; how many.
fn capture_values(c: &mut Call, subject: &[u8], m: &pattern::Matcher, s: usize, e: usize, out: &mut [TValue]) -> Result<usize, Raised> {
    let n = m.num_captures();
    for (i, slot) in out.iter_mut().enumerate().take(n) {
        let cap = m.capture(i, s, e).map_err(|msg| c.error(&msg))?;
        *slot = capture_value(c, subject, cap)?;
    }
    Ok(n)
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
    if find && (!c.arg(3).is_falsy() || pattern::no_specials(&pattern)) {
        let hit = pattern::find_plain(&subject[init..], &pattern).map(|i| i + init);
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
    let anchored = pattern.first() == Some(&b'^');
    let program = pattern::program(&pattern[usize::from(anchored)..]);
    let mut m = pattern::Matcher::new(&subject, &program);
    match m.find(init, anchored) {
        Err(msg) => Err(c.error(&msg)),
        Ok(None) => {
            c.set(0, TValue::NIL);
            Ok(1)
        }
        // find returns captures only when the match made some (`()` is one, `%(` is not).
        Ok(Some((s, e))) if find && !m.has_captures() => {
            c.set(0, TValue::from_f64((s + 1) as f64));
            c.set(1, TValue::from_f64(e as f64));
            Ok(2)
        }
        Ok(Some((s, e))) => {
            let mut values = [TValue::NIL; pattern::MAX_CAPTURES + 2];
            let mut n = 0;
            if find {
                values[0] = TValue::from_f64((s + 1) as f64);
                values[1] = TValue::from_f64(e as f64);
                n = 2;
            }
            n += capture_values(c, &subject, &m, s, e, &mut values[n..])?;
            c.return_values(0, &values[..n])
        }
    }
}

native!(FIND, "find", |c| { find_aux(c, true) });
native!(MATCH, "match", |c| { find_aux(c, false) });

native!(GMATCH_ITER, "gmatch", |c| {
    let me = TValue(unsafe { *c.base.offset(frame::CALLEE as isize) });
    let up = |i: usize| TValue(unsafe { (*(*me.as_closure()).upvalue(i)).closed });
    let (subject, pattern, pos) = (up(0), up(1), up(2).as_f64() as usize);
    // Borrowed, not copied (a copy per step made a gmatch loop quadratic): the closure's
    // upvalues keep both strings alive for the whole call, and nothing here collects.
    let (subject, pattern) = (string_bytes(subject), string_bytes(pattern));
    // `gmatch` has no anchor: a leading `^` is a byte like any other, as in 5.1.
    let program = pattern::program(pattern);
    let mut m = pattern::Matcher::new(subject, &program);
    let mut src = pos;
    while src <= subject.len() {
        let found = {
            let r = m.do_match_from(src).map_err(|msg| c.error(&msg))?;
            r.map(|e| (src, e))
        };
        if let Some((s, e)) = found {
            let next = if e == s { e + 1 } else { e };
            unsafe { (*(*me.as_closure()).upvalue(2)).closed = TValue::from_f64(next as f64).raw() };
            let mut values = [TValue::NIL; pattern::MAX_CAPTURES];
            let n = capture_values(c, subject, &m, s, e, &mut values)?;
            return c.return_values(0, &values[..n]);
        }
        // Past a failed position, straight to the next one where a match can start.
        src = m.next_candidate(src + 1);
    }
    Ok(0)
});

native!(GMATCH, "gmatch", |c| {
    let s = c.check_bytes(0)?;
    let p = c.check_bytes(1)?;
    let (sv, pv) = (c.string(&s)?, c.string(&p)?);
    match GMATCH_ITER.closure(c.st, &[sv, pv, TValue::from_f64(0.0)]) {
        Ok(f) => {
            c.set(0, f);
            Ok(1)
        }
        Err(OutOfMemory) => Err(c.raise_oom()),
    }
});

native!(GSUB, "gsub", |c| {
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
    let program = pattern::program(pattern);
    let mut m = pattern::Matcher::new(&subject, &program);
    let mut out = Buffer::reusing(c);
    // Bytes of the subject before `copied` are in `out`; those between it and a match are
    // copied when the match is (so a subject without a match is never copied).
    let (mut src, mut n, mut copied) = (0usize, 0i64, 0usize);
    while n < max_n {
        let end = m.do_match_from(src).map_err(|msg| c.error(&msg))?;
        if let Some(e) = end {
            n += 1;
            out.extend(&subject[copied..src]);
            copied = e;
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
                                        out.extend(whole);
                                    } else {
                                        let cap = m.capture((d - b'1') as usize, src, e).map_err(|msg| c.error(&msg))?;
                                        match cap {
                                            pattern::Capture::Bytes(a, b) => out.extend(&subject[a..b]),
                                            pattern::Capture::Position(p) => out.write_bounded(NUMBER_BYTES, |v| format_number(p as f64, v)),
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
                        let mut args = [TValue::NIL; pattern::MAX_CAPTURES];
                        let n = capture_values(c, &subject, &m, src, e, &mut args)?;
                        c.call1(repl, &args[..n], c.nargs)?
                    };
                    if value.is_falsy() {
                        out.extend(whole);
                    } else if value.is_string() {
                        out.extend(string_bytes(value));
                    } else if value.is_double() {
                        out.write_bounded(NUMBER_BYTES, |v| tostring_bytes(value, v));
                    } else {
                        return Err(c.error(&format!("invalid replacement value (a {})", type_name(value))));
                    }
                }
            }
        }
        match end {
            Some(e) if e > src => src = e,
            // No match here: on to the next byte where one can start (the bytes passed
            // stay in the subject, to be copied with the next match or at the end).
            _ if src < subject.len() => src = if anchor { src + 1 } else { m.next_candidate(src + 1).min(subject.len()) },
            _ => break,
        }
        if anchor {
            break;
        }
    }
    if n == 0 && c.arg(0).is_string() {
        // Nothing replaced: the result is the subject itself (an interned string).
        c.set(0, c.arg(0));
        c.set(1, TValue::from_f64(0.0));
        return Ok(2);
    }
    out.extend(&subject[copied..]);
    let s = out.finish(c)?;
    c.set(0, s);
    c.set(1, TValue::from_f64(n as f64));
    Ok(2)
});

native!(FORMAT, "format", |c| {
    extern "C" {
        fn snprintf(buf: *mut std::ffi::c_char, n: usize, fmt: *const std::ffi::c_char, ...) -> std::ffi::c_int;
    }
    let fmt = c.check_bytes(0)?;
    let mut out = Buffer::reusing(c);
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
        let (mut spec, conv, next) = pattern::format_spec(&fmt, i + 1).map_err(|m| c.error(&m))?;
        i = next;
        arg += 1;
        // 5.1 takes the argument before it looks at the conversion ("%5%" wants one too).
        if arg >= c.nargs {
            return Err(c.arg_error(arg, "no value"));
        }
        // The usual conversions without the C library: `%d` and `%.14g` (tostring's own
        // format) as tostring writes numbers, `%s` of a string with no NUL (which snprintf
        // would end it at) appended whole. Each went through a 512-byte allocation and glibc's
        // printf (json's encoder spent more in `__printf_fp` than in its own code).
        match (conv, spec.as_slice()) {
            (b'd' | b'i', b"%") => {
                let x = c_long(c.check_number(arg)?);
                out.write_bounded(20, |v| {
                    use std::io::Write;
                    write!(v, "{x}").expect("a Vec takes any write")
                });
                continue;
            }
            (b'g', b"%.14") => {
                let x = c.check_number(arg)?;
                out.write_bounded(32, |v| format_number(x, v));
                continue;
            }
            (b's', b"%") => {
                let s = c.check_bytes(arg)?;
                if !s.contains(&0) {
                    out.extend(&s);
                    continue;
                }
            }
            _ => {}
        }
        let mut buf = [0u8; 512];
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
                out.write_bounded(s.len().saturating_mul(4).saturating_add(2), |v| pattern::quote(&s, v));
                continue;
            }
            b's' => {
                let s = c.check_bytes(arg)?;
                if !spec.as_slice().contains(&b'.') && s.len() >= 100 {
                    // No precision: a long string is added whole (as 5.1 does).
                    out.extend(&s);
                    continue;
                }
                let mut cs = s.to_vec();
                cs.push(0);
                spec.extend_from_slice(b"s\0");
                unsafe { snprintf(buf.as_mut_ptr() as *mut _, buf.len(), spec.as_ptr() as *const _, cs.as_ptr() as *const std::ffi::c_char) }
            }
            other => {
                return Err(c.error(&format!("invalid option '%{}' to '{}'", other as char, c.name())));
            }
        };
        // lua5.1 adds strlen(buff) bytes: a NUL (from %c of 0) ends the piece.
        let piece = &buf[..(n.max(0) as usize).min(buf.len() - 1)];
        let end = piece.iter().position(|&b| b == 0).unwrap_or(piece.len());
        out.extend(&piece[..end]);
    }
    let s = out.finish(c)?;
    c.set(0, s);
    Ok(1)
});

native!(REVERSE, "reverse", |c| {
    let mut b = Buffer::reusing(c);
    b.extend(&c.check_bytes(0)?);
    b.bytes_mut().reverse();
    let v = b.finish(c)?;
    c.set(0, v);
    Ok(1)
});

native!(DUMP, "dump", |c| {
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

/// The string library's functions, by their Lua names.
pub(crate) const FUNCTIONS: &[Native] = &[LEN, SUB, UPPER, LOWER, REP, BYTE, CHAR, FIND, MATCH, GMATCH, GSUB, FORMAT, REVERSE, DUMP];

/// Opens the string library (the global `string`) and makes it the strings' metatable's
/// `__index`; returns the library.
pub fn open(st: &mut LuaState) -> Result<TValue, OutOfMemory> {
    let string = new_library(st, "string", FUNCTIONS)?;
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
    Ok(string)
}
