//! The pass infrastructure shared by every IR of the project.
//!
//! Modelled on LLVM's new pass manager:
//!
//! ```text
//!   "a,b<k=v>,fixpoint(c,d)"  --parse-->  PipelineText  --PassRegistry::build-->  PassManager<U>
//!                                                                                       |
//!            unit: &mut U  ------------------------------------------------------------>| run
//!                                       AnalysisManager<U> (cached, invalidated by PreservedAnalyses)
//!                                       Instrumentation (print-after-all, time-passes, verify-each)
//! ```
//!
//! * A [`Pass`] is anything with `run(unit, analyses) -> PreservedAnalyses`. It says what it
//!   preserves; what it asks the [`AnalysisManager`] for is its dependency.
//! * One [`PassRegistry`] per IR kind drives pipeline parsing, `--list-passes` and the error
//!   messages (`unknown pass 'x' in pipeline 'a,x'`).
//! * Printing, timing and verification live in the [`PassManager`]'s [`Instrumentation`], never in
//!   passes.
//!
//! The crate knows nothing about any concrete IR: an IR plugs in by implementing [`IrUnit`].

mod analysis;
mod manager;
mod pipeline;
mod registry;

pub use analysis::{Analysis, AnalysisManager, PreservedAnalyses};
pub use manager::{Instrumentation, IrSink, PassManager, PassTiming};
pub use pipeline::{PipelineElement, PipelineError, PipelineText};
pub use registry::{PassInfo, PassParams, PassRegistry, RegisteredPass};

/// One unit of IR that passes transform: an LLVM module, an assembly file, a DFG graph, ...
pub trait IrUnit {
    /// Short name of the IR kind (`llvm`, `asm`, `dfg`), used in messages.
    const KIND: &'static str;

    /// The canonical, deterministic text form of the unit (no addresses, stable numbering).
    fn print(&self) -> String;

    /// Checks the unit's invariants. Returns every problem found, not only the first.
    fn verify(&self) -> Result<(), Vec<String>> {
        Ok(())
    }
}

/// A failure while running a pass: the IR did not have the shape the pass needs.
///
/// Passes return this instead of panicking, so a malformed IR dump given to `deegen-opt`
/// gives a clear message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("pass '{pass}': {message}")]
pub struct PassError {
    pub pass: String,
    pub message: String,
}

impl PassError {
    pub fn new(pass: impl Into<String>, message: impl Into<String>) -> Self {
        Self { pass: pass.into(), message: message.into() }
    }
}

/// A transformation of one IR unit.
///
/// Usable as `dyn Pass<U>` so pipelines can be built from text at run time.
pub trait Pass<U: ?Sized> {
    /// The name under which the pass is registered (and printed back in pipelines).
    fn name(&self) -> &'static str;

    /// The pass's parameters in pipeline syntax (`k=v;flag`), empty when it has none.
    /// Printing `name<params>` must parse back to an equivalent pass.
    fn params(&self) -> String {
        String::new()
    }

    /// Required passes are needed for correctness; the others are optimisations that a bisect
    /// limit may skip.
    fn is_required(&self) -> bool {
        true
    }

    /// Runs the pass. Returns which analyses are still valid afterwards;
    /// [`PreservedAnalyses::all`] also means "nothing changed".
    fn run(&mut self, unit: &mut U, analyses: &mut AnalysisManager<U>) -> Result<PreservedAnalyses, PassError>;
}
