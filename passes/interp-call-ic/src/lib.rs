#![doc = include_str!("../README.md")]

use std::collections::HashSet;

use deegen_api::hooks;
use deegen_llvm_ir::raw::{Block, Value};
use deegen_llvm_ir::*;
use deegen_pass::{AnalysisManager, Pass, PassDescriptor, PassError, PassParams, PipelineError, PreservedAnalyses, RegisteredPass};
use inkwell::attributes::AttributeLoc;
use inkwell::module::Module;
use inkwell::values::{AsValueRef, BasicMetadataValueEnum, CallSiteValue, FunctionValue, InstructionOpcode};
use inkwell::IntPredicate;

/// The pass's one declaration (name, description, parameters, phases).
pub static DESCRIPTOR: PassDescriptor<LlvmPhase> = PassDescriptor {
    name: "interp-call-ic",
    description: "call inline caching: each call a bytecode's main component makes off its slow paths probes a (callee, code block) cache appended to the instruction",
    params: "",
    required: false,
    runs_in: &[LlvmPhase::Handlers],
    produces: None,
};
const MAKE_CALL: &str = "__deegen_api_make_call";
const MAKE_TAIL_CALL: &str = "__deegen_api_make_tail_call";

/// See the crate documentation.
#[derive(Debug, Default)]
pub struct InterpCallIc;

fn err(message: impl Into<String>) -> PassError {
    PassError::invalid_input(message)
}

impl<'ctx> Pass<LlvmModule<'ctx>> for InterpCallIc {
    fn run(&mut self, unit: &mut LlvmModule<'ctx>, _: &mut AnalysisManager<LlvmModule<'ctx>>) -> Result<PreservedAnalyses, PassError> {
        let module = &unit.module;
        // Parsed once; the layouts grown here are kept in step with `!deegen.call_ics`.
        let mut variants = read_variants(module).map_err(err)?;
        let mut cached_sites = 0;
        let mut cold_sites = 0;
        for f in defined_functions(module) {
            // Only a bytecode's main component: a continuation runs after the call it follows,
            // and its own calls (rare: a metamethod's result feeding another) stay uncached.
            if !function_attr(f, HANDLER_KIND_ATTR).is_some_and(|k| handler_kind::is_main_component(&k)) {
                continue;
            }
            let mut sites: Vec<CallSiteValue<'ctx>> =
                calls_in(f).into_iter().filter(|c| callee_name(*c).is_some_and(|n| n == MAKE_CALL || n == MAKE_TAIL_CALL)).collect();
            if sites.is_empty() {
                continue;
            }
            let hot = hot_blocks(Value(f.as_value_ref()));
            let before = sites.len();
            sites.retain(|c| hot.contains(&Value(call_instruction(*c).as_value_ref()).parent()));
            cold_sites += before - sites.len();
            if sites.is_empty() {
                continue;
            }
            let opcode: u16 = function_attr(f, VARIANT_ATTR)
                .and_then(|s| s.parse().ok())
                .ok_or_else(|| err(format!("'{}' has no valid \"{VARIANT_ATTR}\" attribute", f.get_name().to_string_lossy())))?;
            let variant = variants.get_mut(usize::from(opcode)).ok_or_else(|| err(format!("opcode {opcode} has no variant")))?;
            variant.add_call_ic();
            add_call_ic(module, opcode).map_err(err)?;
            let offset = variant.call_ic_offset.expect("just added");
            let _span = tracing::debug_span!("call-ic", variant = %variant.name, offset).entered();
            for site in sites {
                cache(module, f, site, offset).map_err(|m| err(format!("{}: {m}", f.get_name().to_string_lossy())))?;
                cached_sites += 1;
            }
        }
        tracing::debug!(cached_sites, cold_sites, "call inline caches");
        Ok(if cached_sites == 0 { PreservedAnalyses::all() } else { PreservedAnalyses::none() })
    }
}

impl RegisteredPass<LlvmModule<'_>> for InterpCallIc {
    const DESCRIPTOR: &'static PassDescriptor<LlvmPhase> = &DESCRIPTOR;
    fn from_params(params: &PassParams) -> Result<Self, PipelineError> {
        params.expect_only(&[])?;
        Ok(InterpCallIc)
    }
}

/// The blocks reachable from the entry without crossing an edge marked cold
/// (`!deegen.cold_edge`, from `type-hint-slow-paths`) or the untaken edge of a branch on a
/// constant (a check `type-check-strength-reduction` decided, e.g. in a variant that knows a
/// constant's type): where a call is worth a cache.
fn hot_blocks(f: Value) -> HashSet<Block> {
    let Some(&entry) = f.blocks().first() else { return HashSet::new() };
    let mut seen = HashSet::from([entry]);
    let mut work = vec![entry];
    while let Some(b) = work.pop() {
        let cold = b.cold_successors();
        let mut successors = b.successors();
        // `br i1 true, %a, %b` goes to %a only.
        if let Some(taken) = b.branch_condition().and_then(|c| c.const_u64()) {
            successors = vec![successors[if taken != 0 { 0 } else { 1 }]];
        }
        for s in successors {
            if !cold.contains(&s) && seen.insert(s) {
                work.push(s);
            }
        }
    }
    seen
}

/// The marker that makes the same call with the code block given.
fn cached_marker<'ctx>(module: &Module<'ctx>, tail: bool) -> FunctionValue<'ctx> {
    let name = if tail { MAKE_TAIL_CALL_WITH_CODE_BLOCK } else { MAKE_CALL_WITH_CODE_BLOCK };
    if let Some(f) = module.get_function(name) {
        return f;
    }
    let ctx = module.get_context();
    let ptr = ctx.ptr_type(Default::default());
    let i64t = ctx.i64_type();
    let params: Vec<inkwell::types::BasicMetadataTypeEnum> =
        if tail { vec![ptr.into(), i64t.into(), ptr.into()] } else { vec![ptr.into(), i64t.into(), ptr.into(), ptr.into()] };
    let f = module.add_function(name, ctx.void_type().fn_type(&params, false), None);
    for attr in ["noreturn", "nounwind"] {
        f.add_attribute(AttributeLoc::Function, ctx.create_enum_attribute(inkwell::attributes::Attribute::get_named_enum_kind_id(attr), 0));
    }
    f
}

/// Rewrites one `make_call(frame, n, k)` (or `make_tail_call(frame, n)`) into
///
/// ```text
///   %call_ic.hit = icmp eq (load frame[0]), (load pc+offset)      !deegen.call_ic_probe
///   br %call_ic.hit, %call_ic.hit, %call_ic.miss
/// call_ic.hit:  the cached code block (pc+offset+8)
/// call_ic.miss: the language hook's code block, stored with the callee into the cache
///               (in a stencil, an uncommon path: `deegen_llvm_ir::UNCOMMON_PATH_DIRECTIVE`)
/// call_ic.call: make_call_with_code_block(frame, n, k, phi)
/// ```
fn cache<'ctx>(module: &Module<'ctx>, f: FunctionValue<'ctx>, site: CallSiteValue<'ctx>, offset: u32) -> Result<(), String> {
    let inst = call_instruction(site);
    let after = inst
        .get_next_instruction()
        .filter(|i| i.get_opcode() == InstructionOpcode::Unreachable)
        .ok_or("a call marker must be followed by unreachable")?;
    let tail = callee_name(site).as_deref() == Some(MAKE_TAIL_CALL);
    let hook = module.get_function(hooks::CODE_BLOCK).ok_or_else(|| format!("the semantics do not define {}", hooks::CODE_BLOCK))?;
    let args: Vec<BasicMetadataValueEnum<'ctx>> =
        (0..if tail { 2 } else { 3 }).map(|i| deegen_llvm_ir::call_argument(site, i).map(Into::into)).collect::<Result<_, _>>()?;
    let frame = deegen_llvm_ir::pointer_argument(site, 0)?;
    let ctx = module.get_context();
    let b = ctx.create_builder();
    let ib = InterpBuilder::new(module, &b);
    let state = PinnedState::of(module, f);
    let e = |x: inkwell::builder::BuilderError| x.to_string();

    // Instructions are 2-byte aligned, their caches too: every access says so.
    let unaligned = |v: inkwell::values::InstructionValue<'ctx>| v.set_alignment(1).map_err(|x| x.to_string());

    b.position_before(&inst);
    let pc = state.pc_here(module, &b)?;
    let key_addr = ib.byte_offset(pc, ib.i64(u64::from(offset)), "call_ic.key.addr")?;
    let cached = ib.load_i64(key_addr, "call_ic.key")?;
    unaligned(cached.as_instruction().ok_or("a load")?)?;
    let callee = ib.load_i64(frame, "call_ic.callee")?;
    let hit = b.build_int_compare(IntPredicate::EQ, callee, cached, "call_ic.hit").map_err(e)?;
    hit.as_instruction()
        .ok_or("the probe is an instruction")?
        .set_metadata(ctx.metadata_node(&[]), ctx.get_kind_id(CALL_IC_PROBE_METADATA))
        .map_err(|x| x.to_string())?;
    let hit_bb = ctx.append_basic_block(f, "call_ic.hit");
    let miss_bb = ctx.append_basic_block(f, "call_ic.miss");
    let call_bb = ctx.append_basic_block(f, "call_ic.call");
    let probe = b.build_conditional_branch(hit, hit_bb, miss_bb).map_err(e)?;

    b.position_at_end(hit_bb);
    let cb_addr = ib.byte_offset(pc, ib.i64(u64::from(offset) + 8), "call_ic.code_block.addr")?;
    let cb_hit = ib.load_ptr(cb_addr, "call_ic.code_block")?;
    unaligned(cb_hit.as_instruction().ok_or("a load")?)?;
    b.build_unconditional_branch(call_bb).map_err(e)?;

    b.position_at_end(miss_bb);
    // A miss happens once at a monomorphic site, at every call of a polymorphic one: in JIT
    // code an uncommon path, out of the main stream but on the stencil's registers.
    // In an interpreter handler it stays in line, laid out after the hit (which then falls
    // through into the call instead of jumping over the fill).
    if is_stencil_function(f) {
        mark_uncommon_path(module, miss_bb)?;
    } else {
        deegen_llvm_ir::weigh_uncommon_successor(probe, 1)?;
    }
    let cb_miss = b
        .build_call(hook, &[callee.into()], "call_ic.new_code_block")
        .map_err(e)?
        .try_as_basic_value()
        .basic()
        .filter(|v| v.is_pointer_value())
        .ok_or_else(|| format!("{} must return a pointer", hooks::CODE_BLOCK))?
        .into_pointer_value();
    // The fill recomputes the cache's address rather than reuse the probe's, so the probe's
    // block keeps no value the other paths need (`call-ic-check-hoisting` relies on it).
    let key_addr_miss = ib.byte_offset(pc, ib.i64(u64::from(offset)), "call_ic.fill.key.addr")?;
    unaligned(b.build_store(key_addr_miss, callee).map_err(e)?)?;
    let cb_addr_miss = ib.byte_offset(pc, ib.i64(u64::from(offset) + 8), "call_ic.fill.code_block.addr")?;
    unaligned(b.build_store(cb_addr_miss, cb_miss).map_err(e)?)?;
    b.build_unconditional_branch(call_bb).map_err(e)?;

    b.position_at_end(call_bb);
    let cb = b.build_phi(ctx.ptr_type(Default::default()), "call_ic.callee_code_block").map_err(e)?;
    cb.add_incoming(&[(&cb_hit, hit_bb), (&cb_miss, miss_bb)]);
    let mut margs = args;
    margs.push(cb.as_basic_value().into());
    b.build_call(cached_marker(module, tail), &margs, "").map_err(e)?;
    b.build_unreachable().map_err(e)?;

    after.erase_from_basic_block();
    inst.erase_from_basic_block();
    Ok(())
}
