//! Runs a sequence of passes over one IR unit, with the instrumentation (printing, timing,
//! verification) that passes never do themselves.

use std::time::{Duration, Instant};

use crate::{AnalysisManager, IrUnit, Pass, PassError, PreservedAnalyses};

enum Stage<U: ?Sized> {
    Pass(Box<dyn Pass<U>>),
    Fixpoint { inner: PassManager<U>, max_iterations: usize },
}

/// Receives printed IR as `(label, text)`.
pub type IrSink = Box<dyn FnMut(&str, &str)>;

/// What the manager does around each pass.
#[derive(Default)]
pub struct Instrumentation {
    /// Print the IR before the first pass (labelled `input`) and after every pass.
    pub print_after_all: bool,
    /// Run [`IrUnit::verify`] after every pass and fail at the first pass that breaks the IR.
    pub verify_each: bool,
    /// Record wall time per pass (see [`PassManager::timings`]).
    pub time_passes: bool,
    /// Where printed IR goes. Receives `(label, text)`; defaults to standard error.
    pub sink: Option<IrSink>,
}

impl std::fmt::Debug for Instrumentation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Instrumentation")
            .field("print_after_all", &self.print_after_all)
            .field("verify_each", &self.verify_each)
            .field("time_passes", &self.time_passes)
            .finish()
    }
}

impl Instrumentation {
    fn emit(&mut self, label: &str, text: &str) {
        match &mut self.sink {
            Some(sink) => sink(label, text),
            None => eprint!("; *** IR Dump {label} ***\n{text}"),
        }
    }
}

/// Wall time of one pass run.
#[derive(Debug, Clone)]
pub struct PassTiming {
    pub pass: String,
    pub time: Duration,
}

/// A pipeline ready to run.
pub struct PassManager<U: ?Sized> {
    stages: Vec<Stage<U>>,
    instrumentation: Instrumentation,
    timings: Vec<PassTiming>,
}

impl<U: ?Sized> std::fmt::Debug for PassManager<U> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PassManager").field("pipeline", &self.pipeline_text()).finish()
    }
}

impl<U: ?Sized> Default for PassManager<U> {
    fn default() -> Self {
        Self { stages: Vec::new(), instrumentation: Instrumentation::default(), timings: Vec::new() }
    }
}

impl<U: ?Sized> PassManager<U> {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn add<P: Pass<U> + 'static>(&mut self, pass: P) -> &mut Self {
        self.add_boxed(Box::new(pass))
    }

    pub fn add_boxed(&mut self, pass: Box<dyn Pass<U>>) -> &mut Self {
        self.stages.push(Stage::Pass(pass));
        self
    }

    /// Reruns `inner` until a whole round preserves everything, at most `max_iterations` times.
    pub fn add_fixpoint(&mut self, inner: PassManager<U>, max_iterations: usize) -> &mut Self {
        self.stages.push(Stage::Fixpoint { inner, max_iterations });
        self
    }

    pub fn instrumentation_mut(&mut self) -> &mut Instrumentation {
        &mut self.instrumentation
    }

    pub fn set_instrumentation(&mut self, instrumentation: Instrumentation) {
        self.instrumentation = instrumentation;
    }

    pub fn timings(&self) -> &[PassTiming] {
        &self.timings
    }

    pub fn is_empty(&self) -> bool {
        self.stages.is_empty()
    }

    /// The canonical pipeline text; it parses back to this pipeline.
    pub fn pipeline_text(&self) -> String {
        let parts: Vec<String> = self
            .stages
            .iter()
            .map(|s| match s {
                Stage::Pass(p) => {
                    let params = p.params();
                    if params.is_empty() {
                        p.name().to_owned()
                    } else {
                        format!("{}<{params}>", p.name())
                    }
                }
                Stage::Fixpoint { inner, max_iterations } => {
                    format!("fixpoint<max-iterations={max_iterations}>({})", inner.pipeline_text())
                }
            })
            .collect();
        parts.join(",")
    }
}

impl<U: ?Sized + IrUnit> PassManager<U> {
    /// Runs every pass in order. Returns the combined preserved set (`all()` iff nothing changed).
    pub fn run(&mut self, unit: &mut U, analyses: &mut AnalysisManager<U>) -> Result<PreservedAnalyses, PassError> {
        if self.instrumentation.print_after_all {
            let text = unit.print();
            self.instrumentation.emit("input", &text);
        }
        let mut instr = std::mem::take(&mut self.instrumentation);
        let result = run_stages(&mut self.stages, unit, analyses, &mut instr, &mut self.timings);
        self.instrumentation = instr;
        result
    }
}

fn run_stages<U: ?Sized + IrUnit>(
    stages: &mut [Stage<U>],
    unit: &mut U,
    analyses: &mut AnalysisManager<U>,
    instr: &mut Instrumentation,
    timings: &mut Vec<PassTiming>,
) -> Result<PreservedAnalyses, PassError> {
    let mut total = PreservedAnalyses::all();
    for stage in stages.iter_mut() {
        let preserved = match stage {
            Stage::Pass(pass) => run_one(pass.as_mut(), unit, analyses, instr, timings)?,
            Stage::Fixpoint { inner, max_iterations } => {
                let mut combined = PreservedAnalyses::all();
                for iteration in 0..*max_iterations {
                    let _span = tracing::debug_span!("fixpoint", iteration).entered();
                    let round = run_stages(&mut inner.stages, unit, analyses, instr, timings)?;
                    if round.are_all_preserved() {
                        break;
                    }
                    combined.intersect(&round);
                }
                combined
            }
        };
        total.intersect(&preserved);
    }
    Ok(total)
}

fn run_one<U: ?Sized + IrUnit>(
    pass: &mut dyn Pass<U>,
    unit: &mut U,
    analyses: &mut AnalysisManager<U>,
    instr: &mut Instrumentation,
    timings: &mut Vec<PassTiming>,
) -> Result<PreservedAnalyses, PassError> {
    let name = pass.name();
    let span = tracing::info_span!("pass", name, ir = U::KIND);
    let _guard = span.enter();
    let start = Instant::now();
    let preserved = pass.run(unit, analyses)?;
    let elapsed = start.elapsed();
    tracing::debug!(changed = !preserved.are_all_preserved(), ?elapsed, "pass finished");
    analyses.invalidate(&preserved);
    if instr.time_passes {
        timings.push(PassTiming { pass: name.to_owned(), time: elapsed });
    }
    if instr.verify_each {
        if let Err(problems) = unit.verify() {
            return Err(PassError::new(name, format!("IR is invalid after this pass:\n  {}", problems.join("\n  "))));
        }
    }
    if instr.print_after_all {
        let text = unit.print();
        instr.emit(&format!("after {name}"), &text);
    }
    Ok(preserved)
}
