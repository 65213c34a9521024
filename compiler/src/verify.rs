//! The verifier: structural rules (operands defined and dominating their uses, isolation,
//! terminators, block counts, unique symbols), trait rules, then each op's own verifier.
//!
//! It walks with an explicit stack, so deep nesting cannot overflow the native stack, and
//! reports the first problem in textual order.

use std::collections::HashMap;

use crate::builtin::op_error;
use crate::context::{BlockId, Context, OpId, Value, ValueDef};
use crate::diag::Diagnostic;
use crate::registry::Traits;

/// Verifies `root` and everything nested in it.
pub fn verify(ctx: &Context, root: OpId) -> Result<(), Diagnostic> {
    let ops = ctx.walk_collect(root);
    // Position of each op in its block, for dominance.
    let mut pos: HashMap<OpId, usize> = HashMap::with_capacity(ops.len());
    for &op in &ops {
        for &r in ctx.regions(op) {
            for b in ctx.region_blocks(r) {
                for (i, o) in ctx.block_ops(b).enumerate() {
                    pos.insert(o, i);
                }
            }
        }
    }
    for &op in &ops {
        verify_structure(ctx, op, root, &pos)?;
        let info = ctx.op_info(op);
        if let Some(info) = info {
            verify_traits(ctx, op, info.traits)?;
            if let Some(f) = info.verify {
                f(ctx, op)?;
            }
        } else if !ctx.registry().allow_unregistered {
            return Err(op_error(ctx, op, "is not registered (use --allow-unregistered-dialect to accept it)"));
        }
    }
    Ok(())
}

fn verify_structure(ctx: &Context, op: OpId, root: OpId, pos: &HashMap<OpId, usize>) -> Result<(), Diagnostic> {
    for (i, &v) in ctx.operands(op).iter().enumerate() {
        if !ctx.value_exists(v) || ctx.is_placeholder(v) {
            return Err(op_error(ctx, op, format!("operand #{i} refers to an undefined value")));
        }
        check_dominance(ctx, op, i, v, root, pos)?;
    }
    Ok(())
}

/// The ancestors of `op` (itself first), each with the block that holds it.
fn ancestry(ctx: &Context, op: OpId) -> Vec<(OpId, Option<BlockId>)> {
    let mut v = Vec::new();
    let mut cur = Some(op);
    while let Some(c) = cur {
        v.push((c, ctx.op_parent_block(c)));
        cur = ctx.parent_op(c);
    }
    v
}

fn check_dominance(
    ctx: &Context,
    op: OpId,
    i: usize,
    v: Value,
    root: OpId,
    pos: &HashMap<OpId, usize>,
) -> Result<(), Diagnostic> {
    let chain = ancestry(ctx, op);
    let (def_block, def_op) = match ctx.value(v).def {
        ValueDef::OpResult { op: d, .. } => match ctx.op_parent_block(d) {
            Some(b) => (b, Some(d)),
            None => return Err(op_error(ctx, op, format!("operand #{i} is defined by a detached op"))),
        },
        ValueDef::BlockArg { block, .. } => (block, None),
        ValueDef::Placeholder => return Err(op_error(ctx, op, format!("operand #{i} refers to an undefined value"))),
    };
    // Find the ancestor of `op` that lives in def_block (or in the same region).
    for (k, (anc, blk)) in chain.iter().enumerate() {
        // Crossing an isolated op boundary (other than at the use itself) hides the value.
        if k > 0 {
            let crossed = chain[k].0;
            if crossed != root || k < chain.len() {
                let iso = ctx.op_info(crossed).is_some_and(|inf| inf.has(Traits::ISOLATED_FROM_ABOVE));
                if iso && Some(def_block) != *blk {
                    // The value is defined outside this isolated op.
                    if !inside(ctx, def_block, crossed) {
                        return Err(op_error(
                            ctx,
                            op,
                            format!("using value defined outside the region (operand #{i})"),
                        )
                        .with_note(ctx.op_loc(crossed), "required by region isolation constraints"));
                    }
                }
            }
        }
        let Some(b) = blk else { continue };
        if *b == def_block {
            if let Some(d) = def_op {
                let (pd, pa) = (pos.get(&d).copied().unwrap_or(0), pos.get(anc).copied().unwrap_or(0));
                if d == *anc || pd >= pa {
                    return Err(op_error(ctx, op, format!("operand #{i} does not dominate this use"))
                        .with_note(ctx.op_loc(d), "operand defined here"));
                }
            }
            return Ok(());
        }
        // Same region, different block: only the entry block dominates the others.
        if ctx.block_parent(*b) == ctx.block_parent(def_block) {
            let r = ctx.block_parent(def_block).and_then(|r| ctx.entry_block(r));
            if r == Some(def_block) {
                return Ok(());
            }
            return Err(op_error(ctx, op, format!("operand #{i} does not dominate this use")));
        }
    }
    Err(op_error(ctx, op, format!("operand #{i} does not dominate this use")))
}

/// Whether `block` is nested inside `op`.
fn inside(ctx: &Context, block: BlockId, op: OpId) -> bool {
    let mut r = ctx.block_parent(block);
    while let Some(region) = r {
        let Some(p) = ctx.region_parent(region) else {
            return false;
        };
        if p == op {
            return true;
        }
        r = ctx.op_parent_block(p).and_then(|b| ctx.block_parent(b));
    }
    false
}

fn verify_traits(ctx: &Context, op: OpId, t: Traits) -> Result<(), Diagnostic> {
    if t.contains(Traits::TERMINATOR) {
        if let Some(b) = ctx.op_parent_block(op) {
            if ctx.block_last_op(b) != Some(op) {
                return Err(op_error(ctx, op, "must be the last operation in the parent block"));
            }
        }
    }
    for &r in ctx.regions(op) {
        let blocks: Vec<BlockId> = ctx.region_blocks(r).collect();
        if t.contains(Traits::SINGLE_BLOCK) && blocks.len() > 1 {
            return Err(op_error(ctx, op, "expects a single block in each region"));
        }
        if !t.contains(Traits::NO_TERMINATOR) {
            for b in &blocks {
                let last = ctx.block_last_op(*b);
                let term = last.and_then(|l| ctx.op_info(l)).is_some_and(|i| i.has(Traits::TERMINATOR));
                let unknown_last = last.is_some_and(|l| ctx.op_info(l).is_none());
                if !term && !unknown_last {
                    // A terminator followed by other ops is reported at the terminator.
                    let misplaced = ctx
                        .block_ops(*b)
                        .find(|o| Some(*o) != last && ctx.op_info(*o).is_some_and(|i| i.has(Traits::TERMINATOR)));
                    if let Some(t) = misplaced {
                        return Err(op_error(ctx, t, "must be the last operation in the parent block"));
                    }
                    let loc = last.map(|l| ctx.op_loc(l)).unwrap_or(ctx.op_loc(op));
                    return Err(Diagnostic::error(loc, "block with no terminator")
                        .with_note(ctx.op_loc(op), format!("in a region of '{}'", ctx.op_name(op))));
                }
            }
        }
    }
    if t.contains(Traits::SAME_OPERANDS_AND_RESULT_TYPE) {
        let mut tys = ctx.operands(op).iter().chain(ctx.results(op)).map(|v| ctx.value_type(*v));
        if let Some(first) = tys.next() {
            if let Some(other) = tys.find(|x| *x != first) {
                return Err(op_error(
                    ctx,
                    op,
                    format!(
                        "requires the same type for all operands and results ('{}' vs '{}')",
                        ctx.type_to_string(first),
                        ctx.type_to_string(other)
                    ),
                ));
            }
        }
    }
    if t.contains(Traits::SAME_OPERANDS_AND_RESULT_SHAPE) {
        let shapes: Vec<_> =
            ctx.operands(op).iter().chain(ctx.results(op)).map(|v| ctx.shape_of(ctx.value_type(*v))).collect();
        if let Some(first) = shapes.first() {
            for s in &shapes[1..] {
                let same = match (first, s) {
                    (Some(a), Some(b)) => a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| x.compatible(*y)),
                    (None, None) => true,
                    _ => false,
                };
                if !same {
                    return Err(op_error(ctx, op, "requires the same shape for all operands and results"));
                }
            }
        }
    }
    if t.contains(Traits::SYMBOL_TABLE) {
        let mut seen: HashMap<&str, OpId> = HashMap::new();
        for &r in ctx.regions(op) {
            for b in ctx.region_blocks(r) {
                for o in ctx.block_ops(b) {
                    if let Some(n) = ctx.attr(o, "sym_name").and_then(|a| ctx.attr_str(a)) {
                        if let Some(prev) = seen.insert(n, o) {
                            return Err(Diagnostic::error(
                                ctx.op_loc(o),
                                format!("redefinition of symbol named '{n}'"),
                            )
                            .with_note(ctx.op_loc(prev), "see existing symbol definition here"));
                        }
                    }
                }
            }
        }
    }
    Ok(())
}
