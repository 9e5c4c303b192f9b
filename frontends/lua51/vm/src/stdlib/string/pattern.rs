//! Lua 5.1 patterns (`string.find`, `match`, `gmatch`, `gsub`) and `string.format`.
//!
//! The matcher follows the structure of the reference implementation: single-character classes
//! (`.`, `%a` and friends in the C locale, sets `[...]`), the quantifiers `* + - ?`, anchors,
//! captures (including position captures `()`), back-references `%1`-`%9`, balances `%bxy` and
//! frontiers `%f[set]`. Recursion depth is bounded by the pattern's length, as there.

use std::mem::MaybeUninit;
use std::rc::Rc;

use crate::object::string::same_bytes;

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

/// A set of bytes: what a single-character class matches, computed when the pattern is compiled.
#[derive(Clone, Copy, PartialEq, Eq)]
struct ByteSet([u64; 4]);

impl std::fmt::Debug for ByteSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ByteSet({:016x}{:016x}{:016x}{:016x})", self.0[3], self.0[2], self.0[1], self.0[0])
    }
}

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

/// Whether `c` is in the class `%class` (a class letter, or the byte itself), the reference
/// implementation's `match_class`: what [`ByteSet::of_escape`] precomputes.
#[cfg(test)]
fn class_matches(c: u8, class: u8) -> bool {
    let kind = CLASS_OF[class as usize];
    if kind == 0 {
        return class == c;
    }
    (CTYPE[c as usize] & kind != 0) != (kind & NEGATED != 0)
}

/// The index just past the single-character class at `p` (a byte, `%x`, or a set `[...]`).
fn class_end(pat: &[u8], mut p: usize) -> Result<usize, &'static str> {
    let c = pat[p];
    p += 1;
    if c == ESC {
        if p >= pat.len() {
            return Err("malformed pattern (ends with '%')");
        }
        return Ok(p + 1);
    }
    if c == b'[' {
        if pat.get(p) == Some(&b'^') {
            p += 1;
        }
        loop {
            // Look for a ']' (the first character of the set may be one).
            if p >= pat.len() {
                return Err("malformed pattern (missing ']')");
            }
            let cc = pat[p];
            p += 1;
            if cc == ESC {
                if p >= pat.len() {
                    return Err("malformed pattern (missing ']')");
                }
                p += 1;
            }
            if p < pat.len() && pat[p] == b']' {
                return Ok(p + 1);
            }
            if p >= pat.len() {
                return Err("malformed pattern (missing ']')");
            }
        }
    }
    Ok(p)
}

/// The bytes the single-character class at `p..ep` matches: the reference implementation's
/// `singlematch` and `matchbracketclass`, decided for all 256 bytes at once.
fn byte_set(pat: &[u8], p: usize, ep: usize) -> ByteSet {
    match pat[p] {
        b'.' => ByteSet::ALL,
        ESC => ByteSet::of_escape(pat[p + 1]),
        b'[' => {
            let ec = ep - 1;
            let mut p = p;
            let negated = pat[p + 1] == b'^';
            if negated {
                p += 1;
            }
            p += 1;
            let mut set = ByteSet::EMPTY;
            while p < ec {
                if pat[p] == ESC {
                    p += 1;
                    set.add_all(ByteSet::of_escape(pat[p]));
                } else if p + 2 < ec && pat[p + 1] == b'-' {
                    for c in pat[p]..=pat[p + 2] {
                        set.add(c);
                    }
                    p += 2;
                } else {
                    set.add(pat[p]);
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

/// How often a single-character class repeats: once, or after `?`, `*`, `+`, `-`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Repeat {
    Once,
    Optional,
    Greedy,
    GreedyAtLeastOnce,
    Lazy,
}

/// One element of a compiled pattern.
#[derive(Clone, Debug)]
enum Item {
    Class(ByteSet, Repeat),
    /// `(`.
    OpenCapture,
    /// `()`.
    PositionCapture,
    /// `)`.
    CloseCapture,
    /// `$` as the pattern's last byte.
    EndAnchor,
    /// `%bxy`.
    Balance(u8, u8),
    /// `%f[set]`.
    Frontier(ByteSet),
    /// `%1`-`%9` (the digit; `%0` too, which is always an invalid index).
    BackReference(u8),
    /// The pattern is malformed from here on. 5.1 reports a malformed part only when a match
    /// reaches it (`string.find("abc", "x[")` is nil, not an error), and so does this item.
    Malformed(&'static str),
}

/// A pattern parsed once into its items, each class's byte set computed: the reference
/// implementation re-parses the pattern at every subject position it tries (finding a class's
/// end, walking a set's ranges byte by byte), which was most of the time of a `find` that
/// matched at once. Anchors (`^`) are the caller's: what 5.1 treats as one depends on the
/// function (`gmatch` does not).
#[derive(Debug)]
pub struct Program {
    items: Box<[Item]>,
    /// The class a match must begin with (the first item, when it must match at least once):
    /// positions whose byte is not in it are skipped without running the matcher.
    lead: Option<ByteSet>,
}

impl Program {
    pub fn compile(pat: &[u8]) -> Program {
        let mut items = Vec::new();
        let mut p = 0;
        while p < pat.len() {
            let item = match pat[p] {
                b'(' if pat.get(p + 1) == Some(&b')') => {
                    p += 2;
                    Item::PositionCapture
                }
                b'(' => {
                    p += 1;
                    Item::OpenCapture
                }
                b')' => {
                    p += 1;
                    Item::CloseCapture
                }
                b'$' if p + 1 == pat.len() => {
                    p += 1;
                    Item::EndAnchor
                }
                ESC if pat.get(p + 1) == Some(&b'b') => {
                    if p + 3 >= pat.len() {
                        items.push(Item::Malformed("unbalanced pattern"));
                        break;
                    }
                    p += 4;
                    Item::Balance(pat[p - 2], pat[p - 1])
                }
                ESC if pat.get(p + 1) == Some(&b'f') => {
                    p += 2;
                    if pat.get(p) != Some(&b'[') {
                        items.push(Item::Malformed("missing '[' after '%f' in pattern"));
                        break;
                    }
                    match class_end(pat, p) {
                        Ok(ep) => {
                            let set = byte_set(pat, p, ep);
                            p = ep;
                            Item::Frontier(set)
                        }
                        Err(msg) => {
                            items.push(Item::Malformed(msg));
                            break;
                        }
                    }
                }
                ESC if pat.get(p + 1).is_some_and(u8::is_ascii_digit) => {
                    p += 2;
                    Item::BackReference(pat[p - 1])
                }
                _ => {
                    let ep = match class_end(pat, p) {
                        Ok(ep) => ep,
                        Err(msg) => {
                            items.push(Item::Malformed(msg));
                            break;
                        }
                    };
                    let set = byte_set(pat, p, ep);
                    let repeat = match pat.get(ep) {
                        Some(b'?') => Repeat::Optional,
                        Some(b'*') => Repeat::Greedy,
                        Some(b'+') => Repeat::GreedyAtLeastOnce,
                        Some(b'-') => Repeat::Lazy,
                        _ => Repeat::Once,
                    };
                    p = if repeat == Repeat::Once { ep } else { ep + 1 };
                    Item::Class(set, repeat)
                }
            };
            items.push(item);
        }
        let lead = match items.first() {
            Some(&Item::Class(set, Repeat::Once | Repeat::GreedyAtLeastOnce)) => Some(set),
            _ => None,
        };
        Program { items: items.into_boxed_slice(), lead }
    }
}

/// The last few patterns compiled, by their bytes (a program depends on nothing else). Lua
/// programs use a handful of patterns over and over (a tokenizer's `find` per token), so a
/// small cache answers almost every call; a program is shared (`Rc`), so a pattern function
/// that calls Lua (a `gsub` replacement function) keeps its own while the callee's evict it.
#[derive(Default)]
pub struct ProgramCache {
    entries: [Option<CachedProgram>; PROGRAM_CACHE_ENTRIES],
    /// The entry the next miss replaces (round robin).
    next: usize,
}

/// A pattern's bytes and its program.
type CachedProgram = (Box<[u8]>, Rc<Program>);

const PROGRAM_CACHE_ENTRIES: usize = 8;
/// Longer patterns are compiled per call (and not kept: the cache stays small).
const PROGRAM_CACHE_MAX_PATTERN: usize = 128;

thread_local! {
    /// The thread's cache. Not the state's: a program is a function of the pattern's bytes
    /// alone, so states on one thread may share it, and the state (layer 2) does not depend on
    /// the libraries.
    static PROGRAMS: std::cell::RefCell<ProgramCache> = std::cell::RefCell::new(ProgramCache::default());
}

/// The compiled `pattern`, from the thread's cache.
pub fn program(pat: &[u8]) -> Rc<Program> {
    PROGRAMS.with(|cache| cache.borrow_mut().get(pat))
}

impl ProgramCache {
    pub fn get(&mut self, pat: &[u8]) -> Rc<Program> {
        if pat.len() > PROGRAM_CACHE_MAX_PATTERN {
            return Rc::new(Program::compile(pat));
        }
        for (key, program) in self.entries.iter().flatten() {
            if same_bytes(key, pat) {
                return program.clone();
            }
        }
        let program = Rc::new(Program::compile(pat));
        self.entries[self.next] = Some((pat.into(), program.clone()));
        self.next = (self.next + 1) % PROGRAM_CACHE_ENTRIES;
        program
    }
}

impl std::fmt::Debug for ProgramCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProgramCache").field("entries", &self.entries.iter().flatten().count()).finish()
    }
}

pub struct Matcher<'a> {
    src: &'a [u8],
    items: &'a [Item],
    lead: Option<ByteSet>,
    level: usize,
    /// (start, length or `CAP_*`) of captures `0..level`; the rest is never read, so it is
    /// left uninitialised (zeroing it was a `memset` per `find`/`match`/`gsub` call).
    capture: [MaybeUninit<(usize, isize)>; MAX_CAPTURES],
}

impl<'a> Matcher<'a> {
    pub fn new(src: &'a [u8], program: &'a Program) -> Self {
        Matcher { src, items: &program.items, lead: program.lead, level: 0, capture: [MaybeUninit::uninit(); MAX_CAPTURES] }
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

    #[inline]
    fn single_match(&self, s: usize, set: &ByteSet) -> bool {
        self.src.get(s).is_some_and(|&c| set.has(c))
    }

    fn match_balance(&self, s: usize, open: u8, close: u8) -> Option<usize> {
        if self.src.get(s) != Some(&open) {
            return None;
        }
        let mut cont = 1;
        let mut i = s + 1;
        while i < self.src.len() {
            let c = self.src[i];
            if c == close {
                cont -= 1;
                if cont == 0 {
                    return Some(i + 1);
                }
            } else if c == open {
                cont += 1;
            }
            i += 1;
        }
        None
    }

    /// `set` repeated as often as it matches from `s`, then the rest of the pattern (from item
    /// `next`), backing off one byte at a time.
    fn max_expand(&mut self, s: usize, set: &ByteSet, next: usize) -> MResult<Option<usize>> {
        let rest = &self.src[s.min(self.src.len())..];
        let mut i = rest.iter().position(|&c| !set.has(c)).unwrap_or(rest.len());
        if next == self.items.len() {
            // Nothing follows: the longest run is the match.
            return Ok(Some(s + i));
        }
        loop {
            if let Some(r) = self.do_match(s + i, next)? {
                return Ok(Some(r));
            }
            if i == 0 {
                return Ok(None);
            }
            i -= 1;
        }
    }

    fn min_expand(&mut self, mut s: usize, set: &ByteSet, next: usize) -> MResult<Option<usize>> {
        loop {
            if let Some(r) = self.do_match(s, next)? {
                return Ok(Some(r));
            }
            if self.single_match(s, set) {
                s += 1;
            } else {
                return Ok(None);
            }
        }
    }

    fn start_capture(&mut self, s: usize, next: usize, what: isize) -> MResult<Option<usize>> {
        if self.level >= MAX_CAPTURES {
            return Err("too many captures".into());
        }
        self.capture[self.level] = MaybeUninit::new((s, what));
        self.level += 1;
        let r = self.do_match(s, next)?;
        if r.is_none() {
            self.level -= 1;
        }
        Ok(r)
    }

    fn end_capture(&mut self, s: usize, next: usize) -> MResult<Option<usize>> {
        let l = (0..self.level).rev().find(|&l| self.cap(l).1 == CAP_UNFINISHED).ok_or("invalid pattern capture")?;
        self.set_cap_len(l, (s - self.cap(l).0) as isize);
        let r = self.do_match(s, next)?;
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

    /// Matches the pattern from item `i` against the subject from `s`; the end of the match.
    pub fn do_match(&mut self, mut s: usize, mut i: usize) -> MResult<Option<usize>> {
        let items = self.items;
        loop {
            let Some(item) = items.get(i) else { return Ok(Some(s)) };
            match item {
                Item::Class(set, repeat) => {
                    let m = self.single_match(s, set);
                    match repeat {
                        Repeat::Once => {
                            if !m {
                                return Ok(None);
                            }
                            s += 1;
                            i += 1;
                        }
                        Repeat::Optional => {
                            if m {
                                if let Some(r) = self.do_match(s + 1, i + 1)? {
                                    return Ok(Some(r));
                                }
                            }
                            i += 1;
                        }
                        Repeat::Greedy => return self.max_expand(s, set, i + 1),
                        Repeat::GreedyAtLeastOnce => return if m { self.max_expand(s + 1, set, i + 1) } else { Ok(None) },
                        Repeat::Lazy => return self.min_expand(s, set, i + 1),
                    }
                }
                Item::OpenCapture => return self.start_capture(s, i + 1, CAP_UNFINISHED),
                Item::PositionCapture => return self.start_capture(s, i + 1, CAP_POSITION),
                Item::CloseCapture => return self.end_capture(s, i + 1),
                Item::EndAnchor => return Ok((s == self.src.len()).then_some(s)),
                &Item::Balance(open, close) => match self.match_balance(s, open, close) {
                    Some(e) => {
                        s = e;
                        i += 1;
                    }
                    None => return Ok(None),
                },
                Item::Frontier(set) => {
                    let prev = if s == 0 { 0 } else { self.src[s - 1] };
                    let cur = self.src.get(s).copied().unwrap_or(0);
                    if set.has(prev) || !set.has(cur) {
                        return Ok(None);
                    }
                    i += 1;
                }
                &Item::BackReference(digit) => {
                    let l = self.check_capture(digit)?;
                    let (start, len) = self.cap(l);
                    let len = len as usize;
                    if self.src.len() - s >= len && self.src[start..start + len] == self.src[s..s + len] {
                        s += len;
                        i += 1;
                        continue;
                    }
                    return Ok(None);
                }
                Item::Malformed(msg) => return Err((*msg).into()),
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

    /// The first position at or after `s` where a match of the pattern can start, or past the
    /// subject's end when there is none: when the pattern begins with a single-character class
    /// that must match once (no `*`, `?` or `-` after it), positions whose byte is not in it
    /// are skipped here, in a tight loop, instead of each running the matcher (a `%d+` scan of
    /// a text tested every byte through `do_match`). Any other pattern may start anywhere: `s`
    /// itself.
    pub fn next_candidate(&self, mut s: usize) -> usize {
        let Some(set) = &self.lead else { return s };
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

    /// Finds the first match at or after `init` (only there when `anchored`): (start, end).
    pub fn find(&mut self, init: usize, anchored: bool) -> MResult<Option<(usize, usize)>> {
        let mut s = init;
        loop {
            if let Some(e) = self.do_match_from(s)? {
                return Ok(Some((s, e)));
            }
            if anchored {
                return Ok(None);
            }
            // Skipping pays once a position failed: the first one mostly matches (a search
            // for the next token), and testing it twice would cost.
            s = self.next_candidate(s + 1);
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

/// A conversion spec for `snprintf`, in place (a `Vec` was an allocation per conversion):
/// `%`, at most 5 flags, 2 digits of width and `.` with 2 of precision, then what the caller
/// adds (a length modifier, the conversion, the NUL).
#[derive(Debug, Clone, Copy)]
pub struct FormatSpec {
    bytes: [u8; 16],
    len: usize,
}

impl FormatSpec {
    fn new() -> Self {
        FormatSpec { bytes: [0; 16], len: 0 }
    }
    pub fn as_slice(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
    pub fn as_ptr(&self) -> *const u8 {
        self.bytes.as_ptr()
    }
    /// Appends bytes; a spec `format_spec` accepted has room for the 3 a caller adds.
    pub fn extend_from_slice(&mut self, more: &[u8]) {
        self.bytes[self.len..self.len + more.len()].copy_from_slice(more);
        self.len += more.len();
    }
    pub fn push(&mut self, byte: u8) {
        self.extend_from_slice(&[byte]);
    }
}

/// `string.format`'s spec after `%`: flags, width, precision, conversion; returns the spec
/// bytes (for snprintf) and the conversion.
pub fn format_spec(fmt: &[u8], mut i: usize) -> Result<(FormatSpec, u8, usize), String> {
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
    let mut spec = FormatSpec::new();
    spec.push(b'%');
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

    /// `string.find`'s search: a leading `^` anchors.
    fn try_find(s: &[u8], p: &[u8]) -> MResult<Option<(usize, usize)>> {
        let anchored = p.first() == Some(&b'^');
        let program = Program::compile(&p[usize::from(anchored)..]);
        Matcher::new(s, &program).find(0, anchored)
    }

    fn find(s: &str, p: &str) -> Option<(usize, usize)> {
        try_find(s.as_bytes(), p.as_bytes()).unwrap()
    }

    /// 5.1's `matchbracketclass`: whether `c` is in the set `[...]` at `p..=ec` (`ec` at `]`).
    fn reference_match_set(pat: &[u8], c: u8, mut p: usize, ec: usize) -> bool {
        let mut sig = true;
        if pat[p + 1] == b'^' {
            sig = false;
            p += 1;
        }
        p += 1;
        while p < ec {
            if pat[p] == ESC {
                p += 1;
                if class_matches(c, pat[p]) {
                    return sig;
                }
            } else if p + 2 < ec && pat[p + 1] == b'-' {
                if pat[p] <= c && c <= pat[p + 2] {
                    return sig;
                }
                p += 2;
            } else if pat[p] == c {
                return sig;
            }
            p += 1;
        }
        !sig
    }

    /// 5.1's `singlematch`, one byte at a time.
    fn reference_single_match(pat: &[u8], c: u8, p: usize, ep: usize) -> bool {
        match pat[p] {
            b'.' => true,
            ESC => class_matches(c, pat[p + 1]),
            b'[' => reference_match_set(pat, c, p, ep - 1),
            pc => pc == c,
        }
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
        assert!(try_find(b"a", b"%").is_err());
        assert!(try_find(b"a", b"[a").is_err());
        assert!(try_find(b"a", b"(a").is_ok());
        assert!(try_find(b"a", b"a)").is_err());
        // Long subjects with backtracking stay iterative enough to finish.
        let long = "a".repeat(10_000);
        assert_eq!(try_find(long.as_bytes(), b".-b").unwrap(), None);
    }

    /// A malformed part of a pattern is an error only when a match reaches it, as in 5.1.
    #[test]
    fn malformed_parts_are_reported_when_reached() {
        assert_eq!(try_find(b"abc", b"x["), Ok(None));
        assert_eq!(try_find(b"abc", b"x%"), Ok(None));
        assert_eq!(try_find(b"abc", b"x%b("), Ok(None));
        assert_eq!(try_find(b"abc", b"x%fa"), Ok(None));
        assert_eq!(try_find(b"abc", b"a["), Err("malformed pattern (missing ']')".into()));
        assert_eq!(try_find(b"abc", b"a%"), Err("malformed pattern (ends with '%')".into()));
        assert_eq!(try_find(b"abc", b"a%b("), Err("unbalanced pattern".into()));
        assert_eq!(try_find(b"abc", b"a%fa"), Err("missing '[' after '%f' in pattern".into()));
        assert_eq!(try_find(b"abc", b"a%f[a"), Err("malformed pattern (missing ']')".into()));
        assert_eq!(try_find(b"abc", b"%1"), Err("invalid capture index".into()));
    }

    /// A cached program is the one compiled for the same bytes, and the cache stays bounded.
    #[test]
    fn program_cache_keys_by_bytes() {
        let mut cache = ProgramCache::default();
        let a = cache.get(b"%d+");
        assert!(Rc::ptr_eq(&a, &cache.get(b"%d+")));
        assert!(!Rc::ptr_eq(&a, &cache.get(b"%d*")));
        for i in 0..3 * PROGRAM_CACHE_ENTRIES {
            let pat = format!("x{i}");
            let p = cache.get(pat.as_bytes());
            assert_eq!(Matcher::new(pat.as_bytes(), &p).find(0, true), Ok(Some((0, pat.len()))));
        }
        assert_eq!(cache.entries.iter().flatten().count(), PROGRAM_CACHE_ENTRIES);
        // Evicted, `a` is still a whole program.
        assert_eq!(Matcher::new(b"x12", &a).find(0, false), Ok(Some((1, 3))));
        let long = "a".repeat(PROGRAM_CACHE_MAX_PATTERN + 1);
        assert!(!Rc::ptr_eq(&cache.get(long.as_bytes()), &cache.get(long.as_bytes())));
    }

    /// A class's compiled byte set holds exactly the bytes 5.1's `singlematch` accepts, for every
    /// byte and every kind of class.
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
            let ep = class_end(&class, 0).unwrap();
            let set = byte_set(&class, 0, ep);
            for c in 0..=255u8 {
                assert_eq!(set.has(c), reference_single_match(&class, c, 0, ep), "class {:?}, byte {c}", String::from_utf8_lossy(&class));
            }
        }
    }

    /// Skipping to where a match can start finds what trying every position finds.
    #[test]
    fn skipping_to_candidates_finds_the_same_matches() {
        let subject = "  x1 = {abc, 42}; -- [[note]]\n\tend 7e3 ^$ %d";
        for pat in ["%d+", "%a+", "[^ ]+", "=", "%s*x", "x?1", "[%]]+", "%p", "%s%-", "7e%d", "%$", "a.-c", "(%d)(%d)", "%f[%w]%w+", "$", "[%d]*"] {
            let program = Program::compile(pat.as_bytes());
            let mut m = Matcher::new(subject.as_bytes(), &program);
            let mut all = Vec::new();
            let mut s = 0;
            while let Some((a, e)) = m.find(s, false).unwrap() {
                all.push((a, e));
                s = a + 1;
                if s > subject.len() {
                    break;
                }
            }
            let mut slow = Vec::new();
            for start in 0..=subject.len() {
                if let Some(e) = Matcher::new(subject.as_bytes(), &program).do_match_from(start).unwrap() {
                    slow.push((start, e));
                }
            }
            assert_eq!(all, slow, "pattern {pat:?}");
        }
    }
}
