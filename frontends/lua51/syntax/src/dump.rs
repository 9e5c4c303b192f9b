//! A compact, deterministic rendering of the AST as S-expressions, for tests
//! and debugging. Every node shows its structure explicitly, so precedence
//! and associativity are visible: `1 + 2 * 3` renders as `(+ 1 (* 2 3))`.
//!
//! Format (lines are not shown; inspect the fields for those):
//!
//! * blocks: `[stat stat ...]`; a [`Chunk`] renders its top-level
//!   statements one per line;
//! * statements: `(local (a b) (1 2))`, `(local-function f (function ...))`,
//!   `(function a.b:m (function ...))`, `(assign (t1 t2) (v1 v2))`, a call
//!   statement as its call, `(do [..])`, `(while c [..])`, `(repeat [..] c)`,
//!   `(if c [..] (elseif c [..]) (else [..]))`, `(for i a b [step] [..])`,
//!   `(for-in (k v) (e1 e2) [..])`, `(return e ...)`, `(break)`;
//! * expressions: `nil`, `true`, `false`, numbers (integral values without
//!   a fraction), quoted strings, `...`, bare names, `(index o k)`,
//!   `(call f args...)`, `(method o name args...)`, `(paren e)`,
//!   `(not e)`/`(neg e)`/`(len e)`, `(op a b)` with the Lua operator symbol,
//!   `(function (params [...]) [..])` (methods show their implicit `self`),
//!   `(table 1 x=2 [k]=v)`.

use std::fmt::{self, Display, Formatter, Write};

use crate::ast::*;

fn join<T: Display>(f: &mut Formatter<'_>, items: &[T]) -> fmt::Result {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            f.write_char(' ')?;
        }
        write!(f, "{item}")?;
    }
    Ok(())
}

fn name(f: &mut Formatter<'_>, n: &LuaStr) -> fmt::Result {
    f.write_str(&String::from_utf8_lossy(n))
}

fn names(f: &mut Formatter<'_>, ns: &[LuaStr]) -> fmt::Result {
    f.write_char('(')?;
    for (i, n) in ns.iter().enumerate() {
        if i > 0 {
            f.write_char(' ')?;
        }
        name(f, n)?;
    }
    f.write_char(')')
}

/// Formats a number deterministically: integral values in `i64` range as
/// integers, everything else with Rust's shortest round-trip form.
pub(crate) fn number(f: &mut Formatter<'_>, v: f64) -> fmt::Result {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        write!(f, "{}", v as i64)
    } else {
        write!(f, "{v:?}")
    }
}

impl Display for Chunk {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        for (i, s) in self.body.stats.iter().enumerate() {
            if i > 0 {
                f.write_char('\n')?;
            }
            write!(f, "{s}")?;
        }
        Ok(())
    }
}

impl Display for Block {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_char('[')?;
        join(f, &self.stats)?;
        f.write_char(']')
    }
}

impl Display for Stat {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match &self.kind {
            StatKind::Assign { targets, values } => {
                f.write_str("(assign (")?;
                join(f, targets)?;
                f.write_str(") (")?;
                join(f, values)?;
                f.write_str("))")
            }
            StatKind::Call(call) => write!(f, "{call}"),
            StatKind::Local { names: ns, values } => {
                f.write_str("(local ")?;
                names(f, ns)?;
                f.write_str(" (")?;
                join(f, values)?;
                f.write_str("))")
            }
            StatKind::LocalFunction { name: n, func } => {
                f.write_str("(local-function ")?;
                name(f, n)?;
                write!(f, " {func})")
            }
            StatKind::Function { name: n, func } => {
                f.write_str("(function ")?;
                name(f, &n.base)?;
                for field in &n.fields {
                    f.write_char('.')?;
                    name(f, field)?;
                }
                if let Some(m) = &n.method {
                    f.write_char(':')?;
                    name(f, m)?;
                }
                write!(f, " {func})")
            }
            StatKind::Do(b) => write!(f, "(do {b})"),
            StatKind::While { cond, body } => write!(f, "(while {cond} {body})"),
            StatKind::Repeat { body, cond } => write!(f, "(repeat {body} {cond})"),
            StatKind::If { clauses, else_block } => {
                f.write_str("(if")?;
                for (i, c) in clauses.iter().enumerate() {
                    if i == 0 {
                        write!(f, " {} {}", c.cond, c.body)?;
                    } else {
                        write!(f, " (elseif {} {})", c.cond, c.body)?;
                    }
                }
                if let Some(b) = else_block {
                    write!(f, " (else {b})")?;
                }
                f.write_char(')')
            }
            StatKind::NumericFor(for_) => {
                let NumericFor { var, start, limit, step, body } = &**for_;
                f.write_str("(for ")?;
                name(f, var)?;
                write!(f, " {start} {limit}")?;
                if let Some(step) = step {
                    write!(f, " {step}")?;
                }
                write!(f, " {body})")
            }
            StatKind::GenericFor { vars, exprs, body, .. } => {
                f.write_str("(for-in ")?;
                names(f, vars)?;
                f.write_str(" (")?;
                join(f, exprs)?;
                write!(f, ") {body})")
            }
            StatKind::Return(values) => {
                f.write_str("(return")?;
                for v in values {
                    write!(f, " {v}")?;
                }
                f.write_char(')')
            }
            StatKind::Break => f.write_str("(break)"),
        }
    }
}

impl Display for FuncBody {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str("(function (")?;
        let mut first = true;
        let mut sep = |f: &mut Formatter<'_>| {
            if !std::mem::take(&mut first) {
                f.write_char(' ')?;
            }
            Ok(())
        };
        if self.is_method {
            sep(f)?;
            f.write_str("self")?;
        }
        for p in &self.params {
            sep(f)?;
            name(f, p)?;
        }
        if self.is_vararg {
            sep(f)?;
            f.write_str("...")?;
        }
        write!(f, ") {})", self.body)
    }
}

impl Display for TableField {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            TableField::Positional(e) => write!(f, "{e}"),
            TableField::Named { name: n, value } => {
                name(f, n)?;
                write!(f, "={value}")
            }
            TableField::Keyed { key, value } => write!(f, "[{key}]={value}"),
        }
    }
}

impl Display for Expr {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ExprKind::Nil => f.write_str("nil"),
            ExprKind::True => f.write_str("true"),
            ExprKind::False => f.write_str("false"),
            ExprKind::Number(v) => number(f, *v),
            ExprKind::String(s) => write!(f, "{s}"),
            ExprKind::Vararg => f.write_str("..."),
            ExprKind::Function(body) => write!(f, "{body}"),
            ExprKind::Table(fields) => {
                f.write_str("(table")?;
                for field in fields {
                    write!(f, " {field}")?;
                }
                f.write_char(')')
            }
            ExprKind::Name(n) => name(f, n),
            ExprKind::Index { object, key } => write!(f, "(index {object} {key})"),
            ExprKind::Call { func, args } => {
                write!(f, "(call {func}")?;
                for a in args {
                    write!(f, " {a}")?;
                }
                f.write_char(')')
            }
            ExprKind::MethodCall(m) => {
                write!(f, "(method {} ", m.object)?;
                name(f, &m.method)?;
                for a in &m.args {
                    write!(f, " {a}")?;
                }
                f.write_char(')')
            }
            ExprKind::Paren(e) => write!(f, "(paren {e})"),
            ExprKind::Unary { op, operand } => {
                let op = match op {
                    UnOp::Not => "not",
                    UnOp::Neg => "neg",
                    UnOp::Len => "len",
                };
                write!(f, "({op} {operand})")
            }
            ExprKind::Binary { op, lhs, rhs } => write!(f, "({} {lhs} {rhs})", op.symbol()),
        }
    }
}
