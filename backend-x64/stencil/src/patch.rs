//! The one table from hole kind to patch routine. Each routine checks that the value fits.

use crate::{Hole, HoleKind};

/// A hole that cannot take its value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PatchError {
    #[error("stencil '{stencil}': no value for symbol '{symbol}'")]
    Unresolved { stencil: String, symbol: String },
    #[error("stencil '{stencil}': the output buffer has {got} bytes, the code {expected}")]
    BufferSize { stencil: String, expected: usize, got: usize },
    #[error("stencil '{stencil}': {kind:?} hole at offset {offset} cannot hold {value:#x}")]
    OutOfRange { stencil: String, kind: HoleKind, offset: usize, value: i128 },
    #[error("stencil '{stencil}': hole at offset {offset} runs past the code's end")]
    OutOfBounds { stencil: String, offset: usize },
}

impl PatchError {
    /// The error with the stencil's name filled in.
    pub fn in_stencil(self, name: &str) -> Self {
        match self {
            PatchError::OutOfRange { kind, offset, value, .. } => PatchError::OutOfRange { stencil: name.to_owned(), kind, offset, value },
            PatchError::OutOfBounds { offset, .. } => PatchError::OutOfBounds { stencil: name.to_owned(), offset },
            other => other,
        }
    }
}

/// Writes `value` (the symbol's) into `hole` of `code`, which runs at `code_address`.
pub(crate) fn apply(code: &mut [u8], hole: &Hole, value: u64, code_address: u64) -> Result<(), PatchError> {
    patch_hole(code, hole.offset, hole.kind, hole.addend, value, code_address)
}

/// The patch routine of every hole kind: writes `value + addend` (minus the hole's address for
/// the PC-relative kinds) at `at` of `code`, which runs at `code_address`, or says why it does
/// not fit. The JIT's emitters call it with holes they keep in their own compact form.
#[inline(always)]
pub fn patch_hole(code: &mut [u8], at: usize, kind: HoleKind, addend: i64, value: u64, code_address: u64) -> Result<(), PatchError> {
    let Some(slot) = at.checked_add(kind.width()).and_then(|end| code.get_mut(at..end)) else { return Err(out_of_bounds(at)) };
    // Computed in i128 so that no sum wraps before the range check.
    let s = i128::from(value);
    let a = i128::from(addend);
    let out_of_range = |v: i128| out_of_range(kind, at, v);
    match kind {
        HoleKind::Abs64 => {
            let v = (s + a) as u64;
            slot.copy_from_slice(&v.to_le_bytes());
        }
        HoleKind::Abs32 => {
            let v = s + a;
            let v = u32::try_from(v).map_err(|_| out_of_range(v))?;
            slot.copy_from_slice(&v.to_le_bytes());
        }
        HoleKind::Abs32Signed => {
            let v = s + a;
            let v = i32::try_from(v).map_err(|_| out_of_range(v))?;
            slot.copy_from_slice(&v.to_le_bytes());
        }
        HoleKind::PcRel32 => {
            let p = i128::from(code_address) + at as i128;
            let v = s + a - p;
            let v = i32::try_from(v).map_err(|_| out_of_range(v))?;
            slot.copy_from_slice(&v.to_le_bytes());
        }
    }
    Ok(())
}

// The errors are built out of line: the JIT patches every hole of every instruction through
// `patch_hole`, and almost never fails.
#[cold]
#[inline(never)]
fn out_of_bounds(offset: usize) -> PatchError {
    PatchError::OutOfBounds { stencil: String::new(), offset }
}

#[cold]
#[inline(never)]
fn out_of_range(kind: HoleKind, offset: usize, value: i128) -> PatchError {
    PatchError::OutOfRange { stencil: String::new(), kind, offset, value }
}
