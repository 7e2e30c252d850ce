//! The object types kube-apiserver declares for the admission environment's `request` and
//! `namespaceObject` (kubernetes/apiserver `pkg/admission/plugin/cel/compile.go`:
//! `BuildRequestType`, `BuildNamespaceType`).
//!
//! As for approver-policy's `cr` (see `approver.rs`), the checker validates field selections on
//! these message types through cel-core's [`cel_core::ProtoTypeResolver`]: an unknown field is
//! `undefined field 'foo'`, `namespaceObject.metadata.managedFields` and `ownerReferences` are
//! not declared, and each field has upstream's type (`request.userInfo.groups` is
//! `list(string)`, `request.options` is `dyn`, …). At runtime both variables stay the JSON maps
//! they are bound to (kube-apiserver binds them as unstructured maps too).

use std::any::Any;

use cel_core::{CelType, ProtoTypeResolver, ResolvedProtoType};

/// `kubernetes.AdmissionRequest`, the type of `request`.
pub(crate) const T_REQUEST: &str = "kubernetes.AdmissionRequest";
/// `kubernetes.Namespace`, the type of `namespaceObject`.
pub(crate) const T_NAMESPACE: &str = "kubernetes.Namespace";

const T_GVK: &str = "kubernetes.GroupVersionKind";
const T_GVR: &str = "kubernetes.GroupVersionResource";
const T_USER_INFO: &str = "kubernetes.UserInfo";
const T_NS_SPEC: &str = "kubernetes.NamespaceSpec";
const T_NS_CONDITION: &str = "kubernetes.NamespaceCondition";
const T_NS_STATUS: &str = "kubernetes.NamespaceStatus";
const T_NS_METADATA: &str = "kubernetes.NamespaceMetadata";

#[derive(Clone, Copy)]
enum Field {
    String,
    Bool,
    Int,
    Timestamp,
    Dyn,
    StringList,
    StringMap,
    /// `map(string, list(string))`
    Extra,
    Message(&'static str),
    MessageList(&'static str),
}

impl Field {
    fn cel_type(self) -> CelType {
        match self {
            Field::String => CelType::String,
            Field::Bool => CelType::Bool,
            Field::Int => CelType::Int,
            Field::Timestamp => CelType::Timestamp,
            Field::Dyn => CelType::Dyn,
            Field::StringList => CelType::list(CelType::String),
            Field::StringMap => CelType::map(CelType::String, CelType::String),
            Field::Extra => CelType::map(CelType::String, CelType::list(CelType::String)),
            Field::Message(m) => CelType::message(m),
            Field::MessageList(m) => CelType::list(CelType::message(m)),
        }
    }
}

/// Every declared message type with its fields, in upstream's declaration order.
const TYPES: &[(&str, &[(&str, Field)])] = &[
    (
        T_REQUEST,
        &[
            ("kind", Field::Message(T_GVK)),
            ("resource", Field::Message(T_GVR)),
            ("subResource", Field::String),
            ("requestKind", Field::Message(T_GVK)),
            ("requestResource", Field::Message(T_GVR)),
            ("requestSubResource", Field::String),
            ("name", Field::String),
            ("namespace", Field::String),
            ("operation", Field::String),
            ("userInfo", Field::Message(T_USER_INFO)),
            ("dryRun", Field::Bool),
            ("options", Field::Dyn),
        ],
    ),
    (
        T_GVK,
        &[
            ("group", Field::String),
            ("version", Field::String),
            ("kind", Field::String),
        ],
    ),
    (
        T_GVR,
        &[
            ("group", Field::String),
            ("version", Field::String),
            ("resource", Field::String),
        ],
    ),
    (
        T_USER_INFO,
        &[
            ("username", Field::String),
            ("uid", Field::String),
            ("groups", Field::StringList),
            ("extra", Field::Extra),
        ],
    ),
    (
        T_NAMESPACE,
        &[
            ("metadata", Field::Message(T_NS_METADATA)),
            ("spec", Field::Message(T_NS_SPEC)),
            ("status", Field::Message(T_NS_STATUS)),
        ],
    ),
    (T_NS_SPEC, &[("finalizers", Field::StringList)]),
    (
        T_NS_CONDITION,
        &[
            ("status", Field::String),
            ("type", Field::String),
            ("lastTransitionTime", Field::Timestamp),
            ("message", Field::String),
            ("reason", Field::String),
        ],
    ),
    (
        T_NS_STATUS,
        &[
            ("conditions", Field::MessageList(T_NS_CONDITION)),
            ("phase", Field::String),
        ],
    ),
    (
        T_NS_METADATA,
        &[
            ("name", Field::String),
            ("generateName", Field::String),
            ("namespace", Field::String),
            ("labels", Field::StringMap),
            ("annotations", Field::StringMap),
            ("UID", Field::String),
            ("creationTimestamp", Field::Timestamp),
            ("deletionGracePeriodSeconds", Field::Int),
            ("deletionTimestamp", Field::Timestamp),
            ("generation", Field::Int),
            ("resourceVersion", Field::String),
            ("finalizers", Field::StringList),
        ],
    ),
];

fn fields(message: &str) -> Option<&'static [(&'static str, Field)]> {
    TYPES
        .iter()
        .find(|(name, _)| *name == message)
        .map(|(_, fields)| *fields)
}

/// Whether `message` is one of the admission environment's object types.
pub(crate) fn is_admission_type(message: &str) -> bool {
    fields(message).is_some()
}

/// The checker's view of the admission object types. Only the checker calls it: Palisade
/// evaluates with its own evaluator over the bound JSON, so the runtime half of
/// [`ProtoRegistry`] is never reached and answers with an error value.
#[derive(Debug, Default)]
pub(crate) struct KubeTypes;

impl ProtoTypeResolver for KubeTypes {
    fn get_field_type(&self, message: &str, field: &str) -> Option<CelType> {
        fields(message)?
            .iter()
            .find(|(name, _)| *name == field)
            .map(|(_, f)| f.cel_type())
    }

    fn has_message(&self, message: &str) -> bool {
        is_admission_type(message)
    }

    fn is_extension(&self, _message: &str, _ext_name: &str) -> bool {
        false
    }

    fn get_enum_value(&self, _enum_name: &str, _value_name: &str) -> Option<i32> {
        None
    }

    fn resolve_qualified(&self, _parts: &[&str], _container: &str) -> Option<ResolvedProtoType> {
        // the type names are not values in kube-apiserver's environment either (no
        // `kubernetes.AdmissionRequest{…}` construction is offered to policies)
        None
    }

    fn resolve_message_name(&self, _name: &str, _container: &str) -> Option<String> {
        None
    }

    fn message_field_names(&self, message: &str) -> Option<Vec<String>> {
        fields(message).map(|fs| fs.iter().map(|(n, _)| (*n).to_string()).collect())
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

palisade_cel_eval::checker_only_registry!(KubeTypes);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upstream_fields() {
        // upstream: k8s.io/apiserver/pkg/admission/plugin/cel/compile.go BuildRequestType,
        // BuildNamespaceType
        let r = KubeTypes;
        assert_eq!(
            r.get_field_type(T_REQUEST, "userInfo"),
            Some(CelType::message(T_USER_INFO))
        );
        assert_eq!(
            r.get_field_type(T_USER_INFO, "extra"),
            Some(CelType::map(
                CelType::String,
                CelType::list(CelType::String)
            ))
        );
        assert_eq!(r.get_field_type(T_REQUEST, "options"), Some(CelType::Dyn));
        assert_eq!(r.get_field_type(T_REQUEST, "uid"), None);
        assert_eq!(r.get_field_type(T_REQUEST, "object"), None);
        assert_eq!(r.get_field_type(T_NS_METADATA, "managedFields"), None);
        assert_eq!(r.get_field_type(T_NS_METADATA, "ownerReferences"), None);
        assert_eq!(
            r.get_field_type(T_NS_STATUS, "conditions"),
            Some(CelType::list(CelType::message(T_NS_CONDITION)))
        );
        assert!(r.has_message(T_NAMESPACE));
        assert!(!r.has_message("kubernetes.Pod"));
    }
}
