//! The baseline JIT refuses bytecode it cannot compile with an error, never a panic or code
//! that runs past its end: a truncated opcode, an unknown opcode, an instruction cut short,
//! a branch into the middle of an instruction. (The front end never writes such bytecode; the
//! JIT's passes read it with the same care as the interpreter's loader.)

use deegen_baseline_jit::JitError;
use lua51_vm::tiering::TierMode;
use lua51_vm::LuaState;

const PROGRAM: &str = "local s = 0 for i = 1, 10 do if i % 2 == 0 then s = s + i else s = s - 1 end end return s";

fn bytecode_error(e: JitError) -> String {
    match e {
        JitError::Bytecode { offset, problem } => format!("{offset}: {problem}"),
        other => panic!("not a bytecode error: {other}"),
    }
}

#[test]
fn malformed_bytecode_is_an_error() {
    let mut st = LuaState::new().expect("memory");
    st.tiering.mode = TierMode::Baseline;
    st.load(PROGRAM.as_bytes(), "=malformed", false).unwrap_or_else(|e| panic!("{}", String::from_utf8_lossy(&e)));
    let good: Vec<u8> = st.compiled_functions().iter().max_by_key(|p| p.code.len()).expect("compiled").code.to_vec();
    let jit = st.tiering.jit_mut().expect("the JIT ran");
    // The well-formed bytecode compiles (a copy, elsewhere in memory: nothing runs it).
    jit.compile(&good, 0, None).expect("the chunk's bytecode compiles");

    let e = bytecode_error(jit.compile(&good[..1], 0, None).expect_err("one byte"));
    assert!(e.contains("truncated opcode"), "{e}");
    let e = bytecode_error(jit.compile(&[0xff, 0xff, 0, 0, 0, 0], 0, None).expect_err("opcode 65535"));
    assert!(e.contains("unknown opcode"), "{e}");
    // Every prefix that ends inside an instruction.
    let mut cut_short = 0;
    for len in 1..good.len() {
        if let Err(e) = jit.compile(&good[..len], 0, None) {
            bytecode_error(e);
            cut_short += 1;
        }
    }
    assert!(cut_short > 0);
    // Every branch displacement off by one byte: a branch to the middle of an instruction (or
    // past the function) is refused, whichever instruction it is.
    let mut refused = 0;
    for at in 0..good.len() {
        let mut bad = good.clone();
        bad[at] = bad[at].wrapping_add(1);
        if let Err(e) = jit.compile(&bad, 0, None) {
            bytecode_error(e);
            refused += 1;
        }
    }
    assert!(refused > 0);
}
