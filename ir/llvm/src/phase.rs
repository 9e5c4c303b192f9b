//! The phases of an LLVM module in the generator, recorded in the module itself so that a dump
//! written at any point says where it is, and the invariants each phase promises.
//!
//! ```text
//!  semantics ──interp-create-handlers──► handlers ──lower-interp-api──► lowered ──interp-finalize──► finalized
//! ```
//!
//! The phase is the last node of the named metadata `!deegen.phase` (`!{!"handlers"}`); the
//! nodes before it are the phases the module went through. A module without it (rustc's
//! bitcode of the semantics crate) is in `semantics`.

use std::collections::HashSet;

use deegen_api::symbols;
use inkwell::module::Module;

use crate::{callee_name, calls_in, defined_functions, function_attr, handler_kind, handler_type, GHC_CALLING_CONV, HANDLER_KIND_ATTR};

/// Named metadata recording the module's phases, oldest first.
pub const PHASE_METADATA: &str = "deegen.phase";

/// Where an LLVM module is in the generator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LlvmPhase {
    /// The semantics crate's bitcode with the bytecode variants embedded: no handlers yet.
    Semantics,
    /// One GHC-convention handler per variant and continuation, still calling API markers.
    Handlers,
    /// The API markers are lowered to interpreter code.
    Lowered,
    /// Internalised and optimised: only the interpreter's exported symbols are left.
    Finalized,
}

impl LlvmPhase {
    pub const ALL: [LlvmPhase; 4] = [LlvmPhase::Semantics, LlvmPhase::Handlers, LlvmPhase::Lowered, LlvmPhase::Finalized];

    pub fn name(self) -> &'static str {
        match self {
            LlvmPhase::Semantics => "semantics",
            LlvmPhase::Handlers => "handlers",
            LlvmPhase::Lowered => "lowered",
            LlvmPhase::Finalized => "finalized",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.name() == name)
    }
}

impl std::fmt::Display for LlvmPhase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl deegen_pass::IrPhase for LlvmPhase {}

/// The module's phase: the last node of [`PHASE_METADATA`], `semantics` when there is none.
pub fn read_phase(module: &Module<'_>) -> Result<LlvmPhase, String> {
    let Some(last) = module.get_global_metadata(PHASE_METADATA).last().copied() else {
        return Ok(LlvmPhase::Semantics);
    };
    let text = last
        .get_node_values()
        .and_then(|values| values.first().copied())
        .and_then(crate::metadata_string)
        .ok_or("!deegen.phase nodes hold one string each")?;
    let text = String::from_utf8_lossy(&text).into_owned();
    LlvmPhase::from_name(&text).ok_or_else(|| {
        let known: Vec<_> = LlvmPhase::ALL.iter().map(|p| p.name()).collect();
        format!("!deegen.phase names '{text}', which is not a phase (known: {})", known.join(", "))
    })
}

/// Appends `phase` to [`PHASE_METADATA`] (LLVM's C API can append to named metadata but not
/// rewrite it, and the history is worth reading in a dump).
pub fn write_phase(module: &Module<'_>, phase: LlvmPhase) {
    let ctx = module.get_context();
    let node = ctx.metadata_node(&[ctx.metadata_string(phase.name()).into()]);
    module.add_global_metadata(PHASE_METADATA, &node).expect("a metadata node is valid named-metadata content");
}

/// The invariants of `phase` that LLVM's verifier does not know: one message per violation.
pub fn check_phase_invariants(module: &Module<'_>, phase: LlvmPhase) -> Vec<String> {
    let mut problems = Vec::new();
    if phase < LlvmPhase::Handlers {
        return problems;
    }
    // Checkers may remain as calls until `interp-finalize` inlines them all.
    let checkers: HashSet<String> = if phase >= LlvmPhase::Finalized {
        match crate::read_type_lattice(module) {
            Err(e) => {
                problems.push(e);
                HashSet::new()
            }
            Ok(None) => HashSet::new(),
            Ok(Some(lattice)) => {
                crate::type_checker_functions(module, &lattice).into_iter().map(|(f, _)| f.get_name().to_string_lossy().into_owned()).collect()
            }
        }
    } else {
        HashSet::new()
    };
    let expected = handler_type(module.get_context());
    for f in defined_functions(module) {
        let name = f.get_name().to_string_lossy();
        let kind = function_attr(f, HANDLER_KIND_ATTR);
        // Thunks are the doors from C and have their own signatures.
        if matches!(
            kind.as_deref(),
            Some(
                handler_kind::BYTECODE
                    | handler_kind::CONTINUATION
                    | handler_kind::STENCIL
                    | handler_kind::STENCIL_CONTINUATION
                    | handler_kind::LIBRARY
            )
        ) && (f.get_call_conventions() != GHC_CALLING_CONV || f.get_type() != expected)
        {
            problems.push(format!(
                "phase '{phase}': handler {name} does not have the handler signature (GHC convention, {})",
                expected.print_to_string().to_string_lossy()
            ));
        }
        if phase < LlvmPhase::Lowered {
            continue;
        }
        // The semantic functions keep their markers until `interp-finalize` deletes them: only
        // the generated functions must be free of them.
        let generated = kind.is_some();
        for callee in calls_in(f).into_iter().filter_map(callee_name) {
            if generated && is_api_marker(&callee) {
                problems.push(format!("phase '{phase}': {name} still calls the API marker {callee}"));
            }
            if checkers.contains(&callee) {
                problems.push(format!("phase '{phase}': {name} still calls the type checker {callee}"));
            }
        }
    }
    problems
}

/// API markers that lowering removes. Type checkers and the runtime's entry points share the
/// prefix only by name; see `deegen_api::symbols`.
fn is_api_marker(name: &str) -> bool {
    name.starts_with(symbols::API_PREFIX)
}
