//! The tiering policy: when a function asks to leave the interpreter, and what happens then.
//!
//! Every bytecode function's code block carries a hotness countdown (`CodeBlock::hotness`),
//! which the generated interpreter decrements on taken backward branches and returns; when it
//! runs out, the interpreter calls the runtime (`lua_rt_tier_up`), which asks [`on_hot`]. There
//! is no tier above the interpreter yet, so the answer is always to stay and count again.
//! This is the one place that decides; the runtime entry point only records the request.

use deegen_api::CodeBlock;

/// Hotness countdown of a fresh function: taken backward branches and returns before it asks to
/// tier up.
pub const TIER_UP_THRESHOLD: i64 = 1000;

/// What a function whose countdown ran out does next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TierUp {
    /// Keep running in the interpreter, with a fresh countdown.
    StayInInterpreter,
}

/// The countdown of `cb` ran out: decides and prepares what it runs next.
///
/// # Safety
/// `cb` is the live code block of a bytecode function.
pub unsafe fn on_hot(cb: *mut CodeBlock) -> TierUp {
    // No tier to go to yet: start the countdown again.
    unsafe { (*cb).hotness = TIER_UP_THRESHOLD };
    TierUp::StayInInterpreter
}
