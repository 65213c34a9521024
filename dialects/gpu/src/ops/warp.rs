//! Warp ops (a full warp of 32 lanes, full mask): `shuffle` and `warp_reduce`.
//!
//! ```mlir
//! %r = mgpu.shuffle xor %v, %off : f32        // modes: xor, down, up, idx
//! %r = mgpu.warp_reduce sum %v : f32          // kinds: sum, max, min; every lane gets the result
//! ```

use morf_ir::asm::parser::{OpParser, PResult};
use morf_ir::asm::printer::OpPrinter;
use morf_ir::builtin::op_error;
use morf_ir::{Context, OpId, OpInfo, OperationState, TypeData};

use super::{expect_counts, expect_in_kernel, expect_index, parse_keyword_attr, str_attr, VResult};

/// The modes of `mgpu.shuffle`.
pub const SHUFFLE_MODES: [&str; 4] = ["xor", "down", "up", "idx"];

/// The kinds of `mgpu.warp_reduce`.
pub const REDUCE_KINDS: [&str; 3] = ["sum", "max", "min"];

/// Reads another lane's value: attribute `mode` (`xor`, `down`, `up` or `idx`), operands
/// `value` (a scalar) and `offset` (`index`); the result has the value's type.
///
/// The source lane is `lane ^ offset`, `lane + offset`, `lane - offset` or `offset`. A source
/// lane outside the warp returns the thread's own value (as CUDA's `shfl.sync` does).
pub fn shuffle() -> OpInfo {
    OpInfo::new("mgpu.shuffle", "reads a value from another lane of the warp")
        .verify(verify_shuffle)
        .format(parse_shuffle, print_shuffle)
        .interpret(super::interpret_in_kernel_only)
}

/// Checks that the value operand is a scalar and the result has its type.
fn check_value(ctx: &Context, op: OpId) -> VResult {
    let t = ctx.value_type(ctx.operand(op, 0));
    if !matches!(ctx.type_data(t), TypeData::Float(_) | TypeData::Integer(_) | TypeData::Index) {
        return Err(op_error(ctx, op, format!("value must be a scalar, got '{}'", ctx.type_to_string(t))));
    }
    let r = ctx.value_type(ctx.result(op, 0));
    if r != t {
        return Err(op_error(
            ctx,
            op,
            format!(
                "result type '{}' does not match the value type '{}'",
                ctx.type_to_string(r),
                ctx.type_to_string(t)
            ),
        ));
    }
    Ok(())
}

fn verify_shuffle(ctx: &Context, op: OpId) -> VResult {
    expect_counts(ctx, op, 2, 1)?;
    expect_in_kernel(ctx, op)?;
    let m = str_attr(ctx, op, "mode")?;
    if !SHUFFLE_MODES.contains(&m) {
        return Err(op_error(ctx, op, format!("unknown shuffle mode '{m}'; expected one of xor, down, up, idx")));
    }
    expect_index(ctx, op, ctx.operand(op, 1), "offset")?;
    check_value(ctx, op)
}

fn parse_shuffle(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    parse_keyword_attr(p, st, "mode", "shuffle mode (xor, down, up or idx)")?;
    let loc = p.loc();
    let v = p.parse_operand()?;
    p.expect_punct(",")?;
    let off = p.parse_operand()?;
    p.parse_optional_attr_dict(st)?;
    let t = p.parse_colon_type()?;
    let idx = p.ctx.index_type();
    st.operands = p.resolve_operands(&[v, off], &[t, idx], loc)?;
    st.result_types = vec![t];
    Ok(())
}

fn print_shuffle(p: &mut OpPrinter<'_>, op: OpId) {
    let mode = p.ctx.attr(op, "mode").and_then(|a| p.ctx.attr_str(a)).unwrap_or("?").to_string();
    p.write(" ");
    p.write(&mode);
    p.write(" ");
    let ops = p.ctx.operands(op).to_vec();
    p.print_operands(&ops);
    p.print_optional_attr_dict(op, &["mode"]);
    p.write(" : ");
    if let Some(&v) = ops.first() {
        p.print_type(p.ctx.value_type(v));
    }
}

/// Combines a value across the 32 lanes of the warp: attribute `kind` (`sum`, `max` or
/// `min`), operand `value`; every lane gets the result, of the value's type.
pub fn warp_reduce() -> OpInfo {
    OpInfo::new("mgpu.warp_reduce", "combines a value across the lanes of a warp")
        .verify(verify_warp_reduce)
        .format(parse_warp_reduce, print_warp_reduce)
        .interpret(super::interpret_in_kernel_only)
}

fn verify_warp_reduce(ctx: &Context, op: OpId) -> VResult {
    expect_counts(ctx, op, 1, 1)?;
    expect_in_kernel(ctx, op)?;
    let k = str_attr(ctx, op, "kind")?;
    if !REDUCE_KINDS.contains(&k) {
        return Err(op_error(ctx, op, format!("unknown combiner '{k}'; expected one of sum, max, min")));
    }
    check_value(ctx, op)
}

fn parse_warp_reduce(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    parse_keyword_attr(p, st, "kind", "combiner (sum, max or min)")?;
    let v = p.parse_operand()?;
    p.parse_optional_attr_dict(st)?;
    let t = p.parse_colon_type()?;
    st.operands = vec![p.resolve_operand(&v, t)?];
    st.result_types = vec![t];
    Ok(())
}

fn print_warp_reduce(p: &mut OpPrinter<'_>, op: OpId) {
    let kind = p.ctx.attr(op, "kind").and_then(|a| p.ctx.attr_str(a)).unwrap_or("?").to_string();
    p.write(" ");
    p.write(&kind);
    p.write(" ");
    let ops = p.ctx.operands(op).to_vec();
    p.print_operands(&ops);
    p.print_optional_attr_dict(op, &["kind"]);
    p.write(" : ");
    if let Some(&v) = ops.first() {
        p.print_type(p.ctx.value_type(v));
    }
}
