//! `loop-invariant-code-motion`: hoists loop-invariant computations out of `mloop` loops.
//!
//! An op directly in the body of an `mloop.parallel`, `mloop.reduce` or `mloop.for` moves to
//! just before that loop when it is pure (no memory access, no region, not a terminator),
//! every operand is defined outside the loop, and it is *speculatable*: running it when the
//! loop runs zero times cannot fail. All float arithmetic is (IEEE: a division by zero is an
//! infinity or a NaN), and so is every index op except `div` and `rem`, which move only with
//! a constant divisor other than zero. Loops are visited innermost first, and an op hoisted
//! out of an inner loop can leave its parent in the same run, so an invariant climbs as far
//! as it is invariant. Loads stay: hoisting one needs to know that nothing in the loop writes
//! its buffer and that the loop runs at least once (out of scope here).
//!
//! The results are bit-identical: the same ops run on the same values, only fewer times.
//!
//! **IR expected:** any; only `mloop` loops are touched. **Options:** none.
//!
//! **Example:**
//!
//! ```text
//! // before                                           // after
//! mloop.parallel (%i) = (%c0) to (%m) step (%c1) {     %s = mloop.mul %a, %b : f32
//!   %s = mloop.mul %a, %b : f32                        mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
//!   %v = mloop.load %x[%i] : !mloop.buffer<?xf32>        %v = mloop.load %x[%i] : !mloop.buffer<?xf32>
//!   %y = mloop.add %v, %s : f32                          %y = mloop.add %v, %s : f32
//!   mloop.store %y, %x[%i] : !mloop.buffer<?xf32>        mloop.store %y, %x[%i] : !mloop.buffer<?xf32>
//!   mloop.yield                                          mloop.yield
//! }                                                    }
//! ```

use morf_ir::interfaces::{elementwise, BinaryFn, Elementwise};
use morf_ir::pass::{Pass, PassInfo, PassResult};
use morf_ir::{Context, OpId, Traits};
use morf_loop::ops as mloop;

use super::loop_utils::{const_int, defined_outside, is_loop};

/// The registry entry of `loop-invariant-code-motion`.
pub fn info() -> PassInfo {
    PassInfo {
        name: "loop-invariant-code-motion",
        description: "hoist pure, speculatable ops whose operands are defined outside an mloop loop out of it",
        options: &[],
        create: |_| Ok(Box::new(LoopInvariantCodeMotion)),
    }
}

/// The loop-invariant-code-motion pass.
#[derive(Debug, Default)]
pub struct LoopInvariantCodeMotion;

impl Pass for LoopInvariantCodeMotion {
    fn name(&self) -> &'static str {
        "loop-invariant-code-motion"
    }

    fn run(&mut self, ctx: &mut Context, op: OpId) -> PassResult {
        let n = hoist_loop_invariants(ctx, op);
        tracing::debug!(hoisted = n, "loop-invariant-code-motion");
        Ok(())
    }
}

/// Hoists the loop-invariant, speculatable pure ops of every `mloop` loop nested in `root`
/// (innermost loops first); returns how many moves were made (an op that leaves two loops
/// counts twice).
pub fn hoist_loop_invariants(ctx: &mut Context, root: OpId) -> usize {
    let mut moved = 0;
    // Reverse pre-order visits a loop after every loop nested in it.
    let loops: Vec<OpId> = ctx.walk_collect(root).into_iter().rev().filter(|&o| is_loop(ctx, o)).collect();
    for l in loops {
        let Some(body) = ctx.regions(l).first().and_then(|r| ctx.entry_block(*r)) else { continue };
        // In block order, so an op whose operands were just hoisted can follow them.
        let ops: Vec<OpId> = ctx.block_ops(body).collect();
        for op in ops {
            if hoistable(ctx, op) && ctx.operands(op).iter().all(|&v| defined_outside(ctx, v, l)) {
                ctx.move_op_before(op, l);
                moved += 1;
            }
        }
    }
    moved
}

/// Whether `op` is pure, holds no region, is not a terminator, and cannot fail when run on
/// values a loop that does not execute would never have given it.
fn hoistable(ctx: &Context, op: OpId) -> bool {
    let Some(info) = ctx.op_info(op) else { return false };
    if !info.has(Traits::PURE) || info.has(Traits::TERMINATOR) || !ctx.regions(op).is_empty() {
        return false;
    }
    let integer_division = ctx.isa::<mloop::RemOp>(op)
        || (elementwise(ctx, op) == Some(Elementwise::Binary(BinaryFn::Div))
            && ctx.results(op).first().is_some_and(|&r| !ctx.is_float(ctx.value_type(r))));
    if integer_division {
        // A division by zero is an error of the interpreter (and undefined on the GPU).
        return ctx.operands(op).get(1).and_then(|&d| const_int(ctx, d)).is_some_and(|d| d != 0);
    }
    true
}
