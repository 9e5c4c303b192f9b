//! The code cache: emitted code runs, pages are never writable and executable at once, a full
//! cache is an error, and the cache lies within rel32 reach of the program.

use deegen_exec_memory::{CodeCache, ExecMemoryError, Mapping};

/// `mov eax, imm32; ret`
fn return_constant(v: u32) -> Vec<u8> {
    let mut code = vec![0xB8];
    code.extend_from_slice(&v.to_le_bytes());
    code.push(0xC3);
    code
}

fn call(address: u64) -> u32 {
    // SAFETY: the tests emit `mov eax, imm32; ret` at `address`.
    let f: extern "C" fn() -> u32 = unsafe { std::mem::transmute(address as usize) };
    f()
}

/// The permissions of every mapping that overlaps `[lo, hi)`, from /proc/self/maps.
fn permissions(lo: u64, hi: u64) -> Vec<String> {
    mappings(lo, hi).into_iter().map(|(perms, _)| perms).collect()
}

/// The permissions and the path (empty for anonymous memory) of every mapping that overlaps
/// `[lo, hi)`.
fn mappings(lo: u64, hi: u64) -> Vec<(String, String)> {
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
    maps.lines()
        .filter_map(|l| {
            let mut parts = l.split_whitespace();
            let (range, perms) = (parts.next()?, parts.next()?);
            let path = parts.nth(3).unwrap_or("").to_owned();
            let (a, b) = range.split_once('-')?;
            let (a, b) = (u64::from_str_radix(a, 16).ok()?, u64::from_str_radix(b, 16).ok()?);
            (a < hi && b > lo).then(|| (perms.to_owned(), path))
        })
        .collect()
}

#[test]
fn emitted_code_runs_and_is_never_writable_and_executable() {
    let mut cache = CodeCache::new(1 << 20, None).unwrap();
    let (a, ()) = cache.emit(6, 16, |buf, _| buf.copy_from_slice(&return_constant(42))).unwrap();
    let (b, ()) = cache.emit(6, 16, |buf, _| buf.copy_from_slice(&return_constant(7))).unwrap();
    assert_eq!((call(a), call(b)), (42, 7));
    let (d, ()) = cache.emit_data(8, 8, |buf, _| buf.copy_from_slice(&1.5f64.to_le_bytes())).unwrap();
    // SAFETY: emitted just above, readable.
    assert_eq!(unsafe { *(d as *const f64) }, 1.5);
    let perms = permissions(cache.base(), cache.base() + cache.limit() as u64);
    assert!(perms.iter().any(|p| p.starts_with("r-x")), "{perms:?}");
    assert!(perms.iter().any(|p| p.starts_with("r--")), "{perms:?}");
    assert!(perms.iter().all(|p| !(p.contains('w') && p.contains('x'))), "W^X broken: {perms:?}");
    // Nowhere in the process (the write view included) is memory writable and executable.
    let all = permissions(0, u64::MAX);
    assert!(all.iter().all(|p| !(p.contains('w') && p.contains('x'))), "W^X broken: {all:?}");
    // Patching an instruction's immediate (an inline cache would) goes through the write view.
    cache.patch(a + 1, &99u32.to_le_bytes()).unwrap();
    assert_eq!(call(a), 99);
    assert!(permissions(cache.base(), cache.base() + 4096).iter().all(|p| p.starts_with("r-x")));
    assert!(matches!(cache.patch(cache.base() + 4096, &[0]), Err(ExecMemoryError::NotOurs { .. })));
}

/// The profilers' layout (`ljr --perf-map`): one anonymous mapping (perf names samples from the
/// map file only there), W^X by flipping the written pages, code that runs and patches.
#[test]
fn the_anonymous_mapping_is_anonymous_and_never_writable_and_executable() {
    let here = return_constant as fn(u32) -> Vec<u8> as usize as u64;
    let mut cache = CodeCache::with_mapping(1 << 20, Some(here), Mapping::Anonymous).unwrap();
    assert_eq!(cache.mapping(), Mapping::Anonymous);
    assert!(cache.reachable_from(here));
    let (a, ()) = cache.emit(6, 16, |buf, _| buf.copy_from_slice(&return_constant(42))).unwrap();
    // The second function shares the first one's page, which is writable while it is written.
    let (b, ()) = cache.emit(6, 16, |buf, _| buf.copy_from_slice(&return_constant(7))).unwrap();
    assert_eq!((call(a), call(b)), (42, 7));
    let (d, ()) = cache.emit_data(8, 8, |buf, _| buf.copy_from_slice(&2.5f64.to_le_bytes())).unwrap();
    // SAFETY: emitted just above, readable.
    assert_eq!(unsafe { *(d as *const f64) }, 2.5);
    cache.patch(b + 1, &99u32.to_le_bytes()).unwrap();
    assert_eq!(call(b), 99);
    let maps = mappings(cache.base(), cache.base() + cache.limit() as u64);
    assert!(maps.iter().all(|(_, path)| path.is_empty()), "not anonymous: {maps:?}");
    assert!(maps.iter().any(|(p, _)| p.starts_with("r-x")) && maps.iter().any(|(p, _)| p.starts_with("r--")), "{maps:?}");
    let all = permissions(0, u64::MAX);
    assert!(all.iter().all(|p| !(p.contains('w') && p.contains('x'))), "W^X broken: {all:?}");
    // The usual layout is the memory file's.
    let dual = CodeCache::new(1 << 20, None).unwrap();
    assert_eq!(dual.mapping(), Mapping::Dual);
    let maps = mappings(dual.base(), dual.base() + dual.limit() as u64);
    assert!(maps.iter().all(|(_, path)| path.contains("memfd:")), "{maps:?}");
}

#[test]
fn a_full_cache_is_an_error_not_a_crash() {
    let mut cache = CodeCache::new(2 * 4096, None).unwrap();
    cache.emit(4000, 16, |buf, _| buf.fill(0xCC)).unwrap();
    // Code and data never share a page: the second page can hold data, then nothing more.
    cache.emit_data(100, 8, |buf, _| buf.fill(0)).unwrap();
    let e = cache.emit(200, 16, |buf, _| buf.fill(0xCC)).unwrap_err();
    assert!(matches!(e, ExecMemoryError::Full { .. }), "{e}");
    let e = cache.emit_data(5000, 8, |buf, _| buf.fill(0)).unwrap_err();
    assert!(matches!(e, ExecMemoryError::Full { .. }), "{e}");
    assert!(matches!(cache.emit(1, 3, |_, _| ()), Err(ExecMemoryError::Alignment(3))));
}

#[test]
fn the_cache_is_within_rel32_reach_of_the_program() {
    let here = return_constant as fn(u32) -> Vec<u8> as usize as u64;
    let cache = CodeCache::new(64 << 20, Some(here)).unwrap();
    assert!(cache.reachable_from(here), "cache at {:#x}, program at {here:#x}", cache.base());
}

/// Past the first megabyte a thread populates pages ahead of the code: code emitted there (and
/// data emitted from the top meanwhile) runs and reads back, the thread does the populating,
/// and dropping the cache stops the thread before the views go.
#[test]
fn code_past_the_first_chunk_is_populated_off_the_compiling_thread() {
    // The populater threads alive (by name: no other test here makes a cache large enough).
    let populaters = || {
        std::fs::read_dir("/proc/self/task")
            .unwrap()
            .filter(|t| std::fs::read_to_string(t.as_ref().unwrap().path().join("comm")).is_ok_and(|c| c.trim() == "jit-populate"))
            .count()
    };
    let mut cache = CodeCache::new(64 << 20, None).unwrap();
    let mut emitted = Vec::new();
    for k in 0..24u32 {
        // Half a megabyte each: `mov eax, k; ret` then padding.
        let (a, ()) = cache
            .emit(1 << 19, 16, |buf, _| {
                buf.fill(0xCC);
                buf[..6].copy_from_slice(&return_constant(k));
            })
            .unwrap();
        emitted.push((a, k));
        if k % 4 == 0 {
            let (d, ()) = cache.emit_data(8, 8, |buf, _| buf.copy_from_slice(&u64::from(k).to_le_bytes())).unwrap();
            // SAFETY: data the cache just wrote, readable in the executable view.
            assert_eq!(unsafe { (d as *const u64).read() }, u64::from(k));
        }
    }
    for (a, k) in emitted {
        assert_eq!(call(a), k);
    }
    // The thread did work (only on a kernel with MADV_POPULATE_*, 5.14 and later).
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap();
    let (major, minor) = kernel
        .split_once('.')
        .map(|(a, b)| (a.parse::<u32>().unwrap_or(0), b.split(|c: char| !c.is_ascii_digit()).next().unwrap_or("0").parse::<u32>().unwrap_or(0)))
        .unwrap();
    if (major, minor) >= (5, 14) {
        // Asked for at most a few chunks ahead; wait briefly for it to be done with them.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while cache.background_populate_seconds() == 0.0 && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        assert!(cache.background_populate_seconds() > 0.0);
        // The first chunk was populated on this thread, and never more than that here.
        assert!(cache.populate_seconds() > 0.0);
    }
    assert_eq!(populaters(), 1);
    drop(cache);
    // `Drop` joined it.
    assert_eq!(populaters(), 0);
}

/// Freed code traps until it is reused, is reused before the cache grows (merged with freed
/// neighbours, the rest of a larger range staying free), and a range that is not code the
/// cache handed out, or is free already, is refused. Under both mappings.
#[test]
fn freed_code_traps_and_is_reused() {
    for mapping in [Mapping::Dual, Mapping::Anonymous] {
        let mut cache = CodeCache::with_mapping(1 << 20, None, mapping).unwrap();
        let emit = |cache: &mut CodeCache, v: u32| cache.emit(64, 16, |buf, _| buf[..6].copy_from_slice(&return_constant(v))).unwrap().0;
        let (a, b, c) = (emit(&mut cache, 1), emit(&mut cache, 2), emit(&mut cache, 3));
        let used = cache.used();
        cache.free(b, 64).unwrap();
        // SAFETY: `b` lies in the cache's executable view, readable.
        assert_eq!(unsafe { std::slice::from_raw_parts(b as *const u8, 64) }, &[0xcc; 64][..], "{mapping:?}");
        assert_eq!((cache.used(), cache.free_bytes()), (used - 64, 64));
        // Freed twice, partly, or not ours: refused, nothing changes.
        assert!(matches!(cache.free(b, 64), Err(ExecMemoryError::NotOurs { .. })));
        assert!(matches!(cache.free(b + 16, 16), Err(ExecMemoryError::NotOurs { .. })));
        assert!(matches!(cache.free(cache.base() + (1 << 19), 16), Err(ExecMemoryError::NotOurs { .. })));
        assert!(cache.patch(b, &[0x90]).is_err(), "patching freed code is refused");
        assert_eq!(cache.free_bytes(), 64);
        // The next function that fits goes where `b` was, and runs.
        let d = emit(&mut cache, 4);
        assert_eq!(d, b);
        assert_eq!((call(a), call(d), call(c)), (1, 4, 3));
        assert_eq!(cache.free_bytes(), 0);
        // Two freed neighbours hold one function as large as both; a smaller one leaves the
        // rest free.
        cache.free(a, 64).unwrap();
        cache.free(d, 64).unwrap();
        let (e, ()) = cache.emit(128, 16, |buf, _| buf[..6].copy_from_slice(&return_constant(5))).unwrap();
        assert_eq!((e, call(e)), (a, 5));
        cache.free(e, 128).unwrap();
        let f = emit(&mut cache, 6);
        assert_eq!((f, call(f), cache.free_bytes()), (a, 6, 64));
        // Nowhere writable and executable.
        let perms = permissions(cache.base(), cache.base() + cache.limit() as u64);
        assert!(perms.iter().all(|p| !(p.contains('w') && p.contains('x'))), "W^X broken: {perms:?}");
    }
}
