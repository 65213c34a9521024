//! Split-K column reductions and final reductions, a child module of `loop_to_gpu`
//! (docs/conversion-loop-to-gpu.md, "FinalReduction and split-K column reductions"): the
//! partial launch of a column reduction into a workspace ([`KernelBuilder::split_partial`]),
//! the final reduction of a workspace or of a row kernel's partials
//! ([`KernelBuilder::final_reduction`]: tiles of columns, lanes' row groups, strided terms
//! loaded together and combined in order), and the scalar emission of partial sums
//! ([`KernelBuilder::emit_partials`]).

use super::*;

impl<'a> KernelBuilder<'a> {
    /// The reduces of a nest body, in order.
    pub(super) fn body_reduces(&self, body: BlockId) -> Vec<OpId> {
        self.ctx.block_ops(body).filter(|&o| self.ctx.isa::<mloop::ReduceOp>(o)).collect()
    }

    /// A parallel whose body holds at least one reduce (flat, float, sum/max/min) and no other
    /// region op, where no reduce's body uses a value computed from a reduce's result (so the
    /// partials can be computed before any epilogue op).
    pub(super) fn column_reduction_ok(&self, op: OpId) -> bool {
        let ctx = &*self.ctx;
        let Ok(parts) = loop_parts(ctx, op, false) else { return false };
        let mut tainted: HashSet<Value> = HashSet::new();
        let mut reduces = 0;
        for o in ctx.block_ops(parts.body) {
            match LoopOp::of(ctx, o) {
                LoopOp::Reduce(_) => {
                    let kind = kind_name(ctx, o).unwrap_or_default();
                    let Ok(rp) = loop_parts(ctx, o, true) else { return false };
                    let float = rp.init.is_some_and(|v| ctx.is_float(ctx.value_type(v)));
                    if !self.flat_body(o) || !float || !matches!(kind.as_str(), "sum" | "max" | "min") {
                        return false;
                    }
                    let uses_tainted = ctx
                        .walk_collect(o)
                        .iter()
                        .any(|&x| x != o && ctx.operands(x).iter().any(|v| tainted.contains(v)))
                        || rp.lbs.iter().chain(&rp.ubs).chain(&rp.steps).any(|v| tainted.contains(v));
                    if uses_tainted {
                        return false;
                    }
                    tainted.extend(ctx.results(o).iter().copied());
                    reduces += 1;
                }
                _ if !ctx.regions(o).is_empty() => return false,
                _ => {
                    if ctx.operands(o).iter().any(|v| tainted.contains(v)) {
                        tainted.extend(ctx.results(o).iter().copied());
                    }
                }
            }
        }
        reduces > 0
    }

    /// Whether a column-reduction-shaped nest takes the split-K form: every reduce has bounds
    /// from outside the nest and the accumulator type of the first; reductions known to be
    /// short (<= 32 points) stay one thread per column.
    pub(super) fn split_ok(&self, op: OpId) -> bool {
        let ctx = &*self.ctx;
        let Ok(parts) = loop_parts(ctx, op, false) else { return false };
        let mut ty = None;
        for r in self.body_reduces(parts.body) {
            let Ok(rp) = loop_parts(ctx, r, true) else { return false };
            if !rp.lbs.iter().chain(&rp.ubs).chain(&rp.steps).all(|v| defined_outside(ctx, *v, op)) {
                return false;
            }
            let t = ctx.value_type(rp.init.expect("reduce"));
            if *ty.get_or_insert(t) != t {
                return false;
            }
            let total: Option<u64> = rp.ubs.iter().map(|u| self.size_of(*u)).product();
            if total.is_some_and(|n| n <= 32) {
                return false;
            }
        }
        ty.is_some()
    }

    /// A size estimate of a host index value: static, hinted, or arithmetic on those.
    pub(super) fn hint_of(&self, v: Value, depth: u32) -> Option<u64> {
        if let Some(n) = self.size_of(v) {
            return Some(n);
        }
        let d = self.ctx.defining_op(v)?;
        if depth > 8 || self.ctx.operands(d).len() != 2 {
            return None;
        }
        let a = self.hint_of(self.ctx.operand(d, 0), depth + 1)?;
        let b = self.hint_of(self.ctx.operand(d, 1), depth + 1)?;
        let Some(Elementwise::Binary(f)) = elementwise(self.ctx, d) else { return None };
        match f {
            BinaryFn::Add => a.checked_add(b),
            BinaryFn::Sub => Some(a.saturating_sub(b)),
            BinaryFn::Mul => a.checked_mul(b),
            BinaryFn::Div if b > 0 => Some(a / b),
            BinaryFn::Max => Some(a.max(b)),
            BinaryFn::Min => Some(a.min(b)),
            _ => None,
        }
    }

    /// Emits the ops of a reduction nest's `body` that do not depend on a reduce's result
    /// (stores and accumulates skipped) and, for the `p`-th reduce, the partial over the flat
    /// positions of `range`, handing it to `out(p, partial)`. With `ws = (W, blocks, N, j)`
    /// the reduce's value at position `s` is `W[p * blocks + s, j]` (the final launch of a
    /// split-K reduction, over `blocks` positions) instead of its body.
    pub(super) fn emit_partials(
        &mut self,
        body: BlockId,
        range: &PosRange,
        ws: Option<(Value, Value, Value, Value)>,
        out: &mut dyn FnMut(&mut Self, usize, Value) -> R<()>,
    ) -> R<()> {
        let ops: Vec<OpId> = self.ctx.block_ops(body).collect();
        let mut tainted: HashSet<Value> = HashSet::new();
        let mut p = 0;
        for o in ops {
            let kind = LoopOp::of(self.ctx, o);
            if matches!(kind, LoopOp::Yield | LoopOp::Store(_) | LoopOp::Accumulate(_)) {
                continue;
            }
            if let LoopOp::Reduce(_) = kind {
                tainted.extend(self.ctx.results(o).iter().copied());
                let parts = loop_parts(self.ctx, o, true).map_err(|e| op_error(self.ctx, o, e))?;
                let kind = kind_name(self.ctx, o).unwrap_or_default();
                let ty = self.ctx.value_type(parts.init.expect("reduce"));
                let id = self.fconst(identity(&kind), ty);
                let (ext, total) = match ws {
                    Some((_, blocks, _, _)) => (Vec::new(), blocks),
                    None => self.extents(&parts)?,
                };
                let one = self.iconst(1);
                // Positions lb, lb + st, ... below ub.
                let (lb, ub, st) = match range {
                    PosRange::Block { lo, len } => {
                        let hi = self.ibin(Ix::Add, *lo, *len);
                        (*lo, self.ibin(Ix::Min, total, hi), one)
                    }
                    PosRange::Strided { start, step } => (*start, total, *step),
                };
                let pc = p as i64;
                // One term of the reduction at position `pos`.
                let term = |kb: &mut Self, pos: Value| -> R<Value> {
                    Ok(match ws {
                        Some((w, blocks, n, j)) => {
                            let pv = kb.iconst(pc);
                            let r = kb.ibin(Ix::Mul, pv, blocks);
                            let r = kb.ibin(Ix::Add, r, pos);
                            let r = kb.ibin(Ix::Mul, r, n);
                            let off = kb.ibin(Ix::Add, r, j);
                            let nc = kb.ctx.unit_attr();
                            kb.push1(mgpu::LoadOp::state(kb.loc, w, off, ty, Some(nc), None))
                        }
                        None => {
                            kb.bind_flat(&parts, &ext, pos)?;
                            kb.emit_block(parts.body)?[0]
                        }
                    })
                };
                // A warp's strided terms (a final reduction's splits), or a thread's block of
                // rows (a split-K partial), in groups of `strided_unroll`: the group's loads
                // issue together, then combine in order (the same sum, bit for bit); the
                // remainder one at a time.
                let unroll = match range {
                    PosRange::Block { .. } => {
                        super::vector_forms::block_unroll(self.ctx, parts.body, self.strided_unroll)
                    }
                    PosRange::Strided { .. } => self.strided_unroll,
                };
                let acc = self.grouped_for(
                    lb,
                    ub,
                    st,
                    unroll,
                    &[id],
                    &mut |kb, pos, acc, count| {
                        let mut ys = Vec::new();
                        let mut at = pos;
                        for k in 0..count {
                            if k > 0 {
                                at = kb.ibin(Ix::Add, at, st);
                            }
                            ys.push(term(kb, at)?);
                        }
                        let mut a = acc[0];
                        for y in ys {
                            a = kb.combine(&kind, a, y)?;
                        }
                        Ok(vec![a])
                    },
                    &mut |_| {},
                )?[0];
                out(self, p, acc)?;
                p += 1;
                continue;
            }
            if self.ctx.operands(o).iter().any(|v| tainted.contains(v)) {
                tainted.extend(self.ctx.results(o).iter().copied());
                continue;
            }
            self.emit_op(o)?;
        }
        Ok(())
    }

    /// The partial launch of a split-K column reduction: the host allocates the workspace
    /// `W[reduces x blocks, N]` (accumulator type) before the nest; a thread per (block `b`,
    /// column `j`), `j` fastest (coalesced), sums the rows `[b*S, min(M, b*S + S))` in order
    /// and stores `W[p * blocks + b, j]`.
    pub(super) fn split_partial(&mut self, op: OpId) -> R<SplitWs> {
        let parts = loop_parts(self.ctx, op, false).map_err(|e| op_error(self.ctx, op, e))?;
        let reduces = self.body_reduces(parts.body);
        let rparts: Vec<LoopParts> = reduces
            .iter()
            .map(|&r| loop_parts(self.ctx, r, true).map_err(|e| op_error(self.ctx, r, e)))
            .collect::<R<_>>()?;
        let ncols: Option<u64> = parts.ubs.iter().map(|u| self.size_of(*u)).product();
        let mut mrows: Option<u64> = Some(0);
        for rp in &rparts {
            let t: Option<u64> = rp.ubs.iter().map(|u| self.hint_of(*u, 0)).product();
            mrows = mrows.zip(t).map(|(a, b)| a.max(b));
        }
        let mut shape = self.nest_shape(mrows, ncols);
        shape.work_per_point = self.work_per_point(parts.body);
        let plan = self.vec_plan(op, true);
        let (sms, fixed) = (self.opts.device.sms.max(1) as u64, self.opts.overrides.split_rows > 0);
        let s = self.set_schedule_with(Mapping::SplitPartial, &shape, &mut |s, ir| {
            vector_choice(&plan, s, ir);
            if !ir && !fixed && s.vector > 1 {
                // A thread takes a vector of columns: fewer threads per block of rows.
                s.split_rows = split_rows(&shape, s.threads, s.vector, sms);
            }
        });
        let rows = s.split_rows.max(1);
        let acc_ty = self.ctx.value_type(rparts[0].init.expect("reduce"));
        // Columns a thread takes: the vector form's `v`, else one.
        let tv = if plan.is_ok() { s.vector.max(1) as u64 } else { 1 };
        let ncols_host = self.host_total(&parts);

        // Host: S = max(split_rows, ceil(M / fit)), where fit = max(1, resident CTAs x
        // threads x tv / N) is the blocks whose threads the device holds at once
        // (`mgpu.resident_blocks` of this kernel): the blocks fill one wave of resident
        // threads, with no second wave for a few CTAs (the heuristic's count assumes a
        // kernel light enough for 8 CTAs a SM; a heavier one holds fewer). A `morf.schedule`
        // attribute's `split_rows` is the least too (`gpu-choose-schedule` then lowers as
        // the heuristic does); the pass option `split-rows=N` fixes S. Then blocks =
        // max(1, ceil(M / S)), M the longest reduce's extent, and W = alloc(P * blocks, N).
        let ib = Ib { before: self.nest };
        let mut mext = ib.index(self.ctx, 1);
        for rp in &rparts {
            let mut ext = ib.index(self.ctx, 1);
            for d in 0..rp.ivs.len() {
                let e = ib.extent(self.ctx, rp.lbs[d], rp.ubs[d], rp.steps[d]);
                ext = ib.mul(self.ctx, ext, e);
            }
            mext = ib.max(self.ctx, mext, ext);
        }
        let mut sv = ib.index(self.ctx, rows as i64);
        let one = ib.index(self.ctx, 1);
        let fills = !fixed;
        if fills {
            let it = self.ctx.index_type();
            let name = symbol_name(self.ctx, self.kernel).unwrap_or_default().to_string();
            let sym = self.ctx.symbol_ref_attr(&name);
            let (threads, shared) = (ib.index(self.ctx, s.threads as i64), ib.index(self.ctx, 0));
            let rb =
                insert_before(self.ctx, self.nest, mgpu::ResidentBlocksOp::state(self.loc, threads, shared, it, sym));
            let rb = self.ctx.result(rb, 0);
            let cols = ib.index(self.ctx, (s.threads as u64 * tv) as i64);
            let cols = ib.mul(self.ctx, rb, cols);
            let fit = ib.div(self.ctx, cols, ncols_host);
            let fit = ib.max(self.ctx, fit, one);
            let sfit = ib.ceildiv(self.ctx, mext, fit);
            sv = ib.max(self.ctx, sv, sfit);
        }
        let blocks = ib.ceildiv(self.ctx, mext, sv);
        let blocks = ib.max(self.ctx, blocks, one);
        let np = ib.index(self.ctx, rparts.len() as i64);
        let wrows = ib.mul(self.ctx, np, blocks);
        let sizes = [wrows, ncols_host];
        let dims: Vec<Dim> = sizes
            .iter()
            .map(|v| const_int(self.ctx, *v).map_or(Dim::Dynamic, |c| Dim::Static(c.max(0) as u64)))
            .collect();
        let dynamic: Vec<Value> = sizes.iter().copied().filter(|v| const_int(self.ctx, *v).is_none()).collect();
        let wty = buffer_type(self.ctx, &dims, acc_ty);
        let alloc = insert_before(self.ctx, self.nest, mloop::AllocOp::state(self.loc, &dynamic, wty));
        let w = self.ctx.result(alloc, 0);
        self.ctx.set_value_name(w, Some("split_ws"));
        let work_host = ib.mul(self.ctx, blocks, ncols_host);

        // The blocks the final reduction's schedule plans for: at the heuristic's full wave
        // (`max_grid` CTAs) where the run time raises S, the most blocks that can be.
        let blocks_hint = mrows.map(|m| {
            let fit = (s.max_grid * s.threads as u64 * tv / ncols.unwrap_or(1).max(1)).max(1);
            let rows = if fills { rows.max(m.div_ceil(fit)) } else { rows };
            m.div_ceil(rows).max(1)
        });
        if fills {
            if let Some(sched) = self.schedule.as_mut() {
                sched.notes.0.push(format!(
                    "split-K partial: at least {rows} rows a block, raised at run time until the blocks fit the \
                     threads the device holds at once (one wave; split-rows=N fixes it)"
                ));
            }
        }

        // Kernel.
        let (ext, total) = self.extents(&parts)?;
        let wk = self.get(w)?;
        let bk = self.get(blocks)?;
        let sk = if fills { self.get(sv)? } else { self.iconst(rows as i64) };
        let work = self.ibin(Ix::Mul, bk, total);
        if let (Ok(plan), v @ 2..) = (&plan, s.vector as usize) {
            self.split_partial_vec(&parts, plan, v, wk, bk, sk)?;
            let per_cta = s.threads as u64 * v as u64;
            let blocks_launch = self.host_grid(work_host, per_cta, s.max_grid);
            let zero = self.host_index(0);
            self.launch = Some((blocks_launch, zero));
            return Ok(SplitWs { w, blocks, blocks_hint });
        }
        let (g, stride) = self.global_thread();
        self.for_loop(g, work, stride, &[], &mut |kb, e, _| {
            let b = kb.ibin(Ix::Div, e, total);
            let j = kb.ibin(Ix::Rem, e, total);
            kb.bind_flat(&parts, &ext, j)?;
            let lo = kb.ibin(Ix::Mul, b, sk);
            kb.emit_partials(parts.body, &PosRange::Block { lo, len: sk }, None, &mut |kb, p, acc| {
                let pv = kb.iconst(p as i64);
                let r = kb.ibin(Ix::Mul, pv, bk);
                let r = kb.ibin(Ix::Add, r, b);
                let r = kb.ibin(Ix::Mul, r, total);
                let off = kb.ibin(Ix::Add, r, j);
                kb.push(mgpu::StoreOp::state(kb.loc, acc, wk, off));
                Ok(())
            })?;
            Ok(vec![])
        })?;
        let blocks_launch = self.host_grid(work_host, s.threads as u64, s.max_grid);
        let zero = self.host_index(0);
        self.launch = Some((blocks_launch, zero));
        Ok(SplitWs { w, blocks, blocks_hint })
    }

    /// The final reduction: CTAs of R warps over tiles of `W = C x v` columns, grid-stride
    /// over the tiles, `C = threads_per_row` lanes a row segment and `v = vector` columns a
    /// lane. Lane `l` of warp `w` (slot `s = 32 w + l`) takes the `v` columns from `(s % C) x
    /// v` of the tile and row group `q = s / C` of `Q = 32 R / C`; it combines positions
    /// `q, q + Q, ...` of each reduce in order (its body, or the split-K workspace `ws`),
    /// [`strided_terms`] terms loaded together (the last ones predicated), and writes its `v`
    /// partials to shared
    /// memory at `q x W + (s % C) x v + e`, where column `c` of the tile finds its group-`q`
    /// partial at `q x W + c`. After a barrier the first `W` slots combine the Q partials of
    /// their column `c = s` in group order (`init (+) ...`) and run the rest of the body
    /// (epilogue, stores). Lanes past N do nothing but the barriers.
    ///
    /// `v > 1` is the vector form ([`VecPlan`]: 16-byte loads of the partials, four times the
    /// bytes in flight of one float a lane; or, with a `ws`, 16 bytes of the accumulator); where its run-time
    /// guard fails (a row stride not a multiple of `v`), the kernel runs the scalar form,
    /// `v = 1` over tiles of `min(32, W)` columns.
    pub(super) fn final_reduction(&mut self, op: OpId, ws: Option<SplitWs>) -> R<()> {
        let parts = loop_parts(self.ctx, op, false).map_err(|e| op_error(self.ctx, op, e))?;
        let reduces = self.body_reduces(parts.body);
        let ncols: Option<u64> = parts.ubs.iter().map(|u| self.size_of(*u)).product();
        let nsplit = match ws {
            Some(w) => w.blocks_hint,
            None => {
                let rp = loop_parts(self.ctx, reduces[0], true).map_err(|e| op_error(self.ctx, op, e))?;
                rp.ubs.iter().map(|u| self.hint_of(*u, 0)).product()
            }
        };
        let shape = self.nest_shape(nsplit, ncols);
        // The vector form: the body's (a [`VecPlan`]), or the split-K workspace's rows of
        // 16 bytes of the accumulator.
        let plan = match ws {
            None => self.vec_plan(op, true).map(|p| (p.v, Some(p))),
            Some(_) => {
                let rp = loop_parts(self.ctx, reduces[0], true).map_err(|e| op_error(self.ctx, op, e))?;
                let ty = self.ctx.value_type(rp.init.expect("reduce"));
                let cap = match self.opts.overrides.vector {
                    0 => 8,
                    c => pow2_floor(c),
                };
                match float_bytes(self.ctx, ty) {
                    Some(b) if (16 / b).min(cap) > 1 => Ok(((16 / b).min(cap) as usize, None)),
                    Some(_) if cap < 2 => Err("the option vector=1".to_string()),
                    _ => Err("a vector of 16 bytes holds one accumulator".to_string()),
                }
            }
        };
        let grid = self.grid_hint;
        let trip = strided_terms(self.strided_unroll, reduces.len()) as u32;
        let lanes_fixed = is_final_lanes(self.opts.overrides.threads_per_row);
        let final_lanes = self.opts.final_lanes;
        let s = self.set_schedule_with(Mapping::FinalReduction, &shape, &mut |s, ir| {
            let v = match &plan {
                Ok((pv, _)) if ir => (*pv).min(pow2_floor(s.vector) as usize),
                Ok((pv, _)) => *pv,
                Err(_) => 1,
            };
            s.vector = v as u32;
            match &plan {
                Err(why) => s.notes.0.push(format!("final reduction: scalar loads of the partials: {why}")),
                Ok(_) if v < 2 => s.notes.0.push("final reduction: scalar loads of the partials: vector=1".into()),
                Ok(_) if !ir && !lanes_fixed => {
                    let g = grid.unwrap_or(s.max_grid);
                    s.threads_per_row = final_vec_lanes(shape.cols, shape.rows, s.threads, s.vector, trip, g);
                    s.rows_per_cta = s.threads / s.threads_per_row;
                }
                Ok(_) => {}
            }
            if !ir && final_lanes > 0 {
                s.threads_per_row = final_lanes;
                s.rows_per_cta = (s.threads / final_lanes).max(1);
            }
        });
        if let (Some(n), Some(sched)) = (self.unroll_note.take(), self.schedule.as_mut()) {
            sched.notes.0.push(n);
        }
        let v = s.vector.max(1) as i64;
        let lanes = s.threads_per_row.clamp(1, 32) as i64;
        let width = lanes * v;
        // One shared array of R x 32 x v partials per reduce.
        let warps = (s.threads / 32) as i64;
        let mut smem = Vec::new();
        for &r in &reduces {
            let rp = loop_parts(self.ctx, r, true).map_err(|e| op_error(self.ctx, r, e))?;
            let ty = self.ctx.value_type(rp.init.expect("reduce"));
            let pt = ptr_type(self.ctx, ty, true);
            let size = self.ctx.i64_attr(warps * 32 * v);
            let a = self.prologue(mgpu::SharedAllocOp::state(self.loc, pt, size));
            smem.push((self.ctx.result(a, 0), ty));
        }
        match plan {
            Ok((_, plan)) if v > 1 => {
                // Whole vectors: the row (or, for a workspace, all the columns) a multiple of v.
                let (ext, total) = self.extents(&parts)?;
                let ncols = if plan.is_some() { ext[ext.len() - 1] } else { total };
                let (zero, vc) = (self.iconst(0), self.iconst(v));
                let r = self.ibin(Ix::Rem, ncols, vc);
                let mut guard = self.icmp("eq", r, zero);
                if let Some(p) = &plan {
                    // Both: r == 0 ? (the plan's guard ? 0 : 1) : 1, compared with 0.
                    let g = self.vec_guard(p, v as usize, ncols)?;
                    let (it, one) = (self.it(), self.iconst(1));
                    let a = self.push1(mloop::SelectOp::state(self.loc, g, zero, one, it));
                    let b = self.push1(mloop::SelectOp::state(self.loc, guard, a, one, it));
                    guard = self.icmp("eq", b, zero);
                }
                self.if_then_else(guard, &mut |kb| kb.final_tiles(&parts, &smem, ws, lanes, v), &mut |kb| {
                    kb.final_tiles(&parts, &smem, ws, width.min(32), 1)
                })?;
            }
            _ => self.final_tiles(&parts, &smem, ws, lanes, 1)?,
        }
        let work = self.host_total(&parts);
        let blocks = self.host_grid(work, width as u64, s.max_grid);
        let zero = self.host_index(0);
        self.launch = Some((blocks, zero));
        Ok(())
    }

    /// One form of [`Self::final_reduction`]: the grid-stride loop over tiles of `lanes x v`
    /// columns, `v` columns a lane (`v > 1`: the vector form, on the fast emitter; `ws`:
    /// the scalar form's split-K workspace).
    pub(super) fn final_tiles(
        &mut self,
        parts: &LoopParts,
        smem: &[(Value, Type)],
        ws: Option<SplitWs>,
        lanes: i64,
        v: i64,
    ) -> R<()> {
        let threads = self.schedule.as_ref().map_or(256, |s| s.threads) as i64;
        let width = lanes * v;
        let groups = threads / lanes;
        let (ext, total) = self.extents(parts)?;
        let n = parts.ivs.len();
        let j = parts.ivs[n - 1];
        let wsk = match ws {
            Some(w) => Some((self.get(w.w)?, self.get(w.blocks)?)),
            None => None,
        };
        let lane = self.id::<mgpu::LaneIdOp>();
        let warp = self.id::<mgpu::WarpIdOp>();
        let bid = self.id::<mgpu::BlockIdOp>();
        let gdim = self.id::<mgpu::GridDimOp>();
        let (c32, ct, cw, cv, qk) =
            (self.iconst(32), self.iconst(lanes), self.iconst(width), self.iconst(v), self.iconst(groups));
        let wm1 = self.iconst(width - 1);
        let t = self.ibin(Ix::Add, total, wm1);
        let tiles = self.ibin(Ix::Div, t, cw);
        // The slot s = 32 w + l: row group s / C, lane s % C of the segment.
        let slot = self.ibin(Ix::Mul, warp, c32);
        let slot = self.ibin(Ix::Add, slot, lane);
        let (seg, group) =
            if lanes == 32 { (lane, warp) } else { (self.ibin(Ix::Rem, slot, ct), self.ibin(Ix::Div, slot, ct)) };
        let combiner = self.icmp("lt", slot, cw);
        let body = parts.body;
        let range = PosRange::Strided { start: group, step: qk };
        self.for_loop(bid, tiles, gdim, &[], &mut |kb, t, _| {
            let t0 = kb.ibin(Ix::Mul, t, cw);
            if v > 1 {
                // Flat element e0 = t W + (s % C) v: the vector's first element (for a body,
                // its outer point and first column).
                let e = kb.ibin(Ix::Mul, seg, cv);
                let e0 = kb.ibin(Ix::Add, t0, e);
                let valid = kb.icmp("lt", e0, total);
                match wsk {
                    // The workspace's vector form: W[p * blocks + pos, e0 .. e0 + v).
                    Some((w, blocks)) => kb.if_then(valid, &mut |kb| {
                        // The lane's v partials of reduce p at slot s v + k.
                        let base = kb.ibin(Ix::Mul, slot, cv);
                        kb.ws_vec_partials(body, w, blocks, total, e0, v as usize, group, qk, &mut |kb, p, accs| {
                            kb.vstore_scalars(&accs, smem[p].0, base, None)
                        })
                    })?,
                    None => {
                        kb.if_then(valid, &mut |kb| {
                            let ncols = ext[n - 1];
                            let j0 = if n > 1 {
                                let o = kb.ibin(Ix::Div, e0, ncols);
                                kb.bind_flat_dims(parts, &ext, 0, n - 1, o)?;
                                kb.ibin(Ix::Rem, e0, ncols)
                            } else {
                                e0
                            };
                            kb.vec_state(v as usize, j0);
                            kb.fs().fmap.insert(j, Fv::J);
                            let base = kb.ibin(Ix::Mul, slot, cv);
                            let res = kb.vec_partials(body, j, &range, &mut |kb, p, accs| {
                                kb.vstore_scalars(&accs, smem[p].0, base, None)
                            });
                            kb.fast = None;
                            res
                        })?;
                        kb.forget_nest_values();
                    }
                }
            } else {
                let jf = kb.ibin(Ix::Add, t0, seg);
                let valid = kb.icmp("lt", jf, total);
                kb.bind_flat(parts, &ext, jf)?;
                kb.if_then(valid, &mut |kb| {
                    let ws4 = wsk.map(|(w, b)| (w, b, total, jf));
                    kb.emit_partials(body, &range, ws4, &mut |kb, p, acc| {
                        kb.push(mgpu::StoreOp::state(kb.loc, acc, smem[p].0, slot));
                        Ok(())
                    })
                })?;
            }
            kb.push(mgpu::BarrierOp::state(kb.loc));
            // Column c of the tile (c = s, and s + threads... where the tile is wider than the
            // CTA): its Q group partials at q W + c, in group order.
            let combine = &mut |kb: &mut Self, c: Value| -> R<()> {
                let jc = kb.ibin(Ix::Add, t0, c);
                let valid = kb.icmp("lt", jc, total);
                kb.if_then(valid, &mut |kb| {
                    kb.bind_flat(parts, &ext, jc)?;
                    let ops: Vec<OpId> = kb.ctx.block_ops(body).collect();
                    let mut p = 0;
                    for o in ops {
                        match LoopOp::of(kb.ctx, o) {
                            LoopOp::Yield => {}
                            LoopOp::Reduce(_) => {
                                let rp = loop_parts(kb.ctx, o, true).map_err(|e| op_error(kb.ctx, o, e))?;
                                let kind = kind_name(kb.ctx, o).unwrap_or_default();
                                let init = kb.get(rp.init.expect("reduce"))?;
                                let (sm, ty) = smem[p];
                                let (zero, one) = (kb.iconst(0), kb.iconst(1));
                                let tot = kb.for_loop(zero, qk, one, &[init], &mut |kb, q, acc| {
                                    let a = kb.ibin(Ix::Mul, q, cw);
                                    let a = kb.ibin(Ix::Add, a, c);
                                    let x = kb.push1(mgpu::LoadOp::state(kb.loc, sm, a, ty, None, None));
                                    Ok(vec![kb.combine(&kind, acc[0], x)?])
                                })?[0];
                                kb.map.insert(kb.ctx.result(o, 0), tot);
                                p += 1;
                            }
                            _ => kb.emit_op(o)?,
                        }
                    }
                    Ok(())
                })
            };
            if width <= threads {
                kb.if_then(combiner, &mut |kb| combine(kb, slot))?;
            } else {
                let ct = kb.iconst(threads);
                kb.for_loop(slot, cw, ct, &[], &mut |kb, c, _| {
                    combine(kb, c)?;
                    Ok(vec![])
                })?;
            }
            kb.push(mgpu::BarrierOp::state(kb.loc));
            kb.forget_nest_values();
            Ok(vec![])
        })?;
        Ok(())
    }

    /// The vector form of a final reduction's partials over a split-K workspace `w` (rows of
    /// `n` columns, reduce `p`'s `blocks` rows from row `p * blocks`): the `v` columns from `e0`
    /// of rows `start, start + step, ...` of every reduce of `body`, combined in row order,
    /// [`strided_terms`] rows an iteration with one vector load per reduce and row (the last
    /// iteration's rows past the end clamped to its first and replaced by the identity),
    /// handed to `out(p, partials)`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn ws_vec_partials(
        &mut self,
        body: BlockId,
        w: Value,
        blocks: Value,
        n: Value,
        e0: Value,
        v: usize,
        start: Value,
        step: Value,
        out: &mut PartialsOut<'_, 'a>,
    ) -> R<()> {
        let nterms = strided_terms(self.strided_unroll, self.body_reduces(body).len());
        let u = self.iconst(nterms);
        let span = self.ibin(Ix::Mul, step, u);
        let mut red = Vec::new();
        let mut firsts = Vec::new();
        for (p, o) in self.body_reduces(body).into_iter().enumerate() {
            let kind = kind_name(self.ctx, o).unwrap_or_default();
            let rp = loop_parts(self.ctx, o, true).map_err(|e| op_error(self.ctx, o, e))?;
            let ty = self.ctx.value_type(rp.init.expect("reduce"));
            let id = self.fconst(identity(&kind), ty);
            let pc = self.iconst(p as i64);
            firsts.push(self.ibin(Ix::Mul, pc, blocks));
            red.push((kind, id, ty));
        }
        let inits: Vec<Value> = red.iter().flat_map(|r| vec![r.1; v]).collect();
        let accs = self.for_loop(start, blocks, span, &inits, &mut |kb, pos, acc| {
            let mut terms = Vec::new();
            let mut at = pos;
            for k in 0..nterms {
                let (row, ok) = if k > 0 { kb.strided_term(pos, &mut at, step, blocks) } else { (pos, None) };
                let mut cols = Vec::new();
                for (&first, (_, _, ty)) in firsts.iter().zip(&red) {
                    let r = kb.ibin(Ix::Add, first, row);
                    let r = kb.ibin(Ix::Mul, r, n);
                    let off = kb.ibin(Ix::Add, r, e0);
                    let nc = Some(kb.ctx.unit_attr());
                    let ld = kb.push(mgpu::LoadVecOp::state(kb.loc, w, off, &vec![*ty; v], nc, None));
                    cols.push(kb.ctx.results(ld).to_vec());
                }
                terms.push((cols, ok));
            }
            kb.fold_terms(acc, terms, &red, v)
        })?;
        for p in 0..red.len() {
            out(self, p, accs[p * v..(p + 1) * v].to_vec())?;
        }
        Ok(())
    }

    /// A strided loop's next term after position `*at` (the iteration's first is `pos`):
    /// `*at += step`, and its position clamped to `pos` past `end`, with whether it is in
    /// range (its value is then replaced by the identity, [`Self::fold_terms`]).
    pub(super) fn strided_term(
        &mut self,
        pos: Value,
        at: &mut Value,
        step: Value,
        end: Value,
    ) -> (Value, Option<Value>) {
        let it = self.it();
        *at = self.ibin(Ix::Add, *at, step);
        let c = self.icmp("lt", *at, end);
        (self.push1(mloop::SelectOp::state(self.loc, c, *at, pos, it)), Some(c))
    }

    /// Combines the terms of a strided iteration into the accumulators `acc` (`v` columns
    /// per reduce of `red` = (kind, identity, type)), term after term: each term holds every
    /// reduce's `v` columns and whether it is in range (else its values count as the
    /// identity).
    pub(super) fn fold_terms(
        &mut self,
        acc: &[Value],
        terms: Vec<(Vec<Vec<Value>>, Option<Value>)>,
        red: &[(String, Value, Type)],
        v: usize,
    ) -> R<Vec<Value>> {
        let mut next = acc.to_vec();
        for (cols, ok) in terms {
            for (r, xs) in cols.into_iter().enumerate() {
                let (kind, id, ty) = &red[r];
                for (e, x) in xs.into_iter().enumerate() {
                    let x = match ok {
                        Some(c) => self.push1(mloop::SelectOp::state(self.loc, c, x, *id, *ty)),
                        None => x,
                    };
                    next[r * v + e] = self.combine(kind, next[r * v + e], x)?;
                }
            }
        }
        Ok(next)
    }
}
