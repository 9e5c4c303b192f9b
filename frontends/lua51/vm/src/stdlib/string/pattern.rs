//! Lua 5.1 patterns (`string.find`, `match`, `gmatch`, `gsub`) and `string.format`.
//!
//! The matcher follows the structure of the reference implementation: single-character classes
//! (`.`, `%a` and friends in the C locale, sets `[...]`), the quantifiers `* + - ?`, anchors,
//! captures (including position captures `()`), back-references `%1`-`%9`, balances `%bxy` and
//! frontiers `%f[set]`. Recursion depth is bounded by the pattern's length, as there.

use std::mem::MaybeUninit;

pub const MAX_CAPTURES: usize = 32;
const CAP_UNFINISHED: isize = -1;
const CAP_POSITION: isize = -2;
const ESC: u8 = b'%';

/// A capture: a range of the subject, or a position (1-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Capture {
    Bytes(usize, usize),
    Position(usize),
}

pub struct Matcher<'a> {
    src: &'a [u8],
    pat: &'a [u8],
    level: usize,
    /// (start, length or `CAP_*`) of captures `0..level`; the rest is never read, so it is
    /// left uninitialised (zeroing it was a `memset` per `find`/`match`/`gsub` call).
    capture: [MaybeUninit<(usize, isize)>; MAX_CAPTURES],
}

type MResult<T> = Result<T, String>;

fn class_matches(c: u8, class: u8) -> bool {
    let r = match class.to_ascii_lowercase() {
        b'a' => c.is_ascii_alphabetic(),
        b'c' => c < 32 || c == 127,
        b'd' => c.is_ascii_digit(),
        b'l' => c.is_ascii_lowercase(),
        b'p' => c.is_ascii_punctuation(),
        b's' => matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c),
        b'u' => c.is_ascii_uppercase(),
        b'w' => c.is_ascii_alphanumeric(),
        b'x' => c.is_ascii_hexdigit(),
        b'z' => c == 0,
        _ => return class == c,
    };
    if class.is_ascii_uppercase() {
        !r
    } else {
        r
    }
}

impl<'a> Matcher<'a> {
    pub fn new(src: &'a [u8], pat: &'a [u8]) -> Self {
        Matcher { src, pat, level: 0, capture: [MaybeUninit::uninit(); MAX_CAPTURES] }
    }

    /// Capture `l` (below `level`: written by `start_capture`).
    fn cap(&self, l: usize) -> (usize, isize) {
        assert!(l < self.level, "capture {l} read at level {}", self.level);
        // SAFETY: every capture below `level` was written when the level rose past it.
        unsafe { self.capture[l].assume_init() }
    }

    fn set_cap_len(&mut self, l: usize, len: isize) {
        let (start, _) = self.cap(l);
        self.capture[l] = MaybeUninit::new((start, len));
    }

    /// The number of captures of the last match: at least one (the whole match).
    pub fn num_captures(&self) -> usize {
        self.level.max(1)
    }

    /// Whether the pattern's last match had captures of its own (`find` returns them then).
    pub fn has_captures(&self) -> bool {
        self.level > 0
    }

    /// The index just past the single-character class at `p`.
    fn class_end(&self, mut p: usize) -> MResult<usize> {
        let c = self.pat[p];
        p += 1;
        if c == ESC {
            if p >= self.pat.len() {
                return Err("malformed pattern (ends with '%')".into());
            }
            return Ok(p + 1);
        }
        if c == b'[' {
            if self.pat.get(p) == Some(&b'^') {
                p += 1;
            }
            loop {
                // Look for a ']' (the first character of the set may be one).
                if p >= self.pat.len() {
                    return Err("malformed pattern (missing ']')".into());
                }
                let cc = self.pat[p];
                p += 1;
                if cc == ESC {
                    if p >= self.pat.len() {
                        return Err("malformed pattern (missing ']')".into());
                    }
                    p += 1;
                }
                if p < self.pat.len() && self.pat[p] == b']' {
                    return Ok(p + 1);
                }
                if p >= self.pat.len() {
                    return Err("malformed pattern (missing ']')".into());
                }
            }
        }
        Ok(p)
    }

    /// Whether `c` is in the set `[...]` spanning `p..ec` (`ec` is at the closing `]`).
    fn match_set(&self, c: u8, mut p: usize, ec: usize) -> bool {
        let mut sig = true;
        if self.pat[p + 1] == b'^' {
            sig = false;
            p += 1;
        }
        p += 1;
        while p < ec {
            if self.pat[p] == ESC {
                p += 1;
                if class_matches(c, self.pat[p]) {
                    return sig;
                }
            } else if p + 2 < ec && self.pat[p + 1] == b'-' {
                if self.pat[p] <= c && c <= self.pat[p + 2] {
                    return sig;
                }
                p += 2;
            } else if self.pat[p] == c {
                return sig;
            }
            p += 1;
        }
        !sig
    }

    fn single_match(&self, s: usize, p: usize, ep: usize) -> bool {
        let Some(&c) = self.src.get(s) else { return false };
        match self.pat[p] {
            b'.' => true,
            ESC => class_matches(c, self.pat[p + 1]),
            b'[' => self.match_set(c, p, ep - 1),
            pc => pc == c,
        }
    }

    fn match_balance(&self, s: usize, p: usize) -> MResult<Option<usize>> {
        if p + 1 >= self.pat.len() {
            return Err("unbalanced pattern".into());
        }
        if self.src.get(s) != Some(&self.pat[p]) {
            return Ok(None);
        }
        let (open, close) = (self.pat[p], self.pat[p + 1]);
        let mut cont = 1;
        let mut i = s + 1;
        while i < self.src.len() {
            let c = self.src[i];
            if c == close {
                cont -= 1;
                if cont == 0 {
                    return Ok(Some(i + 1));
                }
            } else if c == open {
                cont += 1;
            }
            i += 1;
        }
        Ok(None)
    }

    fn max_expand(&mut self, s: usize, p: usize, ep: usize) -> MResult<Option<usize>> {
        let mut i = 0;
        while self.single_match(s + i, p, ep) {
            i += 1;
        }
        loop {
            if let Some(r) = self.do_match(s + i, ep + 1)? {
                return Ok(Some(r));
            }
            if i == 0 {
                return Ok(None);
            }
            i -= 1;
        }
    }

    fn min_expand(&mut self, mut s: usize, p: usize, ep: usize) -> MResult<Option<usize>> {
        loop {
            if let Some(r) = self.do_match(s, ep + 1)? {
                return Ok(Some(r));
            }
            if self.single_match(s, p, ep) {
                s += 1;
            } else {
                return Ok(None);
            }
        }
    }

    fn start_capture(&mut self, s: usize, p: usize, what: isize) -> MResult<Option<usize>> {
        if self.level >= MAX_CAPTURES {
            return Err("too many captures".into());
        }
        self.capture[self.level] = MaybeUninit::new((s, what));
        self.level += 1;
        let r = self.do_match(s, p)?;
        if r.is_none() {
            self.level -= 1;
        }
        Ok(r)
    }

    fn end_capture(&mut self, s: usize, p: usize) -> MResult<Option<usize>> {
        let l = (0..self.level).rev().find(|&l| self.cap(l).1 == CAP_UNFINISHED).ok_or("invalid pattern capture")?;
        self.set_cap_len(l, (s - self.cap(l).0) as isize);
        let r = self.do_match(s, p)?;
        if r.is_none() {
            self.set_cap_len(l, CAP_UNFINISHED);
        }
        Ok(r)
    }

    fn check_capture(&self, l: u8) -> MResult<usize> {
        let l = l.wrapping_sub(b'1') as usize;
        if l >= self.level || self.cap(l).1 == CAP_UNFINISHED {
            return Err("invalid capture index".into());
        }
        Ok(l)
    }

    /// Matches the pattern from `p` against the subject from `s`; the end of the match.
    pub fn do_match(&mut self, mut s: usize, mut p: usize) -> MResult<Option<usize>> {
        loop {
            if p >= self.pat.len() {
                return Ok(Some(s));
            }
            match self.pat[p] {
                b'(' => {
                    return if self.pat.get(p + 1) == Some(&b')') {
                        self.start_capture(s, p + 2, CAP_POSITION)
                    } else {
                        self.start_capture(s, p + 1, CAP_UNFINISHED)
                    };
                }
                b')' => return self.end_capture(s, p + 1),
                b'$' if p + 1 == self.pat.len() => return Ok((s == self.src.len()).then_some(s)),
                ESC if self.pat.get(p + 1) == Some(&b'b') => match self.match_balance(s, p + 2)? {
                    Some(e) => {
                        s = e;
                        p += 4;
                        continue;
                    }
                    None => return Ok(None),
                },
                ESC if self.pat.get(p + 1) == Some(&b'f') => {
                    p += 2;
                    if self.pat.get(p) != Some(&b'[') {
                        return Err("missing '[' after '%f' in pattern".into());
                    }
                    let ep = self.class_end(p)?;
                    let prev = if s == 0 { 0 } else { self.src[s - 1] };
                    let cur = self.src.get(s).copied().unwrap_or(0);
                    if !self.match_set(prev, p, ep - 1) && self.match_set(cur, p, ep - 1) {
                        p = ep;
                        continue;
                    }
                    return Ok(None);
                }
                ESC if self.pat.get(p + 1).is_some_and(u8::is_ascii_digit) => {
                    let l = self.check_capture(self.pat[p + 1])?;
                    let (start, len) = self.cap(l);
                    let len = len as usize;
                    if self.src.len() - s >= len && self.src[start..start + len] == self.src[s..s + len] {
                        s += len;
                        p += 2;
                        continue;
                    }
                    return Ok(None);
                }
                _ => {
                    let ep = self.class_end(p)?;
                    let m = self.single_match(s, p, ep);
                    match self.pat.get(ep) {
                        Some(b'?') => {
                            if m {
                                if let Some(r) = self.do_match(s + 1, ep + 1)? {
                                    return Ok(Some(r));
                                }
                            }
                            p = ep + 1;
                        }
                        Some(b'*') => return self.max_expand(s, p, ep),
                        Some(b'+') => return if m { self.max_expand(s + 1, p, ep) } else { Ok(None) },
                        Some(b'-') => return self.min_expand(s, p, ep),
                        _ => {
                            if !m {
                                return Ok(None);
                            }
                            s += 1;
                            p = ep;
                        }
                    }
                }
            }
        }
    }

    /// Capture `i` of the last match (the whole match `s..e` when there are none).
    pub fn capture(&self, i: usize, s: usize, e: usize) -> MResult<Capture> {
        if i >= self.level {
            if i == 0 {
                return Ok(Capture::Bytes(s, e));
            }
            return Err("invalid capture index".into());
        }
        let (start, len) = self.cap(i);
        match len {
            CAP_UNFINISHED => Err("unfinished capture".into()),
            CAP_POSITION => Ok(Capture::Position(start + 1)),
            _ => Ok(Capture::Bytes(start, start + len as usize)),
        }
    }

    /// Matches the whole pattern at subject position `s` (no anchor handling): the match end.
    pub fn do_match_from(&mut self, s: usize) -> MResult<Option<usize>> {
        self.level = 0;
        self.do_match(s, 0)
    }

    /// Finds the first match at or after `init`: (start, end).
    pub fn find(&mut self, init: usize) -> MResult<Option<(usize, usize)>> {
        let anchored = self.pat.first() == Some(&b'^');
        let p0 = usize::from(anchored);
        let mut s = init;
        loop {
            self.level = 0;
            if let Some(e) = self.do_match(s, p0)? {
                return Ok(Some((s, e)));
            }
            s += 1;
            if anchored || s > self.src.len() {
                return Ok(None);
            }
        }
    }
}

/// Whether a pattern has no special characters (so `find` may search it plainly).
pub fn no_specials(pat: &[u8]) -> bool {
    !pat.iter().any(|c| b"^$*+?.([%-".contains(c))
}

/// `string.format`'s spec after `%`: flags, width, precision, conversion; returns the spec
/// bytes (for snprintf) and the conversion.
pub fn format_spec(fmt: &[u8], mut i: usize) -> Result<(Vec<u8>, u8, usize), String> {
    let start = i;
    while i < fmt.len() && b"-+ #0".contains(&fmt[i]) {
        i += 1;
    }
    if i - start > 5 {
        return Err("invalid format (repeated flags)".into());
    }
    let digits = |i: &mut usize| {
        let s = *i;
        while *i < fmt.len() && fmt[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - s
    };
    if digits(&mut i) > 2 {
        return Err("invalid format (width or precision too long)".into());
    }
    if i < fmt.len() && fmt[i] == b'.' {
        i += 1;
        if digits(&mut i) > 2 {
            return Err("invalid format (width or precision too long)".into());
        }
    }
    let Some(&conv) = fmt.get(i) else {
        return Err("invalid option '%' to 'format'".into());
    };
    let mut spec = vec![b'%'];
    spec.extend_from_slice(&fmt[start..i]);
    Ok((spec, conv, i + 1))
}

/// `%q`: a string as a Lua literal, escaped like 5.1.
pub fn quote(s: &[u8], out: &mut Vec<u8>) {
    out.push(b'"');
    for &c in s {
        match c {
            b'"' | b'\\' | b'\n' => {
                out.push(b'\\');
                out.push(c);
            }
            b'\r' => out.extend_from_slice(b"\\r"),
            0 => out.extend_from_slice(b"\\000"),
            _ => out.push(c),
        }
    }
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn find(s: &str, p: &str) -> Option<(usize, usize)> {
        Matcher::new(s.as_bytes(), p.as_bytes()).find(0).unwrap()
    }

    #[test]
    fn patterns() {
        assert_eq!(find("hello world", "o w"), Some((4, 7)));
        assert_eq!(find("hello", "l+"), Some((2, 4)));
        assert_eq!(find("hello", "^h.-o$"), Some((0, 5)));
        assert_eq!(find("x = 10", "%d+"), Some((4, 6)));
        assert_eq!(find("f(a(b)c)", "%b()"), Some((1, 8)));
        assert_eq!(find("THE (quick) fox", "%f[%a]%a+"), Some((0, 3)));
        assert_eq!(find("abcabc", "(abc)%1"), Some((0, 6)));
        assert_eq!(find("a]b", "[]]"), Some((1, 2)));
        assert_eq!(find("a-b", "[%a-]+"), Some((0, 3)));
        assert_eq!(find("aaa", "b*"), Some((0, 0)));
        assert!(Matcher::new(b"a", b"%").find(0).is_err());
        assert!(Matcher::new(b"a", b"[a").find(0).is_err());
        assert!(Matcher::new(b"a", b"(a").find(0).is_ok());
        assert!(Matcher::new(b"a", b"a)").find(0).is_err());
        // Long subjects with backtracking stay iterative enough to finish.
        let long = "a".repeat(10_000);
        assert_eq!(Matcher::new(long.as_bytes(), b".-b").find(0).unwrap(), None);
    }
}
