//! The bounded fuzz run of CI: a deterministic mutation loop ([`morf_fuzz_targets::mutate`])
//! over the seed corpus of each target, with a fixed seed and iteration count, on stable.
//!
//! `MORF_FUZZ_ITERS=N` sets the mutants per cheap target (default 100000; the pipeline and
//! interpreter targets run a tenth of it, at least 10; a debug build a twentieth of
//! both); `MORF_FUZZ_SEED=S` changes the seed. In release the default run takes about a
//! minute on 2 cores. A failure writes the minimal input to
//! `target/fuzz-failures/<target>-<seed>-<iteration>.bin` and names it in the message.
//! `MORF_FUZZ_SLOWEST=DIR` also writes each target's slowest input to
//! `DIR/<target>-slowest.bin`.

use morf_fuzz_targets::{corpus, mutate, target};

/// Bugs found by fuzzing in code that this crate does not own, each with its reproducer in
/// `fuzz/regressions/`: `(substring of the panic message, reproducer)`. A panic whose
/// message contains one of them is printed but does not fail the run; remove the entry
/// when the bug is fixed (the reproducer then passes, which `known_bugs_reproduce`
/// reports).
const KNOWN_BUGS: &[(&str, &str)] = &[];

fn known(message: &str) -> Option<&'static str> {
    KNOWN_BUGS.iter().find(|(m, _)| message.contains(m)).map(|(_, f)| *f)
}

/// Mutants per cheap target in CI (see the module docs for the scaling).
const CI_ITERS: u64 = 100_000;

fn iterations(expensive: bool) -> u64 {
    let n = std::env::var("MORF_FUZZ_ITERS").ok().and_then(|s| s.parse().ok()).unwrap_or(CI_ITERS);
    let n = if cfg!(debug_assertions) { n / 20 } else { n };
    if expensive {
        (n / 10).max(10)
    } else {
        n.max(10)
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
    // A progress bar for long runs: with MORF_FUZZ_ITERS set, on a terminal (stderr), and
    // never in CI's captured runs (indicatif draws nothing when stderr is not a terminal).
    let bar = if std::env::var_os("MORF_FUZZ_ITERS").is_some() {
        indicatif::ProgressBar::new(iters)
    } else {
        indicatif::ProgressBar::hidden()
    };
    if let Ok(style) =
        indicatif::ProgressStyle::with_template("{prefix} {bar:30} {pos}/{len} mutants [{elapsed}<{eta}]")
    {
        bar.set_style(style);
    }
    bar.set_prefix(name.to_string());
    let out = mutate::run_with_progress(f, &seeds, &dict, seed, iters, 8, &mut |n| bar.set_position(n));
    bar.finish_and_clear();
    eprintln!(
        "{name}: {} executions in {:.1?} (seed {seed:#x}); slowest {:.1?} ({} bytes)",
        out.executions,
        t.elapsed(),
        out.slowest.0,
        out.slowest.1.len()
    );
    if let Ok(dir) = std::env::var("MORF_FUZZ_SLOWEST") {
        let _ = std::fs::write(std::path::Path::new(&dir).join(format!("{name}-slowest.bin")), &out.slowest.1);
    }
    let stages = |c: &[std::sync::atomic::AtomicU64]| {
        c.iter().map(|x| x.load(std::sync::atomic::Ordering::Relaxed).to_string()).collect::<Vec<_>>().join("/")
    };
    match name {
        "interp" => eprintln!("interp: verified/ran/lowered/compared: {}", stages(&morf_fuzz_targets::INTERP_STAGES)),
        "fuse" | "gpu" | "gpu_unfused" | "pass_pipeline" => {
            eprintln!("pipelines so far: verified/through: {}", stages(&morf_fuzz_targets::PIPELINE_STAGES))
        }
        _ => {}
    }
    let (old, new): (Vec<_>, Vec<_>) = out.failures.into_iter().partition(|x| known(&x.panic.message).is_some());
    for x in &old {
        eprintln!(
            "{name}: known bug (fuzz/regressions/{}), iteration {}: {}",
            known(&x.panic.message).unwrap_or("?"),
            x.iteration,
            x.panic.message.lines().next().unwrap_or("")
        );
    }
    if new.is_empty() {
        return;
    }
    let dir = corpus::repo_root().join("target/fuzz-failures");
    let _ = std::fs::create_dir_all(&dir);
    let mut report = String::new();
    for x in &new {
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
    panic!("{} distinct panic(s) in target {name}:{report}", new.len());
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
fn fuzz_pass_pipeline() {
    fuzz("pass_pipeline", true);
}

#[test]
fn fuzz_interp() {
    fuzz("interp", true);
}

/// Every reproducer in `fuzz/regressions/` listed in [`KNOWN_BUGS`] still fails its target;
/// one that passes means the bug is fixed and its entry should go.
#[test]
fn known_bugs_reproduce() {
    for (msg, file) in KNOWN_BUGS {
        let path = corpus::repo_root().join("fuzz/regressions").join(file);
        let data = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let stem = file.split('-').next().unwrap_or("");
        let f = target(stem).unwrap_or_else(|| panic!("{file}: no target '{stem}'"));
        match mutate::catch(f, &data) {
            Some(p) => assert!(p.message.contains(msg), "{file} now fails differently: {}", p.message),
            None => eprintln!("{file} no longer fails: the bug is fixed; remove it from KNOWN_BUGS"),
        }
    }
}

/// `MORF_FUZZ_REPLAY=PATH` (a file or a folder of files) runs every target, or only
/// `MORF_FUZZ_TARGET=name`, on those inputs and fails with each panic: the way to replay a
/// libFuzzer artifact on stable. Without the variable it does nothing.
#[test]
fn replay() {
    let Some(path) = std::env::var_os("MORF_FUZZ_REPLAY").map(std::path::PathBuf::from) else { return };
    // cargo runs tests in the package folder; a relative path is meant from the repository.
    let path = if path.is_relative() && !path.exists() { corpus::repo_root().join(path) } else { path };
    let files: Vec<std::path::PathBuf> = if path.is_dir() {
        let mut v: Vec<_> =
            std::fs::read_dir(&path).expect("readable folder").filter_map(|e| e.ok().map(|e| e.path())).collect();
        v.sort();
        v
    } else {
        vec![path]
    };
    let only = std::env::var("MORF_FUZZ_TARGET").ok();
    let mut problems = Vec::new();
    for f in &files {
        let data = std::fs::read(f).expect("readable input");
        for name in morf_fuzz_targets::TARGETS {
            if only.as_deref().is_some_and(|o| o != name) {
                continue;
            }
            let t = std::time::Instant::now();
            let p = mutate::catch(target(name).expect("known target"), &data);
            eprintln!("{} {name}: {} in {:.1?}", f.display(), if p.is_some() { "PANIC" } else { "ok" }, t.elapsed());
            if let Some(p) = p {
                problems.push(format!("{} {name}: panicked at {}: {}", f.display(), p.location, p.message));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Every reproducer in `fuzz/regressions/` that is not a [`KNOWN_BUGS`] entry (a fixed
/// bug) passes its target, named by the file name up to the first `-`.
#[test]
fn fixed_regressions_pass() {
    let dir = corpus::repo_root().join("fuzz/regressions");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).expect("fuzz/regressions") {
        let path = e.expect("entry").path();
        let file = path.file_name().and_then(|f| f.to_str()).unwrap_or("").to_string();
        if KNOWN_BUGS.iter().any(|(_, f)| *f == file) || file.starts_with('.') || file.ends_with(".md") {
            continue;
        }
        let stem = file.split('-').next().unwrap_or("");
        let f = target(stem).unwrap_or_else(|| panic!("{file}: no target '{stem}'"));
        let data = std::fs::read(&path).expect("readable");
        if let Some(p) = mutate::catch(f, &data) {
            panic!("fuzz/regressions/{file} fails again: panicked at {}: {}", p.location, p.message);
        }
        n += 1;
    }
    assert!(n > 0, "no fixed regressions found in {}", dir.display());
}
