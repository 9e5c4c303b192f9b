//! Executable memory for the JIT tiers.
//!
//! One reservation per [`CodeCache`], made once (`PROT_NONE`, nothing committed until used),
//! placed within ±2 GiB of the program's own code when asked, so that JIT code reaches the
//! interpreter and the runtime with `rel32` jumps and calls. Code grows from the bottom, read-only
//! data (stencil constants) from the top; a page never holds both.
//!
//! W^X: a page is writable or executable, never both. [`CodeCache::emit`] maps the pages it
//! writes read-write, lets the caller write, then maps them read-execute; [`CodeCache::patch`]
//! (inline-cache patching) goes through the same steps. The VM is single-threaded, so no JIT
//! code runs on a page while it is writable.
//!
//! A full cache or a failed mapping is an error the caller turns into "stay in the
//! interpreter", never a crash.

use std::ptr::NonNull;

/// Why memory could not be had.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExecMemoryError {
    #[error("the code cache is full ({used} of {limit} bytes used, {requested} more requested)")]
    Full { used: usize, limit: usize, requested: usize },
    #[error("cannot reserve {bytes} bytes of address space{near}: {os_error}")]
    Reserve { bytes: usize, near: String, os_error: String },
    #[error("mprotect failed on {len} bytes at {address:#x}: {os_error}")]
    Protect { address: u64, len: usize, os_error: String },
    #[error("{address:#x}..+{len} is not code this cache emitted")]
    NotOurs { address: u64, len: usize },
    #[error("alignment {0} is not a power of two")]
    Alignment(usize),
}

/// How far a `rel32` reaches.
const REL32_REACH: u64 = 1 << 31;

/// What a range of pages may be used for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Access {
    Write,
    Execute,
    Read,
}

/// A reservation of executable memory and its two bump allocators.
#[derive(Debug)]
pub struct CodeCache {
    base: NonNull<u8>,
    limit: usize,
    page: usize,
    /// Bytes of code emitted, from `base` up.
    code_top: usize,
    /// Bytes of data emitted, from `base + limit` down.
    data_bottom: usize,
}

fn os_error() -> String {
    std::io::Error::last_os_error().to_string()
}

fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(p).ok().filter(|p| p.is_power_of_two()).unwrap_or(4096)
}

impl CodeCache {
    /// Reserves `limit` bytes (rounded up to pages). With `near`, the whole cache lies within
    /// `rel32` reach of that address (pass the address of any function of the program).
    pub fn new(limit: usize, near: Option<u64>) -> Result<Self, ExecMemoryError> {
        let page = page_size();
        let limit = limit.max(page).next_multiple_of(page);
        let base = match near {
            None => reserve(None, limit),
            Some(target) => candidates(target, limit as u64, page as u64).into_iter().find_map(|hint| reserve(Some(hint), limit)),
        }
        .ok_or_else(|| ExecMemoryError::Reserve {
            bytes: limit,
            near: near.map(|n| format!(" within 2 GiB of {n:#x}")).unwrap_or_default(),
            os_error: os_error(),
        })?;
        tracing::debug!(base = ?base, limit, "code cache reserved");
        Ok(Self { base, limit, page, code_top: 0, data_bottom: limit })
    }

    /// The address of the cache's first byte.
    pub fn base(&self) -> u64 {
        self.base.as_ptr() as u64
    }

    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Bytes handed out (code and data).
    pub fn used(&self) -> usize {
        self.code_top + (self.limit - self.data_bottom)
    }

    /// Whether every byte of the cache is within `rel32` reach of `address`.
    pub fn reachable_from(&self, address: u64) -> bool {
        let (lo, hi) = (self.base(), self.base() + self.limit as u64);
        address.abs_diff(lo) < REL32_REACH && address.abs_diff(hi) < REL32_REACH
    }

    /// Allocates `len` bytes of code aligned to `align`, lets `fill(bytes, address)` write them,
    /// and makes them executable. Returns the code's address and what `fill` returned.
    pub fn emit<R>(&mut self, len: usize, align: usize, fill: impl FnOnce(&mut [u8], u64) -> R) -> Result<(u64, R), ExecMemoryError> {
        if !align.is_power_of_two() {
            return Err(ExecMemoryError::Alignment(align));
        }
        let start = self.code_top.next_multiple_of(align);
        // Code and data never share a page.
        let end_page = (start + len).next_multiple_of(self.page);
        let data_first_page = self.data_bottom & !(self.page - 1);
        if end_page > data_first_page {
            return Err(self.full(len));
        }
        let r = self.write(start, len, Access::Execute, fill)?;
        self.code_top = start + len;
        Ok((self.base() + start as u64, r))
    }

    /// Allocates `len` bytes of read-only data aligned to `align` (stencil constants), lets
    /// `fill` write them, and makes them read-only.
    pub fn emit_data<R>(&mut self, len: usize, align: usize, fill: impl FnOnce(&mut [u8], u64) -> R) -> Result<(u64, R), ExecMemoryError> {
        if !align.is_power_of_two() {
            return Err(ExecMemoryError::Alignment(align));
        }
        let Some(start) = self.data_bottom.checked_sub(len).map(|s| s & !(align - 1)) else { return Err(self.full(len)) };
        let code_end_page = self.code_top.next_multiple_of(self.page);
        if start < code_end_page {
            return Err(self.full(len));
        }
        let r = self.write(start, len, Access::Read, fill)?;
        self.data_bottom = start;
        Ok((self.base() + start as u64, r))
    }

    /// Overwrites emitted code at `address` (inline-cache patching): the pages become writable
    /// for the copy and executable again after it.
    pub fn patch(&mut self, address: u64, bytes: &[u8]) -> Result<(), ExecMemoryError> {
        let offset = address.checked_sub(self.base()).map(|o| o as usize);
        match offset {
            Some(o) if o + bytes.len() <= self.code_top => self.write(o, bytes.len(), Access::Execute, |buf, _| buf.copy_from_slice(bytes)),
            _ => Err(ExecMemoryError::NotOurs { address, len: bytes.len() }),
        }
    }

    fn full(&self, requested: usize) -> ExecMemoryError {
        ExecMemoryError::Full { used: self.used(), limit: self.limit, requested }
    }

    /// Maps the pages of `[offset, offset+len)` read-write, runs `fill`, then maps them `after`.
    fn write<R>(&mut self, offset: usize, len: usize, after: Access, fill: impl FnOnce(&mut [u8], u64) -> R) -> Result<R, ExecMemoryError> {
        let first = offset & !(self.page - 1);
        let end = (offset + len).next_multiple_of(self.page).max(first + self.page);
        self.protect(first, end - first, Access::Write)?;
        // SAFETY: `[offset, offset+len)` lies in the reservation (callers check), is mapped
        // read-write now, and no other reference to it exists while `fill` runs.
        let bytes = unsafe { std::slice::from_raw_parts_mut(self.base.as_ptr().add(offset), len) };
        let r = fill(bytes, self.base() + offset as u64);
        self.protect(first, end - first, after)?;
        Ok(r)
    }

    fn protect(&self, offset: usize, len: usize, access: Access) -> Result<(), ExecMemoryError> {
        let prot = match access {
            Access::Write => libc::PROT_READ | libc::PROT_WRITE,
            Access::Execute => libc::PROT_READ | libc::PROT_EXEC,
            Access::Read => libc::PROT_READ,
        };
        // SAFETY: the range is page-aligned and inside our own mapping.
        let rc = unsafe { libc::mprotect(self.base.as_ptr().add(offset).cast(), len, prot) };
        if rc != 0 {
            return Err(ExecMemoryError::Protect { address: self.base() + offset as u64, len, os_error: os_error() });
        }
        Ok(())
    }
}

impl Drop for CodeCache {
    fn drop(&mut self) {
        // SAFETY: the mapping is ours and nothing runs in it once the cache is dropped.
        unsafe { libc::munmap(self.base.as_ptr().cast(), self.limit) };
    }
}

/// Reserves `len` bytes of address space, nothing committed; at exactly `hint` when given.
fn reserve(hint: Option<u64>, len: usize) -> Option<NonNull<u8>> {
    let mut flags = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE;
    if hint.is_some() {
        flags |= libc::MAP_FIXED_NOREPLACE;
    }
    let addr = hint.unwrap_or(0) as *mut libc::c_void;
    // SAFETY: an anonymous mapping; MAP_FIXED_NOREPLACE never replaces an existing one.
    let p = unsafe { libc::mmap(addr, len, libc::PROT_NONE, flags, -1, 0) };
    if p == libc::MAP_FAILED {
        return None;
    }
    if let Some(h) = hint {
        if p as u64 != h {
            // An old kernel that ignores MAP_FIXED_NOREPLACE placed it elsewhere.
            // SAFETY: we just mapped it.
            unsafe { libc::munmap(p, len) };
            return None;
        }
    }
    NonNull::new(p.cast())
}

/// Page-aligned addresses where a cache of `len` bytes lies within `rel32` reach of `target`:
/// above it first (the heap side of a non-PIE program), then below.
fn candidates(target: u64, len: u64, page: u64) -> Vec<u64> {
    const STEP: u64 = 64 << 20;
    let reach = REL32_REACH - STEP;
    let mut out = Vec::new();
    let mut hint = (target + STEP).next_multiple_of(page);
    while hint + len - target < reach {
        out.push(hint);
        hint += STEP;
    }
    let mut hint = target.saturating_sub(STEP + len) & !(page - 1);
    while hint > page && target - hint < reach {
        out.push(hint);
        hint = hint.saturating_sub(STEP);
    }
    out
}
