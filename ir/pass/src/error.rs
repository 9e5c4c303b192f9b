//! The errors of running passes, typed so that tools can tell a bad input from a broken pass
//! from a wrong pipeline order.

/// Why a pass could not transform its input. The manager adds the pass's name
/// ([`RunError::Pass`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PassError {
    /// The IR does not have the shape the pass needs (a malformed dump, a missing marker).
    /// Passes return this instead of panicking, so `deegen-opt` on a bad dump gives a message.
    #[error("{0}")]
    InvalidInput(String),
    /// A tool the pass drives (LLVM's optimiser, the code generator) failed.
    #[error("{tool} failed: {message}")]
    Tool { tool: &'static str, message: String },
}

impl PassError {
    pub fn invalid_input(message: impl Into<String>) -> Self {
        Self::InvalidInput(message.into())
    }
}

/// A pipeline order that does not fit the unit's phases, found before any pass runs.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PhaseError {
    #[error("cannot read the input's phase: {0}")]
    Unreadable(String),
    #[error("pass '{pass}' runs on {kind} IR in phase {expected}, but at this point of the pipeline the IR is in phase '{found}'{hint}")]
    Mismatch { pass: &'static str, kind: &'static str, expected: String, found: String, hint: String },
    #[error("the nested pipeline of 'fixpoint' moves the IR from phase '{from}' to '{to}': a fixpoint must stay in one phase")]
    FixpointChangesPhase { from: String, to: String },
}

/// Why a pipeline did not run to its end.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RunError {
    /// The pipeline order was refused before anything ran.
    #[error(transparent)]
    Phase(#[from] PhaseError),
    /// `verify-each`: the input breaks the IR's (or its phase's) invariants.
    #[error("the input IR is invalid:\n  {}", problems.join("\n  "))]
    InvalidInput { problems: Vec<String> },
    /// A pass rejected its input.
    #[error("pass '{pass}': {error}")]
    Pass { pass: &'static str, error: PassError },
    /// `verify-each`: a pass left IR that breaks the IR's (or its phase's) invariants.
    #[error("pass '{pass}': IR is invalid after this pass:\n  {}", problems.join("\n  "))]
    InvalidAfter { pass: &'static str, problems: Vec<String> },
}

impl RunError {
    /// The pass the error is about, if one is.
    pub fn pass(&self) -> Option<&'static str> {
        match self {
            RunError::Phase(PhaseError::Mismatch { pass, .. }) => Some(pass),
            RunError::Phase(_) | RunError::InvalidInput { .. } => None,
            RunError::Pass { pass, .. } | RunError::InvalidAfter { pass, .. } => Some(pass),
        }
    }
}
