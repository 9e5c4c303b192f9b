//! The bytecode stream: the builder the generated `create_*` methods extend, and a disassembler
//! driven by the same variant layouts the interpreter decodes.

pub use deegen_bytecode_spec::{OperandAccess, ResultKind, Variant};

/// An operand that may be a slot or a constant (chosen per variant).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand {
    Slot(u16),
    Const(u16),
}

impl Operand {
    pub fn is_const(self) -> bool {
        matches!(self, Operand::Const(_))
    }
    pub fn index(self) -> u16 {
        match self {
            Operand::Slot(i) | Operand::Const(i) => i,
        }
    }
}

/// Where an instruction was written; branches can be patched through it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Emitted {
    pub start: u32,
    pub branch_field: Option<u32>,
}

/// Appends encoded instructions. The typed `create_*` methods are generated from the specs.
#[derive(Debug, Default)]
pub struct BytecodeBuilder {
    code: Vec<u8>,
    /// The type of each constant of the function (lattice names), so the generated `create_*`
    /// methods can pick variants specialised on a constant's type.
    constant_types: Vec<&'static str>,
}

impl BytecodeBuilder {
    pub fn new() -> Self {
        // Room for a small function's code at once: growing from empty was three reallocations
        // per function (a large chunk's functions are mostly small).
        BytecodeBuilder { code: Vec::with_capacity(512), constant_types: Vec::with_capacity(16) }
    }
    pub fn position(&self) -> u32 {
        self.code.len() as u32
    }
    /// Records the type of constant `index` (the compiler calls it as it adds constants).
    pub fn note_constant(&mut self, index: u16, type_name: &'static str) {
        let i = usize::from(index);
        if self.constant_types.len() <= i {
            self.constant_types.resize(i + 1, "");
        }
        self.constant_types[i] = type_name;
    }
    /// The type of constant `index` as noted ("" when unknown: the general variant).
    fn constant_type_name(&self, index: u16) -> &'static str {
        self.constant_types.get(usize::from(index)).copied().unwrap_or("")
    }
    fn begin(&mut self, opcode: u16) -> u32 {
        let start = self.position();
        self.push_u16(opcode);
        start
    }
    /// Used by generated `create_*` methods of specs with 1-byte literals (none today).
    #[allow(dead_code)]
    fn push_u8(&mut self, v: u8) {
        self.code.push(v);
    }
    fn push_u16(&mut self, v: u16) {
        self.code.extend_from_slice(&v.to_le_bytes());
    }
    fn push_u32(&mut self, v: u32) {
        self.code.extend_from_slice(&v.to_le_bytes());
    }
    /// An inline cache's bytes: empty (zero) until the handler fills them.
    fn push_zeros(&mut self, n: usize) {
        self.code.resize(self.code.len() + n, 0);
    }
    /// An empty call inline cache (`interp-call-ic`): a key no callee can equal, no code block.
    fn push_empty_call_ic(&mut self) {
        self.code.extend_from_slice(&EMPTY_CALL_IC);
    }
    /// Points the branch of `at` to the instruction starting at `target`.
    pub fn patch_branch(&mut self, at: Emitted, target: u32) {
        let field = at.branch_field.expect("patching a bytecode that does not branch") as usize;
        let delta = target as i64 - i64::from(at.start);
        self.code[field..field + 4].copy_from_slice(&(delta as i32).to_le_bytes());
    }
    /// Switches the instruction at `at` to `opcode`, a variant of the same bytecode with the
    /// same layout (e.g. a literal fixed by both; the caller guarantees it).
    pub fn set_opcode(&mut self, at: u32, opcode: u16) {
        let at = at as usize;
        debug_assert_eq!(
            variants()[usize::from(u16::from_le_bytes([self.code[at], self.code[at + 1]]))].length,
            variants()[usize::from(opcode)].length,
            "set_opcode keeps the layout"
        );
        self.code[at..at + 2].copy_from_slice(&opcode.to_le_bytes());
    }
    /// The opcode of the instruction at `at`.
    pub fn opcode_at(&self, at: u32) -> u16 {
        let at = at as usize;
        u16::from_le_bytes([self.code[at], self.code[at + 1]])
    }
    pub fn finish(self) -> Vec<u8> {
        self.code
    }
}

include!(concat!(env!("OUT_DIR"), "/interpreter/bytecode_builder.rs"));

/// The bytes of an empty call inline cache: the key [`lua51_value::CALL_IC_EMPTY`], then a null
/// code block.
pub const EMPTY_CALL_IC: [u8; deegen_bytecode_spec::CALL_IC_BYTES as usize] = {
    let mut b = [0u8; deegen_bytecode_spec::CALL_IC_BYTES as usize];
    let key = lua51_value::CALL_IC_EMPTY.to_le_bytes();
    let mut i = 0;
    while i < 8 {
        b[i] = key[i];
        i += 1;
    }
    b
};

/// The variant of the same bytecode as `opcode` that differs from it only in its `close`
/// literal being 0 where `opcode`'s is 1 (a return or tail call of a function that turns out
/// to make no closures): same layout, every other operand alike. Found once per opcode: the
/// search over every variant cost the compiler about 1,200 instructions per return.
pub fn close0_twin(opcode: u16) -> Option<u16> {
    static TWINS: std::sync::OnceLock<Vec<Option<u16>>> = std::sync::OnceLock::new();
    TWINS.get_or_init(|| variants().iter().map(find_close0_twin).collect()).get(usize::from(opcode)).copied().flatten()
}

fn find_close0_twin(v: &Variant) -> Option<u16> {
    variants()
        .iter()
        .find(|w| {
            w.bytecode == v.bytecode
                && w.length == v.length
                && w.operands.len() == v.operands.len()
                && w.operands.iter().zip(&v.operands).all(|(a, b)| {
                    a.name == b.name
                        && if a.name == "close" {
                            a.fixed == Some(0) && b.fixed == Some(1)
                        } else {
                            a.fixed == b.fixed && a.access == b.access && a.offset == b.offset && a.width == b.width
                        }
                })
        })
        .map(|w| w.opcode)
}

/// The variants, parsed once from the generated table.
pub fn variants() -> &'static [Variant] {
    static VARIANTS: std::sync::OnceLock<Vec<Variant>> = std::sync::OnceLock::new();
    VARIANTS.get_or_init(|| VARIANT_TEXT.iter().map(|t| Variant::parse(t).expect("generated variant text parses")).collect())
}

/// For each opcode: its length, and the offset of its call inline cache if it has one (what the
/// collector walks to forget dead callees).
pub fn call_ic_layouts() -> &'static [(u32, Option<u32>)] {
    static LAYOUTS: std::sync::OnceLock<Vec<(u32, Option<u32>)>> = std::sync::OnceLock::new();
    LAYOUTS.get_or_init(|| variants().iter().map(|v| (v.length, v.call_ic_offset)).collect())
}

/// The offset of every instruction of `code`, in order (a bad opcode ends the list).
pub fn instruction_offsets(code: &[u8]) -> impl Iterator<Item = usize> + '_ {
    let mut pc = 0;
    std::iter::from_fn(move || {
        if pc + 2 > code.len() {
            return None;
        }
        let v = variants().get(read_operand(code, pc, 2, false) as usize)?;
        let at = pc;
        pc += v.length as usize;
        Some(at)
    })
}

/// Whether the instruction at `offset` calls the value in its first operand's slot (a call, a
/// tail call or a generic `for`'s iterator call), as opposed to calling a metamethod.
pub fn is_call_instruction(code: &[u8], offset: usize) -> bool {
    if offset + 2 > code.len() {
        return false;
    }
    let opcode = read_operand(code, offset, 2, false) as usize;
    variants().get(opcode).is_some_and(|v| matches!(v.bytecode.as_str(), "Call" | "CallVarArgs" | "TailCall" | "TailCallVarArgs" | "ForIn"))
}

/// The `width`-byte little-endian field at `offset`, sign-extended when `signed`.
pub(crate) fn read_operand(code: &[u8], offset: usize, width: u32, signed: bool) -> i64 {
    let b = &code[offset..offset + width as usize];
    match (width, signed) {
        (1, false) => i64::from(b[0]),
        (1, true) => i64::from(b[0] as i8),
        (2, false) => i64::from(u16::from_le_bytes([b[0], b[1]])),
        (2, true) => i64::from(i16::from_le_bytes([b[0], b[1]])),
        (4, false) => i64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        (8, _) => i64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]),
        _ => i64::from(i32::from_le_bytes([b[0], b[1], b[2], b[3]])),
    }
}

/// One line per instruction: `offset  Name  operands  -> out / => target`.
pub fn disassemble(code: &[u8], describe_constant: &dyn Fn(u16) -> String) -> String {
    let mut out = String::new();
    let mut pc = 0usize;
    while pc + 2 <= code.len() {
        let opcode = read_operand(code, pc, 2, false) as usize;
        let Some(v) = variants().get(opcode) else {
            out.push_str(&format!("{pc:5}  <bad opcode {opcode}>\n"));
            break;
        };
        let mut parts = Vec::new();
        for o in &v.operands {
            if let Some(value) = o.fixed {
                parts.push(format!("{}={value}", o.name));
                continue;
            }
            if o.access == OperandAccess::InlineCache {
                // One hexadecimal word per entry (a key and a state), however many entries.
                let start = pc + o.offset as usize;
                let bytes = code.get(start..(start + o.width as usize).min(code.len())).unwrap_or(&[]);
                let words: Vec<String> =
                    bytes.chunks(8).map(|c| format!("{:#x}", c.iter().rev().fold(0u64, |a, &b| a << 8 | u64::from(b)))).collect();
                parts.push(format!("{}=ic:{}", o.name, words.join(",")));
                continue;
            }
            let raw = read_operand(code, pc + o.offset as usize, o.width, matches!(o.access, OperandAccess::Literal { signed: true }));
            parts.push(match o.access {
                OperandAccess::Slot | OperandAccess::SlotRef => format!("{}=r{raw}", o.name),
                OperandAccess::Constant => format!("{}={}", o.name, describe_constant(raw as u16)),
                OperandAccess::Literal { .. } => format!("{}={raw}", o.name),
                OperandAccess::InlineCache => unreachable!("printed above"),
            });
        }
        if let Some(o) = v.output_offset {
            parts.push(format!("-> r{}", read_operand(code, pc + o as usize, 2, false)));
        }
        if let (ResultKind::Branch, Some(o)) = (v.result, v.branch_offset) {
            parts.push(format!("=> {}", pc as i64 + read_operand(code, pc + o as usize, 4, true)));
        }
        if let Some(o) = v.call_ic_offset {
            let callee = read_operand(code, pc + o as usize, 8, false) as u64;
            // Whether it is filled, not the address (which differs from run to run).
            parts.push(if callee == lua51_value::CALL_IC_EMPTY { "callic:empty" } else { "callic:filled" }.to_owned());
        }
        out.push_str(&format!("{pc:5}  {:<14} {}\n", v.name, parts.join(" ")));
        pc += v.length as usize;
    }
    out
}
