//! Differential testing of the cleanup passes: random `mtensor` programs run in the
//! reference interpreter before and after `canonicalize`, `cse` and `dce`, and the results
//! must be identical (these passes only fold exactly, so no tolerance is allowed; NaNs
//! must stay NaNs). A mismatch prints the seed and a shrunk program.

use std::rc::Rc;

use morf_ir::interp::{run_function, Array, RtValue};
use morf_ir::pass::PassRegistry;
use morf_ir::{builtin::lookup_function, parse_source, verify, Context, OpId};
use morf_tensor::progen::{generate, random_inputs, shrink, GenConfig, Program};

fn context() -> Context {
    let mut ctx = Context::new();
    morf_tensor::register(&mut ctx);
    ctx
}

/// Results: (shape, values) per output.
type Outputs = Vec<(Vec<usize>, Vec<f64>)>;

fn run(ctx: &Context, module: OpId, p: &Program, seed: u64) -> Result<Outputs, String> {
    let f = lookup_function(ctx, module, &p.func).ok_or("no function")?;
    let mut args = Vec::new();
    for (shape, data, kind) in random_inputs(p, seed) {
        let elem = {
            // Types are interned per context: look the element type up in `ctx` through
            // the function signature instead of creating one.
            let fty = morf_ir::builtin::func_type(ctx, f).ok_or("no type")?;
            let ins = ctx.function_parts(fty).ok_or("bad type")?.0.to_vec();
            ins.iter().map(|t| ctx.element_type(*t)).find(|t| ctx.float_kind(*t) == Some(kind)).ok_or("no elem")?
        };
        args.push(RtValue::Tensor { elem, array: Rc::new(Array::new(shape, data)) });
    }
    let outs = run_function(ctx, f, args).map_err(|d| ctx.render(&d))?;
    Ok(outs
        .into_iter()
        .map(|o| match o {
            RtValue::Tensor { array, .. } => (array.shape.clone(), array.data.clone()),
            other => (vec![], vec![other.as_float().unwrap_or(f64::NAN)]),
        })
        .collect())
}

fn same(a: &[(Vec<usize>, Vec<f64>)], b: &[(Vec<usize>, Vec<f64>)]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            x.0 == y.0
                && x.1.len() == y.1.len()
                && x.1.iter().zip(&y.1).all(|(p, q)| p.to_bits() == q.to_bits() || (p.is_nan() && q.is_nan()))
        })
}

/// Runs the program before and after the pipeline; Err describes a mismatch.
fn check(text: &str, p: &Program, seed: u64, passes: &[&str]) -> Result<(), String> {
    let mut ctx = context();
    let m = parse_source(&mut ctx, "gen.mlir", text, 0)
        .map_err(|d| format!("generated program does not parse: {}", ctx.render(&d)))?;
    verify(&ctx, m).map_err(|d| format!("generated program does not verify: {}", ctx.render(&d)))?;
    let before = run(&ctx, m, p, seed)?;
    let mut reg = PassRegistry::default();
    morf_passes::register_all(&mut reg);
    for name in passes {
        let mut pass = reg.create(name, "")?;
        pass.run(&mut ctx, m).map_err(|d| ctx.render(&d))?;
        verify(&ctx, m).map_err(|d| format!("IR does not verify after {name}: {}", ctx.render(&d)))?;
    }
    let after = run(&ctx, m, p, seed)?;
    if same(&before, &after) {
        Ok(())
    } else {
        Err("results differ".into())
    }
}

#[test]
fn cleanup_passes_preserve_results_on_random_programs() {
    let cfg = GenConfig::default();
    let passes = ["canonicalize", "cse", "dce"];
    let mut failures = Vec::new();
    for seed in 0..300u64 {
        let p = generate(seed, &cfg);
        if let Err(e) = check(&p.text, &p, seed, &passes) {
            let small = shrink(&p.text, &|t| check(t, &p, seed, &passes).is_err_and(|e| e == "results differ"));
            failures.push(format!("seed {seed}: {e}\nprogram:\n{}\nshrunk:\n{small}", p.text));
        }
    }
    assert!(failures.is_empty(), "{} of 300 programs failed:\n{}", failures.len(), failures.join("\n\n"));
}

#[test]
fn generator_makes_varied_valid_programs() {
    let cfg = GenConfig::default();
    let mut ops = std::collections::BTreeSet::new();
    for seed in 0..300u64 {
        let p = generate(seed, &cfg);
        for line in p.text.lines() {
            if let Some(rest) = line.split("= mtensor.").nth(1) {
                ops.insert(rest.split_whitespace().next().unwrap_or("").to_string());
            }
        }
    }
    for needed in ["add", "broadcast", "reduce", "convert", "select", "cmp", "constant", "dim", "tanh"] {
        assert!(ops.contains(needed), "generator never made '{needed}': {ops:?}");
    }
}
