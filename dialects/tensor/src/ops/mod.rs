//! The ops of the `mtensor` dialect, one file per group, plus the helpers they share:
//! shape checks for verifiers, pieces of the custom assembly formats, and run-time shape
//! and rounding helpers for the interpreter.
//!
//! Every op is one [`morf_ir::define_op!`] item in its group file, which gives its typed
//! handle (`AddOp`, `ReduceOp`, ...), re-exported here, its accessors, builder and the
//! generated verifier of counts, type constraints and attributes.

pub mod constant;
pub mod elementwise;
pub mod reduce;
pub mod shape;

pub use constant::ConstantOp;
// The elementwise ops include one per entry of the function lists: a glob keeps them
// exported as entries are added.
pub use elementwise::*;
pub use reduce::ReduceOp;
pub use shape::{BroadcastOp, CollapseShapeOp, DimOp, ExpandShapeOp, ReshapeOp, TransposeOp};

use morf_ir::asm::parser::{OpParser, PResult, UnresolvedOperand};
use morf_ir::asm::printer::OpPrinter;
pub(crate) use morf_ir::builtin::{op_error, plural};
use morf_ir::interp::{array::Array, check_shape, checked_elements, InterpResult, Machine, RtValue};
use morf_ir::{Attr, Context, Diagnostic, Dim, OpId, OperationState, Type, TypeData, Value};

/// Result of a verifier.
pub(crate) type VResult = Result<(), Diagnostic>;

/// The shape of `v`'s type (empty when it is no tensor; the generated verifier rejects those).
pub(crate) fn shape(ctx: &Context, v: Value) -> Vec<Dim> {
    ctx.shape_of(ctx.value_type(v)).unwrap_or(&[]).to_vec()
}

/// Number of dynamic dims.
pub(crate) fn dynamic_count(shape: &[Dim]) -> usize {
    shape.iter().filter(|d| matches!(d, Dim::Dynamic)).count()
}

/// Checks that `sizes` are one size per dynamic dim of `result` (the generated verifier
/// checks that they are `index` values).
pub(crate) fn check_sizes(ctx: &Context, op: OpId, sizes: &[Value], result: &[Dim]) -> VResult {
    let want = dynamic_count(result);
    if sizes.len() != want {
        return Err(op_error(
            ctx,
            op,
            format!("expects {want} size operand{}, one per dynamic result dim, but got {}", plural(want), sizes.len()),
        ));
    }
    Ok(())
}

/// `[1, 0]`.
pub(crate) fn ints_text(v: &[i64]) -> String {
    format!("[{}]", v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", "))
}

/// Shape text for messages: `[?, 4]`.
pub(crate) fn dims_text(ctx: &Context, v: &[Dim]) -> String {
    format!("[{}]", v.iter().map(|d| ctx.dim_to_string(*d)).collect::<Vec<_>>().join(", "))
}

// ----- custom format pieces -----

/// Parses an array-of-integers attribute such as `[1, 0]`.
pub(crate) fn parse_int_array(p: &mut OpParser<'_>) -> PResult<Attr> {
    let loc = p.loc();
    let a = p.parse_attribute()?;
    if p.ctx.attr_int_array(a).is_none() {
        return Err(p.error_at(loc, "expected an array of integers such as '[0, 1]'"));
    }
    Ok(a)
}

/// Parses an optional `sizes(%a, %b)` clause.
pub(crate) fn parse_optional_sizes(p: &mut OpParser<'_>) -> PResult<Vec<UnresolvedOperand>> {
    if !p.parse_optional_keyword("sizes")? {
        return Ok(Vec::new());
    }
    p.expect_punct("(")?;
    let v = p.parse_operand_list()?;
    p.expect_punct(")")?;
    Ok(v)
}

/// Parses the tail `{attrs} : T0 -> T1` shared by the one-input ops, resolving `input` as a
/// `T0` and `sizes` as `index` values, with result type `T1`.
pub(crate) fn parse_input_tail(
    p: &mut OpParser<'_>,
    st: &mut OperationState,
    input: &UnresolvedOperand,
    sizes: &[UnresolvedOperand],
) -> PResult<()> {
    p.parse_optional_attr_dict(st)?;
    let a = p.parse_colon_type()?;
    p.expect_punct("->")?;
    let b = p.parse_type()?;
    let idx = p.ctx.index_type();
    let mut operands = vec![p.resolve_operand(input, a)?];
    for s in sizes {
        operands.push(p.resolve_operand(s, idx)?);
    }
    st.operands = operands;
    st.result_types = vec![b];
    Ok(())
}

/// Prints ` sizes(%a, %b)` for the operands from `first` on (nothing if none).
pub(crate) fn print_sizes(p: &mut OpPrinter<'_>, op: OpId, first: usize) {
    let sizes = p.ctx.operands(op).get(first..).unwrap_or(&[]).to_vec();
    if !sizes.is_empty() {
        p.write(" sizes(");
        p.print_operands(&sizes);
        p.write(")");
    }
}

/// Prints ` : T0 -> T1` for operand 0 and result 0.
pub(crate) fn print_arrow_types(p: &mut OpPrinter<'_>, op: OpId) {
    let a = p.ctx.value_type(p.ctx.operand(op, 0));
    let b = p.ctx.value_type(p.ctx.result(op, 0));
    p.write(" : ");
    p.print_type(a);
    p.write(" -> ");
    p.print_type(b);
}

// ----- interpreter helpers -----

/// The run-time shape of result type `ty`: static dims from the type, dynamic ones from the
/// `index` operands of `op` from `first` on, in order.
pub(crate) fn runtime_shape(m: &Machine, ctx: &Context, op: OpId, ty: Type, first: usize) -> InterpResult<Vec<usize>> {
    let dims = ctx.shape_of(ty).unwrap_or(&[]).to_vec();
    let mut sizes = ctx.operands(op)[first..].iter();
    let mut out = Vec::with_capacity(dims.len());
    for (i, d) in dims.iter().enumerate() {
        match d {
            Dim::Static(n) => out.push(*n as usize),
            Dim::Dynamic => {
                let v = sizes.next().ok_or_else(|| op_error(ctx, op, "interpreter: missing size operand"))?;
                let n = m.int(ctx, op, *v)?;
                if n < 0 {
                    return Err(op_error(ctx, op, format!("size {n} for result dim {i} is negative")));
                }
                out.push(n as usize);
            }
        }
    }
    checked_elements(ctx, op, &out)?;
    Ok(out)
}

/// Rounds `a` to what storing it into elements of type `elem` gives.
pub(crate) fn round_array(ctx: &Context, elem: Type, a: &mut Array) {
    match ctx.type_data(elem) {
        TypeData::Float(k) => a.round_to(*k),
        TypeData::Integer(1) => a.data.iter_mut().for_each(|v| *v = if *v != 0.0 { 1.0 } else { 0.0 }),
        TypeData::Integer(_) | TypeData::Index => a.data.iter_mut().for_each(|v| *v = v.trunc()),
        _ => {}
    }
}

/// Rounds `a` to the element type of result `i` of `op`, checks its shape against the
/// result type and binds it.
pub(crate) fn store(m: &mut Machine, ctx: &Context, op: OpId, i: usize, mut a: Array) -> InterpResult<()> {
    let r = ctx.result(op, i);
    let ty = ctx.value_type(r);
    check_shape(ctx, op, ty, &a.shape)?;
    let elem = ctx.element_type(ty);
    round_array(ctx, elem, &mut a);
    m.set(r, RtValue::Tensor { elem, array: std::rc::Rc::new(a) });
    Ok(())
}

/// Like [`store`], for an array already rounded to the result's element type.
pub(crate) fn store_exact(
    m: &mut Machine,
    ctx: &Context,
    op: OpId,
    i: usize,
    a: std::rc::Rc<Array>,
) -> InterpResult<()> {
    let r = ctx.result(op, i);
    let ty = ctx.value_type(r);
    check_shape(ctx, op, ty, &a.shape)?;
    m.set(r, RtValue::Tensor { elem: ctx.element_type(ty), array: a });
    Ok(())
}

/// `[2, 3]`.
pub(crate) fn shape_text(s: &[usize]) -> String {
    format!("[{}]", s.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", "))
}
