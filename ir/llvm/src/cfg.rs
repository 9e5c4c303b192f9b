//! The control-flow facts passes share, as analyses of the pass manager: predecessors,
//! reverse post-order, dominators and cycles of every defined function, computed once per
//! module and kept until a pass that changes some function's blocks or edges runs.
//!
//! Passes that only read the CFG, or that change instructions but not blocks and edges
//! (marking edges cold, folding constants into conditions), declare
//! `PreservedAnalyses::none().preserve::<_, ControlFlow>()`. A pass that rewrites the CFG while
//! it walks it must not use a result it got before its own change: it asks the IR
//! ([`crate::raw::Value::predecessors`]) instead.

use std::collections::HashMap;

use deegen_pass::{Analysis, AnalysisManager};
use inkwell::values::AsValueRef;

use crate::raw::{Block, Value};
use crate::{defined_functions, LlvmModule};

/// [`Analysis`] giving a [`ModuleCfg`].
#[derive(Debug)]
pub struct ControlFlow;

impl<'ctx> Analysis<LlvmModule<'ctx>> for ControlFlow {
    type Result = ModuleCfg;
    const NAME: &'static str = "control-flow";

    fn run(unit: &LlvmModule<'ctx>, _: &mut AnalysisManager<LlvmModule<'ctx>>) -> ModuleCfg {
        let functions = defined_functions(&unit.module)
            .into_iter()
            .map(|f| {
                let v = Value(f.as_value_ref());
                (v, FunctionCfg::of(v))
            })
            .collect();
        ModuleCfg { functions }
    }
}

/// The CFG of every defined function of a module.
#[derive(Debug, Default)]
pub struct ModuleCfg {
    functions: HashMap<Value, FunctionCfg>,
}

impl ModuleCfg {
    /// The CFG of `function`; `None` for a declaration or a function the module did not have
    /// when the analysis ran.
    pub fn function(&self, function: Value) -> Option<&FunctionCfg> {
        self.functions.get(&function)
    }
}

/// One function's CFG. Blocks are numbered in layout order; the entry is block 0.
#[derive(Debug)]
pub struct FunctionCfg {
    blocks: Vec<Block>,
    index: HashMap<Block, usize>,
    successors: Vec<Vec<usize>>,
    predecessors: Vec<Vec<usize>>,
    /// Reachable blocks in reverse post-order.
    rpo: Vec<usize>,
    /// Immediate dominator per block (the entry's is itself; `None` when unreachable).
    idom: Vec<Option<usize>>,
    /// Whether the block lies on a cycle.
    on_cycle: Vec<bool>,
}

impl FunctionCfg {
    pub fn of(function: Value) -> Self {
        let blocks = function.blocks();
        let index: HashMap<Block, usize> = blocks.iter().enumerate().map(|(i, b)| (*b, i)).collect();
        let mut successors: Vec<Vec<usize>> = Vec::with_capacity(blocks.len());
        for b in &blocks {
            let mut s: Vec<usize> = b.successors().iter().filter_map(|s| index.get(s).copied()).collect();
            s.dedup();
            successors.push(s);
        }
        let mut predecessors = vec![Vec::new(); blocks.len()];
        for (b, succ) in successors.iter().enumerate() {
            for &s in succ {
                if !predecessors[s].contains(&b) {
                    predecessors[s].push(b);
                }
            }
        }
        let rpo = reverse_post_order(&successors);
        let idom = dominators(&rpo, &predecessors, blocks.len());
        let on_cycle = cycles(&successors);
        Self { blocks, index, successors, predecessors, rpo, idom, on_cycle }
    }

    pub fn blocks(&self) -> &[Block] {
        &self.blocks
    }

    fn id(&self, b: Block) -> usize {
        *self.index.get(&b).expect("a block of the function the CFG was computed for")
    }

    /// The distinct predecessors of `b`, in layout order of their first edge.
    pub fn predecessors(&self, b: Block) -> Vec<Block> {
        self.predecessors[self.id(b)].iter().map(|&p| self.blocks[p]).collect()
    }

    pub fn successors(&self, b: Block) -> Vec<Block> {
        self.successors[self.id(b)].iter().map(|&s| self.blocks[s]).collect()
    }

    /// The blocks reachable from the entry, in reverse post-order.
    pub fn reverse_post_order(&self) -> Vec<Block> {
        self.rpo.iter().map(|&b| self.blocks[b]).collect()
    }

    /// The immediate dominator of `b` (`None` for the entry and unreachable blocks).
    pub fn immediate_dominator(&self, b: Block) -> Option<Block> {
        let id = self.id(b);
        self.idom[id].filter(|&d| d != id).map(|d| self.blocks[d])
    }

    /// Whether every path from the entry to `b` passes through `a` (a block dominates itself;
    /// nothing dominates an unreachable block).
    pub fn dominates(&self, a: Block, b: Block) -> bool {
        let (a, mut b) = (self.id(a), self.id(b));
        if self.idom[b].is_none() {
            return false;
        }
        loop {
            if a == b {
                return true;
            }
            match self.idom[b] {
                Some(d) if d != b => b = d,
                _ => return false,
            }
        }
    }

    /// Whether `b` lies on a cycle (it can reach itself through at least one edge).
    pub fn on_cycle(&self, b: Block) -> bool {
        self.on_cycle[self.id(b)]
    }
}

fn reverse_post_order(successors: &[Vec<usize>]) -> Vec<usize> {
    if successors.is_empty() {
        return Vec::new();
    }
    let mut visited = vec![false; successors.len()];
    let mut post = Vec::with_capacity(successors.len());
    // Iterative DFS: (block, next successor to visit).
    let mut stack = vec![(0usize, 0usize)];
    visited[0] = true;
    while let Some(&mut (b, ref mut next)) = stack.last_mut() {
        if let Some(&s) = successors[b].get(*next) {
            *next += 1;
            if !visited[s] {
                visited[s] = true;
                stack.push((s, 0));
            }
        } else {
            post.push(b);
            stack.pop();
        }
    }
    post.reverse();
    post
}

/// Cooper, Harvey and Kennedy's iterative dominator algorithm ("A Simple, Fast Dominance
/// Algorithm"), over the reverse post-order.
fn dominators(rpo: &[usize], predecessors: &[Vec<usize>], n: usize) -> Vec<Option<usize>> {
    let mut order = vec![usize::MAX; n];
    for (i, &b) in rpo.iter().enumerate() {
        order[b] = i;
    }
    let mut idom: Vec<Option<usize>> = vec![None; n];
    let Some(&entry) = rpo.first() else { return idom };
    idom[entry] = Some(entry);
    let intersect = |idom: &[Option<usize>], mut a: usize, mut b: usize| {
        while a != b {
            while order[a] > order[b] {
                a = idom[a].expect("processed");
            }
            while order[b] > order[a] {
                b = idom[b].expect("processed");
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for &b in &rpo[1..] {
            let mut new = None;
            for &p in &predecessors[b] {
                if idom[p].is_none() {
                    continue;
                }
                new = Some(match new {
                    None => p,
                    Some(cur) => intersect(&idom, p, cur),
                });
            }
            if new.is_some() && idom[b] != new {
                idom[b] = new;
                changed = true;
            }
        }
    }
    idom
}

/// Blocks on a cycle: members of a strongly connected component with more than one block, or
/// with a self-edge (Tarjan's algorithm, iterative).
fn cycles(successors: &[Vec<usize>]) -> Vec<bool> {
    let n = successors.len();
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut out = vec![false; n];
    let mut next_index = 0;
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        let mut work = vec![(root, 0usize)];
        index[root] = next_index;
        low[root] = next_index;
        next_index += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut i)) = work.last_mut() {
            if let Some(&w) = successors[v].get(*i) {
                *i += 1;
                if index[w] == usize::MAX {
                    index[w] = next_index;
                    low[w] = next_index;
                    next_index += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut component = Vec::new();
                loop {
                    let w = stack.pop().expect("v is on the stack");
                    on_stack[w] = false;
                    component.push(w);
                    if w == v {
                        break;
                    }
                }
                let cyclic = component.len() > 1 || successors[v].contains(&v);
                for w in component {
                    out[w] = cyclic;
                }
            }
        }
    }
    out
}
