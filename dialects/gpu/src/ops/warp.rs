//! Warp ops (a full warp of 32 lanes, full mask): `shuffle`, `warp_reduce` and
//! `warp_barrier`.
//!
//! ```mlir
//! %r = mgpu.shuffle xor %v, %off : f32        // modes: xor, down, up, idx
//! %r = mgpu.warp_reduce sum %v : f32          // kinds: sum, max, min; every lane gets the result
//! %r = mgpu.warp_reduce sum %v {width = 8} : f32   // within each group of 8 lanes (4 rows a warp)
//! mgpu.warp_barrier                           // bar.warp.sync: the warp's shared-memory writes seen
//! ```

use morf_ir::asm::parser::{OpParser, PResult};
use morf_ir::asm::printer::OpPrinter;
use morf_ir::builtin::op_error;
use morf_ir::opdef::{AnyType, Index, StrAttr};
use morf_ir::{define_op, Context, OpId, OperationState};

use super::{
    expect_in_kernel, interpret_in_kernel_only, parse_attr_dict, parse_keyword_attr, print_attr_dict, Scalar, VResult,
};

/// The modes of `mgpu.shuffle`.
pub const SHUFFLE_MODES: [&str; 4] = ["xor", "down", "up", "idx"];

/// The kinds of `mgpu.warp_reduce`.
pub const REDUCE_KINDS: [&str; 3] = ["sum", "max", "min"];

/// The source lane of `mgpu.shuffle`, from the reading lane and the offset.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ShuffleMode {
    /// `lane ^ offset`.
    Xor,
    /// `lane + offset`.
    Down,
    /// `lane - offset`.
    Up,
    /// `offset` (modulo 32).
    Idx,
}

impl ShuffleMode {
    /// The mode named `s` (one of [`SHUFFLE_MODES`]).
    pub fn from_name(s: &str) -> Option<Self> {
        Some(match s {
            "xor" => Self::Xor,
            "down" => Self::Down,
            "up" => Self::Up,
            "idx" => Self::Idx,
            _ => return None,
        })
    }
}

/// The combiner of `mgpu.warp_reduce`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ReduceKind {
    /// `a + b`.
    Sum,
    /// The larger (NaN if either is).
    Max,
    /// The smaller (NaN if either is).
    Min,
}

impl ReduceKind {
    /// The combiner named `s` (one of [`REDUCE_KINDS`]).
    pub fn from_name(s: &str) -> Option<Self> {
        Some(match s {
            "sum" => Self::Sum,
            "max" => Self::Max,
            "min" => Self::Min,
            _ => return None,
        })
    }
}

define_op! {
    /// Reads another lane's value: `%r = mgpu.shuffle xor %v, %off : f32`. Attribute `mode`
    /// (`xor`, `down`, `up` or `idx`); the result has the value's type.
    ///
    /// The source lane is `lane ^ offset`, `lane + offset`, `lane - offset` or `offset`. A
    /// source lane outside the warp returns the thread's own value (as CUDA's `shfl.sync` does).
    pub struct ShuffleOp("mgpu.shuffle") {
        summary: "reads a value from another lane of the warp",
        operands: [value: Scalar, offset: Index],
        results: [result: AnyType],
        attrs: [mode: StrAttr],
        verify: verify_shuffle,
        format: (parse_shuffle, print_shuffle),
        interpret: interpret_in_kernel_only,
    }
}

impl ShuffleOp {
    /// The mode, if the `mode` attribute names one.
    pub fn shuffle_mode(self, ctx: &Context) -> Option<ShuffleMode> {
        self.mode(ctx).and_then(ShuffleMode::from_name)
    }
}

define_op! {
    /// Combines a value across the 32 lanes of the warp: `%r = mgpu.warp_reduce sum %v : f32`.
    /// Attribute `kind` (`sum`, `max` or `min`); every lane gets the result, of the value's type.
    /// With `{width = W}` (1, 2, 4, 8 or 16; 32 by default) each aligned group of `W` lanes
    /// combines its own values: a warp that holds `32 / W` rows reduces each row at once.
    pub struct WarpReduceOp("mgpu.warp_reduce") {
        summary: "combines a value across the lanes of a warp",
        operands: [value: Scalar],
        results: [result: AnyType],
        attrs: [kind: StrAttr],
        verify: verify_warp_reduce,
        format: (parse_warp_reduce, print_warp_reduce),
        interpret: interpret_in_kernel_only,
    }
}

/// The lane counts `mgpu.warp_reduce` may combine over (its `width`).
pub const REDUCE_WIDTHS: [i64; 6] = [1, 2, 4, 8, 16, 32];

impl WarpReduceOp {
    /// The lanes each group combines over: the `width` attribute, 32 without it (`None`
    /// when the attribute is not one of [`REDUCE_WIDTHS`]).
    pub fn width(self, ctx: &Context) -> Option<u32> {
        match ctx.attr(self.0, "width") {
            None => Some(32),
            Some(a) => ctx.attr_int(a).filter(|w| REDUCE_WIDTHS.contains(w)).map(|w| w as u32),
        }
    }

    /// The combiner, if the `kind` attribute names one.
    pub fn reduce_kind(self, ctx: &Context) -> Option<ReduceKind> {
        self.kind(ctx).and_then(ReduceKind::from_name)
    }
}

/// Checks that the result (#0) has the type of the value (operand #0).
fn check_result_type(ctx: &Context, op: OpId) -> VResult {
    let t = ctx.value_type(ctx.operand(op, 0));
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
    expect_in_kernel(ctx, op)?;
    let o = ShuffleOp(op);
    if o.shuffle_mode(ctx).is_none() {
        let m = o.mode(ctx).unwrap_or_default();
        return Err(op_error(ctx, op, format!("unknown shuffle mode '{m}'; expected one of xor, down, up, idx")));
    }
    check_result_type(ctx, op)
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

/// Prints ` <keyword attr> %operands {attrs} : <type of operand 0>`.
fn print_keyword_op(p: &mut OpPrinter<'_>, op: OpId, attr: &str) {
    let kw = p.ctx.attr(op, attr).and_then(|a| p.ctx.attr_str(a)).unwrap_or("?").to_string();
    p.write(" ");
    p.write(&kw);
    p.write(" ");
    let ops = p.ctx.operands(op).to_vec();
    p.print_operands(&ops);
    p.print_optional_attr_dict(op, &[attr]);
    p.write(" : ");
    if let Some(&v) = ops.first() {
        p.print_type(p.ctx.value_type(v));
    }
}

fn print_shuffle(p: &mut OpPrinter<'_>, op: OpId) {
    print_keyword_op(p, op, "mode");
}

fn verify_warp_reduce(ctx: &Context, op: OpId) -> VResult {
    expect_in_kernel(ctx, op)?;
    let o = WarpReduceOp(op);
    if o.reduce_kind(ctx).is_none() {
        let k = o.kind(ctx).unwrap_or_default();
        return Err(op_error(ctx, op, format!("unknown combiner '{k}'; expected one of sum, max, min")));
    }
    if o.width(ctx).is_none() {
        return Err(op_error(ctx, op, "'width' must be an integer among 1, 2, 4, 8, 16 and 32"));
    }
    check_result_type(ctx, op)
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
    print_keyword_op(p, op, "kind");
}

define_op! {
    /// Waits until every lane of the warp reaches it and makes the lanes' shared-memory writes
    /// visible to each other (`bar.warp.sync -1`): `mgpu.warp_barrier`. Lanes of one warp
    /// exchange data through shared memory between two of them (a warp's coalesced loads
    /// handed to the lanes that own them, docs/conversion-loop-to-gpu.md, "Warp-transposed
    /// packed rows"). It must be reached by all 32 lanes of the warp together (control flow
    /// uniform over the warp, not necessarily over the block).
    pub struct WarpBarrierOp("mgpu.warp_barrier") {
        summary: "warp-wide barrier (bar.warp.sync -1)",
        verify: expect_in_kernel,
        format: (parse_attr_dict, print_attr_dict),
        interpret: interpret_in_kernel_only,
    }
}
