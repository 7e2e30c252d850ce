//! Set helpers over lists: cel-go's `ext.Sets()` (`sets.contains`, `sets.equivalent`,
//! `sets.intersects`), which Kubernetes enables. The evaluator passes its CEL equality
//! (which treats `1 == 1u == 1.0` as equal).

/// `sets.contains(list, sublist)`: every element of `sublist` is in `list` (true when
/// `sublist` is empty).
pub fn contains<T>(list: &[T], sublist: &[T], mut equal: impl FnMut(&T, &T) -> bool) -> bool {
    sublist.iter().all(|s| list.iter().any(|l| equal(l, s)))
}

/// `sets.equivalent(a, b)`: each list contains the other, ignoring order and duplicates.
pub fn equivalent<T>(a: &[T], b: &[T], mut equal: impl FnMut(&T, &T) -> bool) -> bool {
    contains(a, b, &mut equal) && contains(b, a, &mut equal)
}

/// `sets.intersects(a, b)`: some element is in both lists (false when either is empty).
pub fn intersects<T>(a: &[T], b: &[T], mut equal: impl FnMut(&T, &T) -> bool) -> bool {
    a.iter().any(|x| b.iter().any(|y| equal(x, y)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eq(a: &f64, b: &f64) -> bool {
        a == b
    }

    // upstream: github.com/google/cel-go ext/sets_test.go TestSets
    #[test]
    fn sets() {
        assert!(contains::<f64>(&[], &[], eq));
        assert!(contains(&[1.0], &[], eq));
        assert!(contains(&[1.0], &[1.0], eq));
        assert!(contains(&[1.0], &[1.0, 1.0], eq));
        assert!(contains(&[1.0, 1.0], &[1.0], eq));
        assert!(contains(&[2.0, 1.0], &[1.0], eq));
        assert!(contains(&[1.0, 2.0, 3.0], &[3.0, 1.0], eq));
        assert!(!contains(&[1.0], &[2.0], eq));
        assert!(!contains(&[1.0, 2.0], &[2.0, 3.0], eq));
        assert!(!contains::<f64>(&[], &[1.0], eq));
        assert!(equivalent::<f64>(&[], &[], eq));
        assert!(equivalent(&[1.0], &[1.0, 1.0], eq));
        assert!(equivalent(&[1.0, 2.0, 3.0], &[3.0, 2.0, 1.0], eq));
        assert!(!equivalent(&[1.0], &[1.0, 2.0], eq));
        assert!(!equivalent(&[1.0, 2.0], &[2.0, 3.0], eq));
        assert!(intersects(&[1.0], &[1.0], eq));
        assert!(intersects(&[1.0, 2.0], &[2.0, 3.0], eq));
        assert!(!intersects::<f64>(&[], &[], eq));
        assert!(!intersects(&[1.0], &[], eq));
        assert!(!intersects(&[1.0], &[2.0], eq));
    }
}
