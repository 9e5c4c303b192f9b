//! The baseline JIT's checker (`BaselineJit::verify`, `ljr --jit-verify`) accepts what the JIT
//! emitted and rejects planted faults: a changed byte outside every hole, a jump hole aimed
//! one byte off, a SlowPathData field that names the wrong place. A checker only ever seen to
//! accept could be one that accepts everything.

use deegen_baseline_jit::{BaselineJit, CompiledCode, HoleValue};
use lua51_vm::object::function::Proto;
use lua51_vm::tiering::TierMode;
use lua51_vm::LuaState;

/// `len` bytes of emitted code at `address`.
fn read(address: u64, len: usize) -> Vec<u8> {
    // SAFETY: inside the code the JIT emitted (readable in its executable view).
    unsafe { std::slice::from_raw_parts(address as *const u8, len) }.to_vec()
}

/// A compiled function's bytecode, where it lives (which the checker reads as the JIT compiled
/// it), and its code.
fn code_of(p: &Proto) -> (&'static [u8], CompiledCode) {
    // SAFETY: the prototype, and so its boxed bytecode, lives as long as the state (every test
    // keeps its state to the end).
    (unsafe { std::slice::from_raw_parts(p.code.as_ptr(), p.code.len()) }, p.jit.clone().expect("compiled"))
}

/// The offsets of `address .. address + len` at which a changed byte (`^ 0x40`, restored
/// after) passes `BaselineJit::verify`.
fn missed_byte_changes(jit: &mut BaselineJit, live: &[u8], code: &CompiledCode, address: u64, len: usize) -> Vec<usize> {
    let bytes = read(address, len);
    let mut missed = Vec::new();
    for (k, &b) in bytes.iter().enumerate() {
        jit.patch(address + k as u64, &[b ^ 0x40]).unwrap();
        if jit.verify(live, code).is_ok() {
            missed.push(k);
        }
        jit.patch(address + k as u64, &[b]).unwrap();
    }
    missed
}

const PROGRAM: &str = "local t = setmetatable({}, {__index = function(_, k) return k end}) \
     local s = 0 for i = 1, 10 do if i % 2 == 0 then s = s + i else s = s - t[i] end end return s";

#[test]
fn the_checker_rejects_planted_faults() {
    let mut st = LuaState::new().expect("memory");
    st.tiering.mode = TierMode::Baseline;
    st.load(PROGRAM.as_bytes(), "=planted", false).unwrap_or_else(|e| panic!("{}", String::from_utf8_lossy(&e)));
    // The main chunk's prototype: its bytecode (which the checker reads where it lives, as
    // the JIT compiled it) and its code.
    let (live, code) = code_of(st.compiled_functions().iter().max_by_key(|p| p.code.len()).expect("the chunk was compiled"));
    let jit = st.tiering.jit_mut().expect("the JIT ran");
    jit.verify(live, &code).expect("the checker accepts what the JIT emitted");

    let mut plant = |address: u64, bytes: &[u8], what: &str| {
        let saved = read(address, bytes.len());
        jit.patch(address, bytes).unwrap();
        let verdict = jit.verify(live, &code);
        jit.patch(address, &saved).unwrap();
        let e = verdict.expect_err(what);
        eprintln!("{what}: {e}");
        jit.verify(live, &code).expect("restored");
    };

    // A byte of the first instruction's code (its stencil has no hole in its first byte).
    let first = code.instructions[0].address;
    let b = read(first, 1)[0];
    plant(first, &[b ^ 0x01], "a changed opcode byte");
    // Every rel32 jump to the next instruction, a branch target or a continuation must land
    // where the bytecode says: aim the last instruction's final jump one byte further.
    let records_end = code.slow_path_data + code.slow_path_data_size as u64;
    if code.slow_path_data_size > 0 {
        // The first SlowPathData field names something of its instruction; make it wrong.
        let field = read(code.slow_path_data, 8);
        let mut wrong = u64::from_le_bytes(field.try_into().unwrap());
        wrong ^= 0x40;
        plant(code.slow_path_data, &wrong.to_le_bytes(), "a wrong SlowPathData field");
        // The last record's last field too.
        let last = records_end - 8;
        let v = u64::from_le_bytes(read(last, 8).try_into().unwrap()) ^ 0x8;
        plant(last, &v.to_le_bytes(), "a wrong field in the last record");
    }
    assert!(code.slow_path_data_size > 0, "the program's arithmetic and indexing have AOT slow paths");
    // A return continuation restores the code-block register from a 64-bit hole (`t[i]`'s
    // metamethod returns into one): each copy of the code block's address must be it.
    let all = read(code.entry, code.code_size);
    let cb = code.code_block.to_le_bytes();
    let copies: Vec<usize> = (0..all.len().saturating_sub(7)).filter(|&k| all[k..k + 8] == cb).collect();
    assert!(!copies.is_empty(), "no continuation names the code block");
    for k in copies {
        plant(code.entry + k as u64, &(code.code_block ^ 0x10).to_le_bytes(), "a continuation's wrong code block");
    }
    // A jump: find an `e9 rel32` (jmp) inside some instruction whose displacement the checker
    // recomputes, by trying each and keeping those it notices.
    let mut caught = 0;
    for ins in &code.instructions {
        let bytes = read(ins.address, ins.size as usize);
        for k in 0..bytes.len().saturating_sub(4) {
            if bytes[k] == 0xe9 {
                let rel = i32::from_le_bytes(bytes[k + 1..k + 5].try_into().unwrap());
                let at = ins.address + k as u64 + 1;
                let saved = read(at, 4);
                jit.patch(at, &(rel.wrapping_add(1)).to_le_bytes()).unwrap();
                if jit.verify(live, &code).is_err() {
                    caught += 1;
                }
                jit.patch(at, &saved).unwrap();
            }
        }
    }
    assert!(caught > 0, "no jump displacement moved by one byte was caught");
    jit.verify(live, &code).expect("everything restored");
}

/// The stub checker (`BaselineJit::verify_ic_stub`, run on every stub under `--jit-verify`)
/// accepts the stubs a field access made and rejects planted faults: a changed key, a miss
/// aimed one byte off, and an IC entry that no longer reaches its chain's head.
#[test]
fn the_stub_checker_rejects_planted_faults() {
    let mut st = LuaState::new().expect("memory");
    st.tiering.mode = TierMode::Baseline;
    let f = st
        .load(b"local a, b = {x = 1}, {y = 2, x = 3} local s = 0 for i = 1, 4 do s = s + a.x + b.x end return s", "=stubs", false)
        .unwrap_or_else(|e| panic!("{}", String::from_utf8_lossy(&e)));
    st.call(f, &[]).unwrap_or_else(|e| panic!("error {:?}", e.value));
    let (live, code) = code_of(st.compiled_functions().iter().max_by_key(|p| p.code.len()).expect("the chunk was compiled"));
    let jit = st.tiering.jit_mut().expect("the JIT ran");
    let pc_base = live.as_ptr() as u64;
    let stubs: Vec<_> =
        code.instructions.iter().flat_map(|i| jit.ic_stubs(pc_base + u64::from(i.bytecode_offset)).copied().collect::<Vec<_>>()).collect();
    assert!(stubs.len() >= 2, "the two field accesses made stubs: {stubs:?}");
    for stub in &stubs {
        jit.verify_ic_stub(stub).expect("the checker accepts what the JIT made");
    }
    jit.verify(live, &code).expect("and the code with its chains");

    let stub = stubs[0];
    let bytes = read(stub.address, stub.code_size as usize);
    // The key is an immediate of the stub, at its stencil's key hole: change it.
    // (A field cache's key is a `u32`.)
    let key = (stub.key as u32).to_le_bytes();
    let hole = jit.tables().stencils[stub.stencil as usize].holes.iter().find(|h| h.value == HoleValue::IcKey).expect("a stub has a key hole");
    let at = u64::from(hole.offset);
    assert_eq!(read(stub.address + at, 4), key, "the key hole holds the key");
    let mut wrong = key;
    wrong[0] ^= 1;
    jit.patch(stub.address + at, &wrong).unwrap();
    let verdict = jit.verify_ic_stub(&stub);
    jit.patch(stub.address + at, &key).unwrap();
    eprintln!("a changed key: {}", verdict.expect_err("a changed key"));
    // Every jump displacement of the stub moved by one byte: each is a hole whose target the
    // checker recomputes (the next instruction, the next stub, the cold part).
    let mut caught = 0;
    for k in 0..bytes.len().saturating_sub(4) {
        let jump = bytes[k] == 0xe9 || (bytes[k] == 0x0f && (0x80..=0x8f).contains(&bytes[k + 1]));
        if !jump {
            continue;
        }
        let field = if bytes[k] == 0xe9 { k + 1 } else { k + 2 };
        if field + 4 > bytes.len() {
            continue;
        }
        let saved = bytes[field..field + 4].to_vec();
        let rel = i32::from_le_bytes(saved.clone().try_into().unwrap()).wrapping_add(1);
        jit.patch(stub.address + field as u64, &rel.to_le_bytes()).unwrap();
        if jit.verify_ic_stub(&stub).is_err() {
            caught += 1;
        }
        jit.patch(stub.address + field as u64, &saved).unwrap();
    }
    assert!(caught > 0, "no jump of the stub moved by one byte was caught");
    jit.verify_ic_stub(&stub).expect("restored");
    // The instruction whose chain holds this stub: its IC entry must reach the chain's head.
    let ins = code.instructions.iter().find(|i| jit.ic_stubs(pc_base + u64::from(i.bytecode_offset)).any(|s| s.address == stub.address)).unwrap();
    let saved = read(ins.address + 1, 4);
    let rel = i32::from_le_bytes(saved.clone().try_into().unwrap()).wrapping_add(1);
    jit.patch(ins.address + 1, &rel.to_le_bytes()).unwrap();
    let verdict = jit.verify(live, &code);
    jit.patch(ins.address + 1, &saved).unwrap();
    eprintln!("an IC entry off its chain: {}", verdict.expect_err("an IC entry off its chain"));
    jit.verify(live, &code).expect("everything restored");
}

/// Call sites' stubs: direct ones (keyed by the callee) at a site that calls two functions,
/// closure ones (keyed by the code block) at a site that calls closures of one function. The
/// checker accepts them and rejects planted faults: a changed key, a call target off by a byte.
#[test]
fn call_stubs_are_checked() {
    let mut st = LuaState::new().expect("memory");
    st.tiering.mode = TierMode::Baseline;
    let f = st
        .load(
            b"local function f(x) return x + 1 end local function g(x) return x * 2 end \
              local function direct(h, x) local r = h(x) return r end \
              local function closure(h, x) local r = h(x) return r end \
              local function make(k) return function(x) return x + k end end \
              local s = 0 for i = 1, 10 do s = s + direct(f, i) + direct(g, i) + closure(make(i), i) end return s",
            "=calls",
            false,
        )
        .unwrap_or_else(|e| panic!("{}", String::from_utf8_lossy(&e)));
    st.call(f, &[]).unwrap_or_else(|e| panic!("error {:?}", e.value));
    let functions: Vec<_> = st.compiled_functions().iter().map(|p| code_of(p)).collect();
    let jit = st.tiering.jit_mut().expect("the JIT ran");
    let mut stubs = Vec::new();
    for (live, code) in &functions {
        let pc_base = live.as_ptr() as u64;
        for i in &code.instructions {
            stubs.extend(jit.ic_stubs(pc_base + u64::from(i.bytecode_offset)).copied());
        }
    }
    let tables = jit.tables();
    let name = |s: &deegen_baseline_jit::IcStub| tables.stencils[s.stencil as usize].name;
    let direct: Vec<_> = stubs.iter().filter(|s| name(s).ends_with("__call_ic_direct")).copied().collect();
    let closure: Vec<_> = stubs.iter().filter(|s| name(s).ends_with("__call_ic_closure")).copied().collect();
    assert!(direct.len() >= 2, "the direct site made a stub per callee: {stubs:?}");
    assert!(!closure.is_empty(), "the closure site turned to closure mode: {stubs:?}");
    assert!(jit.stats.call_ic_closure_sites >= 1);
    for (live, code) in &functions {
        jit.verify(live, code).expect("the checker accepts the code and its chains");
    }
    for stub in direct.iter().chain(&closure) {
        jit.verify_ic_stub(stub).expect("the checker accepts what the JIT made");
        let holes = tables.stencils[stub.stencil as usize].holes;
        // The key: the callee (direct) or the code block (closure), a 64-bit immediate.
        let key_value = if name(stub).ends_with("__call_ic_direct") { HoleValue::IcKey } else { HoleValue::IcState };
        let key = holes.iter().find(|h| h.value == key_value && (h.offset as usize) < stub.code_size as usize).expect("a key hole");
        let at = stub.address + u64::from(key.offset);
        let saved = read(at, 8);
        let mut wrong = saved.clone();
        wrong[0] ^= 8;
        jit.patch(at, &wrong).unwrap();
        let verdict = jit.verify_ic_stub(stub);
        jit.patch(at, &saved).unwrap();
        eprintln!("a changed call key: {}", verdict.expect_err("a changed call key"));
        // The target: the callee's entry.
        let target = holes.iter().find(|h| h.value == HoleValue::CallTarget).expect("a call target hole");
        let at = stub.address + u64::from(target.offset);
        let saved = read(at, 4);
        let rel = i32::from_le_bytes(saved.clone().try_into().unwrap()).wrapping_add(1);
        jit.patch(at, &rel.to_le_bytes()).unwrap();
        let verdict = jit.verify_ic_stub(stub);
        jit.patch(at, &saved).unwrap();
        eprintln!("a call target off by one: {}", verdict.expect_err("a call target off by one"));
        jit.verify_ic_stub(stub).expect("restored");
    }
}

/// A cache the interpreter filled before its function was compiled gets its first stub in the
/// instruction's inline slab. The checkers accept it and its chain, also after a second key
/// made an outlined stub (the stub in line then misses to it), and reject planted faults in
/// it: a changed key, a miss aimed one byte off, a byte of the slab changed.
#[test]
fn a_stub_in_line_is_checked() {
    let mut st = LuaState::new().expect("memory");
    st.tiering.mode = TierMode::Auto;
    st.tiering.threshold = 40;
    let f = st
        .load(
            b"local function get(t) return t.x end \
              local a, b = {x = 1}, {y = 2, x = 3} local s = 0 \
              for i = 1, 60 do s = s + get(a) end \
              for i = 1, 60 do s = s + get(b) end return s",
            "=inline",
            false,
        )
        .unwrap_or_else(|e| panic!("{}", String::from_utf8_lossy(&e)));
    st.call(f, &[]).unwrap_or_else(|e| panic!("error {:?}", e.value));
    let (live, code) = code_of(st.compiled_functions().iter().find(|p| p.jit.is_some() && p.line_defined == 1).expect("get was compiled"));
    let jit = st.tiering.jit_mut().expect("the JIT ran");
    let pc_base = live.as_ptr() as u64;
    let stubs: Vec<_> =
        code.instructions.iter().flat_map(|i| jit.ic_stubs(pc_base + u64::from(i.bytecode_offset)).copied().collect::<Vec<_>>()).collect();
    let inline = *stubs.iter().find(|s| s.in_line).unwrap_or_else(|| panic!("the warm cache's stub is in line: {stubs:?}"));
    assert!(stubs.iter().any(|s| !s.in_line && s.pc == inline.pc), "the second key made an outlined stub: {stubs:?}");
    let ins = code.instructions.iter().find(|i| i.address == inline.address).expect("the stub is its instruction's code");
    assert_eq!(ins.size, inline.code_size, "the slab is the stub");
    jit.verify(live, &code).expect("the checker accepts the code with its stub in line");

    let stencil = &jit.tables().stencils[inline.stencil as usize];
    let key_at = u64::from(stencil.holes.iter().find(|h| h.value == HoleValue::IcKey).expect("a key hole").offset);
    let mut wrong = read(inline.address + key_at, 4);
    wrong[0] ^= 1;
    let saved = read(inline.address + key_at, 4);
    jit.patch(inline.address + key_at, &wrong).unwrap();
    let verdict = jit.verify(live, &code);
    jit.patch(inline.address + key_at, &saved).unwrap();
    eprintln!("a changed key in line: {}", verdict.expect_err("a changed key in line"));
    let miss = stencil.holes.iter().find(|h| h.value == HoleValue::IcNext).expect("a miss hole");
    let at = inline.address + u64::from(miss.offset);
    let saved = read(at, 4);
    let rel = i32::from_le_bytes(saved.clone().try_into().unwrap()).wrapping_add(1);
    jit.patch(at, &rel.to_le_bytes()).unwrap();
    let verdict = jit.verify(live, &code);
    jit.patch(at, &saved).unwrap();
    eprintln!("a miss off its chain: {}", verdict.expect_err("a miss off its chain"));
    let missed = missed_byte_changes(jit, live, &code, inline.address, inline.code_size as usize);
    assert!(missed.is_empty(), "every changed byte of the slab is caught, not those at {missed:?}");
    jit.verify(live, &code).expect("everything restored");
}

/// A function without variable arguments is entered at its own prologue (the entry stencil
/// with its parameter count and frame size burnt in): its code block's entry is the prologue,
/// which falls through to the first instruction, and the checker verifies it like an
/// instruction, every byte of it: a changed byte, a wrong parameter count or frame size, a
/// jump to its slow path or its cold part aimed elsewhere.
#[test]
fn the_prologue_is_checked() {
    let mut st = LuaState::new().expect("memory");
    st.tiering.mode = TierMode::Baseline;
    let f = st
        .load(b"local function add3(a, b, c) return (a or 0) + (b or 0) + (c or 0) end return add3(1) + add3(1, 2, 3, 4)", "=prologue", false)
        .unwrap_or_else(|e| panic!("{}", String::from_utf8_lossy(&e)));
    let results = st.call(f, &[]).unwrap_or_else(|e| panic!("error {:?}", e.value));
    assert_eq!(results.first().map(|v| v.as_f64()), Some(7.0), "fewer and more arguments than parameters");
    let (live, code) = code_of(st.compiled_functions().iter().find(|p| p.jit.is_some() && p.line_defined == 1).expect("add3 was compiled"));
    let prologue = code.prologue.expect("a function without variable arguments has a prologue");
    assert!(prologue.cold_size > 0, "filling missing parameters is the prologue's cold part");
    assert_eq!(prologue.address, code.start());
    assert_eq!(prologue.address + u64::from(prologue.size), code.instructions[0].address, "it falls through to the first instruction");
    // SAFETY: the code block of a live function.
    let entry = unsafe { (*(code.code_block as *const deegen_api::CodeBlock)).entry };
    assert_eq!(entry as u64, prologue.address, "calls enter at the prologue");
    let jit = st.tiering.jit_mut().expect("the JIT ran");
    jit.verify(live, &code).expect("the checker accepts the prologue");
    let stencil = &jit.tables().stencils[jit.tables().function_entry.expect("the tables have a prologue").main as usize];
    assert!(stencil.holes.iter().any(|h| h.value == HoleValue::NumParams) && stencil.holes.iter().any(|h| h.value == HoleValue::FrameSize));

    for (address, size) in [(prologue.address, prologue.size), (prologue.cold_address, prologue.cold_size)] {
        let missed = missed_byte_changes(jit, live, &code, address, size as usize);
        assert!(missed.is_empty(), "changed bytes of the prologue at {address:#x} the checker missed: {missed:?}");
    }
    jit.verify(live, &code).expect("everything restored");
}

/// A field site that sees more hidden classes than a chain takes goes megamorphic and gets its
/// own copy of its variant's generic code (a stub without a key), which its IC entry then jumps
/// to. The checkers accept it, and reject a changed byte of it and an entry that jumps to the
/// trampoline into the shared generic code instead.
#[test]
fn a_megamorphic_site_has_its_own_generic_code() {
    let mut st = LuaState::new().expect("memory");
    st.tiering.mode = TierMode::Baseline;
    let f = st
        .load(
            b"local ts = {{x = 1}, {a = 0, x = 2}, {b = 0, x = 3}, {c = 0, x = 4}, {d = 0, x = 5}, {e = 0, x = 6}, {f = 0, x = 7}} \
              local s = 0 for r = 1, 3 do for i = 1, #ts do s = s + ts[i].x end end return s",
            "=megamorphic",
            false,
        )
        .unwrap_or_else(|e| panic!("{}", String::from_utf8_lossy(&e)));
    let results = st.call(f, &[]).unwrap_or_else(|e| panic!("error {:?}", e.value));
    assert_eq!(results.first().filter(|v| v.is_double()).map(|v| v.as_f64()), Some(84.0));
    let (live, code) = code_of(st.compiled_functions().iter().max_by_key(|p| p.code.len()).expect("the chunk was compiled"));
    let jit = st.tiering.jit_mut().expect("the JIT ran");
    let pc_base = live.as_ptr() as u64;
    let (ins, copy) = code
        .instructions
        .iter()
        .find_map(|i| jit.ic_megamorphic_copy(pc_base + u64::from(i.bytecode_offset)).map(|c| (*i, *c)))
        .expect("the field site went megamorphic and got its own generic code");
    assert!(jit.stencil_name(copy.stencil).ends_with("__megamorphic"), "{}", jit.stencil_name(copy.stencil));
    jit.verify_ic_site_at(copy.pc).expect("the checker accepts the copy");
    jit.verify(live, &code).expect("and the entry that jumps to it");

    // Every byte of the copy's hot part changed, one at a time: the site's checker catches
    // each change outside the holes.
    let bytes = read(copy.address, copy.code_size as usize);
    let mut caught = 0;
    for (k, &b) in bytes.iter().enumerate() {
        jit.patch(copy.address + k as u64, &[b ^ 0x40]).unwrap();
        if jit.verify_ic_site_at(copy.pc).is_err() {
            caught += 1;
        }
        jit.patch(copy.address + k as u64, &[b]).unwrap();
    }
    assert!(caught * 2 > bytes.len(), "only {caught} of {} changed bytes of the copy were caught", bytes.len());
    jit.verify_ic_site_at(copy.pc).expect("restored");

    // The IC entry jumping to the trampoline (the instruction's first out-of-line piece)
    // instead of the copy.
    let saved = read(ins.address + 1, 4);
    let rel = (ins.cold_address as i64 - (ins.address as i64 + 5)) as i32;
    jit.patch(ins.address + 1, &rel.to_le_bytes()).unwrap();
    let verdict = jit.verify(live, &code);
    jit.patch(ins.address + 1, &saved).unwrap();
    eprintln!("an entry past its megamorphic copy: {}", verdict.expect_err("the entry must reach the copy"));
    jit.verify(live, &code).expect("everything restored");
}
