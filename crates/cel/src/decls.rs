//! Checker declarations: cel-core's standard library and extensions, plus the libraries
//! Kubernetes enables that cel-core does not declare (sets, lists, regex, authz).

use cel_core::{CelType, Env, FunctionDecl, OverloadDecl};

use crate::authz::{T_AUTHORIZER, T_DECISION, T_GROUP, T_PATH, T_RESOURCE};

fn t(name: &str) -> CelType {
    CelType::type_param(name)
}

fn list(e: CelType) -> CelType {
    CelType::list(e)
}

fn abs(name: &str) -> CelType {
    CelType::abstract_type(name, &[])
}

fn method(
    name: &str,
    id: &str,
    params: Vec<CelType>,
    result: CelType,
    tps: &[&str],
) -> FunctionDecl {
    FunctionDecl::new(name).with_overload(
        OverloadDecl::method(id, params, result)
            .with_type_params(tps.iter().map(|s| s.to_string()).collect()),
    )
}

fn func(name: &str, id: &str, params: Vec<CelType>, result: CelType, tps: &[&str]) -> FunctionDecl {
    FunctionDecl::new(name).with_overload(
        OverloadDecl::function(id, params, result)
            .with_type_params(tps.iter().map(|s| s.to_string()).collect()),
    )
}

/// cel-go's cross-type numeric ordering overloads (`1 < 2.5`, `2u >= 1`).
fn cross_numeric() -> Vec<FunctionDecl> {
    let kinds = [
        ("int64", CelType::Int),
        ("uint64", CelType::UInt),
        ("double", CelType::Double),
    ];
    let mut out = Vec::new();
    for (op, id) in [
        ("_<_", "less"),
        ("_<=_", "less_equals"),
        ("_>_", "greater"),
        ("_>=_", "greater_equals"),
    ] {
        let mut f = FunctionDecl::new(op);
        for (an, at) in &kinds {
            for (bn, bt) in &kinds {
                if an != bn {
                    f = f.with_overload(OverloadDecl::function(
                        format!("{id}_{an}_{bn}"),
                        vec![at.clone(), bt.clone()],
                        CelType::Bool,
                    ));
                }
            }
        }
        out.push(f);
    }
    out
}

fn extra() -> Vec<FunctionDecl> {
    let lt = || list(t("T"));
    let mut v = cross_numeric();
    v.extend(vec![
        // cel-go ext.Sets
        func(
            "sets.contains",
            "list_sets_contains_list",
            vec![lt(), lt()],
            CelType::Bool,
            &["T"],
        ),
        func(
            "sets.equivalent",
            "list_sets_equivalent_list",
            vec![lt(), lt()],
            CelType::Bool,
            &["T"],
        ),
        func(
            "sets.intersects",
            "list_sets_intersects_list",
            vec![lt(), lt()],
            CelType::Bool,
            &["T"],
        ),
        // cel-go ext.Lists
        func(
            "lists.range",
            "lists_range",
            vec![CelType::Int],
            list(CelType::Int),
            &[],
        ),
        method(
            "slice",
            "list_slice",
            vec![lt(), CelType::Int, CelType::Int],
            lt(),
            &["T"],
        ),
        method(
            "flatten",
            "list_flatten",
            vec![list(list(t("T")))],
            lt(),
            &["T"],
        ),
        method(
            "flatten",
            "list_flatten_int",
            vec![list(CelType::Dyn), CelType::Int],
            list(CelType::Dyn),
            &[],
        ),
        method("distinct", "list_distinct", vec![lt()], lt(), &["T"]),
        method("reverse", "list_reverse", vec![lt()], lt(), &["T"]),
        method("sort", "list_sort", vec![lt()], lt(), &["T"]),
        method(
            "first",
            "list_first",
            vec![lt()],
            CelType::optional(t("T")),
            &["T"],
        ),
        method(
            "last",
            "list_last",
            vec![lt()],
            CelType::optional(t("T")),
            &["T"],
        ),
        // k8s.io/apiserver/pkg/cel/library/lists.go
        method(
            "isSorted",
            "list_is_sorted",
            vec![lt()],
            CelType::Bool,
            &["T"],
        ),
        method("sum", "list_sum", vec![lt()], t("T"), &["T"]),
        method("min", "list_min", vec![lt()], t("T"), &["T"]),
        method("max", "list_max", vec![lt()], t("T"), &["T"]),
        method(
            "indexOf",
            "list_index_of",
            vec![lt(), t("T")],
            CelType::Int,
            &["T"],
        ),
        method(
            "lastIndexOf",
            "list_last_index_of",
            vec![lt(), t("T")],
            CelType::Int,
            &["T"],
        ),
        // k8s.io/apiserver/pkg/cel/library/regex.go
        method(
            "find",
            "string_find_string",
            vec![CelType::String, CelType::String],
            CelType::String,
            &[],
        ),
        method(
            "findAll",
            "string_find_all_string",
            vec![CelType::String, CelType::String],
            list(CelType::String),
            &[],
        ),
        method(
            "findAll",
            "string_find_all_string_int",
            vec![CelType::String, CelType::String, CelType::Int],
            list(CelType::String),
            &[],
        ),
    ]);
    v
}

fn authz() -> Vec<FunctionDecl> {
    let s = || CelType::String;
    vec![
        method(
            "path",
            "authorizer_path",
            vec![abs(T_AUTHORIZER), s()],
            abs(T_PATH),
            &[],
        ),
        method(
            "group",
            "authorizer_group",
            vec![abs(T_AUTHORIZER), s()],
            abs(T_GROUP),
            &[],
        ),
        method(
            "serviceAccount",
            "authorizer_serviceaccount",
            vec![abs(T_AUTHORIZER), s(), s()],
            abs(T_AUTHORIZER),
            &[],
        ),
        method(
            "resource",
            "groupcheck_resource",
            vec![abs(T_GROUP), s()],
            abs(T_RESOURCE),
            &[],
        ),
        method(
            "subresource",
            "resourcecheck_subresource",
            vec![abs(T_RESOURCE), s()],
            abs(T_RESOURCE),
            &[],
        ),
        method(
            "namespace",
            "resourcecheck_namespace",
            vec![abs(T_RESOURCE), s()],
            abs(T_RESOURCE),
            &[],
        ),
        method(
            "name",
            "resourcecheck_name",
            vec![abs(T_RESOURCE), s()],
            abs(T_RESOURCE),
            &[],
        ),
        method(
            "fieldSelector",
            "resourcecheck_fieldselector",
            vec![abs(T_RESOURCE), s()],
            abs(T_RESOURCE),
            &[],
        ),
        method(
            "labelSelector",
            "resourcecheck_labelselector",
            vec![abs(T_RESOURCE), s()],
            abs(T_RESOURCE),
            &[],
        ),
        FunctionDecl::new("check")
            .with_overload(OverloadDecl::method(
                "pathcheck_check",
                vec![abs(T_PATH), s()],
                abs(T_DECISION),
            ))
            .with_overload(OverloadDecl::method(
                "resourcecheck_check",
                vec![abs(T_RESOURCE), s()],
                abs(T_DECISION),
            )),
        method(
            "allowed",
            "decision_allowed",
            vec![abs(T_DECISION)],
            CelType::Bool,
            &[],
        ),
        method("reason", "decision_reason", vec![abs(T_DECISION)], s(), &[]),
        method(
            "errored",
            "decision_errored",
            vec![abs(T_DECISION)],
            CelType::Bool,
            &[],
        ),
        method("error", "decision_error", vec![abs(T_DECISION)], s(), &[]),
    ]
}

/// Standard library, cel-core's extensions (strings, math, encoders, optionals) and the
/// Kubernetes additions above.
pub(crate) fn library() -> Env {
    stripped_library()
}

fn stripped_library() -> Env {
    let mut env = Env::with_standard_library().with_extension(crate::ext_decls::extensions(&[
        "strings",
        "math",
        "encoders",
        "optionals",
    ]));
    env.add_variable(
        "optional_type",
        CelType::type_of(CelType::optional(CelType::Dyn)),
    );
    // cel-go's standard environment names the well-known types as type identifiers
    // (`type(x) == google.protobuf.Timestamp`)
    env.add_variable(
        "google.protobuf.Timestamp",
        CelType::type_of(CelType::Timestamp),
    );
    env.add_variable(
        "google.protobuf.Duration",
        CelType::type_of(CelType::Duration),
    );
    env.with_extension(extra())
}

/// The admission library (everything but the variables), built once.
fn admission_library() -> &'static Env {
    static LIBRARY: std::sync::OnceLock<Env> = std::sync::OnceLock::new();
    LIBRARY.get_or_init(|| {
        let mut env = stripped_library()
            .with_extension(authz())
            .with_extension(crate::kube::decls())
            .with_proto_registry(std::sync::Arc::new(crate::admission_types::KubeTypes));
        for t in crate::kube::TYPE_NAMES {
            env.add_variable(*t, CelType::type_of(abs(t)));
        }
        env
    })
}

/// kube-apiserver's `createEnvForOpts`: `object`, `oldObject` (`dyn`), `namespaceObject`
/// (`kubernetes.Namespace`), `request` (`kubernetes.AdmissionRequest`), then `params` (`dyn`)
/// with `HasParams` and `authorizer`, `authorizer.requestResource` with `HasAuthorizer`.
pub(crate) fn admission(vars: crate::AdmissionVars) -> Env {
    let mut env = admission_library().clone();
    env.add_variable("object", CelType::Dyn);
    env.add_variable("oldObject", CelType::Dyn);
    env.add_variable(
        "namespaceObject",
        CelType::message(crate::admission_types::T_NAMESPACE),
    );
    env.add_variable(
        "request",
        CelType::message(crate::admission_types::T_REQUEST),
    );
    if vars.params {
        env.add_variable("params", CelType::Dyn);
    }
    if vars.authorizer {
        env.add_variable("authorizer", abs(T_AUTHORIZER));
        env.add_variable("authorizer.requestResource", abs(T_RESOURCE));
    }
    env
}

/// approver-policy v0.27 `validator.compile`: `cel.Types(&CertificateRequest{})`, `self`
/// (string), `cr` (the `CertificateRequest` message), `ext.Strings()`, `ServiceAccountLib()`.
pub(crate) fn certificate_request() -> Env {
    let mut env = Env::with_standard_library()
        .with_extension(crate::ext_decls::extensions(&["strings"]))
        .with_extension(crate::approver::decls())
        .with_proto_registry(std::sync::Arc::new(crate::approver::Messages));
    env.add_variable("self", CelType::String);
    env.add_variable(
        "cr",
        CelType::message(crate::approver::T_CERTIFICATE_REQUEST),
    );
    env
}
