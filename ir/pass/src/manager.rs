//! Runs a sequence of passes over one IR unit, with the instrumentation (printing, timing,
//! verification, bisection) that passes never do themselves.

use std::time::{Duration, Instant};

use crate::{AnalysisManager, IrUnit, Pass, PassDescriptor, PhaseError, PreservedAnalyses, RegisteredPass, RunError};

struct PassStage<U: IrUnit + ?Sized> {
    descriptor: &'static PassDescriptor<U::Phase>,
    pass: Box<dyn Pass<U>>,
}

enum Stage<U: IrUnit + ?Sized> {
    Pass(PassStage<U>),
    Fixpoint { inner: PassManager<U>, max_iterations: usize },
}

/// Receives printed IR as `(label, text)`.
pub type IrSink = Box<dyn FnMut(&str, &str)>;

/// What the manager does around each pass.
#[derive(Default)]
pub struct Instrumentation {
    /// Print the IR before the first pass (labelled `input`) and after every pass.
    pub print_after_all: bool,
    /// Run [`IrUnit::verify`] on the input and after every pass, and fail at the first pass
    /// that breaks the IR.
    pub verify_each: bool,
    /// Record wall time per pass (see [`PassManager::timings`]).
    pub time_passes: bool,
    /// LLVM's `-opt-bisect-limit`: run only the first N passes that may be skipped (those not
    /// [`PassDescriptor::required`]); later optimisations are skipped. Bisecting N finds the
    /// pass that breaks the output. Every decision is recorded ([`PassManager::bisect_log`]).
    pub opt_bisect_limit: Option<usize>,
    /// Where printed IR goes. Receives `(label, text)`; defaults to standard error.
    pub sink: Option<IrSink>,
}

impl std::fmt::Debug for Instrumentation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Instrumentation")
            .field("print_after_all", &self.print_after_all)
            .field("verify_each", &self.verify_each)
            .field("time_passes", &self.time_passes)
            .field("opt_bisect_limit", &self.opt_bisect_limit)
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

/// One decision of `opt-bisect-limit` about a pass that may be skipped: its number among
/// those passes (from 1, as LLVM counts) and whether it ran.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BisectDecision {
    pub index: usize,
    pub pass: &'static str,
    pub ran: bool,
}

impl std::fmt::Display for BisectDecision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let verb = if self.ran { "running" } else { "NOT running" };
        write!(f, "BISECT: {verb} pass ({}) {}", self.index, self.pass)
    }
}

/// A pipeline ready to run.
pub struct PassManager<U: IrUnit + ?Sized> {
    stages: Vec<Stage<U>>,
    instrumentation: Instrumentation,
    timings: Vec<PassTiming>,
    bisect_log: Vec<BisectDecision>,
    /// Which pass moves the unit into each phase (from the registry), for phase errors.
    phase_producers: Vec<(U::Phase, &'static str)>,
}

impl<U: IrUnit + ?Sized> std::fmt::Debug for PassManager<U> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PassManager").field("pipeline", &self.pipeline_text()).finish()
    }
}

impl<U: IrUnit + ?Sized> Default for PassManager<U> {
    fn default() -> Self {
        Self {
            stages: Vec::new(),
            instrumentation: Instrumentation::default(),
            timings: Vec::new(),
            bisect_log: Vec::new(),
            phase_producers: Vec::new(),
        }
    }
}

impl<U: IrUnit + ?Sized> PassManager<U> {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn add<P: RegisteredPass<U>>(&mut self, pass: P) -> &mut Self {
        self.add_boxed(P::DESCRIPTOR, Box::new(pass))
    }

    pub fn add_boxed(&mut self, descriptor: &'static PassDescriptor<U::Phase>, pass: Box<dyn Pass<U>>) -> &mut Self {
        self.stages.push(Stage::Pass(PassStage { descriptor, pass }));
        self
    }

    /// Reruns `inner` until a whole round preserves everything, at most `max_iterations` times.
    pub fn add_fixpoint(&mut self, inner: PassManager<U>, max_iterations: usize) -> &mut Self {
        self.stages.push(Stage::Fixpoint { inner, max_iterations });
        self
    }

    /// Tells the manager which pass produces each phase, so that a phase error can say which
    /// pass is missing (the registry does this for the pipelines it builds).
    pub fn set_phase_producers(&mut self, producers: Vec<(U::Phase, &'static str)>) {
        self.phase_producers = producers;
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

    /// What `opt-bisect-limit` decided for each skippable pass of the last run.
    pub fn bisect_log(&self) -> &[BisectDecision] {
        &self.bisect_log
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
                Stage::Pass(PassStage { descriptor, pass }) => {
                    let params = pass.params();
                    if params.is_empty() {
                        descriptor.name.to_owned()
                    } else {
                        format!("{}<{params}>", descriptor.name)
                    }
                }
                Stage::Fixpoint { inner, max_iterations } => {
                    format!("fixpoint<max-iterations={max_iterations}>({})", inner.pipeline_text())
                }
            })
            .collect();
        parts.join(",")
    }

    /// Walks the pipeline from phase `start` without running it: every pass must accept the
    /// phase the passes before it leave. Returns the phase at the end.
    pub fn check_phases(&self, start: U::Phase) -> Result<U::Phase, PhaseError> {
        check_stages(&self.stages, start, &self.phase_producers)
    }
}

fn check_stages<U: IrUnit + ?Sized>(
    stages: &[Stage<U>],
    mut phase: U::Phase,
    producers: &[(U::Phase, &'static str)],
) -> Result<U::Phase, PhaseError> {
    for stage in stages {
        match stage {
            Stage::Pass(PassStage { descriptor: d, .. }) => {
                if !d.runs_in.contains(&phase) {
                    return Err(phase_mismatch::<U>(d, phase, producers));
                }
                phase = d.phase_after(phase);
            }
            Stage::Fixpoint { inner, .. } => {
                let after = check_stages(&inner.stages, phase, producers)?;
                if after != phase {
                    return Err(PhaseError::FixpointChangesPhase { from: phase.to_string(), to: after.to_string() });
                }
            }
        }
    }
    Ok(phase)
}

fn phase_mismatch<U: IrUnit + ?Sized>(d: &PassDescriptor<U::Phase>, found: U::Phase, producers: &[(U::Phase, &'static str)]) -> PhaseError {
    let producer = |p: U::Phase| producers.iter().find(|(q, _)| *q == p).map(|(_, n)| *n);
    let expected: Vec<String> = d.runs_in.iter().map(|p| format!("'{p}'")).collect();
    let earliest = d.runs_in.iter().copied().min().expect("registered passes run in some phase");
    // Too early: name the pass that moves the IR on. Too late: name the pass it must precede.
    let hint = if found < earliest {
        producer(earliest).map(|n| format!("; run '{n}' before it")).unwrap_or_default()
    } else {
        producer(found).map(|n| format!("; it must run before '{n}'")).unwrap_or_default()
    };
    PhaseError::Mismatch { pass: d.name, kind: U::KIND, expected: expected.join(" or "), found: found.to_string(), hint }
}

impl<U: IrUnit + ?Sized> PassManager<U> {
    /// Checks the pipeline against the unit's phase, then runs every pass in order. Returns
    /// the combined preserved set (`all()` iff nothing changed).
    pub fn run(&mut self, unit: &mut U, analyses: &mut AnalysisManager<U>) -> Result<PreservedAnalyses, RunError> {
        let start = unit.phase().map_err(PhaseError::Unreadable)?;
        self.check_phases(start)?;
        if self.instrumentation.verify_each {
            if let Err(problems) = unit.verify() {
                return Err(RunError::InvalidInput { problems });
            }
        }
        if self.instrumentation.print_after_all {
            let text = unit.print();
            self.instrumentation.emit("input", &text);
        }
        self.bisect_log.clear();
        let mut run = Run { instr: std::mem::take(&mut self.instrumentation), timings: &mut self.timings, bisect_log: &mut self.bisect_log };
        let result = run_stages(&mut self.stages, unit, analyses, &mut run);
        self.instrumentation = run.instr;
        result
    }
}

/// The state of one [`PassManager::run`] that nested fixpoints share.
struct Run<'a> {
    instr: Instrumentation,
    timings: &'a mut Vec<PassTiming>,
    bisect_log: &'a mut Vec<BisectDecision>,
}

fn run_stages<U: IrUnit + ?Sized>(
    stages: &mut [Stage<U>],
    unit: &mut U,
    analyses: &mut AnalysisManager<U>,
    run: &mut Run<'_>,
) -> Result<PreservedAnalyses, RunError> {
    let mut total = PreservedAnalyses::all();
    for stage in stages.iter_mut() {
        let preserved = match stage {
            Stage::Pass(stage) => run_one(stage, unit, analyses, run)?,
            Stage::Fixpoint { inner, max_iterations } => {
                let mut combined = PreservedAnalyses::all();
                for iteration in 0..*max_iterations {
                    let _span = tracing::debug_span!("fixpoint", iteration).entered();
                    let round = run_stages(&mut inner.stages, unit, analyses, run)?;
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

fn run_one<U: IrUnit + ?Sized>(
    stage: &mut PassStage<U>,
    unit: &mut U,
    analyses: &mut AnalysisManager<U>,
    run: &mut Run<'_>,
) -> Result<PreservedAnalyses, RunError> {
    let d = stage.descriptor;
    let name = d.name;
    if !d.required {
        if let Some(limit) = run.instr.opt_bisect_limit {
            let index = run.bisect_log.len() + 1;
            let ran = index <= limit;
            run.bisect_log.push(BisectDecision { index, pass: name, ran });
            if !ran {
                tracing::info!(pass = name, index, "skipped by opt-bisect-limit");
                return Ok(PreservedAnalyses::all());
            }
        }
    }
    let span = tracing::info_span!("pass", name, ir = U::KIND);
    let _guard = span.enter();
    let start = Instant::now();
    let preserved = stage.pass.run(unit, analyses).map_err(|error| RunError::Pass { pass: name, error })?;
    let elapsed = start.elapsed();
    tracing::debug!(changed = !preserved.are_all_preserved(), ?elapsed, "pass finished");
    if let Some(phase) = d.produces {
        unit.set_phase(phase);
    }
    analyses.invalidate(&preserved);
    if run.instr.time_passes {
        run.timings.push(PassTiming { pass: name.to_owned(), time: elapsed });
    }
    if run.instr.verify_each {
        if let Err(problems) = unit.verify() {
            return Err(RunError::InvalidAfter { pass: name, problems });
        }
    }
    if run.instr.print_after_all {
        let text = unit.print();
        run.instr.emit(&format!("after {name}"), &text);
    }
    Ok(preserved)
}
