//! Branch inversion at the end of a stencil, so that more stencils fall through.
//!
//! The JIT drops a stencil's final `jmp <next instruction>` when the next instruction's code
//! follows (jump-to-fallthrough). A conditional bytecode (a comparison, a `for` loop step)
//! often comes out of LLVM the other way round: `jcc <next>; jmp <branch target>`, which the
//! JIT can only copy as it is, so both outcomes take a jump, and a return continuation after
//! it stays in line. Rewritten as `j!cc <branch target>; jmp <next>`, the same two outcomes
//! take one conditional jump and a fall-through: a `for` loop's back edge becomes the taken
//! `jcc` of its last instruction, as a compiler lays out a loop.

use iced_x86::{Decoder, DecoderOptions, FlowControl};

use crate::{HoleKind, HoleTarget, Stencil};

/// `jcc rel32` (`0f 8x`) and `jmp rel32` (`e9`) lengths.
const JCC: usize = 6;
const JMP: usize = 5;

/// Rewrites `stencil` when it ends with `jcc <next>; jmp <other>` (both `rel32` holes, `next`
/// the symbol of the next instruction's code) into `j!cc <other>; jmp <next>`. Returns whether
/// it did. Left alone when any branch inside the stencil, or from outside it at one of the
/// offsets `entries` (its cold part's jumps back), lands on the final `jmp`: that entry would
/// then go to `next` instead of `other`.
pub fn invert_final_branch(stencil: &mut Stencil, next: &str, entries: &[usize]) -> bool {
    let len = stencil.code.len();
    if len < JCC + JMP {
        return false;
    }
    let (jcc, jmp) = (len - JCC - JMP, len - JMP);
    let code = &stencil.code;
    if code[jmp] != 0xe9 || code[jcc] != 0x0f || code[jcc + 1] & 0xf0 != 0x80 {
        return false;
    }
    let is_next = |t: &HoleTarget| matches!(t, HoleTarget::Symbol(s) if s == next);
    let field = |at: usize| stencil.holes.iter().position(|h| h.offset == at && h.kind == HoleKind::PcRel32 && h.addend == -4);
    let (Some(to_next), Some(to_other)) = (field(jcc + 2), field(jmp + 1)) else { return false };
    if !is_next(&stencil.holes[to_next].target) || is_next(&stencil.holes[to_other].target) {
        return false;
    }
    if entries.contains(&jmp) || lands_on(&stencil.code, &stencil.holes.iter().map(|h| h.offset).collect::<Vec<_>>(), jmp) {
        return false;
    }
    stencil.code[jcc + 1] ^= 1;
    let (a, b) = (stencil.holes[to_next].target.clone(), stencil.holes[to_other].target.clone());
    stencil.holes[to_next].target = b;
    stencil.holes[to_other].target = a;
    true
}

/// Whether a branch of `code` whose target is inside the code itself (its displacement field is
/// not a hole, whose bytes are zero until patched) goes to `offset`.
fn lands_on(code: &[u8], hole_offsets: &[usize], offset: usize) -> bool {
    let mut decoder = Decoder::with_ip(64, code, 0, DecoderOptions::NONE);
    while decoder.can_decode() {
        let at = decoder.position();
        let i = decoder.decode();
        let end = at + i.len();
        let branches = matches!(i.flow_control(), FlowControl::UnconditionalBranch | FlowControl::ConditionalBranch);
        if !branches || !i.is_jmp_short_or_near() && !i.is_jcc_short_or_near() {
            continue;
        }
        // The displacement is the instruction's last field (rel8 or rel32).
        let field = if i.len() >= 5 && matches!(code[at], 0xe9 | 0x0f) { end - 4 } else { end - 1 };
        if hole_offsets.contains(&field) {
            continue;
        }
        if i.near_branch_target() == offset as u64 {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Hole;

    fn hole(offset: usize, symbol: &str) -> Hole {
        Hole { offset, kind: HoleKind::PcRel32, target: HoleTarget::Symbol(symbol.into()), addend: -4 }
    }

    /// `cmp %rsi,%rdi; ja <next>; jmp <branch>`, with a prefix of `prefix` bytes of code.
    fn compare(prefix: Vec<u8>) -> Stencil {
        let p = prefix.len();
        let mut code = prefix;
        code.extend_from_slice(&[0x48, 0x39, 0xf7]);
        code.extend_from_slice(&[0x0f, 0x87, 0, 0, 0, 0]);
        code.extend_from_slice(&[0xe9, 0, 0, 0, 0]);
        Stencil { name: "JumpIfLt".into(), code, data: Vec::new(), data_align: 1, holes: vec![hole(p + 5, "next"), hole(p + 10, "branch")] }
    }

    #[test]
    fn the_final_pair_is_inverted() {
        let mut s = compare(Vec::new());
        assert!(invert_final_branch(&mut s, "next", &[]));
        assert_eq!(&s.code[3..5], &[0x0f, 0x86], "ja becomes jbe");
        assert_eq!(s.holes[0].target, HoleTarget::Symbol("branch".into()));
        assert_eq!(s.holes[1].target, HoleTarget::Symbol("next".into()));
        // Once is enough: the stencil now ends with its jump to the next instruction.
        assert!(!invert_final_branch(&mut s, "next", &[]));
    }

    /// A branch inside the stencil to the final `jmp` keeps the stencil as it is.
    #[test]
    fn a_branch_to_the_final_jump_prevents_it() {
        // `je +9` over the compare and the `ja`, onto the `jmp`.
        let mut s = compare(vec![0x74, 0x09]);
        let before = s.clone();
        assert!(!invert_final_branch(&mut s, "next", &[]));
        assert_eq!(s, before);
        // A branch elsewhere (onto the compare) does not.
        let mut s = compare(vec![0x74, 0x00]);
        assert!(invert_final_branch(&mut s, "next", &[]));
        // Nor does a jump from the cold part onto the `ja`; one onto the `jmp` does.
        let mut s = compare(Vec::new());
        assert!(invert_final_branch(&mut s, "next", &[3]));
        let mut s = compare(Vec::new());
        assert!(!invert_final_branch(&mut s, "next", &[9]));
    }

    #[test]
    fn other_endings_are_left_alone() {
        // Already `jcc <branch>; jmp <next>`.
        let mut s = compare(Vec::new());
        s.holes[0].target = HoleTarget::Symbol("branch".into());
        s.holes[1].target = HoleTarget::Symbol("next".into());
        let before = s.clone();
        assert!(!invert_final_branch(&mut s, "next", &[]));
        assert_eq!(s, before);
        // No conditional jump before the final one.
        let mut s = compare(Vec::new());
        s.code[3] = 0x90;
        assert!(!invert_final_branch(&mut s, "next", &[]));
        // Too short.
        let mut s = Stencil { code: vec![0xe9, 0, 0, 0, 0], holes: vec![hole(1, "next")], ..compare(Vec::new()) };
        assert!(!invert_final_branch(&mut s, "next", &[]));
    }
}
