//! Lua tables: named slots for string keys under a hidden class ([`Shape`]), an array part
//! for keys `1..=n` and a hash part with open addressing for the other keys.
//!
//! A string key goes to a named slot: the table moves to the shape that adds the key (see
//! `shape.rs`), and the string-keyed bytecodes cache (shape id, slot) per instruction
//! (`TableObject::string_slot_cached`). A table that gains more than
//! [`MAX_SHAPE_SLOTS`](crate::object::shape::MAX_SHAPE_SLOTS) string keys becomes a dictionary: its
//! string keys move to the hash part and it has no shape from then on.
//!
//! A key set to nil keeps its named slot, and the hash part keeps a removed key in its slot with
//! a nil value (Lua's dead keys), so `next` keeps working when a traversal clears fields, as the
//! reference manual allows. Traversal order: array part, named slots, hash part.

use std::mem::ManuallyDrop;

use lua51_value::{
    key_hash, normalize_key as normalize, table_ic_key, ElementKind, GcHeader, ObjKind, Shape, TValue, TableNode as Node, TableObject, TraversalPlace,
};

use crate::object::debt::{account_storage, alloc_values, free_values};
use crate::object::heap::{Heap, OutOfMemory};
use crate::object::shape::{next_ic_id, registry_of, MAX_SHAPE_SLOTS};

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
    /// The table could not grow to take the key (5.1's "not enough memory").
    OutOfMemory,
}

impl From<OutOfMemory> for KeyError {
    fn from(_: OutOfMemory) -> Self {
        KeyError::OutOfMemory
    }
}

/// An empty hash part of `n` (non-zero) nodes, or `OutOfMemory` (growth must fail as an
/// error, never abort the process). Its block comes from `debt`'s kept ones where it can (a
/// small hash part is two words a node); [`free_nodes`] gives it back.
fn empty_nodes(n: usize) -> Result<Box<[Node]>, OutOfMemory> {
    // `used` counts the nodes in a `u32` (and `next_hint` indexes them).
    if n > u32::MAX as usize {
        return Err(OutOfMemory);
    }
    let block = alloc_values(n.checked_mul(2).ok_or(OutOfMemory)?) as *mut Node;
    if block.is_null() {
        return Err(OutOfMemory);
    }
    // SAFETY: room for `n` nodes, allocated as a boxed slice of them would be.
    unsafe {
        for i in 0..n {
            block.add(i).write(EMPTY);
        }
        Ok(Box::from_raw(std::ptr::slice_from_raw_parts_mut(block, n)))
    }
}

/// Frees a hash part of `count` nodes (none for an empty one, which owns no memory).
///
/// # Safety
/// `nodes` is a table's hash part of `count` nodes, not used again.
unsafe fn free_nodes(nodes: *mut Node, count: usize) {
    if count != 0 {
        unsafe { free_values(nodes as *mut u64, count * 2) };
    }
}

/// Inline named slots of a table made by `{}`.
pub const DEFAULT_INLINE_SLOTS: usize = 0;
/// A constructor of at most this many list items gets its array part inline.
pub const MAX_INLINE_ARRAY: usize = 4;
/// At most this many named slots are inline; a constructor naming more gets the rest out of
/// line.
pub const MAX_INLINE_SLOTS: usize = lua51_value::MAX_INLINE_SLOTS;

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

impl Drop for Table {
    /// Inline into the sweep: most dead tables are small ones with everything inside the
    /// object (a tree node, a pair), nothing to account or free, and the sweep drops them by
    /// the million (a call per table was about 45 instructions of binarytrees' ~285 per table).
    #[inline]
    fn drop(&mut self) {
        let array_out_of_line = self.0.array_cap != 0 && !self.array_is_inline();
        if array_out_of_line || self.0.node_count != 0 || self.slots_out_of_line() {
            self.free_storage();
        }
    }
}

impl Table {
    /// What [`Drop`] frees when the table owns memory outside its object.
    #[inline(never)]
    fn free_storage(&mut self) {
        // (`free_out_of_line_slots` accounts for the named slots.)
        let storage = self.out_of_line_array_cap() * 8 + self.0.node_count * std::mem::size_of::<Node>();
        if storage != 0 {
            account_storage(-(storage as isize));
        }
        self.free_out_of_line_slots();
        // SAFETY: the parts came from a Vec and a boxed slice (see `with_array`, `set_nodes`);
        // empty ones own no memory.
        unsafe {
            if self.0.array_cap != 0 && !self.array_is_inline() {
                free_values(self.0.array as *mut u64, self.0.array_cap);
            }
            free_nodes(self.0.nodes, self.0.node_count);
        }
    }
}

impl Table {
    pub fn new_in(heap: &mut Heap) -> Result<TValue, OutOfMemory> {
        Self::with_capacity(heap, 0, 0)
    }

    /// A table with room for `array` array elements and `named` string keys (a constructor's
    /// counts); the hash part starts empty.
    ///
    /// The first named slots are inline, after the object's fields, so a field read touches the
    /// object alone: as many as the constructor names (up to [`MAX_INLINE_SLOTS`]), or
    /// [`DEFAULT_INLINE_SLOTS`] for `{}`. A constructor of at most [`MAX_INLINE_ARRAY`] list
    /// items has its array part inline too (a tree node, a pair), until it grows.
    pub fn with_capacity(heap: &mut Heap, array: usize, named: usize) -> Result<TValue, OutOfMemory> {
        let inline_named = match (array, named) {
            (0, 0) => DEFAULT_INLINE_SLOTS,
            (_, named) => named.min(MAX_INLINE_SLOTS),
        };
        let inline_array = if array <= MAX_INLINE_ARRAY { array } else { 0 };
        // Not zeroed: every field is written below, and the inline slots and array are read
        // only up to the shape's and the array's lengths, both 0 here.
        let p = heap.alloc_uninit(std::mem::size_of::<Table>() + (inline_named + inline_array) * 8, ObjKind::Table)? as *mut Table;
        let inline = unsafe { p.add(1) as *mut TValue };
        // A larger array part is attached once the object is a valid table (`attach_array`).
        let (array_ptr, array_cap) = if inline_array > 0 {
            (unsafe { inline.add(inline_named) }, inline_array)
        } else {
            (std::ptr::NonNull::<TValue>::dangling().as_ptr(), 0)
        };
        let nodes = Box::into_raw(Vec::<Node>::new().into_boxed_slice()) as *mut Node;
        let shape = heap.shapes.root();
        // SAFETY: `heap.alloc` returned room for a Table and its inline slots, whose header
        // it initialised.
        unsafe {
            let t = std::ptr::addr_of_mut!((*p).0);
            std::ptr::addr_of_mut!((*t).header.flags).write((inline_named | inline_array << 8) as u16);
            std::ptr::addr_of_mut!((*t).metatable).write(std::ptr::null_mut());
            std::ptr::addr_of_mut!((*t).shape).write(shape);
            std::ptr::addr_of_mut!((*t).header.ic_key).write(table_ic_key((*shape).id, false, false));
            std::ptr::addr_of_mut!((*t).slots).write(inline);
            std::ptr::addr_of_mut!((*t).slot_cap).write(inline_named as u16);
            std::ptr::addr_of_mut!((*t).array_kind).write(ElementKind::Numbers as u8);
            std::ptr::addr_of_mut!((*t).array).write(array_ptr);
            std::ptr::addr_of_mut!((*t).array_len).write(0);
            std::ptr::addr_of_mut!((*t).array_cap).write(array_cap);
            std::ptr::addr_of_mut!((*t).nodes).write(nodes);
            std::ptr::addr_of_mut!((*t).node_count).write(0);
            std::ptr::addr_of_mut!((*t).used).write(0);
            std::ptr::addr_of_mut!((*t).next_hint).write(std::cell::Cell::new(0));
            std::ptr::addr_of_mut!((*t).index_cache_key).write(std::cell::Cell::new(deegen_api::ic::IMPOSSIBLE_KEY));
            std::ptr::addr_of_mut!((*t).index_cache_state).write(std::cell::Cell::new(0));
        }
        if array > MAX_INLINE_ARRAY {
            // SAFETY: a valid table now, with an empty array part.
            unsafe { (*p).attach_array(array)? };
        }
        Ok(TValue::from_table(p.cast()))
    }

    /// Gives a new table's empty array part room for `cap` elements (a constructor's list);
    /// out of memory, the table stays valid and empty (the collector owns it already).
    #[cold]
    fn attach_array(&mut self, cap: usize) -> Result<(), OutOfMemory> {
        let block = alloc_values(cap) as *mut TValue;
        if block.is_null() {
            return Err(OutOfMemory);
        }
        account_storage((cap * 8) as isize);
        self.0.array = block;
        self.0.array_cap = cap;
        Ok(())
    }

    pub fn header(&self) -> &GcHeader {
        &self.0.header
    }

    /// The metatable, or null.
    pub fn metatable(&self) -> *mut Table {
        self.0.metatable as *mut Table
    }

    /// Sets the metatable; the inline-cache key says whether there is one (a cache hit relies
    /// on it, see `TableObject::ic_key`).
    pub fn set_metatable(&mut self, mt: *mut Table) {
        self.0.set_metatable(mt as *mut TableObject);
    }

    /// Whether `slots` points elsewhere than at the inline slots (an out-of-line block, or a
    /// dictionary's hash part).
    fn slots_not_inline(&self) -> bool {
        self.0.slots != self.inline_ptr()
    }

    /// The hidden class, or null for a dictionary.
    pub fn shape(&self) -> *mut Shape {
        self.0.shape
    }

    /// Named slots inside the object (the allocation's tail, first).
    pub fn inline_slots(&self) -> usize {
        (self.0.header.flags & 0xFF) as usize
    }

    /// Array elements inside the object (after the inline named slots).
    fn inline_array(&self) -> usize {
        (self.0.header.flags >> 8) as usize
    }

    /// Bytes the object was allocated with, inline slots included.
    pub fn object_size(&self) -> usize {
        std::mem::size_of::<Table>() + (self.inline_slots() + self.inline_array()) * 8
    }

    fn array_is_inline(&self) -> bool {
        self.inline_array() > 0 && self.0.array == unsafe { self.inline_ptr().add(self.inline_slots()) }
    }

    /// The array part's capacity outside the object (for accounting).
    fn out_of_line_array_cap(&self) -> usize {
        if self.array_is_inline() {
            0
        } else {
            self.0.array_cap
        }
    }

    /// `t[n + 1] = value` for the array part's length `n`, when the array part ends in a value
    /// and `value` is not nil (the caller's conditions): the array part grows by one (and when
    /// full, doubles), the key leaves the hash part if it was there, and the keys after it that
    /// the hash part holds move into the array part. (In line: for the handlers' runtime
    /// append a call more was a fiftieth of storage's instructions.)
    #[inline(always)]
    pub fn append(&mut self, value: TValue) -> Result<(), OutOfMemory> {
        debug_assert!(!value.is_nil() && self.array().last().is_none_or(|v| !v.is_nil()));
        self.array_push(value)?;
        if self.0.used != 0 {
            self.remove_from_hash(TValue::from_f64(self.0.array_len as i64 as f64));
            // What does not fit stays in the hash part, where lookups find it.
            let _ = self.migrate_to_array();
        }
        Ok(())
    }

    /// Appends to the array part, in place while it has room.
    fn array_push(&mut self, value: TValue) -> Result<(), OutOfMemory> {
        if self.0.array_len == self.0.array_cap {
            self.double_array()?;
        }
        // SAFETY: len < cap.
        unsafe { self.0.array.add(self.0.array_len).write(value) };
        self.0.array_len += 1;
        self.0.note_array_store(value);
        Ok(())
    }

    /// Moves the array part to a block of twice its capacity (at least 4, as a `Vec` grows),
    /// through the kept blocks of `debt` (an appended-to array grows through their sizes).
    fn double_array(&mut self) -> Result<(), OutOfMemory> {
        let (old, cap, len) = (self.0.array, self.0.array_cap, self.0.array_len);
        let new_cap = (cap * 2).max(4);
        let block = alloc_values(new_cap) as *mut TValue;
        if block.is_null() {
            return Err(OutOfMemory);
        }
        let old_out_of_line = self.out_of_line_array_cap();
        // SAFETY: the new block has room for `len` < `new_cap` elements; the old part (out of
        // the object, and not empty) is the table's to free.
        unsafe {
            std::ptr::copy_nonoverlapping(old, block, len);
            if old_out_of_line != 0 {
                free_values(old as *mut u64, cap);
            }
        }
        account_storage((new_cap as isize - old_out_of_line as isize) * 8);
        self.0.array = block;
        self.0.array_cap = new_cap;
        Ok(())
    }

    /// Grows the array part to `n` elements (nil-filled), in place while it has room; on
    /// failure the table is as it was.
    fn array_grow_to(&mut self, n: usize) -> Result<(), OutOfMemory> {
        let grows = n > self.0.array_len;
        if n <= self.0.array_cap {
            for i in self.0.array_len..n {
                // SAFETY: i < n <= cap.
                unsafe { self.0.array.add(i).write(TValue::NIL) };
            }
        } else {
            self.with_array(|a| {
                a.try_reserve(n - a.len()).map_err(|_| OutOfMemory)?;
                a.resize(n, TValue::NIL);
                Ok(())
            })?;
        }
        if grows {
            // The new elements are nils: the element kind may have holes now.
            self.0.note_array_store(TValue::NIL);
            self.0.array_len = self.0.array_len.max(n);
        }
        Ok(())
    }

    fn inline_ptr(&self) -> *mut TValue {
        // SAFETY: the inline slots follow the struct in its allocation.
        unsafe { (self as *const Table).add(1) as *mut TValue }
    }

    /// Whether the named slots live in their own block (not inline, and not a dictionary's
    /// view of its hash part).
    fn slots_out_of_line(&self) -> bool {
        !self.0.shape.is_null() && self.0.slots != self.inline_ptr()
    }

    /// Frees the named slots if they moved out of the object.
    fn free_out_of_line_slots(&mut self) {
        if self.slots_out_of_line() {
            account_storage(-(self.0.slot_cap as isize) * 8);
            // SAFETY: out-of-line slots are a block of `slot_cap` (see `add_named`).
            unsafe { free_values(self.0.slots as *mut u64, self.0.slot_cap as usize) };
        }
    }

    /// The named slots' values, in slot order.
    fn named(&self) -> &[TValue] {
        if self.0.shape.is_null() {
            return &[];
        }
        // SAFETY: a shaped table has `(*shape).len` initialised slots.
        unsafe { std::slice::from_raw_parts(self.0.slots, (*self.0.shape).len as usize) }
    }

    fn named_mut(&mut self) -> &mut [TValue] {
        if self.0.shape.is_null() {
            return &mut [];
        }
        unsafe { std::slice::from_raw_parts_mut(self.0.slots, (*self.0.shape).len as usize) }
    }

    /// The keys of the named slots, in slot order.
    fn named_keys(&self) -> &[TValue] {
        if self.0.shape.is_null() {
            return &[];
        }
        // SAFETY: a shape has `len` keys.
        unsafe { std::slice::from_raw_parts((*self.0.shape).keys, (*self.0.shape).len as usize) }
    }

    /// Adds string key `key` (absent) with `value`: a transition to the next shape, or the
    /// switch to dictionary mode (then the caller stores into the hash part); returns whether
    /// the value was stored.
    fn add_named(&mut self, key: TValue, value: TValue) -> Result<bool, KeyError> {
        let shape = self.0.shape;
        let len = unsafe { (*shape).len } as usize;
        // The larger block first: a failure leaves the table as it was.
        let new_cap = (len * 2).clamp(4, MAX_SHAPE_SLOTS as usize);
        let block = if len == self.0.slot_cap as usize {
            let block = alloc_values(new_cap) as *mut TValue;
            if block.is_null() {
                return Err(KeyError::OutOfMemory);
            }
            block
        } else {
            std::ptr::null_mut()
        };
        // SAFETY: a shaped table's shape is alive and belongs to a live registry.
        let Some(next) = (unsafe { registry_of(shape).transition(shape, key) }) else {
            if !block.is_null() {
                // SAFETY: allocated above for `new_cap` slots, never used.
                unsafe { free_values(block as *mut u64, new_cap) };
            }
            self.make_dictionary()?;
            return Ok(false);
        };
        if !block.is_null() {
            // Out of the object (or into a larger out-of-line block): every slot moves.
            // SAFETY: the block has room for `new_cap` > `len` slots.
            unsafe { std::ptr::copy_nonoverlapping(self.named().as_ptr(), block, len) };
            self.free_out_of_line_slots();
            account_storage(new_cap as isize * 8);
            self.0.slots = block;
            self.0.slot_cap = new_cap as u16;
        }
        // SAFETY: len < slot_cap.
        unsafe { self.0.slots.add(len).write(value) };
        self.0.shape = next;
        self.0.header.ic_key = table_ic_key(unsafe { (*next).id }, self.slots_not_inline(), !self.0.metatable.is_null());
        Ok(true)
    }

    /// Moves the named slots' live entries to the hash part; the table has no shape after.
    fn make_dictionary(&mut self) -> Result<(), KeyError> {
        let entries: Vec<(TValue, TValue)> =
            self.named_keys().iter().copied().zip(self.named().iter().copied()).filter(|(_, v)| !v.is_nil()).collect();
        // Every allocation here may fail (a huge table near the memory limit): none aborts.
        let is_live = |n: &&Node| !n.key.is_nil() && !n.value.is_nil();
        let mut live: Vec<Node> = Vec::new();
        live.try_reserve_exact(self.nodes().iter().filter(is_live).count()).map_err(|_| OutOfMemory)?;
        live.extend(self.nodes().iter().filter(is_live).copied());
        // Room for every entry first: the named slots are gone once the switch starts.
        let cap = ((live.len() + entries.len() + 1) * 2).next_power_of_two().max(4);
        let nodes = empty_nodes(cap)?;
        self.free_out_of_line_slots();
        self.0.slot_cap = 0;
        self.0.shape = std::ptr::null_mut();
        self.refill_hash(nodes, live.into_iter().chain(entries.into_iter().map(|(key, value)| Node { key, value })));
        Ok(())
    }

    /// Makes `nodes` (empty, with room for them) the hash part, holding `entries` (distinct
    /// keys).
    fn refill_hash(&mut self, nodes: Box<[Node]>, entries: impl Iterator<Item = Node>) {
        self.set_nodes(nodes);
        self.0.used = 0;
        for n in entries {
            let slot = self.find_slot(n.key).expect_err("keys are unique").expect("room was made for every entry");
            self.nodes_mut()[slot] = n;
            self.0.used += 1;
        }
    }

    /// A dictionary's inline-cache key and `slots` after its hash part moved (see
    /// `TableObject::ic_key`): caches of the old places must not match.
    fn renew_dictionary_ic_key(&mut self) {
        // SAFETY: one past the first node's key, within (or one past) the hash part.
        self.0.slots = unsafe { (self.0.nodes as *mut TValue).add(1) };
        self.0.header.ic_key = table_ic_key(next_ic_id(), true, !self.0.metatable.is_null());
    }

    fn array(&self) -> &[TValue] {
        // SAFETY: `array` points at `array_len` initialised values (dangling when empty).
        unsafe { std::slice::from_raw_parts(self.0.array, self.0.array_len) }
    }

    fn array_mut(&mut self) -> &mut [TValue] {
        unsafe { std::slice::from_raw_parts_mut(self.0.array, self.0.array_len) }
    }

    /// Runs `f` on the array part as the `Vec` it is, then stores its parts back.
    fn with_array<R>(&mut self, f: impl FnOnce(&mut Vec<TValue>) -> Result<R, OutOfMemory>) -> Result<R, OutOfMemory> {
        if self.array_is_inline() {
            // Out of the object first: a Vec owns what it grows.
            let mut v = Vec::new();
            v.try_reserve_exact(self.0.array_cap).map_err(|_| OutOfMemory)?;
            let mut v = ManuallyDrop::new(v);
            v.extend_from_slice(self.array());
            account_storage((v.capacity() * 8) as isize);
            self.0.array = v.as_mut_ptr();
            self.0.array_cap = v.capacity();
        }
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
        // SAFETY: the old part is the table's hash part of `node_count` nodes.
        unsafe { free_nodes(old, self.0.node_count) };
        self.0.node_count = count;
        if self.0.shape.is_null() {
            self.renew_dictionary_ic_key();
        }
    }

    /// The slot holding `k`, or where it would go (`None` when the hash part is empty).
    fn find_slot(&self, k: TValue) -> Result<usize, Option<usize>> {
        self.0.probe(k, key_hash(k))
    }

    /// Raw get (`rawget`).
    pub fn get(&self, key: TValue) -> TValue {
        self.0.raw_get(key)
    }

    /// Raw get of the integer key `i`: an element of the array part directly, anything else
    /// as [`Self::get`] (the library's loops over `1..n`: `table.sort`, `concat`, `unpack`).
    #[inline]
    pub fn get_int(&self, i: i64) -> TValue {
        let index = (i as u64).wrapping_sub(1);
        if index < self.0.array_len as u64 {
            // SAFETY: index < array_len.
            return unsafe { *self.0.array.add(index as usize) };
        }
        self.get(TValue::from_f64(i as f64))
    }

    /// Raw set of the integer key `i`: in place in the array part, anything else as
    /// [`Self::set`].
    #[inline]
    pub fn set_int(&mut self, i: i64, value: TValue) -> Result<(), KeyError> {
        let index = (i as u64).wrapping_sub(1);
        if index < self.0.array_len as u64 {
            // SAFETY: index < array_len.
            unsafe { *self.0.array.add(index as usize) = value };
            self.0.note_array_store(value);
            return Ok(());
        }
        self.set(TValue::from_f64(i as f64), value)
    }

    /// Raw get of an interned string key.
    pub fn get_str(&self, key: TValue) -> TValue {
        self.0.raw_get_str(key)
    }

    /// Raw get of a key of any kind, with interned strings (most keys that reach the runtime)
    /// probed without the dispatch on the key's kind.
    #[inline]
    pub fn get_any(&self, key: TValue) -> TValue {
        if key.is_string() {
            self.get_str(key)
        } else {
            self.get(key)
        }
    }

    /// This table's `__index` field as a metatable, through the cache it keeps of where that
    /// field is (`index_event` is the interned `"__index"`).
    #[inline]
    pub fn index_handler(&self, index_event: TValue) -> TValue {
        self.0.index_handler(index_event)
    }

    /// A table constructor's `key = value` (a string key): [`Table::set`], except that in a
    /// shaped table a nil value still gives an absent key its named slot (where `set` would
    /// store nothing), so that the tables one constructor makes share their hidden class
    /// whichever fields were nil. A nil slot is an absent key to every reader, as after
    /// `t.key = nil`.
    pub fn init_field(&mut self, key: TValue, value: TValue) -> Result<(), KeyError> {
        if value.is_nil() && key.is_string() && !self.0.shape.is_null() && self.0.string_slot(key).is_none() {
            // `false`: the table became a dictionary instead, where a nil store is none.
            self.add_named(key, value)?;
            return Ok(());
        }
        self.set(key, value)
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
            self.0.note_array_store(value);
            return Ok(());
        }
        if key.is_string() && !self.0.shape.is_null() {
            if let Some(slot) = self.0.string_slot(key) {
                unsafe { *slot = value };
                return Ok(());
            }
            if value.is_nil() || self.add_named(key, value)? {
                return Ok(());
            }
            // Now a dictionary: the key goes to the hash part below.
        }
        let key = normalize(key);
        // Appending right after the array part (`t[#t + 1] = v`) grows it in place, when the
        // array is full up to its end; past a nil at the end, 5.1 would put the key in the
        // hash part (its array only grows at a rehash), and `#t` would see a different border.
        let full_to_end = self.array().last().is_none_or(|v| !v.is_nil());
        if full_to_end && key.is_double() && key.as_f64() == (self.0.array_len + 1) as i64 as f64 && !value.is_nil() {
            return Ok(self.append(value)?);
        }
        match self.find_slot(key) {
            Ok(i) => self.nodes_mut()[i].value = value,
            Err(slot) => {
                if value.is_nil() {
                    return Ok(());
                }
                let slot = match slot {
                    Some(s) if self.0.hash_has_room() => s,
                    _ => {
                        // The key may belong to the resized array part now; there is room
                        // either way, so this runs once.
                        self.rehash(key)?;
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
    pub fn set_list(&mut self, first: usize, values: &[TValue]) -> Result<(), KeyError> {
        let Some(last) = (first + values.len()).checked_sub(1).filter(|_| !values.is_empty()) else { return Ok(()) };
        let (kind_before, len_before) = (self.0.array_kind, self.0.array_len);
        if first - 1 > len_before {
            // A constructor's lists continue the array part; a list that leaves a gap (only
            // bytecode from outside writes one, say at index 2^32) is stored key by key, so
            // the hash part takes what the array part should not cover.
            for (i, v) in values.iter().enumerate() {
                self.set(TValue::from_f64((first + i) as f64), *v)?;
            }
            return Ok(());
        }
        if last > len_before {
            self.grow_array(last)?;
        }
        self.array_mut()[first - 1..last].copy_from_slice(values);
        if first - 1 <= len_before {
            // The values cover every slot the growth added (no gap before `first`): the
            // growth's interim nils are gone again.
            self.0.array_kind = kind_before;
        }
        for v in values {
            self.0.note_array_store(*v);
        }
        Ok(())
    }

    /// Grows the array part to `n` slots, moving the hash part's entries it now covers.
    fn grow_array(&mut self, n: usize) -> Result<(), OutOfMemory> {
        self.array_grow_to(n)?;
        if self.0.used == 0 {
            return Ok(());
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
        self.recompute_element_kind();
        Ok(())
    }

    /// Sets the element kind from the elements themselves (after the array part was rebuilt;
    /// everywhere else a store only generalises it).
    fn recompute_element_kind(&mut self) {
        let mut kind = ElementKind::Numbers as u8;
        for v in self.array() {
            kind = kind.max(if v.is_double() {
                0
            } else if v.is_nil() {
                2
            } else {
                1
            });
        }
        self.0.array_kind = kind;
    }

    fn remove_from_hash(&mut self, key: TValue) {
        if let Ok(i) = self.find_slot(key) {
            self.nodes_mut()[i].value = TValue::NIL;
        }
    }

    /// Moves `n+1, n+2, ...` from the hash part to the end of the array part.
    fn migrate_to_array(&mut self) -> Result<(), OutOfMemory> {
        if self.0.used == 0 {
            return Ok(());
        }
        loop {
            let k = TValue::from_f64((self.0.array_len + 1) as f64);
            match self.find_slot(k) {
                Ok(i) if !self.nodes()[i].value.is_nil() => {
                    let v = self.nodes()[i].value;
                    self.array_push(v)?;
                    self.nodes_mut()[i].value = TValue::NIL;
                }
                _ => return Ok(()),
            }
        }
    }

    /// Resizes both parts for the live keys plus `incoming`, as Lua 5.1's `rehash` does: the
    /// array part grows to the largest power of two that would be more than half full (so
    /// integer keys stored out of order end up in the array), the hash part takes the rest
    /// without dead keys, at least doubling when mostly live. The array part never shrinks.
    fn rehash(&mut self, incoming: TValue) -> Result<(), OutOfMemory> {
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
        // Every allocation here may fail (a huge table near the memory limit): none aborts.
        let is_live = |n: &&Node| !n.key.is_nil() && !n.value.is_nil();
        let mut live: Vec<Node> = Vec::new();
        live.try_reserve_exact(self.nodes().iter().filter(is_live).count()).map_err(|_| OutOfMemory)?;
        live.extend(self.nodes().iter().filter(is_live).copied());
        for k in live.iter().filter_map(|n| array_candidate(n.key)).chain(array_candidate(incoming)) {
            count(k);
        }
        let array_size = optimal_array_size(&nums, total);
        // Where the hash part's entries go, and room for them, before anything changes.
        let will_fit = |n: &Node| array_candidate(n.key).is_some_and(|k| k <= array_size.max(self.0.array_len));
        let hash_entries = live.iter().filter(|n| !will_fit(n)).count();
        let cap = ((hash_entries + 1) * 2).next_power_of_two().max(4);
        let nodes = empty_nodes(cap)?;
        if array_size > self.0.array_len {
            self.array_grow_to(array_size)?;
        }
        // (The live entries the grown array covers move below, with the hash part rebuilt.)
        let mut to_hash = 0;
        for n in &live {
            match self.0.array_slot(n.key) {
                Some(slot) => unsafe { *slot = n.value },
                None => to_hash += 1,
            }
        }
        // The array part was just rebuilt (visiting every element already): its exact kind.
        self.recompute_element_kind();
        debug_assert!(to_hash <= hash_entries, "the hash part was sized for at least these");
        let array_len = self.0.array_len;
        self.refill_hash(nodes, live.into_iter().filter(|n| array_candidate(n.key).is_none_or(|k| k > array_len)));
        Ok(())
    }

    /// Moves the elements `from..from + count` (1-based keys) of the array part `by` places
    /// up (`by` > 0) or down, in one move, when every key involved, source and destination,
    /// lies in the array part; false, and nothing moved, otherwise. For `table.insert` and
    /// `table.remove` at a position (5.1 moves the elements one `rawget`/`rawset` at a time):
    /// the values stay the table's, so neither the element kind nor the length changes; the
    /// caller takes the write barrier (a table traced in pieces may see an element move into
    /// a piece it traced already).
    pub fn move_in_array(&mut self, from: usize, count: usize, by: isize) -> bool {
        let len = self.0.array_len;
        let Some(to) = from.checked_add_signed(by) else { return false };
        if from == 0 || to == 0 || from.max(to).saturating_add(count) > len + 1 {
            return false;
        }
        self.array_mut().copy_within(from - 1..from - 1 + count, to - 1);
        true
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

    /// The entry after `key` in traversal order (array part, named slots, then hash part);
    /// `None` at the end.
    ///
    /// A key outside the array part is first looked for where the previous step's key was
    /// returned from ([`TableObject::next_hint`]): a traversal then reads the named slots or
    /// the hash part in order, where looking each key up again (as 5.1 does) costs a random
    /// access per step, a cache miss in a large dictionary.
    pub fn next(&self, key: TValue) -> Result<Option<(TValue, TValue)>, InvalidKey> {
        let from = match self.0.next_start_hinted(key) {
            Some(from) => from,
            None if key.is_string() && !self.0.shape.is_null() => TraversalPlace::Named(unsafe { (*self.0.shape).find(key) }.ok_or(InvalidKey)? + 1),
            None => TraversalPlace::Hash(self.find_slot(normalize(key)).map_err(|_| InvalidKey)? + 1),
        };
        Ok(self.0.next_from(from))
    }

    pub fn array_len(&self) -> usize {
        self.0.array_len
    }

    /// Calls `f` on every key (if `keys`) and value (if `values`) held, for the collector. The
    /// named slots' keys are the shape's, which the collector marks through the shape.
    #[inline]
    pub fn trace(&self, keys: bool, values: bool, mut f: impl FnMut(TValue)) {
        if values {
            self.array().iter().for_each(|v| f(*v));
        }
        self.trace_except_array(keys, values, f);
    }

    /// The array part's elements from `from` on, at most `len` of them (none past its end): the
    /// collector traces a long array part a piece at a time.
    pub fn array_piece(&self, from: usize, len: usize) -> &[TValue] {
        let array = self.array();
        &array[from.min(array.len())..from.saturating_add(len).min(array.len())]
    }

    /// [`Table::trace`] but for the array part.
    pub fn trace_except_array(&self, keys: bool, values: bool, mut f: impl FnMut(TValue)) {
        if values {
            self.named().iter().for_each(|v| f(*v));
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

    /// Removes the entries of a weak table whose key or value is cleared (5.1's `cleartable`;
    /// the two tests differ for userdata queued for finalization).
    pub fn clear_dead(&mut self, dead_key: &dyn Fn(TValue) -> bool, dead_value: &dyn Fn(TValue) -> bool) {
        let mut cleared = false;
        for v in self.array_mut() {
            if dead_value(*v) {
                *v = TValue::NIL;
                cleared = true;
            }
        }
        if cleared {
            self.0.note_array_store(TValue::NIL);
        }
        // Named keys are strings, never dead; their slots keep their place with nil values.
        for v in self.named_mut() {
            if dead_value(*v) {
                *v = TValue::NIL;
            }
        }
        for n in self.nodes_mut() {
            if !n.key.is_nil() && (dead_key(n.key) || dead_value(n.value)) {
                // Keep the key in place as a dead key (traversal stays valid); it is dropped at
                // the next rehash.
                n.value = TValue::NIL;
            }
        }
    }

    /// Bytes owned outside the object (array part, named slots and hash part), for the
    /// collector's accounting.
    pub fn owned_bytes(&self) -> usize {
        let out_of_line = if self.slots_out_of_line() { self.0.slot_cap as usize } else { 0 };
        (self.out_of_line_array_cap() + out_of_line) * 8 + self.0.node_count * std::mem::size_of::<Node>()
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

    /// The value a GetField-style lookup finds through inline cache `cache`.
    fn cached(t: &Table, k: TValue, cache: &mut [u8; 8]) -> Option<TValue> {
        unsafe { t.0.string_slot_cached(k, cache.as_mut_ptr()) }.map(|v| unsafe { *v })
    }

    /// Every element of the array part, checked against the kind the table claims.
    fn kind_holds(t: &Table) -> bool {
        let claim = t.0.element_kind();
        t.array().iter().all(|v| match claim {
            ElementKind::Numbers => v.is_double(),
            ElementKind::Values => !v.is_nil(),
            ElementKind::Holes => true,
        })
    }

    #[test]
    fn growing_the_array_part_with_nils_marks_its_holes_in_place_or_moved() {
        let mut heap = Heap::default();
        for n in [2, 100_000] {
            let t = table_mut(Table::with_capacity(&mut heap, 4, 0).unwrap());
            t.set_list(1, &[num(1.0), num(2.0)]).unwrap();
            t.array_grow_to(n + 2).unwrap();
            assert_eq!(t.0.element_kind(), ElementKind::Holes, "grown to {}", n + 2);
            assert!(kind_holds(t));
        }
    }

    #[test]
    fn element_kinds_generalise_with_every_way_into_the_array_part() {
        let mut heap = Heap::default();
        let s = heap.intern(b"s").unwrap();
        let t = table_mut(Table::new_in(&mut heap).unwrap());
        assert_eq!(t.0.element_kind(), ElementKind::Numbers);
        for i in 1..=8 {
            t.set(num(i as f64), num(i as f64 * 0.5)).unwrap();
        }
        assert_eq!((t.0.element_kind(), t.length()), (ElementKind::Numbers, 8));
        t.set(num(3.0), s).unwrap();
        assert_eq!(t.0.element_kind(), ElementKind::Values);
        t.set(num(8.0), TValue::NIL).unwrap();
        assert_eq!(t.0.element_kind(), ElementKind::Holes);
        assert_eq!(t.0.length_fast(), None, "a nil at the end is looked at");
        t.set(num(8.0), num(1.0)).unwrap();
        assert_eq!(t.0.element_kind(), ElementKind::Holes, "kinds only generalise");
        assert!(kind_holds(t));

        // Keys stored out of order reach the array part at a rehash, from the hash part (the
        // kind is recomputed then; holes filled later keep it `Holes`, as in V8).
        let u = table_mut(Table::new_in(&mut heap).unwrap());
        for i in (1..=20).rev() {
            u.set(num(i as f64), if i == 7 { s } else { num(1.0) }).unwrap();
            assert!(kind_holds(u), "after storing {i}");
        }
        let r = table_mut(Table::new_in(&mut heap).unwrap());
        for i in [2.0, 3.0, 4.0, 1.0, 5.0] {
            r.set(num(i), num(i)).unwrap();
            assert!(kind_holds(r), "after storing {i}");
        }
        assert_eq!((r.0.element_kind(), r.length()), (ElementKind::Numbers, 5), "migrated whole, without holes");

        // A constructor's list, nils included; growth past the end fills with nil.
        let v = table_mut(Table::new_in(&mut heap).unwrap());
        v.set_list(1, &[num(1.0), num(2.0)]).unwrap();
        assert_eq!(v.0.element_kind(), ElementKind::Numbers);
        v.set_list(3, &[TValue::NIL, num(4.0)]).unwrap();
        assert_eq!(v.0.element_kind(), ElementKind::Holes);
        assert!(kind_holds(v));

        // Weak values cleared by the collector leave holes.
        let w = table_mut(Table::new_in(&mut heap).unwrap());
        w.set(num(1.0), s).unwrap();
        w.set(num(2.0), s).unwrap();
        w.clear_dead(&|x| x == s, &|x| x == s);
        assert_eq!(w.0.element_kind(), ElementKind::Holes);
        assert!(kind_holds(w));
    }

    #[test]
    fn tables_built_alike_share_a_shape_and_the_cache_follows_it() {
        let mut heap = Heap::default();
        let a = table_mut(Table::new_in(&mut heap).unwrap());
        let b = table_mut(Table::new_in(&mut heap).unwrap());
        let c = table_mut(Table::new_in(&mut heap).unwrap());
        let (x, y) = (heap.intern(b"x").unwrap(), heap.intern(b"y").unwrap());
        for (t, first, second) in [(&mut *a, x, y), (&mut *b, x, y), (&mut *c, y, x)] {
            t.set(first, num(1.0)).unwrap();
            t.set(second, num(2.0)).unwrap();
        }
        assert_eq!(a.shape(), b.shape());
        assert_ne!(a.shape(), c.shape());
        let mut cache = [0u8; 8];
        assert_eq!(cached(a, y, &mut cache), Some(num(2.0)));
        assert_eq!(u32::from_le_bytes(cache[..4].try_into().unwrap()), a.0.ic_key());
        // A hit on another table of the shape; a table of another shape misses, finds its own
        // slot and takes the cache over.
        b.set(y, num(20.0)).unwrap();
        assert_eq!(cached(b, y, &mut cache), Some(num(20.0)));
        assert_eq!(cached(c, y, &mut cache), Some(num(1.0)));
        assert_eq!(cached(a, y, &mut cache), Some(num(2.0)));
        // Setting a key to nil keeps its slot (and the shape): traversal stays valid.
        let shape = a.shape();
        a.set(x, TValue::NIL).unwrap();
        assert_eq!(a.shape(), shape);
        assert_eq!(a.next(TValue::NIL).unwrap(), Some((y, num(2.0))));
        assert_eq!(a.next(x).unwrap(), Some((y, num(2.0))));
        assert_eq!(a.next(y).unwrap(), None);
    }

    #[test]
    fn many_string_keys_make_a_dictionary_and_the_cache_still_checks() {
        let mut heap = Heap::default();
        let t = table_mut(Table::new_in(&mut heap).unwrap());
        let keys: Vec<TValue> = (0..200).map(|i| heap.intern(format!("k{i}").as_bytes()).unwrap()).collect();
        // One cache per key, as one per instruction of a constant key.
        let mut caches = vec![[0u8; 8]; keys.len()];
        for (i, k) in keys.iter().enumerate() {
            t.set(*k, num(i as f64)).unwrap();
            // Lookups keep working through every transition and the switch to a dictionary
            // (which moves every key), with each cache reused across them.
            assert_eq!(cached(t, keys[i / 2], &mut caches[i / 2]), Some(num((i / 2) as f64)), "after {i} keys");
            assert_eq!(cached(t, keys[0], &mut caches[0]), Some(num(0.0)), "after {i} keys");
            assert_eq!(t.get(keys[0]), num(0.0));
        }
        assert!(t.shape().is_null(), "past MAX_SHAPE_SLOTS keys a table is a dictionary");
        let id = t.0.ic_key();
        t.set(keys[0], num(-1.0)).unwrap();
        assert_eq!(t.0.ic_key(), id, "overwriting keeps the dictionary's places");
        // A dictionary hit, then a rebuilt hash part (every key moves): the old entry must
        // not match, and the new lookup caches the new place.
        let mut cache = [0u8; 8];
        assert_eq!(cached(t, keys[150], &mut cache), Some(num(150.0)));
        assert_eq!(u32::from_le_bytes(cache[..4].try_into().unwrap()), id);
        for i in 0..300 {
            t.set(heap.intern(format!("more{i}").as_bytes()).unwrap(), num(1.0)).unwrap();
        }
        assert_ne!(t.0.ic_key(), id);
        assert_eq!(cached(t, keys[150], &mut cache), Some(num(150.0)));
        assert_eq!(cached(t, keys[150], &mut cache), Some(num(150.0)));
        // By value (`t[k]`, no cache): varying keys, found through the hash part.
        for k in [keys[3], keys[7], keys[3], keys[199]] {
            assert_eq!(t.0.string_slot(k).map(|v| unsafe { *v }), Some(t.get(k)));
        }
        for i in 0..300 {
            t.set(heap.intern(format!("more{i}").as_bytes()).unwrap(), TValue::NIL).unwrap();
        }
        let absent = heap.intern(b"absent").unwrap();
        assert_eq!(cached(t, absent, &mut [0u8; 8]), None);
        let mut seen = 0;
        let mut k = TValue::NIL;
        while let Some((key, _)) = t.next(k).unwrap() {
            seen += 1;
            k = key;
        }
        assert_eq!(seen, 200);
    }

    #[test]
    fn shapes_are_found_past_the_linear_lookup() {
        let mut heap = Heap::default();
        let t = table_mut(Table::new_in(&mut heap).unwrap());
        let keys: Vec<TValue> = (0..40).map(|i| heap.intern(format!("field{i}").as_bytes()).unwrap()).collect();
        for (i, k) in keys.iter().enumerate() {
            t.set(*k, num(i as f64)).unwrap();
        }
        assert!(!t.shape().is_null());
        for (i, k) in keys.iter().enumerate() {
            assert_eq!(t.get(*k), num(i as f64));
            assert_eq!(unsafe { (*t.shape()).find(*k) }, Some(i));
        }
        assert_eq!(t.get(heap.intern(b"field40").unwrap()), TValue::NIL);
    }

    #[test]
    fn an_inline_array_part_grows_out_of_the_object() {
        let mut heap = Heap::default();
        let t = table_mut(Table::with_capacity(&mut heap, 2, 1).unwrap());
        assert!(t.array_is_inline());
        assert_eq!(t.owned_bytes(), 0, "inline parts are not storage");
        t.set_list(1, &[num(1.0), num(2.0)]).unwrap();
        let name = heap.intern(b"n").unwrap();
        t.set(name, num(-1.0)).unwrap();
        assert!(t.array_is_inline());
        // Appending past the inline room moves the part out; out-of-order keys make a rehash.
        for i in 3..=10 {
            t.set(num(i as f64), num(i as f64)).unwrap();
        }
        t.set(num(16.0), num(16.0)).unwrap();
        for i in (11..=15).rev() {
            t.set(num(i as f64), num(i as f64)).unwrap();
        }
        assert!(!t.array_is_inline());
        assert_eq!(t.length(), 16);
        for i in 1..=16 {
            assert_eq!(t.get(num(i as f64)), num(i as f64));
        }
        assert_eq!(t.get(name), num(-1.0));
        assert!(t.owned_bytes() >= 16 * 8);
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
