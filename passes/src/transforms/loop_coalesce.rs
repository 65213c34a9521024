//! `loop-coalesce`: collapses the dimensions of `mloop.parallel` and `mloop.reduce` boxes
//! into one.
//!
//! A box of `k >= 2` dimensions, each from 0 with step 1, becomes one dimension over the
//! product of the extents; the body recovers the old induction variables from the new one,
//! row-major (the last dimension fastest): `i_{k-1} = r rem d_{k-1}`, `q = r div d_{k-1}`,
//! ..., `i_0 = q`. The iteration order is unchanged (a reduce still combines its values in
//! lexicographic order, so its result is the same to the bit), only its shape. This is the
//! form `fuse-mixed-reductions` gives the rows of a k-D tensor; the GPU lowering reads
//! `x[r div M, r rem M, j]` as the row `r` of a 2-D view (no division per element), so a
//! row or column reduction over a k-D tensor takes the 2-D schedules (a warp per row, packed
//! rows, split-K partials over flat rows) instead of the generic forms of a k-D box.
//!
//! **IR expected:** `mloop` loop nests (docs/dialects/loop.md). Runs on a `func.func`, or on
//! a `builtin.module` (each of its functions). **IR produced:** the same, with every matching
//! box one-dimensional. A box whose lower bounds are not all the constant 0 or whose steps are
//! not all the constant 1 is left as it is. **Options:** `ops=all|reductions` (default `all`):
//! `reductions` collapses every `mloop.reduce` and only the `mloop.parallel` boxes that hold
//! a reduce (the rows of a row reduction), leaving pointwise boxes k-dimensional; the
//! `gpu-unfused` pipeline runs it so. A box that carries a GPU mapping (`loop-map`) is an
//! error: loop transforms run before the mapping.
//!
//! **Example** (`--loop-coalesce`):
//!
//! ```text
//! // before
//! mloop.parallel (%b, %m) = (%c0, %c0) to (%nb, %nm) step (%c1, %c1) {
//!   %s = mloop.reduce sum (%j) = (%c0) to (%n) step (%c1) init(%z) : f32 {
//!     %v = mloop.load %x[%b, %m, %j] : !mloop.buffer<?x?x?xf32>
//!     mloop.yield %v : f32
//!   }
//!   mloop.store %s, %y[%b, %m] : !mloop.buffer<?x?xf32>
//!   mloop.yield
//! }
//! // after
//! %rows = mloop.mul %nb, %nm : index
//! mloop.parallel (%r) = (%c0) to (%rows) step (%c1) {
//!   %m = mloop.rem %r, %nm : index
//!   %b = mloop.div %r, %nm : index
//!   %s = mloop.reduce sum (%j) = (%c0) to (%n) step (%c1) init(%z) : f32 { ... }
//!   mloop.store %s, %y[%b, %m] : !mloop.buffer<?x?xf32>
//!   mloop.yield
//! }
//! ```

use morf_ir::builtin::op_error;
use morf_ir::pass::{Pass, PassInfo, PassOptionInfo, PassOptions, PassResult};
use morf_ir::{Context, Diagnostic, OpId, Value};
use morf_loop::ops::{ParallelOp, ReduceOp, RemOp};

use super::loop_partial_accumulate::flat_prefix_len;
use super::loop_utils::{const_int, defined_outside, is_loop, loop_parts, mapped_error, target_functions, Ib};

/// The registry entry of `loop-coalesce`.
pub fn info() -> PassInfo {
    PassInfo {
        name: "loop-coalesce",
        description: "collapse the dimensions of mloop.parallel and mloop.reduce boxes into one (row-major)",
        options: &[PassOptionInfo {
            key: "ops",
            help: "which boxes: all, or reductions (every mloop.reduce and the mloop.parallel boxes that hold one)",
            default: "all",
        }],
        create: |o| Ok(Box::new(LoopCoalesce::from_options(o)?)),
    }
}

/// The loop-coalesce pass.
#[derive(Debug, Default, Clone)]
pub struct LoopCoalesce {
    /// Only reductions and the parallel boxes around them (`ops=reductions`).
    pub reductions_only: bool,
}

impl LoopCoalesce {
    /// Reads `ops`.
    pub fn from_options(o: &PassOptions) -> Result<Self, String> {
        let reductions_only = match o.get("ops").map(str::trim) {
            None | Some("all") => false,
            Some("reductions") => true,
            Some(v) => return Err(format!("option 'ops' must be 'all' or 'reductions', got '{v}'")),
        };
        Ok(LoopCoalesce { reductions_only })
    }
}

impl Pass for LoopCoalesce {
    fn name(&self) -> &'static str {
        "loop-coalesce"
    }

    fn options_text(&self) -> String {
        format!("ops={}", if self.reductions_only { "reductions" } else { "all" })
    }

    fn run(&mut self, ctx: &mut Context, root: OpId) -> PassResult {
        for f in target_functions(ctx, root, "loop-coalesce")? {
            // Outermost first; a collapsed box's body (moved, not copied) still holds the
            // inner boxes, which are visited after it.
            let boxes: Vec<OpId> = ctx
                .walk_collect(f)
                .into_iter()
                .filter(|&o| ctx.isa::<ParallelOp>(o) || ctx.isa::<ReduceOp>(o))
                .collect();
            for op in boxes {
                let is_reduce = ctx.isa::<ReduceOp>(op);
                if self.reductions_only
                    && !is_reduce
                    && !ctx.walk_collect(op).into_iter().any(|o| o != op && ctx.isa::<ReduceOp>(o))
                {
                    continue;
                }
                coalesce(ctx, op)?;
            }
        }
        Ok(())
    }
}

/// Collapses the box of the `mloop.parallel` or `mloop.reduce` `op` into one row-major
/// dimension where it has two or more, each from 0 with step 1, and returns the op that holds
/// the body (`op` itself when nothing changed; otherwise `op` is erased and the new op takes
/// its attributes, place and, for a reduce, its result's uses).
///
/// Each old iv is recomputed from the new one, `%row`, by `rem`/`div` at the top of the body
/// (the last dim fastest; the recomputed values keep the old ivs' names), and every value in
/// the box that is the row-major flat position of all the old ivs (a `mul`/`add` chain, as
/// `loop-partial-accumulate` builds `W[flat(b, m) div S, j]`) becomes `%row`, its chain erased
/// where nothing else uses it. The product of the extents goes before the op, or before the
/// outermost loop around it that the extents are defined outside of.
pub fn coalesce(ctx: &mut Context, op: OpId) -> Result<OpId, Diagnostic> {
    let is_reduce = ctx.isa::<ReduceOp>(op);
    if !is_reduce && !ctx.isa::<ParallelOp>(op) {
        return Err(op_error(ctx, op, "cannot be coalesced: only 'mloop.parallel' and 'mloop.reduce' boxes can be"));
    }
    if ctx.attr(op, "mapping").is_some() {
        return Err(mapped_error(ctx, op));
    }
    let p = loop_parts(ctx, op, is_reduce).map_err(|m| op_error(ctx, op, format!("cannot be coalesced: {m}")))?;
    let k = p.ivs.len();
    let unit = |v: &[Value], c: i64| v.iter().all(|x| const_int(ctx, *x) == Some(c));
    if k < 2 || !unit(&p.lbs, 0) || !unit(&p.steps, 1) {
        return Ok(op);
    }
    // Values that are flat(all ivs), and the index ops that compute them.
    let mut flats = Vec::new();
    let mut chain = Vec::new();
    for o in ctx.walk_collect(op) {
        for &v in ctx.results(o) {
            let mut ops = Vec::new();
            if flat_prefix_len(ctx, v, &p.ivs, &p.ubs, &mut ops) == Some(k) {
                flats.push(v);
                chain.extend(ops);
            }
        }
    }
    let mut anchor = op;
    while let Some(outer) = ctx.parent_op(anchor).filter(|&o| is_loop(ctx, o)) {
        if !p.ubs.iter().all(|&u| defined_outside(ctx, u, outer)) {
            break;
        }
        anchor = outer;
    }
    let ib = Ib { before: anchor };
    let mut total = p.ubs[0];
    for &u in &p.ubs[1..] {
        total = ib.mul(ctx, total, u);
    }
    let (c0, c1) = (p.lbs[0], p.steps[0]);
    let loc = ctx.op_loc(op);
    let region = ctx.create_region();
    let block = ctx.create_block(region, &[]);
    let it = ctx.index_type();
    let rname = ctx.sym("row");
    let r = ctx.add_block_arg(block, it, Some(rname), loc);
    for o in ctx.block_ops(p.body).collect::<Vec<_>>() {
        ctx.detach_op(o);
        ctx.append_op(block, o);
    }
    let first = ctx.block_ops(block).next().expect("the moved body ends with its yield");
    let inner = Ib { before: first };
    // The ivs, innermost first: iv[d] = (r div (ub[d+1] * ... * ub[k-1])) rem ub[d].
    let mut q = r;
    let mut recomputed = Vec::new();
    for d in (0..k).rev() {
        let iv = if d == 0 {
            q
        } else {
            let rem = inner.insert(ctx, |l| RemOp::state(l, q, p.ubs[d], it));
            recomputed.push(rem);
            let v = ctx.result(rem, 0);
            q = inner.div(ctx, q, p.ubs[d]);
            if let Some(def) = ctx.defining_op(q).filter(|o| ctx.op_parent_block(*o) == Some(block)) {
                recomputed.push(def);
            }
            v
        };
        if let Some(name) = ctx.value(p.ivs[d]).name {
            let name = ctx.str(name).to_string();
            ctx.set_value_name(iv, Some(&name));
        }
        ctx.replace_all_uses_with(p.ivs[d], iv);
    }
    for v in flats {
        ctx.replace_all_uses_with(v, r);
    }
    for o in chain.into_iter().rev().chain(recomputed.into_iter().rev()) {
        if ctx.op_exists(o) && morf_ir::rewrite::is_trivially_dead(ctx, o) {
            ctx.erase_op(o);
        }
    }

    let mut operands = vec![c0, total, c1];
    operands.extend(p.init);
    let mut st = if is_reduce {
        let ty = ctx.value_type(ctx.result(op, 0));
        let kind = ctx.attr(op, "kind").ok_or_else(|| op_error(ctx, op, "cannot be coalesced: it has no 'kind'"))?;
        let mut st = ReduceOp::state(loc, &operands, ty, kind);
        st.result_names = vec![ctx.value(ctx.result(op, 0)).name];
        st
    } else {
        ParallelOp::state(loc, &operands)
    };
    // The old op's attributes (a reduce's `kind` included), in their order.
    st.attrs = ctx.attrs(op).iter().map(|&(key, a)| (ctx.str(key).to_string(), a)).collect();
    let new = ctx.create_op(st.region(region));
    ctx.insert_op_before(op, new);
    if is_reduce {
        let (old, newr) = (ctx.result(op, 0), ctx.result(new, 0));
        ctx.replace_all_uses_with(old, newr);
    }
    ctx.erase_op(op);
    Ok(new)
}
