//! Compiles the AST of `lua51-syntax` to bytecode, through the generated builder.
//!
//! Register allocation follows PUC Lua: locals get consecutive slots in declaration order, and
//! temporaries sit above them (`free_reg`), released at the end of each statement. Calls are
//! built in place: the callee in slot `f`, three slots for the frame header, arguments from
//! `f + 4`. Conditions compile to jump lists (`cond_jump`) so `if a < b` is one `JumpIfNotLt`.

use std::collections::HashMap;

use lua51_syntax::ast::{BinOp, Block, Chunk, Expr, ExprKind, FuncBody, FuncName, Stat, StatKind, TableField, UnOp};
use lua51_value::{TValue, MULTRET};

use crate::bytecode::{BytecodeBuilder, Emitted, Operand};
use crate::object::function::{new_closure, DebugName, LocalVarInfo, Proto, UpvalDesc, VarInfo, PROLOGUE_LINE};
use crate::runtime::vararg_packer;
use crate::state::LuaState;

/// A program the compiler cannot translate (limits, or constructs not yet supported).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompileError {
    pub message: String,
}

impl std::fmt::Display for CompileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for CompileError {}

type Result<T> = std::result::Result<T, CompileError>;

/// Lua 5.1's `MAXSTACK`-like limit on slots per function.
const MAX_SLOTS: u16 = 250;
/// `LUAI_MAXVARS`.
const MAX_LOCALS: usize = 200;
/// `LUAI_MAXUPVALUES`.
const MAX_UPVALUES: usize = 60;
/// lua5.1's `MAXARG_Bx`: constants per function.
const MAX_CONSTANTS: usize = (1 << 18) - 1;
const HEADER: u16 = deegen_api::FRAME_HEADER_SLOTS as u16;
/// The names of a generic `for`'s hidden locals (5.1's, which `debug.getlocal` shows; the
/// debug library finds a loop's slots by them).
pub(crate) const FOR_GENERATOR: &str = "(for generator)";
pub(crate) const FOR_STATE: &str = "(for state)";
pub(crate) const FOR_CONTROL: &str = "(for control)";

struct LocalVar {
    name: Vec<u8>,
    slot: u16,
    /// Its entry in `FuncState::locvars`.
    info: usize,
}

struct BlockScope {
    first_local: usize,
    first_slot: u16,
    is_loop: bool,
    breaks: Vec<Emitted>,
    has_upval: bool,
}

struct FuncState {
    b: BytecodeBuilder,
    constants: Vec<TValue>,
    const_map: HashMap<u64, u32, lua51_syntax::names::BuildNameHasher>,
    lines: Vec<(u32, u32)>,
    names: Vec<(u32, u8, VarInfo)>,
    actives: Vec<LocalVar>,
    /// Every local's scope, for `debug.getlocal`.
    locvars: Vec<LocalVarInfo>,
    blocks: Vec<BlockScope>,
    free_reg: u16,
    max_regs: u16,
    upvalues: Vec<(Vec<u8>, UpvalDesc)>,
    /// Boxed: a prototype never moves once built (its code block points into it).
    #[allow(clippy::vec_box)]
    children: Vec<Box<Proto>>,
    line: u32,
    /// Where the returns and tail calls are: they close captured locals, unless the function
    /// turns out to make no closures.
    closing: Vec<u32>,
}

/// Where an assignment stores.
enum Place {
    /// A variable, by name (the parser's shared string: no copy per assignment).
    Var(lua51_syntax::ast::LuaStr),
    Field {
        table: u16,
        key: Operand,
        info: Option<VarInfo>,
    },
}

enum Var {
    Local(u16),
    Upvalue(u16),
    Global,
}

/// Compiles a parsed chunk into a function value (a closure over the globals): the path of
/// `load` with a reader function, which parses the whole chunk before compiling it. Source
/// text is compiled as it is parsed, by [`compile_source`].
pub fn compile_chunk(st: &mut LuaState, chunk: Chunk, chunk_name: &str) -> Result<TValue> {
    let mut c = Compiler::new(st, chunk_name);
    c.open_main();
    for s in &chunk.body.stats {
        c.block_stat(s)?;
    }
    c.close_main(chunk.end_line)
}

/// Why [`compile_source`] failed: the source's syntax error, or a compile error.
#[derive(Debug)]
pub enum LoadError {
    Syntax(Box<lua51_syntax::SyntaxError>),
    Compile(CompileError),
}

impl LoadError {
    /// The message, as `lua5.1` prints it (a syntax error's bytes are the source's).
    pub fn into_bytes(self) -> Vec<u8> {
        match self {
            LoadError::Syntax(e) => e.to_bytes(),
            LoadError::Compile(e) => e.message.into_bytes(),
        }
    }
}

/// Parses and compiles the source text `source` into a function, one top-level statement at
/// a time ([`lua51_syntax::parse_chunk_each`]): each statement's tree is compiled and dropped
/// before the next is parsed, as lua5.1's one-pass compiler never holds more than the
/// statement at hand. A large file's tree was all in memory at once: allocated, compiled
/// from cold memory and freed again, most of its load time. `syntax_name` is the chunk's
/// name in syntax errors, `chunk_name` in compile errors and debug information.
pub fn compile_source(
    st: &mut LuaState,
    source: &[u8],
    syntax_name: &[u8],
    options: &lua51_syntax::ParseOptions,
    chunk_name: &str,
) -> std::result::Result<TValue, LoadError> {
    let mut c = Compiler::new(st, chunk_name);
    c.open_main();
    match lua51_syntax::parse_chunk_each(source, syntax_name, options, |s| c.block_stat(&s)) {
        Ok(end) => c.close_main(end.end_line).map_err(LoadError::Compile),
        Err(lua51_syntax::EachError::Syntax(e)) => Err(LoadError::Syntax(e)),
        Err(lua51_syntax::EachError::Sink(e)) => Err(LoadError::Compile(e)),
    }
}

fn oom() -> CompileError {
    CompileError { message: "not enough memory".into() }
}

struct Compiler<'s> {
    st: &'s mut LuaState,
    funcs: Vec<FuncState>,
    source: String,
    /// The debug names made so far, by their bytes: every use of a variable is named in the
    /// function's debug information, and a string per use was a sixth of the compiler's
    /// allocations.
    debug_names: HashMap<Vec<u8>, DebugName, lua51_syntax::names::BuildNameHasher>,
}

fn name_str(n: &[u8]) -> String {
    String::from_utf8_lossy(n).into_owned()
}

impl<'s> Compiler<'s> {
    /// The debug name of the bytes `n` (lossily UTF-8), shared with earlier ones.
    fn debug_name(&mut self, n: &[u8]) -> DebugName {
        if let Some(d) = self.debug_names.get(n) {
            return d.clone();
        }
        let d: DebugName = name_str(n).into();
        self.debug_names.insert(n.to_vec(), d.clone());
        d
    }

    fn fs(&mut self) -> &mut FuncState {
        self.funcs.last_mut().expect("inside a function")
    }

    fn error(&self, line: u32, message: impl Into<String>) -> CompileError {
        CompileError { message: format!("{}:{}: {}", self.source, line, message.into()) }
    }

    // --- functions -----------------------------------------------------------------------

    fn new(st: &'s mut LuaState, chunk_name: &str) -> Self {
        Compiler { st, funcs: Vec::new(), source: chunk_name.to_owned(), debug_names: HashMap::default() }
    }

    /// Starts the main function: no parameters, variable arguments without `arg`; its
    /// statements follow, each through [`Self::block_stat`].
    fn open_main(&mut self) {
        self.open_function(0);
        self.open_block(false);
    }

    /// Ends the main function, whose last token is on `end_line`, and makes the chunk's
    /// closure (in the loading thread's global table, as 5.1's `lua_load`).
    fn close_main(mut self, end_line: u32) -> Result<TValue> {
        let proto = self.close_function(0, end_line, 0, true)?;
        let proto = Box::leak(proto);
        let root: *const Proto = proto;
        proto.set_root(root);
        // Owned by the state from here: the collector frees the chunk once no closure of it lives.
        self.st.register_chunk(root as *mut Proto);
        let globals = self.st.globals;
        let closure = new_closure(&mut self.st.heap, proto.code_block(), 0, globals).map_err(|_| oom())?;
        Ok(TValue::from_function(closure))
    }

    fn function(&mut self, body: &FuncBody, self_param: Option<&[u8]>) -> Result<Box<Proto>> {
        self.open_function(body.line_defined);
        let params: Vec<&[u8]> = self_param.into_iter().chain(body.params.iter().map(|p| p.as_bytes())).collect();
        for p in &params {
            let slot = self.alloc_reg(body.line_defined)?;
            self.add_local(p, slot, body.line_defined)?;
        }
        if body.is_vararg && body.line_defined != 0 {
            self.compat_vararg_arg(body)?;
        }
        self.open_block(false);
        self.block_stats(&body.body)?;
        self.close_function(body.line_defined, body.last_line_defined, params.len() as u32, body.is_vararg)
    }

    fn open_function(&mut self, line_defined: u32) {
        self.funcs.push(FuncState {
            b: BytecodeBuilder::new(),
            constants: Vec::new(),
            const_map: HashMap::default(),
            lines: Vec::new(),
            names: Vec::new(),
            actives: Vec::new(),
            locvars: Vec::new(),
            blocks: Vec::new(),
            free_reg: 0,
            max_regs: 0,
            upvalues: Vec::new(),
            children: Vec::new(),
            line: line_defined,
            closing: Vec::new(),
        });
    }

    /// Ends the function [`Self::open_function`] began, whose outermost block is open: its
    /// final return, then its prototype.
    fn close_function(&mut self, line_defined: u32, last_line_defined: u32, num_params: u32, is_vararg: bool) -> Result<Box<Proto>> {
        self.close_block()?;
        self.fs().line = last_line_defined;
        self.emit_return(0, 0)?;
        let mut fs = self.funcs.pop().expect("pushed above");
        if fs.children.is_empty() {
            // No closures: no local of this function's frames is ever captured, so its returns
            // and tail calls have nothing to close.
            for &at in &fs.closing {
                let twin = crate::bytecode::close0_twin(fs.b.opcode_at(at)).expect("every return and tail call variant has a close-0 twin");
                fs.b.set_opcode(at, twin);
            }
        }
        let locvars = fs.locvars;
        let mut proto = Proto::new(
            self.source.clone(),
            line_defined,
            last_line_defined,
            num_params,
            is_vararg,
            u32::from(fs.max_regs) + 1,
            fs.b.finish(),
            fs.constants,
            fs.lines,
            fs.names,
            fs.upvalues.into_iter().map(|(n, d)| (name_str(&n), d)).collect(),
            fs.children,
        );
        proto.locvars = locvars;
        Ok(proto)
    }

    /// Lua 5.1's LUA_COMPAT_VARARG: a vararg function has a hidden local `arg` after its
    /// parameters, holding `{...; n = select('#', ...)}` when the body never uses `...` (and
    /// nil when it does).
    ///
    /// 5.1 makes that table on entry, without instructions: these have no line (0), so that
    /// debug hooks and `activelines` see the function as 5.1 does.
    fn compat_vararg_arg(&mut self, body: &FuncBody) -> Result<()> {
        let line = body.line_defined;
        let saved_line = std::mem::replace(&mut self.fs().line, PROLOGUE_LINE);
        let slot = self.alloc_reg(line)?;
        if body.uses_vararg {
            self.emit_nil(slot)?;
        } else {
            let pack = vararg_packer(self.st).map_err(|_| oom())?;
            let call = self.alloc_reg(line)?;
            self.emit_constant(pack, call, line)?;
            self.alloc_regs(HEADER - 1, line)?;
            let args = self.fs().free_reg;
            self.alloc_reg(line)?;
            let em = self.fs().b.create_var_arg(args, MULTRET as u16);
            self.mark(em, "VarArg")?;
            let em = self.fs().b.create_call_var_args(call, 0, 1);
            self.mark(em, "CallVarArgs")?;
            self.emit_mov(Operand::Slot(call), slot)?;
            self.fs().free_reg = slot + 1;
        }
        self.fs().line = saved_line;
        self.add_local(b"arg", slot, line)
    }

    // --- registers, locals, constants ----------------------------------------------------

    fn alloc_reg(&mut self, line: u32) -> Result<u16> {
        let fs = self.fs();
        if fs.free_reg >= MAX_SLOTS {
            return Err(self.error(line, "function or expression too complex"));
        }
        let fs = self.fs();
        let r = fs.free_reg;
        fs.free_reg += 1;
        fs.max_regs = fs.max_regs.max(fs.free_reg);
        Ok(r)
    }

    fn alloc_regs(&mut self, n: u16, line: u32) -> Result<u16> {
        let first = self.fs().free_reg;
        for _ in 0..n {
            self.alloc_reg(line)?;
        }
        Ok(first)
    }

    fn add_local(&mut self, name: &[u8], slot: u16, line: u32) -> Result<()> {
        if self.fs().actives.len() >= MAX_LOCALS {
            return Err(self.error(line, "too many local variables"));
        }
        let start = self.here();
        let debug_name = self.debug_name(name);
        let fs = self.fs();
        fs.locvars.push(LocalVarInfo { name: debug_name, slot, start, end: u32::MAX });
        let info = fs.locvars.len() - 1;
        fs.actives.push(LocalVar { name: name.to_vec(), slot, info });
        Ok(())
    }

    /// Ends the scope of the active locals from the `keep`-th on.
    fn end_locals(&mut self, keep: usize) {
        let end = self.here();
        let fs = self.fs();
        for l in fs.actives.drain(keep..) {
            fs.locvars[l.info].end = end;
        }
    }

    fn active_local_slot(&mut self, slot: u16) -> bool {
        self.fs().actives.iter().any(|l| l.slot == slot)
    }

    /// The index of constant `v` in the function's table, added if new. Like lua5.1 (whose
    /// `LOADK` takes an 18-bit index) a function holds up to `MAXARG_Bx` constants; the
    /// message has no position, as 5.1 raises it as a runtime error of the loading function.
    fn constant(&mut self, v: TValue, _line: u32) -> Result<u32> {
        // Like lua5.1's constant table (keyed by number value), `-0` and `0` share one constant:
        // whichever the function mentions first.
        let key = if v.is_double() && v.as_f64() == 0.0 { 0 } else { v.raw() };
        if let Some(&k) = self.fs().const_map.get(&key) {
            return Ok(k);
        }
        let fs = self.fs();
        if fs.constants.len() >= MAX_CONSTANTS {
            return Err(CompileError { message: "constant table overflow".to_owned() });
        }
        let k = fs.constants.len() as u32;
        fs.constants.push(v);
        fs.const_map.insert(key, k);
        // Variants specialised on a constant's type are chosen from it (only 16-bit constant
        // operands exist; a wider index is loaded into a slot first).
        if let Ok(narrow) = u16::try_from(k) {
            fs.b.note_constant(narrow, lua51_value::type_name(v));
        }
        Ok(k)
    }

    /// For constant `k` a number that is a power of two whose reciprocal is one too (`2`,
    /// `0.5`, `-4`; not `2^-1074`, whose reciprocal overflows), the constant operand of `1/k`
    /// (added to the table if new): `x / k` and `x % k` then multiply by it (`DivPow2`,
    /// `ModPow2`), with the division's result bit for bit. `None` for any other constant, and
    /// when `1/k` would need an index past an operand's 16 bits (so a table that lua5.1
    /// accepts never overflows here for the extra constant: the limit is 2^18).
    fn power_of_two_inverse(&mut self, k: u16, line: u32) -> Result<Option<u16>> {
        let v = self.fs().constants[usize::from(k)];
        if !v.is_double() {
            return Ok(None);
        }
        let x = v.as_f64();
        let inverse = 1.0 / x;
        if !is_power_of_two(x.abs()) || !is_power_of_two(inverse.abs()) {
            return Ok(None);
        }
        let known = self.fs().const_map.contains_key(&TValue::from_f64(inverse).raw());
        if !known && self.fs().constants.len() >= usize::from(u16::MAX) {
            return Ok(None);
        }
        let index = self.constant(TValue::from_f64(inverse), line)?;
        Ok(u16::try_from(index).ok())
    }

    fn string_constant(&mut self, s: &[u8], line: u32) -> Result<u32> {
        let v = self.st.intern(s).map_err(|_| oom())?;
        self.constant(v, line)
    }

    /// An operand for constant `v`: the constant itself when its index fits an operand, else
    /// a temporary slot it is loaded into (5.1's `luaK_exp2RK` falls back to a register the
    /// same way past `MAXINDEXRK`).
    fn constant_operand(&mut self, v: TValue, line: u32) -> Result<Operand> {
        let k = self.constant(v, line)?;
        if let Ok(narrow) = u16::try_from(k) {
            return Ok(Operand::Const(narrow));
        }
        let r = self.alloc_reg(line)?;
        self.emit_load_wide(k, r)?;
        Ok(Operand::Slot(r))
    }

    fn string_operand(&mut self, s: &[u8], line: u32) -> Result<Operand> {
        let v = self.st.intern(s).map_err(|_| oom())?;
        self.constant_operand(v, line)
    }

    /// Loads constant `v` into slot `dst`.
    fn emit_constant(&mut self, v: TValue, dst: u16, line: u32) -> Result<()> {
        let k = self.constant(v, line)?;
        match u16::try_from(k) {
            Ok(narrow) => self.emit_mov(Operand::Const(narrow), dst),
            Err(_) => self.emit_load_wide(k, dst),
        }
    }

    fn emit_load_wide(&mut self, k: u32, dst: u16) -> Result<()> {
        let e = self.fs().b.create_load_const_wide(k, dst);
        self.mark(e, "LoadConstWide").map(|_| ())
    }

    fn find_var(&mut self, level: usize, name: &[u8]) -> Option<Var> {
        if let Some(l) = self.funcs[level].actives.iter().rev().find(|l| l.name == name) {
            return Some(Var::Local(l.slot));
        }
        if let Some(i) = self.funcs[level].upvalues.iter().position(|(n, _)| n == name) {
            return Some(Var::Upvalue(i as u16));
        }
        if level == 0 {
            return None;
        }
        let desc = match self.find_var(level - 1, name)? {
            Var::Local(slot) => {
                let parent = &mut self.funcs[level - 1];
                let idx = parent.actives.iter().rposition(|l| l.name == name).expect("found above");
                if let Some(b) = parent.blocks.iter_mut().rev().find(|b| b.first_local <= idx) {
                    b.has_upval = true;
                }
                UpvalDesc { in_stack: true, index: slot }
            }
            Var::Upvalue(i) => UpvalDesc { in_stack: false, index: i },
            Var::Global => return None,
        };
        if self.funcs[level].upvalues.len() >= MAX_UPVALUES {
            return None;
        }
        self.funcs[level].upvalues.push((name.to_vec(), desc));
        Some(Var::Upvalue((self.funcs[level].upvalues.len() - 1) as u16))
    }

    fn resolve(&mut self, name: &[u8]) -> Var {
        let level = self.funcs.len() - 1;
        self.find_var(level, name).unwrap_or(Var::Global)
    }

    // --- emission ------------------------------------------------------------------------

    fn mark(&mut self, e: Option<Emitted>, what: &str) -> Result<Emitted> {
        // (The global allocator's reserve was spent: stop before the next allocation fails
        // for good. See `object::cushion`.)
        if crate::object::cushion::exhausted() {
            return Err(oom());
        }
        let Some(e) = e else {
            let line = self.fs().line;
            return Err(self.error(line, format!("internal error: no variant of {what} for these operands")));
        };
        let fs = self.fs();
        let line = fs.line;
        if fs.lines.last().is_none_or(|&(_, l)| l != line) {
            fs.lines.push((e.start, line));
        }
        Ok(e)
    }

    /// The string constant `k` is, if `k` is one (`t.name` gets GetField/SetField).
    fn string_key(&mut self, k: Operand) -> Option<u16> {
        match k {
            Operand::Const(c) if self.fs().constants[usize::from(c)].is_string() => Some(c),
            _ => None,
        }
    }

    /// The index `k` is, if it is a constant integer in `1..=65535` (`t[1]` gets
    /// GetTableInt/SetTableInt; the constant stays in the table, as 5.1 puts it there).
    fn int_key(&mut self, k: Operand) -> Option<u16> {
        let Operand::Const(c) = k else { return None };
        let v = self.fs().constants[usize::from(c)];
        if !v.is_double() {
            return None;
        }
        let x = v.as_f64();
        (x >= 1.0 && x <= f64::from(u16::MAX) && x.fract() == 0.0).then_some(x as u16)
    }

    /// `dst = t[k]`.
    fn emit_get_index(&mut self, t: u16, k: Operand, dst: u16) -> Result<Emitted> {
        let em = match (self.string_key(k), self.int_key(k)) {
            (Some(name), _) => self.fs().b.create_get_field(t, name, dst),
            (None, Some(index)) => self.fs().b.create_get_table_int(t, index, dst),
            (None, None) => self.fs().b.create_get_table(t, k, dst),
        };
        self.mark(em, "GetTable")
    }

    /// `t[k] = v`.
    fn emit_set_index(&mut self, t: u16, k: Operand, v: Operand) -> Result<Emitted> {
        let em = match (self.string_key(k), self.int_key(k)) {
            (Some(name), _) => self.fs().b.create_set_field(t, name, v),
            (None, Some(index)) => self.fs().b.create_set_table_int(t, index, v),
            (None, None) => self.fs().b.create_set_table(t, k, v),
        };
        self.mark(em, "SetTable")
    }

    fn name_operand(&mut self, at: Emitted, operand: u8, info: Option<VarInfo>) {
        if let Some(info) = info {
            self.fs().names.push((at.start, operand, info));
        }
    }

    fn here(&mut self) -> u32 {
        self.fs().b.position()
    }

    fn patch_here(&mut self, jumps: Vec<Emitted>) {
        let target = self.here();
        for j in jumps {
            self.fs().b.patch_branch(j, target);
        }
    }

    fn emit_jump(&mut self) -> Result<Emitted> {
        let e = self.fs().b.create_jump();
        self.mark(e, "Jump")
    }

    fn emit_mov(&mut self, src: Operand, dst: u16) -> Result<()> {
        if src != Operand::Slot(dst) {
            let e = self.fs().b.create_mov(src, dst);
            self.mark(e, "Mov")?;
        }
        Ok(())
    }

    fn emit_return(&mut self, first: u16, count: u16) -> Result<()> {
        let e = self.fs().b.create_return(first, count, 1);
        let e = self.mark(e, "Return")?;
        self.fs().closing.push(e.start);
        Ok(())
    }

    fn emit_nil(&mut self, dst: u16) -> Result<()> {
        let line = self.fs().line;
        self.emit_constant(TValue::NIL, dst, line)
    }

    // --- blocks and statements -----------------------------------------------------------

    fn open_block(&mut self, is_loop: bool) {
        let fs = self.fs();
        let b = BlockScope { first_local: fs.actives.len(), first_slot: fs.free_reg, is_loop, breaks: Vec::new(), has_upval: false };
        fs.blocks.push(b);
    }

    /// Leaves a scope: closes captured locals and frees its slots. Returns the scope's `break`
    /// jumps, which the loop statement patches once its back-jump is written.
    fn close_block(&mut self) -> Result<Vec<Emitted>> {
        let block = self.fs().blocks.pop().expect("block opened");
        if block.has_upval {
            let e = self.fs().b.create_close(block.first_slot);
            self.mark(e, "Close")?;
        }
        self.end_locals(block.first_local);
        let fs = self.fs();
        fs.free_reg = block.first_slot;
        Ok(block.breaks)
    }

    fn block_stats(&mut self, block: &Block) -> Result<()> {
        for s in &block.stats {
            self.block_stat(s)?;
        }
        Ok(())
    }

    /// One statement of the innermost open block; the registers it used are free after it.
    fn block_stat(&mut self, s: &Stat) -> Result<()> {
        self.stat(s)?;
        let fs = self.fs();
        fs.free_reg = fs
            .actives
            .last()
            .map_or_else(|| fs.blocks.last().map_or(0, |b| b.first_slot), |l| l.slot + 1)
            .max(fs.blocks.last().map_or(0, |b| b.first_slot));
        Ok(())
    }

    fn scoped_block(&mut self, block: &Block, is_loop: bool) -> Result<Vec<Emitted>> {
        self.open_block(is_loop);
        self.block_stats(block)?;
        self.close_block()
    }

    fn stat(&mut self, s: &Stat) -> Result<()> {
        self.fs().line = s.line;
        match &s.kind {
            StatKind::Local { names, values } => self.local_stat(names.iter().map(|n| n.as_bytes()).collect(), values, s.line),
            StatKind::LocalFunction { name, func } => {
                let slot = self.alloc_reg(s.line)?;
                self.add_local(name.as_bytes(), slot, s.line)?;
                self.closure(func, slot)
            }
            StatKind::Function { name, func } => self.function_stat(name, func, s.line),
            StatKind::Assign { targets, values } => self.assign(targets, values, s.line),
            StatKind::Call(call) => {
                self.call(call, 0)?;
                Ok(())
            }
            StatKind::Do(block) => self.scoped_block(block, false).map(|_| ()),
            StatKind::While { cond, body } => {
                let start = self.here();
                let exits = self.cond_jump(cond, false)?;
                let breaks = self.scoped_block(body, true)?;
                let back = self.emit_jump()?;
                self.fs().b.patch_branch(back, start);
                self.patch_here(exits);
                self.patch_here(breaks);
                Ok(())
            }
            StatKind::Repeat { body, cond } => self.repeat(body, cond),
            StatKind::If { clauses, else_block } => {
                let mut to_end = Vec::new();
                for (i, clause) in clauses.iter().enumerate() {
                    self.fs().line = clause.cond.line;
                    let skip = self.cond_jump(&clause.cond, false)?;
                    self.scoped_block(&clause.body, false)?;
                    if i + 1 < clauses.len() || else_block.is_some() {
                        to_end.push(self.emit_jump()?);
                    }
                    self.patch_here(skip);
                }
                if let Some(b) = else_block {
                    self.scoped_block(b, false)?;
                }
                self.patch_here(to_end);
                Ok(())
            }
            StatKind::NumericFor(f) => self.numeric_for(f.var.as_bytes(), &f.start, &f.limit, f.step.as_ref(), &f.body, s.line),
            StatKind::GenericFor { vars, exprs, body, iter_line } => {
                let vars: Vec<&[u8]> = vars.iter().map(|v| v.as_bytes()).collect();
                self.generic_for(&vars, exprs, body, *iter_line, s.line)
            }
            StatKind::Return(values) => self.return_stat(values, s.line),
            StatKind::Break => {
                let fs = self.fs();
                let Some(loop_index) = fs.blocks.iter().rposition(|b| b.is_loop) else {
                    return Err(self.error(s.line, "no loop to break"));
                };
                let needs_close = fs.blocks[loop_index..].iter().any(|b| b.has_upval);
                let first_slot = fs.blocks[loop_index].first_slot;
                if needs_close {
                    let e = self.fs().b.create_close(first_slot);
                    self.mark(e, "Close")?;
                }
                let j = self.emit_jump()?;
                self.fs().blocks[loop_index].breaks.push(j);
                Ok(())
            }
        }
    }

    fn local_stat(&mut self, names: Vec<&[u8]>, values: &[Expr], line: u32) -> Result<()> {
        let base = self.explist_to_slots(values, names.len(), line)?;
        for (i, name) in names.iter().enumerate() {
            self.add_local(name, base + i as u16, line)?;
        }
        Ok(())
    }

    /// Evaluates `values` into `n` consecutive slots at the top of the frame, as 5.1's
    /// `adjust_assign` does: a trailing call or `...` supplies the missing values, extra values
    /// are evaluated and dropped, values still missing are nil. Returns the first slot.
    fn explist_to_slots(&mut self, values: &[Expr], n: usize, line: u32) -> Result<u16> {
        let base = self.fs().free_reg;
        for (i, v) in values.iter().enumerate() {
            let is_last = i + 1 == values.len();
            if is_last && i < n && n > values.len() && is_multi(v) {
                self.fixed_values(v, base + i as u16, (n - i) as u16)?;
                break;
            }
            let r = self.exp_to_next_reg(v)?;
            if i >= n {
                self.fs().free_reg = r;
            }
        }
        // Nils that open a function have no line: 5.1 emits no instruction for them (its
        // frames start out nil), so debug hooks must not see them.
        let saved_line = self.fs().line;
        if self.fs().b.position() == 0 {
            self.fs().line = PROLOGUE_LINE;
        }
        while self.fs().free_reg < base + n as u16 {
            let r = self.alloc_reg(line)?;
            self.emit_nil(r)?;
        }
        self.fs().line = saved_line;
        self.fs().free_reg = base + n as u16;
        Ok(base)
    }

    fn function_stat(&mut self, name: &FuncName, func: &FuncBody, line: u32) -> Result<()> {
        let mut path: Vec<&[u8]> = name.fields.iter().map(|f| f.as_bytes()).collect();
        if let Some(m) = &name.method {
            path.push(m.as_bytes());
        }
        let Some((last, prefix)) = path.split_last() else {
            let r = self.alloc_reg(line)?;
            self.closure(func, r)?;
            return self.store_var(name.base.as_bytes(), r, line);
        };
        // `function a.b.c:m()`: evaluate `a.b.c`, then store the closure in its field `m`.
        let t = self.alloc_reg(line)?;
        let base_expr = Expr { line: name.base_line, end_line: name.base_line, kind: ExprKind::Name(name.base.clone()) };
        self.exp_to_reg(&base_expr, t)?;
        for field in prefix {
            let saved = self.fs().free_reg;
            let k = self.string_operand(field, line)?;
            self.emit_get_index(t, k, t)?;
            self.fs().free_reg = saved;
        }
        let f = self.alloc_reg(line)?;
        self.closure(func, f)?;
        let k = self.string_operand(last, line)?;
        self.fs().line = line;
        self.emit_set_index(t, k, Operand::Slot(f)).map(|_| ())
    }

    fn closure(&mut self, func: &FuncBody, dst: u16) -> Result<()> {
        let proto = self.function(func, func.is_method.then_some(b"self".as_slice()))?;
        let ptr = &*proto as *const Proto as u64;
        self.fs().children.push(proto);
        let line = self.fs().line;
        let k = self.constant(TValue(ptr), line)?;
        // 5.1 emits the closure once it has read the function's `end`: its line is that one
        // (what `debug.getinfo(f, "L")` and line hooks of the enclosing function see).
        self.fs().line = func.last_line_defined;
        let e = match u16::try_from(k) {
            Ok(narrow) => self.fs().b.create_new_closure(narrow, dst),
            Err(_) => self.fs().b.create_new_closure_wide(k, dst),
        };
        let r = self.mark(e, "NewClosure").map(|_| ());
        self.fs().line = line;
        r
    }

    /// Stores slot `src` into the variable `name`.
    fn store_var(&mut self, name: &[u8], src: u16, line: u32) -> Result<()> {
        match self.resolve(name) {
            Var::Local(slot) => self.emit_mov(Operand::Slot(src), slot),
            Var::Upvalue(i) => {
                let e = self.fs().b.create_set_upval(i, src);
                self.mark(e, "SetUpval").map(|_| ())
            }
            Var::Global => {
                let k = self.string_constant(name, line)?;
                let e = match u16::try_from(k) {
                    Ok(narrow) => self.fs().b.create_set_global(narrow, src),
                    Err(_) => self.fs().b.create_set_global_wide(k, src),
                };
                self.mark(e, "SetGlobal").map(|_| ())
            }
        }
    }

    fn assign(&mut self, targets: &[Expr], values: &[Expr], line: u32) -> Result<()> {
        // Lua evaluates the tables and keys of the targets before the values.
        let mut places = Vec::new();
        for t in targets {
            places.push(match &t.kind {
                ExprKind::Name(n) => Place::Var(n.clone()),
                ExprKind::Index { object, key } => {
                    let info = self.var_info(object);
                    let (table, _) = self.exp_to_slot(object)?;
                    let (key, _) = self.exp_to_operand(key)?;
                    Place::Field { table, key, info }
                }
                _ => return Err(self.error(t.line, "cannot assign to this expression")),
            });
        }
        // 5.1's check_conflict: an indexed target whose table or key is a local assigned by
        // the same statement must use the local's old value (`t[k], k = v, 2`): copy it now,
        // before any value is stored.
        if places.len() > 1 {
            let assigned: Vec<u16> = places
                .iter()
                .filter_map(|p| match p {
                    Place::Var(name) => match self.resolve(name) {
                        Var::Local(slot) => Some(slot),
                        _ => None,
                    },
                    Place::Field { .. } => None,
                })
                .collect();
            for place in places.iter_mut() {
                let Place::Field { table: table_slot, key: key_slot, .. } = place else { continue };
                let (table, key) = (*table_slot, *key_slot);
                let copy = |this: &mut Self, slot: u16| -> Result<u16> {
                    let r = this.alloc_reg(line)?;
                    this.emit_mov(Operand::Slot(slot), r)?;
                    Ok(r)
                };
                let new_table = if assigned.contains(&table) { copy(self, table)? } else { table };
                let new_key = match key {
                    Operand::Slot(k) if assigned.contains(&k) => Operand::Slot(copy(self, k)?),
                    other => other,
                };
                *table_slot = new_table;
                *key_slot = new_key;
            }
        }
        if places.len() == 1 && values.len() == 1 {
            if let Place::Var(name) = &places[0] {
                if let Var::Local(slot) = self.resolve(name) {
                    return self.exp_to_reg(&values[0], slot);
                }
            }
            let (src, _) = self.exp_to_operand(&values[0])?;
            return self.store_place(&places[0], src, line);
        }
        // Evaluate every value first, then assign, last target first.
        let base = self.explist_to_slots(values, targets.len(), line)?;
        for (i, p) in places.iter().enumerate().rev() {
            self.store_place(p, Operand::Slot(base + i as u16), line)?;
        }
        Ok(())
    }

    fn store_place(&mut self, place: &Place, src: Operand, line: u32) -> Result<()> {
        match place {
            Place::Var(name) => {
                let slot = match src {
                    Operand::Slot(s) => s,
                    c => {
                        let r = self.alloc_reg(line)?;
                        self.emit_mov(c, r)?;
                        r
                    }
                };
                self.store_var(name, slot, line)
            }
            Place::Field { table, key, info } => {
                self.fs().line = line;
                let em = self.emit_set_index(*table, *key, src)?;
                self.name_operand(em, 0, info.clone());
                Ok(())
            }
        }
    }

    fn repeat(&mut self, body: &Block, cond: &Expr) -> Result<()> {
        let start = self.here();
        self.open_block(true);
        self.block_stats(body)?;
        self.fs().line = cond.line;
        let has_upval = self.fs().blocks.last().is_some_and(|b| b.has_upval);
        if has_upval {
            // Close the body's captured locals on both ways out of the condition.
            let exits = self.cond_jump(cond, true)?;
            let first_slot = self.fs().blocks.last().map_or(0, |b| b.first_slot);
            let e = self.fs().b.create_close(first_slot);
            self.mark(e, "Close")?;
            let back = self.emit_jump()?;
            self.fs().b.patch_branch(back, start);
            self.patch_here(exits);
        } else {
            let back = self.cond_jump(cond, false)?;
            for j in back {
                self.fs().b.patch_branch(j, start);
            }
        }
        let breaks = self.close_block()?;
        self.patch_here(breaks);
        Ok(())
    }

    fn numeric_for(&mut self, var: &[u8], start: &Expr, limit: &Expr, step: Option<&Expr>, body: &Block, line: u32) -> Result<()> {
        let base = self.alloc_regs(3, line)?;
        self.exp_to_reg(start, base)?;
        self.exp_to_reg(limit, base + 1)?;
        match step {
            Some(s) => self.exp_to_reg(s, base + 2)?,
            None => {
                self.emit_constant(TValue::from_f64(1.0), base + 2, line)?;
            }
        }
        // Evaluating into fixed slots can leave temporaries allocated above them (`#up - k`
        // puts the upvalue in a scratch slot); the loop variable must sit right after the
        // three control slots, where ForPrep/ForLoop write it.
        self.fs().free_reg = base + 3;
        self.fs().line = line;
        let prep = self.fs().b.create_for_prep(base);
        let prep = self.mark(prep, "ForPrep")?;
        // The control slots are hidden locals: user code cannot name them.
        self.add_local(b"(for index)", base, line)?;
        self.add_local(b"(for limit)", base + 1, line)?;
        self.add_local(b"(for step)", base + 2, line)?;
        let body_start = self.here();
        self.open_block(true);
        let v = self.alloc_reg(line)?;
        self.add_local(var, v, line)?;
        self.block_stats(body)?;
        let block = self.fs().blocks.pop().expect("opened above");
        if block.has_upval {
            let e = self.fs().b.create_close(v);
            self.mark(e, "Close")?;
        }
        self.fs().line = line;
        // A constant step's sign is known: ForLoop then compares one way only (as 5.1's
        // `luai_numlt(0, step)` decides: zero and NaN count as not positive).
        let direction = match step.map_or(Some(1.0), const_number) {
            Some(x) if x > 0.0 => 1,
            Some(_) => 2,
            None => 0,
        };
        let back = self.fs().b.create_for_loop(base, direction);
        let back = self.mark(back, "ForLoop")?;
        self.fs().b.patch_branch(back, body_start);
        self.patch_here(vec![prep]);
        self.patch_here(block.breaks);
        self.end_locals(block.first_local - 3);
        let fs = self.fs();
        fs.free_reg = base;
        Ok(())
    }

    /// `for k, v in explist do ... end`: the iterator, its state and the control value sit in
    /// three hidden slots; `ForIn` (at the bottom) calls the iterator in place above them and
    /// jumps back to the body while its first result is not nil.
    fn generic_for(&mut self, vars: &[&[u8]], exprs: &[Expr], body: &Block, iter_line: u32, line: u32) -> Result<()> {
        let base = self.fs().free_reg;
        self.local_stat(vec![FOR_GENERATOR.as_bytes(), FOR_STATE.as_bytes(), FOR_CONTROL.as_bytes()], exprs, line)?;
        // Room for the in-place call: callee, header, two arguments.
        let needed = base + 3 + (vars.len() as u16).max(HEADER + 2);
        while self.fs().max_regs < needed {
            let fs = self.fs();
            fs.max_regs += 1;
        }
        let enter = self.emit_jump()?;
        let body_start = self.here();
        self.open_block(true);
        for v in vars {
            let slot = self.alloc_reg(line)?;
            self.add_local(v, slot, line)?;
        }
        self.block_stats(body)?;
        let block = self.fs().blocks.pop().expect("opened above");
        if block.has_upval {
            let e = self.fs().b.create_close(base + 3);
            self.mark(e, "Close")?;
        }
        self.patch_here(vec![enter]);
        self.fs().line = iter_line;
        let back = self.fs().b.create_for_in(base, vars.len() as u16);
        let back = self.mark(back, "ForIn")?;
        // 5.1 names a native iterator after the generator's hidden local (`bad argument #1 to
        // '(for generator)'`); the call itself is of a copy, so its type error names nothing.
        self.name_operand(back, 0, Some(VarInfo::Local(FOR_GENERATOR.into())));
        self.fs().b.patch_branch(back, body_start);
        self.patch_here(block.breaks);
        self.end_locals(block.first_local - 3);
        let fs = self.fs();
        fs.free_reg = base;
        Ok(())
    }

    fn return_stat(&mut self, values: &[Expr], line: u32) -> Result<()> {
        match values {
            [] => self.emit_return(0, 0),
            [v] if is_multi_call(v) => {
                self.fs().line = line;
                self.call_with(v, CallKind::Tail).map(|_| ())
            }
            // `return ...` returns every extra argument: the general case below.
            [v] if !is_multi(v) => {
                let (slot, _) = self.exp_to_slot(v)?;
                self.fs().line = line;
                self.emit_return(slot, 1)
            }
            _ => {
                let base = self.fs().free_reg;
                let (fixed, last) = values.split_at(values.len() - 1);
                for v in fixed {
                    self.exp_to_next_reg(v)?;
                }
                if is_multi(&last[0]) {
                    let at = self.fs().free_reg;
                    self.multi_values(&last[0], at)?;
                    self.fs().line = line;
                    let e = self.fs().b.create_return_var_args(base, fixed.len() as u16, 1);
                    let e = self.mark(e, "ReturnVarArgs")?;
                    self.fs().closing.push(e.start);
                    return Ok(());
                }
                self.exp_to_next_reg(&last[0])?;
                self.fs().line = line;
                self.emit_return(base, values.len() as u16)
            }
        }
    }

    // --- expressions ---------------------------------------------------------------------

    fn const_value(&mut self, e: &Expr) -> Result<Option<TValue>> {
        if let Some(x) = const_number(e) {
            self.note_emitted_constants(e)?;
            return Ok(Some(TValue::from_f64_canonical(x)));
        }
        // codenot folds `not <constant>` to a boolean without loading the constant.
        if let Some(b) = folded_not(e) {
            self.note_emitted_constants(e)?;
            return Ok(Some(TValue::from_bool(b)));
        }
        Ok(match &e.kind {
            ExprKind::Nil => Some(TValue::NIL),
            ExprKind::True => Some(TValue::TRUE),
            ExprKind::False => Some(TValue::FALSE),
            ExprKind::String(s) => Some(self.st.intern(s.as_bytes()).map_err(|_| oom())?),
            _ => None,
        })
    }

    /// Adds to the constant table, in 5.1's order, the constants its code for a folded
    /// constant expression still loads (the tested operands of `and`/`or`), so `0`/`-0`
    /// merging comes out as in 5.1.
    fn note_emitted_constants(&mut self, e: &Expr) -> Result<()> {
        match &e.kind {
            ExprKind::Number(_) | ExprKind::String(_) if const_number(e).is_none() || matches!(e.kind, ExprKind::String(_)) => {
                if let Some(v) = self.const_value(e)? {
                    self.constant(v, e.line)?;
                }
            }
            ExprKind::Paren(inner) => self.note_emitted_constants(inner)?,
            ExprKind::Unary { operand, .. } => self.note_emitted_constants(operand)?,
            ExprKind::Binary { op: op @ (BinOp::And | BinOp::Or), lhs, rhs } => {
                if !skips_left_operand(*op, lhs) {
                    self.note_emitted_operand(lhs)?;
                }
                self.note_emitted_constants(rhs)?;
            }
            ExprKind::Binary { lhs, rhs, .. } => {
                self.note_emitted_constants(lhs)?;
                self.note_emitted_constants(rhs)?;
            }
            _ => {}
        }
        Ok(())
    }

    /// A tested `and`/`or` operand is loaded whole, folded or not.
    fn note_emitted_operand(&mut self, e: &Expr) -> Result<()> {
        match const_number(e) {
            Some(x) => {
                self.note_emitted_constants(e)?;
                self.constant(TValue::from_f64_canonical(x), e.line).map(|_| ())
            }
            None => self.note_emitted_constants(e),
        }
    }

    /// What the value of `e` is, for error messages, when it names a variable.
    fn var_info(&mut self, e: &Expr) -> Option<VarInfo> {
        match &e.kind {
            ExprKind::Name(n) => {
                let name = self.debug_name(n);
                Some(match self.resolve(n.as_bytes()) {
                    Var::Local(_) => VarInfo::Local(name),
                    Var::Upvalue(_) => VarInfo::Upvalue(name),
                    Var::Global => VarInfo::Global(name),
                })
            }
            // 5.1 names a register after the instruction that last wrote it, without looking
            // through jumps: `x and y` / `x or y` is `y`'s only when a constant `x` folds the
            // jump away (truthy for `and`, falsy for `or`).
            ExprKind::Binary { op: op @ (BinOp::And | BinOp::Or), lhs, rhs } => {
                let truthy = matches!(lhs.kind, ExprKind::True | ExprKind::Number(_) | ExprKind::String(_));
                let falsy = matches!(lhs.kind, ExprKind::Nil | ExprKind::False);
                if (*op == BinOp::And && truthy) || (*op == BinOp::Or && falsy) {
                    self.var_info(rhs)
                } else {
                    None
                }
            }
            ExprKind::Paren(inner) => self.var_info(inner),
            // 5.1 names any indexed value a field, '?' unless the key is a constant string.
            ExprKind::Index { key, .. } => match &key.kind {
                ExprKind::String(k) => Some(VarInfo::Field(self.debug_name(k))),
                _ => Some(VarInfo::Field("?".into())),
            },
            _ => None,
        }
    }

    /// An operand for `e`: a local's slot, a constant, or a temporary holding its value.
    fn exp_to_operand(&mut self, e: &Expr) -> Result<(Operand, Option<VarInfo>)> {
        if let ExprKind::Paren(inner) = &e.kind {
            return self.exp_to_operand(inner);
        }
        if let Some(v) = self.const_value(e)? {
            return Ok((self.constant_operand(v, e.line)?, None));
        }
        let info = self.var_info(e);
        if let ExprKind::Name(n) = &e.kind {
            if let Var::Local(slot) = self.resolve(n.as_bytes()) {
                return Ok((Operand::Slot(slot), info));
            }
        }
        let r = self.alloc_reg(e.line)?;
        self.exp_to_reg(e, r)?;
        Ok((Operand::Slot(r), info))
    }

    /// Evaluates `e` into a newly allocated slot right above the current ones, releasing the
    /// temporaries it used, so successive calls fill consecutive slots (call arguments, concat
    /// operands, multiple values).
    fn exp_to_next_reg(&mut self, e: &Expr) -> Result<u16> {
        let r = self.alloc_reg(e.line)?;
        self.exp_to_reg(e, r)?;
        self.fs().free_reg = r + 1;
        Ok(r)
    }

    /// A slot holding the value of `e`.
    fn exp_to_slot(&mut self, e: &Expr) -> Result<(u16, Option<VarInfo>)> {
        match self.exp_to_operand(e)? {
            (Operand::Slot(s), info) => Ok((s, info)),
            (c, info) => {
                let r = self.alloc_reg(e.line)?;
                self.emit_mov(c, r)?;
                Ok((r, info))
            }
        }
    }

    /// Evaluates `e` into slot `dst`. `dst` is written last, so `e` may read the variable that
    /// lives in `dst`.
    fn exp_to_reg(&mut self, e: &Expr, dst: u16) -> Result<()> {
        self.fs().line = e.line;
        if let Some(v) = self.const_value(e)? {
            return self.emit_constant(v, dst, e.line);
        }
        match &e.kind {
            ExprKind::Paren(inner) => self.exp_to_reg(inner, dst),
            ExprKind::Name(n) => match self.resolve(n.as_bytes()) {
                Var::Local(slot) => self.emit_mov(Operand::Slot(slot), dst),
                Var::Upvalue(i) => {
                    let em = self.fs().b.create_get_upval(i, dst);
                    self.mark(em, "GetUpval").map(|_| ())
                }
                Var::Global => {
                    let k = self.string_constant(n.as_bytes(), e.line)?;
                    let em = match u16::try_from(k) {
                        Ok(narrow) => self.fs().b.create_get_global(narrow, dst),
                        Err(_) => self.fs().b.create_get_global_wide(k, dst),
                    };
                    self.mark(em, "GetGlobal").map(|_| ())
                }
            },
            ExprKind::Function(body) => self.closure(body, dst),
            ExprKind::Call { .. } | ExprKind::MethodCall(_) => {
                // Into the topmost slot, when no variable lives there: the call's frame starts
                // at `dst` and its result lands there, as in 5.1 (whose register layout
                // `debug.getlocal` shows through its temporaries).
                let fs = self.fs();
                if dst + 1 == fs.free_reg && !fs.actives.iter().any(|l| l.slot == dst) {
                    fs.free_reg = dst;
                    let base = self.call(e, 1)?;
                    debug_assert_eq!(base, dst);
                    self.fs().free_reg = dst + 1;
                    return Ok(());
                }
                // Otherwise the call's frame sits above `dst`; release it once its result is
                // moved, or slots allocated next (a `for` loop's variable) would land in the
                // wrong place.
                let saved = self.fs().free_reg;
                let base = self.call(e, 1)?;
                self.emit_mov(Operand::Slot(base), dst)?;
                self.fs().free_reg = saved;
                Ok(())
            }
            ExprKind::Vararg => {
                let em = self.fs().b.create_var_arg(dst, 1);
                self.mark(em, "VarArg").map(|_| ())
            }
            ExprKind::Index { object, key } => {
                let saved = self.fs().free_reg;
                let info = self.var_info(object);
                let (t, _) = self.exp_to_slot(object)?;
                let (k, _) = self.exp_to_operand(key)?;
                self.fs().line = e.line;
                let em = self.emit_get_index(t, k, dst)?;
                self.name_operand(em, 0, info);
                self.fs().free_reg = saved;
                Ok(())
            }
            ExprKind::Table(fields) => {
                if self.active_local_slot(dst) {
                    let t = self.alloc_reg(e.line)?;
                    self.table_constructor(fields, t, e.line)?;
                    return self.emit_mov(Operand::Slot(t), dst);
                }
                self.table_constructor(fields, dst, e.line)
            }
            ExprKind::Unary { op, operand } => self.unary(*op, operand, dst, e.line),
            ExprKind::Binary { op, lhs, rhs } => self.binary(*op, lhs, rhs, dst, e.line),
            _ => unreachable!("constants handled above"),
        }
    }

    /// `{...}` into slot `t`: positional items are gathered in consecutive slots and stored
    /// 50 at a time (Lua's `LFIELDS_PER_FLUSH`); a trailing call or `...` stores every value.
    fn table_constructor(&mut self, fields: &[TableField], t: u16, line: u32) -> Result<()> {
        const FLUSH: usize = 50;
        let positional = fields.iter().filter(|f| matches!(f, TableField::Positional(_))).count();
        let hash = fields.len() - positional;
        let em = self.fs().b.create_new_table(positional.min(u16::MAX as usize) as u16, hash.min(u16::MAX as usize) as u16, t);
        self.mark(em, "NewTable")?;
        let values_base = self.fs().free_reg.max(t + 1);
        self.fs().free_reg = values_base;
        let mut pending = 0usize;
        let mut stored = 0usize;
        for (i, f) in fields.iter().enumerate() {
            match f {
                TableField::Positional(v) => {
                    let is_last = i + 1 == fields.len();
                    if is_last && is_multi(v) {
                        self.multi_values(v, values_base + pending as u16)?;
                        self.fs().line = line;
                        let em = self.fs().b.create_set_list_var_args(t, values_base, pending as u16, (stored + 1) as u32);
                        self.mark(em, "SetListVarArgs")?;
                        self.fs().free_reg = values_base;
                        return Ok(());
                    }
                    self.exp_to_next_reg(v)?;
                    pending += 1;
                    if pending == FLUSH {
                        self.flush_list(t, values_base, pending, stored, line)?;
                        stored += pending;
                        pending = 0;
                    }
                }
                TableField::Named { name, value } => {
                    let saved = self.fs().free_reg;
                    let k = self.string_operand(name.as_bytes(), line)?;
                    let (v, _) = self.exp_to_operand(value)?;
                    let em = match self.string_key(k) {
                        Some(name) => self.fs().b.create_init_field(t, name, v),
                        None => self.fs().b.create_set_table(t, k, v),
                    };
                    self.mark(em, "InitField")?;
                    self.fs().free_reg = saved;
                }
                TableField::Keyed { key, value } => {
                    let saved = self.fs().free_reg;
                    let (k, _) = self.exp_to_operand(key)?;
                    let (v, _) = self.exp_to_operand(value)?;
                    self.emit_set_index(t, k, v)?;
                    self.fs().free_reg = saved;
                }
            }
        }
        if pending > 0 {
            self.flush_list(t, values_base, pending, stored, line)?;
        }
        self.fs().free_reg = values_base;
        Ok(())
    }

    fn flush_list(&mut self, t: u16, values: u16, count: usize, stored: usize, line: u32) -> Result<()> {
        self.fs().line = line;
        let em = self.fs().b.create_set_list(t, values, count as u16, (stored + 1) as u32);
        self.mark(em, "SetList")?;
        self.fs().free_reg = values;
        Ok(())
    }

    /// Evaluates a call or `...` at slot `at` (the top of the frame) keeping every value; their
    /// number is left for the next `*VarArgs` bytecode.
    fn multi_values(&mut self, e: &Expr, at: u16) -> Result<()> {
        debug_assert_eq!(self.fs().free_reg, at);
        if matches!(e.kind, ExprKind::Vararg) {
            self.alloc_reg(e.line)?;
            let em = self.fs().b.create_var_arg(at, MULTRET as u16);
            return self.mark(em, "VarArg").map(|_| ());
        }
        let base = self.call(e, MULTRET as u16)?;
        debug_assert_eq!(base, at);
        Ok(())
    }

    /// Evaluates a call or `...` into exactly `n` slots from `at` (the top of the frame).
    fn fixed_values(&mut self, e: &Expr, at: u16, n: u16) -> Result<()> {
        if matches!(e.kind, ExprKind::Vararg) {
            self.alloc_regs(n, e.line)?;
            let em = self.fs().b.create_var_arg(at, n);
            return self.mark(em, "VarArg").map(|_| ());
        }
        let base = self.call(e, n)?;
        debug_assert_eq!(base, at);
        self.fs().free_reg = at + n;
        Ok(())
    }

    fn unary(&mut self, op: UnOp, operand: &Expr, dst: u16, line: u32) -> Result<()> {
        let (src, info) = self.exp_to_slot(operand)?;
        self.fs().line = line;
        let em = match op {
            UnOp::Neg => self.fs().b.create_unm(src, dst),
            UnOp::Not => self.fs().b.create_not(src, dst),
            UnOp::Len => self.fs().b.create_len(src, dst),
        };
        let em = self.mark(em, op.symbol())?;
        self.name_operand(em, 0, info);
        Ok(())
    }

    fn binary(&mut self, op: BinOp, lhs: &Expr, rhs: &Expr, dst: u16, line: u32) -> Result<()> {
        match op {
            BinOp::And | BinOp::Or if skips_left_operand(op, lhs) => self.exp_to_reg(rhs, dst),
            BinOp::And | BinOp::Or if never_short_circuits(op, lhs) => {
                // `(x or 0) and y`: the left operand can never be the result, so, as in 5.1, it
                // is only tested for its jumps and its constant is never loaded (nor entered in
                // the constant table, where it would merge a later `-0` into `0`).
                let saved = self.fs().free_reg;
                let short = self.cond_jump(lhs, op == BinOp::Or)?;
                debug_assert!(short.is_empty(), "never_short_circuits promised no short-circuit jumps");
                self.patch_here(short);
                self.fs().free_reg = saved;
                self.exp_to_reg(rhs, dst)
            }
            BinOp::And | BinOp::Or => {
                if self.active_local_slot(dst) {
                    let t = self.alloc_reg(line)?;
                    self.binary(op, lhs, rhs, t, line)?;
                    return self.emit_mov(Operand::Slot(t), dst);
                }
                self.exp_to_reg(lhs, dst)?;
                self.fs().line = line;
                let skip = if op == BinOp::And { self.fs().b.create_jump_if_falsy(dst) } else { self.fs().b.create_jump_if_truthy(dst) };
                let skip = self.mark(skip, "JumpIf")?;
                let saved = self.fs().free_reg;
                self.exp_to_reg(rhs, dst)?;
                self.fs().free_reg = saved;
                self.patch_here(vec![skip]);
                Ok(())
            }
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                let e = Expr { line, end_line: line, kind: ExprKind::Binary { op, lhs: Box::new(lhs.clone()), rhs: Box::new(rhs.clone()) } };
                let is_true = self.cond_jump(&e, true)?;
                self.emit_constant(TValue::FALSE, dst, line)?;
                let done = self.emit_jump()?;
                self.patch_here(is_true);
                self.emit_constant(TValue::TRUE, dst, line)?;
                self.patch_here(vec![done]);
                Ok(())
            }
            BinOp::Concat => {
                let mut parts = vec![lhs];
                let mut rest = rhs;
                while let ExprKind::Binary { op: BinOp::Concat, lhs, rhs } = &rest.kind {
                    parts.push(lhs);
                    rest = rhs;
                }
                parts.push(rest);
                let base = self.fs().free_reg;
                let mut infos = Vec::new();
                for p in &parts {
                    infos.push(self.var_info(p));
                    self.exp_to_next_reg(p)?;
                }
                self.fs().line = line;
                let em = self.fs().b.create_concat(base, parts.len() as u16, dst);
                let em = self.mark(em, "Concat")?;
                for (i, info) in infos.into_iter().enumerate() {
                    self.name_operand(em, i as u8, info);
                }
                Ok(())
            }
            _ => {
                // (Numeric constant expressions were folded before getting here.)
                // A left operand that needs evaluating goes straight into a temporary `dst`:
                // `a+b+c+...` then needs one register, not one per operator.
                let simple = |e: &Expr| {
                    matches!(e.kind, ExprKind::Name(_) | ExprKind::Nil | ExprKind::True | ExprKind::False | ExprKind::Number(_) | ExprKind::String(_))
                };
                let ((mut l, linfo), (r, rinfo)) = if const_number(lhs).is_some() {
                    // 5.1's codearith loads the right operand before a constant left one, so
                    // the constants enter the table in that order (visible through 0/-0).
                    let r = self.exp_to_operand(rhs)?;
                    (self.exp_to_operand(lhs)?, r)
                } else {
                    let l = if !simple(lhs) && !self.active_local_slot(dst) {
                        let info = self.var_info(lhs);
                        self.exp_to_reg(lhs, dst)?;
                        (Operand::Slot(dst), info)
                    } else {
                        self.exp_to_operand(lhs)?
                    };
                    (l, self.exp_to_operand(rhs)?)
                };
                if let (BinOp::Div | BinOp::Mod, Operand::Slot(lhs), Operand::Const(k)) = (op, l, r) {
                    if let Some(inverse) = self.power_of_two_inverse(k, line)? {
                        self.fs().line = line;
                        let b = &mut self.fs().b;
                        let em =
                            if matches!(op, BinOp::Div) { b.create_div_pow2(lhs, k, inverse, dst) } else { b.create_mod_pow2(lhs, k, inverse, dst) };
                        let em = self.mark(em, op.symbol())?;
                        self.name_operand(em, 0, linfo);
                        self.name_operand(em, 1, rinfo);
                        return Ok(());
                    }
                }
                if l.is_const() && r.is_const() {
                    let t = self.alloc_reg(line)?;
                    self.emit_mov(l, t)?;
                    l = Operand::Slot(t);
                }
                self.fs().line = line;
                let b = &mut self.fs().b;
                let em = match op {
                    BinOp::Add => b.create_add(l, r, dst),
                    BinOp::Sub => b.create_sub(l, r, dst),
                    BinOp::Mul => b.create_mul(l, r, dst),
                    BinOp::Div => b.create_div(l, r, dst),
                    BinOp::Mod => b.create_mod(l, r, dst),
                    _ => b.create_pow(l, r, dst),
                };
                let em = self.mark(em, op.symbol())?;
                self.name_operand(em, 0, linfo);
                self.name_operand(em, 1, rinfo);
                Ok(())
            }
        }
    }

    /// Emits code that jumps when the truthiness of `e` equals `when` and falls through
    /// otherwise; returns the jumps to patch.
    fn cond_jump(&mut self, e: &Expr, when: bool) -> Result<Vec<Emitted>> {
        self.fs().line = e.line;
        match &e.kind {
            ExprKind::Paren(inner) => self.cond_jump(inner, when),
            ExprKind::Nil | ExprKind::False => Ok(if when { Vec::new() } else { vec![self.emit_jump()?] }),
            ExprKind::True => Ok(if when { vec![self.emit_jump()?] } else { Vec::new() }),
            // A numeric or string constant is truthy. Jumping when false, 5.1 emits nothing and
            // the constant never reaches the constant table; jumping when true, it loads and
            // tests it (`jumponcond`), so the constant enters the table, which decides whether
            // a later `0`/`-0` merges with it. The jump itself is unconditional here.
            ExprKind::Number(_) | ExprKind::String(_) => self.constant_truthy_jump(e, when),
            _ if const_number(e).is_some() => self.constant_truthy_jump(e, when),
            // `not <constant>` folds to a boolean first (codenot): nothing is loaded.
            ExprKind::Unary { op: UnOp::Not, .. } if folded_not(e).is_some() => {
                let truthy = folded_not(e) == Some(true);
                Ok(if when == truthy { vec![self.emit_jump()?] } else { Vec::new() })
            }
            ExprKind::Unary { op: UnOp::Not, operand } => self.cond_jump(operand, !when),
            ExprKind::Binary { op: op @ (BinOp::And | BinOp::Or), lhs, rhs } if skips_left_operand(*op, lhs) => self.cond_jump(rhs, when),
            ExprKind::Binary { op: BinOp::And, lhs, rhs } | ExprKind::Binary { op: BinOp::Or, lhs, rhs } => {
                let is_and = matches!(&e.kind, ExprKind::Binary { op: BinOp::And, .. });
                if is_and != when {
                    // `a and b` jumping when false (or `a or b` when true): either side suffices.
                    let mut j = self.cond_jump(lhs, when)?;
                    j.extend(self.cond_jump(rhs, when)?);
                    Ok(j)
                } else {
                    let skip = self.cond_jump(lhs, !when)?;
                    let j = self.cond_jump(rhs, when)?;
                    self.patch_here(skip);
                    Ok(j)
                }
            }
            ExprKind::Binary { op, lhs, rhs } if matches!(op, BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge) => {
                let saved = self.fs().free_reg;
                let (mut a, _) = self.exp_to_operand(lhs)?;
                let (mut b, _) = self.exp_to_operand(rhs)?;
                let (op, swapped) = match op {
                    BinOp::Gt => (BinOp::Lt, true),
                    BinOp::Ge => (BinOp::Le, true),
                    o => (*o, false),
                };
                if swapped {
                    std::mem::swap(&mut a, &mut b);
                }
                let eq_like = matches!(op, BinOp::Eq | BinOp::Ne);
                if eq_like && a.is_const() {
                    std::mem::swap(&mut a, &mut b);
                }
                if a.is_const() && (b.is_const() || eq_like) {
                    let t = self.alloc_reg(e.line)?;
                    self.emit_mov(a, t)?;
                    a = Operand::Slot(t);
                }
                self.fs().line = e.line;
                // Against a nil, boolean or string constant the builder picks the equality's
                // variant specialised on that type (see the JumpIfEq spec).
                let bld = &mut self.fs().b;
                let em = match (op, when) {
                    (BinOp::Eq, true) | (BinOp::Ne, false) => bld.create_jump_if_eq(a, b),
                    (BinOp::Eq, false) | (BinOp::Ne, true) => bld.create_jump_if_not_eq(a, b),
                    (BinOp::Lt, true) => bld.create_jump_if_lt(a, b),
                    (BinOp::Lt, false) => bld.create_jump_if_not_lt(a, b),
                    (BinOp::Le, true) => bld.create_jump_if_le(a, b),
                    _ => bld.create_jump_if_not_le(a, b),
                };
                let em = self.mark(em, "comparison")?;
                self.fs().free_reg = saved;
                Ok(vec![em])
            }
            _ => {
                let saved = self.fs().free_reg;
                let (slot, _) = self.exp_to_slot(e)?;
                let em = if when { self.fs().b.create_jump_if_truthy(slot) } else { self.fs().b.create_jump_if_falsy(slot) };
                let em = self.mark(em, "JumpIf")?;
                self.fs().free_reg = saved;
                Ok(vec![em])
            }
        }
    }

    fn constant_truthy_jump(&mut self, e: &Expr, when: bool) -> Result<Vec<Emitted>> {
        if !when {
            return Ok(Vec::new());
        }
        if let Some(v) = self.const_value(e)? {
            self.constant(v, e.line)?;
        }
        Ok(vec![self.emit_jump()?])
    }

    /// Compiles a call in place at the top of the frame, keeping `num_results` results from its
    /// base slot, which it returns.
    fn call(&mut self, e: &Expr, num_results: u16) -> Result<u16> {
        self.call_with(e, CallKind::Results(num_results))
    }

    fn call_with(&mut self, e: &Expr, kind: CallKind) -> Result<u16> {
        let num_results = match kind {
            CallKind::Results(n) => n,
            CallKind::Tail => 0,
        };
        let base = self.alloc_reg(e.line)?;
        let (args, info, self_arg) = match &e.kind {
            ExprKind::Call { func, args } => {
                let info = self.var_info(func);
                self.exp_to_reg(func, base)?;
                (args, info, false)
            }
            ExprKind::MethodCall(m) => {
                let lua51_syntax::MethodCall { object, method, args } = &**m;
                // The object is evaluated into the callee slot; GetMethod moves it to the first
                // argument and puts the method in its place.
                let object_info = self.var_info(object);
                self.exp_to_reg(object, base)?;
                let k = self.string_constant(method.as_bytes(), e.line)?;
                self.fs().line = e.line;
                let em = match u16::try_from(k) {
                    Ok(narrow) => {
                        let em = self.fs().b.create_get_method(base, narrow, base);
                        self.mark(em, "GetMethod")?
                    }
                    Err(_) => {
                        // 5.1's SELF by hand: the object goes to the first argument, the method
                        // (indexed by a key in a slot past it) to the callee slot.
                        self.fs().free_reg = base + 1;
                        let self_slot = self.alloc_regs(HEADER, e.line)? + HEADER - 1;
                        let key = self.alloc_reg(e.line)?;
                        self.emit_load_wide(k, key)?;
                        self.emit_mov(Operand::Slot(base), self_slot)?;
                        self.emit_get_index(self_slot, Operand::Slot(key), base)?
                    }
                };
                self.name_operand(em, 0, object_info);
                (args, Some(VarInfo::Method(self.debug_name(method))), true)
            }
            _ => return Err(self.error(e.line, "internal error: not a call")),
        };
        self.fs().free_reg = base + 1;
        self.alloc_regs(HEADER - 1, e.line)?;
        if self_arg {
            self.alloc_reg(e.line)?;
        }
        let var_args = args.last().is_some_and(is_multi);
        for (i, a) in args.iter().enumerate() {
            if var_args && i + 1 == args.len() {
                let at = self.fs().free_reg;
                self.multi_values(a, at)?;
            } else {
                self.exp_to_next_reg(a)?;
            }
        }
        self.fs().line = e.line;
        let fixed = (args.len() - usize::from(var_args) + usize::from(self_arg)) as u16;
        let b = &mut self.fs().b;
        let em = match (kind, var_args) {
            (CallKind::Tail, true) => b.create_tail_call_var_args(base, fixed, 1),
            (CallKind::Tail, false) => b.create_tail_call(base, fixed, 1),
            (_, true) => b.create_call_var_args(base, fixed, num_results),
            (_, false) => b.create_call(base, fixed, num_results),
        };
        let em = self.mark(em, "Call")?;
        self.name_operand(em, 0, info);
        let fs = self.fs();
        if matches!(kind, CallKind::Tail) {
            // Like a return, a tail call closes captured locals, unless the function turns out
            // to make no closures.
            fs.closing.push(em.start);
        }
        fs.free_reg = base + if u64::from(num_results) == MULTRET { 1 } else { num_results.max(1) };
        fs.max_regs = fs.max_regs.max(fs.free_reg);
        Ok(base)
    }
}

#[derive(Clone, Copy)]
enum CallKind {
    Results(u16),
    /// `return f(...)`: the callee replaces the current frame.
    Tail,
}

/// The value of a numeric constant expression, when Lua 5.1's code generator would have
/// folded it (its `isnumeral`): this decides which constants enter the constant table, where
/// `0` and `-0` share one entry, so it is visible in what programs print.
/// Whether `x` is `2^e` for some `e` (normal or subnormal).
pub(crate) fn is_power_of_two(x: f64) -> bool {
    const MANTISSA: u64 = (1 << 52) - 1;
    let bits = x.to_bits();
    let (exponent, mantissa) = (bits >> 52, bits & MANTISSA);
    match exponent {
        // Positive subnormals: one bit set.
        0 => mantissa.is_power_of_two(),
        // Positive normals (not infinity or NaN, exponent 0x7ff; not negative, sign set).
        1..=0x7fe => mantissa == 0,
        _ => false,
    }
}

fn const_number(e: &Expr) -> Option<f64> {
    // Only expressions made of constants: 5.1 folds the *value* of `x and 0` when x is known
    // truthy, but still runs x's code, so anything with code to run is not folded here.
    if !compiles_to_no_code(e) {
        return None;
    }
    match const_kind(e) {
        ConstKind { value: Folded::Num(x), true_jumps: false, false_jumps: false } => Some(x),
        _ => None,
    }
}

/// Whether 5.1 compiles `lhs and rhs` / `lhs or rhs` as just `rhs`: a truthy constant before
/// `and`, nil or false before `or` (with no jumps pending) is never emitted, so its constant
/// never enters the constant table either.
fn skips_left_operand(op: BinOp, lhs: &Expr) -> bool {
    // A left operand with code to run (and maybe raise an error) always runs.
    if !compiles_to_no_code(lhs) {
        return false;
    }
    let k = const_kind(lhs);
    match op {
        BinOp::And => matches!(k.value, Folded::Num(_) | Folded::Str | Folded::True) && !k.true_jumps && !k.false_jumps,
        BinOp::Or => matches!(k.value, Folded::Nil | Folded::False) && !k.true_jumps && !k.false_jumps,
        _ => false,
    }
}

/// The boolean a `not <constant>` folds to (codenot), if `e` is one.
fn folded_not(e: &Expr) -> Option<bool> {
    if !matches!(e.kind, ExprKind::Unary { op: UnOp::Not, .. }) || !compiles_to_no_code(e) {
        return None;
    }
    match const_kind(e) {
        ConstKind { value: Folded::True, true_jumps: false, false_jumps: false } => Some(true),
        ConstKind { value: Folded::False, true_jumps: false, false_jumps: false } => Some(false),
        _ => None,
    }
}

/// Whether `lhs and ...` (`lhs or ...`) can never take its value from `lhs`: `lhs` ends in a
/// constant that makes it always truthy (falsy), like `x or 0` (`x and nil`).
fn never_short_circuits(op: BinOp, lhs: &Expr) -> bool {
    match op {
        BinOp::And => always_truthy(lhs),
        BinOp::Or => always_falsy(lhs),
        _ => false,
    }
}

fn always_truthy(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Paren(inner) => always_truthy(inner),
        // Only the right operand: a truthy constant on the left is still loaded and tested.
        ExprKind::Binary { op: BinOp::Or, rhs, .. } => always_truthy(rhs),
        ExprKind::Binary { op: BinOp::And, lhs, rhs } => always_truthy(lhs) && always_truthy(rhs),
        ExprKind::Unary { op: UnOp::Not, operand } => always_falsy(operand),
        _ => {
            compiles_to_no_code(e)
                && matches!(const_kind(e), ConstKind { value: Folded::Num(_) | Folded::Str | Folded::True, true_jumps: false, false_jumps: false })
        }
    }
}

fn always_falsy(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Paren(inner) => always_falsy(inner),
        ExprKind::Binary { op: BinOp::And, rhs, .. } => always_falsy(rhs),
        ExprKind::Binary { op: BinOp::Or, lhs, rhs } => always_falsy(lhs) && always_falsy(rhs),
        ExprKind::Unary { op: UnOp::Not, operand } => always_truthy(operand),
        _ => {
            compiles_to_no_code(e) && matches!(const_kind(e), ConstKind { value: Folded::Nil | Folded::False, true_jumps: false, false_jumps: false })
        }
    }
}

/// Whether 5.1 compiles `e` to no code of its own: literals, folded arithmetic (numerals only,
/// result not NaN), `not` and `and`/`or` over such. Arithmetic it refuses to fold (`0/0`,
/// `"a" + 1`), `#`, comparisons and concatenation run, and may raise errors, so they stay.
fn compiles_to_no_code(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Number(_) | ExprKind::String(_) | ExprKind::True | ExprKind::False | ExprKind::Nil => true,
        ExprKind::Paren(inner) => compiles_to_no_code(inner),
        ExprKind::Unary { op: UnOp::Not, operand } => compiles_to_no_code(operand),
        ExprKind::Binary { op: BinOp::And | BinOp::Or, lhs, rhs } => compiles_to_no_code(lhs) && compiles_to_no_code(rhs),
        ExprKind::Unary { op: UnOp::Neg, operand } => compiles_to_no_code(operand) && matches!(const_kind(e).value, Folded::Num(_)),
        ExprKind::Binary { op: BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Mod | BinOp::Pow, lhs, rhs } => {
            compiles_to_no_code(lhs) && compiles_to_no_code(rhs) && matches!(const_kind(e).value, Folded::Num(_))
        }
        _ => false,
    }
}

/// What 5.1's `expdesc` says of an expression at compile time, as far as folding goes.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Folded {
    Num(f64),
    Str,
    True,
    False,
    Nil,
    /// Known only at run time.
    Other,
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct ConstKind {
    value: Folded,
    /// Pending jumps taken when the value is true / false (`and`/`or` left them).
    true_jumps: bool,
    false_jumps: bool,
}

fn const_kind(e: &Expr) -> ConstKind {
    let plain = |value| ConstKind { value, true_jumps: false, false_jumps: false };
    let other = plain(Folded::Other);
    let numeral = |k: ConstKind| match k {
        ConstKind { value: Folded::Num(x), true_jumps: false, false_jumps: false } => Some(x),
        _ => None,
    };
    match &e.kind {
        ExprKind::Number(x) => plain(Folded::Num(*x)),
        ExprKind::String(_) => plain(Folded::Str),
        ExprKind::True => plain(Folded::True),
        ExprKind::False => plain(Folded::False),
        ExprKind::Nil => plain(Folded::Nil),
        ExprKind::Paren(inner) => const_kind(inner),
        ExprKind::Unary { op: UnOp::Neg, operand } => match numeral(const_kind(operand)) {
            Some(x) if !(-x).is_nan() => plain(Folded::Num(-x)),
            _ => other,
        },
        ExprKind::Unary { op: UnOp::Not, operand } => {
            // codenot: constants flip, jump lists swap.
            let k = const_kind(operand);
            let value = match k.value {
                Folded::Nil | Folded::False => Folded::True,
                Folded::Num(_) | Folded::Str | Folded::True => Folded::False,
                Folded::Other => return other,
            };
            ConstKind { value, true_jumps: k.false_jumps, false_jumps: k.true_jumps }
        }
        ExprKind::Binary { op: BinOp::And, lhs, rhs } => {
            // luaK_goiftrue: a truthy constant jumps nowhere; anything else adds a false jump.
            let l = const_kind(lhs);
            let r = const_kind(rhs);
            let l_false = match l.value {
                Folded::Num(_) | Folded::Str | Folded::True => l.false_jumps,
                _ => true,
            };
            ConstKind { false_jumps: r.false_jumps || l_false, ..r }
        }
        ExprKind::Binary { op: BinOp::Or, lhs, rhs } => {
            // luaK_goiffalse: nil/false jump nowhere; anything else adds a true jump.
            let l = const_kind(lhs);
            let r = const_kind(rhs);
            let l_true = match l.value {
                Folded::Nil | Folded::False => l.true_jumps,
                _ => true,
            };
            ConstKind { true_jumps: r.true_jumps || l_true, ..r }
        }
        ExprKind::Binary { op, lhs, rhs } => {
            let (Some(a), Some(b)) = (numeral(const_kind(lhs)), numeral(const_kind(rhs))) else { return other };
            let r = match op {
                BinOp::Add => a + b,
                BinOp::Sub => a - b,
                BinOp::Mul => a * b,
                BinOp::Div if b != 0.0 => a / b,
                BinOp::Mod if b != 0.0 => a - (a / b).floor() * b,
                BinOp::Pow => a.powf(b),
                _ => return other,
            };
            if r.is_nan() {
                other
            } else {
                plain(Folded::Num(r))
            }
        }
        _ => other,
    }
}

/// A call whose every result is used when it ends a list (`f(a, g())`, `return g()`); a
/// parenthesised call keeps only one.
fn is_multi_call(e: &Expr) -> bool {
    matches!(e.kind, ExprKind::Call { .. } | ExprKind::MethodCall(_))
}

/// An expression with any number of values at the end of a list: a call or `...`.
fn is_multi(e: &Expr) -> bool {
    is_multi_call(e) || matches!(e.kind, ExprKind::Vararg)
}
