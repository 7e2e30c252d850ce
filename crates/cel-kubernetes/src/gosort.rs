//! Go's `sort.Slice`: the order in which Go's unstable sort leaves elements that compare equal.
//!
//! cel-go's `sortBy` (ext/lists.go `sortListByAssociatedKeys`) sorts the indices of a list by their keys with
//! `sort.Slice`, which is not stable. Since Go 1.19 that is a pattern-defeating quicksort (insertion sort up to 12
//! elements, a median of three or Tukey's ninther for the pivot, a partial insertion sort for runs that look sorted, a
//! deterministic shuffle after an unbalanced partition, heapsort after too many). Two elements with equal keys end in
//! an order that only this algorithm, step for step, reproduces: from 13 elements up, not the order a stable sort
//! gives. So `[…].sortBy(e, e.priority)` over 13 objects of equal priority returns them in the order kube-apiserver
//! returns them only if every comparison and swap is Go's, which is what this module does.
//!
//! ```
//! use palisade_cel_kubernetes::gosort;
//!
//! // 13 elements, the first with a greater key: Go moves the sixth to the front
//! let keys = [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
//! let order = gosort::slice_order(keys.len(), &mut |a, b| keys[a] < keys[b]);
//! assert_eq!(order, [6, 1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 0]);
//! ```

/// The order `sort.Slice` leaves the indices `0..n` in, sorting them with `less` (which is given two indices of the
/// original list): position `k` of the result is the index of the element that ends at `k`.
///
/// `less` is called exactly as often, and with the same arguments, as Go calls its `less`: a `less` that records an
/// error (cel-go's for keys of mixed types) sees the same comparisons.
pub fn slice_order(n: usize, less: &mut dyn FnMut(usize, usize) -> bool) -> Vec<usize> {
    let mut s = Sorter {
        order: (0..n).collect(),
        less,
    };
    // `bits.Len(uint(n))`
    let limit = (usize::BITS - n.leading_zeros()) as usize;
    s.pdqsort(0, n, limit);
    s.order
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Hint {
    Unknown,
    Increasing,
    Decreasing,
}

/// The slice being sorted (indices of the original list) and the comparison of two of them: Go's `lessSwap`.
struct Sorter<'l> {
    order: Vec<usize>,
    less: &'l mut dyn FnMut(usize, usize) -> bool,
}

impl Sorter<'_> {
    /// `data.Less(i, j)`: compares the elements now at positions `i` and `j`.
    fn less(&mut self, i: usize, j: usize) -> bool {
        match (self.order.get(i), self.order.get(j)) {
            (Some(&a), Some(&b)) => (self.less)(a, b),
            _ => false,
        }
    }

    /// `data.Swap(i, j)`.
    fn swap(&mut self, i: usize, j: usize) {
        if i < self.order.len() && j < self.order.len() {
            self.order.swap(i, j);
        }
    }

    fn insertion_sort(&mut self, a: usize, b: usize) {
        for i in a + 1..b {
            let mut j = i;
            while j > a && self.less(j, j - 1) {
                self.swap(j, j - 1);
                j -= 1;
            }
        }
    }

    /// The heap property on `[lo, hi)`, offset by `first`.
    fn sift_down(&mut self, lo: usize, hi: usize, first: usize) {
        let mut root = lo;
        loop {
            let mut child = 2 * root + 1;
            if child >= hi {
                return;
            }
            if child + 1 < hi && self.less(first + child, first + child + 1) {
                child += 1;
            }
            if !self.less(first + root, first + child) {
                return;
            }
            self.swap(first + root, first + child);
            root = child;
        }
    }

    fn heap_sort(&mut self, a: usize, b: usize) {
        let (first, hi) = (a, b - a);
        for i in (0..=(hi.saturating_sub(1)) / 2).rev() {
            self.sift_down(i, hi, first);
        }
        for i in (0..hi).rev() {
            self.swap(first, first + i);
            self.sift_down(0, i, first);
        }
    }

    /// Sorts `[a, b)`; `limit` is how many unbalanced partitions are still allowed before heapsort.
    fn pdqsort(&mut self, mut a: usize, mut b: usize, mut limit: usize) {
        const MAX_INSERTION: usize = 12;
        let mut was_balanced = true;
        let mut was_partitioned = true;
        loop {
            let length = b - a;
            if length <= MAX_INSERTION {
                self.insertion_sort(a, b);
                return;
            }
            if limit == 0 {
                self.heap_sort(a, b);
                return;
            }
            if !was_balanced {
                self.break_patterns(a, b);
                limit -= 1;
            }
            let (mut pivot, mut hint) = self.choose_pivot(a, b);
            if hint == Hint::Decreasing {
                self.reverse_range(a, b);
                // the pivot was `pivot - a` after the start; it is now as far before the end
                pivot = (b - 1) - (pivot - a);
                hint = Hint::Increasing;
            }
            if was_balanced
                && was_partitioned
                && hint == Hint::Increasing
                && self.partial_insertion_sort(a, b)
            {
                return;
            }
            // the element before the range (a pivot of an enclosing partition) is not less than this pivot: the
            // range holds many equal elements, so put those equal to the pivot first and sort the rest
            if a > 0 && !self.less(a - 1, pivot) {
                a = self.partition_equal(a, b, pivot);
                continue;
            }
            let (mid, already_partitioned) = self.partition(a, b, pivot);
            was_partitioned = already_partitioned;
            let (left, right) = (mid - a, b - mid);
            let balance_threshold = length / 8;
            if left < right {
                was_balanced = left >= balance_threshold;
                self.pdqsort(a, mid, limit);
                a = mid + 1;
            } else {
                was_balanced = right >= balance_threshold;
                self.pdqsort(mid + 1, b, limit);
                b = mid;
            }
        }
    }

    /// One partition around the element at `pivot`: what is less before it, the rest after. Returns where the pivot
    /// ends, and whether nothing had to move.
    fn partition(&mut self, a: usize, b: usize, pivot: usize) -> (usize, bool) {
        self.swap(a, pivot);
        let (mut i, mut j) = (a + 1, b - 1);
        while i <= j && self.less(i, a) {
            i += 1;
        }
        while i <= j && !self.less(j, a) {
            j -= 1;
        }
        if i > j {
            self.swap(j, a);
            return (j, true);
        }
        self.swap(i, j);
        i += 1;
        j -= 1;
        loop {
            while i <= j && self.less(i, a) {
                i += 1;
            }
            while i <= j && !self.less(j, a) {
                j -= 1;
            }
            if i > j {
                break;
            }
            self.swap(i, j);
            i += 1;
            j -= 1;
        }
        self.swap(j, a);
        (j, false)
    }

    /// Partitions `[a, b)`, which holds nothing less than the pivot, into the elements equal to it and then those
    /// greater; returns where the greater ones start.
    fn partition_equal(&mut self, a: usize, b: usize, pivot: usize) -> usize {
        self.swap(a, pivot);
        let (mut i, mut j) = (a + 1, b - 1);
        loop {
            while i <= j && !self.less(a, i) {
                i += 1;
            }
            while i <= j && self.less(a, j) {
                j -= 1;
            }
            if i > j {
                return i;
            }
            self.swap(i, j);
            i += 1;
            j -= 1;
        }
    }

    /// Sorts `[a, b)` if at most five adjacent pairs are out of order (and the range is at least 50 long); whether
    /// it is sorted at the end.
    fn partial_insertion_sort(&mut self, a: usize, b: usize) -> bool {
        const MAX_STEPS: usize = 5;
        const SHORTEST_SHIFTING: usize = 50;
        let mut i = a + 1;
        for _ in 0..MAX_STEPS {
            while i < b && !self.less(i, i - 1) {
                i += 1;
            }
            if i == b {
                return true;
            }
            if b - a < SHORTEST_SHIFTING {
                return false;
            }
            self.swap(i, i - 1);
            // shift the smaller one left: Go's loop runs down to position 1 of the whole slice, not of the range
            if i - a >= 2 {
                let mut j = i - 1;
                while j >= 1 {
                    if !self.less(j, j - 1) {
                        break;
                    }
                    self.swap(j, j - 1);
                    j -= 1;
                }
            }
            // and the greater one right
            if b - i >= 2 {
                for j in i + 1..b {
                    if !self.less(j, j - 1) {
                        break;
                    }
                    self.swap(j, j - 1);
                }
            }
        }
        false
    }

    /// Swaps three elements in the middle of `[a, b)` with others picked by an xorshift generator seeded with the
    /// length: the same "random" positions on every run.
    fn break_patterns(&mut self, a: usize, b: usize) {
        let length = b - a;
        if length < 8 {
            return;
        }
        let mut random = length as u64;
        // `nextPowerOfTwo`: 1 << bits.Len(length)
        let modulus = 1u64 << (usize::BITS - length.leading_zeros());
        let middle = a + (length / 4) * 2;
        for idx in middle - 1..=middle + 1 {
            random ^= random << 13;
            random ^= random >> 17;
            random ^= random << 5;
            let mut other = (random & (modulus - 1)) as usize;
            if other >= length {
                other -= length;
            }
            self.swap(idx, a + other);
        }
    }

    /// The pivot of `[a, b)`: the middle element under 8, the median of three under 50, Tukey's ninther from 50; and
    /// whether the comparisons suggest the range is increasing or decreasing.
    fn choose_pivot(&mut self, a: usize, b: usize) -> (usize, Hint) {
        const SHORTEST_NINTHER: usize = 50;
        const MAX_SWAPS: usize = 4 * 3;
        let l = b - a;
        let mut swaps = 0;
        let (mut i, mut j, mut k) = (a + l / 4, a + l / 4 * 2, a + l / 4 * 3);
        if l >= 8 {
            if l >= SHORTEST_NINTHER {
                i = self.median(i - 1, i, i + 1, &mut swaps);
                j = self.median(j - 1, j, j + 1, &mut swaps);
                k = self.median(k - 1, k, k + 1, &mut swaps);
            }
            j = self.median(i, j, k, &mut swaps);
        }
        let hint = match swaps {
            0 => Hint::Increasing,
            MAX_SWAPS => Hint::Decreasing,
            _ => Hint::Unknown,
        };
        (j, hint)
    }

    /// `x, y` with `data[x] <= data[y]` among `a, b`, counting a swap.
    fn order2(&mut self, a: usize, b: usize, swaps: &mut usize) -> (usize, usize) {
        if self.less(b, a) {
            *swaps += 1;
            (b, a)
        } else {
            (a, b)
        }
    }

    /// The position of the median of the elements at `a`, `b` and `c`.
    fn median(&mut self, a: usize, b: usize, c: usize, swaps: &mut usize) -> usize {
        let (a, b) = self.order2(a, b, swaps);
        let (b, _) = self.order2(b, c, swaps);
        let (_, b) = self.order2(a, b, swaps);
        b
    }

    fn reverse_range(&mut self, a: usize, b: usize) {
        let (mut i, mut j) = (a, b - 1);
        while i < j {
            self.swap(i, j);
            i += 1;
            j -= 1;
        }
    }
}

#[cfg(test)]
mod tests;
