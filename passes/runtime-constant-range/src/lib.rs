#![doc = include_str!("../README.md")]

use std::collections::BTreeMap;

use deegen_api::runtime_constants::{self as rc, OperandEncoding};
use deegen_bytecode_spec::Variant;
use deegen_llvm_ir::*;
use deegen_pass::{AnalysisManager, Pass, PassDescriptor, PassError, PassParams, PipelineError, PreservedAnalyses, RegisteredPass};

/// See the crate documentation.
#[derive(Debug, Default)]
pub struct RuntimeConstantRange;

/// The pass's one declaration (name, description, parameters, phases).
pub static DESCRIPTOR: PassDescriptor<LlvmPhase> = PassDescriptor {
    name: "runtime-constant-range",
    description: "gives every runtime constant of the stencils its value range (!absolute_symbol), so LLVM picks short encodings and every hole has a known width",
    params: "",
    required: true,
    runs_in: &[LlvmPhase::Lowered],
    produces: None,
};

/// The metadata kind LLVM reads a symbol's value range from.
pub const ABSOLUTE_SYMBOL: &str = "absolute_symbol";

/// A symbol's value range `[0, end)`, or any 64-bit value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum SymbolRange {
    Below(u64),
    Any64,
}

impl SymbolRange {
    fn union(self, other: SymbolRange) -> SymbolRange {
        self.max(other)
    }
}

/// The range of an operand's runtime constant.
pub fn operand_range(encoding: OperandEncoding, width: u32) -> SymbolRange {
    if encoding.needs_64_bits(width) {
        return SymbolRange::Any64;
    }
    match encoding {
        OperandEncoding::Unsigned | OperandEncoding::Signed { .. } => SymbolRange::Below(1u64 << (8 * width)),
        OperandEncoding::SlotOffset if width < 4 => SymbolRange::Below(8 << (8 * width)),
        OperandEncoding::SlotOffset => SymbolRange::Below(1 << 31),
        OperandEncoding::ConstantOffset => SymbolRange::Below(rc::CONSTANT_BIAS),
        OperandEncoding::Address { .. } => unreachable!("needs 64 bits"),
    }
}

/// The range of every operand symbol the variants use.
fn operand_ranges(variants: &[Variant]) -> BTreeMap<String, SymbolRange> {
    let mut out: BTreeMap<String, SymbolRange> = BTreeMap::new();
    for v in variants {
        for op in &v.operands {
            let Some(encoding) = op.runtime_constant_encoding() else { continue };
            let range = operand_range(encoding, op.width);
            out.entry(op.runtime_constant_symbol()).and_modify(|r| *r = r.union(range)).or_insert(range);
        }
    }
    out
}

/// The range of the symbol `name`, or why it has none.
fn range_of(name: &str, operands: &BTreeMap<String, SymbolRange>) -> Result<SymbolRange, String> {
    if name == rc::PC || name.starts_with(rc::CONTINUATION_PREFIX) {
        return Ok(SymbolRange::Any64);
    }
    if name == rc::OUTPUT {
        return Ok(SymbolRange::Below(8 << 16));
    }
    // An inline-cache stub's key and state are `u32`s.
    if name == rc::IC_KEY || name == rc::IC_STATE {
        return Ok(SymbolRange::Below(1 << 32));
    }
    // A prologue's parameter count and frame size (`u32`s in the code block), kept below 2^31
    // so that a sign-extended `imm32` or `disp32` holds them; the JIT refuses larger ones.
    if name == rc::NUM_PARAMS || name == rc::FRAME_SIZE {
        return Ok(SymbolRange::Below(1 << 31));
    }
    if name.starts_with(rc::OPERAND_PREFIX) {
        return operands.get(name).copied().ok_or_else(|| format!("runtime constant '{name}' names an operand no variant has"));
    }
    Err(format!("'{name}' is not a runtime constant this pass knows (see deegen_api::runtime_constants)"))
}

impl<'ctx> Pass<LlvmModule<'ctx>> for RuntimeConstantRange {
    fn run(&mut self, unit: &mut LlvmModule<'ctx>, _: &mut AnalysisManager<LlvmModule<'ctx>>) -> Result<PreservedAnalyses, PassError> {
        let module = &unit.module;
        let variants = read_variants(module).map_err(PassError::invalid_input)?;
        let operands = operand_ranges(&variants);
        let ctx = module.get_context();
        let i64t = ctx.i64_type();
        let kind = ctx.get_kind_id(ABSOLUTE_SYMBOL);
        let mut g = module.get_first_global();
        while let Some(global) = g {
            g = global.get_next_global();
            let name = global.get_name().to_string_lossy().into_owned();
            if !(name.starts_with(rc::PREFIX) || name.starts_with(rc::CONTINUATION_PREFIX)) {
                continue;
            }
            if global.get_initializer().is_some() {
                return Err(PassError::invalid_input(format!("runtime constant '{name}' is defined in the module; it must be an undefined symbol")));
            }
            let range = range_of(&name, &operands).map_err(PassError::invalid_input)?;
            // `[lo, hi)` for LLVM.
            let SymbolRange::Below(hi) = range else { unreachable!("returned above") };
            let lo = 0u64;
            let node = ctx.metadata_node(&[i64t.const_int(lo, false).into(), i64t.const_int(hi, false).into()]);
            global.set_metadata(node, kind);
            if range == SymbolRange::Any64 {
                return Err(PassError::invalid_input(format!(
                    "runtime constant '{name}' needs 64 bits: materialize it with deegen_llvm_ir::wide_runtime_constant, not as a symbol address"
                )));
            }
        }
        Ok(PreservedAnalyses::all())
    }
}

impl RegisteredPass<LlvmModule<'_>> for RuntimeConstantRange {
    const DESCRIPTOR: &'static PassDescriptor<LlvmPhase> = &DESCRIPTOR;
    fn from_params(params: &PassParams) -> Result<Self, PipelineError> {
        params.expect_only(&[])?;
        Ok(RuntimeConstantRange)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operand_ranges_follow_the_format() {
        assert_eq!(operand_range(OperandEncoding::Unsigned, 1), SymbolRange::Below(256));
        assert_eq!(operand_range(OperandEncoding::Signed { width: 2 }, 2), SymbolRange::Below(65536));
        assert_eq!(operand_range(OperandEncoding::SlotOffset, 2), SymbolRange::Below(8 * 65536));
        assert_eq!(operand_range(OperandEncoding::SlotOffset, 4), SymbolRange::Below(1 << 31));
        assert_eq!(operand_range(OperandEncoding::Unsigned, 8), SymbolRange::Any64);
        assert_eq!(operand_range(OperandEncoding::Address { offset: 4 }, 8), SymbolRange::Any64);
    }

    #[test]
    fn unknown_symbols_are_errors() {
        let ops = BTreeMap::new();
        assert!(range_of("__deegen_rc_mystery", &ops).is_err());
        assert!(range_of("__deegen_rc_op_a", &ops).is_err());
        assert_eq!(range_of(rc::PC, &ops), Ok(SymbolRange::Any64));
        assert_eq!(range_of(rc::IC_STATE, &ops), Ok(SymbolRange::Below(1 << 32)));
        // The prologue's counts fit a sign-extended `imm32` / `disp32`.
        assert_eq!(range_of(rc::NUM_PARAMS, &ops), Ok(SymbolRange::Below(1 << 31)));
        assert_eq!(range_of(rc::FRAME_SIZE, &ops), Ok(SymbolRange::Below(1 << 31)));
    }
}
