#![doc = include_str!("../README.md")]

use std::collections::HashSet;

use deegen_llvm_ir::raw::{Block, Value};
use deegen_llvm_ir::{defined_functions, function_attr, is_stencil_function, FunctionCfg, LlvmModule, LlvmPhase, UNCOMMON_PATH_DIRECTIVE};
use deegen_pass::{AnalysisManager, Pass, PassDescriptor, PassError, PassParams, PipelineError, PreservedAnalyses, RegisteredPass};
use deegen_pass_hot_cold_split::SLOW_PATH_OF_ATTR;
use inkwell::context::ContextRef;
use inkwell::values::{AsValueRef, FunctionValue, InstructionValue};

/// The pass's one declaration (name, description, parameters, phases).
pub static DESCRIPTOR: PassDescriptor<LlvmPhase> = PassDescriptor {
    name: "baseline-cold-split",
    description: "gives each stencil a synthesized profile in which its exits into AOT slow paths and its stated uncommon paths never run, so that llc's machine function splitter moves them into the stencil's cold part",
    params: "",
    required: false,
    runs_in: &[LlvmPhase::Finalized],
    produces: None,
};

/// The entry count of the synthesized profile: large against the splitter's threshold (a
/// count of 1024, `deegen_llvm_ir::target_machine`), so a hot block's share stays above it and
/// a cold block's (weight 0, which block frequencies round up to a small floor) below.
pub const ENTRY_COUNT: u64 = 1 << 30;

/// The weight a hot successor gets when its branch had no weights of its own.
const HOT_WEIGHT: u64 = 1 << 20;

#[derive(Debug, Default)]
pub struct BaselineColdSplit;

impl<'ctx> Pass<LlvmModule<'ctx>> for BaselineColdSplit {
    fn run(&mut self, unit: &mut LlvmModule<'ctx>, _: &mut AnalysisManager<LlvmModule<'ctx>>) -> Result<PreservedAnalyses, PassError> {
        let module = &unit.module;
        let slow_paths: HashSet<Value> = defined_functions(module)
            .into_iter()
            .filter(|f| function_attr(*f, SLOW_PATH_OF_ATTR).is_some())
            .map(|f| Value(f.as_value_ref()))
            .collect();
        let (mut stencils, mut edges) = (0usize, 0usize);
        for f in defined_functions(module) {
            if !is_stencil_function(f) {
                continue;
            }
            let cold = cold_blocks(f, &slow_paths);
            if cold.is_empty() {
                continue;
            }
            let _span = tracing::debug_span!("cold_split", stencil = %f.get_name().to_string_lossy()).entered();
            let n = weigh_cold_edges(f, &cold).map_err(PassError::invalid_input)?;
            give_entry_count(&module.get_context(), f);
            tracing::debug!(cold_blocks = cold.len(), cold_edges = n, "synthesized profile");
            stencils += 1;
            edges += n;
        }
        // The directives did their work; none may reach the object file as a call (AOT slow
        // paths copied them from their stencils).
        let mut directives = 0;
        for f in defined_functions(module) {
            for call in deegen_llvm_ir::calls_in(f) {
                let inst = deegen_llvm_ir::call_instruction(call);
                if is_uncommon_directive(Value(inst.as_value_ref())) {
                    inst.erase_from_basic_block();
                    directives += 1;
                }
            }
        }
        if let Some(d) = module.get_function(UNCOMMON_PATH_DIRECTIVE).filter(|d| Value(d.as_value_ref()).users().is_empty()) {
            // SAFETY: a declaration nothing refers to any more.
            unsafe { d.delete() };
            directives += 1;
        }
        tracing::debug!(stencils, cold_edges = edges, uncommon_directives = directives, "stencils with a cold part");
        Ok(if stencils == 0 && directives == 0 { PreservedAnalyses::all() } else { PreservedAnalyses::none() })
    }
}

impl RegisteredPass<LlvmModule<'_>> for BaselineColdSplit {
    const DESCRIPTOR: &'static PassDescriptor<LlvmPhase> = &DESCRIPTOR;
    fn from_params(params: &PassParams) -> Result<Self, PipelineError> {
        params.expect_only(&[])?;
        Ok(BaselineColdSplit)
    }
}

/// Whether `i` calls the uncommon-path directive.
fn is_uncommon_directive(i: Value) -> bool {
    i.callee().and_then(|c| c.global_name()).as_deref() == Some(UNCOMMON_PATH_DIRECTIVE)
}

/// The blocks of `f` that only lead to a tail call of one of its AOT slow paths (the blocks
/// that call one, and those all of whose successors are cold), and the uncommon paths the
/// semantics stated (every block a block with the uncommon-path directive dominates). The
/// entry never is.
fn cold_blocks(f: FunctionValue<'_>, slow_paths: &HashSet<Value>) -> HashSet<Block> {
    let fv = Value(f.as_value_ref());
    let blocks = fv.blocks();
    let Some((&entry, rest)) = blocks.split_first() else { return HashSet::new() };
    let exits_to_slow_path =
        |b: Block| b.successors().is_empty() && b.instructions().iter().any(|i| i.callee().is_some_and(|c| slow_paths.contains(&c)));
    let mut cold: HashSet<Block> = rest.iter().copied().filter(|&b| exits_to_slow_path(b)).collect();
    let uncommon: Vec<Block> = rest.iter().copied().filter(|b| b.instructions().into_iter().any(is_uncommon_directive)).collect();
    if !uncommon.is_empty() {
        let cfg = FunctionCfg::of(fv);
        cold.extend(rest.iter().copied().filter(|&b| uncommon.iter().any(|&u| cfg.dominates(u, b))));
    }
    loop {
        let before = cold.len();
        for &b in rest {
            let succ = b.successors();
            if !cold.contains(&b) && !succ.is_empty() && succ.iter().all(|s| cold.contains(s)) {
                cold.insert(b);
            }
        }
        if cold.len() == before {
            break;
        }
    }
    cold.remove(&entry);
    cold
}

/// Gives every edge from a hot block into a cold one the weight 0 (`!prof` branch weights,
/// one per successor), keeping the weights the hot successors had. Returns how many edges.
fn weigh_cold_edges(f: FunctionValue<'_>, cold: &HashSet<Block>) -> Result<usize, String> {
    let mut count = 0;
    for b in Value(f.as_value_ref()).blocks() {
        if cold.contains(&b) {
            continue;
        }
        let succ = b.successors();
        let n_cold = succ.iter().filter(|s| cold.contains(s)).count();
        if n_cold == 0 {
            continue;
        }
        let t = b.terminator_value().ok_or("a block without a terminator")?;
        let old = b.branch_weights().filter(|w| w.len() == succ.len());
        let weights: Vec<u32> = succ
            .iter()
            .enumerate()
            .map(|(i, s)| if cold.contains(s) { 0 } else { old.as_ref().map_or(HOT_WEIGHT, |w| w[i].max(1)).min(u64::from(u32::MAX)) as u32 })
            .collect();
        // SAFETY: `t` is an instruction of this module.
        deegen_llvm_ir::set_branch_weights(unsafe { InstructionValue::new(t.0) }, &weights)?;
        count += n_cold;
    }
    Ok(count)
}

/// The profile's entry count, which makes the weights counts; and no explicit section, which
/// the machine function splitter requires (LLVM still gives the hot part `.text.<name>` and
/// the cold part `.text.split.<name>`).
fn give_entry_count<'ctx>(ctx: &ContextRef<'ctx>, f: FunctionValue<'ctx>) {
    let node = ctx.metadata_node(&[ctx.metadata_string("function_entry_count").into(), ctx.i64_type().const_int(ENTRY_COUNT, false).into()]);
    f.as_global_value().set_metadata(node, ctx.get_kind_id("prof"));
    f.set_section(None);
}
