//! The library's string builder (5.1's `luaL_Buffer`): bytes that grow fallibly. A builder
//! whose memory runs out stops growing and remembers it; [`Buffer::finish`] then raises 5.1's
//! "not enough memory" instead of the process aborting on an infallible `Vec` growth. The
//! builders that use it (`gsub`, `format`, `upper`, `lower`, `reverse`, `io.read`) can make
//! results as large as their input allows, which is where memory runs out.

use crate::native::{Call, Raised};

#[derive(Debug, Default)]
pub(crate) struct Buffer {
    bytes: Vec<u8>,
    out_of_memory: bool,
}

/// The most memory a finished builder leaves to the next one: enough for the strings that
/// are built often (formatted lines, escaped fields), not a large result kept for good.
const MAX_REUSED: usize = 64 * 1024;

impl Buffer {
    #[cfg(test)]
    pub(crate) fn new() -> Self {
        Buffer::default()
    }

    /// An empty builder on the memory the last finished one left (a builder made while another
    /// is in use, in a `gsub` callback, starts without).
    pub(crate) fn reusing(c: &mut Call) -> Self {
        let mut bytes = std::mem::take(&mut c.st.builder_scratch);
        bytes.clear();
        Buffer { bytes, out_of_memory: false }
    }

    /// Room for `additional` more bytes, or the buffer is out of memory from now on.
    pub(crate) fn reserve(&mut self, additional: usize) -> bool {
        if self.out_of_memory {
            return false;
        }
        if self.bytes.capacity() - self.bytes.len() < additional && self.bytes.try_reserve(additional).is_err() {
            self.out_of_memory = true;
            return false;
        }
        true
    }

    pub(crate) fn push(&mut self, byte: u8) {
        if self.reserve(1) {
            self.bytes.push(byte);
        }
    }

    pub(crate) fn extend(&mut self, bytes: &[u8]) {
        if self.reserve(bytes.len()) {
            self.bytes.extend_from_slice(bytes);
        }
    }

    /// Appends what `write` writes into a `Vec` (number formatting), at most `bound` bytes.
    pub(crate) fn write_bounded(&mut self, bound: usize, write: impl FnOnce(&mut Vec<u8>)) {
        if self.reserve(bound) {
            write(&mut self.bytes);
        }
    }

    /// The bytes so far, mutable (for in-place case mapping or reversal).
    pub(crate) fn bytes_mut(&mut self) -> &mut [u8] {
        &mut self.bytes
    }

    /// The finished string as a Lua value, or "not enough memory".
    pub(crate) fn finish(self, c: &mut Call) -> Result<lua51_value::TValue, Raised> {
        if self.out_of_memory {
            return Err(c.raise_oom());
        }
        let s = c.string(&self.bytes);
        if self.bytes.capacity() <= MAX_REUSED && self.bytes.capacity() > c.st.builder_scratch.capacity() {
            c.st.builder_scratch = self.bytes;
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use crate::stdlib::buffer::Buffer;

    #[test]
    fn a_growth_that_cannot_be_had_is_remembered() {
        let mut b = Buffer::new();
        b.extend(b"abc");
        b.push(b'd');
        b.write_bounded(8, |v| v.extend_from_slice(b"12"));
        assert_eq!(b.bytes_mut(), b"abcd12");
        assert!(!b.reserve(usize::MAX), "an impossible reservation fails");
        b.push(b'e');
        assert_eq!(b.bytes_mut(), b"abcd12", "nothing grows after running out");
        assert!(b.out_of_memory);
    }
}
