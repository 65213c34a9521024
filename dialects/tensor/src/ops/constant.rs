//! `mtensor.constant`: a tensor given by a dense or splat elements attribute.

use std::rc::Rc;

use morf_ir::asm::parser::{OpParser, PResult};
use morf_ir::asm::printer::OpPrinter;
use morf_ir::builtin::op_error;
use morf_ir::interp::{array::Array, InterpResult, Machine};
use morf_ir::{Attr, AttrData, Context, Loc, OpId, OpInfo, OperationState, Traits, Type};

use super::{expect_counts, store_exact, VResult};

/// A constant tensor: `%c = mtensor.constant dense<1.0> : tensor<4xf32>`.
///
/// Attribute `value`: a dense (or splat) elements attribute; the result type is its type.
/// A 0-d tensor is written `dense<1.0e-05> : tensor<f32>`.
pub fn constant() -> OpInfo {
    OpInfo::new("mtensor.constant", "a constant tensor from a dense elements attribute")
        .traits(Traits::PURE | Traits::CONSTANT_LIKE)
        .verify(verify_constant)
        .format(parse_constant, print_constant)
        .interpret(interpret_constant)
}

fn verify_constant(ctx: &Context, op: OpId) -> VResult {
    expect_counts(ctx, op, 0, 1)?;
    let Some(a) = ctx.attr(op, "value") else {
        return Err(op_error(ctx, op, "requires a dense elements attribute 'value'"));
    };
    let AttrData::Dense { ty, .. } = ctx.attr_data(a) else {
        return Err(op_error(ctx, op, "requires 'value' to be a dense elements attribute"));
    };
    let rt = ctx.value_type(ctx.result(op, 0));
    if *ty != rt {
        return Err(op_error(
            ctx,
            op,
            format!(
                "result type '{}' does not match the type of 'value' ('{}')",
                ctx.type_to_string(rt),
                ctx.type_to_string(*ty)
            ),
        ));
    }
    Ok(())
}

fn parse_constant(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    p.parse_optional_attr_dict(st)?;
    let loc = p.loc();
    let a = p.parse_attribute()?;
    let Some(ty) = (match p.ctx.attr_data(a) {
        AttrData::Dense { ty, .. } => Some(*ty),
        _ => None,
    }) else {
        return Err(p.error_at(loc, "expected a dense elements attribute such as 'dense<1.0> : tensor<4xf32>'"));
    };
    st.attrs.push(("value".into(), a));
    st.result_types = vec![ty];
    Ok(())
}

fn print_constant(p: &mut OpPrinter<'_>, op: OpId) {
    p.print_optional_attr_dict(op, &["value"]);
    if let Some(a) = p.ctx.attr(op, "value") {
        p.write(" ");
        p.print_attr(a);
    }
}

/// The array a dense attribute holds.
pub(crate) fn attr_array(ctx: &Context, a: Attr) -> Option<Array> {
    let ty = ctx.attr_value_type(a)?;
    let shape: Vec<usize> =
        ctx.shape_of(ty)?.iter().map(|d| d.as_static().map(|n| n as usize)).collect::<Option<_>>()?;
    let n = shape.iter().product();
    let data = ctx.dense_values(a, n)?;
    (data.len() == n).then(|| Array::new(shape, data))
}

fn interpret_constant(m: &mut Machine, ctx: &Context, op: OpId) -> InterpResult<()> {
    let a = ctx.attr(op, "value").ok_or_else(|| op_error(ctx, op, "requires attribute 'value'"))?;
    if let Some(ty) = ctx.attr_value_type(a) {
        let shape: Vec<usize> =
            ctx.shape_of(ty).unwrap_or(&[]).iter().map(|d| d.as_static().unwrap_or(0) as usize).collect();
        morf_ir::interp::checked_elements(ctx, op, &shape)?;
    }
    let arr = attr_array(ctx, a).ok_or_else(|| op_error(ctx, op, "interpreter: malformed 'value'"))?;
    store_exact(m, ctx, op, 0, Rc::new(arr))
}

/// The dialect's constant materializer: an `mtensor.constant` holding `value` when it is a
/// dense attribute of type `ty`.
pub fn materialize_constant(ctx: &mut Context, value: Attr, ty: Type, loc: Loc) -> Option<OpId> {
    match ctx.attr_data(value) {
        AttrData::Dense { ty: t, .. } if *t == ty => {}
        _ => return None,
    }
    Some(ctx.create_op(OperationState::new("mtensor.constant", loc).attr("value", value).results(&[ty])))
}
