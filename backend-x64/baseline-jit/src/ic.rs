//! Polymorphic inline caches in JIT code (the paper's section 7.3): chains of patched stubs.
//!
//! An instruction with a fused inline cache (`deegen_api::ic`) is compiled to its *IC entry*
//! in line, a `jmp rel32`, and its generic code (the base variant's stencil: a trampoline into
//! the variant's generic code compiled once, `baseline-aot-ic-generic`) out of line; the
//! entry first jumps to the generic code, which runs the cache in the bytecode. Each time the
//! generic code fills the cache's first entry it calls the language's runtime
//! (`deegen_api::runtime_constants::IC_FILLED`), which calls [`BaselineJit::add_ic_stub`]: the
//! stub stencil of the filled kind (the quickened variant's stencil, with the key and the state
//! as holes) is copied with the key and state the cache now holds, its miss jumps to the old
//! head of the chain, and the IC entry is repatched to it. A hit then runs the entry's `jmp`,
//! the stub's key compare and the effect with the state a constant: no load of the cache, no
//! test of the kind.
//!
//! A site takes at most [`MAX_IC_STUBS`] stubs; later keys are served by the generic code
//! (megamorphic): the site's own copy of it (`IcRecord::megamorphic`), since from then on it
//! runs at every access. Stubs hold no object references: a key is a hidden-class id, which the
//! language never reuses, so a stub never needs clearing by the collector. Stubs live as long
//! as the code cache (like compiled functions, they are not reclaimed).
//!
//! A *call* inline cache (`IcRecord::call`) uses the same chains, with 64-bit keys (the
//! callee, or in closure mode its code block) and stubs that jump straight to the callee's
//! entry; [`CallStubs`] keeps those targets in step with the entries, and the collector has
//! stubs of dying callees cleared (`clear_dead_call_stubs`, `forget_code_block`).

use deegen_stencil::patch_hole;

use crate::compile::{
    check_emitted, instruction_constant, patched_value, piece_addresses, write_jump_stub, BaselineJit, CompiledInstruction, IcSite, IcStub, JitError,
    VerifyError, JUMP_STUB, MAX_IC_STUBS,
};
use crate::stub_template::{StubPart, StubTemplate, StubValues};
use crate::tables::{HoleValue, StencilRecord, StencilTables};
use deegen_exec_memory::CodeCache;

/// The inline-cache sites of the compiled functions, found by an instruction's address: per
/// function (by its bytecode's first address) the sites in address order. Registering them
/// costs a push per site and one insert per function: a hash map insert per site was a
/// quarter of the compile time of a function of field accesses.
#[derive(Debug, Default)]
pub(crate) struct IcSites {
    functions: std::collections::BTreeMap<u64, FunctionSites>,
}

#[derive(Debug)]
struct FunctionSites {
    /// One past the bytecode's last byte.
    end: u64,
    /// By instruction address, ascending.
    sites: Vec<(u64, IcSite)>,
}

impl IcSites {
    /// Registers the sites of the function whose bytecode is `[start, end)` (in address
    /// order), replacing those of a freed function the bytecode's memory belonged to.
    pub(crate) fn add_function(&mut self, start: u64, end: u64, sites: Vec<(u64, IcSite)>) {
        while let Some((&s, f)) = self.functions.range(..end).next_back() {
            if f.end <= start {
                break;
            }
            self.functions.remove(&s);
        }
        if !sites.is_empty() {
            self.functions.insert(start, FunctionSites { end, sites });
        }
    }

    /// Drops the sites of the function whose bytecode starts at `start`, and returns them.
    pub(crate) fn remove_function(&mut self, start: u64) -> Vec<IcSite> {
        self.functions.remove(&start).map(|f| f.sites.into_iter().map(|(_, site)| site).collect()).unwrap_or_default()
    }

    /// The site of the instruction at `pc`: its function's sites, then a binary search.
    pub(crate) fn get(&self, pc: u64) -> Option<&IcSite> {
        let (_, f) = self.functions.range(..=pc).next_back().filter(|(_, f)| pc < f.end)?;
        let i = f.sites.binary_search_by_key(&pc, |(a, _)| *a).ok()?;
        Some(&f.sites[i].1)
    }

    pub(crate) fn get_mut(&mut self, pc: u64) -> Option<&mut IcSite> {
        let (_, f) = self.functions.range_mut(..=pc).next_back().filter(|(_, f)| pc < f.end)?;
        let i = f.sites.binary_search_by_key(&pc, |(a, _)| *a).ok()?;
        Some(&mut f.sites[i].1)
    }
}

/// The addresses of instructions whose sites are megamorphic, in a small direct-mapped table:
/// such a site takes no more stubs, but its generic code still reports every fill of the cache
/// in the bytecode, which misses at nearly every access when the site cycles through more
/// hidden classes than the cache has ways. Found here, a fill costs a multiply and a compare
/// instead of the site lookup (a loop of megamorphic field reads spent 40% of its instructions
/// in `add_ic_stub`). A collision only falls back to the lookup.
#[derive(Debug)]
pub(crate) struct MegamorphicFilter {
    pcs: Box<[u64; MEGAMORPHIC_FILTER_SLOTS]>,
    /// Whether any site was ever entered (most programs have no megamorphic site, and every
    /// compiled function clears its bytecode's range).
    used: bool,
}

const MEGAMORPHIC_FILTER_SLOTS: usize = 256;

impl Default for MegamorphicFilter {
    fn default() -> Self {
        MegamorphicFilter { pcs: Box::new([0; MEGAMORPHIC_FILTER_SLOTS]), used: false }
    }
}

impl MegamorphicFilter {
    fn slot(pc: u64) -> usize {
        (pc.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 56) as usize % MEGAMORPHIC_FILTER_SLOTS
    }

    pub(crate) fn contains(&self, pc: u64) -> bool {
        self.pcs[Self::slot(pc)] == pc
    }

    pub(crate) fn insert(&mut self, pc: u64) {
        self.pcs[Self::slot(pc)] = pc;
        self.used = true;
    }

    /// Drops the instructions in `[start, end)` (a freed function's bytecode).
    pub(crate) fn remove_range(&mut self, start: u64, end: u64) {
        if !self.used {
            return;
        }
        self.pcs.iter_mut().filter(|pc| (start..end).contains(*pc)).for_each(|pc| *pc = 0);
    }
}

/// The address of each piece ([`crate::compile::plan_pieces`] order) of the instruction of
/// `opcode` compiled with its IC entry at `entry` and its out-of-line pieces from `cold`.
fn site_pieces(tables: &'static StencilTables, opcode: u16, entry: u64, cold: u64) -> Vec<u64> {
    let ins = CompiledInstruction { bytecode_offset: 0, opcode, address: entry, size: 0, cold_address: cold, cold_size: 0 };
    piece_addresses(tables, &tables.variants[opcode as usize], &ins)
}

/// Where stubs' parts go: chunks of the code cache taken [`STUB_CHUNK`] bytes at a time
/// (filled with `int3`), handed out in order, so one kind of part packs densely.
#[derive(Debug, Default)]
pub(crate) struct StubArena {
    next: u64,
    end: u64,
    /// Parts given back ([`StubArena::give_back`]), by size: stubs of one stencil have one
    /// size, so a freed part is taken again as it is.
    free: std::collections::HashMap<usize, Vec<u64>>,
}

/// Bytes of code cache a [`StubArena`] takes at a time.
const STUB_CHUNK: usize = 16 << 10;

impl StubArena {
    /// `len` bytes aligned to `align` (at most 64), from the current chunk or a new one.
    fn take(&mut self, cache: &mut deegen_exec_memory::CodeCache, len: usize, align: u64) -> Result<u64, JitError> {
        if let Some(address) = self.free.get_mut(&len).and_then(Vec::pop) {
            // (Every part of an arena is taken with its one alignment.)
            debug_assert_eq!(address % align, 0);
            return Ok(address);
        }
        let start = self.next.next_multiple_of(align);
        if self.next == 0 || start + len as u64 > self.end {
            let chunk = STUB_CHUNK.max(len);
            let (base, ()) = cache.emit(chunk, 64, |buf, _| buf.fill(0xcc))?;
            self.next = base;
            self.end = base + chunk as u64;
            return self.take(cache, len, align);
        }
        self.next = start + len as u64;
        Ok(start)
    }

    /// Gives back the part of `len` bytes at `address` (a stub nothing reaches any more): it
    /// is filled with `int3` at once and taken again by the next part of that size.
    fn give_back(&mut self, cache: &mut deegen_exec_memory::CodeCache, address: u64, len: usize) -> Result<(), JitError> {
        cache.patch_with(address, len, |out| out.fill(0xcc))?;
        self.free.entry(len).or_default().push(address);
        Ok(())
    }
}

/// Gives back the arena parts of `stub`, which nothing reaches any more (its site's function
/// was freed, or its site dropped it); returns their bytes. A stub in its instruction's slab
/// has only its cold part in an arena.
fn give_back_stub(cache: &mut CodeCache, stub_hot: &mut StubArena, stub_cold: &mut StubArena, stub: &IcStub) -> Result<u64, JitError> {
    let mut bytes = 0;
    if !stub.in_line {
        stub_hot.give_back(cache, stub.address, stub.code_size as usize)?;
        bytes += u64::from(stub.code_size);
    }
    let cold_len = stub.size - if stub.in_line { 0 } else { stub.code_size };
    if stub.cold_allocation != 0 && cold_len > 0 {
        stub_cold.give_back(cache, stub.cold_allocation, cold_len as usize)?;
        bytes += u64::from(cold_len);
    }
    Ok(bytes)
}

/// Derived constant `k` of `state`: what its helper (`ic-state-folding`), placed at
/// `shared[tables.ic_derive[k]]`, computes.
fn derive(tables: &StencilTables, shared: &[u64], k: u16, state: u32) -> Result<u64, String> {
    let helper =
        tables.ic_derive.get(k as usize).and_then(|&h| shared.get(h as usize)).ok_or_else(|| format!("no helper computes derived constant {k}"))?;
    // SAFETY: the helper is placed code of the C signature `ic-state-folding` gives every
    // derive function, pure arithmetic on its argument.
    let f: extern "C" fn(u32) -> u64 = unsafe { std::mem::transmute(*helper as usize) };
    let value = f(state);
    // The code was compiled assuming the range (not only where the value is a hole: LLVM may
    // have reasoned with it), so a value outside it is refused whatever the hole's width.
    if value >= deegen_api::runtime_constants::IC_DERIVED_RANGE_END {
        return Err(format!("derived constant {k} of state {state:#x} is {value:#x}, outside its range"));
    }
    Ok(value)
}

/// Makes the chain of `site` start at `target` (a new stub, or the generic code): the IC entry
/// (`jmp rel32`) jumps there, or, when the site's first stub is in its slab, that stub's misses
/// do.
fn point_chain(tables: &'static StencilTables, cache: &mut CodeCache, site: &mut IcSite, target: u64) -> Result<(), JitError> {
    let entry = site.entry;
    match site.stubs.first_mut().filter(|s| s.in_line) {
        Some(first) => {
            let s = &tables.stencils[first.stencil as usize];
            // SAFETY: the stub is emitted code, alive with its site.
            let mut bytes = unsafe { std::slice::from_raw_parts(first.address as *const u8, first.code_size as usize) }.to_vec();
            let len = bytes.len();
            for h in s.holes.iter().filter(|h| h.value == HoleValue::IcNext && (h.offset as usize) < len) {
                patch_hole(&mut bytes, h.offset as usize, h.kind, h.addend, target, first.address).map_err(|e| e.in_stencil(s.name))?;
            }
            first.next_in_chain = target;
            site.head = target;
            cache.patch(first.address, &bytes)?;
            // (Its AOT slow paths may go on along the chain too, through its record.)
            patch_record(cache, s, first.record, HoleValue::IcNext, target)
        }
        None => {
            site.head = target;
            let rel = i32::try_from(target as i64 - (entry as i64 + 5))
                .map_err(|_| JitError::Bytecode { offset: 0, problem: format!("{target:#x} is out of the reach of the IC entry at {entry:#x}") })?;
            Ok(cache.patch(entry + 1, &rel.to_le_bytes())?)
        }
    }
}

/// Emits a stub of template `t` for the instruction at `pc`: its hot part in the instruction's
/// slab (`slab`: its address and size) or with the other stubs' hot parts, its cold part and
/// record with the others' (the hot parts interleaved with those spread the hit paths over
/// more cache lines: richards had 38% more instruction-cache misses), every fill from the
/// values `values` gives for the parts' addresses (hot, cold).
///
/// The cold part first, then the hot one: a chain reaches the stub only once it is whole.
/// Parts in fresh memory are written where they run (a failed write leaves bytes nothing
/// reaches yet); a stub in the slab replaces the live IC entry, so it is made whole in a
/// buffer first and the entry stays as it was if a hole cannot take its value.
fn place_stub<'v>(
    t: &StubTemplate,
    cache: &mut CodeCache,
    stub_hot: &mut StubArena,
    stub_cold: &mut StubArena,
    slab: Option<(u64, usize)>,
    pc: u64,
    values: impl Fn(u64, u64) -> StubValues<'v>,
) -> Result<IcStub, JitError> {
    let bad = |problem: String| JitError::Bytecode { offset: 0, problem };
    let cold_size = t.cold.len();
    let (address, code_size) = match slab {
        Some((entry, len)) => (entry, len.min(t.hot.len())),
        None => (stub_hot.take(cache, t.hot.len(), 16)?, t.hot.len()),
    };
    let cold_address = if cold_size > 0 { stub_cold.take(cache, cold_size, 8)? } else { 0 };
    let values = values(address, cold_address);
    if cold_size > 0 {
        cache.patch_with(cold_address, cold_size, |out| t.write(StubPart::Cold, out, &values))?.map_err(bad)?;
    }
    if slab.is_some() {
        let mut bytes = vec![0u8; code_size];
        t.write(StubPart::Hot, &mut bytes, &values).map_err(bad)?;
        cache.patch(address, &bytes)?;
    } else {
        cache.patch_with(address, code_size, |out| t.write(StubPart::Hot, out, &values))?.map_err(bad)?;
    }
    // A stub in line is counted with its function's code.
    let size = if slab.is_some() { cold_size } else { t.hot.len() + cold_size };
    Ok(IcStub {
        pc,
        stencil: t.stencil,
        address,
        cold: if t.has_cold_part { cold_address } else { 0 },
        record: cold_address + t.records_at as u64,
        cold_allocation: cold_address,
        key: values.key,
        state: values.state,
        next_in_chain: values.next_in_chain,
        code_size: code_size as u32,
        cold_size: t.cold_code_len as u32,
        size: size as u32,
        in_line: slab.is_some(),
        cleared: false,
    })
}

/// The kinds of a call inline cache's stubs ([`crate::tables::IcRecord::stubs`] order).
pub(crate) const CALL_STUB_DIRECT: u32 = 0;
pub(crate) const CALL_STUB_CLOSURE: u32 = 1;

/// The JIT's call inline-cache stubs, found by their callee's code block: where each jumps
/// (the callee's entry) must follow that entry when it changes.
#[derive(Debug, Default)]
pub(crate) struct CallStubs {
    /// Per code block, the stubs that call it: their instruction's address and their own.
    pub(crate) by_code_block: std::collections::HashMap<u64, Vec<(u64, u64)>>,
    /// Jump stubs (`jmp *0(%rip)`, then the address) to targets beyond `rel32` reach of the
    /// code cache, by target.
    far: std::collections::HashMap<u64, u64>,
}

impl CallStubs {
    /// What a `rel32` jump from the code cache to `target` names: `target`, or a jump stub to
    /// it (made now, once per target).
    pub(crate) fn near(&mut self, cache: &mut CodeCache, target: u64) -> Result<u64, JitError> {
        if cache.reachable_from(target) {
            return Ok(target);
        }
        if let Some(&stub) = self.far.get(&target) {
            return Ok(stub);
        }
        let (stub, ()) = cache.emit(JUMP_STUB, JUMP_STUB, |buf, _| write_jump_stub(buf, target))?;
        self.far.insert(target, stub);
        Ok(stub)
    }

    /// What a stub's target hole holds for the entry `target` (see [`CallStubs::near`]).
    pub(crate) fn current_target(&self, target: u64) -> u64 {
        self.far.get(&target).copied().unwrap_or(target)
    }
}

/// Writes `value` into every hole of `kind` in the stub (hot part) at `address`.
fn repatch_stub(tables: &'static StencilTables, cache: &mut CodeCache, stub: &IcStub, value: HoleValue, to: u64) -> Result<(), JitError> {
    let s = &tables.stencils[stub.stencil as usize];
    // SAFETY: the stub is emitted code in the cache, which lives as long as the JIT.
    let mut bytes = unsafe { std::slice::from_raw_parts(stub.address as *const u8, stub.code_size as usize) }.to_vec();
    let len = bytes.len();
    for h in s.holes.iter().filter(|h| h.value == value && (h.offset as usize) + h.kind.width() <= len) {
        patch_hole(&mut bytes, h.offset as usize, h.kind, h.addend, to, stub.address).map_err(|e| e.in_stencil(s.name))?;
    }
    cache.patch(stub.address, &bytes)?;
    patch_record(cache, s, stub.record, value, to)
}

/// Writes `to` into every field of value `value` of the SlowPathData record at `record` of a
/// copy of stencil `s` (what its AOT slow paths read of it).
fn patch_record(cache: &mut CodeCache, s: &StencilRecord, record: u64, value: HoleValue, to: u64) -> Result<(), JitError> {
    for (k, _) in s.slow_path_data.iter().enumerate().filter(|(_, &v)| v == value) {
        cache.patch(record + 8 * k as u64, &to.to_le_bytes())?;
    }
    Ok(())
}

impl BaselineJit {
    /// The fused inline cache of the compiled instruction at `pc` now holds, in its first
    /// entry, a state of `kind`: adds a stub for that entry at the head of the instruction's
    /// chain. `Ok(None)` when there is nothing to add: `pc` is not such an instruction of
    /// compiled code, the chain already has a stub for the key, or it is full (megamorphic).
    ///
    /// # Safety
    /// `pc` is the address of an instruction of a function compiled by this JIT whose bytecode
    /// is still alive (the instruction's own code is asking).
    pub unsafe fn add_ic_stub(&mut self, pc: u64, kind: u32) -> Result<Option<IcStub>, JitError> {
        if self.megamorphic_filter.contains(pc) {
            self.stats.ic_megamorphic_fills += 1;
            return Ok(None);
        }
        // One lookup of the site, and the JIT's other parts borrowed beside it.
        let BaselineJit { tables, cache, shared, ic_sites, stub_hot, stub_cold, stub_templates, stats, megamorphic_filter, call_stubs, .. } = self;
        let tables = *tables;
        let Some(site) = ic_sites.get_mut(pc) else { return Ok(None) };
        let (opcode, entry, cold_area, next, branch) = (site.opcode, site.entry, site.cold, site.next, site.branch);
        // (The generic code is the first out-of-line piece.)
        let generic = cold_area;
        let slab = site.slab as usize;
        let v = &tables.variants[opcode as usize];
        let Some(ic) = v.ic else { return Ok(None) };
        let bad = |problem: String| JitError::Bytecode { offset: 0, problem: format!("inline-cache stub of {} at {pc:#x}: {problem}", v.name) };
        // SAFETY: per the contract, the instruction (`v.length` bytes, its cache among them)
        // is alive.
        let instruction = unsafe { std::slice::from_raw_parts(pc as *const u8, v.length as usize) };
        // A field of the cache: `width` bytes (4 or 8) at `at`.
        let field = |at: u32, width: u8| -> Result<u64, JitError> {
            crate::compile::read_field(instruction, at as usize, width, false)
                .map(|v| v as u64)
                .ok_or_else(|| bad("the cache runs past the instruction".into()))
        };
        let (key, state, call_target) = if ic.call {
            let (callee, code_block) = (field(ic.cache_offset, 8)?, field(ic.cache_offset + 8, 8)?);
            // An empty call cache has no code block.
            if code_block == 0 {
                return Ok(None);
            }
            // SAFETY: the cache was just filled with a live callee, whose code block starts
            // with its entry (the API's layout, `deegen_api::CodeBlock`).
            let entry = unsafe { *(code_block as *const u64) };
            (callee, code_block, entry)
        } else {
            let (key, state) = (field(ic.cache_offset, 4)?, field(ic.cache_offset + 4, 4)?);
            // A fill never caches these (`deegen_api::ic`); an entry holding one is no entry.
            if key == u64::from(deegen_api::ic::IMPOSSIBLE_KEY) || key == u64::from(deegen_api::ic::UNCACHEABLE_KEY) {
                return Ok(None);
            }
            (key, state, 0)
        };
        if site.megamorphic {
            megamorphic_filter.insert(pc);
            stats.ic_megamorphic_fills += 1;
            return Ok(None);
        }
        // A call site starts in direct mode (keyed by the callee). When it meets a second
        // callee of a code block a stub already calls (closures of one function), it turns to
        // closure mode for good (keyed by the code block): its stubs are dropped (the entry
        // jumps to the generic code again) and it starts over with closure stubs.
        let (key, kind) = if ic.call {
            if !site.closure && site.stubs.iter().any(|s| s.state == state && s.key != key) {
                if site.stubs.first().is_some_and(|s| s.in_line) {
                    // The slab holds the entry's jump again (to the generic code), then traps.
                    let mut bytes = vec![0xccu8; site.slab as usize];
                    bytes[0] = 0xe9;
                    let rel = i32::try_from(generic as i64 - (entry as i64 + 5))
                        .map_err(|_| bad(format!("the generic code at {generic:#x} is out of the entry's reach")))?;
                    bytes[1..5].copy_from_slice(&rel.to_le_bytes());
                    cache.patch(entry, &bytes)?;
                    site.head = generic;
                } else {
                    point_chain(tables, cache, site, generic)?;
                }
                // (Their registrations go too: a new stub may take a dropped one's address. And
                // their memory: nothing reaches them now.)
                for dropped in site.stubs.drain(..) {
                    if let Some(list) = call_stubs.by_code_block.get_mut(&dropped.state) {
                        list.retain(|&(p, a)| (p, a) != (pc, dropped.address));
                    }
                    stats.freed_code_bytes += give_back_stub(cache, stub_hot, stub_cold, &dropped)?;
                }
                site.closure = true;
                stats.call_ic_closure_sites += 1;
                tracing::trace!(pc = format_args!("{pc:#x}"), "call inline-cache site in closure mode");
            }
            if site.closure {
                (state, CALL_STUB_CLOSURE)
            } else {
                (key, CALL_STUB_DIRECT)
            }
        } else {
            (key, kind)
        };
        let head = site.head;
        let slab_empty = site.stubs.is_empty();
        let (known, full, megamorphic) = (site.stubs.iter().any(|s| s.key == key), site.stubs.len() == MAX_IC_STUBS, site.megamorphic);
        if known {
            return Ok(None);
        }
        let derive = |k: u16, state: u32| derive(tables, shared, k, state);
        // (Made before the stub, so that a full cache leaves the chain as it was.)
        let near_call_target = if ic.call && !megamorphic && !known && !full { call_stubs.near(cache, call_target)? } else { 0 };
        let template = |k: usize| match stub_templates.get(opcode as usize).and_then(|ts| ts.get(k)) {
            Some(Ok(t)) => Ok(t),
            Some(Err(problem)) => Err(bad(problem.clone())),
            None => Err(bad(format!("no stub template {k}"))),
        };
        // A stub's own problem, named with its instruction; a full code cache stays what it is.
        let in_site = |e: JitError| match e {
            JitError::Bytecode { problem, .. } => bad(problem),
            other => other,
        };
        let values = |hot: u64, cold: u64| StubValues {
            instruction,
            pc,
            next,
            branch,
            entry,
            out_of_line: cold_area,
            hot,
            cold,
            key,
            state,
            next_in_chain: head,
            call_target: near_call_target,
            derive: &derive,
        };
        if full {
            // Megamorphic: every key the stubs miss would pay for all their misses first. The
            // entry now jumps past them, the stubs stay unreachable, and the generic code's
            // cache in the bytecode keeps serving the last keys. That generic code is a
            // trampoline into code all sites share, reading the instruction from its record
            // and going on through a register; this site runs it at every access from now
            // on, so it gets a copy of its own with the instruction's values as immediates.
            // (Where the copy cannot be made, a full cache or a template the JIT could not
            // build, the site still goes megamorphic, on the shared generic code, and the
            // error is reported. Tables without megamorphic stencils have generic code of
            // their own per instruction.)
            let copy = ic.megamorphic.map(|_| {
                template(ic.stubs.len()).and_then(|t| {
                    place_stub(t, cache, stub_hot, stub_cold, None, pc, |hot, cold| StubValues { key: 0, state: 0, ..values(hot, cold) })
                        .map_err(in_site)
                })
            });
            let target = match &copy {
                Some(Ok(c)) => c.address,
                _ => generic,
            };
            point_chain(tables, cache, site, target).map_err(|e| bad(e.to_string()))?;
            site.megamorphic = true;
            megamorphic_filter.insert(pc);
            stats.ic_megamorphic_sites += 1;
            stats.ic_megamorphic_fills += 1;
            tracing::trace!(pc = format_args!("{pc:#x}"), "inline-cache site megamorphic");
            if let Some(copy) = copy.transpose()? {
                site.megamorphic_copy = Some(copy);
                stats.ic_stub_bytes += u64::from(copy.size);
            }
            return Ok(None);
        }
        // (The templates after the kinds' are not stubs.)
        if kind as usize >= ic.stubs.len() {
            return Err(bad(format!("no stub for kind {kind}")));
        }
        let t = template(kind as usize)?;
        // The site's first stub goes into its slab when it was made for it (the slab is this
        // stub's size: `compile::inline_slab`), without its trailing jump to the next
        // instruction, which follows the slab.
        let hot = &tables.stencils[t.stencil as usize];
        // (A call stub may leave part of its slab to traps: it ends in a jump.)
        let len = crate::compile::inline_stub_len(hot);
        let in_line = slab_empty && slab > 0 && if ic.call { len <= slab } else { len == slab };
        let stub = place_stub(t, cache, stub_hot, stub_cold, in_line.then_some((entry, slab)), pc, values).map_err(in_site)?;
        if in_line {
            // The stub is the entry now; the chain's head stays the generic code.
            stats.ic_stubs_in_line += 1;
        } else {
            point_chain(tables, cache, site, stub.address)?;
        }
        site.stubs.push(stub);
        if ic.call {
            // Repointed when the callee's entry changes (`retarget_calls`).
            call_stubs.by_code_block.entry(state).or_default().push((pc, stub.address));
            stats.call_ic_stubs += 1;
        }
        stats.ic_stubs += 1;
        stats.ic_stub_bytes += u64::from(stub.size);
        tracing::trace!(pc = format_args!("{pc:#x}"), stub = format_args!("{:#x}", stub.address), kind, key, state, "inline-cache stub added");
        Ok(Some(stub))
    }

    /// The entry of the code block `code_block` changed (its function was compiled, or a debug
    /// hook sends its calls through the interpreter, or no longer does): every call stub that
    /// calls it jumps to the new entry. Stubs of instructions no longer compiled are dropped
    /// from the list. Returns the stubs repointed (for the checker).
    ///
    /// # Safety
    /// `code_block` is a live code block (its first word is its entry).
    pub unsafe fn retarget_calls(&mut self, code_block: u64) -> Result<Vec<IcStub>, JitError> {
        let Some(stubs) = self.call_stubs.by_code_block.remove(&code_block) else { return Ok(Vec::new()) };
        // SAFETY: per the contract.
        let entry = unsafe { *(code_block as *const u64) };
        let target = self.call_stubs.near(&mut self.cache, entry)?;
        let mut kept = Vec::with_capacity(stubs.len());
        let mut repointed = Vec::with_capacity(stubs.len());
        for (pc, address) in stubs {
            // (A registration whose stub was dropped, or whose address another stub took, is
            // forgotten: only a stub calling this code block follows its entry.)
            let Some(stub) =
                self.ic_sites.get(pc).and_then(|site| site.stubs.iter().find(|s| s.address == address && s.state == code_block)).copied()
            else {
                continue;
            };
            repatch_stub(self.tables, &mut self.cache, &stub, HoleValue::CallTarget, target)?;
            kept.push((pc, address));
            repointed.push(stub);
        }
        tracing::trace!(code_block = format_args!("{code_block:#x}"), stubs = kept.len(), "call stubs repointed");
        if !kept.is_empty() {
            self.call_stubs.by_code_block.insert(code_block, kept);
        }
        Ok(repointed)
    }

    /// The code block `code_block` is about to be freed: every call stub that calls it is
    /// cleared (a closure stub is keyed by it, and a new code block at its address must not
    /// hit), and forgotten.
    pub fn forget_code_block(&mut self, code_block: u64, empty: u64) -> Result<(), JitError> {
        let Some(stubs) = self.call_stubs.by_code_block.remove(&code_block) else { return Ok(()) };
        for (pc, address) in stubs {
            let Some(site) = self.ic_sites.get_mut(pc) else { continue };
            let Some(stub) = site.stubs.iter_mut().find(|s| s.address == address && s.state == code_block) else { continue };
            let closure = self.tables.variants[site.opcode as usize].ic.and_then(|ic| ic.stubs.get(CALL_STUB_CLOSURE as usize).copied());
            let value = if Some(stub.stencil) == closure {
                stub.key = empty;
                stub.state = empty;
                HoleValue::IcState
            } else {
                stub.key = empty;
                HoleValue::IcKey
            };
            stub.cleared = true;
            let stub = *stub;
            repatch_stub(self.tables, &mut self.cache, &stub, value, empty)?;
        }
        Ok(())
    }

    /// Every code block some call stub calls (for a runtime that changes many entries at once).
    pub fn called_code_blocks(&self) -> Vec<u64> {
        self.call_stubs.by_code_block.keys().copied().collect()
    }

    /// Clears the call stubs whose callee is about to be freed (`is_dead` of the key), so that
    /// no new object at its address can hit them: their key becomes `empty`, a value no callee
    /// has (the language's empty call cache's key). Called by the collector between marking and
    /// sweeping, as it clears the caches in the bytecode.
    pub fn clear_dead_call_stubs(&mut self, is_dead: impl Fn(u64) -> bool, empty: u64) -> Result<(), JitError> {
        let BaselineJit { tables, cache, ic_sites, call_stubs, .. } = self;
        for (&code_block, list) in call_stubs.by_code_block.iter_mut() {
            let mut result = Ok(());
            list.retain(|&(pc, address)| {
                let Some(site) = ic_sites.get_mut(pc) else { return false };
                let direct = tables.variants[site.opcode as usize].ic.and_then(|ic| ic.stubs.first().copied());
                let Some(stub) = site.stubs.iter_mut().find(|s| s.address == address && s.state == code_block) else { return false };
                // (A closure stub's key is a code block: cleared when that is freed.)
                if Some(stub.stencil) != direct || !is_dead(stub.key) {
                    return true;
                }
                stub.key = empty;
                stub.cleared = true;
                let stub = *stub;
                if let Err(e) = repatch_stub(tables, cache, &stub, HoleValue::IcKey, empty) {
                    result = Err(e);
                }
                false
            });
            result?;
        }
        call_stubs.by_code_block.retain(|_, list| !list.is_empty());
        Ok(())
    }

    /// The compiled function whose bytecode is `bytecode` and whose code is `code` is about to
    /// be freed: its inline-cache sites are dropped (its bytecode's addresses may name another
    /// function's instructions next), and its code and records go back to the cache for the
    /// next compilations. Nothing jumps into them any more: no frame runs the function (the
    /// collector frees it), its code block goes with it, and the call stubs that call it are
    /// cleared (`forget_code_block`). Its inline-cache stubs, outside its allocation and
    /// reachable only from it, go back to their arenas.
    pub fn forget(&mut self, bytecode: &[u8], code: &crate::CompiledCode) {
        let start = bytecode.as_ptr() as u64;
        let sites = self.ic_sites.remove_function(start);
        self.megamorphic_filter.remove_range(start, start + bytecode.len() as u64);
        // Its stubs (and a megamorphic site's copy of its generic code) go back to their
        // arenas: only its own sites' entries reached them.
        for site in &sites {
            for stub in site.stubs.iter().chain(&site.megamorphic_copy) {
                match give_back_stub(&mut self.cache, &mut self.stub_hot, &mut self.stub_cold, stub) {
                    Ok(bytes) => self.stats.freed_code_bytes += bytes,
                    Err(e) => tracing::error!(error = %e, "a freed function's stub could not be given back"),
                }
            }
        }
        let (address, len) = code.allocation();
        match self.cache.free(address, len) {
            Ok(()) => {
                self.stats.freed_functions += 1;
                self.stats.freed_code_bytes += len as u64;
            }
            // (Only a bug gets here: the code stays, unreachable, as before code was reused.)
            Err(e) => tracing::error!(error = %e, "a freed function's code could not be given back"),
        }
    }

    /// The stubs of the compiled instruction at `pc`, newest (the chain's head) first: for
    /// listings (`ljr --dump-jit`) and profilers' symbol maps.
    pub fn ic_stubs(&self, pc: u64) -> impl Iterator<Item = &IcStub> + '_ {
        self.ic_sites.get(pc).into_iter().flat_map(|s| s.stubs.iter().rev())
    }

    /// The checker for the inline-cache site of the compiled instruction at `pc` as it is now:
    /// its stubs, its chain and a megamorphic site's copy of its generic code (which the
    /// fill that makes a site megamorphic adds without a stub to check). `Ok` when `pc` has
    /// no site.
    pub fn verify_ic_site_at(&self, pc: u64) -> Result<(), VerifyError> {
        let Some(site) = self.ic_sites.get(pc) else { return Ok(()) };
        let variant = self.tables.variants.get(site.opcode as usize).map_or("?", |v| v.name);
        self.verify_ic_site(site, site.entry, site.cold).map_err(|problem| VerifyError { offset: 0, variant, problem })
    }

    /// A megamorphic site's own copy of its generic code (a stub without a key), for listings
    /// and profilers' symbol maps.
    pub fn ic_megamorphic_copy(&self, pc: u64) -> Option<&IcStub> {
        self.ic_sites.get(pc)?.megamorphic_copy.as_ref()
    }

    /// The name of the stencil a stub was copied from.
    pub fn stencil_name(&self, stencil: u16) -> &'static str {
        self.tables.stencils.get(stencil as usize).map_or("?", |s| s.name)
    }

    /// The checker for a stub (the counterpart of [`BaselineJit::verify`]): decodes it with
    /// `iced-x86` and checks that it is its stencil byte for byte outside the holes, that every
    /// hole is one field, that its jumps reach the next instruction, the instruction's
    /// continuations, its own cold part and the chain's next stub, that its key and state
    /// holes hold what the cache held, and that the IC entry now jumps to it; each recomputed
    /// from the instruction and the compiled code's layout.
    pub fn verify_ic_stub(&self, stub: &IcStub) -> Result<(), VerifyError> {
        let tables = self.tables;
        let site = self.ic_sites.get(stub.pc).ok_or_else(|| VerifyError {
            offset: 0,
            variant: "-",
            problem: "a stub for no compiled instruction".into(),
        })?;
        let v = &tables.variants[site.opcode as usize];
        let fail =
            |problem: String| VerifyError { offset: 0, variant: v.name, problem: format!("inline-cache stub at {:#x}: {problem}", stub.address) };
        let pieces = site_pieces(tables, site.opcode, site.entry, site.cold);
        let hot = &tables.stencils[stub.stencil as usize];
        let ic = v.ic.ok_or_else(|| fail("its instruction has no inline cache".into()))?;
        if !ic.stubs.contains(&stub.stencil) && ic.megamorphic != Some(stub.stencil) {
            return Err(fail(format!("{} is not a stub of {}", hot.name, v.name)));
        }
        // What a hole or record field of `value` must hold, recomputed from the instruction,
        // its compiled code and the stub's own place; `None` for the JIT's placed helpers.
        let expected = |value: HoleValue| -> Result<Option<u64>, VerifyError> {
            Ok(Some(match value {
                HoleValue::Next => site.next,
                HoleValue::Continuation(k) => *pieces.get(1 + k as usize).ok_or_else(|| fail(format!("no continuation {k}")))?,
                HoleValue::ColdPart => stub.cold,
                HoleValue::HotPart => stub.address,
                HoleValue::SlowPathData => stub.record,
                HoleValue::IcNext => stub.next_in_chain,
                HoleValue::IcKey => stub.key,
                HoleValue::IcState => stub.state,
                HoleValue::IcDerived(k) => derive(tables, &self.shared, k, stub.state as u32).map_err(fail)?,
                // The callee's entry as its code block has it now (every change repoints it).
                // SAFETY: a call stub's code block is alive while its key is (a stub whose
                // callee died was cleared, and keeps a key no value has).
                HoleValue::CallTarget if stub.cleared => return Ok(None),
                HoleValue::CallTarget => self.call_stubs.current_target(unsafe { *(stub.state as *const u64) }),
                HoleValue::Pc | HoleValue::Output | HoleValue::Operand(_) => {
                    // SAFETY: the instruction is alive while its stubs are checked.
                    let instruction = unsafe { std::slice::from_raw_parts(stub.pc as *const u8, v.length as usize) };
                    instruction_constant(instruction, stub.pc, 0, v, value).map_err(fail)?
                }
                _ => return Ok(None),
            }))
        };
        let parts = [(Some(hot), stub.address), (hot.cold_part.map(|c| &tables.stencils[c as usize]), stub.cold)];
        for (part, start) in parts {
            let Some(s) = part else { continue };
            // SAFETY: the stub lives in the cache, which is never unmapped while the JIT lives.
            let len = if start == stub.address { stub.code_size as usize } else { s.code.len() };
            let (emitted, holes) = unsafe { check_emitted(s, len, start) }.map_err(fail)?;
            for h in holes {
                let Some(expected) = expected(h.value)? else { continue };
                let got = patched_value(emitted, start, h);
                if got != expected {
                    return Err(fail(format!("{:?} hole of {} at {} holds {got:#x}, not {expected:#x}", h.value, s.name, h.offset)));
                }
            }
        }
        for (k, &field) in hot.slow_path_data.iter().enumerate() {
            let Some(expected) = expected(field)? else { continue };
            // SAFETY: the record is the stub's, in the cache.
            let got = unsafe { std::ptr::read_unaligned((stub.record + 8 * k as u64) as *const u64) };
            if got != expected {
                return Err(fail(format!("SlowPathData field {k} ({field:?}) holds {got:#x}, not {expected:#x}")));
            }
        }
        // The entry reaches the chain's head; the head is this stub only until the next one.
        // (Where the first stub is in line, its misses do, which its own check covers.)
        let first_in_line = site.stubs.first().is_some_and(|s| s.in_line);
        if site.head == stub.address && !first_in_line {
            // SAFETY: the entry is emitted code.
            let rel = unsafe { std::ptr::read_unaligned((site.entry + 1) as *const i32) };
            let target = (site.entry as i64 + 5 + i64::from(rel)) as u64;
            if target != stub.address {
                return Err(fail(format!("the IC entry at {:#x} jumps to {target:#x}", site.entry)));
            }
        }
        Ok(())
    }
}
