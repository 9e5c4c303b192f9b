//! LLVM modules as a unit of the pass infrastructure, plus what every generator pass shares:
//! loading and printing, the bytecode variants embedded in the module, the interpreter's
//! calling convention, and small IR-building helpers.
//!
//! The generator's input is a module compiled by rustc from the semantics crate. Before the
//! pipeline runs, the resolved bytecode variants are embedded as named metadata
//! (`!deegen.variants`), so a module dumped at any point is self-contained: `deegen-opt` can run
//! any generator pass on it.

mod cfg;
mod checks;
mod interp_abi;
mod phase;
pub mod raw;

use std::path::Path;

use deegen_bytecode_spec::{check_library, check_quickening, LibFunctionSpec, Quickening, TypeLattice, Variant};
use deegen_pass::IrUnit;
use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::module::Module;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{CodeModel, FileType, InitializationConfig, RelocMode, Target, TargetMachine, TargetTriple};
use inkwell::values::{CallSiteValue, FunctionValue, InstructionOpcode, InstructionValue};
use inkwell::OptimizationLevel;

pub use cfg::{ControlFlow, FunctionCfg, ModuleCfg};
pub use checks::Checkers;
pub use interp_abi::*;
pub use phase::{check_phase_invariants, read_phase, write_phase, LlvmPhase, PHASE_METADATA};

/// Named metadata holding one [`Variant`] text line per node.
pub const VARIANTS_METADATA: &str = "deegen.variants";

/// Named metadata holding one [`LibFunctionSpec`] text line per node: the library functions
/// the language writes in its semantics.
pub const LIBRARY_METADATA: &str = "deegen.library";

/// Named metadata listing the opcodes the generator gave a call inline cache (`interp-call-ic`),
/// one node `!{!"<opcode>"}` each: [`read_variants`] appends the cache to their layout.
pub const CALL_ICS_METADATA: &str = "deegen.call_ics";

/// Metadata kind marking the compare of a call inline cache's probe (`callee == cached callee`),
/// written by `interp-call-ic` for `call-ic-check-hoisting`.
pub const CALL_IC_PROBE_METADATA: &str = "deegen.call_ic_probe";

/// Named metadata holding the language's two tag-register values, one node
/// `!{!"tag1=0x...", !"tag2=0x..."}` (see the `tag-register-rewrite` pass).
pub const TAG_REGISTERS_METADATA: &str = "deegen.tag_registers";

/// Named metadata holding the language's type lattice, one node of strings, a line each (see
/// [`deegen_bytecode_spec::TypeLattice`]).
pub const TYPE_LATTICE_METADATA: &str = "deegen.type_lattice";

/// Named metadata declaring the NaN-boxing of the language's values, one node
/// `!{!"doubles_below=0x..."}`: a boxed value is a double iff it is (unsigned) below the bound,
/// and every value at or above it is a NaN bit pattern (see the `nan-check-fusion` pass).
pub const NAN_BOXING_METADATA: &str = "deegen.nan_boxing";

/// The CPU the generated code targets: x86-64-v2 (SSE4.2, POPCNT) gives `roundsd` for `floor`
/// and runs on every x86-64 machine of the last decade.
pub const TARGET_CPU: &str = "x86-64-v2";
pub const TARGET_TRIPLE: &str = "x86_64-unknown-linux-gnu";

/// An LLVM module being transformed.
pub struct LlvmModule<'ctx> {
    pub module: Module<'ctx>,
}

impl std::fmt::Debug for LlvmModule<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlvmModule").field("name", &self.module.get_name()).finish()
    }
}

impl<'ctx> LlvmModule<'ctx> {
    pub fn new(module: Module<'ctx>) -> Self {
        Self { module }
    }
    pub fn context(&self) -> inkwell::context::ContextRef<'ctx> {
        self.module.get_context()
    }
}

impl IrUnit for LlvmModule<'_> {
    const KIND: &'static str = "llvm";
    type Phase = LlvmPhase;

    fn phase(&self) -> Result<LlvmPhase, String> {
        read_phase(&self.module)
    }

    fn set_phase(&mut self, phase: LlvmPhase) {
        write_phase(&self.module, phase);
    }

    /// LLVM's textual IR without the `; ModuleID` line, which names the input file.
    fn print(&self) -> String {
        let text = self.module.print_to_string().to_string();
        text.lines().filter(|l| !l.starts_with("; ModuleID")).map(|l| format!("{l}\n")).collect()
    }

    /// LLVM's verifier, then the invariants of the module's phase.
    fn verify(&self) -> Result<(), Vec<String>> {
        self.module.verify().map_err(|e| e.to_string().lines().map(str::to_owned).filter(|l| !l.is_empty()).collect::<Vec<_>>())?;
        let problems = match read_phase(&self.module) {
            Ok(phase) => check_phase_invariants(&self.module, phase),
            Err(e) => vec![e],
        };
        if problems.is_empty() {
            Ok(())
        } else {
            Err(problems)
        }
    }
}

/// Why a module could not be read.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("cannot read '{path}': {source}")]
    Io { path: String, source: std::io::Error },
    #[error("'{name}' is not valid LLVM {what}: {message}")]
    Invalid { name: String, what: &'static str, message: String },
}

/// Parses textual IR or bitcode (recognised by its magic bytes).
pub fn parse_module<'ctx>(context: &'ctx Context, bytes: &[u8], name: &str) -> Result<Module<'ctx>, LoadError> {
    let is_bitcode = bytes.starts_with(b"BC\xC0\xDE");
    if is_bitcode {
        let buffer = MemoryBuffer::create_from_memory_range_copy(bytes, name);
        Module::parse_bitcode_from_buffer(&buffer, context).map_err(|e| LoadError::Invalid {
            name: name.to_owned(),
            what: "bitcode",
            message: e.to_string(),
        })
    } else {
        // The IR parser wants a NUL-terminated buffer.
        let mut owned = bytes.to_vec();
        owned.push(0);
        let buffer = MemoryBuffer::create_from_memory_range_copy(&owned[..owned.len() - 1], name);
        context.create_module_from_ir(buffer).map_err(|e| LoadError::Invalid {
            name: name.to_owned(),
            what: "IR",
            message: e.to_string().trim().to_owned(),
        })
    }
}

/// Reads a `.ll` or `.bc` file. The module is named after the file's base name, so its
/// printed form does not depend on where the file lives.
pub fn load_module<'ctx>(context: &'ctx Context, path: &Path) -> Result<Module<'ctx>, LoadError> {
    let bytes = std::fs::read(path).map_err(|source| LoadError::Io { path: path.display().to_string(), source })?;
    let module = parse_module(context, &bytes, &path.display().to_string())?;
    let base = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    module.set_source_file_name(&base);
    Ok(module)
}

/// Embeds the resolved variants into the module (replacing any already there).
pub fn write_variants(module: &Module<'_>, variants: &[Variant]) -> Result<(), String> {
    if module.get_global_metadata_size(VARIANTS_METADATA) != 0 {
        return Err("the module already carries !deegen.variants".into());
    }
    let ctx = module.get_context();
    for v in variants {
        let s = ctx.metadata_string(&v.to_string());
        let node = ctx.metadata_node(&[s.into()]);
        module.add_global_metadata(VARIANTS_METADATA, &node).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// The bytes of a metadata string (`!"..."`); `None` for any other operand.
pub fn metadata_string(v: inkwell::values::BasicMetadataValueEnum<'_>) -> Option<Vec<u8>> {
    if v.is_metadata_value() {
        v.into_metadata_value().get_string_value().map(|s| s.to_vec())
    } else {
        None
    }
}

/// Reads the variants embedded by [`write_variants`].
pub fn read_variants(module: &Module<'_>) -> Result<Vec<Variant>, String> {
    let mut out = Vec::new();
    for node in module.get_global_metadata(VARIANTS_METADATA) {
        let values = node.get_node_values().ok_or("!deegen.variants holds a non-node")?;
        let text = values.first().copied().and_then(metadata_string).ok_or("!deegen.variants nodes hold one string each")?;
        let line = String::from_utf8(text).map_err(|_| "!deegen.variants holds a non-UTF-8 string")?;
        out.push(Variant::parse(&line).map_err(|e| e.to_string())?);
    }
    for (i, v) in out.iter().enumerate() {
        if usize::from(v.opcode) != i {
            return Err(format!("variant '{}' has opcode {} at position {i}: opcodes must be dense and ordered", v.name, v.opcode));
        }
    }
    for opcode in call_ic_opcodes(module)? {
        let v = out.get(usize::from(opcode)).ok_or_else(|| format!("!deegen.call_ics names opcode {opcode}, which has no variant"))?;
        // A variant and its quickened twins share one layout: the cache goes to all of them.
        let base = usize::from(v.base_opcode());
        let family: Vec<usize> = match out.get(base).and_then(|b| b.quickening) {
            Some(Quickening::Base { first, kinds }) => std::iter::once(base).chain((0..kinds).map(|k| usize::from(first) + usize::from(k))).collect(),
            _ => vec![usize::from(opcode)],
        };
        for i in family {
            out.get_mut(i).ok_or_else(|| format!("opcode {i} has no variant"))?.add_call_ic();
        }
    }
    check_quickening(&out)?;
    Ok(out)
}

/// Embeds the library functions into the module.
pub fn write_library(module: &Module<'_>, functions: &[LibFunctionSpec]) -> Result<(), String> {
    if module.get_global_metadata_size(LIBRARY_METADATA) != 0 {
        return Err("the module already carries !deegen.library".into());
    }
    check_library(functions).map_err(|e| e.to_string())?;
    let ctx = module.get_context();
    for f in functions {
        let node = ctx.metadata_node(&[ctx.metadata_string(&f.to_string()).into()]);
        module.add_global_metadata(LIBRARY_METADATA, &node).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// Reads the library functions embedded by [`write_library`] (none if the module has none).
pub fn read_library(module: &Module<'_>) -> Result<Vec<LibFunctionSpec>, String> {
    let mut out = Vec::new();
    for node in module.get_global_metadata(LIBRARY_METADATA) {
        let values = node.get_node_values().ok_or("!deegen.library holds a non-node")?;
        let text = values.first().copied().and_then(metadata_string).ok_or("!deegen.library nodes hold one string each")?;
        let line = String::from_utf8(text).map_err(|_| "!deegen.library holds a non-UTF-8 string")?;
        out.push(LibFunctionSpec::parse(&line).map_err(|e| e.to_string())?);
    }
    check_library(&out).map_err(|e| e.to_string())?;
    Ok(out)
}

/// The opcodes listed in [`CALL_ICS_METADATA`].
fn call_ic_opcodes(module: &Module<'_>) -> Result<Vec<u16>, String> {
    let mut out = Vec::new();
    for node in module.get_global_metadata(CALL_ICS_METADATA) {
        let text = node
            .get_node_values()
            .and_then(|values| values.first().copied())
            .and_then(metadata_string)
            .ok_or("!deegen.call_ics nodes hold one string each")?;
        let text = String::from_utf8_lossy(&text).into_owned();
        out.push(text.parse().map_err(|_| format!("!deegen.call_ics: '{text}' is not an opcode"))?);
    }
    Ok(out)
}

/// Gives `opcode`'s variant a call inline cache (see [`CALL_ICS_METADATA`]); nothing when it has
/// one.
pub fn add_call_ic(module: &Module<'_>, opcode: u16) -> Result<(), String> {
    if call_ic_opcodes(module)?.contains(&opcode) {
        return Ok(());
    }
    let ctx = module.get_context();
    let node = ctx.metadata_node(&[ctx.metadata_string(&opcode.to_string()).into()]);
    module.add_global_metadata(CALL_ICS_METADATA, &node).map_err(|e| e.to_string())
}

/// Embeds the values the tag registers hold (see [`TAG_REGISTERS_METADATA`]).
pub fn write_tag_registers(module: &Module<'_>, tags: [u64; 2]) -> Result<(), String> {
    if module.get_global_metadata_size(TAG_REGISTERS_METADATA) != 0 {
        return Err("the module already carries !deegen.tag_registers".into());
    }
    let ctx = module.get_context();
    let t1 = ctx.metadata_string(&format!("tag1={:#x}", tags[0]));
    let t2 = ctx.metadata_string(&format!("tag2={:#x}", tags[1]));
    module.add_global_metadata(TAG_REGISTERS_METADATA, &ctx.metadata_node(&[t1.into(), t2.into()])).map_err(|e| e.to_string())
}

/// Embeds the NaN-boxing bound (see [`NAN_BOXING_METADATA`]).
pub fn write_nan_boxing(module: &Module<'_>, doubles_below: u64) -> Result<(), String> {
    if module.get_global_metadata_size(NAN_BOXING_METADATA) != 0 {
        return Err("the module already carries !deegen.nan_boxing".into());
    }
    let ctx = module.get_context();
    let s = ctx.metadata_string(&format!("doubles_below={doubles_below:#x}"));
    module.add_global_metadata(NAN_BOXING_METADATA, &ctx.metadata_node(&[s.into()])).map_err(|e| e.to_string())
}

/// Reads the bound embedded by [`write_nan_boxing`]; `None` when the module has none.
pub fn read_nan_boxing(module: &Module<'_>) -> Result<Option<u64>, String> {
    let nodes = module.get_global_metadata(NAN_BOXING_METADATA);
    let [node] = nodes.as_slice() else {
        return if nodes.is_empty() { Ok(None) } else { Err("!deegen.nan_boxing must hold one node".into()) };
    };
    let values = node.get_node_values().ok_or("!deegen.nan_boxing holds a non-node")?;
    let text =
        values.first().copied().and_then(metadata_string).and_then(|t| String::from_utf8(t).ok()).ok_or("!deegen.nan_boxing holds a non-string")?;
    let value = text.strip_prefix("doubles_below=").ok_or_else(|| format!("!deegen.nan_boxing: '{text}' is not doubles_below=<u64>"))?;
    parse_u64(value).map(Some).ok_or_else(|| format!("!deegen.nan_boxing: '{value}' is not an integer"))
}

/// Embeds the language's type lattice (see [`TYPE_LATTICE_METADATA`]).
pub fn write_type_lattice(module: &Module<'_>, lattice: &TypeLattice) -> Result<(), String> {
    if module.get_global_metadata_size(TYPE_LATTICE_METADATA) != 0 {
        return Err("the module already carries !deegen.type_lattice".into());
    }
    lattice.validate().map_err(|e| e.to_string())?;
    let ctx = module.get_context();
    let lines: Vec<_> = lattice.lines().iter().map(|l| ctx.metadata_string(l).into()).collect();
    module.add_global_metadata(TYPE_LATTICE_METADATA, &ctx.metadata_node(&lines)).map_err(|e| e.to_string())
}

/// Reads the lattice embedded by [`write_type_lattice`]; `None` when the module has none.
pub fn read_type_lattice(module: &Module<'_>) -> Result<Option<TypeLattice>, String> {
    let nodes = module.get_global_metadata(TYPE_LATTICE_METADATA);
    let [node] = nodes.as_slice() else {
        return if nodes.is_empty() { Ok(None) } else { Err("!deegen.type_lattice must hold one node".into()) };
    };
    let values = node.get_node_values().ok_or("!deegen.type_lattice holds a non-node")?;
    let mut lines = Vec::new();
    for v in values {
        let text = metadata_string(v);
        lines.push(text.and_then(|t| String::from_utf8(t).ok()).ok_or("!deegen.type_lattice holds a non-string")?);
    }
    TypeLattice::parse(lines.iter().map(String::as_str)).map(Some).map_err(|e| e.to_string())
}

/// The path of a legacy-mangled Rust symbol without its hash (`_ZN3foo3bar17h0123456789abcdefE`
/// is `foo::bar`), or `None` for other names.
pub fn rust_path(symbol: &str) -> Option<String> {
    let mut rest = symbol.strip_prefix("_ZN")?;
    let mut parts: Vec<&str> = Vec::new();
    while !rest.starts_with('E') {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let len: usize = rest[..digits].parse().ok()?;
        let ident = rest.get(digits..digits + len)?;
        parts.push(ident);
        rest = &rest[digits + len..];
    }
    if let Some(last) = parts.last() {
        if last.len() == 17 && last.starts_with('h') && last[1..].bytes().all(|b| b.is_ascii_hexdigit()) {
            parts.pop();
        }
    }
    (!parts.is_empty()).then(|| parts.join("::"))
}

/// The module's functions implementing the lattice's checkers (matched by Rust path or symbol
/// name; one parameter), with the checker index of each.
pub fn type_checker_functions<'ctx>(module: &Module<'ctx>, lattice: &TypeLattice) -> Vec<(FunctionValue<'ctx>, usize)> {
    let mut out = Vec::new();
    for f in module.get_functions() {
        if f.count_params() != 1 {
            continue;
        }
        let name = f.get_name().to_string_lossy().into_owned();
        let path = rust_path(&name);
        if let Some(i) = lattice.checkers.iter().position(|c| c.function == name || Some(&c.function) == path.as_ref()) {
            out.push((f, i));
        }
    }
    out
}

/// Parses an integer written in decimal or as `0x` hex.
pub fn parse_u64(text: &str) -> Option<u64> {
    match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(&hex.replace('_', ""), 16).ok(),
        None => text.replace('_', "").parse().ok(),
    }
}

/// Reads the values embedded by [`write_tag_registers`]; `None` when the module has none.
pub fn read_tag_registers(module: &Module<'_>) -> Result<Option<[u64; 2]>, String> {
    let nodes = module.get_global_metadata(TAG_REGISTERS_METADATA);
    let [node] = nodes.as_slice() else {
        return if nodes.is_empty() { Ok(None) } else { Err("!deegen.tag_registers must hold one node".into()) };
    };
    let values = node.get_node_values().ok_or("!deegen.tag_registers holds a non-node")?;
    let mut tags = [None, None];
    for v in values {
        let text = metadata_string(v);
        let text = text.and_then(|t| String::from_utf8(t).ok()).ok_or("!deegen.tag_registers holds a non-string")?;
        let (key, value) = text.split_once('=').ok_or_else(|| format!("!deegen.tag_registers: '{text}' is not key=value"))?;
        let slot = match key {
            "tag1" => &mut tags[0],
            "tag2" => &mut tags[1],
            _ => return Err(format!("!deegen.tag_registers: unknown key '{key}'")),
        };
        *slot = Some(parse_u64(value).ok_or_else(|| format!("!deegen.tag_registers: '{value}' is not an integer"))?);
    }
    match tags {
        [Some(a), Some(b)] => Ok(Some([a, b])),
        _ => Err("!deegen.tag_registers must give tag1 and tag2".into()),
    }
}

/// The target machine for generated code (see [`TARGET_CPU`]). Code uses absolute 32-bit
/// addresses (static relocation model, small code model): a dispatch is then one
/// `jmp *table(,%rax,8)`-style load instead of a `lea` of the table and a load, as in the paper's
/// Figure 15. Executables linking it must be non-PIE (the language's build script passes
/// `-no-pie`, see `frontends/lua51/vm/build.rs`).
pub fn target_machine(opt: OptimizationLevel) -> Result<TargetMachine, String> {
    Target::initialize_x86(&InitializationConfig::default());
    set_code_generator_options();
    let triple = TargetTriple::create(TARGET_TRIPLE);
    let target = Target::from_triple(&triple).map_err(|e| e.to_string())?;
    target
        .create_target_machine(&triple, TARGET_CPU, "", opt, RelocMode::Static, CodeModel::Small)
        .ok_or_else(|| "LLVM could not create an x86-64 target machine".to_owned())
}

/// The code generator's options the generated code depends on, set once per process (LLVM's
/// options are global, and setting one twice is an error).
///
/// `-x86-br-merging-base-cost=-1`: never merge the conditions of one branch into `setcc`s and
/// an `and`. A fast path's two type checks (`cmp; jae slow` twice, macro-fused) became
/// `cmp; setb; cmp; setb; and; cmp; jne` in stencils, whose operand loads are single
/// instructions and so looked cheap enough to compute both: seven uops and a dependency chain
/// in place of two predictable branches, which made the baseline JIT slower than the
/// interpreter on arithmetic loops.
///
/// `-enable-split-machine-functions`: functions with a profile (`!prof function_entry_count`) have
/// the blocks it says never run moved into a cold section (`.text.split.<name>`). Only the
/// stencils `baseline-cold-split` gives a synthesized profile have one: the semantics are
/// compiled without profile data, so the interpreter is unaffected. `-mfs-count-threshold=1024`:
/// a block is cold below a count of 1024 of that profile's 2^30 entries. A successor the
/// profile gives weight 0 is not quite count 0 (block frequencies have a floor), and a slow
/// path reached from the entry block (GetField's table check) stayed in line with the default
/// threshold of 1.
fn set_code_generator_options() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let args = [
            c"deegen".as_ptr(),
            c"-x86-br-merging-base-cost=-1".as_ptr(),
            c"-enable-split-machine-functions".as_ptr(),
            c"-mfs-count-threshold=1024".as_ptr(),
        ];
        // SAFETY: NUL-terminated strings that outlive the call; LLVM copies what it keeps.
        unsafe { inkwell::llvm_sys::support::LLVMParseCommandLineOptions(args.len() as i32, args.as_ptr(), c"".as_ptr()) };
    });
}

/// Runs an LLVM new-pass-manager pipeline (`"always-inline,function(sroa)"`) on the module.
pub fn run_llvm_pipeline(module: &Module<'_>, pipeline: &str) -> Result<(), String> {
    let tm = target_machine(OptimizationLevel::Aggressive)?;
    module.run_passes(pipeline, &tm, PassBuilderOptions::create()).map_err(|e| format!("LLVM pipeline '{pipeline}': {e}"))
}

/// Compiles the module to an object file or to assembly text.
pub fn emit(module: &Module<'_>, file_type: FileType) -> Result<Vec<u8>, String> {
    // LLVM's code generator assumes valid IR and may crash on anything else.
    module.verify().map_err(|e| format!("the module is not valid IR: {}", e.to_string().trim()))?;
    let tm = target_machine(OptimizationLevel::Aggressive)?;
    module.set_triple(&tm.get_triple());
    module.set_data_layout(&tm.get_target_data().get_data_layout());
    tm.write_to_memory_buffer(module, file_type).map(|b| b.as_slice().to_vec()).map_err(|e| e.to_string())
}

/// Argument `i` of a call. LLVM's operand list ends with the callee, so reading operand `i`
/// of a call with too few arguments would silently give the callee: this checks the count.
pub fn call_argument<'ctx>(call: CallSiteValue<'ctx>, i: u32) -> Result<inkwell::values::BasicValueEnum<'ctx>, String> {
    if i >= call.count_arguments() {
        return Err(format!("marker call lacks argument {i} (it has {})", call.count_arguments()));
    }
    call_instruction(call).get_operand(i).and_then(|o| o.value()).ok_or_else(|| format!("marker call argument {i} is not a value"))
}

/// Argument `i` of a call, which must be a pointer.
pub fn pointer_argument<'ctx>(call: CallSiteValue<'ctx>, i: u32) -> Result<inkwell::values::PointerValue<'ctx>, String> {
    let v = call_argument(call, i)?;
    if v.is_pointer_value() {
        Ok(v.into_pointer_value())
    } else {
        Err(format!("marker call argument {i} must be a pointer, not {}", v.get_type().print_to_string().to_string_lossy()))
    }
}

/// Argument `i` of a call, which must be an integer.
pub fn int_argument<'ctx>(call: CallSiteValue<'ctx>, i: u32) -> Result<inkwell::values::IntValue<'ctx>, String> {
    let v = call_argument(call, i)?;
    if v.is_int_value() {
        Ok(v.into_int_value())
    } else {
        Err(format!("marker call argument {i} must be an integer, not {}", v.get_type().print_to_string().to_string_lossy()))
    }
}

/// The function `value` is, when it is one (a function constant, not a value that merely has
/// a function's name).
pub fn as_function<'ctx>(module: &Module<'ctx>, value: inkwell::values::PointerValue<'ctx>) -> Option<FunctionValue<'ctx>> {
    let f = module.get_function(&value.get_name().to_string_lossy())?;
    (f.as_global_value().as_pointer_value() == value).then_some(f)
}

/// Every call instruction in `function`, in order.
pub fn calls_in(function: FunctionValue<'_>) -> Vec<CallSiteValue<'_>> {
    let mut out = Vec::new();
    for bb in function.get_basic_block_iter() {
        for inst in bb.get_instructions() {
            if inst.get_opcode() == InstructionOpcode::Call {
                if let Ok(cs) = CallSiteValue::try_from(inst) {
                    out.push(cs);
                }
            }
        }
    }
    out
}

/// The name of the function a call calls directly, if it does.
pub fn callee_name(call: CallSiteValue<'_>) -> Option<String> {
    call.get_called_fn_value().map(|f| f.get_name().to_string_lossy().into_owned())
}

/// Erases `inst` and every instruction after it in its block (code after a `noreturn` call).
pub fn erase_from(inst: InstructionValue<'_>) {
    let mut cur = Some(inst);
    let mut list = Vec::new();
    while let Some(i) = cur {
        list.push(i);
        cur = i.get_next_instruction();
    }
    for i in list.into_iter().rev() {
        i.erase_from_basic_block();
    }
}

/// Functions the module defines (with a body), by name.
pub fn defined_functions<'ctx>(module: &Module<'ctx>) -> Vec<FunctionValue<'ctx>> {
    module.get_functions().filter(|f| f.count_basic_blocks() > 0).collect()
}

/// A string attribute of a function, if set.
pub fn function_attr(function: FunctionValue<'_>, key: &str) -> Option<String> {
    function.get_string_attribute(inkwell::attributes::AttributeLoc::Function, key).map(|a| a.get_string_value().to_string_lossy().into_owned())
}

pub fn set_function_attr(function: FunctionValue<'_>, key: &str, value: &str) {
    let ctx = function.get_type().get_context();
    function.add_attribute(inkwell::attributes::AttributeLoc::Function, ctx.create_string_attribute(key, value));
}

/// The instruction of a call site, whether or not the call produces a value.
pub fn call_instruction(call: CallSiteValue<'_>) -> InstructionValue<'_> {
    use inkwell::values::{BasicValue, ValueKind};
    match call.try_as_basic_value() {
        ValueKind::Instruction(i) => i,
        ValueKind::Basic(v) => v.as_instruction_value().expect("a call's value is its instruction"),
    }
}

#[cfg(test)]
mod rust_path_tests {
    use super::rust_path;

    #[test]
    fn rust_paths_of_legacy_symbols() {
        assert_eq!(rust_path("_ZN11lua51_value6TValue9is_double17h6a7e1070aba4eca8E").as_deref(), Some("lua51_value::TValue::is_double"));
        assert_eq!(rust_path("_ZN3foo3bar3bazE").as_deref(), Some("foo::bar::baz"));
        assert_eq!(rust_path("is_double"), None);
        assert_eq!(rust_path("_ZN3fooE").as_deref(), Some("foo"));
        assert_eq!(rust_path("_ZN99fooE"), None);
        assert_eq!(rust_path("_ZN"), None);
    }
}
