//! `string.dump` and loading what it wrote (5.1's precompiled chunks).
//!
//! A dump carries the source text of the chunk the function was compiled in, the name that
//! chunk was loaded under, and the function's position in it (the child indices from the
//! chunk's main function down). Loading compiles that source again (compilation is
//! deterministic, so the function, its constants and its debug info come out the same) and
//! closes the function over fresh upvalues holding nil, as 5.1's `lua_load` does.
//!
//! Why source rather than bytecode: the generated handlers trust their operands (slots, constant
//! indices, jump targets, the results a call leaves behind), so bytecode from outside would need
//! a verifier as strong as the compiler's invariants before it could run; 5.1 itself can be
//! crashed by crafted bytecode. A recompiled dump is checked by the parser like any chunk, and a
//! damaged one is an error, never a crash. The price is size (the whole chunk's source) and a
//! compilation at load time.
//!
//! Format: `ESC "Lua" 0x51`, then [`FORMAT`] (5.1's official format is 0, so `lua5.1` refuses
//! these chunks and this loader refuses 5.1's), a flags byte, then the chunk name, the source
//! and the path as LEB128 lengths/indices followed by their bytes.

use lua51_value::TValue;

use crate::function::{new_closure, proto_of, Proto};
use crate::state::LuaState;

/// First byte of every precompiled chunk (5.1's `LUA_SIGNATURE[0]`).
pub const SIGNATURE: &[u8] = b"\x1bLua";
const VERSION: u8 = 0x51;
/// This project's format: the chunk's source plus a path to the function.
const FORMAT: u8 = 0xD5;
const FLAG_SKIP_SHEBANG: u8 = 1;

/// The dump of Lua function `f`, or `None` for a native function (5.1: "unable to dump given
/// function").
pub fn dump(f: TValue) -> Option<Vec<u8>> {
    let cb = unsafe { (*f.as_closure()).code_block };
    if crate::function::is_native(cb) {
        return None;
    }
    let proto: *const Proto = proto_of(cb);
    let root = unsafe { &*(*proto).root };
    let mut path = Vec::new();
    if !find_path(root, proto, &mut path) {
        return None;
    }
    let mut out = Vec::with_capacity(root.chunk_text.len() + root.chunkname.len() + 16);
    out.extend_from_slice(SIGNATURE);
    out.push(VERSION);
    out.push(FORMAT);
    out.push(if root.skip_shebang { FLAG_SKIP_SHEBANG } else { 0 });
    put_bytes(&mut out, root.chunkname.as_bytes());
    put_bytes(&mut out, &root.chunk_text);
    put_uint(&mut out, path.len() as u64);
    for i in path {
        put_uint(&mut out, i as u64);
    }
    Some(out)
}

/// Loads a precompiled chunk (`bytes` starts with ESC). `source_name` is the name the loader
/// was given, used only in error messages, as 5.1's `luaU_undump` does.
pub fn undump(st: &mut LuaState, bytes: &[u8], source_name: &str) -> Result<TValue, String> {
    let shown = match source_name.as_bytes().first() {
        Some(b'@' | b'=') => &source_name[1..],
        Some(0x1b) => "binary string",
        _ => source_name,
    };
    let fail = |why: &str| format!("{shown}: {why} in precompiled chunk");
    let mut r = Reader { bytes, at: 0 };
    let header = r.take(SIGNATURE.len() + 2).ok_or_else(|| fail("unexpected end"))?;
    if &header[..SIGNATURE.len()] != SIGNATURE || header[4] != VERSION || header[5] != FORMAT {
        return Err(fail("bad header"));
    }
    let flags = r.take(1).ok_or_else(|| fail("unexpected end"))?[0];
    if flags & !FLAG_SKIP_SHEBANG != 0 {
        return Err(fail("bad header"));
    }
    let chunkname = r.bytes().ok_or_else(|| fail("unexpected end"))?;
    let chunkname = std::str::from_utf8(chunkname).map_err(|_| fail("bad header"))?.to_owned();
    let text = r.bytes().ok_or_else(|| fail("unexpected end"))?;
    let depth = r.uint().ok_or_else(|| fail("unexpected end"))?;
    let mut path = Vec::new();
    for _ in 0..depth {
        path.push(r.uint().ok_or_else(|| fail("unexpected end"))?);
    }
    // What follows is ignored, as 5.1's undump ignores it.
    // A dump holds source that compiled once; if it no longer does, it was damaged.
    let chunk = st.load_text(text, chunkname.as_bytes(), flags & FLAG_SKIP_SHEBANG != 0).map_err(|_| fail("bad code"))?;
    let mut proto: &Proto = proto_of(unsafe { (*chunk.as_closure()).code_block });
    for i in path {
        proto = usize::try_from(i).ok().and_then(|i| proto.children.get(i)).ok_or_else(|| fail("bad code"))?;
    }
    if path_is_root(proto) {
        return Ok(chunk);
    }
    closure_with_fresh_upvalues(st, proto).ok_or_else(|| "not enough memory".to_owned())
}

fn path_is_root(p: &Proto) -> bool {
    std::ptr::eq(p, p.root)
}

/// A closure of `proto` over the globals whose upvalues are new and hold nil.
fn closure_with_fresh_upvalues(st: &mut LuaState, proto: &Proto) -> Option<TValue> {
    let c = new_closure(&mut st.heap, proto.code_block(), proto.upvalues.len(), st.globals).ok()?;
    for i in 0..proto.upvalues.len() {
        let u = crate::function::new_upval(&mut st.heap, std::ptr::null_mut()).ok()?;
        unsafe {
            (*u).closed = TValue::NIL.raw();
            (*u).value = &mut (*u).closed;
            *(*c).upvalues().add(i) = u;
        }
    }
    Some(TValue::from_ptr(c))
}

/// The child indices leading from `from` to `target`.
fn find_path(from: &Proto, target: *const Proto, path: &mut Vec<usize>) -> bool {
    if std::ptr::eq(from, target) {
        return true;
    }
    for (i, child) in from.children.iter().enumerate() {
        path.push(i);
        if find_path(child, target, path) {
            return true;
        }
        path.pop();
    }
    false
}

fn put_uint(out: &mut Vec<u8>, mut v: u64) {
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    put_uint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len())?;
        let s = &self.bytes[self.at..end];
        self.at = end;
        Some(s)
    }

    fn uint(&mut self) -> Option<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.take(1)?[0];
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Some(v);
            }
        }
        None
    }

    fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = usize::try_from(self.uint()?).ok()?;
        self.take(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leb128_round_trips() {
        for v in [0u64, 1, 127, 128, 300, u32::MAX as u64, u64::MAX] {
            let mut out = Vec::new();
            put_uint(&mut out, v);
            assert_eq!(Reader { bytes: &out, at: 0 }.uint(), Some(v));
        }
    }

    #[test]
    fn truncated_and_overlong_numbers_are_refused() {
        assert_eq!(Reader { bytes: &[0x80], at: 0 }.uint(), None);
        assert_eq!(Reader { bytes: &[0xff; 11], at: 0 }.uint(), None);
        assert_eq!(Reader { bytes: &[5, 1, 2], at: 0 }.bytes(), None);
    }
}
