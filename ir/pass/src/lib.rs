//! The pass infrastructure shared by every IR of the project.
//!
//! Modelled on LLVM's new pass manager:
//!
//! ```text
//!   "a,b<k=v>,fixpoint(c,d)"  --parse-->  PipelineText  --PassRegistry::build-->  PassManager<U>
//!                                                                                       |
//!            unit: &mut U  ------------------------------------------------------------>| run
//!                                       AnalysisManager<U> (cached, invalidated by PreservedAnalyses)
//!                                       Instrumentation (print-after-all, time-passes, verify-each,
//!                                                        opt-bisect-limit)
//! ```
//!
//! * Every pass is declared once, by a [`PassDescriptor`]: its name, description, parameters,
//!   whether it is required, and the IR phases it runs in and produces. The registry,
//!   `--list-passes`, the READMEs' pass tables, pipeline printing and error messages all read it.
//! * A [`Pass`] is anything with `run(unit, analyses) -> PreservedAnalyses`. It says what it
//!   preserves; what it asks the [`AnalysisManager`] for is its dependency.
//! * An IR unit records its phase ([`IrUnit::Phase`]). Before running anything, the manager
//!   walks the pipeline from the unit's phase and refuses an order in which a pass would see
//!   the wrong phase, naming the pass that is missing.
//! * One [`PassRegistry`] per IR kind drives pipeline parsing, `--list-passes` and the error
//!   messages (`unknown pass 'x' in pipeline 'a,x'`).
//! * Printing, timing, verification and bisection live in the [`PassManager`]'s
//!   [`Instrumentation`], never in passes.
//!
//! The crate knows nothing about any concrete IR: an IR plugs in by implementing [`IrUnit`].

mod analysis;
mod error;
mod manager;
mod pipeline;
mod registry;

use std::fmt;

pub use analysis::{Analysis, AnalysisManager, PreservedAnalyses};
pub use error::{PassError, PhaseError, RunError};
pub use manager::{BisectDecision, Instrumentation, IrSink, PassManager, PassTiming};
pub use pipeline::{PipelineElement, PipelineError, PipelineText};
pub use registry::{PassParams, PassRegistry, RegisteredPass};

/// A stage in the life of an IR unit (for LLVM modules: semantics, handlers, lowered,
/// finalized). Phases are ordered: a pipeline only ever moves a unit forward.
pub trait IrPhase: Copy + Eq + Ord + fmt::Debug + fmt::Display + 'static {}

/// One unit of IR that passes transform: an LLVM module, an assembly file, a DFG graph, ...
pub trait IrUnit {
    /// Short name of the IR kind (`llvm`, `asm`, `dfg`), used in messages.
    const KIND: &'static str;

    /// The phases this IR goes through.
    type Phase: IrPhase;

    /// The phase the unit is in. Fails when the unit records a phase this IR does not have
    /// (a hand-edited dump).
    fn phase(&self) -> Result<Self::Phase, String>;

    /// Records that the unit entered `phase` (called by the manager after a pass that
    /// produces it; passes never set phases themselves).
    fn set_phase(&mut self, phase: Self::Phase);

    /// The canonical, deterministic text form of the unit (no addresses, stable numbering).
    fn print(&self) -> String;

    /// Checks the unit's invariants, including those of its current phase. Returns every
    /// problem found, not only the first.
    fn verify(&self) -> Result<(), Vec<String>> {
        Ok(())
    }
}

/// Everything about a pass that does not depend on its parameters, declared once per pass
/// (a `static` in the pass's crate).
#[derive(Debug)]
pub struct PassDescriptor<Ph: 'static> {
    /// The name in pipelines, `--list-passes` and messages.
    pub name: &'static str,
    /// One line for `--list-passes` and the pass tables.
    pub description: &'static str,
    /// The accepted parameters (e.g. `"max-iterations=N"`); empty if none.
    pub params: &'static str,
    /// Whether the pass is needed for correct output. Only optimisations (`false`) may be
    /// skipped by `--opt-bisect-limit`.
    pub required: bool,
    /// The phases the pass accepts its input in.
    pub runs_in: &'static [Ph],
    /// The phase the unit is in after the pass, when the pass moves it forward.
    pub produces: Option<Ph>,
}

impl<Ph: IrPhase> PassDescriptor<Ph> {
    /// The phase after this pass, given the one before.
    pub fn phase_after(&self, before: Ph) -> Ph {
        self.produces.unwrap_or(before)
    }
}

/// A transformation of one IR unit.
///
/// Usable as `dyn Pass<U>` so pipelines can be built from text at run time; everything
/// static about the pass is in its [`RegisteredPass::DESCRIPTOR`].
pub trait Pass<U: IrUnit + ?Sized> {
    /// The pass's parameters in pipeline syntax (`k=v;flag`), empty when it has none.
    /// Printing `name<params>` must parse back to an equivalent pass.
    fn params(&self) -> String {
        String::new()
    }

    /// Runs the pass. Returns which analyses are still valid afterwards;
    /// [`PreservedAnalyses::all`] also means "nothing changed".
    fn run(&mut self, unit: &mut U, analyses: &mut AnalysisManager<U>) -> Result<PreservedAnalyses, PassError>;
}
