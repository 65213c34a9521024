//! morf-tune: the autotuner's command line. For each shape it measures the schedule space of
//! a tensor-level function on the GPU (the engine's [`morf_engine::tuning::tune`]: coordinate
//! descent over pass options, each candidate compiled, deduplicated by its PTX and timed), and
//! writes the winners to a tuning cache that `morf-opt`, `morf-run` and `morf-bench` read with
//! `--tuning-cache FILE` (docs/tuning.md). A thin shell: parsing, the progress bar, the table,
//! the atomic writes and the exit status.
#![warn(missing_docs)]

use std::ffi::OsString;
use std::path::PathBuf;

use clap::Parser as _;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use morf_engine::tuning::{tune, TuneConfig, TuneProgress, TuningCache};
use morf_engine::{parse_sizes_flags, BenchError, EngineError};

/// Command line of morf-tune.
#[derive(clap::Parser, Debug, Clone)]
#[command(
    name = "morf-tune",
    about = "Measure a function's schedule space on the GPU and keep the fastest schedules in a tuning cache",
    after_help = "Exit status: 0 on success, and also when there is no CUDA driver (the run prints 'skipped' \
                  and writes nothing); 1 on an error, a bad command line, a malformed cache or a tuned program \
                  that fails its check."
)]
pub struct Cli {
    /// Tensor-level IR file (e.g. examples/rmsnorm_bwd.mlir).
    pub file: PathBuf,
    /// Sizes of the named dimensions, e.g. M=576000,N=384 (repeat for several shapes; each
    /// gives the entry of its shape bucket).
    #[arg(long, value_name = "NAME=SIZE,...", required = true)]
    pub sizes: Vec<String>,
    /// The tuning cache to update (created if missing; its other entries are kept).
    #[arg(long, value_name = "FILE", default_value = "tuning-cache.json")]
    pub cache: PathBuf,
    /// Function to tune (default: the only function of the module).
    #[arg(long, value_name = "NAME")]
    pub entry: Option<String>,
    /// The named pipeline to tune (`gpu`, or `gpu-unfused` for the unfused baseline).
    #[arg(long, default_value = "gpu")]
    pub pipeline: String,
    /// Timed calls per candidate (the median is compared).
    #[arg(long, default_value_t = 30)]
    pub runs: usize,
    /// Untimed calls before each timing.
    #[arg(long, default_value_t = 5)]
    pub warmup: usize,
    /// Timed calls of each final measurement (untuned and best, alternating, three times).
    #[arg(long, default_value_t = 50)]
    pub final_runs: usize,
    /// Rounds of coordinate descent at most.
    #[arg(long, default_value_t = 2)]
    pub rounds: usize,
    /// The gain a knob's value must bring to be kept, as a fraction (0.01 = 1%).
    #[arg(long, default_value_t = 0.01)]
    pub min_gain: f64,
    /// Candidates measured per shape at most.
    #[arg(long, default_value_t = 60)]
    pub max_trials: usize,
    /// Tune only these knobs (comma-separated option names, e.g. `threads,rows-in-flight`).
    #[arg(long, value_name = "KNOB,...", value_delimiter = ',')]
    pub knobs: Vec<String>,
    /// Skip the knob bundles (recipes: values that won together on the H200, such as a
    /// run-time split with interleaved splits) the tuner times before its descent.
    #[arg(long)]
    pub no_recipes: bool,
    /// Skip the fp64 check of the winners (their entries then say `checked: false`).
    #[arg(long)]
    pub no_check: bool,
    /// Seed of the generated inputs.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// GPU to use.
    #[arg(long, default_value_t = 0)]
    pub device: usize,
    /// Write the whole report (every candidate and its time) as JSON to this file.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Start each shape's search from the `--cache` file's entry for it, if any (refine a
    /// cached winner, say with new knobs), instead of from the untuned schedule alone.
    #[arg(long)]
    pub warm_start: bool,
}

/// Parses a command line (`argv[0]` first).
pub fn parse_cli(args: Vec<OsString>) -> Result<Cli, clap::Error> {
    Cli::try_parse_from(args)
}

/// The engine's tuning configuration of a command line.
pub fn tune_config(cli: &Cli) -> Result<TuneConfig, String> {
    let shapes = parse_sizes_flags(&cli.sizes)?;
    let c = TuneConfig {
        shapes,
        entry: cli.entry.clone(),
        pipeline: cli.pipeline.clone(),
        runs: cli.runs,
        warmup: cli.warmup,
        final_runs: cli.final_runs,
        rounds: cli.rounds,
        min_gain: cli.min_gain,
        max_trials: cli.max_trials,
        only: cli.knobs.clone(),
        recipes: !cli.no_recipes,
        check: !cli.no_check,
        seed: cli.seed,
        device: cli.device,
        copy_bytes: 1 << 30,
        start: None,
    };
    c.validate().map_err(|e| e.to_string())?;
    Ok(c)
}

/// The progress bar: candidates measured for the current shape, drawn on stderr only when it
/// is a terminal (and not a dumb one).
fn bar() -> ProgressBar {
    let dumb = std::env::var_os("TERM").is_some_and(|t| t == "dumb");
    let target = if dumb { ProgressDrawTarget::hidden() } else { ProgressDrawTarget::stderr() };
    let bar = ProgressBar::with_draw_target(Some(0), target);
    if let Ok(style) = ProgressStyle::with_template("[{elapsed}] {prefix}{bar:20} {pos}/{len} {msg}") {
        bar.set_style(style);
    }
    bar.enable_steady_tick(std::time::Duration::from_millis(120));
    bar
}

fn show(bar: &ProgressBar, p: &TuneProgress) {
    bar.set_prefix(format!("shape {}/{} ", p.shape + 1, p.shapes));
    bar.set_length(p.trials.1 as u64);
    bar.set_position(p.trials.0 as u64);
    let best = p.best_us.map(|b| format!(" (best {b:.1} us)")).unwrap_or_default();
    bar.set_message(format!("{}{best}", p.what));
}

/// Runs morf-tune with the given command line (`argv[0]` first); returns the exit code.
pub fn main_with_args(args: Vec<OsString>) -> i32 {
    use morf_ir::io::{eprint_lossy, write_atomic, write_stdout};
    let cli = match parse_cli(args) {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 1 } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    let config = match tune_config(&cli) {
        Ok(c) => c,
        Err(e) => {
            eprint_lossy(&format!("morf-tune: error: {e}"));
            return 1;
        }
    };
    // The cache is read (and must be valid) before any GPU time is spent.
    let reg = morf_engine::compile::pass_registry();
    let mut cache = if cli.cache.exists() {
        match TuningCache::load(&cli.cache, &reg) {
            Ok(c) => c,
            Err(e) => {
                eprint_lossy(&format!("morf-tune: {e}"));
                return 1;
            }
        }
    } else {
        TuningCache::default()
    };
    let mut config = config;
    if cli.warm_start {
        config.start = Some(cache.clone());
    }
    let name = cli.file.display().to_string();
    let text = match std::fs::read_to_string(&cli.file) {
        Ok(t) => t,
        Err(e) => {
            eprint_lossy(&format!("morf-tune: error: cannot read {name}: {e}"));
            return 1;
        }
    };
    let bar = bar();
    let mut log = |s: &str| bar.suspend(|| eprint_lossy(&format!("morf-tune: {s}")));
    let result = tune(&name, &text, &config, &mut log, &mut |p| show(&bar, p));
    bar.finish_and_clear();
    let stdout = |text: &str| match write_stdout(text.as_bytes()) {
        Ok(()) => 0,
        Err(e) => {
            eprint_lossy(&format!("morf-tune: error: cannot write output: {e}"));
            1
        }
    };
    match result {
        Ok(report) => {
            let mut code = stdout(&report.table());
            let mut failed = Vec::new();
            for s in &report.shapes {
                match &s.entry {
                    Some(e) => cache.insert(e.clone()),
                    None => failed.push(s.sizes.clone()),
                }
            }
            if let Err(e) = cache.save(&cli.cache) {
                eprint_lossy(&format!("morf-tune: error: {e}"));
                code = 1;
            }
            if let Some(path) = &cli.json {
                let mut j = serde_json::to_string_pretty(&report).unwrap_or_default();
                j.push('\n');
                if let Err(e) = write_atomic(path, j.as_bytes()) {
                    eprint_lossy(&format!("morf-tune: error: cannot write {}: {e}", path.display()));
                    code = 1;
                }
            }
            if !failed.is_empty() {
                eprint_lossy(&format!(
                    "morf-tune: error: the tuned program failed its fp64 check at {} (no entry written for it)",
                    failed.join("; ")
                ));
                code = 1;
            }
            code
        }
        Err(BenchError::Skipped(m)) => stdout(&format!("morf-tune: skipped: {m}\n")),
        Err(BenchError::Run(EngineError::Diagnostic(d))) => {
            eprint_lossy(&d);
            1
        }
        Err(BenchError::Run(e)) => {
            eprint_lossy(&format!("morf-tune: error: {e}"));
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cli(args: &[&str]) -> Result<Cli, clap::Error> {
        parse_cli(std::iter::once("morf-tune").chain(args.iter().copied()).map(OsString::from).collect())
    }

    #[test]
    fn arguments() {
        let c = cli(&["f.mlir", "--sizes", "M=576000,N=384"]).unwrap();
        let t = tune_config(&c).unwrap();
        assert_eq!((t.runs, t.final_runs, t.rounds, t.max_trials, t.pipeline.as_str()), (30, 50, 2, 60, "gpu"));
        assert!(t.check && t.recipes && t.only.is_empty());
        assert_eq!(c.cache, PathBuf::from("tuning-cache.json"));
        let c = cli(&["f.mlir", "--sizes", "M=8", "--knobs", "threads,rows-in-flight", "--no-check", "--no-recipes"])
            .unwrap();
        let t = tune_config(&c).unwrap();
        assert_eq!(t.only, vec!["threads", "rows-in-flight"]);
        assert!(!t.check && !t.recipes);
        assert!(tune_config(&cli(&["f.mlir", "--sizes", "M=8", "--knobs", "warp-speed"]).unwrap())
            .unwrap_err()
            .contains("no knob named 'warp-speed'"));
        assert!(tune_config(&cli(&["f.mlir", "--sizes", "M=x"]).unwrap()).is_err());
        assert!(tune_config(&cli(&["f.mlir", "--sizes", "M=8", "--runs", "0"]).unwrap()).is_err());
        assert!(cli(&["f.mlir"]).is_err());
        let c = cli(&["f.mlir", "--sizes", "M=8", "--knobs", "partials,threads-per-row", "--warm-start"]).unwrap();
        assert!(c.warm_start);
        assert_eq!(tune_config(&c).unwrap().only, vec!["partials", "threads-per-row"]);
    }
}
