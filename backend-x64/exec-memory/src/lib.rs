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
//! For profiling there is a second layout, [`Mapping::Anonymous`]: one anonymous mapping whose
//! pages are made read-write while they are written and read-execute again after. It costs two
//! `mprotect`s per write, but perf resolves JIT symbols (`/tmp/perf-PID.map`) only in anonymous
//! memory: samples in the memory file's view are charged to `memfd:deegen-code-cache` and stay
//! unnamed. W^X holds in both layouts.
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

/// How far ahead of the code the [`Populater`] keeps pages ready, once code has outgrown the
/// first chunk.
const POPULATE_AHEAD: usize = 4 * POPULATE_CHUNK;

/// How far a `rel32` reaches.
const REL32_REACH: u64 = 1 << 31;

/// What a range of pages may be used for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Access {
    Write,
    Execute,
    Read,
}

impl Access {
    /// The page protection it takes (never writable and executable).
    fn prot(self) -> libc::c_int {
        match self {
            Access::Write => libc::PROT_READ | libc::PROT_WRITE,
            Access::Execute => libc::PROT_READ | libc::PROT_EXEC,
            Access::Read => libc::PROT_READ,
        }
    }
}

/// How a cache's memory is mapped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mapping {
    /// A memory file mapped twice, read-execute and read-write: writing needs no `mprotect`.
    #[default]
    Dual,
    /// One anonymous mapping, made writable (and not executable) page by page while written:
    /// slower to emit into, but what profilers expect of JIT code (`perf` reads
    /// `/tmp/perf-PID.map` for anonymous memory only).
    Anonymous,
}

/// A reservation of executable memory and its two bump allocators.
#[derive(Debug)]
pub struct CodeCache {
    /// The read-execute view: every address the cache hands out is in it.
    base: NonNull<u8>,
    /// The read-write view of the same memory, where bytes are written (`base` itself under
    /// [`Mapping::Anonymous`], whose pages are made writable while written).
    write_view: NonNull<u8>,
    mapping: Mapping,
    limit: usize,
    page: usize,
    /// Bytes of code emitted, from `base` up.
    code_top: usize,
    /// Bytes from `base` up whose pages are populated in both views ([`POPULATE_CHUNK`]), or,
    /// once the [`Populater`] runs, that it was asked to populate.
    populated: usize,
    /// Bytes of data emitted, from `base + limit` down.
    data_bottom: usize,
    /// Time spent populating pages ([`CodeCache::populate_seconds`]).
    populate_seconds: f64,
    /// Populates beyond the first chunk off the compiling thread (`None` until code outgrows
    /// the first chunk, or when the thread could not be started).
    populater: Option<Populater>,
    /// Whether starting the populater was tried (once).
    populater_tried: bool,
    /// Code freed with [`CodeCache::free`], reused by [`CodeCache::emit`] before the bump
    /// pointer moves.
    free: FreeRanges,
}

/// Freed ranges of the code area, by offset (to merge neighbours) and by size (to find the
/// smallest that fits).
#[derive(Debug, Default)]
struct FreeRanges {
    by_offset: std::collections::BTreeMap<usize, usize>,
    by_size: std::collections::BTreeSet<(usize, usize)>,
    bytes: usize,
}

impl FreeRanges {
    fn insert(&mut self, mut offset: usize, mut len: usize) {
        // Merged with a free neighbour on either side.
        if let Some((&before, &before_len)) = self.by_offset.range(..offset).next_back() {
            if before + before_len == offset {
                self.remove(before, before_len);
                offset = before;
                len += before_len;
            }
        }
        if let Some(&after_len) = self.by_offset.get(&(offset + len)) {
            self.remove(offset + len, after_len);
            len += after_len;
        }
        self.by_offset.insert(offset, len);
        self.by_size.insert((len, offset));
        self.bytes += len;
    }

    fn remove(&mut self, offset: usize, len: usize) {
        self.by_offset.remove(&offset);
        self.by_size.remove(&(len, offset));
        self.bytes -= len;
    }

    /// Whether `[offset, offset + len)` overlaps a free range.
    fn overlaps(&self, offset: usize, len: usize) -> bool {
        let before = self.by_offset.range(..offset + len).next_back();
        before.is_some_and(|(&o, &l)| o + l > offset)
    }

    /// Takes `len` bytes aligned to `align` from the smallest free range that holds them (among
    /// the first few at least `len` long, whose start may not be aligned, then the smallest that
    /// surely does); what is left of the range on either side stays free. Returns the offset.
    fn take(&mut self, len: usize, align: usize) -> Option<usize> {
        let fits = |&&(range_len, offset): &&(usize, usize)| offset.next_multiple_of(align) + len <= offset + range_len;
        let need = len.checked_add(align - 1)?;
        let &(range_len, offset) = self.by_size.range((len, 0)..).take(8).find(fits).or_else(|| self.by_size.range((need, 0)..).next())?;
        self.remove(offset, range_len);
        let start = offset.next_multiple_of(align);
        if start > offset {
            self.insert(offset, start - offset);
        }
        let end = start + len;
        if end < offset + range_len {
            self.insert(end, offset + range_len - end);
        }
        Some(start)
    }
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
        Self::with_mapping(limit, near, Mapping::Dual)
    }

    /// [`CodeCache::new`] with the memory mapped as `mapping` says.
    pub fn with_mapping(limit: usize, near: Option<u64>, mapping: Mapping) -> Result<Self, ExecMemoryError> {
        let page = page_size();
        let limit = limit.max(page).next_multiple_of(page);
        let failed = |near: Option<u64>| ExecMemoryError::Reserve {
            bytes: limit,
            near: near.map(|n| format!(" within 2 GiB of {n:#x}")).unwrap_or_default(),
            os_error: os_error(),
        };
        // The executable view, where `map` puts it: within reach of `near` when given.
        let place = |map: &dyn Fn(Option<u64>) -> Option<NonNull<u8>>| match near {
            None => map(None),
            Some(target) => candidates(target, limit as u64, page as u64).into_iter().find_map(|hint| map(Some(hint))),
        };
        if mapping == Mapping::Anonymous {
            // One private anonymous mapping, read-execute; pages turn writable while written.
            let flags = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE;
            let base = place(&|hint| map_at(hint, limit, Access::Execute, flags, -1)).ok_or_else(|| failed(near))?;
            tracing::debug!(base = ?base, limit, "code cache mapped (anonymous, one view)");
            return Ok(Self::mapped(base, base, Mapping::Anonymous, limit, page));
        }
        let file = MemoryFile::new(limit).ok_or_else(|| failed(None))?;
        let base = place(&|hint| file.map(hint, Access::Execute)).ok_or_else(|| failed(near))?;
        let Some(write_view) = file.map(None, Access::Write) else {
            let e = failed(None);
            // SAFETY: mapped just above, nothing refers to it yet.
            unsafe { libc::munmap(base.as_ptr().cast(), limit) };
            return Err(e);
        };
        tracing::debug!(base = ?base, limit, "code cache mapped");
        Ok(Self::mapped(base, write_view, Mapping::Dual, limit, page))
    }

    fn mapped(base: NonNull<u8>, write_view: NonNull<u8>, mapping: Mapping, limit: usize, page: usize) -> Self {
        Self {
            base,
            write_view,
            mapping,
            limit,
            page,
            code_top: 0,
            populated: 0,
            data_bottom: limit,
            populate_seconds: 0.0,
            populater: None,
            populater_tried: false,
            free: FreeRanges::default(),
        }
    }

    /// How the cache's memory is mapped.
    pub fn mapping(&self) -> Mapping {
        self.mapping
    }

    /// The address of the cache's first byte.
    pub fn base(&self) -> u64 {
        self.base.as_ptr() as u64
    }

    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Bytes handed out (code and data) and not freed.
    pub fn used(&self) -> usize {
        self.code_top - self.free.bytes + (self.limit - self.data_bottom)
    }

    /// Bytes of code freed and not reused yet.
    pub fn free_bytes(&self) -> usize {
        self.free.bytes
    }

    /// Seconds spent so far making fresh pages ready (the kernel allocating and clearing them,
    /// in both views): part of every emit that crosses into a new chunk, and, on a machine
    /// where fresh memory is slow to get, a large part of a JIT's compile time.
    pub fn populate_seconds(&self) -> f64 {
        self.populate_seconds
    }

    /// Seconds the background [`Populater`] has spent making pages ready ahead of the code: CPU
    /// time of another thread, which the compiling thread no longer waits for (on a machine
    /// with a spare core).
    pub fn background_populate_seconds(&self) -> f64 {
        self.populater.as_ref().map_or(0.0, Populater::busy_seconds)
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
        // Freed code first: its pages are populated, and the cache does not grow.
        if let Some(start) = self.free.take(len, align) {
            let r = self.write(start, len, Access::Execute, fill)?;
            // (A tool that translated what ran here before must not run that again.)
            discard_valgrind_translations(self.base() + start as u64, len);
            return Ok((self.base() + start as u64, r));
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

    /// Gives back `len` bytes of code at `address` (a function no longer reachable: nothing
    /// may jump into it any more), for [`CodeCache::emit`] to reuse. They are overwritten with
    /// `int3` at once, so that a jump that should not happen traps instead of running what was
    /// there. A range that is not code this cache handed out, or that is free already, is an
    /// error and changes nothing.
    pub fn free(&mut self, address: u64, len: usize) -> Result<(), ExecMemoryError> {
        match self.live_code_offset(address, len) {
            Some(o) if len > 0 => {
                self.write(o, len, Access::Execute, |buf, _| buf.fill(0xcc))?;
                discard_valgrind_translations(address, len);
                self.free.insert(o, len);
                Ok(())
            }
            _ => Err(ExecMemoryError::NotOurs { address, len }),
        }
    }

    /// Overwrites emitted code at `address` (inline-cache patching), through the write view.
    pub fn patch(&mut self, address: u64, bytes: &[u8]) -> Result<(), ExecMemoryError> {
        self.patch_with(address, bytes.len(), |buf| buf.copy_from_slice(bytes))
    }

    /// Lets `fill` rewrite the `len` bytes of emitted code at `address` in place, through the
    /// write view (an inline-cache stub written where it runs, with no copy in between).
    pub fn patch_with<R>(&mut self, address: u64, len: usize, fill: impl FnOnce(&mut [u8]) -> R) -> Result<R, ExecMemoryError> {
        // (Not into freed code: whatever patches it holds a stale address.)
        match self.live_code_offset(address, len) {
            Some(o) => {
                let r = self.write(o, len, Access::Execute, |buf, _| fill(buf))?;
                discard_valgrind_translations(address, len);
                Ok(r)
            }
            _ => Err(ExecMemoryError::NotOurs { address, len }),
        }
    }

    /// The offset of `[address, address + len)` when it is emitted code that is not free.
    fn live_code_offset(&self, address: u64, len: usize) -> Option<usize> {
        let o = address.checked_sub(self.base())? as usize;
        (o.checked_add(len)? <= self.code_top && !self.free.overlaps(o, len)).then_some(o)
    }

    fn full(&self, requested: usize) -> ExecMemoryError {
        ExecMemoryError::Full { used: self.used(), limit: self.limit, requested }
    }

    /// Populates the pages of both views up to `end` and a chunk beyond (not past `limit`):
    /// one `madvise` per [`POPULATE_CHUNK`] instead of two page faults per page (a fresh page of
    /// the memory file in the write view, then again in the executable view). Only a speed-up:
    /// a kernel without `MADV_POPULATE_*` (before 5.14) faults the pages in as they are used.
    ///
    /// The first chunk is populated here, on the compiling thread (a small program never
    /// needs more, and never pays for a thread); beyond it a [`Populater`] thread keeps
    /// [`POPULATE_AHEAD`] bytes ready ahead of `end`. The compiling thread never waits for it:
    /// a page it writes before the populater got there faults in as it would without one.
    fn populate(&mut self, end: usize, limit: usize) {
        if self.mapping == Mapping::Anonymous {
            // Private pages, executable until written: they fault in as they are written.
            return;
        }
        if let Some(populater) = &self.populater {
            // Asked again once the code is within a chunk of what was asked for last.
            if end + POPULATE_CHUNK > self.populated {
                let to = (end + POPULATE_AHEAD).next_multiple_of(self.page).min(limit);
                populater.request(to);
                // (What the populater has done by now is not known here, nor needed.)
                self.populated = self.populated.max(to);
            }
            return;
        }
        if end <= self.populated {
            return;
        }
        if self.populated >= POPULATE_CHUNK.min(limit) && self.start_populater() {
            return self.populate(end, limit);
        }
        let to = (end + POPULATE_CHUNK).next_multiple_of(self.page).min(limit);
        if to <= self.populated {
            return;
        }
        let start = std::time::Instant::now();
        // SAFETY: a range of our own two views; populating has no other effect.
        unsafe { populate_views(self.write_view.as_ptr() as usize, self.base.as_ptr() as usize, self.populated, to) };
        self.populated = to;
        self.populate_seconds += start.elapsed().as_secs_f64();
    }

    /// Starts the populater if it is not running and was never tried; whether it runs.
    fn start_populater(&mut self) -> bool {
        if !self.populater_tried {
            self.populater_tried = true;
            self.populater = Populater::start(self.write_view.as_ptr() as usize, self.base.as_ptr() as usize, self.populated);
        }
        self.populater.is_some()
    }

    /// Lets `fill` write `[offset, offset+len)` through the write view; data (`after` is
    /// [`Access::Read`]) then becomes read-only in the executable view. Under
    /// [`Mapping::Anonymous`] the pages are read-write (not executable) while `fill` runs, and
    /// `after` again once it returned.
    fn write<R>(&mut self, offset: usize, len: usize, after: Access, fill: impl FnOnce(&mut [u8], u64) -> R) -> Result<R, ExecMemoryError> {
        let first = offset & !(self.page - 1);
        let end = (offset + len).next_multiple_of(self.page).max(first + self.page);
        if self.mapping == Mapping::Anonymous {
            self.protect(first, end - first, Access::Write)?;
        }
        // SAFETY: `[offset, offset+len)` lies in the mapping (callers check), the write view
        // is mapped read-write (made so just above in the one-view layout), and no other
        // reference to it exists while `fill` runs.
        let bytes = unsafe { std::slice::from_raw_parts_mut(self.write_view.as_ptr().add(offset), len) };
        let r = fill(bytes, self.base() + offset as u64);
        if after == Access::Read || self.mapping == Mapping::Anonymous {
            self.protect(first, end - first, after)?;
        }
        Ok(r)
    }

    fn protect(&self, offset: usize, len: usize, access: Access) -> Result<(), ExecMemoryError> {
        // SAFETY: the range is page-aligned and inside our own mapping.
        let rc = unsafe { libc::mprotect(self.base.as_ptr().add(offset).cast(), len, access.prot()) };
        if rc != 0 {
            return Err(ExecMemoryError::Protect { address: self.base() + offset as u64, len, os_error: os_error() });
        }
        Ok(())
    }
}

impl Drop for CodeCache {
    fn drop(&mut self) {
        // The populater touches both views: it stops (and its thread ends) before they go.
        drop(self.populater.take());
        // SAFETY: both views are ours and nothing runs in them once the cache is dropped.
        unsafe {
            libc::munmap(self.base.as_ptr().cast(), self.limit);
            if self.write_view != self.base {
                libc::munmap(self.write_view.as_ptr().cast(), self.limit);
            }
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
        map_at(hint, self.len, access, libc::MAP_SHARED | libc::MAP_NORESERVE, self.fd)
    }
}

/// `mmap` of `len` bytes with `flags` (and `fd`, -1 for anonymous memory) for `access`; at
/// exactly `hint` when given (never replacing a mapping), else anywhere.
fn map_at(hint: Option<u64>, len: usize, access: Access, flags: libc::c_int, fd: libc::c_int) -> Option<NonNull<u8>> {
    let flags = if hint.is_some() { flags | libc::MAP_FIXED_NOREPLACE } else { flags };
    let addr = hint.unwrap_or(0) as *mut libc::c_void;
    // SAFETY: a new mapping (of the caller's file, or anonymous); MAP_FIXED_NOREPLACE never
    // replaces one.
    let p = unsafe { libc::mmap(addr, len, access.prot(), flags, fd, 0) };
    if p == libc::MAP_FAILED {
        return None;
    }
    if hint.is_some_and(|h| p as u64 != h) {
        // An old kernel that ignores MAP_FIXED_NOREPLACE placed it elsewhere.
        // SAFETY: we just mapped it.
        unsafe { libc::munmap(p, len) };
        return None;
    }
    NonNull::new(p.cast())
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

/// Populates `[from, to)` of both views: the memory file's pages allocated and cleared through
/// the write view, then mapped in the executable view.
///
/// # Safety
/// `write_view` and `execute_view` are the two views of one live cache and `[from, to)` lies in
/// them. (Populating has no effect a program can see, so a range being written or run
/// concurrently is fine.)
unsafe fn populate_views(write_view: usize, execute_view: usize, from: usize, to: usize) -> bool {
    let len = to.saturating_sub(from);
    // SAFETY: the caller's.
    unsafe {
        libc::madvise((write_view + from) as *mut libc::c_void, len, libc::MADV_POPULATE_WRITE) == 0
            && libc::madvise((execute_view + from) as *mut libc::c_void, len, libc::MADV_POPULATE_READ) == 0
    }
}

/// A thread that makes a cache's pages ready before the compiler writes them.
///
/// On a machine where fresh memory is slow to get (the kernel allocating and clearing each
/// page, and under virtualisation the host backing it), populating pages took half the
/// baseline JIT's compile time on a program of thousands of functions; done a few chunks ahead
/// on another core it is off the compiler's path. The thread sleeps until asked for more and
/// stops when the cache is dropped.
#[derive(Debug)]
struct Populater {
    shared: std::sync::Arc<PopulaterShared>,
    thread: Option<std::thread::JoinHandle<()>>,
}

#[derive(Debug, Default)]
struct PopulaterShared {
    state: std::sync::Mutex<PopulaterState>,
    wake: std::sync::Condvar,
}

#[derive(Debug, Default)]
struct PopulaterState {
    /// Populate up to here (a byte offset in the views).
    requested: usize,
    /// Populated up to here.
    done: usize,
    stop: bool,
    busy_seconds: f64,
}

impl Populater {
    /// Starts the thread with `[0, done)` already populated; `None` if it cannot be started
    /// (the cache then populates on the compiling thread, as before).
    fn start(write_view: usize, execute_view: usize, done: usize) -> Option<Self> {
        let shared = std::sync::Arc::new(PopulaterShared::default());
        {
            let mut state = shared.state.lock().ok()?;
            state.requested = done;
            state.done = done;
        }
        let theirs = shared.clone();
        let thread = std::thread::Builder::new()
            .name("jit-populate".into())
            .spawn(move || Self::run(&theirs, write_view, execute_view))
            .map_err(|e| tracing::debug!(error = %e, "no code-cache populater thread; populating on the compiling thread"))
            .ok()?;
        tracing::debug!(from = done, "code-cache populater started");
        Some(Self { shared, thread: Some(thread) })
    }

    fn run(shared: &PopulaterShared, write_view: usize, execute_view: usize) {
        let Ok(mut state) = shared.state.lock() else { return };
        loop {
            while !state.stop && state.requested <= state.done {
                state = match shared.wake.wait(state) {
                    Ok(s) => s,
                    Err(_) => return,
                };
            }
            if state.stop {
                return;
            }
            // One chunk at a time, unlocked, so that a new request or a stop is seen soon.
            let (from, to) = (state.done, state.requested.min(state.done + POPULATE_CHUNK));
            drop(state);
            let start = std::time::Instant::now();
            // SAFETY: the cache's views stay mapped until this thread has stopped (the
            // cache's `Drop` joins it first), and `to` never passes the cache's limit.
            let supported = unsafe { populate_views(write_view, execute_view, from, to) };
            let busy = start.elapsed().as_secs_f64();
            state = match shared.state.lock() {
                Ok(s) => s,
                Err(_) => return,
            };
            state.busy_seconds += busy;
            state.done = to;
            if !supported {
                // A kernel without `MADV_POPULATE_*`: pages fault in as they are used.
                tracing::debug!("the kernel cannot populate pages ahead; the populater stops");
                return;
            }
        }
    }

    /// Asks for `[0, to)` to be populated.
    fn request(&self, to: usize) {
        if let Ok(mut state) = self.shared.state.lock() {
            if to > state.requested {
                state.requested = to;
                self.shared.wake.notify_one();
            }
        }
    }

    fn busy_seconds(&self) -> f64 {
        self.shared.state.lock().map_or(0.0, |s| s.busy_seconds)
    }
}

impl Drop for Populater {
    fn drop(&mut self) {
        if let Ok(mut state) = self.shared.state.lock() {
            state.stop = true;
            self.shared.wake.notify_one();
        }
        if let Some(thread) = self.thread.take() {
            // A panic in the thread (none is expected) must not become one here.
            let _ = thread.join();
        }
    }
}
