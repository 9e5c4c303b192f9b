//! The runtime helpers the semantics call (`lua_rt_*`, declared by `lua51_value::runtime_abi!`):
//! the slow and rare paths of the bytecodes, in ordinary Rust (5.1's `lvm` slow paths, `ldo`'s
//! error handling). The generated handlers call them with the C convention; the pinned VM state
//! survives in callee-saved registers. Also the packer of LUA_COMPAT_VARARG's `arg` table,
//! which compiled functions call in their prologue.

use deegen_api::{CodeBlock, FRAME_HEADER_SLOTS};
use lua51_value::abi::{ArithOp, ForError};
use lua51_value::number::{format_number, to_number};
use lua51_value::{type_name, LuaContext, RtResult, TValue, UpVal};

use crate::gc::{check as gc_check, run_finalizers};
use crate::interp::STATUS_YIELD;
use crate::metamethod::{metamethod, metatable_of};
use crate::object::function::{close_upvalues, is_native, new_closure, new_native, new_upval, proto_of, Proto};
use crate::object::heap::OutOfMemory;
use crate::object::string::string_bytes;
use crate::object::table::{table_mut, InvalidKey, KeyError, Table};
use crate::object::thread::HANDLER_RESERVE;
use crate::state::{state_of, Event, HandlerState, LuaError, LuaState, PendingError, Protected, MAX_NATIVE_DEPTH};

fn fmod(a: f64, b: f64) -> f64 {
    a - (a / b).floor() * b
}

/// The error of an allocation that failed: `lua_rt_on_throw` turns the marker into 5.1's
/// "not enough memory" (interning a message could fail too).
fn out_of_memory(st: &mut LuaState) -> u64 {
    st.pending = Some(PendingError::OutOfMemory);
    TValue::NIL.raw()
}

/// An interned message, or the out-of-memory marker when even that fails.
fn message(st: &mut LuaState, text: &str) -> u64 {
    match st.intern(text.as_bytes()) {
        Ok(v) => v.raw(),
        Err(OutOfMemory) => out_of_memory(st),
    }
}

/// A type error about a value that is not one of the bytecode's operands (no name to report).
fn untracked_type_error(st: &mut LuaState, verb: &'static str, value: TValue) -> u64 {
    let text = format!("attempt to {verb} a {} value", type_name(value));
    message(st, &text)
}

fn type_error(st: &mut LuaState, verb: &'static str, operand: u8, value: TValue) -> u64 {
    st.pending = Some(PendingError::Type { verb, operand, value });
    let text = format!("attempt to {verb} a {} value", type_name(value));
    message(st, &text)
}

/// Writes a call of the metamethod handler `f` with `args` in a frame right past the current
/// one (`base` + the code block's frame size), for the semantics to call (resolving `__call`
/// if `f` is not a function). The call counts as one of the coroutine's runtime calls
/// (`LuaContext::c_calls`) until its continuation runs; past 5.1's nesting limit of such
/// calls and native ones, it is "C stack overflow" instead.
pub(crate) fn metamethod_call(st: &mut LuaState, base: *mut u64, cb: *const CodeBlock, f: TValue, args: &[TValue]) -> RtResult {
    if st.shared.native_depth + st.cur().c_calls as usize + 1 >= MAX_NATIVE_DEPTH {
        return RtResult::error(message(st, "C stack overflow"));
    }
    st.cur().c_calls += 1;
    unsafe {
        let frame = frame_top(base, cb);
        *frame = f.raw();
        for (i, a) in args.iter().enumerate() {
            *frame.add(FRAME_HEADER_SLOTS + i) = a.raw();
        }
        RtResult::call(frame)
    }
}

/// A generic `for` has nested more iterator calls than 5.1 allows (see
/// [`LuaContext::c_calls`]): the error to throw.
#[no_mangle]
pub unsafe extern "C" fn lua_rt_c_stack_overflow(ctx: *mut LuaContext) -> u64 {
    let st = unsafe { state_of(ctx) };
    message(st, "C stack overflow")
}

#[no_mangle]
pub unsafe extern "C" fn lua_rt_arith(ctx: *mut LuaContext, op: ArithOp, lhs: u64, rhs: u64, base: *mut u64, cb: *const CodeBlock) -> RtResult {
    let (Some(a), Some(b)) = (to_number(TValue(lhs)), to_number(TValue(rhs))) else {
        let st = unsafe { state_of(ctx) };
        let event = match op {
            ArithOp::Add => Event::Add,
            ArithOp::Sub => Event::Sub,
            ArithOp::Mul => Event::Mul,
            ArithOp::Div => Event::Div,
            ArithOp::Mod => Event::Mod,
            ArithOp::Pow => Event::Pow,
            ArithOp::Unm => Event::Unm,
        };
        let mut tm = metamethod(st, TValue(lhs), event);
        if tm.is_nil() {
            tm = metamethod(st, TValue(rhs), event);
        }
        if !tm.is_nil() {
            return metamethod_call(st, base, cb, tm, &[TValue(lhs), TValue(rhs)]);
        }
        return RtResult::error(unsafe { arith_error(ctx, lhs, rhs) });
    };
    let r = match op {
        ArithOp::Add => a + b,
        ArithOp::Sub => a - b,
        ArithOp::Mul => a * b,
        ArithOp::Div => a / b,
        ArithOp::Mod => fmod(a, b),
        ArithOp::Pow => a.powf(b),
        ArithOp::Unm => -a,
    };
    RtResult::value(TValue::from_f64_canonical(r))
}

/// Lua 5.1's `MAXTAGLOOP`: longest `__index`/`__newindex` chain followed.
const MAX_TAG_LOOP: usize = 100;

#[no_mangle]
pub unsafe extern "C" fn lua_rt_index(ctx: *mut LuaContext, obj: u64, key: u64, base: *mut u64, cb: *const CodeBlock) -> RtResult {
    unsafe { lua_rt_index_from(ctx, obj, key, 0, base, cb) }
}

#[no_mangle]
pub unsafe extern "C" fn lua_rt_index_from(ctx: *mut LuaContext, obj: u64, key: u64, depth: u64, base: *mut u64, cb: *const CodeBlock) -> RtResult {
    let st = unsafe { state_of(ctx) };
    let key = TValue(key);
    let mut t = TValue(obj);
    for depth in (depth as usize).min(MAX_TAG_LOOP)..MAX_TAG_LOOP {
        let tm = if t.is_table() {
            let table = table_mut(t);
            let v = table.get_any(key);
            if !v.is_nil() {
                return RtResult::value(v);
            }
            // A class chain longer than the handlers follow, or one that ends in an `__index`
            // function (defaults): each step is a probe and the metatable's cached `__index`.
            let mt = table.metatable();
            if mt.is_null() {
                return RtResult::value(TValue::NIL);
            }
            // SAFETY: a table's metatable is a live table.
            let tm = unsafe { &*mt }.index_handler(st.shared.index_event);
            if tm.is_nil() {
                return RtResult::value(TValue::NIL);
            }
            tm
        } else {
            let tm = metamethod(st, t, Event::Index);
            if tm.is_nil() {
                // Only the bytecode's own operand has a name to report.
                return RtResult::error(if depth == 0 { type_error(st, "index", 0, t) } else { untracked_type_error(st, "index", t) });
            }
            tm
        };
        if tm.is_function() {
            return metamethod_call(st, base, cb, tm, &[t, key]);
        }
        t = tm;
    }
    RtResult::error(message(st, "loop in gettable"))
}

#[no_mangle]
pub unsafe extern "C" fn lua_rt_newindex(ctx: *mut LuaContext, obj: u64, key: u64, value: u64, base: *mut u64, cb: *const CodeBlock) -> RtResult {
    let st = unsafe { state_of(ctx) };
    let (key, value) = (TValue(key), TValue(value));
    let mut t = TValue(obj);
    for depth in 0..MAX_TAG_LOOP {
        let tm = if t.is_table() {
            let table = table_mut(t);
            // `__newindex` is asked only about an absent key, and only a table with a metatable
            // has one: most stores that reach here (new keys, growth) skip the lookup.
            let tm = if !table.metatable().is_null() && table.get_any(key).is_nil() { metamethod(st, t, Event::NewIndex) } else { TValue::NIL };
            if tm.is_nil() {
                let result = table.set(key, value);
                st.heap.write_barrier(t.as_ptr());
                return match result {
                    Ok(()) => RtResult::value(TValue::NIL),
                    Err(KeyError::Nil) => RtResult::error(message(st, "table index is nil")),
                    Err(KeyError::NaN) => RtResult::error(message(st, "table index is NaN")),
                    Err(KeyError::OutOfMemory) => RtResult::error(out_of_memory(st)),
                };
            }
            tm
        } else {
            let tm = metamethod(st, t, Event::NewIndex);
            if tm.is_nil() {
                return RtResult::error(if depth == 0 { type_error(st, "index", 0, t) } else { untracked_type_error(st, "index", t) });
            }
            tm
        };
        if tm.is_function() {
            return metamethod_call(st, base, cb, tm, &[t, key, value]);
        }
        t = tm;
    }
    RtResult::error(message(st, "loop in settable"))
}

#[no_mangle]
pub unsafe extern "C" fn lua_rt_call_handler(ctx: *mut LuaContext, frame: *mut u64, num_args: u64, named: u64) -> RtResult {
    let st = unsafe { state_of(ctx) };
    let callee = TValue(unsafe { *frame });
    let tm = metamethod(st, callee, Event::Call);
    if !tm.is_function() {
        // 5.1 follows one `__call` only: a handler that is itself callable only through its
        // own `__call` is an error about the original callee.
        return RtResult::error(if named != 0 { type_error(st, "call", 0, callee) } else { untracked_type_error(st, "call", callee) });
    }
    unsafe {
        let args = frame.add(FRAME_HEADER_SLOTS);
        std::ptr::copy(args, args.add(1), num_args as usize);
        *args = callee.raw();
        *frame = tm.raw();
    }
    RtResult::call(frame)
}

#[no_mangle]
pub unsafe extern "C" fn lua_rt_new_table(ctx: *mut LuaContext, array: u64, hash: u64, base: *mut u64, cb: *const CodeBlock) -> u64 {
    let st = unsafe { state_of(ctx) };
    gc_check(st, frame_top(base, cb));
    match Table::with_capacity(&mut st.heap, array as usize, hash as usize) {
        Ok(t) => t.raw(),
        Err(OutOfMemory) => TValue::NIL.raw(),
    }
}

#[no_mangle]
pub unsafe extern "C" fn lua_rt_hash_slot(table: u64, key: u64) -> *mut TValue {
    // SAFETY: the semantics pass a table.
    let t = unsafe { &*TValue(table).as_table() };
    t.find_non_string(TValue(key)).map_or(std::ptr::null_mut(), |n| unsafe { std::ptr::addr_of_mut!((*n).value) })
}

#[no_mangle]
pub unsafe extern "C" fn lua_rt_append_grow(ctx: *mut LuaContext, table: u64, value: u64) -> bool {
    // The generic store (`lua_rt_newindex`, `Table::set`) would check what the handler did and
    // then do no more than this append.
    let pushed = table_mut(TValue(table)).append(TValue(value)).is_ok();
    unsafe { state_of(ctx) }.heap.write_barrier(TValue(table).as_ptr());
    pushed
}

#[no_mangle]
pub unsafe extern "C" fn lua_rt_init_field(ctx: *mut LuaContext, table: u64, name: u64, value: u64) -> u64 {
    // The handler sends only tables without a metatable (its cache's add failed: a new
    // transition, a slot block to grow, a dictionary).
    let result = table_mut(TValue(table)).init_field(TValue(name), TValue(value));
    unsafe { state_of(ctx) }.heap.write_barrier(TValue(table).as_ptr());
    match result {
        Ok(()) => 0,
        // The key is an interned string (neither nil nor NaN): growth is what can fail.
        Err(_) => out_of_memory(unsafe { state_of(ctx) }),
    }
}

#[no_mangle]
pub unsafe extern "C" fn lua_rt_set_list(ctx: *mut LuaContext, table: u64, values: *mut u64, count: u64, first_index: u64) -> u64 {
    // The compiler aims every list at the table it just made, from index 1 on; a precompiled
    // chunk is verified for its slots, not for what they hold.
    if !TValue(table).is_table() || first_index == 0 {
        let st = unsafe { state_of(ctx) };
        return untracked_type_error(st, "index", TValue(table));
    }
    let values = unsafe { std::slice::from_raw_parts(values as *const TValue, count as usize) };
    let result = table_mut(TValue(table)).set_list(first_index as usize, values);
    unsafe { state_of(ctx) }.heap.write_barrier(TValue(table).as_ptr());
    match result {
        Ok(()) => 0,
        // A list's keys are numbers (neither nil nor NaN): growth is what can fail.
        Err(_) => out_of_memory(unsafe { state_of(ctx) }),
    }
}

/// The message for arithmetic on a non-number.
unsafe fn arith_error(ctx: *mut LuaContext, lhs: u64, rhs: u64) -> u64 {
    let st = unsafe { state_of(ctx) };
    // Lua 5.1 blames the first operand if it is not a number, else the second.
    if to_number(TValue(lhs)).is_none() {
        type_error(st, "perform arithmetic on", 0, TValue(lhs))
    } else {
        type_error(st, "perform arithmetic on", 1, TValue(rhs))
    }
}

fn concat_piece(v: TValue, out: &mut Vec<u8>) -> bool {
    if v.is_string() {
        out.extend_from_slice(string_bytes(v));
        true
    } else if v.is_double() {
        format_number(v.as_f64(), out);
        true
    } else {
        false
    }
}

/// The live top of the frame at `base`: a garbage-collection safe point's root boundary.
fn frame_top(base: *mut u64, cb: *const CodeBlock) -> *mut u64 {
    unsafe { base.add((*cb).frame_slots as usize) }
}

/// A collection safe point for the frame at `base`, for bytecodes that check after storing
/// what they made (`Concat`).
#[no_mangle]
pub unsafe extern "C" fn lua_rt_gc_check(ctx: *mut LuaContext, base: *mut u64, cb: *const CodeBlock) {
    let st = unsafe { state_of(ctx) };
    gc_check(st, frame_top(base, cb));
}

/// Concatenates `count` values from `first` (the collection check is the caller's, once the
/// result is stored).
#[no_mangle]
pub unsafe extern "C" fn lua_rt_concat(
    ctx: *mut LuaContext,
    first: *mut u64,
    count: u64,
    total: u64,
    base: *mut u64,
    cb: *const CodeBlock,
) -> RtResult {
    let st = unsafe { state_of(ctx) };
    // The values where they lie (a vector per concatenation showed in string building): the
    // stack does not move, and nothing here writes these slots.
    let values: &[TValue] = unsafe { std::slice::from_raw_parts(first as *const TValue, count as usize) };
    if values.len() == 1 {
        // What a __concat left as the last value is the result, whatever its type.
        return RtResult::value(values[0]);
    }
    let ok = |v: TValue| v.is_string() || v.is_double();
    // Lua 5.1's luaV_concat: from the right, as many strings/numbers at once as possible; a
    // pair that is not both goes to __concat.
    let mut acc_start = values.len() - 1;
    if ok(values[acc_start]) {
        while acc_start > 0 && ok(values[acc_start - 1]) {
            acc_start -= 1;
        }
    }
    // A run of one value stays as it is: 5.1 hands a lone number to `__concat` unconverted.
    let acc = if acc_start < values.len() - 1 {
        let mut buf = std::mem::take(&mut st.scratch);
        buf.clear();
        // Room for the whole result first (a number takes at most 32 bytes): a string too
        // long to allocate is "not enough memory", not an abort.
        let size: usize = values[acc_start..].iter().map(|v| if v.is_string() { string_bytes(*v).len() } else { 32 }).sum();
        if buf.try_reserve(size).is_err() {
            st.scratch = buf;
            return RtResult::error(out_of_memory(st));
        }
        for v in &values[acc_start..] {
            concat_piece(*v, &mut buf);
        }
        let s = st.intern(&buf);
        st.scratch = buf;
        match s {
            Ok(s) => s,
            Err(OutOfMemory) => return RtResult::error(out_of_memory(st)),
        }
    } else {
        acc_start = values.len() - 1;
        values[acc_start]
    };
    if acc_start == 0 {
        return RtResult::value(acc);
    }
    // The pair (values[acc_start - 1], acc) is not two strings/numbers.
    let left = values[acc_start - 1];
    let mut tm = metamethod(st, left, Event::Concat);
    if tm.is_nil() {
        tm = metamethod(st, acc, Event::Concat);
    }
    if tm.is_nil() {
        let culprit = if ok(left) { acc_start } else { acc_start - 1 };
        let blamed = if ok(left) { acc } else { left };
        return RtResult::error(type_error(st, "concatenate", culprit as u8, blamed));
    }
    let r = metamethod_call(st, base, cb, tm, &[left, acc]);
    if r.kind == lua51_value::RT_CALL {
        unsafe { *first.add(total as usize - 1) = TValue::from_f64(acc_start as f64).raw() };
    }
    r
}

#[no_mangle]
pub unsafe extern "C" fn lua_rt_len(_ctx: *mut LuaContext, v: u64, out: *mut u64) -> bool {
    let v = TValue(v);
    if !v.is_table() {
        return false;
    }
    unsafe { *out = TValue::from_f64(table_mut(v).length() as f64).raw() };
    true
}

/// One step of `next(table, key)` for the generic `for`: writes the next key and value to
/// `out[0..2]` and returns 1, returns 0 at the end, 2 for a key not in the table (the caller then
/// calls `next` itself, which raises the error as 5.1 words it).
#[no_mangle]
pub unsafe extern "C" fn lua_rt_next(table: u64, key: u64, out: *mut u64) -> u64 {
    match table_mut(TValue(table)).next(TValue(key)) {
        Ok(Some((k, v))) => {
            unsafe {
                *out = k.raw();
                *out.add(1) = v.raw();
            }
            1
        }
        Ok(None) => 0,
        Err(InvalidKey) => 2,
    }
}

/// `#v` for values without a built-in length: 5.1 calls `__len(v, nil)` (which only userdata
/// can have: strings and tables never reach here), else raises the error.
#[no_mangle]
pub unsafe extern "C" fn lua_rt_len_metamethod(ctx: *mut LuaContext, v: u64, base: *mut u64, cb: *const CodeBlock) -> RtResult {
    let st = unsafe { state_of(ctx) };
    let v = TValue(v);
    // Tables and strings never get here (they have a length); any other type may have `__len`.
    let tm = metamethod(st, v, Event::Len);
    if tm.is_nil() {
        return RtResult::error(type_error(st, "get length of", 0, v));
    }
    metamethod_call(st, base, cb, tm, &[v, TValue::NIL])
}

fn compare_strings(a: TValue, b: TValue) -> Option<std::cmp::Ordering> {
    (a.is_string() && b.is_string()).then(|| string_bytes(a).cmp(string_bytes(b)))
}

fn compare_error(st: &mut LuaState, lhs: TValue, rhs: TValue) -> RtResult {
    let (t1, t2) = (type_name(lhs), type_name(rhs));
    let text = if t1 == t2 { format!("attempt to compare two {t1} values") } else { format!("attempt to compare {t1} with {t2}") };
    RtResult::error(message(st, &text))
}

/// Lua 5.1's `call_orderTM`: both operands must have the same metamethod.
fn order_metamethod(st: &LuaState, a: TValue, b: TValue, event: crate::state::Event) -> Option<TValue> {
    let tm1 = metamethod(st, a, event);
    if tm1.is_nil() {
        return None;
    }
    let tm2 = metamethod(st, b, event);
    tm1.raw_equals(tm2).then_some(tm1)
}

fn bool_result(b: bool) -> RtResult {
    RtResult { value: u64::from(b), kind: lua51_value::RT_VALUE }
}

#[no_mangle]
pub unsafe extern "C" fn lua_rt_less_than(ctx: *mut LuaContext, lhs: u64, rhs: u64, base: *mut u64, cb: *const CodeBlock) -> RtResult {
    let st = unsafe { state_of(ctx) };
    let (l, r) = (TValue(lhs), TValue(rhs));
    if let Some(o) = compare_strings(l, r) {
        return bool_result(o.is_lt());
    }
    if type_name(l) == type_name(r) {
        if let Some(tm) = order_metamethod(st, l, r, Event::Lt) {
            return metamethod_call(st, base, cb, tm, &[l, r]);
        }
    }
    compare_error(st, l, r)
}

#[no_mangle]
pub unsafe extern "C" fn lua_rt_less_equal(ctx: *mut LuaContext, lhs: u64, rhs: u64, base: *mut u64, cb: *const CodeBlock) -> RtResult {
    let st = unsafe { state_of(ctx) };
    let (l, r) = (TValue(lhs), TValue(rhs));
    if let Some(o) = compare_strings(l, r) {
        return bool_result(o.is_le());
    }
    if type_name(l) == type_name(r) {
        if let Some(tm) = order_metamethod(st, l, r, Event::Le) {
            return metamethod_call(st, base, cb, tm, &[l, r]);
        }
        if let Some(tm) = order_metamethod(st, r, l, Event::Lt) {
            let call = metamethod_call(st, base, cb, tm, &[r, l]);
            return if call.kind == lua51_value::RT_CALL { RtResult { kind: lua51_value::RT_CALL_NEGATED, ..call } } else { call };
        }
    }
    compare_error(st, l, r)
}

#[no_mangle]
pub unsafe extern "C" fn lua_rt_equal(ctx: *mut LuaContext, lhs: u64, rhs: u64, base: *mut u64, cb: *const CodeBlock) -> RtResult {
    let st = unsafe { state_of(ctx) };
    let (l, r) = (TValue(lhs), TValue(rhs));
    // Lua 5.1's get_compTM: the same metamethod (or the same metatable) on both sides.
    let (mt1, mt2) = (metatable_of(st, l), metatable_of(st, r));
    if mt1.is_null() {
        return bool_result(false);
    }
    let tm1 = metamethod(st, l, Event::Eq);
    if tm1.is_nil() {
        return bool_result(false);
    }
    if mt1 != mt2 && !tm1.raw_equals(metamethod(st, r, Event::Eq)) {
        return bool_result(false);
    }
    metamethod_call(st, base, cb, tm1, &[l, r])
}

#[no_mangle]
pub unsafe extern "C" fn lua_rt_tonumber(_ctx: *mut LuaContext, v: u64, out: *mut u64) -> bool {
    match to_number(TValue(v)) {
        Some(x) => {
            unsafe { *out = TValue::from_f64_canonical(x).raw() };
            true
        }
        None => false,
    }
}

#[no_mangle]
pub unsafe extern "C" fn lua_rt_for_error(ctx: *mut LuaContext, which: ForError) -> u64 {
    let text = match which {
        ForError::Initial => "'for' initial value must be a number",
        ForError::Limit => "'for' limit must be a number",
        ForError::Step => "'for' step must be a number",
    };
    message(unsafe { state_of(ctx) }, text)
}

/// Finds or creates the open upvalue for `slot`, keeping the list sorted by address (highest
/// first) so closing a scope pops a prefix.
fn find_upval(st: &mut LuaState, slot: *mut u64) -> Result<*mut UpVal, OutOfMemory> {
    unsafe {
        let mut link: *mut *mut UpVal = &mut st.cur().open_upvalues as *mut *mut UpVal;
        while !(*link).is_null() && (**link).value >= slot {
            if (**link).value == slot {
                return Ok(*link);
            }
            link = &mut (**link).next_open;
        }
        let u = new_upval(&mut st.heap, slot)?;
        (*u).next_open = *link;
        *link = u;
        Ok(u)
    }
}

#[no_mangle]
pub unsafe extern "C" fn lua_rt_new_closure(ctx: *mut LuaContext, proto: u64, base: *mut u64, cb: *const CodeBlock) -> u64 {
    let st = unsafe { state_of(ctx) };
    gc_check(st, frame_top(base, cb));
    let proto = unsafe { &*(proto as *const Proto) };
    let enclosing = TValue(unsafe { *base.sub(deegen_api::FRAME_HEADER_SLOTS) });
    let env = unsafe { (*enclosing.as_closure()).env };
    let Ok(c) = new_closure(&mut st.heap, proto.code_block(), proto.upvalues.len(), env) else {
        // Out of memory is reported by returning nil; the next use fails visibly.
        return TValue::NIL.raw();
    };
    for (i, d) in proto.upvalues.iter().enumerate() {
        let u = if d.in_stack {
            match find_upval(st, unsafe { base.add(usize::from(d.index)) }) {
                Ok(u) => u,
                Err(OutOfMemory) => return TValue::NIL.raw(),
            }
        } else {
            unsafe { (*enclosing.as_closure()).upvalue(usize::from(d.index)) }
        };
        unsafe { *(*c).upvalues().add(i) = u };
    }
    TValue::from_function(c).raw()
}

#[no_mangle]
pub unsafe extern "C" fn lua_rt_close_upvalues(ctx: *mut LuaContext, from: *mut u64) {
    unsafe { close_upvalues(ctx, from) }
}

#[no_mangle]
pub unsafe extern "C" fn lua_rt_write_barrier(ctx: *mut LuaContext, obj: *mut lua51_value::GcHeader) {
    unsafe { state_of(ctx) }.heap.barrier(obj)
}

/// The generic code of a baseline JIT instruction with a fused inline cache filled the cache's
/// first entry with a state of `kind` (`deegen_api::runtime_constants::IC_FILLED`): the JIT adds
/// a stub for it to the instruction's chain.
#[no_mangle]
pub unsafe extern "C" fn __deegen_jit_ic_filled(ctx: *mut LuaContext, pc: *const u8, kind: u32) {
    // SAFETY: JIT code of the live instruction at `pc` is asking.
    unsafe { state_of(ctx).tiering.ic_filled(pc, kind) }
}

/// A function ran out of its hotness countdown: counted for `ljr --stats`; what happens next
/// is the tiering policy's (`tiering`).
#[no_mangle]
pub unsafe extern "C" fn lua_rt_tier_up(ctx: *mut LuaContext, cb: *mut CodeBlock, pc: *const u8) -> *const () {
    let st = unsafe { state_of(ctx) };
    st.stats.tier_up_requests += 1;
    // SAFETY: the interpreter passes the live code block of the bytecode function it runs, whose
    // owner is its prototype.
    let proto = unsafe { &mut *((*cb).owner as *mut crate::object::function::Proto) };
    if !st.tiering.compiles_when_hot() {
        // Interpreter only, or a debug hook set: keep interpreting (a function compiled
        // before the hook was set is entered through the interpreter meanwhile).
        unsafe { (*cb).hotness = st.tiering.initial_hotness() };
        return std::ptr::null();
    }
    if proto.jit.is_none() {
        // SAFETY: the prototype's own code block and boxed bytecode.
        proto.jit = unsafe { st.tiering.compile(cb, &proto.code) };
        if proto.jit.is_none() {
            // Failed: stay in the interpreter and stop asking.
            unsafe { (*cb).hotness = i64::MAX };
            return std::ptr::null();
        }
    }
    // Frames of this function still in the interpreter ask again at their next back edge, and
    // move into the JIT code there.
    unsafe { (*cb).hotness = 0 };
    if pc.is_null() {
        return std::ptr::null();
    }
    let offset = (pc as usize).wrapping_sub(proto.code.as_ptr() as usize);
    let code = proto.jit.as_ref().and_then(|c| c.code_at(offset)).map_or(std::ptr::null(), |a| a as *const ());
    tracing::trace!(requests = st.stats.tier_up_requests, offset, osr = !code.is_null(), "tier-up");
    code
}

#[no_mangle]
pub unsafe extern "C" fn lua_rt_stack_overflow(ctx: *mut LuaContext) -> u64 {
    message(unsafe { state_of(ctx) }, "stack overflow")
}

#[no_mangle]
pub unsafe extern "C" fn lua_rt_frame_overflow(ctx: *mut LuaContext, base: *mut u64) -> u64 {
    let st = unsafe { state_of(ctx) };
    st.overflow_frame = base;
    message(st, "stack overflow")
}

#[no_mangle]
pub unsafe extern "C" fn lua_rt_lib_argument_error(ctx: *mut LuaContext, base: *mut u64, arg: u64, msg: *const u8) -> u64 {
    let st = unsafe { state_of(ctx) };
    let msg = unsafe { std::ffi::CStr::from_ptr(msg.cast()) }.to_string_lossy();
    let text = st.argument_error(base, arg as usize, &msg);
    message(st, &text)
}

#[no_mangle]
pub unsafe extern "C" fn lua_rt_catch(ctx: *mut LuaContext, base: *mut u64) -> u64 {
    unsafe {
        (*ctx).interp.status = deegen_api::STATUS_OK;
        // The frames above are gone: their captured locals move into their upvalues.
        close_upvalues(ctx, base);
        (*ctx).interp.error
    }
}

#[no_mangle]
pub unsafe extern "C" fn lua_rt_substring(ctx: *mut LuaContext, base: *mut u64, num_args: u64, s: u64, start: u64, len: u64) -> u64 {
    let st = unsafe { state_of(ctx) };
    let bytes = string_bytes(TValue(s));
    // A range outside the string is the semantics' mistake: the native twin answers then.
    let Some(piece) = usize::try_from(start).ok().zip(usize::try_from(len).ok()).and_then(|(a, n)| bytes.get(a..a.checked_add(n)?)) else {
        return TValue::NIL.raw();
    };
    // A piece cut out again (k-mers, tokens) is interned already: finding it allocates nothing,
    // so neither the collector's step nor the allocation's frame is needed.
    match st.heap.find_interned(piece) {
        Some(v) => v.raw(),
        None => unsafe { new_substring(st, base.add(num_args as usize), piece) },
    }
}

/// [`lua_rt_substring`]'s piece that is not interned yet: the collector may step first.
///
/// # Safety
/// `top` is the top of the frame that holds the string `piece` is part of (an argument, so
/// live across the collection).
#[cold]
#[inline(never)]
unsafe fn new_substring(st: &mut LuaState, top: *mut u64, piece: &[u8]) -> u64 {
    gc_check(st, top);
    match st.intern(piece) {
        Ok(v) => v.raw(),
        Err(OutOfMemory) => TValue::NIL.raw(),
    }
}

#[no_mangle]
pub unsafe extern "C" fn lua_rt_native_twin(ctx: *mut LuaContext, base: *mut u64, num_args: u64, cb: *const CodeBlock) -> i64 {
    // SAFETY: a library function's code block is its native twin's, whose `native` is a
    // `NativeFn` (`native_code_block`).
    let f: crate::object::function::NativeFn = unsafe { std::mem::transmute((*cb).native) };
    f(ctx, base, num_args)
}

#[no_mangle]
pub unsafe extern "C" fn lua_rt_library_return_hook(ctx: *mut LuaContext, base: *mut u64, count: u64) -> bool {
    let st: *mut LuaState = unsafe { state_of(ctx) };
    match unsafe { crate::hook::native_return(st, base, count as usize) } {
        Ok(()) => false,
        Err(LuaError { value }) => {
            unsafe { (*ctx).interp.error = value.raw() };
            true
        }
    }
}

/// What protects an error thrown in the frame at `base`: the innermost of the library
/// functions in generated code that catch errors (`pcall`) and the native protections
/// (`LuaState::protected`: a native `xpcall`, a coroutine's resume).
enum Protection {
    /// A generated `pcall` or `xpcall` (its frame is `frame`, the continuation its callee
    /// returns to `continuation`) that called a frame between the thrower and any native frame:
    /// its catch handler runs in its frame, right from the throw.
    Catch { frame: *mut u64, handler: *const (), continuation: *const () },
    /// The same, with native frames in between: the error leaves the interpreter, they return
    /// it, and a later throw from the outermost of them reaches the catch.
    Beyond { frame: *mut u64, continuation: *const () },
    /// The innermost native protection (`protected`'s top), or none at all.
    Native,
}

fn innermost_protection(st: &LuaState, base: *mut u64) -> Protection {
    let native = st.protected.last().map_or(std::ptr::null_mut(), |p| p.base);
    let mut crossed_native = false;
    for frame in crate::frames::chain(base).take_while(|f| f.base != native) {
        if let Some(handler) = frame.caller_catch_handler() {
            let (caller, _) = frame.linked_caller();
            let continuation = frame.return_continuation();
            return if crossed_native {
                Protection::Beyond { frame: caller, continuation }
            } else {
                Protection::Catch { frame: caller, handler, continuation }
            };
        }
        crossed_native |= frame.entered_from_native();
    }
    Protection::Native
}

/// Every throw ends here: builds the final error value (position, operand names) and records it
/// for native code.
#[no_mangle]
pub unsafe extern "C" fn lua_rt_on_throw(ctx: *mut LuaContext, base: *mut u64, pc: *const u8, value: u64, add_position: u64) -> u64 {
    if unsafe { (*ctx).interp.status } == STATUS_YIELD {
        // A native `yield` leaves the interpreter through this door too, or, when a generated
        // `resume` runs the coroutine, goes to that `resume`'s catch.
        let (handler, frame) = crate::coroutine::yield_catch(unsafe { state_of(ctx) }).unwrap_or((std::ptr::null(), std::ptr::null_mut()));
        unsafe {
            (*ctx).interp.catch_entry = handler;
            (*ctx).interp.catch_base = frame;
        }
        return value;
    }
    let st = unsafe { state_of(ctx) };
    let failed_frame = std::mem::replace(&mut st.overflow_frame, std::ptr::null_mut());
    let protection = innermost_protection(st, if failed_frame.is_null() { base } else { failed_frame });
    let mut value = TValue(value);
    match st.pending.take() {
        Some(PendingError::OutOfMemory) => {
            value = st.memory_error;
        }
        Some(PendingError::Type { verb, operand, value: culprit }) if add_position != 0 => {
            let name = operand_name(base, pc, operand);
            let text = match name {
                Some(n) => format!("attempt to {verb} {n} (a {} value)", type_name(culprit)),
                None => format!("attempt to {verb} a {} value", type_name(culprit)),
            };
            value = st.intern(text.as_bytes()).unwrap_or(value);
            value = with_position(st, base, pc, value);
        }
        _ if add_position != 0 => value = with_position(st, base, pc, value),
        _ => {}
    }
    match protection {
        Protection::Native => value = unsafe { run_message_handler(st, base, value) },
        Protection::Catch { frame, continuation, .. } | Protection::Beyond { frame, continuation }
            if continuation == crate::interp::xpcall_continuation() =>
        {
            value = unsafe { run_generated_message_handler(st, base, frame, value) };
        }
        _ => {}
    }
    // Recorded in the context that threw (the running coroutine's).
    unsafe {
        (*ctx).interp.error = value.raw();
        (*ctx).interp.error_base = base;
        (*ctx).interp.error_pc = pc;
        (*ctx).interp.status = deegen_api::STATUS_ERROR;
        // The throw thunk reads (and clears) the catch right after this returns; nothing else
        // calls this hook, but no stale catch may survive a throw that leaves.
        let (handler, frame) = match protection {
            Protection::Catch { frame, handler, .. } => (handler, frame),
            Protection::Beyond { .. } | Protection::Native => (std::ptr::null(), std::ptr::null_mut()),
        };
        (*ctx).interp.catch_entry = handler;
        (*ctx).interp.catch_base = frame;
    }
    value.raw()
}

/// Calls the innermost `xpcall`'s message handler on an error, as 5.1 does: where the error
/// was raised, before the stack unwinds, so a traceback taken in the handler shows the frames
/// that failed. Its first result becomes the error. An error it raises itself, or an error
/// raised while it runs and not caught inside it, becomes "error in error handling". The
/// error crosses every native boundary on its way out; only the first crossing calls it.
///
/// # Safety
/// `base` is the frame the error is raised in (or for a native's error, its caller's).
unsafe fn run_message_handler(st: &mut LuaState, base: *mut u64, value: TValue) -> TValue {
    let Some(top) = st.protected.last().copied() else { return value };
    match top.state {
        HandlerState::Done => value,
        HandlerState::Running => st.intern(b"error in error handling").unwrap_or(value),
        HandlerState::Armed => {
            let idx = st.protected.len() - 1;
            st.protected[idx].state = HandlerState::Running;
            // The handler's frame goes past everything the raising frame may still use.
            let ctx = st.current;
            let callee = TValue(unsafe { *base.offset(deegen_api::frame::CALLEE as isize) });
            let cb = if callee.is_function() { unsafe { (*callee.as_closure()).code_block } } else { std::ptr::null() };
            let frame = if !cb.is_null() && !is_native(cb) { frame_top(base, cb) } else { unsafe { (*ctx).interp.stack_high_water.max(base) } };
            // Room for the handler even after a stack overflow: the limit rises into the
            // handler reserve (once: handlers running inside handlers share it).
            let limit = unsafe { (*ctx).interp.stack_limit };
            let outermost = !st.protected[..idx].iter().any(|p| p.state == HandlerState::Running);
            let raised = if outermost { unsafe { limit.add(HANDLER_RESERVE) } } else { limit };
            unsafe { (*ctx).interp.stack_limit = raised };
            // 5.1 calls only a function as the handler (`luaG_errormsg`): anything else, even a
            // value with `__call`, is "error in error handling".
            let result = if !top.handler.is_function() || unsafe { frame.add(FRAME_HEADER_SLOTS + 1) } >= raised {
                Err(())
            } else {
                unsafe {
                    *frame = top.handler.raw();
                    *frame.add(FRAME_HEADER_SLOTS) = value.raw();
                }
                let allowance = std::mem::replace(&mut st.depth_allowance, crate::state::HANDLER_EXTRA_DEPTH);
                let st_ptr: *mut LuaState = st;
                let r = match unsafe { LuaState::call_at(st_ptr, frame, 1, base) } {
                    Ok((p, n)) => Ok(if n == 0 { TValue::NIL } else { TValue(unsafe { *p }) }),
                    Err(_) => Err(()),
                };
                st.depth_allowance = allowance;
                r
            };
            unsafe { (*ctx).interp.stack_limit = limit };
            st.protected[idx].state = HandlerState::Done;
            match result {
                Ok(v) => v,
                Err(()) => st.intern(b"error in error handling").unwrap_or(value),
            }
        }
    }
}

/// The message handler of the generated `xpcall` in the frame at `xpcall_frame` (its handler
/// in slot 1, whether it ran in slot 2: see `lua_lib_xpcall`), for an error raised in the frame
/// at `base`: run once, as the native `xpcall`'s is, with a protection entry of its own for
/// the time it runs, so an error inside it becomes "error in error handling".
///
/// # Safety
/// `xpcall_frame` is a live generated `xpcall`'s frame below `base`.
unsafe fn run_generated_message_handler(st: &mut LuaState, base: *mut u64, xpcall_frame: *mut u64, value: TValue) -> TValue {
    let ran = unsafe { &mut *xpcall_frame.add(2) };
    if *ran != TValue::FALSE.raw() {
        return value;
    }
    *ran = TValue::TRUE.raw();
    let handler = TValue(unsafe { *xpcall_frame.add(1) });
    st.protected.push(Protected { handler, state: HandlerState::Armed, base: xpcall_frame });
    let value = unsafe { run_message_handler(st, base, value) };
    st.protected.pop();
    value
}

fn with_position(st: &mut LuaState, base: *mut u64, pc: *const u8, value: TValue) -> TValue {
    if !value.is_string() {
        return value;
    }
    let Some(pos) = st.position(base, pc) else { return value };
    let mut text = pos.into_bytes();
    text.push(b' ');
    text.extend_from_slice(string_bytes(value));
    st.intern(&text).unwrap_or(value)
}

fn operand_name(base: *mut u64, pc: *const u8, operand: u8) -> Option<String> {
    if base.is_null() || pc.is_null() {
        return None;
    }
    let callee = TValue(unsafe { *base.sub(deegen_api::FRAME_HEADER_SLOTS) });
    let cb = unsafe { (*callee.as_closure()).code_block };
    if is_native(cb) {
        return None;
    }
    let proto = proto_of(cb);
    let offset = unsafe { pc.offset_from(proto.code.as_ptr()) } as u32;
    proto.operand_name(offset, operand).map(|v| v.describe())
}

/// The packer of LUA_COMPAT_VARARG's `arg` table, made on first use: a constant of the vararg
/// functions that use `arg` (the compiler's, and precompiled chunks' `VarargPacker`).
pub(crate) fn vararg_packer(st: &mut LuaState) -> Result<TValue, OutOfMemory> {
    if st.pack_fn.is_nil() {
        let globals = st.globals;
        st.pack_fn = new_native(&mut st.heap, "arg", pack_varargs, None, globals)?;
    }
    Ok(st.pack_fn)
}

/// The table LUA_COMPAT_VARARG's hidden `arg` local holds: the arguments and `n` (5.1 makes it
/// in `adjust_varargs`). A native function, called by the prologue of the functions that use
/// `arg`: like every native it is a collection safe point and runs queued finalizers, and like
/// 5.1's table it reports no hook events (see `hook::native_call`).
extern "C" fn pack_varargs(ctx: *mut LuaContext, base: *mut u64, nargs: u64) -> i64 {
    let st = unsafe { state_of(ctx) };
    let nargs = nargs as usize;
    let top = unsafe { base.add(nargs) };
    gc_check(st, top);
    if !st.to_finalize.is_empty() {
        let st_ptr: *mut LuaState = st;
        // SAFETY: the frame above the arguments is free (as for any native function).
        if let Err(LuaError { value }) = unsafe { run_finalizers(st_ptr, top, base) } {
            unsafe { (*ctx).interp.error = value.raw() };
            return -1;
        }
    }
    let packed = (|| {
        let t = Table::with_capacity(&mut st.heap, nargs, 1)?;
        for i in 0..nargs {
            let v = TValue(unsafe { *base.add(i) });
            table_mut(t).set(TValue::from_f64((i + 1) as f64), v).map_err(|_| OutOfMemory)?;
        }
        let n = st.intern(b"n")?;
        table_mut(t).set(n, TValue::from_f64(nargs as f64)).map_err(|_| OutOfMemory)?;
        Ok::<TValue, OutOfMemory>(t)
    })();
    match packed {
        Ok(t) => {
            unsafe { *base = t.raw() };
            1
        }
        Err(OutOfMemory) => {
            let message = st.memory_error;
            unsafe { (*ctx).interp.error = message.raw() };
            -1
        }
    }
}
