//! The vector forms of thread-per-point and split-K partial kernels, a child module of
//! `loop_to_gpu` (docs/conversion-loop-to-gpu.md, "The unfused pipeline's kernels"): which
//! nests have one and what they check at run time ([`KernelBuilder::vec_plan`],
//! [`KernelBuilder::vec_guard`]), and their emission: `v` consecutive points a thread with
//! 16-byte vector loads and stores, a scalar tail.

use super::*;

/// What the vector form of a thread-per-point or split-K partial nest needs
/// ([`KernelBuilder::vec_plan`]): each thread takes `v` consecutive points along the nest's
/// innermost parallel iv `j` (the column), with 16-byte (or narrower) vector loads and stores
/// of every buffer the body accesses at `[..., j]`, one scalar access per vector of the
/// buffers it accesses without `j` (`rstd[i]`), and the body's arithmetic once per element.
#[derive(Clone, Debug)]
pub(super) struct VecPlan {
    /// Elements per thread: 16 bytes of the widest element accessed along `j`, at most 8,
    /// capped by the `vector` option, halved while it does not divide a known column count or
    /// the known last dim of a buffer accessed along `j`.
    pub(super) v: usize,
    /// Buffers of rank >= 2 accessed along `j`: their last dim (the row stride) must be a
    /// multiple of `v` at run time, so that every vector is aligned.
    pub(super) rows: Vec<Value>,
    /// Host values `c` of clamps `min(j, c)` (a broadcast's): `c + 1 >= N` at run time makes
    /// each clamp the identity on the columns.
    pub(super) ge_n1: Vec<Value>,
    /// The flat form ([`flat_points`]): the thread's `v` points are consecutive in the nest's
    /// flat (row-major) order, across rows, so that rows need not be whole vectors (`rows` is
    /// then empty: no stride is checked).
    pub(super) flat: bool,
}

/// Whether every point of the thread-per-point nest `parts` (`k >= 2` dims from 0 step 1, a
/// flat body) is at its flat row-major position `f` in every buffer it accesses along the
/// columns, so that a thread can take `v` consecutive values of `f` across rows: each access
/// that uses an iv indexes exactly `[i0, ..., j]` (every iv, in order) of a buffer of rank `k`
/// whose dims after the first are the nest's extents ([`is_dim_of`]: a dense row-major buffer
/// of those rows), and no other op uses an iv. An access without ivs (a scalar) is uniform.
pub(super) fn flat_points(ctx: &Context, names: &HashMap<(Value, usize), String>, parts: &LoopParts) -> bool {
    flat_points_except(ctx, names, parts, &HashSet::new())
}

/// [`flat_points`] over the body's ops but `skip` (checked by the caller: a partial's
/// `accumulate`s and the ops of their split index), whose results count as iv-dependent.
pub(super) fn flat_points_except(
    ctx: &Context,
    names: &HashMap<(Value, usize), String>,
    parts: &LoopParts,
    skip: &HashSet<OpId>,
) -> bool {
    let k = parts.ivs.len();
    if k < 2 || (0..k).any(|d| const_int(ctx, parts.lbs[d]) != Some(0) || const_int(ctx, parts.steps[d]) != Some(1)) {
        return false;
    }
    let dep: HashSet<Value> =
        parts.ivs.iter().copied().chain(skip.iter().flat_map(|&o| ctx.results(o).iter().copied())).collect();
    let is_dep = |v: &Value| dep.contains(v);
    ctx.block_ops(parts.body).filter(|o| !skip.contains(o)).all(|o| {
        if !ctx.regions(o).is_empty() {
            return false;
        }
        let ops = ctx.operands(o);
        let (buf, idx) = match LoopOp::of(ctx, o) {
            LoopOp::Load(l) => (l.buffer(ctx), &ops[1..]),
            LoopOp::Store(s) => (s.buffer(ctx), &ops[2..]),
            LoopOp::Accumulate(_) => return false,
            _ => return !ops.iter().any(is_dep),
        };
        if !idx.iter().any(is_dep) {
            return !ops.iter().any(is_dep);
        }
        idx == parts.ivs.as_slice()
            && !ops[..ops.len() - idx.len()].iter().any(is_dep)
            && buffer_shape(ctx, buf).len() == k
            && (1..k).all(|d| is_dim_of(ctx, names, buf, d, parts.ubs[d]))
    })
}

impl<'a> KernelBuilder<'a> {
    /// Whether nest `op` (a thread-per-point nest, or with `split` the column reduction of a
    /// split-K partial launch) has a vector form, and what it must check at run time; else
    /// why not (for the schedule report). The innermost parallel iv `j` runs from 0 step 1;
    /// every access either does not depend on `j` (a broadcast, loaded once per vector), or
    /// has `j` (or a clamp `min(j, c)` with `c` from the host) as its last index and indices
    /// before it that do not depend on `j`; a buffer read along `j` is not written by the
    /// nest, and holds floats; `j` feeds nothing else. A thread-per-point body holds no loop;
    /// a split-K body only the flat reduces of the column reduction (its stores and the ops
    /// after the reduces run in the final launch).
    pub(super) fn vec_plan(&self, op: OpId, split: bool) -> Result<VecPlan, String> {
        let ctx = &*self.ctx;
        let parts = loop_parts(ctx, op, false)?;
        let d = parts.ivs.len() - 1;
        if const_int(ctx, parts.lbs[d]) != Some(0) || const_int(ctx, parts.steps[d]) != Some(1) {
            return Err("the innermost parallel dim does not run from 0 step 1".into());
        }
        let j = parts.ivs[d];
        let mut jexact: HashSet<Value> = [j].into_iter().collect();
        let mut jdep: HashSet<Value> = HashSet::new();
        let mut tainted: HashSet<Value> = HashSet::new();
        let mut plan = VecPlan { v: 0, rows: Vec::new(), ge_n1: Vec::new(), flat: false };
        let mut bytes = 0u32;
        // Rows of a split-K block run through an op ptxas implements with a subroutine call.
        let mut calls = false;
        let mut todo: Vec<(BlockId, bool)> = vec![(parts.body, true)];
        while let Some((blk, top)) = todo.pop() {
            for b in ctx.block_ops(blk).collect::<Vec<_>>() {
                let ops = ctx.operands(b);
                if ops.iter().any(|v| tainted.contains(v)) {
                    // Computed from a reduce's result: the final launch runs it.
                    tainted.extend(ctx.results(b).iter().copied());
                    continue;
                }
                let kind = LoopOp::of(ctx, b);
                let clamp = clamp_bound(ctx, b, &|x| jexact.contains(&x));
                match kind {
                    LoopOp::Yield => {
                        if ops.iter().any(|v| jexact.contains(v)) {
                            return Err("the column index is yielded".into());
                        }
                    }
                    LoopOp::Reduce(_) if split && top => {
                        let rp = loop_parts(ctx, b, true)?;
                        if rp.lbs.iter().chain(&rp.ubs).chain(&rp.steps).any(|v| jexact.contains(v) || jdep.contains(v))
                        {
                            return Err("a reduce's bounds depend on the column".into());
                        }
                        todo.push((rp.body, false));
                        tainted.extend(ctx.results(b).iter().copied());
                    }
                    LoopOp::Store(_) | LoopOp::Accumulate(_) if split && top => {}
                    LoopOp::Scalar if clamp.is_some() => {
                        let c = clamp.expect("checked");
                        if !defined_outside(ctx, c, op) {
                            return Err("the column index is clamped by a value computed in the nest".into());
                        }
                        if !plan.ge_n1.contains(&c) {
                            plan.ge_n1.push(c);
                        }
                        jexact.insert(ctx.result(b, 0));
                    }
                    LoopOp::Load(_) | LoopOp::Store(_) => {
                        let is_load = matches!(kind, LoopOp::Load(_));
                        let (buf, idx) = if is_load { (ops[0], &ops[1..]) } else { (ops[1], &ops[2..]) };
                        if idx.iter().any(|v| jdep.contains(v)) {
                            return Err("an index is computed from values loaded along the column".into());
                        }
                        if !is_load && jexact.contains(&ops[0]) {
                            return Err("the column index is stored".into());
                        }
                        let jpos: Vec<usize> = (0..idx.len()).filter(|&k| jexact.contains(&idx[k])).collect();
                        if jpos.is_empty() {
                            if !is_load {
                                return Err("a store does not index the column".into());
                            }
                            continue;
                        }
                        if jpos != [idx.len() - 1] {
                            return Err("the column index is not the last index of an access".into());
                        }
                        let elem = ctx.element_type(ctx.value_type(buf));
                        let Some(eb) = float_bytes(ctx, elem) else {
                            let t = ctx.type_to_string(elem);
                            return Err(format!("a '{t}' buffer is accessed along the column (floats only)"));
                        };
                        bytes = bytes.max(eb);
                        if is_load {
                            if self.written.contains(&buf) {
                                return Err("the nest reads along the column a buffer it writes".into());
                            }
                            jdep.insert(ctx.result(b, 0));
                        }
                        if idx.len() >= 2 && !plan.rows.contains(&buf) {
                            plan.rows.push(buf);
                        }
                    }
                    LoopOp::Dim(_) => {}
                    LoopOp::Scalar => {
                        if ops.iter().any(|v| jexact.contains(v)) {
                            return Err("the column index feeds arithmetic".into());
                        }
                        if ops.iter().any(|v| jdep.contains(v)) {
                            jdep.extend(ctx.results(b).iter().copied());
                        }
                        // A division of the row's values by one value per row becomes one
                        // reciprocal per row (`reciprocal-divisors`), no call per column.
                        let per_row = reciprocal_division(ctx, b, self.opts).is_some()
                            && !jdep.contains(&ops[1])
                            && !jexact.contains(&ops[1]);
                        calls |= !top && is_call_op(ctx, b) && !per_row;
                    }
                    _ => {
                        let name = ctx.op_name(b);
                        return Err(format!("the body holds '{name}'"));
                    }
                }
            }
        }
        if bytes == 0 {
            return Err("no access along the column".into());
        }
        let mut v = (16 / bytes).clamp(1, 8);
        if calls {
            // A correctly rounded division or square root is a subroutine call in ptxas, and
            // what is live across it (a thread's partials and its row's values) must fit the
            // registers a call preserves: 8 columns spilled (softmax_fwd_colsum's split-K
            // partial under `reciprocal-divisors=false`), 4 do not. A division by one value
            // per row is one call per row (its reciprocal): 8 columns do not spill.
            v = v.min(4);
        }
        let by_rows = self.vector_width(v, parts.ubs[d], &plan.rows);
        // Rows that are not whole vectors of `v` (odd N) take the flat form where the nest
        // has one: vectors run across rows.
        if !split && by_rows.as_ref().map_or(true, |w| *w < v as usize) && flat_points(ctx, self.names, &parts) {
            if let Ok(w) = self.vector_width_of(v, &[]) {
                if by_rows.as_ref().map_or(true, |r| w > *r) {
                    plan.flat = true;
                    plan.rows.clear();
                    plan.v = w;
                    return Ok(plan);
                }
            }
        }
        plan.v = by_rows?;
        Ok(plan)
    }

    /// A vector form's width from `v` elements a vector: capped by the `vector` option, then
    /// halved while it does not divide a known size, the column count `cols` or the last dim
    /// (row stride) of one of `rows`; an error saying why where that leaves one element.
    pub(super) fn vector_width(&self, v: u32, cols: Value, rows: &[Value]) -> Result<usize, String> {
        let mut known: Vec<u64> = self.size_of(cols).into_iter().collect();
        for &b in rows {
            let shape = buffer_shape(self.ctx, b);
            let Some(last) = shape.len().checked_sub(1) else { continue };
            if let Dim::Static(n) = shape[last] {
                known.push(n);
            } else if let Some(n) = self.names.get(&(b, last)).and_then(|n| self.opts.size_hints.get(n)) {
                known.push(*n);
            }
        }
        self.vector_width_of(v, &known)
    }

    /// A vector form's width from `v` elements a vector: capped by the `vector` option, then
    /// halved while it does not divide one of the `known` sizes; an error saying why where
    /// that leaves one element.
    pub(super) fn vector_width_of(&self, mut v: u32, known: &[u64]) -> Result<usize, String> {
        let cap = self.opts.overrides.vector;
        if cap > 0 {
            v = v.min(pow2_floor(cap));
        }
        while v > 1 && known.iter().any(|n| n % v as u64 != 0) {
            v /= 2;
        }
        if v < 2 {
            return Err(match (cap, known.iter().find(|n| **n % 2 != 0)) {
                (1, _) => "the option vector=1".into(),
                (_, Some(n)) => format!("a row of {n} element(s) is not a multiple of 2"),
                _ => "a vector of 16 bytes holds one element".into(),
            });
        }
        Ok(v as usize)
    }
}

impl<'a> KernelBuilder<'a> {
    /// The run-time condition of a vector form ([`VecPlan`]) over `ncols` columns: every row
    /// stride is a multiple of `v` (aligned vectors) and every clamp `min(j, c)` has `c + 1 >=
    /// ncols` (the identity on the columns).
    pub(super) fn vec_guard(&mut self, plan: &VecPlan, v: usize, ncols: Value) -> R<Value> {
        let (zero, one) = (self.iconst(0), self.iconst(1));
        let vc = self.iconst(v as i64);
        let mut conds = Vec::new();
        for &b in &plan.rows {
            let rank = buffer_shape(self.ctx, b).len();
            let d = self.dim(b, rank - 1);
            let r = self.ibin(Ix::Rem, d, vc);
            conds.push(self.icmp("eq", r, zero));
        }
        for &c in &plan.ge_n1 {
            let k = self.get(c)?;
            let k1 = self.ibin(Ix::Add, k, one);
            conds.push(self.icmp("ge", k1, ncols));
        }
        Ok(self.all_of(&conds))
    }

    /// Forgets the kernel values of the nest's own values (those of a loop body just emitted,
    /// which do not dominate what follows); values from outside the nest keep theirs.
    pub(super) fn forget_nest_values(&mut self) {
        let (ctx, nest) = (&*self.ctx, self.nest);
        self.map.retain(|k, _| defined_outside(ctx, *k, nest));
    }

    /// A grid-stride loop over `e < qmax * d` (`e` = global thread, step = all threads) whose
    /// body gets `(q, r) = (e div d, e rem d)`, kept up to date by additions (a division per
    /// thread, not per step: a 64-bit division by a register is a call of ~60 instructions).
    pub(super) fn strided_divmod(
        &mut self,
        qmax: Value,
        d: Value,
        body: &mut dyn FnMut(&mut Self, Value, Value) -> R<()>,
    ) -> R<()> {
        let it = self.it();
        let one = self.iconst(1);
        let (g, stride) = self.global_thread();
        let dd = self.ibin(Ix::Max, d, one);
        let work = self.ibin(Ix::Mul, qmax, d);
        let q0 = self.ibin(Ix::Div, g, dd);
        let m0 = self.ibin(Ix::Mul, q0, dd);
        let r0 = self.ibin(Ix::Sub, g, m0);
        let sq = self.ibin(Ix::Div, stride, dd);
        let ms = self.ibin(Ix::Mul, sq, dd);
        let sr = self.ibin(Ix::Sub, stride, ms);
        self.for_loop(g, work, stride, &[q0, r0], &mut |kb, _, qr| {
            body(kb, qr[0], qr[1])?;
            let r1 = kb.ibin(Ix::Add, qr[1], sr);
            let q1 = kb.ibin(Ix::Add, qr[0], sq);
            let wrap = kb.icmp("ge", r1, dd);
            let r2 = kb.ibin(Ix::Sub, r1, dd);
            let q2 = kb.ibin(Ix::Add, q1, one);
            let r = kb.push1(mloop::SelectOp::state(kb.loc, wrap, r2, r1, it));
            let q = kb.push1(mloop::SelectOp::state(kb.loc, wrap, q2, q1, it));
            Ok(vec![q, r])
        })?;
        Ok(())
    }

    /// The columns a vector form takes, `[0, jstart)` with `jstart = nvec * v` (`nvec` full
    /// vectors of `ncols`, none when `guard` fails); the scalar form takes `[jstart, ncols)`.
    pub(super) fn vec_split(&mut self, guard: Value, v: usize, ncols: Value) -> (Value, Value) {
        let it = self.it();
        let (zero, vc) = (self.iconst(0), self.iconst(v as i64));
        let all = self.ibin(Ix::Div, ncols, vc);
        let nvec = self.push1(mloop::SelectOp::state(self.loc, guard, all, zero, it));
        let jstart = self.ibin(Ix::Mul, nvec, vc);
        (nvec, jstart)
    }

    /// Starts the fast emitter for one vector of `v` columns from `j0` (a fresh state, rows
    /// addressed by their buffers' run-time strides).
    pub(super) fn vec_state(&mut self, v: usize, j0: Value) {
        self.vec_state_chunks(v, vec![j0]);
    }

    /// [`Self::vec_state`] for several whole vectors at once, chunk `c` at column `bases[c]`
    /// (their loads all emitted before their arithmetic).
    pub(super) fn vec_state_chunks(&mut self, v: usize, bases: Vec<Value>) {
        let k = bases.len();
        self.fast = Some(FastState { v, k, bases, valid: vec![None; k], dyn_rows: true, ..FastState::default() });
    }

    /// [`Mapping::ThreadPerPoint`] with vectors ([`VecPlan`]): a thread per `v` consecutive
    /// columns of one outer point, grid-stride; `[..., j]` accesses are vector loads and
    /// stores, the others scalar ones once per vector, the arithmetic per element. Columns
    /// past the last full vector of a row, and all of them when the run-time guard fails, go
    /// to a second grid-stride loop over single points (the scalar form).
    pub(super) fn thread_per_point_vec(&mut self, parts: &LoopParts, plan: &VecPlan, v: usize) -> R<()> {
        let n = parts.ivs.len();
        let j = parts.ivs[n - 1];
        let (ext, _) = self.extents(parts)?;
        let ncols = ext[n - 1];
        let mut outer = self.iconst(1);
        for &e in &ext[..n - 1] {
            outer = self.ibin(Ix::Mul, outer, e);
        }
        let guard = self.vec_guard(plan, v, ncols)?;
        let (nvec, jstart) = self.vec_split(guard, v, ncols);
        let vc = self.iconst(v as i64);
        let body = parts.body;
        self.strided_divmod(outer, nvec, &mut |kb, q, r| {
            kb.bind_flat_dims(parts, &ext, 0, n - 1, q)?;
            let j0 = kb.ibin(Ix::Mul, r, vc);
            kb.vec_state(v, j0);
            let res = kb.fast_block(body, j).map(|_| ());
            kb.fast = None;
            res
        })?;
        self.forget_nest_values();
        let tn = self.ibin(Ix::Sub, ncols, jstart);
        self.strided_divmod(outer, tn, &mut |kb, q, r| {
            kb.bind_flat_dims(parts, &ext, 0, n - 1, q)?;
            let jv = kb.ibin(Ix::Add, jstart, r);
            kb.map.insert(j, jv);
            kb.emit_block(body)?;
            Ok(())
        })
    }

    /// Binds every iv of `parts` but the last (the column) to 0: where every access is at the
    /// point's flat position ([`flat_points`]), an access `[i.., j]` is then at `j`, the flat
    /// position the caller binds the column to.
    pub(super) fn bind_rows_to_zero(&mut self, parts: &LoopParts) {
        let zero = self.iconst(0);
        for &iv in &parts.ivs[..parts.ivs.len() - 1] {
            self.map.insert(iv, zero);
        }
    }

    /// The flat vector form of a thread-per-point nest ([`VecPlan::flat`]): a thread per `v`
    /// consecutive points of the nest's flat order `f` (grid-stride), every iv but the column
    /// bound to 0 and the column to `f`, so that each `[i.., j]` access is at `f` of its dense
    /// buffer (`flat_points`); the points past the last full vector go to a scalar loop.
    pub(super) fn thread_per_point_flat(&mut self, parts: &LoopParts, v: usize) -> R<()> {
        let n = parts.ivs.len();
        let j = parts.ivs[n - 1];
        let (_, total) = self.extents(parts)?;
        let vc = self.iconst(v as i64);
        let nvec = self.ibin(Ix::Div, total, vc);
        let jstart = self.ibin(Ix::Mul, nvec, vc);
        let body = parts.body;
        let (g, stride) = self.global_thread();
        self.for_loop(g, nvec, stride, &[], &mut |kb, e, _| {
            kb.bind_rows_to_zero(parts);
            let j0 = kb.ibin(Ix::Mul, e, vc);
            kb.vec_state(v, j0);
            let res = kb.fast_block(body, j);
            kb.fast = None;
            res.map(|_| Vec::new())
        })?;
        self.forget_nest_values();
        let (g, stride) = self.global_thread();
        let g = self.ibin(Ix::Add, jstart, g);
        self.for_loop(g, total, stride, &[], &mut |kb, f, _| {
            kb.bind_rows_to_zero(parts);
            kb.map.insert(j, f);
            kb.emit_block(body)?;
            Ok(Vec::new())
        })?;
        Ok(())
    }

    /// The vector form of a split-K partial launch ([`VecPlan`]): a thread per (row block `b`,
    /// outer point, `v` consecutive columns from `j0`), consecutive threads on consecutive
    /// vectors; for each reduce it runs the block's rows `[b*S, min(R, b*S + S))` in order,
    /// one vector load of each `[i, j]` input and one scalar load of each `[i]` one per row,
    /// into `v` partials (each column's terms in the order of the scalar form: the same bits),
    /// and stores them to `W[p * blocks + b, col + e]`. The columns past the last full vector
    /// (and all of them when the guard fails) go to the scalar form.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn split_partial_vec(
        &mut self,
        parts: &LoopParts,
        plan: &VecPlan,
        v: usize,
        w: Value,
        blocks: Value,
        rows: Value,
    ) -> R<()> {
        let n = parts.ivs.len();
        let j = parts.ivs[n - 1];
        let (ext, total) = self.extents(parts)?;
        let ncols = ext[n - 1];
        let mut outer = self.iconst(1);
        for &e in &ext[..n - 1] {
            outer = self.ibin(Ix::Mul, outer, e);
        }
        let qmax = self.ibin(Ix::Mul, blocks, outer);
        let guard = self.vec_guard(plan, v, ncols)?;
        let (nvec, jstart) = self.vec_split(guard, v, ncols);
        let vc = self.iconst(v as i64);
        let body = parts.body;
        // W[p * blocks + b, o * ncols + col]: the first element of row p's partials.
        let ws_row = |kb: &mut Self, p: usize, b: Value, o: Value, col: Value| {
            let pv = kb.iconst(p as i64);
            let r = kb.ibin(Ix::Mul, pv, blocks);
            let r = kb.ibin(Ix::Add, r, b);
            let r = kb.ibin(Ix::Mul, r, total);
            let c = kb.ibin(Ix::Mul, o, ncols);
            let c = kb.ibin(Ix::Add, c, col);
            kb.ibin(Ix::Add, r, c)
        };
        // (block, outer point) of q = b * outer + o.
        let split_q = |kb: &mut Self, q: Value| {
            let b = kb.ibin(Ix::Div, q, outer);
            let o = if const_int(kb.ctx, outer) == Some(1) { kb.iconst(0) } else { kb.ibin(Ix::Rem, q, outer) };
            (b, o)
        };
        self.strided_divmod(qmax, nvec, &mut |kb, q, r| {
            let (b, o) = split_q(kb, q);
            kb.bind_flat_dims(parts, &ext, 0, n - 1, o)?;
            let j0 = kb.ibin(Ix::Mul, r, vc);
            kb.vec_state(v, j0);
            kb.fs().fmap.insert(j, Fv::J);
            let lo = kb.ibin(Ix::Mul, b, rows);
            let range = PosRange::Block { lo, len: rows };
            let res = kb.vec_partials(body, j, &range, &mut |kb, p, accs| {
                let base = ws_row(kb, p, b, o, j0);
                for (e, &x) in accs.iter().enumerate() {
                    let ec = kb.iconst(e as i64);
                    let off = kb.ibin(Ix::Add, base, ec);
                    kb.push(mgpu::StoreOp::state(kb.loc, x, w, off));
                }
                Ok(())
            });
            kb.fast = None;
            res
        })?;
        self.forget_nest_values();
        let tn = self.ibin(Ix::Sub, ncols, jstart);
        self.strided_divmod(qmax, tn, &mut |kb, q, r| {
            let (b, o) = split_q(kb, q);
            kb.bind_flat_dims(parts, &ext, 0, n - 1, o)?;
            let jv = kb.ibin(Ix::Add, jstart, r);
            kb.map.insert(j, jv);
            let lo = kb.ibin(Ix::Mul, b, rows);
            kb.emit_partials(body, &PosRange::Block { lo, len: rows }, None, &mut |kb, p, acc| {
                let off = ws_row(kb, p, b, o, jv);
                kb.push(mgpu::StoreOp::state(kb.loc, acc, w, off));
                Ok(())
            })
        })
    }

    /// [`Self::emit_partials`] on the fast emitter's vector of columns: the body's ops that do
    /// not depend on a reduce once, each reduce's terms at the positions of `range` combined
    /// in position order into one partial per column, handed to `out(p, partials)`. A block
    /// of positions runs one term an iteration; strided positions (a final reduction's row
    /// groups) run [`strided_terms`] terms an iteration, loaded together and then combined
    /// in order, the last iteration's terms past the end predicated off (their position
    /// clamped to the iteration's first, their values replaced by the identity), and
    /// consecutive reduces over the same positions share the loop (LayerNorm's dw and db: one
    /// load round trip for both).
    pub(super) fn vec_partials(
        &mut self,
        body: BlockId,
        j: Value,
        range: &PosRange,
        out: &mut PartialsOut<'_, 'a>,
    ) -> R<()> {
        let ops: Vec<OpId> = self.ctx.block_ops(body).collect();
        let mut tainted: HashSet<Value> = HashSet::new();
        let v = self.fs().v;
        // The ops that do not depend on a reduce first; the reduces, in groups sharing a loop.
        let mut groups: Vec<Vec<(OpId, LoopParts)>> = Vec::new();
        for o in ops {
            let kind = LoopOp::of(self.ctx, o);
            if matches!(kind, LoopOp::Yield | LoopOp::Store(_) | LoopOp::Accumulate(_)) {
                continue;
            }
            if self.ctx.operands(o).iter().any(|x| tainted.contains(x)) {
                tainted.extend(self.ctx.results(o).iter().copied());
                continue;
            }
            let LoopOp::Reduce(_) = kind else {
                self.fast_op(o)?;
                continue;
            };
            tainted.extend(self.ctx.results(o).iter().copied());
            let rp = loop_parts(self.ctx, o, true).map_err(|e| op_error(self.ctx, o, e))?;
            let same = |a: &LoopParts| a.lbs == rp.lbs && a.ubs == rp.ubs && a.steps == rp.steps;
            match groups.last_mut() {
                Some(g) if matches!(range, PosRange::Strided { .. }) && same(&g[0].1) => g.push((o, rp)),
                _ => groups.push(vec![(o, rp)]),
            }
        }
        let mut p = 0;
        for group in groups {
            let mut red = Vec::new();
            for (o, rp) in &group {
                let kind = kind_name(self.ctx, *o).unwrap_or_default();
                let ty = self.ctx.value_type(rp.init.expect("reduce"));
                let id = self.fconst(identity(&kind), ty);
                red.push((kind, id, ty));
            }
            let (ext, total) = self.extents(&group[0].1)?;
            // What the row loop's body defines stays in it.
            let fs = self.fs();
            let cached = (fs.fmap.clone(), fs.rows.clone(), fs.uni.clone(), fs.cse.clone());
            let map: HashMap<Value, Value> = self
                .map
                .iter()
                .filter(|(k, _)| !defined_outside(self.ctx, **k, self.nest))
                .map(|(k, v)| (*k, *v))
                .collect();
            let inits: Vec<Value> = red.iter().flat_map(|r| vec![r.1; v]).collect();
            // One iteration: `unroll` terms from `pos`, `stride` apart, each reduce's columns
            // loaded for all of them before any is combined, then combined in position order.
            // `clamp = Some(end)`: a term at or past `end` is predicated off (its position
            // clamped to `pos`, its values the identity).
            let iteration =
                |kb: &mut Self, pos: Value, acc: &[Value], unroll: i64, stride: Value, clamp: Option<Value>| {
                    let mut terms: Vec<(Vec<Vec<Value>>, Option<Value>)> = Vec::new();
                    let mut at = pos;
                    for k in 0..unroll {
                        let (where_, ok) = if k > 0 {
                            // Each term emits the body afresh (nothing of the last term's
                            // position is reused).
                            let fs = kb.fs();
                            (fs.fmap, fs.rows, fs.uni, fs.cse) = cached.clone();
                            match clamp {
                                Some(end) => kb.strided_term(pos, &mut at, stride, end),
                                None => {
                                    at = kb.ibin(Ix::Add, at, stride);
                                    (at, None)
                                }
                            }
                        } else {
                            (pos, None)
                        };
                        let mut cols = Vec::new();
                        for (_, rp) in &group {
                            kb.bind_flat(rp, &ext, where_)?;
                            let y = kb.fast_block(rp.body, j)?;
                            cols.push((0..v).map(|e| y.col(e)).collect());
                        }
                        terms.push((cols, ok));
                    }
                    kb.fold_terms(acc, terms, &red, v)
                };
            let accs = match range {
                PosRange::Block { lo, len } => {
                    // A block of consecutive positions (a split-K partial's rows): groups of
                    // `unroll` rows, loaded together, then the rest one at a time; the same
                    // sum in the same order, bit for bit.
                    let hi = self.ibin(Ix::Add, *lo, *len);
                    let hi = self.ibin(Ix::Min, total, hi);
                    let unroll = block_unroll(self.ctx, body, strided_terms(self.strided_unroll, group.len()));
                    let one = self.iconst(1);
                    self.grouped_for(
                        *lo,
                        hi,
                        one,
                        unroll,
                        &inits,
                        &mut |kb, pos, acc, count| iteration(kb, pos, acc, count, one, None),
                        &mut |kb| {
                            let fs = kb.fs();
                            (fs.fmap, fs.rows, fs.uni, fs.cse) = cached.clone();
                        },
                    )?
                }
                PosRange::Strided { start, step } => {
                    let terms = strided_terms(self.strided_unroll, group.len());
                    let u = self.iconst(terms);
                    let span = self.ibin(Ix::Mul, *step, u);
                    self.for_loop(*start, total, span, &inits, &mut |kb, pos, acc| {
                        iteration(kb, pos, acc, terms, *step, Some(total))
                    })?
                }
            };
            let fs = self.fs();
            (fs.fmap, fs.rows, fs.uni, fs.cse) = cached;
            // The nest's values defined in the loop stay in it; those from outside the nest
            // (buffers, host values) keep their kernel values.
            self.forget_nest_values();
            self.map.extend(map);
            for r in 0..group.len() {
                out(self, p, accs[r * v..(r + 1) * v].to_vec())?;
                p += 1;
            }
        }
        Ok(())
    }
}

/// Rows an iteration of a split-K partial's block loop loads at once
/// ([`KernelBuilder::vec_partials`], and the scalar form's [`KernelBuilder::emit_partials`]):
/// `unroll` over rows of 16-bit elements, at most 2 where the body loads a row of wider ones
/// (f32: rmsnorm_bwd_f32's unfused partial, two rows of x and dy in vectors of four, spilled 4
/// bytes in ptxas with four rows in flight, none with two or three; layernorm_bwd_f32's at
/// N = 14, vectors of two, 8 bytes; the bf16 examples with four do not spill).
pub(super) fn block_unroll(ctx: &Context, body: BlockId, unroll: i64) -> i64 {
    let wide = ctx.block_ops(body).flat_map(|o| ctx.walk_collect(o)).any(|o| {
        ctx.dyn_cast::<mloop::LoadOp>(o).is_some_and(|l| {
            let elem = ctx.element_type(ctx.value_type(l.buffer(ctx)));
            ctx.operands(o).len() >= 3 && float_bytes(ctx, elem).is_some_and(|b| b >= 4)
        })
    });
    if wide {
        unroll.min(2)
    } else {
        unroll
    }
}
