//! Evaluation errors, worded as cel-go and kube-apiserver word them.

use std::fmt;

/// What went wrong during evaluation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EvalErrorKind {
    /// The per-expression cost limit was exceeded (cel-go's `actual cost limit exceeded`).
    CostLimitExceeded,
    /// The budget shared by one policy evaluation ran out.
    OutOfBudget,
    /// Nesting of values or expressions went past the depth bound.
    DepthExceeded,
    /// Comprehensions ran more iterations than one expression may (cel-go's interruption).
    Interrupted,
    /// Any other runtime error; the message is the whole text.
    Other,
}

/// A runtime error. `Display` gives cel-go's wording, e.g. `no such key: foo`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EvalError {
    kind: EvalErrorKind,
    message: String,
}

impl EvalError {
    pub fn new(message: impl Into<String>) -> Self {
        EvalError {
            kind: EvalErrorKind::Other,
            message: message.into(),
        }
    }
    pub fn kind(&self) -> &EvalErrorKind {
        &self.kind
    }
    pub fn message(&self) -> &str {
        &self.message
    }
    /// True when the per-expression limit or the shared budget was exhausted.
    pub fn is_cost_exceeded(&self) -> bool {
        matches!(
            self.kind,
            EvalErrorKind::CostLimitExceeded | EvalErrorKind::OutOfBudget
        )
    }
    /// True when the shared per-evaluation budget (not the per-expression limit) ran out.
    pub fn is_out_of_budget(&self) -> bool {
        self.kind == EvalErrorKind::OutOfBudget
    }
    /// Errors that must stop evaluation at once (never absorbed by `||`, `&&`, comprehensions).
    pub fn is_fatal(&self) -> bool {
        self.kind != EvalErrorKind::Other
    }
    pub fn cost_limit() -> Self {
        EvalError {
            kind: EvalErrorKind::CostLimitExceeded,
            message: "operation cancelled: actual cost limit exceeded".into(),
        }
    }
    pub fn out_of_budget() -> Self {
        EvalError {
            kind: EvalErrorKind::OutOfBudget,
            message: "validation failed due to running out of cost budget, no further validation rules will be run".into(),
        }
    }
    pub fn depth() -> Self {
        EvalError {
            kind: EvalErrorKind::DepthExceeded,
            message: "max recursion depth exceeded".into(),
        }
    }
    pub fn interrupted() -> Self {
        EvalError {
            kind: EvalErrorKind::Interrupted,
            message: "operation interrupted".into(),
        }
    }
    pub fn no_such_overload() -> Self {
        EvalError::new("no such overload")
    }
    pub fn no_such_key(key: impl fmt::Display) -> Self {
        EvalError::new(format!("no such key: {key}"))
    }
    pub fn overflow() -> Self {
        EvalError::new("integer overflow")
    }
    pub fn uint_overflow() -> Self {
        EvalError::new("unsigned integer overflow")
    }
    /// cel-go's `ConvertToType` failure (common/types): `type conversion error from 'string' to 'int'`, each type
    /// named as cel-go names it (`google.protobuf.Duration`), one message whatever the value.
    #[cold]
    #[inline(never)]
    pub fn conversion(from: &str, to: &str) -> Self {
        EvalError::new(format!("type conversion error from '{from}' to '{to}'"))
    }
}

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for EvalError {}
