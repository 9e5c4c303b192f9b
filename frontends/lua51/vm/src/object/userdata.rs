//! Full userdata: a heap object with a metatable, an environment and a Rust payload. The
//! standard library uses it for files and `newproxy`. A userdata whose metatable has `__gc`
//! when it becomes unreachable is finalized first (see `gc`); the collector drops the payload
//! with the object.

use std::any::Any;

use lua51_value::{GcHeader, ObjKind, TValue};

use crate::object::heap::{Heap, OutOfMemory};
use crate::object::table::Table;

#[repr(C)]
pub struct Userdata {
    pub header: GcHeader,
    pub metatable: *mut Table,
    pub env: TValue,
    pub payload: Box<dyn Any>,
    /// Queued for its `__gc` once already (5.1's FINALIZEDBIT): never again, and a weak table
    /// holding it as a value forgets it from then on, even if the finalizer resurrected it.
    pub finalized: bool,
}

impl std::fmt::Debug for Userdata {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Userdata").finish_non_exhaustive()
    }
}

impl Userdata {
    /// `metatable` is stored, not read: any table (or null) is fine.
    #[allow(clippy::not_unsafe_ptr_arg_deref)]
    pub fn new_in(heap: &mut Heap, payload: Box<dyn Any>, metatable: *mut Table, env: TValue) -> Result<TValue, OutOfMemory> {
        let p = heap.alloc(std::mem::size_of::<Userdata>(), ObjKind::Userdata)? as *mut Userdata;
        unsafe {
            std::ptr::addr_of_mut!((*p).metatable).write(metatable);
            std::ptr::addr_of_mut!((*p).env).write(env);
            std::ptr::addr_of_mut!((*p).payload).write(payload);
            std::ptr::addr_of_mut!((*p).finalized).write(false);
        }
        Ok(TValue::from_object(p.cast()))
    }
}

pub fn userdata_mut<'a>(v: TValue) -> &'a mut Userdata {
    debug_assert!(v.is_kind(ObjKind::Userdata));
    unsafe { &mut *v.as_ptr::<Userdata>() }
}
