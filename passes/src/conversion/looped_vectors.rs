//! Vector accesses in the looped form of a row (docs/conversion-loop-to-gpu.md, "Vectors in
//! the looped form"). A child module of `loop_to_gpu`: it extends `KernelBuilder`.
//!
//! The looped form (`emit_row`) runs each reduce and inner parallel of a row as a strided
//! loop over the row's threads, `j = t, t + tpr, ...`: one scalar access per column. That is
//! the form of a row kernel without a register-resident form (no size hints, a row wider than
//! the registers at the asked lanes, `fast=0`, a body the fast plan refuses), and it ran 4-9x
//! slower than the fast form (threads-per-row=8 at N = 384: 1639 against 343 us). Here a row
//! loop whose contiguous accesses allow it takes `v` consecutive columns a step instead; so do
//! the mapped lowering's `lane` / `thread` loops. Behind a register-resident form (its
//! fallback for another N) the loops stay scalar ([`KernelBuilder::looped_plan_noted`]).
//!
//! ```text
//! guard = every row stride of a merged access is a multiple of v
//!         && every clamp c of min(j, c) has c + 1 >= N            // run time, once a loop
//! nvec = guard ? N div v : 0;  jstart = nvec * v
//! for g = t; g < nvec; g += tpr                 // v columns from j0 = g * v
//!   the body once per column j0 + u, u = 0..v, in order, except that
//!     a merged load (`x[r.., j]`) is one vector load at u = 0, element u at each u,
//!     a load that does not depend on j is loaded at u = 0 and reused,
//!     a merged store (`y[r.., j]`) collects its v values and is one vector store after u = v-1
//! for j = jstart + t; j < N; j += tpr           // the scalar form: the columns past the
//!   the body at column j                        //   last full vector, or all of them
//! ```
//!
//! Only the merged accesses change; every other op (arithmetic, accumulates into shared or
//! global partials, loads the plan does not merge) runs once per column with `j` bound to
//! that column, as in the scalar form, so any body stays correct. A load is merged where its
//! last index is `j` (or a clamp `min(j, c)` with `c` from before the loop) and its other
//! indices do not vary along `j`, its buffer holds floats and the nest does not write it
//! (the vector load at u = 0 reads columns before their turn). A store is merged where every
//! store of its buffer in the body is of that form and the body does not load the buffer
//! (its elements are written after the last column's ops).
//!
//! A reduce's thread partial combines the v columns of a step as a balanced tree in column
//! order, then the steps in order (in blocks of `REDUCE_BLOCK` steps where the template sums
//! a row's terms in blocks), then the scalar columns: deterministic, but a different order
//! than the scalar form's, so the last bits may differ.

use std::collections::{HashMap, HashSet};

use morf_ir::{BlockId, OpId, Type, Value};

use super::{clamp_bound, float_bytes, is_call_op, KernelBuilder, LoopOp, VecPlan, R};
use crate::transforms::loop_utils::{const_int, defined_outside, LoopParts};

/// The registers a thread of a kernel with vector steps in its looped form may take
/// ([`KernelBuilder::bound_looped_registers`]): three CTAs of 256 a SM (85 registers).
const LOOPED_REGISTERS: u64 = 80;

/// What the vector form of one row loop merges ([`KernelBuilder::looped_plan`]).
#[derive(Clone, Debug)]
pub(super) struct LoopedPlan {
    /// The width and the run-time guard's terms (the row strides and the clamps).
    pub(super) vec: VecPlan,
    /// Loads of `v` consecutive columns, one vector load a step.
    loads: HashSet<OpId>,
    /// Loads that do not vary along the row, loaded once a step.
    uniform: HashSet<OpId>,
    /// Stores of `v` consecutive columns, one vector store a step.
    stores: HashSet<OpId>,
}

/// The state of one vector step while its columns are emitted.
#[derive(Debug)]
pub(super) struct LoopedStep {
    plan: LoopedPlan,
    /// The column of the step being emitted, `0..v`.
    u: usize,
    /// Loaded values of the merged and uniform loads (the elements of a vector load).
    loaded: HashMap<OpId, Vec<Value>>,
    /// Merged stores in body order: the op, the pointer, the step's first offset, the values
    /// so far.
    pending: Vec<(OpId, Value, Value, Vec<Value>)>,
}

impl<'a> KernelBuilder<'a> {
    /// Whether the row loop `lp` (a reduce or inner parallel of a row in the looped form) has
    /// a vector form, and what it merges; else why not (for the schedule report).
    pub(super) fn looped_plan(&self, lp: &LoopParts, loop_op: OpId) -> Result<LoopedPlan, String> {
        let ctx = &*self.ctx;
        if lp.ivs.len() != 1 {
            return Err("the row loop runs over several dims".into());
        }
        if const_int(ctx, lp.lbs[0]) != Some(0) || const_int(ctx, lp.steps[0]) != Some(1) {
            return Err("the row loop does not run from 0 step 1".into());
        }
        if !defined_outside(ctx, lp.ubs[0], loop_op) {
            return Err("the row loop's bound is computed in it".into());
        }
        let j = lp.ivs[0];
        let ops: Vec<OpId> = ctx.block_ops(lp.body).collect();
        let loaded: HashSet<Value> = ops
            .iter()
            .filter_map(|&o| match LoopOp::of(ctx, o) {
                LoopOp::Load(l) => Some(l.buffer(ctx)),
                _ => None,
            })
            .collect();
        let mut jvar: HashSet<Value> = [j].into_iter().collect();
        let mut jexact: HashSet<Value> = [j].into_iter().collect();
        let mut vec = VecPlan { v: 0, rows: Vec::new(), ge_n1: Vec::new(), flat: false };
        let (mut loads, mut uniform) = (HashSet::new(), HashSet::new());
        // Per stored buffer: its stores and whether each has the merged form.
        let mut stores: Vec<(Value, Vec<(OpId, bool)>)> = Vec::new();
        let mut bytes = 0u32;
        let mut calls = false;
        // Whether an access `buf[idx]` is contiguous along the row: `j` last, the rest fixed.
        let contiguous = |idx: &[Value], jvar: &HashSet<Value>, jexact: &HashSet<Value>| {
            idx.last().is_some_and(|l| jexact.contains(l)) && !idx[..idx.len() - 1].iter().any(|x| jvar.contains(x))
        };
        for &b in &ops {
            if !ctx.regions(b).is_empty() {
                return Err("the row loop's body holds a nested loop".into());
            }
            let operands = ctx.operands(b);
            let varies = operands.iter().any(|x| jvar.contains(x));
            let clamp = clamp_bound(ctx, b, &|x| jexact.contains(&x));
            match LoopOp::of(ctx, b) {
                LoopOp::Scalar if clamp.is_some() => {
                    let c = clamp.expect("checked");
                    let r = ctx.result(b, 0);
                    jvar.insert(r);
                    if !jvar.contains(&c) && defined_outside(ctx, c, loop_op) {
                        if !vec.ge_n1.contains(&c) {
                            vec.ge_n1.push(c);
                        }
                        jexact.insert(r);
                    }
                }
                LoopOp::Load(l) => {
                    let (buf, idx, res) = (l.buffer(ctx), l.indices(ctx), l.value(ctx));
                    let eb = float_bytes(ctx, ctx.element_type(ctx.value_type(buf)));
                    let fixed = defined_outside(ctx, buf, self.nest) && !self.written.contains(&buf);
                    if fixed && eb.is_some() && contiguous(idx, &jvar, &jexact) {
                        loads.insert(b);
                        bytes = bytes.max(eb.unwrap_or(0));
                        if idx.len() >= 2 && !vec.rows.contains(&buf) {
                            vec.rows.push(buf);
                        }
                        jvar.insert(res);
                    } else if fixed && !varies {
                        uniform.insert(b);
                    } else {
                        jvar.insert(res);
                    }
                }
                LoopOp::Store(s) => {
                    let (buf, idx) = (s.buffer(ctx), s.indices(ctx));
                    let eb = float_bytes(ctx, ctx.element_type(ctx.value_type(buf)));
                    let ok = eb.is_some()
                        && defined_outside(ctx, buf, self.nest)
                        && !loaded.contains(&buf)
                        && contiguous(idx, &jvar, &jexact);
                    if ok {
                        bytes = bytes.max(eb.unwrap_or(0));
                    }
                    match stores.iter_mut().find(|(x, _)| *x == buf) {
                        Some((_, list)) => list.push((b, ok)),
                        None => stores.push((buf, vec![(b, ok)])),
                    }
                }
                _ => {
                    calls |= is_call_op(ctx, b);
                    if varies {
                        jvar.extend(ctx.results(b).iter().copied());
                    }
                }
            }
        }
        let mut merged_stores = HashSet::new();
        for (buf, list) in &stores {
            if list.iter().all(|(_, ok)| *ok) {
                merged_stores.extend(list.iter().map(|(o, _)| *o));
                if super::buffer_shape(ctx, *buf).len() >= 2 && !vec.rows.contains(buf) {
                    vec.rows.push(*buf);
                }
            }
        }
        if loads.is_empty() && merged_stores.is_empty() {
            return Err("no access along the row is contiguous".into());
        }
        let mut v = (16 / bytes.max(1)).clamp(1, 8);
        if calls {
            // A correctly rounded division or square root is a subroutine call in ptxas; what
            // is live across it must fit the registers a call preserves (as in the vector
            // form of a split-K partial).
            v = v.min(4);
        }
        let threads = self.schedule.as_ref().map_or(256, |s| s.threads.max(1)) as u64;
        if self.opts.device.registers_per_sm as u64 / threads <= 64 {
            // At 64 registers a thread (a CTA of 1024) the steps do not pay: eight columns a
            // step spilled 12 bytes in gelu_bwd_bias at 4096 x 16384, and four, without a
            // spill, ran 387.3 us against 347.7 scalar on the H200 (twenty-seventh session).
            return Err(format!(
                "a thread of a CTA of {threads} may hold at most 64 registers: vector steps measured slower"
            ));
        }
        vec.v = self.vector_width(v, lp.ubs[0], &vec.rows)?;
        Ok(LoopedPlan { vec, loads, uniform, stores: merged_stores })
    }

    /// [`Self::looped_plan`], said in the schedule report where the looped form is the
    /// kernel's only form (no register-resident fast form in front of it): one note for the
    /// row's loops, in order, each with the vector width it takes or why it stays scalar.
    ///
    /// Behind a register-resident form (its run-time fallback, for an N other than the
    /// compiled one) the loops stay scalar: the two forms share the kernel's registers, and
    /// with a vector fallback ptxas gave the tuned fast kernels 10 fewer to 13 more registers
    /// (LayerNorm backward f32 at 1000000 x 256: 80 -> 93), an untimed change to kernels
    /// whose fallback rarely runs.
    pub(super) fn looped_plan_noted(&mut self, lp: &LoopParts, loop_op: OpId) -> Option<LoopedPlan> {
        const PREFIX: &str = "looped form, the row's loops in order: ";
        if self.schedule.as_ref().is_some_and(|s| s.fast.is_some()) {
            return None;
        }
        let plan = if self.opts.no_looped_vectors {
            Err("the option looped-vectors=false".into())
        } else {
            self.looped_plan(lp, loop_op)
        };
        let part = match &plan {
            Ok(p) => format!("{}-element vectors", p.vec.v),
            Err(why) => format!("scalar ({why})"),
        };
        if let Some(s) = self.schedule.as_mut() {
            match s.notes.0.iter_mut().find(|n| n.starts_with(PREFIX)) {
                Some(n) => {
                    n.push_str("; ");
                    n.push_str(&part);
                }
                None => s.notes.0.push(format!("{PREFIX}{part}")),
            }
        }
        if plan.is_ok() {
            self.bound_looped_registers();
        }
        plan.ok()
    }

    /// Tells ptxas the CTAs a SM that leave a thread [`LOOPED_REGISTERS`] registers
    /// (`min_ctas_per_sm`), unless the kernel has a bound already or `min-ctas` asks for
    /// another. Without it ptxas squeezed row_col_stats' looped kernel (no size hints, 256
    /// threads) to 32 registers for eight CTAs a SM and spilled 8 bytes. ptxas takes about
    /// all the registers a bound leaves: the examples' looped kernels without size hints
    /// spilled 8-60 bytes at 40 (six CTAs of 256), the f32 norms 24 at 48 (five), RMSNorm
    /// backward f32 without resident splits 8 at 64 (four), none at 85 (three; they take
    /// 52-80).
    fn bound_looped_registers(&mut self) {
        if self.opts.min_ctas != super::MinCtas::Planned || self.ctx.attr(self.kernel, "min_ctas_per_sm").is_some() {
            return;
        }
        let threads = self.schedule.as_ref().map_or(256, |s| s.threads.max(1)) as u64;
        let ctas = self.opts.device.registers_per_sm as u64 / (threads * LOOPED_REGISTERS);
        if ctas >= 2 {
            super::set_min_ctas(self.ctx, self.kernel, ctas, true);
        }
    }

    /// A row reduce in the looped form with vectors ([`LoopedPlan`]): this thread's partial
    /// over columns `t, t + tpr, ...` of `[0, ncols)` (the identity where it has none); with
    /// `blocked`, in blocks of `REDUCE_BLOCK` steps ([`Self::blocked_reduce`]).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn looped_reduce(
        &mut self,
        lp: &LoopParts,
        plan: &LoopedPlan,
        kind: &str,
        ty: Type,
        t: Value,
        tpr: Value,
        ncols: Value,
        blocked: bool,
    ) -> R<Value> {
        let (nvec, first) = self.looped_split(plan, t, ncols)?;
        let (j, body) = (lp.ivs[0], lp.body);
        let mut step = |kb: &mut Self, g: Value| -> R<Value> {
            let ys = kb.looped_step(plan, j, g, body)?;
            kb.combine_pairwise(kind, ys)
        };
        let mut column = |kb: &mut Self, e: Value| -> R<Value> { Ok(kb.emit_at_column(j, e, body)?[0]) };
        if blocked {
            let vecs = self.blocked_reduce(kind, ty, t, nvec, tpr, &mut step)?;
            let tail = self.blocked_reduce(kind, ty, first, ncols, tpr, &mut column)?;
            return self.combine(kind, vecs, tail);
        }
        let id = self.fconst(super::identity(kind), ty);
        let acc = self.for_loop(t, nvec, tpr, &[id], &mut |kb, g, acc| {
            let y = step(kb, g)?;
            Ok(vec![kb.combine(kind, acc[0], y)?])
        })?[0];
        Ok(self.for_loop(first, ncols, tpr, &[acc], &mut |kb, e, acc| {
            let y = column(kb, e)?;
            Ok(vec![kb.combine(kind, acc[0], y)?])
        })?[0])
    }

    /// A row's inner parallel in the looped form with vectors ([`LoopedPlan`]): this thread's
    /// columns `t, t + tpr, ...` of `[0, ncols)`.
    pub(super) fn looped_parallel(
        &mut self,
        lp: &LoopParts,
        plan: &LoopedPlan,
        t: Value,
        tpr: Value,
        ncols: Value,
    ) -> R<()> {
        let (nvec, first) = self.looped_split(plan, t, ncols)?;
        let (j, body) = (lp.ivs[0], lp.body);
        self.for_loop(t, nvec, tpr, &[], &mut |kb, g, _| {
            kb.looped_step(plan, j, g, body)?;
            Ok(vec![])
        })?;
        self.for_loop(first, ncols, tpr, &[], &mut |kb, e, _| {
            kb.emit_at_column(j, e, body)?;
            Ok(vec![])
        })?;
        Ok(())
    }

    /// The run-time split of a row of `ncols` columns between the vector steps and the scalar
    /// loop: the steps (`N div v` where the guard holds, else 0) and the first scalar column
    /// of thread `t` (`nvec * v + t`).
    fn looped_split(&mut self, plan: &LoopedPlan, t: Value, ncols: Value) -> R<(Value, Value)> {
        let v = plan.vec.v;
        let guard = self.vec_guard(&plan.vec, v, ncols)?;
        let (nvec, jstart) = self.vec_split(guard, v, ncols);
        Ok((nvec, self.ibin(super::Ix::Add, jstart, t)))
    }

    /// The body at column `e` of the row loop whose iv is `j` (accumulates into shared
    /// partial rows at that column, stores unguarded: each column has one thread): the values
    /// it yields.
    fn emit_at_column(&mut self, j: Value, e: Value, body: BlockId) -> R<Vec<Value>> {
        self.map.insert(j, e);
        if let Some(sp) = self.shared_partials.as_mut() {
            sp.col = Some((j, e));
        }
        let saved = self.row_guard.take();
        let ys = self.emit_block(body);
        self.row_guard = saved;
        ys
    }

    /// One vector step: the body at columns `g * v + u`, `u = 0..v`, with the plan's loads
    /// and stores merged; the first value each column yields, in column order (none for a
    /// parallel).
    fn looped_step(&mut self, plan: &LoopedPlan, j: Value, g: Value, body: BlockId) -> R<Vec<Value>> {
        let v = plan.vec.v;
        let vc = self.iconst(v as i64);
        let j0 = self.ibin(super::Ix::Mul, g, vc);
        self.looped = Some(LoopedStep { plan: plan.clone(), u: 0, loaded: HashMap::new(), pending: Vec::new() });
        let mut yielded = Vec::with_capacity(v);
        let r = (|| -> R<()> {
            for u in 0..v {
                self.looped.as_mut().expect("looped step").u = u;
                let ju = if u == 0 {
                    j0
                } else {
                    let c = self.iconst(u as i64);
                    self.ibin(super::Ix::Add, j0, c)
                };
                yielded.extend(self.emit_at_column(j, ju, body)?.first().copied());
            }
            Ok(())
        })();
        let step = self.looped.take().expect("looped step");
        r?;
        for (_, ptr, off, vals) in step.pending {
            self.vstore(&vals, ptr, off, None)?;
        }
        Ok(yielded)
    }

    /// `ys` combined as a balanced tree in column order (`(y0 (+) y1) (+) (y2 (+) y3)`, ...):
    /// a dependent chain of log2(v) combines a step instead of v - 1.
    fn combine_pairwise(&mut self, kind: &str, mut ys: Vec<Value>) -> R<Value> {
        while ys.len() > 1 {
            let mut next = Vec::with_capacity(ys.len().div_ceil(2));
            for pair in ys.chunks(2) {
                next.push(match pair {
                    [a, b] => self.combine(kind, *a, *b)?,
                    [a] => *a,
                    _ => unreachable!("chunks of two"),
                });
            }
            ys = next;
        }
        ys.pop().ok_or_else(|| morf_ir::Diagnostic::error(self.loc, "internal error: a vector step without columns"))
    }

    /// In a vector step, emits `op` where the plan merges it (a load or store along the row,
    /// or a uniform load): whether it did.
    pub(super) fn looped_access(&mut self, op: OpId) -> R<bool> {
        let Some(step) = self.looped.as_ref() else { return Ok(false) };
        let (u, v) = (step.u, step.plan.vec.v);
        let (merged_load, uniform, merged_store) =
            (step.plan.loads.contains(&op), step.plan.uniform.contains(&op), step.plan.stores.contains(&op));
        match LoopOp::of(self.ctx, op) {
            LoopOp::Load(l) if merged_load || uniform => {
                let (buf, res) = (l.buffer(self.ctx), l.value(self.ctx));
                let idx = l.indices(self.ctx).to_vec();
                if u > 0 {
                    let vals = &self.looped.as_ref().expect("looped step").loaded[&op];
                    let x = if merged_load { vals[u] } else { vals[0] };
                    self.map.insert(res, x);
                    return Ok(true);
                }
                let elem = self.ctx.value_type(res);
                let ptr = self.get(buf)?;
                let off = self.access_offset(buf, &idx)?;
                let nc = self.nc(buf).is_some();
                let vals = self.vload_n(ptr, off, elem, nc, None, if merged_load { v } else { 1 })?;
                self.map.insert(res, vals[0]);
                self.looped.as_mut().expect("looped step").loaded.insert(op, vals);
                Ok(true)
            }
            LoopOp::Store(s) if merged_store => {
                let val = self.get(s.value(self.ctx))?;
                if u == 0 {
                    let buf = s.buffer(self.ctx);
                    let idx = s.indices(self.ctx).to_vec();
                    let ptr = self.get(buf)?;
                    let off = self.access_offset(buf, &idx)?;
                    self.looped.as_mut().expect("looped step").pending.push((op, ptr, off, vec![val]));
                } else {
                    let step = self.looped.as_mut().expect("looped step");
                    let entry = step.pending.iter_mut().find(|p| p.0 == op).expect("merged store at u = 0");
                    entry.3.push(val);
                }
                Ok(true)
            }
            _ => Ok(false),
        }
    }
}
