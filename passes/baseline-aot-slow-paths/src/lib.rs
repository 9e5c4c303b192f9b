#![doc = include_str!("../README.md")]

use std::collections::{BTreeMap, BTreeSet, HashMap};

use deegen_api::runtime_constants as rc;
use deegen_llvm_ir::raw::{Builder, Value};
use deegen_llvm_ir::{
    defined_functions, function_attr, handler_kind, near_runtime_constant, param, set_function_attr, wide_runtime_constant_symbol, LlvmModule,
    LlvmPhase, HANDLER_KIND_ATTR,
};
use deegen_pass::{AnalysisManager, Pass, PassDescriptor, PassError, PassParams, PipelineError, PreservedAnalyses, RegisteredPass};
use deegen_pass_hot_cold_split::SLOW_PATH_OF_ATTR;
use inkwell::module::{Linkage, Module};
use inkwell::values::{AsValueRef, FunctionValue, InstructionValue};

/// The pass's one declaration (name, description, parameters, phases).
pub static DESCRIPTOR: PassDescriptor<LlvmPhase> = PassDescriptor {
    name: "baseline-aot-slow-paths",
    description: "makes the slow paths hot-cold-split outlined from stencils AOT slow paths: compiled once, reading the instruction's runtime constants from its SlowPathData record",
    params: "",
    required: false,
    runs_in: &[LlvmPhase::Finalized],
    produces: None,
};

/// On a stencil: the symbols of its SlowPathData record's fields, in order, comma-separated
/// (absent when its slow paths need none).
pub const SLOW_PATH_DATA_ATTR: &str = "deegen-slow-path-data";

/// The layout of a stencil's SlowPathData record, from its [`SLOW_PATH_DATA_ATTR`].
pub fn slow_path_data_layout(stencil: FunctionValue<'_>) -> Vec<String> {
    function_attr(stencil, SLOW_PATH_DATA_ATTR).map(|s| s.split(',').filter(|f| !f.is_empty()).map(str::to_owned).collect()).unwrap_or_default()
}

/// See the crate documentation.
#[derive(Debug, Default)]
pub struct BaselineAotSlowPaths;

impl<'ctx> Pass<LlvmModule<'ctx>> for BaselineAotSlowPaths {
    fn run(&mut self, unit: &mut LlvmModule<'ctx>, _: &mut AnalysisManager<LlvmModule<'ctx>>) -> Result<PreservedAnalyses, PassError> {
        let module = &unit.module;
        let mut by_stencil: BTreeMap<String, Vec<FunctionValue<'ctx>>> = BTreeMap::new();
        for f in defined_functions(module) {
            let Some(owner) = function_attr(f, SLOW_PATH_OF_ATTR) else { continue };
            let name = f.get_name().to_string_lossy().into_owned();
            let o = module
                .get_function(&owner)
                .ok_or_else(|| PassError::invalid_input(format!("{name}: the slow path of '{owner}', which is missing")))?;
            match function_attr(o, HANDLER_KIND_ATTR) {
                Some(k) if handler_kind::is_stencil_entry(&k) => by_stencil.entry(owner).or_default().push(f),
                Some(k) if handler_kind::is_stencil(&k) => {
                    return Err(PassError::invalid_input(format!("{name}: a slow path of '{owner}' ({k}), which is not a stencil the JIT copies")));
                }
                // An interpreter handler's slow path reads the bytecode through the pc.
                _ => {}
            }
        }
        if by_stencil.is_empty() {
            return Ok(PreservedAnalyses::all());
        }
        // Other stencils that tail-call a stencil's slow paths (`baseline-aot-ic-generic`'s
        // megamorphic copy of a generic code that became one of them): they pass a record of
        // the same layout.
        let mut sharers: BTreeMap<String, Vec<FunctionValue<'ctx>>> = BTreeMap::new();
        for f in defined_functions(module) {
            if !function_attr(f, HANDLER_KIND_ATTR).is_some_and(|k| handler_kind::is_stencil_entry(&k)) {
                continue;
            }
            let name = f.get_name().to_string_lossy().into_owned();
            for block in Value(f.as_value_ref()).blocks() {
                for inst in block.instructions() {
                    let Some(owner) = inst.callee().and_then(|c| module.get_function(&c.name())).and_then(|c| function_attr(c, SLOW_PATH_OF_ATTR))
                    else {
                        continue;
                    };
                    let list = sharers.entry(owner.clone()).or_default();
                    if owner != name && !list.contains(&f) {
                        list.push(f);
                    }
                }
            }
        }
        let builder = Builder::new(module);
        let (mut stencils, mut slow_paths, mut fields_total) = (0usize, 0usize, 0usize);
        for (owner, slows) in &by_stencil {
            let _span = tracing::debug_span!("aot_slow_paths", stencil = %owner).entered();
            let mut fields = BTreeSet::new();
            for f in slows {
                collect_fields(*f, &mut fields).map_err(|e| PassError::invalid_input(format!("{}: {e}", f.get_name().to_string_lossy())))?;
            }
            let layout: Vec<String> = fields.into_iter().collect();
            let siblings: Vec<Value> = slows.iter().map(|f| Value(f.as_value_ref())).collect();
            for f in slows {
                rewrite(*f, &layout, &siblings, &builder)
                    .map_err(|e| PassError::invalid_input(format!("{}: {e}", f.get_name().to_string_lossy())))?;
                place_once(*f);
            }
            let stencil = module.get_function(owner).expect("looked up above");
            if !layout.is_empty() {
                for s in std::iter::once(&stencil).chain(sharers.get(owner).into_iter().flatten()) {
                    set_function_attr(*s, SLOW_PATH_DATA_ATTR, &layout.join(","));
                    pass_record_address(module, *s, slows).map_err(PassError::invalid_input)?;
                }
            }
            tracing::debug!(slow_paths = slows.len(), fields = ?layout, "AOT slow paths");
            stencils += 1;
            slow_paths += slows.len();
            fields_total += layout.len();
        }
        tracing::debug!(stencils, slow_paths, fields = fields_total, "stencil slow paths compiled once");
        Ok(PreservedAnalyses::none())
    }
}

impl RegisteredPass<LlvmModule<'_>> for BaselineAotSlowPaths {
    const DESCRIPTOR: &'static PassDescriptor<LlvmPhase> = &DESCRIPTOR;
    fn from_params(params: &PassParams) -> Result<Self, PipelineError> {
        params.expect_only(&[])?;
        Ok(BaselineAotSlowPaths)
    }
}

/// The per-instruction symbol a `movabs` call materializes, if `inst` is one.
fn wide_symbol(inst: Value) -> Option<String> {
    let asm = inst.inline_asm_text()?;
    wide_runtime_constant_symbol(&asm).map(str::to_owned)
}

/// Adds the per-instruction symbols under the constant `c` to `out`.
fn symbols_in_constant(c: Value, out: &mut BTreeSet<String>) -> Result<(), String> {
    if let Some(name) = c.global_name() {
        if name == rc::SLOW_PATH_DATA {
            return Err("refers to a SlowPathData record itself".into());
        }
        if rc::is_per_instruction(&name) {
            out.insert(name);
        }
    } else if c.is_constant_expr() {
        for o in c.operands() {
            symbols_in_constant(o, out)?;
        }
    }
    Ok(())
}

/// The per-instruction symbols slow path `f` uses.
fn collect_fields(f: FunctionValue<'_>, out: &mut BTreeSet<String>) -> Result<(), String> {
    for block in Value(f.as_value_ref()).blocks() {
        for inst in block.instructions() {
            if let Some(name) = wide_symbol(inst) {
                if rc::is_per_instruction(&name) {
                    out.insert(name);
                }
                continue;
            }
            for o in inst.operands() {
                symbols_in_constant(o, out)?;
            }
        }
    }
    Ok(())
}

/// Replaces every use of a layout symbol in `f` by a load of its field from the record whose
/// address arrives in the `pc` slot.
///
/// The record's address may go on, in the `pc` slot, to another slow path of the same stencil
/// (`siblings`): a slow path whose region reached the fast path's tail call of another one
/// (hot-cold-split copies shared blocks). The record is the same, its layout the union of
/// every slow path's fields. Any other use of the `pc` slot is an error.
fn rewrite(f: FunctionValue<'_>, layout: &[String], siblings: &[Value], builder: &Builder) -> Result<(), String> {
    let fv = Value(f.as_value_ref());
    let record = fv.param(param::PC);
    let passes_record_on = |u: &Value| {
        u.callee().is_some_and(|c| siblings.contains(&c)) && u.operands().iter().enumerate().all(|(i, o)| *o != record || i == param::PC as usize)
    };
    if !record.users().iter().all(passes_record_on) {
        return Err("reads the pc argument slot, which carries its SlowPathData record".into());
    }
    let blocks = fv.blocks();
    let first = blocks.first().and_then(|b| b.instructions().first().copied()).ok_or("has no body")?;
    builder.position_before(first);
    let fields: HashMap<&str, Value> =
        layout.iter().enumerate().map(|(k, name)| (name.as_str(), builder.load_i64_at(record, 8 * k as u64, true, &format!("spd.{name}")))).collect();
    let mut leaf = |g: Value| g.global_name().and_then(|n| fields.get(n.as_str()).copied());
    for block in blocks {
        for inst in block.instructions() {
            if let Some(name) = wide_symbol(inst) {
                if let Some(&v) = fields.get(name.as_str()) {
                    builder.position_before(inst);
                    inst.replace_and_erase(builder.from_i64(v, inst.type_of()));
                }
                continue;
            }
            let incoming = if inst.is_phi() { inst.incoming() } else { Vec::new() };
            for (i, o) in inst.operands().into_iter().enumerate() {
                let mut used = BTreeSet::new();
                symbols_in_constant(o, &mut used)?;
                if used.is_empty() {
                    continue;
                }
                // A phi's operand is computed at the end of the block it comes from.
                match incoming.get(i) {
                    Some((_, from)) => builder.position_before(from.terminator_value().ok_or("a block without a terminator")?),
                    None => builder.position_before(inst),
                }
                let v = builder.materialize_constant(o, &mut leaf)?;
                inst.set_operand(i as u32, v);
            }
        }
    }
    for v in fields.values() {
        if v.users().is_empty() {
            v.erase();
        }
    }
    Ok(())
}

/// A slow path without holes is a helper the JIT places once: its own section for the
/// stencil extractor, and a symbol the stencils' relocations can name.
fn place_once(f: FunctionValue<'_>) {
    f.set_section(Some(&format!(".text.{}", f.get_name().to_string_lossy())));
    f.set_linkage(Linkage::External);
    f.as_global_value().set_visibility(inkwell::GlobalVisibility::Hidden);
}

/// The stencil's tail calls of its slow paths pass the record's address in the `pc` slot.
fn pass_record_address<'ctx>(module: &Module<'ctx>, stencil: FunctionValue<'ctx>, slows: &[FunctionValue<'ctx>]) -> Result<(), String> {
    let targets: Vec<Value> = slows.iter().map(|f| Value(f.as_value_ref())).collect();
    let builder = module.get_context().create_builder();
    // One `lea` right before each tail call, kept there (pinned): the fast path does not
    // compute an address only its exits use, and `baseline-cold-split` moves each exit, `lea`
    // and all, into the stencil's cold part.
    for block in Value(stencil.as_value_ref()).blocks() {
        for inst in block.instructions() {
            if inst.callee().is_some_and(|c| targets.contains(&c)) {
                // SAFETY: `inst` is an instruction of this module.
                builder.position_before(&unsafe { InstructionValue::new(inst.0) });
                let record =
                    Value(near_runtime_constant(module, &builder, rc::SLOW_PATH_DATA, "spd", true).map_err(|e| e.to_string())?.as_value_ref());
                inst.set_operand(param::PC, record);
            }
        }
    }
    Ok(())
}
