//! Merging a final reduction into the launch before it, behind a grid barrier.
//!
//! A row-fused kernel leaves its column partials in a workspace and a second launch reduces
//! them. [`merge_into_previous`] makes the two one cooperative kernel: the first kernel's body,
//! an `mgpu.grid_barrier`, then the second kernel's body, run by the first kernel's blocks
//! (both bodies cover their work with any number of blocks: grid-stride loops). The launch,
//! its ramp-up and its tail go away; the partials are read back from L2 by every block
//! instead of by the final's own grid. Deterministic like the two launches: the final still
//! combines the partial rows in row order, whatever the grid.
//!
//! Mechanical: the schedule decision (`lower-loop-to-gpu{final=grid}`, which also gives the
//! final the row kernel's CTA size) is made by the lowering; this module only rewrites the two
//! kernels and their launches, and refuses (returns `Ok(false)`) where the merge would not be
//! sound: different CTA sizes, kernels in different blocks, or a step between the launches
//! that depends on the first (the block's [`super::kernel_dag`]: the merged kernel would have
//! to run both before and after it).

use std::collections::{HashMap, HashSet};

use morf_gpu::ops as mgpu;
use morf_ir::{Attr, Context, OpId, Value};
use morf_loop::ops as mloop;

use super::kernel_dag::{launch_accesses, KernelDag};
use crate::transforms::loop_utils::const_int;

/// Merges the kernel of `second` (a host `mgpu.launch`) into the launch `first` before it:
/// the merged kernel takes `first`'s name, both parameter lists, `first`'s grid and CTA size,
/// the larger dynamic shared memory, and is `cooperative`. Ops in `dead` (nests already
/// lowered, erased later) may stand between the launches. Where the first kernel has no
/// `min_ctas_per_sm`, the merged one takes `min_ctas` (the CTAs per SM its schedule plans:
/// the runtime caps a cooperative grid at the CTAs resident, so ptxas' register choice sets
/// the grid), with `min_ctas_planned` where that is a plan (`(ctas, true)`), not a request.
/// Returns whether it merged.
///
/// With `tail = Some(T)` the two are joined by an `mgpu.grid_tail {ctas = T}` instead: the
/// merged kernel is `resident_grid` (a plain launch, the grid capped at the CTAs resident),
/// the last `T` blocks to finish the first body run the second, as a grid of their own (its
/// `mgpu.block_id` and `mgpu.grid_dim` are the tail's rank and count), and the others return.
pub fn merge_into_previous(
    ctx: &mut Context,
    first: OpId,
    second: OpId,
    dead: &[OpId],
    min_ctas: Option<(u64, bool)>,
    tail: Option<u64>,
) -> Result<bool, morf_ir::Diagnostic> {
    let (la, lb) = (mgpu::LaunchOp(first), mgpu::LaunchOp(second));
    let (Some(fa), Some(fb)) = (la.callee(ctx), lb.callee(ctx)) else { return Ok(false) };
    if fa.0 == fb.0 || fa.cooperative(ctx).is_some() && fb.cooperative(ctx).is_some() {
        return Ok(false);
    }
    // A grid tail joins two kernels without grid barriers (a `resident_grid` kernel holds
    // none), and a kernel with a tail takes nothing more.
    let coop = fa.cooperative(ctx).is_some() || fb.cooperative(ctx).is_some();
    if fa.resident_grid(ctx).is_some() || fb.resident_grid(ctx).is_some() || tail.is_some() && coop {
        return Ok(false);
    }
    // A kernel launched in clusters is not cooperative (a grid barrier would need every
    // cluster resident, which a plain launch does not promise).
    if fa.cluster(ctx).is_some_and(|c| c > 1) || fb.cluster(ctx).is_some_and(|c| c > 1) {
        return Ok(false);
    }
    // The same CTA size, known on both sides.
    let (ta, tb) = (const_int(ctx, la.threads(ctx)), const_int(ctx, lb.threads(ctx)));
    if ta.is_none() || ta != tb {
        return Ok(false);
    }
    // `second` follows `first` in the same block, and no step in between (a launch or a host
    // memory op; `dead` nests are left out) depends on `first` in the block's kernel DAG:
    // `first` may move to `second`'s place without closing a cycle.
    let Some(block) = ctx.op_parent_block(first) else { return Ok(false) };
    if ctx.op_parent_block(second) != Some(block) {
        return Ok(false);
    }
    if !KernelDag::between(ctx, first, second, dead).can_merge_into_later(first, second) {
        return Ok(false);
    }
    // Buffers written anywhere in the merged kernel: its loads of them may not use the
    // read-only (non-coherent) cache.
    let (Some(wa), Some(wb)) = (launch_accesses(ctx, first), launch_accesses(ctx, second)) else {
        return Ok(false);
    };
    let written: HashSet<Value> = wa.writes.union(&wb.writes).copied().collect();
    let (Some(ba), Some(bb)) = (ctx.entry_block(fa.body(ctx)), ctx.entry_block(fb.body(ctx))) else {
        return Ok(false);
    };

    // The merged body: a's ops, the barrier, b's ops, one return; parameters a's then b's.
    let loc = ctx.op_loc(fa.0);
    let region = ctx.create_region();
    let entry = ctx.create_block(region, &[]);
    let mut actuals = Vec::new();
    let mut map: HashMap<Value, Value> = HashMap::new();
    let mut host_of: HashMap<Value, Value> = HashMap::new();
    for (b, l) in [(ba, la), (bb, lb)] {
        let formals = ctx.block_args(b).to_vec();
        let args = l.args(ctx).to_vec();
        for (&p, &a) in formals.iter().zip(&args) {
            let ty = ctx.value_type(p);
            let np = ctx.add_block_arg(entry, ty, None, loc);
            map.insert(p, np);
            host_of.insert(np, a);
            actuals.push(a);
        }
    }
    let mut tail_op = None;
    for (k, b) in [ba, bb].into_iter().enumerate() {
        if k == 1 {
            let bar = match tail {
                Some(t) => {
                    let n = ctx.i64_attr(t.max(1) as i64);
                    let idx = ctx.index_type();
                    let t = ctx.create_op(mgpu::GridTailOp::state(loc, idx, idx, n));
                    tail_op = Some(t);
                    t
                }
                None => ctx.create_op(mgpu::GridBarrierOp::state(loc)),
            };
            ctx.append_op(entry, bar);
        }
        let ops: Vec<OpId> = ctx.block_ops(b).collect();
        for op in ops {
            if ctx.isa::<mgpu::ReturnOp>(op) {
                continue;
            }
            let c = ctx.clone_op(op, &mut map);
            ctx.append_op(entry, c);
        }
    }
    // Behind a grid tail the second body's block index and grid size are the tail's.
    if let Some(t) = tail_op.map(mgpu::GridTailOp) {
        let (rank, count) = (t.rank(ctx), t.count(ctx));
        let ops: Vec<OpId> = ctx.block_ops(entry).skip_while(|&o| o != t.0).skip(1).collect();
        let mut ids = Vec::new();
        for op in ops {
            ctx.walk(op, &mut |o| {
                if ctx.isa::<mgpu::BlockIdOp>(o) || ctx.isa::<mgpu::GridDimOp>(o) {
                    ids.push(o);
                }
            });
        }
        for o in ids {
            let to = if ctx.isa::<mgpu::BlockIdOp>(o) { rank } else { count };
            ctx.replace_all_uses_with(ctx.result(o, 0), to);
            ctx.erase_op(o);
        }
    }
    let ret = ctx.create_op(mgpu::ReturnOp::state(loc));
    ctx.append_op(entry, ret);
    // Loads of a buffer the kernel writes go through the coherent path, without the
    // streaming hint (which marks read-only loads only).
    let mut nc_loads = Vec::new();
    let ops: Vec<OpId> = ctx.block_ops(entry).collect();
    let mut inner = Vec::new();
    for &op in &ops {
        ctx.walk(op, &mut |o| inner.push(o));
    }
    for op in inner {
        let ptr = if let Some(l) = ctx.dyn_cast::<mgpu::LoadOp>(op) {
            Some(l.ptr(ctx))
        } else {
            ctx.dyn_cast::<mgpu::LoadVecOp>(op).map(|l| l.ptr(ctx))
        };
        if let Some(p) = ptr {
            if ctx.attr(op, "nc").is_some() && host_of.get(&p).is_none_or(|h| written.contains(h)) {
                nc_loads.push(op);
            }
        }
    }
    for op in nc_loads {
        ctx.remove_attr(op, "nc");
        ctx.remove_attr(op, "stream");
    }

    // The merged func replaces a's (same name and attributes, plus `cooperative` and both
    // schedules), b's goes.
    let tys: Vec<_> = ctx.block_args(entry).iter().map(|v| ctx.value_type(*v)).collect();
    let ft = ctx.function_type(&tys, &[]);
    let fta = ctx.type_attr(ft);
    let mut attrs: Vec<(String, Attr)> = ctx.attrs(fa.0).iter().map(|(k, v)| (ctx.str(*k).to_string(), *v)).collect();
    for (k, v) in attrs.iter_mut() {
        if k == "function_type" {
            *v = fta;
        }
    }
    let schedule = |f: mgpu::FuncOp| ctx.attr(f.0, "morf.schedule").and_then(|a| ctx.attr_str(a)).map(str::to_string);
    if let (Some(sa), Some(sb)) = (schedule(fa), schedule(fb)) {
        let join = match tail {
            Some(t) => format!("grid tail of {t}"),
            None => "grid barrier".to_string(),
        };
        let s = ctx.str_attr(&format!("{sa}; {join}; {sb}"));
        attrs.retain(|(k, _)| k != "morf.schedule");
        attrs.push(("morf.schedule".into(), s));
    }
    if ctx.attr(fb.0, "morf.bench").is_some() && ctx.attr(fa.0, "morf.bench").is_none() {
        attrs.push(("morf.bench".into(), ctx.unit_attr()));
    }
    let how = if tail.is_some() { "resident_grid" } else { "cooperative" };
    attrs.push((how.into(), ctx.unit_attr()));
    let bound = min_ctas.filter(|_| !attrs.iter().any(|(k, _)| k == "min_ctas_per_sm"));
    let st = morf_ir::OperationState {
        name: mgpu::FuncOp::NAME.to_string(),
        loc,
        operands: vec![],
        result_types: vec![],
        attrs,
        regions: vec![region],
        result_names: vec![],
    };
    let merged = ctx.create_op(st);
    ctx.insert_op_before(fa.0, merged);
    if let Some((n, planned)) = bound {
        super::loop_to_gpu::set_min_ctas(ctx, merged, n, planned);
    }

    // The host: one launch at the second's place with the larger shared memory.
    let (blocks, threads) = (la.blocks(ctx), la.threads(ctx));
    let (sa, sb) = (la.shared(ctx), lb.shared(ctx));
    let hloc = ctx.op_loc(second);
    let idx = ctx.index_type();
    let smax = ctx.create_op(mloop::MaxOp::state(hloc, sa, sb, idx));
    ctx.insert_op_before(second, smax);
    let shared = ctx.result(smax, 0);
    let sym = ctx.attr(first, "kernel").expect("a launch names its kernel");
    let launch = ctx.create_op(mgpu::LaunchOp::state(hloc, blocks, threads, shared, &actuals, sym));
    ctx.insert_op_before(second, launch);
    ctx.erase_op(first);
    ctx.erase_op(second);
    ctx.erase_op(fa.0);
    ctx.erase_op(fb.0);
    Ok(true)
}
