//! The one level every entrypoint goes through — bytes and `&str` in, JSON text out, with typed values in between — so
//! behaviour cannot drift between the C ABI, Kubewarden, the browser and the harness (docs/architecture.md, "The api
//! level"). Each adapter in [`crate::abi`] decodes its host's payload, calls this module, and encodes the answer.
//!
//! - [`Configured`]: what a module knows — never configured, the last bundle rejected, or a compiled [`Engine`]. It
//!   owns the "not configured" and "rejected" wording; [`configure`] makes one from a bundle's bytes.
//! - [`Configured::validate`] (bytes in, AdmissionReview out), [`Configured::review`] (a read request in, an
//!   [`AdmissionResponse`] out: what Kubewarden uses), [`Configured::explain`] (the trace).
//! - [`read_review`] and [`read_object`]: reading an input, failing with a typed [`ReadError`] (the document, what is
//!   wrong with it, and the uid and apiVersion recovered to echo).

use std::fmt;
use std::sync::Arc;

use palisade_cel_kubernetes::cluster::Cluster;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::bundle::{ConfigError, MAX_BUNDLE_BYTES};
use crate::context::StaticContext;
use crate::engine::Engine;
use crate::review::{
    ADMISSION_V1, ADMISSION_V1BETA1, AdmissionRequest, AdmissionResponse, AdmissionReviewOut,
    CarriesRequests,
};

/// The state of a module: what `validate` decides with. Every adapter holds one (the C ABI in its instance, Kubewarden
/// in its settings cache, the browser in its `Engine`).
#[derive(Debug)]
pub enum Configured {
    /// No bundle has been configured yet: why, in the words of the adapter (what follows `palisade is not
    /// configured: `; [`NEVER_CONFIGURED`] for a module whose host calls `configure`).
    Never(&'static str),
    /// The last bundle did not compile (or could not be read); `validate` answers 500 until a bundle compiles.
    Rejected(ConfigError),
    /// The last bundle compiled.
    Ready(Engine),
}

/// Why `validate` has no engine before any `configure`.
pub const NEVER_CONFIGURED: &str =
    "no bundle has been configured (call `configure` with a bundle first)";

impl Default for Configured {
    /// A module before its first `configure`.
    fn default() -> Self {
        Self::Never(NEVER_CONFIGURED)
    }
}

/// Which document a bundle's bytes are, for the wording of what is wrong with them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BundleDocument {
    /// A bundle given to `configure` (C ABI, browser, harness).
    Bundle,
    /// A Kubewarden policy's settings: absent, empty or `null` settings are the empty bundle, as policy-sdk-rust reads
    /// a policy without settings.
    KubewardenSettings,
}

impl BundleDocument {
    fn too_large(self, len: usize) -> String {
        match self {
            Self::Bundle => format!(
                "the bundle is {len} bytes, more than the {MAX_BUNDLE_BYTES} bytes Palisade reads: split it into several policies"
            ),
            Self::KubewardenSettings => format!(
                "the settings are {len} bytes, more than the {MAX_BUNDLE_BYTES} bytes Palisade reads: split them into several policies"
            ),
        }
    }

    fn not_json(self, e: &serde_json::Error) -> String {
        match self {
            Self::Bundle => format!("the bundle is not valid JSON: {e}"),
            Self::KubewardenSettings => format!("the settings are not valid JSON: {e}"),
        }
    }
}

/// Whether `needle` occurs in `bytes` (windows compared only where the first byte matches: a call to `memcmp` per
/// byte of a large bundle would cost more than reading it).
fn mentions(bytes: &[u8], needle: &[u8]) -> bool {
    let Some(&first) = needle.first() else {
        return true;
    };
    bytes
        .windows(needle.len())
        .any(|w| w.first() == Some(&first) && w == needle)
}

/// Read a bundle's bytes into a value: refused past [`MAX_BUNDLE_BYTES`] before anything is parsed, then JSON. Every
/// adapter's bundle (and every Kubewarden settings, in `validate` as in `validate_settings`) goes through this limit.
pub fn read_bundle(bytes: &[u8], document: BundleDocument) -> Result<Value, ConfigError> {
    if bytes.len() > MAX_BUNDLE_BYTES {
        return Err(ConfigError::at_root(document.too_large(bytes.len())));
    }
    // A bundle's strings become the engine's (serde moves them), so the CEL declarations that compiling it builds are
    // built before it is read: in a baked module, what a request reads then lies together, past them
    // (`palisade_cel::prepare_admission`). A bundle that names no ValidatingAdmissionPolicy does not need them, and
    // one that names no CertificateRequestPolicy does not need approver-policy's.
    if mentions(bytes, b"ValidatingAdmissionPolicy") {
        palisade_cel::prepare_admission();
    }
    if mentions(bytes, b"CertificateRequestPolicy") {
        palisade_cel::prepare_certificate_request();
    }
    match document {
        BundleDocument::Bundle => {
            serde_json::from_slice(bytes).map_err(|e| ConfigError::at_root(document.not_json(&e)))
        }
        BundleDocument::KubewardenSettings => {
            if bytes.iter().all(u8::is_ascii_whitespace) {
                return Ok(Value::Object(serde_json::Map::new()));
            }
            match serde_json::from_slice::<Value>(bytes) {
                Ok(Value::Null) => Ok(Value::Object(serde_json::Map::new())),
                Ok(value) => Ok(value),
                Err(e) => Err(ConfigError::at_root(document.not_json(&e))),
            }
        }
    }
}

/// Parse a bundle (JSON) and compile it: [`Configured::Ready`] or [`Configured::Rejected`].
pub fn configure(bundle_json: &[u8]) -> Configured {
    read_bundle(bundle_json, BundleDocument::Bundle)
        .map_or_else(Configured::Rejected, |bundle| configure_value(&bundle))
}

/// Compile a bundle already read ([`read_bundle`]).
pub fn configure_value(bundle: &Value) -> Configured {
    match Engine::new(bundle) {
        Ok(engine) => Configured::Ready(engine),
        Err(e) => Configured::Rejected(e),
    }
}

impl Configured {
    /// `configure` on a module: compile `bundle_json` ([`configure`]), replace this state with the outcome whatever
    /// it is (a rejected bundle replaces a good one too), and return `configure`'s answer ([`Configured::answer`]).
    pub fn configure(&mut self, bundle_json: &[u8]) -> String {
        *self = configure(bundle_json);
        self.answer()
    }

    /// The compiled engine, when the last bundle compiled.
    pub fn engine(&self) -> Option<&Engine> {
        match self {
            Self::Ready(engine) => Some(engine),
            Self::Never(_) | Self::Rejected(_) => None,
        }
    }

    /// Why the last bundle was rejected, when it was.
    pub fn rejection(&self) -> Option<&ConfigError> {
        match self {
            Self::Rejected(e) => Some(e),
            Self::Never(_) | Self::Ready(_) => None,
        }
    }

    /// Why there is no engine (`None` when there is one): what follows `palisade is not configured: `.
    pub fn why_not_configured(&self) -> Option<String> {
        match self {
            Self::Ready(_) => None,
            Self::Never(why) => Some((*why).to_owned()),
            Self::Rejected(e) => Some(format!("the last bundle was rejected: {e}")),
        }
    }

    /// The answer of `configure`: `{"valid":true}`, `{"valid":true,"warnings":[…]}` or
    /// `{"valid":false,"message":…,"problems":[…]}` (with `unlisted` when problems were left out).
    pub fn answer(&self) -> String {
        let answer = match self {
            Self::Ready(engine) if engine.diagnostics().is_empty() => {
                serde_json::json!({"valid": true})
            }
            Self::Ready(engine) => serde_json::json!({
                "valid": true,
                "warnings": engine.diagnostics().iter().map(ToString::to_string).collect::<Vec<_>>(),
                "diagnostics": engine.diagnostics(),
            }),
            Self::Rejected(e) if e.unlisted > 0 => serde_json::json!({
                "valid": false, "message": e.to_string(), "problems": e.problems, "unlisted": e.unlisted,
            }),
            Self::Rejected(e) => {
                serde_json::json!({"valid": false, "message": e.to_string(), "problems": e.problems})
            }
            Self::Never(why) => serde_json::json!({"valid": false, "message": why}),
        };
        answer.to_string()
    }

    /// Decide one read request: the engine's answer, or 500 `palisade is not configured: …` without one.
    pub fn review(&self, request: &AdmissionRequest, cluster: &dyn Cluster) -> AdmissionResponse {
        match self {
            Self::Ready(engine) => engine.review(request, cluster),
            Self::Never(_) | Self::Rejected(_) => AdmissionResponse::deny(
                &request.uid,
                500,
                "InternalError",
                format!(
                    "palisade is not configured: {}",
                    self.why_not_configured().unwrap_or_default()
                ),
            ),
        }
    }

    /// `validate`: one AdmissionReview (or `{"review":…,"context":…}`) in, the AdmissionReview answer out, in the
    /// input's apiVersion. An unreadable input is 400 ([`ReadError::answer`]), whatever the state.
    pub fn validate(&self, input: &[u8]) -> String {
        self.answer_read(read_review(input))
    }

    /// [`Configured::validate`] of an input already held in a shared text: nothing is copied (the C ABI's path, which
    /// owns the host's buffer until the host frees it).
    pub fn validate_shared(&self, input: &Arc<String>) -> String {
        self.answer_read(read_review_shared(input))
    }

    /// [`Configured::validate`] of an input already read ([`read_review`]): the WASI command reads the review from
    /// stdin and may take its context from a file of its own.
    pub fn answer_read(&self, read: Result<ReviewInput, ReadError>) -> String {
        // matched by reference: the review stays in the caller's frame, not copied into this one (the evaluation that
        // runs below it is the deepest the stack goes)
        match &read {
            Ok(r) => AdmissionReviewOut::new(&r.api_version, self.review(&r.request, &r.context))
                .to_json(),
            Err(e) => e.answer(),
        }
    }

    /// `explain`: decide one input as [`Configured::validate`] does and say how: every ValidatingAdmissionPolicy and
    /// binding with whether it matched and why not, the params chosen, every expression's value or error and CEL cost,
    /// the CertificateRequestPolicy decision, and the verdict (`verdict`: exactly what `validate` answers). JSON
    /// ([`crate::explain::Trace`]). An unreadable input gets `error` and the 400 verdict; without an engine the answer
    /// is `{"error": …}` (with the rejected bundle's `problems`).
    pub fn explain(&self, input: &[u8]) -> String {
        self.explain_read(read_review(input))
    }

    /// [`Configured::explain`] of an input already read ([`read_review`]).
    pub fn explain_read(&self, read: Result<ReviewInput, ReadError>) -> String {
        let engine = match self {
            Self::Ready(engine) => engine,
            Self::Rejected(e) => {
                return serde_json::json!({
                    "error": format!("the bundle was rejected: {e}"),
                    "problems": e.problems,
                })
                .to_string();
            }
            Self::Never(why) => {
                return serde_json::json!({
                    "error": format!("palisade is not configured: {why}"),
                })
                .to_string();
            }
        };
        let trace = match read {
            Ok(ReviewInput {
                api_version,
                request,
                context,
            }) => {
                let (response, mut trace) = engine.explain(&request, &context);
                trace.verdict =
                    answer_value(&AdmissionReviewOut::new(&api_version, response).to_json());
                trace
            }
            Err(e) => crate::explain::Trace {
                verdict: answer_value(&e.answer()),
                error: Some(e.to_string()),
                ..crate::explain::Trace::default()
            },
        };
        serde_json::to_string(&trace).unwrap_or_else(|e| {
            serde_json::json!({"error": format!("the trace cannot be written: {e}")}).to_string()
        })
    }
}

/// The AdmissionReview answer as a JSON value, for the trace.
fn answer_value(answer: &str) -> Value {
    serde_json::from_str(answer).unwrap_or_else(|_| Value::String(answer.to_owned()))
}

/// The input of `validate`, read: the AdmissionReview's apiVersion, its request (normalized), and the context.
#[derive(Debug)]
pub struct ReviewInput {
    pub api_version: String,
    /// Boxed: a request is large, and every copy of it on the way up is stack.
    pub request: Box<AdmissionRequest>,
    pub context: StaticContext,
}

/// An input that could not be read: which document, what is wrong with it, and what of it could still be recovered to
/// answer well-formed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadError {
    /// The document as messages name it, e.g. "the AdmissionReview", "the validation request".
    pub document: &'static str,
    pub fault: ReadFault,
    /// The apiVersion to answer in (one Palisade speaks, else v1) and the uid to echo, recovered from the input
    /// whatever else is wrong with it ([`crate::review::identity`]).
    pub api_version: String,
    pub uid: String,
}

/// What is wrong with an unreadable input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadFault {
    /// The bytes are not UTF-8 (the decoder's message).
    NotUtf8(String),
    /// The text is not JSON (the parser's message).
    NotJson(String),
    /// The JSON is not an object but this type.
    NotObject(&'static str),
    /// A field has the wrong type or value, or a required field is missing: the field path and the reader's message.
    WrongField { path: String, message: String },
    /// The reader failed without saying where (not expected; kept so that every input is answered).
    Unreadable,
    /// An AdmissionReview apiVersion Palisade does not speak.
    UnsupportedApiVersion(String),
    /// A `kind` other than `AdmissionReview`.
    WrongKind(String),
    /// No `request` in the AdmissionReview (said of the AdmissionReview whatever document carried it).
    NoRequest,
    /// More bytes than the adapter reads (the WASI command's stdin): the limit.
    TooLarge(usize),
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = self.document;
        match &self.fault {
            ReadFault::NotUtf8(e) => write!(f, "{what} is not valid UTF-8: {e}"),
            ReadFault::NotJson(e) => write!(f, "{what} is not valid JSON: {e}"),
            ReadFault::NotObject(kind) => write!(f, "{what} must be a JSON object, not {kind}"),
            ReadFault::WrongField { path, message } => {
                write!(f, "{what} has a wrong field: {path}: {message}")
            }
            ReadFault::Unreadable => write!(f, "{what} cannot be read"),
            ReadFault::UnsupportedApiVersion(v) => write!(
                f,
                "unsupported AdmissionReview apiVersion `{v}`: expected `{ADMISSION_V1}` or `{ADMISSION_V1BETA1}`"
            ),
            ReadFault::WrongKind(kind) => {
                write!(f, "expected kind `AdmissionReview`, not `{kind}`")
            }
            ReadFault::NoRequest => f.write_str("the AdmissionReview has no `request`"),
            ReadFault::TooLarge(limit) => {
                write!(f, "{what} is more than the {limit} bytes Palisade reads")
            }
        }
    }
}

impl std::error::Error for ReadError {}

/// The name of the AdmissionReview in messages.
pub const ADMISSION_REVIEW: &str = "the AdmissionReview";

impl ReadError {
    /// The error for `fault` in `input`, with the identity recovered from `input`.
    pub fn new(document: &'static str, fault: ReadFault, input: &[u8]) -> Self {
        let found = crate::review::identity(input);
        Self {
            document,
            fault,
            api_version: found
                .api_version
                .filter(|v| v == ADMISSION_V1 || v == ADMISSION_V1BETA1)
                .unwrap_or_else(|| ADMISSION_V1.to_owned()),
            uid: found.uid.unwrap_or_default(),
        }
    }

    /// The same fault, said of another document (e.g. a field of the AdmissionReview's `request` carried in
    /// Kubewarden's validation request is the AdmissionReview's field).
    #[must_use]
    pub fn of(self, document: &'static str) -> Self {
        Self { document, ..self }
    }

    /// The answer to an unreadable input: 400 `BadRequest` with the message, echoing the recovered uid.
    pub fn response(&self) -> AdmissionResponse {
        AdmissionResponse::deny(&self.uid, 400, "BadRequest", self.to_string())
    }

    /// [`ReadError::response`] as an AdmissionReview in the recovered apiVersion.
    pub fn answer(&self) -> String {
        AdmissionReviewOut::new(&self.api_version, self.response()).to_json()
    }
}

/// Read a JSON object document (`document` names it in messages, e.g. [`ADMISSION_REVIEW`]) into `T`, in one pass of
/// serde_json that builds the request objects' tapes ([`palisade_json::Doc`]) and tracks no field paths: a refused
/// input is worded with serde_json's error and the field path `jsonpath` finds where it stopped, and only a document
/// nested deeper than serde_json reads is read again ([`crate::review::deep`]).
pub fn read_object<T: DeserializeOwned + CarriesRequests>(
    input: &[u8],
    document: &'static str,
) -> Result<T, ReadError> {
    read_object_from(input, document, true)
}

/// [`read_object`] of a text the caller built for it (kept as the shared copy the request objects point into: no
/// second copy).
pub fn read_object_text<T: DeserializeOwned + CarriesRequests>(
    text: String,
    document: &'static str,
) -> Result<T, ReadError> {
    read_shared(&Arc::new(text), document, true)
}

/// [`read_object`]; `deep` says whether a document nested deeper than serde_json reads may be read again by
/// [`crate::review::deep`] (once: what it hands back is shallow, and read without this path).
fn read_object_from<T: DeserializeOwned + CarriesRequests>(
    input: &[u8],
    document: &'static str,
    deep: bool,
) -> Result<T, ReadError> {
    // the request objects keep their strings as positions in one shared copy of the input
    if let Some(text) = palisade_json::utf8_string(input) {
        return read_shared(&Arc::new(text), document, deep);
    }
    let words = std::str::from_utf8(input)
        .err()
        .map_or_else(|| "invalid utf-8".to_owned(), |e| e.to_string());
    Err(ReadError::new(document, ReadFault::NotUtf8(words), input))
}

/// [`read_object_from`] of a text already shared: the request objects' strings are positions in it (no copy).
fn read_shared<T: DeserializeOwned + CarriesRequests>(
    source: &Arc<String>,
    document: &'static str,
    deep: bool,
) -> Result<T, ReadError> {
    let (text, input) = (source.as_str(), source.as_bytes());
    let fail = |fault| Err(ReadError::new(document, fault, input));
    if !text.trim_start().starts_with('{') {
        return fail(match serde_json::from_str::<Value>(text) {
            Ok(other) => ReadFault::NotObject(crate::bundle::type_name(&other)),
            Err(e) => ReadFault::NotJson(e.to_string()),
        });
    }
    // one pass into a tape, the request objects nodes of it; anything it does not read (a refusal, a document
    // deeper than it reads) is read by serde_json below, whose refusals are the ones users see
    if T::TAPE
        && let Ok(doc) = palisade_json::Doc::parse_shared(source, TAPE_DEPTH)
        && let Some(parsed) = T::from_tape(doc.root())
    {
        return Ok(parsed);
    }
    let e = match palisade_json::reading_source(source, |text| serde_json::from_str(text)) {
        Ok(parsed) => return Ok(parsed),
        Err(e) => e,
    };
    read_refused(text, &e, input, document, deep)
}

/// Why [`read_object_from`] refused `text` (serde_json's error `e`): a document nested deeper than serde_json reads is
/// read again as deep as kube-apiserver sends; anything else is worded with the field path where serde_json stopped.
fn read_refused<T: DeserializeOwned + CarriesRequests>(
    text: &str,
    e: &serde_json::Error,
    input: &[u8],
    document: &'static str,
    deep: bool,
) -> Result<T, ReadError> {
    let fail = |fault| Err(ReadError::new(document, fault, input));
    // an object nested deeper than serde_json reads: read as deep as kube-apiserver sends
    if deep && e.to_string().starts_with("recursion limit exceeded") {
        return crate::review::read_with_deep_objects(
            text,
            e,
            |shallow| read_object_from::<T>(shallow, document, false),
            |message| ReadError::new(document, ReadFault::NotJson(message), input),
        );
    }
    // the field path, from where serde_json stopped (crate::jsonpath: no second, path-tracking parse)
    let path = if e.is_data() {
        let offset = crate::jsonpath::offset_of(text, e.line(), e.column());
        crate::jsonpath::path_at(text, offset, e.to_string().starts_with("unknown field"))
    } else {
        ".".to_owned()
    };
    fail(if path == "." {
        ReadFault::NotJson(e.to_string())
    } else {
        ReadFault::WrongField {
            path,
            message: e.to_string(),
        }
    })
}

/// How deep the tape reading of an input goes ([`CarriesRequests::from_tape`]): below serde_json's recursion limit
/// (128), so that the tape never reads what serde_json would refuse; deeper inputs take serde_json's path.
const TAPE_DEPTH: usize = 100;

/// Input of `validate`: a bare AdmissionReview, or `{"review": AdmissionReview, "context": …}`. One pass over the bytes.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Input {
    api_version: Option<String>,
    kind: Option<String>,
    request: Option<Box<AdmissionRequest>>,
    review: Option<Box<Input>>,
    context: Option<StaticContext>,
}

impl CarriesRequests for Input {
    const REQUESTS: &'static [&'static [&'static str]] = &[&["request"], &["review", "request"]];
    const TAPE: bool = true;

    fn from_tape(root: palisade_json::Ref<'_>) -> Option<Self> {
        use crate::review::tape::{optional, string};
        let mut f = [None; 5];
        root.pick(
            &[
                &["apiVersion"],
                &["kind"],
                &["request"],
                &["review"],
                &["context"],
            ],
            false,
            &mut f,
        )?;
        let [api_version, kind, request, review, context] = f;
        let mut out = Input {
            api_version: optional(api_version, string)?,
            kind: None,
            request: None,
            review: None,
            context: None,
        };
        out.kind = optional(kind, string)?;
        out.request = optional(request, crate::review::tape::admission_request)?;
        out.review = optional(review, |r| Input::from_tape(r).map(Box::new))?;
        out.context = optional(context, StaticContext::from_tape)?;
        Some(out)
    }

    fn request_mut(&mut self, at: usize) -> Option<&mut AdmissionRequest> {
        match at {
            0 => self.request.as_deref_mut(),
            _ => self.review.as_mut()?.request.as_deref_mut(),
        }
    }
}

/// The tape reading of an input ([`CarriesRequests::from_tape`]) against serde_json's, for the tests and the fuzzer:
/// whatever the tape reads, serde_json must read too, to the same value; checked for both readings of a text, as the
/// input of `validate` and as Kubewarden's `validate` payload. `Ok(true)` when the tape read it as the input of
/// `validate`, `Ok(false)` when it left that to serde_json; `Err` says how the two readings differ. The tape reads a
/// double exactly and serde_json's default reading may be one unit in the last place off: that much is the same
/// ([`palisade_json::same_but_doubles`]).
pub fn check_tape_reading(input: &[u8]) -> Result<bool, String> {
    type Payload = crate::kubewarden::ValidationRequest<
        Option<Box<crate::review::AdmissionRequest>>,
        Option<crate::kubewarden::SettingsText>,
    >;
    let read = agrees::<Input>(input)?;
    agrees::<Payload>(input)?;
    Ok(read)
}

fn agrees<T: DeserializeOwned + CarriesRequests + std::fmt::Debug>(
    input: &[u8],
) -> Result<bool, String> {
    let Ok(text) = std::str::from_utf8(input) else {
        return Ok(false);
    };
    let source = Arc::new(text.to_owned());
    let Ok(doc) = palisade_json::Doc::parse_shared(&source, TAPE_DEPTH) else {
        return Ok(false);
    };
    let Some(tape) = T::from_tape(doc.root()) else {
        return Ok(false);
    };
    match serde_json::from_str::<T>(text) {
        Ok(serde)
            if palisade_json::same_but_doubles(&format!("{tape:?}"), &format!("{serde:?}")) =>
        {
            Ok(true)
        }
        Ok(serde) => Err(format!("the tape read {tape:?}, serde_json read {serde:?}")),
        Err(e) => Err(format!(
            "the tape read what serde_json refuses ({e}): {tape:?}"
        )),
    }
}

/// Read the input of `validate`: an AdmissionReview in a version Palisade speaks, with a request, and its context.
pub fn read_review(input: &[u8]) -> Result<ReviewInput, ReadError> {
    review_input(read_object(input, ADMISSION_REVIEW)?, input)
}

/// [`read_review`] of an input already held in a shared text (the C ABI hands over the host's buffer): the request
/// objects are read in place, nothing is copied.
pub fn read_review_shared(input: &Arc<String>) -> Result<ReviewInput, ReadError> {
    review_input(
        read_shared(input, ADMISSION_REVIEW, true)?,
        input.as_bytes(),
    )
}

/// The review and context of a read input (`input` its text, for the words of a refusal).
fn review_input(parsed: Input, input: &[u8]) -> Result<ReviewInput, ReadError> {
    let fail = |fault| Err(ReadError::new(ADMISSION_REVIEW, fault, input));
    let (review, context) = match parsed.review {
        Some(review) => (*review, parsed.context),
        None => {
            let context = parsed.context;
            (
                Input {
                    context: None,
                    review: None,
                    ..parsed
                },
                context,
            )
        }
    };
    let api_version = review
        .api_version
        .unwrap_or_else(|| ADMISSION_V1.to_owned());
    if api_version != ADMISSION_V1 && api_version != ADMISSION_V1BETA1 {
        return fail(ReadFault::UnsupportedApiVersion(api_version));
    }
    if let Some(kind) = review.kind.filter(|k| k != "AdmissionReview") {
        return fail(ReadFault::WrongKind(kind));
    }
    let Some(mut request) = review.request else {
        return fail(ReadFault::NoRequest);
    };
    request.normalize();
    Ok(ReviewInput {
        api_version,
        request,
        context: context.unwrap_or_default(),
    })
}

/// Configure then explain in one call (the native path of `palisade eval --explain` and of case files'
/// `expect.matched`). A bundle that does not compile is `{"error": …, "problems": […]}`.
pub fn explain_json(bundle_json: &str, input_json: &str) -> String {
    configure(bundle_json.as_bytes()).explain(input_json.as_bytes())
}

/// Configure then validate in one call: what the C ABI answers for `configure(bundle)` then `validate(input)`.
/// Used to check that the library and the built `.wasm` agree.
pub fn review_json(bundle_json: &str, input_json: &str) -> String {
    configure(bundle_json.as_bytes()).validate(input_json.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A request with every field kube-apiserver always sends.
    const REQUEST: &str = r#""kind":{"group":"","version":"v1","kind":"Pod"},"resource":{"group":"","version":"v1","resource":"pods"},"operation":"CREATE","userInfo":{"username":"alice"}"#;

    fn answer(bundle: &str, input: &[u8]) -> Value {
        let configured = configure(bundle.as_bytes());
        assert!(configured.engine().is_some(), "{}", configured.answer());
        serde_json::from_str(&configured.validate(input)).unwrap()
    }

    #[test]
    fn empty_bundle_allows_and_echoes() {
        let input = format!(
            r#"{{"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","request":{{"uid":"u1",{REQUEST}}}}}"#
        );
        let out = answer("{}", input.as_bytes());
        assert_eq!(out["apiVersion"], "admission.k8s.io/v1beta1");
        assert_eq!(out["response"]["uid"], "u1");
        assert_eq!(out["response"]["allowed"], true);
        assert!(out["response"].get("status").is_none());
    }

    #[test]
    fn wrapped_input_with_context() {
        let input = format!(
            r#"{{"review":{{"request":{{"uid":"u2",{REQUEST}}}}},"context":{{"namespaces":[]}}}}"#
        );
        let out = answer("{}", input.as_bytes());
        assert_eq!(out["response"]["uid"], "u2");
        assert_eq!(out["response"]["allowed"], true);
    }

    #[test]
    fn bad_inputs_are_400_with_uid_when_recoverable() {
        for (input, needle) in [
            (&b"{not json"[..], "not valid JSON"),
            (b"\xff\xfe", "not valid UTF-8"),
            (b"[1,2]", "must be a JSON object, not a list"),
            (b"", "not valid JSON"),
            (br#"{"apiVersion":"admission.k8s.io/v1"}"#, "no `request`"),
            (
                br#"{"request":{"uid":"u3","operation":5}}"#,
                "request.operation",
            ),
            (
                br#"{"apiVersion":"v1","request":{"uid":"v","kind":{},"resource":{},"operation":"CREATE","userInfo":{}}}"#,
                "unsupported AdmissionReview apiVersion",
            ),
        ] {
            let out = answer("{}", input);
            let response = &out["response"];
            assert_eq!(response["allowed"], false, "{needle}");
            assert_eq!(response["status"]["code"], 400, "{needle}");
            let message = response["status"]["message"].as_str().unwrap();
            assert!(
                message.contains(needle),
                "{message} should contain {needle}"
            );
        }
        let out = answer("{}", br#"{"request":{"uid":"u3","operation":5}}"#);
        assert_eq!(out["response"]["uid"], "u3");
    }

    /// The external fuzzer's minimal inputs: the uid and apiVersion are echoed whatever else is unreadable.
    #[test]
    fn uid_and_api_version_survive_any_other_fault() {
        let deep_kind = format!(
            r#"{{"review":{{"apiVersion":"admission.k8s.io/v1beta1","request":{{"uid":"k","kind":{}{}}}}}}}"#,
            "[".repeat(125),
            "]".repeat(125)
        );
        for (input, uid, api_version) in [
            (
                r#"{"review":{"request":{"uid":"0"}},"context":{"":1e400}}"#.to_owned(),
                "0",
                ADMISSION_V1,
            ),
            (
                r#"{"review":{"request":{"uid":"0","operation":1e309}}}"#.to_owned(),
                "0",
                ADMISSION_V1,
            ),
            (
                r#"{"review":{"apiVersion":"admission.k8s.io/v1beta1","":{"":1e400}}}"#.to_owned(),
                "",
                ADMISSION_V1BETA1,
            ),
            (deep_kind, "k", ADMISSION_V1BETA1),
        ] {
            let out = answer("{}", input.as_bytes());
            assert_eq!(out["response"]["status"]["code"], 400, "{input}");
            assert_eq!(out["response"]["uid"], uid, "{input}");
            assert_eq!(out["apiVersion"], api_version, "{input}");
        }
    }

    /// kube-apiserver always sends uid, kind, resource, operation and userInfo: without one, the review is refused.
    #[test]
    fn a_request_without_a_required_field_is_400_naming_it() {
        let out = answer("{}", br#"{"request":{}}"#);
        assert_eq!(out["response"]["status"]["code"], 400);
        let full = format!(r#"{{"uid":"r",{REQUEST}}}"#);
        let full: Value = serde_json::from_str(&full).unwrap();
        for field in ["uid", "kind", "resource", "operation", "userInfo"] {
            let mut request = full.clone();
            request.as_object_mut().unwrap().remove(field);
            let input = serde_json::json!({ "request": request }).to_string();
            let out = answer("{}", input.as_bytes());
            let message = out["response"]["status"]["message"].as_str().unwrap();
            assert_eq!(out["response"]["status"]["code"], 400, "{field}");
            assert!(
                message.contains(&format!("missing field `{field}`")),
                "{field}: {message}"
            );
            if field != "uid" {
                assert_eq!(out["response"]["uid"], "r");
            }
        }
    }

    /// kube-apiserver accepts objects 10,000 levels deep (Go's `encoding/json` limit): they are evaluated; one level
    /// more is a 400 that names the limit and echoes the uid.
    #[test]
    fn objects_as_deep_as_kube_apiserver_accepts_are_evaluated() {
        let bundle = r#"{"policies":[
          {"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy","metadata":{"name":"p"},
           "spec":{"matchConstraints":{"resourceRules":[{"apiGroups":["*"],"apiVersions":["*"],"operations":["*"],"resources":["*"]}]},
                   "validations":[{"expression":"object.spec.size() == 1 && object != oldObject"}]}},
          {"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicyBinding","metadata":{"name":"p"},
           "spec":{"policyName":"p","validationActions":["Deny"]}}]}"#;
        let object = |levels: usize, leaf: u8| {
            format!(
                r#"{{"spec":{}{leaf}{}}}"#,
                "[".repeat(levels - 1),
                "]".repeat(levels - 1)
            )
        };
        let input = |uid: &str, object: &str, old: &str| {
            format!(
                r#"{{"request":{{"uid":"{uid}",{REQUEST},"object":{object},"oldObject":{old}}}}}"#
            )
        };
        let out: Value = serde_json::from_str(&review_json(
            bundle,
            &input("ok", &object(10_000, 1), &object(10_000, 2)),
        ))
        .unwrap();
        assert_eq!(out["response"]["allowed"], true, "{out}");
        let out: Value = serde_json::from_str(&review_json(
            bundle,
            &input("same", &object(10_000, 1), &object(10_000, 1)),
        ))
        .unwrap();
        assert_eq!(out["response"]["allowed"], false, "{out}");
        assert_eq!(out["response"]["status"]["code"], 422, "{out}");

        let too_deep = input("d", &object(10_001, 1), "null");
        let out: Value = serde_json::from_str(&review_json(bundle, &too_deep)).unwrap();
        assert_eq!(out["response"]["status"]["code"], 400);
        assert_eq!(out["response"]["uid"], "d");
        let message = out["response"]["status"]["message"].as_str().unwrap();
        assert!(message.contains("deeper than 10000 levels"), "{message}");
    }

    /// The part of a review around a deep object may nest as deep as serde_json reads, and no deeper: at the limit
    /// it is read, one level more is the 400 serde_json gives; never a second deep read.
    #[test]
    fn around_a_deep_object_serde_json_depth_holds() {
        let deep_object = format!(r#"{{"spec":{}1{}}}"#, "[".repeat(500), "]".repeat(500));
        for (extra, allowed) in [
            (crate::review::deep::SERDE_DEPTH - 3, true),
            (crate::review::deep::SERDE_DEPTH - 2, false),
        ] {
            // root (1) > request (2) > options (3) > `extra` nested lists
            let input = format!(
                r#"{{"request":{{"uid":"e",{REQUEST},"object":{deep_object},"options":{{"x":{}{}}}}}}}"#,
                "[".repeat(extra),
                "]".repeat(extra)
            );
            let out: Value = serde_json::from_str(&review_json("{}", &input)).unwrap();
            assert_eq!(out["response"]["uid"], "e");
            assert_eq!(out["response"]["allowed"], allowed, "{extra}: {out}");
            if !allowed {
                let message = out["response"]["status"]["message"].as_str().unwrap();
                assert!(message.contains("recursion limit exceeded"), "{message}");
            }
        }
    }

    /// The tape reading of the review reads what serde_json reads, to the same value, and leaves to serde_json what
    /// serde would not read the same way (a field twice, a wrong type, a struct as a list): inputs at the edges of the
    /// derives, each with whether the tape reads it.
    #[test]
    fn the_tape_reads_the_review_as_serde_does() {
        let request = |extra: &str| format!(r#"{{"request":{{"uid":"t",{REQUEST}{extra}}}}}"#);
        let context = |c: &str| format!(r#"{{"review":{},"context":{c}}}"#, request(""));
        let cases: Vec<(String, bool)> = vec![
            (request(""), true),
            (include_str!("../../bench/pod-review.json").to_owned(), true),
            (request(r#","name":"n","namespace":"ns","subResource":"status","dryRun":true"#), true),
            // policy-sdk-rust's snake_case names and empty objects
            (request(r#","sub_resource":"","request_kind":{},"request_resource":{"group":"","version":"","resource":""},"dry_run":false,"options":{}"#), true),
            (request(r#","requestKind":null,"requestSubResource":null,"dryRun":null,"options":null"#), true),
            (request(r#","object":null,"oldObject":{"a":[1,-0,2.5,1e3,18446744073709551615,-9223372036854775808]}"#), true),
            // exact doubles, where serde_json's default reading is one unit in the last place off
            (request(r#","object":{"spec":{"floor":1.38e-23,"ceiling":-5.43e-21}}"#), true),
            (request(r#","object":"a string","old_object":[]"#), true),
            (request(r#","options":{"a":1,"a":{"b":null},"c":"\u00e9\ud83d\ude00"}"#), true),
            (request(r#","\u006eame":"escaped key""#), true),
            (r#"{"request":{"uid":"t","kind":{"group":"","version":"v1","kind":"Pod","other":1},"resource":{},"operation":"CREATE","userInfo":{"username":"a","groups":["g"],"extra":{"k":["a"],"k":["b"],"j":[]}}},"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","unknown":[{}]}"#.to_owned(), true),
            (context(r#"{"namespaces":[{"metadata":{"name":"a"}}],"authorizations":[{"subject":{"user":"u"},"verb":"get","allowed":true},{"resource":null}]}"#), true),
            (context("{}"), true),
            (context("null"), true),
            // serde refuses these, or reads them otherwise: serde_json reads them
            (request(r#","uid":"twice""#), false),
            (request(r#","userInfo":{"username":"b"}"#), false),
            (request(r#","user_info":{"username":"b"}"#), false),
            (request(r#","name":null"#), false),
            (request(r#","dryRun":"yes""#), false),
            (request(r#","requestKind":["","v1","Pod"]"#), false),
            (r#"{"request":{"uid":1}}"#.to_owned(), false),
            (r#"{"request":{"kind":{},"resource":{},"operation":"CREATE","userInfo":{}}}"#.to_owned(), false),
            (r#"{"request":{"uid":"t","kind":{"group":null},"resource":{},"operation":"CREATE","userInfo":{}}}"#.to_owned(), false),
            (r#"{"request":{"uid":"t","kind":{},"resource":{},"operation":"CREATE","userInfo":{"groups":[1]}}}"#.to_owned(), false),
            (context(r#"{"unknown":1}"#), false),
            (context(r#"{"authorizations":[{"subject":{"user":"u","other":1}}]}"#), false),
            (context(r#"{"authorizations":[{"allowed":null}]}"#), false),
            (r#"{"request":null,"request":null}"#.to_owned(), false),
            // Kubewarden's payload: the settings kept as their text, exactly as written
            (format!(r#"{{"request":{{"uid":"t",{REQUEST}}},"settings":{{ "policies" : [ ] ,"x":"\u00e9"}} }}"#), true),
            (format!(r#"{{"request":{{"uid":"t",{REQUEST}}},"settings":null}}"#), true),
            (format!(r#"{{"settings":  [1, 2.50] ,"request":{{"uid":"t",{REQUEST}}}}}"#), true),
            (format!(r#"{{"settings":"s","settings":"t","request":{{"uid":"t",{REQUEST}}}}}"#), true),
        ];
        for (input, reads) in cases {
            assert_eq!(check_tape_reading(input.as_bytes()), Ok(reads), "{input}");
        }
    }

    #[test]
    fn not_configured_is_500() {
        let input = format!(r#"{{"request":{{"uid":"x",{REQUEST}}}}}"#);
        let out: Value = serde_json::from_str(&review_json("[1]", &input)).unwrap();
        assert_eq!(out["response"]["status"]["code"], 500);
        assert!(
            out["response"]["status"]["message"]
                .as_str()
                .unwrap()
                .starts_with("palisade is not configured: ")
        );
    }

    #[test]
    fn configure_answer_lists_problems() {
        let answer: Value =
            serde_json::from_str(&configure(br#"{"policies":[{"kind":"X"},{}]}"#).answer())
                .unwrap();
        assert_eq!(answer["valid"], false);
        assert_eq!(answer["problems"].as_array().unwrap().len(), 2);
        assert_eq!(
            serde_json::from_str::<Value>(&configure(b"{}").answer()).unwrap(),
            serde_json::json!({"valid": true})
        );
    }

    /// A policy denying every Pod named `deny-me`, for the state tests.
    fn denying_bundle(name: &str) -> String {
        serde_json::json!({"policies": [
            {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
             "metadata": {"name": "p"},
             "spec": {"matchConstraints": {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"],
                        "operations": ["CREATE"], "resources": ["pods"]}]},
                      "validations": [{"expression": format!("object.metadata.name != '{name}'")}]}},
            {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
             "metadata": {"name": "b"}, "spec": {"policyName": "p", "validationActions": ["Deny"]}}]})
        .to_string()
    }

    fn pod_named(name: &str) -> String {
        format!(
            r#"{{"request":{{"uid":"s1",{REQUEST},"object":{{"metadata":{{"name":"{name}"}}}}}}}}"#
        )
    }

    fn decide(state: &Configured, input: &str) -> Value {
        serde_json::from_str::<Value>(&state.validate(input.as_bytes())).unwrap()["response"]
            .clone()
    }

    #[test]
    fn never_configured_answers_500_and_still_400_for_unreadable_input() {
        let state = Configured::default();
        assert!(matches!(state, Configured::Never(NEVER_CONFIGURED)));
        let response = decide(&state, &pod_named("a"));
        assert_eq!(response["allowed"], false);
        assert_eq!(response["uid"], "s1");
        assert_eq!(response["status"]["code"], 500);
        assert_eq!(response["status"]["reason"], "InternalError");
        assert_eq!(
            response["status"]["message"],
            format!("palisade is not configured: {NEVER_CONFIGURED}")
        );
        assert_eq!(decide(&state, "{oops")["status"]["code"], 400);
        let answer: Value = serde_json::from_str(&state.answer()).unwrap();
        assert_eq!(answer["valid"], false);
        let trace: Value = serde_json::from_str(&state.explain(pod_named("a").as_bytes())).unwrap();
        assert!(
            trace["error"]
                .as_str()
                .unwrap()
                .starts_with("palisade is not configured: ")
        );
    }

    #[test]
    fn rejected_then_validate_answers_500_with_every_problem() {
        let state = configure(br#"{"policies":[{"kind":"X"},{}]}"#);
        let rejection = state.rejection().unwrap().to_string();
        assert!(
            rejection.starts_with("the bundle has 2 problems: "),
            "{rejection}"
        );
        let response = decide(&state, &pod_named("a"));
        assert_eq!(response["status"]["code"], 500);
        assert_eq!(
            response["status"]["message"],
            format!("palisade is not configured: the last bundle was rejected: {rejection}")
        );
        assert_eq!(
            state.why_not_configured().unwrap(),
            format!("the last bundle was rejected: {rejection}")
        );
        let trace: Value = serde_json::from_str(&state.explain(pod_named("a").as_bytes())).unwrap();
        assert_eq!(trace["problems"].as_array().unwrap().len(), 2);
        // A bundle that is not JSON at all is rejected the same way.
        let state = configure(b"policies: []");
        assert!(
            decide(&state, &pod_named("a"))["status"]["message"]
                .as_str()
                .unwrap()
                .contains("the bundle is not valid JSON")
        );
    }

    #[test]
    fn reconfigure_replaces_the_state() {
        let mut state = Configured::default();
        let answer: Value = serde_json::from_str(&state.configure(b"[1]")).unwrap();
        assert_eq!(answer["valid"], false);
        assert!(matches!(state, Configured::Rejected(_)));
        assert_eq!(decide(&state, &pod_named("x"))["status"]["code"], 500);
        assert_eq!(
            state.configure(denying_bundle("x").as_bytes()),
            r#"{"valid":true}"#
        );
        assert_eq!(decide(&state, &pod_named("x"))["allowed"], false);
        assert_eq!(decide(&state, &pod_named("x"))["status"]["code"], 422);
        assert_eq!(decide(&state, &pod_named("y"))["allowed"], true);
        state.configure(denying_bundle("y").as_bytes());
        assert_eq!(decide(&state, &pod_named("x"))["allowed"], true);
        assert_eq!(decide(&state, &pod_named("y"))["allowed"], false);
        // A rejected bundle replaces a good one too: nothing of the old bundle decides any more.
        state.configure(br#"{"policies":[{}]}"#);
        assert_eq!(decide(&state, &pod_named("y"))["status"]["code"], 500);
    }

    #[test]
    fn bundles_past_the_limit_are_refused_before_reading() {
        let big = vec![b' '; MAX_BUNDLE_BYTES + 1];
        for document in [BundleDocument::Bundle, BundleDocument::KubewardenSettings] {
            let e = read_bundle(&big, document).unwrap_err();
            assert!(e.to_string().contains("bytes Palisade reads"), "{e}");
        }
        let state = configure(&big);
        assert!(state.rejection().unwrap().to_string().contains(&format!(
            "the bundle is {} bytes, more than the {MAX_BUNDLE_BYTES} bytes",
            MAX_BUNDLE_BYTES + 1
        )));
        assert_eq!(
            read_bundle(b" null ", BundleDocument::KubewardenSettings).unwrap(),
            serde_json::json!({})
        );
        assert_eq!(
            read_bundle(b"", BundleDocument::KubewardenSettings).unwrap(),
            serde_json::json!({})
        );
        assert!(read_bundle(b"", BundleDocument::Bundle).is_err());
    }

    #[test]
    fn read_errors_are_typed_and_carry_the_identity() {
        let e = read_review(
            br#"{"apiVersion":"admission.k8s.io/v1beta1","request":{"uid":"t","operation":5}}"#,
        )
        .unwrap_err();
        assert_eq!(e.document, ADMISSION_REVIEW);
        assert!(
            matches!(&e.fault, ReadFault::WrongField { path, .. } if path == "request.operation"),
            "{e:?}"
        );
        assert_eq!(
            (e.api_version.as_str(), e.uid.as_str()),
            (ADMISSION_V1BETA1, "t")
        );
        let response = e.response();
        assert_eq!(response.uid, "t");
        assert_eq!(response.status.as_ref().unwrap().code, Some(400));
        let e = read_review(br#"{"kind":"Pod"}"#).unwrap_err();
        assert_eq!(e.fault, ReadFault::WrongKind("Pod".into()));
        let e = read_object::<Value>(b"[]", "the validation request").unwrap_err();
        assert_eq!(
            e.to_string(),
            "the validation request must be a JSON object, not a list"
        );
        assert_eq!(
            e.of(ADMISSION_REVIEW).to_string(),
            "the AdmissionReview must be a JSON object, not a list"
        );
    }
}
