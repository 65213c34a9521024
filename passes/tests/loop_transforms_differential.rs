//! Differential testing of the loop transforms: random `mtensor` programs
//! (`morf_tensor::progen`) are lowered with `lower-tensor-to-loop`, then each transform
//! (`loop-interchange`, `loop-split`, `loop-fuse`, `loop-partial-accumulate`) is applied with
//! random options to every nest it could apply to, and `loop-invariant-code-motion` to the
//! whole program. When the transform accepts, the IR must verify and the loop interpreter
//! must give:
//!
//! - for interchange, split, fuse and invariant code motion: bit-identical results to the
//!   untransformed loop
//!   program (the lowering puts no `accumulate` in nests, so no float is reordered);
//! - for partial accumulation: results within fp32 reordering tolerance.
//!
//! When it refuses, the refusal must be a diagnostic (never a panic, never an internal error).
//! The untransformed loop program is also checked against the tensor interpreter.
//! `loop-coalesce`, which takes no nest, runs over whole rank-2 and rank-3 programs
//! (`loop_coalesce_preserves_results_on_random_programs`: bit-identical results).

use std::cell::RefCell;
use std::rc::Rc;

use morf_ir::interp::{run_function, Array, RtValue};
use morf_ir::pass::PassRegistry;
use morf_ir::{builtin::lookup_function, parse_source, print_op, verify, Context, OpId, PrintOptions};
use morf_tensor::progen::{generate, random_inputs, GenConfig, Program, Rng};

type Outs = Vec<(Vec<usize>, Vec<f64>)>;

fn context() -> Context {
    let mut ctx = Context::new();
    morf_tensor::register(&mut ctx);
    morf_loop::register(&mut ctx);
    ctx
}

fn registry() -> PassRegistry {
    let mut reg = PassRegistry::default();
    morf_passes::register_all(&mut reg);
    reg
}

fn parse(ctx: &mut Context, text: &str) -> Result<OpId, String> {
    let m = parse_source(ctx, "gen.mlir", text, 0).map_err(|d| format!("does not parse: {}", ctx.render(&d)))?;
    verify(ctx, m).map_err(|d| format!("does not verify: {}", ctx.render(&d)))?;
    Ok(m)
}

fn run(ctx: &Context, module: OpId, p: &Program, seed: u64) -> Result<Outs, String> {
    let f = lookup_function(ctx, module, &p.func).ok_or("no function")?;
    let fty = morf_ir::builtin::func_type(ctx, f).ok_or("no type")?;
    let ins = ctx.function_parts(fty).ok_or("bad type")?.0.to_vec();
    let mut args = Vec::new();
    for ((shape, data, _), ty) in random_inputs(p, seed).into_iter().zip(ins) {
        let elem = ctx.element_type(ty);
        let array = Array::new(shape, data);
        args.push(if ctx.is_tensor(ty) {
            RtValue::Tensor { elem, array: Rc::new(array) }
        } else {
            RtValue::Buffer { elem, data: Rc::new(RefCell::new(array)) }
        });
    }
    let outs = run_function(ctx, f, args).map_err(|d| ctx.render(&d))?;
    Ok(outs
        .into_iter()
        .map(|o| match o {
            RtValue::Tensor { array, .. } => (array.shape.clone(), array.data.clone()),
            RtValue::Buffer { data, .. } => {
                let a = data.borrow();
                (a.shape.clone(), a.data.clone())
            }
            other => (vec![], vec![other.as_float().unwrap_or(f64::NAN)]),
        })
        .collect())
}

/// Exact equality (NaN equals NaN).
fn same(a: &Outs, b: &Outs) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            x.0 == y.0
                && x.1.len() == y.1.len()
                && x.1.iter().zip(&y.1).all(|(p, q)| p == q || (p.is_nan() && q.is_nan()))
        })
}

/// Equality up to reordered fp32 accumulation (outputs may be rounded to bf16/f16 after):
/// a relative tolerance, plus an absolute one scaled by the output's magnitude for values
/// that come out of cancellation.
fn close(a: &Outs, b: &Outs, rtol: f64) -> Result<(), String> {
    if a.len() != b.len() {
        return Err("different numbers of results".into());
    }
    for (r, (x, y)) in a.iter().zip(b).enumerate() {
        if x.0 != y.0 {
            return Err(format!("result {r}: shapes {:?} and {:?}", x.0, y.0));
        }
        let scale = x.1.iter().filter(|v| v.is_finite()).fold(0.0f64, |m, v| m.max(v.abs()));
        for (i, (p, q)) in x.1.iter().zip(&y.1).enumerate() {
            let ok = p == q || (p.is_nan() && q.is_nan()) || (p - q).abs() <= rtol * (p.abs().max(q.abs()) + scale);
            if !ok {
                return Err(format!("result {r} element {i}: {p} vs {q}"));
            }
        }
    }
    Ok(())
}

/// Lowers a tensor program to loops (in a fresh context each time: the transforms are
/// tested on the lowering's IR directly, not on a print/parse round trip of it).
fn lower(text: &str) -> Result<(Context, OpId), String> {
    let mut ctx = context();
    let m = parse(&mut ctx, text)?;
    let mut pass = registry().create("lower-tensor-to-loop", "")?;
    pass.run(&mut ctx, m).map_err(|d| format!("lowering failed: {}", ctx.render(&d)))?;
    verify(&ctx, m).map_err(|d| format!("lowered IR does not verify: {}", ctx.render(&d)))?;
    Ok((ctx, m))
}

/// Describes the top-level nests of `main`: (is parallel, dims, has a reduce directly in the body).
fn nests(ctx: &Context, m: OpId) -> Vec<(bool, usize, bool)> {
    let f = lookup_function(ctx, m, "main").expect("main");
    let b = ctx.entry_block(ctx.regions(f)[0]).expect("body");
    let ops: Vec<OpId> = ctx.block_ops(b).collect();
    ops.into_iter()
        .filter(|&o| matches!(ctx.op_name(o), "mloop.parallel" | "mloop.for"))
        .map(|o| {
            let par = ctx.op_name(o) == "mloop.parallel";
            let k = if par { ctx.operands(o).len() / 3 } else { 1 };
            let body = ctx.entry_block(ctx.regions(o)[0]).expect("body");
            let red = ctx.block_ops(body).any(|x| ctx.op_name(x) == "mloop.reduce");
            (par, k, red)
        })
        .collect()
}

/// Random transforms (pass name, options) for the nests of a lowered program.
fn candidates(ns: &[(bool, usize, bool)], rng: &mut Rng) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    for (i, &(par, k, red)) in ns.iter().enumerate() {
        if par {
            let mut perm: Vec<usize> = (0..k).collect();
            for j in (1..k).rev() {
                perm.swap(j, rng.below(j + 1));
            }
            let p: Vec<String> = perm.iter().map(|x| x.to_string()).collect();
            out.push(("loop-interchange", format!("nest={i} perm={}", p.join(","))));
        }
        let size = *rng.pick(&[1usize, 2, 3, 4, 7, 16]);
        let inner = if rng.chance(0.5) { " inner=for" } else { "" };
        out.push(("loop-split", format!("nest={i} dim={} size={size}{inner}", rng.below(k))));
        if red {
            let s = *rng.pick(&[1usize, 2, 3, 5, 16, 64]);
            out.push(("loop-partial-accumulate", format!("nest={i} split-size={s}")));
        }
        if i + 1 < ns.len() {
            out.push(("loop-fuse", format!("first={i} second={}", i + 1 + rng.below(ns.len() - i - 1))));
        }
    }
    if !ns.is_empty() {
        out.push(("loop-invariant-code-motion", String::new()));
    }
    out
}

#[test]
fn loop_transforms_preserve_results_on_random_programs() {
    let cfg = GenConfig::default();
    let reg = registry();
    let mut failures = Vec::new();
    let (mut applied, mut refused) = (std::collections::BTreeMap::new(), std::collections::BTreeMap::new());
    let mut lowered_ok = 0;
    for seed in 0..300u64 {
        let p = generate(seed, &cfg);
        let Ok((ctx, m)) = lower(&p.text) else { continue };
        let Ok(base) = run(&ctx, m, &p, seed) else { continue };
        lowered_ok += 1;
        let lowered = print_op(&ctx, m, &PrintOptions::default());
        let shape = nests(&ctx, m);
        // The lowering itself, against the tensor interpreter.
        let mut tctx = context();
        let tm = parse(&mut tctx, &p.text).expect("generated program parses");
        if let Ok(reference) = run(&tctx, tm, &p, seed) {
            if let Err(e) = close(&reference, &base, 1e-2) {
                failures.push(format!("seed {seed}: lowered program differs from the tensor program: {e}\n{}", p.text));
                continue;
            }
        }
        let mut rng = Rng::new(seed ^ 0x5eed);
        for (name, opts) in candidates(&shape, &mut rng) {
            let (mut ctx, m) = lower(&p.text).expect("lowered before");
            let mut pass = reg.create(name, &opts).expect("valid options");
            let what = format!("seed {seed}: {name}{{{opts}}}");
            match pass.run(&mut ctx, m) {
                Err(d) => {
                    let msg = ctx.render(&d);
                    if msg.contains("internal compiler error") {
                        failures.push(format!("{what}: {msg}"));
                    }
                    if std::env::var("SHOW_REFUSALS").is_ok() {
                        eprintln!("{what}: {msg}");
                    }
                    *refused.entry(name).or_insert(0) += 1;
                    continue;
                }
                Ok(()) => *applied.entry(name).or_insert(0) += 1,
            }
            if let Err(d) = verify(&ctx, m) {
                failures.push(format!("{what}: IR does not verify: {}\n{lowered}", ctx.render(&d)));
                continue;
            }
            let after = match run(&ctx, m, &p, seed) {
                Ok(a) => a,
                Err(e) => {
                    failures
                        .push(format!("{what}: does not run: {e}\n{}", print_op(&ctx, m, &PrintOptions::default())));
                    continue;
                }
            };
            let verdict = if name == "loop-partial-accumulate" {
                close(&base, &after, 1e-3)
            } else if same(&base, &after) {
                Ok(())
            } else {
                Err("results differ".into())
            };
            if let Err(e) = verdict {
                failures.push(format!("{what}: {e}\n{lowered}"));
            }
        }
    }
    eprintln!("{lowered_ok} programs lowered and ran; applied: {applied:?}; refused: {refused:?}");
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n\n"));
    for name in ["loop-interchange", "loop-split", "loop-partial-accumulate", "loop-fuse", "loop-invariant-code-motion"]
    {
        assert!(applied.get(name).copied().unwrap_or(0) >= 5, "{name} was applied too rarely: {applied:?}");
    }
}

/// The transformed program `m` verifies and gives bit-identical results to `base`.
fn verify_and_match(ctx: &Context, m: OpId, p: &Program, seed: u64, base: &Outs) -> Result<(), String> {
    verify(ctx, m).map_err(|d| format!("IR does not verify: {}", ctx.render(&d)))?;
    match run(ctx, m, p, seed) {
        Ok(after) if same(base, &after) => Ok(()),
        Ok(_) => Err("results differ".into()),
        Err(e) => Err(format!("does not run: {e}")),
    }
}

/// `loop-unroll` on random programs: each top-level nest is first split with an inner
/// `mloop.for` (random size, so loops with trip counts that are and are not multiples of the
/// factor), then every innermost `for` is unrolled by a random factor; the IR must verify and
/// the loop interpreter give bit-identical results (same iterations, same order).
#[test]
fn loop_unroll_preserves_results_on_random_programs() {
    let cfg = GenConfig::default();
    let reg = registry();
    let mut failures = Vec::new();
    let mut unrolled = 0;
    for seed in 0..200u64 {
        let p = generate(seed, &cfg);
        let Ok((ctx, m)) = lower(&p.text) else { continue };
        let Ok(base) = run(&ctx, m, &p, seed) else { continue };
        let mut rng = Rng::new(seed ^ 0x0011);
        for i in 0..nests(&ctx, m).len() {
            let (mut ctx, m) = lower(&p.text).expect("lowered before");
            let size = *rng.pick(&[2usize, 3, 5, 8]);
            let factor = *rng.pick(&[2usize, 3, 4]);
            let what =
                format!("seed {seed}: loop-split{{nest={i} size={size} inner=for}}, loop-unroll{{factor={factor}}}");
            let mut split = reg.create("loop-split", &format!("nest={i} size={size} inner=for")).expect("options");
            if split.run(&mut ctx, m).is_err() {
                continue;
            }
            let split_text = print_op(&ctx, m, &PrintOptions::default());
            let mut unroll = reg.create("loop-unroll", &format!("factor={factor}")).expect("options");
            if let Err(d) = unroll.run(&mut ctx, m) {
                failures.push(format!("{what}: {}", ctx.render(&d)));
                continue;
            }
            let printed = print_op(&ctx, m, &PrintOptions::default());
            if printed != split_text {
                unrolled += 1;
            }
            if let Err(e) = verify_and_match(&ctx, m, &p, seed, &base) {
                failures.push(format!("{what}: {e}\n{printed}"));
            }
        }
    }
    eprintln!("loop-unroll: {unrolled} programs unrolled");
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n\n"));
    assert!(unrolled >= 50, "only {unrolled} programs were unrolled");
}

/// The top-level `mloop.parallel` nests of `main` with at least two dims.
fn multi_dim_nests(ctx: &Context, m: OpId) -> Vec<OpId> {
    let f = lookup_function(ctx, m, "main").expect("main");
    let b = ctx.entry_block(ctx.regions(f)[0]).expect("body");
    ctx.block_ops(b).filter(|&o| ctx.op_name(o) == "mloop.parallel" && ctx.operands(o).len() >= 6).collect()
}

/// `collapse_parallel_dims` (the row loop of a fused row kernel over several kept dims becomes
/// one flat dim) on every multi-dim top-level nest of random rank-2 and rank-3 programs: the
/// nest becomes a 1-D parallel, the IR verifies and the loop interpreter gives bit-identical
/// results (same iterations, same order).
#[test]
fn collapse_parallel_dims_preserves_results_on_random_programs() {
    use morf_passes::transforms::loop_partial_accumulate::collapse_parallel_dims;
    let cfg = GenConfig { min_rank: 2, max_rank: 3, ..GenConfig::default() };
    let mut failures = Vec::new();
    let mut collapsed = 0;
    for seed in 0..200u64 {
        let p = generate(seed, &cfg);
        let Ok((ctx, m)) = lower(&p.text) else { continue };
        let Ok(base) = run(&ctx, m, &p, seed) else { continue };
        for i in 0..multi_dim_nests(&ctx, m).len() {
            let (mut ctx, m) = lower(&p.text).expect("lowered before");
            let nest = multi_dim_nests(&ctx, m)[i];
            let what = format!("seed {seed}: nest {i}");
            let new = match collapse_parallel_dims(&mut ctx, nest) {
                Ok(n) => n,
                Err(d) => {
                    failures.push(format!("{what}: refused: {}", ctx.render(&d)));
                    continue;
                }
            };
            collapsed += 1;
            let printed = print_op(&ctx, m, &PrintOptions::default());
            if ctx.operands(new).len() != 3 {
                failures.push(format!("{what}: not collapsed to one dim\n{printed}"));
            }
            if let Err(e) = verify_and_match(&ctx, m, &p, seed, &base) {
                failures.push(format!("{what}: {e}\n{printed}"));
            }
        }
    }
    eprintln!("collapse_parallel_dims: {collapsed} nests collapsed");
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n\n"));
    assert!(collapsed >= 50, "only {collapsed} nests were collapsed");
}

/// A row kernel over rows `(b, m)` with partial column sums at `W[flat(b, m) div S, j]` (the
/// index `loop-partial-accumulate` builds): collapsed, the partial index is `W[row div S, j]`
/// (no `mul`/`add` left in the nest), the row loop is 1-D over `B*M`, and the results are
/// bit-identical, for extents that leave a partial last split.
#[test]
fn collapse_parallel_dims_turns_the_flat_partial_index_into_the_row() {
    use morf_passes::transforms::loop_partial_accumulate::collapse_parallel_dims;
    let text = r#"
func.func @main(%x: !mloop.buffer<?x?x?xf32>, %w: !mloop.buffer<?x?xf32>) -> !mloop.buffer<?x?xf32> {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %c4 = mloop.constant 4 : index
  %zero = mloop.constant 0.0 : f32
  %b = mloop.dim %x, 0 : !mloop.buffer<?x?x?xf32>
  %m = mloop.dim %x, 1 : !mloop.buffer<?x?x?xf32>
  %n = mloop.dim %x, 2 : !mloop.buffer<?x?x?xf32>
  %rs = mloop.alloc(%b, %m) : !mloop.buffer<?x?xf32>
  mloop.parallel (%i, %k) = (%c0, %c0) to (%b, %m) step (%c1, %c1) {
    %r = mloop.reduce sum (%j) = (%c0) to (%n) step (%c1) init(%zero) : f32 {
      %v = mloop.load %x[%i, %k, %j] : !mloop.buffer<?x?x?xf32>
      mloop.yield %v : f32
    }
    mloop.store %r, %rs[%i, %k] : !mloop.buffer<?x?xf32>
    mloop.parallel (%j2) = (%c0) to (%n) step (%c1) {
      %v2 = mloop.load %x[%i, %k, %j2] : !mloop.buffer<?x?x?xf32>
      %p = mloop.mul %v2, %r : f32
      %f0 = mloop.mul %i, %m : index
      %f = mloop.add %f0, %k : index
      %s = mloop.div %f, %c4 : index
      mloop.accumulate sum %p, %w[%s, %j2] : !mloop.buffer<?x?xf32>
      mloop.yield
    }
    mloop.yield
  }
  func.return %rs : !mloop.buffer<?x?xf32>
}
"#;
    let mut ctx = context();
    let m = parse(&mut ctx, text).expect("parses");
    let f32t = ctx.f32_type();
    let run_it = |ctx: &Context, m: OpId| -> (Vec<f64>, Vec<f64>) {
        let f = lookup_function(ctx, m, "main").expect("main");
        let (b, mm, n) = (3usize, 5usize, 7usize);
        let ns = (b * mm).div_ceil(4);
        let x: Vec<f64> = (0..b * mm * n).map(|i| ((i * 37 % 101) as f64 - 50.0) / 16.0).collect();
        let buf = |shape: Vec<usize>, data: Vec<f64>| RtValue::Buffer {
            elem: f32t,
            data: Rc::new(RefCell::new(Array::new(shape, data))),
        };
        let w = buf(vec![ns, n], vec![0.0; ns * n]);
        let RtValue::Buffer { data: wdata, .. } = &w else { unreachable!() };
        let wdata = wdata.clone();
        let outs = run_function(ctx, f, vec![buf(vec![b, mm, n], x), w]).expect("runs");
        let rs = match &outs[0] {
            RtValue::Buffer { data, .. } => data.borrow().data.clone(),
            _ => panic!("a buffer result"),
        };
        let ws = wdata.borrow().data.clone();
        (rs, ws)
    };
    let before = run_it(&ctx, m);
    let nest = multi_dim_nests(&ctx, m)[0];
    let new = collapse_parallel_dims(&mut ctx, nest).expect("collapses");
    verify(&ctx, m).expect("verifies");
    let printed = print_op(&ctx, m, &PrintOptions::default());
    assert_eq!(ctx.operands(new).len(), 3, "{printed}");
    assert!(printed.contains("mloop.parallel (%row) = ("), "{printed}");
    assert!(printed.contains("mloop.div %row, %c4 : index"), "{printed}");
    assert!(printed.contains("%i = mloop.div %row, %m : index"), "{printed}");
    assert!(printed.contains("%k = mloop.rem %row, %m : index"), "{printed}");
    assert!(!printed.contains("mloop.add"), "the flat index chain is left:\n{printed}");
    assert_eq!(printed.matches("mloop.mul").count(), 2, "the B*M bound and the f32 product only:\n{printed}");
    let after = run_it(&ctx, m);
    assert_eq!(before, after);
    assert!(after.1.iter().any(|v| *v != 0.0));
}

/// The `loop-coalesce` pass (`ops=all` and `ops=reductions`) on random rank-2 and rank-3
/// programs: every box it collapses is one-dimensional after it, the IR verifies and the loop
/// interpreter gives bit-identical results (same iterations, same order, reductions included).
#[test]
fn loop_coalesce_preserves_results_on_random_programs() {
    let cfg = GenConfig { min_rank: 2, max_rank: 3, ..GenConfig::default() };
    let reg = registry();
    let mut failures = Vec::new();
    let mut changed = 0;
    for seed in 0..200u64 {
        let p = generate(seed, &cfg);
        let Ok((ctx0, m)) = lower(&p.text) else { continue };
        let Ok(base) = run(&ctx0, m, &p, seed) else { continue };
        let before = print_op(&ctx0, m, &PrintOptions::default());
        for opts in ["ops=all", "ops=reductions"] {
            let (mut ctx, m) = lower(&p.text).expect("lowered before");
            let what = format!("seed {seed}: loop-coalesce{{{opts}}}");
            let mut pass = reg.create("loop-coalesce", opts).expect("valid options");
            if let Err(d) = pass.run(&mut ctx, m) {
                failures.push(format!("{what}: refused: {}", ctx.render(&d)));
                continue;
            }
            let printed = print_op(&ctx, m, &PrintOptions::default());
            if printed != before {
                changed += 1;
            }
            let multi = ctx.walk_collect(m).into_iter().any(|o| {
                let n = ctx.operands(o).len();
                (ctx.op_name(o) == "mloop.reduce" && n >= 7)
                    || (opts == "ops=all" && ctx.op_name(o) == "mloop.parallel" && n >= 6)
            });
            if multi {
                failures.push(format!("{what}: a box is still multi-dimensional\n{printed}"));
            }
            if let Err(e) = verify_and_match(&ctx, m, &p, seed, &base) {
                failures.push(format!("{what}: {e}\n{printed}"));
            }
        }
    }
    eprintln!("loop-coalesce: {changed} programs changed");
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n\n"));
    assert!(changed >= 50, "only {changed} programs were changed");
}
