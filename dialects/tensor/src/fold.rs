//! Folders and canonicalization patterns of the `mtensor` dialect.
//!
//! Folders (the `fold` hook) either compute a constant from constant operands, which the
//! dialect materializes as an `mtensor.constant`, or return an existing value:
//!
//! - constant folding of every elementwise op, `convert`, `cmp` and `select`; splat
//!   operands give splat results, so folding never expands a splat;
//! - `broadcast`, `transpose`, `reshape`, `collapse_shape`, `expand_shape` of a constant
//!   and `reduce` of a splat constant, when the result type is static;
//! - identities: `x + 0`, `0 + x`, `x - 0`, `x * 1`, `1 * x`, `x / 1` (zero and one are
//!   splat constants; `0` matches both `+0.0` and `-0.0`), `neg(neg(x))`, `convert` to the
//!   operand's own type, `convert(convert(x))` back to `x`'s type when the middle type holds
//!   every value of `x`'s type exactly, `transpose` with the identity permutation, `select`
//!   with a splat condition or with equal branches, and shape ops whose static result type
//!   equals the operand type.
//!
//! Patterns rewrite in place: `convert(convert(x))` becomes one `convert(x)` when the first
//! conversion is exact (`f32 -> f64 -> bf16` is `f32 -> bf16`, but `f32 -> bf16 -> f32`
//! stays), and `transpose(transpose(x))` becomes one transpose with the composed
//! permutation.

use morf_ir::interfaces::{elementwise, BinaryFn, Elementwise};
use morf_ir::interp::array::Array;
use morf_ir::interp::ReduceKind;
use morf_ir::rewrite::{RewritePattern, Rewriter};
use morf_ir::{Attr, AttrData, Context, Dim, FloatKind, FoldResult, OpId, Type, Value};

use crate::ops::constant::attr_array;
use crate::ops::elementwise::apply;
use crate::ops::{ConvertOp, NegOp, ReduceOp, TransposeOp};

/// Largest number of elements a non-splat constant fold may produce.
const MAX_FOLD_ELEMENTS: usize = 1 << 20;

fn result_type(ctx: &Context, op: OpId) -> Type {
    ctx.value_type(ctx.result(op, 0))
}

fn is_static(ctx: &Context, ty: Type) -> bool {
    ctx.shape_of(ty).is_some_and(|s| s.iter().all(|d| d.as_static().is_some()))
}

fn is_splat(ctx: &Context, a: Attr) -> bool {
    matches!(ctx.attr_data(a), AttrData::Dense { splat: true, .. })
}

fn splat_value(ctx: &Context, a: Option<Attr>) -> Option<f64> {
    a.and_then(|a| ctx.dense_splat_value(a))
}

fn one(v: Value) -> Option<Vec<FoldResult>> {
    Some(vec![FoldResult::Value(v)])
}

fn constant(a: Attr) -> Option<Vec<FoldResult>> {
    Some(vec![FoldResult::Constant(a)])
}

/// The constant operands as arrays: `Some((arrays, all_splat))`. Splats become 1-element
/// arrays when every operand is a splat, so that folding them is O(1).
fn const_arrays(ctx: &Context, consts: &[Option<Attr>]) -> Option<(Vec<Array>, bool)> {
    let attrs: Vec<Attr> = consts.iter().copied().collect::<Option<_>>()?;
    if attrs.iter().all(|a| is_splat(ctx, *a)) {
        let v =
            attrs.iter().map(|a| Some(Array::new(vec![1], vec![ctx.dense_splat_value(*a)?]))).collect::<Option<_>>()?;
        return Some((v, true));
    }
    let arrays: Vec<Array> = attrs.iter().map(|a| attr_array(ctx, *a)).collect::<Option<_>>()?;
    if arrays.iter().any(|a| a.num_elements() > MAX_FOLD_ELEMENTS || a.shape != arrays[0].shape) {
        return None;
    }
    Some((arrays, false))
}

/// A dense attribute of type `ty` from a folded array.
fn array_attr(ctx: &mut Context, ty: Type, a: &Array, splat: bool) -> Option<Attr> {
    if !is_static(ctx, ty) {
        return None;
    }
    Some(if splat { ctx.splat_attr(ty, a.data[0]) } else { ctx.dense_attr(ty, &a.data) })
}

/// Constant-folds an elementwise op (unary, binary or `cmp`) whose operands are all
/// constants, through the elementwise interface.
fn fold_constant_elementwise(ctx: &mut Context, op: OpId, consts: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    let f = elementwise(ctx, op)?;
    let (arrays, splat) = const_arrays(ctx, consts)?;
    let r = apply(f, &arrays.iter().collect::<Vec<_>>())?;
    let rt = result_type(ctx, op);
    constant(array_attr(ctx, rt, &r, splat)?)
}

/// Folds the binary float ops.
pub(crate) fn fold_binary(ctx: &mut Context, op: OpId, consts: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    if consts.len() != 2 || ctx.results(op).len() != 1 {
        return None;
    }
    let Some(Elementwise::Binary(f)) = elementwise(ctx, op) else { return None };
    let rt = result_type(ctx, op);
    if let Some(folded) = fold_constant_elementwise(ctx, op, consts) {
        return Some(folded);
    }
    let (lhs, rhs) = (ctx.operand(op, 0), ctx.operand(op, 1));
    let (l, r) = (splat_value(ctx, consts[0]), splat_value(ctx, consts[1]));
    let same = |v: Value| ctx.value_type(v) == rt;
    match f {
        BinaryFn::Add if r == Some(0.0) && same(lhs) => one(lhs),
        BinaryFn::Add if l == Some(0.0) && same(rhs) => one(rhs),
        BinaryFn::Sub if r == Some(0.0) && same(lhs) => one(lhs),
        BinaryFn::Mul if r == Some(1.0) && same(lhs) => one(lhs),
        BinaryFn::Mul if l == Some(1.0) && same(rhs) => one(rhs),
        BinaryFn::Div if r == Some(1.0) && same(lhs) => one(lhs),
        _ => None,
    }
}

/// Folds the unary float ops.
pub(crate) fn fold_unary(ctx: &mut Context, op: OpId, consts: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    if consts.len() != 1 || ctx.results(op).len() != 1 {
        return None;
    }
    if let Some(folded) = fold_constant_elementwise(ctx, op, consts) {
        return Some(folded);
    }
    let neg = ctx.dyn_cast::<NegOp>(op)?;
    let inner = ctx.dyn_cast::<NegOp>(ctx.defining_op(neg.input(ctx))?)?;
    let x = inner.input(ctx);
    if ctx.operands(inner.id()).len() == 1 && ctx.value_type(x) == result_type(ctx, op) {
        return one(x);
    }
    None
}

/// Folds `mtensor.cmp` of constants.
pub(crate) fn fold_cmp(ctx: &mut Context, op: OpId, consts: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    if consts.len() != 2 || ctx.results(op).len() != 1 {
        return None;
    }
    fold_constant_elementwise(ctx, op, consts)
}

/// Folds `mtensor.select` with a splat condition or equal branches.
pub(crate) fn fold_select(ctx: &mut Context, op: OpId, consts: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    if consts.len() != 3 || ctx.results(op).len() != 1 {
        return None;
    }
    let (a, b) = (ctx.operand(op, 1), ctx.operand(op, 2));
    let rt = result_type(ctx, op);
    if ctx.value_type(a) != rt || ctx.value_type(b) != rt {
        return None;
    }
    if a == b {
        return one(a);
    }
    match splat_value(ctx, consts[0]) {
        Some(c) if c != 0.0 => one(a),
        Some(_) => one(b),
        None => None,
    }
}

/// Whether every value of `from` is exactly representable in `to`.
pub fn widens(from: FloatKind, to: FloatKind) -> bool {
    from == to || to == FloatKind::F64 || (to == FloatKind::F32 && matches!(from, FloatKind::F16 | FloatKind::BF16))
}

/// The float kinds of the element types of `convert` op `op` (operand, result).
fn convert_kinds(ctx: &Context, op: OpId) -> Option<(FloatKind, FloatKind)> {
    let a = ctx.float_kind(ctx.element_type(ctx.value_type(ctx.operand(op, 0))))?;
    let b = ctx.float_kind(ctx.element_type(result_type(ctx, op)))?;
    Some((a, b))
}

/// Folds `mtensor.convert`.
pub(crate) fn fold_convert(ctx: &mut Context, op: OpId, consts: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    if consts.len() != 1 || ctx.results(op).len() != 1 {
        return None;
    }
    let x = ctx.operand(op, 0);
    let rt = result_type(ctx, op);
    if ctx.value_type(x) == rt {
        return one(x);
    }
    if let Some((arrays, splat)) = const_arrays(ctx, consts) {
        // dense_attr / splat_attr round to the result element type.
        return constant(array_attr(ctx, rt, &arrays[0], splat)?);
    }
    let inner = ctx.dyn_cast::<ConvertOp>(ctx.defining_op(x)?)?.id();
    if ctx.operands(inner).len() == 1 {
        let y = ctx.operand(inner, 0);
        let (from, mid) = convert_kinds(ctx, inner)?;
        if ctx.value_type(y) == rt && widens(from, mid) {
            return one(y);
        }
    }
    None
}

/// `convert(convert(x))` with an exact first step becomes `convert(x)`.
struct ConvertOfExactConvert;

impl RewritePattern for ConvertOfExactConvert {
    fn name(&self) -> &'static str {
        "ConvertOfExactConvert"
    }
    fn root(&self) -> Option<&'static str> {
        Some(ConvertOp::NAME)
    }
    fn match_and_rewrite(&self, op: OpId, rw: &mut Rewriter<'_>) -> bool {
        let ctx = rw.ctx();
        if ctx.operands(op).len() != 1 {
            return false;
        }
        let Some(inner) = ctx.defining_op(ctx.operand(op, 0)) else { return false };
        if !ctx.isa::<ConvertOp>(inner) || ctx.operands(inner).len() != 1 {
            return false;
        }
        let Some((from, mid)) = convert_kinds(ctx, inner) else { return false };
        if !widens(from, mid) {
            return false;
        }
        let y = ctx.operand(inner, 0);
        rw.set_operand(op, 0, y);
        rw.modified(inner);
        true
    }
}

/// Canonicalization patterns of `mtensor.convert`.
pub(crate) fn convert_patterns() -> Vec<Box<dyn RewritePattern>> {
    vec![Box::new(ConvertOfExactConvert)]
}

/// Folds `mtensor.broadcast` of a constant into a constant of the (static) result type.
pub(crate) fn fold_broadcast(ctx: &mut Context, op: OpId, consts: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    if consts.is_empty() || ctx.results(op).len() != 1 {
        return None;
    }
    let rt = result_type(ctx, op);
    let x = ctx.operand(op, 0);
    if ctx.value_type(x) == rt && is_static(ctx, rt) {
        return one(x);
    }
    let v = splat_value(ctx, consts[0])?;
    if !is_static(ctx, rt) {
        return None;
    }
    constant(ctx.splat_attr(rt, v))
}

/// Folds `mtensor.reduce` of a splat constant (static result type only).
pub(crate) fn fold_reduce(ctx: &mut Context, op: OpId, consts: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    if consts.len() != 1 || ctx.results(op).len() != 1 {
        return None;
    }
    let a = consts[0]?;
    let v = ctx.dense_splat_value(a)?;
    let rt = result_type(ctx, op);
    if !is_static(ctx, rt) {
        return None;
    }
    let shape = ctx.shape_of(ctx.attr_value_type(a)?)?.to_vec();
    let reduce = ReduceOp(op);
    let (dims, kind) = (reduce.dims(ctx)?, reduce.kind(ctx)?);
    let mut count = 1u64;
    for d in dims {
        count = count.saturating_mul(shape.get(d as usize)?.as_static()?);
    }
    let n = count as f64;
    let r = match kind {
        ReduceKind::Sum => {
            if count == 0 {
                0.0
            } else {
                v * n
            }
        }
        ReduceKind::Mean => {
            if count == 0 {
                f64::NAN
            } else {
                v
            }
        }
        ReduceKind::Max => {
            if count == 0 {
                f64::NEG_INFINITY
            } else {
                v
            }
        }
        ReduceKind::Min => {
            if count == 0 {
                f64::INFINITY
            } else {
                v
            }
        }
        ReduceKind::Prod => v.powf(n),
    };
    constant(ctx.splat_attr(rt, r))
}

/// Folds `mtensor.transpose` with the identity permutation or of a constant.
pub(crate) fn fold_transpose(ctx: &mut Context, op: OpId, consts: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    if consts.len() != 1 || ctx.results(op).len() != 1 {
        return None;
    }
    let perm = TransposeOp(op).perm(ctx)?;
    let x = ctx.operand(op, 0);
    let rt = result_type(ctx, op);
    if perm.iter().enumerate().all(|(i, &p)| p == i as i64) && ctx.value_type(x) == rt {
        return one(x);
    }
    let a = consts[0]?;
    if !is_static(ctx, rt) {
        return None;
    }
    if let Some(v) = ctx.attr_value_type(a).filter(|_| is_splat(ctx, a)).and_then(|_| ctx.dense_splat_value(a)) {
        return constant(ctx.splat_attr(rt, v));
    }
    let arr = attr_array(ctx, a).filter(|a| a.num_elements() <= MAX_FOLD_ELEMENTS)?;
    let perm: Vec<usize> = perm.iter().map(|&p| p as usize).collect();
    let t = arr.transpose(&perm);
    constant(ctx.dense_attr(rt, &t.data))
}

/// `transpose(transpose(x, p1), p2)` becomes `transpose(x, p)` with `p[i] = p1[p2[i]]`.
struct TransposeOfTranspose;

impl RewritePattern for TransposeOfTranspose {
    fn name(&self) -> &'static str {
        "TransposeOfTranspose"
    }
    fn root(&self) -> Option<&'static str> {
        Some(TransposeOp::NAME)
    }
    fn match_and_rewrite(&self, op: OpId, rw: &mut Rewriter<'_>) -> bool {
        let ctx = rw.ctx();
        if ctx.operands(op).len() != 1 {
            return false;
        }
        let Some(inner) = ctx.defining_op(ctx.operand(op, 0)) else { return false };
        let Some(inner) = ctx.dyn_cast::<TransposeOp>(inner) else { return false };
        if ctx.operands(inner.id()).len() != 1 {
            return false;
        }
        let (Some(p1), Some(p2)) = (inner.perm(ctx), TransposeOp(op).perm(ctx)) else {
            return false;
        };
        let Some(p) = p2.iter().map(|&i| p1.get(i as usize).copied()).collect::<Option<Vec<i64>>>() else {
            return false;
        };
        let x = inner.input(ctx);
        let attr = rw.uniquer().i64_array_attr(&p);
        rw.set_operand(op, 0, x);
        rw.set_attr(op, "perm", attr);
        rw.modified(inner.id());
        true
    }
}

/// Canonicalization patterns of `mtensor.transpose`.
pub(crate) fn transpose_patterns() -> Vec<Box<dyn RewritePattern>> {
    vec![Box::new(TransposeOfTranspose)]
}

/// Folds `reshape`, `collapse_shape` and `expand_shape`: identity reshapes of static types,
/// and constants (the row-major element order is unchanged).
pub(crate) fn fold_reshape_like(ctx: &mut Context, op: OpId, consts: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    if consts.is_empty() || ctx.results(op).len() != 1 {
        return None;
    }
    let x = ctx.operand(op, 0);
    let rt = result_type(ctx, op);
    if !is_static(ctx, rt) {
        return None;
    }
    if ctx.value_type(x) == rt {
        return one(x);
    }
    let a = consts[0]?;
    let n: u64 = ctx.shape_of(rt)?.iter().map(|d| d.as_static().unwrap_or(0)).product();
    let from: u64 = ctx
        .shape_of(ctx.attr_value_type(a)?)?
        .iter()
        .map(|d| match d {
            Dim::Static(s) => *s,
            Dim::Dynamic => 0,
        })
        .product();
    if n != from {
        return None;
    }
    if is_splat(ctx, a) {
        let v = ctx.dense_splat_value(a)?;
        return constant(ctx.splat_attr(rt, v));
    }
    if n as usize > MAX_FOLD_ELEMENTS {
        return None;
    }
    let vals = ctx.dense_values(a, n as usize)?;
    constant(ctx.dense_attr(rt, &vals))
}
