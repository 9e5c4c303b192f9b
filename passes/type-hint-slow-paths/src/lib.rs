#![doc = include_str!("../README.md")]

use std::collections::HashMap;

use deegen_bytecode_spec::TypeMask;
use deegen_llvm_ir::raw::Value;
use deegen_llvm_ir::{
    defined_functions, is_stencil_function, read_type_lattice, type_names_mask, Checkers, ControlFlow, LlvmModule, LlvmPhase, COLD_EDGE_METADATA,
    COLD_SPLIT_MARKER, HINT_METADATA,
};
use deegen_pass::{AnalysisManager, Pass, PassDescriptor, PassError, PassParams, PipelineError, PreservedAnalyses, RegisteredPass};
use inkwell::context::ContextRef;
use inkwell::values::{AsValueRef, InstructionOpcode, InstructionValue};

/// The pass's one declaration (name, description, parameters, phases).
pub static DESCRIPTOR: PassDescriptor<LlvmPhase> = PassDescriptor {
    name: "type-hint-slow-paths",
    description: "type-based and stated slow paths: on branches over type checks of hinted operands (!deegen.hint), the edge the hinted types do not take, and every edge into a deegen_api::cold_path() marker (jit_cold_path() in a stencil), are marked cold (!deegen.cold_edge) for hot-cold-split; uncommon_path() markers become baseline-cold-split's directive in stencils",
    params: "",
    required: false,
    runs_in: &[LlvmPhase::Handlers],
    produces: None,
};

/// See the crate documentation.
#[derive(Debug, Default)]
pub struct TypeHintSlowPaths;

fn err(message: impl Into<String>) -> PassError {
    PassError::invalid_input(message)
}

impl<'ctx> Pass<LlvmModule<'ctx>> for TypeHintSlowPaths {
    fn run(&mut self, unit: &mut LlvmModule<'ctx>, _: &mut AnalysisManager<LlvmModule<'ctx>>) -> Result<PreservedAnalyses, PassError> {
        let module = &unit.module;
        let stated = lower_cold_path_markers(module).map_err(err)? + lower_uncommon_path_markers(module).map_err(err)?;
        let Some(lattice) = read_type_lattice(module).map_err(err)? else {
            tracing::debug!("the module declares no type lattice: no hints to weigh");
            return Ok(if stated == 0 { PreservedAnalyses::all() } else { PreservedAnalyses::none() });
        };
        let checkers = Checkers::of(module, &lattice);
        let ctx = module.get_context();
        let hint_kind = ctx.get_kind_id(HINT_METADATA);
        let mut marked = 0;
        for f in defined_functions(module) {
            let mut hints: HashMap<Value, TypeMask> = HashMap::new();
            let mut branches = Vec::new();
            for bb in f.get_basic_blocks() {
                for inst in bb.get_instructions() {
                    if let Some(md) = inst.get_metadata(hint_kind) {
                        hints.insert(Value(inst.as_value_ref()), type_names_mask(&lattice, md.get_node_values(), HINT_METADATA).map_err(err)?);
                    }
                    if inst.get_opcode() == InstructionOpcode::Br && inst.get_num_operands() == 3 {
                        branches.push(inst);
                    }
                }
            }
            if hints.is_empty() {
                continue;
            }
            let hinted = |v: Value| hints.get(&v).copied();
            for br in branches {
                let Some(cond) = Value(br.as_value_ref()).parent().branch_condition() else { continue };
                let Some(taken) = checkers.outcome(cond, &hinted) else { continue };
                // `br i1 %c, label %true, label %false`: successor 0 is the true edge.
                mark_cold_successor(&ctx, br, if taken { 1 } else { 0 }).map_err(err)?;
                marked += 1;
            }
        }
        tracing::debug!(marked, "branch edges marked cold by type hints");
        if stated > 0 {
            // The markers' calls are gone.
            return Ok(PreservedAnalyses::none());
        }
        if marked == 0 {
            return Ok(PreservedAnalyses::all());
        }
        // Only metadata on branches changed.
        Ok(PreservedAnalyses::none().preserve::<_, ControlFlow>())
    }
}

impl RegisteredPass<LlvmModule<'_>> for TypeHintSlowPaths {
    const DESCRIPTOR: &'static PassDescriptor<LlvmPhase> = &DESCRIPTOR;
    fn from_params(params: &PassParams) -> Result<Self, PipelineError> {
        params.expect_only(&[])?;
        Ok(TypeHintSlowPaths)
    }
}

/// Slow paths the semantics state (`deegen_api::cold_path()`, and `jit_cold_path()` in a
/// baseline JIT stencil): every edge into a marker's block is marked cold (through blocks that
/// only pass control on, up to a few levels), and the marker's call is erased, or becomes the
/// split directive of `hot-cold-split` where no edge was marked, and always for
/// `jit_cold_path()`. A `jit_cold_path()` in any other function (an interpreter handler) is
/// only erased. Returns how many markers there were.
fn lower_cold_path_markers(module: &inkwell::module::Module<'_>) -> Result<usize, String> {
    let marker = module.get_function(deegen_api::COLD_PATH_MARKER);
    let jit_marker = module.get_function(deegen_api::JIT_COLD_PATH_MARKER);
    if marker.is_none() && jit_marker.is_none() {
        return Ok(0);
    }
    let ctx = module.get_context();
    let mut count = 0;
    for f in defined_functions(module) {
        let fv = Value(f.as_value_ref());
        let in_jit_code = is_stencil_function(f);
        for call in deegen_llvm_ir::calls_in(f) {
            let callee = call.get_called_fn_value();
            let jit_only = callee.is_some() && callee == jit_marker;
            if callee.is_none() || (callee != marker && !jit_only) {
                continue;
            }
            let inst = deegen_llvm_ir::call_instruction(call);
            if jit_only && !in_jit_code {
                inst.erase_from_basic_block();
                count += 1;
                continue;
            }
            let marker_block = Value(inst.as_value_ref()).parent();
            let mut marked = 0;
            for (br, index) in branches_into(fv, marker_block)? {
                mark_cold_successor(&ctx, br, u64::from(index))?;
                deegen_llvm_ir::weigh_rare_successor(br, index, STATED_WEIGHTS)?;
                marked += 1;
            }
            // Nothing branches into the marker (a continuation only a metamethod returns to
            // is a slow path from its start): `hot-cold-split` splits there, after the
            // optimizer, which would merge a block split here back into its predecessor. In a
            // stencil every marker is split there too, marked edges or not: the optimizer
            // threads branches past a marked edge (an array part's miss straight into the
            // probe of other keys; GetMethod's method-cache miss, past its key filter, into
            // the shape probe and the cache fill, twice), and a stencil's bytes are what the
            // JIT copies.
            if marked == 0 || in_jit_code {
                let split = module.get_function(COLD_SPLIT_MARKER).unwrap_or_else(|| {
                    module.add_function(COLD_SPLIT_MARKER, ctx.void_type().fn_type(&[], false), Some(inkwell::module::Linkage::External))
                });
                Value(inst.as_value_ref()).set_callee(Value(split.as_value_ref()));
                count += 1;
                continue;
            }
            inst.erase_from_basic_block();
            count += 1;
        }
    }
    if count > 0 {
        tracing::debug!(markers = count, "slow paths stated by the semantics");
    }
    Ok(count)
}

/// Uncommon paths the semantics state (`deegen_api::uncommon_path()`): in a baseline JIT
/// stencil the marker's call becomes a call of [`deegen_llvm_ir::UNCOMMON_PATH_DIRECTIVE`] (declared
/// `nounwind willreturn`), which the optimizer keeps where it is and `baseline-cold-split`
/// reads and erases; in any other function it is erased. No edge is marked: the path is not a
/// slow path. Returns how many markers there were.
fn lower_uncommon_path_markers(module: &inkwell::module::Module<'_>) -> Result<usize, String> {
    let Some(marker) = module.get_function(deegen_api::UNCOMMON_PATH_MARKER) else { return Ok(0) };
    let mut count = 0;
    for f in defined_functions(module) {
        let in_jit_code = is_stencil_function(f);
        for call in deegen_llvm_ir::calls_in(f) {
            if call.get_called_fn_value() != Some(marker) {
                continue;
            }
            let inst = deegen_llvm_ir::call_instruction(call);
            count += 1;
            if !in_jit_code {
                // An interpreter handler keeps the path in line, laid out after the common one.
                weigh_edge_into(Value(inst.as_value_ref()).parent())?;
                inst.erase_from_basic_block();
                continue;
            }
            let directive = deegen_llvm_ir::uncommon_path_directive(module);
            Value(inst.as_value_ref()).set_callee(Value(directive.as_value_ref()));
        }
    }
    if count > 0 {
        tracing::debug!(markers = count, "uncommon paths stated by the semantics");
    }
    Ok(count)
}

/// Gives the edge into `block` (an uncommon path of an interpreter handler) its branch
/// weights: the two-way branch it comes from, found through blocks that lead only here (the
/// marker may sit a few unconditional jumps past the branch, as rustc's unoptimized IR has it).
/// A block reached from several places, or by a switch, is left as it is (unlike a slow path's,
/// whose every way in is marked: `branches_into`).
fn weigh_edge_into(block: deegen_llvm_ir::raw::Block) -> Result<(), String> {
    let mut b = block;
    for _ in 0..8 {
        let preds = b.parent_function().predecessors(b);
        let [pred] = preds[..] else { return Ok(()) };
        let succs = pred.successors();
        match succs[..] {
            [only] if only == b => b = pred,
            [s0, s1] if s0 != s1 && (s0 == b || s1 == b) && pred.branch_condition().is_some() => {
                let br = pred.terminator_value().expect("a branch ends the block");
                // SAFETY: the branch is an instruction of this module's context.
                let br = unsafe { InstructionValue::new(br.0) };
                return deegen_llvm_ir::weigh_uncommon_successor(br, u32::from(s1 == b));
            }
            _ => return Ok(()),
        }
    }
    Ok(())
}

/// The two-way branches that lead into `block`, each with the index of its successor that
/// does: its predecessors', and those of blocks that only jump on towards it (at most four
/// deep: rustc's unoptimised IR puts such blocks between a branch and a statement).
fn branches_into<'ctx>(f: Value, block: deegen_llvm_ir::raw::Block) -> Result<Vec<(InstructionValue<'ctx>, u32)>, String> {
    let mut found = Vec::new();
    let mut work = vec![(block, 0)];
    while let Some((b, depth)) = work.pop() {
        for p in f.predecessors(b) {
            let t = p.terminator_value().ok_or("a block without a terminator")?;
            let successors = p.successors();
            if successors.len() == 2 && successors[0] != successors[1] {
                let index = successors.iter().position(|s| *s == b).expect("a predecessor") as u32;
                // SAFETY: `t` is an instruction of this module.
                found.push((unsafe { InstructionValue::new(t.0) }, index));
            } else if successors.len() == 1 && depth < 4 {
                work.push((p, depth + 1));
            }
        }
    }
    Ok(found)
}

/// Branch weights of a stated slow path's edge against the other (`!prof`): what the
/// optimizer keeps when it folds the branch into another (SimplifyCFG turns `if kind == A {..}
/// cold_path(); if kind == B {..}` into one `switch`, dropping `!deegen.cold_edge`), and what
/// `hot-cold-split` also reads (an edge at most 1/1000 of its branch's weight is cold), so the
/// stated slow path still leaves the handler. LLVM lays the cold side out last too.
const STATED_WEIGHTS: (u32, u32) = (1, 4000);

/// Marks successor `index` of `br` as a slow-path edge. The metadata names the edge by its
/// index, which LLVM does not update when it swaps a branch's successors or folds two branches
/// into one (it updates `!prof`): `cold_successors` trusts the index only where the branch's
/// weights, if it has any, still agree. A stated slow path's edge gets both; a type hint's
/// only the index (weights there made LLVM turn Add's two number checks into a `setb` and a
/// second branch).
fn mark_cold_successor<'ctx>(ctx: &ContextRef<'ctx>, br: InstructionValue<'ctx>, index: u64) -> Result<(), String> {
    let node = ctx.metadata_node(&[ctx.i32_type().const_int(index, false).into()]);
    br.set_metadata(node, ctx.get_kind_id(COLD_EDGE_METADATA)).map_err(|e| e.to_string())
}
