//! The orders Go's `sort.Slice` gives, recorded by `testdata/gosort/gen.go` (Go 1.19's sort package, the same
//! pattern-defeating quicksort every Go since builds kube-apiserver with), against [`super::slice_order`].

use super::slice_order;

/// `gen.go`'s xorshift (a different triple from the sort's own).
fn next(r: &mut u64) -> u64 {
    *r ^= *r << 13;
    *r ^= *r >> 7;
    *r ^= *r << 17;
    *r
}

/// `gen.go`'s `keys`.
fn keys(shape: &str, n: i64, seed: u64, d: i64) -> Vec<i64> {
    let mut r = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(1);
    (0..n)
        .map(|i| match shape {
            "random" => (next(&mut r) % d as u64) as i64,
            "ascending" => i * d / n,
            "descending" => d - 1 - i * d / n,
            "sawtooth" => i % d,
            "pipe" => i.min(n - 1 - i) % d,
            "head" => {
                if i == 0 {
                    d
                } else {
                    0
                }
            }
            "nearly" => {
                if next(&mut r).is_multiple_of(16) {
                    (next(&mut r) % d as u64) as i64
                } else {
                    i * d / n
                }
            }
            other => panic!("unknown shape {other}"),
        })
        .collect()
}

fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[test]
fn orders_equal_keys_as_go_sort_slice_does() {
    let table = include_str!("../../testdata/gosort/cases.txt");
    let mut checked = 0;
    for line in table.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split(' ').collect();
        let (shape, n, seed, d) = (
            f[0],
            f[1].parse::<i64>().unwrap(),
            f[2].parse::<u64>().unwrap(),
            f[3].parse::<i64>().unwrap(),
        );
        let k = keys(shape, n, seed, d);
        let order = slice_order(k.len(), &mut |a, b| k[a] < k[b]);
        let text = order
            .iter()
            .map(usize::to_string)
            .collect::<Vec<_>>()
            .join(",");
        if let Some(expected) = f.get(5) {
            assert_eq!(text, *expected, "{line}");
        }
        assert_eq!(format!("{:016x}", fnv1a(&text)), f[4], "{line}: got {text}");
        checked += 1;
    }
    assert_eq!(checked, 1021);
}

#[test]
fn sorts_whatever_the_shape() {
    // every length to 300 of a few shapes: the result is a permutation and in order
    for n in 0..300usize {
        for shape in 0..4 {
            let k: Vec<usize> = (0..n)
                .map(|i| match shape {
                    0 => (i * 7919) % 13,
                    1 => n - i,
                    2 => (n - i) % 5,
                    _ => i ^ (i >> 3),
                })
                .collect();
            let order = slice_order(n, &mut |a, b| k[a] < k[b]);
            let mut seen = order.clone();
            seen.sort_unstable();
            assert!(seen.iter().copied().eq(0..n), "{n} {shape}");
            assert!(order.windows(2).all(|w| k[w[0]] <= k[w[1]]), "{n} {shape}");
        }
    }
}

#[test]
fn a_less_that_always_fails_leaves_the_order() {
    // cel-go's `less` answers false once the key types differ: nothing moves
    let order = slice_order(100, &mut |_, _| false);
    assert!(order.iter().copied().eq(0..100));
}

#[test]
fn heapsort_sorts_a_range() {
    // no recorded case defeats the pivots often enough to reach heapsort (nor McIlroy's adversary): it is checked
    // on its own, on ranges that start past 0
    for n in 0..120usize {
        let k: Vec<usize> = (0..n + 3).map(|i| (i * 7919) % 11).collect();
        let mut less = |a: usize, b: usize| k[a] < k[b];
        let mut s = super::Sorter {
            order: (0..n + 3).collect(),
            less: &mut less,
        };
        s.heap_sort(3, n + 3);
        let order = s.order;
        assert!(order[..3].iter().copied().eq(0..3), "{n}");
        assert!(order[3..].windows(2).all(|w| k[w[0]] <= k[w[1]]), "{n}");
        let mut seen = order.clone();
        seen.sort_unstable();
        assert!(seen.iter().copied().eq(0..n + 3), "{n}");
    }
}
