//! Benchmarking a tensor-level function on the GPU (what `morf-bench` runs): the program
//! compiled by the fused pipeline (and optionally the unfused one), timed against the
//! bandwidth of a device-to-device copy kernel measured in the same run. See
//! `docs/engine.md` ("Benchmarking from Rust"), `tools/morf-bench/README.md` and
//! `docs/perf.md`.
//!
//! ```no_run
//! use morf_engine::{run_bench_file, BenchConfig, BenchError};
//!
//! let shapes = vec![vec![("M".to_string(), 576000), ("N".to_string(), 384)]];
//! let config = BenchConfig { unfused: true, ..BenchConfig::new(shapes) };
//! match run_bench_file("examples/rmsnorm_bwd.mlir".as_ref(), &config, &mut |line| eprintln!("{line}")) {
//!     Ok(report) => print!("{}{}", report.table(), report.kernel_tables()),
//!     Err(BenchError::Skipped(why)) => println!("skipped: {why}"),
//!     Err(BenchError::Run(e)) => eprintln!("error: {e}"),
//! }
//! ```
//!
//! Method, per shape ([`run_bench`]): bind fresh pseudo-random inputs (normal;
//! `morf.random = "positive"` arguments such as `rstd` uniform in [0.5, 2)), compile, run
//! each program once and check every output against the fp64 reference interpreter (unless
//! [`BenchConfig::check`] is off), then time the host sequence of one call (all its
//! launches, fills and workspace reuse) between two CUDA events: `warmup` untimed calls,
//! then the median of `runs` timed calls ([`crate::timing::time_program`]; by default each
//! call follows an L2-evicting memset and the host waits once at the end, as
//! `triton.testing.do_bench` times the peers: [`BenchConfig::call_timing`]). The inputs stay
//! the same between calls. A fused program that fails its check is not timed (the other
//! shapes still run; [`BenchReport::fused_failures`] names them); an unfused one that fails
//! is timed anyway and marked. With [`BenchConfig::per_kernel`], a second pass of `runs`
//! calls records a pair of events around each launch ([`crate::timing::time_kernels`]; the
//! whole-call figures come from the first pass, which records nothing between launches).
//! Unchecked, each program's arguments go to the device once, for its first call and both
//! passes, nothing is downloaded, and the fused program is timed before the unfused one is
//! uploaded: a shape past the interpreter (100000 x 32768, 13 GB of bf16 inputs) costs one
//! upload a program.
//!
//! floor = minimum bytes / copy bandwidth, where the minimum bytes are every argument read
//! once plus every result written once (x, dy, rstd[, mean], w in; dx, dw[, db] out for the
//! norm backward passes), element sizes by dtype ([`floor_bytes`]); copy bandwidth = (bytes
//! read + bytes written) / median time of the copy kernel on a [`BenchConfig::copy_bytes`]
//! buffer (1 GiB by default).
//!
//! The report renders as `morf-bench` prints it: a markdown table ([`BenchReport::table`]),
//! per-kernel tables ([`BenchReport::kernel_tables`]) and JSON ([`BenchReport::to_json`]).

use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;

use morf_ir::interp::RtValue;
use morf_ir::{Context, OpId, TypeData};
use morf_runtime::{Gpu, RuntimeError};

use crate::compile::{
    compile_for_gpu, exec_err, lower_for_gpu, pipeline_with_option, runtime_err, GpuProgram, KernelResource,
};
use crate::gpu_exec::DevValue;
use crate::timing::{time_kernels_on, time_program_on, CallTiming, KernelTiming};
use crate::tuning::{pipeline_for_compile, DeviceKey, ProgramRef};
use crate::{
    bind_arguments, compare_outputs, load_module, new_context, select_function, EngineError, OutputCheck, RunOptions,
};

/// What one benchmark measures: the shapes, the programs and the timing method.
/// [`BenchConfig::new`] gives `morf-bench`'s defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct BenchConfig {
    /// One entry per shape: the sizes of the named dimensions (`morf.dims`), e.g.
    /// `[("M", 576000), ("N", 384)]`. Each program is compiled with them as size hints.
    pub shapes: Vec<Vec<(String, usize)>>,
    /// The function to time (`None`: the only function of the module).
    pub entry: Option<String>,
    /// Timed calls per program (the median is reported); at least 1.
    pub runs: usize,
    /// Untimed calls before timing.
    pub warmup: usize,
    /// Whether to also compile and time the unfused pipeline.
    pub unfused: bool,
    /// The named pipeline of the fused program (`gpu`).
    pub fused_pipeline: String,
    /// The named pipeline of the unfused program (`gpu-unfused`).
    pub unfused_pipeline: String,
    /// Seed of the generated inputs.
    pub seed: u64,
    /// Bytes of the copy-kernel buffer (read and written once per copy); at least 16.
    pub copy_bytes: usize,
    /// The GPU ordinal.
    pub device: usize,
    /// Whether to also time each kernel launch on its own (a second pass of `runs` calls).
    pub per_kernel: bool,
    /// Whether to check every output against the fp64 reference interpreter first (off:
    /// the outputs are reported as unchecked, and the floor takes the result sizes from the
    /// fused program's outputs).
    pub check: bool,
    /// How the timed calls are separated ([`CallTiming::Pipelined`], as `do_bench`, by
    /// default).
    pub call_timing: CallTiming,
    /// The tuning cache consulted for each named pipeline (the built-in one by default): an
    /// entry for the program, the shape's bucket and the GPU gives the tuned schedule.
    pub tuning: crate::tuning::TuningSource,
    /// PTX to load for the fused program instead of emitting it, with its file name
    /// (another backend's PTX of the same lowering, checked to have the same kernels).
    pub fused_ptx: Option<(String, String)>,
    /// SMs held by a spinning kernel (`morf_runtime::SmReservation`) through every timing
    /// phase (the copy kernels', each program's), so that the timed work runs on the others:
    /// a device with that much more DRAM bandwidth per SM, emulated (0: none). Compiles,
    /// uploads, checks and first calls run with every SM. Every pass of the pipelines that
    /// takes a `device` option and sets none gets `device=sms=N` for the N SMs left.
    pub reserve_sms: u32,
}

impl BenchConfig {
    /// The defaults of `morf-bench` for `shapes`: 100 runs after 10 warm-up calls, the
    /// `gpu` pipeline only, seed 0, a 1 GiB copy buffer, GPU 0, outputs checked, no
    /// per-kernel timing.
    pub fn new(shapes: Vec<Vec<(String, usize)>>) -> BenchConfig {
        BenchConfig {
            shapes,
            entry: None,
            runs: 100,
            warmup: 10,
            unfused: false,
            fused_pipeline: "gpu".into(),
            unfused_pipeline: "gpu-unfused".into(),
            seed: 0,
            copy_bytes: 1 << 30,
            device: 0,
            per_kernel: false,
            check: true,
            call_timing: CallTiming::Pipelined,
            tuning: crate::tuning::TuningSource::Builtin,
            fused_ptx: None,
            reserve_sms: 0,
        }
    }

    /// Checks the values [`run_bench`] needs: at least one run, a copy buffer of at least
    /// 16 bytes, and at least one shape, each naming a dimension.
    pub fn validate(&self) -> Result<(), EngineError> {
        let bad = |m: &str| Err(EngineError::Other(format!("bad benchmark configuration: {m}")));
        if self.runs == 0 {
            return bad("runs must be at least 1");
        }
        if self.copy_bytes < 16 {
            return bad("copy_bytes must be at least 16");
        }
        if self.shapes.is_empty() {
            return bad("no shape");
        }
        if self.shapes.iter().any(Vec::is_empty) {
            return bad("a shape names no dimension");
        }
        Ok(())
    }
}

/// Bytes moved at least once by a call: every input read once, every output written once.
/// Each entry is `(elements, bytes per element)`.
pub fn floor_bytes(tensors: &[(usize, usize)]) -> u64 {
    tensors.iter().map(|&(n, b)| n as u64 * b as u64).sum()
}

/// The time `bytes` take at `tb_per_s` (10^12 bytes per second), in microseconds.
pub fn floor_us(bytes: u64, tb_per_s: f64) -> f64 {
    bytes as f64 / (tb_per_s * 1e12) * 1e6
}

/// `floor / measured` in percent (how close a time is to the floor).
pub fn pct_of_floor(floor_us: f64, measured_us: f64) -> f64 {
    100.0 * floor_us / measured_us
}

/// The outcome of a program's output check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckStatus {
    /// Every output matched the reference.
    Passed,
    /// Some output did not.
    Failed,
    /// No check was made ([`BenchConfig::check`] off; `--no-check`).
    Unchecked,
}

impl CheckStatus {
    /// The status of `checks`.
    pub fn of(checks: &[OutputCheck]) -> CheckStatus {
        if checks.iter().all(OutputCheck::ok) {
            CheckStatus::Passed
        } else {
            CheckStatus::Failed
        }
    }

    /// `passed`, `failed` or `unchecked`.
    pub fn name(self) -> &'static str {
        match self {
            CheckStatus::Passed => "passed",
            CheckStatus::Failed => "failed",
            CheckStatus::Unchecked => "unchecked",
        }
    }

    /// The mark after a time in the table.
    fn mark(self) -> &'static str {
        match self {
            CheckStatus::Passed => "",
            CheckStatus::Failed => " (check failed)",
            CheckStatus::Unchecked => " (unchecked)",
        }
    }
}

/// The figures of one program on one shape.
#[derive(Clone, Debug, PartialEq)]
pub struct ProgramTiming {
    /// Median time of one call, in microseconds (NaN when not timed: a failed fused check).
    pub median_us: f64,
    /// Fastest call (NaN when not timed).
    pub min_us: f64,
    /// Kernel launches per call (0 when not timed).
    pub launches: usize,
    /// Whether the outputs matched the reference.
    pub check: CheckStatus,
    /// The output checks made before timing (empty when unchecked).
    pub checks: Vec<OutputCheck>,
    /// Each launch of a call, in order ([`BenchConfig::per_kernel`] only).
    pub kernels: Option<Vec<KernelTiming>>,
    /// What each kernel takes as the driver compiled it: registers, local memory, spills
    /// (empty when the program was not loaded).
    pub resources: Vec<KernelResource>,
}

/// The figures of one shape.
#[derive(Clone, Debug, PartialEq)]
pub struct ShapeResult {
    /// `576000 x 384`.
    pub shape: String,
    /// The sizes as given.
    pub sizes: Vec<(String, usize)>,
    /// Element type of the first argument (`bf16`, `f32`).
    pub dtype: String,
    /// Minimum bytes of a call.
    pub floor_bytes: u64,
    /// The floor in microseconds at the copy bandwidth.
    pub floor_us: f64,
    /// The time of a plain copy of `floor_bytes` (half read, half written), timed as the
    /// programs are (an L2 flush before each copy, one launch between two events): what
    /// the copy kernel itself reaches at this traffic, its launch and ramp included
    /// (`None` when not measured: the shape's fused check failed).
    pub copy_same_us: Option<f64>,
    /// The fused program.
    pub fused: ProgramTiming,
    /// The unfused program, when asked.
    pub unfused: Option<ProgramTiming>,
    /// Which schedules were used: one line per program whose pipeline consulted a tuning
    /// cache (tuned, or why not).
    pub tuning: Vec<String>,
}

/// The copy kernel's figures.
///
/// Serializes as the report's `"copy"` object (`bytes`, `median_us`, `tb_per_s`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct CopyFigures {
    /// Bytes copied (read and written once each).
    pub bytes: usize,
    /// Median time of one copy.
    pub median_us: f64,
    /// (bytes read + bytes written) / median time, TB/s.
    pub tb_per_s: f64,
}

/// Everything one benchmark measured (one `morf-bench` run).
#[derive(Clone, Debug, PartialEq)]
pub struct BenchReport {
    /// Device name.
    pub device: String,
    /// Streaming multiprocessors.
    pub sm_count: u32,
    /// The IR file.
    pub file: String,
    /// The function timed.
    pub function: String,
    /// Timed calls per program.
    pub runs: usize,
    /// Untimed calls per program.
    pub warmup: usize,
    /// Pipelines: fused, and unfused when timed.
    pub pipelines: (String, Option<String>),
    /// The copy reference.
    pub copy: CopyFigures,
    /// Whether outputs were checked against the reference ([`BenchConfig::check`]).
    pub checked: bool,
    /// Whether launches were timed one by one ([`BenchConfig::per_kernel`]).
    pub per_kernel: bool,
    /// One entry per shape.
    pub shapes: Vec<ShapeResult>,
}

fn fmt_opt(x: Option<f64>, digits: usize) -> String {
    match x {
        Some(v) if v.is_finite() => format!("{v:.digits$}"),
        _ => "-".into(),
    }
}

fn fmt_time(t: Option<&ProgramTiming>) -> String {
    match t {
        Some(t) => format!("{}{}", fmt_opt(Some(t.median_us), 1), t.check.mark()),
        None => "-".into(),
    }
}

fn fmt_pct(floor_us: f64, t: Option<&ProgramTiming>) -> String {
    match t {
        Some(t) if t.median_us.is_finite() => format!("{:.1}%", pct_of_floor(floor_us, t.median_us)),
        _ => "-".into(),
    }
}

/// A markdown table with `left` left-aligned leading columns, the rest right-aligned.
fn render_table(rows: &[Vec<String>], left: usize) -> String {
    let cols = rows.first().map(Vec::len).unwrap_or(0);
    let widths: Vec<usize> = (0..cols).map(|c| rows.iter().map(|r| r[c].len()).max().unwrap_or(0)).collect();
    let mut out = String::new();
    for (i, r) in rows.iter().enumerate() {
        let cells: Vec<String> = r
            .iter()
            .enumerate()
            .map(|(c, v)| if c < left { format!("{v:<w$}", w = widths[c]) } else { format!("{v:>w$}", w = widths[c]) })
            .collect();
        let _ = writeln!(out, "| {} |", cells.join(" | "));
        if i == 0 {
            let dashes: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
            let _ = writeln!(out, "| {} |", dashes.join(" | "));
        }
    }
    out
}

/// The per-kernel table of one program: launch index, kernel, grid, block, shared bytes, the
/// bytes of the buffers the launch is passed (each buffer once, [`KernelTiming::arg_bytes`]),
/// their floor at the copy bandwidth `tb_per_s`, median us, the launch's % of that floor, and
/// its share of the call's median time. A line above the table says what the floor is: an
/// upper bound on a traffic-based floor (a buffer read and written counts once).
pub fn kernel_table(kernels: &[KernelTiming], call_median_us: f64, tb_per_s: f64) -> String {
    let header = [
        "#",
        "kernel",
        "grid",
        "block",
        "shared bytes",
        "arg MB",
        "floor us",
        "median us",
        "% of floor",
        "share of call",
    ];
    let mut rows: Vec<Vec<String>> = vec![header.iter().map(|s| s.to_string()).collect()];
    let floor = |bytes: u64| if tb_per_s.is_finite() && tb_per_s > 0.0 { floor_us(bytes, tb_per_s) } else { f64::NAN };
    let pct = |fl: f64, us: f64| {
        if fl.is_finite() && us.is_finite() && us > 0.0 {
            format!("{:.1}%", pct_of_floor(fl, us))
        } else {
            "-".into()
        }
    };
    for (i, k) in kernels.iter().enumerate() {
        let fl = floor(k.arg_bytes);
        rows.push(vec![
            i.to_string(),
            k.kernel.clone(),
            k.grid.to_string(),
            k.block.to_string(),
            k.shared_bytes.to_string(),
            format!("{:.1}", k.arg_bytes as f64 / 1e6),
            fmt_opt(Some(fl), 1),
            format!("{:.1}", k.median_us),
            pct(fl, k.median_us),
            fmt_share(k.median_us, call_median_us),
        ]);
    }
    let sum: f64 = kernels.iter().map(|k| k.median_us).sum();
    let bytes: u64 = kernels.iter().map(|k| k.arg_bytes).sum();
    let fl = floor(bytes);
    rows.push(vec![
        String::new(),
        "(sum of kernels)".into(),
        String::new(),
        String::new(),
        String::new(),
        format!("{:.1}", bytes as f64 / 1e6),
        fmt_opt(Some(fl), 1),
        format!("{sum:.1}"),
        pct(fl, sum),
        fmt_share(sum, call_median_us),
    ]);
    let mut out = format!(
        "floor us = arg MB / copy bandwidth ({} TB/s), arg MB the bytes of the buffers a launch is passed, each buffer once; \
         an upper bound on the traffic-based floor (a buffer read and written counts once)\n",
        fmt_opt(Some(tb_per_s), 2)
    );
    out.push_str(&render_table(&rows, 2));
    out
}

fn fmt_share(us: f64, call_us: f64) -> String {
    if call_us.is_finite() && call_us > 0.0 {
        format!("{:.1}%", 100.0 * us / call_us)
    } else {
        "-".into()
    }
}

impl BenchReport {
    /// The table: `shape, dtype, fused us, unfused us, copy TB/s, floor us, fused % of
    /// floor, unfused % of floor, same-bytes copy % of floor`.
    pub fn table(&self) -> String {
        let header = [
            "shape",
            "dtype",
            "fused us",
            "unfused us",
            "copy TB/s",
            "floor us",
            "fused % of floor",
            "unfused % of floor",
            "same-bytes copy % of floor",
        ];
        let mut rows: Vec<Vec<String>> = vec![header.iter().map(|s| s.to_string()).collect()];
        for s in &self.shapes {
            rows.push(vec![
                s.shape.clone(),
                s.dtype.clone(),
                fmt_time(Some(&s.fused)),
                fmt_time(s.unfused.as_ref()),
                format!("{:.2}", self.copy.tb_per_s),
                format!("{:.1}", s.floor_us),
                fmt_pct(s.floor_us, Some(&s.fused)),
                fmt_pct(s.floor_us, s.unfused.as_ref()),
                match s.copy_same_us {
                    Some(us) if us.is_finite() => format!("{:.1}%", pct_of_floor(s.floor_us, us)),
                    _ => "-".into(),
                },
            ]);
        }
        render_table(&rows, 2)
    }

    /// The per-kernel tables ([`BenchConfig::per_kernel`]): one per shape and program timed with it,
    /// each under a `shape program: call median ...` line. Empty when none was.
    pub fn kernel_tables(&self) -> String {
        let mut out = String::new();
        for s in &self.shapes {
            for (label, t) in [("fused", Some(&s.fused)), ("unfused", s.unfused.as_ref())] {
                let Some(t) = t else { continue };
                let Some(k) = &t.kernels else { continue };
                let _ = writeln!(
                    out,
                    "\n{} {label}: call median {} us{}, {} launch(es) per call",
                    s.shape,
                    fmt_opt(Some(t.median_us), 1),
                    t.check.mark(),
                    k.len()
                );
                out.push_str(&kernel_table(k, t.median_us, self.copy.tb_per_s));
            }
        }
        out
    }

    /// Warnings for the end of a run: one line per unfused program whose outputs failed
    /// the check (the fused failures are errors, reported by [`BenchReport::fused_failures`]).
    pub fn unfused_warnings(&self) -> Vec<String> {
        self.shapes
            .iter()
            .filter(|s| s.unfused.as_ref().is_some_and(|t| t.check == CheckStatus::Failed))
            .map(|s| {
                format!(
                    "warning: {}: the unfused program's outputs do not match the reference (timed anyway, marked 'check failed')",
                    s.shape
                )
            })
            .collect()
    }

    /// The shapes whose fused program failed its check (not timed; exit status 1).
    pub fn fused_failures(&self) -> Vec<&str> {
        self.shapes.iter().filter(|s| s.fused.check == CheckStatus::Failed).map(|s| s.shape.as_str()).collect()
    }

    /// The same figures as JSON (keys in a fixed order, pretty-printed, a newline at the
    /// end). Numbers that JSON cannot hold (NaN, infinities: the times of a program that
    /// was not timed) are `null`.
    pub fn to_json(&self) -> String {
        let mut j = serde_json::to_string_pretty(&ReportJson::of(self)).expect("a report serializes to JSON");
        j.push('\n');
        j
    }
}

// The JSON form of a report (`BenchReport::to_json`): views of the report with the JSON's
// keys, in its order. serde_json writes NaN and the infinities as `null`.

#[derive(Serialize)]
struct ReportJson<'a> {
    device: &'a str,
    sm_count: u32,
    file: &'a str,
    function: &'a str,
    build: BuildJson,
    method: MethodJson<'a>,
    copy: &'a CopyFigures,
    shapes: Vec<ShapeJson<'a>>,
}

/// The morf build that measured ([`crate::VERSION`], [`crate::BUILD_COMMIT`]).
#[derive(Serialize)]
struct BuildJson {
    version: &'static str,
    commit: &'static str,
}

#[derive(Serialize)]
struct MethodJson<'a> {
    statistic: &'static str,
    timer: &'static str,
    runs: usize,
    warmup: usize,
    checked: bool,
    per_kernel: bool,
    fused_pipeline: &'a str,
    unfused_pipeline: Option<&'a str>,
}

#[derive(Serialize)]
struct ShapeJson<'a> {
    shape: &'a str,
    /// An object of the sizes, in the order given.
    #[serde(serialize_with = "sizes_as_object")]
    sizes: &'a [(String, usize)],
    dtype: &'a str,
    floor_bytes: u64,
    floor_us: f64,
    /// A copy of the floor's bytes timed as the programs are ([`ShapeResult::copy_same_us`]).
    copy_same_bytes_us: Option<f64>,
    fused: TimingJson<'a>,
    unfused: Option<TimingJson<'a>>,
    tuning: &'a [String],
}

fn sizes_as_object<S: serde::Serializer>(sizes: &&[(String, usize)], s: S) -> Result<S::Ok, S::Error> {
    s.collect_map(sizes.iter().map(|(name, size)| (name, size)))
}

#[derive(Serialize)]
struct TimingJson<'a> {
    /// `true`, `false`, or `null` when unchecked.
    check_ok: Option<bool>,
    median_us: f64,
    min_us: f64,
    pct_of_floor: f64,
    launches: usize,
    checks: Vec<CheckJson>,
    kernels: Option<Vec<KernelJson<'a>>>,
    /// Registers, local memory and JIT spills per kernel ([`ProgramTiming::resources`]).
    resources: &'a [KernelResource],
}

#[derive(Serialize)]
struct CheckJson {
    output: usize,
    rel_err: f64,
    tol: f64,
    ok: bool,
}

#[derive(Serialize)]
struct KernelJson<'a> {
    kernel: &'a str,
    grid: u32,
    block: u32,
    shared_bytes: u32,
    /// The bytes of the buffers the launch is passed, each once (its own floor's bytes).
    arg_bytes: u64,
    median_us: f64,
    /// The launch's median over the call's (`null` when the call was not timed).
    share_of_call: f64,
}

impl<'a> ReportJson<'a> {
    fn of(r: &'a BenchReport) -> Self {
        ReportJson {
            device: &r.device,
            sm_count: r.sm_count,
            file: &r.file,
            function: &r.function,
            build: BuildJson { version: crate::VERSION, commit: crate::BUILD_COMMIT },
            method: MethodJson {
                statistic: "median",
                timer: "cuda events",
                runs: r.runs,
                warmup: r.warmup,
                checked: r.checked,
                per_kernel: r.per_kernel,
                fused_pipeline: &r.pipelines.0,
                unfused_pipeline: r.pipelines.1.as_deref(),
            },
            copy: &r.copy,
            shapes: r
                .shapes
                .iter()
                .map(|s| ShapeJson {
                    shape: &s.shape,
                    sizes: &s.sizes,
                    dtype: &s.dtype,
                    floor_bytes: s.floor_bytes,
                    floor_us: s.floor_us,
                    copy_same_bytes_us: s.copy_same_us,
                    fused: TimingJson::of(&s.fused, s.floor_us),
                    unfused: s.unfused.as_ref().map(|t| TimingJson::of(t, s.floor_us)),
                    tuning: &s.tuning,
                })
                .collect(),
        }
    }
}

impl<'a> TimingJson<'a> {
    fn of(t: &'a ProgramTiming, floor_us: f64) -> Self {
        let share = |us: f64| if t.median_us.is_finite() && t.median_us > 0.0 { us / t.median_us } else { f64::NAN };
        TimingJson {
            check_ok: match t.check {
                CheckStatus::Passed => Some(true),
                CheckStatus::Failed => Some(false),
                CheckStatus::Unchecked => None,
            },
            median_us: t.median_us,
            min_us: t.min_us,
            pct_of_floor: pct_of_floor(floor_us, t.median_us),
            launches: t.launches,
            checks: t
                .checks
                .iter()
                .map(|c| CheckJson { output: c.index, rel_err: c.rel_err, tol: c.tol, ok: c.ok() })
                .collect(),
            kernels: t.kernels.as_ref().map(|ks| {
                ks.iter()
                    .map(|k| KernelJson {
                        kernel: &k.kernel,
                        grid: k.grid,
                        block: k.block,
                        shared_bytes: k.shared_bytes,
                        arg_bytes: k.arg_bytes,
                        median_us: k.median_us,
                        share_of_call: share(k.median_us),
                    })
                    .collect()
            }),
            resources: &t.resources,
        }
    }
}

/// Why a benchmark stopped.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// No CUDA driver: nothing was measured (`morf-bench` prints "skipped" and exits 0).
    /// Holds the runtime's message.
    #[error("skipped: {0}")]
    Skipped(String),
    /// Anything else (`morf-bench` exits 1).
    #[error(transparent)]
    Run(EngineError),
}

impl From<EngineError> for BenchError {
    /// A missing CUDA driver is [`BenchError::Skipped`]; anything else [`BenchError::Run`].
    fn from(e: EngineError) -> Self {
        match e {
            EngineError::NoGpu(m) => BenchError::Skipped(m),
            e => BenchError::Run(e),
        }
    }
}

/// Runs `f` (a timing phase) with `sms` SMs held by `morf_runtime::SmReservation` (none: as
/// is), released after it whether it failed or not; `f`'s error comes first. A phase at a
/// time, so that what happens between phases (compiles, uploads, checks, frees) runs with
/// every SM and nothing waits on the spinning kernel.
fn reserved<T>(gpu: &Gpu, sms: u32, f: impl FnOnce() -> Result<T, BenchError>) -> Result<T, BenchError> {
    if sms == 0 {
        return f();
    }
    let r = gpu.reserve_sms(sms).map_err(gpu_err)?;
    let out = f();
    let released = r.release();
    let v = out?;
    released.map_err(gpu_err)?;
    Ok(v)
}

pub(crate) fn gpu_err(e: RuntimeError) -> BenchError {
    match e {
        RuntimeError::NoCuda(m) => BenchError::Skipped(m),
        e => BenchError::Run(runtime_err(e)),
    }
}

/// The device arguments of a program and its results' (element count, bytes per element).
type FirstCall = (Vec<DevValue>, Vec<(usize, usize)>);

/// One untimed call of `prog` on `args` uploaded once: the device arguments (kept for the
/// timings) and each result's element count and bytes per element, read from its device
/// buffer (nothing is downloaded).
fn first_call_on_device(gpu: &Gpu, prog: &GpuProgram, args: &[RtValue]) -> Result<FirstCall, EngineError> {
    prog.check_device_memory(gpu, args)?;
    let mut exec = prog.executor(gpu);
    let dev = prog.upload_args(&mut exec, args)?;
    let out = exec.call(&dev).map_err(|e| exec_err(&prog.ctx, e))?;
    gpu.synchronize().map_err(runtime_err)?;
    let sizes = out
        .iter()
        .map(|v| match v {
            DevValue::Buffer(a) => (a.len(), a.storage.size()),
            DevValue::Scalar(_) => (1, 8),
        })
        .collect();
    Ok((dev, sizes))
}

pub(crate) fn elem_bytes_and_name(ctx: &Context, v: &RtValue) -> (usize, usize, String) {
    let (elem, n) = match v {
        RtValue::Tensor { elem, array } => (Some(*elem), array.num_elements()),
        RtValue::Buffer { elem, data } => (Some(*elem), data.borrow().num_elements()),
        _ => (None, 1),
    };
    match elem.map(|e| ctx.type_data(e).clone()) {
        Some(TypeData::Float(k)) => (n, k.bits() as usize / 8, k.name().to_string()),
        Some(TypeData::Integer(w)) => (n, (w as usize).div_ceil(8), format!("i{w}")),
        _ => (n, 8, "scalar".into()),
    }
}

/// Parses and verifies the source, picks the function; returns the context and function.
fn load(entry: Option<&str>, name: &str, text: &str) -> Result<(Context, OpId), BenchError> {
    let mut ctx = new_context(false);
    let module = load_module(&mut ctx, name, text)?;
    let _ = ctx.take_emitted();
    let func = select_function(&ctx, module, entry, name)?;
    Ok((ctx, func))
}

/// Reads the IR file at `path` (an error names it as `cannot read PATH: ...`) and runs
/// [`run_bench`] on it, with the path as the file name of its diagnostics and report.
pub fn run_bench_file(path: &Path, config: &BenchConfig, log: &mut dyn FnMut(&str)) -> Result<BenchReport, BenchError> {
    run_bench_file_with_phases(path, config, log, &mut |_| {})
}

/// [`run_bench_file`], also announcing each phase to `phase` ([`run_bench_with_phases`]).
pub fn run_bench_file_with_phases(
    path: &Path,
    config: &BenchConfig,
    log: &mut dyn FnMut(&str),
    phase: &mut dyn FnMut(&BenchPhase),
) -> Result<BenchReport, BenchError> {
    config.validate()?;
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| EngineError::Other(format!("cannot read {name}: {e}")))?;
    run_bench_with_phases(&name, &text, config, log, phase)
}

/// A phase of [`run_bench_with_phases`], announced as it starts (for a progress display:
/// the engine draws nothing itself).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BenchPhase {
    /// Index of the current shape in [`BenchConfig::shapes`]; `None` before the first
    /// shape (the device set-up and the copy-kernel measurement).
    pub shape_index: Option<usize>,
    /// Number of shapes.
    pub shapes: usize,
    /// What starts now, e.g. `M=8,N=4: inputs`, `M=8,N=4: fused: timing`, `copy kernel`.
    pub what: String,
}

/// Runs the benchmark `config` describes on the tensor-level IR `text` (`name` is its
/// file name, for diagnostics and [`BenchReport::file`]) and returns its report. Progress,
/// check results and per-launch times go to `log`, one line per call, without a trailing
/// newline (`morf-bench` prints them to stderr after `morf-bench: `).
///
/// Errors: [`BenchError::Skipped`] without a CUDA driver (after parsing and verifying
/// `text`, so bad input is still an error); [`BenchError::Run`] for an invalid `config`,
/// diagnostics of the IR, the passes or the interpreter, and GPU failures. A fused program
/// that fails its check is no error: its shape is reported untimed
/// ([`BenchReport::fused_failures`]).
pub fn run_bench(
    name: &str,
    text: &str,
    config: &BenchConfig,
    log: &mut dyn FnMut(&str),
) -> Result<BenchReport, BenchError> {
    run_bench_with_phases(name, text, config, log, &mut |_| {})
}

/// [`run_bench`], also calling `phase` as each phase starts (device set-up, the copy
/// kernel, then per shape: inputs, reference, each program's compile, first call, timing
/// and per-kernel timing), e.g. to drive a progress display. `log` gets the same lines.
pub fn run_bench_with_phases(
    name: &str,
    text: &str,
    config: &BenchConfig,
    log: &mut dyn FnMut(&str),
    phase: &mut dyn FnMut(&BenchPhase),
) -> Result<BenchReport, BenchError> {
    config.validate()?;
    let shapes = config.shapes.len();
    let mut phase = |shape_index: Option<usize>, what: String| phase(&BenchPhase { shape_index, shapes, what });
    let name = name.to_string();
    let (rctx, rfunc) = load(config.entry.as_deref(), &name, text)?;
    let rmodule = rctx.parent_op(rfunc).unwrap_or(rfunc);
    let function = morf_ir::builtin::symbol_name(&rctx, rfunc).unwrap_or("?").to_string();
    phase(None, "device".into());
    let gpu = Gpu::new(config.device).map_err(gpu_err)?;
    let mut device = gpu.device_name().map_err(gpu_err)?;
    let mut sm_count = gpu.sm_count().map_err(gpu_err)?;
    let k = config.reserve_sms;
    if k > 0 {
        if k >= sm_count {
            return Err(BenchError::Run(EngineError::Other(format!(
                "--reserve-sms {k}: the device has {sm_count} SMs; at least one must be left"
            ))));
        }
        device = format!("{device} ({k} of {sm_count} SMs reserved)");
        sm_count -= k;
    }
    log(&format!("morf {} (commit {}); device: {device} ({sm_count} SMs)", crate::VERSION, crate::BUILD_COMMIT));
    let device_key = DeviceKey::of(&gpu).map_err(gpu_err)?;

    phase(None, "copy kernel".into());
    let cb = reserved(&gpu, k, || {
        gpu.measure_copy_bandwidth(config.copy_bytes, config.warmup, config.runs).map_err(gpu_err)
    })?;
    let copy = CopyFigures { bytes: cb.bytes, median_us: cb.median_us, tb_per_s: cb.tb_per_s() };
    log(&format!("copy: {} bytes in {:.1} us = {:.3} TB/s", copy.bytes, copy.median_us, copy.tb_per_s));

    let mut results = Vec::new();
    for (shape_index, sizes) in config.shapes.iter().cloned().enumerate() {
        let shape = sizes.iter().map(|(_, v)| v.to_string()).collect::<Vec<_>>().join(" x ");
        let named = sizes.iter().map(|(n, v)| format!("{n}={v}")).collect::<Vec<_>>().join(",");
        let mut phase = |what: &str| phase(Some(shape_index), format!("{named}: {what}"));
        let opts = RunOptions::generated(config.entry.clone(), sizes.clone(), config.seed, config.check);
        phase("inputs");
        let t_bind = std::time::Instant::now();
        let (args, _warnings) = bind_arguments(&rctx, rfunc, &opts)?;
        log(&format!("{shape}: inputs generated in {:.1} s", t_bind.elapsed().as_secs_f64()));
        let reference = if !config.check {
            None
        } else {
            phase("reference");
            let t = std::time::Instant::now();
            let r = morf_ir::interp::run_function(&rctx, rfunc, args.clone())
                .map_err(|d| EngineError::Diagnostic(rctx.render(&d)))?;
            log(&format!("{shape}: reference interpreter took {:.1} s", t.elapsed().as_secs_f64()));
            Some(r)
        };
        let mut tensors: Vec<(usize, usize)> = Vec::new();
        let mut dtype = String::from("?");
        for (i, a) in args.iter().enumerate() {
            let (n, b, d) = elem_bytes_and_name(&rctx, a);
            if i == 0 {
                dtype = d;
            }
            tensors.push((n, b));
        }

        // Compile for this shape: the size-specialized passes get the sizes as hints (the
        // kernels keep run-time guards), as a JIT specializing on shapes would.
        let hints = named.clone();
        // Each named pipeline takes its tuned schedule for this program, bucket and GPU when
        // the cache has one.
        let mut tuning_notes = Vec::new();
        let mut tuned = |pipeline: &str, label: &str| -> Result<(String, Option<String>), EngineError> {
            let (p, h, note) = pipeline_for_compile(
                &config.tuning,
                true,
                ProgramRef { ctx: &rctx, module: rmodule, func: rfunc },
                pipeline,
                Some(&hints),
                &device_key,
            )?;
            if let Some(n) = note {
                log(&format!("{shape} {label}: {n}"));
                tuning_notes.push(format!("{label}: {n}"));
            }
            // With SMs reserved, the lowering plans for the SMs left (an explicit `device`
            // option of a pass wins).
            let p = if k > 0 { pipeline_with_option(&p, "device", &format!("sms={sm_count}"))? } else { p };
            Ok((p, h))
        };
        let (fused_pipeline, fused_hints) = tuned(&config.fused_pipeline, "fused")?;
        let unfused_choice = if config.unfused { Some(tuned(&config.unfused_pipeline, "unfused")?) } else { None };
        phase("fused: compile");
        let mut lowered =
            lower_for_gpu(&name, text, config.entry.as_deref(), false, &fused_pipeline, fused_hints.as_deref())?;
        if let Some((file, ptx)) = &config.fused_ptx {
            lowered = lowered.with_ptx(ptx.clone(), file)?;
            log(&format!("{shape} fused: kernels from {file} instead of morf's PTX"));
        }
        let fused = lowered.load(&gpu)?;
        log(&format!("{shape} fused ('{}'): {} kernel(s)", config.fused_pipeline, fused.kernels.len()));

        // One untimed call of the fused program: its outputs are checked, and give the
        // result sizes of the floor (the reference's, when checking).
        phase("fused: first call");
        let t_run = std::time::Instant::now();
        // Checked, the first call's outputs are downloaded for the check. Unchecked (the
        // shapes past the interpreter, 100000 x 32768), the arguments go to the device once
        // for the first call and both timings, and nothing is downloaded: the floor takes
        // the results' sizes from their device buffers.
        let (fused_out, fused_dev) = if config.check {
            (fused.run(&gpu, &args)?, None)
        } else {
            let (dev, sizes) = first_call_on_device(&gpu, &fused, &args)?;
            tensors.extend(sizes);
            (Vec::new(), Some(dev))
        };
        let steps = if config.check { "upload, run, download" } else { "upload, run" };
        log(&format!("{shape} fused: first call ({steps}) in {:.1} s", t_run.elapsed().as_secs_f64()));
        if let Some(r) = &reference {
            r.iter().for_each(|r| {
                let (n, b, _) = elem_bytes_and_name(&rctx, r);
                tensors.push((n, b));
            });
        }
        let fb = floor_bytes(&tensors);
        let fl = floor_us(fb, copy.tb_per_s);

        let check = |prog: &GpuProgram,
                     out: &[RtValue],
                     label: &str,
                     log: &mut dyn FnMut(&str)|
         -> (CheckStatus, Vec<OutputCheck>) {
            let Some(reference) = &reference else {
                log(&format!("{shape} {label}: outputs not checked (--no-check)"));
                return (CheckStatus::Unchecked, Vec::new());
            };
            let checks = compare_outputs(&prog.ctx, out, reference);
            for c in &checks {
                log(&format!("{shape} {label}: {c}"));
            }
            (CheckStatus::of(&checks), checks)
        };
        let (fcheck, fchecks) = check(&fused, &fused_out, "fused", log);
        drop(fused_out);
        if fcheck == CheckStatus::Failed {
            log(&format!(
                "error: {shape}: the fused program's outputs do not match the reference; this shape is not timed"
            ));
            let f = ProgramTiming {
                median_us: f64::NAN,
                min_us: f64::NAN,
                launches: 0,
                check: fcheck,
                checks: fchecks,
                kernels: None,
                resources: fused.kernel_resources(),
            };
            results.push(ShapeResult {
                shape,
                sizes,
                dtype,
                floor_bytes: fb,
                floor_us: fl,
                copy_same_us: None,
                fused: f,
                unfused: None,
                tuning: tuning_notes,
            });
            continue;
        }
        let measure = |prog: &GpuProgram,
                       dev_args: Option<Vec<DevValue>>,
                       label: &str,
                       (check, checks): (CheckStatus, Vec<OutputCheck>),
                       log: &mut dyn FnMut(&str),
                       phase: &mut dyn FnMut(&str)|
         -> Result<ProgramTiming, BenchError> {
            phase(&format!("{label}: timing"));
            let t_time = std::time::Instant::now();
            let dev_args = match dev_args {
                Some(d) => d,
                None => prog.upload_args(&mut prog.executor(&gpu), &args)?,
            };
            let (median_us, min_us, launches) = reserved(&gpu, k, || {
                Ok(time_program_on(&gpu, prog, &dev_args, config.warmup, config.runs, config.call_timing)?)
            })?;
            log(&format!(
                "{shape} {label}: median {median_us:.1} us over {} runs ({launches} launches per call; timed in {:.1} s)",
                config.runs,
                t_time.elapsed().as_secs_f64()
            ));
            let kernels = if config.per_kernel {
                phase(&format!("{label}: per-kernel timing"));
                let kt = reserved(&gpu, k, || Ok(time_kernels_on(&gpu, prog, &dev_args, config.warmup, config.runs)?))?;
                for (i, k) in kt.iter().enumerate() {
                    log(&format!(
                        "{shape} {label}: launch {i} @{} (grid {}, block {}, shared {}): median {:.1} us",
                        k.kernel, k.grid, k.block, k.shared_bytes, k.median_us
                    ));
                }
                Some(kt)
            } else {
                None
            };
            let resources = prog.kernel_resources();
            log(&format!(
                "{shape} {label}: {}",
                resources.iter().map(|k| k.to_string()).collect::<Vec<_>>().join("; ")
            ));
            Ok(ProgramTiming { median_us, min_us, launches, check, checks, kernels, resources })
        };
        // The fused program is timed before the unfused one is uploaded: a huge shape's
        // arguments are on the device once at a time.
        let f = measure(&fused, fused_dev, "fused", (fcheck, fchecks), log, &mut phase)?;
        let unfused = if config.unfused {
            phase("unfused: compile");
            let (unfused_pipeline, unfused_hints) = unfused_choice.clone().unwrap_or_default();
            let p = compile_for_gpu(
                &gpu,
                &name,
                text,
                config.entry.as_deref(),
                false,
                &unfused_pipeline,
                unfused_hints.as_deref(),
            )?;
            log(&format!("{shape} unfused ('{}'): {} kernel(s)", config.unfused_pipeline, p.kernels.len()));
            phase("unfused: first call");
            let (out, dev) = if config.check {
                (p.run(&gpu, &args)?, None)
            } else {
                (Vec::new(), Some(first_call_on_device(&gpu, &p, &args)?.0))
            };
            let c = check(&p, &out, "unfused", log);
            if c.0 == CheckStatus::Failed {
                log(&format!(
                    "warning: {shape}: the unfused program's outputs do not match the reference; timing it anyway"
                ));
            }
            Some((p, c, dev))
        } else {
            None
        };

        let u = match unfused {
            Some((p, c, dev)) => Some(measure(&p, dev, "unfused", c, log, &mut phase)?),
            None => None,
        };
        phase("same-bytes copy: timing");
        let same = reserved(&gpu, k, || {
            gpu.measure_copy_flushed((fb / 2) as usize, config.warmup, config.runs, crate::timing::L2_FLUSH_BYTES)
                .map_err(gpu_err)
        })?;
        log(&format!(
            "{shape} copy of the floor's {} bytes: {:.1} us ({:.1}% of the floor)",
            2 * same.bytes,
            same.median_us,
            pct_of_floor(fl, same.median_us)
        ));
        results.push(ShapeResult {
            shape,
            sizes,
            dtype,
            floor_bytes: fb,
            floor_us: fl,
            copy_same_us: Some(same.median_us),
            fused: f,
            unfused: u,
            tuning: tuning_notes,
        });
    }
    Ok(BenchReport {
        device,
        sm_count,
        file: name,
        function,
        runs: config.runs,
        warmup: config.warmup,
        pipelines: (config.fused_pipeline.clone(), config.unfused.then(|| config.unfused_pipeline.clone())),
        copy,
        checked: config.check,
        per_kernel: config.per_kernel,
        shapes: results,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_defaults_and_validation() {
        let shape = vec![("M".to_string(), 8), ("N".to_string(), 4)];
        let c = BenchConfig::new(vec![shape.clone()]);
        assert_eq!((c.runs, c.warmup, c.copy_bytes, c.seed, c.device), (100, 10, 1 << 30, 0, 0));
        assert_eq!((c.fused_pipeline.as_str(), c.unfused_pipeline.as_str()), ("gpu", "gpu-unfused"));
        assert!(c.check && !c.unfused && !c.per_kernel && c.entry.is_none());
        assert!(c.validate().is_ok());
        let bad = |c: BenchConfig| c.validate().unwrap_err().to_string();
        assert!(bad(BenchConfig { runs: 0, ..c.clone() }).contains("runs must be at least 1"));
        assert!(bad(BenchConfig { copy_bytes: 8, ..c.clone() }).contains("copy_bytes must be at least 16"));
        assert!(bad(BenchConfig::new(vec![])).contains("no shape"));
        assert!(bad(BenchConfig::new(vec![shape, vec![]])).contains("names no dimension"));
    }

    #[test]
    fn run_without_gpu() {
        // Bad input is an error with or without a GPU; good input is skipped without one.
        let config = BenchConfig::new(vec![vec![("N".to_string(), 4)]]);
        let mut lines = Vec::new();
        let mut log = |l: &str| lines.push(l.to_string());
        match run_bench("bad.mlir", "func.func @f(", &config, &mut log) {
            Err(BenchError::Run(EngineError::Diagnostic(d))) => assert!(d.starts_with("bad.mlir:"), "{d}"),
            other => panic!("expected a diagnostic, got {other:?}"),
        }
        match run_bench_file("/no/such/file.mlir".as_ref(), &config, &mut log) {
            Err(BenchError::Run(e)) => assert!(e.to_string().starts_with("cannot read /no/such/file.mlir: "), "{e}"),
            other => panic!("expected a read error, got {other:?}"),
        }
        if morf_runtime::cuda_available() {
            return;
        }
        let text = "func.func @neg(%x: tensor<?xf32> {morf.dims = [\"N\"]}) -> tensor<?xf32> {\n\
                    \x20 %y = mtensor.neg %x : tensor<?xf32>\n\
                    \x20 func.return %y : tensor<?xf32>\n\
                    }\n";
        match run_bench("neg.mlir", text, &config, &mut log) {
            Err(e @ BenchError::Skipped(_)) => assert!(e.to_string().starts_with("skipped: "), "{e}"),
            other => panic!("expected skipped, got {other:?}"),
        }
        assert!(lines.is_empty(), "{lines:?}");
    }

    #[test]
    fn floor_formula() {
        // RMSNorm backward, 576000 x 384 bf16: read x, dy (bf16), rstd (f32), w (bf16);
        // write dx (bf16), dw (bf16).
        let (m, n) = (576000usize, 384usize);
        let b = floor_bytes(&[(m * n, 2), (n, 2), (m * n, 2), (m, 4), (m * n, 2), (n, 2)]);
        assert_eq!(b, 3 * (m * n * 2) as u64 + m as u64 * 4 + 2 * n as u64 * 2);
        // At the brief's 4.27 TB/s that is 311 us.
        assert!((floor_us(b, 4.27) - 311.0).abs() < 1.0, "{}", floor_us(b, 4.27));
        assert!((pct_of_floor(311.0, 338.0) - 92.01).abs() < 0.01);
    }

    fn sample() -> BenchReport {
        let t = |us: f64| ProgramTiming {
            median_us: us,
            min_us: us - 1.0,
            launches: 2,
            check: CheckStatus::Passed,
            checks: vec![OutputCheck { index: 0, rel_err: 1e-3, tol: 1e-2, note: None }],
            kernels: None,
            resources: vec![KernelResource {
                kernel: "rmsnorm_bwd_k0".into(),
                registers: 48,
                local_bytes: 16,
                spill_store_bytes: Some(12),
                relief: None,
            }],
        };
        BenchReport {
            device: "NVIDIA H200".into(),
            sm_count: 132,
            file: "examples/rmsnorm_bwd.mlir".into(),
            function: "rmsnorm_bwd".into(),
            runs: 100,
            warmup: 10,
            pipelines: ("gpu".into(), Some("gpu-unfused".into())),
            copy: CopyFigures { bytes: 1 << 30, median_us: 500.0, tb_per_s: 4.29 },
            checked: true,
            per_kernel: false,
            shapes: vec![ShapeResult {
                shape: "576000 x 384".into(),
                sizes: vec![("M".into(), 576000), ("N".into(), 384)],
                dtype: "bf16".into(),
                floor_bytes: 1_329_000_000,
                floor_us: 311.0,
                copy_same_us: Some(320.0),
                fused: t(330.0),
                unfused: Some(t(660.0)),
                tuning: vec!["fused: @rmsnorm_bwd: untuned".into()],
            }],
        }
    }

    #[test]
    fn table_layout() {
        let t = sample().table();
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines.len(), 3);
        assert!(lines[0].starts_with("| shape        | dtype | fused us | unfused us | copy TB/s | floor us |"));
        assert!(lines[2].contains("| 576000 x 384 | bf16  |    330.0 |      660.0 |      4.29 |    311.0 |"), "{t}");
        assert!(lines[2].contains("94.2%") && lines[2].contains("47.1%"), "{t}");
    }

    /// The report's JSON, parsed back.
    fn json_of(r: &BenchReport) -> serde_json::Value {
        let j = r.to_json();
        assert!(j.ends_with("}\n"), "{j}");
        serde_json::from_str(&j).unwrap_or_else(|e| panic!("invalid JSON ({e}): {j}"))
    }

    /// The keys of a JSON object, sorted (the order is checked on the text, in `json_text`).
    fn keys(v: &serde_json::Value) -> Vec<&str> {
        v.as_object().unwrap_or_else(|| panic!("not an object: {v}")).keys().map(String::as_str).collect()
    }

    /// `keys` sorted.
    fn sorted<const N: usize>(mut keys: [&str; N]) -> [&str; N] {
        keys.sort_unstable();
        keys
    }

    #[test]
    fn json_output() {
        use serde_json::json;
        let j = json_of(&sample());
        // The keys that scripts read (their order is checked on the text in `json_text`).
        assert_eq!(keys(&j), sorted(["device", "sm_count", "file", "function", "build", "method", "copy", "shapes"]));
        assert_eq!(
            (&j["build"]["version"], &j["build"]["commit"]),
            (&json!(crate::VERSION), &json!(crate::BUILD_COMMIT))
        );
        assert_eq!(j["device"], "NVIDIA H200");
        assert_eq!(j["sm_count"], 132);
        assert_eq!((&j["file"], &j["function"]), (&json!("examples/rmsnorm_bwd.mlir"), &json!("rmsnorm_bwd")));
        assert_eq!(
            j["method"],
            json!({"statistic": "median", "timer": "cuda events", "runs": 100, "warmup": 10, "checked": true,
                   "per_kernel": false, "fused_pipeline": "gpu", "unfused_pipeline": "gpu-unfused"})
        );
        assert_eq!(
            keys(&j["method"]),
            sorted([
                "statistic",
                "timer",
                "runs",
                "warmup",
                "checked",
                "per_kernel",
                "fused_pipeline",
                "unfused_pipeline"
            ])
        );
        assert_eq!(j["copy"], json!({"bytes": 1073741824u64, "median_us": 500.0, "tb_per_s": 4.29}));
        assert_eq!(keys(&j["copy"]), sorted(["bytes", "median_us", "tb_per_s"]));
        let s = &j["shapes"][0];
        assert_eq!(j["shapes"].as_array().map(Vec::len), Some(1));
        assert_eq!(
            keys(s),
            sorted([
                "shape",
                "sizes",
                "dtype",
                "floor_bytes",
                "floor_us",
                "copy_same_bytes_us",
                "fused",
                "unfused",
                "tuning"
            ])
        );
        assert_eq!(s["shape"], "576000 x 384");
        assert_eq!(s["sizes"], json!({"M": 576000, "N": 384}));
        assert_eq!(
            (&s["dtype"], &s["floor_bytes"], &s["floor_us"]),
            (&json!("bf16"), &json!(1329000000), &json!(311.0))
        );
        // (serde_json's parser may be one ulp off: computed figures are compared as written.)
        let mut fused = s["fused"].clone();
        assert!(sample().to_json().contains("\"pct_of_floor\": 94.24242424242425,"));
        assert!((fused["pct_of_floor"].take().as_f64().unwrap() - 94.24242424242425).abs() < 1e-9);
        assert_eq!(
            fused,
            json!({"check_ok": true, "median_us": 330.0, "min_us": 329.0, "pct_of_floor": null,
                   "launches": 2, "checks": [{"output": 0, "rel_err": 0.001, "tol": 0.01, "ok": true}], "kernels": null,
                   "resources": [{"kernel": "rmsnorm_bwd_k0", "registers": 48, "local_bytes": 16, "spill_store_bytes": 12}]})
        );
        assert_eq!(
            keys(&s["fused"]),
            sorted(["check_ok", "median_us", "min_us", "pct_of_floor", "launches", "checks", "kernels", "resources"])
        );
        assert_eq!(keys(&s["fused"]["checks"][0]), sorted(["output", "rel_err", "tol", "ok"]));
        assert_eq!(s["unfused"]["median_us"], 660.0);

        // Strings are escaped; the sizes keep their order; no unfused pipeline is null.
        let mut r = sample();
        r.device = "a\"b\\\n\t\u{1}".into();
        r.shapes[0].sizes.insert(1, ("K".into(), 7));
        r.pipelines.1 = None;
        r.shapes[0].unfused = None;
        let j = json_of(&r);
        assert_eq!(j["device"], "a\"b\\\n\t\u{1}");
        assert_eq!(j["shapes"][0]["sizes"], serde_json::json!({"M": 576000, "K": 7, "N": 384}));
        let text = r.to_json();
        let at = |k: &str| text.find(k).unwrap_or_else(|| panic!("no {k} in {text}"));
        assert!(at("\"M\": 576000") < at("\"K\": 7") && at("\"K\": 7") < at("\"N\": 384"), "{text}");
        assert!(j["method"]["unfused_pipeline"].is_null() && j["shapes"][0]["unfused"].is_null());
    }

    #[test]
    fn build_commit_names_a_commit() {
        // `git rev-parse --short=12`, `-dirty` after it when the sources differed, or `unknown`.
        let c = crate::BUILD_COMMIT;
        let hash = c.strip_suffix("-dirty").unwrap_or(c);
        assert!(
            c == "unknown" || (hash.len() == 12 && hash.chars().all(|ch| ch.is_ascii_hexdigit())),
            "BUILD_COMMIT = {c:?}"
        );
    }

    #[test]
    fn json_text() {
        // The whole file of the sample: keys in this order, pretty-printed, floats as floats.
        let expected = r#"{
  "device": "NVIDIA H200",
  "sm_count": 132,
  "file": "examples/rmsnorm_bwd.mlir",
  "function": "rmsnorm_bwd",
  "build": {
    "version": "@VERSION@",
    "commit": "@COMMIT@"
  },
  "method": {
    "statistic": "median",
    "timer": "cuda events",
    "runs": 100,
    "warmup": 10,
    "checked": true,
    "per_kernel": false,
    "fused_pipeline": "gpu",
    "unfused_pipeline": "gpu-unfused"
  },
  "copy": {
    "bytes": 1073741824,
    "median_us": 500.0,
    "tb_per_s": 4.29
  },
  "shapes": [
    {
      "shape": "576000 x 384",
      "sizes": {
        "M": 576000,
        "N": 384
      },
      "dtype": "bf16",
      "floor_bytes": 1329000000,
      "floor_us": 311.0,
      "copy_same_bytes_us": 320.0,
      "fused": {
        "check_ok": true,
        "median_us": 330.0,
        "min_us": 329.0,
        "pct_of_floor": 94.24242424242425,
        "launches": 2,
        "checks": [
          {
            "output": 0,
            "rel_err": 0.001,
            "tol": 0.01,
            "ok": true
          }
        ],
        "kernels": null,
        "resources": [
          {
            "kernel": "rmsnorm_bwd_k0",
            "registers": 48,
            "local_bytes": 16,
            "spill_store_bytes": 12
          }
        ]
      },
      "unfused": {
        "check_ok": true,
        "median_us": 660.0,
        "min_us": 659.0,
        "pct_of_floor": 47.121212121212125,
        "launches": 2,
        "checks": [
          {
            "output": 0,
            "rel_err": 0.001,
            "tol": 0.01,
            "ok": true
          }
        ],
        "kernels": null,
        "resources": [
          {
            "kernel": "rmsnorm_bwd_k0",
            "registers": 48,
            "local_bytes": 16,
            "spill_store_bytes": 12
          }
        ]
      },
      "tuning": [
        "fused: @rmsnorm_bwd: untuned"
      ]
    }
  ]
}
"#;
        let expected = expected.replace("@VERSION@", crate::VERSION).replace("@COMMIT@", crate::BUILD_COMMIT);
        assert_eq!(sample().to_json(), expected);
    }

    #[test]
    fn json_non_finite_numbers_are_null() {
        // JSON has no NaN or infinity: serde_json writes them as null.
        let mut r = sample();
        r.copy.tb_per_s = f64::INFINITY;
        let f = &mut r.shapes[0].fused;
        (f.median_us, f.min_us) = (f64::NAN, f64::NEG_INFINITY);
        f.checks[0].rel_err = f64::NAN;
        let text = r.to_json();
        assert!(!text.contains("NaN") && !text.contains("inf"), "{text}");
        let j = json_of(&r);
        let f = &j["shapes"][0]["fused"];
        assert!(j["copy"]["tb_per_s"].is_null());
        assert!(f["median_us"].is_null() && f["min_us"].is_null() && f["pct_of_floor"].is_null(), "{f}");
        assert!(f["checks"][0]["rel_err"].is_null(), "{f}");
    }

    #[test]
    fn check_marks() {
        // Unfused failed: timed and marked; fused unchecked; a fused failure is not timed.
        let mut r = sample();
        r.shapes[0].unfused.as_mut().unwrap().check = CheckStatus::Failed;
        let t = r.table();
        assert!(t.contains("660.0 (check failed)"), "{t}");
        assert!(t.contains("47.1%"), "{t}");
        assert_eq!(r.unfused_warnings().len(), 1);
        assert!(r.fused_failures().is_empty());
        let j = json_of(&r);
        assert_eq!(
            (&j["shapes"][0]["unfused"]["check_ok"], &j["shapes"][0]["unfused"]["median_us"]),
            (&false.into(), &660.0.into())
        );

        let mut r = sample();
        r.checked = false;
        let sh = &mut r.shapes[0];
        for t in [&mut sh.fused, sh.unfused.as_mut().unwrap()] {
            t.check = CheckStatus::Unchecked;
            t.checks.clear();
        }
        let t = r.table();
        assert!(t.contains("330.0 (unchecked)") && t.contains("660.0 (unchecked)"), "{t}");
        let j = json_of(&r);
        assert!(
            j["shapes"][0]["fused"]["check_ok"].is_null() && j["shapes"][0]["fused"]["checks"] == serde_json::json!([])
        );
        assert_eq!(j["method"]["checked"], false);

        let mut r = sample();
        let mut second = r.shapes[0].clone();
        second.shape = "8 x 4".into();
        second.fused = ProgramTiming {
            median_us: f64::NAN,
            min_us: f64::NAN,
            launches: 0,
            check: CheckStatus::Failed,
            checks: vec![OutputCheck { index: 0, rel_err: 0.5, tol: 1e-2, note: None }],
            kernels: None,
            resources: Vec::new(),
        };
        second.unfused = None;
        r.shapes.push(second);
        let t = r.table();
        let last = t.lines().last().unwrap();
        assert!(last.starts_with("| 8 x 4") && last.contains("- (check failed)"), "{t}");
        assert!(!last.contains("NaN"), "{t}");
        assert_eq!(r.fused_failures(), vec!["8 x 4"]);
        let j = json_of(&r);
        let f = &j["shapes"][1]["fused"];
        assert_eq!(f["check_ok"], false);
        assert!(f["median_us"].is_null() && f["min_us"].is_null() && f["pct_of_floor"].is_null(), "{f}");
        assert_eq!(f["launches"], 0);
        assert!(j["shapes"][1]["unfused"].is_null());
    }

    #[test]
    fn per_kernel_output() {
        let mut r = sample();
        r.per_kernel = true;
        let ks = vec![
            KernelTiming {
                kernel: "k_rows".into(),
                grid: 132,
                block: 256,
                shared_bytes: 0,
                median_us: 300.0,
                arg_bytes: 0,
            },
            KernelTiming {
                kernel: "k_cols".into(),
                grid: 3,
                block: 128,
                shared_bytes: 4096,
                median_us: 30.0,
                arg_bytes: 0,
            },
        ];
        r.shapes[0].fused.kernels = Some(ks.clone());
        let t = r.kernel_tables();
        let lines: Vec<&str> = t.lines().filter(|l| !l.is_empty()).collect();
        assert_eq!(lines[0], "576000 x 384 fused: call median 330.0 us, 2 launch(es) per call", "{t}");
        assert!(lines[1].starts_with("floor us = arg MB / copy bandwidth"), "{t}");
        assert!(
            lines[2].starts_with("| # | kernel ")
                && lines[2].contains(
                    "| grid | block | shared bytes | arg MB | floor us | median us | % of floor | share of call |"
                ),
            "{t}"
        );
        assert!(lines[4].contains("| 0 | k_rows") && lines[4].contains("|     300.0 |"), "{t}");
        assert!(lines[4].ends_with(" 90.9% |"), "{t}");
        assert!(lines[5].contains("| 1 | k_cols") && lines[5].ends_with(" 9.1% |"), "{t}");
        assert!(lines[6].contains("(sum of kernels)") && lines[6].contains("330.0 |"), "{t}");
        assert!(lines[6].ends_with(" 100.0% |"), "{t}");
        assert_eq!(lines.len(), 7, "the unfused program has no kernel figures: {t}");
        let j = json_of(&r);
        let ks = &j["shapes"][0]["fused"]["kernels"];
        let mut k0 = ks[0].clone();
        assert!((k0["share_of_call"].take().as_f64().unwrap() - 300.0 / 330.0).abs() < 1e-12);
        assert!(r.to_json().contains("\"share_of_call\": 0.9090909090909091"));
        assert_eq!(
            k0,
            serde_json::json!({"kernel": "k_rows", "grid": 132, "block": 256, "shared_bytes": 0, "arg_bytes": 0,
                               "median_us": 300.0, "share_of_call": null})
        );
        assert_eq!(
            keys(&ks[0]),
            sorted(["kernel", "grid", "block", "shared_bytes", "arg_bytes", "median_us", "share_of_call"])
        );
        assert_eq!((ks[1]["kernel"].as_str(), ks.as_array().map(Vec::len)), (Some("k_cols"), Some(2)));
        assert_eq!(j["method"]["per_kernel"], true);
        assert!(j["shapes"][0]["unfused"]["kernels"].is_null());
        // A call that was not timed has no share.
        r.shapes[0].fused.median_us = f64::NAN;
        assert!(json_of(&r)["shapes"][0]["fused"]["kernels"][0]["share_of_call"].is_null());
        assert!(sample().kernel_tables().is_empty());
    }

    /// The per-kernel floor: each launch's argument bytes over the copy bandwidth, and the
    /// launch's % of it; the sum row adds the bytes and the times.
    #[test]
    fn per_kernel_floor() {
        let k = |kernel: &str, median_us: f64, arg_bytes: u64| KernelTiming {
            kernel: kernel.into(),
            grid: 1056,
            block: 256,
            shared_bytes: 0,
            median_us,
            arg_bytes,
        };
        // 4e9 bytes at 4 TB/s: 1000 us; at 1250 us, 80% of it.
        let ks = [k("k0", 1250.0, 4_000_000_000), k("k1", 500.0, 1_000_000_000)];
        let t = kernel_table(&ks, 2000.0, 4.0);
        let lines: Vec<&str> = t.lines().collect();
        assert!(
            lines[0].contains("copy bandwidth (4.00 TB/s)")
                && lines[0].contains("each buffer once")
                && lines[0].contains("upper bound on the traffic-based floor (a buffer read and written counts once)"),
            "{t}"
        );
        let cells =
            |l: &str| l.split('|').map(str::trim).filter(|c| !c.is_empty()).map(String::from).collect::<Vec<_>>();
        assert_eq!(
            cells(lines[1]),
            [
                "#",
                "kernel",
                "grid",
                "block",
                "shared bytes",
                "arg MB",
                "floor us",
                "median us",
                "% of floor",
                "share of call"
            ]
        );
        assert_eq!(cells(lines[3]), ["0", "k0", "1056", "256", "0", "4000.0", "1000.0", "1250.0", "80.0%", "62.5%"]);
        assert_eq!(cells(lines[4]), ["1", "k1", "1056", "256", "0", "1000.0", "250.0", "500.0", "50.0%", "25.0%"]);
        assert_eq!(cells(lines[5]), ["(sum of kernels)", "5000.0", "1250.0", "1750.0", "71.4%", "87.5%"]);
        // Without a copy bandwidth there is no floor.
        let t = kernel_table(&ks[..1], 2000.0, f64::NAN);
        assert_eq!(cells(t.lines().nth(3).unwrap())[6..9], ["-", "1250.0", "-"]);
    }
}
