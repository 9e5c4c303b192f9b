//! Number ↔ string conversions exactly as PUC Lua 5.1 does them: through the C library's
//! `snprintf("%.14g")` and `strtod`, so every corner (`-nan`, `1e+100`, hex strings) matches.

use std::ffi::{c_char, c_int, c_ulong};

extern "C" {
    fn snprintf(buf: *mut c_char, n: usize, fmt: *const c_char, ...) -> c_int;
    fn strtod(s: *const c_char, end: *mut *mut c_char) -> f64;
    fn strtoul(s: *const c_char, end: *mut *mut c_char, base: c_int) -> c_ulong;
}

/// `lua_Number` to text with `LUAI_NUMFFORMAT` (`%.14g`).
///
/// Integers of at most 14 digits print as their digits under `%.14g`, so they skip the C
/// library (the common case, and several times faster); everything else goes through it.
pub fn format_number(x: f64, out: &mut Vec<u8>) {
    if x.fract() == 0.0 && x.abs() < 1e14 && !(x == 0.0 && x.is_sign_negative()) {
        let mut n = x as i64;
        if n < 0 {
            out.push(b'-');
            n = -n;
        }
        let mut digits = [0u8; 20];
        let mut i = digits.len();
        loop {
            i -= 1;
            digits[i] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        out.extend_from_slice(&digits[i..]);
        return;
    }
    let mut buf = [0u8; 64];
    let n = unsafe { snprintf(buf.as_mut_ptr() as *mut c_char, buf.len(), c"%.14g".as_ptr(), x) };
    out.extend_from_slice(&buf[..n.clamp(0, 63) as usize]);
}

pub fn number_to_string(x: f64) -> String {
    let mut v = Vec::new();
    format_number(x, &mut v);
    String::from_utf8(v).expect("printf output is ASCII")
}

fn is_lua_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

/// Lua 5.1's `luaO_str2d`: `strtod`, or a hexadecimal integer after `0x`, with only whitespace
/// around it.
pub fn str_to_number(s: &[u8]) -> Option<f64> {
    if s.contains(&0) {
        return None;
    }
    let mut owned = s.to_vec();
    owned.push(0);
    let start = owned.as_ptr() as *mut c_char;
    let mut end: *mut c_char = start;
    let mut value = unsafe { strtod(start, &mut end) };
    if end == start {
        return None;
    }
    let mut pos = unsafe { end.offset_from(start) } as usize;
    if matches!(owned[pos], b'x' | b'X') {
        value = unsafe { strtoul(start, &mut end, 16) } as f64;
        pos = unsafe { end.offset_from(start) } as usize;
    }
    while is_lua_space(owned[pos]) {
        pos += 1;
    }
    (pos == s.len()).then_some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_like_lua() {
        for (x, s) in [(1.0, "1"), (0.1, "0.1"), (1e15, "1e+15"), (1e100, "1e+100"), (-0.0, "-0"), (1.0 / 3.0, "0.33333333333333"), (f64::INFINITY, "inf"), (-f64::INFINITY, "-inf")] {
            assert_eq!(number_to_string(x), s);
        }
    }

    #[test]
    fn integer_fast_path_matches_printf() {
        let slow = |x: f64| {
            let mut buf = [0u8; 64];
            let n = unsafe { snprintf(buf.as_mut_ptr() as *mut c_char, buf.len(), c"%.14g".as_ptr(), x) };
            String::from_utf8(buf[..n as usize].to_vec()).unwrap()
        };
        for x in [0.0, -0.0, 1.0, -1.0, 7.0, 10.0, 99999999999999.0, -99999999999999.0, 1e14, 123456789.0, -4503599627370496.0, 0.5, 1e300] {
            assert_eq!(number_to_string(x), slow(x), "{x}");
        }
    }

    #[test]
    fn parses_like_lua() {
        assert_eq!(str_to_number(b" 10 "), Some(10.0));
        assert_eq!(str_to_number(b"0x1F"), Some(31.0));
        assert_eq!(str_to_number(b"1e2"), Some(100.0));
        assert_eq!(str_to_number(b"10a"), None);
        assert_eq!(str_to_number(b""), None);
        assert_eq!(str_to_number(b"  "), None);
        assert_eq!(str_to_number(b"1\x002"), None);
    }
}
