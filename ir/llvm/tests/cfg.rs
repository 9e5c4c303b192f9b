//! `FunctionCfg` on a hand-written function: a diamond, a loop and an unreachable block.

use deegen_llvm_ir::raw::Value;
use deegen_llvm_ir::{parse_module, FunctionCfg};
use inkwell::context::Context;
use inkwell::values::AsValueRef;

const IR: &str = r#"
define void @f(i1 %c) {
entry:
  br i1 %c, label %left, label %right
left:
  br label %join
right:
  br label %join
join:
  br label %loop
loop:
  br i1 %c, label %loop, label %exit
exit:
  ret void
dead:
  br label %join
}
"#;

#[test]
fn predecessors_dominators_and_cycles() {
    let context = Context::create();
    let module = parse_module(&context, IR.as_bytes(), "cfg").unwrap();
    let f = module.get_function("f").unwrap();
    let cfg = FunctionCfg::of(Value(f.as_value_ref()));
    let b: Vec<_> = cfg.blocks().to_vec();
    let [entry, left, right, join, lp, exit, dead] = b[..] else { panic!("seven blocks") };
    assert_eq!(cfg.predecessors(join), vec![left, right, dead]);
    assert_eq!(cfg.successors(lp), vec![lp, exit]);
    assert_eq!(cfg.immediate_dominator(join), Some(entry), "neither arm of the diamond dominates the join");
    assert_eq!(cfg.immediate_dominator(exit), Some(lp));
    assert_eq!(cfg.immediate_dominator(entry), None);
    assert!(cfg.dominates(join, exit) && cfg.dominates(lp, lp) && !cfg.dominates(left, join));
    assert!(!cfg.dominates(entry, dead), "nothing dominates an unreachable block");
    assert_eq!(cfg.reverse_post_order().first(), Some(&entry));
    assert!(!cfg.reverse_post_order().contains(&dead));
    assert_eq!(b.iter().map(|x| cfg.on_cycle(*x)).collect::<Vec<_>>(), vec![false, false, false, false, true, false, false]);
}
