//! The waPC floor: a Kubewarden waPC guest that does the least any answer needs, to measure
//! `palisade-kubewarden.wasm` against in the same run (`palisade bench --kubewarden`).
//!
//! - `validate` reads every byte of the payload once (serde into `IgnoredAny`: the JSON is checked, no tree is built)
//!   and accepts; a payload that is not JSON is rejected with code 400, as Palisade does.
//! - `validate_settings` answers `{"valid":true,"message":null}`, `protocol_version` answers `"v1"`.
//!
//! Everything but the waPC glue is plain Rust, tested natively.

/// What `validate` answers for a payload that reads: policy-sdk-rust's accepting ValidationResponse.
pub const ACCEPTED: &[u8] =
    br#"{"accepted":true,"message":null,"code":null,"mutated_object":null,"audit_annotations":null,"warnings":null}"#;

/// `validate`: scan the payload, then accept.
pub fn validate(payload: &[u8]) -> Vec<u8> {
    match serde_json::from_slice::<serde::de::IgnoredAny>(payload) {
        Ok(_) => ACCEPTED.to_vec(),
        Err(e) => {
            let message =
                serde_json::Value::String(format!("the validation request is not valid JSON: {e}"));
            format!(
                r#"{{"accepted":false,"message":{message},"code":400,"mutated_object":null,"audit_annotations":null,"warnings":null}}"#
            )
            .into_bytes()
        }
    }
}

/// `validate_settings`: any settings are valid.
pub fn validate_settings(_payload: &[u8]) -> Vec<u8> {
    br#"{"valid":true,"message":null}"#.to_vec()
}

/// `protocol_version`: the JSON string `"v1"`.
pub fn protocol_version() -> Vec<u8> {
    br#""v1""#.to_vec()
}

#[cfg(target_arch = "wasm32")]
mod guest {
    use wapc_guest::CallResult;

    fn validate(payload: &[u8]) -> CallResult {
        Ok(super::validate(payload))
    }

    fn validate_settings(payload: &[u8]) -> CallResult {
        Ok(super::validate_settings(payload))
    }

    fn protocol_version(_payload: &[u8]) -> CallResult {
        Ok(super::protocol_version())
    }

    /// Called by the waPC host right after instantiation.
    #[expect(unsafe_code, reason = "waPC hosts call the `wapc_init` export by name")]
    #[unsafe(no_mangle)]
    pub extern "C" fn wapc_init() {
        wapc_guest::register_function("validate", validate);
        wapc_guest::register_function("validate_settings", validate_settings);
        wapc_guest::register_function("protocol_version", protocol_version);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_json_and_rejects_the_rest() {
        let accepted: serde_json::Value =
            serde_json::from_slice(&validate(br#"{"request":{"uid":"u"},"settings":{}}"#))
                .expect("json");
        assert_eq!(accepted["accepted"], true);
        let rejected: serde_json::Value =
            serde_json::from_slice(&validate(b"{nope")).expect("json");
        assert_eq!(rejected["accepted"], false);
        assert_eq!(rejected["code"], 400);
        assert_eq!(
            serde_json::from_slice::<serde_json::Value>(&protocol_version()).expect("json"),
            "v1"
        );
        assert_eq!(
            serde_json::from_slice::<serde_json::Value>(&validate_settings(b"{}")).expect("json")["valid"],
            true
        );
    }
}
