#![doc = include_str!("../README.md")]

use std::collections::HashMap;

use deegen_bytecode_spec::TypeMask;
use deegen_llvm_ir::raw::Value;
use deegen_llvm_ir::{
    defined_functions, read_type_lattice, type_names_mask, Checkers, ControlFlow, LlvmModule, LlvmPhase, COLD_EDGE_METADATA, HINT_METADATA,
};
use deegen_pass::{AnalysisManager, Pass, PassDescriptor, PassError, PassParams, PipelineError, PreservedAnalyses, RegisteredPass};
use inkwell::context::ContextRef;
use inkwell::values::{AsValueRef, InstructionOpcode, InstructionValue};

/// The pass's one declaration (name, description, parameters, phases).
pub static DESCRIPTOR: PassDescriptor<LlvmPhase> = PassDescriptor {
    name: "type-hint-slow-paths",
    description: "type-based slow paths: on branches over type checks of hinted operands (!deegen.hint), the edge the hinted types do not take is marked cold (!deegen.cold_edge) for hot-cold-split",
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
        let Some(lattice) = read_type_lattice(module).map_err(err)? else {
            tracing::debug!("the module declares no type lattice: no hints to weigh");
            return Ok(PreservedAnalyses::all());
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

/// Marks successor `index` of `br` as a slow-path edge.
fn mark_cold_successor<'ctx>(ctx: &ContextRef<'ctx>, br: InstructionValue<'ctx>, index: u64) -> Result<(), String> {
    let node = ctx.metadata_node(&[ctx.i32_type().const_int(index, false).into()]);
    br.set_metadata(node, ctx.get_kind_id(COLD_EDGE_METADATA)).map_err(|e| e.to_string())
}
