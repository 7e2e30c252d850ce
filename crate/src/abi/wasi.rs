//! The WASI command (`palisade-wasi.wasm`, wasm32-wasip1, feature `wasi`): decode → call → encode over
//! [`crate::api`], for hosts that run WASI programs (`wasmtime run`, wasmer, wazero, Node's `node:wasi`) rather than
//! call the C ABI's exports.
//!
//! ```text
//! palisade-wasi validate [-p BUNDLE] [--context FILE] [REVIEW…]   the AdmissionReview answer, as the C ABI's
//!                                                                  validate (no REVIEW: stdin)
//! palisade-wasi explain  [-p BUNDLE] [--context FILE] [--text] [REVIEW…]   how it was decided (the trace: JSON, or
//!                                                                          with --text a tree to read)
//! palisade-wasi check    [-p] BUNDLE                              the bundle compiled: {"valid": …} with its problems
//! ```
//!
//! - BUNDLE is a JSON or YAML file, a bundle document or a stream of upstream objects, read as `palisade eval` reads
//!   one ([`crate::bundle::from_documents`]); without `-p`, the file `$PALISADE_BUNDLE` names. The host must give the
//!   command the file's directory (`wasmtime run --dir .`). With neither, a module made by `palisade bake --wasi`
//!   decides with the bundle baked into its image ([`bake`]), and needs no directory at all.
//! - REVIEW is what the C ABI's `validate` takes: an AdmissionReview, or `{"review": …, "context": …}`, on stdin, or
//!   in each file named (the bundle is then compiled once for all of them). `--context FILE` (JSON or YAML) is the
//!   context instead of any the input carries.
//! - The answer goes to stdout, one JSON line per review, in order; what went wrong to stderr.
//! - Exit status: 0 when the request is allowed (every one, with several) (`check`: the bundle compiles; `explain`: a trace was written), 1 when
//!   it is not (denied, or answered 500 because no bundle was given or the file cannot be read or does not compile:
//!   fail closed, the uid echoed; `check`: the bundle has problems), 2 for a command line it does not understand or a
//!   context file it cannot read.
//!
//! Everything but [`main`] is plain Rust over [`Io`], so it is tested natively with files in memory.

use std::cell::RefCell;

use crate::api::{self, ADMISSION_REVIEW, Configured, ReadError, ReadFault};
use crate::bundle::{ConfigError, MAX_BUNDLE_BYTES, from_documents};
use crate::context::StaticContext;

thread_local! {
    /// The bundle compiled into this module's image by `palisade bake --wasi` ([`bake`]): what a run decides with when
    /// it is named no bundle file. `None` in the module as built.
    static BAKED: RefCell<Option<Configured>> = const { RefCell::new(None) };
}

/// Compile `bundle_json` (a bundle, as the C ABI's `configure` takes it) and keep it as the baked bundle when it
/// compiles; answers as `configure` does. `palisade bake --wasi` calls it, through the module's unexported
/// `palisade_bake` (`abi/wasi_bake.rs`), on an instance whose memory it then writes out as the baked module's image.
pub fn bake(bundle_json: &[u8]) -> String {
    let configured = api::configure(bundle_json);
    let answer = configured.answer();
    if configured.engine().is_some() {
        BAKED.with(|baked| *baked.borrow_mut() = Some(configured));
    }
    answer
}

/// What the command reads from its host: files, stdin, the environment. A reader stops after `limit + 1` bytes, so
/// that what is too large is known to be without being held.
pub trait Io {
    /// The bytes of a file, at most `limit + 1` of them (`Err`: why not, as the host says it).
    fn read_file(&self, path: &str, limit: usize) -> Result<Vec<u8>, String>;
    /// stdin, at most `limit + 1` bytes of it.
    fn read_stdin(&self, limit: usize) -> Result<Vec<u8>, String>;
    /// An environment variable.
    fn var(&self, name: &str) -> Option<String>;
}

/// The most a bundle or context file may hold: YAML says a bundle in more bytes than the JSON that `configure` takes
/// (at most [`MAX_BUNDLE_BYTES`]), so twice as many.
pub const MAX_FILE_BYTES: usize = 2 * MAX_BUNDLE_BYTES;

/// The most stdin may hold: an AdmissionReview with an object and an old object as large as etcd stores, and room
/// to spare.
pub const MAX_INPUT_BYTES: usize = 64 << 20;

/// What one run of the command prints, and its exit status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub stdout: String,
    pub stderr: String,
    pub status: u8,
}

impl Outcome {
    fn usage(problem: &str) -> Self {
        Self {
            stdout: String::new(),
            stderr: format!("palisade-wasi: {problem}\n\n{USAGE}"),
            status: USAGE_ERROR,
        }
    }
}

/// The exit status of a command line the command does not understand.
pub const USAGE_ERROR: u8 = 2;

/// The environment variable that names the bundle file when `-p` is not given.
pub const BUNDLE_VAR: &str = "PALISADE_BUNDLE";

/// Why there is no engine when neither `-p` nor [`BUNDLE_VAR`] names a bundle.
pub const NO_BUNDLE: &str = "no bundle was given (run `palisade-wasi validate -p BUNDLE`, or name the file in $PALISADE_BUNDLE)";

/// `palisade-wasi help`.
pub const USAGE: &str = "\
usage: palisade-wasi validate [-p BUNDLE] [--context FILE] [REVIEW…]
       palisade-wasi explain  [-p BUNDLE] [--context FILE] [--text] [REVIEW…]
       palisade-wasi check    [-p] BUNDLE

  validate  decide each AdmissionReview (no REVIEW: the one on stdin); print the
            AdmissionReview answer, one line per review
  explain   print how it was decided: every policy and binding, every expression
            (JSON; --text: a tree to read)
  check     compile the bundle; print {\"valid\": …} with every problem

  BUNDLE    a JSON or YAML file: a bundle document, or a stream of upstream objects
            (default: the file $PALISADE_BUNDLE names; with neither, the bundle a module
            made by `palisade bake --wasi` holds, and in any other module every request is
            answered 500, not configured); the host must preopen its directory,
            e.g. `wasmtime run --dir . palisade-wasi.wasm validate -p bundle.yaml < review.json`
  REVIEW    a file with an AdmissionReview, or {\"review\": …, \"context\": …}
  --context a JSON or YAML file with the context (namespaces, …), instead of the input's

exit status: 0 allowed (every review; check: valid), 1 not allowed (check: problems), 2 usage
";

/// The parsed command line.
struct Command {
    name: &'static str,
    bundle: Option<String>,
    context: Option<String>,
    /// `explain --text`: the trace as a tree ([`crate::explain::to_text`]).
    text: bool,
    /// The review files of `validate` and `explain` (none: stdin).
    reviews: Vec<String>,
}

fn parse(args: &[String]) -> Result<Command, String> {
    let mut rest = args.iter().skip(1);
    let name = match rest.next().map(String::as_str) {
        Some("validate") => "validate",
        Some("explain") => "explain",
        Some("check") => "check",
        Some(other) => return Err(format!("unknown command `{other}`")),
        None => return Err("no command".to_owned()),
    };
    let mut command = Command {
        name,
        bundle: None,
        context: None,
        text: false,
        reviews: Vec::new(),
    };
    while let Some(arg) = rest.next() {
        let slot = match arg.as_str() {
            "-p" | "--bundle" => &mut command.bundle,
            "--context" if name != "check" => &mut command.context,
            "--text" if name == "explain" => {
                command.text = true;
                continue;
            }
            positional if name == "check" && !positional.starts_with('-') => {
                if command.bundle.is_some() {
                    return Err(format!("`check` takes one bundle, not also `{positional}`"));
                }
                command.bundle = Some(positional.to_owned());
                continue;
            }
            review if name != "check" && !review.starts_with('-') => {
                command.reviews.push(review.to_owned());
                continue;
            }
            other => return Err(format!("`{name}` does not take `{other}`")),
        };
        let Some(value) = rest.next() else {
            return Err(format!("`{arg}` needs a file"));
        };
        if slot.is_some() {
            return Err(format!("`{arg}` is given twice"));
        }
        *slot = Some(value.clone());
    }
    Ok(command)
}

/// Run the command line `args` (the program name first). `baked` is what a run decides with when it is named no
/// bundle file (a baked module's bundle, [`bake`]); a bundle file named replaces it for the run.
pub fn run(args: &[String], io: &dyn Io, baked: Option<&Configured>) -> Outcome {
    if matches!(
        args.get(1).map(String::as_str),
        Some("help" | "-h" | "--help")
    ) {
        return Outcome {
            stdout: USAGE.to_owned(),
            stderr: String::new(),
            status: 0,
        };
    }
    let command = match parse(args) {
        Ok(command) => command,
        Err(problem) => return Outcome::usage(&problem),
    };
    let compiled;
    let configured = match (command.bundle.clone().or_else(|| io.var(BUNDLE_VAR)), baked) {
        (Some(path), _) => {
            compiled = configure_file(&path, io);
            &compiled
        }
        (None, Some(baked)) => baked,
        (None, None) => {
            compiled = Configured::Never(NO_BUNDLE);
            &compiled
        }
    };
    let rejected = configured
        .why_not_configured()
        .map(|why| format!("palisade-wasi: palisade is not configured: {why}\n"))
        .unwrap_or_default();
    if command.name == "check" {
        return Outcome {
            stdout: format!("{}\n", configured.answer()),
            stderr: rejected,
            status: u8::from(configured.engine().is_none()),
        };
    }
    let context = match &command.context {
        None => None,
        Some(path) => match read_context(path, io) {
            Ok(context) => Some(context),
            Err(problem) => return Outcome::usage(&problem),
        },
    };
    let mut stdout = String::new();
    let mut all_allowed = true;
    let mut decide_input = |input: &[u8]| {
        let (printed, allowed) = decide(&command, configured, context.as_ref(), input);
        stdout.push_str(&printed);
        all_allowed &= allowed;
    };
    if command.reviews.is_empty() {
        match io.read_stdin(MAX_INPUT_BYTES) {
            Ok(input) => decide_input(&input),
            Err(e) => return Outcome::usage(&format!("cannot read stdin: {e}")),
        }
    }
    for path in &command.reviews {
        // a file that cannot be read is a usage error, and nothing is printed (the output is written at the end)
        match io.read_file(path, MAX_INPUT_BYTES) {
            Ok(input) => decide_input(&input),
            Err(e) => return Outcome::usage(&format!("cannot read the review `{path}`: {e}")),
        }
    }
    Outcome {
        stdout,
        stderr: rejected,
        // explain reports; validate says whether every request is allowed
        status: u8::from(command.name == "validate" && !all_allowed),
    }
}

/// One review decided (`validate`) or explained (`explain`): what is printed for it, and whether it is allowed.
fn decide(
    command: &Command,
    configured: &Configured,
    context: Option<&StaticContext>,
    input: &[u8],
) -> (String, bool) {
    let read = if input.len() > MAX_INPUT_BYTES {
        // answered as an unreadable review: 400, with the uid and apiVersion its first bytes give
        Err(ReadError::new(
            ADMISSION_REVIEW,
            ReadFault::TooLarge(MAX_INPUT_BYTES),
            input,
        ))
    } else {
        api::read_review(input)
    };
    let read = read.map(|mut read| {
        if let Some(context) = context {
            read.context = context.clone();
        }
        read
    });
    if command.name == "explain" {
        let trace = configured.explain_read(read);
        let printed = match serde_json::from_str(&trace) {
            Ok(value) if command.text => crate::explain::to_text(&value),
            _ => format!("{trace}\n"),
        };
        return (printed, true);
    }
    let answer = configured.answer_read(read);
    let allowed = serde_json::from_str::<serde_json::Value>(&answer)
        .ok()
        .and_then(|a| a.pointer("/response/allowed")?.as_bool())
        == Some(true);
    (format!("{answer}\n"), allowed)
}

/// Read and compile the bundle file at `path`: a file that cannot be read or parsed is a rejected bundle, answered as
/// the C ABI answers after a rejected `configure`.
fn configure_file(path: &str, io: &dyn Io) -> Configured {
    let bundle =
        read_file(io, path, "bundle", "split it into several policies").and_then(|bytes| {
            let text = String::from_utf8(bytes)
                .map_err(|e| format!("the bundle `{path}` is not UTF-8: {e}"))?;
            let docs =
                palisade_yaml::parse_json_or_yaml(&text).map_err(|e| format!("{path}: {e}"))?;
            serde_json::to_vec(&from_documents(docs.into_iter().map(|d| d.value).collect()))
                .map_err(|e| format!("the bundle `{path}` cannot be written as JSON: {e}"))
        });
    match bundle {
        Ok(json) => api::configure(&json),
        Err(problem) => Configured::Rejected(ConfigError::at_root(problem)),
    }
}

/// The bytes of the `what` file at `path`, at most [`MAX_FILE_BYTES`] of them (`fix`: what to do with a larger one).
fn read_file(io: &dyn Io, path: &str, what: &str, fix: &str) -> Result<Vec<u8>, String> {
    let bytes = io
        .read_file(path, MAX_FILE_BYTES)
        .map_err(|e| format!("cannot read the {what} `{path}`: {e}"))?;
    if bytes.len() > MAX_FILE_BYTES {
        return Err(format!(
            "the {what} `{path}` is more than the {MAX_FILE_BYTES} bytes Palisade reads of a {what} file: {fix}"
        ));
    }
    Ok(bytes)
}

/// Read the context file at `path`.
fn read_context(path: &str, io: &dyn Io) -> Result<StaticContext, String> {
    let bytes = read_file(
        io,
        path,
        "context",
        "give it only the namespaces and authorizations the reviews ask about",
    )?;
    let text =
        String::from_utf8(bytes).map_err(|e| format!("the context `{path}` is not UTF-8: {e}"))?;
    let value = match palisade_yaml::parse_json_or_yaml(&text)
        .map_err(|e| format!("{path}: {e}"))?
        .pop()
    {
        Some(doc) => doc.value,
        None => serde_json::Value::Object(serde_json::Map::new()),
    };
    serde_json::from_value(value).map_err(|e| format!("the context `{path}` cannot be read: {e}"))
}

/// The host's files, stdin and environment, through the standard library (WASI's preopened directories).
struct Std;

/// At most `limit + 1` bytes of `reader`.
fn read_at_most(reader: impl std::io::Read, limit: usize) -> Result<Vec<u8>, String> {
    use std::io::Read as _;
    let mut bytes = Vec::new();
    reader
        .take(u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1))
        .read_to_end(&mut bytes)
        .map(|_| bytes)
        .map_err(|e| e.to_string())
}

impl Io for Std {
    fn read_file(&self, path: &str, limit: usize) -> Result<Vec<u8>, String> {
        let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
        read_at_most(file, limit)
    }

    fn read_stdin(&self, limit: usize) -> Result<Vec<u8>, String> {
        read_at_most(std::io::stdin().lock(), limit)
    }

    fn var(&self, name: &str) -> Option<String> {
        std::env::var(name).ok()
    }
}

/// The command's `main`: [`run`] on the process's arguments, its output written out.
pub fn main() -> std::process::ExitCode {
    use std::io::Write as _;
    let args: Vec<String> = std::env::args().collect();
    let outcome = BAKED.with(|baked| run(&args, &Std, baked.borrow().as_ref()));
    let written = std::io::stdout()
        .lock()
        .write_all(outcome.stdout.as_bytes())
        .and_then(|()| {
            std::io::stderr()
                .lock()
                .write_all(outcome.stderr.as_bytes())
        });
    match written {
        Ok(()) => std::process::ExitCode::from(outcome.status),
        Err(_) => std::process::ExitCode::from(USAGE_ERROR),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing, reason = "tests")]
    use super::*;
    use std::collections::HashMap;

    /// A policy that denies Pods in namespaces labelled `locked: "true"`, and a binding for it, as a YAML stream.
    const BUNDLE: &str = "\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: no-bad-names}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules: [{apiGroups: [''], apiVersions: [v1], resources: [pods], operations: [CREATE]}]
  validations:
  - expression: object.metadata.name != 'bad'
    message: the name is bad
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: no-bad-names}
spec:
  policyName: no-bad-names
  validationActions: [Deny]
  matchResources:
    namespaceSelector: {matchLabels: {locked: 'true'}}
";

    const LOCKED: &str = "namespaces:\n- {apiVersion: v1, kind: Namespace, metadata: {name: team-a, labels: {locked: 'true'}}}\n";
    const OPEN: &str =
        "namespaces:\n- {apiVersion: v1, kind: Namespace, metadata: {name: team-a}}\n";

    fn bare_review(name: &str) -> String {
        format!(
            r#"{{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{{"uid":"u-1","kind":{{"group":"","version":"v1","kind":"Pod"}},"resource":{{"group":"","version":"v1","resource":"pods"}},"namespace":"team-a","operation":"CREATE","userInfo":{{"username":"alice"}},"object":{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"{name}","namespace":"team-a"}}}}}}}}"#
        )
    }

    /// The input of `validate` with a context: Pod `name` in `team-a`, a namespace without labels.
    fn review(name: &str) -> String {
        with_context(&bare_review(name), OPEN)
    }

    fn with_context(review: &str, context: &str) -> String {
        let context = serde_json::to_string(&palisade_yaml::from_str(context).unwrap()).unwrap();
        format!(r#"{{"review":{review},"context":{context}}}"#)
    }

    #[derive(Default)]
    struct Fake {
        files: HashMap<String, String>,
        stdin: String,
        vars: HashMap<String, String>,
    }

    impl Io for Fake {
        fn read_file(&self, path: &str, limit: usize) -> Result<Vec<u8>, String> {
            let text = self
                .files
                .get(path)
                .ok_or_else(|| "No such file or directory (os error 44)".to_owned())?;
            read_at_most(text.as_bytes(), limit)
        }
        fn read_stdin(&self, limit: usize) -> Result<Vec<u8>, String> {
            read_at_most(self.stdin.as_bytes(), limit)
        }
        fn var(&self, name: &str) -> Option<String> {
            self.vars.get(name).cloned()
        }
    }

    fn fake(stdin: &str) -> Fake {
        Fake {
            files: HashMap::from([
                ("bundle.yaml".to_owned(), BUNDLE.to_owned()),
                ("locked.yaml".to_owned(), LOCKED.to_owned()),
                ("broken.yaml".to_owned(), "policies: [\n".to_owned()),
                ("invalid.yaml".to_owned(), BUNDLE.replace("!= 'bad'", "!= ")),
            ]),
            stdin: stdin.to_owned(),
            vars: HashMap::new(),
        }
    }

    fn run_with(io: &Fake, args: &[&str]) -> (serde_json::Value, Outcome) {
        let args: Vec<String> = std::iter::once("palisade-wasi")
            .chain(args.iter().copied())
            .map(str::to_owned)
            .collect();
        let outcome = run(&args, io, None);
        let json = serde_json::from_str(&outcome.stdout).unwrap_or(serde_json::Value::Null);
        (json, outcome)
    }

    #[test]
    fn validate_answers_the_review_and_exits_with_the_verdict() {
        let (answer, out) = run_with(&fake(&review("good")), &["validate", "-p", "bundle.yaml"]);
        assert_eq!(answer["response"]["allowed"], true, "{out:?}");
        assert_eq!(answer["response"]["uid"], "u-1");
        assert_eq!(out.status, 0);
        assert!(out.stdout.ends_with('\n') && out.stderr.is_empty());
        // the binding's namespaceSelector matches only in the context that labels the namespace: --context is the
        // context instead of the input's
        let io = fake(&review("bad"));
        let (answer, out) = run_with(&io, &["validate", "-p", "bundle.yaml"]);
        assert_eq!(answer["response"]["allowed"], true, "{out:?}");
        let (answer, out) = run_with(
            &io,
            &["validate", "-p", "bundle.yaml", "--context", "locked.yaml"],
        );
        assert_eq!(answer["response"]["allowed"], false);
        assert_eq!(answer["response"]["status"]["code"], 422);
        assert_eq!(
            answer["response"]["status"]["message"],
            "ValidatingAdmissionPolicy 'no-bad-names' with binding 'no-bad-names' denied request: the name is bad"
        );
        assert_eq!(out.status, 1);
        let (answer, _) = run_with(
            &fake(&with_context(&bare_review("bad"), LOCKED)),
            &["validate", "-p", "bundle.yaml"],
        );
        assert_eq!(answer["response"]["allowed"], false);
        // a bare AdmissionReview: the context is empty, and this binding cannot select a namespace without it
        let (answer, out) = run_with(
            &fake(&bare_review("good")),
            &["validate", "-p", "bundle.yaml", "--context", "locked.yaml"],
        );
        assert_eq!(answer["response"]["allowed"], true, "{out:?}");
        let (answer, _) = run_with(
            &fake(&bare_review("good")),
            &["validate", "-p", "bundle.yaml"],
        );
        assert_eq!(answer["response"]["allowed"], false);
    }

    #[test]
    fn the_bundle_file_may_be_named_by_the_environment() {
        let mut io = fake(&review("good"));
        // with neither, the request is answered as a module never configured answers it: 500, fail closed
        let (answer, out) = run_with(&io, &["validate"]);
        assert_eq!(answer["response"]["uid"], "u-1");
        assert_eq!(answer["response"]["status"]["code"], 500);
        assert_eq!(
            answer["response"]["status"]["message"],
            format!("palisade is not configured: {NO_BUNDLE}")
        );
        assert_eq!(out.status, 1);
        assert!(out.stderr.contains(NO_BUNDLE), "{}", out.stderr);
        let (answer, out) = run_with(&io, &["check"]);
        assert_eq!(answer["valid"], false);
        assert_eq!(out.status, 1);
        io.vars
            .insert(BUNDLE_VAR.to_owned(), "bundle.yaml".to_owned());
        let (answer, out) = run_with(&io, &["validate"]);
        assert_eq!(answer["response"]["allowed"], true);
        assert_eq!(out.status, 0);
    }

    /// A baked module's bundle decides when no bundle file is named; a file named, by `-p` or the environment,
    /// replaces it for the run, as it would in any module.
    #[test]
    fn a_baked_bundle_decides_when_no_file_is_named() {
        let json = serde_json::to_vec(&from_documents(
            palisade_yaml::parse_json_or_yaml(BUNDLE)
                .unwrap()
                .into_iter()
                .map(|d| d.value)
                .collect(),
        ))
        .unwrap();
        // what bake keeps: only a bundle that compiles, answered as configure answers
        let refused = bake(b"{\"policies\": 7}");
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&refused).unwrap()["valid"],
            false
        );
        assert!(BAKED.with(|b| b.borrow().is_none()));
        assert_eq!(bake(&json), r#"{"valid":true}"#);
        let baked = BAKED.with(|b| b.borrow_mut().take()).unwrap();
        let run_baked = |io: &Fake, args: &[&str]| {
            let args: Vec<String> = std::iter::once("palisade-wasi")
                .chain(args.iter().copied())
                .map(str::to_owned)
                .collect();
            let out = run(&args, io, Some(&baked));
            let json = serde_json::from_str(&out.stdout).unwrap_or(serde_json::Value::Null);
            (json, out)
        };
        // no file at all: not even the bundle's
        let mut io = fake(&with_context(&bare_review("bad"), LOCKED));
        io.files.clear();
        let (answer, out) = run_baked(&io, &["validate"]);
        assert_eq!(answer["response"]["allowed"], false, "{out:?}");
        assert_eq!(
            answer["response"]["status"]["message"],
            "ValidatingAdmissionPolicy 'no-bad-names' with binding 'no-bad-names' denied request: the name is bad"
        );
        assert_eq!((out.status, out.stderr.as_str()), (1, ""));
        let (answer, out) = run_baked(&fake(&review("good")), &["validate"]);
        assert_eq!(
            (&answer["response"]["allowed"], out.status),
            (&serde_json::json!(true), 0)
        );
        let (trace, _) = run_baked(&io, &["explain"]);
        assert_eq!(trace["verdict"]["response"]["allowed"], false);
        let (answer, out) = run_baked(&fake(""), &["check"]);
        assert_eq!(
            (answer, out.status),
            (serde_json::json!({"valid": true}), 0)
        );
        // a file named replaces the baked bundle for the run: here one that does not compile, so it fails closed
        let (answer, _) = run_baked(&fake(&review("good")), &["validate", "-p", "invalid.yaml"]);
        assert_eq!(answer["response"]["status"]["code"], 500);
        let mut io = fake(&review("good"));
        io.vars
            .insert(BUNDLE_VAR.to_owned(), "broken.yaml".to_owned());
        let (answer, _) = run_baked(&io, &["validate"]);
        assert_eq!(answer["response"]["status"]["code"], 500);
        let (answer, _) = run_baked(&fake(""), &["check", "invalid.yaml"]);
        assert_eq!(answer["valid"], false);
    }

    #[test]
    fn a_bundle_that_cannot_be_read_fails_closed_with_the_uid() {
        for (file, says) in [
            (
                "missing.yaml",
                "cannot read the bundle `missing.yaml`: No such file or directory",
            ),
            ("broken.yaml", "broken.yaml: "),
            ("invalid.yaml", "policies[0].spec.validations[0].expression"),
        ] {
            let (answer, out) = run_with(&fake(&review("good")), &["validate", "-p", file]);
            let response = &answer["response"];
            assert_eq!(response["allowed"], false, "{file}: {out:?}");
            assert_eq!(response["uid"], "u-1");
            assert_eq!(response["status"]["code"], 500);
            let message = response["status"]["message"].as_str().unwrap();
            assert!(
                message.starts_with("palisade is not configured: the last bundle was rejected: ")
                    && message.contains(says),
                "{file}: {message}"
            );
            assert_eq!(out.status, 1);
            assert!(out.stderr.contains(says), "{}", out.stderr);
        }
    }

    #[test]
    fn files_and_input_past_their_limits_are_refused_unread() {
        let mut io = fake(&review("good"));
        io.files.insert(
            "huge.yaml".to_owned(),
            format!("# {}\n{BUNDLE}", "x".repeat(MAX_FILE_BYTES)),
        );
        let (answer, out) = run_with(&io, &["validate", "-p", "huge.yaml"]);
        assert_eq!(answer["response"]["status"]["code"], 500);
        assert!(
            out.stderr.contains(&format!(
                "the bundle `huge.yaml` is more than the {MAX_FILE_BYTES} bytes Palisade reads of a bundle file: split it into several policies"
            )),
            "{}",
            out.stderr
        );
        io.files.insert(
            "huge-context.yaml".to_owned(),
            format!("# {}\n{OPEN}", "x".repeat(MAX_FILE_BYTES)),
        );
        let (_, out) = run_with(
            &io,
            &[
                "validate",
                "-p",
                "bundle.yaml",
                "--context",
                "huge-context.yaml",
            ],
        );
        assert_eq!(out.status, USAGE_ERROR);
        assert!(out.stderr.contains("is more than the"), "{}", out.stderr);
        // stdin past its limit: a 400 that echoes the uid its first bytes give
        let input = format!(
            r#"{{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{{"uid":"u-big","object":{{"a":"{}"}}}}}}"#,
            "x".repeat(MAX_INPUT_BYTES)
        );
        let (answer, out) = run_with(&fake(&input), &["validate", "-p", "bundle.yaml"]);
        assert_eq!(answer["response"]["uid"], "u-big");
        assert_eq!(answer["response"]["status"]["code"], 400);
        assert_eq!(
            answer["response"]["status"]["message"],
            format!("the AdmissionReview is more than the {MAX_INPUT_BYTES} bytes Palisade reads")
        );
        assert_eq!(out.status, 1);
    }

    #[test]
    fn an_unreadable_review_is_answered_400() {
        let (answer, out) = run_with(
            &fake(r#"{"request": {"uid": "u-2", "operation": 7}"#),
            &["validate", "-p", "bundle.yaml"],
        );
        assert_eq!(answer["response"]["uid"], "u-2");
        assert_eq!(answer["response"]["status"]["code"], 400);
        assert_eq!(out.status, 1);
    }

    #[test]
    fn check_prints_the_configure_answer() {
        let (answer, out) = run_with(&fake(""), &["check", "bundle.yaml"]);
        assert_eq!(answer, serde_json::json!({"valid": true}));
        assert_eq!(out.status, 0);
        let (answer, out) = run_with(&fake(""), &["check", "-p", "invalid.yaml"]);
        assert_eq!(answer["valid"], false);
        assert_eq!(
            answer["problems"][0]["path"],
            "policies[0].spec.validations[0].expression"
        );
        assert_eq!(out.status, 1);
    }

    #[test]
    fn explain_prints_the_trace() {
        let (trace, out) = run_with(
            &fake(&review("bad")),
            &["explain", "-p", "bundle.yaml", "--context", "locked.yaml"],
        );
        assert_eq!(trace["verdict"]["response"]["allowed"], false, "{out:?}");
        assert_eq!(out.status, 0);
        let (_, text) = run_with(
            &fake(&review("bad")),
            &[
                "explain",
                "--text",
                "-p",
                "bundle.yaml",
                "--context",
                "locked.yaml",
            ],
        );
        assert_eq!(text.stdout, crate::explain::to_text(&trace));
        assert!(
            text.stdout
                .starts_with("verdict: denied, 422 Invalid (uid u-1): "),
            "{}",
            text.stdout
        );
        let (_, out) = run_with(&fake(""), &["validate", "--text", "-p", "bundle.yaml"]);
        assert_eq!(out.status, USAGE_ERROR);
    }

    /// Review files: the bundle compiled once, one answer line per file in order, exit 1 when any is not allowed; a
    /// file that cannot be read is a usage error with nothing on stdout, and stdin is not read.
    #[test]
    fn several_review_files_are_decided_in_one_run() {
        let mut io = fake("stdin is not read when files are named");
        io.files.insert("good.json".to_owned(), review("good"));
        io.files.insert(
            "bad.json".to_owned(),
            with_context(&bare_review("bad"), LOCKED),
        );
        let out = run(
            &[
                "palisade-wasi",
                "validate",
                "-p",
                "bundle.yaml",
                "good.json",
                "bad.json",
                "good.json",
            ]
            .map(str::to_owned),
            &io,
            None,
        );
        let lines: Vec<serde_json::Value> = out
            .stdout
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let allowed: Vec<&serde_json::Value> =
            lines.iter().map(|l| &l["response"]["allowed"]).collect();
        assert_eq!(
            allowed,
            [
                &serde_json::json!(true),
                &serde_json::json!(false),
                &serde_json::json!(true)
            ]
        );
        assert_eq!(out.status, 1, "{out:?}");
        // every answer is the one the review gets on its own, through stdin
        let alone = run_with(
            &fake(&with_context(&bare_review("bad"), LOCKED)),
            &["validate", "-p", "bundle.yaml"],
        );
        assert_eq!(lines[1], alone.0);
        let (_, out) = run_with(
            &io,
            &["validate", "-p", "bundle.yaml", "good.json", "good.json"],
        );
        assert_eq!((out.status, out.stdout.lines().count()), (0, 2));
        // explain: a trace per file, exit 0
        let (_, out) = run_with(
            &io,
            &["explain", "-p", "bundle.yaml", "bad.json", "good.json"],
        );
        let traces: Vec<serde_json::Value> = out
            .stdout
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(traces.len(), 2);
        assert_eq!(traces[0]["verdict"]["response"]["allowed"], false);
        assert_eq!(out.status, 0);
        // an unreadable file: usage, and nothing printed for the files before it
        let (_, out) = run_with(
            &io,
            &["validate", "-p", "bundle.yaml", "good.json", "missing.json"],
        );
        assert_eq!(out.status, USAGE_ERROR);
        assert!(out.stdout.is_empty(), "{out:?}");
        assert!(
            out.stderr.contains("cannot read the review `missing.json`"),
            "{out:?}"
        );
    }

    #[test]
    fn command_lines_it_does_not_understand_are_usage_errors() {
        for args in [
            &[][..],
            &["frobnicate"],
            &["validate", "-p"],
            &["validate", "-p", "a", "-p", "b"],
            &["validate", "--verbose"],
            &["check", "a.yaml", "b.yaml"],
            &["check", "--context", "c.yaml", "a.yaml"],
            &["validate", "-p", "bundle.yaml", "--context", "missing.yaml"],
        ] {
            let (_, out) = run_with(&fake(&review("good")), args);
            assert_eq!(out.status, USAGE_ERROR, "{args:?}: {out:?}");
            assert!(
                out.stdout.is_empty() && out.stderr.contains("usage:"),
                "{args:?}"
            );
        }
        let (_, out) = run_with(&fake(""), &["--help"]);
        assert_eq!((out.status, out.stdout.as_str()), (0, USAGE));
    }
}
