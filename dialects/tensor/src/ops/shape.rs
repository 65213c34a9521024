//! Shape ops: `dim`, `broadcast`, `transpose`, `reshape`, `collapse_shape` and
//! `expand_shape`. They move data but never change values.

use std::rc::Rc;

use morf_ir::asm::parser::{OpParser, PResult};
use morf_ir::asm::printer::OpPrinter;
use morf_ir::builtin::op_error;
use morf_ir::interp::{InterpResult, Machine, RtValue};
use morf_ir::opdef::{AttrConstraint, Index, IntArrayAttr, IntAttr, Tensor};
use morf_ir::{define_op, Attr, Context, Diagnostic, Dim, OpId, OperationState, Value};

use super::{
    check_sizes, dims_text, ints_text, parse_input_tail, parse_int_array, parse_optional_sizes, print_arrow_types,
    print_sizes, runtime_shape, shape, shape_text, store_exact, VResult,
};
use crate::fold;

/// The operand and result shapes of a shape op (operand `input`, result `result`), after
/// checking that their element types agree.
fn in_out_shapes(ctx: &Context, op: OpId, input: Value, result: Value) -> Result<(Vec<Dim>, Vec<Dim>), Diagnostic> {
    let (a, b) = (ctx.value_type(input), ctx.value_type(result));
    if ctx.element_type(a) != ctx.element_type(b) {
        return Err(op_error(
            ctx,
            op,
            format!(
                "operand and result element types differ ('{}' vs '{}')",
                ctx.type_to_string(ctx.element_type(a)),
                ctx.type_to_string(ctx.element_type(b))
            ),
        ));
    }
    Ok((shape(ctx, input), shape(ctx, result)))
}

// ----- dim -----

define_op! {
    /// The run-time size of one dim: `%m = mtensor.dim %x, 0 : tensor<?x?xbf16>` (an `index`).
    ///
    /// Attribute `index`: the dim, in range for the operand's rank.
    pub struct DimOp("mtensor.dim") {
        summary: "the size of one dim of a tensor, as an index",
        traits: [PURE],
        operands: [source: Tensor],
        results: [result: Index],
        attrs: [index: IntAttr],
        verify: verify_dim,
        format: (parse_dim, print_dim),
        interpret: interpret_dim,
    }
}

fn verify_dim(ctx: &Context, op: OpId) -> VResult {
    let d = DimOp(op);
    let rank = shape(ctx, d.source(ctx)).len();
    let i = d.index(ctx).unwrap_or(0);
    if i < 0 || i as usize >= rank {
        return Err(op_error(ctx, op, format!("dim index {i} is out of range for rank {rank}")));
    }
    Ok(())
}

fn parse_dim(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    let o = p.parse_operand()?;
    p.expect_punct(",")?;
    let v = p.parse_integer()?;
    let a = p.ctx.i64_attr(v);
    st.attrs.push(("index".into(), a));
    p.parse_optional_attr_dict(st)?;
    let t = p.parse_colon_type()?;
    st.operands = vec![p.resolve_operand(&o, t)?];
    st.result_types = vec![p.ctx.index_type()];
    Ok(())
}

fn print_dim(p: &mut OpPrinter<'_>, op: OpId) {
    let ctx = p.ctx;
    let v = ctx.operand(op, 0);
    p.write(" ");
    p.print_operand(v);
    let i = DimOp(op).index(ctx).unwrap_or(0);
    p.write(&format!(", {i}"));
    p.print_optional_attr_dict(op, &["index"]);
    p.write(" : ");
    p.print_type(ctx.value_type(v));
}

fn interpret_dim(m: &mut Machine, ctx: &Context, op: OpId) -> InterpResult<()> {
    let d = DimOp(op);
    let a = m.tensor(ctx, op, d.source(ctx))?;
    let i = d.index(ctx).unwrap_or(0) as usize;
    let n = *a.shape.get(i).ok_or_else(|| op_error(ctx, op, "interpreter: dim index out of range"))?;
    m.set(ctx.result(op, 0), RtValue::Int(n as i64));
    Ok(())
}

// ----- broadcast -----

define_op! {
    /// Broadcast in dims:
    /// `%b = mtensor.broadcast %w dims [1] sizes(%m, %n) : tensor<?xbf16> -> tensor<?x?xbf16>`.
    ///
    /// Operand dim `i` becomes result dim `dims[i]` (strictly increasing) and must have that
    /// size or size 1; other result dims are replicated. The `index` operands `sizes` give the
    /// dynamic result dims, one each, in order (the clause is omitted when there are none). A
    /// 0-d operand with `dims []` broadcasts a scalar.
    pub struct BroadcastOp("mtensor.broadcast") {
        summary: "broadcasts a tensor into a larger shape",
        traits: [PURE],
        operands: [input: Tensor],
        variadic: sizes: Index,
        results: [result: Tensor],
        attrs: [dims: IntArrayAttr],
        verify: verify_broadcast,
        format: (parse_broadcast, print_broadcast),
        fold: fold::fold_broadcast,
        interpret: interpret_broadcast,
    }
}

fn verify_broadcast(ctx: &Context, op: OpId) -> VResult {
    let b = BroadcastOp(op);
    let (ins, outs) = in_out_shapes(ctx, op, b.input(ctx), b.result(ctx))?;
    let dims = b.dims(ctx).unwrap_or_default();
    if dims.len() != ins.len() {
        return Err(op_error(
            ctx,
            op,
            format!("expects one entry in 'dims' per operand dim ({}), but got {}", ins.len(), dims.len()),
        ));
    }
    for &d in &dims {
        if d < 0 || d as usize >= outs.len() {
            return Err(op_error(ctx, op, format!("broadcast dim {d} is out of range for result rank {}", outs.len())));
        }
    }
    if !dims.windows(2).all(|w| w[0] < w[1]) {
        return Err(op_error(ctx, op, format!("broadcast dims {} must be strictly increasing", ints_text(&dims))));
    }
    for (i, &d) in dims.iter().enumerate() {
        if let (Dim::Static(a), Dim::Static(b)) = (ins[i], outs[d as usize]) {
            if a != b && a != 1 {
                return Err(op_error(
                    ctx,
                    op,
                    format!("operand dim {i} (size {a}) cannot broadcast to result dim {d} (size {b})"),
                ));
            }
        }
    }
    check_sizes(ctx, op, b.sizes(ctx), &outs)
}

fn parse_broadcast(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    let o = p.parse_operand()?;
    p.expect_keyword("dims")?;
    let dims = parse_int_array(p)?;
    st.attrs.push(("dims".into(), dims));
    let sizes = parse_optional_sizes(p)?;
    parse_input_tail(p, st, &o, &sizes)
}

fn print_broadcast(p: &mut OpPrinter<'_>, op: OpId) {
    let ctx = p.ctx;
    p.write(" ");
    p.print_operand(ctx.operand(op, 0));
    let dims = BroadcastOp(op).dims(ctx).unwrap_or_default();
    p.write(" dims ");
    p.write(&ints_text(&dims));
    print_sizes(p, op, 1);
    p.print_optional_attr_dict(op, &["dims"]);
    print_arrow_types(p, op);
}

fn interpret_broadcast(m: &mut Machine, ctx: &Context, op: OpId) -> InterpResult<()> {
    let b = BroadcastOp(op);
    let a = m.tensor(ctx, op, b.input(ctx))?;
    let shape = runtime_shape(m, ctx, op, ctx.value_type(b.result(ctx)), 1)?;
    let dims = b.dims(ctx).ok_or_else(|| op_error(ctx, op, "interpreter: malformed 'dims'"))?;
    let dims: Vec<usize> = dims.into_iter().map(|d| d as usize).collect();
    for (i, &d) in dims.iter().enumerate() {
        let (n, r) = (a.shape[i], shape[d]);
        if n != r && n != 1 {
            return Err(op_error(
                ctx,
                op,
                format!(
                    "operand dim {i} has run-time size {n}, which cannot broadcast to result dim {d} of size {r} (operand shape {}, result shape {})",
                    shape_text(&a.shape),
                    shape_text(&shape)
                ),
            ));
        }
    }
    if a.shape == shape {
        return store_exact(m, ctx, op, 0, a);
    }
    store_exact(m, ctx, op, 0, Rc::new(a.broadcast_in_dim(&shape, &dims)))
}

// ----- transpose -----

define_op! {
    /// Permutes dims: `%r = mtensor.transpose %a perm [1, 0] : tensor<?x384xf32> -> tensor<384x?xf32>`.
    ///
    /// Attribute `perm`: a permutation of the operand dims; result dim `i` is operand dim
    /// `perm[i]`.
    pub struct TransposeOp("mtensor.transpose") {
        summary: "permutes the dims of a tensor",
        traits: [PURE],
        operands: [input: Tensor],
        results: [result: Tensor],
        attrs: [perm: IntArrayAttr],
        verify: verify_transpose,
        format: (parse_transpose, print_transpose),
        fold: fold::fold_transpose,
        patterns: fold::transpose_patterns,
        interpret: interpret_transpose,
    }
}

fn verify_transpose(ctx: &Context, op: OpId) -> VResult {
    let t = TransposeOp(op);
    let (ins, outs) = in_out_shapes(ctx, op, t.input(ctx), t.result(ctx))?;
    let perm = t.perm(ctx).unwrap_or_default();
    let mut seen = vec![false; ins.len()];
    let ok = perm.len() == ins.len()
        && perm.iter().all(|&p| {
            let fresh = p >= 0 && (p as usize) < ins.len() && !seen[p as usize];
            if fresh {
                seen[p as usize] = true;
            }
            fresh
        });
    if !ok {
        return Err(op_error(
            ctx,
            op,
            format!("'perm' {} is not a permutation of the {} operand dims", ints_text(&perm), ins.len()),
        ));
    }
    let expected: Vec<Dim> = perm.iter().map(|&p| ins[p as usize]).collect();
    if expected != outs {
        return Err(op_error(
            ctx,
            op,
            format!(
                "result shape {} does not match the permuted operand shape {}",
                dims_text(ctx, &outs),
                dims_text(ctx, &expected)
            ),
        ));
    }
    Ok(())
}

fn parse_transpose(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    let o = p.parse_operand()?;
    p.expect_keyword("perm")?;
    let perm = parse_int_array(p)?;
    st.attrs.push(("perm".into(), perm));
    parse_input_tail(p, st, &o, &[])
}

fn print_transpose(p: &mut OpPrinter<'_>, op: OpId) {
    let ctx = p.ctx;
    p.write(" ");
    p.print_operand(ctx.operand(op, 0));
    let perm = TransposeOp(op).perm(ctx).unwrap_or_default();
    p.write(" perm ");
    p.write(&ints_text(&perm));
    p.print_optional_attr_dict(op, &["perm"]);
    print_arrow_types(p, op);
}

fn interpret_transpose(m: &mut Machine, ctx: &Context, op: OpId) -> InterpResult<()> {
    let t = TransposeOp(op);
    let a = m.tensor(ctx, op, t.input(ctx))?;
    let perm = t.perm(ctx).ok_or_else(|| op_error(ctx, op, "interpreter: malformed 'perm'"))?;
    let perm: Vec<usize> = perm.into_iter().map(|d| d as usize).collect();
    store_exact(m, ctx, op, 0, Rc::new(a.transpose(&perm)))
}

// ----- reshape -----

define_op! {
    /// Reshapes in row-major order: `%r = mtensor.reshape %a sizes(%k) : tensor<?x4xf32> -> tensor<?xf32>`.
    ///
    /// The `index` operands `sizes` give the dynamic result dims, one each. Element counts
    /// must match (checked statically when both shapes are static, at run time otherwise).
    pub struct ReshapeOp("mtensor.reshape") {
        summary: "reshapes a tensor, keeping the row-major element order",
        traits: [PURE],
        operands: [input: Tensor],
        variadic: sizes: Index,
        results: [result: Tensor],
        verify: verify_reshape,
        format: (parse_reshape, print_reshape),
        fold: fold::fold_reshape_like,
        interpret: interpret_reshape,
    }
}

fn static_count(s: &[Dim]) -> Option<u64> {
    s.iter().try_fold(1u64, |acc, d| d.as_static().map(|n| acc.saturating_mul(n)))
}

fn verify_reshape(ctx: &Context, op: OpId) -> VResult {
    let r = ReshapeOp(op);
    let (ins, outs) = in_out_shapes(ctx, op, r.input(ctx), r.result(ctx))?;
    if let (Some(a), Some(b)) = (static_count(&ins), static_count(&outs)) {
        if a != b {
            return Err(op_error(ctx, op, format!("operand has {a} elements but the result has {b}")));
        }
    }
    check_sizes(ctx, op, r.sizes(ctx), &outs)
}

fn parse_reshape(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    let o = p.parse_operand()?;
    let sizes = parse_optional_sizes(p)?;
    parse_input_tail(p, st, &o, &sizes)
}

fn print_reshape(p: &mut OpPrinter<'_>, op: OpId) {
    p.write(" ");
    p.print_operand(p.ctx.operand(op, 0));
    print_sizes(p, op, 1);
    p.print_optional_attr_dict(op, &[]);
    print_arrow_types(p, op);
}

fn interpret_reshape(m: &mut Machine, ctx: &Context, op: OpId) -> InterpResult<()> {
    let r = ReshapeOp(op);
    let a = m.tensor(ctx, op, r.input(ctx))?;
    let rt = ctx.value_type(r.result(ctx));
    let shape = runtime_shape(m, ctx, op, rt, 1)?;
    let n: usize = shape.iter().product();
    if n != a.num_elements() {
        return Err(op_error(
            ctx,
            op,
            format!(
                "cannot reshape {} elements (shape {}) into shape {} ({n} elements)",
                a.num_elements(),
                shape_text(&a.shape),
                shape_text(&shape)
            ),
        ));
    }
    store_exact(m, ctx, op, 0, Rc::new(a.reshape(shape)))
}

// ----- collapse_shape / expand_shape -----

/// An array of arrays of integers (`[[0, 1], [2]]`); the accessor returns the groups.
#[derive(Copy, Clone, Debug)]
pub struct Reassociation;

impl AttrConstraint for Reassociation {
    const DESCRIPTION: &'static str = "an array of arrays of integers";
    type Value<'c> = Vec<Vec<i64>>;
    fn get(ctx: &Context, a: Attr) -> Option<Vec<Vec<i64>>> {
        ctx.attr_array(a)?.iter().map(|g| ctx.attr_int_array(*g)).collect()
    }
}

/// Checks that `groups` cover `0..rank` of the higher-rank side `big` contiguously and in
/// order. An empty list is allowed when that side is all 1s.
fn check_reassociation(ctx: &Context, op: OpId, groups: &[Vec<i64>], big: &[Dim]) -> Result<(), Diagnostic> {
    if groups.is_empty() {
        if big.iter().all(|d| *d == Dim::Static(1)) {
            return Ok(());
        }
        return Err(op_error(ctx, op, "an empty 'reassociation' requires every dim of the expanded shape to be 1"));
    }
    let mut next = 0i64;
    for g in groups {
        if g.is_empty() || g.iter().enumerate().any(|(k, &d)| d != next + k as i64) {
            return Err(op_error(
                ctx,
                op,
                format!(
                    "'reassociation' must split dims 0..{} into non-empty groups of consecutive dims, in order",
                    big.len()
                ),
            ));
        }
        next += g.len() as i64;
    }
    if next as usize != big.len() {
        return Err(op_error(
            ctx,
            op,
            format!("'reassociation' covers {next} dims, but the expanded shape has rank {}", big.len()),
        ));
    }
    Ok(())
}

/// The collapsed dim of a group: the product when all static, else dynamic.
fn collapsed_dim(big: &[Dim], g: &[i64]) -> Dim {
    g.iter()
        .try_fold(1u64, |acc, &d| big[d as usize].as_static().map(|n| acc.saturating_mul(n)))
        .map_or(Dim::Dynamic, Dim::Static)
}

fn parse_reassoc(p: &mut OpParser<'_>) -> PResult<Attr> {
    let loc = p.loc();
    let a = p.parse_attribute()?;
    if Reassociation::get(p.ctx, a).is_none() {
        return Err(p.error_at(loc, "expected a reassociation such as '[[0, 1], [2]]'"));
    }
    Ok(a)
}

fn print_reassoc(p: &mut OpPrinter<'_>, op: OpId) {
    let ctx = p.ctx;
    let groups: Vec<String> = ctx
        .attr(op, "reassociation")
        .and_then(|a| Reassociation::get(ctx, a))
        .unwrap_or_default()
        .iter()
        .map(|g| ints_text(g))
        .collect();
    p.write(&format!(" [{}]", groups.join(", ")));
}

define_op! {
    /// Merges groups of consecutive dims:
    /// `%r = mtensor.collapse_shape %a [[0, 1], [2]] : tensor<?x4x8xf32> -> tensor<?x8xf32>`.
    ///
    /// Attribute `reassociation`: result dim `i` is the product of the operand dims in group
    /// `i`; it is static exactly when they all are.
    pub struct CollapseShapeOp("mtensor.collapse_shape") {
        summary: "merges groups of consecutive dims",
        traits: [PURE],
        operands: [input: Tensor],
        results: [result: Tensor],
        attrs: [reassociation: Reassociation],
        verify: verify_collapse,
        format: (parse_collapse, print_collapse),
        fold: fold::fold_reshape_like,
        interpret: interpret_collapse,
    }
}

fn verify_collapse(ctx: &Context, op: OpId) -> VResult {
    let c = CollapseShapeOp(op);
    let (ins, outs) = in_out_shapes(ctx, op, c.input(ctx), c.result(ctx))?;
    let groups = c.reassociation(ctx).unwrap_or_default();
    check_reassociation(ctx, op, &groups, &ins)?;
    let expected: Vec<Dim> = groups.iter().map(|g| collapsed_dim(&ins, g)).collect();
    if expected != outs {
        return Err(op_error(
            ctx,
            op,
            format!(
                "result shape {} does not match the collapsed operand shape {}",
                dims_text(ctx, &outs),
                dims_text(ctx, &expected)
            ),
        ));
    }
    Ok(())
}

fn parse_collapse(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    let o = p.parse_operand()?;
    let r = parse_reassoc(p)?;
    st.attrs.push(("reassociation".into(), r));
    parse_input_tail(p, st, &o, &[])
}

fn print_collapse(p: &mut OpPrinter<'_>, op: OpId) {
    p.write(" ");
    p.print_operand(p.ctx.operand(op, 0));
    print_reassoc(p, op);
    p.print_optional_attr_dict(op, &["reassociation"]);
    print_arrow_types(p, op);
}

fn interpret_collapse(m: &mut Machine, ctx: &Context, op: OpId) -> InterpResult<()> {
    let c = CollapseShapeOp(op);
    let a = m.tensor(ctx, op, c.input(ctx))?;
    let groups = c.reassociation(ctx).unwrap_or_default();
    let shape: Vec<usize> = groups.iter().map(|g| g.iter().map(|&d| a.shape[d as usize]).product()).collect();
    store_exact(m, ctx, op, 0, Rc::new(a.reshape(shape)))
}

define_op! {
    /// Splits dims into groups of consecutive dims:
    /// `%r = mtensor.expand_shape %a [[0, 1], [2]] sizes(%m) : tensor<?x8xf32> -> tensor<?x4x8xf32>`.
    ///
    /// Attribute `reassociation`: operand dim `i` is the product of the result dims in group
    /// `i`. The `index` operands `sizes` give the dynamic result dims, one each; products are
    /// checked statically when a group and its operand dim are static, at run time otherwise.
    pub struct ExpandShapeOp("mtensor.expand_shape") {
        summary: "splits dims into groups of consecutive dims",
        traits: [PURE],
        operands: [input: Tensor],
        variadic: sizes: Index,
        results: [result: Tensor],
        attrs: [reassociation: Reassociation],
        verify: verify_expand,
        format: (parse_expand, print_expand),
        fold: fold::fold_reshape_like,
        interpret: interpret_expand,
    }
}

fn verify_expand(ctx: &Context, op: OpId) -> VResult {
    let e = ExpandShapeOp(op);
    let (ins, outs) = in_out_shapes(ctx, op, e.input(ctx), e.result(ctx))?;
    let groups = e.reassociation(ctx).unwrap_or_default();
    check_reassociation(ctx, op, &groups, &outs)?;
    if groups.is_empty() && !ins.is_empty() {
        return Err(op_error(ctx, op, "an empty 'reassociation' requires a 0-d operand"));
    }
    if !groups.is_empty() && groups.len() != ins.len() {
        return Err(op_error(
            ctx,
            op,
            format!("'reassociation' has {} groups, but the operand has rank {}", groups.len(), ins.len()),
        ));
    }
    for (i, g) in groups.iter().enumerate() {
        if let (Dim::Static(n), Dim::Static(p)) = (ins[i], collapsed_dim(&outs, g)) {
            if n != p {
                return Err(op_error(
                    ctx,
                    op,
                    format!(
                        "result dims {} of group {i} hold {p} elements, but operand dim {i} has size {n}",
                        ints_text(g)
                    ),
                ));
            }
        }
    }
    check_sizes(ctx, op, e.sizes(ctx), &outs)
}

fn parse_expand(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    let o = p.parse_operand()?;
    let r = parse_reassoc(p)?;
    st.attrs.push(("reassociation".into(), r));
    let sizes = parse_optional_sizes(p)?;
    parse_input_tail(p, st, &o, &sizes)
}

fn print_expand(p: &mut OpPrinter<'_>, op: OpId) {
    p.write(" ");
    p.print_operand(p.ctx.operand(op, 0));
    print_reassoc(p, op);
    print_sizes(p, op, 1);
    p.print_optional_attr_dict(op, &["reassociation"]);
    print_arrow_types(p, op);
}

fn interpret_expand(m: &mut Machine, ctx: &Context, op: OpId) -> InterpResult<()> {
    let e = ExpandShapeOp(op);
    let a = m.tensor(ctx, op, e.input(ctx))?;
    let shape = runtime_shape(m, ctx, op, ctx.value_type(e.result(ctx)), 1)?;
    let groups = e.reassociation(ctx).unwrap_or_default();
    for (i, g) in groups.iter().enumerate() {
        let p: usize = g.iter().map(|&d| shape[d as usize]).product();
        if p != a.shape[i] {
            return Err(op_error(
                ctx,
                op,
                format!(
                    "result dims {} of group {i} have run-time sizes holding {p} elements, but operand dim {i} has size {}",
                    ints_text(g),
                    a.shape[i]
                ),
            ));
        }
    }
    if shape.iter().product::<usize>() != a.num_elements() {
        return Err(op_error(
            ctx,
            op,
            format!("cannot expand shape {} into {}", shape_text(&a.shape), shape_text(&shape)),
        ));
    }
    store_exact(m, ctx, op, 0, Rc::new(a.reshape(shape)))
}
