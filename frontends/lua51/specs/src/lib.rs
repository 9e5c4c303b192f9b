//! The Lua 5.1 bytecode specs, as data.
//!
//! This is one half of what a language implementer writes (the other half is the semantics in
//! `lua51-semantics`). The generator reads this list natively at build time; nothing here is
//! tier-specific.
//!
//! Conventions of the Lua bytecode:
//! * comparisons are conditional branches (`JumpIfLt` jumps when `lhs < rhs`); the negated forms
//!   exist because `not (a < b)` is not `b <= a` once NaN is involved;
//! * a call is made in place: the callee sits in slot `f`, slots `f+1..f+3` are left for the
//!   frame header, and arguments start at `f+4` (see `deegen_api::FRAME_HEADER_SLOTS`); results
//!   are stored from slot `f`. `num_results == MULTRET` keeps every result and records their
//!   number; `CallVarArgs` / `ReturnVarArgs` then take that many values after their fixed ones
//!   (`f(a, g())`, `return a, g()`);
//! * a numeric `for` owns four consecutive slots: index, limit, step, and the visible loop
//!   variable. `ForPrep` checks and enters the loop (or jumps past it), `ForLoop` steps and jumps
//!   back to the body.

use deegen_bytecode_spec::{
    BytecodeSpec, LatticeError, LibFunctionSpec, OperandAccess, OperandKind, OperandSpec, ResultKind, TypeLattice, VariantChoice,
};

/// What the two tag registers hold (`tag-register-rewrite`): the boxing scheme's most used
/// 64-bit constants. `is_double` compares against the first (`v < DOUBLE_MAX_BITS + 1`),
/// every heap access masks with the second.
pub const TAG_REGISTERS: [u64; 2] = [lua51_value::DOUBLE_MAX_BITS + 1, lua51_value::POINTER_MASK];

/// The NaN-boxing (`nan-check-fusion`): a value is a double iff its bits are below this, and
/// every pattern at or above it (the tags) is a NaN when read as a double.
pub const NAN_BOXED_DOUBLES_BELOW: u64 = lua51_value::DOUBLE_MAX_BITS + 1;

/// The types of Lua values, and the `TValue` methods the semantics test them with
/// (`type-check-strength-reduction`). Costs count the work on x86-64: a compare against a tag
/// register or a tag is 1 (strings, tables and functions have tags of their own); a userdata
/// test compares the shared tag and loads the header's kind (3). The `heap_is_*` forms are
/// correct only on heap values, which is what the pass uses them for once it knows the value is
/// one; with their own tags they cost what the full tests do.
pub fn type_lattice() -> Result<TypeLattice, LatticeError> {
    const HEAP: &[&str] = &["string", "table", "function", "userdata", "thread"];
    let mut l = TypeLattice {
        types: ["nil", "boolean", "number", "string", "table", "function", "userdata", "thread"].map(String::from).to_vec(),
        ..Default::default()
    };
    l.add_checker("lua51_value::TValue::is_nil", &["nil"], &[], 1)?;
    l.add_checker("lua51_value::TValue::is_bool", &["boolean"], &[], 1)?;
    l.add_checker("lua51_value::TValue::is_double", &["number"], &[], 1)?;
    l.add_checker("lua51_value::TValue::is_heap", HEAP, &[], 1)?;
    for kind in ["string", "table", "function"] {
        l.add_checker(&format!("lua51_value::TValue::is_{kind}"), &[kind], &[], 1)?;
        l.add_checker(&format!("lua51_value::TValue::heap_is_{kind}"), &[kind], HEAP, 1)?;
    }
    l.add_checker("lua51_value::TValue::is_userdata", &["userdata"], &[], 3)?;
    // Only functions reach `make_call`: anything else goes through `__call` first.
    l.set_callable(&["function"])?;
    Ok(l)
}

/// The inline cache of GetGlobal, SetGlobal and InitField (a constructor's named field): the
/// shape id and named slot of the last hit, or the hash slot for a dictionary table (see
/// `TableObject::string_slot_cached`), fused into the opcode: one quickened variant per kind
/// of state (named slots inline or out of line, metatable or not; see
/// `lua51_value::string_slot_cached_fused`).
const FUSED_SLOT_CACHE: OperandKind = OperandKind::FusedInlineCache { bytes: 8, kinds: lua51_value::TABLE_IC_KINDS as u8 };

/// [`FUSED_SLOT_CACHE`] with [`lua51_value::FIELD_IC_WAYS`] entries (GetField, SetField): a field
/// site sees as many hidden classes as the classes whose instances reach it (a base class's
/// method on its subclasses' objects), and one entry made every second access a miss.
/// Globals live in one table: one entry is enough there.
const FUSED_FIELD_CACHE: OperandKind =
    OperandKind::FusedInlineCache { bytes: 8 * lua51_value::FIELD_IC_WAYS as u8, kinds: lua51_value::TABLE_IC_KINDS as u8 };

/// GetMethod's receiver cache (where the instance keeps the name, or that it lacks it), with
/// [`lua51_value::FIELD_IC_WAYS`] entries for the same reason as [`FUSED_FIELD_CACHE`].
const RECEIVER_CACHE: OperandKind = OperandKind::InlineCache { bytes: 8 * lua51_value::FIELD_IC_WAYS as u8 };

/// GetMethod's method cache, shared along the `__index` chain: the classes that hold the
/// method, [`lua51_value::METHOD_IC_WAYS`] of them (one call site over a list of instances of
/// several classes finds the method in several).
const METHOD_CACHE: OperandKind = OperandKind::InlineCache { bytes: 8 * lua51_value::METHOD_IC_WAYS as u8 };

const S: OperandAccess = OperandAccess::Slot;
const C: OperandAccess = OperandAccess::Constant;

/// Arithmetic never needs constant-constant variants: the parser folds those.
const BINARY_VARIANTS: [VariantChoice; 3] = [&[S, S], &[S, C], &[C, S]];

fn op(name: &'static str, kind: OperandKind) -> OperandSpec {
    OperandSpec::new(name, kind)
}

/// The returns' `close` literal: 1 where the function may have captured locals to close (it
/// makes closures), 0 where it cannot. Both values get variants without the byte, so the
/// compiler can switch a return between them in place once it knows the function.
const CLOSE: OperandSpec = OperandSpec::new("close", OperandKind::Literal { width: 1, signed: false }).specialized(&[0, 1]);

fn u16_lit() -> OperandKind {
    OperandKind::Literal { width: 2, signed: false }
}

fn u32_lit() -> OperandKind {
    OperandKind::Literal { width: 4, signed: false }
}

fn binary(name: &'static str, semantics: &'static str, result: ResultKind) -> BytecodeSpec {
    BytecodeSpec {
        name,
        operands: vec![op("lhs", OperandKind::SlotOrConstant), op("rhs", OperandKind::SlotOrConstant)],
        result,
        semantics,
        variants: BINARY_VARIANTS.to_vec(),
    }
}

/// `lhs == rhs` as a branch. A constant `rhs` of type nil, boolean or string, or number gets a
/// variant of its own: knowing the type, `type-check-strength-reduction` folds the equality to
/// one compare (against the nil immediate, or the constant: a nil never calls `__eq`, strings
/// are interned, and `__eq` needs two tables or two userdata), and the dead `__eq` call takes
/// no call cache.
fn equality(name: &'static str, semantics: &'static str) -> BytecodeSpec {
    BytecodeSpec {
        name,
        operands: vec![
            op("lhs", OperandKind::SlotOrConstant),
            op("rhs", OperandKind::SlotOrConstant).specialized_constant(&[&["nil"], &["boolean", "string"], &["number"]]),
        ],
        result: ResultKind::Branch,
        semantics,
        variants: vec![&[S, S], &[S, C]],
    }
}

/// `lhs / k` and `lhs % k` for a number constant `k` that is a power of two, with its
/// reciprocal as a second constant (`x / 2`, `n % 2`): the quotient is a multiply (see
/// `lua_div_pow2`). The compiler picks these when `k` and `1/k` are both powers of two, and
/// loading a binary chunk checks the same (`dump::verify`), so both constants are numbers by
/// construction: no variants on their types (which would be four per bytecode, three never
/// emitted), and the semantics test only `lhs`.
fn by_power_of_two(name: &'static str, semantics: &'static str) -> BytecodeSpec {
    BytecodeSpec {
        name,
        operands: vec![op("lhs", OperandKind::Slot).hinted(NUMBER), op("rhs", OperandKind::Constant), op("inverse", OperandKind::Constant)],
        result: ResultKind::Value,
        semantics,
        variants: vec![],
    }
}

fn unary(name: &'static str, semantics: &'static str) -> BytecodeSpec {
    BytecodeSpec { name, operands: vec![op("src", OperandKind::Slot)], result: ResultKind::Value, semantics, variants: vec![] }
}

/// Type hints (the paper's type-based slow paths): what an operand's value usually is. Paths
/// for other types are outlined from the handler (`type-hint-slow-paths`, `hot-cold-split`).
const NUMBER: &[&str] = &["number"];
const TABLE: &[&str] = &["table"];

/// Arithmetic and ordering: numbers are the fast path (strings and metamethods the slow one).
/// A number constant (`x + 1`, `i < 10`) gets variants of its own, in which the constant's tag
/// test folds away; a string constant (`x + "1"`) keeps the general variant.
fn numeric(spec: BytecodeSpec) -> BytecodeSpec {
    const NUMBER_CONSTANT: &[&[&str]] = &[NUMBER];
    let operands = spec
        .operands
        .into_iter()
        .map(|o| {
            let o = o.hinted(NUMBER);
            if o.kind == OperandKind::SlotOrConstant {
                o.specialized_constant(NUMBER_CONSTANT)
            } else {
                o
            }
        })
        .collect();
    BytecodeSpec { operands, ..spec }
}

/// Every Lua bytecode, in opcode order.
pub fn bytecodes() -> Vec<BytecodeSpec> {
    use OperandKind::*;
    use ResultKind::*;
    vec![
        BytecodeSpec { name: "Mov", operands: vec![op("src", SlotOrConstant)], result: Value, semantics: "lua_mov", variants: vec![] },
        numeric(binary("Add", "lua_add", Value)),
        numeric(binary("Sub", "lua_sub", Value)),
        numeric(binary("Mul", "lua_mul", Value)),
        numeric(binary("Div", "lua_div", Value)),
        numeric(binary("Mod", "lua_mod", Value)),
        by_power_of_two("DivPow2", "lua_div_pow2"),
        by_power_of_two("ModPow2", "lua_mod_pow2"),
        numeric(binary("Pow", "lua_pow", Value)),
        numeric(unary("Unm", "lua_unm")),
        unary("Not", "lua_not"),
        unary("Len", "lua_len"),
        BytecodeSpec {
            name: "Concat",
            // The destination is an operand, not the result: the semantics store it before the
            // collection check, as 5.1 does, so what it held is no longer a root then.
            operands: vec![op("first", SlotRef), op("count", u16_lit()), op("dst", SlotRef)],
            result: None,
            semantics: "lua_concat",
            variants: vec![],
        },
        numeric(binary("JumpIfLt", "lua_jump_if_lt", Branch)),
        numeric(binary("JumpIfNotLt", "lua_jump_if_not_lt", Branch)),
        numeric(binary("JumpIfLe", "lua_jump_if_le", Branch)),
        numeric(binary("JumpIfNotLe", "lua_jump_if_not_le", Branch)),
        equality("JumpIfEq", "lua_jump_if_eq"),
        equality("JumpIfNotEq", "lua_jump_if_not_eq"),
        BytecodeSpec { name: "JumpIfTruthy", operands: vec![op("src", Slot)], result: Branch, semantics: "lua_jump_if_truthy", variants: vec![] },
        BytecodeSpec { name: "JumpIfFalsy", operands: vec![op("src", Slot)], result: Branch, semantics: "lua_jump_if_falsy", variants: vec![] },
        BytecodeSpec { name: "Jump", operands: vec![], result: Branch, semantics: "lua_jump", variants: vec![] },
        BytecodeSpec { name: "ForPrep", operands: vec![op("base", SlotRef)], result: Branch, semantics: "lua_for_prep", variants: vec![] },
        BytecodeSpec {
            name: "ForLoop",
            // What the compiler knows of the step's sign (1: positive, 2: not positive, 0:
            // nothing, when the step is not a constant): the known ones get variants that
            // compare the index with the limit one way only.
            operands: vec![op("base", SlotRef), op("direction", OperandKind::Literal { width: 1, signed: false }).specialized(&[1, 2])],
            result: Branch,
            semantics: "lua_for_loop",
            variants: vec![],
        },
        BytecodeSpec {
            name: "GetGlobal",
            operands: vec![op("name", Constant), op("slot", FUSED_SLOT_CACHE)],
            result: Value,
            semantics: "lua_get_global",
            variants: vec![],
        },
        BytecodeSpec {
            name: "SetGlobal",
            operands: vec![op("name", Constant), op("value", Slot), op("slot", FUSED_SLOT_CACHE)],
            result: None,
            semantics: "lua_set_global",
            variants: vec![],
        },
        BytecodeSpec {
            name: "Call",
            // A call keeping no result, one (a statement, an expression) or two (`local ok, v =
            // pcall(f)`, `local i, j = s:find(p)`, `local k, v = next(t)`) gets its own
            // variants: the return continuation's copy loop folds to nothing, one store or two
            // (the generic loop was about 40 instructions for two results).
            operands: vec![op("frame", SlotRef), op("num_args", u16_lit()), op("num_results", u16_lit()).specialized(&[0, 1, 2])],
            result: None,
            semantics: "lua_call",
            variants: vec![],
        },
        BytecodeSpec {
            name: "CallVarArgs",
            operands: vec![op("frame", SlotRef), op("num_fixed_args", u16_lit()), op("num_results", u16_lit())],
            result: None,
            semantics: "lua_call_var_args",
            variants: vec![],
        },
        BytecodeSpec {
            name: "TailCall",
            // The arguments move down over the caller's frame: with up to three of them (most
            // `return f(x)`, `return self:m(a, b)`) a variant of its own copies each with one
            // load and store, where the general loop took five instructions per argument and
            // four around them.
            // `close` as a return's: 0 where the function makes no closures, so the tail call
            // need not look for open upvalues of its frame.
            operands: vec![op("frame", SlotRef), op("num_args", u16_lit()).specialized(&[0, 1, 2, 3]), CLOSE],
            result: None,
            semantics: "lua_tail_call",
            variants: vec![],
        },
        BytecodeSpec {
            name: "TailCallVarArgs",
            operands: vec![op("frame", SlotRef), op("num_fixed_args", u16_lit()), CLOSE],
            result: None,
            semantics: "lua_tail_call_var_args",
            variants: vec![],
        },
        BytecodeSpec {
            name: "ReturnVarArgs",
            operands: vec![op("first", SlotRef), op("num_fixed", u16_lit()), CLOSE],
            result: None,
            semantics: "lua_return_var_args",
            variants: vec![],
        },
        BytecodeSpec {
            name: "Return",
            operands: vec![op("first", SlotRef), op("count", u16_lit()), CLOSE],
            result: None,
            semantics: "lua_return",
            variants: vec![],
        },
        BytecodeSpec {
            name: "NewTable",
            operands: vec![op("array", u16_lit()), op("hash", u16_lit())],
            result: Value,
            semantics: "lua_new_table",
            variants: vec![],
        },
        BytecodeSpec {
            name: "GetTable",
            operands: vec![op("table", Slot).hinted(TABLE), op("key", SlotOrConstant)],
            result: Value,
            semantics: "lua_get_table",
            variants: vec![&[S], &[C]],
        },
        // `t[i]` with a constant integer index that fits 16 bits (LuaJIT's TGETB/TSETB): the
        // index is a literal, so the array part is reached without converting a double.
        BytecodeSpec {
            name: "GetTableInt",
            operands: vec![op("table", Slot).hinted(TABLE), op("index", u16_lit())],
            result: Value,
            semantics: "lua_get_table_int",
            variants: vec![],
        },
        BytecodeSpec {
            name: "SetTableInt",
            operands: vec![op("table", Slot).hinted(TABLE), op("index", u16_lit()), op("value", SlotOrConstant)],
            result: None,
            semantics: "lua_set_table_int",
            variants: vec![],
        },
        BytecodeSpec {
            name: "SetTable",
            operands: vec![op("table", Slot).hinted(TABLE), op("key", SlotOrConstant), op("value", SlotOrConstant)],
            result: None,
            semantics: "lua_set_table",
            variants: vec![],
        },
        // `t.name`: a constant string key (the compiler picks these over GetTable/SetTable when
        // the key constant is a string), so the handler has only the string probe, without
        // the array and number paths (and the registers they need).
        BytecodeSpec {
            name: "GetField",
            operands: vec![op("table", Slot).hinted(TABLE), op("name", Constant), op("slot", FUSED_FIELD_CACHE)],
            result: Value,
            semantics: "lua_get_field",
            variants: vec![],
        },
        BytecodeSpec {
            name: "SetField",
            operands: vec![op("table", Slot).hinted(TABLE), op("name", Constant), op("value", SlotOrConstant), op("slot", FUSED_FIELD_CACHE)],
            result: None,
            semantics: "lua_set_field",
            variants: vec![],
        },
        // `{ name = value }` in a table constructor, on the table it just made (no metatable,
        // nothing else sees it yet): the key gets its named slot even when the value is nil, so
        // every table one constructor makes has the same hidden class whichever of its fields
        // were nil, and a field given a value later fills its slot instead of adding a key.
        // Each site makes one sequence of hidden classes: one cache entry.
        BytecodeSpec {
            name: "InitField",
            operands: vec![op("table", Slot), op("name", Constant), op("value", SlotOrConstant), op("slot", FUSED_SLOT_CACHE)],
            result: None,
            semantics: "lua_init_field",
            variants: vec![],
        },
        BytecodeSpec {
            name: "GetMethod",
            operands: vec![
                op("object", Slot),
                op("name", Constant),
                op("frame", SlotRef),
                op("receiver", RECEIVER_CACHE),
                op("method", METHOD_CACHE),
            ],
            result: None,
            semantics: "lua_get_method",
            variants: vec![],
        },
        BytecodeSpec {
            name: "SetList",
            operands: vec![
                op("table", Slot),
                op("values", SlotRef),
                op("count", u16_lit()),
                op("first_index", OperandKind::Literal { width: 4, signed: false }),
            ],
            result: None,
            semantics: "lua_set_list",
            variants: vec![],
        },
        BytecodeSpec {
            name: "SetListVarArgs",
            operands: vec![
                op("table", Slot),
                op("values", SlotRef),
                op("num_fixed", u16_lit()),
                op("first_index", OperandKind::Literal { width: 4, signed: false }),
            ],
            result: None,
            semantics: "lua_set_list_var_args",
            variants: vec![],
        },
        BytecodeSpec {
            name: "VarArg",
            operands: vec![op("dst", SlotRef), op("count", u16_lit())],
            result: None,
            semantics: "lua_vararg",
            variants: vec![],
        },
        BytecodeSpec {
            name: "ForIn",
            operands: vec![op("base", SlotRef), op("num_vars", u16_lit())],
            result: Branch,
            semantics: "lua_for_in",
            variants: vec![],
        },
        BytecodeSpec { name: "NewClosure", operands: vec![op("proto", Constant)], result: Value, semantics: "lua_new_closure", variants: vec![] },
        // Most functions use their first few upvalues (a recursive local function's own name,
        // a module's locals): variants for those index the closure's upvalues with a constant
        // offset, where the general one (in a JIT stencil) materialised the index first.
        BytecodeSpec {
            name: "GetUpval",
            operands: vec![op("index", u16_lit()).specialized(&[0, 1, 2, 3])],
            result: Value,
            semantics: "lua_get_upval",
            variants: vec![],
        },
        BytecodeSpec {
            name: "SetUpval",
            operands: vec![op("index", u16_lit()).specialized(&[0, 1, 2]), op("value", Slot)],
            result: None,
            semantics: "lua_set_upval",
            variants: vec![],
        },
        BytecodeSpec { name: "Close", operands: vec![op("from", SlotRef)], result: None, semantics: "lua_close", variants: vec![] },
        // Constants past the 16-bit operands: 5.1 allows 2^18 - 1 per function (MAXARG_Bx), so
        // the compiler loads those into a slot, and reaches globals and nested functions named
        // by them through these (no inline cache: only very big functions use them).
        BytecodeSpec {
            name: "LoadConstWide",
            operands: vec![op("index", u32_lit())],
            result: Value,
            semantics: "lua_load_const_wide",
            variants: vec![],
        },
        BytecodeSpec {
            name: "GetGlobalWide",
            operands: vec![op("name", u32_lit())],
            result: Value,
            semantics: "lua_get_global_wide",
            variants: vec![],
        },
        BytecodeSpec {
            name: "SetGlobalWide",
            operands: vec![op("name", u32_lit()), op("value", Slot)],
            result: None,
            semantics: "lua_set_global_wide",
            variants: vec![],
        },
        BytecodeSpec {
            name: "NewClosureWide",
            operands: vec![op("proto", u32_lit())],
            result: Value,
            semantics: "lua_new_closure_wide",
            variants: vec![],
        },
    ]
}

/// The library functions written in the semantics (`lua_lib_*`) rather than as native code:
/// calling one is a call into generated code, and a call it makes is made in place with a
/// return continuation (no native frame, no re-entry of the interpreter). The runtime gives
/// their function values these entries (`lua51_vm::native`), and keeps a native twin of each
/// for what generated code does not do: the debug hooks' call and return events, and the rare
/// cases a fast path hands over whole (argument errors, metamethods).
pub fn library() -> Vec<LibFunctionSpec> {
    let mut functions = vec![
        LibFunctionSpec::new("pcall", "lua_lib_pcall").catching("lua_lib_pcall_catch"),
        LibFunctionSpec::new("xpcall", "lua_lib_xpcall").catching("lua_lib_xpcall_catch"),
        LibFunctionSpec::new("coroutine_resume", "lua_lib_coroutine_resume").catching("lua_lib_coroutine_resume_catch"),
        LibFunctionSpec::new("coroutine_wrapped", "lua_lib_coroutine_wrapped").catching("lua_lib_coroutine_wrapped_catch"),
        LibFunctionSpec::new("coroutine_yield", "lua_lib_coroutine_yield"),
        LibFunctionSpec::new("coroutine_status", "lua_lib_coroutine_status"),
        LibFunctionSpec::new("coroutine_create", "lua_lib_coroutine_create"),
        LibFunctionSpec::new("coroutine_running", "lua_lib_coroutine_running"),
    ];
    for name in [
        "type",
        "select",
        "rawget",
        "rawset",
        "rawequal",
        "setmetatable",
        "error",
        "next",
        "pairs",
        "ipairs",
        "unpack",
        "table_insert",
        "assert",
        "getmetatable",
        "tostring",
        "tonumber",
        "string_len",
        "string_byte",
        "string_sub",
        "math_floor",
        "math_ceil",
        "math_sqrt",
        "math_abs",
        "math_max",
        "math_min",
    ] {
        functions.push(LibFunctionSpec::new(name, &format!("lua_lib_{name}")));
    }
    functions
}

#[cfg(test)]
mod tests {
    #[test]
    fn specs_resolve() {
        let variants = deegen_bytecode_spec::resolve_variants(&super::bytecodes()).unwrap();
        assert!(variants.iter().any(|v| v.name == "Add_SC"));
        assert!(!variants.iter().any(|v| v.name == "Add_CC"));
    }
}
