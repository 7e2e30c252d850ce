//! The Kubernetes CEL environment for Palisade.
//!
//! Expressions are parsed and type-checked by [`cel_core`] and evaluated by our own tree-walking
//! evaluator ([`Program::eval`]), which borrows the request JSON instead of converting it,
//! accounts cost the way cel-go does and stops as soon as a [`Budget`] is exhausted.
//!
//! ```
//! use palisade_cel::{Activation, Budget, Env, Expect};
//! let env = Env::admission();
//! let prog = env.compile("object.spec.replicas <= 5", Expect::Bool).unwrap();
//! let obj = serde_json::json!({"spec": {"replicas": 3}});
//! let act = Activation::new().bind_json("object", Some(&obj));
//! let v = prog.eval(&act, &mut Budget::kubernetes()).unwrap();
//! assert_eq!(v.as_bool(), Some(true));
//! ```

mod admission_types;
mod compile;
mod core_decls;
mod decls;
mod signature;
mod variables;

/// The checker's types, for [`Env::with_variable`].
pub use cel_core::CelType;
pub use compile::CompileError;
pub use palisade_cel_eval::{
    Activation, AuthzValue, Budget, Concat, Const, ConstMap, CostBound, Duration, EvalError,
    EvalErrorKind, KubeValue, List, ListIter, Map, NamespaceFn, OwnedMap, Program, ServiceAccount,
    Str, Timestamp, Type, User, Value, VariablePrograms, json_depth,
};
pub use variables::Variables;

/// The result type an expression must have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    /// validations, matchConditions: exactly `bool` (kube-apiserver: `must evaluate to bool but
    /// got dyn`)
    Bool,
    /// messageExpression: exactly `string`
    String,
    /// auditAnnotations valueExpression: exactly `string` or `null_type`
    StringOrNull,
    /// variables: any type
    Any,
}

/// kube-apiserver's `OptionalVariableDeclarations` for the admission environment. A
/// ValidatingAdmissionPolicy compiles its `variables`, `matchConditions`, `validations` and
/// `auditAnnotations` with `authorizer: true` and its `messageExpression`s with
/// `authorizer: false`; `params` is declared when the policy has a `paramKind`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AdmissionVars {
    /// `HasParams`: declare `params`.
    pub params: bool,
    /// `HasAuthorizer`: declare `authorizer` and `authorizer.requestResource`.
    pub authorizer: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Flavor {
    Admission,
    CertificateRequest,
    Custom,
}

/// An immutable CEL environment: variable and function declarations for the checker.
#[derive(Clone, Debug)]
pub struct Env {
    inner: cel_core::Env,
    flavor: Flavor,
    strict_presence: bool,
}

impl Env {
    /// The ValidatingAdmissionPolicy environment with every optional variable declared
    /// (`Env::admission_for(AdmissionVars { params: true, authorizer: true })`): `object`,
    /// `oldObject`, `request`, `params`, `namespaceObject`, `authorizer`,
    /// `authorizer.requestResource` and (through [`Variables::env`]) `variables.<name>`, with
    /// the Kubernetes libraries.
    pub fn admission() -> Env {
        Env::admission_for(AdmissionVars {
            params: true,
            authorizer: true,
        })
    }

    /// The ValidatingAdmissionPolicy environment as kube-apiserver builds it for one kind of
    /// expression (`OptionalVariableDeclarations`): `object` and `oldObject` are `dyn`,
    /// `request` is `kubernetes.AdmissionRequest` and `namespaceObject` is
    /// `kubernetes.Namespace` (upstream's `BuildRequestType` / `BuildNamespaceType`: an
    /// undeclared field is `undefined field '…'`); `params` (`dyn`) only with
    /// [`AdmissionVars::params`], `authorizer` and `authorizer.requestResource` only with
    /// [`AdmissionVars::authorizer`]. Otherwise they are `undeclared reference to '…'`.
    pub fn admission_for(vars: AdmissionVars) -> Env {
        Env {
            inner: decls::admission(vars),
            flavor: Flavor::Admission,
            strict_presence: false,
        }
    }

    /// The cert-manager approver-policy v0.27 environment: `self` (string), `cr` (the message
    /// `cm.io.policy.pkg.internal.approver.validation.CertificateRequest`: `name`, `namespace`,
    /// `username` are `string`, `groups` is `list(string)`, any other field is
    /// `undefined field '…'`), the strings extension and the service-account library
    /// (`serviceAccount(string)`, `.getName()`, `.getNamespace()`, `isServiceAccount(string)`).
    /// `Expect::Bool` means exactly `bool` here (`dyn` is `got dyn, wanted bool result type`),
    /// only cel-go's default macros are expanded (no `cel.bind`, no two-variable
    /// comprehensions), optional syntax is not enabled, and issues are placed, worded and
    /// ordered as cel-go does.
    ///
    /// Bind `cr` as a map with the four keys (`Activation::bind("cr", Value::map(…))`);
    /// `has(cr.<field>)` follows proto3 presence (false for `""` and `[]`).
    pub fn certificate_request() -> Env {
        Env {
            inner: decls::certificate_request(),
            flavor: Flavor::CertificateRequest,
            strict_presence: false,
        }
    }

    /// The full library without any variables (used by the conformance tests).
    pub fn standard() -> Env {
        Env {
            inner: decls::library(),
            flavor: Flavor::Custom,
            strict_presence: false,
        }
    }

    /// cel-go's `EnableErrorOnBadPresenceTest(true)`: `has(x.f)` and the optional selects
    /// `x.?f` / `x[?k]` on a value that is neither a map nor a list (`null`, a number …) fail
    /// with `no such key: f` instead of being absent. The cel-spec conformance suite runs with
    /// it; Kubernetes does not (there `has(params.x)` is false when `params` is null).
    pub fn with_error_on_bad_presence_test(mut self) -> Env {
        self.strict_presence = true;
        self
    }

    /// Declares an additional variable of type `dyn`.
    pub fn with_dyn_variable(mut self, name: &str) -> Env {
        self.inner.add_variable(name, cel_core::CelType::Dyn);
        self
    }

    /// Declares an additional variable with a checker type.
    pub fn with_variable(mut self, name: &str, ty: cel_core::CelType) -> Env {
        self.inner.add_variable(name, ty);
        self
    }

    /// Sets the container (namespace) used to resolve qualified names.
    pub fn with_container(mut self, container: &str) -> Env {
        self.inner.set_container(container);
        self
    }

    pub(crate) fn declare_variable(&mut self, name: &str, ty: cel_core::CelType) {
        self.inner.add_variable(name, ty);
    }

    /// Parses and type-checks; `expect` is the required result type.
    pub fn compile(&self, source: &str, expect: Expect) -> Result<Program, CompileError> {
        compile::compile(
            &self.inner,
            self.flavor,
            source,
            expect,
            true,
            self.strict_presence,
        )
    }

    /// Parses without type-checking (cel-spec tests marked `disableCheck`).
    pub fn compile_unchecked(&self, source: &str) -> Result<Program, CompileError> {
        compile::compile(
            &self.inner,
            self.flavor,
            source,
            Expect::Any,
            false,
            self.strict_presence,
        )
    }
}

/// The most CEL source, in bytes, that one bundle may compile in all: 2 MiB, twenty of kube-apiserver's largest
/// expressions (100,000 characters each) and hundreds of times the CEL of any policy library we know. Palisade's own
/// limit, not kube-apiserver's: a compiled expression keeps up to about 70 bytes of memory for each byte of its source
/// (a list literal of 49,000 elements: 7 MB), so that without it a bundle within the 8 MiB it may be would need more
/// memory than a host gives a module (the harness: 512 MiB), and compiling it would trap.
pub const MAX_BUNDLE_SOURCE_BYTES: usize = 2 << 20;

/// The problem of the expression with which a bundle's CEL goes past [`MAX_BUNDLE_SOURCE_BYTES`] (the number is
/// that constant's, as a test checks).
pub const PAST_BUNDLE_SOURCE_LIMIT: &str = "with this expression the bundle's CEL comes to more than 2097152 bytes, \
                                            the most Palisade compiles in one bundle";
/// How to fix [`PAST_BUNDLE_SOURCE_LIMIT`].
pub const PAST_BUNDLE_SOURCE_LIMIT_HELP: &str =
    "split the policies into several bundles, or move long constant lists into params";

#[cfg(test)]
#[test]
fn the_limit_is_worded_with_its_number() {
    assert!(PAST_BUNDLE_SOURCE_LIMIT.contains(&format!(" {MAX_BUNDLE_SOURCE_BYTES} bytes")));
}

/// Build the declarations every admission environment shares (the CEL standard library and Kubernetes' libraries)
/// now, if they are not built yet; otherwise the first compile builds them. Evaluation never reads them, so an engine
/// that calls this before it reads and compiles a bundle keeps what evaluation does read (the compiled programs and the
/// bundle's own data) together in memory, after them: in a baked module, fewer pages of its image read per request.
pub fn prepare_admission() {
    decls::prepare_admission();
    compile::macros(Flavor::Admission);
}

/// The same for [`Env::certificate_request`]'s declarations and macros (approver-policy's environment).
pub fn prepare_certificate_request() {
    decls::certificate_request();
    compile::macros(Flavor::CertificateRequest);
}
