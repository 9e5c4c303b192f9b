#![doc = include_str!("../README.md")]

use deegen_api::runtime_constants as rc;
use deegen_api::symbols;
use deegen_bytecode_spec::Quickening;
use deegen_llvm_ir::*;
use deegen_pass::{AnalysisManager, Pass, PassDescriptor, PassError, PassParams, PipelineError, PreservedAnalyses, RegisteredPass};
use deegen_pass_interp_create_handlers::{continuations_of, EntryEnd, HandlerBuilder};

/// See the crate documentation.
#[derive(Debug, Default)]
pub struct BaselineCreateStencils;

/// The pass's one declaration (name, description, parameters, phases).
pub static DESCRIPTOR: PassDescriptor<LlvmPhase> = PassDescriptor {
    name: "baseline-create-stencils",
    description: "creates one baseline JIT stencil per bytecode variant and return continuation, its operands runtime constants, and the function prologue stencil",
    params: "",
    required: true,
    runs_in: &[LlvmPhase::Semantics],
    produces: Some(LlvmPhase::Handlers),
};

/// Name of the main stencil of `variant` (of a quickened variant: its IC stub).
pub fn stencil_name(variant: &str) -> String {
    format!("{}{variant}", symbols::STENCIL_PREFIX)
}

/// Name of the stencil of `variant`'s return continuation `continuation`.
pub fn continuation_stencil_name(variant: &str, continuation: &str) -> String {
    format!("{}{variant}__ret__{continuation}", symbols::STENCIL_PREFIX)
}

/// Name of the call inline-cache stencil of `variant` of kind `kind` (`call_ic_stub::*`, see
/// `interp-call-ic`).
pub fn call_ic_stub_name(variant: &str, kind: &str) -> String {
    format!("{}{variant}__call_ic_{kind}", symbols::STENCIL_PREFIX)
}

/// Whether the semantic function `name` may reach a guest-language call (`make_call`,
/// `make_tail_call`), through the functions it calls: its main component gets a call inline
/// cache (when `interp-call-ic` finds the call on a hot path), and its stencil a stub.
fn may_make_call(module: &inkwell::module::Module<'_>, name: &str) -> bool {
    let mut seen = std::collections::HashSet::from([name.to_owned()]);
    let mut work = vec![name.to_owned()];
    while let Some(n) = work.pop() {
        let Some(f) = module.get_function(&n) else { continue };
        for c in calls_in(f) {
            let Some(callee) = callee_name(c) else { continue };
            if callee == MAKE_CALL_MARKER || callee == MAKE_TAIL_CALL_MARKER {
                return true;
            }
            if seen.insert(callee.clone()) {
                work.push(callee);
            }
        }
    }
    false
}

const MAKE_CALL_MARKER: &str = "__deegen_api_make_call";
const MAKE_TAIL_CALL_MARKER: &str = "__deegen_api_make_tail_call";

/// Gives every stencil (and continuation body) LLVM's `optsize`: the JIT copies a stencil at
/// every instruction, so its bytes count where an interpreter handler's do not. Under it LLVM
/// neither vectorizes nor unrolls the copy loops of a call's return continuation (455 -> 124
/// bytes) and does not pad loop heads; the slow paths `hot-cold-split` outlines inherit it.
/// The interpreter's handlers keep the default.
fn optimize_stencils_for_size(module: &inkwell::module::Module<'_>) {
    let optsize = inkwell::attributes::Attribute::get_named_enum_kind_id("optsize");
    let ctx = module.get_context();
    for f in defined_functions(module) {
        if is_stencil_function(f) {
            f.add_attribute(inkwell::attributes::AttributeLoc::Function, ctx.create_enum_attribute(optsize, 0));
        }
    }
}

fn err(message: impl Into<String>) -> PassError {
    PassError::invalid_input(message)
}

impl<'ctx> Pass<LlvmModule<'ctx>> for BaselineCreateStencils {
    fn run(&mut self, unit: &mut LlvmModule<'ctx>, _: &mut AnalysisManager<LlvmModule<'ctx>>) -> Result<PreservedAnalyses, PassError> {
        let module = &unit.module;
        let variants = read_variants(module).map_err(err)?;
        if variants.is_empty() {
            return Err(err("the module carries no !deegen.variants: nothing to generate"));
        }
        let generated = defined_functions(module).into_iter().find(|f| function_attr(*f, HANDLER_KIND_ATTR).is_some());
        if let Some(f) = generated {
            return Err(err(format!("the module already has generated functions ('{}')", f.get_name().to_string_lossy())));
        }
        for hook in [deegen_api::hooks::CODE_BLOCK, deegen_api::hooks::NIL, deegen_api::hooks::ON_THROW] {
            if module.get_function(hook).is_none_or(|f| f.count_basic_blocks() == 0) {
                return Err(err(format!("the semantics do not define the hook '{hook}'")));
            }
        }
        let builder = HandlerBuilder::new(module);
        for v in &variants {
            builder.main_component(v, &stencil_name(&v.name), handler_kind::STENCIL)?;
            // A quickened variant's stencil is an IC stub: no continuations of its own (its
            // calls return into its base's, which compute the kind).
            if matches!(v.quickening, Some(Quickening::Quickened { .. })) {
                continue;
            }
            // The main component thrice more, as the stubs of its call inline cache (direct
            // and closure mode) and the generic code of a megamorphic site (their calls return
            // into the same continuations); `interp-call-ic` drops them when the call gets no
            // cache. (Not for a variant with a fused inline cache, whose stubs are its
            // quickened variants': its calls are a metamethod's.)
            if v.quickening.is_none() && may_make_call(module, &v.semantics) {
                for kind in [call_ic_stub::DIRECT, call_ic_stub::CLOSURE, call_ic_stub::GENERIC] {
                    let stub = builder.main_component(v, &call_ic_stub_name(&v.name, kind), handler_kind::STENCIL)?;
                    set_function_attr(stub, CALL_IC_STUB_ATTR, kind);
                }
            }
            for k in continuations_of(module, &v.semantics) {
                builder.continuation(
                    v,
                    &k,
                    &continuation_stencil_name(&v.name, &k),
                    [handler_kind::STENCIL_CONTINUATION, handler_kind::STENCIL_CONTINUATION_BODY],
                )?;
            }
        }
        // The prologue of every compiled function without variable arguments.
        builder.function_entry(rc::FUNCTION_ENTRY_STENCIL, handler_kind::STENCIL, false, EntryEnd::Stencil).map_err(err)?;
        optimize_stencils_for_size(module);
        Ok(PreservedAnalyses::none())
    }
}

impl RegisteredPass<LlvmModule<'_>> for BaselineCreateStencils {
    const DESCRIPTOR: &'static PassDescriptor<LlvmPhase> = &DESCRIPTOR;
    fn from_params(params: &PassParams) -> Result<Self, PipelineError> {
        params.expect_only(&[])?;
        Ok(BaselineCreateStencils)
    }
}
