//! Lua tables: an array part for keys `1..=n` and a hash part with open addressing.
//!
//! The hash part keeps a removed key in its slot with a nil value (Lua's dead keys), so `next`
//! keeps working when a traversal clears fields, as the reference manual allows. A key never
//! moves while it stays in the hash part, only when the part is rebuilt, which is what lets the
//! string-keyed bytecodes cache the slot where they found their key
//! (`TableObject::find_string_cached`). Hidden classes with inline slots are still to come.

use std::mem::ManuallyDrop;

use lua51_value::{key_hash, normalize_key as normalize, GcHeader, ObjKind, TValue, TableNode as Node, TableObject};

use crate::heap::{Heap, OutOfMemory};

const EMPTY: Node = Node { key: TValue::NIL, value: TValue::NIL };

/// A table object: the shared layout ([`TableObject`], which the interpreter's fast paths read)
/// plus the runtime's operations on it. The runtime owns both parts' storage: the array part is
/// a `Vec<TValue>` and the hash part a `Box<[Node]>`, kept as raw parts in the layout.
#[repr(transparent)]
#[derive(Debug)]
pub struct Table(TableObject);

/// `next` was given a key that is not in the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InvalidKey;

/// Why a key cannot be stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyError {
    Nil,
    NaN,
}

/// Lua 5.1's largest array part (`MAXASIZE`, 2^26).
const MAX_ARRAY: usize = 1 << 26;

/// `k` as an index the array part could hold (`1..=MAX_ARRAY`).
fn array_candidate(k: TValue) -> Option<usize> {
    if !k.is_double() {
        return None;
    }
    let x = k.as_f64();
    (x >= 1.0 && x <= MAX_ARRAY as f64 && x.fract() == 0.0).then_some(x as usize)
}

/// Lua 5.1's `computesizes`: the largest power of two `n` such that more than half of
/// `1..=n` would be in use; `nums[i]` counts the keys in `(2^(i-1), 2^i]`.
fn optimal_array_size(nums: &[usize], total: usize) -> usize {
    let (mut a, mut n) = (0usize, 0usize);
    let mut two_to_i = 1usize;
    for &count in nums {
        if two_to_i / 2 >= total {
            break;
        }
        a += count;
        if a > two_to_i / 2 {
            n = two_to_i;
        }
        two_to_i *= 2;
    }
    n
}

thread_local! {
    /// Bytes the array and hash parts of tables grew (or shrank, negative) by since the
    /// collector last looked: table storage is allocated by table operations, which have no
    /// heap at hand, and must count toward the collection debt like objects do.
    static STORAGE_DELTA: std::cell::Cell<isize> = const { std::cell::Cell::new(0) };
}

fn account_storage(delta: isize) {
    STORAGE_DELTA.with(|d| d.set(d.get() + delta));
}

/// Takes the table-storage growth recorded since the last call (see `gc::check`).
pub(crate) fn take_storage_delta() -> isize {
    STORAGE_DELTA.with(|d| d.replace(0))
}

impl Drop for Table {
    fn drop(&mut self) {
        account_storage(-(self.owned_bytes() as isize));
        // SAFETY: the parts came from a Vec and a boxed slice (see `with_array`, `set_nodes`).
        unsafe {
            drop(Vec::from_raw_parts(self.0.array, self.0.array_len, self.0.array_cap));
            drop(Box::from_raw(std::ptr::slice_from_raw_parts_mut(self.0.nodes, self.0.node_count)));
        }
    }
}

impl Table {
    pub fn new_in(heap: &mut Heap) -> Result<TValue, OutOfMemory> {
        Self::with_capacity(heap, 0, 0)
    }

    pub fn with_capacity(heap: &mut Heap, array: usize, hash: usize) -> Result<TValue, OutOfMemory> {
        let p = heap.alloc(std::mem::size_of::<Table>(), ObjKind::Table)? as *mut Table;
        let cap = if hash == 0 { 0 } else { (hash * 2).next_power_of_two() };
        let mut array = ManuallyDrop::new(Vec::<TValue>::with_capacity(array));
        let nodes = Box::into_raw(vec![EMPTY; cap].into_boxed_slice()) as *mut Node;
        account_storage((array.capacity() * 8 + cap * std::mem::size_of::<Node>()) as isize);
        // SAFETY: `heap.alloc` returned room for a Table whose header it initialised.
        unsafe {
            let t = std::ptr::addr_of_mut!((*p).0);
            std::ptr::addr_of_mut!((*t).metatable).write(std::ptr::null_mut());
            std::ptr::addr_of_mut!((*t).array).write(array.as_mut_ptr());
            std::ptr::addr_of_mut!((*t).array_len).write(0);
            std::ptr::addr_of_mut!((*t).array_cap).write(array.capacity());
            std::ptr::addr_of_mut!((*t).nodes).write(nodes);
            std::ptr::addr_of_mut!((*t).node_count).write(cap);
            std::ptr::addr_of_mut!((*t).used).write(0);
        }
        Ok(TValue::from_ptr(p))
    }

    pub fn header(&self) -> &GcHeader {
        &self.0.header
    }

    /// The metatable, or null.
    pub fn metatable(&self) -> *mut Table {
        self.0.metatable as *mut Table
    }

    pub fn set_metatable(&mut self, mt: *mut Table) {
        self.0.metatable = mt as *mut TableObject;
    }

    fn array(&self) -> &[TValue] {
        // SAFETY: `array` points at `array_len` initialised values (dangling when empty).
        unsafe { std::slice::from_raw_parts(self.0.array, self.0.array_len) }
    }

    fn array_mut(&mut self) -> &mut [TValue] {
        unsafe { std::slice::from_raw_parts_mut(self.0.array, self.0.array_len) }
    }

    /// Runs `f` on the array part as the `Vec` it is, then stores its parts back.
    fn with_array<R>(&mut self, f: impl FnOnce(&mut Vec<TValue>) -> R) -> R {
        // SAFETY: the parts came from a Vec; ManuallyDrop keeps ownership with the table.
        let mut v = ManuallyDrop::new(unsafe { Vec::from_raw_parts(self.0.array, self.0.array_len, self.0.array_cap) });
        let r = f(&mut v);
        account_storage((v.capacity() as isize - self.0.array_cap as isize) * 8);
        self.0.array = v.as_mut_ptr();
        self.0.array_len = v.len();
        self.0.array_cap = v.capacity();
        r
    }

    fn nodes(&self) -> &[Node] {
        // SAFETY: `nodes` points at `node_count` nodes (dangling when empty).
        unsafe { std::slice::from_raw_parts(self.0.nodes, self.0.node_count) }
    }

    fn nodes_mut(&mut self) -> &mut [Node] {
        unsafe { std::slice::from_raw_parts_mut(self.0.nodes, self.0.node_count) }
    }

    /// Replaces the hash part, freeing the old one.
    fn set_nodes(&mut self, nodes: Box<[Node]>) {
        let count = nodes.len();
        account_storage((count as isize - self.0.node_count as isize) * std::mem::size_of::<Node>() as isize);
        let old = std::mem::replace(&mut self.0.nodes, Box::into_raw(nodes) as *mut Node);
        // SAFETY: the old parts came from a boxed slice of `node_count` nodes.
        unsafe { drop(Box::from_raw(std::ptr::slice_from_raw_parts_mut(old, self.0.node_count))) };
        self.0.node_count = count;
    }

    /// The slot holding `k`, or where it would go (`None` when the hash part is empty).
    fn find_slot(&self, k: TValue) -> Result<usize, Option<usize>> {
        self.0.probe(k, key_hash(k))
    }

    /// Raw get (`rawget`).
    pub fn get(&self, key: TValue) -> TValue {
        self.0.raw_get(key)
    }

    /// Raw get of an interned string key.
    pub fn get_str(&self, key: TValue) -> TValue {
        self.0.raw_get_str(key)
    }

    /// Raw set (`rawset`). Nil and NaN keys are refused.
    pub fn set(&mut self, key: TValue, value: TValue) -> Result<(), KeyError> {
        if key.is_nil() {
            return Err(KeyError::Nil);
        }
        if key.is_double() && key.as_f64().is_nan() {
            return Err(KeyError::NaN);
        }
        if let Some(slot) = self.0.array_slot(key) {
            unsafe { *slot = value };
            return Ok(());
        }
        let key = normalize(key);
        // Appending right after the array part (`t[#t + 1] = v`) grows it in place, when the
        // array is full up to its end; past a nil at the end, 5.1 would put the key in the
        // hash part (its array only grows at a rehash), and `#t` would see a different border.
        let full_to_end = self.array().last().is_none_or(|v| !v.is_nil());
        if full_to_end && key.is_double() && key.as_f64() == (self.0.array_len + 1) as i64 as f64 && !value.is_nil() {
            self.with_array(|a| a.push(value));
            self.remove_from_hash(key);
            self.migrate_to_array();
            return Ok(());
        }
        match self.find_slot(key) {
            Ok(i) => self.nodes_mut()[i].value = value,
            Err(slot) => {
                if value.is_nil() {
                    return Ok(());
                }
                let slot = match slot {
                    Some(s) if (self.0.used + 1) * 4 <= self.0.node_count * 3 => s,
                    _ => {
                        // The key may belong to the resized array part now; there is room
                        // either way, so this runs once.
                        self.rehash(key);
                        return self.set(key, value);
                    }
                };
                self.nodes_mut()[slot] = Node { key, value };
                self.0.used += 1;
            }
        }
        Ok(())
    }

    /// Stores `values` at `first, first + 1, ...` (table constructors, 5.1's `SETLIST`): the
    /// array part grows to cover them and they go there directly, nils included, so
    /// `#{nil, 2}` is 2 as in 5.1.
    pub fn set_list(&mut self, first: usize, values: &[TValue]) {
        let Some(last) = (first + values.len()).checked_sub(1).filter(|_| !values.is_empty()) else { return };
        if last > self.0.array_len {
            self.grow_array(last);
        }
        self.array_mut()[first - 1..last].copy_from_slice(values);
    }

    /// Grows the array part to `n` slots, moving the hash part's entries it now covers.
    fn grow_array(&mut self, n: usize) {
        self.with_array(|a| a.resize(n, TValue::NIL));
        if self.0.used == 0 {
            return;
        }
        let mut moved = Vec::new();
        for node in self.nodes_mut() {
            if !node.key.is_nil() && !node.value.is_nil() && array_candidate(node.key).is_some_and(|k| k <= n) {
                moved.push((node.key, std::mem::replace(&mut node.value, TValue::NIL)));
            }
        }
        for (k, v) in moved {
            let slot = self.0.array_slot(k).expect("key within the grown array part");
            unsafe { *slot = v };
        }
    }

    fn remove_from_hash(&mut self, key: TValue) {
        if let Ok(i) = self.find_slot(key) {
            self.nodes_mut()[i].value = TValue::NIL;
        }
    }

    /// Moves `n+1, n+2, ...` from the hash part to the end of the array part.
    fn migrate_to_array(&mut self) {
        if self.0.used == 0 {
            return;
        }
        loop {
            let k = TValue::from_f64((self.0.array_len + 1) as f64);
            match self.find_slot(k) {
                Ok(i) if !self.nodes()[i].value.is_nil() => {
                    let v = std::mem::replace(&mut self.nodes_mut()[i].value, TValue::NIL);
                    self.with_array(|a| a.push(v));
                }
                _ => return,
            }
        }
    }

    /// Resizes both parts for the live keys plus `incoming`, as Lua 5.1's `rehash` does: the
    /// array part grows to the largest power of two that would be more than half full (so
    /// integer keys stored out of order end up in the array), the hash part takes the rest
    /// without dead keys, at least doubling when mostly live. The array part never shrinks.
    fn rehash(&mut self, incoming: TValue) {
        let mut nums = [0usize; 28];
        let mut total = 0usize;
        let mut count = |k: usize| {
            nums[k.next_power_of_two().trailing_zeros() as usize] += 1;
            total += 1;
        };
        for (i, v) in self.array().iter().enumerate() {
            if !v.is_nil() {
                count(i + 1);
            }
        }
        let live: Vec<Node> = self.nodes().iter().copied().filter(|n| !n.key.is_nil() && !n.value.is_nil()).collect();
        for k in live.iter().filter_map(|n| array_candidate(n.key)).chain(array_candidate(incoming)) {
            count(k);
        }
        let array_size = optimal_array_size(&nums, total);
        if array_size > self.0.array_len {
            self.with_array(|a| a.resize(array_size, TValue::NIL));
        }
        // (The live entries the grown array covers move below, with the hash part rebuilt.)
        let (to_array, to_hash): (Vec<Node>, Vec<Node>) = live.into_iter().partition(|n| self.0.array_slot(n.key).is_some());
        for n in to_array {
            let slot = self.0.array_slot(n.key).expect("partitioned by array_slot");
            unsafe { *slot = n.value };
        }
        let cap = ((to_hash.len() + 1) * 2).next_power_of_two().max(4);
        self.set_nodes(vec![EMPTY; cap].into_boxed_slice());
        self.0.used = 0;
        for n in to_hash {
            let slot = self.find_slot(n.key).expect_err("keys are unique").expect("free slot");
            self.nodes_mut()[slot] = n;
            self.0.used += 1;
        }
    }

    /// A border (`#t`), as Lua 5.1's `luaH_getn` finds it.
    pub fn length(&self) -> usize {
        let array = self.array();
        let n = array.len();
        if n > 0 && array[n - 1].is_nil() {
            // Binary search for a border inside the array part.
            let (mut lo, mut hi) = (0usize, n);
            while hi - lo > 1 {
                let m = (lo + hi) / 2;
                if array[m - 1].is_nil() {
                    hi = m;
                } else {
                    lo = m;
                }
            }
            return lo;
        }
        if self.0.used == 0 {
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
            if let Some(slot) = self.0.array_slot(key) {
                start_array = unsafe { slot.offset_from(self.0.array) } as usize + 1;
            } else {
                match self.find_slot(normalize(key)) {
                    Ok(i) => {
                        start_array = self.0.array_len;
                        start_hash = i + 1;
                    }
                    Err(_) => return Err(InvalidKey),
                }
            }
        }
        let array = self.array();
        for (i, v) in array.iter().enumerate().skip(start_array) {
            if !v.is_nil() {
                return Ok(Some((TValue::from_f64((i + 1) as f64), *v)));
            }
        }
        for n in self.nodes().iter().skip(start_hash) {
            if !n.key.is_nil() && !n.value.is_nil() {
                return Ok(Some((n.key, n.value)));
            }
        }
        Ok(None)
    }

    pub fn array_len(&self) -> usize {
        self.0.array_len
    }

    /// Calls `f` on every key (if `keys`) and value (if `values`) held, for the collector.
    pub fn trace(&self, keys: bool, values: bool, f: &mut dyn FnMut(TValue)) {
        if values {
            self.array().iter().for_each(|v| f(*v));
        }
        for n in self.nodes() {
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
        for v in self.array_mut() {
            if is_dead(*v) {
                *v = TValue::NIL;
            }
        }
        for n in self.nodes_mut() {
            if !n.key.is_nil() && (is_dead(n.key) || is_dead(n.value)) {
                // Keep the key in place as a dead key (traversal stays valid); it is dropped at
                // the next rehash.
                n.value = TValue::NIL;
            }
        }
    }

    /// Bytes owned outside the object (array and hash parts), for the collector's accounting.
    pub fn owned_bytes(&self) -> usize {
        self.0.array_cap * 8 + self.0.node_count * std::mem::size_of::<Node>()
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
    fn the_slot_cache_is_checked_never_trusted() {
        let mut heap = Heap::default();
        let t = table_mut(Table::new_in(&mut heap).unwrap());
        let keys: Vec<TValue> = (0..6).map(|i| heap.intern(format!("k{i}").as_bytes()).unwrap()).collect();
        for (i, k) in keys.iter().enumerate() {
            t.set(*k, num(i as f64)).unwrap();
        }
        let value_of = |t: &Table, k: TValue, cache: &mut u32| unsafe { t.0.find_string_cached(k, cache) }.map(|n| unsafe { (*n).value });
        // An empty cache, one past the hash part, and one naming another key's slot all miss
        // and then hold the right slot.
        for start in [0u32, 1_000_000, 0xFFFF_FFFF] {
            let mut cache = start;
            assert_eq!(value_of(t, keys[3], &mut cache), Some(num(3.0)));
            let hit = cache;
            assert_eq!(value_of(t, keys[3], &mut cache), Some(num(3.0)));
            assert_eq!(cache, hit);
            assert_eq!(value_of(t, keys[4], &mut cache), Some(num(4.0)));
        }
        // After the hash part is rebuilt (growth moves every key), a stale slot still answers
        // right; an absent key is a miss that leaves nothing wrong behind.
        let mut cache = 0;
        value_of(t, keys[5], &mut cache);
        for i in 0..100 {
            t.set(heap.intern(format!("more{i}").as_bytes()).unwrap(), num(1.0)).unwrap();
        }
        assert_eq!(value_of(t, keys[5], &mut cache), Some(num(5.0)));
        let absent = heap.intern(b"absent").unwrap();
        assert_eq!(value_of(t, absent, &mut cache), None);
        assert_eq!(value_of(t, keys[5], &mut cache), Some(num(5.0)));
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
        // As in 5.1, a rehash sizes the array part to a power of two more than half full.
        assert_eq!(t.array_len(), 128);
        assert_eq!(t.length(), 100);
        for i in 0..1000 {
            t.set(num(1000.0 + i as f64), num(1.0)).unwrap();
            t.set(num(1000.0 + i as f64), TValue::NIL).unwrap();
        }
        assert_eq!(t.length(), 100);
    }

    #[test]
    fn sparse_integer_keys_stay_in_the_hash_part() {
        let mut heap = Heap::default();
        let t = table_mut(Table::new_in(&mut heap).unwrap());
        for i in 1..=50 {
            t.set(num(i as f64 * 1000.0), num(i as f64)).unwrap();
        }
        assert_eq!(t.array_len(), 0);
        // Dense keys 5..=204 in a scrambled order: a rehash moves them to the array part once
        // more than half of 1..=n is used.
        for j in 0..200 {
            let i = 5 + (j * 7) % 200;
            t.set(num(i as f64), num(i as f64)).unwrap();
        }
        assert!(t.array_len() >= 128, "array part {}", t.array_len());
        for i in 1..=50 {
            assert_eq!(t.get(num(i as f64 * 1000.0)), num(i as f64));
        }
        for i in 5..=204 {
            assert_eq!(t.get(num(i as f64)), num(i as f64));
        }
        assert_eq!(t.get(num(4.0)), TValue::NIL);
        assert_eq!(t.set(TValue::NIL, num(1.0)), Err(KeyError::Nil));
    }
}
