//! One-pass compilation: walk the bytecode once to lay the code out (every opcode's template
//! has a known size), then copy and patch each instruction's template in a second walk over
//! the same list. Branch targets, the next instruction and the return continuations are
//! therefore known when a hole is patched, with no late-patch list.

use deegen_exec_memory::{CodeCache, ExecMemoryError, Mapping};
use deegen_stencil::{patch_hole, HoleKind, PatchError};

use crate::emit::{write_fills, EmitFn, EmitTarget};
use crate::tables::{HoleRecord, HoleValue, StencilRecord, StencilTables, VariantRecord};
use crate::template::{self, Placed, Template};

/// Why a function could not be compiled (it then stays in the interpreter).
#[derive(Debug, thiserror::Error)]
pub enum JitError {
    #[error(transparent)]
    Memory(#[from] ExecMemoryError),
    #[error(transparent)]
    Patch(#[from] PatchError),
    #[error("bytecode offset {offset}: {problem}")]
    Bytecode { offset: usize, problem: String },
}

impl JitError {
    /// Whether the JIT ran out of a resource (the code cache is full, address space cannot
    /// be reserved): a normal condition under which functions stay in the interpreter. Every
    /// other error is a bug of the JIT or its tables.
    pub fn is_resource_limit(&self) -> bool {
        matches!(self, JitError::Memory(ExecMemoryError::Full { .. } | ExecMemoryError::Reserve { .. }))
    }
}

/// Totals over the JIT's lifetime.
#[derive(Debug, Default, Clone, Copy)]
pub struct JitStats {
    pub functions: u64,
    pub bytecodes: u64,
    pub code_bytes: u64,
    /// The part of `code_bytes` in the functions' cold areas (cold parts, out-of-line
    /// continuations, the trap): what a fast path does not share its cache lines with.
    pub cold_code_bytes: u64,
    /// The SlowPathData records written next to the code (not counted in `code_bytes`).
    pub slow_path_data_bytes: u64,
    pub compile_seconds: f64,
    /// The part of `compile_seconds` spent waiting for fresh code pages
    /// ([`CodeCache::populate_seconds`]): the rest is the compiler's own work.
    pub memory_seconds: f64,
    /// Seconds another thread spent making code pages ready ahead of the compiler
    /// ([`CodeCache::background_populate_seconds`], as of the last compilation): not part of
    /// `compile_seconds`, but CPU time all the same.
    pub background_memory_seconds: f64,
    /// Compilations that failed (the function stayed in the interpreter).
    pub failures: u64,
    /// Inline-cache stubs made ([`BaselineJit::add_ic_stub`]) and their bytes (code and
    /// SlowPathData records; not in `code_bytes`).
    pub ic_stubs: u64,
    pub ic_stub_bytes: u64,
    /// Of the stubs, those placed in their instruction's inline slab (their hot part counted
    /// in `code_bytes`, only their cold part and record in `ic_stub_bytes`).
    pub ic_stubs_in_line: u64,
    /// Sites that saw more keys than [`MAX_IC_STUBS`] (their entries now jump to their
    /// generic code), and the fills of their caches since.
    pub ic_megamorphic_sites: u64,
    pub ic_megamorphic_fills: u64,
    /// Of the stubs, call inline caches' (direct calls of a cached callee or code block), and
    /// the call sites that turned to closure mode.
    pub call_ic_stubs: u64,
    pub call_ic_closure_sites: u64,
    /// Compiled functions freed (their code given back to the cache for reuse) and the bytes
    /// of code and records they gave back.
    pub freed_functions: u64,
    pub freed_code_bytes: u64,
}

/// Stubs per inline-cache site: a site that sees more keys is megamorphic, and its later keys
/// are served by the generic code (whose cache in the bytecode still holds the last few).
pub const MAX_IC_STUBS: usize = 4;

/// An instruction with a fused inline cache in compiled code: its IC entry and chain.
#[derive(Debug, Clone)]
pub(crate) struct IcSite {
    /// The opcode it was compiled as (its variant's tables name the stubs).
    pub opcode: u16,
    /// The IC entry (`jmp rel32`) and the instruction's out-of-line pieces, the first of which
    /// is its generic code (the main stencil), where the chain ends.
    pub entry: u64,
    pub cold: u64,
    /// The next instruction's code and the branch target's (0 when it does not branch).
    pub next: u64,
    pub branch: u64,
    /// A call site in closure mode: its stubs are keyed by code block.
    pub closure: bool,
    /// The chain: its head (where the entry's miss goes), and its stubs, oldest first.
    pub head: u64,
    pub stubs: Vec<IcStub>,
    /// Bytes of the instruction's in-line code: the IC entry's `jmp` alone (0 here), or a
    /// slab the size of its first stub, which the stub then fills ([`inline_slab`]).
    pub slab: u32,
    /// The site saw more keys than [`MAX_IC_STUBS`]: its entry jumps to its generic code
    /// directly, past the stubs, which would only add their misses.
    pub megamorphic: bool,
    /// A megamorphic site's own copy of its variant's generic code (a stub without a key, of
    /// [`crate::tables::IcRecord::megamorphic`]), which its entry then jumps to.
    pub megamorphic_copy: Option<IcStub>,
}

/// An inline-cache stub the JIT made, for its checker.
#[derive(Debug, Clone, Copy)]
pub struct IcStub {
    /// The instruction it serves.
    pub pc: u64,
    pub stencil: u16,
    pub address: u64,
    /// Its cold part's address (0 when it has none) and its SlowPathData record's.
    pub cold: u64,
    pub record: u64,
    /// Where its cold part and record were allocated (0: neither exists).
    pub cold_allocation: u64,
    /// Its key and state (a fused cache's are `u32`s; a call cache's are the callee and its
    /// code block).
    pub key: u64,
    pub state: u64,
    /// Where its miss goes.
    pub next_in_chain: u64,
    /// A call stub whose callee (or code block) died: its key no longer hits, its target is
    /// stale.
    pub cleared: bool,
    /// It is its site's first stub, in the instruction's in-line code (the slab) rather than
    /// in the stub arena: its hit runs no jump to it and none back.
    pub in_line: bool,
    /// Bytes of its code, of its cold part's, and of all it took (with its record).
    pub code_size: u32,
    pub cold_size: u32,
    pub size: u32,
}

/// One instruction's code.
#[derive(Debug, Clone, Copy)]
pub struct CompiledInstruction {
    pub bytecode_offset: u32,
    pub opcode: u16,
    /// Its code in line: the main stencil (and the return continuations when they stay in
    /// line), ending where the next instruction's starts.
    pub address: u64,
    pub size: u32,
    /// Its return continuations placed out of line ([`PiecePlan`]), in the function's cold
    /// area after all in-line code; `cold_size` 0 when there are none.
    pub cold_address: u64,
    pub cold_size: u32,
}

/// What the prologue of a compiled function burns in (see
/// [`crate::StencilTables::function_entry`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FunctionShape {
    pub num_params: u32,
    pub frame_slots: u32,
}

/// A compiled function.
#[derive(Debug, Clone)]
pub struct CompiledCode {
    /// The code of the first instruction (where a frame the interpreter's entry set up goes on).
    pub entry: u64,
    /// The function's prologue, before the first instruction (its `bytecode_offset` is 0): the
    /// entry callers jump to, which sets up the frame itself. `None` for a function compiled
    /// without one (variable arguments), which is entered through the AOT entry.
    pub prologue: Option<CompiledInstruction>,
    pub code_size: usize,
    /// Where the SlowPathData records start (after the code), and their total size: one per
    /// piece whose stencil has AOT slow paths, in the order of the pieces.
    pub slow_path_data: u64,
    pub slow_path_data_size: usize,
    /// Sorted by bytecode offset (and by address).
    pub instructions: Vec<CompiledInstruction>,
    /// The code block it was compiled for ([`HoleValue::CodeBlock`]).
    pub code_block: u64,
}

impl CompiledCode {
    /// The instruction that starts at `bytecode_offset`, if one does.
    pub fn instruction_at(&self, bytecode_offset: usize) -> Option<&CompiledInstruction> {
        let i = self.instructions.binary_search_by_key(&bytecode_offset, |x| x.bytecode_offset as usize).ok()?;
        Some(&self.instructions[i])
    }

    /// The code of the instruction at `bytecode_offset` (OSR entry), if one starts there.
    pub fn code_at(&self, bytecode_offset: usize) -> Option<u64> {
        self.instruction_at(bytecode_offset).map(|i| i.address)
    }

    /// Where the code starts (the prologue, or the first instruction).
    pub fn start(&self) -> u64 {
        self.prologue.map_or(self.entry, |p| p.address)
    }

    /// The function's allocation in the code cache: its code, then its SlowPathData records.
    pub fn allocation(&self) -> (u64, usize) {
        let start = self.start();
        (start, (self.slow_path_data + self.slow_path_data_size as u64 - start) as usize)
    }

    /// The address a call enters the function at, when it has its own prologue.
    pub fn function_entry(&self) -> Option<u64> {
        self.prologue.map(|p| p.address)
    }
}

/// What a hole of `kind` refers to for external `k`: a jump stub in reach for a `rel32` hole,
/// the external itself otherwise.
fn external_address(externals: &[u64], near: &[u64], k: u16, kind: HoleKind) -> u64 {
    if kind == HoleKind::PcRel32 {
        near[k as usize]
    } else {
        externals[k as usize]
    }
}

/// Bytes of a jump stub ([`write_jump_stub`]).
pub(crate) const JUMP_STUB: usize = 16;

/// Writes a jump stub to `target` into `stub` ([`JUMP_STUB`] bytes): `jmp *0(%rip)`, the
/// address, two traps. What a `rel32` jump or call names for a target beyond its reach.
pub(crate) fn write_jump_stub(stub: &mut [u8], target: u64) {
    stub[..6].copy_from_slice(&[0xff, 0x25, 0, 0, 0, 0]);
    stub[6..14].copy_from_slice(&target.to_le_bytes());
    stub[14..JUMP_STUB].copy_from_slice(&[0xcc, 0xcc]);
}

/// A jump stub for each external beyond `rel32` reach of the cache; returns what a `rel32`
/// reference to each external should name.
fn place_jump_stubs(cache: &mut CodeCache, externals: &[u64]) -> Result<Vec<u64>, JitError> {
    const STUB: usize = JUMP_STUB;
    let far: Vec<usize> = (0..externals.len()).filter(|&k| !cache.reachable_from(externals[k])).collect();
    let mut near = externals.to_vec();
    if far.is_empty() {
        return Ok(near);
    }
    let (base, ()) = cache.emit(STUB * far.len(), STUB, |buf, _| {
        for (j, &k) in far.iter().enumerate() {
            write_jump_stub(&mut buf[STUB * j..STUB * (j + 1)], externals[k]);
        }
    })?;
    for (j, &k) in far.iter().enumerate() {
        near[k] = base + (STUB * j) as u64;
    }
    Ok(near)
}

/// Each variant's generated emitter, where it was generated for the template the variant has
/// at run time (the same fingerprint); the others compile through the general path.
fn generated_emitters(tables: &StencilTables, templates: &[Result<Template, String>]) -> Vec<Option<EmitFn>> {
    templates
        .iter()
        .enumerate()
        .map(|(opcode, t)| {
            let t = t.as_ref().ok()?;
            let generated = tables.emitters.get(opcode).copied().flatten()?;
            if generated.fingerprint != crate::emit::fingerprint(t) {
                tracing::warn!(
                    variant = tables.variants[opcode].name,
                    "a generated emitter was made for another template; the general path compiles the variant"
                );
                return None;
            }
            Some(generated.emit)
        })
        .collect()
}

/// Asks for the cache line at `at` of the buffer `out` points into (a hint: any address is
/// safe, none is dereferenced).
#[inline(always)]
fn prefetch(out: *const u8, at: usize) {
    // SAFETY: a prefetch does not fault, whatever the address.
    unsafe { std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(out.wrapping_add(at).cast()) }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `ud2`: where a function's code ends, so that falling off its last instruction traps.
const TRAP: [u8; 2] = [0x0f, 0x0b];

/// The baseline JIT of one language, with its code cache.
pub struct BaselineJit {
    pub(crate) tables: &'static StencilTables,
    pub(crate) cache: CodeCache,
    /// Address of each stencil's read-only data (0 when it has none).
    pub(crate) data: Vec<u64>,
    /// Address of each helper ([`StencilTables::shared`] order).
    pub(crate) shared: Vec<u64>,
    pub(crate) externals: Vec<u64>,
    /// What a `rel32` call or jump to each external reaches: the external itself, or, when it
    /// lies beyond `rel32` reach of the cache (a shared library's function, such as `pow`), a
    /// jump stub in the cache.
    pub(crate) near_externals: Vec<u64>,
    /// Per opcode, what an instruction's compilation copies and patches, or why the variant
    /// cannot be compiled ([`crate::template`]).
    templates: Vec<Result<Template, String>>,
    /// Per opcode, the variant's generated emitter, when it has one made for its template
    /// ([`crate::emit`]); `None`: the general path.
    emitters: Vec<Option<EmitFn>>,
    /// Per opcode, what pass 1 of the compile loop needs, in one small record
    /// ([`OpLayout`]).
    layouts: Vec<OpLayout>,
    /// The prologue's template, when the tables have a prologue.
    prologue: Option<Result<Template, String>>,
    /// Per opcode and kind, what an inline-cache stub copies and patches
    /// ([`crate::stub_template`]).
    pub(crate) stub_templates: Vec<Vec<Result<crate::stub_template::StubTemplate, String>>>,
    /// The instructions with a fused inline cache, by their address (the key the generic
    /// code's fill reports them by).
    pub(crate) ic_sites: crate::ic::IcSites,
    /// Where stubs' hot parts go, and their cold parts and SlowPathData records.
    pub(crate) stub_hot: crate::ic::StubArena,
    pub(crate) stub_cold: crate::ic::StubArena,
    /// Megamorphic sites, found by their instruction's address without the site lookup.
    pub(crate) megamorphic_filter: crate::ic::MegamorphicFilter,
    /// The call stubs, by the code block they call.
    pub(crate) call_stubs: crate::ic::CallStubs,
    pub stats: JitStats,
}

impl std::fmt::Debug for BaselineJit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BaselineJit").field("cache", &self.cache).field("stats", &self.stats).finish()
    }
}

impl BaselineJit {
    /// A JIT with a code cache of `cache_limit` bytes within `rel32` reach of the program's code,
    /// with the helpers and the stencils' data placed.
    pub fn new(tables: &'static StencilTables, cache_limit: usize) -> Result<Self, JitError> {
        Self::with_mapping(tables, cache_limit, Mapping::Dual)
    }

    /// [`BaselineJit::new`] with the code cache mapped as `mapping` says
    /// ([`Mapping::Anonymous`] for profilers).
    pub fn with_mapping(tables: &'static StencilTables, cache_limit: usize, mapping: Mapping) -> Result<Self, JitError> {
        let near = patch_hole as *const () as u64;
        let mut cache = CodeCache::with_mapping(cache_limit, Some(near), mapping)?;
        let externals: Vec<u64> = tables.externals.iter().map(|(_, f)| *f as *const () as u64).collect();
        let near_externals = place_jump_stubs(&mut cache, &externals)?;
        let mut data = vec![0u64; tables.stencils.len()];
        for (i, s) in tables.stencils.iter().enumerate() {
            if !s.data.is_empty() {
                let (address, ()) = cache.emit_data(s.data.len(), s.data_align.max(1) as usize, |buf, _| buf.copy_from_slice(s.data))?;
                data[i] = address;
            }
        }
        let mut jit = BaselineJit {
            tables,
            cache,
            data,
            shared: Vec::new(),
            externals,
            near_externals,
            templates: Vec::new(),
            emitters: Vec::new(),
            layouts: Vec::new(),
            prologue: None,
            stub_templates: Vec::new(),
            ic_sites: Default::default(),
            stub_hot: Default::default(),
            stub_cold: Default::default(),
            megamorphic_filter: Default::default(),
            call_stubs: Default::default(),
            stats: JitStats::default(),
        };
        jit.place_shared()?;
        let placed = Placed { data: &jit.data, shared: &jit.shared, externals: &jit.externals, near_externals: &jit.near_externals };
        jit.templates = template::build_all(tables, &placed);
        jit.emitters = generated_emitters(tables, &jit.templates);
        jit.layouts = tables.variants.iter().zip(&jit.templates).map(|(v, t)| OpLayout::of(v, t)).collect();
        jit.prologue = template::build_prologue(tables, &placed);
        jit.stub_templates = crate::stub_template::build_all(tables, &placed);
        Ok(jit)
    }

    /// Whether instructions are compiled by their variants' generated emitters (the default)
    /// or all by the general path (for comparing the two: both write the same bytes).
    pub fn use_generated_emitters(&mut self, on: bool) {
        self.emitters = if on { generated_emitters(self.tables, &self.templates) } else { vec![None; self.templates.len()] };
    }

    /// How many variants compile through a generated emitter.
    pub fn generated_emitter_count(&self) -> usize {
        self.emitters.iter().filter(|e| e.is_some()).count()
    }

    /// The variants that have a template but no generated emitter for it (their instructions
    /// compile through the general path): none when the generator and the JIT agree.
    pub fn variants_without_generated_emitter(&self) -> Vec<&'static str> {
        let with_template = self.templates.iter().enumerate().filter(|(_, t)| t.is_ok());
        with_template.filter(|&(op, _)| self.emitters[op].is_none()).map(|(op, _)| self.tables.variants[op].name).collect()
    }

    /// For tests: writes each instruction of `bytecode` twice into scratch buffers at the same
    /// made-up addresses (in the code cache's range, so that helpers are in reach), through its
    /// variant's generated emitter and through the general path, and compares the bytes (or
    /// that both fail). Returns how many instructions were compared, or the first difference.
    pub fn check_generated_emitters(&self, bytecode: &[u8]) -> Result<usize, String> {
        let base = self.cache.base() + 0x1000;
        let pc_base = bytecode.as_ptr() as u64;
        let mut compared = 0;
        let mut offset = 0;
        while offset < bytecode.len() {
            let opcode = read_field(bytecode, offset, 2, false).ok_or("truncated opcode")? as usize;
            let v = self.tables.variants.get(opcode).ok_or("unknown opcode")?;
            if v.length < 2 || offset + v.length as usize > bytecode.len() {
                return Err(format!("a truncated {} at {offset}", v.name));
            }
            let (Some(Ok(t)), Some(Some(emit))) = (self.templates.get(opcode), self.emitters.get(opcode)) else {
                offset += v.length as usize;
                continue;
            };
            let pos = [0, t.in_line.len(), t.in_line.len() + t.cold.len()];
            let len = pos[2] + t.records as usize;
            let write = |generated: bool| -> (Vec<u8>, bool) {
                let mut buf = vec![0u8; len];
                let e = EmitTarget {
                    out: buf.as_mut_ptr(),
                    len,
                    base,
                    pos,
                    bases: [
                        0,
                        pc_base + offset as u64,
                        base + 0x40_0000,
                        base + 0x80_0000,
                        base,
                        base + pos[1] as u64,
                        base + pos[2] as u64,
                        0x1234_5678,
                    ],
                    bytecode,
                    offset,
                    num_params: 0,
                    frame_size: 0,
                };
                // SAFETY: `buf` holds the instruction's areas at `pos`, the instruction lies in
                // `bytecode` (checked above), and `emit` was made for `t`.
                let ok = if generated {
                    unsafe { emit(&e, t) }
                } else {
                    buf[..t.in_line.len()].copy_from_slice(&t.in_line);
                    buf[pos[1]..pos[2]].copy_from_slice(&t.cold);
                    unsafe { write_fills(&e, t) }.is_ok()
                };
                (buf, ok)
            };
            let (generated, general) = (write(true), write(false));
            if generated != general {
                let at = generated.0.iter().zip(&general.0).position(|(a, b)| a != b);
                return Err(format!(
                    "{} at {offset}: the generated emitter wrote {} (ok: {}), the general path {} (ok: {}); first difference at byte {at:?}",
                    v.name,
                    hex(&generated.0),
                    generated.1,
                    hex(&general.0),
                    general.1
                ));
            }
            compared += 1;
            offset += v.length as usize;
        }
        Ok(compared)
    }

    /// Overwrites bytes of emitted code or SlowPathData at `address` (through the cache's
    /// write view): for inline-cache patching, and for the checker's planted-fault tests.
    pub fn patch(&mut self, address: u64, bytes: &[u8]) -> Result<(), JitError> {
        Ok(self.cache.patch(address, bytes)?)
    }

    /// The code cache (for its bounds and use).
    pub fn cache(&self) -> &CodeCache {
        &self.cache
    }

    /// The tables the JIT compiles with.
    pub fn tables(&self) -> &'static StencilTables {
        self.tables
    }

    /// The helpers placed once in the cache (the AOT slow paths among them): address, size in
    /// bytes and name of each, for profilers' symbol maps (`ljr --perf-map`).
    pub fn helpers(&self) -> impl Iterator<Item = (u64, usize, &'static str)> + '_ {
        self.tables.shared.iter().zip(&self.shared).map(|(&id, &address)| {
            let s = &self.tables.stencils[id as usize];
            (address, s.code.len(), s.name)
        })
    }

    fn place_shared(&mut self) -> Result<(), JitError> {
        let tables = self.tables;
        let mut offsets = Vec::with_capacity(tables.shared.len());
        let mut size = 0usize;
        for &id in tables.shared {
            size = size.next_multiple_of(16);
            offsets.push(size);
            size += tables.stencils[id as usize].code.len();
        }
        if size == 0 {
            return Ok(());
        }
        let (base, result) = self.cache.emit(size, 16, |buf, base| -> Result<(), JitError> {
            let shared: Vec<u64> = offsets.iter().map(|o| base + *o as u64).collect();
            for (k, &id) in tables.shared.iter().enumerate() {
                let s = &tables.stencils[id as usize];
                let out = &mut buf[offsets[k]..offsets[k] + s.code.len()];
                out.copy_from_slice(s.code);
                for h in s.holes {
                    let value = match h.value {
                        HoleValue::Data => self.data[id as usize],
                        HoleValue::Shared(j) => shared[j as usize],
                        HoleValue::External(j) => external_address(&self.externals, &self.near_externals, j, h.kind),
                        other => return Err(JitError::Bytecode { offset: 0, problem: format!("helper {} has a {other:?} hole", s.name) }),
                    };
                    patch_hole(out, h.offset as usize, h.kind, h.addend, value, shared[k]).map_err(|e| e.in_stencil(s.name))?;
                }
            }
            Ok(())
        })?;
        result?;
        self.shared = offsets.iter().map(|o| base + *o as u64).collect();
        Ok(())
    }

    /// Compiles the function whose bytecode is `bytecode` (which must stay where it is while
    /// the code lives: the code holds addresses into it) and whose code block is at
    /// `code_block` (what its return continuations restore the code-block register to).
    pub fn compile(&mut self, bytecode: &[u8], code_block: u64, shape: Option<FunctionShape>) -> Result<CompiledCode, JitError> {
        let start = std::time::Instant::now();
        let populating = self.cache.populate_seconds();
        let result = self.compile_inner(bytecode, code_block, shape);
        match &result {
            Ok(code) => {
                self.stats.functions += 1;
                self.stats.bytecodes += code.instructions.len() as u64;
                self.stats.code_bytes += code.code_size as u64;
                let in_line = code.instructions.last().map_or(0, |l| l.address + u64::from(l.size) - code.start());
                self.stats.cold_code_bytes += code.code_size as u64 - in_line;
                self.stats.slow_path_data_bytes += code.slow_path_data_size as u64;
            }
            Err(_) => self.stats.failures += 1,
        }
        self.stats.compile_seconds += start.elapsed().as_secs_f64();
        self.stats.memory_seconds += self.cache.populate_seconds() - populating;
        self.stats.background_memory_seconds = self.cache.background_populate_seconds();
        result
    }

    fn compile_inner(&mut self, bytecode: &[u8], code_block: u64, shape: Option<FunctionShape>) -> Result<CompiledCode, JitError> {
        let tables = self.tables;
        let (templates, prologue_template, emitters) = (&self.templates, &self.prologue, &self.emitters);
        // The prologue first: the function's entry, falling through to its first instruction.
        let prologue = match (shape, prologue_template) {
            (Some(shape), Some(Ok(t))) => Some((shape, t)),
            (Some(_), Some(Err(problem))) => return Err(JitError::Bytecode { offset: 0, problem: format!("no prologue: {problem}") }),
            _ => None,
        };
        let (size, cold_size) = prologue.map_or((0, 0), |(_, t)| (t.in_line.len(), t.cold.len()));
        let Plan { planned, size, cold_size, records_size } = plan_function(tables, &self.templates, &self.layouts, bytecode, size, cold_size)?;
        // The cold area follows the trap that ends the in-line code; the SlowPathData records
        // follow the code, in the same allocation (the stencils address them RIP-relative).
        let cold_start = size + TRAP.len();
        let code_size = cold_start + cold_size;
        let records_start = code_size.next_multiple_of(8);
        // Every `rel32` within the allocation then fits, addend and all (`write_fills`).
        if records_start + records_size > MAX_FUNCTION_BYTES {
            return Err(JitError::Bytecode {
                offset: 0,
                problem: format!("{} bytes of code and records is more than a function may take", records_start + records_size),
            });
        }

        // Pass 2: copy and patch.
        let pc_base = bytecode.as_ptr() as u64;
        let mut sites = Vec::new();
        let (base, result) = self.cache.emit(records_start + records_size, 16, |buf, base| -> Result<Vec<CompiledInstruction>, JitError> {
            if let Some((shape, t)) = prologue {
                buf[..t.in_line.len()].copy_from_slice(&t.in_line);
                buf[cold_start..cold_start + t.cold.len()].copy_from_slice(&t.cold);
                let e = EmitTarget {
                    out: buf.as_mut_ptr(),
                    len: buf.len(),
                    base,
                    pos: [0, cold_start, records_start],
                    bases: [0, 0, base + t.in_line.len() as u64, 0, base, base + cold_start as u64, base + records_start as u64, code_block],
                    bytecode,
                    offset: 0,
                    num_params: u64::from(shape.num_params),
                    frame_size: u64::from(shape.frame_slots) * 8,
                };
                // SAFETY: pass 1 sized `buf` for the prologue's areas at `e.pos`.
                unsafe { write_fills(&e, t) }.map_err(|e| match e {
                    JitError::Patch(e) => JitError::from(e.in_stencil(deegen_api::runtime_constants::FUNCTION_ENTRY_STENCIL)),
                    e => e,
                })?;
            }
            let compiled = emit_instructions(
                &EmitPlan { templates, emitters, tables, planned: &planned, bytecode, pc_base, base, cold_start, records_start, code_block },
                buf,
                &mut sites,
            )?;
            buf[size..size + TRAP.len()].copy_from_slice(&TRAP);
            Ok(compiled)
        })?;
        let instructions = result?;
        let prologue = prologue.map(|(_, t)| CompiledInstruction {
            bytecode_offset: 0,
            opcode: u16::MAX,
            address: base,
            size: t.in_line.len() as u32,
            cold_address: if t.cold.is_empty() { 0 } else { base + cold_start as u64 },
            cold_size: t.cold.len() as u32,
        });
        // (A call cache is warm when it holds a callee: a code block.)
        let warm: Vec<(u64, u8)> = sites
            .iter()
            .filter_map(|(pc, site)| {
                let ic = tables.variants[site.opcode as usize].ic?;
                if ic.call {
                    let at = (*pc - pc_base) as usize + ic.cache_offset as usize + 8;
                    return (read_field(bytecode, at, 8, false)? != 0).then_some((*pc, 0));
                }
                Some((*pc, ic.kind?))
            })
            .collect();
        // (A function compiled at the address of a freed one's bytecode replaces its sites.)
        self.ic_sites.add_function(pc_base, pc_base + bytecode.len() as u64, sites);
        // (As the sites of a function whose bytecode was here: none of its sites are this one's.)
        self.megamorphic_filter.remove_range(pc_base, pc_base + bytecode.len() as u64);
        // Caches the interpreter filled (their instructions quickened) get their first stub
        // now: in JIT code a hit of the cache in the bytecode would not make one.
        for (pc, kind) in warm {
            // SAFETY: the instruction is in `bytecode`, alive during the compilation.
            if let Err(e) = unsafe { self.add_ic_stub(pc, u32::from(kind)) } {
                tracing::debug!(error = %e, "no inline-cache stub for a warm cache");
            }
        }
        tracing::debug!(
            bytecodes = instructions.len(),
            code_bytes = code_size,
            address = format_args!("{base:#x}"),
            "baseline JIT compiled a function"
        );
        Ok(CompiledCode {
            entry: instructions.first().map_or(base, |i| i.address),
            prologue,
            code_size,
            slow_path_data: base + records_start as u64,
            slow_path_data_size: records_size,
            instructions,
            code_block,
        })
    }
}

/// Pass 1's result: every instruction's places, and the sizes of the three areas.
struct Plan {
    planned: Vec<Planned>,
    size: usize,
    cold_size: usize,
    records_size: usize,
}

/// Pass 1: the instructions of `bytecode` and where each one's code, cold code and records go,
/// after `size` bytes of in-line code and `cold_size` of cold code (the prologue's). Its own
/// function (as pass 2's loop is): inside `compile_inner`, the loop shared registers with
/// everything live across both passes and kept its counters on the stack.
#[inline(never)]
fn plan_function(
    tables: &'static StencilTables,
    templates: &[Result<Template, String>],
    layouts: &[OpLayout],
    bytecode: &[u8],
    mut size: usize,
    mut cold_size: usize,
) -> Result<Plan, JitError> {
    let mut records_size = 0usize;
    // A function compiled at its first call (`--tier=baseline`) has bytecode the front end
    // wrote long ago: the pass's sequential reads missed line after line (a quarter of the
    // pass's time on a 3,000-function file). Ask for every line at once.
    for at in (0..bytecode.len()).step_by(64) {
        prefetch(bytecode.as_ptr(), at);
    }
    // (Sized up front: growing the vector was a tenth of the compile time.)
    let mut planned: Vec<Planned> = Vec::with_capacity(bytecode.len() / 4);
    let mut offset = 0;
    while offset < bytecode.len() {
        let Some(&[lo, hi]) = bytecode.get(offset..offset + 2) else {
            return Err(JitError::Bytecode { offset, problem: "truncated opcode".into() });
        };
        let opcode = usize::from(u16::from_le_bytes([lo, hi]));
        let Some(layout) = layouts.get(opcode) else {
            return Err(JitError::Bytecode { offset, problem: format!("unknown opcode {opcode}") });
        };
        let length = layout.length as usize;
        if !layout.compilable || offset + length > bytecode.len() {
            return Err(uncompilable(tables, &templates[opcode], opcode, offset, bytecode.len()));
        }
        let slab = if layout.may_have_slab { inline_slab(tables, &tables.variants[opcode], bytecode, offset, layout.in_line as usize) } else { 0 };
        planned.push(Planned {
            offset: offset as u32,
            opcode: opcode as u16,
            in_line: size as u32,
            slab,
            cold: cold_size as u32,
            record: records_size as u32,
        });
        size += if slab > 0 { slab as usize } else { layout.in_line as usize };
        cold_size += layout.cold as usize;
        records_size += layout.records as usize;
        offset += length;
        // (Positions are `u32`s: a function past 1 GiB fails in `compile_inner`, long before
        // they wrap.)
        if size + cold_size + records_size > MAX_FUNCTION_BYTES {
            break;
        }
    }
    Ok(Plan { planned, size, cold_size, records_size })
}

/// What pass 2 reads: the JIT's tables, pass 1's plan and where the function's code goes.
struct EmitPlan<'a> {
    templates: &'a [Result<Template, String>],
    emitters: &'a [Option<EmitFn>],
    tables: &'static StencilTables,
    planned: &'a [Planned],
    bytecode: &'a [u8],
    pc_base: u64,
    base: u64,
    cold_start: usize,
    records_start: usize,
    code_block: u64,
}

/// Pass 2's loop: copies and patches every planned instruction into `buf` (mapped at
/// `p.base`), records the inline-cache sites in `sites`, and returns the instructions' code.
#[inline(never)]
fn emit_instructions(p: &EmitPlan<'_>, buf: &mut [u8], sites: &mut Vec<(u64, IcSite)>) -> Result<Vec<CompiledInstruction>, JitError> {
    let EmitPlan { templates, emitters, tables, planned, bytecode, pc_base, base, cold_start, records_start, code_block } = *p;
    let mut compiled = Vec::with_capacity(planned.len());
    // (One target for the whole loop: each instruction changes its places and bases.)
    let mut e = EmitTarget {
        out: buf.as_mut_ptr(),
        len: buf.len(),
        base,
        pos: [0; 3],
        bases: [0, 0, 0, 0, 0, 0, 0, code_block],
        bytecode,
        offset: 0,
        num_params: 0,
        frame_size: 0,
    };
    for ins in planned {
        // (Pass 1 checked that the variant has a template.)
        let Ok(t) = &templates[ins.opcode as usize] else {
            return Err(JitError::Bytecode { offset: ins.offset as usize, problem: "no template".into() });
        };
        let offset = ins.offset as usize;
        // Where each [`Area`] of this instruction starts in `buf`.
        let pos = [ins.in_line as usize, cold_start + ins.cold as usize, records_start + ins.record as usize];
        // The function's buffer is fresh memory: each new line of code and of records
        // is a miss, which stalled the emitters' first stores to the records (about a
        // sixth of the loop's time on a 3,000-function file). Ask for the lines a few
        // instructions ahead in each of the three streams.
        prefetch(buf.as_ptr(), pos[0] + 512);
        prefetch(buf.as_ptr(), pos[1] + 256);
        prefetch(buf.as_ptr(), pos[2] + 256);
        let emitter = emitters[ins.opcode as usize];
        if emitter.is_none() {
            buf[pos[0]..pos[0] + t.in_line.len()].copy_from_slice(&t.in_line);
            if !t.cold.is_empty() {
                buf[pos[1]..pos[1] + t.cold.len()].copy_from_slice(&t.cold);
            }
        }
        let in_line_len = if ins.slab > 0 { ins.slab as usize } else { t.in_line.len() };
        if ins.slab > 0 {
            // A slab holds the IC entry (a jump to the generic code) until its stub
            // fills it.
            buf[pos[0] + t.in_line.len()..pos[0] + in_line_len].fill(0xcc);
        }
        let pc = pc_base + offset as u64;
        let next = base + (pos[0] + in_line_len) as u64;
        let branch = match t.branch {
            None => 0,
            Some(at) => {
                let target = offset as i64 + read_field(bytecode, offset + at as usize, 4, true).unwrap_or(-1);
                match planned.binary_search_by_key(&target, |x| i64::from(x.offset)) {
                    Ok(k) => base + u64::from(planned[k].in_line),
                    Err(_) => return Err(not_an_instruction(offset, target)),
                }
            }
        };
        // (The buffer's pointer is taken again after the slice writes above.)
        e.out = buf.as_mut_ptr();
        e.pos = pos;
        e.offset = offset;
        e.bases[1..7].copy_from_slice(&[pc, next, branch, base + pos[0] as u64, base + pos[1] as u64, base + pos[2] as u64]);
        // SAFETY: pass 1 sized `buf` for the instruction's areas at `pos` and checked
        // its length; an emitter is used only for the template it was generated for.
        let written = match emitter {
            Some(emit) if unsafe { emit(&e, t) } => Ok(()),
            // (A generated emitter that fails says only that: the general path, which
            // fails the same way, says why.)
            Some(_) => unsafe { write_fills(&e, t) }.and(Err(JitError::Bytecode { offset, problem: "a generated emitter failed".into() })),
            None => unsafe { write_fills(&e, t) },
        };
        written.map_err(|e| match e {
            JitError::Patch(e) => JitError::from(e.in_stencil(tables.variants[ins.opcode as usize].name)),
            e => e,
        })?;
        if let Some(at) = t.ic_entry {
            let entry = base + (pos[0] + at as usize) as u64;
            // The chain is empty: the entry jumps to the generic code, piece 0.
            let call = tables.variants[ins.opcode as usize].ic.is_some_and(|ic| ic.call);
            // (A call cache's slab is its entry's reserve.)
            let call_slab = if call { t.ic_entry_reserve } else { 0 };
            let generic = base + pos[1] as u64;
            sites.push((
                pc,
                IcSite {
                    opcode: ins.opcode,
                    entry,
                    cold: generic,
                    closure: false,
                    next,
                    branch,
                    head: generic,
                    stubs: Vec::new(),
                    megamorphic: false,
                    megamorphic_copy: None,
                    slab: if call { call_slab } else { ins.slab },
                },
            ));
        }
        compiled.push(CompiledInstruction {
            bytecode_offset: ins.offset,
            opcode: ins.opcode,
            address: base + pos[0] as u64,
            size: in_line_len as u32,
            cold_address: if t.cold.is_empty() { 0 } else { base + pos[1] as u64 },
            cold_size: t.cold.len() as u32,
        });
    }
    Ok(compiled)
}

/// The most bytes of code and records one compiled function may take: a `rel32` between two
/// places of it then fits with any stencil's addend, so `write_fills` need not check.
const MAX_FUNCTION_BYTES: usize = 1 << 30;

/// One instruction of the function being compiled, after pass 1: where its in-line code, its
/// out-of-line code (from the cold area's start) and its SlowPathData records (from the
/// records' start) go. Small: pass 2 reads it back for every instruction.
struct Planned {
    offset: u32,
    opcode: u16,
    in_line: u32,
    /// Its inline slab's size (0: none).
    slab: u32,
    cold: u32,
    record: u32,
}

/// What pass 1 needs of an opcode: its length and its template's sizes, without reaching into
/// the variant's record or the template.
#[derive(Debug, Clone, Copy)]
struct OpLayout {
    length: u32,
    in_line: u32,
    cold: u32,
    records: u32,
    /// It has a template and a length of at least its opcode's.
    compilable: bool,
    /// A fused inline cache whose warm entry may get a stub in line ([`inline_slab`]).
    may_have_slab: bool,
}

impl OpLayout {
    fn of(v: &VariantRecord, t: &Result<Template, String>) -> OpLayout {
        let may_have_slab = v.ic.is_some_and(|ic| ic.kind.is_some());
        match t {
            Ok(t) => OpLayout {
                length: v.length,
                in_line: t.in_line.len() as u32,
                cold: t.cold.len() as u32,
                records: t.records,
                compilable: v.length >= 2,
                may_have_slab,
            },
            Err(_) => OpLayout { length: v.length, in_line: 0, cold: 0, records: 0, compilable: false, may_have_slab },
        }
    }
}

/// Why the instruction of `opcode` at `offset` (of `len` bytes of bytecode) cannot be compiled.
#[cold]
#[inline(never)]
fn uncompilable(tables: &StencilTables, template: &Result<Template, String>, opcode: usize, offset: usize, len: usize) -> JitError {
    let v = &tables.variants[opcode];
    let length = v.length as usize;
    let problem = if length < 2 {
        format!("{} has a length of {length} bytes, shorter than its opcode", v.name)
    } else if offset + length > len {
        format!("{} ({length} bytes) runs past the bytecode's end", v.name)
    } else {
        match template {
            Err(problem) => problem.clone(),
            Ok(_) => format!("{} cannot be compiled", v.name),
        }
    };
    JitError::Bytecode { offset, problem }
}

// The compile loop's errors, built out of line.
#[cold]
#[inline(never)]
fn not_an_instruction(offset: usize, target: i64) -> JitError {
    JitError::Bytecode { offset, problem: format!("branch to {target}, which is not an instruction") }
}

#[cold]
#[inline(never)]
pub(crate) fn rel32_out_of_range(offset: usize, rel: i64) -> JitError {
    JitError::Bytecode { offset, problem: format!("a rel32 hole cannot reach {rel:+#x} bytes away") }
}

#[cold]
#[inline(never)]
pub(crate) fn truncated(offset: usize) -> JitError {
    JitError::Bytecode { offset, problem: "an operand runs past the bytecode's end".into() }
}

impl BaselineJit {
    /// Which return continuation of the compiled instruction `ins` starts at `address` (its
    /// index in the variant's continuations), if any: a frame whose return address is JIT code
    /// names the instruction and, through this, the continuation.
    pub fn continuation_index(&self, ins: &CompiledInstruction, address: u64) -> Option<usize> {
        let v = self.tables.variants.get(ins.opcode as usize)?;
        piece_addresses(self.tables, v, ins).into_iter().skip(1).take(v.continuations.len()).position(|a| a == address)
    }
}

/// Where a piece of an instruction goes.
#[derive(Debug, Clone, Copy)]
pub struct PiecePlan {
    pub stencil: u16,
    /// Bytes copied (the stencil, maybe without its trailing `jmp <next>`).
    pub len: usize,
    /// In the function's cold area rather than in line.
    pub out_of_line: bool,
    /// For a stencil's cold part: the piece it belongs to (whose SlowPathData record it uses).
    pub owner: Option<usize>,
    /// For a stencil with a cold part: the piece that is.
    pub cold_part: Option<usize>,
    /// Placed first in line, before the pieces listed earlier (a call inline cache's entry,
    /// which the instruction's code starts with).
    pub leads: bool,
    /// Bytes the piece takes in its area, `len` or more: a call inline cache's entry reserves
    /// its inline slab (traps after the `jmp` until the site's first stub fills it).
    pub reserve: usize,
}

/// Where each of `plans` starts in its area (in line or out of line), in bytes from the
/// area's start for this instruction: in list order, but a leading piece first.
pub(crate) fn piece_offsets(plans: &[PiecePlan]) -> Vec<u32> {
    let lead: u32 = plans.iter().filter(|p| p.leads).map(|p| p.reserve as u32).sum();
    let (mut in_line, mut out_of_line) = (lead, 0u32);
    plans
        .iter()
        .map(|p| {
            if p.leads {
                return 0;
            }
            let at = if p.out_of_line { &mut out_of_line } else { &mut in_line };
            let start = *at;
            *at += p.reserve as u32;
            start
        })
        .collect()
}

/// An instruction's pieces, in order: the main stencil, then each return continuation, then
/// the cold part of each of those that has one.
///
/// When the main stencil ends with `jmp <next>`, its continuations (a metamethod's return
/// into Add, GetField...: rarely run) go out of line, so the main stencil is the last piece
/// in line and its jump is dropped: the fast path falls through into the next instruction.
/// Otherwise (a call, which leaves by an indirect jump anyway) they stay in line, and the last
/// one falls through instead. Out-of-line pieces keep their jumps. Cold parts are always out
/// of line.
///
/// A continuation that is a slow path from its first byte (a comparison's or an arithmetic
/// instruction's metamethod return: a `lea` of the record and a `jmp` to its AOT slow path)
/// goes out of line whatever the main stencil ends with: in line it sat between a conditional
/// jump's stencil and the next instruction's, 12 bytes each, never run on the fast path.
///
/// A continuation that never goes on to the next instruction or the branch target (it
/// returns from the function: a tail call's return from a native callee) goes out of line
/// too: it cannot fall through, and in line it sat between the instruction and the next, on
/// the fast path of neither (TailCall: 36 bytes).
///
/// An instruction with a fused inline cache has one piece in line, last in the list: its IC
/// entry (`jmp` to the chain of stubs, which ends at the main stencil); the main stencil, its
/// continuations and their cold parts are all out of line, keeping their jumps.
///
/// An instruction with a call inline cache keeps its continuations where they would be and
/// gets its IC entry in line too, last in the list but placed first ([`PiecePlan::leads`]),
/// with room for its first stub ([`PiecePlan::reserve`]); its main stencil, where the chain of
/// stubs ends, goes out of line (it runs only when the stubs miss).
pub fn plan_pieces(tables: &'static StencilTables, v: &'static VariantRecord) -> Vec<PiecePlan> {
    let main = &tables.stencils[v.main as usize];
    let call_ic_entry = v.ic.filter(|ic| ic.call).map(|ic| ic.entry);
    let ic_entry = v.ic.filter(|ic| !ic.call).map(|ic| ic.entry);
    let all_out_of_line = main.ends_with_jump_to_next && !v.continuations.is_empty();
    let count = 1 + v.continuations.len();
    let out_of_line = |j: usize| {
        ic_entry.is_some()
            // A call cache's generic code runs only when its stubs miss.
            || (j == 0 && call_ic_entry.is_some())
            || (j > 0 && {
                let continuation = &tables.stencils[v.continuations[j - 1] as usize];
                all_out_of_line || is_slow_path_jump(continuation) || leaves_the_function(continuation)
            })
    };
    // No piece falls through when the IC entry is the code in line.
    let last_in_line = if ic_entry.is_some() { usize::MAX } else { (0..count).rev().find(|&j| !out_of_line(j)).unwrap_or(0) };
    let mut pieces: Vec<PiecePlan> = std::iter::once(v.main)
        .chain(v.continuations.iter().copied())
        .enumerate()
        .map(|(j, id)| {
            let s = &tables.stencils[id as usize];
            let len = if j == last_in_line && s.ends_with_jump_to_next { s.code.len() - 5 } else { s.code.len() };
            PiecePlan { stencil: id, len, out_of_line: out_of_line(j), owner: None, cold_part: None, leads: false, reserve: len }
        })
        .collect();
    for j in 0..count {
        if let Some(cold) = tables.stencils[pieces[j].stencil as usize].cold_part {
            pieces[j].cold_part = Some(pieces.len());
            let len = tables.stencils[cold as usize].code.len();
            pieces.push(PiecePlan { stencil: cold, len, out_of_line: true, owner: Some(j), cold_part: None, leads: false, reserve: len });
        }
    }
    if let Some(entry) = ic_entry.or(call_ic_entry) {
        let len = tables.stencils[entry as usize].code.len();
        let reserve = if call_ic_entry.is_some() { call_ic_slab(tables, v).max(len) } else { len };
        pieces.push(PiecePlan { stencil: entry, len, out_of_line: false, owner: None, cold_part: None, leads: call_ic_entry.is_some(), reserve });
    }
    pieces
}

/// The inline slab of a call inline cache: room for either kind of stub (every call stub ends
/// in a jump, so a smaller one leaves traps behind it that nothing reaches), reserved at every
/// call instruction and filled by the site's first stub, whose hit then runs in line, with no
/// jump to a stub and none back. (Room for a direct stub only, 85 bytes instead of 104 for
/// `Call`, left a closure-mode site's stubs outlined: closures ran 4.6% more instructions,
/// its calls missing the newest stub first.) 0 when a stub is larger than [`MAX_INLINE_SLAB`].
fn call_ic_slab(tables: &'static StencilTables, v: &'static VariantRecord) -> usize {
    let Some(ic) = v.ic.filter(|ic| ic.call) else { return 0 };
    let len = ic.stubs.iter().map(|&s| inline_stub_len(&tables.stencils[s as usize])).max().unwrap_or(0);
    if len > MAX_INLINE_SLAB {
        0
    } else {
        len
    }
}

/// Whether stencil `s` never goes on to the next instruction or the branch target (nor to
/// another piece of its instruction, which might): it leaves by a return or an exit of its
/// own.
fn leaves_the_function(s: &StencilRecord) -> bool {
    !s.ends_with_jump_to_next && s.holes.iter().all(|h| !matches!(h.value, HoleValue::Next | HoleValue::Branch | HoleValue::Continuation(_)))
}

/// Whether stencil `s` is only a jump into its AOT slow path: the `lea` of its SlowPathData
/// record and a `jmp` to a helper, nothing else.
fn is_slow_path_jump(s: &StencilRecord) -> bool {
    s.code.len() <= 12
        && s.holes.len() == 2
        && s.holes.iter().any(|h| h.value == HoleValue::SlowPathData)
        && s.holes.iter().any(|h| matches!(h.value, HoleValue::Shared(_)))
}

/// The bytes a stub of stencil `s` takes in line (the paper's inline slab): all of it but a
/// trailing jump to the next instruction, which follows the slab.
pub(crate) fn inline_stub_len(s: &StencilRecord) -> usize {
    if s.ends_with_jump_to_next {
        s.code.len() - 5
    } else {
        s.code.len()
    }
}

/// The largest stub placed in line: every stub the Lua semantics make fits (they are 60 to 124
/// bytes).
const MAX_INLINE_SLAB: usize = 160;

/// The inline slab of the instruction at `offset` (0: none). A cache the interpreter filled
/// (its instruction quickened to the kind it holds) gets its first stub when the function is
/// compiled: the slab is exactly that stub's size, the stub fills it, and its hit runs in
/// line, with no jump to a stub and none back (4% on the paper's IC-heavy programs). Caches
/// still empty at compile time (every one under `--tier=baseline`) keep the 5-byte entry:
/// a slab reserved for a stub that may never come would cost its bytes in every copy.
fn inline_slab(tables: &'static StencilTables, v: &'static VariantRecord, bytecode: &[u8], offset: usize, in_line: usize) -> u32 {
    let Some(ic) = v.ic else { return 0 };
    let Some(kind) = ic.kind else { return 0 };
    let Some(key) = read_field(bytecode, offset + ic.cache_offset as usize, 4, false) else { return 0 };
    let key = key as u32;
    if key == deegen_api::ic::IMPOSSIBLE_KEY || key == deegen_api::ic::UNCACHEABLE_KEY {
        return 0;
    }
    let Some(&stub) = ic.stubs.get(kind as usize) else { return 0 };
    let len = inline_stub_len(&tables.stencils[stub as usize]);
    if len < in_line || len > MAX_INLINE_SLAB {
        return 0;
    }
    len as u32
}

/// The address of each piece of the compiled instruction `ins` ([`plan_pieces`] order).
pub(crate) fn piece_addresses(tables: &'static StencilTables, v: &'static VariantRecord, ins: &CompiledInstruction) -> Vec<u64> {
    let plans = plan_pieces(tables, v);
    plans.iter().zip(piece_offsets(&plans)).map(|(p, at)| if p.out_of_line { ins.cold_address } else { ins.address } + u64::from(at)).collect()
}

/// The value of an instruction constant (its address, output slot or an operand) of the
/// instruction at `offset` in `bytecode`, whose address is `pc`: the checker's own reading,
/// independent of the compile loop's.
pub(crate) fn instruction_constant(bytecode: &[u8], pc: u64, offset: usize, v: &VariantRecord, value: HoleValue) -> Result<u64, String> {
    match value {
        HoleValue::Pc => Ok(pc),
        HoleValue::Output => {
            let o = v.output_offset.ok_or_else(|| format!("{} has no output", v.name))?;
            Ok(8 * read_field(bytecode, offset + o as usize, 2, false).ok_or("truncated output")? as u64)
        }
        HoleValue::Operand(k) => {
            let op = v.operands.get(k as usize).ok_or_else(|| format!("{} has no operand {k}", v.name))?;
            let raw = read_field(bytecode, offset + op.offset as usize, op.width, op.signed)
                .ok_or_else(|| format!("operand {k} of {} is truncated", v.name))?;
            Ok(op.encoding.encode(raw, pc))
        }
        other => Err(format!("{other:?} is not an instruction constant")),
    }
}

/// The bytecode offset the branch of the instruction at `offset` goes to.
fn branch_target(bytecode: &[u8], offset: usize, v: &VariantRecord) -> Result<i64, String> {
    let o = v.branch_offset.ok_or_else(|| format!("{} does not branch", v.name))?;
    let d = read_field(bytecode, offset + o as usize, 4, true).ok_or("truncated branch")?;
    Ok(offset as i64 + d)
}

/// A `width`-byte little-endian field, sign- or zero-extended. Every hole of every compiled
/// instruction reads one: fixed-width loads, not a copy of `width` bytes (a `memcpy` call).
#[inline]
pub(crate) fn read_field(bytes: &[u8], at: usize, width: u8, signed: bool) -> Option<i64> {
    fn le<const N: usize>(bytes: &[u8], at: usize) -> Option<[u8; N]> {
        bytes.get(at..at.checked_add(N)?)?.try_into().ok()
    }
    Some(match (width, signed) {
        (0, _) => 0,
        (1, false) => i64::from(le::<1>(bytes, at)?[0]),
        (1, true) => i64::from(le::<1>(bytes, at)?[0] as i8),
        (2, false) => i64::from(u16::from_le_bytes(le(bytes, at)?)),
        (2, true) => i64::from(i16::from_le_bytes(le(bytes, at)?)),
        (4, false) => i64::from(u32::from_le_bytes(le(bytes, at)?)),
        (4, true) => i64::from(i32::from_le_bytes(le(bytes, at)?)),
        (8, _) => i64::from_le_bytes(le(bytes, at)?),
        _ => return read_odd_field(bytes, at, width, signed),
    })
}

/// [`read_field`] of a width other than 1, 2, 4 or 8 bytes.
#[cold]
fn read_odd_field(bytes: &[u8], at: usize, width: u8, signed: bool) -> Option<i64> {
    let w = width as usize;
    if w > 8 {
        return None;
    }
    let raw = bytes.get(at..at.checked_add(w)?)?;
    let mut v = [0u8; 8];
    v[..w].copy_from_slice(raw);
    let u = u64::from_le_bytes(v);
    Some(if signed && w < 8 {
        let shift = 64 - 8 * w as u32;
        ((u << shift) as i64) >> shift
    } else {
        u as i64
    })
}

/// The first `len` bytes of stencil `s` as emitted at `start`, and its holes within them,
/// once checked to be the stencil's bytes outside the holes and each hole exactly one
/// immediate, displacement or branch field: what the checker asks of every piece of compiled
/// code and of every inline-cache stub.
///
/// # Safety
/// `start .. start + len` is code the JIT emitted, still mapped.
pub(crate) unsafe fn check_emitted(s: &'static StencilRecord, len: usize, start: u64) -> Result<(&'static [u8], Vec<&'static HoleRecord>), String> {
    use deegen_stencil::{check_holes, Hole, HoleTarget, Stencil};
    // SAFETY: per the contract.
    let emitted = unsafe { std::slice::from_raw_parts(start as *const u8, len) };
    let holes: Vec<&HoleRecord> = s.holes.iter().filter(|h| (h.offset as usize) < len).collect();
    let mut covered = vec![false; len];
    for h in &holes {
        covered[h.offset as usize..h.offset as usize + h.kind.width()].iter_mut().for_each(|c| *c = true);
    }
    if let Some(k) = (0..len).find(|&k| !covered[k] && emitted[k] != s.code[k]) {
        return Err(format!("{} differs from its stencil at byte {k}", s.name));
    }
    let as_stencil = Stencil {
        name: s.name.to_owned(),
        code: s.code[..len].to_vec(),
        data: Vec::new(),
        data_align: 1,
        holes: holes
            .iter()
            .map(|h| Hole { offset: h.offset as usize, kind: h.kind, target: HoleTarget::Symbol(format!("{:?}", h.value)), addend: h.addend })
            .collect(),
    };
    check_holes(&as_stencil, emitted, start).map_err(|e| e.to_string())?;
    Ok((emitted, holes))
}

/// The value hole `h` of a piece emitted at `start` holds, read back from its bytes: for a
/// `rel32`, the address it reaches (`S + A - P`: the field plus its address minus the addend).
pub(crate) fn patched_value(emitted: &[u8], start: u64, h: &HoleRecord) -> u64 {
    let at = h.offset as usize;
    let four = || <[u8; 4]>::try_from(&emitted[at..at + 4]).expect("4 bytes");
    match h.kind {
        HoleKind::PcRel32 => (start as i64 + at as i64 + i64::from(i32::from_le_bytes(four())) - h.addend) as u64,
        HoleKind::Abs32 => (i64::from(u32::from_le_bytes(four())) - h.addend) as u64,
        HoleKind::Abs32Signed => (i64::from(i32::from_le_bytes(four())) - h.addend) as u64,
        HoleKind::Abs64 => u64::from_le_bytes(emitted[at..at + 8].try_into().expect("8 bytes")).wrapping_sub(h.addend as u64),
    }
}

/// Why [`BaselineJit::verify`] rejected compiled code.
#[derive(Debug, thiserror::Error)]
#[error("instruction at bytecode offset {offset} ({variant}): {problem}")]
pub struct VerifyError {
    pub offset: u32,
    pub variant: &'static str,
    pub problem: String,
}

impl BaselineJit {
    /// An inline-cache site against its instruction's entry and generic code: every stub
    /// checked ([`BaselineJit::verify_ic_stub`]), and the chain linked. Each outlined stub's
    /// miss goes to the one made before it, the first's to the generic code; a stub in the
    /// slab is the site's first, and its miss goes to the chain's head (the newest outlined
    /// stub, or the generic code).
    pub(crate) fn verify_ic_site(&self, site: &IcSite, entry: u64, generic: u64) -> Result<(), String> {
        if site.entry != entry || site.cold != generic {
            return Err(format!("its inline-cache site names the entry {:#x} and generic code {:#x}", site.entry, site.cold));
        }
        for stub in &site.stubs {
            self.verify_ic_stub(stub).map_err(|e| e.problem)?;
        }
        let (in_line, outlined) = match site.stubs.split_first() {
            Some((first, rest)) if first.in_line => (Some(first), rest),
            _ => (None, &site.stubs[..]),
        };
        if outlined.iter().any(|s| s.in_line) {
            return Err("a stub other than its first is in line".into());
        }
        // (A call stub may be smaller than its slab: it ends in a jump.)
        let call = self.tables.variants[site.opcode as usize].ic.is_some_and(|ic| ic.call);
        if let Some(first) = in_line {
            let fits = if call { first.code_size <= site.slab } else { first.code_size == site.slab };
            if first.address != entry || first.next_in_chain != site.head || !fits {
                return Err(format!(
                    "its stub in line at {:#x} ({} bytes, miss to {:#x}) is not its slab at {entry:#x} ({} bytes, head {:#x})",
                    first.address, first.code_size, first.next_in_chain, site.slab, site.head
                ));
            }
        }
        let linked = outlined.first().is_none_or(|s| s.next_in_chain == generic) && outlined.windows(2).all(|w| w[1].next_in_chain == w[0].address);
        if !linked {
            return Err("its chain of stubs is not linked from the newest to the generic code".into());
        }
        match site.megamorphic_copy {
            Some(copy) if site.megamorphic => self.verify_ic_stub(&copy).map_err(|e| e.problem)?,
            Some(copy) => return Err(format!("a copy of its generic code at {:#x} while it is not megamorphic", copy.address)),
            None => {}
        }
        Ok(())
    }

    /// The checker (regalloc2's `checker.rs` re-verifies an allocation; this re-verifies a
    /// copy-and-patch): decodes the code emitted for `bytecode` with `iced-x86` and checks that
    /// every piece is its stencil byte for byte outside the holes, that every hole is exactly
    /// one immediate, displacement or branch field, and that every jump to the next
    /// instruction, a branch target, a continuation or a SlowPathData record lands where the
    /// bytecode says, and that every record field holds what the AOT slow path expects, each
    /// computed again from the bytecode rather than taken from the compiler. An instruction
    /// with an inline cache must jump to its chain's head, and each stub is checked
    /// ([`BaselineJit::verify_ic_stub`]).
    pub fn verify(&self, bytecode: &[u8], code: &CompiledCode) -> Result<(), VerifyError> {
        let tables = self.tables;
        // The in-line code ends with the trap; the cold area follows it, each instruction's
        // out-of-line pieces after the previous one's, up to the code's end.
        let end = code.instructions.last().map_or(code.entry, |l| l.address + u64::from(l.size));
        // SAFETY: the trap is part of the emitted code.
        if unsafe { std::slice::from_raw_parts(end as *const u8, TRAP.len()) } != TRAP {
            return Err(VerifyError { offset: 0, variant: "-", problem: format!("no trap after the in-line code at {end:#x}") });
        }
        let mut next_cold = end + TRAP.len() as u64;
        let pc_base = bytecode.as_ptr() as u64;
        // The next piece's SlowPathData record (they are laid out in the pieces' order).
        let mut next_record = code.slow_path_data;
        // The prologue's constants, read from the code block it was compiled for.
        let shape = (code.prologue.is_some() && code.code_block != 0).then(|| {
            // SAFETY: the code block of a function whose code is checked is alive.
            let cb = unsafe { &*(code.code_block as *const deegen_api::CodeBlock) };
            (u64::from(cb.num_fixed_params), 8 * u64::from(cb.frame_slots))
        });
        // The prologue (index `None`), then every instruction.
        let pieces = code.prologue.iter().map(|p| (p, None)).chain(code.instructions.iter().enumerate().map(|(i, ins)| (ins, Some(i))));
        for (ins, index) in pieces {
            let v = match index {
                None => tables.function_entry.ok_or_else(|| VerifyError {
                    offset: 0,
                    variant: "-",
                    problem: "the code has a prologue and the tables none".into(),
                })?,
                Some(_) => tables.variants.get(ins.opcode as usize).ok_or_else(|| VerifyError {
                    offset: ins.bytecode_offset,
                    variant: "?",
                    problem: format!("unknown opcode {}", ins.opcode),
                })?,
            };
            let fail = |problem: String| VerifyError { offset: ins.bytecode_offset, variant: v.name, problem };
            // The prologue falls through to the first instruction.
            let next = match index {
                None => code.instructions.first().map_or(end, |n| n.address),
                Some(i) => code.instructions.get(i + 1).map_or(end, |n| n.address),
            };
            if index.is_none() && ins.address != code.start() {
                return Err(fail(format!("the prologue at {:#x} is not where the code starts", ins.address)));
            }
            let plans = plan_pieces(tables, v);
            let starts = piece_addresses(tables, v, ins);
            let pc = pc_base + u64::from(ins.bytecode_offset);
            let site = if v.ic.is_some() { self.ic_sites.get(pc) } else { None };
            let slab = site.map_or(0, |s| u64::from(s.slab));
            // (A fused cache's slab is all its code in line; a call cache's, its entry's reserve.)
            let call = v.ic.is_some_and(|ic| ic.call);
            let in_line: u64 = if slab > 0 && !call { slab } else { plans.iter().filter(|p| !p.out_of_line).map(|p| p.reserve as u64).sum() };
            let cold: u64 = plans.iter().filter(|p| p.out_of_line).map(|p| p.reserve as u64).sum();
            // Each piece's SlowPathData record (a cold part uses its owner's).
            let mut records: Vec<Option<u64>> = Vec::with_capacity(plans.len());
            if ins.address + in_line != next {
                return Err(fail(format!("its pieces end at {:#x}, the next instruction starts at {next:#x}", ins.address + in_line)));
            }
            if cold != u64::from(ins.cold_size) || (cold > 0 && ins.cold_address != next_cold) {
                return Err(fail(format!(
                    "its out-of-line pieces are at {:#x} (+{}), expected {next_cold:#x} (+{cold})",
                    ins.cold_address, ins.cold_size
                )));
            }
            next_cold += cold;
            for (j, plan) in plans.iter().enumerate() {
                let (id, len) = (plan.stencil, plan.len);
                let s = &tables.stencils[id as usize];
                if let Some(site) = site.filter(|site| v.ic.is_some_and(|ic| ic.entry == id) && site.stubs.first().is_some_and(|s| s.in_line)) {
                    // The slab holds the site's first stub instead of the entry's jump.
                    records.push(None);
                    self.verify_ic_site(site, starts[j], starts[0]).map_err(fail)?;
                    continue;
                }
                if slab > 0 && v.ic.is_some_and(|ic| ic.entry == id) {
                    // An empty slab: the entry, then traps up to the next instruction.
                    // SAFETY: the slab is emitted code.
                    let filler = unsafe { std::slice::from_raw_parts((starts[j] + len as u64) as *const u8, (slab - len as u64) as usize) };
                    if filler.iter().any(|&b| b != 0xcc) {
                        return Err(fail(format!("its empty inline slab at {:#x} holds more than its entry", starts[j])));
                    }
                }
                // SAFETY: the piece lives in the cache, which is never unmapped while the JIT lives.
                let (emitted, holes) = unsafe { check_emitted(s, len, starts[j]) }.map_err(fail)?;
                let record = match plan.owner {
                    Some(o) => records[o],
                    None => (!s.slow_path_data.is_empty()).then_some(next_record),
                };
                records.push(record);
                next_record += 8 * s.slow_path_data.len() as u64;
                if next_record > code.slow_path_data + code.slow_path_data_size as u64 {
                    return Err(fail(format!("the SlowPathData of {} runs past the records' end", s.name)));
                }
                // Where a jump of `value` must land, recomputed from the bytecode and the layout.
                let expected_target = |value: HoleValue| -> Result<Option<u64>, VerifyError> {
                    Ok(Some(match value {
                        HoleValue::Next => next,
                        HoleValue::Branch => {
                            let target = branch_target(bytecode, ins.bytecode_offset as usize, v).map_err(fail)?;
                            usize::try_from(target)
                                .ok()
                                .and_then(|target| code.code_at(target))
                                .ok_or_else(|| fail(format!("the branch to {target} lands between instructions")))?
                        }
                        HoleValue::Continuation(k) => *starts.get(1 + k as usize).ok_or_else(|| fail(format!("no continuation {k}")))?,
                        HoleValue::SlowPathData => record.ok_or_else(|| fail(format!("{} has a SlowPathData hole and no record", s.name)))?,
                        HoleValue::ColdPart => starts[plan.cold_part.ok_or_else(|| fail(format!("{} has no cold part", s.name)))?],
                        HoleValue::HotPart => starts[plan.owner.ok_or_else(|| fail(format!("{} is not a cold part", s.name)))?],
                        HoleValue::CodeBlock => code.code_block,
                        // The IC entry goes to its chain's head: a stub, or the generic code.
                        HoleValue::IcNext if v.ic.is_some_and(|ic| ic.entry == id) => {
                            let site = site.ok_or_else(|| fail("an inline cache the JIT has no site for".into()))?;
                            self.verify_ic_site(site, starts[j], starts[0]).map_err(fail)?;
                            site.head
                        }
                        HoleValue::IcNext | HoleValue::IcKey | HoleValue::IcState | HoleValue::IcDerived(_) => {
                            return Err(fail(format!("{} has an inline-cache stub's {value:?} hole", s.name)))
                        }
                        HoleValue::NumParams | HoleValue::FrameSize if index.is_some() => {
                            return Err(fail(format!("{} has the prologue's {value:?} hole", s.name)))
                        }
                        HoleValue::NumParams => shape.ok_or_else(|| fail("no code block to check the prologue against".into()))?.0,
                        HoleValue::FrameSize => shape.ok_or_else(|| fail("no code block to check the prologue against".into()))?.1,
                        _ => return Ok(None),
                    }))
                };
                // Every field of the record holds what a hole of its value would.
                if let Some(r) = record {
                    for (k, &field) in s.slow_path_data.iter().enumerate() {
                        // SAFETY: within the records of this code (checked above).
                        let got = unsafe { std::ptr::read_unaligned((r + 8 * k as u64) as *const u64) };
                        let expected = match expected_target(field)? {
                            Some(address) => address,
                            None => {
                                let pc = pc_base + u64::from(ins.bytecode_offset);
                                instruction_constant(bytecode, pc, ins.bytecode_offset as usize, v, field).map_err(fail)?
                            }
                        };
                        if got != expected {
                            return Err(fail(format!("SlowPathData field {k} ({field:?}) of {} holds {got:#x}, not {expected:#x}", s.name)));
                        }
                    }
                }
                for h in &holes {
                    // What the JIT placed once (a helper, an external or its jump stub, a
                    // stencil's data), or what the instruction's layout says.
                    let placed = match h.value {
                        HoleValue::Shared(k) => self.shared.get(k as usize).copied(),
                        HoleValue::External(k) if h.kind == HoleKind::PcRel32 => self.near_externals.get(k as usize).copied(),
                        HoleValue::External(k) => self.externals.get(k as usize).copied(),
                        HoleValue::Data => self.data.get(id as usize).copied(),
                        _ => None,
                    };
                    let expected = match placed {
                        Some(address) => address,
                        None => match expected_target(h.value)? {
                            Some(expected) => expected,
                            None => continue,
                        },
                    };
                    let target = patched_value(emitted, starts[j], h);
                    if target != expected {
                        return Err(fail(format!("{:?} hole of {} at {} reaches {target:#x}, not {expected:#x}", h.value, s.name, h.offset)));
                    }
                }
            }
        }
        if next_cold != code.start() + code.code_size as u64 {
            return Err(VerifyError { offset: 0, variant: "-", problem: format!("the cold area ends at {next_cold:#x}, the code does not") });
        }
        if next_record != code.slow_path_data + code.slow_path_data_size as u64 {
            return Err(VerifyError { offset: 0, variant: "-", problem: "the SlowPathData records do not match the pieces".into() });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fixed-width reads agree with the byte-by-byte reading for every width and sign, and a
    /// field past the end is `None`.
    #[test]
    fn fields_read_like_bytes() {
        let bytes: Vec<u8> = (0..16u8).map(|b| b.wrapping_mul(37).wrapping_add(0x81)).collect();
        for width in 0..=9u8 {
            for signed in [false, true] {
                for at in 0..bytes.len() + 2 {
                    let expected = if at + width as usize > bytes.len() && width > 0 || width > 8 {
                        None
                    } else {
                        let mut u: u64 = 0;
                        for k in (0..width as usize).rev() {
                            u = u << 8 | u64::from(bytes[at + k]);
                        }
                        Some(if signed && width > 0 && width < 8 {
                            let shift = 64 - 8 * u32::from(width);
                            ((u << shift) as i64) >> shift
                        } else {
                            u as i64
                        })
                    };
                    assert_eq!(read_field(&bytes, at, width, signed), expected, "width {width}, signed {signed}, at {at}");
                }
            }
        }
    }
}
