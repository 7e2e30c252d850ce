//! A sound upper bound on what one evaluation of a simple expression can cost, linear in the size of the values its
//! variables hold ([`Program::cost_bound`]).
//!
//! kube-apiserver renders every messageExpression after the validations, with what is left of the budget, even when
//! no validation failed and no message is used: what rendering can change then is only whether the budget runs out.
//! An expression made of literals, the named variables, field selections, indexes, operators and conditionals costs
//! at most a fixed amount plus an amount proportional to the size of those variables' values (every string, list or
//! map read from them is no larger; a concatenation is no larger than its operands together). When that bound leaves
//! the budget unexhausted, an engine may skip rendering messages nobody reads, and still decide as upstream does.
//! Anything else (calls, comprehensions, list or map literals, optional selections, other names) has no bound here.

use cel_core::{BinaryOp, Expr, SpannedExpr};

use crate::Program;
use crate::eval::Compiled;

/// `fixed + per_size * size`: an upper bound on an evaluation's cost, where `size` is at least the length of every
/// string and the number of entries of every list and map the bounded variables hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CostBound {
    pub fixed: u64,
    pub per_size: u64,
}

impl CostBound {
    /// The bound for values of at most `size` (saturating: a bound too large to count bounds nothing).
    pub fn at(self, size: u64) -> u64 {
        self.fixed
            .saturating_add(self.per_size.saturating_mul(size))
    }
}

/// A linear amount `a + b * size`.
#[derive(Clone, Copy, Default)]
struct Linear {
    a: u64,
    b: u64,
}

impl Linear {
    const ONE: Linear = Linear { a: 1, b: 0 };
    const SIZE: Linear = Linear { a: 0, b: 1 };

    fn plus(self, o: Linear) -> Linear {
        Linear {
            a: self.a.saturating_add(o.a),
            b: self.b.saturating_add(o.b),
        }
    }
}

/// What an expression can cost and how large its value can be.
#[derive(Clone, Copy)]
struct Bounds {
    cost: Linear,
    size: Linear,
}

impl Program {
    /// An upper bound on the cost of one evaluation of this program, when every value the variables named in `sized`
    /// hold has at most `size` characters or entries (the caller's promise: for a request object, the size of the
    /// text it was read from). `None` when the expression is not of the simple kind this bounds (see the module
    /// documentation).
    pub fn cost_bound(&self, sized: &[&str]) -> Option<CostBound> {
        let compiled = self.compiled();
        let b = bounds(&compiled.expr, &Cx { compiled, sized })?;
        Some(CostBound {
            fixed: b.cost.a,
            per_size: b.cost.b,
        })
    }
}

struct Cx<'p> {
    compiled: &'p Compiled,
    sized: &'p [&'p str],
}

impl Cx<'_> {
    /// Whether `e`, an identifier `name`, reads one of the sized variables (not a name the checker resolved to
    /// something else, a qualified name or a constant).
    fn is_sized(&self, e: &SpannedExpr, name: &str) -> bool {
        self.sized.contains(&name)
            && self
                .compiled
                .refs
                .get(&e.id)
                .is_none_or(|r| r.name == name && r.value.is_none())
    }

    /// Whether `e` is a `dyn(…)` the compiler wrapped around an index (evaluated as its argument, free).
    fn is_synthetic(&self, e: &SpannedExpr) -> bool {
        self.compiled.synthetic.contains(&e.id) && !self.compiled.consts.contains_key(&e.id)
    }
}

/// Each node is counted one more than the evaluator charges for it, so that the bound holds with room to spare.
fn bounds(e: &SpannedExpr, cx: &Cx<'_>) -> Option<Bounds> {
    let literal = |size: usize| Bounds {
        cost: Linear::ONE,
        size: Linear {
            a: size as u64,
            b: 0,
        },
    };
    let scalar = |cost: Linear| Bounds {
        cost: cost.plus(Linear::ONE),
        size: Linear::ONE,
    };
    Some(match &e.node {
        Expr::Null | Expr::Bool(_) | Expr::Int(_) | Expr::UInt(_) | Expr::Float(_) => literal(1),
        Expr::String(s) => literal(s.len()),
        Expr::Ident(name) if cx.is_sized(e, name) => Bounds {
            cost: Linear { a: 2, b: 0 },
            size: Linear::SIZE,
        },
        // a selection the checker resolved to a qualified name (a composited variable, say) is evaluated as that name
        Expr::Member {
            expr,
            optional: false,
            ..
        } if !cx.compiled.refs.contains_key(&e.id) => {
            let inner = bounds(expr, cx)?;
            Bounds {
                cost: inner.cost.plus(Linear { a: 2, b: 0 }),
                size: inner.size,
            }
        }
        Expr::Index {
            expr,
            index,
            optional: false,
        } => {
            let (inner, key) = (bounds(expr, cx)?, bounds(index, cx)?);
            Bounds {
                cost: inner.cost.plus(key.cost).plus(Linear { a: 2, b: 0 }),
                size: inner.size,
            }
        }
        Expr::Unary { expr, .. } => scalar(bounds(expr, cx)?.cost),
        Expr::Binary { op, left, right } => {
            let (l, r) = (bounds(left, cx)?, bounds(right, cx)?);
            // every operator charges at most one plus the sizes of its operands (`+` of strings a tenth of them,
            // of lists or maps at most one per entry; comparisons and `in` at most one per entry or character)
            let cost = l.cost.plus(r.cost).plus(l.size).plus(r.size);
            match op {
                BinaryOp::Add => Bounds {
                    cost: cost.plus(Linear::ONE),
                    size: l.size.plus(r.size),
                },
                _ => scalar(cost),
            }
        }
        Expr::Ternary {
            cond,
            then_expr,
            else_expr,
        } => {
            let (c, t, f) = (
                bounds(cond, cx)?,
                bounds(then_expr, cx)?,
                bounds(else_expr, cx)?,
            );
            Bounds {
                cost: c.cost.plus(t.cost).plus(f.cost).plus(Linear::ONE),
                size: t.size.plus(f.size),
            }
        }
        Expr::Call { args, .. } if cx.is_synthetic(e) => match args.as_slice() {
            [arg] => {
                let inner = bounds(arg, cx)?;
                Bounds {
                    cost: inner.cost.plus(Linear::ONE),
                    size: inner.size,
                }
            }
            _ => return None,
        },
        _ => return None,
    })
}
