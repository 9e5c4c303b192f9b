//! Library functions written in the semantics (the paper's `DEEGEN_DEFINE_LIB_FUNC`).
//!
//! A library function is a function value of the language (Lua's `pcall`, `select`, ...) whose
//! body the language writes against the same API as a bytecode's semantics instead of as native
//! code: it receives its frame (`deegen_api::stack_base()`, arguments from slot 0) and the
//! number of arguments, and ends in `return_from_function`, a throw, or `make_call` with a
//! return continuation. Calling it is then an ordinary call into generated code, with no native
//! frame in between, and a call it makes is an in-place call like a bytecode's.
//!
//! A library function may *catch* errors: when an error is thrown inside a call it made (and
//! no native frame lies between), the runtime's throw hook unwinds to it and its `catch`
//! function runs in its frame instead of the continuation.
//!
//! Text form (embedded as `!deegen.library` metadata, like the variants):
//! `name semantics [catch=semantics]`.

use std::fmt;

use crate::SpecError;

/// One library function as the language describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LibFunctionSpec {
    /// The name in symbols: the entry is `__deegen_lib_<name>`. Letters, digits and `_`.
    pub name: String,
    /// `#[no_mangle] fn(num_args: u64) -> !`: the body, run in the function's own frame.
    pub semantics: String,
    /// `#[no_mangle] fn() -> !`: runs in the function's frame when an error thrown inside a call
    /// it made unwinds to it; the error is wherever the language's throw hook left it.
    pub catch: Option<String>,
}

impl LibFunctionSpec {
    pub fn new(name: &str, semantics: &str) -> Self {
        LibFunctionSpec { name: name.to_string(), semantics: semantics.to_string(), catch: None }
    }

    /// This function catches errors thrown in its calls with `catch`.
    pub fn catching(mut self, catch: &str) -> Self {
        self.catch = Some(catch.to_string());
        self
    }

    /// The text form, read back by [`Self::parse`].
    pub fn parse(line: &str) -> Result<Self, SpecError> {
        let bad = |message: &str| SpecError::Parse { line: line.to_string(), message: message.to_string() };
        let mut words = line.split_whitespace();
        let name = words.next().ok_or_else(|| bad("empty library function line"))?;
        let semantics = words.next().ok_or_else(|| bad("no semantic function"))?;
        let mut spec = LibFunctionSpec::new(name, semantics);
        for w in words {
            match w.strip_prefix("catch=") {
                Some(c) if spec.catch.is_none() && !c.is_empty() => spec.catch = Some(c.to_string()),
                _ => return Err(bad(&format!("unexpected '{w}'"))),
            }
        }
        spec.check().map_err(|m| bad(&m))?;
        Ok(spec)
    }

    /// A name usable in symbols, and semantic function names without spaces.
    pub fn check(&self) -> Result<(), String> {
        let symbolic = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
        if !symbolic(&self.name) {
            return Err(format!("library function name '{}' must be letters, digits and '_'", self.name));
        }
        for f in std::iter::once(&self.semantics).chain(&self.catch) {
            if !symbolic(f) {
                return Err(format!("library function '{}': '{f}' is not a symbol name", self.name));
            }
        }
        Ok(())
    }
}

impl fmt::Display for LibFunctionSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.name, self.semantics)?;
        if let Some(c) = &self.catch {
            write!(f, " catch={c}")?;
        }
        Ok(())
    }
}

/// Checks a list of library functions: each valid, names unique.
pub fn check_library(functions: &[LibFunctionSpec]) -> Result<(), SpecError> {
    let mut seen = std::collections::BTreeSet::new();
    for f in functions {
        f.check().map_err(|message| SpecError::Invalid { bytecode: f.name.clone(), message })?;
        if !seen.insert(f.name.as_str()) {
            return Err(SpecError::Invalid { bytecode: f.name.clone(), message: "library function defined twice".into() });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_form_round_trips() {
        for spec in [LibFunctionSpec::new("select", "lua_lib_select"), LibFunctionSpec::new("pcall", "lua_lib_pcall").catching("lua_lib_pcall_catch")]
        {
            assert_eq!(LibFunctionSpec::parse(&spec.to_string()), Ok(spec));
        }
    }

    #[test]
    fn malformed_lines_are_errors() {
        for line in ["", "pcall", "pcall f catch=", "pcall f extra", "p-call f", "pcall f catch=a catch=b"] {
            assert!(LibFunctionSpec::parse(line).is_err(), "{line:?} parsed");
        }
    }

    #[test]
    fn duplicates_are_errors() {
        let f = LibFunctionSpec::new("pcall", "a");
        assert!(check_library(&[f.clone(), f]).is_err());
    }
}
