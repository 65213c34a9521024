//! Differential testing of `fuse-mixed-reductions`: every example in `examples/` and random
//! `mtensor` programs (`morf_tensor::progen`) run in the tensor interpreter (the reference),
//! are lowered (`lower-tensor-to-loop`), fused (`fuse-mixed-reductions`), verified, and run in
//! the loop interpreter. Each result must be within the numerics contract: equal shapes,
//! relative L2 error at most the tolerance of its dtype (1e-5 for f32/f64, 1e-2 for bf16/f16;
//! partial accumulation changes the fp32 summation order), infinities equal, and NaN never
//! passes (a reference with NaNs is not checked). A mismatch prints the seed, the options and
//! a shrunk program.
//!
//! Two option sets run: the defaults, and a configuration that makes fusion pay everywhere
//! (large size hints, expensive launches), so that the random programs exercise the
//! materialization of partials, finals and row kernels. Also: 64 independent RMSNorm
//! backwards in one function must be searched and rewritten in under a second (release).

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Instant;

use morf_ir::interp::{run_function, Array, RtValue};
use morf_ir::numerics::{relative_error, tolerance};
use morf_ir::pass::PassRegistry;
use morf_ir::{builtin::func_type, parse_source, print_op, verify, AttrData, Context, FloatKind, OpId, PrintOptions};
use morf_tensor::progen::{generate, random_inputs, shrink, GenConfig, Rng};

/// Random programs checked per option set.
const PROGRAMS: u64 = 300;

/// The option sets: defaults, and fusion made attractive everywhere.
const OPTION_SETS: &[&str] = &["", "default-hint=4096 device=launch=1e-3"];

type Results = Vec<(Vec<usize>, Vec<f64>, Option<FloatKind>)>;
type Inputs = Vec<(Vec<usize>, Vec<f64>)>;

fn context() -> Context {
    let mut ctx = Context::new();
    morf_tensor::register(&mut ctx);
    morf_loop::register(&mut ctx);
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
    /// Checked; `true` when the pass changed the kernels (partials or row fusion).
    Checked(bool),
}

/// Parses, runs the reference, lowers, fuses with `options`, verifies, runs and compares.
fn check(text: &str, inputs: &dyn Fn(&Context, OpId) -> Inputs, options: &str) -> Result<Outcome, String> {
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
    let mut lower = reg.create("lower-tensor-to-loop", "")?;
    lower.run(&mut ctx, m).map_err(|d| format!("lowering failed: {}", ctx.render(&d)))?;
    let lowered = print_op(&ctx, m, &PrintOptions::default());
    let nests_before = lowered.lines().filter(|l| l.starts_with("    mloop.parallel")).count();
    let mut fuse = reg.create("fuse-mixed-reductions", options)?;
    fuse.run(&mut ctx, m).map_err(|d| format!("fusion failed: {}", ctx.render(&d)))?;
    let printed = print_op(&ctx, m, &PrintOptions::default());
    let nests_after = printed.matches("morf.kernel").count();
    verify(&ctx, m).map_err(|d| format!("fused IR does not verify: {}\n{printed}", ctx.render(&d)))?;
    let after = run(&ctx, f, &ins).map_err(|e| format!("fused program fails: {e}\n{printed}"))?;
    close(&before, &after).map_err(|e| format!("{e}\nfused IR:\n{printed}"))?;
    let changed = printed.contains("\"final\"") || printed.contains("\"row-fused\"") || nests_after < nests_before;
    Ok(Outcome::Checked(changed))
}

/// Inputs from a signature: `morf.dims` names sized from `rng` (`sizes`), normal values
/// (positive for `morf.random = "positive"`), rounded to each dtype.
fn signature_inputs(ctx: &Context, f: OpId, seed: u64, sizes: &[usize]) -> Inputs {
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
fn examples_fuse_and_agree() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples");
    let mut names: Vec<_> = std::fs::read_dir(dir).expect("examples dir").flatten().map(|e| e.path()).collect();
    names.sort();
    let (mut checked, mut fused) = (0, 0);
    for path in names.iter().filter(|p| p.extension().is_some_and(|e| e == "mlir")) {
        let text = std::fs::read_to_string(path).expect("read example");
        for seed in 0..3u64 {
            let inputs = |ctx: &Context, f: OpId| signature_inputs(ctx, f, seed, &[1, 3, 17, 40, 67]);
            for options in OPTION_SETS.iter().chain(&["size-hints=M=576000,N=384"]) {
                match check(&text, &inputs, options) {
                    Ok(Outcome::Checked(c)) => {
                        checked += 1;
                        fused += c as usize;
                    }
                    Ok(Outcome::Skipped) => {}
                    Err(e) => panic!("{} (seed {seed}, options '{options}'): {e}", path.display()),
                }
            }
        }
    }
    eprintln!("fuse-mixed-reductions: {checked} example runs checked, {fused} of them fused");
    assert!(checked >= 60, "only {checked} example runs were checked");
    assert!(fused >= 30, "only {fused} example runs were fused");
}

#[test]
fn random_programs_fuse_and_agree() {
    // Rank-2 programs with more ops make more mixed-order reductions.
    let dense = GenConfig { max_rank: 2, max_ops: 20, ..GenConfig::default() };
    let runs =
        [(GenConfig::default(), OPTION_SETS[0]), (GenConfig::default(), OPTION_SETS[1]), (dense, OPTION_SETS[1])];
    let mut failures = Vec::new();
    let mut total_fused = 0;
    for (cfg, options) in &runs {
        let (mut checked, mut fused) = (0u64, 0u64);
        for seed in 0..PROGRAMS {
            let p = generate(seed, cfg);
            let inputs = |_: &Context, _: OpId| -> Inputs {
                random_inputs(&p, seed).into_iter().map(|(s, d, _)| (s, d)).collect()
            };
            match check(&p.text, &inputs, options) {
                Ok(Outcome::Checked(c)) => {
                    checked += 1;
                    fused += c as u64;
                }
                Ok(Outcome::Skipped) => {}
                Err(e) => {
                    let small =
                        shrink(&p.text, &|t| check(t, &inputs, options).is_err_and(|e| !e.starts_with("invalid:")));
                    failures.push(format!(
                        "seed {seed} (max_rank {}, options '{options}'): {e}\nprogram:\n{}\nshrunk:\n{small}",
                        cfg.max_rank, p.text
                    ));
                }
            }
        }
        eprintln!(
            "fuse-mixed-reductions (max_rank {}, max_ops {}, '{options}'): {PROGRAMS} random programs, \
             {checked} checked, {fused} rewritten",
            cfg.max_rank, cfg.max_ops
        );
        assert!(checked >= PROGRAMS * 8 / 10, "only {checked} programs were checked");
        total_fused += fused;
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n\n"));
    assert!(total_fused >= 100, "only {total_fused} programs were rewritten");
}

/// `count` independent RMSNorm backwards (bf16) in one function.
fn many_rmsnorms(count: usize) -> String {
    let mut args = Vec::new();
    let mut body = String::new();
    let mut rets = Vec::new();
    for k in 0..count {
        args.push(format!(
            "%x{k}: tensor<?x?xbf16> {{morf.dims = [\"M\", \"N\"]}}, %w{k}: tensor<?xbf16> {{morf.dims = [\"N\"]}}, \
             %dy{k}: tensor<?x?xbf16> {{morf.dims = [\"M\", \"N\"]}}, %rstd{k}: tensor<?xf32> {{morf.dims = [\"M\"]}}"
        ));
        body.push_str(&format!(
            "  %m{k} = mtensor.dim %x{k}, 0 : tensor<?x?xbf16>
  %n{k} = mtensor.dim %x{k}, 1 : tensor<?x?xbf16>
  %xf{k} = mtensor.convert %x{k} : tensor<?x?xbf16> to tensor<?x?xf32>
  %wf{k} = mtensor.convert %w{k} : tensor<?xbf16> to tensor<?xf32>
  %dyf{k} = mtensor.convert %dy{k} : tensor<?x?xbf16> to tensor<?x?xf32>
  %wb{k} = mtensor.broadcast %wf{k} dims [1] sizes(%m{k}, %n{k}) : tensor<?xf32> -> tensor<?x?xf32>
  %rb{k} = mtensor.broadcast %rstd{k} dims [0] sizes(%m{k}, %n{k}) : tensor<?xf32> -> tensor<?x?xf32>
  %xhat{k} = mtensor.mul %xf{k}, %rb{k} : tensor<?x?xf32>
  %dyw{k} = mtensor.mul %dyf{k}, %wb{k} : tensor<?x?xf32>
  %t{k} = mtensor.mul %dyw{k}, %xhat{k} : tensor<?x?xf32>
  %c{k} = mtensor.reduce mean %t{k} dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %cb{k} = mtensor.broadcast %c{k} dims [0] sizes(%m{k}, %n{k}) : tensor<?xf32> -> tensor<?x?xf32>
  %xc{k} = mtensor.mul %xhat{k}, %cb{k} : tensor<?x?xf32>
  %d{k} = mtensor.sub %dyw{k}, %xc{k} : tensor<?x?xf32>
  %dxf{k} = mtensor.mul %rb{k}, %d{k} : tensor<?x?xf32>
  %g{k} = mtensor.mul %dyf{k}, %xhat{k} : tensor<?x?xf32>
  %dwf{k} = mtensor.reduce sum %g{k} dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  %dx{k} = mtensor.convert %dxf{k} : tensor<?x?xf32> to tensor<?x?xbf16>
  %dw{k} = mtensor.convert %dwf{k} : tensor<?xf32> to tensor<?xbf16>
"
        ));
        rets.push((format!("%dx{k}, %dw{k}"), "tensor<?x?xbf16>, tensor<?xbf16>"));
    }
    let names: Vec<String> = rets.iter().map(|r| r.0.clone()).collect();
    let types: Vec<&str> = rets.iter().map(|r| r.1).collect();
    format!(
        "func.func @many({}) -> ({}) {{\n{body}  return {} : {}\n}}\n",
        args.join(", "),
        types.join(", "),
        names.join(", "),
        types.join(", ")
    )
}

#[test]
fn sixty_four_rmsnorms_compile_fast() {
    let text = many_rmsnorms(64);
    let mut ctx = context();
    let m = parse_source(&mut ctx, "many.mlir", &text, 0).unwrap_or_else(|d| panic!("{}", ctx.render(&d)));
    let mut reg = PassRegistry::default();
    morf_passes::register_all(&mut reg);
    reg.create("lower-tensor-to-loop", "").unwrap().run(&mut ctx, m).unwrap();
    let t0 = Instant::now();
    reg.create("fuse-mixed-reductions", "size-hints=M=576000,N=384").unwrap().run(&mut ctx, m).unwrap();
    let elapsed = t0.elapsed();
    verify(&ctx, m).unwrap_or_else(|d| panic!("{}", ctx.render(&d)));
    let printed = print_op(&ctx, m, &PrintOptions::default());
    let rows = printed.matches("\"row-fused\"").count();
    let finals = printed.matches("kind = \"final\"").count();
    // The search alone, for the e-graph sizes.
    eprintln!(
        "64 RMSNorm backwards: fuse-mixed-reductions took {:.1} ms ({} build); {rows} row kernels, {finals} finals",
        elapsed.as_secs_f64() * 1e3,
        if cfg!(debug_assertions) { "debug" } else { "release" }
    );
    assert_eq!(rows, 64);
    assert_eq!(finals, 64);
    if !cfg!(debug_assertions) {
        assert!(elapsed.as_secs_f64() < 1.0, "took {elapsed:?}");
    }
}
