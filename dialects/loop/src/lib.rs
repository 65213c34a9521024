//! `morf-loop`: the `mloop` dialect, morf's loop level.
//!
//! Explicit loop nests over mutable buffers (`!mloop.buffer<?x384xbf16>`): the level where
//! iteration spaces, loop order, reductions and memory are visible, executable and
//! checkable. The dialect is named `mloop` (like `mtensor`) so that its generic form stays
//! loadable by upstream `mlir-opt --allow-unregistered-dialect`.
//!
//! Ops, by group (see `docs/dialects/loop.md` for the full reference):
//!
//! - [`ops::scalar`]: `constant`, `add`, `sub`, `mul`, `div`, `max`, `min`, `pow`, `rem`,
//!   `neg`, `exp`, `log`, `sqrt`, `rsqrt`, `tanh`, `abs`, `erf`, `cmp`, `select`, `convert`;
//! - [`ops::buffer`]: `dim`, `alloc`, `constant_buffer`, `dealloc`, `load`, `store`,
//!   `accumulate`, `fill`;
//! - [`ops::loops`]: `for`, `parallel`, `reduce`, `yield`.
//!
//! Every op is one [`morf_ir::define_op!`] item in its group file, with a typed handle
//! re-exported from [`ops`] (`morf_loop::ops::LoadOp`): named accessors, `build`, a generated
//! verifier for counts and operand kinds, plus its own checks, a custom assembly format (it
//! round-trips in generic form too) and interpreter semantics: scalars are f64 rounded to
//! their type, buffers are shared mutable arrays, and out-of-bounds accesses are diagnostics
//! at the op. The unary and binary scalar ops come from the function lists of
//! [`morf_ir::interfaces`], one op per entry.
//!
//! ```
//! use morf_loop::ops::LoadOp;
//!
//! let mut ctx = morf_ir::Context::new();
//! morf_loop::register(&mut ctx);
//! let src = "func.func @f(%b: !mloop.buffer<4xf32>) -> f32 {
//!   %c0 = mloop.constant 0 : index
//!   %v = mloop.load %b[%c0] : !mloop.buffer<4xf32>
//!   return %v : f32
//! }";
//! let m = morf_ir::parse_source(&mut ctx, "f.mlir", src, 0).unwrap();
//! morf_ir::verify(&ctx, m).unwrap();
//! let loads: Vec<LoadOp> = ctx.walk_collect(m).into_iter().filter_map(|op| ctx.dyn_cast(op)).collect();
//! assert_eq!(loads[0].indices(&ctx).len(), 1);
//! ```
#![warn(missing_docs)]

pub mod access;
pub mod mapping;
pub mod ops;
pub mod types;

use morf_ir::{Context, DialectInfo};

use ops::{
    AccumulateOp, AllocOp, CmpOp, ConstantBufferOp, ConstantOp, ConvertOp, DeallocOp, DimOp, FillOp, ForOp, LoadOp,
    ParallelOp, ReduceOp, RemOp, ResidentProgramsOp, SelectOp, StoreOp, YieldOp,
};

pub use types::{buffer_parts, buffer_type, is_buffer, BUFFER};

/// Registers the `mloop` dialect, its `!mloop.buffer` type and its ops into `ctx`.
pub fn register(ctx: &mut Context) {
    let r = ctx.registry_mut();
    r.register_dialect(DialectInfo {
        name: "mloop",
        summary: "explicit loop nests over mutable buffers",
        materialize_constant: Some(ops::scalar::materialize_constant),
    });
    r.register_type(types::BUFFER, types::verify_buffer_type);
    r.register_op(ConstantOp::info());
    macro_rules! register_fn_ops {
        ($(($v:ident, $s:literal, $op:ident, $($rest:tt)*)),* $(,)?) => {
            $(r.register_op(ops::$op::info());)*
        };
    }
    morf_ir::for_each_unary_fn!(register_fn_ops);
    morf_ir::for_each_binary_fn!(register_fn_ops);
    for info in [
        RemOp::info(),
        CmpOp::info(),
        SelectOp::info(),
        ConvertOp::info(),
        DimOp::info(),
        AllocOp::info(),
        ConstantBufferOp::info(),
        DeallocOp::info(),
        LoadOp::info(),
        StoreOp::info(),
        AccumulateOp::info(),
        FillOp::info(),
        ForOp::info(),
        ParallelOp::info(),
        ReduceOp::info(),
        YieldOp::info(),
        ResidentProgramsOp::info(),
    ] {
        r.register_op(info);
    }
}
