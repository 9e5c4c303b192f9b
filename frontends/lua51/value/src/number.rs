//! Number ↔ string conversions exactly as PUC Lua 5.1 does them: `%.14g` and `strtod`, so every
//! corner (`-nan`, `1e+100`, hex strings) matches. Finite numbers are formatted in Rust (checked
//! against the C library's `snprintf` on many doubles in the tests); NaN, infinities, `-0` and
//! parsing go through the C library. Also the coercions built on them (a value to a number, a
//! value to the text `tostring` gives without metamethods) and C's conversions of a
//! `lua_Number` to its integer types, which the library's argument checks follow.
//!
//! Needs `std` (the `std` feature): the semantics never format or parse numbers.

use std::ffi::{c_char, c_int, c_ulong};

use crate::{type_name, TValue};

extern "C" {
    fn snprintf(buf: *mut c_char, n: usize, fmt: *const c_char, ...) -> c_int;
    fn strtod(s: *const c_char, end: *mut *mut c_char) -> f64;
    fn strtoul(s: *const c_char, end: *mut *mut c_char, base: c_int) -> c_ulong;
}

/// `lua_Number` to text with `LUAI_NUMFFORMAT` (`%.14g`).
///
/// Integers of at most 14 digits print as their digits under `%.14g`; other finite numbers go
/// through [`format_g14`]; only NaN, infinities and `-0` reach the C library.
///
/// The integer test is a conversion and back (`fract` is a call of libm's `trunc` on a
/// baseline x86-64 target), and everything else is out of line, so a number concatenated
/// into a string (`"item" .. i`) runs a short function without a stack frame to speak of.
/// (Not `#[inline]`: inlined into its callers it made the string library's argument checks
/// too large to inline in turn.)
pub fn format_number(x: f64, out: &mut Vec<u8>) {
    // False for NaN; within i64, so the conversion is exact for an integer.
    if x.abs() < 1e14 {
        let n = x as i64;
        // `-0` prints as "-0": the C library's.
        if n as f64 == x && !(n == 0 && x.is_sign_negative()) {
            if n < 0 {
                out.push(b'-');
            }
            push_decimal(n.unsigned_abs(), out);
            return;
        }
    }
    format_non_integer(x, out);
}

/// [`format_number`] of what is not an integer of at most 14 digits.
#[inline(never)]
fn format_non_integer(x: f64, out: &mut Vec<u8>) {
    if x.is_finite() && x != 0.0 {
        format_g14(x, out);
        return;
    }
    printf_g14(x, out);
}

/// `%.14g` through the C library (NaN, infinities and `-0` keep its exact spelling).
fn printf_g14(x: f64, out: &mut Vec<u8>) {
    let mut buf = [0u8; 64];
    let n = unsafe { snprintf(buf.as_mut_ptr() as *mut c_char, buf.len(), c"%.14g".as_ptr(), x) };
    out.extend_from_slice(&buf[..n.clamp(0, 63) as usize]);
}

/// The significant digits of `x` (finite, positive) and its decimal exponent, from Rust's
/// scientific notation: the shortest round-trip digits, or `precision + 1` digits. Written to
/// a stack buffer (this runs for every number concatenated into a string).
fn scientific(x: f64, precision: Option<usize>, digits: &mut [u8; 40]) -> (usize, i32) {
    use std::io::Write;
    let mut text = [0u8; 48];
    let len = {
        let mut w = &mut text[..];
        match precision {
            None => write!(w, "{x:e}"),
            Some(p) => write!(w, "{x:.p$e}"),
        }
        .expect("48 bytes hold a double in scientific notation");
        48 - w.len()
    };
    let e = text[..len].iter().position(|&c| c == b'e').expect("{:e} has an exponent");
    let exp = std::str::from_utf8(&text[e + 1..len]).ok().and_then(|t| t.parse().ok()).expect("{:e} exponent is an integer");
    let mut n = 0;
    for &c in text[..e].iter().filter(|&&c| c != b'.') {
        digits[n] = c;
        n += 1;
    }
    (n, exp)
}

/// `%.14g` of a non-integer `x` below 10^9 in magnitude with at most 4 decimals (`i / 4`, prices,
/// percentages), in integer arithmetic: when `m = x * 10^k` is an integer and `m / 10^k`
/// reads back as `x`, `x` is the double nearest the decimal `m / 10^k` of at most 13 digits,
/// within half an ulp (2^-53 relative) of it, so that decimal is its 14-digit rounding, and
/// `%g` prints it in fixed notation (its exponent is in -4..=8). False for other numbers.
fn format_short_fraction(x: f64, out: &mut Vec<u8>) -> bool {
    let a = x.abs();
    if a >= 1e9 || a.is_nan() {
        return false;
    }
    let mut scale = 1u64;
    for k in 1..=4 {
        scale *= 10;
        let y = a * scale as f64;
        if y.fract() != 0.0 || y / scale as f64 != a {
            continue;
        }
        let m = y as u64;
        let frac = m % scale;
        if frac == 0 {
            // An integer: its own path.
            return false;
        }
        if x < 0.0 {
            out.push(b'-');
        }
        push_decimal(m / scale, out);
        out.push(b'.');
        let mut digits = [b'0'; 4];
        let mut f = frac;
        for i in (0..k).rev() {
            digits[i] = b'0' + (f % 10) as u8;
            f /= 10;
        }
        let last = digits[..k].iter().rposition(|&d| d != b'0').expect("frac is not 0");
        out.extend_from_slice(&digits[..=last]);
        return true;
    }
    false
}

/// "00", "01", ..., "99": two digits per division when printing integers.
const DIGIT_PAIRS: &[u8; 200] = b"0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// Appends the decimal digits of `n`, written in place from the last (no digit buffer to copy:
/// numbers concatenated into strings take this path).
fn push_decimal(mut n: u64, out: &mut Vec<u8>) {
    // The digit count from the bit length (log10(2) ~ 1233 / 4096), corrected by one compare
    // (a loop over powers of ten was a third of this function's instructions).
    const POW10: [u64; 20] = {
        let mut p = [1u64; 20];
        let mut i = 1;
        while i < 20 {
            p[i] = p[i - 1] * 10;
            i += 1;
        }
        p
    };
    let bits = 64 - (n | 1).leading_zeros();
    let t = ((bits * 1233) >> 12) as usize;
    let len = (t + 1 - usize::from(n < POW10[t])).max(1);
    out.reserve(len);
    let start = out.len();
    // SAFETY: `len` bytes were reserved past `start`; every one is written below before the
    // length covers it.
    unsafe {
        let p = out.as_mut_ptr().add(start);
        let mut end = len;
        while n >= 100 {
            let pair = (n % 100) as usize * 2;
            n /= 100;
            end -= 2;
            *p.add(end) = DIGIT_PAIRS[pair];
            *p.add(end + 1) = DIGIT_PAIRS[pair + 1];
        }
        if n >= 10 {
            let pair = n as usize * 2;
            *p.add(end - 2) = DIGIT_PAIRS[pair];
            *p.add(end - 1) = DIGIT_PAIRS[pair + 1];
        } else {
            *p.add(end - 1) = b'0' + n as u8;
        }
        out.set_len(start + len);
    }
}

/// `%.14g` of a finite non-zero double without the C library: Rust's `{:.13e}` rounds the
/// exact binary value correctly to 14 significant digits, as glibc does, and the rest is C's
/// `%g` layout (fixed notation for exponents -4..=13, trailing zeros removed). glibc's
/// printf works in multi-precision arithmetic and dominated string building with fractions.
fn format_g14(x: f64, out: &mut Vec<u8>) {
    if format_short_fraction(x, out) {
        return;
    }
    // The shortest representation that reads back as `x` is cheap to find (Grisu, no
    // fallback). For a normal number with at most 14 such digits it *is* the 14-digit
    // rounding: it lies within half an ulp (2^-53 relative) of `x`, and 14-digit neighbours
    // are at least 10^-14 apart. (Subnormals have coarser ulps.)
    let mut digits = [b'0'; 14];
    let mut buf = [0u8; 40];
    let (n, short_exp) = scientific(x.abs(), None, &mut buf);
    let exp = if n <= 14 && x.abs() >= f64::MIN_POSITIVE {
        digits[..n].copy_from_slice(&buf[..n]);
        short_exp
    } else {
        // Exact rounding to 14 digits (Grisu's exact mode, Dragon4 when it cannot decide).
        let (n, exact_exp) = scientific(x.abs(), Some(13), &mut buf);
        digits.copy_from_slice(&buf[..n]);
        exact_exp
    };
    if x < 0.0 {
        out.push(b'-');
    }
    if !(-4..14).contains(&exp) {
        let last = digits.iter().rposition(|&d| d != b'0').unwrap_or(0);
        out.push(digits[0]);
        if last > 0 {
            out.push(b'.');
            out.extend_from_slice(&digits[1..=last]);
        }
        out.push(b'e');
        out.push(if exp < 0 { b'-' } else { b'+' });
        let a = exp.unsigned_abs();
        if a < 10 {
            out.push(b'0');
        }
        out.extend_from_slice(a.to_string().as_bytes());
        return;
    }
    if exp >= 0 {
        let int_len = exp as usize + 1;
        out.extend_from_slice(&digits[..int_len]);
        let frac = &digits[int_len..];
        if let Some(last) = frac.iter().rposition(|&d| d != b'0') {
            out.push(b'.');
            out.extend_from_slice(&frac[..=last]);
        }
    } else {
        out.extend_from_slice(b"0.");
        out.extend(std::iter::repeat_n(b'0', (-exp - 1) as usize));
        let last = digits.iter().rposition(|&d| d != b'0').unwrap_or(0);
        out.extend_from_slice(&digits[..=last]);
    }
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
    // 5.1 works on the C string: an embedded NUL ends it ("12\0abc" is 12).
    let s = &s[..s.iter().position(|&b| b == 0).unwrap_or(s.len())];
    if let Some(x) = parse_short_decimal(s) {
        return Some(x);
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

/// Powers of ten that doubles hold exactly (10^22 is the last).
const EXACT_POWERS_OF_TEN: [f64; 23] =
    [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22];

/// `strtod` of the usual number text without the C library (or a copy to add a NUL): spaces,
/// an optional sign, digits with at most one `.`, spaces; at most 15 digits in all, so the
/// digits form an integer `m` below 2^53 and the value is `m / 10^k` with `k` at most 22
/// fraction digits: both exact doubles, and IEEE division rounds their quotient correctly,
/// which is what `strtod` returns (Clinger's fast path). `None` for anything else (exponents,
/// hex, `inf`, long digit strings), which goes through the C library.
fn parse_short_decimal(s: &[u8]) -> Option<f64> {
    let mut i = 0;
    while i < s.len() && is_lua_space(s[i]) {
        i += 1;
    }
    let negative = match s.get(i) {
        Some(b'-') => {
            i += 1;
            true
        }
        Some(b'+') => {
            i += 1;
            false
        }
        _ => false,
    };
    let (mut mantissa, mut digits, mut fraction) = (0u64, 0usize, None::<usize>);
    while let Some(&c) = s.get(i) {
        match c {
            b'0'..=b'9' => {
                digits += 1;
                if digits > 15 {
                    return None;
                }
                mantissa = mantissa * 10 + u64::from(c - b'0');
                if let Some(f) = fraction.as_mut() {
                    *f += 1;
                }
            }
            b'.' if fraction.is_none() => fraction = Some(0),
            _ => break,
        }
        i += 1;
    }
    if digits == 0 {
        return None;
    }
    while i < s.len() && is_lua_space(s[i]) {
        i += 1;
    }
    if i != s.len() {
        return None;
    }
    let value = mantissa as f64 / EXACT_POWERS_OF_TEN[fraction.unwrap_or(0)];
    Some(if negative { -value } else { value })
}

/// Lua 5.1's `tonumber` for arithmetic (`luaV_tonumber`): numbers, and strings that read as
/// numbers.
#[inline]
pub fn to_number(v: TValue) -> Option<f64> {
    if v.is_double() {
        Some(v.as_f64())
    } else if v.is_string() {
        // SAFETY: a string value points at a live string.
        str_to_number(unsafe { (*v.as_string()).bytes() })
    } else {
        None
    }
}

/// `tostring` without metamethods: the text Lua 5.1 prints for a value.
pub fn tostring_bytes(v: TValue, out: &mut Vec<u8>) {
    if v.is_double() {
        format_number(v.as_f64(), out);
    } else if v.is_string() {
        // SAFETY: a string value points at a live string.
        out.extend_from_slice(unsafe { (*v.as_string()).bytes() });
    } else if v.is_nil() {
        out.extend_from_slice(b"nil");
    } else if v.is_bool() {
        out.extend_from_slice(if v == TValue::TRUE { b"true" } else { b"false" });
    } else {
        out.extend_from_slice(format!("{}: {:p}", type_name(v), v.as_ptr::<u8>()).as_bytes());
    }
}

/// C's `(long)x` on x86-64 (`cvttsd2si`): NaN and out-of-range values become the "integer
/// indefinite" `i64::MIN` (Rust's `as` saturates instead).
#[inline]
pub fn c_long(x: f64) -> i64 {
    if (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&x) {
        x as i64
    } else {
        i64::MIN
    }
}

/// C's `(unsigned long)x` as gcc compiles it for x86-64.
#[inline]
pub fn c_ulong(x: f64) -> u64 {
    const TWO_63: f64 = 9_223_372_036_854_775_808.0;
    // Unordered (NaN) takes the small path too, as gcc's comisd/jnb sequence does.
    if x.partial_cmp(&TWO_63).is_none_or(|o| o.is_lt()) {
        c_long(x) as u64
    } else {
        (c_long(x - TWO_63) as u64) ^ (1 << 63)
    }
}

/// C's `(int)x` (`cvttsd2si` 32-bit).
#[inline]
pub fn c_int(x: f64) -> i32 {
    if (-2_147_483_648.0..2_147_483_648.0).contains(&x) {
        x as i32
    } else {
        i32::MIN
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The digit count agrees with the number's decimal text at every power of ten, one below
    /// and one above, and at the extremes.
    #[test]
    fn decimals_have_their_digits() {
        let mut cases = vec![0u64, 1, 9, u64::MAX, u64::MAX - 1];
        let mut p = 1u64;
        for _ in 0..19 {
            p *= 10;
            cases.extend([p - 1, p, p + 1]);
        }
        for n in cases {
            let mut out = b"x".to_vec();
            push_decimal(n, &mut out);
            assert_eq!(out, format!("x{n}").into_bytes(), "{n}");
        }
    }

    /// A xorshift generator from `seed`: reproducible inputs for the tests that compare with
    /// the C library on many values.
    fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
        move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        }
    }

    #[test]
    fn decimal_digits_at_every_length() {
        let mut cases = vec![0u64, 1, 9, u64::MAX, u64::MAX - 1];
        let mut p = 1u64;
        for _ in 0..19 {
            p *= 10;
            cases.extend([p - 1, p, p + 1, p / 2 * 3]);
        }
        for n in cases {
            let mut out = b"x".to_vec();
            push_decimal(n, &mut out);
            assert_eq!(std::str::from_utf8(&out[1..]).unwrap(), n.to_string(), "{n}");
        }
    }

    #[test]
    fn formats_like_lua() {
        for (x, s) in [
            (1.0, "1"),
            (0.1, "0.1"),
            (1e15, "1e+15"),
            (1e100, "1e+100"),
            (-0.0, "-0"),
            (1.0 / 3.0, "0.33333333333333"),
            (f64::INFINITY, "inf"),
            (-f64::INFINITY, "-inf"),
        ] {
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
    fn short_decimals_parse_as_strtod_does() {
        let strtod_of = |text: &str| {
            let c = std::ffi::CString::new(text).unwrap();
            let mut end: *mut c_char = std::ptr::null_mut();
            let v = unsafe { strtod(c.as_ptr(), &mut end) };
            let used = unsafe { end.offset_from(c.as_ptr()) } as usize;
            let rest = &text.as_bytes()[used..];
            (used > 0 && rest.iter().all(|&b| is_lua_space(b))).then_some(v)
        };
        let mut next = xorshift(0x9E37_79B9_7F4A_7C15u64);
        let mut cases: Vec<String> = [
            "0",
            "-0",
            "+0",
            "1.",
            ".5",
            "-.5",
            ".",
            "-",
            "",
            " 12 ",
            "\t7\n",
            "1.2.3",
            "0x10",
            "1e5",
            "- 5",
            "00012",
            "999999999999999",
            "9999999999999999",
            "0.1",
            "0.30000000000000004",
            "123456.789012345",
            "1.0000000000000000000001",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        for _ in 0..100_000 {
            let r = next();
            let digits = (r % 16) as usize;
            let mut t = String::new();
            if r & 1 << 8 != 0 {
                t.push('-');
            }
            let dot = (r >> 12) as usize % (digits + 2);
            let mut d = next();
            for i in 0..digits {
                if i == dot {
                    t.push('.');
                }
                t.push((b'0' + (d % 10) as u8) as char);
                d /= 10;
                if d == 0 {
                    d = next();
                }
            }
            cases.push(t);
        }
        for text in cases {
            let fast = parse_short_decimal(text.as_bytes());
            if let Some(x) = fast {
                let slow = strtod_of(&text).unwrap_or_else(|| panic!("{text:?}: parsed {x}, strtod refuses it"));
                assert_eq!(x.to_bits(), slow.to_bits(), "{text:?}");
            }
            assert_eq!(str_to_number(text.as_bytes()).map(f64::to_bits), strtod_of(&text).map(f64::to_bits), "{text:?}");
        }
    }

    #[test]
    fn rust_formatting_matches_printf_on_many_doubles() {
        let slow = |x: f64| {
            let mut v = Vec::new();
            printf_g14(x, &mut v);
            v
        };
        let mut next = xorshift(0x2545_F491_4F6C_DD1Du64);
        let check = |x: f64| {
            if !x.is_finite() || x == 0.0 {
                return;
            }
            let mut fast = Vec::new();
            format_g14(x, &mut fast);
            assert_eq!(String::from_utf8_lossy(&fast), String::from_utf8_lossy(&slow(x)), "{x:e}");
        };
        for _ in 0..100_000 {
            check(f64::from_bits(next()));
        }
        for i in 1..50_000u64 {
            let n = (next() % 2_000_000) as f64 - 1_000_000.0;
            for d in [3.0, 4.0, 7.0, 8.0, 10.0, 16.0, 100.0, 1000.0, 1e4, 1e5, 1e7, 0.001] {
                check(n / d);
            }
            check(i as f64 * 0.1);
            check(1.0 / i as f64);
        }
        for x in [
            1e-5,
            1e-4,
            9.99999999999995e-5,
            0.0001,
            123456789012345.0,
            12345678901234.5,
            99999999999999.5,
            1e14,
            5e-324,
            f64::MAX,
            -f64::MIN_POSITIVE,
            0.5,
            2.5,
            1e21,
            1.0 / 3.0,
        ] {
            check(x);
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
        assert_eq!(str_to_number(b"1\x002"), Some(1.0));
        assert_eq!(str_to_number(b"\x0012"), None);
    }
}
