//! Per-request bindings: borrowed JSON and tapes, lazily evaluated `variables`, the authorizer,
//! and a lazy `request` and `namespaceObject` (built only when an expression reads them).

use std::cell::RefCell;
use std::rc::Rc;

use serde_json::Value as Json;

use crate::Program;
use crate::authz::{AuthzValue, User};
use crate::cost::Budget;
use crate::error::EvalError;
use crate::eval::{self, MAX_EVAL_DEPTH};
use crate::value::Value;
use palisade_cel_kubernetes::authz as k8s;
use palisade_cel_kubernetes::cluster::Cluster;
use palisade_json::Ref;

/// How many selections [`Selections`] remembers.
const SELECTION_SLOTS: usize = 32;

/// One remembered selection: an object of a request's tape, a field name, and the field's value (`None`: absent or
/// `null`, which a selection reads as absent).
type Selection<'a> = (Ref<'a>, &'a str, Option<Ref<'a>>);

/// The fields of request objects already selected in this evaluation, shared by every expression of it: the same
/// selection is often made by several expressions (`object.spec.containers`) or several times by one
/// (`has(c.securityContext) && c.securityContext.privileged`), and a tape object's field is found by reading its
/// keys. A tape never changes, so a remembered selection is the selection. Direct-mapped: a miss costs one comparison.
/// The slots are allocated on the first selection (an activation stays small on the stack).
pub struct Selections<'a> {
    slots: RefCell<Vec<Option<Selection<'a>>>>,
}

impl<'a> Selections<'a> {
    fn new() -> Self {
        Selections {
            slots: RefCell::new(Vec::new()),
        }
    }

    /// `target.member(field)` read as a selection (a `null` value is absent), remembered.
    pub fn select(&self, target: Ref<'a>, field: &'a str) -> Option<Ref<'a>> {
        let first = field.as_bytes().first().copied().unwrap_or(0);
        let slot = (target.id() as usize)
            .wrapping_mul(31)
            .wrapping_add(field.len())
            .wrapping_add(usize::from(first))
            % SELECTION_SLOTS;
        let mut slots = self.slots.borrow_mut();
        if slots.is_empty() {
            slots.resize(SELECTION_SLOTS, None);
        }
        let Some(entry) = slots.get_mut(slot) else {
            return crate::value::doc_field(target, field);
        };
        if let Some((t, f, found)) = *entry
            && t.id() == target.id()
            && std::ptr::eq(t.doc(), target.doc())
            && f.len() == field.len()
            && palisade_json::same_str(f, field)
        {
            return found;
        }
        let found = crate::value::doc_field(target, field);
        *entry = Some((target, field, found));
        found
    }
}

/// Lazily produces the namespace object (`None`: the request is cluster-scoped).
pub type NamespaceFn<'a> = dyn Fn() -> Result<Option<&'a Json>, String> + 'a;

/// Lazily produces the `request` variable.
pub type RequestFn<'a> = dyn Fn() -> &'a Json + 'a;

/// The compiled `spec.variables` of a ValidatingAdmissionPolicy, as evaluation reads them (`palisade-cel`'s
/// `Variables` compiles them and keeps the environment they declare).
#[derive(Clone, Default)]
pub struct VariablePrograms {
    names: Vec<String>,
    programs: Vec<Program>,
}

impl std::fmt::Debug for VariablePrograms {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VariablePrograms")
            .field("names", &self.names)
            .finish()
    }
}

impl VariablePrograms {
    /// Adds the variable `name`, compiled to `program`, after the others.
    pub fn push(&mut self, name: &str, program: Program) {
        self.names.push(name.to_string());
        self.programs.push(program);
    }

    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The compiled expressions, in the order of [`VariablePrograms::names`].
    pub fn programs(&self) -> &[Program] {
        &self.programs
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }
}

type Cached<'a> = Option<Result<Value<'a>, EvalError>>;

/// The bindings of one evaluation. Build it once per request and evaluate every expression
/// of the policy against it; variables are evaluated at most once.
pub struct Activation<'a> {
    vars: Vec<(&'a str, Value<'a>)>,
    request: Option<&'a RequestFn<'a>>,
    request_cache: std::cell::OnceCell<Value<'a>>,
    variables: Option<&'a VariablePrograms>,
    cache: RefCell<Vec<Cached<'a>>>,
    authorizer: Option<&'a dyn Cluster>,
    namespace: Option<&'a NamespaceFn<'a>>,
    ns_cache: RefCell<Cached<'a>>,
    selections: Selections<'a>,
}

impl Default for Activation<'_> {
    fn default() -> Self {
        Activation::new()
    }
}

impl<'a> Activation<'a> {
    pub fn new() -> Self {
        Activation {
            vars: Vec::new(),
            request: None,
            request_cache: std::cell::OnceCell::new(),
            variables: None,
            cache: RefCell::new(Vec::new()),
            authorizer: None,
            namespace: None,
            ns_cache: RefCell::new(None),
            selections: Selections::new(),
        }
    }

    /// Binds a borrowed JSON value; `None` binds CEL `null`.
    pub fn bind_json(self, name: &'a str, value: Option<&'a Json>) -> Self {
        self.bind(name, value.map(Value::from_json).unwrap_or(Value::Null))
    }

    /// Binds a request object read into its tape; `None` binds CEL `null`.
    pub fn bind_doc(self, name: &'a str, doc: Option<&'a palisade_json::Doc>) -> Self {
        self.bind(
            name,
            doc.map(|d| Value::from_doc(d.root()))
                .unwrap_or(Value::Null),
        )
    }

    pub fn bind(mut self, name: &'a str, value: Value<'a>) -> Self {
        if let Some(slot) = self.vars.iter_mut().find(|(n, _)| *n == name) {
            slot.1 = value;
        } else {
            self.vars.push((name, value));
        }
        self
    }

    /// `request`, produced on first use (an expression that never reads it, nor asks `authorizer`, never builds it).
    /// A `request` bound with [`Activation::bind`] comes first.
    pub fn request(mut self, f: &'a RequestFn<'a>) -> Self {
        self.request = Some(f);
        self
    }

    /// A bound variable: bound values first, then the lazy `request`.
    fn bound(&self, name: &str) -> Option<Value<'a>> {
        if let Some((_, v)) = self
            .vars
            .iter()
            .find(|(n, _)| n.len() == name.len() && palisade_json::same_str(n, name))
        {
            return Some(v.clone());
        }
        match self.request {
            Some(f) if name == "request" => Some(
                self.request_cache
                    .get_or_init(|| Value::from_json(f()))
                    .clone(),
            ),
            _ => None,
        }
    }

    /// The policy's compiled variables, evaluated lazily and cached in this activation.
    pub fn variables(mut self, vars: &'a VariablePrograms) -> Self {
        self.variables = Some(vars);
        self.cache = RefCell::new(vec![None; vars.len()]);
        self
    }

    /// The host that answers `authorizer` checks.
    pub fn authorizer(mut self, authz: &'a dyn Cluster) -> Self {
        self.authorizer = Some(authz);
        self
    }

    /// `namespaceObject`, produced on first use.
    pub fn namespace_object(mut self, f: &'a NamespaceFn<'a>) -> Self {
        self.namespace = Some(f);
        self
    }

    fn namespace_value(&self) -> Result<Value<'a>, EvalError> {
        if let Some(v) = self.ns_cache.borrow().as_ref() {
            return v.clone();
        }
        let v = match self.namespace {
            Some(f) => match f() {
                Ok(Some(j)) => Ok(Value::from_json(j)),
                Ok(None) => Ok(Value::Null),
                Err(e) => Err(EvalError::new(e)),
            },
            None => Ok(Value::Null),
        };
        *self.ns_cache.borrow_mut() = Some(v.clone());
        v
    }

    fn request_map(&self) -> Option<crate::value::Map<'a>> {
        match self.bound("request") {
            Some(Value::Map(req)) => Some(req),
            _ => None,
        }
    }

    /// The requesting user (`request.userInfo`), whom `authorizer` asks for.
    fn request_user(&self) -> User {
        let mut user = User::default();
        if let Some(Value::Map(info)) = self.request_map().and_then(|r| r.get_str("userInfo")) {
            let s = |v: Option<Value<'_>>| v.and_then(|v| v.as_str().map(str::to_string));
            user.name = s(info.get_str("username")).unwrap_or_default();
            user.uid = s(info.get_str("uid")).unwrap_or_default();
            let strings = |list: &crate::value::List<'_>| -> Vec<String> {
                list.iter()
                    .filter_map(|g| g.as_str().map(str::to_string))
                    .collect()
            };
            if let Some(Value::List(groups)) = info.get_str("groups") {
                user.groups = strings(&groups);
            }
            if let Some(Value::Map(extra)) = info.get_str("extra") {
                for (key, values) in extra.entries() {
                    if let (Some(key), Value::List(values)) = (key.as_str(), &values) {
                        user.extra.insert(key.to_string(), strings(values));
                    }
                }
            }
        }
        user
    }

    /// `authorizer.requestResource`: the request's group, resource, subresource, namespace
    /// and name (`NewResourceAuthorizerVal`).
    fn request_check(&self) -> k8s::ResourceCheck {
        let s = |v: Option<Value<'_>>| v.and_then(|v| v.as_str().map(str::to_string));
        let (mut group, mut resource, mut subresource, mut namespace, mut name) =
            Default::default();
        if let Some(req) = self.request_map() {
            if let Some(Value::Map(res)) = req.get_str("resource") {
                group = s(res.get_str("group")).unwrap_or_default();
                resource = s(res.get_str("resource")).unwrap_or_default();
            }
            subresource = s(req.get_str("subResource")).unwrap_or_default();
            namespace = s(req.get_str("namespace")).unwrap_or_default();
            name = s(req.get_str("name")).unwrap_or_default();
        }
        k8s::ResourceCheck::for_request(
            &k8s::Authorizer::new(self.request_user()),
            &group,
            &resource,
            &subresource,
            &namespace,
            &name,
        )
    }

    fn variable(
        &self,
        name: &str,
        budget: &mut Budget,
        depth: u32,
    ) -> Result<Value<'a>, EvalError> {
        let Some(vars) = self.variables else {
            return Err(EvalError::new(format!(
                "no such attribute(s): variables.{name}"
            )));
        };
        let Some(idx) = vars.names.iter().position(|n| n == name) else {
            return Err(EvalError::new(format!(
                "no such attribute(s): variables.{name}"
            )));
        };
        if let Some(Some(v)) = self.cache.borrow().get(idx) {
            return v.clone();
        }
        let Some(prog) = vars.programs.get(idx) else {
            return Err(EvalError::new(format!(
                "no such attribute(s): variables.{name}"
            )));
        };
        if depth + 8 > MAX_EVAL_DEPTH {
            return Err(EvalError::depth());
        }
        let saved = budget.start_call();
        let r = eval::run(prog.compiled(), self, budget, depth + 1);
        budget.end_call(saved);
        let r = match r {
            Err(e) if e.is_fatal() => return Err(e),
            // kube-apiserver composition.go variableAccessor.Callback
            Err(e) => Err(EvalError::new(format!(
                "composited variable \"{name}\" fails to evaluate: {e}"
            ))),
            ok => ok,
        };
        if let Some(slot) = self.cache.borrow_mut().get_mut(idx) {
            *slot = Some(r.clone());
        }
        r
    }
}

impl<'a> eval::Scope<'a> for Activation<'a> {
    fn has(&self, name: &str) -> bool {
        self.vars.iter().any(|(n, _)| *n == name) || (name == "request" && self.request.is_some())
    }

    /// Exact-name lookup used when no checker references exist.
    fn lookup_qualified(&self, name: &str) -> Option<Result<Value<'a>, EvalError>> {
        self.bound(name).map(Ok)
    }

    fn resolve(&self, name: &str, budget: &mut Budget, depth: u32) -> Result<Value<'a>, EvalError> {
        match self.bound(name) {
            Some(v) => Ok(v),
            None => self.resolve_unbound(name, budget, depth),
        }
    }

    fn selections(&self) -> Option<&Selections<'a>> {
        Some(&self.selections)
    }
}

impl<'a> Activation<'a> {
    /// [`Scope::resolve`] of a name that is not bound (`object`, `params` and the like are): variables,
    /// `namespaceObject`, the authorizer. Out of line, so that its temporaries do not enlarge the frame of every
    /// identifier's resolution, at the deepest point of an evaluation.
    #[inline(never)]
    fn resolve_unbound(
        &self,
        name: &str,
        budget: &mut Budget,
        depth: u32,
    ) -> Result<Value<'a>, EvalError> {
        if let Some(var) = name.strip_prefix("variables.") {
            return self.variable(var, budget, depth);
        }
        match name {
            "namespaceObject" if self.namespace.is_some() => self.namespace_value(),
            "authorizer" => Ok(Value::Authz(Rc::new(AuthzValue::Authorizer {
                authz: self.authorizer,
                authorizer: k8s::Authorizer::new(self.request_user()),
            }))),
            "authorizer.requestResource" => Ok(Value::Authz(Rc::new(AuthzValue::Resource {
                authz: self.authorizer,
                check: Box::new(self.request_check()),
            }))),
            _ => Err(EvalError::new(format!("no such attribute(s): {name}"))),
        }
    }
}
