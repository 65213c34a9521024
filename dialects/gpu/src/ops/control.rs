//! Control flow inside kernels: `if` (with an optional `else`, possibly yielding values) and
//! its terminator `yield`. Loops are `mloop.for`.
//!
//! ```mlir
//! %r = mgpu.if %cond -> (f32) {
//!   mgpu.yield %a : f32
//! } else {
//!   mgpu.yield %b : f32
//! }
//! ```

use morf_ir::asm::formats::{parse_operands_colon_types, print_operands_colon_types};
use morf_ir::asm::parser::{OpParser, PResult};
use morf_ir::asm::printer::OpPrinter;
use morf_ir::builtin::op_error;
use morf_ir::opdef::{AnyType, I1};
use morf_ir::{define_op, Context, OpId, OperationState, Type};

use super::{interpret_in_kernel_only, VResult};

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
    /// Ends a region of `mgpu.if`: `mgpu.yield` or `mgpu.yield %a, %b : f32, f32`, with the
    /// parent's result types.
    pub struct YieldOp("mgpu.yield") {
        summary: "ends a region of mgpu.if, yielding its values",
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

fn verify_yield(ctx: &Context, op: OpId) -> VResult {
    let Some(parent) = ctx.parent_op(op).and_then(|p| ctx.dyn_cast::<IfOp>(p)) else {
        return Err(op_error(ctx, op, "expects parent op 'mgpu.if'"));
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
