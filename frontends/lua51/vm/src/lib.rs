//! The Lua 5.1 runtime around the generated interpreter.
//!
//! ```text
//!  source ─► lua51-syntax (AST) ─► compiler (this crate) ─► Proto: bytecode via the generated
//!  builder, constants, debug info ─► LuaState::call ─► __deegen_interp_enter ─► generated handlers
//!                                                                                  │ slow paths
//!                                                       runtime helpers (lua_rt_*) ◄┘
//! ```
//!
//! No bytecode handler is written here: the interpreter is generated at build time (see
//! `build.rs`) from `lua51-specs` and `lua51-semantics`, and linked as a static library. This
//! crate does not link LLVM.

mod abi;
pub mod bytecode;
pub mod compiler;
pub mod coroutine;
pub mod dump;
pub(crate) mod frames;
pub mod function;
pub mod gc;
pub mod heap;
pub(crate) mod hook;
pub mod runtime;
pub mod shape;
pub mod state;
pub mod stdlib;
pub mod table;
pub mod userdata;
pub mod iolib;
pub mod lstrlib;
pub(crate) mod loadlib;

pub use compiler::{compile_chunk, CompileError};
pub use state::{LuaError, LuaState};

/// The generated interpreter as assembly text (written at build time), for `--dump-interpreter`.
pub const INTERPRETER_ASSEMBLY_PATH: &str = env!("DEEGEN_INTERPRETER_ASM");
