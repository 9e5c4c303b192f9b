//! The objects layer: what a Lua value can point at, and the heap they live in (5.1's
//! `lobject`, `lstring`, `ltable`, `lfunc` and the thread object of `lstate`). Nothing here
//! knows the state, the collector or the library.
//!
//! Inside the layer, each module imports only those listed before it: `cushion` (the global
//! allocator's reserve, which lets the front end report running out of memory), `debt` (storage outside
//! the heap, counted toward the collector's debt), `string` (the interned-string set), `shape`
//! (hidden classes), `heap` (allocation and interning), then the objects: `table`, `function`
//! (prototypes, closures, upvalues, native functions), `userdata`, `thread`.

pub mod cushion;
pub mod debt;
pub mod function;
pub mod heap;
pub mod shape;
pub mod string;
pub mod table;
pub mod thread;
pub mod userdata;
