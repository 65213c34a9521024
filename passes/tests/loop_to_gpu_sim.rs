//! Differential testing of `lower-loop-to-gpu`: every example in `examples/` and random
//! `mtensor` programs (`morf_tensor::progen`) run in the tensor interpreter (the reference),
//! go through the `gpu` pipeline (lower, fuse, cleanup, `lower-loop-to-gpu`), are verified and
//! run with every `mgpu.launch` on the CPU simulator (`morf_gpu::sim`). Each result must be
//! within the numerics contract (relative L2 error at most 1e-5 for f32/f64, 1e-2 for
//! bf16/f16; NaN never passes). Small sizes and small grids (the simulator is slow, and small
//! grids make every CTA loop over several rows, splits or elements).

use std::cell::RefCell;
use std::rc::Rc;

use morf_ir::interp::{run_function, Array, RtValue};
use morf_ir::numerics::{relative_error, tolerance};
use morf_ir::pass::PassRegistry;
use morf_ir::{builtin::func_type, parse_source, print_op, verify, AttrData, Context, FloatKind, OpId, PrintOptions};
use morf_tensor::progen::{generate, random_inputs, shrink, GenConfig, Rng};

/// Random programs checked per option set.
const PROGRAMS: u64 = 50;

/// `lower-loop-to-gpu` option sets: tiny grids (a warp per row, shared partials), a CTA per
/// row (global partials), and the heuristic's defaults.
const GPU_OPTIONS: &[&str] = &["grid=2 threads=64", "grid=3 threads=64 threads-per-row=64", ""];

/// `fuse-mixed-reductions` options: defaults, and fusion made attractive everywhere.
const FUSE_OPTIONS: &[&str] = &["", "default-hint=1000000 device=launch=1e-3"];

fn context() -> Context {
    let mut ctx = Context::new();
    morf_tensor::register(&mut ctx);
    morf_loop::register(&mut ctx);
    morf_gpu::register(&mut ctx);
    ctx
}

fn first_function(ctx: &Context, module: OpId) -> Option<OpId> {
    let r = *ctx.regions(module).first()?;
    let b = ctx.entry_block(r)?;
    ctx.block_ops(b).find(|o| ctx.op_name(*o) == "func.func")
}

fn run(ctx: &Context, f: OpId, inputs: &Inputs) -> Result<Results, String> {
    let fty = func_type(ctx, f).ok_or("no function type")?;
    let ins = ctx.function_parts(fty).ok_or("bad function type")?.0.to_vec();
    let mut args = Vec::new();
    for (t, (shape, data)) in ins.iter().zip(inputs) {
        let elem = ctx.element_type(*t);
        let array = Array::new(shape.clone(), data.clone());
        args.push(if ctx.is_tensor(*t) {
            RtValue::Tensor { elem, array: Rc::new(array) }
        } else {
            RtValue::Buffer { elem, data: Rc::new(RefCell::new(array)) }
        });
    }
    let outs = run_function(ctx, f, args).map_err(|d| ctx.render(&d))?;
    Ok(outs
        .into_iter()
        .map(|o| match o {
            RtValue::Tensor { elem, array } => (array.shape.clone(), array.data.clone(), ctx.float_kind(elem)),
            RtValue::Buffer { elem, data } => {
                let a = data.borrow();
                (a.shape.clone(), a.data.clone(), ctx.float_kind(elem))
            }
            other => (vec![], vec![other.as_float().or(other.as_int().map(|i| i as f64)).unwrap_or(f64::NAN)], None),
        })
        .collect())
}

type Results = Vec<(Vec<usize>, Vec<f64>, Option<FloatKind>)>;
type Inputs = Vec<(Vec<usize>, Vec<f64>)>;

/// Results within the numerics contract (NaN never passes).
fn close(reference: &Results, out: &Results) -> Result<(), String> {
    if reference.len() != out.len() {
        return Err(format!("{} results vs {}", reference.len(), out.len()));
    }
    for (i, (r, o)) in reference.iter().zip(out).enumerate() {
        if r.0 != o.0 || r.1.len() != o.1.len() {
            return Err(format!("result {i}: shape {:?} vs {:?}", r.0, o.0));
        }
        let (mut rf, mut of) = (Vec::new(), Vec::new());
        for (p, q) in r.1.iter().zip(&o.1) {
            if q.is_nan() {
                return Err(format!("result {i}: NaN after fusion"));
            }
            if p.is_infinite() || q.is_infinite() {
                if p != q {
                    return Err(format!("result {i}: {p} vs {q}"));
                }
            } else {
                rf.push(*p);
                of.push(*q);
            }
        }
        let tol = r.2.map(tolerance).unwrap_or(0.0);
        let err = relative_error(&of, &rf);
        if err.is_nan() || err > tol {
            return Err(format!("result {i}: relative error {err:e} exceeds {tol:e}"));
        }
    }
    Ok(())
}

/// What one check did.
#[derive(Debug, PartialEq)]
enum Outcome {
    /// Not checked (the reference fails or has NaNs).
    Skipped,
    /// Checked; `true` when a row-fused kernel was lowered.
    Checked(bool),
    /// Checked; a row-fused kernel with the register-resident fast path was lowered.
    Fast,
}

/// Parses, runs the tensor reference, lowers through the GPU pipeline (`fuse` options
/// `fuse_opts`, `lower-loop-to-gpu` options `gpu_opts`), verifies, runs the host function
/// with every launch on the simulator and compares.
fn check(
    text: &str,
    inputs: &dyn Fn(&Context, OpId) -> Inputs,
    fuse_opts: &str,
    gpu_opts: &str,
) -> Result<Outcome, String> {
    let mut ctx = context();
    let m = parse_source(&mut ctx, "gen.mlir", text, 0)
        .map_err(|d| format!("invalid: does not parse: {}", ctx.render(&d)))?;
    verify(&ctx, m).map_err(|d| format!("invalid: does not verify: {}", ctx.render(&d)))?;
    let f = first_function(&ctx, m).ok_or("no function")?;
    let ins = inputs(&ctx, f);
    let Ok(before) = run(&ctx, f, &ins) else { return Ok(Outcome::Skipped) };
    if before.iter().any(|x| x.1.iter().any(|v| v.is_nan())) {
        return Ok(Outcome::Skipped);
    }
    let mut reg = PassRegistry::default();
    morf_passes::register_all(&mut reg);
    for (pass, opts) in [
        ("lower-tensor-to-loop", ""),
        ("canonicalize", ""),
        ("cse", ""),
        ("fuse-mixed-reductions", fuse_opts),
        ("canonicalize", ""),
        ("cse", ""),
        ("lower-loop-to-gpu", gpu_opts),
    ] {
        let mut p = reg.create(pass, opts)?;
        p.run(&mut ctx, m).map_err(|d| format!("{pass} failed: {}", ctx.render(&d)))?;
    }
    let printed = print_op(&ctx, m, &PrintOptions::default());
    verify(&ctx, m).map_err(|d| format!("GPU IR does not verify: {}\n{printed}", ctx.render(&d)))?;
    let after = run(&ctx, f, &ins).map_err(|e| format!("GPU program fails: {e}\n{printed}"))?;
    close(&before, &after).map_err(|e| format!("{e}\nGPU IR:\n{printed}"))?;
    if printed.contains("fast: N=") {
        return Ok(Outcome::Fast);
    }
    Ok(Outcome::Checked(printed.contains("RowFused")))
}

/// Inputs from a signature: `morf.dims` names sized from `rng` (`sizes`), normal values
/// (positive for `morf.random = "positive"`), rounded to each dtype.
fn signature_inputs(ctx: &Context, f: OpId, seed: u64, sizes: &[usize]) -> Inputs {
    named_inputs(ctx, f, seed, sizes, &[])
}

/// As [`signature_inputs`], with the dims named in `fixed` given their sizes.
fn named_inputs(ctx: &Context, f: OpId, seed: u64, sizes: &[usize], fixed: &[(&str, usize)]) -> Inputs {
    let mut rng = Rng::new(seed);
    let mut named: Vec<(String, usize)> = Vec::new();
    let fty = func_type(ctx, f).expect("function type");
    let ins = ctx.function_parts(fty).expect("function").0.to_vec();
    let arg_attrs: Vec<Option<morf_ir::Attr>> = match ctx.attr(f, "arg_attrs").and_then(|a| ctx.attr_array(a)) {
        Some(v) => v.iter().map(|a| Some(*a)).collect(),
        None => vec![None; ins.len()],
    };
    let lookup = |d: Option<morf_ir::Attr>, key: &str| -> Option<morf_ir::Attr> {
        match ctx.attr_data(d?) {
            AttrData::Dict(es) => es.iter().find(|(k, _)| ctx.str(*k) == key).map(|(_, v)| *v),
            _ => None,
        }
    };
    let mut out = Vec::new();
    for (i, t) in ins.iter().enumerate() {
        let shape = ctx.shape_of(*t).unwrap_or(&[]).to_vec();
        let names: Vec<String> = lookup(arg_attrs[i], "morf.dims")
            .and_then(|a| {
                ctx.attr_array(a).map(|v| v.iter().map(|x| ctx.attr_str(*x).unwrap_or("").to_string()).collect())
            })
            .unwrap_or_default();
        let positive = lookup(arg_attrs[i], "morf.random").and_then(|a| ctx.attr_str(a)) == Some("positive");
        let mut dims = Vec::new();
        for (k, d) in shape.iter().enumerate() {
            dims.push(match d {
                morf_ir::Dim::Static(n) => *n as usize,
                morf_ir::Dim::Dynamic => {
                    let name = names.get(k).cloned().unwrap_or_else(|| format!("arg{i}.{k}"));
                    match named.iter().find(|(n, _)| *n == name) {
                        Some((_, s)) => *s,
                        None if fixed.iter().any(|(n, _)| *n == name) => {
                            let s = fixed.iter().find(|(n, _)| *n == name).unwrap().1;
                            named.push((name, s));
                            s
                        }
                        None => {
                            let s = *rng.pick(sizes);
                            named.push((name, s));
                            s
                        }
                    }
                }
            });
        }
        let kind = ctx.float_kind(ctx.element_type(*t)).unwrap_or(FloatKind::F64);
        let n: usize = dims.iter().product();
        let data = (0..n)
            .map(|_| {
                let x = rng.normal();
                kind.round(if positive { 0.5 + x.abs() } else { x })
            })
            .collect();
        out.push((dims, data));
    }
    out
}

#[test]
fn examples_lower_to_gpu_and_agree() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples");
    let mut names: Vec<_> = std::fs::read_dir(dir).expect("examples dir").flatten().map(|e| e.path()).collect();
    names.sort();
    let (mut checked, mut row_fused) = (0, 0);
    for path in names.iter().filter(|p| p.extension().is_some_and(|e| e == "mlir")) {
        let text = std::fs::read_to_string(path).expect("read example");
        for (seed, sizes) in [(0u64, &[1usize, 7][..]), (1, &[1, 33, 40]), (2, &[3, 67])] {
            let inputs = |ctx: &Context, f: OpId| signature_inputs(ctx, f, seed, sizes);
            for fuse in FUSE_OPTIONS {
                for gpu in GPU_OPTIONS {
                    match check(&text, &inputs, fuse, gpu) {
                        Ok(Outcome::Checked(c)) => {
                            checked += 1;
                            row_fused += c as usize;
                        }
                        Ok(Outcome::Fast) => {
                            checked += 1;
                            row_fused += 1;
                        }
                        Ok(Outcome::Skipped) => {}
                        Err(e) => panic!("{} (seed {seed}, fuse '{fuse}', gpu '{gpu}'): {e}", path.display()),
                    }
                }
            }
        }
    }
    eprintln!("lower-loop-to-gpu: {checked} example runs checked, {row_fused} with a row-fused kernel");
    assert!(checked >= 60, "only {checked} example runs were checked");
    assert!(row_fused >= 10, "only {row_fused} example runs had a row-fused kernel");
}

#[test]
fn random_programs_lower_to_gpu_and_agree() {
    let cfg = GenConfig::default();
    let mut failures = Vec::new();
    let mut checked = 0u64;
    for seed in 0..PROGRAMS {
        let p = generate(seed, &cfg);
        let inputs =
            |_: &Context, _: OpId| -> Inputs { random_inputs(&p, seed).into_iter().map(|(s, d, _)| (s, d)).collect() };
        let fuse = FUSE_OPTIONS[(seed % 2) as usize];
        let gpu = GPU_OPTIONS[(seed % 3) as usize];
        match check(&p.text, &inputs, fuse, gpu) {
            Ok(Outcome::Checked(_) | Outcome::Fast) => checked += 1,
            Ok(Outcome::Skipped) => {}
            Err(e) => {
                let small =
                    shrink(&p.text, &|t| check(t, &inputs, fuse, gpu).is_err_and(|e| !e.starts_with("invalid:")));
                failures.push(format!(
                    "seed {seed} (fuse '{fuse}', gpu '{gpu}'): {e}\nprogram:\n{}\nshrunk:\n{small}",
                    p.text
                ));
            }
        }
    }
    eprintln!("lower-loop-to-gpu: {PROGRAMS} random programs, {checked} checked");
    assert!(checked >= PROGRAMS * 7 / 10, "only {checked} programs were checked");
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n\n"));
}

/// The register-resident fast path of row-fused kernels (hinted N, guarded at run time):
/// the norm backward examples at N = 100 (vector 4 for bf16), 384 (a partial last chunk for
/// bf16), 1 (vector 1), 520 (a CTA per row) and M = 1, 7, 40 (several splits, a tiny grid:
/// every CTA loops over splits; M not a multiple of the rows in flight), against the
/// interpreter; and a hint that does not match the run-time N (the slow path runs).
#[test]
fn fast_path_agrees() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples");
    let mut fast = 0;
    for name in ["rmsnorm_bwd", "layernorm_bwd", "rmsnorm_bwd_f32", "layernorm_bwd_f32"] {
        let text = std::fs::read_to_string(format!("{dir}/{name}.mlir")).expect("read example");
        for (m, n, hint, gpu) in [
            (7, 100, 100, "grid=2"),
            (40, 384, 384, "grid=2 threads=64"),
            (1, 384, 384, ""),
            (7, 1, 1, "grid=3 threads=64"),
            (40, 520, 520, "grid=2"),
            (23, 8, 8, "grid=1 rows-per-cta=3"),
            (7, 67, 100, "grid=2"),
        ] {
            let inputs = |ctx: &Context, f: OpId| named_inputs(ctx, f, 5, &[1], &[("M", m), ("N", n)]);
            let gpu = format!("{gpu} size-hints=N={hint}");
            let fuse = format!("size-hints=M=1000000,N={hint} device=launch=1e-3");
            match check(&text, &inputs, &fuse, &gpu) {
                Ok(Outcome::Fast) => fast += 1,
                Ok(Outcome::Checked(true)) => {
                    assert!(hint != n, "{name} M={m} N={n} '{gpu}': a row-fused kernel without the fast path")
                }
                Ok(_) => {}
                Err(e) => panic!("{name} M={m} N={n} '{gpu}': {e}"),
            }
        }
    }
    assert!(fast >= 24, "only {fast} runs took the fast path");
}
