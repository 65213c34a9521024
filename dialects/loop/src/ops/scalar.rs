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
use morf_ir::interfaces::{elementwise, floor_div_rem, BinaryFn, CmpPredicate, Elementwise, UnaryFn};
use morf_ir::interp::{InterpResult, Machine, RtValue};
use morf_ir::opdef::{AnyAttr, AnyType, Float, FloatOrIndex, Index, IntAttr, StrAttr, TypeConstraint, I1};
use morf_ir::{define_op, Attr, AttrData, Context, FoldResult, Loc, OpId, OperationState, Type, TypeData};

use super::{scalar, scalar_value, VResult};

// ----- constant -----

define_op! {
    /// A scalar constant: `%c = mloop.constant 1.0 : f32`, `0 : index`, `true : i1`.
    ///
    /// Attribute `value`: a float attribute for a float result, an integer attribute for an
    /// `index` result, a bool (or 0/1 integer) attribute for an `i1` result.
    pub struct ConstantOp("mloop.constant") {
        summary: "a scalar constant",
        traits: [PURE, CONSTANT_LIKE],
        results: [result: AnyType],
        attrs: [value: AnyAttr],
        verify: verify_constant,
        format: (parse_constant, print_constant),
        interpret: interpret_constant,
    }
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
    let c = ConstantOp(op);
    let Some(a) = c.value(ctx) else {
        return Ok(());
    };
    let rt = ctx.value_type(c.result(ctx));
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
    let c = ConstantOp(op);
    let rt = p.ctx.value_type(c.result(p.ctx));
    let Some(a) = c.value(p.ctx) else {
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
        (AttrData::Integer { value, .. }, _) if I1::check(p.ctx, rt) => (*value != 0).to_string(),
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
    let c = ConstantOp(op);
    let a = c.value(ctx).ok_or_else(|| op_error(ctx, op, "requires attribute 'value'"))?;
    let v = attr_number(ctx, a).ok_or_else(|| op_error(ctx, op, "interpreter: malformed 'value'"))?;
    let r = c.result(ctx);
    let rt = ctx.value_type(r);
    m.set(r, scalar_value(ctx, rt, ctx.round_to_type(rt, v)));
    Ok(())
}

/// The dialect's constant materializer: an `mloop.constant` of scalar type `ty` holding
/// `value` (a float, integer or bool attribute). Returns `None` for other types.
pub fn materialize_constant(ctx: &mut Context, value: Attr, ty: Type, loc: Loc) -> Option<OpId> {
    let v = attr_number(ctx, value)?;
    let a = constant_attr(ctx, v, ty)?;
    Some(ConstantOp::build(ctx, loc, ty, a).id())
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

// ----- unary and binary functions, one op per entry of the lists -----

/// Defines one unary float op per entry of [`morf_ir::for_each_unary_fn!`].
macro_rules! define_unary_ops {
    ($(($v:ident, $s:literal, $op:ident, $sum:literal, $f:expr)),* $(,)?) => {$(
        define_op! {
            #[doc = concat!("`%r = mloop.", $s, " %a : f32`: ", $sum, " of a float.")]
            pub struct $op(concat!("mloop.", $s)) {
                summary: $sum,
                traits: [PURE, SAME_OPERANDS_AND_RESULT_TYPE],
                operands: [input: Float],
                results: [result: Float],
                format: (parse_operands_colon_type, print_operands_colon_type),
                fold: fold_unary,
                interpret: interpret_unary,
                elementwise: $op::elementwise_fn,
            }
        }
        impl $op {
            fn elementwise_fn(_: &Context, _: OpId) -> Option<Elementwise> {
                Some(Elementwise::Unary(UnaryFn::$v))
            }
        }
    )*};
}
morf_ir::for_each_unary_fn!(define_unary_ops);

/// Defines one binary op per entry of [`morf_ir::for_each_binary_fn!`]: float or `index`
/// operands (`pow` float only), `COMMUTATIVE` from the list.
macro_rules! define_binary_ops {
    (@op $v:ident, $s:literal, $op:ident, $sum:literal, true) => {
        define_binary_ops!(@def $v, $s, $op, $sum, [PURE, SAME_OPERANDS_AND_RESULT_TYPE, COMMUTATIVE]);
    };
    (@op $v:ident, $s:literal, $op:ident, $sum:literal, false) => {
        define_binary_ops!(@def $v, $s, $op, $sum, [PURE, SAME_OPERANDS_AND_RESULT_TYPE]);
    };
    (@def $v:ident, $s:literal, $op:ident, $sum:literal, [$($t:ident),*]) => {
        define_op! {
            #[doc = concat!("`%r = mloop.", $s, " %a, %b : f32`: ", $sum, " (float or `index`).")]
            pub struct $op(concat!("mloop.", $s)) {
                summary: $sum,
                traits: [$($t),*],
                operands: [lhs: FloatOrIndex, rhs: FloatOrIndex],
                results: [result: FloatOrIndex],
                verify: verify_binary,
                format: (parse_operands_colon_type, print_operands_colon_type),
                fold: fold_binary,
                interpret: interpret_binary,
                elementwise: $op::elementwise_fn,
            }
        }
        impl $op {
            fn elementwise_fn(_: &Context, _: OpId) -> Option<Elementwise> {
                Some(Elementwise::Binary(BinaryFn::$v))
            }
        }
    };
    ($(($v:ident, $s:literal, $op:ident, $sum:literal, $comm:tt, $f:expr)),* $(,)?) => {
        $(define_binary_ops!(@op $v, $s, $op, $sum, $comm);)*
    };
}
morf_ir::for_each_binary_fn!(define_binary_ops);

fn fold_unary(ctx: &mut Context, op: OpId, consts: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    let Some(Elementwise::Unary(f)) = elementwise(ctx, op) else {
        return None;
    };
    let a = consts.first().copied()??;
    let rt = ctx.value_type(ctx.result(op, 0));
    let k = ctx.float_kind(rt)?;
    let v = k.round(f.eval(attr_number(ctx, a)?));
    Some(vec![FoldResult::Constant(ctx.float_attr(v, rt))])
}

fn interpret_unary(m: &mut Machine, ctx: &Context, op: OpId) -> InterpResult<()> {
    let Some(Elementwise::Unary(f)) = elementwise(ctx, op) else {
        return Err(op_error(ctx, op, "interpreter: not a unary function"));
    };
    let r = ctx.result(op, 0);
    let k =
        ctx.float_kind(ctx.value_type(r)).ok_or_else(|| op_error(ctx, op, "interpreter: expected a float result"))?;
    let x = scalar(m, ctx, op, ctx.operand(op, 0))?;
    m.set(r, RtValue::Float(k.round(f.eval(x))));
    Ok(())
}

/// `pow` has no `index` form; the other binary functions take float or `index` operands.
fn verify_binary(ctx: &Context, op: OpId) -> VResult {
    let t = ctx.value_type(ctx.result(op, 0));
    if elementwise(ctx, op) == Some(Elementwise::Binary(BinaryFn::Pow)) && !Float::check(ctx, t) {
        return Err(op_error(ctx, op, format!("operands must have a float type, got '{}'", ctx.type_to_string(t))));
    }
    Ok(())
}

fn interpret_binary(m: &mut Machine, ctx: &Context, op: OpId) -> InterpResult<()> {
    let Some(Elementwise::Binary(f)) = elementwise(ctx, op) else {
        return Err(op_error(ctx, op, "interpreter: not a binary function"));
    };
    let r = ctx.result(op, 0);
    let (a, b) = (ctx.operand(op, 0), ctx.operand(op, 1));
    if let Some(k) = ctx.float_kind(ctx.value_type(r)) {
        let (x, y) = (scalar(m, ctx, op, a)?, scalar(m, ctx, op, b)?);
        m.set(r, RtValue::Float(k.round(f.eval(x, y))));
    } else {
        let (x, y) = (m.int(ctx, op, a)?, m.int(ctx, op, b)?);
        let v = f.eval_index(x, y).map_err(|why| op_error(ctx, op, format!("{why} computing {x} and {y}")))?;
        m.set(r, RtValue::Int(v));
    }
    Ok(())
}

fn fold_binary(ctx: &mut Context, op: OpId, consts: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    let Some(Elementwise::Binary(f)) = elementwise(ctx, op) else {
        return None;
    };
    let (a, b) = (consts.first().copied()??, consts.get(1).copied()??);
    let rt = ctx.value_type(ctx.result(op, 0));
    let v = if let Some(k) = ctx.float_kind(rt) {
        k.round(f.eval(attr_number(ctx, a)?, attr_number(ctx, b)?))
    } else {
        f.eval_index(ctx.attr_int(a)?, ctx.attr_int(b)?).ok()? as f64
    };
    Some(vec![FoldResult::Constant(constant_attr(ctx, v, rt)?)])
}

// ----- rem -----

define_op! {
    /// `%r = mloop.rem %a, %b : index`: the remainder of `index` floor division (it takes
    /// the sign of the divisor).
    pub struct RemOp("mloop.rem") {
        summary: "remainder of index floor division",
        traits: [PURE, SAME_OPERANDS_AND_RESULT_TYPE],
        operands: [lhs: Index, rhs: Index],
        results: [result: Index],
        format: (parse_operands_colon_type, print_operands_colon_type),
        fold: fold_rem,
        interpret: interpret_rem,
    }
}

fn interpret_rem(m: &mut Machine, ctx: &Context, op: OpId) -> InterpResult<()> {
    let r = RemOp(op);
    let (x, y) = (m.int(ctx, op, r.lhs(ctx))?, m.int(ctx, op, r.rhs(ctx))?);
    let (_, v) = floor_div_rem(x, y).map_err(|why| op_error(ctx, op, format!("{why} computing {x} and {y}")))?;
    m.set(r.result(ctx), RtValue::Int(v));
    Ok(())
}

fn fold_rem(ctx: &mut Context, op: OpId, consts: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    let (a, b) = (consts.first().copied()??, consts.get(1).copied()??);
    let (_, v) = floor_div_rem(ctx.attr_int(a)?, ctx.attr_int(b)?).ok()?;
    let t = ctx.value_type(RemOp(op).result(ctx));
    Some(vec![FoldResult::Constant(ctx.int_attr(v, t))])
}

// ----- cmp -----

define_op! {
    /// Comparison: `%p = mloop.cmp lt, %a, %b : f32` gives an `i1`.
    ///
    /// Attribute `predicate`: `eq`, `ne`, `lt`, `le`, `gt` or `ge` (printed bare). The
    /// operands share one float or `index` type.
    pub struct CmpOp("mloop.cmp") {
        summary: "compares two scalars, giving an i1",
        traits: [PURE],
        operands: [lhs: FloatOrIndex, rhs: FloatOrIndex],
        results: [result: I1],
        attrs: [predicate: StrAttr],
        verify: verify_cmp,
        format: (parse_cmp, print_predicate_operands_colon_type),
        fold: fold_cmp,
        interpret: interpret_cmp,
        elementwise: cmp_elementwise,
    }
}

impl CmpOp {
    /// The predicate, if attribute `predicate` names one.
    pub fn pred(self, ctx: &Context) -> Option<CmpPredicate> {
        CmpPredicate::from_name(self.predicate(ctx)?)
    }
}

fn cmp_elementwise(ctx: &Context, op: OpId) -> Option<Elementwise> {
    CmpOp(op).pred(ctx).map(Elementwise::Cmp)
}

fn verify_cmp(ctx: &Context, op: OpId) -> VResult {
    let c = CmpOp(op);
    if c.pred(ctx).is_none() {
        let pred = c.predicate(ctx).unwrap_or_default();
        return Err(op_error(ctx, op, format!("unknown predicate '{pred}'; expected one of eq, ne, lt, le, gt, ge")));
    }
    let (ta, tb) = (ctx.value_type(c.lhs(ctx)), ctx.value_type(c.rhs(ctx)));
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
    Ok(())
}

fn parse_cmp(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    parse_predicate_operands_colon_type(p, st)?;
    st.result_types = vec![p.ctx.i1_type()];
    Ok(())
}

fn interpret_cmp(m: &mut Machine, ctx: &Context, op: OpId) -> InterpResult<()> {
    let c = CmpOp(op);
    let pred = c.pred(ctx).ok_or_else(|| op_error(ctx, op, "interpreter: unknown predicate"))?;
    let (a, b) = (c.lhs(ctx), c.rhs(ctx));
    let holds = match (m.get(ctx, a)?, m.get(ctx, b)?) {
        // Compare integers exactly (beyond 2^53 an f64 comparison would not be).
        (RtValue::Int(x), RtValue::Int(y)) => {
            let o = x.cmp(y);
            match pred {
                CmpPredicate::Eq => o.is_eq(),
                CmpPredicate::Ne => o.is_ne(),
                CmpPredicate::Lt => o.is_lt(),
                CmpPredicate::Le => o.is_le(),
                CmpPredicate::Gt => o.is_gt(),
                CmpPredicate::Ge => o.is_ge(),
            }
        }
        _ => pred.eval(scalar(m, ctx, op, a)?, scalar(m, ctx, op, b)?),
    };
    m.set(c.result(ctx), RtValue::Int(holds as i64));
    Ok(())
}

fn fold_cmp(ctx: &mut Context, op: OpId, consts: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    let (a, b) = (consts.first().copied()??, consts.get(1).copied()??);
    let pred = CmpOp(op).pred(ctx)?;
    let holds = pred.eval(attr_number(ctx, a)?, attr_number(ctx, b)?);
    Some(vec![FoldResult::Constant(ctx.bool_attr(holds))])
}

// ----- select -----

define_op! {
    /// Choice: `%s = mloop.select %p, %a, %b : f32` is `%a` when the `i1` `%p` is true, else
    /// `%b`. `%a`, `%b` and the result share one scalar type.
    pub struct SelectOp("mloop.select") {
        summary: "chooses between two scalars by an i1",
        traits: [PURE],
        operands: [condition: I1, true_value: AnyType, false_value: AnyType],
        results: [result: AnyType],
        verify: verify_select,
        format: (parse_select, print_select),
        fold: fold_select,
        interpret: interpret_select,
        elementwise: morf_ir::interfaces::select_interface,
    }
}

fn verify_select(ctx: &Context, op: OpId) -> VResult {
    let s = SelectOp(op);
    let ty = ctx.value_type(s.true_value(ctx));
    for (v, what) in [(s.false_value(ctx), "false value"), (s.result(ctx), "result")] {
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
    p.print_type(p.ctx.value_type(SelectOp(op).result(p.ctx)));
}

fn interpret_select(m: &mut Machine, ctx: &Context, op: OpId) -> InterpResult<()> {
    let s = SelectOp(op);
    let c = m.int(ctx, op, s.condition(ctx))?;
    let v = m.get(ctx, if c != 0 { s.true_value(ctx) } else { s.false_value(ctx) })?.clone();
    m.set(s.result(ctx), v);
    Ok(())
}

fn fold_select(ctx: &mut Context, op: OpId, consts: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    let s = SelectOp(op);
    let (a, b) = (s.true_value(ctx), s.false_value(ctx));
    if a == b {
        return Some(vec![FoldResult::Value(a)]);
    }
    let c = attr_number(ctx, consts.first().copied()??)?;
    Some(vec![FoldResult::Value(if c != 0.0 { a } else { b })])
}

// ----- convert -----

define_op! {
    /// Conversion: `%f = mloop.convert %a : bf16 to f32`, float to float (rounding to
    /// nearest even) or `index` to float.
    pub struct ConvertOp("mloop.convert") {
        summary: "converts a float or index scalar to a float type",
        traits: [PURE],
        operands: [input: FloatOrIndex],
        results: [result: Float],
        format: (parse_operand_colon_type_to_type, print_operand_colon_type_to_type),
        fold: fold_convert,
        interpret: interpret_convert,
        elementwise: morf_ir::interfaces::convert_interface,
    }
}

fn interpret_convert(m: &mut Machine, ctx: &Context, op: OpId) -> InterpResult<()> {
    let c = ConvertOp(op);
    let r = c.result(ctx);
    let k =
        ctx.float_kind(ctx.value_type(r)).ok_or_else(|| op_error(ctx, op, "interpreter: expected a float result"))?;
    let x = scalar(m, ctx, op, c.input(ctx))?;
    m.set(r, RtValue::Float(k.round(x)));
    Ok(())
}

fn fold_convert(ctx: &mut Context, op: OpId, consts: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    let c = ConvertOp(op);
    let (a, r) = (c.input(ctx), c.result(ctx));
    let rt = ctx.value_type(r);
    if ctx.value_type(a) == rt {
        return Some(vec![FoldResult::Value(a)]);
    }
    let v = attr_number(ctx, consts.first().copied()??)?;
    let k = ctx.float_kind(rt)?;
    Some(vec![FoldResult::Constant(ctx.float_attr(k.round(v), rt))])
}

// ----- resident_programs -----

define_op! {
    /// The programs (GPU: CTAs) of the kernel that a value sizes which the device holds at
    /// once: `%r = mloop.resident_programs {assumed = 132} : index`.
    ///
    /// A split sized by occupancy (`fuse-mixed-reductions{partials=resident}`) divides the
    /// rows by it, so that every resident CTA takes one balanced split. At the loop level no
    /// kernel exists yet: the interpreter (and anything else that must know the number before
    /// the GPU lowering) takes `assumed`, a positive integer. `lower-loop-to-gpu` binds the op
    /// to the kernel it sizes and replaces it with `mgpu.resident_blocks`, which the runtime
    /// answers from the compiled kernel's occupancy. Only performance depends on the value:
    /// any positive count gives the same results up to the summation order of the partials.
    /// Not pure: two of them size two kernels, so CSE must not merge them.
    pub struct ResidentProgramsOp("mloop.resident_programs") {
        summary: "the programs of a kernel the device holds at once (bound by the GPU lowering)",
        results: [result: Index],
        attrs: [assumed: IntAttr],
        verify: verify_resident_programs,
        format: (parse_resident_programs, print_resident_programs),
        interpret: interpret_resident_programs,
    }
}

fn verify_resident_programs(ctx: &Context, op: OpId) -> VResult {
    match ResidentProgramsOp(op).assumed(ctx) {
        Some(n) if n > 0 => Ok(()),
        Some(n) => Err(op_error(ctx, op, format!("expects 'assumed' to be a positive integer, got {n}"))),
        None => Err(op_error(ctx, op, "requires an integer attribute 'assumed'")),
    }
}

fn parse_resident_programs(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    p.parse_optional_attr_dict(st)?;
    let ty = p.parse_colon_type()?;
    st.result_types = vec![ty];
    Ok(())
}

fn print_resident_programs(p: &mut OpPrinter<'_>, op: OpId) {
    p.print_optional_attr_dict(op, &[]);
    p.write(" : ");
    p.print_type(p.ctx.value_type(ResidentProgramsOp(op).result(p.ctx)));
}

fn interpret_resident_programs(m: &mut Machine, ctx: &Context, op: OpId) -> InterpResult<()> {
    let r = ResidentProgramsOp(op);
    let n = r.assumed(ctx).filter(|n| *n > 0).ok_or_else(|| op_error(ctx, op, "requires a positive 'assumed'"))?;
    m.set(r.result(ctx), RtValue::Int(n));
    Ok(())
}
