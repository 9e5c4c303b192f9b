#![doc = include_str!("../README.md")]

use deegen_api::ic::symbols::{ENTRY_KEY, ENTRY_STATE, FUSED_KIND, IN_STUB, QUICKEN};
use deegen_api::runtime_constants as rc;
use deegen_bytecode_spec::{Quickening, Variant};
use deegen_llvm_ir::raw::Value;
use deegen_llvm_ir::*;
use deegen_pass::{AnalysisManager, Pass, PassDescriptor, PassError, PassParams, PipelineError, PreservedAnalyses, RegisteredPass};
use inkwell::values::{AsValueRef, CallSiteValue, FunctionValue, IntValue};

/// The pass's one declaration (name, description, parameters, phases).
pub static DESCRIPTOR: PassDescriptor<LlvmPhase> = PassDescriptor {
    name: "interp-ic-quickening",
    description: "dynamic quickening of inline caches fused into the opcode: a quickened variant's hit runs its kind's effect; every cache fill rewrites the opcode (and tells the baseline JIT, whose IC stubs take the cached entry as runtime constants)",
    params: "",
    required: true,
    runs_in: &[LlvmPhase::Handlers],
    produces: None,
};

/// The cleanup after lowering.
const CLEANUP: &str = "function(instcombine<no-verify-fixpoint>,simplifycfg)";

/// See the crate documentation.
#[derive(Debug, Default)]
pub struct InterpIcQuickening;

fn err(message: impl Into<String>) -> PassError {
    PassError::invalid_input(message)
}

/// The fused-cache marker calls of one handler.
struct Markers<'ctx> {
    kinds: Vec<CallSiteValue<'ctx>>,
    quickens: Vec<CallSiteValue<'ctx>>,
    /// The reads of the first entry's key and state, and the tests for an IC stub.
    keys: Vec<CallSiteValue<'ctx>>,
    states: Vec<CallSiteValue<'ctx>>,
    in_stub: Vec<CallSiteValue<'ctx>>,
}

impl<'ctx> Markers<'ctx> {
    fn of(f: FunctionValue<'ctx>) -> Self {
        let calls = calls_in(f);
        let named = |n: &str| calls.iter().copied().filter(|c| callee_name(*c).as_deref() == Some(n)).collect::<Vec<_>>();
        Markers { kinds: named(FUSED_KIND), quickens: named(QUICKEN), keys: named(ENTRY_KEY), states: named(ENTRY_STATE), in_stub: named(IN_STUB) }
    }

    fn is_empty(&self) -> bool {
        self.kinds.is_empty() && self.quickens.is_empty() && self.keys.is_empty() && self.states.is_empty() && self.in_stub.is_empty()
    }

    /// The markers that carry the number of kinds.
    fn all(&self) -> impl Iterator<Item = CallSiteValue<'ctx>> + '_ {
        self.kinds.iter().chain(&self.quickens).copied()
    }
}

impl<'ctx> Pass<LlvmModule<'ctx>> for InterpIcQuickening {
    fn run(&mut self, unit: &mut LlvmModule<'ctx>, analyses: &mut AnalysisManager<LlvmModule<'ctx>>) -> Result<PreservedAnalyses, PassError> {
        let variants = read_variants(&unit.module).map_err(err)?;
        // Read before any change: each function's cycles are looked up before it is lowered.
        let cfg = analyses.get::<ControlFlow>(unit);
        let module = &unit.module;
        let mut lowered = 0;
        for f in defined_functions(module) {
            let markers = Markers::of(f);
            if markers.is_empty() {
                continue;
            }
            let fname = f.get_name().to_string_lossy().into_owned();
            let kind = function_attr(f, HANDLER_KIND_ATTR);
            let opcode: Option<u16> = function_attr(f, VARIANT_ATTR).and_then(|s| s.parse().ok());
            // The semantic functions themselves, inlined into the handlers already, keep their
            // markers until interp-finalize drops them unused.
            let (Some(kind), Some(opcode)) = (kind, opcode) else { continue };
            let variant = variants.get(usize::from(opcode)).ok_or_else(|| err(format!("'{fname}': opcode {opcode} has no variant")))?;
            let _span = tracing::debug_span!("quicken", handler = %fname).entered();
            let f_cfg = cfg.function(Value(f.as_value_ref())).ok_or_else(|| err(format!("'{fname}' has no CFG")))?;
            lower(module, f, f_cfg, variant, &variants, &kind, &markers).map_err(|m| err(format!("{fname}: {m}")))?;
            lowered += 1;
        }
        tracing::debug!(handlers = lowered, "fused inline caches lowered");
        if lowered == 0 {
            return Ok(PreservedAnalyses::all());
        }
        // Fold the constant kinds now, so the IR after this pass (and the passes that reason
        // about type checks) sees each quickened handler's own path.
        run_llvm_pipeline(module, CLEANUP).map_err(err)?;
        Ok(PreservedAnalyses::none())
    }
}

impl RegisteredPass<LlvmModule<'_>> for InterpIcQuickening {
    const DESCRIPTOR: &'static PassDescriptor<LlvmPhase> = &DESCRIPTOR;
    fn from_params(params: &PassParams) -> Result<Self, PipelineError> {
        params.expect_only(&[])?;
        Ok(InterpIcQuickening)
    }
}

/// The `kinds` argument of a marker: a constant, equal to what the bytecode declares.
fn declared_kinds(site: CallSiteValue<'_>, kinds: u8) -> Result<(), String> {
    let arg = call_instruction(site)
        .get_operand(1)
        .and_then(|o| o.value())
        .filter(|v| v.is_int_value())
        .ok_or("a fused-cache marker lacks its (integer) kinds argument")?;
    let given = arg.into_int_value().get_zero_extended_constant().ok_or("the number of kinds of a fused cache must be a constant")?;
    if given != u64::from(kinds) {
        return Err(format!("the fused cache is run with {given} kinds; the bytecode declares {kinds}"));
    }
    Ok(())
}

/// The first argument of a marker (the computed kind, or the kind being cached).
fn kind_argument<'ctx>(site: CallSiteValue<'ctx>) -> Result<IntValue<'ctx>, String> {
    let arg = call_instruction(site)
        .get_operand(0)
        .and_then(|o| o.value())
        .filter(|v| v.is_int_value() && v.into_int_value().get_type().get_bit_width() == 32);
    Ok(arg.ok_or("a fused-cache marker takes an i32 kind first")?.into_int_value())
}

fn lower<'ctx>(
    module: &inkwell::module::Module<'ctx>,
    f: FunctionValue<'ctx>,
    cfg: &FunctionCfg,
    variant: &Variant,
    variants: &[Variant],
    handler_kind: &str,
    markers: &Markers<'ctx>,
) -> Result<(), String> {
    let base = variants.get(usize::from(variant.base_opcode())).ok_or("the base variant is missing")?;
    let Some(Quickening::Base { first, kinds }) = base.quickening else {
        return Err(format!(
            "runs a fused inline cache, but bytecode '{}' declares none (give its cache operand OperandKind::FusedInlineCache)",
            variant.bytecode
        ));
    };
    if markers.kinds.len() > 1 || markers.quickens.len() > 1 {
        return Err("a fused inline cache runs at most once per bytecode (more than one use found)".into());
    }
    for site in markers.all() {
        declared_kinds(site, kinds)?;
        if cfg.on_cycle(Value(call_instruction(site).as_value_ref()).parent()) {
            return Err("a fused inline cache must not run in a loop (a hit could find another kind than the opcode's)".into());
        }
    }
    let ctx = module.get_context();
    let b = ctx.create_builder();
    let e = |x: inkwell::builder::BuilderError| x.to_string();

    // A stencil of a quickened variant is an IC stub (`baseline-create-stencils` makes no
    // other): the first entry is its constants, and its hit is its kind's.
    let stub = handler_kind == handler_kind::STENCIL && matches!(variant.quickening, Some(Quickening::Quickened { .. }));
    // The kind of a hit: the opcode's in a quickened main component or a stub, computed
    // elsewhere.
    let constant_kind = match variant.quickening {
        Some(Quickening::Quickened { kind, .. }) if handler_kind == handler_kind::BYTECODE || stub => Some(kind),
        _ => None,
    };
    let i32t = ctx.i32_type();
    // The first entry: loads of the cache (`entry` is its address), or a stub's constants.
    for (sites, symbol, offset) in [(&markers.keys, rc::IC_KEY, 0u64), (&markers.states, rc::IC_STATE, 4)] {
        for &site in sites {
            let inst = call_instruction(site);
            b.position_before(&inst);
            let value = if stub {
                let address = runtime_constant_symbol(module, symbol);
                let wide = b.build_ptr_to_int(address, ctx.i64_type(), "ic.const").map_err(e)?;
                b.build_int_truncate(wide, i32t, "ic.const32").map_err(e)?
            } else {
                let entry = call_instruction(site)
                    .get_operand(0)
                    .and_then(|o| o.value())
                    .filter(|v| v.is_pointer_value())
                    .ok_or("a cache-entry marker takes the entry's address")?
                    .into_pointer_value();
                // SAFETY: an `i8` GEP within the cache's 8 bytes per entry.
                let at = unsafe { b.build_gep(ctx.i8_type(), entry, &[ctx.i64_type().const_int(offset, false)], "ic.field") }.map_err(e)?;
                let load = b.build_load(i32t, at, "ic.entry").map_err(e)?;
                load.into_int_value().as_instruction().ok_or("a load is an instruction")?.set_alignment(1).map_err(|x| x.to_string())?;
                load.into_int_value()
            };
            let result =
                site.try_as_basic_value().basic().filter(|v| v.is_int_value()).ok_or("a cache-entry marker returns an i32")?.into_int_value();
            result.replace_all_uses_with(value);
            inst.erase_from_basic_block();
        }
    }
    for &site in &markers.in_stub {
        let result = site.try_as_basic_value().basic().filter(|v| v.is_int_value()).ok_or("the stub marker returns an i32")?.into_int_value();
        result.replace_all_uses_with(i32t.const_int(u64::from(stub), false));
        call_instruction(site).erase_from_basic_block();
    }
    for &site in &markers.kinds {
        let inst = call_instruction(site);
        let with = match constant_kind {
            Some(k) => ctx.i32_type().const_int(u64::from(k), false),
            None => kind_argument(site)?,
        };
        let result = site.try_as_basic_value().basic().filter(|v| v.is_int_value()).ok_or("the kind marker returns the (i32) kind")?.into_int_value();
        result.replace_all_uses_with(with);
        inst.erase_from_basic_block();
    }

    // A fill quickens: opcode = first + kind, over the instruction's first two bytes.
    let state = PinnedState::of(module, f);
    for &site in &markers.quickens {
        let inst = call_instruction(site);
        b.position_before(&inst);
        let pc = state.pc_here(module, &b)?;
        let kind = kind_argument(site)?;
        let kind16 = b.build_int_truncate(kind, ctx.i16_type(), "quicken.kind").map_err(e)?;
        let opcode = b.build_int_add(kind16, ctx.i16_type().const_int(u64::from(first), false), "quicken.opcode").map_err(e)?;
        let store = b.build_store(pc, opcode).map_err(e)?;
        store.set_alignment(2).map_err(|x| x.to_string())?;
        // The baseline JIT's generic code also tells the JIT, which adds a stub for the new
        // first entry to the instruction's chain.
        if handler_kind::is_stencil(handler_kind) && !stub {
            let ptr = ctx.ptr_type(Default::default());
            let hook = module
                .get_function(rc::IC_FILLED)
                .unwrap_or_else(|| module.add_function(rc::IC_FILLED, ctx.void_type().fn_type(&[ptr.into(), ptr.into(), i32t.into()], false), None));
            b.build_call(hook, &[state.ctx.into(), pc.into(), kind.into()], "").map_err(e)?;
        }
        inst.erase_from_basic_block();
    }
    Ok(())
}
