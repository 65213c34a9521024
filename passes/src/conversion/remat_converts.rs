//! Conversions recomputed after a barrier or a warp reduction
//! (`lower-loop-to-gpu{remat-converts=true}`).
//!
//! A register-resident row kernel loads its row as bf16, widens each element to f32 once, and
//! uses the f32 values on both sides of the row reduction's barrier: before it for the
//! reduction's sum, after it for the row's outputs and column partials. Every such f32 stays
//! live across the barrier, one register per element, where the loaded 32-bit words hold two
//! elements each (a warp per row holds them across its warp reduction the same way). This
//! transform gives each use after a barrier or warp reduction its own widening of the
//! element, marked [`REMAT_ATTR`]; the PTX emitter draws it from the loaded word with `prmt`,
//! so ptxas keeps the packed words across the barrier and widens again after it.
//!
//! Measured on the H200 (docs/perf.md, nineteenth session): RMSNorm backward at 32768 x 4096
//! bf16 with three CTAs of 256 threads a SM ran 274 us without it (80 registers, 36 bytes of
//! spills) and 213.3 us with it (79 registers, none; interleaved splits). The same results:
//! the widening of bf16 to f32 is exact either way, and the arithmetic redone is the same.
//!
//! ```text
//! %x = mloop.convert %h : bf16 to f32          // before the barrier, for the row sum
//! ...
//! mgpu.barrier
//! ...
//! %x2 = mloop.convert %h {morf.remat} : bf16 to f32
//! %dx = mloop.mul %x2, %c : f32                // a use after the barrier takes its own
//! ```

use std::collections::HashMap;

use morf_gpu::ops as mgpu;
use morf_ir::interfaces::{elementwise, BinaryFn, Elementwise, UnaryFn};
use morf_ir::{BlockId, Context, FloatKind, OpId, TypeData};
use morf_loop::ops as mloop;

/// The discardable unit attribute on an `mloop.convert` of bf16 to f32 that recomputes, after a
/// barrier, a widening done before it. The PTX emitter widens such a conversion of a half of
/// an 8-element vector load from the loaded 32-bit word (`prmt`), an instruction the first
/// widening does not use, so ptxas does not merge the two into one long-lived f32.
pub const REMAT_ATTR: &str = "morf.remat";

/// Gives every use that comes after an `mgpu.barrier` or `mgpu.warp_reduce` of the block
/// (directly or nested in a later op) of a value computed before it from widened vector-loaded
/// bf16 (through cheap f32 arithmetic, at most 8 ops) its own copy of that computation, the
/// widenings marked [`REMAT_ATTR`], right before the using op. Returns the ops created.
pub fn remat_converts(ctx: &mut Context, kernel: OpId) -> usize {
    let mut blocks = Vec::new();
    for op in ctx.walk_collect(kernel) {
        for &r in ctx.regions(op) {
            blocks.extend(ctx.region_blocks(r));
        }
    }
    blocks.iter().map(|&b| remat_in_block(ctx, b)).sum()
}

/// Whether `op` widens a bf16 that an `mgpu.load_vec` produced to f32.
fn widens_loaded_bf16(ctx: &Context, op: OpId) -> bool {
    if !ctx.isa::<mloop::ConvertOp>(op) || ctx.attr(op, REMAT_ATTR).is_some() {
        return false;
    }
    let (a, r) = (ctx.operand(op, 0), ctx.result(op, 0));
    let float = |v| match ctx.type_data(ctx.value_type(v)) {
        TypeData::Float(k) => Some(*k),
        _ => None,
    };
    float(a) == Some(FloatKind::BF16)
        && float(r) == Some(FloatKind::F32)
        && ctx.defining_op(a).is_some_and(|d| ctx.isa::<mgpu::LoadVecOp>(d))
}

/// The most ops a recomputed value may take after a barrier (its widenings included).
const MAX_CHAIN: usize = 8;

/// Whether `op` is arithmetic cheap enough to redo after a barrier: an f32 add, subtract,
/// multiply, negation or maximum/minimum.
fn cheap_f32(ctx: &Context, op: OpId) -> bool {
    let f32_result = ctx.results(op).len() == 1
        && matches!(ctx.type_data(ctx.value_type(ctx.result(op, 0))), TypeData::Float(FloatKind::F32));
    f32_result
        && matches!(
            elementwise(ctx, op),
            Some(Elementwise::Binary(BinaryFn::Add | BinaryFn::Sub | BinaryFn::Mul | BinaryFn::Max | BinaryFn::Min))
                | Some(Elementwise::Unary(UnaryFn::Neg))
        )
}

/// The ops of `block` before position `bar` that recomputing `v` after the barrier would redo,
/// operands first: a widening of a loaded bf16, or cheap f32 arithmetic over such widenings
/// and values the recomputation keeps (defined elsewhere, or not cheap). `None` when `v` is
/// not such a value, holds no widening, or takes more than [`MAX_CHAIN`] ops.
fn chain(ctx: &Context, pos: &HashMap<OpId, usize>, bar: usize, v: morf_ir::Value) -> Option<Vec<OpId>> {
    fn walk(
        ctx: &Context,
        pos: &HashMap<OpId, usize>,
        bar: usize,
        v: morf_ir::Value,
        out: &mut Vec<OpId>,
        widens: &mut bool,
    ) -> Option<()> {
        let Some(d) = ctx.defining_op(v) else { return Some(()) };
        if pos.get(&d).is_none_or(|&p| p >= bar) || out.contains(&d) {
            return Some(());
        }
        if widens_loaded_bf16(ctx, d) {
            *widens = true;
        } else if cheap_f32(ctx, d) {
            for &a in ctx.operands(d) {
                walk(ctx, pos, bar, a, out, widens)?;
            }
        } else {
            return Some(());
        }
        out.push(d);
        (out.len() <= MAX_CHAIN).then_some(())
    }
    let (mut out, mut widens) = (Vec::new(), false);
    walk(ctx, pos, bar, v, &mut out, &mut widens)?;
    (widens && !out.is_empty()).then_some(out)
}

/// The op of `block` that is `op` or holds it, if any.
fn ancestor_in(ctx: &Context, block: BlockId, op: OpId) -> Option<OpId> {
    let mut cur = Some(op);
    while let Some(c) = cur {
        if ctx.op_parent_block(c) == Some(block) {
            return Some(c);
        }
        cur = ctx.parent_op(c);
    }
    None
}

fn remat_in_block(ctx: &mut Context, block: BlockId) -> usize {
    let ops: Vec<OpId> = ctx.block_ops(block).collect();
    let barriers: Vec<usize> =
        ops.iter().enumerate().filter(|(_, &o)| is_split_point(ctx, o)).map(|(i, _)| i).collect();
    if barriers.is_empty() {
        return 0;
    }
    let pos: HashMap<OpId, usize> = ops.iter().enumerate().map(|(i, &o)| (o, i)).collect();
    let mut made = 0;
    for (i, &def) in ops.iter().enumerate() {
        if ctx.results(def).len() != 1 {
            continue;
        }
        let Some(&bar) = barriers.iter().find(|&&b| b > i) else { continue };
        let v = ctx.result(def, 0);
        let Some(ops_to_redo) = chain(ctx, &pos, bar, v) else { continue };
        let mut users: Vec<OpId> = Vec::new();
        for u in ctx.uses(v) {
            let after = ancestor_in(ctx, block, u.op).and_then(|a| pos.get(&a)).is_some_and(|&p| p > bar);
            if after && !users.contains(&u.op) {
                users.push(u.op);
            }
        }
        for user in users {
            // The chain again, right before the use, its widenings drawn from the loaded words.
            let mut map = HashMap::new();
            for &o in &ops_to_redo {
                let clone = ctx.clone_op(o, &mut map);
                if ctx.isa::<mloop::ConvertOp>(o) {
                    let unit = ctx.unit_attr();
                    ctx.set_attr(clone, REMAT_ATTR, unit);
                }
                ctx.insert_op_before(user, clone);
                map.insert(ctx.result(o, 0), ctx.result(clone, 0));
                made += 1;
            }
            let nv = map[&v];
            for k in 0..ctx.operands(user).len() {
                if ctx.operand(user, k) == v {
                    ctx.set_operand(user, k, nv);
                }
            }
        }
    }
    made
}

/// Where a row's widened values would be held across: a barrier (a CTA's row reduction) or a
/// warp reduction (a warp's, or a group of lanes').
fn is_split_point(ctx: &Context, op: OpId) -> bool {
    ctx.isa::<mgpu::BarrierOp>(op) || ctx.isa::<mgpu::WarpReduceOp>(op)
}

#[cfg(test)]
mod tests {
    use super::*;
    use morf_ir::{parse_source, print_op, PrintOptions};

    /// A widened pair multiplied before a warp reduction and a barrier, used after both: the
    /// widenings and the product are redone right before the use (three ops), the widenings
    /// marked; `exp` (not cheap) and an f32 load (no widening) are held as they are.
    #[test]
    fn a_product_of_widenings_is_redone_after_the_reduction() {
        let text = r#"module {
  mgpu.func @k(%p: !mgpu.ptr<bf16>, %q: !mgpu.ptr<f32>, %o: !mgpu.ptr<f32>) kernel {
    %c0 = mloop.constant 0 : index
    %a, %b = mgpu.load_vec %p[%c0] {nc} : !mgpu.ptr<bf16> -> bf16, bf16
    %f = mgpu.load %q[%c0] : !mgpu.ptr<f32>
    %fa = mloop.convert %a : bf16 to f32
    %fb = mloop.convert %b : bf16 to f32
    %s = mloop.mul %fa, %fb : f32
    %e = mloop.exp %fa : f32
    %r = mgpu.warp_reduce sum %s : f32
    mgpu.barrier
    %t = mloop.add %s, %r : f32
    %u = mloop.add %t, %e : f32
    %v = mloop.add %u, %f : f32
    mgpu.store %v, %o[%c0] : !mgpu.ptr<f32>
    mgpu.return
  }
}"#;
        let mut ctx = Context::new();
        morf_loop::register(&mut ctx);
        morf_gpu::register(&mut ctx);
        let module = parse_source(&mut ctx, "k.mlir", text, 0).expect("parses");
        let kernel = ctx.walk_collect(module).into_iter().find(|&o| ctx.isa::<mgpu::FuncOp>(o)).expect("kernel");
        assert_eq!(remat_converts(&mut ctx, kernel), 3);
        morf_ir::verify(&ctx, module).expect("verifies");
        let out = print_op(&ctx, module, &PrintOptions::default());
        let after: Vec<&str> = out.lines().skip_while(|l| !l.contains("mgpu.barrier")).collect();
        assert_eq!(after.iter().filter(|l| l.contains("{morf.remat} : bf16 to f32")).count(), 2, "{out}");
        assert!(after.iter().any(|l| l.contains("mloop.mul")), "{out}");
        assert!(!after.iter().any(|l| l.contains("mloop.exp") || l.contains("mgpu.load %")), "{out}");
        // Nothing before the barrier changed, and a second run finds nothing new to redo.
        assert_eq!(out.matches("morf.remat").count(), 2);
        assert_eq!(remat_converts(&mut ctx, kernel), 0);
    }
}
