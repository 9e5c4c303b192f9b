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
}
