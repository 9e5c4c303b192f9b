//! Snapshots of the IR after every pass of the baseline JIT pipeline, on the module the
//! interpreter pipeline's snapshots use (`tests/fixtures/add_and_branch.ll`), then of the
//! stencils extracted from the object file, holes named. Review changes with `cargo insta review`.

use deegen_llvm_ir::{emit, load_module, LlvmModule};
use deegen_pass::{AnalysisManager, IrUnit, PipelineText};
use deegen_stencil::{extract_stencils, HoleKind, HoleTarget};
use inkwell::context::Context;
use inkwell::targets::FileType;

fn fixture() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/add_and_branch.ll")
}

#[test]
fn every_pass_of_the_baseline_pipeline() {
    let context = Context::create();
    let mut unit = LlvmModule::new(load_module(&context, &fixture()).unwrap());
    let registry = deegen_passes::llvm_registry();
    let pipeline = PipelineText::parse(deegen_passes::BASELINE_PIPELINE).unwrap();
    for (i, element) in pipeline.elements.iter().enumerate() {
        let mut pm = registry.parse_pipeline(&element.to_string()).unwrap();
        pm.run(&mut unit, &mut AnalysisManager::new()).unwrap();
        unit.verify().unwrap();
        insta::assert_snapshot!(format!("{:02}-{}", i + 1, element.name), unit.print());
    }
    let object = emit(&unit.module, FileType::Object).unwrap();
    let names = ["__deegen_jit_op_Add_SS", "__deegen_jit_op_JumpIfLt_SS"];
    let stencils = extract_stencils(&object, &names).unwrap();
    for s in &stencils {
        insta::assert_snapshot!(format!("stencil-{}", s.name), deegen_stencil::disassemble(s));
    }
    // The operands are holes the JIT fills, 32 bits wide as the ranges allow; the next
    // instruction and the branch target are jumps to patch.
    let add = &stencils[0];
    let symbols = add.symbols();
    for expected in ["__deegen_rc_op_lhs", "__deegen_rc_op_rhs", "__deegen_rc_output", "__deegen_jit_next"] {
        assert!(symbols.contains(&expected), "{expected} is not a hole of {symbols:?}");
    }
    for h in &add.holes {
        if let HoleTarget::Symbol(s) = &h.target {
            if s.starts_with("__deegen_rc_op_") || s == "__deegen_rc_output" {
                assert_ne!(h.kind, HoleKind::Abs64, "{s} fits 32 bits");
            }
        }
    }
    // Each stencil's jump into its AOT slow path is in its cold part (`baseline-cold-split`),
    // after the stencil it belongs to.
    let jump = stencils.iter().find(|s| s.name == "__deegen_jit_op_JumpIfLt_SS").unwrap();
    assert!(jump.symbols().contains(&"__deegen_jit_branch"));
    for name in names {
        let cold = format!("{name}.cold");
        let at = stencils.iter().position(|s| s.name == name).unwrap();
        assert_eq!(stencils[at + 1].name, cold, "{name}'s cold part follows it");
        assert!(stencils[at].symbols().contains(&cold.as_str()), "{name} branches into its cold part");
        assert!(stencils[at + 1].symbols().iter().any(|s| s.starts_with(&format!("{name}__slow"))), "{cold} leaves for the slow path");
    }
}
