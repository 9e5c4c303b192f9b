#![doc = include_str!("../README.md")]

use deegen_llvm_ir::raw::{Builder, Value};
use deegen_llvm_ir::{defined_functions, LlvmModule, LlvmPhase};
use deegen_pass::{AnalysisManager, Pass, PassDescriptor, PassError, PassParams, PipelineError, PreservedAnalyses, RegisteredPass};
use inkwell::llvm_sys::LLVMOpcode;
use inkwell::values::AsValueRef;

/// The pass's one declaration (name, description, parameters, phases).
pub static DESCRIPTOR: PassDescriptor<LlvmPhase> = PassDescriptor {
    name: "load-as-double",
    description: "a 64-bit read whose value is only type-checked, passed on, and used as a double is read as a double (movsd), its bits taken from there for the checks; one also converted to an array index gets a second read, as a double, for that",
    params: "",
    required: false,
    runs_in: &[LlvmPhase::Finalized],
    produces: None,
};

/// See the crate documentation.
#[derive(Debug, Default)]
pub struct LoadAsDouble;

impl<'ctx> Pass<LlvmModule<'ctx>> for LoadAsDouble {
    fn run(&mut self, unit: &mut LlvmModule<'ctx>, _: &mut AnalysisManager<LlvmModule<'ctx>>) -> Result<PreservedAnalyses, PassError> {
        let builder = Builder::new(&unit.module);
        let (mut rewritten, mut split_off) = (0, 0);
        for f in defined_functions(&unit.module) {
            // Every decision first, then the edits: an edit erases instructions (the bitcasts)
            // that a walk still holding the block's instruction list would visit. A load's
            // decision depends only on its own uses, which no other load's edit touches.
            let mut edits = Vec::new();
            for b in Value(f.as_value_ref()).blocks() {
                for inst in b.instructions().into_iter().filter(|i| i.is_simple_load() && i.int_width() == Some(64)) {
                    if let Some(as_double) = used_as_a_checked_double(inst) {
                        edits.push((inst, as_double, false));
                    } else if let Some(as_double) = used_as_an_index(inst) {
                        edits.push((inst, as_double, true));
                    }
                }
            }
            for (load, as_double, index) in edits {
                if index {
                    split(load, &as_double, &builder);
                    split_off += 1;
                } else {
                    rewrite(load, &as_double, &builder);
                    rewritten += 1;
                }
            }
        }
        tracing::debug!(rewritten, split_off, "slot reads made double loads, or given one for their use as an index");
        Ok(if rewritten + split_off == 0 { PreservedAnalyses::all() } else { PreservedAnalyses::none() })
    }
}

impl RegisteredPass<LlvmModule<'_>> for LoadAsDouble {
    const DESCRIPTOR: &'static PassDescriptor<LlvmPhase> = &DESCRIPTOR;
    fn from_params(params: &PassParams) -> Result<Self, PipelineError> {
        params.expect_only(&[])?;
        Ok(LoadAsDouble)
    }
}

/// For a simple (not volatile, not atomic) `load i64` (the only instructions `run` asks
/// about) whose every use is a `bitcast` to
/// `double`, a comparison with a constant or a parameter (a type check: the bound is a
/// constant, or the tag register's parameter after `tag-register-rewrite`), or an argument of
/// a call (a slow path's live value): the bitcasts. `None` when there is no bitcast (nothing
/// to gain) or any other use: an integer or pointer use (a table's address masked out of the
/// value, an equality of two values' bits) would wait for the bits to come back from the
/// vector register on a path that never wanted a double.
fn used_as_a_checked_double(load: Value) -> Option<Vec<Value>> {
    let mut bitcasts = Vec::new();
    for user in load.users() {
        if reads_as_double(user, load) {
            bitcasts.push(user);
            continue;
        }
        let type_check = user.icmp().is_some_and(|(_, a, b)| {
            let other = if a == load { b } else { a };
            other != load && (other.is_constant() || other.is_argument())
        });
        let passed_on = user.opcode() == Some(LLVMOpcode::LLVMCall) && user.callee() != Some(load);
        if !type_check && !passed_on {
            return None;
        }
    }
    (!bitcasts.is_empty()).then_some(bitcasts)
}

/// For a `load i64` not [`used_as_a_checked_double`] (it has an integer use too: a table
/// key, whose string path masks a pointer out of it) of which a bitcast to `double` is
/// converted to an integer (an array index: `cvttsd2si`): the bitcasts.
fn used_as_an_index(load: Value) -> Option<Vec<Value>> {
    let bitcasts: Vec<Value> = load.users().into_iter().filter(|&u| reads_as_double(u, load)).collect();
    bitcasts.iter().any(|&c| converted_to_integer(c, 2)).then_some(bitcasts)
}

/// Whether `user` is `bitcast load to double`.
fn reads_as_double(user: Value, load: Value) -> bool {
    user.is_bitcast_of() == Some(load) && user.is_double()
}

/// Whether `v` (a double) reaches a conversion to an integer, directly or through at most
/// `depth` vector inserts (`cvttsd2si` takes a vector).
fn converted_to_integer(v: Value, depth: u32) -> bool {
    v.users().into_iter().any(|u| match u.opcode() {
        Some(LLVMOpcode::LLVMFPToSI | LLVMOpcode::LLVMFPToUI) => true,
        Some(LLVMOpcode::LLVMInsertElement) => depth > 0 && converted_to_integer(u, depth - 1),
        Some(LLVMOpcode::LLVMCall) => u.callee().and_then(|c| c.global_name()).is_some_and(|n| n.starts_with("llvm.x86.sse2.cvtt")),
        _ => false,
    })
}

/// Gives `load` a second read of its address, as a double, right after it (nothing can write
/// the slot in between), for its bitcasts to `double`: the integer uses keep the integer
/// read, the index the vector one, each forwarded from the slot's store in its own register
/// file.
fn split(load: Value, as_double: &[Value], builder: &Builder) {
    let Some(next) = load.next_instruction() else { return };
    builder.position_before(next);
    let Some(double) = builder.load_as_double(load) else { return };
    for &cast in as_double {
        cast.replace_and_erase(double);
    }
}

/// Replaces `load` by a `load double` of the same address: its bitcasts to `double` by the new
/// load, its other uses by the new load's bits.
fn rewrite(load: Value, as_double: &[Value], builder: &Builder) {
    builder.position_before(load);
    let Some(double) = builder.load_as_double(load) else { return };
    let bits = builder.to_i64(double);
    bits.set_name(&format!("{}.bits", load.name()));
    for &cast in as_double {
        cast.replace_and_erase(double);
    }
    load.replace_and_erase(bits);
}
