// Regenerates cases.txt: the order Go's sort.Slice leaves the indices of a list of integer keys in, for lists of
// many lengths and shapes (see ../../src/gosort.rs and its tests, which build the same keys).
//
//	go run gen.go > cases.txt
//
// Each line: shape, length, seed, number of distinct keys, and the FNV-1a 64 hash of the resulting order written
// as decimal indices separated by commas (the whole order when the list has at most 20 elements).
package main

import (
	"fmt"
	"hash/fnv"
	"runtime"
	"sort"
	"strconv"
	"strings"
)

type rng uint64

func (r *rng) next() uint64 {
	*r ^= *r << 13
	*r ^= *r >> 7
	*r ^= *r << 17
	return uint64(*r)
}

// keys builds the keys of one case; the Rust test builds them the same way.
func keys(shape string, n int, seed uint64, d int) []int {
	r := rng(seed*0x9E3779B97F4A7C15 + 1)
	k := make([]int, n)
	for i := range k {
		switch shape {
		case "random":
			k[i] = int(r.next() % uint64(d))
		case "ascending":
			k[i] = i * d / n
		case "descending":
			k[i] = d - 1 - i*d/n
		case "sawtooth":
			k[i] = i % d
		case "pipe":
			m := i
			if n-1-i < m {
				m = n - 1 - i
			}
			k[i] = m % d
		case "head":
			// the first key greater, the rest equal
			if i == 0 {
				k[i] = d
			}
		case "nearly":
			k[i] = i * d / n
			if r.next()%16 == 0 {
				k[i] = int(r.next() % uint64(d))
			}
		}
	}
	return k
}

func main() {
	fmt.Printf("# %s sort.Slice; go run gen.go\n", runtime.Version())
	lengths := []int{0, 1, 2, 5, 8, 12, 13, 14, 20, 33, 49, 50, 51, 64, 100, 128, 200, 257, 500, 1000, 2049}
	shapes := []string{"random", "ascending", "descending", "sawtooth", "pipe", "nearly", "head"}
	for _, n := range lengths {
		for _, shape := range shapes {
			for _, d := range []int{1, 2, 3, 7, 1 << 30} {
				seeds := 1
				if (shape == "random" || shape == "nearly") && d > 1 {
					seeds = 3
				}
				for seed := uint64(1); seed <= uint64(seeds); seed++ {
					if n == 0 && (shape != "random" || d != 1 || seed != 1) {
						continue
					}
					k := keys(shape, n, seed, d)
					order := make([]int, n)
					for i := range order {
						order[i] = i
					}
					sort.Slice(order, func(i, j int) bool { return k[order[i]] < k[order[j]] })
					text := make([]string, n)
					for i, o := range order {
						text[i] = strconv.Itoa(o)
					}
					joined := strings.Join(text, ",")
					h := fnv.New64a()
					h.Write([]byte(joined))
					out := fmt.Sprintf("%016x", h.Sum64())
					if n <= 20 {
						out += " " + joined
					}
					fmt.Printf("%s %d %d %d %s\n", shape, n, seed, d, out)
				}
			}
		}
	}
}
