#![doc = include_str!("../README.md")]

use std::collections::{HashMap, HashSet};

use deegen_api::hooks;
use deegen_api::runtime_constants as rc;
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
        // Calls without effects: the language's type checks and the markers that read the
        // pinned state (a stub's probe may follow them: `CallVarArgs` reads the count of
        // variable results from the context before its call).
        let checkers = read_type_lattice(module).map_err(err)?.map(|lattice| Checkers::of(module, &lattice));
        let pure = |c: Value| {
            checkers.as_ref().is_some_and(|k| k.check_of(c).is_some())
                || c.callee().is_some_and(|f| deegen_api::symbols::PINNED_STATE_READS.contains(&f.name().as_str()))
        };
        // The call inline-cache stubs (baseline JIT) after every main component, so that each
        // finds its variant's cache already laid out.
        let (stubs, mains): (Vec<_>, Vec<_>) = defined_functions(module).into_iter().partition(|f| function_attr(*f, CALL_IC_STUB_ATTR).is_some());
        for f in mains {
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
            // A stencil reports its fills to the JIT only where its stubs can serve the call
            // (`StubSites`): a fill after `__call`'s handler would make a stub for the
            // metamethod that no execution of the instruction could hit, and an instruction
            // that gets no stubs would only pay for the report.
            let stub_sites = StubSites::of(f, &pure);
            let report: Vec<bool> = sites.iter().map(|c| stub_sites.serves(*c)).collect();
            for (site, report) in sites.into_iter().zip(report) {
                cache(module, f, site, offset, report).map_err(|m| err(format!("{}: {m}", f.get_name().to_string_lossy())))?;
                cached_sites += 1;
            }
        }
        let mut stub_count = 0;
        for f in stubs {
            let opcode: Option<u16> = function_attr(f, VARIANT_ATTR).and_then(|s| s.parse().ok());
            let offset = opcode.and_then(|o| variants.get(usize::from(o))).and_then(|v| v.call_ic_offset);
            let sites: Vec<CallSiteValue<'ctx>> =
                calls_in(f).into_iter().filter(|c| callee_name(*c).is_some_and(|n| n == MAKE_CALL || n == MAKE_TAIL_CALL)).collect();
            let hot = hot_blocks(Value(f.as_value_ref()));
            let sites: Vec<_> = sites.into_iter().filter(|c| hot.contains(&Value(call_instruction(*c).as_value_ref()).parent())).collect();
            let stub_sites = StubSites::of(f, &pure);
            match offset {
                Some(offset) if sites.iter().any(|c| stub_sites.serves(*c)) => {
                    let fail = |m: String| err(format!("{}: {m}", f.get_name().to_string_lossy()));
                    let mode = function_attr(f, CALL_IC_STUB_ATTR).unwrap_or_default();
                    for site in sites {
                        // Only a call a stub serves is probed (`StubSites`); another (after
                        // `__call`'s handler moved the arguments) is made uncached.
                        let fresh = stub_sites.serves(site);
                        match mode.as_str() {
                            call_ic_stub::DIRECT if fresh => cache_in_stub(module, f, site, false).map_err(fail)?,
                            call_ic_stub::CLOSURE if fresh => cache_in_stub(module, f, site, true).map_err(fail)?,
                            call_ic_stub::DIRECT | call_ic_stub::CLOSURE => {}
                            call_ic_stub::GENERIC => cache(module, f, site, offset, false).map_err(fail)?,
                            other => return Err(fail(format!("unknown call inline-cache stub kind '{other}'"))),
                        }
                    }
                    stub_count += 1;
                }
                // Its variant's call got no cache, or the stub would not pay: none.
                // SAFETY: nothing refers to a stub (the JIT finds it by name).
                _ => unsafe { f.delete() },
            }
        }
        tracing::debug!(cached_sites, cold_sites, call_ic_stubs = stub_count, "call inline caches");
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

/// The marker that makes the same call with the code block given (from the cache, or a
/// stub's constant entered directly: `direct`).
fn cached_marker<'ctx>(module: &Module<'ctx>, tail: bool, direct: bool) -> FunctionValue<'ctx> {
    let name = match (tail, direct) {
        (false, false) => MAKE_CALL_WITH_CODE_BLOCK,
        (true, false) => MAKE_TAIL_CALL_WITH_CODE_BLOCK,
        (false, true) => MAKE_CALL_DIRECT,
        (true, true) => MAKE_TAIL_CALL_DIRECT,
    };
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
///
/// In a baseline JIT stencil with `report`, the fill is followed by a call of the JIT
/// (`IC_FILLED`), which adds a stub for the callee; the copy a megamorphic site runs does not
/// report (its fills, at nearly every call, would find the site full).
fn cache<'ctx>(module: &Module<'ctx>, f: FunctionValue<'ctx>, site: CallSiteValue<'ctx>, offset: u32, report: bool) -> Result<(), String> {
    let CallMarker { inst, after, tail, args } = CallMarker::of(site)?;
    let hook = module.get_function(hooks::CODE_BLOCK).ok_or_else(|| format!("the semantics do not define {}", hooks::CODE_BLOCK))?;
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
    let cb_miss = code_block_of(&b, hook, callee, "call_ic.new_code_block")?;
    // The fill recomputes the cache's address rather than reuse the probe's, so the probe's
    // block keeps no value the other paths need (`call-ic-check-hoisting` relies on it).
    let key_addr_miss = ib.byte_offset(pc, ib.i64(u64::from(offset)), "call_ic.fill.key.addr")?;
    unaligned(b.build_store(key_addr_miss, callee).map_err(e)?)?;
    let cb_addr_miss = ib.byte_offset(pc, ib.i64(u64::from(offset) + 8), "call_ic.fill.code_block.addr")?;
    unaligned(b.build_store(cb_addr_miss, cb_miss).map_err(e)?)?;
    // The baseline JIT's instruction tells the JIT, which adds a stub for the callee to the
    // instruction's chain (`deegen_api::runtime_constants::IC_FILLED`, kind 0).
    if report && is_stencil_function(f) {
        let ptr = ctx.ptr_type(Default::default());
        let i32t = ctx.i32_type();
        let filled = module
            .get_function(rc::IC_FILLED)
            .unwrap_or_else(|| module.add_function(rc::IC_FILLED, ctx.void_type().fn_type(&[ptr.into(), ptr.into(), i32t.into()], false), None));
        let pc = state.pc_here(module, &b)?;
        b.build_call(filled, &[state.ctx.into(), pc.into(), i32t.const_zero().into()], "").map_err(e)?;
    }
    b.build_unconditional_branch(call_bb).map_err(e)?;

    b.position_at_end(call_bb);
    let cb = b.build_phi(ctx.ptr_type(Default::default()), "call_ic.callee_code_block").map_err(e)?;
    cb.add_incoming(&[(&cb_hit, hit_bb), (&cb_miss, miss_bb)]);
    let mut margs = args;
    margs.push(cb.as_basic_value().into());
    b.build_call(cached_marker(module, tail, false), &margs, "").map_err(e)?;
    b.build_unreachable().map_err(e)?;

    after.erase_from_basic_block();
    inst.erase_from_basic_block();
    Ok(())
}

/// Rewrites one call of a call inline-cache stub (the baseline JIT's copy of the main
/// component, made per cached callee) into
///
/// ```text
///   %call_ic.hit = icmp eq (load frame[0]), CALL_IC_KEY          !deegen.call_ic_probe
///   br %call_ic.hit, %call_ic.hit, %call_ic.miss
/// call_ic.hit:  make_call_direct(frame, n, k, CALL_IC_CODE_BLOCK)  ; jmp CALL_IC_TARGET
/// call_ic.miss: ic_next                                            ; the chain's next stub
/// ```
///
/// The key, the code block and the target are the stub's runtime constants: a hit compares
/// the callee with an immediate and jumps straight to the callee's entry, with no load of the
/// cache and no indirect jump (the paper's direct call mode).
///
/// In `closure` mode the stub is keyed by the code block instead, for a site that calls many
/// closures of one function: the probe is `deegen_hook_code_block(callee) == CALL_IC_CODE_BLOCK`,
/// where the call is (the semantics reach it only with a value the hook accepts, as the
/// cache's fill does), so it is not hoisted above the callee's type check.
fn cache_in_stub<'ctx>(module: &Module<'ctx>, f: FunctionValue<'ctx>, site: CallSiteValue<'ctx>, closure: bool) -> Result<(), String> {
    let CallMarker { inst, after, tail, mut args } = CallMarker::of(site)?;
    let frame = deegen_llvm_ir::pointer_argument(site, 0)?;
    let ctx = module.get_context();
    let b = ctx.create_builder();
    let ib = InterpBuilder::new(module, &b);
    let e = |x: inkwell::builder::BuilderError| x.to_string();

    b.position_before(&inst);
    let callee = ib.load_i64(frame, "call_ic.callee")?;
    let hit = if closure {
        let hook = module.get_function(hooks::CODE_BLOCK).ok_or_else(|| format!("the semantics do not define {}", hooks::CODE_BLOCK))?;
        let cb = code_block_of(&b, hook, callee, "call_ic.callee_code_block")?;
        let cb = b.build_ptr_to_int(cb, ctx.i64_type(), "call_ic.callee_code_block.bits").map_err(e)?;
        let key_ptr = wide_runtime_constant(module, &b, rc::CALL_IC_CODE_BLOCK, "call_ic.key.rc")?;
        let key = b.build_ptr_to_int(key_ptr, ctx.i64_type(), "call_ic.key").map_err(e)?;
        b.build_int_compare(IntPredicate::EQ, cb, key, "call_ic.hit").map_err(e)?
    } else {
        let key_ptr = wide_runtime_constant(module, &b, rc::CALL_IC_KEY, "call_ic.key.rc")?;
        let key = b.build_ptr_to_int(key_ptr, ctx.i64_type(), "call_ic.key").map_err(e)?;
        let hit = b.build_int_compare(IntPredicate::EQ, callee, key, "call_ic.hit").map_err(e)?;
        hit.as_instruction()
            .ok_or("the probe is an instruction")?
            .set_metadata(ctx.metadata_node(&[]), ctx.get_kind_id(CALL_IC_PROBE_METADATA))
            .map_err(|x| x.to_string())?;
        hit
    };
    let hit_bb = ctx.append_basic_block(f, "call_ic.hit");
    let miss_bb = ctx.append_basic_block(f, "call_ic.miss");
    let probe = b.build_conditional_branch(hit, hit_bb, miss_bb).map_err(e)?;
    // (A stub's key is the one its site sees most: the miss goes on along the chain.)
    deegen_llvm_ir::weigh_uncommon_successor(probe, 1)?;

    b.position_at_end(hit_bb);
    let cb = wide_runtime_constant(module, &b, rc::CALL_IC_CODE_BLOCK, "call_ic.code_block")?;
    args.push(cb.into());
    b.build_call(cached_marker(module, tail, true), &args, "").map_err(e)?;
    b.build_unreachable().map_err(e)?;

    b.position_at_end(miss_bb);
    let next = module.get_function(IC_NEXT_MARKER).unwrap_or_else(|| module.add_function(IC_NEXT_MARKER, ctx.void_type().fn_type(&[], false), None));
    b.build_call(next, &[], "").map_err(e)?;
    b.build_unreachable().map_err(e)?;

    after.erase_from_basic_block();
    inst.erase_from_basic_block();
    Ok(())
}

/// A `make_call(frame, n, k)` or `make_tail_call(frame, n)` marker: the call, the
/// `unreachable` after it, which it is, and its arguments.
struct CallMarker<'ctx> {
    inst: inkwell::values::InstructionValue<'ctx>,
    after: inkwell::values::InstructionValue<'ctx>,
    tail: bool,
    args: Vec<BasicMetadataValueEnum<'ctx>>,
}

impl<'ctx> CallMarker<'ctx> {
    fn of(site: CallSiteValue<'ctx>) -> Result<Self, String> {
        let inst = call_instruction(site);
        let after = inst
            .get_next_instruction()
            .filter(|i| i.get_opcode() == InstructionOpcode::Unreachable)
            .ok_or("a call marker must be followed by unreachable")?;
        let tail = callee_name(site).as_deref() == Some(MAKE_TAIL_CALL);
        let args = (0..if tail { 2 } else { 3 }).map(|i| deegen_llvm_ir::call_argument(site, i).map(Into::into)).collect::<Result<_, _>>()?;
        Ok(CallMarker { inst, after, tail, args })
    }
}

/// `callee`'s code block, from the language's hook.
fn code_block_of<'ctx>(
    b: &inkwell::builder::Builder<'ctx>,
    hook: FunctionValue<'ctx>,
    callee: inkwell::values::IntValue<'ctx>,
    name: &str,
) -> Result<inkwell::values::PointerValue<'ctx>, String> {
    b.build_call(hook, &[callee.into()], name)
        .map_err(|x| x.to_string())?
        .try_as_basic_value()
        .basic()
        .filter(|v| v.is_pointer_value())
        .map(|v| v.into_pointer_value())
        .ok_or_else(|| format!("{} must return a pointer", hooks::CODE_BLOCK))
}

/// The API markers that finish an instruction other than by a call: going on to the next one or
/// a branch target, or returning from the function.
const COMPLETING_MARKERS: &[&str] =
    &["__deegen_api_return", "__deegen_api_fallthrough", "__deegen_api_take_branch", "__deegen_api_return_from_function", "__deegen_api_return_in"];

/// The marker a stub's miss calls (`lower-interp-api`: a jump to `IC_NEXT`).
const IC_NEXT_MARKER: &str = "__deegen_api_ic_next";

/// Which calls of a main component a baseline JIT call stub serves. A stub is
/// a whole copy of the instruction, entered through a jump at its start, and its miss starts
/// the instruction over in the next stub, so
///
/// * only a call the entry reaches with nothing written on the way (no store, no call but to a
///   pure function) may be probed in a stub: starting over is still sound there;
/// * stubs pay only where the instruction's hot paths all make a call (a call bytecode), not
///   where most go on without one (an `__index` function's call in a table read): none of its
///   calls is served then.
struct StubSites<'p> {
    /// The blocks the entry reaches with nothing written.
    untouched: HashSet<Block>,
    /// A hot path finishes the instruction without a call.
    completes_without_call: bool,
    pure: &'p dyn Fn(Value) -> bool,
}

impl<'p> StubSites<'p> {
    fn of(f: FunctionValue<'_>, pure: &'p dyn Fn(Value) -> bool) -> Self {
        let hot = hot_blocks(Value(f.as_value_ref()));
        let completes_without_call = calls_in(f).iter().any(|c| {
            hot.contains(&Value(call_instruction(*c).as_value_ref()).parent())
                && callee_name(*c).is_some_and(|n| COMPLETING_MARKERS.contains(&n.as_str()))
        });
        // A block is untouched when every path from the entry to it writes nothing: all its
        // predecessors are untouched and write nothing themselves. (Some write-free path is
        // not enough: a tail call that closes upvalues on one branch and not on the other
        // would be served, and a miss would start the instruction over after the close.)
        // Optimistic start, then blocks are dropped until nothing changes.
        let function = Value(f.as_value_ref());
        let blocks = function.blocks();
        let Some(&entry) = blocks.first() else { return StubSites { untouched: HashSet::new(), completes_without_call, pure } };
        let writes: HashSet<Block> = blocks.iter().copied().filter(|b| b.instructions().into_iter().any(|i| i.may_write(pure))).collect();
        let predecessors: HashMap<Block, Vec<Block>> = blocks.iter().map(|&b| (b, function.predecessors(b))).collect();
        let mut untouched: HashSet<Block> = blocks.iter().copied().collect();
        loop {
            let dropped: Vec<Block> = untouched
                .iter()
                .copied()
                .filter(|&b| {
                    let ps = &predecessors[&b];
                    b != entry && (ps.is_empty() || ps.iter().any(|p| !untouched.contains(p) || writes.contains(p)))
                })
                .collect();
            if dropped.is_empty() {
                break;
            }
            for b in dropped {
                untouched.remove(&b);
            }
        }
        StubSites { untouched, completes_without_call, pure }
    }

    /// Whether a stub serves `call`: it runs with nothing written since the instruction began,
    /// in an instruction whose hot paths all call.
    fn serves(&self, call: CallSiteValue<'_>) -> bool {
        let call = Value(call_instruction(call).as_value_ref());
        let block = call.parent();
        !self.completes_without_call
            && self.untouched.contains(&block)
            && block.instructions().into_iter().take_while(|i| *i != call).all(|i| !i.may_write(self.pure))
    }
}
