//! Replaying a host-capabilities session in kwctl's own format: what `kwctl run
//! --record-host-capabilities-interactions FILE` writes and `--replay-host-capabilities-interactions FILE` reads
//! (kubewarden-controller `crates/kwctl/src/callback_handler/proxy.rs`; sample sessions in
//! `crates/kwctl/tests/data/host-capabilities-sessions/`).
//!
//! A session file is a YAML sequence of exchanges, in the order the policy made its host calls:
//!
//! ```yaml
//! - type: Exchange
//!   request: |
//!     !KubernetesGetResource
//!     api_version: v1
//!     kind: Namespace
//!     name: production
//!     namespace: null
//!     disable_cache: false
//!   response:
//!     type: Success
//!     payload: '{"apiVersion":"v1","kind":"Namespace",…}'
//! - type: Exchange
//!   request: |
//!     …
//!   response:
//!     type: Error
//!     message: Cannot find v1/Namespace named 'gone' inside of namespace 'None'
//! ```
//!
//! `request` is a *string*: policy-evaluator's `CallbackRequestType` serialized as YAML, the variant as a tag.
//! `response` is `Success` with the payload handed to the guest (a UTF-8 string, here JSON) or `Error` with the
//! message of the host's failure.
//!
//! Replay is kwctl's: each host call takes the next exchange; it must be the same request (optional fields that are
//! absent or `null` are the same, as for kwctl's `Option`s), else the call fails with kwctl's wording (`Replay error:
//! unexpected request. Was expecting …, got … instead`, `the list of recorded responses is empty`). The answer, or the
//! recorded error, goes back to the guest through policy-evaluator's callback runtime, as from a live host.
//! Exchanges left unreplayed at the end are only reported, as kwctl warns of them.
//!
//! The host gates (`hostCapabilities`, `contextAwareResources`) stay in front of the replay, as in kwctl: a refused
//! call never reaches the recording.

use std::collections::VecDeque;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::Deserialize;
use serde_json::{Map, Value};

/// One exchange of a session file, as kwctl writes it (`type: Exchange`).
#[derive(Debug, Deserialize)]
#[serde(tag = "type")]
enum Entry {
    Exchange { request: String, response: Response },
}

/// The recorded answer of the host.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(tag = "type")]
pub enum Response {
    Success { payload: String },
    Error { message: String },
}

/// A host request as policy-evaluator's `CallbackRequestType` names it: the variant and its fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    variant: String,
    fields: Value,
}

impl Request {
    /// A request of `variant` with `fields` (an object); `null` fields are dropped, as absent `Option`s.
    pub fn new(variant: &str, fields: Value) -> Self {
        Self {
            variant: variant.to_owned(),
            fields: without_nulls(fields),
        }
    }

    /// `kubernetes/get_resource` as policy-evaluator turns the guest's payload into
    /// `CallbackRequestType::KubernetesGetResource`.
    pub fn get_resource(payload: &Value) -> Self {
        let field = |name: &str| payload.get(name).cloned().unwrap_or(Value::Null);
        let mut fields = Map::new();
        for name in [
            "api_version",
            "kind",
            "name",
            "namespace",
            "disable_cache",
            "field_masks",
        ] {
            fields.insert(name.to_owned(), field(name));
        }
        Self::new("KubernetesGetResource", Value::Object(fields))
    }

    /// `kubernetes/can_i` as `CallbackRequestType::KubernetesCanI { request, disable_cache }`.
    pub fn can_i(payload: &Value) -> Self {
        let field = |name: &str| payload.get(name).cloned().unwrap_or(Value::Null);
        let mut fields = Map::new();
        fields.insert("request".to_owned(), field("subject_access_review"));
        fields.insert("disable_cache".to_owned(), field("disable_cache"));
        Self::new("KubernetesCanI", Value::Object(fields))
    }

    /// A recorded request: the YAML text kwctl stores, a `CallbackRequestType` tagged with its variant.
    fn parse(text: &str) -> Result<Self, String> {
        let (tag, fields) =
            palisade_yaml::from_str_tagged(text, true).map_err(|e| e.to_string())?;
        let Some(tag) = tag else {
            return Err(
                "it is not tagged with a request type (e.g. `!KubernetesGetResource`)".to_owned(),
            );
        };
        let variant = tag.strip_prefix('!').unwrap_or(&tag);
        if !fields.is_object() {
            return Err(format!("the fields of `!{variant}` are not a mapping"));
        }
        Ok(Self::new(variant, fields))
    }
}

impl fmt::Display for Request {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.variant, self.fields)
    }
}

fn without_nulls(value: Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k, without_nulls(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(without_nulls).collect()),
        other => other,
    }
}

/// A recorded session, replayed in order; shared by every instance of one run.
#[derive(Debug)]
pub struct Session {
    source: PathBuf,
    exchanges: Mutex<VecDeque<(Request, Response)>>,
    /// Why host calls could not be answered from the recording, in order.
    misses: Mutex<Vec<String>>,
}

impl Session {
    /// Read a session file written by `kwctl run --record-host-capabilities-interactions`.
    pub fn load(path: &Path) -> Result<Self, String> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            format!(
                "cannot read the host capabilities interactions file `{}`: {e}",
                path.display()
            )
        })?;
        Self::parse(path, &text)
    }

    /// Parse a session file's text; `source` only names it in messages.
    pub fn parse(source: &Path, text: &str) -> Result<Self, String> {
        let fail = |why: String| {
            format!(
                "`{}` is not a kwctl host capabilities interactions file: {why}",
                source.display()
            )
        };
        let entries: Vec<Entry> =
            palisade_yaml::from_str_as(text).map_err(|e| fail(e.to_string()))?;
        let exchanges = entries
            .into_iter()
            .enumerate()
            .map(|(i, Entry::Exchange { request, response })| {
                Request::parse(&request)
                    .map(|request| (request, response))
                    .map_err(|why| fail(format!("the request of exchange {}: {why}", i + 1)))
            })
            .collect::<Result<_, _>>()?;
        Ok(Self {
            source: source.to_path_buf(),
            exchanges: Mutex::new(exchanges),
            misses: Mutex::default(),
        })
    }

    pub fn source(&self) -> &Path {
        &self.source
    }

    /// Answer one host call with the next recorded exchange: its payload, or the message of the recorded error or of
    /// the replay failure (in kwctl's words), which the caller hands over as a failed callback.
    pub fn replay(&self, request: &Request) -> Result<Vec<u8>, String> {
        let next = self
            .exchanges
            .lock()
            .map_err(|_| "the replay session is poisoned".to_owned())?
            .pop_front();
        let miss = match next {
            None => "the list of recorded responses is empty".to_owned(),
            Some((expected, response)) if expected == *request => {
                return match response {
                    Response::Success { payload } => Ok(payload.into_bytes()),
                    Response::Error { message } => Err(message),
                };
            }
            Some((expected, _)) => format!(
                "Replay error: unexpected request. Was expecting {expected}, got {request} instead"
            ),
        };
        if let Ok(mut misses) = self.misses.lock() {
            misses.push(miss.clone());
        }
        Err(miss)
    }

    /// The host calls the recording could not answer so far, in kwctl's words.
    pub fn misses(&self) -> Vec<String> {
        self.misses.lock().map(|m| m.clone()).unwrap_or_default()
    }

    /// The recorded requests not replayed yet.
    pub fn leftovers(&self) -> Vec<String> {
        self.exchanges
            .lock()
            .map(|e| e.iter().map(|(r, _)| r.to_string()).collect())
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The shape of kwctl's own sample sessions (`crates/kwctl/tests/data/host-capabilities-sessions/
    /// context-aware-demo-namespace-{found,not-found}.yml`), as serde_yaml writes them: a block-scalar request, a
    /// single-quoted JSON payload.
    const KWCTL_SESSION: &str = r#"- type: Exchange
  request: |
    !KubernetesGetResource
    api_version: v1
    kind: Namespace
    name: test-policy
    namespace: null
    disable_cache: false
  response:
    type: Success
    payload: '{"apiVersion":"v1","kind":"Namespace","metadata":{"annotations":{"propagate.hello":"world"},"labels":{"kubernetes.io/metadata.name":"test-policy"},"name":"test-policy"},"spec":{"finalizers":["kubernetes"]},"status":{"phase":"Active"}}'
- type: Exchange
  request: |
    !KubernetesGetResource
    api_version: v1
    kind: Namespace
    name: test-policy
    namespace: null
    disable_cache: false
    field_masks: null
  response:
    type: Error
    message: Cannot find v1/Namespace named 'test-policy' inside of namespace 'None'
"#;

    fn get_namespace(name: &str) -> Request {
        // The payload palisade-kubewarden.wasm sends (`HostCluster::get_namespace`).
        Request::get_resource(
            &json!({"api_version": "v1", "kind": "Namespace", "name": name, "namespace": null, "disable_cache": false}),
        )
    }

    #[test]
    fn kwctl_sessions_parse_and_replay_in_order() {
        let session = Session::parse(Path::new("kwctl.yml"), KWCTL_SESSION).unwrap();
        assert_eq!(session.leftovers().len(), 2);
        let object: Value =
            serde_json::from_slice(&session.replay(&get_namespace("test-policy")).unwrap())
                .unwrap();
        assert_eq!(
            object["metadata"]["annotations"]["propagate.hello"],
            "world"
        );
        // `field_masks: null` (what kwctl writes since field masks exist) is the same request as no field_masks.
        assert_eq!(
            session.replay(&get_namespace("test-policy")).unwrap_err(),
            "Cannot find v1/Namespace named 'test-policy' inside of namespace 'None'"
        );
        assert!(session.misses().is_empty());
        assert!(session.leftovers().is_empty());
        assert_eq!(
            session.replay(&get_namespace("test-policy")).unwrap_err(),
            "the list of recorded responses is empty"
        );
        assert_eq!(session.misses().len(), 1);
    }

    #[test]
    fn an_unexpected_request_is_named_with_the_recorded_one() {
        let session = Session::parse(Path::new("kwctl.yml"), KWCTL_SESSION).unwrap();
        let err = session.replay(&get_namespace("other")).unwrap_err();
        assert!(
            err.starts_with(
                "Replay error: unexpected request. Was expecting KubernetesGetResource {"
            ),
            "{err}"
        );
        assert!(err.contains(r#""name":"test-policy""#), "{err}");
        assert!(err.contains(r#""name":"other""#), "{err}");
        assert!(err.ends_with(" instead"), "{err}");
        // The mismatched exchange is consumed, as kwctl pops it.
        assert_eq!(session.leftovers().len(), 1);
    }

    #[test]
    fn can_i_requests_match_the_sdk_subject_access_review() {
        let text = r#"- type: Exchange
  request: |
    !KubernetesCanI
    request:
      groups: null
      resource_attributes:
        group: null
        name: null
        namespace: team-a
        resource: pods
        subresource: null
        verb: create
        version: null
      user: alice
    disable_cache: false
  response:
    type: Success
    payload: '{"allowed":true}'
"#;
        let session = Session::parse(Path::new("can-i.yml"), text).unwrap();
        let payload = json!({"subject_access_review": {"groups": null,
            "resource_attributes": {"group": null, "name": null, "namespace": "team-a", "resource": "pods",
                "subresource": null, "verb": "create", "version": null}, "user": "alice"}, "disable_cache": false});
        assert_eq!(
            session.replay(&Request::can_i(&payload)).unwrap(),
            br#"{"allowed":true}"#
        );
    }

    #[test]
    fn malformed_sessions_are_refused_with_the_reason() {
        for (text, why) in [
            ("{}", "invalid type"),
            (
                "- request: x\n  response: {type: Success, payload: ''}\n",
                "type",
            ),
            (
                "- type: Exchange\n  request: 'name: x'\n  response: {type: Success, payload: ''}\n",
                "the request of exchange 1: it is not tagged",
            ),
            (
                "- type: Exchange\n  request: '!KubernetesGetResource x'\n  response: {type: Maybe}\n",
                "Maybe",
            ),
        ] {
            let err = Session::parse(Path::new("bad.yml"), text).unwrap_err();
            assert!(
                err.starts_with("`bad.yml` is not a kwctl host capabilities interactions file: "),
                "{err}"
            );
            assert!(err.contains(why), "{text}: {err}");
        }
        assert!(Session::parse(Path::new("empty.yml"), "[]\n").is_ok());
    }
}
