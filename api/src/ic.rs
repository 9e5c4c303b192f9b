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
//! **Interpreter lowering** (this module): a cache of one to four entries in the instruction's
//! `ic` operand ([`OperandKind::InlineCache`](../../deegen_bytecode_spec/enum.OperandKind.html)
//! of 8 bytes per entry: key, then state), the first compared on every execution, the others
//! on its miss; a miss of all runs the body and makes its state the first entry. The key
//! [`IMPOSSIBLE_KEY`] (0) is one no entry ever has, and the bytecode builder zero-fills the
//! operand, so an empty cache needs no valid bit: it simply never matches.
//! [`UNCACHEABLE_KEY`] is a key the language gives objects it never caches for (the body must
//! answer `Done` for it), so the key space can run out without a stale hit.
//!
//! **Fused into the opcode** ([`InlineCache::run_fused`], the paper's
//! `FuseICIntoInterpreterOpcode`): the effect is written once over a small *kind* the state
//! carries (say, where a property lives and whether the object may have a metatable), and the
//! bytecode declares its cache `OperandKind::FusedInlineCache { kinds }`. The generator
//! (`interp-ic-quickening`) gives every variant one quickened variant per kind, in which a hit
//! runs the effect with the kind a constant, so the effect's tests of it fold away; every write
//! of the first entry (a fill, or the promotion of another entry that hit) rewrites the
//! instruction's opcode to the variant of that entry's kind (dynamic quickening). A fused cache
//! runs once per execution, never in a loop: a hit of the first entry must find the kind the
//! opcode was quickened for (a hit of another entry computes its kind, on the slow path).
//!
//! **Baseline JIT lowering of a fused cache** (the paper's section 7.3, polymorphic inline
//! caching with patched stubs): the instruction's code in line is a 5-byte `jmp` (the
//! self-modifying-code region) to the head of a chain of *IC stubs*, which ends at the
//! instruction's generic code (the base variant's stencil, which runs the cache above in the
//! bytecode). A stub is the quickened variant of one kind compiled with the first entry's key
//! and state as runtime constants (`deegen_api::runtime_constants::IC_KEY`, `IC_STATE`): its
//! hit is the effect alone, its miss a jump to the next stub. Every fill of the cache in the
//! generic code calls the JIT ([`runtime_constants::IC_FILLED`]), which copies the stub of the
//! filled kind, patches in the key, the state and the old chain head, and points the `jmp` at
//! it. That is why semantics state the key, body and effect apart instead of writing the cache
//! by hand.
//!
//! [`runtime_constants::IC_FILLED`]: crate::runtime_constants::IC_FILLED

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

/// One instruction's inline cache of `WAYS` entries (`8 * WAYS` bytes of its bytecode, any
/// alignment), each a key and a state. The first entry is compared in line; the others only
/// after it misses, on the slow path, so a site that sees one hidden class pays for one
/// compare and a site that sees a few (instances of sibling classes reaching one method) stops
/// running the body at every execution. A fill moves the entries down one place and writes
/// the first; a hit of another entry moves it to the first place the same way, so the entry in
/// line is the one that hit last (and, fused, of the kind the opcode is quickened for): a rare
/// second class does not leave the common one on the slow path. (Sites whose keys take turns
/// use [`InlineCache::run_or_quick`], which compares the other entries on an uncommon path
/// and leaves them where they are.)
#[derive(Clone, Copy)]
pub struct InlineCache<const WAYS: usize = 1> {
    entry: *mut u32,
}

impl<const WAYS: usize> InlineCache<WAYS> {
    /// The cache in an instruction's `8 * WAYS`-byte `ic` operand.
    ///
    /// # Safety
    /// `operand` must point at the `8 * WAYS` writable bytes of an `ic` operand, zero-filled
    /// when the bytecode was built and written only through this type with the same `WAYS`.
    #[inline(always)]
    pub unsafe fn at(operand: *mut u8) -> Self {
        const { assert!(WAYS >= 1 && WAYS <= 4, "an inline cache has 1 to 4 entries") };
        InlineCache { entry: operand as *mut u32 }
    }

    /// Entry `way`'s key and state.
    #[inline(always)]
    fn load(self, way: usize) -> (u32, u32) {
        // SAFETY: `way < WAYS`, and `8 * WAYS` bytes per `at`'s contract.
        unsafe { (self.entry.add(2 * way).read_unaligned(), self.entry.add(2 * way + 1).read_unaligned()) }
    }

    /// Makes `(key, state)` the first entry, moving entries `0..from` one place down: a
    /// fill (`from` the last entry, which is dropped) or the promotion of entry `from`, so an
    /// entry that keeps hitting returns to the compare in line.
    #[inline(always)]
    fn move_to_front(self, from: usize, key: u32, state: u32) {
        // SAFETY: as in `load`; entries are written only here.
        unsafe {
            let mut way = from;
            while way > 0 {
                // Whole entries, as 8 bytes: a `u32` load of the first key here would be the
                // one the fast path made, kept alive (in a register, spilled) for this.
                let entries = self.entry as *mut u64;
                entries.add(way).write_unaligned(entries.add(way - 1).read_unaligned());
                way -= 1;
            }
            self.entry.write_unaligned(key);
            self.entry.add(1).write_unaligned(state);
        }
    }

    /// The first entry after the first that holds `key` and passes `valid`: its place and
    /// state. Slow path only: the caller has marked it cold.
    #[inline(always)]
    fn probe_others(self, key: u32, valid: &impl Fn(u32) -> bool) -> Option<(usize, u32)> {
        let mut way = 1;
        while way < WAYS {
            let (cached_key, state) = self.load(way);
            if cached_key == key && valid(state) {
                return Some((way, state));
            }
            way += 1;
        }
        None
    }

    /// A miss of the first entry, on the slow path: another entry that holds `key` (promoted
    /// to the first), or `body()`, whose `Cache(state)` becomes the first entry. `Ok(state)` is
    /// what the first entry now holds; `Err` the answer to return without one (an uncacheable
    /// state already run through `effect`, or the body's `Done`).
    #[inline(always)]
    fn refill<R>(self, key: u32, valid: &impl Fn(u32) -> bool, body: impl FnOnce() -> IcBody<R>, uncached: impl FnOnce(u32) -> R) -> Result<u32, R> {
        let (from, state) = match self.probe_others(key, valid) {
            Some(found) => found,
            None => match body() {
                IcBody::Cache(state) if key != UNCACHEABLE_KEY && key != IMPOSSIBLE_KEY => (WAYS - 1, state),
                IcBody::Cache(state) => return Err(uncached(state)),
                IcBody::Done(r) => return Err(r),
            },
        };
        self.move_to_front(from, key, state);
        Ok(state)
    }

    /// Runs the cache: `effect(state)` when an entry's key is `key`; otherwise `body()`, whose
    /// `Cache(state)` is stored under `key` (unless `key` is [`UNCACHEABLE_KEY`] or
    /// [`IMPOSSIBLE_KEY`]) and then goes through `effect`.
    #[inline(always)]
    pub fn run<R>(self, key: u32, body: impl FnOnce() -> IcBody<R>, effect: impl Fn(u32) -> R) -> R {
        self.run_checked(key, |_| true, body, effect)
    }

    /// Like [`InlineCache::run`] for an instruction whose operands other than the key vary
    /// (`t[k]` with a varying `k`): `valid(state)` confirms a hit before the effect runs.
    #[inline(always)]
    pub fn run_checked<R>(self, key: u32, valid: impl Fn(u32) -> bool, body: impl FnOnce() -> IcBody<R>, effect: impl Fn(u32) -> R) -> R {
        let (cached_key, state) = self.load(0);
        if cached_key == key && valid(state) {
            return effect(state);
        }
        self.miss(key, &valid, body, effect)
    }

    /// Like [`InlineCache::run`] for a site that is polymorphic by nature, with a cheap answer
    /// tried when the first entry misses: `quick()` may answer `Cache(state)` (made the first
    /// entry, as a fill would) or `Done(r)` (the answer, uncached); when it has none, the other
    /// entries are compared, and only a miss of all of them is the slow path. `quick` and the
    /// other entries are the caller's to put on an uncommon path (`quick` starts with
    /// [`crate::uncommon_path`]), so they stay on the fast path's registers; an entry other
    /// than the first that hits is not moved (the keys of such a site take turns, and moving
    /// them cost stores at every turn).
    ///
    /// For a cache shared by several objects looked at in turn (a method's cache along an
    /// `__index` chain names the classes that hold the method; a class before them, whose key
    /// filter proves the method absent, is answered `Done`), and for a receiver cache whose
    /// objects usually lack the key (the instances of several classes at one method call: the
    /// filter's "absent" is cached).
    #[inline(always)]
    pub fn run_or_quick<R>(
        self,
        key: u32,
        quick: impl FnOnce() -> Option<IcBody<R>>,
        body: impl FnOnce() -> IcBody<R>,
        effect: impl Fn(u32) -> R,
    ) -> R {
        let (cached_key, state) = self.load(0);
        if cached_key == key {
            return effect(state);
        }
        match quick() {
            Some(IcBody::Done(r)) => return r,
            Some(IcBody::Cache(state)) => {
                if key != UNCACHEABLE_KEY && key != IMPOSSIBLE_KEY {
                    // Where the key already is (promoted), or a fill.
                    let from = self.probe_others(key, &|_| true).map_or(WAYS - 1, |(way, _)| way);
                    self.move_to_front(from, key, state);
                }
                return effect(state);
            }
            None => {}
        }
        let mut way = 1;
        while way < WAYS {
            let (cached_key, state) = self.load(way);
            if cached_key == key {
                return effect(state);
            }
            way += 1;
        }
        self.miss(key, &|_| true, body, effect)
    }

    /// A miss of the first entry: the other entries, then the body (see [`InlineCache::refill`]).
    #[inline(always)]
    fn miss<R>(self, key: u32, valid: &impl Fn(u32) -> bool, body: impl FnOnce() -> IcBody<R>, effect: impl Fn(u32) -> R) -> R {
        // A miss is the slow path: `hot-cold-split` moves the other entries' compares and the
        // body out of the fast path (and, in the baseline JIT, out of every copy of the stencil).
        crate::cold_path();
        match self.refill(key, valid, body, &effect) {
            Ok(state) => effect(state),
            Err(r) => r,
        }
    }

    /// [`InlineCache::run`] for a cache fused into the opcode: `kind_of(state)` (below `KINDS`)
    /// is the specialisation of `effect` a state needs, passed to it as its second argument. In
    /// a quickened variant a hit of the first entry passes the variant's kind as a constant;
    /// whatever writes the first entry (a fill, or the promotion of another entry that hit)
    /// quickens the instruction to that state's kind.
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
        valid: impl Fn(u32) -> bool,
        kind_of: impl Fn(u32) -> u32,
        body: impl FnOnce() -> IcBody<R>,
        effect: impl Fn(u32, u32) -> R,
    ) -> R {
        // SAFETY: markers the generator lowers: the first entry's key and state (loads of the
        // cache in the interpreter and the generic stencil; an IC stub's constants).
        let (cached_key, state) =
            unsafe { (crate::markers::__deegen_api_ic_entry_key(self.entry), crate::markers::__deegen_api_ic_entry_state(self.entry)) };
        if cached_key == key && valid(state) {
            // SAFETY: a marker the generator lowers (the kind of the opcode, or `computed`).
            let kind = unsafe { crate::markers::__deegen_api_ic_fused_kind(kind_of(state), KINDS) };
            return effect(state, kind);
        }
        // SAFETY: markers the generator lowers. In a baseline JIT IC stub (one cached key and
        // state burnt in as constants), a miss goes to the next stub of the site's chain, or
        // to the instruction's generic code, which runs this cache in full; everywhere else
        // `in_stub` is false.
        if unsafe { crate::markers::__deegen_api_ic_in_stub() } != 0 {
            unsafe { crate::markers::__deegen_api_ic_next() }
        }
        crate::cold_path();
        match self.refill(key, &valid, body, |state| effect(state, kind_of(state))) {
            Ok(state) => {
                let kind = kind_of(state);
                // SAFETY: the quicken marker rewrites this instruction's opcode to the kind of
                // the first entry, which `refill` just wrote.
                unsafe { crate::markers::__deegen_api_ic_quicken(kind, KINDS) };
                effect(state, kind)
            }
            Err(r) => r,
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

/// Names of the fused-cache markers (`interp-ic-quickening` lowers them, `lower-interp-api`
/// the stub's miss).
pub mod symbols {
    /// `fn(computed: u32, kinds: u32) -> u32`: the kind of a hit's state.
    pub const FUSED_KIND: &str = "__deegen_api_ic_fused_kind";
    /// `fn(kind: u32, kinds: u32)`: the cache now holds a state of `kind`.
    pub const QUICKEN: &str = "__deegen_api_ic_quicken";
    /// `fn(entry: *mut u32) -> u32`: the key of the cache's first entry.
    pub const ENTRY_KEY: &str = "__deegen_api_ic_entry_key";
    /// `fn(entry: *mut u32) -> u32`: the state of the cache's first entry.
    pub const ENTRY_STATE: &str = "__deegen_api_ic_entry_state";
    /// `fn() -> u32`: non-zero in a baseline JIT IC stub.
    pub const IN_STUB: &str = "__deegen_api_ic_in_stub";
    /// `fn() -> !`: an IC stub's miss (a jump to the next stub or the generic code).
    pub const NEXT: &str = "__deegen_api_ic_next";
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use core::cell::Cell;
    use std::vec::Vec;

    /// A body that caches `state` and counts its runs.
    fn caching(runs: &Cell<u32>, state: u32) -> impl FnOnce() -> IcBody<u32> + '_ {
        move || {
            runs.set(runs.get() + 1);
            IcBody::Cache(state)
        }
    }

    fn entries<const N: usize>(bytes: &[u8; N]) -> Vec<(u32, u32)> {
        bytes.chunks(8).map(|c| (u32::from_le_bytes(c[..4].try_into().unwrap()), u32::from_le_bytes(c[4..].try_into().unwrap()))).collect()
    }

    #[test]
    fn one_entry_refills_on_every_new_key() {
        let mut bytes = [0u8; 8];
        let ic = unsafe { InlineCache::<1>::at(bytes.as_mut_ptr()) };
        let runs = Cell::new(0);
        for (key, expect_runs) in [(7, 1), (7, 1), (9, 2), (7, 3), (7, 3)] {
            assert_eq!(ic.run(key, caching(&runs, key * 10), |s| s + 1), key * 10 + 1);
            assert_eq!(runs.get(), expect_runs, "key {key}");
        }
        assert_eq!(entries(&bytes), [(7, 70)]);
    }

    #[test]
    fn two_entries_serve_two_keys_and_promote_the_one_that_hit() {
        let mut bytes = [0u8; 16];
        let ic = unsafe { InlineCache::<2>::at(bytes.as_mut_ptr()) };
        let runs = Cell::new(0);
        ic.run(7, caching(&runs, 70), |s| s);
        ic.run(9, caching(&runs, 90), |s| s);
        assert_eq!(entries(&bytes), [(9, 90), (7, 70)], "a fill goes first, the older entry moves down");
        // 7 hits the second entry: no body, and it becomes the entry compared in line.
        assert_eq!(ic.run(7, caching(&runs, 0), |s| s), 70);
        assert_eq!(runs.get(), 2);
        assert_eq!(entries(&bytes), [(7, 70), (9, 90)]);
        // A third key drops the entry that hit least recently.
        ic.run(5, caching(&runs, 50), |s| s);
        assert_eq!(entries(&bytes), [(5, 50), (7, 70)]);
        assert_eq!(runs.get(), 3);
    }

    #[test]
    fn uncacheable_keys_never_fill() {
        let mut bytes = [0u8; 16];
        let ic = unsafe { InlineCache::<2>::at(bytes.as_mut_ptr()) };
        let runs = Cell::new(0);
        for key in [UNCACHEABLE_KEY, UNCACHEABLE_KEY] {
            assert_eq!(ic.run(key, caching(&runs, 4), |s| s + 1), 5, "the effect still runs on the body's state");
        }
        assert_eq!(runs.get(), 2);
        assert_eq!(bytes, [0; 16]);
        // An empty cache (key 0 everywhere) matches no real key.
        assert_eq!(ic.run(3, || IcBody::Done(11), |s| s), 11);
        assert_eq!(bytes, [0; 16]);
    }

    #[test]
    fn checked_hits_need_a_valid_state_in_every_entry() {
        let mut bytes = [0u8; 16];
        let ic = unsafe { InlineCache::<2>::at(bytes.as_mut_ptr()) };
        let runs = Cell::new(0);
        ic.run(7, caching(&runs, 70), |s| s);
        ic.run(9, caching(&runs, 90), |s| s);
        // Key 7 is in the second entry, but its state does not fit this execution: the body
        // runs and its state goes first.
        assert_eq!(ic.run_checked(7, |s| s != 70, caching(&runs, 71), |s| s), 71);
        assert_eq!(runs.get(), 3);
        assert_eq!(entries(&bytes), [(7, 71), (9, 90)]);
        assert_eq!(ic.run_checked(9, |s| s == 90, caching(&runs, 0), |s| s), 90);
        assert_eq!(runs.get(), 3);
    }

    #[test]
    fn a_quick_answer_ends_a_miss_without_the_other_entries() {
        let mut bytes = [0u8; 16];
        let ic = unsafe { InlineCache::<2>::at(bytes.as_mut_ptr()) };
        let runs = Cell::new(0);
        ic.run(7, caching(&runs, 70), |s| s);
        assert_eq!(ic.run_or_quick(9, || Some(IcBody::Done(1)), caching(&runs, 90), |s| s), 1);
        assert_eq!(entries(&bytes), [(7, 70), (0, 0)], "a quick `Done` is not cached");
        assert_eq!(ic.run_or_quick(9, || None, caching(&runs, 90), |s| s), 90);
        assert_eq!(entries(&bytes), [(9, 90), (7, 70)]);
        // The other entry hits where it is, without the body.
        assert_eq!(ic.run_or_quick(7, || None, caching(&runs, 0), |s| s), 70);
        assert_eq!(runs.get(), 2);
        assert_eq!(entries(&bytes), [(9, 90), (7, 70)]);
        // Keys taking turns never run the body again; a third key drops the older entry.
        for _ in 0..3 {
            assert_eq!(ic.run_or_quick(9, || None, caching(&runs, 0), |s| s), 90);
            assert_eq!(ic.run_or_quick(7, || None, caching(&runs, 0), |s| s), 70);
        }
        assert_eq!(runs.get(), 2);
        assert_eq!(ic.run_or_quick(5, || None, caching(&runs, 50), |s| s), 50);
        assert_eq!(entries(&bytes), [(5, 50), (9, 90)]);
        assert_eq!(runs.get(), 3);
        // A quick `Cache` is a fill without the body (promoting the key where it already is).
        assert_eq!(ic.run_or_quick(3, || Some(IcBody::Cache(30)), caching(&runs, 0), |s| s + 1), 31);
        assert_eq!(entries(&bytes), [(3, 30), (5, 50)]);
        assert_eq!(ic.run_or_quick(5, || Some(IcBody::Cache(51)), caching(&runs, 0), |s| s), 51);
        assert_eq!(entries(&bytes), [(5, 51), (3, 30)]);
        assert_eq!(runs.get(), 3);
        // Never under the uncacheable key.
        assert_eq!(ic.run_or_quick(UNCACHEABLE_KEY, || Some(IcBody::Cache(1)), caching(&runs, 0), |s| s), 1);
        assert_eq!(entries(&bytes), [(5, 51), (3, 30)]);
    }
}
