//! Metatables and metamethods (5.1's `ltm`): the metatable of any value, and the handler of an
//! event. Tables and userdata have their own metatable, strings share one (`SharedState`), the
//! other types one per type (`debug.setmetatable`).

use lua51_value::{ObjKind, TValue};

use crate::object::table::{table_mut, Table};
use crate::object::userdata::userdata_mut;
use crate::state::{Event, LuaState};

/// The metatable of any value (tables have their own; strings share one).
pub(crate) fn metatable_of(st: &LuaState, v: TValue) -> *mut Table {
    if v.is_table() {
        table_mut(v).metatable()
    } else if v.is_kind(ObjKind::Userdata) {
        userdata_mut(v).metatable
    } else if v.is_string() {
        st.shared.string_metatable as *mut Table
    } else {
        type_metatable_index(v).map_or(std::ptr::null_mut(), |i| st.type_metatables[i])
    }
}

/// Where a value of a type with a shared metatable finds it in `LuaState::type_metatables`.
pub(crate) fn type_metatable_index(v: TValue) -> Option<usize> {
    if v.is_nil() {
        Some(0)
    } else if v.is_bool() {
        Some(1)
    } else if v.is_double() {
        Some(2)
    } else if v.is_function() {
        Some(3)
    } else if v.is_kind(ObjKind::Thread) {
        Some(4)
    } else {
        None
    }
}

/// The metamethod `event` of `v`, or nil.
pub(crate) fn metamethod(st: &LuaState, v: TValue, event: Event) -> TValue {
    let mt = metatable_of(st, v);
    if mt.is_null() {
        return TValue::NIL;
    }
    unsafe { (*mt).get_str(st.event_names[event as usize]) }
}
