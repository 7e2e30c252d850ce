//! The regular-expression functions: the standard library's `matches` (global and method) and
//! the Kubernetes regex library's `find` and `findAll` (k8s.io/apiserver/pkg/cel/library/regex.go),
//! over RE2 syntax (`palisade_cel_kubernetes::regex`).

use palisade_cel_kubernetes::regex as re2;
use palisade_cel_kubernetes::regex::Regex;

use super::args::{int_arg, nso, str_arg};
use super::names::Method;
use crate::error::EvalError;
use crate::value::Value;

/// The compiled pattern: the one compiled with the program for a literal pattern, else
/// compiled now. An invalid pattern is Go's error, for `find`/`findAll` after upstream's
/// `Illegal regex: ` (regex.go), for `matches` as is (cel-go `String.Match`).
fn regex_for<'r>(
    pattern: &str,
    pre: Option<&'r Regex>,
    own: &'r mut Option<Regex>,
    illegal: bool,
) -> Result<&'r Regex, EvalError> {
    if let Some(r) = pre {
        return Ok(r);
    }
    let r = re2::compile(pattern)
        .map_err(|e| EvalError::new(if illegal { e.illegal() } else { e.to_string() }))?;
    Ok(own.insert(r))
}

/// `matches(s, pattern)`
pub fn matches<'a>(args: &[Value<'a>], regex: Option<&Regex>) -> Result<Value<'a>, EvalError> {
    if args.len() != 2 {
        return nso();
    }
    let s = str_arg(args, 0)?;
    let p = str_arg(args, 1)?;
    let mut own = None;
    Ok(Value::Bool(
        regex_for(p, regex, &mut own, false)?.is_match(s),
    ))
}

/// `s.matches(pattern)`, `s.find(pattern)`, `s.findAll(pattern[, limit])`
pub fn member<'a>(
    method: Method,
    s: &str,
    args: &[Value<'a>],
    regex: Option<&Regex>,
) -> Result<Value<'a>, EvalError> {
    match (method, args.len()) {
        (Method::Matches, 1) => {
            let mut own = None;
            Ok(Value::Bool(
                regex_for(str_arg(args, 0)?, regex, &mut own, false)?.is_match(s),
            ))
        }
        (Method::Find, 1) => {
            let mut own = None;
            let re = regex_for(str_arg(args, 0)?, regex, &mut own, true)?;
            Ok(Value::string(re2::find(re, s)))
        }
        (Method::FindAll, 1 | 2) => {
            let mut own = None;
            let re = regex_for(str_arg(args, 0)?, regex, &mut own, true)?;
            let limit = if args.len() == 2 {
                int_arg(args, 1)?
            } else {
                -1
            };
            let out = re2::find_all(re, s, limit)
                .into_iter()
                .map(Value::string)
                .collect();
            Ok(Value::list(out))
        }
        _ => nso(),
    }
}
