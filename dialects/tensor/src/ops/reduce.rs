//! `mtensor.reduce`: sum, mean, max, min or product over some dims.

use morf_ir::asm::parser::{OpParser, PResult};
use morf_ir::asm::printer::OpPrinter;
use morf_ir::builtin::op_error;
use morf_ir::interp::{InterpResult, Machine, ReduceKind};
use morf_ir::opdef::{AnyAttr, AttrConstraint, FloatTensor, IntArrayAttr, Tensor};
use morf_ir::{define_op, Attr, Context, Dim, OpId, OperationState};

use super::{ints_text, parse_input_tail, parse_int_array, store, VResult};
use crate::fold;

define_op! {
    /// A reduction over `dims`:
    /// `%r = mtensor.reduce sum %a dims [1] : tensor<?x?xf32> -> tensor<?xf32>`, or with the
    /// reduced dims kept as size 1:
    /// `%r = mtensor.reduce mean %a dims [1] keepdim : tensor<?x?xf32> -> tensor<?x1xf32>`.
    ///
    /// Attributes: `kind` (`sum`, `mean`, `max`, `min`, `prod`; printed bare), `dims`
    /// (non-empty, strictly increasing, in range) and the unit `keepdim`.
    pub struct ReduceOp("mtensor.reduce") {
        summary: "reduces a float tensor over some dims",
        traits: [PURE],
        operands: [input: FloatTensor],
        results: [result: Tensor],
        attrs: [kind: Kind, dims: IntArrayAttr],
        optional_attrs: [keepdim: AnyAttr],
        verify: verify_reduce,
        format: (parse_reduce, print_reduce),
        fold: fold::fold_reduce,
        interpret: interpret_reduce,
    }
}

/// A reduction kind spelled as a string (`"sum"`); the accessor returns a [`ReduceKind`].
#[derive(Copy, Clone, Debug)]
pub struct Kind;

impl AttrConstraint for Kind {
    const DESCRIPTION: &'static str = "a reduction kind (sum, mean, max, min, prod)";
    type Value<'c> = ReduceKind;
    fn get(ctx: &Context, a: Attr) -> Option<ReduceKind> {
        ReduceKind::from_name(ctx.attr_str(a)?)
    }
}

/// The result shape of reducing `shape` over `dims`.
pub(crate) fn reduced_shape(shape: &[Dim], dims: &[i64], keepdim: bool) -> Vec<Dim> {
    let mut out = Vec::new();
    for (i, d) in shape.iter().enumerate() {
        if dims.contains(&(i as i64)) {
            if keepdim {
                out.push(Dim::Static(1));
            }
        } else {
            out.push(*d);
        }
    }
    out
}

fn verify_reduce(ctx: &Context, op: OpId) -> VResult {
    let r = ReduceOp(op);
    let dims = r.dims(ctx).unwrap_or_default();
    let shape = super::shape(ctx, r.input(ctx));
    let elem = ctx.element_type(ctx.value_type(r.input(ctx)));
    let rank = shape.len();
    if dims.is_empty() {
        return Err(op_error(ctx, op, "expects at least one reduction dim"));
    }
    for &d in &dims {
        if d < 0 || d as usize >= rank {
            return Err(op_error(ctx, op, format!("reduction dim {d} is out of range for rank {rank}")));
        }
    }
    if !dims.windows(2).all(|w| w[0] < w[1]) {
        return Err(op_error(ctx, op, format!("reduction dims {} must be strictly increasing", ints_text(&dims))));
    }
    let keepdim = r.keepdim(ctx).is_some();
    let rt = ctx.value_type(r.result(ctx));
    let expected = reduced_shape(&shape, &dims, keepdim);
    let ok = ctx.tensor_parts(rt).is_some_and(|(s, e)| s == expected.as_slice() && e == elem);
    if !ok {
        return Err(op_error(
            ctx,
            op,
            format!(
                "result type '{}' does not match the reduced type, which has shape {} and element type '{}'",
                ctx.type_to_string(rt),
                super::dims_text(ctx, &expected),
                ctx.type_to_string(elem)
            ),
        ));
    }
    Ok(())
}

fn parse_reduce(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    let kloc = p.loc();
    let kind = p.parse_keyword("reduction kind")?;
    if ReduceKind::from_name(&kind).is_none() {
        return Err(
            p.error_at(kloc, format!("unknown reduction kind '{kind}'; expected one of sum, mean, max, min, prod"))
        );
    }
    let k = p.ctx.str_attr(&kind);
    st.attrs.push(("kind".into(), k));
    let o = p.parse_operand()?;
    p.expect_keyword("dims")?;
    let dims = parse_int_array(p)?;
    st.attrs.push(("dims".into(), dims));
    if p.parse_optional_keyword("keepdim")? {
        let u = p.ctx.unit_attr();
        st.attrs.push(("keepdim".into(), u));
    }
    parse_input_tail(p, st, &o, &[])
}

fn print_reduce(p: &mut OpPrinter<'_>, op: OpId) {
    let ctx = p.ctx;
    let kind = ctx.attr(op, "kind").and_then(|a| ctx.attr_str(a)).unwrap_or("?").to_string();
    let dims = ReduceOp(op).dims(ctx).unwrap_or_default();
    p.write(" ");
    p.write(&kind);
    p.write(" ");
    p.print_operand(ctx.operand(op, 0));
    p.write(" dims ");
    p.write(&ints_text(&dims));
    if ReduceOp(op).keepdim(ctx).is_some() {
        p.write(" keepdim");
    }
    p.print_optional_attr_dict(op, &["kind", "dims", "keepdim"]);
    super::print_arrow_types(p, op);
}

fn interpret_reduce(m: &mut Machine, ctx: &Context, op: OpId) -> InterpResult<()> {
    let r = ReduceOp(op);
    let a = m.tensor(ctx, op, r.input(ctx))?;
    let malformed = || op_error(ctx, op, "interpreter: malformed 'kind' or 'dims'");
    let kind = r.kind(ctx).ok_or_else(malformed)?;
    let dims: Vec<usize> = r.dims(ctx).ok_or_else(malformed)?.into_iter().map(|d| d as usize).collect();
    let keepdim = r.keepdim(ctx).is_some();
    store(m, ctx, op, 0, a.reduce(&dims, kind, keepdim))
}
