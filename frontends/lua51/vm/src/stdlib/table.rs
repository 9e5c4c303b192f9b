//! The table library (5.1's `ltablib`).

use std::borrow::Cow;

use lua51_value::number::tostring_bytes;
use lua51_value::{type_name, TValue};

use crate::metamethod::metamethod;
use crate::native::{native, new_library, Call, Native, Raised};
use crate::object::heap::OutOfMemory;
use crate::object::string::string_bytes;
use crate::object::table::table_mut;
use crate::state::{Event, LuaState};

native!(SETN, "setn", |c| {
    // 5.1 checks the table before it says so.
    c.check_table(0)?;
    Err(c.error(&format!("'{}' is obsolete", c.name())))
});

native!(INSERT, "insert", generated crate::interp::__deegen_lib_table_insert, |c| {
    let t = c.check_table(0)?;
    let n = table_mut(t).length() as i64;
    // 5.1's tinsert: no bounds on the position (5.2 added them). The elements from the first
    // empty one (or the position, when it lies past it) down to the position move up one,
    // whatever the position's sign.
    let (pos, v) = match c.nargs {
        2 => (n + 1, c.arg(1)),
        3 => {
            let pos = c.check_int(1)?;
            let mut i = (n + 1).max(pos);
            // A position inside the array part: the last element moves to `n + 1` (which may
            // grow the array part), then the rest in one move.
            if 1 <= pos && pos <= n {
                let last = table_mut(t).get(TValue::from_f64(n as f64));
                c.table_set(t, TValue::from_f64((n + 1) as f64), last)?;
                if table_mut(t).move_in_array(pos as usize, (n - pos) as usize, 1) {
                    c.st.heap.write_barrier(t.as_ptr());
                    i = pos;
                } else {
                    i = n;
                }
            }
            while i > pos {
                let moved = table_mut(t).get(TValue::from_f64((i - 1) as f64));
                c.table_set(t, TValue::from_f64(i as f64), moved)?;
                i -= 1;
            }
            (pos, c.arg(2))
        }
        _ => return Err(c.error(&format!("wrong number of arguments to '{}'", c.name()))),
    };
    c.table_set(t, TValue::from_f64(pos as f64), v)?;
    Ok(0)
});

native!(REMOVE, "remove", |c| {
    let t = c.check_table(0)?;
    let n = table_mut(t).length() as i64;
    let pos = c.opt_int(1, n)?;
    // 5.1.5's tremove: a position outside 1..#t removes nothing and returns nothing.
    if !(1 <= pos && pos <= n) {
        return Ok(0);
    }
    let removed = table_mut(t).get(TValue::from_f64(pos as f64));
    let mut i = pos;
    // Inside the array part, the elements after the position move down in one move.
    if table_mut(t).move_in_array(pos as usize + 1, (n - pos) as usize, -1) {
        c.st.heap.write_barrier(t.as_ptr());
        i = n;
    }
    while i < n {
        let next = table_mut(t).get(TValue::from_f64((i + 1) as f64));
        c.table_set(t, TValue::from_f64(i as f64), next)?;
        i += 1;
    }
    c.table_set(t, TValue::from_f64(n as f64), TValue::NIL)?;
    c.set(0, removed);
    Ok(1)
});

// table.foreach / table.foreachi: deprecated in 5.1 but present. Each calls `f(key, value)`
// and stops at the first non-nil result, which it returns.
native!(FOREACH, "foreach", |c| {
    let (t, f) = foreach_args(c)?;
    let mut key = TValue::NIL;
    while let Ok(Some((k, v))) = table_mut(t).next(key) {
        if let Some(r) = foreach_step(c, f, k, v)? {
            return Ok(r);
        }
        key = k;
    }
    Ok(0)
});

native!(FOREACHI, "foreachi", |c| {
    let (t, f) = foreach_args(c)?;
    for i in 1..=table_mut(t).length() {
        let k = TValue::from_f64(i as f64);
        let v = table_mut(t).get(k);
        if let Some(r) = foreach_step(c, f, k, v)? {
            return Ok(r);
        }
    }
    Ok(0)
});

fn foreach_args(c: &mut Call) -> Result<(TValue, TValue), Raised> {
    let t = c.check_table(0)?;
    let f = c.arg(1);
    if !f.is_function() {
        return Err(c.type_error(1, "function"));
    }
    Ok((t, f))
}

/// One call of a `foreach`: `Some(number of results)` when it returned non-nil (the result).
fn foreach_step(c: &mut Call, f: TValue, k: TValue, v: TValue) -> Result<Option<usize>, Raised> {
    let r = c.call1(f, &[k, v], 2)?;
    if r.is_nil() {
        return Ok(None);
    }
    c.set(0, r);
    Ok(Some(1))
}

native!(CONCAT, "concat", |c| {
    // 5.1's order: the separator is checked before the table.
    let sep = if c.arg(1).is_nil() { Cow::Borrowed(&[][..]) } else { c.check_bytes(1)? };
    let t = c.check_table(0)?;
    let first = c.opt_int(2, 1)?;
    let last = if c.arg(3).is_nil() { table_mut(t).length() as i64 } else { c.check_int(3)? };
    let mut out = Vec::new();
    let mut i = first;
    while i <= last {
        let v = table_mut(t).get_int(i);
        if !(v.is_string() || v.is_double()) {
            // The wording of the lua5.1 we test against (Debian's names the type).
            return Err(c.error(&format!("invalid value ({}) at index {i} in table for '{}'", type_name(v), c.name())));
        }
        // Growth that cannot be had is "not enough memory", not an abort.
        let piece = if v.is_string() { string_bytes(v).len() } else { 32 };
        if out.try_reserve(piece + sep.len()).is_err() {
            return Err(c.raise_oom());
        }
        tostring_bytes(v, &mut out);
        if i != last {
            out.extend_from_slice(&sep);
        }
        i += 1;
    }
    let s = c.string(&out)?;
    c.set(0, s);
    Ok(1)
});

/// `table.sort`: Lua 5.1's `auxsort` (median-of-three quicksort), step for step, so the
/// comparisons a custom comparator sees, and its errors, are the reference's.
struct Sorter<'c, 'a> {
    c: &'c mut Call<'a>,
    t: TValue,
    cmp: TValue,
}

impl Sorter<'_, '_> {
    fn get(&self, i: i64) -> TValue {
        table_mut(self.t).get_int(i)
    }
    fn set(&mut self, i: i64, v: TValue) {
        // Sorting rewrites keys 1..n, which exist: the table does not grow.
        let _ = table_mut(self.t).set_int(i, v);
        self.c.st.heap.write_barrier(self.t.as_ptr());
    }
    fn less(&mut self, a: TValue, b: TValue) -> Result<bool, Raised> {
        if !self.cmp.is_nil() {
            return Ok(!self.c.call1(self.cmp, &[a, b], 3)?.is_falsy());
        }
        if a.is_double() && b.is_double() {
            return Ok(a.as_f64() < b.as_f64());
        }
        if a.is_string() && b.is_string() {
            return Ok(string_bytes(a) < string_bytes(b));
        }
        let tm = metamethod(self.c.st, a, Event::Lt);
        if !tm.is_nil() && tm == metamethod(self.c.st, b, Event::Lt) {
            return Ok(!self.c.call1(tm, &[a, b], 3)?.is_falsy());
        }
        let (t1, t2) = (type_name(a), type_name(b));
        let msg = if t1 == t2 { format!("attempt to compare two {t1} values") } else { format!("attempt to compare {t1} with {t2}") };
        Err(self.c.error(&msg))
    }
    fn swap(&mut self, i: i64, j: i64) {
        let (a, b) = (self.get(i), self.get(j));
        self.set(i, b);
        self.set(j, a);
    }
    fn sort(&mut self, mut l: i64, mut u: i64) -> Result<(), Raised> {
        while l < u {
            if self.less(self.get(u), self.get(l))? {
                self.swap(l, u);
            }
            if u - l == 1 {
                break;
            }
            let mut i = (l + u) / 2;
            if self.less(self.get(i), self.get(l))? {
                self.swap(i, l);
            } else if self.less(self.get(u), self.get(i))? {
                self.swap(i, u);
            }
            if u - l == 2 {
                break;
            }
            let p = self.get(i);
            // The pivot stays in a stack slot below the comparator's frames (which start at
            // slot 3, see `less`), as 5.1 keeps it on its stack: a comparator that removes it
            // from the table must not let a collection free it.
            self.c.set(2, p);
            self.swap(i, u - 1);
            i = l;
            let mut j = u - 1;
            loop {
                i += 1;
                while self.less(self.get(i), p)? {
                    if i > u {
                        return Err(self.c.error("invalid order function for sorting"));
                    }
                    i += 1;
                }
                j -= 1;
                while self.less(p, self.get(j))? {
                    if j < l {
                        return Err(self.c.error("invalid order function for sorting"));
                    }
                    j -= 1;
                }
                if j < i {
                    break;
                }
                self.swap(i, j);
            }
            self.swap(u - 1, i);
            if i - l < u - i {
                let (a, b) = (l, i - 1);
                l = i + 1;
                self.sort(a, b)?;
            } else {
                let (a, b) = (i + 1, u);
                u = i - 1;
                self.sort(a, b)?;
            }
        }
        Ok(())
    }
}

native!(SORT, "sort", |c| {
    let t = c.check_table(0)?;
    let n = table_mut(t).length() as i64;
    let cmp = c.arg(1);
    if !cmp.is_nil() && !cmp.is_function() {
        return Err(c.type_error(1, "function"));
    }
    Sorter { c, t, cmp }.sort(1, n)?;
    Ok(0)
});

native!(GETN, "getn", |c| {
    let t = c.check_table(0)?;
    c.set(0, TValue::from_f64(table_mut(t).length() as f64));
    Ok(1)
});

native!(MAXN, "maxn", |c| {
    let t = c.check_table(0)?;
    let mut max = 0.0f64;
    let mut k = TValue::NIL;
    while let Ok(Some((key, _))) = table_mut(t).next(k) {
        if key.is_double() && key.as_f64() > max {
            max = key.as_f64();
        }
        k = key;
    }
    c.set(0, TValue::from_f64(max));
    Ok(1)
});

/// The table library's functions, by their Lua names.
pub(crate) const FUNCTIONS: &[Native] = &[INSERT, REMOVE, FOREACH, FOREACHI, CONCAT, SORT, GETN, MAXN, SETN];

/// Opens the table library (the global `table`), and returns it.
pub fn open(st: &mut LuaState) -> Result<TValue, OutOfMemory> {
    new_library(st, "table", FUNCTIONS)
}
