//! A stop-the-world mark-sweep collector (5.1's `lgc`), and the end of a state
//! ([`LuaState::close`]: the finalizers that are left). Objects never move: the generated
//! interpreter and future JIT code hold raw pointers.
//!
//! Roots are precise: the VM stack from its bottom to the live top of the innermost frame
//! (frames are contiguous, so that covers every frame), the globals, the string metatable and
//! the state's other values, the open upvalues and an error in flight. After marking, the stack
//! above the live top is cleared up to the interpreter's high-water mark, so a stale slot never
//! shows a collected object to a later collection (what PUC Lua's `traversestack` does).
//!
//! Collections run only at safe points that know the live top: the allocating runtime helpers
//! (new table, new closure, concatenation), which pass their frame, and native functions on
//! entry. Allocation itself only counts bytes.
//!
//! Weak tables follow Lua 5.1: `__mode` 'k' and/or 'v'; strings are values, never cleared.
//!
//! Finalizers follow Lua 5.1 too. After marking, each unreachable userdata whose metatable has
//! `__gc` is queued (newest first, after those still waiting) and marked again with what it
//! refers to, so it and its metatable survive this collection. Weak tables are cleared after
//! that: a queued userdata leaves weak tables where it is a value now, and where it is a key
//! only when it is freed (the next collection that finds it unreachable). The queue runs where
//! calling Lua is safe ([`run_finalizers`]): in `collectgarbage`, at the entry of native
//! functions, and when the state closes ([`LuaState::close`]). A finalizer's error propagates from
//! where it ran, as 5.1's does from the allocation that ran it.
//!
//! Call inline caches are weak too: a cache is keyed by its callee's address, which the next
//! function allocated there would match, so after marking every live prototype forgets the
//! callees about to be freed (`clear_dead_call_ics`).

use lua51_value::{Closure, GcHeader, LuaContext, LuaString, ObjKind, Shape, TValue, UpVal};

use crate::bytecode::{call_ic_layouts, EMPTY_CALL_IC};
use crate::object::debt::take_storage_delta;
use crate::object::function::{close_upvalues, is_native, proto_of, Proto};
use crate::object::string::string_bytes;
use crate::object::table::Table;
use crate::object::thread::{Thread, STACK_RESERVE, THREAD_STACK_ACCOUNTED};
use crate::object::userdata::{userdata_mut, Userdata};
use crate::state::{Event, LuaError, LuaState};

/// Statistics of one collection.
#[derive(Debug, Clone, Copy, Default)]
pub struct GcStats {
    pub freed_objects: usize,
    pub live_bytes: usize,
}

struct Marker {
    gray: Vec<*mut GcHeader>,
    weak: Vec<*mut Table>,
    /// Coroutines reached, whose stacks were scanned (their stale slots are cleared after).
    threads: Vec<*mut Thread>,
    /// The running coroutine's context and live top.
    current: *mut LuaContext,
    current_top: *mut u64,
}

impl Marker {
    /// Marks a stack's live slots, and what its context holds.
    fn stack(&mut self, bottom: *mut u64, top: *mut u64, ctx: &LuaContext) {
        let mut slot = bottom;
        while slot < top {
            self.value(TValue(unsafe { *slot }));
            slot = unsafe { slot.add(1) };
        }
        self.value(TValue(ctx.interp.error));
        let mut u = ctx.open_upvalues;
        while !u.is_null() {
            self.object(u as *mut GcHeader);
            u = unsafe { (*u).next_open };
        }
    }

    fn object(&mut self, h: *mut GcHeader) {
        unsafe {
            if h.is_null() || (*h).marked != 0 {
                return;
            }
            (*h).marked = 1;
        }
        self.gray.push(h);
    }

    fn value(&mut self, v: TValue) {
        if v.is_heap() {
            self.object(v.as_ptr());
        }
    }

    /// Marks a shape, its ancestors and their keys (each shape marks the key it adds).
    fn shape(&mut self, mut s: *mut Shape) {
        // SAFETY: a live table's shape and its ancestors are alive until the sweep.
        unsafe {
            while !s.is_null() && (*s).marked == 0 {
                (*s).marked = 1;
                if (*s).len > 0 {
                    self.value(*(*s).keys.add((*s).len as usize - 1));
                }
                s = (*s).parent;
            }
        }
    }

    /// Marks a chunk's constants, its inner prototypes' included, once per collection.
    fn chunk(&mut self, root: &Proto) {
        if root.gc_marked.replace(true) {
            return;
        }
        self.constants(root);
    }

    fn constants(&mut self, root: &Proto) {
        root.each(&mut |p| {
            for c in &p.constants {
                self.value(*c);
            }
        });
    }

    fn propagate(&mut self, st: &LuaState) {
        while let Some(h) = self.gray.pop() {
            let kind = unsafe { (*h).kind };
            if kind == ObjKind::Table as u8 {
                let t = unsafe { &*(h as *const Table) };
                self.object(t.metatable() as *mut GcHeader);
                self.shape(t.shape());
                let (weak_keys, weak_values) = weak_mode(st, t);
                if weak_keys || weak_values {
                    self.weak.push(h as *mut Table);
                }
                t.trace(!weak_keys, !weak_values, |v| self.value(v));
                if weak_keys || weak_values {
                    // Strings are values, not objects, to weak tables: always kept.
                    t.trace(weak_keys, weak_values, |v| {
                        if v.is_string() {
                            self.value(v);
                        }
                    });
                }
            } else if kind == ObjKind::Function as u8 {
                let c = unsafe { &*(h as *const Closure) };
                self.value(c.env);
                if !is_native(c.code_block) {
                    // The whole chunk stays: inner prototypes live inside their parents.
                    let p = proto_of(c.code_block);
                    self.chunk(if p.root.is_null() { p } else { unsafe { &*p.root } });
                }
                for i in 0..c.num_upvalues as usize {
                    self.object(c.upvalue(i) as *mut GcHeader);
                }
            } else if kind == ObjKind::Thread as u8 {
                let t = unsafe { &mut *(h as *mut Thread) };
                self.value(t.func);
                self.value(t.env);
                self.value(t.hook.func);
                let ctx: *mut LuaContext = &mut t.ctx;
                let top = if ctx == self.current { self.current_top } else { t.saved_top };
                let (bottom, _) = t.stack_bounds();
                self.stack(bottom, top, unsafe { &*ctx });
                self.threads.push(t);
            } else if kind == ObjKind::Userdata as u8 {
                let u = unsafe { &*(h as *const Userdata) };
                self.object(u.metatable as *mut GcHeader);
                self.value(u.env);
            } else if kind == ObjKind::UpVal as u8 {
                let u = unsafe { &*(h as *const UpVal) };
                self.value(TValue(unsafe { *u.value }));
            }
        }
    }
}

/// The `__mode` of a table's metatable: (weak keys, weak values).
fn weak_mode(st: &LuaState, t: &Table) -> (bool, bool) {
    if t.metatable().is_null() {
        return (false, false);
    }
    let mode = unsafe { (*t.metatable()).get_str(st.event_names[Event::Mode as usize]) };
    if !mode.is_string() {
        return (false, false);
    }
    let m = string_bytes(mode);
    (m.contains(&b'k'), m.contains(&b'v'))
}

/// The tiering policy stops tracking the compiled functions of a chunk about to be freed.
fn forget_compiled(tiering: &mut crate::tiering::Tiering, root: &Proto) {
    root.each(&mut |p| {
        if p.jit.is_some() {
            tiering.forget(p.code_block());
        }
    });
}

/// Empties the call inline caches of `root` and its inner functions whose callee is about to be
/// freed (see the module documentation).
fn clear_dead_call_ics(root: &mut Proto) {
    let layouts = call_ic_layouts();
    root.each_mut(&mut |p| {
        let code = &mut p.code[..];
        let mut pc = 0;
        while pc + 2 <= code.len() {
            let opcode = usize::from(u16::from_le_bytes([code[pc], code[pc + 1]]));
            let (length, cache) = layouts[opcode];
            if let Some(offset) = cache {
                let at = pc + offset as usize;
                let key = u64::from_le_bytes(code[at..at + 8].try_into().expect("8 bytes"));
                if key != lua51_value::CALL_IC_EMPTY && is_dead(TValue(key)) {
                    code[at..at + deegen_bytecode_spec::CALL_IC_BYTES as usize].copy_from_slice(&EMPTY_CALL_IC);
                }
            }
            pc += length as usize;
        }
    });
}

fn is_dead(v: TValue) -> bool {
    v.is_heap() && !v.is_string() && unsafe { (*v.as_ptr::<GcHeader>()).marked == 0 }
}

/// A userdata queued for its finalizer, now or before (5.1's `iscleared` for values).
fn is_finalized(v: TValue) -> bool {
    v.is_kind(ObjKind::Userdata) && userdata_mut(v).finalized
}

/// Queues for finalization every userdata `chosen` picks whose metatable has `__gc` and that
/// was never queued (5.1's `luaC_separateudata`), newest first.
fn separate_finalizable(st: &mut LuaState, chosen: impl Fn(*mut GcHeader) -> bool) {
    let gc_event = st.event_names[Event::Gc as usize];
    for &h in st.heap.objects.iter().rev() {
        if unsafe { (*h).kind } != ObjKind::Userdata as u8 || !chosen(h) {
            continue;
        }
        let u = unsafe { &mut *(h as *mut Userdata) };
        // 5.1 asks the metatable raw (`fasttm`); a __gc of false still counts, and fails when
        // called.
        if u.finalized || u.metatable.is_null() || unsafe { (*u.metatable).get_str(gc_event) }.is_nil() {
            continue;
        }
        u.finalized = true;
        st.to_finalize.push_back(TValue::from_ptr(h));
    }
}

/// Runs the queued finalizers, oldest in the queue first, each called with its userdata in a
/// frame at `frame` by native code whose frame is `caller` (see [`LuaState::call_at`]). Stops at
/// the first error, leaving the rest queued. Does nothing inside a finalizer: the outer run
/// takes the rest.
///
/// # Safety
/// As [`LuaState::call_at`]: `frame` is above every live frame of the running coroutine.
pub(crate) unsafe fn run_finalizers(st: *mut LuaState, frame: *mut u64, caller: *mut u64) -> Result<(), LuaError> {
    unsafe {
        if (*st).finalizing {
            return Ok(());
        }
        (*st).finalizing = true;
        let mut result = Ok(());
        while let Some(u) = (*st).to_finalize.pop_front() {
            // The finalizer met now, as 5.1's `GCTM` looks it up.
            let mt = (*u.as_ptr::<Userdata>()).metatable;
            let gc = if mt.is_null() { TValue::NIL } else { (*mt).get_str((*st).event_names[Event::Gc as usize]) };
            if gc.is_nil() {
                continue;
            }
            *frame = gc.raw();
            *frame.add(deegen_api::FRAME_HEADER_SLOTS) = u.raw();
            if let Err(e) = LuaState::call_at(st, frame, 1, caller) {
                result = Err(e);
                break;
            }
        }
        (*st).finalizing = false;
        result
    }
}

impl LuaState {
    /// The end of a program (5.1's `lua_close`): finalizes every userdata that has a `__gc` and
    /// was never finalized, reachable or not. Errors are dropped, the rest still run. Userdata
    /// that finalizers make are not finalized. The state stays usable.
    pub fn close(&mut self) {
        let _span = tracing::debug_span!("gc_close").entered();
        separate_finalizable(self, |_| true);
        let frame = self.main_stack().0;
        let st: *mut LuaState = self;
        // SAFETY: the program has ended: no frame is live on the main stack.
        while unsafe { run_finalizers(st, frame, std::ptr::null_mut()) }.is_err() {}
    }
}

/// Drops what a dead object owns; returns the size it was allocated with, and sets
/// `accounted_extra` to what else it counted toward the collector's debt.
unsafe fn drop_object(h: *mut GcHeader, accounted_extra: &mut usize) -> usize {
    let kind = unsafe { (*h).kind };
    let size = if kind == ObjKind::String as u8 {
        std::mem::size_of::<LuaString>() + unsafe { (*(h as *const LuaString)).len } as usize + 1
    } else if kind == ObjKind::Table as u8 {
        let size = unsafe { (*(h as *const Table)).object_size() };
        unsafe { std::ptr::drop_in_place(h as *mut Table) };
        size
    } else if kind == ObjKind::Function as u8 {
        std::mem::size_of::<Closure>() + 8 * unsafe { (*(h as *const Closure)).num_upvalues } as usize
    } else if kind == ObjKind::UpVal as u8 {
        std::mem::size_of::<UpVal>()
    } else if kind == ObjKind::Thread as u8 {
        unsafe { std::ptr::drop_in_place(h as *mut Thread) };
        *accounted_extra = THREAD_STACK_ACCOUNTED;
        std::mem::size_of::<Thread>()
    } else if kind == ObjKind::Userdata as u8 {
        // Dropping the payload closes a file the program forgot (Lua's __gc for files).
        unsafe { std::ptr::drop_in_place(h as *mut Userdata) };
        std::mem::size_of::<Userdata>()
    } else {
        unreachable!("unknown object kind {kind}")
    };
    size
}

/// A full collection. `top` is one past the innermost frame's last live slot.
pub fn collect(st: &mut LuaState, top: *mut u64) -> GcStats {
    let _span = tracing::debug_span!("gc").entered();
    st.stats.collections += 1;
    fold_table_storage(st);
    let mut m = Marker { gray: Vec::new(), weak: Vec::new(), threads: Vec::new(), current: st.current, current_top: top };
    let main_ctx: *mut LuaContext = &mut st.main;
    let main_top = if st.current == main_ctx { top } else { st.main_saved_top };
    let (main_bottom, main_end) = st.main_stack();
    m.stack(main_bottom, main_top, &st.main);
    for v in [st.globals, st.registry, st.package, st.next_fn, st.pack_fn, st.ipairs_aux_fn, st.current_thread, st.default_input, st.default_output] {
        m.value(v);
    }
    m.value(st.main_hook.func);
    for &v in st.resumer_globals.iter().chain(&st.to_finalize) {
        m.value(v);
    }
    for v in st.event_names.into_iter().chain(st.status_names).chain([st.memory_error]) {
        m.value(v);
    }
    m.object(st.shared.string_metatable as *mut GcHeader);
    m.object(st.file_metatable as *mut GcHeader);
    for mt in st.type_metatables {
        m.object(mt as *mut GcHeader);
    }
    m.propagate(st);
    let queued = st.to_finalize.len();
    separate_finalizable(st, |h| unsafe { (*h).marked == 0 });
    for i in queued..st.to_finalize.len() {
        m.value(st.to_finalize[i]);
    }
    m.propagate(st);
    for t in std::mem::take(&mut m.weak) {
        unsafe { (*t).clear_dead(&is_dead, &|v| is_dead(v) || is_finalized(v)) };
    }

    // Coroutines about to be freed close their open upvalues first (5.1's `luaE_freethread`),
    // so closures that outlive a coroutine keep the values instead of pointing into a freed
    // stack. Their upvalue objects are not swept yet, dead or alive.
    let mut hooked_freed = 0;
    st.threads.retain(|&t| unsafe {
        if (*t).header.marked != 0 {
            return true;
        }
        let bottom = (*t).stack_bounds().0;
        close_upvalues(&mut (*t).ctx, bottom);
        hooked_freed += usize::from((*t).hook.mask != 0);
        false
    });
    for _ in 0..hooked_freed {
        st.hooked_thread_removed();
    }
    // Chunks no closure refers to any more (their constants were not marked through them).
    st.protos.retain(|&p| {
        // SAFETY: every registered chunk is alive until this drops it.
        let live = unsafe { (*p).gc_marked.replace(false) };
        if live {
            // SAFETY: the collector runs alone; frames refer to the code by raw pointers only.
            clear_dead_call_ics(unsafe { &mut *p });
        } else {
            // SAFETY: a leaked box of the compiler; no closure or frame refers to it.
            forget_compiled(&mut st.tiering, unsafe { &*p });
            drop(unsafe { Box::from_raw(p) });
        }
        live
    });
    st.heap.shapes.sweep();
    // Strings die with their table entry first.
    st.heap.strings.retain(&|s| unsafe { (*s).header.marked == 0 });
    let mut stats = GcStats::default();
    let mut objects = std::mem::take(&mut st.heap.objects);
    objects.retain(|&h| unsafe {
        if (*h).marked == 0 {
            let mut extra = 0;
            let size = drop_object(h, &mut extra);
            st.heap.release(h, size);
            st.heap.bytes_allocated -= extra;
            stats.freed_objects += 1;
            false
        } else {
            (*h).marked = 0;
            true
        }
    });
    st.heap.objects = objects;
    // Stale slots above each live top may point at what was just freed.
    clear_above(&mut st.main, main_top, main_end);
    for t in std::mem::take(&mut m.threads) {
        let t = unsafe { &mut *t };
        let ctx: *mut LuaContext = &mut t.ctx;
        let live_top = if ctx == st.current { top } else { t.saved_top };
        let (_, end) = t.stack_bounds();
        clear_above(&mut t.ctx, live_top, end);
    }
    // Freed tables' storage came off the debt through the storage delta.
    fold_table_storage(st);
    stats.live_bytes = st.heap.bytes_allocated;
    st.heap.threshold = (stats.live_bytes / 100 * st.heap.pause).max(st.heap.threshold_floor);
    tracing::debug!(freed = stats.freed_objects, live = stats.live_bytes, "gc finished");
    stats
}

/// `collectgarbage("step", kilobytes)`: 5.1's step accounting over this collector, which is not
/// incremental yet (issue 15). In 5.1 a step runs `kilobytes + 1` collector steps of
/// `10 * stepmul` work units each (a unit is about a byte traversed or swept), and answers
/// whether one of them finished the cycle. Here the steps are credited to the current cycle,
/// whose work is the bytes allocated when it would have started; the step whose credit covers
/// it runs the whole collection and answers `true`. So a program stepping the collector sees
/// 5.1's answers (more steps for a bigger heap or a smaller size or multiplier, and a large
/// size finishing at once) and gets its memory back when 5.1 would, but each collection is
/// still one pause. The credit starts over after the step that collects and after a full
/// `collectgarbage()`, not after the automatic collections between steps (under `--gc-stress`,
/// one at every safe point, a step would never finish a cycle).
pub fn step(st: &mut LuaState, top: *mut u64, kilobytes: usize) -> bool {
    const UNITS_PER_STEPMUL: usize = 1024 / 100;
    fold_table_storage(st);
    let units = UNITS_PER_STEPMUL * st.gc_stepmul.max(1);
    let credit = kilobytes.saturating_add(1).saturating_mul(units);
    st.gc_step_credit = st.gc_step_credit.saturating_add(credit);
    if st.gc_step_credit < st.heap.bytes_allocated {
        return false;
    }
    collect(st, top);
    st.gc_step_credit = 0;
    true
}

/// Zeroes the slots from `top` up to the stack's high-water mark (plus the native reserve).
fn clear_above(ctx: &mut LuaContext, top: *mut u64, end: *mut u64) {
    let high = ctx.interp.stack_high_water.max(top);
    let stop = end.min(unsafe { high.add(STACK_RESERVE) });
    let mut slot = top;
    while slot < stop {
        unsafe { *slot = 0 };
        slot = unsafe { slot.add(1) };
    }
    ctx.interp.stack_high_water = top;
}

/// Adds table storage growth to the debt (see `object::debt`).
pub(crate) fn fold_table_storage(st: &mut LuaState) {
    let delta = take_storage_delta();
    st.heap.bytes_allocated = st.heap.bytes_allocated.saturating_add_signed(delta);
}

/// Collects if enough was allocated since the last collection.
#[inline]
pub fn check(st: &mut LuaState, top: *mut u64) {
    fold_table_storage(st);
    if (st.heap.bytes_allocated >= st.heap.threshold || st.heap.threshold_floor == 0) && !st.heap.stopped {
        collect(st, top);
    }
}
