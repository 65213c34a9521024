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

use std::time::Instant;

use morf_ir::{parse_source, print_op, verify, Context, OpId, PrintOptions};
use morf_tensor::progen::{generate, GenConfig};

mod common;
use common::{close, context, examples, failure_report, has_nan, parse_program, progen_inputs, registry, run, Inputs};

/// Random programs checked per option set.
const PROGRAMS: u64 = 300;

/// The option sets: defaults, and fusion made attractive everywhere.
const OPTION_SETS: &[&str] = &["", "default-hint=4096 device=launch=1e-3"];

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
    let (mut ctx, m, f) = parse_program(text)?;
    let ins = inputs(&ctx, f);
    let Ok(before) = run(&ctx, f, &ins) else { return Ok(Outcome::Skipped) };
    if has_nan(&before) {
        return Ok(Outcome::Skipped);
    }
    let reg = registry();
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
    close(&before, &after, Some("NaN after fusion")).map_err(|e| format!("{e}\nfused IR:\n{printed}"))?;
    let changed = printed.contains("\"final\"") || printed.contains("\"row-fused\"") || nests_after < nests_before;
    Ok(Outcome::Checked(changed))
}

/// Inputs from a signature: `morf.dims` names sized from `sizes`, normal values (positive,
/// `0.5 + |x|`, for `morf.random = "positive"`), rounded to each dtype.
fn signature_inputs(ctx: &Context, f: OpId, seed: u64, sizes: &[usize]) -> Inputs {
    common::signature_inputs(ctx, f, seed, sizes, 0.5, &[])
}

#[test]
fn examples_fuse_and_agree() {
    let (mut checked, mut fused) = (0, 0);
    for (path, text) in examples() {
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
            let inputs = |_: &Context, _: OpId| progen_inputs(&p, seed);
            match check(&p.text, &inputs, options) {
                Ok(Outcome::Checked(c)) => {
                    checked += 1;
                    fused += c as u64;
                }
                Ok(Outcome::Skipped) => {}
                Err(e) => {
                    let what = format!("seed {seed} (max_rank {}, options '{options}')", cfg.max_rank);
                    failures.push(failure_report(&what, &e, &p.text, &|t| check(t, &inputs, options)));
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
    let reg = registry();
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
