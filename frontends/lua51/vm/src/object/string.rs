//! Strings: the set of interned strings (every Lua string is interned, so equal strings are one
//! object and compare by address), the string hash, and reading a string value's bytes. The
//! heap allocates the strings (`Heap::intern`); the collector's sweep takes each string it frees
//! out of the set.

use std::collections::TryReserveError;

use lua51_value::{LuaString, TValue};

/// Strings longer than this are refused up front, like a failed `malloc`.
pub const MAX_STRING_LEN: usize = 1 << 31;

/// The set of interned strings: open addressing (linear probing), so interning costs one hash
/// of the bytes (sampled for long strings, like Lua 5.1) and one copy. Each slot keeps 16 bits
/// of the string's hash in the pointer's unused top bits, so a probe that does not match almost
/// never touches the string (those cache misses dominated string building) and a slot is one
/// word (the table is probed at random: its size is its cache misses). The home slot mixes the
/// hash once more (cheap insurance against clustering in the bits it takes).
///
/// A slot also keeps, in the address's four low bits (strings are 16-byte aligned), how far the
/// string sits from its home slot: the sweep's deletion moves later strings of the probe run
/// back, and needs each one's home. Read from the string's hash, that was a cache miss per
/// string moved, half of the collector's time in a program of short-lived strings.
#[derive(Debug, Default)]
pub(crate) struct StringTable {
    slots: Vec<StringSlot>,
    pub(crate) len: usize,
    /// The most strings the table held since the last [`Self::shrink_if_sparse`].
    peak: usize,
}

/// A string's address (bits 4 to 47), the top 16 bits of its hash (bits 48 to 63) and its
/// distance from its home slot (bits 0 to 3; [`FAR`] for 15 or more); 0 when free.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct StringSlot(u64);

const FREE_SLOT: StringSlot = StringSlot(0);
const ADDRESS_BITS: u32 = 48;
const DISTANCE_MASK: u64 = 0xF;
/// The distance a slot records for a string 15 or more slots from home (rare below the
/// table's 3/4 load): its home is computed from its hash.
const FAR: usize = 15;

impl StringSlot {
    /// The slot of `string` at its home (distance 0; [`Self::moved`] places it elsewhere).
    fn new(string: *mut LuaString, hash: u32) -> Self {
        debug_assert!((string as u64) >> ADDRESS_BITS == 0, "user-space addresses fit in 48 bits");
        debug_assert!(string as u64 & DISTANCE_MASK == 0, "strings are 16-byte aligned");
        StringSlot(string as u64 | u64::from(hash >> 16) << ADDRESS_BITS)
    }
    fn string(self) -> *mut LuaString {
        (self.0 & ((1 << ADDRESS_BITS) - 1) & !DISTANCE_MASK) as *mut LuaString
    }
    fn is_free(self) -> bool {
        self.0 == 0
    }
    /// Whether the string here may have hash `hash` (its top 16 bits match).
    fn may_have(self, hash: u32) -> bool {
        (self.0 >> ADDRESS_BITS) as u32 == hash >> 16
    }
    /// The home slot of the string in slot `at` of a table of `mask + 1` slots.
    fn home(self, at: usize, mask: usize) -> usize {
        let distance = (self.0 & DISTANCE_MASK) as usize;
        if distance < FAR {
            return at.wrapping_sub(distance) & mask;
        }
        // SAFETY: the table holds live strings.
        home_slot(unsafe { (*self.string()).hash }, mask)
    }
    /// The same string, moved to slot `at` (its home `home`).
    fn moved(self, at: usize, home: usize, mask: usize) -> Self {
        StringSlot(self.0 & !DISTANCE_MASK | (at.wrapping_sub(home) & mask).min(FAR) as u64)
    }
}

fn home_slot(hash: u32, mask: usize) -> usize {
    ((u64::from(hash)).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as usize & mask
}

impl StringTable {
    /// Drops a string the collector is about to free, in place: the sweep runs when memory may
    /// be exhausted, so it allocates nothing (a rebuilt table could fail to allocate where the
    /// collector must not). The deletion shifts the rest of its probe run back (linear
    /// probing's deletion without tombstones), so every other string stays reachable from its
    /// home.
    pub(crate) fn remove(&mut self, string: *mut LuaString) {
        let mask = self.slots.len() - 1;
        // SAFETY: the table holds allocated strings (a dead one leaves it before it is freed).
        let mut i = home_slot(unsafe { (*string).hash }, mask);
        loop {
            let slot = self.slots[i];
            debug_assert!(!slot.is_free(), "a dead string is in the interning set");
            if slot.is_free() {
                return;
            }
            if slot.string() == string {
                self.delete_at(i);
                return;
            }
            i = (i + 1) & mask;
        }
    }

    /// A table much larger than its strings shrinks, if memory allows (at the end of a
    /// collection cycle): by half, as 5.1's `checkSizes` does, but only when it was sparse for
    /// the whole cycle, not just after the sweep. A program that makes many short-lived strings
    /// between cycles fills the table up again each cycle: shrinking to fit the survivors made
    /// it grow back through every size (52 rebuilds in `strcat`), and shrinking by half after
    /// every sweep still rebuilt it twice a cycle (23 times for a million `"" .. i`, a fifth of
    /// their instructions, mostly zeroing the new slots).
    pub(crate) fn shrink_if_sparse(&mut self) {
        let cap = self.slots.len();
        if cap > 1024 && self.peak.max(self.len) * 8 < cap {
            let _ = self.rebuild(cap / 2);
        }
        self.peak = self.len;
    }

    /// Frees slot `i` and moves back every later entry of its probe run that may fill the gap
    /// (one whose home does not lie cyclically in `(gap, its slot]`).
    fn delete_at(&mut self, i: usize) {
        let mask = self.slots.len() - 1;
        let mut gap = i;
        let mut j = i;
        loop {
            j = (j + 1) & mask;
            let slot = self.slots[j];
            if slot.is_free() {
                break;
            }
            let home = slot.home(j, mask);
            let stays = if gap <= j { gap < home && home <= j } else { gap < home || home <= j };
            if !stays {
                self.slots[gap] = slot.moved(gap, home, mask);
                gap = j;
            }
        }
        self.slots[gap] = FREE_SLOT;
        self.len -= 1;
    }

    /// Moves every string to a table of `cap` slots; the old table stays when the new one
    /// cannot be allocated.
    fn rebuild(&mut self, cap: usize) -> Result<(), TryReserveError> {
        let mut slots = Vec::new();
        slots.try_reserve_exact(cap)?;
        slots.resize(cap, FREE_SLOT);
        let old = std::mem::replace(&mut self.slots, slots);
        let mask = cap - 1;
        for s in old.into_iter().filter(|s| !s.is_free()) {
            // SAFETY: the table holds live strings.
            let home = home_slot(unsafe { (*s.string()).hash }, mask);
            let mut i = home;
            while !self.slots[i].is_free() {
                i = (i + 1) & mask;
            }
            self.slots[i] = s.moved(i, home, mask);
        }
        Ok(())
    }

    /// The interned string with these bytes, or the free slot where it would go (any index
    /// while the table has no slots: `reserve_one` makes them).
    #[inline]
    pub(crate) fn find(&self, bytes: &[u8], hash: u32) -> Result<*mut LuaString, usize> {
        if self.slots.is_empty() {
            return Err(0);
        }
        let mask = self.slots.len() - 1;
        let mut i = home_slot(hash, mask);
        loop {
            let slot = self.slots[i];
            if slot.is_free() {
                return Err(i);
            }
            if slot.may_have(hash) {
                let s = slot.string();
                // SAFETY: the table holds live strings.
                if unsafe { (*s).hash } == hash && same_bytes(unsafe { (*s).bytes() }, bytes) {
                    return Ok(s);
                }
            }
            i = (i + 1) & mask;
        }
    }

    /// Adds a string `find` did not find, at the free slot `i` it answered.
    pub(crate) fn insert(&mut self, i: usize, string: *mut LuaString, hash: u32) {
        let mask = self.slots.len() - 1;
        self.slots[i] = StringSlot::new(string, hash).moved(i, home_slot(hash, mask), mask);
        self.len += 1;
        self.peak = self.peak.max(self.len);
    }

    /// Slots in the table (free or not).
    #[cfg(test)]
    pub(crate) fn capacity(&self) -> usize {
        self.slots.len()
    }

    /// Strings [`FAR`] or more slots from home, and whether every slot's recorded distance is
    /// its string's.
    #[cfg(test)]
    pub(crate) fn check_distances(&self) -> (usize, bool) {
        let mask = self.slots.len().wrapping_sub(1);
        let mut far = 0;
        let mut right = true;
        for (i, s) in self.slots.iter().enumerate().filter(|(_, s)| !s.is_free()) {
            // SAFETY: the table holds live strings.
            let home = home_slot(unsafe { (*s.string()).hash }, mask);
            let distance = i.wrapping_sub(home) & mask;
            far += usize::from(distance >= FAR);
            right &= (s.0 & DISTANCE_MASK) as usize == distance.min(FAR);
        }
        (far, right)
    }

    /// Keeps the load factor at most 3/4: room for one more string (`true` when the table
    /// grew, which moves every slot), or out of memory (the table as it was). The slots' hash
    /// bits answer most mismatches of a longer probe run without reading the string; at 1/2,
    /// the table was a sixth of knucleotide's memory (8 MB of 50, and 12 during a rebuild)
    /// and ran it about 7% slower in time (its probes miss the cache either way), while
    /// `strcat`'s new strings probe 2% more instructions now.
    pub(crate) fn reserve_one(&mut self) -> Result<bool, TryReserveError> {
        if (self.len + 1) * 4 <= self.slots.len() * 3 {
            return Ok(false);
        }
        self.rebuild((self.slots.len() * 2).max(1024)).map(|()| true)
    }
}

/// The string hash, stored in the string so tables never rehash it: words, not bytes, mixed
/// by multiplication, so all 32 bits depend on every byte it reads (the interning table keeps
/// the top 16 in its slots, and tables index by the low bits). Up to 128 bytes it reads the
/// whole string; a longer one is sampled (16 words spread over it, its first and last among
/// them), as Lua 5.1 samples at most 32 bytes of a long string, so hashing stays O(1).
/// 5.1's own hash ran a byte at a time, and left the top bits of short strings zero.
#[inline(always)]
pub(crate) fn hash_bytes(bytes: &[u8]) -> u32 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let len = bytes.len();
    let word = |i: usize| u64::from_le_bytes(bytes[i..i + 8].try_into().expect("8 bytes"));
    let mix = |h: u64, w: u64| (h ^ w).wrapping_mul(K).rotate_left(29);
    let mut h = (len as u64).wrapping_mul(K) ^ 0x243F_6A88_85A3_08D3;
    if len >= 8 {
        if len <= 128 {
            // Every word, the last one overlapping its predecessor.
            let mut i = 0;
            while i + 8 < len {
                h = mix(h, word(i));
                i += 8;
            }
        } else {
            let step = (len - 8) / 15;
            for k in 0..15 {
                h = mix(h, word(k * step));
            }
        }
        h = mix(h, word(len - 8));
    } else if len >= 4 {
        let half = |i: usize| u64::from(u32::from_le_bytes(bytes[i..i + 4].try_into().expect("4 bytes")));
        h = mix(h, half(0) | half(len - 4) << 32);
    } else if len > 0 {
        h = mix(h, u64::from(bytes[0]) | u64::from(bytes[len / 2]) << 8 | u64::from(bytes[len - 1]) << 16);
    }
    // Final avalanche: the top half of a product depends on every bit below it.
    h ^= h >> 32;
    h = h.wrapping_mul(K);
    (h >> 32) as u32
}

/// Whether two byte strings are equal, in line for the short ones interning and the pattern
/// cache mostly see (a `memcmp` call was 15 instructions of every `s:sub(i, j)` that found its
/// piece interned, and 3 per `string.find` in a tokenizer's pattern cache):
/// up to 16 bytes, two overlapping loads of each, as [`hash_bytes`] reads them; longer ones
/// through the slice compare.
#[inline]
pub(crate) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let len = a.len();
    if len != b.len() {
        return false;
    }
    let word = |s: &[u8], i: usize| u64::from_le_bytes(s[i..i + 8].try_into().expect("8 bytes"));
    let half = |s: &[u8], i: usize| u32::from_le_bytes(s[i..i + 4].try_into().expect("4 bytes"));
    match len {
        0 => true,
        1..=3 => a[0] == b[0] && a[len / 2] == b[len / 2] && a[len - 1] == b[len - 1],
        4..=7 => half(a, 0) == half(b, 0) && half(a, len - 4) == half(b, len - 4),
        8..=16 => word(a, 0) == word(b, 0) && word(a, len - 8) == word(b, len - 8),
        _ => a == b,
    }
}

/// The bytes of a string value (which must be a string).
pub fn string_bytes<'a>(v: TValue) -> &'a [u8] {
    debug_assert!(v.is_string());
    unsafe { (*v.as_string()).bytes() }
}

#[cfg(test)]
mod tests {
    use crate::object::string::same_bytes;

    /// The short compare reads each length's words where they overlap: a difference at any one
    /// position of strings of every length up to past the long case is seen, and equal ones
    /// are equal (pieces cut from the middle of a longer buffer, as `s:sub` passes them).
    #[test]
    fn same_bytes_sees_a_difference_at_every_position() {
        let buffer: Vec<u8> = (0..64u8).map(|i| i.wrapping_mul(37) ^ 0x5a).collect();
        for len in 0..=40 {
            let a = &buffer[3..3 + len];
            let mut copy = a.to_vec();
            assert!(same_bytes(a, &copy), "length {len}");
            for i in 0..len {
                copy[i] ^= 0x10;
                assert!(!same_bytes(a, &copy), "length {len}, position {i}");
                copy[i] ^= 0x10;
            }
            if len > 0 {
                assert!(!same_bytes(a, &copy[..len - 1]), "lengths differ");
            }
        }
    }
}
