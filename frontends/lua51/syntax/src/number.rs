//! Numeral conversion with lua5.1's rules (`luaO_str2d` on top of glibc `strtod`).
//!
//! lua5.1's lexer first collects a numeral token loosely (digits and dots, an
//! optional exponent marker and sign, then any letters, digits and `_`), and
//! only then converts it: the token is valid when `strtod` consumes all of it.
//! glibc's `strtod` accepts decimal numerals and C99 hexadecimal ones
//! (`0x1F`, `0xAp4`), so those are exactly the valid tokens. (lua5.1 then
//! retries hexadecimal integers with `strtoul`, but that can never succeed
//! where glibc's `strtod` failed, so it is not reproduced.)

/// Converts a numeral token, or returns `None` when lua5.1 reports it as a
/// `malformed number`. The token is a C string to lua5.1, so it ends at its
/// first NUL byte (the lexer can put one there, see `Lexer::check_next`).
pub fn str2d(token: &[u8]) -> Option<f64> {
    let s = match token.iter().position(|&b| b == 0) {
        Some(nul) => &token[..nul],
        None => token,
    };
    let (value, consumed) = strtod(s)?;
    // Trailing whitespace is allowed by luaO_str2d; it can only be absent from
    // a lexer token, but keep the rule for fidelity.
    if s[consumed..].iter().all(|&c| is_c_space(c)) {
        Some(value)
    } else {
        None
    }
}

fn is_c_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// glibc `strtod` in the "C" locale, for strings that start like a numeral
/// (no leading blanks, sign, `inf` or `nan` are possible in a token).
/// Returns the value and how many bytes were consumed, or `None` when no
/// conversion could be performed.
fn strtod(s: &[u8]) -> Option<(f64, usize)> {
    if s.len() >= 2 && s[0] == b'0' && (s[1] | 0x20) == b'x' {
        if let Some(r) = strtod_hex(s) {
            return Some(r);
        }
        // "0x" without hex digits: only the "0" is a number.
        return Some((0.0, 1));
    }
    let digits = |from: usize| s[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    let mut i = digits(0);
    let int_digits = i;
    let mut frac_digits = 0;
    if s.get(i) == Some(&b'.') {
        frac_digits = digits(i + 1);
        i += 1 + frac_digits;
    }
    if int_digits + frac_digits == 0 {
        return None;
    }
    if matches!(s.get(i), Some(b'e' | b'E')) {
        let mut j = i + 1;
        if matches!(s.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        let exp_digits = digits(j);
        if exp_digits > 0 {
            i = j + exp_digits;
        }
    }
    // The consumed prefix is in a syntax Rust's parser accepts (it allows
    // "1.", ".5" and arbitrarily long exponents) and rounds correctly, as
    // glibc does.
    let text = std::str::from_utf8(&s[..i]).ok()?;
    Some((text.parse::<f64>().ok()?, i))
}

/// The hexadecimal branch of `strtod`: `0x` hexdigits [`.` hexdigits]
/// [`p` [sign] digits], correctly rounded to nearest-even. `None` if there is
/// no hex digit after `0x`.
fn strtod_hex(s: &[u8]) -> Option<(f64, usize)> {
    let mut i = 2;
    // Significant bits, kept in a u64 with a sticky flag for the digits that
    // no longer fit, plus a binary exponent adjustment.
    let mut mant: u64 = 0;
    let mut sticky = false;
    let mut exp: i64 = 0;
    let mut any_digit = false;
    let mut seen_dot = false;
    while i < s.len() {
        let c = s[i];
        if c == b'.' && !seen_dot {
            seen_dot = true;
            i += 1;
            continue;
        }
        let Some(d) = (c as char).to_digit(16) else {
            break;
        };
        any_digit = true;
        if mant >> 60 == 0 {
            mant = (mant << 4) | u64::from(d);
            if seen_dot {
                exp -= 4;
            }
        } else {
            sticky |= d != 0;
            if !seen_dot {
                exp += 4;
            }
        }
        i += 1;
    }
    if !any_digit {
        return None;
    }
    if matches!(s.get(i), Some(b'p' | b'P')) {
        let mut j = i + 1;
        let neg = match s.get(j) {
            Some(b'-') => {
                j += 1;
                true
            }
            Some(b'+') => {
                j += 1;
                false
            }
            _ => false,
        };
        let start = j;
        let mut e: i64 = 0;
        while let Some(c) = s.get(j).filter(|c| c.is_ascii_digit()) {
            e = (e * 10 + i64::from(c - b'0')).min(1 << 40);
            j += 1;
        }
        if j > start {
            exp += if neg { -e } else { e };
            i = j;
        }
    }
    Some((compose(mant, sticky, exp), i))
}

/// `(mant + sticky·ε) · 2^exp` rounded to the nearest f64, ties to even.
fn compose(mant: u64, sticky: bool, exp: i64) -> f64 {
    if mant == 0 {
        return 0.0;
    }
    // Value = mant · 2^exp with mant's top bit at position `top`.
    let top = 63 - i64::from(mant.leading_zeros());
    let msb_exp = top + exp; // exponent of the leading bit
    if msb_exp > 1023 {
        return f64::INFINITY;
    }
    // Number of significant bits the result can hold: 53 for normal numbers,
    // fewer for subnormals (whose lowest bit is 2^-1074).
    let keep = if msb_exp >= -1022 { 53 } else { 53 - (-1022 - msb_exp) };
    if keep <= 0 {
        // Below half of the smallest subnormal, or exactly half (ties to even 0),
        // except when it is above half.
        if keep == 0 {
            // value in [2^-1075, 2^-1074): rounds up unless exactly 2^-1075
            let exactly_half = mant.is_power_of_two() && !sticky;
            return if exactly_half { 0.0 } else { f64::from_bits(1) };
        }
        return 0.0;
    }
    let keep = keep as u32;
    let bits = top as u32 + 1;
    let (mut m, mut e) = if bits > keep {
        let shift = bits - keep;
        let rest = mant & ((1u64 << shift) - 1);
        let half = 1u64 << (shift - 1);
        let mut m = mant >> shift;
        let above = rest > half || (rest == half && (sticky || m & 1 == 1));
        if above {
            m += 1;
        }
        (m, exp + i64::from(shift))
    } else {
        (mant, exp)
    };
    // Rounding may carry into a new bit.
    if m >> keep != 0 && keep == 53 {
        m >>= 1;
        e += 1;
    }
    // m · 2^e is exact in f64 now; build it by scaling in safe steps.
    let mut v = m as f64;
    while e > 0 {
        let step = e.min(1000);
        v *= 2f64.powi(step as i32);
        e -= step;
    }
    while e < 0 {
        let step = (-e).min(1000);
        v /= 2f64.powi(step as i32);
        e += step;
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal() {
        assert_eq!(str2d(b"3"), Some(3.0));
        assert_eq!(str2d(b"3.5"), Some(3.5));
        assert_eq!(str2d(b".5"), Some(0.5));
        assert_eq!(str2d(b"5."), Some(5.0));
        assert_eq!(str2d(b"3e2"), Some(300.0));
        assert_eq!(str2d(b"3E+2"), Some(300.0));
        assert_eq!(str2d(b"3e-2"), Some(0.03));
        assert_eq!(str2d(b"08"), Some(8.0));
        assert_eq!(str2d(b"1e309"), Some(f64::INFINITY));
        assert_eq!(str2d(b"1e-400"), Some(0.0));
        assert_eq!(str2d(b"2.5e-324"), Some(f64::from_bits(1)));
        assert_eq!(str2d(b"1e0000000000000000000000001"), Some(10.0));
        assert_eq!(str2d(b"1\0\0"), Some(1.0));
    }

    #[test]
    fn malformed() {
        for t in [&b"3x"[..], b"1e", b"1e+", b"0x", b"1..2", b"1.5e5e5", b"1_000", b"0xg", b"00x10", b"0x10x", b"0x1p", b"0x1P", b"1.2.3"] {
            assert_eq!(str2d(t), None, "{}", String::from_utf8_lossy(t));
        }
    }

    #[test]
    fn hex() {
        assert_eq!(str2d(b"0x10"), Some(16.0));
        assert_eq!(str2d(b"0XAB"), Some(171.0));
        assert_eq!(str2d(b"0x1e"), Some(30.0));
        assert_eq!(str2d(b"0x1p4"), Some(16.0));
        assert_eq!(str2d(b"0x1P4"), Some(16.0));
        assert_eq!(str2d(b"0xfp0"), Some(15.0));
        assert_eq!(str2d(b"0x0"), Some(0.0));
        assert_eq!(str2d(b"0x1p1023"), Some(2f64.powi(1023)));
        assert_eq!(str2d(b"0x1p1024"), Some(f64::INFINITY));
        assert_eq!(str2d(b"0x00000000000000000000000001"), Some(1.0));
        // Rounding at 53 bits, ties to even.
        assert_eq!(str2d(b"0x1fffffffffffff"), Some(9007199254740991.0));
        assert_eq!(str2d(b"0x20000000000001"), Some(9007199254740992.0));
        assert_eq!(str2d(b"0x20000000000003"), Some(9007199254740996.0));
        assert_eq!(str2d(b"0x3fffffffffffff"), Some(18014398509481984.0));
        assert_eq!(str2d(b"0xffffffffffffffffffff"), Some(2f64.powi(80)));
        assert_eq!(str2d(b"0x100000000000000000001"), Some(2f64.powi(80)));
        assert_eq!(str2d(b"0x123456789abcdef0123"), Some(5.373003642731685e21));
        // Subnormals (reachable through strtod internals only; exponent signs
        // cannot be part of a lua5.1 token).
        assert_eq!(strtod_hex(b"0x1p-1074").map(|r| r.0), Some(f64::from_bits(1)));
        assert_eq!(strtod_hex(b"0x1p-1075").map(|r| r.0), Some(0.0));
        assert_eq!(strtod_hex(b"0x3p-1076").map(|r| r.0), Some(f64::from_bits(1)));
        assert_eq!(strtod_hex(b"0x1.8p1").map(|r| r.0), Some(3.0));
    }
}
