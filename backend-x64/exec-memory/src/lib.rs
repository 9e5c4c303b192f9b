//! Executable memory for the JIT tiers.
//!
//! One cache per [`CodeCache`], made once, placed within ±2 GiB of the program's own code when
//! asked, so that JIT code reaches the interpreter and the runtime with `rel32` jumps and calls.
//! Code grows from the bottom, read-only data (stencil constants) from the top; a page never
//! holds both.
//!
//! W^X by a dual mapping: the cache is a memory file (`memfd`) mapped twice, once
//! read-execute (where code runs, the addresses the JIT hands out) and once read-write (where
//! [`CodeCache::emit`] and [`CodeCache::patch`] write, an address never handed out). No
//! mapping is ever writable and executable, and emitting or patching code needs no
//! `mprotect`: two per compiled function were 85% of the baseline JIT's compile time. Data
//! pages are made read-only (not executable) in the executable view once written.
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

/// How much code memory is populated ahead of use ([`CodeCache::emit`]).
const POPULATE_CHUNK: usize = 1 << 20;

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
    /// The read-execute view: every address the cache hands out is in it.
    base: NonNull<u8>,
    /// The read-write view of the same memory, where bytes are written.
    write_view: NonNull<u8>,
    limit: usize,
    page: usize,
    /// Bytes of code emitted, from `base` up.
    code_top: usize,
    /// Bytes from `base` up whose pages are populated in both views ([`POPULATE_CHUNK`]).
    populated: usize,
    /// Bytes of data emitted, from `base + limit` down.
    data_bottom: usize,
    /// Time spent populating pages ([`CodeCache::populate_seconds`]).
    populate_seconds: f64,
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
        let failed = |near: Option<u64>| ExecMemoryError::Reserve {
            bytes: limit,
            near: near.map(|n| format!(" within 2 GiB of {n:#x}")).unwrap_or_default(),
            os_error: os_error(),
        };
        let file = MemoryFile::new(limit).ok_or_else(|| failed(None))?;
        let base = match near {
            None => file.map(None, Access::Execute),
            Some(target) => candidates(target, limit as u64, page as u64).into_iter().find_map(|hint| file.map(Some(hint), Access::Execute)),
        }
        .ok_or_else(|| failed(near))?;
        let Some(write_view) = file.map(None, Access::Write) else {
            let e = failed(None);
            // SAFETY: mapped just above, nothing refers to it yet.
            unsafe { libc::munmap(base.as_ptr().cast(), limit) };
            return Err(e);
        };
        tracing::debug!(base = ?base, limit, "code cache mapped");
        Ok(Self { base, write_view, limit, page, code_top: 0, populated: 0, data_bottom: limit, populate_seconds: 0.0 })
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

    /// Seconds spent so far making fresh pages ready (the kernel allocating and clearing them,
    /// in both views): part of every emit that crosses into a new chunk, and, on a machine
    /// where fresh memory is slow to get, a large part of a JIT's compile time.
    pub fn populate_seconds(&self) -> f64 {
        self.populate_seconds
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
        self.populate(start + len, data_first_page);
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

    /// Overwrites emitted code at `address` (inline-cache patching), through the write view.
    pub fn patch(&mut self, address: u64, bytes: &[u8]) -> Result<(), ExecMemoryError> {
        self.patch_with(address, bytes.len(), |buf| buf.copy_from_slice(bytes))
    }

    /// Lets `fill` rewrite the `len` bytes of emitted code at `address` in place, through the
    /// write view (an inline-cache stub written where it runs, with no copy in between).
    pub fn patch_with<R>(&mut self, address: u64, len: usize, fill: impl FnOnce(&mut [u8]) -> R) -> Result<R, ExecMemoryError> {
        let offset = address.checked_sub(self.base()).map(|o| o as usize);
        match offset {
            Some(o) if o.checked_add(len).is_some_and(|end| end <= self.code_top) => {
                let r = self.write(o, len, Access::Execute, |buf, _| fill(buf))?;
                discard_valgrind_translations(address, len);
                Ok(r)
            }
            _ => Err(ExecMemoryError::NotOurs { address, len }),
        }
    }

    fn full(&self, requested: usize) -> ExecMemoryError {
        ExecMemoryError::Full { used: self.used(), limit: self.limit, requested }
    }

    /// Populates the pages of both views up to `end` and a chunk beyond (not past `limit`):
    /// one `madvise` per [`POPULATE_CHUNK`] instead of two page faults per page (a fresh page of
    /// the memory file in the write view, then again in the executable view). Only a speed-up:
    /// a kernel without `MADV_POPULATE_*` (before 5.14) faults the pages in as they are used.
    fn populate(&mut self, end: usize, limit: usize) {
        if end <= self.populated {
            return;
        }
        let to = (end + POPULATE_CHUNK).next_multiple_of(self.page).min(limit);
        if to <= self.populated {
            return;
        }
        let len = to - self.populated;
        let start = std::time::Instant::now();
        // SAFETY: a range of our own two views; populating has no other effect.
        unsafe {
            libc::madvise(self.write_view.as_ptr().add(self.populated).cast(), len, libc::MADV_POPULATE_WRITE);
            libc::madvise(self.base.as_ptr().add(self.populated).cast(), len, libc::MADV_POPULATE_READ);
        }
        self.populated = to;
        self.populate_seconds += start.elapsed().as_secs_f64();
    }

    /// Lets `fill` write `[offset, offset+len)` through the write view; data (`after` is
    /// [`Access::Read`]) then becomes read-only in the executable view.
    fn write<R>(&mut self, offset: usize, len: usize, after: Access, fill: impl FnOnce(&mut [u8], u64) -> R) -> Result<R, ExecMemoryError> {
        // SAFETY: `[offset, offset+len)` lies in the mapping (callers check), the write view
        // is mapped read-write, and no other reference to it exists while `fill` runs.
        let bytes = unsafe { std::slice::from_raw_parts_mut(self.write_view.as_ptr().add(offset), len) };
        let r = fill(bytes, self.base() + offset as u64);
        if after == Access::Read {
            let first = offset & !(self.page - 1);
            let end = (offset + len).next_multiple_of(self.page).max(first + self.page);
            self.protect(first, end - first, Access::Read)?;
        }
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
        // SAFETY: both views are ours and nothing runs in them once the cache is dropped.
        unsafe {
            libc::munmap(self.base.as_ptr().cast(), self.limit);
            libc::munmap(self.write_view.as_ptr().cast(), self.limit);
        }
    }
}

/// The anonymous memory file behind a cache's two views (closed once both are mapped).
struct MemoryFile {
    fd: libc::c_int,
    len: usize,
}

impl MemoryFile {
    fn new(len: usize) -> Option<Self> {
        // SAFETY: a valid name; the flags are known to the kernel.
        let fd = unsafe { libc::memfd_create(c"deegen-code-cache".as_ptr(), libc::MFD_CLOEXEC) };
        if fd < 0 {
            return None;
        }
        let file = MemoryFile { fd, len };
        // Sparse: pages are allocated when first written.
        // SAFETY: our descriptor.
        (unsafe { libc::ftruncate(fd, len as libc::off_t) } == 0).then_some(file)
    }

    /// Maps the whole file shared, read-execute or read-write; at exactly `hint` when given.
    fn map(&self, hint: Option<u64>, access: Access) -> Option<NonNull<u8>> {
        let prot = match access {
            Access::Execute => libc::PROT_READ | libc::PROT_EXEC,
            Access::Write => libc::PROT_READ | libc::PROT_WRITE,
            Access::Read => libc::PROT_READ,
        };
        let mut flags = libc::MAP_SHARED | libc::MAP_NORESERVE;
        if hint.is_some() {
            flags |= libc::MAP_FIXED_NOREPLACE;
        }
        let addr = hint.unwrap_or(0) as *mut libc::c_void;
        // SAFETY: a shared mapping of our own file; MAP_FIXED_NOREPLACE never replaces a mapping.
        let p = unsafe { libc::mmap(addr, self.len, prot, flags, self.fd, 0) };
        if p == libc::MAP_FAILED {
            return None;
        }
        if let Some(h) = hint {
            if p as u64 != h {
                // An old kernel that ignores MAP_FIXED_NOREPLACE placed it elsewhere.
                // SAFETY: we just mapped it.
                unsafe { libc::munmap(p, self.len) };
                return None;
            }
        }
        NonNull::new(p.cast())
    }
}

impl Drop for MemoryFile {
    fn drop(&mut self) {
        // SAFETY: our descriptor; the mappings keep the memory.
        unsafe { libc::close(self.fd) };
    }
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

/// Tells Valgrind, when the process runs under it, that the code at `address` changed
/// (`VALGRIND_DISCARD_TRANSLATIONS`): the write went through the other view, which Valgrind
/// cannot connect to the executable one, so it would keep running its translation of the old
/// bytes (a patched inline cache would never be seen by `cachegrind`, which the project's
/// instruction counts come from). Natively this is Valgrind's client-request preamble, four
/// rotations of `rdi` by 128 bits in all and `xchg rbx, rbx`: no effect.
#[inline(never)]
fn discard_valgrind_translations(address: u64, len: usize) {
    /// `VG_USERREQ__DISCARD_TRANSLATIONS` (valgrind.h).
    const DISCARD_TRANSLATIONS: u64 = 0x1002;
    let args: [u64; 6] = [DISCARD_TRANSLATIONS, address, len as u64, 0, 0, 0];
    let mut result: u64 = 0;
    // SAFETY: reads `args` only; natively the sequence leaves every register as it was (the
    // flags aside, which the asm does not promise to keep).
    unsafe {
        std::arch::asm!(
            "rol rdi, 3", "rol rdi, 13", "rol rdi, 61", "rol rdi, 51", "xchg rbx, rbx",
            inout("rdx") result,
            in("rax") args.as_ptr(),
            options(nostack, readonly),
        );
    }
    let _ = result;
}
