//! Message types declared for the checker only (`request`, `namespaceObject`, approver-policy's `cr`).
//!
//! cel-core checks field selections on message types through a `ProtoTypeResolver`, and its `Env` only takes one that
//! is also a `ProtoRegistry` (its runtime hooks). Palisade never runs cel-core's evaluator: those hooks answer an
//! error, and this module writes them once for every checker-only type table.

/// The answer of every runtime hook: never reached, since our own evaluator runs the programs.
pub fn not_evaluated() -> cel_core::Value {
    cel_core::Value::error(cel_core::EvalError::internal(
        "palisade-cel evaluates with its own evaluator",
    ))
}

/// Implement cel-core's `ProtoRegistry` runtime hooks for a checker-only type table.
#[macro_export]
macro_rules! checker_only_registry {
    ($ty:ty) => {
        impl cel_core::ProtoRegistry for $ty {
            fn construct_message(
                &self,
                _type_name: &str,
                _fields: &[cel_core::StructFieldValue],
                _strong_enums: bool,
            ) -> cel_core::Value {
                $crate::checker_types::not_evaluated()
            }

            fn message_field_access(
                &self,
                _msg: &dyn cel_core::MessageValue,
                _field: &str,
                _optional: bool,
                _strong_enums: bool,
            ) -> cel_core::Value {
                $crate::checker_types::not_evaluated()
            }

            fn message_has_field(
                &self,
                _msg: &dyn cel_core::MessageValue,
                _field: &str,
            ) -> cel_core::Value {
                $crate::checker_types::not_evaluated()
            }

            fn get_extension_value(
                &self,
                _msg: &dyn cel_core::MessageValue,
                _ext_name: &str,
                _optional: bool,
                _strong_enums: bool,
            ) -> Option<cel_core::Value> {
                None
            }

            fn has_extension(
                &self,
                _msg: &dyn cel_core::MessageValue,
                _ext_name: &str,
            ) -> Option<bool> {
                None
            }
        }
    };
}

pub use checker_only_registry;
