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
    let field = |at: usize| branch_hole_at(&stencil.holes, at);
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

/// Moves the exit that ends `hot` after its last `jcc <next>` into its cold part, so that the
/// fast path falls through: `jcc <next>; <tail>` becomes `j!cc <tail in the cold part>; jmp
/// <next>`, whose final jump the JIT drops when the next instruction follows. Returns whether
/// it did.
///
/// LLVM's branch folding makes a jump to the next instruction conditional (a conditional tail
/// call) when the block after the branch is an exit into a slow path; that block was then the
/// branch's only successor, so the machine function splitter, reading block frequencies made
/// after the folding, took it for hot and left it in line: the write barrier's call after every
/// stub of `SetField`, a `lea`, a `mov` and a `jmp` that a store into a white table jumped over.
///
/// The tail moves only when it is an exit into slow paths, nothing else reaches it, and it
/// cannot notice the move: every branch out of it goes through a hole to a symbol
/// `is_slow_path` accepts, the last one a `jmp`, every other branch in it stays inside it, it has no
/// RIP-relative operand that is not a hole, no hole naming either part of the stencil, and no
/// branch of the head (nor a jump back from the cold part, at one of the offsets `entries`)
/// lands in it. A tail that is a single `jmp` is [`invert_final_branch`]'s. `cold` is the
/// stencil's cold part, made when `None` (named `cold_name`).
pub fn sink_final_exit(
    hot: &mut Stencil,
    cold: &mut Option<Stencil>,
    cold_name: &str,
    next: &str,
    entries: &[usize],
    is_slow_path: &dyn Fn(&str) -> bool,
) -> bool {
    let is_next = |t: &HoleTarget| matches!(t, HoleTarget::Symbol(s) if s == next);
    let hole_at = |at: usize| branch_hole_at(&hot.holes, at);
    let hole_offsets: Vec<usize> = hot.holes.iter().map(|h| h.offset).collect();
    // Every instruction, and the last `jcc rel32` to the next instruction.
    let mut decoder = Decoder::with_ip(64, &hot.code, 0, DecoderOptions::NONE);
    let mut instructions = Vec::new();
    let mut last = None;
    while decoder.can_decode() {
        let at = decoder.position();
        let i = decoder.decode();
        if i.is_invalid() {
            return false;
        }
        let offsets = decoder.get_constant_offsets(&i);
        if hot.code[at] == 0x0f && hot.code[at + 1] & 0xf0 == 0x80 && hole_at(at + 2).is_some_and(|h| is_next(&hot.holes[h].target)) {
            last = Some((at, instructions.len() + 1));
        }
        instructions.push((at, i, offsets));
    }
    let Some((jcc, first_tail)) = last else { return false };
    let (start, len) = (jcc + JCC, hot.code.len());
    let tail = &instructions[first_tail..];
    if tail.len() < 2 {
        return false;
    }
    let &(end_at, end, _) = tail.last().expect("two instructions");
    if !(end.flow_control() == FlowControl::UnconditionalBranch && hot.code[end_at] == 0xe9 && hole_offsets.contains(&(end_at + 1))) {
        return false;
    }
    let slow_hole = |field: usize| hot.holes.iter().any(|h| h.offset == field && matches!(&h.target, HoleTarget::Symbol(s) if is_slow_path(s)));
    for &(at, i, offsets) in tail {
        if let Some(field) = branch_field(&hot.code, at, &i) {
            let inside = !hole_offsets.contains(&field) && (start as u64..len as u64).contains(&i.near_branch_target());
            if !inside && !slow_hole(field) {
                return false;
            }
        }
        if i.is_ip_rel_memory_operand() && !(offsets.has_displacement() && hole_offsets.contains(&(at + offsets.displacement_offset()))) {
            return false;
        }
    }
    let names_a_part = |t: &HoleTarget| matches!(t, HoleTarget::Symbol(s) if s == &hot.name || s == cold_name);
    if hot.holes.iter().any(|h| h.offset >= start && names_a_part(&h.target)) {
        return false;
    }
    let head_targets = internal_targets(&hot.code[..start], &hole_offsets);
    if entries.iter().any(|&e| e >= start) || head_targets.iter().any(|&t| t >= start as u64) {
        return false;
    }
    // The tail is appended to the cold part, whose code must not run on into it.
    if cold.as_ref().is_some_and(|c| !ends_with_transfer(&c.code)) {
        return false;
    }
    let cold =
        cold.get_or_insert_with(|| Stencil { name: cold_name.to_owned(), code: Vec::new(), data: Vec::new(), data_align: 1, holes: Vec::new() });
    let at_in_cold = cold.code.len();
    cold.code.extend_from_slice(&hot.code[start..]);
    let (moved, kept): (Vec<_>, Vec<_>) = std::mem::take(&mut hot.holes).into_iter().partition(|h| h.offset >= start);
    cold.holes.extend(moved.into_iter().map(|h| crate::Hole { offset: h.offset - start + at_in_cold, ..h }));
    hot.holes = kept;
    hot.code.truncate(start);
    hot.code[jcc + 1] ^= 1;
    let to_tail = hot.holes.iter().position(|h| h.offset == jcc + 2).expect("found above");
    hot.holes[to_tail].target = HoleTarget::Symbol(cold_name.to_owned());
    hot.holes[to_tail].addend = at_in_cold as i64 - 4;
    hot.code.extend_from_slice(&[0xe9, 0, 0, 0, 0]);
    hot.holes.push(crate::Hole { offset: start + 1, kind: HoleKind::PcRel32, target: HoleTarget::Symbol(next.to_owned()), addend: -4 });
    true
}

/// Whether `code` is empty or its last instruction never falls through.
fn ends_with_transfer(code: &[u8]) -> bool {
    let mut decoder = Decoder::with_ip(64, code, 0, DecoderOptions::NONE);
    let mut last = None;
    while decoder.can_decode() {
        last = Some(decoder.decode());
    }
    last.is_none_or(|i| {
        !i.is_invalid()
            && matches!(
                i.flow_control(),
                FlowControl::UnconditionalBranch | FlowControl::IndirectBranch | FlowControl::Return | FlowControl::Interrupt
            )
    })
}

/// Rewrites every `jcc <L>; jmp <X>; L:` of `stencil` (a short `jcc` over a `jmp rel32` whose
/// displacement is a hole) into `j!cc <X>; L:`, in the same seven bytes. Returns how many.
///
/// LLVM lays a `for` loop step out as `ucomisd; jae <continue>; jmp <next>; continue: ...;
/// jmp <loop head>`: the block that leaves the loop first, the body's path jumping over it. In
/// JIT code every iteration then takes two jumps, the `jae` and the back edge. Inverted, the
/// loop's path falls through the `jcc` and takes only the back edge, as a compiler lays a loop
/// out. The same shape appears wherever a stencil's rare exit is one jump.
///
/// Left alone where a branch inside the stencil, or from outside it at one of the offsets
/// `entries` (its cold part's jumps back), lands on the `jmp`: after the rewrite that offset
/// is inside the `j!cc`.
pub fn invert_branches_over_jumps(stencil: &mut Stencil, entries: &[usize]) -> usize {
    let hole_offsets: Vec<usize> = stencil.holes.iter().map(|h| h.offset).collect();
    let targets = internal_targets(&stencil.code, &hole_offsets);
    let mut sites = Vec::new();
    let mut decoder = Decoder::with_ip(64, &stencil.code, 0, DecoderOptions::NONE);
    while decoder.can_decode() {
        let at = decoder.position();
        let i = decoder.decode();
        if i.is_invalid() {
            return 0;
        }
        // `7x rel8` whose target is the end of a `jmp rel32` right after it.
        let code = &stencil.code;
        if i.len() != 2 || code[at] & 0xf0 != 0x70 || i.near_branch_target() != (at + 2 + JMP) as u64 {
            continue;
        }
        if code.get(at + 2) != Some(&0xe9) {
            continue;
        }
        let jmp_field = at + 3;
        if branch_hole_at(&stencil.holes, jmp_field).is_none() {
            continue;
        }
        if entries.contains(&(at + 2)) || targets.contains(&((at + 2) as u64)) {
            continue;
        }
        sites.push(at);
    }
    for &at in &sites {
        let cc = stencil.code[at] & 0x0f;
        // `2e 0f 8y rel32` (y = the inverted condition): the `jcc rel32`, six bytes, with a
        // segment prefix (ignored in 64-bit mode) as the seventh, so that its field is where
        // the `jmp`'s was (the hole stays) and `L` where it was, with no `nop` to run.
        stencil.code[at..at + 3].copy_from_slice(&[0x2e, 0x0f, 0x80 | (cc ^ 1)]);
    }
    sites.len()
}

/// The index of the hole that is the `rel32` displacement of a branch at `at` (a `PcRel32` with
/// the addend -4 a branch's field has), if there is one.
fn branch_hole_at(holes: &[crate::Hole], at: usize) -> Option<usize> {
    holes.iter().position(|h| h.offset == at && h.kind == HoleKind::PcRel32 && h.addend == -4)
}

/// The offset of a direct branch's or call's displacement (its last field: rel8 or rel32).
fn branch_field(code: &[u8], at: usize, i: &iced_x86::Instruction) -> Option<usize> {
    if !(i.is_jmp_short_or_near() || i.is_jcc_short_or_near() || i.is_call_near()) {
        return None;
    }
    let end = at + i.len();
    Some(if i.len() >= 5 && matches!(code[at], 0xe8 | 0xe9 | 0x0f) { end - 4 } else { end - 1 })
}

/// The targets of `code`'s direct branches that stay inside the stencil (displacement fields
/// that are not holes, whose bytes are zero until patched).
fn internal_targets(code: &[u8], hole_offsets: &[usize]) -> Vec<u64> {
    let mut decoder = Decoder::with_ip(64, code, 0, DecoderOptions::NONE);
    let mut targets = Vec::new();
    while decoder.can_decode() {
        let at = decoder.position();
        let i = decoder.decode();
        if let Some(field) = branch_field(code, at, &i) {
            if !hole_offsets.contains(&field) {
                targets.push(i.near_branch_target());
            }
        }
    }
    targets
}

/// Whether a branch of `code` whose target is inside the code itself (its displacement field is
/// not a hole, whose bytes are zero until patched) goes to `offset`.
fn lands_on(code: &[u8], hole_offsets: &[usize], offset: usize) -> bool {
    internal_targets(code, hole_offsets).contains(&(offset as u64))
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

    /// `ucomisd %xmm0,%xmm1; jae +5; jmp <next>; lea 0x10(%rbp),%rax; jmp <branch>`: a `for`
    /// loop step as LLVM lays it out, after a prefix of `prefix` bytes.
    fn loop_step(prefix: Vec<u8>) -> Stencil {
        let p = prefix.len();
        let mut code = prefix;
        code.extend_from_slice(&[0x66, 0x0f, 0x2e, 0xc8]);
        code.extend_from_slice(&[0x73, 0x05]);
        code.extend_from_slice(&[0xe9, 0, 0, 0, 0]);
        code.extend_from_slice(&[0x48, 0x8d, 0x45, 0x10]);
        code.extend_from_slice(&[0xe9, 0, 0, 0, 0]);
        Stencil { name: "ForLoop".into(), code, data: Vec::new(), data_align: 1, holes: vec![hole(p + 7, "next"), hole(p + 16, "branch")] }
    }

    #[test]
    fn a_short_branch_over_a_jump_is_inverted() {
        let mut s = loop_step(Vec::new());
        assert_eq!(invert_branches_over_jumps(&mut s, &[]), 1);
        // ucomisd; jb <next> (with a segment prefix); lea; jmp <branch>
        assert_eq!(&s.code[4..11], &[0x2e, 0x0f, 0x82, 0, 0, 0, 0]);
        assert_eq!(s.holes, vec![hole(7, "next"), hole(16, "branch")], "the holes stay");
        assert_eq!(s.code.len(), 20, "the same length: nothing after it moves");
        // The decoded code says the same: the `jb`'s displacement is the hole.
        let mut d = Decoder::with_ip(64, &s.code, 0, DecoderOptions::NONE);
        let decoded: Vec<(String, usize)> = std::iter::from_fn(|| {
            d.can_decode().then(|| {
                let i = d.decode();
                (format!("{:?}", i.mnemonic()), i.next_ip() as usize)
            })
        })
        .collect();
        let names: Vec<&str> = decoded.iter().map(|(m, _)| m.as_str()).collect();
        assert_eq!(names, ["Ucomisd", "Jb", "Lea", "Jmp"]);
        assert_eq!(decoded[1].1, 11, "the jb ends where the hole's four bytes end");
        // Once is enough.
        assert_eq!(invert_branches_over_jumps(&mut s, &[]), 0);
    }

    #[test]
    fn a_jump_something_else_reaches_stays() {
        // `je +6` over the compare and the `jae`, onto the `jmp`.
        let mut s = loop_step(vec![0x74, 0x06]);
        let before = s.clone();
        assert_eq!(invert_branches_over_jumps(&mut s, &[]), 0);
        assert_eq!(s, before);
        // A jump back from the cold part onto the `jmp` keeps it too; onto the `jae`, not.
        let mut s = loop_step(Vec::new());
        assert_eq!(invert_branches_over_jumps(&mut s, &[6]), 0);
        let mut s = loop_step(Vec::new());
        assert_eq!(invert_branches_over_jumps(&mut s, &[4]), 1);
        // A `jae` that does not land right after the `jmp`, or a `jmp` without a hole.
        let mut s = loop_step(Vec::new());
        s.code[5] = 0x04;
        assert_eq!(invert_branches_over_jumps(&mut s, &[]), 0);
        let mut s = loop_step(Vec::new());
        s.holes.remove(0);
        assert_eq!(invert_branches_over_jumps(&mut s, &[]), 0);
    }

    fn slow(symbol: &str) -> bool {
        symbol.starts_with("slow")
    }

    /// `cmp %rsi,%rdi; jne <next>; lea spd(%rip),%r12; mov %rax,%rsi; jmp <slow>`, after a
    /// prefix of `prefix` bytes.
    fn exit_after_next(prefix: Vec<u8>) -> Stencil {
        let p = prefix.len();
        let mut code = prefix;
        code.extend_from_slice(&[0x48, 0x39, 0xf7]);
        code.extend_from_slice(&[0x0f, 0x85, 0, 0, 0, 0]);
        code.extend_from_slice(&[0x4c, 0x8d, 0x25, 0, 0, 0, 0]);
        code.extend_from_slice(&[0x48, 0x89, 0xc6]);
        code.extend_from_slice(&[0xe9, 0, 0, 0, 0]);
        Stencil {
            name: "SetField".into(),
            code,
            data: Vec::new(),
            data_align: 1,
            holes: vec![hole(p + 5, "next"), hole(p + 12, "spd"), hole(p + 20, "slow")],
        }
    }

    #[test]
    fn the_exit_after_a_conditional_jump_to_next_moves_to_the_cold_part() {
        let mut s = exit_after_next(Vec::new());
        let mut cold = Some(Stencil {
            name: "SetField.cold".into(),
            code: vec![0xe9, 0, 0, 0, 0],
            data: Vec::new(),
            data_align: 1,
            holes: vec![hole(1, "other")],
        });
        assert!(sink_final_exit(&mut s, &mut cold, "SetField.cold", "next", &[], &slow));
        // cmp; je <cold + 5>; jmp <next>
        assert_eq!(s.code, vec![0x48, 0x39, 0xf7, 0x0f, 0x84, 0, 0, 0, 0, 0xe9, 0, 0, 0, 0]);
        assert_eq!(
            s.holes,
            vec![Hole { offset: 5, kind: HoleKind::PcRel32, target: HoleTarget::Symbol("SetField.cold".into()), addend: 1 }, hole(10, "next"),]
        );
        let cold = cold.expect("kept");
        assert_eq!(&cold.code[5..], &[0x4c, 0x8d, 0x25, 0, 0, 0, 0, 0x48, 0x89, 0xc6, 0xe9, 0, 0, 0, 0]);
        assert_eq!(cold.holes, vec![hole(1, "other"), hole(8, "spd"), hole(16, "slow")]);
        // Done once: the stencil now ends with its jump to the next instruction.
        assert!(!sink_final_exit(&mut s, &mut Some(cold), "SetField.cold", "next", &[], &slow));
        // Without a cold part, one is made.
        let mut s = exit_after_next(Vec::new());
        let mut cold = None;
        assert!(sink_final_exit(&mut s, &mut cold, "SetField.cold", "next", &[], &slow));
        assert_eq!(cold.map(|c| (c.name, c.code.len(), c.holes.len())), Some(("SetField.cold".into(), 15, 2)));
        assert_eq!(s.holes[0].addend, -4);
    }

    #[test]
    fn an_exit_something_else_reaches_stays() {
        // A branch of the head into the tail (`jmp +9` over the compare and the jcc).
        let mut s = exit_after_next(vec![0xeb, 0x09]);
        let before = s.clone();
        assert!(!sink_final_exit(&mut s, &mut None, "SetField.cold", "next", &[], &slow));
        assert_eq!(s, before);
        // A branch of the head elsewhere does not keep it.
        let mut s = exit_after_next(vec![0xeb, 0x00]);
        assert!(sink_final_exit(&mut s, &mut None, "SetField.cold", "next", &[], &slow));
        // A jump back from the cold part into the tail does.
        let mut s = exit_after_next(Vec::new());
        assert!(!sink_final_exit(&mut s, &mut None, "SetField.cold", "next", &[12], &slow));
        // A tail whose branch leaves it without a hole: `jne -11` back to the compare, first
        // in the tail.
        let mut s = exit_after_next(Vec::new());
        s.code.splice(9..9, [0x75, (256 - 11) as u8]);
        s.holes.iter_mut().skip(1).for_each(|h| h.offset += 2);
        assert!(!sink_final_exit(&mut s, &mut None, "SetField.cold", "next", &[], &slow));
        // The same branch inside the tail (`jne +0`) moves with it.
        let mut s = exit_after_next(Vec::new());
        s.code.splice(9..9, [0x75, 0x00]);
        s.holes.iter_mut().skip(1).for_each(|h| h.offset += 2);
        assert!(sink_final_exit(&mut s, &mut None, "SetField.cold", "next", &[], &slow));
        // A RIP-relative operand that is not a hole.
        let mut s = exit_after_next(Vec::new());
        s.holes.retain(|h| h.target != HoleTarget::Symbol("spd".into()));
        assert!(!sink_final_exit(&mut s, &mut None, "SetField.cold", "next", &[], &slow));
        // A tail that also leaves for the branch target (a hot path) stays.
        let mut s = exit_after_next(Vec::new());
        s.holes[2].target = HoleTarget::Symbol("branch".into());
        assert!(!sink_final_exit(&mut s, &mut None, "SetField.cold", "next", &[], &slow));
        // A cold part that does not end with a jump (it would run on into the tail).
        let mut s = exit_after_next(Vec::new());
        let mut cold = Some(Stencil { name: "SetField.cold".into(), code: vec![0x90], data: Vec::new(), data_align: 1, holes: Vec::new() });
        assert!(!sink_final_exit(&mut s, &mut cold, "SetField.cold", "next", &[], &slow));
        // A tail that is one jump is the inversion's.
        let mut s = compare(Vec::new());
        assert!(!sink_final_exit(&mut s, &mut None, "JumpIfLt.cold", "next", &[], &slow));
    }
}
