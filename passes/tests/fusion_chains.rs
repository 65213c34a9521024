//! Kernel forms of `fuse-mixed-reductions` found by trying programs beyond the norms' backward
//! passes (issue 10, "search fixes found by trying it"):
//!
//! - chained row reductions (softmax's max then sum of `exp(x - max)`, layernorm's mean then
//!   variance of `x - mean`) share one row kernel with their per-row consumers;
//! - a chain that reads the first result at another index (a dependence across rows) is never
//!   put in one row kernel.
//!
//! Every program is run in the fp64 interpreter before and after fusion, and must agree.

use morf_ir::{print_op, verify, PrintOptions};

mod common;
use common::{close, has_nan, parse_program, registry, run};

/// What fusing a program produced.
struct Fused {
    printed: String,
}

impl Fused {
    /// Top-level kernels (nests carrying `morf.kernel`).
    fn kernels(&self) -> usize {
        self.printed.matches("morf.kernel").count()
    }

    /// Kernels of this kind.
    fn count(&self, kind: &str) -> usize {
        self.printed.matches(&format!("kind = \"{kind}\"")).count()
    }
}

/// Lowers and fuses `text` with `options`, verifies, and checks that the interpreter agrees
/// before and after on inputs of sizes `sizes` (by `morf.dims` name).
fn fuse_and_compare(text: &str, options: &str, sizes: &[(&str, usize)]) -> Fused {
    let mut printed = String::new();
    for seed in 0..3u64 {
        let (mut ctx, m, f) = parse_program(text).unwrap_or_else(|e| panic!("{e}"));
        let ins = common::signature_inputs(&ctx, f, seed, &[5, 7, 3], 0.5, sizes);
        let before = run(&ctx, f, &ins).unwrap_or_else(|e| panic!("reference fails: {e}"));
        assert!(!has_nan(&before), "NaN in the reference");
        let reg = registry();
        for (pass, opts) in [("lower-tensor-to-loop", ""), ("fuse-mixed-reductions", options)] {
            reg.create(pass, opts)
                .unwrap_or_else(|e| panic!("{pass}: {e}"))
                .run(&mut ctx, m)
                .unwrap_or_else(|d| panic!("{pass}: {}", ctx.render(&d)));
        }
        verify(&ctx, m).unwrap_or_else(|d| panic!("fused IR does not verify: {}", ctx.render(&d)));
        printed = print_op(&ctx, m, &PrintOptions::default());
        let after = run(&ctx, f, &ins).unwrap_or_else(|e| panic!("fused program fails: {e}\n{printed}"));
        close(&before, &after, Some("NaN after fusion")).unwrap_or_else(|e| panic!("{e}\n{printed}"));
    }
    Fused { printed }
}

/// Size hints and a launch overhead so large that every legal fusion pays: the tests pin what
/// the search can build and that it is legal, not how the cost model ranks it (which is
/// recalibrated on measurements).
const HINTS: &str = "size-hints=M=65536,N=1024 device=launch=1e-3";

const SOFTMAX_FWD: &str =
    "func.func @softmax_fwd(%x: tensor<?x?xf32> {morf.dims = [\"M\", \"N\"]}) -> tensor<?x?xf32> {
  %m = mtensor.dim %x, 0 : tensor<?x?xf32>
  %n = mtensor.dim %x, 1 : tensor<?x?xf32>
  %mx = mtensor.reduce max %x dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %mxb = mtensor.broadcast %mx dims [0] sizes(%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %xs = mtensor.sub %x, %mxb : tensor<?x?xf32>
  %e = mtensor.exp %xs : tensor<?x?xf32>
  %s = mtensor.reduce sum %e dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %sb = mtensor.broadcast %s dims [0] sizes(%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %y = mtensor.div %e, %sb : tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}";

#[test]
fn softmax_forward_is_one_row_kernel() {
    let f = fuse_and_compare(SOFTMAX_FWD, HINTS, &[("M", 9), ("N", 13)]);
    assert_eq!(f.kernels(), 1, "max, sum and the divide in one kernel:\n{}", f.printed);
    assert_eq!(f.count("row-fused"), 1, "{}", f.printed);
    // The max is used as a value in the row: no buffer holds it any more.
    assert_eq!(f.printed.matches("mloop.alloc").count(), 1, "only the output is allocated:\n{}", f.printed);
}

#[test]
fn layernorm_forward_is_one_row_kernel() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/layernorm_fwd.mlir"))
        .expect("examples/layernorm_fwd.mlir");
    let f = fuse_and_compare(&text, HINTS, &[("M", 6), ("N", 11)]);
    assert_eq!(f.kernels(), 1, "mean, variance and the normalization in one kernel:\n{}", f.printed);
    assert_eq!(f.count("row-fused"), 1, "{}", f.printed);
}

/// Three row reductions, each reading the previous one's result at the row, and no pointwise
/// consumer: one row kernel without an inner loop.
#[test]
fn chain_of_three_row_reductions_without_consumer() {
    let text = "func.func @chain(%x: tensor<?x?xf32> {morf.dims = [\"M\", \"N\"]}) -> (tensor<?xf32>, tensor<?xf32>) {
  %m = mtensor.dim %x, 0 : tensor<?x?xf32>
  %n = mtensor.dim %x, 1 : tensor<?x?xf32>
  %a = mtensor.reduce max %x dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %ab = mtensor.broadcast %a dims [0] sizes(%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %d = mtensor.sub %x, %ab : tensor<?x?xf32>
  %b = mtensor.reduce min %d dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %bb = mtensor.broadcast %b dims [0] sizes(%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %e = mtensor.mul %d, %bb : tensor<?x?xf32>
  %c = mtensor.reduce sum %e dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  return %a, %c : tensor<?xf32>, tensor<?xf32>
}";
    let f = fuse_and_compare(text, HINTS, &[("M", 7), ("N", 10)]);
    assert_eq!(f.kernels(), 1, "{}", f.printed);
    assert_eq!(f.count("row-fused"), 1, "{}", f.printed);
    assert_eq!(f.printed.matches("mloop.reduce").count(), 3, "{}", f.printed);
}

/// The second row reduction reads the first one's result at the column index (`r[j]` in a
/// square): every row needs every other row's result, so they stay apart.
#[test]
fn chain_reading_another_rows_result_is_not_fused() {
    let text = "func.func @cross(%x: tensor<?x?xf32> {morf.dims = [\"M\", \"M\"]}) -> tensor<?xf32> {
  %m = mtensor.dim %x, 0 : tensor<?x?xf32>
  %r = mtensor.reduce max %x dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %rb = mtensor.broadcast %r dims [1] sizes(%m, %m) : tensor<?xf32> -> tensor<?x?xf32>
  %d = mtensor.sub %x, %rb : tensor<?x?xf32>
  %s = mtensor.reduce sum %d dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  return %s : tensor<?xf32>
}";
    let f = fuse_and_compare(text, "size-hints=M=4096 device=launch=1e-3", &[("M", 8)]);
    assert_eq!(f.count("row-fused"), 0, "{}", f.printed);
    assert_eq!(f.kernels(), 2, "{}", f.printed);
}

/// `%s = x + transpose(y)`, returned, with a row sum and a column sum of it: the lowering gives
/// `%s` a buffer (it is an output), and the row reduction now recomputes it in the row kernel
/// that also stores it and takes the column partials: one row kernel and the final.
const PRODUCER_RETURNED: &str = "func.func @stats(%x: tensor<?x?xf32> {morf.dims = [\"M\", \"N\"]}, %y: tensor<?x?xf32> {morf.dims = [\"N\", \"M\"]}) -> (tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>) {
  %yt = mtensor.transpose %y perm [1, 0] : tensor<?x?xf32> -> tensor<?x?xf32>
  %s = mtensor.add %x, %yt : tensor<?x?xf32>
  %r = mtensor.reduce sum %s dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %c = mtensor.reduce sum %s dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  return %s, %r, %c : tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>
}";

#[test]
fn materialized_producer_joins_the_row_kernel() {
    let f = fuse_and_compare(PRODUCER_RETURNED, HINTS, &[("M", 9), ("N", 6)]);
    assert_eq!(f.kernels(), 2, "{}", f.printed);
    assert_eq!(f.count("row-fused"), 1, "{}", f.printed);
    assert_eq!(f.count("final"), 1, "{}", f.printed);
    // The row reduction recomputes `%s` from x and y; `%s` is stored once, in the inner loop.
    assert_eq!(f.printed.matches("mloop.load %y").count(), 2, "{}", f.printed);
    assert_eq!(f.printed.matches("mloop.store").count(), 3, "s, r and c:\n{}", f.printed);
}

/// The same producer feeding only a row max, in f64: the row kernel recomputes it.
#[test]
fn materialized_producer_of_a_row_reduction_only() {
    let text = "func.func @rowmax(%x: tensor<?x?xf64> {morf.dims = [\"M\", \"N\"]}, %y: tensor<?x?xf64> {morf.dims = [\"M\", \"N\"]}) -> (tensor<?x?xf64>, tensor<?xf64>) {
  %e = mtensor.exp %y : tensor<?x?xf64>
  %s = mtensor.mul %x, %e : tensor<?x?xf64>
  %r = mtensor.reduce max %s dims [1] : tensor<?x?xf64> -> tensor<?xf64>
  return %s, %r : tensor<?x?xf64>, tensor<?xf64>
}";
    let f = fuse_and_compare(text, HINTS, &[("M", 5), ("N", 12)]);
    assert_eq!(f.kernels(), 1, "{}", f.printed);
    assert_eq!(f.count("row-fused"), 1, "{}", f.printed);
}

/// A row sum of the transposed producer (`sum_j s[j, i]` of a square) reads it at points other
/// rows of the fused loop compute: the producer stays a kernel of its own.
#[test]
fn producer_read_transposed_by_the_row_reduction_is_not_fused() {
    let text = "func.func @tr(%x: tensor<?x?xf32> {morf.dims = [\"M\", \"M\"]}) -> (tensor<?x?xf32>, tensor<?xf32>) {
  %s = mtensor.exp %x : tensor<?x?xf32>
  %t = mtensor.transpose %s perm [1, 0] : tensor<?x?xf32> -> tensor<?x?xf32>
  %r = mtensor.reduce sum %t dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  return %s, %r : tensor<?x?xf32>, tensor<?xf32>
}";
    let f = fuse_and_compare(text, "size-hints=M=4096 device=launch=1e-3", &[("M", 7)]);
    assert_eq!(f.count("row-fused"), 0, "{}", f.printed);
    assert_eq!(f.kernels(), 2, "{}", f.printed);
}

/// Differential seed 279, shrunk: two returned producers in a chain (`v1 = -a1`, `v4 =
/// select(v1 < a0, ..)`) feeding a row sum over the last of three dims. The row reduction
/// recomputes `v4` and, through it, `v1`: it must not read `v1` from the buffer the row's
/// inner loop has not written yet.
#[test]
fn chain_of_materialized_producers_is_recomputed_from_inputs() {
    let text = "func.func @main(%a0: tensor<8x4x?xbf16>, %a1: tensor<8x4x?xf64>) -> (tensor<8x4xbf16>, tensor<8x4x?xbf16>, tensor<8x4x?xf64>) {
  %v1 = mtensor.neg %a1 : tensor<8x4x?xf64>
  %v3 = mtensor.convert %v1 : tensor<8x4x?xf64> to tensor<8x4x?xbf16>
  %v5 = mtensor.cmp lt, %v3, %a0 : tensor<8x4x?xbf16>
  %v4 = mtensor.select %v5, %v3, %a0 : tensor<8x4x?xi1>, tensor<8x4x?xbf16>
  %v15 = mtensor.reduce sum %v4 dims [2] : tensor<8x4x?xbf16> -> tensor<8x4xbf16>
  func.return %v15, %v4, %v1 : tensor<8x4xbf16>, tensor<8x4x?xbf16>, tensor<8x4x?xf64>
}";
    let f = fuse_and_compare(text, "device=launch=1e-3", &[("arg0.2", 9), ("arg1.2", 9)]);
    assert_eq!(f.kernels(), 1, "{}", f.printed);
    assert_eq!(f.count("row-fused"), 1, "{}", f.printed);
}

/// Two independent mixed reductions (a row and a column sum each) of `x` and `y` over the same
/// columns, and a consumer of `y`'s column sum over another input `z`: the two finals become
/// one launch, which runs after both row kernels and before the consumer.
const TWO_GROUPS: &str = "func.func @two(%x: tensor<?x?xf32> {morf.dims = [\"M\", \"N\"]}, %y: tensor<?x?xf32> {morf.dims = [\"M\", \"N\"]}, %z: tensor<?x?xf32> {morf.dims = [\"M\", \"N\"]}) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?x?xf32>) {
  %m = mtensor.dim %x, 0 : tensor<?x?xf32>
  %n = mtensor.dim %x, 1 : tensor<?x?xf32>
  %ex = mtensor.exp %x : tensor<?x?xf32>
  %rx = mtensor.reduce sum %ex dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %cx = mtensor.reduce sum %ex dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  %ry = mtensor.reduce sum %y dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %cy = mtensor.reduce max %y dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  %cyb = mtensor.broadcast %cy dims [1] sizes(%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %u = mtensor.mul %z, %cyb : tensor<?x?xf32>
  %v = mtensor.mul %u, %cyb : tensor<?x?xf32>
  return %rx, %cx, %ry, %cy, %v : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?x?xf32>
}";

#[test]
fn independent_finals_are_one_launch() {
    let f = fuse_and_compare(TWO_GROUPS, "size-hints=M=576000,N=384", &[("M", 40), ("N", 6)]);
    assert_eq!(f.count("final"), 1, "{}", f.printed);
    assert_eq!(f.count("row-fused"), 2, "{}", f.printed);
    // Plan order: the two row kernels, the merged final, then the consumer of `cy`.
    let order: Vec<&str> = f
        .printed
        .lines()
        .filter_map(|l| l.find("kind = \"").map(|i| l[i + 8..].split('"').next().unwrap_or("")))
        .collect();
    assert_eq!(order, ["row-fused", "row-fused", "final", "pointwise"], "{}", f.printed);
}

/// Column sums over different column extents (`[N]` and `[K]`) are not merged.
#[test]
fn finals_over_other_columns_stay_apart() {
    let text = "func.func @two(%x: tensor<?x?xf32> {morf.dims = [\"M\", \"N\"]}, %y: tensor<?x?xf32> {morf.dims = [\"M\", \"K\"]}) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) {
  %rx = mtensor.reduce sum %x dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %cx = mtensor.reduce sum %x dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  %ry = mtensor.reduce sum %y dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %cy = mtensor.reduce sum %y dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  return %rx, %cx, %ry, %cy : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
}";
    let f = fuse_and_compare(text, "size-hints=M=576000,N=384,K=256", &[("M", 40), ("N", 6), ("K", 9)]);
    assert_eq!(f.count("final"), 2, "{}", f.printed);
    assert_eq!(f.count("row-fused"), 2, "{}", f.printed);
}

/// `loop_to_gpu_sim` seed 217, shrunk: a returned producer `t = |a0|` before the row sum that
/// reads it, and a consumer of both after it. The row kernel's inner loop holds the producer
/// and the consumer (`loop-fuse` refused them while the row loop sat between them).
#[test]
fn producer_and_consumer_of_a_row_reduction_share_the_inner_loop() {
    let text = "func.func @main(%a0: tensor<?x2x?xf16>) -> (tensor<?x2x?xf16>, tensor<?x2x?xf16>) {
  %d0 = mtensor.dim %a0, 0 : tensor<?x2x?xf16>
  %d2 = mtensor.dim %a0, 2 : tensor<?x2x?xf16>
  %v3 = mtensor.abs %a0 : tensor<?x2x?xf16>
  %v4 = mtensor.constant dense<1.0> : tensor<f16>
  %v5 = mtensor.broadcast %v4 dims [] sizes(%d0, %d2) : tensor<f16> -> tensor<?x2x?xf16>
  %v6 = mtensor.add %v3, %v5 : tensor<?x2x?xf16>
  %v2 = mtensor.div %a0, %v6 : tensor<?x2x?xf16>
  %v10 = mtensor.reduce sum %v2 dims [2] : tensor<?x2x?xf16> -> tensor<?x2xf16>
  %v22 = mtensor.broadcast %v10 dims [0, 1] sizes(%d0, %d2) : tensor<?x2xf16> -> tensor<?x2x?xf16>
  %v21 = mtensor.add %v22, %v6 : tensor<?x2x?xf16>
  func.return %v21, %v3 : tensor<?x2x?xf16>, tensor<?x2x?xf16>
}";
    for options in ["default-hint=1000000 device=launch=1e-3", "device=launch=1e-3"] {
        let f = fuse_and_compare(text, options, &[("arg0.0", 5), ("arg0.2", 7)]);
        assert_eq!(f.kernels(), 1, "{options}: {}", f.printed);
        assert_eq!(f.count("row-fused"), 1, "{options}: {}", f.printed);
    }
}
