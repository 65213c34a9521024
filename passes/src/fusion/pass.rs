//! `fuse-mixed-reductions`: the IR glue of the fusion search. It summarizes each function's
//! top-level `mloop` nests, runs [`super::search`], and rewrites the nests into the chosen
//! plan's kernels (docs/fusion.md, "Materialized form").
//!
//! **IR expected:** the output of `lower-tensor-to-loop` (docs/dialects/loop.md): at the top
//! level of each `func.func`, scalar and size ops, `mloop.alloc`/`constant_buffer`/`fill`,
//! `mloop.parallel` nests (pointwise nests, and reduction nests: a `parallel` over the kept dims
//! holding one `mloop.reduce`, an epilogue and a store), `mloop.dealloc`s and `func.return`.
//! Loop bounds start at 0 with step 1 and are defined at the function entry; buffer indices are
//! induction variables, constants or `min(iv, x)` clamps. A function of any other shape (a
//! top-level `mloop.reduce` or `mloop.for`, nested parallels, computed indices) is not searched:
//! its nests only get `morf.kernel` attributes, and the report says why.
//!
//! **Steps:**
//! 1. *Summarize* each nest as a [`NestInfo`]: kind, axes and the buffers read and written.
//!    Axes are classes of loop bounds: the same SSA value, equal constants, or `mloop.dim`s of
//!    arguments whose `morf.dims` name the same size (`dim %x, 0` and `dim %dy, 0` with `"M"`).
//!    A dynamic axis is sized by `size-hints` (by `morf.dims` name) or `default-hint`.
//! 2. *Search* with the options below; the stop reason is logged (`tracing::info!`). A search
//!    stopped by a limit (`max-iterations`, `max-nodes`, `time-limit-ms`) still applies the best
//!    plan found so far, and the pass warns at the first nest of the first group it stopped,
//!    naming the limit, its value and the option.
//! 3. *Materialize* the chosen plan: top-level allocs and fills move to the first nest and
//!    deallocs to the return; loop bounds of one axis become one value; each `partial` is made
//!    by `loop-partial-accumulate`; kernels are put in plan order; same-domain members are fused
//!    as `loop-fuse` does; a row-fused kernel moves its pointwise members and partials into an
//!    inner `mloop.parallel` in the row loop of its row reductions, where loads of a row
//!    result at the row's index become the stored scalar, and a temporary that nothing reads
//!    any more loses its store, alloc and dealloc. Every kernel gets `morf.kernel`
//!    (`{kind = "pointwise" | "reduction" | "row-fused" | "final", style, split}`). When the
//!    chosen plan is the unfused one, only the attributes are added.
//!
//! **Options:** `device=...` (`Device::parse`: `sms=108,bandwidth=2e12`), `max-iterations`
//! (32), `max-nodes` (20000), `time-limit-ms` (5000; a safety net), `splits=16,32,64` (split
//! sizes tried), `size-hints=M=576000,N=384`, `default-hint` (4096), `recompute-producers`
//! (true: a row reduction may recompute a materialized pointwise producer, which then joins the
//! row kernel), `report` (print the search report to stderr), `dump-egraph=FILE.dot` (write the
//! e-graphs as Graphviz).
//!
//! **Example** (RMSNorm backward, `size-hints=M=576000,N=384`): three nests (the row reduction
//! `c`, the column reduction `dw`, the pointwise `dx`) become
//!
//! ```text
//! %W = mloop.alloc(%ns, %n) : !mloop.buffer<?x?xf32>
//! mloop.fill %zero, %W : !mloop.buffer<?x?xf32>
//! mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
//!   %r = mloop.reduce sum (%k) = (%c0) to (%n) step (%c1) init(%zero) : f32 { ... }
//!   %c = mloop.div %r, %nf : f32
//!   mloop.parallel (%j) = (%c0) to (%n) step (%c1) {
//!     ... dx[i, j] from x, dy, w, rstd and %c ...
//!     %s = mloop.div %i, %c64 : index
//!     mloop.accumulate sum %g, %W[%s, %j] : !mloop.buffer<?x?xf32>
//!     mloop.yield
//!   }
//!   mloop.yield
//! } {morf.kernel = {kind = "row-fused", split = 64 : i64, style = "persistent"}}
//! mloop.parallel (%j) = (%c0) to (%n) step (%c1) {
//!   %p = mloop.reduce sum (%s) = (%c0) to (%ns) step (%c1) init(%zero) : f32 { W[%s, %j] }
//!   ... downcast, store dw[%j] ...
//! } {morf.kernel = {kind = "final", split = 64 : i64}}
//! mloop.dealloc %W : !mloop.buffer<?x?xf32>
//! ```

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use morf_ir::builtin::{op_error, CallOp, ReturnOp};
use morf_ir::pass::{Pass, PassInfo, PassOptionInfo, PassOptions, PassResult};
use morf_ir::{AttrData, BlockId, Context, Diagnostic, FloatKind, OpId, TypeData, Value, ValueDef};
use morf_loop::buffer_parts;
use morf_loop::ops::{
    AccumulateOp, AllocOp, ConstantBufferOp, DeallocOp, DimOp, FillOp, ForOp, LoadOp, MinOp, ParallelOp, ReduceOp,
    StoreOp, YieldOp,
};
use petgraph::graph::NodeIndex;

use super::{
    search, Access, Axis, Combiner, Device, Extents, Kernel, NestInfo, NestKind, Plan, RowStyle, SearchConfig,
};
use crate::transforms::loop_fuse::fuse;
use crate::transforms::loop_partial_accumulate::{
    collapse_parallel_dims, partial_accumulate_with, resident_programs, SplitSize,
};
use crate::transforms::loop_utils::{
    body_block, const_int, loop_parts, same_index, target_functions, terminator, written_buffers,
};

/// The registry entry of `fuse-mixed-reductions`.
pub fn info() -> PassInfo {
    PassInfo {
        name: "fuse-mixed-reductions",
        description: "fuse reductions over different axes that share inputs (e-graph search, cost model)",
        options: OPTIONS,
        create: |o| Ok(Box::new(FuseMixedReductions::from_options(o)?)),
    }
}

/// The same pass with `report` forced on (`morf-opt --fusion-report`).
pub fn info_with_report() -> PassInfo {
    PassInfo {
        create: |o| {
            let mut p = FuseMixedReductions::from_options(o)?;
            p.report = true;
            Ok(Box::new(p))
        },
        ..info()
    }
}

const OPTIONS: &[PassOptionInfo] = &[
    PassOptionInfo { key: "device", help: "device overrides (sms=108,bandwidth=2e12,...) over the H200", default: "" },
    PassOptionInfo { key: "max-iterations", help: "e-graph rewrite iterations per group", default: "32" },
    PassOptionInfo { key: "max-nodes", help: "e-nodes per group", default: "20000" },
    PassOptionInfo { key: "time-limit-ms", help: "search time limit per group (a safety net)", default: "5000" },
    PassOptionInfo {
        key: "splits",
        help: "split sizes (rows per partial program) to try; when given, no sizes are derived",
        default: "16,32,64,128,256",
    },
    PassOptionInfo { key: "size-hints", help: "sizes of dynamic dims by morf.dims name: M=576000,N=384", default: "" },
    PassOptionInfo { key: "default-hint", help: "size assumed for a dynamic dim without a hint", default: "4096" },
    PassOptionInfo {
        key: "hint-spans",
        help: "dynamic dims whose size may exceed its hint up to a factor (a shape bucket: M=2 for M in [hint, 2 x hint)): the plan is chosen to hold up over that range",
        default: "",
    },
    PassOptionInfo {
        key: "recompute-producers",
        help: "let a row reduction recompute a materialized pointwise producer so it joins the row kernel",
        default: "true",
    },
    PassOptionInfo {
        key: "partials",
        help: "split decoupled from the size: the column reductions partialed inside row-fused kernels take at most this many partials, each ceil(rows / partials) rows at run time, in place of the chosen plan's fixed split; 'resident' (or 'resident*R'): as many partials as (R times) the row kernel's CTAs the device holds at once, asked at run time (0: the fixed split)",
        default: "0",
    },
    PassOptionInfo { key: "report", help: "print the search report to stderr", default: "false" },
    PassOptionInfo { key: "dump-egraph", help: "write the e-graphs as Graphviz to this file", default: "" },
];

/// The fuse-mixed-reductions pass.
#[derive(Debug, Clone)]
pub struct FuseMixedReductions {
    /// The device of the cost model.
    pub device: Device,
    /// The device option text, for `options_text`.
    pub device_text: String,
    /// Search limits and knobs.
    pub cfg: SearchConfig,
    /// Sizes of dynamic dims by `morf.dims` name.
    pub size_hints: BTreeMap<String, u64>,
    /// The size of a dynamic dim without a hint.
    pub default_hint: u64,
    /// Dynamic dims (by `morf.dims` name) whose size may exceed its hint, up to this factor.
    pub hint_spans: BTreeMap<String, u64>,
    /// A split sized at run time for the column reductions partialed in a row-fused kernel:
    /// at most K partials ([`SplitSize::Partials`]) or as many as the kernel's resident CTAs
    /// ([`SplitSize::Resident`]); `None`: the chosen plan's fixed split.
    pub partials: Option<SplitSize>,
    /// Print the report to stderr.
    pub report: bool,
    /// Write the e-graphs here.
    pub dump_egraph: Option<String>,
}

impl Default for FuseMixedReductions {
    fn default() -> Self {
        FuseMixedReductions {
            device: Device::h200(),
            device_text: String::new(),
            cfg: SearchConfig::default(),
            size_hints: BTreeMap::new(),
            default_hint: 4096,
            hint_spans: BTreeMap::new(),
            partials: None,
            report: false,
            dump_egraph: None,
        }
    }
}

impl FuseMixedReductions {
    /// Reads the options.
    pub fn from_options(o: &PassOptions) -> Result<Self, String> {
        let mut p = FuseMixedReductions::default();
        p.device_text = o.string("device", "");
        p.device = Device::parse(&p.device_text)?;
        p.cfg.iter_limit = o.usize("max-iterations", 32)?;
        p.cfg.node_limit = o.usize("max-nodes", 20_000)?;
        p.cfg.time_limit = Duration::from_millis(o.usize("time-limit-ms", 5000)? as u64);
        if let Some(s) = o.get("splits") {
            let splits: Result<Vec<u64>, _> =
                s.split(',').map(str::trim).filter(|x| !x.is_empty()).map(str::parse::<u64>).collect();
            let splits = splits.map_err(|_| format!("option 'splits' expects a list of sizes, got '{s}'"))?;
            if splits.contains(&0) {
                return Err("option 'splits' sizes must be at least 1".into());
            }
            p.cfg.splits = splits;
            // Sizes given explicitly are the only ones tried.
            p.cfg.derived_splits = false;
        }
        // A zero hint would make every cost vanish; hints are at least 1.
        p.size_hints = o.named_sizes("size-hints")?.into_iter().map(|(k, v)| (k, v.max(1))).collect();
        p.default_hint = o.usize("default-hint", 4096)?.max(1) as u64;
        p.hint_spans = o.named_sizes("hint-spans")?;
        if let Some((k, _)) = p.hint_spans.iter().find(|(_, f)| **f < 1) {
            return Err(format!("option 'hint-spans': the factor of '{k}' must be at least 1"));
        }
        p.partials = SplitSize::parse_partials(&o.string("partials", "0"), u64::from(p.device.sms.max(1)))?;
        p.report = o.bool("report", false)?;
        p.cfg.recompute_producers = o.bool("recompute-producers", true)?;
        p.dump_egraph = o.get("dump-egraph").filter(|s| !s.is_empty()).map(str::to_string);
        Ok(p)
    }
}

impl Pass for FuseMixedReductions {
    fn name(&self) -> &'static str {
        "fuse-mixed-reductions"
    }

    fn options_text(&self) -> String {
        let hints: Vec<String> = self.size_hints.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let splits: Vec<String> = self.cfg.splits.iter().map(u64::to_string).collect();
        let spans: Vec<String> = self.hint_spans.iter().map(|(k, v)| format!("{k}={v}")).collect();
        format!(
            "default-hint={} device={} dump-egraph={} hint-spans={} max-iterations={} max-nodes={} partials={} recompute-producers={} report={} size-hints={} splits={} time-limit-ms={}",
            self.default_hint,
            self.device_text,
            self.dump_egraph.as_deref().map(|p| morf_ir::pass::quote_option_value(p).unwrap_or_default()).unwrap_or_default(),
            spans.join(","),
            self.cfg.iter_limit,
            self.cfg.node_limit,
            SplitSize::partials_text(self.partials),
            self.cfg.recompute_producers,
            self.report,
            hints.join(","),
            splits.join(","),
            self.cfg.time_limit.as_millis()
        )
    }

    fn run(&mut self, ctx: &mut Context, root: OpId) -> PassResult {
        let mut dot = String::new();
        for f in target_functions(ctx, root, "fuse-mixed-reductions")? {
            self.run_function(ctx, f, &mut dot)?;
        }
        if let Some(path) = &self.dump_egraph {
            morf_ir::io::write_atomic(std::path::Path::new(path), dot.as_bytes())
                .map_err(|e| op_error(ctx, root, format!("cannot write the e-graph to '{path}': {e}")))?;
        }
        Ok(())
    }
}

/// The symbolic size of a loop bound, used to group bounds into axes.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum SizeKey {
    Const(i64),
    Name(String),
    Value(Value),
}

/// A function summarized for the search.
struct Summary {
    nests: Vec<OpId>,
    infos: Vec<NestInfo>,
    extents: Extents,
    /// Per axis: the first upper bound seen (all bounds of the axis are replaced by it).
    axis_rep: Vec<Value>,
    /// Upper bound value -> axis.
    axis_of_ub: HashMap<Value, Axis>,
    /// The buffers (by id) the function returns.
    outputs: std::collections::BTreeSet<usize>,
    /// The dynamic axes with a `hint-spans` factor above 1.
    hint_spans: Vec<(crate::fusion::Axis, u64, String)>,
}

impl FuseMixedReductions {
    fn run_function(&self, ctx: &mut Context, f: OpId, dot: &mut String) -> PassResult {
        let fname = morf_ir::builtin::symbol_name(ctx, f).unwrap_or("?").to_string();
        let summary = match self.summarize(ctx, f) {
            Ok(s) => s,
            Err(why) => {
                tracing::info!(function = %fname, reason = %why, "fuse-mixed-reductions: not searched");
                if self.report {
                    morf_ir::io::eprint_lossy(&format!("fuse-mixed-reductions: @{fname}: not searched: {why}"));
                }
                for n in all_top_level_loops(ctx, f) {
                    let kind = if contains_reduce(ctx, n) { "reduction" } else { "pointwise" };
                    set_kernel_attr(ctx, n, kind, None, None);
                }
                return Ok(());
            }
        };
        let t0 = std::time::Instant::now();
        // The dynamic-size sweep only feeds the report text.
        // The report and the e-graph dump are rendered only when asked for.
        let cfg = SearchConfig {
            sweep_dynamic: self.cfg.sweep_dynamic && self.report,
            report: self.report,
            dot: self.dump_egraph.is_some(),
            outputs: summary.outputs.clone(),
            hint_spans: summary.hint_spans.clone(),
            run_time_split: self.partials,
            ..self.cfg.clone()
        };
        let res = search(&summary.infos, &summary.extents, &self.device, &cfg);
        let search_time = t0.elapsed();
        tracing::info!(
            function = %fname,
            stop_reason = %res.stop_reason,
            nodes = res.egraph_nodes,
            classes = res.egraph_classes,
            chosen = %res.chosen,
            search_ms = search_time.as_secs_f64() * 1e3,
            "fuse-mixed-reductions"
        );
        for note in res.groups.iter().filter_map(|g| g.span_note.as_deref()) {
            tracing::info!(function = %fname, note, "fuse-mixed-reductions: hint spans");
            if self.report {
                morf_ir::io::eprint_lossy(&format!("fuse-mixed-reductions: @{fname}: {note}"));
            }
        }
        if self.report {
            morf_ir::io::eprint_lossy(&format!("fuse-mixed-reductions: @{fname}: chosen plan: {}", res.chosen));
            morf_ir::io::eprint_lossy(&format!("{}\n", res.report));
        }
        // One warning per limit hit (at the first nest of the first group it stopped): the
        // chosen plan of such a group is the best one found so far, never a silent fallback.
        let mut hit: Vec<(&crate::fusion::SearchLimit, Vec<&crate::fusion::GroupResult>)> = Vec::new();
        for g in &res.groups {
            let Some(limit) = &g.limit else { continue };
            match hit.iter_mut().find(|(l, _)| *l == limit) {
                Some((_, gs)) => gs.push(g),
                None => hit.push((limit, vec![g])),
            }
        }
        for (limit, gs) in hit {
            // Nest ids are positions in `summary.nests`.
            let at = gs[0].nests.iter().min().and_then(|&i| summary.nests.get(i)).copied().unwrap_or(f);
            let fused = gs.iter().filter(|g| g.chosen.kernels.len() < g.nests.len() || g.chosen.partials() > 0).count();
            let what = if res.groups.len() == 1 {
                format!("the search of @{fname} ({} nests)", gs[0].nests.len())
            } else {
                format!("the search of {} of the {} nest groups of @{fname}", gs.len(), res.groups.len())
            };
            let msg = format!(
                "fuse-mixed-reductions: {what} stopped at {limit} before exploring every plan; the best plan \
                 found so far is used ({fused} of {} fused); raise the limit with the pass option '{}'",
                gs.len(),
                limit.option()
            );
            let loc = ctx.op_loc(at);
            ctx.emit(morf_ir::Diagnostic::warning(loc, msg));
        }
        dot.push_str(&format!("// @{fname}\n{}", res.dot));
        let unfused = Plan { kernels: (0..summary.nests.len()).map(Kernel::Nest).collect() };
        if res.chosen == unfused {
            for (i, &n) in summary.nests.iter().enumerate() {
                let kind = match summary.infos[i].kind {
                    NestKind::Pointwise { .. } => "pointwise",
                    NestKind::Reduction { .. } => "reduction",
                };
                set_kernel_attr(ctx, n, kind, None, None);
            }
            return Ok(());
        }
        // A split decoupled from the size: for the partials of row-fused kernels (the
        // persistent grid's CTAs then take one balanced split each); a partial of another
        // kernel keeps the plan's fixed split, and the report says so.
        let row_fused = res.chosen.row_fused_partials();
        let fixed = res.chosen.fixed_split_partials();
        let partials = if self.partials.is_none() || row_fused.is_empty() {
            if self.partials.is_some() && !fixed.is_empty() {
                let note = "partials ignored: no partial of the chosen plan runs in a kernel with a row reduction (rowfused), and the others (alone, or beside pointwise work in fused[..]) need a fixed split";
                tracing::info!(function = %fname, note, "fuse-mixed-reductions");
                if self.report {
                    morf_ir::io::eprint_lossy(&format!("fuse-mixed-reductions: @{fname}: {note}"));
                }
            }
            None
        } else {
            if self.report {
                let k = SplitSize::partials_text(self.partials);
                let by = match self.partials {
                    Some(SplitSize::Resident { multiple, assumed }) => format!(
                        "K) rows at run time (at least the plan's split), K = {multiple} x the row kernel's CTAs the device holds at once (asked at run time; {} before the GPU lowering binds it)",
                        multiple * assumed
                    ),
                    _ => format!("{k}) rows at run time"),
                };
                morf_ir::io::eprint_lossy(&format!(
                    "fuse-mixed-reductions: @{fname}: partials={k}: each column reduction's split in a row-fused kernel is ceil(rows / {by}, in place of the plan's fixed split\n"
                ));
                if !fixed.is_empty() {
                    morf_ir::io::eprint_lossy(&format!(
                        "fuse-mixed-reductions: @{fname}: note: {} partial(s) outside a row-fused kernel keep the plan's fixed split",
                        fixed.len()
                    ));
                }
                let kept = one_wave_nests(&summary, &res.chosen, self.partials);
                if let (false, Some(SplitSize::Resident { multiple, assumed })) = (kept.is_empty(), self.partials) {
                    morf_ir::io::eprint_lossy(&format!(
                        "fuse-mixed-reductions: @{fname}: note: {} partial(s) keep the plan's constant split: at the hinted size the plan has at most one wave of them ({multiple} x {assumed}), which the occupancy could not lengthen",
                        kept.len()
                    ));
                }
            }
            self.partials
        };
        // With the report: the schedule the cost model priced each kernel of the chosen plan
        // with, by kernel, for the kernels' `morf.kernel` attributes (`priced`; the lowering's
        // schedule report says where it differs).
        let priced: HashMap<String, String> = res
            .candidates
            .iter()
            .filter(|_| self.report)
            .find(|(p, _)| *p == res.chosen)
            .map(|(_, c)| c.kernels.iter().filter(|k| !k.schedule.is_empty()))
            .into_iter()
            .flatten()
            .map(|k| (k.label.clone(), k.schedule.clone()))
            .collect();
        materialize(ctx, f, &summary, &res.chosen, partials, &priced)
    }

    /// Summarizes the top-level nests of `f`, or says why the function is not searched.
    fn summarize(&self, ctx: &Context, f: OpId) -> Result<Summary, String> {
        let body = body_block(ctx, f).ok_or("the function has no body")?;
        let mut nests = Vec::new();
        for op in ctx.block_ops(body) {
            let buffer_op = ctx.isa::<DeallocOp>(op) || ctx.isa::<AllocOp>(op) || ctx.isa::<ConstantBufferOp>(op);
            if ctx.isa::<ParallelOp>(op) {
                nests.push(op);
            } else if ctx.isa::<ReturnOp>(op) || buffer_op {
                continue;
            } else if let Some(fill) = ctx.dyn_cast::<FillOp>(op) {
                let b = fill.buffer(ctx);
                let fresh = ctx.defining_op(b).is_some_and(|d| ctx.isa::<AllocOp>(d));
                let touched = nests.iter().any(|&n| uses_value_inside(ctx, n, b));
                if !fresh || touched {
                    return Err("an 'mloop.fill' of a buffer that a nest uses before it".into());
                }
            } else {
                let pure = ctx.op_info(op).is_some_and(|i| i.has(morf_ir::Traits::PURE));
                if !pure || !ctx.regions(op).is_empty() {
                    let name = ctx.op_name(op);
                    return Err(format!("a top-level '{name}' op (only 'mloop.parallel' nests are fused)"));
                }
            }
        }
        if nests.is_empty() {
            return Err("no loop nests".into());
        }
        let arg_dims = arg_dim_names(ctx, f);
        let mut keys: Vec<SizeKey> = Vec::new();
        let mut axis_rep: Vec<Value> = Vec::new();
        let mut axis_of_ub: HashMap<Value, Axis> = HashMap::new();
        let mut buffers: Vec<Value> = Vec::new();
        let mut infos = Vec::new();
        // Per buffer, the axes of the loops indexing all its dims exactly (no clamp, no constant).
        let mut exact: Vec<(usize, Vec<Axis>)> = Vec::new();
        for (id, &n) in nests.iter().enumerate() {
            let mut axis = |ctx: &Context, ub: Value| -> Result<Axis, String> {
                if let Some(&a) = axis_of_ub.get(&ub) {
                    return Ok(a);
                }
                if !defined_at_top(ctx, ub, body) {
                    return Err("a loop bound is not defined at the function entry".into());
                }
                let k = size_key(ctx, ub, &arg_dims);
                let a = match keys.iter().position(|x| *x == k) {
                    Some(i) => Axis(i),
                    None => {
                        keys.push(k);
                        axis_rep.push(ub);
                        Axis(keys.len() - 1)
                    }
                };
                axis_of_ub.insert(ub, a);
                Ok(a)
            };
            let p = loop_parts(ctx, n, false)?;
            check_unit(ctx, &p.lbs, &p.steps)?;
            // Each induction variable: its axis (size class) and its dimension in the nest's
            // iteration space (`Access::dims`), which tells apart loops of one size.
            let mut iv_axis: HashMap<Value, (Axis, usize)> = HashMap::new();
            let mut domain = Vec::new();
            for (iv, ub) in p.ivs.iter().zip(&p.ubs) {
                let a = axis(ctx, *ub)?;
                iv_axis.insert(*iv, (a, domain.len()));
                domain.push(a);
            }
            let direct: Vec<OpId> = ctx.block_ops(p.body).collect();
            let reduces: Vec<ReduceOp> = direct.iter().filter_map(|o| ctx.dyn_cast::<ReduceOp>(*o)).collect();
            let all = ctx.walk_collect(n);
            for &o in &all[1..] {
                let nested_loop = ctx.isa::<ParallelOp>(o)
                    || ctx.isa::<ForOp>(o)
                    || (ctx.isa::<ReduceOp>(o) && !reduces.iter().any(|r| r.id() == o));
                if nested_loop {
                    return Err(format!("nest {id} holds a nested '{}'", ctx.op_name(o)));
                }
                if ctx.isa::<FillOp>(o) || ctx.isa::<DeallocOp>(o) || ctx.isa::<AllocOp>(o) || ctx.isa::<CallOp>(o) {
                    return Err(format!("nest {id} holds an '{}'", ctx.op_name(o)));
                }
            }
            let kind = match reduces[..] {
                [] => NestKind::Pointwise { domain: domain.clone() },
                [red] => {
                    let r = red.id();
                    let rp = loop_parts(ctx, r, true)?;
                    check_unit(ctx, &rp.lbs, &rp.steps)?;
                    let mut reduced = Vec::new();
                    for (iv, ub) in rp.ivs.iter().zip(&rp.ubs) {
                        let a = axis(ctx, *ub)?;
                        iv_axis.insert(*iv, (a, domain.len() + reduced.len()));
                        reduced.push(a);
                    }
                    let combiner = match red.kind(ctx) {
                        Some("sum") => Combiner::Sum,
                        Some("prod") => Combiner::Prod,
                        Some("max") => Combiner::Max,
                        Some("min") => Combiner::Min,
                        other => Combiner::Other(other.unwrap_or("?").to_string()),
                    };
                    let after = direct.iter().skip_while(|o| **o != r).skip(1);
                    let epilogue_ops = after.filter(|o| !ctx.isa::<StoreOp>(**o) && !ctx.isa::<YieldOp>(**o)).count();
                    NestKind::Reduction { kept: domain.clone(), reduced, combiner, epilogue_ops }
                }
                _ => return Err(format!("nest {id} holds {} reductions", reduces.len())),
            };
            let mut reads: Vec<Access> = Vec::new();
            let mut writes: Vec<Access> = Vec::new();
            for &o in &all[1..] {
                let (buf, idx, write) = if let Some(l) = ctx.dyn_cast::<LoadOp>(o) {
                    (l.buffer(ctx), l.indices(ctx), false)
                } else if let Some(st) = ctx.dyn_cast::<StoreOp>(o) {
                    (st.buffer(ctx), st.indices(ctx), true)
                } else if let Some(acc) = ctx.dyn_cast::<AccumulateOp>(o) {
                    (acc.buffer(ctx), acc.indices(ctx), true)
                } else {
                    continue;
                };
                let mut axes = Vec::new();
                let mut dims = Vec::new();
                let mut all_ivs = true;
                for &v in idx {
                    all_ivs &= index_iv(ctx, v) == Some(v);
                    match index_iv(ctx, v) {
                        Some(iv) => match iv_axis.get(&iv) {
                            Some(&(a, d)) => {
                                axes.push(a);
                                dims.push(d);
                            }
                            None => return Err(format!("nest {id} indexes a buffer with a value of another loop")),
                        },
                        None if const_int(ctx, v).is_some() => {}
                        None if !ctx.is_ancestor(n, ctx.defining_op(v).unwrap_or(f)) => {}
                        None => return Err(format!("nest {id} indexes a buffer with a computed index")),
                    }
                }
                let b = match buffers.iter().position(|x| *x == buf) {
                    Some(i) => i,
                    None => {
                        buffers.push(buf);
                        buffers.len() - 1
                    }
                };
                let rank = buffer_parts(ctx, ctx.value_type(buf)).map(|(shape, _)| shape.len());
                if all_ivs && rank == Some(axes.len()) {
                    exact.push((b, axes.clone()));
                }
                let acc = Access { buffer: b, axes, elem_bytes: elem_bytes(ctx, buf), dims };
                let list = if write { &mut writes } else { &mut reads };
                if !list.contains(&acc) {
                    list.push(acc);
                }
            }
            let bname = |a: &Access| buffer_name(ctx, buffers[a.buffer], a.buffer);
            let rs: Vec<String> = reads.iter().map(bname).collect();
            let ws: Vec<String> = writes.iter().map(bname).collect();
            // The kind is prefixed once the axes are final (below).
            // Work per point: the innermost body (the reduce's, or the nest's), plus the loop.
            let inner = reduces.first().map(|r| r.id()).unwrap_or(n);
            let work = 1 + super::work_inside(ctx, inner);
            let exprs = expression_work(ctx, n, inner, &iv_axis);
            infos.push(NestInfo {
                id,
                name: format!(" of {} -> {}", rs.join(","), ws.join(",")),
                kind,
                reads,
                writes,
                work,
                exprs,
            });
        }
        let (keys, axis_rep, axis_of_ub) = unify_axes(&mut infos, &exact, keys, axis_rep, axis_of_ub);
        for n in &mut infos {
            let what = match &n.kind {
                NestKind::Pointwise { .. } => "pointwise".to_string(),
                NestKind::Reduction { combiner, reduced, .. } => {
                    let r: Vec<String> = reduced.iter().map(|a| format!("d{}", a.0)).collect();
                    format!("reduce {combiner} over [{}]", r.join(","))
                }
            };
            n.name = format!("{what}{}", n.name);
        }
        // The engine fuses adjacent kernels only, so each pointwise nest moves right after the
        // last nest it depends on (a legal program order): a column reduction lowered between
        // a row reduction and its row-wise consumer no longer separates them.
        let deps = super::deps::program_order_graph(&infos);
        let mut order: Vec<usize> = Vec::new();
        for (i, info) in infos.iter().enumerate() {
            let pos = if matches!(info.kind, NestKind::Pointwise { .. }) {
                let after = |j: usize| deps.contains_edge(NodeIndex::new(j), NodeIndex::new(i));
                order.iter().rposition(|&j| after(j)).map_or(0, |p| p + 1)
            } else {
                order.len()
            };
            order.insert(pos, i);
        }
        let nests: Vec<OpId> = order.iter().map(|&i| nests[i]).collect();
        let infos: Vec<NestInfo> = order
            .iter()
            .enumerate()
            .map(|(id, &i)| {
                let n = &infos[i];
                NestInfo { id, name: format!("nest{id}: {}", n.name), ..n.clone() }
            })
            .collect();
        let mut sizes = Vec::new();
        let mut hints = Vec::new();
        let mut hint_spans = Vec::new();
        for (axis, k) in keys.iter().enumerate() {
            if let SizeKey::Name(n) = k {
                if let Some(&f) = self.hint_spans.get(n).filter(|f| **f > 1) {
                    hint_spans.push((crate::fusion::Axis(axis), f, n.clone()));
                }
            }
            match k {
                SizeKey::Const(c) => {
                    sizes.push(Some((*c).max(0) as u64));
                    hints.push((*c).max(1) as u64);
                }
                SizeKey::Name(n) => {
                    sizes.push(None);
                    hints.push(self.size_hints.get(n).copied().unwrap_or(self.default_hint));
                }
                SizeKey::Value(_) => {
                    sizes.push(None);
                    hints.push(self.default_hint);
                }
            }
        }
        let extents = Extents { sizes, hints };
        // The cost model counts bytes in u64: keep every access far from overflowing.
        for n in &infos {
            for a in n.reads.iter().chain(&n.writes) {
                let numel = a.axes.iter().try_fold(1u64, |p, &x| p.checked_mul(extents.size(x)));
                if numel.is_none_or(|e| e > 1 << 48) {
                    return Err(format!("{} is too large for the cost model", n.name));
                }
            }
        }
        // Buffers the function returns reach memory even when a nest of the same kernel reads
        // them.
        let outputs = ctx
            .block_ops(body)
            .filter(|o| ctx.isa::<ReturnOp>(*o))
            .flat_map(|o| ctx.operands(o).to_vec())
            .filter_map(|v| buffers.iter().position(|b| *b == v))
            .collect();
        Ok(Summary { nests, infos, extents, axis_rep, axis_of_ub, outputs, hint_spans })
    }
}

/// `lb == 0` and `step == 1` on every dim.
fn check_unit(ctx: &Context, lbs: &[Value], steps: &[Value]) -> Result<(), String> {
    if lbs.iter().all(|v| const_int(ctx, *v) == Some(0)) && steps.iter().all(|v| const_int(ctx, *v) == Some(1)) {
        Ok(())
    } else {
        Err("a loop does not start at 0 with step 1".into())
    }
}

/// Whether `v` is a function argument or the result of a top-level op of `body`.
fn defined_at_top(ctx: &Context, v: Value, body: BlockId) -> bool {
    match ctx.value(v).def {
        ValueDef::OpResult { op, .. } => ctx.op_parent_block(op) == Some(body),
        ValueDef::BlockArg { block, .. } => block == body,
        ValueDef::Placeholder => false,
    }
}

/// `morf.dims` names of each argument (per dim, `None` when unnamed).
fn arg_dim_names(ctx: &Context, f: OpId) -> HashMap<Value, Vec<Option<String>>> {
    let mut out = HashMap::new();
    let Some(body) = body_block(ctx, f) else { return out };
    let attrs: Vec<morf_ir::Attr> =
        ctx.attr(f, "arg_attrs").and_then(|a| ctx.attr_array(a)).map(|a| a.to_vec()).unwrap_or_default();
    for (i, &arg) in ctx.block_args(body).iter().enumerate() {
        let Some(&d) = attrs.get(i) else { continue };
        let AttrData::Dict(entries) = ctx.attr_data(d) else { continue };
        let Some((_, dims)) = entries.iter().find(|(k, _)| ctx.str(*k) == "morf.dims") else { continue };
        let Some(items) = ctx.attr_array(*dims) else { continue };
        let names =
            items.iter().map(|x| ctx.attr_str(*x).filter(|s| !s.is_empty() && *s != "?").map(str::to_string)).collect();
        out.insert(arg, names);
    }
    out
}

/// Merges axes that index the same dimension of one buffer exactly (loop bounds of different
/// values, e.g. `dim %a, 0` and the size operand of a broadcast, that must be equal for the
/// program to be valid): the nests then share one axis whatever value each loop bound was
/// lowered from, which depends on the order of the statements. Axes with two different known
/// sizes (constants or `morf.dims` names) are never merged. The merged axis keeps the best known
/// size (a constant, else a name) and is renumbered in order of first use.
fn unify_axes(
    infos: &mut [NestInfo],
    exact: &[(usize, Vec<Axis>)],
    keys: Vec<SizeKey>,
    axis_rep: Vec<Value>,
    axis_of_ub: HashMap<Value, Axis>,
) -> (Vec<SizeKey>, Vec<Value>, HashMap<Value, Axis>) {
    let mut parent: Vec<usize> = (0..keys.len()).collect();
    fn root(p: &[usize], mut i: usize) -> usize {
        while p[i] != i {
            i = p[i];
        }
        i
    }
    // The best key of each class root: a constant, else a name, else none.
    let known = |k: &SizeKey| !matches!(k, SizeKey::Value(_));
    let mut first: HashMap<usize, &Vec<Axis>> = HashMap::new();
    for (b, axes) in exact {
        let Some(prev) = first.get(b).copied() else {
            first.insert(*b, axes);
            continue;
        };
        for (x, y) in prev.iter().zip(axes) {
            let (rx, ry) = (root(&parent, x.0), root(&parent, y.0));
            if rx == ry || (known(&keys[rx]) && known(&keys[ry])) {
                continue;
            }
            // The root with a known size (or the older axis) represents the class.
            let (keep, drop) = if known(&keys[ry]) || (!known(&keys[rx]) && ry < rx) { (ry, rx) } else { (rx, ry) };
            parent[drop] = keep;
        }
    }
    let mut new_id: Vec<Option<usize>> = vec![None; keys.len()];
    let (mut new_keys, mut new_rep) = (Vec::new(), Vec::new());
    for a in 0..keys.len() {
        let r = root(&parent, a);
        if new_id[r].is_none() {
            new_id[r] = Some(new_keys.len());
            new_keys.push(keys[r].clone());
            new_rep.push(axis_rep[r]);
        }
    }
    let map = |a: Axis| Axis(new_id[root(&parent, a.0)].expect("every root is numbered"));
    for n in infos.iter_mut() {
        match &mut n.kind {
            NestKind::Pointwise { domain } => domain.iter_mut().for_each(|a| *a = map(*a)),
            NestKind::Reduction { kept, reduced, .. } => {
                kept.iter_mut().chain(reduced.iter_mut()).for_each(|a| *a = map(*a))
            }
        }
        for acc in n.reads.iter_mut().chain(n.writes.iter_mut()) {
            acc.axes.iter_mut().for_each(|a| *a = map(*a));
        }
    }
    let axis_of_ub = axis_of_ub.into_iter().map(|(v, a)| (v, map(a))).collect();
    (new_keys, new_rep, axis_of_ub)
}

/// The size key of an index value: constants, `dim`s of named argument dims, `dim`s of
/// allocs (their size operand), else the value itself.
fn size_key(ctx: &Context, v: Value, names: &HashMap<Value, Vec<Option<String>>>) -> SizeKey {
    if let Some(c) = const_int(ctx, v) {
        return SizeKey::Const(c);
    }
    let Some(dim) = ctx.defining_op(v).and_then(|d| ctx.dyn_cast::<DimOp>(d)) else { return SizeKey::Value(v) };
    let b = dim.source(ctx);
    let (Some(k), Some((shape, _))) = (dim.index(ctx), buffer_parts(ctx, ctx.value_type(b))) else {
        return SizeKey::Value(v);
    };
    if k >= 0 {
        let k = k as usize;
        if let Some(morf_ir::Dim::Static(s)) = shape.get(k) {
            return SizeKey::Const(*s as i64);
        }
        if let Some(Some(n)) = names.get(&b).and_then(|ns| ns.get(k)) {
            return SizeKey::Name(n.clone());
        }
        if let Some(a) = ctx.defining_op(b).and_then(|a| ctx.dyn_cast::<AllocOp>(a)) {
            let dyn_pos = shape[..k].iter().filter(|d| matches!(d, morf_ir::Dim::Dynamic)).count();
            if let Some(&s) = a.sizes(ctx).get(dyn_pos) {
                return size_key(ctx, s, names);
            }
        }
    }
    SizeKey::Value(v)
}

/// The induction variable an index reads: `iv` itself or a clamp `min(iv, x)`.
fn index_iv(ctx: &Context, v: Value) -> Option<Value> {
    match ctx.value(v).def {
        ValueDef::BlockArg { .. } => Some(v),
        ValueDef::OpResult { op, .. } if ctx.isa::<MinOp>(op) => {
            let a = MinOp(op).lhs(ctx);
            matches!(ctx.value(a).def, ValueDef::BlockArg { .. }).then_some(a)
        }
        _ => None,
    }
}

/// Bytes per element of a buffer.
fn elem_bytes(ctx: &Context, buf: Value) -> u32 {
    let Some((_, elem)) = buffer_parts(ctx, ctx.value_type(buf)) else { return 4 };
    match ctx.type_data(elem) {
        TypeData::Float(FloatKind::F16 | FloatKind::BF16) => 2,
        TypeData::Float(FloatKind::F64) => 8,
        TypeData::Integer(w) => w.div_ceil(8).max(1),
        _ => 4,
    }
}

/// `x` for a named value, else `t<id>`.
fn buffer_name(ctx: &Context, v: Value, id: usize) -> String {
    match ctx.value(v).name {
        Some(n) => ctx.str(n).to_string(),
        None => format!("t{id}"),
    }
}

/// Whether some op nested in `op` uses `v`.
fn uses_value_inside(ctx: &Context, op: OpId, v: Value) -> bool {
    ctx.uses(v).iter().any(|u| ctx.is_ancestor(op, u.op))
}

fn contains_reduce(ctx: &Context, op: OpId) -> bool {
    ctx.walk_collect(op).iter().any(|o| ctx.isa::<ReduceOp>(*o))
}

/// Top-level `parallel`, `for` and `reduce` ops of `f`.
fn all_top_level_loops(ctx: &Context, f: OpId) -> Vec<OpId> {
    match body_block(ctx, f) {
        Some(b) => ctx
            .block_ops(b)
            .filter(|o| ctx.isa::<ParallelOp>(*o) || ctx.isa::<ForOp>(*o) || ctx.isa::<ReduceOp>(*o))
            .collect(),
        None => Vec::new(),
    }
}

/// The nests whose partials keep the plan's constant split under `partials=resident` though
/// they run in a row-fused kernel: those with at most `assumed x multiple` partials at the
/// hinted size (one wave), where the occupancy could not lengthen the split
/// (`cost::run_time_splits` prices them so).
fn one_wave_nests(s: &Summary, plan: &Plan, partials: Option<SplitSize>) -> std::collections::HashSet<usize> {
    let row_fused = plan.row_fused_partials();
    plan.kernels
        .iter()
        .flat_map(|k| k.parts())
        .filter_map(|p| match (p, partials) {
            (Kernel::Partial { nest, split }, Some(size)) if row_fused.contains(nest) => {
                let rows = match &s.infos[*nest].kind {
                    NestKind::Reduction { reduced, .. } => s.extents.numel(reduced),
                    NestKind::Pointwise { .. } => 0,
                };
                size.keeps_constant_split(rows, *split).then_some(*nest)
            }
            _ => None,
        })
        .collect()
}

/// A kernel's split in its `morf.kernel` attribute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SplitAttr {
    /// `split = S`: a fixed number of rows per partial.
    Rows(u64),
    /// `partials = K` (or `"resident"`, `"resident*R"`): a split sized at run time
    /// ([`SplitSize::Partials`], [`SplitSize::Resident`]).
    Partials(SplitSize),
}

/// Sets `morf.kernel = {kind, style?, split? | partials?}` on `op`.
fn set_kernel_attr(ctx: &mut Context, op: OpId, kind: &str, style: Option<RowStyle>, split: Option<SplitAttr>) {
    set_kernel_attr_priced(ctx, op, kind, style, split, None);
}

/// [`set_kernel_attr`], with `priced = "..."`: the schedule of `lower-loop-to-gpu`'s heuristic
/// the cost model priced the kernel with (`KernelCost::schedule`), which the lowering compares
/// with the schedule it takes.
fn set_kernel_attr_priced(
    ctx: &mut Context,
    op: OpId,
    kind: &str,
    style: Option<RowStyle>,
    split: Option<SplitAttr>,
    priced: Option<&String>,
) {
    let mut entries = vec![(ctx.sym("kind"), ctx.str_attr(kind))];
    if let Some(p) = priced {
        entries.push((ctx.sym("priced"), ctx.str_attr(p)));
    }
    if let Some(s) = style {
        let t = match s {
            RowStyle::Persistent => "persistent",
            RowStyle::Looped => "looped",
        };
        entries.push((ctx.sym("style"), ctx.str_attr(t)));
    }
    match split {
        Some(SplitAttr::Rows(s)) => entries.push((ctx.sym("split"), ctx.i64_attr(s as i64))),
        Some(SplitAttr::Partials(SplitSize::Partials(k))) => {
            entries.push((ctx.sym("partials"), ctx.i64_attr(k as i64)))
        }
        Some(SplitAttr::Partials(k)) => {
            let t = ctx.str_attr(&SplitSize::partials_text(Some(k)));
            entries.push((ctx.sym("partials"), t))
        }
        None => {}
    }
    let d = ctx.dict_attr(entries);
    ctx.set_attr(op, "morf.kernel", d);
}

/// Moves every top-level op other than nests, deallocs and the return before the first nest,
/// and every dealloc before the return (allocs, fills and sizes have no dependence on the
/// nests; freeing later is always legal).
fn normalize_top_level(ctx: &mut Context, body: BlockId) {
    let ops: Vec<OpId> = ctx.block_ops(body).collect();
    let Some(&first) = ops.iter().find(|o| ctx.isa::<ParallelOp>(**o)) else { return };
    let ret = terminator(ctx, body);
    let mut seen_first = false;
    for &o in &ops {
        if o == first {
            seen_first = true;
            continue;
        }
        if ctx.isa::<ParallelOp>(o) || ctx.isa::<ReturnOp>(o) {
            continue;
        }
        if ctx.isa::<DeallocOp>(o) {
            ctx.move_op_before(o, ret);
        } else if seen_first {
            ctx.move_op_before(o, first);
        }
    }
}

/// Rewrites `f` into `plan`'s kernels; with `partials`, every partial of a row-fused kernel
/// takes at most that many splits, sized at run time ([`SplitSize::Partials`]).
fn materialize(
    ctx: &mut Context,
    f: OpId,
    s: &Summary,
    plan: &Plan,
    partials: Option<SplitSize>,
    priced: &HashMap<String, String>,
) -> PassResult {
    let body = body_block(ctx, f).expect("summarized");
    normalize_top_level(ctx, body);
    // One value per axis for every loop bound, so that same-domain checks are identity.
    for &n in &s.nests {
        for o in ctx.walk_collect(n) {
            let nb = if let Some(par) = ctx.dyn_cast::<ParallelOp>(o) {
                par.bounds(ctx).len()
            } else if let Some(red) = ctx.dyn_cast::<ReduceOp>(o) {
                red.bounds_and_init(ctx).len() - 1
            } else {
                continue;
            };
            let k = nb / 3;
            for i in k..2 * k {
                let ub = ctx.operands(o)[i];
                if let Some(a) = s.axis_of_ub.get(&ub) {
                    let rep = s.axis_rep[a.0];
                    if rep != ub {
                        ctx.set_operand(o, i, rep);
                    }
                }
            }
        }
    }
    // Partials: each column reduction becomes a pointwise nest plus its final. The partials
    // of one kernel split by occupancy share one `mloop.resident_programs` (at the top of the
    // body), so that their splits are one value after CSE.
    //
    // An occupancy-sized split only lengthens the plan's (it is never shorter: more partials
    // than the plan's cost workspace traffic its model judged not worth it). Where the plan at
    // the hinted size has no more partials than `assumed x multiple` (one wave at one CTA per
    // SM: long rows, few of them), it could change nothing there, and the partial keeps the
    // plan's constant split (measured: a run-time split cost LayerNorm backward at
    // 4096 x 16384 5% with the same split, docs/perf.md, session 13). A partial outside a
    // row-fused kernel keeps it too (only the row kernel's persistent grid balances a split
    // sized at run time).
    let mut fixed_nests = one_wave_nests(s, plan, partials);
    if partials.is_some() {
        fixed_nests.extend(plan.fixed_split_partials());
    }
    let mut partial_op: HashMap<usize, OpId> = HashMap::new();
    for k in &plan.kernels {
        let mut programs = None;
        for p in k.parts() {
            if let Kernel::Partial { nest, split } = p {
                let size = match partials {
                    Some(SplitSize::Resident { .. }) if fixed_nests.contains(nest) => SplitSize::Points(*split),
                    Some(SplitSize::Resident { multiple, assumed }) => {
                        let first = ctx.block_ops(body).next().expect("a function body ends with a return");
                        let r = *programs.get_or_insert_with(|| resident_programs(ctx, first, assumed));
                        // Never shorter than the plan's split: more partials than the plan
                        // has cost workspace traffic its model judged not worth it (long rows).
                        SplitSize::Programs { multiple, programs: r, min_points: *split }
                    }
                    _ => partials.unwrap_or(SplitSize::Points(*split)),
                };
                let pw = partial_accumulate_with(ctx, s.nests[*nest], size)?;
                partial_op.insert(*nest, pw);
            }
        }
    }
    normalize_top_level(ctx, body);
    let op_of = |k: &Kernel| -> OpId {
        match k {
            Kernel::Nest(i) | Kernel::Final { nest: i, .. } => s.nests[*i],
            Kernel::Partial { nest, .. } => partial_op[nest],
            Kernel::Fused { .. } => unreachable!("members are never fused kernels"),
        }
    };
    // Kernels in plan order, before the first dealloc (or the return).
    let anchor = ctx
        .block_ops(body)
        .find(|o| ctx.isa::<DeallocOp>(*o) || ctx.isa::<ReturnOp>(*o))
        .expect("a function body ends with a return");
    for k in &plan.kernels {
        for p in k.parts() {
            ctx.move_op_before(op_of(p), anchor);
        }
    }
    for k in &plan.kernels {
        // The rows per partial program, when the kernel's partials or finals agree on it (the
        // finals of independent norms merged into one launch may differ; the attribute then
        // has none: the final-reduction lowering reads each reduction's own bounds).
        let splits: std::collections::BTreeSet<u64> = k
            .parts()
            .iter()
            .filter_map(|p| match p {
                Kernel::Partial { split, .. } | Kernel::Final { split, .. } => Some(*split),
                _ => None,
            })
            .collect();
        // The run-time split, unless every partial and final of the kernel keeps the plan's.
        let fixed = k.parts().iter().all(|p| match p {
            Kernel::Partial { nest, .. } | Kernel::Final { nest, .. } => fixed_nests.contains(nest),
            _ => true,
        });
        let partials = if fixed { None } else { partials };
        let split = match (splits.len(), partials) {
            (0, _) => None,
            (_, Some(k)) => Some(SplitAttr::Partials(k)),
            (1, None) => splits.first().copied().map(SplitAttr::Rows),
            _ => None,
        };
        let own = |split: u64| Some(partials.map_or(SplitAttr::Rows(split), SplitAttr::Partials));
        match k {
            Kernel::Nest(i) => {
                let kind = match s.infos[*i].kind {
                    NestKind::Pointwise { .. } => "pointwise",
                    NestKind::Reduction { .. } => "reduction",
                };
                set_kernel_attr(ctx, s.nests[*i], kind, None, None);
            }
            Kernel::Partial { nest, split } => set_kernel_attr_priced(
                ctx,
                partial_op[nest],
                "pointwise",
                None,
                own(*split),
                priced.get(&k.to_string()),
            ),
            Kernel::Final { nest, split } => set_kernel_attr(ctx, s.nests[*nest], "final", None, own(*split)),
            Kernel::Fused { members, style: None } => {
                let ops: Vec<OpId> = members.iter().map(op_of).collect();
                for &o in &ops[1..] {
                    fuse(ctx, ops[0], o, 0)?;
                }
                forward_stores(ctx, ops[0]);
                let kind = if members.iter().any(|m| matches!(m, Kernel::Final { .. })) {
                    "final"
                } else if members
                    .iter()
                    .any(|m| matches!(m, Kernel::Nest(i) if matches!(s.infos[*i].kind, NestKind::Reduction { .. })))
                {
                    "reduction"
                } else {
                    "pointwise"
                };
                set_kernel_attr_priced(ctx, ops[0], kind, None, split, priced.get(&k.to_string()));
            }
            Kernel::Fused { members, style: Some(style) } => {
                // Row reductions and per-row pointwise work (domain = the row loop's) share the
                // row loop; the rest (over the row's elements) goes into the inner loop.
                let per_row = |m: &Kernel| {
                    match m {
                    Kernel::Nest(i) => match &s.infos[*i].kind {
                        NestKind::Reduction { .. } => true,
                        NestKind::Pointwise { domain } => members.iter().any(|r| {
                            matches!(r, Kernel::Nest(j) if matches!(&s.infos[*j].kind, NestKind::Reduction { kept, .. } if kept == domain))
                        }),
                    },
                    _ => false,
                }
                };
                let rows: Vec<OpId> = members.iter().filter(|m| per_row(m)).map(op_of).collect();
                let rest: Vec<OpId> = members.iter().filter(|m| !per_row(m)).map(op_of).collect();
                let Some(&r) = rows.first() else {
                    return Err(op_error(ctx, f, format!("row kernel '{k}' has no row reduction")));
                };
                for &o in &rows[1..] {
                    fuse(ctx, r, o, 0)?;
                }
                if let Some(&p0) = rest.first() {
                    // The inner members go right after the row loop, in order: a producer
                    // that precedes the row reductions in program order (`producer-into-row`)
                    // is recomputed by them below, so it runs in the row's inner loop.
                    let mut after = ctx.next_op(r);
                    while let Some(a) = after.filter(|a| rest.contains(a)) {
                        after = ctx.next_op(a);
                    }
                    let after = after.expect("a function body ends with a return");
                    for &o in &rest {
                        ctx.move_op_before(o, after);
                    }
                    for &o in &rest[1..] {
                        fuse(ctx, p0, o, 0)?;
                    }
                    // Loads of what the inner members store at the same point become the
                    // stored values first, so a recomputed value reads only what is already
                    // in memory when the row's reductions run.
                    forward_stores(ctx, p0);
                    recompute_in_row(ctx, r, p0)?;
                    if let Some(name) = reads_inner_result(ctx, r, p0) {
                        return Err(op_error(
                            ctx,
                            r,
                            format!("row kernel '{k}': the row loop reads '{name}' before its inner loop writes it"),
                        ));
                    }
                    nest_into_row(ctx, r, p0)?;
                }
                forward_stores(ctx, r);
                // Rows over several kept dims become one flat row loop (the 1-D shape the
                // row-fused GPU mapping takes; partials W[flat(rows) div S, j] become W[r div S, j]).
                let r = collapse_parallel_dims(ctx, r)?;
                set_kernel_attr_priced(ctx, r, "row-fused", Some(*style), split, priced.get(&k.to_string()));
            }
        }
    }
    Ok(())
}

/// Moves the pointwise nest `p` (dims `[kept..., inner...]`) into the row loop `r` (dims
/// `[kept...]`), as an inner `mloop.parallel` over the remaining dims at the end of the row.
fn nest_into_row(ctx: &mut Context, r: OpId, p: OpId) -> Result<(), Diagnostic> {
    let err = |ctx: &Context, m: &str| op_error(ctx, p, format!("cannot be moved into the row loop: {m}"));
    let rp = loop_parts(ctx, r, false).map_err(|m| err(ctx, &m))?;
    let pp = loop_parts(ctx, p, false).map_err(|m| err(ctx, &m))?;
    let k = rp.ivs.len();
    if pp.ivs.len() <= k {
        return Err(err(ctx, "it has no dims beyond the row's"));
    }
    for d in 0..k {
        if !same_index(ctx, rp.ubs[d], pp.ubs[d]) {
            return Err(err(ctx, &format!("dimension {d} differs from the row loop's")));
        }
    }
    // A safety net behind the search's legality query (`rules::flows_at_fused_index`): `p` may
    // read what the row loop writes only at the row it is on. Any other index needs values
    // other rows compute, which a row kernel has not written yet: refuse instead of computing a
    // silently wrong result.
    let row_written: Vec<Value> = written_buffers(ctx, r);
    for o in ctx.walk_collect(p) {
        let Some(load) = ctx.dyn_cast::<LoadOp>(o).filter(|l| row_written.contains(&l.buffer(ctx))) else {
            continue;
        };
        let idx = load.indices(ctx);
        let at_row = idx.len() == k && idx.iter().zip(&pp.ivs[..k]).all(|(v, iv)| index_iv(ctx, *v) == Some(*iv));
        if !at_row {
            let name = buffer_name(ctx, load.buffer(ctx), 0);
            return Err(err(
                ctx,
                &format!("it reads '{name}', which the row loop writes, at an index other than the row's"),
            ));
        }
    }
    let loc = ctx.op_loc(p);
    let region = ctx.create_region();
    let block = ctx.create_block(region, &[]);
    for d in 0..k {
        ctx.replace_all_uses_with(pp.ivs[d], rp.ivs[d]);
    }
    for &iv in &pp.ivs[k..] {
        let d = ctx.value(iv).clone();
        let a = ctx.add_block_arg(block, d.ty, d.name, d.loc);
        ctx.replace_all_uses_with(iv, a);
    }
    let ops: Vec<OpId> = ctx.block_ops(pp.body).collect();
    for &o in &ops {
        ctx.detach_op(o);
        ctx.append_op(block, o);
    }
    let mut operands = Vec::new();
    for list in [&pp.lbs, &pp.ubs, &pp.steps] {
        operands.extend_from_slice(&list[k..]);
    }
    let inner = ctx.create_op(ParallelOp::state(loc, &operands).region(region));
    let rt = terminator(ctx, rp.body);
    ctx.insert_op_before(rt, inner);
    ctx.erase_op(p);
    Ok(())
}

/// Where the row loop `r` reads (inside its reductions) a buffer that the pointwise nest `p`
/// (dims `[rows..., cols...]`, about to become `r`'s inner loop) stores at its own point,
/// replaces the load by `p`'s computation of the stored value at the load's indices: the row
/// reduction recomputes a producer that the plan runs after it in the same row
/// (`producer-into-row`). `p`'s ops are pure (loads and scalar ops), so the value is the same.
fn recompute_in_row(ctx: &mut Context, r: OpId, p: OpId) -> Result<(), Diagnostic> {
    let err = |ctx: &Context, m: &str| op_error(ctx, p, format!("cannot be recomputed in the row loop: {m}"));
    let pp = loop_parts(ctx, p, false).map_err(|m| err(ctx, &m))?;
    let body_ops: Vec<OpId> = ctx.block_ops(pp.body).collect();
    // Buffer -> the value `p` stores at its own point (a buffer stored once, at the ivs).
    let mut stored: Vec<(Value, Value)> = Vec::new();
    for &o in &body_ops {
        let Some(st) = ctx.dyn_cast::<StoreOp>(o) else { continue };
        let at_point =
            st.indices(ctx).len() == pp.ivs.len() && st.indices(ctx).iter().zip(&pp.ivs).all(|(v, iv)| v == iv);
        let once = body_ops
            .iter()
            .filter(|x| ctx.dyn_cast::<StoreOp>(**x).is_some_and(|y| y.buffer(ctx) == st.buffer(ctx)))
            .count()
            == 1;
        if at_point && once {
            stored.push((st.buffer(ctx), st.value(ctx)));
        }
    }
    if stored.is_empty() {
        return Ok(());
    }
    let inner_stores: Vec<Value> = written_buffers(ctx, p);
    let rp = loop_parts(ctx, r, false).map_err(|m| err(ctx, &m))?;
    let reduces: Vec<OpId> = ctx.block_ops(rp.body).filter(|o| ctx.isa::<ReduceOp>(*o)).collect();
    for red in reduces {
        let red_ivs = loop_parts(ctx, red, true).map_err(|m| err(ctx, &m))?.ivs;
        // The point of the row: the row loop's ivs, then the reduction's.
        let point: Vec<Value> = rp.ivs.iter().chain(&red_ivs).copied().collect();
        for o in ctx.walk_collect(red) {
            let Some(load) = ctx.dyn_cast::<LoadOp>(o) else { continue };
            let Some(&(_, value)) = stored.iter().find(|(b, _)| *b == load.buffer(ctx)) else { continue };
            let idx = load.indices(ctx).to_vec();
            if idx != point || idx.len() != pp.ivs.len() {
                return Err(err(ctx, "the row loop reads its result at an index that is not a point of the row"));
            }
            // The ops of `p` that the stored value depends on, in order.
            let mut needed: Vec<Value> = vec![value];
            let mut slice: Vec<OpId> = Vec::new();
            for &b in body_ops.iter().rev() {
                if ctx.results(b).iter().any(|v| needed.contains(v)) {
                    if !ctx.regions(b).is_empty() || ctx.isa::<StoreOp>(b) || ctx.isa::<AccumulateOp>(b) {
                        return Err(err(ctx, &format!("its value depends on a '{}'", ctx.op_name(b))));
                    }
                    // A value the inner loop stores is not in memory yet when the row's
                    // reductions run.
                    let own = ctx.dyn_cast::<LoadOp>(b).is_some_and(|l| inner_stores.contains(&l.buffer(ctx)));
                    if own {
                        return Err(err(ctx, "its value depends on a buffer the row's inner loop writes"));
                    }
                    needed.extend(ctx.operands(b).iter().copied());
                    slice.push(b);
                }
            }
            slice.reverse();
            let mut map: HashMap<Value, Value> = pp.ivs.iter().copied().zip(idx.iter().copied()).collect();
            for b in slice {
                let c = ctx.clone_op(b, &mut map);
                ctx.insert_op_before(o, c);
            }
            let v = *map.get(&value).unwrap_or(&value);
            let res = load.value(ctx);
            ctx.replace_all_uses_with(res, v);
            ctx.erase_op(o);
        }
    }
    Ok(())
}

/// The name of a buffer that the inner nest `p` writes and the row loop `r` reads, if any.
fn reads_inner_result(ctx: &Context, r: OpId, p: OpId) -> Option<String> {
    let written: Vec<Value> = written_buffers(ctx, p);
    ctx.walk_collect(r).into_iter().find_map(|o| {
        let l = ctx.dyn_cast::<LoadOp>(o)?;
        written.contains(&l.buffer(ctx)).then(|| buffer_name(ctx, l.buffer(ctx), 0))
    })
}

/// In the body of `kernel`, replaces loads of a buffer at the indices of an earlier store in the
/// same block by the stored value, and erases temporaries nothing reads any more.
fn forward_stores(ctx: &mut Context, kernel: OpId) {
    let loops: Vec<OpId> = ctx.walk_collect(kernel).into_iter().filter(|o| ctx.isa::<ParallelOp>(*o)).collect();
    for l in loops {
        forward_in_body(ctx, l);
    }
}

/// [`forward_stores`] for the body block of one `mloop.parallel`.
fn forward_in_body(ctx: &mut Context, kernel: OpId) {
    let Ok(p) = loop_parts(ctx, kernel, false) else { return };
    let ops: Vec<OpId> = ctx.block_ops(p.body).collect();
    let mut temps = Vec::new();
    for (i, &st) in ops.iter().enumerate() {
        let Some(store) = Some(st).filter(|o| ctx.op_exists(*o)).and_then(|o| ctx.dyn_cast::<StoreOp>(o)) else {
            continue;
        };
        let (val, buf, idx) = (store.value(ctx), store.buffer(ctx), store.indices(ctx).to_vec());
        let stores_here = ops
            .iter()
            .filter(|o| ctx.op_exists(**o) && ctx.dyn_cast::<StoreOp>(**o).is_some_and(|s| s.buffer(ctx) == buf))
            .count();
        if stores_here != 1 {
            continue;
        }
        for &later in &ops[i + 1..] {
            if !ctx.op_exists(later) {
                continue;
            }
            for o in ctx.walk_collect(later) {
                let Some(load) = ctx.dyn_cast::<LoadOp>(o).filter(|l| l.buffer(ctx) == buf) else {
                    continue;
                };
                let lidx = load.indices(ctx).to_vec();
                let same = lidx.len() == idx.len()
                    && lidx.iter().zip(&idx).all(|(a, b)| {
                        same_index(ctx, *a, *b) || (index_iv(ctx, *a) == Some(*b) && index_iv(ctx, *b) == Some(*b))
                    });
                if same {
                    let res = load.value(ctx);
                    ctx.replace_all_uses_with(res, val);
                    ctx.erase_op(o);
                }
            }
        }
        temps.push((st, buf));
    }
    for (st, buf) in temps {
        let Some(alloc) = ctx.defining_op(buf).filter(|a| ctx.isa::<AllocOp>(*a)) else { continue };
        let only_store_and_dealloc = ctx.uses(buf).iter().all(|u| u.op == st || ctx.isa::<DeallocOp>(u.op));
        if !only_store_and_dealloc {
            continue;
        }
        let deallocs: Vec<OpId> = ctx.uses(buf).iter().map(|u| u.op).filter(|o| *o != st).collect();
        ctx.erase_op(st);
        for d in deallocs {
            ctx.erase_op(d);
        }
        ctx.erase_op(alloc);
    }
}

/// The costed ops of `inner`'s body (nest `n`'s innermost loop) as (structural hash, cost):
/// an op's hash covers its name, attributes and operands, recursively inside the nest, with
/// induction variables by axis and values from outside by identity, so that two nests that
/// compute the same expression of the same buffers (a softmax's `exp(x - max)` in its sum and
/// in its output) give it the same hash (`NestInfo::exprs`).
fn expression_work(ctx: &Context, n: OpId, inner: OpId, iv_axis: &HashMap<Value, (Axis, usize)>) -> Vec<(u64, u32)> {
    use std::hash::{Hash, Hasher};
    fn hash_value(
        ctx: &Context,
        n: OpId,
        v: Value,
        iv_axis: &HashMap<Value, (Axis, usize)>,
        memo: &mut HashMap<Value, u64>,
    ) -> u64 {
        if let Some(&h) = memo.get(&v) {
            return h;
        }
        let mut st = std::collections::hash_map::DefaultHasher::new();
        match ctx.defining_op(v) {
            Some(d) if ctx.is_ancestor(n, d) => {
                ctx.op_name(d).hash(&mut st);
                format!(
                    "{:?}",
                    ctx.attrs(d).iter().map(|(k, a)| (ctx.str(*k).to_string(), format!("{a:?}"))).collect::<Vec<_>>()
                )
                .hash(&mut st);
                for &o in ctx.operands(d) {
                    hash_value(ctx, n, o, iv_axis, memo).hash(&mut st);
                }
                ctx.results(d).iter().position(|&r| r == v).hash(&mut st);
            }
            _ => match iv_axis.get(&v) {
                Some(&(a, _)) => ("iv", a.0).hash(&mut st),
                None => ("outside", v).hash(&mut st),
            },
        }
        let h = st.finish();
        memo.insert(v, h);
        h
    }
    let mut memo = HashMap::new();
    let mut out = Vec::new();
    for o in ctx.walk_collect(inner).into_iter().skip(1) {
        let cost = super::work_of_op(ctx, o);
        if cost == 0 {
            continue;
        }
        let h = match ctx.results(o).first() {
            Some(&r) => hash_value(ctx, n, r, iv_axis, &mut memo),
            // Stores and accumulates: their own effect, never shared.
            None => {
                let mut st = std::collections::hash_map::DefaultHasher::new();
                ("effect", o).hash(&mut st);
                st.finish()
            }
        };
        out.push((h, cost));
    }
    out
}
