//! `mtensor.constant`: a tensor given by a dense or splat elements attribute.

use std::rc::Rc;

use morf_ir::asm::parser::{OpParser, PResult};
use morf_ir::asm::printer::OpPrinter;
use morf_ir::builtin::op_error;
use morf_ir::interp::{array::Array, InterpResult, Machine};
use morf_ir::opdef::{AnyType, AttrConstraint};
use morf_ir::{define_op, Attr, AttrData, Context, Loc, OpId, OperationState, Type};

use super::{store_exact, VResult};

define_op! {
    /// A constant tensor: `%c = mtensor.constant dense<1.0> : tensor<4xf32>`.
    ///
    /// Attribute `value`: a dense (or splat) elements attribute; the result type is its type.
    /// A 0-d tensor is written `dense<1.0e-05> : tensor<f32>`.
    pub struct ConstantOp("mtensor.constant") {
        summary: "a constant tensor from a dense elements attribute",
        traits: [PURE, CONSTANT_LIKE],
        results: [result: AnyType],
        attrs: [value: DenseElements],
        verify: verify_constant,
        format: (parse_constant, print_constant),
        interpret: interpret_constant,
    }
}

/// A dense (or splat) elements attribute; the accessor returns the attribute.
#[derive(Copy, Clone, Debug)]
pub struct DenseElements;

impl AttrConstraint for DenseElements {
    const DESCRIPTION: &'static str = "a dense elements attribute";
    type Value<'c> = Attr;
    fn get(ctx: &Context, a: Attr) -> Option<Attr> {
        matches!(ctx.attr_data(a), AttrData::Dense { .. }).then_some(a)
    }
}

fn verify_constant(ctx: &Context, op: OpId) -> VResult {
    let c = ConstantOp(op);
    let Some(ty) = c.value(ctx).and_then(|a| ctx.attr_value_type(a)) else { return Ok(()) };
    let rt = ctx.value_type(c.result(ctx));
    if ty != rt {
        return Err(op_error(
            ctx,
            op,
            format!(
                "result type '{}' does not match the type of 'value' ('{}')",
                ctx.type_to_string(rt),
                ctx.type_to_string(ty)
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
    if let Some(a) = ConstantOp(op).value(p.ctx) {
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
    let a = ConstantOp(op).value(ctx).ok_or_else(|| op_error(ctx, op, "requires attribute 'value'"))?;
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
    Some(ConstantOp::build(ctx, loc, ty, value).id())
}
