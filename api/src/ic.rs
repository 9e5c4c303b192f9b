//! The generic inline-cache API (the paper's section 5.2): a semantic function names a *key*
//! (what decides whether a cached result still applies, e.g. a table's hidden-class id), a
//! *body* (the full computation, run on a miss, which decides whether its result may be cached
//! and under what *state*), and an *effect* (what runs with the cached state on a hit, and after
//! a body that cached). The body must not depend on anything but the key and the operands the
//! effect also sees, or a hit would answer differently from the body.
//!
//! ```ignore
//! let ic = unsafe { InlineCache::at(cache_operand) };
//! ic.run(table.shape_id, || match lookup(table, key) {
//!     Some(slot) => IcBody::Cache(slot),   // a hit next time: `effect(slot)` without `lookup`
//!     None => IcBody::Done(NIL),           // not cacheable: the body's own answer
//! }, |slot| table.slots[slot])
//! ```
//!
//! **Interpreter lowering** (this module): a monomorphic cache in the instruction's `ic`
//! operand ([`OperandKind::InlineCache`](../../deegen_bytecode_spec/enum.OperandKind.html) of
//! 8 bytes: key, then state), compared on every execution; a miss runs the body and overwrites
//! the entry. The key [`IMPOSSIBLE_KEY`] (0) is one no entry ever has, and the bytecode builder
//! zero-fills the operand, so an empty cache needs no valid bit: it simply never matches.
//! [`UNCACHEABLE_KEY`] is a key the language gives objects it never caches for (the body must
//! answer `Done` for it), so the key space can run out without a stale hit.
//!
//! **Fused into the opcode** ([`InlineCache::run_fused`], the paper's
//! `FuseICIntoInterpreterOpcode`): the effect is written once over a small *kind* the state
//! carries (say, where a property lives and whether the object may have a metatable), and the
//! bytecode declares its cache `OperandKind::FusedInlineCache { kinds }`. The generator
//! (`interp-ic-quickening`) gives every variant one quickened variant per kind, in which a hit
//! runs the effect with the kind a constant, so the effect's tests of it fold away; every fill
//! rewrites the instruction's opcode to the variant of the kind just cached (dynamic
//! quickening). A fused cache runs once per execution, never in a loop: a hit must find the kind
//! the opcode was quickened for.
//!
//! The baseline JIT will lower the same three parts differently (a polymorphic chain of
//! patched stubs with the state as constants), which is why semantics state them apart instead
//! of writing the cache by hand.

/// A key no cache entry ever has: a zero-filled cache is empty.
pub const IMPOSSIBLE_KEY: u32 = 0;

/// A key the body never caches under (e.g. objects that ran out of ids).
pub const UNCACHEABLE_KEY: u32 = u32::MAX;

/// What a miss's body decided.
pub enum IcBody<R> {
    /// Cache this state under the key and run the effect with it.
    Cache(u32),
    /// Not cacheable: this is the result.
    Done(R),
}

/// One instruction's monomorphic inline cache (8 bytes of its bytecode, any alignment).
#[derive(Clone, Copy)]
pub struct InlineCache {
    entry: *mut u32,
}

impl InlineCache {
    /// The cache in an instruction's 8-byte `ic` operand.
    ///
    /// # Safety
    /// `operand` must point at the 8 writable bytes of an `ic` operand, zero-filled when the
    /// bytecode was built and written only through this type.
    #[inline(always)]
    pub unsafe fn at(operand: *mut u8) -> Self {
        InlineCache { entry: operand as *mut u32 }
    }

    /// The cached key and state.
    #[inline(always)]
    fn load(self) -> (u32, u32) {
        // SAFETY: 8 bytes per `at`'s contract.
        unsafe { (self.entry.read_unaligned(), self.entry.add(1).read_unaligned()) }
    }

    /// Runs the cache: `effect(state)` when the entry's key is `key`; otherwise `body()`, whose
    /// `Cache(state)` is stored under `key` (unless `key` is [`UNCACHEABLE_KEY`] or
    /// [`IMPOSSIBLE_KEY`]) and then goes through `effect`.
    #[inline(always)]
    pub fn run<R>(self, key: u32, body: impl FnOnce() -> IcBody<R>, effect: impl Fn(u32) -> R) -> R {
        self.run_checked(key, |_| true, body, effect)
    }

    /// Like [`InlineCache::run`] for an instruction whose operands other than the key vary
    /// (`t[k]` with a varying `k`): `valid(state)` confirms a hit before the effect runs.
    #[inline(always)]
    pub fn run_checked<R>(self, key: u32, valid: impl FnOnce(u32) -> bool, body: impl FnOnce() -> IcBody<R>, effect: impl Fn(u32) -> R) -> R {
        let (cached_key, state) = self.load();
        if cached_key == key && valid(state) {
            return effect(state);
        }
        self.miss(key, body, effect)
    }

    /// Like [`InlineCache::run`], with a cheap answer tried on a miss before the miss becomes
    /// the slow path: when `quick()` has one (a filter proving the key absent), the lookup
    /// ends there, uncached. For a cache shared by several objects looked at in turn (a
    /// method's cache along an `__index` chain names the class that holds the method, and the
    /// classes before it must not take the slow path at every call).
    #[inline(always)]
    pub fn run_or_quick<R>(self, key: u32, quick: impl FnOnce() -> Option<R>, body: impl FnOnce() -> IcBody<R>, effect: impl Fn(u32) -> R) -> R {
        let (cached_key, state) = self.load();
        if cached_key == key {
            return effect(state);
        }
        if let Some(r) = quick() {
            return r;
        }
        self.miss(key, body, effect)
    }

    /// A miss: `body()`, whose `Cache(state)` is stored under `key` and goes through `effect`.
    #[inline(always)]
    fn miss<R>(self, key: u32, body: impl FnOnce() -> IcBody<R>, effect: impl Fn(u32) -> R) -> R {
        // A miss is the slow path: `hot-cold-split` moves the body out of the fast path (and,
        // in the baseline JIT, out of every copy of the stencil).
        crate::cold_path();
        match body() {
            IcBody::Cache(state) => {
                if key != UNCACHEABLE_KEY && key != IMPOSSIBLE_KEY {
                    // SAFETY: as in `load`.
                    unsafe {
                        self.entry.write_unaligned(key);
                        self.entry.add(1).write_unaligned(state);
                    }
                }
                effect(state)
            }
            IcBody::Done(r) => r,
        }
    }

    /// [`InlineCache::run`] for a cache fused into the opcode: `kind_of(state)` (below `KINDS`)
    /// is the specialisation of `effect` a state needs, passed to it as its second argument. In
    /// a quickened variant a hit passes the variant's kind as a constant; a fill quickens the
    /// instruction to the variant of the new state's kind.
    ///
    /// Only for semantics compiled by the generator (its markers have no native definition),
    /// and at most once per execution of a bytecode.
    #[inline(always)]
    pub fn run_fused<R, const KINDS: u32>(
        self,
        key: u32,
        kind_of: impl Fn(u32) -> u32,
        body: impl FnOnce() -> IcBody<R>,
        effect: impl Fn(u32, u32) -> R,
    ) -> R {
        self.run_checked_fused::<R, KINDS>(key, |_| true, kind_of, body, effect)
    }

    /// [`InlineCache::run_checked`] fused into the opcode (see [`InlineCache::run_fused`]).
    #[inline(always)]
    pub fn run_checked_fused<R, const KINDS: u32>(
        self,
        key: u32,
        valid: impl FnOnce(u32) -> bool,
        kind_of: impl Fn(u32) -> u32,
        body: impl FnOnce() -> IcBody<R>,
        effect: impl Fn(u32, u32) -> R,
    ) -> R {
        let (cached_key, state) = self.load();
        if cached_key == key && valid(state) {
            // SAFETY: a marker the generator lowers (the kind of the opcode, or `computed`).
            let kind = unsafe { crate::markers::__deegen_api_ic_fused_kind(kind_of(state), KINDS) };
            return effect(state, kind);
        }
        crate::cold_path();
        match body() {
            IcBody::Cache(state) => {
                let kind = kind_of(state);
                if key != UNCACHEABLE_KEY && key != IMPOSSIBLE_KEY {
                    // SAFETY: as in `load`; the quicken marker rewrites this instruction's opcode.
                    unsafe {
                        self.entry.write_unaligned(key);
                        self.entry.add(1).write_unaligned(state);
                        crate::markers::__deegen_api_ic_quicken(kind, KINDS);
                    }
                }
                effect(state, kind)
            }
            IcBody::Done(r) => r,
        }
    }
}

/// Range annotation of an inline-cache state (the paper's `IcAnnotateRange`): inside an effect,
/// states that `state` lies in `lo..=hi` and returns it. Undefined behaviour otherwise, so the
/// generator may rely on it: the interpreter's LLVM code takes it as an assumption (a narrower
/// index, folded bounds), and a JIT that burns states into its code as constants knows how
/// many bits they need.
#[inline(always)]
pub fn annotate_range(state: u32, lo: u32, hi: u32) -> u32 {
    // An `llvm.assume`, not a branch to `unreachable`: the generator's passes see no path to
    // split out.
    // SAFETY: the caller's contract: the body never caches a state outside the range.
    unsafe { core::hint::assert_unchecked(state >= lo && state <= hi) };
    state
}

/// Names of the fused-cache markers (`interp-ic-quickening` lowers them).
pub mod symbols {
    /// `fn(computed: u32, kinds: u32) -> u32`: the kind of a hit's state.
    pub const FUSED_KIND: &str = "__deegen_api_ic_fused_kind";
    /// `fn(kind: u32, kinds: u32)`: the cache now holds a state of `kind`.
    pub const QUICKEN: &str = "__deegen_api_ic_quicken";
}
