#![doc = include_str!("../README.md")]

use deegen_llvm_ir::raw::{Block, Builder, Value};
use deegen_llvm_ir::{defined_functions, is_stencil_function, parse_u64, read_nan_boxing, LlvmModule, LlvmPhase};
use deegen_pass::{AnalysisManager, Pass, PassDescriptor, PassError, PassParams, PipelineError, PreservedAnalyses, RegisteredPass};
use inkwell::llvm_sys::{LLVMIntPredicate, LLVMOpcode};
use inkwell::values::AsValueRef;

/// The pass's one declaration (name, description, parameters, phases).
pub static DESCRIPTOR: PassDescriptor<LlvmPhase> = PassDescriptor {
    name: "nan-check-fusion",
    description:
        "NaN-boxing: before comparing two doubles or arithmetic on them, one ordered fcmp stands in for both 'is a double' checks (bound defaults to !deegen.nan_boxing)",
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

/// Whether `fast` starts by comparing the two values as doubles, or by arithmetic on them
/// (after reading them as doubles): the ordered test then costs the comparison nothing it
/// would not do anyway, and the arithmetic two integer checks of bits that `load-as-double`
/// leaves in vector registers (see the README for what it cost before that pass).
///
/// Returns the comparison's operands (the values read as doubles) in the order the ordered
/// test should take them: the order x86 compares them in. LLVM lowers `olt`, `ole`, `ugt` and
/// `uge` to a `ucomisd` of the swapped pair (so that the branch reads the carry flag), and the
/// rest in order; with the ordered test's `ucomisd` on the same pair in the same order, llc
/// keeps one `ucomisd` for both (`ucomisd; jp <recheck>; jb <target>`), where the other order
/// left two. (Unordered is symmetric: either order is the same test.)
fn compares_the_pair(fast: Block, lhs: Value, rhs: Value) -> Option<(Value, Value)> {
    use inkwell::llvm_sys::LLVMRealPredicate::*;
    let read_as_double = |v: Value| v.is_bitcast_of().is_some_and(|src| src == lhs || src == rhs);
    for inst in fast.instructions() {
        if inst.is_phi() || read_as_double(inst) {
            continue;
        }
        let arithmetic = matches!(inst.opcode(), Some(LLVMOpcode::LLVMFAdd | LLVMOpcode::LLVMFSub | LLVMOpcode::LLVMFMul | LLVMOpcode::LLVMFDiv));
        if !(inst.is_fcmp() || arithmetic) || !inst.operands().iter().all(|o| read_as_double(*o)) {
            return None;
        }
        let srcs: Vec<_> = inst.operands().iter().filter_map(|o| o.is_bitcast_of()).collect();
        let [a, b] = srcs[..] else { return None };
        if !srcs.contains(&lhs) || !srcs.contains(&rhs) {
            return None;
        }
        if arithmetic {
            return Some((a, b));
        }
        return Some(match inst.fcmp_predicate()? {
            LLVMRealOLT | LLVMRealOLE | LLVMRealUGT | LLVMRealUGE => (b, a),
            _ => (a, b),
        });
    }
    None
}

/// Where `fast` goes for a pair of doubles of which one is a NaN, when that is known without
/// running it: `fast` is nothing but the comparison (its operands read as doubles, the `fcmp`,
/// the branch on it, none of it used elsewhere), an ordered predicate is false for a NaN and
/// an unordered one true.
fn unordered_outcome(fast: Block) -> Option<Block> {
    use inkwell::llvm_sys::LLVMRealPredicate::*;
    let insts = fast.instructions();
    let (_, body) = insts.split_last()?;
    let (&cmp, reads) = body.split_last()?;
    if fast.branch_condition() != Some(cmp) || !fast.phis().is_empty() {
        return None;
    }
    if !reads.iter().all(|r| r.is_bitcast_of().is_some()) || !body.iter().all(|i| i.users().iter().all(|u| u.parent() == fast)) {
        return None;
    }
    let unordered_is_true = match cmp.fcmp_predicate()? {
        LLVMRealULT | LLVMRealULE | LLVMRealUGT | LLVMRealUGE | LLVMRealUEQ | LLVMRealUNE | LLVMRealUNO | LLVMRealPredicateTrue => true,
        LLVMRealOLT | LLVMRealOLE | LLVMRealOGT | LLVMRealOGE | LLVMRealOEQ | LLVMRealONE | LLVMRealORD | LLVMRealPredicateFalse => false,
    };
    let succs = fast.successors();
    let outcome = succs[if unordered_is_true { 0 } else { 1 }];
    // Values the outcome's phis take from `fast` are defined before it (checked above: nothing
    // of `fast` is used outside it), so they reach the new edge too.
    Some(outcome)
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
    if fast == slow {
        return None;
    }
    let (first, second) = compares_the_pair(fast, lhs, rhs)?;
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
    // (Not when the outcome is the slow block itself: its phis already take the recheck's
    // edge, with the slow path's values.)
    match unordered_outcome(fast).filter(|&outcome| outcome != slow) {
        // A pair of doubles gets here only when one is a NaN, and the fast path's comparison
        // of it is known: go where it goes. The fast path then has one predecessor, this
        // block's, and llc keeps one `ucomisd` for the ordered test and the comparison (with
        // a second edge into it, the flags of the first could not be reused).
        Some(outcome) => {
            // Successor `fast_index` of the original branch is `fast` (and so of the clone).
            term2.set_successor(fast_index as u32, outcome);
            for phi in outcome.phis() {
                if let Some((v, _)) = phi.incoming().into_iter().find(|(_, from)| *from == fast) {
                    phi.add_incoming(v, recheck);
                }
            }
        }
        None => {
            for phi in fast.phis() {
                if let Some((v, _)) = phi.incoming().into_iter().find(|(_, from)| *from == b) {
                    phi.add_incoming(v, recheck);
                }
            }
        }
    }
    builder.position_before(term);
    debug_assert!((first, second) == (lhs, rhs) || (first, second) == (rhs, lhs));
    let ordered = builder.both_ordered(lhs, rhs, first != lhs);
    builder.cond_branch(ordered, fast, recheck);
    term.erase();
    for v in [cond, x, y] {
        if v.users().is_empty() {
            v.erase();
        }
    }
    Some(recheck)
}
