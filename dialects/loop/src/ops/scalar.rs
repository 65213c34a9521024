//! Scalar ops: `constant`, binary math (`add`, `sub`, `mul`, `div`, `max`, `min`, `pow`,
//! `rem`), unary math (`neg`, `exp`, `log`, `sqrt`, `rsqrt`, `tanh`, `abs`), `cmp`,
//! `select` and `convert`.
//!
//! Floats compute in f64 and round once to the result type, as a kernel storing that
//! type would. `index` arithmetic is exact 64-bit integer arithmetic; `div` on index is
//! floor division and `rem` the matching remainder (the sign of the divisor).

use morf_ir::asm::formats::{
    parse_operand_colon_type_to_type, parse_operands_colon_type, parse_predicate_operands_colon_type,
    print_operand_colon_type_to_type, print_operands_colon_type, print_predicate_operands_colon_type,
};
use morf_ir::asm::parser::{OpParser, PResult};
use morf_ir::asm::printer::{format_float, OpPrinter};
use morf_ir::builtin::op_error;
use morf_ir::interp::{InterpResult, Machine, RtValue};
use morf_ir::numerics;
use morf_ir::{Attr, AttrData, Context, FoldResult, Loc, OpId, OpInfo, OperationState, Traits, Type, TypeData};

use super::{expect_counts, is_i1, is_index, scalar, scalar_value, VResult};

// ----- constant -----

/// A scalar constant: `%c = mloop.constant 1.0 : f32`, `0 : index`, `true : i1`.
///
/// Attribute `value`: a float attribute for a float result, an integer attribute for an
/// `index` result, a bool (or 0/1 integer) attribute for an `i1` result.
pub fn constant() -> OpInfo {
    OpInfo::new("mloop.constant", "a scalar constant")
        .traits(Traits::PURE | Traits::CONSTANT_LIKE)
        .verify(verify_constant)
        .format(parse_constant, print_constant)
        .interpret(interpret_constant)
}

/// The numeric value of a constant attribute.
pub(crate) fn attr_number(ctx: &Context, a: Attr) -> Option<f64> {
    match ctx.attr_data(a) {
        AttrData::Float { bits, .. } => Some(f64::from_bits(*bits)),
        AttrData::Integer { value, .. } => Some(*value as f64),
        AttrData::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
        _ => None,
    }
}

fn verify_constant(ctx: &Context, op: OpId) -> VResult {
    expect_counts(ctx, op, 0, 1)?;
    let Some(a) = ctx.attr(op, "value") else {
        return Err(op_error(ctx, op, "requires attribute 'value'"));
    };
    let rt = ctx.value_type(ctx.result(op, 0));
    let ok = match (ctx.type_data(rt), ctx.attr_data(a)) {
        (TypeData::Float(_), AttrData::Float { ty, .. }) => *ty == rt,
        (TypeData::Index, AttrData::Integer { .. }) => true,
        (TypeData::Integer(1), AttrData::Bool(_)) => true,
        (TypeData::Integer(1), AttrData::Integer { value, .. }) => *value == 0 || *value == 1,
        _ => false,
    };
    if !ok {
        return Err(op_error(
            ctx,
            op,
            format!(
                "'value' {} does not fit result type '{}' (expected a float of that type, an index integer or an i1 bool)",
                ctx.attr_to_string(a),
                ctx.type_to_string(rt)
            ),
        ));
    }
    Ok(())
}

fn parse_constant(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    p.parse_optional_attr_dict(st)?;
    let loc = p.loc();
    let a = p.parse_attribute()?;
    let ty = match p.ctx.attr_data(a).clone() {
        AttrData::Float { ty, .. } | AttrData::Integer { ty, .. } => ty,
        AttrData::Bool(_) => p.parse_colon_type()?,
        _ => return Err(p.error_at(loc, "expected a scalar constant such as '1.0 : f32', '0 : index' or 'true : i1'")),
    };
    st.attrs.push(("value".into(), a));
    st.result_types = vec![ty];
    Ok(())
}

fn print_constant(p: &mut OpPrinter<'_>, op: OpId) {
    p.print_optional_attr_dict(op, &["value"]);
    let rt = p.ctx.value_type(p.ctx.result(op, 0));
    let Some(a) = p.ctx.attr(op, "value") else {
        return;
    };
    let text = match (p.ctx.attr_data(a), p.ctx.float_kind(rt)) {
        (AttrData::Float { bits, .. }, Some(k)) => {
            let s = format_float(f64::from_bits(*bits), k);
            if s.starts_with("0x") {
                // NaN and inf print as bits, which read back only with the type attached.
                p.write(" ");
                p.print_attr(a);
                return;
            }
            s
        }
        (AttrData::Integer { value, .. }, _) if is_i1(p.ctx, rt) => (*value != 0).to_string(),
        (AttrData::Integer { value, ty }, _) if *ty == rt => value.to_string(),
        (AttrData::Bool(b), _) => b.to_string(),
        _ => {
            // Not a canonical pairing (the verifier reports it); print the attribute whole.
            p.write(" ");
            p.print_attr(a);
            return;
        }
    };
    p.write(" ");
    p.write(&text);
    p.write(" : ");
    p.print_type(rt);
}

fn interpret_constant(m: &mut Machine, ctx: &Context, op: OpId) -> InterpResult<()> {
    let a = ctx.attr(op, "value").ok_or_else(|| op_error(ctx, op, "requires attribute 'value'"))?;
    let v = attr_number(ctx, a).ok_or_else(|| op_error(ctx, op, "interpreter: malformed 'value'"))?;
    let rt = ctx.value_type(ctx.result(op, 0));
    let v = ctx.round_to_type(rt, v);
    m.set(ctx.result(op, 0), scalar_value(ctx, rt, v));
    Ok(())
}

/// The dialect's constant materializer: an `mloop.constant` of scalar type `ty` holding
/// `value` (a float, integer or bool attribute). Returns `None` for other types.
pub fn materialize_constant(ctx: &mut Context, value: Attr, ty: Type, loc: Loc) -> Option<OpId> {
    let v = attr_number(ctx, value)?;
    let a = match ctx.type_data(ty) {
        TypeData::Float(_) => ctx.float_attr(v, ty),
        TypeData::Index => ctx.int_attr(v as i64, ty),
        TypeData::Integer(1) => ctx.bool_attr(v != 0.0),
        _ => return None,
    };
    Some(ctx.create_op(OperationState::new("mloop.constant", loc).attr("value", a).results(&[ty])))
}

/// The attribute `mloop.constant` holds for value `v` of scalar type `ty`.
pub(crate) fn constant_attr(ctx: &mut Context, v: f64, ty: Type) -> Option<Attr> {
    Some(match ctx.type_data(ty) {
        TypeData::Float(_) => ctx.float_attr(v, ty),
        TypeData::Index => ctx.int_attr(v as i64, ty),
        TypeData::Integer(1) => ctx.bool_attr(v != 0.0),
        _ => return None,
    })
}

// ----- kernels -----

/// Applies float binary op `name` in f64 (before rounding): [`morf_ir::numerics::binary`].
pub(crate) fn float_binary(name: &str, a: f64, b: f64) -> Option<f64> {
    Some(numerics::binary(name.strip_prefix("mloop.")?)?(a, b))
}

/// Applies index binary op `name`; `Err` carries the reason (division by zero, overflow).
pub(crate) fn index_binary(name: &str, a: i64, b: i64) -> Result<i64, &'static str> {
    let r = match name {
        "mloop.add" => a.checked_add(b),
        "mloop.sub" => a.checked_sub(b),
        "mloop.mul" => a.checked_mul(b),
        "mloop.max" => Some(a.max(b)),
        "mloop.min" => Some(a.min(b)),
        "mloop.div" | "mloop.rem" => {
            if b == 0 {
                return Err("division by zero");
            }
            let (q, r) = (a.checked_div(b), a.checked_rem(b));
            let (Some(q), Some(r)) = (q, r) else {
                return Err("integer overflow");
            };
            // Round the quotient toward negative infinity; the remainder takes the
            // divisor's sign.
            let adjust = r != 0 && ((r < 0) != (b < 0));
            if name == "mloop.div" {
                Some(if adjust { q - 1 } else { q })
            } else {
                Some(if adjust { r + b } else { r })
            }
        }
        _ => return Err("unknown op"),
    };
    r.ok_or("integer overflow")
}

/// Applies unary float op `name` in f64: [`morf_ir::numerics::unary`].
pub(crate) fn float_unary(name: &str, a: f64) -> Option<f64> {
    Some(numerics::unary(name.strip_prefix("mloop.")?)?(a))
}

/// The comparison predicates, by name.
pub const PREDICATES: [&str; 6] = ["eq", "ne", "lt", "le", "gt", "ge"];

/// Compares with IEEE semantics (only `ne` holds when a NaN is involved).
pub(crate) fn compare(pred: &str, a: f64, b: f64) -> Option<bool> {
    Some(numerics::compare(pred)?(a, b))
}

// ----- binary -----

/// A binary scalar op: `%r = mloop.add %a, %b : f32`.
///
/// `name` is one of `mloop.add`, `sub`, `mul`, `div`, `max`, `min` (float or `index`
/// operands), `pow` (float only) or `rem` (`index` only). Operands and result share one
/// type.
pub fn binary(name: &'static str, summary: &'static str) -> OpInfo {
    let mut traits = Traits::PURE | Traits::SAME_OPERANDS_AND_RESULT_TYPE;
    if matches!(name, "mloop.add" | "mloop.mul" | "mloop.max" | "mloop.min") {
        traits = traits | Traits::COMMUTATIVE;
    }
    OpInfo::new(name, summary)
        .traits(traits)
        .verify(verify_binary)
        .format(parse_operands_colon_type, print_operands_colon_type)
        .fold(fold_binary)
        .interpret(interpret_binary)
}

fn verify_binary(ctx: &Context, op: OpId) -> VResult {
    expect_counts(ctx, op, 2, 1)?;
    let t = ctx.value_type(ctx.result(op, 0));
    let name = ctx.op_name(op);
    let ok = match name {
        "mloop.pow" => ctx.is_float(t),
        "mloop.rem" => is_index(ctx, t),
        _ => ctx.is_float(t) || is_index(ctx, t),
    };
    if !ok {
        let want = match name {
            "mloop.pow" => "a float type",
            "mloop.rem" => "'index'",
            _ => "a float type or 'index'",
        };
        return Err(op_error(ctx, op, format!("operands must have {want}, got '{}'", ctx.type_to_string(t))));
    }
    Ok(())
}

fn interpret_binary(m: &mut Machine, ctx: &Context, op: OpId) -> InterpResult<()> {
    let r = ctx.result(op, 0);
    let rt = ctx.value_type(r);
    let (a, b) = (ctx.operand(op, 0), ctx.operand(op, 1));
    if let Some(k) = ctx.float_kind(rt) {
        let (x, y) = (scalar(m, ctx, op, a)?, scalar(m, ctx, op, b)?);
        let v = float_binary(ctx.op_name(op), x, y)
            .ok_or_else(|| op_error(ctx, op, "interpreter: not a float operation"))?;
        m.set(r, RtValue::Float(k.round(v)));
    } else {
        let (x, y) = (m.int(ctx, op, a)?, m.int(ctx, op, b)?);
        let v = index_binary(ctx.op_name(op), x, y)
            .map_err(|why| op_error(ctx, op, format!("{why} computing {x} and {y}")))?;
        m.set(r, RtValue::Int(v));
    }
    Ok(())
}

fn fold_binary(ctx: &mut Context, op: OpId, consts: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    let (a, b) = (consts.first().copied()??, consts.get(1).copied()??);
    let rt = ctx.value_type(ctx.result(op, 0));
    let name = ctx.op_name(op).to_string();
    let v = if let Some(k) = ctx.float_kind(rt) {
        k.round(float_binary(&name, attr_number(ctx, a)?, attr_number(ctx, b)?)?)
    } else {
        let (x, y) = (ctx.attr_int(a)?, ctx.attr_int(b)?);
        index_binary(&name, x, y).ok()? as f64
    };
    Some(vec![FoldResult::Constant(constant_attr(ctx, v, rt)?)])
}

// ----- unary -----

/// A unary float op: `%n = mloop.exp %a : f32`.
///
/// `name` is one of `mloop.neg`, `exp`, `log`, `sqrt`, `rsqrt`, `tanh`, `abs`.
pub fn unary(name: &'static str, summary: &'static str) -> OpInfo {
    OpInfo::new(name, summary)
        .traits(Traits::PURE | Traits::SAME_OPERANDS_AND_RESULT_TYPE)
        .verify(verify_unary)
        .format(parse_operands_colon_type, print_operands_colon_type)
        .fold(fold_unary)
        .interpret(interpret_unary)
}

fn verify_unary(ctx: &Context, op: OpId) -> VResult {
    expect_counts(ctx, op, 1, 1)?;
    let t = ctx.value_type(ctx.result(op, 0));
    if !ctx.is_float(t) {
        return Err(op_error(ctx, op, format!("operand must have a float type, got '{}'", ctx.type_to_string(t))));
    }
    Ok(())
}

fn interpret_unary(m: &mut Machine, ctx: &Context, op: OpId) -> InterpResult<()> {
    let r = ctx.result(op, 0);
    let k =
        ctx.float_kind(ctx.value_type(r)).ok_or_else(|| op_error(ctx, op, "interpreter: expected a float result"))?;
    let x = scalar(m, ctx, op, ctx.operand(op, 0))?;
    let v = float_unary(ctx.op_name(op), x).ok_or_else(|| op_error(ctx, op, "interpreter: unknown unary op"))?;
    m.set(r, RtValue::Float(k.round(v)));
    Ok(())
}

fn fold_unary(ctx: &mut Context, op: OpId, consts: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    let a = consts.first().copied()??;
    let rt = ctx.value_type(ctx.result(op, 0));
    let k = ctx.float_kind(rt)?;
    let v = k.round(float_unary(ctx.op_name(op), attr_number(ctx, a)?)?);
    Some(vec![FoldResult::Constant(ctx.float_attr(v, rt))])
}

// ----- cmp -----

/// Comparison: `%p = mloop.cmp lt, %a, %b : f32` gives an `i1`.
///
/// Attribute `predicate`: `eq`, `ne`, `lt`, `le`, `gt` or `ge` (printed bare). The operands
/// share one float or `index` type.
pub fn cmp() -> OpInfo {
    OpInfo::new("mloop.cmp", "compares two scalars, giving an i1")
        .traits(Traits::PURE)
        .verify(verify_cmp)
        .format(parse_cmp, print_predicate_operands_colon_type)
        .fold(fold_cmp)
        .interpret(interpret_cmp)
}

fn verify_cmp(ctx: &Context, op: OpId) -> VResult {
    expect_counts(ctx, op, 2, 1)?;
    let pred = super::str_attr(ctx, op, "predicate")?;
    if !PREDICATES.contains(&pred) {
        return Err(op_error(ctx, op, format!("unknown predicate '{pred}'; expected one of eq, ne, lt, le, gt, ge")));
    }
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
    if !ctx.is_float(ta) && !is_index(ctx, ta) {
        return Err(op_error(
            ctx,
            op,
            format!("operands must have a float type or 'index', got '{}'", ctx.type_to_string(ta)),
        ));
    }
    let rt = ctx.value_type(ctx.result(op, 0));
    if !is_i1(ctx, rt) {
        return Err(op_error(ctx, op, format!("result must be 'i1', got '{}'", ctx.type_to_string(rt))));
    }
    Ok(())
}

fn parse_cmp(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    parse_predicate_operands_colon_type(p, st)?;
    st.result_types = vec![p.ctx.i1_type()];
    Ok(())
}

fn interpret_cmp(m: &mut Machine, ctx: &Context, op: OpId) -> InterpResult<()> {
    let pred = super::str_attr(ctx, op, "predicate")?;
    let (a, b) = (ctx.operand(op, 0), ctx.operand(op, 1));
    let c = match (m.get(ctx, a)?, m.get(ctx, b)?) {
        // Compare integers exactly (beyond 2^53 an f64 comparison would not be).
        (RtValue::Int(x), RtValue::Int(y)) => match pred {
            "eq" => Some(x == y),
            "ne" => Some(x != y),
            "lt" => Some(x < y),
            "le" => Some(x <= y),
            "gt" => Some(x > y),
            "ge" => Some(x >= y),
            _ => None,
        },
        _ => compare(pred, scalar(m, ctx, op, a)?, scalar(m, ctx, op, b)?),
    };
    let c = c.ok_or_else(|| op_error(ctx, op, format!("unknown predicate '{pred}'")))?;
    m.set(ctx.result(op, 0), RtValue::Int(c as i64));
    Ok(())
}

fn fold_cmp(ctx: &mut Context, op: OpId, consts: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    let (a, b) = (consts.first().copied()??, consts.get(1).copied()??);
    let pred = ctx.attr(op, "predicate").and_then(|x| ctx.attr_str(x))?.to_string();
    let c = compare(&pred, attr_number(ctx, a)?, attr_number(ctx, b)?)?;
    Some(vec![FoldResult::Constant(ctx.bool_attr(c))])
}

// ----- select -----

/// Choice: `%s = mloop.select %p, %a, %b : f32` is `%a` when the `i1` `%p` is true, else
/// `%b`. `%a`, `%b` and the result share one scalar type.
pub fn select() -> OpInfo {
    OpInfo::new("mloop.select", "chooses between two scalars by an i1")
        .traits(Traits::PURE)
        .verify(verify_select)
        .format(parse_select, print_select)
        .fold(fold_select)
        .interpret(interpret_select)
}

fn verify_select(ctx: &Context, op: OpId) -> VResult {
    expect_counts(ctx, op, 3, 1)?;
    let ct = ctx.value_type(ctx.operand(op, 0));
    if !is_i1(ctx, ct) {
        return Err(op_error(ctx, op, format!("condition must be 'i1', got '{}'", ctx.type_to_string(ct))));
    }
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
    if !ctx.is_float(ty) && !ctx.is_int_or_index(ty) {
        return Err(op_error(ctx, op, format!("values must be scalars, got '{}'", ctx.type_to_string(ty))));
    }
    Ok(())
}

fn parse_select(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    let loc = p.loc();
    let ops = p.parse_operand_list()?;
    p.parse_optional_attr_dict(st)?;
    let ty = p.parse_colon_type()?;
    let i1 = p.ctx.i1_type();
    st.operands = p.resolve_operands(&ops, &[i1, ty, ty], loc)?;
    st.result_types = vec![ty];
    Ok(())
}

fn print_select(p: &mut OpPrinter<'_>, op: OpId) {
    let ops = p.ctx.operands(op).to_vec();
    p.write(" ");
    p.print_operands(&ops);
    p.print_optional_attr_dict(op, &[]);
    p.write(" : ");
    p.print_type(p.ctx.value_type(p.ctx.result(op, 0)));
}

fn interpret_select(m: &mut Machine, ctx: &Context, op: OpId) -> InterpResult<()> {
    let c = m.int(ctx, op, ctx.operand(op, 0))?;
    let v = m.get(ctx, ctx.operand(op, if c != 0 { 1 } else { 2 }))?.clone();
    m.set(ctx.result(op, 0), v);
    Ok(())
}

fn fold_select(ctx: &mut Context, op: OpId, consts: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    let (a, b) = (ctx.operand(op, 1), ctx.operand(op, 2));
    if a == b {
        return Some(vec![FoldResult::Value(a)]);
    }
    let c = attr_number(ctx, consts.first().copied()??)?;
    Some(vec![FoldResult::Value(if c != 0.0 { a } else { b })])
}

// ----- convert -----

/// Conversion: `%f = mloop.convert %a : bf16 to f32`, float to float (rounding to nearest
/// even) or `index` to float.
pub fn convert() -> OpInfo {
    OpInfo::new("mloop.convert", "converts a float or index scalar to a float type")
        .traits(Traits::PURE)
        .verify(verify_convert)
        .format(parse_operand_colon_type_to_type, print_operand_colon_type_to_type)
        .fold(fold_convert)
        .interpret(interpret_convert)
}

fn verify_convert(ctx: &Context, op: OpId) -> VResult {
    expect_counts(ctx, op, 1, 1)?;
    let (a, r) = (ctx.value_type(ctx.operand(op, 0)), ctx.value_type(ctx.result(op, 0)));
    if !ctx.is_float(a) && !is_index(ctx, a) {
        return Err(op_error(
            ctx,
            op,
            format!("operand must have a float type or 'index', got '{}'", ctx.type_to_string(a)),
        ));
    }
    if !ctx.is_float(r) {
        return Err(op_error(ctx, op, format!("result must have a float type, got '{}'", ctx.type_to_string(r))));
    }
    Ok(())
}

fn interpret_convert(m: &mut Machine, ctx: &Context, op: OpId) -> InterpResult<()> {
    let r = ctx.result(op, 0);
    let k =
        ctx.float_kind(ctx.value_type(r)).ok_or_else(|| op_error(ctx, op, "interpreter: expected a float result"))?;
    let x = scalar(m, ctx, op, ctx.operand(op, 0))?;
    m.set(r, RtValue::Float(k.round(x)));
    Ok(())
}

fn fold_convert(ctx: &mut Context, op: OpId, consts: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    let (a, r) = (ctx.operand(op, 0), ctx.result(op, 0));
    let rt = ctx.value_type(r);
    if ctx.value_type(a) == rt {
        return Some(vec![FoldResult::Value(a)]);
    }
    let v = attr_number(ctx, consts.first().copied()??)?;
    let k = ctx.float_kind(rt)?;
    Some(vec![FoldResult::Constant(ctx.float_attr(k.round(v), rt))])
}
