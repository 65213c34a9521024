//! Custom assembly formats shared by ops of several dialects.

use crate::asm::lexer::Tok;
use crate::asm::parser::{OpParser, PResult};
use crate::asm::printer::OpPrinter;
use crate::builtin::symbol_name;
use crate::{OpId, OperationState, Type};

/// Parses `%a, %b attr-dict : t1, t2` (or just `attr-dict` with no operands): the operands
/// and their types, as terminators write them (`func.return`, `mloop.yield`, `mgpu.yield`).
/// The op has no results. Printed by [`print_operands_colon_types`].
pub fn parse_operands_colon_types(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    let loc = p.loc();
    let ops = p.parse_operand_list()?;
    p.parse_optional_attr_dict(st)?;
    if !ops.is_empty() {
        p.expect_punct(":")?;
        let tys = p.parse_type_list()?;
        st.operands = p.resolve_operands(&ops, &tys, loc)?;
    }
    Ok(())
}

/// Prints the format [`parse_operands_colon_types`] reads: ` %a, %b attr-dict : t1, t2`,
/// or only the attribute dictionary when there are no operands.
pub fn print_operands_colon_types(p: &mut OpPrinter<'_>, op: OpId) {
    let ops = p.ctx.operands(op).to_vec();
    if !ops.is_empty() {
        p.write(" ");
        p.print_operands(&ops);
    }
    p.print_optional_attr_dict(op, &[]);
    if !ops.is_empty() {
        p.write(" : ");
        let tys: Vec<Type> = ops.iter().map(|v| p.ctx.value_type(*v)).collect();
        p.print_types(&tys);
    }
}

/// Parses `%a, %b, ... attr-dict : type`: operands and the one result all of one type
/// (`mloop.add`, `mtensor.add`). Printed by [`print_operands_colon_type`].
pub fn parse_operands_colon_type(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    let loc = p.loc();
    let ops = p.parse_operand_list()?;
    p.parse_optional_attr_dict(st)?;
    let ty = p.parse_colon_type()?;
    let tys = vec![ty; ops.len()];
    st.operands = p.resolve_operands(&ops, &tys, loc)?;
    st.result_types = vec![ty];
    Ok(())
}

/// Prints the format [`parse_operands_colon_type`] reads: ` %a, %b attr-dict : type`, the
/// type being that of the first result.
pub fn print_operands_colon_type(p: &mut OpPrinter<'_>, op: OpId) {
    let ops = p.ctx.operands(op).to_vec();
    p.write(" ");
    p.print_operands(&ops);
    p.print_optional_attr_dict(op, &[]);
    p.write(" : ");
    let t = p.ctx.value_type(p.ctx.result(op, 0));
    p.print_type(t);
}

/// Parses `%a attr-dict : t1 to t2`: one operand of type `t1` and one result of type `t2`
/// (`mloop.convert`, `mtensor.convert`). Printed by [`print_operand_colon_type_to_type`].
pub fn parse_operand_colon_type_to_type(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    let o = p.parse_operand()?;
    p.parse_optional_attr_dict(st)?;
    let a = p.parse_colon_type()?;
    p.expect_keyword("to")?;
    let b = p.parse_type()?;
    st.operands = vec![p.resolve_operand(&o, a)?];
    st.result_types = vec![b];
    Ok(())
}

/// Prints the format [`parse_operand_colon_type_to_type`] reads: ` %a attr-dict : t1 to t2`.
pub fn print_operand_colon_type_to_type(p: &mut OpPrinter<'_>, op: OpId) {
    let v = p.ctx.operand(op, 0);
    p.write(" ");
    p.print_operand(v);
    p.print_optional_attr_dict(op, &[]);
    p.write(" : ");
    p.print_type(p.ctx.value_type(v));
    p.write(" to ");
    p.print_type(p.ctx.value_type(p.ctx.result(op, 0)));
}

/// Parses the `@name` of a symbol-defining op (`func.func`, `mgpu.func`) and returns the
/// name; `what` names it in the error (`"function name"` gives
/// `expected function name (@name), found ...`). Printed by [`print_symbol_name`].
pub fn parse_symbol_name(p: &mut OpParser<'_>, what: &str) -> PResult<String> {
    let name = match p.peek().clone() {
        Tok::AtId(n) => n,
        t => return Err(p.error(format!("expected {what} (@name), found {}", t.describe()))),
    };
    p.parse_attribute()?;
    Ok(name)
}

/// Prints ` @name` for the `sym_name` attribute of `op` (empty when it has none), as
/// [`parse_symbol_name`] reads it.
pub fn print_symbol_name(p: &mut OpPrinter<'_>, op: OpId) {
    let ctx = p.ctx;
    let name = symbol_name(ctx, op).unwrap_or("").to_string();
    p.write(" ");
    let s = ctx.symbol_ref_attr_string(&name);
    p.write(&s);
}

/// Parses `pred, %a, %b attr-dict : type` (`mloop.cmp`, `mtensor.cmp`): the bare predicate
/// becomes the string attribute `predicate`, and both operands have `type`, which is
/// returned so that the dialect can derive the result type (`i1`, or `i1` elements).
/// Printed by [`print_predicate_operands_colon_type`].
pub fn parse_predicate_operands_colon_type(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<Type> {
    let pred = p.parse_keyword("comparison predicate")?;
    let a = p.ctx.str_attr(&pred);
    st.attrs.push(("predicate".into(), a));
    p.expect_punct(",")?;
    let loc = p.loc();
    let ops = p.parse_operand_list()?;
    p.parse_optional_attr_dict(st)?;
    let ty = p.parse_colon_type()?;
    st.operands = p.resolve_operands(&ops, &[ty, ty], loc)?;
    Ok(ty)
}

/// Prints the format [`parse_predicate_operands_colon_type`] reads:
/// ` pred, %a, %b attr-dict : type`, the type being that of the first operand.
pub fn print_predicate_operands_colon_type(p: &mut OpPrinter<'_>, op: OpId) {
    let pred = p.ctx.attr(op, "predicate").and_then(|a| p.ctx.attr_str(a)).unwrap_or("?").to_string();
    p.write(" ");
    p.write(&pred);
    p.write(", ");
    let ops = p.ctx.operands(op).to_vec();
    p.print_operands(&ops);
    p.print_optional_attr_dict(op, &["predicate"]);
    p.write(" : ");
    p.print_type(p.ctx.value_type(ops[0]));
}
