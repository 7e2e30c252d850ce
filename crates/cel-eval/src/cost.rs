//! What evaluation costs, as cel-go counts it: the [`Budget`] one policy evaluation spends, and the [`Meter`] the
//! functions charge through (the budget and the sizes of long values, measured once per evaluation).

use std::collections::HashMap;

use crate::error::EvalError;
use crate::value::{Map, Value};

/// Per-expression limit and the budget shared by one policy evaluation.
#[derive(Clone, Debug)]
pub struct Budget {
    per_call: u64,
    total: u64,
    used: u64,
    call_used: u64,
}

impl Budget {
    pub fn new(per_call: u64, total: u64) -> Self {
        Budget {
            per_call,
            total,
            used: 0,
            call_used: 0,
        }
    }
    /// Kubernetes' limits: `PerCallLimit` 1,000,000 and `RuntimeCELCostBudget` 10,000,000.
    pub fn kubernetes() -> Self {
        Budget::new(1_000_000, 10_000_000)
    }
    /// The budget of one policy's (or webhook's) matchConditions, separate from the validations' budget:
    /// `PerCallLimit` 1,000,000 and 2,500,000 in all (k8s.io/apiserver `webhook/matchconditions` and
    /// `policy/validating` use `celconfig.RuntimeCELCostBudgetMatchConditions`).
    pub fn match_conditions() -> Self {
        Budget::new(1_000_000, 2_500_000)
    }
    /// No practical limit.
    pub fn unlimited() -> Self {
        Budget::new(u64::MAX, u64::MAX)
    }
    /// Cost spent so far in this evaluation, over all expressions.
    pub fn used(&self) -> u64 {
        self.used
    }
    /// What is left of the budget shared by every expression of this evaluation.
    pub fn remaining(&self) -> u64 {
        self.total.saturating_sub(self.used)
    }
    /// Cost of the most recent (or running) expression.
    pub fn last_call(&self) -> u64 {
        self.call_used
    }
    /// Charge `n` to this expression and to the evaluation. Inlined where it is charged (every node of an evaluation
    /// is): the result stays in registers, and the error is built out of line.
    #[inline(always)]
    pub fn charge(&mut self, n: u64) -> Result<(), EvalError> {
        self.call_used = self.call_used.saturating_add(n);
        self.used = self.used.saturating_add(n);
        if self.call_used > self.per_call || self.used > self.total {
            return Err(self.exceeded());
        }
        Ok(())
    }
    /// The error of a charge over a limit: the per-expression limit first.
    #[cold]
    #[inline(never)]
    fn exceeded(&self) -> EvalError {
        if self.call_used > self.per_call {
            EvalError::cost_limit()
        } else {
            EvalError::out_of_budget()
        }
    }
    pub fn start_call(&mut self) -> u64 {
        std::mem::replace(&mut self.call_used, 0)
    }
    pub fn end_call(&mut self, saved: u64) {
        self.call_used = saved;
    }
}

/// Whose CEL a program follows: the environments Palisade reproduces are built on different cel-go releases, which
/// declare the strings extension at different versions, price it differently, and answer a few edge cases differently.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Dialect {
    /// kube-apiserver's: version 2 of cel-go v0.22 to v0.28 (Kubernetes 1.32 to 1.36), priced by its own library's
    /// cost functions (k8s.io/apiserver `library/cost.go`: one traversal of the receiver, two for `replace` and
    /// `split`). `indexOf`/`lastIndexOf` with an offset at or past the end of the string find nothing (-1), and an
    /// empty substring is found at whatever offset is asked, negative or past the end (cel-go `indexOfOffset`).
    #[default]
    Kubernetes,
    /// cel-go v0.30's, for `ext.Strings()` at its latest version (approver-policy v0.27's): the extension's own
    /// trackers (`ext/strings.go`, version 5), which charge the call (1), a traversal, and the size of what is built.
    /// As [`Dialect::Kubernetes`] for offsets, but an empty substring is found at the offset clamped to the
    /// end of the string, and a negative offset is an error (cel-go 14f6746a, June 2026).
    CelGo,
    /// The cel-spec conformance suite's (`palisade_cel::Env::standard`), priced as kube-apiserver's: an offset outside
    /// the string is an error (`index out of range: 30`; string_ext `indexof_out_of_range`, a test cel-go skips).
    Spec,
}

/// Sizes of long strings (characters) and large objects (entries), counted once per evaluation so that `size()` and
/// every size-based charge stay O(1); the value is kept so its address is not reused while the entry lives.
pub type Sizes<'a> = HashMap<(usize, usize, bool), (Value<'a>, u64), crate::ids::Ids>;

/// Strings and objects up to this size are measured directly.
const SIZE_MEMO_FROM: usize = 256;

/// The budget and the size memo of one evaluation, lent to the functions while they run.
pub struct Meter<'m, 'a> {
    pub budget: &'m mut Budget,
    pub sizes: &'m mut Sizes<'a>,
    pub dialect: Dialect,
}

impl<'a> Meter<'_, 'a> {
    /// cel-go's `actualSize`: characters of a string, bytes, elements of a list, entries of a
    /// map, 1 for anything else; O(1) (long strings and large objects are counted once).
    pub fn size(&mut self, v: &Value<'a>) -> u64 {
        let key = match v {
            Value::String(s) if s.as_str().len() > SIZE_MEMO_FROM => {
                (s.as_str().as_ptr() as usize, s.as_str().len(), false)
            }
            Value::Map(Map::Json(m)) if m.len() > SIZE_MEMO_FROM => {
                (std::ptr::from_ref(*m) as usize, m.len(), true)
            }
            Value::Map(Map::Doc(r)) if r.len() > SIZE_MEMO_FROM => {
                // a tape object: its document and node
                (std::ptr::from_ref(r.doc()) as usize, r.id() as usize, true)
            }
            _ => return v.cost_size(),
        };
        if let Some((_, n)) = self.sizes.get(&key) {
            return *n;
        }
        let n = v.cost_size();
        self.sizes.insert(key, (v.clone(), n));
        n
    }
}
