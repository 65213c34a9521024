//! `dce`: dead code elimination.
//!
//! Erases every op that is trivially dead ([`morf_ir::rewrite::is_trivially_dead`]: pure,
//! not a terminator, without regions, and with no used result), and repeats until nothing
//! is erased, so whole chains of unused computations disappear. Ops with regions, ops with
//! side effects and unregistered ops are kept.
//!
//! **IR expected:** any. The pass runs on the op it is given and only touches ops nested in
//! it. **Options:** none.
//!
//! **Example:**
//!
//! ```text
//! // before                                          // after
//! func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> { func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
//!   %a = mtensor.add %x, %x : tensor<4xf32>            return %x : tensor<4xf32>
//!   %b = mtensor.mul %a, %a : tensor<4xf32>          }
//!   return %x : tensor<4xf32>
//! }
//! ```

use morf_ir::pass::{Pass, PassInfo, PassResult};
use morf_ir::rewrite::is_trivially_dead;
use morf_ir::{Context, OpId};

/// The registry entry of `dce`.
pub fn info() -> PassInfo {
    PassInfo {
        name: "dce",
        description: "erase unused pure ops, to a fixpoint",
        options: &[],
        create: |_| Ok(Box::new(Dce)),
    }
}

/// The dce pass.
#[derive(Debug, Default)]
pub struct Dce;

impl Pass for Dce {
    fn name(&self) -> &'static str {
        "dce"
    }

    fn run(&mut self, ctx: &mut Context, op: OpId) -> PassResult {
        let n = eliminate_dead_code(ctx, op);
        tracing::debug!(erased = n, "dce");
        Ok(())
    }
}

/// Erases trivially dead ops nested in `root` until none is left; returns how many.
pub fn eliminate_dead_code(ctx: &mut Context, root: OpId) -> usize {
    let mut total = 0;
    loop {
        let mut erased = 0;
        // Reverse pre-order: users come before the ops that define their operands, so a
        // chain usually dies in one sweep.
        let ops = ctx.walk_collect(root);
        for &op in ops.iter().rev() {
            if op != root && ctx.op_exists(op) && is_trivially_dead(ctx, op) {
                ctx.erase_op(op);
                erased += 1;
            }
        }
        total += erased;
        if erased == 0 {
            return total;
        }
    }
}
