//! Lexer and parser for Lua 5.1 source code.
//!
//! This crate owns the front of the Lua 5.1 pipeline: it turns source bytes
//! into a syntactic AST ([`Chunk`]) or a [`SyntaxError`] whose text is exactly
//! what the reference `lua5.1` prints for the same input. It does no name
//! resolution and no code generation: the code generator walks the AST,
//! resolves locals, upvalues and globals, and emits bytecode.
//!
//! It is a port of lua5.1's `llex.c` and `lparser.c` rather than a
//! from-scratch grammar, because the visible behaviour is defined by those
//! files: which numerals are malformed, which token an error is reported
//! near and on which line, which nesting depth is too deep. Everything
//! lua5.1 checks while parsing is checked here too (see the README):
//! `break` outside a loop, `...` outside a vararg function, ambiguous calls
//! across lines, non-assignable targets, nesting depth, and the limits on
//! locals, upvalues and assignment targets.
//!
//! ```
//! use lua51_syntax::{parse_chunk, StatKind};
//!
//! let chunk = parse_chunk(b"local x = 1 + 2 * 3", "t.lua").unwrap();
//! assert_eq!(chunk.to_string(), "(local (x) ((+ 1 (* 2 3))))");
//! assert!(matches!(chunk.body.stats[0].kind, StatKind::Local { .. }));
//!
//! let err = parse_chunk(b"x = = 1", "t.lua").unwrap_err();
//! assert_eq!(err.to_string(), "t.lua:1: unexpected symbol near '='");
//! ```

pub mod ast;
mod dump;
mod error;
pub mod lexer;
pub mod names;
mod number;
mod parser;

pub use ast::*;
pub use error::{chunk_id, chunk_id_bytes, chunk_id_for_syntax_error, SyntaxError, LUA_IDSIZE, MAXSRC};
pub use lexer::{tokenize, LineToken, Reader, Token};
pub use parser::{
    parse_chunk, parse_chunk_each, parse_chunk_streaming, parse_chunk_with, ChunkEnd, EachError, ParseOptions, LUAI_MAXCCALLS, LUAI_MAXUPVALUES,
    LUAI_MAXVARS,
};
