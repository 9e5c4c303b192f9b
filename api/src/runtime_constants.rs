//! The baseline JIT's runtime constants: what a stencil's holes mean (the paper's binding-time
//! analysis, section 7.1, and its symbol range fix-up, Appendix B).
//!
//! A stencil is a bytecode's semantics compiled with every value the JIT knows when it copies
//! the code (the operands, the instruction's address, where the next bytecode's code is) left
//! as the address of an undefined symbol. Each use becomes a relocation, which the JIT patches.
//! This module is the one place that says which symbol holds what and how the value is encoded
//! into the symbol: the generator writes IR against it at build time, the JIT computes hole
//! values with it at run time.
//!
//! The encodings keep every value a stencil uses as an address offset or an immediate inside
//! `[0, 2^31)` where possible, so that LLVM folds it into a `disp32` or an `imm32` (a symbol's
//! value is an unsigned address to the compiler; a value that may be negative is biased into
//! the positive range and the bias subtracted in the IR, where LLVM folds it into the
//! relocation's addend).

/// Prefix of every runtime-constant symbol.
pub const PREFIX: &str = "__deegen_rc_";

/// The instruction's own address (for throws, call headers and opcode rewrites).
pub const PC: &str = "__deegen_rc_pc";

/// The output slot of a bytecode with a value result, as a byte offset from the frame base.
pub const OUTPUT: &str = "__deegen_rc_output";

/// Prefix of an operand's symbol: `__deegen_rc_op_<operand name>`.
pub const OPERAND_PREFIX: &str = "__deegen_rc_op_";

/// Code of the next instruction (a tail call to it is the fallthrough).
pub const NEXT: &str = "__deegen_jit_next";

/// Code of the instruction's branch target.
pub const BRANCH: &str = "__deegen_jit_branch";

/// Prefix of the address of a return continuation's code for this instruction:
/// `__deegen_jit_cont_<continuation function>`.
pub const CONTINUATION_PREFIX: &str = "__deegen_jit_cont_";

/// The code block of the function the instruction belongs to (what the interpreter keeps in its
/// code-block register): a return continuation in JIT code restores that register from it
/// instead of from the caller's frame (its function's code block, three dependent loads), since
/// the code it runs in was compiled for that one code block.
pub const CODE_BLOCK: &str = "__deegen_rc_code_block";

/// In a function's prologue stencil (the baseline JIT's function entry): its number of fixed
/// parameters, which the entry fills with nil up to (an `imm32`).
pub const NUM_PARAMS: &str = "__deegen_rc_num_params";

/// In a function's prologue stencil: the size of its frame in bytes, `8 * frame slots` (a
/// `disp32`), which the entry checks against the stack's limit.
pub const FRAME_SIZE: &str = "__deegen_rc_frame_size";

/// Name of the prologue stencil, which the JIT copies at the start of every function without
/// variable arguments it compiles (built by `baseline-create-stencils`): the function's entry
/// with its parameter count and frame size burnt in, falling through to the first instruction.
pub const FUNCTION_ENTRY_STENCIL: &str = "__deegen_jit_function_entry";

/// The instruction's SlowPathData record (the paper's section 7.2): the runtime constants its
/// AOT slow paths need, which a stencil's cold path cannot carry as holes because the slow
/// path is compiled once, not copied per instruction. A stencil refers to it RIP-relative
/// (`lea`), so the record lives within `rel32` reach of the code, in the same code cache.
pub const SLOW_PATH_DATA: &str = "__deegen_rc_slow_path_data";

/// In an inline-cache stub (see `deegen_api::ic`): the cached key (a `u32`).
pub const IC_KEY: &str = "__deegen_rc_ic_key";

/// In an inline-cache stub: the cached state (a `u32`).
pub const IC_STATE: &str = "__deegen_rc_ic_state";

/// Where an inline-cache miss goes: in an IC stub, the next stub of the site's chain or the
/// instruction's generic code; in the instruction's IC entry (the 5-byte `jmp` in line), the
/// chain's head.
pub const IC_NEXT: &str = "__deegen_jit_ic_next";

/// In a call inline-cache stub (`interp-call-ic`): the callee the stub was made for (the
/// *direct* mode: the boxed value, all 64 bits).
pub const CALL_IC_KEY: &str = "__deegen_rc_call_ic_key";

/// In a call inline-cache stub: the cached callee's code block (a heap address).
pub const CALL_IC_CODE_BLOCK: &str = "__deegen_rc_call_ic_code_block";

/// In a call inline-cache stub: where its call jumps (a `jmp rel32`), the callee's entry as
/// its code block gave it when the stub was made. The JIT repoints it when that entry changes
/// (the callee tiers up, a debug hook sends every call through the interpreter).
pub const CALL_IC_TARGET: &str = "__deegen_jit_call_ic_target";

/// Prefix of a constant derived from an inline-cache stub's state (`ic-state-folding`):
/// `__deegen_rc_ic_derived_<k>` holds what the generated function
/// `__deegen_ic_derive_<k>(state)` returns, say the byte offset of the cached slot, so the stub
/// reads the slot with one displacement instead of shifting and scaling the state.
pub const IC_DERIVED_PREFIX: &str = "__deegen_rc_ic_derived_";

/// The range every derived constant is declared to have, `[0, IC_DERIVED_RANGE_END)`: a
/// `disp32` or `imm32` LLVM may fold it into, and a range it may reason with. The JIT refuses
/// a stub whose derived value falls outside it.
pub const IC_DERIVED_RANGE_END: u64 = 1 << 31;

/// Prefix of the functions that compute derived constants (`extern "C" fn(state: u32) -> u64`).
pub const IC_DERIVE_FUNCTION_PREFIX: &str = "__deegen_ic_derive_";

/// The function the generic code of a baseline JIT instruction with a fused inline cache calls
/// after each fill of the cache's first entry (`extern "C" fn(ctx: *mut InterpContext, pc:
/// *const u8, kind: u32)`), with the instruction's address and the kind of the state it
/// cached. The language's runtime defines it (it owns the JIT) and has the JIT add an IC stub
/// for that entry to the instruction's chain.
pub const IC_FILLED: &str = "__deegen_jit_ic_filled";

/// Whether `name` is a value only an instruction has (its operands, its address, where its
/// successors' code is): a hole in a stencil, a SlowPathData field in an AOT slow path, and
/// never something a helper shared by every instruction may refer to.
pub fn is_per_instruction(name: &str) -> bool {
    [
        PC,
        OUTPUT,
        NEXT,
        BRANCH,
        SLOW_PATH_DATA,
        IC_KEY,
        IC_STATE,
        IC_NEXT,
        CODE_BLOCK,
        NUM_PARAMS,
        FRAME_SIZE,
        CALL_IC_KEY,
        CALL_IC_CODE_BLOCK,
        CALL_IC_TARGET,
    ]
    .contains(&name)
        || name.starts_with(OPERAND_PREFIX)
        || name.starts_with(CONTINUATION_PREFIX)
        || name.starts_with(IC_DERIVED_PREFIX)
}

/// Bias of a constant operand's symbol: the symbol holds `CONSTANT_BIAS - 8 * (index + 1)`
/// and the IR reads `code_block + (symbol - CONSTANT_BIAS)` (constant `i` lives at
/// `code_block - 8 * (i + 1)`), so the negative offset becomes a `disp32` whose addend carries
/// the bias.
pub const CONSTANT_BIAS: u64 = 1 << 31;

/// How an operand of a given access is turned into its symbol's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OperandEncoding {
    /// An unsigned literal: the value itself.
    Unsigned,
    /// A signed literal of `width` bytes: the value plus `2^(8 * width - 1)` (a 64-bit literal is
    /// stored as it is).
    Signed { width: u32 },
    /// A slot index: its byte offset from the frame base, `8 * index`.
    SlotOffset,
    /// A constant index: [`CONSTANT_BIAS`]` - 8 * (index + 1)`.
    ConstantOffset,
    /// An inline cache in the instruction: its absolute address, `pc + offset`.
    Address { offset: u32 },
}

impl OperandEncoding {
    /// The bias the IR subtracts from a signed literal's symbol (zero for the other encodings).
    pub fn signed_bias(self) -> u64 {
        match self {
            OperandEncoding::Signed { width } if width < 8 => 1 << (8 * width - 1),
            _ => 0,
        }
    }

    /// Whether the constant of an operand of `width` bytes may need all 64 bits: then it is
    /// materialized by an inline `movabs` (a hole of 8 bytes), never a symbol address LLVM
    /// would fold into a 32-bit field. Every stage asks this one question.
    pub fn needs_64_bits(self, width: u32) -> bool {
        match self {
            OperandEncoding::Address { .. } => true,
            OperandEncoding::Unsigned | OperandEncoding::Signed { .. } => width >= 8,
            OperandEncoding::SlotOffset | OperandEncoding::ConstantOffset => false,
        }
    }

    /// The symbol value for an operand whose raw field is `raw` (sign- or zero-extended as the
    /// operand's access says) in the instruction at `pc`.
    pub fn encode(self, raw: i64, pc: u64) -> u64 {
        match self {
            OperandEncoding::Unsigned => raw as u64,
            OperandEncoding::Signed { .. } => (raw as u64).wrapping_add(self.signed_bias()),
            OperandEncoding::SlotOffset => (raw as u64).wrapping_mul(8),
            OperandEncoding::ConstantOffset => CONSTANT_BIAS.wrapping_sub((raw as u64).wrapping_add(1).wrapping_mul(8)),
            OperandEncoding::Address { offset } => pc.wrapping_add(u64::from(offset)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodings_round_trip_through_their_ir_reading() {
        // What the IR computes from the symbol must give back the operand.
        let s = OperandEncoding::Signed { width: 2 };
        assert_eq!(s.encode(-5, 0).wrapping_sub(s.signed_bias()) as i64, -5);
        assert_eq!(s.encode(-32768, 0), 0);
        let c = OperandEncoding::ConstantOffset;
        assert_eq!(c.encode(0, 0).wrapping_sub(CONSTANT_BIAS) as i64, -8);
        assert_eq!(c.encode(3, 0).wrapping_sub(CONSTANT_BIAS) as i64, -32);
        assert_eq!(OperandEncoding::SlotOffset.encode(7, 0), 56);
        assert_eq!(OperandEncoding::Address { offset: 6 }.encode(0, 0x1000), 0x1006);
        assert_eq!(OperandEncoding::Signed { width: 8 }.encode(-1, 0), u64::MAX);
    }
}
