//! The baseline JIT at run time (the paper's section 7): compiles a function's bytecode in one
//! pass by copying, for each instruction, the stencils the generator made from the bytecode's
//! semantics, and patching their holes with the instruction's runtime constants.
//!
//! ```text
//!  build time (tools/deegen):  semantics ──BASELINE_PIPELINE──► ELF ──extract──► StencilTables (generated Rust)
//!  run time (this crate):      bytecode ──BaselineJit::compile──► code in the CodeCache (+ the bytecode → code map)
//! ```
//!
//! The generated code shares the interpreter's frame layout, calling convention and code
//! block, so a function may start in the interpreter and continue in JIT code at any
//! instruction boundary (OSR entry), and calls and returns cross tiers without adaptors.
//!
//! Language independent: everything about the bytecode format comes from the tables.

mod compile;
#[doc(hidden)]
pub mod emit;
mod ic;
mod stub_template;
mod tables;
mod template;

pub use compile::{BaselineJit, CompiledCode, CompiledInstruction, FunctionShape, IcStub, JitError, JitStats, VerifyError, MAX_IC_STUBS};
pub use deegen_exec_memory::Mapping;
pub use tables::{HoleRecord, HoleValue, IcRecord, OperandRecord, StencilRecord, StencilTables, VariantRecord};
