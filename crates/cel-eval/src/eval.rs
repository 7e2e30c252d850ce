//! The tree-walking evaluator over cel-core's checked AST, with cel-go's runtime cost model.

use crate::ids::{IdMap, IdSet};
use std::rc::Rc;

use cel_core::{BinaryOp, ComprehensionData, Expr, ReferenceInfo, SpannedExpr, UnaryOp};

use crate::cost::{Budget, Dialect, Meter, Sizes};
use crate::error::EvalError;
use crate::functions::{self, Call, Method, Target};
use crate::value::{
    Const, ConstSet, List, Map, OwnedMap, Str, Type, Value, check_key, key_display,
};

/// Maximum evaluation nesting (expression depth plus nested variable evaluations).
pub const MAX_EVAL_DEPTH: u32 = 256;

/// cel-go's cost constants (common/cost.go).
pub const LIST_CREATE_COST: u64 = 10;
pub const MAP_CREATE_COST: u64 = 30;

/// The names an expression reads: what the evaluator asks of the variables bound for it (implemented by
/// [`crate::Activation`], which evaluates composited `variables.*` lazily through [`run`]).
pub trait Scope<'a> {
    /// Whether `name` is bound.
    fn has(&self, name: &str) -> bool;
    /// Exact-name lookup, used when no checker references exist.
    fn lookup_qualified(&self, name: &str) -> Option<Result<Value<'a>, EvalError>>;
    /// The value of a variable the checker resolved, evaluated (and charged to `budget`) on first use.
    fn resolve(&self, name: &str, budget: &mut Budget, depth: u32) -> Result<Value<'a>, EvalError>;
    /// The selections of request-object fields made in this evaluation, when the scope remembers them.
    fn selections(&self) -> Option<&crate::activation::Selections<'a>> {
        None
    }
}

/// A compiled expression: the AST, the checker's references, each call resolved once.
#[derive(Debug)]
pub struct Compiled {
    pub expr: SpannedExpr,
    pub refs: IdMap<ReferenceInfo>,
    /// Every call node's resolved function and literal regex (by node id).
    pub calls: IdMap<Call>,
    /// Constant list and map literals, built once when the program is compiled (by node id).
    pub consts: IdMap<Const>,
    /// `x in <constant list of primitives>` as a set lookup (by the id of the `in` node).
    pub sets: IdMap<ConstSet>,
    /// Whether any call (a conversion of a constant) was folded into `consts`.
    pub const_calls: bool,
    /// Ids of the `dyn(…)` calls the compiler inserted (free, unlike a written `dyn`).
    pub synthetic: IdSet,
    /// Ids of `has(…)` tests on a proto3 message bound as a map (approver-policy's `cr`):
    /// true only when the field is present and not its zero value.
    pub presence: IdSet,
    /// The container, for name resolution in unchecked programs.
    pub container: String,
    /// cel-go's `EnableErrorOnBadPresenceTest`: `has(x.f)` and `x.?f` on a value that is not a
    /// map fail instead of being absent (the cel-spec conformance suite turns it on).
    pub strict_presence: bool,
    /// Whose CEL the program follows (the strings extension's prices, the answers at the edges).
    pub dialect: Dialect,
}

type Slot<'a> = Result<Value<'a>, EvalError>;

pub struct Ctx<'p, 'a, 'c, S: ?Sized> {
    prog: &'p Compiled,
    pub act: &'c S,
    pub budget: &'c mut Budget,
    locals: Vec<(&'p str, Slot<'a>)>,
    depth: u32,
    /// Sizes of long strings and large objects, counted once per evaluation ([`Sizes`]).
    sizes: Sizes<'a>,
    /// Comprehension iterations so far ([`MAX_ITERATIONS`]).
    iterations: u64,
    /// The next identifier (or qualified name) evaluated is the root of a conditional's branch that cel-go resolves
    /// as an attribute, and costs nothing ([`Ctx::branch`]).
    free_root: bool,
}

/// Comprehension iterations one expression may run. cel-go charges some iterations nothing (`filter` and
/// `exists_one` dropping an element for a constant condition), so the cost limit alone would not stop loops nested
/// in such loops; kube-apiserver stops them when the request's time runs out, with cel-go's `operation interrupted`.
/// The bound is Kubernetes' per-expression cost limit: an expression whose iterations all cost something exceeds that
/// limit first, so only loops cel-go charges nothing for ever meet it.
pub const MAX_ITERATIONS: u64 = 1_000_000;

pub fn run<'a, S: Scope<'a> + ?Sized>(
    prog: &'a Compiled,
    act: &S,
    budget: &mut Budget,
    depth: u32,
) -> Result<Value<'a>, EvalError> {
    let mut ctx = Ctx {
        prog,
        act,
        budget,
        locals: Vec::new(),
        depth,
        sizes: Sizes::default(),
        iterations: 0,
        free_root: false,
    };
    ctx.eval(&prog.expr)
}

fn is_accu(name: &str) -> bool {
    name == "__result__" || name.starts_with("@ac:")
}

impl<'p: 'a, 'a, S: Scope<'a> + ?Sized> Ctx<'p, 'a, '_, S> {
    /// The cost meter of this evaluation, for the functions.
    pub fn meter(&mut self) -> Meter<'_, 'a> {
        Meter {
            budget: self.budget,
            sizes: &mut self.sizes,
            dialect: self.prog.dialect,
        }
    }

    /// cel-go's `actualSize` ([`Meter::size`]).
    pub fn size(&mut self, v: &Value<'a>) -> u64 {
        self.meter().size(v)
    }

    fn local(&self, name: &str) -> Option<&Slot<'a>> {
        self.locals
            .iter()
            .rev()
            .find(|(n, _)| n.len() == name.len() && palisade_json::same_str(n, name))
            .map(|(_, v)| v)
    }

    /// A list literal (out of line, as are the other rare arms of [`Ctx::eval`]: their temporaries would enlarge the
    /// frame of every nested evaluation, and nesting is what sets the stack's depth).
    #[inline(never)]
    fn list_literal(
        &mut self,
        e: &'p SpannedExpr,
        elems: &'p [cel_core::ListElement],
    ) -> Result<Value<'a>, EvalError> {
        if let Some(c) = self.prog.consts.get(&e.id) {
            // a folded constant: like any literal it costs nothing (cel-go's
            // InterpretableConst) and nothing is built
            return Ok(c.as_value());
        }
        let mut out = Vec::with_capacity(elems.len());
        for el in elems {
            let v = self.eval(&el.expr)?;
            if let Some(v) = element(v, el.optional)? {
                out.push(v);
            }
        }
        self.budget.charge(LIST_CREATE_COST)?;
        Ok(Value::list(out))
    }

    /// A map literal (out of line: [`Ctx::list_literal`]).
    #[inline(never)]
    fn map_literal(
        &mut self,
        e: &'p SpannedExpr,
        entries: &'p [cel_core::MapEntry],
    ) -> Result<Value<'a>, EvalError> {
        if let Some(c) = self.prog.consts.get(&e.id) {
            return Ok(c.as_value());
        }
        let mut out = OwnedMap::default();
        for en in entries {
            let k = self.eval(&en.key)?;
            check_key(&k)?;
            let Some(v) = element(self.eval(&en.value)?, en.optional)? else {
                continue;
            };
            if let Err(k) = out.insert(k, v) {
                return Err(EvalError::new(format!(
                    "Failed with repeated key: {}",
                    key_display(&k)
                )));
            }
        }
        self.budget.charge(MAP_CREATE_COST)?;
        Ok(Value::Map(Map::Owned(Rc::new(out))))
    }

    /// An identifier resolved in the program's container, innermost namespace first (cel-go's name resolution; out
    /// of line: [`Ctx::list_literal`]).
    #[inline(never)]
    fn global_in_container(&mut self, name: &str) -> Result<Value<'a>, EvalError> {
        let mut prefix = self.prog.container.as_str();
        loop {
            let candidate = format!("{prefix}.{name}");
            if self.act.has(&candidate) {
                return self.global(&candidate);
            }
            match prefix.rsplit_once('.') {
                Some((p, _)) => prefix = p,
                None => break,
            }
        }
        self.global(name)
    }

    pub fn eval(&mut self, e: &'p SpannedExpr) -> Result<Value<'a>, EvalError> {
        self.depth += 1;
        if self.depth > MAX_EVAL_DEPTH {
            self.depth -= 1;
            return Err(EvalError::depth());
        }
        let r = self.eval_inner(e);
        self.depth -= 1;
        r
    }

    fn eval_inner(&mut self, e: &'p SpannedExpr) -> Result<Value<'a>, EvalError> {
        match &e.node {
            Expr::Null => Ok(Value::Null),
            Expr::Bool(b) => Ok(Value::Bool(*b)),
            Expr::Int(i) => Ok(Value::Int(*i)),
            Expr::UInt(u) => Ok(Value::Uint(*u)),
            Expr::Float(f) => Ok(Value::Double(*f)),
            // borrowed from the program, which outlives the evaluation: nothing allocated or copied, and no count
            // written (in a fresh instance of a baked module, a write into the program copies a page of its image)
            Expr::String(s) => Ok(Value::String(Str::Borrowed(s.as_str()))),
            Expr::Bytes(b) => Ok(Value::Bytes(Rc::from(b.as_slice()))),
            Expr::Ident(name) => self.ident(e, name),
            Expr::RootIdent(name) => {
                self.budget.charge(1)?;
                self.global(name)
            }
            Expr::List(elems) => self.list_literal(e, elems),
            Expr::Map(entries) => self.map_literal(e, entries),
            Expr::Unary { op, expr } => {
                let v = self.eval(expr)?;
                self.budget.charge(1)?;
                match op {
                    UnaryOp::Not => match v {
                        Value::Bool(b) => Ok(Value::Bool(!b)),
                        _ => Err(EvalError::no_such_overload()),
                    },
                    UnaryOp::Neg => functions::negate(v),
                }
            }
            Expr::Binary {
                op: BinaryOp::In,
                left,
                ..
            } if let Some(set) = self.prog.sets.get(&e.id) => {
                // cel-go's evalSetMembership is not a call: the lookup itself is not charged
                let v = self.eval(left)?;
                set.contains(&v).map(Value::Bool)
            }
            Expr::Binary { op, left, right } => self.binary(*op, left, right),
            Expr::Ternary {
                cond,
                then_expr,
                else_expr,
            } => match self.eval(cond)? {
                Value::Bool(true) => self.branch(then_expr),
                Value::Bool(false) => self.branch(else_expr),
                _ => Err(EvalError::no_such_overload()),
            },
            Expr::Member {
                expr,
                field,
                optional,
            } => self.member(e, expr, field, *optional),
            Expr::Index {
                expr,
                index,
                optional,
            } => self.index(expr, index, *optional),
            Expr::MemberTestOnly { expr, field } => self.presence(e, expr, field),
            Expr::Call { expr, args } => {
                if self.prog.const_calls
                    && let Some(c) = self.prog.consts.get(&e.id)
                {
                    // a conversion of a constant, done when the program was compiled
                    return Ok(c.as_value());
                }
                if self.prog.synthetic.contains(&e.id)
                    && let Some(a) = args.first()
                {
                    return self.eval(a);
                }
                self.call(e, expr, args)
            }
            Expr::Struct { type_name, .. } => Err(EvalError::new(format!(
                "unknown type: {}",
                qualified_name(type_name).unwrap_or_default()
            ))),
            Expr::Comprehension(c) => self.comprehension(c),
            Expr::Bind {
                var_name,
                init,
                body,
            } => {
                let v = self.eval(init);
                if let Err(err) = &v
                    && err.is_fatal()
                {
                    return v;
                }
                self.locals.push((var_name.as_str(), v));
                let r = self.eval(body);
                self.locals.pop();
                r
            }
            Expr::Error => Err(EvalError::new("invalid expression")),
        }
    }

    // The arms of the common nodes, out of line: [`Ctx::eval`] stays a small dispatcher whose frame every nested
    // evaluation pays, and each arm keeps only the temporaries it needs (pod-baseline's deepest request: 3,591 →
    // 3,448 bytes of stack; the same speed).

    /// A conditional's branch. cel-go plans a conditional as an attribute whose branches, when they are attributes
    /// themselves (a variable, or selections and indexes from one), are resolved without being observed as steps: such
    /// a branch costs its selections and indexes, not its variable (`TestRuntimeCost` "ternary eval").
    fn branch(&mut self, e: &'p SpannedExpr) -> Result<Value<'a>, EvalError> {
        let mut root = e;
        let attribute = loop {
            match &root.node {
                Expr::Member { expr, .. } | Expr::Index { expr, .. } => root = expr,
                Expr::Ident(_) => break true,
                _ => break false,
            }
        };
        // the chain's root is the first node it evaluates, and takes the flag
        self.free_root = attribute;
        let r = self.eval(e);
        self.free_root = false;
        r
    }

    /// The charge of an attribute's root: 1, or nothing for the root of a conditional's branch ([`Ctx::branch`]).
    #[inline(always)]
    fn charge_root(&mut self) -> Result<(), EvalError> {
        if self.free_root {
            self.free_root = false;
            return Ok(());
        }
        self.budget.charge(1)
    }

    #[inline(never)]
    fn ident(&mut self, e: &'p SpannedExpr, name: &'p str) -> Result<Value<'a>, EvalError> {
        self.charge_root()?;
        if let Some(v) = self.local(name) {
            return v.clone();
        }
        if let Some(r) = self.prog.refs.get(&e.id) {
            return self.global(&r.name);
        }
        if !self.prog.container.is_empty() {
            return self.global_in_container(name);
        }
        self.global(name)
    }

    #[inline(never)]
    fn member(
        &mut self,
        e: &'p SpannedExpr,
        expr: &'p SpannedExpr,
        field: &'p str,
        optional: bool,
    ) -> Result<Value<'a>, EvalError> {
        if let Some(r) = self.prog.refs.get(&e.id)
            && r.overload_ids.is_empty()
            && r.value.is_none()
        {
            self.charge_root()?;
            return self.global(&r.name);
        }
        if self.prog.refs.is_empty()
            && !optional
            && let Some(q) = qualified_name(e)
            && self.leftmost_unbound(e)
            && let Some(v) = self.act.lookup_qualified(&q)
        {
            self.charge_root()?;
            return v;
        }
        let target = self.eval(expr)?;
        self.budget.charge(1)?;
        if optional {
            return select_optional(target, field, self.prog.strict_presence);
        }
        if let Value::Map(Map::Doc(r)) = &target
            && let Some(selections) = self.act.selections()
        {
            // what `select` answers of a tape object, remembered for the rest of the evaluation
            return match selections.select(*r, field) {
                Some(v) => Ok(Value::from_doc(v)),
                None => Err(EvalError::no_such_key(field)),
            };
        }
        select(&target, field, self.prog.strict_presence)
    }

    #[inline(never)]
    fn index(
        &mut self,
        expr: &'p SpannedExpr,
        index: &'p SpannedExpr,
        optional: bool,
    ) -> Result<Value<'a>, EvalError> {
        let target = self.eval(expr)?;
        let idx = self.eval(index)?;
        self.budget.charge(1)?;
        if optional {
            return index_optional(target, &idx, self.prog.strict_presence);
        }
        index_value(&target, &idx, self.prog.strict_presence)
    }

    /// `has(expr.field)`.
    #[inline(never)]
    fn presence(
        &mut self,
        e: &'p SpannedExpr,
        expr: &'p SpannedExpr,
        field: &'p str,
    ) -> Result<Value<'a>, EvalError> {
        let target = self.eval(expr)?;
        self.budget.charge(1)?;
        let target = match target {
            Value::Optional(None) => return Ok(Value::Bool(false)),
            Value::Optional(Some(v)) => (*v).clone(),
            other => other,
        };
        if let Value::Map(Map::Doc(r)) = &target
            && !self.prog.presence.contains(&e.id)
            && let Some(selections) = self.act.selections()
        {
            return Ok(Value::Bool(selections.select(*r, field).is_some()));
        }
        match &target {
            Value::Map(m) if self.prog.presence.contains(&e.id) => Ok(Value::Bool(
                m.get_str(field).is_some_and(|v| !functions::is_zero(&v)),
            )),
            Value::Map(m) => Ok(Value::Bool(m.get_str(field).is_some())),
            other => {
                absent_field(other, field, self.prog.strict_presence).map(|()| Value::Bool(false))
            }
        }
    }

    /// Is the leftmost identifier of a select chain unbound locally (so the chain may name a
    /// qualified variable)?
    fn leftmost_unbound(&self, mut e: &SpannedExpr) -> bool {
        loop {
            match &e.node {
                Expr::Member { expr, .. } => e = expr,
                Expr::Ident(n) => return self.local(n).is_none(),
                _ => return false,
            }
        }
    }

    fn global(&mut self, name: &str) -> Result<Value<'a>, EvalError> {
        if let Some(t) = Type::from_name(name)
            && !self.act.has(name)
        {
            return Ok(Value::Type(t));
        }
        if crate::kube::TYPE_NAMES.contains(&name) && !self.act.has(name) {
            return Ok(Value::Type(Type::Named(std::rc::Rc::from(name))));
        }
        let depth = self.depth;
        self.act.resolve(name, self.budget, depth)
    }

    /// An operator. Out of line, as are calls and comprehensions: inlined into [`Ctx::eval`], their temporaries
    /// enlarged the frame of every nested evaluation (pod-baseline's deepest request: 3,640 → 3,591 bytes of stack).
    #[inline(never)]
    fn binary(
        &mut self,
        op: BinaryOp,
        left: &'p SpannedExpr,
        right: &'p SpannedExpr,
    ) -> Result<Value<'a>, EvalError> {
        match op {
            BinaryOp::And | BinaryOp::Or => {
                let l = self.eval(left);
                logical(op == BinaryOp::Or, l, || self.eval(right))
            }
            _ => {
                let l = self.eval(left)?;
                let r = self.eval(right)?;
                let cost = functions::binary_cost(op, &l, &r, |v| self.size(v));
                self.budget.charge(cost)?;
                functions::binary(op, l, r)
            }
        }
    }

    #[inline(never)]
    fn call(
        &mut self,
        call: &'p SpannedExpr,
        callee: &'p SpannedExpr,
        args: &'p [SpannedExpr],
    ) -> Result<Value<'a>, EvalError> {
        let Some(resolved) = self.prog.calls.get(&call.id) else {
            return Err(EvalError::new("unsupported call target"));
        };
        let target = match resolved.target {
            Target::GlobalUnlessBound(f, m) => {
                if self.leftmost_unbound(callee) {
                    Target::Global(f)
                } else {
                    Target::Method(m)
                }
            }
            t => t,
        };
        let regex = resolved.regex.as_ref();
        match (target, &callee.node) {
            (Target::Global(f), _) => {
                let vals = self.eval_args(args)?;
                functions::global(&mut self.meter(), f, vals, regex)
            }
            (Target::Method(m), Expr::Member { expr, .. }) => {
                let recv = self.eval(expr)?;
                // `or` and `orValue` evaluate their argument only when the receiver is empty
                if let (Method::Or | Method::OrValue, Value::Optional(Some(v))) = (m, &recv) {
                    self.budget.charge(1)?;
                    return Ok(if m == Method::Or {
                        Value::Optional(Some(v.clone()))
                    } else {
                        (**v).clone()
                    });
                }
                let vals = self.eval_args(args)?;
                functions::member(&mut self.meter(), m, recv, vals, regex)
            }
            _ => Err(EvalError::new("unsupported call target")),
        }
    }

    fn eval_args(&mut self, args: &'p [SpannedExpr]) -> Result<Vec<Value<'a>>, EvalError> {
        let mut vals = Vec::with_capacity(args.len());
        for a in args {
            vals.push(self.eval(a)?);
        }
        Ok(vals)
    }

    #[inline(never)]
    fn comprehension(&mut self, c: &'p ComprehensionData) -> Result<Value<'a>, EvalError> {
        let range = self.eval(&c.iter_range)?;
        let accu = self.eval(&c.accu_init)?;
        let two = !c.iter_var2.is_empty();
        let base = self.locals.len();
        self.locals.push((c.accu_var.as_str(), Ok(accu)));
        let accu_idx = base;
        self.locals.push((c.iter_var.as_str(), Ok(Value::Null)));
        if two {
            self.locals.push((c.iter_var2.as_str(), Ok(Value::Null)));
        }
        // `all` and `exists` take the short way while nothing they skip could fail on depth
        let shape = match Shape::of(c) {
            Shape::All(_) | Shape::Exists(_) if self.depth + 2 > MAX_EVAL_DEPTH => Shape::Other,
            #[cfg(feature = "testing")]
            _ if testing::GENERAL_ONLY.get() => Shape::Other,
            shape => shape,
        };
        let result = self.comprehension_loop(c, &range, accu_idx, two, shape);
        let out = match result {
            Ok(()) => {
                // result sees only the accumulator
                self.locals.truncate(base + 1);
                self.eval(&c.result)
            }
            Err(e) => Err(e),
        };
        self.locals.truncate(base);
        out
    }

    fn set_iter(&mut self, accu_idx: usize, first: Value<'a>, second: Option<Value<'a>>) {
        if let Some(slot) = self.locals.get_mut(accu_idx + 1) {
            slot.1 = Ok(first);
        }
        if let Some(s) = second
            && let Some(slot) = self.locals.get_mut(accu_idx + 2)
        {
            slot.1 = Ok(s);
        }
    }

    fn comprehension_loop(
        &mut self,
        c: &'p ComprehensionData,
        range: &Value<'a>,
        accu_idx: usize,
        two: bool,
        shape: Shape<'p>,
    ) -> Result<(), EvalError> {
        match range {
            Value::List(list) => {
                for (i, el) in list.iter().enumerate() {
                    let idx = Value::Int(i64::try_from(i).map_err(|_| EvalError::overflow())?);
                    if two {
                        self.set_iter(accu_idx, idx, Some(el));
                    } else {
                        self.set_iter(accu_idx, el, None);
                    }
                    if !self.iteration(c, accu_idx, shape)? {
                        break;
                    }
                }
            }
            Value::Map(map) => {
                // one entry at a time: `exists` that stops at the first entry reads only that one
                map.for_each_entry(|k, v| {
                    if two {
                        self.set_iter(accu_idx, k, Some(v));
                    } else {
                        self.set_iter(accu_idx, k, None);
                    }
                    self.iteration(c, accu_idx, shape)
                })?;
            }
            _ => return Err(EvalError::no_such_overload()),
        }
        Ok(())
    }

    /// One loop iteration; `Ok(false)` stops the loop.
    fn iteration(
        &mut self,
        c: &'p ComprehensionData,
        accu_idx: usize,
        shape: Shape<'p>,
    ) -> Result<bool, EvalError> {
        self.iterations += 1;
        if self.iterations > MAX_ITERATIONS {
            return Err(EvalError::interrupted());
        }
        // cel-go's loop condition of `all` and `exists` is `@not_strictly_false(…)`, a call (1) around what cel-core
        // writes; `map`, `filter` and the others loop while the constant `true`, which costs nothing
        if !matches!(c.loop_condition.node, Expr::Bool(true)) {
            self.budget.charge(1)?;
        }
        let next = match shape {
            Shape::All(cond) | Shape::Exists(cond) => {
                let short = matches!(shape, Shape::Exists(_));
                if !self.accu_condition(accu_idx, short)? {
                    return Ok(false);
                }
                self.accu_step(cond, accu_idx, short)
            }
            Shape::Other => {
                match self.eval(&c.loop_condition) {
                    Ok(Value::Bool(false)) => return Ok(false),
                    Err(e) if e.is_fatal() => return Err(e),
                    _ => {}
                }
                self.step(&c.loop_step, accu_idx)
            }
        };
        if let Err(e) = &next
            && e.is_fatal()
        {
            return Err(e.clone());
        }
        if let Some(slot) = self.locals.get_mut(accu_idx) {
            slot.1 = next;
        }
        Ok(true)
    }

    /// The loop condition of `all` (`__result__`, `short` false) or `exists` (`!__result__`, `short` true) read from
    /// the accumulator's slot, with the charges of evaluating it: whether the loop goes on.
    fn accu_condition(&mut self, accu_idx: usize, short: bool) -> Result<bool, EvalError> {
        self.budget.charge(1)?;
        Ok(match self.locals.get(accu_idx).map(|slot| &slot.1) {
            // `!` of an error is that error (not charged), of a non-boolean an error: either goes on
            Some(Ok(v)) if short => {
                self.budget.charge(1)?;
                !matches!(v, Value::Bool(true))
            }
            Some(Ok(Value::Bool(false))) => false,
            _ => true,
        })
    }

    /// The loop step of `all` (`__result__ && cond`) or `exists` (`__result__ || cond`): the accumulator moved out of
    /// its slot instead of copied, at the depths and with the charges of evaluating the step. The accumulator is read
    /// first, as cel-go reads it: charged on every iteration, and its error is the one kept when both fail.
    fn accu_step(
        &mut self,
        cond: &'p SpannedExpr,
        accu_idx: usize,
        short: bool,
    ) -> Result<Value<'a>, EvalError> {
        // the `&&`/`||` node's own level
        self.depth += 1;
        let next = match self.budget.charge(1) {
            Ok(()) => {
                let accu = self.take_accu(accu_idx);
                logical(short, accu, || self.eval(cond))
            }
            Err(e) => Err(e),
        };
        self.depth -= 1;
        next
    }

    /// The loop step, appending to the accumulator in place for `map`/`filter`/`transform*`.
    fn step(&mut self, step: &'p SpannedExpr, accu_idx: usize) -> Result<Value<'a>, EvalError> {
        match &step.node {
            Expr::Binary {
                op: BinaryOp::Add,
                left,
                right,
            } if matches!(&left.node, Expr::Ident(n) if is_accu(n)) => {
                self.append_step(right, accu_idx)
            }
            Expr::Call { expr, args }
                if matches!(&expr.node, Expr::Ident(f) if f == crate::functions::MAP_INSERT)
                    && matches!(args.first().map(|a| &a.node), Some(Expr::Ident(n)) if is_accu(n)) =>
            {
                self.insert_step(args.get(1..).unwrap_or_default(), accu_idx)
            }
            Expr::Ternary {
                cond,
                then_expr,
                else_expr,
            } if matches!(&else_expr.node, Expr::Ident(n) if is_accu(n)) => {
                match self.eval(cond)? {
                    Value::Bool(true) => self.step(then_expr, accu_idx),
                    // the accumulator is the conditional's branch: free ([`Ctx::branch`])
                    Value::Bool(false) => self.take_accu(accu_idx),
                    _ => Err(EvalError::no_such_overload()),
                }
            }
            _ => self.eval(step),
        }
    }

    fn take_accu(&mut self, accu_idx: usize) -> Result<Value<'a>, EvalError> {
        match self.locals.get_mut(accu_idx) {
            Some(slot) => std::mem::replace(&mut slot.1, Ok(Value::Null)),
            None => Err(EvalError::new("internal error: accumulator missing")),
        }
    }

    // not inlined into `step`, which every comprehension runs once per element: its temporaries would make each
    // `step` frame on the stack as large as its own
    #[inline(never)]
    fn append_step(
        &mut self,
        right: &'p SpannedExpr,
        accu_idx: usize,
    ) -> Result<Value<'a>, EvalError> {
        let r = self.eval(right)?;
        self.budget.charge(2)?;
        match (self.owned_accu(accu_idx)?, r) {
            (Value::List(List::Owned(mut v)), Value::List(add)) => {
                let vec = Rc::make_mut(&mut v);
                vec.extend(add.iter());
                Ok(Value::List(List::Owned(v)))
            }
            (l, r) => functions::binary(BinaryOp::Add, l, r),
        }
    }

    /// `cel.@mapInsert(accu, key, value)` or `cel.@mapInsert(accu, entries)` as a loop step (`transformMap`,
    /// `transformMapEntry`): the arguments after the accumulator, then the call and the accumulator charged, as
    /// cel-go charges them, and the entries inserted in place.
    #[inline(never)]
    fn insert_step(
        &mut self,
        rest: &'p [SpannedExpr],
        accu_idx: usize,
    ) -> Result<Value<'a>, EvalError> {
        let mut args = Vec::with_capacity(rest.len() + 1);
        for a in rest {
            args.push(self.eval(a)?);
        }
        self.budget.charge(2)?;
        // taken out of its slot, the accumulator is the only reference to its map, which is changed in place
        args.insert(0, self.take_accu(accu_idx)?);
        functions::map_insert(args)
    }

    /// The accumulator, taken out of its slot: a folded `[]` initial accumulator is shared, so it is copied once (it
    /// is empty), then appended to in place.
    fn owned_accu(&mut self, accu_idx: usize) -> Result<Value<'a>, EvalError> {
        Ok(match self.take_accu(accu_idx)? {
            Value::List(l @ (List::Const(_) | List::Json(_) | List::Doc(_) | List::Concat(_))) => {
                Value::list(l.to_vec())
            }
            other => other,
        })
    }
}

/// CEL's `&&` (`short` false) and `||` (`short` true), commutative over errors: a side equal to `short` decides,
/// whatever the other side is (an error or a non-boolean included); a fatal error ends the evaluation; `right` is
/// evaluated only when `l` does not decide.
fn logical<'a>(
    short: bool,
    l: Result<Value<'a>, EvalError>,
    right: impl FnOnce() -> Result<Value<'a>, EvalError>,
) -> Result<Value<'a>, EvalError> {
    match &l {
        Ok(Value::Bool(b)) if *b == short => return Ok(Value::Bool(short)),
        Err(e) if e.is_fatal() => return l,
        _ => {}
    }
    let r = right();
    match &r {
        Ok(Value::Bool(b)) if *b == short => return Ok(Value::Bool(short)),
        Err(e) if e.is_fatal() => return r,
        _ => {}
    }
    match (l, r) {
        (Ok(Value::Bool(_)), Ok(Value::Bool(_))) => Ok(Value::Bool(!short)),
        (Err(e), _) | (_, Err(e)) => Err(e),
        _ => Err(EvalError::no_such_overload()),
    }
}

/// What a comprehension's loop is: the expansion of `all` or `exists` (their predicate), which
/// [`Ctx::iteration`] runs without evaluating the accumulator's nodes, or any other.
#[derive(Clone, Copy)]
enum Shape<'p> {
    All(&'p SpannedExpr),
    Exists(&'p SpannedExpr),
    Other,
}

impl<'p> Shape<'p> {
    /// `all`: condition `__result__`, step `__result__ && cond`; `exists`: condition `!__result__`, step
    /// `__result__ || cond` (cel-core's expansions, the accumulator named by the comprehension, with the step's
    /// operands in cel-go's order: compile.rs `accumulator_first`).
    fn of(c: &'p ComprehensionData) -> Shape<'p> {
        let accu = |e: &SpannedExpr| matches!(&e.node, Expr::Ident(n) if *n == c.accu_var);
        let Expr::Binary { op, left, right } = &c.loop_step.node else {
            return Shape::Other;
        };
        // an iteration variable named like the accumulator would hide it from the step's reference (the checker
        // refuses the name today: `undeclared reference to '__result__'`)
        if !accu(left) || c.iter_var == c.accu_var || c.iter_var2 == c.accu_var {
            return Shape::Other;
        }
        match (op, &c.loop_condition.node) {
            (BinaryOp::And, _) if accu(&c.loop_condition) => Shape::All(right),
            (
                BinaryOp::Or,
                Expr::Unary {
                    op: UnaryOp::Not,
                    expr,
                },
            ) if accu(expr) => Shape::Exists(right),
            _ => Shape::Other,
        }
    }
}

/// `a.b.c` as a dotted name, if the chain is only identifiers.
pub fn qualified_name(e: &SpannedExpr) -> Option<String> {
    match &e.node {
        Expr::Ident(n) => Some(n.clone()),
        Expr::RootIdent(n) => Some(n.clone()),
        Expr::Member { expr, field, .. } => Some(format!("{}.{}", qualified_name(expr)?, field)),
        _ => None,
    }
}

/// cel-go's error for a list indexed by a value that is not a number (`types.IndexOrError`).
fn bad_list_index(idx: &Value<'_>) -> EvalError {
    EvalError::new(format!(
        "unsupported index type '{}' in list",
        idx.type_of()
    ))
}

/// A field select or presence test on a value that is neither a map nor a list (`null`, a
/// number, a string …). cel-go's `refQualify` (interpreter/attributes.go) fails the select
/// with `no such key: <field>`; a presence test (`has(x.f)`, `x.?f`) is simply not present,
/// unless the environment turns on `EnableErrorOnBadPresenceTest` (the cel-spec conformance
/// suite does; Kubernetes does not). `Ok(())` means "absent".
fn absent_field(target: &Value<'_>, field: &str, strict: bool) -> Result<(), EvalError> {
    match target {
        Value::List(_) => Err(bad_list_index(&Value::string(field))),
        _ if strict => Err(EvalError::no_such_key(field)),
        _ => Ok(()),
    }
}

/// An element of a list or map literal: an optional one (`[?x]`, `{k: ?v}`) is its value when present and left out
/// when absent (`None`).
fn element<'a>(v: Value<'a>, optional: bool) -> Result<Option<Value<'a>>, EvalError> {
    if !optional {
        return Ok(Some(v));
    }
    match v {
        Value::Optional(Some(inner)) => Ok(Some((*inner).clone())),
        Value::Optional(None) => Ok(None),
        _ => Err(EvalError::no_such_overload()),
    }
}

/// `target.field`
pub fn select<'a>(target: &Value<'a>, field: &str, strict: bool) -> Result<Value<'a>, EvalError> {
    match target {
        Value::Map(m) => m
            .get_str(field)
            .ok_or_else(|| EvalError::no_such_key(field)),
        // selecting on an optional keeps the result optional
        Value::Optional(_) => select_optional(target.clone(), field, strict),
        Value::List(_) => Err(bad_list_index(&Value::string(field))),
        _ => Err(EvalError::no_such_key(field)),
    }
}

fn select_optional<'a>(
    target: Value<'a>,
    field: &str,
    strict: bool,
) -> Result<Value<'a>, EvalError> {
    let inner = match target {
        Value::Optional(None) => return Ok(Value::Optional(None)),
        Value::Optional(Some(v)) => (*v).clone(),
        other => other,
    };
    match &inner {
        Value::Map(m) => Ok(Value::Optional(m.get_str(field).map(Rc::new))),
        other => absent_field(other, field, strict).map(|()| Value::Optional(None)),
    }
}

fn list_index(l: &List<'_>, idx: &Value<'_>) -> Result<usize, EvalError> {
    // cel-go's `types.IndexOrError`: a uint or a double only when it is an int exactly
    let unsupported = || {
        EvalError::new(format!(
            "unsupported index value {} in list",
            crate::value::key_display(idx)
        ))
    };
    let i: i64 = match idx {
        Value::Int(i) => *i,
        Value::Uint(u) => i64::try_from(*u).map_err(|_| unsupported())?,
        Value::Double(d) => {
            // doubleToInt64Lossless: no fraction, and strictly between -2^63 and 2^63
            const TWO_63: f64 = 9_223_372_036_854_775_808.0;
            if d.fract() != 0.0 || *d <= -TWO_63 || *d >= TWO_63 {
                return Err(unsupported());
            }
            *d as i64
        }
        _ => return Err(bad_list_index(idx)),
    };
    match usize::try_from(i) {
        Ok(u) if u < l.len() => Ok(u),
        _ => Err(EvalError::new(format!("index out of bounds: {i}"))),
    }
}

/// `target[idx]`
pub fn index_value<'a>(
    target: &Value<'a>,
    idx: &Value<'_>,
    strict: bool,
) -> Result<Value<'a>, EvalError> {
    match target {
        Value::Optional(_) => index_optional(target.clone(), idx, strict),
        Value::List(l) => {
            let i = list_index(l, idx)?;
            l.get(i)
                .ok_or_else(|| EvalError::new(format!("index out of bounds: {i}")))
        }
        Value::Map(m) => {
            check_index_key(idx)?;
            m.get(idx)
                .ok_or_else(|| EvalError::no_such_key(key_display(idx)))
        }
        // cel-go qualifies any other value with a constant-kind key as a missing key
        // (`null['a']` is `no such key: a`)
        _ => {
            check_index_key(idx)?;
            Err(EvalError::no_such_key(key_display(idx)))
        }
    }
}

fn check_index_key(k: &Value<'_>) -> Result<(), EvalError> {
    match k {
        Value::String(_) | Value::Int(_) | Value::Uint(_) | Value::Bool(_) | Value::Double(_) => {
            Ok(())
        }
        _ => Err(EvalError::no_such_overload()),
    }
}

fn index_optional<'a>(
    target: Value<'a>,
    idx: &Value<'_>,
    strict: bool,
) -> Result<Value<'a>, EvalError> {
    let inner = match target {
        Value::Optional(None) => return Ok(Value::Optional(None)),
        Value::Optional(Some(v)) => (*v).clone(),
        other => other,
    };
    match &inner {
        Value::List(l) => match list_index(l, idx) {
            Ok(i) => Ok(Value::Optional(l.get(i).map(Rc::new))),
            Err(e) if e.message().starts_with("index out of bounds") => Ok(Value::Optional(None)),
            Err(e) => Err(e),
        },
        Value::Map(m) => {
            check_index_key(idx)?;
            Ok(Value::Optional(m.get(idx).map(Rc::new)))
        }
        _ => {
            check_index_key(idx)?;
            if strict {
                return Err(EvalError::no_such_key(key_display(idx)));
            }
            Ok(Value::Optional(None))
        }
    }
}

/// What `palisade-cel`'s tests reach (the crate's `testing` feature; never in a shipped module).
#[cfg(feature = "testing")]
pub mod testing {
    use std::cell::Cell;

    thread_local! {
        /// Every comprehension evaluated by the general loop (no [`super::Shape`] short way).
        pub static GENERAL_ONLY: Cell<bool> = const { Cell::new(false) };
    }
}
