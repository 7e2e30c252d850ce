//! Checker declarations: cel-core's standard library and extensions, plus the libraries
//! Kubernetes enables that cel-core does not declare (sets, lists, regex, authz).

use cel_core::{CelType, Env, FunctionDecl, OverloadDecl};
use palisade_cel_kubernetes::format::Format;

use crate::signature::{self, rows};
use palisade_cel_eval::authz::{T_AUTHORIZER, T_RESOURCE};

fn abs(name: &str) -> CelType {
    CelType::abstract_type(name, &[])
}

/// The functions Kubernetes enables that cel-core does not declare.
#[rustfmt::skip]
const EXTRA: &str = rows![
    // cel-go's cross-type numeric ordering (`1 < 2.5`, `2u >= 1`)
    ("_<_", "less_int64_uint64", false, "int, uint", "bool", &[]),
    ("_<_", "less_int64_double", false, "int, double", "bool", &[]),
    ("_<_", "less_uint64_int64", false, "uint, int", "bool", &[]),
    ("_<_", "less_uint64_double", false, "uint, double", "bool", &[]),
    ("_<_", "less_double_int64", false, "double, int", "bool", &[]),
    ("_<_", "less_double_uint64", false, "double, uint", "bool", &[]),
    ("_<=_", "less_equals_int64_uint64", false, "int, uint", "bool", &[]),
    ("_<=_", "less_equals_int64_double", false, "int, double", "bool", &[]),
    ("_<=_", "less_equals_uint64_int64", false, "uint, int", "bool", &[]),
    ("_<=_", "less_equals_uint64_double", false, "uint, double", "bool", &[]),
    ("_<=_", "less_equals_double_int64", false, "double, int", "bool", &[]),
    ("_<=_", "less_equals_double_uint64", false, "double, uint", "bool", &[]),
    ("_>_", "greater_int64_uint64", false, "int, uint", "bool", &[]),
    ("_>_", "greater_int64_double", false, "int, double", "bool", &[]),
    ("_>_", "greater_uint64_int64", false, "uint, int", "bool", &[]),
    ("_>_", "greater_uint64_double", false, "uint, double", "bool", &[]),
    ("_>_", "greater_double_int64", false, "double, int", "bool", &[]),
    ("_>_", "greater_double_uint64", false, "double, uint", "bool", &[]),
    ("_>=_", "greater_equals_int64_uint64", false, "int, uint", "bool", &[]),
    ("_>=_", "greater_equals_int64_double", false, "int, double", "bool", &[]),
    ("_>=_", "greater_equals_uint64_int64", false, "uint, int", "bool", &[]),
    ("_>=_", "greater_equals_uint64_double", false, "uint, double", "bool", &[]),
    ("_>=_", "greater_equals_double_int64", false, "double, int", "bool", &[]),
    ("_>=_", "greater_equals_double_uint64", false, "double, uint", "bool", &[]),
    // cel-go ext.Sets
    ("sets.contains", "list_sets_contains_list", false, "list(T), list(T)", "bool", &["T"]),
    ("sets.equivalent", "list_sets_equivalent_list", false, "list(T), list(T)", "bool", &["T"]),
    ("sets.intersects", "list_sets_intersects_list", false, "list(T), list(T)", "bool", &["T"]),
    // cel-go ext.TwoVarComprehensions: what `transformMap` and `transformMapEntry` expand to (compile.rs)
    ("cel.@mapInsert", "@mapInsert_map_key_value", false, "map(K, V), K, V", "map(K, V)", &["K", "V"]),
    ("cel.@mapInsert", "@mapInsert_map_map", false, "map(K, V), map(K, V)", "map(K, V)", &["K", "V"]),
    // cel-go ext.Lists
    ("lists.range", "lists_range", false, "int", "list(int)", &[]),
    ("slice", "list_slice", true, "list(T), int, int", "list(T)", &["T"]),
    ("flatten", "list_flatten", true, "list(list(T))", "list(T)", &["T"]),
    ("flatten", "list_flatten_int", true, "list(dyn), int", "list(dyn)", &[]),
    ("distinct", "list_distinct", true, "list(T)", "list(T)", &["T"]),
    ("reverse", "list_reverse", true, "list(T)", "list(T)", &["T"]),
    ("sort", "list_sort", true, "list(T)", "list(T)", &["T"]),
    // `sortBy(e, key)` expands to this (compile.rs `expand_sort_by`); the keys of cel-go's comparable types
    ("@sortByAssociatedKeys", "list_int_sortByAssociatedKeys", true, "list(T), list(int)", "list(T)", &["T"]),
    ("@sortByAssociatedKeys", "list_uint_sortByAssociatedKeys", true, "list(T), list(uint)", "list(T)", &["T"]),
    ("@sortByAssociatedKeys", "list_double_sortByAssociatedKeys", true, "list(T), list(double)", "list(T)", &["T"]),
    ("@sortByAssociatedKeys", "list_bool_sortByAssociatedKeys", true, "list(T), list(bool)", "list(T)", &["T"]),
    ("@sortByAssociatedKeys", "list_google.protobuf.Duration_sortByAssociatedKeys", true, "list(T), list(google.protobuf.Duration)", "list(T)", &["T"]),
    ("@sortByAssociatedKeys", "list_google.protobuf.Timestamp_sortByAssociatedKeys", true, "list(T), list(google.protobuf.Timestamp)", "list(T)", &["T"]),
    ("@sortByAssociatedKeys", "list_string_sortByAssociatedKeys", true, "list(T), list(string)", "list(T)", &["T"]),
    ("@sortByAssociatedKeys", "list_bytes_sortByAssociatedKeys", true, "list(T), list(bytes)", "list(T)", &["T"]),
    ("first", "list_first", true, "list(T)", "optional_type(T)", &["T"]),
    ("last", "list_last", true, "list(T)", "optional_type(T)", &["T"]),
    // k8s.io/apiserver/pkg/cel/library/lists.go
    ("isSorted", "list_is_sorted", true, "list(T)", "bool", &["T"]),
    ("sum", "list_sum", true, "list(T)", "T", &["T"]),
    ("min", "list_min", true, "list(T)", "T", &["T"]),
    ("max", "list_max", true, "list(T)", "T", &["T"]),
    ("indexOf", "list_index_of", true, "list(T), T", "int", &["T"]),
    ("lastIndexOf", "list_last_index_of", true, "list(T), T", "int", &["T"]),
    // k8s.io/apiserver/pkg/cel/library/regex.go
    ("find", "string_find_string", true, "string, string", "string", &[]),
    ("findAll", "string_find_all_string", true, "string, string", "list(string)", &[]),
    ("findAll", "string_find_all_string_int", true, "string, string, int", "list(string)", &[]),
];

/// The authorizer library (`authorizer.group(...).resource(...).check(...)`).
#[rustfmt::skip]
const AUTHZ: &str = rows![
    // k8s.io/apiserver/pkg/cel/library/authz.go
    ("path", "authorizer_path", true, "kubernetes.authorization.Authorizer, string", "kubernetes.authorization.PathCheck", &[]),
    ("group", "authorizer_group", true, "kubernetes.authorization.Authorizer, string", "kubernetes.authorization.GroupCheck", &[]),
    ("serviceAccount", "authorizer_serviceaccount", true, "kubernetes.authorization.Authorizer, string, string", "kubernetes.authorization.Authorizer", &[]),
    ("resource", "groupcheck_resource", true, "kubernetes.authorization.GroupCheck, string", "kubernetes.authorization.ResourceCheck", &[]),
    ("subresource", "resourcecheck_subresource", true, "kubernetes.authorization.ResourceCheck, string", "kubernetes.authorization.ResourceCheck", &[]),
    ("namespace", "resourcecheck_namespace", true, "kubernetes.authorization.ResourceCheck, string", "kubernetes.authorization.ResourceCheck", &[]),
    ("name", "resourcecheck_name", true, "kubernetes.authorization.ResourceCheck, string", "kubernetes.authorization.ResourceCheck", &[]),
    ("fieldSelector", "resourcecheck_fieldselector", true, "kubernetes.authorization.ResourceCheck, string", "kubernetes.authorization.ResourceCheck", &[]),
    ("labelSelector", "resourcecheck_labelselector", true, "kubernetes.authorization.ResourceCheck, string", "kubernetes.authorization.ResourceCheck", &[]),
    ("check", "pathcheck_check", true, "kubernetes.authorization.PathCheck, string", "kubernetes.authorization.Decision", &[]),
    ("check", "resourcecheck_check", true, "kubernetes.authorization.ResourceCheck, string", "kubernetes.authorization.Decision", &[]),
    ("allowed", "decision_allowed", true, "kubernetes.authorization.Decision", "bool", &[]),
    ("reason", "decision_reason", true, "kubernetes.authorization.Decision", "string", &[]),
    ("errored", "decision_errored", true, "kubernetes.authorization.Decision", "bool", &[]),
    ("error", "decision_error", true, "kubernetes.authorization.Decision", "string", &[]),
];

/// Standard library (but cel-core's map `+`, which cel-go has not), cel-core's extensions (strings, math, encoders,
/// optionals) and the Kubernetes additions above.
pub(crate) fn library() -> Env {
    with_kubernetes_additions(
        crate::core_decls::standard(&["add_map_map"]),
        &["strings", "math", "encoders", "optionals"],
        &[],
    )
}

/// kube-apiserver's base environment (`environment/base.go`): the standard library but cel-core's map `+` (cel-go has
/// none: cel-core declares it for its own `transformMap`, which Palisade replaces with cel-go's), the strings extension at version 2 (`reverse` is version
/// 3), the optional types and the Kubernetes additions above; not the math or encoders extensions, which
/// kube-apiserver does not enable.
fn kubernetes_library() -> Env {
    with_kubernetes_additions(
        crate::core_decls::standard(&["add_map_map"]),
        &["strings", "optionals"],
        &["string_reverse"],
    )
    // cel-go before v0.28 (kube-apiserver's v0.27) declares `duration(int)`, which fails when it runs
    // (`palisade_cel_eval::functions::conversions`); cel-go v0.28 dropped it (339269b4)
    .with_extension(signature::declare(rows![(
        "duration",
        "int64_to_duration",
        false,
        "int",
        "google.protobuf.Duration",
        &[]
    )]))
}

fn with_kubernetes_additions(standard: Env, extensions: &[&str], except: &[&str]) -> Env {
    let mut env = standard.with_extension(crate::core_decls::extensions(extensions, except));
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
    env.with_extension(signature::declare(EXTRA))
}

/// The admission library (everything but the variables), built once.
fn admission_library() -> &'static Env {
    static LIBRARY: std::sync::OnceLock<Env> = std::sync::OnceLock::new();
    built_once(&LIBRARY, || {
        let mut env = kubernetes_library()
            .with_extension(signature::declare(AUTHZ))
            .with_extension(kube_decls())
            .with_proto_registry(std::sync::Arc::new(crate::admission_types::KubeTypes));
        for t in palisade_cel_eval::kube::TYPE_NAMES {
            env.add_variable(*t, CelType::type_of(abs(t)));
        }
        env
    })
}

/// `cell`'s environment, built by `build` the first time (one function for every such environment, for the module's
/// size).
fn built_once(cell: &'static std::sync::OnceLock<Env>, build: fn() -> Env) -> &'static Env {
    cell.get_or_init(build)
}

/// Build the admission library now if it is not built yet ([`crate::prepare_admission`]).
pub(crate) fn prepare_admission() {
    admission_library();
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
///
/// Built once and cloned (a clone shares the declarations): approver-policy compiles every rule in a new environment,
/// and building the standard library for each one cost about 0.3 ms a rule in `palisade.wasm`, so that a bundle of
/// 20,000 policies of three rules did not compile within the harness's 10 s.
pub(crate) fn certificate_request() -> Env {
    static ENV: std::sync::OnceLock<Env> = std::sync::OnceLock::new();
    built_once(&ENV, || {
        let mut env = crate::core_decls::standard(&["add_map_map"])
            .with_extension(crate::core_decls::extensions(&["strings"], &[]))
            .with_extension(palisade_cel_eval::approver::decls())
            .with_proto_registry(std::sync::Arc::new(palisade_cel_eval::approver::Messages));
        env.add_variable("self", CelType::String);
        env.add_variable(
            "cr",
            CelType::message(palisade_cel_eval::approver::T_CERTIFICATE_REQUEST),
        );
        env
    })
    .clone()
}

/// Checker declarations of the Kubernetes libraries (palisade-cel-eval's `kube` values), with upstream's overload ids (besides one `format.<name>()` per format).
#[rustfmt::skip]
const KUBE_ROWS: &str = rows![
    // quantity.go
    ("quantity", "string_to_quantity", false, "string", "kubernetes.Quantity", &[]),
    ("isQuantity", "is_quantity_string", false, "string", "bool", &[]),
    ("sign", "quantity_sign", true, "kubernetes.Quantity", "int", &[]),
    ("isInteger", "quantity_is_integer", true, "kubernetes.Quantity", "bool", &[]),
    ("asInteger", "quantity_as_integer", true, "kubernetes.Quantity", "int", &[]),
    ("asApproximateFloat", "quantity_as_float", true, "kubernetes.Quantity", "double", &[]),
    ("add", "quantity_add", true, "kubernetes.Quantity, kubernetes.Quantity", "kubernetes.Quantity", &[]),
    ("add", "quantity_add_int", true, "kubernetes.Quantity, int", "kubernetes.Quantity", &[]),
    ("sub", "quantity_sub", true, "kubernetes.Quantity, kubernetes.Quantity", "kubernetes.Quantity", &[]),
    ("sub", "quantity_sub_int", true, "kubernetes.Quantity, int", "kubernetes.Quantity", &[]),
    ("isLessThan", "quantity_is_less_than", true, "kubernetes.Quantity, kubernetes.Quantity", "bool", &[]),
    ("isLessThan", "semver_is_less_than", true, "kubernetes.Semver, kubernetes.Semver", "bool", &[]),
    ("isGreaterThan", "quantity_is_greater_than", true, "kubernetes.Quantity, kubernetes.Quantity", "bool", &[]),
    ("isGreaterThan", "semver_is_greater_than", true, "kubernetes.Semver, kubernetes.Semver", "bool", &[]),
    ("compareTo", "quantity_compare_to", true, "kubernetes.Quantity, kubernetes.Quantity", "int", &[]),
    ("compareTo", "semver_compare_to", true, "kubernetes.Semver, kubernetes.Semver", "int", &[]),
    // semverlib.go
    ("semver", "string_to_semver", false, "string", "kubernetes.Semver", &[]),
    ("semver", "string_bool_to_semver", false, "string, bool", "kubernetes.Semver", &[]),
    ("isSemver", "is_semver_string", false, "string", "bool", &[]),
    ("isSemver", "is_semver_string_bool", false, "string, bool", "bool", &[]),
    ("major", "semver_major", true, "kubernetes.Semver", "int", &[]),
    ("minor", "semver_minor", true, "kubernetes.Semver", "int", &[]),
    ("patch", "semver_patch", true, "kubernetes.Semver", "int", &[]),
    // ip.go
    ("ip", "string_to_ip", false, "string", "net.IP", &[]),
    ("isIP", "is_ip", false, "string", "bool", &[]),
    ("ip.isCanonical", "ip_is_canonical", false, "string", "bool", &[]),
    ("family", "ip_family", true, "net.IP", "int", &[]),
    ("isUnspecified", "ip_is_unspecified", true, "net.IP", "bool", &[]),
    ("isLoopback", "ip_is_loopback", true, "net.IP", "bool", &[]),
    ("isLinkLocalMulticast", "ip_is_link_local_multicast", true, "net.IP", "bool", &[]),
    ("isLinkLocalUnicast", "ip_is_link_local_unicast", true, "net.IP", "bool", &[]),
    ("isGlobalUnicast", "ip_is_global_unicast", true, "net.IP", "bool", &[]),
    ("string", "ip_to_string", false, "net.IP", "string", &[]),
    ("string", "cidr_to_string", false, "net.CIDR", "string", &[]),
    // cidr.go
    ("cidr", "string_to_cidr", false, "string", "net.CIDR", &[]),
    ("isCIDR", "is_cidr", false, "string", "bool", &[]),
    ("containsIP", "cidr_contains_ip_string", true, "net.CIDR, string", "bool", &[]),
    ("containsIP", "cidr_contains_ip_ip", true, "net.CIDR, net.IP", "bool", &[]),
    ("containsCIDR", "cidr_contains_cidr_string", true, "net.CIDR, string", "bool", &[]),
    ("containsCIDR", "cidr_contains_cidr", true, "net.CIDR, net.CIDR", "bool", &[]),
    ("ip", "cidr_ip", true, "net.CIDR", "net.IP", &[]),
    ("prefixLength", "cidr_prefix_length", true, "net.CIDR", "int", &[]),
    ("masked", "cidr_masked", true, "net.CIDR", "net.CIDR", &[]),
    // urls.go
    ("url", "string_to_url", false, "string", "kubernetes.URL", &[]),
    ("isURL", "is_url_string", false, "string", "bool", &[]),
    ("getScheme", "url_get_scheme", true, "kubernetes.URL", "string", &[]),
    ("getHost", "url_get_host", true, "kubernetes.URL", "string", &[]),
    ("getHostname", "url_get_hostname", true, "kubernetes.URL", "string", &[]),
    ("getPort", "url_get_port", true, "kubernetes.URL", "string", &[]),
    ("getEscapedPath", "url_get_escaped_path", true, "kubernetes.URL", "string", &[]),
    ("getQuery", "url_get_query", true, "kubernetes.URL", "map(string, list(string))", &[]),
    // format.go
    ("format.named", "format-named", false, "string", "optional_type(kubernetes.NamedFormat)", &[]),
    ("validate", "format-validate", true, "kubernetes.NamedFormat, string", "optional_type(list(string))", &[]),
];

/// Checker declarations, with upstream's overload ids.
fn kube_decls() -> Vec<FunctionDecl> {
    let mut v = signature::declare(KUBE_ROWS);
    for format in Format::all() {
        let name = format!("format.{}", format.cel_name());
        v.push(
            FunctionDecl::new(&name).with_overload(OverloadDecl::function(
                format!("format-{}", format.cel_name()),
                vec![],
                CelType::abstract_type(palisade_cel_eval::kube::T_FORMAT, &[]),
            )),
        );
    }
    v
}

#[cfg(test)]
mod tests {
    use cel_core::CelType;
    use palisade_cel_eval::authz::{T_AUTHORIZER, T_DECISION, T_GROUP, T_PATH, T_RESOURCE};
    use palisade_cel_eval::functions::{Function, Method};

    /// Every function the environments declare resolves to an implementation (operators, whose
    /// names do not start with a letter, are not calls in cel-core's tree).
    #[test]
    fn every_declared_function_resolves() {
        let envs = [
            super::library(),
            super::admission(crate::AdmissionVars {
                params: true,
                authorizer: true,
            }),
            super::certificate_request(),
        ];
        let mut missing = Vec::new();
        for env in &envs {
            for (name, decl) in env.functions() {
                if !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
                    continue;
                }
                for o in &decl.overloads {
                    let known = if o.is_member {
                        Method::from_name(name) != Method::Unknown
                    } else {
                        !matches!(
                            Function::from_name(name),
                            Function::Unknown
                                | Function::Math(palisade_cel_eval::functions::MathFn::Unknown)
                                | Function::Kube(palisade_cel_eval::functions::KubeFn::Format(
                                    None
                                ))
                        )
                    };
                    if !known {
                        missing.push(format!("{name} ({})", o.id));
                    }
                }
            }
        }
        missing.sort();
        missing.dedup();
        assert!(missing.is_empty(), "declared but not resolved: {missing:?}");
    }

    #[test]
    fn the_authorizer_library_names_only_its_types() {
        let types = [T_AUTHORIZER, T_DECISION, T_GROUP, T_PATH, T_RESOURCE];
        for decl in super::signature::declare(super::AUTHZ) {
            for o in &decl.overloads {
                for t in o.params.iter().chain([&o.result]) {
                    if let CelType::Abstract { name, .. } = t {
                        assert!(types.contains(&&**name), "{}: {name}", o.id);
                    }
                }
            }
        }
    }

    #[test]
    fn every_declared_kubernetes_type_is_a_library_type() {
        for decl in super::kube_decls() {
            for o in &decl.overloads {
                for t in o.params.iter().chain([&o.result]) {
                    let mut t = t;
                    while let CelType::Optional(inner) | CelType::List(inner) = t {
                        t = inner;
                    }
                    if let CelType::Abstract { name, .. } = t {
                        assert!(
                            palisade_cel_eval::kube::TYPE_NAMES.contains(&&**name),
                            "{}: {name}",
                            o.id
                        );
                    }
                }
            }
        }
    }
}
