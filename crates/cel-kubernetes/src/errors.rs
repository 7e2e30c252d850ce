//! `k8s.io/apimachinery/pkg/util/errors`: how kube-apiserver prints several errors as one.

/// `utilerrors.NewAggregate(errs).Error()` over already-rendered messages: identical messages are printed once, a
/// single distinct message bare, several as `[a, b]` in first-seen order. `None` when the list is empty.
pub fn aggregate<S: AsRef<str>>(messages: &[S]) -> Option<String> {
    let mut seen: Vec<&str> = Vec::new();
    for m in messages {
        let m = m.as_ref();
        if !seen.contains(&m) {
            seen.push(m);
        }
    }
    match seen.as_slice() {
        [] => None,
        [one] => Some((*one).to_owned()),
        many => Some(format!("[{}]", many.join(", "))),
    }
}

#[cfg(test)]
mod tests {
    use super::aggregate;

    /// k8s.io/apimachinery/pkg/util/errors/errors_test.go `TestPluralAggregate`, `TestSingularAggregate`,
    /// `TestDuplicateAggregate` (as messages).
    #[test]
    fn as_go_prints_it() {
        assert_eq!(aggregate::<&str>(&[]), None);
        assert_eq!(aggregate(&["err"]).as_deref(), Some("err"));
        assert_eq!(aggregate(&["abc", "123"]).as_deref(), Some("[abc, 123]"));
        assert_eq!(aggregate(&["err", "err"]).as_deref(), Some("err"));
        assert_eq!(
            aggregate(&["abc", "123", "abc"]).as_deref(),
            Some("[abc, 123]")
        );
    }
}
