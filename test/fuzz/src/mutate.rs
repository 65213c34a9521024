//! A deterministic mutation loop for stable Rust: the CI stand-in for libFuzzer.
//!
//! [`run`] takes the seeds of a target, applies [`Mutator::mutate`] (byte flips, dictionary
//! token insert/replace, token delete/duplicate, splices of two seeds, line deletion and
//! duplication, numbers replaced by boundary values) with a fixed seed for a fixed number of
//! iterations, runs the target under `catch_unwind`, and on the first panic shrinks the
//! input ([`minimize`]) while it still panics at the same place. The result names the
//! iteration, the panic message and location, and the minimal input.

use std::cell::RefCell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Once;

/// xorshift64*: small, fast and deterministic.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed` (any value, zero included).
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// Numbers that often sit on a boundary of some check.
pub const BOUNDARY_NUMBERS: [&str; 14] = [
    "0",
    "-1",
    "1",
    "2",
    "16",
    "17",
    "127",
    "128",
    "2147483647",
    "2147483648",
    "4294967296",
    "9223372036854775807",
    "9223372036854775808",
    "99999999999999999999",
];

/// Applies random edits to byte strings, with a dictionary and other seeds to splice.
pub struct Mutator<'a> {
    /// The random source.
    pub rng: Rng,
    /// Tokens to insert (from `fuzz/mlir.dict`).
    pub dict: &'a [Vec<u8>],
    /// Other inputs to splice in.
    pub seeds: &'a [Vec<u8>],
}

/// The byte ranges of the lines of `s` (each with its `\n`).
fn lines(s: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, &b) in s.iter().enumerate() {
        if b == b'\n' {
            out.push((start, i + 1));
            start = i + 1;
        }
    }
    if start < s.len() {
        out.push((start, s.len()));
    }
    out
}

/// The byte ranges of the decimal numbers in `s` (with a leading `-`).
fn numbers(s: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < s.len() {
        if s[i].is_ascii_digit() {
            let start = if i > 0 && s[i - 1] == b'-' { i - 1 } else { i };
            let mut j = i;
            while j < s.len() && s[j].is_ascii_digit() {
                j += 1;
            }
            out.push((start, j));
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

/// The byte ranges of identifier-like tokens (letters, digits, `_`, `.`, `%`, `@`, `^`, `#`, `!`).
fn words(s: &[u8]) -> Vec<(usize, usize)> {
    let is = |b: u8| b.is_ascii_alphanumeric() || b"_.%@^#!$".contains(&b);
    let mut out = Vec::new();
    let mut i = 0;
    while i < s.len() {
        if is(s[i]) {
            let mut j = i;
            while j < s.len() && is(s[j]) {
                j += 1;
            }
            out.push((i, j));
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

impl Mutator<'_> {
    fn pick<T: Copy>(&mut self, v: &[T]) -> Option<T> {
        (!v.is_empty()).then(|| v[self.rng.below(v.len())])
    }

    /// One edit of `s`; the edits that do not apply (no lines, no numbers) fall back to a
    /// byte flip.
    pub fn mutate_once(&mut self, s: &mut Vec<u8>) {
        let pos = |rng: &mut Rng, s: &Vec<u8>| if s.is_empty() { 0 } else { rng.below(s.len() + 1) };
        match self.rng.below(11) {
            0 => {
                // Flip a bit.
                if !s.is_empty() {
                    let i = self.rng.below(s.len());
                    s[i] ^= 1 << self.rng.below(8);
                }
            }
            1 => {
                // Replace a byte with an interesting one.
                if !s.is_empty() {
                    let i = self.rng.below(s.len());
                    let bytes = b"\0\n\"{}()<>[]%@^#!:,=-+.0x9?\\\xff\xc3";
                    s[i] = bytes[self.rng.below(bytes.len())];
                }
            }
            2 | 3 => {
                // Insert a dictionary token.
                if let Some(tok) = self.pick_dict() {
                    let i = pos(&mut self.rng, s);
                    s.splice(i..i, tok);
                }
            }
            4 => {
                // Replace a word with a dictionary token.
                if let (Some((a, b)), Some(tok)) = (self.pick(&words(s)), self.pick_dict()) {
                    s.splice(a..b, tok);
                }
            }
            5 => {
                // Delete a word or a short byte range.
                if let Some((a, b)) = self.pick(&words(s)) {
                    s.drain(a..b);
                } else if !s.is_empty() {
                    let a = self.rng.below(s.len());
                    let b = (a + 1 + self.rng.below(8)).min(s.len());
                    s.drain(a..b);
                }
            }
            6 => {
                // Duplicate a word.
                if let Some((a, b)) = self.pick(&words(s)) {
                    let w = s[a..b].to_vec();
                    s.splice(b..b, w);
                }
            }
            7 => {
                // Replace a number with a boundary value.
                if let Some((a, b)) = self.pick(&numbers(s)) {
                    let n = BOUNDARY_NUMBERS[self.rng.below(BOUNDARY_NUMBERS.len())];
                    s.splice(a..b, n.bytes());
                }
            }
            8 => {
                // Delete or duplicate a line.
                if let Some((a, b)) = self.pick(&lines(s)) {
                    if self.rng.below(2) == 0 {
                        s.drain(a..b);
                    } else {
                        let l = s[a..b].to_vec();
                        s.splice(b..b, l);
                    }
                }
            }
            9 => {
                // Splice: a prefix of this input and a suffix of another seed.
                if let Some(other) = self.pick_seed() {
                    let i = pos(&mut self.rng, s);
                    let j = if other.is_empty() { 0 } else { self.rng.below(other.len()) };
                    s.truncate(i);
                    s.extend_from_slice(&other[j..]);
                }
            }
            _ => {
                // Move a line of another seed in.
                if let Some(other) = self.pick_seed() {
                    if let Some((a, b)) = self.pick(&lines(&other)) {
                        let line = other[a..b].to_vec();
                        let at = self.pick(&lines(s)).map(|l| l.0).unwrap_or(0);
                        s.splice(at..at, line);
                    }
                }
            }
        }
    }

    fn pick_dict(&mut self) -> Option<Vec<u8>> {
        (!self.dict.is_empty()).then(|| self.dict[self.rng.below(self.dict.len())].clone())
    }

    fn pick_seed(&mut self) -> Option<Vec<u8>> {
        (!self.seeds.is_empty()).then(|| self.seeds[self.rng.below(self.seeds.len())].clone())
    }

    /// One to four edits of a copy of `s`.
    pub fn mutate(&mut self, s: &[u8]) -> Vec<u8> {
        let mut v = s.to_vec();
        for _ in 0..1 + self.rng.below(4) {
            self.mutate_once(&mut v);
        }
        v
    }
}

thread_local! {
    /// Set while this thread runs a target under [`catch`]: the last panic's message and
    /// `file:line`.
    static CAPTURE: RefCell<Option<Option<(String, String)>>> = const { RefCell::new(None) };
}

static HOOK: Once = Once::new();

/// Installs (once) a panic hook that records the panics of threads inside [`catch`] instead
/// of printing them, and defers to the previous hook elsewhere.
fn install_hook() {
    HOOK.call_once(|| {
        let prev = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let captured = CAPTURE.with(|c| {
                let mut c = c.borrow_mut();
                match c.as_mut() {
                    Some(slot) => {
                        let msg = info
                            .payload()
                            .downcast_ref::<&str>()
                            .map(|s| s.to_string())
                            .or_else(|| info.payload().downcast_ref::<String>().cloned())
                            .unwrap_or_else(|| "panic".into());
                        let at = info.location().map(|l| format!("{}:{}", l.file(), l.line())).unwrap_or_default();
                        if slot.is_none() {
                            *slot = Some((msg, at));
                        }
                        true
                    }
                    None => false,
                }
            });
            if !captured {
                prev(info);
            }
        }));
    });
}

/// A caught panic: its message and `file:line`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Panic {
    /// The panic message.
    pub message: String,
    /// Where it panicked (`file:line`).
    pub location: String,
}

impl Panic {
    /// What tells two panics apart: the location and the first line of the message
    /// without digits (so one assertion that fails for different reasons, such as a
    /// round trip that fails on different diagnostics, counts once per reason).
    pub fn key(&self) -> String {
        let first = self.message.lines().next().unwrap_or("");
        let text: String = first.chars().filter(|c| !c.is_ascii_digit()).take(160).collect();
        format!("{} {text}", self.location)
    }
}

/// Runs `f(data)`; `Some` with the first panic if it panicked. Panics inside passes that
/// the pass manager catches are reported by the target itself (as an internal compiler
/// error), so they come back here too.
pub fn catch(f: fn(&[u8]), data: &[u8]) -> Option<Panic> {
    install_hook();
    CAPTURE.with(|c| *c.borrow_mut() = Some(None));
    let r = catch_unwind(AssertUnwindSafe(|| f(data)));
    let first = CAPTURE.with(|c| c.borrow_mut().take().flatten());
    match r {
        Ok(()) => None,
        Err(_) => {
            let (message, location) = first.unwrap_or_else(|| ("panic".into(), String::new()));
            Some(Panic { message, location })
        }
    }
}

/// Shrinks `data` while `f` still panics the same way ([`Panic::key`]): drops lines, then byte
/// ranges of halving size, within `budget` runs of `f`.
pub fn minimize(f: fn(&[u8]), data: &[u8], at: &Panic, budget: usize) -> Vec<u8> {
    let mut best = data.to_vec();
    let mut runs = 0;
    let same = |cand: &[u8], runs: &mut usize| {
        *runs += 1;
        catch(f, cand).is_some_and(|p| p.key() == at.key())
    };
    // Lines first, then byte ranges.
    let mut i = 0;
    loop {
        let ls = lines(&best);
        if i >= ls.len() || runs >= budget {
            break;
        }
        let mut cand = best.clone();
        cand.drain(ls[i].0..ls[i].1);
        if same(&cand, &mut runs) {
            best = cand;
        } else {
            i += 1;
        }
    }
    let mut chunk = best.len().next_power_of_two() / 2;
    while chunk >= 1 && runs < budget {
        let mut start = 0;
        while start < best.len() && runs < budget {
            let end = (start + chunk).min(best.len());
            let mut cand = best.clone();
            cand.drain(start..end);
            if same(&cand, &mut runs) {
                best = cand;
            } else {
                start += chunk;
            }
        }
        chunk /= 2;
    }
    best
}

/// A failure of the mutation loop.
#[derive(Clone, Debug)]
pub struct Failure {
    /// The loop's seed.
    pub seed: u64,
    /// The iteration that failed.
    pub iteration: u64,
    /// The panic.
    pub panic: Panic,
    /// The failing input as mutated.
    pub input: Vec<u8>,
    /// The input shrunk by [`minimize`].
    pub minimal: Vec<u8>,
}

/// What a loop did.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    /// Executions of the target (seeds, then mutants).
    pub executions: u64,
    /// Distinct failures (by [`Panic::key`]), in the order found.
    pub failures: Vec<Failure>,
    /// The slowest execution and its input (slow inputs are findings too; libFuzzer's
    /// `-timeout` catches the hangs).
    pub slowest: (std::time::Duration, Vec<u8>),
}

/// Runs target `f` on every seed, then `iterations` mutants, each of a random seed. Each
/// distinct panic (by [`Panic::key`]) is minimized and recorded, up to `max_failures`.
pub fn run(
    f: fn(&[u8]),
    seeds: &[Vec<u8>],
    dict: &[Vec<u8>],
    seed: u64,
    iterations: u64,
    max_failures: usize,
) -> Outcome {
    run_with_progress(f, seeds, dict, seed, iterations, max_failures, &mut |_| {})
}

/// [`run`], calling `progress` with the mutants run so far every 1024 mutants and at the end
/// (for a progress bar on long runs).
pub fn run_with_progress(
    f: fn(&[u8]),
    seeds: &[Vec<u8>],
    dict: &[Vec<u8>],
    seed: u64,
    iterations: u64,
    max_failures: usize,
    progress: &mut dyn FnMut(u64),
) -> Outcome {
    let mut out = Outcome::default();
    let record = |out: &mut Outcome, iteration: u64, input: &[u8], p: Panic| {
        if out.failures.iter().any(|x| x.panic.key() == p.key()) || out.failures.len() >= max_failures {
            return;
        }
        let minimal = minimize(f, input, &p, 2000);
        out.failures.push(Failure { seed, iteration, panic: p, input: input.to_vec(), minimal });
    };
    let timed = |out: &mut Outcome, input: &[u8]| {
        let t = std::time::Instant::now();
        let p = catch(f, input);
        let dt = t.elapsed();
        if dt > out.slowest.0 {
            out.slowest = (dt, input.to_vec());
        }
        out.executions += 1;
        p
    };
    for (i, s) in seeds.iter().enumerate() {
        if let Some(p) = timed(&mut out, s) {
            record(&mut out, i as u64, s, p);
        }
    }
    if seeds.is_empty() {
        return out;
    }
    let mut m = Mutator { rng: Rng::new(seed), dict, seeds };
    for it in 0..iterations {
        let base = &seeds[m.rng.below(seeds.len())];
        let input = m.mutate(base);
        if let Some(p) = timed(&mut out, &input) {
            record(&mut out, seeds.len() as u64 + it, &input, p);
        }
        if it % 1024 == 1023 {
            progress(it + 1);
        }
    }
    progress(iterations);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn boom(d: &[u8]) {
        if d.windows(3).any(|w| w == b"BAD") {
            panic!("found BAD");
        }
    }

    #[test]
    fn catches_and_minimizes() {
        let input = b"line one\nxx BAD yy\nline three\n";
        let p = catch(boom, input).expect("panics");
        assert_eq!(p.message, "found BAD");
        assert!(p.location.contains("mutate.rs:"), "{}", p.location);
        assert_eq!(minimize(boom, input, &p, 1000), b"BAD");
        assert!(catch(boom, b"good").is_none());
    }

    #[test]
    fn mutation_is_deterministic() {
        let seeds = vec![b"func.func @f(%a: i32) { return 17 }\n".to_vec()];
        let dict = vec![b"mtensor.add".to_vec()];
        let a: Vec<Vec<u8>> = {
            let mut m = Mutator { rng: Rng::new(7), dict: &dict, seeds: &seeds };
            (0..50).map(|_| m.mutate(&seeds[0])).collect()
        };
        let mut m = Mutator { rng: Rng::new(7), dict: &dict, seeds: &seeds };
        let b: Vec<Vec<u8>> = (0..50).map(|_| m.mutate(&seeds[0])).collect();
        assert_eq!(a, b);
        assert!(a.iter().any(|x| x != &seeds[0]));
    }

    #[test]
    fn loop_reports_the_panic() {
        let seeds = vec![b"ok BA\n".to_vec()];
        let dict = vec![b"D".to_vec(), b"BAD".to_vec()];
        let out = run(boom, &seeds, &dict, 1, 500, 4);
        assert_eq!(out.executions, 501);
        assert_eq!(out.failures.len(), 1);
        assert_eq!(out.failures[0].minimal, b"BAD");
    }
}
