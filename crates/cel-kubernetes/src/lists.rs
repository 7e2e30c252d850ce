//! List helpers: the CEL `lists` library (`k8s.io/apiserver/pkg/cel/library/lists.go`).
//!
//! The functions are generic so the evaluator can call them with its own value type: it passes
//! its CEL comparison (`None` where CEL's `Compare` yields an error, which upstream ignores),
//! its addition, or its equality.
//!
//! | CEL | Rust |
//! |---|---|
//! | `l.isSorted()` | [`is_sorted`] |
//! | `l.sum()` | [`sum`] (the zero is `0`, `0u`, `0.0` or `duration('0s')` by element type) |
//! | `l.min()` / `l.max()` | [`min`] / [`max`] |
//! | `l.indexOf(x)` / `l.lastIndexOf(x)` | [`index_of`] / [`last_index_of`] |

use std::cmp::Ordering;

/// `min`/`max` on an empty list, worded as upstream (`min called on empty list`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0} called on empty list")]
pub struct EmptyListError(pub &'static str);

/// `l.isSorted()`: false as soon as an element compares greater than the next one.
pub fn is_sorted<T>(items: &[T], mut compare: impl FnMut(&T, &T) -> Option<Ordering>) -> bool {
    items
        .windows(2)
        .all(|w| !matches!(w, [a, b] if compare(a, b) == Some(Ordering::Greater)))
}

/// `l.sum()`: `zero + items[0] + items[1] + …`, stopping at the first error (e.g. overflow).
pub fn sum<T: Clone, E>(
    items: &[T],
    zero: T,
    mut add: impl FnMut(&T, &T) -> Result<T, E>,
) -> Result<T, E> {
    let mut acc = zero;
    for item in items {
        acc = add(&acc, item)?;
    }
    Ok(acc)
}

fn select<T: Clone>(
    items: &[T],
    name: &'static str,
    prefer: Ordering,
    mut compare: impl FnMut(&T, &T) -> Option<Ordering>,
) -> Result<T, EmptyListError> {
    let mut iter = items.iter();
    let mut best = iter.next().ok_or(EmptyListError(name))?;
    for item in iter {
        if compare(best, item) == Some(prefer) {
            best = item;
        }
    }
    Ok(best.clone())
}

/// `l.min()`: the first of the smallest elements.
pub fn min<T: Clone>(
    items: &[T],
    compare: impl FnMut(&T, &T) -> Option<Ordering>,
) -> Result<T, EmptyListError> {
    select(items, "min", Ordering::Greater, compare)
}

/// `l.max()`: the first of the largest elements.
pub fn max<T: Clone>(
    items: &[T],
    compare: impl FnMut(&T, &T) -> Option<Ordering>,
) -> Result<T, EmptyListError> {
    select(items, "max", Ordering::Less, compare)
}

/// `l.indexOf(x)`: the first index whose element equals `x`, or -1.
pub fn index_of<T>(items: &[T], item: &T, mut equal: impl FnMut(&T, &T) -> bool) -> i64 {
    items
        .iter()
        .position(|x| equal(x, item))
        .map_or(-1, |i| i as i64)
}

/// `l.lastIndexOf(x)`: the last index whose element equals `x`, or -1.
pub fn last_index_of<T>(items: &[T], item: &T, mut equal: impl FnMut(&T, &T) -> bool) -> i64 {
    items
        .iter()
        .rposition(|x| equal(x, item))
        .map_or(-1, |i| i as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmp_i(a: &i64, b: &i64) -> Option<Ordering> {
        Some(a.cmp(b))
    }

    fn cmp_f(a: &f64, b: &f64) -> Option<Ordering> {
        a.partial_cmp(b)
    }

    fn add_i(a: &i64, b: &i64) -> Result<i64, &'static str> {
        a.checked_add(*b).ok_or("integer overflow")
    }

    // upstream: k8s.io/apiserver/pkg/cel/library/lists.go (documented examples) and
    // library_test.go TestLists
    #[test]
    fn lists() {
        assert!(is_sorted(&[1i64, 2, 3], cmp_i));
        assert!(is_sorted(&["a", "b", "b", "c"], |a, b| Some(a.cmp(b))));
        assert!(!is_sorted(&[2.0f64, 1.0], cmp_f));
        assert!(is_sorted::<i64>(&[], cmp_i));
        assert!(
            is_sorted(&[1.0f64, f64::NAN, 0.5], cmp_f),
            "incomparable pairs are skipped"
        );
        assert_eq!(sum(&[1i64, 3], 0, add_i), Ok(4));
        assert_eq!(sum(&[1.0f64, 3.0], 0.0, |a, b| Ok::<_, ()>(a + b)), Ok(4.0));
        assert_eq!(sum::<i64, _>(&[], 0, add_i), Ok(0));
        assert_eq!(sum(&[i64::MAX, 1], 0, add_i), Err("integer overflow"));
        assert_eq!(min(&[1i64, 3], cmp_i), Ok(1));
        assert_eq!(max(&[1i64, 3], cmp_i), Ok(3));
        assert_eq!(min(&[3i64], cmp_i), Ok(3));
        assert_eq!(
            min::<i64>(&[], cmp_i).unwrap_err().to_string(),
            "min called on empty list"
        );
        assert_eq!(
            max::<i64>(&[], cmp_i).unwrap_err().to_string(),
            "max called on empty list"
        );
        assert_eq!(index_of(&[1i64, 2, 2, 3], &2, |a, b| a == b), 1);
        assert_eq!(last_index_of(&[1i64, 2, 2, 3], &2, |a, b| a == b), 2);
        assert_eq!(index_of(&["a", "b"], &"c", |a, b| a == b), -1);
        assert_eq!(last_index_of::<i64>(&[], &1, |a, b| a == b), -1);
        // ties keep the first element
        let pairs = [(1, 'a'), (1, 'b')];
        assert_eq!(min(&pairs, |a, b| Some(a.0.cmp(&b.0))), Ok((1, 'a')));
        assert_eq!(max(&pairs, |a, b| Some(a.0.cmp(&b.0))), Ok((1, 'a')));
    }
}
