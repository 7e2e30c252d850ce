//! What an answer must echo, read from input that may be unreadable as a whole.
//!
//! kube-apiserver discards a webhook answer whose `response.uid` is not the request's uid (and then applies the
//! webhook's failurePolicy), so an unreadable review must still be answered with its uid and in its apiVersion
//! whenever they are present as strings. This reader walks the JSON text without building values and without
//! recursion: numbers out of range, nesting deeper than the full reader allows, unknown fields and wrong types elsewhere
//! do not stop it. Only the object structure on the way to `apiVersion` and `request.uid` has to be well-formed.

use super::cursor::Cursor;

/// The identity of a review: its `apiVersion` and `request.uid`, when present as strings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Identity {
    pub api_version: Option<String>,
    pub uid: Option<String>,
}

/// Read the identity of a bare AdmissionReview or of `{"review": AdmissionReview, "context": …}`. A `review` object
/// wins over top-level fields, as the full reader does.
pub fn identity(input: &[u8]) -> Identity {
    let mut outer = Identity::default();
    let mut review = None;
    let mut s = Cursor::new(input);
    s.object(&mut |s, key| match key.as_str() {
        "apiVersion" => {
            outer.api_version = s.string_value();
            true
        }
        "request" => {
            outer.uid = s.request_uid();
            true
        }
        "review" if s.peek() == Some(b'{') => {
            let mut inner = Identity::default();
            let complete = s.object(&mut |s, key| match key.as_str() {
                "apiVersion" => {
                    inner.api_version = s.string_value();
                    true
                }
                "request" => {
                    inner.uid = s.request_uid();
                    true
                }
                _ => s.skip_value(),
            });
            review = Some(inner);
            complete
        }
        _ => s.skip_value(),
    });
    review.unwrap_or(outer)
}

impl Cursor<'_> {
    /// Walk an object, calling `member` with each key while positioned at its value; `member` consumes the value and
    /// answers whether it could. False when the object is malformed (the walk stops there).
    fn object(&mut self, member: &mut dyn FnMut(&mut Self, String) -> bool) -> bool {
        if !self.eat(b'{') {
            return false;
        }
        if self.eat(b'}') {
            return true;
        }
        loop {
            let Some(key) = self.string() else {
                return false;
            };
            if !self.eat(b':') || !member(self, key) {
                return false;
            }
            if self.eat(b',') {
                continue;
            }
            return self.eat(b'}');
        }
    }

    /// `request.uid`, consuming the request value whatever it is.
    fn request_uid(&mut self) -> Option<String> {
        if self.peek() != Some(b'{') {
            self.skip_value();
            return None;
        }
        let mut uid = None;
        self.object(&mut |s, key| {
            if key == "uid" {
                uid = s.string_value();
                true
            } else {
                s.skip_value()
            }
        });
        uid
    }

    /// A string value (consumed); any other value is skipped and gives `None`.
    fn string_value(&mut self) -> Option<String> {
        if self.peek() == Some(b'"') {
            self.string()
        } else {
            self.skip_value();
            None
        }
    }

    /// A JSON string at the cursor, unescaped.
    fn string(&mut self) -> Option<String> {
        if self.peek() != Some(b'"') {
            return None;
        }
        let start = self.at;
        self.at += 1;
        loop {
            match self.bytes.get(self.at)? {
                b'\\' => self.at += 2,
                b'"' => {
                    self.at += 1;
                    break;
                }
                _ => self.at += 1,
            }
        }
        let token = self.bytes.get(start..self.at)?;
        serde_json::from_slice(token).ok()
    }

    /// Skip one value of any kind without looking into it (no recursion: brackets are counted).
    fn skip_value(&mut self) -> bool {
        match self.peek() {
            Some(b'"') => self.string().is_some() || self.skip_raw_string(),
            Some(b'{' | b'[') => {
                let mut depth = 0usize;
                while let Some(b) = self.peek() {
                    match b {
                        b'"' => {
                            if !self.skip_raw_string() {
                                return false;
                            }
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth -= 1;
                            if depth == 0 {
                                self.at += 1;
                                return true;
                            }
                        }
                        _ => {}
                    }
                    self.at += 1;
                }
                false
            }
            Some(_) => {
                // a number or a literal, read or not: up to the next delimiter
                let before = self.at;
                while let Some(b) = self.bytes.get(self.at) {
                    if matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r') {
                        break;
                    }
                    self.at += 1;
                }
                self.at > before
            }
            None => false,
        }
    }

    /// Skip a string token without decoding it (its escapes may be invalid).
    fn skip_raw_string(&mut self) -> bool {
        self.at += 1;
        while let Some(b) = self.bytes.get(self.at) {
            match b {
                b'\\' => self.at += 2,
                b'"' => {
                    self.at += 1;
                    return true;
                }
                _ => self.at += 1,
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(input: &str) -> (Option<String>, Option<String>) {
        let i = identity(input.as_bytes());
        (i.api_version, i.uid)
    }

    fn some(s: &str) -> Option<String> {
        Some(s.to_owned())
    }

    #[test]
    fn reads_through_what_the_full_reader_refuses() {
        // the fuzzer's minimal inputs (issue: hardening, finding 1)
        assert_eq!(
            id(r#"{"review":{"request":{"uid":"0"}},"context":{"":1e400}}"#),
            (None, some("0"))
        );
        assert_eq!(
            id(r#"{"review":{"request":{"uid":"0","operation":1e309}}}"#),
            (None, some("0"))
        );
        assert_eq!(
            id(r#"{"review":{"apiVersion":"admission.k8s.io/v1beta1","":{"":1e400}}}"#),
            (some("admission.k8s.io/v1beta1"), None)
        );
        let deep = format!(
            r#"{{"apiVersion":"admission.k8s.io/v1","request":{{"kind":{}{},"uid":"deep"}}}}"#,
            "[".repeat(125),
            "]".repeat(125)
        );
        assert_eq!(id(&deep), (some("admission.k8s.io/v1"), some("deep")));
    }

    #[test]
    fn bare_and_wrapped_reviews() {
        assert_eq!(
            id(r#"{"apiVersion":"admission.k8s.io/v1","request":{"uid":"a\"b\u00e9"}}"#),
            (some("admission.k8s.io/v1"), some("a\"bé"))
        );
        // `review` wins over top-level fields
        assert_eq!(
            id(
                r#"{"request":{"uid":"outer"},"review":{"request":{"object":{"a":[1,{"b":"}"}]},"uid":"inner"}}}"#
            ),
            (None, some("inner"))
        );
    }

    #[test]
    fn non_strings_and_broken_text_give_nothing_and_never_panic() {
        assert_eq!(id(r#"{"request":{"uid":5}}"#), (None, None));
        assert_eq!(id(r#"{"request":"x"}"#), (None, None));
        assert_eq!(id("[1,2]"), (None, None));
        assert_eq!(id(""), (None, None));
        // what was read before the break still counts
        assert_eq!(id(r#"{"request":{"uid":"u","kind":{"#), (None, some("u")));
        for cut in 0..60 {
            let text =
                r#"{"review":{"apiVersion":"admission.k8s.io/v1","request":{"uid":"x\\y"}}}"#;
            let _ = identity(
                text.as_bytes()
                    .get(..cut.min(text.len()))
                    .unwrap_or_default(),
            );
        }
        let _ = identity(b"{\"\\");
        let _ = identity(b"{\"a\":\"\\");
    }
}
