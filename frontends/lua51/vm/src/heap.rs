//! Object allocation and string interning.
//!
//! Every object starts with a [`GcHeader`] and is linked into one list, so the collector (added
//! with the garbage collector work) can sweep it. Until then nothing is freed.

use std::alloc::{alloc_zeroed, Layout};

use lua51_value::{GcHeader, LuaString, ObjKind, TValue};

/// Owns every heap object of one Lua state.
#[derive(Debug)]
pub struct Heap {
    pub(crate) all: *mut GcHeader,
    pub(crate) strings: StringTable,
    pub bytes_allocated: usize,
    /// Collect once `bytes_allocated` reaches this (see `gc`).
    pub threshold: usize,
    /// `collectgarbage("stop")`.
    pub stopped: bool,
    /// `setpause`: the next threshold is live bytes times `pause / 100`.
    pub pause: usize,
    /// The threshold never goes below this ([`MIN_THRESHOLD`]; 0 collects at every safe point).
    pub threshold_floor: usize,
}

/// No collection below this many bytes.
pub const MIN_THRESHOLD: usize = 4 << 20;

impl Default for Heap {
    fn default() -> Self {
        Self {
            all: std::ptr::null_mut(),
            strings: StringTable::default(),
            bytes_allocated: 0,
            threshold: MIN_THRESHOLD,
            stopped: false,
            pause: 200,
            threshold_floor: MIN_THRESHOLD,
        }
    }
}

/// The set of interned strings: open addressing (linear probing) over the string objects
/// themselves, so interning costs one hash of the bytes (sampled for long strings, like Lua
/// 5.1) and one copy.
#[derive(Debug, Default)]
pub(crate) struct StringTable {
    slots: Vec<*mut LuaString>,
    len: usize,
}

impl StringTable {
    /// Drops the strings `dead` says were collected, rehashing the survivors.
    pub(crate) fn retain(&mut self, dead: &dyn Fn(*mut LuaString) -> bool) {
        let survivors: Vec<*mut LuaString> = self.slots.iter().copied().filter(|s| !s.is_null() && !dead(*s)).collect();
        let cap = (survivors.len() * 2).next_power_of_two().max(1024);
        self.slots = vec![std::ptr::null_mut(); cap];
        self.len = 0;
        let mask = cap - 1;
        for s in survivors {
            let mut i = unsafe { (*s).hash } as usize & mask;
            while !self.slots[i].is_null() {
                i = (i + 1) & mask;
            }
            self.slots[i] = s;
            self.len += 1;
        }
    }

    fn find(&self, bytes: &[u8], hash: u32) -> Result<*mut LuaString, usize> {
        let mask = self.slots.len() - 1;
        let mut i = hash as usize & mask;
        loop {
            let s = self.slots[i];
            if s.is_null() {
                return Err(i);
            }
            let str = unsafe { &*s };
            if str.hash == hash && str.bytes() == bytes {
                return Ok(s);
            }
            i = (i + 1) & mask;
        }
    }

    fn insert_at(&mut self, i: usize, s: *mut LuaString) {
        self.slots[i] = s;
        self.len += 1;
    }

    /// Keeps the load factor at most 1/2.
    fn reserve_one(&mut self) {
        if (self.len + 1) * 2 <= self.slots.len() {
            return;
        }
        let new_len = (self.slots.len() * 2).max(1024);
        let old = std::mem::replace(&mut self.slots, vec![std::ptr::null_mut(); new_len]);
        let mask = self.slots.len() - 1;
        for s in old.into_iter().filter(|s| !s.is_null()) {
            let mut i = unsafe { (*s).hash } as usize & mask;
            while !self.slots[i].is_null() {
                i = (i + 1) & mask;
            }
            self.slots[i] = s;
        }
    }
}

/// Raised when an allocation cannot be satisfied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutOfMemory;

/// Strings longer than this are refused up front, like a failed `malloc`.
pub const MAX_STRING_LEN: usize = 1 << 31;

impl Heap {
    /// Allocates `size` zeroed bytes (8-aligned) for an object of `kind` and links it.
    pub fn alloc(&mut self, size: usize, kind: ObjKind) -> Result<*mut GcHeader, OutOfMemory> {
        let layout = Layout::from_size_align(size, 8).map_err(|_| OutOfMemory)?;
        let p = unsafe { alloc_zeroed(layout) } as *mut GcHeader;
        if p.is_null() {
            return Err(OutOfMemory);
        }
        unsafe {
            (*p).kind = kind as u8;
            (*p).next = self.all;
        }
        self.all = p;
        self.bytes_allocated += size;
        Ok(p)
    }

    /// The interned string with these bytes.
    pub fn intern(&mut self, bytes: &[u8]) -> Result<TValue, OutOfMemory> {
        let hash = hash_bytes(bytes);
        self.strings.reserve_one();
        let slot = match self.strings.find(bytes, hash) {
            Ok(s) => return Ok(TValue::from_ptr(s)),
            Err(slot) => slot,
        };
        if bytes.len() >= MAX_STRING_LEN {
            return Err(OutOfMemory);
        }
        let size = std::mem::size_of::<LuaString>() + bytes.len() + 1;
        let s = self.alloc(size, ObjKind::String)? as *mut LuaString;
        unsafe {
            (*s).len = bytes.len() as u32;
            (*s).hash = hash;
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), (*s).data() as *mut u8, bytes.len());
        }
        self.strings.insert_at(slot, s);
        Ok(TValue::from_ptr(s))
    }
}

/// Lua 5.1's string hash: at most 32 bytes sampled, from the end. Stored in the string so
/// tables never rehash it.
fn hash_bytes(bytes: &[u8]) -> u32 {
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
