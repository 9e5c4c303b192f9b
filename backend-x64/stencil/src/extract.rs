//! Stencils from an ELF object: one per function, each compiled into its own section
//! (`.text.<function>`, as LLVM writes a function with an explicit section or with function
//! sections). Relocations become holes; read-only data the code refers to is copied along.

use std::collections::HashMap;

use object::elf;
use object::{Object, ObjectSection, ObjectSymbol, RelocationFlags, RelocationTarget, SectionIndex, SectionKind, SymbolKind, SymbolSection};

use crate::{Hole, HoleKind, HoleTarget, Stencil};

/// Why an object could not be turned into stencils.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExtractError {
    #[error("not a readable ELF object: {0}")]
    Object(String),
    #[error("no section '.text.{0}': compile each stencil function into its own section")]
    MissingFunction(String),
    #[error("stencil '{stencil}': relocation type {r_type} ({name}) at offset {offset} is not supported")]
    UnknownRelocation { stencil: String, offset: u64, r_type: u32, name: &'static str },
    #[error("stencil '{stencil}': relocation at offset {offset} {problem}")]
    BadRelocation { stencil: String, offset: u64, problem: String },
}

fn object_error(e: object::Error) -> ExtractError {
    ExtractError::Object(e.to_string())
}

/// Extracts the stencils of `functions` from the ELF object `bytes`, in the order given.
pub fn extract_stencils(bytes: &[u8], functions: &[&str]) -> Result<Vec<Stencil>, ExtractError> {
    let file = object::File::parse(bytes).map_err(object_error)?;
    functions.iter().map(|f| extract_one(&file, f)).collect()
}

fn extract_one(file: &object::File<'_>, function: &str) -> Result<Stencil, ExtractError> {
    let section_name = format!(".text.{function}");
    let section = file.section_by_name(&section_name).ok_or_else(|| ExtractError::MissingFunction(function.to_owned()))?;
    let code = section.data().map_err(object_error)?.to_vec();
    let bad = |offset: u64, problem: String| ExtractError::BadRelocation { stencil: function.to_owned(), offset, problem };

    // Read-only sections the code refers to, laid out one after the other in `data`.
    let mut data = Vec::new();
    let mut data_align = 1u64;
    let mut data_base: HashMap<SectionIndex, u64> = HashMap::new();
    let mut holes = Vec::new();
    for (offset, reloc) in section.relocations() {
        let RelocationFlags::Elf { r_type } = reloc.flags() else {
            return Err(bad(offset, "is not an ELF relocation".into()));
        };
        let kind = match r_type {
            elf::R_X86_64_64 => HoleKind::Abs64,
            elf::R_X86_64_32 => HoleKind::Abs32,
            elf::R_X86_64_32S => HoleKind::Abs32Signed,
            elf::R_X86_64_PC32 | elf::R_X86_64_PLT32 => HoleKind::PcRel32,
            other => {
                return Err(ExtractError::UnknownRelocation { stencil: function.to_owned(), offset, r_type: other, name: relocation_name(other) })
            }
        };
        let RelocationTarget::Symbol(index) = reloc.target() else {
            return Err(bad(offset, "does not name a symbol".into()));
        };
        let symbol = file.symbol_by_index(index).map_err(object_error)?;
        let mut addend = reloc.addend();
        let target = match symbol.section() {
            SymbolSection::Undefined => HoleTarget::Symbol(symbol.name().map_err(object_error)?.to_owned()),
            SymbolSection::Section(target_index) => {
                let target_section = file.section_by_index(target_index).map_err(object_error)?;
                let target_name = target_section.name().map_err(object_error)?.to_owned();
                match target_section.kind() {
                    SectionKind::ReadOnlyData | SectionKind::ReadOnlyString => {
                        let base = match data_base.get(&target_index) {
                            Some(b) => *b,
                            None => {
                                let align = target_section.align().max(1);
                                data_align = data_align.max(align);
                                let base = (data.len() as u64).next_multiple_of(align);
                                data.resize(base as usize, 0);
                                data.extend_from_slice(target_section.data().map_err(object_error)?);
                                data_base.insert(target_index, base);
                                base
                            }
                        };
                        // A section symbol has value 0; a local label its offset in the section.
                        let within = if symbol.kind() == SymbolKind::Section { 0 } else { symbol.address() - target_section.address() };
                        addend += (base + within) as i64;
                        HoleTarget::Data
                    }
                    SectionKind::Text if symbol.kind() == SymbolKind::Text && target_index != section.index() => {
                        // Another function of the object: its user places it (a shared helper).
                        HoleTarget::Symbol(symbol.name().map_err(object_error)?.to_owned())
                    }
                    other => return Err(bad(offset, format!("refers into section '{target_name}' ({other:?}), which a stencil cannot carry"))),
                }
            }
            other => return Err(bad(offset, format!("names a symbol in {other:?}"))),
        };
        let offset = usize::try_from(offset).map_err(|_| bad(offset, "is beyond the address space".into()))?;
        holes.push(Hole { offset, kind, target, addend });
    }
    holes.sort_by_key(|h| h.offset);
    for pair in holes.windows(2) {
        if pair[0].offset + pair[0].kind.width() > pair[1].offset {
            return Err(bad(pair[1].offset as u64, "overlaps the hole before it".into()));
        }
    }
    if let Some(h) = holes.last() {
        if h.offset + h.kind.width() > code.len() {
            return Err(bad(h.offset as u64, "runs past the code's end".into()));
        }
    }
    Ok(Stencil { name: function.to_owned(), code, data, data_align, holes })
}

fn relocation_name(r_type: u32) -> &'static str {
    match r_type {
        elf::R_X86_64_GOT32 => "R_X86_64_GOT32",
        elf::R_X86_64_GOTPCREL => "R_X86_64_GOTPCREL",
        elf::R_X86_64_GOTPCRELX => "R_X86_64_GOTPCRELX",
        elf::R_X86_64_REX_GOTPCRELX => "R_X86_64_REX_GOTPCRELX",
        elf::R_X86_64_TPOFF32 => "R_X86_64_TPOFF32",
        elf::R_X86_64_GOTTPOFF => "R_X86_64_GOTTPOFF",
        elf::R_X86_64_16 => "R_X86_64_16",
        elf::R_X86_64_8 => "R_X86_64_8",
        elf::R_X86_64_PC64 => "R_X86_64_PC64",
        _ => "unknown",
    }
}
