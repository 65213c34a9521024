//! The ops of the `mloop` dialect, one file per group, plus the helpers they share:
//! type constraints and checks for verifiers, pieces of the custom assembly formats, and
//! run-time accessors for the interpreter.
//!
//! Every op is one [`morf_ir::define_op!`] item in its group file; the typed handles are
//! re-exported here, so users write `morf_loop::ops::LoadOp`.

pub mod buffer;
pub mod loops;
pub mod scalar;

pub use buffer::{AccumulateOp, AllocOp, ConstantBufferOp, DeallocOp, DimOp, FillOp, LoadOp, StoreOp};
pub use loops::{ForOp, ParallelOp, ReduceOp, YieldOp};
// The scalar ops include one per entry of the function lists: a glob keeps them exported
// as entries are added.
pub use scalar::*;

use std::cell::RefCell;
use std::rc::Rc;

use morf_ir::asm::parser::{OpParser, PResult, UnresolvedOperand};
pub(crate) use morf_ir::builtin::{expect_index, expect_str_attr as str_attr, op_error, plural};
use morf_ir::interfaces::BinaryFn;
use morf_ir::interp::{array::Array, InterpResult, Machine, RtValue};
use morf_ir::opdef::TypeConstraint;
use morf_ir::{Context, Diagnostic, OpId, Type, TypeData, Value};

use crate::types::{buffer_parts, is_buffer};

/// Result of a verifier.
pub(crate) type VResult = Result<(), Diagnostic>;

/// The type constraint of buffer operands and results: a `!mloop.buffer`.
#[derive(Copy, Clone, Debug)]
pub struct Buffer;

impl TypeConstraint for Buffer {
    const DESCRIPTION: &'static str = "a '!mloop.buffer'";
    fn check(ctx: &Context, ty: Type) -> bool {
        is_buffer(ctx, ty)
    }
}

/// Dims and element type of `v`, which the generated verifier has checked to be a buffer.
pub(crate) fn buffer_of(ctx: &Context, op: OpId, v: Value) -> Result<(Vec<morf_ir::Dim>, Type), Diagnostic> {
    let t = ctx.value_type(v);
    match buffer_parts(ctx, t) {
        Some((s, e)) => Ok((s.to_vec(), e)),
        None => Err(op_error(ctx, op, format!("expected a '!mloop.buffer', got '{}'", ctx.type_to_string(t)))),
    }
}

/// The integer held by `v` when an `mloop.constant` defines it.
pub(crate) fn constant_int(ctx: &Context, v: Value) -> Option<i64> {
    let c = ctx.dyn_cast::<scalar::ConstantOp>(ctx.defining_op(v)?)?;
    c.value(ctx).and_then(|a| ctx.attr_int(a))
}

// ----- custom format pieces -----

/// Parses a keyword attribute (`lt`, `sum`) into `st` under `name`.
pub(crate) fn parse_keyword_attr(
    p: &mut OpParser<'_>,
    st: &mut morf_ir::OperationState,
    name: &str,
    what: &str,
) -> PResult<()> {
    let k = p.parse_keyword(what)?;
    let a = p.ctx.str_attr(&k);
    st.attrs.push((name.into(), a));
    Ok(())
}

/// Parses `(%a, %b)` (possibly empty).
pub(crate) fn parse_paren_operands(p: &mut OpParser<'_>) -> PResult<Vec<UnresolvedOperand>> {
    p.expect_punct("(")?;
    let v = p.parse_operand_list()?;
    p.expect_punct(")")?;
    Ok(v)
}

/// Resolves operands as `index` values.
pub(crate) fn resolve_indices(p: &mut OpParser<'_>, os: &[UnresolvedOperand]) -> PResult<Vec<Value>> {
    let idx = p.ctx.index_type();
    os.iter().map(|o| p.resolve_operand(o, idx)).collect()
}

// ----- interpreter helpers -----

/// The scalar bound to `v` as an f64 (an integer or index converts exactly up to 2^53).
#[inline]
pub(crate) fn scalar(m: &Machine, ctx: &Context, op: OpId, v: Value) -> InterpResult<f64> {
    match m.get(ctx, v)? {
        RtValue::Float(f) => Ok(*f),
        RtValue::Int(i) => Ok(*i as f64),
        _ => Err(op_error(ctx, op, "interpreter: expected a scalar operand")),
    }
}

/// The buffer bound to `v`.
#[inline]
pub(crate) fn buffer(m: &Machine, ctx: &Context, op: OpId, v: Value) -> InterpResult<Rc<RefCell<Array>>> {
    match m.get(ctx, v)? {
        RtValue::Buffer { data, .. } => Ok(data.clone()),
        _ => Err(op_error(ctx, op, "interpreter: expected a buffer operand")),
    }
}

/// The run-time value of scalar type `t` holding `v` (already rounded to `t`).
#[inline]
pub(crate) fn scalar_value(ctx: &Context, t: Type, v: f64) -> RtValue {
    match ctx.type_data(t) {
        TypeData::Float(_) => RtValue::Float(v),
        _ => RtValue::Int(v as i64),
    }
}

/// The row-major offset of the element at the `index` operands `idx` of `op` in `shape`,
/// or a diagnostic naming the op and the index when out of bounds.
pub(crate) fn offset(m: &Machine, ctx: &Context, op: OpId, idx: &[Value], shape: &[usize]) -> InterpResult<usize> {
    if idx.len() != shape.len() {
        return Err(op_error(
            ctx,
            op,
            format!("interpreter: {} indices for a buffer of rank {}", idx.len(), shape.len()),
        ));
    }
    let mut off = 0usize;
    for (d, (&v, &n)) in idx.iter().zip(shape).enumerate() {
        let i = m.int(ctx, op, v)?;
        if i < 0 || i as u64 >= n as u64 {
            let all: Result<Vec<i64>, _> = idx.iter().map(|v| m.int(ctx, op, *v)).collect();
            let all = all?.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", ");
            let dims = shape.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", ");
            return Err(op_error(
                ctx,
                op,
                format!("index {i} is out of bounds for dim {d} of size {n} (indices [{all}], shape [{dims}])"),
            ));
        }
        off = off * n + i as usize;
    }
    Ok(off)
}

/// A combiner of `accumulate` and `reduce`.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Kind {
    /// `sum`.
    Sum,
    /// `max` (NaN-propagating).
    Max,
    /// `min` (NaN-propagating).
    Min,
    /// `prod`.
    Prod,
}

impl Kind {
    /// The binary function that combines the accumulator with a value (`sum` is
    /// [`BinaryFn::Add`]; `max` and `min` propagate NaN).
    pub fn function(self) -> BinaryFn {
        match self {
            Kind::Sum => BinaryFn::Add,
            Kind::Max => BinaryFn::Max,
            Kind::Min => BinaryFn::Min,
            Kind::Prod => BinaryFn::Mul,
        }
    }

    /// Parses `sum`, `max`, `min` or `prod`.
    pub fn from_name(s: &str) -> Option<Kind> {
        Some(match s {
            "sum" => Kind::Sum,
            "max" => Kind::Max,
            "min" => Kind::Min,
            "prod" => Kind::Prod,
            _ => return None,
        })
    }
}

/// The combiner attribute `kind` of `op` (`accumulate`, `reduce`), or the verifier's error.
pub(crate) fn kind_of(ctx: &Context, op: OpId) -> Result<Kind, Diagnostic> {
    let k = str_attr(ctx, op, "kind")?;
    Kind::from_name(k)
        .ok_or_else(|| op_error(ctx, op, format!("unknown combiner '{k}'; expected one of sum, max, min, prod")))
}
