//! `loop-map`: attaches a GPU mapping (`mapping` attributes, [`morf_loop::mapping`]) to the
//! top-level nests of each function, chosen by a small default strategy over the nest's
//! shape, so that `lower-loop-to-gpu` lowers them mechanically (its "Mapped lowering",
//! `passes/src/conversion/mapped.rs`).
//!
//! Strategy, per top-level op (a nest that already has a `mapping` is left as it is):
//!
//! - **row kernel**: an `mloop.parallel` whose body holds, directly, at least one float
//!   `reduce` of kind sum/max/min that reads rows (a load in it is contiguous in the reduce's
//!   innermost iv by its access map, `morf_loop::access`), with other region ops only
//!   `reduce`s and `parallel`s.
//!   Rows go to a warp each (`warps` rows per CTA: the last row dim is split by `warps` with
//!   exact tail bounds, the tiles to a persistent `grid`, the rows of a tile to `warp`), those
//!   reduces and the inner parallels to `lane`s; or, for rows longer than `cta-rows-above`
//!   (when constant) or with `rows=cta`, a CTA per row (`grid`) with the reduces and inner
//!   parallels over its `threads`. Other reduces of the row run in order (`seq`);
//! - **split rows** (the fusion pass's row-fused nests): a row kernel whose writes index the
//!   row `i` or `i div S` (column partials per split of `S` rows, from 0 step 1) is split by
//!   `S`: the splits go to a persistent `grid`, a split's rows run in order (`seq`) on its CTA,
//!   the row reduces and inner parallels over the CTA's `threads`, so each partial `W[s, j]`
//!   has one writer, in row order;
//! - **pointwise** (and column reductions: their reduces run in order per point): the ivs
//!   that index every store and accumulate directly run in parallel, the others in order
//!   (`seq`, so that the updates of one element stay in one thread, in order). A 1-D nest is
//!   split by `threads` (exact tail bounds): tiles to `grid`, a tile's points to `thread`s; a
//!   k-D nest maps its last parallel iv to `thread`s and the run of parallel ivs from the
//!   first one before it to the `grid` (flattened), or, when that run is empty (the ivs
//!   before run in order), splits the last parallel iv like a 1-D nest;
//! - **rank-0 reduction**: a top-level float `mloop.reduce` (sum/max/min) whose result only
//!   its scalar epilogue uses (scalar ops and stores right after it) is wrapped with that
//!   epilogue into a one-point `mloop.parallel` mapped to the `grid` (one CTA), the reduce
//!   mapped to its `threads`, the stores done by one thread.
//!
//! A nest is mapped only when the mapped kernel is race free: every store and accumulate
//! indexes its buffer by every iv that runs in parallel around it (directly), is not inside
//! a `reduce`, and no buffer is both read and written in the nest. A nest that is not mapped
//! (one of those fails, a top-level `mloop.for`, a rank-0 reduction whose result a later
//! nest reads, a buffer op inside the nest) keeps no attribute, and the pass says why in a
//! remark at it; `lower-loop-to-gpu` then picks one of its templates.
//!
//! **IR expected:** `mloop` functions (after `lower-tensor-to-loop`, cleanup, optionally
//! fusion). **IR produced:** the same computation (split nests iterate in the same order),
//! with `mapping` attributes. **Options:** `threads` (256: threads per CTA of pointwise,
//! CTA-per-row and rank-0 kernels), `warps` (8: rows per CTA with a warp per row), `grid`
//! (0: the most CTAs, as the grid entries' `size`; 0 leaves the cap to the lowering),
//! `rows` (`auto`, `warp` or `cta`), `cta-rows-above` (1024).
//!
//! **Example** (`--loop-map`):
//!
//! ```text
//! // before
//! mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
//!   %r = mloop.reduce sum (%j) = (%c0) to (%n) step (%c1) init(%z) : f32 { ... x[%i, %j] ... }
//!   mloop.store %r, %s[%i] : !mloop.buffer<?xf32>
//!   mloop.yield
//! }
//! // after
//! mloop.parallel (%i_outer) = (%c0) to (%m) step (%c8) {
//!   %e = mloop.add %i_outer, %c8 : index
//!   %u = mloop.min %e, %m : index
//!   mloop.parallel (%i) = (%i_outer) to (%u) step (%c1) {
//!     %r = mloop.reduce sum (%j) = ... { ... } attributes {mapping = [{level = "lane"}]}
//!     mloop.store %r, %s[%i] : !mloop.buffer<?xf32>
//!     mloop.yield
//!   } attributes {mapping = [{level = "warp", size = 8}]}
//!   mloop.yield
//! } attributes {mapping = [{level = "grid", persistent = true}]}
//! ```

use std::collections::HashSet;

use morf_ir::interfaces::elementwise;
use morf_ir::pass::{Pass, PassInfo, PassOptionInfo, PassOptions, PassResult};
use morf_ir::{Context, Diagnostic, OpId, Type, Value};
use morf_loop::access::AccessMap;
use morf_loop::mapping::{DimMapping, Level, Mapping, MAPPING_ATTR};
use morf_loop::ops::{
    AccumulateOp, AllocOp, ConstantBufferOp, ConstantOp, DeallocOp, DivOp, FillOp, ForOp, LoadOp, ParallelOp, ReduceOp,
    RemOp, StoreOp, YieldOp,
};

use super::loop_split::{split, InnerKind};
use super::loop_utils::{body_block, const_int, defined_outside, loop_parts, target_functions, Ib, LoopParts};

/// The registry entry of `loop-map`.
pub fn info() -> PassInfo {
    PassInfo {
        name: "loop-map",
        description: "attach GPU mapping attributes to top-level loop nests (default strategy by shape)",
        options: &[
            PassOptionInfo {
                key: "threads",
                help: "threads per CTA of pointwise and CTA-per-row nests",
                default: "256",
            },
            PassOptionInfo { key: "warps", help: "rows per CTA of warp-per-row nests", default: "8" },
            PassOptionInfo { key: "grid", help: "the most CTAs of a launch (0: the lowering's cap)", default: "0" },
            PassOptionInfo { key: "rows", help: "row kernels: auto, warp (a warp per row) or cta", default: "auto" },
            PassOptionInfo {
                key: "cta-rows-above",
                help: "rows longer than this (when constant) take a CTA per row",
                default: "1024",
            },
            PassOptionInfo {
                key: "atomics",
                help: "pointwise nests: accumulates that several parallel iterations share run in parallel as atomic updates (marked 'atomic'; f32/f64 sum, max, min; the order of float additions then varies between runs)",
                default: "false",
            },
        ],
        create: |o| Ok(Box::new(LoopMap::from_options(o)?)),
    }
}

/// How row kernels map their rows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RowMapping {
    /// A warp per row unless the row is known to be long.
    #[default]
    Auto,
    /// Always a warp per row.
    Warp,
    /// Always a CTA per row.
    Cta,
}

/// The `loop-map` pass.
#[derive(Clone, Debug)]
pub struct LoopMap {
    /// Threads per CTA (pointwise, CTA per row, rank 0); a multiple of 32 up to 1024.
    pub threads: u64,
    /// Rows per CTA with a warp per row (1 to 32).
    pub warps: u64,
    /// CTAs at most (0: the lowering's cap).
    pub grid: u64,
    /// Row kernels' mapping.
    pub rows: RowMapping,
    /// Rows longer than this take a CTA per row (`Auto`).
    pub cta_rows_above: u64,
    /// Pointwise nests: an accumulate not indexed by every parallel iv becomes an atomic
    /// update (`mloop.accumulate ... {atomic}`) instead of keeping those ivs in order.
    pub atomics: bool,
}

impl Default for LoopMap {
    fn default() -> Self {
        LoopMap { threads: 256, warps: 8, grid: 0, rows: RowMapping::Auto, cta_rows_above: 1024, atomics: false }
    }
}

impl LoopMap {
    /// Reads the options.
    pub fn from_options(o: &PassOptions) -> Result<Self, String> {
        let threads = o.usize("threads", 256)? as u64;
        if threads == 0 || threads > 1024 || !threads.is_multiple_of(32) {
            return Err(format!("option 'threads' must be a multiple of 32 from 32 to 1024, got {threads}"));
        }
        let warps = o.usize("warps", 8)? as u64;
        if !(1..=32).contains(&warps) {
            return Err(format!("option 'warps' must be from 1 to 32, got {warps}"));
        }
        let rows = match o.string("rows", "auto").as_str() {
            "auto" => RowMapping::Auto,
            "warp" => RowMapping::Warp,
            "cta" => RowMapping::Cta,
            v => return Err(format!("option 'rows' expects auto, warp or cta, got '{v}'")),
        };
        Ok(LoopMap {
            threads,
            warps,
            grid: o.usize("grid", 0)? as u64,
            rows,
            cta_rows_above: o.usize("cta-rows-above", 1024)? as u64,
            atomics: o.bool("atomics", false)?,
        })
    }
}

impl Pass for LoopMap {
    fn name(&self) -> &'static str {
        "loop-map"
    }

    fn options_text(&self) -> String {
        let rows = match self.rows {
            RowMapping::Auto => "auto",
            RowMapping::Warp => "warp",
            RowMapping::Cta => "cta",
        };
        format!(
            "threads={} warps={} grid={} rows={rows} cta-rows-above={} atomics={}",
            self.threads, self.warps, self.grid, self.cta_rows_above, self.atomics
        )
    }

    fn run(&mut self, ctx: &mut Context, root: OpId) -> PassResult {
        for f in target_functions(ctx, root, "loop-map")? {
            let Some(body) = body_block(ctx, f) else { continue };
            for op in ctx.block_ops(body).collect::<Vec<_>>() {
                // A rank-0 reduction wrapped earlier moved its epilogue; skip ops no longer here.
                if ctx.op_parent_block(op) != Some(body) {
                    continue;
                }
                let why = if ctx.isa::<ParallelOp>(op) {
                    if ctx.attr(op, MAPPING_ATTR).is_some() {
                        continue;
                    }
                    match self.map_nest(ctx, op) {
                        Ok(()) => continue,
                        Err(why) => why,
                    }
                } else if ctx.isa::<ReduceOp>(op) {
                    match self.map_rank0(ctx, op) {
                        Ok(()) => continue,
                        Err(why) => why,
                    }
                } else if ctx.isa::<ForOp>(op) {
                    "a top-level 'mloop.for' runs in order (no mapping for it yet)".to_string()
                } else {
                    continue;
                };
                let msg = format!("'{}' op left unmapped: {why}", ctx.op_name(op));
                ctx.emit(Diagnostic::remark(ctx.op_loc(op), msg));
            }
        }
        Ok(())
    }
}

/// The unit attribute that marks an `mloop.accumulate` several GPU threads may update at
/// once: the lowering makes it an atomic read-modify-write (`mgpu.atomic_rmw`).
pub const ATOMIC_ATTR: &str = "atomic";

/// The `mgpu.atomic_rmw` kind that does an accumulate of kind `kind` into an element of type
/// `elem` atomically: `add` for sum, `max`, `min`, of f32 or f64 (`None`: no atomic form).
pub fn atomic_rmw_kind(ctx: &Context, kind: &str, elem: Type) -> Option<&'static str> {
    if !matches!(ctx.float_kind(elem).map(|k| k.name()), Some("f32" | "f64")) {
        return None;
    }
    match kind {
        "sum" => Some("add"),
        "max" => Some("max"),
        "min" => Some("min"),
        _ => None,
    }
}

/// An accumulate the GPU can do atomically ([`atomic_rmw_kind`]), not inside a reduce.
fn atomic_accumulate(ctx: &Context, o: OpId) -> bool {
    let Some(a) = ctx.dyn_cast::<AccumulateOp>(o) else { return false };
    let elem = ctx.element_type(ctx.value_type(a.buffer(ctx)));
    let mut p = ctx.parent_op(o);
    while let Some(q) = p {
        if ctx.isa::<ReduceOp>(q) {
            return false;
        }
        p = ctx.parent_op(q);
    }
    atomic_rmw_kind(ctx, a.kind(ctx).unwrap_or_default(), elem).is_some()
}

/// A reduce whose combiner has a warp/CTA reduction: float, sum/max/min.
fn collective_reduce(ctx: &Context, op: OpId) -> bool {
    let Some(r) = ctx.dyn_cast::<ReduceOp>(op) else { return false };
    let float = r.init(ctx).is_some_and(|v| ctx.is_float(ctx.value_type(v)));
    float && matches!(r.kind(ctx).unwrap_or_default(), "sum" | "max" | "min")
}

/// A reduce the row strategy spreads over a row's threads: collective and reading rows (some
/// load in it is contiguous in the reduce's innermost iv, by its access map: `x[i, j]`, or a
/// flattened `x[i * N + j]`).
fn row_reduce(ctx: &Context, op: OpId) -> bool {
    if !collective_reduce(ctx, op) {
        return false;
    }
    let Ok(parts) = loop_parts(ctx, op, true) else { return false };
    let Some(&inner) = parts.ivs.last() else { return false };
    ctx.walk_collect(op)
        .into_iter()
        .filter(|&o| ctx.isa::<LoadOp>(o))
        .any(|l| AccessMap::of(ctx, l).is_some_and(|m| m.is_contiguous_in(inner)))
}

/// A scalar op without effects (constants, the elementwise ops, `rem`).
fn is_scalar(ctx: &Context, op: OpId) -> bool {
    ctx.regions(op).is_empty() && (ctx.isa::<ConstantOp>(op) || ctx.isa::<RemOp>(op) || elementwise(ctx, op).is_some())
}

/// The constant extent of dim `d` of a parallel or reduce, if its bounds are constants.
fn const_extent(ctx: &Context, op: OpId, reduce: bool, d: usize) -> Option<u64> {
    let p = loop_parts(ctx, op, reduce).ok()?;
    let (lb, ub, st) = (const_int(ctx, p.lbs[d])?, const_int(ctx, p.ubs[d])?, const_int(ctx, p.steps[d])?);
    (st > 0).then(|| ((ub - lb).max(0) as u64).div_ceil(st as u64))
}

/// The store or accumulate `o`: its buffer and indices.
fn write_of(ctx: &Context, o: OpId) -> Option<(Value, Vec<Value>)> {
    if let Some(s) = ctx.dyn_cast::<StoreOp>(o) {
        Some((s.buffer(ctx), s.indices(ctx).to_vec()))
    } else {
        ctx.dyn_cast::<AccumulateOp>(o).map(|a| (a.buffer(ctx), a.indices(ctx).to_vec()))
    }
}

/// Why the ops `ops` (a nest and what it holds) cannot run race free, with `hw(o)` the ivs
/// that run in parallel around a store or accumulate `o`.
fn race_check(ctx: &Context, ops: &[OpId], hw: &dyn Fn(OpId) -> Vec<Value>) -> Result<(), String> {
    let mut read = HashSet::new();
    let mut written = HashSet::new();
    for &o in ops {
        if ctx.isa::<AllocOp>(o) || ctx.isa::<DeallocOp>(o) || ctx.isa::<FillOp>(o) || ctx.isa::<ConstantBufferOp>(o) {
            return Err(format!("the nest holds an '{}'", ctx.op_name(o)));
        }
        if let Some(l) = ctx.dyn_cast::<LoadOp>(o) {
            read.insert(l.buffer(ctx));
            continue;
        }
        let Some((buf, idx)) = write_of(ctx, o) else { continue };
        written.insert(buf);
        let mut p = ctx.parent_op(o);
        while let Some(q) = p.filter(|&q| ops.contains(&q)) {
            if ctx.isa::<ReduceOp>(q) {
                return Err(format!("an '{}' inside an 'mloop.reduce'", ctx.op_name(o)));
            }
            p = ctx.parent_op(q);
        }
        if hw(o).iter().any(|iv| !idx.contains(iv)) {
            return Err(format!(
                "an '{}' does not index its buffer by every induction variable that runs in parallel \
                 (two threads could write one element)",
                ctx.op_name(o)
            ));
        }
    }
    if read.intersection(&written).next().is_some() {
        return Err("a buffer is both read and written in the nest (a thread could read another's write)".into());
    }
    Ok(())
}

/// The split `S` of a row kernel over splits of rows (the fusion pass's row-fused nests): a 1-D
/// nest from 0 step 1 whose every store and accumulate indexes its buffer by the row `i` itself
/// or by `i div S` (one constant `S >= 1` throughout, at least one such index). Each split of `S`
/// rows can then run in order on one CTA: the `i div S` elements belong to that CTA alone.
fn split_of(ctx: &Context, parts: &LoopParts, all: &[OpId]) -> Option<i64> {
    let [iv] = parts.ivs[..] else { return None };
    if const_int(ctx, parts.lbs[0]) != Some(0) || const_int(ctx, parts.steps[0]) != Some(1) {
        return None;
    }
    let mut split = None;
    for &o in all {
        let Some((_, idx)) = write_of(ctx, o) else { continue };
        if idx.contains(&iv) {
            continue;
        }
        let s = idx.iter().find_map(|&v| {
            let d = ctx.dyn_cast::<DivOp>(ctx.defining_op(v)?)?;
            (d.lhs(ctx) == iv).then(|| const_int(ctx, d.rhs(ctx))).flatten()
        })?;
        if s < 1 || split.is_some_and(|x| x != s) {
            return None;
        }
        split = Some(s);
    }
    split
}

/// The ivs of `op` (a parallel or reduce).
fn ivs_of(ctx: &Context, op: OpId, reduce: bool) -> Vec<Value> {
    loop_parts(ctx, op, reduce).map(|p| p.ivs).unwrap_or_default()
}

impl LoopMap {
    fn grid_entry(&self, persistent: bool) -> DimMapping {
        let d = DimMapping { persistent, ..DimMapping::new(Level::Grid) };
        if self.grid > 0 {
            d.with_size(self.grid)
        } else {
            d
        }
    }

    fn set(ctx: &mut Context, op: OpId, dims: Vec<DimMapping>) {
        let a = Mapping { dims }.to_attr(ctx);
        ctx.set_attr(op, MAPPING_ATTR, a);
    }

    /// Maps the top-level parallel `op`, or says why not (the IR is then unchanged).
    pub(crate) fn map_nest(&self, ctx: &mut Context, op: OpId) -> Result<(), String> {
        let parts = loop_parts(ctx, op, false)?;
        let k = parts.ivs.len();
        let all = ctx.walk_collect(op);
        let children: Vec<OpId> = ctx.block_ops(parts.body).collect();
        let lane_reduces: Vec<OpId> = children.iter().copied().filter(|&o| row_reduce(ctx, o)).collect();
        let region_children: Vec<OpId> = children.iter().copied().filter(|&o| !ctx.regions(o).is_empty()).collect();
        let row = !lane_reduces.is_empty()
            && region_children.iter().all(|&o| ctx.isa::<ReduceOp>(o) || ctx.isa::<ParallelOp>(o));
        if row {
            let inner: Vec<OpId> = region_children.iter().copied().filter(|&o| ctx.isa::<ParallelOp>(o)).collect();
            let outer_ivs = parts.ivs.clone();
            let hw = |o: OpId| {
                let mut v = outer_ivs.clone();
                let mut p = ctx.parent_op(o);
                while let Some(q) = p.filter(|&q| q != op) {
                    if inner.contains(&q) {
                        v.extend(ivs_of(ctx, q, false));
                    }
                    p = ctx.parent_op(q);
                }
                v
            };
            // A row kernel that is not race free may still map with its splits of rows in
            // order (below), or as a pointwise nest.
            if race_check(ctx, &all, &hw).is_ok() {
                self.map_rows(ctx, op, k, &lane_reduces, &inner)?;
                return Ok(());
            }
            if let Some(split_rows) = split_of(ctx, &parts, &all) {
                let hw_cols = |o: OpId| {
                    let mut v = Vec::new();
                    let mut p = ctx.parent_op(o);
                    while let Some(q) = p.filter(|&q| q != op) {
                        if inner.contains(&q) {
                            v.extend(ivs_of(ctx, q, false));
                        }
                        p = ctx.parent_op(q);
                    }
                    v
                };
                if race_check(ctx, &all, &hw_cols).is_ok() {
                    let rows = split(ctx, op, 0, split_rows as usize, InnerKind::Parallel).map_err(|d| d.message)?;
                    Self::set(ctx, op, vec![self.grid_entry(true)]);
                    Self::set(ctx, rows, vec![DimMapping::new(Level::Seq)]);
                    let t = DimMapping::new(Level::Thread).with_size(self.threads);
                    for &r in &lane_reduces {
                        let n = ivs_of(ctx, r, true).len();
                        Self::set(ctx, r, vec![t; n]);
                    }
                    for &q in &inner {
                        let n = ivs_of(ctx, q, false).len();
                        Self::set(ctx, q, vec![t; n]);
                    }
                    return Ok(());
                }
            }
        }
        self.map_pointwise(ctx, op, &parts, &all)
    }

    /// The row strategy (checked race free): a warp per row or a CTA per row.
    fn map_rows(
        &self,
        ctx: &mut Context,
        op: OpId,
        k: usize,
        lane_reduces: &[OpId],
        inner: &[OpId],
    ) -> Result<(), String> {
        let row_len = const_extent(ctx, lane_reduces[0], true, 0);
        let cta = match self.rows {
            RowMapping::Cta => true,
            RowMapping::Warp => false,
            RowMapping::Auto => row_len.is_some_and(|n| n > self.cta_rows_above),
        };
        let (level, size) = if cta {
            Self::set(ctx, op, vec![self.grid_entry(false); k]);
            (Level::Thread, Some(self.threads))
        } else {
            let rows = split(ctx, op, k - 1, self.warps as usize, InnerKind::Parallel).map_err(|d| d.message)?;
            Self::set(ctx, op, vec![self.grid_entry(true); k]);
            Self::set(ctx, rows, vec![DimMapping::new(Level::Warp).with_size(self.warps)]);
            (Level::Lane, None)
        };
        let entry = DimMapping { size, ..DimMapping::new(level) };
        for &r in lane_reduces {
            let n = ivs_of(ctx, r, true).len();
            Self::set(ctx, r, vec![entry; n]);
        }
        for &p in inner {
            let n = ivs_of(ctx, p, false).len();
            Self::set(ctx, p, vec![entry; n]);
        }
        Ok(())
    }

    /// The pointwise strategy.
    fn map_pointwise(&self, ctx: &mut Context, op: OpId, parts: &LoopParts, all: &[OpId]) -> Result<(), String> {
        let k = parts.ivs.len();
        // Pointwise: the ivs that index every store and accumulate run in parallel, the
        // others in order.
        // With `atomics`, accumulates that can be atomic do not constrain the parallel ivs:
        // the ones their indices lack become atomic updates.
        let atomic_ok = |o: OpId| self.atomics && atomic_accumulate(ctx, o);
        let mut hw: Vec<Value> = parts.ivs.clone();
        for &o in all {
            if let Some((_, idx)) = write_of(ctx, o).filter(|_| !atomic_ok(o)) {
                hw.retain(|iv| idx.contains(iv));
            }
        }
        let Some(&thread_iv) = hw.last() else {
            return Err("no induction variable indexes every store and accumulate (nothing runs in parallel)".into());
        };
        let shared: Vec<OpId> = all
            .iter()
            .copied()
            .filter(|&o| atomic_ok(o) && write_of(ctx, o).is_some_and(|(_, idx)| hw.iter().any(|iv| !idx.contains(iv))))
            .collect();
        race_check(ctx, all, &|o| if shared.contains(&o) { Vec::new() } else { hw.clone() })?;
        let unit = ctx.unit_attr();
        for &o in &shared {
            ctx.set_attr(o, ATOMIC_ATTR, unit);
        }
        if k == 1 {
            let tile = split(ctx, op, 0, self.threads as usize, InnerKind::Parallel).map_err(|d| d.message)?;
            Self::set(ctx, op, vec![self.grid_entry(false)]);
            Self::set(ctx, tile, vec![DimMapping::new(Level::Thread).with_size(self.threads)]);
            return Ok(());
        }
        let t_dim = parts.ivs.iter().position(|v| *v == thread_iv).expect("an iv of the nest");
        let t = match const_extent(ctx, op, false, t_dim) {
            Some(n) => n.div_ceil(32).clamp(1, self.threads / 32) * 32,
            None => self.threads,
        };
        // The grid: the run of parallel ivs from the first one, before the thread iv.
        let first = parts.ivs.iter().position(|v| hw.contains(v)).expect("an iv of the nest");
        let mut dims = vec![DimMapping::new(Level::Seq); k];
        let mut d = first;
        while d < t_dim && hw.contains(&parts.ivs[d]) {
            dims[d] = self.grid_entry(false);
            d += 1;
        }
        if d == first && first == t_dim {
            // No grid iv (the ivs before the thread one run in order): split the thread iv
            // into tiles over the grid and a tile's points over the threads.
            let tile = split(ctx, op, t_dim, self.threads as usize, InnerKind::Parallel).map_err(|d| d.message)?;
            dims[t_dim] = self.grid_entry(false);
            Self::set(ctx, op, dims);
            Self::set(ctx, tile, vec![DimMapping::new(Level::Thread).with_size(self.threads)]);
            return Ok(());
        }
        dims[t_dim] = DimMapping::new(Level::Thread).with_size(t);
        Self::set(ctx, op, dims);
        Ok(())
    }

    /// Wraps the top-level rank-0 reduce `op` and its scalar epilogue into a one-point
    /// parallel on one CTA, or says why not (the IR is then unchanged).
    fn map_rank0(&self, ctx: &mut Context, op: OpId) -> Result<(), String> {
        if !collective_reduce(ctx, op) {
            return Err("a rank-0 reduction that is not a float sum, max or min".into());
        }
        // The epilogue: the scalar ops and stores right after it that use its values, up to
        // the first op with effects that is not one of them (moving the reduce past the pure
        // ops in between changes nothing).
        let mut set = vec![op];
        let mut defs: HashSet<Value> = ctx.results(op).iter().copied().collect();
        let mut cur = ctx.next_op(op);
        while let Some(o) = cur {
            let uses = ctx.operands(o).iter().any(|v| defs.contains(v));
            if is_scalar(ctx, o) {
                if uses {
                    set.push(o);
                    defs.extend(ctx.results(o).iter().copied());
                }
            } else if uses && write_of(ctx, o).is_some() {
                set.push(o);
            } else {
                break;
            }
            cur = ctx.next_op(o);
        }
        for &d in &defs {
            if ctx.uses(d).iter().any(|u| !set.contains(&u.op)) {
                return Err("its result is used after its epilogue (by a later nest or the return)".into());
            }
        }
        let mut all = Vec::new();
        for &o in &set {
            all.extend(ctx.walk_collect(o));
        }
        race_check(ctx, &all, &|_| Vec::new())?;
        for &o in &set[1..] {
            if let Some((buf, idx)) = write_of(ctx, o) {
                if std::iter::once(buf).chain(idx).any(|v| !defined_outside(ctx, v, op) && !defs.contains(&v)) {
                    return Err("its epilogue stores at an index computed after it".into());
                }
            }
        }
        // parallel (%u) = (0) to (1) step (1) { reduce; epilogue } after the last epilogue op.
        let last = *set.last().expect("the reduce");
        let anchor = ctx.next_op(last).ok_or("the reduce ends its block")?;
        let ib = Ib { before: anchor };
        let c0 = ib.index(ctx, 0);
        let c1 = ib.index(ctx, 1);
        let loc = ctx.op_loc(op);
        let region = ctx.create_region();
        let it = ctx.index_type();
        let body = ctx.create_block(region, &[it]);
        for &o in &set {
            ctx.detach_op(o);
            ctx.append_op(body, o);
        }
        let y = ctx.create_op(YieldOp::state(loc, &[]));
        ctx.append_op(body, y);
        let par = ctx.create_op(ParallelOp::state(loc, &[c0, c1, c1]).region(region));
        ctx.insert_op_before(anchor, par);
        Self::set(ctx, par, vec![self.grid_entry(false)]);
        let n = ivs_of(ctx, op, true).len();
        Self::set(ctx, op, vec![DimMapping::new(Level::Thread).with_size(self.threads); n]);
        Ok(())
    }
}
