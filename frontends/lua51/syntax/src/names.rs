//! A hasher for the short keys the front end's tables use (the lexer's names, the compiler's
//! debug names and constants): a multiply-rotate over eight bytes at a time and a final mix,
//! where the standard SipHash cost more than the allocation it was saving. Not for keys an
//! adversary picks to collide: a Lua program's own identifiers only make it slower.
//!
//! The final mix matters: a product's low bits depend only on its factors' low bits, and the
//! table picks buckets by the low bits, so without it names sharing their first bytes (`k1`,
//! `k2`, ...) or numbers sharing their low mantissa bits (every small integer) fell into one
//! bucket chain (a function of 2^17 such constants compiled six times slower).

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
        // The high half folded into the low one, twice (MurmurHash3's finaliser, shortened).
        let h = (self.0 ^ (self.0 >> 32)).wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^ (h >> 29)
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

    /// Keys that differ only in their later bytes (names with a common prefix) or in their
    /// high bits (small integers as doubles) spread over the low bits, which pick the bucket.
    #[test]
    fn similar_keys_spread_over_the_low_bits() {
        let low_bits = |hashes: Vec<u64>| hashes.iter().map(|h| h & 0xfff).collect::<std::collections::HashSet<_>>().len();
        let names = (0..4096).map(|i| BuildNameHasher::default().hash_one(format!("k{i}").as_bytes())).collect();
        let numbers = (0..4096).map(|i| BuildNameHasher::default().hash_one(f64::from(i).to_bits())).collect();
        // 4096 keys thrown at random into 4096 buckets fill about 63% of them.
        assert!(low_bits(names) > 2300);
        assert!(low_bits(numbers) > 2300);
    }
}
