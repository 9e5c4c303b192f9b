//! Loading chunks (5.1's `lua_load` and `luaD_protectedparser`): source text is parsed
//! (`lua51-syntax`) and compiled (`compiler`), a precompiled chunk is verified and loaded
//! (`dump`); either way the result is a function over the globals.

use lua51_value::TValue;

use crate::compiler::{compile_chunk, compile_source, LoadError};
use crate::dump::{undump, SIGNATURE};
use crate::object::cushion;
use crate::object::function::{proto_of, Proto};
use crate::state::LuaState;

impl LuaState {
    /// Parses and compiles a chunk into a function over the globals, or loads a precompiled
    /// one (`string.dump`'s, recognised by its first byte as 5.1 does). `source_name` is Lua's
    /// (`=name`, `@file`, or the source itself, so any bytes); the error is the message
    /// `lua5.1` gives, as bytes (a syntax error quotes the source). `skip_shebang` (files)
    /// skips a first line starting with `#`.
    pub fn load(&mut self, source: &[u8], source_name: impl AsRef<[u8]>, skip_shebang: bool) -> Result<TValue, Vec<u8>> {
        let source_name = source_name.as_ref();
        let after_shebang = match source {
            [b'#', rest @ ..] if skip_shebang => rest.iter().position(|&b| b == b'\n').map_or(&[][..], |nl| &rest[nl + 1..]),
            _ => source,
        };
        if after_shebang.first() == Some(&SIGNATURE[0]) {
            return undump(self, after_shebang, &String::from_utf8_lossy(source_name)).map_err(String::into_bytes);
        }
        self.load_text(source, source_name, skip_shebang)
    }

    /// [`Self::load`] of source text.
    pub(crate) fn load_text(&mut self, source: &[u8], source_name: &[u8], skip_shebang: bool) -> Result<TValue, Vec<u8>> {
        let options = self.begin_parse(skip_shebang);
        let name = String::from_utf8_lossy(source_name);
        let f =
            compile_source(self, source, &syntax_chunk_id(source_name), &options, &lua51_syntax::chunk_id(&name)).map_err(LoadError::into_bytes)?;
        self.set_chunk_name(f, name.into_owned());
        Ok(f)
    }

    /// Starts parsing a chunk: what it is parsed with (its nesting limit counts from the
    /// native calls under way, the host's entry included, as lua.c's; running out of memory
    /// stops it), with a memory cushion renewed for it ([`cushion`]).
    pub(crate) fn begin_parse(&self, skip_shebang: bool) -> lua51_syntax::ParseOptions {
        cushion::renew();
        lua51_syntax::ParseOptions { skip_shebang, c_calls: self.shared.native_depth as u32, out_of_memory: Some(&cushion::EXHAUSTED) }
    }

    /// Compiles a parsed chunk into a function (the end of [`Self::load_text`], also reached
    /// by `load` with a reader, which parses as it reads).
    pub(crate) fn compile_parsed(&mut self, chunk: lua51_syntax::Chunk, source_name: &[u8]) -> Result<TValue, Vec<u8>> {
        let source_name = String::from_utf8_lossy(source_name);
        let f = compile_chunk(self, chunk, &lua51_syntax::chunk_id(&source_name)).map_err(|e| e.message.into_bytes())?;
        self.set_chunk_name(f, source_name.into_owned());
        Ok(f)
    }

    /// Gives the chunk `f` (a closure just compiled) its source name, as `debug.getinfo`
    /// reports it.
    fn set_chunk_name(&mut self, f: TValue, source_name: String) {
        // SAFETY: the chunk's prototype was just built; nothing else refers to it yet.
        unsafe {
            let proto = proto_of((*f.as_closure()).code_block) as *const Proto as *mut Proto;
            (*proto).chunkname = source_name;
        }
    }
}

/// How a syntax error names the chunk `source_name` (lua5.1's lexer buffer size), as bytes.
pub(crate) fn syntax_chunk_id(source_name: &[u8]) -> Vec<u8> {
    lua51_syntax::chunk_id_bytes(source_name, lua51_syntax::MAXSRC)
}
