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
    /// [`Matcher::next_candidate`]'s leading class, computed at its first call: the pattern
    /// position it was asked for, and the class's byte set when the pattern must begin with one
    /// of its bytes.
    lead: Option<(usize, Option<ByteSet>)>,
}

type MResult<T> = Result<T, String>;

/// The C locale's character classes of every byte, one bit per class letter (`CLASS_LETTERS`), so
/// that testing a class is a table load and a mask: the matcher tests one per subject byte it
/// scans, and a chain of compares per test was most of a `gmatch` loop's time.
const CTYPE: [u16; 256] = {
    let mut t = [0u16; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        let mut bits = 0;
        let mut k = 0;
        while k < CLASS_LETTERS.len() {
            if class_has(CLASS_LETTERS[k], b) {
                bits |= 1 << k;
            }
            k += 1;
        }
        t[c] = bits;
        c += 1;
    }
    t
};

/// The class letters, in the order of their bits in [`CTYPE`].
const CLASS_LETTERS: [u8; 10] = *b"acdlpsuwxz";

/// Whether byte `c` is in class `letter` (lowercase), as C's `ctype.h` says in the C locale.
const fn class_has(letter: u8, c: u8) -> bool {
    match letter {
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
        _ => false,
    }
}

/// For each byte after a `%`: the class bit it tests (0: a literal), and whether the class is
/// negated (an uppercase letter) in bit 15.
const CLASS_OF: [u16; 256] = {
    let mut t = [0u16; 256];
    let mut k = 0;
    while k < CLASS_LETTERS.len() {
        let letter = CLASS_LETTERS[k];
        t[letter as usize] = 1 << k;
        t[letter.to_ascii_uppercase() as usize] = 1 << k | NEGATED;
        k += 1;
    }
    t
};
const NEGATED: u16 = 1 << 15;

/// A set of bytes: what a single-character class matches, computed once where the matcher
/// tests one class against a run of bytes (an expansion, the search for where a match can start).
#[derive(Clone, Copy)]
struct ByteSet([u64; 4]);

impl ByteSet {
    const EMPTY: ByteSet = ByteSet([0; 4]);
    const ALL: ByteSet = ByteSet([u64::MAX; 4]);

    #[inline]
    fn has(&self, c: u8) -> bool {
        self.0[usize::from(c >> 6)] >> (c & 63) & 1 != 0
    }

    fn add(&mut self, c: u8) {
        self.0[usize::from(c >> 6)] |= 1 << (c & 63);
    }

    fn add_all(&mut self, other: ByteSet) {
        for (w, o) in self.0.iter_mut().zip(other.0) {
            *w |= o;
        }
    }

    fn complement(self) -> ByteSet {
        ByteSet(self.0.map(|w| !w))
    }

    /// What `%` followed by `class` matches (a class letter, or the byte itself).
    fn of_escape(class: u8) -> ByteSet {
        let kind = CLASS_OF[usize::from(class)];
        if kind == 0 {
            let mut set = ByteSet::EMPTY;
            set.add(class);
            return set;
        }
        let set = CLASS_SETS[(kind & !NEGATED).trailing_zeros() as usize];
        if kind & NEGATED != 0 {
            set.complement()
        } else {
            set
        }
    }
}

/// The bytes of each class of [`CLASS_LETTERS`].
const CLASS_SETS: [ByteSet; 10] = {
    let mut sets = [ByteSet::EMPTY; 10];
    let mut c = 0;
    while c < 256 {
        let mut k = 0;
        while k < CLASS_LETTERS.len() {
            if CTYPE[c] & 1 << k != 0 {
                sets[k].0[c >> 6] |= 1 << (c & 63);
            }
            k += 1;
        }
        c += 1;
    }
    sets
};

#[inline]
fn class_matches(c: u8, class: u8) -> bool {
    let kind = CLASS_OF[class as usize];
    if kind == 0 {
        return class == c;
    }
    (CTYPE[c as usize] & kind != 0) != (kind & NEGATED != 0)
}

impl<'a> Matcher<'a> {
    pub fn new(src: &'a [u8], pat: &'a [u8]) -> Self {
        Matcher { src, pat, level: 0, capture: [MaybeUninit::uninit(); MAX_CAPTURES], lead: None }
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

    #[inline]
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

    /// The bytes the single-character class at `p..ep` matches (as [`Self::single_match`]
    /// and [`Self::match_set`] decide one byte at a time).
    fn byte_set(&self, p: usize, ep: usize) -> ByteSet {
        match self.pat[p] {
            b'.' => ByteSet::ALL,
            ESC => ByteSet::of_escape(self.pat[p + 1]),
            b'[' => {
                let ec = ep - 1;
                let mut p = p;
                let negated = self.pat[p + 1] == b'^';
                if negated {
                    p += 1;
                }
                p += 1;
                let mut set = ByteSet::EMPTY;
                while p < ec {
                    if self.pat[p] == ESC {
                        p += 1;
                        set.add_all(ByteSet::of_escape(self.pat[p]));
                    } else if p + 2 < ec && self.pat[p + 1] == b'-' {
                        for c in self.pat[p]..=self.pat[p + 2] {
                            set.add(c);
                        }
                        p += 2;
                    } else {
                        set.add(self.pat[p]);
                    }
                    p += 1;
                }
                if negated {
                    set.complement()
                } else {
                    set
                }
            }
            c => {
                let mut set = ByteSet::EMPTY;
                set.add(c);
                set
            }
        }
    }

    fn max_expand(&mut self, s: usize, p: usize, ep: usize) -> MResult<Option<usize>> {
        let set = self.byte_set(p, ep);
        let rest = &self.src[s.min(self.src.len())..];
        let mut i = rest.iter().position(|&c| !set.has(c)).unwrap_or(rest.len());
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

    /// The first position at or after `s` where a match of the pattern (from `p`) can start,
    /// or past the subject's end when there is none: when the pattern begins with a
    /// single-character class that must match once (no `*`, `?` or `-` after it), positions
    /// whose byte is not in it are skipped here, in a tight loop, instead of each running the
    /// matcher (a `%d+` scan of a text tested every byte through `do_match`). Any other
    /// pattern may start anywhere: `s` itself.
    pub fn next_candidate(&mut self, mut s: usize, p: usize) -> usize {
        let set = match self.lead {
            Some((at, set)) if at == p => set,
            _ => {
                // Once per matcher, not per skip (a `gsub` skips after every failed position).
                let set = self.leading_class(p).map(|ep| self.byte_set(p, ep));
                self.lead = Some((p, set));
                set
            }
        };
        let Some(set) = set else { return s };
        while s < self.src.len() && !set.has(self.src[s]) {
            s += 1;
        }
        if s == self.src.len() {
            // The class needs a byte: no match starts at the end.
            s + 1
        } else {
            s
        }
    }

    /// The end of the single-character class at `p` when the pattern must begin with one byte
    /// of it; `None` otherwise (and for a malformed class, which `do_match` reports).
    fn leading_class(&self, p: usize) -> Option<usize> {
        match *self.pat.get(p)? {
            b'(' | b')' => return None,
            b'$' if p + 1 == self.pat.len() => return None,
            ESC if matches!(self.pat.get(p + 1), Some(b'b' | b'f' | b'0'..=b'9')) => return None,
            _ => {}
        }
        let ep = self.class_end(p).ok()?;
        match self.pat.get(ep) {
            Some(b'*' | b'?' | b'-') => None,
            _ => Some(ep),
        }
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
            if anchored {
                return Ok(None);
            }
            // Skipping pays once a position failed: the first one mostly matches (a search
            // for the next token), and testing it twice would cost.
            s = self.next_candidate(s + 1, p0);
            if s > self.src.len() {
                return Ok(None);
            }
        }
    }
}

/// Where `needle` first occurs in `hay` (a plain find): candidates by their first byte, then
/// the rest compared (comparing a window at every position cost a `memcmp` call each).
pub fn find_plain(hay: &[u8], needle: &[u8]) -> Option<usize> {
    let Some((&first, rest)) = needle.split_first() else { return Some(0) };
    let last_start = hay.len().checked_sub(needle.len())?;
    let mut i = 0;
    while i <= last_start {
        i += hay[i..=last_start].iter().position(|&b| b == first)?;
        if &hay[i + 1..i + needle.len()] == rest {
            return Some(i);
        }
        i += 1;
    }
    None
}

/// Whether a pattern has no special characters (so `find` may search it plainly).
pub fn no_specials(pat: &[u8]) -> bool {
    !pat.iter().any(|c| matches!(c, b'^' | b'$' | b'*' | b'+' | b'?' | b'.' | b'(' | b'[' | b'%' | b'-'))
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
    fn plain_find() {
        for (hay, needle) in [
            ("hello", "l"),
            ("hello", "lo"),
            ("hello", "hello"),
            ("hello", "helloo"),
            ("", ""),
            ("abc", ""),
            ("aab", "ab"),
            ("abab", "bab"),
            ("xyz", "q"),
            ("a", "aa"),
        ] {
            let slow = if needle.is_empty() { Some(0) } else { hay.as_bytes().windows(needle.len()).position(|w| w == needle.as_bytes()) };
            assert_eq!(find_plain(hay.as_bytes(), needle.as_bytes()), slow, "{hay:?} {needle:?}");
        }
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

    /// A class's byte set (what expansions and the start-position skip test) holds exactly the
    /// bytes `single_match` accepts, for every byte and every kind of class.
    #[test]
    fn byte_sets_agree_with_single_match() {
        let mut classes: Vec<Vec<u8>> =
            [".", "x", "]", "^", "[]]", "[^]]", "[a-]", "[-a]", "[z-a]", "[%a-z]", "[^%s%d_]", "[%]]", "[%%]", "[a-c-e]", "[^\n]"]
                .iter()
                .map(|c| c.as_bytes().to_vec())
                .collect();
        for b in 0..=255u8 {
            classes.push(vec![b'%', b]);
            classes.push(vec![b'[', b'^', b'%', b, b']']);
        }
        for class in classes {
            let m = Matcher::new(&[], &class);
            let ep = m.class_end(0).unwrap();
            let set = m.byte_set(0, ep);
            for c in 0..=255u8 {
                let subject = [c];
                let one = Matcher::new(&subject, &class);
                assert_eq!(set.has(c), one.single_match(0, 0, ep), "class {:?}, byte {c}", String::from_utf8_lossy(&class));
            }
        }
    }

    /// Skipping to where a match can start finds what trying every position finds.
    #[test]
    fn skipping_to_candidates_finds_the_same_matches() {
        let subject = "  x1 = {abc, 42}; -- [[note]]\n\tend 7e3 ^$ %d";
        for pat in ["%d+", "%a+", "[^ ]+", "=", "%s*x", "x?1", "[%]]+", "%p", "%s%-", "7e%d", "%$", "a.-c", "(%d)(%d)", "%f[%w]%w+", "$", "[%d]*"] {
            let mut m = Matcher::new(subject.as_bytes(), pat.as_bytes());
            let mut all = Vec::new();
            let mut s = 0;
            while let Some((a, e)) = m.find(s).unwrap() {
                all.push((a, e));
                s = a + 1;
                if s > subject.len() {
                    break;
                }
            }
            let mut slow = Vec::new();
            for start in 0..=subject.len() {
                if let Some(e) = Matcher::new(subject.as_bytes(), pat.as_bytes()).do_match_from(start).unwrap() {
                    slow.push((start, e));
                }
            }
            assert_eq!(all, slow, "pattern {pat:?}");
        }
    }
}
