//! Reading stencils back: a disassembly that names every hole, and a checker that decodes
//! patched code and proves each hole is exactly one field of one instruction (the extractor and
//! the patch table can then not silently write into an opcode or half an operand).

use iced_x86::{Decoder, DecoderOptions, Formatter, GasFormatter, Instruction, OpKind};

use crate::{Hole, HoleKind, HoleTarget, Stencil};

/// A hole that is not where the decoded instructions say an operand is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CheckError {
    #[error("stencil '{stencil}': the code does not decode at offset {offset}")]
    Undecodable { stencil: String, offset: usize },
    #[error("stencil '{stencil}': hole at offset {offset} ({kind:?}) is not a {width}-byte {expected} field of `{instruction}`")]
    Misplaced { stencil: String, offset: usize, kind: HoleKind, width: usize, expected: &'static str, instruction: String },
    #[error("stencil '{stencil}': hole at offset {offset} lies outside every instruction")]
    Outside { stencil: String, offset: usize },
}

fn gas(instruction: &Instruction) -> String {
    let mut formatter = GasFormatter::new();
    // A hole's field shows even while it is zero, and RIP-relative operands as such.
    formatter.options_mut().set_show_zero_displacements(true);
    formatter.options_mut().set_rip_relative_addresses(true);
    let mut out = String::new();
    formatter.format(instruction, &mut out);
    out
}

fn decode(code: &[u8], address: u64) -> Vec<(usize, Instruction)> {
    let mut decoder = Decoder::with_ip(64, code, address, DecoderOptions::NONE);
    let mut out = Vec::new();
    while decoder.can_decode() {
        let offset = decoder.position();
        out.push((offset, decoder.decode()));
    }
    out
}

/// Decodes `code` (the stencil materialized at `code_address`) and checks every hole.
pub fn check_holes(stencil: &Stencil, code: &[u8], code_address: u64) -> Result<(), CheckError> {
    let mut decoder = Decoder::with_ip(64, code, code_address, DecoderOptions::NONE);
    let mut holes = stencil.holes.iter().peekable();
    while decoder.can_decode() {
        let offset = decoder.position();
        let instruction = decoder.decode();
        if instruction.is_invalid() {
            return Err(CheckError::Undecodable { stencil: stencil.name.clone(), offset });
        }
        let end = offset + instruction.len();
        let constants = decoder.get_constant_offsets(&instruction);
        while let Some(hole) = holes.next_if(|h| h.offset < end) {
            if hole.offset < offset {
                return Err(CheckError::Outside { stencil: stencil.name.clone(), offset: hole.offset });
            }
            let at = hole.offset - offset;
            let width = hole.kind.width();
            let is_displacement = constants.has_displacement() && constants.displacement_offset() == at && constants.displacement_size() == width;
            let is_immediate = constants.has_immediate() && constants.immediate_offset() == at && constants.immediate_size() == width;
            let is_branch = instruction.op_count() > 0 && matches!(instruction.op0_kind(), OpKind::NearBranch64) && at + width == instruction.len();
            let (ok, expected) = match hole.kind {
                HoleKind::PcRel32 => (is_branch || (is_displacement && instruction.is_ip_rel_memory_operand()), "branch or RIP-relative"),
                HoleKind::Abs32 | HoleKind::Abs32Signed => {
                    (!instruction.is_ip_rel_memory_operand() && (is_displacement || is_immediate), "displacement or immediate")
                }
                HoleKind::Abs64 => (is_immediate || is_displacement, "64-bit immediate"),
            };
            if !ok {
                return Err(CheckError::Misplaced {
                    stencil: stencil.name.clone(),
                    offset: hole.offset,
                    kind: hole.kind,
                    width,
                    expected,
                    instruction: gas(&instruction),
                });
            }
        }
    }
    if let Some(hole) = holes.next() {
        return Err(CheckError::Outside { stencil: stencil.name.clone(), offset: hole.offset });
    }
    Ok(())
}

fn describe(hole: &Hole) -> String {
    let target = match &hole.target {
        HoleTarget::Symbol(s) => s.as_str(),
        HoleTarget::Data => "<data>",
    };
    format!("{:?} {target}{:+}", hole.kind, hole.addend)
}

/// The stencil's code as GAS assembly (holes still zero), offsets on the left, each hole named
/// after the instruction that holds it.
pub fn disassemble(stencil: &Stencil) -> String {
    let mut out = format!("{}: {} bytes code, {} bytes data\n", stencil.name, stencil.code.len(), stencil.data.len());
    for (offset, instruction) in decode(&stencil.code, 0) {
        let end = offset + instruction.len();
        let holes: Vec<String> = stencil.holes.iter().filter(|h| h.offset >= offset && h.offset < end).map(describe).collect();
        let text = gas(&instruction);
        if holes.is_empty() {
            out.push_str(&format!("  {offset:4x}: {text}\n"));
        } else {
            out.push_str(&format!("  {offset:4x}: {text:<40} # hole: {}\n", holes.join(", ")));
        }
    }
    out
}

/// Machine code that runs at `address` as GAS assembly, one `address: instruction` line each
/// (`ljr --dump-jit`).
pub fn disassemble_code(code: &[u8], address: u64) -> String {
    let mut out = String::new();
    for (offset, instruction) in decode(code, address) {
        out.push_str(&format!("  {:x}: {}\n", address + offset as u64, gas(&instruction)));
    }
    out
}
