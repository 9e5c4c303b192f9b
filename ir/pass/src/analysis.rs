//! Analyses: computed on demand, cached per IR unit, invalidated by what passes fail to preserve.

use std::any::{Any, TypeId};
use std::collections::{BTreeSet, HashMap};
use std::marker::PhantomData;

/// A computation over an IR unit whose result passes can query and share.
///
/// `Result` must be `'static`: results refer to IR entities by stable names or indices, never by
/// borrowed handles, so a cached result cannot dangle.
pub trait Analysis<U: ?Sized>: 'static {
    type Result: 'static;
    const NAME: &'static str;
    fn run(unit: &U, analyses: &mut AnalysisManager<U>) -> Self::Result;
}

/// What a pass leaves valid. `all()` also tells the manager that the pass changed nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreservedAnalyses {
    all: bool,
    preserved: BTreeSet<&'static str>,
}

impl PreservedAnalyses {
    /// Nothing changed: every analysis stays valid.
    pub fn all() -> Self {
        Self { all: true, preserved: BTreeSet::new() }
    }

    /// The unit changed and no analysis survives, unless added with [`Self::preserve`].
    pub fn none() -> Self {
        Self { all: false, preserved: BTreeSet::new() }
    }

    /// Keeps analysis `A` valid across an otherwise changing pass.
    pub fn preserve<U: ?Sized, A: Analysis<U>>(mut self) -> Self {
        self.preserved.insert(A::NAME);
        self
    }

    pub fn are_all_preserved(&self) -> bool {
        self.all
    }

    pub fn is_preserved(&self, name: &str) -> bool {
        self.all || self.preserved.contains(name)
    }

    /// The meet of two results, for a pass made of passes.
    pub fn intersect(&mut self, other: &PreservedAnalyses) {
        if other.all {
            return;
        }
        if self.all {
            *self = other.clone();
            return;
        }
        self.preserved.retain(|n| other.preserved.contains(n));
    }
}

struct CachedResult {
    name: &'static str,
    value: Box<dyn Any>,
}

/// Caches analysis results for one IR unit.
pub struct AnalysisManager<U: ?Sized> {
    cache: HashMap<TypeId, CachedResult>,
    computed: usize,
    _unit: PhantomData<fn(&U)>,
}

impl<U: ?Sized> Default for AnalysisManager<U> {
    fn default() -> Self {
        Self { cache: HashMap::new(), computed: 0, _unit: PhantomData }
    }
}

impl<U: ?Sized> std::fmt::Debug for AnalysisManager<U> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut names: Vec<_> = self.cache.values().map(|c| c.name).collect();
        names.sort_unstable();
        f.debug_struct("AnalysisManager").field("cached", &names).finish()
    }
}

impl<U: ?Sized> AnalysisManager<U> {
    pub fn new() -> Self {
        Self::default()
    }

    /// The result of `A` on `unit`, computed now if it is not cached.
    pub fn get<A: Analysis<U>>(&mut self, unit: &U) -> &A::Result {
        let key = TypeId::of::<A>();
        if !self.cache.contains_key(&key) {
            let _span = tracing::debug_span!("analysis", name = A::NAME).entered();
            let value = A::run(unit, self);
            self.computed += 1;
            self.cache.insert(key, CachedResult { name: A::NAME, value: Box::new(value) });
        }
        self.cached::<A>().expect("analysis result was just inserted")
    }

    /// The cached result of `A`, never computing it.
    pub fn cached<A: Analysis<U>>(&self) -> Option<&A::Result> {
        self.cache.get(&TypeId::of::<A>()).and_then(|c| c.value.downcast_ref::<A::Result>())
    }

    /// Drops every cached result that `preserved` does not keep.
    pub fn invalidate(&mut self, preserved: &PreservedAnalyses) {
        if preserved.are_all_preserved() {
            return;
        }
        self.cache.retain(|_, c| preserved.is_preserved(c.name));
    }

    /// How many analysis runs this manager has made (for tests of caching).
    pub fn computations(&self) -> usize {
        self.computed
    }
}
