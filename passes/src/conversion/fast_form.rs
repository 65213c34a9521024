//! The register-resident row form of a row-fused kernel (docs/conversion-loop-to-gpu.md,
//! "RowFused fast path"), a child module of `loop_to_gpu`: the plan of a nest's fast form
//! ([`KernelBuilder::fast_plan`]), its run-time guard, and its emission
//! ([`KernelBuilder::row_fused_fast`]): each thread's columns of a row in registers (vector
//! loads once a row, or once a pass in the reload form), row reductions across the row's
//! threads (warp, CTA or cluster), column partials in registers or shared memory, staged
//! rows through a `cp.async` ring, rows in flight, chunk-major emission.

use super::*;
use crate::conversion::schedule::{packed_rows_for, vector_pieces, PACKED_MAX_BYTES};

/// Values of a row-fused kernel shared by its slow and fast forms.
pub(super) struct SplitGeometry {
    /// Workspaces whose fill this kernel replaces: each element is stored once
    /// ([`KernelBuilder::ws_covers`]).
    pub(super) covered: HashSet<Value>,
    pub(super) m: Value,
    pub(super) sc: Value,
    pub(super) nsplit: Value,
    pub(super) slot: Value,
    pub(super) slots: Value,
    pub(super) bid: Value,
    pub(super) gdim: Value,
    pub(super) tid: Value,
    pub(super) bdim: Value,
    pub(super) n_kernel: Value,
    pub(super) one: Value,
    pub(super) zero: Value,
}

/// A row input staged through shared memory ([`KernelBuilder::staging_layout`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct Staged {
    pub(super) buf: Value,
    pub(super) elem: Type,
    /// First element of its region of the dynamic shared memory, in elements of `elem`.
    pub(super) base: i64,
    /// Elements from one row slot to the next.
    pub(super) stride: i64,
}

/// What the fast path needs of a row-fused nest ([`KernelBuilder::fast_plan`]).
#[derive(Clone, Debug, Default)]
pub(super) struct FastPlan {
    /// 1-D buffers loaded at `[j]`: loaded once per CTA into registers.
    pub(super) hoist: Vec<Value>,
    /// Host index values that must equal N (loop bounds of the row).
    pub(super) eq_n: Vec<Value>,
    /// Host index values `c` of clamps `min(j, c)` that must be `>= N - 1` (then the clamp
    /// is the identity on the row).
    pub(super) ge_n1: Vec<Value>,
    /// 2-D buffers accessed at `[r, j]`: their dim 1 must equal N.
    pub(super) rows2d: Vec<Value>,
    /// Bytes of the widest vectorized element.
    pub(super) bytes: u32,
    /// The 2-D buffers the rows load at `[i, j]` with their element types
    /// ([`KernelBuilder::fast_row_inputs`]; filled by `row_fused`).
    pub(super) inputs: Vec<(Value, Type)>,
}

/// A per-row scalar input of a row nest ([`KernelBuilder::row_scalar_inputs`]): a 1-D buffer
/// the nest reads at its row iv, `rstd[i]`.
#[derive(Clone, Copy, Debug)]
pub(super) struct RowScalar {
    /// The buffer.
    pub(super) buf: Value,
    /// Its element type.
    pub(super) elem: Type,
    /// `Some(c)` where its (first) load is at a clamp `min(i, c)`, `None` at `i` itself.
    pub(super) clamp: Option<Value>,
    /// Whether every load of it takes the same form (`clamp`).
    pub(super) one_form: bool,
}

/// A value of the fast row emitter: the same for every column of the thread, one value per
/// owned column, or the column index itself.
#[derive(Clone, Debug)]
pub(super) enum Fv {
    Uni(Value),
    Cols(Vec<Value>),
    J,
}

impl Fv {
    /// Its value at the thread's column slot `slot` (a uniform value at every slot).
    pub(super) fn col(&self, slot: usize) -> Value {
        match self {
            Fv::Uni(u) => *u,
            Fv::Cols(cs) => cs[slot],
            Fv::J => unreachable!("a column index as a value: checked by fast_plan and vec_plan"),
        }
    }
}

pub(super) type CseKey = (String, Vec<Value>, Type, Vec<(String, Attr)>);

/// Per-kernel state of the fast emitter.
#[derive(Default)]
pub(super) struct FastState {
    pub(super) n: i64,
    pub(super) v: usize,
    pub(super) k: usize,
    /// Per chunk: the column of its first element.
    pub(super) bases: Vec<Value>,
    /// Per chunk: where its first element sits in the CTA's shared row (`bases` but for a
    /// cluster per row, whose CTAs keep only their own columns).
    pub(super) lbases: Vec<Value>,
    /// The columns a CTA keeps in a shared row ([`Schedule::cta_cols`]).
    pub(super) cta_cols: i64,
    /// Per chunk: `base < N` when the chunk is partial (some threads past the row's end).
    pub(super) valid: Vec<Option<Value>>,
    /// Hoisted `[j]` buffers: their elements per owned column.
    pub(super) hoisted: HashMap<Value, Vec<Value>>,
    /// Nest value -> its fast value.
    pub(super) fmap: HashMap<Value, Fv>,
    /// Rows loaded this row: (buffer, row index) -> elements per owned column.
    pub(super) rows: HashMap<(Value, Vec<Value>), Vec<Value>>,
    /// Scalar loads this row: (buffer, indices) -> value.
    pub(super) uni: HashMap<(Value, Vec<Value>), Value>,
    /// Pure scalar ops this row.
    pub(super) cse: HashMap<CseKey, Value>,
    /// Workspace -> partial index.
    pub(super) ws: HashMap<Value, usize>,
    /// Current accumulators, `[partial][column slot]`.
    pub(super) accs: Vec<Vec<Value>>,
    /// Chunk-major emission (`chunk-major`): the chunk whose columns `fast_op` emits now;
    /// `None`: all of them.
    pub(super) chunk: Option<usize>,
    /// The body is emitted chunk by chunk (the pass option, or [`FastShape::chunk_major`]).
    pub(super) chunk_major: bool,
    /// A row's stride is its buffer's last dim at run time (the vector form of a pointwise or
    /// split-K partial kernel, [`VecPlan`]), not the specialized `n` of a row-fused kernel.
    pub(super) dyn_rows: bool,
    /// The reload form ([`FastShape::reload`]): the rows loaded this row are dropped after
    /// each row reduction, so the next use loads them again.
    pub(super) reload: bool,
    /// In the reload form, `[j]` vectors load coherently, not through the read-only path
    /// ([`KernelBuilder::reload_coherent_vectors`]).
    pub(super) coherent_vectors: bool,
    /// In the reload form, the staged rows of this row: where each lives in the ring, so that
    /// a reload reads the ring again (`(buffer, row) -> (shared pointer, slot's first
    /// element, element type)`).
    pub(super) restage: Vec<Restage>,
    /// Packed rows ([`KernelBuilder::packed_row_loop`]): the row stores of the group's rows,
    /// `(buffer, row, values)` in order, held back to be stored as one vector a buffer;
    /// `None`: stores go out as emitted.
    pub(super) packed_stores: Option<Vec<(Value, Value, Vec<Value>)>>,
    /// This row's value of each per-row scalar input (`rstd[i]`) loaded before the row, by
    /// buffer: packed rows' group vectors, or rows in flight's load one row ahead. A load of
    /// the buffer at the nest's row iv, or at a clamp `min(iv, c)`, takes it (packed rows:
    /// the group's condition proved the clamp the identity; rows in flight: the load ahead
    /// took the very clamp, [`RowScalar::clamp`]).
    pub(super) row_unis: HashMap<Value, Value>,
    /// See `row_unis`: the nest's row iv.
    pub(super) row_iv: Option<Value>,
    /// The shared accumulators ([`FastShape::shared_accs`]): the f32 dynamic shared memory
    /// that holds partial `p`'s column `j` at `p * n + j` (a CTA per row), or at
    /// `accs_rows[p] + j` (a warp per row: its shared partial rows); `None`: partials in
    /// registers.
    pub(super) accs_smem: Option<Value>,
    /// A warp (or group of lanes) per row's shared accumulators: per partial, the offset of
    /// the row slot's partial row in the shared partials (`(p * slots + slot) * n`); empty
    /// for a CTA per row's.
    pub(super) accs_rows: Vec<Value>,
    /// Ops of this row's inner parallels already emitted before its first row reduction
    /// ([`KernelBuilder::early_accumulates`]), skipped where their block is emitted.
    pub(super) early: HashSet<OpId>,
    /// Warp-transposed packed rows ([`FastShape::warp_transpose`]): where the warps' spans
    /// sit in the dynamic shared memory; `None`: each thread accesses its own group.
    pub(super) transpose: Option<Transpose>,
}

/// Where warp-transposed packed rows hand a warp's span to its lanes
/// ([`KernelBuilder::packed_row_loop`]).
#[derive(Clone, Debug)]
pub(super) struct Transpose {
    /// First byte of the warps' spans in the launch's dynamic shared memory (a multiple of
    /// 16).
    pub(super) base: u64,
    /// Bytes of one warp's span: 32 groups of the widest row buffer the schedule planned
    /// ([`Schedule::transpose_shared_bytes`]); a buffer of wider groups is not transposed.
    pub(super) warp_bytes: u64,
    /// The dynamic shared memory viewed as each element type used so far.
    pub(super) ptrs: Vec<(Type, Value)>,
}

/// A staged row of this row in the reload form: its `(buffer, row)` key in
/// [`FastState::rows`], the ring's shared pointer, the slot's first element, the element type.
pub(super) type Restage = ((Value, Vec<Value>), Value, Value, Type);

/// Sets `s.vector` to the elements per thread of a thread-per-point or split-K partial
/// kernel: the vector form's width ([`VecPlan`]; a schedule from the IR caps it at its own
/// `vector`, a power of two), or 1 with a note saying why the nest keeps the scalar form.
pub(super) fn vector_choice(plan: &Result<VecPlan, String>, s: &mut Schedule, from_ir: bool) {
    let v = match plan {
        Ok(p) if from_ir => p.v.min(pow2_floor(s.vector) as usize),
        Ok(p) => p.v,
        Err(_) => 1,
    };
    s.vector = v as u32;
    match plan {
        Err(why) => s.notes.0.push(format!("scalar, one point a thread (no vector form): {why}")),
        Ok(_) if v < 2 => s.notes.0.push("scalar, one point a thread: the schedule's vector is 1".into()),
        Ok(p) if p.flat => s.notes.0.push(format!(
            "flat vectors: {v} consecutive points of the nest's row-major order a thread, across rows (its rows are not whole vectors of {v}; every access is at the point's flat position)"
        )),
        Ok(_) => {}
    }
}

/// The type of `op` if `lower-loop-to-gpu{reciprocal-divisors}` (on unless `opts` says
/// `exact_divisions`) may turn it into a multiply by a reciprocal where its divisor is one value
/// for a thread's vector of columns: an f32 or f64 `mloop.div` (half-precision divisions are
/// left alone, as by `invariant-divisor-to-reciprocal`). The vector plan (which then counts no
/// subroutine call per column) and the emitter ([`KernelBuilder::fast_op`]) both ask here.
pub(super) fn reciprocal_division(ctx: &Context, op: OpId, opts: &LoopToGpuOptions) -> Option<Type> {
    if opts.exact_divisions || ctx.dyn_cast::<mloop::DivOp>(op).is_none() {
        return None;
    }
    let ty = ctx.value_type(ctx.result(op, 0));
    matches!(ctx.float_kind(ty), Some(morf_ir::FloatKind::F32 | morf_ir::FloatKind::F64)).then_some(ty)
}

pub(super) fn float_bytes(ctx: &Context, t: Type) -> Option<u32> {
    match ctx.float_kind(t)?.name() {
        "f64" => Some(8),
        "f32" => Some(4),
        _ => Some(2),
    }
}

/// The elements of each piece a warp accesses its span of groups of `ge` elements of
/// `elem_bytes` in (warp-transposed packed rows): the width of a group's aligned pieces
/// ([`vector_pieces`] at a multiple of `ge`: the largest power of two dividing `ge`, at most 16
/// bytes and 8 elements), so that the span (32 groups, at a multiple of `ge`) is exactly 32 x
/// `ge / w` aligned pieces.
pub(super) fn warp_piece(ge: usize, elem_bytes: u32) -> usize {
    vector_pieces(ge, elem_bytes, ge).first().map_or(1, |&(_, w)| w)
}

/// Whether loop-IR index `x` is the row iv `iv` of nest `nest`, or a clamp `min(iv, c)` (a
/// broadcast's) with `c` from outside the nest: `Some(None)` for the iv, `Some(Some(c))` for
/// a clamp, `None` otherwise ([`KernelBuilder::packed_row_loop`]'s per-row scalars).
pub(super) fn row_scalar_index(ctx: &Context, x: Value, iv: Value, nest: OpId) -> Option<Option<Value>> {
    if x == iv {
        return Some(None);
    }
    let c = clamp_bound(ctx, ctx.defining_op(x)?, &|a| a == iv)?;
    (c != iv && defined_outside(ctx, c, nest)).then_some(Some(c))
}

impl<'a> KernelBuilder<'a> {
    /// Whether the row-fused nest `op` can take the fast path, and what it must check at run
    /// time. Every reduce and the inner parallel run over `[0, N)` step 1; inside them the
    /// column index `j` is used only as the last index of loads (`x[r, j]`, `w[j]`) and stores
    /// (`dx[r, j]`), possibly through `min(j, c)` (a broadcast clamp), and by `accumulate`;
    /// loaded buffers are never written by the nest.
    pub(super) fn fast_plan(&self, op: OpId) -> Option<FastPlan> {
        let ctx = &*self.ctx;
        let parts = loop_parts(ctx, op, false).ok()?;
        let mut plan = FastPlan::default();
        let outside = |v: Value| defined_outside(ctx, v, op);
        for o in ctx.block_ops(parts.body) {
            let is_reduce = ctx.isa::<mloop::ReduceOp>(o);
            if !is_reduce && !ctx.isa::<mloop::ParallelOp>(o) {
                continue;
            }
            let lp = loop_parts(ctx, o, is_reduce).ok()?;
            if lp.ivs.len() != 1
                || const_int(ctx, lp.lbs[0]) != Some(0)
                || const_int(ctx, lp.steps[0]) != Some(1)
                || !outside(lp.ubs[0])
            {
                return None;
            }
            plan.eq_n.push(lp.ubs[0]);
            let mut jexact: HashSet<Value> = [lp.ivs[0]].into_iter().collect();
            let mut jdep: HashSet<Value> = HashSet::new();
            for b in ctx.block_ops(lp.body) {
                let ops = ctx.operands(b);
                let kind = LoopOp::of(ctx, b);
                let (is_load, is_store) = (matches!(kind, LoopOp::Load(_)), matches!(kind, LoopOp::Store(_)));
                let has_j = ops.iter().any(|v| jexact.contains(v));
                let has_dep = ops.iter().any(|v| jdep.contains(v));
                let clamp = clamp_bound(ctx, b, &|x| jexact.contains(&x));
                match kind {
                    LoopOp::Yield => {
                        if has_j {
                            return None;
                        }
                    }
                    LoopOp::Scalar
                        if clamp.is_some() && matches!(ctx.type_data(ctx.value_type(ops[0])), TypeData::Index) =>
                    {
                        let c = clamp.expect("checked");
                        if !outside(c) || jexact.contains(&c) {
                            return None;
                        }
                        plan.ge_n1.push(c);
                        jexact.insert(ctx.result(b, 0));
                    }
                    LoopOp::Load(_) | LoopOp::Store(_) => {
                        let (buf, idx) = if is_load { (ops[0], &ops[1..]) } else { (ops[1], &ops[2..]) };
                        if idx.iter().any(|v| jdep.contains(v)) || (is_store && is_reduce) {
                            return None;
                        }
                        if is_load && has_dep {
                            return None;
                        }
                        let jpos: Vec<usize> = (0..idx.len()).filter(|&k| jexact.contains(&idx[k])).collect();
                        if is_store && jexact.contains(&ops[0]) {
                            return None;
                        }
                        if jpos.is_empty() {
                            if is_store {
                                return None;
                            }
                            continue;
                        }
                        let elem = ctx.element_type(ctx.value_type(buf));
                        let bytes = float_bytes(ctx, elem)?;
                        plan.bytes = plan.bytes.max(bytes);
                        if !outside(buf) {
                            return None;
                        }
                        if is_load {
                            if self.written.contains(&buf) {
                                return None;
                            }
                            jdep.insert(ctx.result(b, 0));
                        }
                        match (idx.len(), jpos.as_slice()) {
                            (1, [0]) if is_load => {
                                if !plan.hoist.contains(&buf) {
                                    plan.hoist.push(buf);
                                }
                            }
                            // A row of a k-D buffer: the column last, the other indices
                            // the same for the whole row (`x[b, m, j]` of a collapsed row).
                            (n, [last]) if n >= 2 && *last == n - 1 => {
                                if !plan.rows2d.contains(&buf) {
                                    plan.rows2d.push(buf);
                                }
                            }
                            _ => return None,
                        }
                    }
                    LoopOp::Accumulate(_) => {
                        // row_fused_ok checked `W[i div S, j]`.
                        if is_reduce || jexact.contains(&ops[0]) {
                            return None;
                        }
                    }
                    LoopOp::Dim(_) => {}
                    LoopOp::Scalar => {
                        if has_j {
                            return None;
                        }
                        if has_dep {
                            for r in ctx.results(b) {
                                jdep.insert(*r);
                            }
                        }
                    }
                    _ => return None,
                }
            }
        }
        Some(plan)
    }

    /// The run-time condition of the fast path: every checked size is N.
    pub(super) fn fast_guard(&mut self, plan: &FastPlan, n: u64) -> R<Value> {
        let nv = self.iconst(n as i64);
        let nm1 = self.iconst(n as i64 - 1);
        let mut conds = Vec::new();
        for &v in &plan.eq_n {
            let k = self.get(v)?;
            conds.push(self.icmp("eq", k, nv));
        }
        for &v in &plan.ge_n1 {
            let k = self.get(v)?;
            conds.push(self.icmp("ge", k, nm1));
        }
        for &b in &plan.rows2d {
            let rank = buffer_shape(self.ctx, b).len();
            let d = self.dim(b, rank - 1);
            conds.push(self.icmp("eq", d, nv));
        }
        Ok(self.all_of(&conds))
    }

    /// `mgpu.if %cond { then } else { els }` without results.
    pub(super) fn if_then_else(
        &mut self,
        cond: Value,
        then: &mut dyn FnMut(&mut Self) -> R<()>,
        els: &mut dyn FnMut(&mut Self) -> R<()>,
    ) -> R<()> {
        let saved = self.cur;
        let mut regions = Vec::new();
        for which in 0..2 {
            let region = self.ctx.create_region();
            let blk = self.ctx.create_block(region, &[]);
            self.cur = blk;
            let r = if which == 0 { then(self) } else { els(self) };
            if r.is_ok() {
                self.push(mgpu::YieldOp::state(self.loc, &[]));
            }
            self.cur = saved;
            r?;
            regions.push(region);
        }
        let st = mgpu::IfOp::state(self.loc, cond, &[]).region(regions[0]).region(regions[1]);
        let op = self.ctx.create_op(st);
        self.ctx.append_op(self.cur, op);
        Ok(())
    }

    /// `mgpu.if %cond -> (...) { then } else { els }`.
    pub(super) fn if_values(
        &mut self,
        cond: Value,
        then: &mut dyn FnMut(&mut Self) -> R<Vec<Value>>,
        els: &mut dyn FnMut(&mut Self) -> R<Vec<Value>>,
    ) -> R<Vec<Value>> {
        let saved = self.cur;
        let mut regions = Vec::new();
        let mut tys = Vec::new();
        for which in 0..2 {
            let region = self.ctx.create_region();
            let blk = self.ctx.create_block(region, &[]);
            self.cur = blk;
            let r = if which == 0 { then(self) } else { els(self) };
            self.cur = saved;
            let ys = r?;
            tys = ys.iter().map(|v| self.ctx.value_type(*v)).collect();
            let y = self.ctx.create_op(mgpu::YieldOp::state(self.loc, &ys));
            self.ctx.append_op(blk, y);
            regions.push(region);
        }
        let st = mgpu::IfOp::state(self.loc, cond, &tys).region(regions[0]).region(regions[1]);
        let op = self.ctx.create_op(st);
        self.ctx.append_op(self.cur, op);
        Ok(self.ctx.results(op).to_vec())
    }

    pub(super) fn fs(&mut self) -> &mut FastState {
        self.fast.as_mut().expect("fast state")
    }

    /// `v` elements of `elem` at `ptr[off]` (a vector access; a scalar one for `v = 1`),
    /// zeros where `valid` is false.
    pub(super) fn vload(
        &mut self,
        ptr: Value,
        off: Value,
        elem: Type,
        nc: bool,
        valid: Option<Value>,
    ) -> R<Vec<Value>> {
        let v = self.fs().v;
        self.vload_n(ptr, off, elem, nc, valid, v)
    }

    /// [`Self::vload`] of `v` elements (`off` a multiple of `v`): in the widest pieces that
    /// alignment allows ([`vector_pieces`]: one access where `v` is 1, 2, 4 or 8 of at most 16
    /// bytes; 8 rows of N = 3 bf16, 48 bytes at a multiple of 48, are three of 16).
    pub(super) fn vload_n(
        &mut self,
        ptr: Value,
        off: Value,
        elem: Type,
        nc: bool,
        valid: Option<Value>,
        v: usize,
    ) -> R<Vec<Value>> {
        self.vload_aligned(ptr, off, elem, nc, valid, v, v)
    }

    /// `v` elements of `elem` at `ptr[off]`, `off` a multiple of `align` elements, in the
    /// widest pieces that alignment allows ([`vector_pieces`]), zeros where `valid` is false.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn vload_aligned(
        &mut self,
        ptr: Value,
        off: Value,
        elem: Type,
        nc: bool,
        valid: Option<Value>,
        v: usize,
        align: usize,
    ) -> R<Vec<Value>> {
        let nc = nc.then(|| self.ctx.unit_attr());
        let bytes = morf_gpu::types::elem_bytes(self.ctx, elem);
        let pieces = vector_pieces(v, bytes as u32, align);
        let mut load = |kb: &mut Self| -> R<Vec<Value>> {
            let mut out = Vec::with_capacity(v);
            for &(e, w) in &pieces {
                let ec = kb.iconst(e as i64);
                let o = kb.ibin(Ix::Add, off, ec);
                if w == 1 {
                    out.push(kb.push1(mgpu::LoadOp::state(kb.loc, ptr, o, elem, nc, None)));
                } else {
                    let op = kb.push(mgpu::LoadVecOp::state(kb.loc, ptr, o, &vec![elem; w], nc, None));
                    out.extend(kb.ctx.results(op).iter().copied());
                }
            }
            Ok(out)
        };
        match valid {
            None => load(self),
            Some(c) => {
                let z = self.fconst(0.0, elem);
                self.if_values(c, &mut load, &mut |_| Ok(vec![z; v]))
            }
        }
    }

    /// Stores `vals` at `ptr[off]` (`off` a multiple of their count) under `valid`: in the
    /// widest pieces that alignment allows, as [`Self::vload_n`].
    pub(super) fn vstore(&mut self, vals: &[Value], ptr: Value, off: Value, valid: Option<Value>) -> R<()> {
        self.vstore_aligned(vals, ptr, off, valid, vals.len())
    }

    /// Stores `vals` at `ptr[off]`, `off` a multiple of `align` elements, under `valid`: in
    /// the widest pieces that alignment allows ([`vector_pieces`]).
    pub(super) fn vstore_aligned(
        &mut self,
        vals: &[Value],
        ptr: Value,
        off: Value,
        valid: Option<Value>,
        align: usize,
    ) -> R<()> {
        let Some(&first) = vals.first() else { return Ok(()) };
        let ty = self.ctx.value_type(first);
        let pieces = vector_pieces(vals.len(), morf_gpu::types::elem_bytes(self.ctx, ty) as u32, align);
        let mut store = |kb: &mut Self| -> R<()> {
            for &(e, w) in &pieces {
                let ec = kb.iconst(e as i64);
                let o = kb.ibin(Ix::Add, off, ec);
                let st = if w == 1 {
                    mgpu::StoreOp::state(kb.loc, vals[e], ptr, o)
                } else {
                    let mut operands = vals[e..e + w].to_vec();
                    operands.extend([ptr, o]);
                    mgpu::StoreVecOp::state(kb.loc, &operands)
                };
                kb.push(st);
            }
            Ok(())
        };
        match valid {
            None => store(self),
            Some(c) => self.if_then(c, &mut store),
        }
    }

    /// The fast form of a row-fused kernel (docs/conversion-loop-to-gpu.md, "Fast path").
    #[allow(clippy::too_many_arguments)]
    pub(super) fn row_fused_fast(
        &mut self,
        op: OpId,
        plan: &FastPlan,
        s: &Schedule,
        ws: &[Value],
        kinds: &[String],
        g: &SplitGeometry,
        t: Value,
        staged: &[Staged],
        transpose: Option<(u64, u64)>,
    ) -> R<()> {
        let fast = s.fast.expect("fast schedule");
        let packed = fast.packed_rows.max(1) as usize;
        let (n, v, k) = (fast.cols as i64, fast.vector as usize, fast.chunks as usize);
        if packed > 1 {
            // A schedule from the IR is checked here too, by the heuristic's rule: the rows
            // must be one vector each, held, with nothing loaded ahead, and R of them at most
            // PACKED_MAX_BYTES a row input.
            let bytes = packed as u64 * n as u64 * plan.bytes.max(1) as u64;
            if packed_rows_for(plan.bytes, s, s.rows_in_flight_per_warp, packed as u32) != Ok(packed as u32) {
                return Err(op_error(
                    self.ctx,
                    op,
                    format!(
                        "packed_rows = {packed} needs a thread per row whose row is one vector, held, with nothing loaded ahead, and {packed} rows of at most {PACKED_MAX_BYTES} bytes a row input ({bytes} here)"
                    ),
                ));
            }
        }
        // The row's threads: a cluster's, with a cluster per row (`t` is then the thread's
        // place in the cluster).
        let tpr = s.threads_per_row as i64 * s.cluster.max(1) as i64;
        let parts = loop_parts(self.ctx, op, false).map_err(|e| op_error(self.ctx, op, e))?;
        // Columns of the thread's chunks.
        let vc = self.iconst(v as i64);
        let tv = self.ibin(Ix::Mul, t, vc);
        let nc = self.iconst(n);
        let mut bases = Vec::new();
        let mut valid = Vec::new();
        for c in 0..k {
            let off = self.iconst(c as i64 * tpr * v as i64);
            let b = self.ibin(Ix::Add, tv, off);
            bases.push(b);
            valid.push(if ((c + 1) as i64) * tpr * v as i64 > n { Some(self.icmp("lt", b, nc)) } else { None });
        }
        // Where the CTA keeps its columns in shared memory (staged rows, shared
        // accumulators): chunk by chunk of its own threads, `(c * threads + tid) * v` (the
        // global columns but for a cluster).
        let lbases = if s.cluster > 1 {
            let tid = self.id::<mgpu::ThreadIdOp>();
            let tv = self.ibin(Ix::Mul, tid, vc);
            (0..k)
                .map(|c| {
                    let off = self.iconst(c as i64 * s.threads_per_row as i64 * v as i64);
                    self.ibin(Ix::Add, tv, off)
                })
                .collect()
        } else {
            bases.clone()
        };
        self.fast = Some(FastState {
            n,
            v,
            k,
            bases: bases.clone(),
            lbases,
            cta_cols: s.cta_cols() as i64,
            valid: valid.clone(),
            ws: ws.iter().enumerate().map(|(p, w)| (*w, p)).collect(),
            reload: fast.reload,
            coherent_vectors: self.coherent_vectors,
            chunk_major: fast.chunk_major || self.opts.chunk_major,
            transpose: transpose.filter(|_| packed > 1).map(|(base, warp_bytes)| Transpose {
                base,
                warp_bytes,
                ptrs: Vec::new(),
            }),
            ..FastState::default()
        });
        // A warp per row accumulates in its slot's rows of the shared partials; a CTA per row
        // in the launch's dynamic shared memory, held row or reloaded (sized by
        // `Schedule::shared_accs_bytes` under the same predicate).
        let held_accs = fast.shared_accs && !s.accs_in_dynamic_shared();
        if held_accs {
            let sp = self.shared_partials.as_ref().map(|p| p.smem).ok_or_else(|| {
                op_error(self.ctx, op, "shared accumulators without a CTA per row need shared partials")
            })?;
            let nc = self.iconst(n);
            let mut rows = Vec::new();
            for p in 0..ws.len() {
                let pc = self.iconst(p as i64);
                let r = self.ibin(Ix::Mul, pc, g.slots);
                let r = self.ibin(Ix::Add, r, g.slot);
                rows.push(self.ibin(Ix::Mul, r, nc));
            }
            self.fs().accs_smem = Some(sp);
            self.fs().accs_rows = rows;
        } else if fast.shared_accs {
            let f32t = self.ctx.f32_type();
            let pt = ptr_type(self.ctx, f32t, true);
            let op = self.prologue(mgpu::DynamicSharedOp::state(self.loc, pt));
            let p = self.ctx.result(op, 0);
            self.fs().accs_smem = Some(p);
        }
        // Hoisted [j] buffers, once per CTA (in the reload form, loaded per use instead:
        // holding them is what does not fit).
        let hoist = if fast.reload { &[][..] } else { &plan.hoist[..] };
        for &b in hoist {
            let ptr = self.get(b)?;
            let elem = self.ctx.element_type(self.ctx.value_type(b));
            let mut vals = Vec::new();
            for c in 0..k {
                vals.extend(self.vload(ptr, bases[c], elem, true, valid[c])?);
            }
            self.fs().hoisted.insert(b, vals);
        }
        // Accumulator identities (carried through the row loop; in shared memory with
        // shared accumulators, set at each split's start).
        let mut inits = Vec::new();
        let mut shared_ids = Vec::new();
        for (p, w) in ws.iter().enumerate() {
            let et = self.ctx.element_type(self.ctx.value_type(*w));
            let id = self.fconst(identity(&kinds[p]), et);
            if fast.shared_accs {
                shared_ids.push(id);
            } else {
                inits.extend(std::iter::repeat_n(id, k * v));
            }
        }
        let slots_n = k * v;
        let iv = parts.ivs[0];
        let body = parts.body;
        let warp = s.threads_per_row <= 32;
        // The row buffers `x[i, j]` a warp (or a CTA per row) loads ahead
        // (rows_in_flight_per_warp = 2).
        let prefetch = if s.rows_in_flight_per_warp >= 2 { plan.inputs.clone() } else { Vec::new() };
        // With them, the per-row scalar inputs (`rstd[i]`) whose loads all take one form,
        // loaded a row ahead and carried: the row's compute waits on them as on its row
        // (loaded in the row instead, they kept one latency a row with two rows in flight).
        // `scalars-ahead=D` loads them D rows ahead in any row loop (the loop carries the
        // scalars of the next D rows); with staged rows, whose rows are in shared memory
        // already when the row starts, one row ahead measured 0.4% faster to 7% slower on an
        // H100 (forty-ninth session, call 1), so by default they stay in the row there.
        let depth = match self.opts.scalars_ahead {
            Some(d) => d as usize,
            None => usize::from(!prefetch.is_empty()),
        };
        let ahead_scalars: Vec<RowScalar> = if depth > 0 {
            self.row_scalar_inputs(iv).0.into_iter().filter(|s| s.one_form).collect()
        } else {
            Vec::new()
        };
        let n_ahead = ahead_scalars.len() * depth;
        // The row buffers staged through shared memory (staged_rows >= 2): a ring of
        // `staged_rows` row slots per row group, in the launch's dynamic shared memory.
        let ring_n = s.staged_rows.max(1) as i64;
        let mut smem = Vec::new();
        let mut by_type: Vec<(Type, Value)> = Vec::new();
        for st in staged {
            let p = match by_type.iter().find(|(t, _)| *t == st.elem) {
                Some(&(_, p)) => p,
                None => {
                    let pt = ptr_type(self.ctx, st.elem, true);
                    let op = self.prologue(mgpu::DynamicSharedOp::state(self.loc, pt));
                    let p = self.ctx.result(op, 0);
                    by_type.push((st.elem, p));
                    p
                }
            };
            smem.push(p);
        }
        let (mut sc, m, slot, slots, mut nsplit) = (g.sc, g.m, g.slot, g.slots, g.nsplit);
        if ws.is_empty() && (!prefetch.is_empty() || !staged.is_empty()) {
            // Without partials a split is one row per warp, so nothing would be ahead: each
            // CTA takes one block of `slots * ceil(ceil(M / slots) / grid)` consecutive rows
            // instead (the same rows, in another order across CTAs).
            let groups = self.ceil_div(m, slots);
            let per = self.ceil_div(groups, g.gdim);
            let per = self.ibin(Ix::Max, per, g.one);
            sc = self.ibin(Ix::Mul, per, slots);
            nsplit = self.ceil_div(m, sc);
        }
        let interleave = self.opts.interleave_splits;
        self.interleaved = interleave;
        // A CTA (or cluster) per row alternates the halves of its reduction slots from row to
        // row, one barrier each (`parity`), from half 0 at each split: each split starts with a
        // barrier, so that its first row never writes the half the last row of the split before
        // read with no barrier between (the simulator's race detector found that hazard where
        // a split had an odd number of rows). Carrying the parity across splits instead cost
        // RMSNorm backward at 32768 x 4096 0.5-0.8% on an H100, whose CTAs take one split each
        // (thirty-second session, call 3); a barrier only before later splits (a branch) cost
        // LayerNorm backward at 4096 x 16384 a 4-byte spill. This one changes no kernel's
        // registers or spills in the ptxas sweep.
        let parity = !warp;
        // `dynamic-splits`: the splits go to CTAs from a work counter (`mgpu.work_loop`), not
        // every `grid_dim`-th one; a split's rows and partial row are the same either way. Not
        // with a cluster per row (its CTAs take each split together).
        let dynamic = self.opts.dynamic_splits && s.cluster <= 1;
        self.dynamic_splits = dynamic;
        let split_body: &mut LoopBody<'_, '_> = &mut |kb, sidx, _| {
            // (A cluster's CTAs wait at each split's start for the arrival at the end of the
            // one before, after their reads: ordered already.)
            if parity && kb.cluster() <= 1 {
                kb.push(mgpu::BarrierOp::state(kb.loc));
            }
            // The split's rows: a block of `sc` consecutive ones, or with `interleave-splits`
            // every `nsplit`-th group of `slots` rows from group `sidx` on (`step` apart).
            // Packed rows: a row group is `slots x R` rows, a thread's R consecutive ones.
            let (group, first) = if packed > 1 {
                let rc = kb.iconst(packed as i64);
                (kb.ibin(Ix::Mul, slots, rc), kb.ibin(Ix::Mul, slot, rc))
            } else {
                (slots, slot)
            };
            let (row0, rend, step) = if interleave {
                let row0 = kb.ibin(Ix::Mul, sidx, group);
                (row0, m, kb.ibin(Ix::Mul, group, nsplit))
            } else {
                let row0 = kb.ibin(Ix::Mul, sidx, sc);
                let rend = kb.ibin(Ix::Add, row0, sc);
                (row0, kb.ibin(Ix::Min, rend, m), group)
            };
            let start = if packed > 1 {
                // From the aligned row at or before the split's first (a split of a size
                // set at run time may start mid-group): each thread's R rows are one
                // aligned vector of every row input.
                let rc = kb.iconst(packed as i64);
                let q = kb.ibin(Ix::Div, row0, rc);
                let aligned = kb.ibin(Ix::Mul, q, rc);
                kb.ibin(Ix::Add, aligned, first)
            } else {
                kb.ibin(Ix::Add, row0, first)
            };
            // Shared accumulators: each thread sets its own columns (no barrier: no other
            // thread touches them).
            for (p, &id) in shared_ids.iter().enumerate() {
                for c in 0..k {
                    let sp = kb.fs().accs_smem.expect("shared accumulators");
                    kb.store_shared_accs(&vec![id; v], sp, p, c)?;
                }
            }
            // Rows in flight: the loop carries the next row of each prefetched buffer, loaded
            // (at the last row of the split once past it, so that no load leaves the buffer)
            // before the current row is computed.
            let last = kb.ibin(Ix::Sub, rend, g.one);
            let mut carried = inits.clone();
            let mut widths = Vec::new();
            if !prefetch.is_empty() || !ahead_scalars.is_empty() {
                let first_row = kb.ibin(Ix::Min, start, last);
                for &(b, elem) in &prefetch {
                    let vals = kb.load_fast_row(b, elem, &[first_row])?;
                    widths.push(vals.len());
                    carried.extend(vals);
                }
                for d in 0..depth {
                    let row = if d == 0 { first_row } else { kb.row_ahead(start, d as i64, step, last) };
                    for sc in &ahead_scalars {
                        carried.push(kb.load_row_scalar(sc, row)?);
                    }
                }
            }
            // A CTA (or cluster) per row: one barrier per reduction inside the loop
            // (alternating slot halves, the parity carried). For a cluster, the protocol
            // outside the loop restored around it: a wait here (the arrival before: every
            // CTA has read the slots of the last reduction), an arrival after the loop.
            let clustered = kb.cluster() > 1;
            if clustered {
                kb.push(mgpu::ClusterWaitOp::state(kb.loc));
            }
            if parity {
                carried.push(kb.iconst(0));
            }
            if !staged.is_empty() {
                // The group's first rows into its ring (clamped to the split's last row:
                // copies past it are never read), one copy group per row.
                for r in 0..ring_n {
                    let row = kb.row_ahead(start, r, step, last);
                    let ring = kb.iconst(r);
                    kb.stage_row(staged, &smem, row, ring, (slot, slots))?;
                }
                let ring0 = kb.iconst(0);
                carried.push(ring0);
            }
            let n_acc = inits.len();
            let out = if packed > 1 {
                kb.packed_row_loop((body, iv, t), (start, rend, step, row0), &carried, packed, &plan.inputs)?
            } else {
                kb.for_loop(start, rend, step, &carried, &mut |kb, i, cur| {
                    kb.start_fast_row(iv, i, &cur[..n_acc]);
                    let mut next_vals = Vec::new();
                    if !prefetch.is_empty() || !ahead_scalars.is_empty() {
                        let mut at = n_acc;
                        for (&(b, _), &w) in prefetch.iter().zip(&widths) {
                            kb.fs().rows.insert((b, vec![i]), cur[at..at + w].to_vec());
                            at += w;
                        }
                        kb.fs().row_unis = ahead_scalars.iter().zip(&cur[at..]).map(|(s, &v)| (s.buf, v)).collect();
                        kb.fs().row_iv = Some(iv);
                        let next = kb.ibin(Ix::Add, i, step);
                        let next = kb.ibin(Ix::Min, next, last);
                        for &(b, elem) in &prefetch {
                            next_vals.extend(kb.load_fast_row(b, elem, &[next])?);
                        }
                        // The scalars of rows i + step .. i + (depth - 1) step move up one;
                        // row i + depth step's are loaded.
                        if !ahead_scalars.is_empty() {
                            next_vals.extend_from_slice(&cur[at + ahead_scalars.len()..at + n_ahead]);
                            let far = if depth == 1 { next } else { kb.row_ahead(i, depth as i64, step, last) };
                            for sc in &ahead_scalars {
                                next_vals.push(kb.load_row_scalar(sc, far)?);
                            }
                        }
                    }
                    let ring = if staged.is_empty() {
                        None
                    } else {
                        // Row i is the oldest copy group in flight: wait for it, then read the
                        // thread's own columns (no barrier: each thread reads what it copied).
                        let ring = cur[cur.len() - 1];
                        let pending = kb.ctx.i64_attr(ring_n - 1);
                        kb.push(mgpu::CopyAsyncWaitOp::state(kb.loc, pending));
                        kb.fs().restage.clear();
                        for (st, &sp) in staged.iter().zip(&smem) {
                            let sbase = kb.staging_row(st, ring, slot, slots);
                            let vals = kb.load_thread_cols(sp, sbase, st.elem, false)?;
                            kb.fs().rows.insert((st.buf, vec![i]), vals);
                            if kb.fs().reload {
                                kb.fs().restage.push(((st.buf, vec![i]), sp, sbase, st.elem));
                            }
                        }
                        Some(ring)
                    };
                    if parity {
                        kb.slot_parity = Some(cur[n_acc + widths.iter().sum::<usize>() + n_ahead]);
                    }
                    kb.fast_row(body, t, warp)?;
                    kb.fs().row_unis.clear();
                    let mut ys = kb.fs().accs.concat();
                    ys.extend(next_vals);
                    if parity {
                        ys.push(kb.slot_parity.take().expect("set above"));
                    }
                    if let Some(ring) = ring {
                        // The slot just read takes the row `staged_rows` groups ahead.
                        let next = kb.row_ahead(i, ring_n, step, last);
                        kb.stage_row(staged, &smem, next, ring, (slot, slots))?;
                        let one = kb.iconst(1);
                        let n = kb.iconst(ring_n);
                        let r = kb.ibin(Ix::Add, ring, one);
                        ys.push(kb.ibin(Ix::Rem, r, n));
                    }
                    Ok(ys)
                })?
            };
            if !staged.is_empty() {
                // No copy may still be in flight when the next split reuses the slots.
                let none = kb.ctx.i64_attr(0);
                kb.push(mgpu::CopyAsyncWaitOp::state(kb.loc, none));
            }
            if clustered {
                kb.push(mgpu::ClusterArriveOp::state(kb.loc, None));
            }
            let mut accs = out[..n_acc].to_vec();
            if ws.is_empty() {
                return Ok(vec![]);
            }
            if held_accs {
                // The partials are in the slots' shared rows already: the CTA combines them.
                kb.flush_shared(sidx, ws, kinds, g)?;
                return Ok(vec![]);
            }
            if let Some(sp) = kb.fs().accs_smem {
                // The thread's own columns of each partial, back from shared memory.
                for p in 0..ws.len() {
                    for c in 0..k {
                        accs.extend(kb.load_shared_accs(sp, p, c)?);
                    }
                }
            }
            if kb.shared_partials.is_some() {
                // This warp's partials to its shared row, then the CTA combines in warp order.
                let smem = kb.shared_partials.as_ref().expect("shared").smem;
                for p in 0..ws.len() {
                    let pc = kb.iconst(p as i64);
                    let base = kb.ibin(Ix::Mul, pc, slots);
                    let base = kb.ibin(Ix::Add, base, slot);
                    let base = kb.ibin(Ix::Mul, base, nc);
                    for c in 0..k {
                        let vals = accs[p * slots_n + c * v..p * slots_n + (c + 1) * v].to_vec();
                        let b0 = kb.ibin(Ix::Add, base, bases[c]);
                        kb.vstore_scalars(&vals, smem, b0, valid[c])?;
                    }
                }
                kb.flush_shared(sidx, ws, kinds, g)?;
            } else {
                // One row in flight per CTA: the thread owns its columns of W[s, :].
                for (p, w) in ws.iter().enumerate() {
                    let wp = kb.get(*w)?;
                    let kind = kinds[p].clone();
                    for c in 0..k {
                        let vals = accs[p * slots_n + c * v..p * slots_n + (c + 1) * v].to_vec();
                        if g.covered.contains(w) {
                            // Stored once, no fill to read: 16-byte vectors where a row of W
                            // keeps them aligned. Scalar stores here cost 3-22% of the whole
                            // kernel (twentieth session: RMSNorm 16384 x 8192 214.8 against
                            // 204.3 us, LayerNorm 4096 x 16384 197.8 against 166.0): every CTA
                            // flushes at the same moment, at the kernel's tail. A covered W is
                            // exactly `[ceil(M / S), N]` and the fast form runs only at N = n,
                            // so its row stride is the constant n: no stride parameter held
                            // across the row loop (ptxas spilled two, row_col_stats at N =
                            // 8192 with its 128 registers).
                            let nc = kb.iconst(n);
                            let row = kb.ibin(Ix::Mul, sidx, nc);
                            let b0 = kb.ibin(Ix::Add, row, bases[c]);
                            let et = kb.ctx.element_type(kb.ctx.value_type(*w));
                            let width = (16 / morf_gpu::types::elem_bytes(kb.ctx, et).max(1)).max(1);
                            let width = if n % width as i64 == 0 && v % width == 0 { width } else { 1 };
                            kb.vstore_aligned(&vals, wp, b0, valid[c], width)?;
                            continue;
                        }
                        let b0 = kb.offset(*w, &[sidx, bases[c]]);
                        let mut body = |kb: &mut Self| -> R<()> {
                            for (e, &x) in vals.iter().enumerate() {
                                let ec = kb.iconst(e as i64);
                                let off = kb.ibin(Ix::Add, b0, ec);
                                kb.combine_into(&kind, wp, off, x, false)?;
                            }
                            Ok(())
                        };
                        match valid[c] {
                            Some(cv) => kb.if_then(cv, &mut body)?,
                            None => body(kb)?,
                        }
                    }
                }
            }
            Ok(vec![])
        };
        if dynamic {
            self.work_loop(nsplit, split_body)?;
        } else {
            self.for_loop(g.bid, nsplit, g.gdim, &[], split_body)?;
        }
        self.fast = None;
        Ok(())
    }

    /// The thread's f32 accumulators of chunk `c` of partial `p` in shared memory at `sp`, in
    /// vectors of at most 16 bytes (a chunk of 8 bf16 columns is 32 bytes of f32).
    pub(super) fn load_shared_accs(&mut self, sp: Value, p: usize, c: usize) -> R<Vec<Value>> {
        let (v, valid) = (self.fs().v, self.fs().valid[c]);
        let off = self.shared_acc_offset(p, c);
        let f32t = self.ctx.f32_type();
        // The chunk's offset is a multiple of `v` (of its power-of-two part where `v` is a
        // thread's whole row of N = 3, 6 or 12).
        self.vload_aligned(sp, off, f32t, false, valid, v, v)
    }

    /// Stores `vals` (a chunk's f32 accumulators) at chunk `c` of partial `p` in shared memory
    /// at `sp`, in vectors of at most 16 bytes.
    pub(super) fn store_shared_accs(&mut self, vals: &[Value], sp: Value, p: usize, c: usize) -> R<()> {
        let valid = self.fs().valid[c];
        let off = self.shared_acc_offset(p, c);
        self.vstore_aligned(vals, sp, off, valid, vals.len())
    }

    /// The offset of chunk `c` of partial `p` in the shared accumulators: `p * n + base`, or
    /// the row slot's partial row plus `base` for a warp per row.
    pub(super) fn shared_acc_offset(&mut self, p: usize, c: usize) -> Value {
        let n = self.fs().cta_cols;
        let b = self.fs().lbases[c];
        let row = match self.fs().accs_rows.get(p) {
            Some(&r) => r,
            None => self.iconst(p as i64 * n),
        };
        self.ibin(Ix::Add, row, b)
    }

    /// In the reload form, after a row reduction: forgets the rows loaded so far, so that
    /// their next use loads them again (a staged row from its ring slot, now; the others
    /// from global memory, where they are used).
    pub(super) fn reload_rows(&mut self) -> R<()> {
        if !self.fs().reload {
            return Ok(());
        }
        self.fs().rows.clear();
        for (key, sp, sbase, elem) in self.fs().restage.clone() {
            let vals = self.load_thread_cols(sp, sbase, elem, false)?;
            self.fs().rows.insert(key, vals);
        }
        Ok(())
    }

    /// Stores `val` at `ptr[base + j]` for `j` from `start` below `end` by `step` (a row of a
    /// partial set to its identity, each thread its columns of the stride).
    pub(super) fn fill_strided(
        &mut self,
        val: Value,
        ptr: Value,
        base: Value,
        start: Value,
        end: Value,
        step: Value,
    ) -> R<()> {
        self.for_loop(start, end, step, &[], &mut |kb, j, _| {
            let off = kb.ibin(Ix::Add, base, j);
            kb.push(mgpu::StoreOp::state(kb.loc, val, ptr, off));
            Ok(vec![])
        })?;
        Ok(())
    }

    /// Scalar stores of `vals` at `ptr[off + e]` (under `valid`).
    pub(super) fn vstore_scalars(&mut self, vals: &[Value], ptr: Value, off: Value, valid: Option<Value>) -> R<()> {
        self.vstore_aligned(vals, ptr, off, valid, 1)
    }

    /// One row of the fast path: row-level ops as in the slow path (stores by the row's first
    /// thread), reduces and the inner parallel unrolled over the thread's columns.
    /// The per-row scalar inputs of the nest whose row iv is `iv`: 1-D float buffers it reads
    /// at `[iv]` or at a clamp `min(iv, c)` (a broadcast's, `c` from outside the nest) and
    /// never writes, in order of first load; a buffer also read at another index keeps its
    /// own loads. Also every clamp bound `c` of those loads (of a buffer dropped for another
    /// index too).
    pub(super) fn row_scalar_inputs(&self, iv: Value) -> (Vec<RowScalar>, Vec<Value>) {
        let mut scalars: Vec<RowScalar> = Vec::new();
        let mut clamps: Vec<Value> = Vec::new();
        let mut mixed: Vec<Value> = Vec::new();
        for o in self.ctx.walk_collect(self.nest) {
            let Some(l) = self.ctx.dyn_cast::<mloop::LoadOp>(o) else { continue };
            let buf = l.buffer(self.ctx);
            let elem = self.ctx.element_type(self.ctx.value_type(buf));
            let ops = self.ctx.operands(o);
            let rowwise = match ops {
                [_, x] => row_scalar_index(self.ctx, *x, iv, self.nest),
                _ => None,
            };
            let ok = float_bytes(self.ctx, elem).is_some()
                && !self.written.contains(&buf)
                && defined_outside(self.ctx, buf, self.nest)
                && self.ctx.shape_of(self.ctx.value_type(buf)).is_some_and(|d| d.len() == 1);
            match rowwise {
                Some(c) if ok => {
                    match scalars.iter_mut().find(|s| s.buf == buf) {
                        Some(s) => s.one_form &= s.clamp == c,
                        None => scalars.push(RowScalar { buf, elem, clamp: c, one_form: true }),
                    }
                    if let Some(c) = c.filter(|c| !clamps.contains(c)) {
                        clamps.push(c);
                    }
                }
                _ if ops.len() == 2 => mixed.push(buf),
                _ => {}
            }
        }
        scalars.retain(|s| !mixed.contains(&s.buf));
        (scalars, clamps)
    }

    /// Loads per-row scalar input `s` for row `row` as the nest's loads of it do: at `row`,
    /// or at `min(row, c)` (uniform, through the read-only path: the nest never writes it).
    fn load_row_scalar(&mut self, s: &RowScalar, row: Value) -> R<Value> {
        let idx = match s.clamp {
            Some(c) => {
                let cv = self.get(c)?;
                self.ibin(Ix::Min, row, cv)
            }
            None => row,
        };
        let ptr = self.get(s.buf)?;
        let nc = Some(self.ctx.unit_attr());
        Ok(self.push1(mgpu::LoadOp::state(self.loc, ptr, idx, s.elem, nc, None)))
    }

    /// The row loop of packed rows ([`FastShape::packed_rows`], R of them): `for i = start;
    /// i < rend; i += step` over each thread's groups of R consecutive rows. A group wholly
    /// inside the split `[row0, rend)` loads each row input once, R rows in one vector at
    /// `i * N` (aligned: `i` is a multiple of R), and each per-row scalar input (`rstd[i]`)
    /// in vectors of up to 16 bytes, then computes its rows one by one from their slices, as
    /// one row each, and stores each row output of the group as one vector (where the nest
    /// loads no buffer it stores). A group at either end of the split computes each of its
    /// rows inside the split alone, with its own loads and stores. The accumulators are
    /// carried through both; the loop yields them.
    pub(super) fn packed_row_loop(
        &mut self,
        (body, iv, t): (BlockId, Value, Value),
        (start, rend, step, row0): (Value, Value, Value, Value),
        carried: &[Value],
        packed: usize,
        inputs: &[(Value, Type)],
    ) -> R<Vec<Value>> {
        let n = self.fs().n as usize;
        let (loads, stores) = self.nest_accesses();
        let defer = !stores.iter().any(|b| loads.contains(b));
        // Per-row scalar inputs (the group loads them where `i + R - 1 <= c` for each clamp
        // `min(i, c)` of their loads).
        let (found, clamps) = self.row_scalar_inputs(iv);
        let scalars: Vec<(Value, Type)> = found.iter().map(|s| (s.buf, s.elem)).collect();
        // One row `r` of the group: its slices of the packed loads, if any, then the row.
        let row = |kb: &mut Self, r: Value, accs: &[Value], slices: &[(Value, Vec<Value>)], unis: &[(Value, Value)]| {
            kb.start_fast_row(iv, r, accs);
            for (b, vals) in slices {
                kb.fs().rows.insert((*b, vec![r]), vals.clone());
            }
            kb.fs().row_unis = unis.iter().copied().collect();
            kb.fs().row_iv = Some(iv);
            kb.fast_row(body, t, true)?;
            Ok::<_, Diagnostic>(kb.fs().accs.concat())
        };
        // A whole group: its loads (each row input's R rows, warp-transposed where `warp` is
        // the warp's first row, else the thread's own pieces; each per-row scalar input's R
        // values in vectors of up to 16 bytes), its rows one by one, its held stores.
        let group = |kb: &mut Self, i: Value, warp: Option<Value>, accs: &[Value]| -> R<Vec<Value>> {
            let mut loaded = Vec::new();
            // Warp-transposed: every span's loads first (all in flight at once), then each
            // handed to the lanes through shared memory.
            let mut spans = Vec::new();
            for &(b, elem) in inputs {
                let ptr = kb.get(b)?;
                match warp.and_then(|w| kb.transpose_region(elem, packed * n).map(|r| (w, r))) {
                    Some((w, (sp, region))) => {
                        let woff = kb.fast_row_offset(b, &[w]);
                        let pieces = kb.warp_load(ptr, woff, elem, packed * n)?;
                        spans.push((b, elem, sp, region, pieces));
                    }
                    None => {
                        let off = kb.fast_row_offset(b, &[i]);
                        loaded.push((b, kb.vload_n(ptr, off, elem, true, None, packed * n)?));
                    }
                }
            }
            for (b, elem, sp, region, pieces) in spans {
                loaded.push((b, kb.warp_hand_in(sp, region, elem, &pieces, packed * n)?));
            }
            let mut scalar_vals: Vec<(Value, Vec<Value>)> = Vec::new();
            for &(b, elem) in &scalars {
                let bytes = float_bytes(kb.ctx, elem).unwrap_or(4) as usize;
                let w = (16 / bytes).clamp(1, packed);
                let ptr = kb.get(b)?;
                let mut vals = Vec::new();
                for c in 0..packed / w {
                    let cw = kb.iconst((c * w) as i64);
                    let off = kb.ibin(Ix::Add, i, cw);
                    vals.extend(kb.vload_n(ptr, off, elem, true, None, w)?);
                }
                scalar_vals.push((b, vals));
            }
            if defer {
                kb.fs().packed_stores = Some(Vec::new());
            }
            let mut accs = accs.to_vec();
            let mut rows = Vec::new();
            for r in 0..packed {
                let rv = kb.iconst(r as i64);
                let ir = kb.ibin(Ix::Add, i, rv);
                rows.push(ir);
                let slices: Vec<(Value, Vec<Value>)> =
                    loaded.iter().map(|(b, vals)| (*b, vals[r * n..(r + 1) * n].to_vec())).collect();
                let unis: Vec<(Value, Value)> = scalar_vals.iter().map(|(b, vals)| (*b, vals[r])).collect();
                accs = row(kb, ir, &accs, &slices, &unis)?;
            }
            kb.fs().row_unis.clear();
            let held = kb.fs().packed_stores.take().unwrap_or_default();
            kb.store_packed(&held, &rows, i, warp)?;
            Ok(accs)
        };
        // A group at either end of the split: each of its rows inside it alone.
        let alone = |kb: &mut Self, i: Value, accs: &[Value]| -> R<Vec<Value>> {
            let mut accs = accs.to_vec();
            for r in 0..packed {
                let rv = kb.iconst(r as i64);
                let ir = kb.ibin(Ix::Add, i, rv);
                let lo = kb.icmp("ge", ir, row0);
                let hi = kb.icmp("lt", ir, rend);
                let inside = kb.all_of(&[lo, hi]);
                let before = accs.clone();
                accs = kb.if_values(inside, &mut |kb| row(kb, ir, &before, &[], &[]), &mut |_| Ok(before.clone()))?;
            }
            Ok(accs)
        };
        // Whether rows `[first, first + span)` are inside the split (and each clamp the
        // identity on them: `first + span <= c + 1`).
        let inside = |kb: &mut Self, first: Value, span: i64| -> R<Value> {
            let span = kb.iconst(span);
            let end = kb.ibin(Ix::Add, first, span);
            let lo = kb.icmp("ge", first, row0);
            let hi = kb.icmp("le", end, rend);
            let mut conds = vec![lo, hi];
            if !scalars.is_empty() {
                for &c in &clamps {
                    let cv = kb.get(c)?;
                    let one = kb.iconst(1);
                    let c1 = kb.ibin(Ix::Add, cv, one);
                    conds.push(kb.icmp("le", end, c1));
                }
            }
            Ok(kb.all_of(&conds))
        };
        let transposed = self.fs().transpose.is_some();
        self.for_loop(start, rend, step, carried, &mut |kb, i, cur| {
            let accs = cur.to_vec();
            let own = inside(kb, i, packed as i64)?;
            let mut by_thread =
                |kb: &mut Self| kb.if_values(own, &mut |kb| group(kb, i, None, &accs), &mut |kb| alone(kb, i, &accs));
            if !transposed {
                return by_thread(kb);
            }
            // Warp-transposed: where the warp's 32 groups are all inside the split (its lanes'
            // groups are consecutive: a thread per row, slot = thread), a condition the same on
            // every lane of the warp, whose barriers need them all; else each lane as above.
            let lane = kb.id::<mgpu::LaneIdOp>();
            let rc = kb.iconst(packed as i64);
            let lr = kb.ibin(Ix::Mul, lane, rc);
            let first = kb.ibin(Ix::Sub, i, lr);
            let whole = inside(kb, first, 32 * packed as i64)?;
            kb.if_values(whole, &mut |kb| group(kb, i, Some(first), &accs), &mut by_thread)
        })
    }

    /// In a group of packed rows whose stores are held back, holds a row-level store of `val`
    /// at `buf[idx]` where it is a per-row scalar (a 1-D buffer at the row iv: `mean[i]`),
    /// and says so; [`Self::store_packed`] then stores the group's R values as one access
    /// instead of R scalar stores R rows apart (each touching a sector of its own: LayerNorm
    /// forward at 8388608 x 3 measured 311 us with them on an H100, 147 without packed rows).
    /// A thread holds its rows alone (packed rows take a thread per row), so the row's
    /// first-thread guard is always true.
    pub(super) fn hold_packed_scalar(&mut self, buf: Value, idx: &[Value], val: Value) -> R<bool> {
        let Some(fs) = self.fast.as_ref() else { return Ok(false) };
        let (Some(iv), true) = (fs.row_iv, fs.packed_stores.is_some()) else { return Ok(false) };
        if idx != [iv] || buffer_shape(self.ctx, buf).len() != 1 {
            return Ok(false);
        }
        let row = self.get(iv)?;
        if let Some(held) = self.fs().packed_stores.as_mut() {
            held.push((buf, row, vec![val]));
        }
        Ok(true)
    }

    /// The row stores a group of packed rows held back (`(buffer, row, values)`, in order):
    /// a buffer stored once at each of the group's rows, in order, takes one vector store at
    /// the group's first row `i` (split into aligned pieces of at most 16 bytes); any other
    /// store goes out as it was emitted, in order. A 1-D buffer holds the rows' scalars
    /// ([`Self::hold_packed_scalar`]), at `i`; any other a row of N each, at `i * N`.
    pub(super) fn store_packed(
        &mut self,
        held: &[(Value, Value, Vec<Value>)],
        rows: &[Value],
        i: Value,
        warp_first: Option<Value>,
    ) -> R<()> {
        let mut bufs: Vec<Value> = Vec::new();
        for (b, _, _) in held {
            if !bufs.contains(b) {
                bufs.push(*b);
            }
        }
        let whole = |b: Value| {
            let mine: Vec<&(Value, Value, Vec<Value>)> = held.iter().filter(|(x, _, _)| *x == b).collect();
            mine.len() == rows.len() && mine.iter().zip(rows).all(|((_, r, _), want)| r == want)
        };
        let merged: Vec<Value> = bufs.iter().copied().filter(|b| whole(*b)).collect();
        for &b in &merged {
            let vals: Vec<Value> = held.iter().filter(|(x, _, _)| *x == b).flat_map(|(_, _, v)| v.clone()).collect();
            let ptr = self.get(b)?;
            // A row buffer of warp-transposed rows: the warp stores its span.
            let rowwise = buffer_shape(self.ctx, b).len() > 1;
            let elem = self.ctx.element_type(self.ctx.value_type(b));
            if let Some(wf) = warp_first.filter(|_| rowwise) {
                if let Some((sp, region)) = self.transpose_region(elem, vals.len()) {
                    let woff = self.fast_row_offset(b, &[wf]);
                    self.warp_store(&vals, ptr, woff, sp, region)?;
                    continue;
                }
            }
            let off = self.held_offset(b, i);
            self.vstore(&vals, ptr, off, None)?;
        }
        for (b, r, vals) in held.iter().filter(|(b, _, _)| !merged.contains(b)) {
            let ptr = self.get(*b)?;
            let off = self.held_offset(*b, *r);
            self.vstore(vals, ptr, off, None)?;
        }
        Ok(())
    }

    /// Where this warp's span of a buffer of `elem` sits in shared memory for groups of `ge`
    /// elements (warp-transposed packed rows): the dynamic shared memory as `elem` and the
    /// span's first element there, or `None` where the span is over the planned bytes or a
    /// group is one piece (16 bytes or less: the lanes' own accesses are one run already).
    fn transpose_region(&mut self, elem: Type, ge: usize) -> Option<(Value, Value)> {
        let tr = self.fs().transpose.clone()?;
        let e = morf_gpu::types::elem_bytes(self.ctx, elem) as u64;
        if e == 0 || 32 * ge as u64 * e > tr.warp_bytes || tr.base % e != 0 || tr.warp_bytes % e != 0 {
            return None;
        }
        // A group that is one piece: the lanes' own accesses are the warp's run already.
        if warp_piece(ge, e as u32) >= ge {
            return None;
        }
        let ptr = match tr.ptrs.iter().find(|(t, _)| *t == elem) {
            Some(&(_, p)) => p,
            None => {
                let pt = ptr_type(self.ctx, elem, true);
                let op = self.prologue(mgpu::DynamicSharedOp::state(self.loc, pt));
                let p = self.ctx.result(op, 0);
                self.fs().transpose.as_mut().expect("checked").ptrs.push((elem, p));
                p
            }
        };
        let warp = self.id::<mgpu::WarpIdOp>();
        let per = self.iconst((tr.warp_bytes / e) as i64);
        let at = self.ibin(Ix::Mul, warp, per);
        let base = self.iconst((tr.base / e) as i64);
        Some((ptr, self.ibin(Ix::Add, at, base)))
    }

    /// The warp's span of 32 groups of `ge` elements at `ptr[woff]` (a multiple of `ge`),
    /// loaded in consecutive pieces of [`warp_piece`] elements: lane `l`'s pieces `p` at
    /// `woff + (l + 32 p) w`, so that each access of the warp is one run of `32 w` elements.
    fn warp_load(&mut self, ptr: Value, woff: Value, elem: Type, ge: usize) -> R<Vec<Vec<Value>>> {
        let (w, [at]) = self.lane_piece_starts([woff], ge, elem);
        let mut pieces = Vec::new();
        for p in 0..ge / w {
            let pc = self.iconst((32 * p * w) as i64);
            let off = self.ibin(Ix::Add, at, pc);
            pieces.push(self.vload_aligned(ptr, off, elem, true, None, w, w)?);
        }
        Ok(pieces)
    }

    /// The lane's own group of `ge` elements from the warp's span `pieces` ([`Self::warp_load`]):
    /// the pieces into the warp's region `sp[region]`, a warp barrier, the lane's group read
    /// back at `region + lane x ge`, a warp barrier (before the region is used again).
    fn warp_hand_in(
        &mut self,
        sp: Value,
        region: Value,
        elem: Type,
        pieces: &[Vec<Value>],
        ge: usize,
    ) -> R<Vec<Value>> {
        let (w, [at]) = self.lane_piece_starts([region], ge, elem);
        for (p, vals) in pieces.iter().enumerate() {
            let pc = self.iconst((32 * p * w) as i64);
            let off = self.ibin(Ix::Add, at, pc);
            self.vstore_aligned(vals, sp, off, None, w)?;
        }
        self.push(mgpu::WarpBarrierOp::state(self.loc));
        let own = self.lane_group(region, ge);
        let vals = self.vload_aligned(sp, own, elem, false, None, ge, ge)?;
        self.push(mgpu::WarpBarrierOp::state(self.loc));
        Ok(vals)
    }

    /// Stores the lane's group `vals` as part of the warp's span at `ptr[woff]`: the group into
    /// the warp's region at `region + lane x ge`, a warp barrier, the span back in the
    /// pieces of [`Self::warp_load`] and stored, a warp barrier.
    fn warp_store(&mut self, vals: &[Value], ptr: Value, woff: Value, sp: Value, region: Value) -> R<()> {
        let ge = vals.len();
        let elem = self.ctx.value_type(vals[0]);
        let own = self.lane_group(region, ge);
        self.vstore_aligned(vals, sp, own, None, ge)?;
        self.push(mgpu::WarpBarrierOp::state(self.loc));
        let (w, [sat, gat]) = self.lane_piece_starts([region, woff], ge, elem);
        for p in 0..ge / w {
            let pc = self.iconst((32 * p * w) as i64);
            let so = self.ibin(Ix::Add, sat, pc);
            let piece = self.vload_aligned(sp, so, elem, false, None, w, w)?;
            let go = self.ibin(Ix::Add, gat, pc);
            self.vstore_aligned(&piece, ptr, go, None, w)?;
        }
        self.push(mgpu::WarpBarrierOp::state(self.loc));
        Ok(())
    }

    /// The piece width `w` of a warp's span of groups of `ge` elements of `elem` ([`warp_piece`])
    /// and, from each of `bases`, where this lane's first piece starts: `base + lane x w` (its
    /// piece `p` is `32 p w` further).
    fn lane_piece_starts<const B: usize>(&mut self, bases: [Value; B], ge: usize, elem: Type) -> (usize, [Value; B]) {
        let w = warp_piece(ge, morf_gpu::types::elem_bytes(self.ctx, elem) as u32);
        let lane = self.id::<mgpu::LaneIdOp>();
        let wc = self.iconst(w as i64);
        let lw = self.ibin(Ix::Mul, lane, wc);
        (w, bases.map(|b| self.ibin(Ix::Add, b, lw)))
    }

    /// Where this lane's own group of `ge` elements sits in the warp's region at `region`:
    /// `region + lane x ge`.
    fn lane_group(&mut self, region: Value, ge: usize) -> Value {
        let lane = self.id::<mgpu::LaneIdOp>();
        let gc = self.iconst(ge as i64);
        let lg = self.ibin(Ix::Mul, lane, gc);
        self.ibin(Ix::Add, region, lg)
    }

    /// Where a held store of row `r` of `buf` goes: `buf[r]` for a 1-D buffer (a row's
    /// scalar), else the row's first element.
    fn held_offset(&mut self, buf: Value, r: Value) -> Value {
        if buffer_shape(self.ctx, buf).len() == 1 {
            r
        } else {
            self.fast_row_offset(buf, &[r])
        }
    }

    /// Starts row `row` (the nest's row iv `iv` bound to it) of the fast form: forgets what
    /// the last row computed and loaded, and takes `accs` (the carried accumulators, slot by
    /// slot of each partial) as the current ones.
    pub(super) fn start_fast_row(&mut self, iv: Value, row: Value, accs: &[Value]) {
        self.map.insert(iv, row);
        let fs = self.fs();
        let slots_n = fs.k * fs.v;
        fs.fmap.clear();
        fs.rows.clear();
        fs.uni.clear();
        fs.cse.clear();
        fs.accs = accs.chunks(slots_n).map(|c| c.to_vec()).collect();
    }

    pub(super) fn fast_row(&mut self, body: BlockId, t: Value, warp: bool) -> R<()> {
        let batches = self.reduce_batches(body);
        self.batched = batches.iter().map(Vec::len).fold(self.batched, usize::max);
        let saved = self.own_block_slots;
        self.own_block_slots = !warp && batches.len() >= 2;
        let r = self.fast_row_ops(body, t, warp, &batches);
        self.own_block_slots = saved;
        r
    }

    /// The reduces of a row body in batches reduced together ([`Self::fast_row_ops`]): a
    /// reduce joins the batch of the reduce before it when nothing it computes (its body,
    /// bounds and init) uses a result of the batch, directly or through the row-level ops in
    /// between, and its result has the batch's type. Only ops that use the batch's results
    /// may sit in between (they are emitted after the batch, in order); any other op ends
    /// the batch.
    pub(super) fn reduce_batches(&self, body: BlockId) -> Vec<Vec<OpId>> {
        // `auto` batches but in the reload form of a single CTA per row that reloads from
        // global memory (LayerNorm backward at 4096 x 16384 on the H200: batched 4.6% slower
        // reloading from L2, 5% faster reloading from a ring of staged rows: 142.9 -> 136.1 us).
        let reload = self.fast.as_ref().is_some_and(|f| f.reload);
        let staged = self.schedule.as_ref().is_some_and(|s| s.staged_rows >= 2);
        let batching = self.opts.batch_reductions.unwrap_or(!reload || staged || self.cluster() > 1);
        let ctx = &*self.ctx;
        let ops: Vec<OpId> = ctx.block_ops(body).collect();
        let mut batches: Vec<Vec<OpId>> = Vec::new();
        let mut i = 0;
        while i < ops.len() {
            if !ctx.isa::<mloop::ReduceOp>(ops[i]) {
                i += 1;
                continue;
            }
            let first = ops[i];
            let ty = ctx.value_type(ctx.result(first, 0));
            let mut batch = vec![first];
            let mut tainted: HashSet<Value> = ctx.results(first).iter().copied().collect();
            let mut j = i + 1;
            while j < ops.len() {
                let o = ops[j];
                let uses = ctx.walk_collect(o).iter().any(|&x| ctx.operands(x).iter().any(|v| tainted.contains(v)));
                if ctx.isa::<mloop::ReduceOp>(o) {
                    if !batching || uses || ctx.value_type(ctx.result(o, 0)) != ty {
                        break;
                    }
                    batch.push(o);
                    tainted.extend(ctx.results(o).iter().copied());
                } else if uses && ctx.regions(o).is_empty() {
                    tainted.extend(ctx.results(o).iter().copied());
                } else {
                    break;
                }
                j += 1;
            }
            i = ops.iter().position(|&o| o == *batch.last().expect("one")).expect("in body") + 1;
            batches.push(batch);
        }
        batches
    }

    /// The ops of one row. The reduces of a batch ([`Self::reduce_batches`]) each take their
    /// thread's partial, in order, and then are reduced together: their warp reductions side
    /// by side, or one block (and cluster) reduction of all of them, one barrier for the batch
    /// instead of one each (LayerNorm's two row sums). The reload form loads the row again
    /// once per batch. Each result is the same as reducing it alone.
    pub(super) fn fast_row_ops(&mut self, body: BlockId, t: Value, warp: bool, batches: &[Vec<OpId>]) -> R<()> {
        let zero = self.iconst(0);
        let first = self.icmp("eq", t, zero);
        self.fs().early.clear();
        let mut reduced = false;
        for o in self.ctx.block_ops(body).collect::<Vec<_>>() {
            match LoopOp::of(self.ctx, o) {
                LoopOp::Yield => {}
                LoopOp::Reduce(_) => {
                    let Some(batch) = batches.iter().find(|b| b[0] == o) else {
                        // A later member of a batch: reduced with its first.
                        continue;
                    };
                    if !reduced && (self.opts.early_accumulates || self.early_relief) {
                        reduced = true;
                        if self.early_accumulates(body, o)? {
                            if let (Some(n), Some(sched)) = (self.early_note.take(), self.schedule.as_mut()) {
                                sched.notes.0.push(n);
                            }
                        }
                    }
                    let (kinds, accs): (Vec<String>, Vec<Value>) = self.fast_partials(batch)?.into_iter().unzip();
                    let reds = if warp {
                        kinds.iter().zip(&accs).map(|(k, &a)| self.row_warp_reduce(k, a)).collect()
                    } else {
                        self.block_reduce_many(&kinds, &accs)?
                    };
                    for ((&r, kind), red) in batch.iter().zip(&kinds).zip(reds) {
                        let parts = loop_parts(self.ctx, r, true).map_err(|e| op_error(self.ctx, r, e))?;
                        let init = self.get(parts.init.expect("reduce"))?;
                        let v = self.combine(kind, init, red)?;
                        let res = self.ctx.result(r, 0);
                        self.map.insert(res, v);
                        self.fs().fmap.insert(res, Fv::Uni(v));
                    }
                    self.reload_rows()?;
                }
                LoopOp::Parallel => {
                    let parts = loop_parts(self.ctx, o, false).map_err(|e| op_error(self.ctx, o, e))?;
                    self.fast_block(parts.body, parts.ivs[0])?;
                }
                LoopOp::Load(_) => self.fast_op(o)?,
                _ => self.emit_op_row_guarded(o, first)?,
            }
        }
        self.fs().early.clear();
        Ok(())
    }

    /// Before the row body's first row reduction `first_reduce`: the `accumulate`s of the
    /// inner parallels after it that need no value of the row from that reduction on (no
    /// reduce result, nothing computed after it at row level, no load of a buffer the kernel
    /// writes), with the ops of the inner body they use. RMSNorm's `dw += dy * xhat` then
    /// takes its products before the row reduction instead of holding `dy` (32 f32 a lane at
    /// N = 1024) across it, and each column's partial sums the same terms in the same
    /// order. The ops go into [`FastState::early`], which their block's emission skips.
    pub(super) fn early_accumulates(&mut self, body: BlockId, first_reduce: OpId) -> R<bool> {
        let ops: Vec<OpId> = self.ctx.block_ops(body).collect();
        let Some(pos) = ops.iter().position(|&o| o == first_reduce) else { return Ok(false) };
        let mut any = false;
        let late: HashSet<Value> = ops[pos..].iter().flat_map(|&o| self.ctx.results(o).to_vec()).collect();
        for &p in &ops[pos + 1..] {
            if !matches!(LoopOp::of(self.ctx, p), LoopOp::Parallel) {
                continue;
            }
            let parts = loop_parts(self.ctx, p, false).map_err(|e| op_error(self.ctx, p, e))?;
            if parts.ivs.len() != 1 {
                continue;
            }
            let inner: Vec<OpId> = self.ctx.block_ops(parts.body).collect();
            let local: HashSet<OpId> = inner.iter().copied().collect();
            let mut chosen: HashSet<OpId> = HashSet::new();
            for &a in &inner {
                if !matches!(LoopOp::of(self.ctx, a), LoopOp::Accumulate(_)) {
                    continue;
                }
                let (mut slice, mut stack, mut ok) = (HashSet::new(), vec![a], true);
                while let Some(o) = stack.pop() {
                    if !ok || !slice.insert(o) {
                        continue;
                    }
                    ok = self.ctx.regions(o).is_empty()
                        && match LoopOp::of(self.ctx, o) {
                            LoopOp::Accumulate(_) => o == a,
                            LoopOp::Load(l) => !self.written.contains(&l.buffer(self.ctx)),
                            LoopOp::Store(_) | LoopOp::Reduce(_) | LoopOp::Parallel | LoopOp::For(_) => false,
                            LoopOp::Yield => false,
                            _ => true,
                        };
                    for &x in self.ctx.operands(o) {
                        ok &= !late.contains(&x);
                        if let Some(d) = self.ctx.defining_op(x).filter(|d| local.contains(d)) {
                            stack.push(d);
                        }
                    }
                }
                if ok {
                    chosen.extend(slice);
                }
            }
            if chosen.is_empty() {
                continue;
            }
            self.fs().fmap.insert(parts.ivs[0], Fv::J);
            for &o in inner.iter().filter(|o| chosen.contains(o)) {
                self.fast_op(o)?;
            }
            self.fs().early.extend(chosen);
            any = true;
        }
        Ok(any)
    }

    /// The kinds of a batch of row reduces and the thread's partial of each over its columns,
    /// one reduce after the other: chunk by chunk, in column order (in chunk-major emission
    /// right after the chunk's ops).
    pub(super) fn fast_partials(&mut self, batch: &[OpId]) -> R<Vec<(String, Value)>> {
        let mut out = Vec::new();
        for &o in batch {
            let parts = loop_parts(self.ctx, o, true).map_err(|e| op_error(self.ctx, o, e))?;
            let kind = kind_name(self.ctx, o).unwrap_or_default();
            let init = self.get(parts.init.expect("reduce"))?;
            let ty = self.ctx.value_type(init);
            let id = self.fconst(identity(&kind), ty);
            let v = self.fs().v;
            let valid = self.fs().valid.clone();
            let mut acc = id;
            self.fast_block_by_chunk(parts.body, parts.ivs[0], &mut |kb, c, y| {
                for e in 0..v {
                    let mut x = y.col(c * v + e);
                    if let Some(cv) = valid[c] {
                        x = kb.push1(mloop::SelectOp::state(kb.loc, cv, x, id, ty));
                    }
                    acc = kb.combine(&kind, acc, x)?;
                }
                Ok(())
            })?;
            out.push((kind, acc));
        }
        Ok(out)
    }

    /// Emits a reduce / inner parallel body over the thread's columns; returns the value yielded.
    pub(super) fn fast_block(&mut self, body: BlockId, iv: Value) -> R<Fv> {
        self.fast_block_by_chunk(body, iv, &mut |_, _, _| Ok(()))
    }

    /// [`Self::fast_block`], handing the value yielded to `per_chunk` once per chunk of the
    /// thread's columns, in order: after all the body's ops, or, in chunk-major emission
    /// (`chunk-major`), after the chunk's ops (its columns of the value are complete then).
    pub(super) fn fast_block_by_chunk(
        &mut self,
        body: BlockId,
        iv: Value,
        per_chunk: &mut dyn FnMut(&mut Self, usize, &Fv) -> R<()>,
    ) -> R<Fv> {
        self.fs().fmap.insert(iv, Fv::J);
        let early = &self.fast.as_ref().expect("fast state").early;
        let ops: Vec<OpId> = self.ctx.block_ops(body).filter(|o| !early.contains(o)).collect();
        let (work, yielded): (Vec<OpId>, Vec<OpId>) =
            ops.into_iter().partition(|&o| !self.ctx.isa::<mloop::YieldOp>(o));
        let value = |kb: &mut Self| -> R<Fv> {
            match yielded.first().and_then(|&y| kb.ctx.operands(y).first().copied()) {
                Some(v) => kb.fget(v),
                None => Ok(Fv::Uni(iv)),
            }
        };
        let k = self.fs().k;
        if self.fs().chunk_major && self.fs().chunk.is_none() {
            for c in 0..k {
                self.fs().chunk = Some(c);
                let step = work.iter().try_for_each(|&o| self.fast_op(o));
                self.fs().chunk = None;
                step?;
                let y = value(self)?;
                per_chunk(self, c, &y)?;
            }
            return value(self);
        }
        for &o in &work {
            self.fast_op(o)?;
        }
        let y = value(self)?;
        // Inside a chunk (a block within a chunk-major body) only that chunk's columns exist.
        for c in self.fast_chunks() {
            per_chunk(self, c, &y)?;
        }
        Ok(y)
    }

    pub(super) fn fget(&mut self, v: Value) -> R<Fv> {
        if let Some(f) = self.fs().fmap.get(&v) {
            return Ok(f.clone());
        }
        Ok(Fv::Uni(self.get(v)?))
    }

    pub(super) fn set_uni(&mut self, nest: Value, k: Value) {
        self.map.insert(nest, k);
        self.fs().fmap.insert(nest, Fv::Uni(k));
    }

    /// A pure scalar op (`name`, `operands`, the attributes of `op`), reused within the row.
    pub(super) fn cse_op(&mut self, op: OpId, operands: &[Value]) -> Value {
        let name = self.ctx.op_name(op).to_string();
        let ty = self.ctx.value_type(self.ctx.result(op, 0));
        let attrs: Vec<(String, Attr)> =
            self.ctx.attrs(op).iter().map(|(k, a)| (self.ctx.str(*k).to_string(), *a)).collect();
        let key = (name.clone(), operands.to_vec(), ty, attrs.clone());
        if let Some(&v) = self.fs().cse.get(&key) {
            return v;
        }
        // The same copy of the op as the slow path's (`emit_op`), on this column's operands.
        let v = self.push1(copy_state(self.ctx, op, self.loc, operands));
        self.fs().cse.insert(key, v);
        v
    }

    /// The offset of element 0 of a row of `buf` on the fast path: `row` holds the indices
    /// before the column (one for a 2-D buffer: `r * N`, N the specialized row length the
    /// guard checked; more for a k-D one: the row-major offset over the buffer's dims).
    /// The 2-D buffers the rows of the row-fused nest `op` load at `[i, j]` (`i` the nest's
    /// iv), with their element types, in first-load order.
    pub(super) fn fast_row_inputs(&self, op: OpId, plan: &FastPlan) -> Vec<(Value, Type)> {
        let ctx = &*self.ctx;
        let Ok(parts) = loop_parts(ctx, op, false) else { return Vec::new() };
        let iv = parts.ivs[0];
        let mut seen: Vec<(Value, Type)> = Vec::new();
        for o in ctx.walk_collect(op) {
            let Some(l) = ctx.dyn_cast::<mloop::LoadOp>(o) else { continue };
            let buf = l.buffer(ctx);
            let ops = ctx.operands(o);
            let row = ops.len() >= 3 && delinearized(ctx, self.names, buf, &ops[1..ops.len() - 1]) == Some(iv);
            if row && plan.rows2d.contains(&buf) && !seen.iter().any(|(b, _)| *b == buf) {
                seen.push((buf, ctx.value_type(l.value(ctx))));
            }
        }
        seen
    }

    /// Where the row inputs of a fast row kernel with `s.staged_rows` slots per row group live
    /// in dynamic shared memory, from byte `start` (a multiple of 16: after the shared
    /// partials): per input that can be copied asynchronously (vectors of 4, 8 or 16 bytes,
    /// not written by the kernel), its first element and row stride (a row rounded up to 16
    /// bytes), in elements of its type; and the bytes of all of them.
    pub(super) fn staging_layout(&self, plan: &FastPlan, s: &Schedule, start: u64) -> (Vec<Staged>, u64) {
        let Some(f) = s.fast.filter(|_| s.staged_rows >= 2) else { return (Vec::new(), 0) };
        debug_assert_eq!(start % 16, 0, "the ring is 16-byte aligned");
        let slots = s.staged_rows as u64 * s.rows_per_cta.max(1) as u64;
        let mut out = Vec::new();
        let mut bytes = start;
        for &(buf, elem) in &plan.inputs {
            let e = morf_gpu::types::elem_bytes(self.ctx, elem) as u64;
            if !self.ctx.is_float(elem) || ![4, 8, 16].contains(&(e * f.vector as u64)) || self.written.contains(&buf) {
                continue;
            }
            let stride = (s.cta_cols() * e).next_multiple_of(16);
            out.push(Staged { buf, elem, base: (bytes / e) as i64, stride: (stride / e) as i64 });
            bytes += slots * stride;
        }
        (out, bytes - start)
    }

    /// Issues the thread's asynchronous copies of row `row` of every staged input into ring
    /// slot `ring` of its row group, then closes the group.
    pub(super) fn stage_row(
        &mut self,
        staged: &[Staged],
        smem: &[Value],
        row: Value,
        ring: Value,
        g: (Value, Value),
    ) -> R<()> {
        let (slot, rpc) = g;
        let v = self.fs().v;
        let w = self.ctx.i64_attr(v as i64);
        for (st, &sp) in staged.iter().zip(smem) {
            let src = self.get(st.buf)?;
            let rowoff = self.fast_row_offset(st.buf, &[row]);
            let sbase = self.staging_row(st, ring, slot, rpc);
            for c in 0..self.fs().k {
                let (b, lb, valid) = (self.fs().bases[c], self.fs().lbases[c], self.fs().valid[c]);
                let goff = self.ibin(Ix::Add, rowoff, b);
                let soff = self.ibin(Ix::Add, sbase, lb);
                let mut copy = |kb: &mut Self| -> R<()> {
                    kb.push(mgpu::CopyAsyncOp::state(kb.loc, sp, soff, src, goff, w, None));
                    Ok(())
                };
                match valid {
                    Some(cv) => self.if_then(cv, &mut copy)?,
                    None => copy(self)?,
                }
            }
        }
        self.push(mgpu::CopyAsyncCommitOp::state(self.loc));
        Ok(())
    }

    /// Row `min(row + d * step, last)`: `d` row groups on from `row` (`step` rows apart),
    /// clamped to the split's last row, so that a load or copy ahead never leaves the buffer.
    fn row_ahead(&mut self, row: Value, d: i64, step: Value, last: Value) -> Value {
        let dc = self.iconst(d);
        let ahead = self.ibin(Ix::Mul, dc, step);
        let row = self.ibin(Ix::Add, row, ahead);
        self.ibin(Ix::Min, row, last)
    }

    /// The first shared element of ring slot `ring` of row group `slot` for input `st`.
    pub(super) fn staging_row(&mut self, st: &Staged, ring: Value, slot: Value, rpc: Value) -> Value {
        let r = self.ibin(Ix::Mul, ring, rpc);
        let r = self.ibin(Ix::Add, r, slot);
        let stride = self.iconst(st.stride);
        let r = self.ibin(Ix::Mul, r, stride);
        let base = self.iconst(st.base);
        self.ibin(Ix::Add, r, base)
    }

    /// The thread's columns of the row at indices `row` (all but the last) of `buf` (vector
    /// loads, zeros where a chunk is past N).
    pub(super) fn load_fast_row(&mut self, buf: Value, elem: Type, row: &[Value]) -> R<Vec<Value>> {
        let ptr = self.get(buf)?;
        let rowoff = self.fast_row_offset(buf, row);
        self.load_thread_cols(ptr, rowoff, elem, true)
    }

    /// The thread's columns of the row whose first element is `ptr[base]` (a global row, or a
    /// staged one in the ring): a vector load per chunk (`nc`: through the read-only cache),
    /// zeros where a chunk is past N.
    pub(super) fn load_thread_cols(&mut self, ptr: Value, base: Value, elem: Type, nc: bool) -> R<Vec<Value>> {
        let shared = morf_gpu::ptr_parts(self.ctx, self.ctx.value_type(ptr)).is_some_and(|p| p.1 == morf_gpu::SHARED);
        let mut vals = Vec::new();
        for c in 0..self.fs().k {
            let b = if shared { self.fs().lbases[c] } else { self.fs().bases[c] };
            let valid = self.fs().valid[c];
            let off = self.ibin(Ix::Add, base, b);
            vals.extend(self.vload(ptr, off, elem, nc, valid)?);
        }
        Ok(vals)
    }

    /// The row indices of a fast-path row access of `buf` (loop-IR `idx`, their fast values
    /// `f`, all uniform): the one value they delinearize ([`delinearized`]) where they do, so
    /// that the row is `r * N` and keyed like the loads ahead and the staged rows.
    pub(super) fn fast_row_index(&mut self, buf: Value, idx: &[Value], f: &[Fv]) -> R<Vec<Value>> {
        if idx.len() >= 2 {
            if let Some(v) = delinearized(self.ctx, self.names, buf, idx) {
                return Ok(vec![self.get(v)?]);
            }
        }
        Ok(f.iter()
            .map(|x| match x {
                Fv::Uni(u) => *u,
                _ => unreachable!("checked by fast_plan"),
            })
            .collect())
    }

    pub(super) fn fast_row_offset(&mut self, buf: Value, row: &[Value]) -> Value {
        if let [r] = row {
            let nc = if self.fs().dyn_rows {
                let rank = buffer_shape(self.ctx, buf).len();
                self.dim(buf, rank - 1)
            } else {
                let n = self.fs().n;
                self.iconst(n)
            };
            return self.ibin(Ix::Mul, *r, nc);
        }
        let zero = self.iconst(0);
        let mut idx = row.to_vec();
        idx.push(zero);
        self.offset(buf, &idx)
    }

    /// The chunks of the thread's columns `fast_op` emits now: the current one in chunk-major
    /// emission, else all.
    pub(super) fn fast_chunks(&mut self) -> std::ops::Range<usize> {
        let k = self.fs().k;
        self.fs().chunk.map_or(0..k, |c| c..c + 1)
    }

    /// The thread's column slots `fast_op` emits now: those of the current chunk in
    /// chunk-major emission, else all.
    pub(super) fn fast_cols(&mut self) -> std::ops::Range<usize> {
        let (k, v) = (self.fs().k, self.fs().v);
        match self.fs().chunk {
            Some(c) => c * v..(c + 1) * v,
            None => 0..k * v,
        }
    }

    /// In chunk-major emission, whether `op`'s results are already complete for the current
    /// chunk (a uniform value, a loaded row, or columns past the chunk), so that it is not
    /// emitted again.
    pub(super) fn fast_done(&mut self, op: OpId) -> bool {
        if self.fs().chunk.is_none() {
            return false;
        }
        let end = self.fast_cols().end;
        let Some(&res) = self.ctx.results(op).first() else { return false };
        match self.fs().fmap.get(&res) {
            Some(Fv::Cols(cs)) => cs.len() >= end,
            Some(_) => true,
            None => false,
        }
    }

    /// Whether scalar op `op`, on the fast emitter's operands `f`, divides a vector of
    /// columns by one value that `reciprocal-divisors` turns into a multiply by its
    /// reciprocal ([`reciprocal_division`]: an f32 or f64 `mloop.div`, here of columns by a
    /// uniform value). Its type if so.
    fn uniform_reciprocal(&self, op: OpId, f: &[Fv]) -> Option<Type> {
        let ty = reciprocal_division(self.ctx, op, self.opts)?;
        matches!(f, [Fv::Cols(_), Fv::Uni(_)]).then_some(ty)
    }

    /// `1 / d` for division `op` (its type), once per divisor in the current scope: the
    /// division itself on `(1, d)`, through the fast emitter's CSE.
    fn reciprocal(&mut self, d: Value, op: OpId) -> Value {
        let ty = self.ctx.value_type(self.ctx.result(op, 0));
        let one = self.fconst(1.0, ty);
        self.cse_op(op, &[one, d])
    }

    pub(super) fn fast_op(&mut self, op: OpId) -> R<()> {
        if self.fast_done(op) {
            return Ok(());
        }
        let operands = self.ctx.operands(op).to_vec();
        let mut f = Vec::new();
        for &o in &operands {
            f.push(self.fget(o)?);
        }
        let uni = |x: &Fv| match x {
            Fv::Uni(u) => Some(*u),
            _ => None,
        };
        match LoopOp::of(self.ctx, op) {
            LoopOp::Load(l) => {
                let (buf, res) = (l.buffer(self.ctx), l.value(self.ctx));
                let elem = self.ctx.value_type(res);
                let nc = !self.written.contains(&buf);
                if f[1..].iter().all(|x| uni(x).is_some()) {
                    let packed = self.fs().row_unis.get(&buf).copied();
                    if let (Some(v), Some(iv), [_, x]) = (packed, self.fs().row_iv, operands.as_slice()) {
                        if row_scalar_index(self.ctx, *x, iv, self.nest).is_some() {
                            self.set_uni(res, v);
                            return Ok(());
                        }
                    }
                    let idx: Vec<Value> = f[1..].iter().filter_map(uni).collect();
                    if nc {
                        if let Some(&v) = self.fs().uni.get(&(buf, idx.clone())) {
                            self.set_uni(res, v);
                            return Ok(());
                        }
                    }
                    let ptr = self.get(buf)?;
                    let off = self.access_offset(buf, &operands[1..])?;
                    let attr = nc.then(|| self.ctx.unit_attr());
                    let v = self.push1(mgpu::LoadOp::state(self.loc, ptr, off, elem, attr, None));
                    if nc {
                        self.fs().uni.insert((buf, idx), v);
                    }
                    self.set_uni(res, v);
                    return Ok(());
                }
                let hoisted = if operands.len() == 2 { self.fs().hoisted.get(&buf).cloned() } else { None };
                let vals = if let Some(vals) = hoisted {
                    vals
                } else {
                    // A row (`x[r, j]`), or a `[j]` buffer the kernel did not hoist (the vector
                    // form of a pointwise kernel loads it per vector: row `[]`, offset 0).
                    let row = self.fast_row_index(buf, &operands[1..operands.len() - 1], &f[1..f.len() - 1])?;
                    match self.fs().rows.get(&(buf, row.clone())).cloned() {
                        Some(vals) => vals,
                        None => {
                            let vals = if row.is_empty() && self.fs().coherent_vectors {
                                let ptr = self.get(buf)?;
                                let zero = self.iconst(0);
                                self.load_thread_cols(ptr, zero, elem, false)?
                            } else {
                                self.load_fast_row(buf, elem, &row)?
                            };
                            self.fs().rows.insert((buf, row), vals.clone());
                            vals
                        }
                    }
                };
                self.fs().fmap.insert(res, Fv::Cols(vals));
            }
            LoopOp::Store(st) => {
                let buf = st.buffer(self.ctx);
                let ptr = self.get(buf)?;
                let row = self.fast_row_index(buf, &operands[2..operands.len() - 1], &f[2..f.len() - 1])?;
                let v = self.fs().v;
                if let ([r], Some(held)) = (row.as_slice(), self.fs().packed_stores.as_mut()) {
                    // Packed rows: held back, merged with the group's other rows.
                    let vals = match &f[0] {
                        Fv::Uni(u) => vec![*u; v],
                        Fv::Cols(cs) => cs[..v].to_vec(),
                        Fv::J => unreachable!("checked by fast_plan"),
                    };
                    held.push((buf, *r, vals));
                    return Ok(());
                }
                let rowoff = self.fast_row_offset(buf, &row);
                for c in self.fast_chunks() {
                    let (b, valid) = (self.fs().bases[c], self.fs().valid[c]);
                    let vals: Vec<Value> = match &f[0] {
                        Fv::Uni(u) => vec![*u; v],
                        Fv::Cols(cs) => cs[c * v..(c + 1) * v].to_vec(),
                        Fv::J => unreachable!("checked by fast_plan"),
                    };
                    let off = self.ibin(Ix::Add, rowoff, b);
                    self.vstore(&vals, ptr, off, valid)?;
                }
            }
            LoopOp::Accumulate(acc) => {
                let kind = acc.kind(self.ctx).unwrap_or_default().to_string();
                let buf = acc.buffer(self.ctx);
                let p = self.fs().ws[&buf];
                if let Some(sp) = self.fs().accs_smem {
                    // Shared accumulators: the thread's vector of each chunk, loaded, combined
                    // and stored back (its own columns: no barrier).
                    let v = self.fs().v;
                    for c in self.fast_chunks() {
                        let old = self.load_shared_accs(sp, p, c)?;
                        let mut new = Vec::with_capacity(v);
                        for (e, &o) in old.iter().enumerate() {
                            let x = f[0].col(c * v + e);
                            new.push(self.combine(&kind, o, x)?);
                        }
                        self.store_shared_accs(&new, sp, p, c)?;
                    }
                    return Ok(());
                }
                for c in self.fast_cols() {
                    let x = f[0].col(c);
                    let old = self.fs().accs[p][c];
                    let new = self.combine(&kind, old, x)?;
                    self.fs().accs[p][c] = new;
                }
            }
            LoopOp::Scalar if is_binary(self.ctx, op, BinaryFn::Min) && f.iter().any(|x| matches!(x, Fv::J)) => {
                let res = self.ctx.result(op, 0);
                self.fs().fmap.insert(res, Fv::J);
            }
            LoopOp::Dim(_) => {
                self.emit_op(op)?;
                let res = self.ctx.result(op, 0);
                let k = self.map[&res];
                self.fs().fmap.insert(res, Fv::Uni(k));
            }
            LoopOp::Scalar => {
                let res = self.ctx.result(op, 0);
                if f.iter().all(|x| uni(x).is_some()) {
                    let ops: Vec<Value> = f.iter().filter_map(uni).collect();
                    let v = self.cse_op(op, &ops);
                    self.set_uni(res, v);
                } else {
                    let cols = self.fast_cols();
                    // A vector divided by one value: one reciprocal, a multiply a column.
                    let recip = match (&f[..], self.uniform_reciprocal(op, &f)) {
                        ([_, Fv::Uni(d)], Some(mul)) => Some((self.reciprocal(*d, op), mul)),
                        _ => None,
                    };
                    // Chunk-major: the columns of earlier chunks are already there.
                    let mut out = match self.fs().fmap.remove(&res) {
                        Some(Fv::Cols(cs)) if cs.len() == cols.start => cs,
                        None if cols.start == 0 => Vec::with_capacity(cols.end),
                        _ => return Err(op_error(self.ctx, op, "internal error: chunk-major emission out of order")),
                    };
                    for c in cols {
                        let ops: Vec<Value> = f.iter().map(|x| x.col(c)).collect();
                        out.push(match recip {
                            Some((r, ty)) => self.push1(mloop::MulOp::state(self.loc, ops[0], r, ty)),
                            None => self.cse_op(op, &ops),
                        });
                    }
                    self.fs().fmap.insert(res, Fv::Cols(out));
                }
            }
            _ => {
                let name = self.ctx.op_name(op);
                return Err(Diagnostic::error(self.ctx.op_loc(op), format!("failed to legalize operation '{name}'")));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::warp_piece;

    #[test]
    fn warp_pieces_divide_the_group() {
        // bf16: 4 rows of N = 7 (28 elements) in pieces of 4 (8 bytes), 8 rows (56) of 8 (16
        // bytes); 4 rows of N = 3 (12) of 4; 2 rows of N = 5 (10) of 2; f32: 8 rows of N = 3
        // (24) of 4 (16 bytes, the widest); f64 pieces of 2; an odd group of 1.
        assert_eq!([28, 56, 12, 10, 7].map(|ge| warp_piece(ge, 2)), [4, 8, 4, 2, 1]);
        assert_eq!(warp_piece(24, 4), 4);
        assert_eq!(warp_piece(24, 8), 2);
        for ge in 1..=64usize {
            for e in [2u32, 4, 8] {
                let w = warp_piece(ge, e);
                assert!(ge % w == 0 && w * e as usize <= 16 && w.is_power_of_two(), "{ge} x {e}: {w}");
            }
        }
    }
}
