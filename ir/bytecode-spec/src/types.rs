//! The type lattice a language declares as data (the paper's section 4): its value types, and
//! the functions of its semantics that test a value for a set of them, with what each costs and
//! what it assumes. The type-check strength reduction pass reads it to remove type checks whose
//! answer is already known and to replace others by cheaper ones that give the same answer on
//! the values still possible; the later tiers' speculation uses the same sets.
//!
//! One line per entry, embedded in LLVM modules as `!deegen.type_lattice`:
//!
//! ```text
//! types nil boolean number string table function userdata thread
//! checker lua51_value::TValue::is_string proves=string cost=2
//! checker lua51_value::TValue::heap_is_string proves=string requires=string|table|function|userdata|thread cost=1
//! ```
//!
//! A checker with `requires=S` gives a meaningful answer only on values whose type is in `S`
//! (it may read an object header); without it, on every value.
//!
//! An optional `callable T|U` line names the types a callee may have when the semantics call
//! it (`make_call`): a call inline cache only ever holds such a value, so a hit decides every
//! check on the callee (`call-ic-check-hoisting`).

use std::fmt;

/// A set of types of one lattice, as bits in declaration order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct TypeMask(pub u64);

impl TypeMask {
    pub const EMPTY: TypeMask = TypeMask(0);

    pub fn contains_all(self, other: TypeMask) -> bool {
        other.0 & !self.0 == 0
    }
    pub fn intersect(self, other: TypeMask) -> TypeMask {
        TypeMask(self.0 & other.0)
    }
    pub fn union(self, other: TypeMask) -> TypeMask {
        TypeMask(self.0 | other.0)
    }
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
}

/// A function of the semantics that returns whether its value's type is in `proves`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeChecker {
    /// The function's Rust path (`crate::Type::method`), or its symbol name.
    pub function: String,
    pub proves: TypeMask,
    /// The values it may be called on; the lattice's full set when unrestricted.
    pub requires: TypeMask,
    /// Relative cost (instructions, loads count more); only compared between checkers.
    pub cost: u32,
}

/// A language's types and type checkers.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TypeLattice {
    pub types: Vec<String>,
    pub checkers: Vec<TypeChecker>,
    /// The types of every value the semantics pass to `make_call` as the callee (empty: not
    /// declared, nothing is assumed).
    pub callable: TypeMask,
}

/// What is wrong with a lattice description.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("type lattice: {0}")]
pub struct LatticeError(pub String);

fn lattice_error(message: impl Into<String>) -> LatticeError {
    LatticeError(message.into())
}

impl TypeLattice {
    /// Every type of the lattice.
    pub fn top(&self) -> TypeMask {
        if self.types.len() >= 64 {
            TypeMask(u64::MAX)
        } else {
            TypeMask((1u64 << self.types.len()) - 1)
        }
    }

    /// The mask of `names` (each a declared type).
    pub fn mask(&self, names: &[&str]) -> Result<TypeMask, LatticeError> {
        let mut m = 0u64;
        for n in names {
            let i = self.types.iter().position(|t| t == n).ok_or_else(|| lattice_error(format!("unknown type '{n}'")))?;
            m |= 1 << i;
        }
        Ok(TypeMask(m))
    }

    /// The type names in `mask`, joined by `|`.
    pub fn names(&self, mask: TypeMask) -> String {
        let names: Vec<&str> = self.types.iter().enumerate().filter(|(i, _)| mask.0 & (1 << i) != 0).map(|(_, t)| t.as_str()).collect();
        names.join("|")
    }

    /// Adds a checker given by type names (`requires` empty for "any value").
    pub fn add_checker(&mut self, function: &str, proves: &[&str], requires: &[&str], cost: u32) -> Result<(), LatticeError> {
        let proves = self.mask(proves)?;
        let requires = if requires.is_empty() { self.top() } else { self.mask(requires)? };
        self.checkers.push(TypeChecker { function: function.to_owned(), proves, requires, cost });
        self.validate()
    }

    /// Declares the types a callee has when the semantics call it.
    pub fn set_callable(&mut self, types: &[&str]) -> Result<(), LatticeError> {
        self.callable = self.mask(types)?;
        self.validate()
    }

    /// Checks the invariants the pass relies on.
    pub fn validate(&self) -> Result<(), LatticeError> {
        if self.types.is_empty() || self.types.len() > 64 {
            return Err(lattice_error(format!("{} types (1 to 64 allowed)", self.types.len())));
        }
        for (i, t) in self.types.iter().enumerate() {
            if t.is_empty() || t.contains(|c: char| c.is_whitespace() || c == '|' || c == '=') || self.types[..i].contains(t) {
                return Err(lattice_error(format!("bad or repeated type name '{t}'")));
            }
        }
        if !self.top().contains_all(self.callable) {
            return Err(lattice_error("the callable types must be types of the lattice"));
        }
        for c in &self.checkers {
            if c.proves.is_empty() || !self.top().contains_all(c.proves) || !self.top().contains_all(c.requires) || c.requires.is_empty() {
                return Err(lattice_error(format!("checker {}: its sets must be non-empty subsets of the types", c.function)));
            }
            if !c.requires.contains_all(c.proves) {
                return Err(lattice_error(format!("checker {}: proves types it may not be called on", c.function)));
            }
            if c.function.is_empty() || c.function.contains(char::is_whitespace) {
                return Err(lattice_error(format!("checker '{}': bad function name", c.function)));
            }
        }
        Ok(())
    }

    /// The text form, one entry per line.
    pub fn lines(&self) -> Vec<String> {
        let mut out = vec![format!("types {}", self.types.join(" "))];
        for c in &self.checkers {
            let mut line = format!("checker {} proves={}", c.function, self.names(c.proves));
            if c.requires != self.top() {
                line.push_str(&format!(" requires={}", self.names(c.requires)));
            }
            line.push_str(&format!(" cost={}", c.cost));
            out.push(line);
        }
        if !self.callable.is_empty() {
            out.push(format!("callable {}", self.names(self.callable)));
        }
        out
    }

    /// Parses [`Self::lines`].
    pub fn parse<'a>(lines: impl IntoIterator<Item = &'a str>) -> Result<TypeLattice, LatticeError> {
        let mut lattice = TypeLattice::default();
        for line in lines {
            let mut words = line.split_whitespace();
            match words.next() {
                Some("types") if lattice.types.is_empty() => lattice.types = words.map(str::to_owned).collect(),
                Some("checker") if !lattice.types.is_empty() => {
                    let function = words.next().ok_or_else(|| lattice_error(format!("'{line}': no function")))?;
                    let (mut proves, mut requires, mut cost) = (None, None, None);
                    for w in words {
                        let (key, value) = w.split_once('=').ok_or_else(|| lattice_error(format!("'{line}': '{w}' is not key=value")))?;
                        let names: Vec<&str> = value.split('|').collect();
                        match key {
                            "proves" => proves = Some(lattice.mask(&names)?),
                            "requires" => requires = Some(lattice.mask(&names)?),
                            "cost" => cost = Some(value.parse::<u32>().map_err(|_| lattice_error(format!("'{line}': bad cost")))?),
                            _ => return Err(lattice_error(format!("'{line}': unknown key '{key}'"))),
                        }
                    }
                    let proves = proves.ok_or_else(|| lattice_error(format!("'{line}': no proves=")))?;
                    let cost = cost.ok_or_else(|| lattice_error(format!("'{line}': no cost=")))?;
                    let requires = requires.unwrap_or(lattice.top());
                    lattice.checkers.push(TypeChecker { function: function.to_owned(), proves, requires, cost });
                }
                Some("callable") if !lattice.types.is_empty() && lattice.callable.is_empty() => {
                    let names: Vec<&str> = words.flat_map(|w| w.split('|')).collect();
                    if names.is_empty() {
                        return Err(lattice_error(format!("'{line}': no types")));
                    }
                    lattice.callable = lattice.mask(&names)?;
                }
                _ => {
                    return Err(lattice_error(format!(
                        "unexpected line '{line}' (a 'types' line first, then 'checker' lines and at most one 'callable' line)"
                    )))
                }
            }
        }
        lattice.validate()?;
        Ok(lattice)
    }
}

impl fmt::Display for TypeLattice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for l in self.lines() {
            writeln!(f, "{l}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> TypeLattice {
        let mut l = TypeLattice { types: ["nil", "number", "string", "table"].map(String::from).to_vec(), ..Default::default() };
        l.add_checker("v::is_number", &["number"], &[], 1).unwrap();
        l.add_checker("v::is_string", &["string"], &[], 2).unwrap();
        l.add_checker("v::heap_is_string", &["string"], &["string", "table"], 1).unwrap();
        l
    }

    #[test]
    fn text_form_round_trips() {
        let l = sample();
        let text = l.to_string();
        assert_eq!(
            text,
            "types nil number string table\nchecker v::is_number proves=number cost=1\nchecker v::is_string proves=string cost=2\nchecker v::heap_is_string proves=string requires=string|table cost=1\n"
        );
        assert_eq!(TypeLattice::parse(text.lines()).unwrap(), l);
    }

    #[test]
    fn callable_types_round_trip() {
        let mut l = sample();
        l.set_callable(&["table", "string"]).unwrap();
        let text = l.to_string();
        assert!(text.ends_with("callable string|table\n"), "{text}");
        assert_eq!(TypeLattice::parse(text.lines()).unwrap(), l);
        assert!(l.set_callable(&["function"]).is_err());
    }

    #[test]
    fn bad_descriptions_are_refused() {
        for (text, expected) in [
            ("checker f proves=nil cost=1", "a 'types' line first"),
            ("types a b\nchecker f proves=c cost=1", "unknown type 'c'"),
            ("types a b\nchecker f proves=a requires=b cost=1", "proves types it may not be called on"),
            ("types a b\nchecker f proves=a", "no cost="),
            ("types a a", "repeated type name"),
            ("types a\nchecker f proves=a cost=x", "bad cost"),
            ("types a\ncallable b", "unknown type 'b'"),
            ("types a\ncallable a\ncallable a", "at most one 'callable'"),
        ] {
            let e = TypeLattice::parse(text.lines()).unwrap_err().to_string();
            assert!(e.contains(expected), "{text}: {e}");
        }
    }
}
