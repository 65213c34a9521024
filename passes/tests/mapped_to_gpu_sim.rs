//! Differential testing of the mapped lowering (issue 10): programs go through
//! `lower-tensor-to-loop, canonicalize, cse, [fuse-mixed-reductions, canonicalize, cse,]
//! loop-map, lower-loop-to-gpu`, so that every nest `loop-map` maps is lowered mechanically
//! from its `mapping` attribute (passes/src/conversion/mapped.rs), and run with every launch
//! on the CPU simulator against the tensor interpreter (relative L2 error at most 1e-5 for
//! f32/f64, 1e-2 for bf16/f16; NaN never passes). Random `progen` programs and every example,
//! under several `loop-map` option sets (tiny grids and CTAs make every loop stride over
//! several rows, tiles and columns; a CTA per row; one warp per CTA). Also: `loop-map` alone
//! changes nothing the loop interpreter computes (split nests run in the same order).

use morf_ir::{print_op, verify, Context, OpId, PrintOptions};
use morf_tensor::progen::{generate, GenConfig};

mod common;
use common::{close, examples, failure_report, has_nan, parse_program, progen_inputs, registry, run, Inputs};

/// Random programs checked.
const PROGRAMS: u64 = 300;

/// `loop-map` option sets: the defaults, tiny CTAs and grids (grid-stride loops, tails), a CTA
/// per row, a warp per CTA, atomic accumulates.
const MAP_OPTIONS: &[&str] = &[
    "",
    "threads=64 warps=2 grid=2",
    "rows=cta threads=64 grid=3",
    "rows=warp warps=1 threads=32 grid=1",
    "atomics=true threads=64 grid=3",
];

/// Kernels of the GPU IR, and how many of them the mapped lowering made.
fn kernel_counts(printed: &str) -> (usize, usize) {
    let kernels = printed.matches("mgpu.func @").count();
    let mapped = printed.matches("morf.schedule = \"Mapped ").count();
    (kernels, mapped)
}

/// What one check did: `None` when skipped (the reference fails or has NaNs), else the
/// (kernels, mapped kernels) of the GPU IR and `loop-map`'s remarks (why nests stayed
/// unmapped).
type Outcome = Option<(usize, usize, Vec<String>)>;

/// Parses, runs the tensor reference, lowers (fusion when `fuse`, `loop-map` options
/// `map_opts`), verifies, runs on the simulator and compares.
fn check(text: &str, inputs: &dyn Fn(&Context, OpId) -> Inputs, fuse: bool, map_opts: &str) -> Result<Outcome, String> {
    let (mut ctx, m, f) = parse_program(text)?;
    let ins = inputs(&ctx, f);
    let Ok(before) = run(&ctx, f, &ins) else { return Ok(None) };
    if has_nan(&before) {
        return Ok(None);
    }
    let reg = registry();
    let mut passes = vec![("lower-tensor-to-loop", ""), ("canonicalize", ""), ("cse", "")];
    if fuse {
        passes.extend([("fuse-mixed-reductions", ""), ("canonicalize", ""), ("cse", "")]);
    }
    passes.extend([("loop-map", map_opts), ("lower-loop-to-gpu", "")]);
    let mut remarks = Vec::new();
    for (pass, opts) in passes {
        let mut p = reg.create(pass, opts)?;
        p.run(&mut ctx, m).map_err(|d| format!("{pass} failed: {}", ctx.render(&d)))?;
        if pass == "loop-map" {
            remarks = ctx.take_emitted().into_iter().map(|d| d.message).collect();
        }
    }
    let printed = print_op(&ctx, m, &PrintOptions::default());
    verify(&ctx, m).map_err(|d| format!("GPU IR does not verify: {}\n{printed}", ctx.render(&d)))?;
    let after = run(&ctx, f, &ins).map_err(|e| format!("GPU program fails: {e}\n{printed}"))?;
    close(&before, &after, Some("NaN on the GPU")).map_err(|e| format!("{e}\nGPU IR:\n{printed}"))?;
    let (k, mapped) = kernel_counts(&printed);
    Ok(Some((k, mapped, remarks)))
}

#[test]
fn random_programs_through_the_mapped_lowering_agree() {
    let mut failures = Vec::new();
    let (mut checked, mut kernels, mut mapped) = (0u64, 0usize, 0usize);
    let mut why: std::collections::BTreeMap<String, usize> = Default::default();
    for seed in 0..PROGRAMS {
        // Every third program ends with a mixed-order pair and goes through fusion.
        let fuse = seed % 3 == 2;
        let cfg = GenConfig { mixed_tail: fuse, ..GenConfig::default() };
        let p = generate(seed, &cfg);
        let inputs = |_: &Context, _: OpId| progen_inputs(&p, seed);
        let opts = MAP_OPTIONS[(seed % MAP_OPTIONS.len() as u64) as usize];
        match check(&p.text, &inputs, fuse, opts) {
            Ok(Some((k, m, remarks))) => {
                checked += 1;
                kernels += k;
                mapped += m;
                for r in remarks {
                    *why.entry(r).or_default() += 1;
                }
            }
            Ok(None) => {}
            Err(e) => {
                let what = format!("seed {seed} (fuse {fuse}, loop-map '{opts}')");
                failures.push(failure_report(&what, &e, &p.text, &|t| check(t, &inputs, fuse, opts)));
            }
        }
    }
    eprintln!("mapped lowering: {PROGRAMS} random programs, {checked} checked, {mapped} of {kernels} kernels mapped");
    for (r, n) in &why {
        eprintln!("  {n} x {r}");
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n\n"));
    assert!(checked >= PROGRAMS * 7 / 10, "only {checked} programs were checked");
    assert!(mapped * 4 >= kernels * 3, "only {mapped} of {kernels} kernels went through the mapped lowering");
}

#[test]
fn examples_through_the_mapped_lowering_agree() {
    let (mut checked, mut kernels, mut mapped) = (0, 0, 0);
    for (path, text) in examples() {
        for (seed, sizes) in [(0u64, &[1usize, 7][..]), (1, &[3, 33, 40]), (2, &[5, 67])] {
            let inputs = |ctx: &Context, f: OpId| common::signature_inputs(ctx, f, seed, sizes, 0.5, &[]);
            for fuse in [false, true] {
                for opts in MAP_OPTIONS {
                    match check(&text, &inputs, fuse, opts) {
                        Ok(Some((k, m, _))) => {
                            checked += 1;
                            kernels += k;
                            mapped += m;
                        }
                        Ok(None) => {}
                        Err(e) => panic!("{} (seed {seed}, fuse {fuse}, loop-map '{opts}'): {e}", path.display()),
                    }
                }
            }
        }
    }
    eprintln!("mapped lowering: {checked} example runs checked, {mapped} of {kernels} kernels mapped");
    assert!(checked >= 200, "only {checked} example runs were checked");
    assert!(mapped * 10 >= kernels * 9, "only {mapped} of {kernels} kernels went through the mapped lowering");
}

/// `loop-map` alone: the loop interpreter computes exactly the same before and after (the
/// attributes have no semantics there, and split nests iterate in the same order).
#[test]
fn loop_map_keeps_interpreter_results() {
    let reg = registry();
    let mut changed = 0;
    for seed in 0..100u64 {
        let p = generate(seed, &GenConfig { mixed_tail: seed % 2 == 0, ..GenConfig::default() });
        let (mut ctx, m, f) = parse_program(&p.text).expect("progen programs parse");
        for pass in ["lower-tensor-to-loop", "canonicalize", "cse"] {
            reg.create(pass, "").unwrap().run(&mut ctx, m).unwrap();
        }
        let ins = progen_inputs(&p, seed);
        let Ok(before) = run(&ctx, f, &ins) else { continue };
        let opts = MAP_OPTIONS[(seed % MAP_OPTIONS.len() as u64) as usize];
        let text_before = print_op(&ctx, m, &PrintOptions::default());
        reg.create("loop-map", opts).unwrap().run(&mut ctx, m).unwrap();
        verify(&ctx, m).unwrap_or_else(|d| panic!("seed {seed}: loop-map output does not verify: {}", ctx.render(&d)));
        changed += (print_op(&ctx, m, &PrintOptions::default()) != text_before) as usize;
        let after = run(&ctx, f, &ins).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        for (k, (b, a)) in before.iter().zip(&after).enumerate() {
            let same = b.0 == a.0
                && b.1.iter().zip(&a.1).all(|(x, y)| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()));
            assert!(same, "seed {seed} (loop-map '{opts}'): result {k} changed");
        }
    }
    assert!(changed >= 90, "loop-map changed only {changed} of 100 programs");
}

/// `loop-tile` on the first nest of random programs: the loop interpreter agrees with the
/// untiled program (within the numerics contract: tiling an outer dim reorders `accumulate`s),
/// and the tiled program, mapped by `loop-map` (the tile loop runs inside the mapped nest),
/// agrees on the simulator.
#[test]
fn loop_tile_then_mapped_lowering_agree() {
    let reg = registry();
    let (mut tiled, mut failures) = (0, Vec::new());
    for seed in 0..100u64 {
        let p = generate(seed, &GenConfig::default());
        let (mut ctx, m, f) = parse_program(&p.text).expect("progen programs parse");
        let ins = progen_inputs(&p, seed);
        let Ok(reference) = run(&ctx, f, &ins) else { continue };
        if has_nan(&reference) {
            continue;
        }
        for pass in ["lower-tensor-to-loop", "canonicalize", "cse"] {
            reg.create(pass, "").unwrap().run(&mut ctx, m).unwrap();
        }
        let sizes = ["3", "0,2", "2,5", "4,1,3", "1"][(seed % 5) as usize];
        let mut tile = reg.create("loop-tile", &format!("sizes={sizes}")).unwrap();
        if tile.run(&mut ctx, m).is_err() {
            // The first nest is a `for` or has fewer dims than sizes: a located error, no change.
            continue;
        }
        tiled += 1;
        let check = |ctx: &Context, what: &str| -> Result<(), String> {
            verify(ctx, m).map_err(|d| format!("{what}: does not verify: {}", ctx.render(&d)))?;
            let out = run(ctx, f, &ins).map_err(|e| format!("{what}: {e}"))?;
            close(&reference, &out, Some("NaN")).map_err(|e| format!("{what}: {e}"))
        };
        let mut steps = vec![check(&ctx, "tiled")];
        let opts = MAP_OPTIONS[(seed % MAP_OPTIONS.len() as u64) as usize];
        for (pass, o) in [("loop-map", opts), ("lower-loop-to-gpu", "")] {
            reg.create(pass, o).unwrap().run(&mut ctx, m).unwrap_or_else(|d| panic!("seed {seed}: {}", ctx.render(&d)));
        }
        steps.push(check(&ctx, "mapped on the simulator"));
        for e in steps.into_iter().filter_map(Result::err) {
            failures.push(format!("seed {seed} (sizes={sizes}, loop-map '{opts}'): {e}\n{}", p.text));
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n\n"));
    assert!(tiled >= 50, "only {tiled} programs were tiled");
}
