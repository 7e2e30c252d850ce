//! The Kubernetes authorizer library's methods (`authorizer.group(g).resource(r)….check(verb)`,
//! k8s.io/apiserver/pkg/cel/library/authz.go) over [`crate::authz`]'s values.

use std::rc::Rc;

use super::args::{STRING_TRAVERSAL_FACTOR, ceil_cost, nso, str_arg};
use super::names::Method;
use crate::authz::{self, AuthzValue};
use crate::cost::Meter;
use crate::error::EvalError;
use crate::value::Value;

/// library/cost.go `CallCost` for the authorizer library: `check` a fixed 350,000 (so that an
/// expression holds at most two checks), `fieldSelector` and `labelSelector` the parse of the
/// selector into its requirements, and every other builder and accessor 1.
pub fn cost<'a>(ctx: &mut Meter<'_, 'a>, method: Method, args: &[Value<'a>]) -> u64 {
    match (method, args.first()) {
        (Method::Check, _) => 350_000,
        (Method::FieldSelector | Method::LabelSelector, Some(v)) => selector_cost(ctx.size(v)),
        _ => 1,
    }
}

/// `selectorCostEstimate` over a selector of `len` characters: the list of requirements (10), a
/// traversal of the string, and a requirement for every two characters (the shortest one that
/// allocates, `k,`), each a struct and a list (40 + 10).
fn selector_cost(len: u64) -> u64 {
    let requirements = ceil_cost(len, 0.5);
    10_u64
        .saturating_add(ceil_cost(len, STRING_TRAVERSAL_FACTOR))
        .saturating_add(ceil_cost(requirements, 50.0))
}

pub fn member<'a>(
    method: Method,
    a: &AuthzValue<'a>,
    args: &[Value<'a>],
) -> Result<Value<'a>, EvalError> {
    let wrap = |v: AuthzValue<'a>| Ok(Value::Authz(Rc::new(v)));
    // the builder's own errors (authz.go: `path must not be empty` …) fail the call
    let invalid = |e: palisade_cel_kubernetes::authz::AuthzError| EvalError::new(e.to_string());
    match (a, method, args.len()) {
        (AuthzValue::Authorizer { authz, authorizer }, Method::Path, 1) => wrap(AuthzValue::Path {
            authz: *authz,
            check: authorizer.path(str_arg(args, 0)?).map_err(invalid)?,
        }),
        (AuthzValue::Authorizer { authz, authorizer }, Method::Group, 1) => {
            wrap(AuthzValue::Group {
                authz: *authz,
                check: authorizer.group(str_arg(args, 0)?),
            })
        }
        (AuthzValue::Authorizer { authz, authorizer }, Method::ServiceAccount, 2) => {
            wrap(AuthzValue::Authorizer {
                authz: *authz,
                authorizer: authorizer
                    .service_account(str_arg(args, 0)?, str_arg(args, 1)?)
                    .map_err(invalid)?,
            })
        }
        (AuthzValue::Group { authz, check }, Method::Resource, 1) => wrap(AuthzValue::Resource {
            authz: *authz,
            check: Box::new(check.resource(str_arg(args, 0)?).map_err(invalid)?),
        }),
        (AuthzValue::Resource { authz, check }, _, 1)
            if matches!(
                method,
                Method::Subresource
                    | Method::Namespace
                    | Method::Name
                    | Method::FieldSelector
                    | Method::LabelSelector
            ) =>
        {
            let v = str_arg(args, 0)?;
            let c = (**check).clone();
            let check = match method {
                Method::Subresource => c.subresource(v),
                Method::Namespace => c.namespace(v),
                Method::Name => c.name(v),
                Method::FieldSelector => c.field_selector(v),
                _ => c.label_selector(v),
            };
            wrap(AuthzValue::Resource {
                authz: *authz,
                check: Box::new(check),
            })
        }
        (AuthzValue::Resource { authz, check }, Method::Check, 1) => wrap(AuthzValue::Decision(
            authz::run(*authz, &check.check(str_arg(args, 0)?)),
        )),
        (AuthzValue::Path { authz, check }, Method::Check, 1) => wrap(AuthzValue::Decision(
            authz::run(*authz, &check.check(str_arg(args, 0)?)),
        )),
        (AuthzValue::Decision(d), _, 0) => match method {
            Method::Allowed => Ok(Value::Bool(d.allowed())),
            Method::Reason => Ok(Value::string(d.reason())),
            Method::Errored => Ok(Value::Bool(d.errored())),
            Method::Error => Ok(Value::string(d.error())),
            _ => nso(),
        },
        _ => nso(),
    }
}
