//! Stencils from objects LLVM compiles here, with the generator's code model (static, small):
//! runtime constants as symbol addresses, continuations as tail calls, a double constant in
//! `.rodata`. Each test extracts, materializes at an address, and decodes the result. Runtime
//! constants are `dso_local`, as the generator declares them: otherwise LLVM reads their
//! addresses from the GOT, which no stencil can carry (the last test).

use deegen_stencil::{check_holes, disassemble, extract_stencils, ExtractError, HoleKind, HoleTarget, PatchError, Stencil};
use iced_x86::{Decoder, DecoderOptions, Instruction, Mnemonic};
use inkwell::context::Context;
use inkwell::targets::{CodeModel, FileType, InitializationConfig, RelocMode, Target, TargetMachine, TargetTriple};
use inkwell::OptimizationLevel;

const ADD_ONE: &str = r#"
@__deegen_rc_lhs = external dso_local global [0 x i8]
@__deegen_rc_out = external dso_local global [0 x i8]
declare ghccc void @__deegen_fallthrough(ptr, ptr)
declare ghccc void @__deegen_slow_path(ptr, ptr)

define ghccc void @add_one(ptr %base, ptr %pc) section ".text.add_one" {
entry:
  %off = ptrtoint ptr @__deegen_rc_lhs to i64
  %addr = getelementptr i8, ptr %base, i64 %off
  %v = load double, ptr %addr
  %isnum = fcmp ord double %v, 0.0
  br i1 %isnum, label %fast, label %slow
fast:
  %r = fadd double %v, 1.5
  %off2 = ptrtoint ptr @__deegen_rc_out to i64
  %out = getelementptr i8, ptr %base, i64 %off2
  store double %r, ptr %out
  musttail call ghccc void @__deegen_fallthrough(ptr %base, ptr %pc)
  ret void
slow:
  musttail call ghccc void @__deegen_slow_path(ptr %base, ptr %pc)
  ret void
}

@writable = dso_local global i64 0
define void @uses_writable_data() section ".text.uses_writable_data" {
  store i64 1, ptr @writable
  ret void
}
"#;

fn compile(ir: &str, reloc: RelocMode) -> Vec<u8> {
    let context = Context::create();
    let module = deegen_llvm_ir::parse_module(&context, ir.as_bytes(), "stencils").unwrap();
    Target::initialize_x86(&InitializationConfig::default());
    let triple = TargetTriple::create(deegen_llvm_ir::TARGET_TRIPLE);
    let tm: TargetMachine = Target::from_triple(&triple)
        .unwrap()
        .create_target_machine(&triple, deegen_llvm_ir::TARGET_CPU, "", OptimizationLevel::Aggressive, reloc, CodeModel::Small)
        .unwrap();
    module.set_triple(&triple);
    module.set_data_layout(&tm.get_target_data().get_data_layout());
    tm.write_to_memory_buffer(&module, FileType::Object).unwrap().as_slice().to_vec()
}

fn add_one() -> Stencil {
    let object = compile(ADD_ONE, RelocMode::Static);
    extract_stencils(&object, &["add_one"]).unwrap().remove(0)
}

fn decode_all(code: &[u8], ip: u64) -> Vec<Instruction> {
    let mut d = Decoder::with_ip(64, code, ip, DecoderOptions::NONE);
    let mut out = Vec::new();
    while d.can_decode() {
        out.push(d.decode());
    }
    out
}

#[test]
fn holes_are_the_relocations() {
    let s = add_one();
    let text = disassemble(&s);
    let symbol_holes: Vec<(HoleKind, &str)> = s
        .holes
        .iter()
        .filter_map(|h| match &h.target {
            HoleTarget::Symbol(n) => Some((h.kind, n.as_str())),
            HoleTarget::Data => None,
        })
        .collect();
    // Slot offsets are sign-extended displacements; continuations are rel32 jumps.
    assert!(symbol_holes.contains(&(HoleKind::Abs32Signed, "__deegen_rc_lhs")), "{text}");
    assert!(symbol_holes.contains(&(HoleKind::Abs32Signed, "__deegen_rc_out")), "{text}");
    assert!(symbol_holes.contains(&(HoleKind::PcRel32, "__deegen_fallthrough")), "{text}");
    assert!(symbol_holes.contains(&(HoleKind::PcRel32, "__deegen_slow_path")), "{text}");
    // 1.5 comes from the stencil's own data, RIP-relative.
    let data_holes: Vec<_> = s.holes.iter().filter(|h| h.target == HoleTarget::Data).collect();
    assert_eq!(data_holes.len(), 1, "{text}");
    assert_eq!(data_holes[0].kind, HoleKind::PcRel32);
    let at = (data_holes[0].addend + 4) as usize; // PC-relative: the addend is -4 from the constant
    assert_eq!(f64::from_le_bytes(s.data[at..at + 8].try_into().unwrap()), 1.5, "{text}");
    assert!(s.data_align >= 8);
    assert_eq!(
        s.symbols(),
        vec!["__deegen_rc_lhs", "__deegen_slow_path", "__deegen_rc_out", "__deegen_fallthrough"]
            .into_iter()
            .filter(|n| s.symbols().contains(n))
            .collect::<Vec<_>>()
    );
    assert!(text.contains("# hole: Abs32Signed __deegen_rc_lhs+0"), "{text}");
}

#[test]
fn materialized_code_decodes_to_the_patched_values() {
    let s = add_one();
    let code_address = 0x4000_1000u64;
    let data_address = 0x4000_8000u64;
    let values = [("__deegen_rc_lhs", 24u64), ("__deegen_rc_out", 40), ("__deegen_fallthrough", 0x4000_1200), ("__deegen_slow_path", 0x4100_0000)];
    let mut out = vec![0u8; s.code.len()];
    s.materialize(&mut out, code_address, data_address, &mut |n| values.iter().find(|(k, _)| *k == n).map(|(_, v)| *v)).unwrap();
    check_holes(&s, &out, code_address).unwrap();

    let instructions = decode_all(&out, code_address);
    let jumps: Vec<u64> =
        instructions.iter().filter(|i| i.mnemonic() == Mnemonic::Jmp || i.is_jcc_short_or_near()).map(|i| i.near_branch_target()).collect();
    assert!(jumps.contains(&0x4000_1200), "the fallthrough jump reaches the next bytecode: {jumps:x?}");
    assert!(jumps.contains(&0x4100_0000), "the slow path is reached: {jumps:x?}");
    let displacements: Vec<u64> = instructions
        .iter()
        .filter(|i| i.memory_base() != iced_x86::Register::RIP && i.memory_base() != iced_x86::Register::None)
        .map(|i| i.memory_displacement64())
        .collect();
    assert!(displacements.contains(&24) && displacements.contains(&40), "slots at their offsets: {displacements:?}");
    let rip: Vec<u64> = instructions.iter().filter(|i| i.is_ip_rel_memory_operand()).map(|i| i.ip_rel_memory_address()).collect();
    let constant_at = data_address + (s.holes.iter().find(|h| h.target == HoleTarget::Data).unwrap().addend + 4) as u64;
    assert_eq!(rip, vec![constant_at], "the constant is read from the data copy");
}

#[test]
fn values_that_do_not_fit_are_refused() {
    let s = add_one();
    let mut out = vec![0u8; s.code.len()];
    // A slot offset past i32 cannot be a displacement.
    let e = s.materialize(&mut out, 0x1000, 0x2000, &mut |n| Some(if n == "__deegen_rc_lhs" { 1 << 31 } else { 0x1000 })).unwrap_err();
    assert!(matches!(e, PatchError::OutOfRange { kind: HoleKind::Abs32Signed, .. }), "{e}");
    // A continuation more than 2 GiB away cannot be a rel32 jump.
    let e = s.materialize(&mut out, 0x1000, 0x2000, &mut |n| Some(if n == "__deegen_slow_path" { 0x1_0000_0000 } else { 8 })).unwrap_err();
    assert!(matches!(e, PatchError::OutOfRange { kind: HoleKind::PcRel32, .. }), "{e}");
    let e = s.materialize(&mut out, 0x1000, 0x2000, &mut |_| None).unwrap_err();
    assert!(matches!(e, PatchError::Unresolved { .. }), "{e}");
    let e = s.materialize(&mut out[1..], 0x1000, 0x2000, &mut |_| Some(8)).unwrap_err();
    assert!(matches!(e, PatchError::BufferSize { .. }), "{e}");
}

#[test]
fn a_misplaced_hole_is_caught_by_the_checker() {
    let mut s = add_one();
    let mut out = vec![0u8; s.code.len()];
    s.materialize(&mut out, 0x1000, 0x2000, &mut |_| Some(0x1800)).unwrap();
    s.holes[0].offset -= 1;
    assert!(check_holes(&s, &out, 0x1000).is_err());
}

#[test]
fn what_a_stencil_cannot_carry_is_an_error() {
    let object = compile(ADD_ONE, RelocMode::Static);
    let e = extract_stencils(&object, &["uses_writable_data"]).unwrap_err();
    assert!(matches!(&e, ExtractError::BadRelocation { problem, .. } if problem.contains(".data") || problem.contains(".bss")), "{e}");
    let e = extract_stencils(&object, &["missing"]).unwrap_err();
    assert_eq!(e, ExtractError::MissingFunction("missing".into()));
    // A symbol that may live in another module is reached through the GOT: not a stencil hole.
    const THROUGH_GOT: &str = r#"
@preemptible = external global i64
define i64 @load_it() section ".text.load_it" {
  %v = load i64, ptr @preemptible
  ret i64 %v
}
"#;
    let pic = compile(THROUGH_GOT, RelocMode::PIC);
    let e = extract_stencils(&pic, &["load_it"]).unwrap_err();
    assert!(matches!(&e, ExtractError::UnknownRelocation { name, .. } if name.contains("GOTPCREL")), "{e}");
    assert!(matches!(extract_stencils(b"not an object", &["x"]), Err(ExtractError::Object(_))));
}

#[test]
fn disassembly_names_every_hole() {
    insta::assert_snapshot!(disassemble(&add_one()));
}

/// A function with a profile whose cold block LLVM's machine function splitter moves out
/// (what `baseline-cold-split` makes of a stencil): two stencils, the hot part's branch into
/// the cold part a hole naming it, and a function the splitter found nothing in, which lands
/// in the shared `.text`, still extracted by its symbol.
#[test]
fn a_split_function_gives_a_cold_part() {
    const SPLIT: &str = r#"
declare ghccc void @__deegen_fallthrough(ptr, ptr)
declare ghccc void @__deegen_slow_path(ptr, ptr)

define ghccc void @get(ptr %base, ptr %pc) !prof !0 {
entry:
  %v = load i64, ptr %base
  %c = icmp ult i64 %v, 100
  br i1 %c, label %fast, label %cold, !prof !1
fast:
  store i64 1, ptr %base
  musttail call ghccc void @__deegen_fallthrough(ptr %base, ptr %pc)
  ret void
cold:
  %w = mul i64 %v, 3
  store i64 %w, ptr %pc
  musttail call ghccc void @__deegen_slow_path(ptr %base, ptr %pc)
  ret void
}

define ghccc void @nothing_cold(ptr %base, ptr %pc) !prof !0 {
  store i64 1, ptr %base
  musttail call ghccc void @__deegen_fallthrough(ptr %base, ptr %pc)
  ret void
}

!0 = !{!"function_entry_count", i64 1073741824}
!1 = !{!"branch_weights", i32 1048576, i32 0}
"#;
    let context = Context::create();
    let module = deegen_llvm_ir::parse_module(&context, SPLIT.as_bytes(), "split").unwrap();
    module.set_triple(&TargetTriple::create(deegen_llvm_ir::TARGET_TRIPLE));
    let object = deegen_llvm_ir::emit(&module, FileType::Object).unwrap();
    let stencils = extract_stencils(&object, &["get", "nothing_cold"]).unwrap();
    let names: Vec<&str> = stencils.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["get", "get.cold", "nothing_cold"]);
    assert_eq!(deegen_stencil::cold_part_of("get.cold"), Some("get"));
    let (hot, cold) = (&stencils[0], &stencils[1]);
    let to_cold: Vec<_> = hot.holes.iter().filter(|h| h.target == HoleTarget::Symbol("get.cold".into())).collect();
    assert_eq!(to_cold.len(), 1, "{}", disassemble(hot));
    assert_eq!((to_cold[0].kind, to_cold[0].addend), (HoleKind::PcRel32, -4), "the branch lands on the cold part's start");
    // The hot part ends with its jump to the next instruction; the slow path is in the cold part.
    let last = hot.holes.last().unwrap();
    assert_eq!((last.offset, &last.target), (hot.code.len() - 4, &HoleTarget::Symbol("__deegen_fallthrough".into())));
    assert!(cold.holes.iter().any(|h| h.target == HoleTarget::Symbol("__deegen_slow_path".into())), "{}", disassemble(cold));
    assert!(decode_all(&cold.code, 0).iter().any(|i| i.mnemonic() == Mnemonic::Imul || i.mnemonic() == Mnemonic::Lea), "{}", disassemble(cold));
    assert!(stencils[2].holes.iter().any(|h| h.target == HoleTarget::Symbol("__deegen_fallthrough".into())));
}
