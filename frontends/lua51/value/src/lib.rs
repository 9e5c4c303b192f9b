//! Lua 5.1 values and heap layouts, shared by the semantics (compiled to bitcode) and the native
//! runtime.
//!
//! Everything the semantics use is `#[inline]` (or generic): the semantics crate is compiled
//! separately to bitcode, so a non-inline function of this crate would become an unresolvable
//! symbol in the generated interpreter.
//!
//! # Boxing (NaN-boxing, 8 bytes)
//!
//! ```text
//!   0x0000_..._0000 ..= 0xFFF8_0000_0000_0000   double (every NaN is one of the two payload-0
//!                                                quiet NaNs 0x7FF8.. or 0xFFF8..)
//!   0xFFFA_0000_0000_0000                        nil
//!   0xFFFA_0000_0000_0001 / _0002                false / true
//!   0xFFFB_xxxx_xxxx_xxxx                        not a value: a `next` loop's traversal
//!                                                place in its hidden control slot
//!                                                ([`TRAVERSAL_TAG`])
//!   0xFFFC_xxxx_xxxx_xxxx                        pointer to a function (48-bit address)
//!   0xFFFD_xxxx_xxxx_xxxx                        pointer to a string
//!   0xFFFE_xxxx_xxxx_xxxx                        pointer to any other heap object (userdata,
//!                                                thread); its kind is in the object header
//!   0xFFFF_xxxx_xxxx_xxxx                        pointer to a table
//! ```
//! Doubles need no unboxing. IEEE arithmetic on payload-0 NaNs yields payload-0 NaNs, so only
//! values coming from outside (string conversion, libm) need [`TValue::from_f64_canonical`].
//!
//! The three kinds the handlers test most (a table for every index, a function for every call,
//! a string for every string key and concatenation) have tags of their own, so each test is one
//! compare of the value, as LuaJIT's type tags are, instead of the heap tag's compare and a load
//! of the object's kind; the kind stays in every header too (the collector, `type`). Every heap
//! tag is at or above [`HEAP_TAG`], so "a heap value" stays one compare, and [`POINTER_MASK`]
//! takes the address out of all of them.
#![cfg_attr(not(feature = "std"), no_std)]

use core::ptr;

pub mod abi;
#[cfg(feature = "std")]
pub mod number;

pub use deegen_api::{CodeBlock, InterpContext};

/// A boxed Lua value.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
#[repr(transparent)]
pub struct TValue(pub u64);

/// Largest bit pattern that is a double.
pub const DOUBLE_MAX_BITS: u64 = 0xFFF8_0000_0000_0000;
pub const NIL_BITS: u64 = 0xFFFA_0000_0000_0000;
pub const FALSE_BITS: u64 = NIL_BITS + 1;
pub const TRUE_BITS: u64 = NIL_BITS + 2;
/// The lowest heap tag: every value at or above it is a pointer to a heap object.
pub const HEAP_TAG: u64 = FUNCTION_TAG;
/// Functions (closures, native or Lua).
pub const FUNCTION_TAG: u64 = 0xFFFC_0000_0000_0000;
/// Strings.
pub const STRING_TAG: u64 = 0xFFFD_0000_0000_0000;
/// Every other heap object: userdata and threads (and the collector's prototypes and upvalues,
/// which are never Lua values).
pub const OBJECT_TAG: u64 = 0xFFFE_0000_0000_0000;
/// Tables: the highest tag, so that `is_table` is one compare against a bound (`v >= TABLE_TAG`,
/// which x86-64 does as a shift and a 32-bit compare), without the mask an exact tag needs.
/// Tables are tested most.
pub const TABLE_TAG: u64 = 0xFFFF_0000_0000_0000;
/// The address bits of a heap value (48: the user half of x86-64's address space).
pub const POINTER_MASK: u64 = 0x0000_FFFF_FFFF_FFFF;
const TAG_SHIFT: u32 = 48;
const CANONICAL_NAN: u64 = 0x7FF8_0000_0000_0000;

/// Kinds of heap objects, stored in [`GcHeader::kind`].
#[repr(u8)]
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ObjKind {
    String = 1,
    Table = 2,
    Function = 3,
    Userdata = 4,
    Thread = 5,
    /// Not a Lua value: a function prototype, reachable only from constant tables.
    Proto = 6,
    UpVal = 7,
}

/// The two whites of [`GcHeader::marked`] (5.1's): an object the collector has not reached in
/// this cycle has the current white, which new objects get. The atomic phase swaps the two, so
/// the sweep tells the objects the marking left (the other white: freed) from those it has
/// whitened already or that were allocated since (the current white: kept).
pub const GC_WHITE0: u8 = 0;
pub const GC_WHITE1: u8 = 3;
/// Reached, with references still to trace: on one of the collector's gray lists. Threads,
/// weak tables and open upvalues stay gray until the cycle's atomic phase traces them again.
pub const GC_GRAY: u8 = 1;
/// Reached and traced: everything it refers to is gray or black. A store into a black object
/// must turn it gray again ([`GcHeader::is_black`], the write barrier), or the incremental
/// collector would miss the value stored.
pub const GC_BLACK: u8 = 2;

/// Header of every garbage-collected object.
#[repr(C)]
#[derive(Debug)]
pub struct GcHeader {
    /// The collector's gray-again list (objects a write barrier turned gray, traced again in
    /// the atomic phase): the heap keeps its objects in a vector, so this link is free for it.
    /// A freed cell's free-list link overlays it.
    pub next: *mut GcHeader,
    pub kind: u8,
    /// The collector's colour: [`GC_WHITE0`] or [`GC_WHITE1`], [`GC_GRAY`] or [`GC_BLACK`].
    pub marked: u8,
    /// Per kind: a table keeps its number of inline named slots here.
    pub flags: u16,
    /// The key inline caches compare (`deegen_api::ic`), in every object's header so that a
    /// cache hit proves the kind too (no kind test before it): a table's hidden-class id (see
    /// [`TableObject::ic_key`]); `deegen_api::ic::UNCACHEABLE_KEY` for every other object (not
    /// 0: that is the key of an empty cache).
    pub ic_key: u32,
}

impl GcHeader {
    /// Whether a store into this object needs the write barrier (see [`GC_BLACK`]).
    #[inline(always)]
    pub fn is_black(&self) -> bool {
        self.marked == GC_BLACK
    }
}

/// An interned, immutable byte string. The bytes follow the struct, NUL-terminated.
#[repr(C)]
#[derive(Debug)]
pub struct LuaString {
    pub header: GcHeader,
    pub hash: u32,
    pub len: u32,
}

impl LuaString {
    #[inline]
    pub fn data(&self) -> *const u8 {
        unsafe { (self as *const LuaString).add(1) as *const u8 }
    }
    #[inline]
    pub fn bytes(&self) -> &[u8] {
        unsafe { core::slice::from_raw_parts(self.data(), self.len as usize) }
    }
}

/// One entry of a table's hash part. A never-used slot has a nil key; a removed key keeps its
/// slot with a nil value (Lua's dead keys), so traversal survives clearing fields.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct TableNode {
    pub key: TValue,
    pub value: TValue,
}

/// A hidden class: the string keys a table holds in its named slots, in slot order. Tables
/// that gained the same keys in the same order share one shape, so an instruction's inline
/// cache can remember "a table of shape `id` holds this key in slot `i`" and a hit costs one
/// compare of the `ic_key` in the table's header and one load.
///
/// Shapes are immutable and form a tree: adding a key to a table moves it to a child shape
/// (a transition, which the runtime's registry remembers so that tables built alike meet in the
/// same shape). Ids are never reused, so a cache naming a collected shape can never match.
/// The fields below `index_mask` belong to the runtime.
#[repr(C)]
#[derive(Debug)]
pub struct Shape {
    /// Unique over the program's run; at least 1 (a zeroed inline cache matches no table).
    pub id: u32,
    /// Number of named slots.
    pub len: u32,
    /// A one-word Bloom filter of the keys ([`Shape::filter_bit`]): a lookup of an absent key
    /// (a method looked up on an instance before its class) mostly ends at this word.
    pub filter: u64,
    /// The keys (interned strings), in slot order: `len` of them.
    pub keys: *const TValue,
    /// An open-addressing index of the keys: `index_mask + 1` bytes (a power of two, at least
    /// twice `len`), each a slot + 1 (0: empty), probed linearly from the key's hash.
    pub index: *const u8,
    pub index_mask: u32,
    /// Collector mark (the runtime's).
    pub marked: u32,
    /// The shape this one adds its last key to (null for a root).
    pub parent: *mut Shape,
    /// The runtime's registry of shapes and transitions.
    pub registry: *mut (),
    /// The transition taken last from this shape (null when none, or when that child was
    /// collected), and the key it adds: what a handler follows to add a field to a table
    /// without the runtime (object construction).
    pub last_transition: *mut Shape,
    pub last_transition_key: TValue,
}

impl Shape {
    /// The bit of [`Shape::filter`] that string `key` sets.
    #[inline(always)]
    pub fn filter_bit(key: TValue) -> u64 {
        let hash = unsafe { (*key.as_string()).hash };
        1 << (hash.wrapping_mul(0x9E37_79B9) >> 26)
    }

    /// The slot of interned string `key`, if this shape has it: one probe of the index from
    /// the string's hash, most of the time (the index is at most half full). A key that varies
    /// at run time (`t[k]`) comes here without an inline cache, so this is the hit path of
    /// every by-value string lookup in a shaped table.
    #[inline(always)]
    pub fn find(&self, key: TValue) -> Option<usize> {
        let mask = self.index_mask as usize;
        let mut i = unsafe { (*key.as_string()).hash } as usize & mask;
        loop {
            // SAFETY: i <= mask; the index is never full (at least twice `len` entries).
            let e = unsafe { *self.index.add(i) } as usize;
            if e == 0 {
                return None;
            }
            if unsafe { *self.keys.add(e - 1) } == key {
                return Some(e - 1);
            }
            i = (i + 1) & mask;
        }
    }
}

/// The layout of a table object: named slots for string keys, described by a [`Shape`]; an
/// array part for keys `1..=array_len`; an open-addressing hash part (linear probing,
/// `node_count` a power of two or 0) for other keys, and for string keys too once the table
/// is a dictionary (too many keys for a shape: then `shape` is null).
///
/// It lives here, not in the runtime, because the semantics' fast paths read it directly: an
/// in-bounds array index or a present string key never leaves the handler. The runtime owns the
/// storage (allocation, growth, rehashing, transitions); the lookups below are the only code
/// that reads it, on both sides.
#[repr(C)]
#[derive(Debug)]
pub struct TableObject {
    pub header: GcHeader,
    /// The metatable, or null.
    pub metatable: *mut TableObject,
    /// Capacity of `slots` (at most `MAX_SHAPE_SLOTS`).
    pub slot_cap: u16,
    /// What the array part holds ([`ElementKind`] as a byte): only ever generalises while the
    /// table lives.
    pub array_kind: u8,
    /// This table's own cache of where its `__index` lives, for when it serves as a metatable
    /// ([`TableObject::index_handler`]): the slot index (or [`INDEX_ABSENT`]), valid while the
    /// table's `ic_key` is `index_cache_key` (0: empty). Packed beside the fields above so the
    /// object does not grow (table-allocating programs felt 8 more bytes).
    pub index_cache_state: core::cell::Cell<u8>,
    pub index_cache_key: core::cell::Cell<u32>,
    /// The named slots' values, in the shape's slot order (`(*shape).len` of them): the
    /// inline slots after the object while they suffice, then an out-of-line block. In a
    /// dictionary, the first hash node's value, so cached indices address both alike.
    pub slots: *mut TValue,
    /// The hidden class, or null in dictionary mode.
    pub shape: *mut Shape,
    pub array: *mut TValue,
    pub array_len: usize,
    pub array_cap: usize,
    pub nodes: *mut TableNode,
    pub node_count: usize,
    /// Hash slots holding a key (live or dead).
    pub used: u32,
    /// Where the last key `next` returned from the named slots or the hash part lies (an index
    /// into either): a traversal's next step finds its key there with one compare instead of a
    /// probe of the shape or the hash part, which in a large dictionary is a cache miss per
    /// step. Only a hint: a step checks the key it finds there and otherwise looks it up.
    pub next_hint: core::cell::Cell<u32>,
}

// Every table allocation pays for this header: growing it showed in table-allocating programs
// (binarytrees +9% for 8 bytes), so a change must be deliberate.
const _: () = assert!(core::mem::size_of::<TableObject>() == 96);

/// A place in a table's traversal order ([`TableObject::next_from`]): an index into its array
/// part, its named slots or its hash part.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TraversalPlace {
    Array(usize),
    Named(usize),
    Hash(usize),
}

/// The tag of a traversal place held in a generic `for`'s hidden control slot (LuaJIT's
/// `ITERN` keeps an index there too): a `for k, v in pairs(t)` loop steps from the place its
/// previous step left instead of decoding the key it returned (an index of the array part to
/// convert back, a key to compare with the table's hint). Never a Lua value: no other slot
/// holds one, and `debug.getlocal` shows the key it stands for
/// ([`TableObject::traversal_key`]). A control slot holds one only while its generator is
/// `next` and its state a table: the loop's first step checks both, and `debug.setlocal` on
/// either puts the key back first.
pub const TRAVERSAL_TAG: u64 = 0xFFFB_0000_0000_0000;
/// The bits of a traversal place's index (the two above them say which part).
const TRAVERSAL_INDEX_BITS: u32 = 46;

impl TraversalPlace {
    /// This place as a control slot holds it.
    #[inline(always)]
    pub fn to_control(self) -> u64 {
        let (part, index) = match self {
            TraversalPlace::Array(i) => (0u64, i),
            TraversalPlace::Named(i) => (1, i),
            TraversalPlace::Hash(i) => (2, i),
        };
        // (An index of any part is below 2^46: far more than memory holds.)
        debug_assert!((index as u64) < 1 << TRAVERSAL_INDEX_BITS);
        TRAVERSAL_TAG | (part << TRAVERSAL_INDEX_BITS) | index as u64
    }

    /// The key 5.1 would hold in a generic `for`'s control slot whose `bits` are a place,
    /// read from the loop's `state` (nil for a state that is not a table); `None` when the
    /// bits are not a place. For everything that shows a control slot to Lua: the debug
    /// library and the call of a generator that replaced `next`.
    #[inline(always)]
    pub fn control_key(state: TValue, bits: u64) -> Option<TValue> {
        let place = TraversalPlace::from_control(bits)?;
        // SAFETY: a table value points to a live table.
        Some(if state.is_table() { unsafe { (*state.as_table()).traversal_key(place) } } else { TValue::NIL })
    }

    /// The place a control slot's `bits` hold, if they are one.
    #[inline(always)]
    pub fn from_control(bits: u64) -> Option<TraversalPlace> {
        let v = bits.wrapping_sub(TRAVERSAL_TAG);
        if v >> TAG_SHIFT != 0 {
            return None;
        }
        let index = (v & ((1 << TRAVERSAL_INDEX_BITS) - 1)) as usize;
        match v >> TRAVERSAL_INDEX_BITS {
            0 => Some(TraversalPlace::Array(index)),
            1 => Some(TraversalPlace::Named(index)),
            2 => Some(TraversalPlace::Hash(index)),
            // (No place has part 3.)
            _ => None,
        }
    }
}

/// [`TableObject::index_cache_state`] for a shaped table without `__index`.
pub const INDEX_ABSENT: u8 = u8::MAX;

/// A cache state saying the key is absent: only for shaped tables, whose shape fixes the keys
/// they hold (a dictionary may gain a key without a new `ic_key`).
pub const ABSENT_STATE: u32 = u32::MAX;

/// The element kind of a table's array part (`1..=array_len`), V8-style: a chain that only
/// generalises (numbers, then any non-nil value, then maybe holes). Every store into the array
/// part goes through [`TableObject::note_array_store`]. The interpreter uses it for `#t`
/// (an array without holes ends at its length); the optimizing tier will speculate on it (a
/// load from a numbers array is a number, and never nil).
#[repr(u8)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ElementKind {
    /// Every element is a number.
    Numbers = 0,
    /// Every element is a value other than nil.
    Values = 1,
    /// Elements may be nil.
    Holes = 2,
}

impl TableObject {
    /// The kind of the array part's elements.
    #[inline(always)]
    pub fn element_kind(&self) -> ElementKind {
        match self.array_kind {
            0 => ElementKind::Numbers,
            1 => ElementKind::Values,
            _ => ElementKind::Holes,
        }
    }

    /// Records that `value` was stored into the array part (or that `Holes` nil slots were
    /// added). Numbers, the common case, cost one test.
    #[inline(always)]
    pub fn note_array_store(&mut self, value: TValue) {
        if !value.is_double() {
            let kind = if value.is_nil() { ElementKind::Holes } else { ElementKind::Values } as u8;
            if self.array_kind < kind {
                self.array_kind = kind;
            }
        }
    }

    /// The array slot of `key` if it is an integer in `1..=array_len`.
    #[inline(always)]
    pub fn array_slot(&self, key: TValue) -> Option<*mut TValue> {
        if !key.is_double() {
            return None;
        }
        let x = key.as_f64();
        let i = truncate_to_i64(x);
        // `1 <= i <= array_len` as one unsigned compare first (NaN and out-of-range doubles
        // truncate to i64::MIN and fail it; so does an append's `len + 1`, without the
        // conversion back), then integrality.
        let index = (i as u64).wrapping_sub(1);
        if index >= self.array_len as u64 || i as f64 != x {
            return None;
        }
        // SAFETY: index < array_len.
        Some(unsafe { self.array.add(index as usize) })
    }

    /// The hash slot holding `key` (live or dead), probing from `hash`; `key` must be
    /// normalised (no `-0`).
    #[inline(always)]
    pub fn find_node(&self, key: TValue, hash: usize) -> Option<*mut TableNode> {
        // SAFETY: `probe` returns indices below `node_count`.
        self.probe(key, hash).ok().map(|i| unsafe { self.nodes.add(i) })
    }

    /// Whether the hash part takes one more key without a rehash: at most three quarters of
    /// its slots hold keys (live or dead) after it. The one load limit of the table, for the
    /// handlers' inserts and the runtime's alike.
    #[inline(always)]
    pub fn hash_has_room(&self) -> bool {
        (self.used as usize + 1) * 4 <= self.node_count * 3
    }

    /// Linear probing from `hash`: `Ok(index)` of the slot holding `key`, or `Err` with the
    /// first free slot on its path (`None` when the hash part is empty), where an insertion
    /// goes. The one probe loop of the table, for the handlers' lookups and the runtime's
    /// inserts alike.
    #[inline(always)]
    pub fn probe(&self, key: TValue, hash: usize) -> Result<usize, Option<usize>> {
        if self.node_count == 0 {
            return Err(None);
        }
        let mask = self.node_count - 1;
        let mut i = hash & mask;
        loop {
            // SAFETY: i <= mask < node_count, and the hash part always has a free slot.
            let k = unsafe { (*self.nodes.add(i)).key };
            // Free slot first: a nil key (which no table holds) must not match one.
            if k.is_nil() {
                return Err(Some(i));
            }
            if k == key {
                return Ok(i);
            }
            i = (i + 1) & mask;
        }
    }

    /// Where the value of interned string `key` lives: its named slot, or in dictionary
    /// mode its hash slot (live or dead).
    #[inline(always)]
    pub fn string_slot(&self, key: TValue) -> Option<*mut TValue> {
        if !self.shape.is_null() {
            // SAFETY: a shaped table has `(*shape).len` slots.
            return unsafe { &*self.shape }.find(key).map(|i| unsafe { self.slots.add(i) });
        }
        let node = self.find_node(key, unsafe { (*key.as_string()).hash } as usize)?;
        Some(unsafe { core::ptr::addr_of_mut!((*node).value) })
    }

    /// Raw get of any key (`rawget`): the array part, then the named slots or hash part; nil
    /// when absent.
    #[inline(always)]
    pub fn raw_get(&self, key: TValue) -> TValue {
        match self.array_slot(key) {
            Some(slot) => unsafe { *slot },
            None => self.value_slot(key).map_or(TValue::NIL, |v| unsafe { *v }),
        }
    }

    /// Whether the raw value of interned string `key` is nil. A shaped table's key filter
    /// answers most absent keys in one test: a metatable's `__newindex`, asked for every field
    /// a constructor adds to an instance.
    #[inline(always)]
    pub fn lacks_string(&self, key: TValue) -> bool {
        if self.filter_excludes(key) {
            return true;
        }
        // A slow path in generated code: the probe is most of a store stencil's size.
        deegen_api::cold_path();
        self.raw_get_str(key).is_nil()
    }

    /// Whether the shape's key filter proves interned string `key` absent (false for a
    /// dictionary, and for a key the filter cannot rule out).
    #[inline(always)]
    pub fn filter_excludes(&self, key: TValue) -> bool {
        // SAFETY: a shaped table's shape is alive.
        !self.shape.is_null() && unsafe { (*self.shape).filter } & Shape::filter_bit(key) == 0
    }

    /// Raw get of an interned string key; nil when absent.
    #[inline(always)]
    pub fn raw_get_str(&self, key: TValue) -> TValue {
        self.string_slot(key).map_or(TValue::NIL, |v| unsafe { *v })
    }

    /// Where the value of interned string `key` lives, through an instruction's inline cache
    /// (`deegen_api::ic`): the key is this table's `ic_key`, the state the value's index
    /// from `slots`, so a hit is one compare and one load. A miss looks the key up (in the shape,
    /// or in a dictionary's hash part) and caches where it was found.
    ///
    /// # Safety
    /// `cache` must be an instruction's 8-byte (one-entry) `ic` operand; `key` must be an
    /// interned string.
    #[inline(always)]
    pub unsafe fn string_slot_cached(&self, key: TValue, cache: *mut u8) -> Option<*mut TValue> {
        // SAFETY: a table is a heap value (so the answer is never `NotATable`).
        unsafe { string_slot_cached_in(TValue::from_table(self), key, cache) }.unwrap_or(None)
    }

    /// [`TableObject::string_slot_cached`] for a cache of `WAYS` entries shared along an
    /// `__index` chain (a method's): on a miss, a shaped table whose key filter lacks `key`
    /// answers "absent" at once (a subclass of the classes the cache names), and the other
    /// entries are compared (the classes holding the method for the other receivers of a
    /// polymorphic site), both without the miss's slow path.
    ///
    /// # Safety
    /// As for [`TableObject::string_slot_cached`], with `cache` of `WAYS` entries.
    #[inline(always)]
    pub unsafe fn string_slot_cached_or_filtered<const WAYS: usize>(&self, key: TValue, cache: *mut u8) -> Option<*mut TValue> {
        let ic = unsafe { deegen_api::ic::InlineCache::<WAYS>::at(cache) };
        let v = TValue::from_table(self);
        // A miss of a method's cache (a subclass before the class it names): in JIT code an
        // uncommon path, with the rest of the lookup in the parent.
        let quick = || {
            deegen_api::uncommon_path();
            self.filter_excludes(key).then_some(deegen_api::ic::IcBody::Done(None))
        };
        let body = || match unsafe { string_slot_ic_body(v, key) } {
            deegen_api::ic::IcBody::Cache(state) => deegen_api::ic::IcBody::Cache(state),
            deegen_api::ic::IcBody::Done(r) => deegen_api::ic::IcBody::Done(r.ok().flatten().map(|f| f.slot)),
        };
        // SAFETY: as in `string_slot_cached_in`.
        let effect = |state: u32| Some(unsafe { self.slots.add((state >> IC_KEY_ID_SHIFT) as usize) });
        ic.run_or_quick(self.header.ic_key, quick, body, effect)
    }

    /// What inline caches compare: `(*shape).id`, or for a dictionary an id of its own,
    /// renewed whenever its hash part is rebuilt (keys move then), shifted left by
    /// [`IC_KEY_ID_SHIFT`] above two bits that make where the named slots live and whether
    /// there is a metatable part of the hidden class ([`IC_KEY_OUT_OF_LINE`],
    /// [`IC_KEY_HAS_METATABLE`]). A hit thus knows both, and a cache fused into the opcode can
    /// quicken on them. Ids are never reused; `deegen_api::ic::UNCACHEABLE_KEY` once they ran out
    /// ([`table_ic_key`]). Kept in the header ([`GcHeader::ic_key`]).
    #[inline(always)]
    pub fn ic_key(&self) -> u32 {
        self.header.ic_key
    }

    /// The inline cache's body: the state of `key`'s value, when present: its index from
    /// `slots` above the key's two bits (the kind of the state).
    #[inline(always)]
    fn string_slot_body(&self, key: TValue) -> deegen_api::ic::IcBody<Option<FoundSlot>> {
        use deegen_api::ic::IcBody;
        let kind = self.header.ic_key & IC_KEY_BITS;
        let index = if !self.shape.is_null() {
            unsafe { &*self.shape }.find(key)
        } else {
            // A dictionary's `slots` is its first node's value: node i's is 2i further.
            self.probe(key, unsafe { (*key.as_string()).hash } as usize).ok().map(|i| 2 * i)
        };
        match index {
            Some(i) => IcBody::Cache((i as u32) << IC_KEY_ID_SHIFT | kind),
            None => IcBody::Done(None),
        }
    }

    /// Raw `self.__index` (`index_event` is the interned `"__index"`), for a table serving as a
    /// metatable: every method call on an instance asks its metatable for it. A cache in the
    /// object, keyed by its own `ic_key`, remembers where the field lives (or, in a shaped
    /// table, that it is absent), so a hit is a compare and a load; the value is read afresh,
    /// so assigning `__index` needs no invalidation, and adding or moving it changes the key.
    #[inline(always)]
    pub fn index_handler(&self, index_event: TValue) -> TValue {
        let key = self.header.ic_key;
        if self.index_cache_key.get() == key {
            let state = self.index_cache_state.get();
            if state == INDEX_ABSENT {
                return TValue::NIL;
            }
            // SAFETY: filled below under this key: a slot index of this table's `slots`.
            return unsafe { *self.slots.add(usize::from(state)) };
        }
        self.index_handler_miss(index_event, key)
    }

    // Inline like every function here: a non-inline one would be compiled in this crate, and
    // the semantics' bitcode (built alone) would call it and the generics it instantiates.
    #[inline(always)]
    fn index_handler_miss(&self, index_event: TValue, key: u32) -> TValue {
        // A slow path in generated code (the metatable's shape changed since the last fill):
        // in line, this probe was twice in every baseline JIT copy of GetMethod.
        deegen_api::cold_path();
        let (state, value) = match self.string_slot_state_or_absent(index_event) {
            Some(ABSENT_STATE) => (Some(INDEX_ABSENT), TValue::NIL),
            Some(state) => {
                let index = state >> IC_KEY_ID_SHIFT;
                // SAFETY: the body's index is within `slots`.
                (u8::try_from(index).ok().filter(|&i| i != INDEX_ABSENT), unsafe { *self.slots.add(index as usize) })
            }
            None => (None, TValue::NIL),
        };
        // (A dictionary's far slots and its absence are not cached.)
        if let Some(state) = state.filter(|_| key != deegen_api::ic::UNCACHEABLE_KEY) {
            self.index_cache_key.set(key);
            self.index_cache_state.set(state);
        }
        value
    }

    /// [`TableObject::string_slot_body`]'s state, or [`ABSENT_STATE`] where the key is absent
    /// from a shaped table (whose shape fixes its keys, so absence is cacheable); `None` where
    /// it is absent from a dictionary (which may gain it under the same `ic_key`).
    #[inline(always)]
    fn string_slot_state_or_absent(&self, key: TValue) -> Option<u32> {
        match self.string_slot_body(key) {
            deegen_api::ic::IcBody::Cache(state) => Some(state),
            deegen_api::ic::IcBody::Done(_) if !self.shape.is_null() => Some(ABSENT_STATE),
            deegen_api::ic::IcBody::Done(_) => None,
        }
    }

    /// Adds interned string `key`, absent from this table, with `value` in place when that is
    /// the last transition taken from its shape and a named slot is free; false when the
    /// runtime must (no shape, another key, growth). The caller checks for `__newindex`.
    #[inline(always)]
    pub fn add_string_fast(&mut self, key: TValue, value: TValue) -> bool {
        if self.shape.is_null() {
            return false;
        }
        // SAFETY: a shaped table's shape is alive, and so is the child its cache names.
        let shape = unsafe { &*self.shape };
        if shape.last_transition_key != key || shape.last_transition.is_null() || shape.len >= u32::from(self.slot_cap) {
            return false;
        }
        let next = shape.last_transition;
        unsafe {
            self.slots.add(shape.len as usize).write(value);
            let bits = self.header.ic_key & IC_KEY_BITS;
            self.header.ic_key = table_ic_key((*next).id, bits & IC_KEY_OUT_OF_LINE != 0, bits & IC_KEY_HAS_METATABLE != 0);
        }
        self.shape = next;
        true
    }

    /// `#t` when it needs no search (Lua 5.1's `luaH_getn`): the array part's length when its
    /// last element is not nil and the hash part holds no key. `None` otherwise (the runtime
    /// searches for a border).
    #[inline(always)]
    pub fn length_fast(&self) -> Option<usize> {
        let n = self.array_len;
        // Without holes, the last element is not nil: no need to look.
        if self.used != 0 || (n > 0 && self.element_kind() == ElementKind::Holes && unsafe { *self.array.add(n - 1) }.is_nil()) {
            return None;
        }
        Some(n)
    }

    /// Sets the metatable (null for none), keeping the inline-cache key's metatable bit (under
    /// the same id) in step: caches fused into opcodes read it to skip `__index` lookups.
    #[inline(always)]
    pub fn set_metatable(&mut self, mt: *mut TableObject) {
        self.metatable = mt;
        let key = self.header.ic_key;
        if key != deegen_api::ic::UNCACHEABLE_KEY {
            self.header.ic_key = table_ic_key(key >> IC_KEY_ID_SHIFT, key & IC_KEY_OUT_OF_LINE != 0, !mt.is_null());
        }
    }

    /// Where a traversal (`next`) goes on after `key` without looking it up: after nil, the
    /// array part's start; after an index in the array part, the next element; after the key
    /// the previous step returned from the named slots or the hash part
    /// ([`TableObject::next_hint`]: one compare), the place after it. `None` for any other key,
    /// which the caller looks up (or finds invalid).
    #[inline(always)]
    pub fn next_start_hinted(&self, key: TValue) -> Option<TraversalPlace> {
        if key.is_nil() {
            return Some(TraversalPlace::Array(0));
        }
        if let Some(slot) = self.array_slot(key) {
            // SAFETY: a slot of the array part.
            return Some(TraversalPlace::Array(unsafe { slot.offset_from(self.array) } as usize + 1));
        }
        let hint = self.next_hint.get() as usize;
        if key.is_string() && !self.shape.is_null() {
            // A shaped table holds every string key in a named slot.
            // SAFETY: a shape has `len` keys.
            let shape = unsafe { &*self.shape };
            return (hint < shape.len as usize && unsafe { *shape.keys.add(hint) } == key).then_some(TraversalPlace::Named(hint + 1));
        }
        // Keys are stored normalized (`-0` as `0`): the same bits, or not this key.
        let key = normalize_key(key);
        // SAFETY: `hint < node_count`.
        (hint < self.node_count && unsafe { (*self.nodes.add(hint)).key } == key).then_some(TraversalPlace::Hash(hint + 1))
    }

    /// The first entry with a value at or after `from` in traversal order (the array part, the
    /// named slots, the hash part), or `None` at the end; an entry from the named slots or the
    /// hash part becomes the next step's hint.
    #[inline(always)]
    pub fn next_from(&self, from: TraversalPlace) -> Option<(TValue, TValue)> {
        self.next_entry_from(from).map(|(k, v, _)| (k, v))
    }

    /// The key of the entry just before `after` in traversal order: what a generic `for`
    /// whose control slot holds the place `after` would have held in 5.1 (nil at the start,
    /// and for a place the table no longer has, after a rehash the traversal did not allow).
    #[inline(always)]
    pub fn traversal_key(&self, after: TraversalPlace) -> TValue {
        match after {
            TraversalPlace::Array(0) => TValue::NIL,
            // (Array index i - 1, key i.)
            TraversalPlace::Array(i) => TValue::from_f64(i as f64),
            TraversalPlace::Named(i) if i >= 1 && !self.shape.is_null() && i <= unsafe { (*self.shape).len } as usize => {
                // SAFETY: a shape has `len` keys.
                unsafe { *(*self.shape).keys.add(i - 1) }
            }
            TraversalPlace::Hash(i) if i >= 1 && i <= self.node_count => {
                // SAFETY: below `node_count`.
                let n = unsafe { *self.nodes.add(i - 1) };
                // The collector traces no key of a removed entry (`t[k] = nil` during the
                // traversal, or a weak table's cleared entry): a collectable one may be freed
                // already, and must not be handed out. (5.1's control slot kept it alive; a
                // place does not, so `debug.getlocal` shows nil there.)
                if n.value.is_nil() && n.key.is_heap() {
                    TValue::NIL
                } else {
                    n.key
                }
            }
            _ => TValue::NIL,
        }
    }

    /// [`Self::next_from`] with the place after the entry found, where the next step starts.
    #[inline(always)]
    pub fn next_entry_from(&self, from: TraversalPlace) -> Option<(TValue, TValue, TraversalPlace)> {
        // A place in the hash part (a dictionary's traversal) goes straight to its scan.
        let hash_from = match from {
            TraversalPlace::Hash(i) => i,
            TraversalPlace::Array(_) | TraversalPlace::Named(_) => {
                let named_from = match from {
                    TraversalPlace::Named(i) => i,
                    _ => {
                        let mut i = match from {
                            TraversalPlace::Array(i) => i,
                            _ => 0,
                        };
                        while i < self.array_len {
                            // SAFETY: i < array_len.
                            let v = unsafe { *self.array.add(i) };
                            if !v.is_nil() {
                                // (As a signed integer: the conversion of an unsigned one is six
                                // instructions.)
                                return Some((TValue::from_f64((i + 1) as i64 as f64), v, TraversalPlace::Array(i + 1)));
                            }
                            i += 1;
                        }
                        0
                    }
                };
                if !self.shape.is_null() {
                    // SAFETY: a shaped table has `(*shape).len` keys and initialised slots.
                    let shape = unsafe { &*self.shape };
                    let mut i = named_from;
                    while i < shape.len as usize {
                        let v = unsafe { *self.slots.add(i) };
                        if !v.is_nil() {
                            self.next_hint.set(i as u32);
                            return Some((unsafe { *shape.keys.add(i) }, v, TraversalPlace::Named(i + 1)));
                        }
                        i += 1;
                    }
                }
                0
            }
        };
        let i = self.next_live_node(hash_from)?;
        self.next_hint.set(i as u32);
        // SAFETY: an index below `node_count`.
        let n = unsafe { *self.nodes.add(i) };
        Some((n.key, n.value, TraversalPlace::Hash(i + 1)))
    }

    /// The index of the first node at or after `from` that holds a value. A hash part is a
    /// quarter to five eighths empty (linear probing at most three quarters full), in no
    /// pattern: a scan that tests one node at a time mispredicts its exit on nearly every
    /// step of a traversal (a `pairs` over a 60,000-key dictionary ran at 14 ns a step, five
    /// times `luajit -joff`'s). Eight nodes' tests make one mask, whose first bit is the
    /// answer: the branch on it is taken almost always.
    #[inline(always)]
    fn next_live_node(&self, from: usize) -> Option<usize> {
        const GROUP: usize = 8;
        let mut i = from;
        while i + GROUP <= self.node_count {
            let mut live = 0u32;
            // (Last node first: bit j is node i + j's.)
            for j in (0..GROUP).rev() {
                // SAFETY: i + j < node_count.
                let v = unsafe { (*self.nodes.add(i + j)).value };
                live = (live << 1) | u32::from(!v.is_nil());
            }
            if live != 0 {
                return Some(i + live.trailing_zeros() as usize);
            }
            i += GROUP;
        }
        while i < self.node_count {
            // SAFETY: i < node_count.
            if !unsafe { (*self.nodes.add(i)).value }.is_nil() {
                return Some(i);
            }
            i += 1;
        }
        None
    }

    /// The hash slot of a key that is not a string.
    #[inline(always)]
    pub fn find_non_string(&self, key: TValue) -> Option<*mut TableNode> {
        let key = normalize_key(key);
        self.find_node(key, hash_non_string(key))
    }

    /// Where the value of any key lives outside the array part (named slot or hash slot).
    #[inline(always)]
    pub fn value_slot(&self, key: TValue) -> Option<*mut TValue> {
        if key.is_string() {
            return self.string_slot(key);
        }
        let node = self.find_non_string(key)?;
        Some(unsafe { core::ptr::addr_of_mut!((*node).value) })
    }
}

/// At most this many named slots live inside a table object (the runtime's constructors
/// respect it; the fused cache's range annotation relies on it).
pub const MAX_INLINE_SLOTS: usize = 8;

/// `x` truncated toward zero, as the hardware does it: one `cvttsd2si`, which gives
/// `i64::MIN` for NaN and doubles out of range (Rust's `as` saturates instead, in a longer
/// sequence that dominated array-heavy loops).
#[inline(always)]
pub fn truncate_to_i64(x: f64) -> i64 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: SSE2 is part of x86-64.
        unsafe { core::arch::x86_64::_mm_cvttsd_si64(core::arch::x86_64::_mm_set_sd(x)) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        if x.is_nan() || !(-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&x) {
            i64::MIN
        } else {
            x as i64
        }
    }
}

/// Key bit: the table has a metatable.
pub const IC_KEY_HAS_METATABLE: u32 = 1;
/// Key bit: the named slots are out of the object (a block of their own, or a dictionary's
/// hash part); clear when `slots` points at the inline slots right after the [`TableObject`].
pub const IC_KEY_OUT_OF_LINE: u32 = 2;
/// Both key bits: what a fused table cache's kind is made of.
pub const IC_KEY_BITS: u32 = IC_KEY_OUT_OF_LINE | IC_KEY_HAS_METATABLE;
/// The shape's or dictionary's id sits above the two bits.
pub const IC_KEY_ID_SHIFT: u32 = 2;
/// The largest id a key can hold.
pub const MAX_IC_ID: u32 = (u32::MAX >> IC_KEY_ID_SHIFT) - 1;
/// The kinds of the fused table cache's effect ([`table_ic_kind`]): the two key bits, which every
/// state repeats in its low bits (`state = index << IC_KEY_ID_SHIFT | bits`), and whether the
/// key is absent ([`TABLE_IC_ABSENT`]).
pub const TABLE_IC_KINDS: u32 = 8;
/// Kind bit of the fused table cache: the key is absent from the (shaped) table.
pub const TABLE_IC_ABSENT: u32 = 4;
/// Entries of a field access's inline cache (GetField, SetField, GetMethod's receiver cache):
/// the hidden classes one site serves without running the cache's body.
pub const FIELD_IC_WAYS: usize = 2;
/// Entries of GetMethod's method cache (the classes along the `__index` chain that hold the
/// method): a call site over the instances of several classes finds the method in several.
pub const METHOD_IC_WAYS: usize = 4;

/// A table's inline-cache key (see [`TableObject::ic_key`]): the uncacheable key for an id out of
/// range.
#[inline(always)]
pub fn table_ic_key(id: u32, out_of_line: bool, has_metatable: bool) -> u32 {
    if id == 0 || id > MAX_IC_ID {
        return deegen_api::ic::UNCACHEABLE_KEY;
    }
    id << IC_KEY_ID_SHIFT | if out_of_line { IC_KEY_OUT_OF_LINE } else { 0 } | if has_metatable { IC_KEY_HAS_METATABLE } else { 0 }
}

/// Where a string key's value lives, as a cache hit or the lookup found it.
#[derive(Debug, Clone, Copy)]
pub struct FoundSlot {
    pub slot: *mut TValue,
    /// Whether the table may have a metatable (a constant in a quickened handler).
    pub may_have_metatable: bool,
}

/// Not a table: what [`string_slot_cached_in`] found instead of a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotATable;

/// The table caches' one implementation: [`TableObject::string_slot_cached`] on heap value
/// `v`, testing that `v` is a table
/// only on a miss: a hit on the key in its header proves it (other objects' key is the
/// uncacheable one, which no entry holds).
///
/// # Safety
/// `v` must be a heap value; `key` and `cache` as for [`TableObject::string_slot_cached`].
#[inline(always)]
pub unsafe fn string_slot_cached_in(v: TValue, key: TValue, cache: *mut u8) -> Result<Option<*mut TValue>, NotATable> {
    let ic_key = unsafe { (*v.as_ptr::<GcHeader>()).ic_key };
    let t = v.as_table();
    let ic = unsafe { deegen_api::ic::InlineCache::<1>::at(cache) };
    let body = || unsafe { string_slot_ic_body(v, key) };
    // `slots` addresses inline and out-of-line slots alike: no need for the kind here.
    // SAFETY: a hit means `v` is a table of this key, whose `slots` holds the state's index.
    let effect = |state: u32| Ok(Some(FoundSlot { slot: unsafe { (*t).slots.add((state >> IC_KEY_ID_SHIFT) as usize) }, may_have_metatable: true }));
    ic.run(ic_key, body, effect).map(|f| f.map(|f| f.slot))
}

/// What a receiver-level method lookup found ([`method_receiver_cached`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReceiverLookup {
    /// The receiver's own slot for the name (its value may be nil).
    Slot(*mut TValue),
    /// The receiver has no such key: look in its metatable's `__index`.
    Absent,
}

/// The first step of `obj:name(...)` on a table: `name` in the receiver itself, through a cache
/// of its own that also remembers absence in a shaped table (instances rarely hold their
/// methods, and their shape says so), so the usual case goes to the metatable after one compare.
///
/// # Safety
/// `v` must be a table; `key` an interned string; `cache` an instruction's `ic` operand of
/// [`FIELD_IC_WAYS`] entries.
#[inline(always)]
pub unsafe fn method_receiver_cached(v: TValue, key: TValue, cache: *mut u8) -> ReceiverLookup {
    use deegen_api::ic::IcBody;
    let t = v.as_table();
    let ic_key = unsafe { (*t).header.ic_key };
    let ic = unsafe { deegen_api::ic::InlineCache::<FIELD_IC_WAYS>::at(cache) };
    // A miss (instances of more shapes than the cache has entries: `shape:area()` over a list
    // of shapes) whose shape's key filter proves the name absent, as it does for most
    // instances, which do not hold their methods: absence cached, and on to the metatable,
    // still on the fast path's registers, rather than the cache's slow path (in JIT code an
    // AOT slow path, where the whole rest of the lookup then ran: a third of a polymorphic
    // method-call benchmark's instructions).
    let quick = || {
        deegen_api::uncommon_path();
        unsafe { &*t }.filter_excludes(key).then_some(IcBody::Cache(ABSENT_STATE))
    };
    ic.run_or_quick(
        ic_key,
        quick,
        || match unsafe { &*t }.string_slot_state_or_absent(key) {
            Some(state) => IcBody::Cache(state),
            None => IcBody::Done(ReceiverLookup::Absent),
        },
        // SAFETY: a hit means a table of this key: the state is absence or a slot index.
        |state| {
            if state == ABSENT_STATE {
                ReceiverLookup::Absent
            } else {
                ReceiverLookup::Slot(unsafe { (*t).slots.add((state >> IC_KEY_ID_SHIFT) as usize) })
            }
        },
    )
}

/// The body of the string-key caches: `NotATable`, or where `key` is (absent: `None`).
#[inline(always)]
unsafe fn string_slot_ic_body(v: TValue, key: TValue) -> deegen_api::ic::IcBody<Result<Option<FoundSlot>, NotATable>> {
    use deegen_api::ic::IcBody;
    if !v.heap_is_table() {
        return IcBody::Done(Err(NotATable));
    }
    match unsafe { &*v.as_table() }.string_slot_body(key) {
        IcBody::Cache(state) => IcBody::Cache(state),
        IcBody::Done(r) => IcBody::Done(Ok(r)),
    }
}

/// What a field lookup through the fused table cache found ([`string_slot_cached_fused`]).
#[derive(Debug, Clone, Copy)]
pub enum FieldLookup {
    /// The key's slot (its value may be nil).
    Present(FoundSlot),
    /// The table lacks the key; `may_have_metatable` false proves it has no metatable (a
    /// constant in a quickened handler).
    Absent { may_have_metatable: bool },
    /// Not a table.
    NotATable,
}

/// The index part of the fused table cache's state for a key absent from a shaped table (no
/// slot has it: slot indices stay far below).
const ABSENT_INDEX: u32 = u32::MAX >> IC_KEY_ID_SHIFT;

/// The fused table cache's kind of `state`: the state's two key bits (where the slots live,
/// whether there may be a metatable), plus [`TABLE_IC_ABSENT`] for an absent key. One compare
/// where the kind is not a constant (the baseline JIT's stencils).
#[inline(always)]
pub fn table_ic_kind(state: u32) -> u32 {
    state & IC_KEY_BITS | if state >= ABSENT_INDEX << IC_KEY_ID_SHIFT { TABLE_IC_ABSENT } else { 0 }
}

/// [`string_slot_cached_in`] for a bytecode whose cache is fused into its opcode
/// (`OperandKind::FusedInlineCache` of [`TABLE_IC_KINDS`] kinds): the effect is specialised on the
/// state's kind ([`table_ic_kind`]), so a quickened handler reads an inline slot straight off
/// the object (no load of `slots`) and knows whether the table may have a metatable. Only for
/// the generated interpreter (it runs `InlineCache::run_fused`). `WAYS` is the cache's entries
/// (1 for globals, [`FIELD_IC_WAYS`] for fields).
///
/// With `CACHE_ABSENT`, a key absent from a shaped table is cached too (the shape fixes the
/// keys, so a table of the same key lacks it as well): for stores, so that adding a field to
/// a new object (construction) hits the cache and goes to the add without the body's lookup.
/// Reads do not cache absence: a list's last node lacks `next`, and its entry would take turns
/// with the other nodes' at every walk.
///
/// # Safety
/// As for [`string_slot_cached_in`], with `cache` of `WAYS` entries.
#[inline(always)]
pub unsafe fn string_slot_cached_fused<const WAYS: usize, const CACHE_ABSENT: bool>(v: TValue, key: TValue, cache: *mut u8) -> FieldLookup {
    let ic_key = unsafe { (*v.as_ptr::<GcHeader>()).ic_key };
    let t = v.as_table();
    let ic = unsafe { deegen_api::ic::InlineCache::<WAYS>::at(cache) };
    let effect = |state: u32, kind: u32| {
        let may_have_metatable = kind & IC_KEY_HAS_METATABLE != 0;
        if CACHE_ABSENT && kind & TABLE_IC_ABSENT != 0 {
            return FieldLookup::Absent { may_have_metatable };
        }
        let index = (state >> IC_KEY_ID_SHIFT) as usize;
        // SAFETY: a hit (or a fill) means `v` is a table of this key: its slots live where the
        // kind says, and `index` is within them.
        let slot = unsafe {
            if kind & IC_KEY_OUT_OF_LINE != 0 {
                (*t).slots.add(index)
            } else {
                // Inline slots are few (a constructor's named keys, at most MAX_INLINE_SLOTS).
                let index = deegen_api::ic::annotate_range(index as u32, 0, MAX_INLINE_SLOTS as u32 - 1) as usize;
                (t.add(1) as *mut TValue).add(index)
            }
        };
        FieldLookup::Present(FoundSlot { slot, may_have_metatable })
    };
    let body = || {
        use deegen_api::ic::IcBody;
        if !v.heap_is_table() {
            return IcBody::Done(FieldLookup::NotATable);
        }
        let table = unsafe { &*t };
        match table.string_slot_body(key) {
            IcBody::Cache(state) => IcBody::Cache(state),
            IcBody::Done(_) if CACHE_ABSENT && !table.shape.is_null() => {
                IcBody::Cache(ABSENT_INDEX << IC_KEY_ID_SHIFT | (table.header.ic_key & IC_KEY_BITS))
            }
            // A dictionary may gain the key under the same `ic_key`: absence is not cached.
            IcBody::Done(_) => IcBody::Done(FieldLookup::Absent { may_have_metatable: !table.metatable.is_null() }),
        }
    };
    // Without cached absence no state is absent: the kind is the key bits alone, without the
    // compare where the kind is not a constant (the baseline JIT's GetField).
    let kind_of = |state: u32| if CACHE_ABSENT { table_ic_kind(state) } else { state & IC_KEY_BITS };
    ic.run_fused::<_, TABLE_IC_KINDS>(ic_key, kind_of, body, effect)
}

/// The hash part's hash of a (normalised) key: strings carry theirs, others mix their bits.
#[inline(always)]
pub fn key_hash(k: TValue) -> usize {
    if k.is_string() {
        unsafe { (*k.as_string()).hash as usize }
    } else {
        hash_non_string(k)
    }
}

/// `-0` and `0` are one key; every other key is itself (strings are interned).
#[inline(always)]
pub fn normalize_key(k: TValue) -> TValue {
    if k.is_double() && k.as_f64() == 0.0 {
        TValue::from_f64(0.0)
    } else {
        k
    }
}

/// The hash of a key that is not a string (strings carry theirs): a mix of its bits.
#[inline(always)]
pub fn hash_non_string(k: TValue) -> usize {
    let x = k.raw();
    (x ^ (x >> 29) ^ (x >> 47)).wrapping_mul(0x9E37_79B9_7F4A_7C15) as usize >> 7
}

/// A captured variable: points into the stack while open, at `closed` after its scope ends.
#[repr(C)]
#[derive(Debug)]
pub struct UpVal {
    pub header: GcHeader,
    pub value: *mut u64,
    pub closed: u64,
    /// Next open upvalue, in decreasing stack-address order.
    pub next_open: *mut UpVal,
}

/// A function value: a Lua closure or a native function. Upvalue pointers follow the struct.
#[repr(C)]
#[derive(Debug)]
pub struct Closure {
    pub header: GcHeader,
    pub code_block: *const CodeBlock,
    /// The function's environment table (`getfenv`/`setfenv`).
    pub env: TValue,
    pub num_upvalues: u32,
    pub _pad: u32,
}

impl Closure {
    #[inline]
    pub fn upvalues(&self) -> *mut *mut UpVal {
        unsafe { (self as *const Closure).add(1) as *mut *mut UpVal }
    }
    #[inline]
    pub fn upvalue(&self, i: usize) -> *mut UpVal {
        unsafe { *self.upvalues().add(i) }
    }
}

/// The part of the runtime's per-coroutine state that the semantics reach through
/// [`deegen_api::context`]. The runtime's state starts with it.
#[repr(C)]
#[derive(Debug)]
pub struct LuaContext {
    pub interp: InterpContext,
    /// Open upvalues of this coroutine, highest stack address first.
    pub open_upvalues: *mut UpVal,
    /// How many values the last call with a variable number of results left (Lua's `top`):
    /// consumed by the next `CallVarArgs` or `ReturnVarArgs`.
    pub var_results: u64,
    /// Lua functions the runtime called on this coroutine that have not returned: metamethod
    /// handlers and generic `for` iterators (5.1 calls both through `luaD_call`, counting them
    /// in `nCcalls`). A coroutine cannot yield while any is active ("attempt to yield across
    /// metamethod/C-call boundary"), and their nesting is limited like native calls ("C stack
    /// overflow"). The runtime counts a call when it prepares it, the call's continuation
    /// uncounts it, and a protected call restores the count an error unwound past.
    pub c_calls: u32,
    /// The runtime's own state (opaque to the semantics).
    pub runtime: *mut (),
    /// What handlers read of the state every coroutine shares.
    pub shared: *const SharedState,
}

/// The part of the runtime's global state the handlers read, shared by every coroutine's
/// context (the state owns it; contexts point at it).
#[repr(C)]
#[derive(Debug)]
pub struct SharedState {
    /// The interned string `"__index"`, so handlers follow `__index` tables without calling
    /// the runtime.
    pub index_event: TValue,
    /// The interned string `"__newindex"`, so handlers add fields to objects whose metatable
    /// has none without calling the runtime.
    pub newindex_event: TValue,
    /// The metatable of strings (`s:sub(...)` finds `string.sub` through it), or null.
    pub string_metatable: *mut TableObject,
    /// The names `type` returns, interned, by [`type_index`].
    pub type_names: [TValue; TYPE_NAMES.len()],
    /// The interned strings `"__metatable"` and `"__tostring"` (`getmetatable` and
    /// `tostring` in generated code look them up).
    pub metatable_event: TValue,
    pub tostring_event: TValue,
    /// The functions `next` and the `ipairs` iterator, which `pairs` and `ipairs` return (nil
    /// until the base library is open).
    pub next_fn: TValue,
    pub ipairs_aux_fn: TValue,
    /// Nested native/interpreter entries (calls from native code, coroutine resumes, and the
    /// calls of `pcall` in generated code, which 5.1 counts as C calls), which with each
    /// coroutine's `LuaContext::c_calls` make 5.1's `nCcalls` (the limit is `MAX_C_CALLS`):
    /// here, where the generated `pcall` counts itself.
    pub native_depth: usize,
    /// Non-zero while a thread of the state has a debug hook: library functions in generated
    /// code (`pcall`) then report their return events (`lua_rt_library_return_hook`), as their
    /// native twins do (a call entered before the hook was set returns through them).
    pub hooked: u32,
    /// The names `coroutine.status` returns, interned, by a thread's status byte
    /// ([`THREAD_STATUS_OFFSET`]): suspended, running, normal, dead. Last, so that the fields
    /// every handler reads keep their offsets: inserted after `type_names`, it made
    /// coroutine_ring about 5% slower with fewer instructions (a layout effect, measured
    /// side by side; so did moving a thread's status next to its context).
    pub status_names: [TValue; 4],
    /// Every one-byte string, by its byte: the heap's cache of them (`Heap::single_chars`, a
    /// root of every collection), filled when the state is made. `s:sub(i, i)` (a tokenizer's
    /// every step) returns one without calling the runtime.
    pub single_byte_strings: [TValue; 256],
}

/// Lua 5.1's `luaT_typenames`, by [`type_index`].
pub const TYPE_NAMES: [&str; 8] = ["nil", "boolean", "number", "string", "table", "function", "userdata", "thread"];

/// Lua 5.1's `luaT_typenames`: the name `type(v)` returns.
///
/// `#[inline]` although the semantics do not call it: a function this crate compiles itself
/// would instantiate the generic accessors it uses (`as_ptr`) here, and the semantics' bitcode,
/// built at opt-level 0 with shared generics, would then call those instead of its own copies.
#[inline]
pub fn type_name(v: TValue) -> &'static str {
    TYPE_NAMES[type_index(v)]
}

/// The index of `v`'s type in [`TYPE_NAMES`].
#[inline(always)]
pub fn type_index(v: TValue) -> usize {
    if v.is_double() {
        2
    } else if v.is_nil() {
        0
    } else if v.is_bool() {
        1
    } else if v.is_string() {
        3
    } else if v.is_table() {
        4
    } else if v.is_function() {
        5
    } else if v.is_kind(ObjKind::Thread) {
        7
    } else {
        6
    }
}

/// The tag a heap object of `kind` (an [`ObjKind`]) is boxed with.
#[inline(always)]
pub const fn tag_of_kind(kind: u8) -> u64 {
    if kind == ObjKind::String as u8 {
        STRING_TAG
    } else if kind == ObjKind::Table as u8 {
        TABLE_TAG
    } else if kind == ObjKind::Function as u8 {
        FUNCTION_TAG
    } else {
        OBJECT_TAG
    }
}

impl TValue {
    pub const NIL: TValue = TValue(NIL_BITS);
    pub const FALSE: TValue = TValue(FALSE_BITS);
    pub const TRUE: TValue = TValue(TRUE_BITS);

    #[inline]
    pub fn raw(self) -> u64 {
        self.0
    }
    #[inline]
    pub fn is_double(self) -> bool {
        self.0 <= DOUBLE_MAX_BITS
    }
    #[inline]
    pub fn as_f64(self) -> f64 {
        f64::from_bits(self.0)
    }
    /// Boxes the result of arithmetic on doubles (NaNs already have payload 0).
    #[inline]
    pub fn from_f64(x: f64) -> TValue {
        TValue(x.to_bits())
    }
    /// Boxes a double from outside the VM's arithmetic, canonicalising NaN payloads.
    #[inline]
    pub fn from_f64_canonical(x: f64) -> TValue {
        if x.is_nan() {
            TValue(CANONICAL_NAN | (x.to_bits() & (1 << 63)))
        } else {
            TValue(x.to_bits())
        }
    }
    #[inline]
    pub fn is_nil(self) -> bool {
        self.0 == NIL_BITS
    }
    #[inline]
    pub fn from_bool(b: bool) -> TValue {
        TValue(FALSE_BITS + b as u64)
    }
    #[inline]
    pub fn is_bool(self) -> bool {
        self.0.wrapping_sub(FALSE_BITS) <= 1
    }
    /// `nil` and `false` are falsy; everything else is truthy.
    #[inline]
    pub fn is_falsy(self) -> bool {
        self.0.wrapping_sub(NIL_BITS) <= 1
    }
    #[inline]
    pub fn is_heap(self) -> bool {
        self.0 >= HEAP_TAG
    }
    /// Boxes a heap object of any kind, reading the kind from its header to pick the tag.
    /// `p` must point to a live object (one that starts with a [`GcHeader`]); where the kind
    /// is known, [`Self::from_table`], [`Self::from_string`] and [`Self::from_function`] box
    /// without the load.
    #[inline]
    pub fn from_ptr<T>(p: *const T) -> TValue {
        // SAFETY: the caller's contract: every heap object starts with its header.
        let kind = unsafe { (*(p as *const GcHeader)).kind };
        TValue(p as u64 | tag_of_kind(kind))
    }
    #[inline]
    pub fn from_table(p: *const TableObject) -> TValue {
        TValue(p as u64 | TABLE_TAG)
    }
    #[inline]
    pub fn from_string(p: *const LuaString) -> TValue {
        TValue(p as u64 | STRING_TAG)
    }
    #[inline]
    pub fn from_function(p: *const Closure) -> TValue {
        TValue(p as u64 | FUNCTION_TAG)
    }
    /// Boxes a userdata or a thread (the kinds without a tag of their own).
    #[inline]
    pub fn from_object(p: *const GcHeader) -> TValue {
        TValue(p as u64 | OBJECT_TAG)
    }
    #[inline]
    pub fn as_ptr<T>(self) -> *mut T {
        (self.0 & POINTER_MASK) as *mut T
    }
    /// Kind of a heap value; only meaningful when [`Self::is_heap`].
    #[inline]
    pub fn heap_kind(self) -> u8 {
        unsafe { (*self.as_ptr::<GcHeader>()).kind }
    }
    /// Whether this is a heap object of `kind`: the tag alone for the kinds that have one, the
    /// other tag and the header's kind for the rest.
    #[inline]
    pub fn is_kind(self, kind: ObjKind) -> bool {
        match tag_of_kind(kind as u8) {
            OBJECT_TAG => self.has_tag(OBJECT_TAG) && self.heap_kind() == kind as u8,
            TABLE_TAG => self.is_table(),
            tag => self.has_tag(tag),
        }
    }
    /// Whether the value's top 16 bits are `tag`'s (an exact tag; tables, the highest, are a
    /// bound: [`Self::is_table`]).
    #[inline]
    fn has_tag(self, tag: u64) -> bool {
        self.0 >> TAG_SHIFT == tag >> TAG_SHIFT
    }
    /// `is_string` of a value known to be on the heap. With a tag of its own it is the same
    /// compare as [`Self::is_string`]; `type-check-strength-reduction` still has the form for
    /// boxings that test the header.
    #[inline]
    pub fn heap_is_string(self) -> bool {
        self.is_string()
    }
    /// `is_table` of a value known to be on the heap.
    #[inline]
    pub fn heap_is_table(self) -> bool {
        self.is_table()
    }
    /// `is_function` of a value known to be on the heap.
    #[inline]
    pub fn heap_is_function(self) -> bool {
        self.is_function()
    }
    #[inline]
    pub fn is_string(self) -> bool {
        self.has_tag(STRING_TAG)
    }
    #[inline]
    pub fn is_function(self) -> bool {
        self.has_tag(FUNCTION_TAG)
    }
    #[inline]
    pub fn is_table(self) -> bool {
        self.0 >= TABLE_TAG
    }
    /// Userdata share [`OBJECT_TAG`] with threads: the tag and the header's kind.
    #[inline]
    pub fn is_userdata(self) -> bool {
        self.is_kind(ObjKind::Userdata)
    }
    #[inline]
    pub fn as_string(self) -> *mut LuaString {
        self.as_ptr()
    }
    #[inline]
    pub fn as_table(self) -> *mut TableObject {
        self.as_ptr()
    }
    #[inline]
    pub fn as_closure(self) -> *mut Closure {
        self.as_ptr()
    }
    /// Raw equality (`rawequal`): doubles by value, everything else by identity (strings are
    /// interned).
    #[inline]
    pub fn raw_equals(self, other: TValue) -> bool {
        if self.is_double() && other.is_double() {
            self.as_f64() == other.as_f64()
        } else {
            self.0 == other.0
        }
    }
}

impl core::fmt::Debug for TValue {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        if self.is_double() {
            write!(f, "TValue({})", self.as_f64())
        } else if self.is_nil() {
            f.write_str("TValue(nil)")
        } else if self.is_bool() {
            write!(f, "TValue({})", *self == TValue::TRUE)
        } else {
            write!(f, "TValue({:#x})", self.0)
        }
    }
}

/// What a runtime helper tells the semantics to do next: 16 bytes, so the C convention returns
/// it in RAX:RDX instead of through memory (no stack slot in the handler that calls it).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct RtResult {
    pub value: u64,
    /// One of [`RT_VALUE`], [`RT_CALL`], [`RT_ERROR`].
    pub kind: u64,
}

/// What a coroutine switch in generated code continues with (the `lua_rt_coroutine_*`
/// helpers): the context to run on (null: the library function's native twin does the whole
/// call), a frame there, and values for it. Returned through memory (32 bytes), as it is only
/// on the switch itself.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct RtSwitch {
    pub ctx: *mut LuaContext,
    pub frame: *mut u64,
    pub values: *mut u64,
    pub count: u64,
}

impl RtSwitch {
    /// Not for the generated code: the twin does it.
    pub const TWIN: RtSwitch = RtSwitch { ctx: core::ptr::null_mut(), frame: core::ptr::null_mut(), values: core::ptr::null_mut(), count: 0 };
}

/// Where a coroutine's context lies in its thread object (`lua51_vm`'s `Thread` asserts it):
/// generated code tells a coroutine's context from its resumer's by address.
pub const THREAD_CONTEXT_OFFSET: usize = core::mem::size_of::<GcHeader>();

/// Where a coroutine's status lies in its thread object, past its context and its stack's four
/// words (`lua51_vm`'s `Thread` asserts it): a byte indexing [`SharedState::status_names`],
/// which generated `coroutine.status` reads.
pub const THREAD_STATUS_OFFSET: usize = THREAD_CONTEXT_OFFSET + core::mem::size_of::<LuaContext>() + 4 * 8;

/// `value` is the result.
pub const RT_VALUE: u64 = 0;
/// `value` is the address of a call frame the helper prepared (a metamethod and its
/// arguments, past the current frame): the semantics only make the call.
pub const RT_CALL: u64 = 1;
/// `value` is the error message to throw.
pub const RT_ERROR: u64 = 2;
/// Like [`RT_CALL`], for a comparison whose metamethod answers the opposite question
/// (`a <= b` computed as `not (b < a)`).
pub const RT_CALL_NEGATED: u64 = 3;

impl RtResult {
    #[inline]
    pub fn value(v: TValue) -> Self {
        RtResult { value: v.raw(), kind: RT_VALUE }
    }
    #[inline]
    pub fn call(frame: *mut u64) -> Self {
        RtResult { value: frame as u64, kind: RT_CALL }
    }
    #[inline]
    pub fn error(msg: u64) -> Self {
        RtResult { value: msg, kind: RT_ERROR }
    }
}

/// The key of an empty call inline cache: a bit pattern no value boxes to (above the doubles,
/// below nil), so no callee, whatever it is, can hit a cache that holds none. (Zero, the
/// number `+0`, once was the empty key: calling a variable holding 0 then hit the empty cache
/// and jumped through a null code block.)
pub const CALL_IC_EMPTY: u64 = 0xFFF9_0000_0000_0000;

/// Lua 5.1's `LUAI_MAXCCALLS`: how deeply native calls and the Lua functions the runtime calls
/// (metamethods, `for` iterators) may nest before "C stack overflow".
pub const MAX_C_CALLS: u32 = 200;

/// `num_results` of a call that keeps every result (Lua's `LUA_MULTRET`).
pub const MULTRET: u64 = 0xFFFF;

/// Reads slot `i` of a frame.
///
/// # Safety
/// `base + i` must be a slot of a live stack.
#[inline]
pub unsafe fn slot(base: *mut u64, i: usize) -> TValue {
    unsafe { TValue(ptr::read(base.add(i))) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boxing_classifies_every_kind() {
        for x in [0.0, -0.0, 1.5, f64::INFINITY, f64::NEG_INFINITY, f64::MIN_POSITIVE, f64::MAX, -f64::MAX] {
            let v = TValue::from_f64(x);
            assert!(v.is_double() && !v.is_heap() && !v.is_nil() && !v.is_falsy());
            assert_eq!(v.as_f64().to_bits(), x.to_bits());
        }
        // Computed at run time: x86's default NaN (0xFFF8..., negative), not f64::NAN.
        let nan = core::hint::black_box(0.0f64) / 0.0;
        assert!(TValue::from_f64(nan).is_double(), "default NaN must stay a double");
        assert!(TValue::from_f64(-nan).is_double());
        let odd_nan = f64::from_bits(0x7FF0_0000_0000_1234);
        assert!(TValue::from_f64_canonical(odd_nan).is_double());
        assert!(TValue::from_f64_canonical(-odd_nan).is_double());
        assert!(TValue::NIL.is_falsy() && TValue::FALSE.is_falsy() && !TValue::TRUE.is_falsy());
        assert!(TValue::FALSE.is_bool() && TValue::TRUE.is_bool() && !TValue::NIL.is_bool());
        for v in [TValue::NIL, TValue::FALSE, TValue::TRUE] {
            assert!(!v.is_double() && !v.is_heap());
        }
        let p = 0x7fff_1234_5678usize as *const GcHeader;
        let boxed = [TValue::from_object(p), TValue::from_table(p.cast()), TValue::from_string(p.cast()), TValue::from_function(p.cast())];
        for (i, h) in boxed.into_iter().enumerate() {
            assert!(h.is_heap() && !h.is_double() && !h.is_falsy() && !h.is_nil() && !h.is_bool());
            assert_eq!(h.as_ptr::<GcHeader>() as *const GcHeader, p);
            // Each tagged kind answers its own test and no other's.
            assert_eq!([h.is_table(), h.is_string(), h.is_function()], [i == 1, i == 2, i == 3]);
        }
        assert_eq!(TValue::from_bool(true), TValue::TRUE);
        assert_eq!(TValue::from_bool(false), TValue::FALSE);
    }
}
