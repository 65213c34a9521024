//! The f32 `exp`, `log`, `tanh`, `erf` and `pow` of the PTX emitter, measured on the GPU: tiny
//! `mtensor` programs (`%y = mtensor.exp %x`, ...) over 2^20 chosen f32 inputs (a log-spaced
//! sweep over the whole f32 range, both signs, a dense sweep of the interesting interval, and
//! the special values) go through the `gpu` pipeline and PTX, run on GPU 0, and each element is
//! compared with the f64 function of its input (Rust's `exp`, `ln`, `tanh`, `powf`;
//! `morf_ir::numerics::erf`).
//!
//! The error of an element is `|out - ref| / max(|ref|, f32::MIN_POSITIVE)`: relative, except
//! that subnormal results are measured against the smallest normal f32 (their precision is
//! absolute). `exp`, `log`, `tanh` and `erf` (the accurate sequences, the default without fast-math)
//! must stay within 4e-7 and give the special values exactly; `pow`, which is
//! `ex2.approx(y * lg2.approx(x))` in both modes, is held to the bound of that sequence,
//! `6e-7 + 4e-7 |y log2 x| + 3e-7 |y|` per element (lg2.approx's absolute error near 1 is
//! scaled by y; docs/target-ptx.md). The maximum errors are printed.
//!
//! Without a CUDA driver or device the test prints "skipping" and passes: the PTX is not run
//! anywhere else (the simulator runs the `mgpu` IR). The instruction sequences are modelled
//! without a GPU by `passes/tests/ptx_math_model.py`.
//!
//! `tools/morf-run/scripts/gpu-difftest.sh` runs it as its `math` step.

use std::rc::Rc;

use morf_engine::compile::{compile_for_gpu, GpuProgram, GPU_PIPELINE};
use morf_engine::{load_module, new_context, select_function};
use morf_ir::interp::{Array, RtValue};
use morf_runtime::Gpu;

/// 2^20 elements per program.
const N: usize = 1 << 20;
/// The bound of the accurate sequences.
const BOUND: f64 = 4e-7;

/// GPU 0, or `None` (with a message) where there is no driver or no device.
fn gpu() -> Option<Gpu> {
    if !morf_runtime::cuda_available() {
        eprintln!("skipping: no CUDA driver");
        return None;
    }
    match Gpu::new(0) {
        Ok(g) => Some(g),
        Err(e) => {
            eprintln!("skipping: {e}");
            None
        }
    }
}

/// `n` magnitudes spaced evenly in log2 from 2^-149 (the smallest subnormal) to just below 2^128.
fn log_spaced(n: usize) -> Vec<f32> {
    (0..n).map(|i| (2f64).powf(-149.0 + 277.0 * i as f64 / n as f64) as f32).collect()
}

/// `n` values spaced evenly over [lo, hi].
fn linear(n: usize, lo: f64, hi: f64) -> Vec<f32> {
    (0..n).map(|i| (lo + (hi - lo) * i as f64 / (n - 1) as f64) as f32).collect()
}

/// Pads or cuts `v` to exactly [`N`] values (padding with 1.0).
fn fit(mut v: Vec<f32>) -> Vec<f32> {
    v.resize(N, 1.0);
    v
}

/// The special values every unary function is run on.
fn specials() -> Vec<f32> {
    let mut v = vec![
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        0.0,
        -0.0,
        1.0,
        -1.0,
        4.5,
        -4.5,
        f32::MIN_POSITIVE,
        -f32::MIN_POSITIVE,
        f32::from_bits(1),
        -f32::from_bits(1),
        f32::MAX,
        -f32::MAX,
        88.72283,
        88.72284,
        89.0,
        -87.33655,
        -103.27893,
        -103.97208,
        -104.0,
        0.625,
        -0.625,
        0.9,
        -0.9,
        0.55,
        1e-30,
        -1e-30,
        3.92,
        -3.92,
        30.0,
    ];
    v.extend((1..200).map(|i| f32::from_bits(i * 37)));
    v
}

/// Both signs of the log-spaced sweep, a dense sweep of [lo, hi], and the special values.
fn unary_inputs(lo: f64, hi: f64) -> Vec<f32> {
    let mags = log_spaced(N / 4);
    let mut v: Vec<f32> = specials();
    v.extend(mags.iter().copied());
    v.extend(mags.iter().map(|m| -m));
    v.extend(linear(N - v.len(), lo, hi));
    fit(v)
}

/// Compiles `text` for the GPU and runs it on the f32 tensors `inputs`; the f32 results.
fn run(gpu: &Gpu, name: &str, text: &str, inputs: &[Vec<f32>]) -> Vec<f64> {
    let mut rctx = new_context(false);
    let module = load_module(&mut rctx, name, text).unwrap_or_else(|e| panic!("{name}: {e}"));
    let func = select_function(&rctx, module, None, name).unwrap_or_else(|e| panic!("{name}: {e}"));
    let region = rctx.regions(func)[0];
    let block = rctx.entry_block(region).expect("function body");
    let args: Vec<RtValue> = rctx
        .block_args(block)
        .iter()
        .zip(inputs)
        .map(|(p, data)| {
            let elem = rctx.element_type(rctx.value_type(*p));
            let array = Array::new(vec![data.len()], data.iter().map(|&x| f64::from(x)).collect());
            RtValue::Tensor { elem, array: Rc::new(array) }
        })
        .collect();
    let prog: GpuProgram = compile_for_gpu(gpu, name, text, None, false, GPU_PIPELINE, None)
        .unwrap_or_else(|e| panic!("{name}: compiling for the GPU: {e}"));
    let outs = prog.run(gpu, &args).unwrap_or_else(|e| panic!("{name}: running on the GPU: {e}"));
    match &outs[0] {
        RtValue::Tensor { array, .. } => array.data.clone(),
        RtValue::Buffer { data, .. } => data.borrow().data.clone(),
        other => panic!("{name}: unexpected result {other:?}"),
    }
}

/// The program `%y = mtensor.<op> %x[, %z]` over `tensor<Nxf32>`.
fn program(op: &str, binary: bool) -> String {
    let t = format!("tensor<{N}xf32>");
    if binary {
        format!(
            "func.func @{op}(%x: {t}, %z: {t}) -> {t} {{\n  %y = mtensor.{op} %x, %z : {t}\n  return %y : {t}\n}}\n"
        )
    } else {
        format!("func.func @{op}(%x: {t}) -> {t} {{\n  %y = mtensor.{op} %x : {t}\n  return %y : {t}\n}}\n")
    }
}

/// The error of `out` against the f64 reference `r`, or `None` where the output must be exact
/// (`r` NaN, infinite or zero). A finite `r` that rounds to an infinite f32 accepts that
/// infinity.
fn element_error(out: f64, r: f64) -> Option<f64> {
    if r.is_nan() || r.is_infinite() || r == 0.0 {
        return None;
    }
    if (r as f32).is_infinite() && out == f64::from(r as f32) {
        return Some(0.0);
    }
    Some((out - r).abs() / r.abs().max(f64::from(f32::MIN_POSITIVE)))
}

/// Whether `out` is exactly the f32 rounding of `r` (NaN matches NaN, zeros by sign).
fn exact(out: f64, r: f64) -> bool {
    let r32 = r as f32;
    if r32.is_nan() {
        return out.is_nan();
    }
    out == f64::from(r32) && (out != 0.0 || out.is_sign_negative() == r32.is_sign_negative())
}

/// Checks a unary function: prints and returns (max error, its input, exact-value failures).
fn check_unary(gpu: &Gpu, op: &str, f: fn(f64) -> f64, lo: f64, hi: f64) -> (f64, f32, Vec<String>) {
    let xs = unary_inputs(lo, hi);
    let out = run(gpu, op, &program(op, false), std::slice::from_ref(&xs));
    let (mut worst, mut at, mut bad) = (0f64, 0f32, Vec::new());
    for (&x, &o) in xs.iter().zip(&out) {
        let r = f(f64::from(x));
        match element_error(o, r) {
            Some(e) => {
                // NaN where a finite result is due counts as the worst.
                let e = if e.is_nan() { f64::INFINITY } else { e };
                if e > worst {
                    worst = e;
                    at = x;
                }
            }
            None if !exact(o, r) && bad.len() < 20 => bad.push(format!("{op}({x:e}) = {o:e}, want {:e}", r as f32)),
            None => {}
        }
    }
    // Exact special values, also where the error measure applies.
    for (x, want) in special_expectations(op) {
        let i = xs.iter().position(|v| v.to_bits() == x.to_bits()).expect("special value among the inputs");
        let o = out[i];
        let ok = if want.is_nan() {
            o.is_nan()
        } else {
            o == f64::from(want) && o.is_sign_negative() == want.is_sign_negative()
        };
        if !ok {
            bad.push(format!("{op}({x:e}) = {o:e}, want {want:e}"));
        }
    }
    println!("| {op} | {worst:.3e} | {at:e} | {} |", bad.len());
    (worst, at, bad)
}

/// The special values of `op` (input, exact output).
fn special_expectations(op: &str) -> Vec<(f32, f32)> {
    let (inf, nan) = (f32::INFINITY, f32::NAN);
    match op {
        "exp" => vec![(nan, nan), (-inf, 0.0), (inf, inf), (0.0, 1.0), (-0.0, 1.0), (89.0, inf), (-104.0, 0.0)],
        "log" => vec![(nan, nan), (0.0, -inf), (-0.0, -inf), (-1.0, nan), (-inf, nan), (inf, inf), (1.0, 0.0)],
        "tanh" => vec![
            (nan, nan),
            (inf, 1.0),
            (-inf, -1.0),
            (0.0, 0.0),
            (-0.0, -0.0),
            (f32::from_bits(1), f32::from_bits(1)),
            (-f32::from_bits(1), -f32::from_bits(1)),
            (1e-30, 1e-30),
            (-1e-30, -1e-30),
        ],
        "erf" => vec![
            (nan, nan),
            (inf, 1.0),
            (-inf, -1.0),
            (0.0, 0.0),
            (-0.0, -0.0),
            (f32::from_bits(1), f32::from_bits(1)),
            (-f32::from_bits(1), -f32::from_bits(1)),
            // From 3.9192 on erf rounds to 1; the sequence's 2^R(|x|) stays below 2^-25 beyond.
            (3.92, 1.0),
            (-3.92, -1.0),
            (4.5, 1.0),
            (-4.5, -1.0),
            (30.0, 1.0),
            (f32::MAX, 1.0),
            (-f32::MAX, -1.0),
        ],
        _ => vec![],
    }
}

#[test]
fn accurate_math_on_the_gpu() {
    let Some(gpu) = gpu() else { return };
    println!("== gpu math: max elementwise relative error over {N} inputs per function (bound {BOUND:e}) ==");
    println!("| function | max error | at x | exact-value failures |");
    let mut failures = Vec::new();
    for (op, f, lo, hi) in [
        ("exp", f64::exp as fn(f64) -> f64, -104.0, 89.0),
        ("log", f64::ln, 0.0, 4.0),
        ("tanh", f64::tanh, -10.0, 10.0),
        ("erf", morf_ir::numerics::erf, -6.0, 6.0),
    ] {
        let (worst, at, bad) = check_unary(&gpu, op, f, lo, hi);
        if worst > BOUND {
            failures.push(format!("{op}: max error {worst:e} at x = {at:e} (bound {BOUND:e})"));
        }
        failures.extend(bad);
    }

    // pow(x, y): x log-spaced over [2^-20, 2^20] (positive: the sequence is NaN for x < 0),
    // y over [-6, 6], so that the results stay in range; pow(x, 0) = pow(1, y) = 1.
    let xs: Vec<f32> = (0..N).map(|i| (2f64).powf(-20.0 + 40.0 * ((i * 7919) % N) as f64 / N as f64) as f32).collect();
    let mut ys: Vec<f32> = linear(N, -6.0, 6.0);
    let mut xs = xs;
    for i in 0..64 {
        ys[i] = 0.0;
        xs[N - 1 - i] = 1.0;
    }
    let out = run(&gpu, "pow", &program("pow", true), &[xs.clone(), ys.clone()]);
    let (mut worst, mut worst_scaled, mut at) = (0f64, 0f64, (0f32, 0f32));
    for ((&x, &y), &o) in xs.iter().zip(&ys).zip(&out) {
        let r = f64::from(x).powf(f64::from(y));
        let e = element_error(o, r).unwrap_or(if exact(o, r) { 0.0 } else { f64::INFINITY });
        let e = if e.is_nan() { f64::INFINITY } else { e };
        let allowed = 6e-7 + 4e-7 * (f64::from(y) * f64::from(x).log2()).abs() + 3e-7 * f64::from(y).abs();
        if e > worst {
            worst = e;
            at = (x, y);
        }
        worst_scaled = worst_scaled.max(e / allowed);
        if (x == 1.0 || y == 0.0) && o != 1.0 && failures.len() < 40 {
            failures.push(format!("pow({x:e}, {y:e}) = {o:e}, want 1"));
        }
    }
    println!("| pow | {worst:.3e} | ({:e}, {:e}) | - |", at.0, at.1);
    println!("pow: max error / (6e-7 + 4e-7 |y log2 x| + 3e-7 |y|) = {worst_scaled:.3}");
    if worst_scaled > 1.0 {
        failures.push(format!("pow: error exceeds 6e-7 + 4e-7 |y log2 x| + 3e-7 |y| (ratio {worst_scaled:.3})"));
    }
    for f in &failures {
        println!("FAIL {f}");
    }
    assert!(failures.is_empty(), "{} failures of the GPU math check", failures.len());
}
