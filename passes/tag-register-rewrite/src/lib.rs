#![doc = include_str!("../README.md")]

use deegen_api::symbols;
use deegen_llvm_ir::{
    call_instruction, calls_in, defined_functions, param, parse_u64, read_tag_registers, ControlFlow, LlvmModule, LlvmPhase, GHC_CALLING_CONV,
};
use deegen_pass::{AnalysisManager, Pass, PassDescriptor, PassError, PassParams, PipelineError, PreservedAnalyses, RegisteredPass};
use inkwell::builder::Builder;
use inkwell::values::{AsValueRef, BasicValueEnum, FunctionValue, InstructionOpcode, InstructionValue, IntValue};
use inkwell::IntPredicate;

/// The pass's one declaration (name, description, parameters, phases).
pub static DESCRIPTOR: PassDescriptor<LlvmPhase> = PassDescriptor {
    name: "tag-register-rewrite",
    description: "reads the boxing's two hottest 64-bit constants from the pinned tag registers R14, R15 (values default to !deegen.tag_registers)",
    params: "tag1=N;tag2=N",
    required: false,
    runs_in: &[LlvmPhase::Finalized],
    produces: None,
};

/// See the crate documentation.
#[derive(Debug, Default)]
pub struct TagRegisterRewrite {
    /// Values given as pipeline parameters; otherwise read from the module.
    tags: Option<[u64; 2]>,
}

fn err(message: impl Into<String>) -> PassError {
    PassError::invalid_input(message)
}

/// What one function's rewrite did, for the trace.
#[derive(Debug, Default, Clone, Copy)]
struct Counts {
    operands: usize,
    compares: usize,
}

impl<'ctx> Pass<LlvmModule<'ctx>> for TagRegisterRewrite {
    fn run(&mut self, unit: &mut LlvmModule<'ctx>, _: &mut AnalysisManager<LlvmModule<'ctx>>) -> Result<PreservedAnalyses, PassError> {
        let module = &unit.module;
        let tags = match self.tags {
            Some(t) => t,
            None => match read_tag_registers(module).map_err(err)? {
                Some(t) => t,
                None => {
                    tracing::debug!("no tag-register values declared: nothing to rewrite");
                    return Ok(PreservedAnalyses::all());
                }
            },
        };
        if tags[0] == tags[1] {
            return Err(err(format!("tag1 and tag2 are both {:#x}", tags[0])));
        }
        let i64t = module.get_context().i64_type();
        let builder = module.get_context().create_builder();
        let mut total = Counts::default();
        for f in defined_functions(module) {
            if f.get_call_conventions() == GHC_CALLING_CONV {
                check_pass_through(f)?;
                let regs = [param_of(f, param::TAG1)?, param_of(f, param::TAG2)?];
                let c = rewrite_constants(f, tags, regs, &builder)?;
                total.operands += c.operands;
                total.compares += c.compares;
            } else if [symbols::ENTER, symbols::RESUME].contains(&f.get_name().to_string_lossy().as_ref()) {
                // The doors from C: the interpreter's registers get their values here.
                for call in calls_in(f).into_iter().filter(|c| c.get_call_convention() == GHC_CALLING_CONV) {
                    let inst = call_instruction(call);
                    for (slot, value) in [(param::TAG1, tags[0]), (param::TAG2, tags[1])] {
                        if !inst.set_operand(slot, i64t.const_int(value, false)) {
                            return Err(err(format!("{}: a call into the interpreter has no tag argument {slot}", f.get_name().to_string_lossy())));
                        }
                    }
                }
            }
        }
        tracing::debug!(operands = total.operands, compares = total.compares, "tag constants now read from registers");
        // Constants became register reads; no block or edge changed.
        Ok(PreservedAnalyses::none().preserve::<_, ControlFlow>())
    }
}

fn param_of<'ctx>(f: FunctionValue<'ctx>, index: u32) -> Result<IntValue<'ctx>, PassError> {
    match f.get_nth_param(index) {
        Some(BasicValueEnum::IntValue(v)) if v.get_type().get_bit_width() == 64 => Ok(v),
        _ => Err(err(format!("{}: GHC-convention function without the i64 tag parameter {index}", f.get_name().to_string_lossy()))),
    }
}

/// Every GHC call `f` makes must hand its own tag parameters on: the registers hold the values
/// only because nothing in the interpreter ever writes anything else into them.
fn check_pass_through(f: FunctionValue<'_>) -> Result<(), PassError> {
    for call in calls_in(f).into_iter().filter(|c| c.get_call_convention() == GHC_CALLING_CONV) {
        let inst = call_instruction(call);
        for slot in [param::TAG1, param::TAG2] {
            let arg = inst.get_operand(slot).and_then(|o| o.value());
            let own = f.get_nth_param(slot);
            let same = match (arg, own) {
                (Some(a), Some(p)) => a.as_value_ref() == p.as_value_ref(),
                _ => false,
            };
            if !same {
                return Err(err(format!(
                    "{}: a call into the interpreter does not pass tag parameter {slot} through",
                    f.get_name().to_string_lossy()
                )));
            }
        }
    }
    Ok(())
}

/// The i64 value of a constant operand, if it is one.
fn const_i64(v: BasicValueEnum<'_>) -> Option<u64> {
    match v {
        BasicValueEnum::IntValue(i) if i.is_const() && i.get_type().get_bit_width() == 64 => i.get_zero_extended_constant(),
        _ => None,
    }
}

/// Whether operand `index` of `inst` may be replaced by a non-constant.
fn replaceable(inst: InstructionValue<'_>, index: u32) -> bool {
    match inst.get_opcode() {
        InstructionOpcode::Switch | InstructionOpcode::GetElementPtr | InstructionOpcode::ExtractValue | InstructionOpcode::InsertValue => false,
        InstructionOpcode::Call => {
            // The callee (last operand) and intrinsic arguments (which may be `immarg`) stay.
            let callee_index = inst.get_num_operands().saturating_sub(1);
            let intrinsic = inst
                .get_operand(callee_index)
                .and_then(|o| o.value())
                .and_then(|v| match v {
                    BasicValueEnum::PointerValue(p) => Some(p.get_name().to_string_lossy().starts_with("llvm.")),
                    _ => None,
                })
                .unwrap_or(true);
            index != callee_index && !intrinsic
        }
        _ => true,
    }
}

fn rewrite_constants<'ctx>(f: FunctionValue<'ctx>, tags: [u64; 2], regs: [IntValue<'ctx>; 2], builder: &Builder<'ctx>) -> Result<Counts, PassError> {
    let mut counts = Counts::default();
    let mut compares = Vec::new();
    for bb in f.get_basic_block_iter() {
        for inst in bb.get_instructions() {
            if inst.get_opcode() == InstructionOpcode::ICmp {
                compares.push(inst);
                continue;
            }
            for i in 0..inst.get_num_operands() {
                let Some(v) = inst.get_operand(i).and_then(|o| o.value()) else { continue };
                let Some(c) = const_i64(v) else { continue };
                if let Some(k) = tags.iter().position(|t| *t == c) {
                    if replaceable(inst, i) && inst.set_operand(i, regs[k]) {
                        counts.operands += 1;
                    }
                }
            }
        }
    }
    for inst in compares {
        let (Some(lhs), Some(rhs)) = (inst.get_operand(0).and_then(|o| o.value()), inst.get_operand(1).and_then(|o| o.value())) else {
            continue;
        };
        let (Some(pred), Some(c)) = (inst.get_icmp_predicate(), const_i64(rhs)) else { continue };
        let Some((new_pred, k)) = tags.iter().enumerate().find_map(|(k, &t)| equivalent_compare(pred, c, t).map(|p| (p, k))) else {
            continue;
        };
        builder.position_before(&inst);
        let lhs = lhs.into_int_value();
        let name = inst.get_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let new = builder.build_int_compare(new_pred, lhs, regs[k], "").map_err(|e| err(e.to_string()))?;
        let new_inst = new.as_instruction().ok_or_else(|| err("a compare of a non-constant folded away"))?;
        inst.replace_all_uses_with(&new_inst);
        inst.erase_from_basic_block();
        // Named only now, so it keeps the old name instead of getting a numbered one.
        new.set_name(&name);
        counts.compares += 1;
    }
    Ok(counts)
}

/// The predicate comparing against `tag` that means the same as `pred` against `c`, if any.
fn equivalent_compare(pred: IntPredicate, c: u64, tag: u64) -> Option<IntPredicate> {
    use IntPredicate::*;
    if c == tag {
        return Some(pred);
    }
    match pred {
        // x u< tag+1  <=>  x u<= tag;   x u>= tag+1  <=>  x u> tag
        ULT if tag.checked_add(1) == Some(c) => Some(ULE),
        UGE if tag.checked_add(1) == Some(c) => Some(UGT),
        // x u> tag-1  <=>  x u>= tag;   x u<= tag-1  <=>  x u< tag
        UGT if tag.checked_sub(1) == Some(c) => Some(UGE),
        ULE if tag.checked_sub(1) == Some(c) => Some(ULT),
        _ => None,
    }
}

impl RegisteredPass<LlvmModule<'_>> for TagRegisterRewrite {
    const DESCRIPTOR: &'static PassDescriptor<LlvmPhase> = &DESCRIPTOR;
    fn from_params(params: &PassParams) -> Result<Self, PipelineError> {
        params.expect_only(&["tag1", "tag2"])?;
        let get = |key: &str| -> Result<Option<u64>, PipelineError> {
            params
                .get(key)
                .map(|v| {
                    parse_u64(v).ok_or_else(|| PipelineError::BadParameter {
                        pass: DESCRIPTOR.name.to_owned(),
                        message: format!("parameter '{key}' expects an integer (decimal or 0x hex), got '{v}'"),
                    })
                })
                .transpose()
        };
        let tags = match (get("tag1")?, get("tag2")?) {
            (Some(a), Some(b)) => Some([a, b]),
            (None, None) => None,
            _ => return Err(PipelineError::BadParameter { pass: DESCRIPTOR.name.to_owned(), message: "give both tag1 and tag2, or neither".into() }),
        };
        Ok(TagRegisterRewrite { tags })
    }
}

#[cfg(test)]
mod tests {
    use super::equivalent_compare;
    use inkwell::IntPredicate::*;

    #[test]
    fn neighbouring_constants_compare_against_the_tag() {
        let t = 0xFFF8_0000_0000_0001;
        assert_eq!(equivalent_compare(ULT, t, t), Some(ULT));
        assert_eq!(equivalent_compare(ULT, t + 1, t), Some(ULE));
        assert_eq!(equivalent_compare(UGT, t - 1, t), Some(UGE));
        assert_eq!(equivalent_compare(ULE, t - 1, t), Some(ULT));
        assert_eq!(equivalent_compare(UGE, t + 1, t), Some(UGT));
        // Signed compares and other neighbours are not equivalent.
        assert_eq!(equivalent_compare(SLT, t + 1, t), None);
        assert_eq!(equivalent_compare(UGT, t + 1, t), None);
        assert_eq!(equivalent_compare(ULT, u64::MAX, u64::MAX - 2), None);
        assert_eq!(equivalent_compare(ULE, 0, u64::MAX), None);
    }
}
