//! Syntax errors and chunk names, formatted exactly like lua5.1.

use std::borrow::Cow;
use std::fmt;

/// lua5.1's `LUA_IDSIZE`: the buffer size for chunk names in runtime error
/// messages and debug info (`short_src`).
pub const LUA_IDSIZE: usize = 60;

/// lua5.1's `MAXSRC` (llex.c): the buffer size for chunk names in *syntax*
/// error messages, which is larger than [`LUA_IDSIZE`].
pub const MAXSRC: usize = 80;

/// A Lua 5.1 compile-time error (lexical, syntactic, or a parser limit).
///
/// Its `Display` is the complete message lua5.1 produces, e.g.
/// `t.lua:3: '=' expected near 'x'`. The offending token is kept as bytes in
/// [`SyntaxError::near`] because Lua sources (and so lua5.1's messages) are not
/// necessarily UTF-8; `Display` shows it lossily, [`SyntaxError::to_bytes`]
/// exactly.
///
/// A parse stopped by running out of memory ([`SyntaxError::is_out_of_memory`]) is only
/// "not enough memory", with no place, as lua5.1 reports it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", String::from_utf8_lossy(&self.to_bytes()))]
pub struct SyntaxError {
    /// The chunk name as printed (already through [`chunk_id`] if needed), as bytes: a
    /// `loadstring` source is any bytes, and its first line is the name.
    pub chunk_name: Vec<u8>,
    /// Line lua5.1 reports (the lexer's line when the error was found).
    pub line: u32,
    /// The message without location or token, e.g. `'=' expected`.
    pub message: String,
    /// The text lua5.1 prints after `near`, without quotes: the source text of
    /// a name, number or string token (strings with their quotes, escapes
    /// already decoded), the symbol of any other token, `<eof>` at the end.
    /// `None` for errors lua5.1 prints without `near` (parser limits, and
    /// tokens it cannot print).
    pub near: Option<Box<[u8]>>,
}

struct NearSuffix<'a>(Option<&'a [u8]>);

impl fmt::Display for NearSuffix<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(near) => write!(f, " near '{}'", String::from_utf8_lossy(near)),
            None => Ok(()),
        }
    }
}

/// The message of a parse stopped by running out of memory (lua5.1's `LUA_ERRMEM` message).
pub(crate) const OUT_OF_MEMORY: &str = "not enough memory";

impl SyntaxError {
    /// Whether the parse stopped because memory ran out ([`crate::ParseOptions::out_of_memory`],
    /// or a list of the source's that could not grow), not because of the source: lua5.1
    /// reports that as "not enough memory" alone, with no place.
    pub fn is_out_of_memory(&self) -> bool {
        self.near.is_none() && self.message == OUT_OF_MEMORY
    }

    /// The message as the exact bytes lua5.1 produces (the error value a Lua
    /// program would see from `loadstring`).
    pub fn to_bytes(&self) -> Vec<u8> {
        if self.is_out_of_memory() {
            return self.message.as_bytes().to_vec();
        }
        let mut out = self.chunk_name.clone();
        out.extend_from_slice(format!(":{}: {}", self.line, self.message).as_bytes());
        if let Some(near) = &self.near {
            out.extend_from_slice(b" near '");
            out.extend_from_slice(near);
            out.push(b'\'');
        }
        out
    }

    /// The message without the `chunk:line:` prefix, e.g. `'=' expected near 'x'`.
    pub fn message_with_near(&self) -> Cow<'_, str> {
        match &self.near {
            None => Cow::Borrowed(&self.message),
            Some(_) => Cow::Owned(format!("{}{}", self.message, NearSuffix(self.near.as_deref()))),
        }
    }
}

/// lua5.1's `luaO_chunkid` with [`LUA_IDSIZE`]: how a chunk's source name is
/// printed in runtime error messages and debug info.
///
/// * `=name` prints as `name` (truncated to fit);
/// * `@file` prints as `file`, or `...` followed by its tail if too long;
/// * anything else is source text and prints as `[string "first line..."]`.
///
/// For syntax errors lua5.1 uses a larger buffer; see [`chunk_id_for_syntax_error`].
pub fn chunk_id(source_name: &str) -> String {
    String::from_utf8_lossy(&chunk_id_bytes(source_name.as_bytes(), LUA_IDSIZE)).into_owned()
}

/// [`chunk_id`] with lua5.1's lexer buffer size [`MAXSRC`], as used in syntax
/// error messages (`[string "..."]` keeps up to 63 bytes of the source
/// there instead of 43).
pub fn chunk_id_for_syntax_error(source_name: &str) -> String {
    String::from_utf8_lossy(&chunk_id_bytes(source_name.as_bytes(), MAXSRC)).into_owned()
}

/// `luaO_chunkid(out, source, bufflen)` on bytes. The source name is a C
/// string to lua5.1, so it ends at its first NUL byte.
///
/// Only what the id shows is read: `loadstring`'s chunk name is the whole chunk, and a scan of
/// it for the NUL that ends it, once per load for each of the two ids made, was most of the
/// ids' cost (O(n) for an id that shows the first line at most).
pub fn chunk_id_bytes(source: &[u8], bufflen: usize) -> Vec<u8> {
    // The name as C sees it: up to its first NUL, looked for in the first `limit` bytes
    // (the rest is never shown, and a NUL there ends nothing the id includes).
    let up_to_nul = |limit: usize| {
        let prefix = &source[..source.len().min(limit)];
        match prefix.iter().position(|&b| b == 0) {
            Some(nul) => &source[..nul],
            None => source,
        }
    };
    // The id is at most `bufflen` bytes: one allocation (it grew three times through
    // `[string "`, the line and `..."]`).
    let mut out = Vec::with_capacity(bufflen);
    match source.first() {
        Some(b'=') => {
            // strncpy(out, source + 1, bufflen); out[bufflen - 1] = '\0'
            let source = up_to_nul(bufflen);
            let rest = &source[1..];
            out.extend_from_slice(&rest[..rest.len().min(bufflen.saturating_sub(1))]);
        }
        Some(b'@') => {
            // The name's end is shown: all of it is read (file names are short).
            let source = up_to_nul(usize::MAX);
            let name = &source[1..];
            let avail = bufflen.saturating_sub(" '...' ".len() + 1);
            if name.len() > avail {
                out.extend_from_slice(b"...");
                out.extend_from_slice(&name[name.len() - avail..]);
            } else {
                out.extend_from_slice(name);
            }
        }
        _ => {
            let avail = bufflen.saturating_sub(" [string \"...\"] ".len() + 1);
            // At most `avail` bytes are shown, and whether more follow: `avail + 1` decide.
            let source = up_to_nul(avail + 1);
            let seen = &source[..source.len().min(avail + 1)];
            let first_line = seen.iter().position(|&b| b == b'\n' || b == b'\r').unwrap_or(seen.len());
            let len = first_line.min(avail);
            out.extend_from_slice(b"[string \"");
            out.extend_from_slice(&source[..len]);
            if len < source.len() {
                out.extend_from_slice(b"...");
            }
            out.extend_from_slice(b"\"]");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `luaO_chunkid` read straight (the whole name scanned for its NUL, as before the
    /// prefix-only version).
    fn reference(source: &[u8], bufflen: usize) -> Vec<u8> {
        let source = match source.iter().position(|&b| b == 0) {
            Some(nul) => &source[..nul],
            None => source,
        };
        let mut out = Vec::new();
        match source.first() {
            Some(b'=') => out.extend_from_slice(&source[1..][..(source.len() - 1).min(bufflen.saturating_sub(1))]),
            Some(b'@') => {
                let name = &source[1..];
                let avail = bufflen.saturating_sub(" '...' ".len() + 1);
                if name.len() > avail {
                    out.extend_from_slice(b"...");
                    out.extend_from_slice(&name[name.len() - avail..]);
                } else {
                    out.extend_from_slice(name);
                }
            }
            _ => {
                let first_line = source.iter().position(|&b| b == b'\n' || b == b'\r').unwrap_or(source.len());
                let avail = bufflen.saturating_sub(" [string \"...\"] ".len() + 1);
                let len = first_line.min(avail);
                out.extend_from_slice(b"[string \"");
                out.extend_from_slice(&source[..len]);
                if len < source.len() {
                    out.extend_from_slice(b"...");
                }
                out.extend_from_slice(b"\"]");
            }
        }
        out
    }

    #[test]
    fn chunk_ids_read_only_what_they_show_and_agree_with_the_whole_scan() {
        // Names of every length around the limits, with a NUL, a newline or a carriage return
        // before, at and after what is shown.
        for prefix in ["", "=", "@"] {
            for len in [0, 1, 40, 44, 45, 46, 47, 59, 60, 61, 62, 63, 64, 65, 100] {
                for special in [None, Some(b'\0'), Some(b'\n'), Some(b'\r')] {
                    for at in [0, 1, 43, 44, 45, 46, 59, 60, 61, 62, 63, 64, 99] {
                        let mut name = prefix.as_bytes().to_vec();
                        name.extend((0..len).map(|i| b'a' + (i % 26) as u8));
                        if let Some(c) = special {
                            let at = (prefix.len() + at).min(name.len());
                            name.insert(at, c);
                        }
                        for bufflen in [LUA_IDSIZE, MAXSRC] {
                            assert_eq!(chunk_id_bytes(&name, bufflen), reference(&name, bufflen), "{:?} ({bufflen})", String::from_utf8_lossy(&name));
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn chunk_ids() {
        assert_eq!(chunk_id("=stdin"), "stdin");
        assert_eq!(chunk_id("=(command line)"), "(command line)");
        assert_eq!(chunk_id("@t.lua"), "t.lua");
        assert_eq!(chunk_id("x"), "[string \"x\"]");
        assert_eq!(chunk_id("x = 1\ny = 2"), "[string \"x = 1...\"]");
        assert_eq!(chunk_id(""), "[string \"\"]");
        let long = "a".repeat(100);
        assert_eq!(chunk_id(&long), format!("[string \"{}...\"]", "a".repeat(43)));
        assert_eq!(chunk_id_for_syntax_error(&long), format!("[string \"{}...\"]", "a".repeat(63)));
        assert_eq!(chunk_id(&format!("@{long}")), format!("...{}", "a".repeat(52)));
        assert_eq!(chunk_id(&format!("={long}")), "a".repeat(59));
        assert_eq!(chunk_id(&"a".repeat(43)), format!("[string \"{}\"]", "a".repeat(43)));
        assert_eq!(chunk_id(&"a".repeat(44)), format!("[string \"{}...\"]", "a".repeat(43)));
        assert_eq!(chunk_id_bytes(b"x = 1 'a\0b'", LUA_IDSIZE), b"[string \"x = 1 'a\"]");
    }

    #[test]
    fn display() {
        let e = SyntaxError { chunk_name: "t.lua".into(), line: 3, message: "'=' expected".into(), near: Some(b"x".as_slice().into()) };
        assert_eq!(e.to_string(), "t.lua:3: '=' expected near 'x'");
        assert_eq!(e.to_bytes(), b"t.lua:3: '=' expected near 'x'");
        assert_eq!(e.message_with_near(), "'=' expected near 'x'");
        let e = SyntaxError { near: None, ..e };
        assert_eq!(e.to_string(), "t.lua:3: '=' expected");
    }
}
