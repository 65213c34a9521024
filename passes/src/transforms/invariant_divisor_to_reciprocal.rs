//! `invariant-divisor-to-reciprocal`: a float division by a loop-invariant value becomes a
//! multiplication by its reciprocal, computed once before the loop.
//!
//! A `mloop.div %a, %b` on f32 or f64 whose divisor `%b` is defined outside the innermost
//! `mloop` loop around it (`mloop.parallel`, `mloop.reduce` or `mloop.for`), and whose dividend
//! is not, becomes `mloop.mul %a, %r` with `%r = mloop.div 1.0, %b` placed just before that
//! loop; divisions by the same value in the same loop share one reciprocal. On the GPU an
//! IEEE division is a dozen instructions with a slow-path branch (ptxas: `MUFU.RCP`, four
//! `FFMA`, `FCHK` and a call), a multiplication is one: a softmax divides every element of a
//! row by the row's sum.
//!
//! **Numerics.** Not bit-identical, like LLVM's `arcp` fast-math flag: `a * rn(1 / b)` is
//! within about 1.5 ulp of the correctly rounded `a / b` (two roundings instead of one), far
//! inside the f32 tolerance (1e-5 relative) of the differential tests. The special values
//! agree (`b = 0` gives `±inf` or NaN, `b = ±inf` gives `±0`), except where `1 / b` itself
//! leaves the normal range: for `|b|` below about `2^-128` (subnormal) the reciprocal is
//! infinite where `a / b` may be finite, and for `|b|` above `2^126` the reciprocal is
//! subnormal and loses bits. Half-precision divisions are left alone (their reciprocal would
//! be rounded to 11 or 8 bits); so are index divisions (floor division).
//!
//! **IR expected:** any; only `mloop.div` inside `mloop` loops is touched. **Options:** none.
//!
//! **Example:**
//!
//! ```text
//! // before                                            // after
//! mloop.parallel (%j) = (%c0) to (%n) step (%c1) {      %one = mloop.constant 1.0 : f32
//!   %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>  %r = mloop.div %one, %s : f32
//!   %y = mloop.div %v, %s : f32                         mloop.parallel (%j) = (%c0) to (%n) step (%c1) {
//!   mloop.store %y, %o[%i, %j] : !mloop.buffer<?x?xf32>   %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
//!   mloop.yield                                           %y = mloop.mul %v, %r : f32
//! }                                                       mloop.store %y, %o[%i, %j] : !mloop.buffer<?x?xf32>
//!                                                         mloop.yield
//!                                                       }
//! ```

use std::collections::HashMap;

use morf_ir::pass::{Pass, PassInfo, PassResult};
use morf_ir::{Context, FloatKind, OpId, Value};
use morf_loop::ops as mloop;

use super::loop_utils::{defined_outside, is_loop, Ib};

/// The registry entry of `invariant-divisor-to-reciprocal`.
pub fn info() -> PassInfo {
    PassInfo {
        name: "invariant-divisor-to-reciprocal",
        description: "turn a float division by a loop-invariant value into a multiplication by its reciprocal, computed before the loop",
        options: &[],
        create: |_| Ok(Box::new(InvariantDivisorToReciprocal)),
    }
}

/// The invariant-divisor-to-reciprocal pass.
#[derive(Debug, Default)]
pub struct InvariantDivisorToReciprocal;

impl Pass for InvariantDivisorToReciprocal {
    fn name(&self) -> &'static str {
        "invariant-divisor-to-reciprocal"
    }

    fn run(&mut self, ctx: &mut Context, op: OpId) -> PassResult {
        let n = reciprocal_invariant_divisors(ctx, op);
        tracing::debug!(rewritten = n, "invariant-divisor-to-reciprocal");
        Ok(())
    }
}

/// Rewrites every f32/f64 division nested in `root` whose divisor is invariant in the
/// innermost loop around it (and whose dividend is not) into a multiplication by a
/// reciprocal computed before that loop; returns how many divisions were rewritten.
pub fn reciprocal_invariant_divisors(ctx: &mut Context, root: OpId) -> usize {
    let mut rewritten = 0;
    // One reciprocal per (loop, divisor).
    let mut reciprocals: HashMap<(OpId, Value), Value> = HashMap::new();
    for op in ctx.walk_collect(root) {
        let Some((l, a, b)) = float_division_in_loop(ctx, op) else { continue };
        if !defined_outside(ctx, b, l) || defined_outside(ctx, a, l) {
            continue;
        }
        let res = ctx.result(op, 0);
        let ty = ctx.value_type(res);
        let r = match reciprocals.get(&(l, b)) {
            Some(&r) => r,
            None => {
                let ib = Ib { before: l };
                let one = ib.float(ctx, 1.0, ty);
                let d = ib.insert(ctx, |loc| mloop::DivOp::state(loc, one, b, ty));
                let r = ctx.result(d, 0);
                reciprocals.insert((l, b), r);
                r
            }
        };
        let mul = ctx.create_op(mloop::MulOp::state(ctx.op_loc(op), a, r, ty));
        ctx.insert_op_before(op, mul);
        let m = ctx.result(mul, 0);
        ctx.replace_all_uses_with(res, m);
        ctx.erase_op(op);
        rewritten += 1;
    }
    rewritten
}

/// A division the pass rewrites where its divisor is invariant in the loop and its dividend
/// is not: an f32 or f64 `mloop.div` inside an `mloop` loop. Returns the innermost loop, the
/// dividend and the divisor. (The fusion cost model prices such divisions as multiplications.)
pub(crate) fn float_division_in_loop(ctx: &Context, op: OpId) -> Option<(OpId, Value, Value)> {
    if !ctx.isa::<mloop::DivOp>(op) {
        return None;
    }
    let &res = ctx.results(op).first()?;
    let wide = matches!(ctx.float_kind(ctx.value_type(res)), Some(FloatKind::F32 | FloatKind::F64));
    let &[a, b] = ctx.operands(op) else { return None };
    if !wide {
        return None;
    }
    Some((innermost_loop(ctx, op)?, a, b))
}

/// The innermost `mloop` loop `op` is nested in.
fn innermost_loop(ctx: &Context, op: OpId) -> Option<OpId> {
    let mut cur = ctx.parent_op(op);
    while let Some(p) = cur {
        if is_loop(ctx, p) {
            return Some(p);
        }
        cur = ctx.parent_op(p);
    }
    None
}
