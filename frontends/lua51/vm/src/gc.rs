//! An incremental mark-sweep collector (5.1's `lgc`), and the end of a state
//! ([`LuaState::close`]: the finalizers that are left). Objects never move: the generated
//! interpreter and JIT code hold raw pointers.
//!
//! A cycle marks in steps interleaved with the program, paced by allocation as 5.1's
//! `setpause`/`setstepmul` define, then frees in steps (`GcPhase`). Colours are 5.1's
//! (two whites, `lua51_value::GC_GRAY`, `GC_BLACK`): the marking keeps no black object pointing
//! to a white one, and the write barrier keeps it so while the program runs between steps: a
//! store into a black table, closure, userdata or closed upvalue turns it gray again
//! (`Heap::write_barrier`; the semantics test the colour inline and call
//! `lua_rt_write_barrier`), to be
//! traced again in the atomic phase (5.1's backward barrier). Stacks have no barrier: threads,
//! weak tables and open upvalues stay gray and the atomic phase traces them again, with the
//! roots. That phase runs in one step: the rest of the marking, finalizer separation, weak
//! tables, shapes and call caches, and it swaps the whites. The sweep then walks the object
//! vector a step at a time, compacting it: it frees the other white, and whitens the rest
//! with the current white, which objects allocated meanwhile have too. `--gc-verify` steps at every safe point and checks the invariant after each step.
//!
//! Roots are precise: the VM stack from its bottom to the live top of the innermost frame
//! (frames are contiguous, so that covers every frame), the globals, the string metatable and
//! the state's other values, the open upvalues and an error in flight. In the atomic phase the
//! stack above the live top is cleared up to the interpreter's high-water mark, so a stale slot
//! never shows a freed object to a later cycle (what PUC Lua's `traversestack` does). The mark
//! covers every slot written: entry thunks raise it to the frame they enter, and code that
//! writes above its frame (many results, `...`, values moved onto another coroutine's stack)
//! claims the slots first (`InterpContext::claim_stack`).
//!
//! Steps run only at safe points that know the live top: the allocating runtime helpers
//! (new table, new closure, concatenation), which pass their frame, and native functions on
//! entry. Allocation itself only counts bytes.
//!
//! Weak tables follow Lua 5.1: `__mode` 'k' and/or 'v'; strings are values, never cleared.
//!
//! Finalizers follow Lua 5.1 too. In the atomic phase, each unreachable userdata whose
//! metatable has `__gc` is queued (newest first, after those still waiting) and marked again
//! with what it refers to, so it and its metatable survive this cycle. Weak tables are cleared
//! after that: a queued userdata leaves weak tables where it is a value now, and where it is a
//! key only when it is freed (the next cycle that finds it unreachable). The queue runs where
//! calling Lua is safe ([`run_finalizers`]): in `collectgarbage`, at the entry of native
//! functions, and when the state closes ([`LuaState::close`]). A finalizer's error propagates from
//! where it ran, as 5.1's does from the allocation that ran it.
//!
//! Call inline caches are weak too: a cache is keyed by its callee's address, which the next
//! function allocated there would match, so in the atomic phase every live prototype forgets
//! the callees about to be freed (`clear_dead_call_ics`).

use lua51_value::{Closure, GcHeader, LuaContext, LuaString, ObjKind, Shape, TValue, UpVal, GC_BLACK, GC_GRAY};

use crate::bytecode::{call_ic_layouts, EMPTY_CALL_IC};
use crate::object::debt::take_storage_delta;
use crate::object::function::{close_upvalues, is_native, proto_of, Proto};
use crate::object::heap::{other_white, GcCycle, GcPhase};
use crate::object::string::string_bytes;
use crate::object::table::Table;
use crate::object::thread::{clear_stack_above, Thread, THREAD_STACK_ACCOUNTED};
use crate::object::userdata::{userdata_mut, Userdata};
use crate::state::{Event, LuaError, LuaState};

/// Statistics of one collection.
#[derive(Debug, Clone, Copy, Default)]
pub struct GcStats {
    pub freed_objects: usize,
    pub live_bytes: usize,
}

/// Allocation between two automatic steps.
const STEP_BYTES: usize = 16 << 10;
/// 5.1's `GCSTEPSIZE`: what one kilobyte of `collectgarbage("step", kb)` and the step itself
/// stand for (5.1 runs `kb + 1` steps of this size).
const STEP_BYTES_51: usize = 1024;
/// Work units of sweeping one object (marking counts the bytes it traces).
const SWEEP_COST: usize = 16;
/// The work of one `--gc-verify` step: small, so the program runs between many steps.
const VERIFY_STEP_WORK: usize = 400;
/// Elements of a table's array part traced at a time: a table with a longer one is traced in
/// pieces across steps (`GcCycle::partial`), so a huge array costs no long pause.
const ARRAY_PIECE: usize = 4096;

/// The marking's view of a cycle: its gray lists, and the running coroutine's live top (the
/// stack scanned to it; other coroutines' to their saved tops).
struct Marker<'c> {
    cycle: &'c mut GcCycle,
    /// The current white: what the marking has not reached.
    white: u8,
    current: *mut LuaContext,
    current_top: *mut u64,
}

impl Marker<'_> {
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

    /// Reaches a white object: strings (and prototypes, which are not on the heap's list) have
    /// nothing to trace and turn black at once; the others go on the gray list.
    fn object(&mut self, h: *mut GcHeader) {
        unsafe {
            if h.is_null() || (*h).marked != self.white {
                return;
            }
            let kind = (*h).kind;
            if kind == ObjKind::String as u8 || kind == ObjKind::Proto as u8 {
                (*h).marked = GC_BLACK;
                return;
            }
            (*h).marked = GC_GRAY;
        }
        self.cycle.gray.push(h);
    }

    /// Puts a reached object back on the gray list, to trace it again.
    fn regray(&mut self, h: *mut GcHeader) {
        unsafe { (*h).marked = GC_GRAY };
        self.cycle.gray.push(h);
    }

    fn value(&mut self, v: TValue) {
        if v.is_heap() {
            self.object(v.as_ptr());
        }
    }

    /// Marks a shape, its ancestors and their keys (each shape marks the key it adds).
    fn shape(&mut self, mut s: *mut Shape) {
        // SAFETY: a live table's shape and its ancestors are alive until the atomic phase.
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

    /// Marks a chunk's constants, its inner prototypes' included, once per cycle.
    fn chunk(&mut self, root: &Proto) {
        if root.gc_marked.replace(true) {
            return;
        }
        root.each(&mut |p| {
            for c in &p.constants {
                self.value(*c);
            }
        });
    }

    /// Traces gray objects until `budget` units of work are done or none is left; returns the
    /// work done (bytes traced, about).
    fn propagate(&mut self, st: &LuaState, budget: usize) -> usize {
        let mut work = 0;
        while work < budget {
            // What a piece of a long array reached is traced before the next piece, so the
            // gray list stays short (a piece's worth, not the whole array's).
            if let Some(h) = self.cycle.gray.pop() {
                work += self.trace(st, h);
            } else if let Some((t, from)) = self.cycle.partial {
                work += self.array_piece(t, from);
            } else {
                break;
            }
        }
        work
    }

    /// Traces the next piece of the array part of the table being traced in pieces, from
    /// element `from`. The table is black meanwhile, so a store into it (a piece traced
    /// already) takes the write barrier; the array may have been resized between steps, and
    /// is read afresh.
    fn array_piece(&mut self, t: *mut GcHeader, from: usize) -> usize {
        let table = unsafe { &*(t as *const Table) };
        let piece = table.array_piece(from, ARRAY_PIECE);
        for v in piece {
            self.value(*v);
        }
        let next = from + piece.len();
        self.cycle.partial = (next < table.array_len()).then_some((t, next));
        8 * piece.len() + 16
    }

    /// Traces one gray object: marks what it refers to, and makes it black unless it must be
    /// traced again in the atomic phase. Returns its size in work units.
    fn trace(&mut self, st: &LuaState, h: *mut GcHeader) -> usize {
        let kind = unsafe { (*h).kind };
        let mut color = GC_BLACK;
        let work = if kind == ObjKind::Table as u8 {
            let t = unsafe { &*(h as *const Table) };
            self.object(t.metatable() as *mut GcHeader);
            self.shape(t.shape());
            let (weak_keys, weak_values) = weak_mode(st, t);
            if weak_keys || weak_values {
                // Stays gray: the atomic phase traces it again and clears it.
                color = GC_GRAY;
                self.cycle.weak.push(h);
            }
            if !weak_values && t.array_len() > ARRAY_PIECE && self.cycle.partial.is_none() {
                // A long array part: in pieces, from the next step on (see `array_piece`).
                t.trace_except_array(!weak_keys, !weak_values, |v| self.value(v));
                unsafe { (*h).marked = color };
                self.cycle.partial = Some((h, 0));
                return (t.object_size() + t.owned_bytes()).saturating_sub(8 * t.array_len());
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
            t.object_size() + t.owned_bytes()
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
            std::mem::size_of::<Closure>() + 8 * c.num_upvalues as usize
        } else if kind == ObjKind::Thread as u8 {
            let t = unsafe { &mut *(h as *mut Thread) };
            self.value(t.func);
            self.value(t.env);
            self.value(t.hook.func);
            self.value(t.resumer);
            self.value(t.resumer_globals);
            let ctx: *mut LuaContext = &mut t.ctx;
            let top = if ctx == self.current { self.current_top } else { t.saved_top };
            let (bottom, _) = t.stack_bounds();
            self.stack(bottom, top, unsafe { &*ctx });
            // Stays gray: its stack changes without a barrier.
            color = GC_GRAY;
            self.cycle.threads.push(h);
            std::mem::size_of::<Thread>() + (top as usize).saturating_sub(bottom as usize)
        } else if kind == ObjKind::Userdata as u8 {
            let u = unsafe { &*(h as *const Userdata) };
            self.object(u.metatable as *mut GcHeader);
            self.value(u.env);
            std::mem::size_of::<Userdata>()
        } else if kind == ObjKind::UpVal as u8 {
            let u = unsafe { &mut *(h as *mut UpVal) };
            self.value(TValue(unsafe { *u.value }));
            if u.value != std::ptr::addr_of_mut!(u.closed) {
                // Open: its value is a stack slot, which changes without a barrier.
                color = GC_GRAY;
                self.cycle.open_upvalues.push(h);
            }
            std::mem::size_of::<UpVal>()
        } else {
            16
        };
        unsafe { (*h).marked = color };
        work
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
        // Compiled or not, JIT code may call it: those calls are cleared first.
        tiering.code_block_freed(p.code_block());
        if let Some(code) = &p.jit {
            tiering.forget(p.code_block(), &p.code, code);
        }
    });
}

/// Empties the call inline caches of `root` and its inner functions whose callee is about to be
/// freed (see the module documentation).
fn clear_dead_call_ics(root: &mut Proto, white: u8) {
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
                if key != lua51_value::CALL_IC_EMPTY && is_dead(TValue(key), white) {
                    code[at..at + deegen_bytecode_spec::CALL_IC_BYTES as usize].copy_from_slice(&EMPTY_CALL_IC);
                }
            }
            pc += length as usize;
        }
    });
}

/// Whether `v` is an object the marking left white (before the whites are swapped); strings
/// are values, never dead to weak tables.
fn is_dead(v: TValue, white: u8) -> bool {
    v.is_heap() && !v.is_string() && unsafe { (*v.as_ptr::<GcHeader>()).marked == white }
}

/// A userdata queued for its finalizer, now or before (5.1's `iscleared` for values).
fn is_finalized(v: TValue) -> bool {
    v.is_kind(ObjKind::Userdata) && userdata_mut(v).finalized
}

/// Queues for finalization every userdata `chosen` picks whose metatable has `__gc` and that
/// was never queued (5.1's `luaC_separateudata`), newest first.
fn separate_finalizable(st: &mut LuaState, chosen: impl Fn(*mut GcHeader) -> bool) {
    let gc_event = st.event_names[Event::Gc as usize];
    for &h in st.heap.userdata.iter().rev() {
        if !chosen(h) {
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

/// The main stack's live top: `top` (the running coroutine's) while it runs, else the top it
/// saved when it resumed a coroutine.
fn main_live_top(st: &LuaState, top: *mut u64) -> *mut u64 {
    if std::ptr::eq(st.current, &st.main) {
        top
    } else {
        st.main_saved_top
    }
}

/// Marks the roots: the main stack (from `main_bottom`) to its live top, the state's values.
fn mark_roots(st: &LuaState, m: &mut Marker<'_>, top: *mut u64, main_bottom: *mut u64) {
    m.stack(main_bottom, main_live_top(st, top), &st.main);
    for v in [st.globals, st.registry, st.package, st.next_fn, st.pack_fn, st.ipairs_aux_fn, st.current_thread, st.default_input, st.default_output] {
        m.value(v);
    }
    m.value(st.main_hook.func);
    for &v in &st.to_finalize {
        m.value(v);
    }
    for v in st.event_names.into_iter().chain(st.shared.status_names).chain(st.shared.type_names).chain([st.memory_error]) {
        m.value(v);
    }
    for &s in &st.heap.single_chars {
        m.object(s as *mut GcHeader);
    }
    m.object(st.shared.string_metatable as *mut GcHeader);
    m.object(st.file_metatable as *mut GcHeader);
    for mt in st.type_metatables {
        m.object(mt as *mut GcHeader);
    }
}

/// Starts a cycle: the roots become gray.
fn start_cycle(st: &mut LuaState, cycle: &mut GcCycle, top: *mut u64) -> usize {
    tracing::debug!(live = st.heap.bytes_allocated, "gc cycle starts");
    debug_assert!(cycle.gray.is_empty() && cycle.gray_again.is_null());
    cycle.phase = GcPhase::Propagate;
    cycle.weak.clear();
    cycle.threads.clear();
    cycle.open_upvalues.clear();
    cycle.freed = 0;
    let main_bottom = st.main_stack().0;
    let mut m = Marker { cycle, white: st.heap.white, current: st.current, current_top: top };
    mark_roots(st, &mut m, top, main_bottom);
    // The roots are few; the main stack counts by its size.
    (main_live_top(st, top) as usize).saturating_sub(main_bottom as usize) + 256
}

/// The end of the marking, in one step (5.1's `atomic`): the roots, the stacks, the open
/// upvalues, the weak tables and what the write barrier turned gray are traced again and the
/// marking finishes; then finalizers are separated, weak tables cleared, and what lives outside
/// the object vector (threads' upvalues, chunks, call caches, shapes, interned strings) is
/// swept. The sweep of the objects follows, in steps (it takes each string it frees out of the
/// interning set; `Heap::intern` keeps a white string it hands out during the sweep).
fn atomic(st: &mut LuaState, cycle: &mut GcCycle, top: *mut u64) {
    let _span = tracing::debug_span!("gc_atomic").entered();
    let main_bottom = st.main_stack().0;
    let mut m = Marker { cycle, white: st.heap.white, current: st.current, current_top: top };
    mark_roots(st, &mut m, top, main_bottom);
    let again: Vec<*mut GcHeader> =
        [std::mem::take(&mut m.cycle.threads), std::mem::take(&mut m.cycle.open_upvalues), std::mem::take(&mut m.cycle.weak)].concat();
    for h in again {
        m.regray(h);
    }
    let mut h = std::mem::replace(&mut m.cycle.gray_again, std::ptr::null_mut());
    while !h.is_null() {
        let next = unsafe { std::mem::replace(&mut (*h).next, std::ptr::null_mut()) };
        m.regray(h);
        h = next;
    }
    m.propagate(st, usize::MAX);
    let queued = st.to_finalize.len();
    let white = st.heap.white;
    separate_finalizable(st, |h| unsafe { (*h).marked == white });
    for i in queued..st.to_finalize.len() {
        m.value(st.to_finalize[i]);
    }
    m.propagate(st, usize::MAX);
    let dead = |v: TValue| is_dead(v, white);
    for &t in &m.cycle.weak {
        unsafe { (*(t as *mut Table)).clear_dead(&dead, &|v| dead(v) || is_finalized(v)) };
    }
    // Userdata to be freed leave the finalization candidates.
    st.heap.userdata.retain(|&u| unsafe { (*u).marked != white });

    // Coroutines about to be freed close their open upvalues first (5.1's `luaE_freethread`),
    // so closures that outlive a coroutine keep the values instead of pointing into a freed
    // stack. Their upvalue objects are not swept yet, dead or alive.
    let mut hooked_freed = 0;
    st.threads.retain(|&t| unsafe {
        if (*t).header.marked != white {
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
    // The JIT's call stubs of callees about to be freed, like the caches in the bytecode below.
    if let Some(jit) = st.tiering.jit_mut() {
        if let Err(e) = jit.clear_dead_call_stubs(|key| is_dead(TValue(key), white), lua51_value::CALL_IC_EMPTY) {
            tracing::error!(error = %e, "a call stub of a dead callee could not be cleared");
        }
    }
    // Chunks no closure refers to any more (their constants were not marked through them).
    st.protos.retain(|&p| {
        // SAFETY: every registered chunk is alive until this drops it.
        let live = unsafe { (*p).gc_marked.replace(false) };
        if live {
            // SAFETY: the collector runs alone; frames refer to the code by raw pointers only.
            clear_dead_call_ics(unsafe { &mut *p }, white);
        } else {
            // SAFETY: a leaked box of the compiler; no closure or frame refers to it.
            forget_compiled(&mut st.tiering, unsafe { &*p });
            // (Counted in when the chunk was registered, so never more than the total.)
            let bytes = unsafe { (*p).accounted_bytes };
            debug_assert!(bytes <= st.heap.bytes_allocated);
            st.heap.bytes_allocated = st.heap.bytes_allocated.saturating_sub(bytes);
            drop(unsafe { Box::from_raw(p) });
        }
        live
    });
    st.heap.shapes.sweep();
    // Stale slots above each live top may point at what the sweep will free.
    let main_top = main_live_top(st, top);
    let main_end = st.main_stack().1;
    clear_above(&mut st.main, main_top, main_end);
    for &t in &m.cycle.threads {
        let t = unsafe { &mut *(t as *mut Thread) };
        let ctx: *mut LuaContext = &mut t.ctx;
        let live_top = if ctx == st.current { top } else { t.saved_top };
        let (_, end) = t.stack_bounds();
        clear_above(&mut t.ctx, live_top, end);
    }
    m.cycle.phase = GcPhase::Sweep;
    m.cycle.sweep_read = 0;
    m.cycle.sweep_write = 0;
    // The unreached objects have the other white now, and what is allocated from now on the
    // current one, which the sweep keeps.
    st.heap.white = other_white(white);
}

/// Sweeps objects until `budget` units of work are done or the sweep ends (the cycle with it):
/// frees the white ones, whitens the others for the next cycle and compacts the vector.
fn sweep(st: &mut LuaState, cycle: &mut GcCycle, budget: usize) -> usize {
    let mut objects = std::mem::take(&mut st.heap.objects);
    let (mut read, mut write) = (cycle.sweep_read, cycle.sweep_write);
    let (white, dead) = (st.heap.white, other_white(st.heap.white));
    let mut work = 0;
    while read < objects.len() && work < budget {
        let h = objects[read];
        read += 1;
        work += SWEEP_COST;
        unsafe {
            if (*h).marked == dead {
                if (*h).kind == ObjKind::String as u8 {
                    st.heap.strings.remove(h as *mut LuaString);
                }
                let mut extra = 0;
                let size = drop_object(h, &mut extra);
                st.heap.release(h, size);
                st.heap.bytes_allocated -= extra;
                cycle.freed += 1;
            } else {
                (*h).marked = white;
                objects[write] = h;
                write += 1;
            }
        }
    }
    if read == objects.len() {
        objects.truncate(write);
        st.heap.objects = objects;
        end_cycle(st, cycle);
    } else {
        st.heap.objects = objects;
        (cycle.sweep_read, cycle.sweep_write) = (read, write);
    }
    work
}

fn end_cycle(st: &mut LuaState, cycle: &mut GcCycle) {
    cycle.phase = GcPhase::Pause;
    st.heap.strings.shrink_if_sparse();
    st.stats.collections += 1;
    // Freed tables' storage came off the debt through the storage delta.
    fold_table_storage(st);
    let live = st.heap.bytes_allocated;
    st.heap.threshold = (live / 100 * st.heap.pause).max(st.heap.threshold_floor);
    tracing::debug!(freed = cycle.freed, live, "gc cycle finished");
}

/// Runs the collector until `budget` units of work are done or the cycle ends; returns whether
/// it ended. `top` is one past the innermost frame's last live slot.
fn run(st: &mut LuaState, top: *mut u64, budget: usize) -> bool {
    let _span = tracing::trace_span!("gc_step").entered();
    fold_table_storage(st);
    let mut cycle = std::mem::take(&mut st.heap.cycle);
    let mut work = 0;
    let mut finished = false;
    loop {
        match cycle.phase {
            GcPhase::Pause => work += start_cycle(st, &mut cycle, top),
            GcPhase::Propagate => {
                let mut m = Marker { cycle: &mut cycle, white: st.heap.white, current: st.current, current_top: top };
                work += m.propagate(st, budget - work);
                if cycle.gray.is_empty() && cycle.partial.is_none() {
                    atomic(st, &mut cycle, top);
                }
            }
            GcPhase::Sweep => {
                work += sweep(st, &mut cycle, budget - work);
                if cycle.phase == GcPhase::Pause {
                    finished = true;
                    break;
                }
            }
        }
        if work >= budget {
            break;
        }
    }
    st.heap.cycle = cycle;
    finished
}

/// A full collection (`collectgarbage()`, `--gc-stress`): the cycle under way is finished, then
/// a whole cycle runs, so everything unreachable now is freed. `top` is one past the innermost
/// frame's last live slot.
pub fn collect(st: &mut LuaState, top: *mut u64) -> GcStats {
    let _span = tracing::debug_span!("gc").entered();
    if st.heap.cycle.phase != GcPhase::Pause {
        run(st, top, usize::MAX);
    }
    run(st, top, usize::MAX);
    GcStats { freed_objects: st.heap.cycle.freed, live_bytes: st.heap.bytes_allocated }
}

/// The work of a step that stands for `bytes` of allocation: `stepmul` percent of it (5.1's
/// pacing: at 200, two units of marking or sweeping per byte allocated); without limit at 0.
fn step_work(st: &LuaState, bytes: usize) -> usize {
    match st.gc_stepmul {
        0 => usize::MAX,
        mul => (bytes / 100).saturating_mul(mul).max(1),
    }
}

/// `collectgarbage("step", kilobytes)`: the work of 5.1's `kilobytes + 1` steps, at once;
/// answers whether a cycle finished.
pub fn step(st: &mut LuaState, top: *mut u64, kilobytes: usize) -> bool {
    let bytes = kilobytes.saturating_mul(1024).saturating_add(STEP_BYTES_51);
    let finished = run(st, top, step_work(st, bytes));
    if !finished {
        st.heap.threshold = st.heap.bytes_allocated.saturating_add(STEP_BYTES);
    }
    finished
}

/// Zeroes the slots from `top` up to the stack's high-water mark (and the native reserve
/// above it, where set).
fn clear_above(ctx: &mut LuaContext, top: *mut u64, end: *mut u64) {
    // SAFETY: `top..end` is the rest of this context's stack.
    unsafe { clear_stack_above(top, ctx.interp.stack_high_water, end) };
    ctx.interp.stack_high_water = top;
}

/// Adds table storage growth to the debt (see `object::debt`).
pub(crate) fn fold_table_storage(st: &mut LuaState) {
    let delta = take_storage_delta();
    st.heap.bytes_allocated = st.heap.bytes_allocated.saturating_add_signed(delta);
}

/// A step, when enough was allocated since the last one: work in proportion to the
/// allocation (and what was allocated past the threshold since: a debt the step pays off).
/// Under `--gc-stress` a full collection; under `--gc-verify` a small step and the check.
#[inline]
pub fn check(st: &mut LuaState, top: *mut u64) {
    fold_table_storage(st);
    if st.heap.stopped {
        return;
    }
    if st.heap.verify {
        run(st, top, VERIFY_STEP_WORK);
        verify(st);
    } else if st.heap.threshold_floor == 0 {
        // `--gc-stress`. A cycle that `collectgarbage("step")` started is left to the steps:
        // finishing it here, a stepping loop would never see a step finish one.
        if st.heap.cycle.phase == GcPhase::Pause {
            collect(st, top);
        }
    } else if st.heap.bytes_allocated >= st.heap.threshold {
        let debt = st.heap.bytes_allocated - st.heap.threshold + STEP_BYTES;
        if !run(st, top, step_work(st, debt)) {
            st.heap.threshold = st.heap.bytes_allocated.saturating_add(STEP_BYTES);
        }
    }
}

/// `--gc-verify`'s check while marking: no black object refers to a white one, and a black
/// table's shape and a black closure's chunk are marked. A violation is a missing write
/// barrier (or root): the process stops with what broke the invariant.
fn verify(st: &LuaState) {
    if st.heap.cycle.phase != GcPhase::Propagate {
        return;
    }
    let partial = st.heap.cycle.partial.map(|(t, _)| t);
    for &h in &st.heap.objects {
        // The table being traced in pieces is black before all it refers to is marked.
        if unsafe { (*h).marked } != GC_BLACK || Some(h) == partial {
            continue;
        }
        let kind = unsafe { (*h).kind };
        let broken = |what: &str, child: *const ()| -> ! {
            eprintln!("ljr: --gc-verify: black object {h:p} (kind {kind}) refers to unmarked {what} {child:p}");
            std::process::abort();
        };
        let check = |what: &str, child: *mut GcHeader| {
            if !child.is_null() && unsafe { (*child).marked } == st.heap.white {
                broken(what, child as *const ());
            }
        };
        if kind == ObjKind::Table as u8 {
            let t = unsafe { &*(h as *const Table) };
            check("metatable", t.metatable() as *mut GcHeader);
            if !t.shape().is_null() && unsafe { (*t.shape()).marked } == 0 {
                broken("shape", t.shape() as *const ());
            }
            t.trace(true, true, |v| {
                if v.is_heap() {
                    check("key or value", v.as_ptr());
                }
            });
        } else if kind == ObjKind::Function as u8 {
            let c = unsafe { &*(h as *const Closure) };
            if c.env.is_heap() {
                check("environment", c.env.as_ptr());
            }
            for i in 0..c.num_upvalues as usize {
                check("upvalue", c.upvalue(i) as *mut GcHeader);
            }
            if !is_native(c.code_block) {
                let p = proto_of(c.code_block);
                let root = if p.root.is_null() { p } else { unsafe { &*p.root } };
                if !root.gc_marked.get() {
                    broken("chunk", root as *const Proto as *const ());
                }
            }
        } else if kind == ObjKind::Userdata as u8 {
            let u = unsafe { &*(h as *const Userdata) };
            check("metatable", u.metatable as *mut GcHeader);
            if u.env.is_heap() {
                check("environment", u.env.as_ptr());
            }
        } else if kind == ObjKind::UpVal as u8 {
            let v = TValue(unsafe { *(*(h as *const UpVal)).value });
            if v.is_heap() {
                check("value", v.as_ptr());
            }
        }
    }
}
