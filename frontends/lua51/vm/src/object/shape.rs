//! The registry of hidden classes ([`Shape`]): creates shapes, remembers transitions so that
//! tables given the same keys in the same order share a shape, and frees the shapes no table
//! uses any more.
//!
//! Shapes are not collector objects on the heap's list: a table marks its shape (and the shape
//! its ancestors and their keys) while the collector traces it, and [`ShapeRegistry::sweep`]
//! then frees the unmarked ones. A child keeps its parent alive, so the transition tree stays
//! whole; the entry leading to a freed shape goes with it. Ids are never reused: an inline cache
//! that remembers a freed shape's id can never match a table again.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use std::sync::atomic::{AtomicU32, Ordering};

use deegen_api::ic::{IMPOSSIBLE_KEY, UNCACHEABLE_KEY};
use lua51_value::{Shape, TValue, MAX_IC_ID};

use crate::object::debt::account_storage;

/// A table with more string keys than this becomes a dictionary (its string keys move to the
/// hash part): shapes are for objects, module tables and records, not for maps, and the
/// registry must not grow with the keys a program invents.
pub const MAX_SHAPE_SLOTS: u32 = 64;

#[derive(Debug)]
pub struct ShapeRegistry {
    root: *mut Shape,
    /// (parent id, key) to child.
    transitions: HashMap<(u32, u64), *mut Shape, BuildHasherDefault<TransitionHasher>>,
    /// Every shape but the root.
    shapes: Vec<*mut Shape>,
}

/// The next inline-cache id (a shape's or a dictionary's; a table's key is made of it, see
/// `lua51_value::table_ic_key`): unique over the process, so a cache never matches an object it
/// did not see; [`UNCACHEABLE_KEY`] once they ran out (past [`MAX_IC_ID`]).
pub fn next_ic_id() -> u32 {
    static NEXT: AtomicU32 = AtomicU32::new(IMPOSSIBLE_KEY + 1);
    NEXT.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| (n <= MAX_IC_ID).then_some(n + 1))
        .ok()
        .filter(|&n| n <= MAX_IC_ID)
        .unwrap_or(UNCACHEABLE_KEY)
}

impl ShapeRegistry {
    pub fn new() -> Box<Self> {
        let mut r = Box::new(ShapeRegistry { root: std::ptr::null_mut(), transitions: HashMap::default(), shapes: Vec::new() });
        let registry: *mut ShapeRegistry = &mut *r;
        // Without ids left, the root shares the uncacheable key (it has no slots to cache).
        r.root = new_shape(next_ic_id(), std::ptr::null_mut(), Vec::new(), registry);
        r
    }

    /// The shape of a table without string keys.
    pub fn root(&self) -> *mut Shape {
        self.root
    }

    fn take_id(&mut self) -> Option<u32> {
        Some(next_ic_id()).filter(|&id| id != UNCACHEABLE_KEY)
    }

    /// The shape of a table of shape `parent` that gains `key` (an interned string it does not
    /// have); `None` when the table should become a dictionary instead.
    ///
    /// # Safety
    /// `parent` must be a live shape of this registry.
    pub unsafe fn transition(&mut self, parent: *mut Shape, key: TValue) -> Option<*mut Shape> {
        let p = unsafe { &*parent };
        if p.len >= MAX_SHAPE_SLOTS {
            return None;
        }
        let remember = |child: *mut Shape| {
            // SAFETY: `parent` is alive (the caller's table has it).
            unsafe {
                (*parent).last_transition = child;
                (*parent).last_transition_key = key;
            }
            Some(child)
        };
        if p.last_transition_key == key && !p.last_transition.is_null() {
            return Some(p.last_transition);
        }
        if let Some(&child) = self.transitions.get(&(p.id, key.raw())) {
            return remember(child);
        }
        let id = self.take_id()?;
        let mut keys = Vec::with_capacity(p.len as usize + 1);
        // SAFETY: a shape has `len` keys.
        keys.extend_from_slice(unsafe { std::slice::from_raw_parts(p.keys, p.len as usize) });
        keys.push(key);
        let child = new_shape(id, parent, keys, self);
        self.transitions.insert((p.id, key.raw()), child);
        self.shapes.push(child);
        remember(child)
    }

    /// Frees the shapes the collector did not mark, and clears the marks of the others.
    pub fn sweep(&mut self) {
        let mut dead = Vec::new();
        self.shapes.retain(|&s| {
            // SAFETY: registered shapes are alive until this frees them.
            let live = unsafe { std::mem::replace(&mut (*s).marked, 0) } != 0;
            if !live {
                dead.push(s);
            }
            live
        });
        for &s in &dead {
            // A dead shape's parent may die too: look it up before anything is freed.
            let parent = unsafe { (*s).parent };
            let (parent_id, key) = unsafe { ((*parent).id, *(*s).keys.add((*s).len as usize - 1)) };
            self.transitions.remove(&(parent_id, key.raw()));
            unsafe {
                if (*parent).last_transition == s {
                    (*parent).last_transition = std::ptr::null_mut();
                }
            }
        }
        for s in dead {
            unsafe { free_shape(s) };
        }
        unsafe { (*self.root).marked = 0 };
    }
}

impl Drop for ShapeRegistry {
    fn drop(&mut self) {
        for &s in self.shapes.iter().chain([&self.root]) {
            unsafe { free_shape(s) };
        }
    }
}

/// A multiplicative hash for transition keys (a shape id and a key's bits): the default
/// SipHash made building objects measurably slower.
#[derive(Default)]
struct TransitionHasher(u64);

impl Hasher for TransitionHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u32(&mut self, x: u32) {
        self.write_u64(u64::from(x));
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x51_7C_C1_B7_27_22_0A_95);
    }
}

/// Bytes a shape of `len` keys owns, for the collector's accounting.
fn shape_bytes(len: usize, index_len: usize) -> isize {
    (std::mem::size_of::<Shape>() + len * 8 + index_len) as isize
}

/// Bytes of the index of a shape of `len` keys: at most half full, so a probe mostly ends at
/// its first entry and always at an empty one.
fn shape_index_len(len: usize) -> usize {
    (len * 2).next_power_of_two().max(2)
}

fn new_shape(id: u32, parent: *mut Shape, keys: Vec<TValue>, registry: *mut ShapeRegistry) -> *mut Shape {
    let len = keys.len();
    // Every shape has an index, however few its keys: a lookup by a key that varies at run
    // time (`t[k]`, no inline cache) probes it once from the key's hash, where a small shape
    // used to be searched by a filter test and a scan of up to 8 keys.
    let size = shape_index_len(len);
    let mut table = vec![0u8; size];
    for (slot, k) in keys.iter().enumerate() {
        let mut i = unsafe { (*k.as_string()).hash } as usize & (size - 1);
        while table[i] != 0 {
            i = (i + 1) & (size - 1);
        }
        table[i] = (slot + 1) as u8;
    }
    let index = table.into_boxed_slice();
    let index_mask = (size - 1) as u32;
    account_storage(shape_bytes(len, index.len()));
    let filter = keys.iter().fold(0, |f, k| f | Shape::filter_bit(*k));
    let keys = Box::into_raw(keys.into_boxed_slice()) as *const TValue;
    Box::into_raw(Box::new(Shape {
        id,
        len: len as u32,
        filter,
        keys,
        index: Box::into_raw(index) as *const u8,
        index_mask,
        marked: 0,
        parent,
        registry: registry as *mut (),
        last_transition: std::ptr::null_mut(),
        last_transition_key: TValue::NIL,
    }))
}

unsafe fn free_shape(s: *mut Shape) {
    let s = unsafe { Box::from_raw(s) };
    let index_len = shape_index_len(s.len as usize);
    account_storage(-shape_bytes(s.len as usize, index_len));
    unsafe {
        drop(Box::from_raw(std::ptr::slice_from_raw_parts_mut(s.keys as *mut TValue, s.len as usize)));
        drop(Box::from_raw(std::ptr::slice_from_raw_parts_mut(s.index as *mut u8, index_len)));
    }
}

/// The registry a shape belongs to.
///
/// # Safety
/// `s` must be a live shape.
pub unsafe fn registry_of<'a>(s: *mut Shape) -> &'a mut ShapeRegistry {
    unsafe { &mut *((*s).registry as *mut ShapeRegistry) }
}
