//! Elementwise ops: binary float math (`add`, `sub`, `mul`, `div`, `max`, `min`, `pow`),
//! unary float math (`neg`, `exp`, `log`, `sqrt`, `rsqrt`, `tanh`, `abs`), comparison
//! (`cmp`), selection (`select`) and float conversion (`convert`).
//!
//! Every elementwise op computes in f64 and rounds once, to the result element type.

use std::rc::Rc;

use morf_ir::asm::formats::{
    parse_operand_colon_type_to_type, parse_operands_colon_type, parse_predicate_operands_colon_type,
    print_operand_colon_type_to_type, print_operands_colon_type, print_predicate_operands_colon_type,
};
use morf_ir::asm::parser::{OpParser, PResult};
use morf_ir::asm::printer::OpPrinter;
use morf_ir::builtin::op_error;
use morf_ir::interp::{array::Array, InterpResult, Machine};
use morf_ir::numerics;
use morf_ir::{Context, OpId, OpInfo, OperationState, Traits, TypeData};

use super::{expect_counts, float_tensor_of, shape_text, store, store_exact, tensor_of, VResult};
use crate::fold;

// ----- kernels (shared by the interpreter and the constant folder) -----

/// Applies the binary op `name` (`mtensor.add`, ...) to same-shaped arrays, in f64
/// ([`morf_ir::numerics::binary`]).
pub(crate) fn apply_binary(name: &str, a: &Array, b: &Array) -> Option<Array> {
    let f = numerics::binary(name.strip_prefix("mtensor.")?)?;
    Some(a.zip(b, f))
}

/// Applies the unary op `name` (`mtensor.neg`, ...) in f64 ([`morf_ir::numerics::unary`]).
pub(crate) fn apply_unary(name: &str, a: &Array) -> Option<Array> {
    let f = numerics::unary(name.strip_prefix("mtensor.")?)?;
    Some(a.map(f))
}

/// The comparison predicates, by name.
pub const PREDICATES: [&str; 6] = ["eq", "ne", "lt", "le", "gt", "ge"];

/// Compares elementwise with IEEE semantics (any comparison with NaN is false except `ne`);
/// true is 1.0, false 0.0.
pub(crate) fn apply_cmp(pred: &str, a: &Array, b: &Array) -> Option<Array> {
    let c = numerics::compare(pred)?;
    Some(a.zip(b, |x, y| if c(x, y) { 1.0 } else { 0.0 }))
}

fn same_runtime_shape(ctx: &Context, op: OpId, arrays: &[&Array]) -> InterpResult<()> {
    for a in &arrays[1..] {
        if a.shape != arrays[0].shape {
            return Err(op_error(
                ctx,
                op,
                format!(
                    "operands have different run-time shapes {} and {}",
                    shape_text(&arrays[0].shape),
                    shape_text(&a.shape)
                ),
            ));
        }
    }
    Ok(())
}

// ----- binary -----

/// A binary float op: `%r = mtensor.add %a, %b : tensor<?x384xf32>`.
///
/// `name` is one of `mtensor.add`, `sub`, `mul`, `div`, `max`, `min`, `pow`. Operands and
/// result share one type whose elements are floats.
pub fn binary(name: &'static str, summary: &'static str) -> OpInfo {
    let mut traits = Traits::PURE | Traits::ELEMENTWISE | Traits::SAME_OPERANDS_AND_RESULT_TYPE;
    if matches!(name, "mtensor.add" | "mtensor.mul" | "mtensor.max" | "mtensor.min") {
        traits = traits | Traits::COMMUTATIVE;
    }
    OpInfo::new(name, summary)
        .traits(traits)
        .verify(verify_binary)
        .format(parse_operands_colon_type, print_operands_colon_type)
        .fold(fold::fold_binary)
        .interpret(interpret_binary)
}

fn verify_binary(ctx: &Context, op: OpId) -> VResult {
    expect_counts(ctx, op, 2, 1)?;
    float_tensor_of(ctx, op, ctx.operand(op, 0), "operand")?;
    Ok(())
}

fn interpret_binary(m: &mut Machine, ctx: &Context, op: OpId) -> InterpResult<()> {
    let a = m.tensor(ctx, op, ctx.operand(op, 0))?;
    let b = m.tensor(ctx, op, ctx.operand(op, 1))?;
    same_runtime_shape(ctx, op, &[&a, &b])?;
    let r = apply_binary(ctx.op_name(op), &a, &b).ok_or_else(|| op_error(ctx, op, "interpreter: unknown binary op"))?;
    store(m, ctx, op, 0, r)
}

// ----- unary -----

/// A unary float op: `%r = mtensor.exp %a : tensor<?xf32>`.
///
/// `name` is one of `mtensor.neg`, `exp`, `log`, `sqrt`, `rsqrt`, `tanh`, `abs`.
pub fn unary(name: &'static str, summary: &'static str) -> OpInfo {
    OpInfo::new(name, summary)
        .traits(Traits::PURE | Traits::ELEMENTWISE | Traits::SAME_OPERANDS_AND_RESULT_TYPE)
        .verify(verify_unary)
        .format(parse_operands_colon_type, print_operands_colon_type)
        .fold(fold::fold_unary)
        .interpret(interpret_unary)
}

fn verify_unary(ctx: &Context, op: OpId) -> VResult {
    expect_counts(ctx, op, 1, 1)?;
    float_tensor_of(ctx, op, ctx.operand(op, 0), "operand")?;
    Ok(())
}

fn interpret_unary(m: &mut Machine, ctx: &Context, op: OpId) -> InterpResult<()> {
    let a = m.tensor(ctx, op, ctx.operand(op, 0))?;
    let r = apply_unary(ctx.op_name(op), &a).ok_or_else(|| op_error(ctx, op, "interpreter: unknown unary op"))?;
    store(m, ctx, op, 0, r)
}

// ----- cmp -----

/// Elementwise comparison with an i1 result of the same shape:
/// `%c = mtensor.cmp lt, %a, %b : tensor<?xf32>`.
///
/// Attribute `predicate`: one of `eq`, `ne`, `lt`, `le`, `gt`, `ge` (printed bare).
pub fn cmp() -> OpInfo {
    OpInfo::new("mtensor.cmp", "elementwise comparison producing an i1 tensor")
        .traits(Traits::PURE | Traits::ELEMENTWISE | Traits::SAME_OPERANDS_AND_RESULT_SHAPE)
        .verify(verify_cmp)
        .format(parse_cmp, print_predicate_operands_colon_type)
        .fold(fold::fold_cmp)
        .interpret(interpret_cmp)
}

fn verify_cmp(ctx: &Context, op: OpId) -> VResult {
    expect_counts(ctx, op, 2, 1)?;
    let pred = super::str_attr(ctx, op, "predicate")?;
    if !PREDICATES.contains(&pred) {
        return Err(op_error(ctx, op, format!("unknown predicate '{pred}'; expected one of eq, ne, lt, le, gt, ge")));
    }
    let (shape, elem) = tensor_of(ctx, op, ctx.operand(op, 0), "operand")?;
    let (ta, tb) = (ctx.value_type(ctx.operand(op, 0)), ctx.value_type(ctx.operand(op, 1)));
    if ta != tb {
        return Err(op_error(
            ctx,
            op,
            format!(
                "requires both operands to have one type ('{}' vs '{}')",
                ctx.type_to_string(ta),
                ctx.type_to_string(tb)
            ),
        ));
    }
    if !ctx.is_float(elem) && !ctx.is_int_or_index(elem) {
        return Err(op_error(ctx, op, "operands must have float or integer elements"));
    }
    let rt = ctx.value_type(ctx.result(op, 0));
    let ok = ctx
        .tensor_parts(rt)
        .is_some_and(|(s, e)| s == shape.as_slice() && matches!(ctx.type_data(e), TypeData::Integer(1)));
    if !ok {
        return Err(op_error(
            ctx,
            op,
            format!("result must be an i1 tensor of the operand shape, got '{}'", ctx.type_to_string(rt)),
        ));
    }
    Ok(())
}

fn parse_cmp(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    let ty = parse_predicate_operands_colon_type(p, st)?;
    let i1 = p.ctx.i1_type();
    st.result_types = vec![p.ctx.with_element_type(ty, i1)];
    Ok(())
}

fn interpret_cmp(m: &mut Machine, ctx: &Context, op: OpId) -> InterpResult<()> {
    let a = m.tensor(ctx, op, ctx.operand(op, 0))?;
    let b = m.tensor(ctx, op, ctx.operand(op, 1))?;
    same_runtime_shape(ctx, op, &[&a, &b])?;
    let pred = super::str_attr(ctx, op, "predicate")?;
    let r = apply_cmp(pred, &a, &b).ok_or_else(|| op_error(ctx, op, format!("unknown predicate '{pred}'")))?;
    store(m, ctx, op, 0, r)
}

// ----- select -----

/// Elementwise choice: `%r = mtensor.select %c, %a, %b : tensor<?xi1>, tensor<?xf32>`.
///
/// `%c` is an i1 tensor of the shape of `%a`; `%a`, `%b` and the result share one type.
pub fn select() -> OpInfo {
    OpInfo::new("mtensor.select", "elementwise choice between two tensors by an i1 tensor")
        .traits(Traits::PURE | Traits::ELEMENTWISE)
        .verify(verify_select)
        .format(parse_select, print_select)
        .fold(fold::fold_select)
        .interpret(interpret_select)
}

fn verify_select(ctx: &Context, op: OpId) -> VResult {
    expect_counts(ctx, op, 3, 1)?;
    let (cs, ce) = tensor_of(ctx, op, ctx.operand(op, 0), "condition")?;
    if !matches!(ctx.type_data(ce), TypeData::Integer(1)) {
        return Err(op_error(
            ctx,
            op,
            format!(
                "condition must be a tensor of i1 elements, got '{}'",
                ctx.type_to_string(ctx.value_type(ctx.operand(op, 0)))
            ),
        ));
    }
    let (vs, _) = tensor_of(ctx, op, ctx.operand(op, 1), "true value")?;
    let ty = ctx.value_type(ctx.operand(op, 1));
    for (v, what) in [(ctx.operand(op, 2), "false value"), (ctx.result(op, 0), "result")] {
        if ctx.value_type(v) != ty {
            return Err(op_error(
                ctx,
                op,
                format!(
                    "requires the true value, false value and result to have one type ('{}' vs '{}' for the {what})",
                    ctx.type_to_string(ty),
                    ctx.type_to_string(ctx.value_type(v))
                ),
            ));
        }
    }
    if cs != vs {
        return Err(op_error(
            ctx,
            op,
            format!(
                "condition shape {} does not match value shape {}",
                super::dims_text(ctx, &cs),
                super::dims_text(ctx, &vs)
            ),
        ));
    }
    Ok(())
}

fn parse_select(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    let loc = p.loc();
    let ops = p.parse_operand_list()?;
    p.parse_optional_attr_dict(st)?;
    let ct = p.parse_colon_type()?;
    p.expect_punct(",")?;
    let ty = p.parse_type()?;
    st.operands = p.resolve_operands(&ops, &[ct, ty, ty], loc)?;
    st.result_types = vec![ty];
    Ok(())
}

fn print_select(p: &mut OpPrinter<'_>, op: OpId) {
    let ops = p.ctx.operands(op).to_vec();
    p.write(" ");
    p.print_operands(&ops);
    p.print_optional_attr_dict(op, &[]);
    p.write(" : ");
    let (ct, ty) = (p.ctx.value_type(ops[0]), p.ctx.value_type(p.ctx.result(op, 0)));
    p.print_type(ct);
    p.write(", ");
    p.print_type(ty);
}

fn interpret_select(m: &mut Machine, ctx: &Context, op: OpId) -> InterpResult<()> {
    let c = m.tensor(ctx, op, ctx.operand(op, 0))?;
    let a = m.tensor(ctx, op, ctx.operand(op, 1))?;
    let b = m.tensor(ctx, op, ctx.operand(op, 2))?;
    same_runtime_shape(ctx, op, &[&c, &a, &b])?;
    let r = Array::zip3(&c, &a, &b, |c, a, b| if c != 0.0 { a } else { b });
    store_exact(m, ctx, op, 0, Rc::new(r))
}

// ----- convert -----

/// Float conversion, rounding to nearest even:
/// `%r = mtensor.convert %a : tensor<?x?xbf16> to tensor<?x?xf32>`.
///
/// Between `f16`, `bf16`, `f32` and `f64` tensors of one shape.
pub fn convert() -> OpInfo {
    OpInfo::new("mtensor.convert", "converts a float tensor to another float element type")
        .traits(Traits::PURE | Traits::ELEMENTWISE | Traits::SAME_OPERANDS_AND_RESULT_SHAPE)
        .verify(verify_convert)
        .format(parse_operand_colon_type_to_type, print_operand_colon_type_to_type)
        .fold(fold::fold_convert)
        .patterns(fold::convert_patterns)
        .interpret(interpret_convert)
}

fn verify_convert(ctx: &Context, op: OpId) -> VResult {
    expect_counts(ctx, op, 1, 1)?;
    let (s, _) = float_tensor_of(ctx, op, ctx.operand(op, 0), "operand")?;
    let (rs, _) = float_tensor_of(ctx, op, ctx.result(op, 0), "result")?;
    if s != rs {
        return Err(op_error(
            ctx,
            op,
            format!(
                "operand shape {} does not match result shape {}",
                super::dims_text(ctx, &s),
                super::dims_text(ctx, &rs)
            ),
        ));
    }
    Ok(())
}

fn interpret_convert(m: &mut Machine, ctx: &Context, op: OpId) -> InterpResult<()> {
    let a = m.tensor(ctx, op, ctx.operand(op, 0))?;
    let (src, dst) = (ctx.value_type(ctx.operand(op, 0)), ctx.value_type(ctx.result(op, 0)));
    if ctx.element_type(src) == ctx.element_type(dst) {
        return store_exact(m, ctx, op, 0, a);
    }
    store(m, ctx, op, 0, (*a).clone())
}
