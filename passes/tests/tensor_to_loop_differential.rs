//! Differential testing of `lower-tensor-to-loop`: every example in `examples/` and
//! random `mtensor` programs (`morf_tensor::progen`) run in the tensor interpreter, are
//! lowered, verified, and run again in the loop interpreter (arguments become buffers).
//!
//! Two contracts are checked:
//! - with `accumulator-type=f64` the lowering must be *exact*: a reduction then adds the
//!   same f64 values in the same (row-major) order as the tensor interpreter, and every
//!   elementwise op rounds to the same type, so the results are bit-identical (NaN = NaN);
//! - with the default f32 accumulators, each result must be within the numerics contract:
//!   relative L2 error ([`morf_ir::numerics::relative_error`]) at most the tolerance of its
//!   dtype (1e-5 for f32/f64, 1e-2 for bf16/f16), equal shapes, and NaN never passes
//!   (infinities must match exactly). Programs whose reference has NaNs are exact-checked
//!   only.
//!
//! A mismatch prints the seed and a shrunk program.

use morf_ir::interfaces::{elementwise, BinaryFn, Elementwise, UnaryFn};
use morf_ir::{verify, Context, OpId};
use morf_tensor::progen::{generate, GenConfig};

mod common;
use common::{close, examples, failure_report, has_nan, parse_program, progen_inputs, registry, run, Inputs, Results};

/// Random programs checked per run (each in both modes).
const PROGRAMS: u64 = 600;

/// Bit-identical results (NaN matches NaN).
fn exact(a: &Results, b: &Results) -> Result<(), String> {
    if a.len() != b.len() {
        return Err(format!("{} results vs {}", a.len(), b.len()));
    }
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        if x.0 != y.0 {
            return Err(format!("result {i}: shape {:?} vs {:?}", x.0, y.0));
        }
        if let Some(k) =
            x.1.iter().zip(&y.1).position(|(p, q)| !(p.to_bits() == q.to_bits() || (p.is_nan() && q.is_nan())))
        {
            return Err(format!(
                "result {i}: element {k} is {} in the tensor interpreter, {} after lowering",
                x.1[k], y.1[k]
            ));
        }
    }
    Ok(())
}

/// Parses, runs, lowers, verifies and runs again, and compares: exactly with f64
/// accumulators (`exact_mode`), else within tolerance. `Ok(false)`: not checked (the
/// reference fails, or has NaNs in tolerance mode); an error starting with `invalid:`
/// means the program itself is not valid (the shrinker skips those).
fn check(text: &str, inputs: &dyn Fn(&Context, OpId) -> Inputs, exact_mode: bool) -> Result<bool, String> {
    let options = if exact_mode { "accumulator-type=f64" } else { "" };
    let (mut ctx, m, f) = parse_program(text)?;
    let ins = inputs(&ctx, f);
    let before = match run(&ctx, f, &ins) {
        Ok(r) => r,
        // A program the reference rejects (say, a run-time shape error) is not checked.
        Err(_) => return Ok(false),
    };
    let mut pass = registry().create("lower-tensor-to-loop", options)?;
    pass.run(&mut ctx, m).map_err(|d| format!("lowering failed: {}", ctx.render(&d)))?;
    verify(&ctx, m).map_err(|d| format!("lowered IR does not verify: {}", ctx.render(&d)))?;
    let after = run(&ctx, f, &ins).map_err(|e| format!("lowered program fails: {e}"))?;
    if exact_mode {
        exact(&before, &after).map(|_| true)
    } else if has_nan(&before) {
        Ok(false)
    } else {
        close(&before, &after, None).map(|_| true)
    }
}

/// Inputs for a function from its signature: `morf.dims` names sized 1, 2, 3, 5, 7 or 16,
/// normal values (positive, `0.1 + |x|`, for `morf.random = "positive"`), rounded to each dtype.
fn signature_inputs(ctx: &Context, f: OpId, seed: u64) -> Inputs {
    common::signature_inputs(ctx, f, seed, &[1, 2, 3, 5, 7, 16], 0.1, &[])
}

#[test]
fn examples_lower_and_agree() {
    let mut checked = 0;
    for (path, text) in examples() {
        for seed in 0..4u64 {
            let inputs = |ctx: &Context, f: OpId| signature_inputs(ctx, f, seed);
            for exact_mode in [true, false] {
                match check(&text, &inputs, exact_mode) {
                    Ok(true) => checked += 1,
                    Ok(false) => {}
                    Err(e) => panic!("{} (seed {seed}, exact {exact_mode}): {e}", path.display()),
                }
            }
        }
    }
    assert!(checked >= 40, "only {checked} example runs were checked");
}

#[test]
fn random_programs_lower_and_agree() {
    let cfg = GenConfig::default();
    let mut failures = Vec::new();
    let (mut exact_checked, mut close_checked) = (0, 0);
    for seed in 0..PROGRAMS {
        let p = generate(seed, &cfg);
        let inputs = |_: &Context, _: OpId| progen_inputs(&p, seed);
        for exact_mode in [true, false] {
            match check(&p.text, &inputs, exact_mode) {
                Ok(true) if exact_mode => exact_checked += 1,
                Ok(true) => close_checked += 1,
                Ok(false) => {}
                Err(e) => {
                    let mode =
                        if exact_mode { "exact, f64 accumulators" } else { "within tolerance, f32 accumulators" };
                    let what = format!("seed {seed} ({mode})");
                    failures.push(failure_report(&what, &e, &p.text, &|t| check(t, &inputs, exact_mode)));
                }
            }
        }
    }
    eprintln!(
        "lower-tensor-to-loop: {PROGRAMS} random programs; {exact_checked} checked exactly (f64 accumulators), \
         {close_checked} within tolerance (f32 accumulators)"
    );
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n\n"));
    assert!(exact_checked as u64 >= PROGRAMS * 9 / 10, "only {exact_checked} programs were checked");
}

/// Ops the random generator does not make: shape ops, dense constants, every reduce kind
/// with `keepdim`, and a dynamic dim that broadcasts from run-time size 1.
const HANDWRITTEN: &[&str] = &[
    "func.func @shapes(%a: tensor<2x3xf32>) -> (tensor<3x2xf32>, tensor<6xf32>, tensor<3x2xf32>, tensor<6x1xf32>) {
       %t = mtensor.transpose %a perm [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
       %c = mtensor.collapse_shape %a [[0, 1]] : tensor<2x3xf32> -> tensor<6xf32>
       %r = mtensor.reshape %a : tensor<2x3xf32> -> tensor<3x2xf32>
       %e = mtensor.expand_shape %c [[0, 1]] : tensor<6xf32> -> tensor<6x1xf32>
       return %t, %c, %r, %e : tensor<3x2xf32>, tensor<6xf32>, tensor<3x2xf32>, tensor<6x1xf32>
     }",
    "func.func @dyn_shapes(%b: tensor<?x6xbf16> {morf.dims = [\"M\", \"Six\"]}, %x: tensor<?x?x?xf64> {morf.dims = [\"A\", \"B\", \"C\"]})
         -> (tensor<?x2x3xbf16>, tensor<?x?xf64>, tensor<?x?x?xf64>, tensor<?x3x2xbf16>) {
       %m = mtensor.dim %b, 0 : tensor<?x6xbf16>
       %e = mtensor.expand_shape %b [[0], [1, 2]] sizes(%m) : tensor<?x6xbf16> -> tensor<?x2x3xbf16>
       %c = mtensor.collapse_shape %x [[0, 1], [2]] : tensor<?x?x?xf64> -> tensor<?x?xf64>
       %t = mtensor.transpose %x perm [2, 0, 1] : tensor<?x?x?xf64> -> tensor<?x?x?xf64>
       %f = mtensor.reshape %e sizes(%m) : tensor<?x2x3xbf16> -> tensor<?x3x2xbf16>
       return %e, %c, %t, %f : tensor<?x2x3xbf16>, tensor<?x?xf64>, tensor<?x?x?xf64>, tensor<?x3x2xbf16>
     }",
    "func.func @consts(%a: tensor<3xf32>) -> (tensor<3xf32>, tensor<2x2xf16>) {
       %k = mtensor.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
       %h = mtensor.constant dense<0.5> : tensor<3xf32>
       %q = mtensor.constant dense<[[1.0, -2.0], [0.25, 8.0]]> : tensor<2x2xf16>
       %0 = mtensor.mul %a, %k : tensor<3xf32>
       %1 = mtensor.add %0, %h : tensor<3xf32>
       return %1, %q : tensor<3xf32>, tensor<2x2xf16>
     }",
    "func.func @reductions(%a: tensor<?x?x?xf16> {morf.dims = [\"A\", \"B\", \"C\"]})
         -> (tensor<?x1x?xf16>, tensor<f16>, tensor<?xf16>, tensor<1x1x?xf16>, tensor<?x?xf16>) {
       %0 = mtensor.reduce max %a dims [1] keepdim : tensor<?x?x?xf16> -> tensor<?x1x?xf16>
       %1 = mtensor.reduce prod %a dims [0, 1, 2] : tensor<?x?x?xf16> -> tensor<f16>
       %2 = mtensor.reduce min %a dims [0, 2] : tensor<?x?x?xf16> -> tensor<?xf16>
       %3 = mtensor.reduce mean %a dims [0, 1] keepdim : tensor<?x?x?xf16> -> tensor<1x1x?xf16>
       %4 = mtensor.reduce sum %a dims [0] : tensor<?x?x?xf16> -> tensor<?x?xf16>
       return %0, %1, %2, %3, %4 : tensor<?x1x?xf16>, tensor<f16>, tensor<?xf16>, tensor<1x1x?xf16>, tensor<?x?xf16>
     }",
    "func.func @bcast(%a: tensor<?xf32> {morf.dims = [\"M\"]}, %b: tensor<?x?xf32> {morf.dims = [\"P\", \"N\"]},
                      %c: tensor<1x?xf32> {morf.dims = [\"One\", \"N\"]}) -> tensor<?x?xf32> {
       %m = mtensor.dim %a, 0 : tensor<?xf32>
       %n = mtensor.dim %b, 1 : tensor<?x?xf32>
       %0 = mtensor.broadcast %a dims [0] sizes(%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
       %1 = mtensor.broadcast %b dims [0, 1] sizes(%m, %n) : tensor<?x?xf32> -> tensor<?x?xf32>
       %2 = mtensor.broadcast %c dims [0, 1] sizes(%m, %n) : tensor<1x?xf32> -> tensor<?x?xf32>
       %3 = mtensor.add %0, %1 : tensor<?x?xf32>
       %4 = mtensor.sub %3, %2 : tensor<?x?xf32>
       %5 = mtensor.reduce sum %4 dims [0] : tensor<?x?xf32> -> tensor<?xf32>
       %6 = mtensor.broadcast %5 dims [1] sizes(%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
       %7 = mtensor.mul %6, %4 : tensor<?x?xf32>
       return %7 : tensor<?x?xf32>
     }",
];

#[test]
fn handwritten_programs_agree() {
    for (i, text) in HANDWRITTEN.iter().enumerate() {
        // Seeds whose sizes the reference rejects (a reshape of the wrong element count, a
        // broadcast from a size that is neither 1 nor the target) are not checked.
        let mut checked = 0;
        for seed in 0..40u64 {
            let inputs = |ctx: &Context, f: OpId| signature_inputs(ctx, f, seed);
            for exact_mode in [true, false] {
                match check(text, &inputs, exact_mode) {
                    Ok(true) => checked += 1,
                    Ok(false) => {}
                    Err(e) => panic!("program {i} (seed {seed}, exact {exact_mode}): {e}\n{text}"),
                }
            }
        }
        assert!(checked >= 4, "program {i}: only {checked} runs were checked");
    }
}

macro_rules! function_list {
    ($ty:ident: $(($v:ident, $($rest:tt)*)),* $(,)?) => {
        &[$($ty::$v),*]
    };
}
macro_rules! unary_list {
    ($($t:tt)*) => {
        function_list!(UnaryFn: $($t)*)
    };
}
macro_rules! binary_list {
    ($($t:tt)*) => {
        function_list!(BinaryFn: $($t)*)
    };
}

/// Every unary and binary function of the lists.
const UNARY: &[UnaryFn] = morf_ir::for_each_unary_fn!(unary_list);
const BINARY: &[BinaryFn] = morf_ir::for_each_binary_fn!(binary_list);

/// Every elementwise function lowers (to the `mloop` op of the same function, found through
/// the elementwise interface) and agrees exactly with the tensor interpreter: the lowering's
/// mapping is generated from the function lists, so a new entry cannot be missed.
#[test]
fn every_elementwise_function_lowers_to_its_loop_op() {
    let ty = "tensor<?xf32>";
    let args = format!("%a: {ty} {{morf.dims = [\"N\"]}}, %b: {ty} {{morf.dims = [\"N\"]}}");
    let mut cases: Vec<(String, Elementwise)> = Vec::new();
    for &f in UNARY {
        let op = morf_tensor::ops::unary_op(f).name;
        cases.push((format!("%0 = {op} %a : {ty}"), Elementwise::Unary(f)));
    }
    for &f in BINARY {
        let op = morf_tensor::ops::binary_op(f).name;
        cases.push((format!("%0 = {op} %a, %b : {ty}"), Elementwise::Binary(f)));
    }
    for (line, ew) in cases {
        let text = format!("func.func @f({args}) -> {ty} {{\n  {line}\n  return %0 : {ty}\n}}");
        let (mut ctx, m, _) = parse_program(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let mut pass = registry().create("lower-tensor-to-loop", "").expect("the pass exists");
        pass.run(&mut ctx, m).unwrap_or_else(|d| panic!("{}\n{text}", ctx.render(&d)));
        let lowered: Vec<OpId> =
            ctx.walk_collect(m).into_iter().filter(|o| elementwise(&ctx, *o) == Some(ew)).collect();
        assert_eq!(lowered.len(), 1, "{ew:?}: expected one op of the function after lowering\n{text}");
        let f32t = ctx.f32_type();
        let scalar = ctx.results(lowered[0]).first().is_some_and(|r| ctx.value_type(*r) == f32t);
        assert!(scalar, "{ew:?} lowered to '{}', not a scalar op", ctx.op_name(lowered[0]));
        for seed in 0..4u64 {
            let inputs = |ctx: &Context, f: OpId| signature_inputs(ctx, f, seed);
            assert_eq!(check(&text, &inputs, true), Ok(true), "{ew:?} (seed {seed})\n{text}");
        }
    }
}
