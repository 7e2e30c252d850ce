//! cel-go's encoders extension (`base64.encode`, `base64.decode`) and its cost.

use std::rc::Rc;

use base64::Engine as _;

use super::args::{arg, nso, str_arg};
use super::names::Base64Fn;
use crate::error::EvalError;
use crate::value::Value;

pub fn call<'a>(f: Base64Fn, args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    if args.len() != 1 {
        return nso();
    }
    match f {
        Base64Fn::Encode => match arg(args, 0)? {
            Value::Bytes(b) => Ok(Value::string(
                base64::engine::general_purpose::STANDARD.encode(b),
            )),
            _ => nso(),
        },
        Base64Fn::Decode => {
            let s = str_arg(args, 0)?;
            let std = base64::engine::general_purpose::STANDARD;
            let nopad = base64::engine::general_purpose::STANDARD_NO_PAD;
            let out = std
                .decode(s)
                .or_else(|_| nopad.decode(s))
                .map_err(|e| EvalError::new(format!("illegal base64 data: {e}")))?;
            Ok(Value::Bytes(Rc::from(out)))
        }
    }
}
