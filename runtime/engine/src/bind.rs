//! Binding a function's arguments and writing its results: arguments are read from `.npy`
//! files, given as in-memory arrays, or generated pseudo-randomly (sized by the
//! `morf.dims` names of the signature, `--random`), checked against the signature, and
//! results are written to `DIR/result<i>.npy`. Also the first steps of every run: a
//! context with morf's dialects ([`new_context`]), parsing and verifying
//! ([`load_module`]), picking the function ([`select_function`]) and reading a source
//! text with a size cap ([`read_source`]).
//!
//! `.npy` conventions: `bf16` tensors travel as float32 files (values must be
//! bf16-representable; others are rounded with a warning), `f16`, `f32` and `f64`
//! tensors as files of that dtype. Results are written the same way. Loop-level files run
//! with the same conventions: an argument of `!mloop.buffer` type is bound exactly like a
//! tensor argument (by name, `morf.dims`, `--random`), and a returned buffer is written
//! like a tensor.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::Duration;

use morf_ir::interp::{Array, RtValue};
use morf_ir::{AttrData, Context, Dim, FloatKind, OpId, Type, TypeData};

use crate::memory;
use crate::npy::{self, NpyArray, NpyDtype};
use crate::EngineError;

/// What to run and where its inputs and outputs are.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// The function to run; `None` picks the only function of the module.
    pub entry: Option<String>,
    /// `(argument name, .npy file)` pairs; the name is the SSA name without `%`.
    pub inputs: Vec<(String, PathBuf)>,
    /// `(argument name, values)` pairs given in memory instead of by file.
    pub arrays: Vec<(String, InputArray)>,
    /// Sizes of named dimensions for generated inputs; `None` disables generation, so
    /// every argument then needs an input file.
    pub random: Option<Vec<(String, usize)>>,
    /// Seed of the generated inputs.
    pub seed: u64,
    /// Folder that receives `result<i>.npy` (created if missing).
    pub output_dir: PathBuf,
    /// Accept ops of unregistered dialects (generic form).
    pub allow_unregistered_dialect: bool,
    /// Compute min/max/mean of each result for the summary.
    pub stats: bool,
    /// Refuse a run whose estimated memory ([`memory`]) is over this limit, before
    /// allocating its inputs; `None` checks nothing (allocations are still fallible).
    pub max_memory: Option<memory::MemoryLimit>,
    /// The tuning cache a compiled run consults ([`crate::tuning::TuningSource`]; by
    /// default the built-in one, on a GPU).
    pub tuning: crate::tuning::TuningSource,
    /// PTX to load instead of emitting it, on a GPU (another backend's PTX of the same
    /// lowering, [`crate::compile::LoweredProgram::with_ptx`]), with its file name.
    pub ptx: Option<(String, String)>,
    /// The most elements a generated input may hold: `None` is the interpreter's bound
    /// ([`morf_ir::interp::MAX_ELEMENTS`]); a run that never interprets the program (an
    /// unchecked benchmark on the GPU) may allow more, within its memory.
    pub max_elements: Option<usize>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            entry: None,
            inputs: Vec::new(),
            arrays: Vec::new(),
            random: None,
            seed: 0,
            output_dir: PathBuf::from("."),
            allow_unregistered_dialect: false,
            stats: false,
            max_memory: None,
            tuning: crate::tuning::TuningSource::Builtin,
            ptx: None,
            max_elements: None,
        }
    }
}

impl RunOptions {
    /// Generated inputs of `sizes` for function `entry` (`None`: the only one) from `seed`,
    /// as the GPU's measuring tools bind them (`morf-bench`, `morf-tune`): where the outputs
    /// are not `checked`, nothing is interpreted, so the inputs may pass the interpreter's
    /// 2^31 elements (100000 x 32768), within the device's memory.
    pub fn generated(entry: Option<String>, sizes: Vec<(String, usize)>, seed: u64, checked: bool) -> RunOptions {
        RunOptions {
            entry,
            random: Some(sizes),
            seed,
            max_elements: (!checked).then_some(1 << 36),
            ..Default::default()
        }
    }
}

fn arg_err(name: &str, message: impl Into<String>) -> EngineError {
    EngineError::Argument { name: name.to_string(), message: message.into() }
}

/// One result as written to disk.
#[derive(Clone, Debug)]
pub struct ResultSummary {
    /// Position among the function's results.
    pub index: usize,
    /// The result type as written in the signature, e.g. `tensor<?x?xbf16>`.
    pub ty: String,
    /// The run-time shape (empty for scalars).
    pub shape: Vec<usize>,
    /// The `.npy` file written.
    pub path: PathBuf,
    /// `(min, max, mean)` of the values, when [`RunOptions::stats`] was set.
    pub stats: Option<(f64, f64, f64)>,
}

impl std::fmt::Display for ResultSummary {
    /// `result0: tensor<?x?xbf16> [64, 96] -> out/result0.npy` (then ` min=.. max=.. mean=..`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "result{}: {} [{}] -> {}", self.index, self.ty, join(&self.shape), self.path.display())?;
        if let Some((lo, hi, mean)) = self.stats {
            write!(f, " min={lo:.6e} max={hi:.6e} mean={mean:.6e}")?;
        }
        Ok(())
    }
}

/// What a successful run did.
#[derive(Clone, Debug)]
pub struct RunReport {
    /// The function that ran.
    pub function: String,
    /// Warnings about the inputs (values rounded to bf16, ...), without a prefix.
    pub warnings: Vec<String>,
    /// One entry per result, in result order.
    pub results: Vec<ResultSummary>,
    /// Time spent in the interpreter.
    pub run_time: Duration,
}

fn join(v: &[usize]) -> String {
    v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", ")
}

/// Parses the shapes of repeated `--sizes` flags (morf-bench, morf-tune): each a
/// [`parse_random_spec`] that names at least one dimension.
pub fn parse_sizes_flags(specs: &[String]) -> Result<Vec<Vec<(String, usize)>>, String> {
    specs
        .iter()
        .map(|s| {
            let v = parse_random_spec(s).map_err(|e| e.to_string())?;
            if v.is_empty() {
                return Err(format!("--sizes '{s}' names no dimension"));
            }
            Ok(v)
        })
        .collect()
}

/// Parses a `--random` spec, `NAME=SIZE[,NAME=SIZE...]` (an empty spec is allowed).
pub fn parse_random_spec(spec: &str) -> Result<Vec<(String, usize)>, EngineError> {
    let bad = |why: &str| EngineError::Other(format!("bad --random spec '{spec}': {why}"));
    let mut out: Vec<(String, usize)> = Vec::new();
    for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (name, size) = item.split_once('=').ok_or_else(|| bad("expected NAME=SIZE[,NAME=SIZE...]"))?;
        let name = name.trim();
        if name.is_empty() {
            return Err(bad("a dimension name is empty"));
        }
        let size: usize =
            size.trim().parse().map_err(|_| bad(&format!("size of '{name}' is not a non-negative integer")))?;
        if out.iter().any(|(n, _)| n == name) {
            return Err(bad(&format!("'{name}' is given twice")));
        }
        out.push((name.to_string(), size));
    }
    Ok(out)
}

/// Parses an `--input` value, `NAME=PATH` (a leading `%` on the name is accepted).
pub fn parse_input_spec(spec: &str) -> Result<(String, PathBuf), EngineError> {
    match spec.split_once('=') {
        Some((name, path)) if !name.trim_start_matches('%').is_empty() && !path.is_empty() => {
            Ok((name.trim_start_matches('%').to_string(), PathBuf::from(path)))
        }
        _ => Err(EngineError::Other(format!("bad --input '{spec}': expected NAME=PATH.npy"))),
    }
}

/// A context with every dialect morf-run can execute registered.
pub fn new_context(allow_unregistered_dialect: bool) -> Context {
    let mut ctx = Context::new();
    morf_tensor::register(&mut ctx);
    morf_loop::register(&mut ctx);
    morf_gpu::register(&mut ctx);
    ctx.registry_mut().allow_unregistered = allow_unregistered_dialect;
    ctx
}

/// Parses and verifies `text` (named `name` in diagnostics); returns the module.
pub fn load_module(ctx: &mut Context, name: &str, text: &str) -> Result<OpId, EngineError> {
    ctx.add_source(name, text);
    let module = morf_ir::parse_source(ctx, name, text, 0).map_err(|d| EngineError::Diagnostic(ctx.render(&d)))?;
    morf_ir::verify(ctx, module).map_err(|d| EngineError::Diagnostic(ctx.render(&d)))?;
    Ok(module)
}

/// The `func.func` ops directly inside `module`, in order.
fn functions(ctx: &Context, module: OpId) -> Vec<OpId> {
    let Some(&r) = ctx.regions(module).first() else { return Vec::new() };
    let Some(b) = ctx.entry_block(r) else { return Vec::new() };
    ctx.block_ops(b).filter(|o| ctx.op_name(*o) == morf_ir::builtin::FuncOp::NAME).collect()
}

/// Picks the function to run: `entry` if given, else the only function of the module.
pub fn select_function(ctx: &Context, module: OpId, entry: Option<&str>, file: &str) -> Result<OpId, EngineError> {
    let funcs = functions(ctx, module);
    let names = || {
        funcs
            .iter()
            .map(|f| format!("@{}", morf_ir::builtin::symbol_name(ctx, *f).unwrap_or("?")))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match entry {
        Some(e) => {
            let e = e.trim_start_matches('@');
            morf_ir::builtin::lookup_function(ctx, module, e).ok_or_else(|| {
                if funcs.is_empty() {
                    EngineError::Other(format!("no function @{e} in {file} (it has no functions)"))
                } else {
                    EngineError::Other(format!("no function @{e} in {file} (functions: {})", names()))
                }
            })
        }
        None => match funcs.len() {
            0 => Err(EngineError::Other(format!("{file} has no function to run"))),
            1 => Ok(funcs[0]),
            n => Err(EngineError::Other(format!("{file} has {n} functions ({}); choose one with --entry", names()))),
        },
    }
}

/// How generated values of an argument are distributed (`morf.random` attribute).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Distribution {
    /// normal(0, 1), the default.
    Normal,
    /// uniform in [0.5, 2.0): for reciprocal standard deviations and other scales.
    Positive,
}

/// What binding needs to know about one argument.
struct ArgSpec {
    name: String,
    ty: Type,
    ty_text: String,
    dims: Vec<Dim>,
    elem: FloatKind,
    dim_names: Vec<Option<String>>,
    dist: Distribution,
    /// Whether the argument is a `!mloop.buffer` (bound as a mutable buffer).
    buffer: bool,
}

impl ArgSpec {
    /// The run-time value holding `data` of `shape` for this argument.
    fn value(&self, ctx: &Context, shape: Vec<usize>, data: Vec<f64>) -> RtValue {
        let elem = ctx.element_type(self.ty);
        let array = Array::new(shape, data);
        if self.buffer {
            RtValue::Buffer { elem, data: Rc::new(RefCell::new(array)) }
        } else {
            RtValue::Tensor { elem, array: Rc::new(array) }
        }
    }
}

/// Entry `key` of dictionary attribute `dict`.
pub(crate) fn dict_get(ctx: &Context, dict: morf_ir::Attr, key: &str) -> Option<morf_ir::Attr> {
    match ctx.attr_data(dict) {
        AttrData::Dict(entries) => entries.iter().find(|(k, _)| ctx.str(*k) == key).map(|(_, v)| *v),
        _ => None,
    }
}

fn arg_specs(ctx: &Context, func: OpId) -> Result<Vec<ArgSpec>, EngineError> {
    let fname = morf_ir::builtin::symbol_name(ctx, func).unwrap_or("?").to_string();
    let Some(block) = ctx.regions(func).first().and_then(|r| ctx.entry_block(*r)) else {
        return Err(EngineError::Other(format!("@{fname} is a declaration (it has no body); it cannot run")));
    };
    let arg_attrs: Vec<morf_ir::Attr> =
        ctx.attr(func, "arg_attrs").and_then(|a| ctx.attr_array(a)).map(|a| a.to_vec()).unwrap_or_default();
    let mut specs = Vec::new();
    for (i, &v) in ctx.block_args(block).iter().enumerate() {
        let name = ctx.value(v).name.map(|s| ctx.str(s).to_string()).unwrap_or_else(|| format!("arg{i}"));
        let ty = ctx.value_type(v);
        let ty_text = ctx.type_to_string(ty);
        let unsupported =
            || arg_err(&name, format!("type {ty_text} is not supported (only tensors or buffers of floats)"));
        let (dims, elem, buffer) = match ctx.type_data(ty) {
            TypeData::Tensor { shape, elem } => match ctx.float_kind(*elem) {
                Some(k) => (shape.clone(), k, false),
                None => return Err(unsupported()),
            },
            _ => match morf_loop::buffer_parts(ctx, ty).and_then(|(s, e)| Some((s.to_vec(), ctx.float_kind(e)?))) {
                Some((shape, k)) => (shape, k, true),
                None => return Err(unsupported()),
            },
        };
        let attrs = arg_attrs.get(i).copied();
        let mut dim_names = vec![None; dims.len()];
        if let Some(a) = attrs.and_then(|d| dict_get(ctx, d, "morf.dims")) {
            let items: Option<Vec<String>> = ctx
                .attr_array(a)
                .and_then(|items| items.iter().map(|x| ctx.attr_str(*x).map(str::to_string)).collect());
            match items {
                Some(items) if items.len() == dims.len() => {
                    dim_names =
                        items.into_iter().map(|s| if s.is_empty() || s == "?" { None } else { Some(s) }).collect()
                }
                _ => {
                    return Err(arg_err(
                        &name,
                        format!(
                            "'morf.dims' must be an array of {} strings, one per dimension of {ty_text}",
                            dims.len()
                        ),
                    ))
                }
            }
        }
        let dist = match attrs.and_then(|d| dict_get(ctx, d, "morf.random")) {
            None => Distribution::Normal,
            Some(a) => match ctx.attr_str(a) {
                Some("normal") => Distribution::Normal,
                Some("positive") => Distribution::Positive,
                _ => {
                    return Err(arg_err(
                        &name,
                        format!("'morf.random' must be \"normal\" or \"positive\", got {}", ctx.attr_to_string(a)),
                    ))
                }
            },
        };
        specs.push(ArgSpec { name, ty, ty_text, dims, elem, dim_names, dist, buffer });
    }
    Ok(specs)
}

/// The `.npy` dtype that carries values of a float type.
fn npy_dtype_of(k: FloatKind) -> NpyDtype {
    match k {
        FloatKind::F16 => NpyDtype::F16,
        FloatKind::BF16 | FloatKind::F32 => NpyDtype::F32,
        FloatKind::F64 => NpyDtype::F64,
    }
}

/// Sizes bound to dimension names so far, with where each came from.
#[derive(Default)]
struct DimBindings(BTreeMap<String, (usize, String)>);

impl DimBindings {
    fn bind(&mut self, arg: &str, dim: &str, size: usize, source: String) -> Result<(), EngineError> {
        match self.0.get(dim) {
            Some((s, src)) if *s != size => Err(arg_err(
                arg,
                format!("dimension '{dim}' is {size} ({source}) but {s} ({src}); one name must have one size"),
            )),
            Some(_) => Ok(()),
            None => {
                self.0.insert(dim.to_string(), (size, source));
                Ok(())
            }
        }
    }
}

/// splitmix64: a tiny, well-mixed generator; enough for test inputs and has no deps.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1) with 53 random bits.
    fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

/// Values per independent stream of [`generate`] (even, so the normal pairs never straddle
/// two streams).
const GEN_CHUNK: usize = 1 << 16;

/// `n` deterministic values for argument number `index`: each argument has its own
/// stream, so adding an argument does not change the values of the others. Values come in
/// chunks of [`GEN_CHUNK`], each from its own stream (chunk 0 from the argument's, so inputs
/// of up to [`GEN_CHUNK`] values are as they always were), filled in parallel: the values do
/// not depend on the number of threads.
fn generate(n: usize, dist: Distribution, seed: u64, index: usize, elem: FloatKind) -> Vec<f64> {
    if Vec::<f64>::new().try_reserve_exact(n).is_err() {
        return Vec::new();
    }
    // Zeroed by the allocator (pages the OS maps on first touch), so the threads below
    // fault them in parallel instead of one thread writing gigabytes of zeros first.
    let mut out = vec![0.0f64; n];
    let base = seed ^ (index as u64 + 1).wrapping_mul(0xD6E8_FEB8_6659_FD93);
    let fill = |c: usize, chunk: &mut [f64]| {
        let stream = if c == 0 { base } else { base ^ (c as u64).wrapping_mul(0xA076_1D64_78BD_642F) };
        fill_chunk(chunk, dist, SplitMix64(stream), elem);
    };
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get()).min(n.div_ceil(GEN_CHUNK)).max(1);
    if threads == 1 {
        out.chunks_mut(GEN_CHUNK).enumerate().for_each(|(c, chunk)| fill(c, chunk));
        return out;
    }
    let chunks: Vec<(usize, &mut [f64])> = out.chunks_mut(GEN_CHUNK).enumerate().collect();
    let per = chunks.len().div_ceil(threads);
    let mut groups: Vec<Vec<(usize, &mut [f64])>> = Vec::new();
    for (i, ch) in chunks.into_iter().enumerate() {
        if i % per == 0 {
            groups.push(Vec::new());
        }
        groups.last_mut().expect("pushed").push(ch);
    }
    std::thread::scope(|s| {
        for g in groups {
            s.spawn(move || g.into_iter().for_each(|(c, chunk)| fill(c, chunk)));
        }
    });
    out
}

/// Fills `out` with values of `dist` from `rng`, rounded to `elem`.
fn fill_chunk(out: &mut [f64], dist: Distribution, mut rng: SplitMix64, elem: FloatKind) {
    match dist {
        Distribution::Positive => {
            for v in out.iter_mut() {
                *v = elem.round(0.5 + 1.5 * rng.next_f64());
            }
        }
        Distribution::Normal => {
            // Box-Muller: two uniforms give two independent standard normals.
            for pair in out.chunks_mut(2) {
                let u1 = 1.0 - rng.next_f64(); // in (0, 1], so ln is finite
                let u2 = rng.next_f64();
                let r = (-2.0 * u1.ln()).sqrt();
                let t = std::f64::consts::TAU * u2;
                pair[0] = elem.round(r * t.cos());
                if let Some(second) = pair.get_mut(1) {
                    *second = elem.round(r * t.sin());
                }
            }
        }
    }
}

/// Binds each argument of `func` from `opts.inputs` or, where none is given and
/// `opts.random` is set, from generated values. Returns the values and the warnings.
///
/// With [`RunOptions::max_memory`] set, the run of `func` on the interpreter is
/// estimated first ([`memory::interpreter_peak`]) and refused when over the limit;
/// storage for the values is reserved fallibly either way, so running out of memory is
/// an error, not an abort.
pub fn bind_arguments(
    ctx: &Context,
    func: OpId,
    opts: &RunOptions,
) -> Result<(Vec<RtValue>, Vec<String>), EngineError> {
    if let Some(limit) = &opts.max_memory {
        estimate_interpreter_run(ctx, func, opts)?.check(limit)?;
    }
    let (values, warnings) = bind_impl(ctx, func, opts, true)?;
    Ok((values.into_iter().map(|v| v.value.unwrap_or(RtValue::Int(0))).collect(), warnings))
}

/// The run-time shape of each argument of `func` as [`bind_arguments`] would bind it
/// (empty for scalars), reading only the headers of input files and generating nothing.
pub fn plan_arguments(ctx: &Context, func: OpId, opts: &RunOptions) -> Result<Vec<Vec<usize>>, EngineError> {
    Ok(bind_impl(ctx, func, opts, false)?.0.into_iter().map(|v| v.shape).collect())
}

/// The memory a run of `func` on the interpreter needs: its inputs (as `f64`), the
/// bytes of the input files while they are decoded, and the interpreter's peak.
pub fn estimate_interpreter_run(
    ctx: &Context,
    func: OpId,
    opts: &RunOptions,
) -> Result<memory::MemoryEstimate, EngineError> {
    let shapes = plan_arguments(ctx, func, opts)?;
    let mut est = memory::MemoryEstimate::default();
    let file_bytes =
        opts.inputs.iter().filter_map(|(_, p)| std::fs::metadata(p).ok().map(|m| m.len())).max().unwrap_or(0);
    if file_bytes > 0 {
        est.add("input file buffer", file_bytes);
    }
    est.add("interpreter values with inputs", memory::interpreter_peak(ctx, func, &shapes));
    Ok(est)
}

/// Where the values of one argument come from.
#[derive(Clone, Copy)]
enum Source<'a> {
    /// An `.npy` file.
    File(&'a Path),
    /// An in-memory array ([`RunOptions::arrays`]).
    Array(&'a InputArray),
}

/// An argument's values given in memory: f64 values, rounded to the argument's element
/// type when bound.
#[derive(Clone, Debug, PartialEq)]
pub struct InputArray {
    /// The shape (row-major).
    pub shape: Vec<usize>,
    /// The values, `shape.iter().product()` of them.
    pub data: Vec<f64>,
}

/// One argument as [`bind_impl`] planned or bound it.
struct Bound {
    shape: Vec<usize>,
    value: Option<RtValue>,
}

fn alloc_error(name: &str, shape: &[usize]) -> EngineError {
    arg_err(
        name,
        format!(
            "cannot allocate {} for shape [{}]: out of memory",
            memory::format_bytes(shape.iter().fold(8u64, |a, &d| a.saturating_mul(d as u64))),
            join(shape)
        ),
    )
}

/// Binds (with `load`) or only plans (shapes from headers and sizes) the arguments.
fn bind_impl(
    ctx: &Context,
    func: OpId,
    opts: &RunOptions,
    load: bool,
) -> Result<(Vec<Bound>, Vec<String>), EngineError> {
    let specs = arg_specs(ctx, func)?;
    let fname = morf_ir::builtin::symbol_name(ctx, func).unwrap_or("?");
    let arg_list = || specs.iter().map(|s| format!("%{}", s.name)).collect::<Vec<_>>().join(", ");
    let mut files: BTreeMap<&str, Source<'_>> = BTreeMap::new();
    let sources = opts
        .inputs
        .iter()
        .map(|(n, p)| (n, Source::File(p)))
        .chain(opts.arrays.iter().map(|(n, a)| (n, Source::Array(a))));
    for (name, source) in sources {
        if !specs.iter().any(|s| &s.name == name) {
            let known =
                if specs.is_empty() { "it has no arguments".to_string() } else { format!("arguments: {}", arg_list()) };
            return Err(EngineError::Other(format!("--input {name}: @{fname} has no argument %{name} ({known})")));
        }
        if files.insert(name, source).is_some() {
            return Err(EngineError::Other(format!("--input {name} is given more than once")));
        }
    }
    let mut warnings = Vec::new();
    let mut bindings = DimBindings::default();
    let mut values: Vec<Option<Bound>> = (0..specs.len()).map(|_| None).collect();

    // Files first: their shapes bind dimension names that generated inputs then follow.
    for (i, s) in specs.iter().enumerate() {
        let Some(source) = files.get(s.name.as_str()) else { continue };
        let (shape, dtype, mut data, from) = match source {
            Source::File(path) if load => {
                let NpyArray { shape, dtype, data } =
                    npy::read_npy(path).map_err(|e| arg_err(&s.name, e.to_string()))?;
                (shape, Some(dtype), data, path.display().to_string())
            }
            Source::File(path) => {
                let h = npy::read_npy_header(path).map_err(|e| arg_err(&s.name, e.to_string()))?;
                (h.shape, Some(h.dtype), Vec::new(), path.display().to_string())
            }
            Source::Array(a) => {
                if a.shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d)) != Some(a.data.len()) {
                    return Err(arg_err(
                        &s.name,
                        format!("the in-memory array has {} values for shape [{}]", a.data.len(), join(&a.shape)),
                    ));
                }
                let data = if load { a.data.clone() } else { Vec::new() };
                (a.shape.clone(), None, data, "the in-memory array".to_string())
            }
        };
        if shape.len() != s.dims.len() {
            return Err(arg_err(
                &s.name,
                format!(
                    "expected {}-d array for {}, got shape [{}] from {from}",
                    s.dims.len(),
                    s.ty_text,
                    join(&shape)
                ),
            ));
        }
        for (d, (dim, &size)) in s.dims.iter().zip(&shape).enumerate() {
            if let Dim::Static(n) = dim {
                if *n as usize != size {
                    return Err(arg_err(
                        &s.name,
                        format!("dimension {d} of {} is {n}, got shape [{}] from {from}", s.ty_text, join(&shape)),
                    ));
                }
            }
        }
        let want = npy_dtype_of(s.elem);
        if let Some(dtype) = dtype.filter(|d| *d != want) {
            let note = if s.elem == FloatKind::BF16 { " (bf16 travels as float32)" } else { "" };
            return Err(arg_err(
                &s.name,
                format!("expected {want} array for {}{note}, got {dtype} from {from}", s.ty_text),
            ));
        }
        // A file carries bf16 values as float32; an in-memory array carries f64 values
        // for every type: both are rounded to the argument's type.
        if s.elem == FloatKind::BF16 || (dtype.is_none() && s.elem != FloatKind::F64) {
            let mut inexact = 0usize;
            let mut first = None;
            for (k, v) in data.iter_mut().enumerate() {
                let r = s.elem.round(*v);
                if r.to_bits() != v.to_bits() && !(r.is_nan() && v.is_nan()) {
                    if first.is_none() {
                        first = Some((k, *v));
                    }
                    inexact += 1;
                    *v = r;
                }
            }
            if let Some((k, v)) = first {
                warnings.push(format!(
                    "argument %{}: {inexact} value(s) in {from} are not {}-representable and were rounded to nearest (first: element {k}, {v})",
                    s.name,
                    s.elem.name()
                ));
            }
        }
        for (d, name) in s.dim_names.iter().enumerate() {
            if let Some(name) = name {
                bindings.bind(&s.name, name, shape[d], format!("dimension {d} of %{} from {from}", s.name))?;
            }
        }
        let value = load.then(|| s.value(ctx, shape.clone(), data));
        values[i] = Some(Bound { shape, value });
    }

    // Then generated inputs, sized by --random (or by names the files bound).
    if let Some(random) = &opts.random {
        for (dim, size) in random {
            if !specs.iter().any(|s| s.dim_names.iter().flatten().any(|n| n == dim)) {
                return Err(EngineError::Other(format!(
                    "bad --random spec: '{dim}' names no dimension of @{fname} (name dimensions with {{morf.dims = [...]}})"
                )));
            }
            if let Some((bound, src)) = bindings.0.get(dim) {
                if bound != size {
                    return Err(EngineError::Other(format!(
                        "--random gives {dim}={size} but {dim} is {bound} ({src})"
                    )));
                }
            }
        }
        let given: BTreeMap<&str, usize> = random.iter().map(|(n, s)| (n.as_str(), *s)).collect();
        for (i, s) in specs.iter().enumerate() {
            if values[i].is_some() {
                continue;
            }
            let mut shape = Vec::with_capacity(s.dims.len());
            for (d, dim) in s.dims.iter().enumerate() {
                let name = s.dim_names[d].as_deref();
                let size = match (dim, name) {
                    (Dim::Static(n), _) => *n as usize,
                    (Dim::Dynamic, Some(n)) => match given.get(n).copied().or_else(|| bindings.0.get(n).map(|b| b.0)) {
                        Some(size) => size,
                        None => {
                            return Err(arg_err(
                                &s.name,
                                format!("dimension {d} of {} is '{n}', which --random does not size (add {n}=SIZE)", s.ty_text),
                            ))
                        }
                    },
                    (Dim::Dynamic, None) => {
                        return Err(arg_err(
                            &s.name,
                            format!(
                                "dimension {d} of {} is dynamic and unnamed, so --random cannot size it; name it with {{morf.dims = [...]}} or pass --input {}=FILE.npy",
                                s.ty_text, s.name
                            ),
                        ))
                    }
                };
                if let Some(n) = name {
                    bindings.bind(&s.name, n, size, format!("dimension {d} of generated %{}", s.name))?;
                }
                shape.push(size);
            }
            let n = shape
                .iter()
                .try_fold(1usize, |acc, &x| acc.checked_mul(x))
                .filter(|&n| n <= opts.max_elements.unwrap_or(morf_ir::interp::MAX_ELEMENTS));
            let Some(n) = n else {
                let what = if opts.max_elements.is_some() { "this run" } else { "the interpreter" };
                return Err(arg_err(&s.name, format!("shape [{}] is too large for {what}", join(&shape))));
            };
            let value = if load {
                let data = generate(n, s.dist, opts.seed, i, s.elem);
                if data.len() != n {
                    return Err(alloc_error(&s.name, &shape));
                }
                Some(s.value(ctx, shape.clone(), data))
            } else {
                None
            };
            values[i] = Some(Bound { shape, value });
        }
    }

    let mut out = Vec::with_capacity(specs.len());
    for (s, v) in specs.iter().zip(values) {
        match v {
            Some(v) => out.push(v),
            None => {
                return Err(arg_err(&s.name, format!("no input; pass --input {}=FILE.npy or --random", s.name)));
            }
        }
    }
    Ok((out, warnings))
}

/// The error `cannot write '<path>': <reason>`.
pub fn write_error(path: &Path, reason: impl std::fmt::Display) -> EngineError {
    EngineError::Other(format!("cannot write '{}': {reason}", path.display()))
}

/// Writes `results` of `func` to `dir/result<i>.npy` (creating `dir`).
///
/// The result set is replaced as a whole: every file is first written to a temporary
/// file beside its destination (`morf_ir::io::stage`), and only when all of them were
/// written are they renamed into place. A failed write therefore leaves every old
/// `result<i>.npy` as it was, and a symbolic link named `result<i>.npy` is replaced by
/// the new file instead of being followed.
pub fn write_results(
    ctx: &Context,
    func: OpId,
    results: &[RtValue],
    dir: &Path,
    stats: bool,
) -> Result<Vec<ResultSummary>, EngineError> {
    if let Ok(md) = std::fs::metadata(dir) {
        if !md.is_dir() {
            return Err(write_error(&dir.join("result0.npy"), format!("'{}' is not a directory", dir.display())));
        }
    }
    std::fs::create_dir_all(dir).map_err(|e| write_error(dir, format!("cannot create the output folder: {e}")))?;
    let mut staged: Vec<morf_ir::io::Staged> = Vec::with_capacity(results.len());
    let result_types: Vec<Type> = morf_ir::builtin::func_type(ctx, func)
        .and_then(|t| ctx.function_parts(t).map(|(_, r)| r.to_vec()))
        .unwrap_or_default();
    let mut out = Vec::with_capacity(results.len());
    for (i, v) in results.iter().enumerate() {
        let path = dir.join(format!("result{i}.npy"));
        let guard;
        let (elem, shape, data): (Type, Vec<usize>, &[f64]) = match v {
            RtValue::Tensor { elem, array } => (*elem, array.shape.clone(), &array.data),
            RtValue::Buffer { elem, data } => {
                guard = data.borrow();
                (*elem, guard.shape.clone(), &guard.data)
            }
            _ => {
                return Err(EngineError::Other(format!(
                    "result {i} is not a tensor or a buffer; morf-run writes only tensors and buffers"
                )))
            }
        };
        let ty = result_types.get(i).map(|t| ctx.type_to_string(*t)).unwrap_or_else(|| "?".into());
        let dtype = match ctx.type_data(elem) {
            TypeData::Float(k) => npy_dtype_of(*k),
            TypeData::Integer(1) => NpyDtype::Bool,
            TypeData::Integer(w) if *w <= 32 => NpyDtype::I32,
            TypeData::Integer(_) | TypeData::Index => NpyDtype::I64,
            _ => return Err(EngineError::Other(format!("result {i} of type {ty} cannot be written as .npy"))),
        };
        let bytes = npy::npy_bytes(&path, &shape, dtype, data).map_err(|e| {
            let text = e.to_string();
            let prefix = format!("{}: ", path.display());
            write_error(&path, text.strip_prefix(&prefix).unwrap_or(&text))
        })?;
        staged.push(morf_ir::io::stage(&path, &bytes).map_err(|e| write_error(&path, e))?);
        drop(bytes);
        let stats = stats.then(|| {
            let (mut lo, mut hi, mut sum) = (f64::INFINITY, f64::NEG_INFINITY, 0.0);
            for &x in data {
                lo = lo.min(x);
                hi = hi.max(x);
                sum += x;
            }
            (lo, hi, if data.is_empty() { f64::NAN } else { sum / data.len() as f64 })
        });
        out.push(ResultSummary { index: i, ty, shape, path, stats });
    }
    // Every file is written: rename them into place (a failure drops, and so removes,
    // the temporary files not yet renamed).
    for f in staged {
        let dest = f.dest().to_path_buf();
        f.commit().map_err(|e| write_error(&dest, e))?;
    }
    Ok(out)
}

/// The largest IR text morf-run reads (1 GiB): `/dev/zero` or an endless pipe is an
/// error, not an endless read.
pub const MAX_SOURCE_BYTES: u64 = 1 << 30;

/// Reads IR text from `r` (named `what` in errors), at most `max` bytes (see
/// [`MAX_SOURCE_BYTES`]).
pub fn read_source(r: impl std::io::Read, what: &str, max: u64) -> Result<String, EngineError> {
    let mut bytes = Vec::new();
    r.take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| EngineError::Other(format!("cannot read {what}: {e}")))?;
    if bytes.len() as u64 > max {
        return Err(EngineError::Other(format!("cannot read {what}: it is larger than {}", memory::format_bytes(max))));
    }
    String::from_utf8(bytes).map_err(|e| {
        EngineError::Other(format!(
            "cannot read {what}: it is not UTF-8 text (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_spec() {
        assert_eq!(parse_random_spec("M=3, N=4").unwrap(), vec![("M".to_string(), 3), ("N".to_string(), 4)]);
        assert!(parse_random_spec("").unwrap().is_empty());
        for bad in ["M", "=3", "M=-1", "M=x", "M=1,M=2"] {
            assert!(parse_random_spec(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn generated_options_lift_the_interpreter_bound_only_unchecked() {
        let sizes = vec![("M".to_string(), 100000), ("N".to_string(), 32768)];
        let checked = RunOptions::generated(None, sizes.clone(), 7, true);
        assert_eq!((checked.max_elements, checked.seed, checked.random.as_ref()), (None, 7, Some(&sizes)));
        let unchecked = RunOptions::generated(Some("f".into()), sizes, 0, false);
        const { assert!(100000 * 32768 > morf_ir::interp::MAX_ELEMENTS) };
        assert!(unchecked.max_elements.is_some_and(|n| n >= 100000 * 32768));
        assert_eq!(unchecked.entry.as_deref(), Some("f"));
    }

    #[test]
    fn input_spec() {
        assert_eq!(parse_input_spec("%x=a=b.npy").unwrap(), ("x".to_string(), PathBuf::from("a=b.npy")));
        assert!(parse_input_spec("x").is_err());
        assert!(parse_input_spec("=x.npy").is_err());
    }

    #[test]
    fn generated_values() {
        // Large inputs: independent chunk streams, the first as for a small input.
        let big = generate(3 * GEN_CHUNK + 7, Distribution::Normal, 5, 0, FloatKind::F64);
        assert_eq!(big[..1001], generate(1001, Distribution::Normal, 5, 0, FloatKind::F64)[..]);
        assert_eq!(big, generate(3 * GEN_CHUNK + 7, Distribution::Normal, 5, 0, FloatKind::F64));
        assert_ne!(big[GEN_CHUNK..GEN_CHUNK + 8], big[..8]);
        let mean = big.iter().sum::<f64>() / big.len() as f64;
        assert!(mean.abs() < 0.02, "{mean}");
        let a = generate(1001, Distribution::Normal, 5, 0, FloatKind::F64);
        assert_eq!(a, generate(1001, Distribution::Normal, 5, 0, FloatKind::F64));
        assert_ne!(a, generate(1001, Distribution::Normal, 5, 1, FloatKind::F64));
        let mean = a.iter().sum::<f64>() / a.len() as f64;
        let var = a.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / a.len() as f64;
        assert!(mean.abs() < 0.1 && (var - 1.0).abs() < 0.15, "mean {mean} var {var}");
        let b = generate(1000, Distribution::Normal, 0, 0, FloatKind::BF16);
        assert!(b.iter().all(|v| FloatKind::BF16.round(*v) == *v) && b.iter().any(|v| *v != 0.0));
        let p = generate(1000, Distribution::Positive, 0, 0, FloatKind::F32);
        assert!(p.iter().all(|v| (0.5..2.0).contains(v)));
    }
}
