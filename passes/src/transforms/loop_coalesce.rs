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

use super::loop_utils::{const_int, defined_outside, is_loop, loop_parts, target_functions, Ib};

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

/// Collapses the box of the `mloop.parallel` or `mloop.reduce` `op` into one dimension where
/// it has two or more, each from 0 with step 1. Returns the op that holds the body (`op`
/// itself when nothing changed; otherwise `op` is erased).
pub fn coalesce(ctx: &mut Context, op: OpId) -> Result<OpId, Diagnostic> {
    let is_reduce = ctx.isa::<ReduceOp>(op);
    if ctx.attr(op, "mapping").is_some() {
        return Err(op_error(
            ctx,
            op,
            "carries a GPU mapping ('mapping'): loop transforms run before 'loop-map' (remove the attribute to transform \
             this nest)",
        ));
    }
    let parts = loop_parts(ctx, op, is_reduce).map_err(|m| op_error(ctx, op, format!("cannot be coalesced: {m}")))?;
    let k = parts.ivs.len();
    let unit = parts.lbs.iter().all(|&l| const_int(ctx, l) == Some(0))
        && parts.steps.iter().all(|&s| const_int(ctx, s) == Some(1));
    if k < 2 || !unit {
        return Ok(op);
    }
    // The product of the extents, before the op, or before the outermost loop around it
    // that the extents are defined outside of (not once per iteration of those loops).
    let mut anchor = op;
    while let Some(p) = ctx.parent_op(anchor).filter(|&p| is_loop(ctx, p)) {
        if !parts.ubs.iter().all(|&u| defined_outside(ctx, u, p)) {
            break;
        }
        anchor = p;
    }
    let ib = Ib { before: anchor };
    let mut total = parts.ubs[0];
    for &u in &parts.ubs[1..] {
        total = ib.mul(ctx, total, u);
    }
    let c0 = parts.lbs[0];
    let c1 = parts.steps[0];
    // A body block with one iv; the old body's ops move over after the delinearization.
    let region = ctx.create_region();
    let nb = ctx.create_block(region, &[]);
    let d = ctx.value(parts.ivs[k - 1]).clone();
    let r = ctx.add_block_arg(nb, d.ty, d.name, d.loc);
    let ops: Vec<OpId> = ctx.block_ops(parts.body).collect();
    for o in &ops {
        ctx.detach_op(*o);
        ctx.append_op(nb, *o);
    }
    let first = ops[0];
    let ib = Ib { before: first };
    let it = ctx.index_type();
    let mut rest = r;
    let mut ivs: Vec<Value> = vec![r; k];
    for dim in (1..k).rev() {
        let ub = parts.ubs[dim];
        let rem = ib.insert(ctx, |loc| RemOp::state(loc, rest, ub, it));
        ivs[dim] = ctx.result(rem, 0);
        rest = ib.div(ctx, rest, ub);
    }
    ivs[0] = rest;
    for (old, new) in parts.ivs.iter().zip(&ivs) {
        ctx.replace_all_uses_with(*old, *new);
    }
    let mut operands = vec![c0, total, c1];
    operands.extend(parts.init);
    let mut st = if is_reduce {
        let ty = ctx.value_type(ctx.result(op, 0));
        let kind = ctx.attr(op, "kind").ok_or_else(|| op_error(ctx, op, "has no 'kind'"))?;
        ReduceOp::state(ctx.op_loc(op), &operands, ty, kind)
    } else {
        ParallelOp::state(ctx.op_loc(op), &operands)
    };
    // The old op's attributes (a reduce's `kind` included), in their order.
    st.attrs = ctx.attrs(op).iter().map(|&(k, a)| (ctx.str(k).to_string(), a)).collect();
    if is_reduce {
        st.result_names = vec![ctx.value(ctx.result(op, 0)).name];
    }
    let new = ctx.create_op(st.region(region));
    ctx.insert_op_before(op, new);
    if is_reduce {
        let (old, newr) = (ctx.result(op, 0), ctx.result(new, 0));
        ctx.replace_all_uses_with(old, newr);
    }
    ctx.erase_op(op);
    Ok(new)
}
