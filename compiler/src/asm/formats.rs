//! Custom assembly formats shared by ops of several dialects.

use crate::asm::parser::{OpParser, PResult};
use crate::asm::printer::OpPrinter;
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
