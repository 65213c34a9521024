//! The schedule space the tuner searches ([`knobs`]): pass options of the pipeline's fusion
//! and GPU lowering, each a transform of the schedule the IR carries (split size, CTA shape,
//! rows per warp or CTA, rows in flight, rows staged through shared memory, register bound,
//! persistent grid, where the final reduction runs, emission order); bundles of knob values
//! worth trying together ([`recipes`]); and the search over it ([`coordinate_descent`]), which
//! is independent of how a configuration is measured.

use std::collections::BTreeMap;

/// One tunable pass option and the values the tuner tries (besides leaving it unset, which
/// lets the cost model and heuristics decide).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Knob {
    /// The pass it sets an option of.
    pub pass: &'static str,
    /// The option.
    pub key: &'static str,
    /// The values tried.
    pub values: Vec<String>,
}

/// A point of the space: `(pass, option) -> value` for the knobs set; unset knobs are left to
/// the heuristics.
pub type Config = BTreeMap<(String, String), String>;

/// The options of `config` by pass, as a tuning entry stores them
/// (`"lower-loop-to-gpu": "min-ctas=none threads=512"`).
pub fn options_by_pass(config: &Config) -> BTreeMap<String, String> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for ((pass, key), value) in config {
        let v = morf_ir::pass::quote_option_value(value).unwrap_or_else(|_| value.clone());
        out.entry(pass.clone()).or_default().push(format!("{key}={v}"));
    }
    out.into_iter().map(|(p, v)| (p, v.join(" "))).collect()
}

/// The configuration a tuning entry's options (`options_by_pass`' form) name; an option that is
/// not `key=value` is an error.
pub fn config_of_options(options: &BTreeMap<String, String>) -> Result<Config, String> {
    let mut c = Config::new();
    for (pass, text) in options {
        let opts = morf_ir::pass::PassOptions::parse(text).map_err(|e| format!("options of '{pass}': {e}"))?;
        for (k, v) in opts.entries() {
            c.insert((pass.clone(), k.clone()), v.clone());
        }
    }
    Ok(c)
}

/// `config` as one line (`untuned` when empty).
pub fn describe(config: &Config) -> String {
    if config.is_empty() {
        return "untuned".into();
    }
    config.iter().map(|((_, k), v)| format!("{k}={v}")).collect::<Vec<_>>().join(" ")
}

/// The knobs for a pipeline that runs `passes`, on a device of `sms` SMs. Values are
/// device-relative (grids in multiples of the SM count), never shapes of a benchmark.
pub fn knobs(passes: &[&str], sms: u32) -> Vec<Knob> {
    let v = |xs: &[&str]| xs.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let mut out = Vec::new();
    if passes.contains(&"fuse-mixed-reductions") {
        // Rows per partial program: the split the fused kernel's partials are summed over.
        out.push(Knob {
            pass: "fuse-mixed-reductions",
            key: "splits",
            values: v(&["32", "64", "128", "256", "512", "1024"]),
        });
        // A split decoupled from the size: at most K partials, each ceil(rows / K) rows at
        // run time, so that a persistent grid of K CTAs takes one balanced split each. K is
        // one or two rounds of the kernel's resident CTAs (asked of the driver at run time:
        // ptxas' registers decide them), or the SM count (one CTA per SM, whatever fits).
        let mut partials = v(&["resident", "resident*2"]);
        partials.push(sms.max(1).to_string());
        partials.push("0".into());
        out.push(Knob { pass: "fuse-mixed-reductions", key: "partials", values: partials });
    }
    if passes.contains(&"lower-loop-to-gpu") {
        let l = "lower-loop-to-gpu";
        out.push(Knob { pass: l, key: "threads", values: v(&["128", "256", "512", "1024"]) });
        out.push(Knob { pass: l, key: "threads-per-row", values: v(&["8", "16", "32", "128", "256", "512", "1024"]) });
        out.push(Knob { pass: l, key: "rows-in-flight", values: v(&["1", "2"]) });
        // Three rows staged: a CTA per row that reloads a long row from the ring (LayerNorm
        // backward at 4096 x 16384: 156 us with two, 145 with three).
        out.push(Knob { pass: l, key: "staged-rows", values: v(&["1", "2", "3", "4"]) });
        out.push(Knob { pass: l, key: "reload", values: v(&["false", "true"]) });
        out.push(Knob { pass: l, key: "shared-accs", values: v(&["false", "true"]) });
        out.push(Knob { pass: l, key: "min-ctas", values: v(&["none", "margin", "1", "2", "3", "4"]) });
        out.push(Knob { pass: l, key: "final", values: v(&["grid", "tail", "launch"]) });
        // The staging ring's copies of a streamed kernel evict-first too (off by default).
        out.push(Knob { pass: l, key: "stream-copies", values: v(&["false", "true"]) });
        // Lanes of a final reduction's row segment (the latency model's pick by default).
        out.push(Knob { pass: l, key: "final-lanes", values: v(&["2", "4", "8", "16", "32"]) });
        out.push(Knob { pass: l, key: "chunk-major", values: v(&["false", "true"]) });
        // A split's rows interleaved across CTAs (wins with a warp per row and many rows:
        // RMSNorm 576000 x 384 -3%; loses with a CTA per row).
        out.push(Knob { pass: l, key: "interleave-splits", values: v(&["false", "true"]) });
        // Splits taken from a work counter (`mgpu.work_loop`), and R splits a resident CTA
        // under `partials=resident`, so that CTAs that finish early take more (forty-fifth
        // session: the grid barrier's wait was 12-14% of the short rows' warp samples).
        out.push(Knob { pass: l, key: "dynamic-splits", values: v(&["false", "true"]) });
        out.push(Knob { pass: l, key: "resident-splits", values: v(&["1", "2", "4", "8"]) });
        // Independent row reductions reduced together (one barrier) or one by one.
        out.push(Knob { pass: l, key: "batch-reductions", values: v(&["auto", "true", "false"]) });
        // Column partials that need no row reduction taken before it (fewer registers).
        out.push(Knob { pass: l, key: "early-accumulates", values: v(&["false", "true"]) });
        // Widenings of loaded bf16 redone after the row reduction's barrier (fewer registers).
        out.push(Knob { pass: l, key: "remat-converts", values: v(&["false", "true"]) });
        // f32 multiply-adds contracted to fma by ptxas (fewer instructions a row: RMSNorm
        // backward's row loop at N = 4096 368 -> 319 SASS instructions; on the H200 0-2%:
        // RMSNorm 32768 x 4096 205.1 -> 203.0 us, LayerNorm 65536 x 1024 113.3 -> 111.5).
        out.push(Knob { pass: l, key: "contract-fma", values: v(&["false", "true"]) });
        // Each row's scalars (`rstd[i]`) loaded rows ahead (by default only beside a row in
        // flight; with staged rows 0.4% faster to 7% slower on an H100).
        out.push(Knob { pass: l, key: "scalars-ahead", values: v(&["0", "1", "2"]) });
        let grids: Vec<String> = [1u32, 2, 4, 8].iter().map(|k| (k * sms.max(1)).to_string()).collect();
        out.push(Knob { pass: l, key: "grid", values: grids });
        // Rows a block of the split-K partial, fixed (by default the heuristic's least, 16 or 32,
        // raised at run time until the blocks fit one wave).
        out.push(Knob { pass: l, key: "split-rows", values: v(&["16", "32", "64", "128", "256", "512", "1024"]) });
        // CTAs per row, one thread-block cluster (long rows; 1: none).
        out.push(Knob { pass: l, key: "cluster", values: v(&["1", "2", "4", "8"]) });
        // Full-rank inputs loaded with cache streaming (evict-first); by default only pure
        // reductions take it (row sum 43.3 -> 39.5 us at 65536 x 1024; RMSNorm backward,
        // which writes dx, lost 3-11%).
        out.push(Knob { pass: l, key: "stream-loads", values: v(&["false", "true"]) });
        // Rows a thread per row takes at once (its short row one access: N = 1-4 in bf16, and
        // odd rows such as N = 3, 5, 6, 10, 12), in aligned pieces of up to 16 bytes, up to 128
        // bytes a row input; compiles to the same program where rows take several threads.
        out.push(Knob { pass: l, key: "packed-rows", values: v(&["1", "2", "4", "8"]) });
        // Packed rows loaded and stored by the warp together through shared memory (each warp
        // access one run of 128-512 bytes), which also lets short odd rows of groups over 48
        // bytes (N = 7, 14, 20 in bf16) take a thread; the default where a group is at least 4
        // pieces (RMSNorm backward at 4194304 x 7 137.9 -> 79.2 us on an H100).
        out.push(Knob { pass: l, key: "warp-transpose", values: v(&["false", "true"]) });
        // A bias gradient's dx beside db as CTAs over consecutive vectors of its rows, each
        // thread's columns fixed (flat partials), or the row form; by default flat partials
        // where the row form leaves lanes idle (gelu_bwd_bias at 327680 x 100 on an H100:
        // 153.2 -> 100.7 us), the row form over short unaligned rows (N = 7: 75.5 against 121.8).
        out.push(Knob { pass: l, key: "flat-partials", values: v(&["false", "true"]) });
        // Vectors of each input a thread of the flat partials form loads at once (default 2:
        // 1.03-1.05x faster than 1 at N = 32, 64, 384 and 512; 4 spent registers and lost).
        out.push(Knob { pass: l, key: "vectors-in-flight", values: v(&["1", "2", "4"]) });
        // Flat partials CTAs of whole warps (800 threads at N = 100 or 200), so that the final
        // reduction joins the grid instead of a launch of its own; untimed (forty-third session).
        out.push(Knob { pass: l, key: "flat-warps", values: v(&["false", "true"]) });
    }
    out
}

/// Knob values that are worth trying together: each alone may gain nothing, or lose, where
/// the bundle wins (rules as data, like the knobs). The tuner measures every recipe whose
/// knobs it tunes before its descent, applied to the best configuration so far; measurement
/// decides, never the recipe.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recipe {
    /// What it is, for reports.
    pub name: &'static str,
    /// `(pass, option) = value` for each knob it sets.
    pub values: Vec<((&'static str, &'static str), String)>,
}

impl Recipe {
    /// Whether every knob the recipe sets is in `knobs` (the space being tuned).
    pub fn within(&self, knobs: &[Knob]) -> bool {
        self.values.iter().all(|((p, k), _)| knobs.iter().any(|n| n.pass == *p && n.key == *k))
    }

    /// `base` with the recipe's values set.
    pub fn apply(&self, base: &Config) -> Config {
        let mut c = base.clone();
        for ((p, k), v) in &self.values {
            c.insert((p.to_string(), k.to_string()), v.clone());
        }
        c
    }
}

/// The recipes for a pipeline that runs `passes`, on a device of `sms` SMs: bundles that won
/// together on the H200 where one knob at a time found nothing (docs/perf.md, sessions 11-18).
/// Values are device-relative, never shapes; the tuner times each and keeps one only when it
/// gains more than `--min-gain`.
pub fn recipes(passes: &[&str], sms: u32) -> Vec<Recipe> {
    let (f, l) = ("fuse-mixed-reductions", "lower-loop-to-gpu");
    if !(passes.contains(&f) && passes.contains(&l)) {
        return Vec::new();
    }
    let r = |name, values: &[((&'static str, &'static str), &str)]| Recipe {
        name,
        values: values.iter().map(|(k, v)| (*k, v.to_string())).collect(),
    };
    let per_sm = sms.max(1).to_string();
    let cta_row_values = |ctas| {
        vec![
            ((f, "partials"), "resident"),
            ((f, "splits"), "32"),
            ((l, "staged-rows"), "1"),
            ((l, "rows-in-flight"), "1"),
            ((l, "interleave-splits"), "true"),
            ((l, "remat-converts"), "true"),
            ((l, "min-ctas"), ctas),
        ]
    };
    let cta_row = |name, ctas| r(name, &cta_row_values(ctas));
    // The same launch for a row spread over a cluster of CTAs, each CTA holding its share in
    // registers (`reload=false`), chunk-major so that ptxas fits the bound.
    let cluster_row = |name, cluster, ctas| {
        let mut v = cta_row_values(ctas);
        v.extend([((l, "cluster"), cluster), ((l, "reload"), "false"), ((l, "chunk-major"), "true")]);
        r(name, &v)
    };
    vec![
        // A balanced split a resident CTA, its rows interleaved across the CTAs (RMSNorm f32
        // at 576000 x 384: 661 -> 643 us; either alone: under 1%).
        r("interleaved run-time split", &[((f, "partials"), "resident"), ((l, "interleave-splits"), "true")]),
        // Four run-time splits a resident CTA, taken from a work counter: the CTAs that
        // finish early take the late ones' (the static grid's tail at the grid barrier).
        r(
            "four splits a CTA from a work counter",
            &[((f, "partials"), "resident"), ((l, "dynamic-splits"), "true"), ((l, "resident-splits"), "4")],
        ),
        // One split an SM, interleaved (RMSNorm and LayerNorm at 65536 x 1024: -2% and -1%
        // where a filled grid alone gained nothing).
        r("interleaved split an SM", &[((f, "partials"), per_sm.as_str()), ((l, "interleave-splits"), "true")]),
        // Several rows a warp where 32 lanes leave a chunk half idle, the column partials in
        // shared memory so that two CTAs still fit, and two rows staged (LayerNorm at
        // 576000 x 384: 364 -> 350 us; 16 lanes alone 407).
        r(
            "16 lanes a row, shared accumulators, two rows staged",
            &[
                ((f, "partials"), "resident"),
                ((l, "threads-per-row"), "16"),
                ((l, "shared-accs"), "true"),
                ((l, "staged-rows"), "2"),
            ],
        ),
        // A CTA per row with its row loaded straight into registers (no staging, one row in
        // flight) and registers for two or three CTAs a SM, splits short enough to give every
        // resident CTA one, interleaved, the widenings redone after the barrier (RMSNorm at
        // 16384 x 8192: 221 -> 211 us, 32768 x 4096: 218 -> 212; without the widenings redone
        // ptxas spills and it loses 20-40%).
        cta_row("a CTA per row, two CTAs a SM, row in registers", "2"),
        cta_row("a CTA per row, three CTAs a SM, row in registers", "3"),
        // A cluster per row, several CTAs a SM, each CTA's share of the row in registers: the
        // heuristic's cluster of two CTAs of 512 (one a SM, the row reloaded from a ring) waits
        // at every row's cluster exchange with nothing else to run; several clusters' CTAs on an
        // SM overlap those waits (docs/perf.md, twenty-second session: RMSNorm backward at
        // 100000 x 32768 6925 -> 5940 us in clusters of 4 x 256, two a SM; LayerNorm, two
        // partials a column, 7440 -> 6748 in clusters of 8 x 256, three a SM).
        cluster_row("a cluster of 4 per row, two CTAs a SM, row in registers", "4", "2"),
        cluster_row("a cluster of 8 per row, three CTAs a SM, row in registers", "8", "3"),
        // A CTA per row that reloads its row from a ring of three staged rows, its column
        // partials in registers: the shared accumulators the heuristic takes for a long row
        // leave no room for a ring, so the row comes again from L2 (LayerNorm backward at
        // 4096 x 16384: 167 -> 145 us; each knob alone loses or is capped). The heuristic now
        // takes this form there by itself; the recipe reaches it where the heuristic's margin
        // does not (a partials' estimate within an eighth of the bound beside room for a ring).
        r(
            "a CTA per row, reloaded from three staged rows, partials in registers",
            &[((l, "reload"), "true"), ((l, "shared-accs"), "false"), ((l, "staged-rows"), "3")],
        ),
        // 16 lanes a row over two rounds of interleaved splits (RMSNorm bf16 at 576000 x 384:
        // 387 -> 327 us).
        r(
            "16 lanes a row, interleaved, two rounds of splits",
            &[
                ((f, "partials"), "resident*2"),
                ((l, "threads-per-row"), "16"),
                ((l, "interleave-splits"), "true"),
                ((l, "rows-in-flight"), "1"),
            ],
        ),
    ]
}

/// What measuring a configuration gave.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Its median time in microseconds.
    Time(f64),
    /// It compiled to the same kernels as an earlier configuration (number `of` in the
    /// trials), whose time it shares.
    Same {
        /// The trial it duplicates.
        of: usize,
        /// That trial's time.
        us: f64,
    },
    /// It ran, but the driver's JIT compile spilled registers of one of its kernels to local
    /// memory: timed and reported, never kept. A schedule is a register budget too (issue 11:
    /// "no kernel spills"), and a spilling candidate within noise of a clean one won a search
    /// before (LayerNorm at 100000 x 32768, twenty-second session).
    Spilled {
        /// Its median time in microseconds (that of trial `same_as` when it shares its kernels).
        us: f64,
        /// Bytes its kernels store to local memory, over all of them.
        bytes: u64,
        /// The trial whose kernels it shares, if any.
        same_as: Option<usize>,
    },
    /// It did not compile, run or pass its check; the reason.
    Failed(String),
}

impl Outcome {
    /// Its time as a candidate: none when it failed or spilled.
    pub fn us(&self) -> Option<f64> {
        match self {
            Outcome::Time(t) | Outcome::Same { us: t, .. } => Some(*t),
            Outcome::Spilled { .. } | Outcome::Failed(_) => None,
        }
    }

    /// Its measured time, spilled or not (none when it failed).
    pub fn measured_us(&self) -> Option<f64> {
        match self {
            Outcome::Spilled { us, .. } => Some(*us),
            o => o.us(),
        }
    }

    /// The trial whose kernels it shares, if any.
    pub fn same_as(&self) -> Option<usize> {
        match self {
            Outcome::Same { of, .. } => Some(*of),
            Outcome::Spilled { same_as, .. } => *same_as,
            _ => None,
        }
    }

    /// Whether it is a program measured for the first time (not a failure nor a duplicate).
    pub fn timed(&self) -> bool {
        matches!(self, Outcome::Time(_) | Outcome::Spilled { same_as: None, .. })
    }
}

/// One configuration tried.
#[derive(Clone, Debug, PartialEq)]
pub struct Trial {
    /// The configuration.
    pub config: Config,
    /// What measuring it gave.
    pub outcome: Outcome,
}

/// The result of a search.
#[derive(Clone, Debug, PartialEq)]
pub struct Search {
    /// Every configuration tried, in order; the first is the untuned one.
    pub trials: Vec<Trial>,
    /// The index of the best trial.
    pub best: usize,
    /// Rounds run.
    pub rounds: usize,
}

impl Search {
    /// The best configuration.
    pub fn best_config(&self) -> &Config {
        &self.trials[self.best].config
    }

    /// The best time (the untuned configuration's when nothing else ran clean: spilled or not).
    pub fn best_us(&self) -> f64 {
        self.trials[self.best].outcome.measured_us().unwrap_or(f64::NAN)
    }

    /// The untuned configuration's time, spilled or not (NaN when it failed).
    pub fn untuned_us(&self) -> f64 {
        self.trials[0].outcome.measured_us().unwrap_or(f64::NAN)
    }
}

/// Sets knob `key` of `config` to `value`, or with `None` unsets it (back to the heuristic).
fn set_knob(config: &mut Config, key: (String, String), value: Option<String>) {
    match value {
        Some(v) => config.insert(key, v),
        None => config.remove(&key),
    };
}

/// Knobs of a round's near misses whose pairs [`coordinate_descent`] tries (at most
/// `PAIR_CANDIDATES * (PAIR_CANDIDATES - 1) / 2` more configurations a round).
pub const PAIR_CANDIDATES: usize = 4;

/// Coordinate descent over `knobs` (like Inductor's coordinate-descent tuner): for each knob
/// in turn, every value with the other knobs at the best configuration so far; the best of
/// them is kept when it is faster by more than `min_gain` (a fraction: 0.01 is 1%, so noise
/// does not move the search). Rounds repeat until one changes nothing or `max_rounds` ran;
/// `max_trials` caps the configurations measured. The untuned configuration is trial 0; a
/// non-empty `start` (say, a cached winner, to refine it with new knobs) is trial 1, and the
/// descent starts from the faster of the two. A round that changes nothing then tries pairs
/// of its near misses ([`PAIR_CANDIDATES`] knobs whose best value came within `min_gain` of
/// the base without beating it by that much): two values that gain only together (RMSNorm
/// backward at 65536 x 1024 on the H200: `partials=resident` and `interleave-splits=true`,
/// each under 1% alone, 2% together) are out of reach of one knob at a time. Before the
/// descent, each of `recipes` whose knobs are all in `knobs` is tried on the best
/// configuration so far, and the fastest is the descent's start when it gains more than
/// `min_gain` (bundles of three or four knobs no pair step reaches). `eval` measures a
/// configuration (it may answer [`Outcome::Same`] for one that compiles to kernels already
/// timed); `progress` hears of each trial. A configuration whose kernels spill
/// ([`Outcome::Spilled`]) is never a base nor the best, as one that failed; an untuned
/// configuration that spills is the best only until a clean one runs.
#[allow(clippy::too_many_arguments)]
pub fn coordinate_descent(
    start: &Config,
    knobs: &[Knob],
    recipes: &[Recipe],
    max_rounds: usize,
    min_gain: f64,
    max_trials: usize,
    eval: &mut dyn FnMut(&Config, &[Trial]) -> Outcome,
    progress: &mut dyn FnMut(&Trial, usize),
) -> Search {
    let mut trials: Vec<Trial> = Vec::new();
    let mut run = |config: Config, trials: &mut Vec<Trial>| -> usize {
        if let Some(i) = trials.iter().position(|t| t.config == config) {
            return i;
        }
        let outcome = eval(&config, trials);
        trials.push(Trial { config, outcome });
        progress(trials.last().expect("just pushed"), trials.len());
        trials.len() - 1
    };
    let mut best = run(Config::new(), &mut trials);
    if !start.is_empty() && max_trials > 1 {
        let i = run(start.clone(), &mut trials);
        if trials[i].outcome.us().is_some_and(|us| trials[best].outcome.us().is_none_or(|b| us < b)) {
            best = i;
        }
    }
    // Runs `candidates` other than `base` in order, while under `max_trials`, and answers
    // the fastest that has a time (the first of equals): the recipes, a knob's values and the
    // pairs of near misses are each such a batch.
    let mut fastest_of = |candidates: Vec<Config>, base: &Config, trials: &mut Vec<Trial>| -> Option<(usize, f64)> {
        let mut fastest: Option<(usize, f64)> = None;
        for c in candidates {
            if trials.len() >= max_trials {
                break;
            }
            if c == *base {
                continue;
            }
            let i = run(c, trials);
            if let Some(us) = trials[i].outcome.us() {
                if fastest.is_none_or(|(_, b)| us < b) {
                    fastest = Some((i, us));
                }
            }
        }
        fastest
    };
    // Recipes, on the best configuration so far.
    let base = trials[best].config.clone();
    let base_us = trials[best].outcome.us().unwrap_or(f64::INFINITY);
    let cooked: Vec<Config> = recipes.iter().filter(|r| r.within(knobs)).map(|r| r.apply(&base)).collect();
    if let Some((i, us)) = fastest_of(cooked, &base, &mut trials) {
        if us < base_us * (1.0 - min_gain) {
            best = i;
        }
    }
    let mut rounds = 0;
    while rounds < max_rounds {
        rounds += 1;
        let mut changed = false;
        // Per knob, its best value this round when it came within `min_gain` of the base:
        // (time, knob, value).
        let mut near: Vec<(f64, (String, String), Option<String>)> = Vec::new();
        for knob in knobs {
            let base = trials[best].config.clone();
            let base_us = trials[best].outcome.us().unwrap_or(f64::INFINITY);
            let key = (knob.pass.to_string(), knob.key.to_string());
            // Every value, then unset: back to the heuristic.
            let values = knob.values.iter().cloned().map(Some).chain([None]);
            let candidates = values
                .map(|value| {
                    let mut c = base.clone();
                    set_knob(&mut c, key.clone(), value);
                    c
                })
                .collect();
            if let Some((i, us)) = fastest_of(candidates, &base, &mut trials) {
                if us < base_us * (1.0 - min_gain) {
                    best = i;
                    changed = true;
                } else if us < base_us * (1.0 + min_gain) {
                    let value = trials[i].config.get(&key).cloned();
                    near.push((us, key, value));
                }
            }
        }
        if !changed && near.len() >= 2 {
            // Pairs of near misses, the fastest singles first.
            near.sort_by(|a, b| a.0.total_cmp(&b.0));
            near.truncate(PAIR_CANDIDATES);
            let base = trials[best].config.clone();
            let base_us = trials[best].outcome.us().unwrap_or(f64::INFINITY);
            let mut pairs = Vec::new();
            for a in 0..near.len() {
                for b in a + 1..near.len() {
                    let mut c = base.clone();
                    for (_, k, v) in [&near[a], &near[b]] {
                        set_knob(&mut c, k.clone(), v.clone());
                    }
                    pairs.push(c);
                }
            }
            if let Some((i, us)) = fastest_of(pairs, &base, &mut trials) {
                if us < base_us * (1.0 - min_gain) {
                    best = i;
                    changed = true;
                }
            }
        }
        if !changed || trials.len() >= max_trials {
            break;
        }
    }
    Search { trials, best, rounds }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A synthetic cost: threads=512 and rows-in-flight=2 are best together, and
    /// threads=1024 does not compile.
    fn cost(c: &Config) -> Outcome {
        let get = |k: &str| c.get(&("lower-loop-to-gpu".to_string(), k.to_string())).map(String::as_str);
        let mut t = 100.0;
        match get("threads") {
            Some("512") => t -= 10.0,
            Some("1024") => return Outcome::Failed("too many threads".into()),
            _ => {}
        }
        if get("rows-in-flight") == Some("2") {
            t -= if get("threads") == Some("512") { 15.0 } else { 0.5 };
        }
        Outcome::Time(t)
    }

    #[test]
    fn finds_the_joint_optimum_and_skips_noise() {
        let ks = knobs(&["lower-loop-to-gpu"], 132);
        let mut seen = 0;
        let s = coordinate_descent(&Config::new(), &ks, &[], 3, 0.01, 1000, &mut |c, _| cost(c), &mut |_, n| seen = n);
        assert_eq!(describe(s.best_config()), "rows-in-flight=2 threads=512");
        assert_eq!((s.best_us(), s.untuned_us()), (75.0, 100.0));
        assert_eq!(seen, s.trials.len());
        assert!(s.trials.iter().any(|t| matches!(t.outcome, Outcome::Failed(_))));
        // A gain under min_gain does not move the search (rows-in-flight=2 alone: 0.5%).
        let only_rif = vec![ks[2].clone()];
        let s = coordinate_descent(&Config::new(), &only_rif, &[], 3, 0.01, 1000, &mut |c, _| cost(c), &mut |_, _| {});
        assert!(s.best_config().is_empty());
        // No configuration is measured twice, and max_trials is a cap.
        let s = coordinate_descent(&Config::new(), &ks, &[], 3, 0.01, 5, &mut |c, _| cost(c), &mut |_, _| {});
        assert_eq!(s.trials.len(), 5);
    }

    #[test]
    fn spilling_configurations_are_timed_but_never_kept() {
        // threads=512 is fastest but its kernels spill; rows-in-flight=2 is clean and gains 5%.
        let cost = |c: &Config, spills_untuned: bool| -> Outcome {
            let get = |k: &str| c.get(&("lower-loop-to-gpu".to_string(), k.to_string())).map(String::as_str);
            if get("threads") == Some("512") {
                return Outcome::Spilled { us: 80.0, bytes: 40, same_as: None };
            }
            if c.is_empty() && spills_untuned {
                return Outcome::Spilled { us: 100.0, bytes: 8, same_as: None };
            }
            Outcome::Time(if get("rows-in-flight") == Some("2") { 95.0 } else { 100.0 })
        };
        let ks = knobs(&["lower-loop-to-gpu"], 132);
        let s = coordinate_descent(&Config::new(), &ks, &[], 3, 0.01, 1000, &mut |c, _| cost(c, false), &mut |_, _| {});
        assert_eq!(describe(s.best_config()), "rows-in-flight=2");
        assert_eq!(s.best_us(), 95.0);
        let spilled = s.trials.iter().find(|t| matches!(t.outcome, Outcome::Spilled { .. })).expect("timed");
        assert_eq!((spilled.outcome.us(), spilled.outcome.measured_us()), (None, Some(80.0)));
        assert!(spilled.outcome.timed());
        // An untuned program that spills is the baseline's time, and any clean configuration
        // takes over from it (here the first knob's first value, as fast), then the descent
        // goes on to the gain.
        let s = coordinate_descent(&Config::new(), &ks, &[], 3, 0.01, 1000, &mut |c, _| cost(c, true), &mut |_, _| {});
        assert_eq!(s.untuned_us(), 100.0);
        assert!(s.best != 0 && s.trials[s.best].outcome == Outcome::Time(95.0), "{:?}", s.trials[s.best]);
        // Only spilling candidates: the untuned one stays the best, with its time.
        let only: Vec<Knob> = ks.iter().filter(|k| k.key == "threads").cloned().collect();
        let s = coordinate_descent(
            &Config::new(),
            &only,
            &[],
            2,
            0.01,
            1000,
            &mut |c, _| {
                if c.is_empty() {
                    Outcome::Time(100.0)
                } else {
                    Outcome::Spilled { us: 50.0, bytes: 4, same_as: None }
                }
            },
            &mut |_, _| {},
        );
        assert!(s.best_config().is_empty());
        assert_eq!(s.best_us(), 100.0);
    }

    #[test]
    fn pairs_of_near_misses_reach_a_joint_gain() {
        // partials=resident and interleave-splits=true gain 0.2% alone and 2% together.
        let cost = |c: &Config| -> Outcome {
            let fmr = c.get(&("fuse-mixed-reductions".to_string(), "partials".to_string())).map(String::as_str);
            let il = c.get(&("lower-loop-to-gpu".to_string(), "interleave-splits".to_string())).map(String::as_str);
            let (a, b) = (fmr == Some("resident"), il == Some("true"));
            Outcome::Time(match (a, b) {
                (true, true) => 98.0,
                (true, false) | (false, true) => 99.8,
                _ => 100.0,
            })
        };
        let ks: Vec<Knob> = knobs(&["fuse-mixed-reductions", "lower-loop-to-gpu"], 132)
            .into_iter()
            .filter(|k| k.key == "partials" || k.key == "interleave-splits")
            .collect();
        let s = coordinate_descent(&Config::new(), &ks, &[], 2, 0.01, 1000, &mut |c, _| cost(c), &mut |_, _| {});
        assert_eq!(describe(s.best_config()), "partials=resident interleave-splits=true");
        assert_eq!(s.best_us(), 98.0);
        // A trial cap still holds with the pairs.
        let s = coordinate_descent(&Config::new(), &ks, &[], 2, 0.01, 6, &mut |c, _| cost(c), &mut |_, _| {});
        assert!(s.trials.len() <= 6);
    }

    #[test]
    fn recipes_reach_a_bundle_no_single_knob_or_pair_does() {
        // threads-per-row=16, shared-accs=true and staged-rows=2 win only all three together
        // (LayerNorm backward at 576000 x 384 on the H200: 16 lanes alone lost 12%).
        let cost = |c: &Config| -> Outcome {
            let get = |k: &str| c.get(&("lower-loop-to-gpu".to_string(), k.to_string())).map(String::as_str);
            let n = [
                get("threads-per-row") == Some("16"),
                get("shared-accs") == Some("true"),
                get("staged-rows") == Some("2"),
            ]
            .iter()
            .filter(|&&b| b)
            .count();
            Outcome::Time(match n {
                3 => 96.0,
                0 => 100.0,
                _ => 105.0,
            })
        };
        let passes = ["fuse-mixed-reductions", "lower-loop-to-gpu"];
        let ks = knobs(&passes, 132);
        let rs = recipes(&passes, 132);
        let without = coordinate_descent(&Config::new(), &ks, &[], 2, 0.01, 1000, &mut |c, _| cost(c), &mut |_, _| {});
        assert_eq!(without.best_us(), 100.0);
        let with = coordinate_descent(&Config::new(), &ks, &rs, 2, 0.01, 1000, &mut |c, _| cost(c), &mut |_, _| {});
        assert_eq!(with.best_us(), 96.0);
        let best = with.best_config();
        assert_eq!(best.get(&("lower-loop-to-gpu".into(), "threads-per-row".into())).map(String::as_str), Some("16"));
        // Trials 1..=4 are the recipes, in order, on the untuned configuration.
        assert_eq!(with.trials[1].config, rs[0].apply(&Config::new()));
        // A recipe with a knob outside the tuned space is not tried.
        let only: Vec<Knob> =
            ks.iter().filter(|k| k.key == "threads-per-row" || k.key == "shared-accs").cloned().collect();
        assert!(rs.iter().all(|r| !r.within(&only)));
        let s = coordinate_descent(&Config::new(), &only, &rs, 1, 0.01, 1000, &mut |c, _| cost(c), &mut |_, _| {});
        assert_eq!(s.best_us(), 100.0);
        // Every recipe sets each of its knobs to one of that knob's own values (or a
        // device-relative split), so the descent can reach it from the recipe and back.
        for r in &rs {
            for ((p, k), v) in &r.values {
                let knob = ks.iter().find(|n| n.pass == *p && n.key == *k).expect("recipe knob in the space");
                assert!(knob.values.contains(v) || k.starts_with("partials"), "{}: {k}={v}", r.name);
            }
        }
        // Values are device-relative: the split an SM follows the SM count.
        assert!(recipes(&passes, 108).iter().any(|r| r.values.iter().any(|(_, v)| v == "108")));
        assert!(recipes(&["lower-loop-to-gpu"], 132).is_empty());
        // The cap holds.
        let s = coordinate_descent(&Config::new(), &ks, &rs, 2, 0.01, 3, &mut |c, _| cost(c), &mut |_, _| {});
        assert_eq!(s.trials.len(), 3);
    }

    #[test]
    fn warm_start_refines_a_cached_winner() {
        let ks = knobs(&["lower-loop-to-gpu"], 132);
        let mut start = Config::new();
        start.insert(("lower-loop-to-gpu".into(), "threads".into()), "512".into());
        let s = coordinate_descent(&start, &ks, &[], 1, 0.01, 1000, &mut |c, _| cost(c), &mut |_, _| {});
        // Trial 0 stays the untuned baseline, trial 1 is the start, and the descent goes on
        // from it to the joint optimum.
        assert!(s.trials[0].config.is_empty());
        assert_eq!(s.trials[1].config, start);
        assert_eq!(describe(s.best_config()), "rows-in-flight=2 threads=512");
        // The entry's option text round-trips through the configuration.
        let c = config_of_options(&options_by_pass(s.best_config())).expect("options");
        assert_eq!(&c, s.best_config());
        assert!(config_of_options(&[("lower-loop-to-gpu".to_string(), "threads=\"512".to_string())].into()).is_err());
    }

    #[test]
    fn options_text() {
        let mut c = Config::new();
        c.insert(("lower-loop-to-gpu".into(), "threads".into()), "512".into());
        c.insert(("lower-loop-to-gpu".into(), "min-ctas".into()), "none".into());
        c.insert(("fuse-mixed-reductions".into(), "splits".into()), "64".into());
        let o = options_by_pass(&c);
        assert_eq!(o["lower-loop-to-gpu"], "min-ctas=none threads=512");
        assert_eq!(o["fuse-mixed-reductions"], "splits=64");
        let g = knobs(&["lower-loop-to-gpu"], 100);
        assert_eq!(g.iter().find(|k| k.key == "grid").unwrap().values, vec!["100", "200", "400", "800"]);
        assert!(knobs(&["cse"], 132).is_empty());
    }
}
