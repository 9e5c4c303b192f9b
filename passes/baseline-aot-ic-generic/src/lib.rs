#![doc = include_str!("../README.md")]

use deegen_bytecode_spec::Quickening;
use deegen_llvm_ir::raw::{Builder, Value};
use deegen_llvm_ir::{
    defined_functions, function_attr, handler_kind, handler_type, param, read_variants, set_function_attr, LlvmModule, LlvmPhase, GHC_CALLING_CONV,
    HANDLER_KIND_ATTR, VARIANT_ATTR,
};
use deegen_pass::{AnalysisManager, Pass, PassDescriptor, PassError, PassParams, PipelineError, PreservedAnalyses, RegisteredPass};
use deegen_pass_hot_cold_split::SLOW_PATH_OF_ATTR;
use inkwell::attributes::AttributeLoc;
use inkwell::module::Linkage;
use inkwell::values::{AsValueRef, FunctionValue};

/// The pass's one declaration (name, description, parameters, phases).
pub static DESCRIPTOR: PassDescriptor<LlvmPhase> = PassDescriptor {
    name: "baseline-aot-ic-generic",
    description: "compiles the generic code of each instruction with a fused inline cache once, as an AOT function reading its SlowPathData record, leaves a trampoline to it as the stencil the JIT copies, and keeps the code as it was as the stencil of a megamorphic site's own copy",
    params: "",
    required: false,
    runs_in: &[LlvmPhase::Finalized],
    produces: None,
};

/// The suffix of the AOT function that holds a fused inline cache's generic code, after the
/// name of the stencil (now a trampoline) that reaches it.
pub const GENERIC_SUFFIX: &str = "__generic";

/// The suffix of the stencil of the generic code as it was (operands and successors as
/// holes), which the JIT copies for a site that goes megamorphic: such a site runs the
/// generic code at every access, and its own copy runs with immediates and jumps straight to
/// the next instruction instead of reading them from the record and jumping through a register
/// that every site of the variant shares (6% slower on a loop of megamorphic field reads).
pub const MEGAMORPHIC_SUFFIX: &str = "__megamorphic";

/// See the crate documentation.
#[derive(Debug, Default)]
pub struct BaselineAotIcGeneric;

impl<'ctx> Pass<LlvmModule<'ctx>> for BaselineAotIcGeneric {
    fn run(&mut self, unit: &mut LlvmModule<'ctx>, _: &mut AnalysisManager<LlvmModule<'ctx>>) -> Result<PreservedAnalyses, PassError> {
        let module = &unit.module;
        let variants = read_variants(module).map_err(PassError::invalid_input)?;
        let builder = Builder::new(module);
        let mut moved = 0usize;
        for f in defined_functions(module) {
            if function_attr(f, HANDLER_KIND_ATTR).as_deref() != Some(handler_kind::STENCIL) {
                continue;
            }
            let Some(opcode) = function_attr(f, VARIANT_ATTR).and_then(|s| s.parse::<usize>().ok()) else { continue };
            let name = f.get_name().to_string_lossy().into_owned();
            let variant = variants.get(opcode).ok_or_else(|| PassError::invalid_input(format!("'{name}': opcode {opcode} has no variant")))?;
            // The base variant of a fused cache runs the cache in the bytecode: the code every
            // miss of the instruction's stubs ends in. The quickened variants are the stubs.
            if !matches!(variant.quickening, Some(Quickening::Base { .. })) {
                continue;
            }
            let _span = tracing::debug_span!("aot_ic_generic", stencil = %name).entered();
            split(module, f, &name, &builder);
            moved += 1;
        }
        tracing::debug!(stencils = moved, "fused inline caches' generic code compiled once");
        Ok(if moved == 0 { PreservedAnalyses::all() } else { PreservedAnalyses::none() })
    }
}

impl RegisteredPass<LlvmModule<'_>> for BaselineAotIcGeneric {
    const DESCRIPTOR: &'static PassDescriptor<LlvmPhase> = &DESCRIPTOR;
    fn from_params(params: &PassParams) -> Result<Self, PipelineError> {
        params.expect_only(&[])?;
        Ok(BaselineAotIcGeneric)
    }
}

/// Splits stencil `f` (named `name`) three ways: the code as it was becomes the stencil
/// `<name>__megamorphic`, which the JIT copies for a site that goes megamorphic; a copy of it,
/// `<name>__generic`, becomes one more slow path of a new stencil `name` (the trampoline),
/// whose body tail-calls it with every argument as it came. The generic code passes its `pc`
/// slot (the record's address, once `baseline-aot-slow-paths` ran) on to the slow paths it
/// tail-calls.
fn split<'ctx>(module: &inkwell::module::Module<'ctx>, f: FunctionValue<'ctx>, name: &str, builder: &Builder) {
    // The slow paths `hot-cold-split` outlined from the stencil: they stay the stencil's (the
    // trampoline's), sharing its record with the generic code and the megamorphic copy.
    let slows: Vec<Value> = defined_functions(module)
        .into_iter()
        .filter(|s| function_attr(*s, SLOW_PATH_OF_ATTR).as_deref() == Some(name))
        .map(|s| Value(s.as_value_ref()))
        .collect();
    let section = f.get_section().map(|s| s.to_string_lossy().into_owned());
    let ty = handler_type(module.get_context());
    // A new GHC function `name` with `f`'s attributes.
    let like_f = |name: &str, linkage: Linkage| {
        let g = module.add_function(name, ty, Some(linkage));
        g.set_call_conventions(GHC_CALLING_CONV);
        for attr in f.attributes(AttributeLoc::Function) {
            g.add_attribute(AttributeLoc::Function, attr);
        }
        for (to, from) in g.get_param_iter().zip(f.get_param_iter()) {
            to.set_name(&from.get_name().to_string_lossy());
        }
        g
    };

    f.as_global_value().set_name(&format!("{name}{MEGAMORPHIC_SUFFIX}"));
    f.set_section(Some(&format!(".text.{name}{MEGAMORPHIC_SUFFIX}")));

    let generic = like_f(&format!("{name}{GENERIC_SUFFIX}"), Linkage::Internal);
    generic.remove_string_attribute(AttributeLoc::Function, HANDLER_KIND_ATTR);
    set_function_attr(generic, SLOW_PATH_OF_ATTR, name);
    let gv = Value(generic.as_value_ref());
    builder.clone_body_into(Value(f.as_value_ref()), gv);
    let record = gv.param(param::PC);
    for block in gv.blocks() {
        for inst in block.instructions() {
            if inst.callee().is_some_and(|c| slows.contains(&c)) {
                inst.set_operand(param::PC, record);
            }
        }
    }

    let trampoline = like_f(name, f.get_linkage());
    trampoline.set_section(section.as_deref());
    let tv = Value(trampoline.as_value_ref());
    builder.position_at_end(tv.append_block("entry"));
    let args: Vec<Value> = (0..param::COUNT).map(|i| tv.param(i)).collect();
    builder.musttail_ghc_call(ty, gv, &args);
}
