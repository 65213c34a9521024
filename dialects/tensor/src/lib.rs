//! `morf-tensor`: the `mtensor` dialect, morf's tensor level.
//!
//! Values are immutable ranked tensors (`tensor<?x384xbf16>`) with float, integer or i1
//! elements. The dialect is named `mtensor` rather than `tensor` so that its generic form
//! stays loadable by upstream `mlir-opt --allow-unregistered-dialect`, which owns `tensor`.
//!
//! Ops, by group (see `docs/dialects/tensor.md` for the full reference):
//!
//! - `mtensor.constant`, in [`ops::constant`];
//! - in [`ops::elementwise`]: `add`, `sub`, `mul`, `div`, `max`, `min`, `pow`, `neg`, `exp`,
//!   `log`, `sqrt`, `rsqrt`, `tanh`, `abs`, `erf` (one op per entry of the scalar function lists
//!   `morf_ir::for_each_unary_fn!` / `for_each_binary_fn!`), `cmp`, `select`, `convert`;
//! - `mtensor.reduce`, in [`ops::reduce`];
//! - in [`ops::shape`]: `dim`, `broadcast`, `transpose`, `reshape`, `collapse_shape`,
//!   `expand_shape`.
//!
//! Each op is one `morf_ir::define_op!` item; its typed handle (`mtensor.collapse_shape` is
//! [`ops::CollapseShapeOp`]) is re-exported from [`ops`]. Every op has a verifier, a custom assembly format (and round-trips in generic form) and
//! interpreter semantics: values are computed in f64 with the `morf_ir::interp::array`
//! kernels and rounded once to the result element type. Folders and canonicalization
//! patterns live in [`fold`].
//!
//! ```
//! let mut ctx = morf_ir::Context::new();
//! morf_tensor::register(&mut ctx);
//! let src = "func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %r = mtensor.add %a, %a : tensor<4xf32>\n  return %r : tensor<4xf32>\n}";
//! let m = morf_ir::parse_source(&mut ctx, "f.mlir", src, 0).unwrap();
//! morf_ir::verify(&ctx, m).unwrap();
//! ```
#![warn(missing_docs)]

pub mod fold;
pub mod ops;
pub mod progen;

use morf_ir::{Context, DialectInfo};

use morf_ir::OpInfo;

use ops::*;

/// Every op kind of the dialect, in registration order.
pub fn op_infos() -> Vec<&'static OpInfo> {
    let mut v = vec![ConstantOp::info()];
    v.extend(morf_ir::interfaces::BinaryFn::ALL.iter().map(|f| binary_op(*f)));
    v.extend(morf_ir::interfaces::UnaryFn::ALL.iter().map(|f| unary_op(*f)));
    v.extend([
        CmpOp::info(),
        SelectOp::info(),
        ConvertOp::info(),
        ReduceOp::info(),
        DimOp::info(),
        BroadcastOp::info(),
        TransposeOp::info(),
        ReshapeOp::info(),
        CollapseShapeOp::info(),
        ExpandShapeOp::info(),
    ]);
    v
}

/// Registers the `mtensor` dialect and its ops into `ctx`.
pub fn register(ctx: &mut Context) {
    let r = ctx.registry_mut();
    r.register_dialect(DialectInfo {
        name: "mtensor",
        summary: "tensor-level ops on immutable ranked tensors",
        materialize_constant: Some(ops::constant::materialize_constant),
    });
    for info in op_infos() {
        r.register_op(info);
    }
}
