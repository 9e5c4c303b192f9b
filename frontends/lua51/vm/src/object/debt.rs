//! Memory that objects own outside the heap's allocator (the array and hash parts of tables,
//! shapes' key lists), counted toward the collector's debt.
//!
//! That memory is allocated by table and shape operations, which have no heap at hand, so its
//! growth is recorded here and folded into the heap's count at collection safe points
//! (`gc::fold_table_storage`).

thread_local! {
    /// Bytes the array and hash parts of tables grew (or shrank, negative) by since the
    /// collector last looked: table storage is allocated by table operations, which have no
    /// heap at hand, and must count toward the collection debt like objects do.
    static STORAGE_DELTA: std::cell::Cell<isize> = const { std::cell::Cell::new(0) };
}

/// Records `delta` bytes of storage growth (negative: shrinking).
pub(crate) fn account_storage(delta: isize) {
    STORAGE_DELTA.with(|d| d.set(d.get() + delta));
}

/// Takes the table-storage growth recorded since the last call (see `gc::check`).
pub(crate) fn take_storage_delta() -> isize {
    STORAGE_DELTA.with(|d| d.replace(0))
}
