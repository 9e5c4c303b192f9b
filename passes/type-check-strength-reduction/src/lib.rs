#![doc = include_str!("../README.md")]

use std::collections::HashMap;

use deegen_bytecode_spec::{TypeLattice, TypeMask};
use deegen_llvm_ir::raw::{Block, Value};
use deegen_llvm_ir::{
    defined_functions, read_type_lattice, run_llvm_pipeline, type_checker_functions, type_names_mask, ControlFlow, LlvmModule, LlvmPhase,
    KNOWN_TYPES_METADATA,
};
use deegen_pass::{AnalysisManager, Pass, PassDescriptor, PassError, PassParams, PipelineError, PreservedAnalyses, RegisteredPass};
use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::values::AsValueRef;

/// The pass's one declaration (name, description, parameters, phases).
pub static DESCRIPTOR: PassDescriptor<LlvmPhase> = PassDescriptor {
    name: "type-check-strength-reduction",
    description: "SCCP over the language's type lattice (!deegen.type_lattice): removes type checks whose answer is known, replaces others by cheaper equivalent checkers",
    params: "keep-checkers",
    required: true,
    runs_in: &[LlvmPhase::Handlers],
    produces: None,
};

/// See the crate documentation.
#[derive(Debug, Default)]
pub struct TypeCheckStrengthReduction {
    /// `keep-checkers`: leave the checkers calls (not inlined) for passes that still reason
    /// about them; a later run without it inlines them.
    keep_checkers: bool,
}

/// What the pass did to one function's checks.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    pub removed: usize,
    pub reduced: usize,
}

impl<'ctx> Pass<LlvmModule<'ctx>> for TypeCheckStrengthReduction {
    fn params(&self) -> String {
        if self.keep_checkers {
            "keep-checkers".into()
        } else {
            String::new()
        }
    }

    fn run(&mut self, unit: &mut LlvmModule<'ctx>, _: &mut AnalysisManager<LlvmModule<'ctx>>) -> Result<PreservedAnalyses, PassError> {
        let module = &unit.module;
        let Some(lattice) = read_type_lattice(module).map_err(PassError::invalid_input)? else {
            tracing::debug!("the module declares no type lattice: nothing to reduce");
            return Ok(PreservedAnalyses::all());
        };
        let checkers = Checkers::find(module, &lattice);
        let mut total = Counts::default();
        for f in defined_functions(module) {
            let fv = Value(f.as_value_ref());
            if !fv.blocks().iter().any(|b| b.instructions().iter().any(|i| checkers.of_call(*i).is_some())) {
                continue;
            }
            let _span = tracing::debug_span!("reduce", function = %f.get_name().to_string_lossy()).entered();
            let known = known_types(f, &lattice).map_err(PassError::invalid_input)?;
            let c = reduce_function(fv, &lattice, &checkers, known);
            if c != Counts::default() {
                tracing::debug!(removed = c.removed, reduced = c.reduced, "type checks rewritten");
            }
            total.removed += c.removed;
            total.reduced += c.reduced;
        }
        tracing::debug!(removed = total.removed, reduced = total.reduced, "type-check strength reduction done");
        if !self.keep_checkers {
            // Inlining the checkers adds their blocks to the handlers.
            release_checkers(module, &lattice)?;
            return Ok(PreservedAnalyses::none());
        }
        if total == Counts::default() {
            return Ok(PreservedAnalyses::all());
        }
        // Conditions became constants and calls changed callee; blocks and edges stayed.
        Ok(PreservedAnalyses::none().preserve::<_, ControlFlow>())
    }
}

impl RegisteredPass<LlvmModule<'_>> for TypeCheckStrengthReduction {
    const DESCRIPTOR: &'static PassDescriptor<LlvmPhase> = &DESCRIPTOR;
    fn from_params(params: &PassParams) -> Result<Self, PipelineError> {
        params.expect_only(&["keep-checkers"])?;
        Ok(TypeCheckStrengthReduction { keep_checkers: params.flag("keep-checkers") })
    }
}

/// Lets the checkers be inlined now that their calls were rewritten (`inline-semantics` left
/// them as calls for this pass).
fn release_checkers(module: &inkwell::module::Module<'_>, lattice: &TypeLattice) -> Result<(), PassError> {
    let ctx = module.get_context();
    let kind = |name| Attribute::get_named_enum_kind_id(name);
    for (f, _) in type_checker_functions(module, lattice) {
        if f.count_basic_blocks() == 0 {
            continue;
        }
        f.remove_enum_attribute(AttributeLoc::Function, kind("noinline"));
        f.remove_enum_attribute(AttributeLoc::Function, kind("optnone"));
        f.add_attribute(AttributeLoc::Function, ctx.create_enum_attribute(kind("alwaysinline"), 0));
    }
    run_llvm_pipeline(module, "always-inline").map_err(|message| PassError::Tool { tool: "LLVM", message })
}

/// The module's functions that implement the lattice's checkers.
struct Checkers {
    /// Checker index of each implementing function.
    by_function: HashMap<Value, usize>,
    /// The implementing function of each checker, if the module has it.
    function: Vec<Option<Value>>,
}

impl Checkers {
    fn find(module: &inkwell::module::Module<'_>, lattice: &TypeLattice) -> Checkers {
        let mut by_function = HashMap::new();
        let mut function = vec![None; lattice.checkers.len()];
        for (f, i) in type_checker_functions(module, lattice) {
            let v = Value(f.as_value_ref());
            by_function.insert(v, i);
            function[i].get_or_insert(v);
        }
        Checkers { by_function, function }
    }

    /// `(checker, checked value)` of a checker call.
    fn of_call(&self, inst: Value) -> Option<(usize, Value)> {
        let i = *self.by_function.get(&inst.callee()?)?;
        Some((i, *inst.call_args().first()?))
    }
}

/// What is known at a block's entry: the possible types of each checked value (absent: any).
type Facts = HashMap<Value, TypeMask>;

/// Facts on an edge, united into what the target already has; whether that changed it.
fn join(into: &mut Option<Facts>, edge: &Facts) -> bool {
    match into {
        None => {
            *into = Some(edge.clone());
            true
        }
        Some(facts) => {
            let before = facts.len();
            let mut changed = false;
            facts.retain(|v, m| match edge.get(v) {
                Some(e) => {
                    let u = m.union(*e);
                    changed |= u != *m;
                    *m = u;
                    true
                }
                None => false,
            });
            changed || facts.len() != before
        }
    }
}

/// The answer of checker `c` on a value whose type is in `known`, if that decides it.
fn decide(lattice: &TypeLattice, c: usize, known: TypeMask) -> Option<bool> {
    let checker = &lattice.checkers[c];
    let valid = known.intersect(checker.requires);
    if valid.is_empty() {
        return None;
    }
    if checker.proves.contains_all(valid) {
        Some(true)
    } else if valid.intersect(checker.proves).is_empty() {
        Some(false)
    } else {
        None
    }
}

/// The cheapest checker that may replace `c` on values whose type is in `known`.
fn cheaper(lattice: &TypeLattice, checkers: &Checkers, c: usize, known: TypeMask, call: Value) -> Option<Value> {
    let original = &lattice.checkers[c];
    let valid = known.intersect(original.requires);
    let answer = valid.intersect(original.proves);
    let mut best: Option<(u32, Value)> = None;
    for (i, other) in lattice.checkers.iter().enumerate() {
        let Some(f) = checkers.function[i] else { continue };
        if other.cost >= original.cost || !other.requires.contains_all(valid) || valid.intersect(other.proves) != answer {
            continue;
        }
        if f.function_type() != call.called_function_type() {
            continue;
        }
        if best.is_none_or(|(cost, _)| other.cost < cost) {
            best = Some((other.cost, f));
        }
    }
    best.map(|(_, f)| f)
}

/// What a condition being true, and being false, says about checked values: the types each
/// can have on that edge. Understands checker calls, their negation, and `and`/`or` of
/// conditions (as instructions or as the `select`s they become).
#[derive(Default)]
struct EdgeFacts {
    if_true: Vec<(Value, TypeMask)>,
    if_false: Vec<(Value, TypeMask)>,
}

/// Conditions nested deeper than this say nothing (bounds the walk).
const MAX_CONDITION_DEPTH: u32 = 8;

fn condition_facts(lattice: &TypeLattice, checkers: &Checkers, cond: Value, facts: &Facts, depth: u32) -> EdgeFacts {
    if depth > MAX_CONDITION_DEPTH {
        return EdgeFacts::default();
    }
    if let Some(inner) = cond.negated_operand() {
        let f = condition_facts(lattice, checkers, inner, facts, depth + 1);
        return EdgeFacts { if_true: f.if_false, if_false: f.if_true };
    }
    if let Some((a, b, is_and)) = cond.boolean_pair() {
        let (fa, fb) = (condition_facts(lattice, checkers, a, facts, depth + 1), condition_facts(lattice, checkers, b, facts, depth + 1));
        // `a && b` true: both are; false: nothing certain (and dually for `||`).
        return if is_and {
            EdgeFacts { if_true: [fa.if_true, fb.if_true].concat(), if_false: Vec::new() }
        } else {
            EdgeFacts { if_true: Vec::new(), if_false: [fa.if_false, fb.if_false].concat() }
        };
    }
    let Some((c, v)) = checkers.of_call(cond) else { return EdgeFacts::default() };
    let checker = &lattice.checkers[c];
    let known = facts.get(&v).copied().unwrap_or(lattice.top());
    // The call was valid, so the value is one it may be called on.
    let yes = known.intersect(checker.proves);
    let no = known.intersect(checker.requires).intersect(TypeMask(!checker.proves.0));
    EdgeFacts { if_true: vec![(v, yes)], if_false: vec![(v, no)] }
}

/// `facts` narrowed by `narrowing`; `None` when a value is left with no possible type (the
/// edge is never taken).
fn narrow(facts: &Facts, narrowing: &[(Value, TypeMask)], lattice: &TypeLattice) -> Option<Facts> {
    let mut out = facts.clone();
    for (v, m) in narrowing {
        let current = out.get(v).copied().unwrap_or(lattice.top());
        let n = current.intersect(*m);
        if n.is_empty() {
            return None;
        }
        out.insert(*v, n);
    }
    Some(out)
}

/// Runs the propagation on one function and rewrites its checks.
/// The values a variant knows the types of (loads tagged `!deegen.known_types`): facts from the
/// entry on, since a load dominates every use of its value.
fn known_types(f: inkwell::values::FunctionValue<'_>, lattice: &TypeLattice) -> Result<Facts, String> {
    let kind = f.get_type().get_context().get_kind_id(KNOWN_TYPES_METADATA);
    let mut facts = Facts::new();
    for bb in f.get_basic_blocks() {
        for inst in bb.get_instructions() {
            if let Some(md) = inst.get_metadata(kind) {
                facts.insert(Value(inst.as_value_ref()), type_names_mask(lattice, md.get_node_values(), KNOWN_TYPES_METADATA)?);
            }
        }
    }
    Ok(facts)
}

fn reduce_function(f: Value, lattice: &TypeLattice, checkers: &Checkers, known: Facts) -> Counts {
    let blocks = f.blocks();
    let mut state: HashMap<Block, Option<Facts>> = blocks.iter().map(|b| (*b, None)).collect();
    state.insert(blocks[0], Some(known));
    let mut work = vec![blocks[0]];
    while let Some(b) = work.pop() {
        let Some(facts) = state[&b].clone() else { continue };
        let succs = b.successors();
        let edges: Vec<(Block, Option<Facts>)> = match b.branch_condition() {
            Some(cond) => {
                let f = condition_facts(lattice, checkers, cond, &facts, 0);
                vec![(succs[0], narrow(&facts, &f.if_true, lattice)), (succs[1], narrow(&facts, &f.if_false, lattice))]
            }
            None => succs.iter().map(|s| (*s, Some(facts.clone()))).collect(),
        };
        for (s, e) in edges {
            if let Some(e) = e {
                if join(state.get_mut(&s).expect("a block of the function"), &e) {
                    work.push(s);
                }
            }
        }
    }

    let mut counts = Counts::default();
    for b in &blocks {
        let Some(facts) = &state[b] else { continue };
        for inst in b.instructions() {
            let Some((c, v)) = checkers.of_call(inst) else { continue };
            let known = facts.get(&v).copied().unwrap_or(lattice.top());
            if let Some(answer) = decide(lattice, c, known) {
                inst.replace_and_erase(Value::bool_constant(inst, answer));
                counts.removed += 1;
            } else if let Some(f) = cheaper(lattice, checkers, c, known, inst) {
                inst.set_callee(f);
                counts.reduced += 1;
            }
        }
    }
    counts
}
