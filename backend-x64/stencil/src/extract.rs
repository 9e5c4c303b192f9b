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

/// Extracts the stencils of `functions` from the ELF object `bytes`, in the order given. A
/// function LLVM's machine function splitter split (its cold blocks in `.text.split.<name>`)
/// gives two stencils: its hot part, then its cold part, named `<name>`[`COLD_PART_SUFFIX`].
/// A branch between the two is a hole naming the other part (see [`cold_part_of`]).
pub fn extract_stencils(bytes: &[u8], functions: &[&str]) -> Result<Vec<Stencil>, ExtractError> {
    let file = object::File::parse(bytes).map_err(object_error)?;
    let mut out = Vec::with_capacity(functions.len());
    for f in functions {
        let cold_name = format!("{f}{COLD_PART_SUFFIX}");
        match (file.section_by_name(&format!(".text.{f}")), file.section_by_name(&format!(".text.split.{f}"))) {
            (Some(hot), None) => out.push(extract_part(&file, &hot, 0..hot.size(), f, None)?),
            (Some(hot), Some(cold)) => {
                out.push(extract_part(&file, &hot, 0..hot.size(), f, Some((cold.index(), &cold_name)))?);
                out.push(extract_part(&file, &cold, 0..cold.size(), &cold_name, Some((hot.index(), f)))?);
            }
            (None, None) => out.push(extract_shared_section(&file, f)?),
            (None, Some(_)) => return Err(ExtractError::MissingFunction((*f).to_owned())),
        }
    }
    Ok(out)
}

/// A function without a section of its own (one given a profile for the machine function
/// splitter, which then found nothing to split, lands in `.text`): its symbol's range of its
/// section. References inside a section need no relocation, so the code must not have any but
/// to itself: every branch or RIP-relative operand that is not a hole stays within it.
fn extract_shared_section(file: &object::File<'_>, function: &str) -> Result<Stencil, ExtractError> {
    let missing = || ExtractError::MissingFunction(function.to_owned());
    let symbol = file.symbols().find(|s| s.name() == Ok(function) && s.kind() == SymbolKind::Text).ok_or_else(missing)?;
    let index = symbol.section_index().ok_or_else(missing)?;
    let section = file.section_by_index(index).map_err(object_error)?;
    let start = symbol.address() - section.address();
    let stencil = extract_part(file, &section, start..start + symbol.size(), function, None)?;
    let holes: Vec<usize> = stencil.holes.iter().map(|h| h.offset).collect();
    if let Some((offset, what)) = outside_reference(&stencil.code, &holes) {
        return Err(ExtractError::BadRelocation {
            stencil: function.to_owned(),
            offset: offset as u64,
            problem: format!("has {what} out of the function with no relocation (it shares its section)"),
        });
    }
    Ok(stencil)
}

/// The first instruction of `code` that reaches outside it without a hole (a branch, or a
/// RIP-relative operand, whose displacement is not at one of `hole_offsets`), and what it is.
fn outside_reference(code: &[u8], hole_offsets: &[usize]) -> Option<(usize, &'static str)> {
    use iced_x86::{Decoder, DecoderOptions, FlowControl};
    let mut decoder = Decoder::with_ip(64, code, 0, DecoderOptions::NONE);
    while decoder.can_decode() {
        let at = decoder.position();
        let i = decoder.decode();
        let offsets = decoder.get_constant_offsets(&i);
        let covered = |field: usize| hole_offsets.contains(&field);
        if i.is_ip_rel_memory_operand() {
            if !offsets.has_displacement() || !covered(at + offsets.displacement_offset()) {
                return Some((at, "a RIP-relative operand"));
            }
        } else if matches!(i.flow_control(), FlowControl::UnconditionalBranch | FlowControl::ConditionalBranch | FlowControl::Call)
            && (i.is_jmp_short_or_near() || i.is_jcc_short_or_near() || i.is_call_near())
        {
            // The displacement is the instruction's last field: rel32 in the long forms, rel8.
            let field = at + i.len() - if i.len() >= 5 { 4 } else { 1 };
            if i.near_branch_target() > code.len() as u64 && !covered(field) {
                return Some((at, "a branch"));
            }
        }
    }
    None
}

/// The suffix of a stencil's cold part (what LLVM names the symbol of a split function's cold
/// blocks).
pub const COLD_PART_SUFFIX: &str = ".cold";

/// The stencil whose cold part `name` is, if it is one.
pub fn cold_part_of(name: &str) -> Option<&str> {
    name.strip_suffix(COLD_PART_SUFFIX)
}

/// Extracts the code of `section` as the stencil `name`. `partner` is the other part of a
/// split function (its section and stencil name): a relocation into it becomes a hole naming
/// that stencil, the addend made relative to its start.
fn extract_part(
    file: &object::File<'_>,
    section: &object::Section<'_, '_>,
    range: std::ops::Range<u64>,
    function: &str,
    partner: Option<(SectionIndex, &str)>,
) -> Result<Stencil, ExtractError> {
    let bytes = section.data().map_err(object_error)?;
    let code = usize::try_from(range.start)
        .ok()
        .zip(usize::try_from(range.end).ok())
        .and_then(|(a, b)| bytes.get(a..b))
        .ok_or_else(|| ExtractError::Object(format!("function '{function}' lies outside its section")))?
        .to_vec();
    let bad = |offset: u64, problem: String| ExtractError::BadRelocation { stencil: function.to_owned(), offset, problem };

    // Read-only sections the code refers to, laid out one after the other in `data`.
    let mut data = Vec::new();
    let mut data_align = 1u64;
    let mut data_base: HashMap<SectionIndex, u64> = HashMap::new();
    let mut holes = Vec::new();
    for (offset, reloc) in section.relocations() {
        if !range.contains(&offset) {
            continue;
        }
        let offset = offset - range.start;
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
            SymbolSection::Section(target_index) if partner.is_some_and(|(p, _)| p == target_index) => {
                let (p, name) = partner.expect("matched above");
                let start = file.section_by_index(p).map_err(object_error)?.address();
                // A section symbol has value 0; a label (the cold part's symbol) its offset.
                addend += (symbol.address() - start) as i64;
                HoleTarget::Symbol(name.to_owned())
            }
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
