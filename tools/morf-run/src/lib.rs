//! morf-run: runs one function of an IR file on the reference interpreter, the CPU GPU
//! simulator or the GPU, with its arguments read from `.npy` files or generated
//! pseudo-randomly, and writes each result to `DIR/result<i>.npy`.
//!
//! A thin shell around `morf-engine` (`runtime/engine`): this crate parses the command
//! line, reads the source, picks the device and prints; compiling, binding, running,
//! checking and writing are the engine's. The binary calls [`main_with_args`].
#![warn(missing_docs)]

use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::PathBuf;

use clap::Parser as _;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use morf_engine::{
    memory, parse_input_spec, parse_random_spec, read_source, EngineError, OutputCheck, RunOptions, RunReport,
    MAX_SOURCE_BYTES,
};

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
    /// Size hints for compiling (`--device sim|gpu|auto`): sizes of named dims,
    /// M=576000,N=384, for every pass of the `gpu` pipeline that takes them. Default: the
    /// module's `morf.size_hints` attribute, else the shapes of the inputs.
    #[arg(long, value_name = "NAME=SIZE,...")]
    size_hints: Option<String>,
    /// The tuning cache of compiled runs: `builtin` (the committed H200 cache, consulted on a
    /// GPU), `none`, or a file written by morf-tune (also consulted by `--device sim`, with the
    /// H200 as the device). An entry for the program, its shape bucket and the GPU replaces the
    /// cost model's schedule; `-v` says which was used.
    #[arg(long, value_name = "builtin|none|FILE", default_value = "builtin")]
    tuning_cache: String,
    /// On a GPU: load the kernels from this PTX file instead of emitting them, e.g. MLIR's
    /// (`morf-opt --emit=ptx --ptx-backend=mlir` of the same program, pipeline, size hints and
    /// tuning). Its kernels and parameter counts must be the lowering's, and morf's own PTX
    /// must carry this lowering's stamp (`// morf.lowering:`, docs/target-ptx.md).
    #[arg(long, value_name = "FILE")]
    ptx: Option<String>,
    /// Accept operations of unregistered dialects (generic form).
    #[arg(long)]
    allow_unregistered_dialect: bool,
    /// How to read the file: morf's IR (`morf`, the default) or upstream MLIR (`mlir`: a
    /// linalg-on-tensors subset imported to `mtensor`, docs/interop-mlir.md; needs a build
    /// with the cargo feature `mlir`).
    #[arg(long, value_name = "morf|mlir", default_value = "morf", value_parser = ["morf", "mlir"])]
    import: String,
    /// Print min/max/mean of each result and timings.
    #[arg(short, long)]
    verbose: bool,
}

fn cli_options(cli: &Cli) -> Result<RunOptions, EngineError> {
    match cli.device.as_deref().unwrap_or("interp") {
        "interp" | "sim" => {}
        "gpu" | "auto" => {}
        other => {
            return Err(EngineError::Other(format!("unknown --device '{other}' (expected interp, sim, gpu or auto)")))
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
                    return Err(EngineError::Other(format!("bad --random spec '{spec}': '{n}' is given twice")));
                }
                all.push((n, s));
            }
        }
        Some(all)
    };
    Ok(RunOptions {
        entry: cli.entry.clone(),
        inputs,
        arrays: Vec::new(),
        random,
        seed: cli.seed,
        output_dir: cli.output_dir.clone(),
        allow_unregistered_dialect: cli.allow_unregistered_dialect,
        stats: cli.verbose,
        max_memory: None,
        tuning: morf_engine::tuning::TuningSource::from_flag(&cli.tuning_cache)?,
        ptx: match &cli.ptx {
            Some(f) => Some((
                f.clone(),
                std::fs::read_to_string(f).map_err(|e| EngineError::Other(format!("cannot read {f}: {e}")))?,
            )),
            None => None,
        },
        max_elements: None,
    })
}

/// Runs morf-run with the given command line (`argv[0]` first) and returns the process exit code:
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
        Err(EngineError::Diagnostic(text)) => {
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

/// The spinner shown while the GPU simulator runs ([`Spinner`]); log lines written meanwhile
/// make it step aside.
static SPINNER: std::sync::Mutex<Option<ProgressBar>> = std::sync::Mutex::new(None);

/// Writes to stderr through `f`, with the spinner (if any) cleared meanwhile.
fn with_spinner_suspended<R>(f: impl FnOnce() -> R) -> R {
    let bar = SPINNER.lock().ok().and_then(|b| b.clone());
    match bar {
        Some(bar) => bar.suspend(f),
        None => f(),
    }
}

/// A spinner on stderr, drawn only when stderr is a terminal (indicatif hides it otherwise,
/// so piped runs, the tests and the scripts see nothing of it) and not a dumb one; cleared
/// when dropped.
struct Spinner;

impl Spinner {
    fn start(message: &str) -> Spinner {
        let dumb = std::env::var_os("TERM").is_some_and(|t| t == "dumb");
        let target = if dumb { ProgressDrawTarget::hidden() } else { ProgressDrawTarget::stderr() };
        let bar = ProgressBar::with_draw_target(None, target);
        if let Ok(style) = ProgressStyle::with_template("{spinner} [{elapsed}] {msg}") {
            bar.set_style(style);
        }
        bar.set_message(message.to_string());
        bar.enable_steady_tick(std::time::Duration::from_millis(120));
        if let Ok(mut slot) = SPINNER.lock() {
            *slot = Some(bar);
        }
        Spinner
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        if let Some(bar) = SPINNER.lock().ok().and_then(|mut b| b.take()) {
            bar.finish_and_clear();
        }
    }
}

impl std::io::Write for LossyStderr {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        with_spinner_suspended(|| std::io::stderr().write_all(buf)).ok();
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        let _ = std::io::stderr().flush();
        Ok(())
    }
}

/// Lines to print after the results, and the run.
type CliOutcome = (RunReport, Vec<OutputCheck>, Vec<String>);

fn note(text: &str) {
    with_spinner_suspended(|| morf_ir::io::eprint_lossy(&format!("morf-run: note: {text}")));
}

/// `--import=mlir`: the file imported from upstream MLIR to `mtensor` ([`morf_mlir::import_mlir`])
/// and printed as morf text with its locations (`loc(...)`), so that every later
/// diagnostic points into the original file. Returns the name and text to run.
fn import_mlir(name: &str, text: &str) -> Result<(String, String), EngineError> {
    if !morf_mlir::is_available() {
        return Err(EngineError::Other(format!("--import=mlir: {}", morf_mlir::UNAVAILABLE)));
    }
    let mut ctx = morf_engine::bind::new_context(false);
    ctx.add_source(name, text);
    let module =
        morf_mlir::import_mlir(&mut ctx, name, text, 0).map_err(|d| EngineError::Diagnostic(ctx.render(&d)))?;
    let opts = morf_ir::PrintOptions { generic: false, debug_info: true };
    Ok((format!("{name} (imported)"), morf_ir::print_op(&ctx, module, &opts)))
}

fn run_cli(cli: &Cli) -> Result<CliOutcome, EngineError> {
    let mut opts = cli_options(cli)?;
    opts.max_memory = match &cli.max_memory {
        Some(text) => Some(memory::MemoryLimit {
            bytes: memory::parse_size(text).map_err(|e| EngineError::Other(format!("--max-memory: {e}")))?,
            source: "--max-memory".into(),
        }),
        None => memory::system_limit(),
    };
    // The text, and the IR parsed from it, must fit in memory too.
    let max = opts.max_memory.as_ref().map_or(MAX_SOURCE_BYTES, |l| (l.bytes / 2).min(MAX_SOURCE_BYTES));
    let cap_note = |e: EngineError| match (&opts.max_memory, e) {
        (Some(l), EngineError::Other(m)) if m.ends_with(&memory::format_bytes(max)) && max < MAX_SOURCE_BYTES => {
            EngineError::Other(format!("{m} (half the memory limit, {})", l.source))
        }
        (_, e) => e,
    };
    let (name, text) = if cli.file == "-" {
        ("<stdin>".to_string(), read_source(std::io::stdin().lock(), "standard input", max).map_err(cap_note)?)
    } else {
        let f =
            std::fs::File::open(&cli.file).map_err(|e| EngineError::Other(format!("cannot read {}: {e}", cli.file)))?;
        if f.metadata().is_ok_and(|m| m.is_dir()) {
            return Err(EngineError::Other(format!("cannot read {}: it is a directory", cli.file)));
        }
        (cli.file.clone(), read_source(f, &cli.file, max).map_err(cap_note)?)
    };
    let (name, text) = if cli.import == "mlir" { import_mlir(&name, &text)? } else { (name, text) };
    if let Some(h) = &cli.size_hints {
        morf_ir::pass::SizeHints::parse(h)
            .map_err(|e| EngineError::Other(format!("invalid --size-hints '{h}': {e}")))?;
    }
    let hints = cli.size_hints.as_deref();
    let auto = cli.device.as_deref() == Some("auto");
    let on_gpu = match cli.device.as_deref() {
        Some("gpu") => true,
        Some("auto") => morf_runtime::cuda_available(),
        Some(_) => false,
        None => morf_runtime::cuda_available() && morf_engine::text_has_kernels(&name, &text),
    };
    let sim = cli.device.as_deref() == Some("sim");
    if cli.ptx.is_some() && !on_gpu {
        return Err(EngineError::Other(
            "--ptx loads kernels on a GPU: it needs --device gpu (or auto on a machine with CUDA)".into(),
        ));
    }
    let mut lines = Vec::new();
    let (report, checks) = if sim || (auto && !on_gpu) {
        let r = if sim {
            let _spinner = Spinner::start("running on the GPU simulator (inputs, compile, launches)...");
            let kernels = morf_engine::text_has_kernels(&name, &text);
            if cli.check && kernels {
                note("--check compares a compiled run with the interpreter; this module already has kernels, so the simulation is its only semantics and there is nothing to check");
            }
            morf_engine::run::run_source_sim_with_hints(&name, &text, &opts, cli.check, hints)?
        } else {
            note("no CUDA driver found; running the compiled kernels on the CPU simulator");
            let _spinner = Spinner::start("running on the GPU simulator (inputs, compile, launches)...");
            morf_engine::run::run_source_sim_compiled_with_hints(&name, &text, &opts, cli.check, hints)?
        };
        if let Some(n) = r.launches {
            lines.push(format!("ran {n} kernel launch{} on the GPU simulator", if n == 1 { "" } else { "es" }));
        }
        (r.run, r.checks)
    } else if on_gpu {
        let r = morf_engine::run::run_source_gpu_with_hints(&name, &text, &opts, cli.check, hints)?;
        tracing::info!("ran on {}", r.device);
        (r.run, r.checks)
    } else {
        if cli.check {
            note("--check compares a GPU run with the interpreter; this run is on the interpreter, so there is nothing to check");
        }
        if hints.is_some() {
            note("--size-hints only matter when compiling (--device sim, gpu or auto); this run is on the interpreter");
        }
        (morf_engine::run_source(&name, &text, &opts)?, Vec::new())
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
