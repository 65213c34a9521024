//! morf-bench: times one tensor-level function on the GPU, compiled by the fused pipeline
//! (and optionally the unfused one), against the bandwidth of a device-to-device copy
//! kernel measured in the same run. See `tools/morf-bench/README.md` and `docs/perf.md`.
//!
//! A thin shell over the engine's benchmark ([`morf_engine::bench`], which owns the method,
//! the floor, the report and its rendering): this crate parses the command line into a
//! [`BenchConfig`], runs it, prints the table, writes the JSON atomically and picks the
//! exit status.
#![warn(missing_docs)]

use std::ffi::OsString;
use std::path::PathBuf;

use clap::Parser as _;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use morf_engine::tuning::TuningSource;
use morf_engine::{
    parse_sizes_flags, run_bench_file_with_phases, BenchConfig, BenchError, BenchPhase, CallTiming, EngineError,
};

/// Command line of morf-bench.
#[derive(clap::Parser, Debug, Clone)]
#[command(
    name = "morf-bench",
    about = "Time a tensor-level function on the GPU (fused, unfused) against a copy-kernel floor",
    after_help = "Exit status: 0 on success, and also when there is no CUDA driver (the run prints \
                  'skipped'); 1 on an error, a bad command line or a failed check of a fused program (an unfused failure only warns)."
)]
pub struct Cli {
    /// Tensor-level IR file (e.g. examples/rmsnorm_bwd.mlir).
    pub file: PathBuf,
    /// Sizes of the named dimensions, e.g. M=576000,N=384 (repeat for several shapes).
    #[arg(long, value_name = "NAME=SIZE,...", required = true)]
    pub sizes: Vec<String>,
    /// Function to time (default: the only function of the module).
    #[arg(long, value_name = "NAME")]
    pub entry: Option<String>,
    /// Timed calls per program (the median is reported).
    #[arg(long, default_value_t = 100)]
    pub runs: usize,
    /// Untimed calls before timing.
    #[arg(long, default_value_t = 10)]
    pub warmup: usize,
    /// Write the figures as JSON to this file.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Also compile and time the unfused pipeline.
    #[arg(long)]
    pub unfused: bool,
    /// The named pipeline of the fused program, or a textual one
    /// (`builtin.module(lower-tensor-to-loop,...)`, e.g. to sweep pass options)
    #[arg(long, value_name = "NAME", default_value = "gpu")]
    pub fused_pipeline: String,
    /// The named pipeline of the unfused program, or a textual one
    #[arg(long, value_name = "NAME", default_value = "gpu-unfused")]
    pub unfused_pipeline: String,
    /// Seed of the generated inputs.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Bytes of the copy-kernel buffer (read and written once per copy).
    #[arg(long, default_value_t = 1 << 30)]
    pub copy_bytes: usize,
    /// GPU to use.
    #[arg(long, default_value_t = 0)]
    pub device: usize,
    /// Also time each kernel launch on its own (events around each launch, over a second
    /// pass of `--runs` calls) and print a table per shape and program.
    #[arg(long)]
    pub per_kernel: bool,
    /// Skip the fp64 reference check (the outputs are then reported as unchecked).
    #[arg(long)]
    pub no_check: bool,
    /// Wait for each timed call before queueing the next, so that the figure also holds the
    /// host's time to its first launch (the default times like `triton.testing.do_bench`:
    /// an L2-evicting memset before each call, one wait at the end).
    #[arg(long)]
    pub sync_calls: bool,
    /// The tuning cache consulted for each named pipeline: `builtin` (the committed one),
    /// `none` (the cost model decides: the untuned figures), or a file written by morf-tune.
    #[arg(long, value_name = "builtin|none|FILE", default_value = "builtin")]
    pub tuning_cache: String,
    /// Load the fused program's kernels from this PTX file instead of emitting them, e.g.
    /// MLIR's (`morf-opt --emit=ptx --ptx-backend=mlir` of the same program, pipeline, size
    /// hints and tuning): the two PTX paths timed side by side. Its kernels and parameter
    /// counts must be the lowering's, and morf's own PTX must carry this lowering's stamp
    /// (`// morf.lowering:`, docs/target-ptx.md).
    #[arg(long, value_name = "FILE")]
    pub ptx: Option<PathBuf>,
    /// Hold this many SMs with a spinning kernel through each timing phase, so that the copy
    /// kernel and the programs run on the others: a device with more DRAM bandwidth per SM,
    /// emulated (an H100 with 40 of its 132 reserved moves as many bytes per SM cycle as an
    /// H200). Every pass of the pipelines that takes a `device` option and sets none gets
    /// `device=sms=N` for the N SMs left; scale a schedule's own per-SM counts
    /// (`partials=132`, `grid=1056`) yourself (docs/perf.md, "Method").
    #[arg(long, value_name = "SMS", default_value_t = 0)]
    pub reserve_sms: u32,
}

/// Parses a command line (`argv[0]` first) and checks the values clap cannot.
pub fn parse_cli(args: Vec<OsString>) -> Result<Cli, clap::Error> {
    let cli = Cli::try_parse_from(args)?;
    Ok(cli)
}

/// Checks option values; returns the parsed shapes.
pub fn validate(cli: &Cli) -> Result<Vec<Vec<(String, usize)>>, String> {
    if cli.runs == 0 {
        return Err("--runs must be at least 1".into());
    }
    if cli.copy_bytes < 16 {
        return Err("--copy-bytes must be at least 16".into());
    }
    parse_sizes_flags(&cli.sizes)
}

/// The engine's benchmark configuration of a command line ([`validate`] first).
pub fn bench_config(cli: &Cli) -> Result<BenchConfig, String> {
    Ok(BenchConfig {
        shapes: validate(cli)?,
        entry: cli.entry.clone(),
        runs: cli.runs,
        warmup: cli.warmup,
        unfused: cli.unfused,
        fused_pipeline: cli.fused_pipeline.clone(),
        unfused_pipeline: cli.unfused_pipeline.clone(),
        seed: cli.seed,
        copy_bytes: cli.copy_bytes,
        device: cli.device,
        per_kernel: cli.per_kernel,
        check: !cli.no_check,
        call_timing: if cli.sync_calls { CallTiming::Synced } else { CallTiming::Pipelined },
        tuning: TuningSource::from_flag(&cli.tuning_cache).map_err(|e| e.to_string())?,
        fused_ptx: match &cli.ptx {
            Some(p) => Some((
                p.display().to_string(),
                std::fs::read_to_string(p).map_err(|e| format!("cannot read {}: {e}", p.display()))?,
            )),
            None => None,
        },
        reserve_sms: cli.reserve_sms,
    })
}

/// The spinner of a run: on stderr, drawn only when stderr is a terminal (indicatif hides
/// it otherwise, so piped and redirected runs, the tests and the scripts see nothing of it)
/// and not a dumb one.
fn spinner() -> ProgressBar {
    let dumb = std::env::var_os("TERM").is_some_and(|t| t == "dumb");
    let target = if dumb { ProgressDrawTarget::hidden() } else { ProgressDrawTarget::stderr() };
    let bar = ProgressBar::with_draw_target(None, target);
    if let Ok(style) = ProgressStyle::with_template("{spinner} [{elapsed}] {prefix}{msg}") {
        bar.set_style(style);
    }
    bar.set_message("starting");
    bar.enable_steady_tick(std::time::Duration::from_millis(120));
    bar
}

/// Shows `phase` on the spinner.
fn show_phase(bar: &ProgressBar, phase: &BenchPhase) {
    match phase.shape_index {
        Some(i) if phase.shapes > 1 => bar.set_prefix(format!("shape {}/{}: ", i + 1, phase.shapes)),
        _ => bar.set_prefix(""),
    }
    bar.set_message(phase.what.clone());
}

/// Runs morf-bench with the given command line (`argv[0]` first); returns the exit code:
/// 0 on success or when skipped (no CUDA driver), 1 on an error, a malformed command line or a
/// failed fused check.
pub fn main_with_args(args: Vec<OsString>) -> i32 {
    let cli = match parse_cli(args) {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 1 } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    use morf_ir::io::{eprint_lossy, write_atomic, write_stdout};
    // The log lines stay as they are (scripts parse them); the spinner steps aside for each.
    let config = match bench_config(&cli) {
        Ok(c) => c,
        Err(e) => {
            eprint_lossy(&format!("morf-bench: error: {e}"));
            return 1;
        }
    };
    let bar = spinner();
    let mut log = |s: &str| bar.suspend(|| eprint_lossy(&format!("morf-bench: {s}")));
    let stdout = |text: &str| match write_stdout(text.as_bytes()) {
        Ok(()) => 0,
        Err(e) => {
            eprint_lossy(&format!("morf-bench: error: cannot write output: {e}"));
            1
        }
    };
    let result = run_bench_file_with_phases(&cli.file, &config, &mut log, &mut |p| show_phase(&bar, p));
    bar.finish_and_clear();
    match result {
        Ok(report) => {
            let mut code = stdout(&format!("{}{}", report.table(), report.kernel_tables()));
            if let Some(path) = &cli.json {
                if let Err(e) = write_atomic(path, report.to_json().as_bytes()) {
                    eprint_lossy(&format!("morf-bench: error: cannot write {}: {e}", path.display()));
                    code = 1;
                }
            }
            for w in report.unfused_warnings() {
                eprint_lossy(&format!("morf-bench: {w}"));
            }
            let failed = report.fused_failures();
            if !failed.is_empty() {
                eprint_lossy(&format!(
                    "morf-bench: error: the fused program failed its output check at {} (not timed)",
                    failed.join(", ")
                ));
                code = 1;
            }
            code
        }
        Err(BenchError::Skipped(m)) => stdout(&format!("morf-bench: skipped: {m}\n")),
        Err(BenchError::Run(EngineError::Diagnostic(d))) => {
            eprint_lossy(&d.to_string());
            1
        }
        Err(BenchError::Run(e)) => {
            eprint_lossy(&format!("morf-bench: error: {e}"));
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cli(args: &[&str]) -> Result<Cli, clap::Error> {
        parse_cli(std::iter::once("morf-bench").chain(args.iter().copied()).map(OsString::from).collect())
    }

    #[test]
    fn arguments() {
        let c = cli(&["f.mlir", "--sizes", "M=576000,N=384"]).unwrap();
        assert_eq!((c.runs, c.warmup, c.unfused), (100, 10, false));
        assert_eq!((c.fused_pipeline.as_str(), c.unfused_pipeline.as_str()), ("gpu", "gpu-unfused"));
        assert_eq!(validate(&c).unwrap(), vec![vec![("M".to_string(), 576000), ("N".to_string(), 384)]]);
        let c = cli(&[
            "f.mlir",
            "--sizes",
            "M=8,N=4",
            "--sizes",
            "M=2,N=2",
            "--runs",
            "5",
            "--warmup",
            "0",
            "--json",
            "o.json",
            "--unfused",
            "--fused-pipeline",
            "a",
            "--unfused-pipeline",
            "b",
        ])
        .unwrap();
        assert_eq!(validate(&c).unwrap().len(), 2);
        assert!(c.unfused && c.json.is_some() && c.fused_pipeline == "a" && c.unfused_pipeline == "b");
        assert!(!c.per_kernel && !c.no_check);
        let c = cli(&["f.mlir", "--sizes", "M=8", "--per-kernel", "--no-check"]).unwrap();
        assert!(c.per_kernel && c.no_check);
        assert!(!c.sync_calls);
        let c = cli(&["f.mlir", "--sizes", "M=8", "--sync-calls"]).unwrap();
        assert_eq!(bench_config(&c).unwrap().call_timing, CallTiming::Synced);
        assert!(cli(&["f.mlir"]).is_err(), "--sizes is required");
        assert!(validate(&cli(&["f.mlir", "--sizes", "M=x"]).unwrap()).is_err());
        assert!(validate(&cli(&["f.mlir", "--sizes", "M=1", "--runs", "0"]).unwrap()).is_err());
    }

    #[test]
    fn config_from_arguments() {
        let c = bench_config(&cli(&["f.mlir", "--sizes", "M=8,N=4"]).unwrap()).unwrap();
        assert_eq!(c, BenchConfig::new(vec![vec![("M".to_string(), 8), ("N".to_string(), 4)]]));
        let c = bench_config(
            &cli(&[
                "f.mlir",
                "--sizes",
                "M=8",
                "--entry",
                "g",
                "--runs",
                "3",
                "--warmup",
                "1",
                "--unfused",
                "--seed",
                "7",
                "--copy-bytes",
                "64",
                "--device",
                "1",
                "--per-kernel",
                "--no-check",
            ])
            .unwrap(),
        )
        .unwrap();
        assert_eq!(c.entry.as_deref(), Some("g"));
        assert_eq!((c.runs, c.warmup, c.seed, c.copy_bytes, c.device), (3, 1, 7, 64, 1));
        assert!(c.unfused && c.per_kernel && !c.check);
        assert_eq!(
            bench_config(&cli(&["f.mlir", "--sizes", "M=1", "--copy-bytes", "8"]).unwrap()).unwrap_err(),
            "--copy-bytes must be at least 16"
        );
    }
}
