//! Every parser and operation must end in a value or an error on arbitrary input, never a
//! panic (debug builds also catch arithmetic overflow).

use palisade_cel_kubernetes::cidr::Cidr;
use palisade_cel_kubernetes::format::Format;
use palisade_cel_kubernetes::ip::{Ip, is_canonical};
use palisade_cel_kubernetes::quantity::Quantity;
use palisade_cel_kubernetes::regex::{compile, find, find_all};
use palisade_cel_kubernetes::semver::Semver;
use palisade_cel_kubernetes::url::Url;

/// A small deterministic generator (xorshift) so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn string(&mut self, alphabet: &[&str], max_len: u64) -> String {
        let len = self.next() % (max_len + 1);
        (0..len)
            .filter_map(|_| {
                let i = (self.next() % alphabet.len() as u64) as usize;
                alphabet.get(i).copied()
            })
            .collect()
    }
}

const QUANTITY: &[&str] = &[
    "0",
    "1",
    "9",
    "5",
    ".",
    "+",
    "-",
    "e",
    "E",
    "i",
    "K",
    "M",
    "G",
    "T",
    "P",
    "n",
    "u",
    "m",
    "k",
    "Ki",
    "Ei",
    "999999999999",
    "e9999999999",
    "e-2147483648",
    "e2147483647",
    "9223372036854775807",
];
const GENERAL: &[&str] = &[
    "a",
    "Z",
    "0",
    "9",
    ".",
    ":",
    "::",
    "/",
    "%",
    "%25",
    "%zz",
    "%41",
    "[",
    "]",
    "@",
    "?",
    "#",
    "&",
    "=",
    "+",
    "-",
    "v",
    "ffff",
    "255",
    "256",
    "1.2.3.4",
    "é",
    "\u{1F600}",
    " ",
    "\n",
    "t",
    "z",
    "//",
    "http:",
    "%e4%b8",
    "*",
];

#[test]
fn quantities_never_panic() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut parsed = Vec::new();
    for _ in 0..20_000 {
        let s = rng.string(QUANTITY, 8);
        if let Ok(q) = Quantity::parse(&s) {
            let _ = q.to_string();
            let _ = q.as_approximate_float();
            let _ = q.as_integer();
            let _ = q.add_int(i64::MAX);
            let _ = q.sub_int(i64::MIN);
            parsed.push(q);
        }
    }
    for pair in parsed.windows(2) {
        if let [a, b] = pair {
            let _ = a.compare_to(b);
            if let Ok(sum) = a.add(b) {
                let _ = sum.to_string();
                let _ = sum.is_integer();
            }
            if let Ok(diff) = a.sub(b) {
                let _ = diff.to_string();
            }
        }
    }
}

#[test]
fn strings_never_panic() {
    let mut rng = Rng(0x0123_4567_89AB_CDEF);
    for _ in 0..20_000 {
        let s = rng.string(GENERAL, 10);
        if let Ok(v) = Semver::parse_normalized(&s) {
            let _ = v.to_string();
        }
        let _ = Semver::parse(&s);
        if let Ok(ip) = Ip::parse(&s) {
            let _ = ip.to_string();
            let _ = ip.is_global_unicast();
        }
        let _ = is_canonical(&s);
        if let Ok(c) = Cidr::parse(&s) {
            let _ = c.masked().to_string();
            let _ = c.contains_cidr(&c);
        }
        if let Ok(u) = Url::parse(&s) {
            let _ = (
                u.to_string(),
                u.hostname(),
                u.port(),
                u.escaped_path(),
                u.query(),
            );
        }
        for f in Format::all() {
            let _ = f.validate(&s);
        }
    }
}

const REGEX: &[&str] = &[
    "a",
    "\\",
    "\\d",
    "\\Q",
    "\\E",
    "[",
    "]",
    "^",
    "-",
    "(",
    ")",
    "{",
    "}",
    "1001",
    "2",
    ",",
    "*",
    "+",
    "?",
    "|",
    ".",
    "&&",
    "[:alpha:]",
    "é",
    "$",
];

#[test]
fn regexes_never_panic() {
    let mut rng = Rng(0xDEAD_BEEF_CAFE_F00D);
    for _ in 0..5_000 {
        let p = rng.string(REGEX, 8);
        let s = rng.string(GENERAL, 8);
        if let Ok(re) = compile(&p) {
            let _ = find(&re, &s);
            let _ = find_all(&re, &s, -1);
            let _ = find_all(&re, &s, 2);
        }
    }
}
