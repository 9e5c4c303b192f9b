//! The baseline JIT's generator steps: run `BASELINE_PIPELINE` on the same semantics module as
//! the interpreter, compile it into an ELF object with one section per function, extract the
//! stencils, and write them as the tables the JIT reads (`deegen_baseline_jit::StencilTables`).
//!
//! Every hole is resolved here to what it means (an operand of the variant, the next
//! instruction, a continuation, a helper, an external symbol) and checked against the range
//! `runtime-constant-range` gave its symbol; nothing unknown reaches the runtime.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write;
use std::path::{Path, PathBuf};

use deegen_api::runtime_constants as rc;
use deegen_baseline_jit::{HoleRecord, HoleValue, IcRecord, OperandRecord, StencilRecord, StencilTables, VariantRecord};
use deegen_bytecode_spec::{BytecodeSpec, Quickening, Variant};
use deegen_llvm_ir::{defined_functions, emit, function_attr, handler_kind, read_variants, HANDLER_KIND_ATTR};
use deegen_pass::{AnalysisManager, Instrumentation};
use deegen_pass_baseline_aot_slow_paths::slow_path_data_layout;
use deegen_stencil::{cold_part_of, extract_stencils, HoleKind, HoleTarget, Stencil, COLD_PART_SUFFIX};
use inkwell::context::Context;
use inkwell::targets::FileType;

use crate::{io, load_semantics, write_atomically, GenerateError, GenerateOptions};

/// Files written by [`generate_baseline_jit`].
#[derive(Debug, Clone)]
pub struct BaselineOutputs {
    pub object: PathBuf,
    /// The stencils as assembly text, for reading.
    pub assembly: PathBuf,
    /// The generated tables (Rust source defining `BASELINE_STENCILS`).
    pub tables: PathBuf,
    /// Every stencil, disassembled with its holes.
    pub disassembly: PathBuf,
    pub stencils: usize,
}

/// Runs the baseline JIT generation. `interpreter_variants` are the interpreter module's final
/// variants: the JIT compiles bytecode encoded for them, so the baseline module must agree.
pub fn generate_baseline_jit(
    bitcode: &Path,
    specs: &[BytecodeSpec],
    interpreter_variants: &[Variant],
    out_dir: &Path,
    options: &GenerateOptions,
) -> Result<BaselineOutputs, GenerateError> {
    let _span = tracing::info_span!("generate_baseline_jit").entered();
    std::fs::create_dir_all(out_dir).map_err(io(out_dir))?;
    let context = Context::create();
    let mut unit = load_semantics(&context, bitcode, specs, options)?;
    let mut pm = deegen_passes::llvm_registry().parse_pipeline(deegen_passes::BASELINE_PIPELINE)?;
    pm.set_instrumentation(Instrumentation { verify_each: true, opt_bisect_limit: options.opt_bisect_limit, ..Default::default() });
    pm.run(&mut unit, &mut AnalysisManager::new())?;
    let variants = read_variants(&unit.module).map_err(GenerateError::Llvm)?;
    if variants != interpreter_variants {
        return Err(GenerateError::Llvm(
            "the baseline pipeline's variants differ from the interpreter's (a pass changed a layout in one pipeline only)".into(),
        ));
    }
    let functions: Vec<(String, Option<String>)> = defined_functions(&unit.module)
        .into_iter()
        .map(|f| (f.get_name().to_string_lossy().into_owned(), function_attr(f, HANDLER_KIND_ATTR)))
        .collect();
    let layouts: HashMap<String, Vec<String>> = defined_functions(&unit.module)
        .into_iter()
        .map(|f| (f.get_name().to_string_lossy().into_owned(), slow_path_data_layout(f)))
        .filter(|(_, l)| !l.is_empty())
        .collect();
    let object_bytes = emit(&unit.module, FileType::Object).map_err(GenerateError::Llvm)?;
    let object = out_dir.join("stencils.o");
    write_atomically(&object, &object_bytes)?;
    let assembly = out_dir.join("stencils.s");
    write_atomically(&assembly, &emit(&unit.module, FileType::Assembly).map_err(GenerateError::Llvm)?)?;

    let names: Vec<&str> = functions.iter().map(|(n, _)| n.as_str()).collect();
    let mut stencils = extract_stencils(&object_bytes, &names).map_err(|e| GenerateError::Llvm(e.to_string()))?;
    // `jcc <next>; jmp <branch>` endings become `j!cc <branch>; jmp <next>`, whose final jump
    // the JIT drops when the next instruction follows.
    // A cold part's jumps back into its stencil are entries the inversion must keep.
    let entries = cold_part_entries(&stencils);
    let inverted = stencils
        .iter_mut()
        .map(|s| {
            let entries = entries.get(&s.name).map(Vec::as_slice).unwrap_or_default();
            deegen_stencil::invert_final_branch(s, rc::NEXT, entries)
        })
        .filter(|&done| done)
        .count();
    tracing::debug!(inverted, "stencils whose final branch was inverted to fall through");
    // `jcc <next>; <exit into a slow path>` endings (LLVM's conditional tail calls hid the
    // exit's coldness from the machine function splitter) move the exit to the cold part.
    let sunk = sink_final_exits(&mut stencils, &entries);
    tracing::debug!(sunk, "stencils whose final slow-path exit moved to their cold part");
    // Short conditional jumps over a jump out (a `for` loop's exit) become one inverted jump,
    // so that the path that stays falls through. (Entries again: sinking made cold parts.)
    let entries = cold_part_entries(&stencils);
    let inverted: usize = stencils
        .iter_mut()
        .map(|s| {
            let entries = entries.get(&s.name).map(Vec::as_slice).unwrap_or_default();
            deegen_stencil::invert_branches_over_jumps(s, entries)
        })
        .sum();
    tracing::debug!(inverted, "short conditional jumps over a jump inverted");
    if variants.iter().any(|v| matches!(v.quickening, Some(Quickening::Base { .. }))) {
        stencils.push(ic_entry_stencil());
    }
    let mut kinds: HashMap<&str, Option<&str>> = functions.iter().map(|(n, k)| (n.as_str(), k.as_deref())).collect();
    kinds.insert(IC_ENTRY, Some(handler_kind::STENCIL));
    let tables = Tables::build(&variants, &stencils, &kinds, &layouts)?;
    let tables_rs = out_dir.join("baseline_stencils.rs");
    write_atomically(&tables_rs, tables.source().as_bytes())?;
    let disassembly = out_dir.join("stencils.txt");
    let text: String = stencils.iter().map(deegen_stencil::disassemble).collect::<Vec<_>>().join("\n");
    write_atomically(&disassembly, text.as_bytes())?;
    Ok(BaselineOutputs { object, assembly, tables: tables_rs, disassembly, stencils: stencils.len() })
}

/// For each stencil with a cold part, the offsets its cold part jumps back to (entries a
/// rewrite of the stencil must keep).
fn cold_part_entries(stencils: &[Stencil]) -> HashMap<String, Vec<usize>> {
    stencils
        .iter()
        .filter_map(|s| {
            let owner = cold_part_of(&s.name)?;
            let to_owner = s.holes.iter().filter(|h| h.kind == HoleKind::PcRel32 && h.target == HoleTarget::Symbol(owner.to_owned()));
            Some((owner.to_owned(), to_owner.map(|h| (h.addend + 4) as usize).collect()))
        })
        .collect()
}

/// [`deegen_stencil::sink_final_exit`] on every stencil that is not a cold part, its exits
/// being its own slow paths (`<name>__slow<k>`); a cold part it makes goes right after its
/// stencil. Returns how many moved.
fn sink_final_exits(stencils: &mut Vec<Stencil>, entries: &HashMap<String, Vec<usize>>) -> usize {
    let mut sunk = 0;
    let mut k = 0;
    while k < stencils.len() {
        if cold_part_of(&stencils[k].name).is_none() {
            let name = stencils[k].name.clone();
            let cold_name = format!("{name}{COLD_PART_SUFFIX}");
            let slow_prefix = format!("{name}__slow");
            let entries = entries.get(&name).map(Vec::as_slice).unwrap_or_default();
            let at = stencils.iter().position(|s| s.name == cold_name);
            // Taken out while the hot part is rewritten, and put back whatever happens.
            let mut cold = at.map(|c| {
                std::mem::replace(
                    &mut stencils[c],
                    Stencil { name: String::new(), code: Vec::new(), data: Vec::new(), data_align: 1, holes: Vec::new() },
                )
            });
            let moved =
                deegen_stencil::sink_final_exit(&mut stencils[k], &mut cold, &cold_name, rc::NEXT, entries, &|s: &str| s.starts_with(&slow_prefix));
            match (at, cold) {
                (Some(c), Some(cold)) => stencils[c] = cold,
                (None, Some(cold)) => stencils.insert(k + 1, cold),
                (_, None) => {}
            }
            sunk += usize::from(moved);
        }
        k += 1;
    }
    sunk
}

/// Name of the IC entry stencil.
const IC_ENTRY: &str = "__deegen_jit_ic_entry";

/// The IC entry of an instruction with a fused inline cache (see `deegen_api::ic`): the
/// self-modifying-code region the paper has LLVM's `callbr` make, here the instruction's whole
/// code in line, `jmp rel32` to the head of its chain of stubs. Not compiled from semantics:
/// it is the one instruction the JIT rewrites, so its encoding is fixed here, where the JIT's
/// patching relies on it (the hole is the last 4 bytes).
fn ic_entry_stencil() -> Stencil {
    Stencil {
        name: IC_ENTRY.to_owned(),
        code: vec![0xe9, 0, 0, 0, 0],
        data: Vec::new(),
        data_align: 1,
        holes: vec![deegen_stencil::Hole { offset: 1, kind: HoleKind::PcRel32, target: HoleTarget::Symbol(rc::IC_NEXT.to_owned()), addend: -4 }],
    }
}

struct HoleOut {
    offset: usize,
    kind: HoleKind,
    value: HoleValue,
    addend: i64,
}

struct StencilOut<'a> {
    stencil: &'a Stencil,
    holes: Vec<HoleOut>,
    ends_with_jump_to_next: bool,
    slow_path_data: Vec<HoleValue>,
    cold_part: Option<u16>,
}

struct VariantOut {
    name: String,
    length: u32,
    main: u16,
    continuations: Vec<u16>,
    /// (offset, width, signed, encoding)
    operands: Vec<(u32, u8, bool, rc::OperandEncoding)>,
    output_offset: Option<u32>,
    branch_offset: Option<u32>,
    ic: Option<IcOut>,
}

/// A fused inline cache's part of a variant's record (`IcRecord` in the generated tables).
struct IcOut {
    entry: u16,
    /// The stub stencil of each kind.
    stubs: Vec<u16>,
    cache_offset: u32,
    /// The kind of a quickened variant's first entry.
    kind: Option<u8>,
    /// The stencil a megamorphic site copies (`baseline-aot-ic-generic`).
    megamorphic: Option<u16>,
    /// A call inline cache (its one stub: `baseline-create-stencils`' call IC stub).
    call: bool,
}

struct Tables<'a> {
    stencils: Vec<StencilOut<'a>>,
    variants: Vec<VariantOut>,
    shared: Vec<u16>,
    externals: Vec<String>,
    /// The helper computing each derived constant (an index into `shared`).
    ic_derive: Vec<u16>,
    /// The prologue stencil, when the module has one.
    function_entry: Option<u16>,
}

fn bad(stencil: &str, message: impl std::fmt::Display) -> GenerateError {
    GenerateError::Llvm(format!("stencil '{stencil}': {message}"))
}

impl<'a> Tables<'a> {
    fn build(
        variants: &[Variant],
        stencils: &'a [Stencil],
        kinds: &HashMap<&str, Option<&str>>,
        layouts: &HashMap<String, Vec<String>>,
    ) -> Result<Self, GenerateError> {
        let id: HashMap<&str, u16> = stencils.iter().enumerate().map(|(i, s)| (s.name.as_str(), i as u16)).collect();
        // A cold part is copied with the stencil it belongs to.
        let is_stencil = |name: &str| kinds.get(cold_part_of(name).unwrap_or(name)).copied().flatten().is_some_and(handler_kind::is_stencil_entry);
        if let Some(s) = stencils.iter().find(|s| cold_part_of(&s.name).is_some() && !is_stencil(&s.name)) {
            return Err(bad(&s.name, "is the cold part of a helper, which the JIT places once and does not split"));
        }
        let shared: Vec<u16> = stencils.iter().filter(|s| !is_stencil(&s.name)).map(|s| id[s.name.as_str()]).collect();
        let shared_index: HashMap<&str, u16> = shared.iter().enumerate().map(|(k, &i)| (stencils[i as usize].name.as_str(), k as u16)).collect();

        // The variant (and its continuations' order) each stencil belongs to.
        let mut owner: HashMap<&str, (usize, Vec<String>)> = HashMap::new();
        // The inline-cache stubs (the only stencils with a key, a state or a next stub).
        let mut stub_names: std::collections::HashSet<&str> = std::collections::HashSet::new();
        // Of those, the call inline caches' (whose key and state are 64-bit).
        let mut call_stub_names: std::collections::HashSet<&str> = std::collections::HashSet::new();
        let mut variant_out = Vec::with_capacity(variants.len());
        for v in variants {
            let base = match v.quickening {
                Some(Quickening::Quickened { base, .. }) => &variants[base as usize],
                _ => v,
            };
            let main_name = deegen_pass_baseline_create_stencils::stencil_name(&base.name);
            let main = *id.get(main_name.as_str()).ok_or_else(|| bad(&main_name, "is missing from the object"))?;
            let prefix = format!("{main_name}__ret__");
            let mut conts: Vec<&str> =
                stencils.iter().map(|s| s.name.as_str()).filter(|n| n.starts_with(&prefix) && is_stencil(n) && cold_part_of(n).is_none()).collect();
            conts.sort();
            let cont_names: Vec<String> = conts.iter().map(|n| n[prefix.len()..].to_owned()).collect();
            owner.insert(stencils[main as usize].name.as_str(), (base.opcode as usize, cont_names.clone()));
            for c in &conts {
                owner.insert(c, (base.opcode as usize, cont_names.clone()));
            }
            let ic = match base.quickening {
                Some(Quickening::Base { first, kinds: n }) => {
                    let entry = *id.get(IC_ENTRY).ok_or_else(|| bad(IC_ENTRY, "is missing"))?;
                    let mut stubs = Vec::with_capacity(n as usize);
                    for k in 0..u16::from(n) {
                        let q = variants.get(usize::from(first + k)).ok_or_else(|| bad(&main_name, format!("has no quickened variant {k}")))?;
                        let stub_name = deegen_pass_baseline_create_stencils::stencil_name(&q.name);
                        let stub = *id.get(stub_name.as_str()).ok_or_else(|| bad(&stub_name, "is missing from the object"))?;
                        // A stub runs for the base's instruction: its operands, its continuations.
                        owner.insert(stencils[stub as usize].name.as_str(), (base.opcode as usize, cont_names.clone()));
                        stub_names.insert(stencils[stub as usize].name.as_str());
                        stubs.push(stub);
                    }
                    let mut caches = base.operands.iter().filter(|o| o.access == deegen_bytecode_spec::OperandAccess::InlineCache);
                    let cache = caches.next().ok_or_else(|| bad(&main_name, "has a fused inline cache but no cache operand"))?;
                    if caches.next().is_some() {
                        return Err(bad(&main_name, "has a fused inline cache and more than one cache operand"));
                    }
                    // A quickened variant's first entry holds a state of its kind.
                    let kind = match v.quickening {
                        Some(Quickening::Quickened { kind, .. }) => Some(kind),
                        _ => None,
                    };
                    // A megamorphic site's own copy of the generic code (`baseline-aot-ic-generic`)
                    // runs for the base's instruction, like a stub.
                    let megamorphic = id.get(format!("{main_name}{}", deegen_pass_baseline_aot_ic_generic::MEGAMORPHIC_SUFFIX).as_str()).copied();
                    if let Some(m) = megamorphic {
                        owner.insert(stencils[m as usize].name.as_str(), (base.opcode as usize, cont_names.clone()));
                    }
                    Some(IcOut { entry, stubs, cache_offset: cache.offset, kind, megamorphic, call: false })
                }
                // A call inline cache, when the stub of its call survived `interp-call-ic`.
                // Its stubs: direct mode (kind 0), closure mode (kind 1), and the generic code a
                // megamorphic site copies.
                _ => {
                    use deegen_llvm_ir::call_ic_stub::{CLOSURE, DIRECT, GENERIC};
                    let call_stencils = [DIRECT, CLOSURE, GENERIC]
                        .map(|k| id.get(deegen_pass_baseline_create_stencils::call_ic_stub_name(&base.name, k).as_str()).copied());
                    match (base.call_ic_offset, call_stencils) {
                        (Some(cache_offset), [Some(direct), Some(closure), Some(generic)]) => {
                            let entry = *id.get(IC_ENTRY).ok_or_else(|| bad(IC_ENTRY, "is missing"))?;
                            for s in [direct, closure, generic] {
                                owner.insert(stencils[s as usize].name.as_str(), (base.opcode as usize, cont_names.clone()));
                            }
                            for s in [direct, closure] {
                                stub_names.insert(stencils[s as usize].name.as_str());
                                call_stub_names.insert(stencils[s as usize].name.as_str());
                            }
                            Some(IcOut { entry, stubs: vec![direct, closure], cache_offset, kind: None, megamorphic: Some(generic), call: true })
                        }
                        (_, [None, None, None]) => None,
                        _ => return Err(bad(&main_name, "has some of its call inline-cache stencils but not all, or no call inline cache")),
                    }
                }
            };
            let operands = runtime_constant_operands(v)
                .map(|(op, enc)| {
                    let signed = matches!(op.access, deegen_bytecode_spec::OperandAccess::Literal { signed: true });
                    // An inline cache is not read: the stencil gets its address (its bytes, up
                    // to 16 of them, are the semantics' to read).
                    let width = if matches!(enc, rc::OperandEncoding::Address { .. }) { 0 } else { op.width as u8 };
                    (op.offset, width, signed, enc)
                })
                .collect();
            variant_out.push(VariantOut {
                name: v.name.clone(),
                length: v.length,
                main,
                continuations: conts.iter().map(|c| id[c]).collect(),
                operands,
                output_offset: v.output_offset,
                branch_offset: v.branch_offset,
                ic,
            });
        }

        let mut externals: Vec<String> = Vec::new();
        let mut external_index: BTreeMap<String, u16> = BTreeMap::new();
        let mut out = Vec::with_capacity(stencils.len());
        for s in stencils {
            let context = owner.get(cold_part_of(&s.name).unwrap_or(&s.name)).map(|(opcode, conts)| (&variants[*opcode], conts));
            let is_prologue = cold_part_of(&s.name).unwrap_or(&s.name) == rc::FUNCTION_ENTRY_STENCIL;
            let is_stub = stub_names.contains(cold_part_of(&s.name).unwrap_or(&s.name));
            let is_call_stub = call_stub_names.contains(cold_part_of(&s.name).unwrap_or(&s.name));
            // An inline cache's values exist only in its stubs (and the IC entry's next stub).
            let check_ic = |value: HoleValue| -> Result<(), GenerateError> {
                let allowed = match value {
                    HoleValue::IcKey | HoleValue::IcState | HoleValue::IcDerived(_) => is_stub,
                    HoleValue::CallTarget => is_call_stub,
                    HoleValue::IcNext => is_stub || s.name == IC_ENTRY,
                    // A stub is copied for a site, not compiled with its function.
                    HoleValue::CodeBlock => !is_stub,
                    _ => true,
                };
                if allowed {
                    Ok(())
                } else if value == HoleValue::CodeBlock {
                    Err(bad(&s.name, "an inline-cache stub refers to its function's code block"))
                } else {
                    Err(bad(&s.name, format!("refers to {value:?}, which only an inline-cache stub has")))
                }
            };
            let cold_name = format!("{}{COLD_PART_SUFFIX}", s.name);
            let cold_part = id.get(cold_name.as_str()).copied();
            let mut holes = Vec::with_capacity(s.holes.len());
            for h in &s.holes {
                let value = match &h.target {
                    HoleTarget::Data => HoleValue::Data,
                    HoleTarget::Symbol(name) => {
                        if let Some(value) = prologue_symbol(name, is_prologue).map_err(|m| bad(&s.name, m))? {
                            value
                        } else if let Some(value) = instruction_symbol(name, context).map_err(|m| bad(&s.name, m))? {
                            value
                        } else if *name == cold_name {
                            HoleValue::ColdPart
                        } else if cold_part_of(&s.name) == Some(name.as_str()) {
                            HoleValue::HotPart
                        } else if name.starts_with(rc::PREFIX) {
                            return Err(bad(&s.name, format!("unknown runtime constant '{name}'")));
                        } else if let Some(&k) = shared_index.get(name.as_str()) {
                            HoleValue::Shared(k)
                        } else if id.contains_key(name.as_str()) {
                            return Err(bad(&s.name, format!("refers to the stencil '{name}', which is only copied per instruction")));
                        } else {
                            let next = externals.len() as u16;
                            let k = *external_index.entry(name.clone()).or_insert_with(|| {
                                externals.push(name.clone());
                                next
                            });
                            HoleValue::External(k)
                        }
                    }
                };
                // A 64-bit runtime constant must have a 64-bit hole: a narrower one means LLVM
                // truncated it (see runtime-constant-range).
                let wide = match (value, context) {
                    (HoleValue::Pc | HoleValue::CodeBlock | HoleValue::Continuation(_), _) => true,
                    (HoleValue::IcKey | HoleValue::IcState, _) => is_call_stub,
                    (HoleValue::Operand(k), Some((v, _))) => {
                        runtime_constant_operands(v).nth(k as usize).is_some_and(|(o, enc)| enc.needs_64_bits(o.width))
                    }
                    _ => false,
                };
                if wide && h.kind != HoleKind::Abs64 {
                    return Err(bad(&s.name, format!("the 64-bit runtime constant {value:?} has a {:?} hole at offset {}", h.kind, h.offset)));
                }
                // The record lies in the code cache, within `rel32` reach, but anywhere in it.
                if value == HoleValue::SlowPathData && h.kind != HoleKind::PcRel32 {
                    return Err(bad(&s.name, format!("its SlowPathData record is addressed by a {:?} hole, not RIP-relative", h.kind)));
                }
                check_ic(value)?;
                holes.push(HoleOut { offset: h.offset, kind: h.kind, value, addend: h.addend });
            }
            let layout = layouts.get(&s.name).map(Vec::as_slice).unwrap_or_default();
            let mut slow_path_data = Vec::with_capacity(layout.len());
            if is_prologue && !layout.is_empty() {
                return Err(bad(&s.name, "the function prologue has a SlowPathData record (its slow paths may only read the frame)"));
            }
            for name in layout {
                match instruction_symbol(name, context).map_err(|m| bad(&s.name, m))? {
                    Some(HoleValue::SlowPathData) | None => {
                        return Err(bad(&s.name, format!("its SlowPathData names '{name}', which is not a value of the instruction")))
                    }
                    Some(value) => {
                        check_ic(value)?;
                        slow_path_data.push(value)
                    }
                }
            }
            // A stencil's record serves its cold part too, whose holes may be the only ones.
            let has_spd_hole = |s: &Stencil| s.holes.iter().any(|h| h.target == HoleTarget::Symbol(rc::SLOW_PATH_DATA.to_owned()));
            let uses_record = has_spd_hole(s) || cold_part.is_some_and(|c| has_spd_hole(&stencils[c as usize]));
            if cold_part_of(&s.name).is_some() {
                if !slow_path_data.is_empty() {
                    return Err(bad(&s.name, "a cold part has a SlowPathData layout of its own"));
                }
            } else if slow_path_data.is_empty() == uses_record {
                return Err(bad(&s.name, "a SlowPathData hole needs a record and a record needs its hole"));
            }
            let ends_with_jump_to_next = s.code.len() >= 5
                && s.code[s.code.len() - 5] == 0xe9
                && holes.last().is_some_and(|h| h.value == HoleValue::Next && h.kind == HoleKind::PcRel32 && h.offset == s.code.len() - 4);
            out.push(StencilOut { stencil: s, holes, ends_with_jump_to_next, slow_path_data, cold_part });
        }
        // The derive functions, in the order of their constants; every constant a hole names
        // must have one.
        let mut ic_derive = Vec::new();
        while let Some(&k) = shared_index.get(deegen_pass_ic_state_folding::derive_function(ic_derive.len()).as_str()) {
            ic_derive.push(k);
        }
        for st in &out {
            for value in st.holes.iter().map(|h| h.value).chain(st.slow_path_data.iter().copied()) {
                if let HoleValue::IcDerived(k) = value {
                    if usize::from(k) >= ic_derive.len() {
                        return Err(bad(&st.stencil.name, format!("derived constant {k} has no function computing it")));
                    }
                }
            }
        }
        let function_entry = id.get(rc::FUNCTION_ENTRY_STENCIL).copied();
        Ok(Tables { stencils: out, variants: variant_out, shared, externals, ic_derive, function_entry })
    }

    fn source(&self) -> String {
        let mut s = String::new();
        s.push_str("// Generated by tools/deegen (baseline JIT stencils). Do not edit.\n");
        s.push_str("use deegen_api::runtime_constants::OperandEncoding;\n");
        s.push_str("use deegen_baseline_jit::{HoleRecord, HoleValue, IcRecord, OperandRecord, StencilRecord, StencilTables, VariantRecord};\n");
        s.push_str("use deegen_stencil::HoleKind;\n\n");
        s.push_str("extern \"C\" {\n");
        for (k, name) in self.externals.iter().enumerate() {
            let _ = writeln!(s, "    #[link_name = \"{name}\"]\n    fn __deegen_external_{k}();");
        }
        s.push_str("}\n\n");
        s.push_str("static STENCILS: &[StencilRecord] = &[\n");
        for st in &self.stencils {
            let _ = writeln!(
                s,
                "    StencilRecord {{ name: \"{}\", code: &{:?}, data: &{:?}, data_align: {}, ends_with_jump_to_next: {}, cold_part: {:?}, slow_path_data: &[{}], holes: &[",
                st.stencil.name,
                st.stencil.code,
                st.stencil.data,
                st.stencil.data_align,
                st.ends_with_jump_to_next,
                st.cold_part,
                st.slow_path_data.iter().map(|v| format!("HoleValue::{v:?}")).collect::<Vec<_>>().join(", ")
            );
            for h in &st.holes {
                let _ = writeln!(
                    s,
                    "        HoleRecord {{ offset: {}, kind: HoleKind::{:?}, value: HoleValue::{:?}, addend: {} }},",
                    h.offset, h.kind, h.value, h.addend
                );
            }
            s.push_str("    ] },\n");
        }
        s.push_str("];\n\n");
        s.push_str("static VARIANTS: &[VariantRecord] = &[\n");
        for v in &self.variants {
            let _ = write!(
                s,
                "    VariantRecord {{ name: \"{}\", length: {}, main: {}, continuations: &{:?}, output_offset: {:?}, branch_offset: {:?}, ic: {}, operands: &[",
                v.name,
                v.length,
                v.main,
                v.continuations,
                v.output_offset,
                v.branch_offset,
                match &v.ic {
                    Some(IcOut { entry, stubs, cache_offset, kind, megamorphic, call }) => format!(
                        "Some(IcRecord {{ entry: {entry}, stubs: &{stubs:?}, cache_offset: {cache_offset}, kind: {kind:?}, megamorphic: {megamorphic:?}, call: {call} }})"
                    ),
                    None => "None".to_owned(),
                }
            );
            for (offset, width, signed, enc) in &v.operands {
                let _ = write!(s, "OperandRecord {{ offset: {offset}, width: {width}, signed: {signed}, encoding: OperandEncoding::{enc:?} }}, ");
            }
            s.push_str("] },\n");
        }
        s.push_str("];\n\n");
        let _ = writeln!(s, "static SHARED: &[u16] = &{:?};\n", self.shared);
        s.push_str("static EXTERNALS: &[(&str, unsafe extern \"C\" fn())] = &[\n");
        for (k, name) in self.externals.iter().enumerate() {
            let _ = writeln!(s, "    (\"{name}\", __deegen_external_{k}),");
        }
        s.push_str("];\n\n");
        s.push_str("/// The baseline JIT's stencils and tables for this language.\n");
        let _ = writeln!(s, "static IC_DERIVE: &[u16] = &{:?};\n", self.ic_derive);
        let _ = writeln!(
            s,
            "pub static BASELINE_STENCILS: StencilTables = StencilTables {{ stencils: STENCILS, variants: VARIANTS, shared: SHARED, externals: EXTERNALS, ic_derive: IC_DERIVE, function_entry: {}, emitters: EMITTERS }};",
            match self.function_entry {
                Some(k) => format!(
                    "Some(&VariantRecord {{ name: \"{}\", length: 0, main: {k}, continuations: &[], output_offset: None, branch_offset: None, ic: None, operands: &[] }})",
                    rc::FUNCTION_ENTRY_STENCIL
                ),
                None => "None".to_owned(),
            }
        );
        s.push('\n');
        s.push_str(&deegen_baseline_jit::emit::emitters_source(self.leak()));
        s
    }

    /// The tables as the JIT reads them, for generating the emitters from (leaked: the
    /// generator runs once per build). The externals have no addresses here; no emitter reads
    /// one.
    fn leak(&self) -> &'static StencilTables {
        unsafe extern "C" fn unresolved() {}
        fn leak<T>(v: Vec<T>) -> &'static [T] {
            Vec::leak(v)
        }
        let stencils = leak(
            self.stencils
                .iter()
                .map(|st| StencilRecord {
                    name: String::leak(st.stencil.name.clone()),
                    code: leak(st.stencil.code.clone()),
                    data: leak(st.stencil.data.clone()),
                    data_align: st.stencil.data_align as u32,
                    holes: leak(
                        st.holes.iter().map(|h| HoleRecord { offset: h.offset as u32, kind: h.kind, value: h.value, addend: h.addend }).collect(),
                    ),
                    ends_with_jump_to_next: st.ends_with_jump_to_next,
                    slow_path_data: leak(st.slow_path_data.clone()),
                    cold_part: st.cold_part,
                })
                .collect(),
        );
        let variant = |v: &VariantOut| VariantRecord {
            name: String::leak(v.name.clone()),
            length: v.length,
            main: v.main,
            continuations: leak(v.continuations.clone()),
            operands: leak(v.operands.iter().map(|&(offset, width, signed, encoding)| OperandRecord { offset, width, signed, encoding }).collect()),
            output_offset: v.output_offset,
            branch_offset: v.branch_offset,
            ic: v.ic.as_ref().map(|ic| IcRecord {
                entry: ic.entry,
                stubs: leak(ic.stubs.clone()),
                cache_offset: ic.cache_offset,
                kind: ic.kind,
                megamorphic: ic.megamorphic,
                call: ic.call,
            }),
        };
        let function_entry = self.function_entry.map(|main| {
            &*Box::leak(Box::new(VariantRecord {
                name: rc::FUNCTION_ENTRY_STENCIL,
                length: 0,
                main,
                continuations: &[],
                operands: &[],
                output_offset: None,
                branch_offset: None,
                ic: None,
            }))
        });
        Box::leak(Box::new(StencilTables {
            stencils,
            variants: leak(self.variants.iter().map(variant).collect()),
            shared: leak(self.shared.clone()),
            externals: leak(self.externals.iter().map(|n| (&*String::leak(n.clone()), unresolved as unsafe extern "C" fn())).collect()),
            ic_derive: leak(self.ic_derive.clone()),
            function_entry,
            emitters: &[],
        }))
    }
}

/// The operands of `v` that are runtime constants, in the order [`HoleValue::Operand`] indexes.
fn runtime_constant_operands(
    v: &Variant,
) -> impl Iterator<Item = (&deegen_bytecode_spec::ResolvedOperand, deegen_api::runtime_constants::OperandEncoding)> {
    v.operands.iter().filter_map(|o| Some((o, o.runtime_constant_encoding()?)))
}

/// The value of a symbol in the prologue stencil (`is_prologue`): where the first instruction's
/// code is, the function's parameter count and frame size. `None` for any other symbol; an
/// error for a value only an instruction has, in the prologue, or only the prologue has,
/// elsewhere.
fn prologue_symbol(name: &str, is_prologue: bool) -> Result<Option<HoleValue>, String> {
    let value = match name {
        rc::NUM_PARAMS => HoleValue::NumParams,
        rc::FRAME_SIZE => HoleValue::FrameSize,
        rc::NEXT if is_prologue => HoleValue::Next,
        _ if is_prologue && rc::is_per_instruction(name) => {
            return Err(format!("the function prologue refers to '{name}', which only an instruction has"))
        }
        _ => return Ok(None),
    };
    if !is_prologue {
        return Err(format!("refers to '{name}', which only the function prologue has"));
    }
    Ok(Some(value))
}

/// The value of a symbol that only an instruction's stencil has (a runtime constant, the next
/// instruction, the branch target, a continuation), resolved against the variant and its
/// continuations in `context`; `None` for any other symbol.
fn instruction_symbol(name: &str, context: Option<(&Variant, &Vec<String>)>) -> Result<Option<HoleValue>, String> {
    if !rc::is_per_instruction(name) {
        return Ok(None);
    }
    // An inline cache's values: the same meaning in every stub and IC entry.
    match name {
        rc::IC_KEY => return Ok(Some(HoleValue::IcKey)),
        rc::IC_STATE => return Ok(Some(HoleValue::IcState)),
        rc::IC_NEXT => return Ok(Some(HoleValue::IcNext)),
        rc::CALL_IC_KEY => return Ok(Some(HoleValue::IcKey)),
        rc::CALL_IC_CODE_BLOCK => return Ok(Some(HoleValue::IcState)),
        rc::CALL_IC_TARGET => return Ok(Some(HoleValue::CallTarget)),
        _ => {}
    }
    if let Some(k) = name.strip_prefix(rc::IC_DERIVED_PREFIX) {
        let k = k.parse::<u16>().map_err(|_| format!("'{name}' names no derived constant"))?;
        return Ok(Some(HoleValue::IcDerived(k)));
    }
    let (v, conts) = context.ok_or_else(|| format!("a helper refers to '{name}', which only an instruction's stencil has"))?;
    let value = if name == rc::PC {
        HoleValue::Pc
    } else if name == rc::CODE_BLOCK {
        HoleValue::CodeBlock
    } else if name == rc::OUTPUT {
        HoleValue::Output
    } else if name == rc::NEXT {
        HoleValue::Next
    } else if name == rc::BRANCH {
        HoleValue::Branch
    } else if name == rc::SLOW_PATH_DATA {
        HoleValue::SlowPathData
    } else if let Some(op) = name.strip_prefix(rc::OPERAND_PREFIX) {
        let k = runtime_constant_operands(v).position(|(o, _)| o.name == op).ok_or_else(|| format!("variant {} has no operand '{op}'", v.name))?;
        HoleValue::Operand(k as u8)
    } else {
        let k = &name[rc::CONTINUATION_PREFIX.len()..];
        let j = conts.iter().position(|c| c == k).ok_or_else(|| format!("variant {} has no continuation '{k}'", v.name))?;
        HoleValue::Continuation(j as u8)
    };
    Ok(Some(value))
}
