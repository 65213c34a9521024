//! morf's fuzz targets, their seed corpus and a deterministic mutation loop.
//!
//! This crate owns the *logic* of every fuzz target; the cargo-fuzz package in `fuzz/` (its
//! own workspace, built with nightly) only wraps each function here in a `fuzz_target!`, and
//! the stable test `tests/mutation.rs` runs the same functions under a bounded, seeded
//! mutation loop ([`mutate`]) in CI. Each target takes arbitrary bytes and panics only on a
//! bug:
//!
//! | target | what it checks |
//! | --- | --- |
//! | [`parse`] | the lexer and parser end in IR or in a diagnostic that renders |
//! | [`parse_verify`] | the same, then the verifier ends in `Ok` or a diagnostic |
//! | [`roundtrip`] | verified IR prints (custom form, generic form, custom form with locations), reparses, verifies and prints the same text again |
//! | [`pipeline`] | a named pipeline (`fuse`, `gpu`, `gpu-unfused`) on verified input ends in a diagnostic or in IR that verifies and round-trips; never an internal compiler error |
//! | [`pass_pipeline`] | the first line is a `--pass-pipeline` text, the rest IR: pipeline parsing, pass options, and the passes on verified input, as [`pipeline`] |
//! | [`interp`] | the reference interpreter runs a function on small random inputs; after `gpu` lowering the host function runs again with its launches on the GPU simulator and matches the reference |
//! | [`npy`] | the `.npy` reader ends in an array that matches its header or in an error |
//!
//! Guards live here only where no user could hit the cost anyway: inputs are capped at
//! [`MAX_INPUT_LEN`] bytes, the interpreter gets a step budget and a small element limit,
//! and the fusion search a short time limit. The seed corpus is in [`corpus`].

pub mod corpus;
pub mod mutate;

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};

use morf_ir::interp::{Array, Machine, RtValue};
use morf_ir::pass::{parse_pipeline, Instrumentation, PassManager, PassRegistry};
use morf_ir::{print_op, Context, Dim, OpId, PrintOptions, TypeData};

/// Inputs longer than this are ignored by every target (the parser is linear; longer inputs
/// only slow the fuzzer down).
pub const MAX_INPUT_LEN: usize = 64 * 1024;

/// The most ops one interpreter run may execute in [`interp`].
pub const INTERP_MAX_STEPS: u64 = 200_000;

/// The most elements one tensor or buffer may hold in [`interp`].
pub const INTERP_MAX_ELEMENTS: usize = 1 << 14;

/// The named pipelines that have a fuzz target, as `morf-opt --list-passes` lists them.
pub const PIPELINES: [&str; 3] = ["fuse", "gpu", "gpu-unfused"];

/// Every target by name, in the order of the table above (`fuse`, `gpu` and `gpu_unfused`
/// are the [`pipeline`] targets).
pub const TARGETS: [&str; 9] =
    ["parse", "parse_verify", "roundtrip", "fuse", "gpu", "gpu_unfused", "pass_pipeline", "interp", "npy"];

/// The target function of `name` (one of [`TARGETS`]).
pub fn target(name: &str) -> Option<fn(&[u8])> {
    Some(match name {
        "parse" => parse,
        "parse_verify" => parse_verify,
        "roundtrip" => roundtrip,
        "fuse" => pipeline_fuse,
        "gpu" => pipeline_gpu,
        "gpu_unfused" => pipeline_gpu_unfused,
        "pass_pipeline" => pass_pipeline,
        "interp" => interp,
        "npy" => npy,
        _ => return None,
    })
}

/// The file name diagnostics use for fuzz input.
const FILE: &str = "fuzz.mlir";

/// A context with every dialect of morf registered.
fn context(allow_unregistered: bool) -> Context {
    let mut ctx = Context::new();
    morf_tensor::register(&mut ctx);
    morf_loop::register(&mut ctx);
    morf_gpu::register(&mut ctx);
    ctx.registry_mut().allow_unregistered = allow_unregistered;
    ctx
}

/// The input as text (`None` when too long). Bytes that are not UTF-8 are replaced, so the
/// parser sees U+FFFD where `morf-opt` would have stopped with a diagnostic.
fn text(data: &[u8]) -> Option<std::borrow::Cow<'_, str>> {
    (data.len() <= MAX_INPUT_LEN).then(|| String::from_utf8_lossy(data))
}

/// Parses `src` into `ctx` (registering it as a source, so diagnostics render with their
/// line) and, with `verify`, verifies it. A diagnostic is rendered (the renderer is part of
/// what users see) and turned into `None`.
fn load(ctx: &mut Context, src: &str, verify: bool) -> Option<OpId> {
    ctx.add_source(FILE, src);
    let r = morf_ir::parse_source(ctx, FILE, src, 0).and_then(|m| {
        if verify {
            morf_ir::verify(ctx, m).map(|_| m)
        } else {
            Ok(m)
        }
    });
    for d in ctx.take_emitted() {
        let _ = ctx.render(&d);
    }
    match r {
        Ok(m) => Some(m),
        Err(d) => {
            let text = ctx.render(&d);
            assert!(!text.is_empty(), "a diagnostic rendered as nothing");
            None
        }
    }
}

/// Parses arbitrary bytes (unregistered ops allowed): IR or a diagnostic, never a panic.
pub fn parse(data: &[u8]) {
    let Some(src) = text(data) else { return };
    let mut ctx = context(true);
    load(&mut ctx, &src, false);
}

/// Parses and verifies arbitrary bytes (unregistered ops allowed).
pub fn parse_verify(data: &[u8]) {
    let Some(src) = text(data) else { return };
    let mut ctx = context(true);
    load(&mut ctx, &src, true);
}

/// Prints `src` after parsing and verifying it in a fresh context; panics when printed,
/// verified IR does not parse or verify again (the caller's IR was valid).
fn reprint(src: &str, opts: &PrintOptions, what: &str) -> String {
    let mut ctx = context(true);
    ctx.add_source(FILE, src);
    let m = match morf_ir::parse_source(&mut ctx, FILE, src, 0).and_then(|m| morf_ir::verify(&ctx, m).map(|_| m)) {
        Ok(m) => m,
        Err(d) => panic!("the {what} form of verified IR does not load again: {}\n--- printed:\n{src}", ctx.render(&d)),
    };
    print_op(&ctx, m, opts)
}

/// Round trip: verified IR printed in custom form reparses, verifies and prints the same
/// text; the same for the generic form and for the custom form with locations; and the
/// generic form reparsed prints the custom text of the original.
pub fn roundtrip(data: &[u8]) {
    let Some(src) = text(data) else { return };
    let mut ctx = context(true);
    let Some(m) = load(&mut ctx, &src, true) else { return };
    let custom = PrintOptions::default();
    let generic = PrintOptions { generic: true, ..Default::default() };
    check_roundtrip(&print_op(&ctx, m, &custom), &print_op(&ctx, m, &generic));
    // With locations (`--mlir-print-debuginfo`): the printed `loc(...)`s survive a reparse.
    let debug = PrintOptions { debug_info: true, ..Default::default() };
    let d1 = print_op(&ctx, m, &debug);
    let d2 = reprint(&d1, &debug, "debug-info");
    assert!(d1 == d2, "locations do not round-trip:\n--- first print:\n{d1}\n--- second print:\n{d2}");
}

/// The round-trip checks of [`roundtrip`] on the two prints of one module.
fn check_roundtrip(p1: &str, g1: &str) {
    let custom = PrintOptions::default();
    let generic = PrintOptions { generic: true, ..Default::default() };
    let p2 = reprint(p1, &custom, "custom");
    assert!(p1 == p2, "custom form does not round-trip:\n--- first print:\n{p1}\n--- second print:\n{p2}");
    let g2 = reprint(g1, &generic, "generic");
    assert!(g1 == g2, "generic form does not round-trip:\n--- first print:\n{g1}\n--- second print:\n{g2}");
    let p3 = reprint(g1, &custom, "generic");
    assert!(p1 == p3, "generic form reparses to other IR:\n--- custom print:\n{p1}\n--- via generic:\n{p3}");
}

/// Every pass and named pipeline of morf.
fn registry() -> PassRegistry {
    let mut reg = PassRegistry::default();
    morf_passes::register_all(&mut reg);
    reg
}

/// The text of named pipeline `name`, with a short time limit and node budget for the
/// fusion search (a safety net that users meet only as "slower", never as a failure).
fn pipeline_text(reg: &PassRegistry, name: &str) -> String {
    let p = reg.pipeline(name).unwrap_or_else(|| panic!("no pipeline named '{name}'"));
    if p.text.contains("fuse-mixed-reductions{") {
        p.text.replace("fuse-mixed-reductions{", "fuse-mixed-reductions{time-limit-ms=200 max-nodes=4000 ")
    } else {
        p.text.replace("fuse-mixed-reductions", "fuse-mixed-reductions{time-limit-ms=200 max-nodes=4000}")
    }
}

/// Runs named pipeline `name` on `module`, with verification after each pass: `true` if it
/// ran, `false` if a pass reported a diagnostic (see [`run_pm`]).
fn run_pipeline(ctx: &mut Context, module: OpId, name: &str, hints: Option<&str>) -> bool {
    let reg = registry();
    let mut text = pipeline_text(&reg, name);
    if let Some(h) = hints {
        text = text
            .replace("fuse-mixed-reductions{", &format!("fuse-mixed-reductions{{size-hints={h} "))
            .replace("lower-loop-to-gpu", &format!("lower-loop-to-gpu{{size-hints={h}}}"));
    }
    let parsed = parse_pipeline(&text).unwrap_or_else(|e| panic!("pipeline '{name}' does not parse: {e}"));
    let mut pm = PassManager::new(Instrumentation { verify_each: true, ..Default::default() });
    pm.add_pipeline(&reg, &parsed).unwrap_or_else(|e| panic!("pipeline '{name}': {e}"));
    run_pm(ctx, module, &mut pm, name)
}

/// Runs `pm` on `module`: `true` if it ran, `false` if a pass reported a diagnostic.
/// Panics on an internal compiler error (a caught panic of a pass) or on IR that fails to
/// verify after a pass.
fn run_pm(ctx: &mut Context, module: OpId, pm: &mut PassManager, name: &str) -> bool {
    match pm.run(ctx, module) {
        Ok(()) => true,
        Err(d) => {
            let rendered = ctx.render(&d);
            assert!(!d.message.starts_with("internal compiler error"), "{rendered}");
            assert!(
                !d.notes.iter().any(|n| n.message.contains("failed to verify after pass")),
                "pipeline '{name}' produced invalid IR:\n{rendered}"
            );
            false
        }
    }
}

/// Named pipeline `name` (one of [`PIPELINES`]) on parsed and verified input: a diagnostic
/// or IR that verifies and round-trips; never a panic.
pub fn pipeline(name: &str, data: &[u8]) {
    let Some(src) = text(data) else { return };
    let mut ctx = context(false);
    let Some(m) = load(&mut ctx, &src, true) else { return };
    bump(&PIPELINE_STAGES[0]);
    if !run_pipeline(&mut ctx, m, name, None) {
        return;
    }
    bump(&PIPELINE_STAGES[1]);
    if let Err(d) = morf_ir::verify(&ctx, m) {
        panic!("pipeline '{name}' output does not verify:\n{}", ctx.render(&d));
    }
    let custom = print_op(&ctx, m, &PrintOptions::default());
    let generic = print_op(&ctx, m, &PrintOptions { generic: true, ..Default::default() });
    check_roundtrip(&custom, &generic);
}

/// Pass options that would make a run slow or write files, which a user asks for
/// knowingly: [`pass_pipeline`] skips pipelines that set them.
const COSTLY_OPTIONS: [&str; 5] = ["time-limit-ms", "max-nodes", "max-iterations", "dump-egraph", "report"];

/// The first line of the input is pipeline text (as `--pass-pipeline` takes it), the rest
/// IR. Pipeline text that does not parse, or names unknown passes or bad options, must give
/// an error; on verified IR the passes must end as in [`pipeline`].
pub fn pass_pipeline(data: &[u8]) {
    let Some(src) = text(data) else { return };
    let (first, rest) = src.split_once('\n').unwrap_or((&src, ""));
    let Ok(parsed) = parse_pipeline(first) else { return };
    if COSTLY_OPTIONS.iter().any(|o| first.contains(o)) {
        return;
    }
    let reg = registry();
    let mut pm = PassManager::new(Instrumentation { verify_each: true, ..Default::default() });
    if pm.add_pipeline(&reg, &parsed).is_err() {
        return;
    }
    // The pipeline line stays in the source as a blank line, so IR lines keep their numbers.
    let ir = format!("\n{rest}");
    let mut ctx = context(false);
    let Some(m) = load(&mut ctx, &ir, true) else { return };
    bump(&PIPELINE_STAGES[0]);
    if !run_pm(&mut ctx, m, &mut pm, first) {
        return;
    }
    bump(&PIPELINE_STAGES[1]);
    if let Err(d) = morf_ir::verify(&ctx, m) {
        panic!("pipeline '{first}' output does not verify:\n{}", ctx.render(&d));
    }
    let custom = print_op(&ctx, m, &PrintOptions::default());
    let generic = print_op(&ctx, m, &PrintOptions { generic: true, ..Default::default() });
    check_roundtrip(&custom, &generic);
}

/// The `fuse` pipeline target.
pub fn pipeline_fuse(data: &[u8]) {
    pipeline("fuse", data)
}

/// The `gpu` pipeline target.
pub fn pipeline_gpu(data: &[u8]) {
    pipeline("gpu", data)
}

/// The `gpu-unfused` pipeline target.
pub fn pipeline_gpu_unfused(data: &[u8]) {
    pipeline("gpu-unfused", data)
}

/// A small deterministic hash (FNV-1a) of the input, for sizes and values.
fn fnv(data: &[u8]) -> u64 {
    morf_ir::hash::fnv1a(data)
}

/// Sizes the interpreter target gives dynamic dims: small, empty, and one past a warp.
const DIM_SIZES: [usize; 8] = [1, 2, 3, 5, 0, 33, 1, 4];

/// Arguments for `func`: float tensors and buffers with small shapes (each dynamic dim one
/// of [`DIM_SIZES`], one size per `morf.dims` name), index and integer scalars 3, float
/// scalars 1.5; and the sizes given to names, as size hints (`M=3,N=33`). `None` when an
/// argument has another type or a shape over [`INTERP_MAX_ELEMENTS`].
fn make_args(ctx: &Context, func: OpId, seed: u64) -> Option<(Vec<RtValue>, String)> {
    let block = ctx.entry_block(*ctx.regions(func).first()?)?;
    let arg_attrs: Vec<morf_ir::Attr> =
        ctx.attr(func, "arg_attrs").and_then(|a| ctx.attr_array(a)).map(|a| a.to_vec()).unwrap_or_default();
    let mut named: HashMap<String, usize> = HashMap::new();
    let mut state = seed | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut out = Vec::new();
    for (i, &a) in ctx.block_args(block).iter().enumerate() {
        let ty = ctx.value_type(a);
        let names: Vec<Option<String>> = arg_attrs
            .get(i)
            .and_then(|d| match ctx.attr_data(*d) {
                morf_ir::AttrData::Dict(e) => e.iter().find(|(k, _)| ctx.str(*k) == "morf.dims").map(|(_, v)| *v),
                _ => None,
            })
            .and_then(|v| ctx.attr_array(v))
            .map(|items| items.iter().map(|x| ctx.attr_str(*x).map(str::to_string)).collect())
            .unwrap_or_default();
        let (dims, buffer) = match ctx.type_data(ty) {
            TypeData::Tensor { shape, elem } if ctx.float_kind(*elem).is_some() => (shape.clone(), false),
            TypeData::Index | TypeData::Integer(_) => {
                out.push(RtValue::Int(3));
                continue;
            }
            _ if ctx.float_kind(ty).is_some() => {
                out.push(RtValue::Float(1.5));
                continue;
            }
            _ => match morf_loop::buffer_parts(ctx, ty) {
                Some((shape, e)) if ctx.float_kind(e).is_some() => (shape.to_vec(), true),
                _ => return None,
            },
        };
        let mut shape = Vec::with_capacity(dims.len());
        for (d, dim) in dims.iter().enumerate() {
            shape.push(match dim {
                Dim::Static(n) => usize::try_from(*n).ok()?,
                Dim::Dynamic => {
                    let fresh = DIM_SIZES[(next() % DIM_SIZES.len() as u64) as usize];
                    match names.get(d).cloned().flatten() {
                        Some(n) => *named.entry(n).or_insert(fresh),
                        None => fresh,
                    }
                }
            });
        }
        let n = shape.iter().try_fold(1usize, |acc, &x| acc.checked_mul(x)).filter(|&n| n <= INTERP_MAX_ELEMENTS)?;
        let kind = ctx.float_kind(ctx.element_type(ty))?;
        let data: Vec<f64> = (0..n).map(|_| kind.round((next() % 2001) as f64 / 500.0 - 2.0)).collect();
        let elem = ctx.element_type(ty);
        let array = Array::new(shape, data);
        out.push(if buffer {
            RtValue::Buffer { elem, data: Rc::new(RefCell::new(array)) }
        } else {
            RtValue::Tensor { elem, array: Rc::new(array) }
        });
    }
    let mut hints: Vec<String> = named.iter().map(|(n, s)| format!("{n}={s}")).collect();
    hints.sort();
    Some((out, hints.join(",")))
}

/// The first `func.func` with a body directly inside `module`.
fn first_function(ctx: &Context, module: OpId) -> Option<OpId> {
    let b = ctx.entry_block(*ctx.regions(module).first()?)?;
    ctx.block_ops(b)
        .find(|o| ctx.op_name(*o) == "func.func" && ctx.regions(*o).first().and_then(|r| ctx.entry_block(*r)).is_some())
}

/// Runs `func` on `args` with [`INTERP_MAX_STEPS`] and [`INTERP_MAX_ELEMENTS`]; the
/// results, or `None` on a diagnostic (rendered).
fn run_bounded(ctx: &Context, func: OpId, args: Vec<RtValue>) -> Option<Vec<RtValue>> {
    let mut m = Machine::new();
    m.max_steps = INTERP_MAX_STEPS;
    let prev = morf_ir::interp::set_element_limit(INTERP_MAX_ELEMENTS);
    let r = m.call(ctx, func, args);
    morf_ir::interp::set_element_limit(prev);
    match r {
        Ok(v) => Some(v),
        Err(d) => {
            let _ = ctx.render(&d);
            None
        }
    }
}

/// How far [`interp`] inputs got: parsed and verified, ran on the reference interpreter,
/// lowered by the `gpu` pipeline, compared after a run on the simulator.
pub static INTERP_STAGES: [AtomicU64; 4] = [const { AtomicU64::new(0) }; 4];

/// How far [`pipeline`] inputs got: parsed and verified, through the pipeline.
pub static PIPELINE_STAGES: [AtomicU64; 2] = [const { AtomicU64::new(0) }; 2];

fn bump(c: &AtomicU64) {
    c.fetch_add(1, Ordering::Relaxed);
}

/// The interpreters: the first function of parsed, verified input runs on small random
/// inputs; if it runs and the module has no kernels yet, the `gpu` pipeline lowers it and
/// the host function runs again, its launches on the GPU simulator.
pub fn interp(data: &[u8]) {
    let Some(src) = text(data) else { return };
    let mut ctx = context(false);
    let Some(m) = load(&mut ctx, &src, true) else { return };
    bump(&INTERP_STAGES[0]);
    let Some(func) = first_function(&ctx, m) else { return };
    let seed = fnv(data);
    let Some((args, hints)) = make_args(&ctx, func, seed) else { return };
    let Some(reference) = run_bounded(&ctx, func, args) else { return };
    bump(&INTERP_STAGES[1]);
    let has_kernels = ctx.block_ops(ctx.entry_block(ctx.regions(m)[0]).expect("module body")).any(|o| {
        let n = ctx.op_name(o);
        n.starts_with("mgpu.") || n == "gpu.module"
    });
    if has_kernels {
        return;
    }
    let Some(name) = morf_ir::builtin::symbol_name(&ctx, func).map(str::to_string) else { return };
    // Half of the inputs compile for the sizes they run at (as `morf-run --device auto`
    // does), half without hints. Hints go into pipeline text, so only names that are
    // identifiers can be hints (morf-run has the same limit).
    let ident = |n: &str| {
        n.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    let usable = hints.split(',').all(|h| h.split_once('=').is_some_and(|(n, _)| ident(n)));
    let hints = (seed & 1 == 0 && !hints.is_empty() && usable).then_some(hints);
    if !run_pipeline(&mut ctx, m, "gpu", hints.as_deref()) {
        return;
    }
    bump(&INTERP_STAGES[2]);
    let Some(lowered) = morf_ir::builtin::lookup_function(&ctx, m, &name) else {
        panic!("the 'gpu' pipeline dropped the function @{name}");
    };
    let Some((args, _)) = make_args(&ctx, lowered, seed) else { return };
    let Some(out) = run_bounded(&ctx, lowered, args) else { return };
    bump(&INTERP_STAGES[3]);
    // The compiled program must compute what the reference interpreter computed, within
    // morf-run's tolerances (`--check`), wherever that output is well-conditioned.
    for c in morf_engine::check::compare_outputs(&ctx, &out, &reference) {
        if !c.ok() && c.note.is_none() && ill_conditioned(&src, seed, c.index, c.tol) {
            continue;
        }
        assert!(c.ok(), "the 'gpu' pipeline miscompiles @{name} (hints {hints:?}): {c}");
    }
}

/// Relative size of the input perturbation of [`ill_conditioned`]: 8 ulps of f32.
const PERTURBATION: f64 = 1.0 / (1u64 << 20) as f64;

/// Whether output `index` of the first function of `src` (on [`make_args`]' inputs for `seed`)
/// moves by more than half of `tol` when every f32/f64 input moves by [`PERTURBATION`]
/// (relative, alternating signs): its condition number is then over ~5, and f32 arithmetic
/// in another order than the reference's may miss `tol` on a correct program (a row of values
/// in [-2, 2] that sums to nearly 0). Such outputs say nothing about the compiler.
fn ill_conditioned(src: &str, seed: u64, index: usize, tol: f64) -> bool {
    let mut ctx = context(false);
    let Some(m) = load(&mut ctx, src, true) else { return false };
    let Some(func) = first_function(&ctx, m) else { return false };
    let Some((args, _)) = make_args(&ctx, func, seed) else { return false };
    let Some(reference) = run_bounded(&ctx, func, args.clone()) else { return false };
    let wide = |e: morf_ir::Type| matches!(ctx.float_kind(e), Some(morf_ir::FloatKind::F32 | morf_ir::FloatKind::F64));
    let nudge = |a: &Array| {
        let data =
            a.data.iter().enumerate().map(|(k, &x)| x * (1.0 + if k % 2 == 0 { PERTURBATION } else { -PERTURBATION }));
        Array::new(a.shape.clone(), data.collect())
    };
    let perturbed: Vec<RtValue> = args
        .into_iter()
        .map(|a| match a {
            RtValue::Tensor { elem, array } if wide(elem) => RtValue::Tensor { elem, array: Rc::new(nudge(&array)) },
            RtValue::Buffer { elem, data } if wide(elem) => {
                let moved = nudge(&data.borrow());
                RtValue::Buffer { elem, data: Rc::new(RefCell::new(moved)) }
            }
            other => other,
        })
        .collect();
    let Some(moved) = run_bounded(&ctx, func, perturbed) else { return false };
    morf_engine::check::compare_outputs(&ctx, &moved, &reference)
        .iter()
        .any(|c| c.index == index && (c.note.is_some() || c.rel_err > tol / 2.0))
}

/// The `.npy` reader on arbitrary bytes: an error, or an array whose data length is the
/// product of its shape.
pub fn npy(data: &[u8]) {
    if data.len() > MAX_INPUT_LEN {
        return;
    }
    if let Ok(a) = read_npy(data) {
        let n = a.shape.iter().try_fold(1usize, |acc, &x| acc.checked_mul(x));
        assert_eq!(n, Some(a.data.len()), "shape {:?} does not match {} values", a.shape, a.data.len());
    }
}

/// Reads `.npy` bytes with the engine's npy reader.
fn read_npy(data: &[u8]) -> Result<morf_engine::npy::NpyArray, morf_engine::npy::NpyError> {
    morf_engine::npy::read_npy_bytes(data, std::path::Path::new("fuzz.npy"))
}
