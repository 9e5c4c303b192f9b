//! One-pass compilation: walk the bytecode once to lay the code out (every stencil's size is
//! known), then copy and patch each instruction's stencils in a second walk over the same
//! list. Branch targets, the next instruction and the return continuations are therefore
//! known when a hole is patched, with no late-patch list.

use deegen_exec_memory::{CodeCache, ExecMemoryError};
use deegen_stencil::{patch_hole, PatchError};

use crate::tables::{HoleValue, StencilRecord, StencilTables, VariantRecord};

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

/// Totals over the JIT's lifetime.
#[derive(Debug, Default, Clone, Copy)]
pub struct JitStats {
    pub functions: u64,
    pub bytecodes: u64,
    pub code_bytes: u64,
    pub compile_seconds: f64,
    /// Compilations that failed (the function stayed in the interpreter).
    pub failures: u64,
}

/// One instruction's code.
#[derive(Debug, Clone, Copy)]
pub struct CompiledInstruction {
    pub bytecode_offset: u32,
    pub opcode: u16,
    pub address: u64,
    pub size: u32,
}

/// A compiled function.
#[derive(Debug, Clone)]
pub struct CompiledCode {
    /// The code of the first instruction.
    pub entry: u64,
    pub code_size: usize,
    /// Sorted by bytecode offset (and by address).
    pub instructions: Vec<CompiledInstruction>,
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
}

/// `ud2`: where a function's code ends, so that falling off its last instruction traps.
const TRAP: [u8; 2] = [0x0f, 0x0b];

/// The baseline JIT of one language, with its code cache.
pub struct BaselineJit {
    tables: &'static StencilTables,
    cache: CodeCache,
    /// Address of each stencil's read-only data (0 when it has none).
    data: Vec<u64>,
    /// Address of each helper ([`StencilTables::shared`] order).
    shared: Vec<u64>,
    externals: Vec<u64>,
    pub stats: JitStats,
}

impl std::fmt::Debug for BaselineJit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BaselineJit").field("cache", &self.cache).field("stats", &self.stats).finish()
    }
}

/// One piece of an instruction's code: a stencil, maybe without its trailing jump.
#[derive(Clone, Copy)]
struct Piece {
    stencil: u16,
    offset: usize,
    len: usize,
}

impl BaselineJit {
    /// A JIT with a code cache of `cache_limit` bytes within `rel32` reach of the program's code,
    /// with the helpers and the stencils' data placed.
    pub fn new(tables: &'static StencilTables, cache_limit: usize) -> Result<Self, JitError> {
        let near = patch_hole as *const () as u64;
        let mut cache = CodeCache::new(cache_limit, Some(near))?;
        let externals = tables.externals.iter().map(|(_, f)| *f as *const () as u64).collect();
        let mut data = vec![0u64; tables.stencils.len()];
        for (i, s) in tables.stencils.iter().enumerate() {
            if !s.data.is_empty() {
                let (address, ()) = cache.emit_data(s.data.len(), s.data_align.max(1) as usize, |buf, _| buf.copy_from_slice(s.data))?;
                data[i] = address;
            }
        }
        let mut jit = BaselineJit { tables, cache, data, shared: Vec::new(), externals, stats: JitStats::default() };
        jit.place_shared()?;
        Ok(jit)
    }

    /// The code cache (for its bounds and use).
    pub fn cache(&self) -> &CodeCache {
        &self.cache
    }

    /// The tables the JIT compiles with.
    pub fn tables(&self) -> &'static StencilTables {
        self.tables
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
                        HoleValue::External(j) => self.externals[j as usize],
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
    /// the code lives: the code holds addresses into it).
    pub fn compile(&mut self, bytecode: &[u8]) -> Result<CompiledCode, JitError> {
        let start = std::time::Instant::now();
        let result = self.compile_inner(bytecode);
        match &result {
            Ok(code) => {
                self.stats.functions += 1;
                self.stats.bytecodes += code.instructions.len() as u64;
                self.stats.code_bytes += code.code_size as u64;
            }
            Err(_) => self.stats.failures += 1,
        }
        self.stats.compile_seconds += start.elapsed().as_secs_f64();
        result
    }

    fn compile_inner(&mut self, bytecode: &[u8]) -> Result<CompiledCode, JitError> {
        let tables = self.tables;
        // Pass 1: the instructions and the layout of their pieces.
        let mut instructions: Vec<(usize, u16, &'static VariantRecord)> = Vec::new();
        let mut offset = 0;
        while offset < bytecode.len() {
            let opcode =
                read_field(bytecode, offset, 2, false).ok_or_else(|| JitError::Bytecode { offset, problem: "truncated opcode".into() })? as u16;
            let v = tables.variants.get(opcode as usize).ok_or_else(|| JitError::Bytecode { offset, problem: format!("unknown opcode {opcode}") })?;
            instructions.push((offset, opcode, v));
            offset += v.length as usize;
        }
        if offset != bytecode.len() {
            return Err(JitError::Bytecode { offset, problem: "the last instruction runs past the bytecode's end".into() });
        }
        let mut pieces: Vec<Piece> = Vec::new();
        let mut first_piece = Vec::with_capacity(instructions.len() + 1);
        let mut size = 0usize;
        for (_, _, v) in &instructions {
            first_piece.push(pieces.len());
            for (id, len) in piece_lengths(tables, v) {
                pieces.push(Piece { stencil: id, offset: size, len });
                size += len;
            }
        }
        first_piece.push(pieces.len());
        let code_size = size + TRAP.len();

        // Pass 2: copy and patch.
        let data = &self.data;
        let shared = &self.shared;
        let externals = &self.externals;
        let pc_base = bytecode.as_ptr() as u64;
        let (base, result) = self.cache.emit(code_size, 16, |buf, base| -> Result<Vec<CompiledInstruction>, JitError> {
            let at = |piece: usize| base + pieces[piece].offset as u64;
            let instruction_address = |i: usize| if i < instructions.len() { at(first_piece[i]) } else { base + size as u64 };
            let mut compiled = Vec::with_capacity(instructions.len());
            for (i, &(offset, opcode, v)) in instructions.iter().enumerate() {
                let pc = pc_base + offset as u64;
                let bad = |problem: String| JitError::Bytecode { offset, problem };
                for (p, &piece) in pieces.iter().enumerate().take(first_piece[i + 1]).skip(first_piece[i]) {
                    let s: &StencilRecord = &tables.stencils[piece.stencil as usize];
                    let out = &mut buf[piece.offset..piece.offset + piece.len];
                    out.copy_from_slice(&s.code[..piece.len]);
                    for h in s.holes.iter().take_while(|h| (h.offset as usize) < piece.len) {
                        let value = match h.value {
                            HoleValue::Pc => pc,
                            HoleValue::Output => {
                                let o = v.output_offset.ok_or_else(|| bad(format!("{} has no output", v.name)))?;
                                8 * read_field(bytecode, offset + o as usize, 2, false).ok_or_else(|| bad("truncated output".into()))? as u64
                            }
                            HoleValue::Operand(k) => {
                                let op = v.operands.get(k as usize).ok_or_else(|| bad(format!("{} has no operand {k}", v.name)))?;
                                let raw = read_field(bytecode, offset + op.offset as usize, op.width, op.signed)
                                    .ok_or_else(|| bad(format!("operand {k} of {} is truncated", v.name)))?;
                                op.encoding.encode(raw, pc)
                            }
                            HoleValue::Next => instruction_address(i + 1),
                            HoleValue::Branch => {
                                let o = v.branch_offset.ok_or_else(|| bad(format!("{} does not branch", v.name)))?;
                                let d = read_field(bytecode, offset + o as usize, 4, true).ok_or_else(|| bad("truncated branch".into()))?;
                                let target = offset as i64 + d;
                                let index = instructions
                                    .binary_search_by_key(&target, |x| x.0 as i64)
                                    .map_err(|_| bad(format!("branch to {target}, which is not an instruction")))?;
                                instruction_address(index)
                            }
                            HoleValue::Continuation(k) => {
                                let p = first_piece[i] + 1 + k as usize;
                                if p >= first_piece[i + 1] {
                                    return Err(bad(format!("{} has no continuation {k}", v.name)));
                                }
                                at(p)
                            }
                            HoleValue::Data => data[piece.stencil as usize],
                            HoleValue::Shared(k) => shared[k as usize],
                            HoleValue::External(k) => externals[k as usize],
                        };
                        patch_hole(out, h.offset as usize, h.kind, h.addend, value, at(p)).map_err(|e| e.in_stencil(s.name))?;
                    }
                }
                let start = at(first_piece[i]);
                compiled.push(CompiledInstruction {
                    bytecode_offset: offset as u32,
                    opcode,
                    address: start,
                    size: (instruction_address(i + 1) - start) as u32,
                });
            }
            buf[size..].copy_from_slice(&TRAP);
            Ok(compiled)
        })?;
        let instructions = result?;
        tracing::debug!(
            bytecodes = instructions.len(),
            code_bytes = code_size,
            address = format_args!("{base:#x}"),
            "baseline JIT compiled a function"
        );
        Ok(CompiledCode { entry: base, code_size, instructions })
    }
}

impl BaselineJit {
    /// Which return continuation of the compiled instruction `ins` starts at `address` (its
    /// index in the variant's continuations), if any: a frame whose return address is JIT code
    /// names the instruction and, through this, the continuation.
    pub fn continuation_index(&self, ins: &CompiledInstruction, address: u64) -> Option<usize> {
        let v = self.tables.variants.get(ins.opcode as usize)?;
        let mut at = ins.address;
        for (j, (_, len)) in piece_lengths(self.tables, v).enumerate() {
            if j > 0 && at == address {
                return Some(j - 1);
            }
            at += len as u64;
        }
        None
    }
}

/// An instruction's pieces, in the order they are laid out: the main stencil, then each
/// return continuation, with their code lengths. Only the last piece is followed by the next
/// instruction's code, so only its trailing jump to it is dropped (jump-to-fallthrough).
fn piece_lengths(tables: &'static StencilTables, v: &'static VariantRecord) -> impl Iterator<Item = (u16, usize)> {
    let count = 1 + v.continuations.len();
    std::iter::once(v.main).chain(v.continuations.iter().copied()).enumerate().map(move |(j, id)| {
        let s = &tables.stencils[id as usize];
        let len = if j + 1 == count && s.ends_with_jump_to_next { s.code.len() - 5 } else { s.code.len() };
        (id, len)
    })
}

/// A `width`-byte little-endian field, sign- or zero-extended.
fn read_field(bytes: &[u8], at: usize, width: u8, signed: bool) -> Option<i64> {
    let w = width as usize;
    if w == 0 {
        return Some(0);
    }
    let raw = bytes.get(at..at + w)?;
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

/// Why [`BaselineJit::verify`] rejected compiled code.
#[derive(Debug, thiserror::Error)]
#[error("instruction at bytecode offset {offset} ({variant}): {problem}")]
pub struct VerifyError {
    pub offset: u32,
    pub variant: &'static str,
    pub problem: String,
}

impl BaselineJit {
    /// The checker (regalloc2's `checker.rs` re-verifies an allocation; this re-verifies a
    /// copy-and-patch): decodes the code emitted for `bytecode` with `iced-x86` and checks that
    /// every piece is its stencil byte for byte outside the holes, that every hole is exactly
    /// one immediate, displacement or branch field, and that every jump to the next
    /// instruction, a branch target or a continuation lands where the bytecode says, computed
    /// again from the bytecode rather than taken from the compiler.
    pub fn verify(&self, bytecode: &[u8], code: &CompiledCode) -> Result<(), VerifyError> {
        use deegen_stencil::{check_holes, Hole, HoleTarget, Stencil};
        let tables = self.tables;
        let end = code.entry + code.code_size as u64 - TRAP.len() as u64;
        for (i, ins) in code.instructions.iter().enumerate() {
            let v = tables.variants.get(ins.opcode as usize).ok_or_else(|| VerifyError {
                offset: ins.bytecode_offset,
                variant: "?",
                problem: format!("unknown opcode {}", ins.opcode),
            })?;
            let fail = |problem: String| VerifyError { offset: ins.bytecode_offset, variant: v.name, problem };
            let next = code.instructions.get(i + 1).map_or(end, |n| n.address);
            let mut at = ins.address;
            let pieces: Vec<(u16, usize)> = piece_lengths(tables, v).collect();
            let mut starts = Vec::with_capacity(pieces.len());
            for &(_, len) in &pieces {
                starts.push(at);
                at += len as u64;
            }
            if at != next {
                return Err(fail(format!("its pieces end at {at:#x}, the next instruction starts at {next:#x}")));
            }
            for (j, &(id, len)) in pieces.iter().enumerate() {
                let s = &tables.stencils[id as usize];
                // SAFETY: the code lives in the cache, which is never unmapped while the JIT lives.
                let emitted = unsafe { std::slice::from_raw_parts(starts[j] as *const u8, len) };
                let holes: Vec<_> = s.holes.iter().filter(|h| (h.offset as usize) < len).collect();
                let mut covered = vec![false; len];
                for h in &holes {
                    covered[h.offset as usize..h.offset as usize + h.kind.width()].iter_mut().for_each(|c| *c = true);
                }
                if let Some(k) = (0..len).find(|&k| !covered[k] && emitted[k] != s.code[k]) {
                    return Err(fail(format!("{} differs from its stencil at byte {k}", s.name)));
                }
                let as_stencil = Stencil {
                    name: s.name.to_owned(),
                    code: s.code[..len].to_vec(),
                    data: Vec::new(),
                    data_align: 1,
                    holes: holes
                        .iter()
                        .map(|h| Hole {
                            offset: h.offset as usize,
                            kind: h.kind,
                            target: HoleTarget::Symbol(format!("{:?}", h.value)),
                            addend: h.addend,
                        })
                        .collect(),
                };
                check_holes(&as_stencil, emitted, starts[j]).map_err(|e| fail(e.to_string()))?;
                for h in holes.iter().filter(|h| h.kind == deegen_stencil::HoleKind::PcRel32) {
                    let expected = match h.value {
                        HoleValue::Next => next,
                        HoleValue::Branch => {
                            let o = v.branch_offset.ok_or_else(|| fail("a branch hole in a variant without a branch".into()))?;
                            let d =
                                read_field(bytecode, ins.bytecode_offset as usize + o as usize, 4, true).ok_or_else(|| fail("truncated".into()))?;
                            usize::try_from(i64::from(ins.bytecode_offset) + d)
                                .ok()
                                .and_then(|target| code.code_at(target))
                                .ok_or_else(|| fail(format!("branch displacement {d} lands between instructions")))?
                        }
                        HoleValue::Continuation(k) => *starts.get(1 + k as usize).ok_or_else(|| fail(format!("no continuation {k}")))?,
                        _ => continue,
                    };
                    let field = h.offset as usize;
                    let rel = i32::from_le_bytes(emitted[field..field + 4].try_into().expect("4 bytes"));
                    // `S + A - P`: the target is the field's value plus its address minus the addend.
                    let target = (starts[j] as i64 + field as i64 + i64::from(rel) - h.addend) as u64;
                    if target != expected {
                        return Err(fail(format!("{:?} hole of {} at {field} reaches {target:#x}, not {expected:#x}", h.value, s.name)));
                    }
                }
            }
        }
        Ok(())
    }
}
