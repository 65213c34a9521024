//! `loop-split`: strip-mines one dimension of a loop nest.
//!
//! The target is the `nest`-th top-level `mloop.parallel`/`mloop.for` directly in each
//! `func.func` body (0-based). Dimension `dim` (lb, ub, step) of the nest becomes an outer
//! dimension with step `size * step` (in the same op) and an inner loop over
//! `[outer, min(outer + size * step, ub))` with the old step, which holds the old body with
//! the old induction variable replaced by the inner one. The inner loop is an
//! `mloop.parallel` for a parallel nest and an `mloop.for` for a `for` nest (`inner=for`
//! makes it a `for` in both cases); an `mloop.for` with `iter_args` carries them through
//! both loops. Every iteration runs exactly once, so the results are unchanged apart from
//! the float rounding of the accumulation order of a parallel nest.
//!
//! **IR expected:** `mloop` loop nests (docs/dialects/loop.md). Runs on a `func.func`, or on
//! a `builtin.module` (each of its functions). **IR produced:** the same, with one dimension
//! split. **Options:** `nest=K` (default 0), `dim=D` (default 0; must be 0 for an
//! `mloop.for`), `size=S` (required, at least 1), `inner=parallel|for` (default: the kind of
//! the nest). An out-of-range nest or dim is an error at the function or the nest.
//!
//! **Example** (`--loop-split='nest=0 dim=1 size=16'`):
//!
//! ```text
//! // before
//! mloop.parallel (%i, %j) = (%c0, %c0) to (%m, %n) step (%c1, %c1) {
//!   %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
//!   mloop.store %v, %y[%i, %j] : !mloop.buffer<?x?xf32>
//!   mloop.yield
//! }
//! // after
//! %c16 = mloop.constant 16 : index
//! mloop.parallel (%i, %jo) = (%c0, %c0) to (%m, %n) step (%c1, %c16) {
//!   %e = mloop.add %jo, %c16 : index
//!   %u = mloop.min %e, %n : index
//!   mloop.parallel (%j) = (%jo) to (%u) step (%c1) {
//!     %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
//!     mloop.store %v, %y[%i, %j] : !mloop.buffer<?x?xf32>
//!     mloop.yield
//!   }
//!   mloop.yield
//! }
//! ```

use morf_ir::builtin::op_error;
use morf_ir::pass::{Pass, PassInfo, PassOptionInfo, PassOptions, PassResult};
use morf_ir::{Context, Diagnostic, OpId, Value};
use morf_loop::ops::{ForOp, ParallelOp, YieldOp};

use super::loop_utils::{const_int, loop_parts, required_usize, select_nest, target_functions, Ib};

/// The registry entry of `loop-split`.
pub fn info() -> PassInfo {
    PassInfo {
        name: "loop-split",
        description: "strip-mine one dimension of a top-level loop nest into an outer and an inner loop",
        options: &[
            PassOptionInfo { key: "nest", help: "index of the top-level loop nest in each function", default: "0" },
            PassOptionInfo { key: "dim", help: "the dimension to split", default: "0" },
            PassOptionInfo { key: "size", help: "iterations of the inner loop (at least 1)", default: "" },
            PassOptionInfo {
                key: "inner",
                help: "kind of the inner loop: parallel or for (default: as the nest)",
                default: "",
            },
        ],
        create: |o| Ok(Box::new(LoopSplit::from_options(o)?)),
    }
}

/// The kind of the inner loop of a split.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub enum InnerKind {
    /// The same kind as the nest.
    #[default]
    Same,
    /// An `mloop.parallel`.
    Parallel,
    /// An `mloop.for`.
    For,
}

/// The loop-split pass.
#[derive(Debug, Default, Clone)]
pub struct LoopSplit {
    /// Which top-level nest of each function.
    pub nest: usize,
    /// Which dimension.
    pub dim: usize,
    /// Iterations per inner loop.
    pub size: usize,
    /// The kind of the inner loop.
    pub inner: InnerKind,
}

impl LoopSplit {
    /// Reads the options.
    pub fn from_options(o: &PassOptions) -> Result<Self, String> {
        let size = required_usize(o, "size")?;
        if size == 0 {
            return Err("option 'size' must be at least 1".into());
        }
        let inner = match o.get("inner") {
            None | Some("") => InnerKind::Same,
            Some("parallel") => InnerKind::Parallel,
            Some("for") => InnerKind::For,
            Some(v) => return Err(format!("option 'inner' expects parallel or for, got '{v}'")),
        };
        Ok(LoopSplit { nest: o.usize("nest", 0)?, dim: o.usize("dim", 0)?, size, inner })
    }
}

impl Pass for LoopSplit {
    fn name(&self) -> &'static str {
        "loop-split"
    }

    fn options_text(&self) -> String {
        let inner = match self.inner {
            InnerKind::Same => "",
            InnerKind::Parallel => " inner=parallel",
            InnerKind::For => " inner=for",
        };
        format!("nest={} dim={} size={}{inner}", self.nest, self.dim, self.size)
    }

    fn run(&mut self, ctx: &mut Context, root: OpId) -> PassResult {
        for f in target_functions(ctx, root, "loop-split")? {
            let nest = select_nest(ctx, f, self.nest, "nest")?;
            split(ctx, nest, self.dim, self.size, self.inner)?;
        }
        Ok(())
    }
}

/// Strip-mines dimension `dim` of the loop `nest` (an `mloop.parallel` or `mloop.for`) by
/// `size`. Returns the inner loop.
pub fn split(ctx: &mut Context, nest: OpId, dim: usize, size: usize, inner: InnerKind) -> Result<OpId, Diagnostic> {
    let err = |ctx: &Context, m: String| op_error(ctx, nest, format!("cannot be split: {m}"));
    let is_for = ctx.isa::<ForOp>(nest);
    // (lb, ub, step) operand positions of `dim`, the body, the iv and the iter args.
    let (k, body, iv, iter_args, step_pos, ub) = if is_for {
        let ops = ctx.operands(nest);
        if ops.len() < 3 {
            return Err(err(ctx, "it has fewer than 3 operands".into()));
        }
        let region = *ctx.regions(nest).first().ok_or_else(|| err(ctx, "it has no region".into()))?;
        let body = ctx.entry_block(region).ok_or_else(|| err(ctx, "its region has no block".into()))?;
        let args = ctx.block_args(body).to_vec();
        if args.len() != ops.len() - 2 || ctx.block_last_op(body).is_none_or(|t| !ctx.isa::<YieldOp>(t)) {
            return Err(err(ctx, "its body does not match its operands".into()));
        }
        (1, body, args[0], args[1..].to_vec(), 2, ops[1])
    } else if ctx.isa::<ParallelOp>(nest) {
        let p = loop_parts(ctx, nest, false).map_err(|m| err(ctx, m))?;
        let k = p.ivs.len();
        if dim >= k {
            return Err(err(ctx, format!("dim={dim} is out of range for a nest of {k} dimension(s)")));
        }
        (k, p.body, p.ivs[dim], Vec::new(), 2 * k + dim, p.ubs[dim])
    } else {
        return Err(err(ctx, "only 'mloop.parallel' and 'mloop.for' nests can be split".into()));
    };
    if dim >= k {
        return Err(err(ctx, format!("dim={dim} is out of range for a nest of {k} dimension(s)")));
    }
    let step = ctx.operand(nest, step_pos);
    if const_int(ctx, step).is_some_and(|s| s <= 0) {
        return Err(err(ctx, "its step is not positive".into()));
    }
    let outside = Ib { before: nest };
    let s = outside.index(ctx, size as i64);
    let outer_step = outside.mul(ctx, s, step);
    ctx.set_operand(nest, step_pos, outer_step);

    // The inner loop's body: the old body, with the old iv (and iter args) replaced.
    let inner_for = match inner {
        InnerKind::Same => is_for,
        InnerKind::For => true,
        InnerKind::Parallel => false,
    };
    if !inner_for && is_for && !iter_args.is_empty() {
        return Err(err(ctx, "an 'mloop.for' with iter_args needs an 'mloop.for' inner loop".into()));
    }
    let region = ctx.create_region();
    let ib_block = ctx.create_block(region, &[]);
    let d = ctx.value(iv).clone();
    let name = d.name.map(|n| ctx.str(n).to_string());
    let inner_iv = ctx.add_block_arg(ib_block, d.ty, d.name, d.loc);
    ctx.replace_all_uses_with(iv, inner_iv);
    if let Some(n) = &name {
        let outer_name = format!("{n}_outer");
        ctx.set_value_name(iv, Some(&outer_name));
    }
    let mut inner_iters: Vec<Value> = Vec::new();
    for &a in &iter_args {
        let d = ctx.value(a).clone();
        let na = ctx.add_block_arg(ib_block, d.ty, d.name, d.loc);
        ctx.replace_all_uses_with(a, na);
        inner_iters.push(na);
    }
    let ops: Vec<OpId> = ctx.block_ops(body).collect();
    for o in ops {
        ctx.detach_op(o);
        ctx.append_op(ib_block, o);
    }
    // The outer body: the inner bounds, the inner loop and a yield of its results.
    let loc = ctx.op_loc(nest);
    let result_types: Vec<_> = iter_args.iter().map(|a| ctx.value_type(*a)).collect();
    let yield_op = ctx.create_op(YieldOp::state(loc, &[]));
    ctx.append_op(body, yield_op);
    let ib = Ib { before: yield_op };
    let end = ib.add(ctx, iv, outer_step);
    let ub_in = ib.min(ctx, end, ub);
    let st = if inner_for {
        ForOp::state(loc, iv, ub_in, step, &iter_args, &result_types)
    } else {
        ParallelOp::state(loc, &[iv, ub_in, step])
    };
    let inner_op = ctx.create_op(st.region(region));
    ctx.insert_op_before(yield_op, inner_op);
    if !iter_args.is_empty() {
        let results = ctx.results(inner_op).to_vec();
        let y = ctx.create_op(YieldOp::state(loc, &results));
        ctx.insert_op_before(yield_op, y);
        ctx.erase_op(yield_op);
    }
    Ok(inner_op)
}
