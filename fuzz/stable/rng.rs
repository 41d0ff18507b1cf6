//! The one pseudo-random generator of the generated tests: xorshift64*, small, fast and
//! reproducible from its seed (no dependency). Used by the mutation loop
//! (`mutation_loop.rs`) and by the generative differential tests of sed and awk, which
//! include this file with `#[path]`.

#![allow(dead_code, reason = "each includer uses a part")]

pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    /// A range of up to `max` bytes inside `0..len`.
    pub fn chunk(&mut self, len: usize, max: usize) -> std::ops::Range<usize> {
        let start = self.below(len + 1);
        start..(start + 1 + self.below(max)).min(len)
    }

    /// One of `items`, which must not be empty.
    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }

    /// True `percent` times in 100.
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}
