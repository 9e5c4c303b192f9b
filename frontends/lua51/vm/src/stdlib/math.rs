//! The math library (5.1's `lmathlib`), over the C library's `rand` so seeded sequences match.

use lua51_value::TValue;

use crate::native::{native, new_library, Native};
use crate::object::heap::OutOfMemory;
use crate::object::table::table_mut;
use crate::state::LuaState;

macro_rules! math1 {
    ($rust:ident, $lua:literal, $f:expr $(, generated $entry:path)?) => {
        native!($rust, $lua, $(generated $entry,)? |c| {
            let x = c.check_number(0)?;
            let f: fn(f64) -> f64 = $f;
            c.set(0, TValue::from_f64_canonical(f(x)));
            Ok(1)
        });
    };
}

math1!(FLOOR, "floor", f64::floor, generated crate::interp::__deegen_lib_math_floor);
math1!(CEIL, "ceil", f64::ceil, generated crate::interp::__deegen_lib_math_ceil);
math1!(SQRT, "sqrt", f64::sqrt, generated crate::interp::__deegen_lib_math_sqrt);
math1!(ABS, "abs", f64::abs, generated crate::interp::__deegen_lib_math_abs);
math1!(SIN, "sin", f64::sin);
math1!(COS, "cos", f64::cos);
math1!(TAN, "tan", f64::tan);
math1!(EXP, "exp", f64::exp);
math1!(LOG, "log", f64::ln);
math1!(LOG10, "log10", f64::log10);
math1!(ASIN, "asin", f64::asin);
math1!(ACOS, "acos", f64::acos);
math1!(ATAN, "atan", f64::atan);
math1!(SINH, "sinh", f64::sinh);
math1!(COSH, "cosh", f64::cosh);
math1!(TANH, "tanh", f64::tanh);
math1!(DEG, "deg", |x| x * (180.0 / std::f64::consts::PI));
math1!(RAD, "rad", |x| x * (std::f64::consts::PI / 180.0));

// `f(check(1), check(2))` in 5.1's C: the reference build evaluates a call's arguments right
// to left, so the second argument is checked first, and a call with both wrong names the
// second (`math.pow()`: "bad argument #2"). `ATAN2`, `LDEXP`, `FMOD` and `POW` check in that
// order.
native!(ATAN2, "atan2", |c| {
    let x = c.check_number(1)?;
    let y = c.check_number(0)?;
    c.set(0, TValue::from_f64_canonical(y.atan2(x)));
    Ok(1)
});

native!(MODF, "modf", |c| {
    let x = c.check_number(0)?;
    let int = x.trunc();
    // lua5.1 calls C's modf: the fraction has the sign of `x`, a zero included (`-3` gives
    // `-0`), and an infinity's is a zero of its sign.
    let frac = if x.is_infinite() {
        0.0f64.copysign(x)
    } else if x.is_nan() {
        x
    } else {
        (x - int).copysign(x)
    };
    c.set(0, TValue::from_f64_canonical(int));
    c.set(1, TValue::from_f64_canonical(frac));
    Ok(2)
});

native!(FREXP, "frexp", |c| {
    extern "C" {
        fn frexp(x: f64, exp: *mut std::ffi::c_int) -> f64;
    }
    let x = c.check_number(0)?;
    let mut e: std::ffi::c_int = 0;
    let m = unsafe { frexp(x, &mut e) };
    c.set(0, TValue::from_f64_canonical(m));
    c.set(1, TValue::from_f64(f64::from(e)));
    Ok(2)
});

native!(LDEXP, "ldexp", |c| {
    extern "C" {
        fn ldexp(x: f64, exp: std::ffi::c_int) -> f64;
    }
    // (The second argument first: see `ATAN2`.)
    let e = c.check_int(1)?;
    let m = c.check_number(0)?;
    c.set(0, TValue::from_f64_canonical(unsafe { ldexp(m, e as std::ffi::c_int) }));
    Ok(1)
});

native!(FMOD, "fmod", |c| {
    let b = c.check_number(1)?;
    let a = c.check_number(0)?;
    c.set(0, TValue::from_f64_canonical(a % b));
    Ok(1)
});

native!(POW, "pow", |c| {
    let b = c.check_number(1)?;
    let a = c.check_number(0)?;
    c.set(0, TValue::from_f64_canonical(a.powf(b)));
    Ok(1)
});

native!(MAX, "max", generated crate::interp::__deegen_lib_math_max, |c| {
    let mut m = c.check_number(0)?;
    for i in 1..c.nargs {
        let x = c.check_number(i)?;
        if x > m {
            m = x;
        }
    }
    c.set(0, TValue::from_f64_canonical(m));
    Ok(1)
});

native!(MIN, "min", generated crate::interp::__deegen_lib_math_min, |c| {
    let mut m = c.check_number(0)?;
    for i in 1..c.nargs {
        let x = c.check_number(i)?;
        if x < m {
            m = x;
        }
    }
    c.set(0, TValue::from_f64_canonical(m));
    Ok(1)
});

extern "C" {
    fn rand() -> std::ffi::c_int;
    fn srand(seed: std::ffi::c_uint);
}

/// glibc's `RAND_MAX`, which lua5.1's `math.random` divides by.
const RAND_MAX: f64 = 2147483647.0;

native!(RANDOM, "random", |c| {
    // Exactly lua5.1's formula over the C library's rand(), so seeded sequences match.
    let r = f64::from(unsafe { rand() } % (RAND_MAX as i32)) / RAND_MAX;
    let v = match c.nargs {
        0 => r,
        1 => {
            let u = c.check_int(0)?;
            if u < 1 {
                return Err(c.arg_error(0, "interval is empty"));
            }
            (r * u as f64).floor() + 1.0
        }
        2 => {
            let (l, u) = (c.check_int(0)?, c.check_int(1)?);
            if l > u {
                return Err(c.arg_error(1, "interval is empty"));
            }
            (r * (u - l + 1) as f64).floor() + l as f64
        }
        _ => return Err(c.error("wrong number of arguments")),
    };
    c.set(0, TValue::from_f64(v));
    Ok(1)
});

native!(RANDOMSEED, "randomseed", |c| {
    let seed = c.check_int(0)?;
    unsafe { srand(seed as std::ffi::c_uint) };
    Ok(0)
});

/// LUA_COMPAT_MOD: 5.1's old name of `fmod`, the same function.
const MOD: Native = Native { name: "mod", ..FMOD };

/// The math library's functions, by their Lua names.
pub(crate) const FUNCTIONS: &[Native] = &[
    FLOOR, CEIL, SQRT, ABS, SIN, COS, TAN, EXP, LOG, LOG10, FMOD, MOD, POW, MAX, MIN, RANDOM, RANDOMSEED, ASIN, ACOS, ATAN, ATAN2, SINH, COSH, TANH,
    DEG, RAD, MODF, FREXP, LDEXP,
];

/// Opens the math library (the global `math`, with `pi` and `huge`), and returns it.
pub fn open(st: &mut LuaState) -> Result<TValue, OutOfMemory> {
    let math = new_library(st, "math", FUNCTIONS)?;
    for (name, value) in [("pi", std::f64::consts::PI), ("huge", f64::INFINITY)] {
        let key = st.intern(name.as_bytes())?;
        table_mut(math).set(key, TValue::from_f64(value)).expect("string keys are valid");
    }
    Ok(math)
}
