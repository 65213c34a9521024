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
pub(crate) use morf_ir::builtin::{
    expect_counts, expect_index, expect_results, expect_str_attr as str_attr, is_index, op_error, plural,
};
use morf_ir::interp::{InterpResult, Machine};
use morf_ir::{Context, Diagnostic, OpId, OperationState, Type, Value};

use crate::types::ptr_parts;

/// Result of a verifier.
pub(crate) type VResult = Result<(), Diagnostic>;

/// Element type and address space of `v`, which must be a `!mgpu.ptr`.
pub(crate) fn ptr_of(ctx: &Context, op: OpId, v: Value, what: &str) -> Result<(Type, i64), Diagnostic> {
    let t = ctx.value_type(v);
    ptr_parts(ctx, t)
        .ok_or_else(|| op_error(ctx, op, format!("{what} must be a '!mgpu.ptr', got '{}'", ctx.type_to_string(t))))
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
