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

const HINTS: &str = "size-hints=M=65536,N=1024";

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
    let f = fuse_and_compare(text, "size-hints=M=4096", &[("M", 8)]);
    assert_eq!(f.count("row-fused"), 0, "{}", f.printed);
    assert_eq!(f.kernels(), 2, "{}", f.printed);
}
