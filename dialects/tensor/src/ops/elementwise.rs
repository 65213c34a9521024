//! Elementwise ops: binary float math (`add`, `sub`, `mul`, `div`, `max`, `min`, `pow`),
//! unary float math (`neg`, `exp`, `log`, `sqrt`, `rsqrt`, `tanh`, `abs`), comparison
//! (`cmp`), selection (`select`) and float conversion (`convert`).
//!
//! The unary and binary ops are generated, one [`define_op!`] each, from the scalar function
//! lists [`morf_ir::for_each_unary_fn!`] and [`morf_ir::for_each_binary_fn!`]: a new entry
//! there is a new `mtensor` op here. Every op implements the elementwise interface
//! ([`morf_ir::interfaces::elementwise`]), through which the interpreter and the folder
//! evaluate it. Every elementwise op computes in f64 and rounds once, to the result element
//! type.

use std::rc::Rc;

use morf_ir::asm::formats::{
    parse_operand_colon_type_to_type, parse_operands_colon_type, parse_predicate_operands_colon_type,
    print_operand_colon_type_to_type, print_operands_colon_type, print_predicate_operands_colon_type,
};
use morf_ir::asm::parser::{OpParser, PResult};
use morf_ir::asm::printer::OpPrinter;
use morf_ir::builtin::op_error;
use morf_ir::interfaces::{elementwise, BinaryFn, CmpPredicate, Elementwise, UnaryFn};
use morf_ir::interp::{array::Array, InterpResult, Machine};
use morf_ir::opdef::{AttrConstraint, FloatTensor, Tensor};
use morf_ir::{
    define_op, for_each_binary_fn, for_each_unary_fn, Attr, Context, OpId, OpInfo, OperationState, TypeData,
};

use super::{shape, shape_text, store, store_exact, VResult};
use crate::fold;

// ----- kernels (shared by the interpreter and the constant folder) -----

/// Applies `f` to same-shaped arrays, in f64: unary and binary functions, comparisons (true
/// is 1.0, false 0.0) and selection. Conversion returns its operand unchanged (storing it
/// rounds to the result type). `None` when `args` has too few arrays.
pub(crate) fn apply(f: Elementwise, args: &[&Array]) -> Option<Array> {
    Some(match f {
        Elementwise::Unary(u) => args.first()?.map(unary_kernel(u)),
        Elementwise::Binary(b) => args.first()?.zip(args.get(1)?, binary_kernel(b)),
        Elementwise::Cmp(p) => args.first()?.zip(args.get(1)?, cmp_kernel(p)),
        Elementwise::Select => {
            Array::zip3(args.first()?, args.get(1)?, args.get(2)?, |c, a, b| if c != 0.0 { a } else { b })
        }
        Elementwise::Convert => (*args.first()?).clone(),
    })
}

/// `p` as an f64 kernel giving 1.0 for true and 0.0 for false, chosen once per op so that
/// the loop over the elements does not dispatch on the predicate.
fn cmp_kernel(p: CmpPredicate) -> fn(f64, f64) -> f64 {
    #[inline(always)]
    fn k(p: CmpPredicate, x: f64, y: f64) -> f64 {
        if p.eval(x, y) {
            1.0
        } else {
            0.0
        }
    }
    match p {
        CmpPredicate::Eq => |x, y| k(CmpPredicate::Eq, x, y),
        CmpPredicate::Ne => |x, y| k(CmpPredicate::Ne, x, y),
        CmpPredicate::Lt => |x, y| k(CmpPredicate::Lt, x, y),
        CmpPredicate::Le => |x, y| k(CmpPredicate::Le, x, y),
        CmpPredicate::Gt => |x, y| k(CmpPredicate::Gt, x, y),
        CmpPredicate::Ge => |x, y| k(CmpPredicate::Ge, x, y),
    }
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

/// Interprets any elementwise op of the dialect through its elementwise interface.
fn interpret_elementwise(m: &mut Machine, ctx: &Context, op: OpId) -> InterpResult<()> {
    let f = elementwise(ctx, op).ok_or_else(|| op_error(ctx, op, "interpreter: malformed elementwise op"))?;
    let args = ctx.operands(op).iter().map(|v| m.tensor(ctx, op, *v)).collect::<InterpResult<Vec<Rc<Array>>>>()?;
    let refs: Vec<&Array> = args.iter().map(|a| &**a).collect();
    same_runtime_shape(ctx, op, &refs)?;
    if f == Elementwise::Convert {
        let (src, dst) = (ctx.value_type(ctx.operand(op, 0)), ctx.value_type(ctx.result(op, 0)));
        if ctx.element_type(src) == ctx.element_type(dst) {
            return store_exact(m, ctx, op, 0, args[0].clone());
        }
    }
    let r = apply(f, &refs).ok_or_else(|| op_error(ctx, op, "interpreter: missing operands"))?;
    if f == Elementwise::Select {
        // Picks existing elements, already of the result type.
        return store_exact(m, ctx, op, 0, Rc::new(r));
    }
    store(m, ctx, op, 0, r)
}

// ----- unary and binary, generated from the scalar function lists -----

/// Defines one unary op per entry of [`morf_ir::for_each_unary_fn!`], and [`unary_op`].
macro_rules! tensor_unary_ops {
    ($(($v:ident, $s:literal, $op:ident, $sum:literal, $f:expr)),* $(,)?) => {
        $(
            define_op! {
                #[doc = concat!("Elementwise ", $sum, ": `%r = mtensor.", $s, " %a : tensor<?xf32>`, on float tensors.")]
                pub struct $op(concat!("mtensor.", $s)) {
                    summary: concat!("elementwise ", $sum),
                    traits: [PURE, ELEMENTWISE, SAME_OPERANDS_AND_RESULT_TYPE],
                    operands: [input: FloatTensor],
                    results: [result: FloatTensor],
                    format: (parse_operands_colon_type, print_operands_colon_type),
                    fold: fold::fold_unary,
                    interpret: interpret_elementwise,
                    elementwise: $op::elementwise_fn,
                }
            }
            impl $op {
                fn elementwise_fn(_ctx: &Context, _op: OpId) -> Option<Elementwise> {
                    Some(Elementwise::Unary(UnaryFn::$v))
                }
            }
        )*

        /// The `mtensor` op kind applying `f` elementwise.
        pub fn unary_op(f: UnaryFn) -> &'static OpInfo {
            match f {
                $(UnaryFn::$v => $op::info(),)*
            }
        }

        /// The f64 kernel of `f`, chosen once per op so that the loop over the elements
        /// does not dispatch on the function.
        fn unary_kernel(f: UnaryFn) -> fn(f64) -> f64 {
            match f {
                $(UnaryFn::$v => |a| UnaryFn::$v.eval(a),)*
            }
        }
    };
}
for_each_unary_fn!(tensor_unary_ops);

/// Defines one binary op per entry of [`morf_ir::for_each_binary_fn!`], and [`binary_op`].
macro_rules! tensor_binary_ops {
    ($(($v:ident, $s:literal, $op:ident, $sum:literal, $comm:tt, $f:expr)),* $(,)?) => {
        $(tensor_binary_ops!(@one $v, $s, $op, $sum, $comm);)*

        /// The `mtensor` op kind applying `f` elementwise.
        pub fn binary_op(f: BinaryFn) -> &'static OpInfo {
            match f {
                $(BinaryFn::$v => $op::info(),)*
            }
        }

        /// The f64 kernel of `f`, chosen once per op so that the loop over the elements
        /// does not dispatch on the function.
        fn binary_kernel(f: BinaryFn) -> fn(f64, f64) -> f64 {
            match f {
                $(BinaryFn::$v => |a, b| BinaryFn::$v.eval(a, b),)*
            }
        }
    };
    (@one $v:ident, $s:literal, $op:ident, $sum:literal, true) => {
        tensor_binary_ops!(@def $v, $s, $op, $sum, [COMMUTATIVE]);
    };
    (@one $v:ident, $s:literal, $op:ident, $sum:literal, false) => {
        tensor_binary_ops!(@def $v, $s, $op, $sum, []);
    };
    (@def $v:ident, $s:literal, $op:ident, $sum:literal, [$($extra:ident)?]) => {
        define_op! {
            #[doc = concat!("Elementwise ", $sum, ": `%r = mtensor.", $s, " %a, %b : tensor<?xf32>`, on float tensors.")]
            pub struct $op(concat!("mtensor.", $s)) {
                summary: concat!("elementwise ", $sum),
                traits: [PURE, ELEMENTWISE, SAME_OPERANDS_AND_RESULT_TYPE $(, $extra)?],
                operands: [lhs: FloatTensor, rhs: FloatTensor],
                results: [result: FloatTensor],
                format: (parse_operands_colon_type, print_operands_colon_type),
                fold: fold::fold_binary,
                interpret: interpret_elementwise,
                elementwise: $op::elementwise_fn,
            }
        }
        impl $op {
            fn elementwise_fn(_ctx: &Context, _op: OpId) -> Option<Elementwise> {
                Some(Elementwise::Binary(BinaryFn::$v))
            }
        }
    };
}
for_each_binary_fn!(tensor_binary_ops);

// ----- cmp -----

define_op! {
    /// Elementwise comparison with an i1 result of the same shape:
    /// `%c = mtensor.cmp lt, %a, %b : tensor<?xf32>`.
    ///
    /// Attribute `predicate`: one of `eq`, `ne`, `lt`, `le`, `gt`, `ge` (printed bare).
    pub struct CmpOp("mtensor.cmp") {
        summary: "elementwise comparison producing an i1 tensor",
        traits: [PURE, ELEMENTWISE, SAME_OPERANDS_AND_RESULT_SHAPE],
        operands: [lhs: Tensor, rhs: Tensor],
        results: [result: Tensor],
        attrs: [predicate: Predicate],
        verify: verify_cmp,
        format: (parse_cmp, print_predicate_operands_colon_type),
        fold: fold::fold_cmp,
        interpret: interpret_elementwise,
        elementwise: cmp_elementwise,
    }
}

/// A comparison predicate spelled as a string (`"lt"`); the accessor returns a
/// [`CmpPredicate`].
#[derive(Copy, Clone, Debug)]
pub struct Predicate;

impl AttrConstraint for Predicate {
    const DESCRIPTION: &'static str = "a comparison predicate (eq, ne, lt, le, gt, ge)";
    type Value<'c> = CmpPredicate;
    fn get(ctx: &Context, a: Attr) -> Option<CmpPredicate> {
        CmpPredicate::from_name(ctx.attr_str(a)?)
    }
}

fn cmp_elementwise(ctx: &Context, op: OpId) -> Option<Elementwise> {
    CmpOp(op).predicate(ctx).map(Elementwise::Cmp)
}

fn verify_cmp(ctx: &Context, op: OpId) -> VResult {
    let c = CmpOp(op);
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
    let elem = ctx.element_type(ta);
    if !ctx.is_float(elem) && !ctx.is_int_or_index(elem) {
        return Err(op_error(ctx, op, "operands must have float or integer elements"));
    }
    let operand_shape = shape(ctx, c.lhs(ctx));
    let rt = ctx.value_type(c.result(ctx));
    let ok = ctx
        .tensor_parts(rt)
        .is_some_and(|(s, e)| s == operand_shape.as_slice() && matches!(ctx.type_data(e), TypeData::Integer(1)));
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

// ----- select -----

define_op! {
    /// Elementwise choice: `%r = mtensor.select %c, %a, %b : tensor<?xi1>, tensor<?xf32>`.
    ///
    /// `%c` is an i1 tensor of the shape of `%a`; `%a`, `%b` and the result share one type.
    pub struct SelectOp("mtensor.select") {
        summary: "elementwise choice between two tensors by an i1 tensor",
        traits: [PURE, ELEMENTWISE],
        operands: [condition: Tensor, true_value: Tensor, false_value: Tensor],
        results: [result: Tensor],
        verify: verify_select,
        format: (parse_select, print_select),
        fold: fold::fold_select,
        interpret: interpret_elementwise,
        elementwise: morf_ir::interfaces::select_interface,
    }
}

fn verify_select(ctx: &Context, op: OpId) -> VResult {
    let s = SelectOp(op);
    let ct = ctx.value_type(s.condition(ctx));
    if !matches!(ctx.type_data(ctx.element_type(ct)), TypeData::Integer(1)) {
        return Err(op_error(
            ctx,
            op,
            format!("condition must be a tensor of i1 elements, got '{}'", ctx.type_to_string(ct)),
        ));
    }
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
    let (cs, vs) = (shape(ctx, s.condition(ctx)), shape(ctx, s.true_value(ctx)));
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

// ----- convert -----

define_op! {
    /// Float conversion, rounding to nearest even:
    /// `%r = mtensor.convert %a : tensor<?x?xbf16> to tensor<?x?xf32>`.
    ///
    /// Between `f16`, `bf16`, `f32` and `f64` tensors of one shape.
    pub struct ConvertOp("mtensor.convert") {
        summary: "converts a float tensor to another float element type",
        traits: [PURE, ELEMENTWISE, SAME_OPERANDS_AND_RESULT_SHAPE],
        operands: [input: FloatTensor],
        results: [result: FloatTensor],
        verify: verify_convert,
        format: (parse_operand_colon_type_to_type, print_operand_colon_type_to_type),
        fold: fold::fold_convert,
        patterns: fold::convert_patterns,
        interpret: interpret_elementwise,
        elementwise: morf_ir::interfaces::convert_interface,
    }
}

fn verify_convert(ctx: &Context, op: OpId) -> VResult {
    let c = ConvertOp(op);
    let (s, rs) = (shape(ctx, c.input(ctx)), shape(ctx, c.result(ctx)));
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
