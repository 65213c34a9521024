//! Differential testing of the loop transforms: random `mtensor` programs
//! (`morf_tensor::progen`) are lowered with `lower-tensor-to-loop`, then each transform
//! (`loop-interchange`, `loop-split`, `loop-fuse`, `loop-partial-accumulate`) is applied with
//! random options to every nest it could apply to. When the transform accepts, the IR must
//! verify and the loop interpreter must give:
//!
//! - for interchange, split and fuse: bit-identical results to the untransformed loop
//!   program (the lowering puts no `accumulate` in nests, so no float is reordered);
//! - for partial accumulation: results within fp32 reordering tolerance.
//!
//! When it refuses, the refusal must be a diagnostic (never a panic, never an internal error).
//! The untransformed loop program is also checked against the tensor interpreter.

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
    for name in ["loop-interchange", "loop-split", "loop-partial-accumulate", "loop-fuse"] {
        assert!(applied.get(name).copied().unwrap_or(0) >= 5, "{name} was applied too rarely: {applied:?}");
    }
}
