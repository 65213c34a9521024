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
//!   `log`, `sqrt`, `rsqrt`, `tanh`, `abs`, `cmp`, `select`, `convert`;
//! - `mtensor.reduce`, in [`ops::reduce`];
//! - in [`ops::shape`]: `dim`, `broadcast`, `transpose`, `reshape`, `collapse_shape`,
//!   `expand_shape`.
//!
//! Every op has a verifier, a custom assembly format (and round-trips in generic form) and
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

use ops::{constant, elementwise as ew, reduce, shape};

/// Registers the `mtensor` dialect and its ops into `ctx`.
pub fn register(ctx: &mut Context) {
    let r = ctx.registry_mut();
    r.register_dialect(DialectInfo {
        name: "mtensor",
        summary: "tensor-level ops on immutable ranked tensors",
        materialize_constant: Some(constant::materialize_constant),
    });
    r.register_op(Box::leak(Box::new(constant::constant())));
    r.register_op(Box::leak(Box::new(ew::binary("mtensor.add", "elementwise sum"))));
    r.register_op(Box::leak(Box::new(ew::binary("mtensor.sub", "elementwise difference"))));
    r.register_op(Box::leak(Box::new(ew::binary("mtensor.mul", "elementwise product"))));
    r.register_op(Box::leak(Box::new(ew::binary("mtensor.div", "elementwise quotient"))));
    r.register_op(Box::leak(Box::new(ew::binary("mtensor.max", "elementwise maximum (NaN-propagating)"))));
    r.register_op(Box::leak(Box::new(ew::binary("mtensor.min", "elementwise minimum (NaN-propagating)"))));
    r.register_op(Box::leak(Box::new(ew::binary("mtensor.pow", "elementwise power"))));
    r.register_op(Box::leak(Box::new(ew::unary("mtensor.neg", "elementwise negation"))));
    r.register_op(Box::leak(Box::new(ew::unary("mtensor.exp", "elementwise exponential"))));
    r.register_op(Box::leak(Box::new(ew::unary("mtensor.log", "elementwise natural logarithm"))));
    r.register_op(Box::leak(Box::new(ew::unary("mtensor.sqrt", "elementwise square root"))));
    r.register_op(Box::leak(Box::new(ew::unary("mtensor.rsqrt", "elementwise reciprocal square root"))));
    r.register_op(Box::leak(Box::new(ew::unary("mtensor.tanh", "elementwise hyperbolic tangent"))));
    r.register_op(Box::leak(Box::new(ew::unary("mtensor.abs", "elementwise absolute value"))));
    r.register_op(Box::leak(Box::new(ew::cmp())));
    r.register_op(Box::leak(Box::new(ew::select())));
    r.register_op(Box::leak(Box::new(ew::convert())));
    r.register_op(Box::leak(Box::new(reduce::reduce())));
    r.register_op(Box::leak(Box::new(shape::dim())));
    r.register_op(Box::leak(Box::new(shape::broadcast())));
    r.register_op(Box::leak(Box::new(shape::transpose())));
    r.register_op(Box::leak(Box::new(shape::reshape())));
    r.register_op(Box::leak(Box::new(shape::collapse_shape())));
    r.register_op(Box::leak(Box::new(shape::expand_shape())));
}
