//! The seam between approver-policy's CEL validations and `palisade-cel`.
//!
//! approver-policy (`pkg/internal/approver/validation`) compiles each rule in an environment
//! with `self` (string), `cr` (message `CertificateRequest{name, namespace, username,
//! groups}`), cel-go's strings extension and its service-account library
//! (`serviceAccount(string)`, `.getName()`, `.getNamespace()`, `isServiceAccount(string)`);
//! the result must be `bool`; evaluation is bounded by cost limit 1,000,000.

/// The `cr` variable.
#[derive(Debug, Default)]
#[cfg_attr(
    not(feature = "cel"),
    expect(dead_code, reason = "read only by the palisade-cel backend")
)]
pub(crate) struct CrVars<'r> {
    pub(crate) name: &'r str,
    pub(crate) namespace: &'r str,
    pub(crate) username: &'r str,
    pub(crate) groups: &'r [&'r str],
    /// Its CEL value, built at the request's first rule evaluation and bound again by the others: a policy has a
    /// rule or two for each value it checks, and the value's map and list are shared, not copied, when bound.
    value: std::cell::OnceCell<backend::CrValue<'r>>,
}

impl<'r> CrVars<'r> {
    pub(crate) fn new(
        name: &'r str,
        namespace: &'r str,
        username: &'r str,
        groups: &'r [&'r str],
    ) -> Self {
        CrVars {
            name,
            namespace,
            username,
            groups,
            value: std::cell::OnceCell::new(),
        }
    }
}

/// A compiled rule.
#[derive(Clone)]
pub(crate) struct Validator {
    backend: backend::Program,
}

impl std::fmt::Debug for Validator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Validator")
    }
}

impl Validator {
    /// Compiles `rule`; the error is the text approver-policy's webhook puts in the field error.
    pub(crate) fn compile(rule: &str) -> Result<Validator, String> {
        backend::compile(rule).map(|backend| Validator { backend })
    }

    /// `Validate(value, request)`: `Ok(valid)` or the evaluation error text.
    pub(crate) fn validate(&self, value: &str, cr: &CrVars<'_>) -> Result<bool, String> {
        backend::eval(&self.backend, value, cr)
    }
}

/// The problem of a policy whose rules take a bundle's CEL past its limit ([`Policies::compile_reporting`]).
///
/// [`Policies::compile_reporting`]: crate::Policies::compile_reporting
pub(crate) fn past_bundle_limit() -> String {
    backend::past_bundle_limit()
}

#[cfg(feature = "cel")]
mod backend {
    use super::CrVars;
    use palisade_cel::{Activation, Budget, Env, Expect, Str, Value};

    pub(super) type Program = palisade_cel::Program;

    pub(super) type CrValue<'r> = Value<'r>;

    pub(super) fn past_bundle_limit() -> String {
        [
            palisade_cel::PAST_BUNDLE_SOURCE_LIMIT,
            " (",
            palisade_cel::PAST_BUNDLE_SOURCE_LIMIT_HELP,
            ")",
        ]
        .concat()
    }

    pub(super) fn compile(rule: &str) -> Result<Program, String> {
        Env::certificate_request()
            .compile(rule, Expect::Bool)
            .map_err(|e| e.to_string())
    }

    pub(super) fn eval(p: &Program, value: &str, cr: &CrVars<'_>) -> Result<bool, String> {
        // borrowed for the evaluation: nothing of the request is copied
        fn text(s: &str) -> Value<'_> {
            Value::String(Str::Borrowed(s))
        }
        let cr_value = cr.value.get_or_init(|| {
            let groups = cr.groups.iter().map(|g| text(g)).collect();
            Value::map(vec![
                (text("name"), text(cr.name)),
                (text("namespace"), text(cr.namespace)),
                (text("username"), text(cr.username)),
                (text("groups"), Value::list(groups)),
            ])
        });
        let act = Activation::new()
            .bind("self", text(value))
            .bind("cr", cr_value.clone());
        let out = p
            .eval(&act, &mut Budget::kubernetes())
            .map_err(|e| e.to_string())?;
        out.as_bool().ok_or_else(|| "no such overload".to_owned())
    }
}

#[cfg(not(feature = "cel"))]
mod backend {
    use super::CrVars;

    #[derive(Clone)]
    pub(super) struct Program;

    pub(super) type CrValue<'r> = std::marker::PhantomData<&'r ()>;

    pub(super) fn past_bundle_limit() -> String {
        "the bundle's CEL rules come to too much with this policy's".to_owned()
    }

    pub(super) fn compile(_rule: &str) -> Result<Program, String> {
        Err("CEL validations are not available in this build (palisade-certificates without the `cel` feature)".to_owned())
    }

    pub(super) fn eval(_p: &Program, _value: &str, _cr: &CrVars<'_>) -> Result<bool, String> {
        Err("CEL validations are not available in this build".to_owned())
    }
}
