//! Hash maps keyed by what is already a number: expression ids, addresses, hashes of map keys.
//!
//! The standard library's maps hash with SipHash, built to resist chosen keys, which costs more than the lookup
//! itself for an integer key; evaluation looks up every call and identifier node by id. None of these keys comes
//! from a request (ids are the parser's, addresses are the evaluator's, key hashes went through SipHash already), so
//! a multiplicative hash (the Fx hash of rustc) serves.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// rustc's Fx hasher: each word is mixed in with a rotate, an xor and a multiplication.
#[derive(Default, Clone, Copy)]
pub struct IdHasher(u64);

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl IdHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for IdHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word.iter_mut().zip(chunk).for_each(|(w, b)| *w = *b);
            self.add(u64::from_le_bytes(word));
        }
    }
    fn write_u8(&mut self, n: u8) {
        self.add(u64::from(n));
    }
    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }
    fn write_i64(&mut self, n: i64) {
        self.add(n as u64);
    }
    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

pub type Ids = BuildHasherDefault<IdHasher>;
/// A map from expression id.
pub type IdMap<V> = HashMap<i64, V, Ids>;
/// A set of expression ids.
pub type IdSet = HashSet<i64, Ids>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::BuildHasher;

    #[test]
    fn ids_spread_and_maps_work() {
        let hashes: HashSet<u64> = (0..1000i64).map(|i| Ids::default().hash_one(i)).collect();
        assert_eq!(hashes.len(), 1000);
        let mut m: IdMap<&str> = IdMap::default();
        m.insert(7, "seven");
        m.insert(-1, "minus one");
        assert_eq!(m.get(&7), Some(&"seven"));
        assert_eq!(m.get(&-1), Some(&"minus one"));
        assert_eq!(m.get(&8), None);
    }
}
