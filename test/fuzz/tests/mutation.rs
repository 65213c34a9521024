//! The bounded fuzz run of CI: a deterministic mutation loop ([`morf_fuzz_targets::mutate`])
//! over the seed corpus of each target, with a fixed seed and iteration count, on stable.
//!
//! `MORF_FUZZ_ITERS=N` multiplies nothing: it sets the mutants per cheap target (the
//! pipeline and interpreter targets run a tenth of it, at least 10); `MORF_FUZZ_SEED=S`
//! changes the seed. A failure writes the minimal input to
//! `target/fuzz-failures/<target>-<seed>-<iteration>.bin` and names it in the message.

use morf_fuzz_targets::{corpus, mutate, target};

/// Mutants per cheap target in CI (see the module docs for the scaling).
const CI_ITERS: u64 = 3000;

fn iterations(expensive: bool) -> u64 {
    let n = std::env::var("MORF_FUZZ_ITERS").ok().and_then(|s| s.parse().ok()).unwrap_or(CI_ITERS);
    if expensive {
        (n / 10).max(10)
    } else {
        n
    }
}

fn seed() -> u64 {
    std::env::var("MORF_FUZZ_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0x6d6f7266)
}

fn fuzz(name: &str, expensive: bool) {
    let f = target(name).expect("known target");
    let seeds = corpus::seeds_for(name);
    assert!(seeds.len() > 10, "too few seeds for {name}: {}", seeds.len());
    let dict = corpus::dictionary();
    assert!(dict.len() > 50, "fuzz/mlir.dict is missing or small");
    let seed = seed();
    let iters = iterations(expensive);
    let t = std::time::Instant::now();
    let out = mutate::run(f, &seeds, &dict, seed, iters, 8);
    eprintln!("{name}: {} executions in {:.1?} (seed {seed:#x})", out.executions, t.elapsed());
    if out.failures.is_empty() {
        return;
    }
    let dir = corpus::repo_root().join("target/fuzz-failures");
    let _ = std::fs::create_dir_all(&dir);
    let mut report = String::new();
    for x in &out.failures {
        let path = dir.join(format!("{name}-{:x}-{}.bin", x.seed, x.iteration));
        let _ = std::fs::write(&path, &x.minimal);
        report.push_str(&format!(
            "\n{name}: seed {:#x} iteration {}: panicked at {}: {}\n  minimal input ({} bytes) in {}:\n{}\n",
            x.seed,
            x.iteration,
            x.panic.location,
            x.panic.message.lines().next().unwrap_or(""),
            x.minimal.len(),
            path.display(),
            String::from_utf8_lossy(&x.minimal)
        ));
    }
    panic!("{} distinct panic(s) in target {name}:{report}", out.failures.len());
}

#[test]
fn fuzz_parse() {
    fuzz("parse", false);
}

#[test]
fn fuzz_parse_verify() {
    fuzz("parse_verify", false);
}

#[test]
fn fuzz_roundtrip() {
    fuzz("roundtrip", false);
}

#[test]
fn fuzz_npy() {
    fuzz("npy", false);
}

#[test]
fn fuzz_fuse() {
    fuzz("fuse", true);
}

#[test]
fn fuzz_gpu() {
    fuzz("gpu", true);
}

#[test]
fn fuzz_gpu_unfused() {
    fuzz("gpu_unfused", true);
}

#[test]
fn fuzz_interp() {
    fuzz("interp", true);
}
