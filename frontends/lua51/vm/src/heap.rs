//! Object allocation and string interning.
//!
//! Every object starts with a [`GcHeader`] and is linked into one list, so the collector (added
//! with the garbage collector work) can sweep it. Until then nothing is freed.

use std::alloc::{alloc_zeroed, Layout};
use std::collections::HashMap;

use lua51_value::{GcHeader, LuaString, ObjKind, TValue};

/// Owns every heap object of one Lua state.
#[derive(Debug)]
pub struct Heap {
    all: *mut GcHeader,
    strings: HashMap<Box<[u8]>, *mut LuaString>,
    pub bytes_allocated: usize,
}

impl Default for Heap {
    fn default() -> Self {
        Self { all: std::ptr::null_mut(), strings: HashMap::new(), bytes_allocated: 0 }
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
        if let Some(s) = self.strings.get(bytes) {
            return Ok(TValue::from_ptr(*s));
        }
        if bytes.len() >= MAX_STRING_LEN {
            return Err(OutOfMemory);
        }
        let size = std::mem::size_of::<LuaString>() + bytes.len() + 1;
        let s = self.alloc(size, ObjKind::String)? as *mut LuaString;
        unsafe {
            (*s).len = bytes.len() as u32;
            (*s).hash = hash_bytes(bytes);
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), (*s).data() as *mut u8, bytes.len());
        }
        self.strings.insert(bytes.into(), s);
        Ok(TValue::from_ptr(s))
    }
}

/// FNV-1a; stored in the string so tables never rehash its bytes.
fn hash_bytes(bytes: &[u8]) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for &b in bytes {
        h = (h ^ u32::from(b)).wrapping_mul(0x0100_0193);
    }
    h
}

/// The bytes of a string value (which must be a string).
pub fn string_bytes<'a>(v: TValue) -> &'a [u8] {
    debug_assert!(v.is_string());
    unsafe { (*v.as_string()).bytes() }
}
