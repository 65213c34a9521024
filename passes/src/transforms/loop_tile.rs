//! `loop-tile`: tiles several dimensions of a top-level `mloop.parallel` at once, with exact
//! bounds for the tails (`loop-split` generalised to a tile of any rank; issue 10,
//! docs/design/schedules-in-ir.md).
//!
//! The target is the `nest`-th top-level `mloop.parallel`/`mloop.for` directly in each
//! `func.func` body (0-based); it must be an `mloop.parallel`. `sizes=s0,s1,...` gives a tile
//! size per leading dimension (0: that dimension is not tiled; dimensions past the list are
//! not tiled). Each tiled dimension `d` (lb, ub, step) keeps its bounds in the nest with step
//! `s_d * step` (the tile's first point), and one inner `mloop.parallel` over the tiled
//! dimensions runs `[tile, min(tile + s_d * step, ub))` with the old step, holding the old body
//! with the old induction variables replaced by the inner ones. Every point runs exactly once,
//! in the same order for the interpreter when only the innermost dimensions are tiled, so the
//! results are unchanged apart from the float rounding of `accumulate` order otherwise.
//! The inner loop is what `loop-map` (or a hand-written `mapping`) sends to the threads of a CTA
//! while the tiles go to the grid.
//!
//! **IR expected:** `mloop` loop nests (docs/dialects/loop.md). Runs on a `func.func` or a
//! `builtin.module` (each of its functions). **IR produced:** the same, with the tile loop.
//! **Options:** `nest=K` (default 0), `sizes=...` (required, at least one non-zero size). An
//! out-of-range nest, a `for` nest or more sizes than dimensions is an error at the function or
//! the nest.
//!
//! **Example** (`--loop-tile='sizes=8,32'`):
//!
//! ```text
//! // before
//! mloop.parallel (%i, %j) = (%c0, %c0) to (%m, %n) step (%c1, %c1) {
//!   %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
//!   mloop.store %v, %y[%i, %j] : !mloop.buffer<?x?xf32>
//!   mloop.yield
//! }
//! // after
//! mloop.parallel (%i_outer, %j_outer) = (%c0, %c0) to (%m, %n) step (%c8, %c32) {
//!   %ei = mloop.add %i_outer, %c8 : index
//!   %ui = mloop.min %ei, %m : index
//!   %ej = mloop.add %j_outer, %c32 : index
//!   %uj = mloop.min %ej, %n : index
//!   mloop.parallel (%i, %j) = (%i_outer, %j_outer) to (%ui, %uj) step (%c1, %c1) {
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
use morf_loop::ops::{ParallelOp, YieldOp};

use super::loop_utils::{const_int, loop_parts, select_nest, target_functions, usize_list, Ib};

/// The registry entry of `loop-tile`.
pub fn info() -> PassInfo {
    PassInfo {
        name: "loop-tile",
        description: "tile leading dimensions of a top-level parallel nest into tiles with exact tail bounds",
        options: &[
            PassOptionInfo { key: "nest", help: "index of the top-level loop nest in each function", default: "0" },
            PassOptionInfo { key: "sizes", help: "tile size per leading dimension (0: not tiled)", default: "" },
        ],
        create: |o| Ok(Box::new(LoopTile::from_options(o)?)),
    }
}

/// The loop-tile pass.
#[derive(Debug, Default, Clone)]
pub struct LoopTile {
    /// Which top-level nest of each function.
    pub nest: usize,
    /// Tile sizes of the leading dimensions (0: not tiled).
    pub sizes: Vec<usize>,
}

impl LoopTile {
    /// Reads the options.
    pub fn from_options(o: &PassOptions) -> Result<Self, String> {
        let sizes = usize_list(o, "sizes")?;
        if sizes.iter().all(|s| *s == 0) {
            return Err("option 'sizes' needs at least one non-zero tile size".into());
        }
        Ok(LoopTile { nest: o.usize("nest", 0)?, sizes })
    }
}

impl Pass for LoopTile {
    fn name(&self) -> &'static str {
        "loop-tile"
    }

    fn options_text(&self) -> String {
        let sizes: Vec<String> = self.sizes.iter().map(|s| s.to_string()).collect();
        format!("nest={} sizes={}", self.nest, sizes.join(","))
    }

    fn run(&mut self, ctx: &mut Context, root: OpId) -> PassResult {
        for f in target_functions(ctx, root, "loop-tile")? {
            let nest = select_nest(ctx, f, self.nest, "nest")?;
            tile(ctx, nest, &self.sizes)?;
        }
        Ok(())
    }
}

/// Tiles the leading dimensions of the parallel `nest` by `sizes` (0: not tiled). Returns the
/// inner (tile) loop.
pub fn tile(ctx: &mut Context, nest: OpId, sizes: &[usize]) -> Result<OpId, Diagnostic> {
    let err = |ctx: &Context, m: String| op_error(ctx, nest, format!("cannot be tiled: {m}"));
    if !ctx.isa::<ParallelOp>(nest) {
        return Err(err(ctx, "only 'mloop.parallel' nests can be tiled (use loop-split for 'mloop.for')".into()));
    }
    let p = loop_parts(ctx, nest, false).map_err(|m| err(ctx, m))?;
    let k = p.ivs.len();
    if sizes.len() > k {
        return Err(err(ctx, format!("{} tile sizes for a nest of {k} dimension(s)", sizes.len())));
    }
    let dims: Vec<usize> = (0..sizes.len()).filter(|&d| sizes[d] > 0).collect();
    if dims.is_empty() {
        return Err(err(ctx, "no dimension has a non-zero tile size".into()));
    }
    for &d in &dims {
        if const_int(ctx, p.steps[d]).is_some_and(|s| s <= 0) {
            return Err(err(ctx, format!("the step of dimension {d} is not positive")));
        }
    }
    // The nest's steps become the tiles' strides.
    let outside = Ib { before: nest };
    let mut strides = Vec::new();
    for &d in &dims {
        let s = outside.index(ctx, sizes[d] as i64);
        let stride = outside.mul(ctx, s, p.steps[d]);
        ctx.set_operand(nest, 2 * k + d, stride);
        strides.push(stride);
    }
    // The tile loop's block: the old ivs of the tiled dims become its arguments.
    let region = ctx.create_region();
    let blk = ctx.create_block(region, &[]);
    let mut inner_ivs: Vec<Value> = Vec::new();
    for &d in &dims {
        let iv = p.ivs[d];
        let data = ctx.value(iv).clone();
        let name = data.name.map(|n| ctx.str(n).to_string());
        let niv = ctx.add_block_arg(blk, data.ty, data.name, data.loc);
        ctx.replace_all_uses_with(iv, niv);
        if let Some(n) = name {
            ctx.set_value_name(iv, Some(&format!("{n}_outer")));
        }
        inner_ivs.push(niv);
    }
    for o in ctx.block_ops(p.body).collect::<Vec<_>>() {
        ctx.detach_op(o);
        ctx.append_op(blk, o);
    }
    let loc = ctx.op_loc(nest);
    let y = ctx.create_op(YieldOp::state(loc, &[]));
    ctx.append_op(p.body, y);
    let ib = Ib { before: y };
    let (mut lbs, mut ubs, mut steps) = (Vec::new(), Vec::new(), Vec::new());
    for (n, &d) in dims.iter().enumerate() {
        let end = ib.add(ctx, p.ivs[d], strides[n]);
        lbs.push(p.ivs[d]);
        ubs.push(ib.min(ctx, end, p.ubs[d]));
        steps.push(p.steps[d]);
    }
    let mut bounds = lbs;
    bounds.extend(ubs);
    bounds.extend(steps);
    let inner = ctx.create_op(ParallelOp::state(loc, &bounds).region(region));
    ctx.insert_op_before(y, inner);
    Ok(inner)
}
