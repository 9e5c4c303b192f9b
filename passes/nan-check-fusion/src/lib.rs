#![doc = include_str!("../README.md")]

use deegen_llvm_ir::raw::{Block, Builder, Value};
use deegen_llvm_ir::{defined_functions, is_stencil_function, parse_u64, read_nan_boxing, LlvmModule, LlvmPhase};
use deegen_pass::{AnalysisManager, Pass, PassDescriptor, PassError, PassParams, PipelineError, PreservedAnalyses, RegisteredPass};
use inkwell::llvm_sys::LLVMIntPredicate;
use inkwell::values::AsValueRef;

/// The pass's one declaration (name, description, parameters, phases).
pub static DESCRIPTOR: PassDescriptor<LlvmPhase> = PassDescriptor {
    name: "nan-check-fusion",
    description:
        "NaN-boxing: before comparing two doubles, one ordered fcmp stands in for both 'is a double' checks (bound defaults to !deegen.nan_boxing)",
    params: "doubles-below=N",
    required: false,
    runs_in: &[LlvmPhase::Finalized],
    produces: None,
};

/// The bit pattern of `-inf`: every pattern above it is a NaN.
const NEGATIVE_INFINITY_BITS: u64 = 0xFFF0_0000_0000_0000;

/// See the crate documentation.
#[derive(Debug, Default)]
pub struct NanCheckFusion {
    /// Given as a pipeline parameter; otherwise read from the module.
    doubles_below: Option<u64>,
}

fn err(message: impl Into<String>) -> PassError {
    PassError::invalid_input(message)
}

impl<'ctx> Pass<LlvmModule<'ctx>> for NanCheckFusion {
    fn run(&mut self, unit: &mut LlvmModule<'ctx>, _: &mut AnalysisManager<LlvmModule<'ctx>>) -> Result<PreservedAnalyses, PassError> {
        let module = &unit.module;
        let bound = match self.doubles_below {
            Some(b) => b,
            None => match read_nan_boxing(module).map_err(err)? {
                Some(b) => b,
                None => {
                    tracing::debug!("no NaN-boxing declared: nothing to fuse");
                    return Ok(PreservedAnalyses::all());
                }
            },
        };
        if bound <= NEGATIVE_INFINITY_BITS {
            return Err(err(format!(
                "doubles-below={bound:#x} leaves non-NaN patterns to non-doubles (it must be at least {:#x})",
                NEGATIVE_INFINITY_BITS + 1
            )));
        }
        let builder = Builder::new(module);
        let mut fused = 0;
        for f in defined_functions(module) {
            let in_jit_code = is_stencil_function(f);
            for b in Value(f.as_value_ref()).blocks() {
                let Some(recheck) = fuse(b, bound, &builder) else { continue };
                fused += 1;
                // Only NaNs and values that are not doubles get there: in a stencil, an
                // uncommon path (`baseline-cold-split` moves it to the cold part, so a
                // comparison's stencil ends with its two jumps and the branch can be inverted).
                if in_jit_code {
                    // SAFETY: a block of this module.
                    let bb = unsafe { inkwell::basic_block::BasicBlock::new(recheck.0) }.expect("a block");
                    deegen_llvm_ir::mark_uncommon_path(module, bb).map_err(err)?;
                }
            }
        }
        tracing::debug!(fused, "double-check pairs fused into one ordered compare");
        Ok(if fused == 0 { PreservedAnalyses::all() } else { PreservedAnalyses::none() })
    }
}

impl RegisteredPass<LlvmModule<'_>> for NanCheckFusion {
    const DESCRIPTOR: &'static PassDescriptor<LlvmPhase> = &DESCRIPTOR;
    fn from_params(params: &PassParams) -> Result<Self, PipelineError> {
        params.expect_only(&["doubles-below"])?;
        let doubles_below = match params.get("doubles-below") {
            Some(v) => Some(parse_u64(v).ok_or_else(|| PipelineError::BadParameter {
                pass: DESCRIPTOR.name.into(),
                message: format!("parameter 'doubles-below' expects an integer (decimal or 0x hex), got '{v}'"),
            })?),
            None => None,
        };
        Ok(NanCheckFusion { doubles_below })
    }
}

/// `Some((value, is_double))` for a check of `value` against the bound: `ult bound` /
/// `ule bound-1` test "is a double", `uge bound` / `ugt bound-1` "is not".
fn double_check(v: Value, bound: u64) -> Option<(Value, bool)> {
    let (pred, lhs, rhs) = v.icmp()?;
    let c = rhs.const_u64()?;
    if lhs.int_width() != Some(64) || lhs.const_u64().is_some() {
        return None;
    }
    match pred {
        LLVMIntPredicate::LLVMIntULT if c == bound => Some((lhs, true)),
        LLVMIntPredicate::LLVMIntULE if c == bound - 1 => Some((lhs, true)),
        LLVMIntPredicate::LLVMIntUGE if c == bound => Some((lhs, false)),
        LLVMIntPredicate::LLVMIntUGT if c == bound - 1 => Some((lhs, false)),
        _ => None,
    }
}

/// Whether `fast` starts by comparing the two values as doubles (after reading them as
/// doubles): the ordered test then costs the comparison nothing it would not do anyway. For
/// arithmetic the fusion does not pay: two integer compares against the tag register are two
/// fused micro-ops, while the ordered test waits for both values to reach vector registers
/// (measured: mandelbrot 0.71 s -> 0.99 s with Add/Mul fused).
fn compares_the_pair(fast: Block, lhs: Value, rhs: Value) -> bool {
    let read_as_double = |v: Value| v.is_bitcast_of().is_some_and(|src| src == lhs || src == rhs);
    for inst in fast.instructions() {
        if inst.is_phi() || read_as_double(inst) {
            continue;
        }
        return inst.is_fcmp() && inst.operands().iter().all(|o| read_as_double(*o)) && {
            let srcs: Vec<_> = inst.operands().iter().filter_map(|o| o.is_bitcast_of()).collect();
            srcs.contains(&lhs) && srcs.contains(&rhs)
        };
    }
    false
}

/// Fuses the double checks ending `b`, if it ends in them; the block that rechecks them when
/// the pair is unordered, if it did.
fn fuse(b: Block, bound: u64, builder: &Builder) -> Option<Block> {
    let cond = b.branch_condition()?;
    let (x, y, is_and) = cond.boolean_pair()?;
    let (Some((lhs, x_is)), Some((rhs, y_is))) = (double_check(x, bound), double_check(y, bound)) else { return None };
    // `a && b` of "is a double", or `a || b` of "is not" (the fast path is then the false edge).
    let fast_index = match (is_and, x_is, y_is) {
        (true, true, true) => 0,
        (false, false, false) => 1,
        _ => return None,
    };
    if lhs.type_of() != rhs.type_of() || lhs == rhs {
        return None;
    }
    // A recheck block this pass made (its one predecessor already tried the ordered compare).
    let f = b.parent_function();
    if let [pred] = f.predecessors(b).as_slice() {
        if pred.branch_condition().is_some_and(|c| c.is_fcmp_ord()) {
            return None;
        }
    }
    let succs = b.successors();
    let (fast, slow) = (succs[fast_index], succs[1 - fast_index]);
    if fast == slow || !compares_the_pair(fast, lhs, rhs) {
        return None;
    }
    let term = b.terminator_value().expect("a conditional branch ends the block");
    // The original checks move to a block of their own, reached when the pair is unordered
    // (copied, and the originals deleted once unused, so the fast path does not compute them).
    let recheck = f.append_block(&format!("{}.recheck", b.name()));
    builder.position_at_end(recheck);
    let (x2, y2) = (builder.insert_clone(x), builder.insert_clone(y));
    let cond2 = builder.insert_clone(cond);
    for (i, op) in cond2.operands().into_iter().enumerate() {
        if op == x {
            cond2.set_operand(i as u32, x2);
        } else if op == y {
            cond2.set_operand(i as u32, y2);
        }
    }
    let term2 = builder.insert_clone(term);
    term2.set_operand(0, cond2);
    for phi in slow.phis() {
        phi.retarget_incoming(b, recheck, builder);
    }
    for phi in fast.phis() {
        if let Some((v, _)) = phi.incoming().into_iter().find(|(_, from)| *from == b) {
            phi.add_incoming(v, recheck);
        }
    }
    builder.position_before(term);
    let ordered = builder.both_ordered(lhs, rhs);
    builder.cond_branch(ordered, fast, recheck);
    term.erase();
    for v in [cond, x, y] {
        if v.users().is_empty() {
            v.erase();
        }
    }
    Some(recheck)
}
