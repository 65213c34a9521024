//! The fusion model prices the schedule the lowering runs.
//!
//! The fusion search prices each kernel with the schedule `lower-loop-to-gpu`'s heuristic
//! gives it (`fusion::cost`, `KernelCost::schedule`). It builds that schedule's input (the
//! kernel's `NestShape`) from the plan, the lowering from the IR: where the two disagree, the
//! search compares plans by a schedule that never runs. The thirty-eighth session found two such
//! disagreements this way: a reduction-only kernel that another kernel's input kept from being
//! streamed ran 32 lanes a row where the model priced 8, and the model took a short row's per-row
//! f32 result (N <= 4) for a written row.
//!
//! With `--fusion-report`, each fused kernel carries the schedule it was priced with
//! (`morf.kernel`'s `priced`), and `--schedule-report` says where the lowering's schedule
//! differs. This test runs every example through the `gpu` pipeline at many shapes and checks
//! that the kernels with such a note are exactly the known ones below.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;

/// Shapes of every example (`K` for two_norms_shared_weight, `B` for reduce3d).
const SHAPES: &[&str] = &[
    "M=262144,N=100",
    "M=65536,N=1024",
    "M=16384,N=8192",
    "M=4096,N=16384",
    "M=5120,N=5120",
    "M=1000,N=1000",
    "M=32768,N=4096",
    "M=65536,N=200",
    "M=576000,N=384",
    "M=32768,N=768",
    "M=131072,N=256",
    "M=8388608,N=2",
    "M=8388608,N=3",
    "M=2097152,N=17",
    "M=5120,N=1024",
    "M=10000,N=2000",
    "M=262144,N=64",
    "M=4194304,N=7",
    "M=1000000,N=32",
];

/// Kernels whose priced schedule differs from the one they run, as `example shape kernel`.
/// All are rows the lowering stages through shared memory as heavy (`HEAVY_ROW_ISSUE`): it
/// counts a row's instructions in the fused IR (`work_inside`, each member's expressions where
/// the fused body recomputes them), the model in the plan (`kernel_work`, equal expressions
/// once), about half as many, so the model prices these rows held in registers.
const KNOWN: &[&str] = &[
    "gelu_bwd_bias M=32768,N=768 gelu_bwd_bias_k0",
    "rmsnorm_bwd M=32768,N=768 rmsnorm_bwd_k0",
    "softmax_fwd_colsum M=1000,N=1000 softmax_fwd_colsum_k0",
    "softmax_fwd_colsum M=32768,N=768 softmax_fwd_colsum_k0",
    "softmax_fwd_colsum M=5120,N=1024 softmax_fwd_colsum_k0",
    "softmax_fwd_colsum M=65536,N=1024 softmax_fwd_colsum_k0",
    "tanh_bwd_bias M=1000,N=1000 tanh_bwd_bias_k0",
    "tanh_bwd_bias M=5120,N=1024 tanh_bwd_bias_k0",
    "tanh_bwd_bias M=65536,N=1024 tanh_bwd_bias_k0",
    "two_norms_shared_weight M=32768,N=768 two_norms_shared_weight_k0",
    // Its second norm (K = 64 rows, split 1), a row kernel since the forty-first session
    // (loop-map's mapped fallback before, which the model did not price at all).
    "two_norms_shared_weight M=32768,N=768 two_norms_shared_weight_k1",
];

const NOTE: &str = ": the fusion model priced this kernel with another schedule, ";

#[test]
fn the_lowering_runs_the_schedule_the_fusion_model_priced() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut examples: Vec<PathBuf> = std::fs::read_dir(root.join("examples"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "mlir"))
        .collect();
    examples.sort();
    assert!(examples.len() >= 10, "the examples: {examples:?}");
    let mut found = BTreeSet::new();
    let mut priced = 0;
    for ex in &examples {
        let name = ex.file_stem().unwrap().to_string_lossy().to_string();
        for shape in SHAPES {
            let hints = match name.as_str() {
                "reduce3d" => format!("B=64,{shape}"),
                _ => format!("{shape},K=64"),
            };
            let out = Command::new(env!("CARGO_BIN_EXE_morf-opt"))
                .arg(ex)
                .args(["--pipeline", "gpu", "--size-hints", &hints, "--fusion-report", "--schedule-report"])
                .args(["-o", if cfg!(windows) { "NUL" } else { "/dev/null" }])
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success(), "{name} {shape}: {err}");
            priced += err.lines().filter(|l| l.starts_with("  priced schedule of ")).count();
            for line in err.lines().filter(|l| l.contains(NOTE)) {
                let kernel = line.split(": note: @").nth(1).and_then(|r| r.split(NOTE).next()).unwrap_or(line);
                found.insert(format!("{name} {shape} {kernel}"));
            }
        }
    }
    // The sweep prices row kernels at all: most shapes of most examples have one.
    assert!(priced > SHAPES.len() * 8, "{priced} priced schedules");
    let known: BTreeSet<String> = KNOWN.iter().map(|s| s.to_string()).collect();
    let new: Vec<_> = found.difference(&known).collect();
    let gone: Vec<_> = known.difference(&found).collect();
    assert!(
        new.is_empty() && gone.is_empty(),
        "kernels the lowering runs with another schedule than the fusion model priced:\n  new: {new:#?}\n  no longer: {gone:#?}"
    );
}
