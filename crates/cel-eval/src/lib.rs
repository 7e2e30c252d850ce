//! Palisade's CEL evaluator: what runs when a request is decided. A [`Program`] (compiled by `palisade-cel`, whose
//! `Env` parses and checks an expression) is evaluated by a tree walk over borrowed JSON ([`Program::eval`]), which
//! accounts cost the way cel-go does and stops as soon as a [`Budget`] is exhausted.
//!
//! It is a crate of its own so that the shipped wasm modules build it for speed and `palisade-cel`'s compile-time code
//! for size (the root `Cargo.toml`, `[profile.wasm.package.*]`). Use it through `palisade-cel`, which re-exports
//! its public items; the modules marked `doc(hidden)` are `palisade-cel`'s to call.

#[doc(hidden)]
pub mod activation;
#[doc(hidden)]
pub mod approver;
#[doc(hidden)]
pub mod authz;
mod bound;
#[doc(hidden)]
pub mod checker_types;
mod cost;
mod error;
#[doc(hidden)]
pub mod eval;
#[doc(hidden)]
pub mod functions;
#[doc(hidden)]
pub mod ids;
#[doc(hidden)]
pub mod kube;
mod time;
#[doc(hidden)]
pub mod value;

use std::sync::Arc;

pub use activation::{Activation, NamespaceFn, VariablePrograms};
pub use approver::ServiceAccount;
pub use authz::{AuthzValue, User};
pub use bound::CostBound;
pub use cost::{Budget, Dialect};
pub use error::{EvalError, EvalErrorKind};
pub use kube::KubeValue;
pub use time::{Duration, Timestamp};
pub use value::{
    Concat, Const, ConstMap, List, ListIter, Map, OwnedMap, Str, Type, Value, json_depth,
};

struct ProgramInner {
    source: String,
    compiled: eval::Compiled,
    result_type: cel_core::CelType,
}

/// A compiled expression; cheap to clone, `Send + Sync`.
#[derive(Clone)]
pub struct Program {
    inner: Arc<ProgramInner>,
}

impl std::fmt::Debug for Program {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Program")
            .field("source", &self.inner.source)
            .finish()
    }
}

impl Program {
    /// What `palisade-cel`'s compiler builds.
    #[doc(hidden)]
    pub fn new(
        source: String,
        compiled: eval::Compiled,
        result_type: cel_core::CelType,
    ) -> Program {
        Program {
            inner: Arc::new(ProgramInner {
                source,
                compiled,
                result_type,
            }),
        }
    }

    pub fn source(&self) -> &str {
        &self.inner.source
    }

    /// The type the checker inferred (`dyn` for unchecked programs).
    pub fn result_type(&self) -> &cel_core::CelType {
        &self.inner.result_type
    }

    pub fn compiled(&self) -> &eval::Compiled {
        &self.inner.compiled
    }

    /// Evaluates against `act`, charging `budget`. The per-expression limit applies to this
    /// call; the total accumulates over every call made with the same budget. The value may
    /// borrow the program's string literals (nothing is copied per evaluation), so the program
    /// outlives the activation's borrows.
    pub fn eval<'a>(
        &'a self,
        act: &Activation<'a>,
        budget: &mut Budget,
    ) -> Result<Value<'a>, EvalError> {
        budget.start_call();
        eval::run(&self.inner.compiled, act, budget, 0)
    }
}
