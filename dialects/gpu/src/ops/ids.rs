//! Thread and block ids (x dimension), all of type `index`:
//!
//! ```mlir
//! %t = mgpu.thread_id : index
//! %b = mgpu.block_id : index
//! %bd = mgpu.block_dim : index
//! %gd = mgpu.grid_dim : index
//! %l = mgpu.lane_id : index
//! %w = mgpu.warp_id : index
//! ```
//!
//! `lane_id` is `thread_id % 32` and `warp_id` is `thread_id / 32`.

use morf_ir::asm::parser::{OpParser, PResult};
use morf_ir::asm::printer::OpPrinter;
use morf_ir::builtin::op_error;
use morf_ir::{Context, OpId, OpInfo, OperationState, Traits};

use super::{expect_counts, is_index, VResult};

/// The id op `name` (one of the six above).
pub fn id(name: &'static str, summary: &'static str) -> OpInfo {
    OpInfo::new(name, summary)
        .traits(Traits::PURE)
        .verify(verify_id)
        .format(parse_id, print_id)
        .interpret(super::interpret_in_kernel_only)
}

fn verify_id(ctx: &Context, op: OpId) -> VResult {
    expect_counts(ctx, op, 0, 1)?;
    let t = ctx.value_type(ctx.result(op, 0));
    if !is_index(ctx, t) {
        return Err(op_error(ctx, op, format!("result must be of type 'index', got '{}'", ctx.type_to_string(t))));
    }
    Ok(())
}

fn parse_id(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    p.parse_optional_attr_dict(st)?;
    let t = p.parse_colon_type()?;
    st.result_types = vec![t];
    Ok(())
}

fn print_id(p: &mut OpPrinter<'_>, op: OpId) {
    p.print_optional_attr_dict(op, &[]);
    p.write(" : ");
    if let Some(&r) = p.ctx.results(op).first() {
        p.print_type(p.ctx.value_type(r));
    }
}
