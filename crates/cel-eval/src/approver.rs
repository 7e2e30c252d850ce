//! cert-manager approver-policy's CEL additions (`pkg/internal/approver/validation`): the
//! `cr` message type `cm.io.policy.pkg.internal.approver.validation.CertificateRequest`
//! (`name`, `namespace`, `username`: string; `groups`: repeated string) and the
//! service-account library (`serviceAccount(string)`, `<ServiceAccount>.getName()`,
//! `<ServiceAccount>.getNamespace()`, `isServiceAccount(string)`).
//!
//! cel-core's checker validates field selections on a message type through its
//! [`cel_core::ProtoTypeResolver`] trait; [`Messages`] answers it for these two message types
//! only, so `cr.foo` is `undefined field 'foo'` and `cr.name[1]` has no `_[_]` overload.
//! At runtime `cr` is still bound as a map with the four keys (the evaluator selects fields
//! from maps). The rest of cel-go's behaviour for this environment lives in `compile.rs`
//! (`Flavor::CertificateRequest`): cel-go's default macros only, no optional syntax, a message
//! is not a comprehension range, issue positions/wording/order as cel-go, an exactly-`bool`
//! result, and `has(cr.<field>)` with proto3 presence (false for `""` and `[]`).

use std::any::Any;

use cel_core::{CelType, FunctionDecl, OverloadDecl, ProtoTypeResolver, ResolvedProtoType};

use crate::error::EvalError;

/// approver-policy's `cr` message.
pub const T_CERTIFICATE_REQUEST: &str =
    "cm.io.policy.pkg.internal.approver.validation.CertificateRequest";
/// approver-policy's `SAType`.
pub const T_SERVICE_ACCOUNT: &str = "cm.io.policy.pkg.internal.approver.validation.ServiceAccount";

/// The fields of `cr`, in proto field order.
pub const CR_FIELDS: &[&str] = &["name", "namespace", "username", "groups"];

fn cr_field_type(field: &str) -> Option<CelType> {
    match field {
        "name" | "namespace" | "username" => Some(CelType::String),
        "groups" => Some(CelType::list(CelType::String)),
        _ => None,
    }
}

/// A service account, as `serviceAccount(username)` returns it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServiceAccount {
    pub namespace: String,
    pub name: String,
}

/// Checker declarations of the service-account library, with upstream's overload ids.
pub fn decls() -> Vec<FunctionDecl> {
    let sa = || CelType::message(T_SERVICE_ACCOUNT);
    vec![
        FunctionDecl::new("serviceAccount").with_overload(OverloadDecl::function(
            "username_to_serviceaccount",
            vec![CelType::String],
            sa(),
        )),
        FunctionDecl::new("getName").with_overload(OverloadDecl::method(
            "serviceaccount_get_name",
            vec![sa()],
            CelType::String,
        )),
        FunctionDecl::new("getNamespace").with_overload(OverloadDecl::method(
            "serviceaccount_get_namespace",
            vec![sa()],
            CelType::String,
        )),
        FunctionDecl::new("isServiceAccount").with_overload(OverloadDecl::function(
            "serviceaccount_is_sa",
            vec![CelType::String],
            CelType::Bool,
        )),
    ]
}

const SA_PREFIX: &str = "system:serviceaccount:";
const INVALID_USERNAME: &str = "Username must be in the form system:serviceaccount:namespace:name";

/// k8s.io/apiserver/pkg/authentication/serviceaccount `SplitUsername`: the namespace must be a
/// DNS-1123 label (`ValidateNamespaceName`), the name a DNS-1123 subdomain
/// (`ValidateServiceAccountName`).
pub fn split_username(username: &str) -> Result<ServiceAccount, &'static str> {
    let rest = username.strip_prefix(SA_PREFIX).ok_or(INVALID_USERNAME)?;
    let mut parts = rest.split(':');
    let (Some(namespace), Some(name), None) = (parts.next(), parts.next(), parts.next()) else {
        return Err(INVALID_USERNAME);
    };
    if !is_dns1123_label(namespace) || !is_dns1123_subdomain(name) {
        return Err(INVALID_USERNAME);
    }
    Ok(ServiceAccount {
        namespace: namespace.to_string(),
        name: name.to_string(),
    })
}

fn is_dns1123_label(s: &str) -> bool {
    palisade_cel_kubernetes::validation::is_dns1123_label(s).is_empty()
}

fn is_dns1123_subdomain(s: &str) -> bool {
    palisade_cel_kubernetes::validation::is_dns1123_subdomain(s).is_empty()
}

/// `serviceAccount(username)`, with approver-policy's error wording.
pub fn service_account(username: &str) -> Result<ServiceAccount, EvalError> {
    split_username(username).map_err(|err| {
        EvalError::new(format!(
            "Unable to convert to serviceaccount: err: {err}, username: {username}"
        ))
    })
}

/// `isServiceAccount(username)`
pub fn is_service_account(username: &str) -> bool {
    split_username(username).is_ok()
}

/// The checker's view of approver-policy's two message types (`cel.Types(&CertificateRequest{})`
/// and `SAType`). Only the checker calls it: Palisade evaluates with its own evaluator, so the
/// runtime half of [`ProtoRegistry`] (required by `cel_core::Env::with_proto_registry`) is never
/// reached and answers with an error value.
#[derive(Debug, Default)]
pub struct Messages;

impl ProtoTypeResolver for Messages {
    fn get_field_type(&self, message: &str, field: &str) -> Option<CelType> {
        if message == T_CERTIFICATE_REQUEST {
            cr_field_type(field)
        } else {
            None
        }
    }

    fn has_message(&self, message: &str) -> bool {
        message == T_CERTIFICATE_REQUEST || message == T_SERVICE_ACCOUNT
    }

    fn is_extension(&self, _message: &str, _ext_name: &str) -> bool {
        false
    }

    fn get_enum_value(&self, _enum_name: &str, _value_name: &str) -> Option<i32> {
        None
    }

    fn resolve_qualified(&self, _parts: &[&str], _container: &str) -> Option<ResolvedProtoType> {
        // type-name identifiers (`cm.io.…CertificateRequest` as a value) are not resolvable:
        // our evaluator has no message values to construct or compare them with
        None
    }

    fn resolve_message_name(&self, _name: &str, _container: &str) -> Option<String> {
        None
    }

    fn message_field_names(&self, message: &str) -> Option<Vec<String>> {
        (message == T_CERTIFICATE_REQUEST)
            .then(|| CR_FIELDS.iter().map(|f| f.to_string()).collect())
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

crate::checker_types::checker_only_registry!(Messages);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_username_table() {
        // upstream: k8s.io/apiserver/pkg/authentication/serviceaccount/util_test.go TestMakeUsername
        // (MakeUsername(namespace, name) then SplitUsername)
        let cases = [
            ("foo", "bar", true),
            ("", "", false),
            ("", "foo", false),
            ("foo", "", false),
            ("foo", "bar:baz", false),
            ("foo ", "bar", false),
            ("foo", "bar ", false),
        ];
        for (ns, name, ok) in cases {
            let u = format!("{SA_PREFIX}{ns}:{name}");
            let got = split_username(&u);
            assert_eq!(got.is_ok(), ok, "{u}");
            if let Ok(sa) = got {
                assert_eq!((sa.namespace.as_str(), sa.name.as_str()), (ns, name));
            }
        }
        // upstream: TestMatchUsername usernames, through SplitUsername
        for u in [
            "foo",
            "system:serviceaccount:",
            "system:serviceaccount:foo",
            "system:serviceaccount:foo:",
            "system:serviceaccount::bar",
            "system:serviceaccount:bar",
            ":bar",
            "foo:bar",
            "",
        ] {
            assert_eq!(split_username(u), Err(INVALID_USERNAME), "{u}");
        }
        assert!(split_username("system:serviceaccount:foo:bar").is_ok());
    }

    #[test]
    fn dns_names() {
        // namespace: DNS-1123 label; name: DNS-1123 subdomain
        assert!(is_service_account("system:serviceaccount:a-b:c.d-e"));
        assert!(!is_service_account("system:serviceaccount:a.b:c"));
        assert!(!is_service_account("system:serviceaccount:Foo:bar"));
        assert!(!is_service_account("system:serviceaccount:foo:Bar"));
        assert!(!is_service_account("system:serviceaccount:-foo:bar"));
        assert!(!is_service_account("system:serviceaccount:foo:bar-"));
        assert!(!is_service_account("system:serviceaccount:foo:bar..baz"));
        let ns63 = "a".repeat(63);
        let ns64 = "a".repeat(64);
        assert!(is_service_account(&format!("{SA_PREFIX}{ns63}:x")));
        assert!(!is_service_account(&format!("{SA_PREFIX}{ns64}:x")));
        let name253 = format!("{}.{}", "a".repeat(126), "b".repeat(126));
        let name254 = format!("{}.{}", "a".repeat(127), "b".repeat(126));
        assert!(is_service_account(&format!("{SA_PREFIX}ns:{name253}")));
        assert!(!is_service_account(&format!("{SA_PREFIX}ns:{name254}")));
    }

    #[test]
    fn service_account_error_wording() {
        // upstream: approver-policy serviceaccount.go stringToServiceAccount
        assert_eq!(
            service_account("bar").unwrap_err().to_string(),
            "Unable to convert to serviceaccount: err: Username must be in the form system:serviceaccount:namespace:name, username: bar"
        );
        assert_eq!(
            service_account("system:serviceaccount:my-namespace:my-sa").unwrap(),
            ServiceAccount {
                namespace: "my-namespace".into(),
                name: "my-sa".into()
            }
        );
    }
}
