//! The flat partials form of a pointwise nest with partials, a child module of `loop_to_gpu`
//! (docs/conversion-loop-to-gpu.md, "Flat partials"): which nests take it
//! ([`flat_partials_plan`]) and its kernel ([`KernelBuilder::flat_partials`]).
//!
//! A bias gradient's dx beside db = sum_i dy is a pointwise nest `{kind = "pointwise", split =
//! S}` whose every access is at the point's flat position `f = i * N + j` but its partials
//! `W[i div S, j]`. Over short or unaligned rows the row form leaves lanes idle or loads a few
//! bytes a lane; here a CTA of `T = N x c` threads walks its rows as consecutive 16-byte
//! vectors instead. The grid is at most the CTAs the device holds at once (one wave) and at
//! most the `B = ceil(M / S)` splits; CTA `b` takes an equal share of the rows, a multiple of
//! the vector `v` rows, so its first vector is at a multiple of `N` vectors, and a thread
//! steps `T` vectors at a time (`vectors-in-flight` of them loaded at once), so the thread's
//! vectors are always slot `t = tid mod N` of a run of `N` vectors (`v` rows): its element `e`
//! is always column `(t * v + e) mod N`, and it keeps one register partial per element. The
//! CTA's threads then hand their partials to the column owners through shared memory, which
//! add them in a fixed order (deterministic), with the few points past the last full vector,
//! into `W[b, j]` (the workspace rows past the grid keep the identity it was filled with; a
//! workspace whose only initialization is that fill loses it, and the CTAs store their sums
//! and the identity into the rows past the grid instead: `KernelBuilder::fresh_partials`).

use super::*;
use crate::conversion::schedule::{
    flat_cta_threads, flat_partials_by_default, flat_planned_ctas, FLAT_VECTORS_IN_FLIGHT,
};

/// The shape of a nest's flat partials form ([`flat_partials_plan`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct FlatPartials {
    /// Elements a vector: 16 bytes of the widest float accessed along the row, at most 8.
    pub(super) v: usize,
    /// The row length the form was planned for (static or hinted); at run time `T div N`
    /// threads a column slot must be at least 1, else the scalar form runs.
    pub(super) n: u64,
    /// Threads a CTA ([`flat_cta_threads`]): whole warps where they fit, else (and under
    /// `flat-warps=false`) `n x max(1, 256 div n)`.
    pub(super) threads: u32,
    /// Vectors of each input a thread loads at once (`vectors-in-flight`).
    pub(super) in_flight: usize,
}

/// Whether nest `op` takes the flat partials form, and its shape: a `{kind = "pointwise",
/// split = S}` nest over `(i.., j)` from 0 step 1 with `accumulate`s into `W[flat(i..) div S,
/// j]`, whose other accesses are all at the point's flat position
/// ([`vector_forms::flat_points_except`]), with a vector of 2 or more elements dividing `S`
/// and a known row length `N <= 1024`; by default only where the row form would leave lanes
/// idle: rows that are not whole 16-byte vectors or are under [`FLAT_PARTIALS_ROW_BYTES`], but
/// not the short unaligned rows (at most [`THREAD_ROW_MAX_BYTES`]) that the row form gives a
/// thread each (`flat-partials=true` takes it wherever it applies, `false` never).
pub(super) fn flat_partials_plan(
    ctx: &Context,
    names: &HashMap<(Value, usize), String>,
    opts: &LoopToGpuOptions,
    op: OpId,
) -> Option<FlatPartials> {
    let choice = opts.overrides.flat_partials;
    if choice == Some(false) || kernel_kind(ctx, op).as_deref() != Some("pointwise") {
        return None;
    }
    let split = kernel_split(ctx, op).filter(|s| *s > 0)?;
    let p = loop_parts(ctx, op, false).ok()?;
    let k = p.ivs.len();
    if k < 2 {
        return None;
    }
    let j = p.ivs[k - 1];
    let mut skip = HashSet::new();
    let mut bytes = 0u32;
    let mut accumulates = 0u64;
    for o in ctx.block_ops(p.body) {
        if let Some(acc) = ctx.dyn_cast::<mloop::AccumulateOp>(o) {
            let x = ctx.operands(o);
            let f32_ws = float_bytes(ctx, ctx.element_type(ctx.value_type(x[1]))) == Some(4);
            if x.len() != 4 || x[3] != j || !f32_ws || combiner(acc.kind(ctx)?).is_none() {
                return None;
            }
            let d = ctx.defining_op(x[2])?;
            let div = ctx.dyn_cast::<mloop::DivOp>(d)?;
            let mut chain = Vec::new();
            if const_int(ctx, div.rhs(ctx)) != Some(split)
                || flat_prefix_len(ctx, div.lhs(ctx), &p.ivs[..k - 1], &p.ubs[..k - 1], &mut chain) != Some(k - 1)
            {
                return None;
            }
            skip.insert(o);
            skip.insert(d);
            skip.extend(chain);
            accumulates += 1;
            continue;
        }
        let (buf, idx) = match LoopOp::of(ctx, o) {
            LoopOp::Load(l) => (l.buffer(ctx), ctx.operands(o)[1..].to_vec()),
            LoopOp::Store(s) => (s.buffer(ctx), ctx.operands(o)[2..].to_vec()),
            _ => continue,
        };
        if idx.last() == Some(&j) {
            bytes = bytes.max(float_bytes(ctx, ctx.element_type(ctx.value_type(buf)))?);
        }
    }
    if skip.is_empty() || bytes == 0 || !vector_forms::flat_points_except(ctx, names, &p, &skip) {
        return None;
    }
    let mut v = (16 / bytes).clamp(1, 8);
    if opts.overrides.vector > 0 {
        v = v.min(pow2_floor(opts.overrides.vector));
    }
    if v < 2 || split % v as i64 != 0 {
        return None;
    }
    let n = known_size(ctx, names, opts, p.ubs[k - 1]).filter(|n| (1..=1024).contains(n))?;
    if choice.is_none() && !flat_partials_by_default(n, bytes as u64) {
        return None;
    }
    let in_flight = match opts.overrides.vectors_in_flight {
        0 => FLAT_VECTORS_IN_FLIGHT,
        k => k,
    } as usize;
    let threads = flat_cta_threads(n, v as u64, accumulates, opts.overrides.flat_warps);
    Some(FlatPartials { v: v as usize, n, threads: threads as u32, in_flight })
}

impl<'a> KernelBuilder<'a> {
    /// The flat partials kernel of nest `op` ([`flat_partials_plan`]'s `fp`; module docs):
    /// a grid of at most `min(B, resident CTAs)` (`B = ceil(R / S)` splits of the `R` rows);
    /// CTA `b` takes rows `[r0, r1) = [b P, min(R, b P + P))`, `P = ceil(ceil(R / grid) / v)
    /// v`, its points `[r0 * N, r1 * N)` as vectors of `v`: thread `tid < T' = (T div N) * N`
    /// takes vectors `tid, tid + T', ...`, `u` at a time ([`Self::flat_partials_loop`]), one
    /// register partial an element; then the partials through shared memory to the column
    /// owners `tid < N`, which add them in (row of the run, thread) order, then the points past
    /// the last full vector (the whole nest's last `R * N mod v`), and combine the sum into
    /// `W[b, j]`. Where `N` is over `T` at run time, the scalar form
    /// ([`Self::partial_pointwise_loop`]) runs instead.
    pub(super) fn flat_partials(&mut self, op: OpId, fp: FlatPartials) -> R<()> {
        let plan = self.partial_plan(op).expect("classified");
        let parts = loop_parts(self.ctx, op, false).map_err(|e| op_error(self.ctx, op, e))?;
        let split = self.kernel_split(op).expect("checked");
        let n = parts.ivs.len();
        let rows_hint: Option<u64> = parts.ubs[..n - 1].iter().map(|u| self.size_of(*u)).product();
        let shape = self.nest_shape(rows_hint, Some(fp.n));
        // A CTA a split at most: where the hinted rows make fewer splits than the CTAs that fit
        // at once, the grid leaves SMs idle, and the report says so (the fusion model picks the
        // split for the default CTA; `flat-warps=false` under it measured 1.3-1.5x slower).
        // ptxas is told the CTAs per SM planned for the vectors in flight (`min-ctas` still
        // rules, below): `schedule::FLAT_REGISTERS`. (A CTA of whole warps, 800 threads at N =
        // 100 or 200, is one a SM: ptxas then caps it at 72 registers, which measured faster
        // than 64 with `.maxnreg 64` or no bound, though gelu_bwd_bias' body spills 4 bytes
        // there; 80 registers do not fit 800 threads at launch. Forty-fourth session, calls 5
        // and 6.)
        let planned = flat_planned_ctas(&self.opts.device, fp.threads as u64, fp.in_flight);
        let fit = planned * self.opts.device.sms as u64;
        let splits = rows_hint.map(|r| r.div_ceil(split.max(1) as u64));
        let s = self.set_schedule_with(Mapping::PartialPointwise, &shape, &mut |s, _| {
            s.threads = fp.threads;
            s.vector = fp.v as u32;
            s.notes.0.push(format!(
                "flat partials: a CTA of {} threads ({} x N = {}) takes consecutive vectors of {} points of its rows, {} of each input at once, each thread's columns fixed; partials combined in shared memory",
                fp.threads,
                fp.threads as u64 / fp.n,
                fp.n,
                fp.v,
                fp.in_flight
            ));
            if let Some(b) = splits.filter(|b| *b < fit) {
                s.notes.0.push(format!(
                    "flat partials: {b} splits of {split} rows take {b} CTAs, under the {fit} that fit at once: SMs idle (a smaller split, fuse-mixed-reductions{{splits=...}}, fills them)"
                ));
            }
        });
        if let Some(ctas) = self.opts.min_ctas.apply(Some(planned)) {
            super::set_min_ctas(self.ctx, self.kernel, ctas, self.opts.min_ctas.plans());
        }
        // Whole warps: the final reduction may take the same CTAs behind a grid barrier (its
        // warp shuffles need every lane of a warp).
        self.flat_joins_final = s.threads.is_multiple_of(32);
        // Each CTA takes an equal share of the rows: a second, partial wave would cost as much
        // as the first, so the grid is at most the CTAs resident.
        self.grid_resident = true;
        let (v, t, u) = (fp.v, s.threads as i64, fp.in_flight);
        let (ext, _) = self.extents(&parts)?;
        let mut rows = self.iconst(1);
        for &e in &ext[..n - 1] {
            rows = self.ibin(Ix::Mul, rows, e);
        }
        let ncols = ext[n - 1];
        let tc = self.iconst(t);
        let per_col = self.ibin(Ix::Div, tc, ncols);
        let one = self.iconst(1);
        let fits = self.icmp("ge", per_col, one);
        let ws: Vec<(Value, String)> = plan.ws.clone();
        // Workspaces that only an identity fill initializes, of shape [B, N]: both forms write
        // each of their elements once, so they store and the fill goes.
        let covered = self.fresh_partials(&parts, &ws, split);
        self.if_then_else(
            fits,
            &mut |kb| kb.flat_partials_body(&parts, &ws, (v, t, u), (rows, ncols, per_col), split, &covered),
            &mut |kb| kb.partial_pointwise_loop(&parts, &plan, split, &covered),
        )?;
        // Host: at most a CTA a split and the schedule's grid (and, in `finish`, the CTAs
        // resident at once).
        let ib = Ib { before: self.nest };
        let mut rows_h = ib.index(self.ctx, 1);
        for d in 0..n - 1 {
            let e = ib.extent(self.ctx, parts.lbs[d], parts.ubs[d], parts.steps[d]);
            rows_h = ib.mul(self.ctx, rows_h, e);
        }
        let sh = ib.index(self.ctx, split);
        let nsplit_h = ib.ceildiv(self.ctx, rows_h, sh);
        let blocks = self.host_grid(nsplit_h, 1, s.max_grid);
        let zero = self.host_index(0);
        self.launch = Some((blocks, zero));
        Ok(())
    }

    /// The flat path of [`Self::flat_partials`] (`N <= T` at run time).
    fn flat_partials_body(
        &mut self,
        parts: &LoopParts,
        ws: &[(Value, String)],
        (v, t, u): (usize, i64, usize),
        (rows, ncols, per_col): (Value, Value, Value),
        split: i64,
        covered: &HashSet<Value>,
    ) -> R<()> {
        let n = parts.ivs.len();
        let j = parts.ivs[n - 1];
        let it = self.it();
        let f32t = self.ctx.f32_type();
        let (tid, bid, gdim) =
            (self.id::<mgpu::ThreadIdOp>(), self.id::<mgpu::BlockIdOp>(), self.id::<mgpu::GridDimOp>());
        let vc = self.iconst(v as i64);
        let one = self.iconst(1);
        // An equal share of the rows a CTA, a multiple of `v` rows (so that its first point is
        // a multiple of `N` vectors); its partial goes to workspace row `b` (the grid is at
        // most the splits, so the row exists; the rows past the grid keep the fill, or, where
        // the fill is dropped, take the identity at the end).
        let per = self.ceil_div(rows, gdim);
        let per = self.ceil_div(per, vc);
        let per = self.ibin(Ix::Mul, per, vc);
        let r0 = self.ibin(Ix::Mul, bid, per);
        let r1 = self.ibin(Ix::Add, r0, per);
        let r1 = self.ibin(Ix::Min, r1, rows);
        let has_rows = self.icmp("lt", r0, r1);
        let index: HashMap<Value, usize> = ws.iter().enumerate().map(|(p, (w, _))| (*w, p)).collect();
        let mut ids = Vec::new();
        for (w, kd) in ws {
            let ty = self.ctx.element_type(self.ctx.value_type(*w));
            ids.push(self.fconst(identity(kd), ty));
        }
        // The shared partials: [p][thread][element], f32.
        let smem = {
            let pt = ptr_type(self.ctx, f32t, true);
            let size = self.ctx.i64_attr(ws.len() as i64 * t * v as i64);
            let op = self.prologue(mgpu::SharedAllocOp::state(self.loc, pt, size));
            self.ctx.result(op, 0)
        };
        let body = parts.body;
        // The workspace rows no CTA's rows go to (a CTA past the last row, and the splits past
        // the grid, `b + gdim, b + 2 gdim, ... < B`) take the identity the dropped fill would
        // have written, each column `col` by its owner `tid = col`: from row `b + gdim` after
        // the CTA's own sum, from row `b` in a CTA without rows. Nothing of it lives through
        // the main loop (at N = 256 the kernel is at its 64 registers: one more value live
        // there spilled).
        let identity_rows = |kb: &mut Self, past_own: bool| -> R<()> {
            if covered.is_empty() {
                return Ok(());
            }
            // Fresh reads of the row count (the nest's bound: from 0 step 1 here) and the
            // grid size, not the values of the kernel's start.
            let m = kb.get(parts.ubs[0])?;
            let sc = kb.iconst(split);
            let nsplit = kb.ceil_div(m, sc);
            let gdim = kb.read_id::<mgpu::GridDimOp>();
            let bid = kb.read_id::<mgpu::BlockIdOp>();
            let from = if past_own { kb.ibin(Ix::Add, bid, gdim) } else { bid };
            kb.for_loop(from, nsplit, gdim, &[], &mut |kb, r, _| {
                for (p, (w, _)) in ws.iter().enumerate() {
                    if covered.contains(w) {
                        let wp = kb.get(*w)?;
                        let tid = kb.id::<mgpu::ThreadIdOp>();
                        let off = kb.offset(*w, &[r, tid]);
                        kb.push(mgpu::StoreOp::state(kb.loc, ids[p], wp, off));
                    }
                }
                Ok(vec![])
            })?;
            Ok(())
        };
        self.if_then_else(
            has_rows,
            &mut |kb| {
                let fb = kb.ibin(Ix::Mul, r0, ncols);
                let fe = kb.ibin(Ix::Mul, r1, ncols);
                let vb = kb.ibin(Ix::Div, fb, vc);
                let ve = kb.ibin(Ix::Div, fe, vc);
                let active_threads = kb.ibin(Ix::Mul, per_col, ncols);
                let active = kb.icmp("lt", tid, active_threads);
                let first = kb.ibin(Ix::Add, vb, tid);
                let start = kb.push1(mloop::SelectOp::state(kb.loc, active, first, ve, it));
                let inits: Vec<Value> = ids.iter().flat_map(|&x| std::iter::repeat_n(x, v)).collect();
                let accs = kb.flat_partials_loop(parts, ws, (start, ve, active_threads), v, u, &inits)?;
                // Each thread's partials to its slots, then the column owners add them up.
                let tv = kb.ibin(Ix::Mul, tid, vc);
                for p in 0..ws.len() {
                    let base = kb.iconst(p as i64 * t * v as i64);
                    let off = kb.ibin(Ix::Add, base, tv);
                    for e in 0..v {
                        let ec = kb.iconst(e as i64);
                        let o = kb.ibin(Ix::Add, off, ec);
                        kb.push(mgpu::StoreOp::state(kb.loc, accs[p * v + e], smem, o));
                    }
                }
                kb.push(mgpu::BarrierOp::state(kb.loc));
                let owner = kb.icmp("lt", tid, ncols);
                kb.if_then(owner, &mut |kb| {
                    let col = tid;
                    let mut sums = ids.clone();
                    for r in 0..v {
                        // Point `col + r * N` of the run: slot `pos div v`, element `pos rem v`.
                        let rc = kb.iconst(r as i64);
                        let rn = kb.ibin(Ix::Mul, rc, ncols);
                        let pos = kb.ibin(Ix::Add, col, rn);
                        let slot = kb.ibin(Ix::Div, pos, vc);
                        let e = kb.ibin(Ix::Rem, pos, vc);
                        let zero = kb.iconst(0);
                        sums = kb.for_loop(zero, per_col, one, &sums, &mut |kb, q, cur| {
                            let qn = kb.ibin(Ix::Mul, q, ncols);
                            let th = kb.ibin(Ix::Add, slot, qn);
                            let thv = kb.ibin(Ix::Mul, th, vc);
                            let at = kb.ibin(Ix::Add, thv, e);
                            let mut out = Vec::new();
                            for (p, (_, kd)) in ws.iter().enumerate() {
                                let base = kb.iconst(p as i64 * t * v as i64);
                                let o = kb.ibin(Ix::Add, base, at);
                                let x = kb.push1(mgpu::LoadOp::state(kb.loc, smem, o, f32t, None, None));
                                out.push(kb.combine(kd, cur[p], x)?);
                            }
                            Ok(out)
                        })?;
                    }
                    // The points past the last full vector whose column is `col`.
                    let tb = kb.ibin(Ix::Mul, ve, vc);
                    let tm = kb.ibin(Ix::Rem, tb, ncols);
                    let d = kb.ibin(Ix::Add, col, ncols);
                    let d = kb.ibin(Ix::Sub, d, tm);
                    let d = kb.ibin(Ix::Rem, d, ncols);
                    let tail0 = kb.ibin(Ix::Add, tb, d);
                    sums = kb.for_loop(tail0, fe, ncols, &sums, &mut |kb, f, cur| {
                        kb.bind_rows_to_zero(parts);
                        kb.map.insert(j, f);
                        kb.emit_block_into_partials(body, &index, cur)
                    })?;
                    kb.forget_nest_values();
                    for (p, (w, kd)) in ws.iter().enumerate() {
                        let wp = kb.get(*w)?;
                        let off = kb.offset(*w, &[bid, col]);
                        kb.combine_into(kd, wp, off, sums[p], covered.contains(w))?;
                    }
                    identity_rows(kb, true)
                })
            },
            &mut |kb| {
                let owner = kb.icmp("lt", tid, ncols);
                kb.if_then(owner, &mut |kb| identity_rows(kb, false))
            },
        )
    }

    /// The main loop of [`Self::flat_partials_body`]: the thread's vectors `start, start + a,
    /// ...` below `end` (`(start, end, a)`), each thread's partials carried, `v` per partial;
    /// `u` vectors of each input at once (`vectors-in-flight`: all their loads before any of
    /// their arithmetic), each with its own partials, added in chunk order after the loop, and
    /// the last fewer than `u` vectors one at a time. Returns the partials, `v` per partial.
    fn flat_partials_loop(
        &mut self,
        parts: &LoopParts,
        ws: &[(Value, String)],
        (start, end, a): (Value, Value, Value),
        v: usize,
        u: usize,
        inits: &[Value],
    ) -> R<Vec<Value>> {
        let n = parts.ivs.len();
        let (j, body) = (parts.ivs[n - 1], parts.body);
        let vc = self.iconst(v as i64);
        let np = ws.len();
        let index: HashMap<Value, usize> = ws.iter().enumerate().map(|(p, (w, _))| (*w, p)).collect();
        // One pass of the body over `k` vectors a stride `a` apart from `vi`.
        let step = |kb: &mut Self, vi: Value, k: usize, cur: &[Value]| -> R<Vec<Value>> {
            kb.bind_rows_to_zero(parts);
            let mut bases = Vec::with_capacity(k);
            let mut at = vi;
            for c in 0..k {
                if c > 0 {
                    at = kb.ibin(Ix::Add, at, a);
                }
                bases.push(kb.ibin(Ix::Mul, at, vc));
            }
            kb.vec_state_chunks(v, bases);
            // The loads of every vector first (a row load takes all chunks at once), then the
            // arithmetic chunk by chunk: op by op over two vectors ptxas took 110 registers
            // for gelu_bwd_bias's body left alone and spilled at 64-80; chunk by chunk 48-56
            // left alone, no spill.
            kb.fs().chunk_major = k > 1;
            kb.fs().ws = index.clone();
            kb.fs().accs = cur.chunks(k * v).map(|c| c.to_vec()).collect();
            let res = kb.fast_block(body, j);
            let out: Vec<Value> = kb.fs().accs.iter().flatten().copied().collect();
            kb.fast = None;
            res?;
            Ok(out)
        };
        let mut accs = inits.to_vec();
        let mut from = start;
        if u > 1 {
            // Whole groups of `u` vectors: a group at `vi` is whole while `vi + (u-1) a < end`.
            let back = self.iconst(u as i64 - 1);
            let back = self.ibin(Ix::Mul, back, a);
            let lim = self.ibin(Ix::Sub, end, back);
            let uc = self.iconst(u as i64);
            let ua = self.ibin(Ix::Mul, uc, a);
            let mut carried: Vec<Value> =
                inits.chunks(v).flat_map(|c| std::iter::repeat_n(c, u).flatten().copied()).collect();
            carried.push(start);
            let out = self.for_loop(start, lim, ua, &carried, &mut |kb, vi, cur| {
                let mut ys = step(kb, vi, u, &cur[..np * u * v])?;
                ys.push(kb.ibin(Ix::Add, vi, ua));
                Ok(ys)
            })?;
            self.forget_nest_values();
            from = out[np * u * v];
            accs.clear();
            for (p, (_, kd)) in ws.iter().enumerate() {
                let g = &out[p * u * v..(p + 1) * u * v];
                for e in 0..v {
                    let mut s = g[e];
                    for c in 1..u {
                        s = self.combine(kd, s, g[c * v + e])?;
                    }
                    accs.push(s);
                }
            }
        }
        let out = self.for_loop(from, end, a, &accs, &mut |kb, vi, cur| step(kb, vi, 1, cur))?;
        self.forget_nest_values();
        Ok(out)
    }
}
