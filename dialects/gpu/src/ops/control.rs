//! Control flow inside kernels: `if` (with an optional `else`, possibly yielding values), the
//! grid's `work_loop` (iterations taken by blocks at run time), and their terminator `yield`.
//! Other loops are `mloop.for`.
//!
//! ```mlir
//! %r = mgpu.if %cond -> (f32) {
//!   mgpu.yield %a : f32
//! } else {
//!   mgpu.yield %b : f32
//! }
//! mgpu.work_loop %s to %n {
//!   ...
//!   mgpu.yield
//! }
//! ```

use morf_ir::asm::formats::{parse_operands_colon_types, print_operands_colon_types};
use morf_ir::asm::parser::{OpParser, PResult};
use morf_ir::asm::printer::OpPrinter;
use morf_ir::builtin::op_error;
use morf_ir::opdef::{AnyType, Index, TypeConstraint, I1};
use morf_ir::{define_op, Context, OpId, OperationState, Type};

use super::{interpret_in_kernel_only, FuncOp, VResult};

define_op! {
    /// A conditional: `%r = mgpu.if %cond -> (f32) { ... } else { ... }`. Two regions (`then`,
    /// and `else`, which may be empty when there are no results), each of one block ending in
    /// `mgpu.yield`. Threads of a block may take different branches.
    pub struct IfOp("mgpu.if") {
        summary: "runs one of two regions, per thread",
        traits: [SINGLE_BLOCK],
        operands: [condition: I1],
        variadic_results: results: AnyType,
        regions: [then_region, else_region],
        verify: verify_if,
        format: (parse_if, print_if),
        interpret: interpret_in_kernel_only,
    }
}

define_op! {
    /// The grid's loop over iterations `0 .. ub`, each run once, by one block, whichever asks
    /// first (a work queue): `mgpu.work_loop %s to %ub { ... mgpu.yield }`.
    ///
    /// Block `b` runs iteration `b` first (none where `b >= ub`); after each iteration its
    /// thread 0 takes a ticket `t` (an atomic add on a counter of the kernel in global memory)
    /// and the block runs iteration `grid_dim + t` next, until that is `ub` or more. A block
    /// that finishes early so takes more iterations: the grid stays balanced where blocks run
    /// at different speeds or start at different times, which a fixed stride
    /// (`mloop.for %s = %block_id to %ub step %grid_dim`, the same iterations) cannot do.
    /// Every iteration's threads are the block's, all of them: the ticket reaches them through
    /// shared memory behind two block barriers (its store, and the next one). Since every block
    /// that runs iteration `b` takes exactly one ticket past the last iteration, a launch takes
    /// tickets `0 .. ub` in all; the block that takes ticket `ub - 1` sets the counter back to
    /// 0 for the next launch.
    ///
    /// So every block of the launch must run the loop, or none (it stands in uniform control
    /// flow, not in another loop), a kernel holds one at most (the counter is the kernel's),
    /// and a clustered kernel none (a cluster's blocks would take different iterations). Two
    /// launches of the kernel must not run at once (as with `mgpu.grid_barrier`'s counter).
    /// The body's iterations must not depend on which block runs them (anything written per
    /// iteration goes to the iteration's own place): the simulator runs block 0 first, which
    /// takes every ticket before the other blocks start.
    pub struct WorkLoopOp("mgpu.work_loop") {
        summary: "a grid's loop whose iterations blocks take at run time",
        traits: [SINGLE_BLOCK],
        operands: [upper_bound: Index],
        regions: [body],
        verify: verify_work_loop,
        format: (parse_work_loop, print_work_loop),
        interpret: interpret_in_kernel_only,
    }
}

define_op! {
    /// Ends a region of `mgpu.if` or the body of `mgpu.work_loop`: `mgpu.yield` or
    /// `mgpu.yield %a, %b : f32, f32`, with the parent's result types (none for a work loop).
    pub struct YieldOp("mgpu.yield") {
        summary: "ends a region of mgpu.if or mgpu.work_loop, yielding its values",
        traits: [TERMINATOR, PURE],
        variadic: values: AnyType,
        verify: verify_yield,
        format: (parse_operands_colon_types, print_operands_colon_types),
        interpret: interpret_in_kernel_only,
    }
}

fn verify_if(ctx: &Context, op: OpId) -> VResult {
    let o = IfOp(op);
    let (then_r, else_r) = (o.then_region(ctx), o.else_region(ctx));
    if ctx.entry_block(then_r).is_none() {
        return Err(op_error(ctx, op, "expects a 'then' block"));
    }
    if !o.results(ctx).is_empty() && ctx.entry_block(else_r).is_none() {
        return Err(op_error(ctx, op, "must have an 'else' region when it has results"));
    }
    for r in [then_r, else_r] {
        if let Some(b) = ctx.entry_block(r) {
            if !ctx.block_args(b).is_empty() {
                return Err(op_error(ctx, op, "regions must not have arguments"));
            }
        }
    }
    Ok(())
}

fn parse_if(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    let c = p.parse_operand()?;
    let i1 = p.ctx.i1_type();
    let cv = p.resolve_operand(&c, i1)?;
    let mut tys = Vec::new();
    if p.parse_optional_punct("->")? {
        p.expect_punct("(")?;
        if !p.at_punct(")") {
            tys = p.parse_type_list()?;
        }
        p.expect_punct(")")?;
    }
    let then_r = p.parse_region(&[], false)?;
    let else_r = if p.parse_optional_keyword("else")? { p.parse_region(&[], false)? } else { p.ctx.create_region() };
    p.parse_optional_attr_dict_with_keyword(st)?;
    st.operands = vec![cv];
    st.result_types = tys;
    st.regions = vec![then_r, else_r];
    Ok(())
}

fn print_if(p: &mut OpPrinter<'_>, op: OpId) {
    let ctx = p.ctx;
    p.write(" ");
    if let Some(&c) = ctx.operands(op).first() {
        p.print_operand(c);
    }
    let tys: Vec<Type> = ctx.results(op).iter().map(|v| ctx.value_type(*v)).collect();
    if !tys.is_empty() {
        p.write(" -> (");
        p.print_types(&tys);
        p.write(")");
    }
    let regions = ctx.regions(op).to_vec();
    if let Some(&r) = regions.first() {
        p.write(" ");
        p.print_region(r, false);
    }
    if let Some(&r) = regions.get(1) {
        if ctx.entry_block(r).is_some() {
            p.write(" else ");
            p.print_region(r, false);
        }
    }
    p.print_optional_attr_dict_with_keyword(op, &[]);
}

fn verify_work_loop(ctx: &Context, op: OpId) -> VResult {
    let w = WorkLoopOp(op);
    let body = w.body(ctx);
    let Some(b) = ctx.entry_block(body) else {
        return Err(op_error(ctx, op, "expects a body block"));
    };
    let args = ctx.block_args(b);
    if args.len() != 1 || !Index::check(ctx, ctx.value_type(args[0])) {
        return Err(op_error(ctx, op, "expects one body argument, the iteration, of type 'index'"));
    }
    // Up to the kernel: no loop around it (each block takes its last ticket once a launch).
    let mut at = ctx.parent_op(op);
    while let Some(p) = at {
        if let Some(f) = FuncOp::dyn_cast(ctx, p) {
            if f.cluster(ctx).unwrap_or(1) > 1 {
                return Err(op_error(
                    ctx,
                    op,
                    "must not be in a clustered kernel (a cluster's blocks would take different iterations)",
                ));
            }
            let n = ctx.walk_collect(p).into_iter().filter(|&o| ctx.isa::<WorkLoopOp>(o)).count();
            if n > 1 {
                return Err(op_error(
                    ctx,
                    op,
                    format!("is one of {n} in its kernel, which holds one at most (the counter is the kernel's)"),
                ));
            }
            return Ok(());
        }
        if !ctx.isa::<IfOp>(p) {
            return Err(op_error(
                ctx,
                op,
                format!("must stand in its kernel's body or in 'mgpu.if's only, not in '{}'", ctx.op_name(p)),
            ));
        }
        at = ctx.parent_op(p);
    }
    Err(op_error(ctx, op, "must stand in an 'mgpu.func'"))
}

fn parse_work_loop(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    let iv = p.parse_operand()?;
    if iv.number.is_some() {
        return Err(p.error_at(iv.loc, "expected an iteration variable name without '#'"));
    }
    p.expect_keyword("to")?;
    let ub = p.parse_operand()?;
    let it = p.ctx.index_type();
    let ubv = p.resolve_operand(&ub, it)?;
    let body = p.parse_region(&[(iv.name.clone(), it, iv.loc)], false)?;
    p.parse_optional_attr_dict_with_keyword(st)?;
    st.operands = vec![ubv];
    st.regions = vec![body];
    Ok(())
}

fn print_work_loop(p: &mut OpPrinter<'_>, op: OpId) {
    let ctx = p.ctx;
    let Some(&r) = ctx.regions(op).first() else {
        return;
    };
    p.write(" ");
    if let Some(b) = ctx.entry_block(r) {
        p.bind_block_args(b);
        if let Some(&iv) = ctx.block_args(b).first() {
            p.print_operand(iv);
        }
    }
    p.write(" to ");
    if let Some(&ub) = ctx.operands(op).first() {
        p.print_operand(ub);
    }
    p.write(" ");
    p.print_region(r, false);
    p.print_optional_attr_dict_with_keyword(op, &[]);
}

fn verify_yield(ctx: &Context, op: OpId) -> VResult {
    let parent = ctx.parent_op(op);
    if parent.is_some_and(|p| ctx.isa::<WorkLoopOp>(p)) {
        if !YieldOp(op).values(ctx).is_empty() {
            return Err(op_error(ctx, op, "yields values, but the parent 'mgpu.work_loop' has no results"));
        }
        return Ok(());
    }
    let Some(parent) = parent.and_then(|p| ctx.dyn_cast::<IfOp>(p)) else {
        return Err(op_error(ctx, op, "expects parent op 'mgpu.if' or 'mgpu.work_loop'"));
    };
    let want: Vec<Type> = parent.results(ctx).iter().map(|v| ctx.value_type(*v)).collect();
    let got: Vec<Type> = YieldOp(op).values(ctx).iter().map(|v| ctx.value_type(*v)).collect();
    if got != want {
        let list = |ts: &[Type]| ts.iter().map(|t| ctx.type_to_string(*t)).collect::<Vec<_>>().join(", ");
        return Err(op_error(
            ctx,
            op,
            format!("yields ({}), but the parent 'mgpu.if' has result types ({})", list(&got), list(&want)),
        ));
    }
    Ok(())
}
