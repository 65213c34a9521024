//! Differential testing on the GPU (issue 8, "Hardening", item 5).
//!
//! Random mixed-order programs (`morf_tensor::progen`, resized to realistic shapes) and every
//! program of `examples/` are compiled by the `gpu` pipeline, run, and compared with the fp64
//! reference interpreter of the program as written. The contract for every output: equal
//! shapes; NaN exactly where the reference has NaN; infinities equal; relative L2 error
//! `||out - ref|| / ||ref||` over the remaining elements at most 1e-5 for f32/f64 and 1e-2
//! for bf16/f16.
//!
//! Where the programs run:
//! - with a CUDA driver and a GPU (or `MORF_GPU_DIFF_DEVICE=gpu`): on GPU 0 through
//!   [`morf_engine::compile::compile_for_gpu`] (PTX, `morf-runtime`, the host executor);
//! - otherwise (or `MORF_GPU_DIFF_DEVICE=sim`): on morf's CPU simulator of the kernels
//!   (the same `gpu` pipeline and PTX emission, then every `mgpu.launch` on `morf_gpu::sim`),
//!   with small counts and shapes, so that CI exercises the harness.
//!
//! The tests:
//! - [`random_programs`]: `MORF_GPU_DIFF_PROGRAMS` programs (GPU default 2000, simulator 200)
//!   from seed `MORF_GPU_DIFF_SEED` on (default 0), or exactly the comma-separated seeds of
//!   `MORF_GPU_DIFF_SEEDS`; `MORF_GPU_DIFF_THREADS` workers (default: all cores);
//! - [`examples_at_odd_shapes`]: every example at the odd shapes of [`example_shapes`] (M=1, 7,
//!   1000003; N=1, 100, 5120, 12288, ...) and the benchmark shape M=65536,N=1024 (simulator:
//!   small odd shapes only; `MORF_GPU_DIFF_EXAMPLE_SHAPES=MxN,...` replaces the list);
//! - [`column_reductions_are_deterministic`]: dw/db of the RMSNorm and LayerNorm backward
//!   examples bitwise identical over `MORF_GPU_DIFF_DET_RUNS` runs (GPU default 100), compiled
//!   as `morf-run` compiles them (the committed tuning cache on the GPU), at the bf16 benchmark
//!   rows and 4099x1000 (`MORF_GPU_DIFF_DET_SHAPES=MxN,...` replaces the list); shapes over
//!   `MORF_GPU_DIFF_DET_REF_MAX` elements (default 2^26) skip the fp64 reference and dx;
//! - [`no_device_memory_growth`]: `MORF_GPU_DIFF_MEM_CALLS` calls (default 10^4) of one compiled
//!   program in this process (upload, run, download, release) must not lose free device memory
//!   (`cuMemGetInfo`) beyond `MORF_GPU_DIFF_MEM_TOL_MIB` (default 4), after 100 warm-up calls
//!   (GPU only).
//!
//! Each test prints a summary table and, when `MORF_GPU_DIFF_JSON_DIR` names a folder, writes
//! `<test>.json` there (every program's seed, shapes, dtypes, errors; failing programs with
//! their text). `MORF_GPU_DIFF_EXAMPLES` names the examples folder for a binary carried to
//! another machine. `tools/morf-run/scripts/gpu-difftest.sh` runs all of this on a GPU machine.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use morf_engine::compile::{
    compile_for_gpu, emit_ptx, has_kernels, pass_registry, run_named_pipeline, size_hints_from_args, GpuProgram,
    GPU_PIPELINE,
};
use morf_engine::gpu_exec::DevValue;
use morf_engine::tuning::{pipeline_for_compile, DeviceKey, ProgramRef, TuningSource};
use morf_engine::{bind_arguments, compare_values, load_module, new_context, select_function, RunOptions};
use morf_ir::interp::{run_function, Array, RtValue};
use morf_ir::numerics::tolerance;
use morf_ir::{AttrData, Context, FloatKind, OpId};
use morf_runtime::Gpu;
use morf_tensor::progen::{generate, GenConfig, Rng};
use serde::Serialize;

// ---------------------------------------------------------------------------------------
// Configuration
// ---------------------------------------------------------------------------------------

/// Where the programs run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Device {
    /// GPU 0, through PTX and `morf-runtime`.
    Gpu,
    /// The CPU simulator of the kernels.
    Sim,
}

impl Device {
    fn name(self) -> &'static str {
        match self {
            Device::Gpu => "gpu",
            Device::Sim => "sim",
        }
    }
}

/// `MORF_GPU_DIFF_DEVICE` (`gpu`, `sim` or `auto`, the default): `auto` is the GPU when
/// a device can be opened, else the simulator.
fn device() -> Device {
    match std::env::var("MORF_GPU_DIFF_DEVICE").as_deref() {
        Ok("gpu") => Device::Gpu,
        Ok("sim") => Device::Sim,
        Ok("auto") | Err(_) => {
            if morf_runtime::cuda_available() && Gpu::new(0).is_ok() {
                Device::Gpu
            } else {
                Device::Sim
            }
        }
        Ok(other) => panic!("MORF_GPU_DIFF_DEVICE={other}: expected gpu, sim or auto"),
    }
}

fn env_usize(name: &str, default: usize) -> usize {
    match std::env::var(name) {
        Ok(v) => v.trim().parse().unwrap_or_else(|_| panic!("{name}={v}: expected a non-negative integer")),
        Err(_) => default,
    }
}

fn threads() -> usize {
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    env_usize("MORF_GPU_DIFF_THREADS", cores).max(1)
}

/// Writes `report` as JSON to `$MORF_GPU_DIFF_JSON_DIR/<name>.json` (atomically: a temporary
/// file, then a rename) when that variable is set. Floats that JSON cannot hold (NaN,
/// infinities: an error that could not be measured) are written as `null`.
fn write_json(name: &str, report: &impl Serialize) {
    if let Ok(dir) = std::env::var("MORF_GPU_DIFF_JSON_DIR") {
        let dir = PathBuf::from(dir);
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
        let path = dir.join(format!("{name}.json"));
        let mut json = serde_json::to_string_pretty(report).expect("a report serializes to JSON");
        json.push('\n');
        morf_ir::io::write_atomic(&path, json.as_bytes())
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        eprintln!("wrote {}", path.display());
    }
}

/// `x` rounded to `digits` decimals (the precision a figure is reported with).
fn round(x: f64, digits: i32) -> f64 {
    let p = 10f64.powi(digits);
    (x * p).round() / p
}

/// The device of a report: `{"kind": "gpu", "name", "driver"}` or `{"kind": "sim", "name"}`.
#[derive(Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
enum DeviceJson {
    Gpu { name: String, driver: i32 },
    Sim { name: &'static str },
}

fn device_json(gpu: Option<&Gpu>) -> DeviceJson {
    match gpu {
        Some(g) => DeviceJson::Gpu {
            name: g.device_name().unwrap_or_else(|_| "?".into()),
            driver: g.driver_version().unwrap_or(0),
        },
        None => DeviceJson::Sim { name: "CPU (GPU simulator)" },
    }
}

/// One output of a report: its dtype (`int` when it has no float type), its relative error
/// (`null` when not comparable) and, in the random programs' records, whether it passed.
#[derive(Serialize)]
struct OutputJson {
    dtype: &'static str,
    rel_err: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    ok: Option<bool>,
}

impl OutputJson {
    fn of(c: &OutCheck, with_ok: bool) -> Self {
        OutputJson {
            dtype: c.kind.map(FloatKind::name).unwrap_or("int"),
            rel_err: c.rel_err,
            ok: with_ok.then_some(c.problem.is_none()),
        }
    }
}

// ---------------------------------------------------------------------------------------
// The comparison
// ---------------------------------------------------------------------------------------

/// The comparison of one output with the reference.
#[derive(Clone, Debug)]
struct OutCheck {
    /// The reference output's element type (`None` for integers and scalars of no float type).
    kind: Option<FloatKind>,
    /// Relative L2 error over the elements finite in both (NaN when not comparable).
    rel_err: f64,
    /// Why the output fails, if it does.
    problem: Option<String>,
}

fn shape_and_data(v: &RtValue) -> (Vec<usize>, Vec<f64>) {
    match v {
        RtValue::Tensor { array, .. } => (array.shape.clone(), array.data.clone()),
        RtValue::Buffer { data, .. } => {
            let a = data.borrow();
            (a.shape.clone(), a.data.clone())
        }
        RtValue::Float(x) => (vec![], vec![*x]),
        RtValue::Int(i) => (vec![], vec![*i as f64]),
    }
}

fn elem_kind(ctx: &Context, v: &RtValue) -> Option<FloatKind> {
    match v {
        RtValue::Tensor { elem, .. } | RtValue::Buffer { elem, .. } => ctx.float_kind(*elem),
        _ => None,
    }
}

/// Compares `out` with `reference` (whose element types are in `rctx`), output by output,
/// each against the tolerance of its own element type.
fn compare(rctx: &Context, out: &[RtValue], reference: &[RtValue]) -> Vec<OutCheck> {
    compare_judged(rctx, out, reference, &[])
}

/// [`compare`], with output `i` judged by the tolerance of `precisions[i]` where given: the
/// least precise float type on its way through the program
/// (`morf_ir::numerics::result_precisions`), as `morf-run --check` does.
fn compare_judged(
    rctx: &Context,
    out: &[RtValue],
    reference: &[RtValue],
    precisions: &[Option<FloatKind>],
) -> Vec<OutCheck> {
    let mut checks = Vec::new();
    for i in 0..out.len().max(reference.len()) {
        let (Some(o), Some(r)) = (out.get(i), reference.get(i)) else {
            checks.push(OutCheck { kind: None, rel_err: f64::NAN, problem: Some(format!("output {i} is missing")) });
            continue;
        };
        let kind = elem_kind(rctx, r);
        let judged = match (kind, precisions.get(i).copied().flatten()) {
            (Some(k), Some(p)) => Some(k.min(p)),
            (k, _) => k,
        };
        let tol = judged.map(tolerance).unwrap_or(0.0);
        let ((so, od), (sr, rd)) = (shape_and_data(o), shape_and_data(r));
        if so != sr || od.len() != rd.len() {
            checks.push(OutCheck {
                kind,
                rel_err: f64::NAN,
                problem: Some(format!("output {i}: shape {so:?}, reference {sr:?}")),
            });
            continue;
        }
        let c = compare_values(&od, &rd);
        let (rel_err, mut problem) = (c.rel_err, c.mismatch.map(|m| format!("output {i}: {m}")));
        if problem.is_none() && (rel_err.is_nan() || rel_err > tol) {
            problem = Some(format!("output {i}: relative error {rel_err:.3e} exceeds {tol:e}"));
        }
        checks.push(OutCheck { kind, rel_err, problem });
    }
    checks
}

// ---------------------------------------------------------------------------------------
// Running one program on the device or the simulator
// ---------------------------------------------------------------------------------------

/// Where a program failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    /// The `gpu` pipeline, PTX emission or the PTX load.
    Compile,
    /// The run (a launch, a copy, the host executor).
    Run,
    /// The outputs disagree with the reference.
    Compare,
}

impl Stage {
    fn name(self) -> &'static str {
        match self {
            Stage::Compile => "compile",
            Stage::Run => "run",
            Stage::Compare => "compare",
        }
    }
}

/// What a compiled and executed program returned, or where it failed.
type Executed = Result<Vec<RtValue>, (Stage, String)>;

/// Arguments of `func` (in `ctx`) holding `inputs`: tensors or buffers per its signature.
fn values_for(ctx: &Context, func: OpId, inputs: &[(Vec<usize>, Vec<f64>)]) -> Vec<RtValue> {
    let region = ctx.regions(func)[0];
    let block = ctx.entry_block(region).expect("function body");
    ctx.block_args(block)
        .iter()
        .zip(inputs)
        .map(|(p, (shape, data))| {
            let t = ctx.value_type(*p);
            let elem = ctx.element_type(t);
            let array = Array::new(shape.clone(), data.clone());
            if ctx.is_tensor(t) {
                RtValue::Tensor { elem, array: Rc::new(array) }
            } else {
                RtValue::Buffer { elem, data: Rc::new(std::cell::RefCell::new(array)) }
            }
        })
        .collect()
}

/// Compiles `text` with the `gpu` pipeline (size hints `hints`) and runs it on `inputs`:
/// on `gpu`, or on the simulator when `gpu` is `None`.
fn execute(gpu: Option<&Gpu>, name: &str, text: &str, hints: Option<&str>, args: &[RtValue]) -> Executed {
    match gpu {
        Some(gpu) => {
            let prog = compile_for_gpu(gpu, name, text, None, false, GPU_PIPELINE, hints)
                .map_err(|e| (Stage::Compile, e.to_string()))?;
            run_on_gpu(gpu, &prog, args)
        }
        None => {
            let mut ctx = new_context(false);
            let module = load_module(&mut ctx, name, text).map_err(|e| (Stage::Compile, e.to_string()))?;
            let fname = {
                let f = select_function(&ctx, module, None, name).map_err(|e| (Stage::Compile, e.to_string()))?;
                morf_ir::builtin::symbol_name(&ctx, f).unwrap_or("?").to_string()
            };
            if !has_kernels(&ctx, module) {
                run_named_pipeline(&mut ctx, module, &pass_registry(), GPU_PIPELINE, hints)
                    .map_err(|e| (Stage::Compile, e.to_string()))?;
            }
            emit_ptx(&ctx, module).map_err(|e| (Stage::Compile, e.to_string()))?;
            let func = morf_ir::builtin::lookup_function(&ctx, module, &fname)
                .ok_or_else(|| (Stage::Compile, format!("no host function @{fname} after lowering")))?;
            let inputs: Vec<(Vec<usize>, Vec<f64>)> = args.iter().map(shape_and_data).collect();
            let vals = values_for(&ctx, func, &inputs);
            run_function(&ctx, func, vals).map_err(|d| (Stage::Run, ctx.render(&d)))
        }
    }
}

/// Uploads `args`, calls the host function of `prog` once, waits and downloads the results.
/// This is [`GpuProgram::run`] without its device-memory estimate (`morf-run`'s guard against
/// running out of memory): the harness tests the kernels, and the largest shapes it runs fit
/// the device by far.
fn run_on_gpu(gpu: &Gpu, prog: &GpuProgram, args: &[RtValue]) -> Executed {
    let run_err = |e: String| (Stage::Run, e);
    let mut exec = prog.executor(gpu);
    let dev_args = prog.upload_args(&mut exec, args).map_err(|e| run_err(e.to_string()))?;
    let outs = exec.call(&dev_args).map_err(|e| run_err(format!("{e:?}")))?;
    gpu.synchronize().map_err(|e| run_err(e.to_string()))?;
    outs.iter().map(|o| exec.download(o).map_err(|e| run_err(format!("{e:?}")))).collect()
}

/// Whether `msg` is `compile_for_gpu` refusing a program whose lowered host function launches
/// no kernel (e.g. one that returns an argument); counted apart from failures.
fn is_no_kernel(msg: &str) -> bool {
    msg.contains("launches no kernel")
}

/// Whether `msg` is PTX emission declining an op it does not implement (a documented gap,
/// counted apart from failures).
fn is_unsupported(msg: &str) -> bool {
    msg.contains("cannot be emitted to PTX: not supported")
}

/// Whether `msg` is a CUDA error after which the context may be unusable.
fn is_cuda_error(msg: &str) -> bool {
    msg.contains("CUDA_ERROR")
}

/// Whether the device still works (a sticky error, e.g. an illegal address, breaks it).
fn device_alive(gpu: &Gpu) -> bool {
    gpu.synchronize().is_ok() && gpu.alloc_bytes(256).is_ok()
}

// ---------------------------------------------------------------------------------------
// Random programs at realistic sizes
// ---------------------------------------------------------------------------------------

/// Sizes a generated axis can get on the GPU: odd ones, multiples of 32 and of the vector
/// widths, one off either side of them, and a few wide rows.
const GPU_SIZES: &[usize] = &[
    1, 2, 3, 5, 7, 8, 17, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 255, 256, 257, 384, 500, 511, 512, 513, 1000,
    1023, 1024, 1025, 2047, 2048, 4096, 5120,
];
/// Sizes on the simulator (small: it interprets every thread).
const SIM_SIZES: &[usize] = &[1, 2, 3, 5, 7, 8, 17, 31, 32, 33, 40, 65, 100];
/// Long axes of the large programs.
const LARGE_SIZES: &[usize] = &[65536, 65537, 100003, 262144];

/// One generated program at the sizes it runs with.
struct Case {
    seed: u64,
    /// The generator's configuration, by name.
    config: &'static str,
    /// The program text (sizes rewritten).
    text: String,
    /// Argument shapes and values.
    inputs: Vec<(Vec<usize>, Vec<f64>)>,
    /// Argument element types.
    dtypes: Vec<FloatKind>,
    /// The full-rank (base) shape.
    base: Vec<usize>,
    /// Size hints of the first argument's axes (`d0=..,d1=..`), when the program names them.
    hints: Option<String>,
    /// Whether this is one of the large programs.
    large: bool,
}

/// Rewrites the static sizes of every `tensor<...>` type of `text` by `map`.
fn rewrite_sizes(text: &str, map: &BTreeMap<usize, usize>) -> String {
    let mut out = String::with_capacity(text.len() + 64);
    let mut rest = text;
    while let Some(i) = rest.find("tensor<") {
        out.push_str(&rest[..i + 7]);
        rest = &rest[i + 7..];
        let end = rest.find('>').expect("a closed tensor type");
        let parts: Vec<String> = rest[..end]
            .split('x')
            .map(|p| match p.parse::<usize>() {
                Ok(n) => map.get(&n).copied().unwrap_or(n).to_string(),
                Err(_) => p.to_string(),
            })
            .collect();
        out.push_str(&parts.join("x"));
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// Names the axes of `%a0` (`morf.dims = ["d0", ...]`) so that size hints reach the fusion
/// search and the GPU mapping, as `morf-run` does for the examples.
fn name_axes(text: &str, rank: usize) -> String {
    let Some(start) = text.find("%a0: tensor<") else { return text.to_string() };
    let Some(len) = text[start..].find('>') else { return text.to_string() };
    let at = start + len + 1;
    let names: Vec<String> = (0..rank).map(|i| format!("\"d{i}\"")).collect();
    format!("{} {{morf.dims = [{}]}}{}", &text[..at], names.join(", "), &text[at..])
}

/// Program `seed` at sizes drawn for `sizes` (the device they suit): the generator's small sizes (1..16) are
/// mapped, value by value, to sizes of [`GPU_SIZES`] (or [`SIM_SIZES`]) with at most
/// `budget` elements in the full-rank shape; one program in 40 on the GPU is large (one axis
/// of [`LARGE_SIZES`], up to `large_budget` elements).
fn make_case(seed: u64, sizes: Device, budget: usize, large_budget: usize) -> Case {
    let (cfg, config) = match seed % 3 {
        2 => (GenConfig { max_rank: 2, max_ops: 20, ..GenConfig::default() }, "rank2-dense"),
        _ => (GenConfig::default(), "default"),
    };
    let p = generate(seed, &cfg);
    let mut rng = Rng::new(seed ^ 0x005e_ed0f_5123);
    let base_old = p.args[0].shape.clone();
    let mut distinct: Vec<usize> = base_old.clone();
    distinct.sort_unstable();
    distinct.dedup();
    // The long axis must be the only one of its generated size (sizes map value by value).
    let once: Vec<usize> =
        (0..distinct.len()).filter(|&i| base_old.iter().filter(|&&s| s == distinct[i]).count() == 1).collect();
    let large = sizes == Device::Gpu && seed % 40 == 7 && !once.is_empty();
    let table = if sizes == Device::Gpu { GPU_SIZES } else { SIM_SIZES };
    let mut map = BTreeMap::new();
    for attempt in 0.. {
        map.clear();
        let long = large.then(|| *rng.pick(&once));
        for (i, &old) in distinct.iter().enumerate() {
            let new = if long == Some(i) { *rng.pick(LARGE_SIZES) } else { *rng.pick(table) };
            // Later attempts shrink the draws so that a rank-3 program always fits.
            let new = if attempt > 20 && long != Some(i) { new.min(1 + 31 / (attempt - 19)) } else { new };
            map.insert(old, new);
        }
        let elems: usize = base_old.iter().map(|s| map[s]).product();
        if elems <= if large { large_budget } else { budget } {
            break;
        }
    }
    let text = rewrite_sizes(&p.text, &map);
    let named = seed % 2 == 1;
    let text = if named { name_axes(&text, base_old.len()) } else { text };
    let base: Vec<usize> = base_old.iter().map(|s| map[s]).collect();
    let hints = named.then(|| base.iter().enumerate().map(|(i, s)| format!("d{i}={s}")).collect::<Vec<_>>().join(","));
    let mut vals = Rng::new(seed.wrapping_mul(31).wrapping_add(7));
    let inputs = p
        .args
        .iter()
        .map(|a| {
            let shape: Vec<usize> = a.shape.iter().map(|s| map[s]).collect();
            let n: usize = shape.iter().product();
            (shape, (0..n).map(|_| a.elem.round(vals.normal())).collect())
        })
        .collect();
    Case { seed, config, text, inputs, dtypes: p.args.iter().map(|a| a.elem).collect(), base, hints, large }
}

/// The outcome of one random program.
#[derive(Clone, Debug)]
struct Record {
    seed: u64,
    config: &'static str,
    base: Vec<usize>,
    shapes: Vec<Vec<usize>>,
    dtypes: Vec<FloatKind>,
    hinted: bool,
    large: bool,
    /// `pass`, `fail`, `skip` (the reference interpreter rejects the program),
    /// `unsupported` (PTX emission reports an op it does not implement yet, e.g. f64 `tanh`),
    /// `no-kernel` (`compile_for_gpu` refuses a host function that launches no kernel)
    /// or `aborted` (a CUDA error of another program broke the context first).
    status: &'static str,
    stage: Option<Stage>,
    outputs: Vec<OutCheck>,
    error: Option<String>,
    /// The program text, for failures.
    text: Option<String>,
    /// Milliseconds in all, and in the reference interpreter.
    ms: f64,
    ref_ms: f64,
}

/// A record of `random_programs.json`; `stage`, `error` and `program` only when set.
#[derive(Serialize)]
struct RecordJson<'a> {
    seed: u64,
    config: &'a str,
    base: &'a [usize],
    shapes: &'a [Vec<usize>],
    dtypes: Vec<&'static str>,
    hinted: bool,
    large: bool,
    status: &'a str,
    ms: f64,
    ref_ms: f64,
    outputs: Vec<OutputJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stage: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    program: Option<&'a str>,
}

impl<'a> RecordJson<'a> {
    fn of(r: &'a Record) -> Self {
        RecordJson {
            seed: r.seed,
            config: r.config,
            base: &r.base,
            shapes: &r.shapes,
            dtypes: r.dtypes.iter().map(|d| d.name()).collect(),
            hinted: r.hinted,
            large: r.large,
            status: r.status,
            ms: round(r.ms, 1),
            ref_ms: round(r.ref_ms, 1),
            outputs: r.outputs.iter().map(|o| OutputJson::of(o, true)).collect(),
            stage: r.stage.map(Stage::name),
            error: r.error.as_deref(),
            program: r.text.as_deref(),
        }
    }
}

/// The largest relative error of one output dtype, at which seed, over how many outputs.
#[derive(Serialize)]
struct MaxErrJson {
    max: f64,
    seed: u64,
    outputs: usize,
}

/// `random_programs.json`.
#[derive(Serialize)]
struct RandomProgramsJson<'a> {
    test: &'static str,
    device: DeviceJson,
    programs: usize,
    passed: usize,
    failed: usize,
    unsupported: usize,
    no_kernel: usize,
    no_kernel_seeds: Vec<u64>,
    unsupported_seeds: Vec<u64>,
    skipped: usize,
    aborted: usize,
    not_run: Vec<u64>,
    failed_seeds: Vec<u64>,
    wall_s: f64,
    threads: usize,
    budget_elements: usize,
    large: usize,
    max_rel_err: BTreeMap<&'static str, MaxErrJson>,
    records: Vec<RecordJson<'a>>,
}

/// Runs one case: reference, compile, run, compare.
fn check_case(gpu: Option<&Gpu>, case: &Case) -> Record {
    let t0 = Instant::now();
    let mut rec = Record {
        seed: case.seed,
        config: case.config,
        base: case.base.clone(),
        shapes: case.inputs.iter().map(|(s, _)| s.clone()).collect(),
        dtypes: case.dtypes.clone(),
        hinted: case.hints.is_some(),
        large: case.large,
        status: "pass",
        stage: None,
        outputs: Vec::new(),
        error: None,
        text: None,
        ms: 0.0,
        ref_ms: 0.0,
    };
    let name = format!("seed{}.mlir", case.seed);
    let mut rctx = new_context(false);
    let reference = load_module(&mut rctx, &name, &case.text)
        .map_err(|e| e.to_string())
        .and_then(|m| select_function(&rctx, m, None, &name).map_err(|e| e.to_string()))
        .and_then(|f| {
            let args = values_for(&rctx, f, &case.inputs);
            let precisions = morf_ir::numerics::result_precisions(&rctx, f);
            run_function(&rctx, f, args.clone()).map(|r| (r, args, precisions)).map_err(|d| rctx.render(&d))
        });
    rec.ref_ms = t0.elapsed().as_secs_f64() * 1e3;
    let (reference, args, precisions) = match reference {
        Ok(r) => r,
        Err(e) => {
            rec.status = "skip";
            rec.error = Some(format!("reference: {e}"));
            rec.ms = t0.elapsed().as_secs_f64() * 1e3;
            return rec;
        }
    };
    match execute(gpu, &name, &case.text, case.hints.as_deref(), &args) {
        Ok(out) => {
            rec.outputs = compare_judged(&rctx, &out, &reference, &precisions);
            let problems: Vec<String> = rec.outputs.iter().filter_map(|o| o.problem.clone()).collect();
            if !problems.is_empty() {
                rec.status = "fail";
                rec.stage = Some(Stage::Compare);
                rec.error = Some(problems.join("; "));
            }
        }
        Err((stage, e)) => {
            rec.status = match stage {
                Stage::Compile if is_unsupported(&e) => "unsupported",
                Stage::Compile if is_no_kernel(&e) => "no-kernel",
                _ => "fail",
            };
            rec.stage = Some(stage);
            rec.error = Some(e);
        }
    }
    if rec.status == "fail" {
        rec.text = Some(case.text.clone());
    }
    rec.ms = t0.elapsed().as_secs_f64() * 1e3;
    rec
}

/// The seeds to run: `MORF_GPU_DIFF_SEEDS` (a comma-separated list), else
/// `MORF_GPU_DIFF_PROGRAMS` seeds from `MORF_GPU_DIFF_SEED`.
fn seeds(device: Device) -> Vec<u64> {
    if let Ok(list) = std::env::var("MORF_GPU_DIFF_SEEDS") {
        return list
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|s| s.parse().unwrap_or_else(|_| panic!("MORF_GPU_DIFF_SEEDS: bad seed '{s}'")))
            .collect();
    }
    let n = env_usize("MORF_GPU_DIFF_PROGRAMS", if device == Device::Gpu { 2000 } else { 200 });
    let first = env_usize("MORF_GPU_DIFF_SEED", 0) as u64;
    (first..first + n as u64).collect()
}

#[test]
fn random_programs() {
    let device = device();
    let seeds = seeds(device);
    let nthreads = threads().min(seeds.len().max(1));
    // `MORF_GPU_DIFF_SIZES=gpu` draws GPU sizes on the simulator too (slow; for timing).
    let sizes = match std::env::var("MORF_GPU_DIFF_SIZES").as_deref() {
        Ok("gpu") => Device::Gpu,
        Ok("sim") => Device::Sim,
        _ => device,
    };
    let budget = env_usize("MORF_GPU_DIFF_MAX_ELEMENTS", if sizes == Device::Gpu { 1 << 22 } else { 4096 });
    let large_budget = env_usize("MORF_GPU_DIFF_LARGE_ELEMENTS", 1 << 23);
    let next = AtomicUsize::new(0);
    let aborted = AtomicBool::new(false);
    let records: Mutex<Vec<Record>> = Mutex::new(Vec::new());
    let t0 = Instant::now();
    let mut device_name = String::from("CPU (GPU simulator)");
    let mut dev_json = device_json(None);
    if device == Device::Gpu {
        let g = Gpu::new(0).unwrap_or_else(|e| panic!("no GPU: {e}"));
        device_name = g.device_name().unwrap_or_else(|_| "?".into());
        dev_json = device_json(Some(&g));
    }
    eprintln!(
        "gpu differential: {} programs (seeds {}..={}) on {device_name}, {nthreads} threads, budget {budget} elements",
        seeds.len(),
        seeds.first().copied().unwrap_or(0),
        seeds.last().copied().unwrap_or(0)
    );
    std::thread::scope(|s| {
        for _ in 0..nthreads {
            s.spawn(|| {
                let gpu = (device == Device::Gpu).then(|| Gpu::new(0).expect("GPU 0"));
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    if i >= seeds.len() || aborted.load(Ordering::SeqCst) {
                        break;
                    }
                    let case = make_case(seeds[i], sizes, budget, large_budget);
                    let mut rec = check_case(gpu.as_ref(), &case);
                    if let (Some(g), Some(e)) = (gpu.as_ref(), rec.error.as_deref()) {
                        if rec.status == "fail" && is_cuda_error(e) && !device_alive(g) {
                            // The first CUDA error that breaks the context fails its program; the
                            // same error seen by later programs is not theirs.
                            if aborted.swap(true, Ordering::SeqCst) {
                                rec.status = "aborted";
                            }
                        }
                    }
                    let done = {
                        let mut r = records.lock().expect("records");
                        r.push(rec.clone());
                        r.len()
                    };
                    if rec.status == "fail" {
                        eprintln!(
                            "FAIL seed {} ({}): {}",
                            rec.seed,
                            rec.stage.map(Stage::name).unwrap_or("?"),
                            rec.error.as_deref().unwrap_or("")
                        );
                    }
                    if done % 100 == 0 {
                        eprintln!("  {done}/{} programs, {:.1} s", seeds.len(), t0.elapsed().as_secs_f64());
                    }
                }
            });
        }
    });
    let mut records = records.into_inner().expect("records");
    records.sort_by_key(|r| r.seed);
    let wall = t0.elapsed().as_secs_f64();
    let count = |st: &str| records.iter().filter(|r| r.status == st).count();
    let (passed, failed, skipped, abort_n) = (count("pass"), count("fail"), count("skip"), count("aborted"));
    let (unsupported, no_kernel) = (count("unsupported"), count("no-kernel"));
    let seeds_of = |st: &str| records.iter().filter(|r| r.status == st).map(|r| r.seed).collect::<Vec<u64>>();
    let not_run: Vec<u64> = {
        let done: std::collections::BTreeSet<u64> = records.iter().map(|r| r.seed).collect();
        seeds.iter().copied().filter(|s| !done.contains(s)).collect()
    };
    // Max relative error per output dtype, over the programs compared.
    let mut max_err: BTreeMap<&'static str, (f64, u64, usize)> = BTreeMap::new();
    for r in &records {
        for o in &r.outputs {
            let e = max_err.entry(o.kind.map(FloatKind::name).unwrap_or("int")).or_insert((0.0, 0, 0));
            e.2 += 1;
            if o.rel_err > e.0 {
                *e = (o.rel_err, r.seed, e.2);
            }
        }
    }
    let failed_seeds: Vec<u64> = records.iter().filter(|r| r.status == "fail").map(|r| r.seed).collect();
    let large_n = records.iter().filter(|r| r.large).count();
    let max_elems = records.iter().map(|r| r.base.iter().product::<usize>()).max().unwrap_or(0);
    let mut table = String::new();
    let _ = writeln!(table, "\n== gpu differential: random programs ({}, {device_name}) ==", device.name());
    let _ = writeln!(
        table,
        "| programs | passed | failed | unsupported by PTX emission | no kernel (refused) | skipped (reference rejects) | aborted | not run | wall s |"
    );
    let _ = writeln!(
        table,
        "| {} | {passed} | {failed} | {unsupported} | {no_kernel} | {skipped} | {abort_n} | {} | {wall:.1} |",
        seeds.len(),
        not_run.len()
    );
    let _ = writeln!(table, "| output dtype | outputs compared | max rel err | at seed | tolerance |");
    for (k, (e, seed, n)) in &max_err {
        let tol = FloatKind::from_name(k).map(tolerance).unwrap_or(0.0);
        let _ = writeln!(table, "| {k} | {n} | {e:.3e} | {seed} | {tol:e} |");
    }
    let _ = writeln!(table, "large programs: {large_n}; largest full-rank shape: {max_elems} elements");
    let _ = writeln!(table, "failed seeds: {failed_seeds:?}");
    let _ = writeln!(table, "no-kernel seeds: {:?}", seeds_of("no-kernel"));
    if !not_run.is_empty() {
        let _ = writeln!(table, "not run (context lost): {} seeds from {}", not_run.len(), not_run[0]);
    }
    print!("{table}");
    write_json(
        "random_programs",
        &RandomProgramsJson {
            test: "random_programs",
            device: dev_json,
            programs: seeds.len(),
            passed,
            failed,
            unsupported,
            no_kernel,
            no_kernel_seeds: seeds_of("no-kernel"),
            unsupported_seeds: seeds_of("unsupported"),
            skipped,
            aborted: abort_n,
            not_run: not_run.clone(),
            failed_seeds: failed_seeds.clone(),
            wall_s: round(wall, 1),
            threads: nthreads,
            budget_elements: budget,
            large: large_n,
            max_rel_err: max_err
                .iter()
                .map(|(k, &(max, seed, outputs))| (*k, MaxErrJson { max, seed, outputs }))
                .collect(),
            records: records.iter().map(RecordJson::of).collect(),
        },
    );

    assert!(failed == 0, "{failed} programs failed: seeds {failed_seeds:?}");
    assert!(not_run.is_empty() && abort_n == 0, "the run was cut short by a CUDA error");
    assert!(passed * 10 >= seeds.len() * 7, "only {passed} of {} programs were compared", seeds.len());
}

// ---------------------------------------------------------------------------------------
// The examples at odd shapes
// ---------------------------------------------------------------------------------------

/// The `.mlir` files of `examples/`, sorted, with their text.
fn examples() -> Vec<(String, String)> {
    // A binary carried to another machine finds them through the variable.
    let dir = std::env::var("MORF_GPU_DIFF_EXAMPLES")
        .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples").to_string());
    let mut names: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("examples/")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "mlir"))
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|p| {
            let name = p.file_name().unwrap_or_default().to_string_lossy().to_string();
            (name, std::fs::read_to_string(&p).expect("read example"))
        })
        .collect()
}

/// The `M1xN1,M2xN2` list of the variable `name`, if set.
fn env_shapes(name: &str) -> Option<Vec<(usize, usize)>> {
    let list = std::env::var(name).ok()?;
    Some(
        list.split(',')
            .filter(|s| !s.trim().is_empty())
            .map(|s| {
                let (m, n) =
                    s.trim().split_once('x').unwrap_or_else(|| panic!("{name}: bad shape '{s}': expected MxN"));
                (m.parse().expect("M"), n.parse().expect("N"))
            })
            .collect(),
    )
}

/// `(M, N)` shapes of the examples: odd ones and the benchmark shape on the GPU; small odd
/// ones on the simulator. `MORF_GPU_DIFF_EXAMPLE_SHAPES=M1xN1,M2xN2` replaces the list.
fn example_shapes(device: Device) -> Vec<(usize, usize)> {
    if let Some(list) = env_shapes("MORF_GPU_DIFF_EXAMPLE_SHAPES") {
        return list;
    }
    match device {
        Device::Gpu => vec![
            (1, 384),
            (7, 100),
            (1000, 1),
            (1, 12288),
            (7, 5120),
            (333, 5120),
            (257, 12288),
            (1000003, 7),
            (1000003, 33),
            (65536, 1024),
        ],
        Device::Sim => vec![(1, 100), (7, 1), (7, 33)],
    }
}

/// One example run: example index, shape index, `pass` or the problem, the checks, seconds.
type ExampleRow = (usize, usize, String, Vec<OutCheck>, f64);

/// The `morf.dims` names of the arguments of `func`, each once, in order.
fn dim_names(ctx: &Context, func: OpId) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    let args = ctx.attr(func, "arg_attrs").and_then(|a| ctx.attr_array(a)).unwrap_or_default();
    for &a in args {
        let AttrData::Dict(entries) = ctx.attr_data(a) else { continue };
        let Some((_, dims)) = entries.iter().find(|(k, _)| ctx.str(*k) == "morf.dims") else { continue };
        for &d in ctx.attr_array(*dims).unwrap_or_default() {
            if let Some(n) = ctx.attr_str(d).filter(|n| !names.iter().any(|x| x == n)) {
                names.push(n.to_string());
            }
        }
    }
    names
}

/// Binds generated inputs of the function of `text` at `M, N` in `rctx`. The other dims an
/// example names get sizes of their own: a batch `B` is 2, a second row count `K` is
/// `M / 2 + 1` (so two inputs of one example differ in rows).
fn bind_example(rctx: &mut Context, name: &str, text: &str, m: usize, n: usize, seed: u64) -> (OpId, Vec<RtValue>) {
    let module = load_module(rctx, name, text).unwrap_or_else(|e| panic!("{name}: {e}"));
    let _ = rctx.take_emitted();
    let func = select_function(rctx, module, None, name).unwrap_or_else(|e| panic!("{name}: {e}"));
    let random = dim_names(rctx, func)
        .into_iter()
        .map(|d| {
            let size = match d.as_str() {
                "M" => m,
                "N" => n,
                "B" => 2,
                "K" => m / 2 + 1,
                other => panic!("{name}: no size for the dim '{other}' in the examples test"),
            };
            (d, size)
        })
        .collect();
    let opts = RunOptions { random: Some(random), seed, ..Default::default() };
    let (args, _) = bind_arguments(rctx, func, &opts).unwrap_or_else(|e| panic!("{name}: {e}"));
    (func, args)
}

/// A row of `examples.json`: one example at one shape.
#[derive(Serialize)]
struct ExampleRowJson<'a> {
    example: &'a str,
    #[serde(rename = "M")]
    m: usize,
    #[serde(rename = "N")]
    n: usize,
    /// `pass` or the problem.
    status: &'a str,
    /// Seconds.
    s: f64,
    outputs: Vec<OutputJson>,
}

/// `examples.json`.
#[derive(Serialize)]
struct ExamplesJson<'a> {
    test: &'static str,
    device: DeviceJson,
    runs: usize,
    failed: usize,
    rows: Vec<ExampleRowJson<'a>>,
}

#[test]
fn examples_at_odd_shapes() {
    let device = device();
    let shapes = example_shapes(device);
    let exs = examples();
    assert!(exs.len() >= 15, "expected the 15 examples, found {}", exs.len());
    let jobs: Vec<(usize, usize)> = (0..exs.len()).flat_map(|e| (0..shapes.len()).map(move |s| (e, s))).collect();
    // The largest shapes hold several GiB in the fp64 interpreter: fewer threads for them.
    let nthreads = threads().min(env_usize("MORF_GPU_DIFF_EXAMPLE_THREADS", 8)).max(1);
    let next = AtomicUsize::new(0);
    let rows: Mutex<Vec<ExampleRow>> = Mutex::new(Vec::new());
    let t0 = Instant::now();
    let dev_json = if device == Device::Gpu { device_json(Gpu::new(0).ok().as_ref()) } else { device_json(None) };
    std::thread::scope(|s| {
        for _ in 0..nthreads {
            s.spawn(|| {
                let gpu = (device == Device::Gpu).then(|| Gpu::new(0).expect("GPU 0"));
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(&(e, sh)) = jobs.get(i) else { break };
                    let (name, text) = &exs[e];
                    let (m, n) = shapes[sh];
                    let t = Instant::now();
                    let mut rctx = new_context(false);
                    let (func, args) = bind_example(&mut rctx, name, text, m, n, 1 + i as u64);
                    let hints = size_hints_from_args(&rctx, func, &args);
                    let (status, checks) = match execute(gpu.as_ref(), name, text, hints.as_deref(), &args) {
                        Ok(out) => {
                            let reference = run_function(&rctx, func, args).expect("reference interpreter");
                            let checks = compare(&rctx, &out, &reference);
                            let problems: Vec<String> = checks.iter().filter_map(|c| c.problem.clone()).collect();
                            (if problems.is_empty() { "pass".to_string() } else { problems.join("; ") }, checks)
                        }
                        Err((stage, e)) => (format!("{} failed: {e}", stage.name()), Vec::new()),
                    };
                    let secs = t.elapsed().as_secs_f64();
                    eprintln!("  {name} M={m} N={n}: {status} ({secs:.1} s)");
                    rows.lock().expect("rows").push((e, sh, status, checks, secs));
                }
            });
        }
    });
    let mut rows = rows.into_inner().expect("rows");
    rows.sort_by_key(|r| (r.0, r.1));
    let mut table = format!(
        "\n== gpu differential: examples ({}) ==\n| example | M | N | rel err per output | status |\n",
        device.name()
    );
    let mut json_rows = Vec::new();
    for (e, sh, status, checks, secs) in &rows {
        let (m, n) = shapes[*sh];
        let errs: Vec<String> = checks
            .iter()
            .map(|c| format!("{}:{:.2e}", c.kind.map(FloatKind::name).unwrap_or("int"), c.rel_err))
            .collect();
        let _ = writeln!(
            table,
            "| {} | {m} | {n} | {} | {} |",
            exs[*e].0,
            errs.join(" "),
            if status == "pass" { "ok" } else { status }
        );
        json_rows.push(ExampleRowJson {
            example: &exs[*e].0,
            m,
            n,
            status,
            s: round(*secs, 2),
            outputs: checks.iter().map(|c| OutputJson::of(c, false)).collect(),
        });
    }
    let failed: Vec<&ExampleRow> = rows.iter().filter(|r| r.2 != "pass").collect();
    let _ = writeln!(
        table,
        "{} runs, {} passed, {} failed, {:.1} s",
        rows.len(),
        rows.len() - failed.len(),
        failed.len(),
        t0.elapsed().as_secs_f64()
    );
    print!("{table}");
    write_json(
        "examples",
        &ExamplesJson {
            test: "examples_at_odd_shapes",
            device: dev_json,
            runs: rows.len(),
            failed: failed.len(),
            rows: json_rows,
        },
    );
    assert_eq!(rows.len(), jobs.len(), "some example runs did not finish");
    assert!(failed.is_empty(), "{} example runs failed", failed.len());
}

// ---------------------------------------------------------------------------------------
// Determinism of the column reductions
// ---------------------------------------------------------------------------------------

/// A hash of `bytes` (fixed keys: equal in every run of the process).
fn hash_bytes(bytes: &[u8]) -> u64 {
    use std::hash::Hasher as _;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    h.write(bytes);
    h.finish()
}

/// A hash of bit patterns.
fn hash_bits(b: &[u64]) -> u64 {
    hash_bytes(&b.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>())
}

/// The bit patterns of the values of `v`.
fn bits(v: &RtValue) -> Vec<u64> {
    shape_and_data(v).1.iter().map(|x| x.to_bits()).collect()
}

/// A row of `determinism.json`: one output of one example at one shape.
#[derive(Serialize)]
struct DeterminismRowJson {
    example: &'static str,
    #[serde(rename = "M")]
    m: usize,
    #[serde(rename = "N")]
    n: usize,
    /// The tuning cache's account of the compiled schedule (`untuned` on the simulator).
    schedule: String,
    output: &'static str,
    runs: usize,
    /// Distinct bit patterns over the runs (1: deterministic).
    distinct: usize,
    /// The first run's error against the reference.
    rel_err: f64,
}

/// `determinism.json`.
#[derive(Serialize)]
struct DeterminismJson {
    test: &'static str,
    device: DeviceJson,
    runs: usize,
    rows: Vec<DeterminismRowJson>,
}

#[test]
fn column_reductions_are_deterministic() {
    let device = device();
    let runs = env_usize("MORF_GPU_DIFF_DET_RUNS", if device == Device::Gpu { 100 } else { 3 }).max(2);
    // On the GPU: the benchmark rows (compiled with the committed tuning cache, so the tuned
    // schedules are the ones checked, `partials` among them) and an odd shape.
    let shapes: Vec<(usize, usize)> = if device == Device::Gpu {
        env_shapes("MORF_GPU_DIFF_DET_SHAPES")
            .unwrap_or_else(|| vec![(576000, 384), (65536, 1024), (32768, 4096), (16384, 8192), (4099, 1000)])
    } else {
        vec![(7, 33)]
    };
    // Larger shapes skip the fp64 reference (morf-bench and morf-tune check those programs)
    // and the row result dx (each of its elements is one row's arithmetic, not a reduction
    // across CTAs): hashing 100 copies of it would take longer than the calls.
    let ref_max = env_usize("MORF_GPU_DIFF_DET_REF_MAX", 1 << 26);
    let gpu = (device == Device::Gpu).then(|| Gpu::new(0).expect("GPU 0"));
    let tuning = TuningSource::Builtin;
    let mut table = format!(
        "\n== gpu differential: determinism ({}, {runs} runs) ==\n| example | M | N | schedule | output | distinct results | rel err vs reference |\n",
        device.name()
    );
    let mut json_rows = Vec::new();
    let mut nondeterministic = Vec::new();
    for file in ["rmsnorm_bwd.mlir", "layernorm_bwd.mlir"] {
        let (_, text) = examples().into_iter().find(|(n, _)| n == file).expect("example");
        for &(m, n) in &shapes {
            let mut rctx = new_context(false);
            let (func, args) = bind_example(&mut rctx, file, &text, m, n, 42);
            let hints = size_hints_from_args(&rctx, func, &args);
            let with_ref = m * n <= ref_max;
            let reference =
                if with_ref { Some(run_function(&rctx, func, args.clone()).expect("reference")) } else { None };
            let outputs = match &reference {
                Some(r) => r.len(),
                None => morf_ir::builtin::func_type(&rctx, func)
                    .and_then(|t| rctx.function_parts(t).map(|(_, r)| r.len()))
                    .expect("a function type"),
            };
            let mut schedule = "untuned".to_string();
            let prog: Option<GpuProgram> = gpu.as_ref().map(|g| {
                let module = rctx.parent_op(func).expect("a module");
                let key = DeviceKey::of(g).expect("device key");
                let (pipeline, hints, note) = pipeline_for_compile(
                    &tuning,
                    true,
                    ProgramRef { ctx: &rctx, module, func },
                    GPU_PIPELINE,
                    hints.as_deref(),
                    &key,
                )
                .unwrap_or_else(|e| panic!("{file}: {e}"));
                if let Some(s) = note.as_deref().and_then(|n| n.split_once(": ").map(|(_, s)| s.to_string())) {
                    schedule = s;
                }
                compile_for_gpu(g, file, &text, None, false, &pipeline, hints.as_deref())
                    .unwrap_or_else(|e| panic!("{file}: {e}"))
            });
            // Per output, the hashes of the distinct bit patterns seen. On the GPU the inputs are
            // uploaded once and each run is a call (the executor's buffers come from its pool, as
            // in a training loop), a download of the raw bytes and a release.
            let mut distinct: Vec<Vec<u64>> = vec![Vec::new(); outputs];
            let mut first_errs = Vec::new();
            let mut note = |k: usize, h: u64| {
                if !distinct[k].contains(&h) {
                    distinct[k].push(h);
                }
            };
            match (&prog, gpu.as_ref()) {
                (Some(p), Some(g)) => {
                    let mut exec = p.executor(g);
                    let dev_args = p.upload_args(&mut exec, &args).unwrap_or_else(|e| panic!("{file}: {e}"));
                    for run in 0..runs {
                        let outs = exec.call(&dev_args).unwrap_or_else(|e| panic!("{file} run {run}: {e:?}"));
                        g.synchronize().unwrap_or_else(|e| panic!("{file} run {run}: {e}"));
                        if let (0, Some(reference)) = (run, &reference) {
                            let vals: Vec<RtValue> = outs.iter().map(|o| exec.download(o).expect("download")).collect();
                            first_errs = compare(&rctx, &vals, reference);
                        }
                        for (k, o) in outs.iter().enumerate() {
                            if k == 0 && !with_ref {
                                continue;
                            }
                            match o {
                                DevValue::Buffer(a) => note(k, hash_bytes(&g.download(&a.buf).expect("download"))),
                                DevValue::Scalar(v) => note(k, hash_bits(&bits(v))),
                            }
                        }
                        for o in outs {
                            exec.release(o);
                        }
                    }
                }
                _ => {
                    for run in 0..runs {
                        let out = execute(None, file, &text, hints.as_deref(), &args)
                            .unwrap_or_else(|(_, e)| panic!("{file} run {run}: {e}"));
                        if let (0, Some(reference)) = (run, &reference) {
                            first_errs = compare(&rctx, &out, reference);
                        }
                        for (k, o) in out.iter().enumerate() {
                            note(k, hash_bits(&bits(o)));
                        }
                    }
                }
            }
            // Result 0 is dx (a row result); the others are the column reductions dw (and db).
            for (k, d) in distinct.iter().enumerate() {
                if d.is_empty() {
                    continue; // dx of a shape over the reference limit
                }
                let what = match (file, k) {
                    (_, 0) => "dx",
                    ("layernorm_bwd.mlir", 2) => "db",
                    _ => "dw",
                };
                let err = first_errs.get(k).map(|c| c.rel_err).unwrap_or(f64::NAN);
                let _ = writeln!(table, "| {file} | {m} | {n} | {schedule} | {what} | {} | {err:.2e} |", d.len());
                json_rows.push(DeterminismRowJson {
                    example: file,
                    m,
                    n,
                    schedule: schedule.clone(),
                    output: what,
                    runs,
                    distinct: d.len(),
                    rel_err: err,
                });
                if d.len() != 1 {
                    nondeterministic.push(format!("{file} M={m} N={n} {what}: {} distinct results", d.len()));
                }
            }
            assert!(first_errs.iter().all(|c| c.problem.is_none()), "{file} M={m} N={n}: {first_errs:?}");
        }
    }
    print!("{table}");
    write_json(
        "determinism",
        &DeterminismJson {
            test: "column_reductions_are_deterministic",
            device: device_json(gpu.as_ref()),
            runs,
            rows: json_rows,
        },
    );
    assert!(nondeterministic.is_empty(), "not bitwise reproducible: {nondeterministic:?}");
}

// ---------------------------------------------------------------------------------------
// Device memory over many calls
// ---------------------------------------------------------------------------------------

/// `memory.json`.
#[derive(Serialize)]
struct MemoryJson {
    test: &'static str,
    device: DeviceJson,
    example: &'static str,
    #[serde(rename = "M")]
    m: usize,
    #[serde(rename = "N")]
    n: usize,
    calls: usize,
    warmup: usize,
    total_mib: f64,
    free_start_mib: f64,
    free_after_warmup_mib: f64,
    free_end_mib: f64,
    growth_mib: f64,
    tolerance_mib: f64,
    seconds: f64,
    differing_outputs: usize,
    /// `[call, free MiB]` pairs.
    trace_mib: Vec<(usize, f64)>,
}

#[test]
fn no_device_memory_growth() {
    if device() != Device::Gpu {
        eprintln!("no_device_memory_growth: no GPU; skipped (it measures device memory)");
        return;
    }
    let calls = env_usize("MORF_GPU_DIFF_MEM_CALLS", 10_000);
    let warmup = 100;
    let tol_mib = env_usize("MORF_GPU_DIFF_MEM_TOL_MIB", 4) as f64;
    // Leaks are per call, not per byte: a small shape makes 10^4 calls cheap.
    let (m, n) = (512, 384);
    let gpu = Gpu::new(0).expect("GPU 0");
    let file = "rmsnorm_bwd.mlir";
    let (_, text) = examples().into_iter().find(|(f, _)| f == file).expect("example");
    let mut rctx = new_context(false);
    let (func, args) = bind_example(&mut rctx, file, &text, m, n, 7);
    let hints = size_hints_from_args(&rctx, func, &args);
    let prog = compile_for_gpu(&gpu, file, &text, None, false, GPU_PIPELINE, hints.as_deref())
        .unwrap_or_else(|e| panic!("{file}: {e}"));
    let first = prog.run(&gpu, &args).expect("run");
    let reference = run_function(&rctx, func, args.clone()).expect("reference");
    let checks = compare(&rctx, &first, &reference);
    assert!(checks.iter().all(|c| c.problem.is_none()), "{checks:?}");
    let mib = |b: usize| b as f64 / (1024.0 * 1024.0);
    let free = || gpu.mem_info().expect("cuMemGetInfo").0;
    let total = gpu.mem_info().expect("cuMemGetInfo").1;
    let free_start = free();
    for _ in 0..warmup {
        prog.run(&gpu, &args).expect("run");
    }
    let free_warm = free();
    let t0 = Instant::now();
    let mut trace = vec![(0usize, free_warm)];
    let first_bits: Vec<Vec<u64>> = first.iter().map(bits).collect();
    let mut differing = 0usize;
    for i in 1..=calls {
        let out = prog.run(&gpu, &args).unwrap_or_else(|e| panic!("call {i}: {e}"));
        if out.iter().map(bits).collect::<Vec<_>>() != first_bits {
            differing += 1;
        }
        if i % (calls / 10).max(1) == 0 {
            trace.push((i, free()));
        }
    }
    let secs = t0.elapsed().as_secs_f64();
    let free_end = free();
    let growth = mib(free_warm.saturating_sub(free_end));
    let mut table = format!(
        "\n== gpu differential: device memory ({file} M={m} N={n}, {calls} calls after {warmup} warm-up) ==\n\
         | total MiB | free at start | free after warm-up | free after {calls} calls | growth MiB | calls/s | outputs differing from call 0 |\n\
         | {:.0} | {:.1} | {:.1} | {:.1} | {growth:.2} | {:.0} | {differing} |\n",
        mib(total),
        mib(free_start),
        mib(free_warm),
        mib(free_end),
        calls as f64 / secs
    );
    let trace_s: Vec<String> = trace.iter().map(|(i, f)| format!("[{i}, {:.2}]", mib(*f))).collect();
    let _ = writeln!(table, "free MiB by call: {}", trace_s.join(" "));
    print!("{table}");
    write_json(
        "memory",
        &MemoryJson {
            test: "no_device_memory_growth",
            device: device_json(Some(&gpu)),
            example: file,
            m,
            n,
            calls,
            warmup,
            total_mib: round(mib(total), 1),
            free_start_mib: round(mib(free_start), 2),
            free_after_warmup_mib: round(mib(free_warm), 2),
            free_end_mib: round(mib(free_end), 2),
            growth_mib: round(growth, 3),
            tolerance_mib: tol_mib,
            seconds: round(secs, 2),
            differing_outputs: differing,
            trace_mib: trace.iter().map(|&(i, f)| (i, round(mib(f), 2))).collect(),
        },
    );
    assert!(growth <= tol_mib, "free device memory fell by {growth:.2} MiB over {calls} calls");
    assert_eq!(differing, 0, "{differing} calls gave outputs different from the first call");
}

// ---------------------------------------------------------------------------------------
// The harness's own pieces
// ---------------------------------------------------------------------------------------

#[test]
fn harness_rewrites_sizes_and_compares() {
    let map: BTreeMap<usize, usize> = [(4, 1000), (7, 33)].into_iter().collect();
    assert_eq!(
        rewrite_sizes("%a: tensor<4x?x7xf32>, tensor<f32>, tensor<7xi1> dense<4.0>", &map),
        "%a: tensor<1000x?x33xf32>, tensor<f32>, tensor<33xi1> dense<4.0>"
    );
    assert_eq!(
        name_axes("func.func @main(%a0: tensor<?x3xf32>, %a1: tensor<3xf32>)", 2),
        "func.func @main(%a0: tensor<?x3xf32> {morf.dims = [\"d0\", \"d1\"]}, %a1: tensor<3xf32>)"
    );
    // Every case is the program the generator made, at sizes within the budget, with inputs
    // of the rewritten shapes; the reference interpreter accepts most of them.
    for seed in 0..40 {
        let c = make_case(seed, Device::Gpu, 1 << 21, 1 << 23);
        assert!(c.base.iter().product::<usize>() <= if c.large { 1 << 23 } else { 1 << 21 }, "seed {seed}");
        assert!(!c.large || seed == 7);
        for (shape, data) in &c.inputs {
            assert_eq!(shape.iter().product::<usize>(), data.len());
        }
    }
    let mut ctx = new_context(false);
    let f32t = ctx.f32_type();
    let tensor = |data: Vec<f64>| RtValue::Tensor { elem: f32t, array: Rc::new(Array::new(vec![data.len()], data)) };
    let ok = compare(&ctx, &[tensor(vec![1.0, f64::NAN, 3.0])], &[tensor(vec![1.0, f64::NAN, 3.0 + 1e-6])]);
    assert!(ok[0].problem.is_none() && ok[0].rel_err < 1e-5, "{ok:?}");
    let nan = compare(&ctx, &[tensor(vec![1.0, f64::NAN])], &[tensor(vec![1.0, 2.0])]);
    assert!(nan[0].problem.as_deref().is_some_and(|p| p.contains("NaN")), "{nan:?}");
    let missing_nan = compare(&ctx, &[tensor(vec![1.0, 2.0])], &[tensor(vec![1.0, f64::NAN])]);
    assert!(missing_nan[0].problem.is_some());
    let far = compare(&ctx, &[tensor(vec![1.0, 2.0])], &[tensor(vec![1.0, 2.1])]);
    assert!(far[0].problem.as_deref().is_some_and(|p| p.contains("relative error")), "{far:?}");
}

#[test]
fn harness_json_reports() {
    // A record keeps the keys and their order of the files scripts read; `stage`, `error` and
    // `program` only when set; an error that could not be measured (NaN) is null.
    let rec = Record {
        seed: 3,
        config: "default",
        base: vec![7, 33],
        shapes: vec![vec![7, 33], vec![33]],
        dtypes: vec![FloatKind::BF16, FloatKind::F32],
        hinted: true,
        large: false,
        status: "fail",
        stage: Some(Stage::Compare),
        outputs: vec![
            OutCheck { kind: Some(FloatKind::F32), rel_err: f64::NAN, problem: Some("output 0: NaN".into()) },
            OutCheck { kind: None, rel_err: 0.0, problem: None },
        ],
        error: Some("output 0: \"x\"".into()),
        text: Some("func.func @f()\n".into()),
        ms: 12.34,
        ref_ms: 0.04,
    };
    assert_eq!(
        serde_json::to_string(&RecordJson::of(&rec)).unwrap(),
        r#"{"seed":3,"config":"default","base":[7,33],"shapes":[[7,33],[33]],"dtypes":["bf16","f32"],"hinted":true,"large":false,"status":"fail","ms":12.3,"ref_ms":0.0,"outputs":[{"dtype":"f32","rel_err":null,"ok":false},{"dtype":"int","rel_err":0.0,"ok":true}],"stage":"compare","error":"output 0: \"x\"","program":"func.func @f()\n"}"#
    );
    let pass = Record { status: "pass", stage: None, error: None, text: None, ..rec.clone() };
    let j = serde_json::to_value(RecordJson::of(&pass)).unwrap();
    assert!(j.get("stage").is_none() && j.get("error").is_none() && j.get("program").is_none(), "{j}");
    assert_eq!(serde_json::to_string(&device_json(None)).unwrap(), r#"{"kind":"sim","name":"CPU (GPU simulator)"}"#);
    assert_eq!(
        serde_json::to_string(&DeviceJson::Gpu { name: "NVIDIA H200".into(), driver: 13000 }).unwrap(),
        r#"{"kind":"gpu","name":"NVIDIA H200","driver":13000}"#
    );
    let row = ExampleRowJson {
        example: "a.mlir",
        m: 7,
        n: 1,
        status: "pass",
        s: round(0.123, 2),
        outputs: rec.outputs.iter().map(|c| OutputJson::of(c, false)).collect(),
    };
    assert_eq!(
        serde_json::to_string(&row).unwrap(),
        r#"{"example":"a.mlir","M":7,"N":1,"status":"pass","s":0.12,"outputs":[{"dtype":"f32","rel_err":null},{"dtype":"int","rel_err":0.0}]}"#
    );
}
