//! A hasher for the short byte strings the front end keys its name tables by (the lexer's
//! names, the compiler's debug names): a multiply-rotate over eight bytes at a time, where
//! the standard SipHash cost more than the allocation it was saving. Not for keys an
//! adversary picks to collide: a Lua program's own identifiers only make it slower.

use std::hash::{BuildHasherDefault, Hasher};

/// See the module documentation.
#[derive(Debug, Default, Clone, Copy)]
pub struct NameHasher(u64);

const K: u64 = 0x517c_c1b7_2722_0a95;

impl NameHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(K);
    }
}

impl Hasher for NameHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut last = [0u8; 8];
            last[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(last));
        }
    }

    #[inline]
    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

/// A `HashMap`/`HashSet` hasher builder of [`NameHasher`]s.
pub type BuildNameHasher = BuildHasherDefault<NameHasher>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::BuildHasher;

    /// Names that differ anywhere (in a tail shorter than a word, in length only, in a byte of
    /// a full word) hash apart.
    #[test]
    fn names_that_differ_hash_apart() {
        let h = |b: &[u8]| BuildNameHasher::default().hash_one(b);
        let names: [&[u8]; 8] = [b"", b"a", b"b", b"ab", b"a\0", b"abcdefgh", b"abcdefgi", b"abcdefghi"];
        for (i, x) in names.iter().enumerate() {
            for y in &names[i + 1..] {
                assert_ne!(h(x), h(y), "{x:?} {y:?}");
            }
        }
    }
}
