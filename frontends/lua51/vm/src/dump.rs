//! `string.dump` and loading what it wrote: binary chunks of this VM's bytecode.
//!
//! A dump is the function's prototype and every prototype inside it, as the compiler built
//! them: bytecode, constants, upvalue descriptions and all the debug information 5.1 keeps
//! (line numbers, local variables, upvalue names) plus the operand names this VM's error
//! messages use. The bytecode is written in its pristine form: quickened opcodes go back to
//! their base opcode and inline caches are emptied, so a function dumps to the same bytes
//! before and after it ran.
//!
//! Header: `ESC "Lua"`, `0x51`, [`FORMAT`] (PUC Lua's official format is 0, so `lua5.1`
//! refuses these chunks), then the name and version of the VM that wrote the chunk and the
//! fingerprint of its bytecode set (a hash of the generated variant table: opcode numbers and
//! layouts change from build to build). A chunk of PUC Lua or LuaJIT, or of another build of
//! this VM, is refused with a message naming what it is.
//!
//! Loading verifies everything the generated handlers take on trust before anything runs: the
//! handlers index the frame, the constants and the upvalues with their operands unchecked and
//! follow branch offsets blindly, so bytecode from outside could otherwise read or write any
//! memory (5.1 itself can be crashed by crafted bytecode; this VM cannot). [`verify`] checks
//! every instruction against its variant's layout and the rules of its bytecode: slots and slot
//! ranges inside the frame, constants in range and of the type the variant assumes, closures
//! only of child prototypes, upvalue indices, branch targets on instruction starts, no way to
//! run off the end, empty inline and call caches, and the variable-results protocol (an instruction
//! that consumes a call's variable results directly follows the call that produced them, in
//! the same slots). A chunk that fails is "bad code in precompiled chunk", and nothing of it
//! runs.

use lua51_value::TValue;

use crate::bytecode::variants;
use crate::object::function::{is_native, new_closure, new_upval, proto_of, DebugName, LocalVarInfo, Proto, UpvalDesc, VarInfo};
use crate::object::heap::OutOfMemory;
use crate::object::string::string_bytes;
use crate::runtime::vararg_packer;
use crate::state::LuaState;

/// First bytes of every precompiled chunk (5.1's `LUA_SIGNATURE`).
pub const SIGNATURE: &[u8] = b"\x1bLua";
const VERSION: u8 = 0x51;
/// This VM's format: its own bytecode (PUC Lua's is 0).
const FORMAT: u8 = 0xD6;
/// The VM that writes and reads these chunks.
const VM_NAME: &str = concat!("ljr ", env!("CARGO_PKG_VERSION"));
/// Deepest nesting of functions a chunk may have (the parser's own limit is lower).
const MAX_DEPTH: usize = 200;
/// Largest frame a function may declare (the compiler's register limit is far lower).
const MAX_FRAME_SLOTS: u64 = 1 << 16;
/// `num_results`/`count` of an instruction that keeps every value (Lua's `LUA_MULTRET`).
const MULTRET: i64 = lua51_value::MULTRET as i64;

/// The hash of the bytecode set this build's interpreter runs (FNV-1a over the variant table's
/// text form): two builds agree on it exactly when they encode every instruction alike.
pub fn bytecode_fingerprint() -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for line in crate::bytecode::VARIANT_TEXT.iter() {
        for &b in line.as_bytes().iter().chain(b"\n") {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

// ---------------------------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------------------------

const K_NIL: u8 = 0;
const K_FALSE: u8 = 1;
const K_TRUE: u8 = 2;
const K_NUMBER: u8 = 3;
const K_STRING: u8 = 4;
const K_CHILD: u8 = 5;
const K_VARARG_PACKER: u8 = 6;

const VAR_LOCAL: u8 = 0;
const VAR_GLOBAL: u8 = 1;
const VAR_UPVALUE: u8 = 2;
const VAR_FIELD: u8 = 3;
const VAR_METHOD: u8 = 4;

/// The dump of Lua function `f`, or `None` for a native function (5.1: "unable to dump given
/// function").
pub fn dump(st: &LuaState, f: TValue) -> Option<Vec<u8>> {
    let cb = unsafe { (*f.as_closure()).code_block };
    if is_native(cb) {
        return None;
    }
    let proto = proto_of(cb);
    let root = unsafe { &*proto.root };
    let mut out = Vec::with_capacity(256 + proto.code.len() * 2);
    out.extend_from_slice(SIGNATURE);
    out.push(VERSION);
    out.push(FORMAT);
    put_bytes(&mut out, VM_NAME.as_bytes());
    out.extend_from_slice(&bytecode_fingerprint().to_le_bytes());
    put_bytes(&mut out, root.chunkname.as_bytes());
    write_proto(st, &mut out, proto)?;
    Some(out)
}

/// Writes `p` and its children; `None` if a constant is none the format knows.
fn write_proto(st: &LuaState, out: &mut Vec<u8>, p: &Proto) -> Option<()> {
    put_bytes(out, p.source.as_bytes());
    for v in [p.line_defined, p.last_line_defined, p.num_params, u32::from(p.is_vararg), p.frame_slots] {
        put_uint(out, u64::from(v));
    }
    put_bytes(out, &pristine_code(&p.code));
    // A `NewClosure` constant is the address of a child prototype, not a Lua value.
    put_uint(out, p.constants.len() as u64);
    for k in &p.constants {
        if let Some(i) = p.children.iter().position(|c| &**c as *const Proto as u64 == k.raw()) {
            out.push(K_CHILD);
            put_uint(out, i as u64);
        } else if k.is_nil() {
            out.push(K_NIL);
        } else if k.is_bool() {
            out.push(if *k == TValue::TRUE { K_TRUE } else { K_FALSE });
        } else if k.is_double() {
            out.push(K_NUMBER);
            out.extend_from_slice(&k.raw().to_le_bytes());
        } else if k.is_string() {
            out.push(K_STRING);
            put_bytes(out, string_bytes(*k));
        } else if *k == st.pack_fn {
            // The one function the compiler puts in constants: the packer of 5.1's vararg `arg`
            // table (LUA_COMPAT_VARARG). It is the state's, so the chunk names it.
            out.push(K_VARARG_PACKER);
        } else {
            return None;
        }
    }
    put_uint(out, p.lines.len() as u64);
    for &(offset, line) in &p.lines {
        put_uint(out, u64::from(offset));
        put_uint(out, u64::from(line));
    }
    put_uint(out, p.operand_names.len() as u64);
    for (offset, operand, info) in &p.operand_names {
        put_uint(out, u64::from(*offset));
        out.push(*operand);
        let (kind, name) = match info {
            VarInfo::Local(n) => (VAR_LOCAL, n),
            VarInfo::Global(n) => (VAR_GLOBAL, n),
            VarInfo::Upvalue(n) => (VAR_UPVALUE, n),
            VarInfo::Field(n) => (VAR_FIELD, n),
            VarInfo::Method(n) => (VAR_METHOD, n),
        };
        out.push(kind);
        put_bytes(out, name.as_bytes());
    }
    put_uint(out, p.upvalues.len() as u64);
    for (d, name) in p.upvalues.iter().zip(&p.upvalue_names) {
        out.push(u8::from(d.in_stack));
        put_uint(out, u64::from(d.index));
        put_bytes(out, name.as_bytes());
    }
    put_uint(out, p.locvars.len() as u64);
    for v in &p.locvars {
        put_bytes(out, v.name.as_bytes());
        put_uint(out, u64::from(v.slot));
        put_uint(out, u64::from(v.start));
        put_uint(out, u64::from(v.end));
    }
    put_uint(out, p.children.len() as u64);
    for c in &p.children {
        write_proto(st, out, c)?;
    }
    Some(())
}

/// The bytecode as the compiler emitted it: quickened opcodes back to their base variant (same
/// layout), inline caches and call caches zero.
fn pristine_code(code: &[u8]) -> Vec<u8> {
    let mut out = code.to_vec();
    let mut pc = 0;
    while pc + 2 <= out.len() {
        let Some(v) = variants().get(usize::from(u16::from_le_bytes([out[pc], out[pc + 1]]))) else { break };
        out[pc..pc + 2].copy_from_slice(&v.base_opcode().to_le_bytes());
        let end = (pc + v.length as usize).min(out.len());
        for o in v.operands.iter().filter(|o| o.access == crate::bytecode::OperandAccess::InlineCache) {
            let start = pc + o.offset as usize;
            out[start..(start + o.width as usize).min(end)].fill(0);
        }
        if let Some(ic) = v.call_ic_offset {
            out[pc + ic as usize..end].copy_from_slice(&crate::bytecode::EMPTY_CALL_IC);
        }
        pc = end;
    }
    out
}

fn put_uint(out: &mut Vec<u8>, mut v: u64) {
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    put_uint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

// ---------------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------------

/// A constant as the chunk holds it.
#[derive(Debug, Clone, PartialEq)]
enum Const {
    Nil,
    Bool(bool),
    Number(u64),
    String(Vec<u8>),
    Child(usize),
    /// The state's packer of a vararg function's `arg` table (`LuaState::pack_fn`).
    VarargPacker,
}

impl Const {
    /// The name of its type in the type lattice (what variants specialised on a constant's
    /// type list).
    fn type_name(&self) -> &'static str {
        match self {
            Const::Nil => "nil",
            Const::Bool(_) => "boolean",
            Const::Number(_) => "number",
            Const::String(_) => "string",
            Const::Child(_) => "proto",
            Const::VarargPacker => "function",
        }
    }
}

/// A prototype as read, before it is verified and built.
#[derive(Debug, Default)]
struct ProtoData {
    source: String,
    line_defined: u32,
    last_line_defined: u32,
    num_params: u32,
    is_vararg: bool,
    frame_slots: u32,
    code: Vec<u8>,
    constants: Vec<Const>,
    lines: Vec<(u32, u32)>,
    operand_names: Vec<(u32, u8, VarInfo)>,
    upvalues: Vec<(String, UpvalDesc)>,
    locvars: Vec<LocalVarInfo>,
    children: Vec<ProtoData>,
}

/// Loads a precompiled chunk (`bytes` starts with ESC). `source_name` is the name the loader
/// was given, used only in error messages, as 5.1's `luaU_undump` does.
pub fn undump(st: &mut LuaState, bytes: &[u8], source_name: &str) -> Result<TValue, String> {
    let shown = match source_name.as_bytes().first() {
        Some(b'@' | b'=') => &source_name[1..],
        Some(0x1b) => "binary string",
        _ => source_name,
    };
    let fail = |why: &str| format!("{shown}: {why} in precompiled chunk");
    let mut r = Reader { bytes, at: 0 };
    if bytes.starts_with(b"\x1bLJ") {
        return Err(fail("bad header (LuaJIT bytecode; ljr loads only its own)"));
    }
    let header = r.take(SIGNATURE.len() + 2).ok_or_else(|| fail("unexpected end"))?;
    if &header[..SIGNATURE.len()] != SIGNATURE {
        return Err(fail("bad header"));
    }
    if header[4] != VERSION {
        return Err(fail("version mismatch"));
    }
    match header[5] {
        FORMAT => {}
        0 => return Err(fail("bad header (PUC Lua 5.1 bytecode; ljr loads only its own)")),
        _ => return Err(fail("bad header")),
    }
    let vm = r.bytes().ok_or_else(|| fail("unexpected end"))?;
    let fingerprint = r.take(8).ok_or_else(|| fail("unexpected end"))?;
    if vm != VM_NAME.as_bytes() || fingerprint != bytecode_fingerprint().to_le_bytes() {
        return Err(fail(&format!("bad header (written by {} with another bytecode set; this is {VM_NAME})", String::from_utf8_lossy(vm))));
    }
    let chunkname = String::from_utf8_lossy(r.bytes().ok_or_else(|| fail("unexpected end"))?).into_owned();
    let data = read_proto(&mut r, 0).map_err(&fail)?;
    // What follows is ignored, as 5.1's undump ignores it.
    verify(&data, None).map_err(|e| fail(&format!("bad code ({e})")))?;
    let mut proto = build(st, &data).map_err(|_| "not enough memory".to_owned())?;
    proto.chunkname = chunkname;
    let proto = Box::leak(proto);
    let root: *const Proto = proto;
    proto.set_root(root);
    // Owned by the state from here, as a compiled chunk is.
    st.register_chunk(root as *mut Proto);
    closure_with_fresh_upvalues(st, proto).ok_or_else(|| "not enough memory".to_owned())
}

fn read_proto(r: &mut Reader, depth: usize) -> Result<ProtoData, &'static str> {
    const END: &str = "unexpected end";
    if depth > MAX_DEPTH {
        return Err("bad code (functions nested too deeply)");
    }
    let u32_of = |v: u64| u32::try_from(v).map_err(|_| "bad code (number out of range)");
    let mut p = ProtoData { source: String::from_utf8_lossy(r.bytes().ok_or(END)?).into_owned(), ..ProtoData::default() };
    p.line_defined = u32_of(r.uint().ok_or(END)?)?;
    p.last_line_defined = u32_of(r.uint().ok_or(END)?)?;
    p.num_params = u32_of(r.uint().ok_or(END)?)?;
    p.is_vararg = match r.uint().ok_or(END)? {
        0 => false,
        1 => true,
        _ => return Err("bad code (vararg flag)"),
    };
    p.frame_slots = u32_of(r.uint().ok_or(END)?)?;
    p.code = r.bytes().ok_or(END)?.to_vec();
    for _ in 0..r.count()? {
        let k = match r.take(1).ok_or(END)?[0] {
            K_NIL => Const::Nil,
            K_FALSE => Const::Bool(false),
            K_TRUE => Const::Bool(true),
            K_NUMBER => Const::Number(u64::from_le_bytes(r.take(8).ok_or(END)?.try_into().expect("8 bytes"))),
            K_STRING => Const::String(r.bytes().ok_or(END)?.to_vec()),
            K_CHILD => Const::Child(usize::try_from(r.uint().ok_or(END)?).map_err(|_| "bad code (child index)")?),
            K_VARARG_PACKER => Const::VarargPacker,
            _ => return Err("bad code (constant tag)"),
        };
        p.constants.push(k);
    }
    for _ in 0..r.count()? {
        p.lines.push((u32_of(r.uint().ok_or(END)?)?, u32_of(r.uint().ok_or(END)?)?));
    }
    for _ in 0..r.count()? {
        let offset = u32_of(r.uint().ok_or(END)?)?;
        let operand = r.take(1).ok_or(END)?[0];
        let kind = r.take(1).ok_or(END)?[0];
        let name: DebugName = String::from_utf8_lossy(r.bytes().ok_or(END)?).into();
        let info = match kind {
            VAR_LOCAL => VarInfo::Local(name),
            VAR_GLOBAL => VarInfo::Global(name),
            VAR_UPVALUE => VarInfo::Upvalue(name),
            VAR_FIELD => VarInfo::Field(name),
            VAR_METHOD => VarInfo::Method(name),
            _ => return Err("bad code (operand name kind)"),
        };
        p.operand_names.push((offset, operand, info));
    }
    for _ in 0..r.count()? {
        let in_stack = match r.take(1).ok_or(END)?[0] {
            0 => false,
            1 => true,
            _ => return Err("bad code (upvalue kind)"),
        };
        let index = u16::try_from(r.uint().ok_or(END)?).map_err(|_| "bad code (upvalue index)")?;
        let name = String::from_utf8_lossy(r.bytes().ok_or(END)?).into_owned();
        p.upvalues.push((name, UpvalDesc { in_stack, index }));
    }
    for _ in 0..r.count()? {
        let name = String::from_utf8_lossy(r.bytes().ok_or(END)?).into_owned();
        let slot = u16::try_from(r.uint().ok_or(END)?).map_err(|_| "bad code (local slot)")?;
        let (start, end) = (u32_of(r.uint().ok_or(END)?)?, u32_of(r.uint().ok_or(END)?)?);
        p.locvars.push(LocalVarInfo { name: name.into(), slot, start, end });
    }
    for _ in 0..r.count()? {
        p.children.push(read_proto(r, depth + 1)?);
    }
    Ok(p)
}

/// Builds the prototypes of a verified chunk, children first (a parent's `NewClosure`
/// constants are their addresses).
fn build(st: &mut LuaState, d: &ProtoData) -> Result<Box<Proto>, OutOfMemory> {
    let mut children = Vec::with_capacity(d.children.len());
    for c in &d.children {
        children.push(build(st, c)?);
    }
    let mut constants = Vec::with_capacity(d.constants.len());
    for k in &d.constants {
        constants.push(match k {
            Const::Nil => TValue::NIL,
            Const::Bool(b) => TValue::from_bool(*b),
            // Canonical NaN payloads: no bit pattern from outside may pose as a boxed value.
            Const::Number(bits) => TValue::from_f64_canonical(f64::from_bits(*bits)),
            Const::String(s) => st.intern(s)?,
            Const::Child(i) => TValue(&*children[*i] as *const Proto as u64),
            Const::VarargPacker => vararg_packer(st)?,
        });
    }
    let mut p = Proto::new(
        d.source.clone(),
        d.line_defined,
        d.last_line_defined,
        d.num_params,
        d.is_vararg,
        d.frame_slots,
        d.code.clone(),
        constants,
        d.lines.clone(),
        d.operand_names.clone(),
        d.upvalues.clone(),
        children,
    );
    p.locvars = d.locvars.clone();
    Ok(p)
}

/// A closure of `proto` over the globals whose upvalues are new and hold nil, as 5.1's
/// `lua_load` makes one.
fn closure_with_fresh_upvalues(st: &mut LuaState, proto: &Proto) -> Option<TValue> {
    let env = st.globals;
    let c = new_closure(&mut st.heap, proto.code_block(), proto.upvalues.len(), env).ok()?;
    for i in 0..proto.upvalues.len() {
        let u = new_upval(&mut st.heap, std::ptr::null_mut()).ok()?;
        unsafe {
            (*u).closed = TValue::NIL.raw();
            (*u).value = &mut (*u).closed;
            *(*c).upvalues().add(i) = u;
        }
    }
    Some(TValue::from_function(c))
}

// ---------------------------------------------------------------------------------------------
// Verifying
// ---------------------------------------------------------------------------------------------

/// The bytecodes whose literal operands [`verify`] understands (each has a rule below). A
/// literal can be a count, an index or a slot, so a bytecode with literals that is not listed
/// is refused: adding one to the specs means teaching the verifier what its literals are
/// (a test fails until then).
const UNDERSTOOD_LITERALS: &[&str] = &[
    "Concat",
    "ForIn",
    "Call",
    "CallVarArgs",
    "TailCall",
    "TailCallVarArgs",
    "Return",
    "ReturnVarArgs",
    "NewTable",
    "SetList",
    "SetListVarArgs",
    "VarArg",
    "GetUpval",
    "SetUpval",
    "LoadConstWide",
    "GetGlobalWide",
    "SetGlobalWide",
    "NewClosureWide",
    // Literals that any value of keeps safe, so they need no rule: ForLoop's step direction
    // (a value the compiler never writes takes the comparison by the step's sign), the index of
    // GetTableInt/SetTableInt (bounds-checked against the table at run time).
    "ForLoop",
    "GetTableInt",
    "SetTableInt",
];

/// One decoded instruction.
struct Insn<'v> {
    pc: usize,
    v: &'v crate::bytecode::Variant,
}

impl Insn<'_> {
    /// The value of operand `name` (a literal the variant is specialised on included).
    fn operand(&self, code: &[u8], name: &str) -> Option<i64> {
        let o = self.v.operands.iter().find(|o| o.name == name)?;
        if let Some(v) = o.fixed {
            return Some(v);
        }
        let at = self.pc + o.offset as usize;
        Some(crate::bytecode::read_operand(code, at, o.width, matches!(o.access, crate::bytecode::OperandAccess::Literal { signed: true })))
    }
}

/// Checks that `p` (whose enclosing prototype is `parent`) can run without trusting anything
/// it says: see the module documentation. The error says what is wrong and where.
fn verify(p: &ProtoData, parent: Option<&ProtoData>) -> Result<(), String> {
    use crate::bytecode::OperandAccess;
    let slots = i64::from(p.frame_slots);
    if u64::from(p.frame_slots) > MAX_FRAME_SLOTS || p.num_params > p.frame_slots {
        return Err(format!("frame of {} slots for {} parameters", p.frame_slots, p.num_params));
    }
    for (i, k) in p.constants.iter().enumerate() {
        if let Const::Child(c) = k {
            if *c >= p.children.len() || p.constants[..i].contains(k) {
                return Err(format!("constant {i} names no child function, or one named before"));
            }
        }
    }
    // Upvalues are captured by the enclosing function's `NewClosure`; a chunk's own are fresh.
    if let Some(parent) = parent {
        for (name, d) in &p.upvalues {
            let limit = if d.in_stack { parent.frame_slots as usize } else { parent.upvalues.len() };
            if usize::from(d.index) >= limit {
                return Err(format!(
                    "upvalue '{name}' captures {} {} of its enclosing function",
                    if d.in_stack { "slot" } else { "upvalue" },
                    d.index
                ));
            }
        }
    }
    for v in &p.locvars {
        if i64::from(v.slot) >= slots || v.start > v.end {
            return Err(format!("local '{}' in slot {}", v.name, v.slot));
        }
    }

    // Decode: every instruction starts where the previous one ends, with a known base opcode.
    let code = &p.code;
    let mut insns = Vec::new();
    let mut is_start = vec![false; code.len() + 1];
    let mut pc = 0;
    while pc < code.len() {
        let opcode =
            if pc + 2 <= code.len() { u16::from_le_bytes([code[pc], code[pc + 1]]) } else { return Err(format!("truncated instruction at {pc}")) };
        let v = variants().get(usize::from(opcode)).ok_or_else(|| format!("unknown opcode {opcode} at {pc}"))?;
        if v.is_quickened() {
            return Err(format!("quickened opcode {} at {pc}", v.name));
        }
        let has_literals = v.operands.iter().any(|o| matches!(o.access, crate::bytecode::OperandAccess::Literal { .. }) && o.fixed.is_none());
        if has_literals && !UNDERSTOOD_LITERALS.contains(&v.bytecode.as_str()) {
            return Err(format!("{} at {pc}, whose operands the verifier does not know", v.name));
        }
        if pc + v.length as usize > code.len() {
            return Err(format!("truncated {} at {pc}", v.name));
        }
        is_start[pc] = true;
        insns.push(Insn { pc, v });
        pc += v.length as usize;
    }
    let Some(last) = insns.last() else { return Err("no code".to_owned()) };
    if !matches!(last.v.bytecode.as_str(), "Return" | "ReturnVarArgs" | "TailCall" | "TailCallVarArgs" | "Jump") {
        return Err(format!("the code ends in {}, which falls through", last.v.name));
    }

    let mut branch_targets = vec![false; code.len() + 1];
    for insn in &insns {
        let (pc, v) = (insn.pc, insn.v);
        let at = |what: &str| format!("{what} in {} at {pc}", v.name);
        for o in &v.operands {
            if o.fixed.is_some() {
                continue;
            }
            let raw = || crate::bytecode::read_operand(code, pc + o.offset as usize, o.width, false);
            match o.access {
                OperandAccess::Slot if raw() >= slots => return Err(at(&format!("slot {} outside the frame", raw()))),
                OperandAccess::SlotRef if raw() > slots => return Err(at(&format!("slot {} outside the frame", raw()))),
                OperandAccess::Constant => {
                    let k = p.constants.get(raw() as usize).ok_or_else(|| at(&format!("constant {} out of range", raw())))?;
                    // Only `NewClosure` takes a child, and it takes nothing else.
                    if matches!(k, Const::Child(_)) != (v.bytecode == "NewClosure") {
                        return Err(at(&format!("constant {} of the wrong kind", raw())));
                    }
                    if !o.known.is_empty() && !o.known.iter().any(|t| t == k.type_name()) {
                        return Err(at(&format!("constant {} is a {}, not {}", raw(), k.type_name(), o.known.join("/"))));
                    }
                    // String-keyed caches and global lookups assume a string name.
                    if o.name == "name" && !matches!(k, Const::String(_)) {
                        return Err(at("a name that is not a string"));
                    }
                }
                OperandAccess::InlineCache => {
                    let start = pc + o.offset as usize;
                    if code[start..start + o.width as usize].iter().any(|&b| b != 0) {
                        return Err(at("a filled inline cache"));
                    }
                }
                _ => {}
            }
        }
        if let Some(o) = v.output_offset {
            let out = crate::bytecode::read_operand(code, pc + o as usize, 2, false);
            if out >= slots {
                return Err(at(&format!("output slot {out} outside the frame")));
            }
        }
        if let Some(o) = v.branch_offset {
            let target = pc as i64 + crate::bytecode::read_operand(code, pc + o as usize, 4, true);
            if target < 0 || target as usize >= code.len() || !is_start[target as usize] {
                return Err(at(&format!("branch to {target}, not an instruction")));
            }
            branch_targets[target as usize] = true;
        }
        if let Some(ic) = v.call_ic_offset {
            if code[pc + ic as usize..pc + v.length as usize] != crate::bytecode::EMPTY_CALL_IC {
                return Err(at("a filled call cache"));
            }
        }
    }

    // What each bytecode does with its slot ranges, literals and the variable results.
    let header = deegen_api::FRAME_HEADER_SLOTS as i64;
    for (i, insn) in insns.iter().enumerate() {
        let (pc, v) = (insn.pc, insn.v);
        let at = |what: &str| format!("{what} in {} at {pc}", v.name);
        let op = |name: &str| insn.operand(code, name).ok_or_else(|| at(&format!("no operand '{name}'")));
        let within = |first: i64, count: i64| -> Result<(), String> {
            if first + count > slots {
                return Err(at(&format!("slots {first}..{} outside the frame of {slots}", first + count)));
            }
            Ok(())
        };
        // Where the variable results of the instruction before this one are (None: it left
        // none). A consumer must follow its producer directly, and not be a branch target.
        let produced = || -> Option<i64> {
            let prev = insns[..i].last()?;
            let operand = |name: &str| prev.operand(code, name);
            match prev.v.bytecode.as_str() {
                "Call" | "CallVarArgs" if operand("num_results") == Some(MULTRET) => operand("frame"),
                "VarArg" if operand("count") == Some(MULTRET) => operand("dst"),
                _ => None,
            }
        };
        let consumes = |at_slot: i64| -> Result<(), String> {
            if branch_targets[pc] || produced() != Some(at_slot) {
                return Err(at("variable results no call or vararg left in these slots"));
            }
            Ok(())
        };
        let results = |frame: i64| -> Result<(), String> {
            match op("num_results")? {
                MULTRET => Ok(()),
                n => within(frame, n),
            }
        };
        match v.bytecode.as_str() {
            "Concat" => {
                let count = op("count")?;
                if count < 2 {
                    return Err(at("fewer than two values to concatenate"));
                }
                within(op("first")?, count)?;
            }
            "ForPrep" | "ForLoop" => within(op("base")?, 4)?,
            "ForIn" => {
                let n = op("num_vars")?;
                if n < 1 {
                    return Err(at("no loop variable"));
                }
                within(op("base")?, 3 + n.max(header + 2))?;
            }
            "Call" => {
                within(op("frame")?, header + op("num_args")?)?;
                results(op("frame")?)?;
            }
            "CallVarArgs" => {
                let (frame, fixed) = (op("frame")?, op("num_fixed_args")?);
                within(frame, header + fixed)?;
                results(frame)?;
                consumes(frame + header + fixed)?;
            }
            "TailCall" | "TailCallVarArgs" => {
                let frame = op("frame")?;
                if v.bytecode == "TailCall" {
                    within(frame, header + op("num_args")?)?;
                } else {
                    let fixed = op("num_fixed_args")?;
                    within(frame, header + fixed)?;
                    consumes(frame + header + fixed)?;
                }
                // As for a return.
                if op("close")? == 0 && !p.children.is_empty() {
                    return Err(at("a tail call that closes no upvalues in a function that makes closures"));
                }
            }
            "Return" | "ReturnVarArgs" => {
                let (first, n) = (op("first")?, if v.bytecode == "Return" { op("count")? } else { op("num_fixed")? });
                within(first, n)?;
                if v.bytecode == "ReturnVarArgs" {
                    consumes(first + n)?;
                }
                // Only a function that makes no closures may skip closing its upvalues.
                if op("close")? == 0 && !p.children.is_empty() {
                    return Err(at("a return that closes no upvalues in a function that makes closures"));
                }
            }
            "GetMethod" => within(op("frame")?, header + 1)?,
            "SetList" | "SetListVarArgs" if op("first_index")? < 1 => return Err(at("a list stored from index 0")),
            "SetList" => within(op("values")?, op("count")?)?,
            "SetListVarArgs" => {
                let (values, fixed) = (op("values")?, op("num_fixed")?);
                within(values, fixed)?;
                consumes(values + fixed)?;
            }
            "VarArg" => {
                if !p.is_vararg {
                    return Err(at("varargs in a function without them"));
                }
                match op("count")? {
                    MULTRET => within(op("dst")?, 0)?,
                    n => within(op("dst")?, n)?,
                }
            }
            "GetUpval" | "SetUpval" if op("index")? as usize >= p.upvalues.len() => {
                return Err(at("upvalue out of range"));
            }
            "Close" => within(op("from")?, 0)?,
            // The semantics multiply by `inverse` without testing either constant: they must
            // be numbers and reciprocal powers of two, as the compiler emits them.
            "DivPow2" | "ModPow2" => {
                let number = |name: &str| -> Result<f64, String> {
                    match p.constants.get(op(name)? as usize) {
                        Some(Const::Number(bits)) => Ok(f64::from_bits(*bits)),
                        _ => Err(at(&format!("a '{name}' that is not a number constant"))),
                    }
                };
                let (k, inverse) = (number("rhs")?, number("inverse")?);
                if !crate::compiler::is_power_of_two(k.abs()) || 1.0 / k != inverse || !crate::compiler::is_power_of_two(inverse.abs()) {
                    return Err(at("an 'inverse' that is not the reciprocal power of two of 'rhs'"));
                }
            }
            // Constants past the 16-bit operands, named by a 32-bit literal.
            "LoadConstWide" | "GetGlobalWide" | "SetGlobalWide" | "NewClosureWide" => {
                let index = op(if v.bytecode == "LoadConstWide" {
                    "index"
                } else if v.bytecode == "NewClosureWide" {
                    "proto"
                } else {
                    "name"
                })?;
                let k = p.constants.get(index as usize).ok_or_else(|| at(&format!("constant {index} out of range")))?;
                let fits = match v.bytecode.as_str() {
                    "NewClosureWide" => matches!(k, Const::Child(_)),
                    "LoadConstWide" => !matches!(k, Const::Child(_)),
                    _ => matches!(k, Const::String(_)),
                };
                if !fits {
                    return Err(at(&format!("constant {index} of the wrong kind")));
                }
            }
            _ => {}
        }
    }
    for c in &p.children {
        verify(c, Some(p))?;
    }
    Ok(())
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len())?;
        let s = &self.bytes[self.at..end];
        self.at = end;
        Some(s)
    }

    fn uint(&mut self) -> Option<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.take(1)?[0];
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Some(v);
            }
        }
        None
    }

    fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = usize::try_from(self.uint()?).ok()?;
        self.take(n)
    }

    /// A count of items that follow, each at least one byte long: no larger than what is left
    /// (so a damaged count cannot make the reader reserve or loop for nothing).
    fn count(&mut self) -> Result<usize, &'static str> {
        let n = self.uint().ok_or("unexpected end")?;
        usize::try_from(n).ok().filter(|&n| n <= self.bytes.len() - self.at).ok_or("unexpected end")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leb128_round_trips() {
        for v in [0u64, 1, 127, 128, 300, u32::MAX as u64, u64::MAX] {
            let mut out = Vec::new();
            put_uint(&mut out, v);
            assert_eq!(Reader { bytes: &out, at: 0 }.uint(), Some(v));
        }
    }

    #[test]
    fn truncated_and_overlong_numbers_are_refused() {
        assert_eq!(Reader { bytes: &[0x80], at: 0 }.uint(), None);
        assert_eq!(Reader { bytes: &[0xff; 11], at: 0 }.uint(), None);
        assert_eq!(Reader { bytes: &[5, 1, 2], at: 0 }.bytes(), None);
        assert!(Reader { bytes: &[200, 1, 0], at: 0 }.count().is_err());
    }
}

/// Every function the compiler makes passes the verifier, and a dump loads back to the same
/// dump: over the project's corpus, its benchmarks and (when present) the conformance suites.
#[cfg(test)]
mod corpus_tests {
    use super::*;
    use std::path::{Path, PathBuf};

    fn lua_files(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                lua_files(&p, out);
            } else if p.extension().is_some_and(|x| x == "lua") {
                out.push(p);
            }
        }
    }

    /// Dumps `f`, loads the dump, checks the reload dumps alike, and does the same for every
    /// function inside.
    fn round_trip(st: &mut LuaState, f: TValue, what: &str) -> usize {
        let d = dump(st, f).expect("a Lua function dumps");
        let g = undump(st, &d, "=test").unwrap_or_else(|e| panic!("{what}: the verifier refuses compiler output: {e}"));
        assert_eq!(dump(st, g).as_deref(), Some(&d[..]), "{what}: a reloaded function dumps differently");
        let proto = proto_of(unsafe { (*f.as_closure()).code_block });
        let mut n = 1;
        for (i, child) in proto.children.iter().enumerate() {
            let c = closure_with_fresh_upvalues(st, child).expect("memory");
            n += round_trip(st, c, &format!("{what}/{i}"));
        }
        n
    }

    #[test]
    fn compiler_output_verifies_and_round_trips() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..");
        let mut files = Vec::new();
        for dir in ["testsuite/lua", "testsuite/bench", "../shared/conformance"] {
            lua_files(&root.join(dir), &mut files);
        }
        assert!(files.len() > 100, "the corpus is missing: {}", root.display());
        let mut functions = 0;
        for file in &files {
            let source = std::fs::read(file).unwrap();
            let mut st = LuaState::new().unwrap();
            // Files that do not compile (syntax error tests) have nothing to dump.
            if let Ok(f) = st.load(&source, format!("@{}", file.display()), true) {
                functions += round_trip(&mut st, f, &file.display().to_string());
            }
        }
        assert!(functions > 1000, "only {functions} functions");
    }

    /// Damaged chunks are refused or load, never crash the loader: every byte of a dump flipped
    /// in turn, and every truncation.
    #[test]
    fn damaged_chunks_are_refused_without_crashing() {
        let mut st = LuaState::new().unwrap();
        let src = b"local t = {} for i, v in ipairs({...}) do t[#t + 1] = function() return v .. i end end return t, select('#', ...)";
        let f = st.load(src, "=damaged", false).unwrap();
        let d = dump(&st, f).unwrap();
        let mut refused = 0;
        for i in 0..d.len() {
            for bit in [0x01u8, 0x10, 0x80] {
                let mut bad = d.clone();
                bad[i] ^= bit;
                refused += usize::from(undump(&mut st, &bad, "=damaged").is_err());
            }
        }
        for n in 0..d.len() {
            assert!(undump(&mut st, &d[..n], "=damaged").is_err(), "a dump cut at {n} loads");
        }
        assert!(refused > d.len(), "only {refused} of {} damaged dumps refused", 3 * d.len());
    }

    #[test]
    fn the_verifier_knows_the_literals_of_every_bytecode() {
        for v in variants() {
            let has_literals = v.operands.iter().any(|o| matches!(o.access, crate::bytecode::OperandAccess::Literal { .. }) && o.fixed.is_none());
            assert!(!has_literals || UNDERSTOOD_LITERALS.contains(&v.bytecode.as_str()), "teach dump::verify the literals of {}", v.bytecode);
        }
    }

    /// The verifier's data for a function compiled from `src` (its first child when `child`).
    fn data_of(src: &str, child: bool) -> ProtoData {
        let mut st = LuaState::new().unwrap();
        let f = st.load(src.as_bytes(), "=t", false).unwrap();
        let d = dump(&st, f).unwrap();
        let mut r = Reader { bytes: &d, at: 6 };
        r.bytes().unwrap();
        r.take(8).unwrap();
        r.bytes().unwrap();
        let p = read_proto(&mut r, 0).unwrap();
        assert_eq!(verify(&p, None), Ok(()));
        if child {
            p.children.into_iter().next().unwrap()
        } else {
            p
        }
    }

    /// The instructions of `p`: (offset, variant).
    fn insns(p: &ProtoData) -> Vec<(usize, &'static crate::bytecode::Variant)> {
        let mut out = Vec::new();
        let mut pc = 0;
        while pc < p.code.len() {
            let v = &variants()[usize::from(u16::from_le_bytes([p.code[pc], p.code[pc + 1]]))];
            out.push((pc, v));
            pc += v.length as usize;
        }
        out
    }

    fn refused(p: &ProtoData, parent: Option<&ProtoData>, expect: &str) {
        match verify(p, parent) {
            Ok(()) => panic!("accepted; expected an error about '{expect}'"),
            Err(e) => assert!(e.contains(expect), "{e:?} does not mention '{expect}'"),
        }
    }

    /// `InitField` is the compiler's store into a table its constructor just made, but a
    /// verified chunk may aim it at any slot: a table with a metatable gets the ordinary store
    /// (its `__newindex`, here a table, receives the value), anything else the ordinary error,
    /// as SetField's would.
    #[test]
    fn init_field_aimed_elsewhere_stores_as_set_field_does() {
        use crate::object::table::{table_mut, Table};
        let src = "local obj, n = guarded, 5 local t = { x = 1 } return t.x";
        let mut st = LuaState::new().unwrap();
        // `guarded` (a global, so the collector keeps it): a table whose metatable's
        // `__newindex` is the table `store`.
        let [x, newindex, guarded_name, store_name] = [&b"x"[..], b"__newindex", b"guarded", b"store"].map(|k| st.intern(k).unwrap());
        let globals = st.globals;
        let (guarded, mt, store) = (Table::new_in(&mut st.heap).unwrap(), Table::new_in(&mut st.heap).unwrap(), Table::new_in(&mut st.heap).unwrap());
        table_mut(globals).set(guarded_name, guarded).unwrap();
        table_mut(globals).set(store_name, store).unwrap();
        table_mut(mt).set(newindex, store).unwrap();
        table_mut(guarded).set_metatable(table_mut(mt));
        let f = st.load(src.as_bytes(), "=t", false).unwrap();
        let d = dump(&st, f).unwrap();
        let p = data_of(src, false);
        let (pc, v) = insns(&p).into_iter().find(|(_, v)| v.bytecode == "InitField").unwrap();
        let o = v.operands.iter().find(|o| o.name == "table").unwrap();
        assert_eq!(o.width, 2);
        let at = d.windows(p.code.len()).position(|w| w == &p.code[..]).unwrap() + pc + o.offset as usize;
        let run = |st: &mut LuaState, slot: u16| {
            let mut crafted = d.clone();
            crafted[at..at + 2].copy_from_slice(&slot.to_le_bytes());
            let g = undump(st, &crafted, "=crafted").expect("the verifier checks slots, not what they hold");
            st.call(g, &[])
        };
        // Slot 0 is `obj`: the value goes to `store`, `obj` and `t` stay without `x`.
        let message = |e: crate::state::LuaError| String::from_utf8_lossy(crate::object::string::string_bytes(e.value)).into_owned();
        let r = run(&mut st, 0).unwrap_or_else(|e| panic!("{}", message(e)));
        assert_eq!(r[0], TValue::NIL);
        assert_eq!((table_mut(store).get(x).as_f64(), table_mut(guarded).get(x)), (1.0, TValue::NIL));
        // Slot 1 is `n`, a number.
        let e = message(run(&mut st, 1).expect_err("indexing a number"));
        assert!(e.contains("attempt to index"), "{e}");
    }

    #[test]
    fn the_verifier_refuses_what_handlers_would_trust() {
        let src = "local a, b = ... local t = {a, b, ...} for i = 1, #t do b = (b or 0) .. t[i] end return function() return a end, select('#', ...)";
        // A frame too small for the slots the code uses.
        let mut p = data_of(src, false);
        p.frame_slots = 2;
        refused(&p, None, "local 't' in slot");
        p.locvars.clear();
        refused(&p, None, "outside the frame");
        // A branch into the middle of an instruction.
        let mut p = data_of(src, false);
        let (pc, v) = insns(&p).into_iter().find(|(_, v)| v.branch_offset.is_some()).unwrap();
        let o = pc + v.branch_offset.unwrap() as usize;
        let disp = i32::from_le_bytes(p.code[o..o + 4].try_into().unwrap()) + 1;
        p.code[o..o + 4].copy_from_slice(&disp.to_le_bytes());
        refused(&p, None, "not an instruction");
        // Code that runs off its end.
        let mut p = data_of(src, false);
        let (last, _) = *insns(&p).last().unwrap();
        p.code.truncate(last);
        refused(&p, None, "falls through");
        // A filled inline cache.
        let mut p = data_of("local t = {} return t.x", false);
        let (pc, v) =
            insns(&p).into_iter().find(|(_, v)| v.operands.iter().any(|o| o.access == crate::bytecode::OperandAccess::InlineCache)).unwrap();
        let o = v.operands.iter().find(|o| o.access == crate::bytecode::OperandAccess::InlineCache).unwrap();
        p.code[pc + o.offset as usize] = 1;
        refused(&p, None, "inline cache");
        // Varargs read by a function that has none.
        let mut p = data_of("return function(...) return ... end", true);
        p.is_vararg = false;
        refused(&p, None, "varargs");
        // Variable results consumed where no call left them: the producer is gone.
        let mut p = data_of("return f(g())", false);
        let list = insns(&p);
        let i = list.iter().position(|(_, v)| v.bytecode == "TailCallVarArgs").unwrap();
        let (pc, v) = list[i - 1];
        let o = v.operands.iter().find(|o| o.name == "num_results").unwrap();
        if o.fixed.is_none() {
            p.code[pc + o.offset as usize..pc + o.offset as usize + 2].copy_from_slice(&1u16.to_le_bytes());
            refused(&p, None, "variable results");
        }
        // A constant index past the table, and a closure of something that is not a child.
        let mut p = data_of(src, false);
        p.constants.truncate(1);
        refused(&p, None, "constant");
        let mut p = data_of(src, false);
        let k = p.constants.iter().position(|k| matches!(k, Const::Child(_))).unwrap();
        p.constants[k] = Const::Number(0);
        refused(&p, None, "wrong kind");
        // An upvalue captured from outside its enclosing function's frame.
        let parent = data_of(src, false);
        let mut child = data_of(src, true);
        child.upvalues[0].1 = UpvalDesc { in_stack: true, index: 250 };
        refused(&child, Some(&parent), "captures slot 250");
        // A function with closures whose return does not close upvalues.
        let mut p = data_of("local x return function() return x end", false);
        let (pc, _) = *insns(&p).iter().rev().find(|(_, v)| v.bytecode == "Return").unwrap();
        let close0 =
            variants().iter().find(|v| v.bytecode == "Return" && v.operands.iter().any(|o| o.name == "close" && o.fixed == Some(0))).unwrap();
        let close1 = &variants()[usize::from(u16::from_le_bytes([p.code[pc], p.code[pc + 1]]))];
        assert_eq!(close0.length, close1.length);
        p.code[pc..pc + 2].copy_from_slice(&close0.opcode.to_le_bytes());
        refused(&p, None, "closes no upvalues");
        // The same for a tail call (the compiler switches it to the close-0 twin only in a
        // function without closures).
        let mut p = data_of("local x local g = function() return x end return f(x)", false);
        let (pc, v) = *insns(&p).iter().rev().find(|(_, v)| v.bytecode == "TailCall").unwrap();
        assert_eq!(v.operands.iter().find(|o| o.name == "close").and_then(|o| o.fixed), Some(1));
        let twin = crate::bytecode::close0_twin(v.opcode).unwrap();
        p.code[pc..pc + 2].copy_from_slice(&twin.to_le_bytes());
        refused(&p, None, "closes no upvalues");
        // Without closures the compiler emits the twin, and it verifies.
        let p = data_of("local x return f(x)", false);
        let (_, v) = *insns(&p).iter().rev().find(|(_, v)| v.bytecode == "TailCall").unwrap();
        assert_eq!(v.operands.iter().find(|o| o.name == "close").and_then(|o| o.fixed), Some(0));
        // A division by a power of two whose reciprocal is not one (it would multiply by
        // anything), or is not a number at all.
        let src = "local x = ... return x / 4, x % 0.5";
        let p = data_of(src, false);
        assert_eq!(insns(&p).iter().filter(|(_, v)| matches!(v.bytecode.as_str(), "DivPow2" | "ModPow2")).count(), 2);
        let reciprocal = |p: &ProtoData, x: f64| p.constants.iter().position(|k| matches!(k, Const::Number(b) if *b == x.to_bits())).unwrap();
        for (of, becomes, expect) in [
            (0.25, Const::Number(3f64.to_bits()), "reciprocal"),
            (2.0, Const::Number(0.25f64.to_bits()), "reciprocal"),
            (0.25, Const::Bool(true), "not a number constant"),
        ] {
            let mut q = data_of(src, false);
            let k = reciprocal(&p, of);
            q.constants[k] = becomes;
            refused(&q, None, expect);
        }
    }

    #[test]
    fn powers_of_two() {
        use crate::compiler::is_power_of_two;
        for e in -1074i32..=1023 {
            let x = if e >= -1022 { f64::from_bits(((e + 1023) as u64) << 52) } else { f64::from_bits(1 << (e + 1074)) };
            assert!(is_power_of_two(x), "2^{e}");
        }
        for x in [0.0, -0.0, 3.0, 0.75, 6.0, -2.0, f64::INFINITY, f64::NAN, 2f64.powi(-1074) * 3.0, f64::MAX] {
            assert!(!is_power_of_two(x), "{x}");
        }
    }
}
