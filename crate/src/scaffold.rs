//! An `admission.k8s.io/v1` AdmissionReview for a manifest, shaped as kube-apiserver sends it: the one home of
//! `palisade scaffold review` and of the playground's "request from a manifest". Pure: the uid is the caller's, or
//! derived from the request.

use serde_json::{Value, json};

/// What to put around the object.
#[derive(Debug, Clone)]
pub struct Options {
    pub operation: String,
    pub old_object: Option<Value>,
    pub username: String,
    pub groups: Vec<String>,
    pub namespace: Option<String>,
    pub dry_run: bool,
    pub subresource: String,
    /// The request's uid. `None`: one derived from the request, so that scaffolded recordings do not churn (the
    /// engine takes no randomness: a caller that wants a fresh uid, such as the playground, supplies it).
    pub uid: Option<String>,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            operation: "CREATE".into(),
            old_object: None,
            username: "kubernetes-admin".into(),
            groups: vec!["system:masters".into(), "system:authenticated".into()],
            namespace: None,
            dry_run: false,
            subresource: String::new(),
            uid: None,
        }
    }
}

/// Kinds whose objects are cluster-scoped (the built-in ones; CRDs default to namespaced).
const CLUSTER_SCOPED: &[&str] = &[
    "Namespace",
    "Node",
    "PersistentVolume",
    "ClusterRole",
    "ClusterRoleBinding",
    "CustomResourceDefinition",
    "StorageClass",
    "PriorityClass",
    "ValidatingWebhookConfiguration",
    "MutatingWebhookConfiguration",
    "ValidatingAdmissionPolicy",
    "ValidatingAdmissionPolicyBinding",
    "CertificateSigningRequest",
    "APIService",
    "RuntimeClass",
    "IngressClass",
    "CSIDriver",
    "CSINode",
    "VolumeAttachment",
    "ClusterIssuer",
    "CertificateRequestPolicy",
];

/// Kinds whose served resource is not what [`guess_resource`] guesses, by (group, kind): the irregular ones of the
/// built-in and well-known APIs.
const IRREGULAR: &[(&str, &str, &str)] = &[
    // gateway.networking.k8s.io names its Gateway CRD's plural `gateways`
    ("gateway.networking.k8s.io", "Gateway", "gateways"),
];

/// The plural resource name kube's RESTMapper guesses for a kind: k8s.io/apimachinery `pkg/api/meta`
/// `UnsafeGuessKindToResource` (lowercase; `…endpoints` stays as it is; `…s` → `…ses`; `…y` → `…ies`; else `…s`).
pub fn guess_resource(kind: &str) -> String {
    if kind.is_empty() {
        return String::new();
    }
    let singular = kind.to_lowercase();
    if singular.ends_with("endpoints") {
        return singular;
    }
    if singular.ends_with('s') {
        format!("{singular}es")
    } else if let Some(stem) = singular.strip_suffix('y') {
        format!("{stem}ies")
    } else {
        format!("{singular}s")
    }
}

/// The resource of a kind: the irregular table, then [`guess_resource`].
pub fn resource_for_kind(group: &str, kind: &str) -> String {
    IRREGULAR
        .iter()
        .find(|(g, k, _)| *g == group && *k == kind)
        .map_or_else(|| guess_resource(kind), |(_, _, r)| (*r).to_owned())
}

fn options_kind(operation: &str) -> Option<&'static str> {
    match operation {
        "CREATE" => Some("CreateOptions"),
        "UPDATE" => Some("UpdateOptions"),
        "DELETE" => Some("DeleteOptions"),
        _ => None,
    }
}

/// A stable uid derived from the request, so that scaffolded recordings do not churn.
fn stable_uid(seed: &str) -> String {
    // FNV-1a, twice with different offsets, laid out as a UUID.
    let mut a: u64 = 0xcbf2_9ce4_8422_2325;
    let mut b: u64 = 0x8422_2325_cbf2_9ce4;
    for byte in seed.bytes() {
        a = (a ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
        b = (b ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    let hex = format!("{a:016x}{b:016x}");
    format!(
        "{}-{}-{}-{}-{}",
        hex.get(0..8).unwrap_or_default(),
        hex.get(8..12).unwrap_or_default(),
        hex.get(12..16).unwrap_or_default(),
        hex.get(16..20).unwrap_or_default(),
        hex.get(20..32).unwrap_or_default()
    )
}

/// Builds the AdmissionReview for one manifest.
pub fn review(manifest: &Value, opts: &Options) -> Result<Value, String> {
    let operation = opts.operation.to_uppercase();
    if !matches!(
        operation.as_str(),
        "CREATE" | "UPDATE" | "DELETE" | "CONNECT"
    ) {
        return Err(format!(
            "unknown operation `{}`: expected CREATE, UPDATE, DELETE or CONNECT",
            opts.operation
        ));
    }
    let api_version = manifest
        .get("apiVersion")
        .and_then(Value::as_str)
        .ok_or("the manifest has no `apiVersion`")?;
    let kind = manifest
        .get("kind")
        .and_then(Value::as_str)
        .ok_or("the manifest has no `kind`")?;
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
    let resource = resource_for_kind(group, kind);
    let name = manifest
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or("");
    let cluster_scoped = CLUSTER_SCOPED.contains(&kind);
    let namespace = if cluster_scoped {
        String::new()
    } else {
        opts.namespace
            .clone()
            .or_else(|| {
                manifest
                    .pointer("/metadata/namespace")
                    .and_then(Value::as_str)
                    .map(str::to_string)
            })
            .unwrap_or_else(|| "default".into())
    };
    let (object, old_object) = match operation.as_str() {
        "CREATE" | "CONNECT" => (manifest.clone(), Value::Null),
        "UPDATE" => (
            manifest.clone(),
            opts.old_object
                .clone()
                .ok_or("an UPDATE needs the old object")?,
        ),
        _ => (
            Value::Null,
            opts.old_object.clone().unwrap_or_else(|| manifest.clone()),
        ),
    };
    let uid = opts.uid.clone().unwrap_or_else(|| {
        stable_uid(&format!(
            "{operation}/{api_version}/{kind}/{namespace}/{name}"
        ))
    });
    let gvk = json!({ "group": group, "version": version, "kind": kind });
    let gvr = json!({ "group": group, "version": version, "resource": resource });
    let mut request = json!({
        "uid": uid,
        "kind": gvk,
        "resource": gvr,
        "requestKind": gvk,
        "requestResource": gvr,
        "name": name,
        "operation": operation,
        "userInfo": { "username": opts.username, "groups": opts.groups },
        "object": object,
        "oldObject": old_object,
        "dryRun": opts.dry_run,
    });
    if let Some(obj) = request.as_object_mut() {
        if !namespace.is_empty() {
            obj.insert("namespace".into(), json!(namespace));
        }
        if !opts.subresource.is_empty() {
            obj.insert("subResource".into(), json!(opts.subresource));
            obj.insert("requestSubResource".into(), json!(opts.subresource));
        }
        if let Some(kind) = options_kind(&operation) {
            obj.insert(
                "options".into(),
                json!({ "apiVersion": "meta.k8s.io/v1", "kind": kind }),
            );
        }
    }
    Ok(
        json!({ "apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": request }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plurals_follow_the_restmapper() {
        assert_eq!(resource_for_kind("", "Pod"), "pods");
        assert_eq!(
            resource_for_kind("networking.k8s.io", "Ingress"),
            "ingresses"
        );
        assert_eq!(
            resource_for_kind("networking.k8s.io", "NetworkPolicy"),
            "networkpolicies"
        );
        assert_eq!(resource_for_kind("", "Endpoints"), "endpoints");
        assert_eq!(
            resource_for_kind("", "ComponentStatus"),
            "componentstatuses"
        );
        // upstream's guess is not English: `…y` always becomes `…ies`
        assert_eq!(guess_resource("Gateway"), "gatewaies");
        assert_eq!(resource_for_kind("example.com", "Gateway"), "gatewaies");
        assert_eq!(
            resource_for_kind("gateway.networking.k8s.io", "Gateway"),
            "gateways"
        );
        assert_eq!(guess_resource(""), "");
    }

    #[test]
    fn a_pod_create() {
        let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "team-a"}});
        let r = review(&pod, &Options::default()).unwrap();
        assert_eq!(
            r["request"]["resource"],
            json!({"group": "", "version": "v1", "resource": "pods"})
        );
        assert_eq!(r["request"]["namespace"], "team-a");
        assert_eq!(r["request"]["oldObject"], Value::Null);
        assert_eq!(r["request"]["options"]["kind"], "CreateOptions");
        assert_eq!(
            r["request"]["uid"],
            review(&pod, &Options::default()).unwrap()["request"]["uid"]
        );
        let given = Options {
            uid: Some("u-1".into()),
            ..Options::default()
        };
        assert_eq!(review(&pod, &given).unwrap()["request"]["uid"], "u-1");
    }

    #[test]
    fn a_namespace_is_cluster_scoped_and_update_needs_old() {
        let ns = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a"}});
        let r = review(&ns, &Options::default()).unwrap();
        assert!(r["request"].get("namespace").is_none());
        let opts = Options {
            operation: "UPDATE".into(),
            ..Options::default()
        };
        assert!(review(&ns, &opts).is_err());
        let opts = Options {
            operation: "DELETE".into(),
            ..Options::default()
        };
        let r = review(&ns, &opts).unwrap();
        assert_eq!(r["request"]["object"], Value::Null);
        assert_eq!(r["request"]["oldObject"]["metadata"]["name"], "team-a");
    }
}
