#![doc = include_str!("../README.md")]

use std::collections::HashSet;

use deegen_llvm_ir::{
    defined_functions, function_attr, handler_type, param, set_function_attr, FunctionCfg, LlvmModule, LlvmPhase, COLD_SPLIT_MARKER, GHC_CALLING_CONV,
};
use deegen_pass::{AnalysisManager, Pass, PassDescriptor, PassError, PassParams, PipelineError, PreservedAnalyses, RegisteredPass};
use inkwell::attributes::AttributeLoc;
use inkwell::module::Linkage;
use inkwell::values::{AsValueRef, FunctionValue};

use deegen_llvm_ir::raw::{Block, Builder, Value, ValueMap};

/// The pass's one declaration (name, description, parameters, phases).
pub static DESCRIPTOR: PassDescriptor<LlvmPhase> = PassDescriptor {
    name: "hot-cold-split",
    description:
        "moves each handler's slow paths (the parts that call the runtime) into GHC functions it tail-calls, so the fast path has no stack frame",
    params: "",
    required: false,
    runs_in: &[LlvmPhase::Finalized],
    produces: None,
};

/// Marks a function this pass made, with the name of the handler it came from.
pub const SLOW_PATH_OF_ATTR: &str = "deegen-slow-path-of";

use deegen_api::{offsets, SLOW_PATH_SPILL_SLOTS};

/// The scratch argument slots that carry a slow path's live values.
const SCRATCH_SLOTS: [u32; 4] = [param::A0, param::A1, param::A2, param::A3];

/// See the crate documentation.
#[derive(Debug, Default)]
pub struct HotColdSplit;

/// Why a slow-path entry stayed in its handler.
#[derive(Debug)]
enum Kept {
    Loop,
    TooManyLiveValues(usize, usize),
    LiveValueType,
    SharedStackSlot,
}

impl std::fmt::Display for Kept {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Kept::Loop => write!(f, "the slow path loops back into its entry through the fast path"),
            Kept::TooManyLiveValues(live, slots) => write!(f, "{live} live values for {slots} free argument and spill slots"),
            Kept::LiveValueType => write!(f, "a live value does not fit an i64"),
            Kept::SharedStackSlot => write!(f, "a stack slot is shared with the fast path"),
        }
    }
}

impl<'ctx> Pass<LlvmModule<'ctx>> for HotColdSplit {
    fn run(&mut self, unit: &mut LlvmModule<'ctx>, _: &mut AnalysisManager<LlvmModule<'ctx>>) -> Result<PreservedAnalyses, PassError> {
        let module = &unit.module;
        let builder = Builder::new(module);
        let (mut split, mut outlined, mut kept) = (0usize, 0usize, 0usize);
        for f in defined_functions(module) {
            if f.get_call_conventions() != GHC_CALLING_CONV || function_attr(f, SLOW_PATH_OF_ATTR).is_some() {
                continue;
            }
            if f.count_params() != param::COUNT {
                return Err(PassError::invalid_input(format!(
                    "{}: a GHC-convention function without the handler signature",
                    f.get_name().to_string_lossy()
                )));
            }
            let _span = tracing::debug_span!("split", handler = %f.get_name().to_string_lossy()).entered();
            let (n, k) = split_function(module, f, &builder);
            if n > 0 {
                split += 1;
            }
            outlined += n;
            kept += k;
        }
        // A split marker in a function this pass does not split (not a handler) is only a
        // hint: it must not reach the object file as a call of an undefined symbol.
        let mut dropped = 0;
        for f in defined_functions(module) {
            for b in Value(f.as_value_ref()).blocks() {
                for i in b.instructions() {
                    if i.callee().and_then(|c| c.global_name()).as_deref() == Some(COLD_SPLIT_MARKER) {
                        i.erase();
                        dropped += 1;
                    }
                }
            }
        }
        tracing::debug!(handlers = split, slow_paths = outlined, kept, dropped_markers = dropped, "slow paths outlined");
        Ok(if outlined == 0 && dropped == 0 { PreservedAnalyses::all() } else { PreservedAnalyses::none() })
    }
}

impl RegisteredPass<LlvmModule<'_>> for HotColdSplit {
    const DESCRIPTOR: &'static PassDescriptor<LlvmPhase> = &DESCRIPTOR;
    fn from_params(params: &PassParams) -> Result<Self, PipelineError> {
        params.expect_only(&[])?;
        Ok(HotColdSplit)
    }
}

/// Splits one handler; returns how many slow paths were outlined and how many kept.
fn split_function<'ctx>(module: &inkwell::module::Module<'ctx>, f: FunctionValue<'ctx>, builder: &Builder) -> (usize, usize) {
    let fv = Value(f.as_value_ref());
    let stated = split_at_cold_path_markers(fv, builder);
    let blocks = fv.blocks();
    let Some(&entry) = blocks.first() else { return (0, 0) };
    // A handler whose first block already calls the runtime (Concat) has its frame whatever
    // happens: its calls stay, and only what is marked cold (a metamethod call, stated with
    // `cold_path()`) leaves, which in a baseline JIT stencil is most of its bytes.
    let framed = entry.needs_frame();
    // The hot part: what the entry reaches without passing a frame-needing call (unless the
    // entry has one) or an edge marked cold (type hints: `type-hint-slow-paths`).
    let mut hot: HashSet<Block> = HashSet::from([entry]);
    let mut work = vec![entry];
    let mut entries: Vec<Block> = Vec::new();
    while let Some(b) = work.pop() {
        let cold = b.cold_successors();
        for s in b.successors() {
            if (!framed && s.needs_frame()) || cold.contains(&s) || stated.contains(&s) {
                if !entries.contains(&s) {
                    entries.push(s);
                }
            } else if hot.insert(s) {
                work.push(s);
            }
        }
    }
    // A block also reached over a hot edge stays in the fast path; a block that already
    // tail-calls an outlined slow path (branch weights keep marking it cold) is done.
    entries.retain(|e| !hot.contains(e) && !calls_slow_path(*e));
    entries.sort_by_key(|b| blocks.iter().position(|x| x == b));
    let (mut outlined, mut kept) = (0, 0);
    for b in entries {
        match outline(module, f, b, &hot, outlined, builder) {
            Ok(()) => outlined += 1,
            Err(why) => {
                tracing::debug!(block = %b.name(), %why, "slow path kept in the handler");
                kept += 1;
            }
        }
    }
    if outlined > 0 {
        fv.delete_unreachable_blocks(builder);
        erase_dead_pure(fv);
        fv.delete_unused_allocas();
    }
    // The marks did their work (a second run must not split the stubs they now lead to).
    for b in fv.blocks() {
        b.clear_cold_edge();
    }
    (outlined, kept)
}

/// The calls of [`COLD_SPLIT_MARKER`] (`deegen_api::cold_path()` markers no branch leads to,
/// as `type-hint-slow-paths` left them: the rest of the function is a slow path, as in a
/// continuation only a metamethod returns to): each block is split after its marker, the
/// marker erased, and the new blocks returned as slow-path entries.
fn split_at_cold_path_markers(fv: Value, builder: &Builder) -> Vec<Block> {
    let mut splits = Vec::new();
    for b in fv.blocks() {
        let marker = b.instructions().into_iter().find(|i| i.callee().and_then(|c| c.global_name()).as_deref() == Some(COLD_SPLIT_MARKER));
        if let Some(m) = marker {
            splits.push((b, b.split_after(m, "stated_cold", builder)));
            m.erase();
        }
    }
    if !splits.is_empty() {
        let cfg = FunctionCfg::of(fv);
        for &(b, rest) in &splits {
            sink_into_slow_path(b, rest, &cfg, builder);
        }
    }
    splits.into_iter().map(|(_, rest)| rest).collect()
}

/// Moves the computations at the end of `b` (before a stated split) whose every use lies in
/// the slow path `rest` begins (blocks `rest` dominates) into `rest`, so the slow path computes
/// them instead of the fast path computing them and passing them on. The marker is an opaque
/// call to the optimizer, which therefore left them above it: a return continuation restores
/// its caller's frame and code block (five loads and masks, 23 bytes of every continuation
/// stencil) before a metamethod-only continuation's slow path even starts. Only what follows
/// the last instruction of `b` that writes memory or calls moves (a load is not moved past a
/// store).
fn sink_into_slow_path(b: Block, rest: Block, cfg: &FunctionCfg, builder: &Builder) {
    let instructions = b.instructions();
    let Some((_, body)) = instructions.split_last() else { return };
    let mut moved: HashSet<Value> = HashSet::new();
    let mut order = Vec::new();
    for &i in body.iter().rev() {
        if i.is_phi() || i.is_alloca() || i.may_write(&|_| false) {
            break;
        }
        let only_slow = i.users().into_iter().all(|u| moved.contains(&u) || (!u.is_phi() && cfg.dominates(rest, u.parent())));
        if only_slow {
            moved.insert(i);
            order.push(i);
        }
    }
    // `order` runs backwards: each goes in front of the one moved before it.
    let Some(mut first) = rest.instructions().first().copied() else { return };
    for i in order {
        builder.position_before(first);
        builder.insert_moved(i);
        first = i;
    }
}

/// Byte offset of spill slot `index` from the context.
fn spill_offset(index: usize) -> u64 {
    (offsets::CTX_SLOW_PATH_SPILL + 8 * index) as u64
}

/// Whether `b` tail-calls a slow path this pass made.
fn calls_slow_path(b: Block) -> bool {
    b.instructions().into_iter().filter_map(|i| i.callee()).any(|c| {
        c.global_name().is_some() && !unsafe { inkwell::llvm_sys::core::LLVMIsAFunction(c.0) }.is_null() && {
            // SAFETY: `c` is a function of the module.
            let f = unsafe { FunctionValue::new(c.0) }.expect("a function");
            function_attr(f, SLOW_PATH_OF_ATTR).is_some()
        }
    })
}

/// Whether `i` is a call of `llvm.lifetime.start` or `llvm.lifetime.end`.
fn is_lifetime_marker(i: Value) -> bool {
    i.callee().and_then(|c| c.global_name()).is_some_and(|n| n.starts_with("llvm.lifetime."))
}

/// How a live value crosses into the slow path.
enum LiveIn {
    /// In a scratch argument slot, as an `i64`.
    Passed { value: Value, slot: u32 },
    /// In the context's spill area (`InterpContext::slow_path_spill`), as an `i64`: the
    /// values beyond the scratch slots.
    Spilled { value: Value, index: usize },
    /// A stack slot only the slow path uses: the slow path gets its own.
    Alloca(Value),
    /// Computed again in the slow path from the pinned state (a constant of the instruction:
    /// its load from the constant table, the arithmetic on a runtime constant), so the fast
    /// path neither computes it for the slow path's sake nor keeps it in a register.
    Recomputed(Value),
}

/// How deep a recomputed value's expression may be: an interpreter's constant is six deep
/// (its load, the address, the negated index, the extension, the operand's load and address).
const RECOMPUTE_DEPTH: u32 = 6;

/// Whether `v` can be computed again anywhere in the handler from the handler's arguments
/// `params` (adding those it reads to `used`): constants, arguments, and pure arithmetic,
/// casts, address computations and `!invariant.load` loads of those, up to
/// [`RECOMPUTE_DEPTH`] deep.
fn recomputable(v: Value, params: &[Value], used: &mut HashSet<u32>, depth: u32) -> bool {
    if let Some(i) = params.iter().position(|p| *p == v) {
        used.insert(i as u32);
        return true;
    }
    if !v.is_instruction() {
        // A constant, a global or a constant expression.
        return v.is_constant();
    }
    depth > 0 && is_pure(v) && v.operands().into_iter().all(|o| recomputable(o, params, used, depth - 1))
}

/// Whether the instruction `v` computes its value from its operands alone: arithmetic, casts,
/// address computations, and loads of memory that never changes (`!invariant.load`).
fn is_pure(v: Value) -> bool {
    use inkwell::llvm_sys::LLVMOpcode as Op;
    let Some(op) = v.opcode() else { return false };
    matches!(
        op,
        Op::LLVMGetElementPtr
            | Op::LLVMPtrToInt
            | Op::LLVMIntToPtr
            | Op::LLVMZExt
            | Op::LLVMSExt
            | Op::LLVMTrunc
            | Op::LLVMBitCast
            | Op::LLVMAdd
            | Op::LLVMSub
            | Op::LLVMAnd
            | Op::LLVMOr
            | Op::LLVMXor
            | Op::LLVMShl
            | Op::LLVMLShr
            | Op::LLVMAShr
    ) || (op == Op::LLVMLoad && v.has_metadata("invariant.load"))
}

/// Erases the pure instructions ([`is_pure`]) nothing uses any more: what the fast path
/// computed only for slow paths that now compute it themselves.
fn erase_dead_pure(fv: Value) {
    loop {
        let dead: Vec<Value> = fv.blocks().into_iter().flat_map(|b| b.instructions()).filter(|&i| is_pure(i) && i.users().is_empty()).collect();
        if dead.is_empty() {
            break;
        }
        for i in dead {
            i.erase();
        }
    }
}

/// Inserts at the builder's position a copy of the expression `v` ([`recomputable`]), its
/// operands first, reusing what `map` already has (the arguments, shared subexpressions).
fn recompute(v: Value, map: &mut ValueMap, builder: &Builder) -> Value {
    if let Some(m) = map.get(v) {
        return m;
    }
    if !v.is_instruction() {
        return v;
    }
    let operands: Vec<Value> = v.operands().into_iter().map(|o| recompute(o, map, builder)).collect();
    let c = builder.insert_clone(v);
    for (i, o) in operands.into_iter().enumerate() {
        c.set_operand(i as u32, o);
    }
    map.values.insert(v, c);
    c
}

/// Moves the slow path entered at `b` into a new function, leaving a tail call to it.
fn outline<'ctx>(
    module: &inkwell::module::Module<'ctx>,
    f: FunctionValue<'ctx>,
    b: Block,
    hot: &HashSet<Block>,
    index: usize,
    builder: &Builder,
) -> Result<(), Kept> {
    let fv = Value(f.as_value_ref());
    let region = b.reachable(&fv.blocks());
    let in_region: HashSet<Block> = region.iter().copied().collect();
    let preds = fv.predecessors(b);
    // The slow path may loop back into its entry (a metatable chain walked until a table has
    // the key): the whole loop is in the region, so it moves as it is, the entry's phis taking
    // the passed values on the way in.
    let loops = preds.iter().any(|p| in_region.contains(p));
    // Only a loop of slow-path blocks: one through blocks the fast path also runs would need
    // their phis rebuilt on both sides. (A hot block the loop exits to is fine: it is copied.)
    if loops {
        let mut on_cycle: HashSet<Block> = HashSet::new();
        let mut work: Vec<Block> = preds.iter().copied().filter(|p| in_region.contains(p)).collect();
        while let Some(x) = work.pop() {
            if x != b && on_cycle.insert(x) {
                work.extend(fv.predecessors(x).into_iter().filter(|p| in_region.contains(p)));
            }
        }
        if on_cycle.iter().any(|x| hot.contains(x)) {
            return Err(Kept::Loop);
        }
    }
    let hot_preds: Vec<Block> = preds.into_iter().filter(|p| hot.contains(p)).collect();

    // Live values: the entry's phis, then what the region uses from outside it.
    let params: Vec<Value> = (0..param::COUNT).map(|i| fv.param(i)).collect();
    let mut live: Vec<Value> = b.phis();
    let mut used_params: HashSet<u32> = HashSet::new();
    for &block in &region {
        for inst in block.instructions() {
            if block == b && inst.is_phi() {
                continue;
            }
            let operands: Vec<Value> = if inst.is_phi() {
                inst.incoming().into_iter().filter(|(_, from)| in_region.contains(from)).map(|(v, _)| v).collect()
            } else {
                inst.operands()
            };
            for v in operands {
                if let Some(i) = params.iter().position(|p| *p == v) {
                    used_params.insert(i as u32);
                } else if v.is_instruction() && !in_region.contains(&v.parent()) && !live.contains(&v) {
                    live.push(v);
                }
            }
        }
    }
    // Values the slow path can compute itself need no slot (the arguments they read do).
    // (The arguments an expression reads count only when all of it can be recomputed.)
    let recomputed: Vec<Value> = live
        .iter()
        .copied()
        .filter(|&v| {
            let mut reads = HashSet::new();
            let ok = !v.is_alloca() && recomputable(v, &params, &mut reads, RECOMPUTE_DEPTH);
            if ok {
                used_params.extend(reads);
            }
            ok
        })
        .collect();
    live.retain(|v| !recomputed.contains(v));
    let mut free = SCRATCH_SLOTS.iter().copied().filter(|s| !used_params.contains(s));
    let mut crossing = Vec::new();
    let passed = live.iter().filter(|v| !v.is_alloca()).count();
    let available = free.clone().count() + SLOW_PATH_SPILL_SLOTS;
    if passed > available {
        return Err(Kept::TooManyLiveValues(passed, available));
    }
    let mut spilled = 0;
    // Lifetime markers of slow-path stack slots that LLVM hoisted into the fast path (a
    // `lifetime.start` moved up to the entry, above the branch into the slow path): they are
    // the fast path's only use of the slot, and dropping one only makes the slot live longer,
    // so they go once the outlining is certain.
    let mut hoisted_markers = Vec::new();
    crossing.extend(recomputed.iter().map(|&v| LiveIn::Recomputed(v)));
    for v in live {
        if v.is_alloca() {
            for u in v.users().into_iter().filter(|u| !in_region.contains(&u.parent())) {
                if !is_lifetime_marker(u) {
                    return Err(Kept::SharedStackSlot);
                }
                hoisted_markers.push(u);
            }
            crossing.push(LiveIn::Alloca(v));
        } else {
            if !v.crosses_as_i64() {
                return Err(Kept::LiveValueType);
            }
            match free.next() {
                Some(slot) => crossing.push(LiveIn::Passed { value: v, slot }),
                None => {
                    crossing.push(LiveIn::Spilled { value: v, index: spilled });
                    spilled += 1;
                }
            }
        }
    }

    for m in hoisted_markers {
        m.erase();
    }

    // The slow-path function: the handler's signature, convention and attributes.
    let name = format!("{}__slow{index}", f.get_name().to_string_lossy());
    let slow = module.add_function(&name, handler_type(module.get_context()), Some(Linkage::Internal));
    slow.set_call_conventions(GHC_CALLING_CONV);
    for attr in f.attributes(AttributeLoc::Function) {
        slow.add_attribute(AttributeLoc::Function, attr);
    }
    slow.remove_string_attribute(AttributeLoc::Function, deegen_llvm_ir::HANDLER_KIND_ATTR);
    set_function_attr(slow, SLOW_PATH_OF_ATTR, &f.get_name().to_string_lossy());
    let sv = Value(slow.as_value_ref());
    let mut map = ValueMap::default();
    for (i, p) in params.iter().enumerate() {
        map.values.insert(*p, sv.param(i as u32));
    }
    let slow_entry = sv.append_block("entry");
    builder.position_at_end(slow_entry);
    for c in &crossing {
        match *c {
            LiveIn::Passed { value, slot } => {
                let v = builder.from_i64(sv.param(slot), value.type_of());
                map.values.insert(value, v);
            }
            LiveIn::Spilled { value, index } => {
                let raw = builder.load_i64_at(sv.param(param::CTX), spill_offset(index), false, "spilled");
                map.values.insert(value, builder.from_i64(raw, value.type_of()));
            }
            LiveIn::Alloca(a) => {
                map.values.insert(a, builder.insert_clone(a));
            }
            LiveIn::Recomputed(_) => {}
        }
    }
    // After the passed values: an expression may read one (a shared subexpression).
    for c in &crossing {
        if let LiveIn::Recomputed(v) = *c {
            recompute(v, &mut map, builder);
        }
    }
    for &block in &region {
        map.blocks.insert(block, sv.append_block(&block.name()));
    }
    builder.branch(map.blocks[&b]);
    // The entry's phis take the passed values; where the region loops back into the entry,
    // a phi in the copy takes them on the way in, then the loop's entries.
    let mut entry_phis = Vec::new();
    if loops {
        builder.position_at_end(map.blocks[&b]);
        for inst in b.phis() {
            let entry_value = map.values[&inst];
            let c = builder.phi(inst.type_of(), &inst.name());
            c.add_incoming(entry_value, slow_entry);
            entry_phis.push((inst, c));
            map.values.insert(inst, c);
        }
    }
    builder.clone_blocks(&region, &mut map, entry_phis, |inst| inst.is_phi() && inst.parent() == b);

    // The handler: hot branches into the entry go to a tail call of the slow path instead.
    let stub = fv.append_block(&format!("slow{index}"));
    builder.position_at_end(stub);
    let mut stub_phis = Vec::new();
    for p in b.phis() {
        let n = builder.phi(p.type_of(), &p.name());
        for (v, from) in p.incoming() {
            if hot_preds.contains(&from) {
                n.add_incoming(v, from);
            }
        }
        stub_phis.push((p, n));
    }
    // Scratch slots the slow path does not read get poison: passing the handler's own would
    // keep those argument registers alive through the fast path (and push a pinned register
    // out to the stack where the fast path runs short).
    let mut args: Vec<Value> = params
        .iter()
        .enumerate()
        .map(|(i, p)| if SCRATCH_SLOTS.contains(&(i as u32)) && !used_params.contains(&(i as u32)) { p.poison_like() } else { *p })
        .collect();
    for c in &crossing {
        let in_stub = |value: Value| stub_phis.iter().find(|(p, _)| *p == value).map_or(value, |(_, n)| *n);
        match *c {
            LiveIn::Passed { value, slot } => args[slot as usize] = builder.to_i64(in_stub(value)),
            LiveIn::Spilled { value, index } => {
                let v = builder.to_i64(in_stub(value));
                builder.store_i64_at(params[param::CTX as usize], spill_offset(index), v);
            }
            LiveIn::Alloca(_) | LiveIn::Recomputed(_) => {}
        }
    }
    builder.musttail_ghc_call(handler_type(module.get_context()), Value(slow.as_global_value().as_pointer_value().as_value_ref()), &args);
    for p in &hot_preds {
        p.redirect(b, stub);
    }
    for p in b.phis() {
        p.remove_incoming_from(&hot_preds, builder);
    }
    Ok(())
}
