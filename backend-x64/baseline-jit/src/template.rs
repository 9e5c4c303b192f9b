//! Per-variant templates: what the compile loop copies and patches for one instruction, built
//! once per JIT from the stencil tables.
//!
//! Reading the tables per hole (which stencil, which piece, is the trailing jump dropped, which
//! operand and how is it encoded, is the value a helper's or an external's address) cost about
//! a thousand instructions per compiled bytecode. A template answers all of that once per
//! opcode: the in-line pieces concatenated, the out-of-line ones concatenated, every hole whose
//! value does not depend on the instruction (a helper, an external, the stencil's data)
//! already written into the bytes, and the rest as a flat list of [`Fill`]s, each naming where
//! its bytes go, how they are written and where the value comes from. An instruction is then
//! two copies and one short loop.
//!
//! A variant whose tables are inconsistent (a hole naming an operand the variant does not have,
//! a field past the instruction's end) gets no template, only the reason, reported when a
//! function that uses it is compiled: the JIT itself can still be made.

use deegen_api::runtime_constants::{OperandEncoding, CONSTANT_BIAS};
use deegen_stencil::{patch_hole, HoleKind};

use crate::compile::{piece_offsets, plan_pieces};
use crate::tables::{HoleValue, StencilTables, VariantRecord};

/// Which part of an instruction's output a fill writes into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Area {
    /// The instruction's code in line (its main stencil and any in-line continuations).
    InLine = 0,
    /// Its out-of-line continuations, in the function's cold area.
    Cold = 1,
    /// Its SlowPathData records, after the function's code.
    Records = 2,
}

/// How a fill's value becomes bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Write {
    /// A hole of this kind (range-checked).
    Hole(HoleKind),
    /// A SlowPathData field: the value itself, 8 bytes.
    Field,
}

/// Where a fill's value comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Source {
    /// The instruction's address.
    Pc,
    /// The compiled function's code block.
    CodeBlock,
    /// A field of the instruction (an operand, or the output slot), read at `offset` from the
    /// instruction's start with `width` bytes, then encoded.
    Operand {
        offset: u32,
        width: u8,
        signed: bool,
        encoding: OperandEncoding,
    },
    /// The next instruction's code.
    Next,
    /// The branch target's code.
    Branch,
    /// An address within this instruction's own output (a continuation, a SlowPathData record).
    Own {
        area: Area,
        offset: u32,
    },
    /// An address known when the JIT was made (a helper, an external, a stencil's data) in a
    /// hole that is relative to where it is written, so it cannot be written in advance.
    Fixed(u64),
    /// In the prologue: the function's parameter count and its frame's size in bytes.
    NumParams,
    FrameSize,
}

/// One hole or SlowPathData field of a template.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Fill {
    pub area: Area,
    /// Offset in its area.
    pub at: u32,
    pub write: Write,
    pub addend: i64,
    pub source: Source,
}

/// A fill whose value is an address: `bases[base] + off` ([`Base`]), the addend folded into
/// `off`. Most holes are these (jumps to the next instruction, calls, continuations, records),
/// and the compile loop computes them without a branch on where they come from.
#[derive(Debug, Clone, Copy)]
pub(crate) struct AddressFill {
    pub area: Area,
    pub base: Base,
    pub at: u32,
    pub off: u64,
}

/// What an [`AddressFill`] is relative to: an index into the per-instruction array the compile
/// loop computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Base {
    /// Nothing: `off` is the address (known when the JIT was made).
    Zero = 0,
    Pc = 1,
    Next = 2,
    Branch = 3,
    InLine = 4,
    Cold = 5,
    Records = 6,
    CodeBlock = 7,
}

impl Base {
    /// Whether the address lies in the compiled function's own allocation (its code and
    /// records), so that a `rel32` from anywhere in it reaches it.
    pub(crate) fn is_in_allocation(self) -> bool {
        matches!(self, Base::Next | Base::Branch | Base::InLine | Base::Cold | Base::Records)
    }
}

/// The number of [`Base`]s.
pub(crate) const BASES: usize = 8;

/// A 4-byte hole whose value is `add + scale * u16` of a 2-byte field of the instruction (a
/// slot or constant offset, the output, a small literal), proven at build time to fit its
/// kind for every field value, so written without a check.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SlotFill {
    pub area: Area,
    pub at: u32,
    /// Offset of the field in the instruction.
    pub field: u32,
    pub scale: i64,
    pub add: i64,
}

/// What the compile loop emits for one opcode.
#[derive(Debug)]
pub struct Template {
    pub(crate) in_line: Box<[u8]>,
    pub(crate) cold: Box<[u8]>,
    /// Bytes of SlowPathData records (their fields are fills; the bytes are all written).
    pub(crate) records: u32,
    /// `rel32` holes whose value is an address in the function's own allocation (the next
    /// instruction, the branch target, this instruction's pieces and records): in range
    /// because the compile loop refuses a function larger than `MAX_FUNCTION_BYTES` (1 GiB).
    pub(crate) rel32_local: Box<[AddressFill]>,
    /// `rel32` holes whose value is any other address (a helper, an external, the
    /// instruction's bytecode): range-checked.
    pub(crate) rel32: Box<[AddressFill]>,
    /// 8-byte holes and SlowPathData fields whose value is an address.
    pub(crate) abs64: Box<[AddressFill]>,
    pub(crate) slots: Box<[SlotFill]>,
    /// SlowPathData fields holding such a value (8 bytes: every value fits).
    pub(crate) slot_fields: Box<[SlotFill]>,
    /// Every other hole or field, computed and written the general way.
    pub(crate) other: Box<[Fill]>,
    /// Offset of the branch displacement in the instruction, when a fill or an inline-cache
    /// stub needs the branch target (then the compile loop looks it up).
    pub(crate) branch: Option<u32>,
    /// For a variant with a fused inline cache: the offset of its IC entry in line.
    pub(crate) ic_entry: Option<u32>,
    /// Bytes its IC entry takes in line (a call cache's: its slab).
    pub(crate) ic_entry_reserve: u32,
}

/// The addresses a template's constant holes refer to, as placed in the JIT's cache.
pub(crate) struct Placed<'a> {
    /// Each stencil's read-only data (0 when it has none).
    pub data: &'a [u64],
    /// Each helper.
    pub shared: &'a [u64],
    /// Each external, as an absolute value.
    pub externals: &'a [u64],
    /// What a `rel32` reference to each external reaches (the external or its jump stub).
    pub near_externals: &'a [u64],
}

impl Placed<'_> {
    /// The value of a hole of `kind` in `stencil` that does not depend on the instruction (a
    /// helper's, an external's or the stencil's data's address), or why there is none.
    pub(crate) fn fixed(&self, tables: &StencilTables, value: HoleValue, stencil: u16, kind: HoleKind) -> Result<u64, String> {
        let missing = || format!("no value for a {value:?} hole of {}", tables.stencils[stencil as usize].name);
        match value {
            HoleValue::Data => self.data.get(stencil as usize).copied().ok_or_else(missing),
            HoleValue::Shared(k) => self.shared.get(k as usize).copied().ok_or_else(missing),
            HoleValue::External(k) => {
                let list = if kind == HoleKind::PcRel32 { self.near_externals } else { self.externals };
                list.get(k as usize).copied().ok_or_else(missing)
            }
            _ => Err(missing()),
        }
    }
}

/// Builds the template of every variant (or why it has none), in opcode order.
pub(crate) fn build_all(tables: &'static StencilTables, placed: &Placed<'_>) -> Vec<Result<Template, String>> {
    tables.variants.iter().map(|v| build(tables, v, placed)).collect()
}

/// Builds the prologue's template, when the tables have one (a variant of no length: it reads
/// no instruction).
pub(crate) fn build_prologue(tables: &'static StencilTables, placed: &Placed<'_>) -> Option<Result<Template, String>> {
    let v = tables.function_entry?;
    Some(match build(tables, v, placed) {
        Ok(t) if t.records > 0 || t.branch.is_some() || t.ic_entry.is_some() => Err(format!("{} has a record, a branch or an inline cache", v.name)),
        other => other,
    })
}

fn build(tables: &'static StencilTables, v: &'static VariantRecord, placed: &Placed<'_>) -> Result<Template, String> {
    let mut in_line = Vec::new();
    let mut cold = Vec::new();
    let mut records = 0u32;
    let mut fills = Vec::new();
    // Where each piece starts: continuation `k` is piece `k + 1`.
    let mut starts = Vec::new();
    let plans = plan_pieces(tables, v);
    for (plan, at) in plans.iter().zip(piece_offsets(&plans)) {
        let area = if plan.out_of_line { Area::Cold } else { Area::InLine };
        let out = if plan.out_of_line { &mut cold } else { &mut in_line };
        starts.push((area, at));
        let code = &tables.stencils[plan.stencil as usize].code[..plan.len];
        let at = at as usize;
        // (A reserve beyond the code is traps: a call cache's empty slab.)
        if out.len() < at + plan.reserve {
            out.resize(at + plan.reserve, 0xcc);
        }
        out[at..at + code.len()].copy_from_slice(code);
    }
    let field = |offset: Option<u32>, width: u8, what: &str| -> Result<u32, String> {
        let o = offset.ok_or_else(|| format!("{} has no {what}", v.name))?;
        if o as usize + width as usize > v.length as usize {
            return Err(format!("the {what} of {} runs past the instruction's {} bytes", v.name, v.length));
        }
        Ok(o)
    };
    // Where the value of `value` comes from in piece `p` (whose record, if any, is `record`);
    // `None` for a value that does not depend on the instruction, computed by `fixed`.
    let source = |value: HoleValue, p: usize, record: Option<u32>| -> Result<Option<Source>, String> {
        let own = |piece: Option<usize>, what: &str| -> Result<Source, String> {
            let (area, offset) = piece.map(|q| starts[q]).ok_or_else(|| format!("a piece of {} has a {what} hole and no {what}", v.name))?;
            Ok(Source::Own { area, offset })
        };
        Ok(Some(match value {
            HoleValue::Pc => Source::Pc,
            HoleValue::CodeBlock => Source::CodeBlock,
            HoleValue::Output => {
                let offset = field(v.output_offset, 2, "output")?;
                Source::Operand { offset, width: 2, signed: false, encoding: OperandEncoding::SlotOffset }
            }
            HoleValue::Operand(k) => {
                let op = v.operands.get(k as usize).ok_or_else(|| format!("{} has no operand {k}", v.name))?;
                if op.width > 8 {
                    return Err(format!("operand {k} of {} is {} bytes wide", v.name, op.width));
                }
                let offset = if op.width == 0 { op.offset } else { field(Some(op.offset), op.width, "operand")? };
                Source::Operand { offset, width: op.width, signed: op.signed, encoding: op.encoding }
            }
            HoleValue::Next => Source::Next,
            HoleValue::Branch => {
                field(v.branch_offset, 4, "branch")?;
                Source::Branch
            }
            HoleValue::Continuation(k) => {
                let (area, offset) = *starts.get(1 + k as usize).ok_or_else(|| format!("{} has no continuation {k}", v.name))?;
                Source::Own { area, offset }
            }
            HoleValue::SlowPathData => {
                Source::Own { area: Area::Records, offset: record.ok_or_else(|| format!("{} has a SlowPathData hole and no record", v.name))? }
            }
            HoleValue::ColdPart => own(plans[p].cold_part, "cold part")?,
            HoleValue::HotPart => own(plans[p].owner, "hot part")?,
            // The IC entry's first target: the generic code (the main stencil, piece 0).
            HoleValue::IcNext if v.ic.is_some_and(|ic| ic.entry == plans[p].stencil) => own(Some(0), "generic code")?,
            HoleValue::IcNext | HoleValue::IcKey | HoleValue::IcState | HoleValue::IcDerived(_) | HoleValue::CallTarget => {
                return Err(format!("a piece of {} has an inline-cache stub's {value:?} hole", v.name))
            }
            HoleValue::NumParams | HoleValue::FrameSize if v.length > 0 => {
                return Err(format!("a piece of {} has a {value:?} hole, which only the function prologue has", v.name))
            }
            HoleValue::NumParams => Source::NumParams,
            HoleValue::FrameSize => Source::FrameSize,
            HoleValue::Data | HoleValue::Shared(_) | HoleValue::External(_) => return Ok(None),
        }))
    };
    let fixed = |value: HoleValue, stencil: u16, kind: HoleKind| placed.fixed(tables, value, stencil, kind);
    // Each piece's SlowPathData record (a cold part uses its owner's).
    let mut piece_records: Vec<Option<u32>> = Vec::with_capacity(plans.len());
    for (p, plan) in plans.iter().enumerate() {
        let s = &tables.stencils[plan.stencil as usize];
        let record = match plan.owner {
            Some(o) => piece_records[o],
            None => (!s.slow_path_data.is_empty()).then_some(records),
        };
        piece_records.push(record);
        let (area, start) = starts[p];
        for h in s.holes.iter().take_while(|h| (h.offset as usize) < plan.len) {
            if h.offset as usize + h.kind.width() > plan.len {
                return Err(format!("a hole of {} at {} runs past the code copied", s.name, h.offset));
            }
            let at = start + h.offset;
            match source(h.value, p, record)? {
                Some(source) => fills.push(Fill { area, at, write: Write::Hole(h.kind), addend: h.addend, source }),
                None if h.kind == HoleKind::PcRel32 => {
                    let value = fixed(h.value, plan.stencil, h.kind)?;
                    fills.push(Fill { area, at, write: Write::Hole(h.kind), addend: h.addend, source: Source::Fixed(value) });
                }
                None => {
                    // Absolute: the same bytes in every copy.
                    let value = fixed(h.value, plan.stencil, h.kind)?;
                    let out = if area == Area::Cold { &mut cold } else { &mut in_line };
                    patch_hole(out, at as usize, h.kind, h.addend, value, 0).map_err(|e| e.in_stencil(s.name).to_string())?;
                }
            }
        }
        if let Some(r) = record.filter(|_| plan.owner.is_none()) {
            for (k, &value) in s.slow_path_data.iter().enumerate() {
                let at = r + 8 * k as u32;
                let source = match source(value, p, record)? {
                    Some(source) => source,
                    None => Source::Fixed(fixed(value, plan.stencil, HoleKind::Abs64)?),
                };
                fills.push(Fill { area: Area::Records, at, write: Write::Field, addend: 0, source });
            }
            records += 8 * s.slow_path_data.len() as u32;
        }
    }
    // (An instruction with an inline cache needs it for its stubs, made later.)
    let branch = if fills.iter().any(|f| f.source == Source::Branch) || v.ic.is_some() { v.branch_offset } else { None };
    let (ic_entry, ic_entry_reserve) = match v.ic {
        Some(ic) => {
            let p =
                plans.iter().position(|p| p.stencil == ic.entry && !p.out_of_line).ok_or_else(|| format!("{} has no IC entry in line", v.name))?;
            (Some(starts[p].1), plans[p].reserve as u32)
        }
        None => (None, 0),
    };
    // The compile loop writes fills without a bounds check: each must lie in its area.
    let area_len = |area: Area| match area {
        Area::InLine => in_line.len(),
        Area::Cold => cold.len(),
        Area::Records => records as usize,
    };
    for f in &fills {
        let width = match f.write {
            Write::Hole(kind) => kind.width(),
            Write::Field => 8,
        };
        if f.at as usize + width > area_len(f.area) {
            return Err(format!("a hole of {} at {} of its {:?} area runs past the area's end", v.name, f.at, f.area));
        }
    }
    let (mut rel32_local, mut rel32, mut abs64, mut slots, mut slot_fields, mut other) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for f in fills {
        if let Some(a) = as_address(&f) {
            match f.write {
                Write::Hole(HoleKind::PcRel32) if a.base.is_in_allocation() => rel32_local.push(a),
                Write::Hole(HoleKind::PcRel32) => rel32.push(a),
                Write::Hole(HoleKind::Abs64) | Write::Field => abs64.push(a),
                Write::Hole(_) => other.push(f),
            }
        } else if let Some(s) = as_slot(&f) {
            if f.write == Write::Field {
                slot_fields.push(s);
            } else {
                slots.push(s);
            }
        } else {
            other.push(f);
        }
    }
    Ok(Template {
        in_line: in_line.into(),
        cold: cold.into(),
        records,
        rel32_local: rel32_local.into(),
        rel32: rel32.into(),
        abs64: abs64.into(),
        slots: slots.into(),
        slot_fields: slot_fields.into(),
        other: other.into(),
        branch,
        ic_entry,
        ic_entry_reserve,
    })
}

/// `f` as an [`AddressFill`], if its value is an address.
fn as_address(f: &Fill) -> Option<AddressFill> {
    let addend = f.addend as u64;
    let (base, off) = match f.source {
        Source::Pc => (Base::Pc, 0),
        Source::CodeBlock => (Base::CodeBlock, 0),
        Source::Operand { encoding: OperandEncoding::Address { offset }, .. } => (Base::Pc, u64::from(offset)),
        Source::Next => (Base::Next, 0),
        Source::Branch => (Base::Branch, 0),
        Source::Own { area: Area::InLine, offset } => (Base::InLine, u64::from(offset)),
        Source::Own { area: Area::Cold, offset } => (Base::Cold, u64::from(offset)),
        Source::Own { area: Area::Records, offset } => (Base::Records, u64::from(offset)),
        Source::Fixed(value) => (Base::Zero, value),
        Source::Operand { .. } | Source::NumParams | Source::FrameSize => return None,
    };
    Some(AddressFill { area: f.area, base, at: f.at, off: off.wrapping_add(addend) })
}

/// `f` as a [`SlotFill`], if it reads a 2-byte field into a 4-byte hole that holds every value,
/// or into a SlowPathData field (8 bytes: `add + scale * raw` wraps as the encoding does).
fn as_slot(f: &Fill) -> Option<SlotFill> {
    let Source::Operand { offset, width: 2, signed: false, encoding } = f.source else { return None };
    let (scale, add) = match encoding {
        OperandEncoding::Unsigned => (1, 0),
        OperandEncoding::SlotOffset => (8, 0),
        OperandEncoding::ConstantOffset => (-8, CONSTANT_BIAS as i64 - 8),
        OperandEncoding::Signed { .. } | OperandEncoding::Address { .. } => return None,
    };
    // The check the general path makes, made once for the extremes of the field.
    let fits = |kind: HoleKind| {
        [0i64, 0xffff].iter().all(|&raw| {
            let v = i128::from(add + scale * raw) + i128::from(f.addend);
            match kind {
                HoleKind::Abs32 => u32::try_from(v).is_ok(),
                HoleKind::Abs32Signed => i32::try_from(v).is_ok(),
                _ => false,
            }
        })
    };
    match f.write {
        Write::Hole(kind) if fits(kind) => Some(SlotFill { area: f.area, at: f.at, field: offset, scale, add: add + f.addend }),
        Write::Field => Some(SlotFill { area: f.area, at: f.at, field: offset, scale, add }),
        Write::Hole(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn operand(encoding: OperandEncoding, kind: HoleKind, addend: i64) -> Fill {
        Fill { area: Area::InLine, at: 3, write: Write::Hole(kind), addend, source: Source::Operand { offset: 2, width: 2, signed: false, encoding } }
    }

    /// A slot fill is made exactly when `patch_hole` (the general path) accepts every field
    /// value, and then writes the bytes `patch_hole` writes, for every field value.
    #[test]
    fn slot_fills_agree_with_the_general_path() {
        for encoding in [OperandEncoding::Unsigned, OperandEncoding::SlotOffset, OperandEncoding::ConstantOffset] {
            for kind in [HoleKind::Abs32, HoleKind::Abs32Signed] {
                for addend in [0, 8, -8, -4, i64::from(i32::MAX) - 0x10_0000, i64::from(u32::MAX)] {
                    let general = |raw: u16| {
                        let mut bytes = [0u8; 4];
                        patch_hole(&mut bytes, 0, kind, addend, encoding.encode(i64::from(raw), 0), 0).ok().map(|()| bytes)
                    };
                    let fits_all = (0..=0xffffu16).all(|raw| general(raw).is_some());
                    let slot = as_slot(&operand(encoding, kind, addend));
                    assert_eq!(slot.is_some(), fits_all, "{encoding:?} {kind:?} {addend}");
                    if let Some(s) = slot {
                        for raw in 0..=0xffffu16 {
                            let written = ((s.add + s.scale * i64::from(raw)) as u32).to_le_bytes();
                            assert_eq!(Some(written), general(raw), "{encoding:?} {kind:?} {addend} {raw}");
                        }
                    }
                }
            }
        }
        // A SlowPathData field: every value, wrapping as the encoding does.
        for encoding in [OperandEncoding::Unsigned, OperandEncoding::SlotOffset, OperandEncoding::ConstantOffset] {
            let field = Fill { write: Write::Field, ..operand(encoding, HoleKind::Abs64, 0) };
            let s = as_slot(&field).expect("a 2-byte field's record field is a slot fill");
            for raw in 0..=0xffffu16 {
                let written = s.add.wrapping_add(s.scale.wrapping_mul(i64::from(raw))) as u64;
                assert_eq!(written, encoding.encode(i64::from(raw), 0), "{encoding:?} {raw}");
            }
        }
        // Not a 2-byte unsigned field, or not a 4-byte hole: the general path.
        assert!(as_slot(&operand(OperandEncoding::SlotOffset, HoleKind::Abs64, 0)).is_none());
        assert!(as_slot(&operand(OperandEncoding::Signed { width: 2 }, HoleKind::Abs32Signed, 0)).is_none());
    }

    /// Address fills fold the addend into the offset from their base.
    #[test]
    fn address_fills_fold_the_addend() {
        let f = Fill {
            area: Area::Cold,
            at: 9,
            write: Write::Hole(HoleKind::PcRel32),
            addend: -4,
            source: Source::Own { area: Area::Records, offset: 24 },
        };
        let a = as_address(&f).unwrap();
        assert_eq!((a.area, a.base, a.at, a.off), (Area::Cold, Base::Records, 9, 20));
        let f = Fill { source: Source::Operand { offset: 0, width: 8, signed: false, encoding: OperandEncoding::Address { offset: 6 } }, ..f };
        assert_eq!(as_address(&f).map(|a| (a.base, a.off)), Some((Base::Pc, 2)));
        let f = Fill { source: Source::Operand { offset: 2, width: 2, signed: false, encoding: OperandEncoding::SlotOffset }, ..f };
        assert!(as_address(&f).is_none());
    }
}
