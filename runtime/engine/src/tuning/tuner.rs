//! The autotuner: measures the configurations of the schedule space ([`super::space`]) on
//! the GPU for each shape, keeps the fastest whose outputs pass the fp64 check, and gives
//! a [`TuningEntry`] per shape for the cache ([`tune`]).

use std::collections::HashMap;

use morf_ir::interp::RtValue;
use serde::Serialize;

use super::apply::{pipeline_passes, pipeline_with_options};
use super::cache::{DeviceKey, Evidence, TuningEntry};
use super::key::{fnv1a, program_hash, shape_bucket, ShapeBucket};
use super::space::{
    config_of_options, coordinate_descent, describe, knobs, options_by_pass, recipes, Config, Knob, Outcome, Recipe,
    Search, Trial,
};
use crate::bench::{elem_bytes_and_name, floor_bytes, floor_us, gpu_err, BenchError, CheckStatus, CopyFigures};
use crate::bind::{bind_arguments, load_module, new_context, select_function, RunOptions};
use crate::check::{compare_outputs, OutputCheck};
use crate::compile::{lower_for_gpu, pass_registry, GpuProgram};
use crate::gpu_exec::DevValue;
use crate::timing::{time_program_on, CallTiming};
use crate::EngineError;
use morf_runtime::Gpu;

/// What to tune.
#[derive(Clone, Debug)]
pub struct TuneConfig {
    /// The shapes, each `NAME=SIZE` pairs; one entry per shape.
    pub shapes: Vec<Vec<(String, usize)>>,
    /// The function (default: the only one).
    pub entry: Option<String>,
    /// The named pipeline tuned (`gpu`, `gpu-unfused`).
    pub pipeline: String,
    /// Timed calls per configuration during the search.
    pub runs: usize,
    /// Untimed calls before each timing.
    pub warmup: usize,
    /// Timed calls of each of the three alternating final measurements of the untuned and
    /// the best configuration.
    pub final_runs: usize,
    /// Rounds of coordinate descent at most.
    pub rounds: usize,
    /// The gain (a fraction) a value must bring to be kept.
    pub min_gain: f64,
    /// Configurations measured per shape at most.
    pub max_trials: usize,
    /// Only these option keys are tuned (empty: every knob).
    pub only: Vec<String>,
    /// Try the knob bundles of [`recipes`] (those within the tuned knobs) before the descent.
    pub recipes: bool,
    /// Check the winner against the fp64 interpreter (an entry is only made for a winner that
    /// passes).
    pub check: bool,
    /// Seed of the generated inputs.
    pub seed: u64,
    /// The CUDA device.
    pub device: usize,
    /// Bytes of the copy kernel's buffer.
    pub copy_bytes: usize,
    /// Start each shape's search from this cache's entry for it (same program, pipeline,
    /// bucket and device), if any: a cached winner refined, say with new knobs.
    pub start: Option<super::cache::TuningCache>,
}

impl TuneConfig {
    /// Defaults for `shapes`: the `gpu` pipeline, 30 runs per configuration, 2 rounds, 1%
    /// gain, at most 60 configurations per shape, checked.
    pub fn new(shapes: Vec<Vec<(String, usize)>>) -> TuneConfig {
        TuneConfig {
            shapes,
            entry: None,
            pipeline: "gpu".into(),
            runs: 30,
            warmup: 5,
            final_runs: 50,
            rounds: 2,
            min_gain: 0.01,
            max_trials: 60,
            only: Vec::new(),
            recipes: true,
            check: true,
            seed: 0,
            device: 0,
            copy_bytes: 1 << 30,
            start: None,
        }
    }

    /// Checks the numbers.
    pub fn validate(&self) -> Result<(), EngineError> {
        let bad = |m: &str| Err(EngineError::Other(m.to_string()));
        if self.shapes.is_empty() {
            return bad("no shape to tune (give --sizes)");
        }
        if self.runs == 0 || self.final_runs == 0 {
            return bad("runs must be at least 1");
        }
        if self.max_trials == 0 {
            return bad("max-trials must be at least 1");
        }
        if !(0.0..1.0).contains(&self.min_gain) {
            return bad("min-gain must be in [0, 1)");
        }
        let known = knobs(&["fuse-mixed-reductions", "lower-loop-to-gpu"], 1);
        if let Some(k) = self.only.iter().find(|k| !known.iter().any(|n| n.key == k.as_str())) {
            let names: Vec<&str> = known.iter().map(|k| k.key).collect();
            return Err(EngineError::Other(format!("no knob named '{k}' (knobs: {})", names.join(", "))));
        }
        Ok(())
    }
}

/// A tuner event, for a progress display.
#[derive(Clone, Debug)]
pub struct TuneProgress {
    /// Index of the shape.
    pub shape: usize,
    /// Shapes in all.
    pub shapes: usize,
    /// What happens now (`inputs`, `search`, `final`, `check`) or the trial just measured.
    pub what: String,
    /// Trials measured for this shape so far, and the cap.
    pub trials: (usize, usize),
    /// The best time so far for this shape.
    pub best_us: Option<f64>,
}

/// One trial of a report, for JSON.
#[derive(Clone, Debug, Serialize)]
pub struct TrialRecord {
    /// The configuration ([`describe`]).
    pub config: String,
    /// Median time, microseconds (null when it failed).
    pub us: Option<f64>,
    /// The trial whose kernels it shares, if any.
    pub same_as: Option<usize>,
    /// Bytes its kernels spilled to local memory in the driver's JIT compile (null: none); a
    /// spilling configuration is never kept.
    pub spill_bytes: Option<u64>,
    /// Why it failed.
    pub failed: Option<String>,
}

/// The tuning of one shape.
#[derive(Clone, Debug, Serialize)]
pub struct ShapeTuning {
    /// The sizes, `M=576000,N=384`.
    pub sizes: String,
    /// The bucket.
    pub bucket: String,
    /// The hints every program of the bucket is compiled with.
    pub hints: String,
    /// The byte floor at the run's copy bandwidth, microseconds.
    pub floor_us: f64,
    /// The untuned program in the final measurement.
    pub untuned_us: f64,
    /// The tuned program in the final measurement.
    pub tuned_us: f64,
    /// The configuration kept ([`describe`]).
    pub best: String,
    /// Every configuration tried.
    pub trials: Vec<TrialRecord>,
    /// Distinct programs timed.
    pub timed: usize,
    /// Rounds of the search.
    pub rounds: usize,
    /// The check of the kept configuration against fp64.
    pub check: String,
    /// The check per output.
    pub checks: Vec<String>,
    /// The entry for the cache (none when the check failed).
    pub entry: Option<TuningEntry>,
}

/// A tuning run.
#[derive(Clone, Debug, Serialize)]
pub struct TuneReport {
    /// The device.
    pub device: DeviceKey,
    /// The copy kernel's figures.
    pub copy_tb_per_s: f64,
    /// The file.
    pub file: String,
    /// The function.
    pub function: String,
    /// The program hash.
    pub program: String,
    /// The pipeline.
    pub pipeline: String,
    /// Per shape.
    pub shapes: Vec<ShapeTuning>,
}

impl TuneReport {
    /// A Markdown table: one row per shape.
    pub fn table(&self) -> String {
        let mut s = String::from(
            "| sizes | bucket | floor us | untuned us | tuned us | % of floor | gain | configs (timed) | tuned schedule | check |\n\
             | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n",
        );
        for t in &self.shapes {
            s.push_str(&format!(
                "| {} | {} | {:.1} | {:.1} | {:.1} | {:.1}% | {:+.1}% | {} ({}) | {} | {} |\n",
                t.sizes,
                t.bucket,
                t.floor_us,
                t.untuned_us,
                t.tuned_us,
                100.0 * t.floor_us / t.tuned_us,
                100.0 * (t.untuned_us / t.tuned_us - 1.0),
                t.trials.len(),
                t.timed,
                t.best,
                t.check
            ));
        }
        s
    }
}

fn first_line(e: &EngineError) -> String {
    e.to_string().lines().next().unwrap_or("").to_string()
}

/// The median of `xs` (NaN when empty).
fn median(mut xs: Vec<f64>) -> f64 {
    if xs.is_empty() {
        return f64::NAN;
    }
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// Tunes `text` (`name` for diagnostics) on the GPU: per shape, generated inputs, a
/// coordinate-descent search over the schedule space (each configuration compiled with the
/// shape bucket's hints; configurations that give the same PTX are timed once), then the
/// untuned and the best configuration timed again three times each, alternating, and the best
/// kept only if it is still faster by `min_gain`; the kept one is checked against the fp64
/// interpreter. A configuration whose kernels the driver's JIT compile spills is timed but
/// never kept ([`Outcome::Spilled`]). Each shape gives a [`TuningEntry`].
pub fn tune(
    name: &str,
    text: &str,
    cfg: &TuneConfig,
    log: &mut dyn FnMut(&str),
    progress: &mut dyn FnMut(&TuneProgress),
) -> Result<TuneReport, BenchError> {
    cfg.validate()?;
    let mut rctx = new_context(false);
    let module = load_module(&mut rctx, name, text)?;
    let _ = rctx.take_emitted();
    let rfunc = select_function(&rctx, module, cfg.entry.as_deref(), name)?;
    let function = morf_ir::builtin::symbol_name(&rctx, rfunc).unwrap_or("?").to_string();
    let program = program_hash(&rctx, module);
    let reg = pass_registry();
    let pipe = reg.pipeline(&cfg.pipeline).ok_or_else(|| {
        EngineError::Other(format!("no pipeline named '{}' (morf-tune tunes a named pipeline)", cfg.pipeline))
    })?;
    // The passes the knobs apply to, parsed (the `gpu` pipeline writes
    // `fuse-mixed-reductions{partials=resident}`, which a plain text match missed: the split
    // knobs were left out of the space).
    let run_passes = pipeline_passes(&reg, pipe.name).map_err(EngineError::Other)?;
    let passes: Vec<&str> = ["fuse-mixed-reductions", "lower-loop-to-gpu"]
        .into_iter()
        .filter(|p| run_passes.iter().any(|r| r == p))
        .collect();

    let gpu = Gpu::new(cfg.device).map_err(gpu_err)?;
    let device = DeviceKey::of(&gpu).map_err(gpu_err)?;
    log(&format!("device: {device}"));
    let copy = gpu.measure_copy_bandwidth(cfg.copy_bytes, cfg.warmup, cfg.runs.max(10)).map_err(gpu_err)?;
    let copy = CopyFigures { bytes: copy.bytes, median_us: copy.median_us, tb_per_s: copy.tb_per_s() };
    log(&format!("copy: {:.3} TB/s", copy.tb_per_s));
    let mut space: Vec<Knob> = knobs(&passes, device.sms);
    if !cfg.only.is_empty() {
        space.retain(|k| cfg.only.iter().any(|o| o == k.key));
    }
    // Knob bundles tried before the descent (those whose knobs are all in the space).
    let bundles: Vec<Recipe> = if cfg.recipes { recipes(&passes, device.sms) } else { Vec::new() };

    let mut shapes = Vec::new();
    for (si, sizes) in cfg.shapes.iter().enumerate() {
        let named = sizes.iter().map(|(n, v)| format!("{n}={v}")).collect::<Vec<_>>().join(",");
        let sizes64: Vec<(String, u64)> = sizes.iter().map(|(n, v)| (n.clone(), *v as u64)).collect();
        let bucket: ShapeBucket = shape_bucket(&rctx, rfunc, &sizes64);
        let mut say = |what: String, trials: (usize, usize), best_us: Option<f64>| {
            progress(&TuneProgress { shape: si, shapes: cfg.shapes.len(), what, trials, best_us })
        };
        say(format!("{named}: inputs"), (0, cfg.max_trials), None);
        let opts = RunOptions::generated(cfg.entry.clone(), sizes.clone(), cfg.seed, cfg.check);
        let (args, _) = bind_arguments(&rctx, rfunc, &opts)?;

        // Every distinct program (PTX and host function) timed, by hash: (trial, time, bytes
        // its kernels spilled in the driver's JIT compile).
        let mut timed: HashMap<u64, (usize, f64, u64)> = HashMap::new();
        let compile = |config: &Config| -> Result<crate::compile::LoweredProgram, String> {
            let text_p = pipeline_with_options(&reg, &cfg.pipeline, &options_by_pass(config))?;
            lower_for_gpu(name, text, cfg.entry.as_deref(), false, &text_p, Some(&bucket.hints))
                .map_err(|e| first_line(&e))
        };
        // The inputs go to the device once, with the untuned program (every candidate's host
        // function takes the same arguments and does not write them).
        let untuned = compile(&Config::new()).map_err(EngineError::Other)?.load(&gpu)?;
        let dev_args: Vec<DevValue> = {
            let mut exec = untuned.executor(&gpu);
            untuned.upload_args(&mut exec, &args)?
        };
        let time = |prog: &GpuProgram, runs: usize| -> Result<f64, String> {
            time_program_on(&gpu, prog, &dev_args, cfg.warmup, runs, CallTiming::Pipelined)
                .map(|t| t.0)
                .map_err(|e| first_line(&e))
        };
        let mut eval = |config: &Config, trials: &[Trial]| -> Outcome {
            let lowered = match compile(config) {
                Ok(l) => l,
                Err(e) => return Outcome::Failed(e),
            };
            // Equal kernels with another host program (a grid, a split sized at run time:
            // `partials=K` changes only the host's arithmetic) are another configuration.
            let host = morf_ir::print_op(&lowered.ctx, lowered.func, &morf_ir::PrintOptions::default());
            let h = fnv1a(format!("{}\n{host}", lowered.ptx).as_bytes());
            if let Some(&(of, us, bytes)) = timed.get(&h) {
                return if bytes > 0 {
                    Outcome::Spilled { us, bytes, same_as: Some(of) }
                } else {
                    Outcome::Same { of, us }
                };
            }
            let prog = match lowered.load(&gpu) {
                Ok(p) => p,
                Err(e) => return Outcome::Failed(first_line(&e)),
            };
            // The warm-up calls (each waited for) report a failing launch.
            let bytes = prog.jit_spill_bytes();
            match time(&prog, cfg.runs) {
                Ok(us) => {
                    timed.insert(h, (trials.len(), us, bytes));
                    if bytes > 0 {
                        Outcome::Spilled { us, bytes, same_as: None }
                    } else {
                        Outcome::Time(us)
                    }
                }
                Err(e) => Outcome::Failed(e),
            }
        };
        // A warm start: the cached entry of this program, pipeline, bucket and device.
        let start = match cfg
            .start
            .as_ref()
            .and_then(|c| c.lookup(&program, &function, &cfg.pipeline, &bucket.key, &device))
        {
            Some((e, _)) => {
                let c =
                    config_of_options(&e.options).map_err(|e| EngineError::Other(format!("the cache's entry: {e}")))?;
                log(&format!("{named}: starting from the cache's entry for bucket {}: {}", bucket.key, describe(&c)));
                c
            }
            None => Config::new(),
        };
        let mut best_seen = f64::INFINITY;
        let search: Search = coordinate_descent(
            &start,
            &space,
            &bundles,
            cfg.rounds,
            cfg.min_gain,
            cfg.max_trials,
            &mut eval,
            &mut |t: &Trial, n: usize| {
                if let Some(us) = t.outcome.us() {
                    best_seen = best_seen.min(us);
                }
                let what = match &t.outcome {
                    Outcome::Time(us) => format!("{named}: {} -> {us:.1} us", describe(&t.config)),
                    Outcome::Same { of, .. } => format!("{named}: {} = trial {of}", describe(&t.config)),
                    Outcome::Spilled { us, bytes, .. } => {
                        format!("{named}: {} -> {us:.1} us, spills {bytes} bytes: not kept", describe(&t.config))
                    }
                    Outcome::Failed(e) => format!("{named}: {} failed: {e}", describe(&t.config)),
                };
                say(what, (n, cfg.max_trials), best_seen.is_finite().then_some(best_seen));
            },
        );
        for (i, t) in search.trials.iter().enumerate() {
            log(&format!("{named} trial {i}: {} -> {:?}", describe(&t.config), t.outcome));
        }
        if let Outcome::Spilled { bytes, .. } = search.trials[0].outcome {
            log(&format!("{named}: the untuned program spills {bytes} bytes in the driver's JIT compile"));
        }
        if search.trials[0].outcome.measured_us().is_none() {
            return Err(BenchError::Run(EngineError::Other(format!(
                "{named}: the untuned program failed: {:?}",
                search.trials[0].outcome
            ))));
        }

        // The final measurement: untuned and best, alternating, three times each.
        say(format!("{named}: final measurement"), (search.trials.len(), cfg.max_trials), Some(search.best_us()));
        let best_cfg = search.best_config().clone();
        let best =
            if best_cfg.is_empty() { None } else { Some(compile(&best_cfg).map_err(EngineError::Other)?.load(&gpu)?) };
        let (mut u, mut b) = (Vec::new(), Vec::new());
        for _ in 0..3 {
            u.push(time(&untuned, cfg.final_runs).map_err(EngineError::Other)?);
            if let Some(p) = &best {
                b.push(time(p, cfg.final_runs).map_err(EngineError::Other)?);
            }
        }
        let untuned_us = median(u);
        let (kept, kept_cfg, tuned_us) = match best {
            Some(p) if median(b.clone()) < untuned_us * (1.0 - cfg.min_gain / 2.0) => (p, best_cfg, median(b)),
            _ => (untuned, Config::new(), untuned_us),
        };

        // The floor, from the arguments and the outputs; and the check.
        let out = kept.run(&gpu, &args)?;
        let mut tensors: Vec<(usize, usize)> =
            args.iter().map(|a| elem_bytes_and_name(&rctx, a)).map(|(n, b, _)| (n, b)).collect();
        tensors.extend(out.iter().map(|r| elem_bytes_and_name(&kept.ctx, r)).map(|(n, b, _)| (n, b)));
        let fl = floor_us(floor_bytes(&tensors), copy.tb_per_s);
        let (status, checks): (CheckStatus, Vec<OutputCheck>) = if cfg.check {
            say(format!("{named}: fp64 check"), (search.trials.len(), cfg.max_trials), Some(tuned_us));
            let args2: Vec<RtValue> = args.clone();
            let reference = morf_ir::interp::run_function(&rctx, rfunc, args2)
                .map_err(|d| EngineError::Diagnostic(rctx.render(&d)))?;
            let c = compare_outputs(&kept.ctx, &out, &reference);
            (CheckStatus::of(&c), c)
        } else {
            (CheckStatus::Unchecked, Vec::new())
        };
        let entry = (status != CheckStatus::Failed).then(|| TuningEntry {
            program: program.clone(),
            function: function.clone(),
            pipeline: cfg.pipeline.clone(),
            bucket: bucket.key.clone(),
            device: device.clone(),
            options: options_by_pass(&kept_cfg),
            evidence: Some(Evidence {
                sizes: named.clone(),
                median_us: tuned_us,
                default_us: untuned_us,
                floor_us: fl,
                copy_tb_per_s: copy.tb_per_s,
                tried: search.trials.len(),
                timed: timed_count(&search),
                runs: cfg.final_runs,
                checked: status == CheckStatus::Passed,
            }),
        });
        log(&format!(
            "{named}: untuned {untuned_us:.1} us, tuned {tuned_us:.1} us ({}), floor {fl:.1} us, check {}",
            describe(&kept_cfg),
            status.name()
        ));
        shapes.push(ShapeTuning {
            sizes: named,
            bucket: bucket.key.clone(),
            hints: bucket.hints.clone(),
            floor_us: fl,
            untuned_us,
            tuned_us,
            best: describe(&kept_cfg),
            trials: search
                .trials
                .iter()
                .map(|t| TrialRecord {
                    config: describe(&t.config),
                    us: t.outcome.measured_us(),
                    same_as: t.outcome.same_as(),
                    spill_bytes: match t.outcome {
                        Outcome::Spilled { bytes, .. } => Some(bytes),
                        _ => None,
                    },
                    failed: match &t.outcome {
                        Outcome::Failed(e) => Some(e.clone()),
                        _ => None,
                    },
                })
                .collect(),
            timed: timed_count(&search),
            rounds: search.rounds,
            check: status.name().to_string(),
            checks: checks.iter().map(|c| c.to_string()).collect(),
            entry,
        });
    }
    Ok(TuneReport {
        device,
        copy_tb_per_s: copy.tb_per_s,
        file: name.to_string(),
        function,
        program,
        pipeline: cfg.pipeline.clone(),
        shapes,
    })
}

fn timed_count(s: &Search) -> usize {
    s.trials.iter().filter(|t| t.outcome.timed()).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_validation_and_no_gpu() {
        let shape = vec![("M".to_string(), 8), ("N".to_string(), 4)];
        let c = TuneConfig::new(vec![shape]);
        assert!(c.validate().is_ok());
        let bad = |c: TuneConfig| c.validate().unwrap_err().to_string();
        assert!(bad(TuneConfig::new(vec![])).contains("no shape"));
        assert!(bad(TuneConfig { only: vec!["bogus".into()], ..c.clone() }).contains("no knob named 'bogus'"));
        assert!(bad(TuneConfig { min_gain: 1.5, ..c.clone() }).contains("min-gain"));
        let r = tune("bad.mlir", "func.func @f(", &c, &mut |_| {}, &mut |_| {});
        assert!(matches!(r, Err(BenchError::Run(EngineError::Diagnostic(_)))), "{r:?}");
        if !morf_runtime::cuda_available() {
            let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/rmsnorm_bwd.mlir"))
                .unwrap();
            let r = tune("r.mlir", &text, &c, &mut |_| {}, &mut |_| {});
            assert!(matches!(r, Err(BenchError::Skipped(_))), "{r:?}");
        }
    }
}
