//! Snapshots of the IR after every pass of the interpreter pipeline, on a small module with an
//! arithmetic bytecode and a conditional branch (`tests/fixtures/add_and_branch.ll`), and of the
//! final machine code of both handlers. Review changes with `cargo insta review`.

use deegen_llvm_ir::{emit, load_module, LlvmModule};
use deegen_pass::{AnalysisManager, IrUnit, PipelineText};
use inkwell::context::Context;
use inkwell::targets::FileType;

fn fixture() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/add_and_branch.ll")
}

/// The assembly of one function, without directives that carry no meaning for a reader.
fn function_asm(asm: &str, name: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for line in asm.lines() {
        if line.starts_with(&format!("{name}:")) {
            inside = true;
        }
        if inside {
            if line.starts_with(".Lfunc_end") {
                break;
            }
            let t = line.trim_start();
            if t.starts_with(".cfi") || t.starts_with(".p2align") || t.starts_with("# %bb") {
                continue;
            }
            out.push_str(line);
            out.push('\n');
        }
    }
    assert!(!out.is_empty(), "{name} not found in the assembly");
    out
}

#[test]
fn every_pass_of_the_interpreter_pipeline() {
    let context = Context::create();
    let mut unit = LlvmModule::new(load_module(&context, &fixture()).unwrap());
    insta::assert_snapshot!("00-input", unit.print());
    let registry = deegen_passes::llvm_registry();
    let pipeline = PipelineText::parse(deegen_passes::INTERPRETER_PIPELINE).unwrap();
    for (i, element) in pipeline.elements.iter().enumerate() {
        let mut pm = registry.parse_pipeline(&element.to_string()).unwrap();
        pm.run(&mut unit, &mut AnalysisManager::new()).unwrap();
        unit.verify().unwrap();
        insta::assert_snapshot!(format!("{:02}-{}", i + 1, element.name), unit.print());
    }
    let asm = String::from_utf8(emit(&unit.module, FileType::Assembly).unwrap()).unwrap();
    insta::assert_snapshot!("asm-add", function_asm(&asm, "__deegen_interp_op_Add_SS"));
    insta::assert_snapshot!("asm-jump-if-lt", function_asm(&asm, "__deegen_interp_op_JumpIfLt_SS"));
}

#[test]
fn passes_reject_modules_in_the_wrong_phase() {
    let context = Context::create();
    let registry = deegen_passes::llvm_registry();
    let module = load_module(&context, &fixture()).unwrap();
    let mut unit = LlvmModule::new(module);
    // The manager refuses the order before anything runs, naming the missing pass.
    for (pipeline, expected) in [
        ("inline-semantics", "pass 'inline-semantics' runs on llvm IR in phase 'handlers', but at this point of the pipeline the IR is in phase 'semantics'; run 'interp-create-handlers' before it"),
        ("interp-create-handlers,interp-finalize", "pass 'interp-finalize' runs on llvm IR in phase 'lowered', but at this point of the pipeline the IR is in phase 'handlers'; run 'lower-interp-api' before it"),
        ("interp-create-handlers,interp-create-handlers", "pass 'interp-create-handlers' runs on llvm IR in phase 'semantics', but at this point of the pipeline the IR is in phase 'handlers'; it must run before 'interp-create-handlers'"),
    ] {
        let mut pm = registry.parse_pipeline(pipeline).unwrap();
        let e = pm.run(&mut unit, &mut AnalysisManager::new()).unwrap_err();
        assert_eq!(e.to_string(), expected);
    }
    assert!(unit.module.get_function("__deegen_interp_enter").is_none(), "a refused pipeline runs nothing");
}

#[test]
fn passes_check_their_input_even_when_the_phase_is_wrong() {
    // A dump whose !deegen.phase was edited away: the passes' own checks still catch it.
    let context = Context::create();
    let registry = deegen_passes::llvm_registry();
    let mut unit = LlvmModule::new(load_module(&context, &fixture()).unwrap());
    registry.parse_pipeline("interp-create-handlers").unwrap().run(&mut unit, &mut AnalysisManager::new()).unwrap();
    let text: String = unit.print().lines().filter(|l| !l.starts_with("!deegen.phase")).map(|l| format!("{l}\n")).collect();
    let mut unit = LlvmModule::new(deegen_llvm_ir::parse_module(&context, text.as_bytes(), "edited").unwrap());
    let e = registry.parse_pipeline("interp-create-handlers").unwrap().run(&mut unit, &mut AnalysisManager::new()).unwrap_err();
    assert!(e.to_string().contains("already has interpreter handlers"), "{e}");
    // And a phase that is not one is an error, not a default.
    let bad = format!("{text}!deegen.phase = !{{!99}}\n!99 = !{{!\"optimized\"}}\n");
    let mut unit = LlvmModule::new(deegen_llvm_ir::parse_module(&context, bad.as_bytes(), "bad").unwrap());
    let e = registry.parse_pipeline("inline-semantics").unwrap().run(&mut unit, &mut AnalysisManager::new()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot read the input's phase: !deegen.phase names 'optimized', which is not a phase (known: semantics, handlers, lowered, finalized)"
    );
}

#[test]
fn checkers_left_uninlined_are_refused() {
    // Without type-check-strength-reduction, inline-semantics leaves the (noinline) checker a
    // call, and interp-finalize says which pass is missing instead of emitting a call.
    let context = Context::create();
    let text =
        std::fs::read_to_string(fixture()).unwrap().replace("attributes #2 = { inlinehint nounwind }", "attributes #2 = { noinline nounwind }");
    let module = deegen_llvm_ir::parse_module(&context, text.as_bytes(), "noinline_checker").unwrap();
    let mut unit = LlvmModule::new(module);
    let registry = deegen_passes::llvm_registry();
    let mut pm = registry.parse_pipeline("interp-create-handlers,inline-semantics,lower-interp-api,interp-finalize").unwrap();
    let e = pm.run(&mut unit, &mut AnalysisManager::new()).unwrap_err().to_string();
    assert!(e.contains("type checker is_double is not inlined (run type-check-strength-reduction after inline-semantics)"), "{e}");
    let mut unit = LlvmModule::new(deegen_llvm_ir::parse_module(&context, text.as_bytes(), "noinline_checker").unwrap());
    let mut pm = registry.parse_pipeline(deegen_passes::INTERPRETER_PIPELINE).unwrap();
    pm.run(&mut unit, &mut AnalysisManager::new()).unwrap();
    assert!(!unit.print().contains("call zeroext i1 @is_double"));
}

#[test]
fn api_misuse_is_reported_not_miscompiled() {
    // Add passes `jump_if_lt` as a return continuation: the continuation is discovered and gets
    // a handler for Add's layout, where its `take_branch()` has no branch field to read.
    let context = Context::create();
    let text = std::fs::read_to_string(fixture()).unwrap().replace(
        "call void @__deegen_api_return(i64 %r)\n  unreachable\n\nslow:",
        "call void @__deegen_api_make_call(ptr null, i64 0, ptr @jump_if_lt)\n  unreachable\n\nslow:",
    ) + "declare void @__deegen_api_make_call(ptr, i64, ptr) #0\n";
    let module = deegen_llvm_ir::parse_module(&context, text.as_bytes(), "edited").unwrap();
    let mut unit = LlvmModule::new(module);
    let registry = deegen_passes::llvm_registry();
    let mut pm = registry.parse_pipeline("interp-create-handlers,inline-semantics").unwrap();
    pm.run(&mut unit, &mut AnalysisManager::new()).unwrap();
    assert!(unit.module.get_function("__deegen_interp_op_Add_SS__ret__jump_if_lt").is_some());
    let e = registry.parse_pipeline("lower-interp-api").unwrap().run(&mut unit, &mut AnalysisManager::new()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "pass 'lower-interp-api': __deegen_interp_op_Add_SS__ret__jump_if_lt__body: take_branch() in a bytecode that does not branch"
    );
}

#[test]
fn a_continuation_chosen_at_run_time_is_rejected() {
    let context = Context::create();
    let text = std::fs::read_to_string(fixture()).unwrap().replace(
        "call void @__deegen_api_return(i64 %r)\n  unreachable\n\nslow:",
        "%seven = icmp eq i64 %lhs, 7\n  %k = select i1 %seven, ptr @add, ptr @jump_if_lt\n  call void @__deegen_api_make_call(ptr null, i64 0, ptr %k)\n  unreachable\n\nslow:",
    ) + "declare void @__deegen_api_make_call(ptr, i64, ptr) #0\n";
    let module = deegen_llvm_ir::parse_module(&context, text.as_bytes(), "edited").unwrap();
    let mut unit = LlvmModule::new(module);
    let mut pm = deegen_passes::llvm_registry().parse_pipeline(deegen_passes::INTERPRETER_PIPELINE).unwrap();
    let e = pm.run(&mut unit, &mut AnalysisManager::new()).unwrap_err().to_string();
    assert!(e.contains("must be a function named at the call"), "{e}");
}

#[test]
fn hotness_counting_with_a_tier_up_hook() {
    // With the optional hook defined, taken backward branches count down the code block's
    // hotness and tier up out of line; the machine code shows the accounting in the handler.
    let context = Context::create();
    let text = std::fs::read_to_string(fixture()).unwrap()
        + "declare ptr @rt_tier_up(ptr, ptr, ptr)\n\
           define ptr @deegen_hook_tier_up(ptr %ctx, ptr %cb, ptr %pc) #2 {\nstart:\n  %code = call ptr @rt_tier_up(ptr %ctx, ptr %cb, ptr %pc)\n  ret ptr %code\n}\n";
    let module = deegen_llvm_ir::parse_module(&context, text.as_bytes(), "with_hotness").unwrap();
    let mut unit = LlvmModule::new(module);
    let mut pm = deegen_passes::llvm_registry().parse_pipeline(deegen_passes::INTERPRETER_PIPELINE).unwrap();
    pm.run(&mut unit, &mut AnalysisManager::new()).unwrap();
    let asm = String::from_utf8(emit(&unit.module, FileType::Assembly).unwrap()).unwrap();
    insta::assert_snapshot!("asm-jump-if-lt-with-hotness", function_asm(&asm, "__deegen_interp_op_JumpIfLt_SS"));
}
