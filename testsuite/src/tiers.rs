//! Execution tiers: named sets of extra command-line flags passed to `ljr` before the script.
//!
//! The same Lua corpus is run once per selected tier, so one test file checks the
//! interpreter, the baseline JIT and the optimising JIT alike. The set of tiers is a small
//! static table: enabling a new tier is adding one line to [`TIERS`].

use thiserror::Error;

/// Environment variable holding the comma-separated tier names to run (default: `default`).
pub const TIERS_ENV: &str = "LJR_TIERS";

/// A named set of flags passed to the implementation before the script name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tier {
    /// Name used in `LJR_TIERS`, in trial names (`basic/arith.lua [default]`) and in benchmark
    /// engine names (`ljr-<name>` for every tier but `default`).
    pub name: &'static str,
    /// Flags inserted between the program and the script.
    pub flags: &'static [&'static str],
}

impl Tier {
    /// How many times the usual time limit a run gets in this tier. Limits are there to catch
    /// hangs; collecting at every safe point (`--gc-stress`) makes a program many times
    /// slower, most of all in a debug build (a million tail calls: 55 s of CPU), and a loaded
    /// machine stretched such runs past their limit; so does checking the collector's
    /// invariant at every safe point (`--gc-verify`).
    pub fn time_scale(&self) -> u32 {
        if self.flags.contains(&"--gc-stress") || self.flags.contains(&"--gc-verify") {
            5
        } else {
            1
        }
    }
}

/// Every tier `ljr` knows. Add a line here when a new execution tier lands, e.g.
/// `Tier { name: "interp", flags: &["-joff"] },`.
pub const TIERS: &[Tier] = &[
    Tier { name: "default", flags: &[] },
    // Not a tier but a mode worth running the whole corpus in: a collection at every safe
    // point, so a missing root shows up as a wrong answer or crash in some test.
    Tier { name: "gcstress", flags: &["--gc-stress"] },
    // The incremental collector stepped at every safe point, its invariant (no black object
    // refers to a white one) checked after each step: a missing write barrier stops the run.
    Tier { name: "gcverify", flags: &["--gc-verify"] },
    // The interpreter alone, the baseline JIT on every function from its load, and tiering up
    // at the second back edge or call (OSR entry into a running frame) with a threshold of 1;
    // the JIT tiers decode and check every function they compile (`--jit-verify`).
    Tier { name: "interp", flags: &["--tier=interpreter"] },
    Tier { name: "baseline", flags: &["--tier=baseline", "--jit-verify"] },
    Tier { name: "tierup", flags: &["--tier=auto", "--tier-up-threshold=1", "--jit-verify"] },
    // Tiering up after ten calls or back edges: functions run in the interpreter first (their
    // caches filled, their instructions quickened), callers and callees are compiled at
    // different times, and a program moves between tiers all along, as under the default
    // threshold with a long run (a call stub left aimed at a stale entry once only showed on
    // benchmarks).
    Tier { name: "tierup-warm", flags: &["--tier=auto", "--tier-up-threshold=10", "--jit-verify"] },
    Tier { name: "baseline-gcstress", flags: &["--tier=baseline", "--gc-stress"] },
    // The write barrier as the JIT's stencils have it, checked.
    Tier { name: "baseline-gcverify", flags: &["--tier=baseline", "--gc-verify"] },
];

/// The tier used when `LJR_TIERS` is unset or empty.
pub const DEFAULT_TIER: &str = "default";

/// `LJR_TIERS` named a tier that is not in [`TIERS`].
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("unknown tier `{name}` in {TIERS_ENV}; known tiers: {known} (or `all`)")]
pub struct UnknownTier {
    /// The offending name.
    pub name: String,
    /// Comma-separated known names, for the message.
    pub known: String,
}

/// Looks a tier up by name.
pub fn tier(name: &str) -> Option<&'static Tier> {
    TIERS.iter().find(|t| t.name == name)
}

/// Parses a comma-separated tier list such as `default,interp`.
///
/// Whitespace around names is ignored, duplicates are dropped (first occurrence wins), `all`
/// expands to every tier in [`TIERS`], and an empty list means [`DEFAULT_TIER`]. An unknown
/// name is an error rather than being skipped: a typo must not silently shrink the test run.
pub fn parse_tier_list(spec: &str) -> Result<Vec<&'static Tier>, UnknownTier> {
    let mut out: Vec<&'static Tier> = Vec::new();
    let mut push = |t: &'static Tier| {
        if !out.iter().any(|o| o.name == t.name) {
            out.push(t);
        }
    };
    for name in spec.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        if name == "all" {
            TIERS.iter().for_each(&mut push);
            continue;
        }
        match tier(name) {
            Some(t) => push(t),
            None => return Err(UnknownTier { name: name.to_owned(), known: TIERS.iter().map(|t| t.name).collect::<Vec<_>>().join(", ") }),
        }
    }
    if out.is_empty() {
        out.push(tier(DEFAULT_TIER).expect("the default tier is in the table"));
    }
    Ok(out)
}

/// The tiers selected by the `LJR_TIERS` environment variable.
pub fn selected_tiers() -> Result<Vec<&'static Tier>, UnknownTier> {
    parse_tier_list(&std::env::var(TIERS_ENV).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_spec_means_default() {
        let tiers = parse_tier_list("").unwrap();
        assert_eq!(tiers.len(), 1);
        assert_eq!(tiers[0].name, DEFAULT_TIER);
        assert!(tiers[0].flags.is_empty());
        assert_eq!(parse_tier_list(" , ").unwrap()[0].name, DEFAULT_TIER);
    }

    #[test]
    fn duplicates_and_all_are_folded() {
        let tiers = parse_tier_list("default, default,all").unwrap();
        assert_eq!(tiers.len(), TIERS.len());
        assert_eq!(tiers[0].name, "default");
    }

    #[test]
    fn unknown_tier_is_an_error() {
        let err = parse_tier_list("default,turbo").unwrap_err();
        assert_eq!(err.name, "turbo");
        assert!(err.to_string().contains("known tiers: default"), "{err}");
    }

    #[test]
    fn tier_names_are_unique() {
        for (i, a) in TIERS.iter().enumerate() {
            assert!(TIERS[i + 1..].iter().all(|b| b.name != a.name), "duplicate tier {}", a.name);
            assert_ne!(a.name, "all", "`all` is reserved for the whole table");
        }
    }
}
