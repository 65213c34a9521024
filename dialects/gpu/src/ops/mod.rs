//! The ops of the `mgpu` dialect, one file per group, plus the helpers they share.
//!
//! Ops that only make sense inside a kernel (everything but `func` and `launch`) have an
//! `interpret` hook that reports an error: the simulator ([`crate::sim`]) executes them.

pub mod control;
pub mod ids;
pub mod kernel;
pub mod memory;
pub mod warp;

use morf_ir::asm::parser::{OpParser, PResult};
use morf_ir::builtin::op_error;
use morf_ir::interp::{InterpResult, Machine};
use morf_ir::{Context, Diagnostic, OpId, OperationState, Type, TypeData, Value};

use crate::types::ptr_parts;

/// Result of a verifier.
pub(crate) type VResult = Result<(), Diagnostic>;

/// Checks the operand and result counts of `op`.
pub(crate) fn expect_counts(ctx: &Context, op: OpId, operands: usize, results: usize) -> VResult {
    let n = ctx.operands(op).len();
    if n != operands {
        return Err(op_error(ctx, op, format!("expects {operands} operand{}, but got {n}", plural(operands))));
    }
    expect_results(ctx, op, results)
}

/// Checks the result count of `op`.
pub(crate) fn expect_results(ctx: &Context, op: OpId, results: usize) -> VResult {
    let r = ctx.results(op).len();
    if r != results {
        return Err(op_error(ctx, op, format!("expects {results} result{}, but got {r}", plural(results))));
    }
    Ok(())
}

pub(crate) fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// Whether `t` is `index`.
pub(crate) fn is_index(ctx: &Context, t: Type) -> bool {
    matches!(ctx.type_data(t), TypeData::Index)
}

/// Checks that `v` has type `index`.
pub(crate) fn expect_index(ctx: &Context, op: OpId, v: Value, what: &str) -> VResult {
    let t = ctx.value_type(v);
    if is_index(ctx, t) {
        Ok(())
    } else {
        Err(op_error(ctx, op, format!("{what} must be of type 'index', got '{}'", ctx.type_to_string(t))))
    }
}

/// Element type and address space of `v`, which must be a `!mgpu.ptr`.
pub(crate) fn ptr_of(ctx: &Context, op: OpId, v: Value, what: &str) -> Result<(Type, i64), Diagnostic> {
    let t = ctx.value_type(v);
    ptr_parts(ctx, t)
        .ok_or_else(|| op_error(ctx, op, format!("{what} must be a '!mgpu.ptr', got '{}'", ctx.type_to_string(t))))
}

/// The string attribute `name` of `op`.
pub(crate) fn str_attr<'c>(ctx: &'c Context, op: OpId, name: &str) -> Result<&'c str, Diagnostic> {
    ctx.attr(op, name)
        .and_then(|a| ctx.attr_str(a))
        .ok_or_else(|| op_error(ctx, op, format!("requires a string attribute '{name}'")))
}

/// The nearest enclosing `mgpu.func` of `op`.
pub fn enclosing_kernel(ctx: &Context, op: OpId) -> Option<OpId> {
    let mut cur = ctx.parent_op(op);
    while let Some(c) = cur {
        if ctx.op_name(c) == "mgpu.func" {
            return Some(c);
        }
        cur = ctx.parent_op(c);
    }
    None
}

/// Checks that `op` is nested in an `mgpu.func`.
pub(crate) fn expect_in_kernel(ctx: &Context, op: OpId) -> VResult {
    if enclosing_kernel(ctx, op).is_some() {
        Ok(())
    } else {
        Err(op_error(ctx, op, "must be nested in an 'mgpu.func'"))
    }
}

/// Parses a keyword attribute (`xor`, `sum`) into `st` under `name`.
pub(crate) fn parse_keyword_attr(p: &mut OpParser<'_>, st: &mut OperationState, name: &str, what: &str) -> PResult<()> {
    let k = p.parse_keyword(what)?;
    let a = p.ctx.str_attr(&k);
    st.attrs.push((name.into(), a));
    Ok(())
}

/// The `interpret` hook of ops that only the simulator runs.
pub(crate) fn interpret_in_kernel_only(_m: &mut Machine, ctx: &Context, op: OpId) -> InterpResult<()> {
    Err(op_error(ctx, op, "runs only inside a kernel launched by 'mgpu.launch' (the simulator)"))
}
