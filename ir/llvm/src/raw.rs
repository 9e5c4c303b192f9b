//! Untyped views of LLVM values and blocks for the passes that rewrite control flow (cloning
//! instructions, rewriting operands and successors, editing phis, deleting blocks, walking the
//! CFG), which inkwell's typed API does not offer: thin wrappers over the C API. Every `Value`
//! and `Block` comes from a live module, and a pass keeps the IR valid between calls.

use std::collections::{HashMap, HashSet};
use std::ffi::CStr;

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::debuginfo::LLVMInstructionSetDebugLoc;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::{LLVMOpcode, LLVMTailCallKind, LLVMTypeKind};
use inkwell::types::{AsTypeRef, FunctionType};

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Value(pub LLVMValueRef);

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Block(pub LLVMBasicBlockRef);

/// An LLVM type of the module's context.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Type(pub LLVMTypeRef);

/// An edge whose branch weight is at most 1/this of its branch's total is a slow path
/// (`std::hint::cold_path()` gives 1 against 2000).
pub const COLD_WEIGHT_RATIO: u64 = 1000;

/// The operands of the instruction's metadata of kind `name` (as values), if it has one.
fn metadata_operands(inst: LLVMValueRef, name: &str) -> Option<Vec<LLVMValueRef>> {
    let ctx = unsafe { LLVMGetTypeContext(LLVMTypeOf(inst)) };
    let kind = unsafe { LLVMGetMDKindIDInContext(ctx, name.as_ptr() as *const _, name.len() as u32) };
    let md = unsafe { LLVMGetMetadata(inst, kind) };
    if md.is_null() {
        return None;
    }
    let n = unsafe { LLVMGetMDNodeNumOperands(md) } as usize;
    let mut ops: Vec<LLVMValueRef> = vec![std::ptr::null_mut(); n];
    unsafe { LLVMGetMDNodeOperands(md, ops.as_mut_ptr()) };
    Some(ops)
}

/// The text of a metadata string operand.
fn md_string(op: LLVMValueRef) -> Option<String> {
    if op.is_null() || unsafe { LLVMIsAMDString(op) }.is_null() {
        return None;
    }
    let mut len = 0;
    let p = unsafe { LLVMGetMDString(op, &mut len) };
    (!p.is_null()).then(|| String::from_utf8_lossy(unsafe { std::slice::from_raw_parts(p as *const u8, len as usize) }).into_owned())
}

/// Intrinsics that become library calls (and so need a stack frame).
const CALLING_INTRINSICS: [&str; 3] = ["llvm.memcpy", "llvm.memmove", "llvm.memset"];

fn name_of(v: LLVMValueRef) -> String {
    let mut len = 0;
    let p = unsafe { LLVMGetValueName2(v, &mut len) };
    if p.is_null() {
        return String::new();
    }
    String::from_utf8_lossy(unsafe { std::slice::from_raw_parts(p as *const u8, len) }).into_owned()
}

impl Value {
    pub fn blocks(self) -> Vec<Block> {
        let mut out = Vec::new();
        let mut b = unsafe { LLVMGetFirstBasicBlock(self.0) };
        while !b.is_null() {
            out.push(Block(b));
            b = unsafe { LLVMGetNextBasicBlock(b) };
        }
        out
    }

    pub fn param(self, i: u32) -> Value {
        Value(unsafe { LLVMGetParam(self.0, i) })
    }

    pub fn append_block(self, name: &str) -> Block {
        let name = std::ffi::CString::new(name).unwrap_or_default();
        Block(unsafe { LLVMAppendBasicBlockInContext(LLVMGetTypeContext(LLVMTypeOf(self.0)), self.0, name.as_ptr()) })
    }

    pub fn name(self) -> String {
        name_of(self.0)
    }

    pub fn type_of(self) -> Type {
        Type(unsafe { LLVMTypeOf(self.0) })
    }

    pub fn is_instruction(self) -> bool {
        !unsafe { LLVMIsAInstruction(self.0) }.is_null()
    }

    pub fn is_phi(self) -> bool {
        !unsafe { LLVMIsAPHINode(self.0) }.is_null()
    }

    /// Whether the value is a `double`.
    pub fn is_double(self) -> bool {
        unsafe { LLVMGetTypeKind(LLVMTypeOf(self.0)) == LLVMTypeKind::LLVMDoubleTypeKind }
    }

    /// Whether this is a load that is neither volatile nor atomic.
    pub fn is_simple_load(self) -> bool {
        self.opcode() == Some(LLVMOpcode::LLVMLoad)
            && unsafe {
                LLVMGetVolatile(self.0) == 0 && LLVMGetOrdering(self.0) == inkwell::llvm_sys::LLVMAtomicOrdering::LLVMAtomicOrderingNotAtomic
            }
    }

    /// The instruction after this one in its block.
    pub fn next_instruction(self) -> Option<Value> {
        let n = unsafe { LLVMGetNextInstruction(self.0) };
        (!n.is_null()).then_some(Value(n))
    }

    /// Names the value (`%name` in printed IR).
    pub fn set_name(self, name: &str) {
        unsafe { LLVMSetValueName2(self.0, name.as_ptr() as *const _, name.len()) }
    }

    /// Whether the value is a parameter of its function.
    pub fn is_argument(self) -> bool {
        !unsafe { LLVMIsAArgument(self.0) }.is_null()
    }

    pub fn is_alloca(self) -> bool {
        !unsafe { LLVMIsAAllocaInst(self.0) }.is_null()
    }

    /// The block of an instruction.
    pub fn parent(self) -> Block {
        Block(unsafe { LLVMGetInstructionParent(self.0) })
    }

    pub fn operands(self) -> Vec<Value> {
        let n = unsafe { LLVMGetNumOperands(self.0) };
        (0..n as u32).map(|i| Value(unsafe { LLVMGetOperand(self.0, i) })).collect()
    }

    pub fn set_operand(self, i: u32, v: Value) {
        unsafe { LLVMSetOperand(self.0, i, v.0) }
    }

    /// Instructions using this value.
    pub fn users(self) -> Vec<Value> {
        let mut out = Vec::new();
        let mut u = unsafe { LLVMGetFirstUse(self.0) };
        while !u.is_null() {
            out.push(Value(unsafe { LLVMGetUser(u) }));
            u = unsafe { LLVMGetNextUse(u) };
        }
        out
    }

    /// A phi's `(value, predecessor)` pairs.
    pub fn incoming(self) -> Vec<(Value, Block)> {
        let n = unsafe { LLVMCountIncoming(self.0) };
        (0..n).map(|i| unsafe { (Value(LLVMGetIncomingValue(self.0, i)), Block(LLVMGetIncomingBlock(self.0, i))) }).collect()
    }

    pub fn add_incoming(self, v: Value, from: Block) {
        let mut values = [v.0];
        let mut blocks = [from.0];
        unsafe { LLVMAddIncoming(self.0, values.as_mut_ptr(), blocks.as_mut_ptr(), 1) }
    }

    /// Rebuilds a phi without the entries of `preds` (the C API cannot remove one); a phi
    /// left with none is replaced by poison (its block is unreachable).
    pub fn remove_incoming_from(self, preds: &[Block], builder: &Builder) {
        let keep: Vec<(Value, Block)> = self.incoming().into_iter().filter(|(_, b)| !preds.contains(b)).collect();
        if keep.len() == unsafe { LLVMCountIncoming(self.0) } as usize {
            return;
        }
        self.rebuild_phi(keep, builder);
    }

    /// Rebuilds a phi with its entry from `from` coming from `to` instead.
    pub fn retarget_incoming(self, from: Block, to: Block, builder: &Builder) {
        let entries = self.incoming().into_iter().map(|(v, b)| (v, if b == from { to } else { b })).collect();
        self.rebuild_phi(entries, builder);
    }

    /// Replaces a phi by one with `entries` (by poison when there are none) and erases it.
    fn rebuild_phi(self, entries: Vec<(Value, Block)>, builder: &Builder) {
        let replacement = if entries.is_empty() {
            Value(unsafe { LLVMGetPoison(self.type_of().0) })
        } else {
            builder.position_before(self);
            let n = builder.phi(self.type_of(), &self.name());
            for (v, b) in entries {
                n.add_incoming(v, b);
            }
            n
        };
        self.replace_and_erase(replacement);
    }

    /// For a call: the called value (a function for direct calls).
    pub fn callee(self) -> Option<Value> {
        if unsafe { LLVMIsACallInst(self.0) }.is_null() {
            return None;
        }
        Some(Value(unsafe { LLVMGetCalledValue(self.0) }))
    }

    /// For a call: its arguments (the operands before the callee).
    pub fn call_args(self) -> Vec<Value> {
        let mut ops = self.operands();
        ops.pop();
        ops
    }

    /// Makes a call call `f` instead (which must have the call's function type).
    pub fn set_callee(self, f: Value) {
        let n = unsafe { LLVMGetNumOperands(self.0) } as u32;
        unsafe { LLVMSetOperand(self.0, n - 1, f.0) }
    }

    /// The function type of a call.
    pub fn called_function_type(self) -> Type {
        Type(unsafe { LLVMGetCalledFunctionType(self.0) })
    }

    /// The function type of a function.
    pub fn function_type(self) -> Type {
        Type(unsafe { LLVMGlobalGetValueType(self.0) })
    }

    /// Erases an instruction (which must have no uses).
    pub fn erase(self) {
        unsafe { LLVMInstructionEraseFromParent(self.0) }
    }

    /// Gives this instruction the branch weights (`!prof`) of `from`, if it has any.
    pub fn copy_branch_weights(self, from: Value) {
        unsafe {
            let kind = LLVMGetMDKindIDInContext(LLVMGetTypeContext(LLVMTypeOf(self.0)), c"prof".as_ptr(), 4);
            let node = LLVMGetMetadata(from.0, kind);
            if !node.is_null() {
                LLVMSetMetadata(self.0, kind, node);
            }
        }
    }

    /// For a terminator: makes its successor `i` `to`.
    pub fn set_successor(self, i: u32, to: Block) {
        unsafe { LLVMSetSuccessor(self.0, i, to.0) }
    }

    /// Replaces every use with `v` and erases the instruction.
    pub fn replace_and_erase(self, v: Value) {
        unsafe {
            LLVMReplaceAllUsesWith(self.0, v.0);
            LLVMInstructionEraseFromParent(self.0);
        }
    }

    /// The name of a global value (`None` for other values).
    pub fn global_name(self) -> Option<String> {
        (!unsafe { LLVMIsAGlobalValue(self.0) }.is_null()).then(|| name_of(self.0))
    }

    /// A constant (a literal, a global's address, a constant expression).
    pub fn is_constant(self) -> bool {
        unsafe { LLVMIsConstant(self.0) != 0 }
    }

    /// Whether this is a constant expression.
    pub fn is_constant_expr(self) -> bool {
        !unsafe { LLVMIsAConstantExpr(self.0) }.is_null()
    }

    /// For a call of an inline asm: its assembly text.
    pub fn inline_asm_text(self) -> Option<String> {
        let callee = self.callee()?;
        if unsafe { LLVMIsAInlineAsm(callee.0) }.is_null() {
            return None;
        }
        let mut len = 0;
        let p = unsafe { LLVMGetInlineAsmAsmString(callee.0, &mut len) };
        Some(String::from_utf8_lossy(unsafe { std::slice::from_raw_parts(p as *const u8, len) }).into_owned())
    }

    /// The instruction's opcode (`None` for other values).
    pub fn opcode(self) -> Option<LLVMOpcode> {
        (!unsafe { LLVMIsAInstruction(self.0) }.is_null()).then(|| unsafe { LLVMGetInstructionOpcode(self.0) })
    }

    /// Whether the instruction carries metadata of kind `name`.
    pub fn has_metadata(self, name: &str) -> bool {
        if unsafe { LLVMIsAInstruction(self.0) }.is_null() {
            return false;
        }
        let ctx = unsafe { LLVMGetTypeContext(LLVMTypeOf(self.0)) };
        let kind = unsafe { LLVMGetMDKindIDInContext(ctx, name.as_ptr() as *const _, name.len() as u32) };
        !unsafe { LLVMGetMetadata(self.0, kind) }.is_null()
    }

    /// Whether the instruction may write memory or have another side effect, counting every call
    /// but those `pure_call` accepts.
    pub fn may_write(self, pure_call: &dyn Fn(Value) -> bool) -> bool {
        match self.opcode() {
            Some(
                LLVMOpcode::LLVMStore | LLVMOpcode::LLVMAtomicRMW | LLVMOpcode::LLVMAtomicCmpXchg | LLVMOpcode::LLVMFence | LLVMOpcode::LLVMVAArg,
            ) => true,
            Some(LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke | LLVMOpcode::LLVMCallBr) => !pure_call(self),
            Some(LLVMOpcode::LLVMLoad) => unsafe { LLVMGetVolatile(self.0) != 0 },
            _ => false,
        }
    }

    /// A poison value of this value's type.
    pub fn poison_like(self) -> Value {
        Value(unsafe { LLVMGetPoison(LLVMTypeOf(self.0)) })
    }

    /// An `i1` constant.
    pub fn bool_constant(like: Value, b: bool) -> Value {
        Value(unsafe { LLVMConstInt(LLVMTypeOf(like.0), b as u64, 0) })
    }

    /// `Some((x, y, is_and))` for `and i1 x, y` / `select i1 x, i1 y, i1 false` (`is_and`) and
    /// `or i1 x, y` / `select i1 x, i1 true, i1 y`.
    pub fn boolean_pair(self) -> Option<(Value, Value, bool)> {
        if unsafe { LLVMIsAInstruction(self.0) }.is_null()
            || unsafe { LLVMGetTypeKind(LLVMTypeOf(self.0)) } != LLVMTypeKind::LLVMIntegerTypeKind
            || unsafe { LLVMGetIntTypeWidth(LLVMTypeOf(self.0)) } != 1
        {
            return None;
        }
        let ops = self.operands();
        let constant = |v: &Value| unsafe { (!LLVMIsAConstantInt(v.0).is_null()).then(|| LLVMConstIntGetZExtValue(v.0)) };
        match (unsafe { LLVMGetInstructionOpcode(self.0) }, ops.as_slice()) {
            (LLVMOpcode::LLVMAnd, [a, b]) => Some((*a, *b, true)),
            (LLVMOpcode::LLVMOr, [a, b]) => Some((*a, *b, false)),
            (LLVMOpcode::LLVMSelect, [c, t, f]) if constant(f) == Some(0) => Some((*c, *t, true)),
            (LLVMOpcode::LLVMSelect, [c, t, f]) if constant(t) == Some(1) => Some((*c, *f, false)),
            _ => None,
        }
    }

    /// For `icmp`: `(predicate, lhs, rhs)`.
    pub fn icmp(self) -> Option<(inkwell::llvm_sys::LLVMIntPredicate, Value, Value)> {
        if unsafe { LLVMIsAICmpInst(self.0) }.is_null() {
            return None;
        }
        let ops = self.operands();
        Some((unsafe { LLVMGetICmpPredicate(self.0) }, ops[0], ops[1]))
    }

    /// For `bitcast x`: `x`.
    pub fn is_bitcast_of(self) -> Option<Value> {
        if unsafe { LLVMIsABitCastInst(self.0) }.is_null() {
            return None;
        }
        Some(self.operands()[0])
    }

    pub fn is_fcmp(self) -> bool {
        !unsafe { LLVMIsAFCmpInst(self.0) }.is_null()
    }

    /// For an `fcmp`: its predicate.
    pub fn fcmp_predicate(self) -> Option<inkwell::llvm_sys::LLVMRealPredicate> {
        self.is_fcmp().then(|| unsafe { LLVMGetFCmpPredicate(self.0) })
    }

    /// Whether this is `fcmp ord`.
    pub fn is_fcmp_ord(self) -> bool {
        self.is_fcmp() && unsafe { LLVMGetFCmpPredicate(self.0) } == inkwell::llvm_sys::LLVMRealPredicate::LLVMRealORD
    }

    /// The width of an integer-typed value.
    pub fn int_width(self) -> Option<u32> {
        let t = unsafe { LLVMTypeOf(self.0) };
        (unsafe { LLVMGetTypeKind(t) } == LLVMTypeKind::LLVMIntegerTypeKind).then(|| unsafe { LLVMGetIntTypeWidth(t) })
    }

    /// The value of an integer constant of at most 64 bits.
    pub fn const_u64(self) -> Option<u64> {
        if unsafe { LLVMIsAConstantInt(self.0) }.is_null() || unsafe { LLVMGetIntTypeWidth(LLVMTypeOf(self.0)) } > 64 {
            return None;
        }
        Some(unsafe { LLVMConstIntGetZExtValue(self.0) })
    }

    /// `Some(x)` for `xor i1 x, true` (a negated condition).
    pub fn negated_operand(self) -> Option<Value> {
        if unsafe { LLVMIsAInstruction(self.0) }.is_null() || unsafe { LLVMGetInstructionOpcode(self.0) } != LLVMOpcode::LLVMXor {
            return None;
        }
        let ops = self.operands();
        let is_true = |v: &Value| unsafe { !LLVMIsAConstantInt(v.0).is_null() && LLVMConstIntGetZExtValue(v.0) == 1 };
        match ops.as_slice() {
            [a, b] if is_true(b) => Some(*a),
            [a, b] if is_true(a) => Some(*b),
            _ => None,
        }
    }

    /// Whether the value can travel in an `i64` argument and come back unchanged.
    pub fn crosses_as_i64(self) -> bool {
        let t = self.type_of().0;
        match unsafe { LLVMGetTypeKind(t) } {
            LLVMTypeKind::LLVMIntegerTypeKind => (unsafe { LLVMGetIntTypeWidth(t) }) <= 64,
            LLVMTypeKind::LLVMPointerTypeKind | LLVMTypeKind::LLVMDoubleTypeKind => true,
            _ => false,
        }
    }

    /// Deletes the blocks the entry no longer reaches, with their phi entries elsewhere.
    pub fn delete_unreachable_blocks(self, builder: &Builder) {
        let blocks = self.blocks();
        let live: HashSet<Block> = blocks[0].reachable(&blocks).into_iter().collect();
        let dead: Vec<Block> = blocks.iter().copied().filter(|b| !live.contains(b)).collect();
        if dead.is_empty() {
            return;
        }
        for b in &blocks {
            if live.contains(b) {
                for p in b.phis() {
                    p.remove_incoming_from(&dead, builder);
                }
            }
        }
        for b in &dead {
            for inst in b.instructions().into_iter().rev() {
                unsafe {
                    if LLVMGetTypeKind(LLVMTypeOf(inst.0)) != LLVMTypeKind::LLVMVoidTypeKind {
                        LLVMReplaceAllUsesWith(inst.0, LLVMGetPoison(LLVMTypeOf(inst.0)));
                    }
                    LLVMInstructionEraseFromParent(inst.0);
                }
            }
        }
        for b in dead {
            unsafe { LLVMDeleteBasicBlock(b.0) };
        }
    }

    /// Stack slots nothing uses any more would still give the function a frame.
    pub fn delete_unused_allocas(self) {
        for b in self.blocks() {
            for inst in b.instructions() {
                if inst.is_alloca() && inst.users().is_empty() {
                    unsafe { LLVMInstructionEraseFromParent(inst.0) };
                }
            }
        }
    }

    /// The distinct predecessors of `b`.
    pub fn predecessors(self, b: Block) -> Vec<Block> {
        let mut out = Vec::new();
        for p in self.blocks() {
            if p.successors().contains(&b) && !out.contains(&p) {
                out.push(p);
            }
        }
        out
    }
}

impl Block {
    pub fn instructions(self) -> Vec<Value> {
        let mut out = Vec::new();
        let mut i = unsafe { LLVMGetFirstInstruction(self.0) };
        while !i.is_null() {
            out.push(Value(i));
            i = unsafe { LLVMGetNextInstruction(i) };
        }
        out
    }

    pub fn phis(self) -> Vec<Value> {
        self.instructions().into_iter().take_while(|i| i.is_phi()).collect()
    }

    pub fn name(self) -> String {
        let p = unsafe { LLVMGetBasicBlockName(self.0) };
        if p.is_null() {
            return String::new();
        }
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    }

    fn terminator(self) -> Option<LLVMValueRef> {
        let t = unsafe { LLVMGetBasicBlockTerminator(self.0) };
        (!t.is_null()).then_some(t)
    }

    /// The condition of a conditional branch ending the block (successor 0 is taken when true).
    pub fn branch_condition(self) -> Option<Value> {
        let t = self.terminator()?;
        if unsafe { LLVMIsABranchInst(t) }.is_null() || unsafe { LLVMIsConditional(t) } == 0 {
            return None;
        }
        Some(Value(unsafe { LLVMGetCondition(t) }))
    }

    pub fn successors(self) -> Vec<Block> {
        let Some(t) = self.terminator() else { return Vec::new() };
        let n = unsafe { LLVMGetNumSuccessors(t) };
        (0..n).map(|i| Block(unsafe { LLVMGetSuccessor(t, i) })).collect()
    }

    /// Successors whose edge is a slow path: named by the terminator's
    /// [`COLD_EDGE_METADATA`](crate::COLD_EDGE_METADATA), or given at most
    /// 1/[`COLD_WEIGHT_RATIO`] of the branch's weight by its `!prof` branch weights (what
    /// `std::hint::cold_path()` in the semantics becomes). Empty without either.
    ///
    /// The metadata names a successor by its index, and LLVM keeps it unchanged when it swaps
    /// the successors or folds the branch with another (SimplifyCFG merging a check of the
    /// argument count with a string's tag check left `string.byte`'s whole fast path named
    /// cold); it updates `!prof`. So where the branch has weights too, the named edge counts
    /// only if the weights still make it the clearly less likely one (at most a third).
    pub fn cold_successors(self) -> Vec<Block> {
        let Some(t) = self.terminator() else { return Vec::new() };
        let successors = self.successors();
        let weights = self.branch_weights().filter(|w| w.len() == successors.len());
        let mut cold = Vec::new();
        if let Some([op]) = metadata_operands(t, crate::COLD_EDGE_METADATA).as_deref() {
            if !unsafe { LLVMIsAConstantInt(*op) }.is_null() {
                let index = unsafe { LLVMConstIntGetZExtValue(*op) } as usize;
                let agrees = match &weights {
                    Some(w) => w.get(index).is_some_and(|&mine| mine.saturating_mul(3) <= w.iter().sum::<u64>()),
                    None => true,
                };
                if agrees {
                    cold.extend(successors.get(index).copied());
                }
            }
        }
        if let Some(weights) = weights {
            let total: u64 = weights.iter().sum();
            for (s, w) in successors.iter().zip(&weights) {
                if w.saturating_mul(COLD_WEIGHT_RATIO) <= total && !cold.contains(s) {
                    cold.push(*s);
                }
            }
        }
        cold
    }

    /// The terminator's `!prof` branch weights (`!{!"branch_weights", [!"expected",] i32 w0,
    /// i32 w1, ...}`, one per successor), if it has them.
    pub fn branch_weights(self) -> Option<Vec<u64>> {
        let ops = metadata_operands(self.terminator()?, "prof")?;
        if ops.first().is_none_or(|&op| md_string(op).as_deref() != Some("branch_weights")) {
            return None;
        }
        Some(ops.iter().filter(|&&op| !unsafe { LLVMIsAConstantInt(op) }.is_null()).map(|&op| unsafe { LLVMConstIntGetZExtValue(op) }).collect())
    }

    /// Removes the terminator's [`COLD_EDGE_METADATA`](crate::COLD_EDGE_METADATA).
    pub fn clear_cold_edge(self) {
        let Some(t) = self.terminator() else { return };
        let name = crate::COLD_EDGE_METADATA;
        let ctx = unsafe { LLVMGetTypeContext(LLVMTypeOf(t)) };
        let kind = unsafe { LLVMGetMDKindIDInContext(ctx, name.as_ptr() as *const _, name.len() as u32) };
        unsafe { LLVMSetMetadata(t, kind, std::ptr::null_mut()) };
    }

    /// The function holding the block.
    pub fn parent_function(self) -> Value {
        Value(unsafe { LLVMGetBasicBlockParent(self.0) })
    }

    /// The block's terminator.
    pub fn terminator_value(self) -> Option<Value> {
        self.terminator().map(Value)
    }

    /// Splits the block after `inst`: what follows it moves to a new block the function gets,
    /// which this block now branches to (phis of the moved terminator's successors follow).
    /// Returns the new block.
    pub fn split_after(self, inst: Value, name: &str, builder: &Builder) -> Block {
        let rest = self.parent_function().append_block(name);
        let after: Vec<Value> = self.instructions().into_iter().skip_while(|i| *i != inst).skip(1).collect();
        builder.position_at_end(rest);
        for i in after {
            builder.insert_moved(i);
        }
        for s in rest.successors() {
            for p in s.phis() {
                p.retarget_incoming(self, rest, builder);
            }
        }
        builder.position_at_end(self);
        builder.branch(rest);
        rest
    }

    /// Points every edge from this block to `from` at `to`.
    pub fn redirect(self, from: Block, to: Block) {
        let Some(t) = self.terminator() else { return };
        for i in 0..unsafe { LLVMGetNumSuccessors(t) } {
            if unsafe { LLVMGetSuccessor(t, i) } == from.0 {
                unsafe { LLVMSetSuccessor(t, i, to.0) };
            }
        }
    }

    /// The blocks reachable from this one (itself included), in the function's block order.
    pub fn reachable(self, order: &[Block]) -> Vec<Block> {
        let mut seen: HashSet<Block> = HashSet::from([self]);
        let mut work = vec![self];
        while let Some(b) = work.pop() {
            for s in b.successors() {
                if seen.insert(s) {
                    work.push(s);
                }
            }
        }
        order.iter().copied().filter(|b| seen.contains(b)).collect()
    }

    /// Whether the block makes a call that needs a stack frame: any call but a `musttail` one
    /// (dispatch, handler-to-handler), intrinsics that stay inline and the uncommon-path
    /// directive.
    pub fn needs_frame(self) -> bool {
        self.instructions().into_iter().any(|i| unsafe {
            match LLVMGetInstructionOpcode(i.0) {
                LLVMOpcode::LLVMInvoke | LLVMOpcode::LLVMCallBr => true,
                LLVMOpcode::LLVMCall => {
                    if LLVMGetTailCallKind(i.0) == LLVMTailCallKind::LLVMTailCallKindMustTail {
                        return false;
                    }
                    let callee = LLVMGetCalledValue(i.0);
                    // An inline asm without side effects is an instruction, not a call (the
                    // baseline JIT's `movabs` of a 64-bit runtime constant).
                    if !LLVMIsAInlineAsm(callee).is_null() {
                        return LLVMGetInlineAsmHasSideEffects(callee) != 0;
                    }
                    if LLVMIsAFunction(callee).is_null() {
                        return true;
                    }
                    if LLVMGetIntrinsicID(callee) == 0 {
                        // The uncommon-path directive is erased before code generation.
                        return name_of(callee) != crate::UNCOMMON_PATH_DIRECTIVE;
                    }
                    let name = name_of(callee);
                    CALLING_INTRINSICS.iter().any(|p| name.starts_with(p))
                }
                _ => false,
            }
        })
    }
}

/// Where a copy of the slow path maps the handler's values and blocks.
#[derive(Default)]
pub struct ValueMap {
    pub values: HashMap<Value, Value>,
    pub blocks: HashMap<Block, Block>,
}

impl ValueMap {
    /// The copy's counterpart of an operand: a value, a block, or nothing (a constant).
    pub fn get(&self, v: Value) -> Option<Value> {
        if unsafe { LLVMValueIsBasicBlock(v.0) } != 0 {
            let b = Block(unsafe { LLVMValueAsBasicBlock(v.0) });
            return self.blocks.get(&b).map(|n| Value(unsafe { LLVMBasicBlockAsValue(n.0) }));
        }
        self.values.get(&v).copied()
    }
}

/// An IR builder of the module's context.
pub struct Builder {
    raw: LLVMBuilderRef,
    i64: LLVMTypeRef,
}

impl Drop for Builder {
    fn drop(&mut self) {
        unsafe { LLVMDisposeBuilder(self.raw) }
    }
}

const NO_NAME: &CStr = c"";

impl Builder {
    pub fn new(module: &inkwell::module::Module<'_>) -> Self {
        let raw = unsafe { LLVMCreateBuilderInContext(LLVMGetModuleContext(module.as_mut_ptr())) };
        Builder { raw, i64: module.get_context().i64_type().as_type_ref() }
    }

    pub fn position_at_end(&self, b: Block) {
        unsafe { LLVMPositionBuilderAtEnd(self.raw, b.0) }
    }

    pub fn position_before(&self, inst: Value) {
        unsafe { LLVMPositionBuilderBefore(self.raw, inst.0) }
    }

    /// `a * b` and `a + b` of two integers of one type.
    pub fn mul(&self, a: Value, b: Value) -> Value {
        Value(unsafe { LLVMBuildMul(self.raw, a.0, b.0, NO_NAME.as_ptr()) })
    }

    pub fn add(&self, a: Value, b: Value) -> Value {
        Value(unsafe { LLVMBuildAdd(self.raw, a.0, b.0, NO_NAME.as_ptr()) })
    }

    /// The `i64` constant `x`.
    pub fn i64_constant(&self, x: u64) -> Value {
        Value(unsafe { LLVMConstInt(self.i64, x, 0) })
    }

    /// `getelementptr i8, ptr base, offset`: `offset` bytes past `base`.
    pub fn byte_gep(&self, base: Value, offset: Value, name: &str) -> Value {
        let name = std::ffi::CString::new(name).unwrap_or_default();
        let mut indices = [offset.0];
        Value(unsafe {
            let i8t = LLVMInt8TypeInContext(LLVMGetTypeContext(self.i64));
            LLVMBuildGEP2(self.raw, i8t, base.0, indices.as_mut_ptr(), 1, name.as_ptr())
        })
    }

    /// `ret v`.
    pub fn ret(&self, v: Value) {
        unsafe { LLVMBuildRet(self.raw, v.0) };
    }

    pub fn phi(&self, ty: Type, name: &str) -> Value {
        let name = std::ffi::CString::new(name).unwrap_or_default();
        Value(unsafe { LLVMBuildPhi(self.raw, ty.0, name.as_ptr()) })
    }

    pub fn branch(&self, to: Block) {
        unsafe { LLVMBuildBr(self.raw, to.0) };
    }

    /// Inserts a copy of `inst` (operands unchanged, no debug location) at the position.
    pub fn insert_clone(&self, inst: Value) -> Value {
        let name = std::ffi::CString::new(inst.name()).unwrap_or_default();
        unsafe {
            let c = LLVMInstructionClone(inst.0);
            LLVMInsertIntoBuilderWithName(self.raw, c, name.as_ptr());
            LLVMInstructionSetDebugLoc(c, std::ptr::null_mut());
            Value(c)
        }
    }

    /// Copies the body of function `from` into `to`, a function without one of the same type:
    /// every block and instruction, in order, with the operands, successors and phi entries
    /// mapped to their copies and `from`'s parameters to `to`'s.
    pub fn clone_body_into(&self, from: Value, to: Value) {
        let mut map = ValueMap::default();
        for i in 0..unsafe { LLVMCountParams(from.0) } {
            map.values.insert(from.param(i), to.param(i));
        }
        let blocks = from.blocks();
        for &b in &blocks {
            map.blocks.insert(b, to.append_block(&b.name()));
        }
        self.clone_blocks(&blocks, &mut map, Vec::new(), |_| false);
    }

    /// Copies the instructions of `blocks` (but those `skip` names) to the end of their
    /// counterparts in `map.blocks`, in order, then maps the copies' operands through `map`.
    /// A phi is copied empty and then given its entries from blocks with a counterpart, as are
    /// the `(original, copy)` phis the caller made itself.
    pub fn clone_blocks(&self, blocks: &[Block], map: &mut ValueMap, mut phis: Vec<(Value, Value)>, skip: impl Fn(Value) -> bool) {
        let mut clones = Vec::new();
        for &b in blocks {
            self.position_at_end(map.blocks[&b]);
            for inst in b.instructions() {
                if skip(inst) {
                    continue;
                }
                let c = if inst.is_phi() {
                    let c = self.phi(inst.type_of(), &inst.name());
                    phis.push((inst, c));
                    c
                } else {
                    let c = self.insert_clone(inst);
                    clones.push(c);
                    c
                };
                map.values.insert(inst, c);
            }
        }
        for c in clones {
            for (i, v) in c.operands().into_iter().enumerate() {
                if let Some(n) = map.get(v) {
                    c.set_operand(i as u32, n);
                }
            }
        }
        for (inst, c) in phis {
            for (v, from) in inst.incoming() {
                if let Some(&copy) = map.blocks.get(&from) {
                    c.add_incoming(map.get(v).unwrap_or(v), copy);
                }
            }
        }
    }

    /// `v` as an `i64` argument (see [`Value::crosses_as_i64`]).
    pub fn to_i64(&self, v: Value) -> Value {
        let t = v.type_of().0;
        Value(unsafe {
            match LLVMGetTypeKind(t) {
                LLVMTypeKind::LLVMPointerTypeKind => LLVMBuildPtrToInt(self.raw, v.0, self.i64, NO_NAME.as_ptr()),
                LLVMTypeKind::LLVMDoubleTypeKind => LLVMBuildBitCast(self.raw, v.0, self.i64, NO_NAME.as_ptr()),
                _ if LLVMGetIntTypeWidth(t) < 64 => LLVMBuildZExt(self.raw, v.0, self.i64, NO_NAME.as_ptr()),
                _ => v.0,
            }
        })
    }

    /// The inverse of [`Self::to_i64`]: an `i64` argument back as a value of type `ty`.
    pub fn from_i64(&self, v: Value, ty: Type) -> Value {
        let ty = ty.0;
        Value(unsafe {
            match LLVMGetTypeKind(ty) {
                LLVMTypeKind::LLVMPointerTypeKind => LLVMBuildIntToPtr(self.raw, v.0, ty, NO_NAME.as_ptr()),
                LLVMTypeKind::LLVMDoubleTypeKind => LLVMBuildBitCast(self.raw, v.0, ty, NO_NAME.as_ptr()),
                _ if LLVMGetIntTypeWidth(ty) < 64 => LLVMBuildTrunc(self.raw, v.0, ty, NO_NAME.as_ptr()),
                _ => v.0,
            }
        })
    }

    /// `fcmp ord double (bitcast a), (bitcast b)`: true when neither is a NaN.
    ///
    /// The compare takes `b` first when `swapped` (the same test: the order only decides which
    /// `ucomisd` the backend emits, see `nan-check-fusion`).
    pub fn both_ordered(&self, a: Value, b: Value, swapped: bool) -> Value {
        unsafe {
            let double = LLVMDoubleTypeInContext(LLVMGetTypeContext(LLVMTypeOf(a.0)));
            let fa = LLVMBuildBitCast(self.raw, a.0, double, c"lhs.as_double".as_ptr());
            let fb = LLVMBuildBitCast(self.raw, b.0, double, c"rhs.as_double".as_ptr());
            let (x, y) = if swapped { (fb, fa) } else { (fa, fb) };
            Value(LLVMBuildFCmp(self.raw, inkwell::llvm_sys::LLVMRealPredicate::LLVMRealORD, x, y, c"both.ordered".as_ptr()))
        }
    }

    /// `ptr + offset` (bytes).
    fn byte_offset(&self, ptr: Value, offset: u64) -> LLVMValueRef {
        unsafe {
            let i8t = LLVMInt8TypeInContext(LLVMGetTypeContext(LLVMTypeOf(ptr.0)));
            let mut offset = [LLVMConstInt(self.i64, offset, 0)];
            LLVMBuildInBoundsGEP2(self.raw, i8t, ptr.0, offset.as_mut_ptr(), 1, NO_NAME.as_ptr())
        }
    }

    /// `load i64, (ptr + offset)`; with `invariant`, a field of a read-only record
    /// (`!invariant.load`).
    pub fn load_i64_at(&self, ptr: Value, offset: u64, invariant: bool, name: &str) -> Value {
        let name = std::ffi::CString::new(name).unwrap_or_default();
        unsafe {
            let ctx = LLVMGetTypeContext(LLVMTypeOf(ptr.0));
            let load = LLVMBuildLoad2(self.raw, self.i64, self.byte_offset(ptr, offset), name.as_ptr());
            LLVMSetAlignment(load, 8);
            if invariant {
                let kind = LLVMGetMDKindIDInContext(ctx, c"invariant.load".as_ptr(), "invariant.load".len() as u32);
                let empty = LLVMMetadataAsValue(ctx, LLVMMDNodeInContext2(ctx, std::ptr::null_mut(), 0));
                LLVMSetMetadata(load, kind, empty);
            }
            Value(load)
        }
    }

    /// For a simple (not volatile, not atomic) `load i64`: the same load as a `double`, with its
    /// alignment and the metadata that holds of a double too (not `!range`, `!nonnull` and the
    /// other pointer and integer facts), inserted at the builder's position. `None` for any
    /// other instruction.
    pub fn load_as_double(&self, load: Value) -> Option<Value> {
        const INTEGER_OR_POINTER_FACTS: [&str; 6] = ["range", "nonnull", "align", "dereferenceable", "dereferenceable_or_null", "noalias.addrspace"];
        if !load.is_simple_load() || load.int_width() != Some(64) {
            return None;
        }
        unsafe {
            let ctx = LLVMGetTypeContext(LLVMTypeOf(load.0));
            let double = LLVMDoubleTypeInContext(ctx);
            let name = std::ffi::CString::new(format!("{}.double", load.name())).unwrap_or_default();
            let ptr = load.operands()[0];
            let d = LLVMBuildLoad2(self.raw, double, ptr.0, name.as_ptr());
            LLVMSetAlignment(d, LLVMGetAlignment(load.0));
            let skip: Vec<u32> =
                INTEGER_OR_POINTER_FACTS.iter().map(|k| LLVMGetMDKindIDInContext(ctx, k.as_ptr() as *const _, k.len() as u32)).collect();
            let mut n = 0;
            let entries = LLVMInstructionGetAllMetadataOtherThanDebugLoc(load.0, &mut n);
            for i in 0..n as u32 {
                let kind = LLVMValueMetadataEntriesGetKind(entries, i);
                if !skip.contains(&kind) {
                    LLVMSetMetadata(d, kind, LLVMMetadataAsValue(ctx, LLVMValueMetadataEntriesGetMetadata(entries, i)));
                }
            }
            if !entries.is_null() {
                LLVMDisposeValueMetadataEntries(entries);
            }
            Some(Value(d))
        }
    }

    /// `store i64 v, (ptr + offset)`.
    pub fn store_i64_at(&self, ptr: Value, offset: u64, v: Value) {
        unsafe {
            let store = LLVMBuildStore(self.raw, v.0, self.byte_offset(ptr, offset));
            LLVMSetAlignment(store, 8);
        }
    }

    /// Rebuilds the constant `c` as instructions at the builder's position, with each global
    /// `leaf` maps replaced by what it returns (an `i64`; converted to the global's pointer type,
    /// or used directly under a `ptrtoint` to `i64`). Constants without such a global stay as
    /// they are. Fails on a constant expression kind it does not know.
    pub fn materialize_constant(&self, c: Value, leaf: &mut dyn FnMut(Value) -> Option<Value>) -> Result<Value, String> {
        if unsafe { LLVMIsAGlobalValue(c.0) }.is_null() && !c.is_constant_expr() {
            return Ok(c);
        }
        if !unsafe { LLVMIsAGlobalValue(c.0) }.is_null() {
            return Ok(match leaf(c) {
                Some(v) => Value(unsafe { LLVMBuildIntToPtr(self.raw, v.0, LLVMTypeOf(c.0), NO_NAME.as_ptr()) }),
                None => c,
            });
        }
        use LLVMOpcode::*;
        let opcode = unsafe { LLVMGetConstOpcode(c.0) };
        let ops = c.operands();
        if opcode == LLVMPtrToInt && unsafe { LLVMTypeOf(c.0) } == self.i64 && unsafe { !LLVMIsAGlobalValue(ops[0].0).is_null() } {
            if let Some(v) = leaf(ops[0]) {
                return Ok(v);
            }
        }
        let mut new_ops = Vec::with_capacity(ops.len());
        for o in &ops {
            new_ops.push(self.materialize_constant(*o, leaf)?);
        }
        if new_ops == ops {
            return Ok(c);
        }
        let ty = unsafe { LLVMTypeOf(c.0) };
        Ok(Value(unsafe {
            match opcode {
                LLVMTrunc | LLVMZExt | LLVMSExt | LLVMPtrToInt | LLVMIntToPtr | LLVMBitCast | LLVMAddrSpaceCast => {
                    LLVMBuildCast(self.raw, opcode, new_ops[0].0, ty, NO_NAME.as_ptr())
                }
                LLVMAdd | LLVMSub | LLVMMul | LLVMXor | LLVMAnd | LLVMOr | LLVMShl | LLVMLShr | LLVMAShr => {
                    LLVMBuildBinOp(self.raw, opcode, new_ops[0].0, new_ops[1].0, NO_NAME.as_ptr())
                }
                LLVMGetElementPtr => {
                    let mut indices: Vec<LLVMValueRef> = new_ops[1..].iter().map(|v| v.0).collect();
                    LLVMBuildGEP2(
                        self.raw,
                        LLVMGetGEPSourceElementType(c.0),
                        new_ops[0].0,
                        indices.as_mut_ptr(),
                        indices.len() as u32,
                        NO_NAME.as_ptr(),
                    )
                }
                other => return Err(format!("a constant expression ({other:?}) over a symbol the pass must replace")),
            }
        }))
    }

    /// Moves `inst` (out of its block) to the builder's position, keeping its name
    /// (`LLVMInsertIntoBuilder` would clear it).
    pub fn insert_moved(&self, inst: Value) {
        let name = std::ffi::CString::new(name_of(inst.0)).unwrap_or_default();
        unsafe {
            LLVMInstructionRemoveFromParent(inst.0);
            LLVMInsertIntoBuilderWithName(self.raw, inst.0, name.as_ptr());
        }
    }

    pub fn cond_branch(&self, cond: Value, if_true: Block, if_false: Block) -> Value {
        Value(unsafe { LLVMBuildCondBr(self.raw, cond.0, if_true.0, if_false.0) })
    }

    /// `musttail call ghccc void callee(args); ret void`.
    pub fn musttail_ghc_call(&self, ty: FunctionType<'_>, callee: Value, args: &[Value]) {
        let mut raw: Vec<LLVMValueRef> = args.iter().map(|a| a.0).collect();
        unsafe {
            let call = LLVMBuildCall2(self.raw, ty.as_type_ref(), callee.0, raw.as_mut_ptr(), raw.len() as u32, NO_NAME.as_ptr());
            LLVMSetInstructionCallConv(call, crate::GHC_CALLING_CONV);
            LLVMSetTailCallKind(call, LLVMTailCallKind::LLVMTailCallKindMustTail);
            LLVMBuildRetVoid(self.raw);
        }
    }
}
