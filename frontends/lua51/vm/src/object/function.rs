//! Function prototypes (compiled functions), closures, upvalues and native functions, laid out
//! for the generated interpreter: each function's [`CodeBlock`] sits right above its constants.

use deegen_api::CodeBlock;
use lua51_value::{Closure, GcHeader, LuaContext, ObjKind, TValue, UpVal};

use crate::interp::{__deegen_interp_entry_bytecode, __deegen_interp_entry_bytecode_vararg, __deegen_interp_entry_native};
use crate::object::heap::{Heap, OutOfMemory};
use crate::tiering::TIER_UP_THRESHOLD;

/// The line of instructions that have none in 5.1 (a function's prologue): no line event, no
/// active line.
pub const PROLOGUE_LINE: u32 = 0;

/// A name in a function's debug information (a local's, or an operand's in error messages):
/// shared, since the compiler names every use of a variable.
pub type DebugName = std::rc::Rc<str>;

/// What a register held when an instruction used it, for error messages
/// (`attempt to call global 'f'`), as Lua 5.1's `getobjname` reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VarInfo {
    Local(DebugName),
    Global(DebugName),
    Upvalue(DebugName),
    Field(DebugName),
    Method(DebugName),
}

impl VarInfo {
    /// The bare name.
    pub fn name(&self) -> &str {
        match self {
            VarInfo::Local(n) | VarInfo::Global(n) | VarInfo::Upvalue(n) | VarInfo::Field(n) | VarInfo::Method(n) => n,
        }
    }

    pub fn describe(&self) -> String {
        match self {
            VarInfo::Local(n) => format!("local '{n}'"),
            VarInfo::Global(n) => format!("global '{n}'"),
            VarInfo::Upvalue(n) => format!("upvalue '{n}'"),
            VarInfo::Field(n) => format!("field '{n}'"),
            VarInfo::Method(n) => format!("method '{n}'"),
        }
    }
}

/// Where a closure finds one of its upvalues when it is created.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UpvalDesc {
    /// A slot of the enclosing function's frame, or an upvalue of the enclosing closure.
    pub in_stack: bool,
    pub index: u16,
}

/// A local variable's name and where it lives while it is in scope (`debug.getlocal`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocalVarInfo {
    pub name: DebugName,
    pub slot: u16,
    /// Bytecode offsets `[start, end)` where the variable is active.
    pub start: u32,
    pub end: u32,
}

/// A compiled function. Never moves once built: its code block points at it.
#[derive(Debug)]
pub struct Proto {
    pub source: String,
    pub line_defined: u32,
    pub last_line_defined: u32,
    pub num_params: u32,
    pub is_vararg: bool,
    pub frame_slots: u32,
    pub code: Box<[u8]>,
    pub constants: Vec<TValue>,
    /// `(bytecode offset, line)`, sorted by offset.
    pub lines: Vec<(u32, u32)>,
    /// `(bytecode offset, operand position, what it held)`.
    pub operand_names: Vec<(u32, u8, VarInfo)>,
    pub upvalues: Vec<UpvalDesc>,
    /// Names of the upvalues, for `debug.getupvalue`.
    pub upvalue_names: Vec<String>,
    /// Boxed: a prototype never moves once built (its code block points into it).
    #[allow(clippy::vec_box)]
    pub children: Vec<Box<Proto>>,
    /// Local variables in declaration order.
    pub locvars: Vec<LocalVarInfo>,
    /// For a chunk, the name its loader was given (`debug.getinfo`'s `source`); empty
    /// elsewhere.
    pub chunkname: String,
    /// The top-level prototype of the chunk this one was compiled in (itself for a chunk):
    /// the collector keeps or frees whole chunks, since a live inner function needs its
    /// enclosing prototypes' memory (they own it).
    pub root: *const Proto,
    /// Set on a chunk's root while a collection marks it (`gc.rs`), cleared by its sweep.
    pub(crate) gc_marked: std::cell::Cell<bool>,
    /// On a chunk's root: the bytes [`Proto::heap_bytes`] counted into the heap's total when
    /// the chunk was registered, taken off again when the collector frees it.
    pub(crate) accounted_bytes: usize,
    /// The baseline JIT's code, once compiled (`tiering`): its bytecode-to-code map serves
    /// OSR entry and `ljr --dump-jit`.
    pub jit: Option<deegen_baseline_jit::CompiledCode>,
    /// Constants (reversed) followed by the code block.
    block: Box<[u64]>,
}

const CB_WORDS: usize = std::mem::size_of::<CodeBlock>() / 8;

impl Proto {
    #[allow(clippy::too_many_arguments, clippy::vec_box)]
    pub fn new(
        source: String,
        line_defined: u32,
        last_line_defined: u32,
        num_params: u32,
        is_vararg: bool,
        frame_slots: u32,
        code: Vec<u8>,
        constants: Vec<TValue>,
        lines: Vec<(u32, u32)>,
        operand_names: Vec<(u32, u8, VarInfo)>,
        upvalues: Vec<(String, UpvalDesc)>,
        children: Vec<Box<Proto>>,
    ) -> Box<Proto> {
        let (upvalue_names, upvalues): (Vec<String>, Vec<UpvalDesc>) = upvalues.into_iter().unzip();
        let n = constants.len();
        let mut block = vec![0u64; n + CB_WORDS].into_boxed_slice();
        for (i, c) in constants.iter().enumerate() {
            block[n - 1 - i] = c.raw();
        }
        let mut p = Box::new(Proto {
            source,
            line_defined,
            last_line_defined,
            num_params,
            is_vararg,
            frame_slots,
            code: code.into_boxed_slice(),
            constants,
            lines,
            operand_names,
            upvalues,
            upvalue_names,
            children,
            locvars: Vec::new(),
            chunkname: String::new(),
            root: std::ptr::null(),
            gc_marked: std::cell::Cell::new(false),
            accounted_bytes: 0,
            jit: None,
            block,
        });
        let owner = &*p as *const Proto as *const ();
        let bytecode = p.code.as_ptr();
        let entry = if is_vararg { __deegen_interp_entry_bytecode_vararg as *const () } else { __deegen_interp_entry_bytecode as *const () };
        let cb = CodeBlock {
            entry,
            bytecode,
            num_fixed_params: num_params,
            frame_slots,
            native: std::ptr::null(),
            owner,
            hotness: TIER_UP_THRESHOLD,
            jit_code: std::ptr::null(),
        };
        unsafe { std::ptr::write(p.block.as_mut_ptr().add(n) as *mut CodeBlock, cb) };
        p
    }

    /// Points every prototype of this chunk at `root` (this one, once it has its final address).
    pub(crate) fn set_root(&mut self, root: *const Proto) {
        self.each_mut(&mut |p| p.root = root);
    }

    /// The memory this prototype and those nested in it own, about (what their vectors and
    /// strings hold, not the allocator's overhead): what the collector's pacing counts for a
    /// chunk, as Lua 5.1 counts its prototypes. Uncounted, a program that loads many small
    /// chunks (`loadstring` in a loop) grew to twenty times the memory the collector saw
    /// before a cycle ran.
    pub fn heap_bytes(&self) -> usize {
        let mut total = 0;
        self.each(&mut |p| {
            total += std::mem::size_of::<Proto>()
                + p.source.capacity()
                + p.chunkname.capacity()
                + p.code.len()
                + p.block.len() * 8
                + p.constants.capacity() * std::mem::size_of::<TValue>()
                + p.lines.capacity() * std::mem::size_of::<(u32, u32)>()
                + p.operand_names.capacity() * std::mem::size_of::<(u32, u8, VarInfo)>()
                + p.upvalues.capacity() * std::mem::size_of::<UpvalDesc>()
                + p.upvalue_names.iter().map(|n| std::mem::size_of::<String>() + n.capacity()).sum::<usize>()
                + p.children.capacity() * std::mem::size_of::<Box<Proto>>()
                + p.locvars.capacity() * std::mem::size_of::<LocalVarInfo>();
        });
        total
    }

    /// Calls `f` on this prototype and every one nested in it, outermost first.
    pub fn each<'a>(&'a self, f: &mut impl FnMut(&'a Proto)) {
        f(self);
        for child in &self.children {
            child.each(f);
        }
    }

    /// [`Self::each`], mutably.
    pub fn each_mut(&mut self, f: &mut impl FnMut(&mut Proto)) {
        f(self);
        for child in &mut self.children {
            child.each_mut(f);
        }
    }

    pub fn code_block(&self) -> *const CodeBlock {
        unsafe { self.block.as_ptr().add(self.constants.len()) as *const CodeBlock }
    }

    /// The source line of the instruction at `offset`.
    pub fn line_at(&self, offset: u32) -> u32 {
        match self.lines.binary_search_by_key(&offset, |&(o, _)| o) {
            Ok(i) => self.lines[i].1,
            Err(0) => self.line_defined,
            Err(i) => self.lines[i - 1].1,
        }
    }

    pub fn operand_name(&self, offset: u32, operand: u8) -> Option<&VarInfo> {
        self.operand_names.iter().find(|(o, k, _)| *o == offset && *k == operand).map(|(_, _, v)| v)
    }
}

/// A native function: reads `nargs` arguments from `base`, stores its results from `base`,
/// returns their number, or a negative number after storing the error in the context. The
/// runtime ABI's type (the semantics recognise two natives by address).
pub type NativeFn = lua51_value::abi::NativeFn;

/// Per-native-function data, reachable from its code block.
#[derive(Debug)]
pub struct NativeInfo {
    pub name: &'static str,
}

/// Allocates a closure of `proto` with room for its upvalues (to be filled by the caller).
pub fn new_closure(heap: &mut Heap, cb: *const CodeBlock, num_upvalues: usize, env: TValue) -> Result<*mut Closure, OutOfMemory> {
    let size = std::mem::size_of::<Closure>() + num_upvalues * 8;
    let c = heap.alloc(size, ObjKind::Function)? as *mut Closure;
    unsafe {
        (*c).code_block = cb;
        (*c).env = env;
        (*c).num_upvalues = num_upvalues as u32;
    }
    Ok(c)
}

/// The code block of native function `f` named `name`: one per (function, name) for the whole
/// process, made on first use and never freed (iterators such as `gmatch`'s are created in
/// loops, so a block per closure would leak). A library function written in the semantics
/// passes its `generated` entry: its function values run the generated code, and `f` is its
/// native twin (for the debug hooks' events; see `interp::register_library_block`).
fn native_code_block(name: &'static str, f: NativeFn, generated: Option<unsafe extern "C" fn()>) -> *const CodeBlock {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    static BLOCKS: OnceLock<Mutex<HashMap<(usize, usize), usize>>> = OnceLock::new();
    let mut blocks = BLOCKS.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    let key = (f as usize, name.as_ptr() as usize);
    *blocks.entry(key).or_insert_with(|| {
        let info = Box::leak(Box::new(NativeInfo { name }));
        let cb = Box::leak(Box::new(CodeBlock {
            entry: __deegen_interp_entry_native as *const (),
            bytecode: std::ptr::null(),
            num_fixed_params: 0,
            frame_slots: 0,
            native: f as *const (),
            owner: info as *const NativeInfo as *const (),
            hotness: i64::MAX,
            jit_code: std::ptr::null(),
        }));
        if let Some(entry) = generated {
            crate::interp::register_library_block(cb, entry as *const ());
        }
        cb as *const CodeBlock as usize
    }) as *const CodeBlock
}

/// A function value for a native function (with the entry of its generated twin, if it is a
/// library function written in the semantics).
pub fn new_native(
    heap: &mut Heap,
    name: &'static str,
    f: NativeFn,
    generated: Option<unsafe extern "C" fn()>,
    env: TValue,
) -> Result<TValue, OutOfMemory> {
    Ok(TValue::from_function(new_closure(heap, native_code_block(name, f, generated), 0, env)?))
}

/// A native function value with upvalues (closed, holding `values`), like a C closure.
pub fn new_native_closure(
    heap: &mut Heap,
    name: &'static str,
    f: NativeFn,
    generated: Option<unsafe extern "C" fn()>,
    env: TValue,
    values: &[TValue],
) -> Result<TValue, OutOfMemory> {
    let c = new_closure(heap, native_code_block(name, f, generated), values.len(), env)?;
    for (i, v) in values.iter().enumerate() {
        let u = new_upval(heap, std::ptr::null_mut())?;
        unsafe {
            (*u).closed = v.raw();
            (*u).value = &mut (*u).closed;
            *(*c).upvalues().add(i) = u;
        }
    }
    Ok(TValue::from_function(c))
}

/// Whether a code block belongs to a native function. Code blocks are only ever made by
/// [`Proto::new`] and [`new_native`], and live as long as the program.
#[allow(clippy::not_unsafe_ptr_arg_deref)]
pub fn is_native(cb: *const CodeBlock) -> bool {
    unsafe { !(*cb).native.is_null() }
}

/// The prototype of a bytecode function's code block (see [`is_native`] for why the pointer
/// is always valid).
#[allow(clippy::not_unsafe_ptr_arg_deref)]
pub fn proto_of<'a>(cb: *const CodeBlock) -> &'a Proto {
    unsafe { &*((*cb).owner as *const Proto) }
}

/// Closes the open upvalues of the coroutine of `ctx` that point at `from` or above: each
/// takes the value of its slot (5.1's `luaF_close`).
///
/// # Safety
/// `ctx` is a live context whose open upvalues point into its live stack.
pub unsafe fn close_upvalues(ctx: *mut LuaContext, from: *mut u64) {
    unsafe {
        while !(*ctx).open_upvalues.is_null() && (*(*ctx).open_upvalues).value >= from {
            let u = (*ctx).open_upvalues;
            (*u).closed = *(*u).value;
            (*u).value = &mut (*u).closed;
            (*ctx).open_upvalues = (*u).next_open;
        }
    }
}

/// Allocates a fresh open upvalue pointing at `slot`.
pub fn new_upval(heap: &mut Heap, slot: *mut u64) -> Result<*mut UpVal, OutOfMemory> {
    let u = heap.alloc(std::mem::size_of::<UpVal>(), ObjKind::UpVal)? as *mut UpVal;
    unsafe { (*u).value = slot };
    Ok(u)
}

/// Header of an object, for the collector.
pub fn header(v: TValue) -> *mut GcHeader {
    v.as_ptr()
}
