//! The tiering policy: which tier runs a function, when it moves up, and the baseline JIT that
//! compiles it.
//!
//! Every bytecode function's code block carries a hotness countdown (`CodeBlock::hotness`),
//! which the generated interpreter decrements on taken backward branches and on every entry (a
//! call or a tail call: a function that only leaves by a tail call never returns); when it runs
//! out, the interpreter calls the runtime (`lua_rt_tier_up`), which asks [`Tiering`]. In `auto`
//! mode the function is compiled then: its code block's entry becomes its JIT code's prologue
//! (or, with variable arguments, the JIT entry thunk), so the next call runs JIT code, and the
//! frame that asked continues in JIT code at once, at the loop's back edge or the first
//! instruction it asked at (OSR entry: the tiers share the frame layout, so this is a jump). In
//! `baseline` mode every function is compiled when it is loaded.
//!
//! A compilation that fails (a full code cache, a mapping the kernel refuses) leaves the
//! function in the interpreter, with a `tracing` event; nothing else changes.
//!
//! While a debug hook is set, nothing is compiled and compiled functions are entered through
//! the interpreter again ([`Tiering::set_hooked`]): JIT code has no hook calls.

use deegen_api::CodeBlock;
pub use deegen_baseline_jit::Mapping;
use deegen_baseline_jit::{BaselineJit, CompiledCode, FunctionShape, JitError, JitStats};

use crate::interp::{
    __deegen_interp_entry_bytecode, __deegen_interp_entry_bytecode_vararg, __deegen_jit_entry_bytecode, __deegen_jit_entry_bytecode_vararg,
};

include!(env!("DEEGEN_BASELINE_STENCILS"));

/// The stencils as text (each disassembled with its holes), written at build time and kept in
/// the binary, so that `--dump-stencils` shows the stencils this binary's JIT copies (a path
/// read at run time showed whatever the last build wrote there).
pub const STENCILS_DISASSEMBLY: &str = include_str!(env!("DEEGEN_BASELINE_STENCILS_TXT"));

/// Hotness countdown of a fresh function in `auto` mode: taken backward branches and entries
/// before it asks to tier up.
pub const TIER_UP_THRESHOLD: i64 = 1000;

/// Bytes of executable memory the baseline JIT may use per state.
pub const CODE_CACHE_LIMIT: usize = 128 << 20;

/// Which tiers run (`ljr --tier=...`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TierMode {
    /// Never compile.
    Interpreter,
    /// Compile every Lua function when it is loaded (for testing the JIT on everything).
    Baseline,
    /// Compile a function when its hotness countdown runs out.
    #[default]
    Auto,
}

impl std::str::FromStr for TierMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "interpreter" => Ok(TierMode::Interpreter),
            "baseline" => Ok(TierMode::Baseline),
            "auto" => Ok(TierMode::Auto),
            other => Err(format!("unknown tier '{other}' (interpreter, baseline or auto)")),
        }
    }
}

/// A state's tiering: the mode, the threshold, and the baseline JIT once it is needed.
#[derive(Debug)]
pub struct Tiering {
    pub mode: TierMode,
    /// The countdown a function starts with in `auto` mode.
    pub threshold: i64,
    /// Run the JIT's checker on every function it compiles (`ljr --jit-verify`); a function
    /// that fails it aborts the process with the checker's report.
    pub verify: bool,
    /// Bytes of executable memory the JIT may use (`ljr --jit-cache-limit`).
    pub cache_limit: usize,
    /// How the JIT's code cache is mapped: [`Mapping::Anonymous`] under `ljr --perf-map`, so
    /// that perf names the JIT code from the map file.
    pub mapping: Mapping,
    jit: Option<BaselineJit>,
    /// The JIT could not be set up (its code cache not reserved): never try again.
    unavailable: bool,
    /// Code blocks with JIT code and the entry each has in JIT code (its prologue, or the
    /// JIT entry thunk), for switching their entries while a hook is set.
    compiled: Vec<(*mut CodeBlock, *const ())>,
    hooked: bool,
}

impl Default for Tiering {
    fn default() -> Self {
        Tiering {
            mode: TierMode::default(),
            threshold: TIER_UP_THRESHOLD,
            verify: false,
            cache_limit: CODE_CACHE_LIMIT,
            mapping: Mapping::Dual,
            jit: None,
            unavailable: false,
            compiled: Vec::new(),
            hooked: false,
        }
    }
}

fn entries(vararg: bool) -> (*const (), *const ()) {
    if vararg {
        (__deegen_interp_entry_bytecode_vararg as *const (), __deegen_jit_entry_bytecode_vararg as *const ())
    } else {
        (__deegen_interp_entry_bytecode as *const (), __deegen_jit_entry_bytecode as *const ())
    }
}

/// Whether `cb`'s entry is the vararg one (of either tier).
fn is_vararg(cb: &CodeBlock) -> bool {
    cb.entry == __deegen_interp_entry_bytecode_vararg as *const () || cb.entry == __deegen_jit_entry_bytecode_vararg as *const ()
}

/// Under `--jit-verify`: the JIT's checker rejected `what`; the run stops with its report.
fn checker_rejects(what: &str, e: &deegen_baseline_jit::VerifyError) -> ! {
    eprintln!("ljr: the baseline JIT's checker rejects {what}: {e}");
    std::process::abort()
}

impl Tiering {
    /// The countdown a function loaded now starts with.
    pub fn initial_hotness(&self) -> i64 {
        match self.mode {
            TierMode::Auto if !self.hooked => self.threshold.max(0),
            _ => i64::MAX,
        }
    }

    /// Whether functions are compiled as soon as they are loaded.
    pub fn compiles_on_load(&self) -> bool {
        self.mode == TierMode::Baseline && !self.hooked
    }

    /// Whether a function whose countdown ran out should be compiled.
    pub fn compiles_when_hot(&self) -> bool {
        self.mode != TierMode::Interpreter && !self.hooked
    }

    /// The JIT, once a function was compiled (for its checker and tools).
    pub fn jit_mut(&mut self) -> Option<&mut BaselineJit> {
        self.jit.as_mut()
    }

    /// The JIT, once a function was compiled (for tools: `ljr --perf-map`).
    pub fn jit(&self) -> Option<&BaselineJit> {
        self.jit.as_ref()
    }

    /// The JIT's totals (zero when it never ran).
    pub fn stats(&self) -> JitStats {
        self.jit.as_ref().map(|j| j.stats).unwrap_or_default()
    }

    /// Compiles the function of `cb`, whose bytecode is `bytecode`, and makes its entry the JIT
    /// entry. `None` (with a `tracing` event) when it cannot be compiled.
    ///
    /// # Safety
    /// `cb` is the live code block of a bytecode function whose bytecode is `bytecode`, which
    /// stays where it is as long as the code block lives.
    pub unsafe fn compile(&mut self, cb: *mut CodeBlock, bytecode: &[u8]) -> Option<CompiledCode> {
        let _span = tracing::debug_span!("baseline_compile", bytecode_bytes = bytecode.len()).entered();
        if self.unavailable {
            return None;
        }
        if self.jit.is_none() {
            match BaselineJit::with_mapping(&BASELINE_STENCILS, self.cache_limit, self.mapping) {
                Ok(jit) => self.jit = Some(jit),
                Err(e) => {
                    tracing::warn!(error = %e, "the baseline JIT is unavailable; functions stay in the interpreter");
                    self.fail_when_verifying(&e, "the baseline JIT is unavailable");
                    self.unavailable = true;
                    return None;
                }
            }
        }
        let jit = self.jit.as_mut().expect("set above");
        // A function without variable arguments gets a prologue (its entry, specialised on its
        // parameter count and frame size): calls jump straight into its JIT code.
        let shape = {
            // SAFETY: per the contract.
            let cb = unsafe { &*cb };
            if is_vararg(cb) {
                None
            } else {
                Some(FunctionShape { num_params: cb.num_fixed_params, frame_slots: cb.frame_slots })
            }
        };
        match jit.compile(bytecode, cb as u64, shape) {
            Ok(code) => {
                if self.verify {
                    if let Err(e) = jit.verify(bytecode, &code) {
                        checker_rejects("a compiled function", &e);
                    }
                }
                // SAFETY: per the contract.
                let cb = unsafe { &mut *cb };
                cb.jit_code = code.entry as *const ();
                let (_, jit_entry) = entries(is_vararg(cb));
                let jit_entry = code.function_entry().map_or(jit_entry, |a| a as *const ());
                cb.entry = jit_entry;
                // Call stubs made while the function ran in the interpreter jump to its JIT
                // code from now on.
                // SAFETY: `cb` is live, its entry just set.
                let retargeted = unsafe { jit.retarget_calls(cb as *mut CodeBlock as u64) };
                self.compiled.push((cb, jit_entry));
                self.check_retargeted(retargeted);
                Some(code)
            }
            Err(e) => {
                tracing::info!(error = %e, "baseline compilation failed; the function stays in the interpreter");
                self.fail_when_verifying(&e, "the baseline JIT cannot compile a function");
                None
            }
        }
    }

    /// Under `--jit-verify` (the test tiers), a JIT that cannot run or compile for any reason
    /// but a full code cache is a bug to report, not a function quietly left to the
    /// interpreter: otherwise a broken JIT passes every test by never running.
    fn fail_when_verifying(&self, e: &JitError, what: &str) {
        if self.verify && !e.is_resource_limit() {
            eprintln!("ljr: {what}: {e}");
            std::process::abort();
        }
    }

    /// The generic code of the compiled instruction at `pc` filled its inline cache with a
    /// state of `kind`: the JIT adds a stub. A stub that cannot be made (the code cache is
    /// full) leaves the site to its generic code, with a `tracing` event.
    ///
    /// # Safety
    /// `pc` is an instruction of a live function compiled by this state's JIT.
    pub unsafe fn ic_filled(&mut self, pc: *const u8, kind: u32) {
        let Some(jit) = self.jit.as_mut() else { return };
        let megamorphic_before = jit.stats.ic_megamorphic_sites;
        // SAFETY: per the contract.
        match unsafe { jit.add_ic_stub(pc as u64, kind) } {
            Ok(Some(stub)) if self.verify => {
                if let Err(e) = jit.verify_ic_stub(&stub) {
                    checker_rejects("an inline-cache stub", &e);
                }
            }
            // No stub, but the site just went megamorphic: its entry was repointed, and it may
            // have its own copy of the generic code now. (Other fills without a stub, a known
            // key or a site megamorphic already, change nothing.)
            Ok(None) if self.verify && jit.stats.ic_megamorphic_sites != megamorphic_before => {
                if let Err(e) = jit.verify_ic_site_at(pc as u64) {
                    checker_rejects("an inline-cache site", &e);
                }
            }
            Ok(_) => {}
            Err(e) => {
                tracing::info!(error = %e, "no inline-cache stub; the site stays with its generic code");
                self.fail_when_verifying(&e, "the baseline JIT cannot make an inline-cache stub");
            }
        }
    }

    /// A compiled function's code block is about to be freed, with its bytecode and its code.
    pub fn forget(&mut self, cb: *const CodeBlock, bytecode: &[u8], code: &CompiledCode) {
        if let Some(i) = self.compiled.iter().position(|&(c, _)| std::ptr::eq(c, cb)) {
            self.compiled.swap_remove(i);
        }
        if let Some(jit) = self.jit.as_mut() {
            jit.forget(bytecode, code);
        }
    }

    /// A code block (compiled or not) is about to be freed: the JIT's call stubs that call it
    /// are cleared, so that none hits a code block allocated at its address later.
    pub fn code_block_freed(&mut self, cb: *const CodeBlock) {
        let Some(jit) = self.jit.as_mut() else { return };
        if let Err(e) = jit.forget_code_block(cb as u64, lua51_value::CALL_IC_EMPTY) {
            tracing::error!(error = %e, "a call stub of a freed function could not be cleared");
            self.fail_when_verifying(&e, "the baseline JIT cannot clear a call stub");
        }
    }

    /// A debug hook was set (or the last one removed): while one is set, compiled functions are
    /// entered through the interpreter, which calls the hook, and nothing is compiled. The
    /// JIT's call stubs, which jump to their callees' entries directly, follow.
    pub fn set_hooked(&mut self, hooked: bool) {
        if self.hooked == hooked {
            return;
        }
        self.hooked = hooked;
        for &(cb, jit_entry) in &self.compiled {
            // SAFETY: `compiled` holds live code blocks only (`forget`).
            let cb = unsafe { &mut *cb };
            let vararg = jit_entry == __deegen_jit_entry_bytecode_vararg as *const ();
            let (interp_entry, _) = entries(vararg);
            cb.entry = if hooked { interp_entry } else { jit_entry };
        }
        let Some(blocks) = self.jit.as_ref().map(BaselineJit::called_code_blocks) else { return };
        for cb in blocks {
            let jit = self.jit.as_mut().expect("checked above");
            // SAFETY: a code block with call stubs is alive (a stub of a dead callee was
            // cleared and dropped from the list by the collector).
            let retargeted = unsafe { jit.retarget_calls(cb) };
            self.check_retargeted(retargeted);
        }
    }

    /// The call stubs repointed at a callee's new entry, checked under `--jit-verify`; or why
    /// one could not be (its code could not be written: it would go on jumping to the old
    /// entry, under a hook past the hook).
    fn check_retargeted(&self, retargeted: Result<Vec<deegen_baseline_jit::IcStub>, JitError>) {
        match retargeted {
            Ok(stubs) if self.verify => {
                let jit = self.jit.as_ref().expect("stubs were repointed");
                for stub in &stubs {
                    if let Err(e) = jit.verify_ic_stub(stub) {
                        checker_rejects("a repointed call stub", &e);
                    }
                }
            }
            Ok(_) => {}
            Err(e) => {
                tracing::error!(error = %e, "a call stub could not be repointed");
                self.fail_when_verifying(&e, "the baseline JIT cannot repoint a call stub");
            }
        }
    }

    /// Where a frame whose return address is `return_address`, JIT code of the instruction at
    /// `caller_offset` of the caller `bytecode` (compiled to `code`), returns in the interpreter
    /// instead: the interpreter's handler for the same continuation, which decodes the
    /// instruction the frame header names.
    pub fn interpreter_return_address(&self, code: &CompiledCode, bytecode: &[u8], caller_offset: usize, return_address: u64) -> Option<*const ()> {
        let jit = self.jit.as_ref()?;
        let index = jit.continuation_index(code.instruction_at(caller_offset)?, return_address)?;
        // The instruction's opcode now (the interpreter may have quickened it since): its
        // handler decodes the same layout.
        let opcode = u16::from_le_bytes(bytecode.get(caller_offset..caller_offset + 2)?.try_into().ok()?);
        crate::interp::interpreter_continuation(opcode, index)
    }

    /// Whether the JIT's code cache holds `address`.
    pub fn is_jit_code(&self, address: u64) -> bool {
        self.jit.as_ref().is_some_and(|j| {
            let c = j.cache();
            address >= c.base() && address < c.base() + c.limit() as u64
        })
    }
}
