//! The search engine of `fuse-mixed-reductions`: which reductions over different axes
//! ("mixed-order reductions") should share a kernel, and how.
//!
//! The input is a summary of a function's loop nests ([`NestInfo`], program order); the output
//! is a [`Plan`]: kernels in execution order, each holding whole nests, *partials* (a column
//! reduction turned into a pointwise nest that folds `S` rows into an f32 workspace) and
//! *finals* (the small reduction of that workspace). The engine is independent of the IR: the
//! pass extracts the summaries from loop IR and materializes the chosen plan.
//!
//! Algorithm (details in `docs/fusion.md`):
//! 1. Split the nests into groups connected by shared buffers; each group is searched alone,
//!    which keeps every e-graph small (a function with 64 independent norms makes 64 tiny
//!    e-graphs, not one huge one). A small read-only input (a weight vector shared by norms)
//!    connects nothing: see [`groups`] (petgraph's `UnionFind`).
//! 2. Seed an e-graph with the unfused plan `(seq (nest 0) (seq (nest 1) ... end))`, in a
//!    topological order of the group's dependence graph ([`seed_order`]), and run the
//!    [`rules`] (rewrites over plans) under the limits of [`SearchConfig`].
//! 3. Extract the top plans with a DAG cost (a kernel shared by two alternatives is counted
//!    once per plan) from the [`cost`] model, then choose: the cheapest, unless a plan without
//!    partial accumulation is within `min_gain` of it (partials change the summation order and
//!    add a workspace; they must pay for themselves).
//! 4. Explain: the [`report`] lists the groups, the plans with their bytes and launches, the
//!    choice, why each pair of reductions was not fused, and for dynamic sizes which plan wins
//!    on which range.
//!
//! The dependence graphs between nests (producer -> consumer, and the program-order
//! dependences that fix a legal order) are petgraph graphs, built in [`deps`] and queried with
//! petgraph's algorithms.
//!
//! Assumption: a buffer that no nest of the function reads, or that the function returns
//! ([`SearchConfig::outputs`]), is an output; any other buffer written by
//! one nest and read by others is a temporary, which need not reach memory when its writer and
//! all its readers share a kernel.

pub mod analysis;
pub mod cost;
pub mod deps;
pub mod device;
pub mod lang;
pub mod pass;
pub mod report;
pub mod rules;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::time::{Duration, Instant};

use egg::{Runner, SimpleScheduler};
use petgraph::graph::NodeIndex;
use petgraph::unionfind::UnionFind;
use petgraph::Direction::Incoming;

pub use cost::{CostBreakdown, KernelCost};
pub use device::Device;

use analysis::{Ctx, PlanAnalysis};

/// A symbolic loop extent (`M`, `N`, ...): an index into [`Extents::sizes`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Axis(pub usize);

/// The combining operation of a reduction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Combiner {
    /// `+`
    Sum,
    /// `*`
    Prod,
    /// `max`
    Max,
    /// `min`
    Min,
    /// Anything else (argmax, a custom combiner): never split into partials.
    Other(String),
}

impl Combiner {
    /// Whether partial results can be combined in any grouping (associative and commutative).
    pub fn splittable(&self) -> bool {
        !matches!(self, Combiner::Other(_))
    }
}

impl fmt::Display for Combiner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Combiner::Sum => f.write_str("sum"),
            Combiner::Prod => f.write_str("prod"),
            Combiner::Max => f.write_str("max"),
            Combiner::Min => f.write_str("min"),
            Combiner::Other(s) => f.write_str(s),
        }
    }
}

/// One buffer access of a nest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Access {
    /// Buffer id: the same id is the same memory.
    pub buffer: usize,
    /// The loop axes that index it, in order: `x[i,j]` is `[M, N]`, `w[j]` is `[N]`.
    pub axes: Vec<Axis>,
    /// Bytes per element.
    pub elem_bytes: u32,
    /// For each entry of `axes`, the loop dimension that indexes it: its position in the nest's
    /// [`NestInfo::space`] (`domain`; `kept` then `reduced`). Axes are classes of *sizes*, so in a
    /// square nest `x[i, j]` and `x[j, i]` are both `[M, M]`, and `t[i]` and `t[j]` both `[M]`:
    /// only `dims` tell them apart, and legality depends on it (a consumer reading a producer's
    /// buffer at another loop's index needs values that other fused iterations write). Left
    /// empty, it is inferred as the first dimension of each axis, which is exact when the nest's
    /// axes are distinct.
    pub dims: Vec<usize>,
}

/// What a nest computes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NestKind {
    /// Elementwise over `domain`.
    Pointwise {
        /// The iteration space, outermost first.
        domain: Vec<Axis>,
    },
    /// A reduction: for each point of `kept`, combine over `reduced`.
    Reduction {
        /// The axes of the result.
        kept: Vec<Axis>,
        /// The axes combined away.
        reduced: Vec<Axis>,
        /// The combiner.
        combiner: Combiner,
        /// Scalar ops after the combine (mean division, downcast).
        epilogue_ops: usize,
    },
}

/// A loop nest, as the lowering summarizes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NestInfo {
    /// Its id; plans refer to nests by it.
    pub id: usize,
    /// A human-readable summary for reports, e.g. `nest0: reduce sum over [N] of x,dy,w,rstd`.
    pub name: String,
    /// What it computes.
    pub kind: NestKind,
    /// Buffers it reads.
    pub reads: Vec<Access>,
    /// Buffers it writes.
    pub writes: Vec<Access>,
    /// Estimated GPU instructions per point of its iteration space (the ops of its innermost
    /// body weighted by the length of their PTX sequences, [`work_of_op`]); 0 when unknown.
    pub work: u32,
    /// The costed ops of the innermost body as (structural hash, [`work_of_op`]): equal
    /// hashes in two nests of one row kernel are one computation after fusion (the lowering
    /// emits equal expressions once per row), which the cost model counts once.
    pub exprs: Vec<(u64, u32)>,
}

/// Estimated GPU instructions (per thread) of one op of a loop body: the accurate f32
/// sequences of the PTX emitter less what ptxas folds and overlaps (`exp` 8, `log` 18, `tanh`
/// 11, `erf` 11: about 0.63 of their SASS, 13, 28, 18 and 18 since 2026-12-02 (erf's without
/// the reciprocal), the ratio the earlier weights 14, 22, 14, 22 had to the longer
/// sequences), about 8 for an IEEE
/// `div`/`sqrt`, 1 otherwise (a load or store moves a vector of
/// several points, its address arithmetic shared). A float division by a per-row value (the
/// divisor defined outside the innermost loop, or loaded at indices defined outside it: a
/// row's reduction result once fused) costs 1: the GPU pipelines run
/// `invariant-divisor-to-reciprocal`, which makes it a multiplication.
pub fn work_of_op(ctx: &morf_ir::Context, op: morf_ir::OpId) -> u32 {
    if elementwise_div_by_row_value(ctx, op) {
        return 1;
    }
    work_of_op_as_written(ctx, op)
}

/// [`work_of_op`] summed over the ops nested in `op` (not `op` itself; 0 for an op without
/// regions): a loop's work per iteration of its innermost body.
pub fn work_inside(ctx: &morf_ir::Context, op: morf_ir::OpId) -> u32 {
    ctx.walk_collect(op).into_iter().skip(1).map(|o| work_of_op(ctx, o)).fold(0, u32::saturating_add)
}

/// Whether `op` is a float division whose divisor is a per-row value of its innermost loop
/// ([`work_of_op`]).
fn elementwise_div_by_row_value(ctx: &morf_ir::Context, op: morf_ir::OpId) -> bool {
    use crate::transforms::{invariant_divisor_to_reciprocal::float_division_in_loop, loop_utils::defined_outside};
    let Some((l, a, d)) = float_division_in_loop(ctx, op) else { return false };
    if defined_outside(ctx, a, l) {
        // Invariant altogether: the pass leaves it (hoisting is loop-invariant-code-motion's).
        return false;
    }
    if defined_outside(ctx, d, l) {
        return true;
    }
    // The loop's last (innermost) iv: a per-row load's access map does not depend on it.
    let Some(last) =
        ctx.regions(l).first().and_then(|r| ctx.entry_block(*r)).and_then(|b| ctx.block_args(b).last().copied())
    else {
        return false;
    };
    match ctx.defining_op(d) {
        Some(ld) if ctx.isa::<morf_loop::ops::LoadOp>(ld) => {
            morf_loop::access::AccessMap::of(ctx, ld).is_some_and(|m| !m.depends_on(last))
        }
        _ => false,
    }
}

fn work_of_op_as_written(ctx: &morf_ir::Context, op: morf_ir::OpId) -> u32 {
    use morf_ir::interfaces::{elementwise, BinaryFn, Elementwise, UnaryFn};
    match elementwise(ctx, op) {
        Some(Elementwise::Unary(f)) => match f {
            UnaryFn::Exp => 8,
            UnaryFn::Log => 18,
            UnaryFn::Tanh => 11,
            UnaryFn::Erf => 11,
            UnaryFn::Sqrt => 8,
            UnaryFn::Rsqrt => 2,
            _ => 1,
        },
        Some(Elementwise::Binary(BinaryFn::Div)) => 8,
        Some(Elementwise::Binary(BinaryFn::Pow)) => 4,
        Some(_) => 1,
        None if ctx.isa::<morf_loop::ops::LoadOp>(op)
            || ctx.isa::<morf_loop::ops::StoreOp>(op)
            || ctx.isa::<morf_loop::ops::AccumulateOp>(op) =>
        {
            1
        }
        None => 0,
    }
}

impl NestInfo {
    /// The iteration space, outermost first: `domain`, or `kept` then `reduced`. Positions in it
    /// are the dimensions of [`Access::dims`].
    pub fn space(&self) -> Vec<Axis> {
        match &self.kind {
            NestKind::Pointwise { domain } => domain.clone(),
            NestKind::Reduction { kept, reduced, .. } => kept.iter().chain(reduced).copied().collect(),
        }
    }

    /// `self` with the `dims` of every access filled in where they were left out (see
    /// [`Access::dims`]); an axis outside the space gets a dimension that matches nothing.
    pub fn with_dims(mut self) -> NestInfo {
        let space = self.space();
        for a in self.reads.iter_mut().chain(self.writes.iter_mut()) {
            if a.dims.len() != a.axes.len() {
                a.dims = a.axes.iter().map(|x| space.iter().position(|s| s == x).unwrap_or(usize::MAX)).collect();
            }
        }
        self
    }
}

/// Sizes of the symbolic extents.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Extents {
    /// Per axis id: the known size, or `None` when dynamic.
    pub sizes: Vec<Option<u64>>,
    /// Per axis id: the size assumed for a dynamic axis.
    pub hints: Vec<u64>,
}

impl Extents {
    /// All sizes static.
    pub fn fixed(sizes: &[u64]) -> Extents {
        Extents { sizes: sizes.iter().map(|&s| Some(s)).collect(), hints: sizes.to_vec() }
    }

    /// The size of `axis`: the static size, else the hint, else 1024.
    pub fn size(&self, axis: Axis) -> u64 {
        match self.sizes.get(axis.0).copied().flatten() {
            Some(s) => s,
            None => self.hints.get(axis.0).copied().unwrap_or(1024),
        }
    }

    /// The product of the sizes of `axes`.
    pub fn numel(&self, axes: &[Axis]) -> u64 {
        axes.iter().map(|&a| self.size(a)).product()
    }

    /// The dynamic axes.
    pub fn dynamic_axes(&self) -> Vec<Axis> {
        (0..self.sizes.len()).filter(|&i| self.sizes[i].is_none()).map(Axis).collect()
    }
}

/// How a fused row kernel holds its row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RowStyle {
    /// The whole row lives in registers; loaded data is never re-read.
    Persistent,
    /// The row is processed in chunks; the second pass re-reads it (from shared memory, L2 or DRAM).
    Looped,
}

/// One kernel of a plan.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kernel {
    /// A nest on its own.
    Nest(usize),
    /// Column reduction `nest` as a pointwise nest in row order: each program folds `split`
    /// rows into one f32 row of a `[ceil(rows/split), cols]` workspace.
    Partial {
        /// The column reduction.
        nest: usize,
        /// Rows per program.
        split: u64,
    },
    /// The reduction of `Partial { nest, split }`'s workspace, with the nest's epilogue.
    Final {
        /// The column reduction.
        nest: usize,
        /// Rows per program of the partial.
        split: u64,
    },
    /// Several kernels' work in one kernel, in order.
    Fused {
        /// The fused work (never itself a `Fused`).
        members: Vec<Kernel>,
        /// `Some` when a row reduction and its row-wise consumers share one program per row.
        style: Option<RowStyle>,
    },
}

impl Kernel {
    /// The unfused parts of this kernel: itself, or its members.
    pub fn parts(&self) -> &[Kernel] {
        match self {
            Kernel::Fused { members, .. } => members,
            k => std::slice::from_ref(k),
        }
    }

    /// The same kernel with the split of each partial and final of nest `n` at
    /// `split(n, current split)`.
    pub fn with_splits(&self, split: &dyn Fn(usize, u64) -> u64) -> Kernel {
        match self {
            Kernel::Partial { nest, split: s } => Kernel::Partial { nest: *nest, split: split(*nest, *s) },
            Kernel::Final { nest, split: s } => Kernel::Final { nest: *nest, split: split(*nest, *s) },
            Kernel::Fused { members, style } => {
                Kernel::Fused { members: members.iter().map(|m| m.with_splits(split)).collect(), style: *style }
            }
            k => k.clone(),
        }
    }

    /// The nests this kernel touches (wholly or in part), sorted.
    pub fn nests(&self) -> BTreeSet<usize> {
        self.parts()
            .iter()
            .map(|p| match p {
                Kernel::Nest(n) | Kernel::Partial { nest: n, .. } | Kernel::Final { nest: n, .. } => *n,
                Kernel::Fused { .. } => unreachable!("members are never fused kernels"),
            })
            .collect()
    }
}

impl fmt::Display for Kernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Kernel::Nest(n) => write!(f, "nest{n}"),
            Kernel::Partial { nest, split } => write!(f, "partial(nest{nest}, S={split})"),
            Kernel::Final { nest, split } => write!(f, "final(nest{nest}, S={split})"),
            Kernel::Fused { members, style } => {
                match style {
                    Some(RowStyle::Persistent) => f.write_str("rowfused.persistent[")?,
                    Some(RowStyle::Looped) => f.write_str("rowfused.looped[")?,
                    None => f.write_str("fused[")?,
                }
                for (i, m) in members.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" + ")?;
                    }
                    write!(f, "{m}")?;
                }
                f.write_str("]")
            }
        }
    }
}

/// Kernels in execution order.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Plan {
    /// The kernels, in execution order.
    pub kernels: Vec<Kernel>,
}

impl Plan {
    /// The same plan with every partial and final at split `split` (the rows per partial
    /// program only change the workspace's granularity, not what the plan computes).
    pub fn with_split(&self, split: u64) -> Plan {
        Plan { kernels: self.kernels.iter().map(|k| k.with_splits(&|_, _| split)).collect() }
    }

    /// The nests whose partial runs inside a row-fused kernel (`Fused` with a row style): the
    /// partials whose split the fusion pass's `partials` option sizes at run time (the row
    /// kernel's persistent grid takes one balanced split per CTA); any other partial keeps
    /// the plan's fixed split.
    pub fn row_fused_partials(&self) -> BTreeSet<usize> {
        self.kernels
            .iter()
            .filter(|k| matches!(k, Kernel::Fused { style: Some(_), .. }))
            .flat_map(|k| k.parts())
            .filter_map(|p| match p {
                Kernel::Partial { nest, .. } => Some(*nest),
                _ => None,
            })
            .collect()
    }

    /// The nests whose partial runs outside a row-fused kernel (on its own, or beside
    /// pointwise work): these keep the plan's fixed split.
    pub fn fixed_split_partials(&self) -> BTreeSet<usize> {
        let row_fused = self.row_fused_partials();
        self.kernels
            .iter()
            .flat_map(|k| k.parts())
            .filter_map(|p| match p {
                Kernel::Partial { nest, .. } if !row_fused.contains(nest) => Some(*nest),
                _ => None,
            })
            .collect()
    }

    /// Kernels holding a partial accumulation.
    pub fn partials(&self) -> usize {
        self.kernels.iter().flat_map(|k| k.parts()).filter(|p| matches!(p, Kernel::Partial { .. })).count()
    }

    /// Kernels in looped row style.
    pub fn looped(&self) -> usize {
        self.kernels.iter().filter(|k| matches!(k, Kernel::Fused { style: Some(RowStyle::Looped), .. })).count()
    }

    /// The plan with split sizes erased and kernels sorted: plans with equal shapes differ
    /// only in `S` or in the order of independent kernels.
    pub fn shape(&self) -> String {
        let mut ks: Vec<String> = self
            .kernels
            .iter()
            .map(|k| {
                let mut s = k.to_string();
                while let Some(i) = s.find("S=") {
                    let end = s[i + 2..].find(|c: char| !c.is_ascii_digit()).map_or(s.len(), |e| i + 2 + e);
                    s.replace_range(i..end, "S");
                }
                s
            })
            .collect();
        ks.sort();
        ks.join(" ; ")
    }
}

impl fmt::Display for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, k) in self.kernels.iter().enumerate() {
            if i > 0 {
                f.write_str(" ; ")?;
            }
            write!(f, "{k}")?;
        }
        Ok(())
    }
}

/// Limits and knobs of the search (builder style: `SearchConfig::default().with_node_limit(5000)`).
#[derive(Clone, Debug)]
pub struct SearchConfig {
    /// Rewrite iterations per group.
    pub iter_limit: usize,
    /// E-nodes per group.
    pub node_limit: usize,
    /// A safety net only; no result may depend on it.
    pub time_limit: Duration,
    /// Split sizes (rows per partial program) always tried.
    pub splits: Vec<u64>,
    /// Also try splits derived from the extents and the SM count (one and two waves, and
    /// Inductor's `clamp(last_pow2(M / (SMs*8)), 16, 128)`).
    pub derived_splits: bool,
    /// A partial with more programs than this is infeasible (the final reduction would be as
    /// large as the data it saves).
    pub max_splits: u64,
    /// Plans kept per e-class during extraction.
    pub top_k: usize,
    /// Plans listed in the result and the report.
    pub max_candidates: usize,
    /// A plan with partials must beat the best plan without them by this fraction ...
    pub min_gain_rel: f64,
    /// ... and by this many seconds; otherwise the plan without partials is chosen.
    pub min_gain_s: f64,
    /// Graphviz output stops after this many e-nodes.
    pub max_dot_nodes: usize,
    /// Sweep dynamic sizes to report crossovers.
    pub sweep_dynamic: bool,
    /// Render [`SearchResult::report`]. Rendering re-costs every extracted plan for each pair
    /// of reductions (and sweeps dynamic sizes), which costs as much as the search itself, so
    /// a caller that prints no report (the pass without `report`) turns it off; the text is
    /// then empty.
    pub report: bool,
    /// Render [`SearchResult::dot`] (empty when off).
    pub dot: bool,
    /// Let a row reduction recompute a pointwise producer whose output has a buffer (it is
    /// returned) so the producer joins the row kernel (`producer-into-row`). Each element of
    /// the producer is then computed twice (in the reduction and in the row's inner loop): off,
    /// such a producer stays a kernel of its own (with the column partials it can take).
    pub recompute_producers: bool,
    /// The buffers (by [`Access::buffer`] id) the function returns: written to memory by
    /// the kernel that writes them even when every nest that reads them is in that kernel.
    pub outputs: BTreeSet<usize>,
    /// Dynamic axes whose size may exceed its hint, up to the factor given (a shape bucket:
    /// `M` in `[hint, 2 x hint)` compiled once): the plan is chosen to hold up over the range,
    /// not only at the hint (`robust_choice`). Empty: the hints are the sizes.
    pub hint_spans: Vec<(Axis, u64, String)>,
    /// How the fusion pass sizes the splits of the partials in row-fused kernels at run time
    /// (its `partials` option; `None`: every split is the plan's). The model prices those
    /// partials, their finals and their workspaces at the split they run at
    /// ([`cost::run_time_splits`]).
    pub run_time_split: Option<crate::transforms::loop_partial_accumulate::SplitSize>,
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            iter_limit: 32,
            node_limit: 20_000,
            time_limit: Duration::from_secs(5),
            splits: vec![16, 32, 64, 128, 256],
            derived_splits: true,
            max_splits: 16_384,
            top_k: 64,
            max_candidates: 12,
            min_gain_rel: 0.02,
            min_gain_s: 0.1e-6,
            max_dot_nodes: 400,
            sweep_dynamic: true,
            report: true,
            dot: true,
            recompute_producers: true,
            outputs: BTreeSet::new(),
            hint_spans: Vec::new(),
            run_time_split: None,
        }
    }
}

macro_rules! setter {
    ($(#[$doc:meta] $name:ident: $field:ident: $ty:ty),* $(,)?) => {
        impl SearchConfig {
            $(#[$doc] pub fn $name(mut self, v: $ty) -> Self { self.$field = v; self })*
        }
    };
}

setter! {
    /// Sets [`SearchConfig::iter_limit`].
    with_iter_limit: iter_limit: usize,
    /// Sets [`SearchConfig::node_limit`].
    with_node_limit: node_limit: usize,
    /// Sets [`SearchConfig::time_limit`].
    with_time_limit: time_limit: Duration,
    /// Sets [`SearchConfig::splits`].
    with_splits: splits: Vec<u64>,
    /// Sets [`SearchConfig::derived_splits`].
    with_derived_splits: derived_splits: bool,
    /// Sets [`SearchConfig::max_splits`].
    with_max_splits: max_splits: u64,
    /// Sets [`SearchConfig::top_k`].
    with_top_k: top_k: usize,
    /// Sets [`SearchConfig::max_candidates`].
    with_max_candidates: max_candidates: usize,
    /// Sets [`SearchConfig::min_gain_rel`].
    with_min_gain_rel: min_gain_rel: f64,
    /// Sets [`SearchConfig::min_gain_s`].
    with_min_gain_s: min_gain_s: f64,
    /// Sets [`SearchConfig::max_dot_nodes`].
    with_max_dot_nodes: max_dot_nodes: usize,
    /// Sets [`SearchConfig::sweep_dynamic`].
    with_sweep_dynamic: sweep_dynamic: bool,
    /// Sets [`SearchConfig::report`].
    with_report: report: bool,
    /// Sets [`SearchConfig::dot`].
    with_dot: dot: bool,
    /// Sets [`SearchConfig::recompute_producers`].
    with_recompute_producers: recompute_producers: bool,
    /// Sets [`SearchConfig::run_time_split`].
    with_run_time_split: run_time_split: Option<crate::transforms::loop_partial_accumulate::SplitSize>,
}

/// The search result of one group of nests connected by shared buffers.
#[derive(Clone, Debug)]
pub struct GroupResult {
    /// Nest ids of the group, program order.
    pub nests: Vec<usize>,
    /// The chosen plan of the group.
    pub chosen: Plan,
    /// Distinct plan shapes, cheapest first, with their costs (the unfused plan always included).
    pub candidates: Vec<(Plan, CostBreakdown)>,
    /// Every extracted plan (all split sizes), for sweeps.
    pub all_plans: Vec<Plan>,
    /// Why the runner stopped.
    pub stop_reason: String,
    /// The search limit that stopped the runner before saturation, if any: the chosen plan is
    /// then the best one found so far (the pass warns, naming the option that raises it).
    pub limit: Option<SearchLimit>,
    /// E-nodes.
    pub egraph_nodes: usize,
    /// E-classes.
    pub egraph_classes: usize,
    /// Rewrite iterations.
    pub iterations: usize,
    /// With [`SearchConfig::hint_spans`]: how the chosen plan holds up over the sizes the
    /// program serves, and which plan the hint alone would have chosen when that differs.
    pub span_note: Option<String>,
}

/// A search limit that stopped a group's runner before the e-graph saturated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SearchLimit {
    /// [`SearchConfig::iter_limit`] (pass option `max-iterations`).
    Iterations(usize),
    /// [`SearchConfig::node_limit`] (pass option `max-nodes`).
    Nodes(usize),
    /// [`SearchConfig::time_limit`] (pass option `time-limit-ms`), in milliseconds.
    TimeMs(u128),
}

impl SearchLimit {
    /// The pass option that raises the limit.
    pub fn option(&self) -> &'static str {
        match self {
            SearchLimit::Iterations(_) => "max-iterations",
            SearchLimit::Nodes(_) => "max-nodes",
            SearchLimit::TimeMs(_) => "time-limit-ms",
        }
    }
}

impl fmt::Display for SearchLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SearchLimit::Iterations(n) => write!(f, "the iteration limit ({n} iterations)"),
            SearchLimit::Nodes(n) => write!(f, "the e-node limit ({n} e-nodes)"),
            SearchLimit::TimeMs(t) => write!(f, "the time limit ({t} ms)"),
        }
    }
}

/// What [`search`] returns.
#[derive(Clone, Debug)]
pub struct SearchResult {
    /// The plan of the whole function: the groups' chosen plans, ordered by first nest, with
    /// independent finals over the same columns merged ([`merge_independent_finals`]).
    pub chosen: Plan,
    /// With one group, its candidates; with several, the chosen and the unfused function plans.
    pub candidates: Vec<(Plan, CostBreakdown)>,
    /// The runners' stop reasons (one line when all groups agree).
    pub stop_reason: String,
    /// E-nodes, summed over groups.
    pub egraph_nodes: usize,
    /// E-classes, summed over groups.
    pub egraph_classes: usize,
    /// Rewrite iterations, the most over groups.
    pub iterations: usize,
    /// The `--fusion-report` text (empty unless [`SearchConfig::report`]).
    pub report: String,
    /// Graphviz of the e-graphs, at most `max_dot_nodes` e-nodes (empty unless
    /// [`SearchConfig::dot`]).
    pub dot: String,
    /// Per-group detail.
    pub groups: Vec<GroupResult>,
}

/// Splits `nests` into groups connected by shared buffers (program order inside a group,
/// groups ordered by their first nest).
///
/// A *small shared input* connects nothing: a buffer that no nest writes and that every nest
/// reading it reads over fewer axes than its iteration space (a weight vector `w[N]` read by
/// nests over `M x N`). Nests that share only such buffers have no dependence between them,
/// and fusing them saves at most one read of the small buffer, so they are searched apart:
/// 64 norms sharing one weight make 64 small e-graphs instead of one that grows with the
/// product of their plans (and stops at the node limit).
pub fn groups(nests: &[NestInfo]) -> Vec<Vec<usize>> {
    let mut sets: UnionFind<usize> = UnionFind::new(nests.len());
    let written: BTreeSet<usize> = nests.iter().flat_map(|n| n.writes.iter().map(|a| a.buffer)).collect();
    let mut large: BTreeSet<usize> = written.clone();
    for n in nests {
        let rank = n.space().len();
        large.extend(n.reads.iter().filter(|a| a.axes.len() >= rank).map(|a| a.buffer));
    }
    // Each nest joins the first nest that touched the same large buffer.
    let mut owner: BTreeMap<usize, usize> = BTreeMap::new();
    for (i, n) in nests.iter().enumerate() {
        for a in n.reads.iter().chain(&n.writes).filter(|a| large.contains(&a.buffer)) {
            let j = *owner.entry(a.buffer).or_insert(i);
            sets.union(i, j);
        }
    }
    // Groups in order of their first nest, each in program order.
    let mut group_of: BTreeMap<usize, usize> = BTreeMap::new();
    let mut out: Vec<Vec<usize>> = Vec::new();
    for (i, set) in sets.into_labeling().into_iter().enumerate() {
        let g = *group_of.entry(set).or_insert_with(|| {
            out.push(Vec::new());
            out.len() - 1
        });
        out[g].push(i);
    }
    out
}

/// Searches the fusion space of `nests` and returns the chosen plan with its explanation.
pub fn search(nests: &[NestInfo], extents: &Extents, device: &Device, cfg: &SearchConfig) -> SearchResult {
    let start = Instant::now();
    let mut results = Vec::new();
    let mut dot = if cfg.dot { String::from("digraph fusion {\n  compound=true;\n") } else { String::new() };
    let mut dot_budget = cfg.max_dot_nodes;
    for (gi, group) in groups(nests).into_iter().enumerate() {
        let (res, egraph) = search_group(&group, nests, extents, device, cfg);
        tracing::info!(
            group = gi,
            nests = ?res.nests,
            stop_reason = %res.stop_reason,
            nodes = res.egraph_nodes,
            classes = res.egraph_classes,
            iterations = res.iterations,
            chosen = %res.chosen,
            "fuse-mixed-reductions search"
        );
        if cfg.dot {
            report::dot_group(&mut dot, gi, &egraph, &mut dot_budget);
        }
        results.push(res);
    }
    if cfg.dot {
        dot.push_str("}\n");
    }
    let elapsed = start.elapsed();

    let mut unfused = Plan::default();
    for g in &results {
        unfused.kernels.extend(g.nests.iter().map(|&i| Kernel::Nest(nests[i].id)));
    }
    let ctx = Ctx::new(nests.to_vec(), nests, extents.clone(), device.clone(), cfg.clone());
    let group_plans: Vec<&Plan> = results.iter().map(|g| &g.chosen).collect();
    let (chosen, merged) = merge_independent_finals(&group_plans, &ctx);
    let candidates = if results.len() == 1 {
        results[0].candidates.clone()
    } else {
        let mut c = vec![(chosen.clone(), cost::plan_cost(&chosen, &ctx))];
        if unfused != chosen {
            c.push((unfused.clone(), cost::plan_cost(&unfused, &ctx)));
        }
        c
    };
    let reasons: BTreeSet<&str> = results.iter().map(|g| g.stop_reason.as_str()).collect();
    let stop_reason = reasons.into_iter().collect::<Vec<_>>().join("; ");
    let egraph_nodes = results.iter().map(|g| g.egraph_nodes).sum();
    let egraph_classes = results.iter().map(|g| g.egraph_classes).sum();
    let iterations = results.iter().map(|g| g.iterations).max().unwrap_or(0);
    let mut report =
        if cfg.report { report::render(nests, extents, device, cfg, &results, elapsed) } else { String::new() };
    if cfg.report && !merged.is_empty() {
        report.push_str(&report::merged_finals(&merged, &ctx));
    }
    SearchResult {
        chosen,
        candidates,
        stop_reason,
        egraph_nodes,
        egraph_classes,
        iterations,
        report,
        dot,
        groups: results,
    }
}

/// The final-reduction kernels of different groups merged into one launch by
/// [`merge_independent_finals`]: the merged kernel and the kernels it replaces.
pub type MergedFinals = Vec<(Kernel, Vec<Kernel>)>;

/// The function's plan from the groups' chosen plans (groups in order), with the final
/// reductions of different groups over the same columns merged into one kernel.
///
/// Groups share no written buffer, so their kernels may interleave in any order that keeps
/// each group's own order. The first final kernel of each group (a `final`, alone or with its
/// sibling finals and epilogues: [`Shape::Final`](analysis::Shape::Final)) is bucketed by its
/// columns; a bucket of finals from two or more groups becomes one kernel (members in program
/// order) when the cost model prices it at most the sum of the separate finals (it saves the
/// launches). The plan is then: every group's kernels before its merged final, the merged
/// finals, every group's kernels after it. 64 independent norms make 64 row kernels and one
/// final instead of 64 finals. Without a bucket to merge, the plan is the groups' plans in
/// order. Returns the plan and the merges done.
pub fn merge_independent_finals(group_plans: &[&Plan], ctx: &Ctx) -> (Plan, MergedFinals) {
    // Per bucket of columns: (group, position of its first final kernel).
    let mut buckets: BTreeMap<Vec<Axis>, Vec<(usize, usize)>> = BTreeMap::new();
    for (g, plan) in group_plans.iter().enumerate() {
        let first = plan.kernels.iter().enumerate().find_map(|(i, k)| match ctx.kernel_data(k.clone()).shape {
            analysis::Shape::Final { domain } => Some((i, domain)),
            _ => None,
        });
        if let Some((i, domain)) = first {
            buckets.entry(domain).or_default().push((g, i));
        }
    }
    let mut at: BTreeMap<usize, usize> = BTreeMap::new();
    let mut merged: MergedFinals = Vec::new();
    for finals in buckets.into_values().filter(|f| f.len() >= 2) {
        let parts: Vec<Kernel> = finals.iter().map(|&(g, i)| group_plans[g].kernels[i].clone()).collect();
        let mut members: Vec<Kernel> = parts.iter().flat_map(|k| k.parts().iter().cloned()).collect();
        members.sort_by_key(|m| m.nests().first().copied());
        let kernel = Kernel::Fused { members, style: None };
        let separate: f64 = parts.iter().map(|k| cost::kernel_cost(k, ctx).time_s).sum();
        if cost::kernel_cost(&kernel, ctx).time_s <= separate {
            at.extend(finals.iter().copied());
            merged.push((kernel, parts));
        }
    }
    let mut plan = Plan::default();
    for (g, p) in group_plans.iter().enumerate() {
        let end = at.get(&g).copied().unwrap_or(p.kernels.len());
        plan.kernels.extend(p.kernels[..end].iter().cloned());
    }
    plan.kernels.extend(merged.iter().map(|(k, _)| k.clone()));
    for (g, p) in group_plans.iter().enumerate() {
        if let Some(&i) = at.get(&g) {
            plan.kernels.extend(p.kernels[i + 1..].iter().cloned());
        }
    }
    (plan, merged)
}

/// A canonical order of a group for seeding the e-graph: a topological order of its
/// dependences that does not depend on the order of independent statements. The rules fuse
/// adjacent kernels and move only partials (earlier), so the seed decides what can meet:
/// among the nests ready to run, a nest that consumes the nest just placed comes first (an
/// epilogue or a row consumer next to its producer), column reductions come last (their
/// partials are hoisted to the row kernels they join, and their finals end up adjacent), then
/// a structural key (what a nest is and how it indexes its buffers, never ids); program order
/// only breaks ties between nests the key cannot tell apart.
///
/// `group` holds positions in `all` (program order); so does the result.
pub fn seed_order(group: &[usize], all: &[NestInfo], ctx: &Ctx) -> Vec<usize> {
    let n = group.len();
    let nest = |g: usize| &all[group[g]];
    let writes = |g: usize| nest(g).writes.iter().map(|a| a.buffer).collect::<BTreeSet<usize>>();
    let reads = |g: usize| nest(g).reads.iter().map(|a| a.buffer).collect::<BTreeSet<usize>>();
    let (w, r): (Vec<_>, Vec<_>) = (0..n).map(|g| (writes(g), reads(g))).unzip();
    // Node g is nest(g); a -> b: b reads what a writes, or overwrites what a reads or writes.
    let deps = deps::program_order_graph((0..n).map(nest));
    // Kahn's algorithm, choosing among the ready nests by the priority above (petgraph's
    // `toposort` fixes its own order).
    let mut preds: Vec<usize> = deps.node_indices().map(|v| deps.neighbors_directed(v, Incoming).count()).collect();
    let keys: Vec<String> = (0..n).map(|g| structural_key(nest(g), &w, &r, g)).collect();
    let column: Vec<bool> = (0..n).map(|g| ctx.is_outer_reduction(nest(g).id)).collect();
    let mut ready: Vec<usize> = (0..n).filter(|&g| preds[g] == 0).collect();
    let mut order = Vec::with_capacity(n);
    let mut last: Option<usize> = None;
    while !ready.is_empty() {
        let consumes_last = |g: usize| last.is_some_and(|l| !w[l].is_disjoint(&r[g]));
        let (pos, &g) = ready
            .iter()
            .enumerate()
            .min_by(|(_, &x), (_, &y)| {
                column[x]
                    .cmp(&column[y])
                    .then(consumes_last(y).cmp(&consumes_last(x)))
                    .then_with(|| keys[x].cmp(&keys[y]))
                    .then(x.cmp(&y))
            })
            .expect("ready is not empty");
        ready.swap_remove(pos);
        order.push(group[g]);
        last = Some(g);
        for s in deps.neighbors(NodeIndex::new(g)) {
            preds[s.index()] -= 1;
            if preds[s.index()] == 0 {
                ready.push(s.index());
            }
        }
    }
    debug_assert_eq!(order.len(), n, "dependences among nests in program order form no cycle");
    order
}

/// What nest `g` is and how it touches its buffers, without ids: the tie-break of
/// [`seed_order`]. `w`/`r`: the buffers each nest of the group writes/reads.
fn structural_key(n: &NestInfo, w: &[BTreeSet<usize>], r: &[BTreeSet<usize>], g: usize) -> String {
    let kind = match &n.kind {
        NestKind::Reduction { kept, reduced, combiner, epilogue_ops } => {
            format!("0 reduce {combiner} k{} r{} e{epilogue_ops}", kept.len(), reduced.len())
        }
        NestKind::Pointwise { domain } => format!("1 pointwise {}", domain.len()),
    };
    let access = |a: &Access, produced: bool| format!("{:?}{:?}{}{}", a.dims, a.axes.len(), a.elem_bytes, produced);
    let mut ins: Vec<String> =
        n.reads.iter().map(|a| access(a, w.iter().enumerate().any(|(o, s)| o != g && s.contains(&a.buffer)))).collect();
    let mut outs: Vec<String> = n
        .writes
        .iter()
        .map(|a| access(a, r.iter().enumerate().any(|(o, s)| o != g && s.contains(&a.buffer))))
        .collect();
    ins.sort();
    outs.sort();
    format!("{kind} in {} out {}", ins.join(","), outs.join(","))
}

/// Renames the nest ids of a plan.
fn rename_plan(plan: &Plan, to: &dyn Fn(usize) -> usize) -> Plan {
    fn kernel(k: &Kernel, to: &dyn Fn(usize) -> usize) -> Kernel {
        match k {
            Kernel::Nest(n) => Kernel::Nest(to(*n)),
            Kernel::Partial { nest, split } => Kernel::Partial { nest: to(*nest), split: *split },
            Kernel::Final { nest, split } => Kernel::Final { nest: to(*nest), split: *split },
            Kernel::Fused { members, style } => {
                Kernel::Fused { members: members.iter().map(|m| kernel(m, to)).collect(), style: *style }
            }
        }
    }
    Plan { kernels: plan.kernels.iter().map(|k| kernel(k, to)).collect() }
}

/// Runs the e-graph search on one group (`group`: positions in `all`, program order).
///
/// The search runs on a renamed copy of the function: the group's nests get ids `0..k` in
/// [`seed_order`] and the other nests ids from `k` on, so that nothing in the search (the seed,
/// the order of fused members, the printed plans that break cost ties) depends on the order of
/// independent statements. The plans are renamed back before they are returned.
fn search_group(
    group: &[usize],
    all: &[NestInfo],
    extents: &Extents,
    device: &Device,
    cfg: &SearchConfig,
) -> (GroupResult, egg::EGraph<lang::PlanLang, PlanAnalysis>) {
    let ids: Vec<usize> = group.iter().map(|&i| all[i].id).collect();
    let program_ctx =
        Ctx::new(group.iter().map(|&i| all[i].clone()).collect(), all, extents.clone(), device.clone(), cfg.clone());
    let order = seed_order(group, all, &program_ctx);
    // Position in `all` -> search id, and search id -> original id.
    let mut search_id = vec![usize::MAX; all.len()];
    for (k, &i) in order.iter().enumerate() {
        search_id[i] = k;
    }
    for (next, slot) in (order.len()..).zip(search_id.iter_mut().filter(|s| **s == usize::MAX)) {
        *slot = next;
    }
    let original: Vec<usize> = order.iter().map(|&i| all[i].id).collect();
    let renamed: Vec<NestInfo> =
        all.iter().enumerate().map(|(i, n)| NestInfo { id: search_id[i], ..n.clone() }).collect();
    let members: Vec<NestInfo> = order.iter().map(|&i| renamed[i].clone()).collect();
    let seed: Vec<usize> = (0..order.len()).collect();

    // Fused members stay in program order (a legal order, as the seed's), as before renaming.
    let program_pos: BTreeMap<usize, usize> = order.iter().enumerate().map(|(k, &i)| (k, i)).collect();
    // The same search context at other sizes ([`robust_choice`]).
    let ctx_at = |e: Extents| {
        Ctx::new(members.clone(), &renamed, e, device.clone(), cfg.clone()).with_program_order(program_pos.clone())
    };
    let ctx = ctx_at(extents.clone());
    let expr = lang::unfused_term(&seed);
    let runner = Runner::<lang::PlanLang, PlanAnalysis, ()>::new(PlanAnalysis::new(ctx))
        .with_scheduler(SimpleScheduler)
        .with_iter_limit(cfg.iter_limit)
        .with_node_limit(cfg.node_limit)
        .with_time_limit(cfg.time_limit)
        .with_expr(&expr)
        .run(&rules::rules());
    let stop_reason = match &runner.stop_reason {
        Some(egg::StopReason::Saturated) => "saturated".to_string(),
        Some(egg::StopReason::IterationLimit(n)) => format!("iteration limit ({n})"),
        Some(egg::StopReason::NodeLimit(n)) => format!("node limit ({n})"),
        Some(egg::StopReason::TimeLimit(t)) => format!("time limit ({t:.1} s)"),
        Some(egg::StopReason::Other(s)) => s.clone(),
        None => "not run".to_string(),
    };
    // The configured limit (egg reports the count it reached, which may overshoot it).
    let limit = match &runner.stop_reason {
        Some(egg::StopReason::IterationLimit(_)) => Some(SearchLimit::Iterations(cfg.iter_limit)),
        Some(egg::StopReason::NodeLimit(_)) => Some(SearchLimit::Nodes(cfg.node_limit)),
        Some(egg::StopReason::TimeLimit(_)) => Some(SearchLimit::TimeMs(cfg.time_limit.as_millis())),
        _ => None,
    };
    let root = runner.egraph.find(runner.roots[0]);
    let egraph = runner.egraph;
    let ctx = &egraph.analysis.ctx;
    let extracted = cost::DagExtractor::new(&egraph, cfg.top_k).plans(root);
    // Every plan of single nests is the unfused plan (in some legal order): it is listed in
    // program order, which the pass keeps as it is.
    let back = |p: &Plan| {
        if p.kernels.iter().all(|k| matches!(k, Kernel::Nest(_))) && p.kernels.len() == ids.len() {
            Plan { kernels: ids.iter().map(|&i| Kernel::Nest(i)).collect() }
        } else {
            rename_plan(p, &|n| original[n])
        }
    };
    let seed_plan = Plan { kernels: seed.iter().map(|&i| Kernel::Nest(i)).collect() };
    let unfused = back(&seed_plan);

    let mut all_plans: Vec<(Plan, CostBreakdown)> = cost::priced(extracted, ctx);
    if !all_plans.iter().any(|(p, _)| back(p) == unfused) {
        all_plans.push((seed_plan.clone(), cost::plan_cost(&seed_plan, ctx)));
    }
    all_plans.sort_by(cost::plan_order);
    let (chosen_s, span_note) = if cfg.hint_spans.is_empty() || all_plans.len() < 2 {
        (choose(&all_plans, cfg), None)
    } else {
        let (p, note) = robust_choice(&all_plans, cfg, extents, &ctx_at, &|p| back(p).to_string());
        (p, Some(note))
    };
    if !all_plans.iter().any(|(p, _)| *p == chosen_s) {
        // A split the extraction did not keep (robust_choice tries every split).
        let c = cost::plan_cost(&chosen_s, ctx);
        all_plans.push((chosen_s.clone(), c));
        all_plans.sort_by(cost::plan_order);
    }
    // The best plan of each shape, then the chosen and the unfused plan if not yet listed.
    let mut seen = BTreeSet::new();
    let mut candidates: Vec<Plan> = all_plans
        .iter()
        .filter(|(p, _)| seen.insert(p.shape()))
        .take(cfg.max_candidates)
        .map(|(p, _)| p.clone())
        .collect();
    for must in [&chosen_s, &seed_plan] {
        if !candidates.iter().any(|p| back(p) == back(must)) {
            candidates.push(
                all_plans.iter().find(|(p, _)| back(p) == back(must)).expect("chosen and unfused are costed").0.clone(),
            );
        }
    }
    // Costed again under the original ids (the kernel labels of the report).
    let program_ctx = &program_ctx;
    let mut candidates: Vec<(Plan, CostBreakdown)> = cost::priced(candidates.iter().map(back), program_ctx);
    candidates.sort_by(cost::plan_order);
    let chosen = back(&chosen_s);
    let all_plans = all_plans.iter().map(|(p, _)| back(p)).collect();
    let res = GroupResult {
        nests: ids,
        chosen,
        candidates,
        all_plans,
        stop_reason,
        limit,
        egraph_nodes: egraph.total_number_of_nodes(),
        egraph_classes: egraph.number_of_classes(),
        iterations: runner.iterations.len(),
        span_note,
    };
    (res, egraph)
}

/// Relative sizes inside a span at which [`robust_choice`] prices the plans (each below the
/// span's factor). The first is the hint itself, 1, at which [`robust_choice`] also orders
/// the plans for [`choose`].
const SPAN_SAMPLES: [f64; 7] = [1.0, 1.1, 1.2, 1.35, 1.5, 1.7, 1.9];

/// Plans within this factor of the smallest worst-case regret count as equally robust.
const SPAN_TOLERANCE: f64 = 1.03;

/// The plan to compile when the sizes may exceed the hints ([`SearchConfig::hint_spans`]): each
/// plan (`sorted`, cheapest at the hints first) is priced at sizes across the span (the spanned
/// axes scaled together, [`SPAN_SAMPLES`]), its regret is its worst ratio to the cheapest plan
/// at the same sizes, and among the plans within [`SPAN_TOLERANCE`] of the smallest regret
/// [`choose`] picks as at the hints. A plan whose split fills the grid exactly at the hint can
/// leave a second, nearly empty round of splits a little above it (LayerNorm backward at
/// M = 2^19 with 2048-row splits: one round of 256 CTAs, but 282 at M = 576000, measured
/// 661.9 us against 434.5 for 256-row splits). Returns the plan and a note for the report.
fn robust_choice(
    sorted: &[(Plan, CostBreakdown)],
    cfg: &SearchConfig,
    extents: &Extents,
    ctx_at: &dyn Fn(Extents) -> Ctx,
    name: &dyn Fn(&Plan) -> String,
) -> (Plan, String) {
    let span = cfg.hint_spans.iter().map(|(_, f, _)| *f).max().unwrap_or(1).max(1) as f64;
    let samples: Vec<f64> = SPAN_SAMPLES.iter().copied().filter(|&t| t < span).collect();
    let sample_extents: Vec<Extents> = samples
        .iter()
        .map(|&t| {
            let mut e = extents.clone();
            for (a, f, _) in &cfg.hint_spans {
                if let Some(h) = e.hints.get_mut(a.0) {
                    *h = ((*h as f64) * t.min(*f as f64)).round().max(1.0) as u64;
                }
            }
            e
        })
        .collect();
    let ctxs: Vec<Ctx> = sample_extents.iter().map(|e| ctx_at(e.clone())).collect();
    // The extraction kept the plans cheapest at the hints: each plan with partials is also
    // tried with every split the search would try at any of the sizes.
    let mut pool: Vec<Plan> = Vec::new();
    for (p, _) in sorted {
        if !pool.contains(p) {
            pool.push(p.clone());
        }
        let partials: BTreeSet<usize> = p
            .kernels
            .iter()
            .flat_map(|k| k.parts().iter())
            .filter_map(|k| match k {
                Kernel::Partial { nest, .. } => Some(*nest),
                _ => None,
            })
            .collect();
        let splits: BTreeSet<u64> =
            partials.iter().flat_map(|&n| ctxs.iter().flat_map(move |c| c.split_candidates(n))).collect();
        for s in splits {
            let q = p.with_split(s);
            if !pool.contains(&q) {
                pool.push(q);
            }
        }
    }
    // The first sample is the hint itself.
    let hint_ctx = &ctxs[0];
    let mut sorted: Vec<(Plan, CostBreakdown)> = cost::priced(pool, hint_ctx);
    sorted.sort_by(cost::plan_order);
    let sorted = &sorted[..];
    let sizes: Vec<Vec<u64>> =
        sample_extents.iter().map(|e| cfg.hint_spans.iter().map(|(a, _, _)| e.size(*a)).collect()).collect();
    // costs[s][p]: plan p at sample s.
    let costs: Vec<Vec<f64>> =
        ctxs.iter().map(|ctx| sorted.iter().map(|(p, _)| cost::plan_cost(p, ctx).total_s).collect()).collect();
    let regret = |p: usize| -> (f64, usize) {
        let mut worst = (1.0, 0);
        for (s, row) in costs.iter().enumerate() {
            let best = row.iter().copied().fold(f64::INFINITY, f64::min);
            let r = if best > 0.0 && best.is_finite() { row[p] / best } else { 1.0 };
            if r > worst.0 {
                worst = (r, s);
            }
        }
        worst
    };
    let regrets: Vec<(f64, usize)> = (0..sorted.len()).map(regret).collect();
    let least = regrets.iter().map(|r| r.0).fold(f64::INFINITY, f64::min);
    let robust: Vec<(Plan, CostBreakdown)> =
        sorted.iter().zip(&regrets).filter(|(_, r)| r.0 <= least * SPAN_TOLERANCE).map(|(pc, _)| pc.clone()).collect();
    let at_hint = choose(sorted, cfg);
    let chosen = choose(&robust, cfg);
    let idx = |p: &Plan| sorted.iter().position(|(q, _)| q == p).unwrap_or(0);
    let where_ = |s: usize| {
        cfg.hint_spans
            .iter()
            .zip(&sizes[s])
            .map(|((_, _, name), n)| format!("{name}={n}"))
            .collect::<Vec<_>>()
            .join(",")
    };
    let (rc, sc) = regrets[idx(&chosen)];
    let mut note = format!(
        "sizes up to {span}x the hints: the chosen plan stays within {rc:.2}x of the best plan at each of {} sizes (worst at {})",
        samples.len(),
        where_(sc)
    );
    if chosen != at_hint {
        let (rh, sh) = regrets[idx(&at_hint)];
        note.push_str(&format!(
            "; the plan cheapest at the hints, {}, would take {rh:.2}x the best at {}",
            name(&at_hint),
            where_(sh)
        ));
    }
    (chosen, note)
}

/// The cheapest plan, unless a plan without partials is within the configured gain of it.
pub(crate) fn choose(sorted: &[(Plan, CostBreakdown)], cfg: &SearchConfig) -> Plan {
    let best = &sorted[0];
    let bound = best.1.total_s * (1.0 + cfg.min_gain_rel) + cfg.min_gain_s;
    let fewest = sorted.iter().filter(|(_, c)| c.total_s <= bound).map(|(p, _)| p.partials()).min().unwrap_or(0);
    sorted
        .iter()
        .find(|(p, c)| c.total_s <= bound && p.partials() == fewest)
        .map(|(p, _)| p.clone())
        .unwrap_or_else(|| best.0.clone())
}
