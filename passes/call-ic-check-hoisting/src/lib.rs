#![doc = include_str!("../README.md")]

use std::collections::HashSet;

use deegen_llvm_ir::raw::{Block, Builder, Value};
use deegen_llvm_ir::{
    call_ic_stub, defined_functions, function_attr, handler_kind, read_type_lattice, wide_runtime_constant_symbol, Checkers, LlvmModule, LlvmPhase,
    CALL_IC_PROBE_METADATA, CALL_IC_STUB_ATTR, HANDLER_KIND_ATTR,
};
use deegen_pass::{AnalysisManager, Pass, PassDescriptor, PassError, PassParams, PipelineError, PreservedAnalyses, RegisteredPass};
use inkwell::llvm_sys::{LLVMIntPredicate, LLVMOpcode};
use inkwell::values::AsValueRef;

/// The pass's one declaration (name, description, parameters, phases).
pub static DESCRIPTOR: PassDescriptor<LlvmPhase> = PassDescriptor {
    name: "call-ic-check-hoisting",
    description: "call IC check hoisting: a call IC probe right under a check of the callee that every callable value passes moves above the check, which a hit then skips",
    params: "",
    required: false,
    runs_in: &[LlvmPhase::Handlers],
    produces: None,
};

/// See the crate documentation.
#[derive(Debug, Default)]
pub struct CallIcCheckHoisting;

fn err(message: impl Into<String>) -> PassError {
    PassError::invalid_input(message)
}

impl<'ctx> Pass<LlvmModule<'ctx>> for CallIcCheckHoisting {
    fn run(&mut self, unit: &mut LlvmModule<'ctx>, _: &mut AnalysisManager<LlvmModule<'ctx>>) -> Result<PreservedAnalyses, PassError> {
        let module = &unit.module;
        let Some(lattice) = read_type_lattice(module).map_err(err)? else {
            tracing::debug!("the module declares no type lattice: no check is known to pass on a hit");
            return Ok(PreservedAnalyses::all());
        };
        if lattice.callable.is_empty() {
            tracing::debug!("the lattice declares no callable types: no check is known to pass on a hit");
            return Ok(PreservedAnalyses::all());
        }
        let checkers = Checkers::of(module, &lattice);
        let builder = Builder::new(module);
        let hoister = Hoister { checkers: &checkers, callable: lattice.callable, builder: &builder };
        let (mut hoisted, mut kept) = (0, 0);
        for f in defined_functions(module) {
            if !function_attr(f, HANDLER_KIND_ATTR).is_some_and(|k| handler_kind::is_main_component(&k)) {
                continue;
            }
            let probes: Vec<Value> = Value(f.as_value_ref())
                .blocks()
                .into_iter()
                .flat_map(Block::instructions)
                .filter(|i| i.has_metadata(CALL_IC_PROBE_METADATA))
                .collect();
            for probe in probes {
                match hoister.plan(probe) {
                    Some(plan) => {
                        // A baseline JIT call stub's miss goes on along the chain at once:
                        // the check and whatever follows it are the generic code's to run.
                        let stub = function_attr(f, CALL_IC_STUB_ATTR).as_deref() == Some(call_ic_stub::DIRECT);
                        hoister.apply(plan, stub);
                        hoisted += 1;
                    }
                    None => kept += 1,
                }
            }
        }
        tracing::debug!(hoisted, kept, "call IC probes hoisted above callee checks");
        Ok(if hoisted == 0 { PreservedAnalyses::all() } else { PreservedAnalyses::none() })
    }
}

impl RegisteredPass<LlvmModule<'_>> for CallIcCheckHoisting {
    const DESCRIPTOR: &'static PassDescriptor<LlvmPhase> = &DESCRIPTOR;
    fn from_params(params: &PassParams) -> Result<Self, PipelineError> {
        params.expect_only(&[])?;
        Ok(CallIcCheckHoisting)
    }
}

struct Hoister<'a> {
    checkers: &'a Checkers,
    callable: deegen_bytecode_spec::TypeMask,
    builder: &'a Builder,
}

/// A probe that may move, and what moves with it.
struct Plan {
    /// The probe's block, ended by `br %probe, %hit, %miss`.
    probe_block: Block,
    /// Its instructions: the cache address, the cached key, the callee, the compare.
    key_addr: Value,
    /// In a stencil, the instruction's address the cache address is computed from: a
    /// runtime constant materialized in the probe's block (a pure inline `movabs`), which moves
    /// to the check block with the probe (the hit side uses it too).
    moved_base: Option<Value>,
    key: Value,
    probe: Value,
    hit: Block,
    miss: Block,
    /// The block whose check of the callee decides the way to `probe_block`.
    check_block: Block,
    /// The callee as the check block has it (the hoisted probe compares it).
    callee: Value,
    /// What only computes the check (moved below the hoisted probe, so a hit skips it).
    check_only: Vec<Value>,
}

/// Whether `v` is a runtime constant's materialization (an inline asm without inputs or
/// effects, see `deegen_llvm_ir::wide_runtime_constant`): free to move to an earlier block.
fn is_runtime_constant(v: Value) -> bool {
    v.inline_asm_text().is_some_and(|asm| wide_runtime_constant_symbol(&asm).is_some())
}

impl Hoister<'_> {
    fn is_checker_call(&self, v: Value) -> bool {
        self.checkers.check_of(v).is_some()
    }

    /// The pattern of the crate documentation, or `None` when the probe stays.
    fn plan(&self, probe: Value) -> Option<Plan> {
        let (pred, a, b) = probe.icmp()?;
        if pred != LLVMIntPredicate::LLVMIntEQ {
            return None;
        }
        // interp-call-ic writes `icmp eq %callee, %key` with both loads in the probe's block;
        // in a call inline-cache stub the key is a runtime constant (`ptrtoint` of its
        // materialization), which moves as freely as the load.
        let (callee_load, key) = (a, b);
        let probe_block = probe.parent();
        let key_is_constant = key.opcode() == Some(LLVMOpcode::LLVMPtrToInt) && {
            let c = key.operands()[0];
            c.opcode().is_some() && c.parent() == probe_block && is_runtime_constant(c)
        };
        if callee_load.opcode() != Some(LLVMOpcode::LLVMLoad) || !(key_is_constant || key.opcode() == Some(LLVMOpcode::LLVMLoad)) {
            return None;
        }
        let key_addr = key.operands()[0];
        let callee_ptr = callee_load.operands()[0];
        let mut own: HashSet<Value> = [key_addr, key, callee_load, probe].into();
        let moved_base = key_addr
            .opcode()
            .filter(|o| !key_is_constant && *o == LLVMOpcode::LLVMGetElementPtr)
            .map(|_| key_addr.operands()[0])
            .filter(|base| base.opcode().is_some() && base.parent() == probe_block && is_runtime_constant(*base));
        own.extend(moved_base);
        let terminator = probe_block.terminator_value()?;
        // Nothing else happens in the probe's block: a hit may skip it entirely.
        if probe_block.instructions().into_iter().any(|i| i != terminator && !own.contains(&i)) {
            return None;
        }
        if probe_block.branch_condition() != Some(probe) {
            return None;
        }
        let [hit, miss] = probe_block.successors()[..] else { return None };
        // The hit side will no longer pass through the probe's block: it may use nothing from
        // there. (The callee's load stays for the miss side, which fills the cache with it.)
        // (A moved base dominates both sides from the check block.)
        let used_outside = |i: &Value| i.users().iter().any(|u| !own.contains(u) && *u != terminator);
        if !hit.phis().is_empty() || [key_addr, key, probe].iter().any(used_outside) {
            return None;
        }
        if callee_load.users().iter().any(|u| u.parent() != probe_block && u.parent() != miss) {
            return None;
        }
        let function = probe_block.parent_function();
        let [check_block] = function.predecessors(probe_block)[..] else { return None };
        let cond = check_block.branch_condition()?;
        let succ = check_block.successors();
        let toward_probe = match succ[..] {
            [t, f] if t == probe_block && f != probe_block => true,
            [t, f] if f == probe_block && t != probe_block => false,
            _ => return None,
        };
        // The callee as the check block loads it: the same slot, read in that block.
        let instructions = check_block.instructions();
        let position = |v: Value| instructions.iter().position(|i| *i == v);
        let callee = instructions.iter().copied().find(|i| i.opcode() == Some(LLVMOpcode::LLVMLoad) && i.operands()[0] == callee_ptr)?;
        let same_callee = |v: Value| {
            (v.opcode() == Some(LLVMOpcode::LLVMLoad) && v.operands()[0] == callee_ptr && v.parent() == check_block).then_some(self.callable)
        };
        // Every callable value takes the check's edge toward the probe, so a hit may skip it.
        if self.checkers.outcome(cond, &same_callee) != Some(toward_probe) {
            return None;
        }
        let check_terminator = check_block.terminator_value()?;
        // What only feeds the branch, and has no effect, moves below the hoisted probe.
        let mut check_only: Vec<Value> = Vec::new();
        for &i in instructions.iter().rev() {
            if i == check_terminator || i == callee || i.is_phi() || i.may_write(&|c| self.is_checker_call(c)) {
                continue;
            }
            if i.users().iter().all(|u| *u == check_terminator || check_only.contains(u)) {
                check_only.push(i);
            }
        }
        check_only.reverse();
        // From the callee's load (or the first instruction to move) on, nothing may write
        // memory: the hoisted probe reads the callee and the cache before whatever moves.
        let from = check_only.iter().filter_map(|i| position(*i)).chain(position(callee)).min()?;
        if instructions[from..].iter().any(|i| *i != check_terminator && i.may_write(&|c| self.is_checker_call(c))) {
            return None;
        }
        Some(Plan { probe_block, key_addr, moved_base, key, probe, hit, miss, check_block, callee, check_only })
    }

    /// ```text
    /// check_block:  ...; %hit = probe(callee); br %hit, %hit_block, %check
    /// check:        the moved check; br %cond, ...        (the old terminator)
    /// probe_block:  br %miss                              (reached only after a miss)
    /// ```
    ///
    /// With `miss_to_chain` (a direct call stub), the hoisted probe's miss goes straight to the
    /// probe's miss (the next stub), and the moved check is left unreachable.
    fn apply(&self, p: Plan, miss_to_chain: bool) {
        let b = self.builder;
        let function = p.check_block.parent_function();
        let check = function.append_block("call_ic.check");
        b.position_at_end(check);
        for i in &p.check_only {
            b.insert_moved(*i);
        }
        let old_terminator = p.check_block.terminator_value().expect("planned on a branch");
        b.insert_moved(old_terminator);
        for s in check.successors() {
            for phi in s.phis() {
                phi.retarget_incoming(p.check_block, check, b);
            }
        }

        b.position_at_end(p.check_block);
        if let Some(base) = p.moved_base {
            b.insert_moved(base);
        }
        let key_addr = b.insert_clone(p.key_addr);
        let key = b.insert_clone(p.key);
        key.set_operand(0, key_addr);
        let probe = b.insert_clone(p.probe);
        probe.set_operand(0, p.callee);
        probe.set_operand(1, key);
        let hoisted = b.cond_branch(probe, p.hit, if miss_to_chain { p.miss } else { check });
        let old = p.probe_block.terminator_value().expect("planned on a branch");
        // (A hit likely, in an interpreter handler: `interp-call-ic`.)
        hoisted.copy_branch_weights(old);
        if miss_to_chain {
            // The check, the old probe and what only they reached go.
            function.delete_unreachable_blocks(b);
            return;
        }

        // The old probe runs only after the hoisted one missed.
        b.position_before(old);
        b.branch(p.miss);
        old.erase();
        for i in [p.probe, p.key, p.key_addr] {
            if i.users().is_empty() {
                i.erase();
            }
        }
        for i in p.probe_block.instructions() {
            if i.opcode() == Some(LLVMOpcode::LLVMLoad) && i.users().is_empty() {
                i.erase();
            }
        }
    }
}
