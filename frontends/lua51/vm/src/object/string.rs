//! Strings: the set of interned strings (every Lua string is interned, so equal strings are one
//! object and compare by address), 5.1's string hash, and reading a string value's bytes. The
//! heap allocates the strings (`Heap::intern`); the collector sweeps the set.

use lua51_value::{LuaString, TValue};

/// Strings longer than this are refused up front, like a failed `malloc`.
pub const MAX_STRING_LEN: usize = 1 << 31;

/// The set of interned strings: open addressing (linear probing), so interning costs one hash
/// of the bytes (sampled for long strings, like Lua 5.1) and one copy. Each slot keeps 16 bits
/// of the string's hash in the pointer's unused top bits, so a probe that does not match almost
/// never touches the string (those cache misses dominated string building) and a slot is one
/// word (the table is probed at random: its size is its cache misses). The home slot mixes the
/// hash first: 5.1's hash clusters for strings that differ in a few middle characters.
#[derive(Debug, Default)]
pub(crate) struct StringTable {
    slots: Vec<StringSlot>,
    len: usize,
}

/// A string's address (48 bits) and the top 16 bits of its hash; 0 when free.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct StringSlot(u64);

const FREE_SLOT: StringSlot = StringSlot(0);
const ADDRESS_BITS: u32 = 48;

impl StringSlot {
    fn new(string: *mut LuaString, hash: u32) -> Self {
        debug_assert!((string as u64) >> ADDRESS_BITS == 0, "user-space addresses fit in 48 bits");
        StringSlot(string as u64 | u64::from(hash >> 16) << ADDRESS_BITS)
    }
    fn string(self) -> *mut LuaString {
        (self.0 & ((1 << ADDRESS_BITS) - 1)) as *mut LuaString
    }
    fn is_free(self) -> bool {
        self.0 == 0
    }
    /// Whether the string here may have hash `hash` (its top 16 bits match).
    fn may_have(self, hash: u32) -> bool {
        (self.0 >> ADDRESS_BITS) as u32 == hash >> 16
    }
}

fn home_slot(hash: u32, mask: usize) -> usize {
    ((u64::from(hash)).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as usize & mask
}

impl StringTable {
    /// Drops the strings `dead` says were collected, rehashing the survivors.
    /// Most collections free no interned string (the names and constants stay), so a scan
    /// that finds none dead leaves the table as it is, without the rehash.
    pub(crate) fn retain(&mut self, dead: &dyn Fn(*mut LuaString) -> bool) {
        if !self.slots.iter().any(|s| !s.is_free() && dead(s.string())) {
            return;
        }
        let survivors: Vec<StringSlot> = self.slots.iter().copied().filter(|s| !s.is_free() && !dead(s.string())).collect();
        let cap = (survivors.len() * 2).next_power_of_two().max(1024);
        self.rebuild(cap, survivors);
    }

    fn rebuild(&mut self, cap: usize, strings: Vec<StringSlot>) {
        self.slots = vec![FREE_SLOT; cap];
        self.len = 0;
        let mask = cap - 1;
        for s in strings {
            // SAFETY: the table holds live strings.
            let mut i = home_slot(unsafe { (*s.string()).hash }, mask);
            while !self.slots[i].is_free() {
                i = (i + 1) & mask;
            }
            self.slots[i] = s;
            self.len += 1;
        }
    }

    pub(crate) fn find(&self, bytes: &[u8], hash: u32) -> Result<*mut LuaString, usize> {
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
                if unsafe { (*s).hash } == hash && unsafe { (*s).bytes() } == bytes {
                    return Ok(s);
                }
            }
            i = (i + 1) & mask;
        }
    }

    pub(crate) fn insert_at(&mut self, i: usize, string: *mut LuaString, hash: u32) {
        self.slots[i] = StringSlot::new(string, hash);
        self.len += 1;
    }

    /// Keeps the load factor at most 1/2.
    pub(crate) fn reserve_one(&mut self) {
        if (self.len + 1) * 2 <= self.slots.len() {
            return;
        }
        let new_len = (self.slots.len() * 2).max(1024);
        let old: Vec<StringSlot> = self.slots.iter().copied().filter(|s| !s.is_free()).collect();
        self.rebuild(new_len, old);
    }
}

/// Lua 5.1's string hash: at most 32 bytes sampled, from the end. Stored in the string so
/// tables never rehash it.
pub(crate) fn hash_bytes(bytes: &[u8]) -> u32 {
    let len = bytes.len();
    let mut h = len as u32;
    let step = (len >> 5) + 1;
    let mut l = len;
    while l >= step {
        h ^= (h << 5).wrapping_add(h >> 2).wrapping_add(u32::from(bytes[l - 1]));
        l -= step;
    }
    h
}

/// The bytes of a string value (which must be a string).
pub fn string_bytes<'a>(v: TValue) -> &'a [u8] {
    debug_assert!(v.is_string());
    unsafe { (*v.as_string()).bytes() }
}
