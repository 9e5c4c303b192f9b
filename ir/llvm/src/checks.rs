//! What a boolean built from type checks evaluates to when some values are known to have
//! some types: shared by the passes that reason about checks without running the full SCCP of
//! `type-check-strength-reduction` (`type-hint-slow-paths` with an operand's hinted types,
//! `call-ic-check-hoisting` with the types a cached callee has).

use std::collections::HashMap;

use deegen_bytecode_spec::{TypeLattice, TypeMask};
use inkwell::module::Module;
use inkwell::values::AsValueRef;

use crate::raw::Value;

/// How deep [`CheckFacts::outcome`] looks through `not`/`and`/`or` (boolean expressions of checks
/// are short).
const MAX_DEPTH: u32 = 8;

/// The module's checker functions with what each proves and where its answer means something.
pub struct Checkers {
    by_function: HashMap<Value, (TypeMask, TypeMask)>,
}

impl Checkers {
    pub fn of(module: &Module<'_>, lattice: &TypeLattice) -> Self {
        let by_function = crate::type_checker_functions(module, lattice)
            .into_iter()
            .map(|(f, i)| (Value(f.as_value_ref()), (lattice.checkers[i].proves, lattice.checkers[i].requires)))
            .collect();
        Checkers { by_function }
    }

    /// `Some((checked value, proves, requires))` when `v` is a call of a checker.
    pub fn check_of(&self, v: Value) -> Option<(Value, TypeMask, TypeMask)> {
        let (proves, requires) = *self.by_function.get(&v.callee()?)?;
        let [arg] = v.call_args()[..] else { return None };
        Some((arg, proves, requires))
    }

    /// What boolean `v` is when each value `types_of` knows has only the types it gives, if that
    /// decides it. A check of a value whose types are outside the checker's `requires` decides
    /// nothing (its answer there is meaningless).
    pub fn outcome(&self, v: Value, types_of: &dyn Fn(Value) -> Option<TypeMask>) -> Option<bool> {
        self.outcome_at(v, types_of, 0)
    }

    fn outcome_at(&self, v: Value, types_of: &dyn Fn(Value) -> Option<TypeMask>, depth: u32) -> Option<bool> {
        if depth > MAX_DEPTH || !v.is_instruction() {
            return None;
        }
        if let Some((arg, proves, requires)) = self.check_of(v) {
            let types = types_of(arg)?;
            if !requires.contains_all(types) {
                return None;
            }
            if proves.contains_all(types) {
                return Some(true);
            }
            if proves.intersect(types).is_empty() {
                return Some(false);
            }
            return None;
        }
        if let Some(x) = v.negated_operand() {
            return self.outcome_at(x, types_of, depth + 1).map(|b| !b);
        }
        if let Some((a, b, is_and)) = v.boolean_pair() {
            let (ta, tb) = (self.outcome_at(a, types_of, depth + 1), self.outcome_at(b, types_of, depth + 1));
            // `and` is false when either part is, true when both are; `or` the other way.
            let decisive = !is_and;
            if ta == Some(decisive) || tb == Some(decisive) {
                return Some(decisive);
            }
            if ta == Some(!decisive) && tb == Some(!decisive) {
                return Some(!decisive);
            }
        }
        None
    }
}
