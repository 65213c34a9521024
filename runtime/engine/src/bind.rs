//! morf-run: runs one function of an IR file on the reference interpreter, with its
//! arguments read from `.npy` files or generated pseudo-randomly, and writes each result
//! to `DIR/result<i>.npy`.
//!
//! The binary is a thin wrapper around [`main_with_args`]; the work is done by
//! [`run_source`] (parse, verify, pick the function, [`bind_arguments`], run,
//! [`write_results`]), which tests call directly. Every user error (bad IR, a missing or
//! ill-shaped input, an interpreter failure) is a [`RunError`], never a panic.
//!
//! `.npy` conventions: `bf16` tensors travel as float32 files (values must be
//! bf16-representable; others are rounded with a warning), `f16`, `f32` and `f64`
//! tensors as files of that dtype. Results are written the same way. Loop-level files run
//! with the same conventions: an argument of `!mloop.buffer` type is bound exactly like a
//! tensor argument (by name, `morf.dims`, `--random`), and a returned buffer is written
//! like a tensor.
#![warn(missing_docs)]

pub mod gpu_exec;
pub mod gpu_run;
pub mod memory;
pub mod npy;

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fmt::Write as _;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::{Duration, Instant};

use clap::Parser as _;
use morf_ir::interp::{Array, RtValue};
use morf_ir::{AttrData, Context, Dim, FloatKind, OpId, Type, TypeData};

use crate::npy::{NpyArray, NpyDtype};

/// What to run and where its inputs and outputs are.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// The function to run; `None` picks the only function of the module.
    pub entry: Option<String>,
    /// `(argument name, .npy file)` pairs; the name is the SSA name without `%`.
    pub inputs: Vec<(String, PathBuf)>,
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
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            entry: None,
            inputs: Vec::new(),
            random: None,
            seed: 0,
            output_dir: PathBuf::from("."),
            allow_unregistered_dialect: false,
            stats: false,
            max_memory: None,
        }
    }
}

/// Why a run failed. The `Display` text is the message after `morf-run: error: `,
/// except for [`RunError::Diagnostic`], which is printed as it is.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// A diagnostic of the parser, verifier or interpreter, already rendered with its
    /// `file:line:col` prefix, source line and caret.
    #[error("{0}")]
    Diagnostic(String),
    /// A problem with one function argument (its input file, shape or dtype).
    #[error("argument %{name}: {message}")]
    Argument {
        /// The argument's SSA name, without `%`.
        name: String,
        /// What is wrong.
        message: String,
    },
    /// Any other problem (options, files, the choice of function).
    #[error("{0}")]
    Other(String),
}

fn arg_err(name: &str, message: impl Into<String>) -> RunError {
    RunError::Argument { name: name.to_string(), message: message.into() }
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

/// Parses a `--random` spec, `NAME=SIZE[,NAME=SIZE...]` (an empty spec is allowed).
pub fn parse_random_spec(spec: &str) -> Result<Vec<(String, usize)>, RunError> {
    let bad = |why: &str| RunError::Other(format!("bad --random spec '{spec}': {why}"));
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
pub fn parse_input_spec(spec: &str) -> Result<(String, PathBuf), RunError> {
    match spec.split_once('=') {
        Some((name, path)) if !name.trim_start_matches('%').is_empty() && !path.is_empty() => {
            Ok((name.trim_start_matches('%').to_string(), PathBuf::from(path)))
        }
        _ => Err(RunError::Other(format!("bad --input '{spec}': expected NAME=PATH.npy"))),
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
pub fn load_module(ctx: &mut Context, name: &str, text: &str) -> Result<OpId, RunError> {
    ctx.add_source(name, text);
    let module = morf_ir::parse_source(ctx, name, text, 0).map_err(|d| RunError::Diagnostic(ctx.render(&d)))?;
    morf_ir::verify(ctx, module).map_err(|d| RunError::Diagnostic(ctx.render(&d)))?;
    Ok(module)
}

/// The `func.func` ops directly inside `module`, in order.
fn functions(ctx: &Context, module: OpId) -> Vec<OpId> {
    let Some(&r) = ctx.regions(module).first() else { return Vec::new() };
    let Some(b) = ctx.entry_block(r) else { return Vec::new() };
    ctx.block_ops(b).filter(|o| ctx.op_name(*o) == "func.func").collect()
}

/// Picks the function to run: `entry` if given, else the only function of the module.
pub fn select_function(ctx: &Context, module: OpId, entry: Option<&str>, file: &str) -> Result<OpId, RunError> {
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
                    RunError::Other(format!("no function @{e} in {file} (it has no functions)"))
                } else {
                    RunError::Other(format!("no function @{e} in {file} (functions: {})", names()))
                }
            })
        }
        None => match funcs.len() {
            0 => Err(RunError::Other(format!("{file} has no function to run"))),
            1 => Ok(funcs[0]),
            n => Err(RunError::Other(format!("{file} has {n} functions ({}); choose one with --entry", names()))),
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

fn dict_get(ctx: &Context, dict: morf_ir::Attr, key: &str) -> Option<morf_ir::Attr> {
    match ctx.attr_data(dict) {
        AttrData::Dict(entries) => entries.iter().find(|(k, _)| ctx.str(*k) == key).map(|(_, v)| *v),
        _ => None,
    }
}

fn arg_specs(ctx: &Context, func: OpId) -> Result<Vec<ArgSpec>, RunError> {
    let fname = morf_ir::builtin::symbol_name(ctx, func).unwrap_or("?").to_string();
    let Some(block) = ctx.regions(func).first().and_then(|r| ctx.entry_block(*r)) else {
        return Err(RunError::Other(format!("@{fname} is a declaration (it has no body); it cannot run")));
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
    fn bind(&mut self, arg: &str, dim: &str, size: usize, source: String) -> Result<(), RunError> {
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

/// `n` deterministic values for argument number `index`: each argument has its own
/// stream, so adding an argument does not change the values of the others.
fn generate(n: usize, dist: Distribution, seed: u64, index: usize, elem: FloatKind) -> Vec<f64> {
    let mut rng = SplitMix64(seed ^ (index as u64 + 1).wrapping_mul(0xD6E8_FEB8_6659_FD93));
    let mut out = Vec::new();
    if out.try_reserve_exact(n).is_err() {
        return out;
    }
    match dist {
        Distribution::Positive => {
            while out.len() < n {
                out.push(elem.round(0.5 + 1.5 * rng.next_f64()));
            }
        }
        Distribution::Normal => {
            // Box-Muller: two uniforms give two independent standard normals.
            while out.len() < n {
                let u1 = 1.0 - rng.next_f64(); // in (0, 1], so ln is finite
                let u2 = rng.next_f64();
                let r = (-2.0 * u1.ln()).sqrt();
                let t = std::f64::consts::TAU * u2;
                out.push(elem.round(r * t.cos()));
                if out.len() < n {
                    out.push(elem.round(r * t.sin()));
                }
            }
        }
    }
    out
}

/// Binds each argument of `func` from `opts.inputs` or, where none is given and
/// `opts.random` is set, from generated values. Returns the values and the warnings.
///
/// With [`RunOptions::max_memory`] set, the run of `func` on the interpreter is
/// estimated first ([`memory::interpreter_peak`]) and refused when over the limit;
/// storage for the values is reserved fallibly either way, so running out of memory is
/// an error, not an abort.
pub fn bind_arguments(ctx: &Context, func: OpId, opts: &RunOptions) -> Result<(Vec<RtValue>, Vec<String>), RunError> {
    if let Some(limit) = &opts.max_memory {
        estimate_interpreter_run(ctx, func, opts)?.check(limit)?;
    }
    let (values, warnings) = bind_impl(ctx, func, opts, true)?;
    Ok((values.into_iter().map(|v| v.value.unwrap_or(RtValue::Int(0))).collect(), warnings))
}

/// The run-time shape of each argument of `func` as [`bind_arguments`] would bind it
/// (empty for scalars), reading only the headers of input files and generating nothing.
pub fn plan_arguments(ctx: &Context, func: OpId, opts: &RunOptions) -> Result<Vec<Vec<usize>>, RunError> {
    Ok(bind_impl(ctx, func, opts, false)?.0.into_iter().map(|v| v.shape).collect())
}

/// The memory a run of `func` on the interpreter needs: its inputs (as `f64`), the
/// bytes of the input files while they are decoded, and the interpreter's peak.
pub fn estimate_interpreter_run(
    ctx: &Context,
    func: OpId,
    opts: &RunOptions,
) -> Result<memory::MemoryEstimate, RunError> {
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

/// One argument as [`bind_impl`] planned or bound it.
struct Bound {
    shape: Vec<usize>,
    value: Option<RtValue>,
}

fn alloc_error(name: &str, shape: &[usize]) -> RunError {
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
fn bind_impl(ctx: &Context, func: OpId, opts: &RunOptions, load: bool) -> Result<(Vec<Bound>, Vec<String>), RunError> {
    let specs = arg_specs(ctx, func)?;
    let fname = morf_ir::builtin::symbol_name(ctx, func).unwrap_or("?");
    let arg_list = || specs.iter().map(|s| format!("%{}", s.name)).collect::<Vec<_>>().join(", ");
    let mut files: BTreeMap<&str, &Path> = BTreeMap::new();
    for (name, path) in &opts.inputs {
        if !specs.iter().any(|s| &s.name == name) {
            let known =
                if specs.is_empty() { "it has no arguments".to_string() } else { format!("arguments: {}", arg_list()) };
            return Err(RunError::Other(format!("--input {name}: @{fname} has no argument %{name} ({known})")));
        }
        if files.insert(name, path).is_some() {
            return Err(RunError::Other(format!("--input {name} is given more than once")));
        }
    }
    let mut warnings = Vec::new();
    let mut bindings = DimBindings::default();
    let mut values: Vec<Option<Bound>> = (0..specs.len()).map(|_| None).collect();

    // Files first: their shapes bind dimension names that generated inputs then follow.
    for (i, s) in specs.iter().enumerate() {
        let Some(path) = files.get(s.name.as_str()) else { continue };
        let (shape, dtype, mut data) = if load {
            let NpyArray { shape, dtype, data } = npy::read_npy(path).map_err(|e| arg_err(&s.name, e.to_string()))?;
            (shape, dtype, data)
        } else {
            let h = npy::read_npy_header(path).map_err(|e| arg_err(&s.name, e.to_string()))?;
            (h.shape, h.dtype, Vec::new())
        };
        let from = path.display();
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
        if dtype != want {
            let note = if s.elem == FloatKind::BF16 { " (bf16 travels as float32)" } else { "" };
            return Err(arg_err(
                &s.name,
                format!("expected {want} array for {}{note}, got {dtype} from {from}", s.ty_text),
            ));
        }
        if s.elem == FloatKind::BF16 {
            let mut inexact = 0usize;
            let mut first = None;
            for (k, v) in data.iter_mut().enumerate() {
                let r = FloatKind::BF16.round(*v);
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
                    "argument %{}: {inexact} value(s) in {from} are not bf16-representable and were rounded to nearest (first: element {k}, {v})",
                    s.name
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
                return Err(RunError::Other(format!(
                    "bad --random spec: '{dim}' names no dimension of @{fname} (name dimensions with {{morf.dims = [...]}})"
                )));
            }
            if let Some((bound, src)) = bindings.0.get(dim) {
                if bound != size {
                    return Err(RunError::Other(format!("--random gives {dim}={size} but {dim} is {bound} ({src})")));
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
                .filter(|&n| n <= morf_ir::interp::MAX_ELEMENTS);
            let Some(n) = n else {
                return Err(arg_err(&s.name, format!("shape [{}] is too large for the interpreter", join(&shape))));
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
pub fn write_error(path: &Path, reason: impl std::fmt::Display) -> RunError {
    RunError::Other(format!("cannot write '{}': {reason}", path.display()))
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
) -> Result<Vec<ResultSummary>, RunError> {
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
                return Err(RunError::Other(format!(
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
            _ => return Err(RunError::Other(format!("result {i} of type {ty} cannot be written as .npy"))),
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

/// Runs the IR `text` (named `name` in diagnostics) as `opts` says: parse, verify, pick
/// the function, bind its arguments, interpret it and write its results.
pub fn run_source(name: &str, text: &str, opts: &RunOptions) -> Result<RunReport, RunError> {
    let mut ctx = new_context(opts.allow_unregistered_dialect);
    let module = load_module(&mut ctx, name, text)?;
    let mut warnings: Vec<String> = Vec::new();
    for d in ctx.take_emitted() {
        warnings.push(ctx.render(&d).trim_end().to_string());
    }
    let func = select_function(&ctx, module, opts.entry.as_deref(), name)?;
    let fname = morf_ir::builtin::symbol_name(&ctx, func).unwrap_or("?").to_string();
    let t0 = Instant::now();
    let (args, arg_warnings) = bind_arguments(&ctx, func, opts)?;
    warnings.extend(arg_warnings);
    tracing::debug!("bound {} argument(s) of @{fname} in {:?}", args.len(), t0.elapsed());
    let t1 = Instant::now();
    let results = morf_ir::interp::run_function(&ctx, func, args).map_err(|d| RunError::Diagnostic(ctx.render(&d)))?;
    let run_time = t1.elapsed();
    tracing::info!("@{fname} ran in {run_time:?} on the interpreter");
    let results = write_results(&ctx, func, &results, &opts.output_dir, opts.stats)?;
    Ok(RunReport { function: fname, warnings, results, run_time })
}

/// Command line of morf-run.
#[derive(clap::Parser, Debug)]
#[command(
    name = "morf-run",
    about = "Run a function of a morf IR file on the interpreter, with .npy or random inputs",
    after_help = "bf16 tensors are read and written as float32 .npy files; f16/f32/f64 as themselves.\n\
                  Results go to DIR/result0.npy, result1.npy, ... in result order."
)]
struct Cli {
    /// IR file to run (`-` reads standard input).
    file: String,
    /// Function to run (default: the only function of the module).
    #[arg(long, value_name = "NAME")]
    entry: Option<String>,
    /// Bind argument %NAME to an .npy file (repeatable).
    #[arg(long = "input", value_name = "NAME=PATH.npy")]
    inputs: Vec<String>,
    /// Generate the arguments without --input: sizes of the dimension names of their
    /// `morf.dims` attributes, e.g. M=576000,N=384 (repeatable; may be empty).
    #[arg(long, value_name = "NAME=SIZE,...")]
    random: Vec<String>,
    /// Seed of the generated inputs.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Folder for result<i>.npy (created if missing).
    #[arg(long, value_name = "DIR", default_value = ".")]
    output_dir: PathBuf,
    /// Where to run: `interp` (the reference interpreter), `sim` (compile a module
    /// without kernels with the `gpu` pipeline and PTX emission, then run the host
    /// function with each `mgpu.launch` on the CPU GPU simulator), `gpu` (the CUDA device), or `auto`
    /// (compile end to end with the `gpu` pipeline and PTX emission, then run on the GPU
    /// when CUDA is present, else on the CPU simulator).
    /// Default: `gpu` when the CUDA driver library is present and the module has kernels
    /// (`mgpu.func`), else `interp`. `gpu` lowers a module without kernels with the `gpu`
    /// pipeline first; without a GPU it fails with "no GPU".
    #[arg(long, value_name = "interp|sim|gpu|auto")]
    device: Option<String>,
    /// With `--device gpu`, `auto` or `sim`: also run the original function on the fp64 reference
    /// interpreter and compare every output (relative L2 error within 1e-5 for f32, 1e-2
    /// for bf16/f16, by the narrowest float type the output is computed through; over the
    /// finite values; a NaN or infinity passes only where the reference has the same). Prints one `check resultN: ...` line per output; exits 1
    /// if any fails.
    #[arg(long)]
    check: bool,
    /// Refuse a run whose estimated memory is over SIZE (bytes, or with K, M, G or T:
    /// 512M, 4G). Default: the memory available to the process (MemAvailable, and the
    /// cgroup limit where one is set).
    #[arg(long, value_name = "SIZE")]
    max_memory: Option<String>,
    /// Accept operations of unregistered dialects (generic form).
    #[arg(long)]
    allow_unregistered_dialect: bool,
    /// Print min/max/mean of each result and timings.
    #[arg(short, long)]
    verbose: bool,
}

fn cli_options(cli: &Cli) -> Result<RunOptions, RunError> {
    match cli.device.as_deref().unwrap_or("interp") {
        "interp" | "sim" => {}
        "gpu" | "auto" => {}
        other => {
            return Err(RunError::Other(format!("unknown --device '{other}' (expected interp, sim, gpu or auto)")))
        }
    }
    let inputs = cli.inputs.iter().map(|s| parse_input_spec(s)).collect::<Result<Vec<_>, _>>()?;
    let random = if cli.random.is_empty() {
        None
    } else {
        let mut all: Vec<(String, usize)> = Vec::new();
        for spec in &cli.random {
            for (n, s) in parse_random_spec(spec)? {
                if all.iter().any(|(m, _)| *m == n) {
                    return Err(RunError::Other(format!("bad --random spec '{spec}': '{n}' is given twice")));
                }
                all.push((n, s));
            }
        }
        Some(all)
    };
    Ok(RunOptions {
        entry: cli.entry.clone(),
        inputs,
        random,
        seed: cli.seed,
        output_dir: cli.output_dir.clone(),
        allow_unregistered_dialect: cli.allow_unregistered_dialect,
        stats: cli.verbose,
        max_memory: None,
    })
}

/// Runs morf-run with the given command line (argv[0] first) and returns the process exit code:
/// 0 on success, 1 on any error (reported on stderr), a malformed command line included.
pub fn main_with_args(args: Vec<OsString>) -> i32 {
    let cli = match Cli::try_parse_from(args) {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 1 } else { 0 };
            if e.use_stderr() {
                morf_ir::io::eprint_lossy(&e.render().to_string());
                return code;
            }
            // --help and --version go to standard output, which may be closed or full.
            return match morf_ir::io::write_stdout(e.render().to_string().as_bytes()) {
                Ok(()) => 0,
                Err(err) => {
                    if err.kind() != std::io::ErrorKind::BrokenPipe {
                        morf_ir::io::eprint_lossy(&format!("morf-run: error: cannot write to standard output: {err}"));
                    }
                    1
                }
            };
        }
    };
    let level = if cli.verbose { tracing::Level::DEBUG } else { tracing::Level::WARN };
    let _ = tracing_subscriber::fmt()
        .with_max_level(level)
        .with_ansi(false)
        .with_writer(|| LossyStderr)
        .with_target(false)
        .try_init();
    match run_cli(&cli) {
        Ok((report, checks, notes)) => {
            let mut text = String::new();
            for r in &report.results {
                let _ = writeln!(text, "{r}");
            }
            for n in &notes {
                let _ = writeln!(text, "{n}");
            }
            for c in &checks {
                let _ = writeln!(text, "{c}");
            }
            if cli.verbose {
                let _ = writeln!(text, "@{} ran in {:.3} s", report.function, report.run_time.as_secs_f64());
            }
            if let Err(e) = morf_ir::io::write_stdout(text.as_bytes()) {
                // A reader that went away (`| head -1`) is not worth a message; anything
                // else (`> /dev/full`) is.
                if e.kind() != std::io::ErrorKind::BrokenPipe {
                    morf_ir::io::eprint_lossy(&format!("morf-run: error: cannot write to standard output: {e}"));
                }
                return 1;
            }
            if checks.iter().all(|c| c.ok()) {
                0
            } else {
                morf_ir::io::eprint_lossy("morf-run: error: output check failed");
                1
            }
        }
        Err(RunError::Diagnostic(text)) => {
            morf_ir::io::eprint_lossy(&text);
            1
        }
        Err(e) => {
            morf_ir::io::eprint_lossy(&format!("morf-run: error: {e}"));
            1
        }
    }
}

/// Standard error for log lines, ignoring write errors: tracing-subscriber reports a
/// failed write with `eprintln!`, which panics when standard error is full or closed.
struct LossyStderr;

impl std::io::Write for LossyStderr {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let _ = std::io::stderr().write_all(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        let _ = std::io::stderr().flush();
        Ok(())
    }
}

/// The largest IR text morf-run reads (1 GiB): `/dev/zero` or an endless pipe is an
/// error, not an endless read.
pub const MAX_SOURCE_BYTES: u64 = 1 << 30;

/// Reads IR text from `r` (named `what` in errors), at most `max` bytes (see
/// [`MAX_SOURCE_BYTES`]).
pub fn read_source(r: impl std::io::Read, what: &str, max: u64) -> Result<String, RunError> {
    let mut bytes = Vec::new();
    r.take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| RunError::Other(format!("cannot read {what}: {e}")))?;
    if bytes.len() as u64 > max {
        return Err(RunError::Other(format!("cannot read {what}: it is larger than {}", memory::format_bytes(max))));
    }
    String::from_utf8(bytes).map_err(|e| {
        RunError::Other(format!(
            "cannot read {what}: it is not UTF-8 text (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        ))
    })
}

/// Lines to print after the results, and the run.
type CliOutcome = (RunReport, Vec<gpu_run::OutputCheck>, Vec<String>);

fn note(text: &str) {
    morf_ir::io::eprint_lossy(&format!("morf-run: note: {text}"));
}

fn run_cli(cli: &Cli) -> Result<CliOutcome, RunError> {
    let mut opts = cli_options(cli)?;
    opts.max_memory = match &cli.max_memory {
        Some(text) => Some(memory::MemoryLimit {
            bytes: memory::parse_size(text).map_err(|e| RunError::Other(format!("--max-memory: {e}")))?,
            source: "--max-memory".into(),
        }),
        None => memory::system_limit(),
    };
    // The text, and the IR parsed from it, must fit in memory too.
    let max = opts.max_memory.as_ref().map_or(MAX_SOURCE_BYTES, |l| (l.bytes / 2).min(MAX_SOURCE_BYTES));
    let cap_note = |e: RunError| match (&opts.max_memory, e) {
        (Some(l), RunError::Other(m)) if m.ends_with(&memory::format_bytes(max)) && max < MAX_SOURCE_BYTES => {
            RunError::Other(format!("{m} (half the memory limit, {})", l.source))
        }
        (_, e) => e,
    };
    let (name, text) = if cli.file == "-" {
        ("<stdin>".to_string(), read_source(std::io::stdin().lock(), "standard input", max).map_err(cap_note)?)
    } else {
        let f =
            std::fs::File::open(&cli.file).map_err(|e| RunError::Other(format!("cannot read {}: {e}", cli.file)))?;
        if f.metadata().is_ok_and(|m| m.is_dir()) {
            return Err(RunError::Other(format!("cannot read {}: it is a directory", cli.file)));
        }
        (cli.file.clone(), read_source(f, &cli.file, max).map_err(cap_note)?)
    };
    let auto = cli.device.as_deref() == Some("auto");
    let on_gpu = match cli.device.as_deref() {
        Some("gpu") => true,
        Some("auto") => morf_runtime::cuda_available(),
        Some(_) => false,
        None => morf_runtime::cuda_available() && gpu_run::text_has_kernels(&name, &text),
    };
    let sim = cli.device.as_deref() == Some("sim");
    let mut lines = Vec::new();
    let (report, checks) = if sim || (auto && !on_gpu) {
        let r = if sim {
            let kernels = gpu_run::text_has_kernels(&name, &text);
            if cli.check && kernels {
                note("--check compares a compiled run with the interpreter; this module already has kernels, so the simulation is its only semantics and there is nothing to check");
            }
            gpu_run::run_source_sim(&name, &text, &opts, cli.check)?
        } else {
            note("no CUDA driver found; running the compiled kernels on the CPU simulator");
            gpu_run::run_source_sim_compiled(&name, &text, &opts, cli.check)?
        };
        if let Some(n) = r.launches {
            lines.push(format!("ran {n} kernel launch{} on the GPU simulator", if n == 1 { "" } else { "es" }));
        }
        (r.run, r.checks)
    } else if on_gpu {
        let r = gpu_run::run_source_gpu(&name, &text, &opts, cli.check)?;
        tracing::info!("ran on {}", r.device);
        (r.run, r.checks)
    } else {
        if cli.check {
            note("--check compares a GPU run with the interpreter; this run is on the interpreter, so there is nothing to check");
        }
        (run_source(&name, &text, &opts)?, Vec::new())
    };
    for w in &report.warnings {
        if w.contains(": warning: ") || w.contains(": remark: ") {
            morf_ir::io::eprint_lossy(w);
        } else {
            morf_ir::io::eprint_lossy(&format!("morf-run: warning: {w}"));
        }
    }
    Ok((report, checks, lines))
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
    fn input_spec() {
        assert_eq!(parse_input_spec("%x=a=b.npy").unwrap(), ("x".to_string(), PathBuf::from("a=b.npy")));
        assert!(parse_input_spec("x").is_err());
        assert!(parse_input_spec("=x.npy").is_err());
    }

    #[test]
    fn generated_values() {
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
