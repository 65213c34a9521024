//! The mechanical lowering of mapped nests (issue 10, docs/conversion-loop-to-gpu.md "Mapped
//! lowering"): a top-level `mloop.parallel` that carries a `mapping` attribute
//! ([`morf_loop::mapping`], made by `loop-map` or by hand) becomes one kernel and its launch by
//! following the attribute, with no classification and no heuristic. It is a child module of
//! `loop_to_gpu` and reuses its kernel outlining (`KernelBuilder`: parameters, the launch,
//! accesses, sequential code).
//!
//! One emitter, one rule per level, every loop strided with exact bounds so any extent works
//! (tails, grids larger than the work):
//!
//! - `grid`: `for x = block_id; x < extent; x += grid_dim` (the launch has
//!   `max(1, min(extent, cap))` CTAs; the cap is the entry's `size`, a full wave of the device
//!   when `persistent`, else none);
//! - `warp`: `for x = warp_id; x < extent; x += ceildiv(block_dim, 32)`;
//! - `lane`: `for x = lane_id; x < extent; x += 32`;
//! - `thread`: `for x = thread_id; x < extent; x += block_dim`;
//! - `seq`, and any loop without a mapping inside a mapped one: `mloop.for`, in order;
//! - adjacent ivs of one level: flattened row-major (innermost fastest), one strided loop;
//! - `mloop.reduce` mapped to `lane`: each lane's partial over its strided positions (in
//!   blocks of 256 terms), `mgpu.warp_reduce`, then `init (+) total`; to `thread`: the same
//!   over the CTA's threads and a block reduction (`warp_reduce`, shared memory, barriers,
//!   warps combined in warp order); the result is on every thread that took part;
//! - stores and accumulates at a point that several threads share (outside any `thread` or
//!   `lane` level: the CTA's, or the warp's) are done by one of them (`thread_id == 0`, or
//!   `lane_id == 0`).
//!
//! The CTA has `max(1, threads of the thread levels, 32 x warps of the warp levels)` threads,
//! rounded up to a warp; a level's units are its entry's `size`, or its extent when constant
//! (at most 1024 threads / 32 warps), or 256 threads / 8 warps.
//!
//! The mapping's legality (nesting, sizes, where reductions may run) is checked by the
//! `mloop.parallel` verifier; the lowering still reports what it cannot follow at the op
//! (a `lane`/`thread` reduction of a non-float type or of kind `prod`). Race freedom of
//! stores and accumulates is the mapping's producer's duty (`loop-map` proves it).

use morf_loop::mapping::{Level, MapContext, Mapping as LoopMapping, MAPPING_ATTR};

use super::*;

/// Whether the top-level op `op` carries a mapping (and takes the mapped lowering).
pub(super) fn has_mapping(ctx: &Context, op: OpId) -> bool {
    ctx.isa::<mloop::ParallelOp>(op) && ctx.attr(op, MAPPING_ATTR).is_some()
}

/// Default threads of a `thread` level without `size` and without a constant extent.
const DEFAULT_THREADS: u64 = 256;
/// Default warps of a `warp` level without `size` and without a constant extent.
const DEFAULT_WARPS: u64 = 8;

/// What the whole nest asks of the launch.
struct LaunchPlan {
    /// Threads per CTA.
    threads: u64,
    /// The most CTAs (`None`: the grid extent).
    grid_cap: Option<u64>,
    /// The mappings of the nest, outermost first (for the report).
    text: String,
}

/// The mapping of a loop op (verified already; malformed is a located error).
fn mapping_of(ctx: &Context, op: OpId) -> R<Option<LoopMapping>> {
    match LoopMapping::of(ctx, op) {
        None => Ok(None),
        Some(Ok(m)) => Ok(Some(m)),
        Some(Err(e)) => Err(op_error(ctx, op, e)),
    }
}

/// The constant extent of dim `d` of a loop, if its bounds are constants.
fn const_extent(ctx: &Context, parts: &LoopParts, d: usize) -> Option<u64> {
    let (lb, ub, st) = (const_int(ctx, parts.lbs[d])?, const_int(ctx, parts.ubs[d])?, const_int(ctx, parts.steps[d])?);
    (st > 0).then(|| ((ub - lb).max(0) as u64).div_ceil(st as u64))
}

/// The launch geometry of mapped nest `nest`.
fn launch_plan(ctx: &Context, nest: OpId, device: &crate::fusion::device::Device) -> R<LaunchPlan> {
    let mut threads = 1u64;
    let mut warps = false;
    let mut grid_cap = None;
    let mut persistent = false;
    let mut text = String::new();
    for o in ctx.walk_collect(nest) {
        let reduce = ctx.isa::<mloop::ReduceOp>(o);
        if !(reduce || ctx.isa::<mloop::ParallelOp>(o)) {
            continue;
        }
        let Some(m) = mapping_of(ctx, o)? else { continue };
        let parts = loop_parts(ctx, o, reduce).map_err(|e| op_error(ctx, o, e))?;
        if !text.is_empty() {
            text.push_str(" > ");
        }
        if reduce {
            text.push_str("reduce ");
        }
        text.push_str(&m.to_string());
        for (g, lo, hi) in m.groups() {
            let ext: Option<u64> = (lo..hi).map(|d| const_extent(ctx, &parts, d)).product();
            match g.level {
                Level::Thread => {
                    let n = g.size.or(ext.map(|e| e.clamp(1, 1024))).unwrap_or(DEFAULT_THREADS);
                    threads = threads.max(n);
                }
                Level::Warp => {
                    let n = g.size.or(ext.map(|e| e.clamp(1, 32))).unwrap_or(DEFAULT_WARPS);
                    threads = threads.max(32 * n);
                    warps = true;
                }
                Level::Lane => warps = true,
                Level::Grid if o == nest => {
                    grid_cap = grid_cap.or(g.size);
                    persistent |= g.persistent;
                }
                Level::Grid | Level::Seq => {}
            }
        }
    }
    if warps || threads > 32 {
        threads = threads.div_ceil(32) * 32;
    }
    let threads = threads.min(1024);
    if grid_cap.is_none() && persistent {
        grid_cap = Some(device.sms.max(1) as u64 * (2048 / threads).max(1));
    }
    Ok(LaunchPlan { threads, grid_cap, text })
}

/// Lowers the mapped top-level nest `nest` into kernel `kname` and its launch (before the
/// nest); prints the schedule report line when `opts.report` asks, naming where the mapping
/// came `from` (`the IR`, or lower-loop-to-gpu's own fallback).
#[allow(clippy::too_many_arguments)]
pub(super) fn lower_mapped(
    ctx: &mut Context,
    mblock: BlockId,
    nest: OpId,
    kname: &str,
    names: &HashMap<(Value, usize), String>,
    opts: &LoopToGpuOptions,
    spills: &HashMap<Value, Value>,
    from: &str,
) -> PassResult {
    let plan = launch_plan(ctx, nest, &opts.device)?;
    let mut kb = KernelBuilder::new(ctx, mblock, nest, kname, names, opts, spills);
    let shape = kb.nest_shape(None, None);
    let base = choose_schedule(Mapping::Sequential, &shape, &kb.opts.device, &Overrides::default());
    kb.schedule = Some(Schedule { threads: plan.threads as u32, max_grid: plan.grid_cap.unwrap_or(0), ..base });
    let threads = kb.ctx.i64_attr(plan.threads as i64);
    kb.ctx.set_attr(kb.kernel, "max_threads", threads);
    // Atomic accumulates are not deterministic: the report and the kernel's schedule say so.
    let atomics = kb
        .ctx
        .walk_collect(nest)
        .into_iter()
        .filter(|&o| {
            kb.ctx.isa::<mloop::AccumulateOp>(o) && kb.ctx.attr(o, crate::transforms::loop_map::ATOMIC_ATTR).is_some()
        })
        .count();
    let geometry = format!(
        "threads={} grid<={} {}{}",
        plan.threads,
        plan.grid_cap.map_or("extent".to_string(), |g| g.to_string()),
        plan.text,
        if atomics > 0 { format!(" atomic accumulates={atomics} (not deterministic)") } else { String::new() }
    );
    let text = kb.ctx.str_attr(&format!("Mapped {geometry}"));
    kb.ctx.set_attr(kb.kernel, "morf.schedule", text);
    kb.mapped_parallel(nest, MapContext::default(), true)?;
    let notes = kb.schedule.as_ref().map(|s| s.notes.0.clone()).unwrap_or_default();
    // The grid: the extent of the top-level grid ivs, capped.
    let parts = loop_parts(kb.ctx, nest, false).map_err(|e| op_error(kb.ctx, nest, e))?;
    let m = mapping_of(kb.ctx, nest)?.unwrap_or(LoopMapping { dims: Vec::new() });
    let ib = Ib { before: nest };
    let mut work = ib.index(kb.ctx, 1);
    let mut any_grid = false;
    for (d, dm) in m.dims.iter().enumerate() {
        if dm.level == Level::Grid {
            let e = ib.extent(kb.ctx, parts.lbs[d], parts.ubs[d], parts.steps[d]);
            work = ib.mul(kb.ctx, work, e);
            any_grid = true;
        }
    }
    let blocks =
        if any_grid { kb.host_grid(work, 1, plan.grid_cap.unwrap_or(i32::MAX as u64)) } else { kb.host_index(1) };
    let zero = kb.host_index(0);
    kb.launch = Some((blocks, zero));
    kb.finish()?;
    if opts.report && opts.dry_run.is_none() {
        let loc = ctx.loc_prefix(ctx.op_loc(nest));
        morf_ir::io::eprint_lossy(&format!("{loc}: schedule: @{kname}: mapped {geometry} (from {from})\n"));
        for n in notes {
            morf_ir::io::eprint_lossy(&format!("{loc}: note: @{kname}: {n}\n"));
        }
    }
    Ok(())
}

impl<'a> KernelBuilder<'a> {
    /// The guard of stores at a point of context `c` that several threads share: the CTA's
    /// first thread (no CTA-level level entered) or the warp's first lane (inside a `warp`
    /// level only); `None` when each thread owns its points. Made once, in the prologue.
    fn owner_guard(&mut self, c: MapContext) -> Option<Value> {
        if c.lane || c.cta == Some(Level::Thread) {
            return None;
        }
        let (key, id) = if c.cta == Some(Level::Warp) {
            ("mapped.first_lane", self.id::<mgpu::LaneIdOp>())
        } else {
            ("mapped.first_thread", self.id::<mgpu::ThreadIdOp>())
        };
        if let Some(&g) = self.ids.get(key) {
            return Some(g);
        }
        let zero = self.iconst(0);
        let i1 = self.ctx.i1_type();
        let p = self.ctx.str_attr("eq");
        let op = self.prologue(mloop::CmpOp::state(self.loc, id, zero, i1, p));
        let g = self.ctx.result(op, 0);
        self.ids.insert(key, g);
        Some(g)
    }

    /// Emits the parallel `op` following its mapping (an unmapped one: every iv `seq`), in
    /// context `c` (`outermost`: the top-level nest).
    fn mapped_parallel(&mut self, op: OpId, c: MapContext, outermost: bool) -> R<()> {
        let parts = loop_parts(self.ctx, op, false).map_err(|e| op_error(self.ctx, op, e))?;
        let m = mapping_of(self.ctx, op)?;
        let groups: Vec<(Level, usize, usize)> = match &m {
            Some(m) if m.dims.len() == parts.ivs.len() => {
                m.groups().into_iter().map(|(g, lo, hi)| (g.level, lo, hi)).collect()
            }
            Some(m) => {
                return Err(op_error(
                    self.ctx,
                    op,
                    format!(
                        "'mapping' has {} entries, but the loop has {} induction variables",
                        m.dims.len(),
                        parts.ivs.len()
                    ),
                ))
            }
            None => (0..parts.ivs.len()).map(|d| (Level::Seq, d, d + 1)).collect(),
        };
        self.mapped_groups(op, &parts, &groups, 0, c, outermost)
    }

    /// Emits the loops of `groups[gi..]` of parallel `op`, then its body.
    fn mapped_groups(
        &mut self,
        op: OpId,
        parts: &LoopParts,
        groups: &[(Level, usize, usize)],
        gi: usize,
        c: MapContext,
        outermost: bool,
    ) -> R<()> {
        let Some(&(level, lo, hi)) = groups.get(gi) else {
            self.mapped_block(parts.body, c)?;
            return Ok(());
        };
        let inner = c
            .enter(level, outermost)
            .map_err(|e| op_error(self.ctx, op, format!("invalid 'mapping': induction variable #{lo}: {e}")))?;
        let (ext, _) = self.extents(parts)?;
        let mut total = self.iconst(1);
        for e in &ext[lo..hi] {
            total = self.ibin(Ix::Mul, total, *e);
        }
        let (start, stride) = self.level_range(level);
        // The innermost iv alone at `lane` or `thread` over a flat body: v columns a step
        // (looped_vectors); each thread owns its points there, so the body needs no guard.
        if gi + 1 == groups.len()
            && hi == lo + 1
            && hi == parts.ivs.len()
            && matches!(level, Level::Lane | Level::Thread)
        {
            let lp = LoopParts {
                lbs: vec![parts.lbs[lo]],
                ubs: vec![parts.ubs[lo]],
                steps: vec![parts.steps[lo]],
                init: None,
                body: parts.body,
                ivs: vec![parts.ivs[lo]],
            };
            if let Some(plan) = self.looped_plan_noted(&lp, op) {
                return self.looped_parallel(&lp, &plan, start, stride, ext[lo]);
            }
        }
        self.for_loop(start, total, stride, &[], &mut |kb, e, _| {
            kb.bind_flat_dims(parts, &ext, lo, hi, e)?;
            kb.mapped_groups(op, parts, groups, gi + 1, inner, outermost)?;
            Ok(vec![])
        })?;
        Ok(())
    }

    /// The first position and the stride of a loop distributed over `level`.
    fn level_range(&mut self, level: Level) -> (Value, Value) {
        match level {
            Level::Grid => (self.id::<mgpu::BlockIdOp>(), self.id::<mgpu::GridDimOp>()),
            Level::Warp => {
                let w = self.id::<mgpu::WarpIdOp>();
                let bdim = self.id::<mgpu::BlockDimOp>();
                let c31 = self.iconst(31);
                let c32 = self.iconst(32);
                let n = self.ibin(Ix::Add, bdim, c31);
                (w, self.ibin(Ix::Div, n, c32))
            }
            Level::Lane => (self.id::<mgpu::LaneIdOp>(), self.iconst(32)),
            Level::Thread => (self.id::<mgpu::ThreadIdOp>(), self.id::<mgpu::BlockDimOp>()),
            Level::Seq => (self.iconst(0), self.iconst(1)),
        }
    }

    /// Emits the ops of a block of a mapped nest in context `c`; returns the yielded values.
    fn mapped_block(&mut self, b: BlockId, c: MapContext) -> R<Vec<Value>> {
        let ops: Vec<OpId> = self.ctx.block_ops(b).collect();
        let mut yielded = Vec::new();
        for op in ops {
            if self.ctx.isa::<mloop::YieldOp>(op) {
                for v in self.ctx.operands(op).to_vec() {
                    yielded.push(self.get(v)?);
                }
            } else if self.ctx.isa::<mloop::ParallelOp>(op) && self.ctx.attr(op, MAPPING_ATTR).is_some() {
                self.mapped_parallel(op, c, false)?;
            } else if self.ctx.isa::<mloop::ReduceOp>(op) && self.ctx.attr(op, MAPPING_ATTR).is_some() {
                self.mapped_reduce(op, c)?;
            } else if let Some(f) = self.ctx.dyn_cast::<mloop::ForOp>(op) {
                // `seq`: in order; its body may hold mapped loops.
                let (lb, ub, st) = (f.lower_bound(self.ctx), f.upper_bound(self.ctx), f.step(self.ctx));
                let (lb, ub, st) = (self.get(lb)?, self.get(ub)?, self.get(st)?);
                let inits = f.inits(self.ctx).to_vec();
                let inits = self.get_all(&inits)?;
                let body = self.ctx.entry_block(f.body(self.ctx)).expect("for body");
                let bargs = self.ctx.block_args(body).to_vec();
                let rs = self.for_loop(lb, ub, st, &inits, &mut |kb, iv, iters| {
                    kb.map.insert(bargs[0], iv);
                    for (a, v) in bargs[1..].iter().zip(iters) {
                        kb.map.insert(*a, *v);
                    }
                    kb.mapped_block(body, c)
                })?;
                for (a, v) in self.ctx.results(op).to_vec().into_iter().zip(rs) {
                    self.map.insert(a, v);
                }
            } else {
                // Everything else as in the sequential lowering; its stores and accumulates
                // (also inside unmapped loops) by one owner of the point.
                let saved = self.row_guard;
                if self.writes(op) {
                    self.row_guard = self.owner_guard(c);
                }
                let r = self.emit_op(op);
                self.row_guard = saved;
                r?;
            }
        }
        Ok(yielded)
    }

    /// Whether `op` is, or holds, a store or an accumulate.
    fn writes(&self, op: OpId) -> bool {
        self.ctx
            .walk_collect(op)
            .iter()
            .any(|&o| self.ctx.isa::<mloop::StoreOp>(o) || self.ctx.isa::<mloop::AccumulateOp>(o))
    }

    /// A reduce mapped to `lane` (a warp reduction) or `thread` (a CTA reduction), or `seq`.
    fn mapped_reduce(&mut self, op: OpId, c: MapContext) -> R<()> {
        let m = mapping_of(self.ctx, op)?.expect("mapped");
        let level = m.dims.first().map_or(Level::Seq, |d| d.level);
        if m.dims.iter().any(|d| d.level != level) {
            return Err(op_error(
                self.ctx,
                op,
                "invalid 'mapping': every induction variable of a reduce has one level",
            ));
        }
        c.reduce_ok(level).map_err(|e| op_error(self.ctx, op, format!("invalid 'mapping': {e}")))?;
        if level == Level::Seq {
            let saved = self.row_guard;
            self.row_guard = self.owner_guard(c);
            let r = self.emit_op(op);
            self.row_guard = saved;
            return r;
        }
        let parts = loop_parts(self.ctx, op, true).map_err(|e| op_error(self.ctx, op, e))?;
        let kind = kind_name(self.ctx, op).unwrap_or_default();
        let init = self.get(parts.init.expect("reduce"))?;
        let ty = self.ctx.value_type(init);
        if !self.ctx.is_float(ty) || !matches!(kind.as_str(), "sum" | "max" | "min") {
            let t = self.ctx.type_to_string(ty);
            return Err(op_error(
                self.ctx,
                op,
                format!(
                    "a '{}' reduction of kind '{kind}' over '{t}' has no GPU lowering (sum, max or min of a float)",
                    level.name()
                ),
            ));
        }
        let (ext, total) = self.extents(&parts)?;
        let (start, stride) = self.level_range(level);
        let body = parts.body;
        // A flat 1-D reduce along a contiguous row: v columns a step (looped_vectors).
        let part = match self.looped_plan_noted(&parts, op) {
            Some(plan) => self.looped_reduce(&parts, &plan, &kind, ty, start, stride, ext[0], true)?,
            None => self.blocked_reduce(&kind, ty, start, total, stride, &mut |kb, e| {
                kb.bind_flat(&parts, &ext, e)?;
                let saved = kb.row_guard.take();
                let ys = kb.emit_block(body);
                kb.row_guard = saved;
                Ok(ys?[0])
            })?,
        };
        let red = if level == Level::Lane { self.warp_reduce(&kind, part) } else { self.block_reduce(&kind, part)? };
        let r = self.combine(&kind, init, red)?;
        self.map.insert(self.ctx.result(op, 0), r);
        Ok(())
    }
}
