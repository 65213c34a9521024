//! The f32 error of compiled reductions stays bounded whatever the size: no kernel sums a
//! long run of values in one f32 chain.
//!
//! The data is adversarial but realistic: every value is close to 1 (`1 + (3 + u/2) / 4096`,
//! many values of similar magnitude), so each add into a long running f32 sum rounds the
//! same way and the error of one chain grows linearly with its length (1.3e-4 for 16384
//! values, well above the 1e-5 contract), while a blocked order stays near 1e-7.
//!
//! The case that once failed silently: a 3-D tensor summed over dims (0, 1) next to a
//! pointwise op of the same domain. `fuse-mixed-reductions` fuses the column sum's partial
//! into the pointwise kernel; its partials were split over the first reduced dim only
//! (`b div S`), so with B <= S every column was one f32 chain over all B x M rows, run by one
//! thread. Now the partial index flattens every reduced dim and the kernel takes the
//! `PartialPointwise` mapping, whose threads sum blocks of rows into fresh partials.

use morf_ir::{print_op, verify, PrintOptions};

mod common;
use common::{close, parse_program, registry, run, Inputs};

/// x[B, M, N] -> (sum over (B, M), exp(x)).
const SUM3: &str = r#"
func.func @sum3(%x: tensor<?x?x?xf32> {morf.dims = ["B", "M", "N"]}) -> (tensor<?xf32>, tensor<?x?x?xf32>) {
  %c = mtensor.reduce sum %x dims [0, 1] : tensor<?x?x?xf32> -> tensor<?xf32>
  %e = mtensor.exp %x : tensor<?x?x?xf32>
  return %c, %e : tensor<?xf32>, tensor<?x?x?xf32>
}
"#;

/// Values close to 1, rounded to f32 (a fixed LCG: the test needs no seed).
fn near_one(n: usize) -> Vec<f64> {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    (0..n)
        .map(|_| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let u = (state >> 11) as f64 / (1u64 << 53) as f64;
            (1.0 + (3.0 + 0.5 * u) / 4096.0) as f32 as f64
        })
        .collect()
}

/// Relative error of one f32 chain over `column` (what a one-thread column sum computes).
fn chain_error(column: &[f64]) -> f64 {
    let chain = column.iter().fold(0f32, |acc, &v| acc + v as f32) as f64;
    let exact: f64 = column.iter().sum();
    ((chain - exact) / exact).abs()
}

/// Lowers `text` with the `gpu` pipeline, fusion and mapping tuned for `hints`; returns the
/// reference (tensor interpreter) and the compiled program's results (simulator), and the
/// GPU IR.
fn compile_and_run(text: &str, hints: &str, inputs: &Inputs) -> (common::Results, common::Results, String) {
    let opts = format!("size-hints={hints}");
    compile_and_run_with(text, &opts, &opts, inputs)
}

/// [`compile_and_run`] with the options of `fuse-mixed-reductions` and `lower-loop-to-gpu`.
fn compile_and_run_with(
    text: &str,
    fuse_opts: &str,
    gpu_opts: &str,
    inputs: &Inputs,
) -> (common::Results, common::Results, String) {
    let (mut ctx, m, f) = parse_program(text).expect("parse");
    let before = run(&ctx, f, inputs).expect("reference");
    let reg = registry();
    for (pass, opts) in [
        ("lower-tensor-to-loop", String::new()),
        ("canonicalize", String::new()),
        ("cse", String::new()),
        ("fuse-mixed-reductions", fuse_opts.to_string()),
        ("canonicalize", String::new()),
        ("cse", String::new()),
        ("lower-loop-to-gpu", gpu_opts.to_string()),
    ] {
        let mut p = reg.create(pass, &opts).expect("pass");
        p.run(&mut ctx, m).unwrap_or_else(|d| panic!("{pass}: {}", ctx.render(&d)));
    }
    verify(&ctx, m).unwrap_or_else(|d| panic!("GPU IR does not verify: {}", ctx.render(&d)));
    let printed = print_op(&ctx, m, &PrintOptions::default());
    let after = run(&ctx, f, inputs).expect("compiled program");
    (before, after, printed)
}

#[test]
fn column_sum_over_two_reduced_dims_keeps_the_f32_error_bounded() {
    // Hinted at B=64, M=65536, N=8 with the fused partial of split 16384,
    // run at one the simulator finishes in a second: B=2, M=8192, N=2 (16384 rows per
    // column, all in one split).
    let (b, m, n) = (2, 8192, 2);
    let x = near_one(b * m * n);
    let column: Vec<f64> = x.iter().step_by(n).copied().collect();
    assert!(chain_error(&column) > 1e-4, "the data must defeat a single f32 chain");
    let inputs = vec![(vec![b, m, n], x)];
    // The fused form pinned (split 16384, fusion made to pay), not the cost model's ranking.
    let fuse = "size-hints=B=64,M=65536,N=8 device=launch=1 splits=16384";
    let (before, after, printed) = compile_and_run_with(SUM3, fuse, "size-hints=B=64,M=65536,N=8", &inputs);
    // The fused kernel is the flat partials form (rows of 32 bytes: CTAs over consecutive
    // vectors of the flattened rows, each thread's partials a chain of its own vectors,
    // combined in a fixed order through shared memory); a row kernel without reductions in
    // the thirty-third session, a thread per (split, column) summing blocks of 256 rows
    // before.
    assert!(
        printed.contains("\"PartialPointwise") && printed.contains("mgpu.load_vec"),
        "the fused partial kernel is not the flat partials form:\n{printed}"
    );
    assert!(!printed.contains("\"Sequential"), "a one-thread kernel is left:\n{printed}");
    close(&before, &after, Some("NaN")).unwrap_or_else(|e| panic!("{e}\n{printed}"));
    // Well inside the contract, not just under it.
    let (r, o) = (&before[0].1, &after[0].1);
    for (p, q) in r.iter().zip(o) {
        assert!(((p - q) / p).abs() < 1e-6, "column sum {q} vs {p}");
    }
}

#[test]
fn plain_column_sum_over_two_reduced_dims_keeps_the_f32_error_bounded() {
    // The unfused form (split-K: row blocks of at most 512 points of the flattened reduced
    // domain, then the final reduction), on the same data.
    let (b, m, n) = (2, 8192, 2);
    let x = near_one(b * m * n);
    let inputs = vec![(vec![b, m, n], x)];
    let text = SUM3.replace("%e = mtensor.exp %x", "%e = mtensor.neg %x");
    let (before, after, printed) = compile_and_run(&text, "B=2,M=8192,N=2", &inputs);
    close(&before, &after, Some("NaN")).unwrap_or_else(|e| panic!("{e}\n{printed}"));
    let (r, o) = (&before[0].1, &after[0].1);
    for (p, q) in r.iter().zip(o) {
        assert!(((p - q) / p).abs() < 1e-6, "column sum {q} vs {p}");
    }
}

/// A row sum and a total sum over one long row, with 32 threads per row and per CTA: each
/// thread's share is 4096 values. The row reduction's lanes and the rank-0 block reduction's
/// threads once summed their share in one f32 chain (relative error 3e-5 on this data); they
/// now sum blocks of 256 values into fresh partials.
#[test]
fn row_and_block_reductions_keep_the_f32_error_bounded() {
    let text = r#"
func.func @sums(%x: tensor<?x?xf32> {morf.dims = ["M", "N"]}) -> (tensor<?xf32>, tensor<f32>) {
  %r = mtensor.reduce sum %x dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %t = mtensor.reduce sum %x dims [0, 1] : tensor<?x?xf32> -> tensor<f32>
  return %r, %t : tensor<?xf32>, tensor<f32>
}
"#;
    let n = 32 * 4096;
    let x = near_one(n);
    let lane0: Vec<f64> = x.iter().step_by(32).copied().collect();
    assert!(chain_error(&lane0) > 1e-5, "the data must defeat a 4096-long f32 chain");
    let inputs = vec![(vec![1, n], x)];
    let (before, after, printed) = compile_and_run_with(text, "", "threads=32 threads-per-row=32", &inputs);
    assert!(printed.contains("\"RowReduction") && printed.contains("\"BlockReduction"), "{printed}");
    close(&before, &after, Some("NaN")).unwrap_or_else(|e| panic!("{e}\n{printed}"));
    for (r, o) in before.iter().zip(&after) {
        for (p, q) in r.1.iter().zip(&o.1) {
            assert!(((p - q) / p).abs() < 1e-6, "sum {q} vs {p}");
        }
    }
}
