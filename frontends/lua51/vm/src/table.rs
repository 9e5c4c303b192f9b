//! Lua tables: an array part for keys `1..=n` and a hash part with open addressing.
//!
//! The hash part keeps a removed key in its slot with a nil value (Lua's dead keys), so `next`
//! keeps working when a traversal clears fields, as the reference manual allows. Hidden classes
//! and inline caching replace the hash part's string keys in the interpreter-performance work.

use lua51_value::{GcHeader, ObjKind, TValue};

use crate::heap::{Heap, OutOfMemory};

#[derive(Clone, Copy, Debug)]
struct Node {
    /// `TValue::NIL` marks a never-used slot.
    key: TValue,
    value: TValue,
}

const EMPTY: Node = Node { key: TValue::NIL, value: TValue::NIL };

/// A table object.
#[repr(C)]
#[derive(Debug)]
pub struct Table {
    pub header: GcHeader,
    /// The metatable, or null.
    pub metatable: *mut Table,
    array: Vec<TValue>,
    nodes: Vec<Node>,
    /// Slots holding a key (live or dead).
    used: usize,
}

/// `next` was given a key that is not in the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InvalidKey;

/// Why a key cannot be stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyError {
    Nil,
    NaN,
}

/// `-0` and `0` are one key; every other key by its bits (strings are interned).
fn normalize(k: TValue) -> TValue {
    if k.is_double() && k.as_f64() == 0.0 {
        TValue::from_f64(0.0)
    } else {
        k
    }
}

fn hash_of(k: TValue) -> usize {
    if k.is_string() {
        return unsafe { (*k.as_string()).hash } as usize;
    }
    let x = k.raw();
    (x ^ (x >> 29) ^ (x >> 47)).wrapping_mul(0x9E37_79B9_7F4A_7C15) as usize >> 7
}

/// The array index of `k` (0-based) if it is an integer in `1..=len`.
fn array_index(k: TValue, len: usize) -> Option<usize> {
    if !k.is_double() {
        return None;
    }
    let x = k.as_f64();
    // Range check first (NaN fails it), so the conversions are a plain cvttsd2si/cvtsi2sd:
    // `as usize` both ways costs a saturating sequence that dominated array-heavy loops.
    if !(x >= 1.0 && x <= len as i64 as f64) {
        return None;
    }
    // SAFETY: 1 <= x <= len < 2^63, so x is in range for i64.
    let i = unsafe { x.to_int_unchecked::<i64>() };
    (i as f64 == x).then(|| i as usize - 1)
}

impl Table {
    pub fn new_in(heap: &mut Heap) -> Result<TValue, OutOfMemory> {
        Self::with_capacity(heap, 0, 0)
    }

    pub fn with_capacity(heap: &mut Heap, array: usize, hash: usize) -> Result<TValue, OutOfMemory> {
        let p = heap.alloc(std::mem::size_of::<Table>(), ObjKind::Table)? as *mut Table;
        let cap = if hash == 0 { 0 } else { (hash * 2).next_power_of_two() };
        unsafe {
            std::ptr::addr_of_mut!((*p).metatable).write(std::ptr::null_mut());
            std::ptr::addr_of_mut!((*p).array).write(Vec::with_capacity(array));
            std::ptr::addr_of_mut!((*p).nodes).write(vec![EMPTY; cap]);
            std::ptr::addr_of_mut!((*p).used).write(0);
        }
        Ok(TValue::from_ptr(p))
    }

    fn find_slot(&self, k: TValue) -> Result<usize, Option<usize>> {
        if self.nodes.is_empty() {
            return Err(None);
        }
        let mask = self.nodes.len() - 1;
        let mut i = hash_of(k) & mask;
        loop {
            let n = self.nodes[i];
            if n.key.is_nil() {
                return Err(Some(i));
            }
            if n.key == k {
                return Ok(i);
            }
            i = (i + 1) & mask;
        }
    }

    /// Raw get (`rawget`).
    pub fn get(&self, key: TValue) -> TValue {
        if let Some(i) = array_index(key, self.array.len()) {
            return self.array[i];
        }
        match self.find_slot(normalize(key)) {
            Ok(i) => self.nodes[i].value,
            Err(_) => TValue::NIL,
        }
    }

    pub fn get_str(&self, key: TValue) -> TValue {
        match self.find_slot(key) {
            Ok(i) => self.nodes[i].value,
            Err(_) => TValue::NIL,
        }
    }

    /// Raw set (`rawset`). Nil and NaN keys are refused.
    pub fn set(&mut self, key: TValue, value: TValue) -> Result<(), KeyError> {
        if key.is_nil() {
            return Err(KeyError::Nil);
        }
        if key.is_double() && key.as_f64().is_nan() {
            return Err(KeyError::NaN);
        }
        if let Some(i) = array_index(key, self.array.len()) {
            self.array[i] = value;
            return Ok(());
        }
        let key = normalize(key);
        if key.is_double() && key.as_f64() == (self.array.len() + 1) as i64 as f64 && !value.is_nil() {
            self.array.push(value);
            self.remove_from_hash(key);
            self.migrate_to_array();
            return Ok(());
        }
        match self.find_slot(key) {
            Ok(i) => self.nodes[i].value = value,
            Err(slot) => {
                if value.is_nil() {
                    return Ok(());
                }
                let slot = match slot {
                    Some(s) if (self.used + 1) * 4 <= self.nodes.len() * 3 => s,
                    _ => {
                        self.rehash();
                        self.find_slot(key).expect_err("key is absent")
                            .expect("a rehashed table has free slots")
                    }
                };
                self.nodes[slot] = Node { key, value };
                self.used += 1;
            }
        }
        Ok(())
    }

    fn remove_from_hash(&mut self, key: TValue) {
        if let Ok(i) = self.find_slot(key) {
            self.nodes[i].value = TValue::NIL;
        }
    }

    /// Moves `n+1, n+2, ...` from the hash part to the end of the array part.
    fn migrate_to_array(&mut self) {
        if self.used == 0 {
            return;
        }
        loop {
            let k = TValue::from_f64((self.array.len() + 1) as f64);
            match self.find_slot(k) {
                Ok(i) if !self.nodes[i].value.is_nil() => {
                    self.array.push(self.nodes[i].value);
                    self.nodes[i].value = TValue::NIL;
                }
                _ => return,
            }
        }
    }

    /// Rebuilds the hash part without dead keys, at least doubling when mostly live.
    fn rehash(&mut self) {
        let live: Vec<Node> = self.nodes.iter().copied().filter(|n| !n.key.is_nil() && !n.value.is_nil()).collect();
        let cap = ((live.len() + 1) * 2).next_power_of_two().max(4);
        self.nodes = vec![EMPTY; cap];
        self.used = 0;
        for n in live {
            let slot = self.find_slot(n.key).expect_err("keys are unique").expect("free slot");
            self.nodes[slot] = n;
            self.used += 1;
        }
    }

    /// A border (`#t`), as Lua 5.1's `luaH_getn` finds it.
    pub fn length(&self) -> usize {
        let n = self.array.len();
        if n > 0 && self.array[n - 1].is_nil() {
            // Binary search for a border inside the array part.
            let (mut lo, mut hi) = (0usize, n);
            while hi - lo > 1 {
                let m = (lo + hi) / 2;
                if self.array[m - 1].is_nil() {
                    hi = m;
                } else {
                    lo = m;
                }
            }
            return lo;
        }
        if self.used == 0 {
            return n;
        }
        // Unbound search in the hash part.
        let present = |i: usize| !self.get(TValue::from_f64(i as f64)).is_nil();
        let (mut i, mut j) = (n, n + 1);
        while present(j) {
            i = j;
            if j > (1 << 52) {
                let mut k = 1;
                while present(k) {
                    k += 1;
                }
                return k - 1;
            }
            j *= 2;
        }
        while j - i > 1 {
            let m = (i + j) / 2;
            if present(m) {
                i = m;
            } else {
                j = m;
            }
        }
        i
    }

    /// The entry after `key` in traversal order (array part, then hash part); `None` at the end.
    pub fn next(&self, key: TValue) -> Result<Option<(TValue, TValue)>, InvalidKey> {
        let mut start_array = 0;
        let mut start_hash = 0;
        if !key.is_nil() {
            if let Some(i) = array_index(key, self.array.len()) {
                start_array = i + 1;
            } else {
                match self.find_slot(normalize(key)) {
                    Ok(i) => {
                        start_array = self.array.len();
                        start_hash = i + 1;
                    }
                    Err(_) => return Err(InvalidKey),
                }
            }
        }
        for i in start_array..self.array.len() {
            if !self.array[i].is_nil() {
                return Ok(Some((TValue::from_f64((i + 1) as f64), self.array[i])));
            }
        }
        for n in self.nodes.iter().skip(start_hash) {
            if !n.key.is_nil() && !n.value.is_nil() {
                return Ok(Some((n.key, n.value)));
            }
        }
        Ok(None)
    }

    pub fn array_len(&self) -> usize {
        self.array.len()
    }

    /// Calls `f` on every key (if `keys`) and value (if `values`) held, for the collector.
    pub fn trace(&self, keys: bool, values: bool, f: &mut dyn FnMut(TValue)) {
        if values {
            self.array.iter().for_each(|v| f(*v));
        }
        for n in &self.nodes {
            if n.key.is_nil() || n.value.is_nil() {
                continue;
            }
            if keys {
                f(n.key);
            }
            if values {
                f(n.value);
            }
        }
    }

    /// Removes entries whose key or value `is_dead` says was collected (weak tables).
    pub fn clear_dead(&mut self, is_dead: &dyn Fn(TValue) -> bool) {
        for v in &mut self.array {
            if is_dead(*v) {
                *v = TValue::NIL;
            }
        }
        for n in &mut self.nodes {
            if !n.key.is_nil() && (is_dead(n.key) || is_dead(n.value)) {
                // Keep the key in place as a dead key (traversal stays valid); it is dropped at
                // the next rehash.
                n.value = TValue::NIL;
            }
        }
    }

    /// Bytes owned outside the object (array and hash parts), for the collector's accounting.
    pub fn owned_bytes(&self) -> usize {
        self.array.capacity() * 8 + self.nodes.capacity() * std::mem::size_of::<Node>()
    }
}

/// The table behind a table value.
pub fn table_mut<'a>(v: TValue) -> &'a mut Table {
    debug_assert!(v.is_table());
    unsafe { &mut *v.as_ptr::<Table>() }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn num(x: f64) -> TValue {
        TValue::from_f64(x)
    }

    #[test]
    fn array_hash_length_and_next() {
        let mut heap = Heap::default();
        let t = table_mut(Table::new_in(&mut heap).unwrap());
        for i in 1..=10 {
            t.set(num(i as f64), num(i as f64 * 2.0)).unwrap();
        }
        assert_eq!(t.array_len(), 10);
        assert_eq!(t.length(), 10);
        t.set(num(20.0), num(1.0)).unwrap();
        t.set(num(0.5), num(1.0)).unwrap();
        assert_eq!(t.get(num(20.0)), num(1.0));
        assert_eq!(t.get(num(-0.0)), TValue::NIL);
        t.set(num(-0.0), num(3.0)).unwrap();
        assert_eq!(t.get(num(0.0)), num(3.0));
        assert_eq!(t.set(TValue::NIL, num(1.0)), Err(KeyError::Nil));
        assert_eq!(t.set(num(f64::NAN), num(1.0)), Err(KeyError::NaN));
        // Traversal visits every live entry once, even while clearing them.
        let mut seen = 0;
        let mut k = TValue::NIL;
        while let Some((key, _)) = t.next(k).unwrap() {
            t.set(key, TValue::NIL).unwrap();
            seen += 1;
            k = key;
        }
        assert_eq!(seen, 13);
        assert_eq!(t.length(), 0);
        assert!(t.next(num(12345.0)).is_err());
    }

    #[test]
    fn hash_keys_migrate_to_the_array() {
        let mut heap = Heap::default();
        let t = table_mut(Table::new_in(&mut heap).unwrap());
        for i in (1..=100).rev() {
            t.set(num(i as f64), num(1.0)).unwrap();
        }
        assert_eq!(t.array_len(), 100);
        assert_eq!(t.length(), 100);
        for i in 0..1000 {
            t.set(num(1000.0 + i as f64), num(1.0)).unwrap();
            t.set(num(1000.0 + i as f64), TValue::NIL).unwrap();
        }
        assert_eq!(t.length(), 100);
    }
}
