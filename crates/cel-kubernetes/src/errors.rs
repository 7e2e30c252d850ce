//! `k8s.io/apimachinery/pkg/util/errors`: how kube-apiserver prints several errors as one.

/// `utilerrors.NewAggregate(errs).Error()` over already-rendered messages: identical messages are printed once, a
/// single distinct message bare, several as `[a, b]` in first-seen order. `None` when the list is empty.
pub fn aggregate<S: AsRef<str>>(messages: &[S]) -> Option<String> {
    let seen: Vec<&str> = first_of_each(messages)
        .into_iter()
        .filter_map(|i| messages.get(i).map(AsRef::as_ref))
        .collect();
    match seen.as_slice() {
        [] => None,
        [one] => Some((*one).to_owned()),
        many => Some(format!("[{}]", many.join(", "))),
    }
}

/// The positions of `messages` that hold the first of each distinct message, in order: what the string sets behind
/// `NewAggregate` and `field.ErrorList.ToAggregate` keep. A stable sort of the positions, not pairwise comparison: a
/// bundle can have tens of thousands of problems.
pub fn first_of_each<S: AsRef<str>>(messages: &[S]) -> Vec<usize> {
    let text = |i: usize| messages.get(i).map_or("", AsRef::as_ref);
    let mut order: Vec<usize> = (0..messages.len()).collect();
    palisade_json::sort::sort_by(&mut order, |&a, &b| text(a).cmp(text(b)));
    let mut first = vec![false; messages.len()];
    let mut previous: Option<&str> = None;
    for i in order {
        let t = text(i);
        if previous != Some(t) {
            // stable: the first position of a run of equal messages is the earliest
            if let Some(f) = first.get_mut(i) {
                *f = true;
            }
            previous = Some(t);
        }
    }
    (0..messages.len())
        .filter(|&i| first.get(i) == Some(&true))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{aggregate, first_of_each};

    #[test]
    fn first_of_each_keeps_the_earliest_of_equal_messages_in_order() {
        assert_eq!(first_of_each::<&str>(&[]), Vec::<usize>::new());
        assert_eq!(first_of_each(&["b", "a", "b", "c", "a"]), vec![0, 1, 3]);
        let many: Vec<String> = (0..20_000)
            .map(|i| format!("problem {}", i % 7_000))
            .collect();
        let kept = first_of_each(&many);
        assert_eq!(kept.len(), 7_000);
        assert_eq!(kept.last(), Some(&6_999));
    }

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
