//! Parses, verifies, prints, canonicalizes and interprets small `mtensor` programs.

use std::rc::Rc;

use morf_ir::interp::{array::Array, run_function, RtValue};
use morf_ir::rewrite::{apply_patterns_greedily, GreedyConfig, RewritePattern};
use morf_ir::{builtin::lookup_function, parse_source, print_op, verify, Context, FloatKind, OpId, PrintOptions};

fn ctx() -> Context {
    let mut c = Context::new();
    morf_tensor::register(&mut c);
    c
}

fn parse(ctx: &mut Context, src: &str) -> OpId {
    let m = parse_source(ctx, "t.mlir", src, 0).unwrap_or_else(|d| panic!("parse: {}", d.message));
    verify(ctx, m).unwrap_or_else(|d| panic!("verify: {}", d.message));
    m
}

fn print(ctx: &Context, m: OpId, generic: bool) -> String {
    let opts = PrintOptions { generic, ..Default::default() };
    print_op(ctx, m, &opts)
}

/// Custom and generic forms both re-parse to the same custom text.
fn round_trip(src: &str) -> String {
    let mut c = ctx();
    let m = parse(&mut c, src);
    let custom = print(&c, m, false);
    let generic = print(&c, m, true);
    for text in [&custom, &generic] {
        let mut c2 = ctx();
        let m2 = parse(&mut c2, text);
        assert_eq!(print(&c2, m2, false), custom, "round trip of:\n{text}");
    }
    custom
}

fn verify_error(src: &str) -> String {
    let mut c = ctx();
    let m = match parse_source(&mut c, "t.mlir", src, 0) {
        Ok(m) => m,
        Err(d) => return d.message,
    };
    verify(&c, m).expect_err("expected a verifier error").message
}

fn canonicalize(src: &str) -> String {
    let mut c = ctx();
    let m = parse(&mut c, src);
    let patterns: Vec<Box<dyn RewritePattern>> =
        c.registry().ops().filter_map(|i| i.patterns).flat_map(|f| f()).collect();
    let stats = apply_patterns_greedily(&mut c, m, &patterns, &GreedyConfig::default());
    assert!(stats.converged);
    verify(&c, m).unwrap_or_else(|d| panic!("verify after canonicalize: {}", d.message));
    print(&c, m, false)
}

fn tensor(shape: &[usize], data: &[f64], c: &mut Context, elem: FloatKind) -> RtValue {
    let e = c.float_type(elem);
    RtValue::Tensor { elem: e, array: Rc::new(Array::new(shape.to_vec(), data.to_vec())) }
}

fn run(src: &str, args: impl FnOnce(&mut Context) -> Vec<RtValue>) -> Result<Vec<Array>, String> {
    let mut c = ctx();
    let m = parse(&mut c, src);
    let f = lookup_function(&c, m, "main").expect("@main");
    let args = args(&mut c);
    let out = run_function(&c, f, args).map_err(|d| d.message)?;
    Ok(out.iter().map(|v| v.as_tensor().expect("tensor result").clone()).collect())
}

#[test]
fn ops_mlir_round_trips() {
    let src =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../test/Dialect/Tensor/ops.mlir")).unwrap();
    let out = round_trip(&src);
    println!("{out}");
}

#[test]
fn custom_syntax_prints_as_written() {
    let out = round_trip(
        "func.func @f(%x: tensor<?x?xbf16>, %w: tensor<?xbf16>) -> tensor<?x?xbf16> {
  %m = mtensor.dim %x, 0 : tensor<?x?xbf16>
  %n = mtensor.dim %x, 1 : tensor<?x?xbf16>
  %b = mtensor.broadcast %w dims [1] sizes(%m, %n) : tensor<?xbf16> -> tensor<?x?xbf16>
  %r = mtensor.reduce mean %b dims [1] keepdim : tensor<?x?xbf16> -> tensor<?x1xbf16>
  %c = mtensor.cmp lt, %b, %x : tensor<?x?xbf16>
  %s = mtensor.select %c, %b, %x : tensor<?x?xi1>, tensor<?x?xbf16>
  return %s : tensor<?x?xbf16>
}",
    );
    for line in [
        "%b = mtensor.broadcast %w dims [1] sizes(%m, %n) : tensor<?xbf16> -> tensor<?x?xbf16>",
        "%r = mtensor.reduce mean %b dims [1] keepdim : tensor<?x?xbf16> -> tensor<?x1xbf16>",
        "%c = mtensor.cmp lt, %b, %x : tensor<?x?xbf16>",
        "%s = mtensor.select %c, %b, %x : tensor<?x?xi1>, tensor<?x?xbf16>",
        "%m = mtensor.dim %x, 0 : tensor<?x?xbf16>",
    ] {
        assert!(out.contains(line), "missing `{line}` in\n{out}");
    }
}

#[test]
fn generic_form_parses() {
    let out = round_trip(
        r#"func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "mtensor.add"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}"#,
    );
    assert!(out.contains("mtensor.add %a, %b : tensor<4xf32>"), "{out}");
}

#[test]
fn verifier_errors() {
    let cases: &[(&str, &str)] = &[
        (
            "func.func @f(%a: tensor<4xf32>, %b: tensor<5xf32>) { %0 = \"mtensor.add\"(%a, %b) : (tensor<4xf32>, tensor<5xf32>) -> tensor<4xf32>\n return }",
            "'mtensor.add' op requires the same type for all operands and results",
        ),
        (
            "func.func @f(%a: tensor<4xi32>) { %0 = mtensor.exp %a : tensor<4xi32>\n return }",
            "'mtensor.exp' op operand #0 ('input') must be a ranked tensor of floats, got 'tensor<4xi32>'",
        ),
        (
            "func.func @f(%a: tensor<?x?xf32>) { %0 = mtensor.reduce sum %a dims [2] : tensor<?x?xf32> -> tensor<?x?xf32>\n return }",
            "'mtensor.reduce' op reduction dim 2 is out of range for rank 2",
        ),
        (
            "func.func @f(%a: tensor<?xf32>) { %0 = mtensor.broadcast %a dims [1] : tensor<?xf32> -> tensor<4x?xf32>\n return }",
            "'mtensor.broadcast' op expects 1 size operand, one per dynamic result dim, but got 0",
        ),
        (
            "func.func @f(%a: tensor<3xf32>) { %0 = mtensor.broadcast %a dims [1] : tensor<3xf32> -> tensor<2x4xf32>\n return }",
            "'mtensor.broadcast' op operand dim 0 (size 3) cannot broadcast to result dim 1 (size 4)",
        ),
        (
            "func.func @f(%a: tensor<2x3xf32>) { %0 = mtensor.transpose %a perm [0, 0] : tensor<2x3xf32> -> tensor<2x2xf32>\n return }",
            "'mtensor.transpose' op 'perm' [0, 0] is not a permutation of the 2 operand dims",
        ),
        (
            "func.func @f(%a: tensor<2x3xf32>) { %0 = mtensor.reshape %a : tensor<2x3xf32> -> tensor<5xf32>\n return }",
            "'mtensor.reshape' op operand has 6 elements but the result has 5",
        ),
        (
            "func.func @f(%a: tensor<?x4x8xf32>) { %0 = mtensor.collapse_shape %a [[0, 1], [2]] : tensor<?x4x8xf32> -> tensor<4x8xf32>\n return }",
            "'mtensor.collapse_shape' op result shape [4, 8] does not match the collapsed operand shape [?, 8]",
        ),
        (
            "func.func @f(%a: tensor<4xf32>) { %0 = mtensor.convert %a : tensor<4xf32> to tensor<5xf16>\n return }",
            "'mtensor.convert' op requires the same shape for all operands and results",
        ),
        (
            "func.func @f(%a: tensor<4xf32>) { %0 = \"mtensor.cmp\"(%a, %a) {predicate = \"xx\"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>\n return }",
            "'mtensor.cmp' op attribute 'predicate' must be a comparison predicate (eq, ne, lt, le, gt, ge)",
        ),
        (
            "func.func @f(%a: tensor<4xf32>) { %0 = mtensor.dim %a, 1 : tensor<4xf32>\n return }",
            "'mtensor.dim' op dim index 1 is out of range for rank 1",
        ),
    ];
    for (src, want) in cases {
        let got = verify_error(src);
        assert!(got.contains(want), "want `{want}`, got `{got}`");
    }
}

#[test]
fn interpret_elementwise_and_reduce() {
    let src = "func.func @main(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2xf32>, tensor<2x1xf32>, tensor<2x3xf32>, tensor<3x2xf32>) {
  %s = mtensor.add %a, %b : tensor<2x3xf32>
  %m = mtensor.mul %s, %a : tensor<2x3xf32>
  %r = mtensor.reduce sum %m dims [1] : tensor<2x3xf32> -> tensor<2xf32>
  %k = mtensor.reduce max %a dims [1] keepdim : tensor<2x3xf32> -> tensor<2x1xf32>
  %c = mtensor.cmp gt, %a, %b : tensor<2x3xf32>
  %sel = mtensor.select %c, %a, %b : tensor<2x3xi1>, tensor<2x3xf32>
  %t = mtensor.transpose %a perm [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  return %m, %r, %k, %sel, %t : tensor<2x3xf32>, tensor<2xf32>, tensor<2x1xf32>, tensor<2x3xf32>, tensor<3x2xf32>
}";
    let out = run(src, |c| {
        vec![
            tensor(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], c, FloatKind::F32),
            tensor(&[2, 3], &[6.0, 5.0, 4.0, 3.0, 2.0, 1.0], c, FloatKind::F32),
        ]
    })
    .unwrap();
    assert_eq!(out[0].data, vec![7.0, 14.0, 21.0, 28.0, 35.0, 42.0]);
    assert_eq!(out[1].data, vec![42.0, 105.0]);
    assert_eq!(out[2].shape, vec![2, 1]);
    assert_eq!(out[2].data, vec![3.0, 6.0]);
    assert_eq!(out[3].data, vec![6.0, 5.0, 4.0, 4.0, 5.0, 6.0]);
    assert_eq!(out[4].data, vec![1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
}

#[test]
fn interpret_broadcast_reshape_expand() {
    let src = "func.func @main(%x: tensor<?x?xf32>, %w: tensor<?xf32>) -> (tensor<?x?xf32>, tensor<?xf32>, tensor<?x2x2xf32>) {
  %m = mtensor.dim %x, 0 : tensor<?x?xf32>
  %n = mtensor.dim %x, 1 : tensor<?x?xf32>
  %b = mtensor.broadcast %w dims [1] sizes(%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %y = mtensor.sub %x, %b : tensor<?x?xf32>
  %f = mtensor.collapse_shape %y [[0, 1]] : tensor<?x?xf32> -> tensor<?xf32>
  %g = mtensor.reshape %f sizes(%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %h = mtensor.reshape %g sizes(%m) : tensor<?x?xf32> -> tensor<?x4xf32>
  %e = mtensor.expand_shape %h [[0], [1, 2]] sizes(%m) : tensor<?x4xf32> -> tensor<?x2x2xf32>
  return %y, %f, %e : tensor<?x?xf32>, tensor<?xf32>, tensor<?x2x2xf32>
}";
    let args = |c: &mut Context| {
        vec![
            tensor(&[2, 4], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], c, FloatKind::F32),
            tensor(&[4], &[1.0, 2.0, 3.0, 4.0], c, FloatKind::F32),
        ]
    };
    let out = run(src, args).unwrap();
    assert_eq!(out[0].data, vec![0.0, 0.0, 0.0, 0.0, 4.0, 4.0, 4.0, 4.0]);
    assert_eq!(out[1].shape, vec![8]);
    assert_eq!(out[2].shape, vec![2, 2, 2]);
    // A broadcast whose operand does not fit its run-time sizes is a diagnostic.
    let err = run(src, |c| {
        vec![tensor(&[2, 4], &[0.0; 8], c, FloatKind::F32), tensor(&[3], &[1.0, 2.0, 3.0], c, FloatKind::F32)]
    })
    .unwrap_err();
    assert!(err.contains("'mtensor.broadcast' op operand dim 0 has run-time size 3, which cannot broadcast to result dim 1 of size 4"), "{err}");
    // Elementwise operands of different run-time shapes.
    let err = run(
        "func.func @main(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %s = mtensor.add %a, %b : tensor<?xf32>
  return %s : tensor<?xf32>
}",
        |c| vec![tensor(&[2], &[1.0, 2.0], c, FloatKind::F32), tensor(&[3], &[1.0, 2.0, 3.0], c, FloatKind::F32)],
    )
    .unwrap_err();
    assert!(err.contains("operands have different run-time shapes [2] and [3]"), "{err}");
}

#[test]
fn interpret_scalar_broadcast_constant_and_nan() {
    let src = "func.func @main(%a: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xi1>, tensor<f32>, tensor<3xf32>) {
  %eps = mtensor.constant dense<1.0e-05> : tensor<f32>
  %b = mtensor.broadcast %eps dims [] : tensor<f32> -> tensor<2x3xf32>
  %c = mtensor.cmp ne, %a, %a : tensor<3xf32>
  %e = mtensor.constant dense<0.0> : tensor<0xf32>
  %mean = mtensor.reduce mean %e dims [0] : tensor<0xf32> -> tensor<f32>
  %two = mtensor.constant dense<[2.0, 0.5, 4.0]> : tensor<3xf32>
  %p = mtensor.pow %a, %two : tensor<3xf32>
  %r = mtensor.rsqrt %p : tensor<3xf32>
  return %b, %c, %mean, %r : tensor<2x3xf32>, tensor<3xi1>, tensor<f32>, tensor<3xf32>
}";
    let out = run(src, |c| vec![tensor(&[3], &[f64::NAN, 4.0, 2.0], c, FloatKind::F32)]).unwrap();
    assert!(out[0].data.iter().all(|&v| v == f64::from(1.0e-05f32)));
    assert_eq!(out[1].data, vec![1.0, 0.0, 0.0]);
    assert!(out[2].data[0].is_nan());
    assert!(out[3].data[0].is_nan());
    assert_eq!(out[3].data[1], FloatKind::F32.round(1.0 / 2f64.sqrt()));
    assert_eq!(out[3].data[2], 0.25);
}

#[test]
fn bf16_rounding() {
    // 1 + 2^-8 is halfway between bf16 neighbours 1 and 1 + 2^-7: ties to even gives 1.
    // 1 + 3 * 2^-8 is halfway between 1 + 2^-7 and 1 + 2^-6: ties to even gives 1 + 2^-6.
    let src = "func.func @main(%a: tensor<3xf32>, %b: tensor<3xf32>) -> (tensor<3xbf16>, tensor<3xf32>) {
  %s = mtensor.add %a, %b : tensor<3xf32>
  %h = mtensor.convert %s : tensor<3xf32> to tensor<3xbf16>
  %x = mtensor.convert %a : tensor<3xf32> to tensor<3xbf16>
  %y = mtensor.convert %b : tensor<3xf32> to tensor<3xbf16>
  %z = mtensor.add %x, %y : tensor<3xbf16>
  %back = mtensor.convert %z : tensor<3xbf16> to tensor<3xf32>
  return %h, %back : tensor<3xbf16>, tensor<3xf32>
}";
    let e = 2f64.powi(-8);
    let out = run(src, |c| {
        vec![tensor(&[3], &[1.0, 1.0, 1.0], c, FloatKind::F32), tensor(&[3], &[e, 3.0 * e, 1e-3], c, FloatKind::F32)]
    })
    .unwrap();
    let r = |v: f64| FloatKind::BF16.round(v);
    assert_eq!(out[0].data, vec![1.0, 1.0 + 4.0 * e, 1.0]);
    assert_eq!(out[0].data[2], r(1.0 + f64::from(1e-3f32)));
    // bf16 inputs, bf16 add: each result rounded once to bf16.
    assert_eq!(out[1].data, vec![r(1.0 + e), r(1.0 + 3.0 * e), r(1.0 + r(f64::from(1e-3f32)))]);
}

#[test]
fn canonicalize_identities() {
    let out = canonicalize(
        "func.func @f(%x: tensor<?x4xf32>, %h: tensor<4xf32>, %g: tensor<4xbf16>) -> (tensor<?x4xf32>, tensor<4xf32>, tensor<4xbf16>, tensor<4xf32>) {
  %z = mtensor.constant dense<0.0> : tensor<?x4xf32>
  %0 = mtensor.add %x, %x : tensor<?x4xf32>
  %n = mtensor.neg %0 : tensor<?x4xf32>
  %nn = mtensor.neg %n : tensor<?x4xf32>
  %t = mtensor.transpose %nn perm [1, 0] : tensor<?x4xf32> -> tensor<4x?xf32>
  %tt = mtensor.transpose %t perm [1, 0] : tensor<4x?xf32> -> tensor<?x4xf32>
  %d = mtensor.convert %h : tensor<4xf32> to tensor<4xf64>
  %dd = mtensor.convert %d : tensor<4xf64> to tensor<4xf32>
  %b = mtensor.convert %h : tensor<4xf32> to tensor<4xbf16>
  %bb = mtensor.convert %b : tensor<4xbf16> to tensor<4xf32>
  %w = mtensor.convert %g : tensor<4xbf16> to tensor<4xf32>
  %ww = mtensor.convert %w : tensor<4xf32> to tensor<4xbf16>
  return %tt, %dd, %ww, %bb : tensor<?x4xf32>, tensor<4xf32>, tensor<4xbf16>, tensor<4xf32>
}"
        .replace("dense<0.0> : tensor<?x4xf32>", "dense<0.0> : tensor<1x4xf32>")
        .as_str(),
    );
    println!("{out}");
    assert!(out.contains("return %0, %h, %g, %bb"), "{out}");
    assert!(!out.contains("mtensor.neg") && !out.contains("mtensor.transpose"), "{out}");
    assert!(out.contains("mtensor.convert %h : tensor<4xf32> to tensor<4xbf16>"), "{out}");
}

#[test]
fn canonicalize_constants() {
    let out = canonicalize(
        "func.func @f(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<2x4xf32>, tensor<2xf32>, tensor<4xbf16>, tensor<4xf32>) {
  %zero = mtensor.constant dense<0.0> : tensor<4xf32>
  %one = mtensor.constant dense<1.0> : tensor<4xf32>
  %a = mtensor.add %x, %zero : tensor<4xf32>
  %m = mtensor.mul %one, %a : tensor<4xf32>
  %two = mtensor.add %one, %one : tensor<4xf32>
  %e = mtensor.exp %zero : tensor<4xf32>
  %s = mtensor.constant dense<3.0> : tensor<f32>
  %b = mtensor.broadcast %s dims [] : tensor<f32> -> tensor<2x4xf32>
  %r = mtensor.reduce sum %b dims [1] : tensor<2x4xf32> -> tensor<2xf32>
  %v = mtensor.constant dense<[1.0, 2.0, 3.0, 1.00390625]> : tensor<4xf32>
  %c = mtensor.convert %v : tensor<4xf32> to tensor<4xbf16>
  %t = mtensor.constant dense<true> : tensor<4xi1>
  %sel = mtensor.select %t, %x, %two : tensor<4xi1>, tensor<4xf32>
  %q = mtensor.div %sel, %e : tensor<4xf32>
  return %m, %two, %b, %r, %c, %q : tensor<4xf32>, tensor<4xf32>, tensor<2x4xf32>, tensor<2xf32>, tensor<4xbf16>, tensor<4xf32>
}",
    );
    println!("{out}");
    assert!(out.contains("return %x,"), "{out}");
    assert!(out.contains("dense<1.200000e+01> : tensor<2xf32>") || out.contains("dense<12"), "{out}");
    assert!(
        !out.contains("mtensor.div") && !out.contains("mtensor.select") && !out.contains("mtensor.broadcast"),
        "{out}"
    );
    assert!(
        out.contains("dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 1.000000e+00]> : tensor<4xbf16>")
            || out.contains("tensor<4xbf16>"),
        "{out}"
    );
}

/// RMSNorm backward on 4096x4096 bf16 through the interpreter. Run with
/// `cargo test -p morf-tensor --release --test dialect -- --ignored --nocapture rmsnorm`.
#[test]
#[ignore]
fn rmsnorm_backward_4096_timing() {
    let src = "func.func @main(%x: tensor<?x?xbf16>, %dy: tensor<?x?xbf16>, %w: tensor<?xbf16>) -> (tensor<?x?xbf16>, tensor<?xbf16>) {
  %m = mtensor.dim %x, 0 : tensor<?x?xbf16>
  %n = mtensor.dim %x, 1 : tensor<?x?xbf16>
  %xf = mtensor.convert %x : tensor<?x?xbf16> to tensor<?x?xf32>
  %dyf = mtensor.convert %dy : tensor<?x?xbf16> to tensor<?x?xf32>
  %wf = mtensor.convert %w : tensor<?xbf16> to tensor<?xf32>
  %sq = mtensor.mul %xf, %xf : tensor<?x?xf32>
  %ms = mtensor.reduce mean %sq dims [1] keepdim : tensor<?x?xf32> -> tensor<?x1xf32>
  %eps = mtensor.constant dense<1.0e-05> : tensor<f32>
  %epsb = mtensor.broadcast %eps dims [] sizes(%m) : tensor<f32> -> tensor<?x1xf32>
  %mse = mtensor.add %ms, %epsb : tensor<?x1xf32>
  %r = mtensor.rsqrt %mse : tensor<?x1xf32>
  %rb = mtensor.broadcast %r dims [0, 1] sizes(%m, %n) : tensor<?x1xf32> -> tensor<?x?xf32>
  %xhat = mtensor.mul %xf, %rb : tensor<?x?xf32>
  %dyx = mtensor.mul %dyf, %xhat : tensor<?x?xf32>
  %dw = mtensor.reduce sum %dyx dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  %wb = mtensor.broadcast %wf dims [1] sizes(%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %g = mtensor.mul %dyf, %wb : tensor<?x?xf32>
  %gx = mtensor.mul %g, %xhat : tensor<?x?xf32>
  %c = mtensor.reduce mean %gx dims [1] keepdim : tensor<?x?xf32> -> tensor<?x1xf32>
  %cb = mtensor.broadcast %c dims [0, 1] sizes(%m, %n) : tensor<?x1xf32> -> tensor<?x?xf32>
  %xc = mtensor.mul %xhat, %cb : tensor<?x?xf32>
  %t = mtensor.sub %g, %xc : tensor<?x?xf32>
  %dx = mtensor.mul %t, %rb : tensor<?x?xf32>
  %dxb = mtensor.convert %dx : tensor<?x?xf32> to tensor<?x?xbf16>
  %dwb = mtensor.convert %dw : tensor<?xf32> to tensor<?xbf16>
  return %dxb, %dwb : tensor<?x?xbf16>, tensor<?xbf16>
}";
    let n = 4096;
    let vals = |k: usize, seed: u64| -> Vec<f64> {
        let mut s = seed;
        (0..k)
            .map(|_| {
                s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                FloatKind::BF16.round(((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0)
            })
            .collect()
    };
    let (x, dy, w) = (vals(n * n, 1), vals(n * n, 2), vals(n, 3));
    let mut c = ctx();
    let m = parse(&mut c, src);
    let f = lookup_function(&c, m, "main").unwrap();
    let bf = c.float_type(FloatKind::BF16);
    let t = |shape: Vec<usize>, d: Vec<f64>| RtValue::Tensor { elem: bf, array: Rc::new(Array::new(shape, d)) };
    let args = vec![t(vec![n, n], x), t(vec![n, n], dy), t(vec![n], w)];
    let start = std::time::Instant::now();
    let out = run_function(&c, f, args).unwrap();
    let elapsed = start.elapsed();
    println!("rmsnorm backward 4096x4096 bf16 in the interpreter: {elapsed:?}");
    assert_eq!(out[0].as_tensor().unwrap().shape, vec![n, n]);
    assert!(elapsed.as_secs_f64() < 5.0, "took {elapsed:?}");
}

/// Each chunk of `test/Dialect/Tensor/invalid.mlir` fails to verify with its expected error,
/// on the annotated line (a stand-in for `morf-opt --verify-diagnostics`).
#[test]
fn invalid_mlir_chunks() {
    let src = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../test/Dialect/Tensor/invalid.mlir"))
        .unwrap();
    let mut line_offset = 0u32;
    for chunk in src.split("// -----\n") {
        let lines: Vec<&str> = chunk.lines().collect();
        let (idx, want) = lines
            .iter()
            .enumerate()
            .find_map(|(i, l)| {
                let s = l.split("expected-error@+1 {{").nth(1)?;
                Some((i, s.trim_end().trim_end_matches("}}").to_string()))
            })
            .expect("chunk without expected-error");
        let mut c = ctx();
        let diag = match parse_source(&mut c, "invalid.mlir", chunk, line_offset) {
            Err(d) => d,
            Ok(m) => verify(&c, m).expect_err(&format!("no error for `{want}`")),
        };
        assert!(diag.message.contains(&want), "want `{want}`, got `{}`", diag.message);
        if let morf_ir::Loc::File { line, .. } = diag.loc {
            assert_eq!(line, line_offset + idx as u32 + 2, "line of `{want}`");
        }
        line_offset += lines.len() as u32 + 1;
    }
}

/// Prints `test/Dialect/Tensor/canonicalize.mlir` after canonicalization, chunk by chunk.
#[test]
fn canonicalize_mlir_chunks() {
    let src =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../test/Dialect/Tensor/canonicalize.mlir"))
            .unwrap();
    for chunk in src.split("// -----\n") {
        println!("{}", canonicalize(chunk));
    }
}

/// The typed handles: kinds by pointer, named accessors, the elementwise interface, and one
/// registered op per entry of the scalar function lists.
#[test]
fn typed_handles() {
    use morf_ir::interfaces::{elementwise, BinaryFn, CmpPredicate, Elementwise, UnaryFn};
    use morf_tensor::ops::{binary_op, unary_op, AddOp, CmpOp, ConstantOp, ReduceOp, TransposeOp};

    let mut c = ctx();
    let src = "func.func @f(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %s = mtensor.add %a, %b : tensor<2x3xf32>
  %p = mtensor.cmp le, %s, %b : tensor<2x3xf32>
  %r = mtensor.reduce max %s dims [1] keepdim : tensor<2x3xf32> -> tensor<2x1xf32>
  %t = mtensor.transpose %s perm [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  return %t : tensor<3x2xf32>
}";
    let m = parse(&mut c, src);
    let ops = c.walk_collect(m);
    let add = ops.iter().find_map(|o| c.dyn_cast::<AddOp>(*o)).expect("add");
    let f = lookup_function(&c, m, "f").unwrap();
    let args = c.block_args(c.entry_block(c.regions(f)[0]).unwrap()).to_vec();
    assert_eq!((add.lhs(&c), add.rhs(&c)), (args[0], args[1]));
    assert_eq!(elementwise(&c, add.id()), Some(Elementwise::Binary(BinaryFn::Add)));
    assert!(!c.isa::<TransposeOp>(add.id()));
    let cmp = ops.iter().find_map(|o| c.dyn_cast::<CmpOp>(*o)).expect("cmp");
    assert_eq!(cmp.predicate(&c), Some(CmpPredicate::Le));
    assert_eq!(elementwise(&c, cmp.id()), Some(Elementwise::Cmp(CmpPredicate::Le)));
    let red = ops.iter().find_map(|o| c.dyn_cast::<ReduceOp>(*o)).expect("reduce");
    assert_eq!(red.kind(&c), Some(morf_ir::interp::ReduceKind::Max));
    assert_eq!(red.dims(&c), Some(vec![1]));
    assert!(red.keepdim(&c).is_some());
    let tr = ops.iter().find_map(|o| c.dyn_cast::<TransposeOp>(*o)).expect("transpose");
    assert_eq!(tr.perm(&c), Some(vec![1, 0]));
    assert_eq!(tr.input(&c), add.result(&c));
    assert_eq!(TransposeOp::NAME, "mtensor.transpose");

    for f in UnaryFn::ALL {
        assert_eq!(unary_op(*f).name, format!("mtensor.{}", f.name()));
        assert!(c.registry().ops().any(|i| std::ptr::eq(i, unary_op(*f))));
    }
    for f in BinaryFn::ALL {
        let info = binary_op(*f);
        assert_eq!(info.name, format!("mtensor.{}", f.name()));
        assert_eq!(info.has(morf_ir::Traits::COMMUTATIVE), f.commutative(), "{}", info.name);
    }
    assert_eq!(ConstantOp::info().name, "mtensor.constant");
}
