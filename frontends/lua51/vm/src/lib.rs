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
//!
//! The modules are layered as PUC Lua's are (the README draws the layers): the interpreter's
//! conventions, objects, the state, the collector and coroutines, the runtime entry points, the
//! compiler and loader, the native-function layer, the libraries. [`LuaState::new`] makes a
//! bare state; [`open_libs`] opens the standard library.

// The layers, lowest first (see README.md; `tests/layers.rs` checks that no module imports
// from a layer above its own).
pub mod bytecode;
pub(crate) mod frames;
pub mod interp;
pub mod tiering;

pub mod object;

pub mod call;
pub mod metamethod;
pub mod state;

pub mod coroutine;
pub mod gc;
pub(crate) mod hook;

pub mod runtime;

pub mod compiler;
pub mod dump;
pub mod loader;

pub mod native;

pub mod stdlib;

mod abi;

pub use compiler::{compile_chunk, compile_source, CompileError, LoadError};
pub use state::{LuaError, LuaState};
pub use stdlib::open_libs;

/// The generated interpreter as assembly text (written at build time), for `--dump-interpreter`.
/// In the binary, not read from the build directory at run time: a copied binary, or one
/// built again since, printed another build's interpreter.
pub const INTERPRETER_ASSEMBLY: &str = include_str!(env!("DEEGEN_INTERPRETER_ASM"));
