//! A stable sort that costs the wasm modules one copy of its code, whatever the element type.
//!
//! `slice::sort_by` and `sort_unstable` are generic: every element type and comparator that calls them gets its own
//! copy of driftsort or ipnsort (4 to 5 KB of wasm each; 70 KB of `palisade.wasm` was sorting code). Here the merge
//! sort works on indices through a `dyn` comparator, and only the two small closures are generic. Every crate of the
//! workspace sorts through [`sort_by`] / [`sort_by_key`] / [`sort`] (see docs/architecture.md, "Artifacts").
//!
//! ```
//! use palisade_json::sort;
//! let mut v = vec![(2, 'a'), (1, 'b'), (2, 'c'), (0, 'd')];
//! sort::sort_by_key(&mut v, |p| p.0);
//! assert_eq!(v, [(0, 'd'), (1, 'b'), (2, 'a'), (2, 'c')]);
//! ```

use std::cmp::Ordering;

/// Sorts `v` in ascending order, stably (equal elements keep their order), as `slice::sort`.
pub fn sort<T: Ord>(v: &mut [T]) {
    sort_by(v, T::cmp);
}

/// Sorts `v` by `key`, stably, as `slice::sort_by_key`.
pub fn sort_by_key<T, K: Ord>(v: &mut [T], mut key: impl FnMut(&T) -> K) {
    sort_by(v, |a, b| key(a).cmp(&key(b)));
}

/// Sorts `v` with `compare`, stably, as `slice::sort_by`. O(n log n) comparisons; `n` words of scratch memory.
pub fn sort_by<T>(v: &mut [T], mut compare: impl FnMut(&T, &T) -> Ordering) {
    if v.len() < 2 {
        return;
    }
    let order = {
        let items: &[T] = v;
        sorted_order(
            items.len(),
            &mut |i, j| match (items.get(i), items.get(j)) {
                (Some(a), Some(b)) => compare(a, b),
                _ => Ordering::Equal,
            },
        )
    };
    permute(&order, &mut |a, b| v.swap(a, b));
}

/// The stable sorted order of `0..n` under `compare` (bottom-up merge sort): position `k` of the result is the index
/// of the element that belongs at `k`.
fn sorted_order(n: usize, compare: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    let mut src: Vec<usize> = (0..n).collect();
    let mut dst: Vec<usize> = Vec::with_capacity(n);
    let mut width = 1usize;
    while width < n {
        dst.clear();
        for run in src.chunks(width.saturating_mul(2)) {
            let (left, right) = run.split_at(width.min(run.len()));
            let (mut l, mut r) = (left.iter().peekable(), right.iter().peekable());
            loop {
                match (l.peek(), r.peek()) {
                    // the right element goes first only when strictly smaller: stability
                    (Some(&&a), Some(&&b)) => {
                        if compare(b, a) == Ordering::Less {
                            dst.push(b);
                            r.next();
                        } else {
                            dst.push(a);
                            l.next();
                        }
                    }
                    (Some(_), None) => {
                        dst.extend(l);
                        break;
                    }
                    (None, _) => {
                        dst.extend(r);
                        break;
                    }
                }
            }
        }
        std::mem::swap(&mut src, &mut dst);
        width = width.saturating_mul(2);
    }
    src
}

/// Rearranges a sequence, through `swap`, so that position `k` holds what was at `order[k]` (`order` is a permutation
/// of `0..order.len()`): each cycle of the permutation is walked once.
fn permute(order: &[usize], swap: &mut dyn FnMut(usize, usize)) {
    let mut done = vec![false; order.len()];
    for start in 0..order.len() {
        let mut k = start;
        loop {
            match done.get_mut(k) {
                Some(seen) if !*seen => *seen = true,
                _ => break,
            }
            let Some(&next) = order.get(k) else { break };
            if next == start {
                break;
            }
            swap(k, next);
            k = next;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_like_the_standard_library() {
        // every length up to 40, many duplicates, against `slice::sort_by` (stable) on (key, position)
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for n in 0..40usize {
            for _ in 0..20 {
                let v: Vec<(u64, usize)> = (0..n)
                    .map(|i| {
                        seed ^= seed << 13;
                        seed ^= seed >> 7;
                        seed ^= seed << 17;
                        (seed % 5, i)
                    })
                    .collect();
                let mut ours = v.clone();
                sort_by_key(&mut ours, |p| p.0);
                let mut std = v.clone();
                std.sort_by_key(|p| p.0);
                assert_eq!(ours, std, "input {v:?}");
            }
        }
    }

    #[test]
    fn sorts_strings_and_reverse_orders() {
        let mut v: Vec<String> = ["b", "a", "d", "c", "a"].map(String::from).to_vec();
        sort(&mut v);
        assert_eq!(v, ["a", "a", "b", "c", "d"]);
        let mut w: Vec<u32> = (0..1000).rev().collect();
        sort(&mut w);
        assert!(w.iter().copied().eq(0..1000));
        sort_by(&mut w, |a, b| b.cmp(a));
        assert!(w.iter().copied().eq((0..1000).rev()));
    }

    #[test]
    fn permute_follows_cycles() {
        let mut v = vec!['a', 'b', 'c', 'd', 'e'];
        permute(&[2, 0, 1, 4, 3], &mut |a, b| v.swap(a, b));
        assert_eq!(v, ['c', 'a', 'b', 'e', 'd']);
    }
}
