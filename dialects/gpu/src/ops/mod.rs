//! The ops of the `mgpu` dialect, one file per group, each op one
//! [`define_op!`](morf_ir::define_op) item; the typed handles are re-exported here
//! (`morf_gpu::ops::LoadOp`), with the type and attribute constraints they share.
//!
//! Ops that only make sense inside a kernel (everything but `func` and `launch`) have an
//! `interpret` hook that reports an error: the simulator ([`crate::sim`]) executes them.

pub mod cluster;
pub mod control;
pub mod ids;
pub mod kernel;
pub mod memory;
pub mod warp;

pub use cluster::{ClusterArriveOp, ClusterStoreOp, ClusterWaitOp};
pub use control::{IfOp, WorkLoopOp, YieldOp};
pub use ids::{BlockDimOp, BlockIdOp, GridDimOp, LaneIdOp, ThreadIdOp, WarpIdOp};
pub use kernel::{FuncOp, LaunchOp, ResidentBlocksOp, ReturnOp};
pub use memory::{
    AtomicKind, AtomicRmwOp, BarrierOp, CopyAsyncCommitOp, CopyAsyncOp, CopyAsyncWaitOp, DynamicSharedOp,
    GridBarrierOp, GridTailOp, LoadOp, LoadVecOp, SharedAllocOp, StoreOp, StoreVecOp,
};
pub use warp::{ReduceKind, ShuffleMode, ShuffleOp, WarpBarrierOp, WarpReduceOp};

use morf_ir::asm::parser::{OpParser, PResult};
use morf_ir::asm::printer::OpPrinter;
use morf_ir::builtin::op_error;
use morf_ir::interp::{InterpResult, Machine};
use morf_ir::opdef::{AttrConstraint, TypeConstraint};
use morf_ir::{Attr, AttrData, Context, Diagnostic, OpId, OperationState, Type, TypeData};

use crate::types::{ptr_parts, SHARED};

/// Result of a verifier.
pub(crate) type VResult = Result<(), Diagnostic>;

/// A `!mgpu.ptr` in any address space.
#[derive(Copy, Clone, Debug)]
pub struct Ptr;
impl TypeConstraint for Ptr {
    const DESCRIPTION: &'static str = "a '!mgpu.ptr'";
    fn check(ctx: &Context, t: Type) -> bool {
        ptr_parts(ctx, t).is_some()
    }
}

/// A `!mgpu.ptr` to shared memory (address space 3).
#[derive(Copy, Clone, Debug)]
pub struct SharedPtr;
impl TypeConstraint for SharedPtr {
    const DESCRIPTION: &'static str = "a shared-memory pointer ('!mgpu.ptr<T, 3>')";
    fn check(ctx: &Context, t: Type) -> bool {
        matches!(ptr_parts(ctx, t), Some((_, SHARED)))
    }
}

/// A scalar: a float, integer or `index`.
#[derive(Copy, Clone, Debug)]
pub struct Scalar;
impl TypeConstraint for Scalar {
    const DESCRIPTION: &'static str = "a scalar";
    fn check(ctx: &Context, t: Type) -> bool {
        matches!(ctx.type_data(t), TypeData::Float(_) | TypeData::Integer(_) | TypeData::Index)
    }
}

/// A unit attribute (`kernel`, `nc`); the accessor says it is there.
#[derive(Copy, Clone, Debug)]
pub struct UnitAttr;
impl AttrConstraint for UnitAttr {
    const DESCRIPTION: &'static str = "a unit attribute";
    type Value<'c> = ();
    fn get(ctx: &Context, a: Attr) -> Option<()> {
        matches!(ctx.attr_data(a), AttrData::Unit).then_some(())
    }
}

/// A symbol reference (`@k`); the accessor returns the name.
#[derive(Copy, Clone, Debug)]
pub struct SymbolRefAttr;
impl AttrConstraint for SymbolRefAttr {
    const DESCRIPTION: &'static str = "a symbol reference";
    type Value<'c> = &'c str;
    fn get(ctx: &Context, a: Attr) -> Option<&str> {
        ctx.attr_symbol(a)
    }
}

/// Checks operand `i` (`name`) of `op` against `C`, with the generated verifier's message; for
/// operands the op definition cannot name (those after a leading variadic group).
pub(crate) fn expect_operand<C: TypeConstraint>(ctx: &Context, op: OpId, i: usize, name: &str) -> VResult {
    morf_ir::opdef::support::check_type::<C>(ctx, op, "operand", i, name, ctx.value_type(ctx.operand(op, i)))
}

/// The nearest enclosing `mgpu.func` of `op`.
pub fn enclosing_kernel(ctx: &Context, op: OpId) -> Option<FuncOp> {
    let mut cur = ctx.parent_op(op);
    while let Some(c) = cur {
        if let Some(f) = ctx.dyn_cast::<FuncOp>(c) {
            return Some(f);
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

/// Parses the format `{attrs}` (nothing but an optional attribute dictionary).
pub(crate) fn parse_attr_dict(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    p.parse_optional_attr_dict(st)
}

/// Prints the format `{attrs}`.
pub(crate) fn print_attr_dict(p: &mut OpPrinter<'_>, op: OpId) {
    p.print_optional_attr_dict(op, &[]);
}

/// Parses the format `{attrs} : type` of an op with no operands and one result.
pub(crate) fn parse_typed_nullary(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    p.parse_optional_attr_dict(st)?;
    let t = p.parse_colon_type()?;
    st.result_types = vec![t];
    Ok(())
}

/// Prints the format `{attrs} : type`.
pub(crate) fn print_typed_nullary(p: &mut OpPrinter<'_>, op: OpId) {
    p.print_optional_attr_dict(op, &[]);
    p.write(" : ");
    if let Some(&r) = p.ctx.results(op).first() {
        p.print_type(p.ctx.value_type(r));
    }
}

/// The `interpret` hook of ops that only the simulator runs.
pub(crate) fn interpret_in_kernel_only(_m: &mut Machine, ctx: &Context, op: OpId) -> InterpResult<()> {
    Err(op_error(ctx, op, "runs only inside a kernel launched by 'mgpu.launch' (the simulator)"))
}
