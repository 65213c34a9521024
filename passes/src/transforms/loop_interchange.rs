//! `loop-interchange`: permutes the dimensions of an `mloop.parallel` nest.
//!
//! The target is the `nest`-th top-level `mloop.parallel`/`mloop.for` directly in each
//! `func.func` body (0-based). Dimension `i` of the result is dimension `perm[i]` of the
//! input: lower bounds, upper bounds, steps and the body's induction variables are reordered
//! together, so the body is unchanged and only the (lexicographic) iteration order changes.
//! Iterations of `mloop.parallel` are independent apart from commuting `accumulate`
//! updates, so the results are the same up to the float rounding of accumulation order.
//!
//! **IR expected:** `mloop` loop nests (docs/dialects/loop.md). Runs on a `func.func`, or on
//! a `builtin.module` (each of its functions). **IR produced:** the same, with one nest
//! permuted. **Options:** `nest=K` (default 0), `perm=P0,P1,...` (required: a permutation of
//! `0..k` for a `k`-dimensional nest). An out-of-range nest, a nest that is not an
//! `mloop.parallel`, or a bad permutation is an error at the function or the nest.
//!
//! **Example** (`--loop-interchange='nest=0 perm=1,0'`):
//!
//! ```text
//! // before
//! mloop.parallel (%i, %j) = (%c0, %c0) to (%m, %n) step (%c1, %c1) {
//!   %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
//!   mloop.store %v, %y[%i, %j] : !mloop.buffer<?x?xf32>
//!   mloop.yield
//! }
//! // after: j is the outer dimension
//! mloop.parallel (%j, %i) = (%c0, %c0) to (%n, %m) step (%c1, %c1) {
//!   %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
//!   mloop.store %v, %y[%i, %j] : !mloop.buffer<?x?xf32>
//!   mloop.yield
//! }
//! ```

use morf_ir::builtin::op_error;
use morf_ir::pass::{Pass, PassInfo, PassOptionInfo, PassOptions, PassResult};
use morf_ir::{Context, OpId};
use morf_loop::ops::ParallelOp;

use super::loop_utils::{loop_parts, select_nest, target_functions, usize_list};

/// The registry entry of `loop-interchange`.
pub fn info() -> PassInfo {
    PassInfo {
        name: "loop-interchange",
        description: "permute the dimensions of a top-level mloop.parallel nest",
        options: &[
            PassOptionInfo { key: "nest", help: "index of the top-level loop nest in each function", default: "0" },
            PassOptionInfo { key: "perm", help: "new order of the dimensions, as old indices (1,0)", default: "" },
        ],
        create: |o| Ok(Box::new(LoopInterchange::from_options(o)?)),
    }
}

/// The loop-interchange pass.
#[derive(Debug, Default, Clone)]
pub struct LoopInterchange {
    /// Which top-level nest of each function.
    pub nest: usize,
    /// Dimension `i` of the result is dimension `perm[i]` of the input.
    pub perm: Vec<usize>,
}

impl LoopInterchange {
    /// Reads `nest` and `perm`.
    pub fn from_options(o: &PassOptions) -> Result<Self, String> {
        let nest = o.usize("nest", 0)?;
        let perm = usize_list(o, "perm")?;
        if perm.is_empty() {
            return Err("option 'perm' is required: the new order of the dimensions (perm=1,0)".into());
        }
        Ok(LoopInterchange { nest, perm })
    }
}

impl Pass for LoopInterchange {
    fn name(&self) -> &'static str {
        "loop-interchange"
    }

    fn options_text(&self) -> String {
        let p: Vec<String> = self.perm.iter().map(|x| x.to_string()).collect();
        format!("nest={} perm={}", self.nest, p.join(","))
    }

    fn run(&mut self, ctx: &mut Context, root: OpId) -> PassResult {
        for f in target_functions(ctx, root, "loop-interchange")? {
            let nest = select_nest(ctx, f, self.nest, "nest")?;
            interchange(ctx, nest, &self.perm)?;
        }
        Ok(())
    }
}

/// Permutes the dimensions of the `mloop.parallel` `nest`: dimension `i` of the result is
/// dimension `perm[i]` of `nest`. Returns the new op (`nest` is erased).
pub fn interchange(ctx: &mut Context, nest: OpId, perm: &[usize]) -> Result<OpId, morf_ir::Diagnostic> {
    let err = |ctx: &Context, m: String| op_error(ctx, nest, format!("cannot be interchanged: {m}"));
    if !ctx.isa::<ParallelOp>(nest) {
        return Err(err(ctx, "only 'mloop.parallel' nests can be interchanged".into()));
    }
    let parts = loop_parts(ctx, nest, false).map_err(|m| err(ctx, m))?;
    let k = parts.ivs.len();
    let mut seen = vec![false; k];
    let valid = perm.len() == k && perm.iter().all(|&p| p < k && !std::mem::replace(&mut seen[p], true));
    if !valid {
        let p: Vec<String> = perm.iter().map(|x| x.to_string()).collect();
        return Err(err(ctx, format!("perm={} is not a permutation of the {k} dimensions of the nest", p.join(","))));
    }
    let mut operands = Vec::with_capacity(3 * k);
    for list in [&parts.lbs, &parts.ubs, &parts.steps] {
        operands.extend(perm.iter().map(|&p| list[p]));
    }
    // A new body block with the ivs in the new order; the ops move over unchanged.
    let region = ctx.create_region();
    let nb = ctx.create_block(region, &[]);
    let mut new_ivs = Vec::with_capacity(k);
    for &p in perm {
        let old = parts.ivs[p];
        let d = ctx.value(old).clone();
        new_ivs.push(ctx.add_block_arg(nb, d.ty, d.name, d.loc));
    }
    for (i, &p) in perm.iter().enumerate() {
        ctx.replace_all_uses_with(parts.ivs[p], new_ivs[i]);
    }
    let ops: Vec<OpId> = ctx.block_ops(parts.body).collect();
    for o in ops {
        ctx.detach_op(o);
        ctx.append_op(nb, o);
    }
    let mut st = ParallelOp::state(ctx.op_loc(nest), &operands).region(region);
    for &(k, a) in ctx.attrs(nest) {
        st.attrs.push((ctx.str(k).to_string(), a));
    }
    let new = ctx.create_op(st);
    ctx.insert_op_before(nest, new);
    ctx.erase_op(nest);
    Ok(new)
}
