//! `loop-unroll`: unrolls the innermost `mloop.for` loops by a factor.
//!
//! Every `mloop.for` with no loop nested in its body and a constant positive step is
//! rewritten as a main loop whose body holds `factor` copies of the old body (copy `k` at
//! `i + k * step`, each taking the loop-carried values the previous copy yielded), stepping
//! by `factor * step` up to `lb + (trips div factor) * factor * step`, then a remainder loop
//! with the old body from there to `ub` (left out when the trip count is a known multiple of
//! the factor). `trips = max(0, ceildiv(ub - lb, step))`, so a loop that runs zero times
//! still does. The iterations run in the same order on the same values: results are
//! bit-identical. Loops with a step that is not a positive constant are left as they are.
//!
//! **IR expected:** `mloop` loops (docs/dialects/loop.md); runs on a `func.func` or a
//! `builtin.module`. **Options:** `factor=F` (required, 2 to [`MAX_FACTOR`] = 1024).
//!
//! **Example** (`--loop-unroll=factor=2`):
//!
//! ```text
//! // before
//! %r = mloop.for %i = %c0 to %n step %c1 iter_args(%a = %zero) -> (f32) {
//!   %v = mloop.load %x[%i] : !mloop.buffer<?xf32>
//!   %s = mloop.add %a, %v : f32
//!   mloop.yield %s : f32
//! }
//! // after (trips = max(0, n), mid = (trips div 2) * 2)
//! %m = mloop.for %i = %c0 to %mid step %c2 iter_args(%a = %zero) -> (f32) {
//!   %v = mloop.load %x[%i] : !mloop.buffer<?xf32>
//!   %s = mloop.add %a, %v : f32
//!   %i1 = mloop.add %i, %c1 : index
//!   %v1 = mloop.load %x[%i1] : !mloop.buffer<?xf32>
//!   %s1 = mloop.add %s, %v1 : f32
//!   mloop.yield %s1 : f32
//! }
//! %r = mloop.for %i = %mid to %n step %c1 iter_args(%a = %m) -> (f32) { ... the old body }
//! ```

use std::collections::{HashMap, HashSet};

use morf_ir::pass::{Pass, PassInfo, PassOptionInfo, PassOptions, PassResult};
use morf_ir::rewrite::is_trivially_dead;
use morf_ir::{Context, OpId, Value};
use morf_loop::ops::{ForOp, ParallelOp, ReduceOp};

use super::loop_utils::{const_int, required_usize, target_functions, Ib};

/// The registry entry of `loop-unroll`.
pub fn info() -> PassInfo {
    PassInfo {
        name: "loop-unroll",
        description:
            "unroll every innermost mloop.for with a constant positive step by a factor (main loop plus remainder)",
        options: &[PassOptionInfo {
            key: "factor",
            help: "copies of the body per main-loop iteration (2 to 1024)",
            default: "",
        }],
        create: |o| Ok(Box::new(LoopUnroll::from_options(o)?)),
    }
}

/// The largest `factor`: every copy of the body is IR, and a factor of 100000 ran for minutes
/// on a three-op body.
pub const MAX_FACTOR: usize = 1024;

/// The loop-unroll pass.
#[derive(Debug, Clone)]
pub struct LoopUnroll {
    /// Copies of the body per iteration of the main loop.
    pub factor: usize,
}

impl LoopUnroll {
    /// Reads the options.
    pub fn from_options(o: &PassOptions) -> Result<Self, String> {
        let factor = required_usize(o, "factor")?;
        if factor < 2 {
            return Err(format!("option 'factor' must be at least 2, got {factor}"));
        }
        if factor > MAX_FACTOR {
            return Err(format!("option 'factor' must be at most {MAX_FACTOR}, got {factor}"));
        }
        Ok(LoopUnroll { factor })
    }
}

impl Pass for LoopUnroll {
    fn name(&self) -> &'static str {
        "loop-unroll"
    }

    fn run(&mut self, ctx: &mut Context, op: OpId) -> PassResult {
        for f in target_functions(ctx, op, "loop-unroll")? {
            let loops: Vec<OpId> = ctx.walk_collect(f).into_iter().filter(|&o| innermost_for(ctx, o)).collect();
            let mut n = 0;
            for l in loops {
                if unroll(ctx, l, self.factor) {
                    n += 1;
                }
            }
            tracing::debug!(unrolled = n, factor = self.factor, "loop-unroll");
        }
        Ok(())
    }
}

/// Whether `op` is an `mloop.for` with no `mloop` loop nested in its body.
fn innermost_for(ctx: &Context, op: OpId) -> bool {
    ctx.isa::<ForOp>(op)
        && ctx
            .walk_collect(op)
            .into_iter()
            .skip(1)
            .all(|o| !(ctx.isa::<ForOp>(o) || ctx.isa::<ParallelOp>(o) || ctx.isa::<ReduceOp>(o)))
}

/// Unrolls the `mloop.for` `l` by `factor` (module docs); false when its step is not a
/// constant positive value.
fn unroll(ctx: &mut Context, l: OpId, factor: usize) -> bool {
    let (lb, ub, step) = (ctx.operand(l, 0), ctx.operand(l, 1), ctx.operand(l, 2));
    let Some(s) = const_int(ctx, step).filter(|&s| s > 0) else { return false };
    let Some(body) = ctx.regions(l).first().and_then(|r| ctx.entry_block(*r)) else { return false };
    let Some(parent) = ctx.op_parent_block(l) else { return false };
    let before: HashSet<OpId> = ctx.block_ops(parent).collect();
    let f = factor as i64;
    // The bounds of the main loop, before it.
    let ib = Ib { before: l };
    let span = ib.sub(ctx, ub, lb);
    let trips = ib.ceildiv(ctx, span, step);
    let zero = ib.index(ctx, 0);
    let trips = ib.max(ctx, trips, zero);
    let fc = ib.index(ctx, f);
    let blocks = ib.div(ctx, trips, fc);
    let main_trips = ib.mul(ctx, blocks, fc);
    let main_span = ib.mul(ctx, main_trips, step);
    let mid = ib.add(ctx, lb, main_span);
    let exact = const_int(ctx, trips).is_some_and(|t| t % f == 0);
    // The remainder loop: a copy of the old loop from `mid`, carrying the main loop's results.
    if !exact {
        let mut map = HashMap::new();
        let rest = ctx.clone_op(l, &mut map);
        ctx.insert_op_after(l, rest);
        let results: Vec<Value> = ctx.results(l).to_vec();
        let rest_results: Vec<Value> = ctx.results(rest).to_vec();
        for (&a, &b) in results.iter().zip(&rest_results) {
            ctx.replace_all_uses_with(a, b);
        }
        ctx.set_operand(rest, 0, mid);
        for (k, &a) in results.iter().enumerate() {
            ctx.set_operand(rest, 3 + k, a);
        }
    }
    // The main loop: `factor` copies of the body per iteration.
    let big = ib.mul(ctx, step, fc);
    ctx.set_operand(l, 1, mid);
    ctx.set_operand(l, 2, big);
    let args: Vec<Value> = ctx.block_args(body).to_vec();
    let (iv, iters) = (args[0], args[1..].to_vec());
    let ops: Vec<OpId> = ctx.block_ops(body).collect();
    let (&term, copy) = ops.split_last().expect("a body ends in mloop.yield");
    let mut carried: Vec<Value> = ctx.operands(term).to_vec();
    for k in 1..f {
        let at = Ib { before: term };
        let off = at.index(ctx, k * s);
        let ivk = at.add(ctx, iv, off);
        let mut map: HashMap<Value, Value> = HashMap::new();
        map.insert(iv, ivk);
        for (&a, &c) in iters.iter().zip(&carried) {
            map.insert(a, c);
        }
        for &o in copy {
            let c = ctx.clone_op(o, &mut map);
            ctx.insert_op_before(term, c);
        }
        let yielded: Vec<Value> = ctx.operands(term).to_vec();
        carried = yielded.iter().map(|v| *map.get(v).unwrap_or(v)).collect();
    }
    for (k, &v) in carried.iter().enumerate() {
        ctx.set_operand(term, k, v);
    }
    // The constants the bounds folded through and left unused (only ops this call created).
    let created: Vec<OpId> = ctx.block_ops(parent).filter(|o| !before.contains(o)).collect();
    for o in created.into_iter().rev() {
        if is_trivially_dead(ctx, o) {
            ctx.erase_op(o);
        }
    }
    true
}
