//! The VM stack as Lua 5.1's `lua_getstack` numbers it.
//!
//! Frames are found through their headers (`deegen_api::frame`): each names its caller's base
//! and the caller's instruction. A proper tail call replaces a frame and counts it in the
//! caller-base slot; 5.1 shows each replaced frame as a level of its own ("(tail call)"), so
//! walking yields those too, right after the frame that replaced them. Every reader of frame
//! headers in the runtime goes through here, so none forgets to mask the count off.

use deegen_api::frame;
use lua51_value::TValue;

/// A live frame: its base and the instruction it is at (null when not known: a native
/// function, or the innermost frame of a walk started without one).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Frame {
    pub(crate) base: *mut u64,
    pub(crate) pc: *const u8,
}

impl Frame {
    /// The function running in the frame.
    pub(crate) fn callee(&self) -> TValue {
        TValue(unsafe { *self.base.offset(frame::CALLEE as isize) })
    }

    fn caller_slot(&self) -> u64 {
        unsafe { *self.base.offset(frame::CALLER_BASE as isize) }
    }

    /// The caller's frame base and the instruction that called (null base: none, the
    /// outermost frame of an interpreter entry or of a coroutine).
    pub(crate) fn caller(&self) -> (*mut u64, *const u8) {
        if self.ends_coroutine() {
            return (std::ptr::null_mut(), std::ptr::null());
        }
        self.linked_caller()
    }

    /// The frame the header links this one to: [`Self::caller`], or for the outermost frame of
    /// a coroutine that generated code runs (`resume`, `wrap`), that function's frame (on its resumer's stack).
    pub(crate) fn linked_caller(&self) -> (*mut u64, *const u8) {
        let pc = unsafe { *self.base.offset(frame::CALLER_PC as isize) } as *const u8;
        (frame::caller_base(self.caller_slot()), pc)
    }

    /// Whether this is the outermost frame of a coroutine that generated code runs: its caller
    /// is that `resume` (or `wrap`), but the coroutine's levels end here (as in 5.1, where each
    /// coroutine has a stack of its own).
    pub(crate) fn ends_coroutine(&self) -> bool {
        crate::interp::ends_coroutine(self.return_continuation())
    }

    /// Where the frame returns to: its caller's continuation, or the interpreter's exit for a
    /// frame native code entered (`LuaState::call_at`, a coroutine's first frame).
    pub(crate) fn return_continuation(&self) -> *const () {
        unsafe { *self.base.offset(frame::RETURN_CONTINUATION as isize) as *const () }
    }

    /// Whether native code entered this frame (`LuaState::call_at`, a coroutine's first
    /// frame): native frames lie between it and its caller.
    pub(crate) fn entered_from_native(&self) -> bool {
        self.return_continuation() == crate::interp::__deegen_interp_exit as *const ()
    }

    /// The catch handler of this frame's caller, when the caller is a library function in
    /// generated code that catches errors (`pcall`): an error thrown here unwinds to it.
    pub(crate) fn caller_catch_handler(&self) -> Option<*const ()> {
        crate::interp::catch_handler(self.return_continuation())
    }

    /// How many frames tail calls replaced between this one and its caller.
    pub(crate) fn tail_calls(&self) -> u64 {
        frame::tail_calls(self.caller_slot())
    }

    /// The caller's call instruction, when it called this very function: a tail call leaves
    /// the caller's instruction naming the function it replaced, so 5.1 gives no name then.
    pub(crate) fn call_site(&self) -> Option<(*mut u64, *const u8)> {
        let (base, pc) = self.caller();
        (self.tail_calls() == 0 && !base.is_null() && !pc.is_null()).then_some((base, pc))
    }
}

/// The frames from `base` outwards as the interpreter links them: one per frame (a tail call's
/// lost levels are no frames), across native entries, to the outermost.
pub(crate) fn chain(base: *mut u64) -> impl Iterator<Item = Frame> {
    let first = (!base.is_null()).then_some(Frame { base, pc: std::ptr::null() });
    std::iter::successors(first, |f| {
        let (base, pc) = f.caller();
        (!base.is_null()).then_some(Frame { base, pc })
    })
}

/// One level of the stack.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Level {
    Frame(Frame),
    /// A function that a proper tail call replaced: nothing of it is left.
    TailCall,
}

impl Level {
    pub(crate) fn frame(self) -> Option<Frame> {
        match self {
            Level::Frame(f) => Some(f),
            Level::TailCall => None,
        }
    }
}

/// The levels from the frame at `base` (at `pc`) outwards: level 0 is that frame.
pub(crate) fn levels(base: *mut u64, pc: *const u8) -> Levels {
    Levels { next: Frame { base, pc }, lost: 0 }
}

/// Iterator of [`levels`].
pub(crate) struct Levels {
    next: Frame,
    /// Tail-call levels still to yield before `next`.
    lost: u64,
}

impl Iterator for Levels {
    type Item = Level;

    fn next(&mut self) -> Option<Level> {
        if self.lost > 0 {
            self.lost -= 1;
            return Some(Level::TailCall);
        }
        if self.next.base.is_null() {
            return None;
        }
        let current = self.next;
        let (base, pc) = current.caller();
        self.lost = current.tail_calls();
        self.next = Frame { base, pc };
        Some(Level::Frame(current))
    }
}
