#![doc = include_str!("../README.md")]

use std::collections::HashMap;

use deegen_api::runtime_constants as rc;
use deegen_bytecode_spec::Quickening;
use deegen_llvm_ir::raw::{Builder, Value};
use deegen_llvm_ir::*;
use deegen_pass::{AnalysisManager, Pass, PassDescriptor, PassError, PassParams, PipelineError, PreservedAnalyses, RegisteredPass};
use inkwell::llvm_sys::core::{LLVMConstIntGetSExtValue, LLVMConstIntGetZExtValue, LLVMGetGEPSourceElementType, LLVMIsAConstantInt};
use inkwell::llvm_sys::target::{LLVMABISizeOfType, LLVMGetModuleDataLayout};
use inkwell::llvm_sys::LLVMOpcode;
use inkwell::values::AsValueRef;

/// See the crate documentation.
#[derive(Debug, Default)]
pub struct IcStateFolding;

/// The pass's one declaration (name, description, parameters, phases).
pub static DESCRIPTOR: PassDescriptor<LlvmPhase> = PassDescriptor {
    name: "ic-state-folding",
    description: "in inline-cache stubs, arithmetic on the cached state (a slot's offset, say) becomes a runtime constant the JIT computes per stub",
    params: "",
    required: false,
    runs_in: &[LlvmPhase::Finalized],
    produces: None,
};

/// The range every derived constant is given: a `disp32` or `imm32` LLVM may fold it into.
/// A promise the JIT keeps by checking: a value outside it fails the stub, and the site stays
/// with its generic code.
pub const DERIVED_RANGE_END: u64 = rc::IC_DERIVED_RANGE_END;

/// Name of derived constant `k`'s symbol and of the function that computes it from the state.
pub fn derived_symbol(k: usize) -> String {
    format!("{}{k}", rc::IC_DERIVED_PREFIX)
}

pub fn derive_function(k: usize) -> String {
    format!("{}{k}", rc::IC_DERIVE_FUNCTION_PREFIX)
}

fn err(message: impl Into<String>) -> PassError {
    PassError::invalid_input(message)
}

impl<'ctx> Pass<LlvmModule<'ctx>> for IcStateFolding {
    fn run(&mut self, unit: &mut LlvmModule<'ctx>, _: &mut AnalysisManager<LlvmModule<'ctx>>) -> Result<PreservedAnalyses, PassError> {
        let module = &unit.module;
        let Some(state) = module.get_global(rc::IC_STATE) else {
            tracing::debug!("no inline-cache stub reads its state: nothing to fold");
            return Ok(PreservedAnalyses::all());
        };
        if let Some(f) = defined_functions(module).into_iter().find(|f| f.get_name().to_string_lossy().starts_with(rc::IC_DERIVE_FUNCTION_PREFIX)) {
            return Err(err(format!("the module already has derived constants ('{}')", f.get_name().to_string_lossy())));
        }
        let variants = read_variants(module).map_err(err)?;
        let ctx = module.get_context();
        // The state as the stubs read it: its symbol's address as an i32 or an i64.
        let state_ptr = state.as_pointer_value();
        let forms = [state_ptr.const_to_int(ctx.i32_type()), state_ptr.const_to_int(ctx.i64_type())];
        let mut folder = Folder { module, forms: forms.map(|c| Value(c.as_value_ref())), derived: HashMap::new(), builder: Builder::new(module) };
        let mut folded = 0;
        for f in defined_functions(module) {
            let is_stub = function_attr(f, HANDLER_KIND_ATTR).as_deref() == Some(handler_kind::STENCIL)
                && function_attr(f, VARIANT_ATTR)
                    .and_then(|o| o.parse::<usize>().ok())
                    .and_then(|o| variants.get(o))
                    .is_some_and(|v| matches!(v.quickening, Some(Quickening::Quickened { .. })));
            if is_stub {
                folded += folder.fold_function(Value(f.as_value_ref()));
            }
        }
        tracing::debug!(folded, constants = folder.derived.len(), "state arithmetic folded into derived constants");
        if folded == 0 {
            return Ok(PreservedAnalyses::all());
        }
        Ok(PreservedAnalyses::none())
    }
}

impl RegisteredPass<LlvmModule<'_>> for IcStateFolding {
    const DESCRIPTOR: &'static PassDescriptor<LlvmPhase> = &DESCRIPTOR;
    fn from_params(params: &PassParams) -> Result<Self, PipelineError> {
        params.expect_only(&[])?;
        Ok(IcStateFolding)
    }
}

/// The operations a derived constant may be made of: integer arithmetic and casts, each with
/// the state or constants as operands.
fn is_foldable_op(op: LLVMOpcode) -> bool {
    use LLVMOpcode::*;
    matches!(op, LLVMLShr | LLVMAShr | LLVMShl | LLVMAnd | LLVMOr | LLVMXor | LLVMAdd | LLVMSub | LLVMMul | LLVMZExt | LLVMSExt | LLVMTrunc)
}

fn is_const_int(v: Value) -> bool {
    unsafe { !LLVMIsAConstantInt(v.0).is_null() }
}

struct Folder<'a, 'ctx> {
    module: &'a inkwell::module::Module<'ctx>,
    /// `ptrtoint (@state to i32)` and `to i64`.
    forms: [Value; 2],
    /// Derived constants made so far, by the text of their expression: the symbol's address.
    derived: HashMap<String, Value>,
    builder: Builder,
}

impl Folder<'_, '_> {
    /// Whether `v` is computed from the state and constants only (and uses the state).
    fn is_state_only(&self, v: Value) -> bool {
        if self.forms.contains(&v) {
            return true;
        }
        if !v.is_instruction() || !v.opcode().is_some_and(is_foldable_op) {
            return false;
        }
        let ops = v.operands();
        ops.iter().all(|&o| is_const_int(o) || self.is_state_only(o)) && ops.iter().any(|&o| self.is_state_only(o))
    }

    /// A key naming `v`'s expression (equal keys compute equal values).
    fn expression_key(&self, v: Value) -> String {
        if v == self.forms[0] {
            return "s32".into();
        }
        if v == self.forms[1] {
            return "s64".into();
        }
        if is_const_int(v) {
            let width = v.int_width().unwrap_or(0);
            return format!("i{width}:{}", unsafe { LLVMConstIntGetZExtValue(v.0) });
        }
        let width = v.int_width().unwrap_or(0);
        let ops: Vec<String> = v.operands().into_iter().map(|o| self.expression_key(o)).collect();
        format!("{:?}/i{width}({})", v.opcode().expect("an instruction"), ops.join(","))
    }

    /// Clones `v`'s expression where the builder stands, the state being `state` (an i32).
    fn clone_expression(&self, v: Value, state: Value) -> Value {
        if v == self.forms[0] {
            return state;
        }
        if v == self.forms[1] {
            return self.builder.to_i64(state);
        }
        if is_const_int(v) {
            return v;
        }
        let operands: Vec<Value> = v.operands().into_iter().map(|o| self.clone_expression(o, state)).collect();
        let c = self.builder.insert_clone(v);
        for (i, o) in operands.into_iter().enumerate() {
            c.set_operand(i as u32, o);
        }
        c
    }

    /// The derived constant computing `expression(state)` (an i64 expression over the state
    /// built by `build`), as the `i64` address of its symbol. Made once per distinct key.
    fn derived(&mut self, key: String, build: impl FnOnce(&Self, Value) -> Value) -> Value {
        if let Some(&c) = self.derived.get(&key) {
            return c;
        }
        let k = self.derived.len();
        let ctx = self.module.get_context();
        let i64t = ctx.i64_type();
        // `i64 f(i32 state)`, the C calling convention: the JIT calls it when it makes a stub.
        let f = self.module.add_function(&derive_function(k), i64t.fn_type(&[ctx.i32_type().into()], false), None);
        f.set_section(Some(&format!(".text.{}", derive_function(k))));
        f.as_global_value().set_visibility(inkwell::GlobalVisibility::Hidden);
        for attr in ["nounwind", "willreturn"] {
            let kind = inkwell::attributes::Attribute::get_named_enum_kind_id(attr);
            f.add_attribute(inkwell::attributes::AttributeLoc::Function, ctx.create_enum_attribute(kind, 0));
        }
        let entry = ctx.append_basic_block(f, "entry");
        self.builder.position_at_end(deegen_llvm_ir::raw::Block(entry.as_mut_ptr()));
        let value = build(self, Value(f.get_nth_param(0).expect("one parameter").as_value_ref()));
        let value = self.builder.to_i64(value);
        self.builder.ret(value);
        let symbol = runtime_constant_symbol(self.module, &derived_symbol(k));
        let range = ctx.metadata_node(&[i64t.const_zero().into(), i64t.const_int(DERIVED_RANGE_END, false).into()]);
        self.module.get_global(&derived_symbol(k)).expect("declared above").set_metadata(range, ctx.get_kind_id("absolute_symbol"));
        let address = Value(symbol.const_to_int(i64t).as_value_ref());
        self.derived.insert(key, address);
        address
    }

    /// Folds one stub; returns how many uses now read a derived constant.
    fn fold_function(&mut self, f: Value) -> usize {
        let mut folded = 0;
        let instructions: Vec<Value> = f.blocks().into_iter().flat_map(|b| b.instructions()).collect();
        // A GEP indexed by the state (a slot of the object): its whole constant offset, with
        // that of a constant GEP it is based on, becomes one displacement.
        for &g in &instructions {
            if g.opcode() != Some(LLVMOpcode::LLVMGetElementPtr) {
                continue;
            }
            let ops = g.operands();
            if ops.len() != 2 || !self.is_state_only(ops[1]) {
                continue;
            }
            let size = unsafe {
                let td = LLVMGetModuleDataLayout(self.module.as_mut_ptr());
                LLVMABISizeOfType(td, LLVMGetGEPSourceElementType(g.0))
            };
            let (mut base, mut offset) = (ops[0], 0u64);
            if base.opcode() == Some(LLVMOpcode::LLVMGetElementPtr) {
                let inner = base.operands();
                let byte_sized = unsafe {
                    let td = LLVMGetModuleDataLayout(self.module.as_mut_ptr());
                    LLVMABISizeOfType(td, LLVMGetGEPSourceElementType(base.0)) == 1
                };
                if inner.len() == 2 && byte_sized && is_const_int(inner[1]) {
                    offset = unsafe { LLVMConstIntGetSExtValue(inner[1].0) } as u64;
                    base = inner[0];
                }
            }
            let index = ops[1];
            let key = format!("gep({}*{size}+{offset})", self.expression_key(index));
            let address = self.derived(key, |folder, state| {
                let b = &folder.builder;
                let i = b.to_i64(folder.clone_expression(index, state));
                b.add(b.mul(i, b.i64_constant(size)), b.i64_constant(offset))
            });
            self.builder.position_before(g);
            let new = self.builder.byte_gep(base, address, "ic.slot");
            g.replace_and_erase(new);
            folded += 1;
        }
        // What is left: a value computed from the state (a shifted index, a masked field) used
        // by code that is not.
        let instructions: Vec<Value> = f.blocks().into_iter().flat_map(|b| b.instructions()).collect();
        for &v in &instructions {
            if self.forms.contains(&v) || !self.is_state_only(v) {
                continue;
            }
            let users: Vec<Value> = v.users().into_iter().filter(|&u| !self.is_state_only(u)).collect();
            if users.is_empty() {
                continue;
            }
            let key = self.expression_key(v);
            let address = self.derived(key, |folder, state| folder.clone_expression(v, state));
            self.builder.position_before(v);
            let replacement = self.builder.from_i64(address, v.type_of());
            for u in users {
                for (i, o) in u.operands().into_iter().enumerate() {
                    if o == v {
                        u.set_operand(i as u32, replacement);
                    }
                }
            }
            folded += 1;
        }
        folded
    }
}
