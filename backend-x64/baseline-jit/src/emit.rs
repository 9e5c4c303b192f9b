//! Generated emitters: one Rust function per variant that copies and patches its instruction
//! with every offset, width and encoding a constant (the paper's section 7: the generator
//! emits the code that copies and patches, not only the stencils).
//!
//! The compile loop's general path ([`crate::template`], `write_fills`) reads each fill from
//! the template: where it goes, what it is relative to, how it is written. That costs a loop
//! iteration, a few loads and a branch per hole, and a `memcpy` call per piece: most of a
//! bytecode's compile time. The generator (`tools/deegen`) builds every variant's template at
//! build time from the same tables ([`emitters_source`]) and writes a function that makes the
//! calls the general path would make, each to an `#[inline(always)]` helper of this module with
//! constant arguments, which the compiler turns into straight-line stores.
//!
//! The general path and a generated emitter write the same bytes by construction (the general
//! path calls the same helpers in a loop). What a generated emitter assumes of the template it
//! is handed (the lengths and fills it was generated from) is checked when the JIT is made: it
//! carries the [`fingerprint`] of the template it was generated for, and a variant whose
//! template at run time has another keeps the general path.
//!
//! Everything here that is `pub` is for the generated code only.

use std::fmt::Write as _;

pub use crate::compile::JitError;
use crate::compile::{rel32_out_of_range, truncated};
use crate::tables::StencilTables;
pub use crate::template::Template;
use crate::template::{AddressFill, Base, Placed, SlotFill, Source, Write, BASES};
use deegen_stencil::patch_hole;

/// Where one instruction's code goes and the values its fills are computed from.
pub struct EmitTarget<'b> {
    /// The function's buffer (its code, then its records) and its length.
    pub(crate) out: *mut u8,
    pub(crate) len: usize,
    /// The address `out` is mapped at.
    pub(crate) base: u64,
    /// Where each [`crate::template::Area`] of the instruction starts in the buffer.
    pub(crate) pos: [usize; 3],
    /// Indexed by [`Base`].
    pub(crate) bases: [u64; BASES],
    pub(crate) bytecode: &'b [u8],
    /// The instruction's offset in `bytecode`.
    pub(crate) offset: usize,
    /// The prologue's values (0 for an instruction, whose templates have no such fill).
    pub(crate) num_params: u64,
    pub(crate) frame_size: u64,
}

/// A generated emitter: writes the instruction of its variant, whose template is `t`; false
/// when a hole's value does not fit (then the general path, [`write_fills`], says which).
///
/// # Safety
/// `t` is the template the emitter was generated for (its [`fingerprint`] matches), and `e`'s
/// buffer holds every area of the instruction at `e.pos` (the compile loop sized it).
pub type EmitFn = unsafe fn(e: &EmitTarget<'_>, t: &Template) -> bool;

/// A variant's generated emitter and the fingerprint of the template it was generated for.
#[derive(Debug, Clone, Copy)]
pub struct GeneratedEmitter {
    pub fingerprint: u64,
    pub emit: EmitFn,
}

/// Writes `N` bytes at `at` of the buffer `out` points into.
///
/// # Safety
/// `at + N` is within the buffer.
#[inline(always)]
unsafe fn put<const N: usize>(out: *mut u8, at: usize, bytes: [u8; N]) {
    // SAFETY: the caller's.
    unsafe { out.add(at).cast::<[u8; N]>().write_unaligned(bytes) }
}

/// Copies the template's in-line code (`N` bytes).
///
/// # Safety
/// As [`EmitFn`]'s, and `N` is the length of `t`'s in-line code.
#[inline(always)]
pub unsafe fn copy_in_line<const N: usize>(e: &EmitTarget<'_>, t: &Template) {
    debug_assert_eq!(t.in_line.len(), N);
    // SAFETY: the caller's.
    unsafe { std::ptr::copy_nonoverlapping(t.in_line.as_ptr(), e.out.add(e.pos[0]), N) }
}

/// Copies the template's out-of-line code (`N` bytes).
///
/// # Safety
/// As [`copy_in_line`].
#[inline(always)]
pub unsafe fn copy_cold<const N: usize>(e: &EmitTarget<'_>, t: &Template) {
    debug_assert_eq!(t.cold.len(), N);
    // SAFETY: the caller's.
    unsafe { std::ptr::copy_nonoverlapping(t.cold.as_ptr(), e.out.add(e.pos[1]), N) }
}

/// A `rel32` hole at `at` of `area` whose target, `bases[base] + off`, lies in the function's
/// own allocation: in reach (the compile loop refuses a function of more than 1 GiB).
///
/// # Safety
/// As [`EmitFn`]'s: the hole lies in its area.
#[inline(always)]
pub unsafe fn rel32_local(e: &EmitTarget<'_>, area: usize, at: usize, base: usize, off: u64) {
    let at = e.pos[area] + at;
    let rel = e.bases[base].wrapping_add(off).wrapping_sub(e.base + at as u64);
    // SAFETY: the caller's.
    unsafe { put(e.out, at, (rel as u32).to_le_bytes()) }
}

/// A `rel32` hole whose target is any other address: range-checked.
///
/// # Safety
/// As [`rel32_local`].
#[inline(always)]
pub unsafe fn rel32(e: &EmitTarget<'_>, area: usize, at: usize, base: usize, off: u64) -> Result<(), JitError> {
    let at = e.pos[area] + at;
    let rel = e.bases[base].wrapping_add(off).wrapping_sub(e.base + at as u64) as i64;
    let Ok(rel) = i32::try_from(rel) else { return Err(rel32_out_of_range(e.offset, rel)) };
    // SAFETY: the caller's.
    unsafe { put(e.out, at, rel.to_le_bytes()) };
    Ok(())
}

/// An 8-byte hole or SlowPathData field holding the address `bases[base] + off`.
///
/// # Safety
/// As [`rel32_local`].
#[inline(always)]
pub unsafe fn abs64(e: &EmitTarget<'_>, area: usize, at: usize, base: usize, off: u64) {
    // SAFETY: the caller's.
    unsafe { put(e.out, e.pos[area] + at, e.bases[base].wrapping_add(off).to_le_bytes()) }
}

/// The instruction's 2-byte field at `field`, read without a bounds check.
///
/// # Safety
/// The field lies in the instruction, which lies in `e.bytecode` (the compile loop checked the
/// instruction's length, the template the field's offset).
#[inline(always)]
unsafe fn field_u16(e: &EmitTarget<'_>, field: usize) -> u16 {
    let at = e.offset + field;
    debug_assert!(at + 2 <= e.bytecode.len());
    // SAFETY: the caller's.
    unsafe { u16::from_le_bytes([*e.bytecode.get_unchecked(at), *e.bytecode.get_unchecked(at + 1)]) }
}

/// A 4-byte hole holding `add + scale * u16` of the instruction's 2-byte field at `field`,
/// which fits for every field value (`template::as_slot` proved it).
///
/// # Safety
/// As [`rel32_local`], and the field lies in the instruction (the compile loop checked the
/// instruction's length, the template the field's offset).
#[inline(always)]
pub unsafe fn slot(e: &EmitTarget<'_>, area: usize, at: usize, field: usize, scale: i64, add: i64) {
    // SAFETY: the caller's.
    let value = add + scale * i64::from(unsafe { field_u16(e, field) });
    // SAFETY: the caller's.
    unsafe { put(e.out, e.pos[area] + at, (value as u32).to_le_bytes()) }
}

/// A SlowPathData field holding `add + scale * u16` of the instruction's 2-byte field at
/// `field` (wrapping, as the operand's encoding computes it).
///
/// # Safety
/// As [`slot`].
#[inline(always)]
pub unsafe fn slot_field(e: &EmitTarget<'_>, area: usize, at: usize, field: usize, scale: i64, add: i64) {
    // SAFETY: the caller's.
    let value = add.wrapping_add(scale.wrapping_mul(i64::from(unsafe { field_u16(e, field) })));
    // SAFETY: the caller's.
    unsafe { put(e.out, e.pos[area] + at, (value as u64).to_le_bytes()) }
}

/// Fill `k` of the template's general list ([`Template::other`]), computed and written the
/// general way (range-checked).
///
/// # Safety
/// As [`rel32_local`].
#[inline(always)]
pub unsafe fn other(e: &EmitTarget<'_>, t: &Template, k: usize) -> Result<(), JitError> {
    let f = &t.other[k];
    let (bytecode, offset, pc) = (e.bytecode, e.offset, e.bases[Base::Pc as usize]);
    let value = match f.source {
        Source::Pc => pc,
        Source::CodeBlock => e.bases[Base::CodeBlock as usize],
        Source::Operand { offset: at, width, signed, encoding } => {
            let raw = crate::compile::read_field(bytecode, offset + at as usize, width, signed).ok_or_else(|| truncated(offset))?;
            encoding.encode(raw, pc)
        }
        Source::Next => e.bases[Base::Next as usize],
        Source::Branch => e.bases[Base::Branch as usize],
        Source::Own { area, offset: at } => e.base + (e.pos[area as usize] + at as usize) as u64,
        Source::Fixed(value) => value,
        Source::NumParams => e.num_params,
        Source::FrameSize => e.frame_size,
    };
    let at = e.pos[f.area as usize] + f.at as usize;
    match f.write {
        // SAFETY: the caller's.
        Write::Field => unsafe { put(e.out, at, value.to_le_bytes()) },
        Write::Hole(kind) => {
            // SAFETY: `out` is the buffer of `len` bytes the compile loop writes.
            let buf = unsafe { std::slice::from_raw_parts_mut(e.out, e.len) };
            patch_hole(buf, at, kind, f.addend, value, e.base)?
        }
    }
    Ok(())
}

/// The address part of fill `k` of the template's `rel32` list: what a generated emitter reads
/// of a hole whose value was known only when the JIT was made (a helper, an external).
#[inline(always)]
pub fn rel32_off(t: &Template, k: usize) -> u64 {
    t.rel32[k].off
}

/// As [`rel32_off`], of the `abs64` list.
#[inline(always)]
pub fn abs64_off(t: &Template, k: usize) -> u64 {
    t.abs64[k].off
}

/// The general path: patches template `t` at `e` with a loop over each fill list, through the
/// same helpers a generated emitter calls.
///
/// # Safety
/// As [`EmitFn`]'s (for any template).
#[inline(always)]
pub(crate) unsafe fn write_fills(e: &EmitTarget<'_>, t: &Template) -> Result<(), JitError> {
    debug_assert!(e.pos[0] + t.in_line.len() <= e.len && e.pos[1] + t.cold.len() <= e.len && e.pos[2] + t.records as usize <= e.len);
    // SAFETY (every call): the template proved each fill lies in its area
    // ([`crate::template`]), and the compile loop sized the buffer so that each area lies in it.
    unsafe {
        for f in t.rel32_local.iter() {
            rel32_local(e, f.area as usize, f.at as usize, f.base as usize, f.off);
        }
        for f in t.rel32.iter() {
            rel32(e, f.area as usize, f.at as usize, f.base as usize, f.off)?;
        }
        for f in t.abs64.iter() {
            abs64(e, f.area as usize, f.at as usize, f.base as usize, f.off);
        }
        for f in t.slots.iter() {
            slot(e, f.area as usize, f.at as usize, f.field as usize, f.scale, f.add);
        }
        for f in t.slot_fields.iter() {
            slot_field(e, f.area as usize, f.at as usize, f.field as usize, f.scale, f.add);
        }
        for k in 0..t.other.len() {
            other(e, t, k)?;
        }
    }
    Ok(())
}

/// What a generated emitter assumes of its template: the lengths of its code and every fill
/// of its lists but the `other` ones (which it reads), and the values of those not fixed when
/// the JIT is made. FNV-1a over them; the same function at build time and at run time.
pub fn fingerprint(t: &Template) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    let mut add = |v: u64| {
        for b in v.to_le_bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    };
    add(t.in_line.len() as u64);
    add(t.cold.len() as u64);
    let address = |add: &mut dyn FnMut(u64), list: &[AddressFill]| {
        add(list.len() as u64);
        for f in list {
            add(f.area as u64);
            add(f.base as u64);
            add(u64::from(f.at));
            // A fixed address is read from the template, not burnt in.
            add(if f.base == Base::Zero { 0 } else { f.off });
        }
    };
    address(&mut add, &t.rel32_local);
    address(&mut add, &t.rel32);
    address(&mut add, &t.abs64);
    for list in [&t.slots, &t.slot_fields] {
        add(list.len() as u64);
        for s in list.iter() {
            add(s.area as u64);
            add(u64::from(s.at));
            add(u64::from(s.field));
            add(s.scale as u64);
            add(s.add as u64);
        }
    }
    add(t.other.len() as u64);
    h
}

/// The body of the generated emitter of template `t`: the calls [`write_fills`] would make for
/// it, with constant arguments.
fn emitter_body(t: &Template) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "            copy_in_line::<{}>(e, t);", t.in_line.len());
    if !t.cold.is_empty() {
        let _ = writeln!(s, "            copy_cold::<{}>(e, t);", t.cold.len());
    }
    for f in t.rel32_local.iter() {
        let _ = writeln!(s, "            rel32_local(e, {}, {}, {}, {:#x});", f.area as usize, f.at, f.base as usize, f.off);
    }
    for (k, f) in t.rel32.iter().enumerate() {
        let off = if f.base == Base::Zero { format!("rel32_off(t, {k})") } else { format!("{:#x}", f.off) };
        let _ = writeln!(s, "            if rel32(e, {}, {}, {}, {off}).is_err() {{ return false; }}", f.area as usize, f.at, f.base as usize);
    }
    for (k, f) in t.abs64.iter().enumerate() {
        let off = if f.base == Base::Zero { format!("abs64_off(t, {k})") } else { format!("{:#x}", f.off) };
        let _ = writeln!(s, "            abs64(e, {}, {}, {}, {off});", f.area as usize, f.at, f.base as usize);
    }
    for (helper, list) in [("slot", &t.slots), ("slot_field", &t.slot_fields)] {
        for f in list.iter() {
            let SlotFill { area, at, field, scale, add } = *f;
            let _ = writeln!(s, "            {helper}(e, {}, {at}, {field}, {scale}, {add});", area as usize);
        }
    }
    for (k, f) in t.other.iter().enumerate() {
        let _ = writeln!(s, "            if other(e, t, {k}).is_err() {{ return false; }} // {:?} {:?}", f.write, f.source);
    }
    s
}

/// The Rust source of every variant's generated emitter, for the tables' own source file
/// (`tools/deegen` appends it): a module `emitters` and a static `EMITTERS`, indexed by opcode,
/// of what [`StencilTables::emitters`] holds. A variant without a template (inconsistent tables)
/// gets none. `tables` is the generator's copy of the tables, whose helpers and externals have
/// no addresses yet: the values a template burns into its bytes do not shape its fills.
pub fn emitters_source(tables: &'static StencilTables) -> String {
    // Addresses in reach of everything, standing in for the JIT's.
    const FAR: u64 = 0x1000_0000;
    let data = vec![FAR; tables.stencils.len()];
    let shared = vec![FAR; tables.shared.len()];
    let externals = vec![FAR; tables.externals.len()];
    let placed = Placed { data: &data, shared: &shared, externals: &externals, near_externals: &externals };
    let templates = crate::template::build_all(tables, &placed);
    let mut s = String::new();
    s.push_str("/// The baseline JIT's generated emitters (`deegen_baseline_jit::emit`).\n");
    s.push_str("#[allow(unused_unsafe, clippy::all)]\nmod emitters {\n");
    s.push_str("    use deegen_baseline_jit::emit::*;\n");
    // Variants with the same template share one function.
    let mut bodies: Vec<String> = Vec::new();
    let mut entries = Vec::with_capacity(templates.len());
    for t in &templates {
        let Ok(t) = t else {
            entries.push(None);
            continue;
        };
        let body = emitter_body(t);
        let k = match bodies.iter().position(|b| *b == body) {
            Some(k) => k,
            None => {
                let _ = write!(
                    s,
                    "    pub(super) unsafe fn e{}(e: &EmitTarget<'_>, t: &Template) -> bool {{\n        unsafe {{\n{body}        }}\n        true\n    }}\n",
                    bodies.len()
                );
                bodies.push(body);
                bodies.len() - 1
            }
        };
        entries.push(Some((fingerprint(t), k)));
    }
    s.push_str("}\n\n");
    s.push_str("static EMITTERS: &[Option<deegen_baseline_jit::emit::GeneratedEmitter>] = &[\n");
    for e in entries {
        match e {
            Some((fp, k)) => {
                let _ = writeln!(s, "    Some(deegen_baseline_jit::emit::GeneratedEmitter {{ fingerprint: {fp:#x}, emit: emitters::e{k} }}),");
            }
            None => s.push_str("    None,\n"),
        }
    }
    s.push_str("];\n");
    s
}
