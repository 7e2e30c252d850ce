//! `matchPolicy: Equivalent`: which resources kube-apiserver treats as the same objects.
//!
//! kube-apiserver builds its `EquivalentResourceMapper` (k8s.io/apimachinery
//! `runtime.EquivalentResourceRegistry`) while installing its API groups: every group/version
//! whose REST storage is the same etcd resource registers into one family, and each
//! resource/subresource registers the kind it is served as (`RegisterKindFor`). The table below
//! is that registry written out as data for the built-in API groups of kube-apiserver,
//! kube-aggregator and apiextensions-apiserver, taken from their storage providers
//! (`pkg/registry/*/rest/storage_*.go`, `pkg/controlplane`), as the union of the versions served
//! over Kubernetes 1.9 to 1.3x — for example `deployments` in apps/v1, apps/v1beta2,
//! apps/v1beta1 and extensions/v1beta1, whose `scale` subresource is served as
//! autoscaling/v1, apps/v1beta2, apps/v1beta1 and extensions/v1beta1 `Scale` respectively.
//!
//! Within a family the first member is the preferred (storage) version; the others follow in
//! the order kube-apiserver installs them. Every member of a family has the same resource name
//! (the [`crate::Index`] relies on it; a test checks it). Resources the table does not list
//! (custom resources, whose versions only the cluster knows) are equivalent in every version of the same group and
//! resource ([`EquivalentResourceMapper::any_version_equivalent`]).
//!
//! Not listed: extensions/v1beta1 `replicationcontrollers` (a dummy resource that only served
//! `scale`), and resources that were never served in more than one group/version.

use crate::attributes::{Gvk, Gvr};

/// One resource of a family: where it is served, its kind, and its subresources with their kinds.
#[derive(Debug, Clone, Copy)]
pub struct Member {
    pub group: &'static str,
    pub version: &'static str,
    pub resource: &'static str,
    pub kind: Gvk<'static>,
    pub subresources: &'static [(&'static str, Gvk<'static>)],
}

impl Member {
    pub fn gvr(&self) -> Gvr<'static> {
        Gvr::new(self.group, self.version, self.resource)
    }

    /// The kind `subresource` of this member is served as, if it serves it (`""` is the resource itself).
    pub fn kind_for(&self, subresource: &str) -> Option<Gvk<'static>> {
        if subresource.is_empty() {
            return Some(self.kind);
        }
        self.subresources
            .iter()
            .find(|(s, _)| *s == subresource)
            .map(|(_, k)| *k)
    }
}

/// Maps a resource to the resources that store the same objects (upstream's `EquivalentResourceMapper`).
pub trait EquivalentResourceMapper {
    /// Calls `visit` with each resource that shares storage with `resource` and serves
    /// `subresource` (the resource itself may be among them), in the mapper's order, with the kind
    /// that resource/subresource is served as (`None`: unknown). Stops once `visit` returns true.
    fn visit_equivalents(
        &self,
        resource: Gvr<'_>,
        subresource: &str,
        visit: &mut dyn FnMut(Gvr<'static>, Option<Gvk<'static>>) -> bool,
    );

    /// True when every equivalent of a resource has the same resource name (lets the matcher
    /// skip rules that cannot name it). The default is the safe `false`.
    fn preserves_resource_names(&self) -> bool {
        false
    }

    /// True when the mapper does not know `resource`'s family, so every version of the same group and resource
    /// counts as equivalent (what discovery would show for a custom resource served in several versions). The
    /// default is `false`: only the listed equivalents.
    fn any_version_equivalent(&self, _resource: Gvr<'_>) -> bool {
        false
    }
}

/// The built-in table ([`FAMILIES`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct BuiltinEquivalences;

impl EquivalentResourceMapper for BuiltinEquivalences {
    fn preserves_resource_names(&self) -> bool {
        // checked by tests/equivalence_test.rs
        true
    }

    /// Without discovery, a resource the table does not list (a custom resource, most often) is taken to be served
    /// in every version a rule names: `Test_ValidatingAdmissionPolicy_MatchWithMatchPolicyEquivalent` matches a `v1`
    /// rule against a `v2` request of the same CRD. The table still decides every move across groups.
    fn any_version_equivalent(&self, resource: Gvr<'_>) -> bool {
        family_of(resource).is_none()
    }

    fn visit_equivalents(
        &self,
        resource: Gvr<'_>,
        subresource: &str,
        visit: &mut dyn FnMut(Gvr<'static>, Option<Gvk<'static>>) -> bool,
    ) {
        let Some(family) = family_of(resource) else {
            return;
        };
        for m in family.iter() {
            if let Some(kind) = m.kind_for(subresource)
                && visit(m.gvr(), Some(kind))
            {
                return;
            }
        }
    }
}

/// The family `resource` belongs to, if the table lists it.
pub fn family_of(resource: Gvr<'_>) -> Option<&'static [Member]> {
    FAMILIES.iter().copied().find(|f| {
        f.iter().any(|m| {
            m.resource == resource.resource
                && m.group == resource.group
                && m.version == resource.version
        })
    })
}

const fn k(group: &'static str, version: &'static str, kind: &'static str) -> Gvk<'static> {
    Gvk::new(group, version, kind)
}

const fn m(
    group: &'static str,
    version: &'static str,
    resource: &'static str,
    kind: &'static str,
    subresources: &'static [(&'static str, Gvk<'static>)],
) -> Member {
    Member {
        group,
        version,
        resource,
        kind: k(group, version, kind),
        subresources,
    }
}

/// Every family of equivalent built-in resources.
pub static FAMILIES: &[&[Member]] = &[
    // apps
    &[
        m(
            "apps",
            "v1",
            "deployments",
            "Deployment",
            &[
                ("status", k("apps", "v1", "Deployment")),
                ("scale", k("autoscaling", "v1", "Scale")),
            ],
        ),
        m(
            "apps",
            "v1beta2",
            "deployments",
            "Deployment",
            &[
                ("status", k("apps", "v1beta2", "Deployment")),
                ("scale", k("apps", "v1beta2", "Scale")),
            ],
        ),
        m(
            "apps",
            "v1beta1",
            "deployments",
            "Deployment",
            &[
                ("status", k("apps", "v1beta1", "Deployment")),
                ("scale", k("apps", "v1beta1", "Scale")),
                ("rollback", k("apps", "v1beta1", "DeploymentRollback")),
            ],
        ),
        m(
            "extensions",
            "v1beta1",
            "deployments",
            "Deployment",
            &[
                ("status", k("extensions", "v1beta1", "Deployment")),
                ("scale", k("extensions", "v1beta1", "Scale")),
                ("rollback", k("extensions", "v1beta1", "DeploymentRollback")),
            ],
        ),
    ],
    &[
        m(
            "apps",
            "v1",
            "statefulsets",
            "StatefulSet",
            &[
                ("status", k("apps", "v1", "StatefulSet")),
                ("scale", k("autoscaling", "v1", "Scale")),
            ],
        ),
        m(
            "apps",
            "v1beta2",
            "statefulsets",
            "StatefulSet",
            &[
                ("status", k("apps", "v1beta2", "StatefulSet")),
                ("scale", k("apps", "v1beta2", "Scale")),
            ],
        ),
        m(
            "apps",
            "v1beta1",
            "statefulsets",
            "StatefulSet",
            &[
                ("status", k("apps", "v1beta1", "StatefulSet")),
                ("scale", k("apps", "v1beta1", "Scale")),
            ],
        ),
    ],
    &[
        m(
            "apps",
            "v1",
            "daemonsets",
            "DaemonSet",
            &[("status", k("apps", "v1", "DaemonSet"))],
        ),
        m(
            "apps",
            "v1beta2",
            "daemonsets",
            "DaemonSet",
            &[("status", k("apps", "v1beta2", "DaemonSet"))],
        ),
        m(
            "extensions",
            "v1beta1",
            "daemonsets",
            "DaemonSet",
            &[("status", k("extensions", "v1beta1", "DaemonSet"))],
        ),
    ],
    &[
        m(
            "apps",
            "v1",
            "replicasets",
            "ReplicaSet",
            &[
                ("status", k("apps", "v1", "ReplicaSet")),
                ("scale", k("autoscaling", "v1", "Scale")),
            ],
        ),
        m(
            "apps",
            "v1beta2",
            "replicasets",
            "ReplicaSet",
            &[
                ("status", k("apps", "v1beta2", "ReplicaSet")),
                ("scale", k("apps", "v1beta2", "Scale")),
            ],
        ),
        m(
            "extensions",
            "v1beta1",
            "replicasets",
            "ReplicaSet",
            &[
                ("status", k("extensions", "v1beta1", "ReplicaSet")),
                ("scale", k("extensions", "v1beta1", "Scale")),
            ],
        ),
    ],
    &[
        m(
            "apps",
            "v1",
            "controllerrevisions",
            "ControllerRevision",
            &[],
        ),
        m(
            "apps",
            "v1beta2",
            "controllerrevisions",
            "ControllerRevision",
            &[],
        ),
        m(
            "apps",
            "v1beta1",
            "controllerrevisions",
            "ControllerRevision",
            &[],
        ),
    ],
    // networking, policy
    &[
        m(
            "networking.k8s.io",
            "v1",
            "networkpolicies",
            "NetworkPolicy",
            &[],
        ),
        m(
            "extensions",
            "v1beta1",
            "networkpolicies",
            "NetworkPolicy",
            &[],
        ),
    ],
    &[
        m(
            "networking.k8s.io",
            "v1",
            "ingresses",
            "Ingress",
            &[("status", k("networking.k8s.io", "v1", "Ingress"))],
        ),
        m(
            "networking.k8s.io",
            "v1beta1",
            "ingresses",
            "Ingress",
            &[("status", k("networking.k8s.io", "v1beta1", "Ingress"))],
        ),
        m(
            "extensions",
            "v1beta1",
            "ingresses",
            "Ingress",
            &[("status", k("extensions", "v1beta1", "Ingress"))],
        ),
    ],
    &[
        m(
            "networking.k8s.io",
            "v1",
            "ingressclasses",
            "IngressClass",
            &[],
        ),
        m(
            "networking.k8s.io",
            "v1beta1",
            "ingressclasses",
            "IngressClass",
            &[],
        ),
    ],
    &[
        m(
            "policy",
            "v1beta1",
            "podsecuritypolicies",
            "PodSecurityPolicy",
            &[],
        ),
        m(
            "extensions",
            "v1beta1",
            "podsecuritypolicies",
            "PodSecurityPolicy",
            &[],
        ),
    ],
    &[
        m(
            "policy",
            "v1",
            "poddisruptionbudgets",
            "PodDisruptionBudget",
            &[("status", k("policy", "v1", "PodDisruptionBudget"))],
        ),
        m(
            "policy",
            "v1beta1",
            "poddisruptionbudgets",
            "PodDisruptionBudget",
            &[("status", k("policy", "v1beta1", "PodDisruptionBudget"))],
        ),
    ],
    // autoscaling, batch
    &[
        m(
            "autoscaling",
            "v2",
            "horizontalpodautoscalers",
            "HorizontalPodAutoscaler",
            &[("status", k("autoscaling", "v2", "HorizontalPodAutoscaler"))],
        ),
        m(
            "autoscaling",
            "v1",
            "horizontalpodautoscalers",
            "HorizontalPodAutoscaler",
            &[("status", k("autoscaling", "v1", "HorizontalPodAutoscaler"))],
        ),
        m(
            "autoscaling",
            "v2beta2",
            "horizontalpodautoscalers",
            "HorizontalPodAutoscaler",
            &[(
                "status",
                k("autoscaling", "v2beta2", "HorizontalPodAutoscaler"),
            )],
        ),
        m(
            "autoscaling",
            "v2beta1",
            "horizontalpodautoscalers",
            "HorizontalPodAutoscaler",
            &[(
                "status",
                k("autoscaling", "v2beta1", "HorizontalPodAutoscaler"),
            )],
        ),
    ],
    &[
        m(
            "batch",
            "v1",
            "cronjobs",
            "CronJob",
            &[("status", k("batch", "v1", "CronJob"))],
        ),
        m(
            "batch",
            "v1beta1",
            "cronjobs",
            "CronJob",
            &[("status", k("batch", "v1beta1", "CronJob"))],
        ),
        m(
            "batch",
            "v2alpha1",
            "cronjobs",
            "CronJob",
            &[("status", k("batch", "v2alpha1", "CronJob"))],
        ),
    ],
    // core ↔ events.k8s.io
    &[
        m("", "v1", "events", "Event", &[]),
        m("events.k8s.io", "v1", "events", "Event", &[]),
        m("events.k8s.io", "v1beta1", "events", "Event", &[]),
    ],
    &[
        m(
            "discovery.k8s.io",
            "v1",
            "endpointslices",
            "EndpointSlice",
            &[],
        ),
        m(
            "discovery.k8s.io",
            "v1beta1",
            "endpointslices",
            "EndpointSlice",
            &[],
        ),
    ],
    &[
        m("coordination.k8s.io", "v1", "leases", "Lease", &[]),
        m("coordination.k8s.io", "v1beta1", "leases", "Lease", &[]),
    ],
    &[
        m("node.k8s.io", "v1", "runtimeclasses", "RuntimeClass", &[]),
        m(
            "node.k8s.io",
            "v1beta1",
            "runtimeclasses",
            "RuntimeClass",
            &[],
        ),
        m(
            "node.k8s.io",
            "v1alpha1",
            "runtimeclasses",
            "RuntimeClass",
            &[],
        ),
    ],
    &[
        m(
            "scheduling.k8s.io",
            "v1",
            "priorityclasses",
            "PriorityClass",
            &[],
        ),
        m(
            "scheduling.k8s.io",
            "v1beta1",
            "priorityclasses",
            "PriorityClass",
            &[],
        ),
        m(
            "scheduling.k8s.io",
            "v1alpha1",
            "priorityclasses",
            "PriorityClass",
            &[],
        ),
    ],
    // storage
    &[
        m(
            "storage.k8s.io",
            "v1",
            "storageclasses",
            "StorageClass",
            &[],
        ),
        m(
            "storage.k8s.io",
            "v1beta1",
            "storageclasses",
            "StorageClass",
            &[],
        ),
    ],
    &[
        m(
            "storage.k8s.io",
            "v1",
            "volumeattachments",
            "VolumeAttachment",
            &[("status", k("storage.k8s.io", "v1", "VolumeAttachment"))],
        ),
        m(
            "storage.k8s.io",
            "v1beta1",
            "volumeattachments",
            "VolumeAttachment",
            &[("status", k("storage.k8s.io", "v1beta1", "VolumeAttachment"))],
        ),
        m(
            "storage.k8s.io",
            "v1alpha1",
            "volumeattachments",
            "VolumeAttachment",
            &[(
                "status",
                k("storage.k8s.io", "v1alpha1", "VolumeAttachment"),
            )],
        ),
    ],
    &[
        m("storage.k8s.io", "v1", "csidrivers", "CSIDriver", &[]),
        m("storage.k8s.io", "v1beta1", "csidrivers", "CSIDriver", &[]),
    ],
    &[
        m("storage.k8s.io", "v1", "csinodes", "CSINode", &[]),
        m("storage.k8s.io", "v1beta1", "csinodes", "CSINode", &[]),
    ],
    &[
        m(
            "storage.k8s.io",
            "v1",
            "csistoragecapacities",
            "CSIStorageCapacity",
            &[],
        ),
        m(
            "storage.k8s.io",
            "v1beta1",
            "csistoragecapacities",
            "CSIStorageCapacity",
            &[],
        ),
        m(
            "storage.k8s.io",
            "v1alpha1",
            "csistoragecapacities",
            "CSIStorageCapacity",
            &[],
        ),
    ],
    // rbac
    &[
        m("rbac.authorization.k8s.io", "v1", "roles", "Role", &[]),
        m("rbac.authorization.k8s.io", "v1beta1", "roles", "Role", &[]),
        m(
            "rbac.authorization.k8s.io",
            "v1alpha1",
            "roles",
            "Role",
            &[],
        ),
    ],
    &[
        m(
            "rbac.authorization.k8s.io",
            "v1",
            "rolebindings",
            "RoleBinding",
            &[],
        ),
        m(
            "rbac.authorization.k8s.io",
            "v1beta1",
            "rolebindings",
            "RoleBinding",
            &[],
        ),
        m(
            "rbac.authorization.k8s.io",
            "v1alpha1",
            "rolebindings",
            "RoleBinding",
            &[],
        ),
    ],
    &[
        m(
            "rbac.authorization.k8s.io",
            "v1",
            "clusterroles",
            "ClusterRole",
            &[],
        ),
        m(
            "rbac.authorization.k8s.io",
            "v1beta1",
            "clusterroles",
            "ClusterRole",
            &[],
        ),
        m(
            "rbac.authorization.k8s.io",
            "v1alpha1",
            "clusterroles",
            "ClusterRole",
            &[],
        ),
    ],
    &[
        m(
            "rbac.authorization.k8s.io",
            "v1",
            "clusterrolebindings",
            "ClusterRoleBinding",
            &[],
        ),
        m(
            "rbac.authorization.k8s.io",
            "v1beta1",
            "clusterrolebindings",
            "ClusterRoleBinding",
            &[],
        ),
        m(
            "rbac.authorization.k8s.io",
            "v1alpha1",
            "clusterrolebindings",
            "ClusterRoleBinding",
            &[],
        ),
    ],
    // certificates
    &[
        m(
            "certificates.k8s.io",
            "v1",
            "certificatesigningrequests",
            "CertificateSigningRequest",
            &[
                (
                    "status",
                    k("certificates.k8s.io", "v1", "CertificateSigningRequest"),
                ),
                (
                    "approval",
                    k("certificates.k8s.io", "v1", "CertificateSigningRequest"),
                ),
            ],
        ),
        m(
            "certificates.k8s.io",
            "v1beta1",
            "certificatesigningrequests",
            "CertificateSigningRequest",
            &[
                (
                    "status",
                    k(
                        "certificates.k8s.io",
                        "v1beta1",
                        "CertificateSigningRequest",
                    ),
                ),
                (
                    "approval",
                    k(
                        "certificates.k8s.io",
                        "v1beta1",
                        "CertificateSigningRequest",
                    ),
                ),
            ],
        ),
    ],
    // admissionregistration
    &[
        m(
            "admissionregistration.k8s.io",
            "v1",
            "validatingwebhookconfigurations",
            "ValidatingWebhookConfiguration",
            &[],
        ),
        m(
            "admissionregistration.k8s.io",
            "v1beta1",
            "validatingwebhookconfigurations",
            "ValidatingWebhookConfiguration",
            &[],
        ),
    ],
    &[
        m(
            "admissionregistration.k8s.io",
            "v1",
            "mutatingwebhookconfigurations",
            "MutatingWebhookConfiguration",
            &[],
        ),
        m(
            "admissionregistration.k8s.io",
            "v1beta1",
            "mutatingwebhookconfigurations",
            "MutatingWebhookConfiguration",
            &[],
        ),
    ],
    &[
        m(
            "admissionregistration.k8s.io",
            "v1",
            "validatingadmissionpolicies",
            "ValidatingAdmissionPolicy",
            &[(
                "status",
                k(
                    "admissionregistration.k8s.io",
                    "v1",
                    "ValidatingAdmissionPolicy",
                ),
            )],
        ),
        m(
            "admissionregistration.k8s.io",
            "v1beta1",
            "validatingadmissionpolicies",
            "ValidatingAdmissionPolicy",
            &[(
                "status",
                k(
                    "admissionregistration.k8s.io",
                    "v1beta1",
                    "ValidatingAdmissionPolicy",
                ),
            )],
        ),
        m(
            "admissionregistration.k8s.io",
            "v1alpha1",
            "validatingadmissionpolicies",
            "ValidatingAdmissionPolicy",
            &[(
                "status",
                k(
                    "admissionregistration.k8s.io",
                    "v1alpha1",
                    "ValidatingAdmissionPolicy",
                ),
            )],
        ),
    ],
    &[
        m(
            "admissionregistration.k8s.io",
            "v1",
            "validatingadmissionpolicybindings",
            "ValidatingAdmissionPolicyBinding",
            &[],
        ),
        m(
            "admissionregistration.k8s.io",
            "v1beta1",
            "validatingadmissionpolicybindings",
            "ValidatingAdmissionPolicyBinding",
            &[],
        ),
        m(
            "admissionregistration.k8s.io",
            "v1alpha1",
            "validatingadmissionpolicybindings",
            "ValidatingAdmissionPolicyBinding",
            &[],
        ),
    ],
    &[
        m(
            "admissionregistration.k8s.io",
            "v1beta1",
            "mutatingadmissionpolicies",
            "MutatingAdmissionPolicy",
            &[],
        ),
        m(
            "admissionregistration.k8s.io",
            "v1alpha1",
            "mutatingadmissionpolicies",
            "MutatingAdmissionPolicy",
            &[],
        ),
    ],
    &[
        m(
            "admissionregistration.k8s.io",
            "v1beta1",
            "mutatingadmissionpolicybindings",
            "MutatingAdmissionPolicyBinding",
            &[],
        ),
        m(
            "admissionregistration.k8s.io",
            "v1alpha1",
            "mutatingadmissionpolicybindings",
            "MutatingAdmissionPolicyBinding",
            &[],
        ),
    ],
    // apiextensions-apiserver, kube-aggregator
    &[
        m(
            "apiextensions.k8s.io",
            "v1",
            "customresourcedefinitions",
            "CustomResourceDefinition",
            &[(
                "status",
                k("apiextensions.k8s.io", "v1", "CustomResourceDefinition"),
            )],
        ),
        m(
            "apiextensions.k8s.io",
            "v1beta1",
            "customresourcedefinitions",
            "CustomResourceDefinition",
            &[(
                "status",
                k(
                    "apiextensions.k8s.io",
                    "v1beta1",
                    "CustomResourceDefinition",
                ),
            )],
        ),
    ],
    &[
        m(
            "apiregistration.k8s.io",
            "v1",
            "apiservices",
            "APIService",
            &[("status", k("apiregistration.k8s.io", "v1", "APIService"))],
        ),
        m(
            "apiregistration.k8s.io",
            "v1beta1",
            "apiservices",
            "APIService",
            &[(
                "status",
                k("apiregistration.k8s.io", "v1beta1", "APIService"),
            )],
        ),
    ],
    // flowcontrol
    &[
        m(
            "flowcontrol.apiserver.k8s.io",
            "v1",
            "flowschemas",
            "FlowSchema",
            &[(
                "status",
                k("flowcontrol.apiserver.k8s.io", "v1", "FlowSchema"),
            )],
        ),
        m(
            "flowcontrol.apiserver.k8s.io",
            "v1beta3",
            "flowschemas",
            "FlowSchema",
            &[(
                "status",
                k("flowcontrol.apiserver.k8s.io", "v1beta3", "FlowSchema"),
            )],
        ),
        m(
            "flowcontrol.apiserver.k8s.io",
            "v1beta2",
            "flowschemas",
            "FlowSchema",
            &[(
                "status",
                k("flowcontrol.apiserver.k8s.io", "v1beta2", "FlowSchema"),
            )],
        ),
        m(
            "flowcontrol.apiserver.k8s.io",
            "v1beta1",
            "flowschemas",
            "FlowSchema",
            &[(
                "status",
                k("flowcontrol.apiserver.k8s.io", "v1beta1", "FlowSchema"),
            )],
        ),
    ],
    &[
        m(
            "flowcontrol.apiserver.k8s.io",
            "v1",
            "prioritylevelconfigurations",
            "PriorityLevelConfiguration",
            &[(
                "status",
                k(
                    "flowcontrol.apiserver.k8s.io",
                    "v1",
                    "PriorityLevelConfiguration",
                ),
            )],
        ),
        m(
            "flowcontrol.apiserver.k8s.io",
            "v1beta3",
            "prioritylevelconfigurations",
            "PriorityLevelConfiguration",
            &[(
                "status",
                k(
                    "flowcontrol.apiserver.k8s.io",
                    "v1beta3",
                    "PriorityLevelConfiguration",
                ),
            )],
        ),
        m(
            "flowcontrol.apiserver.k8s.io",
            "v1beta2",
            "prioritylevelconfigurations",
            "PriorityLevelConfiguration",
            &[(
                "status",
                k(
                    "flowcontrol.apiserver.k8s.io",
                    "v1beta2",
                    "PriorityLevelConfiguration",
                ),
            )],
        ),
        m(
            "flowcontrol.apiserver.k8s.io",
            "v1beta1",
            "prioritylevelconfigurations",
            "PriorityLevelConfiguration",
            &[(
                "status",
                k(
                    "flowcontrol.apiserver.k8s.io",
                    "v1beta1",
                    "PriorityLevelConfiguration",
                ),
            )],
        ),
    ],
];
