//! Lua tables. For now a plain hash map behind the object header; hidden classes, the array part
//! and inline caching replace it in the interpreter-performance work.

use std::collections::HashMap;

use lua51_value::{GcHeader, ObjKind, TValue};

use crate::heap::{Heap, OutOfMemory};

/// A table object.
#[repr(C)]
#[derive(Debug)]
pub struct Table {
    pub header: GcHeader,
    map: HashMap<u64, TValue>,
}

/// Key normalisation: `-0` and `0` are the same key; everything else by its bits.
fn key_bits(k: TValue) -> u64 {
    if k.is_double() && k.as_f64() == 0.0 {
        0
    } else {
        k.raw()
    }
}

impl Table {
    pub fn new_in(heap: &mut Heap) -> Result<TValue, OutOfMemory> {
        let p = heap.alloc(std::mem::size_of::<Table>(), ObjKind::Table)? as *mut Table;
        unsafe { std::ptr::write(std::ptr::addr_of_mut!((*p).map), HashMap::new()) };
        Ok(TValue::from_ptr(p))
    }

    pub fn get(&self, key: TValue) -> TValue {
        self.map.get(&key_bits(key)).copied().unwrap_or(TValue::NIL)
    }

    /// Raw set. The caller rejects nil and NaN keys.
    pub fn set(&mut self, key: TValue, value: TValue) {
        if value.is_nil() {
            self.map.remove(&key_bits(key));
        } else {
            self.map.insert(key_bits(key), value);
        }
    }
}

/// The table behind a table value.
pub fn table_mut<'a>(v: TValue) -> &'a mut Table {
    debug_assert!(v.is_table());
    unsafe { &mut *v.as_ptr::<Table>() }
}
